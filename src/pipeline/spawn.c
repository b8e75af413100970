/*
 * spawn.c -- child processes for Python discovery, environments and model workers, and
 * where libweir itself lives (workers load the same library the runner uses).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <pthread.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline/child.h"
#include "pipeline/pipeline.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"

/* What this module keeps per lake handle (weir_lake.pipeline_state): the interpreter and
 * library paths found by the default lookups, and the prepared Python environments. */
typedef struct env_entry {
  char *key;
  char *interpreter;
  json_t *roots; /* what the interpreter reads and runs (array of paths), or NULL */
} env_entry;
typedef struct pipeline_state {
  char *python;  /* the default lookup's answer */
  char *library; /* this library's path */
  env_entry *envs;
  size_t n_envs;
} pipeline_state;

static void state_free(void *p) {
  pipeline_state *st = p;
  if (!st) return;
  for (size_t i = 0; i < st->n_envs; i++) {
    free(st->envs[i].key);
    free(st->envs[i].interpreter);
    json_decref(st->envs[i].roots);
  }
  free(st->envs);
  free(st->python);
  free(st->library);
  free(st);
}

static pipeline_state *state_of(weir_lake *lake) {
  if (!lake->pipeline_state) {
    lake->pipeline_state = wr_calloc(1, sizeof(pipeline_state));
    lake->pipeline_state_free = state_free;
  }
  return lake->pipeline_state;
}

/* The file this code was loaded from: libweir.so (or the executable a static module is
 * linked into). */
static char *self_path(void) {
  Dl_info info;
  if (dladdr((void *)self_path, &info) && info.dli_fname) {
    char *abs = realpath(info.dli_fname, NULL);
    return abs ? abs : wr_strdup(info.dli_fname);
  }
  return wr_strdup("libweir.so");
}

/* weir_lake_options.python; else the virtual environment of the source tree libweir was
 * built in (<tree>/build/libweir.so -> <tree>/.venv/bin/python), which is where `make`
 * puts the SDK; else python3 from PATH. */
const char *pipeline_python(weir_lake *lake) {
  if (lake->python) return lake->python;
  pipeline_state *st = state_of(lake);
  if (!st->python) {
    char *lib = self_path();
    char *dir = wr_path_dirname(lib);
    char *tree = wr_path_dirname(dir);
    char *venv = wr_asprintf("%s/.venv/bin/python", tree);
    st->python = access(venv, X_OK) == 0 ? venv : (free(venv), wr_strdup("python3"));
    free(tree);
    free(dir);
    free(lib);
  }
  return st->python;
}

const char *pipeline_library_path(weir_lake *lake) {
  if (lake->worker_library) return lake->worker_library;
  pipeline_state *st = state_of(lake);
  if (!st->library) st->library = self_path();
  return st->library;
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int pipeline_spawn(char *const argv[], const char *cwd, const char *stdin_text,
                   const char *log_path, char **out, char **errtext, int *status,
                   weir_error *err) {
  pipeline_spawn_opts o = {.cwd = cwd, .stdin_text = stdin_text, .log_path = log_path};
  return pipeline_spawn_with(argv, &o, out, errtext, status, err);
}

int pipeline_spawn_cancellable(char *const argv[], const char *cwd, const char *stdin_text,
                               const char *log_path, char **out, char **errtext, int *status,
                               atomic_int *cancel, weir_error *err) {
  pipeline_spawn_opts o = {.cwd = cwd, .stdin_text = stdin_text, .log_path = log_path, .cancel = cancel};
  return pipeline_spawn_with(argv, &o, out, errtext, status, err);
}

#define WATCH_MS 20      /* memory checks of a child with a memory limit */
#define GRACE_US 3000000 /* SIGTERM to SIGKILL for a child being cancelled */

static void close_pair(int p[2]) {
  if (p[0] >= 0) close(p[0]);
  if (p[1] >= 0) close(p[1]);
  p[0] = p[1] = -1;
}

int pipeline_spawn_with(char *const argv[], pipeline_spawn_opts *o, char **out, char **errtext, int *status,
                        weir_error *err) {
  if (out) *out = NULL;
  if (errtext) *errtext = NULL;
  *status = -1;
  o->timed_out = o->memory_exceeded = o->output_exceeded = false;
  int in_pipe[2] = {-1, -1}, out_pipe[2] = {-1, -1}, err_pipe[2] = {-1, -1};
  int log_fd = -1;
  int rc = WEIR_OK;
  if (pipe2(in_pipe, O_CLOEXEC) != 0 || pipe2(out_pipe, O_CLOEXEC) != 0)
    rc = wr_seterr(err, WEIR_EIO, "cannot start %s: %s", argv[0], strerror(errno));
  if (rc == WEIR_OK && o->log_path) {
    log_fd = open(o->log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) rc = wr_seterr(err, WEIR_EIO, "cannot open log %s: %s", o->log_path, strerror(errno));
  } else if (rc == WEIR_OK && pipe2(err_pipe, O_CLOEXEC) != 0) {
    rc = wr_seterr(err, WEIR_EIO, "cannot start %s: %s", argv[0], strerror(errno));
  }
  char *path = pipeline_find_program(argv[0]);
  pid_t pid = -1;
  if (rc == WEIR_OK) {
    pipeline_child c = {.path = path,
                        .argv = argv,
                        .envp = o->envp,
                        .cwd = o->cwd,
                        .fd_in = in_pipe[0],
                        .fd_out = out_pipe[1],
                        .fd_err = log_fd >= 0 ? log_fd : err_pipe[1],
                        .fd_extra = -1,
                        .sandbox = o->sandbox,
                        .session = o->sandbox != NULL,
                        .death_signal = o->sandbox ? SIGKILL : SIGTERM};
    rc = pipeline_child_start(&c, &pid, err);
    if (rc == WEIR_ENOTFOUND && !strchr(argv[0], '/'))
      wr_seterr(err, WEIR_ENOTFOUND,
                  "cannot run %s: not found on PATH (set WEIR_PYTHON to a Python with the "
                  "weir SDK)",
                  argv[0]);
  }
  free(path);
  if (log_fd >= 0) close(log_fd);
  if (in_pipe[0] >= 0) close(in_pipe[0]);
  if (out_pipe[1] >= 0) close(out_pipe[1]);
  if (err_pipe[1] >= 0) close(err_pipe[1]);
  in_pipe[0] = out_pipe[1] = err_pipe[1] = -1;
  if (rc != WEIR_OK) {
    close_pair(in_pipe);
    close_pair(out_pipe);
    close_pair(err_pipe);
    return rc;
  }

  /* Feed stdin and drain stdout/stderr together so neither side can block the other;
   * watch the child's time and memory when it has limits. */
  set_nonblock(in_pipe[1]);
  set_nonblock(out_pipe[0]);
  if (err_pipe[0] >= 0) set_nonblock(err_pipe[0]);
  wr_buf ob = WEIR_BUF_INIT, eb = WEIR_BUF_INIT;
  size_t in_len = o->stdin_text ? strlen(o->stdin_text) : 0, in_off = 0;
  int fd_in = in_pipe[1], fd_out = out_pipe[0], fd_err = err_pipe[0];
  if (in_len == 0) {
    close(fd_in);
    fd_in = -1;
  }
  int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
  bool exited = false;
  int wstatus = 0;
  int64_t started = wr_mono_us();
  int64_t deadline = o->timeout_s > 0 ? started + (int64_t)(o->timeout_s * 1e6) : -1;
  int64_t term_sent_at = -1;
  while (fd_in >= 0 || fd_out >= 0 || fd_err >= 0 || !exited) {
    if (!exited) {
      pid_t w = waitpid(pid, &wstatus, WNOHANG);
      if (w == pid) exited = true;
    }
    int64_t now = wr_mono_us();
    if (o->cancel && atomic_load(o->cancel) && !exited) {
      if (term_sent_at < 0) {
        kill(-pid, o->sandbox ? SIGKILL : SIGTERM);
        term_sent_at = now;
      } else if (now - term_sent_at > GRACE_US) {
        kill(-pid, SIGKILL);
      }
    }
    if (!exited && deadline >= 0 && now >= deadline) {
      o->timed_out = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    if (!exited && o->memory_limit > 0 && pipeline_child_resident(pid) > o->memory_limit) {
      o->memory_exceeded = true;
      kill(-pid, SIGKILL);
      kill(pid, SIGKILL);
    }
    if (exited && fd_in >= 0) {
      close(fd_in);
      fd_in = -1;
    }
    if (exited && fd_in < 0 && fd_out < 0 && fd_err < 0) break;
    struct pollfd fds[4];
    int n = 0;
    if (fd_in >= 0) fds[n++] = (struct pollfd){fd_in, POLLOUT, 0};
    if (fd_out >= 0) fds[n++] = (struct pollfd){fd_out, POLLIN, 0};
    if (fd_err >= 0) fds[n++] = (struct pollfd){fd_err, POLLIN, 0};
    if (!exited && pidfd >= 0) fds[n++] = (struct pollfd){pidfd, POLLIN, 0};
    int wait_ms = -1;
    if (o->cancel) wait_ms = 200;
    if (!exited && (o->memory_limit > 0 || deadline >= 0)) wait_ms = WATCH_MS;
    if (!exited && pidfd < 0 && (wait_ms < 0 || wait_ms > 5)) wait_ms = 5;
    if (poll(fds, (nfds_t)n, wait_ms) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; i++) {
      if (!fds[i].revents || fds[i].fd == pidfd) continue;
      if (fds[i].fd == fd_in) {
        ssize_t w = pipeline_write_nosigpipe(fd_in, o->stdin_text + in_off, in_len - in_off);
        if (w > 0) in_off += (size_t)w;
        if (w < 0 && errno != EAGAIN && errno != EINTR) in_off = in_len;
        if (in_off >= in_len) {
          close(fd_in);
          fd_in = -1;
        }
      } else {
        char buf[65536];
        ssize_t r = read(fds[i].fd, buf, sizeof buf);
        if (r > 0 && o->max_output && ob.len + eb.len + (size_t)r > o->max_output) {
          /* A child printing without end would grow this process without end. */
          if (!o->output_exceeded && !exited) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
          }
          o->output_exceeded = true;
        } else if (r > 0) {
          wr_buf_append(fds[i].fd == fd_out ? &ob : &eb, buf, (size_t)r);
        }
        if (r == 0 || (r < 0 && errno != EAGAIN && errno != EINTR)) {
          close(fds[i].fd);
          if (fds[i].fd == fd_out) fd_out = -1;
          else fd_err = -1;
        }
      }
    }
  }
  if (fd_in >= 0) close(fd_in);
  if (fd_out >= 0) close(fd_out);
  if (fd_err >= 0) close(fd_err);
  if (pidfd >= 0) close(pidfd);
  if (!exited) {
    while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(wstatus)) *status = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus)) *status = 128 + WTERMSIG(wstatus);
  if (out) *out = wr_buf_detach(&ob);
  else wr_buf_free(&ob);
  if (errtext) *errtext = wr_buf_detach(&eb);
  else wr_buf_free(&eb);
  return WEIR_OK;
}

/* Prepared environments are cached in the lake handle for its life (a handle is used by
 * one thread at a time, so no lock), and by the SDK on disk across processes. */
static env_entry *env_find(pipeline_state *st, const char *key) {
  for (size_t i = 0; i < st->n_envs; i++)
    if (strcmp(st->envs[i].key, key) == 0) return &st->envs[i];
  return NULL;
}

static void env_put(pipeline_state *st, char *key, const char *interpreter, json_t *roots) {
  env_entry *e = env_find(st, key);
  if (e) {
    free(key);
    if (roots && !e->roots) e->roots = json_incref(roots);
  } else {
    st->envs = wr_realloc(st->envs, (st->n_envs + 1) * sizeof *st->envs);
    st->envs[st->n_envs++] = (env_entry){key, wr_strdup(interpreter), roots ? json_incref(roots) : NULL};
  }
}

/* The folders the SDK's own interpreter reads: its prefixes and sys.path (but its first
 * entry, the current folder). This is the runner's own environment, so running it with
 * its site-packages is no more trust than the runner already gives it; an environment a
 * model asks for is never run this way (weir.envs finds its folders without running it). */
static const char ROOTS_SNIPPET[] =
    "import sys, os, json\n"
    "c = [sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,\n"
    "     os.path.dirname(os.path.realpath(sys.executable))]\n"
    "c += [p for p in (sys.path if getattr(sys.flags, 'safe_path', False) else sys.path[1:])\n"
    "      if p and os.path.isabs(p)]\n"
    "print(json.dumps(c))\n";

static int base_roots(const char *python, json_t **out, weir_error *err) {
  char *argv[] = {(char *)python, "-c", (char *)ROOTS_SNIPPET, NULL};
  char *text = NULL, *errtext = NULL;
  int status = 0;
  int rc = pipeline_spawn(argv, NULL, NULL, NULL, &text, &errtext, &status, err);
  json_t *doc = NULL;
  if (rc == WEIR_OK && (status != 0 || !(doc = json_loads(text ? text : "", 0, NULL)) || !json_is_array(doc)))
    rc = wr_seterr(err, WEIR_EMODEL, "cannot ask %s which folders it reads: %s", python,
                     errtext && *errtext ? errtext : "no answer");
  if (rc != WEIR_OK)
    json_decref(doc);
  else
    *out = doc;
  free(text);
  free(errtext);
  return rc;
}

int pipeline_python_env(weir_lake *lake, const json_t *spec, char **out, json_t **roots, weir_error *err) {
  *out = NULL;
  if (roots) *roots = NULL;
  pipeline_state *st = state_of(lake);
  bool base = !spec || !json_is_object(spec);
  char *key = base ? wr_strdup("null") : wr_json_canonical(spec);
  env_entry *hit = env_find(st, key);
  if (hit && (!roots || hit->roots)) {
    *out = wr_strdup(hit->interpreter);
    if (roots) *roots = json_incref(hit->roots);
    free(key);
    return WEIR_OK;
  }
  if (base) {
    int rc = WEIR_OK;
    json_t *r = NULL;
    if (roots && (rc = base_roots(pipeline_python(lake), &r, err)) != WEIR_OK) {
      free(key);
      return rc;
    }
    *out = wr_strdup(pipeline_python(lake));
    env_put(st, key, *out, r);
    if (roots) *roots = r;
    return WEIR_OK;
  }
  const char *version = wr_json_str(spec, "version", NULL);
  json_t *pip = json_object_get(spec, "pip");
  char *pip_json = pip ? wr_json_canonical(pip) : wr_strdup("{}");
  char *argv[] = {(char *)pipeline_python(lake),    "-m",    "weir.envs", "prepare", "--python",
                  (char *)(version ? version : ""), "--pip", pip_json,    "--json",  NULL};
  char *stdout_text = NULL, *errtext = NULL;
  int status = 0;
  int rc = pipeline_spawn(argv, NULL, NULL, NULL, &stdout_text, &errtext, &status, err);
  free(pip_json);
  if (rc == WEIR_OK && status != 0) {
    rc = wr_seterr(err, WEIR_EMODEL, "cannot prepare the Python environment %s: %s", key,
                     errtext && *errtext ? errtext : "weir.envs failed");
  }
  if (rc == WEIR_OK) {
    /* The answer is the last non-empty line of stdout: {"python", "created", "read"}. */
    char *s = stdout_text ? stdout_text : (char *)"";
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = 0;
    char *last = strrchr(s, '\n');
    json_t *doc = json_loads(last ? last + 1 : s, 0, NULL);
    const char *python = wr_json_str(doc, "python", NULL);
    json_t *read = json_object_get(doc, "read");
    if (!python || !*python || !json_is_array(read)) {
      rc = wr_seterr(err, WEIR_EMODEL,
                       "cannot prepare the Python environment %s: weir.envs printed no "
                       "interpreter",
                       key);
    } else {
      *out = wr_strdup(python);
      if (roots) *roots = json_incref(read);
      env_put(st, key, python, read);
      key = NULL;
    }
    json_decref(doc);
  }
  free(key);
  free(stdout_text);
  free(errtext);
  return rc;
}
