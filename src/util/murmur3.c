/*
 * murmur3.c -- the 32-bit Murmur3 hash (x86 variant, seed 0) that Iceberg's bucket
 * transform requires (spec, Appendix B), and the per-type hashes it applies. Here in util
 * because both the Iceberg module (pruning) and the SQL engine (the weir_bucket function
 * that computes partitions while writing) use it.
 */
#include "util/murmur3.h"

#include <limits.h>
#include <stdbool.h>
#include <string.h>

static uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }

uint32_t wr_murmur3_32(const void *data, size_t len, uint32_t seed) {
  const uint8_t *p = data;
  const uint32_t c1 = 0xcc9e2d51, c2 = 0x1b873593;
  uint32_t h = seed;
  size_t nblocks = len / 4;
  for (size_t i = 0; i < nblocks; i++) {
    uint32_t k = (uint32_t)p[4 * i] | (uint32_t)p[4 * i + 1] << 8 | (uint32_t)p[4 * i + 2] << 16 |
                 (uint32_t)p[4 * i + 3] << 24;
    k *= c1;
    k = rotl32(k, 15);
    k *= c2;
    h ^= k;
    h = rotl32(h, 13);
    h = h * 5 + 0xe6546b64;
  }
  const uint8_t *tail = p + nblocks * 4;
  uint32_t k = 0;
  switch (len & 3) {
    case 3: k ^= (uint32_t)tail[2] << 16; /* fall through */
    case 2: k ^= (uint32_t)tail[1] << 8;  /* fall through */
    case 1:
      k ^= tail[0];
      k *= c1;
      k = rotl32(k, 15);
      k *= c2;
      h ^= k;
  }
  h ^= (uint32_t)len;
  h ^= h >> 16;
  h *= 0x85ebca6b;
  h ^= h >> 13;
  h *= 0xc2b2ae35;
  h ^= h >> 16;
  return h;
}

int32_t wr_bucket_hash_long(int64_t v) {
  uint8_t b[8];
  uint64_t u = (uint64_t)v;
  for (int i = 0; i < 8; i++) b[i] = (uint8_t)(u >> (8 * i));
  return (int32_t)wr_murmur3_32(b, 8, 0);
}

int32_t wr_bucket_hash_bytes(const void *data, size_t len) { return (int32_t)wr_murmur3_32(data, len, 0); }

int32_t wr_bucket_hash_decimal(__int128 unscaled) {
  /* The minimum number of bytes of the two's-complement big-endian form (as Java's
   * BigInteger.toByteArray): drop leading bytes that only repeat the sign. */
  uint8_t be[16];
  unsigned __int128 u = (unsigned __int128)unscaled;
  for (int i = 0; i < 16; i++) be[15 - i] = (uint8_t)(u >> (8 * i));
  size_t start = 0;
  while (start < 15) {
    bool neg = be[start] == 0xff && (be[start + 1] & 0x80);
    bool pos = be[start] == 0x00 && !(be[start + 1] & 0x80);
    if (!neg && !pos) break;
    start++;
  }
  return (int32_t)wr_murmur3_32(be + start, 16 - start, 0);
}

int32_t wr_bucket_of_hash(int32_t hash, int32_t n) { return (int32_t)(((uint32_t)hash & INT32_MAX) % (uint32_t)n); }

