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
 *
 * Warehouse engines also read the folders of registered external tables and files
 * (register.c: LAKE/external-locations, granted by `weir table register` and `weir import
 * --register`). A grant made after an engine was restricted cannot be added to it (DuckDB
 * locks its configuration), so the pool remembers how long the grants text was that each
 * warehouse engine was opened with (the file only grows: its length names its version)
 * and closes, rather than keeps, an engine opened with fewer grants than the newest seen.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lake/lake.h"

struct lake_engine_pool {
  pthread_mutex_t mu;
  int refs;                 /* the lake handle + engines lent out */
  wr_engine *idle[LAKE_ENGINE_KINDS]; /* one idle engine of each kind */
  char *warehouse;
  size_t grants_len;        /* the longest grants text seen: what current engines have */
  struct lent { wr_engine *e; size_t len; } *lent; /* warehouse engines lent out, and
                                                     the grants length each was opened with */
  size_t n_lent;
  size_t idle_len;          /* grants length of idle[LAKE_ENGINE_WAREHOUSE] */
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
  free(p->lent);
  free(p);
}

void lake_engine_pool_free(lake_engine_pool *p) {
  if (p) pool_unref(p);
}

int lake_engine_get(weir_lake *lake, lake_engine_kind kind, wr_engine **out, weir_error *err) {
  lake_engine_pool *p = lake->engines;
  int k = (int)kind;
  bool warehouse = kind == LAKE_ENGINE_WAREHOUSE;
  char *grants = warehouse ? lake_external_grants(lake) : NULL;
  size_t len = grants ? strlen(grants) : 0;
  wr_engine *stale = NULL;
  pthread_mutex_lock(&p->mu);
  if (warehouse && len > p->grants_len) p->grants_len = len;
  *out = p->idle[k];
  p->idle[k] = NULL;
  /* An idle engine with fewer grants than the newest cannot read every table. */
  if (warehouse && *out && p->idle_len < p->grants_len) stale = *out, *out = NULL;
  size_t out_len = warehouse && *out ? p->idle_len : len;
  p->refs++;
  pthread_mutex_unlock(&p->mu);
  wr_engine_close(stale);
  int rc = WEIR_OK;
  if (!*out) {
    rc = lake_engine_open(lake, out, err);
    if (rc == WEIR_OK && kind != LAKE_ENGINE_OPEN) {
      /* The warehouse, then the granted folders (external.c). */
      char *copy = warehouse ? wr_strdup(grants) : NULL;
      size_t cap = lake_external_count(copy);
      const char **dirs = wr_calloc(cap + 1, sizeof *dirs);
      dirs[0] = p->warehouse;
      size_t n = 1 + (copy ? lake_external_split(copy, dirs + 1, cap) : 0);
      rc = wr_engine_restrict_files(*out, dirs, warehouse ? n : 0, err);
      free(copy);
      free(dirs);
    }
  }
  if (rc == WEIR_OK && warehouse) {
    pthread_mutex_lock(&p->mu);
    p->lent = wr_realloc(p->lent, (p->n_lent + 1) * sizeof *p->lent);
    p->lent[p->n_lent].e = *out;
    p->lent[p->n_lent++].len = out_len;
    pthread_mutex_unlock(&p->mu);
  }
  free(grants);
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
  bool current = true;
  size_t len = 0;
  if (kind == LAKE_ENGINE_WAREHOUSE) {
    for (size_t i = 0; i < p->n_lent; i++)
      if (p->lent[i].e == engine) {
        len = p->lent[i].len;
        current = len >= p->grants_len;
        p->lent[i] = p->lent[--p->n_lent];
        break;
      }
  }
  if (!p->idle[k] && current) {
    p->idle[k] = engine;
    if (kind == LAKE_ENGINE_WAREHOUSE) p->idle_len = len;
  } else {
    spare = engine;
  }
  pthread_mutex_unlock(&p->mu);
  wr_engine_close(spare);
  pool_unref(p);
}

void lake_engine_put(weir_lake *lake, wr_engine *engine, lake_engine_kind kind) {
  lake_engine_put_pool(lake->engines, engine, kind);
}
