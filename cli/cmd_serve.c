/*
 * cmd_serve.c -- weir serve, tokens, branch protection, namespaces, table drop/rename.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static volatile sig_atomic_t stop_requested = 0;
static int stop_pipe[2] = {-1, -1};

static void on_signal(int sig) {
  (void)sig;
  stop_requested = 1;
  if (stop_pipe[1] >= 0) {
    char c = 1;
    ssize_t w = write(stop_pipe[1], &c, 1);
    (void)w;
  }
}

int cmd_serve(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_serve_options o = WEIR_SERVE_OPTIONS_INIT;
  o.host = cli_opt_value(cmd, args, "host");
  const char *port = cli_opt_value(cmd, args, "port");
  const char *threads = cli_opt_value(cmd, args, "threads");
  o.vend_credentials = cli_flag(cmd, args, "vend-credentials");
  char *end = NULL;
  if (port) {
    long p = strtol(port, &end, 10);
    if (!*port || *end || p < 0 || p > 65535) return cli_usage_error(ctx, cmd, "--port %s: expected 0 to 65535", port);
    o.port = (int)p;
  } else {
    o.port = 8181;
  }
  if (threads) {
    long t = strtol(threads, &end, 10);
    if (!*threads || *end || t < 1 || t > 256) return cli_usage_error(ctx, cmd, "--threads %s: expected 1 to 256", threads);
    o.threads = (int)t;
  }
  if (pipe(stop_pipe) != 0) {
    fprintf(stderr, "error: cannot make a pipe for signals\n");
    return 1;
  }
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  weir_error err = {0};
  weir_server *srv = NULL;
  /* As every command finds its lake: --lake, else $WEIR_LAKE, else the nearest ./.weir. */
  const char *lake_path = ctx->lake_path;
  const char *env = getenv("WEIR_LAKE");
  if (!lake_path && env && *env) lake_path = env;
  if (weir_server_start(lake_path, &o, &srv, &err)) return cli_report_error(ctx, &err);
  const char *host = o.host ? o.host : "127.0.0.1";
  /* The readiness line: scripts and tests wait for it (and read the port from it). */
  if (ctx->json)
    printf("{\"listening\":\"http://%s:%d\",\"port\":%d}\n", host, weir_server_port(srv), weir_server_port(srv));
  else
    printf("weir serve: listening on http://%s:%d (Iceberg REST catalog; Ctrl-C stops)\n", host, weir_server_port(srv));
  fflush(stdout);
  while (!stop_requested) {
    char c;
    ssize_t r = read(stop_pipe[0], &c, 1);
    if (r == 1 || (r < 0 && stop_requested)) break;
  }
  weir_server_stop(srv);
  close(stop_pipe[0]);
  close(stop_pipe[1]);
  if (ctx->verbosity >= 0) fprintf(stderr, "weir serve: stopped\n");
  return 0;
}

int cmd_token_create(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_token_options o = WEIR_TOKEN_OPTIONS_INIT;
  o.name = cli_opt_value(cmd, args, "name");
  o.read_only = cli_flag(cmd, args, "read-only");
  o.branches = cli_opt_value(cmd, args, "branches");
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_token_create(lake, &o, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  /* The secret on stdout, alone, so that it can be captured; what it is on stderr. */
  printf("%s\n", json_string_value(json_object_get(doc, "token")));
  if (ctx->verbosity >= 0)
    fprintf(stderr, "Created token %s (%s%s%s); it is shown only now\n",
            json_string_value(json_object_get(doc, "name")), o.read_only ? "read-only" : "read-write",
            o.branches ? ", refs matching " : "", o.branches ? o.branches : "");
  json_decref(doc);
  return 0;
}

int cmd_token_list(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  (void)args;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_token_list(lake, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  const json_t *arr = json_object_get(doc, "tokens");
  const char *h[] = {"token", "access", "refs", "created", "revoked"};
  cli_table t;
  cli_table_init(&t, 5, h);
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o) {
    const char *br = json_string_value(json_object_get(o, "branches"));
    const char *rv = json_string_value(json_object_get(o, "revoked"));
    cli_table_add(&t, json_string_value(json_object_get(o, "name")),
                  json_is_true(json_object_get(o, "read_only")) ? "read-only" : "read-write", br ? br : "*",
                  json_string_value(json_object_get(o, "created")), rv ? rv : "");
  }
  if (json_array_size(arr) == 0) printf("(no tokens)\n");
  else cli_table_print(&t, stdout);
  cli_table_free(&t);
  json_decref(doc);
  return 0;
}

int cmd_token_revoke(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  if (weir_token_revoke(lake, args->pos[0], &err)) return cli_report_error(ctx, &err);
  if (ctx->json) cli_print_json(json_pack("{s:s,s:b}", "name", args->pos[0], "revoked", 1));
  else if (ctx->verbosity >= 0) printf("Revoked token %s\n", args->pos[0]);
  return 0;
}

static int protect(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args, int on) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  const char *checks[CLI_MAX_MULTI];
  size_t n = on ? cli_opt_values(cmd, args, "require-check", checks, CLI_MAX_MULTI) : 0;
  if (n ? weir_branch_require_checks(lake, args->pos[0], checks, n, &err)
        : weir_branch_protect(lake, args->pos[0], on, &err))
    return cli_report_error(ctx, &err);
  char *out = NULL;
  json_t *doc = NULL;
  rc = weir_branch_protection(lake, args->pos[0], &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  if (ctx->verbosity >= 0) {
    printf(on ? "Branch %s is protected: it takes only merges\n" : "Branch %s is no longer protected\n", args->pos[0]);
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(doc, "require_checks"), i, c)
        printf("  merges must pass: weir check %s\n", json_string_value(json_object_get(c, "path")));
  }
  json_decref(doc);
  return 0;
}

int cmd_branch_protect(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  return protect(ctx, cmd, args, 1);
}

int cmd_branch_unprotect(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  return protect(ctx, cmd, args, 0);
}

int cmd_namespace_create(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  weir_namespace_options o = WEIR_NAMESPACE_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "branch");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  rc = weir_namespace_create(lake, args->pos[0], &o, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  char s[13];
  const char *commit = json_string_value(json_object_get(doc, "commit"));
  if (ctx->verbosity >= 0 && commit)
    printf("Created namespace %s on %s (commit %s)\n", json_string_value(json_object_get(doc, "namespace")),
           json_string_value(json_object_get(doc, "branch")), cli_short(commit, s));
  else if (ctx->verbosity >= 0)
    printf("Created namespace %s (lake-wide)\n", json_string_value(json_object_get(doc, "namespace")));
  json_decref(doc);
  return 0;
}

int cmd_namespace_list(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_namespace_list(lake, cli_opt_value(cmd, args, "ref"), &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  const json_t *arr = json_object_get(doc, "namespaces");
  const char *h[] = {"namespace", "tables", "created"};
  cli_table t;
  cli_table_init(&t, 3, h);
  cli_table_right(&t, 1);
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o) {
    char n[32];
    snprintf(n, sizeof n, "%lld", (long long)json_integer_value(json_object_get(o, "tables")));
    cli_table_add(&t, json_string_value(json_object_get(o, "name")), n,
                  json_is_true(json_object_get(o, "created")) ? "yes" : "");
  }
  cli_table_print(&t, stdout);
  cli_table_free(&t);
  json_decref(doc);
  return 0;
}

int cmd_namespace_drop(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  weir_namespace_options o = WEIR_NAMESPACE_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "branch");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  rc = weir_namespace_drop(lake, args->pos[0], &o, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  char s[13];
  const char *commit = json_string_value(json_object_get(doc, "commit"));
  if (ctx->verbosity >= 0 && commit)
    printf("Dropped namespace %s on %s (commit %s)\n", json_string_value(json_object_get(doc, "namespace")),
           json_string_value(json_object_get(doc, "branch")), cli_short(commit, s));
  else if (ctx->verbosity >= 0)
    printf("Dropped namespace %s (lake-wide)\n", json_string_value(json_object_get(doc, "namespace")));
  json_decref(doc);
  return 0;
}

int cmd_table_drop(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_table_drop(lake, args->pos[0], cli_opt_value(cmd, args, "branch"), &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  char s[13];
  if (ctx->verbosity >= 0)
    printf("Dropped table %s on %s (commit %s)\n", json_string_value(json_object_get(doc, "table")),
           json_string_value(json_object_get(doc, "branch")),
           cli_short(json_string_value(json_object_get(doc, "commit")), s));
  json_decref(doc);
  return 0;
}

int cmd_table_rename(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_table_rename(lake, args->pos[0], args->pos[1], cli_opt_value(cmd, args, "branch"), &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  char s[13];
  if (ctx->verbosity >= 0)
    printf("Renamed table %s to %s on %s (commit %s)\n", json_string_value(json_object_get(doc, "table")),
           json_string_value(json_object_get(doc, "new_name")), json_string_value(json_object_get(doc, "branch")),
           cli_short(json_string_value(json_object_get(doc, "commit")), s));
  json_decref(doc);
  return 0;
}
