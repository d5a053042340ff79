#ifndef KEYCHAIND_CSQLITE_SHIM_H
#define KEYCHAIND_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT is a macro casting -1 to a function pointer, which Swift cannot import.
static inline sqlite3_destructor_type kcd_sqlite_transient(void) { return SQLITE_TRANSIENT; }
#endif
