/*
 * duck_types.c -- DuckDB's printed name of a logical type.
 *
 * The C API has no "type to string", and the types module maps DuckDB type *names* to
 * weir types (wr_type_from_duckdb), so the engine spells types the way DESCRIBE does.
 */
#include "engine/engine_internal.h"

#include <stdlib.h>

static void put_type(wr_buf *b, duckdb_logical_type t);

/* Field names inside STRUCT/UNION are printed bare when they are plain lower-case words,
 * quoted otherwise, as DuckDB prints them. */
static void put_field_name(wr_buf *b, const char *name) {
  bool plain = name && *name && !(name[0] >= '0' && name[0] <= '9');
  for (const char *p = name; plain && *p; p++)
    plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
  if (plain) wr_buf_puts(b, name);
  else wr_eng_put_ident(b, name);
}

static void put_members(wr_buf *b, duckdb_logical_type t, bool is_union) {
  idx_t n = is_union ? duckdb_union_type_member_count(t) : duckdb_struct_type_child_count(t);
  for (idx_t i = 0; i < n; i++) {
    char *name = is_union ? duckdb_union_type_member_name(t, i) : duckdb_struct_type_child_name(t, i);
    duckdb_logical_type c = is_union ? duckdb_union_type_member_type(t, i) : duckdb_struct_type_child_type(t, i);
    if (i) wr_buf_puts(b, ", ");
    put_field_name(b, name);
    wr_buf_putc(b, ' ');
    put_type(b, c);
    duckdb_free(name);
    duckdb_destroy_logical_type(&c);
  }
}

static void put_type(wr_buf *b, duckdb_logical_type t) {
  char *alias = duckdb_logical_type_get_alias(t);
  if (alias) {
    wr_buf_puts(b, alias);
    duckdb_free(alias);
    return;
  }
  duckdb_logical_type c, k;
  switch (duckdb_get_type_id(t)) {
  case DUCKDB_TYPE_BOOLEAN: wr_buf_puts(b, "BOOLEAN"); break;
  case DUCKDB_TYPE_TINYINT: wr_buf_puts(b, "TINYINT"); break;
  case DUCKDB_TYPE_SMALLINT: wr_buf_puts(b, "SMALLINT"); break;
  case DUCKDB_TYPE_INTEGER: wr_buf_puts(b, "INTEGER"); break;
  case DUCKDB_TYPE_BIGINT: wr_buf_puts(b, "BIGINT"); break;
  case DUCKDB_TYPE_UTINYINT: wr_buf_puts(b, "UTINYINT"); break;
  case DUCKDB_TYPE_USMALLINT: wr_buf_puts(b, "USMALLINT"); break;
  case DUCKDB_TYPE_UINTEGER: wr_buf_puts(b, "UINTEGER"); break;
  case DUCKDB_TYPE_UBIGINT: wr_buf_puts(b, "UBIGINT"); break;
  case DUCKDB_TYPE_HUGEINT: wr_buf_puts(b, "HUGEINT"); break;
  case DUCKDB_TYPE_UHUGEINT: wr_buf_puts(b, "UHUGEINT"); break;
  case DUCKDB_TYPE_FLOAT: wr_buf_puts(b, "FLOAT"); break;
  case DUCKDB_TYPE_DOUBLE: wr_buf_puts(b, "DOUBLE"); break;
  case DUCKDB_TYPE_DECIMAL:
    wr_buf_printf(b, "DECIMAL(%u,%u)", (unsigned)duckdb_decimal_width(t), (unsigned)duckdb_decimal_scale(t));
    break;
  case DUCKDB_TYPE_VARCHAR: wr_buf_puts(b, "VARCHAR"); break;
  case DUCKDB_TYPE_BLOB: wr_buf_puts(b, "BLOB"); break;
  case DUCKDB_TYPE_BIT: wr_buf_puts(b, "BIT"); break;
  case DUCKDB_TYPE_BIGNUM: wr_buf_puts(b, "BIGNUM"); break;
  case DUCKDB_TYPE_UUID: wr_buf_puts(b, "UUID"); break;
  case DUCKDB_TYPE_DATE: wr_buf_puts(b, "DATE"); break;
  case DUCKDB_TYPE_TIME: wr_buf_puts(b, "TIME"); break;
  case DUCKDB_TYPE_TIME_NS: wr_buf_puts(b, "TIME_NS"); break;
  case DUCKDB_TYPE_TIME_TZ: wr_buf_puts(b, "TIME WITH TIME ZONE"); break;
  case DUCKDB_TYPE_TIMESTAMP: wr_buf_puts(b, "TIMESTAMP"); break;
  case DUCKDB_TYPE_TIMESTAMP_S: wr_buf_puts(b, "TIMESTAMP_S"); break;
  case DUCKDB_TYPE_TIMESTAMP_MS: wr_buf_puts(b, "TIMESTAMP_MS"); break;
  case DUCKDB_TYPE_TIMESTAMP_NS: wr_buf_puts(b, "TIMESTAMP_NS"); break;
  case DUCKDB_TYPE_TIMESTAMP_TZ: wr_buf_puts(b, "TIMESTAMP WITH TIME ZONE"); break;
  case DUCKDB_TYPE_INTERVAL: wr_buf_puts(b, "INTERVAL"); break;
  case DUCKDB_TYPE_SQLNULL: wr_buf_puts(b, "\"NULL\""); break;
  case DUCKDB_TYPE_GEOMETRY: wr_buf_puts(b, "GEOMETRY"); break;
  case DUCKDB_TYPE_VARIANT: wr_buf_puts(b, "VARIANT"); break;
  case DUCKDB_TYPE_ENUM: {
    wr_buf_puts(b, "ENUM(");
    uint32_t n = duckdb_enum_dictionary_size(t);
    for (uint32_t i = 0; i < n; i++) {
      char *v = duckdb_enum_dictionary_value(t, i);
      if (i) wr_buf_puts(b, ", ");
      wr_eng_put_string(b, v);
      duckdb_free(v);
    }
    wr_buf_putc(b, ')');
    break;
  }
  case DUCKDB_TYPE_LIST:
    c = duckdb_list_type_child_type(t);
    put_type(b, c);
    wr_buf_puts(b, "[]");
    duckdb_destroy_logical_type(&c);
    break;
  case DUCKDB_TYPE_ARRAY:
    c = duckdb_array_type_child_type(t);
    put_type(b, c);
    wr_buf_printf(b, "[%llu]", (unsigned long long)duckdb_array_type_array_size(t));
    duckdb_destroy_logical_type(&c);
    break;
  case DUCKDB_TYPE_MAP:
    k = duckdb_map_type_key_type(t);
    c = duckdb_map_type_value_type(t);
    wr_buf_puts(b, "MAP(");
    put_type(b, k);
    wr_buf_puts(b, ", ");
    put_type(b, c);
    wr_buf_putc(b, ')');
    duckdb_destroy_logical_type(&k);
    duckdb_destroy_logical_type(&c);
    break;
  case DUCKDB_TYPE_STRUCT:
    wr_buf_puts(b, "STRUCT(");
    put_members(b, t, false);
    wr_buf_putc(b, ')');
    break;
  case DUCKDB_TYPE_UNION:
    wr_buf_puts(b, "UNION(");
    put_members(b, t, true);
    wr_buf_putc(b, ')');
    break;
  default:
    wr_buf_printf(b, "UNKNOWN(%d)", (int)duckdb_get_type_id(t));
    break;
  }
}

char *wr_eng_type_name(duckdb_logical_type t) {
  wr_buf b = WEIR_BUF_INIT;
  put_type(&b, t);
  return wr_buf_detach(&b);
}
