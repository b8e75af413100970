/*
 * engines.c -- the SQL engines of a lake handle, kept for reuse.
 *
 * Starting DuckDB costs about 54 million instructions (10 ms here: registering every
 * built-in function), more than a small query or import itself. A program that holds a
 * weir_lake open (the Python client, a service) should pay that once, so released
 * engines are kept, one of each kind:
 *
 *   - open engines, for weir's own SQL reading the user's files (imports): full access;
 *   - warehouse engines, for SQL from users and models, and for writing: files inside the
 *     warehouse only;
 *   - sealed engines, for the SQL of contracts (checks and table rules), which travels
 *     with a table and runs on every later write by anyone: no file access at all, so a
 *     rule can neither read the machine's files nor overwrite the lake's.
 * DuckDB cannot lift a restriction once set, which is why the kinds are kept apart.
 *
 * A query's result stream owns its engine until released, possibly after the lake handle
 * is freed, so the pool is reference-counted and shared by the handle and the streams.
 */
#include <pthread.h>
#include <stdlib.h>

#include "lake/lake.h"

struct lake_engine_pool {
  pthread_mutex_t mu;
  int refs;                 /* the lake handle + engines lent out */
  wr_engine *idle[LAKE_ENGINE_KINDS]; /* one idle engine of each kind */
  char *warehouse;
};

lake_engine_pool *lake_engine_pool_new(const char *warehouse) {
  lake_engine_pool *p = wr_calloc(1, sizeof *p);
  pthread_mutex_init(&p->mu, NULL);
  p->refs = 1;
  p->warehouse = wr_strdup(warehouse);
  return p;
}

static void pool_unref(lake_engine_pool *p) {
  pthread_mutex_lock(&p->mu);
  bool last = --p->refs == 0;
  pthread_mutex_unlock(&p->mu);
  if (!last) return;
  for (int k = 0; k < LAKE_ENGINE_KINDS; k++) wr_engine_close(p->idle[k]);
  pthread_mutex_destroy(&p->mu);
  free(p->warehouse);
  free(p);
}

void lake_engine_pool_free(lake_engine_pool *p) {
  if (p) pool_unref(p);
}

int lake_engine_get(weir_lake *lake, lake_engine_kind kind, wr_engine **out, weir_error *err) {
  lake_engine_pool *p = lake->engines;
  int k = (int)kind;
  pthread_mutex_lock(&p->mu);
  *out = p->idle[k];
  p->idle[k] = NULL;
  p->refs++;
  pthread_mutex_unlock(&p->mu);
  if (*out) return WEIR_OK;
  int rc = lake_engine_open(lake, out, err);
  if (rc == WEIR_OK && kind != LAKE_ENGINE_OPEN) {
    const char *dirs[1] = {p->warehouse};
    rc = wr_engine_restrict_files(*out, dirs, kind == LAKE_ENGINE_WAREHOUSE ? 1 : 0, err);
  }
  if (rc) {
    wr_engine_close(*out);
    *out = NULL;
    pool_unref(p);
  }
  return rc;
}

void lake_engine_put_pool(lake_engine_pool *p, wr_engine *engine, lake_engine_kind kind) {
  if (!engine) return;
  int k = (int)kind;
  pthread_mutex_lock(&p->mu);
  wr_engine *spare = NULL;
  if (!p->idle[k]) p->idle[k] = engine;
  else spare = engine;
  pthread_mutex_unlock(&p->mu);
  wr_engine_close(spare);
  pool_unref(p);
}

void lake_engine_put(weir_lake *lake, wr_engine *engine, lake_engine_kind kind) {
  lake_engine_put_pool(lake->engines, engine, kind);
}
