/*
 * json.h -- jansson helpers: canonical serialisation and tolerant getters.
 */
#ifndef WEIR_UTIL_JSON_H
#define WEIR_UTIL_JSON_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "util/error.h"

/* Canonical JSON: sorted keys, no whitespace, UTF-8 as is, integers exact. The same value
 * gives the same bytes on every machine, which is what commit hashes are computed over.
 * Caller frees. These three return "null" for a NULL value, and NULL only on OOM. */
char *wr_json_canonical(const json_t *v);
/* Pretty JSON (2-space indent, keys in insertion order) for humans and --json output. */
char *wr_json_pretty(const json_t *v);
/* Compact JSON in insertion order. */
char *wr_json_compact(const json_t *v);
/* Parses text; on failure fills err (WEIR_EINPUT) naming `origin`, line and column. */
int wr_json_parse(const char *text, const char *origin, json_t **out, weir_error *err);
/* The same over `len` bytes (no NUL needed; a NUL inside them is an error). */
int wr_json_parse_len(const char *text, size_t len, const char *origin, json_t **out,
                        weir_error *err);

/* json_loads, with *oom set (and NULL returned) when one of jansson's allocations failed
 * meanwhile: jansson does not always say so in `e`, and its lexer silently drops a
 * character it cannot store, so a value parsed then may be wrong. The thread's count of
 * failed jansson allocations (util/error.h) tells. wr_json_parse/_len do the same. */
json_t *wr_json_loads(const char *text, size_t flags, json_error_t *e, bool *oom);

/* Getters that return a default when the key is missing or of another type. */
const char *wr_json_str(const json_t *obj, const char *key, const char *dflt);
int64_t wr_json_int(const json_t *obj, const char *key, int64_t dflt);
int wr_json_bool(const json_t *obj, const char *key, int dflt);

/* json_string() that maps NULL to JSON null. New reference. */
json_t *wr_json_str_or_null(const char *s);
/* A JSON string of text for people (messages, quoted input): invalid UTF-8 bytes become
 * U+FFFD instead of making json_string() fail; NULL gives JSON null. New reference. */
json_t *wr_json_text(const char *s);
/* Those two return NULL only on OOM (json_string's own NULL for bad UTF-8 aside, for
 * wr_json_str_or_null). The parsers return WEIR_ENOMEM when jansson ran out of memory. */
#ifdef WR_ALLOC_ABORTS /* legacy callers (error.h): abort on OOM as before */
#define wr_json_canonical(v) ((char *)WR_X_PTR(wr_json_canonical(v)))
#define wr_json_pretty(v) ((char *)WR_X_PTR(wr_json_pretty(v)))
#define wr_json_compact(v) ((char *)WR_X_PTR(wr_json_compact(v)))
#endif

#endif
