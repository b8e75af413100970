/*
 * rule_unique.c -- `unique`: one open-addressing hash set per column that lives across
 * all batches of a validation, so a value repeated in another batch is found too.
 *
 * Keys are the values themselves, never copies of them:
 *   - 8-byte slots for every fixed-width type of 8 bytes or less (integers, dates,
 *     timestamps, normalised floats, bools);
 *   - 16-byte slots for 128-bit decimals;
 *   - 16-byte slots of (pointer, length << 32 | 32 bits of hash) for strings and
 *     binaries, pointing into the batches' own data buffers, which stay alive until the
 *     validation ends.
 * An all-zero slot is empty; the one value whose key is all zeros has a flag instead.
 * The set is sized for the whole input up front (it knows the row count), so it never
 * rehashes on the usual sizes, and inserts go in groups of 16 whose slots are
 * prefetched first: a big set is one cache miss per row, and this overlaps them.
 *
 * The first occurrence of a value is kept; every later row with the same value is a
 * duplicate (counted, sampled, and dropped in drop mode).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

typedef enum { U_NARROW, U_WIDE, U_BYTES } ukind;

struct unique_set {
  ukind kind;
  uint64_t *s8;        /* U_NARROW */
  uint64_t (*s16)[2];  /* U_WIDE and U_BYTES */
  size_t cap, count;
  bool zero_seen;      /* the all-zero key (value 0) was inserted */
};

static inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* Position hash: fixed values mix their words; byte strings reuse their content hash. */
static inline uint64_t hash2(ukind k, uint64_t a, uint64_t b) {
  return k == U_BYTES ? mix(b) : mix(a ^ mix(b));
}

static void alloc_slots(unique_set *u) {
  if (u->kind == U_NARROW) u->s8 = wr_calloc(u->cap, sizeof *u->s8);
  else u->s16 = wr_calloc(u->cap, sizeof *u->s16);
}

unique_set *wc_unique_new(weir_type t, int64_t expected_rows) {
  unique_set *u = wr_calloc(1, sizeof *u);
  u->kind = (t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BINARY) ? U_BYTES
            : t.id == WEIR_TYPE_DECIMAL                            ? U_WIDE
                                                                   : U_NARROW;
  /* Room for every row at a load of at most 3/4, up to 1 GiB of slots; past that the
   * set grows as distinct values actually appear. */
  size_t limit = u->kind == U_NARROW ? (size_t)1 << 27 : (size_t)1 << 26;
  u->cap = 1024;
  while (u->cap < limit && (size_t)expected_rows * 4 > u->cap * 3) u->cap *= 2;
  alloc_slots(u);
  return u;
}

void wc_unique_free(unique_set *u) {
  if (!u) return;
  free(u->s8);
  free(u->s16);
  free(u);
}

static bool insert8(unique_set *u, uint64_t a);
static bool insert16(unique_set *u, uint64_t a, uint64_t b);

static void grow(unique_set *u) {
  size_t old_cap = u->cap;
  uint64_t *o8 = u->s8;
  uint64_t(*o16)[2] = u->s16;
  u->cap *= 2;
  u->s8 = NULL;
  u->s16 = NULL;
  alloc_slots(u);
  u->count = 0;
  for (size_t i = 0; i < old_cap; i++) {
    if (o8 && o8[i]) insert8(u, o8[i]);
    if (o16 && (o16[i][0] | o16[i][1])) insert16(u, o16[i][0], o16[i][1]);
  }
  free(o8);
  free(o16);
}

static inline bool bytes_eq(uint64_t a1, uint64_t a2, uint64_t b) {
  size_t n = (size_t)(b >> 32);
  return a1 == a2 || memcmp((const void *)(uintptr_t)a1, (const void *)(uintptr_t)a2, n) == 0;
}

/* Inserts a key; false when an equal value was there already. */
static bool insert8(unique_set *u, uint64_t a) {
  if (!a) {
    bool seen = u->zero_seen;
    u->zero_seen = true;
    return !seen;
  }
  size_t mask = u->cap - 1;
  for (size_t p = hash2(U_NARROW, a, 0) & mask;; p = (p + 1) & mask) {
    if (!u->s8[p]) {
      u->s8[p] = a;
      u->count++;
      return true;
    }
    if (u->s8[p] == a) return false;
  }
}

static bool insert16(unique_set *u, uint64_t a, uint64_t b) {
  if (!(a | b)) {
    bool seen = u->zero_seen;
    u->zero_seen = true;
    return !seen;
  }
  size_t mask = u->cap - 1;
  for (size_t p = hash2(u->kind, a, b) & mask;; p = (p + 1) & mask) {
    uint64_t *s = u->s16[p];
    if (!(s[0] | s[1])) {
      s[0] = a;
      s[1] = b;
      u->count++;
      return true;
    }
    if (s[1] == b && (u->kind == U_WIDE ? s[0] == a : bytes_eq(s[0], a, b))) return false;
  }
}

/* Floats compare as values: -0.0 equals 0.0 and every NaN is the same missing number. */
static inline uint64_t float_key(double d) {
  if (d == 0) d = 0;
  if (isnan(d)) d = NAN;
  uint64_t k;
  memcpy(&k, &d, 8);
  return k;
}

#define GROUP 16

void wc_unique_run(unique_set *u, weir_type t, const col_view *v, rule_hits *h) {
  const uint8_t *valid = v->arr->n_buffers > 0 ? v->arr->buffers[0] : NULL;
  const void *vals = v->arr->buffers[1];
  uint64_t ka[GROUP], kb[GROUP];
  int64_t rows[GROUP];
  for (int64_t base = 0; base < v->len; base += GROUP) {
    int64_t m = v->len - base < GROUP ? v->len - base : GROUP;
    int n = 0;
    for (int64_t j = 0; j < m; j++) {
      int64_t i = base + j, k = v->off + i;
      if (valid && !wr_bit_get(valid, k)) continue;
      if (v->skip && wr_bit_get(v->skip, i)) continue;
      uint64_t a = 0, b = 0;
      switch (t.id) {
      case WEIR_TYPE_BOOL: a = wr_bit_get(vals, k); break;
      case WEIR_TYPE_INT32:
      case WEIR_TYPE_DATE32: a = (uint64_t)(int64_t)((const int32_t *)vals)[k]; break;
      case WEIR_TYPE_FLOAT32: a = float_key(((const float *)vals)[k]); break;
      case WEIR_TYPE_FLOAT64: a = float_key(((const double *)vals)[k]); break;
      case WEIR_TYPE_DECIMAL:
        memcpy(&a, (const uint8_t *)vals + k * 16, 8);
        memcpy(&b, (const uint8_t *)vals + k * 16 + 8, 8);
        break;
      case WEIR_TYPE_STRING:
      case WEIR_TYPE_BINARY: {
        const int64_t *offs = vals;
        const uint8_t *p = (const uint8_t *)v->arr->buffers[2] + offs[k];
        size_t len = (size_t)(offs[k + 1] - offs[k]);
        a = (uint64_t)(uintptr_t)p;
        /* The low bit set keeps b non-zero, so a real key is never the empty slot. */
        b = ((uint64_t)len << 32) | ((wc_value_hash_bytes(p, len) >> 32) | 1);
        break;
      }
      default: a = (uint64_t)((const int64_t *)vals)[k]; break;
      }
      ka[n] = a;
      kb[n] = b;
      rows[n] = i;
      n++;
    }
    /* Grow before the group, so the prefetched slots stay the ones inserted into. */
    while ((u->count + (size_t)n + 1) * 4 > u->cap * 3) grow(u);
    size_t mask = u->cap - 1;
    for (int g = 0; g < n; g++) {
      size_t p = hash2(u->kind, ka[g], kb[g]) & mask;
      if (u->kind == U_NARROW) __builtin_prefetch(&u->s8[p], 1);
      else __builtin_prefetch(u->s16[p], 1);
    }
    for (int g = 0; g < n; g++) {
      bool fresh = u->kind == U_NARROW ? insert8(u, ka[g]) : insert16(u, ka[g], kb[g]);
      if (fresh) continue;
      wc_hits_add(h, v->batch, rows[g], v->len, v->row_base + rows[g],
               wc_hits_want_sample(h) ? wc_value_sample(t, v->arr, v->off + rows[g]) : NULL);
    }
  }
}
