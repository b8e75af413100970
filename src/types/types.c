/*
 * types.c -- the type table of docs/types.md.
 */
#include "types/types.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

typedef struct type_row {
  wr_type_id id;
  const char *weir;     /* weir name */
  const char *arrow;    /* Arrow printed name */
  const char *format;   /* Arrow C format */
  const char *iceberg;  /* Iceberg type, NULL when none */
  const char *duckdb;   /* DuckDB type */
} type_row;

static const type_row ROWS[] = {
    {WEIR_TYPE_BOOL, "Bool", "bool", "b", "boolean", "BOOLEAN"},
    {WEIR_TYPE_INT32, "Int32", "int32", "i", "int", "INTEGER"},
    {WEIR_TYPE_INT64, "Int64", "int64", "l", "long", "BIGINT"},
    {WEIR_TYPE_FLOAT32, "Float32", "float", "f", "float", "FLOAT"},
    {WEIR_TYPE_FLOAT64, "Float64", "double", "g", "double", "DOUBLE"},
    {WEIR_TYPE_DECIMAL, "Decimal", "decimal128", "d", "decimal", "DECIMAL"},
    {WEIR_TYPE_STRING, "String", "large_string", "U", "string", "VARCHAR"},
    {WEIR_TYPE_BINARY, "Binary", "large_binary", "Z", "binary", "BLOB"},
    {WEIR_TYPE_DATE32, "Date32", "date32", "tdD", "date", "DATE"},
    {WEIR_TYPE_DATE64, "Date64", "date64", "tdm", NULL, "DATE"},
    {WEIR_TYPE_TS_US, "TimestampMicro", "timestamp[us]", "tsu:", "timestamp", "TIMESTAMP"},
    {WEIR_TYPE_TS_NS, "TimestampNano", "timestamp[ns]", "tsn:", "timestamp_ns", "TIMESTAMP_NS"},
    {WEIR_TYPE_TS_US_UTC, "TimestampMicroUTC", "timestamp[us, tz=UTC]", "tsu:UTC", "timestamptz",
     "TIMESTAMP WITH TIME ZONE"},
    {WEIR_TYPE_TS_NS_UTC, "TimestampNanoUTC", "timestamp[ns, tz=UTC]", "tsn:UTC", "timestamptz_ns",
     "TIMESTAMP WITH TIME ZONE"},
    {WEIR_TYPE_ANY, "Any", "any", NULL, NULL, NULL},
};

static const type_row *row_of(wr_type_id id) {
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++)
    if (ROWS[i].id == id) return &ROWS[i];
  return NULL;
}

/* --- parsing ------------------------------------------------------------------------- */

typedef struct alias {
  const char *name;
  wr_type_id id;
} alias;

static const alias ALIASES[] = {
    {"BIGINT", WEIR_TYPE_INT64},       {"INT8", WEIR_TYPE_INT64},
    {"LONG", WEIR_TYPE_INT64},         {"INT64", WEIR_TYPE_INT64},
    {"INT", WEIR_TYPE_INT32},          {"INTEGER", WEIR_TYPE_INT32},
    {"INT4", WEIR_TYPE_INT32},         {"INT32", WEIR_TYPE_INT32},
    {"DOUBLE", WEIR_TYPE_FLOAT64},     {"FLOAT8", WEIR_TYPE_FLOAT64},
    {"FLOAT64", WEIR_TYPE_FLOAT64},    {"DOUBLE PRECISION", WEIR_TYPE_FLOAT64},
    {"FLOAT", WEIR_TYPE_FLOAT32},      {"REAL", WEIR_TYPE_FLOAT32},
    {"FLOAT4", WEIR_TYPE_FLOAT32},     {"FLOAT32", WEIR_TYPE_FLOAT32},
    {"STRING", WEIR_TYPE_STRING},      {"VARCHAR", WEIR_TYPE_STRING},
    {"TEXT", WEIR_TYPE_STRING},        {"BOOLEAN", WEIR_TYPE_BOOL},
    {"BOOL", WEIR_TYPE_BOOL},          {"BLOB", WEIR_TYPE_BINARY},
    {"BYTEA", WEIR_TYPE_BINARY},       {"BINARY", WEIR_TYPE_BINARY},
    {"VARBINARY", WEIR_TYPE_BINARY},   {"DATE", WEIR_TYPE_DATE32},
    {"TIMESTAMP", WEIR_TYPE_TS_US},    {"DATETIME", WEIR_TYPE_TS_US},
    {"TIMESTAMP_NS", WEIR_TYPE_TS_NS}, {"TIMESTAMPTZ", WEIR_TYPE_TS_US_UTC},
    {"TIMESTAMP WITH TIME ZONE", WEIR_TYPE_TS_US_UTC},
};

/* Copies text without surrounding blanks and with inner runs of blanks folded to one. */
static void normalise(const char *text, char *out, size_t size) {
  size_t o = 0;
  int pending_space = 0;
  for (const char *p = text; *p && o + 2 < size; p++) {
    if (isspace((unsigned char)*p)) {
      if (o > 0) pending_space = 1;
      continue;
    }
    if (pending_space) {
      out[o++] = ' ';
      pending_space = 0;
    }
    out[o++] = *p;
  }
  out[o] = 0;
}

static bool parse_decimal_args(const char *p, weir_type *out, char *why, size_t why_size) {
  /* p points just after "(": "p, s)" or "p)" */
  char *end;
  long prec = strtol(p, &end, 10);
  if (end == p) goto bad;
  long scale = 0;
  while (isspace((unsigned char)*end)) end++;
  if (*end == ',') {
    const char *q = end + 1;
    scale = strtol(q, &end, 10);
    if (end == q) goto bad;
    while (isspace((unsigned char)*end)) end++;
  }
  if (*end != ')' || end[1] != 0) goto bad;
  if (prec < 1 || prec > 38) {
    snprintf(why, why_size, "decimal precision must be 1 to 38, not %ld", prec);
    return false;
  }
  if (scale < 0 || scale > prec) {
    snprintf(why, why_size, "decimal scale must be 0 to the precision %ld, not %ld", prec, scale);
    return false;
  }
  out->id = WEIR_TYPE_DECIMAL;
  out->precision = (int)prec;
  out->scale = (int)scale;
  return true;
bad:
  snprintf(why, why_size, "expected Decimal(precision, scale)");
  return false;
}

bool wr_type_parse(const char *text, weir_type *out, char *why, size_t why_size) {
  char buf[128];
  char tmp[8];
  if (!why) {
    why = tmp;
    why_size = sizeof tmp;
  }
  memset(out, 0, sizeof *out);
  if (!text) {
    snprintf(why, why_size, "no type given");
    return false;
  }
  normalise(text, buf, sizeof buf);
  if (!buf[0]) {
    snprintf(why, why_size, "no type given");
    return false;
  }
  /* Decimal(p, s) in any case, and NUMERIC(p, s). */
  if (strncasecmp(buf, "decimal(", 8) == 0) return parse_decimal_args(buf + 8, out, why, why_size);
  if (strncasecmp(buf, "numeric(", 8) == 0) return parse_decimal_args(buf + 8, out, why, why_size);
  if (strncasecmp(buf, "decimal ", 8) == 0 && strchr(buf, '('))
    return parse_decimal_args(strchr(buf, '(') + 1, out, why, why_size);
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    if (ROWS[i].id != WEIR_TYPE_DECIMAL && strcmp(buf, ROWS[i].weir) == 0) {
      out->id = ROWS[i].id;
      return true;
    }
  }
  for (size_t i = 0; i < sizeof ALIASES / sizeof ALIASES[0]; i++) {
    if (strcasecmp(buf, ALIASES[i].name) == 0) {
      out->id = ALIASES[i].id;
      return true;
    }
  }
  if (strcasecmp(buf, "decimal") == 0 || strcasecmp(buf, "numeric") == 0) {
    snprintf(why, why_size, "Decimal needs a precision and scale, e.g. Decimal(18, 2)");
    return false;
  }
  snprintf(why, why_size,
           "unknown type \"%s\" (weir types: Bool, Int32, Int64, Float32, Float64, Decimal(p, s), "
           "String, Binary, Date32, Date64, TimestampMicro, TimestampNano, TimestampMicroUTC, "
           "TimestampNanoUTC, Any)",
           buf);
  return false;
}

/* --- names --------------------------------------------------------------------------- */

void wr_type_name(weir_type t, char *out, size_t size) {
  if (t.id == WEIR_TYPE_DECIMAL) {
    snprintf(out, size, "Decimal(%d, %d)", t.precision, t.scale);
    return;
  }
  const type_row *r = row_of(t.id);
  snprintf(out, size, "%s", r ? r->weir : "Invalid");
}

void wr_type_arrow_name(weir_type t, char *out, size_t size) {
  if (t.id == WEIR_TYPE_DECIMAL) {
    snprintf(out, size, "decimal128(%d, %d)", t.precision, t.scale);
    return;
  }
  const type_row *r = row_of(t.id);
  snprintf(out, size, "%s", r ? r->arrow : "invalid");
}

bool wr_type_arrow_format(weir_type t, char *out, size_t size) {
  if (t.id == WEIR_TYPE_DECIMAL) {
    snprintf(out, size, "d:%d,%d", t.precision, t.scale);
    return true;
  }
  const type_row *r = row_of(t.id);
  if (!r || !r->format) return false;
  snprintf(out, size, "%s", r->format);
  return true;
}

bool wr_type_iceberg_name(weir_type t, char *out, size_t size) {
  if (t.id == WEIR_TYPE_DECIMAL) {
    snprintf(out, size, "decimal(%d, %d)", t.precision, t.scale);
    return true;
  }
  const type_row *r = row_of(t.id);
  if (!r || !r->iceberg) return false;
  snprintf(out, size, "%s", r->iceberg);
  return true;
}

bool wr_type_duckdb_name(weir_type t, char *out, size_t size) {
  if (t.id == WEIR_TYPE_DECIMAL) {
    snprintf(out, size, "DECIMAL(%d,%d)", t.precision, t.scale);
    return true;
  }
  const type_row *r = row_of(t.id);
  if (!r || !r->duckdb) return false;
  snprintf(out, size, "%s", r->duckdb);
  return true;
}

bool wr_type_from_iceberg(const char *name, weir_type *out) {
  memset(out, 0, sizeof *out);
  if (!name) return false;
  int p, s;
  if (sscanf(name, "decimal(%d,%d)", &p, &s) == 2 || sscanf(name, "decimal(%d, %d)", &p, &s) == 2) {
    out->id = WEIR_TYPE_DECIMAL;
    out->precision = p;
    out->scale = s;
    return true;
  }
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    if (ROWS[i].iceberg && ROWS[i].id != WEIR_TYPE_DECIMAL && strcmp(name, ROWS[i].iceberg) == 0) {
      out->id = ROWS[i].id;
      return true;
    }
  }
  return false;
}

bool wr_type_equal(weir_type a, weir_type b) {
  if (a.id != b.id) return false;
  if (a.id == WEIR_TYPE_DECIMAL) return a.precision == b.precision && a.scale == b.scale;
  return true;
}

/* --- Arrow formats ------------------------------------------------------------------- */

bool wr_type_from_arrow_format(const char *f, weir_type *out) {
  memset(out, 0, sizeof *out);
  if (!f) return false;
  if (f[0] == 'd' && f[1] == ':') {
    int p, s, bits = 128;
    int n = sscanf(f + 2, "%d,%d,%d", &p, &s, &bits);
    if (n < 2 || bits != 128) return false;
    out->id = WEIR_TYPE_DECIMAL;
    out->precision = p;
    out->scale = s;
    return true;
  }
  for (size_t i = 0; i < sizeof ROWS / sizeof ROWS[0]; i++) {
    if (ROWS[i].format && ROWS[i].id != WEIR_TYPE_DECIMAL && strcmp(f, ROWS[i].format) == 0) {
      out->id = ROWS[i].id;
      return true;
    }
  }
  /* Other zones ("US/Pacific", "+00:00") are exact only as UTC: their values are UTC
   * instants, which wr_cast_check_format accepts into a UTC column. */
  return false;
}

static const char *unit_name(char u) {
  switch (u) {
  case 's': return "s";
  case 'm': return "ms";
  case 'u': return "us";
  case 'n': return "ns";
  default: return "?";
  }
}

void wr_arrow_format_name(const char *f, char *out, size_t size) {
  static const struct {
    const char *fmt;
    const char *name;
  } simple[] = {{"n", "null"},         {"b", "bool"},          {"c", "int8"},
                {"C", "uint8"},        {"s", "int16"},         {"S", "uint16"},
                {"i", "int32"},        {"I", "uint32"},        {"l", "int64"},
                {"L", "uint64"},       {"e", "halffloat"},     {"f", "float"},
                {"g", "double"},       {"z", "binary"},        {"Z", "large_binary"},
                {"vz", "binary_view"}, {"u", "string"},        {"U", "large_string"},
                {"vu", "string_view"}, {"tdD", "date32"},      {"tdm", "date64"},
                {"tts", "time32[s]"},  {"ttm", "time32[ms]"},  {"ttu", "time64[us]"},
                {"ttn", "time64[ns]"}, {"tDs", "duration[s]"}, {"tDm", "duration[ms]"},
                {"tDu", "duration[us]"}, {"tDn", "duration[ns]"}, {"tiM", "month_interval"},
                {"tiD", "day_time_interval"}, {"tin", "month_day_nano_interval"}, {"+l", "list"},
                {"+L", "large_list"},  {"+s", "struct"},       {"+m", "map"}};
  if (!f) {
    snprintf(out, size, "unknown");
    return;
  }
  for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
    if (strcmp(f, simple[i].fmt) == 0) {
      snprintf(out, size, "%s", simple[i].name);
      return;
    }
  if (f[0] == 'd' && f[1] == ':') {
    int p = 0, s = 0, bits = 128;
    sscanf(f + 2, "%d,%d,%d", &p, &s, &bits);
    snprintf(out, size, "decimal%d(%d, %d)", bits, p, s);
    return;
  }
  if (f[0] == 't' && f[1] == 's' && f[2] && f[3] == ':') {
    if (f[4]) snprintf(out, size, "timestamp[%s, tz=%s]", unit_name(f[2]), f + 4);
    else snprintf(out, size, "timestamp[%s]", unit_name(f[2]));
    return;
  }
  if (f[0] == 'w' && f[1] == ':') {
    snprintf(out, size, "fixed_size_binary[%s]", f + 2);
    return;
  }
  snprintf(out, size, "%s", f);
}

void wr_arrow_type_name(const struct ArrowSchema *field, char *out, size_t size) {
  if (!field || !field->format) {
    snprintf(out, size, "unknown");
    return;
  }
  if (field->dictionary) {
    char v[96], idx[32];
    wr_arrow_type_name(field->dictionary, v, sizeof v);
    wr_arrow_format_name(field->format, idx, sizeof idx);
    snprintf(out, size, "dictionary<values=%s, indices=%s>", v, idx);
    return;
  }
  const char *f = field->format;
  if ((strcmp(f, "+l") == 0 || strcmp(f, "+L") == 0) && field->n_children == 1) {
    char c[96];
    wr_arrow_type_name(field->children[0], c, sizeof c);
    snprintf(out, size, "%s<item: %s>", f[1] == 'l' ? "list" : "large_list", c);
    return;
  }
  wr_arrow_format_name(f, out, size);
}

/* --- casts --------------------------------------------------------------------------- */

/* Integer formats: bit width and signedness; 0 if not an integer. */
static int int_bits(const char *f, bool *is_signed) {
  if (!f || f[1]) return 0;
  switch (f[0]) {
  case 'c': *is_signed = true; return 8;
  case 'C': *is_signed = false; return 8;
  case 's': *is_signed = true; return 16;
  case 'S': *is_signed = false; return 16;
  case 'i': *is_signed = true; return 32;
  case 'I': *is_signed = false; return 32;
  case 'l': *is_signed = true; return 64;
  case 'L': *is_signed = false; return 64;
  default: return 0;
  }
}

static bool is_string_format(const char *f) {
  return strcmp(f, "u") == 0 || strcmp(f, "U") == 0 || strcmp(f, "vu") == 0;
}
static bool is_binary_format(const char *f) {
  return strcmp(f, "z") == 0 || strcmp(f, "Z") == 0 || strcmp(f, "vz") == 0 ||
         (f[0] == 'w' && f[1] == ':');
}

/* Timestamp format: unit char and whether it has a zone; tz written to tz_out. */
static bool ts_parts(const char *f, char *unit, const char **tz) {
  if (f[0] != 't' || f[1] != 's' || !f[2] || f[3] != ':') return false;
  *unit = f[2];
  *tz = f + 4;
  return true;
}

static int unit_rank(char u) {
  switch (u) {
  case 's': return 0;
  case 'm': return 1;
  case 'u': return 2;
  case 'n': return 3;
  default: return -1;
  }
}

wr_cast_kind wr_cast_check_format(const char *f, weir_type target, bool *narrowing) {
  if (narrowing) *narrowing = false;
  if (!f) return WEIR_CAST_REFUSE;
  if (target.id == WEIR_TYPE_ANY) return WEIR_CAST_EXACT;
  weir_type exact;
  if (wr_type_from_arrow_format(f, &exact) && wr_type_equal(exact, target))
    return WEIR_CAST_EXACT;

  bool sgn = false;
  int bits = int_bits(f, &sgn);
  switch (target.id) {
  case WEIR_TYPE_INT32:
    /* int8, int16, uint8, uint16 always fit in int32. */
    if (bits && bits < 32) return WEIR_CAST_WIDEN;
    if (bits) {
      if (narrowing) *narrowing = true;
      return WEIR_CAST_REFUSE;
    }
    break;
  case WEIR_TYPE_INT64:
    /* Everything up to 32 bits, signed or not, fits in int64; uint64 does not. */
    if (bits && bits <= 32) return WEIR_CAST_WIDEN;
    if (bits == 64 && !sgn) {
      if (narrowing) *narrowing = true;
      return WEIR_CAST_REFUSE;
    }
    break;
  case WEIR_TYPE_FLOAT32:
    /* A float has a 24-bit significand: 8- and 16-bit integers and half floats are exact. */
    if (bits && bits <= 16) return WEIR_CAST_WIDEN;
    if (strcmp(f, "e") == 0) return WEIR_CAST_WIDEN;
    if (bits || strcmp(f, "g") == 0) {
      if (narrowing) *narrowing = true;
      return WEIR_CAST_REFUSE;
    }
    break;
  case WEIR_TYPE_FLOAT64:
    /* A double has a 53-bit significand: integers of 32 bits or fewer are exact. */
    if (bits && bits <= 32) return WEIR_CAST_WIDEN;
    if (strcmp(f, "f") == 0 || strcmp(f, "e") == 0) return WEIR_CAST_WIDEN;
    if (bits == 64) {
      if (narrowing) *narrowing = true;
      return WEIR_CAST_REFUSE;
    }
    break;
  case WEIR_TYPE_DECIMAL:
    if (f[0] == 'd' && f[1] == ':') {
      int p = 0, s = 0, b = 128;
      sscanf(f + 2, "%d,%d,%d", &p, &s, &b);
      if (b == 128 && target.scale >= s && target.precision - target.scale >= p - s)
        return WEIR_CAST_WIDEN;
      if (narrowing) *narrowing = true;
      return WEIR_CAST_REFUSE;
    }
    break;
  case WEIR_TYPE_STRING:
    if (is_string_format(f)) return WEIR_CAST_WIDEN;
    break;
  case WEIR_TYPE_BINARY:
    if (is_string_format(f) || is_binary_format(f)) return WEIR_CAST_WIDEN;
    break;
  case WEIR_TYPE_DATE64:
    if (strcmp(f, "tdD") == 0) return WEIR_CAST_WIDEN;
    break;
  case WEIR_TYPE_DATE32:
    if (strcmp(f, "tdm") == 0 && narrowing) *narrowing = true;
    break;
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_US_UTC:
  case WEIR_TYPE_TS_NS_UTC: {
    char unit;
    const char *tz;
    if (!ts_parts(f, &unit, &tz)) break;
    bool want_tz = target.id == WEIR_TYPE_TS_US_UTC || target.id == WEIR_TYPE_TS_NS_UTC;
    char want_unit = (target.id == WEIR_TYPE_TS_US || target.id == WEIR_TYPE_TS_US_UTC) ? 'u' : 'n';
    bool has_tz = tz[0] != 0;
    /* Never between zoned and zone-less. A zoned Arrow timestamp holds UTC instants
     * whatever zone it names (the zone only says how to show them: "US/Pacific",
     * "Etc/UTC", "+00:00"), so any zone goes into a UTC column unchanged, as the same data
     * does from Parquet. */
    if (want_tz != has_tz) break;
    if (unit_rank(unit) < unit_rank(want_unit)) return WEIR_CAST_WIDEN;
    if (unit_rank(unit) > unit_rank(want_unit)) {
      if (narrowing) *narrowing = true;
      break;
    }
    if (has_tz && strcmp(tz, "UTC") != 0) return WEIR_CAST_WIDEN;
    break;
  }
  default:
    break;
  }
  return WEIR_CAST_REFUSE;
}

bool wr_cast_exact_format(const char *f, weir_type target) {
  if (!f || wr_cast_check_format(f, target, NULL) != WEIR_CAST_REFUSE) return false;
  bool sgn = false;
  int bits = int_bits(f, &sgn);
  bool is_float = strcmp(f, "e") == 0 || strcmp(f, "f") == 0 || strcmp(f, "g") == 0;
  bool is_dec128 = false;
  if (f[0] == 'd' && f[1] == ':') {
    int p = 0, s = 0, b = 128;
    is_dec128 = sscanf(f + 2, "%d,%d,%d", &p, &s, &b) >= 2 && b == 128;
  }
  switch (target.id) {
  case WEIR_TYPE_INT32:
  case WEIR_TYPE_INT64: return bits || is_float || is_dec128;
  case WEIR_TYPE_FLOAT32: return bits || strcmp(f, "g") == 0;
  case WEIR_TYPE_FLOAT64: return bits != 0;
  case WEIR_TYPE_DECIMAL: return is_dec128;
  case WEIR_TYPE_DATE32: return strcmp(f, "tdm") == 0;
  case WEIR_TYPE_TS_US:
  case WEIR_TYPE_TS_NS:
  case WEIR_TYPE_TS_US_UTC:
  case WEIR_TYPE_TS_NS_UTC: {
    char unit;
    const char *tz;
    if (!ts_parts(f, &unit, &tz)) return false;
    bool want_tz = target.id == WEIR_TYPE_TS_US_UTC || target.id == WEIR_TYPE_TS_NS_UTC;
    char want_unit = (target.id == WEIR_TYPE_TS_US || target.id == WEIR_TYPE_TS_US_UTC) ? 'u' : 'n';
    /* Only the unit may change; any zone holds UTC instants (see wr_cast_check_format). */
    if (want_tz != (tz[0] != 0)) return false;
    return unit_rank(unit) > unit_rank(want_unit);
  }
  default: return false;
  }
}

bool wr_cast_exact(const struct ArrowSchema *field, weir_type target) {
  return field && !field->dictionary && wr_cast_exact_format(field->format, target);
}

bool wr_type_compose_exact(weir_type from, weir_type to) {
  char fmt[32];
  if (from.id == WEIR_TYPE_ANY || to.id == WEIR_TYPE_ANY || !wr_type_arrow_format(from, fmt, sizeof fmt))
    return false;
  return wr_cast_exact_format(fmt, to);
}

wr_cast_kind wr_cast_check(const struct ArrowSchema *field, weir_type target, bool *narrowing) {
  if (narrowing) *narrowing = false;
  if (!field) return WEIR_CAST_REFUSE;
  if (target.id == WEIR_TYPE_ANY) return WEIR_CAST_EXACT;
  if (field->dictionary) {
    /* A dictionary column is its values; decoding it is never lossy. */
    wr_cast_kind k = wr_cast_check_format(field->dictionary->format, target, narrowing);
    return k == WEIR_CAST_EXACT ? WEIR_CAST_WIDEN : k;
  }
  return wr_cast_check_format(field->format, target, narrowing);
}

wr_cast_kind wr_type_compose(weir_type from, weir_type to) {
  if (to.id == WEIR_TYPE_ANY) return WEIR_CAST_EXACT;
  if (from.id == WEIR_TYPE_ANY) return WEIR_CAST_REFUSE;
  if (wr_type_equal(from, to)) return WEIR_CAST_EXACT;
  char fmt[32];
  if (!wr_type_arrow_format(from, fmt, sizeof fmt)) return WEIR_CAST_REFUSE;
  return wr_cast_check_format(fmt, to, NULL);
}

bool wr_type_from_duckdb(const char *t, weir_type *out) {
  memset(out, 0, sizeof *out);
  if (!t) return false;
  int p, s;
  if (sscanf(t, "DECIMAL(%d,%d)", &p, &s) == 2) {
    out->id = WEIR_TYPE_DECIMAL;
    out->precision = p;
    out->scale = s;
    return true;
  }
  static const struct {
    const char *name;
    wr_type_id id;
    bool exact;
  } map[] = {
      {"BOOLEAN", WEIR_TYPE_BOOL, true},        {"INTEGER", WEIR_TYPE_INT32, true},
      {"BIGINT", WEIR_TYPE_INT64, true},        {"FLOAT", WEIR_TYPE_FLOAT32, true},
      {"DOUBLE", WEIR_TYPE_FLOAT64, true},      {"VARCHAR", WEIR_TYPE_STRING, true},
      {"BLOB", WEIR_TYPE_BINARY, true},         {"DATE", WEIR_TYPE_DATE32, true},
      {"TIMESTAMP", WEIR_TYPE_TS_US, true},     {"TIMESTAMP_NS", WEIR_TYPE_TS_NS, true},
      {"TIMESTAMP WITH TIME ZONE", WEIR_TYPE_TS_US_UTC, true},
      {"TINYINT", WEIR_TYPE_INT32, false},      {"SMALLINT", WEIR_TYPE_INT32, false},
      {"UTINYINT", WEIR_TYPE_INT32, false},     {"USMALLINT", WEIR_TYPE_INT32, false},
      {"UINTEGER", WEIR_TYPE_INT64, false},     {"TIMESTAMP_S", WEIR_TYPE_TS_US, false},
      {"TIMESTAMP_MS", WEIR_TYPE_TS_US, false},
  };
  for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
    if (strcmp(t, map[i].name) == 0) {
      out->id = map[i].id;
      return map[i].exact;
    }
  out->id = WEIR_TYPE_ANY;
  return false;
}
