/*
 * s3_internal.h -- what the S3 files of the storage module share: the resolved
 * configuration (s3_config.c) and the request layer (s3.c).
 */
#ifndef WEIR_STORAGE_S3_INTERNAL_H
#define WEIR_STORAGE_S3_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include "util/buf.h"
#include "util/error.h"

/* Where requests go and how they are signed, resolved as the AWS CLI and SDKs do:
 *   credentials  AWS_ACCESS_KEY_ID + AWS_SECRET_ACCESS_KEY (+ AWS_SESSION_TOKEN); else the
 *                profile (AWS_PROFILE, default "default") in the shared credentials file
 *                (AWS_SHARED_CREDENTIALS_FILE, default ~/.aws/credentials); else that
 *                profile in the config file (AWS_CONFIG_FILE, default ~/.aws/config,
 *                section [profile NAME] or [default])
 *   region       AWS_REGION, AWS_DEFAULT_REGION, the profile's `region`, "us-east-1"
 *   endpoint     AWS_ENDPOINT_URL_S3, AWS_ENDPOINT_URL, the profile's `endpoint_url`;
 *                none: AWS itself, virtual-hosted ("https://BUCKET.s3.REGION.amazonaws.com")
 * A custom endpoint is addressed path-style (ENDPOINT/BUCKET/KEY), which every
 * S3-compatible server accepts. */
typedef struct wr_s3_config {
  char *access_key;      /* NULL: none found (requests then fail, saying where we looked) */
  char *secret_key;
  char *session_token;   /* NULL when none */
  char *region;
  char *endpoint;        /* "http://127.0.0.1:9000" (no trailing '/'), NULL for AWS */
  char *credentials_source; /* "environment", "profile default (~/.aws/credentials)" */
} wr_s3_config;

int wr_s3_config_resolve(wr_s3_config *out, weir_error *err);
void wr_s3_config_clear(wr_s3_config *c);

#endif
