/*
 * bench_catalog.c -- per-operation latency of the catalog layer as the lake grows.
 *
 * Builds catalogs (SQLite, in a temporary folder) of 10 and 1,000 tables with 10 and
 * 10,000 commits of history (fake metadata locations: this measures the catalog only),
 * then times each operation a number of times on a warm handle and reports the median
 * and 95th percentile:
 *
 *   create_branch   a branch at main's head
 *   commit          one table changed on main (CAS, trie update, provenance, ref move)
 *   merge           three-way, no conflict: one table changed on each side
 *   resolve         "main" to a hash
 *   resolve_prefix  a 10-digit hash prefix to a hash
 *   log10           the 10 newest commits from main
 *   table_get       one table at main's head
 *   open_get        open the catalog, resolve main, get one table, close (a CLI call)
 *
 *   bench_catalog [--iterations N] [--json PATH] [--big] [--lake TABLES:COMMITS]...
 *
 * --big adds a lake of 10,000 tables and 100,000 commits; --lake measures only the
 * lakes given (for profiling one size). Costs should be flat as the
 * lake grows: none of these operations may depend on the number of tables or commits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "catalog/catalog.h"
#include "util/fs.h"
#include "util/json.h"

typedef struct lake_size {
  int tables;
  int commits;
} lake_size;

static const char *OPS[] = {"create_branch", "commit",    "merge",    "resolve",
                            "resolve_prefix", "log10",    "table_get", "open_get"};
#define N_OPS (sizeof OPS / sizeof OPS[0])

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void die(const char *what, const weir_error *err) {
  fprintf(stderr, "bench_catalog: %s: %s\n", what, err && err->message ? err->message : "failed");
  exit(1);
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

static void table_name(char *out, size_t n, int i) { snprintf(out, n, "ns%d.table_%06d", i % 10, i); }

static int loc_counter;
static void location(char *out, size_t n, const char *table) {
  snprintf(out, n, "/lake/warehouse/%s/metadata/%08d-bench.metadata.json", table, ++loc_counter);
}

static void set_table(wr_catalog *cat, const char *branch, int t, char out[WEIR_HASH_LEN + 1]) {
  weir_error err = {0};
  char head[WEIR_HASH_LEN + 1], name[64], loc[160];
  if (catalog_ref_get(cat, WEIR_REF_BRANCH, branch, head, &err)) die("ref get", &err);
  table_name(name, sizeof name, t);
  location(loc, sizeof loc, name);
  wr_table_change c = {name, loc, (int64_t)(rnd() >> 2), 100};
  wr_commit_request req = {.branch = branch, .expected_head = head, .changes = &c,
                             .n_changes = 1, .message = "bench commit"};
  if (catalog_commit(cat, &req, out, &err)) die("commit", &err);
}

static void build_lake(const char *path, lake_size sz) {
  wr_catalog *cat = NULL;
  weir_error err = {0};
  if (catalog_open(path, true, "bench", &cat, &err)) die("create catalog", &err);
  wr_table_change *c = calloc((size_t)sz.tables, sizeof *c);
  char (*names)[64] = calloc((size_t)sz.tables, 64);
  char (*locs)[160] = calloc((size_t)sz.tables, 160);
  for (int i = 0; i < sz.tables; i++) {
    table_name(names[i], 64, i);
    location(locs[i], 160, names[i]);
    c[i] = (wr_table_change){names[i], locs[i], i + 1, 1000};
  }
  char head[WEIR_HASH_LEN + 1], out[WEIR_HASH_LEN + 1];
  if (catalog_ref_get(cat, WEIR_REF_BRANCH, "main", head, &err)) die("ref get", &err);
  wr_commit_request req = {.branch = "main", .expected_head = head, .changes = c,
                             .n_changes = (size_t)sz.tables, .message = "load all tables"};
  if (catalog_commit(cat, &req, out, &err)) die("initial load", &err);
  /* History: the rest of the commits change one random table each, in batches of
   * transactions for build speed. */
  int done = 2; /* the initial commit and the load */
  while (done < sz.commits) {
    if (catalog_tx_begin(cat, true, &err)) die("begin", &err);
    for (int k = 0; k < 500 && done < sz.commits; k++, done++)
      set_table(cat, "main", (int)(rnd() % (uint64_t)sz.tables), out);
    if (catalog_tx_commit(cat, &err)) die("commit tx", &err);
  }
  free(c);
  free(names);
  free(locs);
  catalog_close(cat);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

typedef struct stat2 {
  double median, p95;
} stat2;

static stat2 summarize(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  stat2 s = {v[n / 2], v[(int)((double)(n - 1) * 0.95)]};
  return s;
}

static void measure(const char *path, lake_size sz, int iters, stat2 *out) {
  wr_catalog *cat = NULL;
  weir_error err = {0};
  if (catalog_open(path, false, "bench", &cat, &err)) die("open", &err);
  double *t = calloc((size_t)iters, sizeof *t);
  char head[WEIR_HASH_LEN + 1], out_hash[WEIR_HASH_LEN + 1];

  /* create_branch */
  for (int i = 0; i < iters; i++) {
    char name[64];
    snprintf(name, sizeof name, "bench/b%d", i);
    if (catalog_resolve(cat, "main", head, &err)) die("resolve", &err);
    double t0 = now_us();
    if (catalog_ref_create(cat, WEIR_REF_BRANCH, name, head, &err)) die("create branch", &err);
    t[i] = now_us() - t0;
  }
  out[0] = summarize(t, iters);

  /* commit */
  for (int i = 0; i < iters; i++) {
    int tb = (int)(rnd() % (uint64_t)sz.tables);
    double t0 = now_us();
    set_table(cat, "main", tb, out_hash);
    t[i] = now_us() - t0;
  }
  out[1] = summarize(t, iters);

  /* merge: branch from main, change one table there and another on main, merge. */
  for (int i = 0; i < iters; i++) {
    char name[64];
    snprintf(name, sizeof name, "bench/m%d", i);
    if (catalog_resolve(cat, "main", head, &err)) die("resolve", &err);
    if (catalog_ref_create(cat, WEIR_REF_BRANCH, name, head, &err)) die("create branch", &err);
    int a = (int)(rnd() % (uint64_t)sz.tables);
    int b = (a + 1 + (int)(rnd() % (uint64_t)(sz.tables - 1))) % sz.tables;
    set_table(cat, name, a, out_hash);
    set_table(cat, "main", b, out_hash);
    wr_merge_request mr = {.source = name, .into = "main"};
    json_t *o = NULL;
    double t0 = now_us();
    if (catalog_merge(cat, &mr, &o, &err)) die("merge", &err);
    t[i] = now_us() - t0;
    if (strcmp(wr_json_str(o, "result", ""), "merge") != 0) die("merge was not three-way", NULL);
    json_decref(o);
  }
  out[2] = summarize(t, iters);

  /* resolve */
  for (int i = 0; i < iters; i++) {
    double t0 = now_us();
    if (catalog_resolve(cat, "main", head, &err)) die("resolve", &err);
    t[i] = now_us() - t0;
  }
  out[3] = summarize(t, iters);

  /* resolve_prefix: prefixes of commits spread over the history */
  wr_commit_rec *hist = NULL;
  size_t nh = 0;
  if (catalog_log(cat, head, 1000, &hist, &nh, &err)) die("log", &err);
  for (int i = 0; i < iters; i++) {
    char prefix[16];
    snprintf(prefix, sizeof prefix, "%.10s", hist[rnd() % nh].hash);
    double t0 = now_us();
    if (catalog_resolve(cat, prefix, out_hash, &err)) die("resolve prefix", &err);
    t[i] = now_us() - t0;
  }
  out[4] = summarize(t, iters);
  wr_commit_recs_free(hist, nh);

  /* log10 */
  for (int i = 0; i < iters; i++) {
    wr_commit_rec *v = NULL;
    size_t n = 0;
    double t0 = now_us();
    if (catalog_log(cat, head, 10, &v, &n, &err)) die("log", &err);
    t[i] = now_us() - t0;
    wr_commit_recs_free(v, n);
  }
  out[5] = summarize(t, iters);

  /* table_get */
  for (int i = 0; i < iters; i++) {
    char name[64];
    table_name(name, sizeof name, (int)(rnd() % (uint64_t)sz.tables));
    wr_table_entry e;
    double t0 = now_us();
    if (catalog_table_get(cat, head, name, &e, &err)) die("table get", &err);
    t[i] = now_us() - t0;
    wr_table_entry_clear(&e);
  }
  out[6] = summarize(t, iters);
  catalog_close(cat);

  /* open_get: what one CLI command pays */
  for (int i = 0; i < iters; i++) {
    char name[64];
    table_name(name, sizeof name, (int)(rnd() % (uint64_t)sz.tables));
    wr_table_entry e;
    double t0 = now_us();
    if (catalog_open(path, false, "bench", &cat, &err)) die("open", &err);
    if (catalog_resolve(cat, "main", head, &err)) die("resolve", &err);
    if (catalog_table_get(cat, head, name, &e, &err)) die("table get", &err);
    catalog_close(cat);
    t[i] = now_us() - t0;
    wr_table_entry_clear(&e);
  }
  out[7] = summarize(t, iters);
  free(t);
  weir_error_clear(&err);
}

int main(int argc, char **argv) {
  int iters = 200;
  const char *json_path = NULL, *catalog = NULL;
  int big = 0;
  lake_size custom[8];
  int n_custom = 0;
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc) iters = atoi(argv[++i]);
    else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc) json_path = argv[++i];
    else if (strcmp(argv[i], "--big") == 0) big = 1;
    /* A PostgreSQL database (libpq URI, no password): each lake is a new schema there. */
    else if (strcmp(argv[i], "--catalog") == 0 && i + 1 < argc) catalog = argv[++i];
    else if (strcmp(argv[i], "--lake") == 0 && i + 1 < argc && n_custom < 8 &&
             sscanf(argv[i + 1], "%d:%d", &custom[n_custom].tables, &custom[n_custom].commits) == 2 &&
             custom[n_custom].tables >= 2 && custom[n_custom].commits >= 2) {
      n_custom++;
      i++;
    } else {
      fprintf(stderr, "usage: %s [--iterations N] [--json PATH] [--big] [--lake TABLES:COMMITS]... "
                      "[--catalog postgresql://...]\n",
              argv[0]);
      return 2;
    }
  }
  if (iters < 5) iters = 5;
  lake_size sizes[6] = {{10, 10}, {1000, 10}, {10, 10000}, {1000, 10000}, {10000, 100000}, {0, 0}};
  int n_sizes = big ? 5 : 4;
  lake_size *lakes = sizes;
  if (n_custom) {
    lakes = custom;
    n_sizes = n_custom;
  }

  const char *base = getenv("TMPDIR");
  char tmpl[4096];
  snprintf(tmpl, sizeof tmpl, "%s/weir-bench-catalog-XXXXXX", base && *base ? base : "/tmp");
  char *dir = mkdtemp(tmpl);
  if (!dir) {
    perror("mkdtemp");
    return 1;
  }
  json_t *results = json_array();
  printf("%-15s %8s %8s %12s %12s\n", "operation", "tables", "commits", "median_us", "p95_us");
  for (int s = 0; s < n_sizes; s++) {
    char path[4200];
    if (catalog)
      snprintf(path, sizeof path, "%s%sschema=bench_%ld_%d_%d", catalog, strchr(catalog, '?') ? "&" : "?",
               (long)getpid(), lakes[s].tables, lakes[s].commits);
    else snprintf(path, sizeof path, "%s/lake-%d-%d.db", dir, lakes[s].tables, lakes[s].commits);
    double t0 = now_us();
    build_lake(path, lakes[s]);
    fprintf(stderr, "built lake of %d tables, %d commits in %.1f s\n", lakes[s].tables,
            lakes[s].commits, (now_us() - t0) / 1e6);
    stat2 st[N_OPS];
    measure(path, lakes[s], iters, st);
    for (size_t o = 0; o < N_OPS; o++) {
      printf("%-15s %8d %8d %12.1f %12.1f\n", OPS[o], lakes[s].tables, lakes[s].commits,
             st[o].median, st[o].p95);
      json_array_append_new(results, json_pack("{s:s,s:i,s:i,s:f,s:f,s:i}", "op", OPS[o],
                                               "tables", lakes[s].tables, "commits",
                                               lakes[s].commits, "median_us", st[o].median,
                                               "p95_us", st[o].p95, "n", iters));
    }
    fflush(stdout);
  }
  if (json_path) {
    json_t *doc = json_pack("{s:s,s:i,s:s,s:o}", "benchmark", "catalog", "iterations", iters,
                            "backend", catalog ? "postgresql" : "sqlite", "results", results);
    if (json_dump_file(doc, json_path, JSON_INDENT(2)) != 0) {
      fprintf(stderr, "bench_catalog: cannot write %s\n", json_path);
      json_decref(doc);
      return 1;
    }
    json_decref(doc);
  } else {
    json_decref(results);
  }
  weir_error err = {0};
  wr_fs_remove_tree(dir, &err);
  weir_error_clear(&err);
  return 0;
}
