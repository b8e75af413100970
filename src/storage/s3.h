/*
 * s3.h -- the S3 request layer of the storage module (s3.c); storage.c builds the
 * object operations on it. Internal to src/storage.
 */
#ifndef WEIR_STORAGE_S3_H
#define WEIR_STORAGE_S3_H

#include <stdint.h>
#include "storage/s3_internal.h"

typedef struct wr_s3_request_args {
  const char *op;        /* for messages: "GET", "PUT", "LIST", ... */
  const char *method;    /* HTTP method */
  const char *bucket;
  const char *key;       /* "" for the bucket itself */
  const char *query;     /* already encoded and sorted, or NULL */
  const void *body;      /* PUT payload */
  size_t body_len;
  bool if_none_match;    /* send If-None-Match: * */
  bool raw_status;       /* return WEIR_OK for any HTTP status (the caller reads it) */
} wr_s3_request_args;

typedef struct wr_s3_response {
  long status;
  wr_buf body;
} wr_s3_response;

/* One request, retried on 5xx and transport failures. Without raw_status, a status of
 * 300 or more is an error (wr_s3_status_error). */
int wr_s3_request(const wr_s3_request_args *a, wr_s3_response *resp, weir_error *err);
int wr_s3_status_error(const wr_s3_request_args *a, const wr_s3_response *resp, const wr_s3_config *c,
                       weir_error *err);
void wr_s3_response_clear(wr_s3_response *r);
/* One listed object (ListObjectsV2): "s3://bucket/key", Size, LastModified. */
typedef struct wr_s3_object {
  char *location;
  int64_t size;
  int64_t mtime_us; /* UTC microseconds; INT64_MAX when the server gave none that parses */
} wr_s3_object;
/* Every object under `prefix`, in S3's (byte) order, with size and modification time. */
int wr_s3_list_objects(const char *bucket, const char *prefix, wr_s3_object **out, size_t *n, weir_error *err);
/* Every key under `prefix` as "s3://bucket/key", in S3's (byte) order. */
int wr_s3_list(const char *bucket, const char *prefix, char ***out, size_t *n, weir_error *err);
/* A copy of the process-wide configuration (resolved on first use). */
int wr_s3_config_get(wr_s3_config *out, weir_error *err);
void wr_s3_reconfigure(void);
char *wr_s3_xml_text(const char *xml, const char *tag, const char **after);

#endif
