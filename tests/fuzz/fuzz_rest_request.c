/*
 * fuzz_rest_request.c -- `weir serve`'s request handling (src/serve/: router, request
 * bodies, dispatch, handlers) on arbitrary requests, with no network in between.
 *
 * Input: a first line "METHOD /path?query" (the raw request target), then the body. The
 * lake is a real one, made once per process in a temporary folder (titanic-less: one
 * empty commit, branch dev, tag v1), and every request carries a valid token so that the
 * handlers behind authentication are reached. Promises checked: every request gets a
 * status between 200 and 599; a JSON response parses; an error response has the spec's
 * shape {"error": {"message", "type", "code"}} with code equal to the status.
 */
#include "fuzz.h"

#include <unistd.h>

#include "catalog/catalog.h"
#include "lake/lake.h"
#include "serve/serve.h"
#include "util/fs.h"

static rest_server srv;
static char tmpdir[] = "/tmp/weir-fuzz-rest-XXXXXX";
static char secret[CATALOG_TOKEN_SECRET_SIZE];
static char auth[CATALOG_TOKEN_SECRET_SIZE + 16];

static void cleanup(void) {
  rest_server_clear(&srv);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "fuzz_rest_request: could not remove %s\n", tmpdir);
}

static void must(int rc, weir_error *err, const char *what) {
  if (rc != WEIR_OK) {
    fprintf(stderr, "fuzz_rest_request: %s: %s\n", what, err->message ? err->message : "?");
    abort();
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  weir_error err = {0};
  if (!mkdtemp(tmpdir)) abort();
  char *path = wr_path_join(tmpdir, "lake");
  weir_lake *lake = NULL;
  must(weir_lake_init(path, NULL, &lake, &err), &err, "weir_lake_init");
  must(weir_branch_create(lake, "dev", NULL, NULL, &err), &err, "branch dev");
  must(weir_tag_create(lake, "v1", NULL, NULL, &err), &err, "tag v1");
  catalog_token_row row;
  must(catalog_token_create(lake->cat, "fuzz", false, NULL, secret, &row, &err), &err, "token");
  catalog_token_row_clear(&row);
  snprintf(auth, sizeof auth, "Bearer %s", secret);
  weir_lake_free(lake);
  must(rest_server_init(&srv, path, 1 << 20, &err), &err, "rest_server_init");
  free(path);
  atexit(cleanup);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = malloc(size + 1);
  memcpy(text, data, size);
  text[size] = 0;
  char *nl = memchr(text, '\n', size);
  size_t line_len = nl ? (size_t)(nl - text) : size;
  char *line = strndup(text, line_len);
  rest_request req = {0};
  char *sp = strchr(line, ' ');
  req.method = line;
  req.path = "/";
  if (sp) {
    *sp = 0;
    req.path = sp + 1;
  }
  char *q = strchr((char *)req.path, '?');
  if (q) {
    *q = 0;
    char *a = q + 1;
    while (a && *a && req.n_args < REST_MAX_ARGS) {
      char *amp = strchr(a, '&');
      if (amp) *amp = 0;
      char *eq = strchr(a, '=');
      if (eq) *eq = 0;
      req.arg_keys[req.n_args] = a;
      req.arg_values[req.n_args] = eq ? eq + 1 : NULL;
      req.n_args++;
      a = amp ? amp + 1 : NULL;
    }
  }
  req.authorization = auth;
  req.body = nl ? nl + 1 : NULL;
  req.body_len = nl ? size - line_len - 1 : 0;
  rest_response resp;
  rest_dispatch(&srv, &req, &resp);
  if (resp.status < 200 || resp.status > 599) fuzz_fail("status %d", resp.status);
  if (resp.body && resp.content_type && strcmp(resp.content_type, "application/json") == 0) {
    json_error_t je;
    json_t *doc = json_loads(resp.body, 0, &je);
    if (!doc) fuzz_fail("response is not JSON: %s", je.text);
    if (resp.status >= 400 && json_object_get(doc, "error") && json_is_object(json_object_get(doc, "error"))) {
      json_t *e = json_object_get(doc, "error");
      if (!json_is_string(json_object_get(e, "message")) || !json_is_string(json_object_get(e, "type")) ||
          json_integer_value(json_object_get(e, "code")) != resp.status)
        fuzz_fail("error response without the spec's shape: %s", resp.body);
    } else if (resp.status >= 400 && !json_is_string(json_object_get(doc, "error"))) {
      fuzz_fail("error response without an error object: %s", resp.body);
    }
    json_decref(doc);
  }
  rest_response_clear(&resp);
  free(line);
  free(text);
  return 0;
}
