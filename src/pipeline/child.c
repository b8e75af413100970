/*
 * child.c -- starting one child process: its descriptors, environment, process group,
 * and (for code of a project) the sandbox, entered between fork and exec.
 *
 * The parent may be multi-threaded (the Python SDK, DuckDB's threads), so between fork
 * and exec the child runs only system calls: everything it needs (argv, envp, the
 * sandbox's ruleset and filter) is made before fork. A child that cannot set itself up or
 * exec reports the step and errno through a close-on-exec pipe, which the parent reads
 * before returning: an exec that succeeded closes it empty.
 *
 * The child keeps exactly the descriptors it is given (0, 1, 2 and optionally 3): every
 * other one is closed before exec, whatever its close-on-exec flag, so that no
 * descriptor of the runner (the catalog's database, a warehouse file) can leak into a
 * sandboxed process, where Landlock would no longer check it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <time.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline/child.h"

extern char **environ;

#ifndef __NR_close_range
#define __NR_close_range 436
#endif

/* What the child reports when it cannot exec. */
typedef struct child_failure {
  int err;
  char step[32];
} child_failure;

static void report(int fd, const char *step, int e) {
  child_failure f;
  memset(&f, 0, sizeof f);
  f.err = e;
  size_t n = strlen(step);
  memcpy(f.step, step, n < sizeof f.step - 1 ? n : sizeof f.step - 1);
  ssize_t w = write(fd, &f, sizeof f);
  (void)w;
  _exit(127);
}

ssize_t pipeline_write_nosigpipe(int fd, const void *buf, size_t n) {
  sigset_t pipe_set, old, pending;
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
  sigemptyset(&pending);
  sigpending(&pending);
  bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  ssize_t w = write(fd, buf, n);
  int saved = errno;
  if (w < 0 && saved == EPIPE && !was_pending) {
    /* The write raised SIGPIPE for this thread: take it off the pending set. */
    struct timespec zero = {0, 0};
    while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  errno = saved;
  return w;
}

/* Closes every descriptor from `from` up. */
static void close_from(int from) {
  if (syscall(__NR_close_range, (unsigned)from, ~0u, 0u) == 0) return;
  for (int fd = from; fd < 65536; fd++) close(fd);
}

static void child_main(const pipeline_child *c, int report_fd) {
  /* Signal handlers and masks of the runner are not the child's. */
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  signal(SIGINT, SIG_DFL);
  signal(SIGTERM, SIG_DFL);
  /* Its own process group, so that the runner can stop it and anything it runs; a new
   * session for sandboxed code, which then has no controlling terminal to open or push
   * characters into. It dies with the runner's thread. */
  if (c->session) {
    if (setsid() < 0) report(report_fd, "setsid", errno);
  } else {
    setpgid(0, 0);
  }
  prctl(PR_SET_PDEATHSIG, c->death_signal ? c->death_signal : SIGTERM);

  /* Descriptors: move every source above the targets first, so that a source that is
   * itself 0..3 is not overwritten before it is used (the sandbox's ruleset too). */
  sandbox_prepared sb;
  if (c->sandbox) {
    sb = *c->sandbox;
    sb.ruleset_fd = fcntl(c->sandbox->ruleset_fd, F_DUPFD_CLOEXEC, 16);
    if (sb.ruleset_fd < 0) report(report_fd, "dup", errno);
  }
  int src[4] = {c->fd_in, c->fd_out, c->fd_err, c->fd_extra};
  int n = c->fd_extra >= 0 ? 4 : 3;
  int tmp[4] = {-1, -1, -1, -1};
  for (int i = 0; i < n; i++) {
    int s = src[i];
    if (s < 0) {
      s = open("/dev/null", i == 0 ? O_RDONLY : O_WRONLY);
      if (s < 0) report(report_fd, "open /dev/null", errno);
    }
    tmp[i] = fcntl(s, F_DUPFD, 16);
    if (tmp[i] < 0) report(report_fd, "dup", errno);
  }
  int rep = fcntl(report_fd, F_DUPFD_CLOEXEC, 16);
  if (rep < 0) report(report_fd, "dup", errno);
  for (int i = 0; i < n; i++)
    if (dup2(tmp[i], i) < 0) report(rep, "dup2", errno);
  if (dup2(rep, n) < 0) report(rep, "dup2", errno);
  rep = n;
  fcntl(rep, F_SETFD, FD_CLOEXEC);

  if (c->cwd && chdir(c->cwd) != 0) report(rep, "chdir", errno);
  if (c->sandbox) {
    /* Before the descriptors are closed: it uses the ruleset's. */
    const char *step = NULL;
    int e = sandbox_enter(&sb, &step);
    if (e) report(rep, step ? step : "sandbox", e);
  }
  close_from(n + 1);
  execve(c->path, c->argv, c->envp ? c->envp : environ);
  report(rep, "exec", errno);
}

int pipeline_child_start(const pipeline_child *c, pid_t *pid_out, weir_error *err) {
  *pid_out = -1;
  int rp[2];
  if (pipe2(rp, O_CLOEXEC) != 0)
    return wr_seterr(err, WEIR_EIO, "cannot start %s: %s", c->path, strerror(errno));
  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(rp[0]);
    close(rp[1]);
    return wr_seterr(err, WEIR_EIO, "cannot start %s: %s", c->path, strerror(e));
  }
  if (pid == 0) {
    close(rp[0]);
    child_main(c, rp[1]);
  }
  close(rp[1]);
  child_failure f;
  ssize_t r;
  while ((r = read(rp[0], &f, sizeof f)) < 0 && errno == EINTR) {
  }
  close(rp[0]);
  if (r == (ssize_t)sizeof f) {
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (strcmp(f.step, "exec") == 0)
      return wr_seterr(err, WEIR_ENOTFOUND,
                         "cannot run %s: %s (set WEIR_PYTHON to a Python with the weir SDK)", c->path,
                         strerror(f.err));
    return wr_seterr(err, WEIR_EIO, "cannot start %s%s: %s failed: %s", c->path,
                       c->sandbox ? " in the model sandbox" : "", f.step, strerror(f.err));
  }
  *pid_out = pid;
  return WEIR_OK;
}

int pipeline_child_wait(pid_t pid, struct rusage *usage) {
  int status = 0;
  while (wait4(pid, &status, 0, usage) < 0) {
    if (errno != EINTR) return -1;
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

char *pipeline_find_program(const char *name) {
  if (!name || !*name) return wr_strdup("");
  if (strchr(name, '/')) return wr_strdup(name);
  const char *path = getenv("PATH");
  if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
  const char *p = path;
  for (;;) {
    const char *end = strchr(p, ':');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    char *cand = len ? wr_asprintf("%.*s/%s", (int)len, p, name) : wr_asprintf("./%s", name);
    if (access(cand, X_OK) == 0) return cand;
    free(cand);
    if (!end) break;
    p = end + 1;
  }
  return wr_strdup(name);
}

int64_t pipeline_child_resident(pid_t pid) {
  char path[64];
  snprintf(path, sizeof path, "/proc/%d/statm", (int)pid);
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[256];
  ssize_t n = read(fd, buf, sizeof buf - 1);
  close(fd);
  if (n <= 0) return 0;
  buf[n] = 0;
  long long size = 0, rss = 0;
  if (sscanf(buf, "%lld %lld", &size, &rss) != 2) return 0;
  return (int64_t)rss * (int64_t)sysconf(_SC_PAGESIZE);
}
