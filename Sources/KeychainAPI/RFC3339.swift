internal import Foundation

/// RFC 3339 UTC timestamps with milliseconds: how the API writes and reads dates.
public enum RFC3339 {
    /// `YYYY-MM-DDTHH:MM:SS.fffZ`, written as bytes: every answer with attributes carries two
    /// (the same through string interpolation cost about 7,500 instructions each). Dates before
    /// 1970 count back from it (floor division: -1 ms is `1969-12-31T23:59:59.999Z`).
    public static func format(milliseconds: Int64) -> String {
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let borrow: Int64 = remainder < 0 ? 1 : 0
        var seconds = time_t(quotient - borrow)
        let millis = Int(remainder + borrow * 1000)
        var tm = tm()
        guard gmtime_r(&seconds, &tm) != nil, tm.tm_year >= -1900, tm.tm_year <= 9999 - 1900 else {
            // Outside years 0-9999, which RFC 3339 cannot write: the nearest it can.
            return milliseconds < 0 ? "0000-01-01T00:00:00.000Z" : "9999-12-31T23:59:59.999Z"
        }
        return String(unsafeUninitializedCapacity: 24) { out in
            func put(_ value: Int, _ width: Int, at offset: Int) {
                var rest = value
                for n in stride(from: offset + width - 1, through: offset, by: -1) {
                    out[n] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
            }
            put(Int(tm.tm_year) + 1900, 4, at: 0)
            out[4] = UInt8(ascii: "-")
            put(Int(tm.tm_mon) + 1, 2, at: 5)
            out[7] = UInt8(ascii: "-")
            put(Int(tm.tm_mday), 2, at: 8)
            out[10] = UInt8(ascii: "T")
            put(Int(tm.tm_hour), 2, at: 11)
            out[13] = UInt8(ascii: ":")
            put(Int(tm.tm_min), 2, at: 14)
            out[16] = UInt8(ascii: ":")
            put(Int(tm.tm_sec), 2, at: 17)
            out[19] = UInt8(ascii: ".")
            put(millis, 3, at: 20)
            out[23] = UInt8(ascii: "Z")
            return 24
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS[.fff](Z|±HH:MM)` to milliseconds since 1970.
    public static func parse(_ text: String) -> Int64? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return Int64((date.timeIntervalSince1970 * 1000).rounded()) }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text).map { Int64($0.timeIntervalSince1970 * 1000) }
    }
}
