import ArgumentParser

/// `host:port` and `[v6]:port`.
enum Listen {
    /// Where `serve` listens, and `backup` asks, when no setting says.
    static let defaultAddress = "127.0.0.1:8700"

    static func parse(_ text: String, option: String = "--listen") throws -> (String, Int) {
        let host: Substring
        let port: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                throw ValidationError("\(option): expected [address]:port")
            }
            host = text[text.index(after: text.startIndex)..<close]
            port = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":") else { throw ValidationError("\(option): expected host:port") }
            host = text[..<colon]
            port = text[text.index(after: colon)...]
        }
        guard let number = Int(port), (0...65535).contains(number) else { throw ValidationError("\(option): bad port") }
        let address = host.isEmpty ? "0.0.0.0" : (host == "localhost" ? "127.0.0.1" : String(host))
        return (address, number)
    }
}
