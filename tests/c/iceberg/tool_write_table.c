/*
 * tool_write_table.c -- writes Iceberg tables with weir's iceberg module, for the interop
 * tests (tests/py/test_iceberg_interop.py), which read them back with pyiceberg and
 * DuckDB's iceberg extension.
 *
 *   iceberg_tool_write_table OUT_DIR TITANIC_CSV
 *
 * Data files are written by DuckDB (C API) exactly as weir's engine does it:
 *   COPY (SELECT ...) TO 'f.parquet' (FORMAT parquet, FIELD_IDS {...}, RETURN_STATS true)
 * and the statistics DuckDB returns are turned into Iceberg metrics with
 * iceberg_column_stats_from_text. Tables written under OUT_DIR:
 *
 *   titanic   v1 create (all 891 rows, two files), v2 append (first class passengers
 *             again, one file), v3 overwrite (women only; schema change: Ticket dropped,
 *             FarePerPerson added, Age's doc changed)
 *   types     one column of every storable weir type, two files, one version
 *   types_ns  TimestampNano (Iceberg's timestamp_ns, a type of format v3), one version
 *   empty     a table created with no data file, then appended to
 *   appends   titanic in six appends of 150 passengers, with manifests merged from the
 *             third manifest on (commit.manifest.min-count-to-merge = 3)
 *
 * Prints one JSON object: {table: {location, versions: [{op, metadata, snapshot_id,
 * records, files}]}}.
 */
#include <duckdb.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iceberg/iceberg.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

static duckdb_connection con;

static void die(const char *what, const char *msg) {
  fprintf(stderr, "tool_write_table: %s: %s\n", what, msg ? msg : "(no message)");
  exit(1);
}

static void run(const char *sql) {
  duckdb_result r;
  if (duckdb_query(con, sql, &r) != DuckDBSuccess) die(sql, duckdb_result_error(&r));
  duckdb_destroy_result(&r);
}

static char *vec_string(duckdb_vector v, idx_t row) {
  duckdb_string_t *d = (duckdb_string_t *)duckdb_vector_get_data(v);
  uint64_t *valid = duckdb_vector_get_validity(v);
  if (valid && !duckdb_validity_row_is_valid(valid, row)) return NULL;
  return wr_strndup(duckdb_string_t_data(&d[row]), duckdb_string_t_length(d[row]));
}

/* A column key of column_statistics: "\"Age\"" -> Age. */
static char *unquote(char *k) {
  size_t n = strlen(k);
  if (n >= 2 && k[0] == '"' && k[n - 1] == '"') {
    wr_buf b = WEIR_BUF_INIT;
    for (size_t i = 1; i + 1 < n; i++) {
      wr_buf_putc(&b, k[i]);
      if (k[i] == '"' && k[i + 1] == '"') i++;
    }
    free(k);
    return wr_buf_detach(&b);
  }
  return k;
}

/* column name -> {stat -> text} of a RETURN_STATS result's column_statistics. */
static json_t *read_stats(duckdb_result *r, int64_t *count, int64_t *size) {
  json_t *out = json_object();
  duckdb_data_chunk chunk = duckdb_fetch_chunk(*r);
  if (!chunk || duckdb_data_chunk_get_size(chunk) != 1) die("COPY", "expected one result row");
  *count = ((int64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 1)))[0];
  *size = ((int64_t *)duckdb_vector_get_data(duckdb_data_chunk_get_vector(chunk, 2)))[0];
  duckdb_vector map = duckdb_data_chunk_get_vector(chunk, 4);
  duckdb_list_entry *e = (duckdb_list_entry *)duckdb_vector_get_data(map);
  duckdb_vector entries = duckdb_list_vector_get_child(map);
  duckdb_vector keys = duckdb_struct_vector_get_child(entries, 0);
  duckdb_vector values = duckdb_struct_vector_get_child(entries, 1);
  duckdb_list_entry *ve = (duckdb_list_entry *)duckdb_vector_get_data(values);
  duckdb_vector inner = duckdb_list_vector_get_child(values);
  duckdb_vector ikeys = duckdb_struct_vector_get_child(inner, 0);
  duckdb_vector ivals = duckdb_struct_vector_get_child(inner, 1);
  for (idx_t i = e[0].offset; i < e[0].offset + e[0].length; i++) {
    char *col = unquote(vec_string(keys, i));
    json_t *stats = json_object();
    for (idx_t j = ve[i].offset; j < ve[i].offset + ve[i].length; j++) {
      char *k = vec_string(ikeys, j), *v = vec_string(ivals, j);
      if (k && v) json_object_set_new(stats, k, json_string(v));
      free(k);
      free(v);
    }
    json_object_set_new(out, col, stats);
    free(col);
  }
  duckdb_destroy_data_chunk(&chunk);
  return out;
}

/* COPY (select) to a new Parquet file of the table with Iceberg field ids; fills `f`. */
static void write_file(const char *location, const char *select, const wr_schema *s,
                       iceberg_data_file *f) {
  char uuid[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(uuid);
  char *data_dir = wr_path_join(location, "data");
  weir_error err = {0};
  if (wr_fs_mkdirs(data_dir, &err) != WEIR_OK) die(data_dir, err.message);
  char *path = wr_asprintf("%s/%s.parquet", data_dir, uuid);
  char *tmp = wr_asprintf("%s.tmp", path);
  wr_buf sql = WEIR_BUF_INIT;
  wr_buf_printf(&sql, "COPY (%s) TO '%s' (FORMAT parquet, FIELD_IDS {", select, tmp);
  for (size_t i = 0; i < s->n_fields; i++)
    wr_buf_printf(&sql, "%s'%s': %d", i ? ", " : "", s->fields[i].name, s->fields[i].field_id);
  wr_buf_puts(&sql, "}, RETURN_STATS true)");
  duckdb_result r;
  if (duckdb_query(con, sql.data, &r) != DuckDBSuccess) die(sql.data, duckdb_result_error(&r));
  int64_t count, size;
  json_t *stats = read_stats(&r, &count, &size);
  duckdb_destroy_result(&r);
  if (rename(tmp, path) != 0) die(path, "cannot rename the Parquet file into place");

  memset(f, 0, sizeof *f);
  f->path = path;
  f->record_count = count;
  f->file_size = wr_fs_size(path);
  f->stats = calloc(s->n_fields, sizeof *f->stats);
  for (size_t i = 0; i < s->n_fields; i++) {
    json_t *c = json_object_get(stats, s->fields[i].name);
    if (!c) continue;
    iceberg_stats_text t = {
        wr_json_str(c, "min", NULL),        wr_json_str(c, "max", NULL),
        wr_json_str(c, "null_count", NULL), wr_json_str(c, "num_values", NULL),
        wr_json_str(c, "column_size_bytes", NULL), wr_json_str(c, "has_nan", NULL)};
    iceberg_column_stats_from_text(&s->fields[i], &t, &f->stats[f->n_stats++]);
  }
  json_decref(stats);
  wr_buf_free(&sql);
  free(tmp);
  free(data_dir);
}

/* The weir schema of a query's result, with required flags and docs from `spec`
 * ("name" -> {"required": bool, "doc": str}). */
static void schema_of(const char *select, json_t *spec, wr_schema *s) {
  memset(s, 0, sizeof *s);
  char *sql = wr_asprintf("DESCRIBE %s", select);
  duckdb_result r;
  if (duckdb_query(con, sql, &r) != DuckDBSuccess) die(sql, duckdb_result_error(&r));
  for (idx_t i = 0; i < duckdb_row_count(&r); i++) {
    char *name = duckdb_value_varchar(&r, 0, i), *type = duckdb_value_varchar(&r, 1, i);
    wr_field f = {0};
    if (!wr_type_from_duckdb(type, &f.type)) die(name, type);
    json_t *c = json_object_get(spec, name);
    f.name = name;
    f.required = c && json_is_true(json_object_get(c, "required"));
    f.doc = c ? (char *)wr_json_str(c, "doc", NULL) : NULL;
    wr_schema_add(s, &f);
    duckdb_free(name);
    duckdb_free(type);
  }
  duckdb_destroy_result(&r);
  free(sql);
}

typedef struct table {
  char *location;
  iceberg_table *current;
  json_t *versions;
} table;

static void version(table *t, const char *op_name, iceberg_op op, wr_schema *schema,
                    const char **selects, size_t n_selects, json_t *props, json_t *summary) {
  int32_t last;
  iceberg_assign_field_ids(t->current, schema, &last);
  iceberg_data_file *files = calloc(n_selects ? n_selects : 1, sizeof *files);
  for (size_t i = 0; i < n_selects; i++) write_file(t->location, selects[i], schema, &files[i]);
  iceberg_write_request req = {t->location, t->current, op, schema, files, n_selects,
                               props, summary, 0, NULL, 0, NULL};
  iceberg_write_result res;
  weir_error err = {0};
  if (iceberg_write_version(&req, &res, &err) != WEIR_OK) die("iceberg_write_version", err.message);
  iceberg_table *next;
  if (iceberg_table_load(res.metadata_location, &next, &err) != WEIR_OK) die("load", err.message);
  iceberg_table_free(t->current);
  t->current = next;
  json_t *v = json_object();
  json_object_set_new(v, "op", json_string(op_name));
  json_object_set_new(v, "metadata", json_string(res.metadata_location));
  json_object_set_new(v, "snapshot_id", json_integer(res.snapshot_id));
  json_object_set_new(v, "records", json_integer(res.record_count));
  json_t *paths = json_array();
  for (size_t i = 0; i < n_selects; i++) json_array_append_new(paths, json_string(files[i].path));
  json_object_set_new(v, "files", paths);
  json_array_append_new(t->versions, v);
  free(res.metadata_location);
  iceberg_data_files_free(files, n_selects);
}

static void table_init(table *t, const char *out_dir, const char *name) {
  t->location = wr_path_join(out_dir, name);
  t->current = NULL;
  t->versions = json_array();
}

static json_t *table_done(table *t) {
  json_t *o = json_object();
  json_object_set_new(o, "location", json_string(t->location));
  json_object_set_new(o, "versions", t->versions);
  iceberg_table_free(t->current);
  free(t->location);
  return o;
}

static json_t *parse_json(const char *text) {
  json_t *j = json_loads(text, 0, NULL);
  if (!j) die("bad JSON literal", text);
  return j;
}

static const char TITANIC_SPEC[] =
    "{\"PassengerId\": {\"required\": true, \"doc\": \"Unique passenger number.\"},"
    " \"Survived\": {\"required\": true, \"doc\": \"1 if the passenger survived, else 0.\"},"
    " \"Pclass\": {\"required\": true, \"doc\": \"Ticket class: 1, 2 or 3.\"},"
    " \"Name\": {\"required\": true, \"doc\": \"Full name, as on the passenger list.\"},"
    " \"Sex\": {\"required\": true, \"doc\": \"male or female.\"},"
    " \"Age\": {\"required\": false, \"doc\": \"Age in years; fractional below 1.\"},"
    " \"SibSp\": {\"required\": true, \"doc\": \"Siblings and spouses aboard.\"},"
    " \"Parch\": {\"required\": true, \"doc\": \"Parents and children aboard.\"},"
    " \"Ticket\": {\"required\": true, \"doc\": \"Ticket number.\"},"
    " \"Fare\": {\"required\": true, \"doc\": \"Passenger fare in pounds.\"},"
    " \"Cabin\": {\"required\": false, \"doc\": \"Cabin number, when known.\"},"
    " \"Embarked\": {\"required\": false, \"doc\": \"Port: C, Q or S.\"},"
    " \"FarePerPerson\": {\"required\": true, \"doc\": \"Fare divided by the party size.\"}}";

static void titanic(const char *out_dir, const char *csv, json_t *result) {
  char *sql = wr_asprintf("CREATE TABLE titanic AS SELECT * REPLACE (Pclass::INTEGER AS Pclass) "
                            "FROM read_csv('%s')", csv);
  run(sql);
  free(sql);
  json_t *spec = parse_json(TITANIC_SPEC);
  table t;
  table_init(&t, out_dir, "titanic");
  wr_schema s;
  schema_of("SELECT * FROM titanic", spec, &s);

  json_t *props = parse_json(
      "{\"comment\": \"Passengers of the Titanic (Kaggle training set).\","
      " \"weir.contract\": {\"name\": \"Passengers\", \"version\": \"1\"},"
      " \"weir.lineage\": {\"PassengerId\": [\"titanic.csv.PassengerId\"]}}");
  json_t *summary = parse_json("{\"weir.run-id\": \"run-1\", \"weir.model\": \"passengers\"}");
  const char *create[] = {"SELECT * FROM titanic WHERE PassengerId <= 450 ORDER BY PassengerId",
                          "SELECT * FROM titanic WHERE PassengerId > 450 ORDER BY PassengerId"};
  version(&t, "create", ICEBERG_OP_APPEND, &s, create, 2, props, summary);
  json_decref(props);
  json_decref(summary);

  const char *append[] = {"SELECT * FROM titanic WHERE Pclass = 1 ORDER BY PassengerId"};
  props = parse_json("{\"weir.owner\": \"data-team\"}");
  summary = parse_json("{\"weir.run-id\": \"run-2\"}");
  version(&t, "append", ICEBERG_OP_APPEND, &s, append, 1, props, summary);
  json_decref(props);
  json_decref(summary);
  wr_schema_clear(&s);

  /* Overwrite with a new schema: Ticket dropped, FarePerPerson added (new field id),
   * Age documented differently. The other columns keep their ids (matched by name). */
  json_object_set_new(json_object_get(spec, "Age"), "doc",
                      json_string("Age in years at embarkation."));
  const char *women = "SELECT * EXCLUDE (Ticket), Fare / (SibSp + Parch + 1) AS FarePerPerson "
                      "FROM titanic WHERE Sex = 'female' ORDER BY PassengerId";
  schema_of(women, spec, &s);
  props = parse_json("{\"weir.owner\": null, \"comment\": \"Women aboard the Titanic.\"}");
  summary = parse_json("{\"weir.run-id\": \"run-3\"}");
  version(&t, "overwrite", ICEBERG_OP_OVERWRITE, &s, &women, 1, props, summary);
  json_decref(props);
  json_decref(summary);
  wr_schema_clear(&s);
  json_decref(spec);
  json_object_set_new(result, "titanic", table_done(&t));
}

/* Every storable weir type; rows with nulls; bounds differ between the two files. */
static const char TYPES_SELECT[] =
    "SELECT i AS id, (i % 3 = 0) AS flag, (i - 500)::INTEGER AS i32, (i * 1000003)::BIGINT AS i64,"
    " (i / 7.0)::FLOAT AS f32, CASE WHEN i % 10 = 5 THEN NULL ELSE i / 3.0 - 100 END::DOUBLE AS f64,"
    " (i * 1.25 - 300)::DECIMAL(10,2) AS dec, (i * 123456789.123456)::DECIMAL(38,6) AS dec38,"
    " CASE WHEN i % 4 = 0 THEN NULL ELSE 'name-' || lpad(i::VARCHAR, 4, '0') END AS str,"
    " repeat('long string é ', 2) || i::VARCHAR AS long_str,"
    " ('\\x00\\xFF' || i::VARCHAR)::BLOB AS bin, DATE '2024-01-31' + i::INTEGER AS day,"
    " TIMESTAMP '2024-01-31 12:00:00.123456' + i * INTERVAL 1 HOUR AS ts,"
    " TIMESTAMPTZ '2024-01-31 12:00:00+00' + i * INTERVAL 1 MINUTE AS tstz"
    " FROM range(1000) r(i)";

static void types(const char *out_dir, json_t *result) {
  char *sql = wr_asprintf("CREATE TABLE types AS %s", TYPES_SELECT);
  run(sql);
  free(sql);
  json_t *spec = parse_json("{\"id\": {\"required\": true, \"doc\": \"Row number.\"},"
                            " \"flag\": {\"required\": true}, \"i32\": {\"required\": true}}");
  wr_schema s;
  schema_of("SELECT * FROM types", spec, &s);
  table t;
  table_init(&t, out_dir, "types");
  const char *files[] = {"SELECT * FROM types WHERE id < 400", "SELECT * FROM types WHERE id >= 400"};
  version(&t, "create", ICEBERG_OP_APPEND, &s, files, 2, NULL, NULL);
  wr_schema_clear(&s);
  json_decref(spec);
  json_object_set_new(result, "types", table_done(&t));

  run("CREATE TABLE types_ns AS SELECT i AS id,"
      " make_timestamp_ns(1706702400123456789 + i * 1000000001) AS ts_ns"
      " FROM range(10) r(i)");
  schema_of("SELECT * FROM types_ns", NULL, &s);
  table_init(&t, out_dir, "types_ns");
  const char *ns[] = {"SELECT * FROM types_ns"};
  version(&t, "create", ICEBERG_OP_APPEND, &s, ns, 1, NULL, NULL);
  wr_schema_clear(&s);
  json_object_set_new(result, "types_ns", table_done(&t));
}

static void empty(const char *out_dir, json_t *result) {
  wr_schema s;
  schema_of("SELECT 1::BIGINT AS a, 'x' AS b", NULL, &s);
  table t;
  table_init(&t, out_dir, "empty");
  version(&t, "create", ICEBERG_OP_APPEND, &s, NULL, 0, NULL, NULL);
  const char *one[] = {"SELECT 1::BIGINT AS a, 'x' AS b"};
  version(&t, "append", ICEBERG_OP_APPEND, &s, one, 1, NULL, NULL);
  wr_schema_clear(&s);
  json_object_set_new(result, "empty", table_done(&t));
}

static void appends(const char *out_dir, json_t *result) {
  wr_schema s;
  schema_of("SELECT * FROM titanic", NULL, &s);
  table t;
  table_init(&t, out_dir, "appends");
  json_t *props = parse_json("{\"commit.manifest.min-count-to-merge\": \"3\"}");
  for (int i = 0; i < 6; i++) {
    char *sel = wr_asprintf("SELECT * FROM titanic WHERE PassengerId > %d AND PassengerId <= %d "
                              "ORDER BY PassengerId", i * 150, (i + 1) * 150);
    const char *one[] = {sel};
    version(&t, i == 0 ? "create" : "append", ICEBERG_OP_APPEND, &s, one, 1, i == 0 ? props : NULL,
            NULL);
    free(sel);
  }
  json_decref(props);
  wr_schema_clear(&s);
  json_object_set_new(result, "appends", table_done(&t));
}

int main(int argc, char **argv) {
  if (argc != 3) {
    fprintf(stderr, "usage: %s OUT_DIR TITANIC_CSV\n", argv[0]);
    return 2;
  }
  char *out_dir = wr_path_absolute(argv[1]);
  duckdb_database db;
  if (duckdb_open(NULL, &db) != DuckDBSuccess) die("duckdb", "cannot open");
  if (duckdb_connect(db, &con) != DuckDBSuccess) die("duckdb", "cannot connect");
  json_t *result = json_object();
  titanic(out_dir, argv[2], result);
  types(out_dir, result);
  empty(out_dir, result);
  appends(out_dir, result);
  char *text = wr_json_pretty(result);
  printf("%s\n", text);
  free(text);
  json_decref(result);
  duckdb_disconnect(&con);
  duckdb_close(&db);
  free(out_dir);
  return 0;
}
