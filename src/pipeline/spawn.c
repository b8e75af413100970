/*
 * spawn.c -- child processes for Python discovery, environments and model workers, and
 * where libweir itself lives (workers load the same library the runner uses).
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline/pipeline.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/json.h"

/* $WEIR_PYTHON; else the virtual environment of the source tree libweir was built in
 * (<tree>/build/libweir.so -> <tree>/.venv/bin/python), which is where `make` puts the
 * SDK; else python3 from PATH. */
const char *pipeline_python(void) {
  const char *p = getenv("WEIR_PYTHON");
  if (p && *p) return p;
  static char found[4096];
  if (!found[0]) {
    const char *lib = pipeline_library_path();
    char *dir = weir_path_dirname(lib);
    char *tree = weir_path_dirname(dir);
    char *venv = weir_asprintf("%s/.venv/bin/python", tree);
    snprintf(found, sizeof found, "%s", access(venv, X_OK) == 0 ? venv : "python3");
    free(venv);
    free(tree);
    free(dir);
  }
  return found;
}

const char *pipeline_library_path(void) {
  const char *env = getenv("WEIR_LIBRARY");
  if (env && *env) return env;
  static char path[4096];
  Dl_info info;
  if (dladdr((void *)weir_version, &info) && info.dli_fname) {
    char *abs = realpath(info.dli_fname, NULL);
    snprintf(path, sizeof path, "%s", abs ? abs : info.dli_fname);
    free(abs);
    return path;
  }
  return "libweir.so";
}

static void set_nonblock(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

int pipeline_spawn(char *const argv[], const char *cwd, const char *stdin_text,
                   const char *log_path, char **out, char **errtext, int *status,
                   weir_error *err) {
  return pipeline_spawn_cancellable(argv, cwd, stdin_text, log_path, out, errtext, status, NULL, err);
}

int pipeline_spawn_cancellable(char *const argv[], const char *cwd, const char *stdin_text,
                               const char *log_path, char **out, char **errtext, int *status,
                               volatile sig_atomic_t *cancel, weir_error *err) {
  if (out) *out = NULL;
  if (errtext) *errtext = NULL;
  *status = -1;
  int in_pipe[2], out_pipe[2], err_pipe[2] = {-1, -1};
  int log_fd = -1;
  if (pipe(in_pipe) != 0) return weir_seterr(err, WEIR_EIO, "cannot start %s: %s", argv[0], strerror(errno));
  if (pipe(out_pipe) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    return weir_seterr(err, WEIR_EIO, "cannot start %s: %s", argv[0], strerror(errno));
  }
  if (log_path) {
    log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (log_fd < 0) {
      close(in_pipe[0]);
      close(in_pipe[1]);
      close(out_pipe[0]);
      close(out_pipe[1]);
      return weir_seterr(err, WEIR_EIO, "cannot open log %s: %s", log_path, strerror(errno));
    }
  } else if (pipe(err_pipe) != 0) {
    close(in_pipe[0]);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    return weir_seterr(err, WEIR_EIO, "cannot start %s: %s", argv[0], strerror(errno));
  }
  /* A child that cannot exec reports errno through this pipe (closed on exec). */
  int exec_pipe[2];
  if (pipe2(exec_pipe, O_CLOEXEC) != 0) exec_pipe[0] = exec_pipe[1] = -1;

  pid_t pid = fork();
  if (pid < 0) {
    int e = errno;
    close(in_pipe[0]);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    if (err_pipe[0] >= 0) {
      close(err_pipe[0]);
      close(err_pipe[1]);
    }
    if (log_fd >= 0) close(log_fd);
    return weir_seterr(err, WEIR_EIO, "cannot start %s: %s", argv[0], strerror(e));
  }
  if (pid == 0) {
    /* Its own process group, so the runner can stop the child and everything it started;
     * and it dies with the runner, so a killed run leaves no worker writing files. */
    setpgid(0, 0);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(in_pipe[0], 0);
    dup2(out_pipe[1], 1);
    dup2(log_fd >= 0 ? log_fd : err_pipe[1], 2);
    close(in_pipe[0]);
    close(in_pipe[1]);
    close(out_pipe[0]);
    close(out_pipe[1]);
    if (err_pipe[0] >= 0) {
      close(err_pipe[0]);
      close(err_pipe[1]);
    }
    if (exec_pipe[0] >= 0) close(exec_pipe[0]);
    if (cwd && chdir(cwd) != 0) _exit(126);
    execvp(argv[0], argv);
    int e = errno;
    if (exec_pipe[1] >= 0) {
      ssize_t w = write(exec_pipe[1], &e, sizeof e);
      (void)w;
    }
    _exit(127);
  }
  close(in_pipe[0]);
  close(out_pipe[1]);
  if (err_pipe[1] >= 0) close(err_pipe[1]);
  if (log_fd >= 0) close(log_fd);
  if (exec_pipe[1] >= 0) close(exec_pipe[1]);

  /* Feed stdin and drain stdout/stderr together so neither side can block the other. */
  signal(SIGPIPE, SIG_IGN);
  set_nonblock(in_pipe[1]);
  set_nonblock(out_pipe[0]);
  if (err_pipe[0] >= 0) set_nonblock(err_pipe[0]);
  weir_buf ob = WEIR_BUF_INIT, eb = WEIR_BUF_INIT;
  size_t in_len = stdin_text ? strlen(stdin_text) : 0, in_off = 0;
  int fd_in = in_pipe[1], fd_out = out_pipe[0], fd_err = err_pipe[0];
  if (in_len == 0) {
    close(fd_in);
    fd_in = -1;
  }
  int64_t term_sent_at = -1;
  while (fd_in >= 0 || fd_out >= 0 || fd_err >= 0) {
    if (cancel && *cancel) {
      int64_t now = weir_mono_us();
      if (term_sent_at < 0) {
        kill(-pid, SIGTERM);
        term_sent_at = now;
      } else if (now - term_sent_at > 3000000) {
        kill(-pid, SIGKILL);
      }
    }
    struct pollfd fds[3];
    int n = 0;
    if (fd_in >= 0) fds[n++] = (struct pollfd){fd_in, POLLOUT, 0};
    if (fd_out >= 0) fds[n++] = (struct pollfd){fd_out, POLLIN, 0};
    if (fd_err >= 0) fds[n++] = (struct pollfd){fd_err, POLLIN, 0};
    if (poll(fds, (nfds_t)n, cancel ? 200 : -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int i = 0; i < n; i++) {
      if (!fds[i].revents) continue;
      if (fds[i].fd == fd_in) {
        ssize_t w = write(fd_in, stdin_text + in_off, in_len - in_off);
        if (w > 0) in_off += (size_t)w;
        if (w < 0 && errno != EAGAIN && errno != EINTR) in_off = in_len;
        if (in_off >= in_len) {
          close(fd_in);
          fd_in = -1;
        }
      } else {
        char buf[65536];
        ssize_t r = read(fds[i].fd, buf, sizeof buf);
        if (r > 0) weir_buf_append(fds[i].fd == fd_out ? &ob : &eb, buf, (size_t)r);
        else if (r == 0 || (errno != EAGAIN && errno != EINTR)) {
          close(fds[i].fd);
          if (fds[i].fd == fd_out) fd_out = -1;
          else fd_err = -1;
        }
      }
    }
  }
  int wstatus = 0;
  while (waitpid(pid, &wstatus, 0) < 0 && errno == EINTR) {
  }
  int exec_errno = 0;
  if (exec_pipe[0] >= 0) {
    if (read(exec_pipe[0], &exec_errno, sizeof exec_errno) != (ssize_t)sizeof exec_errno) exec_errno = 0;
    close(exec_pipe[0]);
  }
  if (exec_errno) {
    weir_buf_free(&ob);
    weir_buf_free(&eb);
    return weir_seterr(err, WEIR_ENOTFOUND, "cannot run %s: %s (set WEIR_PYTHON to a Python with the weir SDK)",
                       argv[0], strerror(exec_errno));
  }
  if (WIFEXITED(wstatus)) *status = WEXITSTATUS(wstatus);
  else if (WIFSIGNALED(wstatus)) *status = 128 + WTERMSIG(wstatus);
  if (out) *out = weir_buf_detach(&ob);
  else weir_buf_free(&ob);
  if (errtext) *errtext = weir_buf_detach(&eb);
  else weir_buf_free(&eb);
  return WEIR_OK;
}

/* Prepared environments are cached by libweir for the life of the process, and by the
 * SDK on disk across processes. */
typedef struct env_entry {
  char *key;
  char *interpreter;
} env_entry;
static env_entry *env_cache;
static size_t env_cache_n;

int pipeline_python_env(const json_t *spec, char **out, weir_error *err) {
  *out = NULL;
  if (!spec || !json_is_object(spec)) {
    *out = weir_strdup(pipeline_python());
    return WEIR_OK;
  }
  char *key = weir_json_canonical(spec);
  for (size_t i = 0; i < env_cache_n; i++)
    if (strcmp(env_cache[i].key, key) == 0) {
      free(key);
      *out = weir_strdup(env_cache[i].interpreter);
      return WEIR_OK;
    }
  const char *version = weir_json_str(spec, "version", NULL);
  json_t *pip = json_object_get(spec, "pip");
  char *pip_json = pip ? weir_json_canonical(pip) : weir_strdup("{}");
  char *argv[] = {(char *)pipeline_python(), "-m", "weir.envs", "prepare", "--python",
                  (char *)(version ? version : ""), "--pip", pip_json, NULL};
  char *stdout_text = NULL, *errtext = NULL;
  int status = 0;
  int rc = pipeline_spawn(argv, NULL, NULL, NULL, &stdout_text, &errtext, &status, err);
  free(pip_json);
  if (rc == WEIR_OK && status != 0) {
    rc = weir_seterr(err, WEIR_EMODEL, "cannot prepare the Python environment %s: %s", key,
                     errtext && *errtext ? errtext : "weir.envs failed");
  }
  if (rc == WEIR_OK) {
    /* The interpreter path is the last non-empty line of stdout. */
    char *s = stdout_text ? stdout_text : (char *)"";
    size_t n = strlen(s);
    while (n && (s[n - 1] == '\n' || s[n - 1] == '\r' || s[n - 1] == ' ')) s[--n] = 0;
    char *last = strrchr(s, '\n');
    *out = weir_strdup(last ? last + 1 : s);
    if (!**out) {
      free(*out);
      *out = NULL;
      rc = weir_seterr(err, WEIR_EMODEL, "cannot prepare the Python environment %s: no interpreter path printed", key);
    } else {
      env_cache = weir_realloc(env_cache, (env_cache_n + 1) * sizeof *env_cache);
      env_cache[env_cache_n].key = key;
      env_cache[env_cache_n++].interpreter = weir_strdup(*out);
      key = NULL;
    }
  }
  free(key);
  free(stdout_text);
  free(errtext);
  return rc;
}
