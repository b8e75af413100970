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
 * locks its configuration), so the pool remembers the grants each warehouse engine was
 * opened with ("generation") and closes, rather than keeps, an engine of an older one.
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
  char *grants;             /* the grants text current warehouse engines were opened with */
  uint64_t generation;      /* bumped when the grants change */
  struct lent { wr_engine *e; uint64_t gen; } *lent; /* warehouse engines lent out */
  size_t n_lent;
  uint64_t idle_gen;        /* generation of idle[LAKE_ENGINE_WAREHOUSE] */
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
  free(p->grants);
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
  wr_engine *stale = NULL;
  uint64_t gen = 0;
  pthread_mutex_lock(&p->mu);
  if (warehouse && strcmp(grants, p->grants ? p->grants : "") != 0) {
    free(p->grants);
    p->grants = wr_strdup(grants);
    p->generation++;
  }
  gen = p->generation;
  *out = p->idle[k];
  p->idle[k] = NULL;
  if (warehouse && *out && p->idle_gen != gen) stale = *out, *out = NULL;
  p->refs++;
  pthread_mutex_unlock(&p->mu);
  wr_engine_close(stale);
  int rc = WEIR_OK;
  if (!*out) {
    rc = lake_engine_open(lake, out, err);
    if (rc == WEIR_OK && kind != LAKE_ENGINE_OPEN) {
      /* The warehouse, then one granted folder a line. */
      size_t n = 1, lines = 1;
      for (const char *c = grants; c && *c; c++) lines += *c == '\n';
      const char **dirs = wr_calloc(lines + 1, sizeof *dirs);
      dirs[0] = p->warehouse;
      char *copy = warehouse ? wr_strdup(grants) : NULL;
      for (char *line = copy, *next; line && *line && n <= lines; line = next) {
        next = strchr(line, '\n');
        if (next) *next++ = 0;
        else next = line + strlen(line);
        if (*line == '/' || strstr(line, "://")) dirs[n++] = line;
      }
      rc = wr_engine_restrict_files(*out, dirs, warehouse ? n : 0, err);
      free(copy);
      free(dirs);
    }
  }
  if (rc == WEIR_OK && warehouse) {
    pthread_mutex_lock(&p->mu);
    p->lent = wr_realloc(p->lent, (p->n_lent + 1) * sizeof *p->lent);
    p->lent[p->n_lent].e = *out;
    p->lent[p->n_lent++].gen = gen;
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
  if (kind == LAKE_ENGINE_WAREHOUSE) {
    for (size_t i = 0; i < p->n_lent; i++)
      if (p->lent[i].e == engine) {
        current = p->lent[i].gen == p->generation;
        p->lent[i] = p->lent[--p->n_lent];
        break;
      }
  }
  if (!p->idle[k] && current) {
    p->idle[k] = engine;
    if (kind == LAKE_ENGINE_WAREHOUSE) p->idle_gen = p->generation;
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
