/*
 * schema.h -- an ordered list of typed, documented columns: what a stored Iceberg table
 * has and what a contract declares (a contract adds rules on top; see contracts/ir.h).
 */
#ifndef WEIR_TYPES_SCHEMA_H
#define WEIR_TYPES_SCHEMA_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "types/types.h"
#include "util/error.h"

/* A column. Strings are owned by the field. */
typedef struct weir_field {
  char *name;
  weir_type type;
  bool required;       /* no nulls allowed (Iceberg's required flag) */
  char *doc;           /* NULL when none */
  int32_t field_id;    /* Iceberg field id; 0 when not assigned yet */
  char **lineage;      /* "Schema.column" or "namespace.table.column" references */
  size_t n_lineage;
} weir_field;

typedef struct weir_schema {
  weir_field *fields;
  size_t n_fields;
} weir_schema;

void weir_field_clear(weir_field *f);
void weir_field_copy(weir_field *dst, const weir_field *src);
void weir_schema_clear(weir_schema *s);
void weir_schema_copy(weir_schema *dst, const weir_schema *src);
/* Appends a copy of f. */
void weir_schema_add(weir_schema *s, const weir_field *f);
/* Index of the column named `name`, or -1. Case-sensitive, as Iceberg and Arrow are. */
long weir_schema_find(const weir_schema *s, const char *name);

/* JSON form used in describe and the IR:
 * [{"name","type" (weir name),"required","doc","field_id","lineage":[...]}] */
json_t *weir_schema_to_json(const weir_schema *s);
int weir_schema_from_json(const json_t *arr, weir_schema *out, weir_error *err);

#endif
