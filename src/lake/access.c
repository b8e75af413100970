/*
 * access.c -- the public API over the catalog's tokens and protected branches
 * (catalog/access.c holds the rules; this file shapes the JSON documents).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "lake/json_out.h"
#include "lake/lake.h"
#include "util/clock.h"
#include "util/json.h"

static json_t *time_json(int64_t us) {
  if (!us) return json_null();
  char s[40];
  wr_format_time_us(us, s, sizeof s);
  return json_string(s);
}

int lake_token_create(weir_lake *lake, const weir_token_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  weir_token_options none = WEIR_TOKEN_OPTIONS_INIT;
  if (!opts) opts = &none;
  char secret[CATALOG_TOKEN_SECRET_SIZE];
  catalog_token_row r;
  int rc = catalog_token_create(lake->cat, opts->name, opts->read_only != 0, opts->branches, secret, &r, err);
  if (rc) return rc;
  json_t *o = json_object();
  json_object_set_new(o, "name", json_string(r.name));
  json_object_set_new(o, "token", json_string(secret));
  json_object_set_new(o, "read_only", json_boolean(r.read_only));
  json_object_set_new(o, "branches", wr_json_str_or_null(r.branches));
  json_object_set_new(o, "created", time_json(r.created_us));
  catalog_token_row_clear(&r);
  memset(secret, 0, sizeof secret);
  *out_json = wr_doc_dump(WR_DOC_TOKEN, o);
  return *out_json ? WEIR_OK : wr_oom(err);
}

int lake_token_list(weir_lake *lake, char **out_json, weir_error *err) {
  *out_json = NULL;
  catalog_token_row *rows = NULL;
  size_t n = 0;
  int rc = catalog_token_list(lake->cat, &rows, &n, err);
  if (rc) return rc;
  json_t *arr = json_array();
  for (size_t i = 0; i < n; i++) {
    json_t *o = json_object();
    json_object_set_new(o, "name", json_string(rows[i].name));
    json_object_set_new(o, "read_only", json_boolean(rows[i].read_only));
    json_object_set_new(o, "branches", wr_json_str_or_null(rows[i].branches));
    json_object_set_new(o, "created", time_json(rows[i].created_us));
    json_object_set_new(o, "revoked", time_json(rows[i].revoked_us));
    json_array_append_new(arr, o);
  }
  catalog_token_rows_free(rows, n);
  *out_json = wr_doc_dump(WR_DOC_TOKEN_LIST, arr);
  return *out_json ? WEIR_OK : wr_oom(err);
}

int lake_token_revoke(weir_lake *lake, const char *name, weir_error *err) {
  return catalog_token_revoke(lake->cat, name, err);
}

int lake_branch_protect(weir_lake *lake, const char *branch, int on, weir_error *err) {
  return catalog_branch_protect(lake->cat, branch, on != 0, err);
}

int lake_branch_require_checks(weir_lake *lake, const char *branch, const char *const *projects, size_t n,
                               weir_error *err) {
  if (n == 0 || !projects)
    return wr_seterr(err, WEIR_EINVALIDARG, "require checks on %s: no project given", branch ? branch : "(null)");
  /* A gate on a folder that is not there would refuse every merge: said now, not then. */
  for (size_t i = 0; i < n; i++) {
    if (!projects[i] || !*projects[i]) continue; /* the catalog names it */
    char *dir = lake_check_path(lake, projects[i]);
    struct stat st;
    bool ok = stat(dir, &st) == 0 && S_ISDIR(st.st_mode);
    int rc = ok ? WEIR_OK
                : wr_seterr(err, WEIR_ENOTFOUND,
                            "--require-check %s: %s is not a folder (a relative project is resolved against the "
                            "lake folder %s)",
                            projects[i], dir, lake->path);
    free(dir);
    if (rc) return rc;
  }
  return catalog_branch_require_checks(lake->cat, branch, projects, n, err);
}

char *lake_check_path(const weir_lake *lake, const char *project) {
  char *joined = project[0] == '/' ? wr_strdup(project) : wr_asprintf("%s/%s", lake->path, project);
  char *real = realpath(joined, NULL); /* "lake/../p" reads better as "/…/p"; kept as is when missing */
  if (!real) return joined;
  free(joined);
  char *out = wr_strdup(real);
  free(real);
  return out;
}

int lake_branch_protection(weir_lake *lake, const char *branch, char **out_json, weir_error *err) {
  *out_json = NULL;
  char head[WEIR_HASH_HEX_SIZE];
  int rc = lake_branch_head(lake, branch, head, err);
  if (rc) return rc;
  bool on = false;
  char **projects = NULL;
  size_t n = 0;
  if ((rc = catalog_branch_protected(lake->cat, branch, &on, err))) return rc;
  if ((rc = catalog_branch_checks(lake->cat, branch, &projects, &n, err))) return rc;
  json_t *checks = json_array();
  for (size_t i = 0; i < n; i++) {
    char *path = lake_check_path(lake, projects[i]);
    json_array_append_new(checks, json_pack("{s:s,s:s}", "project", projects[i], "path", path));
    free(path);
  }
  catalog_strv_free(projects, n);
  *out_json = wr_doc_dump(WR_DOC_PROTECTION, json_pack("{s:s,s:b,s:o}", "branch", branch, "protected", on,
                                                      "require_checks", checks));
  return *out_json ? WEIR_OK : wr_oom(err);
}
