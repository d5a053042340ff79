import CMicroHTTPD

// libmicrohttpd's C callbacks. They are free functions with no captured or global state: all
// they reach is the `ServerContext` behind `cls` and the `RequestState` behind `*con_cls`.

/// `MHD_AccessHandlerCallback`: forwards to `ServerContext.handle`.
func mhdAccessHandler(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    let context = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    return context.handle(
        connection: connection, url: url, method: method, uploadData: uploadData,
        uploadDataSize: uploadDataSize, requestContext: requestContext)
}

/// `MHD_RequestCompletedCallback`: releases the request's state, whatever the termination code.
func mhdRequestCompleted(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext else { return }
    Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().complete(requestContext: requestContext)
}
