/* wr_storage_list_objects on a local folder: every file below it, sorted, with its size and
 * modification time (what gc's grace period is measured on). S3 listings are exercised
 * against moto by tests/py/test_gc.py and test_s3.py. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>

#include "storage/storage.h"
#include "util/fs.h"

TEST(lists_files_with_sizes_and_times) {
  char *dir = test_tmpdir();
  weir_error err = {0};
  char *sub = wr_path_join(dir, "ns/t/data");
  CHECK_OK(wr_storage_mkdirs(sub, &err), &err);
  char *a = wr_path_join(sub, "a.parquet");
  char *b = wr_path_join(dir, "ns/b.json");
  CHECK_OK(wr_storage_write(a, "12345", 5, true, &err), &err);
  CHECK_OK(wr_storage_write(b, "xy", 2, true, &err), &err);
  struct timeval tv[2] = {{1700000000, 250000}, {1700000000, 250000}};
  CHECK(utimes(a, tv) == 0);
  wr_storage_object *v = NULL;
  size_t n = 0;
  CHECK_OK(wr_storage_list_objects(dir, &v, &n, &err), &err);
  CHECK_INT(n, 2);
  if (n == 2) {
    CHECK_STR(v[0].location, b); /* sorted: "ns/b.json" < "ns/t/..." */
    CHECK_INT(v[0].size, 2);
    CHECK_STR(v[1].location, a);
    CHECK_INT(v[1].size, 5);
    CHECK_INT(v[1].mtime_us, 1700000000LL * 1000000 + 250000);
    CHECK(v[0].mtime_us > v[1].mtime_us);
  }
  wr_storage_objects_free(v, n);
  /* A folder that does not exist lists as empty. */
  char *none = wr_path_join(dir, "nothing-here");
  CHECK_OK(wr_storage_list_objects(none, &v, &n, &err), &err);
  CHECK_INT(n, 0);
  wr_storage_objects_free(v, n);
  free(none);
  free(a);
  free(b);
  free(sub);
  weir_error_clear(&err);
  test_rmtree(dir);
  free(dir);
}

TEST_MAIN()
