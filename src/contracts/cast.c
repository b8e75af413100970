/*
 * cast.c -- the widening casts of docs/types.md on Arrow arrays.
 *
 * wr_cast_check (types module) decides whether a cast is allowed; this file performs
 * it, reusing every buffer it can instead of copying:
 *   - the validity bitmap is always borrowed: the output array starts at bit (off & 7)
 *     of the input's bitmap byte (off >> 3), so no bit is shifted or copied;
 *   - string -> large_string and binary -> large_binary rebuild only the offsets (int32
 *     to int64) and borrow the character data;
 *   - large_string -> large_binary and a decimal whose scale does not change are the
 *     same bytes under another type: every buffer is borrowed;
 *   - string views and dictionaries are decoded (their layout has no large_* equivalent).
 * Numeric casts write a new values buffer. A timestamp that overflows the finer unit is
 * the one case where a "widening" cast can change a value; it is reported, never wrapped.
 *
 * A column declared cast "exact" also takes the narrowing casts of wr_cast_exact
 * (types.h), checked value by value: wc_cast_exact_column below.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

/* ---- the output array ------------------------------------------------------------------------------ */

/* A new array for `len` rows starting at bit `o` of a borrowed validity bitmap (the
 * input's, from its byte off >> 3). Returns o. */
static int64_t start_output(const struct ArrowArray *src, int64_t off, int64_t len, int64_t n_buffers,
                            wr_arrow_batch *owner, struct ArrowArray *out) {
  int64_t o = off & 7;
  wr_arrow_array_init(out, len, n_buffers, 0);
  out->offset = o;
  const uint8_t *valid = src->n_buffers > 0 ? src->buffers[0] : NULL;
  if (valid) {
    wr_arrow_array_borrow_buffer(out, 0, valid + (off >> 3), owner);
    out->null_count = len - wr_bitmap_count(valid, off, len);
  } else {
    out->null_count = 0;
  }
  return o;
}

/* Same buffers, another type: the output is the input (offset and all). */
static void share_all(const struct ArrowArray *src, int64_t off, int64_t len, wr_arrow_batch *owner,
                      struct ArrowArray *out) {
  wr_arrow_array_init(out, len, src->n_buffers, 0);
  out->offset = off;
  for (int64_t i = 0; i < src->n_buffers; i++)
    if (src->buffers[i]) wr_arrow_array_borrow_buffer(out, i, src->buffers[i], i == 0 ? owner : NULL);
  /* Hold the owner even when there is no validity buffer. */
  if (!src->buffers[0]) wr_arrow_array_borrow_buffer(out, 0, NULL, owner);
  const uint8_t *valid = src->buffers[0];
  out->null_count = valid ? len - wr_bitmap_count(valid, off, len) : 0;
}

/* ---- numbers ------------------------------------------------------------------------------------------ */

static float half_to_float(uint16_t h) {
  uint32_t sign = (uint32_t)(h & 0x8000) << 16;
  uint32_t exp = (h >> 10) & 0x1F, mant = h & 0x3FF;
  uint32_t bits;
  if (exp == 0) {
    if (mant == 0) {
      bits = sign;
    } else { /* subnormal: normalise */
      exp = 127 - 15 + 1;
      while (!(mant & 0x400)) {
        mant <<= 1;
        exp--;
      }
      mant &= 0x3FF;
      bits = sign | (exp << 23) | (mant << 13);
    }
  } else if (exp == 31) {
    bits = sign | 0x7F800000u | (mant << 13);
  } else {
    bits = sign | ((exp - 15 + 127) << 23) | (mant << 13);
  }
  float f;
  memcpy(&f, &bits, 4);
  return f;
}

#define CONVERT_LOOP(SRC_T, DST_T)                                           \
  do {                                                                       \
    const SRC_T *s_ = (const SRC_T *)src->buffers[1] + off;                  \
    DST_T *d_ = (DST_T *)dst + o;                                            \
    for (int64_t i_ = 0; i_ < len; i_++) d_[i_] = (DST_T)s_[i_];             \
  } while (0)

#define CONVERT_FROM(SRC_T)                                                  \
  do {                                                                       \
    switch (t.id) {                                                          \
    case WEIR_TYPE_INT32: CONVERT_LOOP(SRC_T, int32_t); break;               \
    case WEIR_TYPE_INT64: CONVERT_LOOP(SRC_T, int64_t); break;               \
    case WEIR_TYPE_FLOAT32: CONVERT_LOOP(SRC_T, float); break;               \
    case WEIR_TYPE_FLOAT64: CONVERT_LOOP(SRC_T, double); break;              \
    default: goto unsupported;                                               \
    }                                                                        \
  } while (0)

static size_t width_of(weir_type t) {
  switch (t.id) {
  case WEIR_TYPE_INT32:
  case WEIR_TYPE_FLOAT32:
  case WEIR_TYPE_DATE32: return 4;
  case WEIR_TYPE_DECIMAL: return 16;
  default: return 8;
  }
}

WC_SIMD_CLONES static int cast_numeric(const char *f, const struct ArrowArray *src, int64_t off, int64_t len, weir_type t,
                        wr_arrow_batch *owner, struct ArrowArray *out, weir_error *err) {
  int64_t o = start_output(src, off, len, 2, owner, out);
  /* Every value of [o, o + len) is written below. */
  void *dst = wr_arrow_array_alloc_buffer_uninit(out, 1, (size_t)(o + len) * width_of(t));
  if (!f[1]) {
    switch (f[0]) {
    case 'c': CONVERT_FROM(int8_t); return WEIR_OK;
    case 'C': CONVERT_FROM(uint8_t); return WEIR_OK;
    case 's': CONVERT_FROM(int16_t); return WEIR_OK;
    case 'S': CONVERT_FROM(uint16_t); return WEIR_OK;
    case 'i': CONVERT_FROM(int32_t); return WEIR_OK;
    case 'I': CONVERT_FROM(uint32_t); return WEIR_OK;
    case 'f': CONVERT_FROM(float); return WEIR_OK;
    case 'e': {
      const uint16_t *s = (const uint16_t *)src->buffers[1] + off;
      if (t.id == WEIR_TYPE_FLOAT32) {
        float *d = (float *)dst + o;
        for (int64_t i = 0; i < len; i++) d[i] = half_to_float(s[i]);
      } else if (t.id == WEIR_TYPE_FLOAT64) {
        double *d = (double *)dst + o;
        for (int64_t i = 0; i < len; i++) d[i] = half_to_float(s[i]);
      } else {
        goto unsupported;
      }
      return WEIR_OK;
    }
    default: break;
    }
  }
unsupported:
  out->release(out);
  return wr_seterr(err, WEIR_EUNSUPPORTED, "no cast from Arrow format \"%s\" to this type", f);
}

/* 10^n in 128 bits (n <= 38). */
static wr_i128 pow10_i128(int n) {
  wr_i128 v = 1;
  for (int k = 0; k < n; k++) v *= 10;
  return v;
}

/* decimal128(p, s) -> decimal128(p', s'): s' >= s. The same scale is the same bytes. */
static int cast_decimal(const char *f, const struct ArrowArray *src, int64_t off, int64_t len, weir_type t,
                        wr_arrow_batch *owner, struct ArrowArray *out) {
  int p = 0, s = 0;
  sscanf(f + 2, "%d,%d", &p, &s);
  if (s == t.scale) {
    share_all(src, off, len, owner, out);
    return WEIR_OK;
  }
  wr_i128 factor = pow10_i128(t.scale - s);
  int64_t o = start_output(src, off, len, 2, owner, out);
  wr_i128 *d = (wr_i128 *)wr_arrow_array_alloc_buffer(out, 1, (size_t)(o + len) * 16) + o;
  const uint8_t *sv = (const uint8_t *)src->buffers[1] + (size_t)off * 16;
  /* Arrow decimals are little-endian two's complement 128-bit integers; memcpy keeps the
   * read aligned-agnostic. The precision check guarantees the product fits. */
  for (int64_t i = 0; i < len; i++) {
    wr_i128 v;
    memcpy(&v, sv + i * 16, 16);
    d[i] = v * factor;
  }
  return WEIR_OK;
}

/* date32 (days) -> date64 (milliseconds): always exact in int64. */
static void cast_date64(const struct ArrowArray *src, int64_t off, int64_t len, wr_arrow_batch *owner,
                        struct ArrowArray *out) {
  int64_t o = start_output(src, off, len, 2, owner, out);
  int64_t *d = (int64_t *)wr_arrow_array_alloc_buffer(out, 1, (size_t)(o + len) * 8) + o;
  const int32_t *s = (const int32_t *)src->buffers[1] + off;
  for (int64_t i = 0; i < len; i++) d[i] = (int64_t)s[i] * 86400000;
}

static int64_t unit_factor(char from, char to) {
  static const char units[] = "smun";
  int a = (int)(strchr(units, from) - units), b = (int)(strchr(units, to) - units);
  int64_t f = 1;
  for (int k = a; k < b; k++) f *= 1000;
  return f;
}

/* Timestamps to a finer unit. Multiplying can overflow int64 (a date past 2262 in ns):
 * those rows are reported as a violation instead of being wrapped into another date. */
static void cast_timestamp(const char *f, const struct ArrowArray *src, int64_t off, int64_t len, weir_type t,
                           wr_arrow_batch *owner, struct ArrowArray *out, rule_hits *overflow, size_t batch,
                           int64_t row_base) {
  int64_t factor = unit_factor(f[2], wc_value_ts_unit(t));
  int64_t o = start_output(src, off, len, 2, owner, out);
  int64_t *d = (int64_t *)wr_arrow_array_alloc_buffer(out, 1, (size_t)(o + len) * 8) + o;
  const int64_t *s = (const int64_t *)src->buffers[1] + off;
  const uint8_t *valid = src->buffers[0];
  for (int64_t i = 0; i < len; i++) {
    if (__builtin_mul_overflow(s[i], factor, &d[i])) {
      d[i] = 0;
      if (valid && !wr_bit_get(valid, off + i)) continue;
      if (overflow) {
        char txt[64];
        wc_value_timestamp_format(s[i], f[2], f[4] != 0, txt, sizeof txt);
        wc_hits_add(overflow, batch, i, len, row_base + i, wc_hits_want_sample(overflow) ? json_string(txt) : NULL);
      }
    }
  }
}

/* ---- strings and binaries --------------------------------------------------------------------------------- */

/* 32-bit offsets -> 64-bit offsets; the character data is borrowed. */
static void cast_offsets32(const struct ArrowArray *src, int64_t off, int64_t len, wr_arrow_batch *owner,
                           struct ArrowArray *out) {
  int64_t o = start_output(src, off, len, 3, owner, out);
  int64_t *d = wr_arrow_array_alloc_buffer(out, 1, (size_t)(o + len + 1) * 8);
  const int32_t *s = (const int32_t *)src->buffers[1] + off;
  for (int64_t i = 0; i < o; i++) d[i] = s[0];
  for (int64_t i = 0; i <= len; i++) d[o + i] = s[i];
  wr_arrow_array_borrow_buffer(out, 2, src->buffers[2], owner);
}

/* fixed_size_binary[w] -> large_binary: offsets i * w over the borrowed bytes. */
static void cast_fixed_binary(const char *f, const struct ArrowArray *src, int64_t off, int64_t len,
                              wr_arrow_batch *owner, struct ArrowArray *out) {
  int64_t w = atoll(f + 2);
  int64_t o = start_output(src, off, len, 3, owner, out);
  int64_t *d = wr_arrow_array_alloc_buffer(out, 1, (size_t)(o + len + 1) * 8);
  for (int64_t i = 0; i <= o + len; i++) d[i] = (i < o ? 0 : i - o) * w;
  wr_arrow_array_borrow_buffer(out, 2, (const uint8_t *)src->buffers[1] + off * w, owner);
}

/* string_view / binary_view -> large_*: views point into several buffers (or hold short
 * values inline), so the bytes are gathered into one data buffer. */
static void cast_views(const struct ArrowArray *src, int64_t off, int64_t len, wr_arrow_batch *owner,
                       struct ArrowArray *out) {
  int64_t o = start_output(src, off, len, 3, owner, out);
  const uint8_t *views = (const uint8_t *)src->buffers[1] + (size_t)off * 16;
  const uint8_t *valid = src->buffers[0];
  int64_t total = 0;
  for (int64_t i = 0; i < len; i++) {
    int32_t n;
    memcpy(&n, views + i * 16, 4);
    if (!valid || wr_bit_get(valid, off + i)) total += n;
  }
  int64_t *offs = wr_arrow_array_alloc_buffer(out, 1, (size_t)(o + len + 1) * 8);
  uint8_t *data = wr_arrow_array_alloc_buffer(out, 2, (size_t)(total ? total : 1));
  int64_t pos = 0;
  for (int64_t i = 0; i < len; i++) {
    offs[o + i] = pos;
    if (valid && !wr_bit_get(valid, off + i)) continue;
    const uint8_t *v = views + i * 16;
    int32_t n, buf, at;
    memcpy(&n, v, 4);
    if (n <= 12) {
      memcpy(data + pos, v + 4, (size_t)n);
    } else {
      memcpy(&buf, v + 8, 4);
      memcpy(&at, v + 12, 4);
      memcpy(data + pos, (const uint8_t *)src->buffers[2 + buf] + at, (size_t)n);
    }
    pos += n;
  }
  offs[o + len] = pos;
}

/* ---- dictionaries ----------------------------------------------------------------------------------------------- */

static int64_t index_at(const char *f, const void *p, int64_t i) {
  switch (f[0]) {
  case 'c': return ((const int8_t *)p)[i];
  case 'C': return ((const uint8_t *)p)[i];
  case 's': return ((const int16_t *)p)[i];
  case 'S': return ((const uint16_t *)p)[i];
  case 'i': return ((const int32_t *)p)[i];
  case 'I': return ((const uint32_t *)p)[i];
  case 'L': return (int64_t)((const uint64_t *)p)[i];
  default: return ((const int64_t *)p)[i];
  }
}

/* Decodes a dictionary column: the (small) dictionary is cast to the declared type
 * first, then each row takes its value, so the per-row work is one copy whatever the
 * value type was. */
static int cast_dictionary(const struct ArrowSchema *field, const struct ArrowArray *src, int64_t off, int64_t len,
                           weir_type t, wr_arrow_batch *owner, struct ArrowArray *out, rule_hits *overflow,
                           size_t batch, int64_t row_base, weir_error *err) {
  const struct ArrowArray *dict = src->dictionary;
  struct ArrowArray dv;
  int rc = wc_cast_column(field->dictionary, dict, dict->offset, dict->length, t, owner, &dv, overflow, batch,
                       row_base, err);
  if (rc) return rc;
  const uint8_t *dvalid = dv.n_buffers > 0 ? dv.buffers[0] : NULL;
  const uint8_t *ivalid = src->n_buffers > 0 ? src->buffers[0] : NULL;
  const void *idx = src->buffers[1];
  const char *f = field->format;
  bool var = t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BINARY;
  bool is_bool = t.id == WEIR_TYPE_BOOL;
  wr_arrow_array_init(out, len, var ? 3 : 2, 0);
  uint8_t *valid = wr_arrow_array_alloc_buffer(out, 0, (size_t)(len + 7) / 8);
  int64_t nulls = 0;
  if (var) {
    const int64_t *doffs = dv.buffers[1];
    const uint8_t *ddata = dv.buffers[2];
    int64_t total = 0;
    for (int64_t i = 0; i < len; i++) {
      if (ivalid && !wr_bit_get(ivalid, off + i)) continue;
      int64_t k = index_at(f, idx, off + i) + dv.offset;
      total += doffs[k + 1] - doffs[k];
    }
    int64_t *offs = wr_arrow_array_alloc_buffer(out, 1, (size_t)(len + 1) * 8);
    uint8_t *data = wr_arrow_array_alloc_buffer(out, 2, (size_t)(total ? total : 1));
    int64_t pos = 0;
    for (int64_t i = 0; i < len; i++) {
      offs[i] = pos;
      if (ivalid && !wr_bit_get(ivalid, off + i)) {
        nulls++;
        continue;
      }
      int64_t k = index_at(f, idx, off + i) + dv.offset;
      if (dvalid && !wr_bit_get(dvalid, k)) {
        nulls++;
        continue;
      }
      wr_bit_set(valid, i);
      int64_t n = doffs[k + 1] - doffs[k];
      memcpy(data + pos, ddata + doffs[k], (size_t)n);
      pos += n;
    }
    offs[len] = pos;
  } else {
    size_t w = is_bool ? 0 : width_of(t);
    uint8_t *vals = wr_arrow_array_alloc_buffer(out, 1, is_bool ? (size_t)(len + 7) / 8 : (size_t)len * w);
    const uint8_t *dvals = dv.buffers[1];
    for (int64_t i = 0; i < len; i++) {
      if (ivalid && !wr_bit_get(ivalid, off + i)) {
        nulls++;
        continue;
      }
      int64_t k = index_at(f, idx, off + i) + dv.offset;
      if (dvalid && !wr_bit_get(dvalid, k)) {
        nulls++;
        continue;
      }
      wr_bit_set(valid, i);
      if (is_bool) {
        if (wr_bit_get(dvals, k)) wr_bit_set(vals, i);
      } else {
        memcpy(vals + (size_t)i * w, dvals + (size_t)k * w, w);
      }
    }
  }
  out->null_count = nulls;
  dv.release(&dv);
  return WEIR_OK;
}

/* ---- exact casts (a column declared cast "exact") ---------------------------------------------------------------
 *
 * A narrowing cast applied value by value: each value is converted and converted back
 * (or checked for lost digits), 64 rows at a time; the "not exact" bits of a word are
 * computed without branches, masked with the validity word (a null's slot holds
 * anything), and only set bits are visited to record the row and the value. Values that
 * do not convert are written as 0 and the column is reported, so nothing is written. */

/* The value of row i of a source column, as a sample (the source's own type). */
static json_t *source_sample(const char *f, const struct ArrowArray *a, int64_t i) {
  weir_type wt;
  const void *v = a->buffers[1];
  char txt[96];
  if (f[0] == 'd' && f[1] == ':') {
    int p = 0, sc = 0;
    sscanf(f + 2, "%d,%d", &p, &sc);
    wr_i128 d;
    memcpy(&d, (const uint8_t *)v + i * 16, 16);
    wc_value_decimal_format(d, sc, txt, sizeof txt);
    return json_string(txt);
  }
  if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') {
    wc_value_timestamp_format(((const int64_t *)v)[i], f[2], f[4] != 0, txt, sizeof txt);
    return json_string(txt);
  }
  if (!f[1]) {
    switch (f[0]) {
    case 'c': return json_integer(((const int8_t *)v)[i]);
    case 'C': return json_integer(((const uint8_t *)v)[i]);
    case 's': return json_integer(((const int16_t *)v)[i]);
    case 'S': return json_integer(((const uint16_t *)v)[i]);
    case 'I': return json_integer(((const uint32_t *)v)[i]);
    case 'L': {
      uint64_t u = ((const uint64_t *)v)[i];
      if (u <= (uint64_t)INT64_MAX) return json_integer((json_int_t)u);
      snprintf(txt, sizeof txt, "%llu", (unsigned long long)u);
      return json_string(txt);
    }
    case 'e': return wc_value_double_json(half_to_float(((const uint16_t *)v)[i]));
    default: break;
    }
  }
  if (wr_type_from_arrow_format(f, &wt)) return wc_value_sample(wt, a, i);
  return json_null();
}

/* Records the set bits of `bad` (rows base + k of the cast) as values that do not
 * convert exactly: row numbers with their value, side by side. */
static void record_inexact(uint64_t bad, int64_t base, const char *f, const struct ArrowArray *src,
                           int64_t off, int64_t len, rule_hits *h, size_t batch, int64_t row_base) {
  while (bad) {
    int k = __builtin_ctzll(bad);
    bad &= bad - 1;
    int64_t i = base + k;
    json_t *sample = h && h->n_rows < h->limit ? source_sample(f, src, off + i) : NULL;
    if (h)
      wc_hits_add(h, batch, i, len, row_base + i, sample);
    else
      json_decref(sample);
  }
}

/* Converts the `len` values of `src` from `off` into `dst` (from index o): CONV reads x,
 * sets y and ok; y is written when ok, else 0. */
#define EXACT_LOOP(SRC_T, DST_T, CONV)                                          \
  do {                                                                          \
    const SRC_T *s_ = (const SRC_T *)src->buffers[1] + off;                     \
    DST_T *d_ = (DST_T *)dst + o;                                               \
    for (int64_t b_ = 0; b_ < len; b_ += 64) {                                  \
      int64_t n_ = len - b_ < 64 ? len - b_ : 64;                               \
      uint64_t bad_ = 0;                                                        \
      for (int64_t k_ = 0; k_ < n_; k_++) {                                     \
        SRC_T x = s_[b_ + k_];                                                  \
        DST_T y;                                                                \
        bool ok;                                                                \
        CONV;                                                                   \
        d_[b_ + k_] = ok ? y : (DST_T)0;                                        \
        bad_ |= (uint64_t)!ok << k_;                                            \
      }                                                                         \
      bad_ &= load_bits(valid, off + b_, off + len);                            \
      if (bad_) record_inexact(bad_, b_, f, src, off, len, h, batch, row_base); \
    }                                                                           \
  } while (0)

/* A double (any float widened to one) to an integer of [lo, hi]: integral and in range.
 * The range test comes first, so the conversion never sees a value it cannot hold. */
#define FLOAT_TO_INT(DST_T, LO, HI)          \
  do {                                       \
    double dx_ = (double)x;                  \
    bool in_ = (dx_ >= (LO)) & (dx_ < (HI)); \
    y = (DST_T)(in_ ? dx_ : 0.0);            \
    ok = in_ & ((double)y == dx_);           \
  } while (0)

#define INT_TO_INT(DST_T, LO, HI)   \
  do {                              \
    ok = (x >= (LO)) & (x <= (HI)); \
    y = ok ? (DST_T)x : (DST_T)0;   \
  } while (0)

#define UINT_TO_INT(DST_T, HI)    \
  do {                            \
    ok = x <= (HI);               \
    y = ok ? (DST_T)x : (DST_T)0; \
  } while (0)

/* An integer to a float: exact when the float converts back to the same integer (the
 * range test keeps the conversion back defined: 2^63 as a double is no int64). */
#define SINT_TO_FLOAT(DST_T)                                           \
  do {                                                                 \
    y = (DST_T)x;                                                      \
    double dy_ = (double)y;                                            \
    ok = dy_ >= -0x1p63 && dy_ < 0x1p63 && (int64_t)dy_ == (int64_t)x; \
  } while (0)

#define UINT_TO_FLOAT(DST_T)                           \
  do {                                                 \
    y = (DST_T)x;                                      \
    double dy_ = (double)y;                            \
    ok = dy_ < 0x1p64 && (uint64_t)dy_ == (uint64_t)x; \
  } while (0)

/* double -> Int64 / Int32, the common case (a SUM or a division in a model), in two steps
 * per 64-row word. First a loop the compiler vectorises: for |x| < 2^51, x + 1.5 * 2^52
 * holds x rounded to an integer in its low mantissa bits, so subtracting it back tells
 * whether x was integral, and its bits minus the constant's bits are the integer, with
 * no float-to-integer instruction (AVX2 has none for 64 bits). A word in which any value
 * fails that test (a fraction, NaN, a huge magnitude, or a null's slot holding one) is
 * done again by the scalar conversion, which is exact for every double. */
WC_SIMD_CLONES static void exact_f64_to_int(const struct ArrowArray *src, int64_t off, int64_t len, bool to32,
                                            const uint8_t *valid, void *dst, int64_t o, rule_hits *h,
                                            size_t batch, int64_t row_base, const char *f) {
  const double magic = 0x1.8p52;
  const int64_t magic_bits = 0x4338000000000000LL;
  const double *s = (const double *)src->buffers[1] + off;
  int64_t *d64 = (int64_t *)dst + o;
  int32_t *d32 = (int32_t *)dst + o;
  for (int64_t b = 0; b < len; b += 64) {
    int64_t n = len - b < 64 ? len - b : 64;
    int64_t tmp[64];
    uint8_t okb[64];
    for (int64_t k = 0; k < n; k++) {
      double x = s[b + k];
      double t = x + magic;
      int64_t bits;
      memcpy(&bits, &t, sizeof bits);
      int64_t y = bits - magic_bits;
      bool ok = (fabs(x) < 0x1p51) & (t - magic == x);
      if (to32) ok &= (y >= INT32_MIN) & (y <= INT32_MAX);
      tmp[k] = ok ? y : 0;
      okb[k] = ok;
    }
    uint64_t bad = 0;
    for (int64_t k = 0; k < n; k++) bad |= (uint64_t)(okb[k] ^ 1) << k;
    if (bad) {
      /* The exact scalar conversion, for this word only. */
      bad = 0;
      for (int64_t k = 0; k < n; k++) {
        double x = s[b + k];
        int64_t y = 0;
        bool ok;
        if (to32) {
          bool in = (x >= -0x1p31) & (x < 0x1p31);
          y = (int32_t)(in ? x : 0.0);
          ok = in & ((double)y == x);
        } else {
          bool in = (x >= -0x1p63) & (x < 0x1p63);
          y = (int64_t)(in ? x : 0.0);
          ok = in & ((double)y == x);
        }
        tmp[k] = ok ? y : 0;
        bad |= (uint64_t)!ok << k;
      }
    }
    if (to32)
      for (int64_t k = 0; k < n; k++) d32[b + k] = (int32_t)tmp[k];
    else
      memcpy(d64 + b, tmp, (size_t)n * sizeof *tmp);
    bad &= load_bits(valid, off + b, off + len);
    if (bad) record_inexact(bad, b, f, src, off, len, h, batch, row_base);
  }
}

/* Integer and float sources to Int32 / Int64 / Float32 / Float64. */
WC_SIMD_CLONES static int exact_numeric(const char *f, const struct ArrowArray *src, int64_t off, int64_t len,
                                        weir_type t, const uint8_t *valid, void *dst, int64_t o, rule_hits *h,
                                        size_t batch, int64_t row_base) {
  char c = f[1] ? 0 : f[0];
  switch (t.id) {
  case WEIR_TYPE_INT64:
    switch (c) {
    case 'g': exact_f64_to_int(src, off, len, false, valid, dst, o, h, batch, row_base, f); return WEIR_OK;
    case 'f': EXACT_LOOP(float, int64_t, FLOAT_TO_INT(int64_t, -0x1p63, 0x1p63)); return WEIR_OK;
    case 'L': EXACT_LOOP(uint64_t, int64_t, UINT_TO_INT(int64_t, (uint64_t)INT64_MAX)); return WEIR_OK;
    default: break;
    }
    break;
  case WEIR_TYPE_INT32:
    switch (c) {
    case 'g': exact_f64_to_int(src, off, len, true, valid, dst, o, h, batch, row_base, f); return WEIR_OK;
    case 'f': EXACT_LOOP(float, int32_t, FLOAT_TO_INT(int32_t, -0x1p31, 0x1p31)); return WEIR_OK;
    case 'l': EXACT_LOOP(int64_t, int32_t, INT_TO_INT(int32_t, INT32_MIN, INT32_MAX)); return WEIR_OK;
    case 'I': EXACT_LOOP(uint32_t, int32_t, UINT_TO_INT(int32_t, (uint32_t)INT32_MAX)); return WEIR_OK;
    case 'L': EXACT_LOOP(uint64_t, int32_t, UINT_TO_INT(int32_t, (uint64_t)INT32_MAX)); return WEIR_OK;
    default: break;
    }
    break;
  case WEIR_TYPE_FLOAT64:
    switch (c) {
    case 'l': EXACT_LOOP(int64_t, double, SINT_TO_FLOAT(double)); return WEIR_OK;
    case 'L': EXACT_LOOP(uint64_t, double, UINT_TO_FLOAT(double)); return WEIR_OK;
    default: break;
    }
    break;
  case WEIR_TYPE_FLOAT32:
    switch (c) {
    case 'i': EXACT_LOOP(int32_t, float, SINT_TO_FLOAT(float)); return WEIR_OK;
    case 'l': EXACT_LOOP(int64_t, float, SINT_TO_FLOAT(float)); return WEIR_OK;
    case 'I': EXACT_LOOP(uint32_t, float, UINT_TO_FLOAT(float)); return WEIR_OK;
    case 'L': EXACT_LOOP(uint64_t, float, UINT_TO_FLOAT(float)); return WEIR_OK;
    case 'g':
      /* NaN stays NaN and infinities stay infinite; a finite double must be a float. */
      EXACT_LOOP(double, float, {
        ok = x != x || (x >= -FLT_MAX && x <= FLT_MAX) || x - x != 0;
        y = ok ? (float)x : 0.0f;
        ok = ok && ((double)y == x || x != x);
      });
      return WEIR_OK;
    default: break;
    }
    break;
  default: break;
  }
  return WEIR_EUNSUPPORTED;
}

/* halffloat -> Int32 / Int64: through float (every half is a float). */
static void exact_half(const char *f, const struct ArrowArray *src, int64_t off, int64_t len, weir_type t,
                       const uint8_t *valid, void *dst, int64_t o, rule_hits *h, size_t batch,
                       int64_t row_base) {
  if (t.id == WEIR_TYPE_INT32)
    EXACT_LOOP(uint16_t, int32_t, {
      float hx = half_to_float(x);
      double dx = hx;
      ok = dx >= -0x1p31 && dx < 0x1p31;
      y = ok ? (int32_t)dx : 0;
      ok = ok && (double)y == dx;
    });
  else
    EXACT_LOOP(uint16_t, int64_t, {
      float hx = half_to_float(x);
      double dx = hx;
      ok = dx >= -0x1p63 && dx < 0x1p63;
      y = ok ? (int64_t)dx : 0;
      ok = ok && (double)y == dx;
    });
}

/* decimal128(p, s) -> Decimal(p', s') or an integer: no non-zero digit below the target
 * scale, and the result within the target's digits (or range). */
static void exact_decimal(const char *f, const struct ArrowArray *src, int64_t off, int64_t len, weir_type t,
                          const uint8_t *valid, void *dst, int64_t o, rule_hits *h, size_t batch,
                          int64_t row_base) {
  int p = 0, sc = 0;
  sscanf(f + 2, "%d,%d", &p, &sc);
  int to_scale = t.id == WEIR_TYPE_DECIMAL ? t.scale : 0;
  wr_i128 div = to_scale < sc ? pow10_i128(sc - to_scale) : 1;
  wr_i128 mul = to_scale > sc ? pow10_i128(to_scale - sc) : 1;
  wr_i128 hi, lo;
  if (t.id == WEIR_TYPE_DECIMAL) {
    /* |result| < 10^p'; before the scale-up, |value| < 10^(p' - (s' - s)). */
    hi = pow10_i128(t.precision - (to_scale > sc ? to_scale - sc : 0)) - 1;
    lo = -hi;
  } else if (t.id == WEIR_TYPE_INT32) {
    hi = INT32_MAX;
    lo = INT32_MIN;
  } else {
    hi = INT64_MAX;
    lo = INT64_MIN;
  }
  const uint8_t *sv = (const uint8_t *)src->buffers[1] + (size_t)off * 16;
  for (int64_t b = 0; b < len; b += 64) {
    int64_t n = len - b < 64 ? len - b : 64;
    uint64_t bad = 0;
    for (int64_t k = 0; k < n; k++) {
      wr_i128 x;
      memcpy(&x, sv + (b + k) * 16, 16);
      bool ok = div == 1 || x % div == 0;
      wr_i128 q = div == 1 ? x : x / div;
      ok = ok && q >= lo && q <= hi;
      if (!ok) q = 0;
      if (t.id == WEIR_TYPE_DECIMAL) {
        wr_i128 y = q * mul;
        memcpy((uint8_t *)dst + (size_t)(o + b + k) * 16, &y, 16);
      } else if (t.id == WEIR_TYPE_INT32) {
        ((int32_t *)dst)[o + b + k] = (int32_t)q;
      } else {
        ((int64_t *)dst)[o + b + k] = (int64_t)q;
      }
      bad |= (uint64_t)!ok << k;
    }
    bad &= load_bits(valid, off + b, off + len);
    if (bad) record_inexact(bad, b, f, src, off, len, h, batch, row_base);
  }
}

/* A count of fine units to a coarser unit: a whole number of them. The divisor is a
 * constant in each loop, so the compiler divides by multiplying. */
#define DIV_EXACT(D)             \
  EXACT_LOOP(int64_t, int64_t, { \
    y = x / (D);                 \
    ok = x % (D) == 0;           \
  })

static void exact_timestamp(const char *f, const struct ArrowArray *src, int64_t off, int64_t len,
                            weir_type t, const uint8_t *valid, void *dst, int64_t o, rule_hits *h,
                            size_t batch, int64_t row_base) {
  int64_t factor = unit_factor(wc_value_ts_unit(t), f[2]);
  if (factor == 1000)
    DIV_EXACT(1000);
  else if (factor == 1000000)
    DIV_EXACT(1000000);
  else
    DIV_EXACT(1000000000);
}

/* date64 (milliseconds) -> date32 (days): at midnight, and within int32 days. */
static void exact_date32(const char *f, const struct ArrowArray *src, int64_t off, int64_t len,
                         const uint8_t *valid, void *dst, int64_t o, rule_hits *h, size_t batch,
                         int64_t row_base) {
  EXACT_LOOP(int64_t, int32_t, {
    int64_t q = x / 86400000;
    ok = x % 86400000 == 0 && q >= INT32_MIN && q <= INT32_MAX;
    y = ok ? (int32_t)q : 0;
  });
}

int wc_cast_exact_column(const struct ArrowSchema *field, const struct ArrowArray *src, int64_t off,
                         int64_t len, weir_type t, wr_arrow_batch *owner, struct ArrowArray *out,
                         rule_hits *inexact, size_t batch, int64_t row_base, weir_error *err) {
  const char *f = field->format;
  int64_t o = start_output(src, off, len, 2, owner, out);
  void *dst = wr_arrow_array_alloc_buffer_uninit(out, 1, (size_t)(o + len) * width_of(t));
  const uint8_t *valid = src->n_buffers > 0 ? src->buffers[0] : NULL;
  rule_hits *h = inexact;
  if (f[0] == 'd' && f[1] == ':') {
    exact_decimal(f, src, off, len, t, valid, dst, o, h, batch, row_base);
    return WEIR_OK;
  }
  if (f[0] == 't' && f[1] == 's') {
    exact_timestamp(f, src, off, len, t, valid, dst, o, h, batch, row_base);
    return WEIR_OK;
  }
  if (!strcmp(f, "tdm") && t.id == WEIR_TYPE_DATE32) {
    exact_date32(f, src, off, len, valid, dst, o, h, batch, row_base);
    return WEIR_OK;
  }
  if (!strcmp(f, "e") && (t.id == WEIR_TYPE_INT32 || t.id == WEIR_TYPE_INT64)) {
    exact_half(f, src, off, len, t, valid, dst, o, h, batch, row_base);
    return WEIR_OK;
  }
  if (exact_numeric(f, src, off, len, t, valid, dst, o, h, batch, row_base) == WEIR_OK) return WEIR_OK;
  out->release(out);
  char tn[WEIR_TYPE_NAME_MAX];
  wr_type_arrow_name(t, tn, sizeof tn);
  return wr_seterr(err, WEIR_EUNSUPPORTED, "no exact cast from Arrow format \"%s\" to %s", f, tn);
}

/* ---- entry point ---------------------------------------------------------------------------------------------------- */

static bool is_int_format(const char *f) { return !f[1] && strchr("cCsSiIlL", f[0]); }

int wc_cast_column(const struct ArrowSchema *field, const struct ArrowArray *src, int64_t off, int64_t len, weir_type t,
                wr_arrow_batch *owner, struct ArrowArray *out, rule_hits *overflow, size_t batch, int64_t row_base,
                weir_error *err) {
  const char *f = field->format;
  if (field->dictionary)
    return cast_dictionary(field, src, off, len, t, owner, out, overflow, batch, row_base, err);
  weir_type exact;
  if (wr_type_from_arrow_format(f, &exact) && wr_type_equal(exact, t)) {
    /* Already the declared type (a dictionary's values, say): share, no copy. */
    share_all(src, off, len, owner, out);
    return WEIR_OK;
  }
  switch (t.id) {
  case WEIR_TYPE_INT32:
  case WEIR_TYPE_INT64:
  case WEIR_TYPE_FLOAT32:
  case WEIR_TYPE_FLOAT64:
    if (is_int_format(f) || !strcmp(f, "f") || !strcmp(f, "e"))
      return cast_numeric(f, src, off, len, t, owner, out, err);
    break;
  case WEIR_TYPE_DECIMAL:
    if (f[0] == 'd' && f[1] == ':') return cast_decimal(f, src, off, len, t, owner, out);
    break;
  case WEIR_TYPE_DATE64:
    if (!strcmp(f, "tdD")) {
      cast_date64(src, off, len, owner, out);
      return WEIR_OK;
    }
    break;
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_US_UTC:
  case WEIR_TYPE_TS_NS_UTC:
    if (f[0] == 't' && f[1] == 's') {
      cast_timestamp(f, src, off, len, t, owner, out, overflow, batch, row_base);
      return WEIR_OK;
    }
    break;
  case WEIR_TYPE_STRING:
  case WEIR_TYPE_BINARY:
    if (!strcmp(f, "u") || !strcmp(f, "z")) {
      cast_offsets32(src, off, len, owner, out);
      return WEIR_OK;
    }
    if (!strcmp(f, "U") || !strcmp(f, "Z")) { /* large_string as large_binary: same bytes */
      share_all(src, off, len, owner, out);
      return WEIR_OK;
    }
    if (!strcmp(f, "vu") || !strcmp(f, "vz")) {
      cast_views(src, off, len, owner, out);
      return WEIR_OK;
    }
    if (f[0] == 'w' && f[1] == ':' && t.id == WEIR_TYPE_BINARY) {
      cast_fixed_binary(f, src, off, len, owner, out);
      return WEIR_OK;
    }
    break;
  default: break;
  }
  char tn[WEIR_TYPE_NAME_MAX];
  wr_type_arrow_name(t, tn, sizeof tn);
  return wr_seterr(err, WEIR_EUNSUPPORTED, "no cast from Arrow format \"%s\" to %s", f, tn);
}
