/*
 * api.h -- what the public entry points of src/api/ share.
 *
 * src/api/ is libweir's boundary: one file per object of include/weir.h (lake.c,
 * branch.c, commit.c, ...), each public function defined in the file named for its noun.
 * An entry point checks what only the boundary can (options struct versions, NULL
 * handles) and calls the implementation in its module (lake_*, pipeline_*), which may
 * assume those checks. Nothing inside src/ calls a weir_ function of this folder.
 */
#ifndef WEIR_API_API_H
#define WEIR_API_API_H

#include "util/error.h"
#include "weir.h"

/* WEIR_OK when an options struct may be used: NULL (defaults) or of version `known`.
 * Otherwise WEIR_EINVALIDARG naming the struct and both versions (0: a struct zeroed by
 * hand instead of initialised with its _INIT macro or _init function). */
int api_check_version(const char *struct_name, unsigned int version, unsigned int known, weir_error *err);
#define API_CHECK_OPTS(opts, struct_name, known)                                      \
  do {                                                                                \
    if ((opts) != NULL) {                                                             \
      int api_rc_ = api_check_version(struct_name, (opts)->version, (known), err);    \
      if (api_rc_) return api_rc_;                                                    \
    }                                                                                 \
  } while (0)

/* The body of a weir_<name>_options_init: WEIR_EINVALIDARG for an unknown version (opts
 * untouched), else *opts zeroed with its version set. */
int api_options_init(void *opts, size_t size, unsigned int version, unsigned int known);

/* WEIR_EINVALIDARG "<fn>: no lake handle" unless lake is set. */
#define API_CHECK_LAKE(lake, fn)                                                         \
  do {                                                                                   \
    if (!(lake)) return wr_seterr(err, WEIR_EINVALIDARG, "%s: the lake handle is NULL", fn); \
    wr_json_mark(); /* a public call starts: jansson failures count from here (error.h) */ \
  } while (0)

/* Returns `call` (an int expression) run as a write: under the lake's writer lock
 * (lake/writers.c), which a gc with a short grace period waits for. */
#define API_WRITE(lake, call)                                                            \
  do {                                                                                   \
    lake_writer_enter(lake);                                                             \
    int api_rc_ = (call);                                                                \
    lake_writer_leave(lake);                                                             \
    return api_rc_;                                                                      \
  } while (0)

#endif
