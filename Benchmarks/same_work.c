/*
 * H: B's work, written by hand in C: the anchor keychaind's GET is compared with (issue 13).
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
 * Usage: same_work DATABASE N TOKEN_FILE PORT
 *   Creates DATABASE with items svc-i/acct-i for i in [0, N) (each a 32-byte value naming i, as
 *   items.py adds them) when it has none, then listens on 127.0.0.1:PORT until SIGTERM or SIGINT.
 */
#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned char digest_key[crypto_generichash_KEYBYTES];
static unsigned char token_key[crypto_generichash_KEYBYTES];
static unsigned char secret_key[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
static unsigned char token_hash[32];
static sqlite3 *db;
static sqlite3_stmt *lookup; /* used by the one polling thread only */

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

static enum MHD_Result answer(struct MHD_Connection *connection, unsigned int status, const char *body, size_t length) {
    struct MHD_Response *response = MHD_create_response_from_buffer(length, (void *)body, MHD_RESPMEM_MUST_COPY);
    MHD_add_response_header(response, "Content-Type", "application/json");
    enum MHD_Result queued = MHD_queue_response(connection, status, response);
    MHD_destroy_response(response);
    return queued;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *connection, const char *url, const char *method,
                              const char *version, const char *upload_data, size_t *upload_data_size,
                              void **request_state) {
    (void)cls; (void)method; (void)version; (void)upload_data;
    static int marker;
    if (*request_state == NULL) {
        *request_state = &marker; /* first call: headers only */
        return MHD_YES;
    }
    if (*upload_data_size != 0) {
        *upload_data_size = 0;
        return MHD_YES;
    }
    if (strcmp(url, "/v1/health") == 0) return answer(connection, MHD_HTTP_OK, "{}", 2); /* for the runner's start-up */

    static const char unauthorized[] = "{\"status\":-25293,\"message\":\"Authorization: no valid bearer token\"}";
    const char *authorization = MHD_lookup_connection_value(connection, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (authorization == NULL || strncmp(authorization, "Bearer ", 7) != 0 || strlen(authorization + 7) > MAX_TOKEN)
        return answer(connection, MHD_HTTP_UNAUTHORIZED, unauthorized, sizeof unauthorized - 1);
    unsigned char presented[sizeof token_hash];
    crypto_generichash(presented, sizeof presented, (const unsigned char *)authorization + 7, strlen(authorization + 7),
                       token_key, sizeof token_key);
    if (sodium_memcmp(presented, token_hash, sizeof token_hash) != 0)
        return answer(connection, MHD_HTTP_UNAUTHORIZED, unauthorized, sizeof unauthorized - 1);

    static const char bad[] = "{\"status\":-50,\"message\":\"service, account: required\"}";
    const char *service = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "service");
    const char *account = MHD_lookup_connection_value(connection, MHD_GET_ARGUMENT_KIND, "account");
    unsigned char key[KEY_BYTES];
    if (service == NULL || account == NULL || row_key(key, service, account) != 0)
        return answer(connection, MHD_HTTP_BAD_REQUEST, bad, sizeof bad - 1);

    static const char missing[] = "{\"status\":-25300,\"message\":\"no item matches the query\"}";
    static const char broken[] = "{\"status\":-26275,\"message\":\"item failed authentication\"}";
    sqlite3_bind_blob(lookup, 1, key, KEY_BYTES, SQLITE_STATIC);
    if (sqlite3_step(lookup) != SQLITE_ROW) {
        sqlite3_reset(lookup);
        return answer(connection, MHD_HTTP_NOT_FOUND, missing, sizeof missing - 1);
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
    if (!opened) return answer(connection, MHD_HTTP_INTERNAL_SERVER_ERROR, broken, sizeof broken - 1);

    char body[128];
    static const char head[] = "{\"items\":[{\"valueData\":\"", tail[] = "\"}]}";
    memcpy(body, head, sizeof head - 1);
    size_t length = sizeof head - 1;
    sodium_bin2base64(body + length, sizeof body - length, value, (size_t)value_length, sodium_base64_VARIANT_ORIGINAL);
    length += strlen(body + length);
    memcpy(body + length, tail, sizeof tail - 1);
    length += sizeof tail - 1;
    sodium_memzero(value, sizeof value);
    return answer(connection, MHD_HTTP_OK, body, length);
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
    if (argc != 5) {
        fprintf(stderr, "usage: %s DATABASE N TOKEN_FILE PORT\n", argv[0]);
        return 2;
    }
    if (sodium_init() < 0) die("cannot initialise libsodium");
    /* Fixed keys: the database persists between starts of one benchmark run, and is scratch. */
    memset(digest_key, 1, sizeof digest_key);
    memset(token_key, 2, sizeof token_key);
    memset(secret_key, 3, sizeof secret_key);
    read_token(argv[3]);

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
        MHD_OPTION_END);
    if (daemon == NULL) {
        fprintf(stderr, "same_work: cannot listen on 127.0.0.1:%s\n", argv[4]);
        return 1;
    }
    int signo;
    sigwait(&stop_signals, &signo);
    MHD_stop_daemon(daemon);
    sqlite3_finalize(lookup);
    sqlite3_close(db);
    return 0;
}
