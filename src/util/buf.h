/*
 * buf.h -- a growable byte/string buffer, always NUL-terminated.
 *
 *   weir_buf b = WEIR_BUF_INIT;
 *   weir_buf_printf(&b, "%d rows", n);
 *   char *s = weir_buf_detach(&b);   // caller frees s; b is empty again
 */
#ifndef WEIR_UTIL_BUF_H
#define WEIR_UTIL_BUF_H

#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

typedef struct weir_buf {
  char *data;  /* NULL until the first append; always NUL-terminated after one */
  size_t len;
  size_t cap;
} weir_buf;

#define WEIR_BUF_INIT {NULL, 0, 0}

void weir_buf_reserve(weir_buf *b, size_t extra);
void weir_buf_append(weir_buf *b, const void *data, size_t n);
void weir_buf_puts(weir_buf *b, const char *s);
void weir_buf_putc(weir_buf *b, char c);
void weir_buf_printf(weir_buf *b, const char *fmt, ...) WEIR_PRINTF(2, 3);
/* Appends s as a double-quoted string with ", \ and control characters escaped. */
void weir_buf_put_quoted(weir_buf *b, const char *s);
void weir_buf_clear(weir_buf *b);         /* len = 0, keeps memory */
void weir_buf_free(weir_buf *b);          /* frees memory */
char *weir_buf_detach(weir_buf *b);       /* returns the string (never NULL); b is reset */
const char *weir_buf_cstr(const weir_buf *b); /* "" when empty */

#endif
