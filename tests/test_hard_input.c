/* Hard inputs (issue 21): expressions nested past the parser's limit,
 * --set values parsed whole, models whose after arrivals form a cycle or
 * whose steps read spans nothing begins, and the end-to-end refusals they
 * give (exit status 2, one line naming the file and the JSON path). The
 * runs (hard_runs) and the faults (hard_faults) are suites of their own. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/expr.h"
#include "model/world.h"

#include "hardutil.h"
#include "testutil.h"

/* ---- expressions nested deeply ---- */

/* open repeated k times, then core, then close k times, in a new string. */
static char *nest(const char *open, const char *core, const char *close, int k)
{
  size_t cap = (strlen(open) + strlen(close)) * (size_t)k + strlen(core) + 1, len = 0;
  char *s = malloc(cap);
  ck_assert_ptr_nonnull(s);
  for (int i = 0; i < k; i++)
    len += (size_t)snprintf(s + len, cap - len, "%s", open);
  len += (size_t)snprintf(s + len, cap - len, "%s", core);
  for (int i = 0; i < k; i++)
    len += (size_t)snprintf(s + len, cap - len, "%s", close);
  return s;
}

static int resolve_n(void *ctx, const char *name, ts_expr_var *var, double *constant)
{
  (void)ctx;
  (void)constant;
  if (strcmp(name, "n"))
    return 0;
  *var = (ts_expr_var){.kind = 0};
  return 1;
}

/* Each way to nest (parentheses, unary minus and !, a function's argument,
 * ?: in the else branch and in the then branch) compiles at the limit and
 * is refused one level past it, and at 20,000 levels (a recursive parser
 * without a limit overflows its stack there), naming the limit. */
START_TEST(hard_expression_nesting_is_limited)
{
  static const struct {
    const char *open, *core, *close;
    int stacked; /* each level keeps a value on the stack (refused past 64 of them, after parsing) */
  } kinds[] = {{"(", "1", ")", 0},        {"-", "1", "", 0},          {"!", "1", "", 0}, {"min(1, ", "1", ")", 1},
               {"abs(", "1", ")", 0},     {"n ? 1 : ", "2", "", 1}, {"n ? ", "1", " : 2", 1}};
  for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++) {
    int depths[] = {TS_EXPR_MAX_NEST, TS_EXPR_MAX_NEST + 1, 20000};
    for (int d = 0; d < 3; d++) {
      char *text = nest(kinds[k].open, kinds[k].core, kinds[k].close, depths[d]), err[200] = "";
      ts_expr *e = ts_expr_compile(text, resolve_n, NULL, err, sizeof err);
      if (d == 0) {
        ck_assert_msg(kinds[k].stacked ? e == NULL && strstr(err, "nested too deeply") : e != NULL, "%s x%d: %s",
                      kinds[k].open, depths[d], err);
      } else {
        ck_assert_ptr_null(e);
        ck_assert_msg(strstr(err, "nested deeper than 100 levels"), "%s x%d: %s", kinds[k].open, depths[d], err);
      }
      ts_expr_free(e);
      free(text);
    }
  }
}
END_TEST

/* The refusal in a model names the JSON path, and the quoted expression is
 * cut short so that the reason is on the line (a 1,000-deep ternary). */
START_TEST(hard_expression_refusal_keeps_the_reason)
{
  char *cond = nest("n ? 1 : ", "0", "", 1000);
  size_t cap = strlen(cond) + 256;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  snprintf(text, cap,
           "{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"if\", \"cond\": \"%s\", \"then\": [{\"op\": "
           "\"cpu\", \"ms\": 1}]}]}]}",
           cond);
  cJSON *root;
  ts_err e;
  ts_model m;
  ck_assert_int_eq(ts_json_parse(text, strlen(text), "t.json", &root, &e), 0);
  ck_assert_int_eq(ts_model_from_json(root, "t.json", &m, &e), -1);
  ck_assert_msg(strstr(e.msg, "t.json: classes[0].program[0].cond: \"n ? 1 : n ? 1 : ") == e.msg, "%s", e.msg);
  ck_assert_msg(strstr(e.msg, "...\": nested deeper than 100 levels"), "%s", e.msg);
  ck_assert_uint_lt(strlen(e.msg), sizeof e.msg - 1); /* not cut */
  cJSON_Delete(root);
  free(text);
  free(cond);
}
END_TEST

/* ---- whole-model checks ---- */

/* The loader's refusal of model text json into msg (size cap), or "" when
 * it loads. */
static void refusal(const char *json, char *msg, size_t cap)
{
  cJSON *root;
  ts_err e;
  ts_model m;
  ck_assert_msg(ts_json_parse(json, strlen(json), "t.json", &root, &e) == 0, "%s", e.msg);
  if (ts_model_from_json(root, "t.json", &m, &e) == 0) {
    ts_model_finish(&m);
    snprintf(msg, cap, "%s", "");
  } else {
    snprintf(msg, cap, "%s", e.msg);
  }
  cJSON_Delete(root);
}

#define CLASS(name, after) \
  "{\"name\": \"" name "\", \"count\": 1, \"arrival\": {\"kind\": \"after\", \"after\": \"" after "\"}, " \
  "\"program\": [{\"op\": \"cpu\", \"ms\": 1}]}"
#define PLAIN(name) "{\"name\": \"" name "\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}"

/* after arrivals in a cycle never arrive: refused at load, naming the
 * cycle; a chain into a cycle is refused at the cycle; a chain that ends
 * at a class arriving otherwise loads. */
START_TEST(hard_after_cycles_are_refused)
{
  char msg[1024];
  refusal("{\"classes\": [" CLASS("a", "a") "]}", msg, sizeof msg);
  ck_assert_str_eq(msg, "t.json: classes[0].arrival.after: the after arrivals form a cycle (a -> a): no actor of "
                        "the class ever arrives; one class of the cycle must arrive otherwise");
  refusal("{\"classes\": [" CLASS("c", "a") ", " CLASS("a", "b") ", " CLASS("b", "a") "]}", msg, sizeof msg);
  ck_assert_msg(strstr(msg, "t.json: classes[1].arrival.after: the after arrivals form a cycle (a -> b -> a)") == msg,
                "%s", msg);
  refusal("{\"classes\": [" CLASS("x", "y") ", " CLASS("y", "z") ", " CLASS("z", "w") ", " CLASS("w", "y") "]}", msg,
          sizeof msg);
  ck_assert_msg(strstr(msg, "classes[1].arrival.after: the after arrivals form a cycle (y -> z -> w -> y)"), "%s", msg);
  refusal("{\"classes\": [" CLASS("c", "b") ", " CLASS("b", "a") ", " PLAIN("a") "]}", msg, sizeof msg);
  ck_assert_str_eq(msg, "");
}
END_TEST

#define STEPS(steps) "{\"channels\": [{\"name\": \"ch\", \"scope\": \"shared\"}], \"classes\": [{\"count\": 1, " \
  "\"program\": [" steps "]}]}"

/* A span a step reads the begin of must be begun by some step: a notify's
 * carry and a span_end from its begin; a suggestion names the nearest. A
 * span_end from the notify needs no begin; a repeat's or a call's span is
 * begun by it. */
START_TEST(hard_spans_nothing_begins_are_refused)
{
  char msg[1024];
  refusal(STEPS("{\"op\": \"span_begin\", \"span\": \"frame\"}, {\"op\": \"notify\", \"channel\": \"ch\", "
                "\"carry\": \"frmae\"}"), msg, sizeof msg);
  ck_assert_msg(strstr(msg, "t.json: classes[0].program[1].carry: no span_begin, repeat or call begins span "
                            "\"frmae\"") == msg && strstr(msg, "did you mean \"frame\"?"), "%s", msg);
  refusal(STEPS("{\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"span_end\", \"span\": \"x\"}"), msg, sizeof msg);
  ck_assert_msg(strstr(msg, "t.json: classes[0].program[1].span: no span_begin") == msg &&
                strstr(msg, "(no step begins a span)"), "%s", msg);
  refusal(STEPS("{\"op\": \"repeat\", \"count\": 2, \"span\": \"it\", \"steps\": [{\"op\": \"if\", \"cond\": 1, "
                "\"then\": [{\"op\": \"span_end\", \"span\": \"late\"}]}]}"), msg, sizeof msg);
  ck_assert_msg(strstr(msg, "t.json: classes[0].program[0].steps[0].then[0].span: ") == msg, "%s", msg);
  refusal(STEPS("{\"op\": \"repeat\", \"count\": 2, \"span\": \"it\", \"steps\": [{\"op\": \"notify\", \"channel\": "
                "\"ch\", \"carry\": \"it\"}, {\"op\": \"cpu\", \"ms\": 1}]}, {\"op\": \"wait\", \"channel\": \"ch\"}, "
                "{\"op\": \"span_end\", \"span\": \"seen\", \"from\": \"notify\"}"), msg, sizeof msg);
  ck_assert_str_eq(msg, "");
}
END_TEST

/* ---- --set values ---- */

/* A value is JSON only when all of it is: "2 * 3" is a string (the
 * expression), not the number 2 followed by text the parser ignored. */
START_TEST(hard_set_value_is_parsed_whole)
{
  cJSON *root = cJSON_Parse("{\"a\": {\"ms\": 1}}");
  ts_err e;
  static const char *const strings[] = {"2 * 3", "1 / 0", "1 garbage", "2 - 5", "true false", "null x", NULL};
  for (int i = 0; strings[i]; i++) {
    ck_assert_int_eq(ts_json_set_path(root, "f", "a.ms", strings[i], &e), 0);
    ck_assert_str_eq(cJSON_GetStringValue(ts_json_get_path(root, "a.ms")), strings[i]);
  }
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.ms", " 7 ", &e), 0); /* blanks around JSON are JSON's */
  ck_assert_double_eq(cJSON_GetNumberValue(ts_json_get_path(root, "a.ms")), 7);
  static const char *const broken[] = {"[1", "{\"x\": 1} y", "\"abc", " [1, 2] 3", NULL};
  for (int i = 0; broken[i]; i++) {
    ck_assert_int_eq(ts_json_set_path(root, "f", "a.ms", broken[i], &e), -1);
    ck_assert_msg(strstr(e.msg, "f: a.ms: not valid JSON at column ") == e.msg, "%s", e.msg);
  }
  cJSON_Delete(root);
}
END_TEST

/* A model with a shared lock (capacity 1) around a 1 ms cpu step, and its
 * scenario over n = 1, 2 in tmp. */
static void write_lock_model(void)
{
  tu_write_file(at("m.json"), "{\"name\": \"h\", \"locks\": [{\"name\": \"g\", \"scope\": \"shared\"}],\n"
                              " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [\n"
                              "  {\"op\": \"lock\", \"lock\": \"g\"}, {\"op\": \"cpu\", \"ms\": 1},\n"
                              "  {\"op\": \"unlock\", \"lock\": \"g\"}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"h\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1]}\n");
}

/* Exit status 2 with one line on stderr naming m.json and the path. */
static void expect_refused(const char *extra, const char *path)
{
  char *err;
  int rc = run_set("bad", extra, &err);
  char want[600];
  snprintf(want, sizeof want, "/m.json: %s: ", path);
  ck_assert_msg(rc == 2, "%s: exit status %d: %s", extra, rc, err);
  ck_assert_msg(strstr(err, want) && strchr(err, '\n') == err + strlen(err) - 1, "%s: %s", extra, err);
  free(err);
}

/* End to end: --set 'ms=2 * 3' runs the expression (the same results as
 * ms=6), a value with trailing text or 1 / 0 is refused as it would be in
 * the file, and so is a deep expression given on the command line. */
START_TEST(hard_set_on_the_command_line)
{
  write_lock_model();
  char *err, *a, *b;
  ck_assert_int_eq(run_set("six", "--set 'classes[0].program[1].ms=6'", &err), 0);
  free(err);
  ck_assert_int_eq(run_set("expr", "--set 'classes[0].program[1].ms=2 * 3'", &err), 0);
  free(err);
  char pa[PATH_MAX + 64];
  snprintf(pa, sizeof pa, "%s", at("six/summary.csv"));
  a = tu_read_file(pa, NULL);
  b = tu_read_file(at("expr/summary.csv"), NULL);
  ck_assert_str_eq(a, b);
  ck_assert_ptr_nonnull(strstr(a, ",6.000000,")); /* cpu_ms 6, not 2 */
  free(a);
  free(b);
  expect_refused("--set 'classes[0].program[1].ms=1 / 0'", "classes[0].program[1].ms");
  expect_refused("--set 'classes[0].program[1].ms=1 garbage'", "classes[0].program[1].ms");
  expect_refused("--set 'locks[0].capacity=2 - 5'", "locks[0].capacity");
  expect_refused("--set 'classes[0].program[1].ms=[1, 2'", "classes[0].program[1].ms");
  char *deep = nest("(", "1", ")", 20000);
  size_t cap = strlen(deep) + 64;
  char *arg = malloc(cap);
  ck_assert_ptr_nonnull(arg);
  snprintf(arg, cap, "--set 'classes[0].program[1].ms=%s'", deep);
  expect_refused(arg, "classes[0].program[1].ms");
  free(arg);
  free(deep);
}
END_TEST

Suite *hard_input_suite(void)
{
  Suite *s = suite_create("hard_input");
  const TTest *const expressions[] = {hard_expression_nesting_is_limited, hard_expression_refusal_keeps_the_reason,
                                      NULL};
  const TTest *const sets[] = {hard_set_value_is_parsed_whole, hard_set_on_the_command_line, NULL};
  const TTest *const models[] = {hard_after_cycles_are_refused, hard_spans_nothing_begins_are_refused, NULL};
  tu_tcase(s, "expressions", expressions, NULL, NULL, 60);
  tu_tcase(s, "set", sets, make_tmp, remove_tmp, 120);
  tu_tcase(s, "models", models, NULL, NULL, 60);
  return s;
}
