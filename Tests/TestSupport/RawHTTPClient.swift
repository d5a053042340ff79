import Dispatch

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as the raw client parsed it.
public struct RawResponse {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]
    /// Whether the body was cut short: a chunked body whose connection closed before its last
    /// chunk, or (in process) a streamed body whose producer threw.
    public var truncated: Bool

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8], truncated: Bool = false) {
        self.status = status
        self.headers = headers
        self.body = body
        self.truncated = truncated
    }

    /// The first value of `name`, compared without regard to ASCII case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// Whether the server said it closes the connection after this response.
    public var saysClose: Bool { header("Connection")?.lowercased().contains("close") ?? false }
}

public struct ClientError: Error, CustomStringConvertible {
    public var description: String
}

/// A blocking HTTP/1.1 client over one TCP connection, able to send arbitrary bytes.
///
/// Every receive has a 10 s `SO_RCVTIMEO`: a guard against hanging the suite, never a timing
/// assertion (a test reading past it fails instead of waiting forever).
public final class RawHTTPClient {
    private let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host` (an IPv4 or IPv6 literal) on `port`.
    /// `source`: an IPv4 address to connect from (any of 127.0.0.0/8 on loopback), so that a test
    /// can be several clients. `receiveBufferBytes`: a small `SO_RCVBUF`, set before connecting,
    /// so that a server streaming to this client is held back by TCP flow control until it reads.
    public init(port: Int, host: String = "127.0.0.1", source: String? = nil, receiveBufferBytes: Int? = nil) throws {
        var storage = sockaddr_storage()
        let length: Int
        let family: Int32
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw ClientError(description: "bad host") }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in6.self) }
            (length, family) = (MemoryLayout<sockaddr_in6>.size, AF_INET6)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { throw ClientError(description: "bad host") }
            withUnsafeMutableBytes(of: &storage) { $0.storeBytes(of: address, as: sockaddr_in.self) }
            (length, family) = (MemoryLayout<sockaddr_in>.size, AF_INET)
        }
        let fd = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ClientError(description: "socket: \(errno)") }
        if let source {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            _ = inet_pton(AF_INET, source, &local.sin_addr)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                let code = errno
                _ = close(fd)
                throw ClientError(description: "bind \(source): errno \(code)")
            }
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let receiveBufferBytes {
            var size = Int32(receiveBufferBytes)
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        let result = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(length)) }
        }
        guard result == 0 else {
            let code = errno
            _ = close(fd)
            throw ClientError(description: "connect: errno \(code)")
        }
        self.fd = fd
    }

    deinit {
        _ = close(fd)
    }

    /// Whether a TCP connection to `port` on 127.0.0.1 is refused.
    public static func connectionRefused(port: Int) -> Bool {
        do {
            _ = try RawHTTPClient(port: port)
            return false
        } catch {
            return "\(error)" == "connect: errno \(ECONNREFUSED)"
        }
    }

    /// Sends every byte (`MSG_NOSIGNAL`: a peer that closed must not kill the test process).
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw ClientError(description: "send: errno \(errno)") }
            offset += sent
        }
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Reads one response; a `HEAD` response has no body whatever its `Content-Length`.
    /// `bodyUntilClose`: a body framed by neither `Content-Length` nor chunked encoding is
    /// read until the server closes (an HTTP/1.0 answer of unknown length).
    public func readResponse(forHead: Bool = false, bodyUntilClose: Bool = false) throws -> RawResponse {
        var response = try readResponseHead()
        try readBody(of: &response, forHead: forHead, untilClose: bodyUntilClose)
        return response
    }

    /// Reads a response's status line and headers, and none of its body (`readBody`).
    public func readResponseHead() throws -> RawResponse {
        let headEnd = try readUntil([13, 10, 13, 10])
        let headText = String(decoding: buffer[..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
            throw ClientError(description: "bad status line")
        }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters())
        }
        return RawResponse(status: status, headers: headers, body: [])
    }

    /// Reads the body of `response`, whose head `readResponseHead` read: `Content-Length`
    /// bytes, or chunks until the last one (`truncated` when the server closes before it), or
    /// with `untilClose` and neither framing, whatever comes until the server closes.
    public func readBody(of response: inout RawResponse, forHead: Bool = false, untilClose: Bool = false) throws {
        if !forHead, response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            try readChunks(into: &response, atLeast: nil)
            return
        }
        if !forHead, untilClose, response.header("Content-Length") == nil {
            while try receive() {}
            response.body = buffer
            buffer = []
            return
        }
        let length = forHead ? 0 : Int(response.header("Content-Length") ?? "0") ?? 0
        while buffer.count < length {
            guard try receive() else { throw ClientError(description: "closed inside a body") }
        }
        response.body = Array(buffer.prefix(length))
        buffer.removeFirst(length)
    }

    /// Reads whole chunks of `response`'s chunked body (whose head `readResponseHead` read) until
    /// it holds at least `bytes`, or the body ends; `readBody` then reads the rest.
    public func readChunks(of response: inout RawResponse, atLeast bytes: Int) throws {
        try readChunks(into: &response, atLeast: bytes)
    }

    /// Appends chunks to `response.body` up to the last chunk and its trailer (`truncated` when
    /// the server closes before them), or until the body holds `atLeast` bytes.
    private func readChunks(into response: inout RawResponse, atLeast: Int?) throws {
        while atLeast.map({ response.body.count < $0 }) ?? true {
            guard let lineEnd = try readUntilOrClose([13, 10]) else {
                response.truncated = true
                return
            }
            let line = String(decoding: buffer[..<lineEnd], as: UTF8.self)
            buffer.removeFirst(lineEnd + 2)
            let sizeText = line.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters() } ?? ""
            guard let size = Int(sizeText, radix: 16), size >= 0 else { throw ClientError(description: "bad chunk size line") }
            if size == 0 {
                // The trailer: header lines, then an empty line.
                while true {
                    guard let end = try readUntilOrClose([13, 10]) else {
                        response.truncated = true
                        return
                    }
                    buffer.removeFirst(end + 2)
                    if end == 0 { return }
                }
            }
            while buffer.count < size + 2 {
                guard try receive() else {
                    response.body += buffer.prefix(size)
                    buffer = []
                    response.truncated = true
                    return
                }
            }
            guard buffer[size] == 13, buffer[size + 1] == 10 else { throw ClientError(description: "chunk not followed by CRLF") }
            response.body += buffer[..<size]
            buffer.removeFirst(size + 2)
        }
    }

    /// Whether the server closed the connection: the next read finds end of stream (or a reset).
    public func isClosedByServer() -> Bool {
        guard buffer.isEmpty else { return false }
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, 0)
        return count == 0 || (count < 0 && errno == ECONNRESET)
    }

    /// Whether the server closes the connection within `waitingMilliseconds` (waits no longer).
    public func isClosedByServer(waitingMilliseconds: Int32) -> Bool {
        guard buffer.isEmpty else { return false }
        var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, waitingMilliseconds) > 0 else { return false }
        return isClosedByServer()
    }

    /// Reads and drops whatever comes until the server closes; `false` if it never does.
    public func readsToEndOfStream() -> Bool {
        buffer = []
        while true {
            guard let more = try? receive() else { return errno == ECONNRESET }
            if !more { return true }
        }
    }

    private func readUntil(_ marker: [UInt8]) throws -> Int {
        guard let index = try readUntilOrClose(marker) else { throw ClientError(description: "closed before a response") }
        return index
    }

    /// Where `marker` starts in the buffer, reading until it comes; `nil` if the server closes first.
    private func readUntilOrClose(_ marker: [UInt8]) throws -> Int? {
        while true {
            if let index = firstIndex(of: marker) { return index }
            guard try receive() else { return nil }
        }
    }

    private func firstIndex(of marker: [UInt8]) -> Int? {
        guard buffer.count >= marker.count else { return nil }
        return (0...(buffer.count - marker.count)).first { buffer[$0..<($0 + marker.count)].elementsEqual(marker) }
    }

    /// One `recv` into the buffer; `false` at end of stream.
    private func receive() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = recv(fd, &chunk, chunk.count, 0)
        guard count >= 0 else { throw ClientError(description: "recv: errno \(errno)") }
        buffer.append(contentsOf: chunk[..<count])
        return count > 0
    }
}

extension Substring {
    public func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

extension RawHTTPClient {
    /// Sends one request with `Content-Length` (when there is a body) and reads its response.
    public func request(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) throws -> RawResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + (body ?? []))
        return try readResponse(forHead: method == "HEAD")
    }

    public func request(_ method: String, _ target: String, headers: [(String, String)] = [], json: String) throws -> RawResponse
    {
        try request(method, target, headers: headers, body: Array(json.utf8))
    }
}
