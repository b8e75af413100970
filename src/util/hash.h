/*
 * hash.h -- SHA-256 (OpenSSL), the hash of commits and catalog tree nodes.
 */
#ifndef WEIR_UTIL_HASH_H
#define WEIR_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>

#define WEIR_SHA256_LEN 32
#define WEIR_SHA256_HEX_LEN 64

/* out: 32 raw bytes. */
void wr_sha256(const void *data, size_t len, uint8_t out[WEIR_SHA256_LEN]);
/* out: 64 lowercase hex digits + NUL. */
void wr_sha256_hex(const void *data, size_t len, char out[WEIR_SHA256_HEX_LEN + 1]);
/* Lowercase hex of `len` bytes into out (2*len+1 bytes). */
void wr_hex_encode(const uint8_t *bytes, size_t len, char *out);
/* True if s is exactly `n` lowercase-or-uppercase hex digits. */
int wr_is_hex(const char *s, size_t n);

#endif
