/*
 * writers.c -- the lake's writer lock: how gc on this machine knows that no write is in
 * flight (docs/gc.md, "Writers on this machine").
 *
 * Every write through the API (imports, registrations, compactions, runs, merges,
 * reverts, REST commits of weir serve, SDK writes) holds LOCK_SH on LAKE/writers.lock
 * from its entry until it has committed or failed. gc with a grace period shorter than
 * LAKE_GC_SAFE_GRACE_US takes LOCK_EX around its listing and its reading of the catalog:
 * once it has it, no write on this machine has files that no commit names yet, so every
 * file in the listing is either named by a commit gc reads or an orphan of a finished
 * write. Writers that start meanwhile wait (gc holds the lock briefly) and write files
 * the listing does not hold.
 *
 * Invariants:
 *   - The lock is advisory and per machine: writers on other machines (a warehouse on S3
 *     with a catalog on PostgreSQL) do not see it; for them the grace period is the rule.
 *   - A write that cannot open the lock file (a read-only lake folder) goes on without
 *     it: its catalog and warehouse decide whether it may write, not this file.
 *   - Nested writes through one handle (a run's model outputs, a compaction after an
 *     import) share one LOCK_SH: `depth` counts them, the lock goes with the last.
 *   - gc never blocks on the lock: it tries without blocking and gives up after a bounded
 *     wait with WEIR_ECONCURRENT, because the writer holding it may be this very process
 *     (another thread's handle, or a callback of a write that calls gc), which a blocking
 *     flock would wait for forever.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <time.h>
#include <unistd.h>

#include "lake/lake.h"
#include "util/failpoint.h"

static char *lock_path(const weir_lake *lake) { return wr_asprintf("%s/writers.lock", lake->path); }

static int open_lock(const weir_lake *lake) {
  char *p = lock_path(lake);
  int fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  free(p);
  return fd;
}

int lake_writer_lock_create(weir_lake *lake, weir_error *err) {
  int fd = open_lock(lake);
  if (fd < 0) {
    int e = errno;
    char *p = lock_path(lake);
    int rc = wr_seterr(err, WEIR_EIO, "cannot create %s: %s", p, strerror(e));
    free(p);
    return rc;
  }
  close(fd);
  return WEIR_OK;
}

void lake_writer_enter(weir_lake *lake) {
  if (lake->writer_depth++ > 0) return;
  lake->writer_fd = open_lock(lake);
  if (lake->writer_fd < 0) return; /* read-only lake folder: no lock (see above) */
  /* Blocking is safe: LOCK_EX is only ever held by gc for its listing and catalog read,
   * and gc never writes, so it never waits for this process while holding it. */
  while (flock(lake->writer_fd, LOCK_SH) != 0 && errno == EINTR) {
  }
}

void lake_writer_leave(weir_lake *lake) {
  if (lake->writer_depth == 0 || --lake->writer_depth > 0) return;
  if (lake->writer_fd >= 0) close(lake->writer_fd); /* releases the lock */
  lake->writer_fd = -1;
}

int lake_writers_exclude(weir_lake *lake, int64_t timeout_us, int *out_fd, bool *waited, weir_error *err) {
  *out_fd = -1;
  *waited = false;
  /* A handle is used by one thread at a time, so a write in flight through this very
   * handle means gc was called from inside it (its progress callback): waiting for it can
   * never end. */
  if (lake->writer_depth > 0)
    return wr_seterr(err, WEIR_ECONCURRENT,
                     "gc was called while a write through the same lake handle is in flight (from its "
                     "progress callback?); with a grace period under ten minutes gc waits for every write "
                     "in flight, which this one cannot finish first: run gc after the write, or give --grace "
                     "10m or longer");
  int fd = open_lock(lake);
  if (fd < 0)
    return wr_seterr(err, WEIR_EIO,
                     "gc: cannot open the writer lock %s/writers.lock (%s); a gc with a grace period under ten "
                     "minutes needs it to know no write is in flight (give --grace 10m or longer, or run gc "
                     "where the lake folder is writable)",
                     lake->path, strerror(errno));
  struct timespec step = {0, 10 * 1000 * 1000}; /* 10 ms between attempts */
  int64_t waited_us = 0;
  for (;;) {
    if (flock(fd, LOCK_EX | LOCK_NB) == 0) break;
    if (errno == EINTR) continue;
    if (errno != EWOULDBLOCK) {
      int e = errno;
      close(fd);
      return wr_seterr(err, WEIR_EIO, "gc: locking %s/writers.lock: %s", lake->path, strerror(e));
    }
    if (!*waited) {
      *waited = true;
      /* A test's hand-off: gc is now known to wait for a writer. */
      int rc = WEIR_FAILPOINT("gc.writers.wait", err);
      if (rc) {
        close(fd);
        return rc;
      }
    }
    if (waited_us >= timeout_us) {
      close(fd);
      return wr_seterr(err, WEIR_ECONCURRENT,
                       "gc: writes are in flight on this lake (%s holds the writer lock %s/writers.lock) and "
                       "did not finish within %lld s; a gc with a grace period under ten minutes deletes only "
                       "when no write is in flight. Retry, or give --grace 10m or longer",
                       "another weir process or lake handle",
                       lake->path, (long long)(timeout_us / 1000000));
    }
    nanosleep(&step, NULL);
    waited_us += 10000;
  }
  *out_fd = fd;
  return WEIR_OK;
}
