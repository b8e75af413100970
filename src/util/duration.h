/*
 * duration.h -- parsing a duration ("90 seconds", "30 minutes", "1 hour", "2 days",
 * "1 week"; units s, m, h, d, w and their words, singular or plural, any case).
 */
#ifndef WEIR_UTIL_DURATION_H
#define WEIR_UTIL_DURATION_H

#include <stdint.h>

#include "util/error.h"

/* *seconds = the duration `text` names. Errors: WEIR_EINVALIDARG, the message starting
 * with `what` and quoting text (not a positive whole number and a known unit, or more
 * seconds than fit in int64 microseconds). */
int wr_duration_parse(const char *text, const char *what, int64_t *seconds, weir_error *err);

#endif
