public import KeychainJSON

/// What an access object's entry allows (Apple's `kSecACLAuthorization…`, by the operations
/// keychaind has).
public enum AccessTag: String, Sendable, CaseIterable, Comparable {
    /// Every operation (kSecACLAuthorizationAny).
    case any
    /// A password's secret answered, or a key decrypting (kSecACLAuthorizationDecrypt).
    case decrypt
    /// A key encrypting or verifying.
    case encrypt
    case sign
    /// A key agreeing on a secret (kSecACLAuthorizationDerive).
    case derive
    /// A key's or a certificate's bytes leaving: `returnData`, `returnRef`, PEM, PKCS#12 and
    /// migration bundles (kSecACLAuthorizationExportClear).
    case export
    /// The item's attributes or secret changed (kSecACLAuthorizationKeychainItemModify).
    case update
    /// The item deleted (kSecACLAuthorizationKeychainItemDelete).
    case delete
    /// The access object itself changed (kSecACLAuthorizationChangeACL): the owner's entry.
    case changeACL

    public static func < (lhs: AccessTag, rhs: AccessTag) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One entry of an access object (SecACLRef): the operations it allows, the tokens trusted to do
/// them (`nil`: any token), its description, and whether a token it does not list may still do
/// them with the keychain's passphrase (the prompt).
public struct AccessEntry: Sendable, Equatable {
    public var authorizations: [AccessTag]
    /// Token ids, compared by their bytes; `nil` for any token.
    public var tokens: [String]?
    public var description: String
    public var prompt: Bool

    public init(authorizations: [AccessTag], tokens: [String]?, description: String, prompt: Bool) {
        self.authorizations = authorizations.sorted()
        self.tokens = tokens
        self.description = description
        self.prompt = prompt
    }

    func allows(_ tag: AccessTag) -> Bool { authorizations.contains(tag) || authorizations.contains(.any) }

    func trusts(_ tokenID: String) -> Bool {
        guard let tokens else { return true }
        return tokens.contains { $0.isSameBytes(as: tokenID) }
    }

    public static func == (lhs: AccessEntry, rhs: AccessEntry) -> Bool {
        lhs.authorizations == rhs.authorizations && lhs.description.isSameBytes(as: rhs.description)
            && lhs.prompt == rhs.prompt
            && lhs.tokens.map { $0.map(ExactName.init) } == rhs.tokens.map { $0.map(ExactName.init) }
    }
}

/// An item's access object (SecAccessRef): its entries, in order; the one allowing `changeACL`
/// is the owner's. An item without one is governed by groups and capabilities alone; an access
/// object only narrows what they allow.
public struct AccessObject: Sendable, Equatable {
    public var entries: [AccessEntry]

    /// The most entries an access object may have, and the most tokens an entry may list.
    public static let maxEntries = 16
    public static let maxTokens = 64
    public static let maxDescriptionBytes = 256

    public init(entries: [AccessEntry]) {
        self.entries = entries
    }

    /// What SecAccessCreate makes: an owner entry that only the keychain's passphrase passes
    /// (`changeACL`, no token trusted), an entry open to any token for `encrypt`, and one for
    /// `decrypt`, `sign`, `derive` and `export` open to `trusted` and, with the passphrase, to others.
    public static func standard(description: String, trusted: [String]) -> AccessObject {
        AccessObject(entries: [
            AccessEntry(authorizations: [.changeACL], tokens: [], description: description, prompt: true),
            AccessEntry(authorizations: [.encrypt], tokens: nil, description: description, prompt: false),
            AccessEntry(
                authorizations: [.decrypt, .sign, .derive, .export], tokens: trusted, description: description, prompt: true),
        ])
    }

    /// The answer for `tag` asked by `tokenID`.
    public enum Decision: Equatable, Sendable {
        /// An entry allowing the tag trusts the token (or any token).
        case allowed
        /// None trusts it, but one of them lets the keychain's passphrase stand in: its index.
        case passphrase(entry: Int)
        /// No entry allows the tag to this token.
        case denied
    }

    /// An update or a delete that no entry names is the owner's (`changeACL`) to allow.
    public func decide(_ tag: AccessTag, for tokenID: String) -> Decision {
        let named = entries.contains { $0.allows(tag) }
        let asked = named || (tag != .update && tag != .delete) ? tag : .changeACL
        var prompting: Int?
        for (index, entry) in entries.enumerated() where entry.allows(asked) {
            if entry.trusts(tokenID) { return .allowed }
            if entry.prompt, prompting == nil { prompting = index }
        }
        return prompting.map { .passphrase(entry: $0) } ?? .denied
    }

    /// "Always Allow": `tokenID` joins entry `index`'s trusted tokens.
    public func trusting(_ tokenID: String, inEntry index: Int) -> AccessObject {
        var copy = self
        if copy.entries[index].tokens != nil, !copy.entries[index].trusts(tokenID) {
            copy.entries[index].tokens!.append(tokenID)
        }
        return copy
    }

    /// The object without `tokenID` in any entry (a revoked token), or `nil` when it held none.
    public func forgetting(_ tokenID: String) -> AccessObject? {
        var copy = self
        var changed = false
        for index in copy.entries.indices {
            guard let tokens = copy.entries[index].tokens, tokens.contains(where: { $0.isSameBytes(as: tokenID) }) else {
                continue
            }
            copy.entries[index].tokens = tokens.filter { !$0.isSameBytes(as: tokenID) }
            changed = true
        }
        return changed ? copy : nil
    }

    /// The object as `tokens` receives it: an imported item's, whose ids were perhaps another
    /// instance's tokens. Each id is renamed as the map says, then kept only if it is known here.
    func importing(_ tokens: ImportedTokens) -> AccessObject {
        var copy = self
        for index in copy.entries.indices {
            guard let ids = copy.entries[index].tokens else { continue }
            var kept: [String] = []
            for id in ids {
                let id = tokens.renamed[ExactName(id)] ?? id
                if tokens.known.contains(ExactName(id)), !kept.contains(where: { $0.isSameBytes(as: id) }) { kept.append(id) }
            }
            copy.entries[index].tokens = kept
        }
        return copy
    }

    // MARK: JSON

    /// `{"entries": [{"authorizations": ["decrypt", …], "tokens": ["tok_…"] | "any",
    /// "description": "…", "prompt": true}, …]}`.
    public var json: JSON {
        .object([
            "entries": .array(
                entries.map { entry in
                    .object([
                        "authorizations": .array(entry.authorizations.map { .string($0.rawValue) }),
                        "tokens": entry.tokens.map { .array($0.map(JSON.string)) } ?? .string("any"),
                        "description": .string(entry.description),
                        "prompt": .bool(entry.prompt),
                    ])
                })
        ])
    }

    /// Reads the JSON form; errSecParam naming the key at fault (`access.entries[1].tokens`).
    /// `key`: how the request names the object.
    public init(json: JSON, key: String = "access") throws(KeychainError) {
        guard case .object(let object) = json else { throw .param("\(key): expected an object with entries") }
        for name in object.keys where name != "entries" {
            throw .param("\(key).\(name): unknown key; an access object has entries")
        }
        guard case .array(let list)? = object["entries"] else { throw .param("\(key).entries: required: an array of entries") }
        guard !list.isEmpty, list.count <= Self.maxEntries else {
            throw .param("\(key).entries: an access object has 1 to \(Self.maxEntries) entries")
        }
        var entries: [AccessEntry] = []
        for (index, item) in list.enumerated() {
            let at = "\(key).entries[\(index)]"
            guard case .object(let fields) = item else { throw .param("\(at): expected an object") }
            for name in fields.keys where !["authorizations", "tokens", "description", "prompt"].contains(name) {
                throw .param("\(at).\(name): unknown key; an entry has authorizations, tokens, description and prompt")
            }
            guard case .array(let names)? = fields["authorizations"], !names.isEmpty else {
                throw .param(
                    "\(at).authorizations: required: a non-empty array of \(AccessTag.allCases.map(\.rawValue).joined(separator: ", "))"
                )
            }
            var tags: [AccessTag] = []
            for name in names {
                guard case .string(let text) = name, let tag = AccessTag(rawValue: text) else {
                    throw .param(
                        "\(at).authorizations: each is one of \(AccessTag.allCases.map(\.rawValue).joined(separator: ", "))")
                }
                if !tags.contains(tag) { tags.append(tag) }
            }
            let tokens: [String]?
            switch fields["tokens"] {
            case .string(let text)? where text.isSameBytes(as: "any"): tokens = nil
            case .array(let ids)?: tokens = try Self.tokenIDs(ids, key: "\(at).tokens")
            case nil: throw .param("\(at).tokens: required: an array of token ids, or \"any\"")
            default: throw .param("\(at).tokens: expected an array of token ids, or \"any\"")
            }
            let description: String
            switch fields["description"] {
            case nil: description = ""
            case .string(let text)?:
                guard text.utf8.count <= Self.maxDescriptionBytes else {
                    throw .param("\(at).description: at most \(Self.maxDescriptionBytes) bytes")
                }
                description = text
            default: throw .param("\(at).description: expected a string")
            }
            let prompt: Bool
            switch fields["prompt"] {
            case nil: prompt = false
            case .bool(let value)?: prompt = value
            default: throw .param("\(at).prompt: expected true or false")
            }
            entries.append(AccessEntry(authorizations: tags, tokens: tokens, description: description, prompt: prompt))
        }
        self.init(entries: entries)
    }

    /// A list of token ids, each once: at most `maxTokens`, each of a token id's form;
    /// errSecParam naming `key` otherwise.
    public static func tokenIDs(_ ids: [JSON], key: String) throws(KeychainError) -> [String] {
        guard ids.count <= maxTokens else { throw .param("\(key): at most \(maxTokens) tokens") }
        var list: [String] = []
        for id in ids {
            guard case .string(let text) = id, isTokenID(text) else {
                throw .param("\(key): each is a token id (tok_ and 16 hex digits)")
            }
            if !list.contains(where: { $0.isSameBytes(as: text) }) { list.append(text) }
        }
        return list
    }

    /// `tok_` and 16 lowercase hex digits: a token id's form.
    public static func isTokenID(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        guard bytes.count == 20, bytes.starts(with: Array("tok_".utf8)) else { return false }
        return bytes[4...].allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }
}

/// The tokens an import's access objects may trust: the importing server's, and a map from
/// another instance's token ids to this one's (`tokenMap`, `tok_old:tok_new`).
public struct ImportedTokens: Sendable {
    var known: Set<ExactName>
    var renamed: [ExactName: String] = [:]

    /// The most pairs a map may hold.
    public static let maxPairs = 1024

    /// `known` alone: ids not among them are dropped.
    public init(known: [String]) {
        self.known = Set(known.map(ExactName.init))
    }

    /// `known` with the pairs `old:new` given under `key`: each old id once, each new one a
    /// token of this server.
    public init(known: [String], pairs: [String], key: String) throws(KeychainError) {
        self.init(known: known)
        guard pairs.count <= Self.maxPairs else { throw .param("\(key): at most \(Self.maxPairs) pairs") }
        for pair in pairs {
            let halves = pair.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard halves.count == 2, AccessObject.isTokenID(halves[0]), AccessObject.isTokenID(halves[1]) else {
                throw .param("\(key): expected tok_old:tok_new, two token ids (tok_ and 16 hex digits)")
            }
            guard self.known.contains(ExactName(halves[1])) else {
                throw .param("\(key): \(halves[1]) is no token of this server")
            }
            guard renamed.updateValue(halves[1], forKey: ExactName(halves[0])) == nil else {
                throw .param("\(key): \(halves[0]) is mapped twice")
            }
        }
    }
}
