/*
 * Row Ic, the anchor for Id: an identity search by subject text, keychaind's work done by hand in
 * C, without HTTP, JSON or Swift.
 *
 * Usage: cert_scan CERTIFICATES COUNT SECONDS DATABASE
 *
 * CERTIFICATES holds COUNT DER certificates one after the other (certs.py write): certificate i's
 * subject is CN=host-<i:05>.example.com, O=Bench. First, DATABASE (a new SQLite file, WAL,
 * synchronous=FULL, as keychaind's) gets one row per certificate, its DER sealed with
 * XChaCha20-Poly1305 under a random key (a random 24-byte nonce before the ciphertext), as
 * keychaind seals a certificate. Then each search looks for the text "host-<i:05>.example" as
 * keychaind's matchSubjectContains does: it reads the rows in id order through one prepared
 * statement (SQLite's default page cache, as keychaind's connection), opens each DER, walks it to
 * its subject (TBSCertificate: version, serial, signature, issuer, validity, subject) and looks
 * for the text in each entry's value with memmem (every value here is ASCII, so its bytes are its
 * UTF-8), and stops at the first certificate that matches, as keychaind's search does with its
 * default matchLimit (one). keychaind walks the DER the same way
 * (Certificate.subjectValues(ofDER:)) rather than parse the whole certificate with d2i_X509,
 * which costs 150-200 us a certificate with OpenSSL 3.
 * A search that finds another certificate than i, or none, stops the program with status 1.
 * Searches run for SECONDS. The wanted i starts at random and steps by about 0.618 COUNT modulo
 * COUNT (a stride prime to COUNT), as cert_search.lua (row Id) does: a search costs in proportion
 * to i, and this spreads any few searches evenly over the certificates.
 * Prints one line: "<searches> <seconds> <searches per second> <CPU seconds used> <certificates parsed>".
 */
#define _GNU_SOURCE /* memmem */
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static long gcd(long a, long b) {
    while (b != 0) {
        long r = a % b;
        a = b;
        b = r;
    }
    return a;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The length of the DER element at `p` (header included), or 0 when it does not fit in `left`. */
static size_t element_length(const unsigned char *p, size_t left) {
    if (left < 2) return 0;
    size_t length = p[1], header = 2;
    if (length & 0x80) {
        size_t count = length & 0x7f;
        if (count == 0 || count > 4 || left < 2 + count) return 0;
        length = 0;
        for (size_t i = 0; i < count; i++) length = length << 8 | p[2 + i];
        header += count;
    }
    return header + length <= left ? header + length : 0;
}

/* The DER element at `p` within `left` bytes: its tag, content and the byte past it; 0 when malformed. */
struct element {
    unsigned char tag;
    const unsigned char *content;
    size_t length;
    const unsigned char *end;
};

static int element_at(const unsigned char *p, size_t left, struct element *out) {
    size_t total = element_length(p, left);
    if (total == 0) return 0;
    size_t header = (p[1] & 0x80) ? 2 + (p[1] & 0x7f) : 2;
    out->tag = p[0];
    out->content = p + header;
    out->length = total - header;
    out->end = p + total;
    return 1;
}

/* Whether one of the subject's values contains `wanted`; -1 when the DER is malformed. */
static int subject_contains(const unsigned char *der, size_t length, const char *wanted) {
    struct element certificate, tbs, field;
    size_t wanted_length = strlen(wanted);
    if (!element_at(der, length, &certificate) || certificate.tag != 0x30) return -1;
    if (!element_at(certificate.content, certificate.length, &tbs) || tbs.tag != 0x30) return -1;
    const unsigned char *p = tbs.content, *end = tbs.content + tbs.length;
    int position = 0;
    while (p < end) {
        if (!element_at(p, (size_t)(end - p), &field)) return -1;
        p = field.end;
        if (position == 0 && field.tag == 0xa0) continue; /* [0] version */
        if (position++ < 4) continue;                     /* serial, signature, issuer, validity */
        const unsigned char *rdn_p = field.content, *rdn_end = field.content + field.length;
        while (rdn_p < rdn_end) {
            struct element rdn, atv, type, value;
            if (!element_at(rdn_p, (size_t)(rdn_end - rdn_p), &rdn) || rdn.tag != 0x31) return -1;
            const unsigned char *atv_p = rdn.content, *atv_end = rdn.content + rdn.length;
            while (atv_p < atv_end) {
                if (!element_at(atv_p, (size_t)(atv_end - atv_p), &atv) || atv.tag != 0x30) return -1;
                if (!element_at(atv.content, atv.length, &type) || type.tag != 0x06) return -1;
                if (!element_at(type.end, (size_t)(atv.end - type.end), &value)) return -1;
                if (memmem(value.content, value.length, wanted, wanted_length) != NULL) return 1;
                atv_p = atv.end;
            }
            rdn_p = rdn.end;
        }
        return 0;
    }
    return -1;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s CERTIFICATES COUNT SECONDS DATABASE\n", argv[0]);
        return 2;
    }
    if (sodium_init() < 0) return 1;
    long count = atol(argv[2]);
    double seconds = atof(argv[3]);
    FILE *file = fopen(argv[1], "rb");
    if (file == NULL || count <= 0) {
        perror("cert_scan: CERTIFICATES");
        return 2;
    }
    fseek(file, 0, SEEK_END);
    size_t size = (size_t)ftell(file);
    rewind(file);
    unsigned char *bytes = malloc(size);
    const unsigned char **ders = malloc(sizeof *ders * (size_t)count);
    long *lengths = malloc(sizeof *lengths * (size_t)count);
    if (bytes == NULL || ders == NULL || lengths == NULL || fread(bytes, 1, size, file) != size) {
        fprintf(stderr, "cert_scan: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(file);
    size_t offset = 0;
    for (long i = 0; i < count; i++) {
        size_t length = element_length(bytes + offset, size - offset);
        if (length == 0) {
            fprintf(stderr, "cert_scan: certificate %ld is not a DER element\n", i);
            return 1;
        }
        ders[i] = bytes + offset;
        lengths[i] = (long)length;
        offset += length;
    }
    if (offset != size) {
        fprintf(stderr, "cert_scan: %zu bytes after %ld certificates\n", size - offset, count);
        return 1;
    }

    /* The rows, sealed as keychaind seals a certificate, in one transaction. */
    sqlite3 *db;
    sqlite3_stmt *insert, *scan;
    unsigned char key[crypto_aead_xchacha20poly1305_ietf_KEYBYTES];
    crypto_aead_xchacha20poly1305_ietf_keygen(key);
    unlink(argv[4]);
    if (sqlite3_open(argv[4], &db) != SQLITE_OK
        || sqlite3_exec(db, "PRAGMA journal_mode=WAL; PRAGMA synchronous=FULL;"
                            "CREATE TABLE certs (id INTEGER PRIMARY KEY, sealed BLOB NOT NULL); BEGIN",
                        NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_prepare_v2(db, "INSERT INTO certs (id, sealed) VALUES (?, ?)", -1, &insert, NULL) != SQLITE_OK) {
        fprintf(stderr, "cert_scan: %s\n", sqlite3_errmsg(db));
        return 1;
    }
    size_t overhead = crypto_aead_xchacha20poly1305_ietf_NPUBBYTES + crypto_aead_xchacha20poly1305_ietf_ABYTES;
    unsigned char *sealed = malloc(65536 + overhead), *opened = malloc(65536);
    for (long i = 0; i < count; i++) {
        unsigned long long sealed_length;
        randombytes_buf(sealed, crypto_aead_xchacha20poly1305_ietf_NPUBBYTES);
        crypto_aead_xchacha20poly1305_ietf_encrypt(sealed + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, &sealed_length,
                                                   ders[i], (unsigned long long)lengths[i], NULL, 0, NULL, sealed, key);
        sqlite3_bind_int64(insert, 1, i + 1);
        sqlite3_bind_blob(insert, 2, sealed, (int)(sealed_length + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES), SQLITE_TRANSIENT);
        if (sqlite3_step(insert) != SQLITE_DONE) {
            fprintf(stderr, "cert_scan: %s\n", sqlite3_errmsg(db));
            return 1;
        }
        sqlite3_reset(insert);
    }
    sqlite3_finalize(insert);
    if (sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK
        || sqlite3_prepare_v2(db, "SELECT id, sealed FROM certs ORDER BY id", -1, &scan, NULL) != SQLITE_OK) {
        fprintf(stderr, "cert_scan: %s\n", sqlite3_errmsg(db));
        return 1;
    }

    srand((unsigned)time(NULL));
    long target = (long)((double)rand() / ((double)RAND_MAX + 1) * (double)count);
    long stride = (long)(0.6180339887 * (double)count + 0.5);
    if (stride < 1) stride = 1;
    while (gcd(stride, count) != 1) stride++;
    long searches = 0, parsed = 0;
    double start = now(), elapsed = 0, cpu_start = cpu_seconds();
    char wanted[32];
    while (elapsed < seconds) {
        snprintf(wanted, sizeof wanted, "host-%05ld.example", target);
        long found = -1;
        while (found < 0 && sqlite3_step(scan) == SQLITE_ROW) {
            const unsigned char *row = sqlite3_column_blob(scan, 1);
            int row_length = sqlite3_column_bytes(scan, 1);
            unsigned long long opened_length;
            if (row_length < (int)overhead
                || crypto_aead_xchacha20poly1305_ietf_decrypt(
                       opened, &opened_length, NULL, row + crypto_aead_xchacha20poly1305_ietf_NPUBBYTES,
                       (unsigned long long)row_length - crypto_aead_xchacha20poly1305_ietf_NPUBBYTES, NULL, 0, row, key) != 0) {
                fprintf(stderr, "cert_scan: a row failed authentication\n");
                return 1;
            }
            parsed++;
            /* A DER it cannot walk is skipped, as keychaind skips one. */
            if (subject_contains(opened, (size_t)opened_length, wanted) == 1) found = sqlite3_column_int64(scan, 0) - 1;
        }
        sqlite3_reset(scan);
        if (found != target) {
            fprintf(stderr, "cert_scan: the search for %s found certificate %ld\n", wanted, found);
            return 1;
        }
        searches++;
        target = (target + stride) % count;
        elapsed = now() - start;
    }
    printf("%ld %.3f %.4f %.3f %ld\n", searches, elapsed, (double)searches / elapsed, cpu_seconds() - cpu_start, parsed);
    sqlite3_finalize(scan);
    sqlite3_close(db);
    unlink(argv[4]);
    free(sealed);
    free(opened);
    free(lengths);
    free(ders);
    free(bytes);
    return 0;
}
