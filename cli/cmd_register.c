/*
 * cmd_register.c -- external data by reference: `weir table register` (an Iceberg table
 * another engine wrote) and `weir import --register` (Parquet files added to a table).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static int print_register(cli_ctx *ctx, int rc, weir_error *err, char *out, const char *verb) {
  json_t *doc;
  if ((rc = cli_json_result(ctx, rc, err, out, &doc)) >= 0) return rc;
  if (ctx->verbosity >= 0) {
    char s[13];
    long long rows = (long long)json_integer_value(json_object_get(doc, "rows"));
    long long files = (long long)json_integer_value(json_object_get(doc, "files"));
    printf("%s %lld file%s (%lld row%s, referenced in place) as %s on %s (commit %s)\n", verb, files,
           files == 1 ? "" : "s", rows, rows == 1 ? "" : "s", json_string_value(json_object_get(doc, "table")),
           json_string_value(json_object_get(doc, "branch")),
           cli_short(json_string_value(json_object_get(doc, "commit")), s));
  }
  json_decref(doc);
  return 0;
}

int cmd_table_register(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *metadata = cli_opt_value(cmd, args, "metadata");
  if (!metadata) return cli_usage_error(ctx, cmd, "weir table register needs --metadata FILE_OR_URI");
  weir_register_options o = WEIR_REGISTER_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "branch");
  o.contract_path = cli_opt_value(cmd, args, "contract");
  o.message = cli_opt_value(cmd, args, "message");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  rc = weir_table_register(lake, args->pos[0], metadata, &o, &out, &err);
  return print_register(ctx, rc, &err, out, "Registered");
}

int cmd_import_register(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *table = cli_opt_value(cmd, args, "table");
  if (!table) return cli_usage_error(ctx, cmd, "weir import --register needs --table T");
  const char *mode = cli_opt_value(cmd, args, "mode");
  if (mode && strcmp(mode, "append") != 0)
    return cli_usage_error(ctx, cmd, "weir import --register appends to an existing table (--mode append); "
                                     "to adopt a whole Iceberg table use weir table register");
  if (cli_opt_value(cmd, args, "format") && strcmp(cli_opt_value(cmd, args, "format"), "parquet") != 0)
    return cli_usage_error(ctx, cmd, "weir import --register takes Parquet files only");
  if (cli_opt_value(cmd, args, "expect-head"))
    return cli_usage_error(ctx, cmd, "--expect-head is not supported with --register yet");
  weir_register_options o = WEIR_REGISTER_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "branch");
  o.contract_path = cli_opt_value(cmd, args, "contract");
  o.message = cli_opt_value(cmd, args, "message");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  rc = weir_table_register_files(lake, table, args->pos, (size_t)args->n_pos, &o, &out, &err);
  return print_register(ctx, rc, &err, out, "Registered");
}
