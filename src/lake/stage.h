/*
 * stage.h -- validating and staging one table write (see stage.c): a model's output or an
 * import.
 */
#ifndef WEIR_LAKE_STAGE_H
#define WEIR_LAKE_STAGE_H

#include <jansson.h>
#include <stdbool.h>
#include "lake/lake.h"

typedef struct stage_request {
  const char *table;            /* "ns.name" of the output */
  weir_write_mode mode;         /* CREATE, APPEND or REPLACE */
  const weir_contract *contract;/* contract to validate against, or NULL (inferred from the
                                   data: types it widens to, required where no nulls) */
  bool declared;                /* contract was declared by the user: store it in the
                                   table's properties (IR, comment, lineage) */
  const weir_contract *table_contract; /* appends: the table's own schema; the data is also
                                   held to it and written with it (NULL: none) */
  const char *subject;          /* "model h (output, schema ExpensiveWomenCabins)" */
  const char *table_subject;    /* subject of the table_contract check */
  const char *comment;          /* table comment (model docstring), or NULL */
  json_t *summary;              /* snapshot summary entries (borrowed), or NULL */
  const char *base_commit;      /* commit the table's previous version is read at */
  const json_t *partition_by;   /* partition fields declared by a model (borrowed), or NULL */
} stage_request;

typedef struct stage_result {
  lake_staged staged[2];        /* the table, then its quarantine when rows were dropped */
  size_t n_staged;
  json_t *report;               /* validation report (also on a contract violation) */
  int64_t rows_written;
  int64_t rows_quarantined;
} stage_result;

void stage_result_clear(stage_result *r);
/* Consumes `data`. On WEIR_ECONTRACT, out->report is set and nothing is staged. */
int lake_stage_output(weir_lake *lake, wr_engine *engine, wr_arrow_table *data,
                 const stage_request *req, stage_result *out, weir_error *err);
json_t *stage_result_json(const stage_result *r);
int stage_result_from_json(const json_t *j, stage_result *out, weir_error *err);

#endif
