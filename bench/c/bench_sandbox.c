/*
 * bench_sandbox.c -- what entering the model sandbox costs one process start.
 *
 * Times, alternately so that load on the machine falls on both alike:
 *   plain      fork, exec /bin/true, wait (the start every child pays);
 *   sandboxed  sandbox_prepare (the Landlock ruleset over the given roots, the seccomp
 *              program, the limits), fork, sandbox_enter (user + network namespace,
 *              rlimits, no_new_privs, Landlock, seccomp), exec /bin/true, wait.
 * The difference is the sandbox's own cost per model start; a Python model's start adds
 * the interpreter's, which is the same with and without it (bench/scenarios/pipeline.py
 * measures whole model starts).
 *
 *   bench_sandbox [--iterations N] [--json PATH] [ROOT...]
 *
 * ROOTs are the exec roots of the policy (a Python environment's folders, as
 * `python -m weir.envs prepare --json` lists them), so the ruleset has the size a model's
 * has. Output: {"plain_us": {"median", "p95"}, "sandboxed_us": {...}, "prepare_us": {...},
 * "landlock_abi", "network"}.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pipeline/child.h"
#include "pipeline/sandbox.h"
#include "util/fs.h"

static double now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double pct(double *v, int n, double q) {
  qsort(v, (size_t)n, sizeof *v, cmp);
  int i = (int)(q * (n - 1) + 0.5);
  return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

static int start_true(const sandbox_prepared *sp) {
  char *argv[] = {"/bin/true", NULL};
  pipeline_child c = {.path = "/bin/true",
                      .argv = argv,
                      .fd_in = -1,
                      .fd_out = -1,
                      .fd_err = -1,
                      .fd_extra = -1,
                      .sandbox = sp,
                      .session = sp != NULL};
  pid_t pid;
  weir_error err = {0};
  if (pipeline_child_start(&c, &pid, &err) != WEIR_OK) {
    fprintf(stderr, "bench_sandbox: %s\n", err.message);
    weir_error_clear(&err);
    return -1;
  }
  return pipeline_child_wait(pid, NULL);
}

int main(int argc, char **argv) {
  int n = 300;
  const char *json_path = NULL;
  sandbox_policy policy;
  sandbox_policy_init(&policy);
  for (int i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--iterations") == 0 && i + 1 < argc)
      n = atoi(argv[++i]);
    else if (strcmp(argv[i], "--json") == 0 && i + 1 < argc)
      json_path = argv[++i];
    else
      sandbox_policy_add_exec(&policy, argv[i]);
  }
  if (!sandbox_usable(sandbox_probe())) {
    fprintf(stderr, "bench_sandbox: %s\n", sandbox_probe()->why);
    return 2;
  }
  char tmpl[] = "/tmp/weir-bench-sandbox-XXXXXX";
  if (!mkdtemp(tmpl)) return 1;
  policy.tmpdir = realpath(tmpl, NULL);
  double *plain = malloc((size_t)n * sizeof *plain), *boxed = malloc((size_t)n * sizeof *boxed),
         *prep = malloc((size_t)n * sizeof *prep);
  const char *network = "";
  for (int i = -10; i < n; i++) {
    double t0 = now_us();
    if (start_true(NULL) != 0) return 1;
    double t1 = now_us();
    sandbox_prepared sp;
    weir_error err = {0};
    if (sandbox_prepare(&policy, &sp, &err) != WEIR_OK) {
      fprintf(stderr, "bench_sandbox: %s\n", err.message);
      return 1;
    }
    double t2 = now_us();
    if (start_true(&sp) != 0) return 1;
    double t3 = now_us();
    network = sp.unshare_net ? "namespace" : "seccomp";
    sandbox_prepared_free(&sp);
    if (i >= 0) {
      plain[i] = t1 - t0;
      boxed[i] = t3 - t1;
      prep[i] = t2 - t1;
    }
  }
  char *doc = wr_asprintf(
      "{\"iterations\": %d, \"landlock_abi\": %d, \"network\": \"%s\", \"exec_roots\": %zu,\n"
      " \"plain_us\": {\"median\": %.1f, \"p95\": %.1f},\n"
      " \"sandboxed_us\": {\"median\": %.1f, \"p95\": %.1f},\n"
      " \"prepare_us\": {\"median\": %.1f, \"p95\": %.1f}}\n",
      n, sandbox_probe()->landlock_abi, network, policy.n_exec_roots, pct(plain, n, 0.5), pct(plain, n, 0.95),
      pct(boxed, n, 0.5), pct(boxed, n, 0.95), pct(prep, n, 0.5), pct(prep, n, 0.95));
  fputs(doc, stdout);
  if (json_path) {
    FILE *f = fopen(json_path, "w");
    if (f) {
      fputs(doc, f);
      fclose(f);
    }
  }
  free(doc);
  free(plain);
  free(boxed);
  free(prep);
  rmdir(policy.tmpdir);
  sandbox_policy_free(&policy);
  return 0;
}
