import KeychainBarrier
import KeychainStorage
public import KeychainX509

/// Certificates and keys as operators hold them (a PEM file, a PKCS#12), already parsed:
/// certificates as DER, keys in Apple's external representation.
public struct ImportedMaterial: Sendable {
    public struct Key: Sendable {
        public let algorithm: KeyMaterial.Algorithm
        public let role: KeyMaterial.Role
        public let bytes: [UInt8]

        public init(algorithm: KeyMaterial.Algorithm, role: KeyMaterial.Role, bytes: [UInt8]) {
            self.algorithm = algorithm
            self.role = role
            self.bytes = bytes
        }
    }

    /// In the file's order.
    public var certificates: [[UInt8]]
    public var keys: [Key]
    /// The name the file gives its identity (a PKCS#12's friendlyName): its certificate's and
    /// key's `label` when the import names none, as macOS's SecPKCS12Import labels them.
    public var label: String?

    public init(certificates: [[UInt8]], keys: [Key], label: String? = nil) {
        self.certificates = certificates
        self.keys = keys
        self.label = label
    }
}

/// What an import wrote.
public struct ImportResult: Sendable {
    /// Each identity, certificate and key added, shaped as an add's answer.
    public let items: [ItemResult]
    /// Chain certificates already in the keychain, kept as they were.
    public let keptCertificates: Int
}

extension Keychain {
    /// The most certificates and keys one import takes.
    public static let maxImportedParts = 64

    /// Adds what a PEM file or a PKCS#12 holds, in one transaction or not at all (SecItemImport,
    /// SecPKCS12Import then SecItemAdd). Each private key with a certificate of its public key
    /// becomes an identity (the first such certificate); every other certificate is added as a
    /// certificate, kept as it is when the keychain has it already (a chain's CA certificates are
    /// shared by many identities); every other key is added as a key. `defaults` gives what
    /// every item gets: `accessGroup`, `accessible`, `synchronizable` and attributes every class
    /// has (`label`); without a `label`, an identity takes the file's name for it. A duplicate identity or key is errSecDuplicateItem naming the existing
    /// item, and nothing is written.
    public func importItems(_ material: ImportedMaterial, defaults: ItemQuery, token: AccessToken) throws(KeychainError)
        -> ImportResult
    {
        // The bytes came in the request's body: an error about them names it.
        do { return try importParts(material, defaults: defaults, token: token) } catch {
            throw error.naming("valueData", as: "body").naming("certificateData", as: "body")
        }
    }

    private func importParts(_ material: ImportedMaterial, defaults: ItemQuery, token: AccessToken) throws(KeychainError)
        -> ImportResult
    {
        try require(.write, token, for: "import")
        guard !material.certificates.isEmpty || !material.keys.isEmpty else {
            throw .param("body: holds no certificate and no key")
        }
        guard material.certificates.count + material.keys.count <= Self.maxImportedParts else {
            throw .param("body: more than \(Self.maxImportedParts) certificates and keys")
        }
        for (key, _) in defaults.attributes where !key.applies(to: .certificate) || !key.applies(to: .key) {
            throw .param("\(key.name): an import sets only attributes every certificate and key has (label)")
        }
        enum Part {
            case identity(DecodedItem, DecodedItem)
            case certificate(DecodedItem)
            case key(DecodedItem)
        }
        var parts: [Part] = []
        var barrier: Barrier?
        var paired = Set<Int>()
        let certificates = try material.certificates.enumerated().map { (index, der) throws(KeychainError) in
            (der, try Self.parseCertificate(der, naming: "body: certificate \(index)"))
        }
        for key in material.keys {
            var query = defaults
            query.valueData = key.bytes
            if key.role == .private,
                let index = certificates.indices.first(where: { index in
                    !paired.contains(index)
                        && (try? KeyMaterial(key.bytes, algorithm: key.algorithm, role: .private))?.publicKeyHash
                            == certificates[index].1.publicKeyHash
                })
            {
                paired.insert(index)
                let labelKey = Schema.key(canonical: "label")!
                if let label = material.label, label.utf8.count <= ItemQuery.maxAttributeBytes,
                    !query.attributes.contains(where: { $0.key == labelKey })
                {
                    query.attributes.append((labelKey, .string(label)))
                }
                query.itemClass = .identity
                query.certificateData = certificates[index].0
                query.attributes.append((Self.keyKeys.keyType, .string(key.algorithm.rawValue)))
                let (certificate, keyItem, opened) = try identityItems(query, token: token)
                parts.append(.identity(certificate, keyItem))
                barrier = opened
            } else {
                query.itemClass = .key
                query.attributes += [
                    (Self.keyKeys.keyType, .string(key.algorithm.rawValue)), (Self.keyKeys.keyClass, .string(key.role.rawValue)),
                ]
                let (item, opened) = try addedItem(query, token: token)
                parts.append(.key(item))
                barrier = opened
            }
        }
        for (index, certificate) in certificates.enumerated() where !paired.contains(index) {
            var query = defaults
            query.itemClass = .certificate
            query.valueData = certificate.0
            let (item, opened) = try addedItem(query, token: token)
            parts.append(.certificate(item))
            barrier = opened
        }
        guard let barrier else { throw .param("body: holds no certificate and no key") }
        let written: [(Part, ItemRecord?)]
        do {
            written = try transaction { writer in
                try parts.map { part in
                    switch part {
                    case .identity(let certificate, let key):
                        if let existing = try writer.item(primaryKey: certificate.record.primaryKey) {
                            throw KeychainError.duplicateItem(
                                persistentRef: PersistentRef.encode(existing.ref, keychain: self.name))
                        }
                        return (part, try Self.insert(certificate, key, writer: writer))
                    case .certificate(let item):
                        if try writer.item(primaryKey: item.record.primaryKey) != nil { return (part, nil) }
                        _ = try writer.insert(item.record)
                        return (part, item.record)
                    case .key(let item):
                        if let existing = try writer.item(primaryKey: item.record.primaryKey) {
                            throw KeychainError.duplicateItem(
                                persistentRef: PersistentRef.encode(existing.ref, keychain: self.name))
                        }
                        _ = try writer.insert(item.record)
                        return (part, item.record)
                    }
                }
            }
        } catch {
            throw map(error)
        }
        var items: [ItemResult] = []
        var kept = 0
        for (part, record) in written {
            switch part {
            case .identity(let certificate, let key):
                // The key row as stored: this import's, or the same key already there.
                var keyItem = key
                publish(.add, item: certificate)
                if let record, record.ref != key.record.ref {
                    keyItem = try DecodedItem(record, barrier: barrier)
                } else {
                    publish(.add, item: key)
                }
                items.append(
                    try shape(
                        IdentityPair(certificate: certificate, key: keyItem), query: ItemQuery(), barrier: barrier, token: nil))
            case .certificate(let item), .key(let item):
                guard record != nil else {
                    kept += 1
                    continue
                }
                publish(.add, item: item)
                items.append(try shape(item.record, query: ItemQuery(), barrier: barrier, secret: nil, decoded: item, token: nil))
            }
        }
        return ImportResult(items: items, keptCertificates: kept)
    }
}
