/*
 * quote.c -- quoting identifiers and strings for SQL, and the one rewrite weir applies to
 * user SQL before DuckDB sees it.
 *
 * Quoting follows the SQL standard, which DuckDB implements: an identifier goes between
 * double quotes with inner double quotes doubled, a string between single quotes with
 * inner single quotes doubled. Backslashes are ordinary characters in both (DuckDB's
 * strings are standard-conforming), and every other byte, UTF-8 included, stands for
 * itself, so the quoted text denotes exactly the input.
 */
#include "engine/engine_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static void put_quoted(wr_buf *b, const char *s, char q) {
  wr_buf_putc(b, q);
  for (const char *p = s; *p; p++) {
    if (*p == q) wr_buf_putc(b, q);
    wr_buf_putc(b, *p);
  }
  wr_buf_putc(b, q);
}

void wr_eng_put_ident(wr_buf *b, const char *name) { put_quoted(b, name ? name : "", '"'); }
void wr_eng_put_string(wr_buf *b, const char *s) { put_quoted(b, s ? s : "", '\''); }

char *wr_sql_ident(const char *name) {
  wr_buf b = WEIR_BUF_INIT;
  wr_eng_put_ident(&b, name);
  return wr_buf_detach(&b);
}

char *wr_sql_string(const char *s) {
  wr_buf b = WEIR_BUF_INIT;
  wr_eng_put_string(&b, s);
  return wr_buf_detach(&b);
}

void wr_eng_split_name(const char *qualified, char **schema, char **name) {
  const char *dot = strchr(qualified, '.');
  if (dot) {
    *schema = wr_strndup(qualified, (size_t)(dot - qualified));
    *name = wr_strdup(dot + 1);
  } else {
    *schema = wr_strdup("main");
    *name = wr_strdup(qualified);
  }
}

/* ---- the `default.` rewrite ------------------------------------------------------------
 * weir names a table of the default namespace `default.name`, but DEFAULT is a reserved
 * word in DuckDB's (PostgreSQL's) grammar, so `FROM default.titanic` is a syntax error.
 * The keyword followed directly by a dot and an identifier is never valid SQL otherwise
 * (`DEFAULT .5` has a digit after the dot), so it is quoted there. A small lexer skips
 * what must not be touched: strings ('..', E'..' with backslash escapes, $tag$..$tag$),
 * quoted identifiers and comments (--, and nested block comments). */

typedef struct out_text {
  wr_buf b;
  size_t *map;
  size_t cap;
} out_text;

static void emit(out_text *o, const char *p, size_t n, size_t src) {
  wr_buf_append(&o->b, p, n);
  if (o->cap < o->b.len + 1) {
    o->cap = (o->b.len + 1) * 2;
    o->map = wr_realloc(o->map, o->cap * sizeof *o->map);
  }
  for (size_t i = 0; i < n; i++) o->map[o->b.len - n + i] = src + i;
  o->map[o->b.len] = src + n;
}

/* Text weir adds: every byte of it maps to offset `src` of the caller's text. */
static void emit_at(out_text *o, const char *p, size_t n, size_t src) {
  emit(o, p, n, src);
  for (size_t i = 0; i <= n; i++) o->map[o->b.len - n + i] = src;
}

static bool ident_start(unsigned char c) { return isalpha(c) || c == '_' || c >= 0x80; }
static bool ident_char(unsigned char c) { return isalnum(c) || c == '_' || c == '$' || c >= 0x80; }

/* Length of the construct starting at s[i] that must be copied verbatim (string, quoted
 * identifier, comment), or 0 when s[i] starts none. */
static size_t opaque_len(const char *s, size_t i, size_t total) {
  size_t n = total - i, j;
  const char *p = s + i;
  if (p[0] == '\'' || p[0] == '"') {
    char q = p[0];
    for (j = 1; j < n; j++) {
      if (p[j] == q) {
        if (p[j + 1] == q) j++;
        else return j + 1;
      }
    }
    return n;
  }
  if ((p[0] == 'E' || p[0] == 'e') && p[1] == '\'' && (i == 0 || !ident_char((unsigned char)s[i - 1]))) {
    for (j = 2; j < n; j++) {
      if (p[j] == '\\' && j + 1 < n) j++;
      else if (p[j] == '\'') {
        if (p[j + 1] == '\'') j++;
        else return j + 1;
      }
    }
    return n;
  }
  if (p[0] == '-' && p[1] == '-') return strcspn(p, "\n");
  if (p[0] == '/' && p[1] == '*') {
    int depth = 0;
    for (j = 0; j + 1 < n; j++) {
      if (p[j] == '/' && p[j + 1] == '*') depth++, j++;
      else if (p[j] == '*' && p[j + 1] == '/') {
        depth--, j++;
        if (depth == 0) return j + 1;
      }
    }
    return n;
  }
  if (p[0] == '$' && (i == 0 || !ident_char((unsigned char)s[i - 1]))) {
    /* $tag$ ... $tag$ with an empty or identifier tag ($1 is a parameter, not a tag). */
    j = 1;
    if (ident_start((unsigned char)p[j]))
      while (ident_char((unsigned char)p[j]) && p[j] != '$') j++;
    if (p[j] != '$') return 0;
    size_t tag = j + 1;
    for (size_t k = tag; k + tag <= n; k++)
      if (strncmp(p + k, p, tag) == 0) return k + tag;
    return n;
  }
  return 0;
}

/* ---- the weir_checked_cast rewrite ------------------------------------------------------
 * `weir_checked_cast(expr, 'TYPE')` (docs/engine.md, "Checked casts") is a macro weir
 * registers in every connection (engine.c) with a third argument, a NULL of the target
 * type: DuckDB's macros and C functions cannot turn a string into a type, but
 * cast_to_type() can cast to the type of a value. So the call gets `, CAST(NULL AS TYPE)`
 * before its closing parenthesis, here, where every piece of user SQL passes. Only a
 * string literal made of the characters of a type name (letters, digits, _, space, and
 * commas only inside balanced parentheses) is copied into the text: anything else is left
 * alone, and the macro's two-argument form says what is wrong. */

static bool type_text_char(unsigned char c) {
  return isalnum(c) || c == '_' || c == '(' || c == ')' || c == ',' || c == ' ';
}

/* Offset of the `)` closing the call whose `(` is at s[open], when its last top-level
 * argument is a string literal naming a type; the literal's content (between the quotes)
 * in *type_at / *type_len. 0 when the call is not of that form. */
static size_t checked_cast_close(const char *s, size_t open, size_t n, size_t *type_at, size_t *type_len) {
  int depth = 0;
  size_t last_arg = 0;
  for (size_t i = open; i < n;) {
    size_t skip = opaque_len(s, i, n);
    if (skip) {
      i += skip;
      continue;
    }
    char c = s[i];
    if (c == '(' || c == '[' || c == '{') depth++;
    else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        if (!last_arg) return 0;
        size_t a = last_arg, b = i;
        while (a < b && isspace((unsigned char)s[a])) a++;
        while (b > a && isspace((unsigned char)s[b - 1])) b--;
        if (b - a < 3 || s[a] != '\'' || s[b - 1] != '\'' || opaque_len(s, a, n) != b - a) return 0;
        /* A type's parentheses nest (DECIMAL(10,2)): the text cannot close the CAST. */
        int nest = 0;
        for (size_t k = a + 1; k + 1 < b; k++) {
          if (!type_text_char((unsigned char)s[k])) return 0;
          nest += s[k] == '(' ? 1 : s[k] == ')' ? -1 : 0;
          if (nest < 0 || (nest == 0 && s[k] == ',')) return 0;
        }
        if (nest != 0) return 0;
        *type_at = a + 1;
        *type_len = b - a - 2;
        return i;
      }
    } else if (c == ',' && depth == 1) {
      last_arg = i + 1;
    }
    i++;
  }
  return 0;
}

char *wr_eng_sql_text(const char *sql, size_t **map) {
  out_text o = {WEIR_BUF_INIT, NULL, 0};
  emit(&o, "", 0, 0);
  size_t i = 0, n = strlen(sql);
  /* Pending insertions before closing parentheses of weir_checked_cast calls (nested
   * calls close first, so the innermost is last: a stack). */
  size_t ins_at[32], ins_type[32], ins_len[32], n_ins = 0;
  while (i < n) {
    if (n_ins && ins_at[n_ins - 1] == i) {
      n_ins--;
      /* The inserted text stands where the ')' is, for positions DuckDB reports. */
      emit_at(&o, ", CAST(NULL AS ", 15, i);
      emit_at(&o, sql + ins_type[n_ins], ins_len[n_ins], i);
      emit_at(&o, ")", 1, i);
      continue;
    }
    size_t skip = opaque_len(sql, i, n);
    if (skip) {
      emit(&o, sql + i, skip, i);
      i += skip;
      continue;
    }
    unsigned char c = (unsigned char)sql[i];
    if (ident_start(c) && (i == 0 || !ident_char((unsigned char)sql[i - 1]))) {
      size_t j = i;
      while (j < n && ident_char((unsigned char)sql[j])) j++;
      if (j - i == 7 && strncasecmp(sql + i, "default", 7) == 0 && sql[j] == '.' &&
          (ident_start((unsigned char)sql[j + 1]) || sql[j + 1] == '"')) {
        emit(&o, "\"", 1, i);
        emit(&o, "default", 7, i);
        o.map[o.b.len] = j;
        emit(&o, "\"", 1, j);
        o.map[o.b.len] = j;
      } else {
        emit(&o, sql + i, j - i, i);
        size_t k = j;
        while (k < n && isspace((unsigned char)sql[k])) k++;
        size_t t_at = 0, t_len = 0, close = 0;
        if (j - i == 17 && strncasecmp(sql + i, "weir_checked_cast", 17) == 0 && (i == 0 || sql[i - 1] != '.') &&
            k < n && sql[k] == '(' && n_ins < sizeof ins_at / sizeof ins_at[0] &&
            (close = checked_cast_close(sql, k, n, &t_at, &t_len)) != 0) {
          ins_at[n_ins] = close;
          ins_type[n_ins] = t_at;
          ins_len[n_ins] = t_len;
          n_ins++;
        }
      }
      i = j;
      continue;
    }
    emit(&o, sql + i, 1, i);
    i++;
  }
  if (map) *map = o.map;
  else free(o.map);
  return wr_buf_detach(&o.b);
}
