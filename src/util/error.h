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

/* Out of memory is an error, never an abort: libweir runs inside host processes (a
 * Python program, a server) that must outlive a failed allocation, as SQLite's library
 * does. The rule, for every allocation in src/ (docs/memory.md):
 *  - these return NULL when the allocator fails (wr_strdup/wr_strndup also return NULL
 *    for a NULL `s`: test `s && !copy`); n == 0 allocates one byte, so NULL always means
 *    failure. wr_realloc leaves `p` allocated and unchanged when it returns NULL.
 *  - the call site checks, frees what it had allocated so far, and returns wr_oom(err)
 *    (WEIR_ENOMEM, "out of memory"). A function that cannot report (void, or returning a
 *    pointer) says at its declaration how it signals OOM: a status, or NULL-means-OOM.
 *  - jansson allocates through these too (json_set_alloc_funcs when libweir is loaded), so
 *    a json_* constructor returns NULL and json_object_set_new/json_array_append_new
 *    return -1 on OOM; sites check them where a lost key would change what is written or
 *    returned.
 * In a WEIR_FAILPOINTS build, wr_alloc_fail_after(n) makes the nth allocation from now
 * fail (jansson's included): the OOM test (tests/c/lake/test_oom.c) sweeps n = 1, 2, ...
 * over whole operations to prove each failure is reported and cleaned up.
 *
 * Files not yet converted to the rule are compiled with WR_ALLOC_ABORTS (the list is
 * src/alloc_aborts.cmake): in them these names map to wr_x* variants that keep the old
 * abort-with-a-message behaviour and that wr_alloc_fail_after never fails. */
void *wr_malloc(size_t n);
void *wr_calloc(size_t n, size_t size);
void *wr_realloc(void *p, size_t n);
char *wr_strdup(const char *s);
char *wr_strndup(const char *s, size_t n);
char *wr_asprintf(const char *fmt, ...) WEIR_PRINTF(1, 2);

/* Sets err (if not NULL) to WEIR_ENOMEM "out of memory", allocating nothing but the
 * message (when even that fails, message stays NULL: weir_error's readers show a NULL
 * message of WEIR_ENOMEM as "out of memory"). Returns WEIR_ENOMEM. */
int wr_oom(weir_error *err);

/* Failed allocations (jansson's included) on this thread since the last wr_json_mark()
 * (which every public call makes first): code that cannot check each json_* call (files
 * on the WR_ALLOC_ABORTS list) is caught where it matters -- before Iceberg metadata or a
 * commit is written, before a document is returned, and in wr_seterr, which reports any
 * error raised after such a failure as WEIR_ENOMEM -- as SQLite checks mallocFailed once
 * per statement. Thread-local; no allocation. */
void wr_json_mark(void);
int wr_json_failed_since_mark(void);
/* How many allocations (jansson's included) have failed on this thread (never reset). */
unsigned long wr_json_alloc_failures(void);

/* Legacy, for files compiled with WR_ALLOC_ABORTS only: abort with a message on OOM. */
void *wr_xmalloc(size_t n);
void *wr_xcalloc(size_t n, size_t size);
void *wr_xrealloc(void *p, size_t n);
char *wr_xstrdup(const char *s);
char *wr_xstrndup(const char *s, size_t n);
char *wr_xasprintf(const char *fmt, ...) WEIR_PRINTF(1, 2);
/* Aborts when p is NULL (WR_ALLOC_ABORTS wrappers of pointer-returning helpers). */
void *wr_xcheck(void *p);
/* Aborts when rc is WEIR_ENOMEM; returns rc (wrappers of status-returning helpers). */
int wr_xstatus(int rc);
/* A converted helper called from a WR_ALLOC_ABORTS file runs "held": wr_alloc_fail_after
 * does not fail its allocations on this thread (its caller could not handle them), while
 * a real OOM still aborts through wr_xcheck/wr_xstatus. WR_X_PTR/WR_X_RC/WR_X_VOID wrap
 * such calls. */
void wr_alloc_hold(void);
void *wr_alloc_unhold(void *p);
int wr_alloc_unhold_rc(int rc);
#define WR_X_PTR(call) (wr_alloc_hold(), wr_xcheck(wr_alloc_unhold(call)))
#define WR_X_RC(call) (wr_alloc_hold(), wr_xstatus(wr_alloc_unhold_rc(call)))
#define WR_X_VOID(call) (wr_alloc_hold(), (call), (void)wr_alloc_unhold(NULL))

#ifdef WEIR_FAILPOINTS
/* The nth allocation from now fails (n >= 1), once; 0 disarms. Process-wide, thread-safe.
 * Counts wr_malloc/wr_calloc/wr_realloc/wr_strdup/... and jansson's allocations. */
void wr_alloc_fail_after(long n);
/* How many allocations wr_alloc_fail_after has failed since the process started. */
long wr_alloc_failures(void);
/* How many allocations (as counted by wr_alloc_fail_after) the process has made. */
long wr_alloc_count(void);
#endif

#ifdef WR_ALLOC_ABORTS
#define wr_malloc wr_xmalloc
#define wr_calloc wr_xcalloc
#define wr_realloc wr_xrealloc
#define wr_strdup wr_xstrdup
#define wr_strndup wr_xstrndup
#define wr_asprintf wr_xasprintf
#endif

#endif
