/*
 * gc.c -- what garbage collection needs from the catalog: the set of table versions that
 * live commits name, and the marks on commits whose files gc may delete (docs/gc.md).
 *
 * A commit is *live* when a branch or tag reaches it and it carries no mark. gc marks,
 * in the same write transaction in which it reads the live set (so no writer can move a
 * ref in between):
 *   - every commit no ref reaches ("unreachable": a deleted branch's, an orphan of a
 *     ref that moved away), and
 *   - with an expiry cut-off, every reachable commit older than it that no branch head
 *     or tag names ("expired").
 * A marked commit keeps its row (log, merge bases and generation walks go through it),
 * but resolving it is refused (catalog_resolve), so no new ref, merge or read can name it
 * after its files may have gone. Marks are never removed.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "catalog/tree.h"
#include "util/buf.h"
#include "util/clock.h"

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

void catalog_gc_plan_clear(catalog_gc_plan *p) {
  if (!p) return;
  catalog_strv_free(p->metadata, p->n_metadata);
  json_decref(p->marked);
  memset(p, 0, sizeof *p);
}

int catalog_commit_expiry(wr_catalog *cat, const char *hash, int64_t *expired_us, char **reason, bool *found,
                          weir_error *err) {
  *found = false;
  if (reason) *reason = NULL;
  int64_t when = 0;
  char *why = NULL;
  int rc = cat->be->ops->expiry_get(cat->be, hash, &when, &why, found, err);
  if (rc == WEIR_OK && *found) {
    if (expired_us) *expired_us = when;
    if (reason) *reason = why, why = NULL;
  }
  free(why);
  return rc;
}

/* Flags of the visited set. */
enum { SEEN = 1, NAMED = 2 };

static int mark(wr_catalog *cat, const char *hash, const char *reason, int64_t now_us, bool record,
                catalog_gc_plan *out, weir_error *err) {
  if (record) {
    int rc = cat->be->ops->expiry_put(cat->be, hash, now_us, reason, err);
    if (rc) return rc;
  }
  if (json_array_append_new(out->marked, json_pack("{s:s,s:s}", "commit", hash, "reason", reason)))
    return wr_oom(err);
  if (strcmp(reason, "expired") == 0) out->expired++;
  else out->unreachable++;
  return WEIR_OK;
}

static int plan(wr_catalog *cat, int64_t expire_before_us, bool record, int64_t now_us, catalog_gc_plan *out,
                weir_error *err) {
  hmap seen = HMAP_INIT, roots = HMAP_INIT;
  char (*stack)[WEIR_HASH_LEN + 1] = NULL;
  size_t depth = 0, cap = 0;
  int rc = WEIR_OK;
  /* Every ref's target: the walk's starting points, which never expire. An allocation
   * that fails stops the plan (WEIR_ENOMEM): a live commit or map missed here would let
   * gc delete files that are still reachable. */
  for (int kind = 0; kind < 2 && rc == WEIR_OK; kind++) {
    wr_ref_rec *refs = NULL;
    size_t n = 0;
    if ((rc = catalog_ref_list(cat, (wr_ref_kind)kind, &refs, &n, err))) break;
    for (size_t i = 0; i < n && !rc; i++) {
      bool created;
      hmap_slot *s = hmap_put(&seen, refs[i].target, &created);
      if (!s) {
        rc = wr_oom(err);
        break;
      }
      s->flags |= NAMED;
      if (created) {
        if (depth == cap) {
          char(*ns)[WEIR_HASH_LEN + 1] = wr_realloc(stack, (cap ? 2 * cap : 64) * sizeof *stack);
          if (!ns) {
            rc = wr_oom(err);
            break;
          }
          cap = cap ? 2 * cap : 64;
          stack = ns;
        }
        memcpy(stack[depth++], refs[i].target, WEIR_HASH_LEN + 1);
      }
    }
    wr_ref_recs_free(refs, n);
  }
  /* Every commit the refs reach: live unless marked (before, or now by the cut-off). */
  while (rc == WEIR_OK && depth > 0) {
    char hash[WEIR_HASH_LEN + 1];
    memcpy(hash, stack[--depth], sizeof hash);
    commit_head h;
    if ((rc = catalog_head_get(cat, hash, &h, err))) break;
    bool named = (hmap_get(&seen, hash)->flags & NAMED) != 0;
    bool marked = false;
    if ((rc = catalog_commit_expiry(cat, hash, NULL, NULL, &marked, err))) break;
    if (!marked && !named && expire_before_us > 0 && h.time_us < expire_before_us) {
      if ((rc = mark(cat, hash, "expired", now_us, record, out, err))) break;
      marked = true;
    }
    if (!marked) {
      out->live++;
      bool created;
      if (!hmap_put(&roots, h.tables_root, &created)) {
        rc = wr_oom(err);
        break;
      }
    }
    for (int p = 0; p < h.n_parents; p++) {
      bool created;
      hmap_slot *s = hmap_put(&seen, h.parents[p], &created);
      if (!s) {
        rc = wr_oom(err);
        break;
      }
      if (!created) continue;
      s->flags |= SEEN;
      if (depth == cap) {
        char(*ns)[WEIR_HASH_LEN + 1] = wr_realloc(stack, (cap ? 2 * cap : 64) * sizeof *stack);
        if (!ns) {
          rc = wr_oom(err);
          break;
        }
        cap = cap ? 2 * cap : 64;
        stack = ns;
      }
      memcpy(stack[depth++], h.parents[p], WEIR_HASH_LEN + 1);
    }
  }
  free(stack);
  /* Commits no ref reaches. */
  if (rc == WEIR_OK) {
    char **all = NULL;
    size_t n = 0;
    rc = cat->be->ops->commit_all(cat->be, &all, &n, err);
    if (rc == WEIR_OK) qsort(all, n, sizeof *all, cmp_str); /* a stable order for the report */
    for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
      if (hmap_get(&seen, all[i])) continue;
      bool marked = false;
      rc = catalog_commit_expiry(cat, all[i], NULL, NULL, &marked, err);
      if (rc == WEIR_OK && !marked) rc = mark(cat, all[i], "unreachable", now_us, record, out, err);
    }
    catalog_strv_free(all, n);
  }
  /* The table versions of the live commits' maps, once per distinct map. */
  size_t mcap = 0;
  for (size_t i = 0; i < roots.cap && rc == WEIR_OK; i++) {
    if (!roots.slots[i].key[0]) continue;
    wr_table_entry *e = NULL;
    size_t n = 0;
    if ((rc = tree_list(cat, roots.slots[i].key, &e, &n, err))) break;
    for (size_t j = 0; j < n; j++) {
      if (catalog_key_is_namespace(e[j].table)) continue; /* properties, not a file */
      if (out->n_metadata == mcap) {
        char **nm = wr_realloc(out->metadata, (mcap ? 2 * mcap : 64) * sizeof *out->metadata);
        if (!nm) {
          rc = wr_oom(err);
          break;
        }
        mcap = mcap ? 2 * mcap : 64;
        out->metadata = nm;
      }
      out->metadata[out->n_metadata++] = e[j].metadata_location, e[j].metadata_location = NULL;
    }
    wr_table_entries_free(e, n);
  }
  hmap_free(&seen, NULL);
  hmap_free(&roots, NULL);
  if (rc) return rc;
  if (out->n_metadata > 1) {
    qsort(out->metadata, out->n_metadata, sizeof *out->metadata, cmp_str);
    size_t w = 1;
    for (size_t i = 1; i < out->n_metadata; i++) {
      if (strcmp(out->metadata[i], out->metadata[w - 1]) == 0) free(out->metadata[i]);
      else out->metadata[w++] = out->metadata[i];
    }
    out->n_metadata = w;
  }
  return WEIR_OK;
}

int catalog_gc_plan_make(wr_catalog *cat, int64_t expire_before_us, bool record, catalog_gc_plan *out,
                         weir_error *err) {
  memset(out, 0, sizeof *out);
  out->marked = json_array();
  if (!out->marked) return wr_oom(err);
  /* A write transaction even for a dry run would block writers for nothing; a dry run
   * marks nothing, so one read snapshot is enough for it. */
  int rc = catalog_tx_begin(cat, record, err);
  if (rc) return rc;
  rc = plan(cat, expire_before_us, record, wr_now_us(), out, err);
  rc = catalog_tx_end(cat, rc, err);
  if (rc) catalog_gc_plan_clear(out);
  return rc;
}
