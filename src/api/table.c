/*
 * table.c -- weir_table_*: listing, describing, importing into, reverting, compacting and deleting
 * rows of tables.
 */
#include "api/api.h"
#include "lake/lake.h"

int weir_import_options_init(weir_import_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_IMPORT_OPTIONS_VERSION);
}

/* Shared with weir_run_revert (run.c): both revert, one a table and one a run's tables. */
int weir_revert_options_init(weir_revert_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_REVERT_OPTIONS_VERSION);
}

int weir_table_list(weir_lake *lake, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_list");
  return lake_table_list(lake, ref, out_json, err);
}

int weir_table_describe(weir_lake *lake, const char *table, const char *ref, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_describe");
  return lake_table_describe(lake, table, ref, out_json, err);
}

int weir_table_revert(weir_lake *lake, const char *table, const char *to_ref, const char *branch, const weir_revert_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_revert");
  API_CHECK_OPTS(opts, "weir_revert_options", WEIR_REVERT_OPTIONS_VERSION);
  API_WRITE(lake, lake_table_revert(lake, table, to_ref, branch, opts, out_json, err));
}

int weir_table_import(weir_lake *lake, const char *file, const weir_import_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_import");
  API_CHECK_OPTS(opts, "weir_import_options", WEIR_IMPORT_OPTIONS_VERSION);
  API_WRITE(lake, lake_table_import(lake, file, opts, out_json, err));
}

int weir_table_import_arrow(weir_lake *lake, struct ArrowArrayStream *stream, const weir_import_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_import_arrow");
  API_CHECK_OPTS(opts, "weir_import_options", WEIR_IMPORT_OPTIONS_VERSION);
  API_WRITE(lake, lake_table_import_arrow(lake, stream, opts, out_json, err));
}

int weir_table_drop(weir_lake *lake, const char *table, const char *branch, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_drop");
  API_WRITE(lake, lake_table_drop(lake, table, branch, out_json, err));
}

int weir_table_rename(weir_lake *lake, const char *table, const char *new_name, const char *branch,
                      char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_rename");
  API_WRITE(lake, lake_table_rename(lake, table, new_name, branch, out_json, err));
}

int weir_table_log(weir_lake *lake, const char *ref, const char *table, int64_t max_count, char **out_json,
                   weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_log");
  if (!table) return wr_seterr(err, WEIR_EINVALIDARG, "weir_table_log: no table given");
  if (max_count < 0) return wr_seterr(err, WEIR_EINVALIDARG, "weir_table_log: max_count must be 0 or more, not %lld",
                                      (long long)max_count);
  return lake_table_log(lake, ref, table, max_count, out_json, err);
}

int weir_compact_options_init(weir_compact_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_COMPACT_OPTIONS_VERSION);
}

int weir_table_compact(weir_lake *lake, const char *table, const weir_compact_options *opts, char **out_json,
                       weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_compact");
  API_CHECK_OPTS(opts, "weir_compact_options", WEIR_COMPACT_OPTIONS_VERSION);
  if (!table || !out_json) return wr_seterr(err, WEIR_EINVALIDARG, "weir_table_compact: table and out_json are required");
  API_WRITE(lake, lake_table_compact(lake, table, opts, out_json, err));
}

int weir_register_options_init(weir_register_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_REGISTER_OPTIONS_VERSION);
}

int weir_table_register(weir_lake *lake, const char *table, const char *metadata,
                        const weir_register_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_register");
  API_CHECK_OPTS(opts, "weir_register_options", WEIR_REGISTER_OPTIONS_VERSION);
  API_WRITE(lake, lake_table_register(lake, table, metadata, opts, out_json, err));
}

int weir_table_register_files(weir_lake *lake, const char *table, const char *const *paths, size_t n_paths,
                              const weir_register_options *opts, char **out_json, weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_register_files");
  API_CHECK_OPTS(opts, "weir_register_options", WEIR_REGISTER_OPTIONS_VERSION);
  API_WRITE(lake, lake_table_register_files(lake, table, paths, n_paths, opts, out_json, err));
}

int weir_delete_options_init(weir_delete_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_DELETE_OPTIONS_VERSION);
}

int weir_table_delete(weir_lake *lake, const char *table, const weir_delete_options *opts, char **out_json,
                      weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_delete");
  API_CHECK_OPTS(opts, "weir_delete_options", WEIR_DELETE_OPTIONS_VERSION);
  if (!table || !out_json) return wr_seterr(err, WEIR_EINVALIDARG, "weir_table_delete: table and out_json are required");
  API_WRITE(lake, lake_table_delete(lake, table, opts, out_json, err));
}

int weir_alter_options_init(weir_alter_options *opts, unsigned int version) {
  return api_options_init(opts, sizeof *opts, version, WEIR_ALTER_OPTIONS_VERSION);
}

int weir_table_alter(weir_lake *lake, const char *table, const weir_alter_options *opts, char **out_json,
                     weir_error *err) {
  API_CHECK_LAKE(lake, "weir_table_alter");
  API_CHECK_OPTS(opts, "weir_alter_options", WEIR_ALTER_OPTIONS_VERSION);
  if (!table || !opts || !out_json)
    return wr_seterr(err, WEIR_EINVALIDARG, "weir_table_alter: table, opts and out_json are required");
  if (opts->n_changes > 0 && !opts->changes)
    return wr_seterr(err, WEIR_EINVALIDARG, "weir_table_alter: opts->changes is NULL but n_changes is %zu",
                     opts->n_changes);
  API_WRITE(lake, lake_table_alter(lake, table, opts, out_json, err));
}
