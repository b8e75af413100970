/* The PostgreSQL backend's own behaviour: locations and passwords, connection failures,
 * schemas as lakes, the writers' lock, lost connections. (Every other catalog test also
 * runs on PostgreSQL; see fixtures.h.) Runs only as catalog_test_postgres_postgresql. */
#include "catalog/catalog_internal.h"
#include "fixtures.h"

static void need_pg(void) {
  if (!fx_is_pg()) {
    fprintf(stderr, "test_postgres needs WEIR_TEST_CATALOG=postgresql (ctest runs it so)\n");
    exit(1);
  }
}

/* The base URI with its host:port replaced by 127.0.0.1:PORT. */
static char *with_port(int port) {
  const char *base = fx_pg_base();
  const char *at = strchr(base + 13, '@');
  const char *slash = strchr(at ? at : base + 13, '/');
  char user[128] = "";
  if (at) snprintf(user, sizeof user, "%.*s@", (int)(at - (base + 13)), base + 13);
  return wr_asprintf("postgresql://%s127.0.0.1:%d%s", user, port, slash ? slash : "/");
}

TEST(locations_are_stored_without_passwords) {
  need_pg();
  char *stored = NULL;
  bool pw = true;
  weir_error err = {0};
  CHECK_OK(catalog_postgres_location("postgresql://alice@db.example:5433/lakes?schema=sales", &stored, &pw, &err),
           &err);
  CHECK(!pw);
  CHECK_STR(stored, "postgresql://alice@db.example:5433/lakes?schema=sales");
  free(stored);
  CHECK_OK(catalog_postgres_location("postgresql://alice:s3cret@db.example/lakes?sslmode=require", &stored, &pw, &err),
           &err);
  CHECK(pw);
  CHECK(strstr(stored, "s3cret") == NULL);
  CHECK_STR(stored, "postgresql://alice@db.example/lakes?sslmode=require");
  free(stored);
  CHECK_OK(catalog_postgres_location("postgres://db.example/lakes?password=s3cret", &stored, &pw, &err), &err);
  CHECK(pw);
  CHECK(strstr(stored, "s3cret") == NULL);
  free(stored);
  CHECK_INT(catalog_postgres_location("postgresql://db/lakes?schema=Bad-Name", &stored, &pw, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "Bad-Name");
  CHECK_INT(catalog_postgres_location("postgresql://db/lakes?nosuchparam=1", &stored, &pw, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "not a valid PostgreSQL URI");
  weir_error_clear(&err);
}

TEST(missing_database_is_not_found_naming_server_and_database) {
  need_pg();
  const char *base = fx_pg_base();
  const char *slash = strrchr(base, '/');
  char *uri = wr_asprintf("%.*s/no_such_db", (int)(slash - base), base);
  wr_catalog *c = NULL;
  weir_error err = {0};
  CHECK_INT(catalog_open(uri, true, NULL, &c, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "no_such_db");
  CHECK_CONTAINS(err.message, "127.0.0.1");
  CHECK_CONTAINS(err.message, "createdb");
  weir_error_clear(&err);
  free(uri);
}

TEST(refused_logins_name_the_server_and_never_a_password) {
  need_pg();
  char *loc = fx_location("", "login");
  char *saved = getenv("PGPASSFILE") ? wr_strdup(getenv("PGPASSFILE")) : NULL;
  wr_catalog *c = NULL;
  weir_error err = {0};
  /* no password anywhere */
  setenv("PGPASSFILE", "/nonexistent/pgpass", 1);
  unsetenv("PGPASSWORD");
  CHECK_INT(catalog_open(loc, true, NULL, &c, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "cannot log in");
  CHECK_CONTAINS(err.message, ".pgpass");
  CHECK_CONTAINS(err.message, "127.0.0.1");
  /* a wrong one */
  setenv("PGPASSWORD", "wrong-password-xyz", 1);
  CHECK_INT(catalog_open(loc, true, NULL, &c, &err), WEIR_ECATALOG);
  CHECK_CONTAINS(err.message, "password authentication failed");
  CHECK(strstr(err.message, "wrong-password-xyz") == NULL);
  unsetenv("PGPASSWORD");
  if (saved) setenv("PGPASSFILE", saved, 1);
  free(saved);
  /* and with the pgpass file back, it works */
  CHECK_OK(catalog_open(loc, true, NULL, &c, &err), &err);
  catalog_close(c);
  weir_error_clear(&err);
  free(loc);
}

TEST(unreachable_server_is_an_io_error) {
  need_pg();
  /* A port nobody listens on: bind one, close it. */
  char *uri = with_port(1);
  wr_catalog *c = NULL;
  weir_error err = {0};
  CHECK_INT(catalog_open(uri, false, NULL, &c, &err), WEIR_EIO);
  CHECK_CONTAINS(err.message, "cannot connect");
  CHECK_CONTAINS(err.message, "127.0.0.1:1");
  weir_error_clear(&err);
  free(uri);
}

TEST(lakes_in_one_database_are_separate_schemas) {
  need_pg();
  fx a = fx_new(), b = fx_new();
  fx_set(&a, "main", "default.t", "/a/t1", NULL);
  CHECK(fx_loc(&b, "main", "default.t") == NULL);
  CHECK_STR(fx_loc(&a, "main", "default.t"), "/a/t1");
  /* a writer of one lake does not wait for the other's */
  weir_error err = {0};
  CHECK_OK(catalog_tx_begin(a.cat, true, &err), &err);
  fx_set(&b, "main", "default.u", "/b/u1", NULL);
  catalog_tx_rollback(a.cat);
  fx_free(&a);
  fx_free(&b);
}

TEST(a_held_write_lock_times_out_as_concurrent) {
  need_pg();
  fx f = fx_new();
  wr_catalog *other = NULL;
  weir_error err = {0};
  wr_catalog_settings settings = {.busy_timeout_ms = 200};
  CHECK_OK(catalog_open_with(f.path, false, "other", &settings, &other, &err), &err);
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  CHECK_INT(catalog_tx_begin(other, true, &err), WEIR_ECONCURRENT);
  CHECK_CONTAINS(err.message, "locked by another writer");
  CHECK_CONTAINS(err.message, "200 ms");
  /* readers are not blocked by the writer */
  char h[WEIR_HASH_LEN + 1];
  CHECK_OK(catalog_resolve(other, "main", h, &err), &err);
  CHECK_OK(catalog_tx_commit(f.cat, &err), &err);
  CHECK_OK(catalog_tx_begin(other, true, &err), &err);
  catalog_tx_rollback(other);
  catalog_close(other);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(lost_connections_are_reported_and_reestablished) {
  need_pg();
  fx f = fx_new();
  char *pid = NULL;
  weir_error err = {0};
  /* This handle's server process, killed from the side. */
  CHECK_OK(catalog_tx_begin(f.cat, true, &err), &err);
  /* Its last statement took the lake's lock, naming the lake's schema. */
  const char *schema = strstr(f.path, "schema=") + 7;
  char *app = wr_asprintf("SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE state = 'idle in "
                          "transaction' AND query LIKE '%%%s%%' AND pid <> pg_backend_pid()", schema);
  CHECK_INT(fx_query(f.path, app, &pid), 0);
  CHECK_STR(pid, "1");
  free(app);
  free(pid);
  char h[WEIR_HASH_LEN + 1];
  int rc = catalog_ref_get(f.cat, WEIR_REF_BRANCH, "main", h, &err);
  CHECK_INT(rc, WEIR_EIO);
  CHECK_CONTAINS(err.message, "lost the connection");
  CHECK_CONTAINS(err.message, "127.0.0.1");
  catalog_tx_rollback(f.cat);
  /* the next operation reconnects */
  fx_set(&f, "main", "default.t", "/w/t1", NULL);
  CHECK_STR(fx_loc(&f, "main", "default.t"), "/w/t1");
  weir_error_clear(&err);
  fx_free(&f);
}

TEST(text_sorts_bytewise_whatever_the_collation) {
  need_pg();
  fx f = fx_new();
  /* Upper case before lower case and '_' after both in byte order, unlike most
   * languages' collations. */
  fx_branch(&f, "b_x", "main");
  fx_branch(&f, "Bz", "main");
  fx_branch(&f, "ba", "main");
  wr_ref_rec *v = NULL;
  size_t n = 0;
  weir_error err = {0};
  CHECK_OK(catalog_ref_list(f.cat, WEIR_REF_BRANCH, &v, &n, &err), &err);
  CHECK_INT(n, 4);
  CHECK_STR(v[0].name, "Bz");
  CHECK_STR(v[1].name, "b_x");
  CHECK_STR(v[2].name, "ba");
  CHECK_STR(v[3].name, "main");
  wr_ref_recs_free(v, n);
  weir_error_clear(&err);
  fx_free(&f);
}

TEST_MAIN()
