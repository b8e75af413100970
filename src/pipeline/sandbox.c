/*
 * sandbox.c -- the model sandbox as a whole: what the kernel offers, the policy of one
 * process, its preparation in the parent and its entry in the child (sandbox.h).
 *
 * The order of entry matters and is fixed (sandbox_enter):
 *   1. a new user + network namespace (unshare must come before the seccomp filter,
 *      which refuses it; the process then has no network interface but a loopback that
 *      is down);
 *   2. resource limits (soft = hard: the process cannot raise them again, because
 *      raising a hard limit needs CAP_SYS_RESOURCE in the initial namespace);
 *   3. no_new_privs (required by both Landlock and seccomp for an unprivileged process,
 *      and it keeps a setuid program from gaining anything);
 *   4. Landlock;
 *   5. the seccomp filter, last, so that the calls above were still allowed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "pipeline/sandbox.h"
#include "util/failpoint.h"
#include "util/fs.h"
#include "util/json.h"

/* ---- what the kernel offers --------------------------------------------------------- */

static sandbox_support support;
static pthread_once_t support_once = PTHREAD_ONCE_INIT;

/* In a child (namespaces and filters are per process): can it enter a user + network
 * namespace, and load a filter? Bits of the exit status answer. */
static void probe_child(void) {
  int bits = 0;
  if (unshare(CLONE_NEWUSER | CLONE_NEWNET) == 0) bits |= 1;
  struct sock_filter allow = BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW);
  struct sock_fprog prog = {1, &allow};
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 && prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0)
    bits |= 2;
  _exit(bits);
}

static void probe_once(void) {
  sandbox_support *s = &support;
  /* A seam for tests of the refusal (this machine does offer a sandbox), in failpoint
   * builds only: $WEIR_FAILPOINTS=sandbox.unavailable:error. */
  weir_error sim = {0};
  if (WEIR_FAILPOINT("sandbox.unavailable", &sim) != WEIR_OK) {
    snprintf(s->why, sizeof s->why, "%s", sim.message ? sim.message : "sandbox.unavailable");
    weir_error_clear(&sim);
    return;
  }
  s->landlock_abi = sandbox_landlock_abi();
  bool filters = sandbox_seccomp_available();
  pid_t pid = fork();
  int status = 0;
  if (pid == 0) probe_child();
  if (pid > 0) {
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  int bits = pid > 0 && WIFEXITED(status) ? WEXITSTATUS(status) : 0;
  s->userns = (bits & 1) != 0;
  s->seccomp = filters && (bits & 2) != 0;
  struct utsname u;
  if (uname(&u) != 0) snprintf(u.release, sizeof u.release, "?");
  if (s->landlock_abi == 0)
    snprintf(s->why, sizeof s->why,
             "the kernel (Linux %s) offers no Landlock, which the sandbox needs to keep a model out of the "
             "lake's files (Landlock needs Linux 5.13 or newer with \"landlock\" in the lsm= boot parameter)",
             u.release);
  else if (!s->seccomp)
    snprintf(s->why, sizeof s->why,
             "the kernel (Linux %s) takes no seccomp filter%s, which the sandbox needs to keep a model from "
             "starting processes and reaching local services",
             u.release,
#if defined(__x86_64__)
             ""
#else
             " (weir's filter is written for x86_64 only)"
#endif
    );
}

const sandbox_support *sandbox_probe(void) {
  pthread_once(&support_once, probe_once);
  return &support;
}

bool sandbox_usable(const sandbox_support *s) { return s->landlock_abi >= 1 && s->seccomp; }

/* ---- limits --------------------------------------------------------------------------- */

void sandbox_limits_default(sandbox_limits *l) {
  l->memory = SANDBOX_DEFAULT_MEMORY;
  l->timeout_s = SANDBOX_DEFAULT_TIMEOUT_S;
  l->cpu_s = 0;
}

#define MIN_MEMORY  (32LL << 20)
#define MAX_SECONDS (30.0 * 86400)

char *sandbox_limits_from_json(const json_t *spec, sandbox_limits *l, bool *internet) {
  *internet = false;
  if (!spec || json_is_null(spec)) return NULL;
  if (!json_is_object(spec)) return wr_strdup("sandbox options must be an object");
  const char *key;
  json_t *v;
  json_object_foreach((json_t *)spec, key, v) {
    if (strcmp(key, "internet_access") == 0) {
      if (!json_is_boolean(v)) return wr_strdup("internet_access must be True or False");
      *internet = json_is_true(v);
    } else if (strcmp(key, "memory") == 0) {
      if (json_is_null(v)) continue;
      if (!json_is_integer(v) || json_integer_value(v) < MIN_MEMORY)
        return wr_asprintf("memory must be at least 32 MiB (a Python interpreter needs that much)");
      l->memory = (int64_t)json_integer_value(v);
    } else if (strcmp(key, "timeout") == 0 || strcmp(key, "cpu_time") == 0) {
      if (json_is_null(v)) continue;
      double s = json_number_value(v);
      if (!json_is_number(v) || !(s > 0) || s > MAX_SECONDS)
        return wr_asprintf("%s must be a positive duration of at most 30 days", key);
      if (key[0] == 't')
        l->timeout_s = s;
      else
        l->cpu_s = (int64_t)ceil(s);
    } else {
      return wr_asprintf("unknown sandbox option %s (known: internet_access, memory, timeout, cpu_time)",
                           key);
    }
  }
  return NULL;
}

void sandbox_format_bytes(int64_t b, char *out, size_t size) {
  static const struct {
    int64_t unit;
    const char *name;
  } units[] = {{1LL << 40, "TiB"}, {1000LL * 1000 * 1000 * 1000, "TB"},
               {1LL << 30, "GiB"}, {1000LL * 1000 * 1000, "GB"},
               {1LL << 20, "MiB"}, {1000LL * 1000, "MB"},
               {1LL << 10, "KiB"}, {1000, "KB"}};
  for (size_t i = 0; i < sizeof units / sizeof *units; i++)
    if (b >= units[i].unit && b % units[i].unit == 0) {
      snprintf(out, size, "%lld %s", (long long)(b / units[i].unit), units[i].name);
      return;
    }
  if (b >= 1000LL * 1000 * 1000)
    snprintf(out, size, "%.1f GB", (double)b / 1e9);
  else if (b >= 1000LL * 1000)
    snprintf(out, size, "%.1f MB", (double)b / 1e6);
  else
    snprintf(out, size, "%lld bytes", (long long)b);
}

void sandbox_format_seconds(double s, char *out, size_t size) {
  if (s != floor(s) || s < 60) {
    snprintf(out, size, "%gs", s);
    return;
  }
  long long t = (long long)s, h = t / 3600, m = (t % 3600) / 60, sec = t % 60;
  int n = 0;
  out[0] = 0;
  if (h) n += snprintf(out + n, size - (size_t)n, "%lldh", h);
  if (m && (size_t)n < size) n += snprintf(out + n, size - (size_t)n, "%lldm", m);
  if (sec && (size_t)n < size) snprintf(out + n, size - (size_t)n, "%llds", sec);
}

/* ---- policy --------------------------------------------------------------------------- */

void sandbox_policy_init(sandbox_policy *p) {
  memset(p, 0, sizeof *p);
  sandbox_limits_default(&p->limits);
}

static void free_list(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

void sandbox_policy_free(sandbox_policy *p) {
  if (!p) return;
  free_list(p->exec_roots, p->n_exec_roots);
  free_list(p->read_roots, p->n_read_roots);
  free(p->tmpdir);
  free(p->protect);
  memset(p, 0, sizeof *p);
}

static bool covered(char **v, size_t n, const char *path) {
  for (size_t i = 0; i < n; i++) {
    size_t len = strlen(v[i]);
    if (strncmp(path, v[i], len) == 0 && (path[len] == '\0' || path[len] == '/')) return true;
  }
  return false;
}

static void add_root(sandbox_policy *p, const char *path, bool exec) {
  if (!path || path[0] != '/') return;
  char *real = realpath(path, NULL);
  /* "/" as a root would open every file of the machine: never, whatever sys.path says. */
  if (!real || strcmp(real, "/") == 0) {
    free(real);
    return;
  }
  if (covered(p->exec_roots, p->n_exec_roots, real) ||
      (!exec && covered(p->read_roots, p->n_read_roots, real))) {
    free(real);
    return;
  }
  char ***v = exec ? &p->exec_roots : &p->read_roots;
  size_t *n = exec ? &p->n_exec_roots : &p->n_read_roots;
  *v = wr_realloc(*v, (*n + 1) * sizeof **v);
  (*v)[(*n)++] = real;
}

void sandbox_policy_add_exec(sandbox_policy *p, const char *path) { add_root(p, path, true); }
void sandbox_policy_add_read(sandbox_policy *p, const char *path) { add_root(p, path, false); }

/* ---- preparation (parent) and entry (child) --------------------------------------------- */

static struct rlimit both(rlim_t v) { return (struct rlimit){v, v}; }

int sandbox_prepare(const sandbox_policy *policy, sandbox_prepared *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  out->ruleset_fd = -1;
  const sandbox_support *s = sandbox_probe();
  if (!sandbox_usable(s))
    return wr_seterr(
        err, WEIR_EUNSUPPORTED,
        "weir cannot sandbox Python models on this machine: %s. Run with --unsandboxed (weir run) "
        "or sandbox=False (Client.run) to run them without a sandbox (the run records that)",
        s->why);
  out->landlock_abi = s->landlock_abi;
  out->ruleset_fd = sandbox_landlock_ruleset(policy, s->landlock_abi, err);
  if (out->ruleset_fd < 0) return err && err->code ? err->code : WEIR_EIO;
  out->unshare_net = !policy->internet && s->userns;
  sandbox_seccomp_filter(policy->internet, out->unshare_net, s->landlock_abi, &out->filter, &out->filter_len);

  /* Address space is a backstop, far above the memory limit (which the runner enforces
   * on resident memory): allocators and thread stacks reserve address space they never
   * touch, and a limit on it alone would fail models at import on a many-core machine. It
   * still turns an absurd allocation into a MemoryError at once. */
  int64_t mem = policy->limits.memory;
  int64_t as = mem * 4 > mem + (8LL << 30) ? mem * 4 : mem + (8LL << 30);
  out->as = both((rlim_t)as);
  out->have_cpu = policy->limits.cpu_s > 0;
  /* Soft at the limit (SIGXCPU, which the runner reports), hard a little later (SIGKILL
   * for a process that ignores SIGXCPU). */
  if (out->have_cpu)
    out->cpu = (struct rlimit){(rlim_t)policy->limits.cpu_s, (rlim_t)policy->limits.cpu_s + 2};
  /* Threads (processes are refused by the filter). The kernel counts them per user and
   * namespace, and does not apply this limit to root. */
  out->nproc = both(SANDBOX_THREADS);
  struct rlimit cur;
  rlim_t files = SANDBOX_OPEN_FILES;
  if (getrlimit(RLIMIT_NOFILE, &cur) == 0 && cur.rlim_max != RLIM_INFINITY && cur.rlim_max < files)
    files = cur.rlim_max;
  out->nofile = both(files);
  /* A file the model writes (its output, a temporary file) holds at most its memory. */
  out->fsize = both((rlim_t)mem);
  out->core = both(0);
  out->msgqueue = both(0);
  return WEIR_OK;
}

void sandbox_prepared_free(sandbox_prepared *s) {
  if (!s) return;
  if (s->ruleset_fd >= 0) close(s->ruleset_fd);
  free(s->filter);
  memset(s, 0, sizeof *s);
  s->ruleset_fd = -1;
}

int sandbox_enter(const sandbox_prepared *s, const char **step) {
  *step = "unshare";
  if (s->unshare_net && unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) return errno;
  *step = "setrlimit";
  if (setrlimit(RLIMIT_AS, &s->as) != 0 || setrlimit(RLIMIT_NPROC, &s->nproc) != 0 ||
      setrlimit(RLIMIT_NOFILE, &s->nofile) != 0 || setrlimit(RLIMIT_FSIZE, &s->fsize) != 0 ||
      setrlimit(RLIMIT_CORE, &s->core) != 0 || setrlimit(RLIMIT_MSGQUEUE, &s->msgqueue) != 0 ||
      (s->have_cpu && setrlimit(RLIMIT_CPU, &s->cpu) != 0))
    return errno;
  *step = "no_new_privs";
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return errno;
  *step = "landlock";
  int e = sandbox_landlock_enter(s->ruleset_fd, s->landlock_abi);
  if (e) return e;
  *step = "seccomp";
  /* The filter is the child's copy of the parent's memory: patching it is private. */
  sandbox_seccomp_set_pid(s->filter, s->filter_len, (int)getpid());
  struct sock_fprog prog = {s->filter_len, (struct sock_filter *)s->filter};
  if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) != 0) return errno;
  *step = NULL;
  return 0;
}

/* ---- the record ---------------------------------------------------------------------- */

json_t *sandbox_record(const sandbox_policy *policy, const sandbox_prepared *prepared,
                       const char *unsandboxed) {
  json_t *limits = json_object();
  if (policy) {
    json_object_set_new(limits, "memory", json_integer(policy->limits.memory));
    json_object_set_new(limits, "timeout", json_real(policy->limits.timeout_s));
    json_object_set_new(limits, "cpu_time",
                        policy->limits.cpu_s ? json_integer(policy->limits.cpu_s) : json_null());
    json_object_set_new(limits, "threads", json_integer(SANDBOX_THREADS));
    json_object_set_new(limits, "open_files",
                        json_integer(prepared ? (json_int_t)prepared->nofile.rlim_cur : SANDBOX_OPEN_FILES));
  }
  if (unsandboxed || !prepared)
    return json_pack("{s:b,s:s,s:b,s:o}", "enabled", 0, "reason", unsandboxed ? unsandboxed : "unsandboxed",
                     "internet_access", policy && policy->internet, "limits", limits);
  const char *network = policy->internet ? "open" : prepared->unshare_net ? "namespace" : "seccomp";
  return json_pack("{s:b,s:i,s:b,s:s,s:b,s:o}", "enabled", 1, "landlock_abi", prepared->landlock_abi,
                   "seccomp", 1, "network", network, "internet_access", policy->internet, "limits", limits);
}
