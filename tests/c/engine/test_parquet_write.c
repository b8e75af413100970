/* Writing Parquet data files: field ids, zstd, statistics, several files for large
 * results, atomic appearance, and refusals that leave nothing behind. */
#include "engine_test_util.h"

#include <dirent.h>

/* Number of entries in a folder (hidden ones included). */
static int count_entries(const char *dir, int *hidden) {
  DIR *d = opendir(dir);
  int n = 0;
  if (hidden) *hidden = 0;
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0) continue;
    n++;
    if (hidden && de->d_name[0] == '.') (*hidden)++;
  }
  if (d) closedir(d);
  return n;
}

TEST(titanic_to_parquet_with_field_ids_and_stats) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  char *out_dir = wr_asprintf("%s/data/sub", dir); /* created */
  char *sql = wr_asprintf("SELECT * FROM read_csv('%s')", test_source_path("examples/titanic/data/titanic.csv"));
  const char *cols[] = {"PassengerId", "Survived", "Pclass", "Name", "Sex", "Age",
                        "SibSp", "Parch", "Ticket", "Fare", "Cabin", "Embarked"};
  int32_t ids[12];
  for (int i = 0; i < 12; i++) ids[i] = 100 + i;
  wr_parquet_file *files = NULL;
  size_t n = 0;
  CHECK_OK(wr_engine_write_parquet(e, sql, out_dir, cols, ids, 12, 0, &files, &n, &err), &err);
  CHECK_INT(n, 1);
  if (n == 1) {
    CHECK_INT(files[0].record_count, 891);
    CHECK(files[0].path[0] == '/');
    CHECK_CONTAINS(files[0].path, out_dir);
    CHECK_CONTAINS(files[0].path, ".parquet");
    CHECK_INT(strlen(wr_path_basename(files[0].path)), 36 + 8); /* <uuid>.parquet */
    CHECK_INT(files[0].file_size, wr_fs_size(files[0].path));
    json_t *age = json_object_get(files[0].column_stats, "Age");
    CHECK(age != NULL);
    CHECK_INT(json_integer_value(json_object_get(age, "null_count")), 177);
    CHECK_INT(json_integer_value(json_object_get(age, "num_values")), 891);
    CHECK_STR(json_string_value(json_object_get(age, "min")), "0.42");
    CHECK_STR(json_string_value(json_object_get(age, "max")), "80.0");
    CHECK(json_is_false(json_object_get(age, "has_nan")));
    CHECK(json_integer_value(json_object_get(age, "column_size_bytes")) > 0);
    json_t *emb = json_object_get(files[0].column_stats, "Embarked");
    CHECK_INT(json_integer_value(json_object_get(emb, "null_count")), 2);
    CHECK_STR(json_string_value(json_object_get(emb, "min")), "C");
    CHECK_STR(json_string_value(json_object_get(emb, "max")), "S");
    CHECK_INT(json_object_size(files[0].column_stats), 12);
    /* Field ids and compression, as Parquet's metadata has them. */
    char *q = wr_asprintf("SELECT count(*) FROM parquet_schema('%s') WHERE name = 'Age' AND field_id = 105",
                            files[0].path);
    CHECK(tu_double(e, q) == 1);
    free(q);
    q = wr_asprintf("SELECT count(DISTINCT field_id) FROM parquet_schema('%s') WHERE field_id >= 100", files[0].path);
    CHECK(tu_double(e, q) == 12);
    free(q);
    q = wr_asprintf("SELECT count(*) FROM parquet_metadata('%s') WHERE compression <> 'ZSTD'", files[0].path);
    CHECK(tu_double(e, q) == 0);
    free(q);
    q = wr_asprintf("SELECT sum(Fare) = (SELECT sum(Fare) FROM read_csv('%s'))::DOUBLE FROM read_parquet('%s')",
                      test_source_path("examples/titanic/data/titanic.csv"), files[0].path);
    CHECK(tu_double(e, q) == 1);
    free(q);
  }
  /* Only the data file is left: the temporary folder is gone. */
  int hidden;
  CHECK_INT(count_entries(out_dir, &hidden), 1);
  CHECK_INT(hidden, 0);
  wr_parquet_files_free(files, n);
  free(sql);
  free(out_dir);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(large_results_become_several_files) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  const char *cols[] = {"id", "label", "value"};
  int32_t ids[] = {1, 2, 3};
  wr_parquet_file *files = NULL;
  size_t n = 0;
  CHECK_OK(wr_engine_write_parquet(e,
                                     "SELECT range AS id, 'label-' || (range % 1000) AS label, "
                                     "hash(range) % 100000 / 7.0 AS value FROM range(3000000);  ",
                                     dir, cols, ids, 3, 4 << 20, &files, &n, &err),
           &err);
  CHECK(n >= 3);
  int64_t rows = 0;
  for (size_t i = 0; i < n; i++) {
    rows += files[i].record_count;
    CHECK(files[i].file_size > 0);
    CHECK(files[i].file_size < (16 << 20));
    CHECK(json_object_get(json_object_get(files[i].column_stats, "id"), "min") != NULL);
  }
  CHECK_INT(rows, 3000000);
  CHECK_INT(count_entries(dir, NULL), (int)n);
  char *q = wr_asprintf("SELECT sum(id) FROM read_parquet('%s/*.parquet')", dir);
  CHECK(tu_double(e, q) == 3000000.0 * 2999999 / 2);
  free(q);
  wr_parquet_files_free(files, n);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(registered_arrow_table_to_parquet) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  wr_arrow_table t;
  CHECK_OK(wr_engine_query_table(e, "SELECT range AS \"we\"\"ird ñame\", range * 2 AS b FROM range(10000)", &t, &err),
           &err);
  CHECK_OK(wr_engine_register_arrow(e, "src", &t, &err), &err);
  const char *cols[] = {"we\"ird ñame", "b"};
  int32_t ids[] = {7, 8};
  wr_parquet_file *files = NULL;
  size_t n = 0;
  CHECK_OK(wr_engine_write_parquet(e, "SELECT * FROM src -- trailing comment", dir, cols, ids, 2, 0, &files, &n, &err),
           &err);
  CHECK_INT(n, 1);
  if (n) {
    CHECK(json_object_get(files[0].column_stats, "we\"ird ñame") != NULL);
    char *q = wr_asprintf("SELECT field_id FROM parquet_schema('%s') WHERE name = 'we\"ird ñame'", files[0].path);
    CHECK(tu_double(e, q) == 7);
    free(q);
  }
  wr_parquet_files_free(files, n);
  wr_arrow_table_release(&t);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST(refusals_leave_nothing_behind) {
  wr_engine *e = tu_open();
  weir_error err = {0};
  char *dir = test_tmpdir();
  const char *cols[] = {"a", "b"};
  int32_t ids[] = {1, 2};
  wr_parquet_file *files = NULL;
  size_t n = 0;
  /* A result column without a field id. */
  CHECK_INT(wr_engine_write_parquet(e, "SELECT 1 AS a, 2 AS b, 3 AS c", dir, cols, ids, 2, 0, &files, &n, &err),
            WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "\"c\" has no field id");
  /* A field id for a column the query does not return. */
  CHECK_INT(wr_engine_write_parquet(e, "SELECT 1 AS a", dir, cols, ids, 2, 0, &files, &n, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "\"b\"");
  /* A query that fails while writing: no file appears, no temporary folder stays. */
  CHECK_INT(wr_engine_write_parquet(e,
                                      "SELECT range AS a, CAST(CASE WHEN range < 2000000 THEN '1' ELSE 'x' END AS INT) AS b "
                                      "FROM range(3000000)",
                                      dir, cols, ids, 2, 1 << 20, &files, &n, &err),
            WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot write Parquet: Conversion Error");
  CHECK(files == NULL && n == 0);
  CHECK_INT(count_entries(dir, NULL), 0);
  /* Bad SQL. */
  CHECK_INT(wr_engine_write_parquet(e, "SELEC 1", dir, cols, ids, 2, 0, &files, &n, &err), WEIR_EENGINE);
  CHECK_CONTAINS(err.message, "cannot write Parquet: Parser Error");
  /* Zero rows: no file. */
  CHECK_OK(wr_engine_write_parquet(e, "SELECT 1 AS a, 2 AS b WHERE false", dir, cols, ids, 2, 0, &files, &n, &err),
           &err);
  CHECK_INT(n, 0);
  CHECK_INT(count_entries(dir, NULL), 0);
  wr_parquet_files_free(files, n);
  weir_error_clear(&err);
  wr_engine_close(e);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
