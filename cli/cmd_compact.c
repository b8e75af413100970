/*
 * cmd_compact.c -- `weir compact TABLE`: small data files rewritten into large ones, as a
 * commit that changes no row (weir_table_compact).
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

/* "128MB", "512KiB", "1g", "1048576": bytes (K/M/G are powers of 1024, as DuckDB's and
 * Iceberg's file sizes are). False when the text is not such a size. */
static bool parse_size(const char *text, int64_t *out) {
  errno = 0;
  char *end;
  double v = strtod(text, &end);
  if (end == text || errno || v < 0) return false;
  while (*end == ' ') end++;
  double mult = 1;
  switch (toupper((unsigned char)*end)) {
    case 'K': mult = 1024.0; end++; break;
    case 'M': mult = 1024.0 * 1024; end++; break;
    case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    default: break;
  }
  if (mult > 1 && (*end == 'i' || *end == 'I')) end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end) return false;
  double bytes = v * mult;
  if (bytes < 1 || bytes > 9.0e15) return false;
  *out = (int64_t)bytes;
  return true;
}

int cmd_compact(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_compact_options o = WEIR_COMPACT_OPTIONS_INIT;
  o.branch = cli_opt_value(cmd, args, "branch");
  o.message = cli_opt_value(cmd, args, "message");
  o.dry_run = cli_flag(cmd, args, "dry-run");
  const char *size = cli_opt_value(cmd, args, "target-file-size");
  if (size && !parse_size(size, &o.target_file_size))
    return cli_usage_error(ctx, cmd, "--target-file-size \"%s\" is not a size (e.g. 128MB, 512KB, 1GB)", size);
  const char *min = cli_opt_value(cmd, args, "min-files");
  if (min) {
    char *end;
    errno = 0;
    long long n = strtoll(min, &end, 10);
    if (end == min || *end || errno || n < 1)
      return cli_usage_error(ctx, cmd, "--min-files \"%s\" is not a positive whole number", min);
    o.min_files = n;
  }
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_table_compact(lake, args->pos[0], &o, &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  if (ctx->verbosity >= 0) {
    const char *table = json_string_value(json_object_get(doc, "table"));
    long long rewritten = json_integer_value(json_object_get(doc, "files_rewritten"));
    long long written = json_integer_value(json_object_get(doc, "files_written"));
    long long rows = json_integer_value(json_object_get(doc, "rows_rewritten"));
    const char *reason = json_string_value(json_object_get(doc, "reason"));
    char s[13];
    if (reason)
      printf("Nothing to compact in %s: %s\n", table, reason);
    else if (json_is_true(json_object_get(doc, "dry_run")))
      printf("Would rewrite %lld files of %s (%lld rows) into about %lld\n", rewritten, table, rows, written);
    else
      printf("Compacted %s: %lld files into %lld (%lld rows, unchanged) on %s (commit %s)\n", table, rewritten,
             written, rows, json_string_value(json_object_get(doc, "branch")),
             cli_short(json_string_value(json_object_get(doc, "commit")), s));
  }
  json_decref(doc);
  return 0;
}
