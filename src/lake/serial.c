/*
 * serial.c -- the serializable rules (docs/versioning.md, "Concurrency: serializable
 * writes"): a write computed against a base commit may land on a newer head of its branch
 * only if nothing it depends on changed in between.
 *
 * Every write carries
 *   - a base: the branch head when it started, or one its caller named (--expect-head);
 *   - the tables it writes, each staged against its version at the base (based_on);
 *   - a read set: tables it read or validated against without writing them.
 * When the head has moved past the base, the write is checked table by table against the
 * head it is about to be committed on:
 *   - a table it writes that is unchanged since the base: nothing to check;
 *   - a blind append (it read no rows of the table) whose table changed but kept its
 *     schema, partition spec and stored contract: rebased, since appending the same rows
 *     to the newer version is what running it after the other writer would have done;
 *   - any other change under a write (a replace, a create, an append whose table changed
 *     its schema or contract, or which read the table's rows): refused, because the write
 *     would remove or ignore rows or rules it never saw;
 *   - a compaction (a write whose read set is exactly the data files it rewrites, and which
 *     changes no row) whose table changed: rebased when the head's version still holds
 *     every file it rewrote and kept the schema, partition spec and contract (appends
 *     meanwhile only added files, which it leaves alone); refused when another writer
 *     replaced or deleted one of them (rewriting it again would bring back rows that
 *     writer removed) or changed the table's type;
 *   - any write whose table changed only through compactions since its base (every
 *     snapshot in between is a compaction's "replace"): as if unchanged, since a
 *     compaction changes no row, so what the write read is still what the table holds;
 *   - a row delete (delete.c) whose table changed: refused, as a replace is (it would
 *     keep rows appended since that its predicate matches, or delete from files others
 *     rewrote); over compactions only, refused when a file it rewrote was compacted away;
 *   - a table of the read set that changed: refused (a stale read).
 * The caller does this check against the exact head its compare-and-swap then requires,
 * so check and commit are one atomic step: if the CAS loses, the next attempt checks the
 * newer head.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/serial.h"
#include "util/json.h"

/* ---- the rules ----------------------------------------------------------------------- */

static bool same_schema(const wr_schema *a, const wr_schema *b) {
  if (a->n_fields != b->n_fields) return false;
  for (size_t i = 0; i < a->n_fields; i++) {
    const wr_field *x = &a->fields[i], *y = &b->fields[i];
    if (strcmp(x->name, y->name) != 0 || x->field_id != y->field_id || x->required != y->required ||
        !wr_type_equal(x->type, y->type))
      return false;
  }
  return true;
}

static bool same_json(const json_t *a, const json_t *b) {
  if (!a || json_is_null(a)) return !b || json_is_null(b);
  return b && json_equal(a, b);
}

bool lake_same_write_context(const iceberg_table *a, const iceberg_table *b) {
  return same_schema(&a->schema, &b->schema) &&
         same_json(json_object_get(a->json, "default-spec-id"), json_object_get(b->json, "default-spec-id")) &&
         same_json(json_object_get(a->properties, "weir.contract"), json_object_get(b->properties, "weir.contract"));
}

/* Every snapshot from `later`'s current one back to `then`'s is a compaction's (operation
 * "replace", weir.operation "compact"), and the table kept its type and properties: the
 * table holds the same rows as at `then`. False when the chain does not reach `then`'s
 * snapshot within what `later` lists. */
static bool only_compacted(const iceberg_table *then, const iceberg_table *later) {
  if (then->current_snapshot_id < 0 || !lake_same_write_context(then, later) ||
      !same_json(then->properties, later->properties))
    return false;
  const json_t *snaps = json_object_get(later->json, "snapshots");
  int64_t id = later->current_snapshot_id;
  for (size_t steps = 0; id != then->current_snapshot_id; steps++) {
    if (id < 0 || steps > json_array_size(snaps)) return false;
    const json_t *snap = NULL, *x;
    size_t i;
    json_array_foreach(snaps, i, x) if (json_integer_value(json_object_get(x, "snapshot-id")) == id) snap = x;
    if (!snap) return false;
    const json_t *sum = json_object_get(snap, "summary");
    const char *op = json_string_value(json_object_get(sum, "operation"));
    const char *wop = json_string_value(json_object_get(sum, "weir.operation"));
    if (!op || strcmp(op, "replace") != 0 || !wop || strcmp(wop, "compact") != 0) return false;
    const json_t *parent = json_object_get(snap, "parent-snapshot-id");
    id = json_is_integer(parent) ? json_integer_value(parent) : -1;
  }
  return true;
}

/* How many of the compaction's rewritten files `later` no longer holds. */
static int missing_files(const lake_staged *s, const iceberg_table *later, size_t *missing, weir_error *err) {
  *missing = 0;
  iceberg_data_file *files = NULL;
  size_t n = 0;
  int rc = iceberg_table_data_files(later, &files, &n, err);
  if (rc) return rc;
  for (size_t i = 0; i < s->n_removed; i++) {
    bool live = false;
    for (size_t k = 0; k < n && !live; k++) live = strcmp(files[k].path, s->removed[i]) == 0;
    if (!live) (*missing)++;
  }
  iceberg_data_files_free(files, n);
  return WEIR_OK;
}

int lake_check_serial(weir_lake *lake, const char *branch, const char *base, const char *head,
                      const lake_staged *staged, size_t n, const char *const *reads, size_t n_reads,
                      bool *revalidate, weir_error *err) {
  if (revalidate) *revalidate = false;
  if (strcmp(base, head) == 0) return WEIR_OK;
  catalog_serial_report r;
  catalog_serial_init(&r, branch, base, head);
  int rc = WEIR_OK;
  bool only_appends = true; /* every refusal is an append whose context changed */
  bool created_elsewhere = false; /* a create lost to another writer's create */
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    const lake_staged *s = &staged[i];
    wr_table_entry now;
    weir_error inner = {0};
    int g = catalog_table_get(lake->cat, head, s->table, &now, &inner);
    if (g != WEIR_OK && g != WEIR_ENOTFOUND) {
      wr_error_move(err, &inner);
      rc = g;
      break;
    }
    weir_error_clear(&inner);
    const char *cur = g == WEIR_OK ? now.metadata_location : NULL;
    bool unchanged = cur ? (s->based_on && strcmp(cur, s->based_on) == 0) : !s->based_on;
    iceberg_table *then = NULL, *later = NULL;
    if (!unchanged && cur && s->based_on) {
      if ((rc = lake_metadata(lake, s->based_on, &then, err)) == WEIR_OK &&
          (rc = lake_metadata(lake, cur, &later, err)) == WEIR_OK)
        unchanged = only_compacted(then, later);
    }
    char what_buf[160];
    if (unchanged && rc == WEIR_OK && s->delete_rows && cur && s->based_on && strcmp(cur, s->based_on) != 0) {
      /* Only compactions since the base: the rows are the same, but the files this delete
       * rewrote may have been compacted into others it never looked at. */
      size_t missing = 0;
      if ((rc = missing_files(s, later, &missing, err)) == WEIR_OK && missing > 0) {
        snprintf(what_buf, sizeof what_buf, "was compacted: %zu of the %zu files this delete rewrote are gone",
                 missing, s->n_removed);
        catalog_serial_add(lake->cat, &r, s->table, false, what_buf, "run the delete again on the new head");
        only_appends = false;
      }
    }
    if (!unchanged && rc == WEIR_OK) {
      const char *what = NULL, *why = NULL;
      if (!cur) {
        what = "was dropped", why = "this write was computed against it";
      } else if (!s->based_on) {
        what = "was created by another writer", why = "this write would replace it unseen";
        created_elsewhere = true;
      } else if (s->delete_rows) {
        what = "changed", why = "a delete never removes rows it did not read";
      } else if (s->n_removed > 0) {
        size_t missing = 0;
        if (!lake_same_write_context(then, later)) {
          what = "changed its schema or contract", why = "this compaction rewrote its files under the old one";
        } else if ((rc = missing_files(s, later, &missing, err)) == WEIR_OK && missing > 0) {
          snprintf(what_buf, sizeof what_buf, "no longer holds %zu of the %zu files this compaction rewrote",
                   missing, s->n_removed);
          what = what_buf, why = "another write replaced or deleted them; compaction never brings rows back";
        }
      } else if (s->schema_only || s->evolves) {
        what = "changed", why = "this schema change was computed against the version it read";
      } else if (s->mode != WEIR_MODE_APPEND) {
        what = "changed", why = "a replace never removes rows it did not read";
      } else if (s->read_rows) {
        what = "changed", why = "this append was validated against its rows (a unique rule)";
      } else if (!lake_same_write_context(then, later)) {
        what = "changed its schema or contract", why = "this append was validated against the old one";
      }
      if (what) {
        if (s->mode != WEIR_MODE_APPEND || s->evolves || !cur || !s->based_on) only_appends = false;
        catalog_serial_add(lake->cat, &r, s->table, false, what, why);
      }
    }
    iceberg_table_free(then);
    iceberg_table_free(later);
    if (g == WEIR_OK) wr_table_entry_clear(&now);
  }
  for (size_t i = 0; i < n_reads && rc == WEIR_OK; i++) {
    bool written = false;
    for (size_t k = 0; k < n && !written; k++) written = strcmp(staged[k].table, reads[i]) == 0;
    if (written) continue;
    bool same = false;
    if ((rc = catalog_same_version_at(lake->cat, reads[i], base, head, &same, err)) == WEIR_OK && !same) {
      only_appends = false;
      catalog_serial_add(lake->cat, &r, reads[i], true, "changed", "this write read it");
    }
  }
  if (rc == WEIR_OK && json_array_size(r.items) > 0) {
    if (revalidate) *revalidate = only_appends;
    /* Running a create again would only fail on the table that now exists: say what can work. */
    rc = catalog_serial_error(&r, "concurrent update",
                              created_elsewhere ? "the table exists now: to add these rows to it, run it again with "
                                                  "--mode append (or --mode replace to replace it)"
                                                : "run it again on the new head",
                              err);
  }
  catalog_serial_clear(&r);
  return rc;
}

int lake_table_only_compacted(weir_lake *lake, const char *table, const char *base, const char *head, bool *out,
                              weir_error *err) {
  *out = false;
  iceberg_table *then = NULL, *later = NULL;
  int rc = lake_table_at(lake, base, table, true, &then, err);
  if (rc == WEIR_OK) rc = lake_table_at(lake, head, table, true, &later, err);
  if (rc == WEIR_OK && then && later) *out = only_compacted(then, later);
  iceberg_table_free(then);
  iceberg_table_free(later);
  return rc;
}

int lake_write_base(weir_lake *lake, const char *branch, const char *expect_head, char out[WEIR_HASH_HEX_SIZE],
                    weir_error *err) {
  char head[WEIR_HASH_HEX_SIZE];
  int rc = lake_branch_head(lake, branch, head, err);
  if (rc) return rc;
  if (!expect_head) {
    memcpy(out, head, WEIR_HASH_HEX_SIZE);
    return WEIR_OK;
  }
  if (!*expect_head)
    return wr_seterr(err, WEIR_EINVALIDARG, "--expect-head is empty (give the commit hash the write builds on)");
  char want[WEIR_HASH_HEX_SIZE];
  weir_error inner = {0};
  rc = catalog_resolve(lake->cat, expect_head, want, &inner);
  if (rc) {
    wr_error_move(err, &inner);
    wr_error_prefix(err, "--expect-head %s", expect_head);
    return rc;
  }
  if ((rc = catalog_base_check(lake->cat, branch ? branch : "main", want, head, err))) return rc;
  memcpy(out, want, WEIR_HASH_HEX_SIZE);
  return WEIR_OK;
}
