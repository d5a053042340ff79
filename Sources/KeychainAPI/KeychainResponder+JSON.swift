import KeychainCore
import KeychainJSON
import MicroHTTP

/// JSON answers and request bodies.
extension KeychainResponder {
    static func json(_ status: Int, _ body: JSON, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        json(status, body: body.serialized(), headers: headers)
    }

    /// A response whose body is already serialized JSON.
    static func json(_ status: Int, body: [UInt8], headers: [(name: String, value: String)] = []) -> HTTPResponse {
        HTTPResponse(status: status, headers: headers.isEmpty ? jsonHeaders : jsonHeaders + headers, body: body)
    }

    private static let jsonHeaders = [(name: "Content-Type", value: "application/json")]

    /// The request body as a JSON object; errSecParam saying where it is not.
    static func bodyObject(_ request: HTTPRequest, allowEmpty: Bool = false) throws(KeychainError) -> JSONObject {
        if isBlank(request.body) {
            if allowEmpty { return [:] }
            throw emptyBody
        }
        let value: JSON
        do {
            value = try JSON.parse(request.body)
        } catch {
            throw .param("body: invalid JSON: \(error.description)")
        }
        guard case .object(let object) = value else { throw .param("body: expected a JSON object, got \(value.typeName)") }
        return object
    }

    /// Whether a body is empty or only JSON whitespace.
    static func isBlank(_ body: [UInt8]) -> Bool {
        body.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
    }

    static let emptyBody = KeychainError.param("body: expected a JSON object, got an empty body")
}
