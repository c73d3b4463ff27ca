/* A libFuzzer target for expressions: the bytes (up to the first NUL) are
 * an expression string, compiled by ts_expr_compile with a resolver that
 * knows a few names and evaluated at several values of them; then put, as a
 * JSON string, into every expression field of a model that uses every kind
 * (a class's count and let, durations, if, repeat, index, tokens, add, a
 * pool's count, a server's worker, a lock's instances, a model metric) and
 * loaded (when it does not compile, into one field chosen by its bytes);
 * and given raw as a --set value. The file target (fuzz_load.c)
 * reaches expressions only inside 32 KB of JSON; this one feeds them
 * directly, long and deep. Findings are crashes (a recursion without a
 * bound), sanitizer reports, leaks, hangs, any refusal that is not one
 * line naming the file, and compiled code whose value differs from the
 * reference machine's (ts__expr_eval_plain) (abort()).
 *
 * Built by -Dfuzz=true (clang) as tests/fuzz/fuzz_expr, run by scripts/fuzz
 * beside fuzz_load; also linked into tests/test_badinput.c, which replays
 * tests/data/fuzz-regressions/expr/ through ts_fuzz_expr_one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/expr.h"

#include "fuzz_load.h"

#define FUZZ_FILE "models/fuzz-input.json"

/* The model every expression field of which takes the input in turn. */
static const char base_model[] =
  "{\"name\": \"fz\", \"params\": {\"p\": 2, \"s\": \"g\"},"
  " \"pools\": [{\"name\": \"io\", \"count\": 2}],"
  " \"locks\": [{\"name\": \"g\", \"scope\": \"indexed\", \"instances\": 4}],"
  " \"channels\": [{\"name\": \"ch\", \"tokens\": true}],"
  " \"counters\": [{\"name\": \"c\"}],"
  " \"servers\": [{\"name\": \"srv\", \"pool\": \"io\"}],"
  " \"classes\": [{\"name\": \"a\", \"count\": 2, \"let\": {\"l\": \"i + 1\"}, \"program\": ["
  "   {\"op\": \"cpu\", \"ms\": 1},"
  "   {\"op\": \"if\", \"cond\": \"l > 1\", \"then\": [{\"op\": \"io\", \"ms\": 1}]},"
  "   {\"op\": \"repeat\", \"count\": 2, \"name\": \"k\", \"steps\": [{\"op\": \"sleep\", \"ms\": \"k\"}]},"
  "   {\"op\": \"lock\", \"lock\": \"$s\", \"index\": 0}, {\"op\": \"unlock\", \"lock\": \"g\"},"
  "   {\"op\": \"notify\", \"channel\": \"ch\", \"tokens\": 1},"
  "   {\"op\": \"add\", \"counter\": \"c\", \"value\": 1},"
  "   {\"op\": \"call\", \"server\": \"srv\", \"request_ms\": 0, \"handler\": [{\"op\": \"cpu\", \"ms\": 1}]}]}],"
  " \"metrics\": {\"m\": {\"expr\": \"wave_ms * 2\"}}}";

static const char *const fields[] = {
  "classes[0].count", "classes[0].let.l", "classes[0].program[0].ms", "classes[0].program[1].cond",
  "classes[0].program[2].count", "classes[0].program[2].steps[0].ms", "classes[0].program[3].index",
  "classes[0].program[5].tokens", "classes[0].program[6].value", "classes[0].program[7].request_ms",
  "pools[0].count", "servers[0].worker", "locks[0].instances", "metrics.m.expr", "params.p", NULL};

/* Names: $p and $big (constants); n, W, i, x and the model's k, l, c (variables). */
static int resolve(void *ctx, const char *name, ts_expr_var *var, double *constant)
{
  (void)ctx;
  static const char *const vars[] = {"n", "W", "i", "x", "k", "l", "c", NULL};
  if (!strcmp(name, "$p") || !strcmp(name, "$big")) {
    *constant = name[1] == 'p' ? 2 : 1e300;
    return 2;
  }
  for (int k = 0; vars[k]; k++)
    if (!strcmp(name, vars[k])) {
      *var = (ts_expr_var){.kind = k};
      return 1;
    }
  return 0;
}

static double get(void *ctx, ts_expr_var var)
{
  return ((const double *)ctx)[var.kind];
}

/* Compile text directly and evaluate it at a few points; 1 if it compiled. */
static int compile_and_eval(const char *text)
{
  static const double at[][7] = {{1, 1, 0, 0, 0, 1, 0},
                                 {1e6, 4096, 999999, -1, 31, 1e6, -5},
                                 {0, 0, 0, NAN, 0, 0, 0},
                                 {-0.0, 1, 2, INFINITY, 1, -INFINITY, 1e300}};
  char err[200] = "";
  ts_expr *e = ts_expr_compile(text, resolve, NULL, err, sizeof err);
  if (!e) {
    if (!err[0]) {
      fprintf(stderr, "fuzz_expr: refused without a reason\n");
      abort();
    }
    return 0;
  }
  double v;
  if (ts_expr_is_constant(e, &v))
    (void)v;
  for (size_t k = 0; k < sizeof at / sizeof *at; k++) { /* the running code is the reference machine, bit for bit */
    double a = ts_expr_eval(e, get, (void *)at[k]), b = ts__expr_eval_plain(e, get, (void *)at[k]);
    if (memcmp(&a, &b, sizeof a) != 0 && !(a != a && b != b)) {
      fprintf(stderr, "fuzz_expr: %s at point %zu: %.17g, reference %.17g\n", text, k, a, b);
      abort();
    }
  }
  (void)ts_expr_uses(e, 0);
  ts_expr_free(e);
  return 1;
}

/* Apply set ("PATH=VALUE") to a copy of base and load it; refusals are checked. */
static void load_with(const cJSON *base, const char *set)
{
  cJSON *copy = cJSON_Duplicate(base, 1);
  if (!copy)
    return;
  ts_err e;
  ts_model m;
  if (ts_model_apply_set(copy, FUZZ_FILE, set, &e) != 0)
    ts_fuzz_check_message(FUZZ_FILE, &e);
  else if (ts_model_from_json(copy, FUZZ_FILE, &m, &e) == 0)
    ts_model_finish(&m);
  else
    ts_fuzz_check_message(FUZZ_FILE, &e);
  cJSON_Delete(copy);
}

int ts_fuzz_expr_one(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  if (!text)
    return -1;
  if (size)
    memcpy(text, data, size);
  text[size] = '\0';
  /* an expression that compiles goes into every field; one that does not
   * (most of what the fuzzer makes) into one, chosen by its bytes, so that
   * the refusals are checked in every field at a sixth of the cost */
  int all = compile_and_eval(text);
  size_t nfields = sizeof fields / sizeof *fields - 1, one = 0;
  for (size_t i = 0; i < size; i++)
    one = one * 31 + data[i];
  one %= nfields;
  cJSON *base = cJSON_Parse(base_model);
  cJSON *str = cJSON_CreateString(text);
  char *quoted = str ? cJSON_PrintUnformatted(str) : NULL;
  size_t cap = strlen(text) + (quoted ? strlen(quoted) : 0) + 64;
  char *set = malloc(cap);
  int rc = base && quoted && set ? 0 : -1;
  for (size_t f = 0; rc == 0 && fields[f]; f++) {
    if (!all && f != one)
      continue;
    snprintf(set, cap, "%s=%s", fields[f], quoted); /* the expression as a JSON string */
    load_with(base, set);
  }
  if (rc == 0) {
    snprintf(set, cap, "classes[0].program[0].ms=%s", text); /* raw, as on the command line */
    load_with(base, set);
  }
  free(set);
  free(quoted);
  cJSON_Delete(str);
  cJSON_Delete(base);
  free(text);
  return rc;
}

#ifdef TS_FUZZ_EXPR_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  ts_fuzz_expr_one(data, size);
  return 0;
}
#endif
