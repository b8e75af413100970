/*
 * pipeline.h -- pipeline projects: discovery of SQL and Python models and their
 * contracts, planning (stage 2 of docs/contracts.md), and transactional runs
 * (docs/versioning.md, "Transactional run").
 *
 * A project is loaded into a wr_project: models with their inputs and output
 * contracts, the schemas they name, and every problem found on the way. Planning
 * resolves inputs against the catalog at a commit, orders the DAG and checks that every
 * edge composes; running executes the plan on a temporary branch and publishes it with
 * one merge.
 */
#ifndef WEIR_PIPELINE_PIPELINE_H
#define WEIR_PIPELINE_PIPELINE_H

#include <jansson.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include "lake/lake.h"
#include "pipeline/sandbox.h"

typedef enum model_lang { MODEL_SQL = 0, MODEL_PYTHON = 1 } model_lang;

typedef struct model_input {
  char *param;           /* Python parameter name; NULL for SQL inputs */
  char *name;            /* as written: "titanic", "raw.orders", "f" */
  char *table;           /* resolved table identifier "ns.name" */
  int producer;          /* index of the model producing it, or -1 (a catalog table) */
  char *filter;          /* Python Model(filter=...) */
  char *ref;             /* Python Model(ref=...) */
  char *schema_name;     /* projection schema, or NULL (unchecked input) */
  json_t *columns;       /* Python Model(columns=[...]): the columns read, unchecked; or NULL */
  const weir_contract *schema; /* resolved projection schema (borrowed) */
  int line;
} model_input;

typedef struct pipeline_model {
  char *name;
  model_lang lang;
  char *file;            /* relative to the project folder */
  int line;
  char *sql;             /* SQL models: the statement */
  char *function;        /* Python models: function name */
  bool append;           /* materialization APPEND (default REPLACE) */
  char *output_schema_name;
  json_t *partition_by;  /* -- weir: partition_by=day(ts) / @weir.model(partition_by=...):
                            array of partition fields, or NULL */
  int partition_line;    /* where it was declared */
  const weir_contract *output; /* resolved output contract (borrowed), or NULL */
  char *doc;             /* Python docstring */
  json_t *python;        /* {"version", "pip"} for Python models, or NULL */
  sandbox_limits limits; /* Python models: @weir.python(memory=, timeout=, cpu_time=) */
  bool internet;         /* Python models: @weir.python(internet_access=True) */
  model_input *inputs;
  size_t n_inputs;
  char *table;           /* output table "ns.name" */
  wr_schema planned;   /* output columns known at plan time (declared or inferred) */
  bool planned_known;
  bool planned_declared; /* planned comes from a declared schema: its nullability is a
                            promise; an inferred schema's is unknown */
  int output_line;       /* where the output schema is named (SQL header line) */
  bool unparsable;       /* the SQL did not parse (reported once, not again by planning) */
  json_t *exact_casts;   /* columns the plan casts exactly (declared cast "exact"): [{column,
                            from (the type being narrowed, null when only the run knows), to,
                            input (null for the output, else the parameter or table)}] */
  json_t *nullability;   /* SQL models: what the plan proved of each output column's
                            nullability (wr_engine_sql_nullability), or NULL */
} pipeline_model;

typedef struct wr_project {
  char *dir;             /* absolute */
  char *name;
  char *ns;              /* namespace of model outputs (default "default") */
  pipeline_model *models;
  size_t n_models;
  weir_contract **schemas; /* owned: YAML contracts and Python TableSchemas */
  size_t n_schemas;
  size_t *order;         /* execution order (indices into models) after planning */
  size_t n_order;
  json_t *problems;      /* array of {file, line, model, column, expected, found, message} */
  json_t *warnings;      /* array of {file, line, model, message}: plans, but look twice */
  json_t *unloaded;      /* what files with a problem (reported) declare, so that a model
                            using it is not told again that it does not exist: {"sql": [SQL
                            models whose file has a problem], "models": [Python models of
                            files that did not load], "schemas": [schemas of those files
                            and of YAML contracts that did not load], "opaque": [files that
                            did not load and whose names are unknown]} */
  json_t *python;        /* wr_project.yml `python: {version, pip}`: the environment of
                            Python models that do not name one with @weir.python, or NULL */
  char digest[WEIR_HASH_HEX_SIZE]; /* SHA-256 over the project's files */
  wr_engine *engine;   /* one engine, with no file access, for parsing and planning all
                            models (starting DuckDB is ~10 ms: once per plan, not per model) */
} wr_project;

void pipeline_project_free(wr_project *p);

/* Adds a problem. Any of file/model/column/expected/found may be NULL; line 0 = none. */
void pipeline_problem(wr_project *p, const char *file, int line, const char *model,
                      const char *column, const char *expected, const char *found,
                      const char *fmt, ...) __attribute__((format(printf, 8, 9)));

/* Finds models and contracts in `dir` (SQL files, YAML contracts, Python via the SDK's
 * discovery). Problems in project files are recorded in p->problems; the return value is
 * an error only when the project cannot be read at all (missing folder, no Python).
 * Discovery imports the project's Python files, so it runs in the sandbox of project
 * code (docs/sandbox.md) with `lake_dir` protected, unless `unsandboxed`; where the
 * kernel offers no sandbox that is WEIR_EUNSUPPORTED, saying why. */
int pipeline_load(weir_lake *lake, const char *dir, bool unsandboxed, wr_project **out, weir_error *err);

/* An empty project for folder `dir` (no models, no problems yet); free with
 * pipeline_project_free. */
wr_project *pipeline_project_new(const char *dir);

/* Adds what discovery printed (`text`, its JSON document; docs/worker.md) to `p`: schemas,
 * Python models with their inputs and sandbox limits, and problems. The text comes from a
 * process that ran the project's code, so it is untrusted: a malformed field is a problem,
 * a document that is not JSON an error (WEIR_EMODEL). */
int pipeline_discovery_apply(wr_project *p, const char *text, size_t len, weir_error *err);

/* Parses the `-- weir:` header of a SQL model. */
int pipeline_parse_sql_model(wr_project *p, const char *file, const char *text,
                             pipeline_model *out);

/* The schema (YAML contract or TableSchema) named `name`, or NULL. */
const weir_contract *pipeline_schema(const wr_project *p, const char *name);

/* Plans against the catalog at commit `hash`: resolves inputs, orders the DAG, runs the
 * stage-2 checks. Problems are added to p->problems. */
int pipeline_plan(weir_lake *lake, wr_project *p, const char *hash, weir_error *err);

/* The plan as JSON: {ok, project, ref, commit, models: [...], problems: [...]}. */
/* The models of `p` (planned) that read `affected` columns (names; all of them when
 * `all`) of `table`, directly or downstream through their outputs (impact.c), except the
 * model named `except` (NULL: none): [{model, file, line, table, columns, via (the model
 * whose output carries the change, null when read directly)}]. New reference. */
json_t *pipeline_readers(wr_project *p, const char *table, const json_t *affected, bool all, const char *except);
/* The breaking contract changes of a planned project at commit `hash`: every model whose
 * declared output contract breaks the stored contract of its table there, each the
 * wr_contract_diff document plus {table, model, file, line, readers (pipeline_readers)}.
 * *out a new array (empty when none). Errors: reading the table's metadata. */
int pipeline_breaking_changes(weir_lake *lake, wr_project *p, const char *hash, json_t **out, weir_error *err);
json_t *pipeline_plan_json(const wr_project *p, const char *ref, const char *hash);

/* weir_branch_merge with the merge gate (gate.c): the checks `into` requires plus
 * opts->checks, planned at the merged state inside the merge's transaction. */
int pipeline_branch_merge(weir_lake *lake, const char *source, const char *into, const weir_merge_options *opts,
                          char **out_json, weir_error *err);

/* The gate of merges into `into` for a caller that merges itself (a run publishing):
 * prepare loads the projects `into` requires (*out NULL when `into` is not protected), outside
 * any transaction; check runs inside the caller's write transaction after its merge
 * (`merged`: the merge document); a failure means roll back. `source` is borrowed for
 * messages. */
typedef struct pipeline_gate pipeline_gate;
int pipeline_gate_prepare(weir_lake *lake, const char *source, const char *into, pipeline_gate **out,
                          weir_error *err);
int pipeline_gate_check(weir_lake *lake, pipeline_gate *gate, const json_t *merged, weir_error *err);
void pipeline_gate_free(pipeline_gate *gate);

/* Fills err with WEIR_EPLAN and a message listing every problem. */
int pipeline_plan_error(const wr_project *p, weir_error *err);

/* ---- running ------------------------------------------------------------------------ */

/* The Python interpreter used for discovery and workers: weir_lake_options.python, else
 * the build tree's .venv, else python3 (owned by the handle). */
const char *pipeline_python(weir_lake *lake);

/* Runs `argv` with `stdin_text` on its stdin; captures stdout into *out (caller frees)
 * and sends stderr to `log_path` (or captures it into *errtext when log_path is NULL).
 * *status receives the exit status (or 128 + signal). */
int pipeline_spawn(char *const argv[], const char *cwd, const char *stdin_text,
                   const char *log_path, char **out, char **errtext, int *status,
                   weir_error *err);
/* The same, stopping the child (SIGTERM to its process group, SIGKILL after a grace
 * period) as soon as *cancel becomes non-zero; *status is then 128 + SIGTERM/SIGKILL. */
int pipeline_spawn_cancellable(char *const argv[], const char *cwd, const char *stdin_text,
                               const char *log_path, char **out, char **errtext, int *status,
                               atomic_int *cancel, weir_error *err);

/* pipeline_spawn with every option: an environment, a sandbox (entered before exec; the
 * child then gets its own session and dies with SIGKILL), and the runner's watch of a
 * wall-clock timeout and a resident-memory limit (the child's process group is killed;
 * timed_out / memory_exceeded say so). */
typedef struct pipeline_spawn_opts {
  const char *cwd;
  const char *stdin_text;
  const char *log_path;            /* stderr appended here; NULL: captured into *errtext */
  char *const *envp;               /* NULL: this process's environment */
  const sandbox_prepared *sandbox; /* NULL: none */
  double timeout_s;                /* <= 0: none */
  int64_t memory_limit;            /* resident bytes; <= 0: none */
  atomic_int *cancel;              /* may be NULL: weir_lake.interrupted */
  size_t max_output;               /* bytes of stdout and stderr kept; past it the child is
                                      killed (output_exceeded). 0: no bound */
  bool timed_out, memory_exceeded, output_exceeded; /* out */
} pipeline_spawn_opts;
int pipeline_spawn_with(char *const argv[], pipeline_spawn_opts *opts, char **out, char **errtext,
                        int *status, weir_error *err);

/* ---- the sandbox of project code (code_sandbox.c) ------------------------------------ */

/* The policy for code of project `project_dir`: `roots` (a JSON array of the folders
 * its interpreter reads and runs, from pipeline_python_env) readable and executable, the
 * project readable, a new private temporary folder (named after `label`) writable, the
 * lake at `lake_dir` protected. Default limits; the caller sets limits and internet.
 * Errors: WEIR_EINVALIDARG (the project lies inside the lake), WEIR_EIO. */
int pipeline_code_sandbox(const char *project_dir, const char *lake_dir, const json_t *roots,
                          const char *label, sandbox_policy *out, weir_error *err);
/* Removes the temporary folder and frees the policy. */
void pipeline_code_sandbox_done(sandbox_policy *p);
/* The environment of sandboxed code (a NULL-terminated array; free with
 * pipeline_code_environment_free): the runner's locale, time zone, PYTHONPATH and
 * thread-count variables, with internet access its proxy and certificate variables,
 * HOME and TMPDIR the private folder; none of its other variables (credentials). */
char **pipeline_code_environment(const sandbox_policy *p);
void pipeline_code_environment_free(char **env);

/* The interpreter of the environment a Python model asks for (prepared and cached by
 * `python -m weir.envs prepare`; NULL spec: the SDK's own, pipeline_python()), and, when
 * `roots` is not NULL, the folders it reads and runs, for its sandbox (*roots: a new
 * reference to a JSON array of absolute paths). Cached in the lake handle for its life
 * (used by the handle's thread only). Errors: WEIR_EMODEL (the environment cannot be made), WEIR_ENOTFOUND. */
int pipeline_python_env(weir_lake *lake, const json_t *python_spec, char **out_interpreter, json_t **roots,
                        weir_error *err);

/* The libweir a Python worker loads: weir_lake_options.worker_library, else the absolute
 * path of the loaded libweir shared library (owned by the handle). */
const char *pipeline_library_path(weir_lake *lake);

/* The implementations of weir_project_check, weir_project_run, weir_run_list and
 * weir_run_show (src/api/ checks the arguments and the options version first). */
int pipeline_project_check(weir_lake *lake, const char *project_dir, const char *ref, char **out_json,
                           weir_error *err);
int pipeline_project_readers(weir_lake *lake, const char *project_dir, const char *ref, const char *table,
                             const char *diff_json, char **out_json, weir_error *err);
int pipeline_project_run(weir_lake *lake, const char *project_dir, const weir_run_options *opts, char **out_json,
                         weir_error *err);
int pipeline_run_list(weir_lake *lake, char **out_json, weir_error *err);
int pipeline_run_show(weir_lake *lake, const char *run_id, char **out_json, weir_error *err);

#endif
