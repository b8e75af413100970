/*
 * sandbox.h -- the model sandbox: the process that runs a project's Python code may read
 * its Python environment, the project and a private temporary folder, write only that
 * folder, open no network connection (unless the model asks for internet access), start
 * no other process, and stays within its resource limits (docs/sandbox.md).
 *
 * The mechanisms are the kernel's own and need no privilege: Landlock for the file
 * system (and, from ABI 4, TCP), a seccomp filter for system calls, a user and network
 * namespace for the network, resource limits (setrlimit) in the process, and a memory
 * and wall-clock watch by the runner (pipeline_model_spawn). All of them are entered
 * after fork and before exec, so they bind the interpreter from its first instruction:
 * nothing of the model's environment (not even a .pth file of a package it declares)
 * runs outside them. They are irrevocable: neither the process nor anything it execs
 * can leave them.
 *
 * Life of a sandbox:
 *   sandbox_probe()     what this kernel offers (once per process, cached);
 *   sandbox_prepare()   in the parent, before fork: the Landlock ruleset, the seccomp
 *                       program and the limits, so that the child only makes system
 *                       calls (the parent may have threads: after fork only
 *                       async-signal-safe code may run);
 *   sandbox_enter()     in the child, after fork, before exec;
 *   sandbox_prepared_free().
 *
 * Thread-safety: sandbox_probe may be called from any thread (its cache is set once);
 * a sandbox_policy and a sandbox_prepared belong to one thread.
 */
#ifndef WEIR_PIPELINE_SANDBOX_H
#define WEIR_PIPELINE_SANDBOX_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/resource.h>

#include "util/error.h"

/* Defaults of the per-model limits (@weir.python(memory=, timeout=, cpu_time=)). */
#define SANDBOX_DEFAULT_MEMORY    (4LL * 1000 * 1000 * 1000) /* bytes of resident memory: "4GB" */
#define SANDBOX_DEFAULT_TIMEOUT_S 3600.0                     /* wall clock: "1h" */
#define SANDBOX_THREADS           1024                       /* RLIMIT_NPROC: threads, not processes */
#define SANDBOX_OPEN_FILES        1024                       /* RLIMIT_NOFILE */

/* What the kernel offers, found once per process. */
typedef struct sandbox_support {
  int landlock_abi; /* 0: no Landlock (kernel older than 5.13, or not enabled) */
  bool seccomp;     /* seccomp filters (and a filter written for this architecture) */
  bool userns;      /* an unprivileged user + network namespace can be created */
  char why[512];    /* when !sandbox_usable(): what is missing, for people */
} sandbox_support;

/* The kernel's offer (cached after the first call). With $WEIR_SANDBOX_UNAVAILABLE set
 * (to a reason), it answers that nothing is offered, as an old kernel would: the seam the
 * tests of the refusal and of --unsandboxed use. */
const sandbox_support *sandbox_probe(void);

/* Landlock and seccomp are both required: without either, a model could write the
 * warehouse (no Landlock) or start processes and reach unix sockets (no seccomp). The
 * namespaces are a second wall for the network; seccomp closes it without them. */
bool sandbox_usable(const sandbox_support *s);

/* The limits of one model process. */
typedef struct sandbox_limits {
  int64_t memory;   /* bytes of resident memory (the runner stops the process above it) */
  double timeout_s; /* wall clock from the start of the process */
  int64_t cpu_s;    /* RLIMIT_CPU in seconds; 0: none */
} sandbox_limits;

/* The defaults above. */
void sandbox_limits_default(sandbox_limits *l);

/* Reads @weir.python's limits from discovery's `sandbox` object ({"memory": bytes,
 * "timeout": seconds, "cpu_time": seconds or null, "internet_access": bool}) over the
 * defaults. Returns NULL, or a message (caller frees) naming the bad key. */
char *sandbox_limits_from_json(const json_t *spec, sandbox_limits *l, bool *internet);

/* What one process may do. Paths are absolute; the policy owns its strings. */
typedef struct sandbox_policy {
  char **exec_roots; /* read and execute: the interpreter, its libraries, site-packages */
  size_t n_exec_roots;
  char **read_roots; /* read only: the project */
  size_t n_read_roots;
  char *tmpdir;  /* the private temporary folder: read and write */
  char *protect; /* a folder none of whose files may be read even when it lies
                            under a root (the lake, when a project holds its own lake) */
  bool internet; /* open the network (and nothing else) */
  sandbox_limits limits;
} sandbox_policy;

void sandbox_policy_init(sandbox_policy *p);
void sandbox_policy_free(sandbox_policy *p);
/* Adds a root (copied; made absolute and resolved; a path that does not exist is
 * skipped, as is one already covered by an exec root). */
void sandbox_policy_add_exec(sandbox_policy *p, const char *path);
void sandbox_policy_add_read(sandbox_policy *p, const char *path);

/* Everything the child needs, made in the parent. */
typedef struct sandbox_prepared {
  int ruleset_fd; /* Landlock ruleset (close-on-exec), -1 if none */
  int landlock_abi;
  void *filter; /* struct sock_filter[] */
  unsigned short filter_len;
  bool unshare_net; /* enter a new user + network namespace */
  struct rlimit as, cpu, nproc, nofile, fsize, core, msgqueue;
  bool have_cpu;
} sandbox_prepared;

/* Builds the ruleset, the filter and the limits for `policy` on this kernel.
 * Errors: WEIR_EUNSUPPORTED when the kernel offers no sandbox (the message says what is
 * missing and how to run without one), WEIR_EIO when a ruleset cannot be built. */
int sandbox_prepare(const sandbox_policy *policy, sandbox_prepared *out, weir_error *err);
void sandbox_prepared_free(sandbox_prepared *s);

/* In the child, after fork and before exec: enters the sandbox. Async-signal-safe (only
 * system calls). Returns 0, or an errno with *step naming what failed. */
int sandbox_enter(const sandbox_prepared *s, const char **step);

/* The record a run keeps of a model's sandbox: {"enabled": true, "landlock_abi": 7,
 * "seccomp": true, "network": "namespace", "internet_access": false, "limits": {...}},
 * or {"enabled": false, "reason": ...} for an unsandboxed model. */
json_t *sandbox_record(const sandbox_policy *policy, const sandbox_prepared *prepared,
                       const char *unsandboxed_reason);

/* "4 GB", "1.5 GiB"-style and "10m", "90s"-style renderings for messages. */
void sandbox_format_bytes(int64_t bytes, char *out, size_t size);
void sandbox_format_seconds(double seconds, char *out, size_t size);

/* ---- the pieces (landlock.c, seccomp.c) ---------------------------------------------- */

/* The Landlock ABI of this kernel, 0 when none. */
int sandbox_landlock_abi(void);
/* A ruleset for `policy` at `abi`; -1 with err filled on failure. */
int sandbox_landlock_ruleset(const sandbox_policy *policy, int abi, weir_error *err);
/* In the child: adds the rule for /proc/self (it names the child, so the parent cannot),
 * then restricts the calling process. Async-signal-safe. Returns 0 or an errno. */
int sandbox_landlock_enter(int ruleset_fd, int abi);

/* True when a filter exists for this architecture and the kernel takes filters. */
bool sandbox_seccomp_available(void);
/* The filter for a process whose pid will be `self_pid` (0: checked in the child by
 * sandbox_enter's caller) — see seccomp.c for what it refuses. *out is malloc'ed. */
void sandbox_seccomp_filter(bool internet, bool netns, int landlock_abi, void **out, unsigned short *len);
/* Sets the kill()/tgkill() self-pid constant of a filter (in the child). */
void sandbox_seccomp_set_pid(void *filter, unsigned short len, int pid);

#endif
