/*
 * lake.c -- creating, finding and opening lakes.
 */
#include "lake/lake.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
 * would silently read the original's data files) is refused with an explanation. */
static int write_lake_file(const char *dir, weir_error *err) {
  char *real = realpath(dir, NULL);
  json_t *o = json_pack("{s:i,s:s}", "format", 1, "location", real ? real : dir);
  char *text = wr_json_pretty(o);
  char *path = wr_path_join(dir, LAKE_FILE);
  int rc = wr_fs_write_atomic(path, text, strlen(text), false, err);
  free(path);
  free(text);
  json_decref(o);
  free(real);
  return rc;
}

static int check_lake_file(const char *dir, weir_error *err) {
  char *path = wr_path_join(dir, LAKE_FILE);
  char *text = NULL;
  weir_error inner = {0};
  int rc = WEIR_OK;
  if (wr_fs_read(path, &text, NULL, &inner) == WEIR_OK) {
    json_t *o = json_loads(text, 0, NULL);
    const char *made = wr_json_str(o, "location", NULL);
    char *here = realpath(dir, NULL);
    char *there = made ? realpath(made, NULL) : NULL;
    if (made && (!there || !here || strcmp(here, there) != 0))
      rc = wr_seterr(err, WEIR_EUNSUPPORTED,
                       "the lake at %s was created at %s: Iceberg metadata records absolute file "
                       "locations, so a lake cannot be moved or copied (a copy would read the "
                       "original's files); open it at %s",
                       here ? here : dir, made, made);
    free(here);
    free(there);
    json_decref(o);
  }
  weir_error_clear(&inner);
  free(text);
  free(path);
  return rc;
}

static char *default_author(void) {
  const char *a = getenv("WEIR_AUTHOR");
  if (a && *a) return wr_strdup(a);
  const char *user = getenv("USER");
  if (!user || !*user) user = getenv("LOGNAME");
  char host[256] = "localhost";
  if (gethostname(host, sizeof host) != 0) strcpy(host, "localhost");
  host[sizeof host - 1] = 0;
  return wr_asprintf("%s@%s", user && *user ? user : "unknown", host);
}

static weir_lake *lake_new(const char *abs_path) {
  weir_lake *lake = wr_calloc(1, sizeof *lake);
  lake->path = wr_strdup(abs_path);
  lake->warehouse = wr_path_join(abs_path, WAREHOUSE_DIR);
  char *db = wr_path_join(abs_path, CATALOG_FILE);
  lake->catalog_uri = wr_asprintf("sqlite:%s", db);
  free(db);
  lake->author = default_author();
  lake->engines = lake_engine_pool_new(lake->warehouse);
  return lake;
}

static bool is_lake(const char *dir) {
  char *db = wr_path_join(dir, CATALOG_FILE);
  bool yes = wr_fs_exists(db);
  free(db);
  return yes;
}

int weir_lake_init(const char *path, weir_lake **out, weir_error *err) {
  *out = NULL;
  /* "" is most likely an unset variable ($LAKE): refused rather than read as "here". */
  if (path && !*path)
    return wr_seterr(err, WEIR_EINVALIDARG, "the lake path is empty (give a folder, or none for ./%s)",
                       LAKE_DIR_NAME);
  char *abs = wr_path_absolute(path ? path : LAKE_DIR_NAME);
  int rc = WEIR_OK;
  weir_lake *lake = NULL;
  if (is_lake(abs)) {
    rc = wr_seterr(err, WEIR_EEXISTS, "a lake already exists at %s", abs);
    goto done;
  }
  if ((rc = wr_fs_mkdirs(abs, err))) goto done;
  lake = lake_new(abs);
  if ((rc = wr_fs_mkdirs(lake->warehouse, err))) goto done;
  if ((rc = write_lake_file(abs, err))) goto done;
  if ((rc = catalog_open(lake->catalog_uri, true, lake->author, &lake->cat, err))) goto done;
  *out = lake;
  lake = NULL;
done:
  weir_lake_free(lake);
  free(abs);
  return rc;
}

/* The nearest folder named .weir that holds a lake, walking up from `start`. */
static char *find_upwards(const char *start) {
  char *dir = wr_path_absolute(start);
  for (;;) {
    char *cand = wr_path_join(dir, LAKE_DIR_NAME);
    if (is_lake(cand)) {
      free(dir);
      return cand;
    }
    free(cand);
    if (strcmp(dir, "/") == 0) break;
    char *up = wr_path_dirname(dir);
    free(dir);
    dir = up;
  }
  free(dir);
  return NULL;
}

int weir_lake_open(const char *path, weir_lake **out, weir_error *err) {
  *out = NULL;
  char *abs = NULL;
  if (path && *path) {
    abs = wr_path_absolute(path);
    if (!is_lake(abs)) {
      int rc = wr_seterr(err, WEIR_ENOTFOUND, "no lake at %s (no %s there; create one with: weir init %s)",
                           abs, CATALOG_FILE, path);
      free(abs);
      return rc;
    }
  } else if (getenv("WEIR_LAKE") && *getenv("WEIR_LAKE")) {
    const char *env = getenv("WEIR_LAKE");
    abs = wr_path_absolute(env);
    if (!is_lake(abs)) {
      int rc = wr_seterr(err, WEIR_ENOTFOUND, "no lake at %s (from $WEIR_LAKE)", abs);
      free(abs);
      return rc;
    }
  } else {
    abs = find_upwards(".");
    if (!abs) {
      char cwd[4096] = ".";
      if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, ".");
      return wr_seterr(err, WEIR_ENOTFOUND,
                         "no lake found: no --lake given, $WEIR_LAKE is not set, and no %s folder in "
                         "%s or any parent (create one with: weir init)",
                         LAKE_DIR_NAME, cwd);
    }
  }
  int rc = check_lake_file(abs, err);
  if (rc) {
    free(abs);
    return rc;
  }
  weir_lake *lake = lake_new(abs);
  free(abs);
  rc = catalog_open(lake->catalog_uri, false, lake->author, &lake->cat, err);
  if (rc) {
    weir_lake_free(lake);
    return rc;
  }
  *out = lake;
  return WEIR_OK;
}

void weir_lake_free(weir_lake *lake) {
  if (!lake) return;
  catalog_close(lake->cat);
  lake_engine_pool_free(lake->engines);
  for (size_t i = 0; i < sizeof lake->meta_cache / sizeof lake->meta_cache[0]; i++)
    iceberg_table_free(lake->meta_cache[i]);
  free(lake->path);
  free(lake->warehouse);
  free(lake->catalog_uri);
  free(lake->author);
  free(lake);
}

const char *weir_lake_path(const weir_lake *lake) { return lake->path; }

int weir_lake_set_author(weir_lake *lake, const char *author, weir_error *err) {
  if (!author || !*author) return wr_seterr(err, WEIR_EINVALIDARG, "the author must not be empty");
  free(lake->author);
  lake->author = wr_strdup(author);
  return WEIR_OK;
}

void weir_lake_set_progress(weir_lake *lake, weir_progress_fn fn, void *ctx) {
  lake->progress = fn;
  lake->progress_ctx = ctx;
}

void weir_lake_interrupt(weir_lake *lake) {
  if (lake) lake->interrupted = 1;
}

void lake_progress(weir_lake *lake, json_t *event) {
  if (lake->progress && event) {
    event = wr_doc_make(WR_DOC_PROGRESS, event);
    char *s = wr_json_compact(event);
    lake->progress(s, lake->progress_ctx);
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
    return wr_seterr(err, WEIR_ENOTFOUND, "branch \"%s\" does not exist (create it with: weir branch create %s)",
                       branch, branch);
  }
  return rc;
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

int lake_engine_open(weir_lake *lake, wr_engine **out, weir_error *err) {
  (void)lake;
  wr_engine_options opts = {0};
  const char *threads = getenv("WEIR_THREADS");
  if (threads && *threads) opts.threads = atoi(threads);
  opts.memory_limit = getenv("WEIR_MEMORY_LIMIT");
  return wr_engine_open(&opts, out, err);
}

