/*
 * file_dialect.h -- what weir decides about an input file before DuckDB reads it: the
 * format (from --format or the file name), the CSV dialect (fixed, never sniffed: see
 * read_file.c), and the header row, which weir checks itself because DuckDB renames
 * repeated names and invents names for empty ones.
 *
 * Everything here works on names and bytes in memory, so that it can be tested and
 * fuzzed without a file (tests/fuzz/fuzz_csv_options.c); read_file.c reads the bytes.
 */
#ifndef WEIR_ENGINE_FILE_DIALECT_H
#define WEIR_ENGINE_FILE_DIALECT_H

#include <stdbool.h>
#include <stddef.h>

#include "engine/engine.h"
#include "util/buf.h"
#include "util/error.h"

/* How much of a CSV file the header checks read: a first record longer than this is
 * judged on its first WEIR_CSV_HEADER_MAX bytes. */
#define WEIR_CSV_HEADER_MAX (1u << 20)

/* The extension of a path, one compression suffix (.gz, .zst) ignored (DuckDB's CSV and
 * JSON readers decompress those themselves): "a.csv.gz" -> "csv"; "" when none. The
 * result points into buf. */
const char *wr_file_extension(const char *path, char *buf, size_t size);
/* The format a file name implies (.csv/.tsv, .parquet/.parq, .jsonl/.ndjson/.json). */
bool wr_file_format_from_path(const char *path, wr_file_format *out);
/* The CSV delimiter of a file: tab for .tsv (also .tsv.gz), else comma. */
char wr_csv_delimiter(const char *path);

/* The first record of a CSV file's bytes, split with the fixed dialect (delimiter `delim`,
 * quote character `quote`, quotes escaped by doubling), a UTF-8 byte order mark skipped. Only the
 * first WEIR_CSV_HEADER_MAX bytes of `data` are looked at. */
typedef struct wr_csv_header {
  char **names; /* the fields, unquoted (owned) */
  size_t n;
} wr_csv_header;

void wr_csv_header_parse(const char *data, size_t len, char delim, char quote, wr_csv_header *out);
void wr_csv_header_clear(wr_csv_header *h);
/* Refuses a header DuckDB would rewrite: an empty first line, an empty name, a repeated
 * name. Messages name `path`, "line 1" and the fields. */
int wr_csv_header_check(const wr_csv_header *h, const char *path, weir_error *err);

/* Rewords a DuckDB CSV error message as "<path> line N: <reason>" into out; false (out
 * untouched) when the message names no line. */
bool wr_csv_reword_error(const char *path, const char *duckdb_message, wr_buf *out);

/* When a file read as one column holds a common delimiter (';', tab, '|') on every line of
 * its first WEIR_CSV_HEADER_MAX bytes (at least one line besides the header), that
 * delimiter; else 0. Such a file is most likely not comma-separated: the caller warns. */
char wr_csv_likely_delimiter(const char *data, size_t len);

#endif
