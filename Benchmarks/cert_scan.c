/*
 * Row Ic, the anchor for Id: an identity search by subject text, done by hand, without HTTP,
 * SQLite or encryption.
 *
 * Usage: cert_scan CERTIFICATES COUNT SECONDS
 *
 * CERTIFICATES holds COUNT DER certificates one after the other (certs.py write): certificate i's
 * subject is CN=host-<i:05>.example.com, O=Bench. Each search looks for the text
 * "host-<i:05>.example" as keychaind's matchSubjectContains does: it walks the certificates
 * in order, parses each one's DER with d2i_X509 and reads each of its subject's entries as UTF-8
 * (X509_NAME_entry_count, X509_NAME_get_entry, ASN1_STRING_to_UTF8) with strstr, and stops at the
 * first certificate that matches, as keychaind's search does with its default matchLimit (one).
 * A search that finds another certificate than i, or none, stops the program with status 1.
 * Searches run for SECONDS. The wanted i starts at random and steps by about 0.618 COUNT modulo
 * COUNT (a stride prime to COUNT), as cert_search.lua (row Id) does: a search costs in proportion
 * to i, and this spreads any few searches evenly over the certificates.
 * Prints one line: "<searches> <seconds> <searches per second> <CPU seconds used> <certificates parsed>".
 */
#include <openssl/asn1.h>
#include <openssl/x509.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

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

/* Whether one of the subject's values, as UTF-8, contains `wanted`. */
static int subject_contains(X509 *certificate, const char *wanted) {
    X509_NAME *subject = X509_get_subject_name(certificate);
    int count = X509_NAME_entry_count(subject);
    for (int i = 0; i < count; i++) {
        unsigned char *text = NULL;
        int length = ASN1_STRING_to_UTF8(&text, X509_NAME_ENTRY_get_data(X509_NAME_get_entry(subject, i)));
        if (length < 0) continue;
        int found = strstr((const char *)text, wanted) != NULL;
        OPENSSL_free(text);
        if (found) return 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s CERTIFICATES COUNT SECONDS\n", argv[0]);
        return 2;
    }
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
        for (long i = 0; i < count && found < 0; i++) {
            const unsigned char *p = ders[i];
            X509 *certificate = d2i_X509(NULL, &p, lengths[i]);
            parsed++;
            if (certificate == NULL) continue;  /* as keychaind skips a DER it cannot parse */
            if (subject_contains(certificate, wanted)) found = i;
            X509_free(certificate);
        }
        if (found != target) {
            fprintf(stderr, "cert_scan: the search for %s found certificate %ld\n", wanted, found);
            return 1;
        }
        searches++;
        target = (target + stride) % count;
        elapsed = now() - start;
    }
    printf("%ld %.3f %.4f %.3f %ld\n", searches, elapsed, (double)searches / elapsed, cpu_seconds() - cpu_start, parsed);
    free(lengths);
    free(ders);
    free(bytes);
    return 0;
}
