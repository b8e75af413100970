/* UTF-8 checks and repair, and the promise built on them: every weir_error message and
 * every text wr_json_text makes is valid UTF-8, whatever bytes the input had. */
#include "harness.h"
#include "util/json.h"
#include "util/utf8.h"

TEST(valid_sequences) {
  CHECK(wr_utf8_valid("", 0));
  CHECK(wr_utf8_valid("plain ascii", 11));
  CHECK(wr_utf8_valid("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14));
  CHECK(wr_utf8_valid("\xf4\x8f\xbf\xbf", 4)); /* U+10FFFF */
}

TEST(invalid_sequences) {
  CHECK(!wr_utf8_valid("\x80", 1));             /* a lone continuation byte */
  CHECK(!wr_utf8_valid("\xc0\xaf", 2));         /* overlong "/" */
  CHECK(!wr_utf8_valid("\xe0\x80\xaf", 3));     /* overlong, 3 bytes */
  CHECK(!wr_utf8_valid("\xed\xa0\x80", 3));     /* a surrogate */
  CHECK(!wr_utf8_valid("\xf4\x90\x80\x80", 4)); /* above U+10FFFF */
  CHECK(!wr_utf8_valid("\xe2\x82", 2));         /* cut short */
  CHECK(!wr_utf8_valid("\xff", 1));
}

TEST(repair_replaces_each_bad_byte) {
  char *r = wr_utf8_repair(
      "a\xff"
      "b\xe2\x82"
      "c\xc3\xa9");
  CHECK_STR(r,
            "a\xef\xbf\xbd"
            "b\xef\xbf\xbd\xef\xbf\xbd"
            "c\xc3\xa9");
  free(r);
  char *s = wr_strdup("fine \xc3\xa9");
  char *same = wr_utf8_repair_owned(s);
  CHECK(same == s);
  free(same);
}

TEST(error_messages_are_always_utf8) {
  weir_error err = {0};
  wr_seterr(&err, WEIR_ENOTFOUND, "ref '%s' not found", "ma\x8ain");
  CHECK_STR(err.message, "ref 'ma\xef\xbf\xbdin' not found");
  wr_error_prefix(&err, "%s", "\xff");
  CHECK_STR(err.message, "\xef\xbf\xbd: ref 'ma\xef\xbf\xbdin' not found");
  weir_error_clear(&err);
}

TEST(json_text_keeps_the_key) {
  json_t *o = json_object();
  json_object_set_new(o, "message", wr_json_text("bad \xff byte"));
  json_object_set_new(o, "none", wr_json_text(NULL));
  CHECK_STR(json_string_value(json_object_get(o, "message")), "bad \xef\xbf\xbd byte");
  CHECK(json_is_null(json_object_get(o, "none")));
  json_decref(o);
}

TEST_MAIN()
