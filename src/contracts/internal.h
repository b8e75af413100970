/*
 * internal.h -- what the files of the contracts module share with each other (never
 * included outside src/contracts/).
 *
 * The validator is split by responsibility: check_columns.c plans the columns (missing,
 * unknown, uncastable, which cast), cast.c builds cast columns, check_values.c runs the
 * buffer-level rules (nulls, enum, range), rule_pattern.c / rule_unique.c / rule_sql.c
 * the other rule kinds, filter.c removes drop-mode rows, report.c turns what was found
 * into the report and the messages, and validate.c orders all of it.
 */
#ifndef WEIR_CONTRACTS_INTERNAL_H
#define WEIR_CONTRACTS_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include "contracts/contract.h"
#include "util/buf.h"

/* The IR version this library writes and the newest it reads. */
#define WEIR_CONTRACT_IR_VERSION 1

/* ---- contract.c ---------------------------------------------------------------------- */

/* The spelling of a rule kind in the IR and in reports: "unique", "enum", ... */
const char *contract_rule_kind_name(wr_rule_kind k);
bool contract_rule_kind_parse(const char *s, wr_rule_kind *out);
bool contract_mode_parse(const char *s, wr_rule_mode *out);
/* "widen" or "exact" (the IR's and YAML's spellings of a column's cast). */
bool contract_cast_mode_parse(const char *s, wr_cast_mode *out);
/* True for the comparisons a table rule accepts ("<=", "<", ">=", ">", "==", "!="). */
bool contract_op_valid(const char *op);
/* The default name of a column rule: "<column>.<kind>", checks "<column>.check[i]". */
char *contract_rule_default_name(const char *column, wr_rule_kind k, int check_index);
void contract_rule_clear(wr_column_rule *r);
void contract_rule_copy(wr_column_rule *dst, const wr_column_rule *src);
void contract_column_clear(wr_contract_column *c);
void contract_table_rule_clear(wr_table_rule *r);
/* Is rule r meaningful on a column of type t? Writes why not (one clause, no origin). */
bool contract_rule_check(const wr_contract_column *col, const wr_column_rule *r, char *why,
                         size_t why_size);
/* Does the column's cast mode make sense for its type (exact: a type some narrowing cast
 * leads to)? Writes why not. */
bool contract_cast_check(const wr_contract_column *col, char *why, size_t why_size);
/* Column names and rule names must not repeat (ir.c). */
int contract_check_names(const weir_contract *c, const char *origin, weir_error *err);
/* Closest word of `words` (NULL-terminated) to `s` when it is a plausible typo, or NULL. */
const char *contract_suggest(const char *s, const char *const *words);

/* ---- values.c: values of weir types, to and from text ------------------------------- */

typedef __int128 wr_i128;

/* A decimal literal ("12.5", "-3", "1e2" is refused) at `scale` digits: exact when
 * representable; otherwise rounded down (dir < 0), up (dir > 0), or refused (dir == 0). */
bool wc_value_decimal_parse(const char *s, int scale, int dir, wr_i128 *out);
/* A JSON number or string as a decimal at `scale` (see wc_value_decimal_parse). */
bool wc_value_decimal_from_json(const json_t *v, int scale, int dir, wr_i128 *out);
void wc_value_decimal_format(wr_i128 v, int scale, char *out, size_t size);
/* A double that is a whole number an int64 holds (1.0, -3e18), in *out; false for 1.5,
 * 1e300, NaN and the infinities, which a cast to int64_t would make undefined. */
bool wc_real_to_int64(double d, int64_t *out);
/* A fast 64-bit hash of bytes (enum and unique sets). */
uint64_t wc_value_hash_bytes(const uint8_t *p, size_t n);
/* "YYYY-MM-DD" -> days since 1970-01-01. */
bool wc_value_date_parse(const char *s, int64_t *days);
/* "YYYY-MM-DD[( |T)HH:MM[:SS[.fffffffff]]][Z|(+|-)HH:MM]" -> units since the epoch (UTC);
 * `unit` is 's', 'm', 'u' or 'n'. has_zone reports whether an offset or Z was given.
 * Fractions finer than the unit are refused. */
bool wc_value_timestamp_parse(const char *s, char unit, int64_t *out, bool *has_zone);
void wc_value_date_format(int64_t days, char *out, size_t size);
void wc_value_timestamp_format(int64_t v, char unit, bool utc, char *out, size_t size);
/* Shortest text that reads back as the same double ("62", "0.42", "1e+300"). */
void wc_value_double_format(double d, char *out, size_t size);
/* A JSON string for bytes that may not be UTF-8 (invalid bytes become \xNN text). */
json_t *wc_value_bytes_json(const uint8_t *p, size_t n);
/* The JSON value of a double (NaN and infinities become the strings "NaN", "inf",
 * "-inf", which JSON cannot hold as numbers). */
json_t *wc_value_double_json(double d);

/* The unit of a timestamp weir type ('u' or 'n'), 0 when t is not a timestamp. */
char wc_value_ts_unit(weir_type t);
bool wc_value_ts_utc(weir_type t);

/* ---- findings ---------------------------------------------------------------------------
 * Everything a check finds is added to a `findings` list as a JSON violation object plus
 * a sort key, so that report.c can order them (column order, then rule) and build the
 * messages from the objects alone (the same code serves wr_violation_message). */

typedef struct finding {
  long col_order;   /* declared column index; undeclared columns after; table rules last */
  int rule_order;   /* 0 missing/type/cast, 1 nulls, 2 + rule index, table rules by index */
  size_t seq;       /* insertion order, the last tie-break (qsort is not stable) */
  json_t *obj;      /* the violation object (owned) */
} finding;

typedef struct findings {
  finding *v;
  size_t n, cap;
  int sample_limit;
} findings;

void wc_findings_add(findings *f, long col_order, int rule_order, json_t *obj);
void wc_findings_clear(findings *f);
/* Sorts and fills each object's "message". */
void wc_findings_finish(findings *f);
/* A violation object with the common fields set (column may be NULL). */
json_t *wc_violation_new(wr_violation_kind kind, const char *column, const char *rule,
                      wr_rule_mode mode, int64_t count);
const char *wc_violation_kind_name(wr_violation_kind k);

/* Hot loops over Arrow buffers are compiled twice, for AVX2 and for baseline x86-64; the
 * loader picks the clone the CPU supports (GCC function multi-versioning). Not under the
 * sanitizers, whose instrumentation does not mix with ifunc resolvers. */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
#define WC_SIMD_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define WC_SIMD_CLONES
#endif

/* ---- hits: what one rule found across batches ---------------------------------------- */

typedef struct rule_hits {
  int64_t count;        /* violating rows (for unique: rows repeating an earlier value) */
  int64_t *rows;        /* first `limit` violating row numbers (global, 0-based) */
  int n_rows;
  json_t *samples; /* distinct sample values, at most `limit` (paired: each row's) */
  int limit;
  bool paired; /* samples are the values of `rows`, in order (not distinct) */
  /* Drop mode: per batch, a bitmap of violating rows (NULL when none in that batch). */
  bool collect_mask;
  uint8_t **masks;
  size_t n_batches;
} rule_hits;

void wc_hits_init(rule_hits *h, int limit, bool collect_mask, size_t n_batches);
void wc_hits_clear(rule_hits *h);
/* Records row `row` (batch-local index `i` of batch `batch`, global number `global`).
 * `sample` (may be NULL; stolen) is kept when fewer than `limit` distinct samples are
 * kept already. */
void wc_hits_add(rule_hits *h, size_t batch, int64_t i, int64_t batch_rows, int64_t global,
              json_t *sample);
/* True when more samples are wanted (callers skip formatting a value otherwise). */
static inline bool wc_hits_want_sample(const rule_hits *h) {
  return json_array_size(h->samples) < (size_t)h->limit;
}

/* ---- column access --------------------------------------------------------------------- */

/* One column of one batch: the array, the physical index of its first row (array offset
 * plus the enclosing batch's offset), its length, and where it is in the data. */
typedef struct col_view {
  const struct ArrowArray *arr;
  const struct ArrowSchema *field;
  int64_t off;
  int64_t len;
  size_t batch;       /* batch index */
  int64_t row_base;   /* global row number of the batch's first row */
  const uint8_t *skip; /* rows (batch-local bits) a rule must ignore, or NULL: `unique` in
                          drop mode skips rows other drop rules remove, so the first
                          occurrence kept is one that is written */
} col_view;

/* 64 validity bits starting at bit `pos` (all ones when there is no bitmap); bits past
 * `end` are zero. */
static inline uint64_t load_bits(const uint8_t *bits, int64_t pos, int64_t end) {
  int64_t n = end - pos;
  if (n <= 0) return 0;
  uint64_t w;
  if (!bits) {
    w = ~(uint64_t)0;
  } else {
    const uint8_t *p = bits + (pos >> 3);
    int sh = (int)(pos & 7);
    uint64_t lo;
    unsigned hi;
    if (n >= 72) { /* nine whole bytes exist: the fast path of every long column */
      memcpy(&lo, p, 8);
      hi = p[8];
    } else { /* near the end: read only the bytes that exist */
      int64_t need = (sh + (n < 64 ? n : 64) + 7) >> 3;
      unsigned char tmp[9] = {0};
      for (int64_t k = 0; k < need && k < 9; k++) tmp[k] = p[k];
      memcpy(&lo, tmp, 8);
      hi = tmp[8];
    }
    w = lo >> sh;
    if (sh) w |= (uint64_t)hi << (64 - sh);
  }
  if (n < 64) w &= (((uint64_t)1) << n) - 1;
  return w;
}

/* ---- check_columns.c: the column plan ----------------------------------------------- */

typedef struct col_plan {
  long in_idx;                    /* input column, -1 when missing */
  wr_cast_kind cast;            /* WIDEN also for an exact cast (`exact`) */
  bool narrowing;
  bool exact;                     /* a narrowing cast checked value by value (cast "exact") */
  long out_idx;                   /* column in the cast batches, -1 when not there */
} col_plan;

typedef struct plan {
  col_plan *cols;                 /* one per declared column */
  size_t n_cols;
  long *out_in;                   /* out column -> input column */
  long *out_decl;                 /* out column -> declared column, -1 for kept extras */
  int64_t n_out;
  struct ArrowSchema out_schema;  /* "+s" schema of the cast batches */
  bool broken;                    /* missing or uncastable columns: nothing to write */
} plan;

void wc_plan_columns(const weir_contract *c, const struct ArrowSchema *in_schema,
                  const wr_validate_options *opts, plan *p, findings *f);
void wc_plan_clear(plan *p);

/* ---- cast.c ------------------------------------------------------------------------------ */

/* Builds column `out` of declared type `t` from `src` (field `field`, physical start
 * `off`, `len` rows): a widening cast per wr_cast_check. Untouched buffers (validity,
 * string data) are borrowed from `owner`, not copied. Values the target cannot hold
 * (a timestamp that overflows a finer unit) are counted into `overflow` with samples.
 * Errors: WEIR_EUNSUPPORTED for a pair the types module allows but no kernel handles. */
int wc_cast_column(const struct ArrowSchema *field, const struct ArrowArray *src, int64_t off,
                int64_t len, weir_type t, wr_arrow_batch *owner, struct ArrowArray *out,
                rule_hits *overflow, size_t batch, int64_t row_base, weir_error *err);

/* A narrowing cast of a column declared cast "exact" (a pair wr_cast_exact allows):
 * each value that does not convert exactly (2.5 to an integer, 1.005 to two decimals, a
 * timestamp with sub-units the coarser unit lacks, a date64 off midnight) is added to
 * `inexact` with its value, and written as 0 (the column is reported; nothing is
 * written). Vectorised over 64-row words; no allocation per value. */
int wc_cast_exact_column(const struct ArrowSchema *field, const struct ArrowArray *src, int64_t off,
                         int64_t len, weir_type t, wr_arrow_batch *owner, struct ArrowArray *out,
                         rule_hits *inexact, size_t batch, int64_t row_base, weir_error *err);

/* ---- check_values.c --------------------------------------------------------------------- */

/* Null count of a column view (popcount); the first nulls are added to h. */
int64_t wc_check_nulls(const col_view *v, rule_hits *h);

/* A rule compiled for one column type (enum sets, bounds in the column's units, a
 * regex, a unique set); see check_values.c, rule_pattern.c, rule_unique.c. */
typedef struct compiled_rule compiled_rule;

int wc_compiled_rule_new(const wr_contract_column *col, const wr_column_rule *r,
                      int64_t expected_rows, compiled_rule **out, weir_error *err);
void wc_compiled_rule_free(compiled_rule *cr);
/* Runs the rule over one column view, adding violations to h. */
void wc_compiled_rule_run(compiled_rule *cr, const col_view *v, rule_hits *h);

/* The sample value of row i (physical index) of a column of declared type t. */
json_t *wc_value_sample(weir_type t, const struct ArrowArray *a, int64_t i);

/* Per-kind entry points used by wc_compiled_rule_run. */
typedef struct enum_set enum_set;
int wc_enum_compile(weir_type t, const json_t *values, enum_set **out, char *why, size_t n);
void wc_enum_free(enum_set *e);
void wc_enum_run(const enum_set *e, weir_type t, const col_view *v, rule_hits *h);

typedef struct range_bounds range_bounds;
int wc_range_compile(weir_type t, const json_t *min, const json_t *max, range_bounds **out,
                  char *why, size_t n);
void wc_range_free(range_bounds *r);
void wc_range_run(const range_bounds *r, weir_type t, const col_view *v, rule_hits *h);

typedef struct pattern_rule pattern_rule;
int wc_pattern_compile(const char *regex, pattern_rule **out, char *why, size_t n);
void wc_pattern_free(pattern_rule *p);
void wc_pattern_run(pattern_rule *p, const col_view *v, rule_hits *h);

typedef struct unique_set unique_set;
/* A set sized for `expected_rows` values (the input's row count). */
unique_set *wc_unique_new(weir_type t, int64_t expected_rows);
void wc_unique_free(unique_set *u);
void wc_unique_run(unique_set *u, weir_type t, const col_view *v, rule_hits *h);

/* ---- rule_sql.c ------------------------------------------------------------------------------ */

/* A data set the SQL rules run over: the cast batches (declared columns, in order). */
typedef struct sql_input {
  const struct ArrowSchema *schema;  /* "+s" */
  wr_arrow_batch **batches;
  size_t n_batches;
  const int64_t *row_base;           /* global row number of each batch's first row */
  const char *origin;                /* the contract's source file, for errors; or NULL */
} sql_input;

/* Evaluates every SQL check of the contract in one scan: check k's violating rows go to
 * hits[k] (checks in the order contract columns list them). */
int wc_sql_run_checks(wr_engine *e, const sql_input *in, const wr_column_rule *const *checks,
                   const char *const *columns, size_t n_checks, rule_hits *hits, weir_error *err);
/* Evaluates table rule r over `in`: *value (NaN when the query returned NULL). */
int wc_sql_run_table_rule(wr_engine *e, const sql_input *in, const wr_table_rule *r,
                       double *value, bool *is_null, weir_error *err);
/* Registers `in` with the engine under a fresh name (returned, caller frees) with an
 * extra int64 column __weir_row (the global row number) when with_row is set. */
int wc_sql_register(wr_engine *e, const sql_input *in, bool with_row, char **name,
                 wr_arrow_table *holder, weir_error *err);

/* ---- filter.c ---------------------------------------------------------------------------- */

/* Rows `idx` (n of them, ascending, batch-relative) of batch `b` (schema `s`, "+s") as
 * a new struct array (values copied; dictionaries and view buffers shared). */
int wc_filter_take_batch(const struct ArrowSchema *s, wr_arrow_batch *b, const int64_t *idx,
                      int64_t n, struct ArrowArray *out, weir_error *err);
/* A large_string column of n rows, row k holding texts[k]. */
void wc_filter_string_column(const char *const *texts, int64_t n, struct ArrowArray *out);

/* Checks partition_by against the columns (transform known, parameters positive, source
 * column declared, its type one the transform accepts, no transform repeated); returns
 * the index of the first bad entry with the reason in `why`, or -1 (contract.c). */
long contract_check_partition(const weir_contract *c, char *why, size_t why_n);

#endif
