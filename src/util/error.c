/*
 * error.c -- error values, error-code names and exit codes, and checked allocation.
 */
#include "util/error.h"
#include "util/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *vformat(const char *fmt, va_list ap) WEIR_PRINTF(1, 0);
static char *vformat(const char *fmt, va_list ap) {
  va_list ap2;
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) return wr_strdup("(unformattable message)");
  char *s = wr_malloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  /* Messages quote input, which can be any bytes; a message is always UTF-8 (utf8.h). */
  return wr_utf8_repair_owned(s);
}

int wr_seterr(weir_error *err, int code, const char *fmt, ...) {
  if (!err) return code;
  weir_error_clear(err);
  va_list ap;
  va_start(ap, fmt);
  err->message = vformat(fmt, ap);
  va_end(ap);
  err->code = code;
  return code;
}

void weir_error_clear(weir_error *err) {
  if (!err) return;
  free(err->message);
  free(err->details);
  err->message = NULL;
  err->details = NULL;
  err->code = WEIR_OK;
}

void wr_error_set_details(weir_error *err, json_t *details) {
  if (!err) {
    json_decref(details);
    return;
  }
  free(err->details);
  err->details = details ? json_dumps(details, JSON_COMPACT | JSON_ENSURE_ASCII) : NULL;
  json_decref(details);
}

void wr_error_add_detail(weir_error *err, json_t *item) {
  if (!err) {
    json_decref(item);
    return;
  }
  json_t *arr = NULL;
  if (err->details) arr = json_loads(err->details, 0, NULL);
  if (!json_is_array(arr)) {
    json_decref(arr);
    arr = json_array();
  }
  json_array_append_new(arr, item);
  wr_error_set_details(err, arr);
}

void wr_error_add_sql_position(weir_error *err, const char *message, int line, int column) {
  wr_error_add_detail(err, json_pack("{s:s,s:s,s:i,s:o}", "kind", "sql_position", "message", message ? message : "",
                                     "line", line, "column", column > 0 ? json_integer(column) : json_null()));
}

int wr_error_sql_line(const weir_error *err) {
  json_t *arr = err && err->details ? json_loads(err->details, 0, NULL) : NULL;
  int line = 0;
  size_t i;
  json_t *d;
  json_array_foreach(arr, i, d) {
    const char *kind = json_string_value(json_object_get(d, "kind"));
    json_t *l = json_object_get(d, "line");
    if (kind && strcmp(kind, "sql_position") == 0 && json_is_integer(l)) {
      line = (int)json_integer_value(l);
      break;
    }
  }
  json_decref(arr);
  return line;
}

void wr_error_prefix(weir_error *err, const char *fmt, ...) {
  if (!err) return;
  va_list ap;
  va_start(ap, fmt);
  char *p = vformat(fmt, ap);
  va_end(ap);
  char *m = wr_asprintf("%s: %s", p, err->message ? err->message : "");
  free(p);
  free(err->message);
  err->message = m;
}

void wr_error_move(weir_error *dst, weir_error *src) {
  if (!dst) {
    weir_error_clear(src);
    return;
  }
  weir_error_clear(dst);
  if (!src) return;
  *dst = *src;
  src->code = WEIR_OK;
  src->message = NULL;
  src->details = NULL;
}

const char *weir_error_name(int code) {
  switch (code) {
  case WEIR_OK: return "Ok";
  case WEIR_EGENERIC: return "WeirError";
  case WEIR_ENOTFOUND: return "NotFound";
  case WEIR_EEXISTS: return "AlreadyExists";
  case WEIR_EIO: return "StorageError";
  case WEIR_ECATALOG: return "CatalogError";
  case WEIR_EENGINE: return "EngineError";
  case WEIR_EINVALIDNAME: return "InvalidName";
  case WEIR_EINVALIDARG: return "InvalidArgument";
  case WEIR_EINPUT: return "InvalidInput";
  case WEIR_ECONTRACT: return "ContractViolation";
  case WEIR_EPLAN: return "PlanError";
  case WEIR_ECONFLICT: return "MergeConflict";
  case WEIR_ECONCURRENT: return "ConcurrentUpdate";
  case WEIR_EPARTIAL: return "PartialRunError";
  case WEIR_EMODEL: return "ModelError";
  case WEIR_EUNSUPPORTED: return "Unsupported";
  case WEIR_EINTERRUPTED: return "Interrupted";
  case WEIR_ESTALEREAD: return "StaleRead";
  default: return "WeirError";
  }
}

int weir_error_exit_code(int code) {
  switch (code) {
  case WEIR_OK: return 0;
  case WEIR_EINVALIDNAME:
  case WEIR_EINVALIDARG: return 2;
  case WEIR_ECONTRACT:
  case WEIR_EPLAN: return 3;
  case WEIR_ECONFLICT:
  case WEIR_ECONCURRENT:
  case WEIR_ESTALEREAD: return 4;
  case WEIR_EINTERRUPTED: return 130; /* as shells report a command stopped by SIGINT */
  default: return 1;
  }
}


static void oom(size_t n) {
  fprintf(stderr, "error: out of memory (allocating %zu bytes)\n", n);
  abort();
}

void *wr_malloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom(n);
  return p;
}

void *wr_calloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) oom(n * size);
  return p;
}

void *wr_realloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom(n);
  return q;
}

char *wr_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = wr_malloc(n + 1);
  memcpy(d, s, n + 1);
  return d;
}

char *wr_strndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *d = wr_malloc(len + 1);
  memcpy(d, s, len);
  d[len] = 0;
  return d;
}

char *wr_asprintf(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char *s = vformat(fmt, ap);
  va_end(ap);
  return s;
}
