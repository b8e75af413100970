/*
 * cmd_status.c -- weir status: every table at a ref with its last change and freshness
 * SLA (weir_lake_status); exit 3 when one is breached.
 */
#define _GNU_SOURCE /* timegm */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* "2026-12-01T09:00:00Z" (optionally with .ffffff before the Z) as microseconds since the
 * epoch; false when it is not that. */
static bool parse_utc(const char *s, int64_t *us) {
  struct tm tm = {0};
  int used = 0;
  if (sscanf(s, "%4d-%2d-%2dT%2d:%2d:%2d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
             &tm.tm_sec, &used) != 6)
    return false;
  const char *p = s + used;
  long frac = 0;
  int digits = 0;
  if (*p == '.')
    for (p++; *p >= '0' && *p <= '9'; p++)
      if (digits < 6) frac = frac * 10 + (*p - '0'), digits++;
  while (digits > 0 && digits < 6) frac *= 10, digits++;
  if (strcmp(p, "Z") != 0 && strcmp(p, "+00:00") != 0) return false;
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 || tm.tm_hour > 23 || tm.tm_min > 59 ||
      tm.tm_sec > 60)
    return false;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  time_t t = timegm(&tm);
  if (t < 0) return false;
  *us = (int64_t)t * 1000000 + frac;
  return true;
}

static void age_text(json_t *age, char *out, size_t n) {
  if (!json_is_integer(age)) {
    snprintf(out, n, "-");
    return;
  }
  long long s = (long long)json_integer_value(age);
  if (s < 120) snprintf(out, n, "%llds", s);
  else if (s < 7200) snprintf(out, n, "%lldm", s / 60);
  else if (s < 172800) snprintf(out, n, "%lldh", s / 3600);
  else snprintf(out, n, "%lldd", s / 86400);
}

int cmd_status(cli_ctx *ctx, const cli_command *cmd, cli_parsed *args) {
  weir_status_options o = WEIR_STATUS_OPTIONS_INIT;
  o.ref = cli_opt_value(cmd, args, "ref");
  const char *now = cli_opt_value(cmd, args, "now");
  if (now && !parse_utc(now, &o.now_us))
    return cli_usage_error(ctx, cmd, "--now %s: expected a UTC time such as 2026-12-01T09:00:00Z", now);
  weir_lake *lake;
  int rc = cli_lake(ctx, &lake);
  if (rc) return rc;
  weir_error err = {0};
  char *out = NULL;
  json_t *doc = NULL;
  rc = weir_lake_status(lake, &o, &out, &err);
  bool breached = false;
  if (rc == WEIR_OK && out) {
    json_t *peek = json_loads(out, 0, NULL);
    breached = json_integer_value(json_object_get(peek, "breached")) > 0;
    json_decref(peek);
  }
  if ((rc = cli_json_result(ctx, rc, &err, out, &doc)) >= 0) return rc ? rc : breached ? 3 : 0;
  const char *headers[] = {"TABLE", "LAST CHANGE", "COMMIT", "AGE", "SLA", "STATUS"};
  cli_table t;
  cli_table_init(&t, 6, headers);
  size_t i;
  json_t *row;
  json_array_foreach(json_object_get(doc, "tables"), i, row) {
    json_t *lc = json_object_get(row, "last_change"), *sla = json_object_get(row, "sla");
    char age[32], s[13];
    age_text(json_object_get(row, "age_seconds"), age, sizeof age);
    const char *commit = json_string_value(json_object_get(lc, "commit"));
    const char *status = json_string_value(json_object_get(row, "status"));
    cli_table_add(&t, json_string_value(json_object_get(row, "table")),
                  lc ? json_string_value(json_object_get(lc, "time")) : "-", commit ? cli_short(commit, s) : "-", age,
                  sla ? json_string_value(json_object_get(sla, "freshness")) : "-",
                  status && strcmp(status, "breached") == 0 ? "BREACHED" : status && strcmp(status, "no_sla") == 0 ? "no sla" : status);
  }
  if (ctx->verbosity >= 0) {
    cli_table_print(&t, stdout);
    long long nb = (long long)json_integer_value(json_object_get(doc, "breached"));
    if (nb) fprintf(stderr, "error: %lld table%s breached %s freshness SLA\n", nb, nb == 1 ? "" : "s", nb == 1 ? "its" : "their");
  }
  cli_table_free(&t);
  json_decref(doc);
  return breached ? 3 : 0;
}
