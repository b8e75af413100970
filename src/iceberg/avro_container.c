/*
 * avro_container.c -- the Avro object container format (Avro spec, "Object Container
 * Files"): magic "Obj\x01", a metadata map<bytes>, a 16-byte sync marker, then blocks of
 * (record count, byte size, records, sync marker).
 *
 * Why weir frames containers itself: avro-c 1.11.1's file writer re-serialises the schema
 * it puts in the header and drops every attribute it does not model -- Iceberg's
 * "field-id" (the only way readers such as pyiceberg resolve manifest columns), "doc",
 * "default", "element-id", "logicalType": "map" -- and it offers no way to add header
 * metadata, while Iceberg requires "schema", "partition-spec", "format-version", "content"
 * and friends there. The records themselves are plain Avro binary, which avro-c encodes
 * and decodes well, so it is used for exactly that (generic values built from the schema
 * JSON we also write verbatim into the header).
 *
 * Reading: the header is parsed here (the metadata keys must be inspectable, and the same
 * framing code on both sides keeps the format honest); blocks of the "null" codec
 * (everything weir writes) and the "deflate" codec (what Java and pyiceberg write,
 * inflated here with zlib) are checked against the writer schema (check_block: avro-c
 * leaks and over-allocates on corrupt data) and then decoded by avro-c from memory. Files
 * with another codec (snappy, xz, ...) go to avro-c's own file reader, which implements
 * the codecs and tolerates any header metadata.
 */
#include "iceberg/iceberg_internal.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "util/fs.h"
#include "util/json.h"
#include "util/uuid.h"

/* A block is closed when its records reach this size (Java's default is 1 MiB too). */
#define BLOCK_TARGET_BYTES (1u << 20)

/* ---- Avro binary primitives ------------------------------------------------------- */

static void put_long(wr_buf *b, int64_t v) {
  uint64_t z = ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
  uint8_t tmp[10];
  size_t n = 0;
  while (z & ~(uint64_t)0x7f) {
    tmp[n++] = (uint8_t)((z & 0x7f) | 0x80);
    z >>= 7;
  }
  tmp[n++] = (uint8_t)z;
  wr_buf_append(b, tmp, n);
}

static void put_bytes(wr_buf *b, const void *data, size_t len) {
  put_long(b, (int64_t)len);
  if (len) wr_buf_append(b, data, len);
}

/* Reads a zig-zag varint; false when the data ends or the varint is longer than 10 bytes. */
static bool get_long(const uint8_t *data, size_t len, size_t *pos, int64_t *out) {
  uint64_t z = 0;
  for (int shift = 0; shift < 70; shift += 7) {
    if (*pos >= len) return false;
    uint8_t byte = data[(*pos)++];
    z |= (uint64_t)(byte & 0x7f) << shift;
    if (!(byte & 0x80)) {
      *out = (int64_t)(z >> 1) ^ -(int64_t)(z & 1);
      return true;
    }
  }
  return false;
}

/* ---- writer ------------------------------------------------------------------------ */

static pthread_mutex_t avro_mu;
static pthread_once_t avro_mu_once = PTHREAD_ONCE_INIT;

static void avro_mu_init(void) {
  pthread_mutexattr_t a;
  pthread_mutexattr_init(&a);
  pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
  pthread_mutex_init(&avro_mu, &a);
  pthread_mutexattr_destroy(&a);
}

void iceberg_avro_lock(void) {
  pthread_once(&avro_mu_once, avro_mu_init);
  pthread_mutex_lock(&avro_mu);
}

void iceberg_avro_unlock(void) { pthread_mutex_unlock(&avro_mu); }

int iceberg_avro_writer_init(iceberg_avro_writer *w, const char *schema_json, weir_error *err) {
  memset(w, 0, sizeof *w);
  if (avro_schema_from_json_length(schema_json, strlen(schema_json), &w->schema) != 0)
    return wr_seterr(err, WEIR_EGENERIC, "avro: invalid schema: %s", avro_strerror());
  w->iface = avro_generic_class_from_schema(w->schema);
  if (!w->iface || avro_generic_value_new(w->iface, &w->value) != 0) {
    int rc = wr_seterr(err, WEIR_EGENERIC, "avro: cannot build values of schema %s: %s",
                         avro_schema_type_name(w->schema), avro_strerror());
    if (w->iface) avro_value_iface_decref(w->iface);
    avro_schema_decref(w->schema);
    memset(w, 0, sizeof *w);
    return rc;
  }
  w->schema_json = wr_strdup(schema_json);
  wr_random_bytes(w->sync, ICEBERG_AVRO_SYNC_SIZE);
  return WEIR_OK;
}

avro_value_t *iceberg_avro_writer_record(iceberg_avro_writer *w) {
  avro_value_reset(&w->value);
  return &w->value;
}

static void flush_block(iceberg_avro_writer *w) {
  if (w->block_count == 0) return;
  put_long(&w->body, w->block_count);
  put_bytes(&w->body, w->block.data, w->block.len);
  wr_buf_append(&w->body, w->sync, ICEBERG_AVRO_SYNC_SIZE);
  wr_buf_clear(&w->block);
  w->block_count = 0;
}

int iceberg_avro_writer_append(iceberg_avro_writer *w, weir_error *err) {
  size_t size = 0;
  if (avro_value_sizeof(&w->value, &size) != 0)
    return wr_seterr(err, WEIR_EGENERIC, "avro: cannot size a %s record: %s",
                       avro_schema_type_name(w->schema), avro_strerror());
  wr_buf_reserve(&w->block, size + 1);
  avro_writer_t aw = avro_writer_memory(w->block.data + w->block.len, (int64_t)size);
  int rc = avro_value_write(aw, &w->value);
  int64_t used = avro_writer_tell(aw);
  avro_writer_free(aw);
  if (rc != 0 || used != (int64_t)size)
    return wr_seterr(err, WEIR_EGENERIC, "avro: cannot encode a %s record: %s",
                       avro_schema_type_name(w->schema), avro_strerror());
  w->block.len += size;
  w->block.data[w->block.len] = '\0';
  w->block_count++;
  w->count++;
  if (w->block.len >= BLOCK_TARGET_BYTES) flush_block(w);
  return WEIR_OK;
}

void iceberg_avro_writer_finish(iceberg_avro_writer *w, const iceberg_avro_meta *meta,
                                size_t n_meta, wr_buf *out) {
  flush_block(w);
  wr_buf_clear(out);
  wr_buf_append(out, ICEBERG_AVRO_MAGIC, 4);
  /* The metadata map in one block: avro.schema and avro.codec, then the caller's keys. */
  put_long(out, (int64_t)(n_meta + 2));
  put_bytes(out, "avro.schema", 11);
  put_bytes(out, w->schema_json, strlen(w->schema_json));
  put_bytes(out, "avro.codec", 10);
  put_bytes(out, "null", 4);
  for (size_t i = 0; i < n_meta; i++) {
    put_bytes(out, meta[i].key, strlen(meta[i].key));
    put_bytes(out, meta[i].value, strlen(meta[i].value));
  }
  put_long(out, 0);
  wr_buf_append(out, w->sync, ICEBERG_AVRO_SYNC_SIZE);
  if (w->body.len) wr_buf_append(out, w->body.data, w->body.len);
}

void iceberg_avro_writer_free(iceberg_avro_writer *w) {
  if (!w || !w->schema) return;
  avro_value_decref(&w->value);
  avro_value_iface_decref(w->iface);
  avro_schema_decref(w->schema);
  free(w->schema_json);
  wr_buf_free(&w->block);
  wr_buf_free(&w->body);
  memset(w, 0, sizeof *w);
}

/* ---- reader ------------------------------------------------------------------------ */

static int bad(iceberg_avro_reader *r, weir_error *err, const char *what) {
  return wr_seterr(err, WEIR_EINPUT, "%s: not a valid Avro file: %s", r->origin, what);
}

/* ---- the writer schema, checked before avro-c parses it -------------------------------- */

/* avro-c 1.11's avro_schema_from_json leaks the records it was building when it refuses a
 * schema (a record with two fields of one name, a named type defined twice, ...), and a
 * manifest's header comes from whoever wrote the file. So the schema is checked here
 * first, against the rules of the Avro specification that avro-c would enforce, and
 * avro-c only ever parses a schema it accepts. Names must be distinct per record and
 * defined once per fullname; references must name a type defined before; unions may not
 * hold unions or repeat a type. Nesting is bounded like the blocks' (check_block). */
typedef struct schema_check {
  json_t *named;   /* fullname -> true */
  int depth;
  const char *why; /* what is wrong, for the message */
} schema_check;

static bool avro_name_ok(const char *n) {
  if (!n || !*n) return false;
  for (const char *p = n; *p; p++) {
    bool first = p == n || p[-1] == '.';
    if (*p == '.' && !first && p[1]) continue;
    if (!(*p == '_' || (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (!first && *p >= '0' && *p <= '9')))
      return false;
  }
  return true;
}

static bool schema_ok(schema_check *c, const json_t *s, const char *ns);

static bool define_name(schema_check *c, const json_t *s, const char *ns, char **fullname) {
  const char *name = wr_json_str(s, "name", NULL);
  const char *own_ns = wr_json_str(s, "namespace", NULL);
  if (!avro_name_ok(name) || (own_ns && *own_ns && !avro_name_ok(own_ns))) return c->why = "a bad type name", false;
  const char *space = strchr(name, '.') ? NULL : (own_ns ? own_ns : ns);
  *fullname = space && *space ? wr_asprintf("%s.%s", space, name) : wr_strdup(name);
  if (json_object_get(c->named, *fullname)) {
    free(*fullname);
    *fullname = NULL;
    return c->why = "a named type defined twice", false;
  }
  json_object_set_new(c->named, *fullname, json_true());
  return true;
}

static const char *const PRIMITIVES[] = {"null", "boolean", "int", "long", "float", "double", "bytes", "string"};

static bool schema_ok(schema_check *c, const json_t *s, const char *ns) {
  if (++c->depth > 64) return c->why = "schemas nested too deeply", false;
  bool ok = false;
  if (json_is_string(s)) {
    const char *t = json_string_value(s);
    for (size_t i = 0; i < sizeof PRIMITIVES / sizeof PRIMITIVES[0] && !ok; i++) ok = strcmp(t, PRIMITIVES[i]) == 0;
    if (!ok) {
      char *full = ns && *ns && !strchr(t, '.') ? wr_asprintf("%s.%s", ns, t) : wr_strdup(t);
      ok = json_object_get(c->named, full) || json_object_get(c->named, t);
      free(full);
      if (!ok) c->why = "a reference to an undefined type";
    }
  } else if (json_is_array(s)) {
    size_t i;
    json_t *b;
    json_t *seen = json_object();
    ok = json_array_size(s) > 0;
    json_array_foreach(s, i, b) {
      if (!ok) break;
      if (json_is_array(b)) {
        ok = false, c->why = "a union inside a union";
        break;
      }
      const char *key = json_is_string(b) ? json_string_value(b) : wr_json_str(b, "type", "");
      if (json_is_object(b) && (strcmp(key, "record") == 0 || strcmp(key, "enum") == 0 || strcmp(key, "fixed") == 0))
        key = wr_json_str(b, "name", "");
      if (json_object_get(seen, key)) {
        ok = false, c->why = "a union with a type twice";
        break;
      }
      json_object_set_new(seen, key, json_true());
      ok = schema_ok(c, b, ns);
    }
    json_decref(seen);
    if (json_array_size(s) == 0) c->why = "an empty union";
  } else if (json_is_object(s)) {
    const char *t = wr_json_str(s, "type", NULL);
    char *full = NULL;
    if (!t) {
      c->why = "a schema without a type";
    } else if (strcmp(t, "record") == 0 || strcmp(t, "error") == 0) {
      const json_t *fields = json_object_get(s, "fields");
      if (!json_is_array(fields)) {
        c->why = "a record without fields";
      } else if (define_name(c, s, ns, &full)) {
        const char *dot = strrchr(full, '.');
        char *inner = dot ? wr_strndup(full, (size_t)(dot - full)) : NULL;
        json_t *names = json_object();
        size_t i;
        json_t *f;
        ok = true;
        json_array_foreach(fields, i, f) {
          const char *fname = wr_json_str(f, "name", NULL);
          if (!avro_name_ok(fname) || strchr(fname, '.')) {
            ok = false, c->why = "a bad field name";
            break;
          }
          if (json_object_get(names, fname)) {
            ok = false, c->why = "a record with two fields of one name";
            break;
          }
          json_object_set_new(names, fname, json_true());
          if (!json_object_get(f, "type") || !schema_ok(c, json_object_get(f, "type"), inner)) {
            if (!json_object_get(f, "type")) c->why = "a field without a type";
            ok = false;
            break;
          }
        }
        json_decref(names);
        free(inner);
      }
    } else if (strcmp(t, "enum") == 0) {
      const json_t *syms = json_object_get(s, "symbols");
      if (!json_is_array(syms) || json_array_size(syms) == 0) {
        c->why = "an enum without symbols";
      } else if (define_name(c, s, ns, &full)) {
        json_t *names = json_object();
        size_t i;
        json_t *y;
        ok = true;
        json_array_foreach(syms, i, y) {
          if (!json_is_string(y) || !avro_name_ok(json_string_value(y)) || json_object_get(names, json_string_value(y))) {
            ok = false, c->why = "a bad or repeated enum symbol";
            break;
          }
          json_object_set_new(names, json_string_value(y), json_true());
        }
        json_decref(names);
      }
    } else if (strcmp(t, "fixed") == 0) {
      json_t *size = json_object_get(s, "size");
      if (!json_is_integer(size) || json_integer_value(size) < 0 || json_integer_value(size) > INT32_MAX)
        c->why = "a fixed type without a valid size";
      else ok = define_name(c, s, ns, &full);
    } else if (strcmp(t, "array") == 0) {
      ok = json_object_get(s, "items") && schema_ok(c, json_object_get(s, "items"), ns);
      if (!json_object_get(s, "items")) c->why = "an array without items";
    } else if (strcmp(t, "map") == 0) {
      ok = json_object_get(s, "values") && schema_ok(c, json_object_get(s, "values"), ns);
      if (!json_object_get(s, "values")) c->why = "a map without values";
    } else {
      ok = schema_ok(c, json_object_get(s, "type"), ns); /* {"type": "long"} and the like */
    }
    free(full);
  } else {
    c->why = "a schema that is not a name, an object or a union";
  }
  c->depth--;
  return ok;
}

static int check_schema(const iceberg_avro_reader *r, const char *schema, weir_error *err) {
  json_error_t je;
  json_t *s = json_loads(schema, JSON_REJECT_DUPLICATES, &je);
  if (!s)
    return wr_seterr(err, WEIR_EINPUT, "%s: invalid Avro schema in the header: not JSON (%s)", r->origin, je.text);
  schema_check c = {json_object(), 0, NULL};
  bool ok = schema_ok(&c, s, NULL);
  json_decref(c.named);
  json_decref(s);
  if (!ok)
    return wr_seterr(err, WEIR_EINPUT, "%s: invalid Avro schema in the header: %s", r->origin,
                       c.why ? c.why : "refused");
  return WEIR_OK;
}

static int parse_header(iceberg_avro_reader *r, weir_error *err) {
  const uint8_t *d = (const uint8_t *)r->data;
  size_t pos = 0;
  if (r->len < 4 || memcmp(d, ICEBERG_AVRO_MAGIC, 4) != 0)
    return bad(r, err, "it does not start with the Avro magic bytes \"Obj\\x01\"");
  pos = 4;
  r->meta = json_object();
  for (;;) {
    int64_t count;
    if (!get_long(d, r->len, &pos, &count)) return bad(r, err, "truncated header metadata");
    if (count == 0) break;
    if (count < 0) {
      int64_t block_size;
      if (count == INT64_MIN || !get_long(d, r->len, &pos, &block_size))
        return bad(r, err, "truncated header metadata");
      count = -count;
    }
    for (int64_t i = 0; i < count; i++) {
      int64_t klen, vlen;
      if (!get_long(d, r->len, &pos, &klen) || klen < 0 || (uint64_t)klen > r->len - pos)
        return bad(r, err, "truncated header metadata key");
      const char *key = (const char *)d + pos;
      pos += (size_t)klen;
      if (!get_long(d, r->len, &pos, &vlen) || vlen < 0 || (uint64_t)vlen > r->len - pos)
        return bad(r, err, "truncated header metadata value");
      const char *val = (const char *)d + pos;
      pos += (size_t)vlen;
      char *k = wr_strndup(key, (size_t)klen);
      json_t *v = json_stringn(val, (size_t)vlen);
      if (!v) {
        int rc = wr_seterr(err, WEIR_EINPUT,
                             "%s: Avro header metadata \"%s\" is not UTF-8 text", r->origin, k);
        free(k);
        return rc;
      }
      json_object_set_new(r->meta, k, v);
      free(k);
    }
  }
  if (r->len - pos < ICEBERG_AVRO_SYNC_SIZE) return bad(r, err, "truncated sync marker");
  memcpy(r->sync, d + pos, ICEBERG_AVRO_SYNC_SIZE);
  pos += ICEBERG_AVRO_SYNC_SIZE;
  r->pos = pos;

  const char *schema = iceberg_avro_reader_meta(r, "avro.schema");
  if (!schema) return bad(r, err, "the header has no avro.schema");
  int crc = check_schema(r, schema, err);
  if (crc) return crc;
  if (avro_schema_from_json_length(schema, strlen(schema), &r->schema) != 0) {
    r->schema = NULL;
    return wr_seterr(err, WEIR_EINPUT, "%s: invalid Avro schema in the header: %s", r->origin,
                       avro_strerror());
  }
  r->iface = avro_generic_class_from_schema(r->schema);
  if (!r->iface || avro_generic_value_new(r->iface, &r->value) != 0) {
    if (r->iface) avro_value_iface_decref(r->iface);
    r->iface = NULL;
    return wr_seterr(err, WEIR_EINPUT, "%s: cannot decode records of its Avro schema: %s",
                       r->origin, avro_strerror());
  }
  r->codec = iceberg_avro_reader_meta(r, "avro.codec");
  if (!r->codec) r->codec = "null";
  if (strcmp(r->codec, "null") != 0 && strcmp(r->codec, "deflate") != 0) {
    /* snappy (and avro-c's "lzma"): avro-c's file reader does the whole body (and re-reads
     * the header); its blocks are not checked first (see check_block). Any other codec is
     * refused here: avro-c's avro_file_reader_fp leaks the value class it made for the
     * schema when it then fails on a codec it does not know. */
    if (strcmp(r->codec, "snappy") != 0 && strcmp(r->codec, "lzma") != 0)
      return wr_seterr(err, WEIR_EINPUT,
                         "%s: Avro codec \"%s\" is not supported (weir reads null, deflate and snappy)",
                         r->origin, r->codec);
    FILE *fp = fmemopen(r->data, r->len, "rb");
    if (!fp)
      return wr_seterr(err, WEIR_EIO, "%s: cannot open it in memory: %s", r->origin,
                         strerror(errno));
    if (avro_file_reader_fp(fp, r->origin, 1, &r->file_reader) != 0) {
      r->file_reader = NULL;
      return wr_seterr(err, WEIR_EINPUT, "%s: cannot read its %s-compressed Avro blocks: %s",
                         r->origin, r->codec, avro_strerror());
    }
  }
  return WEIR_OK;
}

int iceberg_avro_reader_open_mem(iceberg_avro_reader *r, const void *data, size_t len,
                                 const char *origin, weir_error *err) {
  memset(r, 0, sizeof *r);
  r->origin = wr_strdup(origin ? origin : "<avro>");
  r->data = wr_malloc(len + 1);
  if (len) memcpy(r->data, data, len);
  r->data[len] = '\0';
  r->len = len;
  int rc = parse_header(r, err);
  if (rc != WEIR_OK) iceberg_avro_reader_close(r);
  return rc;
}

int iceberg_avro_reader_open(iceberg_avro_reader *r, const char *path, weir_error *err) {
  memset(r, 0, sizeof *r);
  char *data = NULL;
  size_t len = 0;
  int rc = wr_storage_read(path, &data, &len, err);
  if (rc != WEIR_OK) return rc;
  r->origin = wr_strdup(path);
  r->data = data;
  r->len = len;
  rc = parse_header(r, err);
  if (rc != WEIR_OK) iceberg_avro_reader_close(r);
  return rc;
}

const char *iceberg_avro_reader_meta(const iceberg_avro_reader *r, const char *key) {
  return r->meta ? json_string_value(json_object_get(r->meta, key)) : NULL;
}

/* ---- checking a block before avro-c decodes it ---------------------------------------- */

/*
 * avro-c 1.11.1 (Debian 12's libavro23) leaks on data that ends early: its read_string and
 * read_bytes (encoding_binary.c) allocate the length the data claims plus one byte, then
 * return through AVRO_READ on the short read without freeing it (a 42-byte string cut
 * short leaks 43 bytes), and avro_value_read offers no way to get the buffer back. Later
 * avro-c releases free it (AVRO_READ_OR_FREE). avro-c also allocates whatever length or
 * item count the data claims before reading it, and decodes nested data recursively.
 *
 * So no block reaches avro-c before it is known to be whole: check_datum walks the
 * writer schema over the block's bytes and refuses the block unless its records use
 * exactly its bytes, every length fits in what is left, every union branch and enum
 * symbol exists, nesting stays under CHECK_DEPTH_MAX and the items of arrays and maps stay
 * within a budget of the block's size (an item of a zero-width type, such as null, takes
 * no bytes, so a count alone could otherwise ask for billions). avro-c then never reads
 * past the end of its input and never sees a length larger than the block.
 */
#define CHECK_DEPTH_MAX        64
#define CHECK_ZERO_WIDTH_ITEMS (1 << 16)

typedef struct block_check {
  const uint8_t *d;
  size_t len;
  size_t pos;
  int64_t items_left; /* array/map items (and records) the block may still hold */
} block_check;

static avro_schema_t resolve_link(avro_schema_t s) {
  for (int i = 0; s && is_avro_link(s) && i < CHECK_DEPTH_MAX; i++) s = avro_schema_link_target(s);
  return s && !is_avro_link(s) ? s : NULL;
}

/* True when a datum of schema s takes no bytes (null, a record of such, fixed(0)). */
static bool zero_width(avro_schema_t s, int depth) {
  s = resolve_link(s);
  if (!s || depth > CHECK_DEPTH_MAX) return false;
  switch (avro_typeof(s)) {
  case AVRO_NULL: return true;
  case AVRO_FIXED: return avro_schema_fixed_size(s) == 0;
  case AVRO_RECORD:
    for (size_t i = 0; i < avro_schema_record_size(s); i++)
      if (!zero_width(avro_schema_record_field_get_by_index(s, (int)i), depth + 1)) return false;
    return true;
  default: return false;
  }
}

static bool check_bytes(block_check *b, int64_t n) {
  if (n < 0 || (uint64_t)n > b->len - b->pos) return false;
  b->pos += (size_t)n;
  return true;
}

static bool check_datum(block_check *b, avro_schema_t s, int depth);

/* The blocks of an array or map: counts, an optional byte size, then the items. */
static bool check_items(block_check *b, avro_schema_t items, bool map, int depth) {
  bool zw = zero_width(items, depth) && !map;
  for (;;) {
    int64_t count, size;
    if (!get_long(b->d, b->len, &b->pos, &count)) return false;
    if (count == 0) return true;
    if (count < 0) {
      if (count == INT64_MIN || !get_long(b->d, b->len, &b->pos, &size) || size < 0) return false;
      count = -count;
    }
    /* Each item takes a byte at least, unless it is of a zero-width type. */
    if ((!zw && (uint64_t)count > b->len - b->pos) || count > b->items_left) return false;
    b->items_left -= count;
    for (int64_t i = 0; i < count; i++) {
      if (map) {
        int64_t klen;
        if (!get_long(b->d, b->len, &b->pos, &klen) || !check_bytes(b, klen)) return false;
      }
      if (!check_datum(b, items, depth + 1)) return false;
    }
  }
}

static bool check_datum(block_check *b, avro_schema_t s, int depth) {
  s = resolve_link(s);
  if (!s || depth > CHECK_DEPTH_MAX) return false;
  int64_t n;
  switch (avro_typeof(s)) {
  case AVRO_NULL: return true;
  case AVRO_BOOLEAN: return check_bytes(b, 1);
  case AVRO_INT32: return get_long(b->d, b->len, &b->pos, &n) && n >= INT32_MIN && n <= INT32_MAX;
  case AVRO_INT64: return get_long(b->d, b->len, &b->pos, &n);
  case AVRO_FLOAT: return check_bytes(b, 4);
  case AVRO_DOUBLE: return check_bytes(b, 8);
  case AVRO_STRING:
  case AVRO_BYTES: return get_long(b->d, b->len, &b->pos, &n) && check_bytes(b, n);
  case AVRO_FIXED: return check_bytes(b, avro_schema_fixed_size(s));
  case AVRO_ENUM:
    return get_long(b->d, b->len, &b->pos, &n) && n >= 0 && n < avro_schema_enum_number_of_symbols(s);
  case AVRO_UNION:
    if (!get_long(b->d, b->len, &b->pos, &n) || n < 0 || (uint64_t)n >= avro_schema_union_size(s))
      return false;
    return check_datum(b, avro_schema_union_branch(s, (int)n), depth + 1);
  case AVRO_RECORD:
    for (size_t i = 0; i < avro_schema_record_size(s); i++)
      if (!check_datum(b, avro_schema_record_field_get_by_index(s, (int)i), depth + 1)) return false;
    return true;
  case AVRO_ARRAY: return check_items(b, avro_schema_array_items(s), false, depth);
  case AVRO_MAP: return check_items(b, avro_schema_map_values(s), true, depth);
  default: return false;
  }
}

/* True when `count` records of the writer schema use exactly the block's `len` bytes. */
static bool check_block(const iceberg_avro_reader *r, const char *block, size_t len, int64_t count) {
  block_check b = {(const uint8_t *)block, len, 0, (int64_t)len + CHECK_ZERO_WIDTH_ITEMS};
  if (count > b.items_left) return false;
  b.items_left -= count;
  for (int64_t i = 0; i < count; i++)
    if (!check_datum(&b, r->schema, 0)) return false;
  return b.pos == len;
}

/* A deflate block (raw RFC 1951 data, as the Avro spec has it) inflated into r->plain. A
 * block inflating to more than INFLATE_MAX bytes is refused (Java closes blocks at 1 MiB
 * of records; a small block that inflates to gigabytes is a bomb, not a manifest). */
#define INFLATE_MAX ((size_t)64 << 20)

static bool inflate_block(iceberg_avro_reader *r, const char *data, size_t len) {
  wr_buf_clear(&r->plain);
  z_stream z;
  memset(&z, 0, sizeof z);
  if (inflateInit2(&z, -15) != Z_OK) return false;
  z.next_in = (Bytef *)(uintptr_t)data;
  z.avail_in = (uInt)len;
  int zr = Z_OK;
  while (zr == Z_OK) {
    if (r->plain.len >= INFLATE_MAX) break;
    wr_buf_reserve(&r->plain, 64 << 10);
    size_t room = r->plain.cap - r->plain.len - 1;
    z.next_out = (Bytef *)r->plain.data + r->plain.len;
    z.avail_out = (uInt)room;
    zr = inflate(&z, Z_NO_FLUSH);
    r->plain.len += room - z.avail_out;
    if (zr == Z_BUF_ERROR && z.avail_in == 0) break; /* input ends without a final block */
  }
  inflateEnd(&z);
  /* pyiceberg frames its deflate blocks as zlib.compress(data)[2:-1]: the raw stream
   * followed by three bytes of the zlib trailer (Adler-32). Java and Python readers stop
   * at the end of the deflate stream, so a few trailing bytes are tolerated; more would
   * be a corrupt block. */
  return zr == Z_STREAM_END && z.avail_in <= 4 && r->plain.len <= INFLATE_MAX;
}

/* Starts the next block (null or deflate codec); false at the end of the file. */
static int next_block(iceberg_avro_reader *r, bool *more, weir_error *err) {
  const uint8_t *d = (const uint8_t *)r->data;
  *more = false;
  for (;;) {
    if (r->pos == r->len) return WEIR_OK;
    int64_t count, size;
    if (!get_long(d, r->len, &r->pos, &count) || count < 0)
      return bad(r, err, "bad block record count");
    if (!get_long(d, r->len, &r->pos, &size) || size < 0 ||
        (uint64_t)size > r->len - r->pos ||
        r->len - r->pos - (size_t)size < ICEBERG_AVRO_SYNC_SIZE)
      return bad(r, err, "truncated block");
    const char *block = r->data + r->pos;
    r->pos += (size_t)size;
    if (memcmp(d + r->pos, r->sync, ICEBERG_AVRO_SYNC_SIZE) != 0)
      return bad(r, err, "a block does not end with the file's sync marker");
    r->pos += ICEBERG_AVRO_SYNC_SIZE;
    if (count == 0) continue;
    if (strcmp(r->codec, "deflate") == 0) {
      if (!inflate_block(r, block, (size_t)size)) return bad(r, err, "a deflate block does not inflate");
      block = r->plain.data ? r->plain.data : "";
      size = (int64_t)r->plain.len;
    }
    if (!check_block(r, block, (size_t)size, count))
      return wr_seterr(err, WEIR_EINPUT,
                         "%s: not a valid Avro file: the %lld records of a block do not match the "
                         "file's schema (truncated, too long or corrupt)",
                         r->origin, (long long)count);
    if (r->block_reader)
      avro_reader_memory_set_source(r->block_reader, block, size);
    else
      r->block_reader = avro_reader_memory(block, size);
    r->block_left = count;
    *more = true;
    return WEIR_OK;
  }
}

int iceberg_avro_reader_next(iceberg_avro_reader *r, avro_value_t **rec, weir_error *err) {
  *rec = NULL;
  if (r->file_reader) {
    int rc = avro_file_reader_read_value(r->file_reader, &r->value);
    if (rc == EOF) return WEIR_OK;
    if (rc != 0)
      return wr_seterr(err, WEIR_EINPUT, "%s: cannot decode record %lld: %s", r->origin,
                         (long long)r->records_read + 1, avro_strerror());
    r->records_read++;
    *rec = &r->value;
    return WEIR_OK;
  }
  if (r->block_left == 0) {
    if (r->block_reader) {
      /* The block must have been consumed exactly by its records. */
      char extra;
      if (avro_read(r->block_reader, &extra, 1) == 0)
        return bad(r, err, "a block is longer than its records");
    }
    bool more = false;
    int rc = next_block(r, &more, err);
    if (rc != WEIR_OK || !more) return rc;
  }
  if (avro_value_read(r->block_reader, &r->value) != 0)
    return wr_seterr(err, WEIR_EINPUT, "%s: cannot decode record %lld: %s", r->origin,
                       (long long)r->records_read + 1, avro_strerror());
  r->block_left--;
  r->records_read++;
  *rec = &r->value;
  return WEIR_OK;
}

void iceberg_avro_reader_close(iceberg_avro_reader *r) {
  if (!r) return;
  if (r->file_reader) avro_file_reader_close(r->file_reader);
  if (r->block_reader) avro_reader_free(r->block_reader);
  if (r->iface) {
    avro_value_decref(&r->value);
    avro_value_iface_decref(r->iface);
  }
  if (r->schema) avro_schema_decref(r->schema);
  json_decref(r->meta);
  wr_buf_free(&r->plain);
  free(r->data);
  free(r->origin);
  memset(r, 0, sizeof *r);
}

/* ---- typed field access ------------------------------------------------------------ */

bool iceberg_avro_field(avro_value_t *rec, const char *name, avro_value_t *out) {
  avro_value_t v;
  if (avro_value_get_by_name(rec, name, &v, NULL) != 0) return false;
  if (avro_value_get_type(&v) == AVRO_UNION) {
    avro_value_t branch;
    if (avro_value_get_current_branch(&v, &branch) != 0) return false;
    v = branch;
  }
  if (avro_value_get_type(&v) == AVRO_NULL) return false;
  *out = v;
  return true;
}

bool iceberg_avro_get_long(avro_value_t *rec, const char *name, int64_t *out) {
  avro_value_t v;
  if (!iceberg_avro_field(rec, name, &v)) return false;
  switch (avro_value_get_type(&v)) {
    case AVRO_INT32: {
      int32_t i;
      if (avro_value_get_int(&v, &i) != 0) return false;
      *out = i;
      return true;
    }
    case AVRO_INT64:
      return avro_value_get_long(&v, out) == 0;
    default:
      return false;
  }
}

bool iceberg_avro_get_string(avro_value_t *rec, const char *name, const char **out) {
  avro_value_t v;
  size_t size;
  if (!iceberg_avro_field(rec, name, &v) || avro_value_get_type(&v) != AVRO_STRING) return false;
  return avro_value_get_string(&v, out, &size) == 0;
}

bool iceberg_avro_get_bytes(avro_value_t *rec, const char *name, const void **out, size_t *len) {
  avro_value_t v;
  if (!iceberg_avro_field(rec, name, &v) || avro_value_get_type(&v) != AVRO_BYTES) return false;
  return avro_value_get_bytes(&v, out, len) == 0;
}

bool iceberg_avro_get_bool(avro_value_t *rec, const char *name, bool *out) {
  avro_value_t v;
  int b;
  if (!iceberg_avro_field(rec, name, &v) || avro_value_get_type(&v) != AVRO_BOOLEAN) return false;
  if (avro_value_get_boolean(&v, &b) != 0) return false;
  *out = b != 0;
  return true;
}
