/* Reading CSV, Parquet and JSON-lines files: inferred types, strict CSV with errors that
 * name file and line, missing and empty files. */
#include "engine_test_util.h"

#include <sys/stat.h>

static char *write_file(const char *dir, const char *name, const char *content) {
  char *path = wr_asprintf("%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  fputs(content, f);
  fclose(f);
  return path;
}

static const char *format_of(const wr_arrow_table *t, const char *col) {
  long i = wr_arrow_table_find(t, col);
  return i < 0 ? "(missing)" : t->schema.children[i]->format;
}

static int64_t nulls_of(const wr_arrow_table *t, const char *col) {
  long c = wr_arrow_table_find(t, col);
  int64_t n = 0;
  for (size_t b = 0; c >= 0 && b < t->n_batches; b++) {
    const struct ArrowArray *batch = wr_arrow_batch_array(t->batches[b]);
    n += wr_arrow_null_count(batch->children[c]);
  }
  return n;
}

TEST(titanic_csv_types_and_nulls) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  CHECK_OK(wr_engine_read_file(e, test_source_path("examples/titanic/data/titanic.csv"), WEIR_FORMAT_AUTO, &t, &err),
           &err);
  CHECK_INT(t.n_rows, 891);
  CHECK_INT(wr_arrow_table_ncols(&t), 12);
  CHECK_STR(format_of(&t, "PassengerId"), "l");
  CHECK_STR(format_of(&t, "Survived"), "l");
  CHECK_STR(format_of(&t, "Name"), "U");
  CHECK_STR(format_of(&t, "Age"), "g");
  CHECK_STR(format_of(&t, "Fare"), "g");
  CHECK_STR(format_of(&t, "Embarked"), "U");
  CHECK_INT(nulls_of(&t, "Age"), 177);
  CHECK_INT(nulls_of(&t, "Embarked"), 2);
  CHECK_INT(nulls_of(&t, "Cabin"), 687);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

TEST(ragged_rows_name_file_and_line) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  /* Too many fields in the sample (the sniffer's case) ... */
  char *p = write_file(dir, "bad.csv", "a,b,c\n1,2,3\n4,5,6\n7,8,9\n10,11,12,13\n14,15,16\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  char *want = wr_asprintf("%s line 5: expected 3 fields, found 4", p);
  CHECK_STR(err.message, want);
  free(want);
  free(p);
  /* ... too few ... */
  p = write_file(dir, "short.csv", "a,b,c\n1,2,3\n4,5\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  want = wr_asprintf("%s line 3: expected 3 fields, found 2", p);
  CHECK_STR(err.message, want);
  free(want);
  free(p);
  /* ... and past the 20,480-row sample, where DuckDB's scanner finds it. */
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, "id,name\n");
  for (int i = 0; i < 30000; i++) wr_buf_printf(&b, "%d,n%d\n", i, i);
  wr_buf_puts(&b, "30000,x,extra\n");
  p = write_file(dir, "late.csv", wr_buf_cstr(&b));
  wr_buf_free(&b);
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_CSV, &t, &err), WEIR_EINPUT);
  want = wr_asprintf("%s line 30002: expected 2 fields, found 3", p);
  CHECK_STR(err.message, want);
  free(want);
  free(p);
  weir_error_clear(&err);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(unterminated_quote_and_bad_utf8) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  char *p = write_file(dir, "quote.csv", "a,b,c\n1,2,3\n4,\"5,6\n7,8,9\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  char *want = wr_asprintf("%s line 3: a quoted value is not terminated", p);
  CHECK_STR(err.message, want);
  free(want);
  free(p);
  p = write_file(dir, "latin1.csv", "a,b\n1,caf\xe9\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, p);
  CHECK_CONTAINS(err.message, "invalid UTF-8");
  free(p);
  weir_error_clear(&err);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(types_past_the_sample_are_inferred_exactly) {
  /* A column that looks like integers for 30,000 rows and then is not: the retry with the
   * whole file as the sample makes it text instead of failing. */
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, "id,code\n");
  for (int i = 0; i < 30000; i++) wr_buf_printf(&b, "%d,%d\n", i, i % 97);
  wr_buf_puts(&b, "30000,A7\n");
  char *p = write_file(dir, "codes.csv", wr_buf_cstr(&b));
  wr_buf_free(&b);
  wr_arrow_table t;
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK(err.message == NULL); /* the first attempt's error does not linger */
  CHECK_INT(t.n_rows, 30001);
  CHECK_STR(format_of(&t, "id"), "l");
  CHECK_STR(format_of(&t, "code"), "U");
  wr_arrow_table_release(&t);
  free(p);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(tsv_quoting_crlf_and_header_only) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  char *p = write_file(dir, "x.tsv", "a\tb\n1\thello, world\n2\t\"q\"\"uoted\"\n");
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(t.n_rows, 2);
  CHECK_INT(wr_arrow_table_ncols(&t), 2);
  wr_arrow_table_release(&t);
  free(p);
  p = write_file(dir, "crlf.csv", "a,b\r\n1,\"x\r\ny\"\r\n3,z\r\n");
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(t.n_rows, 2);
  CHECK_STR(format_of(&t, "a"), "l");
  wr_arrow_table_release(&t);
  free(p);
  /* Only a header: zero rows, the header's columns. */
  p = write_file(dir, "header.csv", "alpha,beta,gamma\n");
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(t.n_rows, 0);
  CHECK_INT(wr_arrow_table_ncols(&t), 3);
  CHECK(wr_arrow_table_find(&t, "gamma") == 2);
  wr_arrow_table_release(&t);
  free(p);
  /* An empty file: no columns, no rows. */
  p = write_file(dir, "empty.csv", "");
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(t.n_rows, 0);
  CHECK_INT(wr_arrow_table_ncols(&t), 0);
  wr_arrow_table_release(&t);
  free(p);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(missing_files_and_unknown_formats) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  char *p = wr_asprintf("%s/nope.csv", dir);
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, p);
  free(p);
  p = write_file(dir, "data.xlsx", "x");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "unknown file type");
  free(p);
  CHECK_INT(wr_engine_read_file(e, dir, WEIR_FORMAT_CSV, &t, &err), WEIR_EINPUT);
  p = write_file(dir, "fake.parquet", "this is not parquet");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "cannot read ");
  free(p);
  wr_file_format f;
  CHECK(wr_file_format_parse("CSV", &f) && f == WEIR_FORMAT_CSV);
  CHECK(wr_file_format_parse("ndjson", &f) && f == WEIR_FORMAT_JSONL);
  CHECK(wr_file_format_parse("json", &f) && f == WEIR_FORMAT_JSONL);
  CHECK(wr_file_format_parse("parquet", &f) && f == WEIR_FORMAT_PARQUET);
  CHECK(!wr_file_format_parse("xml", &f));
  weir_error_clear(&err);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(parquet_and_json_lines) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  char *sql = wr_asprintf("COPY (SELECT range AS id, 'n' || range AS name, range / 2.0 AS half, "
                            "DATE '2024-01-01' + range::INT AS day FROM range(5000)) TO '%s/t.parquet' (FORMAT parquet)",
                            dir);
  CHECK_OK(wr_engine_exec(e, sql, &err), &err);
  free(sql);
  char *p = wr_asprintf("%s/t.parquet", dir);
  wr_arrow_table t;
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(t.n_rows, 5000);
  CHECK_STR(format_of(&t, "id"), "l");
  CHECK_STR(format_of(&t, "name"), "U");
  CHECK_STR(format_of(&t, "day"), "tdD");
  wr_arrow_table_release(&t);
  free(p);
  /* JSON lines, with a key that first appears after DuckDB's default sample. */
  wr_buf b = WEIR_BUF_INIT;
  for (int i = 0; i < 25000; i++) wr_buf_printf(&b, "{\"a\": %d, \"s\": \"v%d\"}\n", i, i);
  wr_buf_puts(&b, "{\"a\": 1, \"s\": \"x\", \"late\": true}\n");
  p = write_file(dir, "rows.jsonl", wr_buf_cstr(&b));
  wr_buf_free(&b);
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(t.n_rows, 25001);
  CHECK_STR(format_of(&t, "a"), "l");
  CHECK_STR(format_of(&t, "late"), "b");
  wr_arrow_table_release(&t);
  free(p);
  p = write_file(dir, "bad.ndjson", "{\"a\": 1}\n{\"a\": 2\n{\"a\": 3}\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, p);
  CHECK_CONTAINS(err.message, "malformed JSON");
  free(p);
  weir_error_clear(&err);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

/* Issue 13: values are read exactly or refused. Integers beyond Int64 are decimal128(38, 0);
 * a date readable both ways is refused naming line, column, value and both readings; a
 * quoted "" is an empty string; the dialect options apply; a likely delimiter warns. */
TEST(csv_values_are_exact_or_refused) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  char *p = write_file(dir, "big.csv", "id,big\n1,12345678901234567890\n2,\n");
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_STR(format_of(&t, "big"), "d:38,0,128");
  CHECK_STR(format_of(&t, "id"), "l");
  wr_arrow_table_release(&t);
  free(p);
  p = write_file(dir, "huge.csv", "n\n1\n123456789012345678901234567890123456789\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  char *want = wr_asprintf("%s line 3: column \"n\": the integer 123456789012345678901234567890123456789", p);
  CHECK_CONTAINS(err.message, want);
  free(want);
  weir_error_clear(&err);
  free(p);
  p = write_file(dir, "d.csv", "d\n01/02/2024\n");
  CHECK_INT(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "line 2: column \"d\": the date \"01/02/2024\" is ambiguous: 2024-02-01 as "
                              "%d/%m/%Y, or 2024-01-02 as %m/%d/%Y");
  weir_error_clear(&err);
  wr_read_options o = {0};
  o.date_format = "%m/%d/%Y";
  CHECK_OK(wr_engine_read_file_opts(e, p, WEIR_FORMAT_AUTO, &o, &t, &err), &err);
  CHECK_STR(format_of(&t, "d"), "tdD");
  const struct ArrowArray *col = wr_arrow_batch_array(t.batches[0])->children[0];
  CHECK_INT(((const int32_t *)col->buffers[1])[col->offset], 19724); /* 2024-01-02 */
  wr_arrow_table_release(&t);
  free(p);
  p = write_file(dir, "q.csv", "s,n\n\"\",1\n,2\n");
  CHECK_OK(wr_engine_read_file(e, p, WEIR_FORMAT_AUTO, &t, &err), &err);
  CHECK_INT(nulls_of(&t, "s"), 1);
  wr_arrow_table_release(&t);
  free(p);
  p = write_file(dir, "semi.csv", "a;b\n1;2\n");
  json_t *warnings = json_array();
  memset(&o, 0, sizeof o);
  o.warnings = warnings;
  CHECK_OK(wr_engine_read_file_opts(e, p, WEIR_FORMAT_AUTO, &o, &t, &err), &err);
  CHECK_INT(wr_arrow_table_ncols(&t), 1);
  CHECK_INT((long long)json_array_size(warnings), 1);
  CHECK_CONTAINS(json_string_value(json_array_get(warnings, 0)), "--delimiter ';'");
  wr_arrow_table_release(&t);
  o.delimiter = ';';
  json_array_clear(warnings);
  CHECK_OK(wr_engine_read_file_opts(e, p, WEIR_FORMAT_AUTO, &o, &t, &err), &err);
  CHECK_INT(wr_arrow_table_ncols(&t), 2);
  CHECK_INT((long long)json_array_size(warnings), 0);
  wr_arrow_table_release(&t);
  json_decref(warnings);
  free(p);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
