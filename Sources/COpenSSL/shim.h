#ifndef KEYCHAIND_COPENSSL_SHIM_H
#define KEYCHAIND_COPENSSL_SHIM_H
#include <openssl/asn1.h>
#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/objects.h>
#include <openssl/pkcs12.h>
#include <openssl/provider.h>
#include <openssl/sha.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

/* STACK_OF(OPENSSL_STRING)'s accessors are macros over inline functions, which Swift does not
   import: one wrapper each for the stack X509_get1_email returns. */
static inline int keychaind_string_stack_count(STACK_OF(OPENSSL_STRING) *stack) {
    return sk_OPENSSL_STRING_num(stack);
}
static inline const char *keychaind_string_stack_value(STACK_OF(OPENSSL_STRING) *stack, int index) {
    return sk_OPENSSL_STRING_value(stack, index);
}
#endif
