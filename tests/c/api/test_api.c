/* The public API (include/weir.h) used the way an embedding program uses it: only the
 * header, only libweir. Runs under the sanitizers with the rest of the C tests. */
#include "harness.h"

#include <jansson.h>

/* A one-batch stream of {id: int64, name: large_string} with `n` rows, built by hand
 * with the C Data Interface (no helper library), as an embedding program would. */
typedef struct one_batch {
  int64_t n;
  int64_t *ids;
  int64_t *offsets;
  char *chars;
  const void *id_bufs[2];
  const void *name_bufs[3];
  const void *root_bufs[1];
  struct ArrowArray id_arr, name_arr;
  struct ArrowArray *children[2];
  struct ArrowSchema id_s, name_s;
  struct ArrowSchema *schildren[2];
  int sent;
} one_batch;

static void noop_array(struct ArrowArray *a) { a->release = NULL; }
static void noop_schema(struct ArrowSchema *s) { s->release = NULL; }

static void batch_release(struct ArrowArray *a) {
  one_batch *b = a->private_data;
  free(b->ids);
  free(b->offsets);
  free(b->chars);
  a->release = NULL;
}

static int get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  one_batch *b = s->private_data;
  b->id_s = (struct ArrowSchema){"l", "id", NULL, 0, 0, NULL, NULL, noop_schema, NULL};
  b->name_s = (struct ArrowSchema){"U", "name", NULL, ARROW_FLAG_NULLABLE, 0, NULL, NULL, noop_schema, NULL};
  b->schildren[0] = &b->id_s;
  b->schildren[1] = &b->name_s;
  *out = (struct ArrowSchema){"+s", "", NULL, 0, 2, b->schildren, NULL, noop_schema, NULL};
  return 0;
}

static int get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  one_batch *b = s->private_data;
  memset(out, 0, sizeof *out);
  if (b->sent++) return 0;
  b->ids = malloc(sizeof(int64_t) * (size_t)b->n);
  b->offsets = malloc(sizeof(int64_t) * (size_t)(b->n + 1));
  b->chars = malloc((size_t)b->n * 8 + 1);
  int64_t pos = 0;
  for (int64_t i = 0; i < b->n; i++) {
    b->ids[i] = i + 1;
    b->offsets[i] = pos;
    pos += sprintf(b->chars + pos, "n%lld", (long long)(i % 100));
  }
  b->offsets[b->n] = pos;
  b->id_bufs[0] = NULL;
  b->id_bufs[1] = b->ids;
  b->name_bufs[0] = NULL;
  b->name_bufs[1] = b->offsets;
  b->name_bufs[2] = b->chars;
  b->id_arr = (struct ArrowArray){b->n, 0, 0, 2, 0, b->id_bufs, NULL, NULL, noop_array, NULL};
  b->name_arr = (struct ArrowArray){b->n, 0, 0, 3, 0, b->name_bufs, NULL, NULL, noop_array, NULL};
  b->children[0] = &b->id_arr;
  b->children[1] = &b->name_arr;
  b->root_bufs[0] = NULL;
  *out = (struct ArrowArray){b->n, 0, 0, 1, 2, b->root_bufs, b->children, NULL, batch_release, b};
  return 0;
}

static const char *last_error(struct ArrowArrayStream *s) { return "none"; }
static void stream_release(struct ArrowArrayStream *s) { s->release = NULL; }

static void make_stream(one_batch *b, int64_t n, struct ArrowArrayStream *s) {
  memset(b, 0, sizeof *b);
  b->n = n;
  *s = (struct ArrowArrayStream){get_schema, get_next, last_error, stream_release, b};
}

static int64_t query_count(weir_lake *lake, const char *sql, const char *ref) {
  struct ArrowArrayStream out;
  weir_error err = {0};
  if (weir_query_run(lake, sql, ref, &out, &err) != WEIR_OK) {
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

TEST(embedding_program_round_trip) {
  char *dir = test_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/lake", dir);
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  CHECK_OK(weir_lake_set_author(lake, "api-test", &err), &err);

  one_batch b;
  struct ArrowArrayStream s;
  make_stream(&b, 1000, &s);
  weir_import_options o = WEIR_IMPORT_OPTIONS_INIT;
  o.table = "people";
  char *out = NULL;
  CHECK_OK(weir_table_import_arrow(lake, &s, &o, &out, &err), &err);
  json_t *res = json_loads(out, 0, NULL);
  CHECK_INT(json_integer_value(json_object_get(res, "rows_written")), 1000);
  char first[WEIR_HASH_HEX_SIZE];
  snprintf(first, sizeof first, "%s", json_string_value(json_object_get(res, "commit")));
  json_decref(res);
  weir_free(out);
  CHECK_INT(query_count(lake, "SELECT count(*) FROM people", NULL), 1000);
  CHECK_INT(query_count(lake, "SELECT sum(id) FROM people", NULL), 500500);

  /* A branch, a change on it, a fast-forward merge, and time travel. */
  char head[WEIR_HASH_HEX_SIZE];
  CHECK_OK(weir_branch_create(lake, "dev", "main", head, &err), &err);
  CHECK_STR(head, first);
  make_stream(&b, 10, &s);
  o.branch = "dev";
  o.mode = WEIR_MODE_APPEND;
  CHECK_OK(weir_table_import_arrow(lake, &s, &o, &out, &err), &err);
  weir_free(out);
  CHECK_OK(weir_branch_merge(lake, "dev", "main", NULL, &out, &err), &err);
  CHECK_CONTAINS(out, "fast-forward");
  weir_free(out);
  CHECK_INT(query_count(lake, "SELECT count(*) FROM people", "main"), 1010);
  CHECK_INT(query_count(lake, "SELECT count(*) FROM people", first), 1000);

  /* Errors come back as codes with messages; nothing is half-written. */
  CHECK_INT(weir_branch_create(lake, "a..b", NULL, NULL, &err), WEIR_EINVALIDNAME);
  CHECK_INT(weir_error_exit_code(err.code), 2);
  weir_error_clear(&err);
  CHECK_INT(weir_table_describe(lake, "nope", NULL, &out, &err), WEIR_ENOTFOUND);
  CHECK_CONTAINS(err.message, "default.nope");
  CHECK_STR(weir_error_name(err.code), "NotFound");
  weir_error_clear(&err);

  /* A contract from memory, validated on Arrow data. */
  const char *yaml = "contract:\n  name: people\n  columns:\n    - {name: id, type: Int64, max: 5}\n"
                     "    - {name: name, type: String}\n";
  weir_contract *c = NULL;
  CHECK_OK(weir_contract_parse(yaml, strlen(yaml), "yaml", "<test>", &c, &err), &err);
  make_stream(&b, 10, &s);
  char *report = NULL;
  CHECK_INT(weir_contract_validate(c, &s, NULL, &report, &err), WEIR_ECONTRACT);
  CHECK_CONTAINS(err.message, "column \"id\" has 5 values above the maximum 5");
  CHECK_CONTAINS(report, "\"kind\": \"range\"");
  CHECK(err.details != NULL);
  weir_error_clear(&err);
  weir_free(report);
  char *ir = weir_contract_to_json(c);
  CHECK_CONTAINS(ir, "\"name\": \"people\"");
  weir_free(ir);
  weir_contract_free(c);

  weir_lake_free(lake);
  /* Reopening finds everything. */
  CHECK_OK(weir_lake_open(path, NULL, &lake, &err), &err);
  CHECK_INT(query_count(lake, "SELECT count(*) FROM people", NULL), 1010);
  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

/* NULL means main; "" (an unset variable, most likely) is refused, not read as main. */
TEST(empty_ref_or_branch_is_refused) {
  char *dir = test_tmpdir();
  char path[4200];
  snprintf(path, sizeof path, "%s/lake", dir);
  weir_error err = {0};
  weir_lake *lake = NULL;
  CHECK_INT(weir_lake_init("", NULL, &lake, &err), WEIR_EINVALIDARG);
  CHECK(lake == NULL);
  weir_error_clear(&err);
  CHECK_OK(weir_lake_init(path, NULL, &lake, &err), &err);
  char hash[WEIR_HASH_HEX_SIZE];
  CHECK_OK(weir_ref_resolve(lake, NULL, hash, &err), &err);
  CHECK_INT(weir_ref_resolve(lake, "", hash, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "the ref is empty");
  weir_error_clear(&err);
  char head[WEIR_HASH_HEX_SIZE];
  CHECK_INT(weir_branch_create(lake, "dev", "", head, &err), WEIR_EINVALIDARG);
  weir_error_clear(&err);
  CHECK_OK(weir_branch_create(lake, "dev", NULL, head, &err), &err);
  char *out = NULL;
  CHECK_INT(weir_branch_merge(lake, "dev", "", NULL, &out, &err), WEIR_EINVALIDARG);
  CHECK_CONTAINS(err.message, "the branch name is empty");
  CHECK(out == NULL);
  weir_error_clear(&err);
  weir_lake_free(lake);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
