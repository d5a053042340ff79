import Foundation
import KeychainX509
import Testing

/// Signature verification against Project Wycheproof's vectors (`Tests/Fixtures/wycheproof`,
/// copied from C2SP/wycheproof's `testvectors_v1`, Apache License 2.0): every valid signature
/// verifies, every invalid one (malformed DER, wrong lengths, r or s out of range, small-order
/// points, malleated encodings…) does not.
@Suite struct WycheproofTests {
    struct Outcome: CustomStringConvertible {
        var valid = 0
        var invalid = 0
        var wrong: [String] = []
        var description: String { "\(valid) valid, \(invalid) invalid, wrong: \(wrong.prefix(10))" }
    }

    static func vectors(_ name: String) throws -> [[String: Any]] {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../Fixtures/wycheproof/\(name).json").standardizedFileURL
        let root = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: path)) as? [String: Any])
        return try #require(root["testGroups"] as? [[String: Any]])
    }

    static func bytes(_ hex: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            bytes.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return bytes
    }

    /// Each test's answer beside Wycheproof's: `acceptable` ones may go either way.
    static func check(
        _ file: String, algorithm: KeyAlgorithm, type: KeyMaterial.Algorithm, publicKey: ([String: Any]) -> String?
    ) throws -> Outcome {
        var outcome = Outcome()
        for group in try vectors(file) {
            let key = try #require(publicKey(group).map(bytes))
            for test in try #require(group["tests"] as? [[String: Any]]) {
                let id = test["tcId"] as? Int ?? -1
                let message = bytes(test["msg"] as? String ?? "")
                let signature = bytes(test["sig"] as? String ?? "")
                let result = test["result"] as? String
                let verified: Bool
                do {
                    verified = try KeyOperations.verify(
                        message, signature: signature, algorithm: algorithm, publicKey: key, type: type)
                } catch {
                    outcome.wrong.append("\(id): threw \(error)")
                    continue
                }
                switch result {
                case "valid":
                    outcome.valid += 1
                    if !verified { outcome.wrong.append("\(id): valid, not verified") }
                case "invalid":
                    outcome.invalid += 1
                    if verified { outcome.wrong.append("\(id): invalid, verified") }
                default: break
                }
            }
        }
        return outcome
    }

    @Test(arguments: [
        ("ecdsa_secp256r1_sha256_test", KeyAlgorithm.ecdsaSignatureMessageX962SHA256),
        ("ecdsa_secp384r1_sha384_test", KeyAlgorithm.ecdsaSignatureMessageX962SHA384),
    ])
    func ecdsaVerificationAgreesWithWycheproof(file: String, algorithm: KeyAlgorithm) throws {
        let outcome = try Self.check(file, algorithm: algorithm, type: .ec) {
            ($0["publicKey"] as? [String: Any])?["uncompressed"] as? String
        }
        #expect(outcome.wrong.isEmpty, "\(outcome)")
        #expect(outcome.valid > 0 && outcome.invalid > 100, "\(outcome)")
    }

    @Test func ed25519VerificationAgreesWithWycheproof() throws {
        let outcome = try Self.check("ed25519_test", algorithm: .edDSASignatureMessageCurve25519SHA512, type: .ed25519) {
            ($0["publicKey"] as? [String: Any])?["pk"] as? String
        }
        #expect(outcome.wrong.isEmpty, "\(outcome)")
        #expect(outcome.valid > 0 && outcome.invalid > 50, "\(outcome)")
    }
}
