/*
 * commit.c -- an engine's table commit becomes one weir commit.
 *
 * For each attempt: read the branch head H; for every table, check the request's
 * requirements against the table's version at H (a requirement that no longer holds is
 * the engine's stale read: 409 CommitFailedException, which engines answer by refreshing
 * and retrying), apply its updates to a copy of that version's metadata, check the result
 * against the table's contract (admit.c), write the new metadata file, then commit all
 * tables in one catalog transaction whose compare-and-swap requires H. If another writer
 * moved the branch in between, the CAS fails and the next attempt checks everything again
 * against the newer head, so a commit lands only on a head its requirements hold on
 * (docs/versioning.md: the check and the commit are one atomic step). Nothing of a
 * refused commit is visible; its metadata files are orphans for the collector.
 *
 * Updates weir refuses: remove-snapshots and remove-snapshot-ref (only weir's collector
 * removes what no ref reaches), refs other than `main` (weir's branches are lake-wide: a
 * table's `main` at prefix B is the table on branch B), partitioned specs, format
 * versions other than 2, and property changes to what weir owns (weir.contract,
 * weir.lineage, gc.enabled).
 */
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/clock.h"
#include "storage/location.h"
#include "storage/storage.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

#define COMMIT_ATTEMPTS 16

/* The reason a request is refused: status, error type, message (owned), details. */
typedef struct refusal {
  int status;
  const char *type;
  char *message;
  json_t *details;
} refusal;

static int refuse(refusal *r, int status, const char *type, char *message) {
  r->status = status;
  r->type = type;
  r->message = message;
  return -1;
}

static int64_t ref_snapshot(const json_t *meta, const char *ref) {
  json_t *r = json_object_get(json_object_get(meta, "refs"), ref);
  if (json_is_object(r)) return wr_json_int(r, "snapshot-id", -1);
  if (strcmp(ref, "main") == 0) {
    int64_t cur = wr_json_int(meta, "current-snapshot-id", -1);
    return cur;
  }
  return -1;
}

static char *changed_by(weir_lake *lake, const iceberg_table *cur) {
  if (!cur) return wr_strdup("");
  char origin[WEIR_HASH_HEX_SIZE] = "";
  weir_error err = {0};
  catalog_version_origin(lake->cat, cur->metadata_location, origin, &err);
  weir_error_clear(&err);
  return origin[0] ? wr_asprintf(" (the table's version at the branch head was written by commit %.12s)", origin)
                   : wr_strdup("");
}

static int check_requirements(weir_lake *lake, const char *table, const iceberg_table *cur, const json_t *reqs,
                              refusal *rf) {
  size_t i;
  json_t *q;
  json_array_foreach(reqs, i, q) {
    const char *type = wr_json_str(q, "type", NULL);
    if (!json_is_object(q) || !type)
      return refuse(rf, 400, "BadRequestException",
                    wr_asprintf("requirement %zu of table %s: an object with a string \"type\"", i + 1, table));
    const json_t *meta = cur ? cur->json : NULL;
    if (strcmp(type, "assert-create") == 0) {
      if (cur) return refuse(rf, 409, "AlreadyExistsException", wr_asprintf("table %s already exists", table));
      continue;
    }
    if (!cur)
      return refuse(rf, 404, "NoSuchTableException", wr_asprintf("table %s does not exist on this branch", table));
    char *why = NULL;
    if (strcmp(type, "assert-table-uuid") == 0) {
      const char *u = wr_json_str(q, "uuid", NULL);
      if (!u) return refuse(rf, 400, "BadRequestException", wr_asprintf("assert-table-uuid of %s: no uuid", table));
      if (strcmp(u, cur->table_uuid ? cur->table_uuid : "") != 0)
        why = wr_asprintf("assert-table-uuid: table %s is now a different table (uuid %s, expected %s)", table,
                          cur->table_uuid ? cur->table_uuid : "?", u);
    } else if (strcmp(type, "assert-ref-snapshot-id") == 0) {
      const char *ref = wr_json_str(q, "ref", NULL);
      json_t *sid = json_object_get(q, "snapshot-id");
      if (!ref || (sid && !json_is_integer(sid) && !json_is_null(sid)))
        return refuse(rf, 400, "BadRequestException",
                      wr_asprintf("assert-ref-snapshot-id of %s: needs \"ref\" and \"snapshot-id\"", table));
      int64_t have = ref_snapshot(meta, ref);
      if (!sid || json_is_null(sid)) {
        if (have >= 0)
          why = wr_asprintf("assert-ref-snapshot-id: ref %s of table %s was created concurrently (now snapshot "
                            "%lld)",
                            ref, table, (long long)have);
      } else if (have != json_integer_value(sid)) {
        why = wr_asprintf("assert-ref-snapshot-id: branch %s of table %s has changed: expected snapshot %lld, found "
                          "%lld",
                          ref, table, (long long)json_integer_value(sid), (long long)have);
      }
    } else {
      struct {
        const char *type, *field, *meta_key;
        int64_t dflt;
      } const ints[] = {
          {"assert-last-assigned-field-id", "last-assigned-field-id", "last-column-id", 0},
          {"assert-current-schema-id", "current-schema-id", "current-schema-id", 0},
          {"assert-last-assigned-partition-id", "last-assigned-partition-id", "last-partition-id", 999},
          {"assert-default-spec-id", "default-spec-id", "default-spec-id", 0},
          {"assert-default-sort-order-id", "default-sort-order-id", "default-sort-order-id", 0},
      };
      size_t k = 0;
      while (k < sizeof ints / sizeof ints[0] && strcmp(ints[k].type, type) != 0) k++;
      if (k == sizeof ints / sizeof ints[0])
        return refuse(rf, 400, "BadRequestException", wr_asprintf("unknown requirement type \"%s\"", type));
      json_t *want = json_object_get(q, ints[k].field);
      if (!json_is_integer(want))
        return refuse(rf, 400, "BadRequestException",
                      wr_asprintf("%s of %s: \"%s\" must be an integer", type, table, ints[k].field));
      int64_t have = wr_json_int(meta, ints[k].meta_key, ints[k].dflt);
      if (have != json_integer_value(want))
        why = wr_asprintf("%s: table %s has %s %lld, expected %lld", type, table, ints[k].field, (long long)have,
                          (long long)json_integer_value(want));
    }
    if (why) {
      char *by = changed_by(lake, cur);
      char *m = wr_asprintf("Requirement failed: %s%s; nothing was committed (refresh the table and retry)", why, by);
      free(why);
      free(by);
      return refuse(rf, 409, "CommitFailedException", m);
    }
  }
  return 0;
}

/* ---- updates ---------------------------------------------------------------------------- */

static json_t *arr(json_t *meta, const char *key) {
  json_t *a = json_object_get(meta, key);
  if (!json_is_array(a)) {
    a = json_array();
    json_object_set_new(meta, key, a);
  }
  return a;
}

static json_t *obj(json_t *meta, const char *key) {
  json_t *o = json_object_get(meta, key);
  if (!json_is_object(o)) {
    o = json_object();
    json_object_set_new(meta, key, o);
  }
  return o;
}

static bool has_id(json_t *array, const char *key, int64_t id) {
  size_t i;
  json_t *v;
  json_array_foreach(array, i, v) if (wr_json_int(v, key, -99) == id) return true;
  return false;
}

static int64_t max_id(json_t *array, const char *key) {
  int64_t m = -1;
  size_t i;
  json_t *v;
  json_array_foreach(array, i, v) {
    int64_t x = wr_json_int(v, key, -1);
    if (x > m) m = x;
  }
  return m;
}

/* Highest field id in a schema (nested types included). */
static int64_t max_field_id(const json_t *t) {
  int64_t m = 0;
  if (json_is_object(t)) {
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)t, k, v) {
      if ((strcmp(k, "id") == 0 || strcmp(k, "element-id") == 0 || strcmp(k, "key-id") == 0 ||
           strcmp(k, "value-id") == 0) &&
          json_is_integer(v) && json_integer_value(v) > m)
        m = json_integer_value(v);
      int64_t sub = max_field_id(v);
      if (sub > m) m = sub;
    }
  } else if (json_is_array(t)) {
    size_t i;
    json_t *v;
    json_array_foreach((json_t *)t, i, v) {
      int64_t sub = max_field_id(v);
      if (sub > m) m = sub;
    }
  }
  return m;
}

static bool weir_owned_property(const char *k) {
  return strcmp(k, "weir.contract") == 0 || strcmp(k, "weir.lineage") == 0;
}

/* A new table's document before its updates. */
static json_t *skeleton(weir_lake *lake, const char *table) {
  wr_table_id id;
  wr_table_id_parse(table, &id, NULL);
  char *loc = lake_table_location(lake, &id);
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  json_t *m = json_pack("{s:i,s:s,s:s,s:i,s:I,s:i,s:[],s:i,s:[],s:i,s:i,s:[],s:i,s:{},s:I,s:{},s:[],s:[],s:[]}",
                        "format-version", 2, "table-uuid", u, "location", loc, "last-sequence-number", 0,
                        "last-updated-ms", (json_int_t)(wr_now_us() / 1000), "last-column-id", 0, "schemas",
                        "current-schema-id", -1, "partition-specs", "default-spec-id", 0, "last-partition-id", 999,
                        "sort-orders", "default-sort-order-id", 0, "properties", "current-snapshot-id",
                        (json_int_t)-1, "refs", "snapshots", "snapshot-log", "metadata-log");
  free(loc);
  return m;
}

static int apply_updates(const char *table, bool is_new, json_t *meta, const json_t *updates, refusal *rf) {
  int64_t last_schema = -1, last_spec = -1, last_order = -1;
  size_t i;
  json_t *u;
  json_array_foreach(updates, i, u) {
    const char *a = wr_json_str(u, "action", NULL);
    if (!json_is_object(u) || !a)
      return refuse(rf, 400, "BadRequestException",
                    wr_asprintf("update %zu of table %s: an object with a string \"action\"", i + 1, table));
#define BAD(...) return refuse(rf, 400, "BadRequestException", wr_asprintf(__VA_ARGS__))
    if (strcmp(a, "assign-uuid") == 0) {
      const char *v = wr_json_str(u, "uuid", NULL);
      if (!v) BAD("assign-uuid of %s: no uuid", table);
      if (!is_new && strcmp(v, wr_json_str(meta, "table-uuid", "")) != 0)
        BAD("assign-uuid: table %s already has uuid %s", table, wr_json_str(meta, "table-uuid", ""));
      json_object_set_new(meta, "table-uuid", json_string(v));
    } else if (strcmp(a, "upgrade-format-version") == 0) {
      json_t *v = json_object_get(u, "format-version");
      if (!json_is_integer(v)) BAD("upgrade-format-version of %s: no format-version", table);
      if (json_integer_value(v) != 2)
        return refuse(rf, 406, "UnsupportedOperationException",
                      wr_asprintf("table %s: weir writes Iceberg format version 2, not %lld", table,
                                  (long long)json_integer_value(v)));
    } else if (strcmp(a, "add-schema") == 0) {
      json_t *s = json_object_get(u, "schema");
      if (!json_is_object(s) || !json_is_array(json_object_get(s, "fields")))
        BAD("add-schema of %s: \"schema\" must be a struct schema with fields", table);
      json_t *schemas = arr(meta, "schemas");
      json_t *copy = json_deep_copy(s);
      json_object_set_new(copy, "type", json_string("struct"));
      /* An equal schema that exists is reused (as Java does); a new one gets the next id. */
      int64_t found = -1;
      size_t k;
      json_t *old;
      json_array_foreach(schemas, k, old) if (json_equal(json_object_get(old, "fields"), json_object_get(copy, "fields")))
          found = wr_json_int(old, "schema-id", -1);
      if (found >= 0) {
        last_schema = found;
        json_decref(copy);
      } else {
        last_schema = max_id(schemas, "schema-id") + 1;
        json_object_set_new(copy, "schema-id", json_integer(last_schema));
        json_array_append_new(schemas, copy);
      }
      int64_t lc = wr_json_int(meta, "last-column-id", 0);
      int64_t mf = max_field_id(json_object_get(s, "fields"));
      int64_t given = wr_json_int(u, "last-column-id", 0);
      if (mf > lc) lc = mf;
      if (given > lc) lc = given;
      json_object_set_new(meta, "last-column-id", json_integer(lc));
    } else if (strcmp(a, "set-current-schema") == 0) {
      int64_t id = wr_json_int(u, "schema-id", -2);
      if (id == -1) id = last_schema;
      if (id < 0 || !has_id(arr(meta, "schemas"), "schema-id", id))
        BAD("set-current-schema of %s: no schema %lld", table, (long long)id);
      json_object_set_new(meta, "current-schema-id", json_integer(id));
    } else if (strcmp(a, "add-spec") == 0) {
      json_t *s = json_object_get(u, "spec");
      if (!json_is_object(s)) BAD("add-spec of %s: no spec", table);
      if (json_array_size(json_object_get(s, "fields")) > 0)
        return refuse(rf, 406, "UnsupportedOperationException",
                      wr_asprintf("table %s: weir tables are unpartitioned (the spec has fields)", table));
      json_t *specs = arr(meta, "partition-specs");
      if (json_array_size(specs) == 0)
        json_array_append_new(specs, json_pack("{s:i,s:[]}", "spec-id", 0, "fields"));
      last_spec = 0;
    } else if (strcmp(a, "set-default-spec") == 0) {
      int64_t id = wr_json_int(u, "spec-id", -2);
      if (id == -1) id = last_spec;
      if (id < 0 || !has_id(arr(meta, "partition-specs"), "spec-id", id))
        BAD("set-default-spec of %s: no spec %lld", table, (long long)id);
      json_object_set_new(meta, "default-spec-id", json_integer(id));
    } else if (strcmp(a, "add-sort-order") == 0) {
      json_t *s = json_object_get(u, "sort-order");
      if (!json_is_object(s)) BAD("add-sort-order of %s: no sort-order", table);
      json_t *orders = arr(meta, "sort-orders");
      json_t *copy = json_deep_copy(s);
      if (json_array_size(json_object_get(copy, "fields")) == 0) {
        json_object_set_new(copy, "order-id", json_integer(0));
      } else if (!json_is_integer(json_object_get(copy, "order-id")) ||
                 has_id(orders, "order-id", wr_json_int(copy, "order-id", 0))) {
        int64_t next = max_id(orders, "order-id") + 1;
        json_object_set_new(copy, "order-id", json_integer(next < 1 ? 1 : next));
      }
      last_order = wr_json_int(copy, "order-id", 0);
      if (!has_id(orders, "order-id", last_order)) json_array_append(orders, copy);
      json_decref(copy);
    } else if (strcmp(a, "set-default-sort-order") == 0) {
      int64_t id = wr_json_int(u, "sort-order-id", -2);
      if (id == -1) id = last_order;
      if (id < 0 || !has_id(arr(meta, "sort-orders"), "order-id", id))
        BAD("set-default-sort-order of %s: no sort order %lld", table, (long long)id);
      json_object_set_new(meta, "default-sort-order-id", json_integer(id));
    } else if (strcmp(a, "add-snapshot") == 0) {
      json_t *s = json_object_get(u, "snapshot");
      if (!json_is_object(s) || !json_is_integer(json_object_get(s, "snapshot-id")) ||
          !json_is_string(json_object_get(s, "manifest-list")) ||
          !json_is_integer(json_object_get(s, "timestamp-ms")))
        BAD("add-snapshot of %s: a snapshot needs snapshot-id, timestamp-ms and manifest-list", table);
      json_t *snaps = arr(meta, "snapshots");
      int64_t id = json_integer_value(json_object_get(s, "snapshot-id"));
      if (has_id(snaps, "snapshot-id", id))
        return refuse(rf, 409, "CommitFailedException",
                      wr_asprintf("table %s already has snapshot %lld", table, (long long)id));
      int64_t seq = wr_json_int(s, "sequence-number", 0);
      int64_t last = wr_json_int(meta, "last-sequence-number", 0);
      if (seq <= last)
        return refuse(rf, 409, "CommitFailedException",
                      wr_asprintf("table %s: snapshot %lld has sequence number %lld, not above the table's %lld "
                                  "(it was made from an older version: refresh and retry)",
                                  table, (long long)id, (long long)seq, (long long)last));
      json_array_append_new(snaps, json_deep_copy(s));
      json_object_set_new(meta, "last-sequence-number", json_integer(seq));
    } else if (strcmp(a, "set-snapshot-ref") == 0) {
      const char *ref = wr_json_str(u, "ref-name", NULL);
      const char *type = wr_json_str(u, "type", "branch");
      json_t *sid = json_object_get(u, "snapshot-id");
      if (!ref || !json_is_integer(sid)) BAD("set-snapshot-ref of %s: needs ref-name and snapshot-id", table);
      if (strcmp(ref, "main") != 0 || strcmp(type, "branch") != 0)
        return refuse(rf, 403, "ForbiddenException",
                      wr_asprintf("table %s: weir branches and tags are lake-wide, not per table: write to another "
                                  "branch through its warehouse (warehouse=<branch>), tag with `weir tag create`",
                                  table));
      int64_t id = json_integer_value(sid);
      if (!has_id(arr(meta, "snapshots"), "snapshot-id", id))
        BAD("set-snapshot-ref of %s: no snapshot %lld", table, (long long)id);
      json_object_set_new(obj(meta, "refs"), "main", json_pack("{s:I,s:s}", "snapshot-id", (json_int_t)id, "type",
                                                                "branch"));
      json_object_set_new(meta, "current-snapshot-id", json_integer(id));
      json_array_append_new(arr(meta, "snapshot-log"),
                            json_pack("{s:I,s:I}", "timestamp-ms", (json_int_t)(wr_now_us() / 1000), "snapshot-id",
                                      (json_int_t)id));
    } else if (strcmp(a, "remove-snapshots") == 0 || strcmp(a, "remove-snapshot-ref") == 0) {
      return refuse(rf, 403, "ForbiddenException",
                    wr_asprintf("table %s: %s refused: other commits and branches of the lake may still read those "
                                "snapshots; weir's own collector (weir gc) deletes files once no ref reaches them",
                                table, a));
    } else if (strcmp(a, "set-location") == 0) {
      const char *loc = wr_json_str(u, "location", NULL);
      if (!loc) BAD("set-location of %s: no location", table);
      if (!is_new && strcmp(loc, wr_json_str(meta, "location", "")) != 0)
        return refuse(rf, 406, "UnsupportedOperationException",
                      wr_asprintf("table %s: weir keeps a table's location", table));
      json_object_set_new(meta, "location", json_string(loc));
    } else if (strcmp(a, "set-properties") == 0 || strcmp(a, "remove-properties") == 0) {
      bool set = a[0] == 's';
      json_t *what = json_object_get(u, set ? "updates" : "removals");
      if (set ? !json_is_object(what) : !json_is_array(what))
        BAD("%s of %s: \"%s\" missing", a, table, set ? "updates" : "removals");
      json_t *props = obj(meta, "properties");
      const char *k;
      json_t *v;
      size_t j;
      if (set) {
        json_object_foreach(what, k, v) {
          if (!json_is_string(v)) BAD("set-properties of %s: property %s is not a string", table, k);
          if (weir_owned_property(k) ||
              (strcmp(k, "gc.enabled") == 0 && strcmp(json_string_value(v), "false") != 0))
            return refuse(rf, 403, "ForbiddenException",
                          wr_asprintf("table %s: property %s belongs to weir (contracts change with `weir import "
                                      "--contract`; gc.enabled stays false: `weir gc` collects files)",
                                      table, k));
          json_object_set(props, k, v);
        }
      } else {
        json_array_foreach(what, j, v) {
          if (!json_is_string(v)) BAD("remove-properties of %s: removals must be strings", table);
          k = json_string_value(v);
          if (weir_owned_property(k) || strcmp(k, "gc.enabled") == 0)
            return refuse(rf, 403, "ForbiddenException", wr_asprintf("table %s: property %s belongs to weir", table, k));
          json_object_del(props, k);
        }
      }
    } else if (strcmp(a, "set-statistics") == 0 || strcmp(a, "set-partition-statistics") == 0) {
      bool part = strstr(a, "partition") != NULL;
      json_t *st = json_object_get(u, part ? "partition-statistics" : "statistics");
      if (!json_is_object(st) || !json_is_integer(json_object_get(st, "snapshot-id")))
        BAD("%s of %s: statistics with a snapshot-id", a, table);
      json_t *list = arr(meta, part ? "partition-statistics" : "statistics");
      int64_t sid = wr_json_int(st, "snapshot-id", 0);
      for (size_t k = json_array_size(list); k-- > 0;)
        if (wr_json_int(json_array_get(list, k), "snapshot-id", -1) == sid) json_array_remove(list, k);
      json_array_append(list, st);
    } else if (strcmp(a, "remove-statistics") == 0 || strcmp(a, "remove-partition-statistics") == 0) {
      bool part = strstr(a, "partition") != NULL;
      json_t *list = arr(meta, part ? "partition-statistics" : "statistics");
      int64_t sid = wr_json_int(u, "snapshot-id", -1);
      for (size_t k = json_array_size(list); k-- > 0;)
        if (wr_json_int(json_array_get(list, k), "snapshot-id", -2) == sid) json_array_remove(list, k);
    } else {
      return refuse(rf, 406, "UnsupportedOperationException",
                    wr_asprintf("table %s: update \"%s\" is not supported by weir", table, a));
    }
#undef BAD
  }
  return 0;
}

/* ---- the commit ----------------------------------------------------------------------------- */

typedef struct prepared {
  json_t *meta;
  iceberg_table *next;
  char *location;
} prepared;

static void prepared_clear(prepared *p) {
  json_decref(p->meta);
  iceberg_table_free(p->next);
  free(p->location);
  memset(p, 0, sizeof *p);
}

static void respond_refusal(rest_ctx *c, refusal *rf) {
  rest_respond_error(c->resp, rf->status, rf->type, rf->details, "%s", rf->message ? rf->message : "refused");
  free(rf->message);
  memset(rf, 0, sizeof *rf);
}

static void from_weir_error(refusal *rf, weir_error *err) {
  rest_response tmp = {0};
  rest_respond_weir_error(&tmp, err, "NoSuchTableException");
  rf->status = tmp.status;
  rest_response_clear(&tmp);
  switch (err->code) {
  case WEIR_ECONTRACT: rf->type = "ValidationException"; break;
  case WEIR_ECONCURRENT:
  case WEIR_ESTALEREAD: rf->type = "CommitFailedException"; break;
  case WEIR_EUNSUPPORTED: rf->type = "UnsupportedOperationException"; break;
  case WEIR_ENOTFOUND: rf->type = "NoSuchTableException"; break;
  case WEIR_EEXISTS: rf->type = "AlreadyExistsException"; break;
  default: rf->type = rf->status == 403 ? "ForbiddenException" : rf->status == 400 ? "BadRequestException"
                                                                                 : "InternalServerError";
  }
  rf->message = wr_strdup(err->message ? err->message : weir_error_name(err->code));
  if (err->details) {
    json_error_t je;
    rf->details = json_loads(err->details, 0, &je);
  }
}

/* The snapshots this commit adds (in `meta`, not in `base`) record the weir branch and
 * the commit they follow, as the snapshots weir writes itself do (lake/write.c), so that
 * an engine reading the table's history can map each snapshot back to weir. */
static void tag_new_snapshots(json_t *meta, const iceberg_table *base, const char *branch, const char *head) {
  const json_t *old = base ? json_object_get(base->json, "snapshots") : NULL;
  size_t i, j;
  json_t *snap, *o;
  json_array_foreach(json_object_get(meta, "snapshots"), i, snap) {
    json_int_t id = json_integer_value(json_object_get(snap, "snapshot-id"));
    bool known = false;
    json_array_foreach((json_t *)old, j, o) if (json_integer_value(json_object_get(o, "snapshot-id")) == id) known = true;
    if (known) continue;
    json_t *summary = json_object_get(snap, "summary");
    if (!json_is_object(summary)) continue; /* required by the spec; the parse below refuses its absence */
    json_object_set_new(summary, "weir.branch", json_string(branch));
    json_object_set_new(summary, "weir.parent-commit", json_string(head));
  }
}

/* One table: requirements, updates, contract, metadata file. 0, or -1 with rf set. */
static int prepare(rest_ctx *c, const char *head, rest_table_change *ch, prepared *out, bool write, refusal *rf) {
  memset(out, 0, sizeof *out);
  weir_lake *lake = c->lake;
  iceberg_table *cur = NULL;
  weir_error err = {0};
  if (lake_table_at(lake, head, ch->table, true, &cur, &err)) {
    from_weir_error(rf, &err);
    weir_error_clear(&err);
    return -1;
  }
  int rc = 0;
  if (ch->adopt && cur) {
    rc = refuse(rf, 409, "AlreadyExistsException", wr_asprintf("table %s already exists on branch %s", ch->table,
                                                                  c->ref.name));
    goto done;
  }
  if ((rc = check_requirements(lake, ch->table, cur, ch->requirements, rf))) goto done;
  const iceberg_table *base = ch->adopt ? ch->adopt : cur;
  bool is_new = base == NULL;
  json_t *meta = base ? json_deep_copy(base->json) : skeleton(lake, ch->table);
  out->meta = meta;
  if ((rc = apply_updates(ch->table, is_new, meta, ch->updates, rf))) goto done;
  json_object_set_new(meta, "last-updated-ms", json_integer(wr_now_us() / 1000));
  tag_new_snapshots(meta, base, c->ref.name, head);
  /* The result must be a table weir reads: the same checks as any metadata file. */
  char *text = wr_json_compact(meta);
  rc = iceberg_table_parse(text, strlen(text), "(the table after the commit's updates)", &out->next, &err);
  free(text);
  if (rc) {
    rc = refuse(rf, 400, "BadRequestException", wr_asprintf("table %s: %s", ch->table, err.message));
    weir_error_clear(&err);
    goto done;
  }
  if (rest_admit(lake, ch->table, cur, out->next, &err)) {
    from_weir_error(rf, &err);
    weir_error_clear(&err);
    rc = -1;
    goto done;
  }
  if (write) {
    wr_table_id id;
    wr_table_id_parse(ch->table, &id, NULL);
    char *tloc = lake_table_location(lake, &id);
    char *mdir = wr_location_join(tloc, "metadata");
    free(tloc);
    if (wr_storage_mkdirs(mdir, &err) || iceberg_metadata_write(mdir, base, meta, &out->location, &err)) {
      from_weir_error(rf, &err);
      weir_error_clear(&err);
      rc = -1;
    }
    free(mdir);
  }
done:
  iceberg_table_free(cur);
  if (rc) prepared_clear(out);
  return rc;
}

void rest_commit(rest_ctx *c, rest_table_change *changes, size_t n, rest_respond_with respond) {
  if (respond != REST_RESPOND_STAGED && !rest_require_branch(c)) return;
  for (size_t i = 0; i < n; i++)
    for (size_t j = i + 1; j < n; j++)
      if (strcmp(changes[i].table, changes[j].table) == 0) {
        rest_respond_error(c->resp, 400, "BadRequestException", NULL, "table %s appears twice in one commit",
                           changes[i].table);
        return;
      }
  /* A write under the lake's writer lock (lake/writers.c): a gc with a short grace on this
   * machine waits for it. The data files the client wrote before this request are not
   * covered: a remote client is a writer on another machine, protected by the grace. */
  lake_writer_enter(c->lake);
  prepared *pp = wr_calloc(n ? n : 1, sizeof *pp);
  wr_table_change *tc = wr_calloc(n ? n : 1, sizeof *tc);
  refusal rf = {0};
  bool done = false, conflict = false;
  char hash[WEIR_HASH_HEX_SIZE] = "";
  for (int attempt = 0; attempt < COMMIT_ATTEMPTS && !done; attempt++) {
    char head[WEIR_HASH_HEX_SIZE];
    weir_error err = {0};
    if (catalog_ref_get(c->lake->cat, WEIR_REF_BRANCH, c->ref.name, head, &err)) {
      from_weir_error(&rf, &err);
      weir_error_clear(&err);
      break;
    }
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++) rc = prepare(c, head, &changes[i], &pp[i], respond != REST_RESPOND_STAGED, &rf);
    if (rc) break;
    if (respond == REST_RESPOND_STAGED) {
      done = true;
      break;
    }
    for (size_t i = 0; i < n; i++) {
      tc[i].table = changes[i].table;
      tc[i].metadata_location = pp[i].location;
      tc[i].snapshot_id = pp[i].next->current_snapshot_id;
      tc[i].record_count = pp[i].next->record_count;
    }
    char *msg = n == 1 ? wr_asprintf("REST commit to %s", changes[0].table)
                       : wr_asprintf("REST commit to %zu tables (%s, ...)", n, changes[0].table);
    json_t *props = json_pack("{s:s}", "weir.source", "rest");
    wr_commit_request cr = {0};
    cr.branch = c->ref.name;
    cr.expected_head = head;
    cr.changes = tc;
    cr.n_changes = n;
    cr.author = c->lake->author;
    cr.message = msg;
    cr.properties = props;
    rc = catalog_commit(c->lake->cat, &cr, hash, &err);
    free(msg);
    json_decref(props);
    if (rc == WEIR_OK) {
      done = true;
      break;
    }
    if (rc == WEIR_ECONCURRENT && attempt + 1 < COMMIT_ATTEMPTS) {
      /* Another writer moved the branch: check everything again against the new head. */
      weir_error_clear(&err);
      for (size_t i = 0; i < n; i++) prepared_clear(&pp[i]);
      continue;
    }
    from_weir_error(&rf, &err);
    weir_error_clear(&err);
    break;
  }
  if (done && respond != REST_RESPOND_STAGED) {
    /* The compaction thresholds (weir.compact.min-files) of the tables written, as after
     * an import: a commit of its own on top. A single table's response then carries the
     * compacted version, so that the client's next commit builds on the head instead of
     * failing its assert-ref-snapshot-id; a failed compaction leaves the commit as it is. */
    for (size_t i = 0; i < n; i++) {
      json_t *cpt = lake_compact_after_append(c->lake, changes[i].table, c->ref.name);
      if (cpt && json_is_true(json_object_get(cpt, "compacted")) && n == 1) {
        iceberg_table *t = NULL;
        weir_error e = {0};
        if (lake_table_at(c->lake, wr_json_str(cpt, "commit", ""), changes[0].table, true, &t, &e) == WEIR_OK && t) {
          free(pp[0].location);
          pp[0].location = wr_strdup(t->metadata_location);
          json_decref(pp[0].meta);
          pp[0].meta = json_incref(t->json);
          iceberg_table_free(pp[0].next);
          pp[0].next = t;
          t = NULL;
        }
        iceberg_table_free(t);
        weir_error_clear(&e);
      }
      json_decref(cpt);
    }
  }
  if (!done) {
    if (rf.status == 409) conflict = true;
    if (!rf.message) rf = (refusal){500, "InternalServerError", wr_strdup("the commit did not complete"), NULL};
    respond_refusal(c, &rf);
  } else if (respond == REST_RESPOND_COMMIT) {
    rest_respond_json(c->resp, 200,
                      json_pack("{s:s,s:o}", "metadata-location", pp[0].location, "metadata",
                                rest_metadata_with_tags(c->lake, changes[0].table, pp[0].meta)));
  } else if (respond == REST_RESPOND_LOAD) {
    iceberg_table_free(pp[0].next);
    weir_error err = {0};
    pp[0].next = NULL;
    if (iceberg_table_load(pp[0].location, &pp[0].next, &err) == WEIR_OK)
      rest_respond_json(c->resp, 200, rest_load_result(c, changes[0].table, pp[0].next));
    else
      rest_respond_weir_error(c->resp, &err, NULL);
    weir_error_clear(&err);
  } else if (respond == REST_RESPOND_STAGED) {
    rest_respond_json(c->resp, 200, json_pack("{s:O,s:{}}", "metadata", pp[0].meta, "config"));
  } else {
    rest_respond_empty(c->resp);
  }
  if (respond != REST_RESPOND_STAGED) rest_metrics_commit(c->srv->metrics, done, conflict);
  for (size_t i = 0; i < n; i++) prepared_clear(&pp[i]);
  free(pp);
  free(tc);
  lake_writer_leave(c->lake);
}

/* ---- routes ----------------------------------------------------------------------------------- */

static bool parse_change(rest_ctx *c, json_t *o, const char *route_table, rest_table_change *out, const char *where) {
  memset(out, 0, sizeof *out);
  if (!json_is_object(o)) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s: each change must be an object", where);
    return false;
  }
  json_t *ident = json_object_get(o, "identifier");
  if (ident && !json_is_null(ident)) {
    if (!rest_table_ident(ident, out->table, sizeof out->table, where, c->resp)) return false;
    if (route_table && strcmp(route_table, out->table) != 0) {
      rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s: identifier %s differs from the path's %s",
                         where, out->table, route_table);
      return false;
    }
  } else if (route_table) {
    snprintf(out->table, sizeof out->table, "%s", route_table);
  } else {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL, "%s: missing required field \"identifier\"", where);
    return false;
  }
  return rest_get_array(o, "requirements", true, &out->requirements, where, c->resp) &&
         rest_get_array(o, "updates", true, &out->updates, where, c->resp);
}

void rest_h_tbl_commit(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  char table[2 * WEIR_NAME_MAX + 2];
  if (!rest_route_table(c, table, sizeof table)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  rest_table_change ch;
  if (parse_change(c, body, table, &ch, "CommitTableRequest")) rest_commit(c, &ch, 1, REST_RESPOND_COMMIT);
  json_decref(body);
}

void rest_h_tx_commit(rest_ctx *c) {
  if (!rest_require_branch(c)) return;
  json_t *body = rest_body_object(c->req, c->resp);
  if (!body) return;
  json_t *list = NULL;
  if (!rest_get_array(body, "table-changes", true, &list, "CommitTransactionRequest", c->resp)) {
    json_decref(body);
    return;
  }
  size_t n = json_array_size(list);
  if (n == 0 || n > 1000) {
    rest_respond_error(c->resp, 400, "BadRequestException", NULL,
                       "CommitTransactionRequest: table-changes must hold 1 to 1000 changes");
    json_decref(body);
    return;
  }
  rest_table_change *chs = wr_calloc(n, sizeof *chs);
  bool ok = true;
  for (size_t i = 0; i < n && ok; i++)
    ok = parse_change(c, json_array_get(list, i), NULL, &chs[i], "CommitTransactionRequest.table-changes");
  if (ok) rest_commit(c, chs, n, REST_RESPOND_EMPTY);
  free(chs);
  json_decref(body);
}
