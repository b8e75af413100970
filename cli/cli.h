/*
 * cli.h -- the weir command line: command table, argument parsing, output helpers.
 *
 * The CLI uses only the public API (include/weir.h); the JSON documents the library
 * returns are printed as they are with --json and formatted for people otherwise, so the
 * two surfaces can never disagree.
 */
#ifndef WEIR_CLI_H
#define WEIR_CLI_H

#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include "weir.h"

#define CLI_MAX_OPTS 24
#define CLI_MAX_MULTI 32
#define CLI_MAX_POS 64 /* weir import --register takes many files */

/* One option a command accepts. */
typedef struct cli_opt {
  const char *name;     /* long name without dashes, e.g. "table" */
  char short_name;      /* 0 when none */
  const char *metavar;  /* NULL for a flag without a value */
  const char *help;
} cli_opt;

typedef struct cli_parsed {
  const char *pos[CLI_MAX_POS];
  int n_pos;
  const char *values[CLI_MAX_OPTS]; /* by index in the command's option table; flags "1" */
  int multi_opt[CLI_MAX_MULTI];      /* every value given to an option, in order (values[] */
  const char *multi[CLI_MAX_MULTI];  /* keeps the last): read with cli_opt_values */
  int n_multi;
} cli_parsed;

typedef struct cli_ctx {
  const char *lake_path;
  bool json;
  int verbosity;        /* -1 quiet, 0 normal, 1 verbose */
  bool progress;        /* show progress on stderr */
  weir_lake *lake;      /* opened on first use */
  int64_t started_us;
} cli_ctx;

struct cli_command;
typedef int (*cli_run_fn)(cli_ctx *ctx, const struct cli_command *cmd, cli_parsed *args);

typedef struct cli_command {
  const char *name;      /* "import", "branch create" */
  const char *args;      /* positional arguments for usage, e.g. "FILE" */
  const char *summary;   /* one line */
  const char *details;   /* paragraph(s) for --help, may be NULL */
  const char *example;
  const cli_opt *opts;   /* NULL-terminated by name == NULL */
  int min_pos, max_pos;
  cli_run_fn run;
} cli_command;

/* The option value by long name, or NULL. */
const char *cli_opt_value(const cli_command *cmd, const cli_parsed *args, const char *name);
bool cli_flag(const cli_command *cmd, const cli_parsed *args, const char *name);
/* Every value of a repeatable option (--check A --check B), in order: up to `max` into
 * out; returns how many there are. */
size_t cli_opt_values(const cli_command *cmd, const cli_parsed *args, const char *name, const char **out, size_t max);

/* Opens the lake (once). Prints the error and returns its exit code on failure. */
int cli_lake(cli_ctx *ctx, weir_lake **out);

/* Prints `error: <message>` (and the JSON error document on stdout with --json) and
 * returns the exit code for the error. Clears err. */
int cli_report_error(cli_ctx *ctx, weir_error *err);
/* The lake options from the CLI's environment variables ($WEIR_AUTHOR, $WEIR_THREADS, ...).
 * WEIR_EINVALIDARG (filled into err) for a malformed value. */
int cli_lake_options(weir_lake_options *o, weir_error *err);
/* A usage error (exit 2) with a hint to --help. */
int cli_usage_error(cli_ctx *ctx, const cli_command *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The common tail of a command that asks the library for a JSON document: on an error
 * (`rc` non-zero) reports it; with --json prints `out` as it is. Either way returns the
 * exit code, having freed `out`; returns -1 instead when the caller should format *doc
 * (parsed from `out`, to decref) for people. */
int cli_json_result(cli_ctx *ctx, int rc, weir_error *err, char *out, json_t **doc);

/* Prints a JSON document string (library output) on stdout and frees it. */
void cli_print_json_text(char *json_text);
/* Prints a json_t on stdout (pretty) and decrefs it. */
void cli_print_json(json_t *v);
/* {code, exit_code, message, details} of an error, for the --json error document
 * (docs/json.md, docs/schema/error.schema.json). New reference. */
json_t *cli_error_json(const weir_error *err);

/* First 12 characters of a hash into out (13 bytes). */
const char *cli_short(const char *hash, char out[13]);

/* An aligned text table. */
typedef struct cli_table {
  int ncols;
  const char **headers;
  bool *right;         /* right-align column i */
  char **cells;        /* row-major, owned */
  int nrows, cap;
} cli_table;

void cli_table_init(cli_table *t, int ncols, const char **headers);
void cli_table_right(cli_table *t, int col);
void cli_table_add(cli_table *t, ...);  /* ncols const char * (NULL prints as empty) */
void cli_table_addv(cli_table *t, char **cells_moved);
void cli_table_print(cli_table *t, FILE *out);
void cli_table_free(cli_table *t);

/* Commands, by file. */
extern const cli_command CLI_COMMANDS[];
extern const int CLI_N_COMMANDS;

int cmd_init(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_import(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_tables(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_describe(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_query(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_branch_list(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_branch_create(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_branch_delete(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_tag_list(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_tag_create(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_tag_delete(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_log(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_show(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_diff(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_merge(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_revert(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_check(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_run(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_runs_list(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_runs_show(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_serve(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_token_create(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_token_list(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_token_revoke(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_branch_protect(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_gc(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_branch_prune(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_branch_unprotect(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_namespace_create(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_namespace_list(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_namespace_drop(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_table_drop(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_table_register(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_import_register(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_table_rename(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_status(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_compact(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_delete(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_alter(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_contract_diff(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_mcp(cli_ctx *, const cli_command *, cli_parsed *);
int cmd_lsp(cli_ctx *, const cli_command *, cli_parsed *);

/* Prints a contract diff document (weir_contract_diff, plus table and readers) for people,
 * each line after `prefix`; returns whether it is breaking. */
bool cli_print_breaking(const json_t *diff, const char *prefix);
/* The exit code for breaking changes `changes` (diff documents): 3 when one breaks and
 * `allow` is false, or breaks without a higher major version (whatever `allow`), with
 * the reason on stderr naming `what`; else 0. */
int cli_breaking_exit(const json_t *changes, bool allow, const char *what);

/* Human report of contract warnings/drops in a report object, on stderr. */
void cli_print_report_notes(cli_ctx *ctx, const json_t *report, const char *what);

#endif
