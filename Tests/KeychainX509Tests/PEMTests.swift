import KeychainX509
import TestSupport
import Testing

@Suite struct PEMTests {
    /// A chain's PEM text, with text around and between the blocks and CRLF line ends, decodes to
    /// the DER `openssl x509 -outform DER` writes, in order.
    @Test func decodeGivesOpenSSLsDERInOrder() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=PEM CA")
        let leaf = try certs.makeLeaf("leaf", subject: "/CN=pem.example.com", issuer: ca, serial: "0A")
        let leafText = try TestCertificates.read(leaf.certificatePath)
        let caText = try TestCertificates.read(ca.certificatePath)
        let text = Array("subject=CN = pem.example.com\n".utf8) + leafText + Array("Bag Attributes\n  x: y\n\n".utf8) + caText
        let blocks = try PEM.decode(text)
        #expect(blocks.map(\.label) == ["CERTIFICATE", "CERTIFICATE"])
        #expect(blocks.map(\.der) == [leaf.der, ca.der])

        var crlf: [UInt8] = []
        for byte in text {
            if byte == UInt8(ascii: "\n") { crlf += [0x0D, 0x0A] } else { crlf.append(byte) }
        }
        #expect(try PEM.decode(crlf).map(\.der) == [leaf.der, ca.der])
        // Blanks inside and around body lines, and no newline after the END line.
        let indented =
            "-----BEGIN CERTIFICATE-----  \n" + Base64.encode(ca.der).chunked(20).map { " \t\($0) \r" }.joined(separator: "\n")
            + "\n-----END CERTIFICATE-----"
        #expect(try PEM.decode(Array(indented.utf8)) == [PEM.Block(label: "CERTIFICATE", der: ca.der)])
    }

    /// encode writes what openssl writes: 64-character lines and a newline after the END line.
    @Test func encodeIsWhatOpenSSLWrites() throws {
        let keys = TestKeys()
        let rsa = try keys.rsa("rsa", bits: 1024)
        let certificate = try keys.certificate("rsa", of: rsa)
        let openssl = OpenSSL(directory: keys.tool.directory.path)
        let certificateText = try openssl.run(["x509", "-in", "rsa.crt.pem"]).out
        #expect(PEM.encode(label: "CERTIFICATE", der: certificate) == certificateText)
        let keyText = try openssl.run(["pkey", "-in", "rsa.pem"]).out
        let pkcs8 = try openssl.run(["pkcs8", "-topk8", "-nocrypt", "-in", "rsa.pem", "-outform", "DER"]).out
        #expect(PEM.encode(label: "PRIVATE KEY", der: pkcs8) == keyText)
        #expect(PEM.encode(label: "X", der: []) == Array("-----BEGIN X-----\n-----END X-----\n".utf8))
        // Every length modulo 3 and around a line's 48 bytes decodes back.
        for count in [0, 1, 2, 3, 47, 48, 49, 95, 96, 97, 1000] {
            let der = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37) }
            #expect(try PEM.decode(PEM.encode(label: "DATA", der: der)) == [PEM.Block(label: "DATA", der: der)])
        }
    }

    @Test func base64PaddingIsChecked() throws {
        func body(_ text: String) throws -> [UInt8] {
            try #require(try PEM.decode(Array("-----BEGIN A-----\n\(text)\n-----END A-----\n".utf8)).first).der
        }
        #expect(try body("QQ==") == [0x41])
        #expect(try body("QUI=") == [0x41, 0x42])
        #expect(try body("QUJD") == [0x41, 0x42, 0x43])
        #expect(try body("QU\nJD\nRA\n==") == [0x41, 0x42, 0x43, 0x44], "padding across lines")
        #expect(try body("") == [])
        for bad in ["QQ", "QQ=", "Q===", "QQ==QUJD", "QQ=A", "=QQQ", "QU!D", "QUJD=", "QQ==="] {
            #expect(throws: CertificateError.malformed("")) { try body(bad) }
        }
    }

    @Test func malformedTextsAreRefused() throws {
        let body = "QUJD"
        let refused = [
            "", "no block here\n", "-----BEGIN A-----\n\(body)\n", "-----BEGIN A-----\n\(body)\n-----END B-----\n",
            "-----BEGIN A-----\n\(body)\n-----BEGIN A-----\n\(body)\n-----END A-----\n",
            "-----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nDEK-Info: AES-256-CBC,00\n\n\(body)\n"
                + "-----END RSA PRIVATE KEY-----\n",
            " -----BEGIN A-----\n\(body)\n-----END A-----\n",
            "-----BEGIN A-----\n\(body)\n-----END A----\n",
        ]
        for text in refused {
            #expect(throws: CertificateError.malformed(""), "\(text)") { try PEM.decode(Array(text.utf8)) }
        }
        let block = "-----BEGIN A-----\n\(body)\n-----END A-----\n"
        #expect(try PEM.decode(Array(String(repeating: block, count: PEM.maxBlocks).utf8)).count == PEM.maxBlocks)
        #expect(throws: CertificateError.malformed("")) {
            try PEM.decode(Array(String(repeating: block, count: PEM.maxBlocks + 1).utf8))
        }
        let large = Array(block.utf8) + [UInt8](repeating: UInt8(ascii: "\n"), count: PEM.maxBytes + 1 - block.utf8.count)
        #expect(throws: CertificateError.malformed("")) { try PEM.decode(large) }
        #expect(try PEM.decode(Array(large.dropLast())).count == 1, "exactly maxBytes is read")
    }

    /// A body of nearly `maxBytes` in one block, in lines of 64 characters and as one line.
    @Test func largestBodyDecodes() throws {
        let der = (0..<(PEM.maxBytes / 4 * 3 - 100)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 >> 8) }
        let text = PEM.encode(label: "BIG", der: der)
        #expect(text.count <= PEM.maxBytes + PEM.maxBytes / 64)
        let oneLine = Array("-----BEGIN BIG-----\n\(Base64.encode(der))\n-----END BIG-----\n".utf8)
        #expect(oneLine.count <= PEM.maxBytes)
        #expect(try PEM.decode(oneLine) == [PEM.Block(label: "BIG", der: der)])
    }

    /// Truncations and bit flips of a real chain: blocks or a CertificateError, never a crash.
    @Test func mutatedTextsAreErrorsNotCrashes() throws {
        let certs = TestCertificates()
        let ca = try certs.makeCA("ca", subject: "/CN=Mutated")
        let text = try TestCertificates.read(ca.certificatePath)
        for length in 0..<text.count {
            if let blocks = try? PEM.decode(Array(text.prefix(length))) {
                #expect(blocks == [PEM.Block(label: "CERTIFICATE", der: ca.der)], "only the newline after END may go")
                #expect(length == text.count - 1)
            }
        }
        var generator = SystemRandomNumberGenerator()
        for index in 0..<text.count {
            var mutated = text
            mutated[index] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &generator)
            _ = try? PEM.decode(mutated)
        }
    }
}

extension String {
    /// The string in pieces of `size` characters.
    fileprivate func chunked(_ size: Int) -> [Substring] {
        var pieces: [Substring] = []
        var start = startIndex
        while start < endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            pieces.append(self[start..<end])
            start = end
        }
        return pieces
    }
}
