/*
 * cmd_tables.c -- init, import, tables, describe, query.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

int cmd_init(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  /* As every command finds its lake: the argument, else --lake, else $WEIR_LAKE (the CLI
   * maps the variable; the library reads none for creating), else ./.weir. */
  const char *env = getenv("WEIR_LAKE");
  const char *path = args->n_pos ? args->pos[0] : ctx->lake_path ? ctx->lake_path : env && *env ? env : NULL;
  weir_error err = {0};
  weir_lake *lake = NULL;
  weir_lake_options lo;
  if (cli_lake_options(&lo, &err) != WEIR_OK) return cli_report_error(ctx, &err);
  lo.warehouse = cli_opt_value(cmd, args, "warehouse");
  lo.catalog = cli_opt_value(cmd, args, "catalog");
  if (weir_lake_init(path, &lo, &lake, &err)) return cli_report_error(ctx, &err);
  char head[WEIR_HASH_HEX_SIZE];
  weir_ref_resolve(lake, "main", head, &err);
  weir_error_clear(&err);
  if (ctx->json) {
    json_t *o = json_pack("{s:s,s:s,s:s,s:s}", "lake", weir_lake_path(lake), "warehouse", weir_lake_warehouse(lake),
                          "branch", "main", "commit", head);
    cli_print_json(o);
  } else if (ctx->verbosity >= 0) {
    char s[13];
    printf("Initialized empty lake in %s (main at %s)\n", weir_lake_path(lake), cli_short(head, s));
  }
  weir_lake_free(lake);
  return 0;
}

static bool parse_mode(const char *s, weir_write_mode *out) {
  if (!s || strcmp(s, "create") == 0) *out = WEIR_MODE_CREATE;
  else if (strcmp(s, "append") == 0) *out = WEIR_MODE_APPEND;
  else if (strcmp(s, "replace") == 0) *out = WEIR_MODE_REPLACE;
  else return false;
  return true;
}

void cli_print_report_notes(cli_ctx *ctx, const json_t *report, const char *what) {
  if (ctx->verbosity < 0 || !report) return;
  size_t i;
  json_t *v;
  int warned = 0, dropped = 0;
  json_array_foreach(json_object_get(report, "violations"), i, v) {
    const char *mode = json_string_value(json_object_get(v, "mode"));
    const char *msg = json_string_value(json_object_get(v, "message"));
    if (!mode || !msg) continue;
    if (strcmp(mode, "warn") == 0) {
      if (!warned++) fprintf(stderr, "warning: contract warnings in %s:\n", what);
      fprintf(stderr, "  - %s\n", msg);
    }
  }
  json_array_foreach(json_object_get(report, "violations"), i, v) {
    const char *mode = json_string_value(json_object_get(v, "mode"));
    const char *msg = json_string_value(json_object_get(v, "message"));
    if (!mode || !msg) continue;
    if (strcmp(mode, "drop") == 0) {
      if (!dropped++) fprintf(stderr, "note: rows dropped to quarantine in %s:\n", what);
      fprintf(stderr, "  - %s\n", msg);
    }
  }
}

/* "4194304", "4096K", "4M", "1G" -> bytes; false unless positive and whole. */
static bool parse_byte_size(const char *text, int64_t *out) {
  char *end;
  errno = 0;
  long long v = strtoll(text, &end, 10);
  if (end == text || errno || v <= 0) return false;
  long long unit = 1;
  if (*end == 'K' || *end == 'k') unit = 1024, end++;
  else if (*end == 'M' || *end == 'm') unit = 1024 * 1024, end++;
  else if (*end == 'G' || *end == 'g') unit = 1024 * 1024 * 1024, end++;
  if (*end == 'B' || *end == 'b') end++;
  if (*end || v > INT64_MAX / unit) return false;
  *out = (int64_t)(v * unit);
  return true;
}

int cmd_import(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  if (cli_flag(cmd, args, "register")) return cmd_import_register(ctx, cmd, args);
  if (args->n_pos > 1)
    return cli_usage_error(ctx, cmd, "weir import takes one FILE (several only with --register)");
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = cli_opt_value(cmd, args, "table");
  if (!o.table) return cli_usage_error(ctx, cmd, "weir import needs --table T");
  if (!parse_mode(cli_opt_value(cmd, args, "mode"), &o.mode))
    return cli_usage_error(ctx, cmd, "unknown --mode \"%s\" (expected create, append or replace)",
                           cli_opt_value(cmd, args, "mode"));
  o.branch = cli_opt_value(cmd, args, "branch");
  o.contract_path = cli_opt_value(cmd, args, "contract");
  o.message = cli_opt_value(cmd, args, "message");
  o.format = cli_opt_value(cmd, args, "format");
  o.expect_head = cli_opt_value(cmd, args, "expect-head");
  o.delimiter = cli_opt_value(cmd, args, "delimiter");
  o.quote = cli_opt_value(cmd, args, "quote");
  o.date_format = cli_opt_value(cmd, args, "date-format");
  o.timestamp_format = cli_opt_value(cmd, args, "timestamp-format");
  o.evolve = cli_flag(cmd, args, "evolve");
  const char *mls = cli_opt_value(cmd, args, "max-line-size");
  if (mls && !parse_byte_size(mls, &o.max_line_size))
    return cli_usage_error(ctx, cmd, "invalid --max-line-size \"%s\" (expected bytes, e.g. 4194304 or 4M)", mls);
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  rc = weir_table_import(lake, args->pos[0], &o, &out, &err);
  if (ctx->progress && isatty(2)) fprintf(stderr, "\r\033[K");
  if (rc) return cli_report_error(ctx, &err);
  json_t *res = json_loads(out, 0, NULL);
  char what[600];
  snprintf(what, sizeof what, "import into %s", json_string_value(json_object_get(res, "table")));
  size_t wi;
  json_t *w;
  json_array_foreach(json_object_get(res, "warnings"), wi, w) fprintf(stderr, "warning: %s\n", json_string_value(w));
  cli_print_report_notes(ctx, json_object_get(res, "report"), what);
  if (ctx->json) {
    cli_print_json_text(out);
  } else {
    weir_free(out);
    if (ctx->verbosity >= 0 && json_is_false(json_object_get(res, "committed"))) {
      printf("Nothing imported into %s on %s (no commit): %s\n", json_string_value(json_object_get(res, "table")),
             json_string_value(json_object_get(res, "branch")), json_string_value(json_object_get(res, "reason")));
    } else if (ctx->verbosity >= 0) {
      char s[13];
      long long q = (long long)json_integer_value(json_object_get(res, "rows_quarantined"));
      long long written = (long long)json_integer_value(json_object_get(res, "rows_written"));
      printf("Imported %lld row%s into %s on %s (commit %s)", written, written == 1 ? "" : "s",
             json_string_value(json_object_get(res, "table")), json_string_value(json_object_get(res, "branch")),
             cli_short(json_string_value(json_object_get(res, "commit")), s));
      if (q) printf("; %lld row%s quarantined in %s", q, q == 1 ? "" : "s",
                    json_string_value(json_object_get(res, "quarantine_table")));
      printf("\n");
      json_t *cp = json_object_get(res, "compaction");
      if (json_is_true(json_object_get(cp, "compacted")))
        printf("Compacted %s (weir.compact.min-files): %lld files into %lld (commit %s)\n",
               json_string_value(json_object_get(cp, "table")),
               (long long)json_integer_value(json_object_get(cp, "files_rewritten")),
               (long long)json_integer_value(json_object_get(cp, "files_written")),
               cli_short(json_string_value(json_object_get(cp, "commit")), s));
      else if (json_object_get(cp, "error"))
        fprintf(stderr, "weir: warning: the append is committed, but compacting %s after it failed: %s\n",
                json_string_value(json_object_get(res, "table")),
                json_string_value(json_object_get(json_object_get(cp, "error"), "message")));
    }
  }
  json_decref(res);
  return 0;
}

int cmd_tables(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc;
  rc = weir_table_list(lake, cli_opt_value(cmd, args, "ref"), &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  json_t *arr = json_object_get(doc, "tables");
  const char *h[] = {"table", "rows", "snapshot"};
  cli_table t;
  cli_table_init(&t, 3, h);
  cli_table_right(&t, 1);
  size_t i;
  json_t *o;
  json_array_foreach(arr, i, o) {
    char rows[32], snap[32];
    snprintf(rows, sizeof rows, "%lld", (long long)json_integer_value(json_object_get(o, "record_count")));
    json_t *sid = json_object_get(o, "snapshot_id");
    if (json_is_integer(sid)) snprintf(snap, sizeof snap, "%lld", (long long)json_integer_value(sid));
    else snprintf(snap, sizeof snap, "-");
    cli_table_add(&t, json_string_value(json_object_get(o, "table")), rows, snap);
  }
  if (json_array_size(arr) == 0) printf("(no tables)\n");
  else cli_table_print(&t, stdout);
  cli_table_free(&t);
  json_decref(doc);
  return 0;
}

static char *join_strings(const json_t *arr) {
  size_t len = 1;
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) len += strlen(json_string_value(v) ? json_string_value(v) : "") + 2;
  char *s = calloc(1, len);
  json_array_foreach(arr, i, v) {
    if (i) strcat(s, ", ");
    strcat(s, json_string_value(v) ? json_string_value(v) : "");
  }
  return s;
}

/* What a contract rule checks, in a few words: "in (0, 1)", "0 to 100", "unique". */
static char *rule_text(json_t *r) {
  const char *kind = json_string_value(json_object_get(r, "kind"));
  if (!kind) kind = "?";
  json_t *v;
  if (strcmp(kind, "enum") == 0 && json_is_array(v = json_object_get(r, "values"))) {
    char *vals = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
    char *t = NULL;
    size_t n = vals ? strlen(vals) : 0;
    if (vals && n >= 2) {
      vals[n - 1] = 0; /* [a,b] -> in (a,b) */
      if (asprintf(&t, "one of (%s)", vals + 1) < 0) t = NULL;
    }
    free(vals);
    return t ? t : strdup("enum");
  }
  if (strcmp(kind, "range") == 0) {
    char *lo = json_dumps(json_object_get(r, "min"), JSON_ENCODE_ANY), *hi = json_dumps(json_object_get(r, "max"), JSON_ENCODE_ANY);
    char *t = NULL;
    if (asprintf(&t, "range %s to %s", lo && strcmp(lo, "null") ? lo : "-", hi && strcmp(hi, "null") ? hi : "-") < 0)
      t = NULL;
    free(lo);
    free(hi);
    return t ? t : strdup("range");
  }
  const char *text = json_string_value(json_object_get(r, "pattern"));
  if (!text) text = json_string_value(json_object_get(r, "sql"));
  if (!text) text = json_string_value(json_object_get(r, "expression"));
  char *t = NULL;
  if (text && asprintf(&t, "%s %s", kind, text) >= 0) return t;
  return strdup(kind);
}

/* The contract stored with the table: its name and version, then every rule. */
static void print_contract(json_t *contract) {
  if (!json_is_object(contract)) return;
  const char *name = json_string_value(json_object_get(contract, "name"));
  const char *version = json_string_value(json_object_get(contract, "version"));
  const char *mode = json_string_value(json_object_get(contract, "mode"));
  const char *owner = json_string_value(json_object_get(contract, "owner"));
  const char *origin = json_string_value(json_object_get(contract, "origin"));
  printf("contract  %s%s%s (mode %s%s%s)%s%s\n", name ? name : "(unnamed)", version ? " " : "", version ? version : "",
         mode ? mode : "fail", owner ? ", owner " : "", owner ? owner : "", origin ? ", from " : "", origin ? origin : "");
  const char *h[] = {"rule", "column", "checks", "mode"};
  cli_table t;
  cli_table_init(&t, 4, h);
  size_t i, j;
  json_t *c, *r;
  json_array_foreach(json_object_get(contract, "columns"), i, c) {
    json_array_foreach(json_object_get(c, "rules"), j, r) {
      char *what = rule_text(r);
      const char *rmode = json_string_value(json_object_get(r, "mode"));
      cli_table_add(&t, json_string_value(json_object_get(r, "name")), json_string_value(json_object_get(c, "name")),
                    what, rmode ? rmode : "");
      free(what);
    }
  }
  json_array_foreach(json_object_get(contract, "table_rules"), j, r) {
    char *what = rule_text(r);
    const char *rmode = json_string_value(json_object_get(r, "mode"));
    cli_table_add(&t, json_string_value(json_object_get(r, "name")), "(table)", what, rmode ? rmode : "");
    free(what);
  }
  if (t.nrows) {
    printf("\n");
    cli_table_print(&t, stdout);
  } else {
    printf("          (no rules: columns and types only)\n");
  }
  cli_table_free(&t);
}

int cmd_describe(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *d;
  rc = weir_table_describe(lake, args->pos[0], cli_opt_value(cmd, args, "ref"), &out, &err);
  if ((rc = cli_json_result(ctx, rc, &err, out, &d)) >= 0) return rc;
  char s[13];
  printf("table     %s\n", json_string_value(json_object_get(d, "table")));
  printf("ref       %s (commit %s)\n", json_string_value(json_object_get(d, "ref")),
         cli_short(json_string_value(json_object_get(d, "commit")), s));
  const char *comment = json_string_value(json_object_get(d, "comment"));
  if (comment) printf("comment   %s\n", comment);
  printf("rows      %lld\n", (long long)json_integer_value(json_object_get(d, "record_count")));
  json_t *sid = json_object_get(d, "snapshot_id");
  if (json_is_integer(sid)) printf("snapshot  %lld\n", (long long)json_integer_value(sid));
  printf("metadata  %s\n\n", json_string_value(json_object_get(d, "metadata_location")));
  const char *h[] = {"id", "column", "type", "weir type", "nulls", "doc", "lineage"};
  cli_table t;
  cli_table_init(&t, 7, h);
  cli_table_right(&t, 0);
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(d, "columns"), i, c) {
    char id[16];
    snprintf(id, sizeof id, "%lld", (long long)json_integer_value(json_object_get(c, "field_id")));
    char *lin = join_strings(json_object_get(c, "lineage"));
    const char *doc = json_string_value(json_object_get(c, "doc"));
    cli_table_add(&t, id, json_string_value(json_object_get(c, "name")), json_string_value(json_object_get(c, "type")),
                  json_string_value(json_object_get(c, "weir_type")),
                  json_is_true(json_object_get(c, "required")) ? "required" : "optional", doc ? doc : "", lin);
    free(lin);
  }
  cli_table_print(&t, stdout);
  cli_table_free(&t);
  json_t *contract = json_object_get(d, "contract");
  if (json_is_object(contract)) {
    printf("\n");
    print_contract(contract);
  }
  json_decref(d);
  return 0;
}

/* ---- query ----------------------------------------------------------------------------- */

/* Text of row i of a string column (every column of the wrapped query is VARCHAR). */
static char *string_cell(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t i) {
  int64_t j = a->offset + i;
  const uint8_t *valid = a->n_buffers > 0 ? a->buffers[0] : NULL;
  if (valid && !((valid[j >> 3] >> (j & 7)) & 1)) return strdup("NULL");
  const char *data = a->buffers[2];
  int64_t lo, hi;
  if (strcmp(s->format, "U") == 0) {
    lo = ((const int64_t *)a->buffers[1])[j];
    hi = ((const int64_t *)a->buffers[1])[j + 1];
  } else {
    lo = ((const int32_t *)a->buffers[1])[j];
    hi = ((const int32_t *)a->buffers[1])[j + 1];
  }
  char *cell = malloc((size_t)(hi - lo) + 1);
  memcpy(cell, data + lo, (size_t)(hi - lo));
  cell[hi - lo] = 0;
  /* One line per row: show line breaks in values escaped. */
  for (char *p = cell; *p; p++)
    if (*p == '\n' || *p == '\r' || *p == '\t') *p = ' ';
  return cell;
}

int cmd_query(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *format = cli_opt_value(cmd, args, "format");
  const char *output = cli_opt_value(cmd, args, "output");
  const char *ref = cli_opt_value(cmd, args, "ref");
  /* --json is the shape of what goes to standard output: with --output the data goes to
   * the file in the format its extension names, and the report is JSON. */
  if (ctx->json && !format && !output) format = "json";
  if (!format && output) {
    /* Like import, the output file's extension names its format. */
    const char *dot = strrchr(output, '.');
    if (dot && strcmp(dot, ".parquet") == 0) format = "parquet";
    else if (dot && (strcmp(dot, ".json") == 0)) format = "json";
    else format = "csv";
  }
  if (cli_flag(cmd, args, "explain")) {
    if (cli_opt_value(cmd, args, "format") || output)
      return cli_usage_error(ctx, cmd, "--explain prints the plan: it takes no --format or --output");
    weir_lake *lake;
    int rc = cli_lake(ctx, &lake);
    if (rc) return rc;
    weir_error err = {0};
    char *doc = NULL;
    if (weir_query_explain(lake, args->pos[0], ref, &doc, &err)) return cli_report_error(ctx, &err);
    if (ctx->json) {
      printf("%s\n", doc);
    } else {
      json_t *j = json_loads(doc, 0, NULL);
      size_t i;
      json_t *t;
      json_array_foreach(json_object_get(j, "tables"), i, t) {
        printf("%s: %lld of %lld files read (%lld pruned by partition, %lld by column statistics)\n",
               json_string_value(json_object_get(t, "table")),
               (long long)json_integer_value(json_object_get(t, "files_read")),
               (long long)json_integer_value(json_object_get(t, "files_total")),
               (long long)json_integer_value(json_object_get(t, "pruned_by_partition")),
               (long long)json_integer_value(json_object_get(t, "pruned_by_stats")));
      }
      json_decref(j);
    }
    weir_free(doc);
    return 0;
  }
  if (!format) format = "table";
  if (strcmp(format, "table") && strcmp(format, "csv") && strcmp(format, "json") && strcmp(format, "parquet"))
    return cli_usage_error(ctx, cmd, "unknown --format \"%s\" (expected table, csv, json or parquet)", format);
  if (strcmp(format, "table") == 0 && output)
    return cli_usage_error(ctx, cmd, "--format table prints to the terminal; use csv, json or parquet with --output");
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  if (strcmp(format, "table") != 0) {
    int64_t rows = 0;
    fflush(stdout);
    if (weir_query_export(lake, args->pos[0], ref, format, output ? output : "-", &rows, &err))
      return cli_report_error(ctx, &err);
    if (output && ctx->json)
      cli_print_json(json_pack("{s:s,s:s,s:I}", "output", output, "format", format, "rows", (json_int_t)rows));
    else if (output && ctx->verbosity >= 0)
      fprintf(stderr, "wrote %lld row%s to %s\n", (long long)rows, rows == 1 ? "" : "s", output);
    return 0;
  }
  /* Aligned text: let the engine render every value as text, then align. */
  struct ArrowArrayStream stream;
  if (weir_query_run_text(lake, args->pos[0], ref, &stream, &err)) return cli_report_error(ctx, &err);
  struct ArrowSchema schema;
  if (stream.get_schema(&stream, &schema) != 0) {
    fprintf(stderr, "error: %s\n", stream.get_last_error(&stream));
    stream.release(&stream);
    return 1;
  }
  int ncols = (int)schema.n_children;
  const char **headers = calloc((size_t)(ncols ? ncols : 1), sizeof *headers);
  for (int c = 0; c < ncols; c++) headers[c] = schema.children[c]->name;
  cli_table t;
  cli_table_init(&t, ncols, headers);
  int64_t total = 0;
  for (;;) {
    struct ArrowArray batch;
    if (stream.get_next(&stream, &batch) != 0) {
      fprintf(stderr, "error: %s\n", stream.get_last_error(&stream));
      rc = 1;
      break;
    }
    if (!batch.release) break;
    for (int64_t r = 0; r < batch.length; r++) {
      char **cells = calloc((size_t)(ncols ? ncols : 1), sizeof *cells);
      for (int c = 0; c < ncols; c++) cells[c] = string_cell(schema.children[c], batch.children[c], batch.offset + r);
      cli_table_addv(&t, cells);
      free(cells);
    }
    total += batch.length;
    batch.release(&batch);
  }
  if (rc == 0) {
    if (ncols) cli_table_print(&t, stdout);
    if (ctx->verbosity >= 0) printf("(%lld row%s)\n", (long long)total, total == 1 ? "" : "s");
  }
  cli_table_free(&t);
  free(headers);
  schema.release(&schema);
  stream.release(&stream);
  return rc;
}
