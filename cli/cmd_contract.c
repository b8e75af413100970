/*
 * cmd_contract.c -- `weir contract diff`: what a contract change breaks, and who reads it
 * (docs/contracts.md, "Breaking changes"). Shared with `weir check`: printing a breaking
 * change and deciding the exit code.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Loads OLD or NEW: a contract file, or TABLE@REF (TABLE: the stored contract at main).
 * Returns WEIR_OK, an error code (err set), or minus an exit code already reported. */
static int load_side(cli_ctx *ctx, const char *spec, weir_contract **out, char **table, char **ref,
                     weir_error *err) {
  *out = NULL;
  *table = NULL;
  *ref = NULL;
  if (access(spec, F_OK) == 0) return weir_contract_load(spec, out, err);
  const char *at = strrchr(spec, '@');
  /* What reads as a path (a slash, or a contract file's extension) and is not there is a
   * missing file, not a table with an odd name. */
  const char *dot = strrchr(spec, '.');
  if (!at && (strchr(spec, '/') || (dot && (!strcmp(dot, ".yml") || !strcmp(dot, ".yaml") || !strcmp(dot, ".json"))))) {
    fprintf(stderr, "error: %s: no such contract file (a stored contract is named TABLE@REF)\n", spec);
    return -1;
  }
  *table = at ? strndup(spec, (size_t)(at - spec)) : strdup(spec);
  *ref = strdup(at ? at + 1 : "main");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return -rc; /* reported already */
  char *doc = NULL;
  if ((rc = weir_table_describe(lake, *table, *ref, &doc, err))) return rc;
  json_t *d = json_loads(doc, 0, NULL);
  weir_free(doc);
  json_t *ir = json_object_get(d, "contract");
  if (!json_is_object(ir)) {
    json_decref(d);
    fprintf(stderr, "error: %s: table %s has no stored contract at %s (and no file has that name)\n", spec, *table,
            *ref);
    return -1;
  }
  char *text = json_dumps(ir, JSON_COMPACT);
  rc = weir_contract_parse(text, strlen(text), "json", spec, out, err);
  free(text);
  json_decref(d);
  return rc;
}

bool cli_print_breaking(const json_t *d, const char *prefix) {
  const char *table = json_string_value(json_object_get(d, "table"));
  const json_t *o = json_object_get(d, "old"), *n = json_object_get(d, "new");
  bool consumers = json_is_true(json_object_get(d, "breaks_consumers"));
  bool producers = json_is_true(json_object_get(d, "breaks_producers"));
  printf("%scontract %s %s -> %s%s%s: %s\n", prefix, json_string_value(json_object_get(o, "name")),
         json_is_string(json_object_get(o, "version")) ? json_string_value(json_object_get(o, "version")) : "(no version)",
         json_is_string(json_object_get(n, "version")) ? json_string_value(json_object_get(n, "version")) : "(no version)",
         table ? " of " : "", table ? table : "",
         consumers && producers ? "breaking for consumers and producers"
         : consumers            ? "breaking for consumers"
         : producers            ? "breaking for producers"
                                : "not breaking");
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(d, "changes"), i, c) {
    json_t *who = json_object_get(c, "breaks");
    printf("%s  - %s", prefix, json_string_value(json_object_get(c, "message")));
    if (json_array_size(who)) {
      printf("  [breaks ");
      size_t j;
      json_t *w;
      json_array_foreach(who, j, w) printf("%s%s", j ? ", " : "", json_string_value(w));
      printf("]");
    }
    printf("\n");
  }
  json_t *readers = json_object_get(d, "readers");
  if (json_array_size(readers)) printf("%sread by:\n", prefix);
  json_t *r;
  json_array_foreach(readers, i, r) {
    printf("%s  - model %s (%s:%lld) reads ", prefix, json_string_value(json_object_get(r, "model")),
           json_string_value(json_object_get(r, "file")), (long long)json_integer_value(json_object_get(r, "line")));
    size_t j;
    json_t *col;
    json_array_foreach(json_object_get(r, "columns"), j, col) printf("%s%s", j ? ", " : "", json_string_value(col));
    const char *via = json_string_value(json_object_get(r, "via"));
    if (via) printf(" of %s, downstream of model %s", json_string_value(json_object_get(r, "table")), via);
    printf("\n");
  }
  const char *vm = json_string_value(json_object_get(d, "version_message"));
  if (vm) printf("%s  ! %s\n", prefix, vm);
  return json_is_true(json_object_get(d, "breaking"));
}

int cli_breaking_exit(const json_t *changes, bool allow, const char *what) {
  size_t i, n = 0;
  bool unversioned = false;
  json_t *d;
  json_array_foreach(changes, i, d) {
    if (!json_is_true(json_object_get(d, "breaking"))) continue;
    n++;
    unversioned = unversioned || json_is_false(json_object_get(d, "version_ok"));
  }
  if (n == 0) return 0;
  if (unversioned) {
    fprintf(stderr, "error: %s: a breaking contract change needs a higher major version (see above)\n", what);
    return 3;
  }
  if (!allow) {
    fprintf(stderr, "error: %s: %zu breaking contract change%s (see above); --allow-breaking to accept\n", what, n,
            n == 1 ? "" : "s");
    return 3;
  }
  return 0;
}

int cmd_contract_diff(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_error err = {0};
  weir_contract *old = NULL, *new_ = NULL;
  char *t_old = NULL, *r_old = NULL, *t_new = NULL, *r_new = NULL;
  int rc = load_side(ctx, args->pos[0], &old, &t_old, &r_old, &err);
  if (!rc) rc = load_side(ctx, args->pos[1], &new_, &t_new, &r_new, &err);
  int code = 0;
  json_t *doc = NULL;
  if (rc < 0) {
    code = -rc;
    goto done;
  }
  if (rc) {
    code = cli_report_error(ctx, &err);
    goto done;
  }
  char *text = NULL;
  if ((rc = weir_contract_diff(old, new_, &text, &err))) {
    code = cli_report_error(ctx, &err);
    goto done;
  }
  doc = json_loads(text, 0, NULL);
  const char *table = cli_opt_value(cmd, args, "table");
  if (!table) table = t_new ? t_new : t_old;
  if (table) json_object_set_new(doc, "table", json_string(table));
  /* Who reads it: the project given, or the one in the current folder. */
  const char *project = cli_opt_value(cmd, args, "project");
  if (project && !table) {
    /* Two files name no table: the project's readers of which table? Said, not ignored. */
    weir_free(text);
    code = cli_usage_error(ctx, cmd, "--project %s: the readers of which table? OLD and NEW are both files: "
                           "name it with --table", project);
    goto done;
  }
  if (!project && access("weir_project.yml", F_OK) == 0) project = ".";
  if (project && table && json_is_true(json_object_get(doc, "breaking"))) {
    weir_lake *lake;
    if ((rc = cli_lake(ctx, &lake))) {
      weir_free(text);
      code = rc;
      goto done;
    }
    const char *ref = cli_opt_value(cmd, args, "ref");
    if (!ref) ref = r_new ? r_new : r_old;
    char *readers = NULL;
    if ((rc = weir_project_readers(lake, project, ref, table, text, &readers, &err))) {
      weir_free(text);
      code = cli_report_error(ctx, &err);
      goto done;
    }
    json_t *rdoc = json_loads(readers, 0, NULL);
    weir_free(readers);
    json_object_set(doc, "readers", json_object_get(rdoc, "readers"));
    json_decref(rdoc);
  }
  weir_free(text);
  if (ctx->json) {
    cli_print_json(json_incref(doc));
  } else {
    cli_print_breaking(doc, "");
  }
  json_t *one = json_pack("[O]", doc);
  code = cli_breaking_exit(one, cli_flag(cmd, args, "allow-breaking"), "contract diff");
  json_decref(one);
done:
  json_decref(doc);
  weir_contract_free(old);
  weir_contract_free(new_);
  free(t_old);
  free(r_old);
  free(t_new);
  free(r_new);
  return code;
}
