/* Lake tables as views over Parquet files: by field id, by name, empty, and the default
 * namespace's bare and qualified names. */
#include "engine_test_util.h"

static void add_field(wr_schema *s, const char *name, const char *type, int32_t id) {
  wr_field f = {0};
  f.name = wr_strdup(name);
  wr_type_parse(type, &f.type, NULL, 0);
  f.field_id = id;
  wr_schema_add(s, &f);
  wr_field_clear(&f);
}

/* titanic.csv written as Parquet with field ids 1..12; returns the file path. */
static char *titanic_parquet(wr_engine *e, const char *dir) {
  weir_error err = {0};
  char *sql = wr_asprintf("SELECT * FROM read_csv('%s')", test_source_path("examples/titanic/data/titanic.csv"));
  const char *cols[] = {"PassengerId", "Survived", "Pclass", "Name", "Sex", "Age",
                        "SibSp", "Parch", "Ticket", "Fare", "Cabin", "Embarked"};
  int32_t ids[12];
  for (int i = 0; i < 12; i++) ids[i] = i + 1;
  wr_parquet_file *files = NULL;
  size_t n = 0;
  CHECK_OK(wr_engine_write_parquet(e, sql, dir, cols, ids, 12, 0, &files, &n, &err), &err);
  char *path = n ? wr_strdup(files[0].path) : wr_strdup("(none)");
  wr_parquet_files_free(files, n);
  free(sql);
  return path;
}

TEST(titanic_by_bare_and_qualified_name) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  char *file = titanic_parquet(e, dir);
  wr_schema s = {0};
  add_field(&s, "PassengerId", "Int64", 1);
  add_field(&s, "Survived", "Int64", 2);
  add_field(&s, "Name", "String", 4);
  add_field(&s, "Age", "Float64", 6);
  add_field(&s, "Fare", "Float64", 10);
  const char *files[] = {file};
  CHECK_OK(wr_engine_attach_table(e, "default", "titanic", &s, files, 1, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM titanic") == 891);
  CHECK(tu_double(e, "SELECT count(*) FROM default.titanic") == 891);
  CHECK(tu_double(e, "SELECT count(*) FROM \"default\".titanic") == 891);
  CHECK(tu_double(e, "SELECT count(Age) FROM titanic") == 714);
  /* Exactly the schema's columns, in its order. */
  wr_schema d;
  CHECK_OK(wr_engine_describe(e, "SELECT * FROM titanic", &d, &err), &err);
  CHECK_INT(d.n_fields, 5);
  if (d.n_fields == 5) {
    CHECK_STR(d.fields[0].name, "PassengerId");
    CHECK_STR(d.fields[3].name, "Age");
  }
  wr_schema_clear(&d);
  /* Re-attaching replaces the view (a new snapshot). */
  CHECK_OK(wr_engine_attach_table(e, "default", "titanic", &s, NULL, 0, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM titanic") == 0);
  wr_schema_clear(&s);
  free(file);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(columns_follow_field_ids) {
  /* After a rename and an added column, an old file still answers by field id. */
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  char *file = titanic_parquet(e, dir);
  wr_schema s = {0};
  add_field(&s, "passenger", "Int64", 1); /* was PassengerId */
  add_field(&s, "fare_paid", "Float64", 10); /* was Fare */
  add_field(&s, "added_later", "String", 99);
  const char *files[] = {file, file};
  CHECK_OK(wr_engine_attach_table(e, "raw", "people", &s, files, 2, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM raw.people") == 2 * 891);
  CHECK(tu_double(e, "SELECT max(passenger) FROM raw.people") == 891);
  CHECK(tu_double(e, "SELECT count(added_later) FROM raw.people") == 0);
  CHECK(tu_double(e, "SELECT round(sum(fare_paid)) FROM raw.people") == 2 * 28694);
  wr_schema_clear(&s);
  free(file);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(field_id_views_keep_every_weir_type) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  const char *cols[] = {"i", "d", "s", "b", "day", "ts", "tz", "dec", "f", "flag", "i32"};
  int32_t ids[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  wr_parquet_file *files = NULL;
  size_t n = 0;
  CHECK_OK(wr_engine_write_parquet(e,
                                     "SELECT range AS i, range / 3 AS d, 'v' || range AS s, 'x'::BLOB AS b, "
                                     "DATE '2024-01-01' + range::INT AS day, TIMESTAMP '2024-01-01' + INTERVAL (range) SECOND AS ts, "
                                     "TIMESTAMPTZ '2024-01-01 00:00:00+00' + INTERVAL (range) MINUTE AS tz, "
                                     "(range / 100)::DECIMAL(18, 2) AS dec, range::FLOAT AS f, range % 2 = 0 AS flag, "
                                     "range::INTEGER AS i32 FROM range(1000)",
                                     dir, cols, ids, 11, 0, &files, &n, &err),
           &err);
  wr_schema s = {0};
  const char *types[] = {"Int64", "Float64", "String", "Binary", "Date32", "TimestampMicro", "TimestampMicroUTC",
                         "Decimal(18, 2)", "Float32", "Bool", "Int32"};
  for (int i = 0; i < 11; i++) add_field(&s, cols[i], types[i], ids[i]);
  const char *paths[] = {n ? files[0].path : "x"};
  CHECK_OK(wr_engine_attach_table(e, "typed", "all", &s, paths, 1, &err), &err);
  wr_schema d;
  CHECK_OK(wr_engine_describe(e, "SELECT * FROM typed.all", &d, &err), &err);
  CHECK_INT(d.n_fields, 11);
  for (size_t i = 0; i < d.n_fields && i < 11; i++) {
    char buf[64];
    wr_type_name(d.fields[i].type, buf, sizeof buf);
    CHECK_STR(buf, types[i]);
  }
  wr_schema_clear(&d);
  CHECK(tu_double(e, "SELECT count(*) FROM typed.all WHERE tz > TIMESTAMPTZ '2024-01-01 10:00:00+00'") == 1000 - 601);
  wr_schema_clear(&s);
  wr_parquet_files_free(files, n);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(columns_by_name_without_field_ids) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  char *file = titanic_parquet(e, dir);
  wr_schema s = {0};
  add_field(&s, "Pclass", "Int32", 0); /* narrower than the file's BIGINT: cast */
  add_field(&s, "Sex", "String", 0);
  const char *files[] = {file};
  CHECK_OK(wr_engine_attach_table(e, "ns", "by_name", &s, files, 1, &err), &err);
  wr_schema d;
  CHECK_OK(wr_engine_describe(e, "SELECT * FROM ns.by_name", &d, &err), &err);
  char buf[64];
  if (d.n_fields == 2) {
    wr_type_name(d.fields[0].type, buf, sizeof buf);
    CHECK_STR(buf, "Int32");
  }
  wr_schema_clear(&d);
  CHECK(tu_double(e, "SELECT count(*) FROM ns.by_name WHERE Sex = 'female'") == 314);
  wr_schema_clear(&s);
  free(file);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

/* A table whose files carry field ids and files that carry none (a name mapping): probed,
 * each kind is read its own way, in one view; a file with some ids only is refused. */
TEST(probed_files_without_ids_read_by_name) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  char *with_ids = titanic_parquet(e, dir);
  char *plain = wr_asprintf("%s/plain.parquet", dir);
  char *half = wr_asprintf("%s/half.parquet", dir);
  /* Another column order, Fare absent, no field ids (DuckDB writes none unless told). */
  char *sql = wr_asprintf("COPY (SELECT 'x' AS Name, 1000::BIGINT AS PassengerId) TO '%s' (FORMAT parquet)", plain);
  CHECK_OK(wr_engine_exec(e, sql, &err), &err);
  free(sql);
  sql = wr_asprintf("COPY (SELECT 1001::BIGINT AS PassengerId, 'y' AS Name) TO '%s' (FORMAT parquet, "
                    "FIELD_IDS {PassengerId: 1})", half);
  CHECK_OK(wr_engine_exec(e, sql, &err), &err);
  free(sql);
  wr_schema s = {0};
  add_field(&s, "PassengerId", "Int64", 1);
  add_field(&s, "Name", "String", 4);
  add_field(&s, "Fare", "Float64", 10);
  const char *files[] = {with_ids, plain};
  /* Unprobed, the file without ids reads as NULLs by field id: the reason for probing. */
  CHECK_OK(wr_engine_attach_table(e, "ns", "t", &s, files, 2, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM ns.t WHERE PassengerId IS NULL") == 1);
  CHECK_OK(wr_engine_attach_table_probed(e, "ns", "t", &s, files, 2, true, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM ns.t") == 892);
  CHECK(tu_double(e, "SELECT count(*) FROM ns.t WHERE PassengerId IS NULL") == 0);
  CHECK(tu_double(e, "SELECT count(*) FROM ns.t WHERE PassengerId = 1000 AND Name = 'x' AND Fare IS NULL") == 1);
  CHECK(tu_double(e, "SELECT count(Fare) FROM ns.t") == 891);
  /* Only files without ids: by name alone. */
  const char *only[] = {plain};
  CHECK_OK(wr_engine_attach_table_probed(e, "ns", "p", &s, only, 1, true, &err), &err);
  CHECK(tu_double(e, "SELECT sum(PassengerId) FROM ns.p") == 1000);
  const char *bad[] = {with_ids, half};
  CHECK_INT(wr_engine_attach_table_probed(e, "ns", "h", &s, bad, 2, true, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, half);
  CHECK_CONTAINS(err.message, "but none for column \"Name\"");
  weir_error_clear(&err);
  wr_schema_clear(&s);
  free(with_ids);
  free(plain);
  free(half);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(empty_views_are_typed) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  wr_schema s = {0};
  add_field(&s, "id", "Int64", 1);
  add_field(&s, "ts", "TimestampMicroUTC", 2);
  add_field(&s, "amount", "Decimal(12, 3)", 3);
  add_field(&s, "odd \"name\"", "String", 4);
  add_field(&s, "whatever", "Any", 5);
  CHECK_OK(wr_engine_attach_table(e, "sales", "orders", &s, NULL, 0, &err), &err);
  CHECK(tu_double(e, "SELECT count(*) FROM sales.orders") == 0);
  wr_schema d;
  CHECK_OK(wr_engine_describe(e, "SELECT * FROM sales.orders", &d, &err), &err);
  CHECK_INT(d.n_fields, 5);
  char buf[64];
  if (d.n_fields == 5) {
    wr_type_name(d.fields[1].type, buf, sizeof buf);
    CHECK_STR(buf, "TimestampMicroUTC");
    wr_type_name(d.fields[2].type, buf, sizeof buf);
    CHECK_STR(buf, "Decimal(12, 3)");
    CHECK_STR(d.fields[3].name, "odd \"name\"");
  }
  wr_schema_clear(&d);
  /* Errors name the table. */
  const char *missing[] = {"/nonexistent/file.parquet"};
  CHECK_INT(wr_engine_attach_table(e, "sales", "gone", &s, missing, 1, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot attach table sales.gone");
  wr_schema empty = {0};
  CHECK_INT(wr_engine_attach_table(e, "sales", "none", &empty, NULL, 0, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  wr_schema_clear(&s);
  wr_engine_close(e);
}

TEST_MAIN()
