/* The model sandbox, seen from inside: a shell started in it tries what a hostile model
 * would, and each attempt must fail while what a model needs still works. The shell
 * cannot fork in the sandbox, so every command is a builtin or `exec`s one program. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "harness.h"
#include "pipeline/child.h"
#include "pipeline/model_proc.h"
#include "pipeline/pipeline.h"
#include "pipeline/sandbox.h"
#include "util/fs.h"
#include "util/json.h"

static bool usable(void) {
  const sandbox_support *s = sandbox_probe();
  if (!sandbox_usable(s)) {
    fprintf(stderr, "  skip: %s\n", s->why);
    return false;
  }
  return true;
}

static void write_file(const char *path, const char *text) {
  weir_error err = {0};
  char *dir = wr_path_dirname(path);
  wr_fs_mkdirs(dir, &err);
  free(dir);
  FILE *f = fopen(path, "w");
  if (!f) {
    TEST_FAIL_("cannot write %s", path);
    return;
  }
  fputs(text, f);
  fclose(f);
}

static char *slurp(const char *path) {
  char *text = NULL;
  size_t len = 0;
  weir_error err = {0};
  if (wr_fs_read(path, &text, &len, &err) != WEIR_OK) {
    weir_error_clear(&err);
    return NULL;
  }
  return text;
}

/* Runs `sh -c script` in the sandbox of `p`; returns the exit status (128 + signal) and
 * its output (stdout and stderr) in *out. */
static int sandboxed_sh(const sandbox_policy *p, const char *script, char **out) {
  sandbox_prepared sp;
  weir_error err = {0};
  *out = NULL;
  if (sandbox_prepare(p, &sp, &err) != WEIR_OK) {
    TEST_FAIL_("sandbox_prepare: %s", test_err_message_(&err));
    weir_error_clear(&err);
    return -1;
  }
  char *dir = test_tmpdir();
  char *log = wr_path_join(dir, "out.txt");
  int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  char *argv[] = {"/bin/sh", "-c", (char *)script, NULL};
  pipeline_child c = {.path = "/bin/sh",
                      .argv = argv,
                      .fd_in = -1,
                      .fd_out = fd,
                      .fd_err = fd,
                      .fd_extra = -1,
                      .sandbox = &sp,
                      .session = true};
  pid_t pid;
  int status = -1;
  if (pipeline_child_start(&c, &pid, &err) == WEIR_OK)
    status = pipeline_child_wait(pid, NULL);
  else
    TEST_FAIL_("pipeline_child_start: %s", test_err_message_(&err));
  weir_error_clear(&err);
  close(fd);
  *out = slurp(log);
  if (!*out) *out = strdup("");
  test_rmtree(dir);
  free(dir);
  free(log);
  sandbox_prepared_free(&sp);
  return status;
}

typedef struct fixture {
  char *dir;     /* everything below lives here */
  char *project; /* a read root with models.py */
  char *lake;    /* the protected folder, inside the project (the hard case) */
  char *home;    /* a user's other files */
  char *tmp;     /* the private temporary folder */
  sandbox_policy policy;
} fixture;

static void fixture_init(fixture *f) {
  f->dir = test_tmpdir();
  f->project = wr_path_join(f->dir, "project");
  f->lake = wr_path_join(f->project, ".weir");
  f->home = wr_path_join(f->dir, "home");
  f->tmp = wr_path_join(f->dir, "tmp");
  char *p;
  write_file(p = wr_path_join(f->project, "models.py"), "def m(): pass\n"), free(p);
  write_file(p = wr_path_join(f->lake, "catalog.db"), "the catalog\n"), free(p);
  write_file(p = wr_path_join(f->lake, "warehouse/default/t/data/x.parquet"), "data\n"), free(p);
  write_file(p = wr_path_join(f->home, "secret.txt"), "secret\n"), free(p);
  weir_error err = {0};
  wr_fs_mkdirs(f->tmp, &err);
  sandbox_policy_init(&f->policy);
  sandbox_policy_add_read(&f->policy, f->project);
  f->policy.tmpdir = realpath(f->tmp, NULL);
  f->policy.protect = realpath(f->lake, NULL);
}

static void fixture_free(fixture *f) {
  sandbox_policy_free(&f->policy);
  test_rmtree(f->dir);
  free(f->dir);
  free(f->project);
  free(f->lake);
  free(f->home);
  free(f->tmp);
}

static int run(fixture *f, char **out, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int run(fixture *f, char **out, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char script[8192];
  vsnprintf(script, sizeof script, fmt, ap);
  va_end(ap);
  return sandboxed_sh(&f->policy, script, out);
}

TEST(the_machine_offers_a_sandbox) {
  const sandbox_support *s = sandbox_probe();
  /* weir's CI machines do; a kernel without Landlock is told why. */
  if (!sandbox_usable(s))
    CHECK(strlen(s->why) > 0);
  else
    CHECK(s->landlock_abi >= 1);
}

TEST(reads_the_project_but_no_file_of_the_lake_inside_it) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  CHECK_INT(run(&f, &out, "exec cat '%s/models.py'", f.project), 0);
  CHECK_CONTAINS(out, "def m()");
  free(out);
  CHECK(run(&f, &out, "exec cat '%s/catalog.db'", f.lake) != 0);
  CHECK_CONTAINS(out, "Permission denied");
  free(out);
  CHECK(run(&f, &out, "exec cat '%s/warehouse/default/t/data/x.parquet'", f.lake) != 0);
  free(out);
  /* The project still lists (Python's importer needs that). */
  CHECK_INT(run(&f, &out, "exec ls '%s'", f.project), 0);
  CHECK_CONTAINS(out, "models.py");
  free(out);
  fixture_free(&f);
}

TEST(cannot_remove_or_write_anything_but_its_temporary_folder) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  char *victim = wr_path_join(f.lake, "warehouse/default/t/data/x.parquet");
  CHECK(run(&f, &out, "exec rm -f '%s'", victim) != 0);
  free(out);
  CHECK(wr_fs_exists(victim));
  CHECK(run(&f, &out, "echo evil > '%s/new.parquet'", f.lake) != 0);
  free(out);
  CHECK(run(&f, &out, "echo evil >> '%s/models.py'", f.project) != 0);
  free(out);
  CHECK(run(&f, &out, "exec mv '%s' '%s/stolen'", victim, f.tmp) != 0);
  free(out);
  CHECK(wr_fs_exists(victim));
  char *text = slurp(victim);
  CHECK_STR(text, "data\n");
  free(text);
  /* Its own folder is its own. */
  CHECK_INT(run(&f, &out, "echo fine > '%s/x' && exec cat '%s/x'", f.tmp, f.tmp), 0);
  CHECK_CONTAINS(out, "fine");
  free(out);
  CHECK_INT(run(&f, &out, "exec rm '%s/x'", f.tmp), 0);
  free(out);
  free(victim);
  fixture_free(&f);
}

TEST(cannot_read_the_users_other_files) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  CHECK(run(&f, &out, "exec cat '%s/secret.txt'", f.home) != 0);
  CHECK_CONTAINS(out, "Permission denied");
  CHECK(!strstr(out, "secret\n"));
  free(out);
  fixture_free(&f);
}

TEST(cannot_chmod_what_landlock_does_not_guard) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  char *victim = wr_path_join(f.lake, "warehouse/default/t/data/x.parquet");
  CHECK(run(&f, &out, "exec chmod 000 '%s'", victim) != 0);
  free(out);
  struct stat st;
  CHECK_INT(stat(victim, &st), 0);
  CHECK_INT(st.st_mode & 0777, 0644);
  free(victim);
  fixture_free(&f);
}

TEST(cannot_start_a_process) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  /* A pipeline makes the shell fork. */
  CHECK(run(&f, &out, "echo a | cat") != 0);
  CHECK(strstr(out, "fork") || strstr(out, "not permitted"));
  free(out);
  fixture_free(&f);
}

TEST(cannot_signal_its_parent) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  CHECK(run(&f, &out, "kill -0 %d", (int)getpid()) != 0);
  free(out);
  CHECK_INT(run(&f, &out, "kill -0 $$"), 0); /* itself: fine */
  free(out);
  fixture_free(&f);
}

TEST(keeps_only_its_own_descriptors) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  /* A descriptor the runner opened without close-on-exec must not reach the sandbox. */
  char *p = wr_path_join(f.lake, "catalog.db");
  int leak = open(p, O_RDWR);
  CHECK(leak >= 0);
  char *out = NULL;
  CHECK_INT(run(&f, &out, "exec ls /proc/self/fd"), 0);
  /* 0, 1, 2 and ls's own descriptor of the folder. */
  char want[16];
  snprintf(want, sizeof want, "%d", leak);
  CHECK(!strstr(out, want) || leak <= 3);
  free(out);
  close(leak);
  free(p);
  fixture_free(&f);
}

static int listener(int *port) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK), .sin_port = 0};
  bind(s, (struct sockaddr *)&a, sizeof a);
  listen(s, 8);
  socklen_t len = sizeof a;
  getsockname(s, (struct sockaddr *)&a, &len);
  *port = ntohs(a.sin_port);
  fcntl(s, F_SETFL, O_NONBLOCK);
  return s;
}

TEST(no_network_unless_internet_access) {
  if (!usable()) return;
  if (access("/bin/bash", X_OK) != 0) return; /* /dev/tcp is bash's */
  fixture f;
  fixture_init(&f);
  int port;
  int s = listener(&port);
  char *out = NULL;
  CHECK(run(&f, &out, "exec /bin/bash -c 'echo hi > /dev/tcp/127.0.0.1/%d'", port) != 0);
  free(out);
  /* Nothing arrived: the child has ended, so a connection would be queued by now. */
  CHECK(accept(s, NULL, NULL) < 0);
  f.policy.internet = true;
  CHECK_INT(run(&f, &out, "exec /bin/bash -c 'echo hi > /dev/tcp/127.0.0.1/%d'", port), 0);
  free(out);
  int c = accept(s, NULL, NULL);
  CHECK(c >= 0);
  if (c >= 0) close(c);
  /* ... and the network is all it opens. */
  CHECK(run(&f, &out, "exec cat '%s/catalog.db'", f.lake) != 0);
  free(out);
  close(s);
  fixture_free(&f);
}

TEST(limits_are_set_and_cannot_be_raised) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  f.policy.limits.memory = 512LL << 20;
  f.policy.limits.cpu_s = 7;
  char *out = NULL;
  CHECK_INT(run(&f, &out, "ulimit -t; ulimit -f; ulimit -n"), 0);
  /* cpu seconds; file size in 512-byte blocks (= the memory limit); open files */
  CHECK_CONTAINS(out, "7\n1048576\n1024");
  free(out);
  CHECK(run(&f, &out, "ulimit -t 100") != 0);
  free(out);
  fixture_free(&f);
}

TEST(a_program_that_cannot_start_is_reported) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  sandbox_prepared sp;
  weir_error err = {0};
  CHECK_OK(sandbox_prepare(&f.policy, &sp, &err), &err);
  char *argv[] = {"/nonexistent/python", NULL};
  pipeline_child c = {.path = "/nonexistent/python",
                      .argv = argv,
                      .fd_in = -1,
                      .fd_out = -1,
                      .fd_err = -1,
                      .fd_extra = -1,
                      .sandbox = &sp};
  pid_t pid;
  CHECK_INT(pipeline_child_start(&c, &pid, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "/nonexistent/python");
  weir_error_clear(&err);
  sandbox_prepared_free(&sp);
  fixture_free(&f);
}

TEST(limits_from_json) {
  sandbox_limits l;
  sandbox_limits_default(&l);
  bool net = true;
  json_t *j = json_pack("{s:b,s:I,s:f,s:f}", "internet_access", 1, "memory", (json_int_t)(1LL << 30),
                        "timeout", 600.0, "cpu_time", 59.5);
  char *msg = sandbox_limits_from_json(j, &l, &net);
  CHECK(msg == NULL);
  CHECK(net);
  CHECK_INT(l.memory, 1LL << 30);
  CHECK_INT((long long)l.timeout_s, 600);
  CHECK_INT(l.cpu_s, 60);
  json_decref(j);
  j = json_pack("{s:i}", "memory", 1000);
  msg = sandbox_limits_from_json(j, &l, &net);
  CHECK_CONTAINS(msg, "memory must be at least");
  free(msg);
  json_decref(j);
  j = json_pack("{s:s}", "disk", "1GB");
  msg = sandbox_limits_from_json(j, &l, &net);
  CHECK_CONTAINS(msg, "unknown sandbox option disk");
  free(msg);
  json_decref(j);
  char buf[64];
  sandbox_format_bytes(4LL * 1000 * 1000 * 1000, buf, sizeof buf);
  CHECK_STR(buf, "4 GB");
  sandbox_format_bytes(512LL << 20, buf, sizeof buf);
  CHECK_STR(buf, "512 MiB");
  sandbox_format_seconds(600, buf, sizeof buf);
  CHECK_STR(buf, "10m");
  sandbox_format_seconds(5400, buf, sizeof buf);
  CHECK_STR(buf, "1h30m");
  sandbox_format_seconds(2.5, buf, sizeof buf);
  CHECK_STR(buf, "2.5s");
}

TEST(the_record_says_what_held_the_model) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  sandbox_prepared sp;
  weir_error err = {0};
  CHECK_OK(sandbox_prepare(&f.policy, &sp, &err), &err);
  json_t *r = sandbox_record(&f.policy, &sp, NULL);
  CHECK(json_is_true(json_object_get(r, "enabled")));
  CHECK_INT(wr_json_int(r, "landlock_abi", 0), sandbox_probe()->landlock_abi);
  CHECK_STR(wr_json_str(r, "network", ""), sandbox_probe()->userns ? "namespace" : "seccomp");
  json_decref(r);
  r = sandbox_record(&f.policy, NULL, "--unsandboxed");
  CHECK(json_is_false(json_object_get(r, "enabled")));
  CHECK_STR(wr_json_str(r, "reason", ""), "--unsandboxed");
  json_decref(r);
  sandbox_prepared_free(&sp);
  fixture_free(&f);
}

/* The runner's watch: a model process past its timeout or its memory is stopped. The
 * worker here stands in for weir.worker: for each job it takes the model's socket, waits
 * for the model process to end (the socket closes), and answers that it is done. */
static const char FAKE_WORKER[] =
    "import json, os, socket\n"
    "ctl = socket.socket(fileno=3)\n"
    "while True:\n"
    "    head, fds, _, _ = socket.recv_fds(ctl, 4, 4)\n"
    "    if not head: break\n"
    "    n = int.from_bytes(head, 'little')\n"
    "    body = b''\n"
    "    while len(body) < n: body += ctl.recv(n - len(body))\n"
    "    job = json.loads(body)['job']\n"
    "    model = socket.socket(fileno=fds[0])\n"
    "    while model.recv(4096): pass\n"
    "    model.close()\n"
    "    reply = json.dumps({'done': True, 'saw': job['model']}).encode()\n"
    "    ctl.sendall(len(reply).to_bytes(4, 'little') + reply)\n";

static void watch(fixture *f, const char *script, double timeout, int64_t memory, pipeline_model_procs *mp) {
  sandbox_prepared sp;
  weir_error err = {0};
  f->policy.limits.memory = memory;
  CHECK_OK(sandbox_prepare(&f->policy, &sp, &err), &err);
  char *host_argv[] = {"/bin/sh", "-c", (char *)script, NULL};
  char *worker_argv[] = {"/usr/bin/python3", "-c", (char *)FAKE_WORKER, NULL};
  char *log = wr_path_join(f->dir, "log.txt");
  pipeline_worker w;
  CHECK_OK(pipeline_worker_start(&w, worker_argv, NULL, log, &err), &err);
  memset(mp, 0, sizeof *mp);
  mp->host_path = "/bin/sh";
  mp->host_argv = host_argv;
  mp->host_job = "";
  mp->sandbox = &sp;
  mp->timeout_s = timeout;
  mp->memory_limit = memory;
  mp->worker_job = "{\"model\": \"m\"}";
  mp->log_path = log;
  CHECK_OK(pipeline_model_spawn(mp, &w, &err), &err);
  CHECK(mp->worker_done);
  CHECK(!w.dead); /* the worker lives on for the next model */
  pipeline_worker_stop(&w);
  free(log);
  sandbox_prepared_free(&sp);
}

TEST(a_model_past_its_timeout_is_stopped) {
  if (!usable() || access("/usr/bin/python3", X_OK) != 0) return;
  fixture f;
  fixture_init(&f);
  pipeline_model_procs mp;
  watch(&f, "exec sleep 60", 0.3, 1LL << 30, &mp);
  CHECK(mp.timed_out);
  CHECK_INT(mp.host_status, 128 + SIGKILL);
  CHECK(mp.seconds < 10);
  fixture_free(&f);
}

TEST(a_model_over_its_memory_is_stopped) {
  if (!usable()) return;
  if (access("/usr/bin/python3", X_OK) != 0) return;
  fixture f;
  fixture_init(&f);
  pipeline_model_procs mp;
  /* 2 GiB touched, against a limit of 256 MiB. */
  watch(&f, "exec /usr/bin/python3 -c 'b = bytearray(2 << 30); import time; time.sleep(30)'", 60, 256LL << 20,
        &mp);
  CHECK(mp.memory_exceeded);
  CHECK(!mp.timed_out);
  CHECK(mp.peak_memory > (200LL << 20));
  CHECK(mp.peak_memory < (1LL << 30));
  fixture_free(&f);
}

TEST(an_inherited_descriptor_cannot_be_reopened_through_proc) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  char *out = NULL;
  /* Writing through fd 1 works; reopening its file by /proc/self/fd/1 is an open of a
   * file outside the rules, and is refused. */
  CHECK(run(&f, &out, "echo direct; echo reopened > /proc/self/fd/1") != 0);
  CHECK_CONTAINS(out, "direct");
  CHECK(!strstr(out, "reopened\n"));
  free(out);
  fixture_free(&f);
}

TEST(code_sandbox_refuses_a_project_inside_the_lake) {
  char *dir = test_tmpdir();
  char *lake = wr_path_join(dir, "lake");
  char *proj = wr_path_join(lake, "project");
  weir_error err = {0};
  wr_fs_mkdirs(proj, &err);
  sandbox_policy p;
  json_t *roots = json_array();
  CHECK_INT(pipeline_code_sandbox(proj, lake, roots, "m", &p, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "is inside the lake");
  weir_error_clear(&err);
  /* Beside it: fine, with a private folder that is removed afterwards. */
  char *beside = wr_path_join(dir, "project");
  wr_fs_mkdirs(beside, &err);
  CHECK_OK(pipeline_code_sandbox(beside, lake, roots, "m", &p, &err), &err);
  CHECK(p.tmpdir && wr_fs_is_dir(p.tmpdir));
  CHECK_INT(p.n_read_roots, 1);
  char *tmp = strdup(p.tmpdir);
  pipeline_code_sandbox_done(&p);
  CHECK(!wr_fs_exists(tmp));
  free(tmp);
  json_decref(roots);
  test_rmtree(dir);
  free(beside);
  free(proj);
  free(lake);
  free(dir);
}

TEST(sandboxed_code_sees_no_credentials) {
  setenv("AWS_SECRET_ACCESS_KEY", "hunter2", 1);
  setenv("POLARS_MAX_THREADS", "2", 1);
  setenv("https_proxy", "http://proxy:3128", 1);
  sandbox_policy p;
  sandbox_policy_init(&p);
  p.tmpdir = strdup("/tmp/weir-x");
  char **env = pipeline_code_environment(&p);
  bool secret = false, polars = false, proxy = false, home = false;
  for (char **e = env; *e; e++) {
    if (strncmp(*e, "AWS_", 4) == 0) secret = true;
    if (strcmp(*e, "POLARS_MAX_THREADS=2") == 0) polars = true;
    if (strncmp(*e, "https_proxy=", 12) == 0) proxy = true;
    if (strcmp(*e, "HOME=/tmp/weir-x") == 0) home = true;
  }
  CHECK(!secret && polars && !proxy && home);
  pipeline_code_environment_free(env);
  p.internet = true; /* with internet access, the proxy passes (credentials still do not) */
  env = pipeline_code_environment(&p);
  proxy = secret = false;
  for (char **e = env; *e; e++) {
    if (strncmp(*e, "https_proxy=", 12) == 0) proxy = true;
    if (strncmp(*e, "AWS_", 4) == 0) secret = true;
  }
  CHECK(proxy && !secret);
  pipeline_code_environment_free(env);
  sandbox_policy_free(&p);
  unsetenv("AWS_SECRET_ACCESS_KEY");
  unsetenv("POLARS_MAX_THREADS");
  unsetenv("https_proxy");
}

TEST(spawn_with_a_sandbox_and_a_timeout) {
  if (!usable()) return;
  fixture f;
  fixture_init(&f);
  sandbox_prepared sp;
  weir_error err = {0};
  CHECK_OK(sandbox_prepare(&f.policy, &sp, &err), &err);
  char *argv[] = {"sh", "-c", "read x; echo got $x; exec sleep 60", NULL};
  pipeline_spawn_opts o = {.stdin_text = "hello\n", .sandbox = &sp, .timeout_s = 0.5};
  char *out = NULL, *errtext = NULL;
  int status = 0;
  CHECK_OK(pipeline_spawn_with(argv, &o, &out, &errtext, &status, &err), &err);
  CHECK(o.timed_out);
  CHECK_INT(status, 128 + SIGKILL);
  CHECK_CONTAINS(out, "got hello");
  free(out);
  free(errtext);
  sandbox_prepared_free(&sp);
  fixture_free(&f);
}

TEST(a_worker_that_dies_during_a_job_takes_the_model_process_with_it) {
  if (!usable() || access("/usr/bin/python3", X_OK) != 0) return;
  fixture f;
  fixture_init(&f);
  sandbox_prepared sp;
  weir_error err = {0};
  CHECK_OK(sandbox_prepare(&f.policy, &sp, &err), &err);
  char *host_argv[] = {"/bin/sh", "-c", "exec sleep 60", NULL};
  /* It takes the job and ends without answering. */
  char *worker_argv[] = {"/usr/bin/python3", "-c",
                         "import socket\nctl = socket.socket(fileno=3)\nsocket.recv_fds(ctl, 4, 4)\n", NULL};
  char *log = wr_path_join(f.dir, "log.txt");
  pipeline_worker w;
  CHECK_OK(pipeline_worker_start(&w, worker_argv, NULL, log, &err), &err);
  pipeline_model_procs mp;
  memset(&mp, 0, sizeof mp);
  mp.host_path = "/bin/sh";
  mp.host_argv = host_argv;
  mp.host_job = "";
  mp.sandbox = &sp;
  mp.timeout_s = 60;
  mp.worker_job = "{}";
  mp.log_path = log;
  CHECK_OK(pipeline_model_spawn(&mp, &w, &err), &err);
  CHECK(!mp.worker_done);
  CHECK(w.dead);
  CHECK_INT(mp.worker_status, 0);
  CHECK_INT(mp.host_status, 128 + SIGKILL);
  CHECK(mp.seconds < 30);
  /* A dead worker is not handed another model. */
  CHECK_INT(pipeline_model_spawn(&mp, &w, &err), WEIR_EIO);
  weir_error_clear(&err);
  pipeline_worker_stop(&w);
  free(log);
  sandbox_prepared_free(&sp);
  fixture_free(&f);
}

TEST_MAIN()
