/*
 * response.c -- responses in the REST spec's shapes. Every error a client sees is an
 * IcebergErrorResponse: {"error": {"message", "type", "code"}}, where `type` is the name
 * the Java and Python clients map to their exception classes (NoSuchTableException,
 * CommitFailedException, ...), so engines react to weir's refusals as to any catalog's.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/json.h"

void rest_response_clear(rest_response *r) {
  if (!r) return;
  free(r->body);
  memset(r, 0, sizeof *r);
}

void rest_respond_json(rest_response *r, int status, json_t *doc) {
  free(r->body);
  r->status = status;
  r->body = wr_json_compact(doc);
  r->content_type = "application/json";
  json_decref(doc);
}

void rest_respond_empty(rest_response *r) {
  free(r->body);
  r->body = NULL;
  r->status = 204;
  r->content_type = NULL;
}

void rest_respond_error(rest_response *r, int status, const char *type, json_t *details, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  va_list ap2;
  va_copy(ap2, ap);
  int len = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = wr_malloc(len > 0 ? (size_t)len + 1 : 1);
  if (len > 0) vsnprintf(msg, (size_t)len + 1, fmt, ap2);
  else msg[0] = 0;
  va_end(ap2);
  json_t *e = json_object();
  json_t *m = json_string(msg);
  json_object_set_new(e, "message", m ? m : json_string("(message not UTF-8)"));
  json_object_set_new(e, "type", json_string(type));
  json_object_set_new(e, "code", json_integer(status));
  if (json_is_array(details) && json_array_size(details) > 0) {
    json_t *stack = json_array();
    size_t i;
    json_t *d;
    json_array_foreach(details, i, d) {
      const char *dm = wr_json_str(d, "message", NULL);
      if (dm) {
        json_array_append_new(stack, json_string(dm));
      } else {
        char *t = wr_json_compact(d);
        json_array_append_new(stack, json_string(t));
        free(t);
      }
    }
    json_object_set_new(e, "stack", stack);
    json_object_set_new(e, "weir", json_incref(details));
  }
  json_decref(details);
  free(msg);
  rest_respond_json(r, status, json_pack("{s:o}", "error", e));
}

static bool is_protected(const weir_error *err) {
  if (!err->details) return false;
  json_error_t je;
  json_t *d = json_loads(err->details, 0, &je);
  bool yes = false;
  size_t i;
  json_t *v;
  json_array_foreach(d, i, v) if (strcmp(wr_json_str(v, "kind", ""), "protected_branch") == 0) yes = true;
  json_decref(d);
  return yes;
}

void rest_respond_weir_error(rest_response *r, const weir_error *err, const char *not_found_type) {
  const char *msg = err->message ? err->message : weir_error_name(err->code);
  json_t *details = NULL;
  if (err->details) {
    json_error_t je;
    details = json_loads(err->details, 0, &je);
  }
  int status = 500;
  const char *type = "InternalServerError";
  switch (err->code) {
  case WEIR_ENOTFOUND: status = 404; type = not_found_type ? not_found_type : "NoSuchTableException"; break;
  case WEIR_EEXISTS: status = 409; type = "AlreadyExistsException"; break;
  case WEIR_ECONCURRENT:
  case WEIR_ESTALEREAD:
  case WEIR_ECONFLICT: status = 409; type = "CommitFailedException"; break;
  case WEIR_ECONTRACT:
  case WEIR_EPARTIAL: status = 400; type = "ValidationException"; break;
  case WEIR_EUNSUPPORTED: status = 406; type = "UnsupportedOperationException"; break;
  case WEIR_EINVALIDARG:
    if (is_protected(err)) {
      status = 403;
      type = "ForbiddenException";
      break;
    }
    /* fall through */
  case WEIR_EINVALIDNAME:
  case WEIR_EINPUT: status = 400; type = "BadRequestException"; break;
  default: break;
  }
  rest_respond_error(r, status, type, details, "%s", msg);
}
