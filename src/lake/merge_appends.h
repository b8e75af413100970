/*
 * merge_appends.h -- the append-aware merge (merge_appends.c, docs/versioning.md "Merge").
 */
#ifndef WEIR_LAKE_MERGE_APPENDS_H
#define WEIR_LAKE_MERGE_APPENDS_H

#include <stdbool.h>
#include "catalog/catalog.h"

/*
 * A catalog_merge_combine_fn; ctx is the weir_lake. When both sides of a merge only
 * appended to `table` since the base (same table, schema, partition spec, contract and
 * properties; every snapshot since the base's an "append"; every base file still live),
 * writes one new Iceberg version: `ours` plus the files `theirs` added, and fills `out`
 * (table and metadata_location heap copies the caller frees), *combined true. Otherwise
 * *combined stays false (the table is a conflict) and nothing is written. Errors:
 * reading a version's metadata or manifests, writing the new version (WEIR_EIO ...).
 * Thread-safety: as the lake handle.
 */
int lake_merge_appends(const char *table, const wr_table_entry *base, const wr_table_entry *ours,
                       const wr_table_entry *theirs, void *ctx, wr_table_change *out, bool *combined, char **why,
                       weir_error *err);

#endif
