/* weir_table_register and weir_table_register_files through the public API only: a table
 * another writer made (here: a weir table of another lake, a real Iceberg table with field
 * ids) adopted by reference, its files only read; files offered to it refused as they must
 * be; every refusal with nothing committed. Runs under the sanitizers with the rest of the C tests. */
#include "harness.h"

#include <dirent.h>
#include <jansson.h>

/* A one-column stream {id: int64} of ids first..first+n-1. */
typedef struct ids_batch {
  int64_t first, n;
  int64_t *ids;
  const void *bufs[2];
  const void *root_bufs[1];
  struct ArrowArray arr;
  struct ArrowArray *children[1];
  struct ArrowSchema s;
  struct ArrowSchema *schildren[1];
  int sent;
} ids_batch;

static void noop_array(struct ArrowArray *a) { a->release = NULL; }
static void noop_schema(struct ArrowSchema *s) { s->release = NULL; }
static void batch_release(struct ArrowArray *a) {
  ids_batch *b = a->private_data;
  free(b->ids);
  b->ids = NULL;
  a->release = NULL;
}
static int get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  ids_batch *b = st->private_data;
  b->s = (struct ArrowSchema){"l", "id", NULL, 0, 0, NULL, NULL, noop_schema, NULL};
  b->schildren[0] = &b->s;
  *out = (struct ArrowSchema){"+s", "", NULL, 0, 1, b->schildren, NULL, noop_schema, NULL};
  return 0;
}
static int get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  ids_batch *b = st->private_data;
  memset(out, 0, sizeof *out);
  if (b->sent++) return 0;
  b->ids = malloc(sizeof(int64_t) * (size_t)b->n);
  for (int64_t i = 0; i < b->n; i++) b->ids[i] = b->first + i;
  b->bufs[0] = NULL;
  b->bufs[1] = b->ids;
  b->arr = (struct ArrowArray){b->n, 0, 0, 2, 0, b->bufs, NULL, NULL, noop_array, NULL};
  b->children[0] = &b->arr;
  b->root_bufs[0] = NULL;
  *out = (struct ArrowArray){b->n, 0, 0, 1, 1, b->root_bufs, b->children, NULL, batch_release, b};
  return 0;
}
static const char *last_error(struct ArrowArrayStream *st) { return "none"; }
static void stream_release(struct ArrowArrayStream *st) { st->release = NULL; }

/* `contract`: a contract file the import stores with the table, or NULL. */
static void import_ids_with(weir_lake *lake, const char *table, weir_write_mode mode, int64_t first, int64_t n,
                            const char *contract) {
  ids_batch b;
  memset(&b, 0, sizeof b);
  b.first = first;
  b.n = n;
  struct ArrowArrayStream s = {get_schema, get_next, last_error, stream_release, &b};
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = table;
  o.mode = mode;
  o.contract_path = contract;
  weir_error err = {0};
  char *out = NULL;
  CHECK_OK(weir_table_import_arrow(lake, &s, &o, &out, &err), &err);
  weir_free(out);
}

static void import_ids(weir_lake *lake, const char *table, weir_write_mode mode, int64_t first, int64_t n) {
  import_ids_with(lake, table, mode, first, n, NULL);
}

static int64_t query_int(weir_lake *lake, const char *sql) {
  struct ArrowArrayStream out;
  weir_error err = {0};
  if (weir_query_run(lake, sql, NULL, &out, &err) != WEIR_OK) {
    TEST_FAIL_("query %s failed: %s", sql, err.message);
    weir_error_clear(&err);
    return -1;
  }
  struct ArrowSchema schema;
  out.get_schema(&out, &schema);
  int64_t v = -1;
  struct ArrowArray a;
  while (out.get_next(&out, &a) == 0 && a.release) {
    if (a.length > 0) v = ((const int64_t *)a.children[0]->buffers[1])[a.children[0]->offset];
    a.release(&a);
  }
  schema.release(&schema);
  out.release(&out);
  return v;
}

static char *metadata_of(weir_lake *lake, const char *table) {
  weir_error err = {0};
  char *out = NULL;
  CHECK_OK(weir_table_describe(lake, table, NULL, &out, &err), &err);
  json_t *d = json_loads(out, 0, NULL);
  char *m = strdup(json_string_value(json_object_get(d, "metadata_location")));
  json_decref(d);
  weir_free(out);
  return m;
}

static char *read_all(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *b = malloc((size_t)n + 1);
  size_t got = fread(b, 1, (size_t)n, f);
  b[got] = 0;
  fclose(f);
  return b;
}

static char *head_of(weir_lake *lake) {
  char h[WEIR_HASH_HEX_SIZE];
  weir_error err = {0};
  CHECK_OK(weir_ref_resolve(lake, "main", h, &err), &err);
  return strdup(h);
}

TEST(register_a_table_and_files_by_reference) {
  char *dir = test_tmpdir();
  char p1[4200], p2[4200];
  snprintf(p1, sizeof p1, "%s/writer", dir);
  snprintf(p2, sizeof p2, "%s/reader", dir);
  weir_error err = {0};
  weir_lake *w = NULL, *r = NULL;
  CHECK_OK(weir_lake_init(p1, NULL, &w, &err), &err);
  CHECK_OK(weir_lake_init(p2, NULL, &r, &err), &err);
  /* id is required (without a contract an import makes optional columns, as every
   * Iceberg writer does): the refusal of an optional Parquet field below needs it. */
  char contract[4300];
  snprintf(contract, sizeof contract, "%s/events.yml", dir);
  FILE *cf = fopen(contract, "w");
  CHECK(cf != NULL);
  if (cf) {
    fputs("contract:\n  name: events\n  columns:\n    - name: id\n      type: Int64\n      nullable: false\n", cf);
    fclose(cf);
  }
  import_ids_with(w, "events", WEIR_MODE_CREATE, 1, 100, contract);
  char *meta = metadata_of(w, "events");
  char *before = read_all(meta);

  /* Adopted whole: the same rows, read from the writer's files. */
  weir_register_options o = WEIR_REGISTER_OPTIONS_INIT;
  char *out = NULL;
  CHECK_INT(query_int(r, "SELECT 1::BIGINT"), 1); /* a warehouse engine opened before the grant */
  CHECK_OK(weir_table_register(r, "adopted", meta, &o, &out, &err), &err);
  CHECK_CONTAINS(out, "\"mode\": \"create\"");
  CHECK_CONTAINS(out, "\"rows\": 100");
  weir_free(out);
  CHECK_INT(query_int(r, "SELECT count(*) FROM adopted"), 100);
  CHECK_INT(query_int(r, "SELECT sum(id) FROM adopted"), 5050);
  char *mine = metadata_of(r, "adopted");
  CHECK(strncmp(mine, p2, strlen(p2)) == 0); /* weir's own metadata, in its own lake */
  free(mine);

  /* Files added by reference: the writer's next data file. */
  import_ids(w, "events", WEIR_MODE_APPEND, 101, 10);
  char data_dir[4300];
  snprintf(data_dir, sizeof data_dir, "%s/warehouse/default/events/data", p1);
  DIR *d = opendir(data_dir);
  CHECK(d != NULL);
  char *paths[8];
  size_t n_paths = 0;
  struct dirent *e;
  while (d && (e = readdir(d)) && n_paths < 8)
    if (strstr(e->d_name, ".parquet")) {
      char *p = malloc(strlen(data_dir) + strlen(e->d_name) + 2);
      sprintf(p, "%s/%s", data_dir, e->d_name);
      paths[n_paths++] = p;
    }
  if (d) closedir(d);
  CHECK_INT((int64_t)n_paths, 2);
  /* Each file alone: the one the adopted table has is refused as such; the new one
   * because weir writes every column as an optional Parquet field, which a required
   * column refuses (a reader could find nulls there). Nothing is committed. */
  char *h = head_of(r);
  int exists = 0, optional = 0;
  for (size_t i = 0; i < n_paths; i++) {
    const char *one[1] = {paths[i]};
    CHECK(weir_table_register_files(r, "adopted", one, 1, NULL, &out, &err) != WEIR_OK);
    if (err.code == WEIR_EEXISTS && strstr(err.message, "already a data file of default.adopted")) exists++;
    if (err.code == WEIR_EINPUT && strstr(err.message, "column \"id\" is required, but its Parquet field is optional") &&
        strstr(err.message, paths[i]))
      optional++;
    weir_error_clear(&err);
  }
  CHECK_INT(exists, 1);
  CHECK_INT(optional, 1);
  char *h2 = head_of(r);
  CHECK_STR(h2, h);
  free(h2);
  CHECK_INT(query_int(r, "SELECT count(*) FROM adopted"), 100);

  /* Refusals. */
  CHECK_INT(weir_table_register(r, "adopted", meta, NULL, &out, &err), WEIR_EEXISTS);
  weir_error_clear(&err);
  char nope[4300];
  snprintf(nope, sizeof nope, "%s/nope.metadata.json", dir);
  CHECK_INT(weir_table_register(r, "x", nope, NULL, &out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "no such file");
  weir_error_clear(&err);
  char bad[4300];
  snprintf(bad, sizeof bad, "%s/bad.json", dir);
  FILE *f = fopen(bad, "w");
  fputs("{\"hello\": 1}", f);
  fclose(f);
  CHECK_INT(weir_table_register(r, "x", bad, NULL, &out, &err), WEIR_EINPUT);
  CHECK_CONTAINS(err.message, "not a valid Iceberg metadata file");
  weir_error_clear(&err);
  CHECK_INT(weir_table_register_files(r, "adopted", NULL, 0, NULL, &out, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  weir_register_options zero;
  memset(&zero, 0, sizeof zero);
  CHECK_INT(weir_table_register(r, "x", meta, &zero, &out, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  CHECK_INT(weir_register_options_init(&o, 99), WEIR_EINVALIDARG);

  /* The writer's metadata file is byte-identical. */
  char *after = read_all(meta);
  CHECK(before && after && strcmp(before, after) == 0);
  free(before);
  free(after);
  for (size_t i = 0; i < n_paths; i++) free(paths[i]);
  free(h);
  free(meta);
  weir_lake_free(w);
  weir_lake_free(r);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
