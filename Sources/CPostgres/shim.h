#ifndef KEYCHAIND_CPOSTGRES_SHIM_H
#define KEYCHAIND_CPOSTGRES_SHIM_H
#include <libpq-fe.h>
#endif
