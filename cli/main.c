/*
 * main.c -- entry point: global options, command lookup, --help, exit codes.
 *
 * Like git, options may come before or after the command and its arguments; global
 * options (--lake, --json, -q, -v, --no-progress) are accepted everywhere. Every command
 * answers --help (or `weir help COMMAND`) with its usage, options and an example, and
 * `weir --help` (or `weir help`) lists them all, so a person or an agent can discover the whole surface by walking --help.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <unistd.h>

#include "cli.h"

static const cli_opt GLOBAL_OPTS[] = {
    {"lake", 0, "PATH", "the lake (default: $WEIR_LAKE, else the nearest ./.weir walking up)"},
    {"json", 0, NULL, "machine-readable output: one JSON document on stdout"},
    {"quiet", 'q', NULL, "less output on stderr"},
    {"verbose", 'v', NULL, "more output on stderr"},
    {"no-progress", 0, NULL, "no progress display (also off when stderr is not a terminal)"},
    {"help", 'h', NULL, "show help for the command"},
    {NULL, 0, NULL, NULL}};

static void print_opts(FILE *out, const cli_opt *opts) {
  for (const cli_opt *o = opts; o && o->name; o++) {
    char left[64];
    if (o->short_name)
      snprintf(left, sizeof left, "-%c, --%s%s%s", o->short_name, o->name, o->metavar ? " " : "",
               o->metavar ? o->metavar : "");
    else
      snprintf(left, sizeof left, "    --%s%s%s", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
    fprintf(out, "  %-28s %s\n", left, o->help);
  }
}

static void command_help(const cli_command *cmd, FILE *out) {
  fprintf(out, "usage: weir %s%s%s", cmd->name, cmd->args && *cmd->args ? " " : "", cmd->args ? cmd->args : "");
  for (const cli_opt *o = cmd->opts; o && o->name; o++) {
    char flag[64];
    snprintf(flag, sizeof flag, "--%s", o->name);
    if (cmd->args && strstr(cmd->args, flag)) continue; /* required: already in the usage */
    fprintf(out, " [--%s%s%s]", o->name, o->metavar ? " " : "", o->metavar ? o->metavar : "");
  }
  fprintf(out, "\n\n%s\n", cmd->summary);
  if (cmd->details) fprintf(out, "\n%s\n", cmd->details);
  if (cmd->opts && cmd->opts->name) {
    fprintf(out, "\noptions:\n");
    print_opts(out, cmd->opts);
  }
  fprintf(out, "\nglobal options:\n");
  print_opts(out, GLOBAL_OPTS);
  fprintf(out, "\nexample:\n  %s\n", cmd->example);
}

/* Sub-commands of a group (e.g. "branch"), for `weir branch --help`. */
static void group_help(const char *group, FILE *out) {
  size_t gl = strlen(group);
  fprintf(out, "usage: weir %s <command> ...\n\ncommands:\n", group);
  for (int i = 0; i < CLI_N_COMMANDS; i++) {
    const cli_command *c = &CLI_COMMANDS[i];
    if (strncmp(c->name, group, gl) == 0 && (c->name[gl] == ' ' || c->name[gl] == 0))
      fprintf(out, "  weir %-22s %s\n", c->name, c->summary);
  }
  fprintf(out, "\nRun `weir %s <command> --help` for one command.\n", group);
}

static void main_help(FILE *out) {
  fprintf(out,
          "usage: weir [--lake PATH] [--json] [-q|-v] [--no-progress] <command> [args]\n\n"
          "weir: a lakehouse where data contracts are types and the whole catalog is versioned "
          "like Git.\n\ncommands:\n");
  for (int i = 0; i < CLI_N_COMMANDS; i++)
    fprintf(out, "  %-24s %s\n", CLI_COMMANDS[i].name, CLI_COMMANDS[i].summary);
  fprintf(out, "\nglobal options:\n");
  print_opts(out, GLOBAL_OPTS);
  fprintf(out,
          "\nexit codes: 0 success, 1 error, 2 usage error, 3 contract or plan violation, "
          "4 merge conflict or concurrent update\n"
          "Run `weir help <command>` (or `weir <command> --help`) for a command's options and an example.\n");
}

/* Looks up the command named by the first non-option words of argv. Returns the number
 * of words used, or 0. */
static int find_command(int argc, char **argv, int start, const cli_command **out) {
  const char *words[2] = {NULL, NULL};
  int idx[2] = {-1, -1};
  int nw = 0;
  for (int i = start; i < argc && nw < 2; i++) {
    if (argv[i][0] == '-') {
      /* skip a global option's value so "--lake X branch" works */
      if (strcmp(argv[i], "--lake") == 0) i++;
      continue;
    }
    words[nw] = argv[i];
    idx[nw++] = i;
  }
  *out = NULL;
  if (nw == 0) return 0;
  if (nw == 2) {
    char two[128];
    snprintf(two, sizeof two, "%s %s", words[0], words[1]);
    for (int i = 0; i < CLI_N_COMMANDS; i++)
      if (strcmp(CLI_COMMANDS[i].name, two) == 0) {
        *out = &CLI_COMMANDS[i];
        argv[idx[0]] = NULL;
        argv[idx[1]] = NULL;
        return 2;
      }
  }
  for (int i = 0; i < CLI_N_COMMANDS; i++)
    if (strcmp(CLI_COMMANDS[i].name, words[0]) == 0) {
      *out = &CLI_COMMANDS[i];
      argv[idx[0]] = NULL;
      return 1;
    }
  return 0;
}

static bool is_group(const char *word) {
  size_t n = strlen(word);
  for (int i = 0; i < CLI_N_COMMANDS; i++)
    if (strncmp(CLI_COMMANDS[i].name, word, n) == 0 && CLI_COMMANDS[i].name[n] == ' ') return true;
  return false;
}

static const cli_opt *match_opt(const cli_opt *opts, const char *arg, int *index) {
  for (int i = 0; opts && opts[i].name; i++) {
    if (arg[1] == '-') {
      const char *name = arg + 2;
      size_t len = strcspn(name, "=");
      if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0) {
        *index = i;
        return &opts[i];
      }
    } else if (opts[i].short_name && arg[1] == opts[i].short_name && (arg[2] == 0 || opts[i].metavar)) {
      /* -n 10, or -n10 for an option that takes a value (as getopt allows). */
      *index = i;
      return &opts[i];
    }
  }
  return NULL;
}

int main(int argc, char **argv) {
  cli_ctx ctx = {0};
  ctx.progress = isatty(2);
  struct timeval tv;
  gettimeofday(&tv, NULL);
  ctx.started_us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;

  /* Global options first (anywhere on the line). */
  bool help = false, quiet = false, verbose = false;
  for (int i = 1; i < argc; i++) {
    if (!argv[i]) continue;
    if (strcmp(argv[i], "--") == 0) break;
    if (strcmp(argv[i], "--json") == 0) ctx.json = true;
    else if (strcmp(argv[i], "-q") == 0 || strcmp(argv[i], "--quiet") == 0) ctx.verbosity = -1, quiet = true;
    else if (strcmp(argv[i], "-v") == 0 || strcmp(argv[i], "--verbose") == 0) ctx.verbosity = 1, verbose = true;
    else if (strcmp(argv[i], "--no-progress") == 0) ctx.progress = false;
    else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) help = true;
    else if (strcmp(argv[i], "--version") == 0) {
      printf("weir %s\n", weir_version());
      return 0;
    } else if (strcmp(argv[i], "--lake") == 0 || strncmp(argv[i], "--lake=", 7) == 0) {
      if (argv[i][6] == '=') ctx.lake_path = argv[i] + 7;
      else if (i + 1 < argc) {
        ctx.lake_path = argv[i + 1];
        argv[i + 1] = NULL;
      } else {
        fprintf(stderr, "error: --lake needs a PATH\n");
        return 2;
      }
    } else {
      continue;
    }
    argv[i] = NULL;
  }
  if (quiet && verbose) {
    fprintf(stderr, "error: --quiet and --verbose ask for opposite things: give one of them\n");
    return 2;
  }
  if (ctx.verbosity < 0) ctx.progress = false;
  /* -v: progress events as lines, also when stderr is not a terminal (logs, CI). */
  if (ctx.verbosity > 0) ctx.progress = true;

  /* Compact argv (NULLs are consumed globals). */
  int n = 1;
  for (int i = 1; i < argc; i++)
    if (argv[i]) argv[n++] = argv[i];
  argc = n;

  /* `weir help` is `weir --help`; `weir help COMMAND...` is `weir COMMAND... --help`. */
  if (argc >= 2 && strcmp(argv[1], "help") == 0) {
    for (int i = 1; i + 1 < argc; i++) argv[i] = argv[i + 1];
    argc--;
    help = true;
  }

  const cli_command *cmd = NULL;
  if (argc < 2) {
    main_help(help ? stdout : stderr);
    return help ? 0 : 2;
  }
  find_command(argc, argv, 1, &cmd);
  if (!cmd) {
    const char *first = NULL;
    for (int i = 1; i < argc; i++)
      if (argv[i] && argv[i][0] != '-') {
        first = argv[i];
        break;
      }
    if (first && is_group(first)) {
      group_help(first, help ? stdout : stderr);
      return help ? 0 : 2;
    }
    if (!first) {
      main_help(help ? stdout : stderr);
      return help ? 0 : 2;
    }
    weir_error err = {0};
    err.code = WEIR_EINVALIDARG;
    char msg[512];
    snprintf(msg, sizeof msg, "unknown command \"%s\" (see weir --help)", first);
    err.message = strdup(msg);
    return cli_report_error(&ctx, &err);
  }
  if (help) {
    command_help(cmd, stdout);
    if (is_group(cmd->name)) {
      fputc('\n', stdout);
      group_help(cmd->name, stdout);
    }
    return 0;
  }

  cli_parsed args;
  memset(&args, 0, sizeof args);
  bool only_pos = false;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!a) continue;
    if (!only_pos && strcmp(a, "--") == 0) {
      only_pos = true;
      continue;
    }
    /* An option is -x or --name[=value]: a negative number or text with a space (SQL
     * starting with a "-- comment") is an argument. */
    bool looks_like_option = a[0] == '-' && a[1] != 0 && !(a[1] >= '0' && a[1] <= '9') &&
                             (!strchr(a, ' ') || (a[1] == '-' && strchr(a, '=') && strchr(a, '=') < strchr(a, ' ')));
    if (!only_pos && looks_like_option) {
      int index = -1;
      const cli_opt *o = match_opt(cmd->opts, a, &index);
      if (!o) return cli_usage_error(&ctx, cmd, "unknown option %s for weir %s", a, cmd->name);
      if (o->metavar) {
        const char *eq = strchr(a, '=');
        if (a[1] == '-' && eq) args.values[index] = eq + 1;
        else if (a[1] != '-' && a[2]) args.values[index] = a + 2;
        else if (i + 1 < argc && argv[i + 1]) args.values[index] = argv[++i];
        else return cli_usage_error(&ctx, cmd, "option --%s needs a value (%s)", o->name, o->metavar);
        if (args.n_multi == CLI_MAX_MULTI)
          return cli_usage_error(&ctx, cmd, "too many option values (at most %d)", CLI_MAX_MULTI);
        args.multi_opt[args.n_multi] = index;
        args.multi[args.n_multi++] = args.values[index];
        /* A metavar of several words ("OLD NEW", not a quoted "\"NAME TYPE\"") takes that
         * many arguments, kept in order in multi[]. */
        for (const char *m = o->metavar; o->metavar[0] != '"' && (m = strchr(m, ' ')) != NULL; m++) {
          if (i + 1 >= argc || !argv[i + 1])
            return cli_usage_error(&ctx, cmd, "option --%s needs %s", o->name, o->metavar);
          if (args.n_multi == CLI_MAX_MULTI)
            return cli_usage_error(&ctx, cmd, "too many option values (at most %d)", CLI_MAX_MULTI);
          args.multi_opt[args.n_multi] = index;
          args.multi[args.n_multi++] = argv[++i];
        }
      } else {
        args.values[index] = "1";
      }
      continue;
    }
    if (args.n_pos >= CLI_MAX_POS || args.n_pos >= cmd->max_pos)
      return cli_usage_error(&ctx, cmd, "unexpected argument \"%s\" for weir %s", a, cmd->name);
    args.pos[args.n_pos++] = a;
  }
  if (args.n_pos < cmd->min_pos)
    return cli_usage_error(&ctx, cmd, "weir %s needs %s", cmd->name, cmd->args);

  int rc = cmd->run(&ctx, cmd, &args);
  weir_lake_free(ctx.lake);
  fflush(stdout);
  return rc;
}

/* ---- shared helpers ------------------------------------------------------------------ */

const char *cli_opt_value(const cli_command *cmd, const cli_parsed *args, const char *name) {
  for (int i = 0; cmd->opts && cmd->opts[i].name; i++)
    if (strcmp(cmd->opts[i].name, name) == 0) return args->values[i];
  return NULL;
}

size_t cli_opt_values(const cli_command *cmd, const cli_parsed *args, const char *name, const char **out, size_t max) {
  int index = -1;
  for (int i = 0; cmd->opts && cmd->opts[i].name; i++)
    if (strcmp(cmd->opts[i].name, name) == 0) index = i;
  size_t n = 0;
  for (int i = 0; i < args->n_multi; i++)
    if (args->multi_opt[i] == index) {
      if (n < max) out[n] = args->multi[i];
      n++;
    }
  return n;
}

bool cli_flag(const cli_command *cmd, const cli_parsed *args, const char *name) {
  return cli_opt_value(cmd, args, name) != NULL;
}

json_t *cli_error_json(const weir_error *err) {
  json_t *e = json_object();
  json_object_set_new(e, "code", json_string(weir_error_name(err->code)));
  json_object_set_new(e, "exit_code", json_integer(weir_error_exit_code(err->code)));
  json_object_set_new(e, "message", json_string(err->message ? err->message : ""));
  json_t *d = err->details ? json_loads(err->details, 0, NULL) : NULL;
  json_object_set_new(e, "details", d ? d : json_array());
  return e;
}

int cli_report_error(cli_ctx *ctx, weir_error *err) {
  int code = weir_error_exit_code(err->code);
  fprintf(stderr, "error: %s\n", err->message ? err->message : weir_error_name(err->code));
  if (err->code == WEIR_ECONFLICT && err->details && ctx->verbosity >= 0) {
    json_t *d = json_loads(err->details, 0, NULL);
    size_t i;
    json_t *c;
    bool listed = err->message && strchr(err->message, '\n');
    if (!listed) {
      json_array_foreach(d, i, c) {
        const char *t = json_string_value(json_object_get(c, "table"));
        const char *ours = json_string_value(json_object_get(c, "ours"));
        const char *theirs = json_string_value(json_object_get(c, "theirs"));
        if (t) fprintf(stderr, "  - %s: target %s, source %s\n", t, ours ? ours : "?", theirs ? theirs : "?");
      }
    }
    json_decref(d);
  }
  if (ctx->json) {
    json_t *doc = json_object();
    json_object_set_new(doc, "error", cli_error_json(err));
    cli_print_json(doc);
  }
  weir_error_clear(err);
  return code;
}

int cli_usage_error(cli_ctx *ctx, const cli_command *cmd, const char *fmt, ...) {
  char msg[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  weir_error err = {0};
  err.code = WEIR_EINVALIDARG;
  err.message = strdup(msg);
  fprintf(stderr, "usage: weir %s%s%s (see weir %s --help)\n", cmd->name, cmd->args && *cmd->args ? " " : "",
          cmd->args ? cmd->args : "", cmd->name);
  return cli_report_error(ctx, &err);
}

static void progress_cb(const char *event_json, void *p) {
  cli_ctx *ctx = p;
  json_t *e = json_loads(event_json, 0, NULL);
  if (!e) return;
  struct timeval tv;
  gettimeofday(&tv, NULL);
  double secs = ((double)((int64_t)tv.tv_sec * 1000000 + tv.tv_usec - ctx->started_us)) / 1e6;
  const char *phase = json_string_value(json_object_get(e, "phase"));
  const char *what = json_string_value(json_object_get(e, "model"));
  if (!what) what = json_string_value(json_object_get(e, "table"));
  if (!what) what = json_string_value(json_object_get(e, "file"));
  json_t *rows = json_object_get(e, "rows");
  bool tty = isatty(2);
  fprintf(stderr, "%s%s %s", tty ? "\r\033[K" : "", phase ? phase : "", what ? what : "");
  if (json_is_integer(rows)) fprintf(stderr, ": %lld rows", (long long)json_integer_value(rows));
  fprintf(stderr, " (%.1fs)%s", secs, tty ? "" : "\n");
  fflush(stderr);
  json_decref(e);
}

/* A whole number from 0 to `max` in variable `name`, or WEIR_EINVALIDARG naming it. */
static int env_count(const char *name, int max, int *out, weir_error *err) {
  const char *v = getenv(name);
  if (!v || !*v) return WEIR_OK;
  char *end = NULL;
  errno = 0;
  long x = strtol(v, &end, 10);
  if (errno || *end || x < 0 || x > max) {
    weir_error_clear(err);
    err->code = WEIR_EINVALIDARG;
    size_t n = strlen(name) + strlen(v) + 64;
    err->message = malloc(n);
    if (err->message) snprintf(err->message, n, "$%s is '%s': expected a whole number from 0 to %d", name, v, max);
    return WEIR_EINVALIDARG;
  }
  *out = (int)x;
  return WEIR_OK;
}

static const char *env_str(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

/* The CLI's environment variables (docs/cli.md), mapped onto the lake's options: the
 * library itself reads none. */
int cli_lake_options(weir_lake_options *o, weir_error *err) {
  weir_lake_options_init(o, WEIR_LAKE_OPTIONS_VERSION);
  o->author = env_str("WEIR_AUTHOR");
  o->memory_limit = env_str("WEIR_MEMORY_LIMIT");
  o->python = env_str("WEIR_PYTHON");
  o->duckdb_library = env_str("WEIR_DUCKDB_LIBRARY");
  o->worker_library = env_str("WEIR_LIBRARY");
  int rc = env_count("WEIR_THREADS", 4096, &o->threads, err);
  if (!rc) rc = env_count("WEIR_CATALOG_BUSY_TIMEOUT_MS", 3600 * 1000, &o->busy_timeout_ms, err);
  if (rc) return rc;
  const char *sync = env_str("WEIR_CATALOG_SYNC");
  if (sync) {
    if (strcasecmp(sync, "full") == 0) o->catalog_sync = WEIR_SYNC_FULL;
    else if (strcasecmp(sync, "normal") == 0) o->catalog_sync = WEIR_SYNC_NORMAL;
    else {
      weir_error_clear(err);
      err->code = WEIR_EINVALIDARG;
      size_t n = strlen(sync) + 64;
      err->message = malloc(n);
      if (err->message) snprintf(err->message, n, "$WEIR_CATALOG_SYNC is '%s': expected 'normal' or 'full'", sync);
      return WEIR_EINVALIDARG;
    }
  }
  return WEIR_OK;
}

int cli_lake(cli_ctx *ctx, weir_lake **out) {
  if (!ctx->lake) {
    weir_error err = {0};
    weir_lake_options o;
    if (cli_lake_options(&o, &err) != WEIR_OK) return cli_report_error(ctx, &err);
    const char *path = ctx->lake_path;
    const char *env = env_str("WEIR_LAKE");
    if (!path && env) path = env;
    int rc = weir_lake_open(path, &o, &ctx->lake, &err);
    if (rc == WEIR_ENOTFOUND && !ctx->lake_path) {
      /* Say where the CLI looked: --lake, then $WEIR_LAKE, then the folders up from here. */
      char *msg = err.message;
      err.message = NULL;
      size_t n = (msg ? strlen(msg) : 0) + 128;
      err.message = malloc(n);
      if (err.message && env) snprintf(err.message, n, "%s (from $WEIR_LAKE)", msg ? msg : "no lake");
      else if (err.message && msg && strncmp(msg, "no lake found: no lake path given", 33) == 0)
        snprintf(err.message, n, "no lake found: no --lake given, $WEIR_LAKE is not set%s", msg + 33);
      else if (err.message) snprintf(err.message, n, "%s", msg ? msg : "no lake");
      free(msg);
    }
    if (rc != WEIR_OK) return cli_report_error(ctx, &err);
    if (ctx->progress) weir_lake_set_progress(ctx->lake, progress_cb, ctx);
  }
  *out = ctx->lake;
  return 0;
}

int cli_json_result(cli_ctx *ctx, int rc, weir_error *err, char *out, json_t **doc) {
  *doc = NULL;
  if (rc) {
    weir_free(out);
    return cli_report_error(ctx, err);
  }
  if (ctx->json) {
    cli_print_json_text(out);
    return 0;
  }
  *doc = json_loads(out ? out : "null", JSON_DECODE_ANY, NULL);
  weir_free(out);
  return -1;
}

void cli_print_json_text(char *json_text) {
  fputs(json_text ? json_text : "null", stdout);
  fputc('\n', stdout);
  weir_free(json_text);
}

void cli_print_json(json_t *v) {
  /* The CLI's own documents (init, branch/tag create and delete, query --output, errors)
   * carry the library's schema_version like every document the library returns. */
  if (json_is_object(v) && !json_object_get(v, "schema_version")) {
    json_t *doc = json_pack("{s:i}", "schema_version", WEIR_JSON_SCHEMA_VERSION);
    json_object_update(doc, v);
    json_decref(v);
    v = doc;
  }
  char *s = json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY);
  fputs(s ? s : "null", stdout);
  fputc('\n', stdout);
  free(s);
  json_decref(v);
}

const char *cli_short(const char *hash, char out[13]) {
  snprintf(out, 13, "%s", hash ? hash : "");
  return out;
}

/* ---- tables -------------------------------------------------------------------------- */

void cli_table_init(cli_table *t, int ncols, const char **headers) {
  memset(t, 0, sizeof *t);
  t->ncols = ncols;
  t->headers = headers;
  t->right = calloc((size_t)ncols, sizeof *t->right);
}

void cli_table_right(cli_table *t, int col) { t->right[col] = true; }

void cli_table_addv(cli_table *t, char **cells) {
  if (t->nrows == t->cap) {
    t->cap = t->cap ? t->cap * 2 : 16;
    t->cells = realloc(t->cells, (size_t)t->cap * (size_t)t->ncols * sizeof *t->cells);
    if (!t->cells) abort();
  }
  for (int c = 0; c < t->ncols; c++) t->cells[t->nrows * t->ncols + c] = cells[c];
  t->nrows++;
}

void cli_table_add(cli_table *t, ...) {
  char *cells[32];
  va_list ap;
  va_start(ap, t);
  for (int c = 0; c < t->ncols && c < 32; c++) {
    const char *s = va_arg(ap, const char *);
    cells[c] = strdup(s ? s : "");
  }
  va_end(ap);
  cli_table_addv(t, cells);
}

/* Display width of UTF-8 text: one column per code point (good enough for aligned
 * output of names and numbers). */
static int text_width(const char *s) {
  int w = 0;
  for (const unsigned char *p = (const unsigned char *)s; *p; p++)
    if ((*p & 0xC0) != 0x80) w++;
  return w;
}

void cli_table_print(cli_table *t, FILE *out) {
  int *width = calloc((size_t)t->ncols, sizeof *width);
  for (int c = 0; c < t->ncols; c++) width[c] = text_width(t->headers[c]);
  for (int r = 0; r < t->nrows; r++)
    for (int c = 0; c < t->ncols; c++) {
      int w = text_width(t->cells[r * t->ncols + c]);
      if (w > width[c]) width[c] = w;
    }
  for (int r = -1; r < t->nrows; r++) {
    for (int c = 0; c < t->ncols; c++) {
      const char *s = r < 0 ? t->headers[c] : t->cells[r * t->ncols + c];
      int pad = width[c] - text_width(s);
      bool last = c == t->ncols - 1;
      if (t->right[c]) fprintf(out, "%*s%s", pad, "", s);
      else fprintf(out, "%s%*s", s, last ? 0 : pad, "");
      if (!last) fputs("  ", out);
    }
    fputc('\n', out);
  }
  free(width);
}

void cli_table_free(cli_table *t) {
  for (int i = 0; i < t->nrows * t->ncols; i++) free(t->cells[i]);
  free(t->cells);
  free(t->right);
  memset(t, 0, sizeof *t);
}
