/*
 * child.h -- starting a child process with exactly the descriptors, environment and
 * sandbox it is given (child.c).
 */
#ifndef WEIR_PIPELINE_CHILD_H
#define WEIR_PIPELINE_CHILD_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "pipeline/sandbox.h"
#include "util/error.h"

typedef struct pipeline_child {
  const char *path; /* the program: a path (no PATH search after fork; see
                              pipeline_find_program) */
  char *const *argv;
  char *const *envp;               /* NULL: this process's environment */
  const char *cwd;                 /* NULL: this process's */
  int fd_in, fd_out, fd_err;       /* become 0, 1, 2 in the child; -1: /dev/null */
  int fd_extra;                    /* becomes 3 when >= 0 */
  const sandbox_prepared *sandbox; /* entered before exec; NULL: none */
  bool session;                    /* setsid() (no controlling terminal) instead of setpgid(0, 0) */
  int death_signal;                /* sent to the child when the starting thread dies (0: SIGTERM) */
} pipeline_child;

/* Forks and execs `c`. On success *pid is the child's pid (also its process group),
 * which the caller reaps with pipeline_child_wait. The descriptors in `c` stay open in
 * the parent (the caller closes its copies).
 * Errors: WEIR_ENOTFOUND (no such program), WEIR_EIO (fork failed, or the child could
 * not enter its sandbox: the message names the step and errno). */
int pipeline_child_start(const pipeline_child *c, pid_t *pid, weir_error *err);

/* Waits for `pid`: its exit status, or 128 + the signal that killed it; -1 on error.
 * `usage` (may be NULL) receives its resource usage (ru_maxrss: peak resident KiB). */
int pipeline_child_wait(pid_t pid, struct rusage *usage);

/* Resident memory of a process in bytes, from /proc/<pid>/statm (0 when unreadable). */
int64_t pipeline_child_resident(pid_t pid);

/* `name` resolved on $PATH as execvp would (a name with '/' is returned as is). The
 * result is always a new string; a name not found is returned unchanged, so that exec
 * fails with ENOENT and the caller reports it. */
char *pipeline_find_program(const char *name);

/* write(2) to a pipe whose reader may be gone, without SIGPIPE and without touching the
 * process's SIGPIPE disposition (a host program's to choose): SIGPIPE is blocked in the
 * calling thread for the write, and the one the write raised (EPIPE) is consumed before
 * the mask is restored. A SIGPIPE already pending before the call is left pending.
 * Returns what write returns, errno EPIPE when the reader is gone. */
ssize_t pipeline_write_nosigpipe(int fd, const void *buf, size_t n);

#endif
