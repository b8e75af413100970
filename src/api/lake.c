/*
 * lake.c -- weir_lake_*: creating and opening lakes and the handle's settings.
 */
#include <stdatomic.h>
#include <string.h>

#include "api/api.h"
#include "lake/lake.h"

int weir_lake_options_init(weir_lake_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_LAKE_OPTIONS_VERSION);
}

/* Validates `opts` (NULL: defaults) into *out, a copy with every field checked. `init`:
 * for weir_lake_init, where catalog and warehouse may be given. */
static int lake_options(const weir_lake_options *opts, bool init, weir_lake_options *out, weir_error *err) {
  weir_lake_options_init(out, WEIR_LAKE_OPTIONS_VERSION);
  API_CHECK_OPTS(opts, "weir_lake_options", WEIR_LAKE_OPTIONS_VERSION);
  if (!opts) return WEIR_OK;
  *out = *opts;
  const char *fn = init ? "weir_lake_init" : "weir_lake_open";
  if (opts->catalog && !init)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "%s: weir_lake_options.catalog is for weir_lake_init only (a lake records its catalog)", fn);
  if (opts->warehouse && !init)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "%s: weir_lake_options.warehouse is for weir_lake_init only (a lake records its warehouse)",
                     fn);
  if (opts->author && !*opts->author)
    return wr_seterr(err, WEIR_EINVALIDARG, "weir_lake_options.author is empty (NULL means the default)");
  if (opts->threads < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "weir_lake_options.threads is %d: expected 0 (DuckDB's default) or more",
                     opts->threads);
  if (opts->busy_timeout_ms < 0)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "weir_lake_options.busy_timeout_ms is %d: expected 0 (the default, 30000) or more",
                     opts->busy_timeout_ms);
  if (opts->catalog_sync < WEIR_SYNC_DEFAULT || opts->catalog_sync > WEIR_SYNC_FULL)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "weir_lake_options.catalog_sync is %d: expected WEIR_SYNC_DEFAULT, WEIR_SYNC_NORMAL or "
                     "WEIR_SYNC_FULL",
                     opts->catalog_sync);
  /* Empty strings are most likely unset variables: refused rather than read as defaults. */
  const struct {
    const char *name, *value;
  } paths[] = {{"memory_limit", opts->memory_limit},
               {"python", opts->python},
               {"duckdb_library", opts->duckdb_library},
               {"worker_library", opts->worker_library}};
  for (size_t i = 0; i < sizeof paths / sizeof paths[0]; i++)
    if (paths[i].value && !*paths[i].value)
      return wr_seterr(err, WEIR_EINVALIDARG, "weir_lake_options.%s is empty (NULL means the default)",
                       paths[i].name);
  return WEIR_OK;
}

int weir_lake_init(const char *path, const weir_lake_options *opts, weir_lake **out, weir_error *err) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  if (!out) return wr_seterr(err, WEIR_EINVALIDARG, "weir_lake_init: out is NULL");
  *out = NULL;
  weir_lake_options o;
  int rc = lake_options(opts, true, &o, err);
  if (rc) return rc;
  return lake_init(path, &o, out, err);
}

int weir_lake_open(const char *path, const weir_lake_options *opts, weir_lake **out, weir_error *err) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  if (!out) return wr_seterr(err, WEIR_EINVALIDARG, "weir_lake_open: out is NULL");
  *out = NULL;
  weir_lake_options o;
  int rc = lake_options(opts, false, &o, err);
  if (rc) return rc;
  return lake_open(path, &o, out, err);
}

void weir_lake_free(weir_lake *lake) { lake_free(lake); }

const char *weir_lake_path(const weir_lake *lake) { return lake ? lake->path : NULL; }

const char *weir_lake_warehouse(const weir_lake *lake) { return lake ? lake->warehouse : NULL; }

int weir_lake_set_author(weir_lake *lake, const char *author, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_lake_set_author");
  if (!author || !*author) return wr_seterr(err, WEIR_EINVALIDARG, "the author must not be empty");
  char *copy = wr_strdup(author);
  if (!copy) return wr_oom(err); /* the old author stays */
  free(lake->author);
  lake->author = copy;
  return WEIR_OK;
}

void weir_lake_set_progress(weir_lake *lake, weir_progress_fn fn, void *ctx) {
  if (!lake) return;
  lake->progress = fn;
  lake->progress_ctx = ctx;
}

void weir_lake_interrupt(weir_lake *lake) {
  if (lake) atomic_store(&lake->interrupted, 1);
}

int weir_status_options_init(weir_status_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_STATUS_OPTIONS_VERSION);
}

int weir_lake_status(weir_lake *lake, const weir_status_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_lake_status");
  API_CHECK_OPTS(opts, "weir_status_options", WEIR_STATUS_OPTIONS_VERSION);
  return lake_status(lake, opts, out_json, err);
}
