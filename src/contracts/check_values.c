/*
 * check_values.c -- the rules that read Arrow buffers directly: nulls (a popcount over
 * the validity bitmap), enum (a bitmap or a sorted array for integers, a hash set over
 * (pointer, length) for strings, no copies) and range (bounds converted once into the
 * column's own representation: integers, days, timestamp units, scaled 128-bit
 * decimals, bytes), plus the dispatch of compiled rules.
 *
 * Every loop walks 64 rows at a time: it builds a word of "bad" bits from the values
 * alone (no branch per row, so the compiler can vectorise), masks it with the validity
 * word (nulls pass value rules), and only then visits the few set bits. Columns are in
 * the declared type's layout here (cast.c ran first), so each rule has one loop per
 * physical type, not one per input type.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

/* ---- samples ------------------------------------------------------------------------------------------- */

json_t *wc_value_sample(weir_type t, const struct ArrowArray *a, int64_t i) {
  const void *v = a->buffers[1];
  char txt[96];
  switch (t.id) {
  case WEIR_TYPE_BOOL: return json_boolean(wr_bit_get(v, i));
  case WEIR_TYPE_INT32: return json_integer(((const int32_t *)v)[i]);
  case WEIR_TYPE_INT64: return json_integer(((const int64_t *)v)[i]);
  case WEIR_TYPE_FLOAT32: {
    /* The shortest text that reads back as the same float: 0.1f is "0.1", not the
     * double 0.10000000149011612 it widens to. */
    float f = ((const float *)v)[i];
    if (f != f || f - f != 0) return wc_value_double_json(f);
    for (int prec = 1; prec <= 9; prec++) {
      snprintf(txt, sizeof txt, "%.*g", prec, (double)f);
      if (strtof(txt, NULL) == f) break;
    }
    return json_real(strtod(txt, NULL));
  }
  case WEIR_TYPE_FLOAT64: return wc_value_double_json(((const double *)v)[i]);
  case WEIR_TYPE_DECIMAL: {
    wr_i128 d;
    memcpy(&d, (const uint8_t *)v + i * 16, 16);
    wc_value_decimal_format(d, t.scale, txt, sizeof txt);
    return json_string(txt);
  }
  case WEIR_TYPE_STRING:
  case WEIR_TYPE_BINARY: {
    const int64_t *offs = v;
    const uint8_t *data = a->buffers[2];
    int64_t n = offs[i + 1] - offs[i];
    /* A sample is for reading: very long values are cut. */
    return wc_value_bytes_json(data + offs[i], (size_t)(n > 200 ? 200 : n));
  }
  case WEIR_TYPE_DATE32: wc_value_date_format(((const int32_t *)v)[i], txt, sizeof txt); return json_string(txt);
  case WEIR_TYPE_DATE64: {
    int64_t ms = ((const int64_t *)v)[i];
    wc_value_timestamp_format(ms, 'm', false, txt, sizeof txt);
    return json_string(txt);
  }
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_US_UTC:
  case WEIR_TYPE_TS_NS_UTC:
    wc_value_timestamp_format(((const int64_t *)v)[i], wc_value_ts_unit(t), wc_value_ts_utc(t), txt, sizeof txt);
    return json_string(txt);
  default: return json_null();
  }
}

/* Visits the set bits of `bad` (rows base + j of view v) as hits. */
static inline void report_bits(uint64_t bad, int64_t base, weir_type t, const col_view *v, rule_hits *h) {
  while (bad) {
    int j = __builtin_ctzll(bad);
    bad &= bad - 1;
    int64_t i = base + j;
    wc_hits_add(h, v->batch, i, v->len, v->row_base + i, wc_hits_want_sample(h) ? wc_value_sample(t, v->arr, v->off + i) : NULL);
  }
}

/* ---- nulls ------------------------------------------------------------------------------------------------------ */

int64_t wc_check_nulls(const col_view *v, rule_hits *h) {
  const uint8_t *bits = v->arr->n_buffers > 0 ? v->arr->buffers[0] : NULL;
  if (!strcmp(v->field->format, "n")) { /* the null type: every row is null */
    for (int64_t i = 0; i < v->len; i++) wc_hits_add(h, v->batch, i, v->len, v->row_base + i, NULL);
    return v->len;
  }
  if (!bits) return 0;
  int64_t nulls = v->len - wr_bitmap_count(bits, v->off, v->len);
  if (!nulls) return 0;
  /* Only the first few rows are named; the count is already known, so stop early. */
  int64_t seen = 0;
  for (int64_t base = 0; base < v->len && seen < nulls; base += 64) {
    uint64_t w = ~load_bits(bits, v->off + base, v->off + v->len);
    int64_t m = v->len - base < 64 ? v->len - base : 64;
    if (m < 64) w &= ((uint64_t)1 << m) - 1;
    while (w) {
      int j = __builtin_ctzll(w);
      w &= w - 1;
      if (seen >= h->limit && !h->collect_mask) {
        /* The rows to name are known; the rest is only counted. */
        h->count += nulls - seen;
        return nulls;
      }
      wc_hits_add(h, v->batch, base + j, v->len, v->row_base + base + j, NULL);
      seen++;
    }
  }
  return nulls;
}

/* ---- hashing bytes (enum sets here, unique sets in rule_unique.c) ---------------------------------------------------- */

uint64_t wc_value_hash_bytes(const uint8_t *p, size_t n) {
  /* A multiply-xorshift over 8-byte words: fast on short strings, which enum and key
   * columns mostly hold. Not for adversarial input (sets here live for one validation). */
  uint64_t h = 0x9E3779B97F4A7C15ull ^ (n * 0xff51afd7ed558ccdull);
  while (n >= 8) {
    uint64_t w;
    memcpy(&w, p, 8);
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    h ^= h >> 29;
    p += 8;
    n -= 8;
  }
  uint64_t w = 0;
  memcpy(&w, p, n);
  h = (h ^ w) * 0x94d049bb133111ebull;
  h ^= h >> 31;
  h *= 0xbf58476d1ce4e5b9ull;
  h ^= h >> 27;
  return h;
}

/* ---- enum ------------------------------------------------------------------------------------------------------------ */

typedef enum { ENUM_INT, ENUM_FLOAT, ENUM_DEC, ENUM_BOOL, ENUM_BYTES } enum_kind;

struct enum_set {
  enum_kind kind;
  /* integers (and dates, timestamps): a bitmap over [lo, lo + span) when dense, else a
   * sorted array searched by bisection */
  int64_t *ints;
  size_t n;
  int64_t lo;
  uint64_t span;
  uint8_t *bitmap;
  double *floats;
  wr_i128 *decs;
  bool allow_true, allow_false;
  /* strings: open addressing over copies of the (few) allowed values; when every value
   * is at most 8 bytes (codes, currencies, statuses) also as packed words, compared
   * branch-free without hashing */
  uint64_t *packed;
  uint8_t *packed_len;
  bool all_short;
  char **strs;
  size_t *lens;
  uint64_t *hashes;
  int32_t *slots; /* index + 1, 0 = empty */
  size_t mask;
};

static bool temporal_value(weir_type t, const json_t *j, int64_t *out) {
  if (json_is_integer(j)) {
    *out = json_integer_value(j);
    return true;
  }
  if (!json_is_string(j)) return false;
  bool zone;
  const char *s = json_string_value(j);
  switch (t.id) {
  case WEIR_TYPE_DATE32: return wc_value_date_parse(s, out);
  case WEIR_TYPE_DATE64: return wc_value_timestamp_parse(s, 'm', out, &zone);
  default: return wc_value_timestamp_parse(s, wc_value_ts_unit(t), out, &zone);
  }
}

static bool is_intlike(weir_type t) {
  return t.id == WEIR_TYPE_INT32 || t.id == WEIR_TYPE_INT64 || (t.id >= WEIR_TYPE_DATE32 && t.id <= WEIR_TYPE_TS_NS_UTC);
}

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return x < y ? -1 : x > y;
}

int wc_enum_compile(weir_type t, const json_t *values, enum_set **out, char *why, size_t n) {
  enum_set *e = wr_calloc(1, sizeof *e);
  size_t cnt = json_array_size(values);
  size_t i;
  json_t *j;
  if (is_intlike(t)) {
    e->kind = ENUM_INT;
    e->ints = wr_calloc(cnt ? cnt : 1, sizeof *e->ints);
    json_array_foreach(values, i, j) {
      int64_t x;
      if (t.id >= WEIR_TYPE_DATE32) {
        if (!temporal_value(t, j, &x)) goto bad;
      } else if (json_is_integer(j)) {
        x = json_integer_value(j);
      } else if (json_is_real(j) && wc_real_to_int64(json_real_value(j), &x)) {
        /* a whole double (1.0) stands for its integer */
      } else {
        goto bad;
      }
      e->ints[e->n++] = x;
    }
    qsort(e->ints, e->n, sizeof *e->ints, cmp_i64);
    e->lo = e->ints[0];
    uint64_t span = (uint64_t)e->ints[e->n - 1] - (uint64_t)e->lo + 1;
    if (span && span <= (1u << 20)) { /* at most 128 KiB of bitmap: one load per row */
      e->span = span;
      e->bitmap = wr_calloc((size_t)(span + 7) / 8, 1);
      for (size_t k = 0; k < e->n; k++) wr_bit_set(e->bitmap, (int64_t)((uint64_t)e->ints[k] - (uint64_t)e->lo));
    }
  } else if (t.id == WEIR_TYPE_FLOAT32 || t.id == WEIR_TYPE_FLOAT64) {
    e->kind = ENUM_FLOAT;
    e->floats = wr_calloc(cnt ? cnt : 1, sizeof *e->floats);
    json_array_foreach(values, i, j) {
      if (!json_is_number(j)) goto bad;
      /* A Float32 column holds floats: compare with the float the value rounds to. */
      e->floats[e->n++] = t.id == WEIR_TYPE_FLOAT32 ? (double)(float)json_number_value(j) : json_number_value(j);
    }
  } else if (t.id == WEIR_TYPE_DECIMAL) {
    e->kind = ENUM_DEC;
    e->decs = wr_calloc(cnt ? cnt : 1, sizeof *e->decs);
    json_array_foreach(values, i, j) {
      if (!wc_value_decimal_from_json(j, t.scale, 0, &e->decs[e->n])) goto bad;
      e->n++;
    }
  } else if (t.id == WEIR_TYPE_BOOL) {
    e->kind = ENUM_BOOL;
    json_array_foreach(values, i, j) {
      if (json_is_true(j)) e->allow_true = true;
      else if (json_is_false(j)) e->allow_false = true;
      else goto bad;
    }
  } else if (t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BINARY) {
    e->kind = ENUM_BYTES;
    e->strs = wr_calloc(cnt ? cnt : 1, sizeof *e->strs);
    e->lens = wr_calloc(cnt ? cnt : 1, sizeof *e->lens);
    e->hashes = wr_calloc(cnt ? cnt : 1, sizeof *e->hashes);
    size_t cap = 8;
    while (cap < cnt * 2) cap *= 2;
    e->mask = cap - 1;
    e->slots = wr_calloc(cap, sizeof *e->slots);
    e->all_short = cnt <= 32;
    json_array_foreach(values, i, j) {
      if (!json_is_string(j)) goto bad;
      size_t len = json_string_length(j);
      e->strs[e->n] = wr_malloc(len + 1);
      memcpy(e->strs[e->n], json_string_value(j), len + 1);
      e->lens[e->n] = len;
      e->hashes[e->n] = wc_value_hash_bytes((const uint8_t *)e->strs[e->n], len);
      if (len > 8) e->all_short = false;
      size_t s = e->hashes[e->n] & e->mask;
      while (e->slots[s]) s = (s + 1) & e->mask;
      e->slots[s] = (int32_t)(e->n + 1);
      e->n++;
    }
    if (e->all_short) {
      e->packed = wr_calloc(e->n, sizeof *e->packed);
      e->packed_len = wr_calloc(e->n, 1);
      for (size_t k = 0; k < e->n; k++) {
        memcpy(&e->packed[k], e->strs[k], e->lens[k]);
        e->packed_len[k] = (uint8_t)e->lens[k];
      }
    }
  } else {
    snprintf(why, n, "enum does not apply to this type");
    wc_enum_free(e);
    return WEIR_EINPUT;
  }
  *out = e;
  return WEIR_OK;
bad:;
  char *txt = json_dumps(j, JSON_ENCODE_ANY);
  char tn[WEIR_TYPE_NAME_MAX];
  wr_type_name(t, tn, sizeof tn);
  snprintf(why, n, "enum value %s is not a value of type %s", txt ? txt : "?", tn);
  free(txt);
  wc_enum_free(e);
  return WEIR_EINPUT;
}

void wc_enum_free(enum_set *e) {
  if (!e) return;
  free(e->ints);
  free(e->bitmap);
  free(e->floats);
  free(e->decs);
  for (size_t i = 0; e->strs && i < e->n; i++) free(e->strs[i]);
  free(e->strs);
  free(e->lens);
  free(e->hashes);
  free(e->slots);
  free(e->packed);
  free(e->packed_len);
  free(e);
}

static inline bool enum_has_int(const enum_set *e, int64_t x) {
  if (e->bitmap) {
    uint64_t k = (uint64_t)x - (uint64_t)e->lo;
    return k < e->span && wr_bit_get(e->bitmap, (int64_t)k);
  }
  size_t lo = 0, hi = e->n;
  while (lo < hi) {
    size_t mid = (lo + hi) / 2;
    if (e->ints[mid] < x) lo = mid + 1;
    else hi = mid;
  }
  return lo < e->n && e->ints[lo] == x;
}

static inline bool enum_has_float(const enum_set *e, double d) {
  for (size_t k = 0; k < e->n; k++)
    if (e->floats[k] == d) return true;
  return false;
}

static inline bool enum_has_dec(const enum_set *e, const uint8_t *p) {
  wr_i128 d;
  memcpy(&d, p, 16);
  for (size_t k = 0; k < e->n; k++)
    if (e->decs[k] == d) return true;
  return false;
}

/* Short values: the value's bytes as one word (zero-padded) against each allowed word.
 * `end` is where the column's character data ends, so the 8-byte load never reads past
 * the buffer; values near the end take the byte-wise copy. */
static inline bool enum_has_short(const enum_set *e, const uint8_t *p, size_t n, const uint8_t *end) {
  if (n > 8) return false;
  uint64_t w = 0;
  if (p + 8 <= end) {
    memcpy(&w, p, 8);
    if (n < 8) w &= (((uint64_t)1) << (8 * n)) - 1;
  } else {
    memcpy(&w, p, n);
  }
  bool found = false;
  for (size_t k = 0; k < e->n; k++) found |= (e->packed[k] == w) & (e->packed_len[k] == n);
  return found;
}

static inline bool enum_has_bytes(const enum_set *e, const uint8_t *p, size_t n) {
  uint64_t h = wc_value_hash_bytes(p, n);
  for (size_t s = h & e->mask; e->slots[s]; s = (s + 1) & e->mask) {
    size_t k = (size_t)e->slots[s] - 1;
    if (e->hashes[k] == h && e->lens[k] == n && memcmp(e->strs[k], p, n) == 0) return true;
  }
  return false;
}

/* The 64-row loop shared by every rule: BAD(i) is the "violates" test of row i (logical,
 * within the view); nulls are masked out afterwards. */
#define SCAN_ROWS(v, t, h, BAD)                                                         \
  do {                                                                                  \
    const uint8_t *vb_ = (v)->arr->n_buffers > 0 ? (v)->arr->buffers[0] : NULL;         \
    for (int64_t base_ = 0; base_ < (v)->len; base_ += 64) {                            \
      int64_t m_ = (v)->len - base_ < 64 ? (v)->len - base_ : 64;                       \
      uint64_t bad_ = 0;                                                                \
      for (int64_t j_ = 0; j_ < m_; j_++) {                                             \
        int64_t i = base_ + j_;                                                         \
        bad_ |= (uint64_t)(BAD) << j_;                                                  \
        (void)i;                                                                        \
      }                                                                                 \
      if (bad_) {                                                                       \
        bad_ &= load_bits(vb_, (v)->off + base_, (v)->off + (v)->len);                  \
        report_bits(bad_, base_, t, v, h);                                              \
      }                                                                                 \
    }                                                                                   \
  } while (0)

void wc_enum_run(const enum_set *e, weir_type t, const col_view *v, rule_hits *h) {
  const void *vals = v->arr->buffers[1];
  switch (e->kind) {
  case ENUM_INT:
    if (t.id == WEIR_TYPE_INT32 || t.id == WEIR_TYPE_DATE32) {
      const int32_t *x = (const int32_t *)vals + v->off;
      SCAN_ROWS(v, t, h, !enum_has_int(e, x[i]));
    } else {
      const int64_t *x = (const int64_t *)vals + v->off;
      SCAN_ROWS(v, t, h, !enum_has_int(e, x[i]));
    }
    break;
  case ENUM_FLOAT:
    if (t.id == WEIR_TYPE_FLOAT32) {
      const float *x = (const float *)vals + v->off;
      SCAN_ROWS(v, t, h, !enum_has_float(e, x[i]));
    } else {
      const double *x = (const double *)vals + v->off;
      SCAN_ROWS(v, t, h, !enum_has_float(e, x[i]));
    }
    break;
  case ENUM_DEC: {
    const uint8_t *x = (const uint8_t *)vals + v->off * 16;
    SCAN_ROWS(v, t, h, !enum_has_dec(e, x + i * 16));
    break;
  }
  case ENUM_BOOL:
    SCAN_ROWS(v, t, h, wr_bit_get(vals, v->off + i) ? !e->allow_true : !e->allow_false);
    break;
  case ENUM_BYTES: {
    const int64_t *offs = (const int64_t *)vals + v->off;
    const uint8_t *data = v->arr->buffers[2];
    if (e->all_short) {
      const uint8_t *end = data + offs[v->len];
      SCAN_ROWS(v, t, h, !enum_has_short(e, data + offs[i], (size_t)(offs[i + 1] - offs[i]), end));
    } else {
      SCAN_ROWS(v, t, h, !enum_has_bytes(e, data + offs[i], (size_t)(offs[i + 1] - offs[i])));
    }
    break;
  }
  }
}

/* ---- range -------------------------------------------------------------------------------------------------------- */

typedef enum { RANGE_INT, RANGE_FLOAT, RANGE_DEC, RANGE_BYTES } range_kind;

struct range_bounds {
  range_kind kind;
  int64_t ilo, ihi;
  double flo, fhi;
  wr_i128 dlo, dhi;
  bool has_lo, has_hi;
  char *slo, *shi;
  size_t nlo, nhi;
  bool empty; /* bounds no value can meet (e.g. min 0.5, max 0.7 on integers) */
};

/* An integer bound rounded inward: x >= 0.5 is x >= 1; x <= 2.5 is x <= 2. */
static bool int_bound(const json_t *j, bool lower, int64_t *out) {
  if (json_is_integer(j)) {
    *out = json_integer_value(j);
    return true;
  }
  if (!json_is_real(j)) return false;
  double d = lower ? ceil(json_real_value(j)) : floor(json_real_value(j));
  if (d >= 9.2233720368547758e18) *out = INT64_MAX;
  else if (d <= -9.2233720368547758e18) *out = INT64_MIN;
  else *out = (int64_t)d;
  return true;
}

static double number_of(const json_t *j) {
  if (json_is_string(j)) return strtod(json_string_value(j), NULL);
  return json_number_value(j);
}

int wc_range_compile(weir_type t, const json_t *min, const json_t *max, range_bounds **out, char *why, size_t n) {
  range_bounds *r = wr_calloc(1, sizeof *r);
  r->has_lo = min && !json_is_null(min);
  r->has_hi = max && !json_is_null(max);
  bool ok = true;
  if (is_intlike(t)) {
    r->kind = RANGE_INT;
    r->ilo = INT64_MIN;
    r->ihi = INT64_MAX;
    bool temporal = t.id >= WEIR_TYPE_DATE32;
    if (r->has_lo) ok = temporal ? temporal_value(t, min, &r->ilo) : int_bound(min, true, &r->ilo);
    if (ok && r->has_hi) ok = temporal ? temporal_value(t, max, &r->ihi) : int_bound(max, false, &r->ihi);
    r->empty = ok && r->ilo > r->ihi;
  } else if (t.id == WEIR_TYPE_FLOAT32 || t.id == WEIR_TYPE_FLOAT64) {
    r->kind = RANGE_FLOAT;
    r->flo = -INFINITY;
    r->fhi = INFINITY;
    if (r->has_lo) ok = json_is_number(min), r->flo = json_number_value(min);
    if (ok && r->has_hi) ok = json_is_number(max), r->fhi = json_number_value(max);
    r->empty = ok && r->flo > r->fhi;
  } else if (t.id == WEIR_TYPE_DECIMAL) {
    r->kind = RANGE_DEC;
    r->dlo = -((wr_i128)1 << 126);
    r->dhi = (wr_i128)1 << 126;
    if (r->has_lo) ok = wc_value_decimal_from_json(min, t.scale, +1, &r->dlo);
    if (ok && r->has_hi) ok = wc_value_decimal_from_json(max, t.scale, -1, &r->dhi);
    r->empty = ok && r->dlo > r->dhi;
  } else if (t.id == WEIR_TYPE_STRING) {
    r->kind = RANGE_BYTES;
    if (r->has_lo) {
      ok = json_is_string(min);
      if (ok) {
        r->nlo = json_string_length(min);
        r->slo = wr_strndup(json_string_value(min), r->nlo);
      }
    }
    if (ok && r->has_hi) {
      ok = json_is_string(max);
      if (ok) {
        r->nhi = json_string_length(max);
        r->shi = wr_strndup(json_string_value(max), r->nhi);
      }
    }
  } else {
    snprintf(why, n, "min/max do not apply to this type");
    wc_range_free(r);
    return WEIR_EINPUT;
  }
  if (!ok) {
    snprintf(why, n, "min/max must be values of the column's type");
    wc_range_free(r);
    return WEIR_EINPUT;
  }
  /* Bounds given the wrong way round are a mistake in the contract, not in the data. */
  bool reversed = false;
  if (r->has_lo && r->has_hi) {
    if (r->kind == RANGE_BYTES) {
      size_t m = r->nlo < r->nhi ? r->nlo : r->nhi;
      int c = memcmp(r->slo, r->shi, m);
      reversed = c > 0 || (c == 0 && r->nlo > r->nhi);
    } else if (r->kind == RANGE_INT && t.id >= WEIR_TYPE_DATE32) {
      reversed = r->ilo > r->ihi;
    } else {
      /* Compared as written: rounding inward can legitimately leave no value between
       * bounds that are in order (min 0.1, max 0.2 on integers). */
      reversed = number_of(min) > number_of(max);
    }
  }
  if (reversed) {
    char *a = json_dumps(min, JSON_ENCODE_ANY), *b = json_dumps(max, JSON_ENCODE_ANY);
    snprintf(why, n, "min %s is greater than max %s", a ? a : "?", b ? b : "?");
    free(a);
    free(b);
    wc_range_free(r);
    return WEIR_EINPUT;
  }
  *out = r;
  return WEIR_OK;
}

void wc_range_free(range_bounds *r) {
  if (!r) return;
  free(r->slo);
  free(r->shi);
  free(r);
}

static inline int bytes_cmp(const uint8_t *a, size_t na, const char *b, size_t nb) {
  size_t m = na < nb ? na : nb;
  int c = memcmp(a, b, m);
  if (c) return c;
  return na < nb ? -1 : na > nb;
}

static inline bool dec_outside(const uint8_t *p, wr_i128 lo, wr_i128 hi) {
  wr_i128 d;
  memcpy(&d, p, 16);
  return (d < lo) | (d > hi);
}

/* Whether any value lies outside [lo, hi], nulls included (a null slot holds some value;
 * a hit here only means the exact scan must run). Branch-free so that the compiler turns
 * it into SIMD, and cloned for AVX2 (chosen at load time by the CPU), so valid data, the
 * usual case, costs one streaming pass. */
#define DEFINE_ANY_OUTSIDE(NAME, T)                                      \
  WC_SIMD_CLONES static bool NAME(const T *x, int64_t n, T lo, T hi) {   \
    unsigned acc = 0;                                                    \
    for (int64_t i = 0; i < n; i++) acc |= (unsigned)!((x[i] >= lo) & (x[i] <= hi)); \
    return acc != 0;                                                     \
  }
DEFINE_ANY_OUTSIDE(any_outside_i32, int32_t)
DEFINE_ANY_OUTSIDE(any_outside_i64, int64_t)
DEFINE_ANY_OUTSIDE(any_outside_f32, float)
DEFINE_ANY_OUTSIDE(any_outside_f64, double)

void wc_range_run(const range_bounds *r, weir_type t, const col_view *v, rule_hits *h) {
  const void *vals = v->arr->buffers[1];
  if (r->empty) {
    SCAN_ROWS(v, t, h, 1);
    return;
  }
  bool maybe = true;
  switch (r->kind) {
  case RANGE_INT: {
    int64_t lo = r->ilo, hi = r->ihi;
    if (t.id == WEIR_TYPE_INT32 || t.id == WEIR_TYPE_DATE32) {
      const int32_t *x = (const int32_t *)vals + v->off;
      int32_t lo32 = lo < INT32_MIN ? INT32_MIN : lo > INT32_MAX ? INT32_MAX : (int32_t)lo;
      int32_t hi32 = hi < INT32_MIN ? INT32_MIN : hi > INT32_MAX ? INT32_MAX : (int32_t)hi;
      if (lo >= INT32_MIN && hi <= INT32_MAX) maybe = any_outside_i32(x, v->len, lo32, hi32);
      if (maybe) SCAN_ROWS(v, t, h, (x[i] < lo) | (x[i] > hi));
    } else {
      const int64_t *x = (const int64_t *)vals + v->off;
      maybe = any_outside_i64(x, v->len, lo, hi);
      if (maybe) SCAN_ROWS(v, t, h, (x[i] < lo) | (x[i] > hi));
    }
    break;
  }
  case RANGE_FLOAT: {
    /* !(lo <= x <= hi) also rejects NaN, which lies in no range. */
    if (t.id == WEIR_TYPE_FLOAT32) {
      const float *x = (const float *)vals + v->off;
      float lo = (float)r->flo, hi = (float)r->fhi;
      /* Rounding a bound to float must not narrow the range: widen by one ulp if needed. */
      if ((double)lo > r->flo) lo = nextafterf(lo, -INFINITY);
      if ((double)hi < r->fhi) hi = nextafterf(hi, INFINITY);
      maybe = any_outside_f32(x, v->len, lo, hi);
      if (maybe) SCAN_ROWS(v, t, h, !((x[i] >= lo) & (x[i] <= hi)));
    } else {
      const double *x = (const double *)vals + v->off;
      double lo = r->flo, hi = r->fhi;
      maybe = any_outside_f64(x, v->len, lo, hi);
      if (maybe) SCAN_ROWS(v, t, h, !((x[i] >= lo) & (x[i] <= hi)));
    }
    break;
  }
  case RANGE_DEC: {
    const uint8_t *x = (const uint8_t *)vals + v->off * 16;
    wr_i128 lo = r->dlo, hi = r->dhi;
    SCAN_ROWS(v, t, h, dec_outside(x + i * 16, lo, hi));
    break;
  }
  case RANGE_BYTES: {
    const int64_t *offs = (const int64_t *)vals + v->off;
    const uint8_t *data = v->arr->buffers[2];
    SCAN_ROWS(v, t, h,
              (r->has_lo && bytes_cmp(data + offs[i], (size_t)(offs[i + 1] - offs[i]), r->slo, r->nlo) < 0) ||
                  (r->has_hi && bytes_cmp(data + offs[i], (size_t)(offs[i + 1] - offs[i]), r->shi, r->nhi) > 0));
    break;
  }
  }
}

/* ---- compiled rules ------------------------------------------------------------------------------------------------ */

struct compiled_rule {
  wr_rule_kind kind;
  weir_type type;
  enum_set *e;
  range_bounds *r;
  pattern_rule *p;
  unique_set *u;
};

int wc_compiled_rule_new(const wr_contract_column *col, const wr_column_rule *r, int64_t expected_rows,
                      compiled_rule **out, weir_error *err) {
  compiled_rule *cr = wr_calloc(1, sizeof *cr);
  cr->kind = r->kind;
  cr->type = col->field.type;
  char why[512] = "";
  int rc = WEIR_OK;
  switch (r->kind) {
  case WEIR_RULE_ENUM: rc = wc_enum_compile(cr->type, r->values, &cr->e, why, sizeof why); break;
  case WEIR_RULE_RANGE: rc = wc_range_compile(cr->type, r->min, r->max, &cr->r, why, sizeof why); break;
  case WEIR_RULE_PATTERN: rc = wc_pattern_compile(r->pattern, &cr->p, why, sizeof why); break;
  case WEIR_RULE_UNIQUE: cr->u = wc_unique_new(cr->type, expected_rows); break;
  case WEIR_RULE_CHECK: break; /* SQL: rule_sql.c */
  }
  if (rc) {
    wc_compiled_rule_free(cr);
    return wr_seterr(err, WEIR_EINPUT, "rule \"%s\" of column \"%s\": %s", r->name, col->field.name, why);
  }
  *out = cr;
  return WEIR_OK;
}

void wc_compiled_rule_free(compiled_rule *cr) {
  if (!cr) return;
  wc_enum_free(cr->e);
  wc_range_free(cr->r);
  wc_pattern_free(cr->p);
  wc_unique_free(cr->u);
  free(cr);
}

void wc_compiled_rule_run(compiled_rule *cr, const col_view *v, rule_hits *h) {
  switch (cr->kind) {
  case WEIR_RULE_ENUM: wc_enum_run(cr->e, cr->type, v, h); break;
  case WEIR_RULE_RANGE: wc_range_run(cr->r, cr->type, v, h); break;
  case WEIR_RULE_PATTERN: wc_pattern_run(cr->p, v, h); break;
  case WEIR_RULE_UNIQUE: wc_unique_run(cr->u, cr->type, v, h); break;
  case WEIR_RULE_CHECK: break;
  }
}
