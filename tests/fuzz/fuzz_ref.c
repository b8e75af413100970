/*
 * fuzz_ref.c -- ref expressions (catalog_resolve, src/catalog/catalog.c): a branch, a tag,
 * a full commit hash or a unique prefix of one, each optionally followed by ~N steps back
 * along first parents, as `weir log REF`, `--ref` and the SDK's ref= take them.
 *
 * The catalog is a real SQLite one, made once per process in a temporary folder: branches
 * main and dev/x, tags v1 and t~ (a name the grammar cannot reach), and a chain of commits.
 * Promises checked: a success gives a full hash of a commit that exists; an error has
 * a valid UTF-8 message and one of the documented codes.
 */
#include "fuzz.h"

#include <unistd.h>

#include "catalog/catalog.h"
#include "util/fs.h"

static wr_catalog *cat;
static char tmpdir[] = "/tmp/weir-fuzz-ref-XXXXXX";

static void cleanup(void) {
  catalog_close(cat);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "fuzz_ref: could not remove %s\n", tmpdir);
}

static void must(int rc, weir_error *err, const char *what) {
  if (rc != WEIR_OK) {
    fprintf(stderr, "fuzz_ref: %s: %s\n", what, err->message ? err->message : "?");
    abort();
  }
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  weir_error err = {0};
  if (!mkdtemp(tmpdir)) abort();
  char *path = wr_path_join(tmpdir, "catalog.db");
  must(catalog_open(path, true, "fuzz", &cat, &err), &err, "catalog_open");
  free(path);
  atexit(cleanup);
  char head[WEIR_HASH_LEN + 1];
  must(catalog_resolve(cat, "main", head, &err), &err, "resolve main");
  /* Eight commits on main, each adding a table. */
  for (int i = 0; i < 8; i++) {
    char table[32], loc[64];
    snprintf(table, sizeof table, "default.t%d", i);
    snprintf(loc, sizeof loc, "/nowhere/t%d/metadata/00000.metadata.json", i);
    wr_table_change ch = {table, loc, i, i};
    wr_commit_request req = {0};
    req.branch = "main";
    req.expected_head = head;
    req.changes = &ch;
    req.n_changes = 1;
    req.message = "fuzz";
    req.time_us = 1000000 + i;
    must(catalog_commit(cat, &req, head, &err), &err, "commit");
    if (i == 3) must(catalog_ref_create(cat, WEIR_REF_TAG, "v1", head, &err), &err, "tag v1");
    if (i == 5) must(catalog_ref_create(cat, WEIR_REF_BRANCH, "dev/x", head, &err), &err, "branch dev/x");
  }
  must(catalog_ref_create(cat, WEIR_REF_TAG, "t~", head, &err), &err, "tag t~");
  return 0;
}

static bool full_hash(const char *h) {
  if (strlen(h) != WEIR_HASH_LEN) return false;
  for (const char *p = h; *p; p++)
    if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f'))) return false;
  return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *ref = fuzz_cstr(data, size);
  char out[WEIR_HASH_LEN + 1];
  memset(out, 0, sizeof out);
  weir_error err = {0};
  int rc = catalog_resolve(cat, ref, out, &err);
  if (rc == WEIR_OK) {
    if (!full_hash(out)) fuzz_fail("resolved \"%s\" to \"%s\", not a full hash", ref, out);
    wr_commit_rec c;
    if (catalog_commit_get(cat, out, &c, &err) != WEIR_OK) fuzz_fail("resolved to a missing commit %s", out);
    wr_commit_rec_clear(&c);
    if (err.message) fuzz_fail("success left an error message behind: %s", err.message);
  } else {
    fuzz_check_error(rc, &err, NULL);
    /* WEIR_EINVALIDNAME: a ref no branch or tag can ever be named (catalog.c). */
    if (rc != WEIR_EINVALIDARG && rc != WEIR_ENOTFOUND && rc != WEIR_EINVALIDNAME)
      fuzz_fail("unexpected error code %d: %s", rc, err.message);
    weir_error_clear(&err);
  }
  free(ref);
  return 0;
}
