/* The spawner as a library inside a host process must behave (issue 15): it leaves the
 * host's SIGPIPE disposition alone yet survives a child that stops reading, and it leaks
 * no descriptor, on success or on error. */
#include "harness.h"

#include <dirent.h>
#include <signal.h>

#include "pipeline/pipeline.h"

static int open_fds(void) {
  DIR *d = opendir("/proc/self/fd");
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));)
    if (e->d_name[0] != '.') n++;
  if (d) closedir(d);
  return n - 1; /* the directory's own descriptor */
}

TEST(a_child_that_stops_reading_does_not_kill_the_host_nor_change_sigpipe) {
  /* SIG_DFL: a SIGPIPE delivered to this process would end it (the test would die). */
  signal(SIGPIPE, SIG_DFL);
  size_t n = 8 << 20; /* far more than a pipe holds: the write must meet EPIPE */
  char *text = malloc(n + 1);
  memset(text, 'x', n);
  text[n] = 0;
  char *argv[] = {"/bin/true", NULL};
  char *out = NULL, *errtext = NULL;
  int status = -1;
  weir_error err = {0};
  CHECK_OK(pipeline_spawn(argv, NULL, text, NULL, &out, &errtext, &status, &err), &err);
  CHECK_INT(status, 0);
  struct sigaction now;
  CHECK(sigaction(SIGPIPE, NULL, &now) == 0);
  CHECK(now.sa_handler == SIG_DFL);
  sigset_t pending;
  sigemptyset(&pending);
  sigpending(&pending);
  CHECK(!sigismember(&pending, SIGPIPE)); /* the one the write raised was consumed */
  sigset_t mask;
  pthread_sigmask(SIG_BLOCK, NULL, &mask);
  CHECK(!sigismember(&mask, SIGPIPE)); /* and the thread's mask is restored */
  free(out);
  free(errtext);
  free(text);
}

TEST(no_descriptor_leaks_on_success_or_error) {
  int before = open_fds();
  char *ok_argv[] = {"/bin/echo", "hi", NULL};
  char *out = NULL, *errtext = NULL;
  int status = -1;
  weir_error err = {0};
  CHECK_OK(pipeline_spawn(ok_argv, NULL, "input", NULL, &out, &errtext, &status, &err), &err);
  CHECK_STR(out, "hi\n");
  free(out);
  free(errtext);
  CHECK_INT(open_fds(), before);
  char *missing[] = {"/nonexistent/program", NULL};
  out = errtext = NULL;
  CHECK(pipeline_spawn(missing, NULL, NULL, NULL, &out, &errtext, &status, &err) != WEIR_OK);
  weir_error_clear(&err);
  free(out);
  free(errtext);
  CHECK_INT(open_fds(), before);
  /* A log file that cannot be opened: the pipes made before it are closed again. */
  pipeline_spawn_opts o = {.log_path = "/nonexistent/dir/log"};
  CHECK(pipeline_spawn_with(ok_argv, &o, &out, &errtext, &status, &err) == WEIR_EIO);
  weir_error_clear(&err);
  CHECK_INT(open_fds(), before);
}

TEST_MAIN()
