/*
 * delete_prune.h -- which data files a delete's predicate can match, by their column
 * statistics (delete.c, step 2).
 */
#ifndef WEIR_LAKE_DELETE_PRUNE_H
#define WEIR_LAKE_DELETE_PRUNE_H

#include <stdbool.h>
#include "engine/engine.h"
#include "iceberg/iceberg.h"

typedef struct lake_prune lake_prune;

/* Parses `where` (already judged one expression) with DuckDB's parser on `engine` (which
 * runs nothing of it). *out: free with lake_prune_free. Errors: WEIR_EINPUT. */
int lake_prune_compile(wr_engine *engine, const char *where, lake_prune **out, weir_error *err);
void lake_prune_free(lake_prune *p);

/* *maybe: false only when the file's statistics prove the predicate is not TRUE for any
 * of its rows; true otherwise (statistics missing, or a predicate shape the rules do not
 * follow). The bound comparisons run on `engine` as constant expressions. */
void lake_prune_file(wr_engine *engine, const lake_prune *p, const wr_schema *schema, const iceberg_data_file *f,
                     bool *maybe);

#endif
