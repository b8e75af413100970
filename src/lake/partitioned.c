/*
 * partitioned.c -- which partition spec a write uses, and writing a table's rows as one
 * set of data files per partition.
 *
 * The spec: the contract's `partition_by` (bound to the schema's field ids), or, for an
 * append whose contract declares none, the table's current default spec (appending rows
 * never changes a table's layout); otherwise unpartitioned. A declared spec that differs
 * from the table's is partition evolution: the new files are written with it and it
 * becomes the default spec; older files keep theirs (iceberg_write_version).
 *
 * Writing: the rows are copied once into a temporary table with one extra column per
 * partition field (its transform computed by the engine, iceberg_partition_field_sql),
 * sorted by those columns; the distinct partition tuples are read back as text; then each
 * partition is one COPY of the rows whose tuple is that one (zone maps of the sorted
 * table skip the others), so every data file holds exactly one partition, whose values go
 * into its manifest entry. The extra columns are never written to the data files, which
 * carry the declared columns with their field ids.
 */
#include <stdlib.h>
#include <string.h>

#include "lake/lake.h"
#include "util/buf.h"
#include "util/uuid.h"

int lake_partition_spec_for(const char *const *texts, size_t n, const char *who, const iceberg_table *prev,
                            weir_write_mode mode, const wr_schema *schema, iceberg_partition_spec *out,
                            weir_error *err) {
  memset(out, 0, sizeof *out);
  if (n > 0) {
    out->fields = wr_calloc(n, sizeof *out->fields);
    for (size_t i = 0; i < n; i++) {
      char why[512];
      iceberg_partition_field *f = &out->fields[out->n_fields];
      if (!iceberg_partition_field_parse(texts[i], f, why, sizeof why)) {
        iceberg_partition_spec_clear(out);
        return wr_seterr(err, WEIR_EINVALIDARG, "%s: partition_by: %s", who, why);
      }
      out->n_fields++;
      const wr_field *src = NULL;
      for (size_t k = 0; k < schema->n_fields && !src; k++)
        if (!strcmp(schema->fields[k].name, f->source)) src = &schema->fields[k];
      if (!src) {
        int rc = wr_seterr(err, WEIR_EINVALIDARG, "%s: partition_by %s: no column \"%s\" in the output", who,
                           texts[i], f->source);
        iceberg_partition_spec_clear(out);
        return rc;
      }
      if (!iceberg_partition_field_bind(f, src->type, why, sizeof why)) {
        iceberg_partition_spec_clear(out);
        return wr_seterr(err, WEIR_EINVALIDARG, "%s: partition_by: %s", who, why);
      }
      f->source_id = src->field_id;
    }
    return WEIR_OK;
  }
  if (prev && mode == WEIR_MODE_APPEND) {
    int32_t def = (int32_t)json_integer_value(json_object_get(prev->json, "default-spec-id"));
    iceberg_partition_spec have;
    int rc = iceberg_table_spec(prev, def, &have, err);
    if (rc) return rc;
    /* Rebind to the schema being written: its source columns by field id. */
    for (size_t i = 0; i < have.n_fields; i++) {
      const wr_field *src = NULL;
      for (size_t k = 0; k < schema->n_fields && !src; k++)
        if (schema->fields[k].field_id == have.fields[i].source_id) src = &schema->fields[k];
      if (!src) {
        rc = wr_seterr(err, WEIR_EINVALIDARG,
                       "table %s is partitioned by %s(%s), a column this append does not write",
                       prev->metadata_location, iceberg_transform_kind_name(have.fields[i].kind), have.fields[i].source);
        iceberg_partition_spec_clear(&have);
        return rc;
      }
      free(have.fields[i].source);
      have.fields[i].source = wr_strdup(src->name);
      have.fields[i].source_type = src->type;
    }
    *out = have;
  }
  return WEIR_OK;
}

static int fail(weir_error *err, int rc, const char *what) {
  wr_error_prefix(err, "%s", what);
  return rc;
}

int lake_write_partitioned(wr_engine *engine, const char *view, const wr_schema *schema,
                           const iceberg_partition_spec *spec, const char *data_dir, iceberg_data_file **out_files,
                           size_t *n_out, int64_t *rows, weir_error *err) {
  *out_files = NULL;
  *n_out = 0;
  *rows = 0;
  size_t nc = schema->n_fields, np = spec->n_fields;
  const char **names = wr_calloc(nc ? nc : 1, sizeof *names);
  int32_t *ids = wr_calloc(nc ? nc : 1, sizeof *ids);
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  char *tmp = wr_asprintf("__weir_part_%.8s", u);
  wr_buf cols = WEIR_BUF_INIT, sql = WEIR_BUF_INIT;
  for (size_t i = 0; i < nc; i++) {
    names[i] = schema->fields[i].name;
    ids[i] = schema->fields[i].field_id;
    char *q = wr_sql_ident(names[i]);
    wr_buf_printf(&cols, "%s%s", i ? ", " : "", q);
    free(q);
  }
  wr_buf_printf(&sql, "CREATE TEMP TABLE %s AS SELECT %s", tmp, wr_buf_cstr(&cols));
  for (size_t k = 0; k < np; k++) {
    char *src = wr_sql_ident(spec->fields[k].source);
    char *x = iceberg_partition_field_sql(&spec->fields[k], src);
    wr_buf_printf(&sql, ", %s AS __weir_p%zu", x, k);
    free(x);
    free(src);
  }
  wr_buf_printf(&sql, " FROM %s ORDER BY ", view);
  for (size_t k = 0; k < np; k++) wr_buf_printf(&sql, "%s__weir_p%zu", k ? ", " : "", k);
  json_t *tuples = NULL;
  iceberg_data_file *files = NULL;
  size_t n = 0;
  int rc = wr_engine_exec(engine, wr_buf_cstr(&sql), err);
  if (rc) {
    rc = fail(err, rc, "cannot compute the partitions");
    goto done;
  }
  wr_buf_clear(&sql);
  wr_buf_puts(&sql, "SELECT DISTINCT ");
  for (size_t k = 0; k < np; k++) {
    char *col = wr_asprintf("__weir_p%zu", k);
    char *t = iceberg_partition_value_sql_text(&spec->fields[k], col);
    wr_buf_printf(&sql, "%s%s AS p%zu", k ? ", " : "", t, k);
    free(t);
    free(col);
  }
  wr_buf_printf(&sql, " FROM %s", tmp);
  if ((rc = wr_engine_query_json(engine, wr_buf_cstr(&sql), &tuples, err))) goto done;
  size_t nt = json_array_size(tuples);
  size_t cap = 0;
  for (size_t t = 0; t < nt && rc == WEIR_OK; t++) {
    json_t *row = json_array_get(tuples, t);
    iceberg_partition_value *vals = wr_calloc(np, sizeof *vals);
    wr_buf_clear(&sql);
    wr_buf_printf(&sql, "SELECT %s FROM %s WHERE ", wr_buf_cstr(&cols), tmp);
    for (size_t k = 0; k < np && rc == WEIR_OK; k++) {
      char key[32];
      snprintf(key, sizeof key, "p%zu", k);
      const char *text = json_string_value(json_object_get(row, key));
      char *col = wr_asprintf("__weir_p%zu", k);
      if (k) wr_buf_puts(&sql, " AND ");
      if (!text) {
        vals[k].is_null = true;
        wr_buf_printf(&sql, "%s IS NULL", col);
      } else {
        char *tx = iceberg_partition_value_sql_text(&spec->fields[k], col);
        char *lit = wr_sql_string(text);
        wr_buf_printf(&sql, "%s = %s", tx, lit);
        free(lit);
        free(tx);
        if (!iceberg_partition_value_from_text(spec->fields[k].result_type, text, &vals[k].value, &vals[k].len))
          rc = wr_seterr(err, WEIR_EGENERIC, "partition %s: cannot encode the value \"%s\"", spec->fields[k].name,
                         text);
      }
      free(col);
    }
    wr_parquet_file *pf = NULL;
    size_t npf = 0;
    if (rc == WEIR_OK)
      rc = wr_engine_write_parquet(engine, wr_buf_cstr(&sql), data_dir, names, ids, nc, 0, &pf, &npf, err);
    for (size_t i = 0; i < npf && rc == WEIR_OK; i++) {
      if (n == cap) {
        cap = cap ? 2 * cap : 16;
        files = wr_realloc(files, cap * sizeof *files);
      }
      iceberg_data_file *df = &files[n++];
      memset(df, 0, sizeof *df);
      lake_data_file_from_parquet(&pf[i], schema, df);
      df->n_partition = np;
      df->partition = wr_calloc(np, sizeof *df->partition);
      for (size_t k = 0; k < np; k++) {
        df->partition[k].is_null = vals[k].is_null;
        if (!vals[k].is_null) {
          df->partition[k].value = wr_malloc(vals[k].len ? vals[k].len : 1);
          if (vals[k].len) memcpy(df->partition[k].value, vals[k].value, vals[k].len);
          df->partition[k].len = vals[k].len;
        }
      }
      *rows += pf[i].record_count;
    }
    wr_parquet_files_free(pf, npf);
    for (size_t k = 0; k < np; k++) free(vals[k].value);
    free(vals);
  }
done:;
  weir_error ignore = {0};
  char *drop = wr_asprintf("DROP TABLE IF EXISTS %s", tmp);
  wr_engine_exec(engine, drop, &ignore);
  weir_error_clear(&ignore);
  free(drop);
  json_decref(tuples);
  wr_buf_free(&cols);
  wr_buf_free(&sql);
  free(tmp);
  free(names);
  free(ids);
  if (rc) {
    /* Files already written are referenced by no manifest: nothing reads them, and the
     * collector removes unreferenced files (as after any failed write). */
    iceberg_data_files_free(files, n);
    return rc;
  }
  *out_files = files;
  *n_out = n;
  return WEIR_OK;
}
