/*
 * murmur3.h -- Murmur3 x86 32-bit and the hashes of Iceberg's bucket[N] transform.
 */
#ifndef WEIR_UTIL_MURMUR3_H
#define WEIR_UTIL_MURMUR3_H

#include <stddef.h>
#include <stdint.h>

/* Murmur3 x86 32-bit of `len` bytes with `seed` (Iceberg uses 0). Thread-safe. */
uint32_t wr_murmur3_32(const void *data, size_t len, uint32_t seed);
/* The bucket hashes of the spec: a long as its 8 little-endian bytes (ints, dates as
 * days, timestamps as micros hash as longs), bytes (UTF-8 strings, binary), a decimal's
 * unscaled value as its minimal big-endian two's-complement bytes. */
int32_t wr_bucket_hash_long(int64_t v);
int32_t wr_bucket_hash_bytes(const void *data, size_t len);
int32_t wr_bucket_hash_decimal(__int128 unscaled);
/* The bucket of a hash: (hash & INT32_MAX) % n, n > 0. */
int32_t wr_bucket_of_hash(int32_t hash, int32_t n);

#endif
