/*
 * hash.c -- SHA-256 through OpenSSL's EVP interface (hardware-accelerated where the CPU
 * has SHA extensions).
 */
#include "util/hash.h"

#include <ctype.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>

void wr_sha256(const void *data, size_t len, uint8_t out[WEIR_SHA256_LEN]) {
  unsigned int n = 0;
  if (!EVP_Digest(data, len, out, &n, EVP_sha256(), NULL) || n != WEIR_SHA256_LEN) {
    fprintf(stderr, "error: OpenSSL SHA-256 failed\n");
    abort();
  }
}

void wr_hex_encode(const uint8_t *bytes, size_t len, char *out) {
  static const char digits[] = "0123456789abcdef";
  for (size_t i = 0; i < len; i++) {
    out[2 * i] = digits[bytes[i] >> 4];
    out[2 * i + 1] = digits[bytes[i] & 15];
  }
  out[2 * len] = 0;
}

void wr_sha256_hex(const void *data, size_t len, char out[WEIR_SHA256_HEX_LEN + 1]) {
  uint8_t raw[WEIR_SHA256_LEN];
  wr_sha256(data, len, raw);
  wr_hex_encode(raw, sizeof raw, out);
}

int wr_is_hex(const char *s, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!s[i] || !isxdigit((unsigned char)s[i])) return 0;
  return s[n] == 0;
}
