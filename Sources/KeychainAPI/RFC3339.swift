internal import Foundation

/// RFC 3339 UTC timestamps with milliseconds: how the API writes and reads dates.
public enum RFC3339 {
    public static func format(milliseconds: Int64) -> String {
        var seconds = time_t(milliseconds / 1000)
        var tm = tm()
        gmtime_r(&seconds, &tm)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        return "\(pad(tm.tm_year + 1900, 4))-\(pad(tm.tm_mon + 1, 2))-\(pad(tm.tm_mday, 2))T"
            + "\(pad(tm.tm_hour, 2)):\(pad(tm.tm_min, 2)):\(pad(tm.tm_sec, 2)).\(pad(Int32(milliseconds % 1000), 3))Z"
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
