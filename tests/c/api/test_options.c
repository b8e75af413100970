/* Versioned options structs and weir_lake_options (include/weir.h "Conventions"): every
 * options struct is checked for its version at the boundary, and the library's behaviour
 * comes from weir_lake_options, never from environment variables. */
#include "harness.h"

#include <jansson.h>
#include <unistd.h>

static char *new_lake_path(char **dir) {
  *dir = test_tmpdir();
  char *p = malloc(strlen(*dir) + 8);
  sprintf(p, "%s/lake", *dir);
  return p;
}

TEST(options_init_sets_the_version_and_zeroes_the_rest) {
  weir_error noerr = {0}; /* the _init functions have no error argument */
  weir_merge_options m;
  memset(&m, 0xab, sizeof m);
  CHECK_OK(weir_merge_options_init(&m, WEIR_MERGE_OPTIONS_VERSION), &noerr);
  CHECK_INT(m.version, WEIR_MERGE_OPTIONS_VERSION);
  CHECK(m.message == NULL && m.no_ff == 0 && m.strategy == NULL && m.expect_head == NULL);
  weir_lake_options l;
  CHECK_OK(weir_lake_options_init(&l, WEIR_LAKE_OPTIONS_VERSION), &noerr);
  CHECK(l.catalog == NULL && l.author == NULL && l.threads == 0 && l.catalog_sync == WEIR_SYNC_DEFAULT);
  weir_revert_options r;
  CHECK_OK(weir_revert_options_init(&r, WEIR_REVERT_OPTIONS_VERSION), &noerr);
  weir_import_options i;
  CHECK_OK(weir_import_options_init(&i, WEIR_IMPORT_OPTIONS_VERSION), &noerr);
  weir_run_options ro;
  CHECK_OK(weir_run_options_init(&ro, WEIR_RUN_OPTIONS_VERSION), &noerr);
  weir_delete_options d;
  memset(&d, 0xab, sizeof d);
  CHECK_OK(weir_delete_options_init(&d, WEIR_DELETE_OPTIONS_VERSION), &noerr);
  CHECK(d.version == WEIR_DELETE_OPTIONS_VERSION && d.where == NULL && d.branch == NULL && d.expect_head == NULL &&
        d.message == NULL);
  CHECK_INT(weir_delete_options_init(&d, 2), WEIR_EINVALIDARG);
  /* An unknown version is refused and leaves the struct alone. */
  memset(&m, 0, sizeof m);
  CHECK_INT(weir_merge_options_init(&m, 99), WEIR_EINVALIDARG);
  CHECK_INT(m.version, 0);
  CHECK_INT(weir_lake_options_init(&l, 0), WEIR_EINVALIDARG);
  CHECK_INT(weir_run_options_init(NULL, WEIR_RUN_OPTIONS_VERSION), WEIR_EINVALIDARG);
  /* The macros give the same as the functions. */
  weir_merge_options by_macro = WEIR_MERGE_OPTIONS_INIT;
  weir_merge_options_init(&m, WEIR_MERGE_OPTIONS_VERSION);
  CHECK(memcmp(&by_macro, &m, sizeof m) == 0);
}

TEST(weir_error_keeps_room_to_grow_and_zero_init_works) {
  weir_error a = {0};
  weir_error b = WEIR_ERROR_INIT;
  CHECK(memcmp(&a, &b, sizeof a) == 0);
  CHECK(sizeof(weir_error) >= sizeof(int) + 2 * sizeof(char *) + 4 * sizeof(void *));
}

TEST(every_function_taking_options_checks_their_version) {
  char *dir, *path = new_lake_path(&dir);
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  char *out = NULL;

  weir_merge_options m = {0}; /* zeroed by hand, not initialised */
  CHECK_INT(weir_branch_merge(lake, "main", "main", &m, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_merge_options has version 0");
  CHECK_CONTAINS(err.message, "knows version 2"); /* WEIR_MERGE_OPTIONS_VERSION: checks were added */
  weir_error_clear(&err);
  m.version = 7;
  CHECK_INT(weir_branch_merge(lake, "main", "main", &m, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_merge_options has version 7");
  CHECK_CONTAINS(err.message, "knows version 2");
  weir_error_clear(&err);

  weir_delete_options d = {0};
  d.where = "true";
  CHECK_INT(weir_table_delete(lake, "t", &d, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_delete_options has version 0");
  weir_error_clear(&err);
  /* No predicate is refused before anything is read. */
  weir_delete_options_init(&d, WEIR_DELETE_OPTIONS_VERSION);
  CHECK_INT(weir_table_delete(lake, "t", &d, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "needs --where");
  weir_error_clear(&err);

  weir_revert_options r = {0};
  r.version = 2;
  CHECK_INT(weir_table_revert(lake, "t", "main", NULL, &r, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_revert_options has version 2");
  weir_error_clear(&err);
  CHECK_INT(weir_run_revert(lake, "r", NULL, &r, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_revert_options has version 2");
  weir_error_clear(&err);

  weir_import_options i = {0};
  i.table = "t";
  CHECK_INT(weir_table_import(lake, "/nonexistent.csv", &i, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_import_options has version 0");
  weir_error_clear(&err);

  weir_run_options ro = {0};
  ro.version = 3;
  CHECK_INT(weir_project_run(lake, dir, &ro, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_run_options has version 3");
  weir_error_clear(&err);

  /* Nothing was written by any of them. */
  CHECK_OK(weir_commit_log(lake, "main", 0, &out, &err), &err);
  json_t *log = json_loads(out, 0, NULL);
  CHECK_INT(json_array_size(json_object_get(log, "commits")), 1);
  json_decref(log);
  weir_free(out);

  /* A correct version works, and NULL means every default. */
  m.version = WEIR_MERGE_OPTIONS_VERSION;
  CHECK_OK(weir_branch_merge(lake, "main", "main", &m, &out, &err), &err);
  weir_free(out);
  CHECK_OK(weir_branch_merge(lake, "main", "main", NULL, &out, &err), &err);
  weir_free(out);
  weir_lake_free(lake);
  free(path);
  test_rmtree(dir);
  free(dir);
}

TEST(lake_options_are_validated) {
  char *dir, *path = new_lake_path(&dir);
  weir_error err = {0};
  weir_lake *lake = NULL;
  weir_lake_options o = {0};
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_lake_options has version 0");
  weir_error_clear(&err);

  weir_lake_options_init(&o, WEIR_LAKE_OPTIONS_VERSION);
  /* Catalogs and warehouses of kinds weir has no backend for are refused by name. */
  o.catalog = "mysql://localhost/weir";
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "catalog 'mysql://localhost/weir' is not supported: give a postgresql:// URI");
  weir_error_clear(&err);
  o.catalog = "postgresql://weir:secret@localhost/weir";
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "the catalog URI holds a password");
  CHECK(strstr(err.message, "secret") == NULL);
  weir_error_clear(&err);
  o.catalog = NULL;
  o.warehouse = "/somewhere/else";
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "give an object-store URI (s3://bucket/prefix)");
  weir_error_clear(&err);
  o.warehouse = NULL;
  o.threads = -2;
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "threads is -2");
  weir_error_clear(&err);
  o.threads = 0;
  o.catalog_sync = 9;
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "catalog_sync is 9");
  weir_error_clear(&err);
  o.catalog_sync = WEIR_SYNC_DEFAULT;
  o.busy_timeout_ms = -1;
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  o.busy_timeout_ms = 0;
  o.python = "";
  CHECK_INT(weir_lake_init(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "python is empty");
  weir_error_clear(&err);
  o.python = NULL;
  CHECK(lake == NULL);
  CHECK(access(path, F_OK) != 0); /* refused before anything was made */

  CHECK_OK(weir_lake_init(path, &o, &lake, &err), &err);
  weir_lake_free(lake);
  /* catalog and warehouse are for init only: a lake records its own. */
  o.catalog = "sqlite:/elsewhere.db";
  CHECK_INT(weir_lake_open(path, &o, &lake, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "for weir_lake_init only");
  weir_error_clear(&err);
  free(path);
  test_rmtree(dir);
  free(dir);
}

/* The author, threads and memory limit come from the options; $WEIR_AUTHOR, $WEIR_THREADS
 * and $WEIR_LAKE mean nothing to the library (only the CLI and the SDK read them). */
TEST(settings_come_from_options_not_the_environment) {
  char *dir, *path = new_lake_path(&dir);
  setenv("WEIR_AUTHOR", "from-the-environment", 1);
  setenv("WEIR_THREADS", "not a number", 1);
  setenv("WEIR_CATALOG_SYNC", "bogus", 1);
  weir_error err = {0};
  weir_lake *lake = NULL;
  weir_lake_options o;
  weir_lake_options_init(&o, WEIR_LAKE_OPTIONS_VERSION);
  o.author = "from-the-options";
  o.threads = 1;
  o.memory_limit = "256MB";
  o.catalog_sync = WEIR_SYNC_FULL;
  o.busy_timeout_ms = 1000;
  CHECK_OK(weir_lake_init(path, &o, &lake, &err), &err);
  char *out = NULL;
  CHECK_OK(weir_commit_log(lake, "main", 1, &out, &err), &err);
  CHECK_CONTAINS(out, "\"author\": \"from-the-options\"");
  weir_free(out);
  struct ArrowArrayStream s;
  CHECK_OK(weir_query_run_text(lake, "SELECT current_setting('threads') AS t", NULL, &s, &err), &err);
  struct ArrowSchema schema;
  CHECK(s.get_schema(&s, &schema) == 0);
  schema.release(&schema);
  struct ArrowArray a;
  CHECK(s.get_next(&s, &a) == 0 && a.length == 1);
  const int64_t *offs = a.children[0]->buffers[1];
  const char *chars = a.children[0]->buffers[2];
  CHECK_INT((int)(offs[1] - offs[0]), 1);
  CHECK(chars[offs[0]] == '1');
  a.release(&a);
  s.release(&s);
  weir_lake_free(lake);

  /* Without an author option: the account's name from its passwd entry, not $USER. */
  setenv("USER", "not-the-user", 1);
  CHECK_OK(weir_lake_open(path, NULL, &lake, &err), &err);
  CHECK_OK(weir_branch_create(lake, "dev", NULL, NULL, &err), &err);
  weir_lake_free(lake);

  /* $WEIR_LAKE is not read: with no path and no .weir up from here, no lake is found. */
  setenv("WEIR_LAKE", path, 1);
  char cwd[4096];
  CHECK(getcwd(cwd, sizeof cwd) != NULL);
  CHECK(chdir(dir) == 0);
  CHECK_INT(weir_lake_open(NULL, NULL, &lake, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "no lake found");
  weir_error_clear(&err);
  CHECK(chdir(cwd) == 0);
  unsetenv("WEIR_LAKE");
  unsetenv("WEIR_AUTHOR");
  unsetenv("WEIR_THREADS");
  unsetenv("WEIR_CATALOG_SYNC");
  free(path);
  test_rmtree(dir);
  free(dir);
}

TEST(null_handles_are_refused_not_dereferenced) {
  weir_error err = {0};
  char *out = NULL;
  CHECK_INT(weir_branch_list(NULL, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "weir_branch_list: the lake handle is NULL");
  weir_error_clear(&err);
  weir_lake_interrupt(NULL);
  weir_lake_free(NULL);
  CHECK_INT(weir_lake_open(NULL, NULL, NULL, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
}

TEST_MAIN()
