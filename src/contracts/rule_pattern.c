/*
 * rule_pattern.c -- `pattern`: a PCRE2 regular expression matched against the whole
 * value (anchored at both ends, as dbt's and pandera's "str_matches" users expect from
 * a column pattern: "^[A-Z]{3}$" and "[A-Z]{3}" mean the same), JIT-compiled, applied
 * to the string bytes in place (no copy, no NUL terminator needed).
 *
 * Values that are not valid UTF-8 are matched too (PCRE2_MATCH_INVALID_UTF): invalid
 * sequences simply never match a character, so such a value is reported, not an error.
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contracts/internal.h"

struct pattern_rule {
  pcre2_code *code;
  pcre2_match_data *md;
  bool jit;
};

int wc_pattern_compile(const char *regex, pattern_rule **out, char *why, size_t n) {
  int errcode;
  PCRE2_SIZE erroff;
  pcre2_code *code = pcre2_compile((PCRE2_SPTR)regex, PCRE2_ZERO_TERMINATED,
                                   PCRE2_ANCHORED | PCRE2_ENDANCHORED | PCRE2_UTF | PCRE2_MATCH_INVALID_UTF,
                                   &errcode, &erroff, NULL);
  if (!code) {
    PCRE2_UCHAR msg[256];
    pcre2_get_error_message(errcode, msg, sizeof msg);
    snprintf(why, n, "invalid pattern \"%s\": %s at offset %zu", regex, (const char *)msg, (size_t)erroff);
    return WEIR_EINPUT;
  }
  pattern_rule *p = wr_calloc(1, sizeof *p);
  p->code = code;
  /* JIT is an optimisation: when the platform has none, the interpreter gives the same
   * answers, only slower. */
  p->jit = pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0;
  p->md = pcre2_match_data_create_from_pattern(code, NULL);
  *out = p;
  return WEIR_OK;
}

void wc_pattern_free(pattern_rule *p) {
  if (!p) return;
  pcre2_match_data_free(p->md);
  pcre2_code_free(p->code);
  free(p);
}

static inline bool matches(pattern_rule *p, const uint8_t *s, size_t n) {
  /* An empty value has a valid pointer from the offsets even when the data buffer is
   * empty; PCRE2 wants a non-NULL subject. */
  static const uint8_t empty[1] = {0};
  if (!s) s = empty;
  int rc = p->jit ? pcre2_jit_match(p->code, s, n, 0, 0, p->md, NULL)
                  : pcre2_match(p->code, s, n, 0, 0, p->md, NULL);
  return rc >= 0;
}

void wc_pattern_run(pattern_rule *p, const col_view *v, rule_hits *h) {
  const int64_t *offs = (const int64_t *)v->arr->buffers[1] + v->off;
  const uint8_t *data = v->arr->buffers[2];
  const uint8_t *valid = v->arr->n_buffers > 0 ? v->arr->buffers[0] : NULL;
  weir_type t = {WEIR_TYPE_STRING, 0, 0};
  for (int64_t i = 0; i < v->len; i++) {
    /* Matching costs far more than a bit test: skip nulls before, not after. */
    if (valid && !wr_bit_get(valid, v->off + i)) continue;
    if (matches(p, data ? data + offs[i] : NULL, (size_t)(offs[i + 1] - offs[i]))) continue;
    wc_hits_add(h, v->batch, i, v->len, v->row_base + i,
             wc_hits_want_sample(h) ? wc_value_sample(t, v->arr, v->off + i) : NULL);
  }
}
