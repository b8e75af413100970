/*
 * import.c -- loading files and Arrow streams into tables: read, validate (with the
 * given contract, the table's own schema on append, or an inferred one), stage the table
 * and its quarantine, commit both at once.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "engine/file_dialect.h"
#include "lake/json_out.h"
#include "lake/lake.h"
#include "lake/serial.h"
#include "lake/stage.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"

static const char *mode_name(weir_write_mode m) {
  switch (m) {
  case WEIR_MODE_APPEND: return "append";
  case WEIR_MODE_REPLACE: return "replace";
  default: return "create";
  }
}

/* ---- shared import path ------------------------------------------------------------- */

typedef struct import_ctx {
  weir_lake *lake;
  const weir_import_options *opts;
  wr_table_id id;
  char table[2 * WEIR_NAME_MAX + 2];
  const char *branch;
  const char *source;        /* file name or "<arrow>" for messages */
  char head[WEIR_HASH_HEX_SIZE]; /* the import's base: what it reads and validates against */
  weir_contract *contract;   /* user contract, or NULL */
  bool revalidate;           /* the commit was refused only because the appended table
                                changed its schema or contract since head */
  json_t *warnings;          /* strings about the input (a likely delimiter), owned */
} import_ctx;

/* An append refused because its table's schema or contract changed meanwhile is validated
 * again against the newer version this many times before the refusal stands. */
#define REVALIDATE_ATTEMPTS 4

static int refuse_stale_base(import_ctx *ic, weir_error *err);

static int import_table(import_ctx *ic, wr_engine *engine, wr_arrow_table *data,
                        char **out_json, weir_error *err) {
  weir_lake *lake = ic->lake;
  const weir_import_options *opts = ic->opts;
  int rc;
  iceberg_table *prev = NULL;
  weir_contract *table_contract = NULL;
  stage_result res = {0};
  json_t *summary = NULL;
  char *subject = NULL, *table_subject = NULL;

  if ((rc = lake_table_at(lake, ic->head, ic->table, true, &prev, err))) goto done;
  if (prev && opts->mode == WEIR_MODE_CREATE) {
    rc = wr_seterr(err, WEIR_EEXISTS,
                     "table %s already exists on branch %s (use --mode replace or --mode append)",
                     ic->table, ic->branch);
    goto done;
  }
  /* Appending to or replacing a table that is not there is most likely a typo in its
   * name: making a new table of it would hide the mistake. */
  if (!prev && opts->mode != WEIR_MODE_CREATE) {
    /* ... unless the table was made on the branch after the head the caller expects: then
     * the base is stale (exit 4, naming the commit that made it), not the name wrong. */
    if (opts->expect_head && (rc = refuse_stale_base(ic, err))) goto done;
    rc = wr_seterr(err, WEIR_ENOTFOUND,
                     "cannot %s table %s: it does not exist on branch %s (to create it, import "
                     "in mode create, the default)",
                     opts->mode == WEIR_MODE_APPEND ? "append to" : "replace", ic->table, ic->branch);
    goto done;
  }
  /* What the data is held to. With --contract, that contract (and on an append, also the
   * table's own type). Without: on an append, or a replace of a table written through a
   * contract, the table's type (its stored contract: a replace keeps the table's type
   * unless given a new one); otherwise what the data shows. */
  bool appending = opts->mode == WEIR_MODE_APPEND && prev;
  bool has_contract = false;
  if (prev) {
    table_contract = lake_table_type(prev, ic->table, &has_contract);
    if (has_contract)
      table_subject = wr_asprintf("import of %s into %s (the table's contract %s on branch %s)", ic->source,
                                    ic->table, table_contract->name ? table_contract->name : "", ic->branch);
    else
      table_subject = wr_asprintf("import of %s into %s (the table's schema on branch %s)", ic->source,
                                    ic->table, ic->branch);
  }
  const weir_contract *check = NULL;
  bool declared = false;
  if (ic->contract) {
    check = ic->contract;
    declared = true;
    subject = wr_asprintf("import of %s into %s (contract %s)", ic->source, ic->table,
                            ic->contract->name ? ic->contract->name : "unnamed");
  } else if (appending || (prev && has_contract && opts->mode == WEIR_MODE_REPLACE)) {
    check = table_contract;
    declared = has_contract;
    subject = wr_strdup(table_subject);
  } else {
    subject = wr_asprintf("import of %s into %s", ic->source, ic->table);
  }
  /* --evolve: the given contract is the table's next type, if the change is one schema
   * evolution allows (alter.c); the rows are then held to it alone. */
  if (opts->evolve) {
    if (!ic->contract) {
      rc = wr_seterr(err, WEIR_EINVALIDARG,
                     "--evolve needs --contract: the contract %s evolves to; nothing was written", ic->table);
      goto done;
    }
    if (!prev) {
      rc = wr_seterr(err, WEIR_EINVALIDARG,
                     "--evolve evolves an existing table's schema, and %s does not exist on branch %s (create it "
                     "without --evolve); nothing was written",
                     ic->table, ic->branch);
      goto done;
    }
    if ((rc = lake_check_evolution(ic->table, table_contract, ic->contract, err))) goto done;
  }

  /* An append of no rows changes nothing: no commit (an empty snapshot would only move
   * the branch and make later appends conflict with it), reported as such. Nothing is
   * validated either, so the report cannot name a problem of data that is not there. */
  if (appending && data->n_rows == 0) {
    /* Its columns are still checked against the table's (and a given contract's) columns
     * and types: a file of the wrong shape is a mistake whether or not it has rows. Only
     * the shape: rules judge rows, and there are none. */
    const weir_contract *shapes[2] = {check, NULL};
    weir_contract *table_shape = wr_contract_from_schema(&prev->schema, ic->table);
    shapes[1] = opts->evolve ? NULL : table_shape;
    for (int k = 0; k < 2 && rc == WEIR_OK; k++) {
      if (!shapes[k]) continue;
      wr_schema cols = {0};
      wr_contract_schema(shapes[k], &cols);
      weir_contract *shape = wr_contract_from_schema(&cols, shapes[k]->name ? shapes[k]->name : ic->table);
      wr_schema_clear(&cols);
      wr_arrow_table copy;
      wr_arrow_table_init(&copy);
      wr_arrow_table_share(data, &copy);
      wr_validate_options vo = {.is_output = true, .subject = k == 0 ? subject : table_subject};
      wr_validation val;
      memset(&val, 0, sizeof val);
      rc = wr_contract_validate(shape, &copy, &vo, &val, err);
      wr_validation_clear(&val);
      wr_contract_free(shape);
    }
    wr_contract_free(table_shape);
    if (rc) goto done;
    json_t *o = json_object();
    json_object_set_new(o, "commit", json_null());
    json_object_set_new(o, "branch", json_string(ic->branch));
    json_object_set_new(o, "table", json_string(ic->table));
    json_object_set_new(o, "mode", json_string(mode_name(opts->mode)));
    json_object_set_new(o, "rows_written", json_integer(0));
    json_object_set_new(o, "rows_quarantined", json_integer(0));
    json_object_set_new(o, "quarantine_table", json_null());
    json_object_set_new(o, "report", json_null());
    json_object_set_new(o, "committed", json_false());
    json_object_set_new(o, "reason", json_string("no rows to append: the input has none, so nothing was committed"));
    json_object_set_new(o, "warnings", json_incref(ic->warnings));
    *out_json = wr_doc_dump(WR_DOC_IMPORT, o);
    rc = *out_json ? WEIR_OK : wr_oom(err);
    goto done;
  }
  summary = json_pack("{s:s,s:s}", "weir.operation", "import", "weir.source", wr_path_basename(ic->source));
  stage_request sr = {0};
  sr.table = ic->table;
  sr.mode = opts->mode;
  sr.contract = check;
  sr.declared = declared;
  sr.table_contract = appending && ic->contract && !opts->evolve ? table_contract : NULL;
  sr.subject = subject;
  sr.table_subject = table_subject;
  sr.summary = summary;
  sr.base_commit = ic->head;
  lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", "validate", "table", ic->table, "rows",
                                (json_int_t)data->n_rows));
  if ((rc = lake_stage_output(lake, engine, data, &sr, &res, err))) goto done;
  if (opts->evolve && res.n_staged > 0) res.staged[0].evolves = true;

  char *msg = opts->message ? NULL
                            : wr_asprintf("import %s into %s", wr_path_basename(ic->source), ic->table);
  lake_commit_request cr = {0};
  cr.branch = ic->branch;
  cr.base = ic->head;
  cr.revalidate = &ic->revalidate;
  cr.message = opts->message ? opts->message : msg;
  char hash[WEIR_HASH_HEX_SIZE];
  lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", "commit", "table", ic->table, "rows",
                                (json_int_t)res.rows_written));
  rc = lake_commit_staged(lake, &cr, res.staged, res.n_staged, hash, err);
  free(msg);
  if (rc) goto done;

  json_t *o = json_object();
  json_object_set_new(o, "commit", json_string(hash));
  json_object_set_new(o, "branch", json_string(ic->branch));
  json_object_set_new(o, "table", json_string(ic->table));
  json_object_set_new(o, "mode", json_string(mode_name(opts->mode)));
  json_object_set_new(o, "rows_written", json_integer(res.rows_written));
  json_object_set_new(o, "rows_quarantined", json_integer(res.rows_quarantined));
  json_object_set_new(o, "quarantine_table",
                      res.n_staged > 1 ? json_string(res.staged[1].table) : json_null());
  json_object_set_new(o, "report", res.report ? json_incref(res.report) : json_null());
  if (opts->mode == WEIR_MODE_APPEND) {
    /* The threshold is a table property another writer sets: the appended-to version has
     * it or the version committed now does not either. */
    json_t *compaction = lake_compact_threshold_set(prev) ? lake_compact_after_append(lake, ic->table, ic->branch)
                                                          : NULL;
    json_object_set_new(o, "compaction", compaction ? compaction : json_null());
  }
  json_object_set_new(o, "committed", json_true());
  json_object_set_new(o, "reason", json_null());
  json_object_set_new(o, "warnings", json_incref(ic->warnings));
  *out_json = wr_doc_dump(WR_DOC_IMPORT, o);
  if (!*out_json) rc = wr_oom(err); /* the import stands (committed); its report could not be made */

done:
  stage_result_clear(&res);
  wr_contract_free(table_contract);
  iceberg_table_free(prev);
  json_decref(summary);
  free(subject);
  free(table_subject);
  return rc;
}

/* A replace or create whose named base is already stale for its table will be refused at
 * commit (serial.h): say so now, before any data file is written. */
static int refuse_stale_base(import_ctx *ic, weir_error *err) {
  char head[WEIR_HASH_HEX_SIZE];
  int rc = lake_branch_head(ic->lake, ic->branch, head, err);
  if (rc || strcmp(head, ic->head) == 0) return rc;
  bool same_rows = false; /* only compactions since: the replace sees what it would have */
  if ((rc = lake_table_only_compacted(ic->lake, ic->table, ic->head, head, &same_rows, err)) || same_rows) return rc;
  catalog_serial_report r;
  catalog_serial_init(&r, ic->branch, ic->head, head);
  rc = catalog_serial_check_table(ic->lake->cat, &r, ic->table, false,
                                  ic->opts->mode == WEIR_MODE_REPLACE  ? "a replace never removes rows it did not read"
                                  : ic->opts->mode == WEIR_MODE_APPEND ? "this append was made against the base, "
                                                                         "where the table did not exist"
                                                                       : "this import would replace it unseen",
                                  err);
  /* A create can only fail again on the table that exists now: say what can work. */
  bool create = ic->opts->mode == WEIR_MODE_CREATE;
  if (!rc)
    rc = catalog_serial_error(&r, "concurrent update",
                              create ? "the table exists now: to add these rows to it, run it again with "
                                       "--mode append (or --mode replace to replace it)"
                                     : "run it again on the new head",
                              err);
  catalog_serial_clear(&r);
  return rc;
}

/* One character of a CSV dialect option: a single byte, not a line end; "\\t" and "tab"
 * name a tab (as typed on a command line). */
static int csv_char(const char *value, const char *what, char *out, weir_error *err) {
  *out = 0;
  if (!value) return WEIR_OK;
  if (strcmp(value, "\\t") == 0 || strcmp(value, "tab") == 0) value = "\t";
  if (strlen(value) != 1 || value[0] == '\n' || value[0] == '\r')
    return wr_seterr(err, WEIR_EINVALIDARG, "invalid %s \"%s\": it must be one character (not a line end)", what,
                     value);
  *out = value[0];
  return WEIR_OK;
}

static int check_csv_options(const weir_import_options *opts, weir_error *err) {
  char d, q;
  int rc;
  if ((rc = csv_char(opts->delimiter, "delimiter", &d, err)) || (rc = csv_char(opts->quote, "quote", &q, err)))
    return rc;
  if (d && d == (q ? q : '"'))
    return wr_seterr(err, WEIR_EINVALIDARG, "the delimiter and the quote character are both '%c'", d);
  if (opts->max_line_size < 0)
    return wr_seterr(err, WEIR_EINVALIDARG, "invalid max line size %lld: it must be positive (bytes)",
                     (long long)opts->max_line_size);
  if ((opts->date_format && !*opts->date_format) || (opts->timestamp_format && !*opts->timestamp_format))
    return wr_seterr(err, WEIR_EINVALIDARG, "an empty date or timestamp format (give a strptime format such as %%d/%%m/%%Y)");
  return WEIR_OK;
}

/* Checks everything that can be checked before reading any data. */
static int import_prepare(import_ctx *ic, weir_lake *lake, const weir_import_options *opts,
                          const char *source, weir_error *err) {
  memset(ic, 0, sizeof *ic);
  ic->lake = lake;
  ic->opts = opts;
  ic->source = source;
  if (!opts || !opts->table)
    return wr_seterr(err, WEIR_EINVALIDARG, "no table given (--table NAME)");
  int rc = wr_table_id_parse(opts->table, &ic->id, err);
  if (rc) return rc;
  wr_table_id_format(&ic->id, ic->table, sizeof ic->table);
  size_t name_len = strlen(ic->id.name);
  if (name_len >= 12 && strcmp(ic->id.name + name_len - 12, "__quarantine") == 0)
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid table name \"%s\": names ending in __quarantine are kept for rows "
                       "rejected by contracts",
                       opts->table);
  if (opts->mode != WEIR_MODE_CREATE && opts->mode != WEIR_MODE_APPEND && opts->mode != WEIR_MODE_REPLACE)
    return wr_seterr(err, WEIR_EINVALIDARG, "unknown import mode %d", (int)opts->mode);
  ic->warnings = json_array();
  if ((rc = check_csv_options(opts, err))) return rc;
  ic->branch = opts->branch ? opts->branch : "main"; /* "" is refused below */
  if ((rc = lake_write_base(lake, ic->branch, opts->expect_head, ic->head, err))) return rc;
  if (opts->expect_head && opts->mode != WEIR_MODE_APPEND && (rc = refuse_stale_base(ic, err))) return rc;
  if (opts->contract_path && (rc = wr_contract_load_file(opts->contract_path, &ic->contract, err)))
    return rc;
  /* Types a table cannot store are refused now, before any data file is written. */
  for (size_t i = 0; ic->contract && i < ic->contract->n_columns; i++) {
    const wr_contract_column *c = &ic->contract->columns[i];
    if (c->field.type.id != WEIR_TYPE_DATE64 && c->field.type.id != WEIR_TYPE_ANY) continue;
    char line[32] = "";
    if (c->line) snprintf(line, sizeof line, ":%d", c->line);
    return wr_seterr(err, WEIR_EUNSUPPORTED, "%s%s: column \"%s\" is %s, which an Iceberg table cannot store (%s)",
                     opts->contract_path, line, c->field.name,
                     c->field.type.id == WEIR_TYPE_ANY ? "Any" : "Date64",
                     c->field.type.id == WEIR_TYPE_ANY ? "declare its type" : "declare it Date32: date64 values at "
                                                                             "midnight convert exactly");
  }
  return WEIR_OK;
}

/* One attempt of lake_table_import at ic->head: read the file in the types it will be held to,
 * then validate, stage and commit. */
static int import_file(import_ctx *ic, const char *file, wr_file_format fmt, char **out_json, weir_error *err) {
  weir_lake *lake = ic->lake;
  const weir_import_options *opts = ic->opts;
  int rc;
  wr_engine *engine = NULL;
  lake_engine_kind kind = LAKE_ENGINE_OPEN;
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  /* Text formats are parsed into the declared types: the contract's, or the table's when
   * the data will be held to it (an append; a replace of a table written through a
   * contract), so that "22" in a Float64 column is 22.0 and not an int64 to refuse, and
   * an append and a replace of the same file get the same verdict. */
  wr_schema hint = {0};
  if (ic->contract) {
    wr_contract_schema(ic->contract, &hint);
  } else if (opts->mode == WEIR_MODE_APPEND || opts->mode == WEIR_MODE_REPLACE) {
    iceberg_table *prev = NULL;
    if ((rc = lake_table_at(lake, ic->head, ic->table, true, &prev, err))) goto done;
    bool held = prev && (opts->mode == WEIR_MODE_APPEND ||
                         wr_json_str(prev->properties, "weir.contract", NULL) != NULL);
    if (held) wr_schema_copy(&hint, &prev->schema);
    iceberg_table_free(prev);
  }
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_OPEN, &engine, err))) goto done;
  lake_progress(lake, json_pack("{s:s,s:s}", "phase", "read", "file", file));
  wr_read_options ro = {0};
  ro.hint = hint.n_fields ? &hint : NULL;
  (void)csv_char(opts->delimiter, "delimiter", &ro.delimiter, NULL); /* checked by import_prepare */
  (void)csv_char(opts->quote, "quote", &ro.quote, NULL);
  ro.date_format = opts->date_format;
  ro.timestamp_format = opts->timestamp_format;
  ro.max_line_size = opts->max_line_size;
  json_array_clear(ic->warnings); /* each attempt reads the file again */
  ro.warnings = ic->warnings;
  if ((rc = wr_engine_read_file_opts(engine, file, fmt, &ro, &data, err))) goto done;
  if (wr_arrow_table_ncols(&data) == 0) {
    rc = wr_seterr(err, WEIR_EINPUT, "cannot import %s: it has no columns (an empty file?)", file);
    goto done;
  }
  /* The file is read; validation (whose SQL rules come from the contract's author) and
   * the write run on a restricted engine, which reaches only the warehouse. */
  lake_engine_put(lake, engine, LAKE_ENGINE_OPEN);
  engine = NULL;
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err))) goto done;
  kind = LAKE_ENGINE_WAREHOUSE;
  rc = import_table(ic, engine, &data, out_json, err);
done:
  wr_schema_clear(&hint);
  wr_arrow_table_release(&data);
  /* Back to the pool it came from: an open engine must never serve restricted SQL. */
  if (engine) lake_engine_put(lake, engine, kind);
  return rc;
}

/* An Iceberg metadata file given as data (weir import x.metadata.json) would be read as
 * one JSON-lines row and fail, or load, in ways that say nothing about the mistake: it is
 * recognised by name, or for a .json file by content (a JSON object holding
 * format-version and table-uuid, which every Iceberg metadata file has). */
static bool is_iceberg_metadata(const char *file) {
  size_t n = strlen(file);
  if (n >= 14 && strcmp(file + n - 14, ".metadata.json") == 0) return true;
  if (n < 5 || strcmp(file + n - 5, ".json") != 0) return false;
  struct stat sb; /* a large .json file is data: metadata files are small */
  if (stat(file, &sb) != 0 || sb.st_size > (16 << 20)) return false;
  char *text = NULL;
  size_t len = 0;
  weir_error ignore = {0};
  bool yes = false;
  if (wr_fs_read(file, &text, &len, &ignore) == WEIR_OK) {
    json_t *j = json_loadb(text, len, 0, NULL);
    yes = json_is_object(j) && json_object_get(j, "format-version") && json_object_get(j, "table-uuid");
    json_decref(j);
  }
  weir_error_clear(&ignore);
  free(text);
  return yes;
}

int lake_table_import(weir_lake *lake, const char *file, const weir_import_options *opts,
                char **out_json, weir_error *err) {
  *out_json = NULL;
  import_ctx ic;
  int rc = import_prepare(&ic, lake, opts, file, err);
  if (rc) {
    json_decref(ic.warnings);
    wr_contract_free(ic.contract);
    return rc;
  }
  wr_file_format fmt = WEIR_FORMAT_AUTO;
  if (opts->format && !wr_file_format_parse(opts->format, &fmt)) {
    json_decref(ic.warnings);
    wr_contract_free(ic.contract);
    return wr_seterr(err, WEIR_EINVALIDARG, "unknown format \"%s\" (expected csv, parquet or jsonl)",
                       opts->format);
  }
  if (!file || !wr_fs_exists(file)) {
    json_decref(ic.warnings);
    wr_contract_free(ic.contract);
    return wr_seterr(err, WEIR_ENOTFOUND, "cannot import %s: no such file", file ? file : "(none)");
  }
  /* The CSV dialect options mean nothing to Parquet or JSON lines: silently ignoring one
   * would hide a mistake (the wrong file, or the wrong command). */
  wr_file_format actual = fmt;
  if (actual == WEIR_FORMAT_AUTO && !wr_file_format_from_path(file, &actual)) actual = WEIR_FORMAT_AUTO;
  const char *csv_only = opts->delimiter ? "--delimiter" : opts->quote ? "--quote" : opts->date_format ? "--date-format"
                         : opts->timestamp_format ? "--timestamp-format" : opts->max_line_size ? "--max-line-size" : NULL;
  if (csv_only && (actual == WEIR_FORMAT_PARQUET || actual == WEIR_FORMAT_JSONL)) {
    json_decref(ic.warnings);
    wr_contract_free(ic.contract);
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "%s (the SDK's %s) applies to CSV files; %s is %s, which has no CSV dialect to set", csv_only,
                     !strcmp(csv_only, "--delimiter") ? "delimiter=" : !strcmp(csv_only, "--quote") ? "quote="
                     : !strcmp(csv_only, "--date-format") ? "date_format=" : !strcmp(csv_only, "--timestamp-format")
                     ? "timestamp_format=" : "max_line_size=",
                     file, actual == WEIR_FORMAT_PARQUET ? "Parquet" : "JSON lines");
  }
  if (is_iceberg_metadata(file)) {
    json_decref(ic.warnings);
    wr_contract_free(ic.contract);
    return wr_seterr(err, WEIR_EINPUT,
                     "cannot import %s: it is an Iceberg table metadata file, not data; to adopt that table "
                     "with its data files in place, run: weir table register %s --metadata %s",
                     file, ic.table, file);
  }
  for (int attempt = 0;; attempt++) {
    rc = import_file(&ic, file, fmt, out_json, err);
    /* Validated against a contract the table no longer has: read and validate again at
     * the new head (the file may parse differently under the newer types). */
    if (rc != WEIR_ECONCURRENT || !ic.revalidate || opts->expect_head || attempt + 1 == REVALIDATE_ATTEMPTS) break;
    weir_error_clear(err);
    if ((rc = lake_branch_head(lake, ic.branch, ic.head, err))) break;
  }
  wr_contract_free(ic.contract);
  json_decref(ic.warnings);
  return rc;
}

int lake_table_import_arrow(weir_lake *lake, struct ArrowArrayStream *stream,
                      const weir_import_options *opts, char **out_json, weir_error *err) {
  *out_json = NULL;
  import_ctx ic;
  int rc = import_prepare(&ic, lake, opts, "Arrow data", err);
  if (rc) {
    json_decref(ic.warnings);
    wr_contract_free(ic.contract);
    if (stream && stream->release) stream->release(stream);
    return rc;
  }
  wr_engine *engine = NULL;
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  if ((rc = wr_arrow_table_from_stream(stream, &data, err))) goto done;
  if (wr_arrow_table_ncols(&data) == 0) {
    rc = wr_seterr(err, WEIR_EINPUT, "cannot import Arrow data with no columns into %s", ic.table);
    goto done;
  }
  {
    char *what = wr_asprintf("cannot import Arrow data into %s", ic.table);
    rc = lake_check_column_names(&data, what, err);
    free(what);
    if (rc) goto done;
  }
  /* Restricted: the contract's SQL rules reach only the warehouse. */
  if ((rc = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &engine, err))) goto done;
  for (int attempt = 0;; attempt++) {
    /* Validation consumes what it is given: each attempt gets its own references to the
     * batches, so a refused append can be validated again against a newer contract. */
    wr_arrow_table mine;
    wr_arrow_table_share(&data, &mine);
    rc = import_table(&ic, engine, &mine, out_json, err);
    wr_arrow_table_release(&mine);
    if (rc != WEIR_ECONCURRENT || !ic.revalidate || opts->expect_head || attempt + 1 == REVALIDATE_ATTEMPTS) break;
    weir_error_clear(err);
    if ((rc = lake_branch_head(lake, ic.branch, ic.head, err))) break;
  }
done:
  wr_arrow_table_release(&data);
  if (engine) lake_engine_put(lake, engine, LAKE_ENGINE_WAREHOUSE);
  wr_contract_free(ic.contract);
  json_decref(ic.warnings);
  return rc;
}
