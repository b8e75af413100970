/*
 * failpoint.h -- named points in the write path where a test build can fail or die.
 *
 * A write crosses several steps (data files, manifests, metadata, the catalog
 * transaction, a run's publish); the crash and fault tests need to stop it exactly
 * between two of them, and to make one of them fail as a full or broken disk would.
 * Failpoints are compiled only into builds configured with -DWEIR_FAILPOINTS=ON (the
 * sanitizer build the test suite uses); in every other build WEIR_FAILPOINT is the
 * constant WEIR_OK and WEIR_FAILPOINT_ERRNO is 0, so release code has no trace of them
 * and reads no environment variable for them.
 *
 * In a failpoint build, $WEIR_FAILPOINTS holds comma-separated rules NAME:ACTION[:N]:
 *   kill     the process raises SIGKILL at the point (nothing is flushed or cleaned up)
 *   stop     the process raises SIGSTOP there and goes on when it gets SIGCONT (a test
 *            makes other writers run meanwhile; only at points outside a catalog
 *            transaction, which would hold the write lock)
 *   error    the step fails with WEIR_EIO "injected failure at NAME"
 *   eio      the step fails as an I/O error would (errno EIO) -- for file writes, the
 *            write itself fails with that errno, so the real error path runs
 *   enospc   the same with ENOSPC ("No space left on device")
 * N (default 1) is the hit that triggers: the Nth time the process reaches NAME; other
 * hits pass. The names in use are listed in docs/failpoints.md.
 */
#ifndef WEIR_UTIL_FAILPOINT_H
#define WEIR_UTIL_FAILPOINT_H

#include "util/error.h"

#ifdef WEIR_FAILPOINTS
/* WEIR_OK, or (for error/eio/enospc rules) the error, filled into err; never returns for
 * kill. Thread-safe. */
int wr_failpoint(const char *name, weir_error *err);
/* 0, or the errno an eio/enospc rule for NAME injects (error: EIO). Thread-safe. */
int wr_failpoint_errno(const char *name);
#define WEIR_FAILPOINT(name, err) wr_failpoint((name), (err))
#define WEIR_FAILPOINT_ERRNO(name) wr_failpoint_errno(name)
#else
#define WEIR_FAILPOINT(name, err) ((void)(err), WEIR_OK)
#define WEIR_FAILPOINT_ERRNO(name) 0
#endif

#endif
