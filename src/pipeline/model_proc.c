/*
 * model_proc.c -- the two processes of one Python model, started and watched together.
 *
 *   the model process   `<model's interpreter> -B -m weir.model_host`, in the sandbox:
 *                       imports the project's code and calls the model function; it
 *                       gets its inputs and returns its output as Arrow IPC in memfds;
 *   the worker          `<SDK's interpreter> -m weir.worker`, trusted, outside it: reads
 *                       the inputs through libweir, hands them over, validates and
 *                       writes what comes back (docs/worker.md). It never imports the
 *                       project's code or the model's packages.
 *
 * They talk over one unix socket pair (descriptor 3 in both), which is created here, so
 * that neither has to start the other: both start at once, and the model imports its
 * code while the worker reads its inputs.
 *
 * The runner (this code) enforces what the model process cannot be trusted to enforce on
 * itself: the wall-clock timeout and the memory limit (resident memory, read from
 * /proc/<pid>/statm every POLL_MS; the kernel's address-space limit is only a backstop,
 * see sandbox.c). Either stops the model process with SIGKILL; its socket then closes,
 * the worker writes a failed result and exits, and the runner says why the model ended.
 * A worker that ends first (an input it could not read) takes the model process with it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline/model_proc.h"
#include "util/clock.h"

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif

#define POLL_MS  20      /* memory checks while the model process runs */
#define GRACE_US 3000000 /* SIGTERM to SIGKILL for a worker being cancelled */

typedef struct proc {
  pid_t pid;
  int pidfd; /* readable when the process ends; -1 without pidfd_open */
  int in_fd; /* our end of its stdin, until the job is written */
  const char *in_text;
  size_t in_len, in_off;
  bool done;
  int status;
  struct rusage usage;
} proc;

static void write_some(proc *p) {
  while (p->in_fd >= 0 && p->in_off < p->in_len) {
    ssize_t w = write(p->in_fd, p->in_text + p->in_off, p->in_len - p->in_off);
    if (w > 0) {
      p->in_off += (size_t)w;
      continue;
    }
    if (w < 0 && (errno == EAGAIN || errno == EINTR)) return;
    p->in_off = p->in_len; /* the reader is gone: it ends, and we see why */
  }
  if (p->in_fd >= 0 && p->in_off >= p->in_len) {
    close(p->in_fd);
    p->in_fd = -1;
  }
}

static void reap(proc *p, bool block) {
  if (p->done || p->pid <= 0) return;
  int st = 0;
  pid_t r;
  while ((r = wait4(p->pid, &st, block ? 0 : WNOHANG, &p->usage)) < 0 && errno == EINTR) {
  }
  if (r == p->pid) {
    p->done = true;
    p->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
    if (p->pidfd >= 0) close(p->pidfd);
    p->pidfd = -1;
  } else if (r < 0) {
    p->done = true;
    p->status = -1;
  }
}

static void kill_group(const proc *p, int sig) {
  if (p->pid > 0 && !p->done) {
    kill(-p->pid, sig);
    kill(p->pid, sig);
  }
}

static int pipe_for(proc *p, const char *text, int *child_end, weir_error *err) {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0)
    return weir_seterr(err, WEIR_EIO, "cannot start a model: pipe: %s", strerror(errno));
  fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  p->in_fd = fds[1];
  p->in_text = text ? text : "";
  p->in_len = strlen(p->in_text);
  *child_end = fds[0];
  return WEIR_OK;
}

int pipeline_model_spawn(pipeline_model_procs *mp, weir_error *err) {
  mp->host_status = mp->worker_status = -1;
  mp->timed_out = mp->memory_exceeded = mp->cancelled = false;
  mp->peak_memory = 0;
  proc host = {.pid = -1, .pidfd = -1, .in_fd = -1}, worker = {.pid = -1, .pidfd = -1, .in_fd = -1};
  int sv[2] = {-1, -1}, host_in = -1, worker_in = -1;
  int log_fd = open(mp->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return weir_seterr(err, WEIR_EIO, "cannot open log %s: %s", mp->log_path, strerror(errno));
  int rc = WEIR_OK;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    rc = weir_seterr(err, WEIR_EIO, "cannot start a model: socketpair: %s", strerror(errno));
  if (rc == WEIR_OK) rc = pipe_for(&host, mp->host_job, &host_in, err);
  if (rc == WEIR_OK) rc = pipe_for(&worker, mp->worker_job, &worker_in, err);
  signal(SIGPIPE, SIG_IGN);
  int64_t started = weir_mono_us();
  if (rc == WEIR_OK) {
    pipeline_child c = {.path = mp->host_path,
                        .argv = mp->host_argv,
                        .envp = mp->host_envp,
                        .cwd = mp->cwd,
                        .fd_in = host_in,
                        .fd_out = log_fd,
                        .fd_err = log_fd,
                        .fd_extra = sv[1],
                        .sandbox = mp->sandbox,
                        .session = true,
                        .death_signal = SIGKILL};
    rc = pipeline_child_start(&c, &host.pid, err);
  }
  if (rc == WEIR_OK) {
    pipeline_child c = {.path = mp->worker_path,
                        .argv = mp->worker_argv,
                        .envp = NULL,
                        .cwd = mp->cwd,
                        .fd_in = worker_in,
                        .fd_out = log_fd,
                        .fd_err = log_fd,
                        .fd_extra = sv[0],
                        .sandbox = NULL,
                        .session = false,
                        .death_signal = SIGTERM};
    rc = pipeline_child_start(&c, &worker.pid, err);
  }
  /* The children hold their ends now; ours would keep the socket open after one of them
   * died, and the other would wait for it forever. */
  if (sv[0] >= 0) close(sv[0]);
  if (sv[1] >= 0) close(sv[1]);
  if (host_in >= 0) close(host_in);
  if (worker_in >= 0) close(worker_in);
  close(log_fd);
  if (rc != WEIR_OK) {
    kill_group(&host, SIGKILL);
    reap(&host, true);
    if (host.in_fd >= 0) close(host.in_fd);
    if (worker.in_fd >= 0) close(worker.in_fd);
    return rc;
  }
  host.pidfd = (int)syscall(__NR_pidfd_open, host.pid, 0);
  worker.pidfd = (int)syscall(__NR_pidfd_open, worker.pid, 0);

  int64_t deadline = mp->timeout_s > 0 ? started + (int64_t)(mp->timeout_s * 1e6) : -1;
  int64_t term_sent = -1;
  for (;;) {
    reap(&host, false);
    reap(&worker, false);
    if (host.done && worker.done) break;
    int64_t now = weir_mono_us();
    if (mp->cancel && *mp->cancel) {
      mp->cancelled = true;
      kill_group(&host, SIGKILL);
      if (term_sent < 0) {
        kill_group(&worker, SIGTERM);
        term_sent = now;
      } else if (now - term_sent > GRACE_US) {
        kill_group(&worker, SIGKILL);
      }
    }
    if (!host.done) {
      if (deadline >= 0 && now >= deadline) {
        mp->timed_out = true;
        kill_group(&host, SIGKILL);
      } else if (mp->memory_limit > 0) {
        int64_t rss = pipeline_child_resident(host.pid);
        if (rss > mp->peak_memory) mp->peak_memory = rss;
        if (rss > mp->memory_limit) {
          mp->memory_exceeded = true;
          kill_group(&host, SIGKILL);
        }
      }
      /* The worker gone, the model process has nobody to give its output to. */
      if (worker.done) kill_group(&host, SIGKILL);
    }
    struct pollfd fds[4];
    int n = 0;
    if (host.pidfd >= 0) fds[n++] = (struct pollfd){host.pidfd, POLLIN, 0};
    if (worker.pidfd >= 0) fds[n++] = (struct pollfd){worker.pidfd, POLLIN, 0};
    if (host.in_fd >= 0) fds[n++] = (struct pollfd){host.in_fd, POLLOUT, 0};
    if (worker.in_fd >= 0) fds[n++] = (struct pollfd){worker.in_fd, POLLOUT, 0};
    int wait_ms = 200;
    if (!host.done) wait_ms = POLL_MS;
    if ((!host.done && host.pidfd < 0) || (!worker.done && worker.pidfd < 0)) wait_ms = 5; /* no pidfd */
    if (deadline >= 0 && !host.done) {
      int64_t left = (deadline - now) / 1000 + 1;
      if (left < wait_ms) wait_ms = left < 0 ? 0 : (int)left;
    }
    if (poll(fds, (nfds_t)n, wait_ms) < 0 && errno != EINTR) break;
    write_some(&host);
    write_some(&worker);
  }
  if (host.in_fd >= 0) close(host.in_fd);
  if (worker.in_fd >= 0) close(worker.in_fd);
  reap(&host, true);
  reap(&worker, true);
  if (host.pidfd >= 0) close(host.pidfd);
  if (worker.pidfd >= 0) close(worker.pidfd);
  mp->host_status = host.status;
  mp->worker_status = worker.status;
  int64_t peak = (int64_t)host.usage.ru_maxrss * 1024;
  if (peak > mp->peak_memory) mp->peak_memory = peak;
  mp->seconds = (double)(weir_mono_us() - started) / 1e6;
  return WEIR_OK;
}
