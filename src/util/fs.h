/*
 * fs.h -- files the way a storage engine needs them.
 *
 * Warehouse files are immutable once written, so every write goes to a temporary name in
 * the same folder, is fsync'ed, then renamed into place and the folder fsync'ed: a crash
 * leaves either no file or the whole file, never a torn one.
 */
#ifndef WEIR_UTIL_FS_H
#define WEIR_UTIL_FS_H

#include <stddef.h>
#include <stdbool.h>
#include "util/error.h"

/* mkdir -p. Errors: WEIR_EIO naming the path. */
int wr_fs_mkdirs(const char *path, weir_error *err);

/* Writes `len` bytes atomically to `path` (temp file + fsync + rename + fsync of the
 * folder). Fails with WEIR_EEXISTS if `exclusive` and the path already exists. */
int wr_fs_write_atomic(const char *path, const void *data, size_t len, bool exclusive,
                         weir_error *err);

/* Reads a whole file; *out is NUL-terminated (not counted in *len) and owned by the
 * caller. Errors: WEIR_ENOTFOUND, WEIR_EIO. */
int wr_fs_read(const char *path, char **out, size_t *len, weir_error *err);

bool wr_fs_exists(const char *path);
bool wr_fs_is_dir(const char *path);
/* fsync a folder so a rename or create inside it is durable. */
int wr_fs_sync_dir(const char *dir, weir_error *err);
/* Joins two path parts with one '/'. Caller frees. These three return NULL only on OOM. */
char *wr_path_join(const char *a, const char *b);
/* Absolute, normalised (no "." or ".." parts, no trailing '/') form of a path that may
 * not exist yet. Caller frees. */
char *wr_path_absolute(const char *path);
/* The folder part of a path ("." when none). Caller frees. */
char *wr_path_dirname(const char *path);
/* The last part of a path. Points into `path`. */
const char *wr_path_basename(const char *path);
#ifdef WR_ALLOC_ABORTS /* legacy callers (error.h): abort on OOM as before */
#define wr_path_join(a, b) ((char *)WR_X_PTR(wr_path_join((a), (b))))
#define wr_path_absolute(p) ((char *)WR_X_PTR(wr_path_absolute(p)))
#define wr_path_dirname(p) ((char *)WR_X_PTR(wr_path_dirname(p)))
#endif
/* Size of a file in bytes, or -1. */
long long wr_fs_size(const char *path);
/* Removes a file tree (used by tests and for cleaning temporary folders). */
int wr_fs_remove_tree(const char *path, weir_error *err);

#endif
