#ifndef KEYCHAIND_CLINUX_SHIM_H
#define KEYCHAIND_CLINUX_SHIM_H
#include <sys/prctl.h>

// prctl is variadic: Swift cannot call it directly.
static inline int kcd_set_not_dumpable(void) { return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0); }
#endif
