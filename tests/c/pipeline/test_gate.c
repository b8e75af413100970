/*
 * test_gate.c -- the merge gate (src/pipeline/gate.c) judges the state it commits.
 *
 * The race is made deterministic as tests/c/lake/test_lake.c makes it: the lake's catalog
 * backend gets a vtable whose write-transaction begin first lets another catalog handle
 * merge into main -- exactly the window between the gate loading its projects (and the
 * merge reading main's head) and the merge's transaction. A gate that planned against the
 * head it read first would let the merge through; this one plans at the merge's result
 * inside the transaction, so it sees the other writer's change and refuses.
 */
#include <stdio.h>
#include <sys/stat.h>

#include "catalog/catalog_internal.h"
#include "harness.h"
#include "lake/lake.h"
#include "pipeline/pipeline.h"
#include "util/json.h"

typedef struct fixture {
  char *dir;
  char lake_path[4200];
  char project[4200];
  weir_lake *lake;
} fixture;

static void write_file(const char *dir, const char *name, const char *text) {
  char path[4400];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) exit(99);
  fputs(text, f);
  fclose(f);
}

static void import(fixture *f, const char *csv_text, const char *table, const char *branch, weir_write_mode mode) {
  write_file(f->dir, "rows.csv", csv_text);
  char csv[4300];
  snprintf(csv, sizeof csv, "%s/rows.csv", f->dir);
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = table;
  o.branch = branch;
  o.mode = mode;
  char *out = NULL;
  weir_error err = {0};
  CHECK_OK(weir_table_import(f->lake, csv, &o, &out, &err), &err);
  weir_free(out);
}

/* main: events(id, b); the project's model `down` reads events.b; branch drop replaces
 * events by a version without b; branch dev (from main) only adds table other. */
static fixture fx_new(void) {
  fixture f = {0};
  f.dir = test_tmpdir();
  snprintf(f.lake_path, sizeof f.lake_path, "%s/lake", f.dir);
  snprintf(f.project, sizeof f.project, "%s/project", f.dir);
  mkdir(f.project, 0755);
  write_file(f.project, "weir_project.yml", "name: gate\n");
  write_file(f.project, "down.sql", "-- weir: name=down\nSELECT id, b FROM events\n");
  weir_error err = {0};
  if (weir_lake_init(f.lake_path, NULL, &f.lake, &err)) {
    fprintf(stderr, "init: %s\n", err.message);
    exit(99);
  }
  import(&f, "id,b\n1,10\n2,20\n", "events", NULL, WEIR_MODE_CREATE);
  char head[WEIR_HASH_HEX_SIZE];
  CHECK_OK(weir_branch_create(f.lake, "drop", "main", head, &err), &err);
  CHECK_OK(weir_branch_create(f.lake, "dev", "main", head, &err), &err);
  import(&f, "id\n3\n", "events", "drop", WEIR_MODE_REPLACE);
  import(&f, "x\n1\n", "other", "dev", WEIR_MODE_CREATE);
  return f;
}

static void fx_free(fixture *f) {
  weir_lake_free(f->lake);
  test_rmtree(f->dir);
  free(f->dir);
}

static catalog_backend_ops race_ops;
static const catalog_backend_ops *real_ops;
static wr_catalog *racer;
static int race_left;
static const char *race_gate; /* NULL: the racer merges drop into main; else it sets this gate */

static int racing_begin(catalog_backend *be, bool write, weir_error *err) {
  if (write && race_left > 0) {
    race_left--;
    weir_error e = {0};
    if (race_gate) {
      const char *checks[] = {race_gate};
      CHECK_OK(catalog_branch_require_checks(racer, "main", checks, 1, &e), &e);
    } else {
      wr_merge_request req = {.source = "drop", .into = "main", .message = "racer"};
      json_t *out = NULL;
      CHECK_OK(catalog_merge(racer, &req, &out, &e), &e);
      json_decref(out);
    }
    weir_error_clear(&e);
  }
  return real_ops->begin(be, write, err);
}

static void race_setup(fixture *f) {
  weir_error err = {0};
  CHECK_OK(catalog_open(f->lake->catalog_uri, false, "racer", &racer, &err), &err);
  real_ops = f->lake->cat->be->ops;
  race_ops = *real_ops;
  race_ops.begin = racing_begin;
  f->lake->cat->be->ops = &race_ops;
  race_left = 1;
}

static void race_teardown(fixture *f) {
  f->lake->cat->be->ops = real_ops;
  catalog_close(racer);
  racer = NULL;
}

TEST(the_gate_plans_the_state_the_merge_commits_not_the_head_it_first_read) {
  fixture f = fx_new();
  weir_error err = {0};
  const char *checks[] = {f.project};
  CHECK_OK(weir_branch_require_checks(f.lake, "main", checks, 1, &err), &err);
  char before[WEIR_HASH_HEX_SIZE], after[WEIR_HASH_HEX_SIZE], drop[WEIR_HASH_HEX_SIZE];
  CHECK_OK(weir_ref_resolve(f.lake, "main", before, &err), &err);
  CHECK_OK(weir_ref_resolve(f.lake, "drop", drop, &err), &err);
  race_setup(&f);
  char *out = NULL;
  /* When the gate loaded the project, main still had events.b: dev alone plans there. */
  CHECK_INT(weir_branch_merge(f.lake, "dev", "main", NULL, &out, &err), WEIR_EPLAN);
  CHECK_INT(race_left, 0);
  CHECK_CONTAINS(err.message, "model down");
  CHECK_CONTAINS(err.details, "\"project\"");
  race_teardown(&f);
  weir_free(out);
  /* The racer's merge stands; this one wrote nothing. */
  CHECK_OK(weir_ref_resolve(f.lake, "main", after, &err), &err);
  CHECK_STR(after, drop);
  CHECK(strcmp(after, before) != 0);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(a_gate_set_while_a_merge_into_a_protected_branch_runs_is_not_skipped) {
  fixture f = fx_new();
  weir_error err = {0};
  CHECK_OK(weir_branch_protect(f.lake, "main", 1, &err), &err);
  char before[WEIR_HASH_HEX_SIZE], after[WEIR_HASH_HEX_SIZE];
  CHECK_OK(weir_ref_resolve(f.lake, "main", before, &err), &err);
  race_gate = f.project;
  race_setup(&f);
  char *out = NULL;
  CHECK_INT(weir_branch_merge(f.lake, "drop", "main", NULL, &out, &err), WEIR_ECONCURRENT);
  CHECK_INT(race_left, 0);
  CHECK_CONTAINS(err.message, "checks branch main requires changed");
  race_teardown(&f);
  race_gate = NULL;
  CHECK_OK(weir_ref_resolve(f.lake, "main", after, &err), &err);
  CHECK_STR(after, before);
  /* Merging again judges it by the gate now set: drop drops the column down reads. */
  CHECK_INT(weir_branch_merge(f.lake, "drop", "main", NULL, &out, &err), WEIR_EPLAN);
  weir_free(out);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(without_the_race_the_same_merge_passes_the_gate) {
  fixture f = fx_new();
  weir_error err = {0};
  const char *checks[] = {f.project};
  CHECK_OK(weir_branch_require_checks(f.lake, "main", checks, 1, &err), &err);
  char *out = NULL;
  CHECK_OK(weir_branch_merge(f.lake, "dev", "main", NULL, &out, &err), &err);
  CHECK_CONTAINS(out, "\"fast-forward\"");
  weir_free(out);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(on_demand_checks_go_through_the_options) {
  fixture f = fx_new();
  weir_error err = {0};
  weir_merge_options o = WEIR_MERGE_OPTIONS_INIT;
  const char *checks[] = {f.project};
  o.checks = checks;
  o.n_checks = 1;
  char *out = NULL;
  CHECK_INT(weir_branch_merge(f.lake, "drop", "main", &o, &out, &err), WEIR_EPLAN);
  CHECK_CONTAINS(err.message, "model down");
  const char *empty[] = {""};
  o.checks = empty;
  CHECK_INT(weir_branch_merge(f.lake, "drop", "main", &o, &out, &err), WEIR_EINVALIDARG);
  o.checks = NULL;
  o.n_checks = 0;
  CHECK_OK(weir_branch_merge(f.lake, "drop", "main", &o, &out, &err), &err);
  weir_free(out);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(freshness_durations) {
  weir_error err = {0};
  int64_t s = 0;
  CHECK_OK(lake_parse_duration("1 hour", "sla", &s, &err), &err);
  CHECK(s == 3600);
  CHECK_OK(lake_parse_duration(" 90 Seconds ", "sla", &s, &err), &err);
  CHECK(s == 90);
  CHECK_OK(lake_parse_duration("2d", "sla", &s, &err), &err);
  CHECK(s == 172800);
  CHECK_OK(lake_parse_duration("1 week", "sla", &s, &err), &err);
  CHECK(s == 604800);
  const char *bad[] = {"", "hour", "0 hours", "-1 hour", "1 fortnight", "1.5 hours", "99999999999999999 weeks", NULL};
  for (int i = 0; bad[i]; i++) {
    CHECK_INT(lake_parse_duration(bad[i], "table t: sla.freshness", &s, &err), WEIR_EINVALIDARG);
    CHECK_CONTAINS(err.message, "table t: sla.freshness");
  }
  weir_error_clear(&err);
}

TEST_MAIN()
