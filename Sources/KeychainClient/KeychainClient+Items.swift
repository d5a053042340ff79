public import Foundation
import KeychainJSON
import NIOHTTP1

// The typed layer over items: passwords, certificates, keys and identities by their own
// attributes, with the item as a KeychainItem.

extension KeychainClient {
    /// Adds an item of `itemClass` with `attributes` (canonical names) and the secret `data`.
    @discardableResult
    public func add(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], data: Data? = nil, options: NewItemOptions = .init()
    ) async throws(KeychainError) -> KeychainItem {
        var object: JSONObject = ["class": .string(itemClass.rawValue)]
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { object[name] = value.json }
        options.apply(to: &object)
        if let data { object["valueData"] = .string(data.base64EncodedString()) }
        cache?.removeAll()
        let answer = try await self.object(.post("/v1/items", object))
        guard let wire = answer["items"]?.arrayValue?.first?.objectValue else {
            throw .notAvailable("server: an add answered no item")
        }
        return try KeychainItem(wire: wire)
    }

    /// The first item `query` matches, with its secret when `returnData`; throws
    /// `errSecItemNotFound` when none does.
    public func item(_ query: ItemQuery, returnData: Bool = false) async throws(KeychainError) -> KeychainItem {
        var object = query.object
        object["returnAttributes"] = true
        object["returnPersistentRef"] = true
        if returnData { object["returnData"] = true }
        return try await firstItem(object)
    }

    /// Every item `query` matches, read a page at a time as the sequence is iterated.
    public func items(_ query: ItemQuery, returnData: Bool = false) -> KeychainItems {
        var object = query.object
        if object["matchLimit"] == nil { object["matchLimit"] = "all" }
        object["returnAttributes"] = true
        object["returnPersistentRef"] = true
        if returnData { object["returnData"] = true }
        return items(object)
    }

    /// The secret of the one item `query` matches, from the cache when it holds it.
    public func secret(_ query: ItemQuery) async throws(KeychainError) -> Data {
        var object = query.object
        object["returnData"] = true
        guard let data = try await cachedSecret(object) else {
            throw .notAvailable("server: a search with returnData answered no valueData")
        }
        return data
    }

    /// Changes every item `query` matches: `attributes` (canonical names) and, when given, the
    /// secret. Returns how many items changed.
    @discardableResult
    public func update(
        _ query: ItemQuery, attributes: [String: AttributeValue] = [:], data: Data? = nil
    ) async throws(KeychainError) -> Int {
        var changes = JSONObject()
        for (name, value) in attributes.sorted(by: { $0.key < $1.key }) { changes[name] = value.json }
        if let data { changes["valueData"] = .string(data.base64EncodedString()) }
        cache?.removeAll()
        let answer = try await object(
            .patch("/v1/items", ["query": .object(query.object), "attributesToUpdate": .object(changes)]))
        if let updated = answer["updated"]?.intValue { return Int(updated) }
        return answer["items"]?.arrayValue?.count ?? 0
    }

    /// Deletes every item `query` matches (a query of a class alone deletes them all). Returns
    /// how many went.
    @discardableResult
    public func delete(_ query: ItemQuery) async throws(KeychainError) -> Int {
        var object = query.object
        if object.keys == ["class"] { object["deleteAll"] = true }
        cache?.removeAll()
        let answer = try await self.object(.delete("/v1/items", object))
        return Int(answer["deleted"]?.intValue ?? 0)
    }

    /// The item `persistentRef` names, with its secret when `returnData`.
    public func item(persistentRef: String, returnData: Bool = false) async throws(KeychainError) -> KeychainItem {
        let path = "/v1/items/" + Transport.percentEncoded(persistentRef)
        let answer = try await object(.get(path, query: returnData ? [("returnData", "true")] : []))
        guard let wire = answer["items"]?.arrayValue?.first?.objectValue else {
            throw KeychainError(status: errSecItemNotFound, message: "no item matches the query")
        }
        return try KeychainItem(wire: wire)
    }

    /// Deletes the item `persistentRef` names.
    public func deleteItem(persistentRef: String) async throws(KeychainError) {
        cache?.removeAll()
        _ = try await perform(.delete("/v1/items/" + Transport.percentEncoded(persistentRef)))
    }

    // MARK: - Passwords

    /// Adds a generic password; with `replacing`, an existing one of the same service and
    /// account gets the new secret and options instead (`security add-generic-password -U`).
    @discardableResult
    public func addGenericPassword(
        service: String, account: String, password: Data, options: NewItemOptions = .init(), replacing: Bool = false
    ) async throws(KeychainError) -> KeychainItem {
        let attributes: [String: AttributeValue] = ["service": .string(service), "account": .string(account)]
        return try await addOrReplace(
            .genericPassword, attributes: attributes, data: password, options: options, replacing: replacing,
            query: .genericPassword(service: service, account: account))
    }

    /// The secret of the generic password of `service` and `account`.
    public func genericPassword(service: String, account: String = "") async throws(KeychainError) -> Data {
        try await secret(.genericPassword(service: service, account: account))
    }

    /// Adds an internet password; with `replacing`, an existing one of the same primary key
    /// gets the new secret and options instead.
    @discardableResult
    public func addInternetPassword(
        server: String, account: String, password: Data, protocol: String? = nil, port: Int? = nil, path: String? = nil,
        securityDomain: String? = nil, authenticationType: String? = nil, options: NewItemOptions = .init(),
        replacing: Bool = false
    ) async throws(KeychainError) -> KeychainItem {
        let query = ItemQuery.internetPassword(
            server: server, account: account, protocol: `protocol`, port: port, path: path, securityDomain: securityDomain,
            authenticationType: authenticationType)
        var attributes: [String: AttributeValue] = [:]
        for (name, value) in query.object where name != "class" {
            if case .string(let s) = value { attributes[name] = .string(s) }
            if case .int(let i) = value { attributes[name] = .int(i) }
        }
        return try await addOrReplace(
            .internetPassword, attributes: attributes, data: password, options: options, replacing: replacing, query: query)
    }

    private func addOrReplace(
        _ itemClass: ItemClass, attributes: [String: AttributeValue], data: Data, options: NewItemOptions, replacing: Bool,
        query: ItemQuery
    ) async throws(KeychainError) -> KeychainItem {
        do {
            return try await add(itemClass, attributes: attributes, data: data, options: options)
        } catch  where replacing && error.status == errSecDuplicateItem {
            var changes = options.attributes
            if let label = options.label { changes["label"] = .string(label) }
            if let accessible = options.accessible { changes["accessible"] = .string(accessible) }
            try await update(query, attributes: changes, data: data)
            return try await item(query)
        }
    }

    // MARK: - Certificates, keys and identities

    /// Adds a certificate from its DER; its attributes come from the certificate.
    @discardableResult
    public func addCertificate(_ der: Data, options: NewItemOptions = .init()) async throws(KeychainError) -> KeychainItem {
        try await add(.certificate, attributes: [:], data: der, options: options)
    }

    /// Adds a key from its bytes (as `SecKeyCopyExternalRepresentation` gives them).
    @discardableResult
    public func addKey(
        _ keyData: Data, keyType: String, keyClass: String, applicationTag: Data? = nil, options: NewItemOptions = .init()
    ) async throws(KeychainError) -> KeychainItem {
        var attributes: [String: AttributeValue] = ["keyType": .string(keyType), "keyClass": .string(keyClass)]
        if let applicationTag { attributes["applicationTag"] = .data(applicationTag) }
        return try await add(.key, attributes: attributes, data: keyData, options: options)
    }

    /// What an import stored: the items (identities, certificates and keys), and how many
    /// certificates the keychain already had and kept.
    public struct ImportResult: Sendable {
        /// The items stored: identities, then certificates and keys.
        public let items: [KeychainItem]
        /// Certificates of the file the keychain already had, kept as they were.
        public let keptCertificates: Int
    }

    /// The format of a file to import or export.
    public enum FileFormat: Sendable {
        /// PEM text: certificates and unencrypted keys.
        case pem
        /// A PKCS#12 (`.p12`) sealed under `passphrase` (SecPKCS12Import's input).
        case pkcs12(passphrase: String)
    }

    /// Imports a PEM file or a PKCS#12, in one transaction (SecItemImport, SecPKCS12Import).
    public func importItems(
        _ file: Data, format: FileFormat, options: NewItemOptions = .init()
    ) async throws(KeychainError) -> ImportResult {
        var query: [(name: String, value: String)] = []
        if let group = options.accessGroup { query.append(("accessGroup", group)) }
        if let accessible = options.accessible { query.append(("accessible", accessible)) }
        if let label = options.label { query.append(("label", label)) }
        var request = Request(method: .POST, path: "/v1/items/import", query: query, body: Array(file), idempotent: false)
        switch format {
        case .pem: request.contentType = "application/x-pem-file"
        case .pkcs12(let passphrase):
            request.contentType = "application/x-pkcs12"
            request.headers.append(("X-Keychain-PKCS12-Passphrase", passphrase))
        }
        cache?.removeAll()
        let answer = try await object(request)
        var items: [KeychainItem] = []
        for case .object(let wire) in answer["items"]?.arrayValue ?? [] { items.append(try KeychainItem(wire: wire)) }
        return ImportResult(items: items, keptCertificates: Int(answer["keptCertificates"]?.intValue ?? 0))
    }

    /// The certificates and keys `query` matches as PEM text (every page), or the one identity
    /// it matches as a PKCS#12 sealed under the given passphrase.
    public func export(_ query: ItemQuery, format: FileFormat) async throws(KeychainError) -> Data {
        var object = query.object
        object["returnRef"] = true
        switch format {
        case .pem:
            if object["matchLimit"] == nil { object["matchLimit"] = "all" }
            var out = Data()
            while true {
                var request = Request.post("/v1/items/search", object, idempotent: true)
                request.headers.append(("Accept", "application/x-pem-file"))
                let response = try await perform(request)
                out.append(contentsOf: response.body)
                guard let next = response.header("X-Keychain-Next") else { return out }
                object["pageAfter"] = .string(next)
            }
        case .pkcs12(let passphrase):
            var request = Request.post("/v1/items/search", object, idempotent: true)
            request.headers.append(("Accept", "application/x-pkcs12"))
            request.headers.append(("X-Keychain-PKCS12-Passphrase", passphrase))
            return Data(try await perform(request).body)
        }
    }
}
