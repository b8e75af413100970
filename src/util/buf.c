/*
 * buf.c -- growable buffer. Doubling growth keeps appends amortised O(1).
 */
#include "util/buf.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Returns 0, or -1 with the buffer in its sticky OOM state (buf.h). */
static int grow(wr_buf *b, size_t extra) {
  if (b->oom) return -1;
  size_t need = b->len + extra + 1;
  if (need <= b->cap) return 0;
  size_t cap = b->cap ? b->cap : 64;
  while (cap < need) cap *= 2;
  char *d = wr_realloc(b->data, cap);
  if (!d) {
    free(b->data);
    b->data = NULL;
    b->len = b->cap = 0;
    b->oom = 1;
    return -1;
  }
  b->data = d;
  b->cap = cap;
  return 0;
}

void wr_buf_reserve(wr_buf *b, size_t extra) { (void)grow(b, extra); }

void wr_buf_append(wr_buf *b, const void *data, size_t n) {
  if (grow(b, n) != 0) return;
  if (n) memcpy(b->data + b->len, data, n);
  b->len += n;
  b->data[b->len] = 0;
}

void wr_buf_puts(wr_buf *b, const char *s) { wr_buf_append(b, s, strlen(s)); }

void wr_buf_putc(wr_buf *b, char c) { wr_buf_append(b, &c, 1); }

void wr_buf_printf(wr_buf *b, const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (grow(b, n > 0 ? (size_t)n : 0) != 0) {
    va_end(ap);
    return;
  }
  if (n > 0) {
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
  } else {
    b->data[b->len] = 0;
  }
  va_end(ap);
}

void wr_buf_put_quoted(wr_buf *b, const char *s) {
  wr_buf_putc(b, '"');
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    switch (*p) {
    case '"': wr_buf_puts(b, "\\\""); break;
    case '\\': wr_buf_puts(b, "\\\\"); break;
    case '\n': wr_buf_puts(b, "\\n"); break;
    case '\r': wr_buf_puts(b, "\\r"); break;
    case '\t': wr_buf_puts(b, "\\t"); break;
    default:
      if (*p < 0x20) wr_buf_printf(b, "\\x%02x", *p);
      else wr_buf_putc(b, (char)*p);
    }
  }
  wr_buf_putc(b, '"');
}

void wr_buf_clear(wr_buf *b) {
  b->len = 0;
  b->oom = 0;
  if (b->data) b->data[0] = 0;
}

void wr_buf_free(wr_buf *b) {
  free(b->data);
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

char *wr_buf_detach(wr_buf *b) {
  char *s = b->oom ? NULL : b->data ? b->data : wr_strdup("");
  b->data = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
  return s;
}

const char *wr_buf_cstr(const wr_buf *b) { return b->data ? b->data : ""; }

int wr_buf_status(const wr_buf *b) { return b->oom ? WEIR_ENOMEM : WEIR_OK; }

char *wr_buf_xdetach(wr_buf *b) { return wr_xcheck(wr_buf_detach(b)); }

const char *wr_buf_xcstr(const wr_buf *b) {
  wr_xstatus(wr_buf_status(b));
  return wr_buf_cstr(b);
}
