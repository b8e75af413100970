/*
 * duck_types.c -- DuckDB's printed name of a logical type.
 *
 * The C API has no "type to string", and the types module maps DuckDB type *names* to
 * weir types (weir_type_from_duckdb), so the engine spells types the way DESCRIBE does.
 */
#include "engine/engine_internal.h"

#include <stdlib.h>

static void put_type(weir_buf *b, duckdb_logical_type t);

/* Field names inside STRUCT/UNION are printed bare when they are plain lower-case words,
 * quoted otherwise, as DuckDB prints them. */
static void put_field_name(weir_buf *b, const char *name) {
  bool plain = name && *name && !(name[0] >= '0' && name[0] <= '9');
  for (const char *p = name; plain && *p; p++)
    plain = (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_';
  if (plain) weir_buf_puts(b, name);
  else weir_eng_put_ident(b, name);
}

static void put_members(weir_buf *b, duckdb_logical_type t, bool is_union) {
  idx_t n = is_union ? duckdb_union_type_member_count(t) : duckdb_struct_type_child_count(t);
  for (idx_t i = 0; i < n; i++) {
    char *name = is_union ? duckdb_union_type_member_name(t, i) : duckdb_struct_type_child_name(t, i);
    duckdb_logical_type c = is_union ? duckdb_union_type_member_type(t, i) : duckdb_struct_type_child_type(t, i);
    if (i) weir_buf_puts(b, ", ");
    put_field_name(b, name);
    weir_buf_putc(b, ' ');
    put_type(b, c);
    duckdb_free(name);
    duckdb_destroy_logical_type(&c);
  }
}

static void put_type(weir_buf *b, duckdb_logical_type t) {
  char *alias = duckdb_logical_type_get_alias(t);
  if (alias) {
    weir_buf_puts(b, alias);
    duckdb_free(alias);
    return;
  }
  duckdb_logical_type c, k;
  switch (duckdb_get_type_id(t)) {
  case DUCKDB_TYPE_BOOLEAN: weir_buf_puts(b, "BOOLEAN"); break;
  case DUCKDB_TYPE_TINYINT: weir_buf_puts(b, "TINYINT"); break;
  case DUCKDB_TYPE_SMALLINT: weir_buf_puts(b, "SMALLINT"); break;
  case DUCKDB_TYPE_INTEGER: weir_buf_puts(b, "INTEGER"); break;
  case DUCKDB_TYPE_BIGINT: weir_buf_puts(b, "BIGINT"); break;
  case DUCKDB_TYPE_UTINYINT: weir_buf_puts(b, "UTINYINT"); break;
  case DUCKDB_TYPE_USMALLINT: weir_buf_puts(b, "USMALLINT"); break;
  case DUCKDB_TYPE_UINTEGER: weir_buf_puts(b, "UINTEGER"); break;
  case DUCKDB_TYPE_UBIGINT: weir_buf_puts(b, "UBIGINT"); break;
  case DUCKDB_TYPE_HUGEINT: weir_buf_puts(b, "HUGEINT"); break;
  case DUCKDB_TYPE_UHUGEINT: weir_buf_puts(b, "UHUGEINT"); break;
  case DUCKDB_TYPE_FLOAT: weir_buf_puts(b, "FLOAT"); break;
  case DUCKDB_TYPE_DOUBLE: weir_buf_puts(b, "DOUBLE"); break;
  case DUCKDB_TYPE_DECIMAL:
    weir_buf_printf(b, "DECIMAL(%u,%u)", (unsigned)duckdb_decimal_width(t), (unsigned)duckdb_decimal_scale(t));
    break;
  case DUCKDB_TYPE_VARCHAR: weir_buf_puts(b, "VARCHAR"); break;
  case DUCKDB_TYPE_BLOB: weir_buf_puts(b, "BLOB"); break;
  case DUCKDB_TYPE_BIT: weir_buf_puts(b, "BIT"); break;
  case DUCKDB_TYPE_BIGNUM: weir_buf_puts(b, "BIGNUM"); break;
  case DUCKDB_TYPE_UUID: weir_buf_puts(b, "UUID"); break;
  case DUCKDB_TYPE_DATE: weir_buf_puts(b, "DATE"); break;
  case DUCKDB_TYPE_TIME: weir_buf_puts(b, "TIME"); break;
  case DUCKDB_TYPE_TIME_NS: weir_buf_puts(b, "TIME_NS"); break;
  case DUCKDB_TYPE_TIME_TZ: weir_buf_puts(b, "TIME WITH TIME ZONE"); break;
  case DUCKDB_TYPE_TIMESTAMP: weir_buf_puts(b, "TIMESTAMP"); break;
  case DUCKDB_TYPE_TIMESTAMP_S: weir_buf_puts(b, "TIMESTAMP_S"); break;
  case DUCKDB_TYPE_TIMESTAMP_MS: weir_buf_puts(b, "TIMESTAMP_MS"); break;
  case DUCKDB_TYPE_TIMESTAMP_NS: weir_buf_puts(b, "TIMESTAMP_NS"); break;
  case DUCKDB_TYPE_TIMESTAMP_TZ: weir_buf_puts(b, "TIMESTAMP WITH TIME ZONE"); break;
  case DUCKDB_TYPE_INTERVAL: weir_buf_puts(b, "INTERVAL"); break;
  case DUCKDB_TYPE_SQLNULL: weir_buf_puts(b, "\"NULL\""); break;
  case DUCKDB_TYPE_GEOMETRY: weir_buf_puts(b, "GEOMETRY"); break;
  case DUCKDB_TYPE_VARIANT: weir_buf_puts(b, "VARIANT"); break;
  case DUCKDB_TYPE_ENUM: {
    weir_buf_puts(b, "ENUM(");
    uint32_t n = duckdb_enum_dictionary_size(t);
    for (uint32_t i = 0; i < n; i++) {
      char *v = duckdb_enum_dictionary_value(t, i);
      if (i) weir_buf_puts(b, ", ");
      weir_eng_put_string(b, v);
      duckdb_free(v);
    }
    weir_buf_putc(b, ')');
    break;
  }
  case DUCKDB_TYPE_LIST:
    c = duckdb_list_type_child_type(t);
    put_type(b, c);
    weir_buf_puts(b, "[]");
    duckdb_destroy_logical_type(&c);
    break;
  case DUCKDB_TYPE_ARRAY:
    c = duckdb_array_type_child_type(t);
    put_type(b, c);
    weir_buf_printf(b, "[%llu]", (unsigned long long)duckdb_array_type_array_size(t));
    duckdb_destroy_logical_type(&c);
    break;
  case DUCKDB_TYPE_MAP:
    k = duckdb_map_type_key_type(t);
    c = duckdb_map_type_value_type(t);
    weir_buf_puts(b, "MAP(");
    put_type(b, k);
    weir_buf_puts(b, ", ");
    put_type(b, c);
    weir_buf_putc(b, ')');
    duckdb_destroy_logical_type(&k);
    duckdb_destroy_logical_type(&c);
    break;
  case DUCKDB_TYPE_STRUCT:
    weir_buf_puts(b, "STRUCT(");
    put_members(b, t, false);
    weir_buf_putc(b, ')');
    break;
  case DUCKDB_TYPE_UNION:
    weir_buf_puts(b, "UNION(");
    put_members(b, t, true);
    weir_buf_putc(b, ')');
    break;
  default:
    weir_buf_printf(b, "UNKNOWN(%d)", (int)duckdb_get_type_id(t));
    break;
  }
}

char *weir_eng_type_name(duckdb_logical_type t) {
  weir_buf b = WEIR_BUF_INIT;
  put_type(&b, t);
  return weir_buf_detach(&b);
}
