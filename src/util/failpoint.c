/*
 * failpoint.c -- the rules of $WEIR_FAILPOINTS, in failpoint builds only (failpoint.h).
 */
#include "util/failpoint.h"

#ifdef WEIR_FAILPOINTS
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FP_MAX 32

typedef enum fp_action { FP_KILL, FP_STOP, FP_ERROR, FP_EIO, FP_ENOSPC } fp_action;

typedef struct fp_rule {
  char name[64];
  fp_action action;
  long nth;   /* the hit that triggers */
  long hits;
} fp_rule;

static fp_rule rules[FP_MAX];
static int n_rules;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* Parses $WEIR_FAILPOINTS once. A malformed rule is fatal: a test that meant to inject a
 * fault must not pass because the fault silently never happened. */
static void load(void) {
  const char *spec = getenv("WEIR_FAILPOINTS");
  if (!spec || !*spec) return;
  char *copy = strdup(spec), *save = NULL;
  if (!copy) goto bad; /* test builds only: a rule that cannot be read is as fatal as a bad one */
  for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    char *a = strchr(tok, ':');
    if (!a || n_rules == FP_MAX || (size_t)(a - tok) >= sizeof rules[0].name) goto bad;
    fp_rule *r = &rules[n_rules];
    memcpy(r->name, tok, (size_t)(a - tok));
    r->name[a - tok] = 0;
    char *n = strchr(a + 1, ':');
    size_t alen = n ? (size_t)(n - a - 1) : strlen(a + 1);
    if (alen == 4 && strncmp(a + 1, "kill", 4) == 0) r->action = FP_KILL;
    else if (alen == 4 && strncmp(a + 1, "stop", 4) == 0) r->action = FP_STOP;
    else if (alen == 5 && strncmp(a + 1, "error", 5) == 0) r->action = FP_ERROR;
    else if (alen == 3 && strncmp(a + 1, "eio", 3) == 0) r->action = FP_EIO;
    else if (alen == 6 && strncmp(a + 1, "enospc", 6) == 0) r->action = FP_ENOSPC;
    else goto bad;
    r->nth = 1;
    if (n) {
      char *end;
      r->nth = strtol(n + 1, &end, 10);
      if (*end || r->nth < 1) goto bad;
    }
    n_rules++;
  }
  free(copy);
  return;
bad:
  fprintf(stderr, "weir: malformed $WEIR_FAILPOINTS rule in \"%s\" (expected NAME:kill|stop|error|eio|enospc[:N])\n",
          spec);
  abort();
}

/* The action to take at this hit of `name`, or -1. */
static int hit(const char *name) {
  pthread_once(&once, load);
  int action = -1;
  pthread_mutex_lock(&lock);
  for (int i = 0; i < n_rules; i++)
    if (strcmp(rules[i].name, name) == 0 && ++rules[i].hits == rules[i].nth) action = (int)rules[i].action;
  pthread_mutex_unlock(&lock);
  if (action == FP_KILL) raise(SIGKILL);
  if (action == FP_STOP) raise(SIGSTOP); /* until the test sends SIGCONT; then go on */
  return action;
}

int wr_failpoint(const char *name, weir_error *err) {
  switch (hit(name)) {
  case FP_ERROR: return wr_seterr(err, WEIR_EIO, "injected failure at %s", name);
  case FP_EIO: return wr_seterr(err, WEIR_EIO, "%s: %s (injected)", name, strerror(EIO));
  case FP_ENOSPC: return wr_seterr(err, WEIR_EIO, "%s: %s (injected)", name, strerror(ENOSPC));
  default: return WEIR_OK;
  }
}

int wr_failpoint_errno(const char *name) {
  switch (hit(name)) {
  case FP_ERROR:
  case FP_EIO: return EIO;
  case FP_ENOSPC: return ENOSPC;
  default: return 0;
  }
}
#else
/* Without failpoints this file compiles to nothing but this. */
typedef int wr_failpoints_disabled;
#endif
