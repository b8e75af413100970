/*
 * cmd_history.c -- branch, tag, log, show, diff, merge, revert.
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* "2026-11-30T12:34:56.123456Z" -> "2026-11-30 12:34:56 UTC" */
static void human_time(const char *iso, char *out, size_t n) {
  if (!iso || strlen(iso) < 19) {
    snprintf(out, n, "%s", iso ? iso : "");
    return;
  }
  snprintf(out, n, "%.10s %.8s UTC", iso, iso + 11);
}

static int list_refs(cli_ctx *ctx, bool tags) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = tags ? weir_tag_list(lake, &out, &err) : weir_branch_list(lake, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  json_t *arr = json_object_get(doc, tags ? "tags" : "branches");
  const char *h[] = {tags ? "tag" : "branch", tags ? "commit" : "head", "updated"};
  cli_table t;
  cli_table_init(&t, 3, h);
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o) {
    char s[13], tm[40];
    const char *target = json_string_value(json_object_get(o, tags ? "target" : "head"));
    human_time(json_string_value(json_object_get(o, "time")), tm, sizeof tm);
    cli_table_add(&t, json_string_value(json_object_get(o, "name")), cli_short(target, s), tm);
  }
  if (json_array_size(arr) == 0) printf(tags ? "(no tags)\n" : "(no branches)\n");
  else cli_table_print(&t, stdout);
  cli_table_free(&t);
  json_decref(doc);
  return 0;
}

int cmd_branch_list(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  (void)args;
  return list_refs(ctx, false);
}

int cmd_tag_list(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  (void)args;
  return list_refs(ctx, true);
}

int cmd_branch_create(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char head[WEIR_HASH_HEX_SIZE];
  const char *from = cli_opt_value(cmd, args, "from");
  if (weir_branch_create(lake, args->pos[0], from, head, &err)) return cli_report_error(ctx, &err);
  if (ctx->json) cli_print_json(json_pack("{s:s,s:s}", "name", args->pos[0], "head", head));
  else if (ctx->verbosity >= 0) {
    char s[13];
    printf("Created branch %s at %s\n", args->pos[0], cli_short(head, s));
  }
  return 0;
}

int cmd_branch_delete(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  if (weir_branch_delete(lake, args->pos[0], cli_flag(cmd, args, "force") ? WEIR_BRANCH_FORCE : 0, &err))
    return cli_report_error(ctx, &err);
  if (ctx->json) cli_print_json(json_pack("{s:s,s:b}", "name", args->pos[0], "deleted", 1));
  else if (ctx->verbosity >= 0) printf("Deleted branch %s\n", args->pos[0]);
  return 0;
}

int cmd_tag_create(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char target[WEIR_HASH_HEX_SIZE];
  if (weir_tag_create(lake, args->pos[0], cli_opt_value(cmd, args, "ref"), target, &err))
    return cli_report_error(ctx, &err);
  if (ctx->json) cli_print_json(json_pack("{s:s,s:s}", "name", args->pos[0], "target", target));
  else if (ctx->verbosity >= 0) {
    char s[13];
    printf("Created tag %s at %s\n", args->pos[0], cli_short(target, s));
  }
  return 0;
}

int cmd_tag_delete(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  if (weir_tag_delete(lake, args->pos[0], &err)) return cli_report_error(ctx, &err);
  if (ctx->json) cli_print_json(json_pack("{s:s,s:b}", "name", args->pos[0], "deleted", 1));
  else if (ctx->verbosity >= 0) printf("Deleted tag %s\n", args->pos[0]);
  return 0;
}

static void print_changes(const json_t *changes, const char *indent) {
  size_t i;
  json_t *c;
  json_array_foreach(changes, i, c) {
    printf("%s%s (%s)\n", indent, json_string_value(json_object_get(c, "table")),
           json_string_value(json_object_get(c, "change")));
  }
}

static void print_commit(const json_t *c, bool full) {
  const char *hash = json_string_value(json_object_get(c, "hash"));
  char s[13], tm[40];
  human_time(json_string_value(json_object_get(c, "time")), tm, sizeof tm);
  printf("commit %s\n", full ? hash : cli_short(hash, s));
  json_t *parents = json_object_get(c, "parents");
  if (json_array_size(parents) > 0) {
    printf("parents");
    size_t i;
    json_t *p;
    json_array_foreach(parents, i, p) printf(" %s", full ? json_string_value(p) : cli_short(json_string_value(p), s));
    printf("\n");
  }
  printf("author  %s\ndate    %s\n", json_string_value(json_object_get(c, "author")), tm);
  json_t *expired = json_object_get(c, "expired");
  if (expired) {
    char et[40];
    human_time(json_string_value(json_object_get(expired, "time")), et, sizeof et);
    printf("expired %s by gc (%s): its tables can no longer be read\n", et,
           json_string_value(json_object_get(expired, "reason")));
  }
  printf("\n    %s\n", json_string_value(json_object_get(c, "message")));
  json_t *props = json_object_get(c, "properties");
  const char *key;
  json_t *v;
  if (json_object_size(props)) {
    printf("\n");
    json_object_foreach(props, key, v) printf("    %s: %s\n", key, json_string_value(v) ? json_string_value(v) : "");
  }
  json_t *changes = json_object_get(c, "tables_changed");
  json_t *nsch = json_object_get(c, "namespaces_changed");
  if (json_array_size(changes) || json_array_size(nsch)) printf("\n");
  size_t ni;
  json_t *nv;
  json_array_foreach(nsch, ni, nv) printf("    namespace %s (%s)\n", json_string_value(json_object_get(nv, "namespace")),
                                          json_string_value(json_object_get(nv, "change")));
  if (json_array_size(changes)) print_changes(changes, "    ");
}

int cmd_log(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *nstr = cli_opt_value(cmd, args, "max-count");
  int64_t max = 0;
  if (nstr) {
    char *end;
    max = strtoll(nstr, &end, 10);
    if (*end || max < 0) return cli_usage_error(ctx, cmd, "-n needs a non-negative number, not \"%s\"", nstr);
  }
  /* The ref as git takes it (weir log dev), or --ref dev. */
  const char *ref = cli_opt_value(cmd, args, "ref");
  if (args->n_pos && ref) return cli_usage_error(ctx, cmd, "give the ref once: as an argument or with --ref");
  if (args->n_pos) ref = args->pos[0];
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  /* -n 0 shows nothing, as in git (the library reads 0 as "no limit"). */
  const char *table = cli_opt_value(cmd, args, "table");
  rc = table ? weir_table_log(lake, ref, table, nstr && max == 0 ? 1 : max, &out, &err)
             : weir_commit_log(lake, ref, nstr && max == 0 ? 1 : max, &out, &err);
  if (rc == 0 && nstr && max == 0) {
    weir_free(out);
    char empty[64];
    snprintf(empty, sizeof empty, "{\"schema_version\": %d, \"commits\": []}", WEIR_JSON_SCHEMA_VERSION);
    out = strdup(empty);
  }
  json_t *doc;
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  json_t *arr = json_object_get(doc, "commits");
  size_t i;
  json_t *c;
  json_array_foreach(arr, i, c) {
    if (i) printf("\n");
    print_commit(c, false);
  }
  json_decref(doc);
  return 0;
}

int cmd_show(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *c;
  rc = weir_commit_show(lake, args->pos[0], &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &c)) >= 0) return rc;
  print_commit(c, true);
  json_t *tables = json_object_get(c, "tables");
  printf("\n");
  const char *h[] = {"table", "rows", "snapshot", "metadata"};
  cli_table t;
  cli_table_init(&t, 4, h);
  cli_table_right(&t, 1);
  size_t i;
  json_t *o;
  json_array_foreach(tables, i, o) {
    char rows[32], snap[32];
    snprintf(rows, sizeof rows, "%lld", (long long)json_integer_value(json_object_get(o, "record_count")));
    json_t *sid = json_object_get(o, "snapshot_id");
    if (json_is_integer(sid)) snprintf(snap, sizeof snap, "%lld", (long long)json_integer_value(sid));
    else snprintf(snap, sizeof snap, "-");
    cli_table_add(&t, json_string_value(json_object_get(o, "table")), rows, snap,
                  json_string_value(json_object_get(o, "metadata_location")));
  }
  if (json_array_size(tables)) cli_table_print(&t, stdout);
  else printf("(no tables)\n");
  cli_table_free(&t);
  json_decref(c);
  return 0;
}

int cmd_diff(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *d;
  rc = weir_commit_diff(lake, args->pos[0], args->pos[1], &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &d)) >= 0) return rc;
  const char *h[] = {"", "table", "rows", "change"};
  cli_table t;
  cli_table_init(&t, 4, h);
  cli_table_right(&t, 2);
  cli_table_right(&t, 3);
  const char *kinds[] = {"added", "removed", "changed"};
  const char *marks[] = {"+", "-", "~"};
  int total = 0;
  for (int k = 0; k < 3; k++) {
    size_t i;
    json_t *o;
    json_array_foreach(json_object_get(d, kinds[k]), i, o) {
      char rows[64], change[32];
      long long delta = (long long)json_integer_value(json_object_get(o, "record_change"));
      if (k == 2)
        snprintf(rows, sizeof rows, "%lld -> %lld", (long long)json_integer_value(json_object_get(o, "records_before")),
                 (long long)json_integer_value(json_object_get(o, "records_after")));
      else
        snprintf(rows, sizeof rows, "%lld", (long long)json_integer_value(json_object_get(o, "record_count")));
      snprintf(change, sizeof change, "%+lld", delta);
      cli_table_add(&t, marks[k], json_string_value(json_object_get(o, "table")), rows, change);
      total++;
    }
  }
  if (total) cli_table_print(&t, stdout);
  else printf("no differences between %s and %s\n", args->pos[0], args->pos[1]);
  cli_table_free(&t);
  json_decref(d);
  return 0;
}

int cmd_merge(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *into = cli_opt_value(cmd, args, "into");
  if (!into) return cli_usage_error(ctx, cmd, "weir merge needs --into TARGET");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_merge_options o = WEIR_MERGE_OPTIONS_INIT;
  o.message = cli_opt_value(cmd, args, "message");
  o.no_ff = cli_flag(cmd, args, "no-ff");
  o.allow_partial = cli_flag(cmd, args, "allow-partial");
  o.strategy = cli_opt_value(cmd, args, "strategy");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  const char *checks[CLI_MAX_MULTI];
  o.n_checks = cli_opt_values(cmd, args, "check", checks, CLI_MAX_MULTI);
  o.checks = o.n_checks ? checks : NULL;
  weir_error err = {0};
  char *out = NULL;
  json_t *r;
  /* Contracts the merge would change on `into` in a way that breaks their readers: named
   * with the models of --project that read what breaks; refused (exit 3, nothing merged)
   * unless --allow-breaking (and a higher major version, always). */
  if ((rc = weir_branch_merge_contracts(lake, args->pos[0], into, &out, &err))) return cli_report_error(ctx, &err);
  json_t *bdoc = json_loads(out, 0, NULL);
  weir_free(out);
  out = NULL;
  json_t *bc = json_incref(json_object_get(bdoc, "breaking_changes"));
  json_decref(bdoc);
  const char *project = cli_opt_value(cmd, args, "project");
  size_t bi;
  json_t *bd;
  json_array_foreach(bc, bi, bd) {
    if (!project) break;
    char *dtext = json_dumps(bd, JSON_COMPACT), *readers = NULL;
    rc = weir_project_readers(lake, project, into, json_string_value(json_object_get(bd, "table")), dtext, &readers,
                              &err);
    free(dtext);
    if (rc) {
      json_decref(bc);
      return cli_report_error(ctx, &err);
    }
    json_t *rdoc = json_loads(readers, 0, NULL);
    weir_free(readers);
    json_object_set(bd, "readers", json_object_get(rdoc, "readers"));
    json_decref(rdoc);
  }
  if (json_array_size(bc) && !ctx->json) json_array_foreach(bc, bi, bd) cli_print_breaking(bd, "");
  int bcode = cli_breaking_exit(bc, cli_flag(cmd, args, "allow-breaking"), "merge");
  if (bcode) {
    if (ctx->json) cli_print_json(json_pack("{s:O}", "breaking_changes", bc));
    json_decref(bc);
    return bcode;
  }
  json_decref(bc);
  rc = weir_branch_merge(lake, args->pos[0], into, &o, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &r)) >= 0) return rc;
  if (ctx->verbosity >= 0) {
    const char *result = json_string_value(json_object_get(r, "result"));
    char s[13];
    const char *commit = json_string_value(json_object_get(r, "commit"));
    if (result && strcmp(result, "up-to-date") == 0)
      printf("Already up to date: %s is reachable from %s\n", args->pos[0], into);
    else if (result && strcmp(result, "fast-forward") == 0) {
      printf("Fast-forward %s to %s\n", into, cli_short(commit, s));
      if (o.message)
        fprintf(stderr, "note: --message was not used: a fast-forward makes no commit (give --no-ff for a "
                        "merge commit with that message)\n");
    }
    else
      printf("Merged %s into %s (merge commit %s)\n", args->pos[0], into, cli_short(commit, s));
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(r, "namespaces"), i, c)
      printf("  namespace %s (%s)\n", json_string_value(json_object_get(c, "namespace")),
             json_string_value(json_object_get(c, "change")));
    json_array_foreach(json_object_get(r, "tables"), i, c) {
      const char *tname = json_string_value(json_object_get(c, "table"));
      const char *action = json_string_value(json_object_get(c, "change"));
      if (tname) printf("  %s (%s)\n", tname, action ? action : "changed");
    }
  }
  json_decref(r);
  return 0;
}

int cmd_revert(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *to = cli_opt_value(cmd, args, "to");
  const char *run = cli_opt_value(cmd, args, "run");
  if (run && (to || args->n_pos))
    return cli_usage_error(ctx, cmd, "give either TABLE --to R, or --run RUN_ID, not both");
  if (!run && (!args->n_pos || !to))
    return cli_usage_error(ctx, cmd, "weir revert needs TABLE --to R, or --run RUN_ID");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_revert_options o = WEIR_REVERT_OPTIONS_INIT;
  o.message = cli_opt_value(cmd, args, "message");
  o.allow_partial = cli_flag(cmd, args, "allow-partial");
  o.allow_contract_change = cli_flag(cmd, args, "allow-contract-change");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  const char *branch = cli_opt_value(cmd, args, "branch");
  weir_error err = {0};
  char *out = NULL;
  rc = run ? weir_run_revert(lake, run, branch, &o, &out, &err)
           : weir_table_revert(lake, args->pos[0], to, branch, &o, &out, &err);
  json_t *r;
  if ((rc = cli_json_result(ctx, rc, &err, out, &r)) >= 0) return rc;
  char s[13];
  if (ctx->verbosity >= 0) {
    if (run && json_array_size(json_object_get(r, "tables")) == 0)
      printf("Nothing to revert: no table on %s is at a version run %s wrote (it published none there, or "
             "they were reverted already)\n",
             json_string_value(json_object_get(r, "branch")) ? json_string_value(json_object_get(r, "branch")) : "the branch",
             run);
    else if (run)
      printf("Reverted run %s (commit %s)\n", run, cli_short(json_string_value(json_object_get(r, "commit")), s));
    else
      printf("Reverted %s to its version at %s (%s; commit %s)\n", args->pos[0], to,
             json_string_value(json_object_get(r, "change")) ? json_string_value(json_object_get(r, "change")) : "restored",
             cli_short(json_string_value(json_object_get(r, "commit")), s));
  }
  json_decref(r);
  return 0;
}
