/*
 * storage.c -- warehouse objects by location: local files through util/fs, S3 objects
 * through s3.c (the contract of each function is in storage.h).
 */
#include "storage/storage.h"

#include <dirent.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "storage/location.h"
#include "storage/s3.h"
#include "util/buf.h"
#include "util/failpoint.h"
#include "util/fs.h"
#include "util/uuid.h"

static atomic_bool conditional_put_ignored;

void wr_storage_set_conditional_put(bool honoured) { atomic_store(&conditional_put_ignored, !honoured); }

void wr_storage_reconfigure(void) { wr_s3_reconfigure(); }

static int parse(const char *loc, wr_location *l, weir_error *err) { return wr_location_parse(loc, l, err); }

int wr_storage_read(const char *loc, char **out, size_t *len, weir_error *err) {
  *out = NULL;
  if (len) *len = 0;
  wr_location l;
  int rc = parse(loc, &l, err);
  if (rc) return rc;
  if (l.kind == WR_LOCATION_LOCAL) {
    rc = wr_fs_read(l.path, out, len, err);
  } else {
    wr_s3_request_args a = {"GET", "GET", l.bucket, l.key, NULL, NULL, 0, false, false};
    wr_s3_response r;
    rc = wr_s3_request(&a, &r, err);
    if (rc == WEIR_OK) {
      if (len) *len = r.body.len;
      *out = wr_buf_detach(&r.body);
    }
    wr_s3_response_clear(&r);
  }
  wr_location_clear(&l);
  return rc;
}

static int s3_exists(const wr_location *l, bool *out, weir_error *err) {
  wr_s3_request_args a = {"HEAD", "HEAD", l->bucket, l->key, NULL, NULL, 0, false, true};
  wr_s3_response r;
  int rc = wr_s3_request(&a, &r, err);
  if (rc == WEIR_OK) {
    if (r.status == 404) {
      /* HEAD has no body to tell a missing key from a missing bucket: ask for the bucket. */
      wr_s3_request_args b = {"HEAD", "HEAD", l->bucket, "", NULL, NULL, 0, false, false};
      wr_s3_response rb;
      rc = wr_s3_request(&b, &rb, err);
      if (rc == WEIR_ENOTFOUND) {
        weir_error_clear(err);
        rc = wr_seterr(err, WEIR_ENOTFOUND, "HEAD s3://%s/%s: the bucket \"%s\" does not exist", l->bucket,
                       l->key, l->bucket);
      }
      wr_s3_response_clear(&rb);
      *out = false;
    } else if (r.status < 300) {
      *out = true;
    } else {
      wr_s3_config c;
      if (wr_s3_config_get(&c, err) == WEIR_OK) {
        rc = wr_s3_status_error(&a, &r, &c, err);
        wr_s3_config_clear(&c);
      }
    }
  }
  wr_s3_response_clear(&r);
  return rc;
}

int wr_storage_write(const char *loc, const void *data, size_t len, bool exclusive, weir_error *err) {
  wr_location l;
  int rc = parse(loc, &l, err);
  if (rc) return rc;
  if (l.kind == WR_LOCATION_LOCAL) {
    rc = wr_fs_write_atomic(l.path, data, len, exclusive, err);
    wr_location_clear(&l);
    return rc;
  }
  /* Same failpoint as a local durable write: crash tests stop S3 writes there too. */
  int injected = WEIR_FAILPOINT_ERRNO("fs.write");
  if (injected) {
    rc = wr_seterr(err, WEIR_EIO, "PUT %s: %s", loc, strerror(injected));
    wr_location_clear(&l);
    return rc;
  }
  bool conditional = exclusive && !atomic_load(&conditional_put_ignored);
  if (exclusive && !conditional) {
    /* The server ignores If-None-Match (lake.json): check first (storage.h says why that is enough). */
    bool there = false;
    rc = s3_exists(&l, &there, err);
    if (rc == WEIR_OK && there)
      rc = wr_seterr(err, WEIR_EEXISTS, "PUT %s: the object already exists", loc);
  }
  if (rc == WEIR_OK) {
    wr_s3_request_args a = {"PUT", "PUT", l.bucket, l.key, NULL, data, len, conditional, false};
    wr_s3_response r;
    rc = wr_s3_request(&a, &r, err);
    wr_s3_response_clear(&r);
  }
  wr_location_clear(&l);
  return rc;
}

int wr_storage_exists(const char *loc, bool *out, weir_error *err) {
  *out = false;
  wr_location l;
  int rc = parse(loc, &l, err);
  if (rc) return rc;
  if (l.kind == WR_LOCATION_LOCAL) *out = wr_fs_exists(l.path);
  else rc = s3_exists(&l, out, err);
  wr_location_clear(&l);
  return rc;
}

int wr_storage_delete(const char *loc, weir_error *err) {
  wr_location l;
  int rc = parse(loc, &l, err);
  if (rc) return rc;
  if (l.kind == WR_LOCATION_LOCAL) {
    if (unlink(l.path) != 0 && errno != ENOENT)
      rc = wr_seterr(err, WEIR_EIO, "cannot delete %s: %s", l.path, strerror(errno));
  } else {
    /* S3 answers 204 for a missing key too. */
    wr_s3_request_args a = {"DELETE", "DELETE", l.bucket, l.key, NULL, NULL, 0, false, false};
    wr_s3_response r;
    rc = wr_s3_request(&a, &r, err);
    wr_s3_response_clear(&r);
  }
  wr_location_clear(&l);
  return rc;
}

static int cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void list_local(const char *dir, char ***v, size_t *n, size_t *cap) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char *full = wr_path_join(dir, e->d_name);
    struct stat st;
    if (lstat(full, &st) == 0 && S_ISDIR(st.st_mode)) {
      list_local(full, v, n, cap);
      free(full);
      continue;
    }
    if (*n == *cap) {
      *cap = *cap ? 2 * *cap : 16;
      *v = wr_realloc(*v, *cap * sizeof **v);
    }
    (*v)[(*n)++] = full;
  }
  closedir(d);
}

int wr_storage_list(const char *prefix, char ***out, size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  wr_location l;
  int rc = parse(prefix, &l, err);
  if (rc) return rc;
  if (l.kind == WR_LOCATION_LOCAL) {
    size_t cap = 0;
    list_local(l.path, out, n, &cap);
  } else {
    char *p = *l.key ? wr_location_join(l.key, "") : wr_strdup("");
    rc = wr_s3_list(l.bucket, p, out, n, err);
    free(p);
  }
  if (rc == WEIR_OK && *n > 1) qsort(*out, *n, sizeof **out, cmp_str);
  wr_location_clear(&l);
  return rc;
}

void wr_storage_list_free(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

static int cmp_obj(const void *a, const void *b) {
  return strcmp(((const wr_storage_object *)a)->location, ((const wr_storage_object *)b)->location);
}

static void list_local_objects(const char *dir, wr_storage_object **v, size_t *n, size_t *cap) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char *full = wr_path_join(dir, e->d_name);
    struct stat st;
    if (lstat(full, &st) != 0) { /* gone meanwhile */
      free(full);
      continue;
    }
    if (S_ISDIR(st.st_mode)) {
      list_local_objects(full, v, n, cap);
      free(full);
      continue;
    }
    if (*n == *cap) {
      *cap = *cap ? 2 * *cap : 16;
      *v = wr_realloc(*v, *cap * sizeof **v);
    }
    (*v)[*n].location = full;
    (*v)[*n].size = (int64_t)st.st_size;
    (*v)[*n].mtime_us = (int64_t)st.st_mtim.tv_sec * 1000000 + st.st_mtim.tv_nsec / 1000;
    (*n)++;
  }
  closedir(d);
}

int wr_storage_list_objects(const char *prefix, wr_storage_object **out, size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  wr_location l;
  int rc = parse(prefix, &l, err);
  if (rc) return rc;
  if (l.kind == WR_LOCATION_LOCAL) {
    size_t cap = 0;
    list_local_objects(l.path, out, n, &cap);
  } else {
    char *p = *l.key ? wr_location_join(l.key, "") : wr_strdup("");
    wr_s3_object *objs = NULL;
    size_t count = 0;
    rc = wr_s3_list_objects(l.bucket, p, &objs, &count, err);
    free(p);
    if (rc == WEIR_OK) {
      /* Same layout: wr_s3_object and wr_storage_object hold the same three fields. */
      *out = wr_calloc(count ? count : 1, sizeof **out);
      for (size_t i = 0; i < count; i++)
        (*out)[i] = (wr_storage_object){objs[i].location, objs[i].size, objs[i].mtime_us};
      *n = count;
      free(objs);
    }
  }
  if (rc == WEIR_OK && *n > 1) qsort(*out, *n, sizeof **out, cmp_obj);
  wr_location_clear(&l);
  return rc;
}

void wr_storage_objects_free(wr_storage_object *v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i].location);
  free(v);
}

int wr_storage_mkdirs(const char *loc, weir_error *err) {
  if (wr_location_is_remote(loc)) return WEIR_OK;
  return wr_fs_mkdirs(loc, err);
}

int wr_storage_probe_conditional_put(const char *prefix, bool *honoured, weir_error *err) {
  *honoured = true;
  char u[WEIR_UUID_STR_LEN + 1];
  wr_uuid4(u);
  char *name = wr_asprintf(".weir-probe-%s", u);
  char *loc = wr_location_join(prefix, name);
  free(name);
  static const char body[] = "weir checks whether this server honours If-None-Match: *\n";
  wr_location l;
  int rc = parse(loc, &l, err);
  if (rc == WEIR_OK) {
    wr_s3_request_args a = {"PUT", "PUT", l.bucket, l.key, NULL, body, sizeof body - 1, true, false};
    wr_s3_response r;
    rc = wr_s3_request(&a, &r, err);
    wr_s3_response_clear(&r);
    if (rc == WEIR_OK) {
      a.raw_status = true;
      rc = wr_s3_request(&a, &r, err);
      if (rc == WEIR_OK) {
        if (r.status == 412) *honoured = true;
        else if (r.status < 300) *honoured = false;
        else {
          wr_s3_config c;
          if (wr_s3_config_get(&c, err) == WEIR_OK) {
            rc = wr_s3_status_error(&a, &r, &c, err);
            wr_s3_config_clear(&c);
          }
        }
      }
      wr_s3_response_clear(&r);
      weir_error ignore = {0};
      wr_storage_delete(loc, &ignore);
      weir_error_clear(&ignore);
    }
  }
  wr_location_clear(&l);
  free(loc);
  return rc;
}

static void sql_str(wr_buf *b, const char *s) {
  wr_buf_putc(b, '\'');
  for (; *s; s++) {
    if (*s == '\'') wr_buf_putc(b, '\'');
    wr_buf_putc(b, *s);
  }
  wr_buf_putc(b, '\'');
}

int wr_storage_duckdb_secret_sql(const char *prefix, char **out, weir_error *err) {
  *out = NULL;
  wr_s3_config c;
  int rc = wr_s3_config_get(&c, err);
  if (rc) return rc;
  if (!c.access_key) {
    rc = wr_seterr(err, WEIR_EIO, "%s: no S3 credentials: %s", prefix, c.credentials_source);
    wr_s3_config_clear(&c);
    return rc;
  }
  wr_buf b = WEIR_BUF_INIT;
  wr_buf_puts(&b, "CREATE OR REPLACE SECRET weir_warehouse (TYPE s3, KEY_ID ");
  sql_str(&b, c.access_key);
  wr_buf_puts(&b, ", SECRET ");
  sql_str(&b, c.secret_key);
  if (c.session_token) {
    wr_buf_puts(&b, ", SESSION_TOKEN ");
    sql_str(&b, c.session_token);
  }
  wr_buf_puts(&b, ", REGION ");
  sql_str(&b, c.region);
  if (c.endpoint) {
    /* DuckDB takes host[:port] and the scheme as USE_SSL; custom endpoints are path-style. */
    const char *host = c.endpoint;
    bool ssl = true;
    if (strncmp(host, "http://", 7) == 0) host += 7, ssl = false;
    else if (strncmp(host, "https://", 8) == 0) host += 8;
    wr_buf_puts(&b, ", ENDPOINT ");
    sql_str(&b, host);
    wr_buf_printf(&b, ", URL_STYLE 'path', USE_SSL %s", ssl ? "true" : "false");
  }
  wr_buf_puts(&b, ", SCOPE ");
  sql_str(&b, prefix);
  wr_buf_puts(&b, ")");
  *out = wr_buf_detach(&b);
  wr_s3_config_clear(&c);
  return WEIR_OK;
}

int wr_storage_s3_settings_get(wr_storage_s3_settings *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  wr_s3_config c;
  int rc = wr_s3_config_get(&c, err);
  if (rc) return rc;
  /* Ownership moves field by field; what is left is freed with the copy. */
  out->endpoint = c.endpoint, c.endpoint = NULL;
  out->region = c.region, c.region = NULL;
  out->access_key = c.access_key, c.access_key = NULL;
  out->secret_key = c.secret_key, c.secret_key = NULL;
  out->session_token = c.session_token, c.session_token = NULL;
  wr_s3_config_clear(&c);
  return WEIR_OK;
}

void wr_storage_s3_settings_clear(wr_storage_s3_settings *s) {
  if (!s) return;
  free(s->endpoint);
  free(s->region);
  free(s->access_key);
  free(s->secret_key);
  free(s->session_token);
  memset(s, 0, sizeof *s);
}
