/*
 * s3.c -- S3 requests through libcurl: URLs (path-style for custom endpoints), SigV4
 * signing by libcurl itself (CURLOPT_AWS_SIGV4), retries, and errors worded for people.
 *
 * Why each choice:
 *   - libcurl signs (no signing code here); the payload's SHA-256 is given to it in
 *     x-amz-content-sha256, which it uses as the signed payload hash.
 *   - The canonical query string of SigV4 must be sorted and encoded; libcurl 7.88 signs
 *     the query as given, so the only query weir sends (ListObjectsV2) is built here in
 *     sorted order with SigV4's encoding.
 *   - One curl share handle keeps connections and DNS across requests and threads, so a
 *     commit's handful of requests reuse one connection.
 *   - Retries: 500/502/503/504 (503 SlowDown is S3's throttle) and transport failures
 *     (timeouts, refused connections) are retried 5 times in all, with exponential
 *     backoff and jitter (100 ms doubling). 4xx answers are final: retrying a denied or
 *     missing request cannot change it.
 */
#define _GNU_SOURCE /* strptime, timegm */
#include "storage/s3.h"

#include <curl/curl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/failpoint.h"
#include "util/hash.h"
#include "util/uuid.h"

#define S3_ATTEMPTS 5

/* ---- the process-wide configuration and curl share ------------------------------------ */

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t conf_mu = PTHREAD_MUTEX_INITIALIZER;
static wr_s3_config conf;
static bool conf_ready;
static CURLSH *share;
static pthread_mutex_t share_mu[CURL_LOCK_DATA_LAST];

static void share_lock(CURL *h, curl_lock_data d, curl_lock_access a, void *u) {
  (void)h, (void)a, (void)u;
  pthread_mutex_lock(&share_mu[d]);
}
static void share_unlock(CURL *h, curl_lock_data d, void *u) {
  (void)h, (void)u;
  pthread_mutex_unlock(&share_mu[d]);
}

static void global_init(void) {
  curl_global_init(CURL_GLOBAL_DEFAULT);
  for (int i = 0; i < CURL_LOCK_DATA_LAST; i++) pthread_mutex_init(&share_mu[i], NULL);
  share = curl_share_init();
  curl_share_setopt(share, CURLSHOPT_LOCKFUNC, share_lock);
  curl_share_setopt(share, CURLSHOPT_UNLOCKFUNC, share_unlock);
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
  curl_share_setopt(share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
}

void wr_s3_reconfigure(void) {
  pthread_mutex_lock(&conf_mu);
  wr_s3_config_clear(&conf);
  conf_ready = false;
  pthread_mutex_unlock(&conf_mu);
}

static char *dup_or_null(const char *s) { return s ? wr_strdup(s) : NULL; }

int wr_s3_config_get(wr_s3_config *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&conf_mu);
  int rc = WEIR_OK;
  if (!conf_ready) {
    rc = wr_s3_config_resolve(&conf, err);
    conf_ready = rc == WEIR_OK;
  }
  if (rc == WEIR_OK) {
    out->access_key = dup_or_null(conf.access_key);
    out->secret_key = dup_or_null(conf.secret_key);
    out->session_token = dup_or_null(conf.session_token);
    out->region = dup_or_null(conf.region);
    out->endpoint = dup_or_null(conf.endpoint);
    out->credentials_source = dup_or_null(conf.credentials_source);
  }
  pthread_mutex_unlock(&conf_mu);
  return rc;
}

/* ---- URLs -------------------------------------------------------------------------- */

/* SigV4's URI encoding: unreserved characters stay, every other byte is %XX (uppercase);
 * '/' stays in paths, not in query values. */
static void uri_encode(wr_buf *b, const char *s, bool keep_slash) {
  for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
    unsigned char c = *p;
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved || (keep_slash && c == '/')) wr_buf_putc(b, (char)c);
    else wr_buf_printf(b, "%%%02X", c);
  }
}

static char *object_url(const wr_s3_config *c, const char *bucket, const char *key, const char *query) {
  wr_buf b = WEIR_BUF_INIT;
  if (c->endpoint) {
    wr_buf_printf(&b, "%s/%s/", c->endpoint, bucket);
  } else if (strchr(bucket, '.')) {
    /* A dotted bucket cannot be a virtual host under TLS (the certificate is *.s3...). */
    wr_buf_printf(&b, "https://s3.%s.amazonaws.com/%s/", c->region, bucket);
  } else {
    wr_buf_printf(&b, "https://%s.s3.%s.amazonaws.com/", bucket, c->region);
  }
  uri_encode(&b, key, true);
  if (query && *query) wr_buf_printf(&b, "?%s", query);
  return wr_buf_detach(&b);
}

/* ---- one request -------------------------------------------------------------------- */

static size_t on_body(char *data, size_t size, size_t n, void *ctx) {
  wr_buf_append((wr_buf *)ctx, data, size * n);
  return size * n;
}

typedef struct upload {
  const char *data;
  size_t len, pos;
} upload;

static size_t on_read(char *dst, size_t size, size_t n, void *ctx) {
  upload *u = ctx;
  size_t want = size * n, left = u->len - u->pos;
  if (want > left) want = left;
  memcpy(dst, u->data + u->pos, want);
  u->pos += want;
  return want;
}

/* The text of <tag>...</tag> in an S3 XML answer, entities decoded; NULL when absent. */
char *wr_s3_xml_text(const char *xml, const char *tag, const char **after) {
  char open[64], close[64];
  snprintf(open, sizeof open, "<%s>", tag);
  snprintf(close, sizeof close, "</%s>", tag);
  const char *s = xml ? strstr(xml, open) : NULL;
  if (!s) return NULL;
  s += strlen(open);
  const char *e = strstr(s, close);
  if (!e) return NULL;
  if (after) *after = e + strlen(close);
  wr_buf b = WEIR_BUF_INIT;
  for (const char *p = s; p < e; p++) {
    static const struct { const char *ent; char c; } ents[] = {
        {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    bool done = false;
    if (*p == '&')
      for (size_t i = 0; i < sizeof ents / sizeof ents[0] && !done; i++)
        if (strncmp(p, ents[i].ent, strlen(ents[i].ent)) == 0) {
          wr_buf_putc(&b, ents[i].c);
          p += strlen(ents[i].ent) - 1;
          done = true;
        }
    if (!done) wr_buf_putc(&b, *p);
  }
  return wr_buf_detach(&b);
}

static void backoff(int attempt) {
  uint32_t r;
  wr_random_bytes(&r, sizeof r);
  long ms = 100L << attempt;
  long us = ms * 1000 + (long)(r % 100000);
  struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
  nanosleep(&ts, NULL);
}

static bool retryable_status(long s) { return s == 500 || s == 502 || s == 503 || s == 504; }

static bool retryable_curl(CURLcode c) {
  return c == CURLE_OPERATION_TIMEDOUT || c == CURLE_COULDNT_CONNECT || c == CURLE_SEND_ERROR ||
         c == CURLE_RECV_ERROR || c == CURLE_GOT_NOTHING || c == CURLE_PARTIAL_FILE;
}

int wr_s3_request(const wr_s3_request_args *a, wr_s3_response *resp, weir_error *err) {
  pthread_once(&init_once, global_init);
  memset(resp, 0, sizeof *resp);
  wr_s3_config c;
  int rc = wr_s3_config_get(&c, err);
  if (rc) return rc;
  const char *where = c.endpoint ? c.endpoint : "AWS";
  if (!c.access_key) {
    rc = wr_seterr(err, WEIR_EIO, "%s s3://%s/%s: no S3 credentials: %s", a->op, a->bucket, a->key,
                   c.credentials_source);
    wr_s3_config_clear(&c);
    return rc;
  }
  char *url = object_url(&c, a->bucket, a->key, a->query);
  char *sigv4 = wr_asprintf("aws:amz:%s:s3", c.region);
  char *userpwd = wr_asprintf("%s:%s", c.access_key, c.secret_key);
  char payload_hash[WEIR_SHA256_HEX_LEN + 1];
  wr_sha256_hex(a->body ? a->body : "", a->body ? a->body_len : 0, payload_hash);

  for (int attempt = 0; attempt < S3_ATTEMPTS; attempt++) {
    wr_buf_free(&resp->body);
    resp->status = 0;
    CURL *h = curl_easy_init();
    if (!h) {
      rc = wr_seterr(err, WEIR_EIO, "%s s3://%s/%s: cannot start an HTTP request", a->op, a->bucket, a->key);
      break;
    }
    struct curl_slist *hdrs = NULL;
    char *line = wr_asprintf("x-amz-content-sha256: %s", payload_hash);
    hdrs = curl_slist_append(hdrs, line);
    free(line);
    if (c.session_token) {
      line = wr_asprintf("x-amz-security-token: %s", c.session_token);
      hdrs = curl_slist_append(hdrs, line);
      free(line);
    }
    if (a->if_none_match) hdrs = curl_slist_append(hdrs, "If-None-Match: *");
    /* No "Expect:" header override: libcurl 7.88 signs a header removed that way as if
     * it were sent empty, and the server's signature then differs. */
    upload up = {a->body, a->body_len, 0};
    curl_easy_setopt(h, CURLOPT_URL, url);
    curl_easy_setopt(h, CURLOPT_SHARE, share);
    curl_easy_setopt(h, CURLOPT_AWS_SIGV4, sigv4);
    curl_easy_setopt(h, CURLOPT_USERPWD, userpwd);
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, hdrs);
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
    /* A stalled transfer (under 1 byte/s for 30 s) is a timeout, whatever its size. */
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, 30L);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &resp->body);
    if (strcmp(a->method, "PUT") == 0) {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
      curl_easy_setopt(h, CURLOPT_READDATA, &up);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)a->body_len);
    } else if (strcmp(a->method, "HEAD") == 0) {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (strcmp(a->method, "GET") != 0) {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, a->method);
    }
    CURLcode cc = curl_easy_perform(h);
    if (cc == CURLE_OK) curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &resp->status);
    curl_easy_cleanup(h);
    curl_slist_free_all(hdrs);
    bool last = attempt + 1 == S3_ATTEMPTS;
    if (cc != CURLE_OK) {
      if (retryable_curl(cc) && !last) {
        backoff(attempt);
        continue;
      }
      rc = wr_seterr(err, WEIR_EIO, "%s s3://%s/%s at %s failed: %s%s", a->op, a->bucket, a->key, where,
                     curl_easy_strerror(cc), retryable_curl(cc) ? " (after 5 attempts)" : "");
      break;
    }
    if (retryable_status(resp->status) && !last) {
      backoff(attempt);
      continue;
    }
    rc = WEIR_OK;
    break;
  }
  free(url);
  free(sigv4);
  free(userpwd);
  if (rc == WEIR_OK && resp->status >= 300 && !a->raw_status) rc = wr_s3_status_error(a, resp, &c, err);
  wr_s3_config_clear(&c);
  return rc;
}

int wr_s3_status_error(const wr_s3_request_args *a, const wr_s3_response *resp, const wr_s3_config *c,
                       weir_error *err) {
  const char *body = wr_buf_cstr(&resp->body);
  char *code = wr_s3_xml_text(body, "Code", NULL);
  char *msg = wr_s3_xml_text(body, "Message", NULL);
  const char *where = c->endpoint ? c->endpoint : "AWS";
  long s = resp->status;
  char detail[512] = "";
  if (code || msg) snprintf(detail, sizeof detail, " (%s%s%s)", code ? code : "", code && msg ? ": " : "", msg ? msg : "");
  int rc;
  if (s == 404 && code && strcmp(code, "NoSuchBucket") == 0)
    rc = wr_seterr(err, WEIR_ENOTFOUND, "%s s3://%s/%s: the bucket \"%s\" does not exist at %s", a->op, a->bucket,
                   a->key, a->bucket, where);
  else if (s == 404)
    rc = wr_seterr(err, WEIR_ENOTFOUND, "%s s3://%s/%s: no such object", a->op, a->bucket, a->key);
  else if (s == 403)
    rc = wr_seterr(err, WEIR_EIO, "%s s3://%s/%s: access denied by %s%s; credentials from %s", a->op, a->bucket,
                   a->key, where, detail, c->credentials_source);
  else if (s == 412)
    rc = wr_seterr(err, WEIR_EEXISTS, "%s s3://%s/%s: the object already exists (conditional put refused)", a->op,
                   a->bucket, a->key);
  else if (s >= 500)
    rc = wr_seterr(err, WEIR_EIO, "%s s3://%s/%s: the server %s answered HTTP %ld%s after %d attempts", a->op,
                   a->bucket, a->key, where, s, detail, S3_ATTEMPTS);
  else
    rc = wr_seterr(err, WEIR_EIO, "%s s3://%s/%s: HTTP %ld from %s%s", a->op, a->bucket, a->key, s, where, detail);
  free(code);
  free(msg);
  return rc;
}

void wr_s3_response_clear(wr_s3_response *r) {
  wr_buf_free(&r->body);
  memset(r, 0, sizeof *r);
}

/* ---- listing ---------------------------------------------------------------------------- */

/* "2026-12-01T21:26:08.000Z" (ListObjectsV2's LastModified) as UTC microseconds;
 * INT64_MAX when it is missing or does not parse, so that the object counts as new and gc
 * keeps it (an unknown age is never old enough). */
static int64_t parse_iso_time(const char *t) {
  if (!t) return INT64_MAX;
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  int frac_digits = 0;
  long frac = 0;
  const char *p = strptime(t, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!p) return INT64_MAX;
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++)
      if (frac_digits < 6) frac = frac * 10 + (*p - '0'), frac_digits++;
  while (frac_digits < 6) frac *= 10, frac_digits++;
  return (int64_t)timegm(&tm) * 1000000 + frac;
}

int wr_s3_list_objects(const char *bucket, const char *prefix, wr_s3_object **out, size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  wr_s3_object *v = NULL;
  size_t count = 0, cap = 0;
  char *token = NULL;
  int rc = WEIR_OK;
  for (;;) {
    /* Sorted by parameter name, values encoded as SigV4 wants (see the top). */
    wr_buf q = WEIR_BUF_INIT;
    if (token) {
      wr_buf_puts(&q, "continuation-token=");
      uri_encode(&q, token, false);
      wr_buf_putc(&q, '&');
    }
    wr_buf_puts(&q, "list-type=2&prefix=");
    uri_encode(&q, prefix, false);
    wr_s3_request_args a = {"LIST", "GET", bucket, "", wr_buf_cstr(&q), NULL, 0, false, false};
    wr_s3_response resp;
    rc = wr_s3_request(&a, &resp, err);
    wr_buf_free(&q);
    if (rc) {
      /* The message names the prefix, not an empty key. */
      wr_error_prefix(err, "listing s3://%s/%s", bucket, prefix);
      break;
    }
    /* One <Contents> element per object: its Key, LastModified and Size. */
    const char *p = wr_buf_cstr(&resp.body);
    const char *after;
    char *contents;
    while ((contents = wr_s3_xml_text(p, "Contents", &after))) {
      char *key = wr_s3_xml_text(contents, "Key", NULL);
      if (key) {
        if (count == cap) {
          cap = cap ? 2 * cap : 16;
          v = wr_realloc(v, cap * sizeof *v);
        }
        char *mod = wr_s3_xml_text(contents, "LastModified", NULL);
        char *size = wr_s3_xml_text(contents, "Size", NULL);
        v[count].location = wr_asprintf("s3://%s/%s", bucket, key);
        v[count].mtime_us = parse_iso_time(mod);
        v[count].size = size ? strtoll(size, NULL, 10) : 0;
        count++;
        free(mod);
        free(size);
        free(key);
      }
      free(contents);
      p = after;
    }
    char *trunc = wr_s3_xml_text(wr_buf_cstr(&resp.body), "IsTruncated", NULL);
    free(token);
    token = trunc && strcmp(trunc, "true") == 0 ? wr_s3_xml_text(wr_buf_cstr(&resp.body), "NextContinuationToken", NULL)
                                                : NULL;
    free(trunc);
    wr_s3_response_clear(&resp);
    if (!token) break;
  }
  free(token);
  if (rc) {
    for (size_t i = 0; i < count; i++) free(v[i].location);
    free(v);
    return rc;
  }
  *out = v;
  *n = count;
  return WEIR_OK;
}

int wr_s3_list(const char *bucket, const char *prefix, char ***out, size_t *n, weir_error *err) {
  *out = NULL;
  *n = 0;
  wr_s3_object *objs = NULL;
  size_t count = 0;
  int rc = wr_s3_list_objects(bucket, prefix, &objs, &count, err);
  if (rc) return rc;
  char **v = wr_calloc(count ? count : 1, sizeof *v);
  for (size_t i = 0; i < count; i++) v[i] = objs[i].location;
  free(objs);
  *out = v;
  *n = count;
  return WEIR_OK;
}
