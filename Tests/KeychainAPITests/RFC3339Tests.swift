import Foundation
import KeychainAPI
import Testing

/// The API's dates: `RFC3339.format` writes its bytes itself, so Foundation's formatter is the
/// reference it is checked against, and `parse` reads back what `format` wrote.
@Suite struct RFC3339Tests {
    static func reference(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    static let instants: [Int64] = [
        0, 1, 999, 1000, 86_399_999,
        951_782_400_000,  // 2000-02-29
        1_795_665_511_579,
        4_102_444_800_000,  // 2100-01-01
        253_402_300_799_999,  // 9999-12-31T23:59:59.999
        -1, -999, -1000, -1001, -86_400_000,
        -2_208_988_800_000,  // 1900
    ]

    @Test(arguments: instants)
    func formatsAsFoundationDoes(milliseconds: Int64) {
        let text = RFC3339.format(milliseconds: milliseconds)
        #expect(text == Self.reference(milliseconds))
        #expect(text.utf8.count == 24)
        #expect(RFC3339.parse(text) == milliseconds)
    }

    @Test func instantsFrom1600To9999AreFoundations() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for _ in 0..<2000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            // 1600 to 9999: before the Gregorian calendar's adoption, Foundation's calendar is the
            // Julian one, where RFC 3339 (and gmtime) go on with the Gregorian.
            let milliseconds = Int64(state >> 1) % (253_402_300_800_000 + 11_676_096_000_000) - 11_676_096_000_000
            let text = RFC3339.format(milliseconds: milliseconds)
            #expect(text == Self.reference(milliseconds))
            #expect(RFC3339.parse(text) == milliseconds)
        }
    }

    @Test func yearsRFC3339CannotWriteAreClamped() {
        #expect(RFC3339.format(milliseconds: 253_402_300_800_000) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(milliseconds: .max) == "9999-12-31T23:59:59.999Z")
        #expect(RFC3339.format(milliseconds: .min) == "0000-01-01T00:00:00.000Z")
    }

    /// Every instant `format` writes reads back as itself, and Foundation reads the same.
    @Test(arguments: instants.filter { $0 >= 0 })
    func parseReadsWhatFormatWrote(milliseconds: Int64) {
        let text = RFC3339.format(milliseconds: milliseconds)
        #expect(RFC3339.parse(text) == milliseconds)
        let foundation = ISO8601DateFormatter()
        foundation.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        #expect(foundation.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == milliseconds)
    }

    @Test func offsetsFractionsAndCaseAreRead() {
        #expect(RFC3339.parse("2026-11-28T12:00:00+01:30") == RFC3339.parse("2026-11-28T10:30:00Z"))
        #expect(RFC3339.parse("2026-11-28t10:30:00z") == RFC3339.parse("2026-11-28T10:30:00Z"))
        #expect(RFC3339.parse("1970-01-01T00:00:00.1Z") == 100)
        #expect(RFC3339.parse("1970-01-01T00:00:00.12345Z") == 123)
        #expect(RFC3339.parse("1970-01-01T00:00:00.9996Z") == 1000)
        #expect(RFC3339.parse("2000-02-29T00:00:00Z") == 951_782_400_000)
    }

    /// A year of more than four digits used to wrap in Foundation's parser (`100000000-…` read
    /// as a past date, `200000000-…` as year 9999): it is no RFC 3339 date, and neither are these.
    @Test(arguments: [
        "100000000-01-01T00:00:00Z", "200000000-01-01T00:00:00Z", "10000-01-01T00:00:00Z", "+2026-01-01T00:00:00Z",
        "2026-13-01T00:00:00Z", "2026-02-29T00:00:00Z", "2026-04-31T00:00:00Z", "2026-01-01T24:00:00Z", "2026-01-01T00:60:00Z",
        "2026-01-01T00:00:00", "2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+25:00", "2026-01-01 00:00:00Z",
        "2026-01-01T00:00:00Zjunk", "2026-1-01T00:00:00Z", "",
    ])
    func whatIsNoRFC3339DateIsRefused(text: String) {
        #expect(RFC3339.parse(text) == nil)
    }
}
