/*
 * metrics.c -- the server's own metrics, in Prometheus' text exposition format (0.0.4):
 *
 *   weir_rest_requests_total{route, code}          counter
 *   weir_rest_request_duration_seconds{route}      histogram (le buckets, _sum, _count)
 *   weir_rest_commits_total{result}                counter: committed | refused | conflict
 *
 * Counters are updated with relaxed atomics from the worker threads: a scrape may see one
 * request counted in _count but not yet in its bucket, which Prometheus tolerates, and no
 * request ever waits on a lock to be counted.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "serve/serve.h"
#include "util/buf.h"

static const double BUCKETS[] = {0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define N_BUCKETS (sizeof BUCKETS / sizeof BUCKETS[0])
#define N_ROUTES (R_COUNT + 1)
#define MIN_STATUS 100
#define N_STATUS 500 /* 100..599 */

struct rest_metrics {
  uint64_t requests[N_ROUTES][N_STATUS];
  uint64_t buckets[N_ROUTES][N_BUCKETS + 1]; /* last: +Inf */
  uint64_t sum_us[N_ROUTES];
  uint64_t count[N_ROUTES];
  uint64_t commits_ok, commits_refused, commits_conflict;
};

rest_metrics *rest_metrics_new(void) { return wr_calloc(1, sizeof(rest_metrics)); }
void rest_metrics_free(rest_metrics *m) { free(m); }

static void add(uint64_t *p, uint64_t v) { __atomic_fetch_add(p, v, __ATOMIC_RELAXED); }
static uint64_t get(const uint64_t *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }

void rest_metrics_request(rest_metrics *m, rest_route_id route, int status, int64_t micros) {
  size_t r = route < R_COUNT ? (size_t)route : R_COUNT;
  if (status >= MIN_STATUS && status < MIN_STATUS + N_STATUS) add(&m->requests[r][status - MIN_STATUS], 1);
  double s = (double)(micros < 0 ? 0 : micros) / 1e6;
  size_t b = 0;
  while (b < N_BUCKETS && s > BUCKETS[b]) b++;
  add(&m->buckets[r][b], 1);
  add(&m->sum_us[r], (uint64_t)(micros < 0 ? 0 : micros));
  add(&m->count[r], 1);
}

void rest_metrics_commit(rest_metrics *m, bool ok, bool conflict) {
  add(ok ? &m->commits_ok : conflict ? &m->commits_conflict : &m->commits_refused, 1);
}

char *rest_metrics_render(rest_metrics *m) {
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, "# HELP weir_rest_requests_total REST requests handled, by route (operationId) and HTTP status.\n"
                  "# TYPE weir_rest_requests_total counter\n");
  for (size_t r = 0; r < N_ROUTES; r++)
    for (size_t s = 0; s < N_STATUS; s++) {
      uint64_t v = get(&m->requests[r][s]);
      if (v)
        wr_buf_printf(&b, "weir_rest_requests_total{route=\"%s\",code=\"%zu\"} %llu\n",
                      rest_route_name((rest_route_id)r), s + MIN_STATUS, (unsigned long long)v);
    }
  wr_buf_puts(&b, "# HELP weir_rest_request_duration_seconds Time to handle a REST request, by route.\n"
                  "# TYPE weir_rest_request_duration_seconds histogram\n");
  for (size_t r = 0; r < N_ROUTES; r++) {
    uint64_t count = get(&m->count[r]);
    if (!count) continue;
    const char *name = rest_route_name((rest_route_id)r);
    uint64_t cum = 0;
    for (size_t i = 0; i < N_BUCKETS; i++) {
      cum += get(&m->buckets[r][i]);
      wr_buf_printf(&b, "weir_rest_request_duration_seconds_bucket{route=\"%s\",le=\"%g\"} %llu\n", name, BUCKETS[i],
                    (unsigned long long)cum);
    }
    cum += get(&m->buckets[r][N_BUCKETS]);
    wr_buf_printf(&b, "weir_rest_request_duration_seconds_bucket{route=\"%s\",le=\"+Inf\"} %llu\n", name,
                  (unsigned long long)cum);
    wr_buf_printf(&b, "weir_rest_request_duration_seconds_sum{route=\"%s\"} %.6f\n", name,
                  (double)get(&m->sum_us[r]) / 1e6);
    wr_buf_printf(&b, "weir_rest_request_duration_seconds_count{route=\"%s\"} %llu\n", name,
                  (unsigned long long)count);
  }
  wr_buf_puts(&b, "# HELP weir_rest_commits_total Table commits from engines: committed, refused (a requirement, "
                  "the contract or the request), or lost to a concurrent writer (conflict).\n"
                  "# TYPE weir_rest_commits_total counter\n");
  wr_buf_printf(&b, "weir_rest_commits_total{result=\"committed\"} %llu\n", (unsigned long long)get(&m->commits_ok));
  wr_buf_printf(&b, "weir_rest_commits_total{result=\"refused\"} %llu\n", (unsigned long long)get(&m->commits_refused));
  wr_buf_printf(&b, "weir_rest_commits_total{result=\"conflict\"} %llu\n",
                (unsigned long long)get(&m->commits_conflict));
  char *s = wr_strdup(wr_buf_cstr(&b));
  wr_buf_free(&b);
  return s;
}
