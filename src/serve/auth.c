/*
 * auth.c -- bearer tokens (made by `weir token create`, stored hashed in the catalog) and
 * what each may reach: every route needs a valid token (401 otherwise, as the spec's
 * UnauthorizedResponse); a read-only token cannot write (403); a token with a branch
 * pattern reaches only refs whose name matches it, and a ref it may not reach is answered
 * as if it did not exist (404), so a token cannot probe for other branches' names.
 */
#include <string.h>
#include <strings.h>

#include "serve/serve.h"

bool rest_authenticate(weir_lake *lake, const char *authorization, catalog_token_row *out, rest_response *resp) {
  memset(out, 0, sizeof *out);
  const char *secret = NULL;
  if (authorization && strncasecmp(authorization, "Bearer ", 7) == 0) {
    secret = authorization + 7;
    while (*secret == ' ') secret++;
  }
  if (!secret || !*secret) {
    rest_respond_error(resp, 401, "NotAuthorizedException", NULL,
                       "missing bearer token: send \"Authorization: Bearer <token>\" with a token from `weir token "
                       "create` (Spark: spark.sql.catalog.<name>.token; pyiceberg: token=)");
    return false;
  }
  bool found = false;
  weir_error err = {0};
  if (catalog_token_verify(lake->cat, secret, out, &found, &err)) {
    rest_respond_weir_error(resp, &err, NULL);
    weir_error_clear(&err);
    return false;
  }
  if (!found) {
    rest_respond_error(resp, 401, "NotAuthorizedException", NULL, "invalid or revoked token");
    return false;
  }
  return true;
}

bool rest_authorize(const catalog_token_row *t, const rest_ref *ref, bool write, rest_response *resp) {
  bool is_hash = !ref->branch && !ref->tag;
  if (!catalog_token_allows_ref(t, ref->name, is_hash)) {
    rest_respond_error(resp, 404, "NoSuchWarehouseException", NULL, "no ref \"%s\" in this lake", ref->name);
    return false;
  }
  if (write && t->read_only) {
    rest_respond_error(resp, 403, "ForbiddenException", NULL, "token \"%s\" is read-only", t->name);
    return false;
  }
  return true;
}
