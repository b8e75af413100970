/*
 * cmd_delete.c -- `weir delete TABLE --where PREDICATE`: row-level deletes as
 * copy-on-write of the files holding the rows (weir_table_delete).
 */
#include <stdlib.h>
#include <string.h>

#include "cli.h"

int cmd_delete(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_delete_options o = WEIR_DELETE_OPTIONS_INIT;
  o.where = cli_opt_value(cmd, args, "where");
  o.branch = cli_opt_value(cmd, args, "branch");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  o.message = cli_opt_value(cmd, args, "message");
  if (!o.where)
    return cli_usage_error(ctx, cmd, "--where PREDICATE is required (the rows to delete; --where true deletes "
                                     "every row)");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_table_delete(lake, args->pos[0], &o, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  if (ctx->verbosity >= 0) {
    const char *table = json_string_value(json_object_get(doc, "table"));
    const char *reason = json_string_value(json_object_get(doc, "reason"));
    char s[13];
    if (reason)
      printf("Nothing deleted from %s: %s\n", table, reason);
    else
      printf("Deleted %lld rows from %s (%lld files rewritten, %lld dropped, %lld of %lld read) on %s (commit %s)\n",
             (long long)json_integer_value(json_object_get(doc, "rows_deleted")), table,
             (long long)json_integer_value(json_object_get(doc, "files_rewritten")),
             (long long)json_integer_value(json_object_get(doc, "files_dropped")),
             (long long)json_integer_value(json_object_get(doc, "files_scanned")),
             (long long)json_integer_value(json_object_get(doc, "files_before")),
             json_string_value(json_object_get(doc, "branch")),
             cli_short(json_string_value(json_object_get(doc, "commit")), s));
  }
  json_decref(doc);
  return 0;
}
