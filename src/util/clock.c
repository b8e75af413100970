/*
 * clock.c -- time sources.
 */
#include "util/clock.h"

#include <stdio.h>
#include <time.h>

int64_t wr_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

int64_t wr_mono_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void wr_format_time_us(int64_t us, char *out, unsigned size) {
  time_t secs = (time_t)(us / 1000000);
  int frac = (int)(us % 1000000);
  if (frac < 0) {
    frac += 1000000;
    secs -= 1;
  }
  struct tm tm;
  gmtime_r(&secs, &tm);
  snprintf(out, size, "%04d-%02d-%02dT%02d:%02d:%02d.%06dZ", tm.tm_year + 1900, tm.tm_mon + 1,
           tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, frac);
}
