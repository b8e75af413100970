/*
 * project.c -- finding what a project holds: wr_project.yml, SQL models, YAML
 * contracts, and Python models and schemas (through the SDK's discovery, which is the
 * only thing that can read Python classes faithfully).
 *
 * Problems in project files are collected, not returned one by one, so that `weir check`
 * reports all of them at once.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <yaml.h>

#include "pipeline/pipeline.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hash.h"
#include "util/json.h"

void pipeline_problem(wr_project *p, const char *file, int line, const char *model,
                      const char *column, const char *expected, const char *found,
                      const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char msg[2048];
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  json_t *o = json_object();
  /* Problems quote the project's files, which can hold any bytes: wr_json_text keeps
   * every key present (json_string would drop one that is not UTF-8). */
  json_object_set_new(o, "file", wr_json_text(file));
  json_object_set_new(o, "line", line > 0 ? json_integer(line) : json_null());
  json_object_set_new(o, "model", wr_json_text(model));
  json_object_set_new(o, "column", wr_json_text(column));
  json_object_set_new(o, "expected", wr_json_text(expected));
  json_object_set_new(o, "found", wr_json_text(found));
  json_object_set_new(o, "message", wr_json_text(msg));
  json_array_append_new(p->problems, o);
}

static void model_clear(pipeline_model *m) {
  free(m->name);
  free(m->file);
  free(m->sql);
  free(m->function);
  free(m->output_schema_name);
  json_decref(m->partition_by);
  free(m->doc);
  json_decref(m->python);
  for (size_t i = 0; i < m->n_inputs; i++) {
    model_input *in = &m->inputs[i];
    free(in->param);
    free(in->name);
    free(in->table);
    free(in->filter);
    free(in->ref);
    free(in->schema_name);
    json_decref(in->columns);
  }
  free(m->inputs);
  free(m->table);
  wr_schema_clear(&m->planned);
  json_decref(m->exact_casts);
  json_decref(m->nullability);
}

void pipeline_project_free(wr_project *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n_models; i++) model_clear(&p->models[i]);
  free(p->models);
  for (size_t i = 0; i < p->n_schemas; i++) wr_contract_free(p->schemas[i]);
  free(p->schemas);
  free(p->order);
  json_decref(p->problems);
  json_decref(p->warnings);
  json_decref(p->unloaded);
  json_decref(p->python);
  wr_engine_close(p->engine);
  free(p->dir);
  free(p->name);
  free(p->ns);
  free(p);
}

const weir_contract *pipeline_schema(const wr_project *p, const char *name) {
  if (!name) return NULL;
  for (size_t i = 0; i < p->n_schemas; i++)
    if (p->schemas[i]->name && strcmp(p->schemas[i]->name, name) == 0) return p->schemas[i];
  return NULL;
}

static pipeline_model *add_model(wr_project *p) {
  p->models = wr_realloc(p->models, (p->n_models + 1) * sizeof *p->models);
  pipeline_model *m = &p->models[p->n_models++];
  memset(m, 0, sizeof *m);
  return m;
}

static void add_schema(wr_project *p, weir_contract *c, const char *file) {
  const weir_contract *dup = pipeline_schema(p, c->name);
  if (dup) {
    pipeline_problem(p, file, c->line, NULL, NULL, NULL, NULL,
                     "schema \"%s\" is defined twice (also in %s%s%d)", c->name,
                     dup->origin ? dup->origin : "?", dup->line ? ":" : "", dup->line);
    wr_contract_free(c);
    return;
  }
  p->schemas = wr_realloc(p->schemas, (p->n_schemas + 1) * sizeof *p->schemas);
  p->schemas[p->n_schemas++] = c;
}

/* Sorted names of regular files in `dir` with one of the given suffixes. */
static char **list_files(const char *dir, const char *suf1, const char *suf2, size_t *n) {
  *n = 0;
  DIR *d = opendir(dir);
  if (!d) return NULL;
  char **names = NULL;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    const char *nm = e->d_name;
    if (nm[0] == '.' || nm[0] == '_') continue;
    size_t len = strlen(nm);
    bool match = false;
    for (int k = 0; k < 2; k++) {
      const char *suf = k ? suf2 : suf1;
      if (suf && len > strlen(suf) && strcmp(nm + len - strlen(suf), suf) == 0) match = true;
    }
    if (!match) continue;
    char *full = wr_path_join(dir, nm);
    bool reg = wr_fs_exists(full) && !wr_fs_is_dir(full);
    free(full);
    if (!reg) continue;
    names = wr_realloc(names, (*n + 1) * sizeof *names);
    names[(*n)++] = wr_strdup(nm);
  }
  closedir(d);
  for (size_t i = 1; i < *n; i++)
    for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
      char *t = names[j];
      names[j] = names[j - 1];
      names[j - 1] = t;
    }
  return names;
}

static void free_names(char **v, size_t n) {
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}

/* ---- wr_project.yml ---------------------------------------------------------------- */

/* `python: {version: "3.11", pip: {polars: "1.*"}}` (or `python: "3.11"`) as the JSON
 * spec @weir.python produces; problems are recorded. */
static json_t *python_spec(wr_project *p, yaml_document_t *doc, yaml_node_t *v, int line) {
  if (v && v->type == YAML_SCALAR_NODE)
    return json_pack("{s:s,s:{}}", "version", (const char *)v->data.scalar.value, "pip");
  if (!v || v->type != YAML_MAPPING_NODE) {
    pipeline_problem(p, "weir_project.yml", line, NULL, NULL, NULL, NULL,
                     "weir_project.yml:%d: python: expected {version: \"3.11\", pip: {package: \"spec\"}}", line);
    return NULL;
  }
  json_t *spec = json_pack("{s:{}}", "pip");
  for (yaml_node_pair_t *pair = v->data.mapping.pairs.start; pair < v->data.mapping.pairs.top; pair++) {
    yaml_node_t *k = yaml_document_get_node(doc, pair->key);
    yaml_node_t *val = yaml_document_get_node(doc, pair->value);
    const char *key = k && k->type == YAML_SCALAR_NODE ? (const char *)k->data.scalar.value : "";
    int kl = k ? (int)k->start_mark.line + 1 : line;
    if (strcmp(key, "version") == 0 && val && val->type == YAML_SCALAR_NODE) {
      json_object_set_new(spec, "version", json_string((const char *)val->data.scalar.value));
    } else if (strcmp(key, "pip") == 0 && val && val->type == YAML_MAPPING_NODE) {
      for (yaml_node_pair_t *q = val->data.mapping.pairs.start; q < val->data.mapping.pairs.top; q++) {
        yaml_node_t *pk = yaml_document_get_node(doc, q->key);
        yaml_node_t *pv = yaml_document_get_node(doc, q->value);
        if (pk && pk->type == YAML_SCALAR_NODE && pv && pv->type == YAML_SCALAR_NODE)
          json_object_set_new(json_object_get(spec, "pip"), (const char *)pk->data.scalar.value,
                              json_string((const char *)pv->data.scalar.value));
      }
    } else {
      pipeline_problem(p, "weir_project.yml", kl, NULL, NULL, NULL, NULL,
                       "weir_project.yml:%d: python: unknown or malformed key \"%s\" (expected version and pip)", kl,
                       key);
    }
  }
  return spec;
}

static void load_project_file(wr_project *p) {
  char *path = wr_path_join(p->dir, "weir_project.yml");
  char *text = NULL;
  size_t len = 0;
  weir_error err = {0};
  if (!wr_fs_exists(path) || wr_fs_read(path, &text, &len, &err) != WEIR_OK) {
    weir_error_clear(&err);
    free(path);
    return;
  }
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (!yaml_parser_load(&parser, &doc)) {
    pipeline_problem(p, "weir_project.yml", (int)parser.problem_mark.line + 1, NULL, NULL, NULL, NULL,
                     "weir_project.yml:%d:%d: %s", (int)parser.problem_mark.line + 1,
                     (int)parser.problem_mark.column + 1, parser.problem ? parser.problem : "invalid YAML");
    yaml_parser_delete(&parser);
    free(text);
    free(path);
    return;
  }
  yaml_node_t *root = yaml_document_get_root_node(&doc);
  if (root && root->type == YAML_MAPPING_NODE) {
    for (yaml_node_pair_t *pair = root->data.mapping.pairs.start; pair < root->data.mapping.pairs.top; pair++) {
      yaml_node_t *k = yaml_document_get_node(&doc, pair->key);
      yaml_node_t *v = yaml_document_get_node(&doc, pair->value);
      if (!k || k->type != YAML_SCALAR_NODE) continue;
      const char *key = (const char *)k->data.scalar.value;
      int line = (int)k->start_mark.line + 1;
      const char *val = v && v->type == YAML_SCALAR_NODE ? (const char *)v->data.scalar.value : NULL;
      if (strcmp(key, "name") == 0 && val) {
        free(p->name);
        p->name = wr_strdup(val);
      } else if (strcmp(key, "namespace") == 0 && val) {
        weir_error e2 = {0};
        if (wr_ident_check(val, "namespace", &e2) != WEIR_OK) {
          pipeline_problem(p, "weir_project.yml", line, NULL, NULL, NULL, NULL, "weir_project.yml:%d: %s", line,
                           e2.message);
          weir_error_clear(&e2);
        } else {
          free(p->ns);
          p->ns = wr_strdup(val);
        }
      } else if (strcmp(key, "python") == 0) {
        json_decref(p->python);
        p->python = python_spec(p, &doc, v, line);
      } else if (strcmp(key, "description") == 0) {
        /* free text */
      } else {
        pipeline_problem(p, "weir_project.yml", line, NULL, NULL, NULL, NULL,
                         "weir_project.yml:%d: unknown key \"%s\" (known: name, namespace, description, python)",
                         line, key);
      }
    }
  } else if (root) {
    pipeline_problem(p, "weir_project.yml", 1, NULL, NULL, NULL, NULL,
                     "weir_project.yml: expected a mapping of settings (name, namespace)");
  }
  yaml_document_delete(&doc);
  yaml_parser_delete(&parser);
  free(text);
  free(path);
}

/* ---- YAML contracts ------------------------------------------------------------------ */

/* The `contract: name:` of a contract file that did not load, when its YAML is readable
 * that far (caller frees), else NULL. */
static char *contract_name_of(const char *path) {
  char *text = NULL;
  size_t len = 0;
  weir_error err = {0};
  if (wr_fs_read(path, &text, &len, &err) != WEIR_OK) {
    weir_error_clear(&err);
    return NULL;
  }
  char *name = NULL;
  yaml_parser_t parser;
  yaml_document_t doc;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  if (yaml_parser_load(&parser, &doc)) {
    yaml_node_t *root = yaml_document_get_root_node(&doc);
    for (int depth = 0; root && root->type == YAML_MAPPING_NODE && depth < 2 && !name; depth++) {
      yaml_node_t *next = NULL;
      for (yaml_node_pair_t *pr = root->data.mapping.pairs.start; pr < root->data.mapping.pairs.top; pr++) {
        yaml_node_t *k = yaml_document_get_node(&doc, pr->key), *v = yaml_document_get_node(&doc, pr->value);
        if (!k || k->type != YAML_SCALAR_NODE || !v) continue;
        const char *key = (const char *)k->data.scalar.value;
        if (depth == 0 && strcmp(key, "contract") == 0) next = v;
        if (depth == 1 && strcmp(key, "name") == 0 && v->type == YAML_SCALAR_NODE)
          name = wr_strdup((const char *)v->data.scalar.value);
      }
      root = next;
    }
    yaml_document_delete(&doc);
  }
  yaml_parser_delete(&parser);
  free(text);
  return name;
}

static void load_contracts(wr_project *p) {
  char *cdir = wr_path_join(p->dir, "contracts");
  size_t n = 0;
  char **names = list_files(cdir, ".yml", ".yaml", &n);
  for (size_t i = 0; i < n; i++) {
    char *full = wr_path_join(cdir, names[i]);
    char *rel = wr_asprintf("contracts/%s", names[i]);
    weir_contract *c = NULL;
    weir_error err = {0};
    if (wr_contract_load_file(full, &c, &err) != WEIR_OK) {
      /* The message already names file, line and column; keep it, with the path
       * relative to the project. */
      const char *m = err.message ? err.message : "invalid contract";
      const char *tail = strstr(m, names[i]);
      pipeline_problem(p, rel, 0, NULL, NULL, NULL, NULL, "%s%s", tail ? "contracts/" : "", tail ? tail : m);
      weir_error_clear(&err);
      /* Its models are not told again that their schema is not defined. */
      char *name = contract_name_of(full);
      json_array_append_new(json_object_get(p->unloaded, name ? "schemas" : "opaque"),
                            json_string(name ? name : rel));
      free(name);
    } else {
      if (!c->name) {
        pipeline_problem(p, rel, c->line, NULL, NULL, NULL, NULL, "%s: the contract has no name", rel);
        wr_contract_free(c);
      } else {
        free(c->origin);
        c->origin = wr_strdup(rel);
        add_schema(p, c, rel);
      }
    }
    free(rel);
    free(full);
  }
  free_names(names, n);
  free(cdir);
}

/* ---- SQL models ---------------------------------------------------------------------- */

static void load_sql_models(wr_project *p, wr_engine *engine) {
  size_t n = 0;
  char **names = list_files(p->dir, ".sql", NULL, &n);
  for (size_t i = 0; i < n; i++) {
    char *full = wr_path_join(p->dir, names[i]);
    char *text = NULL;
    size_t len = 0;
    weir_error err = {0};
    if (wr_fs_read(full, &text, &len, &err) != WEIR_OK) {
      pipeline_problem(p, names[i], 0, NULL, NULL, NULL, NULL, "%s", err.message);
      weir_error_clear(&err);
      free(full);
      continue;
    }
    pipeline_model *m = add_model(p);
    if (pipeline_parse_sql_model(p, names[i], text, m) != WEIR_OK) {
      /* Its name: the file's stem, and the name= of its header if that was read. */
      json_t *sql = json_object_get(p->unloaded, "sql");
      const char *base = strrchr(names[i], '/') ? strrchr(names[i], '/') + 1 : names[i];
      json_array_append_new(sql, json_stringn(base, strlen(base) - 4));
      if (m->name) json_array_append_new(sql, json_string(m->name));
      model_clear(m);
      p->n_models--;
      free(text);
      free(full);
      continue;
    }
    /* Inputs: the tables the query reads, by DuckDB's own parser. */
    wr_sql_table_ref *refs = NULL;
    size_t nr = 0;
    if (wr_engine_sql_tables(engine, m->sql, &refs, &nr, &err) != WEIR_OK) {
      m->unparsable = true;
      int line = wr_error_sql_line(&err); /* the parser's structured position */
      if (line > 0)
        pipeline_problem(p, m->file, line, m->name, NULL, NULL, NULL, "%s:%d: model %s: %s", m->file, line, m->name,
                         err.message);
      else
        pipeline_problem(p, m->file, 0, m->name, NULL, NULL, NULL, "%s: model %s: %s", m->file, m->name,
                         err.message);
      weir_error_clear(&err);
    } else {
      m->inputs = wr_calloc(nr ? nr : 1, sizeof *m->inputs);
      for (size_t k = 0; k < nr; k++) {
        if (refs[k].schema && (strcmp(refs[k].schema, "information_schema") == 0 ||
                               strcmp(refs[k].schema, "pg_catalog") == 0))
          continue;
        model_input *in = &m->inputs[m->n_inputs++];
        in->name = refs[k].schema ? wr_asprintf("%s.%s", refs[k].schema, refs[k].name) : wr_strdup(refs[k].name);
        in->producer = -1;
        in->line = refs[k].line;
      }
      wr_sql_table_refs_free(refs, nr);
    }
    free(text);
    free(full);
  }
  free_names(names, n);
}

/* ---- Python models and schemas ---------------------------------------------------- */

static char *json_strdup(const json_t *o, const char *key) {
  const char *s = wr_json_str(o, key, NULL);
  return s ? wr_strdup(s) : NULL;
}

/* Importing a project's files takes seconds (a heavy library tens of them); a file that
 * loops at import would otherwise hold `weir check` for a model's whole default timeout. */
#define DISCOVERY_TIMEOUT_S 600.0
/* Its output is held in memory here: a project printing without end is stopped. */
#define DISCOVERY_MAX_OUTPUT ((size_t)64 << 20)

/* Runs discovery: in the sandbox of project code (it imports the project's files, so
 * their module-level code runs here), with the SDK's interpreter. */
static int discover(wr_project *p, weir_lake *lake, bool unsandboxed, char **out, char **errtext,
                    int *status, bool *timed_out, weir_error *err) {
  char *argv[] = {(char *)pipeline_python(lake), "-B", "-m", "weir.discover", p->dir, NULL};
  pipeline_spawn_opts o = {.cwd = p->dir};
  if (unsandboxed) return pipeline_spawn_with(argv, &o, out, errtext, status, err);
  const sandbox_support *sup = sandbox_probe();
  if (!sandbox_usable(sup))
    return wr_seterr(
        err, WEIR_EUNSUPPORTED,
        "weir cannot sandbox the Python files of %s on this machine, and discovery imports them: %s. "
        "Run with --unsandboxed (weir run, also with --dry-run for a plan) or sandbox=False "
        "(Client.run) to run them without a sandbox (the run records that)",
        p->dir, sup->why);
  char *interp = NULL;
  json_t *roots = NULL;
  int rc = pipeline_python_env(lake, NULL, &interp, &roots, err);
  free(interp);
  if (rc) return rc;
  sandbox_policy pol;
  rc = pipeline_code_sandbox(p->dir, lake->path, roots, "discover", &pol, err);
  json_decref(roots);
  if (rc) return rc;
  sandbox_prepared prep;
  rc = sandbox_prepare(&pol, &prep, err);
  char **env = rc == WEIR_OK ? pipeline_code_environment(&pol) : NULL;
  if (rc == WEIR_OK) {
    o.envp = env;
    o.sandbox = &prep;
    o.timeout_s = DISCOVERY_TIMEOUT_S;
    o.max_output = DISCOVERY_MAX_OUTPUT;
    o.memory_limit = pol.limits.memory;
    rc = pipeline_spawn_with(argv, &o, out, errtext, status, err);
    *timed_out = o.timed_out || o.memory_exceeded || o.output_exceeded;
    if (o.output_exceeded && errtext) {
      free(*errtext);
      *errtext = wr_asprintf("importing the project's files printed more than %d MiB and was stopped",
                               (int)(DISCOVERY_MAX_OUTPUT >> 20));
    } else if (o.memory_exceeded && errtext) {
      char lim[64];
      sandbox_format_bytes(pol.limits.memory, lim, sizeof lim);
      free(*errtext);
      *errtext =
          wr_asprintf("importing the project's files used more than %s of memory and was stopped", lim);
    } else if (o.timed_out && errtext) {
      char lim[64];
      sandbox_format_seconds(DISCOVERY_TIMEOUT_S, lim, sizeof lim);
      free(*errtext);
      *errtext = wr_asprintf("importing the project's files took longer than %s and was stopped", lim);
    }
  }
  pipeline_code_environment_free(env);
  sandbox_prepared_free(&prep);
  pipeline_code_sandbox_done(&pol);
  return rc;
}

static int load_python(wr_project *p, weir_lake *lake, bool unsandboxed, weir_error *err) {
  size_t n = 0;
  char **names = list_files(p->dir, ".py", NULL, &n);
  free_names(names, n);
  if (n == 0) return WEIR_OK;

  char *out = NULL, *errtext = NULL;
  int status = 0;
  bool stopped = false;
  int rc = discover(p, lake, unsandboxed, &out, &errtext, &status, &stopped, err);
  if (rc) {
    free(out);
    free(errtext);
    return rc;
  }
  if (status != 0 || stopped) {
    bool no_sdk = errtext && strstr(errtext, "No module named 'weir'");
    if (stopped) {
      rc = wr_seterr(err, WEIR_EMODEL, "cannot read the Python models of %s: %s", p->dir, errtext);
      free(out);
      free(errtext);
      return rc;
    }
    rc = wr_seterr(err, WEIR_EMODEL,
                     "cannot read the Python models of %s: `%s -m weir.discover` exited with status %d%s%s%s",
                     p->dir, pipeline_python(lake), status,
                     no_sdk ? " (that Python has no weir SDK: set WEIR_PYTHON to one that has, e.g. "
                              "the .venv/bin/python that `make build` prepares)"
                            : "",
                     errtext && *errtext && !no_sdk ? ":\n" : "", errtext && !no_sdk ? errtext : "");
    free(out);
    free(errtext);
    return rc;
  }
  free(errtext);
  rc = pipeline_discovery_apply(p, out ? out : "", out ? strlen(out) : 0, err);
  if (rc) wr_error_prefix(err, "cannot read the Python models of %s", p->dir);
  free(out);
  return rc;
}

int pipeline_discovery_apply(wr_project *p, const char *text, size_t len, weir_error *err) {
  /* What discovery printed came from a process that ran the project's code: it is read as
   * untrusted input (tests/fuzz/fuzz_discovery.c), and anything malformed is a problem
   * or an error, never a crash. */
  json_error_t jerr;
  json_t *doc = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
  if (!doc || !json_is_object(doc)) {
    json_decref(doc);
    return wr_seterr(err, WEIR_EMODEL, "discovery printed no JSON document (%s at line %d)",
                       doc ? "not an object" : jerr.text, jerr.line);
  }
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(doc, "errors"), i, v) {
    const char *file = wr_json_str(v, "file", NULL);
    int line = (int)wr_json_int(v, "line", 0);
    const char *msg = wr_json_str(v, "message", "error");
    if (file && line) pipeline_problem(p, file, line, NULL, NULL, NULL, NULL, "%s:%d: %s", file, line, msg);
    else if (file) pipeline_problem(p, file, 0, NULL, NULL, NULL, NULL, "%s: %s", file, msg);
    else pipeline_problem(p, NULL, 0, NULL, NULL, NULL, NULL, "%s", msg);
  }
  /* What files that did not load declare: references to those names are not problems of
   * their own (the file's error is the root cause). A file whose source does not parse
   * declares names nobody knows: its readers get a hint instead. */
  json_array_foreach(json_object_get(doc, "unloaded"), i, v) {
    json_t *schemas = json_object_get(v, "schemas"), *models = json_object_get(v, "models");
    const char *file = wr_json_str(v, "file", NULL);
    if (!json_is_array(schemas) || !json_is_array(models)) {
      if (file) json_array_append_new(json_object_get(p->unloaded, "opaque"), json_string(file));
      continue;
    }
    json_array_extend(json_object_get(p->unloaded, "schemas"), schemas);
    json_array_extend(json_object_get(p->unloaded, "models"), models);
  }
  json_array_foreach(json_object_get(doc, "schemas"), i, v) {
    weir_contract *c = NULL;
    weir_error e2 = {0};
    const char *origin = wr_json_str(v, "origin", "models.py");
    if (wr_contract_from_ir(v, origin, &c, &e2) != WEIR_OK) {
      pipeline_problem(p, origin, (int)wr_json_int(v, "line", 0), NULL, NULL, NULL, NULL, "%s", e2.message);
      weir_error_clear(&e2);
      continue;
    }
    add_schema(p, c, origin);
  }
  json_array_foreach(json_object_get(doc, "models"), i, v) {
    pipeline_model *m = add_model(p);
    m->lang = MODEL_PYTHON;
    m->name = json_strdup(v, "name");
    m->file = json_strdup(v, "file");
    m->line = (int)wr_json_int(v, "line", 0);
    m->function = json_strdup(v, "function");
    const char *mat = wr_json_str(v, "materialization", "REPLACE");
    m->append = strcasecmp(mat, "APPEND") == 0;
    m->doc = json_strdup(v, "doc");
    m->output_schema_name = json_strdup(v, "output_schema");
    json_t *pb = json_object_get(v, "partition_by");
    if (json_is_array(pb) && json_array_size(pb) > 0) m->partition_by = json_incref(pb);
    json_t *py = json_object_get(v, "python");
    m->python = json_is_object(py) ? json_incref(py) : (p->python ? json_incref(p->python) : NULL);
    /* @weir.python's sandbox options, checked again here: discovery output is input. */
    sandbox_limits_default(&m->limits);
    char *bad = sandbox_limits_from_json(json_object_get(v, "sandbox"), &m->limits, &m->internet);
    if (bad) {
      pipeline_problem(p, m->file, m->line, m->name, NULL, NULL, NULL, "%s:%d: model %s: @weir.python: %s",
                       m->file ? m->file : "?", m->line, m->name ? m->name : "?", bad);
      free(bad);
    }
    json_t *inputs = json_object_get(v, "inputs");
    m->inputs = wr_calloc(json_array_size(inputs) ? json_array_size(inputs) : 1, sizeof *m->inputs);
    size_t k;
    json_t *in;
    json_array_foreach(inputs, k, in) {
      model_input *mi = &m->inputs[m->n_inputs++];
      mi->param = json_strdup(in, "param");
      mi->name = json_strdup(in, "table");
      mi->filter = json_strdup(in, "filter");
      mi->ref = json_strdup(in, "ref");
      mi->schema_name = json_strdup(in, "schema");
      json_t *cols = json_object_get(in, "columns");
      if (json_is_array(cols)) mi->columns = json_incref(cols);
      mi->line = (int)wr_json_int(in, "line", m->line);
      mi->producer = -1;
    }
    bool inputs_ok = true;
    for (size_t q = 0; q < m->n_inputs; q++) inputs_ok = inputs_ok && m->inputs[q].param && m->inputs[q].name;
    if (!m->name || !m->file || !m->function || !inputs_ok) {
      pipeline_problem(
          p, m->file, m->line, m->name, NULL, NULL, NULL,
          "discovery returned a model without name, file, function, or an input's param or table");
      model_clear(m);
      p->n_models--;
    }
  }
  json_decref(doc);
  return WEIR_OK;
}

/* ---- digest ------------------------------------------------------------------------- */

/* SHA-256 over the names and contents of the project's files, so a run records exactly
 * which code it ran. */
static void project_digest(wr_project *p) {
  wr_buf all = WEIR_BUF_INIT;
  const char *sufs[][2] = {{".sql", ".py"}, {".yml", ".yaml"}};
  for (int pass = 0; pass < 2; pass++) {
    char *dir = pass ? wr_path_join(p->dir, "contracts") : wr_strdup(p->dir);
    for (int s = 0; s < 2; s++) {
      size_t n = 0;
      char **names = list_files(dir, sufs[s][0], sufs[s][1], &n);
      for (size_t i = 0; i < n; i++) {
        char *full = wr_path_join(dir, names[i]);
        char *text = NULL;
        size_t len = 0;
        weir_error err = {0};
        if (wr_fs_read(full, &text, &len, &err) == WEIR_OK) {
          wr_buf_printf(&all, "%s%s\n%zu\n", pass ? "contracts/" : "", names[i], len);
          wr_buf_append(&all, text, len);
        }
        weir_error_clear(&err);
        free(text);
        free(full);
      }
      free_names(names, n);
    }
    free(dir);
  }
  wr_sha256_hex(all.data ? all.data : "", all.len, p->digest);
  wr_buf_free(&all);
}

wr_project *pipeline_project_new(const char *dir) {
  wr_project *p = wr_calloc(1, sizeof *p);
  p->dir = wr_path_absolute(dir);
  p->problems = json_array();
  p->unloaded = json_pack("{s:[],s:[],s:[],s:[]}", "sql", "models", "schemas", "opaque");
  p->warnings = json_array();
  p->ns = wr_strdup(WEIR_DEFAULT_NAMESPACE);
  p->name = wr_strdup(wr_path_basename(p->dir));
  return p;
}

int pipeline_load(weir_lake *lake, const char *dir, bool unsandboxed, wr_project **out, weir_error *err) {
  *out = NULL;
  if (!dir || !wr_fs_exists(dir))
    return wr_seterr(err, WEIR_ENOTFOUND, "project folder %s does not exist", dir ? dir : "(none)");
  if (!wr_fs_is_dir(dir))
    return wr_seterr(err, WEIR_EINVALIDARG,
                       "%s is a file: a project is a folder of models (SQL files, models.py, contracts/)",
                       dir);
  wr_project *p = pipeline_project_new(dir);
  load_project_file(p);
  load_contracts(p);

  int rc = lake_engine_open(lake, &p->engine, err);
  if (rc == WEIR_OK) rc = wr_engine_restrict_files(p->engine, NULL, 0, err);
  if (rc) {
    pipeline_project_free(p);
    return rc;
  }
  load_sql_models(p, p->engine);
  if ((rc = load_python(p, lake, unsandboxed, err))) {
    pipeline_project_free(p);
    return rc;
  }
  /* Names: a model name is a table name, and must be unique in the project. */
  for (size_t i = 0; i < p->n_models; i++) {
    pipeline_model *m = &p->models[i];
    weir_error e2 = {0};
    if (wr_ident_check(m->name, "model name", &e2) != WEIR_OK) {
      pipeline_problem(p, m->file, m->line, m->name, NULL, NULL, NULL, "%s:%d: %s", m->file, m->line, e2.message);
      weir_error_clear(&e2);
    }
    for (size_t j = 0; j < i; j++)
      /* Two Python models of one name: discovery reported it already, once. */
      if (strcmp(p->models[j].name, m->name) == 0 && !(m->lang == MODEL_PYTHON && p->models[j].lang == MODEL_PYTHON))
        pipeline_problem(p, m->file, m->line, m->name, NULL, NULL, NULL,
                         "%s:%d: model \"%s\" is defined twice (also in %s:%d)", m->file, m->line, m->name,
                         p->models[j].file, p->models[j].line);
    m->table = wr_asprintf("%s.%s", p->ns, m->name);
  }
  if (p->n_models == 0 && json_array_size(p->problems) == 0)
    pipeline_problem(p, NULL, 0, NULL, NULL, NULL, NULL,
                     "project %s has no models (no .sql files and no @weir.model functions)", p->dir);
  project_digest(p);
  *out = p;
  return WEIR_OK;
}
