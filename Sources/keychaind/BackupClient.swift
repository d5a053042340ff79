import Foundation
import KeychainJSON

/// The one HTTP request `keychaind backup` makes: `POST /v1/keychain/backup` to a running
/// keychaind, over plain HTTP/1.1 on a TCP socket, the body streamed into a file.
///
/// A few dozen lines of sockets rather than URLSession (FoundationNetworking, libcurl and its
/// dependencies in the image, and a delegate to stream a body to a file descriptor) or a libcurl
/// shim (a C module for one request): keychaind answers this route with `Content-Length`, and
/// the client needs nothing else. No TLS: it talks to keychaind on loopback or inside the pod
/// (a sidecar); through a TLS proxy, `curl -X POST …/v1/keychain/backup -o FILE` does the same.
struct BackupClient {
    let host: String
    let port: Int
    /// The path before `/v1/…` when keychaind is served under a prefix (`/keychain`), or "".
    let prefix: String

    /// Nothing listens at the address: no server is running there.
    struct Refused: Error {}

    /// `http://host[:port][/prefix]`, `[v6]` hosts included.
    init(url: String) throws {
        guard url.hasPrefix("http://") else {
            throw FileError("--url \(url): only http:// is spoken here (use curl through a TLS proxy)")
        }
        var rest = url.dropFirst("http://".count)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        prefix = String(rest[slash...]).trimmingSuffix("/")
        rest = rest[..<slash]
        if rest.hasPrefix("["), let close = rest.firstIndex(of: "]") {
            host = String(rest[rest.index(after: rest.startIndex)..<close])
            let after = rest[rest.index(after: close)...]
            port = after.hasPrefix(":") ? Int(after.dropFirst()) ?? -1 : 80
        } else if let colon = rest.lastIndex(of: ":") {
            host = String(rest[..<colon])
            port = Int(rest[rest.index(after: colon)...]) ?? -1
        } else {
            host = String(rest)
            port = 80
        }
        guard !host.isEmpty, (1...65535).contains(port) else { throw FileError("--url \(url): expected http://host:port") }
    }

    /// Asks for a backup with `token` (read once connected) and writes the body into `file`;
    /// returns its size. Throws `Refused` when no server listens, and otherwise a message with
    /// the server's own error (its OSStatus and message: never the token).
    /// `keychain`: the keychain to copy (`KeychainName`), other than the token's default.
    func fetch(token readToken: () throws -> String, keychain: String? = nil, into file: PrivateFile) throws -> Int {
        let fd = try connect()
        defer { close(fd) }
        let token = try readToken()
        let hostHeader = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
        let request =
            "POST \(prefix)/v1/keychain/backup\(keychain.map { "?keychain=" + $0 } ?? "") HTTP/1.1\r\nHost: \(hostHeader)\r\n"
            + "Authorization: Bearer \(token)\r\nContent-Length: 0\r\nConnection: close\r\nUser-Agent: keychaind-backup\r\n\r\n"
        try Array(request.utf8).withUnsafeBytes { bytes in
            var offset = 0
            while offset < bytes.count {
                let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
                if sent < 0, errno == EINTR { continue }
                guard sent > 0 else { throw FileError("backup: cannot send the request: \(String(cString: strerror(errno)))") }
                offset += sent
            }
        }
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var received: [UInt8] = []
        var headEnd: Int?
        while headEnd == nil {
            let count = try receive(fd, &buffer)
            guard count > 0 else { throw FileError("backup: the server closed the connection before answering") }
            received += buffer[..<count]
            headEnd = received.firstRange(of: [13, 10, 13, 10])?.lowerBound
            guard received.count < 65_536 || headEnd != nil else { throw FileError("backup: the answer's head is too long") }
        }
        let head = String(decoding: received[..<headEnd!], as: UTF8.self).split(separator: "\r\n")
        var body = Array(received[(headEnd! + 4)...])
        let fields = head.dropFirst().map { line -> (String, String) in
            let parts = line.split(separator: ":", maxSplits: 1)
            return (parts[0].lowercased(), parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : "")
        }
        let statusParts = head.first?.split(separator: " ") ?? []
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw FileError("backup: not an HTTP answer") }
        guard let lengthText = fields.first(where: { $0.0 == "content-length" })?.1, let length = Int(lengthText), length >= 0,
            !fields.contains(where: { $0.0 == "transfer-encoding" })
        else { throw FileError("backup: the answer has no Content-Length (a proxy in between re-encoded it?)") }
        guard status == 200 else {
            while body.count < min(length, 65_536) {
                let count = try receive(fd, &buffer)
                guard count > 0 else { break }
                body += buffer[..<count]
            }
            throw FileError("backup: the server refused: HTTP \(status): \(Self.describe(body))")
        }
        var written = 0
        while true {
            let part = body.prefix(length - written)
            try part.withUnsafeBytes { try file.append($0) }
            written += part.count
            if written == length { break }
            let count = try receive(fd, &buffer)
            guard count > 0 else { throw FileError("backup: the connection closed after \(written) of \(length) bytes") }
            body = Array(buffer[..<count])
        }
        return written
    }

    /// The error's `error` and `message` from keychaind's JSON, or the status alone.
    static func describe(_ body: [UInt8]) -> String {
        guard let object = (try? JSON.parse(body))?.objectValue else { return "(no keychaind error in the body)" }
        return [object["error"]?.stringValue, object["message"]?.stringValue].compactMap(\.self).joined(separator: ": ")
    }

    private func connect() throws -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &found) == 0, let first = found else {
            throw FileError("backup: cannot resolve \(host)")
        }
        defer { freeaddrinfo(first) }
        var refused = false
        var failure = "no address"
        var next: UnsafeMutablePointer<addrinfo>? = first
        while let address = next {
            next = address.pointee.ai_next
            let fd = socket(
                address.pointee.ai_family, address.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue), address.pointee.ai_protocol
            )
            guard fd >= 0 else { continue }
            // A large keychain's copy is made before the first byte comes: minutes at most.
            var timeout = timeval(tv_sec: 600, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if Foundation.connect(fd, address.pointee.ai_addr, address.pointee.ai_addrlen) == 0 { return fd }
            refused = refused || errno == ECONNREFUSED
            failure = String(cString: strerror(errno))
            close(fd)
        }
        if refused { throw Refused() }
        throw FileError("backup: cannot connect to \(host):\(port): \(failure)")
    }

    private func receive(_ fd: Int32, _ buffer: inout [UInt8]) throws -> Int {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { throw FileError("backup: cannot read the answer: \(String(cString: strerror(errno)))") }
            return count
        }
    }
}

extension String {
    fileprivate func trimmingSuffix(_ suffix: String) -> String {
        var text = self
        while text.hasSuffix(suffix) { text.removeLast(suffix.count) }
        return text
    }
}
