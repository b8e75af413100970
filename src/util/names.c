/*
 * names.c -- name rules (see names.h for why they are checked first).
 */
#include "util/names.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ident_start(char c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_';
}
static int is_ident_char(char c) { return is_ident_start(c) || (c >= '0' && c <= '9'); }

static const char *describe_char(char c, char *buf, size_t n) {
  if ((unsigned char)c < 0x20 || (unsigned char)c >= 0x7f) snprintf(buf, n, "byte 0x%02x", (unsigned char)c);
  else if (c == ' ') snprintf(buf, n, "a space");
  else snprintf(buf, n, "'%c'", c);
  return buf;
}

/* Why `s` is not an identifier, or NULL if it is one. Writes into buf. */
static const char *ident_problem(const char *s, char *buf, size_t size) {
  size_t n = strlen(s);
  char cb[32];
  if (n == 0) return "it is empty";
  if (n > WEIR_NAME_MAX) {
    snprintf(buf, size, "it is longer than %d bytes", WEIR_NAME_MAX);
    return buf;
  }
  if (!is_ident_start(s[0])) {
    snprintf(buf, size, "it starts with %s", describe_char(s[0], cb, sizeof cb));
    return buf;
  }
  for (size_t i = 1; i < n; i++)
    if (!is_ident_char(s[i])) {
      snprintf(buf, size, "it contains %s", describe_char(s[i], cb, sizeof cb));
      return buf;
    }
  return NULL;
}

#define IDENT_RULE "names match [A-Za-z_][A-Za-z0-9_]*, at most 255 bytes"

int wr_ident_check(const char *s, const char *what, weir_error *err) {
  char buf[96];
  const char *why = ident_problem(s, buf, sizeof buf);
  if (why)
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s \"%.300s\": %s (" IDENT_RULE ")", what, s,
                       why);
  return WEIR_OK;
}

int wr_table_id_parse(const char *text, wr_table_id *out, weir_error *err) {
  if (!text) return wr_seterr(err, WEIR_EINVALIDNAME, "invalid table name: none given");
  const char *dot = strchr(text, '.');
  char buf[96];
  const char *why;
  if (!dot) {
    if ((why = ident_problem(text, buf, sizeof buf)))
      return wr_seterr(err, WEIR_EINVALIDNAME, "invalid table name \"%.300s\": %s (" IDENT_RULE ")",
                         text, why);
    snprintf(out->ns, sizeof out->ns, "%s", WEIR_DEFAULT_NAMESPACE);
    snprintf(out->name, sizeof out->name, "%s", text);
    return WEIR_OK;
  }
  if (strchr(dot + 1, '.'))
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid table name \"%.300s\": expected NAME or NAMESPACE.NAME (one dot at most)",
                       text);
  size_t nlen = (size_t)(dot - text);
  if (nlen > WEIR_NAME_MAX)
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid table name \"%.300s\": the namespace is longer than %d bytes", text,
                       WEIR_NAME_MAX);
  char ns[WEIR_NAME_MAX + 1];
  memcpy(ns, text, nlen);
  ns[nlen] = 0;
  if ((why = ident_problem(ns, buf, sizeof buf)))
    return wr_seterr(err, WEIR_EINVALIDNAME,
                       "invalid table name \"%.300s\": the namespace \"%s\": %s (" IDENT_RULE ")", text,
                       ns, why);
  if ((why = ident_problem(dot + 1, buf, sizeof buf)))
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid table name \"%.300s\": %s (" IDENT_RULE ")",
                       text, why);
  snprintf(out->ns, sizeof out->ns, "%s", ns);
  snprintf(out->name, sizeof out->name, "%s", dot + 1);
  return WEIR_OK;
}

void wr_table_id_format(const wr_table_id *id, char *out, unsigned size) {
  snprintf(out, size, "%s.%s", id->ns, id->name);
}

int wr_ref_name_check(const char *name, const char *what, weir_error *err) {
  if (!name || !*name) return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"\": it is empty", what);
  size_t n = strlen(name);
  if (n > WEIR_NAME_MAX)
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%.40s...\": longer than %d bytes",
                       what, name, WEIR_NAME_MAX);
  if (name[0] == '-')
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": it starts with '-'", what, name);
  if (strcmp(name, "@") == 0)
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"@\"", what);
  if (strstr(name, ".."))
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": it contains \"..\"", what, name);
  if (strstr(name, "@{"))
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": it contains \"@{\"", what, name);
  if (strstr(name, "//"))
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": it contains \"//\"", what, name);
  char cb[32];
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)name[i];
    if (c < 0x20 || c == 0x7f || c == ' ' || strchr("~^:?*[\\", c))
      return wr_seterr(err, WEIR_EINVALIDNAME,
                         "invalid %s name \"%s\": it contains %s (not allowed: spaces, control "
                         "characters and ~^:?*[\\)",
                         what, name, describe_char((char)c, cb, sizeof cb));
  }
  if (name[n - 1] == '/' || name[n - 1] == '.')
    return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": it ends with '%c'", what, name,
                       name[n - 1]);
  /* Per '/'-separated part: no leading '.', no ".lock" suffix, not empty. */
  const char *p = name;
  while (*p) {
    const char *end = strchr(p, '/');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (len == 0)
      return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": it has an empty part", what, name);
    if (p[0] == '.')
      return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": a part starts with '.'", what,
                         name);
    if (len >= 5 && strncmp(p + len - 5, ".lock", 5) == 0)
      return wr_seterr(err, WEIR_EINVALIDNAME, "invalid %s name \"%s\": a part ends with \".lock\"",
                         what, name);
    p += len;
    if (*p == '/') p++;
  }
  return WEIR_OK;
}

int wr_table_full_name(const char *text, char out[WR_TABLE_FULL_MAX], weir_error *err) {
  out[0] = 0;
  wr_table_id id;
  int rc = wr_table_id_parse(text, &id, err);
  if (rc == WEIR_OK) wr_table_id_format(&id, out, WR_TABLE_FULL_MAX);
  return rc;
}
