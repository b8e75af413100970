/*
 * server.c -- weir_server_*: the Iceberg REST catalog server (docs/serve.md).
 */
#include "api/api.h"
#include "serve/serve.h"

int weir_serve_options_init(weir_serve_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_SERVE_OPTIONS_VERSION);
}

int weir_server_start(const char *lake_path, const weir_serve_options *opts, weir_server **out, weir_error *err) {
  API_CHECK_OPTS(opts, "weir_serve_options", WEIR_SERVE_OPTIONS_VERSION);
  return serve_server_start(lake_path, opts, out, err);
}

int weir_server_port(const weir_server *srv) {
  return serve_server_port(srv);
}

void weir_server_stop(weir_server *srv) {
  serve_server_stop(srv);
}
