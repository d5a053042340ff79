import Foundation

/// A fresh temporary directory of mode 0700, removed with everything in it when the value goes.
public final class TemporaryDirectory: Sendable {
    public let path: String

    public init(prefix: String = "kcd-test") {
        var template = Array((NSTemporaryDirectory() + "/\(prefix)-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        path = String(cString: made!)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
