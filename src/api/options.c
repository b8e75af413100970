/*
 * options.c -- what every entry point of src/api/ shares: checking options versions.
 *
 * (weir_error_clear, weir_error_name and weir_error_exit_code live with the rest of the
 * error model in src/util/error.c, which every module uses.)
 */
#include "api/api.h"

#include <string.h>

int api_check_version(const char *struct_name, unsigned int version, unsigned int known, weir_error *err) {
  if (version == known) return WEIR_OK;
  if (version == 0)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "%s has version 0: initialise it with its _INIT macro or _options_init() (this libweir %s "
                     "knows version %u)",
                     struct_name, WEIR_VERSION_STRING, known);
  return wr_seterr(err, WEIR_EINVALIDARG,
                   "%s has version %u, but this libweir (%s) knows version %u: the program was built against "
                   "another weir.h",
                   struct_name, version, WEIR_VERSION_STRING, known);
}

int api_options_init(void *opts, size_t size, unsigned int version, unsigned int known) {
  if (!opts || version != known) return WEIR_EINVALIDARG;
  memset(opts, 0, size);
  memcpy(opts, &version, sizeof version); /* every options struct starts with its version */
  return WEIR_OK;
}
