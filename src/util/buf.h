/*
 * buf.h -- a growable byte/string buffer, always NUL-terminated.
 *
 *   wr_buf b = WEIR_BUF_INIT;
 *   wr_buf_printf(&b, "%d rows", n);
 *   char *s = wr_buf_detach(&b);   // caller frees s; b is empty again
 *   if (!s) return wr_oom(err);    // NULL means out of memory
 *
 * Out of memory is sticky, as in SQLite's StrAccum: the first append that cannot grow
 * the buffer frees its content and sets `oom`; later appends do nothing, wr_buf_detach
 * returns NULL and wr_buf_status WEIR_ENOMEM. So a sequence of appends needs one check,
 * at its end, and a half-built string (a truncated SQL statement) can never be used.
 */
#ifndef WEIR_UTIL_BUF_H
#define WEIR_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

typedef struct wr_buf {
  char *data;  /* NULL until the first append; always NUL-terminated after one */
  size_t len;
  size_t cap;
  int oom;     /* an append failed: data is NULL and stays so until wr_buf_clear/free */
} wr_buf;

#define WEIR_BUF_INIT {NULL, 0, 0, 0}

void wr_buf_reserve(wr_buf *b, size_t extra);
void wr_buf_append(wr_buf *b, const void *data, size_t n);
void wr_buf_puts(wr_buf *b, const char *s);
void wr_buf_putc(wr_buf *b, char c);
void wr_buf_printf(wr_buf *b, const char *fmt, ...) WEIR_PRINTF(2, 3);
/* Appends s as a double-quoted string with ", \ and control characters escaped. */
void wr_buf_put_quoted(wr_buf *b, const char *s);
void wr_buf_clear(wr_buf *b);         /* len = 0, keeps memory, clears oom */
void wr_buf_free(wr_buf *b);          /* frees memory */
/* Returns the string (the caller frees it) and resets b; NULL means out of memory. */
char *wr_buf_detach(wr_buf *b);
/* "" when empty; check wr_buf_status first: after OOM this is "" too. */
const char *wr_buf_cstr(const wr_buf *b);
/* WEIR_ENOMEM when an append failed since the last clear, else WEIR_OK. */
int wr_buf_status(const wr_buf *b);

/* Legacy (WR_ALLOC_ABORTS files, error.h): abort on a buffer that ran out of memory. */
char *wr_buf_xdetach(wr_buf *b);
const char *wr_buf_xcstr(const wr_buf *b);
#ifdef WR_ALLOC_ABORTS
#define wr_buf_detach wr_buf_xdetach
#define wr_buf_cstr wr_buf_xcstr
#define wr_buf_reserve(...) WR_X_VOID(wr_buf_reserve(__VA_ARGS__))
#define wr_buf_append(...) WR_X_VOID(wr_buf_append(__VA_ARGS__))
#define wr_buf_puts(...) WR_X_VOID(wr_buf_puts(__VA_ARGS__))
#define wr_buf_putc(...) WR_X_VOID(wr_buf_putc(__VA_ARGS__))
#define wr_buf_printf(...) WR_X_VOID(wr_buf_printf(__VA_ARGS__))
#define wr_buf_put_quoted(...) WR_X_VOID(wr_buf_put_quoted(__VA_ARGS__))
#endif

#endif
