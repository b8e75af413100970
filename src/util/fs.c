/*
 * fs.c -- durable file writes and path helpers.
 */
#include "util/fs.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/uuid.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int wr_fs_mkdirs(const char *path, weir_error *err) {
  char *p = wr_strdup(path);
  if (!p) return wr_oom(err);
  size_t n = strlen(p);
  for (size_t i = 1; i <= n; i++) {
    if (p[i] == '/' || p[i] == 0) {
      char c = p[i];
      p[i] = 0;
      if (mkdir(p, 0777) != 0 && errno != EEXIST) {
        int e = errno;
        int rc = wr_seterr(err, WEIR_EIO, "cannot create folder %s: %s", p, strerror(e));
        free(p);
        return rc;
      }
      p[i] = c;
    }
  }
  free(p);
  if (!wr_fs_is_dir(path))
    return wr_seterr(err, WEIR_EIO, "cannot create folder %s: a file is in the way", path);
  return WEIR_OK;
}

int wr_fs_sync_dir(const char *dir, weir_error *err) {
  int fd = open(dir, O_RDONLY | O_DIRECTORY);
  if (fd < 0) return wr_seterr(err, WEIR_EIO, "cannot open folder %s: %s", dir, strerror(errno));
  if (fsync(fd) != 0 && errno != EINVAL) {
    int e = errno;
    close(fd);
    return wr_seterr(err, WEIR_EIO, "cannot sync folder %s: %s", dir, strerror(e));
  }
  close(fd);
  return WEIR_OK;
}

static int write_all(int fd, const void *data, size_t len) {
  const char *p = data;
  while (len > 0) {
    ssize_t w = write(fd, p, len);
    if (w < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    p += w;
    len -= (size_t)w;
  }
  return 0;
}

int wr_fs_write_atomic(const char *path, const void *data, size_t len, bool exclusive,
                         weir_error *err) {
  char *dir = wr_path_dirname(path);
  char *tmp = NULL;
  int rc = WEIR_OK;
  if (!dir) return wr_oom(err);
  /* Not mkstemp: it makes the file 0600 whatever the umask, and a lake others may read
   * (catalog 0644, data files 0644 under the usual umask) would then hold metadata and
   * lake.json only its owner can read. Mode 0666 less the umask, as for any new file. */
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; attempt++) {
    uint32_t r;
    wr_random_bytes(&r, sizeof r);
    free(tmp);
    tmp = wr_asprintf("%s.tmp-%ld-%08x", path, (long)getpid(), r);
    if (!tmp) {
      rc = wr_oom(err);
      goto done;
    }
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && errno != EEXIST) break;
  }
  if (fd < 0) {
    rc = wr_seterr(err, WEIR_EIO, "cannot create %s: %s", tmp, strerror(errno));
    goto done;
  }
  int injected = WEIR_FAILPOINT_ERRNO("fs.write");
  if (injected || write_all(fd, data, len) != 0 || fsync(fd) != 0) {
    rc = wr_seterr(err, WEIR_EIO, "cannot write %s: %s", path, strerror(injected ? injected : errno));
    close(fd);
    unlink(tmp);
    goto done;
  }
  close(fd);
  if (exclusive) {
    /* link() fails if the target exists: an atomic create-if-absent. */
    if (link(tmp, path) != 0) {
      int e = errno;
      unlink(tmp);
      rc = wr_seterr(err, e == EEXIST ? WEIR_EEXISTS : WEIR_EIO, "cannot create %s: %s",
                       path, strerror(e));
      goto done;
    }
    unlink(tmp);
  } else if (rename(tmp, path) != 0) {
    rc = wr_seterr(err, WEIR_EIO, "cannot move %s into place: %s", path, strerror(errno));
    unlink(tmp);
    goto done;
  }
  rc = wr_fs_sync_dir(dir, err);
done:
  free(tmp);
  free(dir);
  return rc;
}

int wr_fs_read(const char *path, char **out, size_t *len, weir_error *err) {
  *out = NULL;
  if (len) *len = 0;
  FILE *f = fopen(path, "rb");
  if (!f) {
    int e = errno;
    return wr_seterr(err, e == ENOENT ? WEIR_ENOTFOUND : WEIR_EIO, "cannot read %s: %s", path,
                       strerror(e));
  }
  wr_buf b = WEIR_BUF_INIT;
  char chunk[65536];
  size_t n;
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) wr_buf_append(&b, chunk, n);
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    wr_buf_free(&b);
    return wr_seterr(err, WEIR_EIO, "cannot read %s", path);
  }
  if (len) *len = b.len;
  *out = wr_buf_detach(&b);
  if (!*out) return wr_oom(err);
  return WEIR_OK;
}

bool wr_fs_exists(const char *path) {
  struct stat st;
  return stat(path, &st) == 0;
}

bool wr_fs_is_dir(const char *path) {
  struct stat st;
  return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

long long wr_fs_size(const char *path) {
  struct stat st;
  if (stat(path, &st) != 0) return -1;
  return (long long)st.st_size;
}

char *wr_path_join(const char *a, const char *b) {
  size_t la = strlen(a);
  if (la == 0) return wr_strdup(b);
  if (b[0] == '/') return wr_strdup(b);
  return wr_asprintf("%s%s%s", a, a[la - 1] == '/' ? "" : "/", b);
}

char *wr_path_absolute(const char *path) {
  wr_buf raw = WEIR_BUF_INIT;
  if (path[0] != '/') {
    char cwd[4096];
    if (!getcwd(cwd, sizeof cwd)) strcpy(cwd, "/");
    wr_buf_puts(&raw, cwd);
    wr_buf_putc(&raw, '/');
  }
  wr_buf_puts(&raw, path);
  /* Normalise: split on '/', drop "." and empty parts, let ".." pop. */
  char *s = wr_buf_detach(&raw);
  if (!s) return NULL;
  size_t n = strlen(s);
  char **parts = wr_calloc(n + 1, sizeof *parts);
  if (!parts) {
    free(s);
    return NULL;
  }
  size_t np = 0;
  char *save = NULL;
  for (char *tok = strtok_r(s, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
    if (strcmp(tok, ".") == 0) continue;
    if (strcmp(tok, "..") == 0) {
      if (np) np--;
      continue;
    }
    parts[np++] = tok;
  }
  wr_buf out = WEIR_BUF_INIT;
  if (np == 0) wr_buf_putc(&out, '/');
  for (size_t i = 0; i < np; i++) {
    wr_buf_putc(&out, '/');
    wr_buf_puts(&out, parts[i]);
  }
  free(parts);
  free(s);
  return wr_buf_detach(&out);
}

char *wr_path_dirname(const char *path) {
  const char *slash = strrchr(path, '/');
  if (!slash) return wr_strdup(".");
  if (slash == path) return wr_strdup("/");
  return wr_strndup(path, (size_t)(slash - path));
}

const char *wr_path_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

int wr_fs_remove_tree(const char *path, weir_error *err) {
  struct stat st;
  if (lstat(path, &st) != 0) return WEIR_OK;
  if (S_ISDIR(st.st_mode)) {
    DIR *d = opendir(path);
    if (!d) return wr_seterr(err, WEIR_EIO, "cannot open folder %s: %s", path, strerror(errno));
    struct dirent *e;
    int rc = WEIR_OK;
    while (rc == WEIR_OK && (e = readdir(d)) != NULL) {
      if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
      char *child = wr_path_join(path, e->d_name);
      rc = wr_fs_remove_tree(child, err);
      free(child);
    }
    closedir(d);
    if (rc != WEIR_OK) return rc;
    if (rmdir(path) != 0)
      return wr_seterr(err, WEIR_EIO, "cannot remove folder %s: %s", path, strerror(errno));
    return WEIR_OK;
  }
  if (unlink(path) != 0)
    return wr_seterr(err, WEIR_EIO, "cannot remove %s: %s", path, strerror(errno));
  return WEIR_OK;
}
