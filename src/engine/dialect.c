/*
 * dialect.c -- a hint for SQL written in another engine's dialect.
 *
 * Contracts and models are copied from other systems: a YAML contract written for Spark or
 * Databricks, SQL Server or Snowflake says DATEDIFF(hour, a, b), where the unit is a bare
 * word. DuckDB, which runs weir's SQL, reads `hour` there as a column and says only that
 * the column does not exist. When the engine's error names such a word and the SQL calls a
 * date function with it as its first argument, the hint says what happened and how DuckDB
 * spells the same call: date_diff('hour', a, b).
 *
 * The SQL is read as tokens (string literals, quoted names and comments are skipped, so a
 * 'DATEDIFF(hour' inside a string is not a call), and the suggestion is the user's own call
 * with the unit quoted and the function renamed.
 */
#include "engine/engine_internal.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/buf.h"

/* Functions whose first argument is a date part in other dialects, and DuckDB's name for
 * each (adds are rewritten as `x + INTERVAL (n) part`). */
static const struct {
  const char *name;
  const char *duckdb;
  bool add;
} date_funcs[] = {
    {"datediff", "date_diff", false},
    {"date_diff", "date_diff", false},
    {"timestampdiff", "date_diff", false},
    {"timestamp_diff", "date_diff", false},
    {"datepart", "date_part", false},
    {"date_part", "date_part", false},
    {"datetrunc", "date_trunc", false},
    {"date_trunc", "date_trunc", false},
    {"dateadd", NULL, true},
    {"timestampadd", NULL, true},
};

static const char *const date_parts[] = {
    "year",        "years",     "quarter",     "quarters",     "month",       "months",       "week",
    "weeks",       "day",       "days",        "hour",         "hours",       "minute",       "minutes",
    "second",      "seconds",   "millisecond", "milliseconds", "microsecond", "microseconds", "nanosecond",
    "nanoseconds", "dayofweek", "dayofyear",   "epoch",        NULL};

static bool is_ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Does `hay` contain `needle`, ignoring case? */
static bool contains_nocase(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncasecmp(hay, needle, n) == 0) return true;
  return false;
}

/* Skips a string literal, quoted identifier or comment starting at s[i]; returns the index
 * after it, or i when s[i] starts none. */
static size_t skip_opaque(const char *s, size_t i) {
  char c = s[i];
  if (c == '\'' || c == '"') {
    for (size_t j = i + 1; s[j]; j++) {
      if (s[j] == c) {
        if (s[j + 1] == c) {
          j++;
          continue;
        }
        return j + 1;
      }
    }
    return strlen(s);
  }
  if (c == '-' && s[i + 1] == '-') {
    const char *nl = strchr(s + i, '\n');
    return nl ? (size_t)(nl - s) : strlen(s);
  }
  if (c == '/' && s[i + 1] == '*') {
    const char *end = strstr(s + i + 2, "*/");
    return end ? (size_t)(end - s) + 2 : strlen(s);
  }
  return i;
}

/* The end of the argument starting at s[i] (the index of the ',' or ')' that ends it at
 * nesting depth 0), or 0 when the call does not close. */
static size_t arg_end(const char *s, size_t i) {
  int depth = 0;
  while (s[i]) {
    size_t j = skip_opaque(s, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (s[i] == '(')
      depth++;
    else if (s[i] == ')') {
      if (depth == 0) return i;
      depth--;
    } else if (s[i] == ',' && depth == 0) {
      return i;
    }
    i++;
  }
  return 0;
}

static void put_trimmed(wr_buf *b, const char *s, size_t from, size_t to) {
  while (from < to && isspace((unsigned char)s[from])) from++;
  while (to > from && isspace((unsigned char)s[to - 1])) to--;
  wr_buf_append(b, s + from, to - from);
}

/* Tries the call whose name ends at s[i] (a date function `f`): fills `call` with the call
 * as written and `fix` with DuckDB's spelling when its first argument is a bare date part
 * that `message` names. */
static bool try_call(const char *s, size_t name_start, size_t i, size_t f, const char *message,
                     wr_buf *call, wr_buf *fix) {
  while (isspace((unsigned char)s[i])) i++;
  if (s[i] != '(') return false;
  size_t a0 = i + 1;
  while (isspace((unsigned char)s[a0])) a0++;
  size_t p = a0;
  while (is_ident_char(s[p])) p++;
  if (p == a0) return false;
  char part[32];
  if (p - a0 >= sizeof part) return false;
  memcpy(part, s + a0, p - a0);
  part[p - a0] = 0;
  bool known = false;
  for (size_t k = 0; date_parts[k]; k++)
    if (strcasecmp(part, date_parts[k]) == 0) known = true;
  if (!known) return false;
  /* Only when the engine read the part as a name it could not find. */
  char quoted[40];
  snprintf(quoted, sizeof quoted, "\"%s\"", part);
  if (!message || !contains_nocase(message, quoted)) return false;
  size_t e1 = arg_end(s, a0);
  if (!e1 || s[e1] != ',') return false;
  size_t rest = e1 + 1, close = rest;
  /* The remaining arguments, up to the closing parenthesis. */
  size_t ends[8];
  size_t n = 0;
  for (size_t at = rest;;) {
    size_t e = arg_end(s, at);
    if (!e || n == sizeof ends / sizeof ends[0]) return false;
    ends[n++] = e;
    if (s[e] == ')') {
      close = e;
      break;
    }
    at = e + 1;
  }
  for (size_t k = 0; part[k]; k++) part[k] = (char)tolower((unsigned char)part[k]);
  wr_buf_append(call, s + name_start, close + 1 - name_start);
  if (date_funcs[f].add) {
    /* DATEADD(part, n, x) -> x + INTERVAL (n) part */
    if (n != 2) return false;
    wr_buf_putc(fix, '(');
    put_trimmed(fix, s, ends[0] + 1, ends[1]);
    wr_buf_puts(fix, ") + INTERVAL (");
    put_trimmed(fix, s, rest, ends[0]);
    wr_buf_printf(fix, ") %s", part);
  } else {
    wr_buf_printf(fix, "%s('%s', ", date_funcs[f].duckdb, part);
    put_trimmed(fix, s, rest, close);
    wr_buf_putc(fix, ')');
  }
  return true;
}

char *wr_sql_dialect_hint(const char *sql, const char *message) {
  if (!sql || !message) return NULL;
  for (size_t i = 0; sql[i];) {
    size_t j = skip_opaque(sql, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (!is_ident_char(sql[i]) || (i > 0 && (is_ident_char(sql[i - 1]) || sql[i - 1] == '.'))) {
      i++;
      continue;
    }
    size_t start = i;
    while (is_ident_char(sql[i])) i++;
    for (size_t f = 0; f < sizeof date_funcs / sizeof date_funcs[0]; f++) {
      if (strlen(date_funcs[f].name) != i - start ||
          strncasecmp(sql + start, date_funcs[f].name, i - start) != 0)
        continue;
      wr_buf call = WEIR_BUF_INIT, fix = WEIR_BUF_INIT;
      char *hint = NULL;
      if (try_call(sql, start, i, f, message, &call, &fix))
        hint = wr_asprintf(
            "%s names its unit as a bare word, as Spark, Databricks, SQL Server and Snowflake "
            "do; weir runs DuckDB's SQL, where the unit is a string: write %s",
            wr_buf_cstr(&call), wr_buf_cstr(&fix));
      wr_buf_free(&call);
      wr_buf_free(&fix);
      if (hint) return hint;
    }
  }
  return NULL;
}

void wr_error_add_dialect_hint(weir_error *err, const char *sql) {
  if (!err || !err->message) return;
  char *hint = wr_sql_dialect_hint(sql, err->message);
  if (!hint) return;
  char *m = wr_asprintf("%s\n    hint: %s", err->message, hint);
  free(err->message);
  err->message = m;
  free(hint);
}
