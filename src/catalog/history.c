/*
 * history.c -- walks over the commit graph: log, ancestry, merge bases, REF~N.
 *
 * Every commit stores its generation number (1 + the largest of its parents'), so a
 * commit can only be an ancestor of commits with a larger generation. Walks use that to
 * stop early: is_ancestor visits only commits newer (by generation) than the candidate
 * ancestor, and the merge-base walk visits commits in decreasing generation, so a
 * commit's marks are final when it is visited and the walk ends as soon as only
 * ancestors of already-found common ancestors remain. Costs grow with the part of the
 * history between the commits involved, not with the length of the whole history.
 */
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"

/* ---- a binary heap of pointers ------------------------------------------------------ */

typedef int (*heap_less_fn)(const void *a, const void *b); /* a comes out first */

typedef struct heap {
  void **v;
  size_t n, cap;
  heap_less_fn before;
} heap;

/* -1 on OOM (x not pushed: the caller still owns it), or for a NULL x. */
static int heap_push(heap *h, void *x) {
  if (!x) return -1;
  if (h->n == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 32;
    void **v = wr_realloc(h->v, cap * sizeof *h->v);
    if (!v) return -1;
    h->v = v;
    h->cap = cap;
  }
  size_t i = h->n++;
  h->v[i] = x;
  while (i > 0) {
    size_t p = (i - 1) / 2;
    if (!h->before(h->v[i], h->v[p])) break;
    void *t = h->v[i];
    h->v[i] = h->v[p];
    h->v[p] = t;
    i = p;
  }
  return 0;
}

static void *heap_pop(heap *h) {
  if (!h->n) return NULL;
  void *top = h->v[0];
  h->v[0] = h->v[--h->n];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < h->n && h->before(h->v[l], h->v[m])) m = l;
    if (r < h->n && h->before(h->v[r], h->v[m])) m = r;
    if (m == i) break;
    void *t = h->v[i];
    h->v[i] = h->v[m];
    h->v[m] = t;
    i = m;
  }
  return top;
}

/* ---- log ---------------------------------------------------------------------------- */

/* Newest first: later time, then smaller hash. */
static int log_before(const void *a, const void *b) {
  const wr_commit_rec *x = a, *y = b;
  if (x->time_us != y->time_us) return x->time_us > y->time_us;
  return strcmp(x->hash, y->hash) < 0;
}

static void free_rec(void *p) {
  wr_commit_rec_clear(p);
  free(p);
}

int catalog_log(wr_catalog *cat, const char *head, int64_t max, wr_commit_rec **out,
                size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  heap h = {.before = log_before};
  hmap seen = HMAP_INIT;
  size_t len = 0, cap = 0;
  wr_commit_rec *v = NULL;
  wr_commit_rec *first = wr_calloc(1, sizeof *first);
  rc = first ? catalog_commit_get(cat, head ? head : "", first, err) : wr_oom(err);
  if (rc) {
    free(first);
  } else if (!hmap_put(&seen, first->hash, NULL) || heap_push(&h, first) != 0) {
    free_rec(first);
    rc = wr_oom(err);
  }
  while (!rc && h.n && (max <= 0 || (int64_t)len < max)) {
    wr_commit_rec *c = heap_pop(&h);
    for (int i = 0; i < c->n_parents && !rc; i++) {
      bool created = false;
      if (!hmap_put(&seen, c->parents[i], &created)) {
        rc = wr_oom(err);
        break;
      }
      if (!created) continue;
      wr_commit_rec *p = wr_calloc(1, sizeof *p);
      rc = p ? catalog_commit_get(cat, c->parents[i], p, err) : wr_oom(err);
      if (rc) {
        free(p);
        break;
      }
      if (heap_push(&h, p) != 0) {
        free_rec(p);
        rc = wr_oom(err);
      }
    }
    if (len == cap) {
      wr_commit_rec *nv = wr_realloc(v, (cap ? cap * 2 : 16) * sizeof *v);
      if (!nv) {
        free_rec(c);
        rc = wr_oom(err);
        break;
      }
      cap = cap ? cap * 2 : 16;
      v = nv;
    }
    v[len++] = *c; /* moves the strings */
    free(c);
  }
  for (size_t i = 0; i < h.n; i++) free_rec(h.v[i]);
  free(h.v);
  hmap_free(&seen, NULL);
  rc = catalog_read_end(cat, opened, rc, err);
  if (rc) {
    wr_commit_recs_free(v, len);
    return rc;
  }
  *out = v;
  *n = len;
  return WEIR_OK;
}

/* ---- ancestry ----------------------------------------------------------------------- */

typedef struct hvec {
  char (*v)[WEIR_HASH_LEN + 1];
  size_t n, cap;
} hvec;

/* -1 on OOM (nothing pushed). */
static int hvec_push(hvec *s, const char *h) {
  if (s->n == s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 32;
    char(*v)[WEIR_HASH_LEN + 1] = wr_realloc(s->v, cap * sizeof *s->v);
    if (!v) return -1;
    s->v = v;
    s->cap = cap;
  }
  memcpy(s->v[s->n++], h, WEIR_HASH_LEN + 1);
  return 0;
}

static int is_ancestor_walk(wr_catalog *cat, const char *anc, const char *desc, bool *out,
                            weir_error *err) {
  *out = false;
  commit_head ha, hd;
  int rc = catalog_head_get(cat, anc, &ha, err);
  if (!rc) rc = catalog_head_get(cat, desc, &hd, err);
  if (rc) return rc;
  if (strcmp(anc, desc) == 0) {
    *out = true;
    return WEIR_OK;
  }
  if (hd.generation <= ha.generation) return WEIR_OK;
  hvec stack = {0};
  hmap seen = HMAP_INIT;
  if (hvec_push(&stack, desc) != 0 || !hmap_put(&seen, desc, NULL)) rc = wr_oom(err);
  while (stack.n && !*out && !rc) {
    char x[WEIR_HASH_LEN + 1];
    memcpy(x, stack.v[--stack.n], sizeof x);
    commit_head hx;
    rc = catalog_head_get(cat, x, &hx, err);
    for (int i = 0; i < hx.n_parents && !rc; i++) {
      const char *p = hx.parents[i];
      if (strcmp(p, anc) == 0) {
        *out = true;
        break;
      }
      bool created = false;
      if (!hmap_put(&seen, p, &created)) {
        rc = wr_oom(err);
        break;
      }
      if (!created) continue;
      commit_head hp;
      rc = catalog_head_get(cat, p, &hp, err);
      /* Only commits of a larger generation than `anc` can lead to it. */
      if (!rc && hp.generation > ha.generation && hvec_push(&stack, p) != 0) rc = wr_oom(err);
    }
  }
  free(stack.v);
  hmap_free(&seen, NULL);
  return rc;
}

int catalog_is_ancestor(wr_catalog *cat, const char *ancestor, const char *descendant,
                        bool *out, weir_error *err) {
  *out = false;
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = is_ancestor_walk(cat, ancestor ? ancestor : "", descendant ? descendant : "", out, err);
  return catalog_read_end(cat, opened, rc, err);
}

/* ---- merge base --------------------------------------------------------------------- */

enum { MB_P1 = 1, MB_P2 = 2, MB_STALE = 4, MB_RESULT = 8 };

typedef struct mb_item {
  char hash[WEIR_HASH_LEN + 1];
  int64_t generation;
  int64_t time_us;
} mb_item;

/* Larger generation first (so descendants come before ancestors), then newer. */
static int mb_before(const void *a, const void *b) {
  const mb_item *x = a, *y = b;
  if (x->generation != y->generation) return x->generation > y->generation;
  if (x->time_us != y->time_us) return x->time_us > y->time_us;
  return strcmp(x->hash, y->hash) < 0;
}

/* NULL on OOM. */
static mb_item *mb_new(const char *hash, const commit_head *h) {
  mb_item *it = wr_malloc(sizeof *it);
  if (!it) return NULL;
  memcpy(it->hash, hash, WEIR_HASH_LEN + 1);
  it->generation = h->generation;
  it->time_us = h->time_us;
  return it;
}

static bool has_nonstale(const heap *q, const hmap *marks) {
  for (size_t i = 0; i < q->n; i++) {
    const hmap_slot *s = hmap_get(marks, ((const mb_item *)q->v[i])->hash);
    if (!s || !(s->flags & MB_STALE)) return true;
  }
  return false;
}

static int merge_base_walk(wr_catalog *cat, const char *a, const char *b,
                           char out[WEIR_HASH_LEN + 1], bool *found, weir_error *err) {
  *found = false;
  commit_head ha, hb;
  int rc = catalog_head_get(cat, a, &ha, err);
  if (!rc) rc = catalog_head_get(cat, b, &hb, err);
  if (rc) return rc;
  if (strcmp(a, b) == 0) {
    memcpy(out, a, WEIR_HASH_LEN + 1);
    *found = true;
    return WEIR_OK;
  }
  heap q = {.before = mb_before};
  hmap marks = HMAP_INIT;
  hmap_slot *sa = hmap_put(&marks, a, NULL);
  if (sa) sa->flags = MB_P1;
  hmap_slot *sb = sa ? hmap_put(&marks, b, NULL) : NULL;
  if (sb) sb->flags = MB_P2;
  mb_item *ia = mb_new(a, &ha), *ib = mb_new(b, &hb);
  if (!sb || heap_push(&q, ia) != 0) {
    free(ia);
    ia = NULL;
    rc = wr_oom(err);
  }
  if (!ia || heap_push(&q, ib) != 0) {
    free(ib);
    rc = wr_oom(err);
  }
  mb_item best = {0};
  while (!rc && has_nonstale(&q, &marks)) {
    mb_item *x = heap_pop(&q);
    hmap_slot *sx = hmap_get(&marks, x->hash);
    unsigned f = sx->flags & (MB_P1 | MB_P2 | MB_STALE);
    if (f == (MB_P1 | MB_P2)) {
      /* Reached from both sides and not below another common ancestor: a best common
       * ancestor. Among several, the latest time wins, ties to the smaller hash. */
      if (!(sx->flags & MB_RESULT)) {
        sx->flags |= MB_RESULT;
        if (!*found || x->time_us > best.time_us ||
            (x->time_us == best.time_us && strcmp(x->hash, best.hash) < 0))
          best = *x;
        *found = true;
      }
      f |= MB_STALE;
    }
    commit_head hx;
    rc = catalog_head_get(cat, x->hash, &hx, err);
    for (int i = 0; i < hx.n_parents && !rc; i++) {
      hmap_slot *sp = hmap_put(&marks, hx.parents[i], NULL);
      if (!sp) {
        rc = wr_oom(err);
        break;
      }
      if ((sp->flags & f) == f) continue;
      sp->flags |= f;
      commit_head hp;
      rc = catalog_head_get(cat, hx.parents[i], &hp, err);
      mb_item *ip = rc ? NULL : mb_new(hx.parents[i], &hp);
      if (!rc && heap_push(&q, ip) != 0) {
        free(ip);
        rc = wr_oom(err);
      }
    }
    free(x);
  }
  for (size_t i = 0; i < q.n; i++) free(q.v[i]);
  free(q.v);
  hmap_free(&marks, NULL);
  if (rc) {
    *found = false;
    return rc;
  }
  if (*found) memcpy(out, best.hash, WEIR_HASH_LEN + 1);
  return WEIR_OK;
}

int catalog_merge_base(wr_catalog *cat, const char *a, const char *b,
                       char out[WEIR_HASH_LEN + 1], bool *found, weir_error *err) {
  *found = false;
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = merge_base_walk(cat, a ? a : "", b ? b : "", out, found, err);
  return catalog_read_end(cat, opened, rc, err);
}

/* ---- REF~N -------------------------------------------------------------------------- */

int catalog_first_parent_ancestor(wr_catalog *cat, const char *hash, int64_t n,
                                  char out[WEIR_HASH_LEN + 1], weir_error *err) {
  if (n < 0) return wr_seterr(err, WEIR_EINVALIDARG, "~%lld: the number of steps must not be negative", (long long)n);
  char cur[WEIR_HASH_LEN + 1];
  commit_head h;
  int rc = catalog_head_get(cat, hash ? hash : "", &h, err);
  if (rc) return rc;
  memcpy(cur, hash, sizeof cur);
  for (int64_t i = 0; i < n; i++) {
    if (h.n_parents == 0) {
      char s[13];
      return wr_seterr(err, WEIR_ENOTFOUND,
                         "commit %s has only %lld first-parent ancestor%s, not %lld",
                         catalog_short(hash, s), (long long)i, i == 1 ? "" : "s", (long long)n);
    }
    memcpy(cur, h.parents[0], sizeof cur);
    rc = catalog_head_get(cat, cur, &h, err);
    if (rc) return rc;
  }
  memcpy(out, cur, sizeof cur);
  return WEIR_OK;
}
