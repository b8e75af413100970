/*
 * stage.h -- validating and staging one model's output (see stage.c).
 */
#ifndef WEIR_PIPELINE_STAGE_H
#define WEIR_PIPELINE_STAGE_H

#include <jansson.h>
#include <stdbool.h>
#include "lake/lake.h"

typedef struct stage_request {
  const char *table;            /* "ns.name" of the output */
  bool append;                  /* APPEND materialization (else REPLACE) */
  const weir_contract *contract;/* declared output contract, or NULL (inferred from data) */
  const char *subject;          /* "model h (output, schema ExpensiveWomenCabins)" */
  const char *comment;          /* table comment (model docstring), or NULL */
  json_t *summary;              /* snapshot summary entries (borrowed), or NULL */
  const char *base_commit;      /* commit the table's previous version is read at */
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
int stage_output(weir_lake *lake, weir_engine *engine, weir_arrow_table *data,
                 const stage_request *req, stage_result *out, weir_error *err);
json_t *stage_result_json(const stage_result *r);
int stage_result_from_json(const json_t *j, stage_result *out, weir_error *err);

#endif
