/*
 * hmap.h -- a small open-addressing hash map keyed by 64-digit hex hashes (commit and
 * tree node hashes), used for the per-handle caches and for the visited sets of history
 * walks. Values are opaque pointers plus a flags word; keys are copied.
 */
#ifndef WEIR_CATALOG_HMAP_H
#define WEIR_CATALOG_HMAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "catalog/catalog.h"

typedef struct hmap_slot {
  char key[WEIR_HASH_LEN + 1]; /* "" = empty slot */
  void *val;
  unsigned flags;
} hmap_slot;

typedef struct hmap {
  hmap_slot *slots;
  size_t cap; /* power of two, or 0 */
  size_t n;
} hmap;

#define HMAP_INIT {NULL, 0, 0}

/* The slot of `key`, or NULL. */
hmap_slot *hmap_get(const hmap *m, const char *key);
/* The slot of `key`, inserted (val NULL, flags 0) if absent; *created says which. NULL
 * only on OOM (the map is unchanged). */
hmap_slot *hmap_put(hmap *m, const char *key, bool *created);
/* Removes every entry, calling free_val (if not NULL) on each value. Keeps memory. */
void hmap_clear(hmap *m, void (*free_val)(void *));
/* hmap_clear and release the memory. */
void hmap_free(hmap *m, void (*free_val)(void *));

#endif
