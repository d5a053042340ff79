/*
 * A: the libmicrohttpd ceiling. Answers every request with the same 60-byte JSON body from one
 * internal polling thread (epoll, no thread pool), keeping connections alive.
 *
 * Usage: minimal_mhd PORT      (listens on 127.0.0.1; stops on SIGTERM or SIGINT)
 *
 * The response is queued on the second call of the access handler, as libmicrohttpd's
 * documentation shows: the first call only announces the request's headers, and answering then
 * would leave any upload unread and make libmicrohttpd close the connection instead of keeping it.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Exactly 60 bytes, about the size of keychaind's answer for one 32-byte secret. */
static const char BODY[] = "{\"items\":[{\"valueData\":\"c2VjcmV0LTAwMDAwMDAwMDEtMDEyMw==\"}]}";

static struct MHD_Response *response;

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **request_state) {
    (void)cls; (void)url; (void)method; (void)version; (void)upload_data;
    static int marker;
    if (*request_state == NULL) {
        *request_state = &marker; /* first call: headers only */
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0; /* discard any body */
        return MHD_YES;
    }
    return MHD_queue_response(connection, MHD_HTTP_OK, response);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PORT\n", argv[0]);
        return 2;
    }
    _Static_assert(sizeof BODY - 1 == 60, "the body must be 60 bytes");
    /* Blocked before libmicrohttpd starts its thread, which inherits the mask: only sigwait sees them. */
    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    response = MHD_create_response_from_buffer(sizeof BODY - 1, (void *)BODY, MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(response, "Content-Type", "application/json");

    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[1]))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "minimal_mhd: cannot listen on 127.0.0.1:%s\n", argv[1]);
        return 1;
    }
    int signo;
    sigwait(&stop_signals, &signo);
    MHD_stop_daemon(daemon);
    MHD_destroy_response(response);
    return 0;
}
