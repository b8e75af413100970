/*
 * location.c -- parsing, joining and converting warehouse locations (see location.h for
 * the rules and why file URIs are written unencoded).
 */
#include "storage/location.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/buf.h"
#include "util/fs.h"

void wr_location_clear(wr_location *l) {
  if (!l) return;
  free(l->path);
  free(l->bucket);
  free(l->key);
  memset(l, 0, sizeof *l);
}

static int hexval(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* RFC 3986 percent-decoding of a file URI's path; NULL on a malformed escape or %00. */
static char *percent_decode(const char *s) {
  wr_buf b = WEIR_BUF_INIT;
  for (const char *p = s; *p; p++) {
    if (*p != '%') {
      wr_buf_putc(&b, *p);
      continue;
    }
    int hi = hexval(p[1]), lo = hi >= 0 ? hexval(p[2]) : -1;
    if (hi < 0 || lo < 0 || (hi == 0 && lo == 0)) {
      wr_buf_free(&b);
      return NULL;
    }
    wr_buf_putc(&b, (char)(hi * 16 + lo));
    p += 2;
  }
  return wr_buf_detach(&b);
}

/* S3's bucket naming rules: 3-63 characters of a-z 0-9 . -, starting and ending with a
 * letter or digit. */
static bool bucket_ok(const char *b, size_t n) {
  if (n < 3 || n > 63) return false;
  for (size_t i = 0; i < n; i++) {
    char c = b[i];
    bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
    if (!alnum && c != '.' && c != '-') return false;
    if ((i == 0 || i == n - 1) && !alnum) return false;
  }
  return true;
}

static const char *s3_rest(const char *text) {
  if (strncmp(text, "s3://", 5) == 0) return text + 5;
  if (strncmp(text, "s3a://", 6) == 0 || strncmp(text, "s3n://", 6) == 0) return text + 6;
  return NULL;
}

int wr_location_parse(const char *text, wr_location *out, weir_error *err) {
  memset(out, 0, sizeof *out);
  if (!text || !*text) return wr_seterr(err, WEIR_EINVALIDARG, "the location is empty");
  const char *rest = s3_rest(text);
  if (rest) {
    size_t bn = strcspn(rest, "/");
    if (!bucket_ok(rest, bn))
      return wr_seterr(err, WEIR_EINVALIDARG,
                       "%s: \"%.*s\" is not a valid S3 bucket name (3 to 63 characters of a-z, 0-9, "
                       "'.' and '-', starting and ending with a letter or digit)",
                       text, (int)bn, rest);
    out->kind = WR_LOCATION_S3;
    out->bucket = wr_strndup(rest, bn);
    const char *key = rest + bn;
    while (*key == '/') key++;
    out->key = wr_strdup(key);
    return WEIR_OK;
  }
  if (text[0] == '/') {
    out->kind = WR_LOCATION_LOCAL;
    out->path = wr_strdup(text);
    return WEIR_OK;
  }
  if (strncmp(text, "file:", 5) == 0) {
    const char *p = text + 5;
    if (strncmp(p, "//", 2) == 0) {
      /* file://HOST/path: only the local host (empty or "localhost") is this machine. */
      const char *host = p + 2;
      size_t hn = strcspn(host, "/");
      if (hn > 0 && !(hn == 9 && strncmp(host, "localhost", 9) == 0))
        return wr_seterr(err, WEIR_EINVALIDARG, "%s: a file URI naming another host (%.*s) is not a local file",
                         text, (int)hn, host);
      p = host + hn;
    }
    if (*p != '/') return wr_seterr(err, WEIR_EINVALIDARG, "%s: a file URI needs an absolute path", text);
    char *path = percent_decode(p);
    if (!path) return wr_seterr(err, WEIR_EINVALIDARG, "%s: malformed percent escape in a file URI", text);
    out->kind = WR_LOCATION_LOCAL;
    out->path = path;
    return WEIR_OK;
  }
  const char *colon = strstr(text, "://");
  if (colon)
    return wr_seterr(err, WEIR_EINVALIDARG,
                     "%s: weir reads and writes file:// and s3:// locations, not %.*s://", text,
                     (int)(colon - text), text);
  return wr_seterr(err, WEIR_EINVALIDARG, "%s: not an absolute path or a URI", text);
}

bool wr_location_is_remote(const char *loc) { return loc && s3_rest(loc) != NULL; }

char *wr_location_from_uri(const char *uri) {
  wr_location l;
  weir_error e = {0};
  if (wr_location_parse(uri, &l, &e) != WEIR_OK) {
    weir_error_clear(&e);
    return wr_strdup(uri);
  }
  char *r = l.kind == WR_LOCATION_S3 ? wr_asprintf("s3://%s/%s", l.bucket, l.key) : wr_strdup(l.path);
  wr_location_clear(&l);
  return r;
}

char *wr_location_to_uri(const char *loc) {
  if (loc[0] == '/') return wr_asprintf("file://%s", loc);
  return wr_strdup(loc);
}

char *wr_location_join(const char *base, const char *name) {
  size_t n = strlen(base);
  while (n > 0 && base[n - 1] == '/') n--;
  while (*name == '/') name++;
  return wr_asprintf("%.*s/%s", (int)n, base, name);
}

char *wr_location_dirname(const char *loc) {
  const char *rest = s3_rest(loc);
  if (!rest) return wr_path_dirname(loc);
  const char *slash = strrchr(rest, '/');
  if (!slash) return wr_strdup(loc);
  return wr_strndup(loc, (size_t)(slash - loc));
}

int wr_location_check_safe(const char *loc, const char *what, weir_error *err) {
  for (size_t i = 0; loc[i]; i++) {
    unsigned char c = (unsigned char)loc[i];
    if (c == '?' || c == '#' || c == '%' || c < 0x20 || c == 0x7f) {
      char shown[8];
      if (c < 0x20 || c == 0x7f) snprintf(shown, sizeof shown, "0x%02x", c);
      else snprintf(shown, sizeof shown, "'%c'", c);
      return wr_seterr(err, WEIR_EINVALIDARG,
                       "%s \"%s\" contains %s (character %zu): Iceberg readers parse locations as "
                       "URIs, so they would not find the files ('?', '#', '%%' and control "
                       "characters are refused; spaces and other characters are fine)",
                       what, loc, shown, i + 1);
    }
  }
  return WEIR_OK;
}
