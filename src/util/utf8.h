/*
 * utf8.h -- UTF-8 validity, and text made valid for people and JSON documents.
 *
 * Messages quote their input (a ref, a YAML key, a header line, an Avro header key), and
 * input can be any bytes; a message goes into --json output, where jansson refuses a
 * string that is not UTF-8 (json_string returns NULL, and the key silently disappears).
 * So every message is repaired when it is made: each byte that does not start a valid
 * sequence becomes U+FFFD, as a browser shows it.
 */
#ifndef WEIR_UTIL_UTF8_H
#define WEIR_UTIL_UTF8_H

#include <stdbool.h>
#include <stddef.h>

/* Length of the valid UTF-8 sequence at s[0..len), or 0 when it is not one (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF). NUL is a valid sequence. */
size_t wr_utf8_seq(const unsigned char *s, size_t len);
/* True when the `len` bytes are valid UTF-8. */
bool wr_utf8_valid(const char *s, size_t len);
/* A copy of the NUL-terminated s with every invalid byte replaced by U+FFFD; caller frees. */
char *wr_utf8_repair(const char *s);
/* The same in place when s is valid (returned as is), else a repaired copy and s freed. */
char *wr_utf8_repair_owned(char *s);
/* Both return NULL on OOM (repair_owned: for a NULL s too; s is freed either way). */
#ifdef WR_ALLOC_ABORTS /* legacy callers (error.h): abort on OOM as before */
#define wr_utf8_repair(s) ((char *)WR_X_PTR(wr_utf8_repair(s)))
#endif

#endif
