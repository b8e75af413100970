/*
 * test_plan.c -- planning a project against a lake (src/pipeline/plan.c): the execution
 * order of SQL and Python models, input resolution to producers and catalog tables, and
 * the problems a plan reports, each once.
 *
 * Python models come from discovery, which libweir runs as a separate process
 * ($WEIR_PYTHON -B -m weir.discover DIR). Here that process is tool_fake_discover, a real
 * program speaking the same protocol: it prints the discovery document the test wrote,
 * so the planner is tested without an interpreter, the SDK or a sandbox in the way.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "harness.h"
#include "lake/lake.h"
#include "pipeline/pipeline.h"
#include "util/json.h"

typedef struct fixture {
  char *dir;
  char lake_path[4200];
  char project[4200];
  weir_lake *lake;
  char head[WEIR_HASH_HEX_SIZE];
} fixture;

static void write_file(const char *dir, const char *name, const char *text) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) exit(99);
  fputs(text, f);
  fclose(f);
}

static fixture fx_new(void) {
  fixture f = {0};
  f.dir = test_tmpdir();
  snprintf(f.lake_path, sizeof f.lake_path, "%s/lake", f.dir);
  snprintf(f.project, sizeof f.project, "%s/project", f.dir);
  mkdir(f.project, 0755);
  write_file(f.dir, "src.csv", "id,name\n1,a\n2,b\n3,c\n");
  write_file(f.project, "weir_project.yml", "name: p\nnamespace: default\n");
  weir_error err = {0};
  char csv[4300];
  snprintf(csv, sizeof csv, "%s/src.csv", f.dir);
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = "src";
  char *out = NULL;
  /* Discovery runs the lake's Python interpreter: here the fake one. */
  char tool[4300];
  snprintf(tool, sizeof tool, "%s/pipeline_tool_fake_discover", getenv("WEIR_BUILD_DIR"));
  weir_lake_options lo = WEIR_LAKE_OPTIONS_INIT;
  lo.python = tool;
  if (weir_lake_init(f.lake_path, &lo, &f.lake, &err) || weir_table_import(f.lake, csv, &o, &out, &err) ||
      weir_ref_resolve(f.lake, "main", f.head, &err)) {
    fprintf(stderr, "fixture: %s\n", err.message);
    exit(99);
  }
  weir_free(out);
  return f;
}

static void fx_free(fixture *f) {
  weir_lake_free(f->lake);
  test_rmtree(f->dir);
  free(f->dir);
}

/* A Python model of the discovery document: {name, file, line, function, inputs}. */
#define PY_MODEL(name, line, inputs) \
  "{\"name\": \"" name "\", \"file\": \"models.py\", \"line\": " #line ", \"function\": \"" name \
  "\", \"inputs\": [" inputs "]}"
#define PY_INPUT(param, table) "{\"param\": \"" param "\", \"table\": \"" table "\"}"

static wr_project *plan(fixture *f, const char *discovery, int *rc, weir_error *err) {
  write_file(f->project, "models.py", "# the models come from discovery.json (tool_fake_discover)\n");
  write_file(f->project, "discovery.json", discovery);
  wr_project *p = NULL;
  *rc = pipeline_load(f->lake, f->project, true, &p, err);
  if (*rc == WEIR_OK) *rc = pipeline_plan(f->lake, p, f->head, err);
  return p;
}

static const char *order_name(const wr_project *p, size_t i) {
  return i < p->n_order ? p->models[p->order[i]].name : "(none)";
}

static const char *problem(const wr_project *p, size_t i) {
  return wr_json_str(json_array_get(p->problems, i), "message", "(none)");
}

TEST(sql_and_python_models_run_in_the_order_of_their_inputs) {
  fixture f = fx_new();
  /* c (SQL) reads b (Python), which reads a (SQL), which reads the catalog's src */
  write_file(f.project, "c.sql", "-- weir: name=c\nSELECT * FROM b\n");
  write_file(f.project, "a.sql", "-- weir: name=a\nSELECT id, name FROM src\n");
  weir_error err = {0};
  int rc;
  wr_project *p = plan(&f, "{\"models\": [" PY_MODEL("b", 4, PY_INPUT("rows", "a")) "]}", &rc, &err);
  CHECK_OK(rc, &err);
  CHECK_INT(json_array_size(p->problems), 0);
  CHECK_INT(p->n_order, 3);
  CHECK_STR(order_name(p, 0), "a");
  CHECK_STR(order_name(p, 1), "b");
  CHECK_STR(order_name(p, 2), "c");
  const pipeline_model *b = &p->models[p->order[1]];
  CHECK_INT(b->lang, MODEL_PYTHON);
  CHECK(b->inputs[0].producer >= 0);
  CHECK_STR(p->models[b->inputs[0].producer].name, "a");
  CHECK_STR(b->table, "default.b");
  /* the plan document names every model in that order */
  json_t *doc = pipeline_plan_json(p, "main", f.head);
  CHECK(json_is_true(json_object_get(doc, "ok")));
  CHECK_STR(wr_json_str(json_array_get(json_object_get(doc, "models"), 1), "language", ""), "python");
  json_decref(doc);
  pipeline_project_free(p);
  fx_free(&f);
}

TEST(an_input_that_nothing_produces_is_one_problem_naming_it) {
  fixture f = fx_new();
  weir_error err = {0};
  int rc;
  wr_project *p = plan(&f, "{\"models\": [" PY_MODEL("g", 7, PY_INPUT("rows", "nosuch")) "]}", &rc, &err);
  CHECK_OK(rc, &err);
  CHECK_INT(json_array_size(p->problems), 1);
  CHECK_CONTAINS(problem(p, 0), "nosuch");
  CHECK_STR(wr_json_str(json_array_get(p->problems, 0), "file", ""), "models.py");
  CHECK_INT(wr_json_int(json_array_get(p->problems, 0), "line", 0), 7);
  CHECK_INT(pipeline_plan_error(p, &err), WEIR_EPLAN);
  CHECK_CONTAINS(err.message, "nosuch");
  weir_error_clear(&err);
  pipeline_project_free(p);
  fx_free(&f);
}

TEST(a_cycle_between_models_is_a_problem) {
  fixture f = fx_new();
  weir_error err = {0};
  int rc;
  wr_project *p = plan(&f,
                       "{\"models\": [" PY_MODEL("x", 1, PY_INPUT("rows", "y")) ", " PY_MODEL(
                           "y", 5, PY_INPUT("rows", "x")) "]}",
                       &rc, &err);
  CHECK_OK(rc, &err);
  CHECK(json_array_size(p->problems) >= 1);
  bool cycle = false;
  for (size_t i = 0; i < json_array_size(p->problems); i++) cycle = cycle || strstr(problem(p, i), "cycle");
  CHECK(cycle);
  pipeline_project_free(p);
  fx_free(&f);
}

TEST(two_models_with_one_name_are_reported_once) {
  fixture f = fx_new();
  write_file(f.project, "dup.sql", "-- weir: name=dup\nSELECT 1 AS x\n");
  weir_error err = {0};
  int rc;
  wr_project *p = plan(&f, "{\"models\": [" PY_MODEL("dup", 3, "") "]}", &rc, &err);
  CHECK_OK(rc, &err);
  size_t dup = 0;
  for (size_t i = 0; i < json_array_size(p->problems); i++) dup += strstr(problem(p, i), "dup") != NULL;
  CHECK_INT(dup, 1);
  pipeline_project_free(p);
  fx_free(&f);
}

TEST(discovery_that_fails_is_reported_with_what_it_printed) {
  fixture f = fx_new();
  write_file(f.project, "discovery.status", "1\n");
  weir_error err = {0};
  int rc;
  wr_project *p = plan(&f, "", &rc, &err);
  bool reported = rc != WEIR_OK ? err.message && strstr(err.message, "weir.discover")
                                : p && json_array_size(p->problems) > 0;
  CHECK(reported);
  weir_error_clear(&err);
  pipeline_project_free(p);
  fx_free(&f);
}

TEST_MAIN()
