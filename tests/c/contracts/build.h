/*
 * build.h -- Arrow test data made by hand for the contracts tests (no engine needed):
 * arrays of every layout the validator reads, tables of one or more batches, and a
 * few helpers to run a validation and look at the result.
 */
#ifndef WEIR_TEST_CONTRACTS_BUILD_H
#define WEIR_TEST_CONTRACTS_BUILD_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "contracts/contract.h"
#include "util/json.h"

#define NN (-1) /* "null" marker for the int helpers */

/* What a refused narrowing cast that cast "exact" could apply says after the types. */
#define NARROWING_HINT                                                                                  \
  " (narrowing casts are not applied: cast it in the model, or declare the column's cast exact, with "  \
  "cast: exact in YAML or TableField(cast=\"exact\") in Python, to apply it when every value converts " \
  "without loss)"

/* Fixed-width values; nulls[i] true makes row i null (nulls may be NULL). */
static inline void arr_fixed(struct ArrowArray *a, size_t width, const void *values, int64_t n, const bool *nulls) {
  wr_arrow_array_init(a, n, 2, 0);
  if (nulls) {
    uint8_t *v = wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++) {
      if (nulls[i]) k++;
      else wr_bit_set(v, i);
    }
    a->null_count = k;
  }
  void *d = wr_arrow_array_alloc_buffer(a, 1, (size_t)n * width);
  memcpy(d, values, (size_t)n * width);
}

static inline void arr_bool(struct ArrowArray *a, const bool *values, int64_t n, const bool *nulls) {
  wr_arrow_array_init(a, n, 2, 0);
  if (nulls) {
    uint8_t *v = wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
    for (int64_t i = 0; i < n; i++)
      if (!nulls[i]) wr_bit_set(v, i);
      else a->null_count++;
  }
  uint8_t *d = wr_arrow_array_alloc_buffer(a, 1, (size_t)(n + 7) / 8);
  for (int64_t i = 0; i < n; i++)
    if (values[i]) wr_bit_set(d, i);
}

/* Strings (a NULL entry is a null row), with 32-bit ("u"/"z") or 64-bit offsets. */
static inline void arr_str(struct ArrowArray *a, const char *const *values, int64_t n, bool large) {
  wr_arrow_array_init(a, n, 3, 0);
  size_t total = 0;
  bool any_null = false;
  for (int64_t i = 0; i < n; i++) {
    if (values[i]) total += strlen(values[i]);
    else any_null = true;
  }
  uint8_t *valid = any_null ? wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8) : NULL;
  void *offs = wr_arrow_array_alloc_buffer(a, 1, (size_t)(n + 1) * (large ? 8 : 4));
  char *data = wr_arrow_array_alloc_buffer(a, 2, total ? total : 1);
  int64_t pos = 0;
  for (int64_t i = 0; i < n; i++) {
    if (large) ((int64_t *)offs)[i] = pos;
    else ((int32_t *)offs)[i] = (int32_t)pos;
    if (!values[i]) {
      a->null_count++;
      continue;
    }
    if (valid) wr_bit_set(valid, i);
    size_t l = strlen(values[i]);
    memcpy(data + pos, values[i], l);
    pos += (int64_t)l;
  }
  if (large) ((int64_t *)offs)[n] = pos;
  else ((int32_t *)offs)[n] = (int32_t)pos;
}

/* string_view: values of at most 12 bytes inline, longer ones in one data buffer. */
static inline void arr_view(struct ArrowArray *a, const char *const *values, int64_t n) {
  wr_arrow_array_init(a, n, 4, 0);
  size_t total = 0;
  for (int64_t i = 0; i < n; i++)
    if (values[i] && strlen(values[i]) > 12) total += strlen(values[i]);
  uint8_t *valid = wr_arrow_array_alloc_buffer(a, 0, (size_t)(n + 7) / 8);
  uint8_t *views = wr_arrow_array_alloc_buffer(a, 1, (size_t)n * 16);
  char *data = wr_arrow_array_alloc_buffer(a, 2, total ? total : 1);
  int64_t *sizes = wr_arrow_array_alloc_buffer(a, 3, 8);
  int32_t pos = 0;
  for (int64_t i = 0; i < n; i++) {
    uint8_t *v = views + i * 16;
    if (!values[i]) {
      a->null_count++;
      continue;
    }
    wr_bit_set(valid, i);
    int32_t l = (int32_t)strlen(values[i]);
    memcpy(v, &l, 4);
    if (l <= 12) {
      memcpy(v + 4, values[i], (size_t)l);
    } else {
      int32_t buf = 0;
      memcpy(v + 4, values[i], 4);
      memcpy(v + 8, &buf, 4);
      memcpy(v + 12, &pos, 4);
      memcpy(data + pos, values[i], (size_t)l);
      pos += l;
    }
  }
  sizes[0] = pos;
}

/* ---- dictionary arrays and schemas (weir's node helpers have no dictionary setter) ---- */

typedef struct dict_holder {
  struct ArrowArray dict;
  const void *bufs[2];
  uint8_t *valid;
  int32_t *idx;
} dict_holder;

static inline void dict_release(struct ArrowArray *a) {
  dict_holder *h = a->private_data;
  if (h->dict.release) h->dict.release(&h->dict);
  free(h->valid);
  free(h->idx);
  free(h);
  a->release = NULL;
}

/* int32 indices (NN = null) into `dict` (moved in). */
static inline void arr_dict(struct ArrowArray *a, const int32_t *idx, int64_t n, struct ArrowArray *dict) {
  dict_holder *h = calloc(1, sizeof *h);
  h->dict = *dict;
  dict->release = NULL;
  h->idx = calloc((size_t)n + 1, 4);
  h->valid = calloc((size_t)(n + 7) / 8 + 1, 1);
  memset(a, 0, sizeof *a);
  for (int64_t i = 0; i < n; i++) {
    if (idx[i] == NN) {
      a->null_count++;
    } else {
      h->idx[i] = idx[i];
      wr_bit_set(h->valid, i);
    }
  }
  h->bufs[0] = h->valid;
  h->bufs[1] = h->idx;
  a->length = n;
  a->n_buffers = 2;
  a->buffers = h->bufs;
  a->dictionary = &h->dict;
  a->release = dict_release;
  a->private_data = h;
}

typedef struct dict_schema_holder {
  struct ArrowSchema dict;
  char name[64];
} dict_schema_holder;

static inline void dict_schema_release(struct ArrowSchema *s) {
  dict_schema_holder *h = s->private_data;
  if (h->dict.release) h->dict.release(&h->dict);
  free(h);
  s->release = NULL;
}

static inline void schema_dict(struct ArrowSchema *s, const char *name, const char *value_format) {
  dict_schema_holder *h = calloc(1, sizeof *h);
  snprintf(h->name, sizeof h->name, "%s", name);
  wr_arrow_schema_init(&h->dict, value_format, "", ARROW_FLAG_NULLABLE, 0);
  memset(s, 0, sizeof *s);
  s->format = "i";
  s->name = h->name;
  s->flags = ARROW_FLAG_NULLABLE;
  s->dictionary = &h->dict;
  s->release = dict_schema_release;
  s->private_data = h;
}

/* ---- tables ---------------------------------------------------------------------------- */

/* A table of one batch: columns names[i] with formats[i] (a format "dict:<values>" makes
 * a dictionary schema) and arrays cols[i] (moved in). */
static inline void table_of(wr_arrow_table *t, int n, const char *const *names, const char *const *formats,
                            struct ArrowArray *cols) {
  wr_arrow_table_init(t);
  struct ArrowSchema s;
  wr_arrow_schema_init(&s, "+s", "", 0, n);
  int64_t len = n ? cols[0].length : 0;
  for (int i = 0; i < n; i++) {
    struct ArrowSchema c;
    if (!strncmp(formats[i], "dict:", 5)) schema_dict(&c, names[i], formats[i] + 5);
    else wr_arrow_schema_init(&c, formats[i], names[i], ARROW_FLAG_NULLABLE, 0);
    wr_arrow_schema_set_child(&s, i, &c);
  }
  wr_arrow_table_set_schema(t, &s);
  struct ArrowArray b;
  wr_arrow_array_init(&b, len, 1, n);
  for (int i = 0; i < n; i++) wr_arrow_array_set_child(&b, i, &cols[i]);
  wr_arrow_table_append(t, &b);
}

/* Appends one more batch with the same columns. */
static inline void table_add(wr_arrow_table *t, int n, struct ArrowArray *cols) {
  struct ArrowArray b;
  wr_arrow_array_init(&b, cols[0].length, 1, n);
  for (int i = 0; i < n; i++) wr_arrow_array_set_child(&b, i, &cols[i]);
  wr_arrow_table_append(t, &b);
}

/* One int64 column named `name`; NN entries are null. */
static inline void table_i64(wr_arrow_table *t, const char *name, const int64_t *v, int64_t n) {
  bool *nulls = calloc((size_t)n + 1, 1);
  for (int64_t i = 0; i < n; i++) nulls[i] = v[i] == NN;
  struct ArrowArray a;
  arr_fixed(&a, 8, v, n, nulls);
  free(nulls);
  const char *names[] = {name}, *formats[] = {"l"};
  table_of(t, 1, names, formats, &a);
}

static inline weir_contract *yaml_contract(const char *text) {
  weir_contract *c = NULL;
  weir_error err = {0};
  if (wr_contract_from_yaml(text, strlen(text), "t.yml", &c, &err)) {
    fprintf(stderr, "contract does not load: %s\n", err.message);
    weir_error_clear(&err);
    return NULL;
  }
  return c;
}

/* The message of violation i of a report ("" when there is none). */
static inline const char *vmsg(const wr_validation *v, size_t i) {
  json_t *a = json_object_get(v->report, "violations");
  const char *m = json_string_value(json_object_get(json_array_get(a, i), "message"));
  return m ? m : "";
}

static inline size_t vcount(const wr_validation *v) {
  return json_array_size(json_object_get(v->report, "violations"));
}

/* Column `col` of batch `b` of a table. */
static inline const struct ArrowArray *tcol(const wr_arrow_table *t, size_t b, int64_t col) {
  return wr_arrow_batch_array(t->batches[b])->children[col];
}

#endif
