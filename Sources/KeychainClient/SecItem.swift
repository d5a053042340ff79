// swift-format-ignore-file: AlwaysUseLowerCamelCase

// (Apple's function names, so that code written against Keychain Services ports with them.)
import Foundation
import KeychainJSON

// SecItemAdd, SecItemCopyMatching, SecItemUpdate and SecItemDelete over a query dictionary keyed
// by the `kSec…` constants, answering the shapes Keychain Services answers, and throwing a
// KeychainError that carries the OSStatus where Apple's return it.

extension KeychainClient {
    /// Adds an item (SecItemAdd). Returns what the dictionary's `kSecReturn…` keys ask for, in
    /// the shape ``SecItemCopyMatching(_:)`` gives it, or `nil` when it asks for nothing.
    @discardableResult
    public func SecItemAdd(_ attributes: [String: Any]) async throws(KeychainError) -> sending Any? {
        let asked = try QueryDictionary.json(attributes)
        let returns = QueryDictionary.returns(asked)
        let object = QueryDictionary.namingKeys(asked)
        cache?.removeAll()
        let answer = try await self.object(.post("/v1/items", object))
        guard returns.any, let wire = answer["items"]?.arrayValue?.first?.objectValue else { return nil }
        var item = try KeychainItem(wire: wire)
        if returns.data, let data = object[QueryDictionary.valueDataKeys]?.stringValue.flatMap({ Data(base64Encoded: $0) }) {
            item = item.with(data: data)
        }
        return returns.shape(item)
    }

    /// Searches (SecItemCopyMatching). With `kSecMatchLimitOne` (the default) the answer is one
    /// value: `Data` for `kSecReturnData` or `kSecReturnPersistentRef` alone, the reference for
    /// `kSecReturnRef` alone, otherwise an attribute dictionary keyed by Apple's constants; with
    /// `kSecMatchLimitAll` or a number, an array of them, every page of a long answer read.
    /// No `kSecReturn…` key answers `nil` once the item is known to exist. Throws
    /// `errSecItemNotFound` when nothing matches.
    public func SecItemCopyMatching(_ query: [String: Any]) async throws(KeychainError) -> sending Any? {
        let asked = try QueryDictionary.json(query)
        let returns = QueryDictionary.returns(asked)
        let object = QueryDictionary.namingKeys(asked)
        if QueryDictionary.limitsToOne(object) {
            if returns.dataOnly { return try await cachedSecret(object) ?? Data() }
            let item = try await firstItem(object)
            return returns.any ? returns.shape(item) : nil
        }
        var shaped: [Any] = []
        var all = items(object)
        all.emptyIsAnError = true
        for try await item in all { shaped.append(returns.shape(item)) }
        return returns.any ? shaped : nil
    }

    /// Updates every item `query` matches with `attributesToUpdate` (SecItemUpdate).
    public func SecItemUpdate(_ query: [String: Any], _ attributesToUpdate: [String: Any]) async throws(KeychainError) {
        let object: JSONObject = [
            "query": .object(try QueryDictionary.json(query)),
            "attributesToUpdate": .object(try QueryDictionary.json(attributesToUpdate)),
        ]
        cache?.removeAll()
        _ = try await perform(.patch("/v1/items", object))
    }

    /// Deletes every item `query` matches (SecItemDelete).
    public func SecItemDelete(_ query: [String: Any]) async throws(KeychainError) {
        let object = try QueryDictionary.json(query)
        cache?.removeAll()
        _ = try await perform(.delete("/v1/items", object))
    }

    /// The secret a one-secret read (`object` asks `returnData` alone) answers: from the cache
    /// when it holds it, and kept there after when there is one.
    func cachedSecret(_ object: JSONObject) async throws(KeychainError) -> Data? {
        let key = cache == nil ? nil : QueryDictionary.cacheKey(object)
        if let key, let data = cache?.secret(for: key) { return data }
        let data = try await firstItem(object).data
        if let key, let data { cache?.store(data, for: key) }
        return data
    }

    /// The first item a search answers.
    func firstItem(_ query: JSONObject) async throws(KeychainError) -> KeychainItem {
        let answer = try await object(.post("/v1/items/search", query, idempotent: true))
        guard let wire = answer["items"]?.arrayValue?.first?.objectValue else {
            throw KeychainError(status: errSecItemNotFound, message: "no item matches the query")
        }
        return try KeychainItem(wire: wire)
    }

    /// Every item a search answers, page after page.
    func items(_ query: JSONObject) -> KeychainItems { KeychainItems(client: self, query: query) }
}

/// Adds through `client` (``KeychainClient/SecItemAdd(_:)``): the free functions have Apple's
/// names and take the client last.
@discardableResult
public func SecItemAdd(_ attributes: [String: Any], _ client: KeychainClient) async throws(KeychainError) -> sending Any? {
    try await client.SecItemAdd(attributes)
}

/// Searches through `client` (``KeychainClient/SecItemCopyMatching(_:)``).
public func SecItemCopyMatching(_ query: [String: Any], _ client: KeychainClient) async throws(KeychainError) -> sending Any? {
    try await client.SecItemCopyMatching(query)
}

/// Updates through `client` (``KeychainClient/SecItemUpdate(_:_:)``).
public func SecItemUpdate(
    _ query: [String: Any], _ attributesToUpdate: [String: Any], _ client: KeychainClient
) async throws(KeychainError) {
    try await client.SecItemUpdate(query, attributesToUpdate)
}

/// Deletes through `client` (``KeychainClient/SecItemDelete(_:)``).
public func SecItemDelete(_ query: [String: Any], _ client: KeychainClient) async throws(KeychainError) {
    try await client.SecItemDelete(query)
}

/// The items of a search, read a page (at most 1,000 items) at a time as the sequence is
/// iterated: a long answer never sits in memory whole. A search that matches nothing is an
/// empty sequence (``KeychainClient/SecItemCopyMatching(_:)`` says `errSecItemNotFound`).
public struct KeychainItems: AsyncSequence, Sendable {
    /// One item of the answer.
    public typealias Element = KeychainItem
    let client: KeychainClient
    let query: JSONObject
    /// Whether matching nothing throws `errSecItemNotFound`, as SecItemCopyMatching does.
    var emptyIsAnError = false

    /// Reads the pages one after the other.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let client: KeychainClient
        var query: JSONObject
        let emptyIsAnError: Bool
        var buffered: [KeychainItem] = []
        var index = 0
        var yielded = 0
        var done = false

        /// The next item, reading the next page when this one is used up.
        public mutating func next() async throws(KeychainError) -> KeychainItem? {
            while index == buffered.count {
                if done { return nil }
                let answer: JSONObject
                do {
                    answer = try await client.object(.post("/v1/items/search", query, idempotent: true))
                } catch  where error.status == errSecItemNotFound && (yielded > 0 || !emptyIsAnError) {
                    // Nothing (more) matches: a later page after deletions, or an empty answer.
                    return nil
                }
                buffered = try (answer["items"]?.arrayValue ?? []).map { (json: JSON) throws(KeychainError) -> KeychainItem in
                    guard let object = json.objectValue else { throw .notAvailable("server: an item is not an object") }
                    return try KeychainItem(wire: object)
                }
                index = 0
                if let next = answer["next"]?.stringValue {
                    query["pageAfter"] = .string(next)
                } else {
                    done = true
                }
            }
            defer {
                index += 1
                yielded += 1
            }
            return buffered[index]
        }
    }

    /// An iterator from the first page.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(client: client, query: query, emptyIsAnError: emptyIsAnError)
    }

    /// Every item, read into an array.
    public func collect() async throws(KeychainError) -> [KeychainItem] {
        var items: [KeychainItem] = []
        var iterator = makeAsyncIterator()
        while let item = try await iterator.next() { items.append(item) }
        return items
    }
}

extension KeychainItem {
    func with(data: Data) -> KeychainItem {
        KeychainItem(
            itemClass: itemClass, attributes: attributes, persistentRef: persistentRef, data: data,
            certificateData: certificateData, reference: reference)
    }

    init(
        itemClass: ItemClass?, attributes: [String: AttributeValue], persistentRef: String?, data: Data?, certificateData: Data?,
        reference: ItemReference?
    ) {
        self.itemClass = itemClass
        self.attributes = attributes
        self.persistentRef = persistentRef
        self.data = data
        self.certificateData = certificateData
        self.reference = reference
    }
}

/// A query dictionary's wire form and what it asks to have returned.
enum QueryDictionary {
    static let valueDataKeys = "v_Data"

    /// The JSON object for `dictionary`: its keys as written (the server takes Apple's values,
    /// constant names and canonical names alike), values converted by type.
    static func json(_ dictionary: [String: Any]) throws(KeychainError) -> JSONObject {
        var object = JSONObject()
        // Sorted, so that the same dictionary always makes the same bytes (the cache's key).
        for key in dictionary.keys.sorted() {
            object[key] = try value(dictionary[key]!, key: key)
        }
        return object
    }

    static func value(_ value: Any, key: String) throws(KeychainError) -> JSON {
        switch value {
        case let v as Bool: return .bool(v)
        case let v as String: return .string(v)
        case let v as Int: return .int(Int64(v))
        case let v as Int64: return .int(v)
        case let v as Int32: return .int(Int64(v))
        case let v as UInt32: return .int(Int64(v))
        case let v as UInt16: return .int(Int64(v))
        case let v as Double: return .double(v)
        case let v as Date: return .string(RFC3339.string(v))
        case let v as Data:
            // A persistent reference travels as the text the server gave.
            if isPersistentRefKey(key), let text = String(data: v, encoding: .utf8) { return .string(text) }
            return .string(v.base64EncodedString())
        case let v as [UInt8]: return .string(Data(v).base64EncodedString())
        case let v as [String: Any]: return .object(try json(v))
        case let v as SecAccess: return v.json
        case let v as [Any]:
            var array: [JSON] = []
            for element in v { array.append(try self.value(element, key: key)) }
            return .array(array)
        default:
            throw .param("\(key): a value of type \(type(of: value)) cannot be sent")
        }
    }

    private static func isPersistentRefKey(_ key: String) -> Bool {
        key == kSecValuePersistentRef || key == "kSecValuePersistentRef" || key == "valuePersistentRef"
    }

    /// Whether the query's `matchLimit` (any spelling) is one, or absent.
    static func limitsToOne(_ object: JSONObject) -> Bool {
        guard let limit = first(object, kSecMatchLimit, "kSecMatchLimit", "matchLimit") else { return true }
        if let n = limit.intValue { return n == 1 }
        guard let text = limit.stringValue else { return true }
        return [kSecMatchLimitOne, "kSecMatchLimitOne", "one"].contains(text)
    }

    static func first(_ object: JSONObject, _ names: String...) -> JSON? {
        for name in names { if let value = object[name] { return value } }
        return nil
    }

    /// `object`, asking for the persistent reference too when it asks for `returnRef`: a key's
    /// SecKey names the key by it. The answer's shape still follows the caller's return keys.
    static func namingKeys(_ object: JSONObject) -> JSONObject {
        let spellings = [kSecReturnPersistentRef, "kSecReturnPersistentRef", "returnPersistentRef"]
        guard returns(object).ref, !returns(object).persistentRef else { return object }
        var object = object
        for name in spellings { object[name] = nil }
        object["returnPersistentRef"] = .bool(true)
        return object
    }

    static func returns(_ object: JSONObject) -> Returns {
        func flag(_ names: String...) -> Bool { names.contains { object[$0]?.boolValue == true } }
        return Returns(
            data: flag(kSecReturnData, "kSecReturnData", "returnData"),
            attributes: flag(kSecReturnAttributes, "kSecReturnAttributes", "returnAttributes"),
            ref: flag(kSecReturnRef, "kSecReturnRef", "returnRef"),
            persistentRef: flag(kSecReturnPersistentRef, "kSecReturnPersistentRef", "returnPersistentRef"))
    }

    /// The cache's key for a one-secret read: the query's bytes.
    static func cacheKey(_ object: JSONObject) -> String {
        String(decoding: JSON.object(object).serialized(), as: UTF8.self)
    }

    struct Returns {
        var data, attributes, ref, persistentRef: Bool

        var any: Bool { data || attributes || ref || persistentRef }
        var dataOnly: Bool { data && !attributes && !ref && !persistentRef }

        /// `item` as Keychain Services returns it for these return keys.
        func shape(_ item: KeychainItem) -> Any {
            switch (data, attributes, ref, persistentRef) {
            case (true, false, false, false): return item.data ?? Data()
            case (false, false, false, true): return Data((item.persistentRef ?? "").utf8)
            case (false, false, true, false):
                return item.secKey ?? item.reference ?? ItemReference(certificate: nil, key: nil, keyType: nil, keyClass: nil)
            default:
                var dictionary = attributes ? item.appleAttributes : [:]
                if !attributes {
                    if data, let value = item.data { dictionary[kSecValueData] = value }
                    if persistentRef, let value = item.persistentRef { dictionary[kSecValuePersistentRef] = Data(value.utf8) }
                    if ref, let value = item.secKey.map({ $0 as Any }) ?? item.reference { dictionary[kSecValueRef] = value }
                }
                if !persistentRef { dictionary[kSecValuePersistentRef] = nil }
                return dictionary
            }
        }
    }
}
