/*
 * uuid.c -- randomness from OpenSSL's CSPRNG, which is seeded from the OS and safe to use
 * after fork (unlike rand()), so concurrent processes never draw the same file name.
 */
#include "util/uuid.h"

#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>

void wr_random_bytes(void *out, int n) {
  if (RAND_bytes(out, n) != 1) {
    fprintf(stderr, "error: the system random number generator failed\n");
    abort();
  }
}

void wr_uuid4(char out[WEIR_UUID_STR_LEN + 1]) {
  uint8_t b[16];
  wr_random_bytes(b, sizeof b);
  b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
  b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
  snprintf(out, WEIR_UUID_STR_LEN + 1,
           "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
           b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
           b[15]);
}

int64_t wr_random_i63(void) {
  uint64_t v = 0;
  while (v == 0) {
    wr_random_bytes(&v, sizeof v);
    v &= 0x7fffffffffffffffULL;
  }
  return (int64_t)v;
}
