/*
 * names.h -- validation of user-supplied names, done before any file is touched.
 *
 * Table names become folder names in the warehouse, so a name that could escape it
 * ("../x", "a/b", "") must be refused here, at the door, with a message naming the
 * offending character; ref names follow git's rules so that they can be typed and
 * scripted the way git users expect.
 */
#ifndef WEIR_UTIL_NAMES_H
#define WEIR_UTIL_NAMES_H

#include "util/error.h"

#define WEIR_NAME_MAX 255
#define WEIR_DEFAULT_NAMESPACE "default"

/* A parsed table identifier. */
typedef struct wr_table_id {
  char ns[WEIR_NAME_MAX + 1];
  char name[WEIR_NAME_MAX + 1];
} wr_table_id;

/* Parses "ns.name" or "name" (meaning default.name). Each part must match
 * [A-Za-z_][A-Za-z0-9_]* and be at most 255 bytes. Errors: WEIR_EINVALIDNAME with a
 * message naming the input and the rule it breaks. */
int wr_table_id_parse(const char *text, wr_table_id *out, weir_error *err);
/* "ns.name" into out (at least 2*255+2 bytes). */
void wr_table_id_format(const wr_table_id *id, char *out, unsigned size);
/* The longest "ns.name" with its NUL. */
#define WR_TABLE_FULL_MAX (2 * WEIR_NAME_MAX + 2)
/* Parses `text` as wr_table_id_parse does and writes its full "ns.name" into out (errors
 * as wr_table_id_parse's; out is "" on error). */
int wr_table_full_name(const char *text, char out[WR_TABLE_FULL_MAX], weir_error *err);
/* One identifier part (namespace, table or column-like name). `what` names it in errors
 * ("table name", "namespace"). */
int wr_ident_check(const char *s, const char *what, weir_error *err);

/* A branch or tag name under git's check-ref-format rules: not empty, at most 255 bytes,
 * no "..", no leading '-', no ASCII control characters or spaces, none of ~^:?*[\ , no
 * part beginning with '.' or ending with ".lock", no "//", no trailing '/' or '.', no
 * "@{", and not "@" alone. `what` is "branch" or "tag". Errors: WEIR_EINVALIDNAME. */
int wr_ref_name_check(const char *name, const char *what, weir_error *err);

#endif
