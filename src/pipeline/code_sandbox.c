/*
 * code_sandbox.c -- the sandbox of a project's code: which folders it reads, its private
 * temporary folder, and the environment variables it sees (docs/sandbox.md).
 *
 * Both processes that run a project's Python get it: discovery (which imports every
 * project file, so module-level code runs there) and each Python model's process.
 *
 * The environment is rebuilt rather than inherited: the runner's variables often hold
 * credentials (AWS_*, tokens, DATABASE_URL), which are the user's, not the model's. What
 * passes is what shapes how Python and its libraries run (locale, time zone, thread
 * counts, PYTHONPATH); with internet access, the proxy and certificate variables too.
 * HOME and TMPDIR are the private folder, so libraries that cache under ~ keep working.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "util/fs.h"

extern char **environ;

static bool beneath(const char *inner, const char *outer) {
  size_t n = strlen(outer);
  return strncmp(inner, outer, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

int pipeline_code_sandbox(const char *project_dir, const char *lake_dir, const json_t *roots,
                          const char *label, sandbox_policy *out, weir_error *err) {
  sandbox_policy_init(out);
  char *proj = realpath(project_dir, NULL);
  char *lake = lake_dir ? realpath(lake_dir, NULL) : NULL;
  if (!proj) {
    free(lake);
    return wr_seterr(err, WEIR_ENOTFOUND, "project folder %s does not exist", project_dir);
  }
  if (lake && beneath(proj, lake)) {
    int rc = wr_seterr(
        err, WEIR_EINVALIDARG,
        "the project folder %s is inside the lake %s: sandboxed project code may read its project "
        "but no file of the lake, so move the project out of the lake's folder",
        proj, lake);
    free(proj);
    free(lake);
    return rc;
  }
  size_t i;
  json_t *v;
  json_array_foreach((json_t *)roots, i, v) if (json_is_string(v))
      sandbox_policy_add_exec(out, json_string_value(v));
  sandbox_policy_add_read(out, proj);
  out->protect = lake;
  free(proj);
  const char *base = getenv("TMPDIR");
  char *tmpl = wr_asprintf("%s/weir-%s-XXXXXX", base && *base ? base : "/tmp", label ? label : "code");
  if (!mkdtemp(tmpl)) {
    int rc = wr_seterr(err, WEIR_EIO, "cannot create a temporary folder for %s: %s",
                         label ? label : "project code", strerror(errno));
    free(tmpl);
    sandbox_policy_free(out);
    return rc;
  }
  out->tmpdir = realpath(tmpl, NULL);
  free(tmpl);
  if (!out->tmpdir) {
    sandbox_policy_free(out);
    return wr_seterr(err, WEIR_EIO, "cannot resolve a temporary folder: %s", strerror(errno));
  }
  return WEIR_OK;
}

void pipeline_code_sandbox_done(sandbox_policy *p) {
  if (p->tmpdir) {
    weir_error e = {0};
    wr_fs_remove_tree(p->tmpdir, &e);
    weir_error_clear(&e);
  }
  sandbox_policy_free(p);
}

/* Variables that pass into the sandbox: exact names, and prefixes ending in '_'. */
static const char *const KEEP[] = {"PATH",
                                   "LANG",
                                   "LANGUAGE",
                                   "LC_",
                                   "TZ",
                                   "TERM",
                                   "PYTHONPATH",
                                   "PYTHONHASHSEED",
                                   "PYTHONIOENCODING",
                                   "PYTHONUTF8",
                                   "PYTHONWARNINGS",
                                   "POLARS_",
                                   "ARROW_",
                                   "OMP_",
                                   "MKL_",
                                   "OPENBLAS_",
                                   "RAYON_",
                                   "NUMEXPR_",
                                   "MALLOC_",
                                   NULL};
static const char *const KEEP_INTERNET[] = {
    "http_proxy",         "https_proxy",    "no_proxy",  "all_proxy",     "HTTP_PROXY",
    "HTTPS_PROXY",        "NO_PROXY",       "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", NULL};

static bool kept(const char *entry, const char *const *names) {
  const char *eq = strchr(entry, '=');
  size_t len = eq ? (size_t)(eq - entry) : strlen(entry);
  for (size_t i = 0; names[i]; i++) {
    size_t n = strlen(names[i]);
    if (names[i][n - 1] == '_' ? strncmp(entry, names[i], n) == 0
                               : (len == n && strncmp(entry, names[i], n) == 0))
      return true;
  }
  return false;
}

char **pipeline_code_environment(const sandbox_policy *p) {
  size_t n = 0, cap = 16;
  char **env = wr_malloc(cap * sizeof *env);
#define PUSH(s)                                                         \
  do {                                                                  \
    if (n + 2 > cap) env = wr_realloc(env, (cap *= 2) * sizeof *env); \
    env[n++] = (s);                                                     \
  } while (0)
  for (char **e = environ; e && *e; e++) {
    if (strncmp(*e, "HOME=", 5) == 0 || strncmp(*e, "TMPDIR=", 7) == 0) continue;
    if (kept(*e, KEEP) || (p->internet && kept(*e, KEEP_INTERNET))) PUSH(wr_strdup(*e));
  }
  PUSH(wr_asprintf("HOME=%s", p->tmpdir ? p->tmpdir : "/nonexistent"));
  PUSH(wr_asprintf("TMPDIR=%s", p->tmpdir ? p->tmpdir : "/nonexistent"));
  PUSH(wr_strdup("PYTHONDONTWRITEBYTECODE=1"));
  PUSH(wr_strdup("WEIR_SANDBOXED=1"));
#undef PUSH
  env[n] = NULL;
  return env;
}

void pipeline_code_environment_free(char **env) {
  if (!env) return;
  for (char **e = env; *e; e++) free(*e);
  free(env);
}
