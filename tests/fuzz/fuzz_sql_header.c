/*
 * fuzz_sql_header.c -- the `-- weir:` header of SQL models (pipeline_parse_sql_model,
 * src/pipeline/sql_model.c), given a model file's text as pipeline_load reads it.
 *
 * Promises checked: every problem is a JSON object with a valid UTF-8 "message" that
 * names the file, and a line inside the file; a failure records at least one problem; a
 * success records none, keeps the whole text as the statement and names the model.
 */
#include "fuzz.h"

#include "pipeline/pipeline.h"

#define FILE_NAME "model.sql"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstr(data, size);
  wr_project p = {0};
  p.problems = json_array();
  pipeline_model m;
  int rc = pipeline_parse_sql_model(&p, FILE_NAME, text, &m);
  size_t n = json_array_size(p.problems);
  if (rc != WEIR_OK && n == 0) fuzz_fail("the header was refused without a problem");
  if (rc == WEIR_OK && n != 0) fuzz_fail("the header was accepted with %zu problems", n);
  int lines = fuzz_lines((const uint8_t *)text, strlen(text));
  for (size_t i = 0; i < n; i++) {
    json_t *pr = json_array_get(p.problems, i);
    const char *msg = json_string_value(json_object_get(pr, "message"));
    if (!msg) fuzz_fail("problem %zu has no message (not valid UTF-8?)", i);
    if (strncmp(msg, FILE_NAME, strlen(FILE_NAME)) != 0) fuzz_fail("problem does not name the file: %s", msg);
    json_t *line = json_object_get(pr, "line");
    if (json_is_integer(line) && (json_integer_value(line) < 1 || json_integer_value(line) > lines))
      fuzz_fail("problem line %lld outside the file: %s", (long long)json_integer_value(line), msg);
    char *dump = json_dumps(pr, JSON_COMPACT);
    if (!dump) fuzz_fail("problem %zu does not serialise", i);
    free(dump);
  }
  if (!m.name || !m.file) fuzz_fail("a model without a name or file");
  if (rc == WEIR_OK && (!m.sql || strcmp(m.sql, text) != 0))
    fuzz_fail("the statement is not the file's text");
  free(m.name);
  free(m.file);
  free(m.sql);
  free(m.output_schema_name);
  json_decref(p.problems);
  free(text);
  return 0;
}
