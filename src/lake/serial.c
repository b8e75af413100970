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
    if (!unchanged) {
      const char *what = NULL, *why = NULL;
      if (!cur) {
        what = "was dropped", why = "this write was computed against it";
      } else if (!s->based_on) {
        what = "was created by another writer", why = "this write would replace it unseen";
        created_elsewhere = true;
      } else if (s->mode != WEIR_MODE_APPEND) {
        what = "changed", why = "a replace never removes rows it did not read";
      } else if (s->read_rows) {
        what = "changed", why = "this append was validated against its rows (a unique rule)";
      } else {
        iceberg_table *then = NULL, *later = NULL;
        if ((rc = lake_metadata(lake, s->based_on, &then, err)) == WEIR_OK &&
            (rc = lake_metadata(lake, cur, &later, err)) == WEIR_OK && !lake_same_write_context(then, later))
          what = "changed its schema or contract", why = "this append was validated against the old one";
        iceberg_table_free(then);
        iceberg_table_free(later);
      }
      if (what) {
        if (s->mode != WEIR_MODE_APPEND || !cur || !s->based_on) only_appends = false;
        catalog_serial_add(lake->cat, &r, s->table, false, what, why);
      }
    }
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
