/*
 * bucket.c -- the SQL functions behind Iceberg's bucket[N] transform, installed in every
 * engine:
 *
 *   weir_bucket(v BIGINT, n INTEGER)            hash of a long (ints, dates as days,
 *                                               timestamps as micros or nanos)
 *   weir_bucket(v VARCHAR, n INTEGER)           hash of the UTF-8 bytes
 *   weir_bucket(v BLOB, n INTEGER)              hash of the bytes
 *   weir_bucket_decimal(v VARCHAR, n INTEGER)   hash of a decimal's unscaled value, given
 *                                               as DuckDB renders it ("-14.20")
 *
 * Each returns (murmur3(v) & INT32_MAX) % n as INTEGER (util/murmur3.h); NULL for a NULL
 * value, and an error for n <= 0. Partitioned writes compute bucket values with them
 * (iceberg_partition_field_sql), and pruning computes a query literal's bucket the same
 * way, so the two can never disagree.
 */
#include "engine/engine_internal.h"

#include <stdlib.h>
#include <string.h>

#include "util/murmur3.h"

enum bucket_kind { B_LONG, B_BYTES, B_DECIMAL };

/* The unscaled value of a decimal's text: its digits without the point. */
static bool decimal_unscaled(const char *s, size_t n, __int128 *out) {
  size_t i = 0;
  bool neg = false;
  if (i < n && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
  __int128 v = 0;
  size_t digits = 0;
  for (; i < n; i++) {
    if (s[i] == '.') continue;
    if (s[i] < '0' || s[i] > '9' || ++digits > 38) return false;
    v = v * 10 + (s[i] - '0');
  }
  if (!digits) return false;
  *out = neg ? -v : v;
  return true;
}

static void bucket_fn(duckdb_function_info info, duckdb_data_chunk input, duckdb_vector output) {
  enum bucket_kind kind = (enum bucket_kind)(intptr_t)duckdb_scalar_function_get_extra_info(info);
  idx_t n = duckdb_data_chunk_get_size(input);
  duckdb_vector vv = duckdb_data_chunk_get_vector(input, 0), nv = duckdb_data_chunk_get_vector(input, 1);
  uint64_t *vvalid = duckdb_vector_get_validity(vv), *nvalid = duckdb_vector_get_validity(nv);
  int32_t *counts = duckdb_vector_get_data(nv);
  int32_t *out = duckdb_vector_get_data(output);
  duckdb_vector_ensure_validity_writable(output);
  uint64_t *ovalid = duckdb_vector_get_validity(output);
  for (idx_t r = 0; r < n; r++) {
    if ((vvalid && !duckdb_validity_row_is_valid(vvalid, r)) || (nvalid && !duckdb_validity_row_is_valid(nvalid, r))) {
      duckdb_validity_set_row_invalid(ovalid, r);
      continue;
    }
    int32_t buckets = counts[r];
    if (buckets <= 0) {
      duckdb_scalar_function_set_error(info, "weir_bucket: the number of buckets must be positive");
      return;
    }
    int32_t h;
    if (kind == B_LONG) {
      h = wr_bucket_hash_long(((int64_t *)duckdb_vector_get_data(vv))[r]);
    } else {
      duckdb_string_t *st = &((duckdb_string_t *)duckdb_vector_get_data(vv))[r];
      const char *d = duckdb_string_t_data(st);
      size_t len = duckdb_string_t_length(*st);
      if (kind == B_BYTES) {
        h = wr_bucket_hash_bytes(d, len);
      } else {
        __int128 u;
        if (!decimal_unscaled(d, len, &u)) {
          duckdb_scalar_function_set_error(info, "weir_bucket_decimal: not a decimal");
          return;
        }
        h = wr_bucket_hash_decimal(u);
      }
    }
    out[r] = wr_bucket_of_hash(h, buckets);
  }
}

static void add_overload(duckdb_scalar_function_set set, const char *name, duckdb_type arg, enum bucket_kind kind) {
  duckdb_scalar_function f = duckdb_create_scalar_function();
  duckdb_scalar_function_set_name(f, name);
  duckdb_logical_type a = duckdb_create_logical_type(arg), i = duckdb_create_logical_type(DUCKDB_TYPE_INTEGER);
  duckdb_scalar_function_add_parameter(f, a);
  duckdb_scalar_function_add_parameter(f, i);
  duckdb_scalar_function_set_return_type(f, i);
  duckdb_scalar_function_set_extra_info(f, (void *)(intptr_t)kind, NULL);
  duckdb_scalar_function_set_function(f, bucket_fn);
  duckdb_add_scalar_function_to_set(set, f);
  duckdb_destroy_scalar_function(&f);
  duckdb_destroy_logical_type(&a);
  duckdb_destroy_logical_type(&i);
}

int wr_eng_bucket_install(wr_engine *e, weir_error *err) {
  duckdb_scalar_function_set set = duckdb_create_scalar_function_set("weir_bucket");
  add_overload(set, "weir_bucket", DUCKDB_TYPE_BIGINT, B_LONG);
  add_overload(set, "weir_bucket", DUCKDB_TYPE_VARCHAR, B_BYTES);
  add_overload(set, "weir_bucket", DUCKDB_TYPE_BLOB, B_BYTES);
  duckdb_state st = duckdb_register_scalar_function_set(e->conn, set);
  duckdb_destroy_scalar_function_set(&set);
  duckdb_scalar_function_set dec = duckdb_create_scalar_function_set("weir_bucket_decimal");
  add_overload(dec, "weir_bucket_decimal", DUCKDB_TYPE_VARCHAR, B_DECIMAL);
  if (st != DuckDBError) st = duckdb_register_scalar_function_set(e->conn, dec);
  duckdb_destroy_scalar_function_set(&dec);
  if (st == DuckDBError)
    return wr_seterr(err, WEIR_EENGINE, "cannot open the SQL engine: DuckDB refused the weir_bucket function");
  return WEIR_OK;
}
