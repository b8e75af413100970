/*
 * bounds.c -- Iceberg's single-value binary serialisation (spec, Appendix D) of column
 * lower/upper bounds, from and to the text DuckDB's Parquet writer reports as min/max.
 *
 *   boolean      1 byte, 0 or 1                 "true", "false", "1", "0"
 *   int, date    4 bytes little-endian          "42"; "2024-01-31" = days since 1970-01-01
 *   long         8 bytes little-endian          "42"
 *   float/double IEEE 754, 4/8 bytes LE         "0.42", "1e-05", "inf"
 *   decimal(p,s) unscaled value, two's-complement big-endian, minimum number of bytes
 *   string       UTF-8 bytes                    at most 16 code points (see below)
 *   binary       the bytes                      DuckDB prints them as hex: "61626300FF"
 *   timestamp*   8 bytes LE micros (or nanos) since the epoch; with a time zone, the UTC
 *                instant ("2024-01-31 12:00:00+00", any offset is applied)
 *
 * Strings and binary values are truncated to 16 code points / bytes, Iceberg's default
 * metrics mode truncate(16): a lower bound is the prefix; an upper bound is the prefix
 * with its last code point (byte) incremented, dropping trailing ones that cannot be, as
 * Java's UnicodeUtil.truncateStringMax and pyiceberg do. Truncation counts code points,
 * not bytes, like those writers (for ASCII the two are the same).
 *
 * Bounds need not be tight, only true (lower <= every value <= upper), so where a value's
 * exactness is in doubt the bound is omitted: text with more fractional digits than a
 * decimal's scale or a timestamp's unit, a float text that is not the shortest form of a
 * float, NaN, values out of the type's range. Zero float lower bounds are written as -0.0
 * (DuckDB prints -0.0 as "0.0", and Iceberg orders -0.0 below 0.0).
 *
 * Number parsing uses strtod/strtof, which follow LC_NUMERIC: libweir expects the "C"
 * locale for numbers (the default unless a program calls setlocale(LC_ALL, "")).
 */
#include "iceberg/iceberg.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"

#define TRUNCATE_LENGTH 16

typedef __int128 i128;
typedef unsigned __int128 u128;

static uint8_t *dup_bytes(const void *p, size_t n) {
  uint8_t *b = wr_malloc(n ? n : 1);
  if (n) memcpy(b, p, n);
  return b;
}

static bool set_le(uint64_t v, size_t n, uint8_t **out, size_t *len) {
  uint8_t *b = wr_malloc(n);
  for (size_t i = 0; i < n; i++) b[i] = (uint8_t)(v >> (8 * i));
  *out = b;
  *len = n;
  return true;
}

static uint64_t get_le(const uint8_t *d, size_t n) {
  uint64_t v = 0;
  for (size_t i = 0; i < n; i++) v |= (uint64_t)d[i] << (8 * i);
  return v;
}

/* ---- integers ---------------------------------------------------------------------- */

static bool parse_i64(const char *s, int64_t *out) {
  if (!*s || isspace((unsigned char)*s)) return false;
  const char *digits = (*s == '-' || *s == '+') ? s + 1 : s;
  if (!isdigit((unsigned char)*digits)) return false;
  errno = 0;
  char *end;
  long long v = strtoll(s, &end, 10);
  if (errno || *end) return false;
  *out = v;
  return true;
}

/* ---- floating point ---------------------------------------------------------------- */

/* Parses a finite or infinite decimal number; NaN and anything else give false. */
static bool parse_real(const char *s, double *d, float *f, bool want_float) {
  if (!*s || isspace((unsigned char)*s)) return false;
  const char *m = (*s == '-' || *s == '+') ? s + 1 : s;
  if (strcasecmp(m, "inf") == 0 || strcasecmp(m, "infinity") == 0) {
    *d = *s == '-' ? -INFINITY : INFINITY;
    *f = (float)*d;
    return true;
  }
  /* Only digits, one point and an exponent: no NaN, no hex floats. */
  bool seen_digit = false;
  for (const char *p = m; *p; p++) {
    if (isdigit((unsigned char)*p)) seen_digit = true;
    else if (*p != '.' && *p != 'e' && *p != 'E' && *p != '-' && *p != '+') return false;
  }
  if (!seen_digit) return false;
  char *end;
  errno = 0;
  *d = strtod(s, &end);
  if (*end || isinf(*d) || isnan(*d)) return false;
  if (want_float) {
    errno = 0;
    *f = strtof(s, &end);
    if (*end || isinf(*f) || isnan(*f)) return false;
  }
  /* A non-zero number that underflowed to zero is not what the text says. */
  bool nonzero = false;
  for (const char *p = m; *p && *p != 'e' && *p != 'E'; p++)
    if (*p >= '1' && *p <= '9') nonzero = true;
  if (nonzero && (want_float ? *f == 0.0f : *d == 0.0)) return false;
  return true;
}

/* The shortest decimal text that reads back as the same value: k significant digits, in
 * plain notation for exponents -5..16 ("80", "0.42"), else scientific ("1.5e+300"). */
static void render_real(double d, int k, char *buf, size_t size) {
  if (isinf(d) || d == 0.0) {
    snprintf(buf, size, "%.*g", k, d);
    return;
  }
  char e[64];
  snprintf(e, sizeof e, "%.*e", k - 1, d);
  int exp10 = atoi(strchr(e, 'e') + 1);
  if (exp10 >= -5 && exp10 <= 16) {
    int prec = k - 1 - exp10;
    snprintf(buf, size, "%.*f", prec > 0 ? prec : 0, d);
  } else {
    snprintf(buf, size, "%.*g", k, d);
  }
}

static void shortest_float(float f, char *buf, size_t size) {
  for (int k = 1; k <= 9; k++) {
    render_real(f, k, buf, size);
    if (strtof(buf, NULL) == f) return;
  }
}

static void shortest_double(double d, char *buf, size_t size) {
  for (int k = 1; k <= 17; k++) {
    render_real(d, k, buf, size);
    if (strtod(buf, NULL) == d) return;
  }
}

static bool encode_float(const char *text, bool upper, uint8_t **out, size_t *len) {
  double d;
  float f;
  if (!parse_real(text, &d, &f, true)) return false;
  /* Exact: either the text is the float's exact value (DuckDB sometimes prints a float
   * widened to double), or it is the float's shortest decimal form. */
  if ((double)f != d && !isinf(f)) {
    char buf[64];
    shortest_float(f, buf, sizeof buf);
    if (strtod(buf, NULL) != d) return false;
  }
  if (f == 0.0f) f = upper ? 0.0f : -0.0f;
  uint32_t bits;
  memcpy(&bits, &f, 4);
  return set_le(bits, 4, out, len);
}

static bool encode_double(const char *text, bool upper, uint8_t **out, size_t *len) {
  double d;
  float f;
  if (!parse_real(text, &d, &f, false)) return false;
  if (d == 0.0) d = upper ? 0.0 : -0.0;
  uint64_t bits;
  memcpy(&bits, &d, 8);
  return set_le(bits, 8, out, len);
}

/* ---- decimals ---------------------------------------------------------------------- */

static bool encode_decimal(weir_type t, const char *s, uint8_t **out, size_t *len) {
  if (t.precision < 1 || t.precision > 38 || t.scale < 0 || t.scale > t.precision) return false;
  bool neg = false;
  if (*s == '-' || *s == '+') neg = *s++ == '-';
  u128 v = 0;
  int digits = 0, frac = 0;
  bool point = false, any = false;
  for (; *s; s++) {
    if (*s == '.') {
      if (point) return false;
      point = true;
      continue;
    }
    if (!isdigit((unsigned char)*s)) return false;
    any = true;
    int dgt = *s - '0';
    if (point) {
      if (frac >= t.scale) {
        if (dgt != 0) return false; /* more precision than the column has: not exact */
        continue;
      }
      frac++;
    }
    if (v == 0 && dgt == 0 && !point) continue; /* leading zeros */
    if (++digits > 38) return false;
    v = v * 10 + (u128)dgt;
  }
  if (!any) return false;
  for (; frac < t.scale; frac++) {
    if (++digits > 38) return false;
    v *= 10;
  }
  u128 limit = 1;
  for (int i = 0; i < t.precision; i++) limit *= 10;
  if (v >= limit) return false;
  i128 sv = neg ? -(i128)v : (i128)v;
  uint8_t be[16];
  for (int i = 0; i < 16; i++) be[i] = (uint8_t)((u128)sv >> (8 * (15 - i)));
  int start = 0;
  while (start < 15 && ((be[start] == 0x00 && !(be[start + 1] & 0x80)) ||
                        (be[start] == 0xff && (be[start + 1] & 0x80))))
    start++;
  *out = dup_bytes(be + start, (size_t)(16 - start));
  *len = (size_t)(16 - start);
  return true;
}

static void put_u128(wr_buf *b, u128 v) {
  char tmp[48];
  int n = 0;
  do {
    tmp[n++] = (char)('0' + (int)(v % 10));
    v /= 10;
  } while (v);
  while (n) wr_buf_putc(b, tmp[--n]);
}

static char *decimal_to_text(weir_type t, const uint8_t *d, size_t len) {
  if (len < 1 || len > 16) return NULL;
  u128 u = (d[0] & 0x80) ? ~(u128)0 : 0; /* sign extension */
  for (size_t i = 0; i < len; i++) u = (u << 8) | d[i];
  i128 v = (i128)u;
  bool neg = v < 0;
  u128 mag = neg ? (u128)0 - u : u;
  u128 p = 1;
  for (int i = 0; i < t.scale; i++) p *= 10;
  wr_buf b = WEIR_BUF_INIT;
  if (neg) wr_buf_putc(&b, '-');
  put_u128(&b, mag / p);
  if (t.scale > 0) {
    wr_buf_putc(&b, '.');
    u128 f = mag % p;
    char tmp[48];
    for (int i = t.scale - 1; i >= 0; i--) {
      tmp[i] = (char)('0' + (int)(f % 10));
      f /= 10;
    }
    wr_buf_append(&b, tmp, (size_t)t.scale);
  }
  return wr_buf_detach(&b);
}

/* ---- strings and binary ------------------------------------------------------------ */

/* Decodes one UTF-8 code point at s[0..n); returns its length, 0 when invalid. */
static size_t utf8_decode(const uint8_t *s, size_t n, uint32_t *cp) {
  if (n == 0) return 0;
  uint8_t c = s[0];
  size_t l;
  uint32_t v, min;
  if (c < 0x80) {
    *cp = c;
    return 1;
  } else if ((c & 0xe0) == 0xc0) {
    l = 2, v = c & 0x1f, min = 0x80;
  } else if ((c & 0xf0) == 0xe0) {
    l = 3, v = c & 0x0f, min = 0x800;
  } else if ((c & 0xf8) == 0xf0) {
    l = 4, v = c & 0x07, min = 0x10000;
  } else {
    return 0;
  }
  if (n < l) return 0;
  for (size_t i = 1; i < l; i++) {
    if ((s[i] & 0xc0) != 0x80) return 0;
    v = (v << 6) | (s[i] & 0x3f);
  }
  if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
  *cp = v;
  return l;
}

static size_t utf8_encode(uint32_t cp, uint8_t *o) {
  if (cp < 0x80) {
    o[0] = (uint8_t)cp;
    return 1;
  } else if (cp < 0x800) {
    o[0] = (uint8_t)(0xc0 | (cp >> 6));
    o[1] = (uint8_t)(0x80 | (cp & 0x3f));
    return 2;
  } else if (cp < 0x10000) {
    o[0] = (uint8_t)(0xe0 | (cp >> 12));
    o[1] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
    o[2] = (uint8_t)(0x80 | (cp & 0x3f));
    return 3;
  }
  o[0] = (uint8_t)(0xf0 | (cp >> 18));
  o[1] = (uint8_t)(0x80 | ((cp >> 12) & 0x3f));
  o[2] = (uint8_t)(0x80 | ((cp >> 6) & 0x3f));
  o[3] = (uint8_t)(0x80 | (cp & 0x3f));
  return 4;
}

static bool encode_string(const char *text, bool upper, uint8_t **out, size_t *len) {
  const uint8_t *s = (const uint8_t *)text;
  size_t n = strlen(text);
  uint32_t cps[TRUNCATE_LENGTH];
  size_t offs[TRUNCATE_LENGTH];
  size_t count = 0, pos = 0;
  bool truncated = false;
  while (pos < n) {
    uint32_t cp;
    size_t l = utf8_decode(s + pos, n - pos, &cp);
    if (!l) return false; /* not UTF-8: no bound */
    if (count == TRUNCATE_LENGTH) {
      truncated = true;
      /* keep validating the rest: invalid text must give no bound at all */
      pos += l;
      continue;
    }
    offs[count] = pos;
    cps[count++] = cp;
    pos += l;
  }
  if (!truncated) {
    *out = dup_bytes(s, n);
    *len = n;
    return true;
  }
  if (!upper) {
    size_t cut = offs[TRUNCATE_LENGTH - 1];
    uint32_t last;
    cut += utf8_decode(s + cut, n - cut, &last);
    *out = dup_bytes(s, cut);
    *len = cut;
    return true;
  }
  /* Upper: increment the last code point that can be, dropping the ones after it. */
  for (size_t i = count; i-- > 0;) {
    uint32_t next = cps[i] + 1;
    if (next >= 0xd800 && next <= 0xdfff) next = 0xe000;
    if (next > 0x10ffff) continue;
    uint8_t enc[4];
    size_t el = utf8_encode(next, enc);
    uint8_t *b = wr_malloc(offs[i] + el);
    memcpy(b, s, offs[i]);
    memcpy(b + offs[i], enc, el);
    *out = b;
    *len = offs[i] + el;
    return true;
  }
  return false;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

static bool encode_binary(const char *text, bool upper, uint8_t **out, size_t *len) {
  size_t n = strlen(text);
  if (n % 2) return false;
  size_t bytes = n / 2;
  uint8_t *b = wr_malloc(bytes ? bytes : 1);
  for (size_t i = 0; i < bytes; i++) {
    int hi = hexval((unsigned char)text[2 * i]), lo = hexval((unsigned char)text[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      free(b);
      return false;
    }
    b[i] = (uint8_t)(hi << 4 | lo);
  }
  if (bytes > TRUNCATE_LENGTH) {
    size_t keep = TRUNCATE_LENGTH;
    if (upper) {
      while (keep > 0 && b[keep - 1] == 0xff) keep--;
      if (keep == 0) {
        free(b);
        return false;
      }
      b[keep - 1]++;
    }
    bytes = keep;
  }
  *out = b;
  *len = bytes;
  return true;
}

/* ---- dates and timestamps ---------------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = (y >= 0 ? y : y - 399) / 400;
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

static bool is_leap(int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int read_digits(const char **p, int n) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!isdigit((unsigned char)(*p)[i])) return -1;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  return v;
}

/* "YYYY-MM-DD[ (BC)]" (year of 1 to 9 digits; DuckDB writes years before 1 AD with a
 * " (BC)" suffix right after the date, also inside timestamps); advances *p. */
static bool parse_date(const char **p, int64_t *days) {
  const char *s = *p;
  bool neg = false;
  if (*s == '-') neg = true, s++;
  int64_t y = 0;
  int nd = 0;
  while (isdigit((unsigned char)*s)) {
    if (++nd > 9) return false;
    y = y * 10 + (*s++ - '0');
  }
  if (nd < 1 || *s++ != '-') return false;
  int m = read_digits(&s, 2);
  if (m < 1 || m > 12 || *s++ != '-') return false;
  int d = read_digits(&s, 2);
  static const int mdays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (neg) y = -y;
  if (strncmp(s, " (BC)", 5) == 0) {
    if (neg || y < 1) return false;
    y = 1 - y; /* 1 BC is year 0 */
    s += 5;
  }
  int max = mdays[m - 1] + (m == 2 && is_leap(y));
  if (d < 1 || d > max) return false;
  *days = days_from_civil(y, m, d);
  *p = s;
  return true;
}

static bool encode_date(const char *text, uint8_t **out, size_t *len) {
  const char *p = text;
  int64_t days;
  if (!parse_date(&p, &days) || *p != '\0' || days < INT32_MIN || days > INT32_MAX) return false;
  return set_le((uint64_t)days, 4, out, len);
}

/* "YYYY-MM-DD[ (BC)] HH:MM:SS[.fff...][Z|+HH[:MM[:SS]]]" in micros or nanos. */
static bool encode_timestamp(const char *text, bool nanos, bool with_tz, uint8_t **out,
                             size_t *len) {
  const char *p = text;
  int64_t days, value;
  int64_t unit = nanos ? 1000000000 : 1000000;
  int hh, mi, ss;
  int64_t frac = 0;
  int64_t offset = 0;
  if (!parse_date(&p, &days) || (*p != ' ' && *p != 'T')) return false;
  p++;
  hh = read_digits(&p, 2);
  if (hh < 0 || hh > 23 || *p++ != ':') return false;
  mi = read_digits(&p, 2);
  if (mi < 0 || mi > 59 || *p++ != ':') return false;
  ss = read_digits(&p, 2);
  if (ss < 0 || ss > 59) return false;
  if (*p == '.') {
    p++;
    int nd = 0, max_digits = nanos ? 9 : 6;
    if (!isdigit((unsigned char)*p)) return false;
    while (isdigit((unsigned char)*p)) {
      if (nd < max_digits) frac = frac * 10 + (*p - '0');
      else if (*p != '0') return false; /* finer than the column's unit: not exact */
      nd++, p++;
    }
    for (; nd < max_digits; nd++) frac *= 10;
  }
  if (*p == 'Z') {
    if (!with_tz) return false;
    p++;
  } else if (*p == '+' || *p == '-') {
    if (!with_tz) return false; /* an offset on a timestamp without time zone */
    int sign = *p++ == '-' ? -1 : 1;
    int oh = read_digits(&p, 2), om = 0, os = 0;
    if (oh < 0 || oh > 23) return false;
    if (*p == ':') p++;
    if (isdigit((unsigned char)*p)) {
      om = read_digits(&p, 2);
      if (om < 0 || om > 59) return false;
      if (*p == ':') p++;
      if (isdigit((unsigned char)*p)) {
        os = read_digits(&p, 2);
        if (os < 0 || os > 59) return false;
      }
    }
    offset = sign * ((int64_t)oh * 3600 + om * 60 + os);
  }
  if (*p != '\0') return false;
  int64_t secs = days * 86400 + hh * 3600 + mi * 60 + ss - offset;
  if (__builtin_mul_overflow(secs, unit, &value) || __builtin_add_overflow(value, frac, &value))
    return false;
  return set_le((uint64_t)value, 8, out, len);
}

/* ---- public ------------------------------------------------------------------------ */

bool iceberg_bound_from_text(weir_type t, const char *text, bool upper, uint8_t **out,
                             size_t *len) {
  *out = NULL;
  *len = 0;
  if (!text) return false;
  int64_t v;
  switch (t.id) {
    case WEIR_TYPE_BOOL:
      if (strcmp(text, "true") == 0 || strcmp(text, "1") == 0) return set_le(1, 1, out, len);
      if (strcmp(text, "false") == 0 || strcmp(text, "0") == 0) return set_le(0, 1, out, len);
      return false;
    case WEIR_TYPE_INT32:
      if (!parse_i64(text, &v) || v < INT32_MIN || v > INT32_MAX) return false;
      return set_le((uint64_t)v, 4, out, len);
    case WEIR_TYPE_INT64:
      if (!parse_i64(text, &v)) return false;
      return set_le((uint64_t)v, 8, out, len);
    case WEIR_TYPE_FLOAT32:
      return encode_float(text, upper, out, len);
    case WEIR_TYPE_FLOAT64:
      return encode_double(text, upper, out, len);
    case WEIR_TYPE_DECIMAL:
      return encode_decimal(t, text, out, len);
    case WEIR_TYPE_STRING:
      return encode_string(text, upper, out, len);
    case WEIR_TYPE_BINARY:
      return encode_binary(text, upper, out, len);
    case WEIR_TYPE_DATE32:
      return encode_date(text, out, len);
    case WEIR_TYPE_TS_US:
      return encode_timestamp(text, false, false, out, len);
    case WEIR_TYPE_TS_NS:
      return encode_timestamp(text, true, false, out, len);
    case WEIR_TYPE_TS_US_UTC:
      return encode_timestamp(text, false, true, out, len);
    case WEIR_TYPE_TS_NS_UTC:
      return encode_timestamp(text, true, true, out, len);
    default:
      return false; /* Date64 and Any have no Iceberg bound */
  }
}

static char *date_text(int64_t days) {
  int64_t y;
  int m, d;
  civil_from_days(days, &y, &m, &d);
  if (y <= 0) return wr_asprintf("%04lld-%02d-%02d (BC)", (long long)(1 - y), m, d);
  return wr_asprintf("%04lld-%02d-%02d", (long long)y, m, d);
}

static char *timestamp_text(int64_t value, bool nanos, bool with_tz) {
  int64_t unit = nanos ? 1000000000 : 1000000;
  int64_t secs = value / unit, frac = value % unit;
  if (frac < 0) frac += unit, secs--;
  int64_t days = secs / 86400, sod = secs % 86400;
  if (sod < 0) sod += 86400, days--;
  char *date = date_text(days);
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_printf(&b, "%s %02d:%02d:%02d", date, (int)(sod / 3600), (int)(sod / 60 % 60),
                  (int)(sod % 60));
  free(date);
  if (frac) {
    char f[16];
    snprintf(f, sizeof f, nanos ? "%09lld" : "%06lld", (long long)frac);
    size_t n = strlen(f);
    while (n > 0 && f[n - 1] == '0') f[--n] = '\0';
    wr_buf_printf(&b, ".%s", f);
  }
  if (with_tz) wr_buf_puts(&b, "+00");
  return wr_buf_detach(&b);
}

char *iceberg_bound_to_text(weir_type t, const uint8_t *data, size_t len) {
  if (!data && len) return NULL;
  char buf[64];
  switch (t.id) {
    case WEIR_TYPE_BOOL:
      if (len != 1) return NULL;
      return wr_strdup(data[0] ? "true" : "false");
    case WEIR_TYPE_INT32:
      if (len != 4) return NULL;
      return wr_asprintf("%d", (int32_t)(uint32_t)get_le(data, 4));
    case WEIR_TYPE_INT64:
      /* A bound written while the column was an int (promoted since) has 4 bytes. */
      if (len == 4) return wr_asprintf("%d", (int32_t)(uint32_t)get_le(data, 4));
      if (len != 8) return NULL;
      return wr_asprintf("%lld", (long long)(int64_t)get_le(data, 8));
    case WEIR_TYPE_FLOAT32: {
      if (len != 4) return NULL;
      uint32_t bits = (uint32_t)get_le(data, 4);
      float f;
      memcpy(&f, &bits, 4);
      if (isnan(f)) return wr_strdup("nan");
      shortest_float(f, buf, sizeof buf);
      return wr_strdup(buf);
    }
    case WEIR_TYPE_FLOAT64: {
      double d;
      if (len == 4) {
        uint32_t bits = (uint32_t)get_le(data, 4);
        float f;
        memcpy(&f, &bits, 4);
        d = f;
      } else if (len == 8) {
        uint64_t bits = get_le(data, 8);
        memcpy(&d, &bits, 8);
      } else {
        return NULL;
      }
      if (isnan(d)) return wr_strdup("nan");
      shortest_double(d, buf, sizeof buf);
      return wr_strdup(buf);
    }
    case WEIR_TYPE_DECIMAL:
      return decimal_to_text(t, data, len);
    case WEIR_TYPE_STRING: {
      for (size_t pos = 0; pos < len;) {
        uint32_t cp;
        size_t l = utf8_decode(data + pos, len - pos, &cp);
        if (!l || cp == 0) return NULL;
        pos += l;
      }
      return wr_strndup((const char *)data, len);
    }
    case WEIR_TYPE_BINARY: {
      char *s = wr_malloc(2 * len + 1);
      for (size_t i = 0; i < len; i++) snprintf(s + 2 * i, 3, "%02X", data[i]);
      s[2 * len] = '\0';
      return s;
    }
    case WEIR_TYPE_DATE32:
      if (len != 4) return NULL;
      return date_text((int32_t)(uint32_t)get_le(data, 4));
    case WEIR_TYPE_TS_US:
    case WEIR_TYPE_TS_NS:
    case WEIR_TYPE_TS_US_UTC:
    case WEIR_TYPE_TS_NS_UTC:
      if (len != 8) return NULL;
      return timestamp_text((int64_t)get_le(data, 8),
                            t.id == WEIR_TYPE_TS_NS || t.id == WEIR_TYPE_TS_NS_UTC,
                            t.id == WEIR_TYPE_TS_US_UTC || t.id == WEIR_TYPE_TS_NS_UTC);
    default:
      return NULL;
  }
}
