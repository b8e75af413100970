/* Name rules: every rejected shape is rejected with exit-code-2 class error naming it. */
#include "harness.h"
#include "util/names.h"

static void expect_bad_table(const char *name, const char *fragment) {
  weir_error err = {0};
  wr_table_id id;
  int rc = wr_table_id_parse(name, &id, &err);
  if (rc != WEIR_EINVALIDNAME) TEST_FAIL_("table name \"%s\" accepted", name);
  else if (!strstr(err.message, fragment))
    TEST_FAIL_("message for \"%s\" is \"%s\", expected \"%s\" in it", name, err.message, fragment);
  CHECK_INT(weir_error_exit_code(rc), 2);
  weir_error_clear(&err);
}

TEST(table_names_valid) {
  wr_table_id id;
  weir_error err = {0};
  CHECK_OK(wr_table_id_parse("titanic", &id, &err), &err);
  CHECK_STR(id.ns, "default");
  CHECK_STR(id.name, "titanic");
  CHECK_OK(wr_table_id_parse("raw.Orders_2", &id, &err), &err);
  CHECK_STR(id.ns, "raw");
  CHECK_STR(id.name, "Orders_2");
  char buf[600];
  wr_table_id_format(&id, buf, sizeof buf);
  CHECK_STR(buf, "raw.Orders_2");
  CHECK_OK(wr_table_id_parse("_x", &id, &err), &err);
}

TEST(table_names_invalid) {
  expect_bad_table("../x", "invalid table name \"../x\"");
  expect_bad_table("a/b", "'/'");
  expect_bad_table("", "empty");
  expect_bad_table("1abc", "starts with '1'");
  expect_bad_table("a.b.c", "one dot at most");
  expect_bad_table("a b", "a space");
  expect_bad_table(".x", "namespace");
  expect_bad_table("x.", "empty");
  char longname[300];
  memset(longname, 'a', 299);
  longname[299] = 0;
  expect_bad_table(longname, "longer than 255");
}

static void expect_bad_ref(const char *name, const char *fragment) {
  weir_error err = {0};
  int rc = wr_ref_name_check(name, "branch", &err);
  if (rc != WEIR_EINVALIDNAME) TEST_FAIL_("branch name \"%s\" accepted", name);
  else if (!strstr(err.message, fragment))
    TEST_FAIL_("message for \"%s\" is \"%s\", expected \"%s\" in it", name, err.message, fragment);
  weir_error_clear(&err);
}

TEST(ref_names) {
  weir_error err = {0};
  CHECK_OK(wr_ref_name_check("dev", "branch", &err), &err);
  CHECK_OK(wr_ref_name_check("feature/x-1.2", "branch", &err), &err);
  CHECK_OK(wr_ref_name_check("run/abc", "branch", &err), &err);
  expect_bad_ref("a..b", "\"..\"");
  expect_bad_ref("-x", "starts with '-'");
  expect_bad_ref("a b", "a space");
  expect_bad_ref("a~1", "'~'");
  expect_bad_ref("a^", "'^'");
  expect_bad_ref("a:b", "':'");
  expect_bad_ref("a?", "'?'");
  expect_bad_ref("a*", "'*'");
  expect_bad_ref("a[", "'['");
  expect_bad_ref("a\\b", "'\\'");
  expect_bad_ref("a/", "ends with '/'");
  expect_bad_ref("a.", "ends with '.'");
  expect_bad_ref("x/.hidden", "starts with '.'");
  expect_bad_ref("x.lock", ".lock");
  expect_bad_ref("a//b", "//");
  expect_bad_ref("a@{1}", "@{");
  expect_bad_ref("@", "@");
  expect_bad_ref("", "empty");
  expect_bad_ref("tab\there", "byte 0x09");
}

TEST_MAIN()
