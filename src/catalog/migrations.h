/*
 * migrations.h -- the catalog schema, as an ordered list of migration steps.
 *
 * The schema version of a catalog is the highest step applied (recorded in the table
 * weir_schema_migrations, one row per step). Opening a catalog applies the steps it
 * lacks, each in its own write transaction; a catalog whose version is higher than the
 * last step here was written by a newer weir and is refused. Steps are append-only: a
 * released step is never edited, a change is a new step.
 *
 * There is one list for every backend. Statements are written dialect-neutral (TEXT,
 * BIGINT, INTEGER, PRIMARY KEY, REFERENCES, CREATE INDEX, ALTER TABLE ADD COLUMN) and
 * both the SQLite and the PostgreSQL backend apply them as they are; where a dialect needs
 * its own form, the step lists a replacement for that dialect (dialect_sql), so a step is
 * still one step with one version number on every backend. A migration added later (for
 * example tables for tokens) is one more entry of MIGRATIONS in the same shape.
 */
#ifndef WEIR_CATALOG_MIGRATIONS_H
#define WEIR_CATALOG_MIGRATIONS_H

#include <stddef.h>

/* Statement `index` of a step's `statements` as the backend named `dialect` (a
 * catalog_backend_ops name: "sqlite", "postgresql") runs it instead. */
typedef struct catalog_dialect_sql {
  const char *dialect;
  int index;
  const char *sql;
} catalog_dialect_sql;

typedef struct catalog_migration {
  int version;                   /* 1, 2, ... in order */
  const char *description;
  const char *const *statements; /* NULL-terminated */
  /* Tables (created by this step) with small rows that are only ever looked up by their
   * primary key: a backend that can store such a table in its key's B-tree does so
   * (SQLite: WITHOUT ROWID), which halves the pages a commit touches. NULL-terminated;
   * may be NULL. Backends without the notion ignore it. */
  const char *const *clustered;
  /* Per-dialect replacements of some statements, terminated by {NULL}; may be NULL. */
  const catalog_dialect_sql *dialect_sql;
} catalog_migration;

/* Statement i of step m as the backend named `dialect` runs it: its replacement for that
 * dialect if the step has one, else the neutral statement. */
const char *catalog_migration_sql(const catalog_migration *m, int i, const char *dialect);

/* The steps in order; *n receives their number. */
const catalog_migration *catalog_migrations(size_t *n);
/* The version a fully migrated catalog is at (the last step's). */
int catalog_schema_latest(void);

#endif
