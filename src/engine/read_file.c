/*
 * read_file.c -- CSV, Parquet and JSON-lines files into Arrow tables, with DuckDB's
 * readers and their type inference.
 *
 * CSV is read strictly: DuckDB's strict_mode, no null padding, no ignored errors, so a row
 * with too many or too few fields, an unterminated quote or invalid UTF-8 stops the read
 * instead of being patched or skipped. The dialect is fixed rather than sniffed: comma
 * (tab for .tsv), double quote, quotes escaped by doubling (RFC 4180). Sniffing the
 * delimiter is exactly what a ragged file defeats: given one row with an extra field,
 * DuckDB's sniffer prefers a dialect in which every row is one column, and the file would
 * load "successfully" as a single text column. Nor are the header, the rows to skip or a
 * comment character sniffed: given a last row with an extra field, DuckDB's sniffer takes
 * that row for the header and skips everything above it, and a '#' at the start of a row
 * would drop the row as a comment. The file has a header row (checked by file_dialect.c)
 * and every other row is data. Only the column types are detected.
 *
 * Types are inferred from the whole file (sample_size = -1), which reads it twice: from a
 * sample, a column whose sampled values are whole numbers is BIGINT, and DuckDB's cast then
 * rounds a later "30001.5" to 30002 without an error, so a sample cannot be trusted.
 * JSON lines are always sampled whole: a key that first appears after the sample would be
 * dropped without any error, which is not a trade weir makes.
 *
 * DuckDB reports CSV problems with the line ("CSV Error on Line: 5") and the reason on
 * later lines of a long message; weir rewords them as "<file> line 5: expected 12 fields,
 * found 13". A problem inside the sample makes the dialect sniffer fail without a line
 * number; then the file is scanned once more with the dialect fixed, no inference (every
 * column text) and as many columns as the first record has, which makes DuckDB's scanner
 * name the line.
 */
#include "engine/engine_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "engine/file_dialect.h"
#include "util/fs.h"

/* ---- CSV ---------------------------------------------------------------------------- */

/* The dialect of one read: fixed by the caller or by default, never sniffed. */
typedef struct csv_dialect {
  char delim, quote;
  const char *date_format, *timestamp_format;
  long long max_line_size;
} csv_dialect;

static void put_char(wr_buf *b, char c) {
  if (c == '\t') {
    wr_buf_puts(b, "'\\t'");
    return;
  }
  char s[2] = {c, 0};
  wr_eng_put_string(b, s);
}

/* allow_quoted_nulls = false: a quoted "" is the empty string, only an empty unquoted
 * field is NULL (DuckDB's default reads both as NULL, which loses the difference). */
static void csv_options(wr_buf *b, const char *path, const csv_dialect *d) {
  wr_eng_put_string(b, path);
  wr_buf_puts(b, ", delim = ");
  put_char(b, d->delim);
  wr_buf_puts(b, ", quote = ");
  put_char(b, d->quote);
  wr_buf_puts(b, ", escape = ");
  put_char(b, d->quote);
  wr_buf_puts(b, ", strict_mode = true, null_padding = false, ignore_errors = false, skip = 0, comment = '', "
                 "allow_quoted_nulls = false");
  if (d->max_line_size > 0) {
    /* DuckDB reads in buffers that must hold the longest line. */
    long long buffer = d->max_line_size * 2 > 16 * 1024 * 1024 ? d->max_line_size * 2 : 16 * 1024 * 1024;
    wr_buf_printf(b, ", max_line_size = %lld, buffer_size = %lld", d->max_line_size, buffer);
  }
  if (d->date_format) {
    wr_buf_puts(b, ", dateformat = ");
    wr_eng_put_string(b, d->date_format);
  }
  if (d->timestamp_format) {
    wr_buf_puts(b, ", timestampformat = ");
    wr_eng_put_string(b, d->timestamp_format);
  }
}

/* The regular expression a text value must match for DuckDB's cast to the type to be
 * exact, or NULL when every cast from text is as good as the text: DuckDB's cast rounds
 * '1.5' to the BIGINT 2 and '1.005' to the DECIMAL(4,2) 1.01, which would be a narrowing
 * cast applied behind the contract's back. */
static const char *exact_text_pattern(const weir_type *t, char *buf, size_t size) {
  switch (t->id) {
  case WEIR_TYPE_INT32:
  case WEIR_TYPE_INT64:
    return "\\s*[+-]?[0-9]+\\s*";
  case WEIR_TYPE_DECIMAL:
    snprintf(buf, size, "\\s*[+-]?([0-9]*\\.[0-9]{0,%d}|[0-9]+)\\s*", t->scale);
    return buf;
  /* Dates and timestamps: DuckDB's cast drops a time of day from a date, digits past the
   * unit's precision, and (for a timestamp without time zone) an offset, which moves the
   * instant. A date is a date; a timestamp has at most 6 (us) or 9 (ns) fractional digits
   * and, unless it is a UTC timestamp, no offset. */
  case WEIR_TYPE_DATE32:
  case WEIR_TYPE_DATE64:
    return "\\s*[0-9]{4,}-[0-9]{1,2}-[0-9]{1,2}\\s*";
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_US_UTC:
  case WEIR_TYPE_TS_NS_UTC: {
    bool utc = t->id == WEIR_TYPE_TS_US_UTC || t->id == WEIR_TYPE_TS_NS_UTC;
    int digits = t->id == WEIR_TYPE_TS_US || t->id == WEIR_TYPE_TS_US_UTC ? 6 : 9;
    snprintf(buf, size,
             "\\s*[0-9]{4,}-[0-9]{1,2}-[0-9]{1,2}([ T][0-9]{1,2}:[0-9]{2}(:[0-9]{2}(\\.[0-9]{0,%d})?)?)?%s\\s*",
             digits, utc ? "\\s*(Z|z|UTC|[+-][0-9]{2}(:?[0-9]{2})?)?" : "");
    return buf;
  }
  default:
    return NULL;
  }
}

/* The `types = {...}` option for the hinted columns the file has: values are then parsed
 * straight into the declared type (a column of whole numbers declared Float64 is read as
 * DOUBLE, not inferred as BIGINT and then refused as a narrowing). An Int32, Int64,
 * Decimal, date or timestamp column gets its hint only when every value of the file is a
 * literal of that
 * type (one more scan of the file, as text); otherwise it is inferred as if there were no
 * contract, and the validator reports the type it has (a column with 1.5 in it is double,
 * not int64), as it does for the same data in Parquet or JSON. Columns the file lacks are
 * left for the validator to report. */
static void csv_types_clause(wr_engine *e, const char *path, const csv_dialect *delim, const wr_schema *hint,
                             json_t *out) {
  if (!hint || hint->n_fields == 0) return;
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "DESCRIBE SELECT * FROM read_csv(");
  csv_options(&sql, path, delim);
  wr_buf_puts(&sql, ", header = true, sample_size = 1)");
  json_t *cols = NULL;
  if (wr_engine_query_json(e, wr_buf_cstr(&sql), &cols, NULL) != WEIR_OK) {
    wr_buf_free(&sql);
    return;
  }
  /* Which hinted columns need the exactness scan, and the scan itself. */
  size_t n = json_array_size(cols);
  long *field = wr_calloc(n ? n : 1, sizeof *field);
  bool *hinted = wr_calloc(n ? n : 1, sizeof *hinted);
  wr_buf check = WEIR_BUF_INIT;
  size_t n_checks = 0;
  for (size_t i = 0; i < n; i++) {
    const char *name = json_string_value(json_object_get(json_array_get(cols, i), "column_name"));
    field[i] = name ? wr_schema_find(hint, name) : -1;
    char t[64], pat[256];
    hinted[i] = field[i] >= 0 && wr_type_duckdb_name(hint->fields[field[i]].type, t, sizeof t);
    const char *re = hinted[i] ? exact_text_pattern(&hint->fields[field[i]].type, pat, sizeof pat) : NULL;
    if (!re) continue;
    wr_buf_puts(&check, n_checks++ ? ", " : "SELECT ");
    wr_buf_puts(&check, "count(*) FILTER (WHERE NOT regexp_full_match(");
    wr_eng_put_ident(&check, name);
    wr_buf_puts(&check, ", ");
    wr_eng_put_string(&check, re);
    wr_buf_printf(&check, ")) AS \"%zu\"", i);
  }
  if (n_checks > 0) {
    wr_buf_puts(&check, " FROM read_csv(");
    csv_options(&check, path, delim);
    wr_buf_puts(&check, ", header = true, all_varchar = true)");
    json_t *rows = NULL;
    json_t *row = NULL;
    if (wr_engine_query_json(e, wr_buf_cstr(&check), &rows, NULL) == WEIR_OK)
      row = json_array_get(rows, 0);
    /* A column is hinted only when the scan ran and found no inexact value; when the scan
     * itself failed, the normal read reports what is wrong with the file. */
    for (size_t i = 0; i < n; i++) {
      char key[32], pat[256];
      if (!hinted[i] || !exact_text_pattern(&hint->fields[field[i]].type, pat, sizeof pat)) continue;
      snprintf(key, sizeof key, "%zu", i);
      json_t *bad = row ? json_object_get(row, key) : NULL;
      if (!json_is_integer(bad) || json_integer_value(bad) != 0) hinted[i] = false;
    }
    json_decref(rows);
  }
  for (size_t i = 0; i < n; i++) {
    if (!hinted[i]) continue;
    const char *name = json_string_value(json_object_get(json_array_get(cols, i), "column_name"));
    char t[64];
    wr_type_duckdb_name(hint->fields[field[i]].type, t, sizeof t);
    json_object_set_new(out, name, json_string(t));
  }
  free(field);
  free(hinted);
  wr_buf_free(&check);
  json_decref(cols);
  wr_buf_free(&sql);
}

/* ", types = {'a': 'DOUBLE', ...}" from {"a": "DOUBLE", ...}; nothing when empty. */
static void types_option(const json_t *types, wr_buf *out) {
  const char *k;
  json_t *v;
  bool any = false;
  json_object_foreach((json_t *)types, k, v) {
    wr_buf_puts(out, any ? ", " : ", types = {");
    wr_eng_put_string(out, k);
    wr_buf_puts(out, ": ");
    wr_eng_put_string(out, json_string_value(v));
    any = true;
  }
  if (any) wr_buf_putc(out, '}');
}

/* `fmt` with %d and %m swapped ("%d/%m/%Y" -> "%m/%d/%Y"); false when it lacks either,
 * names one twice, or puts the year first (never ambiguous). */
static bool swapped_format(const char *fmt, char *out, size_t size) {
  if (!fmt || strlen(fmt) >= size) return false;
  int d = 0, m = 0;
  size_t i = 0;
  for (; fmt[i]; i++) {
    out[i] = fmt[i];
    if (fmt[i] == '%' && (fmt[i + 1] == 'd' || fmt[i + 1] == 'm')) {
      out[i + 1] = fmt[i + 1] == 'd' ? 'm' : 'd';
      fmt[i + 1] == 'd' ? d++ : m++;
      i++;
    }
  }
  out[i] = 0;
  /* Year first (ISO 8601's %Y-%m-%d, %Y/%m/%d) is never read day-first: no convention
   * writes year-day-month, so such a column is not ambiguous whatever its days. */
  const char *y = strstr(fmt, "%Y");
  if (!y) y = strstr(fmt, "%y");
  const char *pd = strstr(fmt, "%d"), *pm = strstr(fmt, "%m");
  if (y && pd && pm && y < pd && y < pm) return false;
  return d == 1 && m == 1;
}

#define INT_TEXT "\\s*[+-]?[0-9]+\\s*"
/* A timestamp text that ends in a UTC offset: a time of day, then Z, UTC or +hh[[:]mm]. */
#define TZ_TEXT ".*[0-9]:[0-9]{2}(:[0-9]{2}(\\.[0-9]*)?)?\\s*(Z|z|UTC|[+-][0-9]{2}(:?[0-9]{2})?)"

/* The checks that keep inferred CSV columns exact. DuckDB's inference reads a column of
 * integers beyond Int64 as DOUBLE (rounding 12345678901234567890 to 1.2345678901234567e+19)
 * and picks one reading of a date like 01/02/2024 without a word. With the whole file
 * sniffed (sniff_csv: the columns' types and the date and timestamp formats it detected),
 * one more scan of the file as text finds, for each column not declared by `types`:
 *  - DOUBLE: whether every value is an integer (then Decimal(38, 0) holds them exactly,
 *    unless one has more than 38 digits: refused) and the first integer beyond Int64 in a
 *    column with fractional values (Float64 would round it: refused);
 *  - DATE / TIMESTAMP read in a format with day and month numbers (not ISO): whether every
 *    value also reads with day and month swapped, and the first whose two readings differ
 *    (refused unless the caller named the format).
 * Adds the Decimal columns to `types`. Returns WEIR_OK, or WEIR_EINPUT naming file, line,
 * column and value. When the sniff or the scan itself fails, the read reports what is
 * wrong with the file. Lines count the header as line 1 and each record as one line. */
static int csv_exact_check(wr_engine *e, const char *path, const csv_dialect *d, json_t *types,
                           weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT Columns, DateFormat, TimestampFormat FROM sniff_csv(");
  csv_options(&sql, path, d);
  wr_buf_puts(&sql, ", header = true, sample_size = -1");
  types_option(types, &sql);
  wr_buf_putc(&sql, ')');
  json_t *rows = NULL;
  int rc = WEIR_OK;
  if (wr_engine_query_json(e, wr_buf_cstr(&sql), &rows, NULL) != WEIR_OK) goto done;
  json_t *row = json_array_get(rows, 0);
  json_t *cols = json_object_get(row, "Columns");
  if (json_is_string(cols)) { /* a LIST of STRUCTs may come back as JSON text */
    json_t *parsed = json_loads(json_string_value(cols), 0, NULL);
    json_object_set_new(row, "Columns", parsed ? parsed : json_array());
    cols = json_object_get(row, "Columns");
  }
  const char *date_fmt = d->date_format ? NULL : json_string_value(json_object_get(row, "DateFormat"));
  const char *ts_fmt = d->timestamp_format ? NULL : json_string_value(json_object_get(row, "TimestampFormat"));
  char date_swap[128], ts_swap[128];
  bool date_ambiguous = swapped_format(date_fmt, date_swap, sizeof date_swap);
  bool ts_ambiguous = swapped_format(ts_fmt, ts_swap, sizeof ts_swap);

  wr_buf q = WEIR_BUF_INIT;
  size_t n_checks = 0;
  size_t i;
  json_t *c;
  json_array_foreach(cols, i, c) {
    const char *name = json_string_value(json_object_get(c, "name"));
    const char *type = json_string_value(json_object_get(c, "type"));
    if (!name || !type) continue;
    /* A column declared Float64 (or Float32) by the contract is judged for overflow only. */
    bool declared = json_object_get(types, name) != NULL;
    bool over = strcmp(type, "DOUBLE") == 0 || strcmp(type, "FLOAT") == 0;
    bool dbl = !declared && strcmp(type, "DOUBLE") == 0;
    bool date = !declared && strcmp(type, "DATE") == 0 && date_ambiguous;
    bool ts = !declared && strcmp(type, "TIMESTAMP") == 0 && ts_ambiguous;
    bool tz = !declared && strcmp(type, "TIMESTAMP WITH TIME ZONE") == 0;
    if (!over && !date && !ts && !tz) continue;
    wr_buf col = WEIR_BUF_INIT, cond = WEIR_BUF_INIT;
    wr_eng_put_ident(&col, name);
    const char *cn = wr_buf_cstr(&col);
    wr_buf_puts(&q, n_checks++ ? ", " : "SELECT ");
    if (tz) {
      /* DuckDB infers a column mixing values with a UTC offset and values without one as
       * TIMESTAMP WITH TIME ZONE and reads the latter as UTC: a guessed time zone. The
       * first value without an offset (a time of day followed by Z, UTC or +hh[:mm]). */
      wr_buf_printf(&cond, "%s IS NOT NULL AND NOT regexp_full_match(trim(%s), '" TZ_TEXT "')", cn, cn);
      wr_buf_printf(&q, "min(__weir_line) FILTER (WHERE %s) AS \"zl%zu\", arg_min(%s, __weir_line) FILTER (WHERE %s) AS \"zv%zu\", ",
                    wr_buf_cstr(&cond), i, cn, wr_buf_cstr(&cond), i);
      wr_buf_clear(&cond);
      wr_buf_printf(&cond, "%s IS NOT NULL AND regexp_full_match(trim(%s), '" TZ_TEXT "')", cn, cn);
      wr_buf_printf(&q, "min(__weir_line) FILTER (WHERE %s) AS \"zo%zu\"", wr_buf_cstr(&cond), i);
    } else if (over) {
      /* A number beyond Float64 (1e400) casts to inf without an error; the words inf,
       * infinity and nan are what their writer meant and stay allowed. */
      wr_buf_printf(&cond, "NOT regexp_full_match(lower(trim(%s)), '[+-]?(inf|infinity|nan)') AND "
                           "isinf(TRY_CAST(trim(%s) AS DOUBLE))", cn, cn);
      wr_buf_printf(&q, "min(__weir_line) FILTER (WHERE %s) AS \"ol%zu\", arg_min(%s, __weir_line) FILTER (WHERE %s) AS \"ov%zu\"",
                    wr_buf_cstr(&cond), i, cn, wr_buf_cstr(&cond), i);
      wr_buf_clear(&cond);
    }
    if (dbl) {
      wr_buf_printf(&q, ", count(*) FILTER (WHERE %s IS NOT NULL AND NOT regexp_full_match(%s, '" INT_TEXT "')) AS \"f%zu\", ",
                    cn, cn, i);
      wr_buf_printf(&cond, "regexp_full_match(%s, '" INT_TEXT "') AND TRY_CAST(trim(%s) AS BIGINT) IS NULL", cn, cn);
      wr_buf_printf(&q, "min(__weir_line) FILTER (WHERE %s) AS \"bl%zu\", arg_min(%s, __weir_line) FILTER (WHERE %s) AS \"bv%zu\", ",
                    wr_buf_cstr(&cond), i, cn, wr_buf_cstr(&cond), i);
      wr_buf_clear(&cond);
      /* More than 38 significant digits, counted rather than cast: a failing TRY_CAST to
       * DECIMAL costs DuckDB an exception per value (measured 50x slower). */
      wr_buf_printf(&cond, "regexp_full_match(%s, '" INT_TEXT "') AND length(ltrim(ltrim(trim(%s), '+-'), '0')) > 38",
                    cn, cn);
      wr_buf_printf(&q, "min(__weir_line) FILTER (WHERE %s) AS \"hl%zu\", arg_min(%s, __weir_line) FILTER (WHERE %s) AS \"hv%zu\"",
                    wr_buf_cstr(&cond), i, cn, wr_buf_cstr(&cond), i);
    } else if (date || ts) {
      const char *fmt = date ? date_fmt : ts_fmt;
      const char *swap = date ? date_swap : ts_swap;
      const char *as = date ? "DATE" : "TIMESTAMP";
      wr_buf a = WEIR_BUF_INIT, b = WEIR_BUF_INIT;
      wr_buf_printf(&a, "CAST(try_strptime(trim(%s), ", cn);
      wr_eng_put_string(&a, fmt);
      wr_buf_printf(&a, ") AS %s)", as);
      wr_buf_printf(&b, "CAST(try_strptime(trim(%s), ", cn);
      wr_eng_put_string(&b, swap);
      wr_buf_printf(&b, ") AS %s)", as);
      wr_buf_printf(&q, "count(*) FILTER (WHERE %s IS NOT NULL AND %s IS NULL) AS \"ds%zu\", ", cn, wr_buf_cstr(&b), i);
      wr_buf_printf(&cond, "%s IS NOT NULL AND %s IS DISTINCT FROM %s", cn, wr_buf_cstr(&a), wr_buf_cstr(&b));
      wr_buf_printf(&q, "min(__weir_line) FILTER (WHERE %s) AS \"dl%zu\", arg_min(%s, __weir_line) FILTER (WHERE %s) AS \"dv%zu\", ",
                    wr_buf_cstr(&cond), i, cn, wr_buf_cstr(&cond), i);
      wr_buf_printf(&q, "arg_min(CAST(%s AS VARCHAR), __weir_line) FILTER (WHERE %s) AS \"da%zu\", ", wr_buf_cstr(&a),
                    wr_buf_cstr(&cond), i);
      wr_buf_printf(&q, "arg_min(CAST(%s AS VARCHAR), __weir_line) FILTER (WHERE %s) AS \"db%zu\"", wr_buf_cstr(&b),
                    wr_buf_cstr(&cond), i);
      wr_buf_free(&a);
      wr_buf_free(&b);
    }
    wr_buf_free(&col);
    wr_buf_free(&cond);
  }
  if (n_checks == 0) {
    wr_buf_free(&q);
    goto done;
  }
  /* Record order is file order: DuckDB preserves insertion order. */
  wr_buf_puts(&q, " FROM (SELECT row_number() OVER () + 1 AS __weir_line, * FROM read_csv(");
  csv_options(&q, path, d);
  wr_buf_puts(&q, ", header = true, all_varchar = true))");
  json_t *res = NULL;
  if (wr_engine_query_json(e, wr_buf_cstr(&q), &res, NULL) != WEIR_OK) {
    wr_buf_free(&q);
    goto done;
  }
  wr_buf_free(&q);
  json_t *r = json_array_get(res, 0);
  json_array_foreach(cols, i, c) {
    const char *name = json_string_value(json_object_get(c, "name"));
    char key[40];
    snprintf(key, sizeof key, "f%zu", i);
    snprintf(key, sizeof key, "ol%zu", i);
    json_int_t ol = json_integer_value(json_object_get(r, key));
    if (ol > 0) {
      snprintf(key, sizeof key, "ov%zu", i);
      const char *ov = json_string_value(json_object_get(r, key));
      rc = wr_seterr(err, WEIR_EINPUT,
                     "%s line %lld: column \"%s\": the number %s is beyond Float64's range and would be "
                     "stored as infinity; declare the column String in a contract to keep it as text",
                     path, (long long)ol, name, ov ? ov : "?");
      break;
    }
    snprintf(key, sizeof key, "f%zu", i);
    json_t *frac = json_object_get(r, key);
    if (json_is_integer(frac)) {
      snprintf(key, sizeof key, "hl%zu", i);
      json_int_t hl = json_integer_value(json_object_get(r, key));
      snprintf(key, sizeof key, "hv%zu", i);
      const char *hv = json_string_value(json_object_get(r, key));
      snprintf(key, sizeof key, "bl%zu", i);
      json_int_t bl = json_integer_value(json_object_get(r, key));
      snprintf(key, sizeof key, "bv%zu", i);
      const char *bv = json_string_value(json_object_get(r, key));
      if (json_integer_value(frac) == 0 && bl > 0) {
        if (hl > 0) {
          rc = wr_seterr(err, WEIR_EINPUT,
                         "%s line %lld: column \"%s\": the integer %s has more digits than any exact number "
                         "type holds (Decimal(38, 0)), and Float64 would round it; declare the column String "
                         "in a contract to keep it as text",
                         path, (long long)hl, name, hv ? hv : "?");
          break;
        }
        json_object_set_new(types, name, json_string("DECIMAL(38, 0)"));
      } else if (bl > 0) {
        rc = wr_seterr(err, WEIR_EINPUT,
                       "%s line %lld: column \"%s\": the integer %s is beyond Int64 in a column of fractional "
                       "numbers, and Float64 would round it; declare the column Decimal(P, S) or String in a "
                       "contract",
                       path, (long long)bl, name, bv ? bv : "?");
        break;
      }
      continue;
    }
    snprintf(key, sizeof key, "zl%zu", i);
    json_int_t zl = json_integer_value(json_object_get(r, key));
    if (zl > 0) {
      snprintf(key, sizeof key, "zv%zu", i);
      const char *zv = json_string_value(json_object_get(r, key));
      snprintf(key, sizeof key, "zo%zu", i);
      json_int_t zo = json_integer_value(json_object_get(r, key));
      rc = wr_seterr(err, WEIR_EINPUT,
                     "%s line %lld: column \"%s\": the timestamp \"%s\" has no UTC offset, but other values "
                     "of the column have one (line %lld); weir does not guess a time zone: give every value "
                     "an offset, or none",
                     path, (long long)zl, name, zv ? zv : "?", (long long)zo);
      break;
    }
    snprintf(key, sizeof key, "ds%zu", i);
    json_t *ds = json_object_get(r, key);
    if (!json_is_integer(ds) || json_integer_value(ds) != 0) continue;
    snprintf(key, sizeof key, "dl%zu", i);
    json_int_t dl = json_integer_value(json_object_get(r, key));
    if (dl <= 0) continue; /* every value reads the same both ways (01/01/2024) */
    bool date = strcmp(json_string_value(json_object_get(c, "type")), "DATE") == 0;
    snprintf(key, sizeof key, "dv%zu", i);
    const char *dv = json_string_value(json_object_get(r, key));
    snprintf(key, sizeof key, "da%zu", i);
    const char *da = json_string_value(json_object_get(r, key));
    snprintf(key, sizeof key, "db%zu", i);
    const char *db = json_string_value(json_object_get(r, key));
    rc = wr_seterr(err, WEIR_EINPUT,
                   "%s line %lld: column \"%s\": the %s \"%s\" is ambiguous: %s as %s, or %s as %s; say which "
                   "with --%s-format, the SDK's %s_format= (every value of the column also reads the other way)",
                   path, (long long)dl, name, date ? "date" : "timestamp", dv ? dv : "?", da ? da : "?",
                   date ? date_fmt : ts_fmt, db ? db : "?", date ? date_swap : ts_swap,
                   date ? "date" : "timestamp", date ? "date" : "timestamp");
    break;
  }
  json_decref(res);
done:
  json_decref(rows);
  wr_buf_free(&sql);
  return rc;
}

static int csv_attempt(wr_engine *e, const char *path, const csv_dialect *delim, const char *sample,
                       const char *types, wr_arrow_table *out, char **raw, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT * FROM read_csv(");
  csv_options(&sql, path, delim);
  wr_buf_printf(&sql, ", header = true, sample_size = %s%s)", sample, types);
  char *what = wr_asprintf("cannot read %s", path);
  int rc = wr_eng_query_table(e, wr_buf_cstr(&sql), false, what, out, raw, err);
  free(what);
  wr_buf_free(&sql);
  return rc;
}

/* The scan that finds the line of a structural problem: fixed dialect, no header, every
 * column text, as many columns as the first record. Fills `out` and returns true when it
 * found one. */
static bool csv_diagnose(wr_engine *e, const char *path, const csv_dialect *delim, long fields, wr_buf *out) {
  if (fields <= 0) return false;
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT * FROM read_csv(");
  csv_options(&sql, path, delim);
  wr_buf_puts(&sql, ", auto_detect = false, header = false, columns = {");
  for (long i = 0; i < fields; i++) wr_buf_printf(&sql, "%s'c%ld': 'VARCHAR'", i ? ", " : "", i);
  wr_buf_puts(&sql, "})");
  wr_arrow_table t;
  char *raw = NULL;
  bool found = false;
  if (wr_eng_query_table(e, wr_buf_cstr(&sql), false, "diagnose", &t, &raw, NULL) != 0) {
    found = raw && wr_csv_reword_error(path, raw, out);
  } else {
    wr_arrow_table_release(&t);
  }
  free(raw);
  wr_buf_free(&sql);
  return found;
}

/* The first WEIR_CSV_HEADER_MAX bytes of a file (fewer when it is shorter); caller frees. */
static char *read_prefix(const char *path, size_t *len) {
  *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *data = wr_malloc(WEIR_CSV_HEADER_MAX);
  *len = fread(data, 1, WEIR_CSV_HEADER_MAX, f);
  fclose(f);
  return data;
}

static int read_csv_file(wr_engine *e, const char *path, const wr_read_options *o, wr_arrow_table *out,
                         weir_error *err) {
  csv_dialect d = {o && o->delimiter ? o->delimiter : wr_csv_delimiter(path), o && o->quote ? o->quote : '"',
                   o ? o->date_format : NULL, o ? o->timestamp_format : NULL, o ? o->max_line_size : 0};
  const wr_schema *hint = o ? o->hint : NULL;
  char *raw = NULL;
  /* The header is checked before DuckDB sees the file: DuckDB renames a repeated name
   * ("a", "a_1") and invents one for an empty field ("column0"), which would make a
   * table whose columns nobody named. */
  size_t plen = 0;
  char *prefix = read_prefix(path, &plen);
  wr_csv_header header;
  wr_csv_header_parse(prefix ? prefix : "", plen, d.delim, d.quote, &header);
  /* Fields of the first record, for the diagnosing scan: a record that is only an opened
   * quote still has one. */
  size_t bom = plen >= 3 && memcmp(prefix, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
  long fields = header.n ? (long)header.n : plen > bom ? 1 : 0;
  /* One column whose every line holds ';', tab or '|': most likely a file in another
   * dialect read as comma-separated. Said, not refused: a one-column file of such text is
   * legitimate. */
  char likely = header.n == 1 && !(o && o->delimiter) && prefix ? wr_csv_likely_delimiter(prefix, plen) : 0;
  if (likely && o && json_is_array(o->warnings)) {
    char *w = wr_asprintf("%s was read as one column, but every line contains %s: if that is its delimiter, "
                          "say so with --delimiter %s",
                          path, likely == '\t' ? "a tab" : likely == ';' ? "';'" : "'|'",
                          likely == '\t' ? "'\\t'" : likely == ';' ? "';'" : "'|'");
    json_array_append_new(o->warnings, json_string(w));
    free(w);
  }
  free(prefix);
  int hrc = wr_csv_header_check(&header, path, err);
  wr_csv_header_clear(&header);
  if (hrc) return hrc;
  json_t *types = json_object();
  csv_types_clause(e, path, &d, hint, types);
  int rc = csv_exact_check(e, path, &d, types, err);
  wr_buf types_sql = WEIR_BUF_INIT;
  wr_buf msg = WEIR_BUF_INIT;
  if (rc) goto done;
  types_option(types, &types_sql);
  /* The whole file is the sample: inferred from 20,480 rows, a column whose first rows are
   * whole numbers is BIGINT, and DuckDB then casts a later "30001.5" to 30002 without an
   * error. Inference must see every value. */
  rc = csv_attempt(e, path, &d, "-1", wr_buf_cstr(&types_sql), out, &raw, err);
  if (rc == WEIR_OK) goto done;
  if ((raw && wr_csv_reword_error(path, raw, &msg)) || csv_diagnose(e, path, &d, fields, &msg))
    rc = wr_seterr(err, WEIR_EINPUT, "%s", wr_buf_cstr(&msg));
  else if (err)
    err->code = rc = WEIR_EINPUT; /* keep "cannot read <path>: <DuckDB's message>" */
done:
  json_decref(types);
  wr_buf_free(&msg);
  wr_buf_free(&types_sql);
  free(raw);
  return rc;
}

/* ---- JSON lines ------------------------------------------------------------------------ */

/* "Malformed JSON in file "x", at byte 9 in line 3: unexpected character." becomes
 * "<path> line 3: malformed JSON: unexpected character". */
static bool reword_json_error(const char *path, const char *m, wr_buf *out) {
  const char *at = strstr(m, " in line ");
  if (!strstr(m, "Malformed JSON") || !at) return false;
  char *end;
  long n = strtol(at + 9, &end, 10);
  if (end == at + 9) return false;
  const char *reason = *end == ':' ? end + 1 : end;
  while (*reason == ' ') reason++;
  size_t len = strcspn(reason, "\n");
  while (len > 0 && (reason[len - 1] == '.' || reason[len - 1] == ' ')) len--;
  /* DuckDB 1.5 counts the line after the offending record (measured: a bad second line
   * is reported as line 3). */
  if (n > 1) n--;
  wr_buf_printf(out, "%s line %ld: malformed JSON: ", path, n);
  wr_buf_append(out, reason, len);
  return true;
}

/* The `* REPLACE (...)` list that turns the JSON-typed columns of the file into text. A key
 * whose values have different JSON types ({"a": 1} then {"a": "x"}) is typed JSON by
 * DuckDB's reader, and its values would arrive as JSON text, a string keeping its quotes
 * ("\"x\""). json_extract_string gives each value's own text: 1, x, {"k":1}. Appends
 * nothing when no column is JSON (or the description fails: the read reports why). */
static void json_text_columns(wr_engine *e, const char *path, const char *format, wr_buf *out) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "DESCRIBE SELECT * FROM read_json(");
  wr_eng_put_string(&sql, path);
  wr_buf_printf(&sql, ", format = '%s', sample_size = -1)", format);
  json_t *cols = NULL;
  if (wr_engine_query_json(e, wr_buf_cstr(&sql), &cols, NULL) == WEIR_OK) {
    size_t i, n = 0;
    json_t *c;
    json_array_foreach(cols, i, c) {
      const char *name = json_string_value(json_object_get(c, "column_name"));
      const char *type = json_string_value(json_object_get(c, "column_type"));
      if (!name || !type || strcmp(type, "JSON") != 0) continue;
      wr_buf_puts(out, n++ ? ", " : " REPLACE (");
      wr_buf_puts(out, "json_extract_string(");
      wr_eng_put_ident(out, name);
      wr_buf_puts(out, ", '$') AS ");
      wr_eng_put_ident(out, name);
    }
    if (n) wr_buf_putc(out, ')');
  }
  json_decref(cols);
  wr_buf_free(&sql);
}

/* Refuses two keys whose names differ only in case ({"a": 1, "A": 2}, in one record or
 * two): DuckDB's names are case-insensitive and it would read the second as "A_1", a
 * column nobody named. The keys come from the records themselves (read_json_objects),
 * in order of first appearance, before DuckDB names any column. When the records cannot
 * be read, the read says why. */
static int json_check_names(wr_engine *e, const char *path, const char *format, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT k FROM (SELECT n, unnest(json_keys(json)) AS k, unnest(range(len(json_keys(json)))) "
                    "AS p FROM (SELECT row_number() OVER () AS n, json FROM read_json_objects(");
  wr_eng_put_string(&sql, path);
  wr_buf_printf(&sql, ", format = '%s')) WHERE json_type(json) = 'OBJECT') GROUP BY k ORDER BY min(n * 1000000 + p)",
                format);
  json_t *rows = NULL;
  int rc = WEIR_OK;
  if (wr_engine_query_json(e, wr_buf_cstr(&sql), &rows, NULL) == WEIR_OK) {
    size_t n = json_array_size(rows);
    for (size_t i = 0; i < n && !rc; i++)
      for (size_t j = 0; j < i && !rc; j++) {
        const char *a = json_string_value(json_object_get(json_array_get(rows, j), "k"));
        const char *b = json_string_value(json_object_get(json_array_get(rows, i), "k"));
        if (a && b && strcasecmp(a, b) == 0)
          rc = wr_seterr(err, WEIR_EINPUT,
                         "cannot read %s: columns \"%s\" and \"%s\" differ only in case (keys of its records); SQL "
                         "engines cannot tell them apart: rename one",
                         path, a, b);
      }
  }
  json_decref(rows);
  wr_buf_free(&sql);
  return rc;
}

/* Refuses a number beyond Float64's range (1e400) in a column DuckDB reads as DOUBLE: its
 * reader stores it as infinity without an error. The text of the value comes from the
 * record itself (json_extract_string keeps "1e400"); a string "inf" is no number and is
 * not judged. Names the record (the line of a JSON-lines file), column and value. */
static int json_check_overflow(wr_engine *e, const char *path, const char *format, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "DESCRIBE SELECT * FROM read_json(");
  wr_eng_put_string(&sql, path);
  wr_buf_printf(&sql, ", format = '%s', sample_size = -1)", format);
  json_t *cols = NULL;
  int rc = WEIR_OK;
  if (wr_engine_query_json(e, wr_buf_cstr(&sql), &cols, NULL) == WEIR_OK) {
    size_t i;
    json_t *c;
    json_array_foreach(cols, i, c) {
      const char *name = json_string_value(json_object_get(c, "column_name"));
      const char *type = json_string_value(json_object_get(c, "column_type"));
      if (!name || !type || (strcmp(type, "DOUBLE") != 0 && strcmp(type, "FLOAT") != 0)) continue;
      wr_buf jp = WEIR_BUF_INIT, q = WEIR_BUF_INIT, v = WEIR_BUF_INIT;
      wr_buf_puts(&jp, "$.\"");
      for (const char *p = name; *p; p++) {
        if (*p == '"' || *p == '\\') wr_buf_putc(&jp, '\\');
        wr_buf_putc(&jp, *p);
      }
      wr_buf_putc(&jp, '"');
      wr_buf_puts(&v, "json_extract_string(json, ");
      wr_eng_put_string(&v, wr_buf_cstr(&jp));
      wr_buf_putc(&v, ')');
      wr_buf_printf(&q, "SELECT n, %s AS v FROM (SELECT row_number() OVER () AS n, json FROM read_json_objects(",
                    wr_buf_cstr(&v));
      wr_eng_put_string(&q, path);
      wr_buf_printf(&q, ", format = '%s')) WHERE json_type(json, ", format);
      wr_eng_put_string(&q, wr_buf_cstr(&jp));
      wr_buf_printf(&q, ") IN ('DOUBLE', 'UBIGINT', 'BIGINT') AND isinf(TRY_CAST(%s AS DOUBLE)) ORDER BY n LIMIT 1",
                    wr_buf_cstr(&v));
      json_t *hit = NULL;
      if (wr_engine_query_json(e, wr_buf_cstr(&q), &hit, NULL) == WEIR_OK && json_array_size(hit) > 0) {
        json_t *h = json_array_get(hit, 0);
        const char *val = json_string_value(json_object_get(h, "v"));
        rc = wr_seterr(err, WEIR_EINPUT,
                       "%s %s %lld: column \"%s\": the number %s is beyond Float64's range and would be stored "
                       "as infinity; write it as a string and declare the column String in a contract",
                       path, strcmp(format, "newline_delimited") == 0 ? "line" : "record",
                       (long long)json_integer_value(json_object_get(h, "n")), name, val ? val : "?");
      }
      json_decref(hit);
      wr_buf_free(&jp);
      wr_buf_free(&q);
      wr_buf_free(&v);
      if (rc) break;
    }
  }
  json_decref(cols);
  wr_buf_free(&sql);
  return rc;
}

static int read_jsonl_file(wr_engine *e, const char *path, wr_arrow_table *out, weir_error *err) {
  /* A .json file may hold one array of objects rather than one object per line; DuckDB's
   * "auto" tells the two apart. .jsonl and .ndjson are lines. */
  char buf[1024];
  const char *format =
      strcasecmp(wr_file_extension(path, buf, sizeof buf), "json") == 0 ? "auto" : "newline_delimited";
  int nrc = json_check_names(e, path, format, err);
  if (nrc == WEIR_OK) nrc = json_check_overflow(e, path, format, err);
  if (nrc) return nrc;
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT *");
  json_text_columns(e, path, format, &sql);
  wr_buf_puts(&sql, " FROM read_json(");
  wr_eng_put_string(&sql, path);
  wr_buf_printf(&sql, ", format = '%s', sample_size = -1)", format);
  char *what = wr_asprintf("cannot read %s", path);
  char *raw = NULL;
  int rc = wr_eng_query_table(e, wr_buf_cstr(&sql), false, what, out, &raw, err);
  if (rc) {
    wr_buf msg = WEIR_BUF_INIT;
    if (raw && reword_json_error(path, raw, &msg)) wr_seterr(err, WEIR_EINPUT, "%s", wr_buf_cstr(&msg));
    else if (err) err->code = WEIR_EINPUT;
    rc = WEIR_EINPUT;
    wr_buf_free(&msg);
  }
  free(raw);
  free(what);
  wr_buf_free(&sql);
  return rc;
}

/* Refuses a Parquet file with two top-level columns whose names differ only in case
 * ("column" and "COLUMN"): DuckDB's names are case-insensitive and it would read them as
 * "column" and "COLUMN_1", a column nobody named. The names come from the footer
 * (parquet_schema: the root, then every field depth first, each group followed by its
 * children), before DuckDB renames anything. When the footer cannot be read, the read
 * says why. */
static int parquet_check_names(wr_engine *e, const char *path, weir_error *err) {
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT name, num_children FROM parquet_schema(");
  wr_eng_put_string(&sql, path);
  wr_buf_putc(&sql, ')');
  json_t *rows = NULL;
  int rc = WEIR_OK;
  if (wr_engine_query_json(e, wr_buf_cstr(&sql), &rows, NULL) == WEIR_OK && json_array_size(rows) > 1) {
    size_t n = json_array_size(rows);
    const char **top = wr_calloc(n, sizeof *top);
    size_t n_top = 0;
    /* Walk the flattened tree: `pending` counts the nodes still to skip inside the
     * current top-level group. */
    long long pending = 0;
    for (size_t i = 1; i < n; i++) {
      json_t *r = json_array_get(rows, i);
      long long kids = json_integer_value(json_object_get(r, "num_children"));
      if (pending > 0) {
        pending += kids - 1;
        continue;
      }
      top[n_top++] = json_string_value(json_object_get(r, "name"));
      pending = kids;
    }
    for (size_t i = 0; i < n_top && !rc; i++)
      for (size_t j = 0; j < i && !rc; j++)
        if (top[i] && top[j] && strcasecmp(top[i], top[j]) == 0)
          rc = wr_seterr(err, WEIR_EINPUT,
                         "cannot read %s: columns \"%s\" and \"%s\" %s (columns %zu and %zu); SQL engines "
                         "cannot tell them apart: rename one",
                         path, top[j], top[i], strcmp(top[i], top[j]) ? "differ only in case" : "have the same name",
                         j + 1, i + 1);
    free(top);
  }
  json_decref(rows);
  wr_buf_free(&sql);
  return rc;
}

static int read_parquet_file(wr_engine *e, const char *path, wr_arrow_table *out, weir_error *err) {
  int nrc = parquet_check_names(e, path, err);
  if (nrc) return nrc;
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_puts(&sql, "SELECT * FROM read_parquet(");
  wr_eng_put_string(&sql, path);
  wr_buf_putc(&sql, ')');
  char *what = wr_asprintf("cannot read %s", path);
  int rc = wr_eng_query_table(e, wr_buf_cstr(&sql), false, what, out, NULL, err);
  if (rc && err) err->code = rc = WEIR_EINPUT;
  free(what);
  wr_buf_free(&sql);
  return rc;
}

int wr_engine_read_file(wr_engine *e, const char *path, wr_file_format format,
                          wr_arrow_table *out, weir_error *err) {
  return wr_engine_read_file_typed(e, path, format, NULL, out, err);
}

int wr_engine_read_file_typed(wr_engine *e, const char *path, wr_file_format format,
                                const wr_schema *hint, wr_arrow_table *out, weir_error *err) {
  wr_read_options o = {0};
  o.hint = hint;
  return wr_engine_read_file_opts(e, path, format, &o, out, err);
}

int wr_engine_read_file_opts(wr_engine *e, const char *path, wr_file_format format,
                             const wr_read_options *opts, wr_arrow_table *out, weir_error *err) {
  wr_arrow_table_init(out);
  wr_eng_settle(e);
  if (!wr_fs_exists(path)) return wr_seterr(err, WEIR_ENOTFOUND, "cannot read %s: no such file", path);
  if (wr_fs_is_dir(path)) return wr_seterr(err, WEIR_EINPUT, "cannot read %s: it is a folder, not a file", path);
  if (format == WEIR_FORMAT_AUTO && !wr_file_format_from_path(path, &format))
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "cannot read %s: unknown file type (expected .csv, .tsv, .parquet, .jsonl, .ndjson or "
                       ".json); name the format explicitly (weir import --format csv|parquet|jsonl)",
                       path);
  switch (format) {
  case WEIR_FORMAT_CSV:
    if (wr_fs_size(path) == 0) {
      /* No header, no rows: a table with no columns (DuckDB would invent "column0"). */
      struct ArrowSchema s;
      wr_arrow_schema_init(&s, "+s", "", 0, 0);
      wr_arrow_table_set_schema(out, &s);
      return WEIR_OK;
    }
    return read_csv_file(e, path, opts, out, err);
  case WEIR_FORMAT_PARQUET: return read_parquet_file(e, path, out, err);
  case WEIR_FORMAT_JSONL: return read_jsonl_file(e, path, out, err);
  default: return wr_seterr(err, WEIR_EINVALIDARG, "cannot read %s: unknown format %d", path, (int)format);
  }
}
