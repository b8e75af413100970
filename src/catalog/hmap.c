/*
 * hmap.c -- open addressing with linear probing; no deletion (maps are cleared whole).
 */
#include "catalog/hmap.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/error.h"

static uint64_t key_hash(const char *k) {
  uint64_t h = 1469598103934665603ULL; /* FNV-1a */
  for (; *k; k++) {
    h ^= (unsigned char)*k;
    h *= 1099511628211ULL;
  }
  return h;
}

hmap_slot *hmap_get(const hmap *m, const char *key) {
  if (!m->cap) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask) {
    hmap_slot *s = &m->slots[i];
    if (!s->key[0]) return NULL;
    if (strcmp(s->key, key) == 0) return s;
  }
}

/* -1 on OOM, the map unchanged. */
static int grow(hmap *m) {
  size_t ncap = m->cap ? m->cap * 2 : 64;
  hmap_slot *old = m->slots;
  size_t ocap = m->cap;
  hmap_slot *slots = wr_calloc(ncap, sizeof *m->slots);
  if (!slots) return -1;
  m->slots = slots;
  m->cap = ncap;
  size_t mask = ncap - 1;
  for (size_t j = 0; j < ocap; j++) {
    if (!old[j].key[0]) continue;
    size_t i = key_hash(old[j].key) & mask;
    while (m->slots[i].key[0]) i = (i + 1) & mask;
    m->slots[i] = old[j];
  }
  free(old);
  return 0;
}

hmap_slot *hmap_put(hmap *m, const char *key, bool *created) {
  if ((m->n + 1) * 4 > m->cap * 3 && grow(m) != 0) return NULL;
  size_t mask = m->cap - 1;
  for (size_t i = key_hash(key) & mask;; i = (i + 1) & mask) {
    hmap_slot *s = &m->slots[i];
    if (!s->key[0]) {
      snprintf(s->key, sizeof s->key, "%s", key);
      s->val = NULL;
      s->flags = 0;
      m->n++;
      if (created) *created = true;
      return s;
    }
    if (strcmp(s->key, key) == 0) {
      if (created) *created = false;
      return s;
    }
  }
}

void hmap_clear(hmap *m, void (*free_val)(void *)) {
  for (size_t i = 0; i < m->cap; i++) {
    if (m->slots[i].key[0] && free_val) free_val(m->slots[i].val);
    m->slots[i].key[0] = 0;
    m->slots[i].val = NULL;
  }
  m->n = 0;
}

void hmap_free(hmap *m, void (*free_val)(void *)) {
  hmap_clear(m, free_val);
  free(m->slots);
  m->slots = NULL;
  m->cap = 0;
}
