/*
 * fuzz_contract_ir.c -- contract IR JSON (weir_contract_parse with format "json":
 * wr_json_parse, then wr_contract_from_ir in src/contracts/ir.c), as the Python SDK
 * and `weir import --contract x.json` hand it over.
 *
 * Promises checked: an error names the origin and is valid UTF-8; a contract that loads
 * reaches a fixed point after one round trip (from_ir(to_ir(c)) has the IR of c).
 */
#include "fuzz.h"

#include "contracts/contract.h"
#include "weir.h"

#define ORIGIN "fuzz.json"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  weir_contract *c = NULL;
  weir_error err = {0};
  int rc = weir_contract_parse((const char *)data, size, "json", ORIGIN, &c, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, ORIGIN);
    if (c) fuzz_fail("an error left a contract");
    weir_error_clear(&err);
    return 0;
  }
  json_t *ir = wr_contract_to_ir(c);
  weir_contract *c2 = NULL;
  if (wr_contract_from_ir(ir, "roundtrip", &c2, &err) != WEIR_OK)
    fuzz_fail("the IR of a loaded contract does not load: %s", err.message);
  json_t *ir2 = wr_contract_to_ir(c2);
  if (!json_equal(ir, ir2)) {
    char *a = json_dumps(ir, JSON_COMPACT | JSON_SORT_KEYS),
         *b = json_dumps(ir2, JSON_COMPACT | JSON_SORT_KEYS);
    fuzz_fail("IR round trip differs:\n%s\n%s", a, b);
  }
  /* The text form the SDK and `weir describe` show. */
  char *text = weir_contract_to_json(c);
  if (!text) fuzz_fail("weir_contract_to_json gave NULL");
  free(text);
  json_decref(ir);
  json_decref(ir2);
  weir_contract_free(c);
  weir_contract_free(c2);
  return 0;
}
