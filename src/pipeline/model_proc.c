/*
 * model_proc.c -- the processes of a run's Python models, started and watched together.
 *
 *   the model process   `<model's interpreter> -B -m weir.model_host`, one per model, in
 *                       the sandbox: imports the project's code and calls the model
 *                       function; it gets its inputs and returns its output as Arrow IPC
 *                       in memfds;
 *   the worker          `<SDK's interpreter> -m weir.worker --serve`, one per run,
 *                       trusted, outside it: reads the inputs through libweir, hands them
 *                       over, validates and writes what comes back (docs/worker.md). It
 *                       never imports the project's code or the model's packages.
 *
 * A model's two processes talk over one unix socket pair made here: the model process
 * gets its end as descriptor 3, the worker gets the other with the job, over its control
 * socket (SCM_RIGHTS). So neither starts the other, the model process imports its code
 * while the worker reads its inputs, and the worker (its interpreter, pyarrow, libweir,
 * the open lake, DuckDB) is started once per run rather than once per model.
 *
 * The runner (this code) enforces what the model process cannot be trusted to enforce on
 * itself: the wall-clock timeout and the memory limit (resident memory, read from
 * /proc/<pid>/statm every POLL_MS; the kernel's address-space limit is only a backstop,
 * see sandbox.c). Either stops the model process with SIGKILL; its socket then closes,
 * the worker writes a failed result, and the runner says why the model ended. A worker
 * that ends during a job takes the model process with it, and is started again for the
 * next model.
 *
 * Control messages, both ways: a 4-byte little-endian length and that much JSON; the
 * runner sends {"job": {...}} with the model's socket, the worker answers {"done": true}
 * once the job's result file is written.
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
#include <sys/uio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <jansson.h>

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
    ssize_t w = pipeline_write_nosigpipe(p->in_fd, p->in_text + p->in_off, p->in_len - p->in_off);
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
    return wr_seterr(err, WEIR_EIO, "cannot start a model: pipe: %s", strerror(errno));
  fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK);
  p->in_fd = fds[1];
  p->in_text = text ? text : "";
  p->in_len = strlen(p->in_text);
  *child_end = fds[0];
  return WEIR_OK;
}

/* ---- the worker -------------------------------------------------------------------- */

#define STOP_GRACE_MS 5000 /* a worker told to exit that has not, is killed */

int pipeline_worker_start(pipeline_worker *w, char *const argv[], const char *cwd, const char *log_path,
                          weir_error *err) {
  memset(w, 0, sizeof *w);
  w->pid = -1;
  w->pidfd = w->ctl = -1;
  int sv[2];
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    return wr_seterr(err, WEIR_EIO, "cannot start the model worker: socketpair: %s", strerror(errno));
  int log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) {
    int e = errno;
    close(sv[0]);
    close(sv[1]);
    return wr_seterr(err, WEIR_EIO, "cannot open log %s: %s", log_path, strerror(e));
  }
  char *path = pipeline_find_program(argv[0]);
  pipeline_child c = {.path = path,
                      .argv = argv,
                      .cwd = cwd,
                      .fd_in = -1,
                      .fd_out = log_fd,
                      .fd_err = log_fd,
                      .fd_extra = sv[1],
                      .death_signal = SIGTERM};
  int rc = pipeline_child_start(&c, &w->pid, err);
  free(path);
  close(log_fd);
  close(sv[1]);
  if (rc != WEIR_OK) {
    close(sv[0]);
    w->dead = true;
    return rc;
  }
  w->ctl = sv[0];
  w->pidfd = (int)syscall(__NR_pidfd_open, w->pid, 0);
  return WEIR_OK;
}

void pipeline_worker_stop(pipeline_worker *w) {
  if (w->ctl >= 0) close(w->ctl); /* its end of the control socket reads EOF: it exits */
  w->ctl = -1;
  if (w->pid > 0) {
    int st;
    bool gone = waitpid(w->pid, &st, WNOHANG) == w->pid;
    if (!gone && w->pidfd >= 0) {
      struct pollfd pfd = {w->pidfd, POLLIN, 0};
      while (poll(&pfd, 1, STOP_GRACE_MS) < 0 && errno == EINTR) {
      }
    }
    if (!gone && waitpid(w->pid, &st, WNOHANG) != w->pid) {
      kill(-w->pid, SIGKILL);
      kill(w->pid, SIGKILL);
      while (waitpid(w->pid, &st, 0) < 0 && errno == EINTR) {
      }
    }
  }
  if (w->pidfd >= 0) close(w->pidfd);
  w->pidfd = -1;
  w->pid = -1;
  w->dead = true;
}

/* Sends one control message with an optional descriptor. */
static int ctl_send(int fd, const char *json, int pass_fd) {
  uint32_t n = (uint32_t)strlen(json);
  unsigned char head[4] = {(unsigned char)n, (unsigned char)(n >> 8), (unsigned char)(n >> 16),
                           (unsigned char)(n >> 24)};
  struct iovec iov = {head, sizeof head};
  union {
    struct cmsghdr h;
    char buf[CMSG_SPACE(sizeof(int))];
  } cm;
  memset(&cm, 0, sizeof cm);
  struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
  if (pass_fd >= 0) {
    msg.msg_control = cm.buf;
    msg.msg_controllen = sizeof cm.buf;
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
  }
  ssize_t w;
  while ((w = sendmsg(fd, &msg, MSG_NOSIGNAL)) < 0 && errno == EINTR) {
  }
  if (w != (ssize_t)sizeof head) return -1;
  size_t off = 0;
  while (off < n) {
    ssize_t k = send(fd, json + off, n - off, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return -1;
    off += (size_t)k;
  }
  return 0;
}

/* Reads one control message (the worker is trusted, and writes it whole). Caller frees;
 * NULL at end of file or on error. */
static char *ctl_recv(int fd) {
  unsigned char head[4];
  size_t got = 0;
  while (got < sizeof head) {
    ssize_t r = recv(fd, head + got, sizeof head - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return NULL;
    got += (size_t)r;
  }
  uint32_t n = (uint32_t)head[0] | (uint32_t)head[1] << 8 | (uint32_t)head[2] << 16 | (uint32_t)head[3] << 24;
  if (n > (16u << 20)) return NULL;
  char *body = wr_malloc((size_t)n + 1);
  got = 0;
  while (got < n) {
    ssize_t r = recv(fd, body + got, n - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      free(body);
      return NULL;
    }
    got += (size_t)r;
  }
  body[n] = 0;
  return body;
}

/* ---- one model ---------------------------------------------------------------------- */

int pipeline_model_spawn(pipeline_model_procs *mp, pipeline_worker *worker, weir_error *err) {
  mp->host_status = mp->worker_status = -1;
  mp->worker_done = mp->timed_out = mp->memory_exceeded = mp->cancelled = false;
  mp->peak_memory = 0;
  if (worker->dead || worker->ctl < 0) return wr_seterr(err, WEIR_EIO, "the model worker is not running");
  proc host = {.pid = -1, .pidfd = -1, .in_fd = -1};
  int sv[2] = {-1, -1}, host_in = -1;
  int log_fd = open(mp->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log_fd < 0) return wr_seterr(err, WEIR_EIO, "cannot open log %s: %s", mp->log_path, strerror(errno));
  int rc = WEIR_OK;
  if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    rc = wr_seterr(err, WEIR_EIO, "cannot start a model: socketpair: %s", strerror(errno));
  if (rc == WEIR_OK) rc = pipe_for(&host, mp->host_job, &host_in, err);
  int64_t started = wr_mono_us();
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
    /* The job and the worker's end of the model's socket. */
    char *msg = wr_asprintf("{\"job\": %s}", mp->worker_job);
    if (ctl_send(worker->ctl, msg, sv[0]) != 0) {
      worker->dead = true;
      rc = wr_seterr(err, WEIR_EIO, "cannot hand the model to the worker: %s", strerror(errno));
    }
    free(msg);
  }
  /* The children hold their ends now; ours would keep the socket open after one of them
   * died, and the other would wait for it forever. */
  if (sv[0] >= 0) close(sv[0]);
  if (sv[1] >= 0) close(sv[1]);
  if (host_in >= 0) close(host_in);
  close(log_fd);
  if (rc != WEIR_OK) {
    kill_group(&host, SIGKILL);
    reap(&host, true);
    if (host.in_fd >= 0) close(host.in_fd);
    return rc;
  }
  host.pidfd = (int)syscall(__NR_pidfd_open, host.pid, 0);

  int64_t deadline = mp->timeout_s > 0 ? started + (int64_t)(mp->timeout_s * 1e6) : -1;
  int64_t term_sent = -1;
  bool worker_gone = false;
  for (;;) {
    reap(&host, false);
    if (!worker_gone) {
      int st;
      if (waitpid(worker->pid, &st, WNOHANG) == worker->pid) {
        worker_gone = true;
        mp->worker_status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
        worker->pid = -1;
        worker->dead = true;
      }
    }
    if (host.done && (mp->worker_done || worker_gone)) break;
    int64_t now = wr_mono_us();
    if (mp->cancel && atomic_load(mp->cancel)) {
      mp->cancelled = true;
      kill_group(&host, SIGKILL);
      if (!worker_gone && worker->pid > 0) {
        if (term_sent < 0) {
          kill(-worker->pid, SIGTERM);
          term_sent = now;
        } else if (now - term_sent > GRACE_US) {
          kill(-worker->pid, SIGKILL);
        }
        worker->dead = true;
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
      /* The worker done with the job (or gone), the model process has nobody to give its
       * output to. */
      if (mp->worker_done || worker_gone) kill_group(&host, SIGKILL);
    }
    struct pollfd fds[4];
    int n = 0;
    if (host.pidfd >= 0) fds[n++] = (struct pollfd){host.pidfd, POLLIN, 0};
    if (!worker_gone && worker->pidfd >= 0) fds[n++] = (struct pollfd){worker->pidfd, POLLIN, 0};
    int ctl_at = -1;
    if (!worker_gone && !mp->worker_done && worker->ctl >= 0) {
      ctl_at = n;
      fds[n++] = (struct pollfd){worker->ctl, POLLIN, 0};
    }
    if (host.in_fd >= 0) fds[n++] = (struct pollfd){host.in_fd, POLLOUT, 0};
    int wait_ms = 200;
    if (!host.done) wait_ms = POLL_MS;
    if ((!host.done && host.pidfd < 0) || (!worker_gone && worker->pidfd < 0)) wait_ms = 5; /* no pidfd */
    if (deadline >= 0 && !host.done) {
      int64_t left = (deadline - now) / 1000 + 1;
      if (left < wait_ms) wait_ms = left < 0 ? 0 : (int)left;
    }
    if (poll(fds, (nfds_t)n, wait_ms) < 0 && errno != EINTR) break;
    if (ctl_at >= 0 && (fds[ctl_at].revents & (POLLIN | POLLHUP | POLLERR))) {
      char *reply = ctl_recv(worker->ctl);
      json_t *doc = reply ? json_loads(reply, 0, NULL) : NULL;
      if (json_is_true(json_object_get(doc, "done"))) {
        mp->worker_done = true;
      } else {
        /* It closed its control socket (it is ending: reaped below) or spoke nonsense:
         * either way it is of no more use. */
        worker->dead = true;
        if (reply && worker->pid > 0) {
          kill(-worker->pid, SIGKILL);
          kill(worker->pid, SIGKILL);
        }
      }
      json_decref(doc);
      free(reply);
    }
    write_some(&host);
  }
  if (host.in_fd >= 0) close(host.in_fd);
  reap(&host, true);
  if (host.pidfd >= 0) close(host.pidfd);
  if (worker->dead && worker->pid > 0) {
    /* Stopped during the job: reap it here (killing it if it lingers), its successor
     * starts fresh. */
    int st;
    if (waitpid(worker->pid, &st, WNOHANG) != worker->pid) {
      if (worker->pidfd >= 0) {
        struct pollfd pfd = {worker->pidfd, POLLIN, 0};
        while (poll(&pfd, 1, 1000) < 0 && errno == EINTR) {
        }
      }
      if (waitpid(worker->pid, &st, WNOHANG) != worker->pid) {
        kill(-worker->pid, SIGKILL);
        kill(worker->pid, SIGKILL);
        while (waitpid(worker->pid, &st, 0) < 0 && errno == EINTR) {
        }
      }
    }
    mp->worker_status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
    worker->pid = -1;
  }
  if (worker->dead) {
    if (worker->pidfd >= 0) close(worker->pidfd);
    if (worker->ctl >= 0) close(worker->ctl);
    worker->pidfd = worker->ctl = -1;
  }
  mp->host_status = host.status;
  int64_t peak = (int64_t)host.usage.ru_maxrss * 1024;
  if (peak > mp->peak_memory) mp->peak_memory = peak;
  mp->seconds = (double)(wr_mono_us() - started) / 1e6;
  return WEIR_OK;
}
