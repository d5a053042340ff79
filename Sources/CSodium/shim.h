#ifndef KEYCHAIND_CSODIUM_SHIM_H
#define KEYCHAIND_CSODIUM_SHIM_H
#include <sodium.h>
#endif
