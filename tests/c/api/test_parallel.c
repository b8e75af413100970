/*
 * test_parallel.c -- two lake handles running projects at the same time in one process,
 * one thread each, as an embedding server would (include/weir.h: one handle per thread;
 * handles on one lake are safe to use concurrently). Built into the ThreadSanitizer run
 * (make test-tsan): a data race between the two runs fails it there.
 *
 * The threads start their runs together through a barrier (no sleeps), each on its own
 * branch, and each run must publish exactly its own result.
 */
#include <pthread.h>
#include <stdio.h>

#include <jansson.h>

#include "harness.h"

#define THREADS 2
#define ROUNDS 2

typedef struct worker {
  const char *lake_path;
  const char *project;
  char branch[32];
  pthread_barrier_t *start;
  int rc;
  char message[512];
  char result_commit[WEIR_HASH_HEX_SIZE];
} worker;

static void *run_worker(void *p) {
  worker *w = p;
  weir_error err = {0};
  weir_lake *lake = NULL;
  w->rc = weir_lake_open(w->lake_path, NULL, &lake, &err);
  pthread_barrier_wait(w->start); /* both handles open: the runs start together */
  if (w->rc == WEIR_OK) {
    weir_run_options opts = WEIR_RUN_OPTIONS_INIT;
    opts.branch = w->branch;
    char *out = NULL;
    w->rc = weir_project_run(lake, w->project, &opts, &out, &err);
    json_t *run = out ? json_loads(out, 0, NULL) : NULL;
    const char *rc_commit = json_string_value(json_object_get(run, "result_commit"));
    snprintf(w->result_commit, sizeof w->result_commit, "%s", rc_commit ? rc_commit : "");
    json_decref(run);
    weir_free(out);
  }
  snprintf(w->message, sizeof w->message, "%s", err.message ? err.message : "");
  weir_error_clear(&err);
  weir_lake_free(lake);
  return NULL;
}

static void write_file(const char *dir, const char *name, const char *text) {
  char path[4200];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  if (!f) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(99);
  }
  fputs(text, f);
  fclose(f);
}

static int64_t rows_of(weir_lake *lake, const char *table, const char *ref) {
  char *out = NULL;
  weir_error err = {0};
  int64_t n = -1;
  if (weir_table_describe(lake, table, ref, &out, &err) == WEIR_OK) {
    json_t *d = json_loads(out, 0, NULL);
    n = json_integer_value(json_object_get(d, "record_count"));
    json_decref(d);
  }
  weir_free(out);
  weir_error_clear(&err);
  return n;
}

TEST(two_handles_run_projects_in_parallel_threads) {
  char *dir = test_tmpdir();
  char lake_path[4200], project[4200], csv[4200];
  snprintf(lake_path, sizeof lake_path, "%s/lake", dir);
  snprintf(project, sizeof project, "%s/project", dir);
  snprintf(csv, sizeof csv, "%s/src.csv", dir);
  char cmd[8600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", project);
  CHECK_INT(system(cmd), 0);
  /* 100 rows: id 1..100 */
  FILE *f = fopen(csv, "w");
  CHECK(f != NULL);
  fputs("id,name\n", f);
  for (int i = 1; i <= 100; i++) fprintf(f, "%d,n%d\n", i, i % 7);
  fclose(f);
  write_file(project, "weir_project.yml", "name: parallel\nnamespace: default\n");
  write_file(project, "evens.sql", "-- weir: name=evens\nSELECT id, name FROM src WHERE id % 2 = 0\n");
  write_file(project, "counts.sql", "-- weir: name=counts\nSELECT name, COUNT(*) AS n FROM evens GROUP BY name\n");

  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(lake_path, NULL, &lake, &err), &err);
  weir_import_options io = WEIR_IMPORT_OPTIONS_INIT;
  io.table = "src";
  char *out = NULL;
  CHECK_OK(weir_table_import(lake, csv, &io, &out, &err), &err);
  weir_free(out);

  for (int round = 0; round < ROUNDS; round++) {
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, THREADS);
    worker w[THREADS];
    pthread_t t[THREADS];
    for (int i = 0; i < THREADS; i++) {
      memset(&w[i], 0, sizeof w[i]);
      w[i].lake_path = lake_path;
      w[i].project = project;
      w[i].start = &start;
      snprintf(w[i].branch, sizeof w[i].branch, "b%d_%d", round, i);
      CHECK_OK(weir_branch_create(lake, w[i].branch, "main", NULL, &err), &err);
    }
    for (int i = 0; i < THREADS; i++) CHECK_INT(pthread_create(&t[i], NULL, run_worker, &w[i]), 0);
    for (int i = 0; i < THREADS; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < THREADS; i++) {
      if (w[i].rc != WEIR_OK) TEST_FAIL_("run on %s failed (%d): %s", w[i].branch, w[i].rc, w[i].message);
      char head[WEIR_HASH_HEX_SIZE];
      CHECK_OK(weir_ref_resolve(lake, w[i].branch, head, &err), &err);
      CHECK_STR(head, w[i].result_commit); /* each run published its own result on its branch */
      CHECK_INT(rows_of(lake, "evens", w[i].branch), 50);
      CHECK_INT(rows_of(lake, "counts", w[i].branch), 7);
    }
    CHECK_INT(rows_of(lake, "evens", "main"), -1); /* main untouched */
  }
  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
