/*
 * lake.c -- creating, finding and opening lakes.
 */
#include "lake/lake.h"

#include <dirent.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "storage/location.h"
#include "storage/storage.h"
#include "lake/json_out.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"

#define LAKE_DIR_NAME ".weir"
#define CATALOG_FILE "catalog.db"
#define WAREHOUSE_DIR "warehouse"
#define LAKE_FILE "lake.json"

/* Iceberg metadata holds absolute file locations, so a lake only works where it was
 * made. lake.json records that place; a lake opened elsewhere (moved, or copied: a copy
 * would silently read the original's data files) is refused with an explanation.
 * It also records an object-store warehouse ("warehouse": "s3://bucket/prefix", never
 * credentials) and whether its server honours conditional puts (storage.h). A lake.json
 * without "warehouse" (every lake made before object storage) has LAKE/warehouse.
 * A lake whose catalog is not its own SQLite file also records the catalog's location
 * ("catalog": a PostgreSQL URI with no password, catalog_postgres_location). */
static int write_lake_file(const char *dir, const char *catalog, const char *warehouse, bool conditional_put,
                           weir_error *err) {
  char *real = realpath(dir, NULL);
  json_t *o = json_pack("{s:i,s:s}", "format", 1, "location", real ? real : dir);
  int bad = !o;
  if (catalog) bad |= json_object_set_new(o, "catalog", json_string(catalog));
  if (warehouse) {
    bad |= json_object_set_new(o, "warehouse", json_string(warehouse));
    bad |= json_object_set_new(o, "conditional_put", json_boolean(conditional_put));
  }
  char *text = bad ? NULL : wr_json_pretty(o);
  char *path = wr_path_join(dir, LAKE_FILE);
  int rc = text && path ? wr_fs_write_atomic(path, text, strlen(text), false, err) : wr_oom(err);
  free(path);
  free(text);
  json_decref(o);
  free(real);
  return rc;
}

/* Checks lake.json (when there is one: older lakes have none) and returns in *catalog
 * the catalog location it records, or NULL for the lake's own SQLite file, and in
 * *warehouse its object-store warehouse, or NULL (callers free both). */
static int check_lake_file(const char *dir, char **catalog, char **warehouse, bool *conditional_put,
                           weir_error *err) {
  *catalog = NULL;
  char *path = wr_path_join(dir, LAKE_FILE);
  char *text = NULL;
  weir_error inner = {0};
  int rc = WEIR_OK;
  *warehouse = NULL;
  *conditional_put = true;
  if (!path) return wr_oom(err);
  int rrc = wr_fs_read(path, &text, NULL, &inner);
  if (rrc == WEIR_ENOMEM) rc = wr_oom(err); /* lake.json may be there: it must be read */
  if (rrc == WEIR_OK) {
    json_error_t jerr;
    bool oom = false;
    json_t *o = wr_json_loads(text, 0, &jerr, &oom);
    if (oom) rc = wr_oom(err);
    const char *wh = wr_json_str(o, "warehouse", NULL);
    if (wh) {
      *warehouse = wr_strdup(wh);
      if (!*warehouse) rc = wr_oom(err);
      *conditional_put = !json_is_false(json_object_get(o, "conditional_put"));
    }
    /* With the warehouse in object storage, nothing in the metadata points into the lake
     * folder: it may move. */
    const char *made = wh ? NULL : wr_json_str(o, "location", NULL);
    json_t *cat = json_object_get(o, "catalog");
    char *here = realpath(dir, NULL);
    char *there = made ? realpath(made, NULL) : NULL;
    if (rc)
      ; /* out of memory above */
    else if (!json_is_object(o))
      rc = wr_seterr(err, WEIR_ECATALOG, "%s is not valid JSON (line %d: %s)", path, jerr.line, jerr.text);
    else if (cat && !(json_is_string(cat) && catalog_is_postgres_uri(json_string_value(cat))))
      rc = wr_seterr(err, WEIR_ECATALOG, "%s: \"catalog\" must be a postgresql:// URI", path);
    else if (made && (!there || !here || strcmp(here, there) != 0))
      rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                       "the lake at %s was created at %s: Iceberg metadata records absolute file "
                       "locations, so a lake cannot be moved or copied (a copy would read the "
                       "original's files); open it at %s",
                       here ? here : dir, made, made);
    else if (cat && !(*catalog = wr_strdup(json_string_value(cat))))
      rc = wr_oom(err);
    free(here);
    free(there);
    json_decref(o);
    if (rc) {
      free(*warehouse);
      *warehouse = NULL;
    }
  }
  weir_error_clear(&inner);
  free(text);
  free(path);
  return rc;
}

/* weir_lake_interrupt stores into the flag from signal handlers: only a lock-free atomic
 * is async-signal-safe there. */
_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "weir_lake_interrupt needs a lock-free atomic int");

/* "user@host" of the process's own account (its passwd entry, not $USER: the library
 * reads no environment variables; the CLI and the SDK map $WEIR_AUTHOR onto the option). */
static char *default_author(void) {
  char host[256] = "localhost";
  if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = 0;
  struct passwd pw, *found = NULL;
  char buf[4096];
  const char *user = "unknown";
  if (getpwuid_r(getuid(), &pw, buf, sizeof buf, &found) == 0 && found && found->pw_name && *found->pw_name)
    user = found->pw_name;
  return wr_asprintf("%s@%s", user, host);
}

static char *dup_or_null(const char *s) { return s ? wr_strdup(s) : NULL; }

/* catalog: the recorded catalog location, or NULL for LAKE/catalog.db; warehouse: an
 * object-store warehouse, or NULL for LAKE/warehouse. opts: validated (src/api/lake.c).
 * NULL only on OOM. */
static weir_lake *lake_new(const char *abs_path, const char *catalog, const char *warehouse,
                           const weir_lake_options *opts) {
  weir_lake *lake = wr_calloc(1, sizeof *lake);
  if (!lake) return NULL;
  lake->writer_fd = -1;
  lake->path = wr_strdup(abs_path);
  lake->warehouse = warehouse ? wr_strdup(warehouse) : wr_path_join(abs_path, WAREHOUSE_DIR);
  if (catalog) lake->catalog_uri = wr_strdup(catalog);
  else {
    char *db = wr_path_join(abs_path, CATALOG_FILE);
    lake->catalog_uri = db ? wr_asprintf("sqlite:%s", db) : NULL;
    free(db);
  }
  lake->author = opts->author ? wr_strdup(opts->author) : default_author();
  lake->threads = opts->threads;
  lake->memory_limit = dup_or_null(opts->memory_limit);
  lake->python = dup_or_null(opts->python);
  lake->duckdb_library = dup_or_null(opts->duckdb_library);
  lake->worker_library = dup_or_null(opts->worker_library);
  atomic_init(&lake->interrupted, 0);
  if (!lake->path || !lake->warehouse || !lake->catalog_uri || !lake->author ||
      (opts->memory_limit && !lake->memory_limit) || (opts->python && !lake->python) ||
      (opts->duckdb_library && !lake->duckdb_library) || (opts->worker_library && !lake->worker_library)) {
    lake_free(lake);
    return NULL;
  }
  lake->engines = lake_engine_pool_new(lake->warehouse);
  return lake;
}

/* A lake is a folder with its SQLite catalog, or with a lake.json (which a lake whose
 * catalog is elsewhere always has). */
static void catalog_settings(const weir_lake_options *opts, wr_catalog_settings *out) {
  *out = (wr_catalog_settings){.sync = opts->catalog_sync, .busy_timeout_ms = opts->busy_timeout_ms};
}

/* *oom is set (and false returned) when the paths cannot be made. */
static bool is_lake(const char *dir, bool *oom) {
  char *db = wr_path_join(dir, CATALOG_FILE);
  char *lf = wr_path_join(dir, LAKE_FILE);
  if (!db || !lf) *oom = true;
  bool yes = db && lf && (wr_fs_exists(db) || wr_fs_exists(lf));
  free(db);
  free(lf);
  return yes;
}

/* The object-store warehouse of an init: checked, normalised ("s3://b/p", no trailing
 * '/'), reachable, empty; *conditional_put says whether the server honours If-None-Match. */
static int prepare_warehouse(const char *uri, char **out, bool *conditional_put, weir_error *err) {
  *out = NULL;
  wr_location l;
  int rc = wr_location_parse(uri, &l, err);
  if (rc == WEIR_OK && l.kind != WR_LOCATION_S3)
    rc = wr_seterr(err, WEIR_EINVALIDARG,
                   "warehouse \"%s\": give an object-store URI (s3://bucket/prefix); a local lake keeps its "
                   "warehouse in the lake folder",
                   uri);
  if (rc) {
    wr_location_clear(&l);
    return rc;
  }
  size_t n = strlen(l.key);
  while (n > 0 && l.key[n - 1] == '/') n--;
  char *norm = n ? wr_asprintf("s3://%s/%.*s", l.bucket, (int)n, l.key) : wr_asprintf("s3://%s", l.bucket);
  wr_location_clear(&l);
  if (!norm) return wr_oom(err);
  if ((rc = wr_location_check_safe(norm, "the warehouse", err))) goto fail;
  wr_storage_reconfigure();
  char **objs = NULL;
  size_t no = 0;
  if ((rc = wr_storage_list(norm, &objs, &no, err))) {
    wr_error_prefix(err, "cannot use the warehouse %s", norm);
    goto fail;
  }
  wr_storage_list_free(objs, no);
  if (no > 0) {
    rc = wr_seterr(err, WEIR_EEXISTS,
                   "the warehouse %s already holds %zu object%s (another lake's?): give an empty prefix", norm,
                   no, no == 1 ? "" : "s");
    goto fail;
  }
  if ((rc = wr_storage_probe_conditional_put(norm, conditional_put, err))) {
    wr_error_prefix(err, "cannot use the warehouse %s", norm);
    goto fail;
  }
  *out = norm;
  return WEIR_OK;
fail:
  free(norm);
  return rc;
}

/* The catalog location a new lake records: NULL for SQLite, else the PostgreSQL URI as it
 * may be written down (no password: a URI holding one is refused, so that no secret ever
 * lands in lake.json, shell history of `weir open`, or messages). */
static int init_catalog_location(const weir_lake_options *opts, char **stored, weir_error *err) {
  *stored = NULL;
  const char *c = opts->catalog;
  if (!c) return WEIR_OK;
  if (!catalog_is_postgres_uri(c))
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "catalog '%s' is not supported: give a postgresql:// URI, or none for a SQLite "
                     "catalog inside the lake",
                     c);
  bool had_password = false;
  int rc = catalog_postgres_location(c, stored, &had_password, err);
  if (rc) return rc;
  if (had_password) {
    rc = wr_seterr(err, WEIR_EINVALIDARG,
                   "the catalog URI holds a password (given as %s): weir never writes a password into "
                   "the lake; remove it from the URI and put it in ~/.pgpass (or $PGPASSFILE), or set "
                   "$PGPASSWORD",
                   *stored);
    free(*stored);
    *stored = NULL;
  }
  return rc;
}

/* The lake `abs` lies inside (its own folder excluded), or NULL. Caller frees. A lake in
 * a lake would put one's catalog among the other's warehouse files. NULL with *oom set
 * on OOM (the helpers below likewise). */
static char *enclosing_lake(const char *abs, bool *oom) {
  char *dir = wr_path_dirname(abs);
  for (;;) {
    if (!dir) {
      *oom = true;
      return NULL;
    }
    if (is_lake(dir, oom)) return dir;
    if (*oom || strcmp(dir, "/") == 0 || !*dir) break;
    char *up = wr_path_dirname(dir);
    if (!up) {
      *oom = true;
      break;
    }
    bool same = strcmp(up, dir) == 0;
    free(dir);
    dir = up;
    if (same) break;
  }
  free(dir);
  return NULL;
}

/* How many entries (up to 2) the folder `dir` holds besides "." and "..", with the first
 * one's name in *first (caller frees); 0 when it is empty, missing or unreadable (then the
 * lake's own creation reports why). */
static size_t first_entries(const char *dir, char **first, bool *oom) {
  *first = NULL;
  DIR *d = opendir(dir);
  if (!d) return 0;
  size_t n = 0;
  struct dirent *e;
  while (n < 2 && (e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    if (n++ == 0 && !(*first = wr_strdup(e->d_name))) *oom = true;
  }
  closedir(d);
  return n;
}

/* Why `abs` cannot hold a lake, as advice that can work; NULL when it
 * can. Caller frees. */
static char *not_a_lake_place(const char *abs, bool *oom) {
  char *why = NULL;
  if (wr_fs_exists(abs) && !wr_fs_is_dir(abs)) {
    if (!(why = wr_strdup("it is a file, not a folder: a lake is a folder of its own (give a new folder's path)")))
      *oom = true;
    return why;
  }
  char *outer = enclosing_lake(abs, oom);
  if (outer) {
    why = wr_asprintf("it is inside the lake at %s, and a lake cannot hold another (open %s, or give a "
                            "folder outside it)",
                            outer, outer);
    free(outer);
    if (!why) *oom = true;
    return why;
  }
  return NULL;
}

/* Why a new lake cannot be made at `abs` though it is a place for one (not_a_lake_place):
 * NULL when it can. A lake owns its folder (catalog.db, lake.json, warehouse/): mixed with
 * other files it could not be told apart from them, and `weir gc` or a drop would be
 * unsafe near them. Caller frees. */
static char *not_a_new_lake_place(const char *abs, bool *oom) {
  char *first = NULL;
  size_t n = first_entries(abs, &first, oom);
  if (n == 0 || *oom) {
    free(first);
    return NULL;
  }
  char *why = wr_asprintf("the folder is not empty (it holds %s%s): a lake needs a new or empty folder (give "
                          "a new folder's path, or none for ./%s)",
                          first, n > 1 ? " and more" : "", LAKE_DIR_NAME);
  free(first);
  if (!why) *oom = true;
  return why;
}

int lake_init(const char *path, const weir_lake_options *opts, weir_lake **out, weir_error *err) {
  *out = NULL;
  /* "" is most likely an unset variable ($LAKE): refused rather than read as "here". */
  if (path && !*path)
    return wr_seterr(err, WEIR_EINVALIDARG, "the lake path is empty (give a folder, or none for ./%s)",
                       LAKE_DIR_NAME);
  char *stored = NULL;
  int rc = init_catalog_location(opts, &stored, err);
  if (rc) return rc;
  char *abs = wr_path_absolute(path ? path : LAKE_DIR_NAME);
  weir_lake *lake = NULL;
  char *warehouse = NULL;
  bool conditional_put = true;
  bool oom = !abs;
  if (!oom && is_lake(abs, &oom)) {
    rc = wr_seterr(err, WEIR_EEXISTS, "a lake already exists at %s", abs);
    goto done;
  }
  char *why = oom ? NULL : not_a_lake_place(abs, &oom);
  if (!why && !oom) why = not_a_new_lake_place(abs, &oom);
  if (oom) {
    free(why);
    rc = wr_oom(err);
    goto done;
  }
  if (why) {
    rc = wr_seterr(err, WEIR_EINVALIDARG, "cannot create a lake at %s: %s", abs, why);
    free(why);
    goto done;
  }
  if (opts->warehouse) {
    if ((rc = prepare_warehouse(opts->warehouse, &warehouse, &conditional_put, err))) goto done;
  } else if ((rc = wr_location_check_safe(abs, "the lake path", err))) {
    goto done;
  }
  lake = lake_new(abs, stored, warehouse, opts);
  if (!lake) {
    rc = wr_oom(err);
    goto done;
  }
  wr_storage_set_conditional_put(conditional_put);
  wr_catalog_settings cs;
  catalog_settings(opts, &cs);
  if (stored) {
    /* The shared catalog first: if it cannot be made (a catalog already in that schema,
     * an unreachable server), no folder is left behind that looks like a lake. */
    if ((rc = catalog_open_with(lake->catalog_uri, true, lake->author, &cs, &lake->cat, err))) goto done;
    if ((rc = wr_fs_mkdirs(abs, err))) goto done;
    if ((rc = wr_storage_mkdirs(lake->warehouse, err))) goto done;
    if ((rc = write_lake_file(abs, stored, warehouse, conditional_put, err))) goto done;
  } else {
    if ((rc = wr_fs_mkdirs(abs, err))) goto done;
    if ((rc = wr_storage_mkdirs(lake->warehouse, err))) goto done;
    if ((rc = write_lake_file(abs, NULL, warehouse, conditional_put, err))) goto done;
    if ((rc = catalog_open_with(lake->catalog_uri, true, lake->author, &cs, &lake->cat, err))) goto done;
  }
  /* The writer lock's file exists from the start, so that a write refused before it did
   * anything leaves the lake folder exactly as it was (writers.c creates it for lakes
   * made before it existed). */
  if ((rc = lake_writer_lock_create(lake, err))) goto done;
  *out = lake;
  lake = NULL;
done:
  lake_free(lake);
  free(warehouse);
  free(abs);
  free(stored);
  return rc;
}

/* The nearest folder named .weir that holds a lake, walking up from `start`; NULL with
 * *oom set on OOM. */
static char *find_upwards(const char *start, bool *oom) {
  char *dir = wr_path_absolute(start);
  while (dir) {
    char *cand = wr_path_join(dir, LAKE_DIR_NAME);
    if (cand && is_lake(cand, oom)) {
      free(dir);
      return cand;
    }
    free(cand);
    if (!cand || *oom) break;
    if (strcmp(dir, "/") == 0) {
      free(dir);
      return NULL;
    }
    char *up = wr_path_dirname(dir);
    free(dir);
    dir = up;
  }
  free(dir);
  *oom = true;
  return NULL;
}

int lake_open(const char *path, const weir_lake_options *opts, weir_lake **out, weir_error *err) {
  *out = NULL;
  char *abs = NULL;
  bool oom = false;
  if (path && *path) {
    abs = wr_path_absolute(path);
    if (!abs) return wr_oom(err);
    if (!is_lake(abs, &oom)) {
      /* Suggest creating one only where one can be created. */
      char *why = oom ? NULL : not_a_lake_place(abs, &oom);
      int rc = oom ? wr_oom(err)
             : why ? wr_seterr(err, WEIR_ENOTFOUND, "no lake at %s: %s", abs, why)
                   : wr_seterr(err, WEIR_ENOTFOUND, "no lake at %s (no %s there; create one with: weir init %s)",
                               abs, CATALOG_FILE, path);
      free(why);
      free(abs);
      return rc;
    }
  } else {
    abs = find_upwards(".", &oom);
    if (oom) return wr_oom(err);
    if (!abs) {
      char cwd[4096] = ".";
      if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
      return wr_seterr(err, WEIR_ENOTFOUND,
                         "no lake found: no lake path given, and no %s folder in %s or any parent "
                         "(create one with: weir init)",
                         LAKE_DIR_NAME, cwd);
    }
  }
  char *catalog = NULL;
  char *warehouse = NULL;
  bool conditional_put = true;
  int rc = check_lake_file(abs, &catalog, &warehouse, &conditional_put, err);
  if (rc) {
    free(abs);
    return rc;
  }
  weir_lake *lake = lake_new(abs, catalog, warehouse, opts);
  free(catalog);
  free(abs);
  if (!lake) {
    free(warehouse);
    return wr_oom(err);
  }
  if (warehouse) {
    /* Credentials may have changed since the last handle: resolve them again. */
    wr_storage_reconfigure();
    wr_storage_set_conditional_put(conditional_put);
  }
  free(warehouse);
  wr_catalog_settings cs;
  catalog_settings(opts, &cs);
  rc = catalog_open_with(lake->catalog_uri, false, lake->author, &cs, &lake->cat, err);
  if (rc) {
    lake_free(lake);
    return rc;
  }
  *out = lake;
  return WEIR_OK;
}

void lake_free(weir_lake *lake) {
  if (!lake) return;
  if (lake->writer_fd >= 0) close(lake->writer_fd);
  catalog_close(lake->cat);
  lake_engine_pool_free(lake->engines);
  for (size_t i = 0; i < sizeof lake->meta_cache / sizeof lake->meta_cache[0]; i++)
    iceberg_table_free(lake->meta_cache[i]);
  free(lake->path);
  free(lake->warehouse);
  free(lake->catalog_uri);
  free(lake->author);
  free(lake->memory_limit);
  free(lake->python);
  free(lake->duckdb_library);
  free(lake->worker_library);
  if (lake->pipeline_state_free) lake->pipeline_state_free(lake->pipeline_state);
  free(lake);
}

void lake_progress(weir_lake *lake, json_t *event) {
  if (lake->progress && event) {
    event = wr_doc_make(WR_DOC_PROGRESS, event);
    char *s = event ? wr_json_compact(event) : NULL;
    if (s) lake->progress(s, lake->progress_ctx); /* a progress event lost to OOM is only not shown */
    free(s);
  }
  json_decref(event);
}

char *lake_table_location(const weir_lake *lake, const wr_table_id *id) {
  return wr_asprintf("%s/%s/%s", lake->warehouse, id->ns, id->name);
}

int lake_resolve(weir_lake *lake, const char *ref, char out[WEIR_HASH_HEX_SIZE], weir_error *err) {
  /* NULL is the default, main; "" is most likely an unset variable: refused, not guessed. */
  if (ref && !*ref)
    return wr_seterr(err, WEIR_EINVALIDARG, "the ref is empty (give a branch, tag or commit hash)");
  if (!ref) ref = "main";
  return catalog_resolve(lake->cat, ref, out, err);
}

int lake_branch_head(weir_lake *lake, const char *branch, char out[WEIR_HASH_HEX_SIZE],
                     weir_error *err) {
  if (branch && !*branch) return wr_seterr(err, WEIR_EINVALIDARG, "the branch name is empty");
  if (!branch) branch = "main";
  int rc = wr_ref_name_check(branch, "branch", err);
  if (rc) return rc;
  rc = catalog_ref_get(lake->cat, WEIR_REF_BRANCH, branch, out, err);
  if (rc == WEIR_ENOTFOUND) {
    char target[WEIR_HASH_HEX_SIZE];
    weir_error inner = {0};
    bool is_tag = catalog_ref_get(lake->cat, WEIR_REF_TAG, branch, target, &inner) == WEIR_OK;
    weir_error_clear(&inner);
    if (is_tag)
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "\"%s\" is a tag, not a branch: tags never move, so writes and merges go to branches "
                         "(weir branch create NAME --from %s)",
                         branch, branch);
    /* A name that reads as a commit hash cannot become a branch (wr_ref_name_check refuses
     * it at creation), so creating it is no advice. */
    size_t len = strlen(branch);
    bool hex = len >= 7 && len <= WEIR_HASH_LEN;
    for (size_t i = 0; hex && i < len; i++) hex = strchr("0123456789abcdefABCDEF", branch[i]) != NULL;
    if (hex)
      return wr_seterr(err, WEIR_EINVALIDARG,
                       "\"%s\" is a commit hash, not a branch: writes and merges go to a branch head "
                       "(start a branch there: weir branch create NAME --from %.12s)",
                       branch, branch);
    return wr_seterr(err, WEIR_ENOTFOUND, "branch \"%s\" does not exist (create it with: weir branch create %s)",
                       branch, branch);
  }
  return rc;
}

int lake_table_fold_case(weir_lake *lake, const char *hash, wr_table_id *id, weir_error *err) {
  char full[2 * WEIR_NAME_MAX + 2];
  wr_table_id_format(id, full, sizeof full);
  wr_table_entry e = {0};
  weir_error inner = {0};
  int rc = catalog_table_get(lake->cat, hash, full, &e, &inner);
  wr_table_entry_clear(&e);
  if (rc != WEIR_ENOTFOUND) {
    if (rc) wr_error_move(err, &inner);
    return rc;
  }
  weir_error_clear(&inner);
  /* A miss: one walk of the commit's tree, paid only by names spelled in another case. */
  wr_table_entry *all = NULL;
  size_t n = 0;
  if ((rc = catalog_tables(lake->cat, hash, &all, &n, err))) return rc;
  for (size_t i = 0; i < n; i++)
    if (strcasecmp(all[i].table, full) == 0) {
      wr_table_id found;
      if (wr_table_id_parse(all[i].table, &found, &inner) == WEIR_OK) *id = found;
      weir_error_clear(&inner);
      break;
    }
  wr_table_entries_free(all, n);
  return WEIR_OK;
}

int lake_table_at(weir_lake *lake, const char *hash, const char *table, bool missing_ok,
                  iceberg_table **out, weir_error *err) {
  *out = NULL;
  wr_table_entry e = {0};
  weir_error inner = {0};
  int rc = catalog_table_get(lake->cat, hash, table, &e, &inner);
  if (rc == WEIR_ENOTFOUND) {
    weir_error_clear(&inner);
    if (missing_ok) return WEIR_OK;
    return wr_seterr(err, WEIR_ENOTFOUND, "table %s does not exist at commit %.12s", table, hash);
  }
  if (rc) {
    wr_error_move(err, &inner);
    return rc;
  }
  rc = lake_metadata(lake, e.metadata_location, out, err);
  wr_table_entry_clear(&e);
  return rc;
}

int lake_metadata(weir_lake *lake, const char *metadata_location, iceberg_table **out, weir_error *err) {
  size_t n = sizeof lake->meta_cache / sizeof lake->meta_cache[0], victim = 0;
  for (size_t i = 0; i < n; i++) {
    iceberg_table *t = lake->meta_cache[i];
    if (t && strcmp(t->metadata_location, metadata_location) == 0) {
      lake->meta_used[i] = ++lake->meta_clock;
      *out = iceberg_table_ref(t);
      return WEIR_OK;
    }
    if (!lake->meta_cache[victim]) continue;
    if (!t || lake->meta_used[i] < lake->meta_used[victim]) victim = i;
  }
  int rc = iceberg_table_load(metadata_location, out, err);
  if (rc) return rc;
  iceberg_table_free(lake->meta_cache[victim]);
  lake->meta_cache[victim] = iceberg_table_ref(*out);
  lake->meta_used[victim] = ++lake->meta_clock;
  return WEIR_OK;
}

void lake_engine_settings(const weir_lake *lake, wr_engine_options *out) {
  *out = (wr_engine_options){.threads = lake->threads, .memory_limit = lake->memory_limit,
                             .library = lake->duckdb_library};
}

int lake_engine_open(weir_lake *lake, wr_engine **out, weir_error *err) {
  wr_engine_options opts;
  lake_engine_settings(lake, &opts);
  int rc = wr_engine_open(&opts, out, err);
  /* Data files in object storage: the engine reaches them with httpfs and the lake's
   * resolved credentials, set up before any restriction locks its configuration. */
  if (rc == WEIR_OK && wr_location_is_remote(lake->warehouse) &&
      (rc = wr_engine_connect_warehouse(*out, lake->warehouse, err))) {
    wr_engine_close(*out);
    *out = NULL;
  }
  return rc;
}

