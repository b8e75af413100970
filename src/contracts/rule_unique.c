/*
 * rule_unique.c -- `unique`: one open-addressing hash set per column that lives across
 * all batches of a validation, so a value repeated in another batch is found too.
 *
 * Slots are 16 bytes: the value itself for fixed-width types (integers, dates,
 * timestamps, normalised floats, 128-bit decimals), or (pointer, length + hash) for
 * strings and binaries, pointing into the batches' own data buffers, which stay alive
 * until validation ends -- no value is copied. The first occurrence of a value is kept;
 * every later row with the same value is a duplicate (counted, sampled, and dropped in
 * drop mode).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

typedef struct uslot {
  uint64_t a, b;
} uslot;

typedef enum { U_FIXED, U_BYTES } ukind;

struct unique_set {
  ukind kind;
  uslot *slots;
  uint8_t *used;
  size_t cap, count;
};

static inline uint64_t mix(uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/* Position hash of a slot: fixed values hash both words; byte strings keep 32 bits of
 * their content hash in b, which is enough to place them again when the table grows. */
static inline uint64_t slot_hash(ukind k, const uslot *s) {
  return k == U_FIXED ? mix(s->a ^ mix(s->b)) : mix(s->b & 0xffffffffu);
}

unique_set *unique_new(weir_type t) {
  unique_set *u = weir_calloc(1, sizeof *u);
  u->kind = (t.id == WEIR_TYPE_STRING || t.id == WEIR_TYPE_BINARY) ? U_BYTES : U_FIXED;
  u->cap = 1024;
  u->slots = weir_malloc(u->cap * sizeof *u->slots);
  u->used = weir_calloc(u->cap / 8, 1);
  return u;
}

void unique_free(unique_set *u) {
  if (!u) return;
  free(u->slots);
  free(u->used);
  free(u);
}

static inline bool slot_eq(ukind k, const uslot *x, const uslot *y) {
  if (x->b != y->b) return false;
  if (k == U_FIXED) return x->a == y->a;
  size_t n = (size_t)(x->b >> 32);
  return x->a == y->a || memcmp((const void *)(uintptr_t)x->a, (const void *)(uintptr_t)y->a, n) == 0;
}

static void grow(unique_set *u) {
  size_t old_cap = u->cap;
  uslot *old = u->slots;
  uint8_t *old_used = u->used;
  u->cap *= 2;
  u->slots = weir_malloc(u->cap * sizeof *u->slots);
  u->used = weir_calloc(u->cap / 8, 1);
  size_t mask = u->cap - 1;
  for (size_t i = 0; i < old_cap; i++) {
    if (!weir_bit_get(old_used, (int64_t)i)) continue;
    size_t p = slot_hash(u->kind, &old[i]) & mask;
    while (weir_bit_get(u->used, (int64_t)p)) p = (p + 1) & mask;
    u->slots[p] = old[i];
    weir_bit_set(u->used, (int64_t)p);
  }
  free(old);
  free(old_used);
}

/* Inserts s; returns false when an equal value was there already. */
static inline bool insert(unique_set *u, const uslot *s) {
  if ((u->count + 1) * 4 > u->cap * 3) grow(u); /* load factor at most 3/4 */
  size_t mask = u->cap - 1;
  size_t p = slot_hash(u->kind, s) & mask;
  while (weir_bit_get(u->used, (int64_t)p)) {
    if (slot_eq(u->kind, &u->slots[p], s)) return false;
    p = (p + 1) & mask;
  }
  u->slots[p] = *s;
  weir_bit_set(u->used, (int64_t)p);
  u->count++;
  return true;
}

/* Floats compare as values: -0.0 equals 0.0 and every NaN is the same missing number. */
static inline uint64_t float_key(double d) {
  if (d == 0) d = 0;
  if (isnan(d)) d = NAN;
  uint64_t k;
  memcpy(&k, &d, 8);
  return k;
}

void unique_run(unique_set *u, weir_type t, const col_view *v, rule_hits *h) {
  const uint8_t *valid = v->arr->n_buffers > 0 ? v->arr->buffers[0] : NULL;
  const void *vals = v->arr->buffers[1];
  for (int64_t i = 0; i < v->len; i++) {
    int64_t k = v->off + i;
    if (valid && !weir_bit_get(valid, k)) continue;
    uslot s = {0, 0};
    switch (t.id) {
    case WEIR_TYPE_BOOL: s.a = weir_bit_get(vals, k); break;
    case WEIR_TYPE_INT32:
    case WEIR_TYPE_DATE32: s.a = (uint64_t)(int64_t)((const int32_t *)vals)[k]; break;
    case WEIR_TYPE_FLOAT32: s.a = float_key(((const float *)vals)[k]); break;
    case WEIR_TYPE_FLOAT64: s.a = float_key(((const double *)vals)[k]); break;
    case WEIR_TYPE_DECIMAL: memcpy(&s, (const uint8_t *)vals + k * 16, 16); break;
    case WEIR_TYPE_STRING:
    case WEIR_TYPE_BINARY: {
      const int64_t *offs = vals;
      const uint8_t *p = (const uint8_t *)v->arr->buffers[2] + offs[k];
      size_t n = (size_t)(offs[k + 1] - offs[k]);
      s.a = (uint64_t)(uintptr_t)p;
      s.b = ((uint64_t)n << 32) | (value_hash_bytes(p, n) >> 32);
      break;
    }
    default: s.a = (uint64_t)((const int64_t *)vals)[k]; break;
    }
    if (insert(u, &s)) continue;
    hits_add(h, v->batch, i, v->len, v->row_base + i, hits_want_sample(h) ? value_sample(t, v->arr, k) : NULL);
  }
}
