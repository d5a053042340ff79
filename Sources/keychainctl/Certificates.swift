import ArgumentParser
import Foundation
import KeychainClient
import KeychainX509

/// The certificates of a file: DER, or PEM with any number of `CERTIFICATE` blocks.
func certificates(inFile path: String) throws(ToolFailure) -> [Data] {
    guard let data = FileManager.default.contents(atPath: path) else { throw ToolFailure(message: "\(path): cannot be read") }
    if data.starts(with: Array("-----BEGIN".utf8))
        || data.contains(0x2D) && String(decoding: data, as: UTF8.self).contains("-----BEGIN")
    {
        guard let blocks = try? PEM.decode(Array(data)) else { throw ToolFailure(message: "\(path): not a PEM file") }
        return blocks.filter { $0.label == "CERTIFICATE" }.map { Data($0.der) }
    }
    return [data]
}

struct AddCertificates: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add-certificates", abstract: "Add certificates to the keychain.")
    @Option(name: .customShort("k"), help: "The keychain (the server's one keychain).") var keychain: String?
    @Argument(help: "Certificate files, DER or PEM.") var files: [String]
    @OptionGroup var storage: StorageOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        var failed = false
        for file in files {
            let ders: [Data]
            do { ders = try certificates(inFile: file) } catch {
                Terminal.error("\(Terminal.programName): \(error.message)")
                failed = true
                continue
            }
            for der in ders {
                do {
                    // Labelled with the common name, as SecCertificateAddToKeychain labels it.
                    let label = (try? Certificate(der: Array(der)))?.commonName
                    try await client.addCertificate(
                        der,
                        options: NewItemOptions(label: label, accessGroup: storage.accessGroup, accessible: storage.accessible))
                } catch  where error.status == errSecDuplicateItem {
                    Terminal.error("\(Terminal.programName): \(file): already in \(keychain ?? "default keychain")")
                    failed = true
                } catch {
                    let failure = SecurityFailure("SecCertificateAddToKeychain", error)
                    Terminal.error(failure.line)
                    if let detail = failure.detail { Terminal.error("\(Terminal.programName): \(detail)") }
                    failed = true
                }
            }
        }
        if failed { throw ExitCode(1) }
    }
}

struct FindCertificate: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-certificate", abstract: "Find a certificate item.")
    @Flag(name: .customShort("a"), help: "Find all matching certificates, not just the first one.") var all = false
    @Option(name: .customShort("c"), help: "Match on \"name\" when searching.") var name: String?
    @Option(name: .customShort("e"), help: "Match on \"emailAddress\" when searching.") var email: String?
    @Flag(name: .customShort("m"), help: "Show the email addresses in the certificate.") var showEmail = false
    @Flag(name: .customShort("p"), help: "Output certificate in pem format.") var pem = false
    @Flag(name: .customShort("Z"), help: "Print SHA-256 (and SHA-1) hash of the certificate.") var hash = false
    @Argument(help: "The keychains (the server's one keychain).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        var query = ItemQuery(.certificate)
        if let name { query = query.matching("matchSubjectContains", .string(name)) }
        let name = client.keychainName
        var found = 0
        do {
            for try await item in client.items(query, returnData: true) {
                let der = Array(item.data ?? Data())
                let certificate = try? Certificate(der: der)
                // By email, as SecCertificateFindByEmail: one of the certificate's addresses.
                if let email, !(certificate?.emailAddresses ?? []).contains(where: { $0.lowercased() == email.lowercased() }) {
                    continue
                }
                found += 1
                if hash {
                    Terminal.out("SHA-256 hash: " + Fingerprint.sha256(der).map { String(format: "%02X", $0) }.joined() + "\n")
                    Terminal.out("SHA-1 hash: " + Fingerprint.sha1(der).map { String(format: "%02X", $0) }.joined() + "\n")
                }
                if showEmail {
                    Terminal.out("email addresses: " + (certificate?.emailAddresses ?? []).joined(separator: ", ") + "\n")
                }
                if pem {
                    Terminal.out(SecurityFormat.pem("CERTIFICATE", Data(der)))
                } else {
                    Terminal.out(SecurityFormat.item(item, keychain: name))
                }
                if !all { break }
            }
        } catch {
            throw SecurityFailure("SecKeychainSearchCopyNext", error)
        }
        if found == 0 { throw SecurityFailure("SecKeychainSearchCopyNext", status: errSecItemNotFound) }
    }
}

struct FindIdentity: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "find-identity", abstract: "Find an identity (certificate + private key).")
    @Option(name: .customShort("p"), help: "Specify policy to evaluate (basic is the only one here).") var policy: String?
    @Option(name: .customShort("s"), help: "Specify optional policy-specific string.") var policyString: String?
    @Flag(name: .customShort("v"), help: "Show valid identities only (default is to show all identities).") var validOnly = false
    @Argument(help: "The keychains (the server's one keychain).") var keychains: [String] = []
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        var identities: [KeychainItem] = []
        do {
            for try await item in client.items(ItemQuery(.identity), returnData: true) { identities.append(item) }
        } catch {
            throw SecurityFailure("SecIdentitySearchCopyNext", error)
        }
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let described = identities.map { item -> (line: String, valid: Bool) in
            let der = Array(item.certificateData ?? Data())
            let certificate = try? Certificate(der: der)
            let sha1 = Fingerprint.sha1(der).map { String(format: "%02X", $0) }.joined()
            // SecCertificateInferLabel: the common name, else the first email address.
            let label = certificate?.commonName ?? certificate?.emailAddresses.first ?? "<unknown>"
            var verdict = ""
            if let certificate, certificate.notAfter < now { verdict = " (CSSMERR_TP_CERT_EXPIRED)" }
            if let certificate, certificate.notBefore > now { verdict = " (CSSMERR_TP_CERT_NOT_VALID_YET)" }
            return (" \(sha1) \"\(label)\"\(verdict)", verdict.isEmpty && certificate != nil)
        }
        func list(_ entries: [(line: String, valid: Bool)]) -> String {
            entries.enumerated().map { String(format: "%3d)", $0.offset + 1) + $0.element.line + "\n" }.joined()
        }
        var out = ""
        if !validOnly {
            out += "\nPolicy: X.509 Basic\n  Matching identities\n" + list(described)
            out += "     \(described.count) identities found\n\n  Valid identities only\n"
        }
        let valid = described.filter(\.valid)
        out += list(valid) + "     \(valid.count) valid identities found\n"
        Terminal.out(out)
    }
}

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import", abstract: "Import items into the keychain: PEM certificates and keys, or a PKCS#12.")
    @Argument(help: "The file to import.") var file: String
    @Option(name: .customShort("k"), help: "The keychain (the server's one keychain).") var keychain: String?
    @Option(name: .customShort("t"), help: "Type: pub, priv, session, cert, agg (read from the file here).") var type: String?
    @Option(name: .customShort("f"), help: "Format: pkcs12, or openssl/pemseq/x509 for PEM (default: from the file).")
    var format: String?
    @Flag(name: .customShort("w"), help: "Specify that private keys are wrapped (not supported: PEM keys are clear).")
    var wrapped = false
    @Option(name: .customShort("P"), help: "The PKCS#12's passphrase (shown to ps: prefer the prompt or --passphrase-file).")
    var passphrase: String?
    @Option(name: .customLong("passphrase-file"), help: "A file whose first line is the PKCS#12's passphrase.")
    var passphraseFile: String?
    @OptionGroup var storage: StorageOptions
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        guard let data = FileManager.default.contents(atPath: file) else { throw ToolFailure(message: "\(file): cannot be read") }
        let isPEM = String(decoding: data.prefix(4096), as: UTF8.self).contains("-----BEGIN")
        let pkcs12 = format.map { $0 == "pkcs12" } ?? (!isPEM || file.hasSuffix(".p12") || file.hasSuffix(".pfx"))
        var fileFormat = KeychainClient.FileFormat.pem
        if pkcs12 {
            let secret: String
            if let passphrase {
                secret = passphrase
            } else if let passphraseFile {
                guard let contents = FileManager.default.contents(atPath: passphraseFile) else {
                    throw ToolFailure(message: "\(passphraseFile): cannot be read")
                }
                secret = String(decoding: contents.prefix { $0 != 0x0A }, as: UTF8.self)
            } else {
                let name = file.split(separator: "/").last.map(String.init) ?? file
                secret = try Terminal.secret(prompt: "password to unlock \(name): ")
            }
            fileFormat = .pkcs12(passphrase: secret)
        }
        let progress = ProgressBar("import", total: 1)
        defer { progress.finish() }
        // import fails with 1 whatever the status, as security's does.
        let result: KeychainClient.ImportResult
        do {
            result = try await client.importItems(
                data, format: fileFormat,
                options: NewItemOptions(accessGroup: storage.accessGroup, accessible: storage.accessible))
        } catch {
            throw SecurityFailure("SecKeychainItemImport", error, exitCode: 1)
        }
        progress.advance()
        if result.items.isEmpty {
            let status = result.keptCertificates > 0 ? errSecDuplicateItem : errSecItemNotFound
            throw SecurityFailure("SecKeychainItemImport", status: status, exitCode: 1)
        }
        let identities = result.items.filter { $0.itemClass == .identity }.count
        let keys = result.items.filter { $0.itemClass == .key }.count
        let certificates = result.items.filter { $0.itemClass == .certificate }.count
        var out = ""
        if identities > 0 { out += "\(identities) \(identities > 1 ? "identities" : "identity") imported.\n" }
        if keys > 0 { out += "\(keys) \(keys > 1 ? "keys" : "key") imported.\n" }
        if certificates > 0 { out += "\(certificates) \(certificates > 1 ? "certificates" : "certificate") imported.\n" }
        Terminal.out(out)
    }
}

struct Export: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export", abstract: "Export items from the keychain: PEM, or one identity as a PKCS#12.")
    @Option(name: .customShort("k"), help: "The keychain (the server's one keychain).") var keychain: String?
    @Option(name: .customShort("t"), help: "Type: certs, allKeys, pubKeys, privKeys, identities, all (default all).")
    var type = "all"
    @Option(name: .customShort("f"), help: "Format: pemseq (default) or pkcs12 (one identity).") var format: String?
    @Flag(name: .customShort("w"), help: "Private keys are wrapped (in a PKCS#12 they are).") var wrapped = false
    @Flag(name: .customShort("p"), help: "PEM encode the output.") var pemArmour = false
    @Option(name: .customShort("P"), help: "The PKCS#12's passphrase (shown to ps: prefer the prompt).") var passphrase: String?
    @Option(name: .customShort("o"), help: "Write to this file (default standard output).") var output: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let data: Data
        if format == "pkcs12" {
            let secret = try passphrase ?? Terminal.secret(prompt: "passphrase for the PKCS#12: ")
            do {
                data = try await client.export(ItemQuery(.identity), format: .pkcs12(passphrase: secret))
            } catch {
                throw SecurityFailure("SecKeychainItemExport", error, exitCode: 1)
            }
        } else {
            let queries: [ItemQuery] =
                switch type {
                case "certs": [ItemQuery(.certificate)]
                case "allKeys": [ItemQuery(.key)]
                case "pubKeys": [ItemQuery.key(keyClass: "public")]
                case "privKeys": [ItemQuery.key(keyClass: "private")]
                case "identities": [ItemQuery(.identity)]
                case "all": [ItemQuery(.certificate), ItemQuery(.key)]
                default: throw ValidationError("-t: expected certs, allKeys, pubKeys, privKeys, identities or all")
                }
            var out = Data()
            let progress = ProgressBar("export", total: queries.count)
            defer { progress.finish() }
            for query in queries {
                do {
                    out.append(try await client.export(query, format: .pem))
                } catch  where error.status == errSecItemNotFound {
                } catch {
                    throw SecurityFailure("SecKeychainItemExport", error, exitCode: 1)
                }
                progress.advance()
            }
            data = out
        }
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw ToolFailure(message: "Error writing to \(output): \(String(cString: strerror(errno)))")
            }
            Terminal.error("...\(data.count) bytes written to \(output)")
        } else {
            Terminal.outBytes(Array(data))
        }
    }
}
