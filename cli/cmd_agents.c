/*
 * cmd_agents.c -- `weir mcp` and `weir lsp`: the servers for agents and editors, written in
 * Python over the SDK (python/weir/mcp_server.py, python/weir/lsp_server.py). The CLI finds
 * the lake, then replaces itself with the interpreter running the module, so the server
 * owns stdin and stdout (the protocol's channel) and its exit status is the command's.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"

/* Points the SDK at the libweir beside this binary (a build tree), unless told otherwise:
 * the server must run the same library as the CLI that started it. */
static void library_beside_binary(void) {
  if (getenv("WEIR_LIBRARY")) return;
  char self[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
  if (n <= 0) return;
  self[n] = 0;
  char *slash = strrchr(self, '/');
  if (!slash) return;
  *slash = 0;
  char lib[PATH_MAX + 16];
  snprintf(lib, sizeof lib, "%s/libweir.so", self);
  if (access(lib, R_OK) == 0) setenv("WEIR_LIBRARY", lib, 1);
}

/* Whether `python` can import the weir SDK (its error, had it none, would be Python's own
 * "No module named 'weir'", after the protocol's client already started talking). */
static bool has_sdk(const char *python) {
  pid_t pid = fork();
  if (pid < 0) return true; /* let execvp report it */
  if (pid == 0) {
    int null = open("/dev/null", O_WRONLY);
    if (null >= 0) {
      dup2(null, STDOUT_FILENO);
      dup2(null, STDERR_FILENO);
    }
    execlp(python, python, "-c", "import weir", (char *)NULL);
    _exit(127);
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

static int exec_module(cli_ctx *ctx, const char *module, const char *ref, const char *const *extra, int n_extra) {
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  const char *python = getenv("WEIR_PYTHON");
  if (!python || !*python) python = "python3";
  const char *argv[16];
  int k = 0;
  argv[k++] = python;
  argv[k++] = "-m";
  argv[k++] = module;
  argv[k++] = "--lake";
  argv[k++] = weir_lake_path(lake);
  if (ref) {
    argv[k++] = "--ref";
    argv[k++] = ref;
  }
  for (int i = 0; i < n_extra && k < 15; i++) argv[k++] = extra[i];
  argv[k] = NULL;
  library_beside_binary();
  if (!has_sdk(python)) {
    fprintf(stderr,
            "error: %s cannot import the weir SDK, which %s runs on: set WEIR_PYTHON to an interpreter that has "
            "it (e.g. the .venv/bin/python of a checkout, or one where `pip install weir` ran)\n",
            python, module);
    return 1;
  }
  fflush(stdout);
  fflush(stderr);
  execvp(python, (char *const *)argv);
  fprintf(stderr, "error: cannot start %s -m %s: %s (set WEIR_PYTHON to an interpreter with the weir SDK)\n", python,
          module, strerror(errno));
  return 1;
}

int cmd_lsp(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  return exec_module(ctx, "weir.lsp_server", cli_opt_value(cmd, args, "ref"), NULL, 0);
}

int cmd_mcp(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  const char *protect = cli_opt_value(cmd, args, "protect");
  const char *extra[2] = {"--protect", protect};
  return exec_module(ctx, "weir.mcp_server", cli_opt_value(cmd, args, "ref"), extra, protect ? 2 : 0);
}
