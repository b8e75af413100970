/*
 * fuzz_discovery.c -- what `python -m weir.discover` prints, as libweir reads it
 * (pipeline_discovery_apply in src/pipeline/project.c).
 *
 * Discovery runs the project's code (in the model sandbox), so its output is untrusted
 * input: a hostile project can print anything on stdout. Promises checked: a document
 * that is not a JSON object is an error with a message; otherwise every problem has a
 * valid UTF-8 message, every model kept has a name, a file, a function and inputs with a
 * param and a table, and its sandbox limits are within what sandbox_limits_from_json
 * allows (at least 32 MiB, a positive timeout of at most 30 days, a CPU limit >= 0).
 */
#include "fuzz.h"

#include "pipeline/pipeline.h"
#include "weir.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  wr_project *p = pipeline_project_new("/nonexistent/fuzz-project");
  weir_error err = {0};
  int rc = pipeline_discovery_apply(p, (const char *)data, size, &err);
  if (rc != WEIR_OK) {
    fuzz_check_error(rc, &err, NULL);
    weir_error_clear(&err);
  }
  size_t i;
  json_t *v;
  json_array_foreach(p->problems, i, v) {
    if (!json_is_string(json_object_get(v, "message"))) fuzz_fail("a problem without a message");
  }
  for (size_t k = 0; k < p->n_models; k++) {
    const pipeline_model *m = &p->models[k];
    if (!m->name || !m->file || !m->function) fuzz_fail("a model kept without a name, file or function");
    for (size_t q = 0; q < m->n_inputs; q++)
      if (!m->inputs[q].param || !m->inputs[q].name) fuzz_fail("an input kept without a param or table");
    if (m->limits.memory < (32LL << 20) || !(m->limits.timeout_s > 0) || m->limits.timeout_s > 30.0 * 86400 ||
        m->limits.cpu_s < 0)
      fuzz_fail("model %s kept limits out of range", m->name);
  }
  pipeline_project_free(p);
  return 0;
}
