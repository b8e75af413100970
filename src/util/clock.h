/*
 * clock.h -- wall-clock and monotonic time, and ISO 8601 rendering (UTC).
 */
#ifndef WEIR_UTIL_CLOCK_H
#define WEIR_UTIL_CLOCK_H

#include <stdint.h>

/* Microseconds since the Unix epoch, UTC. */
int64_t wr_now_us(void);
/* Monotonic microseconds, for durations. */
int64_t wr_mono_us(void);
/* "2026-11-30T12:34:56.123456Z" into out (at least 32 bytes). */
void wr_format_time_us(int64_t us, char *out, unsigned size);

#endif
