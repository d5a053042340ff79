import MicroHTTP
import TestSupport
import Testing

// Apple's Keychain calls, made over the HTTP API, for the ports of Apple's regression tests in this
// directory. Each port follows one Apple test case by case and names it; INVENTORY.md lists every
// Apple test, whether it applies and why not.

let errSecSuccess: Int64 = 0
let errSecUnimplemented: Int64 = -4
let errSecParam: Int64 = -50
let errSecAuthFailed: Int64 = -25293
let errSecDuplicateItem: Int64 = -25299
let errSecItemNotFound: Int64 = -25300
let errSecNoSuchKeychain: Int64 = -25294
let errSecNoSuchAttr: Int64 = -25303
let errSecNoSuchClass: Int64 = -25306
let errSecInteractionNotAllowed: Int64 = -25308
let errSecMissingEntitlement: Int64 = -34018
let errSecUnknownFormat: Int64 = -25257
let errSecDecode: Int64 = -26275

/// What one call answered: the OSStatus Apple's call would return (errSecSuccess for a 2xx, else
/// the error body's `status`, whose shape is checked) and the items the body carries.
struct AppleAnswer: CustomStringConvertible {
    let status: Int64
    let response: RawResponse

    var items: [JSONObject] { response.items }
    /// The first item's attributes.
    var attributes: JSONObject? { items.first?["attributes"]?.objectValue }
    /// The first item's secret, decoded.
    var data: String? {
        items.first?["valueData"]?.stringValue.flatMap(Base64.decode).map { String(decoding: $0, as: UTF8.self) }
    }
    var persistentRef: String? { items.first?["persistentRef"]?.stringValue }
    /// The first item's secret, as bytes (a certificate's DER, a key's external representation).
    var dataBytes: [UInt8]? { items.first?["valueData"]?.stringValue.flatMap(Base64.decode) }
    /// What kSecReturnRef gave for the first item (`{"certificate", "key", "keyType", "keyClass"}`).
    var valueRef: JSONObject? { items.first?["valueRef"]?.objectValue }
    var description: String { "\(response.status) \(response.text)" }
}

/// A callback's events (SecKeychainCallbackInfo): what the stream sent since the last `received()`.
struct AppleCallback {
    let body: HTTPStreamBody

    func received() -> [EventRouteTests.Event] {
        EventRouteTests.parse(String(decoding: body.readAll().bytes, as: UTF8.self))
    }
}

/// SecItemAdd, SecItemCopyMatching, SecItemUpdate, SecItemDelete and the keychain calls, as one
/// client (a bearer token) makes them.
struct AppleCalls {
    let fixture: APIFixture
    /// The bearer token; the fixture's admin token when `nil`.
    var token: String?

    init(_ fixture: APIFixture, token: String? = nil) {
        self.fixture = fixture
        self.token = token
    }

    /// The same calls made with another token, as another application with other entitlements.
    func with(token: String) -> AppleCalls { AppleCalls(fixture, token: token) }

    func add(_ attributes: JSONObject, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("POST", "/v1/items", .object(attributes), sourceLocation)
    }

    func copyMatching(_ query: JSONObject, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("POST", "/v1/items/search", .object(query), sourceLocation)
    }

    func update(_ query: JSONObject, _ attributesToUpdate: JSONObject, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> AppleAnswer
    {
        try call(
            "PATCH", "/v1/items", .object(["query": .object(query), "attributesToUpdate": .object(attributesToUpdate)]),
            sourceLocation)
    }

    func delete(_ query: JSONObject, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("DELETE", "/v1/items", .object(query), sourceLocation)
    }

    /// SecPKCS12Import into the keychain (macOS), SecItemImport of a PKCS#12: `POST /v1/items/import`,
    /// the password in its header; `parameters` are the import's URL parameters (`accessGroup=…`).
    func importPKCS12(
        _ bytes: [UInt8], password: String, parameters: String = "", sourceLocation: SourceLocation = #_sourceLocation
    )
        throws -> AppleAnswer
    {
        try call(
            "POST", "/v1/items/import" + (parameters.isEmpty ? "" : "?" + parameters), raw: bytes,
            contentType: "application/x-pkcs12",
            headers: [("X-Keychain-PKCS12-Passphrase", password)], sourceLocation)
    }

    /// SecItemImport of PEM text (a key or certificates) into the keychain.
    func importPEM(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call(
            "POST", "/v1/items/import", raw: Array(text.utf8), contentType: "application/x-pem-file", headers: [], sourceLocation)
    }

    /// SecItemExport: the search's certificates and keys as PEM text (`Accept: application/x-pem-file`).
    func export(_ query: JSONObject, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("POST", "/v1/items/search", .object(query), sourceLocation, headers: [("Accept", "application/x-pem-file")])
    }

    /// SecKeychainAddCallback: the keychain's events this client's token may see
    /// (`GET /v1/events`), from now on. Dropping the answer is SecKeychainRemoveCallback.
    func addCallback(sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleCallback {
        let response = fixture.inProcess.response(
            "GET", "/v1/events", headers: [("Authorization", "Bearer \(token ?? fixture.adminToken)")])
        #expect(response.status == 200, "SecKeychainAddCallback", sourceLocation: sourceLocation)
        let body = try #require(response.bodyStream, sourceLocation: sourceLocation)
        _ = body.readAll()
        return AppleCallback(body: body)
    }

    /// SecKeychainLock.
    func lock(sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("POST", "/v1/keychain/lock", nil, sourceLocation)
    }

    /// SecKeychainUnlock: the passphrase, no token.
    func unlock(_ passphrase: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("POST", "/v1/keychain/unlock", .object(["passphrase": .string(passphrase)]), sourceLocation, authorized: false)
    }

    /// SecKeychainChangePassword.
    func changePassphrase(old: String, new: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("POST", "/v1/keychain/passphrase", .object(["old": .string(old), "new": .string(new)]), sourceLocation)
    }

    /// SecKeychainCreate: a keychain of `name` with its own password.
    func createKeychain(_ name: String, password: String, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> AppleAnswer
    {
        try call(
            "POST", "/v1/keychains", .object(["name": .string(name), "passphrase": .string(password)]), sourceLocation)
    }

    /// SecKeychainDelete.
    func deleteKeychain(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("DELETE", "/v1/keychains/\(name)?confirm=\(name)", nil, sourceLocation)
    }

    /// SecKeychainOpen, as far as a server has it: the keychain's status, by name.
    func openKeychain(_ name: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> AppleAnswer {
        try call("GET", "/v1/keychains/\(name)", nil, sourceLocation)
    }

    /// SecKeychainCopySearchList: the names of the token's search list, in order.
    func searchList(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String] {
        let answer = try call("GET", "/v1/keychains", nil, sourceLocation)
        return answer.response.json["keychains"]?.arrayValue?.compactMap { $0.objectValue?["name"]?.stringValue } ?? []
    }

    /// SecKeychainGetStatus: the answer's `status` bits (1 unlocked, 2 readable, 4 writable).
    func keychainStatus(sourceLocation: SourceLocation = #_sourceLocation) throws -> Int64? {
        let answer = try call("GET", "/v1/keychain", nil, sourceLocation)
        return answer.response.json["status"]?.intValue
    }

    private func call(
        _ method: String, _ target: String, _ body: JSON?, _ sourceLocation: SourceLocation, authorized: Bool = true,
        headers extra: [(String, String)] = []
    ) throws -> AppleAnswer {
        let headers = (authorized ? [("Authorization", "Bearer \(token ?? fixture.adminToken)")] : []) + extra
        let response = try fixture.call(
            method, target, json: body.map { String(decoding: $0.serialized(), as: UTF8.self) }, headers: headers)
        return try answer(response, sourceLocation)
    }

    private func call(
        _ method: String, _ target: String, raw body: [UInt8], contentType: String, headers: [(String, String)],
        _ sourceLocation: SourceLocation
    ) throws -> AppleAnswer {
        let response = fixture.call(method, target, body: body, contentType: contentType, headers: headers, token: token)
        return try answer(response, sourceLocation)
    }

    private func answer(_ response: RawResponse, _ sourceLocation: SourceLocation) throws -> AppleAnswer {
        guard !(200..<300).contains(response.status) else { return AppleAnswer(status: errSecSuccess, response: response) }
        let status = try #require(response.json["status"]?.intValue, "\(response.text)", sourceLocation: sourceLocation)
        #expect(
            response.json["error"]?.stringValue?.hasPrefix("errSec") == true, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.json["message"]?.stringValue?.isEmpty == false, "\(response.text)", sourceLocation: sourceLocation)
        return AppleAnswer(status: status, response: response)
    }
}

// Calls from many threads at once (Apple's stress tests) go through `APIFixture.call`, whose
// in-process client serves concurrent requests as the server does; nothing else of the fixture
// is touched.
extension AppleCalls: @unchecked Sendable {}

/// Bytes as the API carries them: `data("secret")` is CFDataCreate of the UTF-8 bytes of "secret".
func data(_ text: String) -> JSON { .string(Base64.encode(Array(text.utf8))) }

/// Bytes as the API carries them, base64: a certificate's DER, a key, a PKCS#12.
func base64(_ bytes: [UInt8]) -> JSON { .string(Base64.encode(bytes)) }
