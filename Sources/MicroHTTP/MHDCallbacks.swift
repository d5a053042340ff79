import CMicroHTTPD

// libmicrohttpd's C callbacks. They are free functions with no captured or global state: all
// they reach is the `ServerContext` behind `cls` and the `RequestState` behind `*con_cls`, or,
// for a streamed response body, the `HTTPStreamBody` behind the content reader's `cls`.

/// `MHD_AccessHandlerCallback`: forwards to `ServerContext.handle`.
func mhdAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    return context.handle(
        connection: connection, url: url, method: method, version: version, uploadData: uploadData,
        uploadDataSize: uploadDataSize, requestContext: requestContext)
}

/// `MHD_OPTION_URI_LOG_CALLBACK`'s callback: the request target as sent, before libmicrohttpd
/// splits and decodes it; what it returns becomes the request's `*con_cls`.
func mhdRequestLine(cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?)
    -> UnsafeMutableRawPointer?
{
    guard let cls else { return nil }
    return Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().requestLine(uri, connection: connection)
}

/// `MHD_RequestCompletedCallback`: releases the request's state, whatever the termination code.
func mhdRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext else { return }
    Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().complete(
        connection: connection, requestContext: requestContext)
}

/// `MHD_AcceptPolicyCallback`: the connection guard's per-address limit and eviction.
func mhdAcceptPolicy(cls: UnsafeMutableRawPointer?, address: UnsafePointer<sockaddr>?, length: socklen_t) -> MHD_Result {
    guard let cls else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    return context.connectionGuard.accepts(PeerAddress(address).text) ? .YES : .NO
}

/// `MHD_NotifyConnectionCallback`: connections opened and closed, for the connection guard.
func mhdNotifyConnection(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?,
    code: MHD_ConnectionNotificationCode
) {
    guard let cls, let connection else { return }
    let connectionGuard = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().connectionGuard
    // MHD_CONNECTION_NOTIFY_STARTED is 0 and MHD_CONNECTION_NOTIFY_CLOSED 1 (microhttpd.h).
    switch code.rawValue {
    case 0:
        let address = PeerAddress(kcd_mhd_client_address(connection)).text
        connectionGuard.opened(connection, address: address, socketContext: socketContext)
    case 1: connectionGuard.closed(connection, socketContext: socketContext)
    default: break
    }
}

/// `MHD_ContentReaderCallback` of a streamed body: `cls` is its `HTTPStreamBody`, retained by
/// `HTTPResponse.makeMHDResponse` until `mhdStreamFree`. Copies at most `max` bytes into
/// `buffer` and returns how many, `MHD_CONTENT_READER_END_OF_STREAM` at the end, or
/// `MHD_CONTENT_READER_END_WITH_ERROR` when the producer threw ("this will cause MHD to simply
/// close the connection immediately", microhttpd.h). `position` is not needed: "if a
/// `struct MHD_Response` is not re-used, libmicrohttpd guarantees that "pos" will be the sum of
/// all non-negative return values obtained from the content reader so far", and a streamed
/// body's response is queued once.
func mhdStreamRead(cls: UnsafeMutableRawPointer?, position: UInt64, buffer: UnsafeMutablePointer<CChar>?, max: Int) -> Int {
    guard let cls, let buffer else { return kcd_mhd_content_reader_end_with_error() }
    // "Returning zero will cause libmicrohttpd to try again": only with no room to copy into.
    guard max > 0 else { return 0 }
    let body = Unmanaged<HTTPStreamBody>.fromOpaque(cls).takeUnretainedValue()
    do {
        switch try body.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) {
        case .bytes(let count): return count
        case .end: return kcd_mhd_content_reader_end_of_stream()
        // The connection is suspended: libmicrohttpd asks again once `wake()` resumes it.
        case .waiting: return 0
        }
    } catch {
        return kcd_mhd_content_reader_end_with_error()
    }
}

/// `MHD_ContentReaderFreeCallback` of a streamed body: libmicrohttpd is done with the response
/// (sent, cut or never queued), so the reference `makeMHDResponse` retained is released.
func mhdStreamFree(cls: UnsafeMutableRawPointer?) {
    guard let cls else { return }
    let body = Unmanaged<HTTPStreamBody>.fromOpaque(cls)
    body.takeUnretainedValue().detach()
    body.release()
}
