/*
 * serial.c -- reporting what a write did not see: the tables that changed on a branch
 * between a write's base and the head it would be committed on, each with the commit that
 * changed it (docs/versioning.md, "Concurrency: serializable writes"). The rules that
 * decide which changes refuse a write live with the writes: merge.c and revert.c (a
 * named base), src/lake/serial.c (staged table versions), src/pipeline/run.c (a run's
 * read set).
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "util/buf.h"
#include "util/json.h"

/* ---- who changed a table ------------------------------------------------------------ */

/* The commit that made `table` what it is at `head` since `base`: the one that first wrote
 * the head's version (provenance), or, for a table dropped since, the newest first-parent
 * commit between head and base that changed it. Empty when it cannot be told. */
static void changed_by(wr_catalog *cat, const char *base, const char *head, const char *table,
                       char out[WEIR_HASH_LEN + 1], char **message) {
  out[0] = 0;
  *message = NULL;
  weir_error ignore = {0};
  wr_table_entry e;
  if (catalog_table_get(cat, head, table, &e, &ignore) == WEIR_OK) {
    catalog_version_origin(cat, e.metadata_location, out, &ignore);
    wr_table_entry_clear(&e);
    /* The first writer of the version changed the table since the base only if it is in
     * the head's history and not in the base's. A version put back by a revert (from the
     * base's own past, or from another branch) was not: the walk below finds the revert. */
    bool old = false, reached = false;
    weir_error_clear(&ignore);
    if (out[0] && (catalog_is_ancestor(cat, out, base, &old, &ignore) != WEIR_OK || old ||
                   catalog_is_ancestor(cat, out, head, &reached, &ignore) != WEIR_OK || !reached))
      out[0] = 0;
  }
  weir_error_clear(&ignore);
  if (!out[0]) {
    wr_commit_rec b = {0};
    int64_t floor = 0;
    if (catalog_commit_get(cat, base, &b, &ignore) == WEIR_OK) floor = b.generation;
    wr_commit_rec_clear(&b);
    weir_error_clear(&ignore);
    char at[WEIR_HASH_LEN + 1];
    memcpy(at, head, sizeof at);
    /* First-parent steps from the head down to the base's generation: a bounded walk. */
    while (strcmp(at, base) != 0) {
      wr_commit_rec c = {0};
      if (catalog_commit_get(cat, at, &c, &ignore) != WEIR_OK || c.generation <= floor) {
        wr_commit_rec_clear(&c);
        break;
      }
      json_t *changes = NULL;
      bool hit = false;
      if (catalog_commit_changes(cat, at, &changes, &ignore) == WEIR_OK) {
        size_t i;
        json_t *x;
        json_array_foreach(changes, i, x) if (strcmp(wr_json_str(x, "table", ""), table) == 0) hit = true;
      }
      json_decref(changes);
      if (hit) memcpy(out, at, WEIR_HASH_LEN + 1);
      bool more = !hit && c.n_parents > 0;
      if (more) memcpy(at, c.parents[0], sizeof at);
      wr_commit_rec_clear(&c);
      if (!more) break;
    }
    weir_error_clear(&ignore);
  }
  if (out[0]) {
    wr_commit_rec c = {0};
    if (catalog_commit_get(cat, out, &c, &ignore) == WEIR_OK && c.message) {
      /* The first line of the winner's message, for people. */
      size_t n = strcspn(c.message, "\n");
      *message = wr_strndup(c.message, n > 72 ? 72 : n);
    }
    wr_commit_rec_clear(&c);
  }
  weir_error_clear(&ignore);
}

/* ---- the report ------------------------------------------------------------------ */

void catalog_serial_init(catalog_serial_report *r, const char *branch, const char *base, const char *head) {
  memset(r, 0, sizeof *r);
  r->branch = branch;
  r->base = base;
  r->head = head;
  r->items = json_array();
  r->oom = !r->items;
}

void catalog_serial_clear(catalog_serial_report *r) {
  json_decref(r->items);
  r->items = NULL;
}

void catalog_serial_add(wr_catalog *cat, catalog_serial_report *r, const char *table, bool read, const char *what,
                     const char *why) {
  char who[WEIR_HASH_LEN + 1];
  char *msg = NULL;
  if (r->oom) return;
  changed_by(cat, r->base, r->head, table, who, &msg);
  if (json_array_append_new(r->items, json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o}", "table", table, "kind",
                                            read ? "read" : "write", "change", what, "reason", why, "base",
                                            r->base, "head", r->head, "changed_by",
                                            who[0] ? json_string(who) : json_null(), "changed_by_message",
                                            msg ? json_string(msg) : json_null())))
    r->oom = 1;
  free(msg);
  if (read) r->stale_reads++;
  else r->conflicts++;
}

int catalog_serial_error(const catalog_serial_report *r, const char *what, const char *advice, weir_error *err) {
  if (r->oom) return wr_oom(err);
  size_t n = json_array_size(r->items);
  if (n == 0) return WEIR_OK;
  wr_buf b = WEIR_BUF_INIT;
  size_t i;
  json_t *x;
  json_array_foreach(r->items, i, x) {
    if (i == 10) {
      wr_buf_printf(&b, "; and %zu more", n - 10);
      break;
    }
    const char *who = wr_json_str(x, "changed_by", NULL);
    const char *msg = wr_json_str(x, "changed_by_message", NULL);
    const char *key = wr_json_str(x, "table", "");
    wr_buf_printf(&b, "%s%s %s %s", i ? "; " : "", catalog_key_is_namespace(key) ? "namespace" : "table", key,
                  wr_json_str(x, "change", ""));
    if (who) wr_buf_printf(&b, " (by commit %.12s%s%s%s)", who, msg ? ", \"" : "", msg ? msg : "", msg ? "\"" : "");
    wr_buf_printf(&b, ", and %s", wr_json_str(x, "reason", ""));
  }
  int code = r->conflicts ? WEIR_ECONCURRENT : WEIR_ESTALEREAD;
  if (wr_buf_status(&b)) return wr_oom(err);
  code = wr_seterr(err, code, "%s on branch %s: since the base %.12s, %s; nothing was committed%s%s", what, r->branch,
              r->base, wr_buf_cstr(&b), advice ? ": " : "", advice ? advice : "");
  if (code != WEIR_ENOMEM) wr_error_set_details(err, json_incref(r->items));
  wr_buf_free(&b);
  return err ? err->code : code;
}

int catalog_serial_check_table(wr_catalog *cat, catalog_serial_report *r, const char *table, bool read,
                               const char *why, weir_error *err) {
  bool same = false;
  int rc = catalog_same_version_at(cat, table, r->base, r->head, &same, err);
  if (rc == WEIR_OK && !same) catalog_serial_add(cat, r, table, read, "changed", why);
  return rc;
}

int catalog_same_version_at(wr_catalog *cat, const char *table, const char *a, const char *b, bool *same,
                            weir_error *err) {
  wr_table_entry ea, eb;
  weir_error inner = {0};
  int ga = catalog_table_get(cat, a, table, &ea, &inner);
  if (ga != WEIR_OK && ga != WEIR_ENOTFOUND) {
    wr_error_move(err, &inner);
    return ga;
  }
  weir_error_clear(&inner);
  int gb = catalog_table_get(cat, b, table, &eb, &inner);
  if (gb != WEIR_OK && gb != WEIR_ENOTFOUND) {
    if (ga == WEIR_OK) wr_table_entry_clear(&ea);
    wr_error_move(err, &inner);
    return gb;
  }
  weir_error_clear(&inner);
  if (ga == WEIR_OK && gb == WEIR_OK) *same = strcmp(ea.metadata_location, eb.metadata_location) == 0;
  else *same = ga == gb; /* both absent */
  if (ga == WEIR_OK) wr_table_entry_clear(&ea);
  if (gb == WEIR_OK) wr_table_entry_clear(&eb);
  return WEIR_OK;
}

int catalog_base_check(wr_catalog *cat, const char *branch, const char *base, const char *head,
                       weir_error *err) {
  bool on = false;
  int rc = catalog_is_ancestor(cat, base, head, &on, err);
  if (rc) return rc;
  if (!on)
    return wr_seterr(err, WEIR_ECONCURRENT,
                       "the expected head %.12s is not in the history of branch %s (its head is %.12s); "
                       "nothing was written",
                       base, branch, head);
  return WEIR_OK;
}
