#ifndef KEYCHAIND_CSODIUM_SHIM_H
#define KEYCHAIND_CSODIUM_SHIM_H
#include <string.h>
#include <sodium.h>

/* A keyed BLAKE2b state whose key block is already compressed, for digests started from a copy
 * of it (KeyedDigest).
 *
 * crypto_generichash_init puts the key, padded to a block, in the state's buffer, and BLAKE2b
 * compresses a block only once more input follows it (it must know which block is the last).
 * So every digest started from a copy of the keyed state compresses the key block again: one of
 * the two compressions of a short value's digest, about 600 instructions. This compresses it
 * once. 129 bytes more make the key block not the last: update compresses it and keeps the 129
 * in the buffer, whose count is then set back to 0.
 *
 * That count's place (offset 352: h[8], t[2], f[2], buf[256], then buflen) is libsodium's
 * blake2b_state, not its API. So it is checked first (it must read 129), and the state is then
 * checked against crypto_generichash over messages of 1 to 300 bytes. On any difference the
 * state is made again the plain keyed one, and -1 is returned: digests are then as before, one
 * compression slower. 0 when the key block is compressed.
 *
 * A digest from such a state must take at least one byte of input (KeyedDigest's parts always
 * begin with a 4-byte length): for the empty message the key block itself is the last block.
 */
static inline int kcd_generichash_init_key_compressed(crypto_generichash_state *state, const unsigned char *key,
                                                      size_t keylen, size_t outlen) {
    static const unsigned char zeros[129];
    static const size_t buflen_offset = 8 * 8 + 2 * 8 + 2 * 8 + 2 * 128;
    static const size_t lengths[] = {1, 4, 127, 128, 129, 255, 256, 257, 300};
    unsigned char *raw = (unsigned char *)state;
    size_t buflen;
    int ok;

    if (crypto_generichash_init(state, key, keylen, outlen) != 0) return -1;
    if (sizeof(crypto_generichash_state) < buflen_offset + sizeof buflen ||
        crypto_generichash_update(state, zeros, sizeof zeros) != 0)
        goto plain;
    memcpy(&buflen, raw + buflen_offset, sizeof buflen);
    if (buflen != sizeof zeros) goto plain;
    sodium_memzero(raw + buflen_offset - 2 * 128, 2 * 128);
    buflen = 0;
    memcpy(raw + buflen_offset, &buflen, sizeof buflen);

    ok = 1;
    for (size_t n = 0; ok && n < sizeof lengths / sizeof lengths[0]; n++) {
        unsigned char message[300], expected[crypto_generichash_BYTES_MAX], got[crypto_generichash_BYTES_MAX];
        crypto_generichash_state copy;
        for (size_t i = 0; i < lengths[n]; i++) message[i] = (unsigned char)(i * 7 + n);
        memcpy(&copy, state, sizeof copy);
        ok = crypto_generichash(expected, outlen, message, lengths[n], key, keylen) == 0 &&
             crypto_generichash_update(&copy, message, lengths[n]) == 0 &&
             crypto_generichash_final(&copy, got, outlen) == 0 && sodium_memcmp(expected, got, outlen) == 0;
        sodium_memzero(&copy, sizeof copy);
        sodium_memzero(expected, sizeof expected);
        sodium_memzero(got, sizeof got);
    }
    if (ok) return 0;
plain:
    crypto_generichash_init(state, key, keylen, outlen);
    return -1;
}
#endif
