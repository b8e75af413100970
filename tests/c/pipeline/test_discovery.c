/* What discovery prints, read by libweir: since discovery runs the project's code, its
 * output is untrusted, and libweir checks again what the SDK's decorators already check. */
#include "harness.h"
#include "pipeline/pipeline.h"
#include "util/json.h"

static wr_project *apply(const char *doc, int *rc, weir_error *err) {
  wr_project *p = pipeline_project_new("/nonexistent/project");
  *rc = pipeline_discovery_apply(p, doc, strlen(doc), err);
  return p;
}

static const char *problem(const wr_project *p, size_t i) {
  return wr_json_str(json_array_get(p->problems, i), "message", "(none)");
}

TEST(limits_are_read_with_their_defaults) {
  weir_error err = {0};
  int rc;
  wr_project *p = apply(
      "{\"models\": [{\"name\": \"g\", \"file\": \"models.py\", \"line\": 3, \"function\": \"g\", "
      "\"inputs\": [],"
      " \"sandbox\": {\"internet_access\": true, \"memory\": 536870912, \"timeout\": null, \"cpu_time\": "
      "9.5}},"
      " {\"name\": \"h\", \"file\": \"models.py\", \"line\": 9, \"function\": \"h\", \"inputs\": []}]}",
      &rc, &err);
  CHECK_OK(rc, &err);
  CHECK_INT(p->n_models, 2);
  CHECK(p->models[0].internet);
  CHECK_INT(p->models[0].limits.memory, 536870912);
  CHECK_INT((long long)p->models[0].limits.timeout_s, (long long)SANDBOX_DEFAULT_TIMEOUT_S);
  CHECK_INT(p->models[0].limits.cpu_s, 10);
  CHECK(!p->models[1].internet);
  CHECK_INT(p->models[1].limits.memory, SANDBOX_DEFAULT_MEMORY);
  CHECK_INT(json_array_size(p->problems), 0);
  pipeline_project_free(p);
}

TEST(bad_limits_and_shapes_are_problems_not_crashes) {
  weir_error err = {0};
  int rc;
  wr_project *p = apply(
      "{\"models\": [{\"name\": \"g\", \"file\": \"models.py\", \"line\": 3, \"function\": \"g\", "
      "\"inputs\": [],"
      " \"sandbox\": {\"memory\": 5}},"
      " {\"name\": \"h\", \"file\": \"models.py\", \"line\": 9, \"function\": \"h\", \"inputs\": "
      "[{\"param\": \"x\"}]},"
      " {\"name\": \"k\", \"file\": \"models.py\", \"line\": 12, \"function\": \"k\", \"inputs\": [],"
      " \"sandbox\": {\"timeout\": -1, \"disk\": \"1GB\"}}]}",
      &rc, &err);
  CHECK_OK(rc, &err);
  CHECK_INT(json_array_size(p->problems), 3);
  CHECK_CONTAINS(problem(p, 0), "models.py:3: model g: @weir.python: memory must be at least 32 MiB");
  CHECK_CONTAINS(problem(p, 1), "an input's param or table");
  CHECK_CONTAINS(problem(p, 2), "model k: @weir.python:");
  CHECK_INT(p->n_models, 2); /* h, without its input's table, is dropped */
  pipeline_project_free(p);
}

TEST(output_that_is_not_a_document_is_an_error) {
  weir_error err = {0};
  int rc;
  wr_project *p = apply("I am a model and I print what I like", &rc, &err);
  CHECK_INT(rc, WEIR_EMODEL);
  CHECK_CONTAINS(err.message, "discovery printed no JSON document");
  weir_error_clear(&err);
  pipeline_project_free(p);
  p = apply("[1, 2]", &rc, &err);
  CHECK_INT(rc, WEIR_EMODEL);
  CHECK_CONTAINS(err.message, "not an object");
  weir_error_clear(&err);
  pipeline_project_free(p);
  /* A key given twice could make the SDK's account and libweir's differ: refused. */
  p = apply("{\"models\": [], \"models\": [{}]}", &rc, &err);
  CHECK_INT(rc, WEIR_EMODEL);
  weir_error_clear(&err);
  pipeline_project_free(p);
}

TEST_MAIN()
