/*
 * buf.c -- growable buffer. Doubling growth keeps appends amortised O(1).
 */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void weir_buf_reserve(weir_buf *b, size_t extra) {
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  b->data = weir_realloc(b->data, cap);
  b->cap = cap;
}

void weir_buf_append(weir_buf *b, const void *data, size_t n) {
  weir_buf_reserve(b, n);
  if (n) memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = 0;
}

void weir_buf_puts(weir_buf *b, const char *s) { weir_buf_append(b, s, strlen(s)); }

void weir_buf_putc(weir_buf *b, char c) { weir_buf_append(b, &c, 1); }

void weir_buf_printf(weir_buf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n > 0) {
    weir_buf_reserve(b, (size_t)n);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
  } else {
    weir_buf_reserve(b, 0);
    b->data[b->len] = 0;
  }
  va_end(ap);
}

void weir_buf_put_quoted(weir_buf *b, const char *s) {
  weir_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': weir_buf_puts(b, "\\\""); break;
    case '\\': weir_buf_puts(b, "\\\\"); break;
    case '\n': weir_buf_puts(b, "\\n"); break;
    case '\r': weir_buf_puts(b, "\\r"); break;
    case '\t': weir_buf_puts(b, "\\t"); break;
    default:
      if (*p < 0x20) weir_buf_printf(b, "\\x%02x", *p);
      else weir_buf_putc(b, (char)*p);
    }
  }
  weir_buf_putc(b, '"');
}

void weir_buf_clear(weir_buf *b) {
  b->len = 0;
  if (b->data) b->data[0] = 0;
}

void weir_buf_free(weir_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
}

char *weir_buf_detach(weir_buf *b) {
  char *s = b->data ? b->data : weir_strdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  return s;
}

const char *weir_buf_cstr(const weir_buf *b) { return b->data ? b->data : ""; }
