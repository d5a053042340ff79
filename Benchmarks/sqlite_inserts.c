/*
 * The raw rate of durable single-row inserts into SQLite, for comparison with keychaind's adds.
 *
 * Usage: sqlite_inserts DATABASE SECONDS
 *
 * Settings as keychaind's store uses them: journal_mode=WAL, synchronous=FULL. Every insert is
 * its own transaction (autocommit), so every insert waits for an fsync of the WAL. Each row has
 * a 32-byte unique key and a 200-byte value, about the size of a keychaind item row.
 * Prints one line: "<inserts> <seconds> <inserts per second> <CPU seconds used>".
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

static void check(int rc, sqlite3 *db, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "sqlite_inserts: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

static double cpu_seconds(void) {
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return (double)(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
           + (double)(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s DATABASE SECONDS\n", argv[0]);
        return 2;
    }
    double seconds = atof(argv[2]);
    sqlite3 *db;
    check(sqlite3_open(argv[1], &db), db, "open");
    check(sqlite3_exec(db,
                       "PRAGMA journal_mode=WAL;"
                       "PRAGMA synchronous=FULL;"
                       "CREATE TABLE IF NOT EXISTS rows (id INTEGER PRIMARY KEY, k BLOB NOT NULL UNIQUE, v BLOB NOT NULL);",
                       NULL, NULL, NULL),
          db, "setup");
    sqlite3_stmt *insert;
    check(sqlite3_prepare_v2(db, "INSERT INTO rows (k, v) VALUES (?, ?)", -1, &insert, NULL), db, "prepare");

    unsigned char key[32], value[200];
    memset(value, 0x5a, sizeof value);
    srand((unsigned)time(NULL));
    long count = 0;
    double start = now(), elapsed = 0, cpu_start = cpu_seconds();
    while (elapsed < seconds) {
        for (size_t i = 0; i < sizeof key; i++) key[i] = (unsigned char)rand();
        sqlite3_bind_blob(insert, 1, key, sizeof key, SQLITE_STATIC);
        sqlite3_bind_blob(insert, 2, value, sizeof value, SQLITE_STATIC);
        check(sqlite3_step(insert), db, "insert");
        sqlite3_reset(insert);
        count++;
        elapsed = now() - start;
    }
    printf("%ld %.3f %.1f %.3f\n", count, elapsed, (double)count / elapsed, cpu_seconds() - cpu_start);
    sqlite3_finalize(insert);
    sqlite3_close(db);
    return 0;
}
