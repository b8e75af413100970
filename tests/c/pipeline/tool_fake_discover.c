/*
 * tool_fake_discover.c -- a stand-in for `python -B -m weir.discover DIR`, for
 * test_plan.c: a real process, spawned by libweir the way it spawns the SDK's discovery,
 * that answers with the document in DIR/discovery.json (docs/worker.md) on stdout and
 * exits with the status in DIR/discovery.status (0 when absent). It checks its arguments
 * as libweir must pass them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv) {
  if (argc != 5 || strcmp(argv[1], "-B") != 0 || strcmp(argv[2], "-m") != 0 || strcmp(argv[3], "weir.discover") != 0) {
    fprintf(stderr, "fake discover: unexpected arguments\n");
    return 64;
  }
  char path[4200];
  snprintf(path, sizeof path, "%s/discovery.json", argv[4]);
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "fake discover: no %s\n", path);
    return 65;
  }
  char buf[8192];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) fwrite(buf, 1, n, stdout);
  fclose(f);
  snprintf(path, sizeof path, "%s/discovery.status", argv[4]);
  f = fopen(path, "r");
  int status = 0;
  if (f) {
    if (fscanf(f, "%d", &status) != 1) status = 66;
    fclose(f);
    fprintf(stderr, "Traceback: models.py raised at import\n");
  }
  return status;
}
