/*
 * access.c -- who may reach the lake from outside (bearer tokens for `weir serve`), which
 * branches take only merges, and the lake-wide namespaces older catalogs created (weir
 * creates versioned ones now, as trie entries: catalog.h, manage.c; these rows keep
 * existing at every ref, docs/catalog.md).
 *
 * Invariants:
 *   - A token's secret is shown once, when it is made, and never stored: the catalog
 *     keeps its SHA-256. Looking a secret up hashes it first, so a lookup's time and the
 *     index it probes depend on the hash, not on how much of the secret an attacker got
 *     right.
 *   - A revoked token keeps its row (revoked_us set): it can never be valid again, and
 *     its name stays taken so that logs naming it stay unambiguous.
 *   - Protection is checked inside the commit's write transaction (catalog.c), so a
 *     branch protected after a writer read its head still refuses that writer's commit.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog/catalog_internal.h"
#include "util/clock.h"
#include "util/hash.h"
#include "util/json.h"
#include "util/names.h"
#include "util/uuid.h"

void catalog_token_row_clear(catalog_token_row *r) {
  if (!r) return;
  free(r->name);
  free(r->branches);
  memset(r, 0, sizeof *r);
}

void catalog_token_rows_free(catalog_token_row *v, size_t n) {
  for (size_t i = 0; i < n; i++) catalog_token_row_clear(&v[i]);
  free(v);
}

int catalog_token_create(wr_catalog *cat, const char *name, bool read_only, const char *branches,
                         char secret[CATALOG_TOKEN_SECRET_SIZE], catalog_token_row *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  secret[0] = 0;
  if (branches && !*branches)
    return wr_seterr(err, WEIR_EINVALIDARG, "--branches: empty pattern (omit it to allow every branch)");
  if (name && (*name == 0 || strlen(name) > WEIR_NAME_MAX))
    return wr_seterr(err, WEIR_EINVALIDNAME, "token name must be 1 to %d bytes", WEIR_NAME_MAX);
  for (const char *p = name; p && *p; p++)
    if ((unsigned char)*p < 0x21 || *p == 0x7f)
      return wr_seterr(err, WEIR_EINVALIDNAME, "token name \"%s\": no spaces or control characters", name);
  uint8_t raw[32];
  wr_random_bytes(raw, sizeof raw);
  char hex[65];
  wr_hex_encode(raw, sizeof raw, hex);
  char s[CATALOG_TOKEN_SECRET_SIZE];
  snprintf(s, sizeof s, "weir_%s", hex);
  catalog_token_row r = {0};
  wr_sha256_hex(s, strlen(s), r.secret_sha256);
  r.name = name ? wr_strdup(name) : wr_asprintf("token-%.8s", r.secret_sha256);
  r.read_only = read_only;
  r.branches = branches ? wr_strdup(branches) : NULL;
  r.created_us = wr_now_us();
  int rc = !r.name || (branches && !r.branches) ? wr_oom(err) : catalog_tx_begin(cat, true, err);
  if (rc == WEIR_OK) {
    rc = cat->be->ops->token_put(cat->be, &r, err);
    rc = catalog_tx_end(cat, rc, err);
  }
  if (rc) {
    catalog_token_row_clear(&r);
    return rc;
  }
  memcpy(secret, s, sizeof s);
  *out = r;
  return WEIR_OK;
}

int catalog_token_verify(wr_catalog *cat, const char *secret, catalog_token_row *out, bool *found,
                         weir_error *err) {
  memset(out, 0, sizeof *out);
  *found = false;
  if (!secret || !*secret) return WEIR_OK;
  char h[WEIR_HASH_LEN + 1];
  wr_sha256_hex(secret, strlen(secret), h);
  catalog_token_row r;
  bool got = false;
  int rc = cat->be->ops->token_find(cat->be, h, &r, &got, err);
  if (rc || !got) return rc;
  if (r.revoked_us) {
    catalog_token_row_clear(&r);
    return WEIR_OK;
  }
  *out = r;
  *found = true;
  return WEIR_OK;
}

int catalog_token_list(wr_catalog *cat, catalog_token_row **out, size_t *n, weir_error *err) {
  return cat->be->ops->token_list(cat->be, out, n, err);
}

int catalog_token_revoke(wr_catalog *cat, const char *name, weir_error *err) {
  if (!name || !*name) return wr_seterr(err, WEIR_EINVALIDARG, "token revoke: empty name");
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  bool found = false;
  rc = cat->be->ops->token_revoke(cat->be, name, wr_now_us(), &found, err);
  if (rc == WEIR_OK && !found) rc = wr_seterr(err, WEIR_ENOTFOUND, "no valid token named \"%s\"", name);
  return catalog_tx_end(cat, rc, err);
}

bool catalog_token_allows_ref(const catalog_token_row *t, const char *ref, bool is_hash) {
  if (!t->branches) return true;
  if (is_hash) return false; /* a hash could name any branch's commits */
  return fnmatch(t->branches, ref, 0) == 0;
}

int catalog_branch_protect(wr_catalog *cat, const char *branch, bool on, weir_error *err) {
  if (!branch || !*branch) return wr_seterr(err, WEIR_EINVALIDARG, "empty branch name");
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  char head[WEIR_HASH_LEN + 1];
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, branch, head, err);
  if (rc == WEIR_ENOTFOUND) rc = wr_seterr(err, WEIR_ENOTFOUND, "branch %s not found", branch);
  if (rc == WEIR_OK) rc = cat->be->ops->protect_set(cat->be, branch, on, wr_now_us(), err);
  /* A gate without protection would gate nothing (a direct commit skips merges): off
   * drops the branch's checks with its protection. */
  if (rc == WEIR_OK && !on) rc = cat->be->ops->checks_set(cat->be, branch, NULL, 0, wr_now_us(), err);
  return catalog_tx_end(cat, rc, err);
}

int catalog_branch_require_checks(wr_catalog *cat, const char *branch, const char *const *projects, size_t n,
                                  weir_error *err) {
  if (!branch || !*branch) return wr_seterr(err, WEIR_EINVALIDARG, "empty branch name");
  for (size_t i = 0; i < n; i++)
    if (!projects[i] || !*projects[i])
      return wr_seterr(err, WEIR_EINVALIDARG, "--require-check: empty project path (argument %zu)", i + 1);
  /* Each project once, in the order given (the gate reports them in that order). */
  const char **uniq = wr_calloc(n ? n : 1, sizeof *uniq);
  if (!uniq) return wr_oom(err);
  size_t nu = 0;
  for (size_t i = 0; i < n; i++) {
    bool seen = false;
    for (size_t j = 0; j < nu && !seen; j++) seen = strcmp(uniq[j], projects[i]) == 0;
    if (!seen) uniq[nu++] = projects[i];
  }
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) {
    free(uniq);
    return rc;
  }
  char head[WEIR_HASH_LEN + 1];
  int64_t now = wr_now_us();
  rc = cat->be->ops->ref_get(cat->be, WEIR_REF_BRANCH, branch, head, err);
  if (rc == WEIR_ENOTFOUND) rc = wr_seterr(err, WEIR_ENOTFOUND, "branch %s not found", branch);
  if (rc == WEIR_OK) rc = cat->be->ops->protect_set(cat->be, branch, true, now, err);
  if (rc == WEIR_OK) rc = cat->be->ops->checks_set(cat->be, branch, uniq, nu, now, err);
  free(uniq);
  return catalog_tx_end(cat, rc, err);
}

int catalog_branch_checks(wr_catalog *cat, const char *branch, char ***projects, size_t *n, weir_error *err) {
  *projects = NULL;
  *n = 0;
  return cat->be->ops->checks_get(cat->be, branch, projects, n, err);
}

int catalog_branch_protected(wr_catalog *cat, const char *branch, bool *on, weir_error *err) {
  *on = false;
  return cat->be->ops->protect_get(cat->be, branch, on, err);
}

static int props_text(json_t *properties, char **out, weir_error *err) {
  *out = NULL;
  if (properties && !json_is_object(properties))
    return wr_seterr(err, WEIR_EINVALIDARG, "namespace properties must be an object of strings");
  const char *k;
  json_t *v;
  json_object_foreach(properties, k, v) {
    if (!json_is_string(v))
      return wr_seterr(err, WEIR_EINVALIDARG, "namespace property \"%s\" is not a string", k);
  }
  json_t *empty = properties ? NULL : json_object();
  *out = properties || empty ? wr_json_canonical(properties ? properties : empty) : NULL;
  json_decref(empty);
  if (!*out) return wr_oom(err);
  return WEIR_OK;
}

int catalog_namespace_get(wr_catalog *cat, const char *name, json_t **props, weir_error *err) {
  *props = NULL;
  char *text = NULL;
  bool found = false;
  int rc = cat->be->ops->namespace_get(cat->be, name, &text, &found, err);
  if (rc || !found) return rc;
  json_error_t je;
  bool oom = false;
  *props = wr_json_loads(text, 0, &je, &oom);
  free(text);
  if (oom) return wr_oom(err);
  if (!json_is_object(*props)) {
    json_decref(*props);
    *props = json_object();
    if (!*props) return wr_oom(err);
  }
  return WEIR_OK;
}

int catalog_namespace_list(wr_catalog *cat, char ***names, size_t *n, weir_error *err) {
  return cat->be->ops->namespace_list(cat->be, names, n, err);
}

int catalog_namespace_set_properties(wr_catalog *cat, const char *name, json_t *properties,
                                     weir_error *err) {
  int rc = wr_ident_check(name, "namespace", err);
  if (rc) return rc;
  char *text = NULL;
  if ((rc = props_text(properties, &text, err))) return rc;
  if ((rc = catalog_tx_begin(cat, true, err)) == WEIR_OK) {
    char *old = NULL;
    bool found = false;
    rc = cat->be->ops->namespace_get(cat->be, name, &old, &found, err);
    free(old);
    if (rc == WEIR_OK) rc = cat->be->ops->namespace_put(cat->be, name, text, found, wr_now_us(), err);
    rc = catalog_tx_end(cat, rc, err);
  }
  free(text);
  return rc;
}

int catalog_namespace_delete(wr_catalog *cat, const char *name, weir_error *err) {
  int rc = catalog_tx_begin(cat, true, err);
  if (rc) return rc;
  bool found = false;
  rc = cat->be->ops->namespace_delete(cat->be, name, &found, err);
  if (rc == WEIR_OK && !found) rc = wr_seterr(err, WEIR_ENOTFOUND, "namespace %s not found", name);
  return catalog_tx_end(cat, rc, err);
}
