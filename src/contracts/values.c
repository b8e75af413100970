/*
 * values.c -- values of weir types to and from text: decimal literals at a scale (exact,
 * in 128-bit integers, since a double cannot hold 18 significant digits), dates and
 * timestamps in ISO 8601, the shortest round-trip text of a double, and bytes as JSON.
 *
 * These serve two ends: rule values written in a contract (enum values, range bounds)
 * are converted once into the column's own representation so that the checks compare
 * raw buffer values; and sample values found in the data are rendered for reports.
 */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

/* ---- decimals ------------------------------------------------------------------------------------ */

bool wc_value_decimal_parse(const char *s, int scale, int dir, wr_i128 *out) {
  const char *p = s;
  while (isspace((unsigned char)*p)) p++;
  bool neg = false;
  if (*p == '+' || *p == '-') neg = *p++ == '-';
  if (!isdigit((unsigned char)*p) && !(*p == '.' && isdigit((unsigned char)p[1]))) return false;
  wr_i128 v = 0;
  const wr_i128 limit = (wr_i128)1 << 125; /* well past 10^38, far from overflow */
  int frac = 0;
  bool seen_dot = false, rest_nonzero = false;
  for (; *p; p++) {
    if (*p == '.' && !seen_dot) {
      seen_dot = true;
      continue;
    }
    if (!isdigit((unsigned char)*p)) break;
    if (seen_dot && frac >= scale) {
      if (*p != '0') rest_nonzero = true;
      continue;
    }
    if (v > limit / 10) return false;
    v = v * 10 + (*p - '0');
    if (seen_dot) frac++;
  }
  while (isspace((unsigned char)*p)) p++;
  if (*p) return false;
  for (; frac < scale; frac++) {
    if (v > limit / 10) return false;
    v *= 10;
  }
  if (neg) v = -v;
  if (rest_nonzero) {
    /* Digits past the scale: the value lies strictly between v and the next step. */
    if (dir == 0) return false;
    if (dir > 0 && !neg) v += 1;
    if (dir < 0 && neg) v -= 1;
  }
  *out = v;
  return true;
}

bool wc_value_decimal_from_json(const json_t *v, int scale, int dir, wr_i128 *out) {
  if (json_is_string(v)) return wc_value_decimal_parse(json_string_value(v), scale, dir, out);
  if (json_is_integer(v)) {
    char buf[32];
    snprintf(buf, sizeof buf, "%lld", (long long)json_integer_value(v));
    return wc_value_decimal_parse(buf, scale, dir, out);
  }
  if (json_is_real(v)) {
    /* The shortest text of the double is what the author wrote (0.1, not 0.1000000000000000055). */
    char buf[64];
    wc_value_double_format(json_real_value(v), buf, sizeof buf);
    if (strchr(buf, 'e') || strchr(buf, 'n') || strchr(buf, 'i')) return false;
    return wc_value_decimal_parse(buf, scale, dir, out);
  }
  return false;
}

void wc_value_decimal_format(wr_i128 v, int scale, char *out, size_t size) {
  char digits[48];
  int n = 0;
  bool neg = v < 0;
  unsigned __int128 u = neg ? (unsigned __int128)(-(v + 1)) + 1 : (unsigned __int128)v;
  do {
    digits[n++] = (char)('0' + (int)(u % 10));
    u /= 10;
  } while (u);
  while (n <= scale) digits[n++] = '0';
  char buf[64];
  int o = 0;
  if (neg) buf[o++] = '-';
  for (int i = n - 1; i >= 0; i--) {
    buf[o++] = digits[i];
    if (i == scale && scale > 0) buf[o++] = '.';
  }
  buf[o] = 0;
  snprintf(out, size, "%s", buf);
}

/* ---- dates and timestamps ----------------------------------------------------------------------- */

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = (unsigned)(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? (unsigned)-3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + (int64_t)doe - 719468;
}

static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
  z += 719468;
  const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = (unsigned)(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  *d = doy - (153 * mp + 2) / 5 + 1;
  *m = mp < 10 ? mp + 3 : mp - 9;
  *y = (int64_t)yoe + era * 400 + (*m <= 2);
}

static bool digits_n(const char **p, int n, int *out) {
  int v = 0;
  for (int i = 0; i < n; i++) {
    if (!isdigit((unsigned char)(*p)[i])) return false;
    v = v * 10 + ((*p)[i] - '0');
  }
  *p += n;
  *out = v;
  return true;
}

static bool parse_date_part(const char **p, int64_t *days) {
  int y, m, d;
  const char *s = *p;
  bool neg = false;
  if (*s == '-') {
    neg = true;
    s++;
  }
  if (!digits_n(&s, 4, &y) || *s++ != '-' || !digits_n(&s, 2, &m) || *s++ != '-' || !digits_n(&s, 2, &d))
    return false;
  if (m < 1 || m > 12 || d < 1) return false;
  static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  int64_t yy = neg ? -y : y;
  bool leap = (yy % 4 == 0 && yy % 100 != 0) || yy % 400 == 0;
  if (d > mdays[m - 1] || (m == 2 && d == 29 && !leap)) return false;
  *days = days_from_civil(yy, (unsigned)m, (unsigned)d);
  *p = s;
  return true;
}

bool wc_value_date_parse(const char *s, int64_t *days) {
  const char *p = s;
  if (!parse_date_part(&p, days)) return false;
  return *p == 0;
}

static int64_t unit_per_second(char unit) {
  switch (unit) {
  case 's': return 1;
  case 'm': return 1000;
  case 'u': return 1000000;
  default: return 1000000000;
  }
}

bool wc_value_timestamp_parse(const char *s, char unit, int64_t *out, bool *has_zone) {
  const char *p = s;
  int64_t days;
  *has_zone = false;
  if (!parse_date_part(&p, &days)) return false;
  int hh = 0, mi = 0, ss = 0;
  int64_t frac = 0;
  int frac_digits = 0;
  if (*p == 'T' || *p == ' ') {
    p++;
    if (!digits_n(&p, 2, &hh) || *p++ != ':' || !digits_n(&p, 2, &mi)) return false;
    if (*p == ':') {
      p++;
      if (!digits_n(&p, 2, &ss)) return false;
      if (*p == '.') {
        p++;
        while (isdigit((unsigned char)*p)) {
          if (frac_digits >= 9) return false;
          frac = frac * 10 + (*p++ - '0');
          frac_digits++;
        }
        if (!frac_digits) return false;
      }
    }
    if (hh > 23 || mi > 59 || ss > 60) return false;
  }
  int64_t offset_s = 0;
  if (*p == 'Z') {
    *has_zone = true;
    p++;
  } else if (*p == '+' || *p == '-') {
    int oh, om;
    int sign = *p++ == '-' ? -1 : 1;
    if (!digits_n(&p, 2, &oh)) return false;
    if (*p == ':') p++;
    if (!digits_n(&p, 2, &om)) return false;
    offset_s = sign * (oh * 3600 + om * 60);
    *has_zone = true;
  }
  if (*p) return false;
  int64_t per = unit_per_second(unit);
  /* Scale the fraction to the unit; digits finer than the unit cannot be represented. */
  int unit_digits = unit == 's' ? 0 : unit == 'm' ? 3 : unit == 'u' ? 6 : 9;
  while (frac_digits > unit_digits) {
    if (frac % 10) return false;
    frac /= 10;
    frac_digits--;
  }
  while (frac_digits < unit_digits) {
    frac *= 10;
    frac_digits++;
  }
  int64_t secs = days * 86400 + hh * 3600 + mi * 60 + ss - offset_s;
  if (__builtin_mul_overflow(secs, per, out) || __builtin_add_overflow(*out, frac, out)) return false;
  return true;
}

void wc_value_date_format(int64_t days, char *out, size_t size) {
  int64_t y;
  unsigned m, d;
  civil_from_days(days, &y, &m, &d);
  snprintf(out, size, "%04lld-%02u-%02u", (long long)y, m, d);
}

void wc_value_timestamp_format(int64_t v, char unit, bool utc, char *out, size_t size) {
  int64_t per = unit_per_second(unit);
  int64_t secs = v / per, frac = v % per;
  if (frac < 0) {
    frac += per;
    secs -= 1;
  }
  int64_t days = secs / 86400, rem = secs % 86400;
  if (rem < 0) {
    rem += 86400;
    days -= 1;
  }
  char date[32], fr[16] = "";
  wc_value_date_format(days, date, sizeof date);
  if (frac) {
    int digits = unit == 'm' ? 3 : unit == 'u' ? 6 : 9;
    snprintf(fr, sizeof fr, ".%0*lld", digits, (long long)frac);
    /* Trailing zeros say nothing. */
    size_t n = strlen(fr);
    while (n > 2 && fr[n - 1] == '0') fr[--n] = 0;
  }
  snprintf(out, size, "%sT%02d:%02d:%02d%s%s", date, (int)(rem / 3600), (int)(rem / 60 % 60), (int)(rem % 60),
           fr, utc ? "Z" : "");
}

char wc_value_ts_unit(weir_type t) {
  switch (t.id) {
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_US_UTC: return 'u';
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_NS_UTC: return 'n';
  default: return 0;
  }
}

bool wc_value_ts_utc(weir_type t) { return t.id == WEIR_TYPE_TS_US_UTC || t.id == WEIR_TYPE_TS_NS_UTC; }

/* ---- doubles and bytes --------------------------------------------------------------------------- */

void wc_value_double_format(double d, char *out, size_t size) {
  if (isnan(d)) {
    snprintf(out, size, "NaN");
    return;
  }
  if (isinf(d)) {
    snprintf(out, size, d < 0 ? "-inf" : "inf");
    return;
  }
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(out, size, "%.*g", prec, d);
    if (strtod(out, NULL) == d) return;
  }
}

json_t *wc_value_double_json(double d) {
  if (isnan(d) || isinf(d)) {
    char buf[8];
    wc_value_double_format(d, buf, sizeof buf);
    return json_string(buf);
  }
  return json_real(d);
}

/* Length of the valid UTF-8 sequence at p (at most n bytes), 0 when invalid. */
static size_t utf8_len(const uint8_t *p, size_t n) {
  uint8_t c = p[0];
  size_t len;
  uint32_t cp;
  if (c < 0x80) return 1;
  if ((c & 0xE0) == 0xC0) {
    len = 2;
    cp = c & 0x1F;
  } else if ((c & 0xF0) == 0xE0) {
    len = 3;
    cp = c & 0x0F;
  } else if ((c & 0xF8) == 0xF0) {
    len = 4;
    cp = c & 0x07;
  } else {
    return 0;
  }
  if (len > n) return 0;
  for (size_t i = 1; i < len; i++) {
    if ((p[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (p[i] & 0x3F);
  }
  if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10FFFF ||
      (cp >= 0xD800 && cp <= 0xDFFF))
    return 0;
  return len;
}

json_t *wc_value_bytes_json(const uint8_t *p, size_t n) {
  size_t i = 0;
  for (; i < n; i++) {
    size_t l = utf8_len(p + i, n - i);
    if (!l || p[i] == 0) break;
    i += l - 1;
  }
  if (i == n) return json_stringn((const char *)p, n);
  wr_buf b = WEIR_BUF_INIT;
  for (i = 0; i < n;) {
    size_t l = p[i] ? utf8_len(p + i, n - i) : 0;
    if (l) {
      wr_buf_append(&b, p + i, l);
      i += l;
    } else {
      wr_buf_printf(&b, "\\x%02x", p[i]);
      i++;
    }
  }
  json_t *s = json_stringn(wr_buf_cstr(&b), b.len);
  wr_buf_free(&b);
  return s;
}

bool wc_real_to_int64(double d, int64_t *out) {
  /* -2^63 is exact as a double, 2^63 is the first double past INT64_MAX. */
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != trunc(d)) return false;
  *out = (int64_t)d;
  return true;
}
