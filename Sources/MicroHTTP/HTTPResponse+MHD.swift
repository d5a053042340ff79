import CMicroHTTPD
import Logging

#if canImport(Glibc)
    import Glibc
#endif

extension HTTPResponse {
    /// Headers the transport writes itself; an application's copy of them is dropped.
    ///
    /// libmicrohttpd computes `Content-Length` from the buffer or the file (and refuses to be
    /// given one), closes after a response carrying `Connection: close`, never chunks a sized
    /// body, and chunks a streamed one (`bodyStream`) for an HTTP/1.1 client.
    static let transportHeaders = ["Content-Length", "Connection", "Transfer-Encoding"]

    /// Copies this response into an MHD response, queues it on `connection` and destroys it.
    ///
    /// `close` adds `Connection: close` even if `closeConnection` is false (server shutting down).
    /// Must run inside the access handler, and not on its first call for a request: libmicrohttpd
    /// 0.9.75 treats a response queued while it is still in the headers-processed state as
    /// "early" and closes the connection after it, whatever the headers say.
    func queue(on connection: OpaquePointer, close: Bool, logger: Logger) -> MHD_Result {
        guard let response = makeMHDResponse() else { return .NO }
        defer { MHD_destroy_response(response) }
        for (name, value) in headers {
            guard !Self.transportHeaders.contains(where: name.caseInsensitiveEquals) else { continue }
            // Explicit C strings: passing a String straight to a C parameter copies it to the heap.
            let added = name.withCString { name in value.withCString { MHD_add_response_header(response, name, $0) } }
            if added == .NO {
                // The value is not logged: it may carry a token.
                logger.debug("dropped an invalid response header", metadata: ["http.header": "\(name)"])
            }
        }
        if closeConnection || close {
            _ = MHD_add_response_header(response, "Connection", "close")
        }
        let code = (100...999).contains(status) ? UInt32(status) : 500
        return MHD_queue_response(connection, code, response)
    }

    /// The MHD response for the body: `bodyStream`'s producer, which libmicrohttpd calls as it
    /// sends (`mhdStreamRead`; the stream is retained until `mhdStreamFree`), or `bodyFile`'s
    /// descriptor, which it sends from (`sendfile`) and closes when the response is destroyed,
    /// or a copy of `body`.
    private func makeMHDResponse() -> OpaquePointer? {
        if let bodyStream {
            let retained = Unmanaged.passRetained(bodyStream)
            guard
                let response = MHD_create_response_from_callback(
                    kcd_mhd_size_unknown(), bodyStream.blockSize, mhdStreamRead, retained.toOpaque(), mhdStreamFree)
            else {
                retained.release()
                return nil
            }
            return response
        }
        guard let bodyFile else {
            return body.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(
                    bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
            }
        }
        let fd = bodyFile.take()
        guard fd >= 0 else { return nil }
        guard let response = MHD_create_response_from_fd64(bodyFile.size, fd) else {
            Glibc.close(fd)
            return nil
        }
        return response
    }
}
