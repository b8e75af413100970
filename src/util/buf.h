/*
 * buf.h -- a growable byte/string buffer, always NUL-terminated.
 *
 *   wr_buf b = WEIR_BUF_INIT;
 *   wr_buf_printf(&b, "%d rows", n);
 *   char *s = wr_buf_detach(&b);   // caller frees s; b is empty again
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
} wr_buf;

#define WEIR_BUF_INIT {NULL, 0, 0}

void wr_buf_reserve(wr_buf *b, size_t extra);
void wr_buf_append(wr_buf *b, const void *data, size_t n);
void wr_buf_puts(wr_buf *b, const char *s);
void wr_buf_putc(wr_buf *b, char c);
void wr_buf_printf(wr_buf *b, const char *fmt, ...) WEIR_PRINTF(2, 3);
/* Appends s as a double-quoted string with ", \ and control characters escaped. */
void wr_buf_put_quoted(wr_buf *b, const char *s);
void wr_buf_clear(wr_buf *b);         /* len = 0, keeps memory */
void wr_buf_free(wr_buf *b);          /* frees memory */
char *wr_buf_detach(wr_buf *b);       /* returns the string (never NULL); b is reset */
const char *wr_buf_cstr(const wr_buf *b); /* "" when empty */

#endif
