/*
 * uuid.h -- random (version 4) UUIDs for file names, table UUIDs and run ids.
 */
#ifndef WEIR_UTIL_UUID_H
#define WEIR_UTIL_UUID_H

#include <stdint.h>

#define WEIR_UUID_STR_LEN 36
/* "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" + NUL into out (37 bytes). */
void wr_uuid4(char out[WEIR_UUID_STR_LEN + 1]);
/* A random positive 63-bit integer (Iceberg snapshot ids). */
int64_t wr_random_i63(void);
/* n random bytes from the OS CSPRNG (via OpenSSL). */
void wr_random_bytes(void *out, int n);

#endif
