/*
 * error.c -- error values, error-code names and exit codes, and checked allocation.
 */
#include "util/error.h"
#include "util/utf8.h"

#include <stdarg.h>
#include <stdatomic.h>
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
  if (!s) return NULL;
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  /* Messages quote input, which can be any bytes; a message is always UTF-8 (utf8.h). */
  return wr_utf8_repair_owned(s);
}

/* A message that cannot be allocated turns the error into WEIR_ENOMEM (as SQLite's
 * sqlite3ErrorWithMsg does): the caller's code is still returned when err is NULL, since
 * nothing was allocated then. */
int wr_seterr(weir_error *err, int code, const char *fmt, ...) {
  if (!err) return code;
  /* An error raised after an allocation failed in this call may be its consequence (a
   * parse of a value jansson truncated, a lookup that found nothing because a copy was
   * lost): it is reported as the OOM it is, as SQLite turns a statement's error into
   * SQLITE_NOMEM once mallocFailed is set. */
  if (code != WEIR_ENOMEM && wr_json_failed_since_mark()) return wr_oom(err);
  weir_error_clear(err);
  va_list ap;
  va_start(ap, fmt);
  err->message = vformat(fmt, ap);
  va_end(ap);
  if (!err->message) return wr_oom(err);
  err->code = code;
  return code;
}

int wr_oom(weir_error *err) {
  if (!err) return WEIR_ENOMEM;
  weir_error_clear(err);
  err->code = WEIR_ENOMEM;
  err->message = wr_strdup("out of memory"); /* NULL when even this fails: see error.h */
  return WEIR_ENOMEM;
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
  if (details && !err->details) wr_oom(err);
}

void wr_error_add_detail(weir_error *err, json_t *item) {
  if (!err) {
    json_decref(item);
    return;
  }
  json_t *arr = NULL;
  unsigned long f = wr_json_alloc_failures();
  if (err->details) arr = json_loads(err->details, 0, NULL);
  if (!json_is_array(arr)) {
    json_decref(arr);
    arr = json_array();
  }
  /* A reload that lost an allocation may have dropped characters (json.h, wr_json_loads). */
  int lost = wr_json_alloc_failures() != f;
  if (!item || !arr || lost || json_array_append_new(arr, item) != 0) { /* append_new takes item either way */
    if (!arr || lost) json_decref(item); /* an item the caller could not build is OOM */
    json_decref(arr);
    wr_oom(err);
    return;
  }
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
  char *m = p ? wr_asprintf("%s: %s", p, err->message ? err->message : "") : NULL;
  free(p);
  if (!m) { /* the context is lost, the error is not: it is now the OOM that lost it */
    wr_oom(err);
    return;
  }
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
  case WEIR_ENOMEM: return "OutOfMemory";
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


/* --- allocation ------------------------------------------------------------------
 * The wr_* allocators return NULL on failure (error.h has the rule). In a WEIR_FAILPOINTS
 * build each one first asks inject(), which fails the armed nth call: a countdown, so
 * a test can walk every allocation of an operation in turn. */
#ifdef WEIR_FAILPOINTS
static atomic_long fail_countdown; /* > 0: allocations left before the failing one */
static atomic_long fail_count;
static atomic_long alloc_count;

void wr_alloc_fail_after(long n) { atomic_store(&fail_countdown, n > 0 ? n : 0); }
long wr_alloc_failures(void) { return atomic_load(&fail_count); }
long wr_alloc_count(void) { return atomic_load(&alloc_count); }

static _Thread_local int held;

static int inject(void) {
  if (held) return 0;
  atomic_fetch_add(&alloc_count, 1);
  long c = atomic_load(&fail_countdown);
  while (c > 0) {
    if (atomic_compare_exchange_weak(&fail_countdown, &c, c - 1)) {
      if (c != 1) return 0;
      atomic_fetch_add(&fail_count, 1);
      return 1;
    }
  }
  return 0;
}
#define INJECT() inject()
#else
#define INJECT() 0
#endif

/* Every failure, injected or real, is counted for this thread (wr_json_failed_since_mark). */
static _Thread_local unsigned long json_failures, json_failures_mark;

static void *counted(void *p) {
  if (!p) json_failures++;
  return p;
}

void *wr_malloc(size_t n) { return counted(INJECT() ? NULL : malloc(n ? n : 1)); }

void *wr_calloc(size_t n, size_t size) { return counted(INJECT() ? NULL : calloc(n ? n : 1, size ? size : 1)); }

void *wr_realloc(void *p, size_t n) { return counted(INJECT() ? NULL : realloc(p, n ? n : 1)); }

char *wr_strdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = wr_malloc(n + 1);
  if (d) memcpy(d, s, n + 1);
  return d;
}

char *wr_strndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *d = wr_malloc(len + 1);
  if (!d) return NULL;
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

/* jansson's allocations go through the same allocator, so its constructors fail (NULL,
 * -1) exactly where weir's would, and the injected failures reach them. Installed when
 * libweir (or a static test binary) is loaded, before any JSON value exists; the free
 * function is free() as for every wr_* allocation. */
static void *json_alloc(size_t n) { return wr_malloc(n); }

void wr_json_mark(void) { json_failures_mark = json_failures; }
unsigned long wr_json_alloc_failures(void) { return json_failures; }
int wr_json_failed_since_mark(void) { return json_failures != json_failures_mark; }
static void json_release(void *p) { free(p); }
__attribute__((constructor)) static void install_json_alloc(void) { json_set_alloc_funcs(json_alloc, json_release); }

/* --- legacy: abort on OOM (files compiled with WR_ALLOC_ABORTS; never injected) --- */
static void oom_abort(size_t n) {
  fprintf(stderr, "error: out of memory (allocating %zu bytes)\n", n);
  abort();
}

void *wr_xmalloc(size_t n) {
  void *p = malloc(n ? n : 1);
  if (!p) oom_abort(n);
  return p;
}

void *wr_xcalloc(size_t n, size_t size) {
  void *p = calloc(n ? n : 1, size ? size : 1);
  if (!p) oom_abort(n * size);
  return p;
}

void *wr_xrealloc(void *p, size_t n) {
  void *q = realloc(p, n ? n : 1);
  if (!q) oom_abort(n);
  return q;
}

char *wr_xstrdup(const char *s) {
  if (!s) return NULL;
  size_t n = strlen(s);
  char *d = wr_xmalloc(n + 1);
  memcpy(d, s, n + 1);
  return d;
}

char *wr_xstrndup(const char *s, size_t n) {
  if (!s) return NULL;
  size_t len = strnlen(s, n);
  char *d = wr_xmalloc(len + 1);
  memcpy(d, s, len);
  d[len] = 0;
  return d;
}

char *wr_xasprintf(const char *fmt, ...) {
  va_list ap, ap2;
  va_start(ap, fmt);
  va_copy(ap2, ap);
  int n = vsnprintf(NULL, 0, fmt, ap2);
  va_end(ap2);
  if (n < 0) {
    va_end(ap);
    return wr_xstrdup("(unformattable message)");
  }
  char *s = wr_xmalloc((size_t)n + 1);
  vsnprintf(s, (size_t)n + 1, fmt, ap);
  va_end(ap);
  char *r = wr_utf8_repair_owned(s);
  if (!r) oom_abort((size_t)n);
  return r;
}

#ifndef WEIR_FAILPOINTS
static _Thread_local int held;
#endif
void wr_alloc_hold(void) { held++; }
void *wr_alloc_unhold(void *p) {
  held--;
  return p;
}
int wr_alloc_unhold_rc(int rc) {
  held--;
  return rc;
}

void *wr_xcheck(void *p) {
  if (!p) oom_abort(0);
  return p;
}

int wr_xstatus(int rc) {
  if (rc == WEIR_ENOMEM) oom_abort(0);
  return rc;
}
