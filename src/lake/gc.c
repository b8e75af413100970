/*
 * gc.c -- weir_lake_gc: deleting the warehouse files no live commit reaches (docs/gc.md).
 *
 * The order is what makes it safe against writers running at the same time:
 *   1. now = the clock; cutoff = now - grace. Only files modified before the cutoff may go.
 *   2. List the warehouse (each object with its modification time).
 *   3. In one catalog write transaction (the lake's writer lock): read every ref, walk every
 *      commit they reach, mark the commits that become unreadable, and collect the metadata
 *      locations of the live commits' table maps.
 *   4. Outside the lock, expand those metadata files (immutable) into every file they
 *      reach: all snapshots' manifest lists, their manifests, the data and delete files.
 *   5. Delete what the listing of step 2 holds, older than the cutoff, of a kind gc knows,
 *      and not reached. Metadata files first, data files last.
 * With a grace under LAKE_GC_SAFE_GRACE_US, steps 2 and 3 run while this machine's writers
 * are excluded (writers.c): no file in the listing then belongs to a write in flight here.
 * A commit that lands after step 3 names files it wrote itself (modified after the cutoff,
 * unless its writer took longer than the grace period) or files its parent reached (live
 * at step 3, so reached). One that landed before step 3 is in the live set. A file written
 * after step 2 is not in the listing. The argument in full is in docs/gc.md.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "storage/location.h"
#include "storage/storage.h"
#include "util/clock.h"
#include "util/hash.h"

#define GC_DEFAULT_GRACE_US (3600LL * 1000000LL)

/* ---- a set of locations (open addressing over FNV-1a) -------------------------------- */

typedef struct strset {
  char **slots;
  size_t cap; /* power of two or 0 */
  size_t n;
} strset;

static uint64_t fnv(const char *s) {
  uint64_t h = 1469598103934665603ULL;
  for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
  return h;
}

static bool strset_has(const strset *s, const char *k) {
  if (!s->cap) return false;
  for (size_t i = fnv(k) & (s->cap - 1);; i = (i + 1) & (s->cap - 1)) {
    if (!s->slots[i]) return false;
    if (strcmp(s->slots[i], k) == 0) return true;
  }
}

/* Adds k (copied); true when it was not there. */
static bool strset_add(strset *s, const char *k) {
  if (strset_has(s, k)) return false;
  if (2 * (s->n + 1) > s->cap) {
    size_t cap = s->cap ? 2 * s->cap : 256;
    char **slots = wr_calloc(cap, sizeof *slots);
    for (size_t i = 0; i < s->cap; i++) {
      if (!s->slots[i]) continue;
      size_t j = fnv(s->slots[i]) & (cap - 1);
      while (slots[j]) j = (j + 1) & (cap - 1);
      slots[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = slots;
    s->cap = cap;
  }
  size_t j = fnv(k) & (s->cap - 1);
  while (s->slots[j]) j = (j + 1) & (s->cap - 1);
  s->slots[j] = wr_strdup(k);
  s->n++;
  return true;
}

static void strset_free(strset *s) {
  for (size_t i = 0; i < s->cap; i++) free(s->slots[i]);
  free(s->slots);
  memset(s, 0, sizeof *s);
}

/* Adds a location read from Iceberg metadata (a URI) in the form listings use. */
static bool reach(strset *s, const char *uri) {
  char *loc = wr_location_from_uri(uri);
  bool added = strset_add(s, loc);
  free(loc);
  return added;
}

/* ---- what the live table versions reach -------------------------------------------- */

static bool reach_cb(const char *uri, int kind, void *ctx) {
  (void)kind;
  /* Manifest lists and manifests are shared by many snapshots: each is read once. */
  return reach(ctx, uri);
}

static int reach_metadata(weir_lake *lake, strset *reached, const char *loc, weir_error *err) {
  reach(reached, loc);
  iceberg_table *t = NULL;
  int rc = lake_metadata(lake, loc, &t, err);
  if (rc) return rc;
  rc = iceberg_table_reach(t, reach_cb, reached, err);
  iceberg_table_free(t);
  return rc;
}

/* ---- kinds of warehouse files ------------------------------------------------------- */

typedef enum gc_kind { K_METADATA, K_MANIFEST_LIST, K_MANIFEST, K_DATA, K_TEMPORARY, K_COUNT, K_OTHER } gc_kind;
static const char *const KIND_NAMES[K_COUNT] = {"metadata", "manifest_list", "manifest", "data", "temporary"};

static bool ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* What a file is, from its name: the names weir and other Iceberg writers give them. A
 * file gc does not recognise is never deleted. */
static gc_kind kind_of(const char *loc) {
  const char *slash = strrchr(loc, '/');
  const char *base = slash ? slash + 1 : loc;
  /* util/fs.c's atomic writes: "<name>.tmp-<pid>-<8 hex>", left by a killed writer. */
  if (strstr(base, ".tmp-")) return K_TEMPORARY;
  if (ends_with(base, ".metadata.json") || ends_with(base, ".metadata.json.gz")) return K_METADATA;
  if (ends_with(base, ".avro")) return strncmp(base, "snap-", 5) == 0 ? K_MANIFEST_LIST : K_MANIFEST;
  if (ends_with(base, ".parquet") || ends_with(base, ".orc") || ends_with(base, ".puffin")) return K_DATA;
  return K_OTHER;
}

/* ---- the collection ----------------------------------------------------------------- */

typedef struct gc_candidate {
  const wr_storage_object *o;
  gc_kind kind;
} gc_candidate;

static int cmp_candidate(const void *a, const void *b) {
  const gc_candidate *x = a, *y = b;
  if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
  return strcmp(x->o->location, y->o->location);
}

int lake_gc(weir_lake *lake, const weir_gc_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  bool dry = opts && opts->dry_run;
  int64_t grace = opts ? opts->grace_us : 0;
  int64_t expire_before = opts ? opts->expire_before_us : 0;
  if (grace < WEIR_GC_NO_GRACE)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "weir_gc_options.grace_us is %lld: give a duration in microseconds, 0 for the default "
                     "(one hour) or WEIR_GC_NO_GRACE",
                     (long long)grace);
  if (expire_before < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "weir_gc_options.expire_before_us is %lld: give a UTC time in microseconds",
                     (long long)expire_before);
  if (grace == 0) grace = GC_DEFAULT_GRACE_US;
  if (grace == WEIR_GC_NO_GRACE) grace = 0;
  int64_t now = wr_now_us();
  if (expire_before > now)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "--expire-before lies in the future: gc expires only commits older than a past time");
  int64_t cutoff = now - grace;

  /* 1b. With a grace shorter than the longest write may take, the grace alone does not
   * protect a write in flight: gc excludes this machine's writers (writers.c) from before
   * its listing until it has read the catalog, so every file it lists was written by a
   * write that has finished (committed, or failed and left orphans). */
  int lock_fd = -1;
  bool excluded = false, waited = false;
  int rc = WEIR_OK;
  if (!dry && grace < LAKE_GC_SAFE_GRACE_US) {
    if ((rc = lake_writers_exclude(lake, LAKE_GC_LOCK_TIMEOUT_US, &lock_fd, &waited, err))) return rc;
    excluded = true;
  }

  /* 2. The listing, before the catalog is read. */
  wr_storage_object *objs = NULL;
  size_t n_objs = 0;
  rc = wr_storage_list_objects(lake->warehouse, &objs, &n_objs, err);
  if (rc) {
    if (lock_fd >= 0) close(lock_fd);
    wr_error_prefix(err, "gc: listing the warehouse %s", lake->warehouse);
    return rc;
  }

  /* 3. The live set and the marks, under the catalog's writer lock. */
  catalog_gc_plan plan;
  rc = catalog_gc_plan_make(lake->cat, expire_before, !dry, &plan, err);
  if (lock_fd >= 0) close(lock_fd); /* writers may go on: what they write is not listed */
  if (rc) {
    wr_storage_objects_free(objs, n_objs);
    return rc;
  }

  /* 4. Everything the live table versions reach. */
  strset reached = {0};
  for (size_t i = 0; i < plan.n_metadata && rc == WEIR_OK; i++) {
    rc = reach_metadata(lake, &reached, plan.metadata[i], err);
    if (rc)
      wr_error_prefix(err, "gc: reading what the live table version %s reaches (nothing was deleted)",
                      plan.metadata[i]);
  }

  /* 5. The candidates: listed, known kind, old enough, not reached. */
  gc_candidate *cand = wr_calloc(n_objs ? n_objs : 1, sizeof *cand);
  size_t n_cand = 0, kept_reached = 0, kept_young = 0, kept_other = 0;
  for (size_t i = 0; i < n_objs && rc == WEIR_OK; i++) {
    gc_kind k = kind_of(objs[i].location);
    if (k == K_OTHER) kept_other++;
    else if (strset_has(&reached, objs[i].location)) kept_reached++;
    else if (objs[i].mtime_us >= cutoff) kept_young++;
    else cand[n_cand++] = (gc_candidate){&objs[i], k};
  }
  if (n_cand > 1) qsort(cand, n_cand, sizeof *cand, cmp_candidate);
  int64_t files[K_COUNT] = {0}, bytes[K_COUNT] = {0};
  json_t *list = json_array();
  for (size_t i = 0; i < n_cand && rc == WEIR_OK; i++) {
    if (!dry && (rc = wr_storage_delete(cand[i].o->location, err))) {
      wr_error_prefix(err, "gc: deleting %s (%zu of %zu unreferenced files deleted before it)", cand[i].o->location,
                      i, n_cand);
      break;
    }
    files[cand[i].kind]++;
    bytes[cand[i].kind] += cand[i].o->size;
    json_array_append_new(list, json_pack("{s:s,s:s,s:I,s:o}", "location", cand[i].o->location, "kind",
                                          KIND_NAMES[cand[i].kind], "bytes", (json_int_t)cand[i].o->size,
                                          "modified", wr_json_time(cand[i].o->mtime_us)));
  }
  if (rc == WEIR_OK) {
    json_t *deleted = json_object();
    int64_t tf = 0, tb = 0;
    for (int k = 0; k < K_COUNT; k++) {
      json_object_set_new(deleted, KIND_NAMES[k],
                          json_pack("{s:I,s:I}", "files", (json_int_t)files[k], "bytes", (json_int_t)bytes[k]));
      tf += files[k], tb += bytes[k];
    }
    json_t *doc = json_object();
    json_object_set_new(doc, "dry_run", json_boolean(dry));
    json_object_set_new(doc, "grace_us", json_integer((json_int_t)grace));
    json_object_set_new(doc, "cutoff", wr_json_time(cutoff));
    json_object_set_new(doc, "expire_before", expire_before ? wr_json_time(expire_before) : json_null());
    json_object_set_new(doc, "deleted", deleted);
    json_object_set_new(doc, "total", json_pack("{s:I,s:I}", "files", (json_int_t)tf, "bytes", (json_int_t)tb));
    json_object_set_new(doc, "kept",
                        json_pack("{s:I,s:I,s:I}", "reachable", (json_int_t)kept_reached, "young",
                                  (json_int_t)kept_young, "other", (json_int_t)kept_other));
    json_object_set_new(doc, "commits",
                        json_pack("{s:I,s:I,s:I,s:O}", "live", (json_int_t)plan.live, "expired",
                                  (json_int_t)plan.expired, "unreachable", (json_int_t)plan.unreachable, "marked",
                                  plan.marked));
    json_object_set_new(doc, "writers", json_pack("{s:b,s:b}", "excluded", excluded, "waited", waited));
    json_object_set_new(doc, "files", list);
    list = NULL;
    *out_json = wr_doc_dump(WR_DOC_GC, doc);
    if (!*out_json) rc = wr_oom(err);
  }
  json_decref(list);
  free(cand);
  strset_free(&reached);
  catalog_gc_plan_clear(&plan);
  wr_storage_objects_free(objs, n_objs);
  return rc;
}
