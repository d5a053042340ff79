public import KeychainCrypto

/// Apple's SecKey operations on keys in Apple's external representation (`KeyMaterial`), over
/// OpenSSL's libcrypto: what `SecKeyCreateRandomKey`, `SecKeyCreateSignature`,
/// `SecKeyCreateEncryptedData` and their peers do, byte for byte where Apple's output is
/// deterministic (Ed25519, ECDH, the KDF, ECIES's layout).
///
/// A private key comes and goes as `SecureBytes` and is read into OpenSSL's secure heap
/// (`SecureHeap`); it is one `KeyMaterial` accepted, whose EC point is not checked against its
/// scalar again; errors are `CertificateError`s that never quote key bytes. An algorithm that
/// does not fit the key (`KeyAlgorithm.isSupported`) throws `.mismatch`; bad input `.malformed`.
public enum KeyOperations {
    /// The most bytes `keyExchange` derives with an X9.63 KDF.
    public static let maxDerivedBytes = 1024

    /// SecKeyCreateRandomKey: a new key pair. `bits`: EC 256, 384 or 521; RSA 2048...4096 in multiples of 8 (Apple: at least 1024, but we require 2048..4096); ed25519 and x25519 256. Anything else throws .mismatch or .malformed naming what is wrong (messages never contain key bytes).
    /// The private key in Apple's external representation (see Key.swift's doc: RSA PKCS#1 RSAPrivateKey DER; EC 04||X||Y||K padded; 25519 the raw 32 bytes), created straight into / copied into SecureBytes; the public key's external representation as a plain array.
    public static func generate(_ type: KeyMaterial.Algorithm, bits: Int) throws(CertificateError) -> (
        privateKey: SecureBytes, publicKey: [UInt8]
    ) {
        switch type {
        case .rsa:
            guard (2048...4096).contains(bits), bits % 8 == 0 else {
                throw .malformed("bits: an RSA key has 2048 to 4096 bits in multiples of 8, not \(bits)")
            }
        case .ec:
            guard NamedCurve.all.contains(where: { $0.bits == bits }) else {
                throw .malformed("bits: an EC key has 256, 384 or 521 bits, not \(bits)")
            }
        case .ed25519, .x25519:
            guard bits == 256 else { throw .malformed("bits: an \(type.rawValue) key has 256 bits, not \(bits)") }
        case .aes:
            throw .mismatch("type: an aes key is symmetric: generate makes rsa, ec, ed25519 and x25519 key pairs")
        }
        let key = try newKey(type, bits: bits)
        return (try privateExternal(key, type: type), try publicExternal(key, type: type))
    }

    /// SecKeyCopyPublicKey: the public external representation of a private key's.
    public static func publicKey(of privateKey: SecureBytes, type: KeyMaterial.Algorithm) throws(CertificateError) -> [UInt8] {
        try publicExternal(try loadPrivate(privateKey, type: type), type: type)
    }

    /// A private key read into OpenSSL once, for several operations: its secret parts are in
    /// OpenSSL's secure heap (`SecureHeap`), as during one operation.
    public static func load(_ privateKey: SecureBytes, type: KeyMaterial.Algorithm) throws(CertificateError)
        -> LoadedPrivateKey
    {
        LoadedPrivateKey(handle: try loadPrivate(privateKey, type: type), type: type)
    }

    /// SecKeyCreateSignature with a loaded RSA or EC key (`sign(_:algorithm:privateKey:type:publicKey:)`).
    public static func sign(_ data: [UInt8], algorithm: KeyAlgorithm, key: LoadedPrivateKey) throws(CertificateError)
        -> [UInt8]
    {
        try algorithm.check(.sign, type: key.type, role: .private)
        guard algorithm != .edDSASignatureMessageCurve25519SHA512 else {
            throw .mismatch("algorithm: an Ed25519 key signs from its seed, not loaded")
        }
        return try createSignature(data, algorithm: algorithm, key: key.handle)
    }

    /// SecKeyCreateSignature. For Digest algorithms `data` is the digest and its length must equal the hash's (else .malformed naming the data length). ECDSA signatures are X9.62 DER (ECDSA-Sig-Value), Ed25519 the raw 64 bytes.
    ///
    /// RSA-PSS salts with as many random bytes as the hash has and masks with MGF1 of the same
    /// hash, as Apple does; it needs a modulus of at least 16 × the hash's length + 9 bits.
    ///
    /// Ed25519 signs with libsodium, the seed never leaving `sodium_malloc` memory; `publicKey`,
    /// the key's own public key when the caller knows it, spares deriving it again.
    public static func sign(
        _ data: [UInt8], algorithm: KeyAlgorithm, privateKey: SecureBytes, type: KeyMaterial.Algorithm,
        publicKey: [UInt8]? = nil
    ) throws(CertificateError) -> [UInt8] {
        try algorithm.check(.sign, type: type, role: .private)
        if algorithm == .edDSASignatureMessageCurve25519SHA512 {
            do {
                let known = try publicKey ?? Ed25519.publicKey(seed: privateKey)
                return try Ed25519.sign(data, seed: privateKey, publicKey: known)
            } catch {
                throw .malformed("not a 32-byte Ed25519 private key")
            }
        }
        return try sign(data, algorithm: algorithm, key: load(privateKey, type: type))
    }

    /// SecKeyVerifySignature: false for a signature that does not verify (including malformed DER); throws only when the algorithm does not fit the key or the data/key is malformed.
    public static func verify(
        _ data: [UInt8], signature: [UInt8], algorithm: KeyAlgorithm, publicKey: [UInt8], type: KeyMaterial.Algorithm
    ) throws(CertificateError) -> Bool {
        try algorithm.check(.verify, type: type, role: .public)
        return try verifySignature(data, signature: signature, algorithm: algorithm, key: try loadPublic(publicKey, type: type))
    }

    /// SecKeyCreateEncryptedData with a public key (external representation).
    ///
    /// RSA: PKCS#1 v1.5 padding, or OAEP with MGF1 of the OAEP hash and an empty label. ECIES
    /// (Apple's VariableIV form, on EC or X25519 keys): an ephemeral key pair on the recipient's
    /// curve; Z = ECDH(ephemeral, recipient); X9.63 KDF(Z, sharedInfo: the ephemeral public key)
    /// gives the AES key (16 bytes for curves of 256 bits or less, else 32) then a 16-byte IV;
    /// the result is the ephemeral public key ‖ AES-GCM ciphertext ‖ 16-byte tag.
    public static func encrypt(
        _ plaintext: [UInt8], algorithm: KeyAlgorithm, publicKey: [UInt8], type: KeyMaterial.Algorithm
    ) throws(CertificateError) -> [UInt8] {
        try algorithm.check(.encrypt, type: type, role: .public)
        let key = try loadPublic(publicKey, type: type)
        if algorithm.family == .ecies {
            return try eciesEncrypt(plaintext, algorithm: algorithm, recipient: key, type: type)
        }
        return try rsaEncrypt(plaintext, algorithm: algorithm, key: key)
    }

    /// SecKeyCreateDecryptedData. Any failure to decrypt (bad padding, a GCM tag that fails) is one .malformed("the ciphertext does not decrypt with this key") with no detail (no padding oracle).
    public static func decrypt(
        _ ciphertext: [UInt8], algorithm: KeyAlgorithm, privateKey: SecureBytes, type: KeyMaterial.Algorithm
    ) throws(CertificateError) -> [UInt8] {
        try algorithm.check(.decrypt, type: type, role: .private)
        return try decrypt(ciphertext, algorithm: algorithm, key: load(privateKey, type: type))
    }

    /// SecKeyCreateDecryptedData with a loaded key.
    public static func decrypt(_ ciphertext: [UInt8], algorithm: KeyAlgorithm, key: LoadedPrivateKey) throws(CertificateError)
        -> [UInt8]
    {
        try algorithm.check(.decrypt, type: key.type, role: .private)
        if algorithm.family == .ecies {
            return try eciesDecrypt(ciphertext, algorithm: algorithm, key: key.handle, type: key.type)
        }
        return try rsaDecrypt(ciphertext, algorithm: algorithm, key: key.handle)
    }

    /// SecKeyCopyKeyExchangeResult: ECDH (EC) or X25519 with the peer's public key (external representation). Standard/Cofactor without X963: the raw shared secret (requestedSize and sharedInfo ignored). With X963SHAn: ANSI X9.63 KDF(shared secret, sharedInfo) to requestedSize bytes (requestedSize 1...some sane bound, e.g. 1024).
    ///
    /// The bound is `maxDerivedBytes`. Cofactor ECDH equals standard ECDH on the P-curves
    /// (cofactor 1) and X25519 (whose scalars are multiples of its cofactor).
    public static func keyExchange(
        privateKey: SecureBytes, type: KeyMaterial.Algorithm, peerPublicKey: [UInt8], algorithm: KeyAlgorithm,
        requestedSize: Int, sharedInfo: [UInt8]
    ) throws(CertificateError) -> [UInt8] {
        try algorithm.check(.keyExchange, type: type, role: .private)
        return try keyExchange(
            key: load(privateKey, type: type), peerPublicKey: peerPublicKey, algorithm: algorithm,
            requestedSize: requestedSize, sharedInfo: sharedInfo)
    }

    /// SecKeyCopyKeyExchangeResult with a loaded key.
    public static func keyExchange(
        key loaded: LoadedPrivateKey, peerPublicKey: [UInt8], algorithm: KeyAlgorithm, requestedSize: Int,
        sharedInfo: [UInt8]
    ) throws(CertificateError) -> [UInt8] {
        let type = loaded.type
        let key = loaded.handle
        try algorithm.check(.keyExchange, type: type, role: .private)
        if algorithm.hash != nil, !(1...maxDerivedBytes).contains(requestedSize) {
            throw .malformed("requestedSize: \(requestedSize) is not between 1 and \(maxDerivedBytes)")
        }
        let peer: PKeyHandle
        do { peer = try loadPublic(peerPublicKey, type: type) } catch { throw .malformed("peer public key: \(error.message)") }
        if type == .ec, try curve(of: peer).bits != (try curve(of: key)).bits {
            throw .mismatch("peer public key: on another curve than the private key")
        }
        let secret = try sharedSecret(key, peer: peer, cofactor: algorithm.usesCofactor)
        guard let hash = algorithm.hash else { return secret.withUnsafeBytes { Array($0) } }
        let derived = try secureBytes(count: requestedSize)
        try x963KDF(hash, secret: secret, sharedInfo: sharedInfo, into: derived)
        return derived.withUnsafeBytes { Array($0) }
    }
}

/// A private key loaded into OpenSSL (`KeyOperations.load`). OpenSSL lets one key object serve
/// operations on several threads at once; nothing here changes it after it is made.
public final class LoadedPrivateKey: @unchecked Sendable {
    let handle: PKeyHandle
    public let type: KeyMaterial.Algorithm

    init(handle: PKeyHandle, type: KeyMaterial.Algorithm) {
        self.handle = handle
        self.type = type
    }
}
