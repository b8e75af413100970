/*
 * error.h -- filling the caller's weir_error (see include/weir.h).
 *
 * Inside libweir every fallible function returns an int status (WEIR_OK or a
 * weir_error_code) and takes a `weir_error *err` that may be NULL. The first function to
 * detect a problem fills err with a message naming what and where; callers that only
 * pass a failure up return the status unchanged and leave the message alone, or prefix
 * context with wr_error_prefix() when the inner message would be ambiguous.
 */
#ifndef WEIR_UTIL_ERROR_H
#define WEIR_UTIL_ERROR_H

#include "weir.h"
#include <jansson.h>

#if defined(__GNUC__)
#define WEIR_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define WEIR_PRINTF(a, b)
#endif

/* Sets err (if not NULL) to `code` with a formatted message, dropping any previous
 * message and details. Returns `code`, so callers can write `return wr_seterr(...)`. */
int wr_seterr(weir_error *err, int code, const char *fmt, ...) WEIR_PRINTF(3, 4);

/* Appends one structured item to err->details (a JSON array). Steals `item`. */
void wr_error_add_detail(weir_error *err, json_t *item);

/* Replaces err->details with `details` (a JSON array; stolen). */
void wr_error_set_details(weir_error *err, json_t *details);

/* Where in a SQL text an engine error is: the detail {"kind": "sql_position", "message",
 * "line", "column"} the engine adds (line 1-based in the statement; column 1-based, or
 * null when the engine does not say). Layers above read the position from here, never
 * from the message's English. */
void wr_error_add_sql_position(weir_error *err, const char *message, int line, int column);
/* The line of the first sql_position detail of err, or 0 when it has none. */
int wr_error_sql_line(const weir_error *err);

/* Prepends "<prefix>: " to err->message, keeping the code and details. */
void wr_error_prefix(weir_error *err, const char *fmt, ...) WEIR_PRINTF(2, 3);

/* Moves src into dst (dst is cleared first; src is left zeroed). */
void wr_error_move(weir_error *dst, weir_error *src);

/* Out-of-memory is reported, never ignored: every allocation in libweir goes through
 * these, which abort with a message when the allocator fails (as SQLite's default
 * configuration and most storage engines do for the same reason: half-handled OOM paths
 * are where corruption comes from). */
void *wr_malloc(size_t n);
void *wr_calloc(size_t n, size_t size);
void *wr_realloc(void *p, size_t n);
char *wr_strdup(const char *s);
char *wr_strndup(const char *s, size_t n);
char *wr_asprintf(const char *fmt, ...) WEIR_PRINTF(1, 2);

#endif
