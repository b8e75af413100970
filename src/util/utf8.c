/*
 * utf8.c -- UTF-8 checks and repair (utf8.h).
 */
#include "util/utf8.h"

#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/error.h"

size_t wr_utf8_seq(const unsigned char *s, size_t len) {
  if (len == 0) return 0;
  unsigned c = s[0];
  if (c < 0x80) return 1;
  size_t n;
  unsigned lo = 0x80, hi = 0xBF; /* the allowed range of the second byte */
  if (c >= 0xC2 && c <= 0xDF)
    n = 2;
  else if (c == 0xE0)
    n = 3, lo = 0xA0; /* no overlong 3-byte forms */
  else if (c == 0xED)
    n = 3, hi = 0x9F; /* no surrogates */
  else if (c >= 0xE1 && c <= 0xEF)
    n = 3;
  else if (c == 0xF0)
    n = 4, lo = 0x90; /* no overlong 4-byte forms */
  else if (c >= 0xF1 && c <= 0xF3)
    n = 4;
  else if (c == 0xF4)
    n = 4, hi = 0x8F; /* nothing above U+10FFFF */
  else
    return 0; /* 0x80-0xC1, 0xF5-0xFF */
  if (len < n || s[1] < lo || s[1] > hi) return 0;
  for (size_t i = 2; i < n; i++)
    if (s[i] < 0x80 || s[i] > 0xBF) return 0;
  return n;
}

bool wr_utf8_valid(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s;
  for (size_t i = 0; i < len;) {
    size_t n = wr_utf8_seq(p + i, len - i);
    if (!n) return false;
    i += n;
  }
  return true;
}

char *wr_utf8_repair(const char *s) {
  size_t len = strlen(s);
  const unsigned char *p = (const unsigned char *)s;
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_reserve(&b, len + 1);
  for (size_t i = 0; i < len;) {
    size_t n = wr_utf8_seq(p + i, len - i);
    if (n) {
      wr_buf_append(&b, s + i, n);
      i += n;
    } else {
      wr_buf_append(&b, "\xEF\xBF\xBD", 3);
      i++;
    }
  }
  return wr_buf_detach(&b);
}

char *wr_utf8_repair_owned(char *s) {
  if (!s || wr_utf8_valid(s, strlen(s))) return s;
  char *r = wr_utf8_repair(s);
  free(s);
  return r;
}
