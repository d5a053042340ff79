import KeychainBarrier
import KeychainCrypto

/// What the barrier seals and digests for Keychain Services items: the associated data that
/// binds a sealed secret or attribute set to its item, and the digests of attribute values and
/// primary keys.
extension Barrier {
    /// The key for `protection`, or `nil` while it is unavailable (locked).
    func classKey(for protection: Protection) -> SecureBytes? {
        switch protection.keyClass {
        case .always: classKey(.always)
        case .afterFirstUnlock: classKey(.afterFirstUnlock)
        default: classKey(.whenUnlocked)
        }
    }

    /// `guarded`: the item has an access object. Its secret is then sealed to a class byte with
    /// the high bit set, so that a store that drops the object from the row cannot make the
    /// secret open without its check.
    static func secretAD(ref: [UInt8], itemClass: ItemClass, group: [UInt8], guarded: Bool = false) -> [UInt8] {
        var ad: [UInt8] = []
        ad.reserveCapacity(6 + ref.count + 1 + group.count)
        ad.append(contentsOf: "secret".utf8)
        ad.append(contentsOf: ref)
        ad.append(classByte(itemClass, guarded: guarded))
        ad.append(contentsOf: group)
        return ad
    }

    static func classByte(_ itemClass: ItemClass, guarded: Bool) -> UInt8 { UInt8(itemClass.rawValue) | (guarded ? 0x80 : 0) }

    static func attributesAD(ref: [UInt8], itemClass: ItemClass, group: [UInt8], protection: Protection, sync: Bool) -> [UInt8] {
        Array("attrs".utf8) + ref + [UInt8(itemClass.rawValue), UInt8(protection.rawValue), sync ? 1 : 0] + group
    }

    /// Opens a secret sealed for (`ref`, `itemClass`, `group`): `secretAD`'s bytes, built on the stack.
    func openSecret(
        _ frame: [UInt8], key: SecureBytes, ref: [UInt8], itemClass: ItemClass, group: [UInt8], guarded: Bool = false
    ) throws(CryptoError) -> [UInt8] {
        try openSecret(frame, key: key, ref: ref, classByte: Self.classByte(itemClass, guarded: guarded), group: group)
    }

    /// An attribute value's lookup digest. A string's is the digest of its case-folded form (the
    /// same for "Example" and "example"), so one digest serves both an exact search and a
    /// `matchCaseInsensitive` one, and an item writes one index entry per string attribute
    /// instead of two; an exact search then checks the opened attributes (`ExactValues`). Other
    /// values are digested as they are.
    func lookup(_ key: SchemaKey, _ value: AttributeValue) -> [UInt8] {
        if case .string(let string) = value {
            return lookupDigest { input in
                input.append([0x46])
                input.append(key.name)
                AttributeValue.appendFoldedDigestPart(string, to: input)
            }
        }
        return lookupDigest { input in
            input.append([0x45])
            input.append(key.name)
            value.appendDigestPart(to: input)
        }
    }

    func primaryKey(itemClass: ItemClass, group: String, sync: Bool, values: some Sequence<AttributeValue>) -> [UInt8] {
        lookupDigest { input in
            // The part [0x50, class, sync], from a tuple: an array literal of variables is allocated.
            withUnsafeBytes(of: (UInt8(0x50), UInt8(truncatingIfNeeded: itemClass.rawValue), UInt8(sync ? 1 : 0))) {
                input.append($0)
            }
            input.append(group)
            for value in values { value.appendDigestPart(to: input) }
        }
    }
}
