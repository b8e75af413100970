/*
 * library.c -- the library itself: its version and its allocator.
 */
#include <stdlib.h>

#include "api/api.h"

const char *weir_version(void) { return WEIR_VERSION_STRING; }

void weir_free(void *ptr) { free(ptr); }
