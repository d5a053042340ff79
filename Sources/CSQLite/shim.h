#ifndef KEYCHAIND_CSQLITE_SHIM_H
#define KEYCHAIND_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type kcd_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic. Memory statistics make every sqlite3_malloc and sqlite3_free
// take a global mutex; keychaind never reads them. Effective only before SQLite initialises
// (the first open); later it returns SQLITE_MISUSE and changes nothing.
static inline int kcd_sqlite_disable_memstatus(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
#endif
