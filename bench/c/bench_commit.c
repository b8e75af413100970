/*
 * bench_commit.c -- concurrent commit throughput and latency through the public API.
 *
 * W writer threads, each with its own weir_lake handle on one lake (the thread-safety
 * rule of weir.h), each committing C small appends (100 rows of one Int64 column, from
 * an Arrow stream) with weir_table_import_arrow:
 *
 *   one-branch   every writer appends to the same table on main: every commit races
 *                every other, so each lost compare-and-swap is re-checked against the
 *                serializable rules and retried (only the metadata is rewritten)
 *   branches     writer i appends to the same table name on its own branch w<i>: no
 *                logical contention, only the catalog's write lock is shared
 *
 * Reports commits/s (all writers, wall clock), the median and 95th percentile latency of
 * one commit, and checks that nothing was lost (the table holds exactly W*C*100 rows on
 * main, or C*100 on each branch).
 *
 *   bench_commit [--writers 1,4,8] [--commits N] [--json PATH] [--lake-dir DIR]
 *                [--catalog postgresql://...]
 *
 * With --catalog each lake's catalog is a new schema of that PostgreSQL database (the
 * URI without a password; libpq finds it in ~/.pgpass or $PGPASSFILE), so the same
 * cases compare the SQLite and the PostgreSQL backends.
 *
 * It uses include/weir.h only, so the same file builds against any version of libweir
 * (before/after comparisons build it against both).
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "weir.h"

#define ROWS 100

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what, const weir_error *err) {
  fprintf(stderr, "bench_commit: %s: %s\n", what, err && err->message ? err->message : "failed");
  exit(1);
}

/* ---- a one-batch Arrow stream of ROWS int64 values -------------------------------------- */

typedef struct batch_data {
  int64_t values[ROWS];
  const void *buffers[2];
  struct ArrowArray child;
  struct ArrowArray *children[1];
  const void *top_buffers[1];
  struct ArrowSchema child_schema;
  struct ArrowSchema *child_schemas[1];
  int sent;
} batch_data;

static void release_schema(struct ArrowSchema *s) { s->release = NULL; }
static void release_array(struct ArrowArray *a) { a->release = NULL; }

static int get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  batch_data *d = st->private_data;
  d->child_schema = (struct ArrowSchema){.format = "l", .name = "v", .flags = ARROW_FLAG_NULLABLE,
                                         .release = release_schema};
  d->child_schemas[0] = &d->child_schema;
  *out = (struct ArrowSchema){.format = "+s", .name = "", .n_children = 1, .children = d->child_schemas,
                              .release = release_schema};
  return 0;
}

static int get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  batch_data *d = st->private_data;
  if (d->sent) {
    memset(out, 0, sizeof *out); /* end of stream */
    return 0;
  }
  d->sent = 1;
  d->buffers[0] = NULL;
  d->buffers[1] = d->values;
  d->child = (struct ArrowArray){.length = ROWS, .n_buffers = 2, .buffers = d->buffers, .release = release_array};
  d->children[0] = &d->child;
  d->top_buffers[0] = NULL;
  *out = (struct ArrowArray){.length = ROWS, .n_buffers = 1, .buffers = d->top_buffers, .n_children = 1,
                             .children = d->children, .release = release_array};
  return 0;
}

static const char *last_error(struct ArrowArrayStream *st) { return NULL; }
static void release_stream(struct ArrowArrayStream *st) { st->release = NULL; }

static void make_stream(batch_data *d, int64_t base, struct ArrowArrayStream *out) {
  memset(d, 0, sizeof *d);
  for (int i = 0; i < ROWS; i++) d->values[i] = base + i;
  *out = (struct ArrowArrayStream){get_schema, get_next, last_error, release_stream, d};
}

/* ---- writers ------------------------------------------------------------------------------ */

typedef struct writer {
  const char *lake;
  const char *branch;
  int id, commits;
  double *lat_us;   /* per commit */
} writer;

static void *write_loop(void *arg) {
  writer *w = arg;
  weir_error err = {0};
  weir_lake *lake = NULL;
  if (weir_lake_open(w->lake, NULL, &lake, &err)) die("open", &err);
  for (int c = 0; c < w->commits; c++) {
    batch_data d;
    struct ArrowArrayStream s;
    make_stream(&d, ((int64_t)w->id << 32) + (int64_t)c * ROWS, &s);
    weir_import_options o;
    weir_import_options_init(&o, WEIR_IMPORT_OPTIONS_VERSION);
    o.table = "events";
    o.branch = w->branch;
    o.mode = WEIR_MODE_APPEND;
    o.message = "bench append";
    char *out = NULL;
    double t0 = now_us();
    if (weir_table_import_arrow(lake, &s, &o, &out, &err)) die("append", &err);
    w->lat_us[c] = now_us() - t0;
    weir_free(out);
  }
  weir_lake_free(lake);
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static int64_t count_rows(weir_lake *lake, const char *ref) {
  struct ArrowArrayStream s;
  weir_error err = {0};
  if (weir_query_run(lake, "SELECT count(*)::BIGINT AS n FROM events", ref, &s, &err)) die("count", &err);
  struct ArrowSchema sc;
  struct ArrowArray a;
  s.get_schema(&s, &sc);
  s.get_next(&s, &a);
  int64_t n = ((const int64_t *)a.children[0]->buffers[1])[a.children[0]->offset];
  a.release(&a);
  sc.release(&sc);
  s.release(&s);
  return n;
}

static const char *catalog_base; /* --catalog, or NULL for SQLite */

/* One configuration; prints a row and appends a JSON object to `json`. */
static void run_case(const char *dir, const char *mode, int writers, int commits, FILE *json, int *first) {
  char path[4096], catalog[4096];
  snprintf(path, sizeof path, "%s/%s-%d", dir, mode, writers);
  weir_error err = {0};
  weir_lake *lake = NULL;
  weir_lake_options opts;
  weir_lake_options_init(&opts, WEIR_LAKE_OPTIONS_VERSION);
  if (catalog_base) {
    snprintf(catalog, sizeof catalog, "%s%sschema=bench_%ld_%s_%d", catalog_base,
             strchr(catalog_base, '?') ? "&" : "?", (long)getpid(), mode[0] == 'o' ? "one" : "branches", writers);
    opts.catalog = catalog;
  }
  if (weir_lake_init(path, &opts, &lake, &err)) die("init", &err);
  bool branches = strcmp(mode, "branches") == 0;
  if (writers < 1 || writers > 64 || commits < 1) {
    fprintf(stderr, "bench_commit: writers must be 1 to 64 and commits at least 1\n");
    exit(2);
  }
  char names[64][16];
  {
    /* The table exists before the writers start (an append to a missing table is refused). */
    batch_data d;
    struct ArrowArrayStream s;
    make_stream(&d, -ROWS, &s);
    weir_import_options o;
    weir_import_options_init(&o, WEIR_IMPORT_OPTIONS_VERSION);
    o.table = "events";
    char *out = NULL;
    if (weir_table_import_arrow(lake, &s, &o, &out, &err)) die("create", &err);
    weir_free(out);
  }
  for (int i = 0; i < writers; i++) {
    snprintf(names[i], sizeof names[i], "w%d", i);
    if (branches && weir_branch_create(lake, names[i], "main", NULL, &err)) die("branch", &err);
  }
  writer *ws = calloc((size_t)writers, sizeof *ws);
  pthread_t *th = calloc((size_t)writers, sizeof *th);
  double *lat = calloc((size_t)writers * (size_t)commits, sizeof *lat);
  double t0 = now_us();
  for (int i = 0; i < writers; i++) {
    ws[i] = (writer){path, branches ? names[i] : "main", i, commits, lat + (size_t)i * (size_t)commits};
    pthread_create(&th[i], NULL, write_loop, &ws[i]);
  }
  for (int i = 0; i < writers; i++) pthread_join(th[i], NULL);
  double wall = now_us() - t0;
  size_t n = (size_t)writers * (size_t)commits;
  qsort(lat, n, sizeof *lat, cmp_double);
  double p50 = lat[n / 2], p95 = lat[(size_t)((double)n * 0.95) < n ? (size_t)((double)n * 0.95) : n - 1];
  int64_t lost = 0;
  if (branches) {
    for (int i = 0; i < writers; i++) lost += (int64_t)(commits + 1) * ROWS - count_rows(lake, names[i]);
  } else {
    lost = (int64_t)(n + 1) * ROWS - count_rows(lake, "main");
  }
  double per_s = (double)n / (wall / 1e6);
  printf("%-10s %7d %8d %12.1f %10.2f %10.2f %6lld\n", mode, writers, commits, per_s, p50 / 1e3, p95 / 1e3,
         (long long)lost);
  if (json) {
    fprintf(json, "%s{\"mode\":\"%s\",\"writers\":%d,\"commits_per_writer\":%d,\"commits_per_s\":%.2f,"
                  "\"p50_ms\":%.3f,\"p95_ms\":%.3f,\"lost_rows\":%lld}",
            *first ? "" : ",", mode, writers, commits, per_s, p50 / 1e3, p95 / 1e3, (long long)lost);
    *first = 0;
  }
  if (lost != 0) {
    fprintf(stderr, "bench_commit: %lld rows lost (%s, %d writers)\n", (long long)lost, mode, writers);
    exit(2);
  }
  free(ws);
  free(th);
  free(lat);
  weir_lake_free(lake);
}

int main(int argc, char **argv) {
  int wlist[16] = {1, 4, 8}, nw = 3, commits = 50;
  const char *json_path = NULL, *dir = NULL;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--writers") == 0 && i + 1 < argc) {
      nw = 0;
      for (char *t = strtok(argv[++i], ","); t && nw < 16; t = strtok(NULL, ",")) wlist[nw++] = atoi(t);
    } else if (strcmp(argv[i], "--commits") == 0 && i + 1 < argc) {
      commits = atoi(argv[++i]);
    } else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) {
      json_path = argv[++i];
    } else if (strcmp(argv[i], "--lake-dir") == 0 && i + 1 < argc) {
      dir = argv[++i];
    } else if (strcmp(argv[i], "--catalog") == 0 && i + 1 < argc) {
      catalog_base = argv[++i];
    } else {
      fprintf(stderr, "usage: bench_commit [--writers 1,4,8] [--commits N] [--json PATH] [--lake-dir DIR] "
                      "[--catalog postgresql://...]\n");
      return 2;
    }
  }
  char tmpl[] = "/tmp/weir-bench-commit-XXXXXX";
  if (!dir && !(dir = mkdtemp(tmpl))) {
    perror("mkdtemp");
    return 1;
  }
  FILE *json = json_path ? fopen(json_path, "w") : NULL;
  if (json)
    fprintf(json, "{\"library\":\"%s\",\"catalog\":\"%s\",\"rows_per_commit\":%d,\"cases\":[", weir_version(),
            catalog_base ? "postgresql" : "sqlite", ROWS);
  int first = 1;
  printf("%-10s %7s %8s %12s %10s %10s %6s\n", "mode", "writers", "commits", "commits/s", "p50 ms", "p95 ms",
         "lost");
  const char *modes[] = {"one-branch", "branches"};
  for (int m = 0; m < 2; m++)
    for (int i = 0; i < nw; i++) run_case(dir, modes[m], wlist[i], commits, json, &first);
  if (json) {
    fprintf(json, "]}\n");
    fclose(json);
  }
  return 0;
}
