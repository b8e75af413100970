/*
 * cmd_alter.c -- `weir alter TABLE --add "NAME TYPE" | --rename OLD NEW | --drop NAME |
 * --widen NAME TYPE | --doc NAME TEXT | --move NAME AFTER`: schema evolution by Iceberg
 * field id, every change given in order as one commit (weir_table_alter).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

#define ALTER_MAX_CHANGES (CLI_MAX_MULTI / 2)

/* The change kind of an option name, or -1 (--branch, --message, ...). */
static int kind_of(const char *opt) {
  static const char *const names[] = {"add", "rename", "drop", "widen", "doc", "move"};
  for (int k = 0; k < 6; k++)
    if (strcmp(opt, names[k]) == 0) return k;
  return -1;
}

int cmd_alter(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_alter_options o = WEIR_ALTER_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "branch");
  o.message = cli_opt_value(cmd, args, "message");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  weir_alter_change changes[ALTER_MAX_CHANGES];
  char *owned[2 * ALTER_MAX_CHANGES];
  size_t n = 0, n_owned = 0;
  int rc = 0;
  /* args->multi holds every option value in command-line order; options of two values
   * (--rename OLD NEW) left both, one after the other. */
  for (int i = 0; i < args->n_multi && rc == 0; i++) {
    int k = kind_of(cmd->opts[args->multi_opt[i]].name);
    if (k < 0) continue;
    if (n == ALTER_MAX_CHANGES) {
      rc = cli_usage_error(ctx, cmd, "too many changes in one alter (at most %d)", ALTER_MAX_CHANGES);
      break;
    }
    weir_alter_change *c = &changes[n++];
    memset(c, 0, sizeof *c);
    c->kind = (weir_alter_kind)k;
    if (k == WEIR_ALTER_ADD) {
      /* "NAME TYPE [NOT NULL]": the name is the first word, the type the rest. */
      const char *spec = args->multi[i];
      const char *sp = spec;
      while (*sp && !isspace((unsigned char)*sp)) sp++;
      const char *ty = sp;
      while (*ty && isspace((unsigned char)*ty)) ty++;
      if (sp == spec || !*ty) {
        rc = cli_usage_error(ctx, cmd, "--add \"%s\": give the column as \"NAME TYPE\" (e.g. --add \"score Float64\")",
                             spec);
        break;
      }
      char *name = strndup(spec, (size_t)(sp - spec));
      char *type = strdup(ty);
      size_t tl = strlen(type);
      while (tl && isspace((unsigned char)type[tl - 1])) type[--tl] = 0;
      if (tl > 9 && strcasecmp(type + tl - 9, " not null") == 0) {
        type[tl - 9] = 0;
        c->required = 1;
      }
      owned[n_owned++] = name;
      owned[n_owned++] = type;
      c->column = name;
      c->value = type;
    } else if (k == WEIR_ALTER_DROP) {
      c->column = args->multi[i];
    } else {
      c->column = args->multi[i];
      c->value = i + 1 < args->n_multi ? args->multi[++i] : NULL;
      if (k == WEIR_ALTER_MOVE && c->value && strcmp(c->value, "first") == 0) c->value = "";
    }
  }
  if (rc == 0 && n == 0)
    rc = cli_usage_error(ctx, cmd, "nothing to change: give --add, --rename, --drop, --widen, --doc or --move");
  weir_lake *lake = NULL;
  if (rc == 0) rc = cli_lake(ctx, &lake);
  if (rc == 0) {
    o.changes = changes;
    o.n_changes = n;
    weir_error err = {0};
    char *out = NULL;
    json_t *doc;
    rc = weir_table_alter(lake, args->pos[0], &o, &out, &err);
    if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) < 0) {
      rc = 0;
      if (ctx->verbosity >= 0) {
        char s[13];
        printf("Altered %s on %s (commit %s): schema %lld (was %lld)\n",
               json_string_value(json_object_get(doc, "table")), json_string_value(json_object_get(doc, "branch")),
               cli_short(json_string_value(json_object_get(doc, "commit")), s),
               (long long)json_integer_value(json_object_get(doc, "schema_id")),
               (long long)json_integer_value(json_object_get(doc, "previous_schema_id")));
        size_t j;
        json_t *c;
        json_array_foreach(json_object_get(doc, "columns"), j, c) {
          printf("  %-3lld %s %s%s\n", (long long)json_integer_value(json_object_get(c, "field_id")),
                 json_string_value(json_object_get(c, "name")), json_string_value(json_object_get(c, "type")),
                 json_is_true(json_object_get(c, "required")) ? " (required)" : "");
        }
      }
      json_decref(doc);
    }
  }
  for (size_t i = 0; i < n_owned; i++) free(owned[i]);
  return rc;
}
