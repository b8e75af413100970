/*
 * serial.h -- base and read-set validation: the rules that make overlapping writers behave
 * as if one ran after the other (docs/versioning.md, "Concurrency: serializable writes").
 */
#ifndef WEIR_LAKE_SERIAL_H
#define WEIR_LAKE_SERIAL_H

#include <stdbool.h>
#include "lake/lake.h"

/* The base of a write on `branch`: its head, or the commit `expect_head` names (any ref;
 * it must be the head or one of its ancestors). Errors: WEIR_ECONCURRENT when
 * expect_head is not in the branch's history (nothing may be written), WEIR_ENOTFOUND,
 * WEIR_EINVALIDARG (an empty expect_head). */
int lake_write_base(weir_lake *lake, const char *branch, const char *expect_head, char out[WEIR_HASH_HEX_SIZE],
                    weir_error *err);

/*
 * Checks that committing `staged` (each computed against its version at `base`, recorded
 * in based_on) on top of `head`, having also read the tables `reads` at `base`, is what
 * running the write after everything between base and head would have done. WEIR_OK when
 * base == head or every rule holds; otherwise WEIR_ECONCURRENT (a written table changed
 * under the write) or WEIR_ESTALEREAD (only tables it read changed), with a message naming
 * every table, why, and the commit that changed it, and details [{table, kind ("write" |
 * "read"), change, reason, base, head, changed_by, changed_by_message}]. *revalidate (when not NULL)
 * is set when every refusal is an append whose table changed its schema, partition spec or
 * contract: validating the same rows again against the head's version may succeed.
 */
int lake_check_serial(weir_lake *lake, const char *branch, const char *base, const char *head,
                      const lake_staged *staged, size_t n, const char *const *reads, size_t n_reads,
                      bool *revalidate, weir_error *err);

/* *out: `table` changed between commits base and head only through compactions (every
 * snapshot in between is a compaction's "replace", its type and properties kept), so it
 * holds the same rows at both; false when it is missing at either. */
int lake_table_only_compacted(weir_lake *lake, const char *table, const char *base, const char *head, bool *out,
                              weir_error *err);

/* Two versions of a table take the same appended files: equal schema (names, types,
 * nullability, field ids), partition spec and stored contract. */
bool lake_same_write_context(const iceberg_table *a, const iceberg_table *b);

#endif
