/*
 * run.c -- `weir check` and `weir run`: plan, then execute on a temporary branch and
 * publish with one merge (docs/versioning.md, "Transactional run").
 *
 *   1. plan against the target's head H; any problem: exit 3, nothing written;
 *   2. branch run/<id> at H, record the run as running;
 *   3. each model in order: execute, validate, write its data, commit on run/<id>;
 *   4. all passed: check the run's read set (every catalog table a model read) is
 *      unchanged on the target since H, merge run/<id> into the target, mark the run
 *      succeeded and delete run/<id> (one catalog transaction: a process killed at any
 *      instant leaves either all of it or none);
 *   5. a model failed: the target is not touched, run/<id> is kept, the run is recorded
 *      as failed with the model and its messages.
 */
#define _GNU_SOURCE /* strsignal */
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "pipeline/model_proc.h"
#include "pipeline/pipeline.h"
#include "lake/json_out.h"
#include "lake/serial.h"
#include "lake/stage.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

/* ---- check ---------------------------------------------------------------------------- */

static int load_and_plan(weir_lake *lake, const char *dir, const char *hash, bool unsandboxed,
                         wr_project **out, weir_error *err) {
  wr_project *p = NULL;
  int rc = pipeline_load(lake, dir, unsandboxed, &p, err);
  if (rc) return rc;
  if ((rc = pipeline_plan(lake, p, hash, err))) {
    pipeline_project_free(p);
    return rc;
  }
  *out = p;
  return WEIR_OK;
}

int pipeline_project_check(weir_lake *lake, const char *project_dir, const char *ref, char **out_json,
                       weir_error *err) {
  *out_json = NULL;
  const char *refname = ref ? ref : "main"; /* "" is refused by lake_resolve */
  char hash[WEIR_HASH_HEX_SIZE];
  int rc = lake_resolve(lake, refname, hash, err);
  if (rc) return rc;
  wr_project *p = NULL;
  if ((rc = load_and_plan(lake, project_dir, hash, false, &p, err))) return rc;
  json_t *plan = pipeline_plan_json(p, refname, hash);
  /* Contract changes the project would make to its output tables, and who they break:
   * reported, not a problem (the caller decides: `weir check` exits 3 unless
   * --allow-breaking). */
  json_t *breaking = NULL;
  if ((rc = pipeline_breaking_changes(lake, p, hash, &breaking, err))) {
    json_decref(plan);
    pipeline_project_free(p);
    return rc;
  }
  json_object_set_new(plan, "breaking_changes", breaking);
  *out_json = wr_doc_dump(WR_DOC_PLAN, plan);
  if (json_array_size(p->problems) > 0) rc = pipeline_plan_error(p, err);
  pipeline_project_free(p);
  return rc;
}

int pipeline_project_readers(weir_lake *lake, const char *project_dir, const char *ref, const char *table,
                         const char *diff_json, char **out_json, weir_error *err) {
  *out_json = NULL;
  if (!table || !diff_json) return wr_seterr(err, WEIR_EINVALIDARG, "weir_project_readers needs a table and a diff");
  json_t *diff = json_loads(diff_json, 0, NULL);
  const json_t *affected = json_object_get(diff, "affected_columns");
  if (!json_is_array(affected)) {
    json_decref(diff);
    return wr_seterr(err, WEIR_EINPUT, "the contract diff has no affected_columns (not a weir_contract_diff document)");
  }
  const char *refname = ref ? ref : "main";
  char hash[WEIR_HASH_HEX_SIZE];
  wr_table_id id;
  char full[2 * WEIR_NAME_MAX + 2];
  int rc = wr_table_id_parse(table, &id, err);
  if (!rc) {
    wr_table_id_format(&id, full, sizeof full);
    rc = lake_resolve(lake, refname, hash, err);
  }
  wr_project *p = NULL;
  if (!rc) rc = load_and_plan(lake, project_dir, hash, false, &p, err);
  if (!rc) {
    *out_json = wr_doc_dump(WR_DOC_READERS, pipeline_readers(p, full, affected,
                                                              json_is_true(json_object_get(diff, "table_wide")), NULL));
    pipeline_project_free(p);
  }
  json_decref(diff);
  return rc;
}

/* ---- running one model ------------------------------------------------------------------ */

typedef struct run_ctx {
  weir_lake *lake;
  wr_project *p;
  char run_id[16];
  char run_branch[32];
  const char *branch;
  char base[WEIR_HASH_HEX_SIZE];
  char head[WEIR_HASH_HEX_SIZE];   /* current head of the run branch */
  char *run_dir;                   /* LAKE/runs/<id>: worker jobs, results, logs */
  wr_engine *engine;             /* for SQL models */
  bool unsandboxed;                /* --unsandboxed / sandbox=False: Python runs unconfined */
  pipeline_worker worker;          /* the run's model worker, started at its first Python model */
  bool worker_started;
  json_t *sandbox;                 /* the last Python model's sandbox record (docs/sandbox.md) */
  json_t *compactions;             /* after publishing: the compactions the outputs' thresholds
                                      (weir.compact.min-files) made, or NULL */
  double timeout_s;                /* weir_run_options.timeout; <= 0: none */
  int64_t deadline_us;             /* wr_mono_us() past which the run stops; 0: none */
} run_ctx;

/* The run's timeout, for messages: "5s", "1h30m". */
static void run_timeout_text(const run_ctx *rc, char *buf, size_t n) { sandbox_format_seconds(rc->timeout_s, buf, n); }

static int run_timed_out(const run_ctx *rc, const pipeline_model *m, weir_error *err) {
  char lim[64];
  run_timeout_text(rc, lim, sizeof lim);
  /* A model failure (exit 1), as a model past its own @weir.python(timeout=) is: exit
   * 130 (Interrupted) is kept for Ctrl-C and SIGTERM, which a script must tell apart. */
  return wr_seterr(err, WEIR_EMODEL,
                   "model %s (%s) was stopped: the run ran past its timeout of %s (weir run --timeout SECONDS, "
                   "Client.run(timeout=...))",
                   m->name, m->file, lim);
}

/* ---- stopping a SQL statement ---------------------------------------------------------- */

/* A SQL model's statement runs on the calling thread inside DuckDB, where neither the
 * interrupt flag (set from a signal handler, which cannot call into DuckDB) nor the
 * run's deadline is looked at. While it runs, this watcher looks at both every
 * SQL_WATCH_MS and, once either says stop, interrupts the engine at every look until the
 * statement is done: DuckDB forgets an interrupt that comes before its statement has
 * begun, so one call could be lost in the gap between starting the watcher and
 * DuckDB starting the statement. The statement then fails within DuckDB's own checking
 * interval. The watcher exists only while the statement runs. */
#define SQL_WATCH_MS 20

typedef struct sql_watch {
  pthread_mutex_t mu;
  pthread_cond_t cv;  /* signalled when the statement is done */
  bool done;
  wr_engine *engine;
  atomic_int *cancel;
  int64_t deadline_us; /* 0: none */
  bool fired, timed_out;
} sql_watch;

static void *sql_watch_main(void *arg) {
  sql_watch *w = arg;
  pthread_mutex_lock(&w->mu);
  while (!w->done) {
    bool late = w->deadline_us > 0 && wr_mono_us() >= w->deadline_us;
    if (atomic_load(w->cancel) || late) {
      if (!w->fired) w->timed_out = late && !atomic_load(w->cancel);
      wr_engine_interrupt(w->engine); /* the statement still runs: done is false under mu */
      w->fired = true;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += SQL_WATCH_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
      ts.tv_sec++;
      ts.tv_nsec -= 1000000000L;
    }
    pthread_cond_timedwait(&w->cv, &w->mu, &ts);
  }
  pthread_mutex_unlock(&w->mu);
  return NULL;
}

/* wr_engine_query_table, stopped by the run's interrupt flag or deadline: then
 * WEIR_EINTERRUPTED saying which. */
static int query_watched(run_ctx *rc, pipeline_model *m, wr_arrow_table *out, weir_error *err) {
  sql_watch w;
  memset(&w, 0, sizeof w);
  w.engine = rc->engine;
  w.cancel = &rc->lake->interrupted;
  w.deadline_us = rc->deadline_us;
  pthread_mutex_init(&w.mu, NULL);
  pthread_condattr_t ca;
  pthread_condattr_init(&ca);
  pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
  pthread_cond_init(&w.cv, &ca);
  pthread_condattr_destroy(&ca);
  pthread_t th;
  bool watching = pthread_create(&th, NULL, sql_watch_main, &w) == 0;
  /* From here an interrupt stops the statement (the event is also a test's hand-off). */
  lake_progress(rc->lake, json_pack("{s:s,s:s,s:s}", "phase", "query", "model", m->name, "run_id", rc->run_id));
  int r = wr_engine_query_table(rc->engine, m->sql, out, err);
  if (watching) {
    /* Holding mu, the watcher is not between its check and its interrupt. */
    pthread_mutex_lock(&w.mu);
    w.done = true;
    pthread_cond_signal(&w.cv);
    pthread_mutex_unlock(&w.mu);
    pthread_join(th, NULL);
  }
  pthread_cond_destroy(&w.cv);
  pthread_mutex_destroy(&w.mu);
  if (r != WEIR_OK && w.fired) {
    weir_error_clear(err);
    if (w.timed_out) return run_timed_out(rc, m, err);
    return wr_seterr(err, WEIR_EINTERRUPTED, "model %s (%s): interrupted", m->name, m->file);
  }
  if (r != WEIR_OK) wr_error_prefix(err, "model %s (%s)", m->name, m->file);
  return r;
}

static json_t *summary_for(const run_ctx *rc, const pipeline_model *m) {
  /* Iceberg snapshot summary: which run and model wrote this version. */
  return json_pack("{s:s,s:s,s:s}", "weir.run-id", rc->run_id, "weir.model", m->name, "weir.project",
                   rc->p->name);
}

static char *subject_for(const pipeline_model *m) {
  if (m->output) return wr_asprintf("model %s (output, schema %s)", m->name, m->output->name);
  return wr_asprintf("model %s (output)", m->name);
}

static const char *comment_for(const pipeline_model *m) {
  /* The table's documentation: the model's docstring, else its output schema's. */
  if (m->doc && *m->doc) return m->doc;
  if (m->output && m->output->description) return m->output->description;
  return NULL;
}

static int run_sql_model(run_ctx *rc, pipeline_model *m, stage_result *res, weir_error *err) {
  weir_lake *lake = rc->lake;
  int r = WEIR_OK;
  for (size_t k = 0; k < m->n_inputs && r == WEIR_OK; k++) {
    model_input *in = &m->inputs[k];
    wr_table_id id;
    if ((r = wr_table_id_parse(in->table, &id, err))) break;
    r = lake_attach_table(lake, rc->engine, rc->head, &id, err);
    /* A bare model name in a project with its own namespace: make it resolve too. */
    if (r == WEIR_OK && !strchr(in->name, '.') && strcmp(id.ns, WEIR_DEFAULT_NAMESPACE) != 0) {
      char *qn = wr_sql_ident(id.ns), *qt = wr_sql_ident(id.name), *qb = wr_sql_ident(in->name);
      char *sql = wr_asprintf("CREATE OR REPLACE VIEW main.%s AS SELECT * FROM %s.%s", qb, qn, qt);
      r = wr_engine_exec(rc->engine, sql, err);
      free(sql);
      free(qn);
      free(qt);
      free(qb);
    }
  }
  if (r) return r;
  wr_arrow_table data;
  wr_arrow_table_init(&data);
  if ((r = query_watched(rc, m, &data, err))) {
    wr_arrow_table_release(&data);
    return r;
  }
  char *subject = subject_for(m);
  json_t *summary = summary_for(rc, m);
  weir_contract *target = NULL;
  char *suffix = NULL, *table_subject = NULL;
  if (m->append && (r = lake_append_target(lake, m->table, rc->head, &target, &suffix, err))) {
    json_decref(summary);
    free(subject);
    wr_arrow_table_release(&data);
    return r;
  }
  if (suffix) table_subject = wr_asprintf("model %s (output, %s)", m->name, suffix);
  stage_request sr = {0};
  sr.table = m->table;
  sr.mode = m->append ? WEIR_MODE_APPEND : WEIR_MODE_REPLACE;
  sr.contract = m->output ? m->output : target;
  sr.declared = m->output != NULL;
  /* An APPEND model's rows must fit the table they are added to (its stored contract or
   * schema), not only the model's own output schema. */
  sr.table_contract = m->output ? target : NULL;
  sr.table_subject = table_subject;
  sr.subject = subject;
  sr.comment = comment_for(m);
  sr.summary = summary;
  sr.base_commit = rc->head;
  sr.partition_by = m->partition_by;
  r = lake_stage_output(lake, rc->engine, &data, &sr, res, err);
  json_decref(summary);
  free(subject);
  free(suffix);
  free(table_subject);
  wr_contract_free(target);
  wr_arrow_table_release(&data);
  return r;
}

/* The tail of a log file, for error messages. Caller frees. */
static char *log_tail(const char *path, size_t max) {
  char *text = NULL;
  size_t len = 0;
  weir_error e = {0};
  if (wr_fs_read(path, &text, &len, &e) != WEIR_OK) {
    weir_error_clear(&e);
    return wr_strdup("");
  }
  if (len <= max) return text;
  char *tail = wr_strdup(text + len - max);
  free(text);
  return tail;
}

/* Why the model process ended, when the runner or the kernel ended it (NULL when it
 * ended by itself: then the worker's result says what happened). Caller frees. */
static char *host_fate(const pipeline_model *m, const pipeline_model_procs *mp) {
  char lim[64];
  if (mp->timed_out) {
    sandbox_format_seconds(m->limits.timeout_s, lim, sizeof lim);
    return wr_asprintf(
        "model %s ran past its timeout of %s and was stopped (@weir.python(timeout=...) changes it)", m->name,
        lim);
  }
  if (mp->memory_exceeded) {
    sandbox_format_bytes(m->limits.memory, lim, sizeof lim);
    return wr_asprintf(
        "model %s used more than its memory limit of %s and was stopped "
        "(@weir.python(memory=...) changes it)",
        m->name, lim);
  }
  int sig = mp->host_status > 128 ? mp->host_status - 128 : 0;
  if (sig == SIGXCPU || (sig == SIGKILL && m->limits.cpu_s)) {
    if (sig == SIGXCPU || mp->seconds >= (double)m->limits.cpu_s) {
      sandbox_format_seconds((double)m->limits.cpu_s, lim, sizeof lim);
      return wr_asprintf(
          "model %s used more than its CPU time limit of %s and was stopped "
          "(@weir.python(cpu_time=...) changes it)",
          m->name, lim);
    }
  }
  if (sig == SIGSYS)
    return wr_asprintf("model %s made a system call the model sandbox forbids and was killed", m->name);
  if (sig)
    return wr_asprintf("model %s: its process was killed by signal %d (%s)", m->name, sig, strsignal(sig));
  return NULL;
}

/* Runs a Python model as two processes (docs/worker.md): the model process, in the
 * sandbox (docs/sandbox.md), imports the project's code and calls the function; the
 * worker, outside it, reads the inputs, hands them over and writes the output. The
 * runner watches the model process's time and memory. rc->sandbox gets the record. */
static int run_python_model(run_ctx *rc, pipeline_model *m, stage_result *res, weir_error *err) {
  bool sandboxed = !rc->unsandboxed;
  char *interp = NULL;
  json_t *roots = NULL;
  int r = pipeline_python_env(rc->lake, m->python, &interp, sandboxed ? &roots : NULL, err);
  if (r) {
    wr_error_prefix(err, "model %s (%s:%d)", m->name, m->file, m->line);
    return r;
  }
  sandbox_policy pol;
  sandbox_policy_init(&pol);
  sandbox_prepared prep;
  memset(&prep, 0, sizeof prep);
  prep.ruleset_fd = -1;
  char **host_env = NULL;
  if (sandboxed) {
    r = pipeline_code_sandbox(rc->p->dir, rc->lake->path, roots, m->name, &pol, err);
    if (r == WEIR_OK) {
      pol.limits = m->limits;
      pol.internet = m->internet;
      r = sandbox_prepare(&pol, &prep, err);
    }
    if (r == WEIR_OK) host_env = pipeline_code_environment(&pol);
  } else {
    pol.limits = m->limits;
    pol.internet = m->internet;
  }
  json_decref(roots);
  char *result_path = wr_asprintf("%s/%s.result.json", rc->run_dir, m->name);
  char *log_path = wr_asprintf("%s/%s.log", rc->run_dir, m->name);

  /* The worker's job: where the lake is, what to read, where the output goes. */
  json_t *job = json_object();
  json_object_set_new(job, "lake", json_string(rc->lake->path));
  json_object_set_new(job, "library", json_string(pipeline_library_path(rc->lake)));
  json_object_set_new(job, "project", json_string(rc->p->dir));
  json_object_set_new(job, "file", json_string(m->file));
  json_object_set_new(job, "function", json_string(m->function));
  json_object_set_new(job, "model", json_string(m->name));
  json_object_set_new(job, "run_id", json_string(rc->run_id));
  json_object_set_new(job, "result_path", json_string(result_path));
  json_t *inputs = json_array();
  json_t *params = json_array();
  for (size_t k = 0; k < m->n_inputs && r == WEIR_OK; k++) {
    model_input *in = &m->inputs[k];
    json_t *spec = json_object();
    if (in->schema) {
      json_t *cols = json_array();
      for (size_t c = 0; c < in->schema->n_columns; c++)
        json_array_append_new(cols, json_string(in->schema->columns[c].field.name));
      json_object_set_new(spec, "columns", cols);
      json_object_set_new(spec, "contract", wr_contract_to_ir(in->schema));
      char *subj = wr_asprintf("input %s of model %s (schema %s)", in->param ? in->param : in->name, m->name,
                                 in->schema->name);
      json_object_set_new(spec, "subject", json_string(subj));
      free(subj);
    } else if (in->columns)
      json_object_set_new(spec, "columns", json_incref(in->columns));
    if (in->filter) json_object_set_new(spec, "filter", json_string(in->filter));
    char at[WEIR_HASH_HEX_SIZE];
    memcpy(at, rc->head, sizeof at);
    if (in->ref) r = lake_resolve(rc->lake, in->ref, at, err);
    json_array_append_new(inputs, json_pack("{s:s?,s:s,s:s,s:o}", "param", in->param, "table", in->table, "ref", at,
                                            "spec", spec));
    json_array_append_new(params, json_string(in->param ? in->param : in->name));
  }
  json_object_set_new(job, "inputs", inputs);
  char *subject = subject_for(m);
  json_t *out = json_object();
  json_object_set_new(out, "table", json_string(m->table));
  json_object_set_new(out, "mode", json_string(m->append ? "APPEND" : "REPLACE"));
  json_object_set_new(out, "contract", m->output ? wr_contract_to_ir(m->output) : json_null());
  json_object_set_new(out, "subject", json_string(subject));
  json_object_set_new(out, "base_commit", json_string(rc->head));
  json_object_set_new(out, "model", json_string(m->name));
  json_object_set_new(out, "run_id", json_string(rc->run_id));
  if (m->partition_by) json_object_set_new(out, "partition_by", json_incref(m->partition_by));
  json_object_set_new(out, "comment", wr_json_str_or_null(comment_for(m)));
  json_object_set_new(out, "summary", summary_for(rc, m));
  json_object_set_new(job, "output", out);
  free(subject);
  char *worker_job = wr_json_compact(job);
  json_decref(job);

  /* The model process's job: what to import and call, and (for its messages) what its
   * sandbox allows. */
  json_t *read = json_array();
  for (size_t i = 0; i < pol.n_exec_roots; i++) json_array_append_new(read, json_string(pol.exec_roots[i]));
  for (size_t i = 0; i < pol.n_read_roots; i++) json_array_append_new(read, json_string(pol.read_roots[i]));
  json_t *hj = json_pack("{s:s,s:s,s:s,s:s,s:s,s:o}", "project", rc->p->dir, "file", m->file, "function",
                         m->function, "model", m->name, "run_id", rc->run_id, "params", params);
  json_object_set_new(
      hj, "sandbox",
      json_pack("{s:b,s:b,s:I,s:f,s:o,s:s?,s:s,s:o}", "enabled", sandboxed, "internet_access", m->internet,
                "memory", (json_int_t)m->limits.memory, "timeout", m->limits.timeout_s, "cpu_time",
                m->limits.cpu_s ? json_integer(m->limits.cpu_s) : json_null(), "tmpdir", pol.tmpdir, "lake",
                rc->lake->path, "read", read));
  char *host_job = wr_json_compact(hj);
  json_decref(hj);

  pipeline_model_procs mp;
  memset(&mp, 0, sizeof mp);
  if (r == WEIR_OK && (!rc->worker_started || rc->worker.dead)) {
    /* One worker for the run (started again if one died). Its log is the run's. */
    if (rc->worker_started) pipeline_worker_stop(&rc->worker);
    char *wlog = wr_asprintf("%s/worker.log", rc->run_dir);
    char *wargv[] = {(char *)pipeline_python(rc->lake), "-m", "weir.worker", "--serve", NULL};
    r = pipeline_worker_start(&rc->worker, wargv, rc->p->dir, wlog, err);
    rc->worker_started = true;
    free(wlog);
  }
  if (r == WEIR_OK) {
    char *host_path = pipeline_find_program(interp);
    char *host_argv[] = {interp, "-B", "-m", "weir.model_host", NULL};
    mp.host_path = host_path;
    mp.host_argv = host_argv;
    mp.host_envp = host_env;
    mp.host_job = host_job;
    mp.sandbox = sandboxed ? &prep : NULL;
    mp.timeout_s = m->limits.timeout_s;
    /* The run's deadline, when it comes first, bounds the model too. */
    bool run_bound = false;
    if (rc->deadline_us > 0) {
      double left = (double)(rc->deadline_us - wr_mono_us()) / 1e6;
      if (left < 0.001) left = 0.001;
      if (mp.timeout_s <= 0 || left < mp.timeout_s) {
        mp.timeout_s = left;
        run_bound = true;
      }
    }
    mp.memory_limit = m->limits.memory;
    mp.worker_job = worker_job;
    mp.cwd = rc->p->dir;
    mp.log_path = log_path;
    mp.cancel = &rc->lake->interrupted;
    r = pipeline_model_spawn(&mp, &rc->worker, err);
    free(host_path);
    if (r == WEIR_OK && atomic_load(&rc->lake->interrupted))
      r = wr_seterr(err, WEIR_EINTERRUPTED, "model %s (%s:%d): interrupted", m->name, m->file, m->line);
    if (r == WEIR_OK && mp.timed_out && run_bound) r = run_timed_out(rc, m, err);
    if (r == WEIR_OK) {
      char *text = NULL;
      size_t len = 0;
      weir_error e2 = {0};
      json_t *result = NULL;
      char *fate = host_fate(m, &mp);
      if (wr_fs_read(result_path, &text, &len, &e2) != WEIR_OK || !(result = json_loads(text, 0, NULL))) {
        weir_error_clear(&e2);
        char *wlog = wr_asprintf("%s/worker.log", rc->run_dir);
        char *tail = log_tail(wlog, 2000);
        if (mp.worker_status >= 0)
          r = wr_seterr(err, WEIR_EMODEL, "model %s (%s:%d): the worker %s %d without a result (log: %s)%s%s",
                          m->name, m->file, m->line,
                          mp.worker_status > 128 ? "was killed by signal" : "exited with status",
                          mp.worker_status > 128 ? mp.worker_status - 128 : mp.worker_status, wlog,
                          *tail ? "\n" : "", tail);
        else
          r = wr_seterr(err, WEIR_EMODEL, "model %s (%s:%d): the worker wrote no result (log: %s)%s%s", m->name,
                          m->file, m->line, wlog, *tail ? "\n" : "", tail);
        free(tail);
        free(wlog);
      } else if (json_is_true(json_object_get(result, "ok"))) {
        r = stage_result_from_json(json_object_get(result, "stage"), res, err);
      } else if (fate && json_is_true(json_object_get(json_object_get(result, "error"), "host_ended"))) {
        /* The runner or the kernel stopped the model: that is the story, not the worker's
         * "ended without a result". (When the worker failed on its own, an input it could
         * not read, the runner stopped the model process because of it: the worker's
         * error is the story then.) */
        char *tail = mp.timed_out || mp.memory_exceeded ? wr_strdup("") : log_tail(log_path, 2000);
        r = wr_seterr(err, WEIR_EMODEL, "%s (%s:%d)%s%s", fate, m->file, m->line, *tail ? "\n" : "", tail);
        free(tail);
      } else {
        json_t *e = json_object_get(result, "error");
        int code = (int)wr_json_int(e, "code_num", WEIR_EMODEL);
        const char *msg = wr_json_str(e, "message", "the model failed");
        const char *tb = wr_json_str(e, "traceback", NULL);
        if (json_is_true(json_object_get(e, "host_ended"))) {
          /* It ended by itself without answering: Python could not start, or the model
           * exited. Its log says why. */
          char *tail = log_tail(log_path, 2000);
          r = wr_seterr(err, WEIR_EMODEL, "%s (exit status %d; log: %s)%s%s", msg, mp.host_status, log_path,
                          *tail ? "\n" : "", tail);
          free(tail);
        } else if (tb) {
          r = wr_seterr(err, code, "%s (%s:%d)\n%s", msg, m->file, m->line, tb);
        } else {
          r = wr_seterr(err, code, "%s", msg);
        }
        json_t *details = json_object_get(e, "details");
        if (json_is_array(details) && json_array_size(details))
          wr_error_set_details(err, json_incref(details));
        json_t *stage = json_object_get(result, "stage");
        json_t *rep = json_object_get(stage, "report");
        if (json_is_object(rep)) res->report = json_incref(rep);
      }
      free(fate);
      json_decref(result);
      free(text);
    }
  }
  json_decref(rc->sandbox);
  rc->sandbox = sandbox_record(&pol, sandboxed && prep.filter ? &prep : NULL,
                               !sandboxed     ? "unsandboxed (--unsandboxed / sandbox=False)"
                               : !prep.filter ? "the sandbox could not be set up: the model did not run"
                                              : NULL);
  if (mp.peak_memory > 0) json_object_set_new(rc->sandbox, "peak_memory", json_integer(mp.peak_memory));
  free(worker_job);
  free(host_job);
  free(result_path);
  free(log_path);
  free(interp);
  pipeline_code_environment_free(host_env);
  sandbox_prepared_free(&prep);
  if (sandboxed)
    pipeline_code_sandbox_done(&pol);
  else
    sandbox_policy_free(&pol);
  return r;
}

/* ---- the run ---------------------------------------------------------------------------- */

static json_t *model_record(const pipeline_model *m, const char *status, int64_t started, int64_t ended,
                            const stage_result *res, const char *commit, const weir_error *e) {
  json_t *o = json_object();
  json_object_set_new(o, "model", json_string(m->name));
  json_object_set_new(o, "table", json_string(m->table));
  json_object_set_new(o, "language", json_string(m->lang == MODEL_SQL ? "sql" : "python"));
  json_object_set_new(o, "status", json_string(status));
  json_object_set_new(o, "started_us", json_integer(started));
  json_object_set_new(o, "ended_us", json_integer(ended));
  json_object_set_new(o, "rows", json_integer(res ? res->rows_written : 0));
  json_object_set_new(o, "rows_quarantined", json_integer(res ? res->rows_quarantined : 0));
  json_object_set_new(o, "commit", wr_json_str_or_null(commit));
  json_t *report = res && res->report ? res->report : NULL;
  json_object_set_new(o, "report", report ? json_incref(report) : json_null());
  json_t *viol = report ? json_object_get(report, "violations") : NULL;
  json_object_set_new(o, "violations", json_is_array(viol) ? json_incref(viol) : json_array());
  json_t *rules = report ? json_object_get(report, "rules") : NULL;
  json_object_set_new(o, "rules", json_is_array(rules) ? json_incref(rules) : json_array());
  if (e && e->code) {
    json_object_set_new(o, "error", json_string(e->message ? e->message : weir_error_name(e->code)));
    json_object_set_new(o, "error_code", json_string(weir_error_name(e->code)));
  } else {
    json_object_set_new(o, "error", json_null());
  }
  return o;
}

/* Run records as the catalog keeps them, with times also in ISO 8601 for people. */
static void time_field(json_t *o, const char *key_us, const char *key_iso) {
  json_t *v = json_object_get(o, key_us);
  if (!json_is_integer(v)) return;
  char buf[40];
  wr_format_time_us((int64_t)json_integer_value(v), buf, sizeof buf);
  json_object_set_new(o, key_iso, json_string(buf));
}

static void decorate_run(json_t *run) {
  json_t *started = json_object_get(run, "started");
  if (json_is_integer(started)) {
    json_object_set(run, "started_us", started);
    time_field(run, "started_us", "started");
  }
  json_t *ended = json_object_get(run, "ended");
  if (json_is_integer(ended)) {
    json_object_set(run, "ended_us", ended);
    time_field(run, "ended_us", "ended");
  }
  size_t i;
  json_t *m;
  json_array_foreach(json_object_get(run, "models"), i, m) {
    time_field(m, "started_us", "started");
    time_field(m, "ended_us", "ended");
  }
}

/* The run's read set: every catalog table a model reads at the run's base, that is, each
 * input no model of the project produces and that is not pinned to another ref. Names are
 * borrowed from the project; *n distinct. */
static const char **read_set(const wr_project *p, size_t *n) {
  size_t cap = 0;
  for (size_t i = 0; i < p->n_models; i++) cap += p->models[i].n_inputs;
  const char **out = wr_calloc(cap ? cap : 1, sizeof *out);
  *n = 0;
  for (size_t i = 0; i < p->n_models; i++)
    for (size_t k = 0; k < p->models[i].n_inputs; k++) {
      const model_input *in = &p->models[i].inputs[k];
      if (in->producer >= 0 || in->ref || !in->table) continue;
      bool seen = false;
      for (size_t j = 0; j < *n && !seen; j++) seen = strcmp(out[j], in->table) == 0;
      if (!seen) out[(*n)++] = in->table;
    }
  return out;
}

/* Inside the publish transaction, with the target at `head`: refuse with
 * WEIR_ESTALEREAD if a table the run read changed on the target since the run's base. */
static int check_read_set(run_ctx *rc, const char *head, weir_error *err) {
  if (strcmp(head, rc->base) == 0) return WEIR_OK;
  size_t n = 0;
  const char **reads = read_set(rc->p, &n);
  catalog_serial_report r;
  catalog_serial_init(&r, rc->branch, rc->base, head);
  int res = WEIR_OK;
  for (size_t i = 0; i < n && res == WEIR_OK; i++)
    res = catalog_serial_check_table(rc->lake->cat, &r, reads[i], true,
                                     "the run read it: its outputs were computed from the old version", err);
  if (res == WEIR_OK) {
    char *what = wr_asprintf("run %s cannot publish", rc->run_id);
    char *advice = wr_asprintf("%s is unchanged (%s kept); run the project again, or pass --retry N to plan and "
                                 "run again on the new head",
                                 rc->branch, rc->run_branch);
    res = catalog_serial_error(&r, what, advice, err);
    free(what);
    free(advice);
  }
  catalog_serial_clear(&r);
  free(reads);
  return res;
}

static int finish_json(run_ctx *rc, char **out_json) {
  json_t *run = NULL;
  weir_error e = {0};
  if (catalog_run_get(rc->lake->cat, rc->run_id, &run, &e) == WEIR_OK) {
    decorate_run(run);
    json_object_set_new(run, "warnings", json_incref(rc->p->warnings));
    if (rc->compactions) json_object_set(run, "compactions", rc->compactions);
    *out_json = wr_doc_dump(WR_DOC_RUN, run);
  }
  weir_error_clear(&e);
  return WEIR_OK;
}

/* One attempt: plan at the base, run, publish. *retryable is set when the run failed only
 * because the target moved while it ran (a stale read set, or a conflicting merge). */
static int run_once(weir_lake *lake, const char *project_dir, const weir_run_options *opts, bool *retryable,
                    char **out_json, weir_error *err) {
  *out_json = NULL;
  *retryable = false;
  run_ctx rc;
  memset(&rc, 0, sizeof rc);
  rc.lake = lake;
  rc.branch = opts && opts->branch ? opts->branch : "main"; /* "" is refused below */
  int r = lake_write_base(lake, rc.branch, opts ? opts->expect_head : NULL, rc.base, err);
  if (r) return r;

  atomic_store(&lake->interrupted, 0);
  /* 1. Plan. Nothing is written if the project does not plan. */
  rc.unsandboxed = opts && opts->unsandboxed;
  if ((r = load_and_plan(lake, project_dir, rc.base, rc.unsandboxed, &rc.p, err))) return r;
  if (json_array_size(rc.p->problems) > 0 || (opts && opts->dry_run)) {
    *out_json = wr_doc_dump(WR_DOC_PLAN, pipeline_plan_json(rc.p, rc.branch, rc.base));
    r = json_array_size(rc.p->problems) > 0 ? pipeline_plan_error(rc.p, err) : WEIR_OK;
    pipeline_project_free(rc.p);
    return r;
  }

  /* 1b. Every Python environment the models need, built now: a Python that cannot be
   * had fails the run before any model ran (nothing written), the build shows as its own
   * progress phase, and it is not counted in a model's time or the run's timeout (the
   * models find them in the environment cache). */
  {
    json_t *done = json_object();
    for (size_t oi = 0; oi < rc.p->n_order && r == WEIR_OK; oi++) {
      pipeline_model *m = &rc.p->models[rc.p->order[oi]];
      if (m->lang != MODEL_PYTHON) continue;
      char *key = m->python ? wr_json_canonical(m->python) : wr_strdup("null");
      if (!json_object_get(done, key)) {
        json_object_set_new(done, key, json_true());
        lake_progress(lake, json_pack("{s:s,s:s,s:s?}", "phase", "environment", "model", m->name, "python",
                                      wr_json_str(m->python, "version", NULL)));
        char *interp = NULL;
        json_t *roots = NULL;
        r = pipeline_python_env(lake, m->python, &interp, rc.unsandboxed ? NULL : &roots, err);
        if (r) wr_error_prefix(err, "model %s (%s:%d)", m->name, m->file, m->line);
        free(interp);
        json_decref(roots);
      }
      free(key);
    }
    json_decref(done);
    if (r) {
      pipeline_project_free(rc.p);
      return r;
    }
  }

  /* 2. The run branch and the run record. */
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  snprintf(rc.run_id, sizeof rc.run_id, "%.8s%.4s", u, u + 9);
  snprintf(rc.run_branch, sizeof rc.run_branch, "run/%s", rc.run_id);
  memcpy(rc.head, rc.base, sizeof rc.head);
  rc.run_dir = wr_asprintf("%s/runs/%s", lake->path, rc.run_id);
  if ((r = wr_fs_mkdirs(rc.run_dir, err))) goto out;
  if ((r = catalog_ref_create(lake->cat, WEIR_REF_BRANCH, rc.run_branch, rc.base, err))) goto out;
  if ((r = catalog_run_create(lake->cat, rc.run_id, rc.p->name, rc.p->digest, rc.branch, rc.base, rc.run_branch,
                              err)))
    goto out;
  /* SQL models read tables, not the machine's files: a restricted engine. */
  if ((r = lake_engine_get(lake, LAKE_ENGINE_WAREHOUSE, &rc.engine, err))) goto fail;

  /* 3. Models in order, each one commit on the run branch. The run's timeout counts
   * from here: planning (and discovery) are not the models' time. */
  rc.timeout_s = opts ? opts->timeout : 0;
  if (rc.timeout_s > 0) rc.deadline_us = wr_mono_us() + (int64_t)(rc.timeout_s * 1e6);
  for (size_t oi = 0; oi < rc.p->n_order; oi++) {
    pipeline_model *m = &rc.p->models[rc.p->order[oi]];
    int64_t started = wr_now_us();
    lake_progress(lake, json_pack("{s:s,s:s,s:s}", "phase", "model", "model", m->name, "run_id", rc.run_id));
    stage_result res = {0};
    weir_error merr = {0};
    int mr;
    if (atomic_load(&lake->interrupted))
      mr = wr_seterr(&merr, WEIR_EINTERRUPTED, "model %s: interrupted before it started", m->name);
    else if (rc.deadline_us > 0 && wr_mono_us() >= rc.deadline_us)
      mr = run_timed_out(&rc, m, &merr);
    else
      mr = m->lang == MODEL_SQL ? run_sql_model(&rc, m, &res, &merr) : run_python_model(&rc, m, &res, &merr);
    if (mr == WEIR_OK && atomic_load(&lake->interrupted))
      mr = wr_seterr(&merr, WEIR_EINTERRUPTED, "model %s: interrupted", m->name);
    char commit[WEIR_HASH_HEX_SIZE] = "";
    if (mr == WEIR_OK) {
      char *msg = wr_asprintf("run %s: model %s", rc.run_id, m->name);
      /* The catalog records the run id itself (property run_id). */
      json_t *props = json_pack("{s:s}", "weir.model", m->name);
      lake_commit_request cr = {0};
      cr.branch = rc.run_branch;
      cr.expected_head = rc.head;
      cr.message = msg;
      cr.properties = props;
      cr.run_id = rc.run_id;
      mr = lake_commit_staged(lake, &cr, res.staged, res.n_staged, commit, &merr);
      if (mr == WEIR_OK) memcpy(rc.head, commit, sizeof rc.head);
      json_decref(props);
      free(msg);
    }
    int64_t ended = wr_now_us();
    json_t *rec = model_record(m, mr == WEIR_OK ? "succeeded" : "failed", started, ended, &res,
                               mr == WEIR_OK ? commit : NULL, &merr);
    if (mr == WEIR_OK) {
      /* The freshness of the output as written (docs/contracts.md, "Freshness SLA"): the
       * version this commit wrote is the one the run publishes, so its last change and
       * SLA are those `weir status` reports after the run. Best effort: a record without
       * it is still the run's record. */
      wr_table_entry e;
      json_t *fresh = NULL;
      weir_error fe = {0};
      if (catalog_table_get(lake->cat, commit, m->table, &e, &fe) == WEIR_OK) {
        if (lake_table_freshness(lake, &e, ended, &fresh, &fe) == WEIR_OK) json_object_set_new(rec, "freshness", fresh);
        wr_table_entry_clear(&e);
      }
      weir_error_clear(&fe);
    }
    if (m->lang == MODEL_PYTHON) {
      /* Where what the model printed went, and what held it. */
      char *log = wr_asprintf("%s/%s.log", rc.run_dir, m->name);
      json_object_set_new(rec, "log", json_string(log));
      free(log);
      if (rc.sandbox) json_object_set_new(rec, "sandbox", rc.sandbox);
      rc.sandbox = NULL;
    }
    weir_error e2 = {0};
    catalog_run_model(lake->cat, rc.run_id, rec, &e2);
    weir_error_clear(&e2);
    json_decref(rec);
    lake_progress(lake, json_pack("{s:s,s:s,s:I}", "phase", mr == WEIR_OK ? "done" : "failed", "model", m->name,
                                  "rows", (json_int_t)res.rows_written));
    stage_result_clear(&res);
    if (mr != WEIR_OK) {
      /* 5. The target is not touched; the run branch stays for debugging. */
      json_t *error = json_object();
      json_object_set_new(error, "model", json_string(m->name));
      json_object_set_new(error, "code", json_string(weir_error_name(merr.code)));
      json_object_set_new(error, "message", json_string(merr.message ? merr.message : ""));
      json_t *details = merr.details ? json_loads(merr.details, 0, NULL) : NULL;
      json_object_set_new(error, "details", details ? details : json_array());
      catalog_run_finish(lake->cat, rc.run_id, WEIR_RUN_FAILED, NULL, error, &e2);
      weir_error_clear(&e2);
      json_decref(error);
      r = merr.code ? merr.code : WEIR_EMODEL;
      wr_error_move(err, &merr);
      wr_error_prefix(err, "run %s failed (branch %s unchanged; %s kept)", rc.run_id, rc.branch, rc.run_branch);
      finish_json(&rc, out_json);
      goto out;
    }
  }

  /* 4. Publish: check the read set, merge, mark succeeded and drop the run branch, in one
   * catalog transaction (the write lock holds the target still from check to merge). */
  {
    char *msg = wr_asprintf("run %s of %s", rc.run_id, rc.p->name);
    wr_merge_request mreq = {0};
    mreq.source = rc.run_branch;
    mreq.into = rc.branch;
    mreq.message = msg;
    mreq.author = lake->author;
    mreq.run_id = rc.run_id;
    mreq.base = rc.base;
    json_t *merged = NULL;
    weir_error e2 = {0};
    char target_head[WEIR_HASH_HEX_SIZE] = "";
    pipeline_gate *gate = NULL;
    r = WEIR_FAILPOINT("run.publish.before", &e2);
    /* The target's merge gate (gate.c), loaded before the lock, checked under it. */
    if (r == WEIR_OK) r = pipeline_gate_prepare(lake, rc.run_branch, rc.branch, &gate, &e2);
    if (r == WEIR_OK) r = catalog_tx_begin(lake->cat, true, &e2);
    if (r == WEIR_OK) r = catalog_ref_get(lake->cat, WEIR_REF_BRANCH, rc.branch, target_head, &e2);
    if (r == WEIR_OK) r = check_read_set(&rc, target_head, &e2);
    if (r == WEIR_OK) r = catalog_merge(lake->cat, &mreq, &merged, &e2);
    if (r == WEIR_OK && gate) r = pipeline_gate_check(lake, gate, merged, &e2);
    pipeline_gate_free(gate);
    if (r == WEIR_OK) {
      const char *result = wr_json_str(merged, "commit", NULL);
      r = catalog_run_finish(lake->cat, rc.run_id, WEIR_RUN_SUCCEEDED, result, NULL, &e2);
    }
    /* The run branch has served its purpose; its commits stay reachable from the target. */
    if (r == WEIR_OK) r = catalog_ref_delete(lake->cat, WEIR_REF_BRANCH, rc.run_branch, &e2);
    if (r == WEIR_OK) r = WEIR_FAILPOINT("run.publish.commit", &e2); /* all done but COMMIT */
    if (r == WEIR_OK) r = catalog_tx_commit(lake->cat, &e2);
    else catalog_tx_rollback(lake->cat);
    if (r == WEIR_OK) (void)WEIR_FAILPOINT("run.publish.after", &e2); /* published: kill only */
    free(msg);
    json_decref(merged);
    int why = r != WEIR_OK ? (e2.code ? e2.code : r) : WEIR_OK;
    *retryable = why == WEIR_ESTALEREAD || why == WEIR_ECONFLICT || why == WEIR_ECONCURRENT;
    if (r != WEIR_OK && (e2.code ? e2.code : r) == WEIR_ECONFLICT) {
      /* The target moved while the run ran, on the same tables: say by what, and what to
       * do, since the run's own work was fine. */
      char now[WEIR_HASH_HEX_SIZE] = "";
      weir_error e4 = {0};
      if (catalog_ref_get(lake->cat, WEIR_REF_BRANCH, rc.branch, now, &e4) == WEIR_OK) {
        char *who = NULL;
        json_t *runs = NULL;
        weir_error e5 = {0};
        /* The newest run that published to the branch since, if a run did. */
        if (catalog_runs(lake->cat, 50, &runs, &e5) == WEIR_OK) {
          size_t i;
          json_t *x;
          int64_t mine = -1;
          json_array_foreach(runs, i, x) if (strcmp(wr_json_str(x, "run_id", ""), rc.run_id) == 0)
              mine = (int64_t)json_integer_value(json_object_get(x, "started"));
          json_array_foreach(runs, i, x) {
            const char *id = wr_json_str(x, "run_id", "");
            if (!who && mine >= 0 && strcmp(wr_json_str(x, "status", ""), "succeeded") == 0 &&
                strcmp(wr_json_str(x, "branch", ""), rc.branch) == 0 && strcmp(id, rc.run_id) != 0 &&
                (int64_t)json_integer_value(json_object_get(x, "ended")) >= mine)
              who = wr_asprintf("run %s published to it", id);
          }
        }
        json_decref(runs);
        weir_error_clear(&e5);
        wr_buf b = WEIR_BUF_INIT;
        wr_buf_printf(&b, "%s; %s moved from %.12s to %.12s while this run ran%s%s%s: run the project again "
                            "to build on the new head (--retry N does so automatically)",
                        e2.message ? e2.message : "merge conflict", rc.branch, rc.base, now, who ? " (" : "",
                        who ? who : "", who ? ")" : "");
        free(who);
        char *details = e2.details ? wr_strdup(e2.details) : NULL;
        int code = e2.code;
        weir_error_clear(&e2);
        wr_seterr(&e2, code, "%s", wr_buf_cstr(&b));
        if (details) {
          json_t *d = json_loads(details, 0, NULL);
          if (d) wr_error_set_details(&e2, d);
          free(details);
        }
        wr_buf_free(&b);
      }
      weir_error_clear(&e4);
    }
    if (r != WEIR_OK) {
      json_t *error = json_object();
      json_object_set_new(error, "model", json_null());
      json_object_set_new(error, "code", json_string(weir_error_name(e2.code ? e2.code : r)));
      json_object_set_new(error, "message", json_string(e2.message ? e2.message : "merge failed"));
      json_t *details = e2.details ? json_loads(e2.details, 0, NULL) : NULL;
      json_object_set_new(error, "details", details ? details : json_array());
      weir_error e3 = {0};
      catalog_run_finish(lake->cat, rc.run_id, WEIR_RUN_FAILED, NULL, error, &e3);
      weir_error_clear(&e3);
      json_decref(error);
      wr_error_move(err, &e2);
      if (why != WEIR_ESTALEREAD) /* that message already says which run and what was kept */
        wr_error_prefix(err, "run %s failed while publishing to %s (%s kept)", rc.run_id, rc.branch,
                        rc.run_branch);
      finish_json(&rc, out_json);
      goto out;
    }
    weir_error_clear(&e2);
  }
  /* 5. Published: each output whose table sets weir.compact.min-files is compacted on the
   * target when it has more small files than that (a commit of its own after the run's;
   * a failure leaves the run published and is reported, as after an import). */
  rc.compactions = json_array();
  for (size_t i = 0; i < rc.p->n_models; i++) {
    bool seen = false;
    for (size_t k = 0; k < i && !seen; k++) seen = strcmp(rc.p->models[k].table, rc.p->models[i].table) == 0;
    json_t *c = seen ? NULL : lake_compact_after_append(lake, rc.p->models[i].table, rc.branch);
    if (c && !json_object_get(c, "table")) json_object_set_new(c, "table", json_string(rc.p->models[i].table));
    if (c) json_array_append_new(rc.compactions, c);
  }
  finish_json(&rc, out_json);
  goto out;

fail: {
  weir_error e3 = {0};
  json_t *error = json_pack("{s:n,s:s,s:s}", "model", "code", weir_error_name(r), "message",
                            err && err->message ? err->message : "the run could not start");
  catalog_run_finish(lake->cat, rc.run_id, WEIR_RUN_FAILED, NULL, error, &e3);
  weir_error_clear(&e3);
  json_decref(error);
}
out:
  if (rc.worker_started) pipeline_worker_stop(&rc.worker);
  json_decref(rc.sandbox);
  json_decref(rc.compactions);
  if (rc.engine) lake_engine_put(lake, rc.engine, LAKE_ENGINE_WAREHOUSE);
  free(rc.run_dir);
  pipeline_project_free(rc.p);
  return r;
}

int pipeline_project_run(weir_lake *lake, const char *project_dir, const weir_run_options *opts,
                     char **out_json, weir_error *err) {
  *out_json = NULL;
  int retries = opts ? opts->retries : 0;
  if (retries < 0) return wr_seterr(err, WEIR_EINVALIDARG, "retries must be 0 or more, not %d", retries);
  if (retries > 0 && opts->expect_head)
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "a run with an expected head cannot be retried: a retry plans again on the branch's new head");
  json_t *earlier = json_array();
  int r;
  for (int attempt = 0;; attempt++) {
    bool retryable = false;
    r = run_once(lake, project_dir, opts, &retryable, out_json, err);
    if (r == WEIR_OK || !retryable || attempt >= retries || atomic_load(&lake->interrupted)) break;
    /* The target moved under the run: plan and run again on its new head. The failed
     * attempt stays recorded (status failed, its branch kept). */
    json_t *run = *out_json ? json_loads(*out_json, 0, NULL) : NULL;
    const char *id = wr_json_str(run, "run_id", NULL);
    if (id) json_array_append_new(earlier, json_string(id));
    json_decref(run);
    free(*out_json);
    *out_json = NULL;
    lake_progress(lake, json_pack("{s:s,s:i,s:s}", "phase", "retry", "attempt", attempt + 2, "reason",
                                  err && err->message ? err->message : ""));
    weir_error_clear(err);
  }
  if (json_array_size(earlier) > 0 && *out_json) {
    json_t *run = json_loads(*out_json, 0, NULL);
    if (run) {
      json_object_set(run, "retried_runs", earlier);
      weir_free(*out_json);
      *out_json = wr_doc_dump(WR_DOC_RUN, run);
    }
  }
  json_decref(earlier);
  return r;
}

/* ---- run records ----------------------------------------------------------------------- */

int pipeline_run_list(weir_lake *lake, char **out_json, weir_error *err) {
  *out_json = NULL;
  json_t *runs = NULL;
  int rc = catalog_runs(lake->cat, 0, &runs, err);
  if (rc) return rc;
  size_t i;
  json_t *run;
  json_array_foreach(runs, i, run) decorate_run(run);
  *out_json = wr_doc_dump(WR_DOC_RUN_LIST, runs);
  return *out_json ? WEIR_OK : wr_oom(err);
}

int pipeline_run_show(weir_lake *lake, const char *run_id, char **out_json, weir_error *err) {
  *out_json = NULL;
  if (!run_id || !*run_id) return wr_seterr(err, WEIR_EINVALIDARG, "no run id given");
  json_t *run = NULL;
  int rc = catalog_run_get(lake->cat, run_id, &run, err);
  if (rc == WEIR_ENOTFOUND) return wr_seterr(err, WEIR_ENOTFOUND, "run %s does not exist (see weir runs)", run_id);
  if (rc) return rc;
  decorate_run(run);
  *out_json = wr_doc_dump(WR_DOC_RUN, run);
  return *out_json ? WEIR_OK : wr_oom(err);
}
