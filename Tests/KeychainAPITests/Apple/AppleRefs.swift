import KeychainX509
import TestSupport

// Apple's SecCertificateRef, SecKeyRef and SecIdentityRef, as the ports in this directory send them.
//
// An add of a ref (`kSecValueRef`) sends what the object holds, as docs/certificates-keys-identities.md
// defines the items: a certificate's DER in `valueData`; a key's external
// representation in `valueData` with its `keyType` and `keyClass`; an identity's certificate in
// `certificateData` and its private key in `valueData`. The class, which Apple's client library
// reads off the object, is given (docs/semantics.md §3: required on add).
//
// A ref in a query stands for the object's attributes, as Apple's client library expands it before
// securityd sees the query (SecItem.m `SecItemAttributesPrepare` → `SecItemCopyAttributeDictionary`:
// `SecCertificateCopyAttributeDictionary`, `SecKeyCopyAttributeDictionary`): here the attributes that
// name the item, derived from the same bytes by KeychainX509, as the server derives them.

enum AppleRef {
    /// A certificate's add: its DER.
    static func addCertificate(_ der: [UInt8]) -> JSONObject {
        ["class": "certificate", "valueData": base64(der)]
    }

    /// A key's add: its bytes, type and class.
    static func addKey(_ bytes: [UInt8], type: String, keyClass: String) -> JSONObject {
        ["class": "key", "keyType": .string(type), "keyClass": .string(keyClass), "valueData": base64(bytes)]
    }

    /// An identity's add: its certificate and its private key.
    static func addIdentity(certificate: [UInt8], key: [UInt8]) -> JSONObject {
        ["class": "identity", "certificateData": base64(certificate), "valueData": base64(key)]
    }

    /// A certificate ref in a query: its class, issuer and serial number (its primary key, as
    /// `SecCertificateCopyAttributeDictionary` gives them: the issuer's normalized content).
    static func certificate(_ der: [UInt8]) throws -> JSONObject {
        let parsed = try Certificate(der: der)
        return ["class": "certificate", "issuer": base64(parsed.issuer), "serialNumber": base64(parsed.serialNumber)]
    }

    /// A key ref in a query: its class, type and application label (SecKeyCopyPublicKeyHash for a
    /// public or private key; `label` for a symmetric key, which has none of its own).
    static func key(_ bytes: [UInt8], type: String, keyClass: String, label: [UInt8]? = nil) throws -> JSONObject {
        let material = try KeyMaterial(bytes, algorithm: algorithm(type), role: role(keyClass))
        let applicationLabel = label ?? material.publicKeyHash ?? []
        return [
            "class": "key", "keyType": .string(type), "keyClass": .string(keyClass), "applicationLabel": base64(applicationLabel),
        ]
    }

    /// An identity ref in a query: its certificate's issuer and serial number and its key's
    /// application label (the attributes of both that `SecItemCopyAttributeDictionary` merges).
    static func identity(certificate der: [UInt8]) throws -> JSONObject {
        let parsed = try Certificate(der: der)
        return [
            "class": "identity", "issuer": base64(parsed.issuer), "serialNumber": base64(parsed.serialNumber),
            "applicationLabel": base64(parsed.publicKeyHash),
        ]
    }

    private static func algorithm(_ type: String) throws -> KeyMaterial.Algorithm {
        guard let algorithm = KeyMaterial.Algorithm(rawValue: type) else { throw RefError.unknown(type) }
        return algorithm
    }

    private static func role(_ keyClass: String) throws -> KeyMaterial.Role {
        guard let role = KeyMaterial.Role(rawValue: keyClass) else { throw RefError.unknown(keyClass) }
        return role
    }

    enum RefError: Error { case unknown(String) }
}

extension JSONObject {
    /// This object with `other`'s entries added (replacing its own of the same name).
    func merging(_ other: JSONObject) -> JSONObject {
        var merged = self
        for (key, value) in other.entries { merged[key] = value }
        return merged
    }
}
