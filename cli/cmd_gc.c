/*
 * cmd_gc.c -- weir gc and weir branch prune.
 */
#define _GNU_SOURCE /* strptime, timegm */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* "90s", "30m", "1h", "7d", "2w" (or a plain number of seconds) as microseconds; -1 when
 * it is not one. */
static int64_t parse_duration(const char *s) {
  if (!s || !*s) return -1;
  char *end;
  double v = strtod(s, &end);
  if (end == s || v < 0) return -1;
  double unit = 1;
  if (*end) {
    if (end[1]) return -1;
    switch (*end) {
      case 's': unit = 1; break;
      case 'm': unit = 60; break;
      case 'h': unit = 3600; break;
      case 'd': unit = 86400; break;
      case 'w': unit = 7 * 86400; break;
      default: return -1;
    }
  }
  double us = v * unit * 1e6;
  if (us > 9.2e18) return -1;
  return (int64_t)us;
}

/* A UTC time ("2026-11-30", "2026-11-30T12:00:00", optional "Z") or a duration ago ("30d")
 * as UTC microseconds; -1 when it is neither. */
static int64_t parse_time_or_ago(const char *s) {
  struct tm tm;
  memset(&tm, 0, sizeof tm);
  const char *p = strptime(s, "%Y-%m-%d", &tm);
  if (p) {
    long frac = 0;
    if (*p == 'T' || *p == ' ') {
      p = strptime(p + 1, "%H:%M:%S", &tm);
      if (!p) return -1;
      if (*p == '.') { /* up to microseconds, as weir prints times */
        int digits = 0;
        for (p++; isdigit((unsigned char)*p); p++)
          if (digits < 6) frac = frac * 10 + (*p - '0'), digits++;
        if (!digits) return -1;
        while (digits < 6) frac *= 10, digits++;
      }
    }
    if (*p == 'Z') p++;
    if (*p) return -1;
    return (int64_t)timegm(&tm) * 1000000 + frac;
  }
  int64_t d = parse_duration(s);
  if (d < 0) return -1;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000 - d;
}

static void human_bytes(int64_t b, char *out, size_t n) {
  if (b < 1024) snprintf(out, n, "%lld B", (long long)b);
  else if (b < 1024 * 1024) snprintf(out, n, "%.1f KiB", b / 1024.0);
  else if (b < 1024LL * 1024 * 1024) snprintf(out, n, "%.1f MiB", b / (1024.0 * 1024));
  else snprintf(out, n, "%.1f GiB", b / (1024.0 * 1024 * 1024));
}

static json_int_t jint(const json_t *o, const char *a, const char *b) {
  return json_integer_value(json_object_get(b ? json_object_get(o, a) : o, b ? b : a));
}

int cmd_gc(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_gc_options o = WEIR_GC_OPTIONS_INIT;
  o.dry_run = cli_flag(cmd, args, "dry-run");
  const char *grace = cli_opt_value(cmd, args, "grace");
  if (grace) {
    int64_t g = parse_duration(grace);
    if (g < 0) return cli_usage_error(ctx, cmd, "--grace needs a duration such as 90s, 30m, 1h or 7d, not \"%s\"", grace);
    o.grace_us = g == 0 ? WEIR_GC_NO_GRACE : g;
    /* The grace period is what keeps a write on another machine safe (docs/gc.md): one
     * that takes longer than it loses the files it has not committed yet. This machine's
     * writes are waited for (the writer lock); the others' length only the caller knows,
     * so it is said every time the grace is short. */
    if (!o.dry_run && g < 10LL * 60 * 1000000 && ctx->verbosity >= 0)
      fprintf(stderr,
              "warning: --grace %s: the uncommitted files of a write in flight for longer than that on "
              "another machine (a writer sharing this lake's catalog and warehouse, an engine's data files "
              "before its commit through weir serve) are deleted; gc waits for this machine's writes "
              "(docs/gc.md)\n",
              grace);
  }
  const char *before = cli_opt_value(cmd, args, "expire-before");
  if (before) {
    int64_t t = parse_time_or_ago(before);
    if (t <= 0)
      return cli_usage_error(ctx, cmd,
                             "--expire-before needs a UTC time (2026-11-30 or 2026-11-30T12:00:00Z) or an age "
                             "such as 30d, not \"%s\"",
                             before);
    o.expire_before_us = t;
  }
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  rc = weir_lake_gc(lake, &o, &out, &err);
  json_t *doc;
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  bool dry = json_is_true(json_object_get(doc, "dry_run"));
  if (ctx->verbosity > 0 || dry) {
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(doc, "files"), i, f)
      printf("%s %s (%s)\n", dry ? "would delete" : "deleted", json_string_value(json_object_get(f, "location")),
             json_string_value(json_object_get(f, "kind")));
  }
  if (ctx->verbosity >= 0) {
    static const char *const kinds[] = {"data", "manifest", "manifest_list", "metadata", "temporary"};
    static const char *const words[] = {"data files", "manifests", "manifest lists", "metadata files",
                                        "temporary files"};
    char b[32];
    human_bytes(jint(doc, "total", "bytes"), b, sizeof b);
    printf("%s %lld files (%s)", dry ? "Would delete" : "Deleted", (long long)jint(doc, "total", "files"), b);
    const char *sep = ": ";
    for (size_t k = 0; k < 5; k++) {
      json_t *c = json_object_get(json_object_get(doc, "deleted"), kinds[k]);
      if (!jint(c, "files", NULL)) continue;
      human_bytes(jint(c, "bytes", NULL), b, sizeof b);
      printf("%s%lld %s (%s)", sep, (long long)jint(c, "files", NULL), words[k], b);
      sep = ", ";
    }
    printf("\n");
    printf("Kept %lld reachable, %lld younger than the grace period, %lld of other kinds\n",
           (long long)jint(doc, "kept", "reachable"), (long long)jint(doc, "kept", "young"),
           (long long)jint(doc, "kept", "other"));
    json_t *w = json_object_get(doc, "writers");
    if (json_is_true(json_object_get(w, "excluded")))
      printf("%s\n", json_is_true(json_object_get(w, "waited"))
                         ? "Waited for the writes in flight on this machine, then listed with writers held back"
                         : "Listed with this machine's writers held back (none was in flight)");
    long long ex = jint(doc, "commits", "expired"), un = jint(doc, "commits", "unreachable");
    if (ex || un)
      printf("%s %lld commits expired and %lld unreachable ones as collected\n", dry ? "Would mark" : "Marked", ex,
             un);
  }
  json_decref(doc);
  return 0;
}

int cmd_branch_prune(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_prune_options o = WEIR_PRUNE_OPTIONS_INIT;
  o.runs = cli_flag(cmd, args, "runs");
  if (!o.runs) return cli_usage_error(ctx, cmd, "branch prune needs --runs (run branches are the ones it prunes)");
  o.failed_only = cli_flag(cmd, args, "failed");
  o.dry_run = cli_flag(cmd, args, "dry-run");
  const char *older = cli_opt_value(cmd, args, "older-than");
  if (older) {
    int64_t d = parse_duration(older);
    if (d < 0) return cli_usage_error(ctx, cmd, "--older-than needs a duration such as 12h or 7d, not \"%s\"", older);
    o.older_than_us = d;
  }
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  rc = weir_branch_prune(lake, &o, &out, &err);
  json_t *doc;
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc;
  if (ctx->verbosity >= 0) {
    bool dry = json_is_true(json_object_get(doc, "dry_run"));
    size_t i;
    json_t *b;
    json_t *arr = json_object_get(doc, "branches");
    json_array_foreach(arr, i, b) {
      const char *st = json_string_value(json_object_get(b, "status"));
      printf("%s %s (run %s)\n", dry ? "Would delete branch" : "Deleted branch",
             json_string_value(json_object_get(b, "name")), st ? st : "without a record");
    }
    printf("%s %zu run branch%s\n", dry ? "Would prune" : "Pruned", json_array_size(arr),
           json_array_size(arr) == 1 ? "" : "es");
  }
  json_decref(doc);
  return 0;
}
