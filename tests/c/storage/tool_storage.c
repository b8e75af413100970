/*
 * tool_storage.c -- drives src/storage against a real server for tests/py/test_s3.py:
 *
 *   tool_storage [--no-conditional] put-exclusive LOCATION TEXT
 *   tool_storage get LOCATION
 *
 * Prints "ok" or "<error name>: <message>" and exits 0 / 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "storage/storage.h"

int main(int argc, char **argv) {
  int i = 1;
  if (i < argc && strcmp(argv[i], "--no-conditional") == 0) {
    wr_storage_set_conditional_put(false);
    i++;
  }
  if (argc - i < 2) {
    fprintf(stderr, "usage: tool_storage [--no-conditional] put-exclusive LOCATION TEXT | get LOCATION\n");
    return 2;
  }
  weir_error err = {0};
  int rc;
  if (strcmp(argv[i], "put-exclusive") == 0 && argc - i == 3) {
    rc = wr_storage_write(argv[i + 1], argv[i + 2], strlen(argv[i + 2]), true, &err);
    if (rc == WEIR_OK) puts("ok");
  } else if (strcmp(argv[i], "get") == 0) {
    char *text = NULL;
    rc = wr_storage_read(argv[i + 1], &text, NULL, &err);
    if (rc == WEIR_OK) printf("ok %s\n", text);
    free(text);
  } else {
    fprintf(stderr, "tool_storage: unknown command %s\n", argv[i]);
    return 2;
  }
  if (rc != WEIR_OK) printf("%s: %s\n", weir_error_name(rc), err.message ? err.message : "");
  weir_error_clear(&err);
  return rc == WEIR_OK ? 0 : 1;
}
