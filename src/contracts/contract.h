/*
 * contract.h -- data contracts: the compiled form (IR) of a YAML contract or a Python
 * TableSchema, and the one validator every writer goes through.
 *
 * The IR (docs/contract-ir.md) is JSON; this struct is its in-memory form. YAML contracts
 * (docs/contracts.md, "YAML contracts") compile to it with libyaml; the Python SDK emits
 * the JSON. The validator takes Arrow data and a contract and returns the data cast to
 * the declared types (widening only), minus rows rejected by drop-mode rules, plus the
 * rejected rows for `<table>__quarantine`, plus a report of every violation in the exact
 * message shapes of the spec.
 */
#ifndef WEIR_CONTRACTS_CONTRACT_H
#define WEIR_CONTRACTS_CONTRACT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "arrow/arrow.h"
#include "engine/engine.h"
#include "types/schema.h"
#include "util/error.h"

typedef enum wr_rule_mode {
  WEIR_MODE_FAIL = 0,  /* a hard contract: nothing is written */
  WEIR_MODE_DROP = 1,  /* violating rows go to <table>__quarantine */
  WEIR_MODE_WARN = 2   /* written; the violation is reported and recorded */
} wr_rule_mode;

const char *wr_rule_mode_name(wr_rule_mode m); /* "fail", "drop", "warn" */

typedef enum wr_rule_kind {
  WEIR_RULE_UNIQUE = 0,
  WEIR_RULE_ENUM,
  WEIR_RULE_PATTERN,
  WEIR_RULE_RANGE,
  WEIR_RULE_CHECK      /* a SQL boolean expression over the row */
} wr_rule_kind;

/* A rule on one column. */
typedef struct wr_column_rule {
  wr_rule_kind kind;
  char *name;            /* e.g. "Age.range", or a user-given name */
  wr_rule_mode mode;
  json_t *values;        /* enum: allowed values (JSON array of numbers or strings) */
  json_t *value_names;   /* enum: names of the values (array of strings) or NULL */
  char *pattern;         /* pattern: PCRE2 regex, matched against the whole value */
  json_t *min;           /* range: inclusive bounds (number or string), NULL = open */
  json_t *max;
  char *sql;             /* check: SQL boolean expression */
  int line;              /* where it was declared in the contract's source (1-based), 0 if unknown */
  int column;
} wr_column_rule;

/* How data of another Arrow type is given the column's declared type (docs/types.md). */
typedef enum wr_cast_mode {
  WEIR_CAST_MODE_WIDEN = 0, /* widening casts only (the default): no value can change */
  WEIR_CAST_MODE_EXACT = 1  /* also narrowing casts, checked value by value: a value that
                               does not convert exactly (2.5 to Int64) is a violation */
} wr_cast_mode;

const char *wr_cast_mode_name(wr_cast_mode m); /* "widen", "exact" */

typedef struct wr_contract_column {
  wr_field field;      /* name, type, required, doc, lineage (field_id unused here) */
  wr_cast_mode cast;   /* IR "cast"; YAML cast:, Python TableField(cast=...) */
  wr_column_rule *rules;
  size_t n_rules;
  int line;              /* where it was declared (1-based), 0 if unknown */
  int column;
} wr_contract_column;

/* A rule over the whole table: a SQL query over {table} returning one number. */
typedef struct wr_table_rule {
  char *name;
  char *sql;
  double threshold;
  char op[3];            /* "<=" (default), "<", ">=", ">", "==", "!=" */
  wr_rule_mode mode;
  int line;              /* where it was declared (1-based), 0 if unknown */
  int column;
} wr_table_rule;

struct weir_contract {
  char *name;            /* contract / schema name */
  char *version;
  char *owner;
  char *description;     /* the table doc (-> Iceberg `comment`) */
  wr_rule_mode mode;   /* default mode of rules that do not set one */
  json_t *sla;           /* object or NULL, recorded as given */
  char *origin;          /* file the contract came from, or NULL */
  int line;
  wr_contract_column *columns;
  size_t n_columns;
  wr_table_rule *rules;
  size_t n_rules;
  char **partition_by;   /* the table's partition fields as declared ("day(ts)",
                            "bucket(16, id)"), checked against the columns; owned */
  size_t n_partition_by;
  int partition_line;    /* where partition_by was declared (1-based), 0 if unknown */
};
typedef struct weir_contract weir_contract;

/* ---- loading and the IR ------------------------------------------------------------- */

/* From the IR JSON (docs/contract-ir.md). `origin` names the source in errors. Errors:
 * WEIR_EINPUT naming origin and the field. */
int wr_contract_from_ir(const json_t *ir, const char *origin, weir_contract **out,
                          weir_error *err);
/* The IR JSON of a contract (new reference). Round-trips with wr_contract_from_ir. */
json_t *wr_contract_to_ir(const weir_contract *c);
/* From YAML text (docs/contracts.md "YAML contracts"): `contract:` with name, version,
 * owner, description, mode, sla, columns (or schema) and rules (or quality_rules). Errors
 * name origin, line and column: a syntax error, an unknown type name, an unknown key, a
 * bad rule. */
int wr_contract_from_yaml(const char *text, size_t len, const char *origin,
                            weir_contract **out, weir_error *err);
/* Loads .yml/.yaml (YAML) or .json (IR) from a file. */
int wr_contract_load_file(const char *path, weir_contract **out, weir_error *err);
void wr_contract_free(weir_contract *c);
weir_contract *wr_contract_copy(const weir_contract *c);

/* Removes column i (and the rules declared on it); nothing when i is out of range. */
void wr_contract_remove_column(weir_contract *c, size_t i);
/* The contract's columns as a schema (copies; field ids 0). */
void wr_contract_schema(const weir_contract *c, wr_schema *out);
/* A contract with just the columns of a schema and no rules (an Iceberg table's current
 * schema used as the contract of an append). */
weir_contract *wr_contract_from_schema(const wr_schema *s, const char *name);

/* What changing contract `old` to `new_` breaks (diff.c, docs/contracts.md "Breaking
 * changes"): {old: {name, version}, new: {...}, breaking, breaks_consumers,
 * breaks_producers, version_ok (false when a breaking change does not raise the major
 * version), version_message, changes: [{change, column, message, breaks: ["consumers",
 * "producers"]}], affected_columns (old columns a consumer-breaking change touches),
 * table_wide (a table rule changed: every reader is affected)}. New reference. */
json_t *wr_contract_diff(const weir_contract *old, const weir_contract *new_);

/* True when the contract has SQL (a check or a table rule): validating it needs an engine,
 * which should have no file access (the lake lends a sealed one). */
bool wr_contract_has_sql(const weir_contract *c);

/* Lineage map {column: [refs]} for the weir.lineage table property (new reference). */
json_t *wr_contract_lineage_json(const weir_contract *c);

/* ---- validation --------------------------------------------------------------------- */

typedef struct wr_validate_options {
  bool is_output;        /* unknown columns fail (outputs); inputs allow and drop them */
  bool project;          /* inputs with a projection schema: keep only declared columns */
  const char *subject;   /* for the message header, e.g. "model h (output, schema
                            ExpensiveWomenCabins)" or "import of titanic.csv into
                            default.titanic (contract titanic)" */
  wr_engine *engine;   /* runs SQL checks and table rules; NULL = the validator opens
                            its own when a contract has SQL rules */
  int sample_limit;      /* sample values and row numbers kept per violation; 0 = 3 */
  const wr_arrow_table *unique_seed; /* values already in the table (appends): a row
                            repeating one of them breaks `unique` too. Columns are matched
                            by name and used when their type is the declared one; the
                            table must stay alive during the call. NULL: none */
} wr_validate_options;

typedef enum wr_violation_kind {
  WEIR_V_MISSING = 0, /* a declared column is missing */
  WEIR_V_UNKNOWN,     /* a column the contract does not declare (outputs) */
  WEIR_V_TYPE,        /* a type that differs and cannot be widened; or values a cast
                            cannot hold (a timestamp overflowing a finer unit, a value an
                            exact cast cannot convert without loss) */
  WEIR_V_NULLS,       /* nulls in a required column */
  WEIR_V_UNIQUE,
  WEIR_V_ENUM,
  WEIR_V_PATTERN,
  WEIR_V_RANGE,
  WEIR_V_CHECK,
  WEIR_V_TABLE_RULE
} wr_violation_kind;

typedef struct wr_validation {
  bool failed;                  /* a fail-mode violation was found: write nothing */
  wr_arrow_table valid;       /* the data to write: cast, drop-mode rows removed */
  wr_arrow_table quarantine;  /* rows removed by drop-mode rules, with a string column
                                   `_weir_rule` naming the rule(s); n_rows 0 if none */
  json_t *report;               /* {ok, rows_in, rows_valid, rows_quarantined,
                                   violations: [{kind, column, rule, mode, count, rows,
                                   samples, message}], rules: [{rule, kind, column, mode,
                                   value, threshold, rows_affected, passed}], casts:
                                   [{column, from, to, cast}]} */
} wr_validation;

void wr_validation_clear(wr_validation *v);

/*
 * Validates `in` (consumed: its batches are moved into the result or released) against a
 * contract. Stage-3 rules of docs/contracts.md: missing / unknown / uncastable columns,
 * nulls in required columns, then quality rules by mode. All violations are collected.
 * Nullability, type and enum checks read the Arrow buffers directly in one pass; columns
 * that need no cast are passed through without a copy. On a fail-mode violation returns
 * WEIR_ECONTRACT with a message of exactly this shape:
 *
 *   contract violation in <subject>:
 *     - missing column "Fare" (expected double)
 *     - column "pid" has 3 null values but is required (rows 4, 17, 90)
 *
 * (no "error: " prefix; the CLI adds it) and err->details = the violations array; `out`
 * is still filled (report included) so callers can record it.
 */
int wr_contract_validate(const weir_contract *c, wr_arrow_table *in,
                           const wr_validate_options *opts, wr_validation *out,
                           weir_error *err);

/* The one-line message of a violation object from a report (as in the list above,
 * without the leading "  - "). Caller frees. */
char *wr_violation_message(const json_t *violation);

#endif
