import KeychainCore
import KeychainX509
import MicroHTTP

/// PEM and PKCS#12 answers.
///
/// `Accept: application/x-pem-file` on a search or on one item answers the certificates and keys
/// found as PEM text, so that nginx or a sidecar writes its TLS files straight from keychaind: a
/// certificate as `CERTIFICATE`, a private key as PKCS#8 `PRIVATE KEY`, a public key as
/// `PUBLIC KEY`, an identity as its certificate then its key, and several items (a CA bundle)
/// one after another in the answer's order.
///
/// `Accept: application/x-pkcs12` on a search or one item that finds exactly one identity answers
/// it as a PKCS#12 sealed under the password in `X-Keychain-PKCS12-Passphrase` (AES-256-CBC,
/// PBKDF2-SHA256, 10,000 iterations), with the certificates that issued it among those the token
/// sees: what SecPKCS12Import takes back.
extension KeychainResponder {
    static let pemType = "application/x-pem-file"

    /// The answer forms `Accept` may ask for besides JSON.
    enum AcceptedForm {
        case json, pem, pkcs12
    }

    /// What `Accept` asks for: a PKCS#12, PEM, or else JSON.
    static func acceptedForm(_ head: HTTPRequestHead) -> AcceptedForm {
        guard let accept = head.headers["Accept"], accept.utf8.count <= 1024 else { return .json }
        let text = accept.lowercased()
        if text.contains(pkcs12Type) { return .pkcs12 }
        return text.contains(pemType) ? .pem : .json
    }

    /// Whether `Accept` asks for a PKCS#12 (decided before the request runs: where it runs).
    static func wantsPKCS12(_ head: HTTPRequestHead) -> Bool { acceptedForm(head) == .pkcs12 }

    /// The search with the form `Accept` asks for: PEM and PKCS#12 answers carry references.
    static func shaped(_ search: consuming SearchRequest, _ head: HTTPRequestHead) throws(KeychainError) -> SearchRequest {
        // The usual case returns what it was given, unchanged: moved, not copied.
        let form = acceptedForm(head)
        if case .json = form { return search }
        var search = search
        switch form {
        case .json: break
        case .pem: search.form = .pem
        case .pkcs12:
            guard let password = head.headers[pkcs12PassphraseHeader] else {
                throw .param("\(pkcs12PassphraseHeader): required: the password to seal the PKCS#12 under")
            }
            search.form = .pkcs12(password: password)
        }
        search.query.returnRef = true
        return search
    }

    /// A search's answer in the form it asked for: a PKCS#12 is made here, with the chain.
    func response(_ search: SearchRequest, token: AccessToken) throws(KeychainError) -> HTTPResponse {
        let page = try keychains.searchPage(search.query, token: token)
        guard case .pkcs12(let password) = search.form else { return try search.response(page) }
        guard page.items.count == 1, let result = page.items.first, let reference = result.reference,
            let certificate = reference.certificate, let typeName = reference.keyType,
            let algorithm = KeyMaterial.Algorithm(rawValue: typeName), reference.keyClass == "private"
        else {
            throw .param("Accept: a PKCS#12 holds one identity; the query found \(page.items.count) items that are not one")
        }
        guard let keyBytes = reference.key else {
            throw .param("Accept: the identity's key is not extractable (isExtractable false): its bytes never leave")
        }
        // The chain comes from the keychain that holds the identity.
        let chain = try keychains.keychain(named: result.keychain, for: token).issuerChain(of: certificate, token: token)
        let bytes: [UInt8]
        do {
            let key = try ImportedKey(keyBytes, algorithm: algorithm, role: .private)
            bytes = try PKCS12.make(certificate: certificate, key: key, chain: chain, password: password, friendlyName: nil)
        } catch {
            throw .decode("valueData: the stored identity makes no PKCS#12 (\(error.message))")
        }
        var headers = [
            (name: "Content-Type", value: Self.pkcs12Type),
            (name: "Content-Disposition", value: "attachment; filename=\"identity.p12\""),
        ]
        if search.oneItem { headers.append(Self.etag(result)) }
        var response = HTTPResponse(status: 200, headers: headers, body: bytes)
        response.touched = result.auditedRefs
        response.carriesSecret = true
        return response
    }

    /// The PEM of `page`'s items; a password, a symmetric key or a key that is not extractable
    /// has no PEM: errSecParam naming `Accept`, and no part of the answer is sent.
    static func pemResponse(_ page: SearchPage, oneItem: Bool) throws(KeychainError) -> HTTPResponse {
        var body: [UInt8] = []
        for result in page.items {
            guard let reference = result.reference else {
                throw .param("Accept: a password item has no PEM form; ask for application/json")
            }
            if let der = reference.certificate { body += PEM.encode(label: "CERTIFICATE", der: der) }
            guard let typeName = reference.keyType, let className = reference.keyClass else { continue }
            guard let algorithm = KeyMaterial.Algorithm(rawValue: typeName), let role = KeyMaterial.Role(rawValue: className),
                role != .symmetric
            else {
                throw .param("Accept: a symmetric key has no PEM form; ask for application/json")
            }
            guard let key = reference.key else {
                throw .param("Accept: the key is not extractable (isExtractable false): its bytes never leave")
            }
            do {
                let block = try PEM.exportKey(key, algorithm: algorithm, role: role)
                body += PEM.encode(label: block.label, der: block.der)
            } catch {
                throw .decode("valueData: a stored key has no PEM form (\(error.message))")
            }
        }
        var headers = [(name: "Content-Type", value: pemType)]
        if oneItem, let first = page.items.first { headers.append(etag(first)) }
        if let next = page.next { headers.append((name: "X-Keychain-Next", value: next)) }
        var response = HTTPResponse(status: 200, headers: headers, body: body)
        response.touched = page.items.flatMap(\.auditedRefs)
        response.carriesSecret = page.items.contains(where: \.carriesSecret)
        return response
    }
}
