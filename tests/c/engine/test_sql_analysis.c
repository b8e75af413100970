/* SQL analysis: the tables a query reads (DuckDB's parser, CTE scoping, positions) and
 * the types it returns (without reading data), and empty planning tables. */
#include "engine_test_util.h"
#include "util/json.h"

/* The refs as "schema.name@line:col" joined by spaces. */
static char *refs_text(wr_engine *e, const char *sql, int *rc_out) {
  wr_sql_table_ref *refs = NULL;
  size_t n = 0;
  weir_error err = {0};
  int rc = wr_engine_sql_tables(e, sql, &refs, &n, &err);
  if (rc_out) *rc_out = rc;
  wr_buf b = WEIR_BUF_INIT;
  if (rc) {
    wr_buf_printf(&b, "ERROR %d: %s", rc, err.message);
  } else {
    for (size_t i = 0; i < n; i++)
      wr_buf_printf(&b, "%s%s%s%s@%d:%d", i ? " " : "", refs[i].schema ? refs[i].schema : "",
                      refs[i].schema ? "." : "", refs[i].name, refs[i].line, refs[i].column);
  }
  wr_sql_table_refs_free(refs, n);
  weir_error_clear(&err);
  return wr_buf_detach(&b);
}

#define CHECK_REFS(e, sql, want)        \
  do {                                  \
    char *got_ = refs_text(e, sql, NULL); \
    CHECK_STR(got_, want);              \
    free(got_);                         \
  } while (0)

TEST(tables_of_joins_subqueries_and_unions) {
  wr_engine *e = tu_open();
  CHECK_REFS(e, "SELECT * FROM titanic", "titanic@1:15");
  CHECK_REFS(e, "SELECT o.id FROM raw.orders o JOIN customers c ON o.cid = c.id LEFT JOIN raw.orders o2 USING (id)",
             "raw.orders@1:18 customers@1:36");
  CHECK_REFS(e, "SELECT * FROM a WHERE x IN (SELECT x FROM b) AND EXISTS (SELECT 1 FROM c WHERE c.y = a.y)",
             "a@1:15 b@1:43 c@1:72");
  CHECK_REFS(e, "SELECT (SELECT max(v) FROM s1) AS m, * FROM (SELECT * FROM s2) sub",
             "s1@1:28 s2@1:60");
  CHECK_REFS(e, "SELECT a FROM u1 UNION ALL SELECT a FROM u2 EXCEPT SELECT a FROM u1",
             "u1@1:15 u2@1:42");
  CHECK_REFS(e, "SELECT *\nFROM\n  \"Weird \"\"Name\", default.titanic, main.x",
             "Weird \"Name@3:3 default.titanic@3:19 main.x@3:36");
  wr_engine_close(e);
}

TEST(ctes_are_excluded_where_they_are_in_scope) {
  wr_engine *e = tu_open();
  CHECK_REFS(e, "WITH c AS (SELECT * FROM raw.orders) SELECT * FROM c JOIN customers USING (id)",
             "raw.orders@1:26 customers@1:59");
  /* A CTE may read an earlier one; recursive CTEs read themselves. */
  CHECK_REFS(e,
             "WITH a AS (SELECT * FROM base), b AS (SELECT * FROM a) SELECT * FROM b",
             "base@1:26");
  CHECK_REFS(e,
             "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r, seed",
             "seed@1:94");
  /* A CTE name hides a table only inside its own query: this subquery reads table `c`. */
  CHECK_REFS(e, "SELECT * FROM (WITH c AS (SELECT 1) SELECT * FROM c) q, c", "c@1:57");
  /* A qualified name is never a CTE. */
  CHECK_REFS(e, "WITH orders AS (SELECT 1) SELECT * FROM orders, raw.orders", "raw.orders@1:49");
  wr_engine_close(e);
}

TEST(syntax_errors_and_non_selects) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_sql_table_ref *refs = NULL;
  size_t n = 0;
  CHECK_INT(wr_engine_sql_tables(e, "SELECT a,\n  b FORM t", &refs, &n, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "cannot parse SQL: syntax error at or near \"t\"");
  CHECK_CONTAINS(err.message, "(line 2, column 10)");
  CHECK_CONTAINS(err.details, "\"line\":2");
  CHECK_INT(wr_engine_sql_tables(e, "SELECT 1 FROM default.x WHERE (", &refs, &n, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "at end of input (line 1, column 32)"); /* in the caller's text */
  CHECK_INT(wr_engine_sql_tables(e, "CREATE TABLE x (a INT)", &refs, &n, &err), WEIR_EUNSUPPORTED);
  CHECK_INT(wr_engine_sql_tables(e, "SELECT 1; SELECT 2", &refs, &n, &err), WEIR_EUNSUPPORTED);
  CHECK_CONTAINS(err.message, "found 2");
  CHECK(refs == NULL && n == 0);
  weir_error_clear(&err);
  wr_engine_close(e);
}

static const char *type_of_field(const wr_schema *s, const char *name, char *buf, size_t size) {
  long i = wr_schema_find(s, name);
  if (i < 0) return "(missing)";
  wr_type_name(s->fields[i].type, buf, size);
  return buf;
}

TEST(describe_reads_no_data) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  /* An empty planning table for the data a model would read. */
  wr_schema src = {0};
  const char *names[] = {"id", "fare", "name", "day", "ts", "amount", "flag", "blob"};
  const char *types[] = {"Int64", "Float64", "String", "Date32", "TimestampMicroUTC", "Decimal(18, 2)", "Bool", "Binary"};
  for (int i = 0; i < 8; i++) {
    wr_field f = {0};
    f.name = (char *)names[i];
    CHECK(wr_type_parse(types[i], &f.type, NULL, 0));
    f.required = i == 0;
    wr_schema_add(&src, &f);
  }
  CHECK_OK(wr_engine_create_empty(e, "raw", "trips", &src, &err), &err);
  CHECK_OK(wr_engine_create_empty(e, "default", "people", &src, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM raw.trips") == 0);
  CHECK(tu_double(e, "SELECT count(*) FROM people") == 0); /* bare name for the default namespace */
  wr_schema out;
  CHECK_OK(wr_engine_describe(e,
                                "SELECT id, fare, name, day, ts, amount, flag, blob, count(*) OVER () AS n, "
                                "sum(fare) OVER () AS total, sum(id) OVER () AS ids, avg(id) OVER () AS mean, "
                                "id::TINYINT AS tiny, [id] AS list FROM raw.trips",
                                &out, &err),
           &err);
  char buf[64];
  CHECK_INT(out.n_fields, 14);
  CHECK_STR(type_of_field(&out, "id", buf, sizeof buf), "Int64");
  CHECK_STR(type_of_field(&out, "fare", buf, sizeof buf), "Float64");
  CHECK_STR(type_of_field(&out, "name", buf, sizeof buf), "String");
  CHECK_STR(type_of_field(&out, "day", buf, sizeof buf), "Date32");
  CHECK_STR(type_of_field(&out, "ts", buf, sizeof buf), "TimestampMicroUTC");
  CHECK_STR(type_of_field(&out, "amount", buf, sizeof buf), "Decimal(18, 2)");
  CHECK_STR(type_of_field(&out, "flag", buf, sizeof buf), "Bool");
  CHECK_STR(type_of_field(&out, "blob", buf, sizeof buf), "Binary");
  CHECK_STR(type_of_field(&out, "n", buf, sizeof buf), "Int64");     /* COUNT(*) */
  CHECK_STR(type_of_field(&out, "total", buf, sizeof buf), "Float64"); /* SUM(double) */
  CHECK_STR(type_of_field(&out, "mean", buf, sizeof buf), "Float64");
  /* Types without a weir name: Any, with DuckDB's name in the doc. */
  long i = wr_schema_find(&out, "ids");
  CHECK(i >= 0 && out.fields[i].type.id == WEIR_TYPE_ANY);
  if (i >= 0) CHECK_STR(out.fields[i].doc, "HUGEINT");
  i = wr_schema_find(&out, "tiny");
  if (i >= 0) CHECK_STR(out.fields[i].doc, "TINYINT");
  i = wr_schema_find(&out, "list");
  if (i >= 0) CHECK_STR(out.fields[i].doc, "BIGINT[]");
  CHECK(!out.fields[0].required);
  wr_schema_clear(&out);
  /* Aggregates over the default table by its bare and qualified names. */
  CHECK_OK(wr_engine_describe(e, "SELECT count(*) AS c, sum(fare) AS s FROM default.people GROUP BY name", &out, &err),
           &err);
  CHECK_STR(type_of_field(&out, "c", buf, sizeof buf), "Int64");
  CHECK_STR(type_of_field(&out, "s", buf, sizeof buf), "Float64");
  wr_schema_clear(&out);
  /* Errors name what failed. */
  CHECK_INT(wr_engine_describe(e, "SELECT nope FROM raw.trips", &out, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot describe query: Binder Error");
  /* A NOT NULL column refuses nulls: required columns are real constraints. */
  CHECK_INT(wr_engine_exec(e, "INSERT INTO raw.trips (id) VALUES (NULL)", &err), WEIR_EENGINE);
  weir_error_clear(&err);
  wr_schema_clear(&src);
  wr_engine_close(e);
}

TEST(describe_does_not_run_the_query) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_schema out;
  /* Running this would take very long and fail; describing it is instant. */
  CHECK_OK(wr_engine_describe(e,
                                "SELECT CAST('x' AS INT) AS boom, count(*) AS c "
                                "FROM range(1000000000000) a, range(1000000000000) b",
                                &out, &err),
           &err);
  CHECK_INT(out.n_fields, 2);
  wr_schema_clear(&out);
  wr_engine_close(e);
}

/* SQL of another dialect: DuckDB's own error for it, then the hint that names the call and
 * DuckDB's spelling; nothing when the error is something else. */
TEST(dialect_hint_for_bare_date_parts) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  const char *sql = "SELECT DATEDIFF(hour, MAX(d), current_date()) FROM range(1) t(d)";
  wr_schema out;
  CHECK_INT(wr_engine_describe(
                e,
                "SELECT DATEDIFF(hour, MAX(d::DATE), current_date()) FROM (SELECT DATE '2026-01-01' "
                "AS d)",
                &out, &err),
            WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "\"hour\"");
  wr_error_add_dialect_hint(&err, "SELECT DATEDIFF(hour, MAX(d::DATE), current_date()) FROM x");
  CHECK_CONTAINS(err.message,
                 "\n    hint: DATEDIFF(hour, MAX(d::DATE), current_date()) names its unit as a bare word, "
                 "as Spark, Databricks, SQL Server and Snowflake do; weir runs DuckDB's SQL, where the "
                 "unit is a string: write date_diff('hour', MAX(d::DATE), current_date())");
  weir_error_clear(&err);
  wr_engine_close(e);

  const char *msg = "Binder Error: Referenced column \"hour\" not found in FROM clause!";
  char *h = wr_sql_dialect_hint(sql, msg);
  CHECK_CONTAINS(h ? h : "", "write date_diff('hour', MAX(d), current_date())");
  free(h);
  /* Other spellings and functions; case and spaces as written. */
  h = wr_sql_dialect_hint("select datepart( Month , ts) from t",
                            "Binder Error: Referenced column \"Month\" not found");
  CHECK_CONTAINS(h ? h : "", "datepart( Month , ts) names its unit");
  CHECK_CONTAINS(h ? h : "", "write date_part('month', ts)");
  free(h);
  h = wr_sql_dialect_hint("SELECT TIMESTAMPDIFF(minute, a, b) FROM t", "column \"minute\" not found");
  CHECK_CONTAINS(h ? h : "", "write date_diff('minute', a, b)");
  free(h);
  h = wr_sql_dialect_hint("SELECT DATEADD(day, -1, f(a, b)) FROM t", "column \"day\" not found");
  CHECK_CONTAINS(h ? h : "", "write (f(a, b)) + INTERVAL (-1) day");
  free(h);
  h = wr_sql_dialect_hint("SELECT date_trunc(week, ts) FROM t", "column \"week\" not found");
  CHECK_CONTAINS(h ? h : "", "write date_trunc('week', ts)");
  free(h);
  /* No hint: the unit is already a string; the error is about something else; the call is
   * inside a string literal or a comment; the word is no date part. */
  CHECK(wr_sql_dialect_hint("SELECT date_diff('hour', a, b) FROM t", "column \"a\" not found") == NULL);
  CHECK(wr_sql_dialect_hint(sql, "Binder Error: Referenced column \"d\" not found") == NULL);
  CHECK(wr_sql_dialect_hint("SELECT 'DATEDIFF(hour, a, b)' -- DATEDIFF(hour, a, b)\nFROM t",
                              "column \"hour\" not found") == NULL);
  CHECK(wr_sql_dialect_hint("SELECT DATEDIFF(hours_worked, a, b) FROM t",
                              "column \"hours_worked\" not found") == NULL);
  CHECK(wr_sql_dialect_hint("SELECT my_datediff(hour, a, b) FROM t", "column \"hour\" not found") == NULL);
  CHECK(wr_sql_dialect_hint("SELECT DATEDIFF(hour, a", "column \"hour\" not found") == NULL);
}

/* The narrowing casts as "line:col from>to" (col: the CAST keyword, or the `::`) joined by spaces. */
static char *casts_text(wr_engine *e, const char *sql) {
  json_t *casts = NULL;
  weir_error err = {0};
  wr_buf b = WEIR_BUF_INIT;
  if (wr_engine_sql_casts(e, sql, &casts, &err) != WEIR_OK) {
    wr_buf_printf(&b, "ERROR: %s", err.message);
  } else {
    size_t i;
    const json_t *c;
    json_array_foreach(casts, i, c)
      wr_buf_printf(&b, "%s%d:%d %s>%s", i ? " " : "", (int)wr_json_int(c, "line", 0),
                    (int)wr_json_int(c, "column_number", 0), wr_json_str(c, "from", "?"), wr_json_str(c, "to", "?"));
  }
  json_decref(casts);
  weir_error_clear(&err);
  return wr_buf_detach(&b);
}

#define CHECK_CASTS(e, sql, want)          \
  do {                                     \
    char *got_ = casts_text(e, sql);       \
    CHECK_STR(got_, want);                 \
    free(got_);                            \
  } while (0)

TEST(narrowing_casts_by_the_binder) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  CHECK_OK(wr_engine_exec(e, "CREATE TABLE t (d DOUBLE, ns TIMESTAMP_NS, ts TIMESTAMP, dec DECIMAL(10,3), "
                             "big BIGINT, i INTEGER, s VARCHAR)", &err), &err);
  CHECK_CASTS(e, "SELECT CAST(d AS INTEGER), ns::TIMESTAMP,\n  CAST(dec AS DECIMAL(10,1)), CAST(big AS INTEGER), "
                 "CAST(s AS DATE), CAST(ts AS DATE) FROM t",
              "1:8 DOUBLE>INTEGER 1:30 TIMESTAMP_NS>TIMESTAMP 2:3 DECIMAL(10,3)>DECIMAL(10,1) 2:31 BIGINT>INTEGER "
              "2:53 VARCHAR>DATE 2:70 TIMESTAMP>DATE");
  /* Where the query hides them: WHERE, subqueries, CTEs. */
  CHECK_CASTS(e, "WITH c AS (SELECT CAST(d AS INTEGER) AS x FROM t) SELECT x FROM c WHERE x > "
                 "(SELECT max(CAST(big AS SMALLINT)) FROM t)",
              "1:19 DOUBLE>INTEGER 1:89 BIGINT>SMALLINT");
  /* Widening, representation changes, constants, TRY_CAST and checked casts: none. */
  CHECK_CASTS(e, "SELECT CAST(i AS BIGINT), CAST(big AS DOUBLE), CAST(ts AS TIMESTAMP_NS), CAST(d AS VARCHAR), "
                 "CAST(dec AS DECIMAL(12,3)), CAST(i AS DECIMAL(10,0)), '2024-01-01'::DATE, CAST(1.5 AS INTEGER), "
                 "TRY_CAST(d AS INTEGER), weir_checked_cast(d, 'INTEGER'), i + big FROM t",
              "");
  /* A query that does not bind: nothing to say (the plan reports it). */
  CHECK_CASTS(e, "SELECT CAST(nope AS INTEGER) FROM t", "");
  wr_engine_close(e);
}

/* weir_checked_cast: the macro every engine defines, with the type argument weir's
 * rewrite adds to each call. */
TEST(checked_casts_round_trip) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  CHECK(tu_double(e, "SELECT weir_checked_cast(2.0::DOUBLE, 'INTEGER')") == 2);
  CHECK(tu_double(e, "SELECT weir_checked_cast(CAST(2.5 AS DECIMAL(5,2)), 'DECIMAL(4,1)') * 10") == 25);
  /* Nested calls, strings and comments holding the name or parentheses are left alone. */
  CHECK(tu_double(e, "SELECT weir_checked_cast(weir_checked_cast(length('weir_checked_cast(x, ''INTEGER'')') "
                     "/* ) */ * 1.0, 'BIGINT'), 'INTEGER')") == 31);
  double v = 0;
  bool is_null = false;
  CHECK_OK(wr_engine_query_double(e, "SELECT WEIR_CHECKED_CAST(NULL::DOUBLE, 'integer')", &v, &is_null, &err), &err);
  CHECK(is_null);
  CHECK(wr_engine_query_double(e, "SELECT weir_checked_cast(1.5::DOUBLE, 'INTEGER')", &v, &is_null, &err) ==
        WEIR_EENGINE);
  CHECK(strstr(err.message, "DOUBLE value 1.5 does not convert exactly to INTEGER") != NULL);
  weir_error_clear(&err);
  CHECK(wr_engine_query_double(e, "SELECT weir_checked_cast(300, 'TINYINT')", &v, &is_null, &err) == WEIR_EENGINE);
  CHECK(strstr(err.message, "value 300 does not convert exactly to TINYINT") != NULL);
  weir_error_clear(&err);
  /* A type that is not a literal: the two-argument form says what is wrong. */
  CHECK(wr_engine_query_double(e, "SELECT weir_checked_cast(1, 'INT' || 'EGER')", &v, &is_null, &err) ==
        WEIR_EENGINE);
  CHECK(strstr(err.message, "must be a string literal naming a type") != NULL);
  weir_error_clear(&err);
  /* Nor is text that would close the CAST weir adds. */
  CHECK(wr_engine_query_double(e, "SELECT weir_checked_cast(1, 'INTEGER), (SELECT 2')", &v, &is_null, &err) ==
        WEIR_EENGINE);
  CHECK(strstr(err.message, "must be a string literal naming a type") != NULL);
  weir_error_clear(&err);
  wr_engine_close(e);
}

TEST_MAIN()
