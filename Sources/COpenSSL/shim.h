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

/* STACK_OF(X509), STACK_OF(PKCS7) and STACK_OF(PKCS12_SAFEBAG) likewise: what PKCS #12 files
   are read into (PKCS12_unpack_authsafes, PKCS12_unpack_p7data) and made from (PKCS12_create's
   chain). The X509 stack made here does not own its certificates: it is freed with sk_X509_free. */
static inline STACK_OF(X509) *keychaind_x509_stack_new(void) { return sk_X509_new_null(); }
static inline int keychaind_x509_stack_push(STACK_OF(X509) *stack, X509 *certificate) {
    return sk_X509_push(stack, certificate);
}
static inline void keychaind_x509_stack_free(STACK_OF(X509) *stack) { sk_X509_free(stack); }
static inline int keychaind_pkcs7_stack_count(STACK_OF(PKCS7) *stack) { return sk_PKCS7_num(stack); }
static inline PKCS7 *keychaind_pkcs7_stack_value(STACK_OF(PKCS7) *stack, int index) {
    return sk_PKCS7_value(stack, index);
}
static inline void keychaind_pkcs7_stack_free(STACK_OF(PKCS7) *stack) { sk_PKCS7_pop_free(stack, PKCS7_free); }
static inline int keychaind_safebag_stack_count(const STACK_OF(PKCS12_SAFEBAG) *stack) {
    return sk_PKCS12_SAFEBAG_num(stack);
}
static inline const PKCS12_SAFEBAG *keychaind_safebag_stack_value(const STACK_OF(PKCS12_SAFEBAG) *stack, int index) {
    return sk_PKCS12_SAFEBAG_value(stack, index);
}
static inline void keychaind_safebag_stack_free(STACK_OF(PKCS12_SAFEBAG) *stack) {
    sk_PKCS12_SAFEBAG_pop_free(stack, PKCS12_SAFEBAG_free);
}

/* PKCS7_type_is_data and PKCS7_type_is_encrypted are macros over the content type: its NID. */
static inline int keychaind_pkcs7_type(const PKCS7 *p7) { return OBJ_obj2nid(p7->type); }
/* An EncryptedData's content-encryption algorithm (the password-based scheme and its
   iteration count), read before PKCS12_unpack_p7encdata decrypts it; NULL when absent. */
static inline const X509_ALGOR *keychaind_pkcs7_encryption_algorithm(const PKCS7 *p7) {
    if (OBJ_obj2nid(p7->type) != NID_pkcs7_encrypted || p7->d.encrypted == NULL || p7->d.encrypted->enc_data == NULL) {
        return NULL;
    }
    return p7->d.encrypted->enc_data->algorithm;
}
#endif
