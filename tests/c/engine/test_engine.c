/* The engine itself: settings, statements, errors, small results, quoting, the
 * `default.` rewrite, and the lifetime of streams against the engine. */
#include "engine_test_util.h"

#include "engine/engine_internal.h"

TEST(open_sets_utc_and_no_extension_loading) {
  wr_engine *e = tu_open();
  char *v = tu_json_value(e, "SELECT current_setting('TimeZone') AS v", "v");
  CHECK_STR(v, "\"UTC\"");
  free(v);
  v = tu_json_value(e, "SELECT current_setting('autoload_known_extensions') AS v", "v");
  CHECK_STR(v, "false");
  free(v);
  v = tu_json_value(e, "SELECT current_setting('autoinstall_known_extensions') AS v", "v");
  CHECK_STR(v, "false");
  free(v);
  v = tu_json_value(e, "SELECT current_setting('arrow_large_buffer_size') AS v", "v");
  CHECK_STR(v, "true");
  free(v);
  wr_engine_close(e);
}

TEST(open_with_options) {
  wr_engine *e = NULL;
  weir_error err = {0};
  char *tmp = test_tmpdir();
  wr_engine_options o = {2, "512MB", tmp, NULL};
  CHECK_OK(wr_engine_open(&o, &e, &err), &err);
  CHECK(tu_double(e, "SELECT current_setting('threads')::BIGINT") == 2);
  char *v = tu_json_value(e, "SELECT current_setting('memory_limit') AS v", "v");
  CHECK_CONTAINS(v, "488");
  free(v);
  wr_engine_close(e);
  wr_engine_options bad = {0, "lots", NULL, NULL};
  CHECK_INT(wr_engine_open(&bad, &e, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot open the SQL engine");
  CHECK(e == NULL);
  wr_engine_options neg = {-1, NULL, NULL, NULL};
  CHECK_INT(wr_engine_open(&neg, &e, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  test_rmtree(tmp);
  free(tmp);
}

TEST(exported_types_are_weir_types) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  CHECK_OK(wr_engine_query_table(e,
                                   "SELECT 'a'::VARCHAR AS s, '\\x00\\xff'::BLOB AS b, "
                                   "TIMESTAMPTZ '2024-01-02 03:04:05+00' AS tz, TIMESTAMP '2024-01-02' AS ts, "
                                   "1::BIGINT AS l, 1.5::DOUBLE AS d, DATE '2024-01-02' AS dt, "
                                   "12.34::DECIMAL(18,2) AS dec, true AS bo",
                                   &t, &err),
           &err);
  CHECK_INT(wr_arrow_table_ncols(&t), 9);
  const char *want[] = {"U", "Z", "tsu:UTC", "tsu:", "l", "g", "tdD", "d:18,2,128", "b"};
  for (int i = 0; i < 9 && i < wr_arrow_table_ncols(&t); i++) CHECK_STR(t.schema.children[i]->format, want[i]);
  CHECK_INT(t.n_rows, 1);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
}

TEST(errors_say_what_weir_was_doing) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_arrow_table t;
  CHECK_INT(wr_engine_query_table(e, "SELECT a FROM t WHERE a = 1 FORM t", &t, &err), WEIR_EENGINE);
  CHECK_STR(err.message, "cannot run query: Parser Error: syntax error at or near \"FORM\"");
  CHECK_INT(wr_engine_exec(e, "CREATE TABLE x (a INT); INSERT INTO x VALUES ('nope')", &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot run SQL: Conversion Error");
  CHECK(strchr(err.message, '\n') == NULL);
  /* In a statement of several lines, the line DuckDB stopped at is named. */
  CHECK_INT(wr_engine_query_table(e, "SELECT 1\nFROM nowhere_at_all", &t, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot run query: Catalog Error: Table with name nowhere_at_all does not exist");
  CHECK_CONTAINS(err.message, "(SQL line 2)");
  /* ... and given as a structured position, which the layers above read instead of the
   * message (a column named "SQL line 99" cannot fool them). */
  CHECK_INT(wr_error_sql_line(&err), 2);
  CHECK_CONTAINS(err.details, "\"kind\":\"sql_position\"");
  CHECK_INT(wr_engine_query_table(e, "SELECT \"SQL line 99\"\nFROM (SELECT 1 AS a)", &t, &err), WEIR_EENGINE);
  CHECK_INT(wr_error_sql_line(&err), 1);
  /* Errors found while rows are produced come through the stream. One thread, so that
   * the failing rows are certainly computed after the first ones were delivered. */
  wr_engine_close(e);
  wr_engine_options one = {1, NULL, NULL, NULL};
  CHECK_OK(wr_engine_open(&one, &e, &err), &err);
  struct ArrowArrayStream st;
  int rc = wr_engine_query_stream(
      e, "SELECT CAST(CASE WHEN range < 3000000 THEN range::VARCHAR ELSE 'x' END AS INT) FROM range(4000000)", &st,
      &err);
  CHECK_OK(rc, &err);
  if (rc) {
    wr_engine_close(e);
    return;
  }
  struct ArrowArray a;
  int64_t rows = 0;
  for (;;) {
    memset(&a, 0, sizeof a);
    rc = st.get_next(&st, &a);
    if (rc != 0 || !a.release) break;
    rows += a.length;
    a.release(&a);
  }
  CHECK(rc != 0);
  CHECK(rows > 0); /* rows came before the error did */
  CHECK_CONTAINS(st.get_last_error(&st), "cannot run query: Conversion Error");
  st.release(&st);
  weir_error_clear(&err);
  wr_engine_close(e);
}

TEST(exec_runs_several_statements) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  CHECK_OK(wr_engine_exec(e, "CREATE TABLE t (a INT); INSERT INTO t VALUES (1), (2); INSERT INTO t VALUES (3)", &err), &err);
  CHECK(tu_double(e, "SELECT sum(a) FROM t") == 6);
  wr_engine_close(e);
}

TEST(query_double_rules) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  double d;
  bool is_null;
  CHECK_OK(wr_engine_query_double(e, "SELECT 2.5::DECIMAL(10,2)", &d, &is_null, &err), &err);
  CHECK(d == 2.5 && !is_null);
  CHECK_OK(wr_engine_query_double(e, "SELECT sum(range) FROM range(10)", &d, &is_null, &err), &err); /* HUGEINT */
  CHECK(d == 45);
  CHECK_OK(wr_engine_query_double(e, "SELECT 7::UTINYINT", &d, &is_null, &err), &err);
  CHECK(d == 7);
  CHECK_OK(wr_engine_query_double(e, "SELECT NULL::DOUBLE", &d, &is_null, &err), &err);
  CHECK(is_null);
  CHECK_INT(wr_engine_query_double(e, "SELECT 1, 2", &d, &is_null, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "2 columns");
  CHECK_INT(wr_engine_query_double(e, "SELECT range FROM range(3)", &d, &is_null, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "3 rows");
  CHECK_INT(wr_engine_query_double(e, "SELECT 'x'", &d, &is_null, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "VARCHAR");
  CHECK_INT(wr_engine_query_double(e, "SELECT nope", &d, &is_null, &err), WEIR_EENGINE);
  weir_error_clear(&err);
  wr_engine_close(e);
}

TEST(query_json_renders_values) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  json_t *rows = NULL;
  CHECK_OK(wr_engine_query_json(e,
                                  "SELECT 1::BIGINT AS i, 2.5::DOUBLE AS d, 'x''y' AS s, NULL AS n, true AS b, "
                                  "DATE '2024-02-29' AS dt, TIMESTAMP '2024-01-02 03:04:05.25' AS ts, "
                                  "TIMESTAMPTZ '1969-12-31 23:59:59+00' AS tz, -12.05::DECIMAL(10,2) AS dec, "
                                  "'\\xAB'::BLOB || 'z'::BLOB AS bl, [1, 2] AS li, {'k': 'v'} AS st, "
                                  "'nan'::DOUBLE AS nan, 18446744073709551615::UBIGINT AS big, "
                                  "INTERVAL '1 year 2 days 3 hours' AS iv, TIME '01:02:03' AS tm, "
                                  "sum(3) AS hsum",
                                  &rows, &err),
           &err);
  CHECK_INT(json_array_size(rows), 1);
  char *s = json_dumps(json_array_get(rows, 0), JSON_COMPACT | JSON_PRESERVE_ORDER);
  CHECK_STR(s, "{\"i\":1,\"d\":2.5,\"s\":\"x'y\",\"n\":null,\"b\":true,\"dt\":\"2024-02-29\","
               "\"ts\":\"2024-01-02 03:04:05.25\",\"tz\":\"1969-12-31 23:59:59+00\",\"dec\":\"-12.05\","
               "\"bl\":\"\\\\xABz\",\"li\":[1,2],\"st\":{\"k\":\"v\"},\"nan\":\"nan\","
               "\"big\":\"18446744073709551615\",\"iv\":\"1 year 2 days 03:00:00\",\"tm\":\"01:02:03\","
               "\"hsum\":3}");
  free(s);
  json_decref(rows);
  /* Many rows across several batches, in order. */
  CHECK_OK(wr_engine_query_json(e, "SELECT range AS r FROM range(5000)", &rows, &err), &err);
  CHECK_INT(json_array_size(rows), 5000);
  CHECK_INT(json_integer_value(json_object_get(json_array_get(rows, 4321), "r")), 4321);
  json_decref(rows);
  wr_engine_close(e);
}

TEST(quoting_is_exact_for_any_input) {
  char *q = wr_sql_ident("a\"b");
  CHECK_STR(q, "\"a\"\"b\"");
  free(q);
  q = wr_sql_string("it's \\ fine");
  CHECK_STR(q, "'it''s \\ fine'");
  free(q);
  q = wr_sql_ident("");
  CHECK_STR(q, "\"\"");
  free(q);
  /* Round trip through DuckDB: what is quoted is what DuckDB reads. */
  wr_engine *e = tu_open();
  weir_error err = {0};
  const char *inputs[] = {"plain", "it's", "\"quoted\"", "back\\slash", "Ünïcødé 名前 😀", "semi;colon -- x",
                          "/* c */", "new\nline", "'; DROP TABLE x; --"};
  for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
    char *id = wr_sql_ident(inputs[i]);
    char *lit = wr_sql_string(inputs[i]);
    char *sql = wr_asprintf("SELECT %s AS %s", lit, id);
    json_t *rows = NULL;
    CHECK_OK(wr_engine_query_json(e, sql, &rows, &err), &err);
    json_t *v = json_object_get(json_array_get(rows, 0), inputs[i]);
    CHECK_STR(json_string_value(v), inputs[i]);
    json_decref(rows);
    free(sql);
    free(id);
    free(lit);
  }
  wr_engine_close(e);
}

TEST(default_namespace_rewrite) {
  size_t *map = NULL;
  char *t = wr_eng_sql_text("SELECT * FROM default.titanic JOIN DEFAULT.x ON 1", &map);
  CHECK_STR(t, "SELECT * FROM \"default\".titanic JOIN \"default\".x ON 1");
  /* Offsets map back to the caller's text: "titanic" starts at 22 there. */
  CHECK_INT(map[strstr(t, "titanic") - t], 22);
  free(map);
  free(t);
  const char *untouched[] = {
      "SELECT 'default.x' FROM t",          "SELECT \"default.x\" FROM t",
      "SELECT 1 -- default.x\nFROM t",      "SELECT 1 /* default.x /* nested */ default.y */",
      "SELECT E'\\' default.x' FROM t",     "SELECT $$ default.x $$, $tag$ default.y $tag$",
      "CREATE TABLE t (a DOUBLE DEFAULT .5)", "SELECT mydefault.x, default_x.y FROM t",
      "SELECT \"default\".x FROM t",
  };
  for (size_t i = 0; i < sizeof untouched / sizeof untouched[0]; i++) {
    t = wr_eng_sql_text(untouched[i], NULL);
    CHECK_STR(t, untouched[i]);
    free(t);
  }
  t = wr_eng_sql_text("SELECT default.\"Quoted\" FROM default.t", NULL);
  CHECK_STR(t, "SELECT \"default\".\"Quoted\" FROM \"default\".t");
  free(t);
}

TEST(stream_is_settled_by_the_next_statement) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  struct ArrowArrayStream st;
  CHECK_OK(wr_engine_query_stream(e, "SELECT range AS r FROM range(100000)", &st, &err), &err);
  struct ArrowArray a;
  CHECK_INT(st.get_next(&st, &a), 0);
  CHECK(a.release != NULL);
  int64_t seen = a.length, sum = 0;
  for (int64_t i = 0; i < a.length; i++) sum += ((const int64_t *)a.children[0]->buffers[1])[i];
  a.release(&a);
  /* Another statement on the engine while the stream is open. */
  CHECK(tu_double(e, "SELECT 42") == 42);
  CHECK_OK(wr_engine_exec(e, "CREATE TABLE z AS SELECT 1 AS q", &err), &err);
  for (;;) {
    CHECK_INT(st.get_next(&st, &a), 0);
    if (!a.release) break;
    for (int64_t i = 0; i < a.length; i++) sum += ((const int64_t *)a.children[0]->buffers[1])[i];
    seen += a.length;
    a.release(&a);
  }
  CHECK_INT(seen, 100000);
  CHECK_INT(sum, (int64_t)99999 * 100000 / 2);
  st.release(&st);
  wr_engine_close(e);
}

TEST(stream_outlives_engine_close) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  struct ArrowArrayStream st;
  CHECK_OK(wr_engine_query_stream(e, "SELECT range AS r, 'v' || range AS s FROM range(10000)", &st, &err), &err);
  wr_engine_close(e); /* the stream keeps the engine until released */
  struct ArrowSchema sc;
  CHECK_INT(st.get_schema(&st, &sc), 0);
  CHECK_INT(sc.n_children, 2);
  CHECK_STR(sc.children[1]->format, "U");
  sc.release(&sc);
  wr_arrow_table t;
  wr_arrow_table_init(&t);
  CHECK_OK(wr_arrow_table_from_stream(&st, &t, &err), &err);
  CHECK_INT(t.n_rows, 10000);
  wr_arrow_table_release(&t);
}

TEST(unreleased_stream_is_freed_with_its_result) {
  /* A stream released before it was read to the end frees its DuckDB result. */
  wr_engine *e = tu_open();
  weir_error err = {0};
  struct ArrowArrayStream st;
  CHECK_OK(wr_engine_query_stream(e, "SELECT * FROM range(1000000)", &st, &err), &err);
  st.release(&st);
  CHECK(tu_double(e, "SELECT count(*) FROM range(10)") == 10);
  wr_engine_close(e);
}

TEST(connection_is_usable_directly) {
  wr_engine *e = tu_open();
  duckdb_connection c = wr_engine_connection(e);
  duckdb_result r;
  CHECK(duckdb_query(c, "SELECT 1", &r) == DuckDBSuccess);
  duckdb_destroy_result(&r);
  wr_engine_close(e);
}

TEST_MAIN()
