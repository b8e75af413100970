/*
 * contract.c -- weir_contract_*: loading, printing and checking data contracts.
 */
#include "api/api.h"
#include "lake/lake.h"
#include "contracts/contract.h"

int weir_contract_load(const char *path, weir_contract **out, weir_error *err) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  return lake_contract_load(path, out, err);
}

int weir_contract_parse(const char *text, size_t len, const char *format, const char *origin, weir_contract **out, weir_error *err) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  return lake_contract_parse(text, len, format, origin, out, err);
}

char *weir_contract_to_json(const weir_contract *contract) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  return lake_contract_to_json(contract);
}

void weir_contract_free(weir_contract *contract) {
  wr_contract_free(contract);
}

int weir_contract_validate(const weir_contract *contract, struct ArrowArrayStream *in, struct ArrowArrayStream *out_valid, char **out_report_json, weir_error *err) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  return lake_contract_validate(contract, in, out_valid, out_report_json, err);
}

int weir_contract_diff(const weir_contract *old_contract, const weir_contract *new_contract, char **out_json,
                       weir_error *err) {
  wr_json_mark(); /* a public call starts (util/error.h) */
  return lake_contract_diff(old_contract, new_contract, out_json, err);
}
