import ArgumentParser
import Foundation
import KeychainClient
import KeychainX509

/// security(1)'s `create-keypair`: a key pair made and kept by the keychain, labelled with the
/// description. RSA by default, as security's; 2048 bits by default, the least the server makes.
struct CreateKeypair: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create-keypair", abstract: "Create an asymmetric key pair.",
        discussion: """
            Both keys are kept in the keychain, labelled with the description (default "<key>"). \
            The private key signs, decrypts and derives there (see sign, decrypt, key-exchange). \
            security's -f, -t, -d (validity dates), -A and -T (access lists) are not taken.
            """)
    @Option(name: .customShort("a"), help: "The algorithm: rsa, ec, ed25519 or x25519 (default rsa).") var algorithm = "rsa"
    @Option(name: .customShort("s"), help: "The key size in bits (default: rsa 2048, ec 256).") var size: Int?
    @Option(name: .customShort("k"), help: "The keychain (default: the token's default keychain).") var keychain: String?
    @Flag(name: .customShort("H"), help: "Print the public key hash attribute.") var printHash = false
    @Option(name: .customLong("tag"), help: "The keys' application tag (kSecAttrApplicationTag), as text.") var tag: String?
    @Flag(name: .customLong("non-extractable"), help: "The private key's bytes never leave the keychain.")
    var nonExtractable = false
    @OptionGroup var storage: StorageOptions
    @Argument(help: "The keys' label.") var description: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let types = [
            "rsa": kSecAttrKeyTypeRSA, "ec": kSecAttrKeyTypeEC, "ed25519": kSecAttrKeyTypeEd25519,
            "x25519": kSecAttrKeyTypeX25519,
        ]
        guard let type = types[algorithm] else { throw ValidationError("Invalid algorithm: \(algorithm)") }
        if description?.isEmpty == true { throw ValidationError("the description is empty") }
        var common: [String: Any] = [kSecAttrKeyType: type, kSecAttrLabel: description ?? "<key>"]
        if let size { common[kSecAttrKeySizeInBits] = size }
        if let tag { common[kSecAttrApplicationTag] = Data(tag.utf8) }
        if let keychain { common[kSecUseKeychain] = keychain }
        if let group = storage.accessGroup { common[kSecAttrAccessGroup] = group }
        if let accessible = storage.accessible { common[kSecAttrAccessible] = accessible }
        common[kSecPrivateKeyAttrs] = [kSecAttrIsPermanent: true, kSecAttrIsExtractable: !nonExtractable]
        common[kSecPublicKeyAttrs] = [kSecAttrIsPermanent: true]
        let client = try connection.client()
        let key = try await calling("SecKeyCreatePair \(keychain ?? "<NULL>")", exitCode: 1) { () async throws(KeychainError) in
            try await client.SecKeyCreateRandomKey(common)
        }
        if printHash, let ref = key.persistentRef {
            let attributes = try await calling("SecKeychainItemCopyAttributesAndData", exitCode: 1) {
                () async throws(KeychainError) in
                try await client.SecItemCopyMatching([kSecValuePersistentRef: Data(ref.utf8), kSecReturnAttributes: true])
            }
            let hash = (attributes as? [String: Any])?[kSecAttrApplicationLabel] as? Data ?? Data()
            Terminal.outBytes(PEM.encode(label: "PUBLIC KEY HASH", der: Array(hash)))
        }
    }
}

/// The key a key verb uses: the first key item of the keychain matching these, of the class the
/// verb needs; or, for the verbs that use a public key, a public key file.
struct KeySelection: ParsableArguments {
    @OptionGroup var name: KeyName
    @Option(name: .customShort("a"), help: "The algorithm: Apple's SecKeyAlgorithm name, ecdsaSignatureMessageX962SHA256, …")
    var algorithm: String
    @Option(name: .customShort("i"), help: "The input file (default standard input).") var input: String?
    @Option(name: .customShort("o"), help: "The output file (default standard output).") var output: String?

    /// The key item of `keyClass` these options name.
    func key(_ keyClass: String) throws -> SecKey { try name.key(keyClass) }

    func readInput() throws(ToolFailure) -> Data { try readFile(input) }

    /// Reads the input, runs `operation` (`function`, for errors) with `secKey` on it through the
    /// server, and writes its output.
    func transform(
        _ secKey: SecKey, _ function: String, _ operation: (SecKey, Data) async throws(KeychainError) -> Data
    ) async throws {
        let input = try readInput()
        try write(try await calling(function) { () async throws(KeychainError) in try await operation(secKey, input) })
    }

    /// Writes `bytes` to the output file (mode 0600: a plaintext or a shared secret may be a
    /// secret), or to standard output.
    func write(_ bytes: Data) throws(ToolFailure) {
        guard let output else { return Terminal.outBytes(Array(bytes)) }
        guard FileManager.default.createFile(atPath: output, contents: bytes, attributes: [.posixPermissions: 0o600]) else {
            throw ToolFailure(message: "Error writing to \(output): \(String(cString: strerror(errno)))")
        }
    }
}

/// A kept key, by label, application tag and keychain, or by persistent reference.
struct KeyName: ParsableArguments {
    @Option(name: .customShort("l"), help: "Match on the key's label.") var label: String?
    @Option(name: .customLong("tag"), help: "Match on the key's application tag (kSecAttrApplicationTag), as text.")
    var tag: String?
    @Option(name: .customLong("ref"), help: "The key item's persistent reference.") var ref: String?
    @Option(name: .customShort("k"), help: "The keychain (default: the token's search list).") var keychain: String?

    /// The key item these options name, of `keyClass` when given.
    func key(_ keyClass: String?) throws -> SecKey {
        if let ref {
            guard label == nil, tag == nil, keychain == nil else {
                throw ValidationError("--ref names the key alone: no -l, --tag or -k with it")
            }
            return SecKey(persistentRef: ref)
        }
        var query: [String: Any] = [:]
        if let keyClass { query[kSecAttrKeyClass] = keyClass }
        if let label { query[kSecAttrLabel] = label }
        if let tag { query[kSecAttrApplicationTag] = Data(tag.utf8) }
        if let keychain { query[kSecUseKeychain] = keychain }
        return try SecKey(query: query)
    }
}

/// A public key file given instead of a kept key, for the verbs that use a public key.
struct GivenPublicKey: ParsableArguments {
    @Option(name: .customLong("public-key"), help: "A public key file (PEM or DER) instead of a kept key.") var file: String?

    /// The file's key, or the kept public key `selection` names.
    func key(or selection: KeySelection) throws -> SecKey { try file.map(publicKey(file:)) ?? selection.key("public") }
}

/// The bytes of `path`, or of standard input when it is nil.
func readFile(_ path: String?) throws(ToolFailure) -> Data {
    guard let path else { return FileHandle.standardInput.readDataToEndOfFile() }
    guard let data = FileManager.default.contents(atPath: path) else { throw ToolFailure(message: "\(path): cannot be read") }
    return data
}

/// A public key file: PEM (`PUBLIC KEY`, `RSA PUBLIC KEY`) or DER SubjectPublicKeyInfo, as a
/// SecKey in hand.
func publicKey(file path: String) throws -> SecKey {
    let data = try readFile(path)
    let imported: ImportedKey
    do {
        if let blocks = try? PEM.decode(Array(data)), let block = blocks.first {
            imported = try PEM.importKey(block)
        } else {
            imported = try PEM.importKey(der: Array(data))
        }
    } catch {
        throw ToolFailure(message: "\(path): not a public key: \(error.message)")
    }
    guard imported.role == .public else { throw ToolFailure(message: "\(path): a private key, where a public key is needed") }
    return try SecKeyCreateWithData(
        Data(imported.external), [kSecAttrKeyType: imported.algorithm.rawValue, kSecAttrKeyClass: kSecAttrKeyClassPublic])
}

struct Sign: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Sign data with a private key the keychain keeps (SecKeyCreateSignature).",
        discussion: "The signature's bytes go to standard output or -o: X9.62 DER for ECDSA, 64 bytes for Ed25519.")
    @OptionGroup var key: KeySelection
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        try await key.transform(try key.key("private"), "SecKeyCreateSignature") { (secKey, data) async throws(KeychainError) in
            try await client.SecKeyCreateSignature(secKey, key.algorithm, data)
        }
    }
}

struct Verify: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Verify a signature with a public key (SecKeyVerifySignature).",
        discussion: """
            Exits 0 when the signature verifies, 1 when it does not (errSecVerifyFailed), and as \
            other verbs on an error. The key is kept, or a file given with --public-key.
            """)
    @OptionGroup var key: KeySelection
    @Option(name: .customShort("s"), help: "The signature file.") var signatureFile: String
    @OptionGroup var given: GivenPublicKey
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let secKey = try given.key(or: key)
        let (data, signature) = (try key.readInput(), try readFile(signatureFile))
        let verified = try await calling("SecKeyVerifySignature") { () async throws(KeychainError) in
            try await client.SecKeyVerifySignature(secKey, key.algorithm, data, signature)
        }
        guard verified else { throw SecurityFailure("SecKeyVerifySignature", status: errSecVerifyFailed, exitCode: 1) }
    }
}

struct Encrypt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Encrypt data for a public key (SecKeyCreateEncryptedData).",
        discussion: "The key is kept, or a file given with --public-key.")
    @OptionGroup var key: KeySelection
    @OptionGroup var given: GivenPublicKey
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let secKey = try given.key(or: key)
        try await key.transform(secKey, "SecKeyCreateEncryptedData") { (secKey, plaintext) async throws(KeychainError) in
            try await client.SecKeyCreateEncryptedData(secKey, key.algorithm, plaintext)
        }
    }
}

struct Decrypt: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Decrypt data with a private key the keychain keeps (SecKeyCreateDecryptedData).")
    @OptionGroup var key: KeySelection
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        try await key.transform(try key.key("private"), "SecKeyCreateDecryptedData") {
            (secKey, ciphertext) async throws(KeychainError) in
            try await client.SecKeyCreateDecryptedData(secKey, key.algorithm, ciphertext)
        }
    }
}

struct KeyExchange: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "key-exchange",
        abstract: "Agree on a secret with a kept private key and a peer's public key (SecKeyCopyKeyExchangeResult).")
    @OptionGroup var key: KeySelection
    @Option(name: .customLong("peer"), help: "The peer's public key file (PEM or DER).") var peer: String
    @Option(name: .customLong("size"), help: "Bytes to derive with an X9.63 algorithm (default 32).") var size: Int?
    @Option(name: .customLong("shared-info"), help: "A file of the X9.63 KDF's shared info.") var sharedInfo: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let (secKey, peerKey) = (try key.key("private"), try publicKey(file: peer))
        var parameters: [String: Any] = [:]
        if let size { parameters[kSecKeyKeyExchangeParameterRequestedSize] = size }
        if let sharedInfo { parameters[kSecKeyKeyExchangeParameterSharedInfo] = try readFile(sharedInfo) }
        let secret = try await calling("SecKeyCopyKeyExchangeResult") { () async throws(KeychainError) in
            try await client.SecKeyCopyKeyExchangeResult(secKey, key.algorithm, peerKey, parameters)
        }
        try key.write(secret)
    }
}

struct PublicKey: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "public-key", abstract: "Print the public key of a kept key (SecKeyCopyPublicKey), PEM by default.")
    @OptionGroup var name: KeyName
    @Flag(name: .customShort("r"), help: "Apple's external representation (raw bytes) instead of PEM.") var raw = false
    @Option(name: .customShort("o"), help: "The output file (default standard output).") var output: String?
    @OptionGroup var connection: ConnectionOptions

    func run() async throws {
        let client = try connection.client()
        let secKey = try name.key(nil)
        let (bytes, type) = try await calling("SecKeyCopyPublicKey") { () async throws(KeychainError) in
            let publicKey = try await client.SecKeyCopyPublicKey(secKey)
            return (try await client.SecKeyCopyExternalRepresentation(publicKey), publicKey.keyType ?? "")
        }
        var out = bytes
        if !raw {
            guard let algorithm = KeyMaterial.Algorithm(rawValue: type),
                let block = try? PEM.exportKey(Array(bytes), algorithm: algorithm, role: .public)
            else { throw ToolFailure(message: "the server's public key is not a \(type) key") }
            out = Data(PEM.encode(label: block.label, der: block.der))
        }
        if let output {
            guard FileManager.default.createFile(atPath: output, contents: out) else {
                throw ToolFailure(message: "Error writing to \(output): \(String(cString: strerror(errno)))")
            }
        } else {
            Terminal.outBytes(Array(out))
        }
    }
}
