/*
 * fuzz_csv_options.c -- what weir itself parses of a CSV import (src/engine/file_dialect.c):
 * the --format option, the dialect a file name implies (.tsv, .gz, .zst), the header row
 * weir checks before DuckDB reads the file, and the rewording of DuckDB's CSV errors,
 * which quote the file's lines.
 *
 * weir has no dialect options of its own (the dialect is fixed: read_file.c says why);
 * the CSV body is parsed by DuckDB's reader, which this target does not fuzz.
 *
 * Input layout: the first line is a file name (and, as a format option, the same text);
 * the rest is the file's bytes, also handed to the rewording as a DuckDB message.
 * Promises checked: header errors name the file and line 1 and are valid UTF-8; the
 * header has no more names than the bytes had delimiters plus one; a reworded error
 * starts with "<path> line ".
 */
#include "fuzz.h"

#include "engine/file_dialect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const uint8_t *nl = memchr(data, '\n', size);
  size_t name_len = nl ? (size_t)(nl - data) : size;
  char *name = fuzz_cstr(data, name_len);
  const char *body = nl ? (const char *)nl + 1 : "";
  size_t body_len = nl ? size - name_len - 1 : 0;

  wr_file_format f;
  (void)wr_file_format_parse(name, &f);
  (void)wr_file_format_from_path(name, &f);
  char buf[1024];
  const char *ext = wr_file_extension(name, buf, sizeof buf);
  if (*ext && (ext < buf || ext >= buf + sizeof buf)) fuzz_fail("extension outside its buffer");
  char delim = wr_csv_delimiter(name);
  if (delim != ',' && delim != '\t') fuzz_fail("delimiter %d", delim);

  wr_csv_header h;
  wr_csv_header_parse(body, body_len, delim, '"', &h);
  char likely = wr_csv_likely_delimiter(body, body_len);
  if (likely && likely != ';' && likely != '\t' && likely != '|') fuzz_fail("likely delimiter %d", likely);
  size_t delims = 0;
  for (size_t i = 0; i < body_len && i < WEIR_CSV_HEADER_MAX; i++) delims += body[i] == delim;
  if (h.n > delims + 1) fuzz_fail("%zu names from %zu delimiters", h.n, delims);
  weir_error err = {0};
  int rc = wr_csv_header_check(&h, "fuzz.csv", &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, "fuzz.csv line 1: ");
    weir_error_clear(&err);
  }
  wr_csv_header_clear(&h);

  char *msg = fuzz_cstr((const uint8_t *)body, body_len);
  wr_buf out = WEIR_BUF_INIT;
  if (wr_csv_reword_error("fuzz.csv", msg, &out)) {
    if (strncmp(wr_buf_cstr(&out), "fuzz.csv line ", 14) != 0)
      fuzz_fail("reworded as %s", wr_buf_cstr(&out));
  } else if (out.len) {
    fuzz_fail("no rewording, but output");
  }
  wr_buf_free(&out);
  free(msg);
  free(name);
  return 0;
}
