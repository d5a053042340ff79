/*
 * H: B's work, written by hand in C: the anchor keychaind's GET is compared with.
 *
 * Each request does what keychaind's B request does, the straightforward way, on one internal
 * polling thread (epoll) of libmicrohttpd, keeping connections alive:
 *   1. the bearer token from `Authorization` hashed with keyed BLAKE2b and compared in constant
 *      time (sodium_memcmp) with the hash of the one token it accepts (401 otherwise);
 *   2. `service` and `account` from the query string, their keyed BLAKE2b digest the row's key;
 *   3. a SQLite point lookup of that key among N rows (a prepared statement, WAL, the primary-key
 *      index of a WITHOUT ROWID table; 404 when absent);
 *   4. XChaCha20-Poly1305 open of the secret, the key digest as associated data;
 *   5. the JSON answer keychaind gives, `{"items":[{"valueData":"<base64>"}]}`.
 * It writes no log line, parses no JSON, and knows one token and one item shape: the floor of the
 * work, not a keychain. `/v1/health` answers 200 without a token, for the runner's start-up check.
 *
 * Haud: with AUDIT_LOG, each request also gives the audit line keychaind's `--audit-log` writes
 * for it, with the same fields and the same work: every query value but `returnData`
 * as a keyed BLAKE2b (16 bytes, base64url), the item's ref, `prev`, and a keyed BLAKE2b `mac` of
 * the line so far. Fail closed the way keychaind is: an answer carrying a secret is held to the
 * polling thread's next pass (the final call queues nothing, and libmicrohttpd calls again), and
 * the first held answer of a pass writes every line appended so far in one write(2); a write that
 * fails answers 503. A refusal's line goes with the next write. One polling thread, so the buffer
 * needs no lock.
 *
 * Usage: same_work DATABASE N TOKEN_FILE PORT [AUDIT_LOG]
 *   Creates DATABASE with items svc-i/acct-i for i in [0, N) (each a 32-byte value naming i, as
 *   items.py adds them) when it has none, then listens on 127.0.0.1:PORT until SIGTERM or SIGINT.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static unsigned char digest_key[crypto_generichash_KEYBYTES];
static unsigned char token_key[crypto_generichash_KEYBYTES];
static unsigned char secret_key[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
static unsigned char token_hash[32];
static sqlite3 *db;
static sqlite3_stmt *lookup; /* used by the one polling thread only */

/* The audit line (Haud), when an audit log is given: its keys, file and buffer. */
static unsigned char hash_key[crypto_generichash_KEYBYTES];
static unsigned char chain_key[crypto_generichash_KEYBYTES];
static int audit_fd = -1;
static char token_id[4 + 16 + 1];
static char request_prefix[8 + 1];
static unsigned long long request_count;
enum { MAC_BYTES = 16, MAC_TEXT = 22 };
static char last_mac[MAC_TEXT + 1];
static int chained;
/* Lines appended and not yet written, and the counts of bytes appended and written since the start. */
static char *pending;
static size_t pending_length, pending_capacity;
static unsigned long long appended_bytes, written_bytes;

enum { KEY_BYTES = 32, VALUE_BYTES = 32, MAX_TOKEN = 512, MAX_NAME = 256 };

static void die(const char *what) {
    fprintf(stderr, "same_work: %s%s%s\n", what, db ? ": " : "", db ? sqlite3_errmsg(db) : "");
    exit(1);
}

/* The row key: keyed BLAKE2b of service, a NUL, and account. */
static int row_key(unsigned char out[KEY_BYTES], const char *service, const char *account) {
    size_t s = strlen(service), a = strlen(account);
    if (s > MAX_NAME || a > MAX_NAME) return -1;
    crypto_generichash_state state;
    crypto_generichash_init(&state, digest_key, sizeof digest_key, KEY_BYTES);
    crypto_generichash_update(&state, (const unsigned char *)service, s + 1);
    crypto_generichash_update(&state, (const unsigned char *)account, a);
    crypto_generichash_final(&state, out, KEY_BYTES);
    return 0;
}

static void populate(long count) {
    sqlite3_stmt *insert;
    if (sqlite3_exec(db, "CREATE TABLE items (pk BLOB PRIMARY KEY, sealed BLOB NOT NULL) WITHOUT ROWID", 0, 0, 0) != SQLITE_OK ||
        sqlite3_exec(db, "BEGIN", 0, 0, 0) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "INSERT INTO items (pk, sealed) VALUES (?, ?)", -1, &insert, 0) != SQLITE_OK)
        die("cannot create the items");
    for (long i = 0; i < count; i++) {
        char service[32], account[32], value[48]; /* 35 to 44 bytes, of which the first 32 are the value */
        unsigned char key[KEY_BYTES];
        unsigned char sealed[crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + VALUE_BYTES + crypto_aead_xchacha20poly1305_ietf_ABYTES];
        snprintf(service, sizeof service, "svc-%ld", i);
        snprintf(account, sizeof account, "acct-%ld", i);
        snprintf(value, sizeof value, "secret-%010ld-0123456789abcdef", i); /* items.py's value_for */
        row_key(key, service, account);
        randombytes_buf(sealed, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
        crypto_aead_xchacha20poly1305_ietf_encrypt(sealed + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, NULL,
                                                   (const unsigned char *)value, VALUE_BYTES, key, KEY_BYTES, NULL, sealed,
                                                   secret_key);
        sqlite3_bind_blob(insert, 1, key, KEY_BYTES, SQLITE_STATIC);
        sqlite3_bind_blob(insert, 2, sealed, sizeof sealed, SQLITE_STATIC);
        if (sqlite3_step(insert) != SQLITE_DONE) die("cannot insert an item");
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    if (sqlite3_exec(db, "COMMIT", 0, 0, 0) != SQLITE_OK) die("cannot commit the items");
}

/* --- the audit line (Haud) ------------------------------------------------------------------- */

/* A held answer: the request's state in audit mode. */
struct held {
    int ready;                     /* built, waiting for its line's write */
    unsigned int status;
    unsigned long long line_end;   /* appended_bytes once its line was appended */
    size_t length;
    char body[128];
};

static void pending_reserve(size_t more) {
    if (pending_length + more <= pending_capacity) return;
    size_t capacity = pending_capacity ? pending_capacity : 65536;
    while (capacity < pending_length + more) capacity *= 2;
    char *grown = realloc(pending, capacity);
    if (grown == NULL) die("out of memory for audit lines");
    pending = grown;
    pending_capacity = capacity;
}

static void put(const char *bytes, size_t length) {
    pending_reserve(length);
    memcpy(pending + pending_length, bytes, length);
    pending_length += length;
}

static void put_text(const char *text) { put(text, strlen(text)); }

/* A client's text as a JSON string: quotes, backslashes and control bytes escaped. */
static void put_escaped(const char *text) {
    pending_reserve(2 + 6 * strlen(text));
    char *out = pending + pending_length;
    *out++ = '"';
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) {
        if (*p == '"' || *p == '\\') {
            *out++ = '\\';
            *out++ = (char)*p;
        } else if (*p < 0x20) {
            out += sprintf(out, "\\u%04x", *p);
        } else {
            *out++ = (char)*p;
        }
    }
    *out++ = '"';
    pending_length = (size_t)(out - pending);
}

/* A decimal number, without printf's format parsing (it cost 0.4 µs a line). */
static void put_decimal(long long value) {
    char digits[24];
    int n = sizeof digits;
    unsigned long long magnitude = value < 0 ? 0ULL - (unsigned long long)value : (unsigned long long)value;
    do {
        digits[--n] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude != 0);
    if (value < 0) digits[--n] = '-';
    put(digits + n, sizeof digits - (size_t)n);
}

static void put_base64url(const unsigned char *bytes, size_t length) {
    char text[64];
    sodium_bin2base64(text, sizeof text, bytes, length, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    put_text(text);
}

static enum MHD_Result put_query_entry(void *cls, enum MHD_ValueKind kind, const char *name, const char *value) {
    (void)kind;
    int *first = cls;
    put(*first ? "" : ",", *first ? 0 : 1);
    *first = 0;
    put_escaped(name);
    put(":", 1);
    if (value == NULL) value = "";
    if (strcmp(name, "returnData") == 0 && strlen(value) <= 32) { /* an option's word, in clear */
        put_escaped(value);
        return MHD_YES;
    }
    unsigned char digest[MAC_BYTES];
    crypto_generichash(digest, sizeof digest, (const unsigned char *)value, strlen(value), hash_key, sizeof hash_key);
    put("\"hmac:", 6);
    put_base64url(digest, sizeof digest);
    put("\"", 1);
    return MHD_YES;
}

/* Appends the request's line: token (or null), client, query, the ref touched (or none), the
 * OSStatus and HTTP status, prev and mac. */
static void audit_line(struct MHD_Connection *connection, int authorized, const unsigned char *ref, long osstatus,
                       unsigned int status) {
    size_t start = pending_length;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    put_text("{\"time\":");
    put_decimal((long long)now.tv_sec * 1000 + now.tv_nsec / 1000000);
    put_text(",\"request\":\"");
    put(request_prefix, 8);
    put("-", 1);
    put_decimal((long long)++request_count);
    put("\"", 1);
    if (authorized) {
        put_text(",\"token\":{\"id\":\"");
        put_text(token_id);
        put_text("\",\"name\":\"bench-reader\"}");
    } else {
        put_text(",\"token\":null");
    }
    char client[INET6_ADDRSTRLEN] = "";
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (info != NULL && info->client_addr->sa_family == AF_INET)
        inet_ntop(AF_INET, &((const struct sockaddr_in *)info->client_addr)->sin_addr, client, sizeof client);
    put_text(",\"client\":\"");
    put_text(client);
    put_text("\",\"route\":\"/v1/items\",\"operation\":\"search\",\"query\":{");
    int first = 1;
    MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, put_query_entry, &first);
    put_text("},\"refs\":[");
    if (ref != NULL) {
        put("\"", 1);
        put_base64url(ref, MAC_BYTES);
        put("\"", 1);
    }
    put_text("],\"status\":");
    put_decimal(osstatus);
    put_text(",\"httpStatus\":");
    put_decimal(status);
    put_text(",\"prev\":");
    if (chained) {
        put("\"", 1);
        put(last_mac, MAC_TEXT);
        put("\"", 1);
    } else {
        put_text("null");
    }
    unsigned char mac[MAC_BYTES];
    crypto_generichash(mac, sizeof mac, (const unsigned char *)pending + start, pending_length - start, chain_key,
                       sizeof chain_key);
    sodium_bin2base64(last_mac, sizeof last_mac, mac, sizeof mac, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
    chained = 1;
    put_text(",\"mac\":\"");
    put(last_mac, MAC_TEXT);
    put("\"}\n", 3);
    appended_bytes += pending_length - start;
}

/* Writes every line appended so far, in one write(2) when the kernel takes it whole. */
static int audit_flush(void) {
    size_t done = 0;
    while (done < pending_length) {
        ssize_t n = write(audit_fd, pending + done, pending_length - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            pending_length = 0; /* lost, as keychaind's failed lines are */
            written_bytes = appended_bytes;
            return -1;
        }
        done += (size_t)n;
    }
    written_bytes += done;
    pending_length = 0;
    return 0;
}

static void completed(void *cls, struct MHD_Connection *connection, void **request_state,
                      enum MHD_RequestTerminationCode code) {
    (void)cls; (void)connection; (void)code;
    if (audit_fd >= 0 && *request_state != NULL) {
        struct held *held = *request_state;
        sodium_memzero(held->body, sizeof held->body);
        free(held);
    }
    *request_state = NULL;
}

static enum MHD_Result answer(struct MHD_Connection *connection, unsigned int status, const char *body, size_t length) {
    struct MHD_Response *response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

/* A refusal, and its audit line in audit mode. */
static enum MHD_Result refuse(struct MHD_Connection *connection, unsigned int status, long osstatus, int authorized,
                              const char *body, size_t length) {
    if (audit_fd >= 0) audit_line(connection, authorized, NULL, osstatus, status);
    return answer(connection, status, body, length);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **request_state) {
    (void)cls; (void)method; (void)version; (void)upload_data;
    static int marker;
    if (*request_state == NULL) {
        /* first call: headers only */
        if (audit_fd < 0) {
            *request_state = &marker;
        } else if ((*request_state = calloc(1, sizeof(struct held))) == NULL) {
            return MHD_NO;
        }
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/v1/health") == 0) return answer(connection, MHD_HTTP_OK, "{}", 2); /* for the runner's start-up */

    struct held *held = audit_fd >= 0 ? *request_state : NULL;
    if (held != NULL && held->ready) { /* the next pass: the held answer, once its line is written */
        static const char unavailable[] = "{\"status\":-25308,\"message\":\"the audit log cannot be written\"}";
        if (written_bytes < held->line_end && audit_flush() != 0)
            return answer(connection, MHD_HTTP_SERVICE_UNAVAILABLE, unavailable, sizeof unavailable - 1);
        return answer(connection, held->status, held->body, held->length);
    }

    static const char unauthorized[] = "{\"status\":-25293,\"message\":\"Authorization: no valid bearer token\"}";
    const char *authorization = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (authorization == NULL || strncmp(authorization, "Bearer ", 7) != 0 || strlen(authorization + 7) > MAX_TOKEN)
        return refuse(connection, MHD_HTTP_UNAUTHORIZED, -25293, 0, unauthorized, sizeof unauthorized - 1);
    unsigned char presented[sizeof token_hash];
    crypto_generichash(presented, sizeof presented, (const unsigned char *)authorization + 7, strlen(authorization + 7),
                       token_key, sizeof token_key);
    if (sodium_memcmp(presented, token_hash, sizeof token_hash) != 0)
        return refuse(connection, MHD_HTTP_UNAUTHORIZED, -25293, 0, unauthorized, sizeof unauthorized - 1);

    static const char bad[] = "{\"status\":-50,\"message\":\"service, account: required\"}";
    const char *service = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "service");
    const char *account = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "account");
    unsigned char key[KEY_BYTES];
    if (service == NULL || account == NULL || row_key(key, service, account) != 0)
        return refuse(connection, MHD_HTTP_BAD_REQUEST, -50, 1, bad, sizeof bad - 1);

    static const char missing[] = "{\"status\":-25300,\"message\":\"no item matches the query\"}";
    static const char broken[] = "{\"status\":-26275,\"message\":\"item failed authentication\"}";
    sqlite3_bind_blob(lookup, 1, key, KEY_BYTES, SQLITE_STATIC);
    if (sqlite3_step(lookup) != SQLITE_ROW) {
        sqlite3_reset(lookup);
        return refuse(connection, MHD_HTTP_NOT_FOUND, -25300, 1, missing, sizeof missing - 1);
    }
    const unsigned char *sealed = sqlite3_column_blob(lookup, 0);
    int sealed_length = sqlite3_column_bytes(lookup, 0);
    unsigned char value[VALUE_BYTES];
    unsigned long long value_length = 0;
    int opened = sealed_length == crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + VALUE_BYTES + crypto_aead_xchacha20poly1305_ietf_ABYTES &&
                 crypto_aead_xchacha20poly1305_ietf_decrypt(
                     value, &value_length, NULL, sealed + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
                     (unsigned long long)sealed_length - crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, key, KEY_BYTES, sealed,
                     secret_key) == 0;
    sqlite3_reset(lookup);
    if (!opened) return refuse(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, -26275, 1, broken, sizeof broken - 1);

    char body[128];
    static const char head[] = "{\"items\":[{\"valueData\":\"", tail[] = "\"}]}";
    memcpy(body, head, sizeof head - 1);
    size_t length = sizeof head - 1;
    sodium_bin2base64(body + length, sizeof body - length, value, (size_t)value_length, sodium_base64_VARIANT_ORIGINAL);
    length += strlen(body + length);
    memcpy(body + length, tail, sizeof tail - 1);
    length += sizeof tail - 1;
    sodium_memzero(value, sizeof value);
    if (held == NULL) return answer(connection, MHD_HTTP_OK, body, length);
    /* The row key's first 16 bytes stand for the item's persistent ref. */
    audit_line(connection, 1, key, 0, MHD_HTTP_OK);
    memcpy(held->body, body, length);
    sodium_memzero(body, sizeof body);
    held->length = length;
    held->status = MHD_HTTP_OK;
    held->line_end = appended_bytes;
    held->ready = 1;
    return MHD_YES; /* queued on the next pass */
}

static void read_token(const char *path) {
    char token[MAX_TOKEN + 2];
    FILE *file = fopen(path, "r");
    if (file == NULL || fgets(token, sizeof token, file) == NULL) die("cannot read the token file");
    fclose(file);
    token[strcspn(token, "\r\n")] = 0;
    crypto_generichash(token_hash, sizeof token_hash, (const unsigned char *)token, strlen(token), token_key, sizeof token_key);
    sodium_memzero(token, sizeof token);
}

int main(int argc, char **argv) {
    if (argc != 5 && argc != 6) {
        fprintf(stderr, "usage: %s DATABASE N TOKEN_FILE PORT [AUDIT_LOG]\n", argv[0]);
        return 2;
    }
    if (sodium_init() < 0) die("cannot initialise libsodium");
    /* Fixed keys: the database persists between starts of one benchmark run, and is scratch. */
    memset(digest_key, 1, sizeof digest_key);
    memset(token_key, 2, sizeof token_key);
    memset(secret_key, 3, sizeof secret_key);
    read_token(argv[3]);
    if (argc == 6) {
        memset(hash_key, 4, sizeof hash_key);
        memset(chain_key, 5, sizeof chain_key);
        audit_fd = open(argv[5], O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (audit_fd < 0) die("cannot open the audit log");
        unsigned char id[8];
        memcpy(id, token_hash, sizeof id);
        memcpy(token_id, "tok_", 4);
        sodium_bin2hex(token_id + 4, sizeof token_id - 4, id, sizeof id);
        unsigned char prefix[4];
        randombytes_buf(prefix, sizeof prefix);
        sodium_bin2hex(request_prefix, sizeof request_prefix, prefix, sizeof prefix);
    }

    sigset_t stop_signals;
    sigemptyset(&stop_signals);
    sigaddset(&stop_signals, SIGTERM);
    sigaddset(&stop_signals, SIGINT);
    pthread_sigmask(SIG_BLOCK, &stop_signals, NULL);

    if (sqlite3_open(argv[1], &db) != SQLITE_OK || sqlite3_exec(db, "PRAGMA journal_mode=WAL", 0, 0, 0) != SQLITE_OK)
        die("cannot open the database");
    sqlite3_stmt *exists;
    if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master WHERE name = 'items'", -1, &exists, 0) != SQLITE_OK ||
        sqlite3_step(exists) != SQLITE_ROW)
        die("cannot read the schema");
    int has_items = sqlite3_column_int(exists, 0);
    sqlite3_finalize(exists);
    if (!has_items) populate(atol(argv[2]));
    if (sqlite3_prepare_v3(db, "SELECT sealed FROM items WHERE pk = ?", -1, SQLITE_PREPARE_PERSISTENT, &lookup, 0) != SQLITE_OK)
        die("cannot prepare the lookup");

    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[4]))};
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    struct MHD_Daemon *daemon = MHD_start_daemon(
        MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL, 0, NULL, NULL, handle, NULL,
        MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&address,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)10,
        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "same_work: cannot listen on 127.0.0.1:%s\n", argv[4]);
        return 1;
    }
    int signo;
    sigwait(&stop_signals, &signo);
    MHD_stop_daemon(daemon);
    if (audit_fd >= 0 && (audit_flush() != 0 || close(audit_fd) != 0)) die("cannot write the audit log");
    sqlite3_finalize(lookup);
    sqlite3_close(db);
    return 0;
}
