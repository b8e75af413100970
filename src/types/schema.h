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
typedef struct wr_field {
  char *name;
  weir_type type;
  bool required;       /* no nulls allowed (Iceberg's required flag) */
  char *doc;           /* NULL when none */
  int32_t field_id;    /* Iceberg field id; 0 when not assigned yet */
  char **lineage;      /* "Schema.column" or "namespace.table.column" references */
  size_t n_lineage;
} wr_field;

typedef struct wr_schema {
  wr_field *fields;
  size_t n_fields;
} wr_schema;

void wr_field_clear(wr_field *f);
/* wr_field_copy, wr_schema_copy and wr_schema_add return WEIR_OK or WEIR_ENOMEM (dst
 * then cleared; s unchanged); the caller reports it with wr_oom(err). */
int wr_field_copy(wr_field *dst, const wr_field *src);
void wr_schema_clear(wr_schema *s);
int wr_schema_copy(wr_schema *dst, const wr_schema *src);
/* Appends a copy of f. */
int wr_schema_add(wr_schema *s, const wr_field *f);
/* Index of the column named `name`, or -1. Case-sensitive, as Iceberg and Arrow are. */
long wr_schema_find(const wr_schema *s, const char *name);

/* JSON form used in describe and the IR:
 * [{"name","type" (weir name),"required","doc","field_id","lineage":[...]}] */
json_t *wr_schema_to_json(const wr_schema *s); /* NULL only on OOM */
int wr_schema_from_json(const json_t *arr, wr_schema *out, weir_error *err);
#ifdef WR_ALLOC_ABORTS /* legacy callers (util/error.h): abort on OOM as before */
#define wr_field_copy(d, s) WR_X_RC(wr_field_copy((d), (s)))
#define wr_schema_copy(d, s) WR_X_RC(wr_schema_copy((d), (s)))
#define wr_schema_add(s, f) WR_X_RC(wr_schema_add((s), (f)))
#define wr_schema_to_json(s) ((json_t *)WR_X_PTR(wr_schema_to_json(s)))
#endif

#endif
