/*
 * bench_validate.c -- throughput of the contract validator, one rule kind at a time.
 *
 * Generates N rows (default 50 million) of typed columns in memory, in batches of
 * --batch rows, then validates each scenario's column against a one-column contract
 * and reports rows/s and GB/s of column data read (the best of --repeat runs). Every
 * run validates a fresh share of the same batches (validation consumes its input; a
 * share copies no buffer), so the numbers are the validator's alone:
 *
 *   passthrough   int64 column, declared Int64 nullable: the zero-copy path
 *   cast_int      int32 -> Int64 (new values buffer, validity shared)
 *   cast_exact    integral doubles -> Int64 declared cast: exact (converted and checked)
 *   cast_exact_ts timestamp[ns] of whole microseconds -> TimestampMicro, cast: exact
 *   cast_string   string -> String (large_string): offsets rebuilt, characters shared
 *   nulls         int64 with a validity bitmap, declared required (popcount)
 *   enum_int      int64 in {1, 2, 3}, enum [1, 2, 3]
 *   enum_string   3-letter strings from 8 values, enum of those 8
 *   range         double in [0, 100), min 0 max 100
 *   pattern       3-letter strings, pattern "^[A-Z]{3}$" (PCRE2 JIT)
 *   unique        int64, all distinct (a shuffled sequence), unique
 *   unique_string 12-byte distinct strings, unique
 *
 *   bench_validate [--rows N] [--batch N] [--repeat N] [--only NAME] [--json PATH]
 *
 * bench/run.py compares these numbers with pyarrow.compute, pandera and patito on the
 * same data shapes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/arrow.h"
#include "contracts/contract.h"
#include "util/json.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static uint64_t rng = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}

typedef enum {
  G_I64_SEQ,
  G_I32,
  G_STR3,
  G_I64_NULLS,
  G_I64_ENUM,
  G_STR_ENUM,
  G_F64,
  G_I64_SHUF,
  G_STR12,
  G_F64_WHOLE,
  G_TS_NS_US
} gen_kind;

typedef struct scenario {
  const char *name;
  gen_kind gen;
  const char *format;   /* Arrow format of the generated column */
  const char *yaml;     /* the column's contract line */
} scenario;

static const scenario SCENARIOS[] = {
    {"passthrough", G_I64_SEQ, "l", "{name: x, type: Int64, nullable: true}"},
    {"cast_int", G_I32, "i", "{name: x, type: Int64, nullable: true}"},
    {"cast_exact", G_F64_WHOLE, "g", "{name: x, type: Int64, nullable: true, cast: exact}"},
    {"cast_exact_ts", G_TS_NS_US, "tsn:", "{name: x, type: TimestampMicro, nullable: true, cast: exact}"},
    {"cast_string", G_STR3, "u", "{name: x, type: String, nullable: true}"},
    {"nulls", G_I64_NULLS, "l", "{name: x, type: Int64}"},
    {"enum_int", G_I64_ENUM, "l", "{name: x, type: Int64, enum: [1, 2, 3]}"},
    {"enum_string", G_STR_ENUM, "U",
     "{name: x, type: String, enum: [AAA, BBB, CCC, DDD, EEE, FFF, GGG, HHH]}"},
    {"range", G_F64, "g", "{name: x, type: Float64, min: 0, max: 100}"},
    {"pattern", G_STR3, "U", "{name: x, type: String, pattern: \"^[A-Z]{3}$\"}"},
    {"unique", G_I64_SHUF, "l", "{name: x, type: Int64, unique: true}"},
    {"unique_string", G_STR12, "U", "{name: x, type: String, unique: true}"},
};
#define N_SCENARIOS (sizeof SCENARIOS / sizeof SCENARIOS[0])

/* A permutation of [0, n): i * p mod n with p a prime larger than n (so coprime to it):
 * distinct values in no useful order. */
static int64_t shuffled(int64_t i, int64_t n) {
  const unsigned __int128 p = 2305843009213693951ULL; /* 2^61 - 1 */
  return (int64_t)(((unsigned __int128)(uint64_t)i * p) % (uint64_t)n);
}

static void gen_batch(gen_kind g, int64_t start, int64_t len, int64_t total, struct ArrowArray *col, size_t *bytes) {
  static const char *words[] = {"AAA", "BBB", "CCC", "DDD", "EEE", "FFF", "GGG", "HHH"};
  switch (g) {
  case G_I64_SEQ:
  case G_I64_NULLS:
  case G_I64_ENUM:
  case G_I64_SHUF: {
    wr_arrow_array_init(col, len, 2, 0);
    int64_t *v = wr_arrow_array_alloc_buffer(col, 1, (size_t)len * 8);
    for (int64_t i = 0; i < len; i++)
      v[i] = g == G_I64_ENUM ? (int64_t)(rnd() % 3) + 1 : g == G_I64_SHUF ? shuffled(start + i, total) : start + i;
    *bytes += (size_t)len * 8;
    if (g == G_I64_NULLS) { /* a bitmap with every bit set: the check must read it all */
      uint8_t *valid = wr_arrow_array_alloc_buffer(col, 0, (size_t)(len + 7) / 8);
      memset(valid, 0xff, (size_t)(len + 7) / 8);
      col->null_count = -1; /* unknown: the validator counts */
      *bytes += (size_t)(len + 7) / 8;
    }
    break;
  }
  case G_I32: {
    wr_arrow_array_init(col, len, 2, 0);
    int32_t *v = wr_arrow_array_alloc_buffer(col, 1, (size_t)len * 4);
    for (int64_t i = 0; i < len; i++) v[i] = (int32_t)(start + i);
    *bytes += (size_t)len * 4;
    break;
  }
  case G_F64_WHOLE: { /* whole numbers of any size a double holds exactly, both signs */
    wr_arrow_array_init(col, len, 2, 0);
    double *v = wr_arrow_array_alloc_buffer(col, 1, (size_t)len * 8);
    for (int64_t i = 0; i < len; i++) v[i] = (double)((int64_t)(rnd() >> 12) - (1LL << 51));
    *bytes += (size_t)len * 8;
    break;
  }
  case G_TS_NS_US: {
    wr_arrow_array_init(col, len, 2, 0);
    int64_t *v = wr_arrow_array_alloc_buffer(col, 1, (size_t)len * 8);
    for (int64_t i = 0; i < len; i++) v[i] = (1700000000000000LL + (int64_t)(rnd() % 1000000000000LL)) * 1000;
    *bytes += (size_t)len * 8;
    break;
  }
  case G_F64: {
    wr_arrow_array_init(col, len, 2, 0);
    double *v = wr_arrow_array_alloc_buffer(col, 1, (size_t)len * 8);
    for (int64_t i = 0; i < len; i++) v[i] = (double)(rnd() % 1000000) / 10000.0;
    *bytes += (size_t)len * 8;
    break;
  }
  case G_STR3:
  case G_STR_ENUM:
  case G_STR12: {
    int w = g == G_STR12 ? 12 : 3;
    wr_arrow_array_init(col, len, 3, 0);
    int64_t *o = wr_arrow_array_alloc_buffer(col, 1, (size_t)(len + 1) * 8);
    char *d = wr_arrow_array_alloc_buffer(col, 2, (size_t)len * (size_t)w);
    for (int64_t i = 0; i < len; i++) {
      o[i] = i * w;
      if (g == G_STR_ENUM) {
        memcpy(d + i * w, words[rnd() % 8], 3);
      } else if (g == G_STR3) {
        uint64_t r = rnd();
        for (int k = 0; k < 3; k++) d[i * w + k] = (char)('A' + (r >> (8 * k)) % 26);
      } else {
        uint64_t x = (uint64_t)shuffled(start + i, total);
        for (int k = 11; k >= 0; k--, x /= 10) d[i * w + k] = (char)('0' + x % 10);
      }
    }
    o[len] = len * w;
    *bytes += (size_t)(len + 1) * 8 + (size_t)len * (size_t)w;
    break;
  }
  }
}

/* The "u" variant of a large string column: 32-bit offsets over the same layout. */
static void to_small_offsets(struct ArrowArray *col, size_t *bytes) {
  int64_t len = col->length;
  const int64_t *o = col->buffers[1];
  struct ArrowArray s;
  wr_arrow_array_init(&s, len, 3, 0);
  int32_t *so = wr_arrow_array_alloc_buffer(&s, 1, (size_t)(len + 1) * 4);
  for (int64_t i = 0; i <= len; i++) so[i] = (int32_t)o[i];
  char *d = wr_arrow_array_alloc_buffer(&s, 2, (size_t)o[len] + 1);
  memcpy(d, col->buffers[2], (size_t)o[len]);
  col->release(col);
  *col = s;
  *bytes -= (size_t)(len + 1) * 4;
}

static void build_table(const scenario *sc, int64_t rows, int64_t batch, wr_arrow_table *t, size_t *bytes) {
  wr_arrow_table_init(t);
  struct ArrowSchema s, c;
  wr_arrow_schema_init(&s, "+s", "", 0, 1);
  wr_arrow_schema_init(&c, sc->format, "x", ARROW_FLAG_NULLABLE, 0);
  wr_arrow_schema_set_child(&s, 0, &c);
  wr_arrow_table_set_schema(t, &s);
  *bytes = 0;
  for (int64_t start = 0; start < rows; start += batch) {
    int64_t len = rows - start < batch ? rows - start : batch;
    struct ArrowArray col, b;
    gen_batch(sc->gen, start, len, rows, &col, bytes);
    if (!strcmp(sc->format, "u")) to_small_offsets(&col, bytes);
    wr_arrow_array_init(&b, len, 1, 1);
    wr_arrow_array_set_child(&b, 0, &col);
    wr_arrow_table_append(t, &b);
  }
}

int main(int argc, char **argv) {
  int64_t rows = 50000000, batch = 1 << 20;
  int repeat = 3;
  const char *json_path = NULL, *only = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--rows") && i + 1 < argc) rows = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--batch") && i + 1 < argc) batch = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) repeat = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--json") && i + 1 < argc) json_path = argv[++i];
    else if (!strcmp(argv[i], "--only") && i + 1 < argc) only = argv[++i];
    else {
      fprintf(stderr, "usage: %s [--rows N] [--batch N] [--repeat N] [--only NAME] [--json PATH]\n", argv[0]);
      return 2;
    }
  }
  if (rows < 1 || batch < 1 || repeat < 1) {
    fprintf(stderr, "bench_validate: --rows, --batch and --repeat must be positive\n");
    return 2;
  }
  printf("bench_validate: %lld rows in batches of %lld, best of %d\n\n", (long long)rows, (long long)batch, repeat);
  printf("%-14s %10s %12s %8s %10s\n", "scenario", "seconds", "rows/s", "GB/s", "data MB");
  json_t *results = json_array();
  for (size_t k = 0; k < N_SCENARIOS; k++) {
    const scenario *sc = &SCENARIOS[k];
    if (only && strcmp(only, sc->name)) continue;
    wr_arrow_table data;
    size_t bytes;
    build_table(sc, rows, batch, &data, &bytes);
    char yaml[512];
    snprintf(yaml, sizeof yaml, "contract:\n  name: bench\n  columns:\n    - %s\n", sc->yaml);
    weir_contract *c = NULL;
    weir_error err = {0};
    if (wr_contract_from_yaml(yaml, strlen(yaml), "bench", &c, &err)) {
      fprintf(stderr, "bench_validate: %s: %s\n", sc->name, err.message);
      return 1;
    }
    double best = 1e30;
    for (int r = 0; r < repeat; r++) {
      wr_arrow_table in;
      wr_arrow_table_share(&data, &in);
      wr_validation v;
      double t0 = now_s();
      int rc = wr_contract_validate(c, &in, NULL, &v, &err);
      double dt = now_s() - t0;
      if (rc) {
        fprintf(stderr, "bench_validate: %s failed: %s\n", sc->name, err.message);
        return 1;
      }
      if (v.valid.n_rows != rows) {
        fprintf(stderr, "bench_validate: %s kept %lld rows of %lld\n", sc->name, (long long)v.valid.n_rows, (long long)rows);
        return 1;
      }
      wr_validation_clear(&v);
      if (dt < best) best = dt;
    }
    double rps = (double)rows / best, gbps = (double)bytes / best / 1e9;
    printf("%-14s %10.4f %12.3e %8.2f %10.1f\n", sc->name, best, rps, gbps, (double)bytes / 1e6);
    fflush(stdout);
    json_array_append_new(results, json_pack("{s:s,s:I,s:f,s:f,s:f,s:I}", "scenario", sc->name, "rows", (json_int_t)rows,
                                             "seconds", best, "rows_per_s", rps, "gb_per_s", gbps, "bytes",
                                             (json_int_t)bytes));
    wr_contract_free(c);
    wr_arrow_table_release(&data);
  }
  if (json_path) {
    json_t *doc = json_pack("{s:s,s:I,s:I,s:i,s:o}", "benchmark", "validate", "rows", (json_int_t)rows, "batch",
                            (json_int_t)batch, "repeat", repeat, "results", results);
    if (json_dump_file(doc, json_path, JSON_INDENT(2)) != 0) {
      fprintf(stderr, "bench_validate: cannot write %s\n", json_path);
      json_decref(doc);
      return 1;
    }
    json_decref(doc);
  } else {
    json_decref(results);
  }
  return 0;
}
