/*
 * catalog.c -- opening and migrating a catalog, transactions, refs and ref resolution,
 * commits and table-map reads. Backend-independent: all SQL is behind catalog_backend.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog_internal.h"
#include "catalog/tree.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/names.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/utf8.h"

/* ---- opening ------------------------------------------------------------------------ */

static int parse_uri(const char *uri, char **path, weir_error *err) {
  if (!uri || !*uri) return wr_seterr(err, WEIR_EINVALIDARG, "no catalog location given");
  const char *p = uri;
  if (strncmp(p, "sqlite:", 7) == 0) {
    p += 7;
    if (strncmp(p, "//", 2) == 0) p += 2; /* sqlite:///abs/path */
  }
  if (!*p) return wr_seterr(err, WEIR_EINVALIDARG, "catalog location '%s' has no path", uri);
  *path = wr_strdup(p);
  if (!*path) return wr_oom(err);
  return WEIR_OK;
}

static int write_initial_commit(wr_catalog *cat, int64_t time_us, weir_error *err) {
  const catalog_backend_ops *ops = cat->be->ops;
  int rc = ops->node_put(cat->be, tree_empty_root(), tree_empty_body(), err);
  if (rc) return rc;
  wr_commit_rec c = {0};
  c.author = cat->author;
  c.message = "initial commit";
  c.time_us = time_us ? time_us : wr_now_us();
  c.properties = json_object();
  memcpy(c.tables_root, tree_empty_root(), WEIR_HASH_LEN + 1);
  c.generation = 1;
  char *canon = c.properties ? catalog_commit_canonical(&c) : NULL;
  if (!canon) {
    json_decref(c.properties);
    return wr_oom(err);
  }
  wr_sha256_hex(canon, strlen(canon), c.hash);
  free(canon);
  rc = ops->commit_put(cat->be, &c, err);
  json_decref(c.properties);
  if (rc) return rc;
  return ops->ref_create(cat->be, WEIR_REF_BRANCH, "main", c.hash, c.time_us, err);
}

static int create_catalog(wr_catalog *cat, int max_version, int64_t init_time_us,
                          weir_error *err) {
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  int v = 0;
  rc = cat->be->ops->probe(cat->be, &v, err);
  if (!rc && v > 0) rc = wr_seterr(err, WEIR_EEXISTS, "a catalog already exists at %s", cat->location);
  if (!rc && v < 0)
    rc = wr_seterr(err, WEIR_ECATALOG,
                     "%s is a database that is not a weir catalog: refusing to create one in it",
                     cat->location);
  size_t n = 0;
  const catalog_migration *steps = catalog_migrations(&n);
  for (size_t i = 0; i < n && !rc; i++)
    if (steps[i].version <= max_version) rc = cat->be->ops->migrate(cat->be, &steps[i], err);
  if (!rc) rc = write_initial_commit(cat, init_time_us, err);
  return catalog_tx_end(cat, rc, err);
}

static int migrate_catalog(wr_catalog *cat, int max_version, weir_error *err) {
  int v = 0;
  int rc = cat->be->ops->probe(cat->be, &v, err);
  if (rc) return rc;
  if (v == 0) return wr_seterr(err, WEIR_ENOTFOUND, "no catalog at %s (the database is empty)", cat->location);
  if (v < 0)
    return wr_seterr(err, WEIR_ECATALOG, "%s is a database but not a weir catalog", cat->location);
  int latest = catalog_schema_latest();
  if (v > latest)
    return wr_seterr(err, WEIR_ECATALOG,
                       "catalog %s has schema version %d, newer than this weir (%s) knows "
                       "(up to %d): upgrade weir to open it",
                       cat->location, v, WEIR_VERSION_STRING, latest);
  size_t n = 0;
  const catalog_migration *steps = catalog_migrations(&n);
  for (size_t i = 0; i < n; i++) {
    if (steps[i].version <= v || steps[i].version > max_version) continue;
    /* Each step in its own write transaction; re-check under the lock, since another
     * process may have applied it meanwhile. */
    rc = catalog_tx_begin(cat, true, err);
    if (rc) return rc;
    int cur = 0;
    rc = cat->be->ops->probe(cat->be, &cur, err);
    if (!rc && cur < steps[i].version) rc = cat->be->ops->migrate(cat->be, &steps[i], err);
    if (rc) wr_error_prefix(err, "migrating catalog %s to schema version %d", cat->location, steps[i].version);
    rc = catalog_tx_end(cat, rc, err);
    if (rc) return rc;
  }
  return WEIR_OK;
}

int catalog_open_at_version(const char *uri, bool create, const char *author, const wr_catalog_settings *settings,
                            int max_version, int64_t init_time_us, wr_catalog **out, weir_error *err) {
  *out = NULL;
  char *path = NULL;
  catalog_backend *be = NULL;
  int rc;
  if (catalog_is_postgres_uri(uri)) {
    /* path: where the catalog is, for messages (server, database, schema; no password). */
    rc = catalog_backend_postgres_open(uri, create, settings, &be, &path, err);
    if (rc) return rc;
  } else {
    rc = parse_uri(uri, &path, err);
    if (rc) return rc;
    rc = catalog_backend_sqlite_open(path, create, settings, &be, err);
    if (rc) {
      free(path);
      return rc;
    }
  }
  wr_catalog *cat = wr_calloc(1, sizeof *cat);
  if (!cat) {
    be->ops->close(be);
    free(path);
    return wr_oom(err);
  }
  cat->be = be;
  cat->location = path;
  /* The handle's author comes from its caller (the lake: weir_lake_options.author). */
  cat->author = wr_strdup(author && *author ? author : "weir");
  if (!cat->author) {
    catalog_close(cat);
    return wr_oom(err);
  }
  rc = create ? create_catalog(cat, max_version, init_time_us, err)
              : migrate_catalog(cat, max_version, err);
  if (rc) {
    catalog_close(cat);
    return rc;
  }
  *out = cat;
  return WEIR_OK;
}

int catalog_open(const char *uri, bool create, const char *author, wr_catalog **out,
                 weir_error *err) {
  return catalog_open_at_version(uri, create, author, NULL, catalog_schema_latest(), 0, out, err);
}

int catalog_open_with(const char *uri, bool create, const char *author, const wr_catalog_settings *settings,
                      wr_catalog **out, weir_error *err) {
  return catalog_open_at_version(uri, create, author, settings, catalog_schema_latest(), 0, out, err);
}

void catalog_close(wr_catalog *cat) {
  if (!cat) return;
  if (cat->tx_depth > 0) cat->be->ops->rollback(cat->be);
  cat->be->ops->close(cat->be);
  hmap_free(&cat->nodes, tree_node_free);
  hmap_free(&cat->heads, free);
  free(cat->location);
  free(cat->author);
  free(cat);
}

int catalog_schema_version(wr_catalog *cat) {
  int v = -1;
  if (cat->be->ops->probe(cat->be, &v, NULL) != WEIR_OK) return -1;
  return v;
}

/* ---- transactions ------------------------------------------------------------------- */

int catalog_tx_begin(wr_catalog *cat, bool write, weir_error *err) {
  if (cat->tx_depth == 0) {
    int rc = cat->be->ops->begin(cat->be, write, err);
    if (rc) return rc;
    cat->tx_write = write;
    cat->tx_depth = 1;
    return WEIR_OK;
  }
  if (write && !cat->tx_write)
    return wr_seterr(err, WEIR_ECATALOG,
                       "catalog %s: cannot write inside a read transaction (begin the outer "
                       "transaction as a write transaction)",
                       cat->location);
  int rc = cat->be->ops->savepoint(cat->be, cat->tx_depth, err);
  if (rc) return rc;
  cat->tx_depth++;
  return WEIR_OK;
}

int catalog_tx_commit(wr_catalog *cat, weir_error *err) {
  if (cat->tx_depth == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "catalog %s: commit without a transaction", cat->location);
  if (cat->tx_depth > 1) {
    cat->tx_depth--;
    return cat->be->ops->release(cat->be, cat->tx_depth, err);
  }
  cat->tx_depth = 0;
  int rc = cat->be->ops->commit(cat->be, err);
  if (rc) hmap_clear(&cat->heads, free);
  return rc;
}

void catalog_tx_rollback(wr_catalog *cat) {
  if (cat->tx_depth == 0) return;
  if (cat->tx_depth > 1) {
    cat->tx_depth--;
    cat->be->ops->rollback_to(cat->be, cat->tx_depth);
  } else {
    cat->tx_depth = 0;
    cat->be->ops->rollback(cat->be);
  }
  hmap_clear(&cat->heads, free);
}

int catalog_tx_end(wr_catalog *cat, int rc, weir_error *err) {
  if (rc == WEIR_OK) return catalog_tx_commit(cat, err);
  catalog_tx_rollback(cat);
  return rc;
}

int catalog_read_begin(wr_catalog *cat, bool *opened, weir_error *err) {
  *opened = false;
  if (cat->tx_depth > 0) return WEIR_OK;
  int rc = catalog_tx_begin(cat, false, err);
  if (!rc) *opened = true;
  return rc;
}

int catalog_read_end(wr_catalog *cat, bool opened, int rc, weir_error *err) {
  if (!opened) return rc;
  return catalog_tx_end(cat, rc, err);
}

/* ---- commit heads (cached) ---------------------------------------------------------- */

int catalog_head_get(wr_catalog *cat, const char *hash, commit_head *out, weir_error *err) {
  hmap_slot *s = hmap_get(&cat->heads, hash);
  if (s) {
    *out = *(const commit_head *)s->val;
    return WEIR_OK;
  }
  if (!catalog_is_full_hash(hash))
    return wr_seterr(err, WEIR_ENOTFOUND, "commit '%s' not found", hash);
  wr_commit_rec c;
  int rc = cat->be->ops->commit_get(cat->be, hash, &c, err);
  if (rc) return rc;
  commit_head *h = wr_calloc(1, sizeof *h);
  if (!h) {
    wr_commit_rec_clear(&c);
    return wr_oom(err);
  }
  memcpy(h->tables_root, c.tables_root, sizeof h->tables_root);
  memcpy(h->parents, c.parents, sizeof h->parents);
  h->n_parents = c.n_parents;
  h->generation = c.generation;
  h->time_us = c.time_us;
  wr_commit_rec_clear(&c);
  if (cat->heads.n >= CATALOG_HEAD_CACHE_MAX) hmap_clear(&cat->heads, free);
  *out = *h;
  hmap_slot *slot = hmap_put(&cat->heads, hash, NULL);
  if (slot) slot->val = h;
  else free(h); /* only a cache: the head read is still right */
  return WEIR_OK;
}

/* ---- refs --------------------------------------------------------------------------- */

int catalog_ref_get(wr_catalog *cat, wr_ref_kind kind, const char *name,
                    char out[WEIR_HASH_LEN + 1], weir_error *err) {
  if (!name || !*name) return wr_seterr(err, WEIR_EINVALIDARG, "empty %s name", kind == WEIR_REF_TAG ? "tag" : "branch");
  return cat->be->ops->ref_get(cat->be, kind, name, out, err);
}

int catalog_ref_list(wr_catalog *cat, wr_ref_kind kind, wr_ref_rec **out, size_t *n,
                     weir_error *err) {
  return cat->be->ops->ref_list(cat->be, kind, out, n, err);
}

static const char *kind_word(wr_ref_kind kind) { return kind == WEIR_REF_TAG ? "tag" : "branch"; }

int catalog_ref_create(wr_catalog *cat, wr_ref_kind kind, const char *name,
                       const char *target, weir_error *err) {
  if (!name || !*name) return wr_seterr(err, WEIR_EINVALIDARG, "empty %s name", kind_word(kind));
  if (!catalog_is_full_hash(target))
    return wr_seterr(err, WEIR_ENOTFOUND, "cannot create %s '%s': commit '%s' not found",
                       kind_word(kind), name, target ? target : "(null)");
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  commit_head h;
  rc = catalog_head_get(cat, target, &h, err);
  if (rc == WEIR_ENOTFOUND)
    wr_seterr(err, rc, "cannot create %s '%s': commit %s not found", kind_word(kind), name, target);
  /* Under the write lock, so gc cannot mark the commit between this check and the insert. */
  if (!rc) rc = catalog_check_not_expired(cat, target, target, err);
  if (!rc) rc = cat->be->ops->ref_create(cat->be, kind, name, target, wr_now_us(), err);
  return catalog_tx_end(cat, rc, err);
}

int catalog_ref_delete(wr_catalog *cat, wr_ref_kind kind, const char *name,
                       weir_error *err) {
  if (!name || !*name) return wr_seterr(err, WEIR_EINVALIDARG, "empty %s name", kind_word(kind));
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  rc = cat->be->ops->ref_delete(cat->be, kind, name, err);
  return catalog_tx_end(cat, rc, err);
}

/* CAS inside the caller's write transaction. */
static int branch_cas_locked(wr_catalog *cat, const char *name, const char *expected,
                             const char *target, weir_error *err) {
  bool swapped = false;
  /* A branch never moves to a commit gc marked (a fast-forward planned before gc ran). */
  int rc = catalog_check_not_expired(cat, target, target, err);
  if (rc) return rc;
  rc = cat->be->ops->ref_cas(cat->be, name, expected, target, wr_now_us(), &swapped, err);
  if (rc || swapped) return rc;
  char cur[WEIR_HASH_LEN + 1];
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, name, cur, err);
  if (rc) return rc;
  char a[13], b[13];
  return wr_seterr(err, WEIR_ECONCURRENT,
                     "branch '%s' moved: expected its head at %s, found %s (another writer "
                     "updated it; re-read and retry)",
                     name, catalog_short(expected, a), catalog_short(cur, b));
}

int catalog_branch_cas(wr_catalog *cat, const char *name, const char *expected,
                       const char *target, weir_error *err) {
  if (!name || !*name) return wr_seterr(err, WEIR_EINVALIDARG, "empty branch name");
  if (!catalog_is_full_hash(expected) || !catalog_is_full_hash(target))
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "moving branch '%s': expected and new heads must be full commit hashes", name);
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  commit_head h;
  rc = catalog_head_get(cat, target, &h, err);
  if (rc == WEIR_ENOTFOUND)
    wr_seterr(err, rc, "cannot move branch '%s': commit %s not found", name, target);
  if (!rc) rc = branch_cas_locked(cat, name, expected, target, err);
  return catalog_tx_end(cat, rc, err);
}

/* ---- resolving refs ----------------------------------------------------------------- */

static bool all_hex(const char *s) {
  if (!*s) return false;
  for (; *s; s++)
    if (!isxdigit((unsigned char)*s)) return false;
  return true;
}

#define PREFIX_CANDIDATES_MAX 10

static int resolve_base(wr_catalog *cat, const char *ref, const char *base,
                        char out[WEIR_HASH_LEN + 1], weir_error *err) {
  /* Not-found on the way is expected: it must not leave a message behind on success. */
  int rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, base, out, err);
  if (rc != WEIR_ENOTFOUND) return rc;
  weir_error_clear(err);
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_TAG, base, out, err);
  if (rc != WEIR_ENOTFOUND) return rc;
  weir_error_clear(err);
  size_t len = strlen(base);
  if (len >= 7 && len <= WEIR_HASH_LEN && all_hex(base)) {
    char lower[WEIR_HASH_LEN + 1];
    for (size_t i = 0; i <= len; i++) lower[i] = (char)tolower((unsigned char)base[i]);
    if (len == WEIR_HASH_LEN) {
      commit_head h;
      rc = catalog_head_get(cat, lower, &h, err);
      if (rc == WEIR_ENOTFOUND)
        return wr_seterr(err, rc, "ref '%s' not found: no branch, tag or commit has that name", ref);
      if (rc) return rc;
      memcpy(out, lower, WEIR_HASH_LEN + 1);
      return WEIR_OK;
    }
    char cand[PREFIX_CANDIDATES_MAX + 1][WEIR_HASH_LEN + 1];
    size_t n = 0;
    rc = cat->be->ops->commit_prefix(cat->be, lower, cand, PREFIX_CANDIDATES_MAX + 1, &n, err);
    if (rc) return rc;
    if (n == 1) {
      memcpy(out, cand[0], WEIR_HASH_LEN + 1);
      return WEIR_OK;
    }
    if (n > 1) {
      wr_buf b = WEIR_BUF_INIT;
      json_t *details = json_array();
      int bad = !details;
      for (size_t i = 0; i < n && i < PREFIX_CANDIDATES_MAX; i++) {
        wr_buf_printf(&b, "%s%s", i ? ", " : "", cand[i]);
        bad |= json_array_append_new(details, json_pack("{s:s}", "commit", cand[i]));
      }
      if (n > PREFIX_CANDIDATES_MAX) wr_buf_puts(&b, ", ...");
      if (bad || wr_buf_status(&b) != WEIR_OK) {
        json_decref(details);
        wr_buf_free(&b);
        return wr_oom(err);
      }
      rc = wr_seterr(err, WEIR_EINVALIDARG,
                  "ref '%s' is ambiguous: %s%zu commits start with %s: %s (give more digits)",
                  ref, n > PREFIX_CANDIDATES_MAX ? "more than " : "",
                  n > PREFIX_CANDIDATES_MAX ? (size_t)PREFIX_CANDIDATES_MAX : n, lower,
                  wr_buf_cstr(&b));
      if (rc == WEIR_EINVALIDARG) wr_error_set_details(err, details);
      else json_decref(details);
      wr_buf_free(&b);
      return err ? err->code : rc;
    }
  }
  /* A name no branch or tag can ever have ("a..b", "bad name") is a mistake in the
   * command, not something that may exist later: a usage error (exit 2) saying why, not
   * "not found" (exit 1), which a script may read as "not yet". */
  weir_error why = {0};
  if (wr_ref_name_check(base, "branch or tag", &why) != WEIR_OK) {
    const char *reason = strstr(why.message, ": ");
    wr_seterr(err, WEIR_EINVALIDNAME,
              "ref '%s' can never exist: it is not a commit hash, and no branch or tag can have that name%s", ref,
              reason ? reason : "");
    weir_error_clear(&why);
    return WEIR_EINVALIDNAME;
  }
  return wr_seterr(err, WEIR_ENOTFOUND,
                     "ref '%s' not found: no branch, tag or commit (hash or prefix of at least "
                     "7 hex digits) has that name",
                     ref);
}

/* A commit gc marked may have lost its files: it resolves for nobody (no read, no new ref,
 * no merge can name it), with a message that says what happened rather than "not found".
 * Refs never point at a marked commit (gc marks none a ref names, and this check keeps
 * new refs off them), so only hashes and REF~N reach here marked. */
int catalog_check_not_expired(wr_catalog *cat, const char *ref, const char *hash, weir_error *err) {
  int64_t when = 0;
  char *reason = NULL;
  bool found = false;
  int rc = catalog_commit_expiry(cat, hash, &when, &reason, &found, err);
  if (rc || !found) return rc;
  char date[32];
  time_t secs = (time_t)(when / 1000000);
  struct tm tm;
  gmtime_r(&secs, &tm);
  strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", &tm);
  bool expired = strcmp(reason, "expired") == 0;
  /* Name the ref as given unless it is (a prefix of) the hash itself. */
  bool is_hash = strncmp(hash, ref, strlen(ref)) == 0;
  rc = wr_seterr(err, WEIR_ENOTFOUND,
                 "commit %.12s was %s by gc on %s%s%s: its files may be deleted, so it can no longer be read (%s)",
                 hash, expired ? "expired" : "collected", date, is_hash ? "" : "; it is ", is_hash ? "" : ref,
                 expired ? "weir gc --expire-before" : "no branch or tag reached it");
  json_t *d = json_pack("[{s:s,s:s,s:s,s:I}]", "commit", hash, "ref", ref, "reason", reason, "expired_us",
                        (json_int_t)when);
  if (!d) rc = wr_oom(err);
  else if (rc == WEIR_ENOTFOUND) wr_error_set_details(err, d);
  else json_decref(d);
  free(reason);
  return err ? err->code : rc;
}

int catalog_resolve(wr_catalog *cat, const char *ref, char out[WEIR_HASH_LEN + 1],
                    weir_error *err) {
  if (!ref || !*ref) return wr_seterr(err, WEIR_EINVALIDARG, "empty ref");
  const char *tilde = strchr(ref, '~');
  size_t base_len = tilde ? (size_t)(tilde - ref) : strlen(ref);
  if (base_len == 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "malformed ref '%s': nothing before '~'", ref);
  int64_t steps = 0;
  for (const char *p = tilde; p && *p;) {
    if (*p != '~')
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "malformed ref '%s': expected REF~N with N a non-negative number", ref);
    p++;
    if (!isdigit((unsigned char)*p)) {
      /* "~" alone means ~1, as in git */
      if (steps == INT64_MAX)
        return wr_seterr(err, WEIR_EINVALIDARG, "malformed ref '%s': ~N is too large", ref);
      steps++;
      continue;
    }
    int64_t n = 0;
    while (isdigit((unsigned char)*p)) {
      if (n > (INT64_MAX - 9) / 10)
        return wr_seterr(err, WEIR_EINVALIDARG, "malformed ref '%s': ~N is too large", ref);
      n = n * 10 + (*p++ - '0');
    }
    if (steps > INT64_MAX - n)
      return wr_seterr(err, WEIR_EINVALIDARG, "malformed ref '%s': ~N is too large", ref);
    steps += n;
  }
  char *base = wr_strndup(ref, base_len);
  if (!base) return wr_oom(err);
  int rc = resolve_base(cat, ref, base, out, err);
  free(base);
  if (rc) return rc;
  if (steps > 0) {
    char anc[WEIR_HASH_LEN + 1];
    rc = catalog_first_parent_ancestor(cat, out, steps, anc, err);
    if (rc == WEIR_ENOTFOUND) wr_error_prefix(err, "ref '%s' not found", ref);
    if (rc) return rc;
    memcpy(out, anc, sizeof anc);
  }
  return catalog_check_not_expired(cat, ref, out, err);
}

/* ---- commits ------------------------------------------------------------------------ */

int catalog_commit_get(wr_catalog *cat, const char *hash, wr_commit_rec *out,
                       weir_error *err) {
  memset(out, 0, sizeof *out);
  if (!catalog_is_full_hash(hash))
    return wr_seterr(err, WEIR_ENOTFOUND, "commit '%s' not found", hash ? hash : "(null)");
  return cat->be->ops->commit_get(cat->be, hash, out, err);
}

static bool valid_utf8(const char *s) { return wr_utf8_valid(s, strlen(s)); }

static int check_request(const wr_commit_request *req, weir_error *err) {
  if (!req || !req->branch || !*req->branch)
    return wr_seterr(err, WEIR_EINVALIDARG, "a commit needs a branch");
  if (!catalog_is_full_hash(req->expected_head))
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "committing to branch '%s': expected_head '%s' is not a full commit hash",
                       req->branch, req->expected_head ? req->expected_head : "(null)");
  if (req->second_parent && !catalog_is_full_hash(req->second_parent))
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "committing to branch '%s': second parent '%s' is not a full commit hash",
                       req->branch, req->second_parent);
  if (req->n_changes && !req->changes)
    return wr_seterr(err, WEIR_EINVALIDARG, "committing to branch '%s': changes missing", req->branch);
  for (size_t i = 0; i < req->n_changes; i++) {
    const wr_table_change *c = &req->changes[i];
    if (!c->table || !*c->table || !valid_utf8(c->table))
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "committing to branch '%s': change %zu has no valid table name",
                         req->branch, i + 1);
    if (c->metadata_location && (!*c->metadata_location || !valid_utf8(c->metadata_location)))
      return wr_seterr(err, WEIR_EINVALIDARG,
                         "committing to branch '%s': table %s has an empty or non-UTF-8 "
                         "metadata location",
                         req->branch, c->table);
  }
  if (req->properties) {
    if (!json_is_object(req->properties))
      return wr_seterr(err, WEIR_EINVALIDARG, "commit properties must be a JSON object");
    const char *k;
    json_t *v;
    json_object_foreach(req->properties, k, v) {
      if (!json_is_string(v))
        return wr_seterr(err, WEIR_EINVALIDARG,
                           "commit property '%s' is not a string (properties are a string map)", k);
    }
  }
  if ((req->author && !valid_utf8(req->author)) || (req->message && !valid_utf8(req->message)) ||
      (req->run_id && !valid_utf8(req->run_id)))
    return wr_seterr(err, WEIR_EINVALIDARG, "commit author, message and run id must be UTF-8");
  return WEIR_OK;
}

static int commit_locked(wr_catalog *cat, const wr_commit_request *req,
                         char out_hash[WEIR_HASH_LEN + 1], weir_error *err) {
  const catalog_backend_ops *ops = cat->be->ops;
  char head[WEIR_HASH_LEN + 1];
  int rc = ops->ref_get(cat->be, WEIR_REF_BRANCH, req->branch, head, err);
  if (rc) return rc;
  if (strcmp(head, req->expected_head) != 0) {
    char a[13], b[13];
    return wr_seterr(err, WEIR_ECONCURRENT,
                       "branch '%s' moved: expected its head at %s, found %s (another writer "
                       "committed first; re-read and retry)",
                       req->branch, catalog_short(req->expected_head, a), catalog_short(head, b));
  }
  /* A protected branch takes merges only (access.c); checked under the write lock, so a
   * branch protected after this writer read its head still refuses the commit. */
  if (!req->second_parent) {
    bool prot = false;
    if ((rc = ops->protect_get(cat->be, req->branch, &prot, err))) return rc;
    if (prot) {
      wr_seterr(err, WEIR_EINVALIDARG,
                "branch %s is protected: it takes only merges (weir merge SOURCE --into %s), not "
                "direct commits; nothing was committed",
                req->branch, req->branch);
      wr_error_add_detail(err, json_pack("{s:s,s:s}", "kind", "protected_branch", "branch", req->branch));
      return WEIR_EINVALIDARG;
    }
  }
  commit_head p1, p2;
  rc = catalog_head_get(cat, req->expected_head, &p1, err);
  if (rc) return rc;
  int64_t gen = p1.generation;
  if (req->second_parent) {
    rc = catalog_head_get(cat, req->second_parent, &p2, err);
    if (rc == WEIR_ENOTFOUND)
      return wr_seterr(err, rc, "committing to branch '%s': second parent %s not found",
                         req->branch, req->second_parent);
    if (rc) return rc;
    /* A merge planned before gc marked its source must not resurrect it. */
    if ((rc = catalog_check_not_expired(cat, req->second_parent, req->second_parent, err))) return rc;
    if (p2.generation > gen) gen = p2.generation;
  }
  if (req->copies_from && (rc = catalog_check_not_expired(cat, req->copies_from, req->copies_from, err))) return rc;

  wr_commit_rec c = {0};
  tree_applied *applied = NULL;
  size_t n_applied = 0;
  rc = tree_apply(cat, p1.tables_root, req->changes, req->n_changes, c.tables_root, &applied,
                  &n_applied, err);
  if (rc) return rc;

  memcpy(c.parents[0], req->expected_head, WEIR_HASH_LEN + 1);
  c.n_parents = 1;
  if (req->second_parent) {
    memcpy(c.parents[1], req->second_parent, WEIR_HASH_LEN + 1);
    c.n_parents = 2;
  }
  c.author = (char *)(req->author ? req->author : cat->author);
  c.message = (char *)(req->message ? req->message : "");
  c.time_us = req->time_us ? req->time_us : wr_now_us();
  c.properties = req->properties ? json_deep_copy(req->properties) : json_object();
  int bad = !c.properties;
  /* A run records its id in the hashed properties, so the hash covers who wrote it. */
  if (req->run_id && !json_object_get(c.properties, "run_id"))
    bad |= json_object_set_new(c.properties, "run_id", json_string(req->run_id));
  c.generation = gen + 1;
  c.run_id = (char *)req->run_id;
  char *canon = bad ? NULL : catalog_commit_canonical(&c);
  if (!canon) {
    json_decref(c.properties);
    tree_applied_free(applied, n_applied);
    return wr_oom(err);
  }
  wr_sha256_hex(canon, strlen(canon), c.hash);
  free(canon);

  rc = ops->commit_put(cat->be, &c, err);
  for (size_t i = 0; i < n_applied && !rc; i++) {
    rc = ops->changes_put(cat->be, c.hash, applied[i].table, applied[i].kind, err);
    /* A namespace entry's content is its properties, not a file: no provenance. */
    if (!rc && applied[i].metadata_location && !catalog_key_is_namespace(applied[i].table))
      rc = ops->version_put(cat->be, applied[i].metadata_location, applied[i].table, c.hash,
                            req->run_id, err);
  }
  if (!rc) rc = branch_cas_locked(cat, req->branch, req->expected_head, c.hash, err);
  if (!rc) memcpy(out_hash, c.hash, WEIR_HASH_LEN + 1);
  json_decref(c.properties);
  tree_applied_free(applied, n_applied);
  return rc;
}

int catalog_commit(wr_catalog *cat, const wr_commit_request *req,
                   char out_hash[WEIR_HASH_LEN + 1], weir_error *err) {
  /* What the commit records was built by code that may not check every json_* call. */
  if (wr_json_failed_since_mark()) return wr_oom(err);
  int rc = check_request(req, err);
  if (rc) return rc;
  rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  rc = commit_locked(cat, req, out_hash, err);
  if (rc == WEIR_OK) rc = WEIR_FAILPOINT("catalog.commit.before", err);
  rc = catalog_tx_end(cat, rc, err);
  if (rc == WEIR_OK) rc = WEIR_FAILPOINT("catalog.commit.after", err);
  return rc;
}

int catalog_version_origin(wr_catalog *cat, const char *metadata_location, char out[WEIR_HASH_LEN + 1],
                           weir_error *err) {
  out[0] = 0;
  catalog_table_version v;
  bool found = false;
  int rc = cat->be->ops->version_get(cat->be, metadata_location, &v, &found, err);
  if (rc || !found) return rc;
  memcpy(out, v.commit, WEIR_HASH_LEN + 1);
  catalog_table_version_clear(&v);
  return WEIR_OK;
}

/* ---- table maps --------------------------------------------------------------------- */

bool catalog_key_is_namespace(const char *key) { return key && !strchr(key, '.'); }

/* Keeps, in place, the entries that are namespaces (`namespaces`) or tables (!namespaces). */
static void keep_entries(wr_table_entry **v, size_t *n, bool namespaces) {
  size_t k = 0;
  for (size_t i = 0; i < *n; i++) {
    if (catalog_key_is_namespace((*v)[i].table) == namespaces)
      (*v)[k++] = (*v)[i];
    else
      wr_table_entry_clear(&(*v)[i]);
  }
  *n = k;
  if (k == 0) {
    free(*v);
    *v = NULL;
  }
}

static int commit_root(wr_catalog *cat, const char *hash, char root[WEIR_HASH_LEN + 1],
                       weir_error *err) {
  commit_head h;
  int rc = catalog_head_get(cat, hash ? hash : "", &h, err);
  if (rc) return rc;
  memcpy(root, h.tables_root, WEIR_HASH_LEN + 1);
  return WEIR_OK;
}

int catalog_table_get(wr_catalog *cat, const char *hash, const char *table,
                      wr_table_entry *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  if (!table || !*table) return wr_seterr(err, WEIR_EINVALIDARG, "empty table name");
  char root[WEIR_HASH_LEN + 1];
  int rc = commit_root(cat, hash, root, err);
  if (rc) return rc;
  bool found = false;
  rc = tree_get(cat, root, table, out, &found, err);
  if (rc) return rc;
  if (!found) {
    char s[13];
    return wr_seterr(err, WEIR_ENOTFOUND, "table %s not found at commit %s", table,
                       catalog_short(hash, s));
  }
  return WEIR_OK;
}

/* The entries of commit `hash`'s trie that are namespaces (or, !namespaces, tables). */
static int entries_of(wr_catalog *cat, const char *hash, bool namespaces, wr_table_entry **out, size_t *n,
                      weir_error *err) {
  *out = NULL;
  *n = 0;
  char root[WEIR_HASH_LEN + 1];
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = commit_root(cat, hash, root, err);
  if (!rc) rc = tree_list(cat, root, out, n, err);
  rc = catalog_read_end(cat, opened, rc, err);
  if (!rc) keep_entries(out, n, namespaces);
  return rc;
}

int catalog_tables(wr_catalog *cat, const char *hash, wr_table_entry **out, size_t *n,
                   weir_error *err) {
  return entries_of(cat, hash, false, out, n, err);
}

int catalog_namespace_entries(wr_catalog *cat, const char *hash, wr_table_entry **out, size_t *n,
                              weir_error *err) {
  return entries_of(cat, hash, true, out, n, err);
}

int catalog_diff(wr_catalog *cat, const char *hash_a, const char *hash_b, catalog_diff_fn fn,
                 void *ctx, weir_error *err) {
  char ra[WEIR_HASH_LEN + 1], rb[WEIR_HASH_LEN + 1];
  tree_diff_item *items = NULL;
  size_t n = 0;
  bool opened = false;
  int rc = catalog_read_begin(cat, &opened, err);
  if (rc) return rc;
  rc = commit_root(cat, hash_a, ra, err);
  if (!rc) rc = commit_root(cat, hash_b, rb, err);
  if (!rc) rc = tree_diff(cat, ra, rb, &items, &n, err);
  rc = catalog_read_end(cat, opened, rc, err);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++)
    if (!catalog_key_is_namespace(items[i].table) && fn(items[i].table, items[i].a, items[i].b, ctx)) break;
  tree_diff_free(items, n);
  return WEIR_OK;
}

int catalog_commit_changes(wr_catalog *cat, const char *hash, json_t **out, weir_error *err) {
  *out = NULL;
  commit_head h;
  int rc = catalog_head_get(cat, hash ? hash : "", &h, err);
  if (rc) return rc;
  return cat->be->ops->changes_get(cat->be, hash, out, err);
}
