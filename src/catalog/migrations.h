/*
 * migrations.h -- the catalog schema, as an ordered list of migration steps.
 *
 * The schema version of a catalog is the highest step applied (recorded in the table
 * weir_schema_migrations, one row per step). Opening a catalog applies the steps it
 * lacks, each in its own write transaction; a catalog whose version is higher than the
 * last step here was written by a newer weir and is refused. Steps are append-only: a
 * released step is never edited, a change is a new step.
 *
 * Statements are kept dialect-neutral (TEXT, BIGINT, INTEGER, PRIMARY KEY, REFERENCES,
 * CREATE INDEX) so the SQLite and PostgreSQL backends apply the same list.
 */
#ifndef WEIR_CATALOG_MIGRATIONS_H
#define WEIR_CATALOG_MIGRATIONS_H

#include <stddef.h>

typedef struct catalog_migration {
  int version;                   /* 1, 2, ... in order */
  const char *description;
  const char *const *statements; /* NULL-terminated */
  /* Tables (created by this step) with small rows that are only ever looked up by their
   * primary key: a backend that can store such a table in its key's B-tree does so
   * (SQLite: WITHOUT ROWID), which halves the pages a commit touches. NULL-terminated;
   * may be NULL. Backends without the notion ignore it. */
  const char *const *clustered;
} catalog_migration;

/* The steps in order; *n receives their number. */
const catalog_migration *catalog_migrations(size_t *n);
/* The version a fully migrated catalog is at (the last step's). */
int catalog_schema_latest(void);

#endif
