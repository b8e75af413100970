/*
 * proc.c -- process identities (see proc.h). Linux: /proc/sys/kernel/random/boot_id and
 * field 22 (starttime) of /proc/<pid>/stat.
 */
#include "util/proc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util/error.h"

static bool read_line(const char *path, char *out, size_t size) {
  FILE *f = fopen(path, "r");
  if (!f) return false;
  bool ok = fgets(out, (int)size, f) != NULL;
  fclose(f);
  if (ok) out[strcspn(out, "\n")] = 0;
  return ok && out[0];
}

/* Field 22 of /proc/<pid>/stat; the command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last ')'. */
static bool start_time(long pid, unsigned long long *out) {
  char path[64], buf[1024];
  snprintf(path, sizeof path, "/proc/%ld/stat", pid);
  FILE *f = fopen(path, "r");
  if (!f) return false;
  size_t n = fread(buf, 1, sizeof buf - 1, f);
  fclose(f);
  buf[n] = 0;
  char *p = strrchr(buf, ')');
  if (!p) return false;
  p++;
  /* After ')': field 3 (state) is the first; starttime is field 22, the 20th after it. */
  for (int field = 3; field < 22; field++) {
    p = strchr(p + 1, ' ');
    if (!p) return false;
  }
  return sscanf(p, " %llu", out) == 1;
}

char *wr_process_identity(void) {
  char host[256] = "", boot[64];
  if (gethostname(host, sizeof host - 1) != 0 || strchr(host, '|')) return NULL;
  if (!read_line("/proc/sys/kernel/random/boot_id", boot, sizeof boot)) return NULL;
  unsigned long long st;
  long pid = (long)getpid();
  if (!start_time(pid, &st)) return NULL;
  return wr_asprintf("%s|%s|%ld|%llu", host, boot, pid, st);
}

bool wr_process_gone(const char *identity) {
  if (!identity) return false;
  char host[256], boot[64];
  long pid;
  unsigned long long st;
  if (sscanf(identity, "%255[^|]|%63[^|]|%ld|%llu", host, boot, &pid, &st) != 4) return false;
  char here[256] = "", boot_now[64];
  if (gethostname(here, sizeof here - 1) != 0 || strcmp(here, host) != 0) return false;
  if (!read_line("/proc/sys/kernel/random/boot_id", boot_now, sizeof boot_now)) return false;
  if (strcmp(boot, boot_now) != 0) return true; /* rebooted since */
  unsigned long long now;
  if (!start_time(pid, &now)) return true;      /* no such process */
  return now != st;                             /* the pid was reused */
}
