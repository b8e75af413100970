/*
 * filter.c -- taking rows out of batches, for drop mode: the rows kept (the valid data)
 * and the rows rejected (the quarantine) are both "rows idx of this batch".
 *
 * Dropping rows is the one place the validator must copy values. Every Arrow layout a
 * validated column can have is handled, since `Any` columns pass through whatever they
 * are: fixed-width values and bitmaps, 32/64-bit offset strings and binaries, views
 * (the 16-byte views are copied, their data buffers shared), structs, lists, large
 * lists, maps and fixed-size lists (recursively), and top-level dictionary columns
 * (indices copied, the dictionary shared).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

/* Bytes per value of a fixed-width format, 0 when the format is not fixed-width. */
static size_t fixed_width(const char *f) {
  if (!f[1]) {
    switch (f[0]) {
    case 'c':
    case 'C': return 1;
    case 's':
    case 'S':
    case 'e': return 2;
    case 'i':
    case 'I':
    case 'f': return 4;
    case 'l':
    case 'L':
    case 'g': return 8;
    default: return 0;
    }
  }
  if (f[0] == 'd' && f[1] == ':') {
    int p, s, bits = 128;
    sscanf(f + 2, "%d,%d,%d", &p, &s, &bits);
    return (size_t)bits / 8;
  }
  if (f[0] == 'w' && f[1] == ':') return (size_t)atoll(f + 2);
  if (f[0] == 't') {
    if (!strcmp(f, "tdD") || !strcmp(f, "tts") || !strcmp(f, "ttm") || !strcmp(f, "tiM")) return 4;
    if (!strcmp(f, "tin")) return 16;
    if (!strcmp(f, "tdm") || !strcmp(f, "ttu") || !strcmp(f, "ttn") || !strcmp(f, "tiD") || f[1] == 's' ||
        f[1] == 'D')
      return 8;
  }
  return 0;
}

/* Validity of the taken rows: a new bitmap, or none when the source has none. */
static int64_t take_validity(const struct ArrowArray *a, int64_t phys0, const int64_t *idx, int64_t n,
                             struct ArrowArray *out) {
  const uint8_t *src = a->n_buffers > 0 ? a->buffers[0] : NULL;
  if (!src) return 0;
  uint8_t *dst = wr_arrow_array_alloc_buffer(out, 0, (size_t)(n + 7) / 8);
  int64_t nulls = 0;
  for (int64_t k = 0; k < n; k++) {
    if (wr_bit_get(src, phys0 + idx[k])) wr_bit_set(dst, k);
    else nulls++;
  }
  return nulls;
}

static int take_array(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t base, const int64_t *idx,
                      int64_t n, wr_arrow_batch *owner, struct ArrowArray *out, weir_error *err);

/* Lists: child rows of each kept row, in order, become the new child. */
static int take_list(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t phys0, const int64_t *idx,
                     int64_t n, bool large, wr_arrow_batch *owner, struct ArrowArray *out, weir_error *err) {
  wr_arrow_array_init(out, n, 2, 1);
  out->null_count = take_validity(a, phys0, idx, n, out);
  int64_t total = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t r = phys0 + idx[k];
    total += large ? ((const int64_t *)a->buffers[1])[r + 1] - ((const int64_t *)a->buffers[1])[r]
                   : ((const int32_t *)a->buffers[1])[r + 1] - ((const int32_t *)a->buffers[1])[r];
  }
  int64_t *child_idx = wr_malloc((size_t)(total ? total : 1) * sizeof *child_idx);
  void *offs = wr_arrow_array_alloc_buffer(out, 1, (size_t)(n + 1) * (large ? 8 : 4));
  int64_t pos = 0;
  for (int64_t k = 0; k < n; k++) {
    int64_t r = phys0 + idx[k];
    int64_t b = large ? ((const int64_t *)a->buffers[1])[r] : ((const int32_t *)a->buffers[1])[r];
    int64_t e = large ? ((const int64_t *)a->buffers[1])[r + 1] : ((const int32_t *)a->buffers[1])[r + 1];
    if (large) ((int64_t *)offs)[k] = pos;
    else ((int32_t *)offs)[k] = (int32_t)pos;
    for (int64_t c = b; c < e; c++) child_idx[pos++] = c;
  }
  if (large) ((int64_t *)offs)[n] = pos;
  else ((int32_t *)offs)[n] = (int32_t)pos;
  struct ArrowArray child;
  int rc = take_array(s->children[0], a->children[0], 0, child_idx, total, owner, &child, err);
  free(child_idx);
  if (rc) {
    out->release(out);
    return rc;
  }
  wr_arrow_array_set_child(out, 0, &child);
  return WEIR_OK;
}

static int take_array(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t base, const int64_t *idx,
                      int64_t n, wr_arrow_batch *owner, struct ArrowArray *out, weir_error *err) {
  const char *f = s->format;
  int64_t phys0 = a->offset + base;
  if (s->dictionary)
    return wr_seterr(err, WEIR_EUNSUPPORTED,
                       "cannot drop rows from a column holding a nested dictionary (field \"%s\")",
                       s->name ? s->name : "");
  if (!strcmp(f, "n")) {
    wr_arrow_array_init(out, n, 0, 0);
    out->null_count = n;
    return WEIR_OK;
  }
  if (!strcmp(f, "b")) {
    wr_arrow_array_init(out, n, 2, 0);
    out->null_count = take_validity(a, phys0, idx, n, out);
    uint8_t *bits = wr_arrow_array_alloc_buffer(out, 1, (size_t)(n + 7) / 8);
    for (int64_t k = 0; k < n; k++)
      if (wr_bit_get(a->buffers[1], phys0 + idx[k])) wr_bit_set(bits, k);
    return WEIR_OK;
  }
  size_t w = fixed_width(f);
  if (w) {
    wr_arrow_array_init(out, n, 2, 0);
    out->null_count = take_validity(a, phys0, idx, n, out);
    uint8_t *dst = wr_arrow_array_alloc_buffer(out, 1, (size_t)n * w);
    const uint8_t *src = a->buffers[1];
    switch (w) { /* constant sizes let the compiler emit plain moves */
    case 4:
      for (int64_t k = 0; k < n; k++) memcpy(dst + k * 4, src + (phys0 + idx[k]) * 4, 4);
      break;
    case 8:
      for (int64_t k = 0; k < n; k++) memcpy(dst + k * 8, src + (phys0 + idx[k]) * 8, 8);
      break;
    case 16:
      for (int64_t k = 0; k < n; k++) memcpy(dst + k * 16, src + (phys0 + idx[k]) * 16, 16);
      break;
    default:
      for (int64_t k = 0; k < n; k++) memcpy(dst + (size_t)k * w, src + (size_t)(phys0 + idx[k]) * w, w);
    }
    return WEIR_OK;
  }
  bool small = !strcmp(f, "u") || !strcmp(f, "z"), large = !strcmp(f, "U") || !strcmp(f, "Z");
  if (small || large) {
    wr_arrow_array_init(out, n, 3, 0);
    out->null_count = take_validity(a, phys0, idx, n, out);
    const uint8_t *data = a->buffers[2];
    int64_t total = 0;
    for (int64_t k = 0; k < n; k++) {
      int64_t r = phys0 + idx[k];
      total += large ? ((const int64_t *)a->buffers[1])[r + 1] - ((const int64_t *)a->buffers[1])[r]
                     : ((const int32_t *)a->buffers[1])[r + 1] - ((const int32_t *)a->buffers[1])[r];
    }
    void *offs = wr_arrow_array_alloc_buffer(out, 1, (size_t)(n + 1) * (large ? 8 : 4));
    uint8_t *dst = wr_arrow_array_alloc_buffer(out, 2, (size_t)(total ? total : 1));
    int64_t pos = 0;
    for (int64_t k = 0; k < n; k++) {
      int64_t r = phys0 + idx[k];
      int64_t b = large ? ((const int64_t *)a->buffers[1])[r] : ((const int32_t *)a->buffers[1])[r];
      int64_t e = large ? ((const int64_t *)a->buffers[1])[r + 1] : ((const int32_t *)a->buffers[1])[r + 1];
      if (large) ((int64_t *)offs)[k] = pos;
      else ((int32_t *)offs)[k] = (int32_t)pos;
      memcpy(dst + pos, data + b, (size_t)(e - b));
      pos += e - b;
    }
    if (large) ((int64_t *)offs)[n] = pos;
    else ((int32_t *)offs)[n] = (int32_t)pos;
    return WEIR_OK;
  }
  if (!strcmp(f, "vu") || !strcmp(f, "vz")) {
    wr_arrow_array_init(out, n, a->n_buffers, 0);
    out->null_count = take_validity(a, phys0, idx, n, out);
    uint8_t *dst = wr_arrow_array_alloc_buffer(out, 1, (size_t)n * 16);
    for (int64_t k = 0; k < n; k++) memcpy(dst + k * 16, (const uint8_t *)a->buffers[1] + (phys0 + idx[k]) * 16, 16);
    /* The views still point at the same variadic buffers (and their sizes buffer). */
    for (int64_t i = 2; i < a->n_buffers; i++) wr_arrow_array_borrow_buffer(out, i, a->buffers[i], i == 2 ? owner : NULL);
    return WEIR_OK;
  }
  if (!strcmp(f, "+s")) {
    wr_arrow_array_init(out, n, 1, a->n_children);
    out->null_count = take_validity(a, phys0, idx, n, out);
    for (int64_t c = 0; c < a->n_children; c++) {
      struct ArrowArray child;
      int rc = take_array(s->children[c], a->children[c], phys0, idx, n, owner, &child, err);
      if (rc) {
        out->release(out);
        return rc;
      }
      wr_arrow_array_set_child(out, c, &child);
    }
    return WEIR_OK;
  }
  if (!strcmp(f, "+l") || !strcmp(f, "+m")) return take_list(s, a, phys0, idx, n, false, owner, out, err);
  if (!strcmp(f, "+L")) return take_list(s, a, phys0, idx, n, true, owner, out, err);
  if (f[0] == '+' && f[1] == 'w' && f[2] == ':') {
    int64_t size = atoll(f + 3);
    wr_arrow_array_init(out, n, 1, 1);
    out->null_count = take_validity(a, phys0, idx, n, out);
    int64_t *child_idx = wr_malloc((size_t)(n * size > 0 ? n * size : 1) * sizeof *child_idx);
    for (int64_t k = 0; k < n; k++)
      for (int64_t j = 0; j < size; j++) child_idx[k * size + j] = (phys0 + idx[k]) * size + j;
    struct ArrowArray child;
    int rc = take_array(s->children[0], a->children[0], 0, child_idx, n * size, owner, &child, err);
    free(child_idx);
    if (rc) {
      out->release(out);
      return rc;
    }
    wr_arrow_array_set_child(out, 0, &child);
    return WEIR_OK;
  }
  char tn[160];
  wr_arrow_type_name(s, tn, sizeof tn);
  return wr_seterr(err, WEIR_EUNSUPPORTED, "cannot drop rows from column \"%s\" of type %s", s->name ? s->name : "",
                     tn);
}

/* A top-level dictionary column: a shared clone of the column (which owns a clone of the
 * dictionary) whose validity and index buffers are replaced by the taken ones. */
static void take_dictionary(const struct ArrowSchema *s, wr_arrow_batch *b, int64_t col, const int64_t *idx,
                            int64_t n, struct ArrowArray *out) {
  const struct ArrowArray *batch = wr_arrow_batch_array(b);
  const struct ArrowArray *a = batch->children[col];
  int64_t phys0 = a->offset + batch->offset;
  wr_arrow_batch_export_column(b, col, out);
  size_t w = fixed_width(s->format);
  const uint8_t *src_valid = a->buffers[0];
  const uint8_t *src = a->buffers[1];
  out->length = n;
  out->offset = 0;
  int64_t nulls = 0;
  if (src_valid) {
    uint8_t *dst = wr_arrow_array_alloc_buffer(out, 0, (size_t)(n + 7) / 8);
    for (int64_t k = 0; k < n; k++) {
      if (wr_bit_get(src_valid, phys0 + idx[k])) wr_bit_set(dst, k);
      else nulls++;
    }
  }
  out->null_count = nulls;
  uint8_t *dst = wr_arrow_array_alloc_buffer(out, 1, (size_t)n * w);
  for (int64_t k = 0; k < n; k++) memcpy(dst + (size_t)k * w, src + (size_t)(phys0 + idx[k]) * w, w);
}

int wc_filter_take_batch(const struct ArrowSchema *s, wr_arrow_batch *b, const int64_t *idx, int64_t n,
                      struct ArrowArray *out, weir_error *err) {
  const struct ArrowArray *batch = wr_arrow_batch_array(b);
  wr_arrow_array_init(out, n, 1, batch->n_children);
  for (int64_t c = 0; c < batch->n_children; c++) {
    struct ArrowArray child;
    const struct ArrowSchema *cs = s->children[c];
    if (cs->dictionary) {
      take_dictionary(cs, b, c, idx, n, &child);
    } else {
      int rc = take_array(cs, batch->children[c], batch->offset, idx, n, b, &child, err);
      if (rc) {
        out->release(out);
        return rc;
      }
    }
    wr_arrow_array_set_child(out, c, &child);
  }
  return WEIR_OK;
}

void wc_filter_string_column(const char *const *texts, int64_t n, struct ArrowArray *out) {
  size_t total = 0;
  for (int64_t k = 0; k < n; k++) total += strlen(texts[k]);
  wr_arrow_array_init(out, n, 3, 0);
  int64_t *offs = wr_arrow_array_alloc_buffer(out, 1, (size_t)(n + 1) * 8);
  char *data = wr_arrow_array_alloc_buffer(out, 2, total ? total : 1);
  int64_t pos = 0;
  for (int64_t k = 0; k < n; k++) {
    size_t len = strlen(texts[k]);
    offs[k] = pos;
    memcpy(data + pos, texts[k], len);
    pos += (int64_t)len;
  }
  offs[n] = pos;
}
