/*
 * sql_model.c -- the `-- weir:` header of SQL models.
 *
 *   -- weir: name=f
 *   -- weir: materialization=REPLACE        -- REPLACE (default) or APPEND
 *   -- weir: output_schema=WomenByClass
 *
 * Header lines are the comment lines at the top of the file. Each `-- weir:` line holds
 * one key=value; anything after the value must be another comment. A malformed line is a
 * problem naming the file and line, never ignored: a typo in a header silently changing
 * a model is the kind of seam failure weir exists to remove.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "iceberg/iceberg.h"
#include "pipeline/pipeline.h"
#include "util/fs.h"

static const char *skip_blanks(const char *p) {
  while (*p == ' ' || *p == '\t') p++;
  return p;
}

/* True for comment text `c` that is a header with its colon missing or misplaced:
 * "weir name=f", "weir  materialization = APPEND", "weir :name=f". A plain comment that
 * starts with the word weir ("weir computes x = y") is not one: after "weir" must come one
 * identifier and then '='. Read as a comment, such a line would silently change the model
 * (its name, or REPLACE instead of APPEND). */
static bool looks_like_header_without_colon(const char *c) {
  if (strncasecmp(c, "weir", 4) != 0) return false;
  const char *k = c + 4;
  if (*k != ' ' && *k != '\t' && *k != ':') return false;
  k = skip_blanks(k);
  if (*k == ':') {
    /* "weir :" -- a colon after blanks is a misplaced one; "weir:" itself is fine. */
    if (c[4] == ':') return false;
    return true;
  }
  const char *id = k;
  while ((*k >= 'a' && *k <= 'z') || (*k >= 'A' && *k <= 'Z') || (*k >= '0' && *k <= '9') || *k == '_') k++;
  if (k == id) return false;
  k = skip_blanks(k);
  return *k == '=';
}

int pipeline_parse_sql_model(wr_project *p, const char *file, const char *text,
                             pipeline_model *m) {
  memset(m, 0, sizeof *m);
  m->lang = MODEL_SQL;
  m->file = wr_strdup(file);
  m->line = 1;
  /* Default name: the file name without .sql. */
  size_t flen = strlen(file);
  m->name = wr_strndup(file, flen > 4 ? flen - 4 : flen);
  bool bad = false;

  int line = 0;
  const char *s = text;
  while (*s) {
    line++;
    const char *eol = strchr(s, '\n');
    size_t len = eol ? (size_t)(eol - s) : strlen(s);
    char *ln = wr_strndup(s, len);
    if (len && ln[len - 1] == '\r') ln[len - 1] = 0;
    const char *q = skip_blanks(ln);
    bool is_comment = q[0] == '-' && q[1] == '-';
    bool is_blank = *q == 0;
    if (!is_comment && !is_blank) {
      free(ln);
      break; /* the header ends at the first line of SQL */
    }
    if (is_comment) {
      const char *c = skip_blanks(q + 2);
      if (looks_like_header_without_colon(c)) {
        pipeline_problem(p, file, line, m->name, NULL, "-- weir: key=value", q,
                         "%s:%d: \"%s\" reads as a weir header missing its colon (write -- weir: key=value; "
                         "a plain comment must not start with \"weir key=\")",
                         file, line, q);
        bad = true;
      } else if (strncasecmp(c, "weir:", 5) == 0) {
        const char *kv = skip_blanks(c + 5);
        const char *eq = strchr(kv, '=');
        size_t klen = eq ? (size_t)(eq - kv) : 0;
        while (klen && (kv[klen - 1] == ' ' || kv[klen - 1] == '\t')) klen--;
        if (!eq || klen == 0) {
          pipeline_problem(p, file, line, m->name, NULL, "key=value", kv, "%s:%d: malformed weir header \"%s\" (expected -- weir: key=value)",
                           file, line, q);
          bad = true;
        } else {
          char *key = wr_strndup(kv, klen);
          const char *v = skip_blanks(eq + 1);
          size_t vlen = 0;
          while (v[vlen] && v[vlen] != ' ' && v[vlen] != '\t') vlen++;
          char *val = wr_strndup(v, vlen);
          const char *rest = skip_blanks(v + vlen);
          if (vlen == 0) {
            pipeline_problem(p, file, line, m->name, key, "a value", "nothing",
                             "%s:%d: weir header \"%s\" has no value", file, line, key);
            bad = true;
          } else if (*rest && !(rest[0] == '-' && rest[1] == '-') && strcmp(key, "partition_by") != 0) {
            pipeline_problem(p, file, line, m->name, key, NULL, rest,
                             "%s:%d: unexpected text after %s=%s: \"%s\" (one key=value per line; comments start with --)",
                             file, line, key, val, rest);
            bad = true;
          } else if (strcmp(key, "name") == 0) {
            free(m->name);
            m->name = wr_strdup(val);
            m->line = line;
          } else if (strcmp(key, "materialization") == 0 || strcmp(key, "materialization_strategy") == 0) {
            if (strcasecmp(val, "REPLACE") == 0) m->append = false;
            else if (strcasecmp(val, "APPEND") == 0) m->append = true;
            else {
              pipeline_problem(p, file, line, m->name, key, "REPLACE or APPEND", val,
                               "%s:%d: unknown materialization \"%s\" (expected REPLACE or APPEND)", file, line, val);
              bad = true;
            }
          } else if (strcmp(key, "partition_by") == 0) {
            /* One header holds every field, comma-separated: the value runs to the end of
             * the line (or a -- comment), since "bucket(16, id)" has a blank in it. */
            const char *end = strstr(v, "--");
            size_t all = end ? (size_t)(end - v) : strlen(v);
            while (all && (v[all - 1] == ' ' || v[all - 1] == '\t')) all--;
            json_decref(m->partition_by);
            m->partition_by = json_array();
            m->partition_line = line;
            int depth = 0;
            size_t start = 0;
            for (size_t i = 0; i <= all; i++) {
              if (i < all && v[i] == '(') depth++;
              if (i < all && v[i] == ')') depth--;
              if (i == all || (v[i] == ',' && depth <= 0)) {
                size_t b = start, e = i;
                while (b < e && (v[b] == ' ' || v[b] == '\t')) b++;
                while (e > b && (v[e - 1] == ' ' || v[e - 1] == '\t')) e--;
                char *one = wr_strndup(v + b, e - b);
                iceberg_partition_field f;
                char why[512];
                if (!iceberg_partition_field_parse(one, &f, why, sizeof why)) {
                  pipeline_problem(p, file, line, m->name, key, "day(ts), bucket(16, id), ...", one, "%s:%d: %s",
                                   file, line, why);
                  bad = true;
                } else {
                  iceberg_partition_field_clear(&f);
                  json_array_append_new(m->partition_by, json_string(one));
                }
                free(one);
                start = i + 1;
              }
            }
          } else if (strcmp(key, "output_schema") == 0) {
            free(m->output_schema_name);
            m->output_schema_name = wr_strdup(val);
            m->output_line = line;
          } else {
            pipeline_problem(p, file, line, m->name, NULL, "name, materialization, output_schema or partition_by", key,
                             "%s:%d: unknown weir header key \"%s\" (known: name, materialization, output_schema, partition_by)",
                             file, line, key);
            bad = true;
          }
          free(key);
          free(val);
        }
      }
    }
    free(ln);
    if (!eol) break;
    s = eol + 1;
  }
  /* The statement is the whole file: header lines are SQL comments, and keeping them
   * keeps the engine's line numbers equal to the file's. */
  m->sql = wr_strdup(text);
  /* A `-- weir:` line below the first line of SQL is no header (the header ends there):
   * read as a comment it would silently leave the model REPLACE or unnamed, so it is a
   * problem naming its line and the line where the SQL began. */
  bool only_comments = true;
  int at = 0, sql_line = 0;
  for (const char *r = text; *r;) {
    at++;
    const char *eol = strchr(r, '\n');
    size_t len = eol ? (size_t)(eol - r) : strlen(r);
    const char *q = r;
    while (q < r + len && (*q == ' ' || *q == '\t' || *q == '\r')) q++;
    bool comment = q + 1 < r + len && q[0] == '-' && q[1] == '-';
    if (q < r + len && !comment) {
      only_comments = false;
      if (!sql_line) sql_line = at;
    }
    if (comment && sql_line) {
      const char *c = q + 2;
      while (c < r + len && (*c == ' ' || *c == '\t')) c++;
      if ((size_t)(r + len - c) >= 5 && strncasecmp(c, "weir:", 5) == 0) {
        size_t show = (size_t)(r + len - q);
        while (show && (q[show - 1] == '\r' || q[show - 1] == ' ' || q[show - 1] == '\t')) show--;
        char *shown = wr_strndup(q, show);
        pipeline_problem(p, file, at, m->name, NULL, "a header above the SQL", shown,
                         "%s:%d: \"%s\" comes after the SQL begins (line %d): a weir header must be above "
                         "the first line of SQL",
                         file, at, shown, sql_line);
        free(shown);
        bad = true;
      }
    }
    if (!eol) break;
    r = eol + 1;
  }
  if (only_comments) {
    pipeline_problem(p, file, 1, m->name, NULL, "a SELECT statement", "no SQL", "%s: model %s has no SQL statement",
                     file, m->name);
    bad = true;
  }
  return bad ? WEIR_EINPUT : WEIR_OK;
}
