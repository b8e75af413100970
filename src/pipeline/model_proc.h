/*
 * model_proc.h -- the model process and the worker of one Python model (model_proc.c).
 */
#ifndef WEIR_PIPELINE_MODEL_PROC_H
#define WEIR_PIPELINE_MODEL_PROC_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "pipeline/child.h"
#include "pipeline/sandbox.h"

typedef struct pipeline_model_procs {
  /* in: the model process (sandboxed unless `sandbox` is NULL) */
  const char *host_path; /* its interpreter (a path) */
  char *const *host_argv;
  char *const *host_envp; /* NULL: this process's environment */
  const char *host_job;   /* written to its stdin */
  const sandbox_prepared *sandbox;
  double timeout_s;     /* wall clock; <= 0: none */
  int64_t memory_limit; /* resident bytes; <= 0: none */
  /* in: the worker (never sandboxed: it writes the model's output) */
  const char *worker_path;
  char *const *worker_argv;
  const char *worker_job;
  /* in: both */
  const char *cwd;
  const char *log_path;          /* stdout and stderr of both, appended */
  volatile sig_atomic_t *cancel; /* non-zero: stop both (may be NULL) */
  /* out */
  int host_status, worker_status; /* exit status, or 128 + signal; -1 unknown */
  bool timed_out, memory_exceeded, cancelled;
  int64_t peak_memory; /* the model process's peak resident bytes */
  double seconds;      /* wall clock from start to both ended */
} pipeline_model_procs;

/* Starts both, feeds them their jobs, watches the model process's time and memory, and
 * returns when both have ended (never sooner: no process of a model outlives this).
 * Errors (only when they could not start): WEIR_EIO, WEIR_ENOTFOUND; the outcome of
 * the model itself is in the out fields and the worker's result file. */
int pipeline_model_spawn(pipeline_model_procs *mp, weir_error *err);

#endif
