/*
 * fuzz_contract_yaml.c -- YAML contracts (wr_contract_from_yaml, src/contracts/yaml.c).
 *
 * Promises checked: an error names the origin, a line inside the input and is valid
 * UTF-8; a contract that parses survives the IR round trip (to_ir -> from_ir -> to_ir
 * gives the same IR) and a copy.
 */
#include "fuzz.h"

#include "contracts/contract.h"

#define ORIGIN "fuzz.yml"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  weir_contract *c = NULL;
  weir_error err = {0};
  int rc = wr_contract_from_yaml((const char *)data, size, ORIGIN, &c, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, ORIGIN ":");
    int line = fuzz_message_line(err.message, ORIGIN);
    if (line < 1 || line > fuzz_lines(data, size))
      fuzz_fail("error line %d outside the input (%d lines): %s", line, fuzz_lines(data, size), err.message);
    if (c) fuzz_fail("an error left a contract");
    weir_error_clear(&err);
    return 0;
  }
  json_t *ir = wr_contract_to_ir(c);
  weir_contract *c2 = NULL;
  if (wr_contract_from_ir(ir, "roundtrip", &c2, &err) != WEIR_OK)
    fuzz_fail("the IR of a parsed contract does not load: %s", err.message);
  json_t *ir2 = wr_contract_to_ir(c2);
  if (!json_equal(ir, ir2)) {
    char *a = json_dumps(ir, JSON_COMPACT | JSON_SORT_KEYS),
         *b = json_dumps(ir2, JSON_COMPACT | JSON_SORT_KEYS);
    fuzz_fail("IR round trip differs:\n%s\n%s", a, b);
  }
  weir_contract *c3 = wr_contract_copy(c);
  json_t *ir3 = wr_contract_to_ir(c3);
  if (!json_equal(ir, ir3)) fuzz_fail("a copy's IR differs");
  json_decref(ir);
  json_decref(ir2);
  json_decref(ir3);
  weir_contract_free(c);
  weir_contract_free(c2);
  weir_contract_free(c3);
  return 0;
}
