/*
 * duration.c -- durations as people write them in contracts and options ("1 hour",
 * "30 minutes", "2 days"): a positive whole number and a unit. One parser, so that a
 * freshness SLA refused when its contract is loaded is the same one `weir status` reads.
 */
#include "util/duration.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static const struct {
  const char *unit;
  int64_t seconds;
} UNITS[] = {
    {"s", 1},         {"sec", 1},        {"secs", 1},        {"second", 1},   {"seconds", 1},
    {"m", 60},        {"min", 60},       {"mins", 60},       {"minute", 60},  {"minutes", 60},
    {"h", 3600},      {"hr", 3600},      {"hrs", 3600},      {"hour", 3600},  {"hours", 3600},
    {"d", 86400},     {"day", 86400},    {"days", 86400},    {"w", 604800},   {"week", 604800},
    {"weeks", 604800},
};

int wr_duration_parse(const char *text, const char *what, int64_t *seconds, weir_error *err) {
  *seconds = 0;
  const char *p = text ? text : "";
  while (isspace((unsigned char)*p)) p++;
  errno = 0;
  char *end = NULL;
  long long n = isdigit((unsigned char)*p) ? strtoll(p, &end, 10) : -1;
  if (n <= 0 || errno == ERANGE) goto bad;
  p = end;
  while (isspace((unsigned char)*p)) p++;
  size_t len = strlen(p);
  while (len && isspace((unsigned char)p[len - 1])) len--;
  for (size_t i = 0; i < sizeof UNITS / sizeof UNITS[0]; i++) {
    if (strlen(UNITS[i].unit) == len && strncasecmp(p, UNITS[i].unit, len) == 0) {
      if (n > INT64_MAX / UNITS[i].seconds / 1000000) goto bad; /* seconds must fit in microseconds */
      *seconds = (int64_t)n * UNITS[i].seconds;
      return WEIR_OK;
    }
  }
bad:
  return wr_seterr(err, WEIR_EINVALIDARG,
                   "%s: \"%s\" is not a duration (a positive whole number and a unit: \"90 seconds\", \"30 "
                   "minutes\", \"1 hour\", \"2 days\", \"1 week\")",
                   what, text ? text : "");
}

