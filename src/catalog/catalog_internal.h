/*
 * catalog_internal.h -- what the backend-independent catalog files share: the handle,
 * its caches, transaction helpers and small record utilities. Not part of the module's
 * interface (catalog.h is).
 */
#ifndef WEIR_CATALOG_INTERNAL_H
#define WEIR_CATALOG_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "catalog/backend.h"
#include "catalog/catalog.h"
#include "catalog/hmap.h"

/* The parts of a commit history walks and table reads need, cached per handle (commits
 * never change). */
typedef struct commit_head {
  char tables_root[WEIR_HASH_LEN + 1];
  char parents[2][WEIR_HASH_LEN + 1];
  int n_parents;
  int64_t generation;
  int64_t time_us;
} commit_head;

/* Cache bounds. The node cache is dropped whole when it exceeds its bound at the start of
 * a trie operation (never during one, so pointers into it stay valid while the operation
 * runs); the commit cache when it exceeds its bound (callers get copies). The commit
 * cache is also dropped on rollback, so it never holds a commit that was not committed. */
#define CATALOG_NODE_CACHE_MAX 32768
#define CATALOG_HEAD_CACHE_MAX 16384

/* How many times merge and revert re-read and retry when the branch moved. */
#define CATALOG_CAS_ATTEMPTS 10

struct wr_catalog {
  catalog_backend *be;
  char *location; /* the path or URI, for messages */
  char *author;
  int tx_depth;   /* 0 = no transaction */
  bool tx_write;
  hmap nodes;     /* hash -> tree_node* */
  hmap heads;     /* hash -> commit_head* */
};

/* catalog_open with knobs for tests: apply schema steps up to `max_version` only (to make
 * an old-schema catalog), and give the first commit of a new catalog the time
 * `init_time_us` instead of now (so two catalogs can hold identical histories). */
int catalog_open_at_version(const char *uri, bool create, const char *author, const wr_catalog_settings *settings,
                            int max_version,
                            int64_t init_time_us, wr_catalog **out, weir_error *err);

/* Ends a transaction begun with catalog_tx_begin: commits when rc is WEIR_OK (returning
 * the commit's status), rolls back otherwise (returning rc). */
int catalog_tx_end(wr_catalog *cat, int rc, weir_error *err);
/* Begins a read transaction when none is open (so a multi-statement read sees one
 * snapshot); *opened tells the caller to end it. */
int catalog_read_begin(wr_catalog *cat, bool *opened, weir_error *err);
int catalog_read_end(wr_catalog *cat, bool opened, int rc, weir_error *err);

/* Root, parents, generation and time of a commit (cached; copied into *out).
 * WEIR_ENOTFOUND naming the hash. */
int catalog_head_get(wr_catalog *cat, const char *hash, commit_head *out, weir_error *err);

/* WEIR_ENOTFOUND ("commit X (ref) was expired/collected by gc on DATE", details) when gc
 * marked `hash` (gc.c); WEIR_OK otherwise. Resolution, ref creation, branch moves and merge
 * parents call it inside their transactions, so no ref or commit can name a marked commit. */
int catalog_check_not_expired(wr_catalog *cat, const char *ref, const char *hash, weir_error *err);

/* True if `s` is a full lowercase 64-digit hex hash. */
bool catalog_is_full_hash(const char *s);
/* First 12 digits of a hash, for messages. */
const char *catalog_short(const char *hash, char buf[13]);

/* Version equality the way merges see it: the same metadata file (or both absent). */
bool catalog_same_version(const wr_table_entry *a, const wr_table_entry *b);
/* Deep copy of an entry into *out. */
/* WEIR_OK, or WEIR_ENOMEM with out cleared. */
int catalog_entry_copy(wr_table_entry *out, const wr_table_entry *in);

const char *catalog_change_name(wr_change_kind k);

#endif
