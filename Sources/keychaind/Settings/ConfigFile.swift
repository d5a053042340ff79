import ArgumentParser
import Foundation
import KeychainJSON
import Synchronization

/// The optional JSON configuration file: a flat object of setting names to strings or numbers.
///
/// Read and parsed once per process, on the first setting that falls through to it; keys no
/// setting reads are ignored, but their values must still be a string, number or list.
enum ConfigFile {
    private static let parsed = Mutex<[String: [String: String]]>([:])

    /// The file at `path` as setting names to values (none without a path).
    static func load(_ path: String?) throws -> [String: String] {
        guard let path else { return [:] }
        if let settings = parsed.withLock({ $0[path] }) { return settings }
        let settings = try parse(path)
        parsed.withLock { $0[path] = settings }
        return settings
    }

    private static func parse(_ path: String) throws -> [String: String] {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ValidationError("configuration file \(path) cannot be read")
        }
        guard case .object(let object) = try? JSON.parse([UInt8](data)) else {
            throw ValidationError("configuration file \(path) is not a JSON object")
        }
        var settings: [String: String] = [:]
        for (key, value) in object {
            switch value {
            case .string(let s): settings[key] = s
            case .int(let i): settings[key] = String(i)
            case .bool(let b): settings[key] = String(b)
            case .array(let a): settings[key] = a.compactMap(\.stringValue).joined(separator: ",")
            default: throw ValidationError("configuration file \(path): \(key) must be a string, number or list")
            }
        }
        return settings
    }
}
