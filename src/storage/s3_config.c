/*
 * s3_config.c -- resolving the S3 endpoint, region and credentials from the usual AWS
 * variables and profile files (the order is in s3_internal.h). Only what S3 requests
 * need is read; nothing resolved here is ever written anywhere.
 */
#include "storage/s3_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/fs.h"

void wr_s3_config_clear(wr_s3_config *c) {
  if (!c) return;
  free(c->access_key);
  free(c->secret_key);
  free(c->session_token);
  free(c->region);
  free(c->endpoint);
  free(c->credentials_source);
  memset(c, 0, sizeof *c);
}

static const char *env(const char *name) {
  const char *v = getenv(name);
  return v && *v ? v : NULL;
}

static char *trim(char *s) {
  while (*s == ' ' || *s == '\t') s++;
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r' || s[n - 1] == '\n')) s[--n] = 0;
  return s;
}

/* The value of `key` in section `section` of an INI-style AWS file; NULL when the file,
 * section or key is missing. Caller frees. */
static char *ini_get(const char *path, const char *section, const char *key) {
  char *text = NULL;
  weir_error e = {0};
  if (!path || wr_fs_read(path, &text, NULL, &e) != WEIR_OK) {
    weir_error_clear(&e);
    return NULL;
  }
  char *found = NULL;
  bool in = false;
  char *save = NULL;
  for (char *line = strtok_r(text, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save)) {
    char *l = trim(line);
    if (*l == '#' || *l == ';' || !*l) continue;
    if (*l == '[') {
      char *end = strchr(l, ']');
      if (end) *end = 0;
      in = strcmp(trim(l + 1), section) == 0;
      continue;
    }
    if (!in) continue;
    char *eq = strchr(l, '=');
    if (!eq) continue;
    *eq = 0;
    if (strcmp(trim(l), key) == 0) {
      char *v = trim(eq + 1);
      if (*v) found = wr_strdup(v);
    }
  }
  free(text);
  return found;
}

static char *home_file(const char *var, const char *rel) {
  const char *p = env(var);
  if (p) return wr_strdup(p);
  const char *home = env("HOME");
  return home ? wr_asprintf("%s/%s", home, rel) : NULL;
}

int wr_s3_config_resolve(wr_s3_config *out, weir_error *err) {
  (void)err;
  memset(out, 0, sizeof *out);
  const char *profile = env("AWS_PROFILE");
  if (!profile) profile = "default";
  char *cred_file = home_file("AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
  char *conf_file = home_file("AWS_CONFIG_FILE", ".aws/config");
  /* The config file names sections "profile NAME", except the default one. */
  char *conf_section = strcmp(profile, "default") == 0 ? wr_strdup("default") : wr_asprintf("profile %s", profile);

  if (env("AWS_ACCESS_KEY_ID") && env("AWS_SECRET_ACCESS_KEY")) {
    out->access_key = wr_strdup(env("AWS_ACCESS_KEY_ID"));
    out->secret_key = wr_strdup(env("AWS_SECRET_ACCESS_KEY"));
    if (env("AWS_SESSION_TOKEN")) out->session_token = wr_strdup(env("AWS_SESSION_TOKEN"));
    out->credentials_source = wr_strdup("the AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY variables");
  } else {
    const char *files[2] = {cred_file, conf_file};
    const char *sections[2] = {profile, conf_section};
    for (int i = 0; i < 2 && !out->access_key; i++) {
      char *k = ini_get(files[i], sections[i], "aws_access_key_id");
      char *s = ini_get(files[i], sections[i], "aws_secret_access_key");
      if (k && s) {
        out->access_key = k;
        out->secret_key = s;
        out->session_token = ini_get(files[i], sections[i], "aws_session_token");
        out->credentials_source = wr_asprintf("profile %s in %s", profile, files[i]);
      } else {
        free(k);
        free(s);
      }
    }
    if (!out->access_key)
      out->credentials_source =
          wr_asprintf("none found (looked at AWS_ACCESS_KEY_ID/AWS_SECRET_ACCESS_KEY, then profile %s in %s and %s)",
                      profile, cred_file ? cred_file : "~/.aws/credentials", conf_file ? conf_file : "~/.aws/config");
  }

  const char *region = env("AWS_REGION");
  if (!region) region = env("AWS_DEFAULT_REGION");
  if (region) out->region = wr_strdup(region);
  else out->region = ini_get(conf_file, conf_section, "region");
  if (!out->region) out->region = wr_strdup("us-east-1");

  const char *ep = env("AWS_ENDPOINT_URL_S3");
  if (!ep) ep = env("AWS_ENDPOINT_URL");
  char *ep_file = ep ? NULL : ini_get(conf_file, conf_section, "endpoint_url");
  if (ep || ep_file) {
    const char *e = ep ? ep : ep_file;
    size_t n = strlen(e);
    while (n > 0 && e[n - 1] == '/') n--;
    out->endpoint = wr_strndup(e, n);
  }
  free(ep_file);
  free(cred_file);
  free(conf_file);
  free(conf_section);
  return WEIR_OK;
}
