/* Run records and per-model records. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

TEST(run_lifecycle) {
  fx f = fx_new();
  weir_error err = {0};
  char base[65];
  snprintf(base, 65, "%s", fx_head(&f, "main"));
  CHECK_OK(catalog_run_create(f.cat, "r1", "/p/proj", "sha:1", "main", base, "run/r1", &err), &err);
  CHECK_INT(catalog_run_create(f.cat, "r1", "/p/proj", "sha:1", "main", base, "run/r1", &err), WEIR_EEXISTS);
  CHECK_CONTAINS(err.message, "r1");
  json_t *m1 = json_pack("{s:s,s:s,s:i}", "model", "orders", "status", "running", "rows", 0);
  json_t *m2 = json_pack("{s:s,s:s}", "model", "customers", "status", "succeeded");
  json_t *m1b = json_pack("{s:s,s:s,s:i,s:[]}", "model", "orders", "status", "failed", "rows", 42, "violations");
  CHECK_OK(catalog_run_model(f.cat, "r1", m1, &err), &err);
  CHECK_OK(catalog_run_model(f.cat, "r1", m2, &err), &err);
  CHECK_OK(catalog_run_model(f.cat, "r1", m1b, &err), &err); /* replaces orders, keeps order */
  wr_run_status st;
  CHECK_OK(catalog_run_status(f.cat, "r1", &st, &err), &err);
  CHECK_INT(st, WEIR_RUN_RUNNING);
  json_t *e = json_pack("{s:s,s:s}", "model", "orders", "message", "boom");
  CHECK_OK(catalog_run_finish(f.cat, "r1", WEIR_RUN_FAILED, NULL, e, &err), &err);
  json_t *r = NULL;
  CHECK_OK(catalog_run_get(f.cat, "r1", &r, &err), &err);
  CHECK_STR(wr_json_str(r, "run_id", ""), "r1");
  CHECK_STR(wr_json_str(r, "status", ""), "failed");
  CHECK_STR(wr_json_str(r, "project", ""), "/p/proj");
  CHECK_STR(wr_json_str(r, "project_digest", ""), "sha:1");
  CHECK_STR(wr_json_str(r, "branch", ""), "main");
  CHECK_STR(wr_json_str(r, "run_branch", ""), "run/r1");
  CHECK_STR(wr_json_str(r, "base_commit", ""), base);
  CHECK(json_is_null(json_object_get(r, "result_commit")));
  CHECK(wr_json_int(r, "started", 0) > 0);
  CHECK(wr_json_int(r, "ended", 0) >= wr_json_int(r, "started", 0));
  CHECK_STR(wr_json_str(json_object_get(r, "error"), "message", ""), "boom");
  json_t *models = json_object_get(r, "models");
  CHECK_INT(json_array_size(models), 2);
  CHECK_STR(wr_json_str(json_array_get(models, 0), "model", ""), "orders");
  CHECK_INT(wr_json_int(json_array_get(models, 0), "rows", 0), 42);
  CHECK_STR(wr_json_str(json_array_get(models, 1), "model", ""), "customers");
  json_decref(r);
  CHECK_OK(catalog_run_status(f.cat, "r1", &st, &err), &err);
  CHECK_INT(st, WEIR_RUN_FAILED);
  CHECK_STR(wr_run_status_name(WEIR_RUN_SUCCEEDED), "succeeded");
  json_decref(m1);
  json_decref(m2);
  json_decref(m1b);
  json_decref(e);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(runs_are_listed_newest_first) {
  fx f = fx_new();
  weir_error err = {0};
  for (int i = 0; i < 5; i++) {
    char id[16];
    snprintf(id, sizeof id, "run-%d", i);
    CHECK_OK(catalog_run_create(f.cat, id, "p", "d", "main", NULL, NULL, &err), &err);
    usleep(2000);
  }
  CHECK_OK(catalog_run_finish(f.cat, "run-2", WEIR_RUN_SUCCEEDED, fx_head(&f, "main"), NULL, &err), &err);
  json_t *all = NULL;
  CHECK_OK(catalog_runs(f.cat, 0, &all, &err), &err);
  CHECK_INT(json_array_size(all), 5);
  CHECK_STR(wr_json_str(json_array_get(all, 0), "run_id", ""), "run-4");
  CHECK_STR(wr_json_str(json_array_get(all, 4), "run_id", ""), "run-0");
  CHECK_STR(wr_json_str(json_array_get(all, 2), "result_commit", ""), fx_head(&f, "main"));
  CHECK(json_is_array(json_object_get(json_array_get(all, 0), "models")));
  json_decref(all);
  CHECK_OK(catalog_runs(f.cat, 2, &all, &err), &err);
  CHECK_INT(json_array_size(all), 2);
  json_decref(all);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(run_errors) {
  fx f = fx_new();
  weir_error err = {0};
  json_t *m = json_pack("{s:s}", "model", "x");
  CHECK_INT(catalog_run_model(f.cat, "nope", m, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "nope");
  CHECK_INT(catalog_run_finish(f.cat, "nope", WEIR_RUN_FAILED, NULL, NULL, &err), WEIR_ENOTFOUND);
  json_t *r = NULL;
  CHECK_INT(catalog_run_get(f.cat, "nope", &r, &err), WEIR_ENOTFOUND);
  wr_run_status st;
  CHECK_INT(catalog_run_status(f.cat, "nope", &st, &err), WEIR_ENOTFOUND);
  CHECK_OK(catalog_run_create(f.cat, "r", "p", "d", "main", NULL, NULL, &err), &err);
  json_t *bad = json_pack("{s:i}", "rows", 1);
  CHECK_INT(catalog_run_model(f.cat, "r", bad, &err), WEIR_EINVALIDARG);
  CHECK_INT(catalog_run_create(f.cat, "r2", "p", "d", "main",
                               "4444444444444444444444444444444444444444444444444444444444444444", NULL, &err),
            WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "base");
  CHECK_INT(catalog_run_finish(f.cat, "r", WEIR_RUN_SUCCEEDED,
                               "4444444444444444444444444444444444444444444444444444444444444444", NULL, &err),
            WEIR_ENOTFOUND);
  json_decref(m);
  json_decref(bad);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
