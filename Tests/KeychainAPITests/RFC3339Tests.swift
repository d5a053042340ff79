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
        0, 1, 999, 1000, 86_399_999, 951_782_400_000 /* 2000-02-29 */, 1_795_665_511_579, 4_102_444_800_000 /* 2100-01-01 */,
        253_402_300_799_999 /* 9999-12-31T23:59:59.999 */, -1, -999, -1000, -1001, -86_400_000, -2_208_988_800_000 /* 1900 */,
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
}
