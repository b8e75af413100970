/*
 * status.c -- freshness SLAs (docs/contracts.md, "Freshness SLA"): every table at a ref
 * with its last change and the freshness its contract promises (`sla: {freshness: "1
 * hour"}`), breached when the table is older than that.
 *
 * Invariants:
 *   - A table's last change is the commit that wrote its current version (the catalog's
 *     provenance of the version, catalog_version_origin): what a merge or a fast-forward
 *     brings keeps the time it was written, and a revert to an older version brings that
 *     version's time back, since its data is that old. One lookup per table, never a
 *     walk of the history.
 *   - "Now" is an input (weir_status_options.now_us), never read from the environment by
 *     the library, so tests fix the time instead of waiting for it to pass.
 */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contracts/contract.h"
#include "lake/json_out.h"
#include "lake/lake.h"
#include "util/clock.h"
#include "util/duration.h"
#include "util/json.h"

int lake_parse_duration(const char *text, const char *what, int64_t *seconds, weir_error *err) {
  return wr_duration_parse(text, what, seconds, err);
}

/* The freshness SLA of a stored contract: *seconds 0 when it names none. */
static int sla_seconds(const weir_contract *c, const char *table, const char **text, int64_t *seconds,
                       weir_error *err) {
  *text = NULL;
  *seconds = 0;
  const json_t *f = c && c->sla ? json_object_get(c->sla, "freshness") : NULL;
  if (!f || json_is_null(f)) return WEIR_OK;
  char *what = wr_asprintf("table %s: contract %s: sla.freshness", table, c->name ? c->name : "(unnamed)");
  int rc;
  if (json_is_string(f)) {
    *text = json_string_value(f);
    rc = lake_parse_duration(*text, what, seconds, err);
  } else {
    rc = wr_seterr(err, WEIR_EINVALIDARG, "%s must be a string such as \"1 hour\"", what);
  }
  free(what);
  return rc;
}

int lake_table_freshness(weir_lake *lake, const wr_table_entry *e, int64_t now_us, json_t **out, weir_error *err) {
  *out = NULL;
  iceberg_table *t = NULL;
  int rc = lake_metadata(lake, e->metadata_location, &t, err);
  if (rc) return rc;
  bool stored = false;
  weir_contract *c = lake_table_type(t, e->table, &stored);
  iceberg_table_free(t);
  const char *text = NULL;
  int64_t sla = 0;
  if (stored) rc = sla_seconds(c, e->table, &text, &sla, err);
  char origin[WEIR_HASH_HEX_SIZE] = "";
  wr_commit_rec rec;
  bool have_rec = false;
  if (rc == WEIR_OK) rc = catalog_version_origin(lake->cat, e->metadata_location, origin, err);
  if (rc == WEIR_OK && origin[0]) {
    rc = catalog_commit_get(lake->cat, origin, &rec, err);
    have_rec = rc == WEIR_OK;
  }
  if (rc == WEIR_OK) {
    json_t *o = json_object();
    json_object_set_new(o, "table", json_string(e->table));
    json_object_set_new(o, "last_change", have_rec ? json_pack("{s:s,s:o}", "commit", origin, "time",
                                                               wr_json_time(rec.time_us))
                                                   : json_null());
    json_object_set_new(o, "sla", sla ? json_pack("{s:s,s:I}", "freshness", text, "seconds", (json_int_t)sla)
                                      : json_null());
    /* Age in whole seconds, never negative (a commit a skewed clock dated in the future is
     * as fresh as can be). */
    int64_t age = have_rec ? (now_us - rec.time_us) / 1000000 : -1;
    if (have_rec && age < 0) age = 0;
    json_object_set_new(o, "age_seconds", have_rec ? json_integer(age) : json_null());
    const char *status = !sla ? "no_sla" : !have_rec ? "unknown" : age > sla ? "breached" : "fresh";
    json_object_set_new(o, "status", json_string(status));
    *out = o;
  }
  if (have_rec) wr_commit_rec_clear(&rec);
  wr_contract_free(c);
  return rc;
}

int lake_status(weir_lake *lake, const weir_status_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  const char *ref = opts && opts->ref ? opts->ref : "main";
  int64_t now = opts && opts->now_us ? opts->now_us : wr_now_us();
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, ref, hash, err);
  if (rc) return rc;
  /* A time given before the commit judged is a question about a state that did not exist
   * yet at that time (every table would read as "fresh" at age 0): refused, saying which
   * ref to judge instead. */
  if (opts && opts->now_us) {
    wr_commit_rec rec;
    if ((rc = catalog_commit_get(lake->cat, hash, &rec, err))) return rc;
    int64_t made = rec.time_us;
    wr_commit_rec_clear(&rec);
    if (opts->now_us < made) {
      char at[40], when[40];
      wr_format_time_us(opts->now_us, at, sizeof at);
      wr_format_time_us(made, when, sizeof when);
      return wr_seterr(err, WEIR_EINVALIDARG,
                       "now %s is before commit %.12s of %s was made (%s): its tables did not exist in this "
                       "state then (judge a later time, or a ref of that time)",
                       at, hash, ref, when);
    }
  }
  wr_table_entry *tables = NULL;
  size_t n = 0;
  if ((rc = catalog_tables(lake->cat, hash, &tables, &n, err))) return rc;
  json_t *list = json_array();
  int64_t breached = 0;
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    json_t *o = NULL;
    if ((rc = lake_table_freshness(lake, &tables[i], now, &o, err))) break;
    if (strcmp(wr_json_str(o, "status", ""), "breached") == 0) breached++;
    json_array_append_new(list, o);
  }
  wr_table_entries_free(tables, n);
  if (rc) {
    json_decref(list);
    return rc;
  }
  json_t *doc = json_object();
  json_object_set_new(doc, "ref", json_string(ref));
  json_object_set_new(doc, "commit", json_string(hash));
  json_object_set_new(doc, "now", wr_json_time(now));
  json_object_set_new(doc, "ok", json_boolean(breached == 0));
  json_object_set_new(doc, "breached", json_integer(breached));
  json_object_set_new(doc, "tables", list);
  *out_json = wr_doc_dump(WR_DOC_STATUS, doc);
  return *out_json ? WEIR_OK : wr_oom(err);
}
