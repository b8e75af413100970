/*
 * file_dialect.c -- a file's format from its name, the fixed CSV dialect, the header row
 * weir checks itself, and DuckDB's CSV errors reworded (file_dialect.h).
 *
 * These read untrusted input (file names from the command line, the first bytes of a
 * file, DuckDB messages quoting a file's lines) and are fuzzed by fuzz_csv_options.
 */
#include "engine/file_dialect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util/fs.h"

bool wr_file_format_parse(const char *name, wr_file_format *out) {
  if (!name) return false;
  if (strcasecmp(name, "csv") == 0 || strcasecmp(name, "tsv") == 0)
    *out = WEIR_FORMAT_CSV;
  else if (strcasecmp(name, "parquet") == 0)
    *out = WEIR_FORMAT_PARQUET;
  else if (strcasecmp(name, "jsonl") == 0 || strcasecmp(name, "json") == 0 || strcasecmp(name, "ndjson") == 0)
    *out = WEIR_FORMAT_JSONL;
  else
    return false;
  return true;
}

const char *wr_file_extension(const char *path, char *buf, size_t size) {
  const char *base = wr_path_basename(path);
  snprintf(buf, size, "%s", base);
  char *dot = strrchr(buf, '.');
  if (dot && (strcasecmp(dot, ".gz") == 0 || strcasecmp(dot, ".zst") == 0)) {
    *dot = 0;
    dot = strrchr(buf, '.');
  }
  return dot ? dot + 1 : "";
}

bool wr_file_format_from_path(const char *path, wr_file_format *out) {
  char buf[1024];
  const char *ext = wr_file_extension(path, buf, sizeof buf);
  if (strcasecmp(ext, "parq") == 0) ext = "parquet";
  return wr_file_format_parse(ext, out);
}

char wr_csv_delimiter(const char *path) {
  char buf[1024];
  return strcasecmp(wr_file_extension(path, buf, sizeof buf), "tsv") == 0 ? '\t' : ',';
}

/* ---- the header row ----------------------------------------------------------------- */

void wr_csv_header_parse(const char *data, size_t len, char delim, char quote, wr_csv_header *out) {
  out->names = NULL;
  out->n = 0;
  if (len > WEIR_CSV_HEADER_MAX) len = WEIR_CSV_HEADER_MAX;
  size_t i = 0;
  /* A UTF-8 byte order mark is not part of the first name. */
  if (len >= 3 && memcmp(data, "\xEF\xBB\xBF", 3) == 0) i = 3;
  wr_buf field = WEIR_BUF_INIT;
  bool in_quote = false, done = false;
  for (; i < len && !done; i++) {
    char c = data[i];
    if (in_quote) {
      if (c != quote)
        wr_buf_putc(&field, c);
      else if (i + 1 < len && data[i + 1] == quote)
        wr_buf_putc(&field, quote), i++;
      else
        in_quote = false;
      continue;
    }
    if (c == quote) {
      in_quote = true;
    } else if (c == delim || c == '\n' || c == '\r') {
      out->names = wr_realloc(out->names, (out->n + 1) * sizeof *out->names);
      out->names[out->n++] = wr_buf_detach(&field);
      if (c != delim) done = true;
    } else {
      wr_buf_putc(&field, c);
    }
  }
  /* The last name of a file that is all header, without a line end. */
  if (!done && (field.len > 0 || out->n > 0)) {
    out->names = wr_realloc(out->names, (out->n + 1) * sizeof *out->names);
    out->names[out->n++] = wr_buf_detach(&field);
  }
  wr_buf_free(&field);
}

void wr_csv_header_clear(wr_csv_header *h) {
  for (size_t i = 0; i < h->n; i++) free(h->names[i]);
  free(h->names);
  h->names = NULL;
  h->n = 0;
}

int wr_csv_header_check(const wr_csv_header *h, const char *path, weir_error *err) {
  if (h->n == 1 && !h->names[0][0])
    return wr_seterr(err, WEIR_EINPUT, "%s line 1: the line is empty (a CSV file starts with a header row)",
                       path);
  for (size_t i = 0; i < h->n; i++) {
    if (!h->names[i][0] && h->n > 1)
      return wr_seterr(err, WEIR_EINPUT, "%s line 1: header field %zu is empty (every column needs a name)",
                         path, i + 1);
    for (size_t j = 0; j < i; j++)
      if (h->names[i][0] && strcmp(h->names[i], h->names[j]) == 0)
        return wr_seterr(err, WEIR_EINPUT,
                           "%s line 1: the header names column \"%s\" twice (fields %zu and %zu)", path,
                           h->names[i], j + 1, i + 1);
      else if (h->names[i][0] && strcasecmp(h->names[i], h->names[j]) == 0)
        /* DuckDB's names are case-insensitive: it would rename the second "ID_1". */
        return wr_seterr(err, WEIR_EINPUT,
                         "%s line 1: columns \"%s\" and \"%s\" differ only in case (fields %zu and %zu); SQL "
                         "engines cannot tell them apart: rename one",
                         path, h->names[j], h->names[i], j + 1, i + 1);
  }
  return WEIR_OK;
}

/* ---- DuckDB's CSV errors -------------------------------------------------------------- */

bool wr_csv_reword_error(const char *path, const char *m, wr_buf *out) {
  const char *line = strstr(m, "CSV Error on Line: ");
  if (!line) return false;
  long n = strtol(line + 19, NULL, 10);
  const char *r;
  long exp, found;
  wr_buf_printf(out, "%s line %ld: ", path, n);
  if ((r = strstr(m, "Expected Number of Columns: ")) &&
      sscanf(r, "Expected Number of Columns: %ld Found: %ld", &exp, &found) == 2) {
    wr_buf_printf(out, "expected %ld field%s, found %ld", exp, exp == 1 ? "" : "s", found);
  } else if (strstr(m, "unterminated quote")) {
    wr_buf_puts(out, "a quoted value is not terminated");
  } else if (strstr(m, "Invalid unicode")) {
    wr_buf_puts(out, "invalid UTF-8 (the file must be UTF-8 encoded)");
  } else if ((r = strstr(m, "Error when converting column "))) {
    wr_buf_append(out, r, strcspn(r, "\n"));
  } else if ((r = strstr(m, "Maximum line size of ")) &&
             sscanf(r, "Maximum line size of %ld bytes exceeded. Actual Size:%ld", &exp, &found) == 2) {
    wr_buf_printf(out, "the line is %ld bytes, longer than the maximum line size of %ld (--max-line-size, the SDK's "
                       "max_line_size=)", found, exp);
  } else {
    /* Unknown reason: DuckDB's first non-blank line after the "Original Line: <record>"
     * line (a blank line may come between: the reason was once read as ""). */
    const char *orig = strstr(m, "Original Line:");
    const char *p = orig ? strchr(orig, '\n') : NULL;
    while (p && p[1] == '\n') p = p + 1;
    if (p && p[1])
      wr_buf_append(out, p + 1, strcspn(p + 1, "\n"));
    else
      wr_buf_append(out, m, strcspn(m, "\n"));
  }
  return true;
}

/* ---- a delimiter the user probably meant ------------------------------------------------ */

char wr_csv_likely_delimiter(const char *data, size_t len) {
  static const char candidates[] = {';', '\t', '|'};
  if (len > WEIR_CSV_HEADER_MAX) len = WEIR_CSV_HEADER_MAX;
  for (size_t k = 0; k < sizeof candidates; k++) {
    size_t lines = 0;
    bool every = true;
    size_t start = 0;
    while (start < len && every) {
      const char *nl = memchr(data + start, '\n', len - start);
      size_t end = nl ? (size_t)(nl - data) : len;
      /* A line cut by the prefix's end proves nothing either way: stop there. */
      if (!nl && lines > 0 && len == WEIR_CSV_HEADER_MAX) break;
      size_t n = end - start;
      if (n > 0 && data[start + n - 1] == '\r') n--;
      if (n > 0) {
        if (!memchr(data + start, candidates[k], n)) every = false;
        lines++;
      }
      start = end + 1;
    }
    if (every && lines >= 2) return candidates[k];
  }
  return 0;
}
