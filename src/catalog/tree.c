/*
 * tree.c -- the Merkle trie of table maps (see tree.h for the canonical shape).
 *
 * Decoded nodes are cached per handle in cat->nodes. Nodes are immutable and
 * content-addressed, so the cache never needs invalidation; it is only dropped whole
 * between operations when it grows past its bound, which keeps pointers into cached
 * nodes valid for the duration of one operation (the code below relies on that).
 *
 * Every node an operation builds is written (insert-if-absent) even when it may already
 * exist, so a node cached by a transaction that was rolled back can never be referenced
 * without also being written by the transaction that references it.
 */
#include "catalog/tree.h"

#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "util/buf.h"
#include "util/hash.h"
#include "util/json.h"

#define MAX_DEPTH (2 * WEIR_SHA256_LEN) /* one hex digit of the name hash per level */

typedef struct tree_node {
  char hash[WEIR_HASH_LEN + 1];
  bool leaf;
  int64_t count;                               /* entries at or below this node */
  wr_table_entry *entries;                   /* leaf: `count` entries sorted by name */
  char child[TREE_FANOUT][WEIR_HASH_LEN + 1];  /* internal: "" where empty */
} tree_node;

/* A borrowed view of an entry: points into a cached node or a caller's change. */
typedef struct eview {
  const char *table;
  const char *loc;
  int64_t snap;
  int64_t rc;
} eview;

/* The growable lists here (vvec, alist, dlist) keep a sticky `oom`, as wr_buf does: a
 * push that cannot grow sets it and later pushes do nothing; the function that owns the
 * list checks it once and returns WEIR_ENOMEM. */
typedef struct vvec {
  eview *v;
  size_t n, cap;
  int oom;
} vvec;

static void vvec_push(vvec *vv, eview e) {
  if (vv->oom) return;
  if (vv->n == vv->cap) {
    size_t cap = vv->cap ? vv->cap * 2 : 64;
    eview *v = wr_realloc(vv->v, cap * sizeof *vv->v);
    if (!v) {
      vv->oom = 1;
      return;
    }
    vv->v = v;
    vv->cap = cap;
  }
  vv->v[vv->n++] = e;
}

static int eview_cmp(const void *a, const void *b) {
  return strcmp(((const eview *)a)->table, ((const eview *)b)->table);
}

static bool eview_eq(const eview *a, const eview *b) {
  return strcmp(a->loc, b->loc) == 0 && a->snap == b->snap && a->rc == b->rc;
}

static eview view_of(const wr_table_entry *e) {
  return (eview){e->table, e->metadata_location, e->snapshot_id, e->record_count};
}

/* -1 on OOM (out then holds what could be copied; wr_table_entry_clear frees it). */
static int entry_from_view(wr_table_entry *out, const eview *v) {
  out->table = wr_strdup(v->table);
  out->metadata_location = wr_strdup(v->loc);
  out->snapshot_id = v->snap;
  out->record_count = v->rc;
  return out->table && out->metadata_location ? 0 : -1;
}

static int nibble(const uint8_t d[WEIR_SHA256_LEN], int depth) {
  uint8_t b = d[depth / 2];
  return depth % 2 == 0 ? b >> 4 : b & 15;
}

static int name_nibble(const char *name, int depth) {
  uint8_t d[WEIR_SHA256_LEN];
  wr_sha256(name, strlen(name), d);
  return nibble(d, depth);
}

static const char HEXDIGITS[] = "0123456789abcdef";

/* Drops the node cache if it outgrew its bound; called at the start of each trie
 * operation, never inside one. */
static void cache_trim(wr_catalog *cat) {
  if (cat->nodes.n > CATALOG_NODE_CACHE_MAX) hmap_clear(&cat->nodes, tree_node_free);
}

/* ---- the empty map ------------------------------------------------------------------ */

static const char EMPTY_BODY[] = "{\"entries\":[]}";
/* SHA-256 of EMPTY_BODY (a constant, so that no lazily-initialised state is shared
 * between threads; the tests recompute it). */
static const char EMPTY_ROOT[] = "d801aa1fb7ddcc330a5e3173372ea6af4a3d08ec58074478e85aa5603e926658";

const char *tree_empty_body(void) { return EMPTY_BODY; }

const char *tree_empty_root(void) { return EMPTY_ROOT; }

/* ---- nodes: encode, decode, load, store --------------------------------------------- */

void tree_node_free(void *p) {
  tree_node *node = p;
  if (!node) return;
  if (node->leaf) wr_table_entries_free(node->entries, (size_t)node->count);
  free(node);
}

/* True when jansson would write `s` as is between quotes: printable ASCII without '"'
 * or '\\'. Such strings (table names, most paths) take the fast path below. */
static bool plain(const char *s) {
  for (; *s; s++)
    if ((unsigned char)*s < 0x20 || (unsigned char)*s > 0x7e || *s == '"' || *s == '\\')
      return false;
  return true;
}

/* The canonical JSON of a leaf. Built by hand when every string is plain (the bytes are
 * exactly what wr_json_canonical writes: sorted keys, no whitespace), through jansson
 * otherwise, so escaping rules are jansson's in every case. */
static char *leaf_body(const eview *v, size_t n) {
  bool fast = true;
  for (size_t i = 0; i < n && fast; i++) fast = plain(v[i].table) && plain(v[i].loc);
  if (fast) {
    wr_buf b = WEIR_BUF_INIT;
    wr_buf_puts(&b, "{\"entries\":[");
    for (size_t i = 0; i < n; i++)
      wr_buf_printf(&b,
                      "%s{\"metadata_location\":\"%s\",\"record_count\":%lld,"
                      "\"snapshot_id\":%lld,\"table\":\"%s\"}",
                      i ? "," : "", v[i].loc, (long long)v[i].rc, (long long)v[i].snap,
                      v[i].table);
    wr_buf_puts(&b, "]}");
    return wr_buf_detach(&b); /* NULL on OOM */
  }
  /* Every key must be there (a node's hash is over these bytes): NULL on OOM. */
  json_t *arr = json_array();
  int bad = !arr;
  for (size_t i = 0; i < n; i++) {
    json_t *e = json_object();
    bad |= json_object_set_new(e, "metadata_location", json_string(v[i].loc));
    bad |= json_object_set_new(e, "record_count", json_integer((json_int_t)v[i].rc));
    bad |= json_object_set_new(e, "snapshot_id", json_integer((json_int_t)v[i].snap));
    bad |= json_object_set_new(e, "table", json_string(v[i].table));
    bad |= json_array_append_new(arr, e);
  }
  json_t *o = json_object();
  bad |= json_object_set_new(o, "entries", arr);
  char *s = bad ? NULL : wr_json_canonical(o);
  json_decref(o);
  return s;
}

/* {"children":{"<digit>":"<hash>",...},"count":N}: only hex digits and numbers, so the
 * canonical form is written directly (keys "0".."9","a".."f" sort in nibble order). */
static char *internal_body(const tree_node *node) {
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_reserve(&b, 32 + TREE_FANOUT * (WEIR_HASH_LEN + 8));
  wr_buf_puts(&b, "{\"children\":{");
  bool first = true;
  for (int d = 0; d < TREE_FANOUT; d++) {
    if (!node->child[d][0]) continue;
    wr_buf_printf(&b, "%s\"%c\":\"%s\"", first ? "" : ",", HEXDIGITS[d], node->child[d]);
    first = false;
  }
  wr_buf_printf(&b, "},\"count\":%lld}", (long long)node->count);
  return wr_buf_detach(&b); /* NULL on OOM */
}

static int corrupt(wr_catalog *cat, const char *hash, const char *why, weir_error *err) {
  return wr_seterr(err, WEIR_ECATALOG, "catalog %s is corrupt: table map node %s %s",
                     cat->location, hash, why);
}

static int node_parse(wr_catalog *cat, const char *hash, const char *body, tree_node **out,
                      weir_error *err) {
  char check[WEIR_HASH_LEN + 1];
  wr_sha256_hex(body, strlen(body), check);
  if (strcmp(check, hash) != 0) return corrupt(cat, hash, "does not match its hash", err);
  json_error_t je;
  bool oom = false;
  json_t *o = wr_json_loads(body, 0, &je, &oom);
  if (oom) return wr_oom(err);
  if (!json_is_object(o)) {
    json_decref(o);
    return corrupt(cat, hash, "is not a JSON object", err);
  }
  tree_node *node = wr_calloc(1, sizeof *node);
  if (!node) {
    json_decref(o);
    return wr_oom(err);
  }
  memcpy(node->hash, hash, WEIR_HASH_LEN + 1);
  json_t *entries = json_object_get(o, "entries");
  json_t *children = json_object_get(o, "children");
  if (json_is_array(entries)) {
    node->leaf = true;
    size_t n = json_array_size(entries);
    node->entries = wr_calloc(n ? n : 1, sizeof *node->entries);
    if (!node->entries) {
      tree_node_free(node);
      json_decref(o);
      return wr_oom(err);
    }
    for (size_t i = 0; i < n; i++) {
      json_t *e = json_array_get(entries, i);
      const char *t = wr_json_str(e, "table", NULL);
      const char *l = wr_json_str(e, "metadata_location", NULL);
      if (!t || !l) {
        node->count = (int64_t)i;
        tree_node_free(node);
        json_decref(o);
        return corrupt(cat, hash, "has an entry without table or metadata_location", err);
      }
      node->entries[i].table = wr_strdup(t);
      node->entries[i].metadata_location = wr_strdup(l);
      if (!node->entries[i].table || !node->entries[i].metadata_location) {
        node->count = (int64_t)i + 1; /* tree_node_free frees entries [0, count) */
        tree_node_free(node);
        json_decref(o);
        return wr_oom(err);
      }
      node->entries[i].snapshot_id = wr_json_int(e, "snapshot_id", -1);
      node->entries[i].record_count = wr_json_int(e, "record_count", 0);
    }
    node->count = (int64_t)n;
  } else if (json_is_object(children)) {
    node->leaf = false;
    node->count = wr_json_int(o, "count", -1);
    const char *key;
    json_t *val;
    json_object_foreach(children, key, val) {
      const char *d = key[0] && !key[1] ? strchr(HEXDIGITS, key[0]) : NULL;
      if (!d || !json_is_string(val) || !catalog_is_full_hash(json_string_value(val))) {
        tree_node_free(node);
        json_decref(o);
        return corrupt(cat, hash, "has a malformed child", err);
      }
      memcpy(node->child[d - HEXDIGITS], json_string_value(val), WEIR_HASH_LEN + 1);
    }
    if (node->count <= TREE_LEAF_MAX) {
      tree_node_free(node);
      json_decref(o);
      return corrupt(cat, hash, "is an internal node with a bad count", err);
    }
  } else {
    tree_node_free(node);
    json_decref(o);
    return corrupt(cat, hash, "is neither a leaf nor an internal node", err);
  }
  json_decref(o);
  *out = node;
  return WEIR_OK;
}

static int node_load(wr_catalog *cat, const char *hash, const tree_node **out,
                     weir_error *err) {
  hmap_slot *s = hmap_get(&cat->nodes, hash);
  if (s) {
    *out = s->val;
    return WEIR_OK;
  }
  tree_node *node = NULL;
  int rc;
  if (strcmp(hash, tree_empty_root()) == 0) {
    rc = node_parse(cat, hash, EMPTY_BODY, &node, err);
  } else {
    char *body = NULL;
    rc = cat->be->ops->node_get(cat->be, hash, &body, err);
    if (rc) return rc;
    rc = node_parse(cat, hash, body, &node, err);
    free(body);
  }
  if (rc) return rc;
  hmap_slot *slot = hmap_put(&cat->nodes, hash, NULL);
  if (!slot) { /* the cache owns the node: without a slot it cannot be handed out */
    tree_node_free(node);
    return wr_oom(err);
  }
  slot->val = node;
  *out = node;
  return WEIR_OK;
}

/* Hashes `body`, writes the node and caches `node` (takes both). */
static int node_store(wr_catalog *cat, char *body, tree_node *node,
                      char out[WEIR_HASH_LEN + 1], weir_error *err) {
  if (!body || !node) { /* the body or node could not be made (OOM) */
    free(body);
    tree_node_free(node);
    return wr_oom(err);
  }
  wr_sha256_hex(body, strlen(body), node->hash);
  int rc = cat->be->ops->node_put(cat->be, node->hash, body, err);
  free(body);
  if (rc) {
    tree_node_free(node);
    return rc;
  }
  memcpy(out, node->hash, WEIR_HASH_LEN + 1);
  bool created = false;
  hmap_slot *s = hmap_put(&cat->nodes, node->hash, &created);
  if (s && created) s->val = node;
  else tree_node_free(node); /* cached already, or not cacheable (OOM): it is stored */
  return WEIR_OK;
}

static int make_leaf(wr_catalog *cat, const eview *v, size_t n, char out[WEIR_HASH_LEN + 1],
                     weir_error *err) {
  tree_node *node = wr_calloc(1, sizeof *node);
  if (!node) return wr_oom(err);
  node->leaf = true;
  node->count = (int64_t)n;
  node->entries = wr_calloc(n ? n : 1, sizeof *node->entries);
  int bad = !node->entries;
  for (size_t i = 0; i < n && !bad; i++) bad = entry_from_view(&node->entries[i], &v[i]);
  if (bad) {
    if (!node->entries) node->count = 0;
    tree_node_free(node);
    return wr_oom(err);
  }
  return node_store(cat, leaf_body(v, n), node, out, err);
}

static int make_internal(wr_catalog *cat, tree_node *node, char out[WEIR_HASH_LEN + 1],
                         weir_error *err) {
  node->leaf = false;
  return node_store(cat, internal_body(node), node, out, err);
}

/* Builds the canonical subtree of `n` entries (sorted by name) at `depth`. */
static int make_subtree(wr_catalog *cat, const eview *v, size_t n, int depth,
                        char out[WEIR_HASH_LEN + 1], weir_error *err) {
  if (n <= TREE_LEAF_MAX || depth >= MAX_DEPTH) return make_leaf(cat, v, n, out, err);
  unsigned char *k = wr_malloc(n);
  if (!k) return wr_oom(err);
  size_t cnt[TREE_FANOUT] = {0}, off[TREE_FANOUT];
  for (size_t i = 0; i < n; i++) {
    k[i] = (unsigned char)name_nibble(v[i].table, depth);
    cnt[k[i]]++;
  }
  size_t acc = 0;
  for (int b = 0; b < TREE_FANOUT; b++) {
    off[b] = acc;
    acc += cnt[b];
  }
  eview *sorted = wr_malloc(n * sizeof *sorted);
  if (!sorted) {
    free(k);
    return wr_oom(err);
  }
  size_t pos[TREE_FANOUT];
  memcpy(pos, off, sizeof pos);
  for (size_t i = 0; i < n; i++) sorted[pos[k[i]]++] = v[i]; /* stable: still by name */
  free(k);
  tree_node *node = wr_calloc(1, sizeof *node);
  if (!node) {
    free(sorted);
    return wr_oom(err);
  }
  node->count = (int64_t)n;
  int rc = WEIR_OK;
  for (int b = 0; b < TREE_FANOUT && !rc; b++)
    if (cnt[b]) rc = make_subtree(cat, sorted + off[b], cnt[b], depth + 1, node->child[b], err);
  free(sorted);
  if (rc) {
    tree_node_free(node);
    return rc;
  }
  return make_internal(cat, node, out, err);
}

/* Appends every entry under `hash` to vv (views into cached nodes, in trie order). */
static int gather(wr_catalog *cat, const char *hash, vvec *vv, weir_error *err) {
  const tree_node *node = NULL;
  int rc = node_load(cat, hash, &node, err);
  if (rc) return rc;
  if (node->leaf) {
    for (int64_t i = 0; i < node->count; i++) vvec_push(vv, view_of(&node->entries[i]));
    return vv->oom ? wr_oom(err) : WEIR_OK;
  }
  for (int b = 0; b < TREE_FANOUT; b++)
    if (node->child[b][0] && (rc = gather(cat, node->child[b], vv, err))) return rc;
  return WEIR_OK;
}

/* ---- apply -------------------------------------------------------------------------- */

typedef struct chg {
  const wr_table_change *c;
  uint8_t d[WEIR_SHA256_LEN];
} chg;

typedef struct alist {
  tree_applied *v;
  size_t n, cap;
  int oom; /* sticky (see vvec): tree_apply checks it */
} alist;

static void alist_push(alist *a, const char *table, wr_change_kind kind, const char *loc) {
  if (a->oom) return;
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 16;
    tree_applied *v = wr_realloc(a->v, cap * sizeof *a->v);
    if (!v) {
      a->oom = 1;
      return;
    }
    a->v = v;
    a->cap = cap;
  }
  tree_applied x = {wr_strdup(table), kind, wr_strdup(loc)};
  if (!x.table || (loc && !x.metadata_location)) {
    free(x.table);
    free(x.metadata_location);
    a->oom = 1;
    return;
  }
  a->v[a->n++] = x;
}

void tree_applied_free(tree_applied *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) {
    free(v[i].table);
    free(v[i].metadata_location);
  }
  free(v);
}

static eview view_of_change(const wr_table_change *c) {
  return (eview){c->table, c->metadata_location, c->snapshot_id, c->record_count};
}

static int apply_node(wr_catalog *cat, const char *hash, int depth, const chg *cs, size_t n,
                      char out[WEIR_HASH_LEN + 1], int64_t *new_count, int64_t *old_count,
                      alist *ap, weir_error *err);

static int apply_leaf(wr_catalog *cat, const tree_node *node, int depth, const chg *cs,
                      size_t n, char out[WEIR_HASH_LEN + 1], int64_t *new_count, alist *ap,
                      weir_error *err) {
  size_t ne = (size_t)node->count, i = 0, j = 0, m = 0;
  eview *v = wr_malloc((ne + n) * sizeof *v);
  if (!v) return wr_oom(err);
  while (i < ne || j < n) {
    int cmp = i == ne ? 1 : j == n ? -1 : strcmp(node->entries[i].table, cs[j].c->table);
    if (cmp < 0) {
      v[m++] = view_of(&node->entries[i++]);
    } else if (cmp > 0) {
      const wr_table_change *c = cs[j++].c;
      if (c->metadata_location) {
        v[m++] = view_of_change(c);
        alist_push(ap, c->table, WEIR_CHANGE_ADDED, c->metadata_location);
      }
    } else {
      const wr_table_change *c = cs[j++].c;
      eview old = view_of(&node->entries[i++]);
      if (!c->metadata_location) {
        alist_push(ap, c->table, WEIR_CHANGE_DROPPED, NULL);
      } else {
        eview nv = view_of_change(c);
        if (!eview_eq(&old, &nv)) alist_push(ap, c->table, WEIR_CHANGE_CHANGED, c->metadata_location);
        v[m++] = nv;
      }
    }
  }
  *new_count = (int64_t)m;
  int rc = make_subtree(cat, v, m, depth, out, err);
  free(v);
  return rc;
}

static int apply_internal(wr_catalog *cat, const tree_node *node, int depth, const chg *cs,
                          size_t n, char out[WEIR_HASH_LEN + 1], int64_t *new_count,
                          alist *ap, weir_error *err) {
  size_t cnt[TREE_FANOUT] = {0}, off[TREE_FANOUT], pos[TREE_FANOUT];
  for (size_t i = 0; i < n; i++) cnt[nibble(cs[i].d, depth)]++;
  size_t acc = 0;
  for (int b = 0; b < TREE_FANOUT; b++) {
    off[b] = acc;
    acc += cnt[b];
  }
  memcpy(pos, off, sizeof pos);
  chg *sorted = wr_malloc(n * sizeof *sorted);
  if (!sorted) return wr_oom(err);
  for (size_t i = 0; i < n; i++) sorted[pos[nibble(cs[i].d, depth)]++] = cs[i];

  tree_node *nn = wr_calloc(1, sizeof *nn);
  if (!nn) {
    free(sorted);
    return wr_oom(err);
  }
  memcpy(nn->child, node->child, sizeof nn->child);
  int64_t total = node->count;
  int rc = WEIR_OK;
  for (int b = 0; b < TREE_FANOUT && !rc; b++) {
    if (!cnt[b]) continue;
    const chg *bucket = sorted + off[b];
    if (node->child[b][0]) {
      char h[WEIR_HASH_LEN + 1];
      int64_t nc = 0, oc = 0;
      rc = apply_node(cat, node->child[b], depth + 1, bucket, cnt[b], h, &nc, &oc, ap, err);
      if (rc) break;
      total += nc - oc;
      if (nc) memcpy(nn->child[b], h, sizeof h);
      else nn->child[b][0] = 0;
    } else {
      eview *v = wr_malloc(cnt[b] * sizeof *v);
      if (!v) {
        rc = wr_oom(err);
        break;
      }
      size_t m = 0;
      for (size_t i = 0; i < cnt[b]; i++) {
        const wr_table_change *c = bucket[i].c;
        if (!c->metadata_location) continue;
        v[m++] = view_of_change(c);
        alist_push(ap, c->table, WEIR_CHANGE_ADDED, c->metadata_location);
      }
      if (m) rc = make_subtree(cat, v, m, depth + 1, nn->child[b], err);
      total += (int64_t)m;
      free(v);
    }
  }
  free(sorted);
  if (rc) {
    tree_node_free(nn);
    return rc;
  }
  *new_count = total;
  if (total > TREE_LEAF_MAX) {
    nn->count = total;
    return make_internal(cat, nn, out, err);
  }
  /* Shrunk to a leaf's size: the canonical shape is a leaf here. */
  vvec vv = {0};
  for (int b = 0; b < TREE_FANOUT && !rc; b++)
    if (nn->child[b][0]) rc = gather(cat, nn->child[b], &vv, err);
  tree_node_free(nn);
  if (!rc) {
    if (vv.n > 1) qsort(vv.v, vv.n, sizeof *vv.v, eview_cmp);
    rc = make_leaf(cat, vv.v, vv.n, out, err);
  }
  free(vv.v);
  return rc;
}

static int apply_node(wr_catalog *cat, const char *hash, int depth, const chg *cs, size_t n,
                      char out[WEIR_HASH_LEN + 1], int64_t *new_count, int64_t *old_count,
                      alist *ap, weir_error *err) {
  const tree_node *node = NULL;
  int rc = node_load(cat, hash, &node, err);
  if (rc) return rc;
  *old_count = node->count;
  if (node->leaf) return apply_leaf(cat, node, depth, cs, n, out, new_count, ap, err);
  return apply_internal(cat, node, depth, cs, n, out, new_count, ap, err);
}

static int chg_cmp(const void *a, const void *b) {
  return strcmp(((const chg *)a)->c->table, ((const chg *)b)->c->table);
}

static int applied_cmp(const void *a, const void *b) {
  return strcmp(((const tree_applied *)a)->table, ((const tree_applied *)b)->table);
}

int tree_apply(wr_catalog *cat, const char *root, const wr_table_change *changes,
               size_t n, char out_root[WEIR_HASH_LEN + 1], tree_applied **applied,
               size_t *n_applied, weir_error *err) {
  *applied = NULL;
  *n_applied = 0;
  cache_trim(cat);
  if (n == 0) {
    memcpy(out_root, root, WEIR_HASH_LEN + 1);
    return WEIR_OK;
  }
  chg *cs = wr_malloc(n * sizeof *cs);
  if (!cs) return wr_oom(err);
  for (size_t i = 0; i < n; i++) {
    cs[i].c = &changes[i];
    wr_sha256(changes[i].table, strlen(changes[i].table), cs[i].d);
  }
  qsort(cs, n, sizeof *cs, chg_cmp);
  for (size_t i = 1; i < n; i++)
    if (strcmp(cs[i - 1].c->table, cs[i].c->table) == 0) {
      int rc = wr_seterr(err, WEIR_EINVALIDARG,
                           "table %s appears more than once in the changes of one commit",
                           cs[i].c->table);
      free(cs);
      return rc;
    }
  alist ap = {0};
  int64_t nc = 0, oc = 0;
  char h[WEIR_HASH_LEN + 1];
  int rc = apply_node(cat, root, 0, cs, n, h, &nc, &oc, &ap, err);
  free(cs);
  if (!rc && ap.oom) rc = wr_oom(err);
  if (rc) {
    tree_applied_free(ap.v, ap.n);
    return rc;
  }
  if (ap.n > 1) qsort(ap.v, ap.n, sizeof *ap.v, applied_cmp);
  memcpy(out_root, h, sizeof h);
  *applied = ap.v;
  *n_applied = ap.n;
  return WEIR_OK;
}

/* ---- reads -------------------------------------------------------------------------- */

int tree_get(wr_catalog *cat, const char *root, const char *table, wr_table_entry *out,
             bool *found, weir_error *err) {
  *found = false;
  cache_trim(cat);
  uint8_t d[WEIR_SHA256_LEN];
  wr_sha256(table, strlen(table), d);
  const char *hash = root;
  for (int depth = 0;; depth++) {
    const tree_node *node = NULL;
    int rc = node_load(cat, hash, &node, err);
    if (rc) return rc;
    if (node->leaf) {
      size_t lo = 0, hi = (size_t)node->count;
      while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int cmp = strcmp(node->entries[mid].table, table);
        if (cmp == 0) {
          if (catalog_entry_copy(out, &node->entries[mid]) != WEIR_OK) return wr_oom(err);
          *found = true;
          return WEIR_OK;
        }
        if (cmp < 0) lo = mid + 1;
        else hi = mid;
      }
      return WEIR_OK;
    }
    if (depth >= MAX_DEPTH) return corrupt(cat, hash, "is an internal node too deep", err);
    hash = node->child[nibble(d, depth)];
    if (!hash[0]) return WEIR_OK;
  }
}

int tree_list(wr_catalog *cat, const char *root, wr_table_entry **out, size_t *n,
              weir_error *err) {
  cache_trim(cat);
  vvec vv = {0};
  int rc = gather(cat, root, &vv, err);
  if (rc) {
    free(vv.v);
    return rc;
  }
  if (vv.n > 1) qsort(vv.v, vv.n, sizeof *vv.v, eview_cmp);
  wr_table_entry *v = wr_calloc(vv.n ? vv.n : 1, sizeof *v);
  int bad = !v;
  for (size_t i = 0; i < vv.n && !bad; i++) bad = entry_from_view(&v[i], &vv.v[i]);
  free(vv.v);
  if (bad) {
    wr_table_entries_free(v, vv.n); /* calloc'd: entries not reached are all NULL */
    return wr_oom(err);
  }
  *out = v;
  *n = vv.n;
  return WEIR_OK;
}

/* ---- diff --------------------------------------------------------------------------- */

typedef struct dlist {
  tree_diff_item *v;
  size_t n, cap;
  int oom; /* sticky (see vvec): tree_diff checks it */
} dlist;

/* NULL for a NULL e; sets *oom when the copy fails. */
static wr_table_entry *entry_dup(const eview *e, int *oom) {
  if (!e) return NULL;
  wr_table_entry *x = wr_calloc(1, sizeof *x);
  if (!x || entry_from_view(x, e) != 0) {
    if (x) wr_table_entry_clear(x);
    free(x);
    *oom = 1;
    return NULL;
  }
  return x;
}

static void dlist_push(dlist *d, const eview *a, const eview *b) {
  if (d->oom) return;
  if (d->n == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 16;
    tree_diff_item *v = wr_realloc(d->v, cap * sizeof *d->v);
    if (!v) {
      d->oom = 1;
      return;
    }
    d->v = v;
    d->cap = cap;
  }
  /* Pushed even when a copy failed, so tree_diff_free frees what was made. */
  d->v[d->n++] = (tree_diff_item){wr_strdup(a ? a->table : b->table), entry_dup(a, &d->oom), entry_dup(b, &d->oom)};
  if (!d->v[d->n - 1].table) d->oom = 1;
}

void tree_diff_free(tree_diff_item *v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) {
    free(v[i].table);
    if (v[i].a) wr_table_entry_clear(v[i].a);
    if (v[i].b) wr_table_entry_clear(v[i].b);
    free(v[i].a);
    free(v[i].b);
  }
  free(v);
}

static int diff_rec(wr_catalog *cat, const char *ha, const char *hb, dlist *d,
                    weir_error *err) {
  if (strcmp(ha, hb) == 0) return WEIR_OK;
  const tree_node *na = NULL, *nb = NULL;
  int rc;
  if (ha[0] && (rc = node_load(cat, ha, &na, err))) return rc;
  if (hb[0] && (rc = node_load(cat, hb, &nb, err))) return rc;
  if (na && nb && !na->leaf && !nb->leaf) {
    for (int b = 0; b < TREE_FANOUT; b++)
      if ((rc = diff_rec(cat, na->child[b], nb->child[b], d, err))) return rc;
    return WEIR_OK;
  }
  /* A leaf on either side (or one side absent): compare the entries directly. The
   * subtree on the other side then differs in at least its size minus a leaf's. */
  vvec va = {0}, vb = {0};
  rc = WEIR_OK;
  if (na) rc = gather(cat, ha, &va, err);
  if (!rc && nb) rc = gather(cat, hb, &vb, err);
  if (!rc) {
    if (va.n > 1) qsort(va.v, va.n, sizeof *va.v, eview_cmp);
    if (vb.n > 1) qsort(vb.v, vb.n, sizeof *vb.v, eview_cmp);
    size_t i = 0, j = 0;
    while (i < va.n || j < vb.n) {
      int cmp = i == va.n ? 1 : j == vb.n ? -1 : strcmp(va.v[i].table, vb.v[j].table);
      if (cmp < 0) {
        dlist_push(d, &va.v[i++], NULL);
      } else if (cmp > 0) {
        dlist_push(d, NULL, &vb.v[j++]);
      } else {
        if (!eview_eq(&va.v[i], &vb.v[j])) dlist_push(d, &va.v[i], &vb.v[j]);
        i++;
        j++;
      }
    }
  }
  free(va.v);
  free(vb.v);
  return rc;
}

static int diff_item_cmp(const void *a, const void *b) {
  return strcmp(((const tree_diff_item *)a)->table, ((const tree_diff_item *)b)->table);
}

int tree_diff(wr_catalog *cat, const char *root_a, const char *root_b, tree_diff_item **out,
              size_t *n, weir_error *err) {
  cache_trim(cat);
  dlist d = {0};
  int rc = diff_rec(cat, root_a, root_b, &d, err);
  if (!rc && d.oom) rc = wr_oom(err);
  if (rc) {
    tree_diff_free(d.v, d.n);
    return rc;
  }
  if (d.n > 1) qsort(d.v, d.n, sizeof *d.v, diff_item_cmp);
  *out = d.v;
  *n = d.n;
  return WEIR_OK;
}
