/*
 * external.c -- the folders outside the warehouse that the lake's SQL engines may read:
 * those of data adopted by reference (register.c).
 *
 * Engines that run users' and models' SQL may read only the warehouse (DuckDB's
 * allowed_directories, engines.c and query.c). A registered table's files stay where
 * their writer put them, so their folders are granted in LAKE/external-locations: one
 * absolute folder (or URI prefix), with a trailing '/', a line. Invariants:
 *   - a grant is one write(2) of one short line with O_APPEND, so concurrent grants from
 *     several processes never interleave or lose each other;
 *   - the list only grows (a grant whose commit failed, or whose table was dropped, stays:
 *     it gives read access to a folder, never loses data) and is not versioned;
 *   - folders inside the warehouse are never listed (they are readable anyway).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lake/lake.h"
#include "storage/location.h"
#include "util/fs.h"

#define GRANTS_FILE "external-locations"

/* ---- grants -------------------------------------------------------------------------- */

char *lake_external_grants(const weir_lake *lake) {
  char *path = wr_asprintf("%s/%s", lake->path, GRANTS_FILE);
  char *text = NULL;
  size_t len = 0;
  weir_error ignore = {0};
  if (!wr_fs_exists(path) || wr_fs_read(path, &text, &len, &ignore) != WEIR_OK) {
    weir_error_clear(&ignore);
    free(path);
    return wr_strdup("");
  }
  free(path);
  return text;
}

/* Grants folder `dir` (absolute, with a trailing '/') unless it is in the warehouse or
 * granted already. */
static int grant_dir(weir_lake *lake, const char *dir, weir_error *err) {
  size_t wl = strlen(lake->warehouse);
  if (strncmp(dir, lake->warehouse, wl) == 0 && (dir[wl] == '/' || dir[wl] == 0)) return WEIR_OK;
  char *have = lake_external_grants(lake);
  char *line = wr_asprintf("%s\n", dir);
  bool known = strncmp(have, line, strlen(line)) == 0;
  if (!known) {
    char *nl = wr_asprintf("\n%s", line);
    known = strstr(have, nl) != NULL;
    free(nl);
  }
  free(have);
  int rc = WEIR_OK;
  if (!known) {
    char *path = wr_asprintf("%s/%s", lake->path, GRANTS_FILE);
    /* One write(2) of a short line with O_APPEND: concurrent grants never interleave. */
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    size_t n = strlen(line);
    if (fd < 0 || write(fd, line, n) != (ssize_t)n || fsync(fd) != 0)
      rc = wr_seterr(err, WEIR_EIO, "cannot record the external folder %s in %s: %s", dir, path, strerror(errno));
    if (fd >= 0) close(fd);
    free(path);
  }
  free(line);
  return rc;
}

/* The folder of a data file location, with a trailing '/'. */
static char *folder_of(const char *loc) {
  char *d = wr_location_dirname(loc);
  char *r = wr_asprintf("%s/", d);
  free(d);
  return r;
}

int lake_external_grant(weir_lake *lake, const char *root, const iceberg_data_file *files, size_t n,
                        weir_error *err) {
  char *r = root ? wr_asprintf("%s/", root) : NULL;
  int rc = r ? grant_dir(lake, r, err) : WEIR_OK;
  for (size_t i = 0; i < n && rc == WEIR_OK; i++) {
    if (r && strncmp(files[i].path, r, strlen(r)) == 0) continue;
    char *d = folder_of(files[i].path);
    rc = grant_dir(lake, d, err);
    free(d);
  }
  free(r);
  return rc;
}

size_t lake_external_split(char *grants, const char **dirs, size_t cap) {
  size_t n = 0;
  for (char *line = grants, *next; line && *line && n < cap; line = next) {
    next = strchr(line, '\n');
    if (next) *next++ = 0;
    else next = line + strlen(line);
    if (*line == '/' || strstr(line, "://")) dirs[n++] = line;
  }
  return n;
}

size_t lake_external_count(const char *grants) {
  size_t lines = 1;
  for (const char *c = grants; c && *c; c++) lines += *c == '\n';
  return lines;
}
