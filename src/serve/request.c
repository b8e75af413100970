/*
 * request.c -- request bodies and query arguments, read defensively: a body is parsed
 * only up to the server's size bound (enforced by the transport), as one JSON object
 * (jansson bounds nesting depth), and every member a handler uses is fetched through a
 * typed accessor that answers a 400 naming the member, so no handler ever sees a value of
 * a type it did not ask for.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/names.h"

json_t *rest_body_object(const rest_request *req, rest_response *resp) {
  if (!req->body || req->body_len == 0) {
    rest_respond_error(resp, 400, "BadRequestException", NULL, "%s %s: the request needs a JSON body", req->method,
                       req->path);
    return NULL;
  }
  json_error_t je;
  json_t *j = json_loadb(req->body, req->body_len, JSON_REJECT_DUPLICATES, &je);
  if (!j) {
    rest_respond_error(resp, 400, "BadRequestException", NULL, "malformed JSON body at line %d, column %d: %s",
                       je.line, je.column, je.text);
    return NULL;
  }
  if (!json_is_object(j)) {
    json_decref(j);
    rest_respond_error(resp, 400, "BadRequestException", NULL, "the JSON body must be an object");
    return NULL;
  }
  return j;
}

static bool missing(const char *key, const char *where, rest_response *resp) {
  rest_respond_error(resp, 400, "BadRequestException", NULL, "%s: missing required field \"%s\"", where, key);
  return false;
}

static bool mistyped(const char *key, const char *type, const char *where, rest_response *resp) {
  rest_respond_error(resp, 400, "BadRequestException", NULL, "%s: field \"%s\" must be %s", where, key, type);
  return false;
}

bool rest_get_string(const json_t *o, const char *key, bool required, const char **out, const char *where,
                     rest_response *resp) {
  *out = NULL;
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return required ? missing(key, where, resp) : true;
  if (!json_is_string(v)) return mistyped(key, "a string", where, resp);
  *out = json_string_value(v);
  return true;
}

bool rest_get_int(const json_t *o, const char *key, bool required, int64_t *out, bool *present, const char *where,
                  rest_response *resp) {
  *out = 0;
  if (present) *present = false;
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return required ? missing(key, where, resp) : true;
  if (!json_is_integer(v)) return mistyped(key, "an integer", where, resp);
  *out = json_integer_value(v);
  if (present) *present = true;
  return true;
}

bool rest_get_object(const json_t *o, const char *key, bool required, json_t **out, const char *where,
                     rest_response *resp) {
  *out = NULL;
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return required ? missing(key, where, resp) : true;
  if (!json_is_object(v)) return mistyped(key, "an object", where, resp);
  *out = v;
  return true;
}

bool rest_get_array(const json_t *o, const char *key, bool required, json_t **out, const char *where,
                    rest_response *resp) {
  *out = NULL;
  json_t *v = json_object_get(o, key);
  if (!v || json_is_null(v)) return required ? missing(key, where, resp) : true;
  if (!json_is_array(v)) return mistyped(key, "an array", where, resp);
  *out = v;
  return true;
}

bool rest_table_ident(const json_t *o, char *out, size_t size, const char *where, rest_response *resp) {
  json_t *ns = NULL;
  const char *name = NULL;
  if (!json_is_object(o)) return mistyped("identifier", "an object {namespace, name}", where, resp);
  if (!rest_get_array(o, "namespace", true, &ns, where, resp)) return false;
  if (!rest_get_string(o, "name", true, &name, where, resp)) return false;
  if (json_array_size(ns) != 1 || !json_is_string(json_array_get(ns, 0))) {
    rest_respond_error(resp, 400, "BadRequestException", NULL,
                       "%s: weir namespaces have one level: \"namespace\" must be an array of one string", where);
    return false;
  }
  const char *n = json_string_value(json_array_get(ns, 0));
  weir_error err = {0};
  if (wr_ident_check(n, "namespace", &err) || wr_ident_check(name, "table name", &err)) {
    rest_respond_error(resp, 400, "BadRequestException", NULL, "%s: %s", where, err.message);
    weir_error_clear(&err);
    return false;
  }
  snprintf(out, size, "%s.%s", n, name);
  return true;
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

char *rest_percent_decode(const char *s, size_t n, bool form) {
  char *out = wr_malloc(n + 1);
  size_t j = 0;
  for (size_t i = 0; i < n; i++) {
    char ch = s[i];
    if (ch == '%') {
      int hi = i + 1 < n ? hexval(s[i + 1]) : -1;
      int lo = i + 2 < n ? hexval(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) {
        free(out);
        return NULL;
      }
      ch = (char)(hi * 16 + lo);
      i += 2;
    } else if (form && ch == '+') {
      ch = ' ';
    }
    if (ch == 0) {
      free(out);
      return NULL;
    }
    out[j++] = ch;
  }
  out[j] = 0;
  return out;
}

char *rest_arg(const rest_request *req, const char *key) {
  for (size_t i = 0; i < req->n_args; i++)
    if (req->arg_keys[i] && strcmp(req->arg_keys[i], key) == 0)
      return req->arg_values[i] ? rest_percent_decode(req->arg_values[i], strlen(req->arg_values[i]), true) : wr_strdup("");
  return NULL;
}
