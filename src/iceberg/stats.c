/*
 * stats.c -- per-column statistics of a data file from the text DuckDB's Parquet writer
 * reports (COPY ... RETURN_STATS true), the form weir's engine hands them over in.
 */
#include "iceberg/iceberg.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int64_t count_or_unknown(const char *s) {
  if (!s || !*s) return -1;
  char *end;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (errno || *end || v < 0) return -1;
  return v;
}

void iceberg_column_stats_from_text(const wr_field *field, const iceberg_stats_text *text,
                                    iceberg_column_stats *out) {
  memset(out, 0, sizeof *out);
  out->field_id = field->field_id;
  out->value_count = count_or_unknown(text->num_values);
  out->null_count = count_or_unknown(text->null_count);
  out->column_size = count_or_unknown(text->column_size);
  out->nan_count = -1;
  bool floating = field->type.id == WEIR_TYPE_FLOAT32 || field->type.id == WEIR_TYPE_FLOAT64;
  if (floating && text->has_nan && strcmp(text->has_nan, "false") == 0) out->nan_count = 0;
  /* Bounds of a column whose every value is null are absent, as Iceberg writers do. */
  if (out->value_count >= 0 && out->null_count == out->value_count) return;
  if (!iceberg_bound_from_text(field->type, text->min, false, &out->lower, &out->lower_len))
    out->lower = NULL;
  if (!iceberg_bound_from_text(field->type, text->max, true, &out->upper, &out->upper_len))
    out->upper = NULL;
}
