import KeychainCore
import KeychainX509
import MicroHTTP

/// PEM answers (issue 16, part 4): `Accept: application/x-pem-file` on a search or on one item
/// answers the certificates and keys found as PEM text, so that nginx or a sidecar writes its
/// TLS files straight from keychaind: a certificate as `CERTIFICATE`, a private key as PKCS#8
/// `PRIVATE KEY`, a public key as `PUBLIC KEY`, an identity as its certificate then its key, and
/// several items (a CA bundle) one after another in the answer's order.
extension KeychainResponder {
    static let pemType = "application/x-pem-file"

    /// Whether the client asked for PEM: `Accept` names `application/x-pem-file`.
    static func acceptsPEM(_ head: HTTPRequestHead) -> Bool {
        guard let accept = head.headers["Accept"] else { return false }
        return accept.utf8.count <= 1024 && accept.lowercased().contains(pemType)
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
        response.touched = page.items.flatMap(\.touchedRefs)
        response.carriesSecret = page.items.contains(where: \.carriesSecret)
        return response
    }
}
