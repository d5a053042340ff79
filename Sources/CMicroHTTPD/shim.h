#ifndef KEYCHAIND_CMICROHTTPD_SHIM_H
#define KEYCHAIND_CMICROHTTPD_SHIM_H
#include <stdarg.h>
#include <stdint.h>
#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <microhttpd.h>

// MHD_start_daemon is variadic, which Swift cannot call: options come as an MHD_OPTION_ARRAY, the completion callback as fixed arguments.
// The accept policy, the connection notifications (opened, closed) and the request-line
// callback (MHD_OPTION_URI_LOG_CALLBACK: the raw request target) come the same way.
static inline struct MHD_Daemon *kcd_mhd_start_daemon(
    unsigned int flags, MHD_AccessHandlerCallback handler, void *handler_cls,
    MHD_RequestCompletedCallback completed, void *completed_cls,
    MHD_AcceptPolicyCallback accept_policy, MHD_NotifyConnectionCallback notify_connection, void *connection_cls,
    void *(*uri_log)(void *cls, const char *uri, struct MHD_Connection *connection),
    struct MHD_OptionItem *options) {
    return MHD_start_daemon(flags, 0, accept_policy, connection_cls, handler, handler_cls,
                            MHD_OPTION_NOTIFY_COMPLETED, completed, completed_cls,
                            MHD_OPTION_NOTIFY_CONNECTION, notify_connection, connection_cls,
                            MHD_OPTION_URI_LOG_CALLBACK, uri_log, connection_cls,
                            MHD_OPTION_ARRAY, options,
                            MHD_OPTION_END);
}

// MHD_get_connection_info is variadic, which Swift cannot call: the connection's socket (-1 on failure).
static inline int kcd_mhd_connection_fd(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CONNECTION_FD);
    return info == NULL ? -1 : info->connect_fd;
}

// MHD_get_connection_info is variadic, which Swift cannot call: the pointer the connection-notify
// callback left in the connection's socket context (NULL when none, or on failure).
static inline void *kcd_mhd_socket_context(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info == NULL ? NULL : info->socket_context;
}

// MHD_get_daemon_info is variadic, which Swift cannot call: this asks only for the bound port (0 on failure).
static inline uint16_t kcd_mhd_daemon_port(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_BIND_PORT);
    return info == NULL ? 0 : info->port;
}

// MHD_get_connection_info is variadic, which Swift cannot call: this asks only for the peer's address.
// The listening socket (-1 on failure), which a pooled daemon's shutdown closes to new connections.
static inline int kcd_mhd_listen_fd(struct MHD_Daemon *daemon) {
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(daemon, MHD_DAEMON_INFO_LISTEN_FD);
    return info == NULL ? -1 : info->listen_fd;
}

static inline const struct sockaddr *kcd_mhd_client_address(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    return info == NULL ? NULL : info->client_addr;
}

// MHD_get_connection_info is variadic, which Swift cannot call: the length of the request's head
// (request line, header lines and the empty line, as received), 0 on failure.
static inline size_t kcd_mhd_request_header_size(struct MHD_Connection *connection) {
    const union MHD_ConnectionInfo *info =
        MHD_get_connection_info(connection, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
    return info == NULL ? 0 : info->header_size;
}

// MHD_SIZE_UNKNOWN and MHD_CONTENT_READER_END_OF_STREAM/_END_WITH_ERROR are macros with casts,
// which Swift does not import: a streamed body's size, and what its reader returns at its end.
static inline uint64_t kcd_mhd_size_unknown(void) { return MHD_SIZE_UNKNOWN; }
static inline ssize_t kcd_mhd_content_reader_end_of_stream(void) { return MHD_CONTENT_READER_END_OF_STREAM; }
static inline ssize_t kcd_mhd_content_reader_end_with_error(void) { return MHD_CONTENT_READER_END_WITH_ERROR; }
#endif
