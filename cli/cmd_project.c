/*
 * cmd_project.c -- check, run, runs.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static void print_warnings(cli_ctx *ctx, const json_t *doc) {
  if (ctx->verbosity < 0) return;
  size_t i;
  json_t *w;
  json_array_foreach(json_object_get(doc, "warnings"), i, w)
    fprintf(stderr, "warning: %s\n", json_string_value(json_object_get(w, "message")));
}

/* What NOT NULL inference proved of a SQL model's columns (weir check --explain). */
static void print_nullability(const json_t *m) {
  const json_t *nn = json_object_get(m, "nullability");
  if (!json_is_array(nn)) return;
  size_t i, k = 0;
  json_t *c;
  printf("     proven non-null:");
  json_array_foreach(nn, i, c) if (strcmp(json_string_value(json_object_get(c, "state")), "non-null") == 0)
      printf("%s %s", k++ ? "," : "", json_string_value(json_object_get(c, "column")));
  printf("%s\n", k ? "" : " (none)");
  json_array_foreach(nn, i, c) if (strcmp(json_string_value(json_object_get(c, "state")), "nullable") == 0) {
    json_t *line = json_object_get(c, "line");
    printf("     may be null: %s (%s%s%lld: %s)\n", json_string_value(json_object_get(c, "column")),
           json_string_value(json_object_get(c, "expression")), json_is_integer(line) ? ", line " : "",
           json_is_integer(line) ? (long long)json_integer_value(line) : 0LL,
           json_string_value(json_object_get(c, "why")));
  }
  /* What the inference could not judge (a function it does not know) is said too: left
   * out, such a column read as if proven one way or the other. */
  json_array_foreach(nn, i, c) if (strcmp(json_string_value(json_object_get(c, "state")), "unknown") == 0) {
    const char *why = json_string_value(json_object_get(c, "why"));
    const char *expr = json_string_value(json_object_get(c, "expression"));
    printf("     not proven either way: %s%s%s%s%s%s\n", json_string_value(json_object_get(c, "column")),
           expr || why ? " (" : "", expr ? expr : "", expr && why ? ": " : "", why ? why : "", expr || why ? ")" : "");
  }
}

static void print_plan(const json_t *plan, bool explain) {
  size_t i;
  json_t *m;
  size_t nm = json_array_size(json_object_get(plan, "models"));
  printf("plan (%zu model%s, in execution order):\n", nm, nm == 1 ? "" : "s");
  json_array_foreach(json_object_get(plan, "models"), i, m) {
    const char *name = json_string_value(json_object_get(m, "name"));
    const char *lang = json_string_value(json_object_get(m, "language"));
    const char *contract = json_string_value(json_object_get(m, "output_schema"));
    printf("  %zu. %s (%s)", i + 1, name ? name : "?", lang ? lang : "?");
    json_t *inputs = json_object_get(m, "inputs");
    if (json_array_size(inputs)) {
      printf(" <- ");
      size_t j;
      json_t *in;
      json_array_foreach(inputs, j, in) {
        const char *t = json_string_value(json_object_get(in, "table"));
        printf("%s%s", j ? ", " : "", t ? t : "?");
      }
    }
    if (contract) printf(" -> %s", contract);
    printf("\n");
    if (explain) print_nullability(m);
    /* Columns declared cast "exact": narrowed at run time, failing on any value that does
     * not convert without loss. */
    size_t j;
    json_t *ec;
    json_array_foreach(json_object_get(m, "exact_casts"), j, ec) {
      const char *col = json_string_value(json_object_get(ec, "column"));
      const char *from = json_string_value(json_object_get(ec, "from"));
      const char *to = json_string_value(json_object_get(ec, "to"));
      const char *input = json_string_value(json_object_get(ec, "input"));
      printf("     cast exact: %s%s%s%s%s%s to %s (%sa value that does not convert exactly fails the run)\n",
             input ? "input " : "", input ? input : "", input ? ", column " : "", col ? col : "?",
             from ? " from " : "", from ? from : "", to ? to : "?",
             from ? "" : "from the type the data has; ");
    }
  }
}

int cmd_check(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  rc = weir_project_check(lake, args->pos[0], cli_opt_value(cmd, args, "ref"), &out, &err);
  if (rc) {
    weir_free(out);
    return cli_report_error(ctx, &err);
  }
  json_t *plan = json_loads(out, 0, NULL);
  if (ctx->json) {
    cli_print_json_text(out);
    int code = cli_breaking_exit(json_object_get(plan, "breaking_changes"), cli_flag(cmd, args, "allow-breaking"),
                                 "check");
    json_decref(plan);
    return code;
  }
  weir_free(out);
  print_warnings(ctx, plan);
  if (ctx->verbosity >= 0) {
    print_plan(plan, cli_flag(cmd, args, "explain"));
    size_t i;
    json_t *d;
    json_array_foreach(json_object_get(plan, "breaking_changes"), i, d) cli_print_breaking(d, "");
    printf("ok: the project plans against %s\n", cli_opt_value(cmd, args, "ref") ? cli_opt_value(cmd, args, "ref") : "main");
  }
  int code = cli_breaking_exit(json_object_get(plan, "breaking_changes"), cli_flag(cmd, args, "allow-breaking"),
                               "check");
  json_decref(plan);
  return code;
}

/* A run record for people. `with_errors`: also print each failed model's error (not
 * when the same error is about to be reported as the command's own). */
static void print_run(cli_ctx *ctx, const json_t *run, bool with_errors) {
  char s[13];
  const char *status = json_string_value(json_object_get(run, "status"));
  printf("run %s: %s on %s\n", json_string_value(json_object_get(run, "run_id")), status ? status : "?",
         json_string_value(json_object_get(run, "branch")) ? json_string_value(json_object_get(run, "branch")) : "?");
  const char *base = json_string_value(json_object_get(run, "base_commit"));
  const char *result = json_string_value(json_object_get(run, "result_commit"));
  if (base) printf("  base commit    %s\n", cli_short(base, s));
  if (result) printf("  result commit  %s\n", cli_short(result, s));
  const char *rb = json_string_value(json_object_get(run, "run_branch"));
  if (rb && status && strcmp(status, "succeeded") != 0) {
    /* Kept for debugging until `weir branch prune --runs` deletes it: say which. */
    weir_lake *lake = NULL;
    char h[WEIR_HASH_HEX_SIZE];
    weir_error e = WEIR_ERROR_INIT;
    bool exists = cli_lake(ctx, &lake) == WEIR_OK && weir_ref_resolve(lake, rb, h, &e) == WEIR_OK;
    weir_error_clear(&e);
    printf("  run branch     %s (%s)\n", rb, exists ? "kept for debugging" : "deleted since");
  }
  /* Python models that ran without the model sandbox are said so, every time. */
  size_t i;
  json_t *m;
  const json_t *on = NULL;
  bool off = false;
  json_array_foreach(json_object_get(run, "models"), i, m) {
    json_t *sb = json_object_get(m, "sandbox");
    if (json_is_object(sb) && json_is_false(json_object_get(sb, "enabled")))
      off = true;
    else if (json_is_object(sb) && !on)
      on = sb;
  }
  if (off)
    printf("  sandbox        off: Python models ran unsandboxed (--unsandboxed)\n");
  else if (on) {
    const char *net = json_string_value(json_object_get(on, "network"));
    printf("  sandbox        Landlock ABI %lld, seccomp, network %s\n",
           (long long)json_integer_value(json_object_get(on, "landlock_abi")),
           net && strcmp(net, "namespace") == 0 ? "closed (namespace)"
           : net && strcmp(net, "seccomp") == 0 ? "closed (seccomp)"
                                                : "open for models with internet_access");
  }
  const char *h[] = {"model", "status", "rows", "ms", "commit"};
  cli_table t;
  cli_table_init(&t, 5, h);
  cli_table_right(&t, 2);
  cli_table_right(&t, 3);
  json_array_foreach(json_object_get(run, "models"), i, m) {
    char rows[32] = "", ms[32] = "";
    json_t *r = json_object_get(m, "rows");
    if (json_is_integer(r)) snprintf(rows, sizeof rows, "%lld", (long long)json_integer_value(r));
    json_t *st = json_object_get(m, "started_us"), *en = json_object_get(m, "ended_us");
    if (json_is_integer(st) && json_is_integer(en))
      snprintf(ms, sizeof ms, "%.1f", (double)(json_integer_value(en) - json_integer_value(st)) / 1000.0);
    const char *commit = json_string_value(json_object_get(m, "commit"));
    cli_table_add(&t, json_string_value(json_object_get(m, "model")), json_string_value(json_object_get(m, "status")),
                  rows, ms, commit ? cli_short(commit, s) : "");
  }
  if (json_array_size(json_object_get(run, "models"))) cli_table_print(&t, stdout);
  cli_table_free(&t);
  /* The outputs' compaction thresholds after publishing (weir.compact.min-files). */
  json_array_foreach(json_object_get(run, "compactions"), i, m) {
    json_t *e = json_object_get(m, "error");
    if (e)
      fprintf(stderr, "weir: warning: the run is published, but compacting %s after it failed: %s\n",
              json_string_value(json_object_get(m, "table")), json_string_value(json_object_get(e, "message")));
    else
      printf("Compacted %s (weir.compact.min-files): %lld files into %lld (commit %s)\n",
             json_string_value(json_object_get(m, "table")),
             (long long)json_integer_value(json_object_get(m, "files_rewritten")),
             (long long)json_integer_value(json_object_get(m, "files_written")),
             cli_short(json_string_value(json_object_get(m, "commit")), s));
  }
  json_array_foreach(json_object_get(run, "models"), i, m) {
    const char *model = json_string_value(json_object_get(m, "model"));
    const char *error = json_string_value(json_object_get(m, "error"));
    if (error && with_errors) printf("\nmodel %s failed:\n%s\n", model, error);
    /* Rule results: what each quality rule found (details with --json), as a table:
     * the rule, what a violation does (its mode), the outcome, the rows it flagged. */
    size_t j;
    json_t *r;
    static const char *rule_headers[] = {"rule", "on violation", "result", "rows"};
    cli_table rt;
    cli_table_init(&rt, 4, rule_headers);
    cli_table_right(&rt, 3);
    size_t n_rules = 0;
    json_array_foreach(json_object_get(m, "rules"), j, r) {
      const char *rule = json_string_value(json_object_get(r, "rule"));
      const char *mode = json_string_value(json_object_get(r, "mode"));
      json_t *passed = json_object_get(r, "passed");
      json_t *affected = json_object_get(r, "rows_affected");
      if (!rule) continue;
      char rows[32] = "";
      if (json_is_integer(affected) && json_integer_value(affected) > 0)
        snprintf(rows, sizeof rows, "%lld", (long long)json_integer_value(affected));
      cli_table_add(&rt, rule, mode ? mode : "",
                    json_is_true(passed) ? "passed" : json_is_false(passed) ? "FAILED" : "skipped", rows);
      n_rules++;
    }
    if (n_rules) {
      printf("\nmodel %s rules:\n", model ? model : "?");
      cli_table_print(&rt, stdout);
    }
    cli_table_free(&rt);
    json_t *q = json_object_get(m, "rows_quarantined");
    if (json_is_integer(q) && json_integer_value(q) > 0)
      printf("  %lld row%s quarantined in %s__quarantine\n", (long long)json_integer_value(q),
             json_integer_value(q) == 1 ? "" : "s", json_string_value(json_object_get(m, "table")));
    char what[300];
    snprintf(what, sizeof what, "model %s", model ? model : "?");
    cli_print_report_notes(ctx, json_object_get(m, "report"), what);
  }
  json_t *err = json_object_get(run, "error");
  const char *emsg = json_string_value(json_object_get(err, "message"));
  if (emsg && !json_array_size(json_object_get(run, "models"))) printf("\n%s\n", emsg);
}

/* Ctrl-C or SIGTERM during a run: ask libweir to stop the run cleanly (the run is
 * recorded as failed, its branch kept, the target untouched); a second signal quits. */
static weir_lake *interrupt_lake;
static volatile sig_atomic_t interrupted_by;

static void on_interrupt(int sig) {
  if (interrupt_lake) weir_lake_interrupt(interrupt_lake);
  interrupted_by = sig;
  signal(sig, SIG_DFL);
}

/* A run stopped by a signal exits as shells expect of a command killed by it (130 for
 * SIGINT), after reporting the failed run. */
static int run_exit_code(int code) { return interrupted_by ? 128 + (int)interrupted_by : code; }

int cmd_run(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  interrupt_lake = lake;
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_interrupt;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
  weir_run_options o = WEIR_RUN_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "ref");
  o.dry_run = cli_flag(cmd, args, "dry-run");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  const char *retry = cli_opt_value(cmd, args, "retry");
  if (retry) {
    char *end;
    long n = strtol(retry, &end, 10);
    if (!*retry || *end || n < 0 || n > 100)
      return cli_usage_error(ctx, cmd, "--retry needs a number of retries from 0 to 100, not \"%s\"", retry);
    o.retries = (int)n;
  }
  o.unsandboxed = cli_flag(cmd, args, "unsandboxed");
  const char *timeout = cli_opt_value(cmd, args, "timeout");
  if (timeout) {
    char *end;
    double t = strtod(timeout, &end);
    if (!*timeout || *end || !(t > 0) || t > 30 * 86400.0)
      return cli_usage_error(ctx, cmd, "--timeout needs a number of seconds above 0 (at most 30 days), not \"%s\"",
                             timeout);
    o.timeout = t;
  }
  weir_error err = {0};
  char *out = NULL;
  rc = weir_project_run(lake, args->pos[0], &o, &out, &err);
  if (ctx->progress && isatty(2)) fprintf(stderr, "\r\033[K");
  json_t *run = out ? json_loads(out, 0, NULL) : NULL;
  /* A plan error returns the plan, not a run record (a dry run's plan is its result). */
  if (run && !json_object_get(run, "run_id") && !(o.dry_run && rc == 0)) {
    json_decref(run);
    run = NULL;
  }
  if (rc) {
    /* A failed run still has a record: show it (people need the model and the
     * violation), then the error; with --json the record rides along with the error. */
    if (run && !ctx->json && ctx->verbosity >= 0) print_run(ctx, run, false);
    weir_free(out);
    if (ctx->json && run) {
      int code = weir_error_exit_code(err.code);
      fprintf(stderr, "error: %s\n", err.message ? err.message : weir_error_name(err.code));
      cli_print_json(json_pack("{s:o,s:o}", "error", cli_error_json(&err), "run", run));
      weir_error_clear(&err);
      return run_exit_code(code);
    }
    json_decref(run);
    return run_exit_code(cli_report_error(ctx, &err));
  }
  if (ctx->json) {
    cli_print_json_text(out);
    json_decref(run);
    return 0;
  }
  weir_free(out);
  print_warnings(ctx, run);
  if (ctx->verbosity >= 0) {
    if (o.dry_run) print_plan(run, false);
    else {
      print_run(ctx, run, true);
      printf("\nRows written:\n");
      size_t i;
      json_t *m;
      json_array_foreach(json_object_get(run, "models"), i, m) {
        json_t *r = json_object_get(m, "rows");
        long long nrows = (long long)json_integer_value(r);
        printf("  %-30s %lld row%s\n", json_string_value(json_object_get(m, "table")) ? json_string_value(json_object_get(m, "table")) : json_string_value(json_object_get(m, "model")),
               nrows, nrows == 1 ? "" : "s");
      }
    }
  }
  json_decref(run);
  return 0;
}

int cmd_runs_list(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  (void)args;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_run_list(lake, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  json_t *arr = json_object_get(doc, "runs");
  const char *h[] = {"run", "status", "branch", "base", "result", "started", "models"};
  cli_table t;
  cli_table_init(&t, 7, h);
  size_t i;
  json_t *r;
  json_array_foreach(arr, i, r) {
    char b[13], res[13], nm[16];
    const char *base = json_string_value(json_object_get(r, "base_commit"));
    const char *result = json_string_value(json_object_get(r, "result_commit"));
    snprintf(nm, sizeof nm, "%zu", json_array_size(json_object_get(r, "models")));
    const char *started = json_string_value(json_object_get(r, "started"));
    cli_table_add(&t, json_string_value(json_object_get(r, "run_id")), json_string_value(json_object_get(r, "status")),
                  json_string_value(json_object_get(r, "branch")), base ? cli_short(base, b) : "",
                  result ? cli_short(result, res) : "", started ? started : "", nm);
  }
  if (json_array_size(arr)) cli_table_print(&t, stdout);
  else printf("(no runs)\n");
  cli_table_free(&t);
  json_decref(doc);
  return 0;
}

int cmd_runs_show(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  (void)cmd;
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *run;
  rc = weir_run_show(lake, args->pos[0], &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &run)) >= 0) return rc;
  print_run(ctx, run, true);
  /* The outputs' freshness SLAs as written (docs/contracts.md, "Freshness SLA"). */
  size_t mi;
  json_t *m;
  json_array_foreach(json_object_get(run, "models"), mi, m) {
    json_t *f = json_object_get(m, "freshness");
    json_t *sla = json_object_get(f, "sla");
    if (json_is_object(sla))
      printf("  freshness      %s: %s (sla %s)\n", json_string_value(json_object_get(f, "table")),
             json_string_value(json_object_get(f, "status")), json_string_value(json_object_get(sla, "freshness")));
  }
  json_t *e = json_object_get(run, "error");
  const char *emsg = json_string_value(json_object_get(e, "message"));
  if (emsg) printf("\nerror: %s\n", emsg);
  json_decref(run);
  return 0;
}
