internal import Foundation

/// RFC 3339 UTC timestamps with milliseconds: how the API writes and reads dates.
public enum RFC3339 {
    /// `YYYY-MM-DDTHH:MM:SS.fffZ`, written as bytes: every answer with attributes carries two
    /// (docs/performance.md#rfc-3339-dates-written-as-bytes). Dates before
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

    /// Parses RFC 3339's `date-time` to milliseconds since 1970: `YYYY-MM-DDTHH:MM:SS[.f…](Z|±HH:MM)`,
    /// `T` and `Z` in either case, the year exactly four digits (a longer year is no RFC 3339 date,
    /// not one wrapped into range), the fraction rounded to the millisecond; `nil` for anything else.
    public static func parse(_ text: String) -> Int64? {
        var bytes = Array(text.utf8)[...]
        func digits(_ count: Int) -> Int? {
            guard bytes.count >= count else { return nil }
            var value = 0
            for byte in bytes.prefix(count) {
                guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
            }
            bytes = bytes.dropFirst(count)
            return value
        }
        func skip(_ byte: UInt8, or other: UInt8? = nil) -> Bool {
            guard let first = bytes.first, first == byte || first == other else { return false }
            bytes = bytes.dropFirst()
            return true
        }
        guard let year = digits(4), skip(UInt8(ascii: "-")), let month = digits(2), skip(UInt8(ascii: "-")), let day = digits(2),
            skip(UInt8(ascii: "T"), or: UInt8(ascii: "t")), let hour = digits(2), skip(UInt8(ascii: ":")), let minute = digits(2),
            skip(UInt8(ascii: ":")), let second = digits(2)
        else { return nil }
        var millis = 0
        if skip(UInt8(ascii: ".")) {
            let fraction = bytes.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard !fraction.isEmpty else { return nil }
            var scaled = 0
            for (n, byte) in fraction.prefix(4).enumerated() { scaled += Int(byte - UInt8(ascii: "0")) * [1000, 100, 10, 1][n] }
            millis = (scaled + 5) / 10
            bytes = bytes.dropFirst(fraction.count)
        }
        var offset = 0
        if !skip(UInt8(ascii: "Z"), or: UInt8(ascii: "z")) {
            guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
            bytes = bytes.dropFirst()
            guard let hours = digits(2), skip(UInt8(ascii: ":")), let minutes = digits(2), hours <= 23, minutes <= 59 else {
                return nil
            }
            offset = (hours * 60 + minutes) * (sign == UInt8(ascii: "+") ? 1 : -1)
        }
        guard bytes.isEmpty, (1...12).contains(month), (1...daysIn(month: month, year: year)).contains(day), hour <= 23,
            minute <= 59, second <= 60
        else { return nil }
        let days = daysSince1970(year: year, month: month, day: day)
        let seconds = Int64(days) * 86_400 + Int64(hour * 3600 + minute * 60 + second) - Int64(offset * 60)
        return seconds * 1000 + Int64(millis)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
