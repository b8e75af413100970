/*
 * tree.h -- the table map of a commit as a content-addressed Merkle trie.
 *
 * Canonical shape (it depends only on the set of entries, so equal maps have equal root
 * hashes whatever order they were built in):
 *   - a node at depth d holding at most TREE_LEAF_MAX entries is a leaf: its entries
 *     sorted by table name (bytewise);
 *   - a node holding more is internal: its entries are split into up to 16 children by
 *     the d-th hex digit of SHA-256(table name); empty children are omitted; it records
 *     the number of entries below it.
 * Bodies are canonical JSON (sorted keys, no whitespace):
 *   leaf:     {"entries":[{"metadata_location":"...","record_count":N,"snapshot_id":N,
 *              "table":"ns.name"},...]}
 *   internal: {"children":{"0":"<hash>","a":"<hash>",...},"count":N}
 * and a node's hash is the SHA-256 hex of its body. The empty map is the leaf
 * {"entries":[]}.
 *
 * Nodes live in the catalog's tree_nodes table (written with insert-if-absent, so a
 * commit writes only the nodes on the paths it changed) and in a bounded per-handle
 * cache of decoded nodes.
 */
#ifndef WEIR_CATALOG_TREE_H
#define WEIR_CATALOG_TREE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog/catalog.h"

#define TREE_LEAF_MAX 32
#define TREE_FANOUT 16

/* Hash of the empty map's root node. Static storage. */
const char *tree_empty_root(void);
/* The empty root's body. */
const char *tree_empty_body(void);

/* A change the trie actually applied (no-ops are not reported), sorted by table. */
typedef struct tree_applied {
  char *table;
  wr_change_kind kind;
  char *metadata_location; /* new location; NULL when dropped */
} tree_applied;

void tree_applied_free(tree_applied *v, size_t n);

/* Applies `changes` (distinct tables) to the map at `root`, writing the new nodes, and
 * returns the new root. Cost: O(changes x depth) nodes read and written. */
int tree_apply(wr_catalog *cat, const char *root, const wr_table_change *changes,
               size_t n, char out_root[WEIR_HASH_LEN + 1], tree_applied **applied,
               size_t *n_applied, weir_error *err);

/* One table, O(depth). *found false when absent (out untouched). */
int tree_get(wr_catalog *cat, const char *root, const char *table, wr_table_entry *out,
             bool *found, weir_error *err);

/* Every entry, sorted by table name. */
int tree_list(wr_catalog *cat, const char *root, wr_table_entry **out, size_t *n,
              weir_error *err);

/* Tables whose entries differ between two maps (any field), sorted by name; a or b NULL
 * when absent on that side. Identical subtrees are skipped by hash. */
typedef struct tree_diff_item {
  char *table;
  wr_table_entry *a;
  wr_table_entry *b;
} tree_diff_item;

int tree_diff(wr_catalog *cat, const char *root_a, const char *root_b, tree_diff_item **out,
              size_t *n, weir_error *err);
void tree_diff_free(tree_diff_item *v, size_t n);

/* Frees a cached node (hmap value destructor). */
void tree_node_free(void *node);

#endif
