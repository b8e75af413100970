/*
 * model_proc.h -- the processes of a run's Python models (model_proc.c): one worker for
 * the whole run, and one sandboxed model process per model.
 */
#ifndef WEIR_PIPELINE_MODEL_PROC_H
#define WEIR_PIPELINE_MODEL_PROC_H

#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "pipeline/child.h"
#include "pipeline/sandbox.h"

/* The worker: `<SDK's interpreter> -m weir.worker --serve`, trusted, never sandboxed (it
 * writes the models' outputs), kept for a whole run so that its interpreter, pyarrow,
 * libweir, the open lake and DuckDB are loaded once, not once per model. Jobs reach it
 * over a control socket (its descriptor 3). */
typedef struct pipeline_worker {
  pid_t pid;
  int pidfd; /* readable when it ends; -1 without pidfd_open */
  int ctl;   /* our end of its control socket */
  bool dead; /* it ended or failed: a new one is needed */
} pipeline_worker;

/* Starts a worker, `argv` (argv[0] found on PATH; the runner's is {python, "-m",
 * "weir.worker", "--serve"}), in `cwd`, its stdout and stderr appended to `log_path`.
 * Errors: WEIR_ENOTFOUND, WEIR_EIO. */
int pipeline_worker_start(pipeline_worker *w, char *const argv[], const char *cwd, const char *log_path,
                          weir_error *err);
/* Ends a worker (closing its control socket is its signal to exit; SIGKILL after a grace
 * period) and reaps it. Safe on a worker that never started or already ended. */
void pipeline_worker_stop(pipeline_worker *w);

typedef struct pipeline_model_procs {
  /* in: the model process (sandboxed unless `sandbox` is NULL) */
  const char *host_path; /* its interpreter (a path) */
  char *const *host_argv;
  char *const *host_envp; /* NULL: this process's environment */
  const char *host_job;   /* written to its stdin */
  const sandbox_prepared *sandbox;
  double timeout_s;     /* wall clock; <= 0: none */
  int64_t memory_limit; /* resident bytes; <= 0: none */
  /* in: the job the worker is sent (with its end of the model's socket) */
  const char *worker_job;
  /* in: both */
  const char *cwd;
  const char *log_path;          /* the model process's stdout and stderr, appended */
  atomic_int *cancel; /* non-zero: stop the model process and the worker */
  /* out */
  int host_status;   /* exit status, or 128 + signal; -1 unknown */
  int worker_status; /* the worker's, when it ended during the job; -1 while it lives */
  bool worker_done;  /* the worker finished the job (its result file is written) */
  bool timed_out, memory_exceeded, cancelled;
  int64_t peak_memory; /* the model process's peak resident bytes */
  double seconds;      /* wall clock from start to both ended */
} pipeline_model_procs;

/* Runs one model: starts its model process, sends `worker` the job, watches the model
 * process's time and memory, and returns when the model process has ended and the worker
 * has finished the job or ended (never sooner: no model process outlives this). A worker
 * that ends, or has to be stopped, is marked dead. Errors (only when the processes could
 * not start or be told): WEIR_EIO, WEIR_ENOTFOUND; the model's outcome is in the out
 * fields and the worker's result file. */
int pipeline_model_spawn(pipeline_model_procs *mp, pipeline_worker *worker, weir_error *err);

#endif
