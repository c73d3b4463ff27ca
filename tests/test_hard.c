/* Hard inputs and faults (issue 21): expressions nested past the parser's
 * limit, --set values parsed whole, models whose after arrivals form a
 * cycle or whose steps read spans nothing begins, and the end-to-end
 * refusals they give (exit status 2, one line naming the file and the JSON
 * path). */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/expr.h"
#include "model/world.h"

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

/* err past its first line when that line says a previous run is replaced
 * (tssim run says so even with -q). */
static const char *past_replacing(const char *err)
{
  return strncmp(err, "tssim: replacing ", 17) == 0 && strchr(err, '\n') ? strchr(err, '\n') + 1 : err;
}

/* The note of a sweep whose every point gave identical replications (a
 * model without random draws), up to its count of points. */
#define IDENTICAL_NOTE "tssim: note: every point's replications gave identical values ("
#define IDENTICAL_REST " point(s) run with 2 or more replications; the first: "

/* Remove from err the identical-replications note (its line), and return
 * whether it was there: what a test of another note on a model without
 * random draws expects besides its own. */
static int drop_identical(char *err)
{
  char *at = strstr(err, IDENTICAL_NOTE);
  if (!at) /* after sensitivity, optimize and calibrate */
    at = strstr(err, "tssim: note: every setting tried gave identical replications (");
  char *end = at ? strchr(at, '\n') : NULL;
  if (!end)
    return 0;
  memmove(at, end + 1, strlen(end + 1) + 1);
  return 1;
}

/* Remove from err the note that hash dispatch of fixed ids places every
 * replication alike (its line), and return whether it was there. */
static int drop_fixed_placement(char *err)
{
  char *hit = strstr(err, ": dispatch hash places each actor by a fixed id ("), *end = hit ? strchr(hit, '\n') : NULL;
  if (!end)
    return 0;
  while (hit > err && hit[-1] != '\n') /* back to the start of its line */
    hit--;
  memmove(hit, end + 1, strlen(end + 1) + 1);
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

static char tmp[PATH_MAX];

static void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "hard");
}

static void remove_tmp(void)
{
  tu_rmtree(tmp);
}

/* tmp/name, in a static buffer (one at a time). */
static const char *at(const char *name)
{
  static char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  return path;
}

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

/* Run tssim run tmp/s.json into tmp/OUT with the extra arguments; stderr
 * into *err. */
static int run_set(const char *out, const char *extra, char **err)
{
  size_t cap = strlen(extra) + 2 * PATH_MAX + 64;
  char *args = malloc(cap);
  ck_assert_ptr_nonnull(args);
  snprintf(args, cap, "run '%s/s.json' -q --no-plots -o '%s/%s' %s", tmp, tmp, out, extra);
  int rc = tu_tssim(args, NULL, err);
  free(args);
  return rc;
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

/* ---- messages name what failed where ---- */

/* A step failing while running names the sweep point by the scenario's
 * axis names and value labels (policy=fifo variant=broken), not by axis
 * and value indexes; the JSON path of the step follows. */
START_TEST(hard_run_time_failure_names_the_axis_labels)
{
  tu_write_file(at("m.json"), "{\"params\": {\"k\": 0}, \"worker\": {\"policy\": \"fifo\"},\n"
                              " \"locks\": [{\"name\": \"g\", \"scope\": \"indexed\", \"instances\": 2}],\n"
                              " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [\n"
                              "  {\"op\": \"lock\", \"lock\": \"g\", \"index\": \"i + $k\"}, {\"op\": \"cpu\", \"ms\": 1},\n"
                              "  {\"op\": \"unlock\", \"lock\": \"g\"}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"ax\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1],\n"
                              " \"axes\": {\"policy\": {\"path\": \"worker.policy\", \"values\": [\"fifo\", \"shortest_first\"]},\n"
                              "  \"variant\": {\"sets\": {\"fine\": {\"params.k\": 0}, \"broken\": {\"params.k\": 5}}}}}\n");
  char *err;
  ck_assert_int_eq(run_set("out", "", &err), 2);
  ck_assert_msg(strstr(err, "/m.json: n=1 workers=1 replication 0 policy=fifo variant=broken: classes[0].program[0]: "
                            "index \"i + $k\" is 5 for actor 0 (class a, i = 0): expected an integer in [0, 2)\n"),
                "%s", err);
  free(err);
}
END_TEST

/* An indexed lock's index that is in range but not an integer (0.5, just
 * below 1) fails the run, named, as one out of range does. */
START_TEST(hard_index_that_is_not_an_integer_fails)
{
  static const char *const ks[] = {"0.5", "0.9999999999"};
  for (int k = 0; k < 2; k++) {
    char model[1024], want[256];
    snprintf(model, sizeof model,
             "{\"params\": {\"k\": %s}, \"worker\": {\"policy\": \"fifo\"},\n"
             " \"locks\": [{\"name\": \"g\", \"scope\": \"indexed\", \"instances\": 2}],\n"
             " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [\n"
             "  {\"op\": \"lock\", \"lock\": \"g\", \"index\": \"i + $k\"}, {\"op\": \"cpu\", \"ms\": 1},\n"
             "  {\"op\": \"unlock\", \"lock\": \"g\"}]}]}\n",
             ks[k]);
    tu_write_file(at("m.json"), model);
    tu_write_file(at("s.json"), "{\"name\": \"frac\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}\n");
    char *err;
    ck_assert_int_eq(run_set("out", "", &err), 2);
    snprintf(want, sizeof want, "index \"i + $k\" is %s for actor 0 (class a, i = 0): expected an integer in [0, 2)\n",
             k ? "1" : "0.5"); /* (%g: 0.9999999999 prints as 1) */
    ck_assert_msg(strstr(err, want), "%s", err);
    free(err);
  }
}
END_TEST

/* ---- arrivals that outpace the workers ---- */

/* A class that arrives until the horizon faster than its worker serves it
 * (a 2 ms job every 1 ms on one event loop: load 2) ends with half of its
 * arrivals not done (arrivals at 0, 1, ..., 1000 ms; job k done at 2k + 2 ms:
 * 500 done); the run says so on stderr (exit 0: the metrics are what
 * happened until the horizon). The same class at load 0.5 leaves at most one
 * job, and the run says nothing. sensitivity, optimize and calibrate say it
 * once, summed. calibrate's first is that of its first evaluation, the start
 * (a 1 ms job every 0.1 ms: 9001 of 10001 not done), with any number of
 * threads, though with two the other evaluates a quasi-random start (a
 * longer period: fewer arrivals, done sooner) at the same time; a search of
 * periods of 2-4 ms says nothing. */
START_TEST(hard_backlog_at_the_horizon_is_said)
{
  tu_write_file(at("m.json"), "{\"params\": {\"cost\": 2}, \"classes\": [{\"name\": \"job\", \"count\": \"forever\",\n"
                              " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 1},\n"
                              " \"program\": [{\"op\": \"cpu\", \"ms\": \"$cost\"}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"b\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], "
                              "\"replications\": 2, \"horizon_ms\": 1000}\n");
  char *err;
  ck_assert_int_eq(run_set("b", "", &err), 0);
  ck_assert(drop_identical(err)); /* periodic arrivals, fixed costs: nothing random */
  ck_assert_str_eq(err, "tssim: note: 2 replication(s) ended with a backlog (the first: n=1 workers=1 replication 0: "
                        "501 of 1001 arrivals not done at 1000 ms): the arrivals may outpace the workers (an offered "
                        "load above what they serve), and then the metrics describe a queue that grew until the "
                        "horizon, not a steady state\n");
  free(err);
  ck_assert_int_eq(run_set("b", "--set params.cost=0.5", &err), 0);
  ck_assert(drop_identical(err));
  ck_assert_str_eq(past_replacing(err), "");
  free(err);
  /* sensitivity and optimize say it too (once, summed over their sweeps), and not at load 0.5 */
  static const char *const explore[] = {"sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param params.cost "
                                        "--scales 1 --metric wave_ms --set params.cost=%s",
                                        "optimize '%s/s.json' -q --no-plots -o '%s/x' --minimize wave_ms "
                                        "--grid 3 --max-evals 6 --field params.cost=%s"};
  static const char *const values[][2] = {{"2", "0.5"}, {"1.5:2 --set params.cost=2", "0.1:0.5 --set params.cost=0.5"}};
  for (int k = 0; k < 4; k++) {
    char args[3 * PATH_MAX];
    snprintf(args, sizeof args, explore[k / 2], tmp, tmp, values[k / 2][k % 2]);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    if (k % 2) {
      ck_assert_msg(!strstr(err, "backlog"), "%s: %s", args, err);
    } else {
      ck_assert_msg(strstr(err, "replication(s) ended with a backlog (the first: n=1 workers=1 replication 0: "),
                    "%s: %s", args, err);
    }
    free(err);
  }
  char *said[2] = {NULL, NULL};
  for (int k = 0; k < 4; k++) {
    char model[600], args[5 * PATH_MAX];
    snprintf(model, sizeof model, "{\"params\": {\"p\": 1}, \"free\": [{\"name\": \"p\", \"path\": \"params.p\", "
             "\"min\": %s}], \"classes\": [{\"name\": \"job\", \"count\": \"forever\", \"arrival\": {\"kind\": "
             "\"periodic\", \"period_ms\": \"$p\"}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}\n",
             k < 2 ? "0.1, \"max\": 0.75, \"start\": 0.1" : "2, \"max\": 4, \"start\": 2");
    tu_write_file(at("mc.json"), model);
    tu_write_file(at("bl.json"), "{\"points\": [{\"n\": 1, \"workers\": 1, \"metrics\": {\"wave_ms\": 1000}}]}\n");
    snprintf(args, sizeof args, "calibrate '%s/mc.json' '%s/bl.json' --scenario '%s/s.json' -r 2 --starts 3 --searches 1 "
             "--max-iter 2 -q -o '%s/fitted.json' --jobs %d", tmp, tmp, tmp, tmp, k % 2 + 1);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    ck_assert_msg(drop_identical(err), "%s: %s", args, err);
    if (k < 2) {
      ck_assert_msg(strstr(err, "tssim: note: ") == err && !strstr(err + 1, "tssim: note: ") &&
                      strstr(err, " replication(s) ended with a backlog (the first: n=1 workers=1 replication 0: 9001 "
                                  "of 10001 arrivals not done at 1000 ms): the arrivals may outpace the workers"),
                    "%s: %s", args, err);
      said[k] = err;
    } else {
      ck_assert_msg(!strstr(err, "backlog"), "%s: %s", args, err);
      free(err);
    }
  }
  ck_assert_str_eq(said[0], said[1]); /* --jobs 1 and 2: the same count, the same first */
  free(said[0]);
  free(said[1]);
}
END_TEST

/* A sweep over n of a model that reads n nowhere gets a note (its rows
 * would differ only by their random streams); a model whose count is n, one
 * whose axis makes its count n in one variant, or one n, does not. So do
 * sensitivity (the same sweep) and calibrate (a baseline recording two n). */
START_TEST(hard_n_read_nowhere_is_said)
{
  static const char *const counts[] = {"3", "\"n\""};
  for (int k = 0; k < 2; k++) {
    char model[300];
    snprintf(model, sizeof model, "{\"classes\": [{\"name\": \"a\", \"count\": %s, \"program\": [{\"op\": \"cpu\", "
             "\"ms\": 1, \"dist\": \"exponential\"}]}]}\n", counts[k]);
    tu_write_file(at("m.json"), model);
    for (int many = 0; many < 2; many++) {
      tu_write_file(at("s.json"), many ? "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1]}\n"
                                       : "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1]}\n");
      char *err;
      ck_assert_int_eq(run_set("u", "", &err), 0);
      const char *said = strstr(err, "tssim: note: ");
      if (k == 0 && many) {
        ck_assert_ptr_nonnull(said);
        ck_assert_msg(strstr(said, "/s.json sweeps n over 2 values, but model ") &&
                        strstr(said, "/m.json reads n nowhere (no expression, no host.cpu_scale_by_n): its points "
                                     "differ only by their random streams\n"),
                    "%s", err);
      } else {
        ck_assert_msg(!said, "count %s, %s: %s", counts[k], many ? "n [1, 2]" : "n [2]", err);
      }
      free(err);
    }
  }
  tu_write_file(at("s.json"), "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1], "
                              "\"axes\": {\"c\": {\"path\": \"classes[0].count\", \"values\": [3, \"n\"]}}}\n");
  tu_write_file(at("m.json"), "{\"classes\": [{\"name\": \"a\", \"count\": 3, \"program\": [{\"op\": \"cpu\", "
                              "\"ms\": 1}]}]}\n");
  char *err;
  ck_assert_int_eq(run_set("u", "", &err), 0);
  ck_assert_msg(!strstr(err, "tssim: note: "), "an axis variant reads n: %s", err);
  free(err);
  tu_write_file(at("s.json"), "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1]}\n");
  tu_write_file(at("bl.json"), "{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}}, {\"n\": 2, \"metrics\": "
                               "{\"wave_ms\": 2}}]}\n");
  for (int k = 0; k < 4; k++) {
    char model[300], args[5 * PATH_MAX];
    snprintf(model, sizeof model, "{\"params\": {\"c\": 1}, \"free\": [{\"name\": \"c\", \"path\": \"params.c\", "
             "\"min\": 0.5, \"max\": 2}], \"classes\": [{\"name\": \"a\", \"count\": %s, \"program\": [{\"op\": "
             "\"cpu\", \"ms\": \"$c\"}]}]}\n", counts[k % 2]);
    tu_write_file(at("m.json"), model);
    if (k < 2)
      snprintf(args, sizeof args, "sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param params.c --scales 1 "
               "--metric wave_ms", tmp, tmp);
    else
      snprintf(args, sizeof args, "calibrate '%s/m.json' '%s/bl.json' --starts 0 --max-iter 2 -q -o '%s/f.json'", tmp,
               tmp, tmp);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    ck_assert_msg(drop_identical(err) == (k >= 2), "%s: %s", args, err); /* calibrate's 3 replications */
    char want[3 * PATH_MAX];
    snprintf(want, sizeof want, "tssim: note: %s/%s, but model %s/m.json reads n nowhere (no expression, no "
             "host.cpu_scale_by_n): its points differ only by their random streams\n", tmp,
             k < 2 ? "s.json sweeps n over 2 values" : "bl.json records n at 2 values", tmp);
    if (k % 2)
      ck_assert_msg(!strstr(err, "tssim: note: "), "%s: %s", args, err);
    else
      ck_assert_str_eq(err, want);
    free(err);
  }
}
END_TEST

/* A model without random draws gives every replication the same values:
 * a note says its intervals are 0 because nothing varies (all points, the
 * first named; with -q too), and sensitivity says it as well. A spread on
 * the CPU step, or one replication, says nothing; nor does a random model
 * at a point where a metric happens not to vary (workers 2: no wait),
 * since the others do. A table of metrics that never vary gets the note. */
START_TEST(hard_identical_replications_are_said)
{
  static const char *const models[] = {"", ", \"dist\": \"exponential\""};
  for (int k = 0; k < 2; k++) {
    char model[400];
    snprintf(model, sizeof model, "{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\"}], \"classes\": [{\"name\": "
             "\"a\", \"count\": \"n\", \"program\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", "
             "\"ms\": 1%s}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}\n", models[k]);
    tu_write_file(at("m.json"), model);
    tu_write_file(at("s.json"), "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [2, 3], \"workers\": [1, 2], "
                                "\"replications\": 3, \"table\": [\"wave_ms\", \"mutex_wait_ms\"]}\n");
    char *err;
    ck_assert_int_eq(run_set("d", "", &err), 0);
    /* hash dispatch of fixed ids on 2 workers over 3 replications: said too (docs/output.md) */
    ck_assert_msg(drop_fixed_placement(err), "%s", err);
    if (k == 0)
      ck_assert_str_eq(past_replacing(err), IDENTICAL_NOTE "4" IDENTICAL_REST "n=2 workers=1): the model draws nothing "
                       "random that reaches the metrics, so the 95% intervals are 0 because nothing varies, not "
                       "because the estimates are exact, and more replications add nothing; give CPU steps a spread "
                       "(\"dist\": \"lognormal\", \"cv\": 0.3) or the arrivals randomness (\"poisson\", or "
                       "\"jitter_ms\") (docs/language.md)\n");
    else
      ck_assert_str_eq(past_replacing(err), "");
    free(err);
    ck_assert_int_eq(run_set("d", "-r 1", &err), 0);
    ck_assert_str_eq(past_replacing(err), "");
    free(err);
    char args[3 * PATH_MAX];
    snprintf(args, sizeof args, "sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param 'classes[0].program[1].ms' "
             "--scales 1 --metric wave_ms", tmp, tmp);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    ck_assert_msg((strstr(err, "tssim: note: every setting tried gave identical replications (") != NULL) == (k == 0),
                  "%s: %s", args, err);
    free(err);
  }
  /* the random model, with a table of a metric it never makes vary (one worker: no lock wait) */
  tu_write_file(at("s.json"), "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1], "
                              "\"replications\": 3, \"table\": [\"mutex_wait_ms\"]}\n");
  char *err;
  ck_assert_int_eq(run_set("d", "", &err), 0);
  ck_assert_msg(strstr(err, IDENTICAL_NOTE "1" IDENTICAL_REST "n=2 workers=1)"), "%s", err);
  free(err);
}
END_TEST

/* A world stops an arrival that would make more than spec.max_alive actors
 * alive at once (TS_WORLD_MAX_ACTORS, 10,000,000, without one) with
 * TS_WORLD_MODEL and a line naming the class, instead of growing until
 * memory runs out: 100 alive at most, a 2 ms job every 1 ms (job k arrives at
 * k ms and is done at 2k + 2 ms), so the arrival at 199 ms (199 made, 99
 * done) is refused. A spec asking for more than
 * TS_WORLD_MAX_ACTORS gets TS_WORLD_MAX_ACTORS. */
START_TEST(hard_actors_alive_at_once_are_bounded)
{
  ts_model m;
  tu_model("{\"name\": \"t\", \"classes\": [{\"name\": \"job\", \"count\": \"forever\", \"arrival\": {\"kind\": "
           "\"periodic\", \"period_ms\": 1}, \"program\": [{\"op\": \"cpu\", \"ms\": 2}]}]}",
           &m);
  for (int k = 0; k < 2; k++) {
    ts_world w;
    ts_world_spec spec = tu_world_spec(1, 1, 1);
    spec.horizon = ts_time_from_ms(1000);
    spec.max_alive = k ? TS_WORLD_MAX_ACTORS + 1 : 100;
    ck_assert_int_eq(ts_world_init(&w, &m, &spec, NULL), 0);
    int rc = ts_world_run(&w);
    if (k) {
      ck_assert_int_eq(rc, TS_WORLD_OK);
      ck_assert_int_eq(w.max_alive, TS_WORLD_MAX_ACTORS);
    } else {
      ck_assert_int_eq(rc, TS_WORLD_MODEL);
      ck_assert_str_eq(w.errmsg, "classes[0].arrival: class job: 100 actors alive at 199 ms (199 made, 99 done) at "
                                 "n = 1: expected at most 100 at once (do the arrivals outpace the workers?)");
    }
    ts_world_finish(&w);
  }
  ts_model_finish(&m);
}
END_TEST

/* ---- a window past the run ---- */

/* A window that starts after the run ended measured nothing: its metrics
 * are empty (not 0.000000 as if measured) and a note says why; the
 * metrics of the whole run keep their values; a window that starts before
 * the end is measured. sensitivity and calibrate say it too, once. */
START_TEST(hard_window_after_the_run_is_empty_and_said)
{
  tu_write_file(at("m.json"), "{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\"}],\n"
                              " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"size_bytes\": 100, \"program\": [\n"
                              "  {\"op\": \"span_begin\", \"span\": \"s\"}, {\"op\": \"lock\", \"lock\": \"m\"},\n"
                              "  {\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"m\"},\n"
                              "  {\"op\": \"span_end\", \"span\": \"s\"}]}]}\n");
  static const char *const windowed[] = {"cpu_cores", "mutex_wait_ms", "lock_wait_share", "memory_bytes", "s_count",
                                         "s_rate_per_s", "s_p50_ms", NULL};
  for (int late = 1; late >= 0; late--) {
    char scen[300];
    snprintf(scen, sizeof scen, "{\"name\": \"w\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1], "
             "\"replications\": 2, \"warmup_ms\": %s}\n", late ? "1e9" : "0.5");
    tu_write_file(at("s.json"), scen);
    char *err;
    ck_assert_int_eq(run_set("w", "", &err), 0);
    ck_assert(drop_identical(err)); /* fixed costs, no arrivals: nothing random */
    if (late)
      ck_assert_str_eq(err, "tssim: note: the measurement window starts at 1e+09 ms (warmup_ms), after 4 "
                            "replication(s) had ended (the first: n=1 workers=1 replication 0 ended at 1 ms): their "
                            "CPU, mutex, instruction, memory and span metrics are empty, not 0\n");
    else
      ck_assert_str_eq(past_replacing(err), ""); /* the folder holds the late run */
    free(err);
    tu_write_file(at("bl.json"), "{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}}]}\n");
    for (int k = 0; k < 2; k++) {
      char args[5 * PATH_MAX];
      if (k == 0)
        snprintf(args, sizeof args, "sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param 'classes[0].program[2].ms' "
                 "--scales 1 --metric wave_ms", tmp, tmp);
      else
        snprintf(args, sizeof args, "calibrate '%s/m.json' '%s/bl.json' --scenario '%s/s.json' --starts 0 --max-iter 2 "
                 "-q -o '%s/f.json' --set 'free=[{\"name\": \"c\", \"path\": \"classes[0].program[2].ms\", "
                 "\"min\": 0.5, \"max\": 2}]'", tmp, tmp, tmp, tmp);
      ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
      drop_identical(err); /* calibrate's replications; sensitivity runs one */
      const char *said = strstr(err, "tssim: note: the measurement window starts at 1e+09 ms (warmup_ms), after ");
      ck_assert_msg(late ? said && strstr(said, " replication(s) had ended (the first: n=1 workers=1 replication 0 "
                                                "ended at 1 ms): their CPU") && !strstr(said + 1, "tssim: note")
                         : !strstr(err, "tssim: note"), "%s: %s", args, err);
      free(err);
    }
    tu_table t;
    tu_table_read(&t, at("w/summary.csv"));
    for (int row = 0; row < 2; row++) {
      for (int i = 0; windowed[i]; i++)
        ck_assert_msg((tu_table_cell(&t, row, windowed[i])[0] == '\0') == late, "%s at row %d: \"%s\"", windowed[i],
                      row, tu_table_cell(&t, row, windowed[i]));
      ck_assert((tu_table_cell(&t, row, "cpu_cores_mean")[0] == '\0') == late);
      ck_assert_str_eq(tu_table_cell(&t, row, "queue_depth"), "0.000000"); /* the whole run's */
      ck_assert_double_eq(tu_table_num(&t, row, "cpu_ms"), 1.0);
    }
    tu_table_free(&t);
  }
}
END_TEST

/* ---- faults: full disks, memory, standard output ---- */

/* Run `tssim ARGS` from the source root in a shell that first runs prefix
 * (limits: "ulimit -f 64"), its standard output into stdout_path (a
 * device); stderr into *err. Returns the exit status. */
static int tssim_to(const char *prefix, const char *args, const char *stdout_path, char **err)
{
  char cmd[4 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "cd '%s' && %s; %s '%s' %s >%s 2>'%s'", tu_source_root(), prefix, tu_tssim_wrapper(),
           getenv("TSSIM_BINARY"), args, stdout_path, at("err"));
  int status = system(cmd);
  ck_assert_msg(WIFEXITED(status), "did not exit: %s", cmd);
  *err = tu_read_file(at("err"), NULL);
  return WEXITSTATUS(status);
}

/* tssim_to with standard output dropped. */
static int tssim_under(const char *prefix, const char *args, char **err)
{
  return tssim_to(prefix, args, "/dev/null", err);
}

/* Files in dir whose names a batch uses only while it runs (*.tmp.PID, *.old.PID). */
static int leftovers(const char *dir)
{
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));)
    n += strstr(de->d_name, ".tmp.") != NULL || strstr(de->d_name, ".old.") != NULL;
  closedir(d);
  return n;
}

/* Into folder out (under limits prefix): a small run that fits, then one
 * whose samples do not (n = 1000, 270 KB a replication) on jobs threads:
 * exit status 3, one line naming samples.csv and why, and the small run's
 * files left as they were, without temporaries. */
static void full_disk(const char *prefix, const char *out, const char *why, int jobs)
{
  char args[2 * PATH_MAX], *err, path[PATH_MAX + 32], want[3 * PATH_MAX];
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 2 -r 1 -q --no-plots -o '%s'", out);
  ck_assert_int_eq(tssim_under(prefix, args, &err), 0);
  free(err);
  snprintf(path, sizeof path, "%s/summary.csv", out);
  char *before = tu_read_file(path, NULL);
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 1000 -r 2 -j %d -q --no-plots -o '%s'", jobs, out);
  ck_assert_int_eq(tssim_under(prefix, args, &err), 3);
  snprintf(want, sizeof want, "tssim: %s/samples.csv: cannot write: %s (n=1000 workers=1 replication ", out, why);
  const char *said = past_replacing(err); /* the small run is there */
  ck_assert_msg(strstr(said, want) == said && strstr(said, "left as it was\n") && strchr(said, '\n')[1] == '\0',
                "%s", err);
  free(err);
  char *after = tu_read_file(path, NULL);
  ck_assert_str_eq(before, after);
  ck_assert_int_eq(leftovers(out), 0);
  free(before);
  free(after);
}

/* A full disk while the samples stream out was "cannot write the samples",
 * exit 1, no path. On a 64 KB tmpfs when this test may mount one (root),
 * and always with a file-size limit (EFBIG: the same failed write, as any
 * user can make it). */
START_TEST(hard_full_disk_is_an_output_failure)
{
  char mnt[PATH_MAX + 64], cmd[2 * PATH_MAX + 64], out[PATH_MAX + 128];
  snprintf(mnt, sizeof mnt, "%s", at("mnt"));
  ck_assert_int_eq(mkdir(mnt, 0777), 0);
  snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k tmpfs '%s' 2>/dev/null", mnt);
  if (system(cmd) == 0) {
    snprintf(out, sizeof out, "%s/out", mnt);
    full_disk(":", out, "No space left on device", 1);
    snprintf(cmd, sizeof cmd, "umount '%s'", mnt);
    ck_assert_int_eq(system(cmd), 0);
  }
  for (int jobs = 1; jobs <= 2; jobs++) {
    snprintf(out, sizeof out, "%s/limited-%d", tmp, jobs);
    full_disk("trap '' XFSZ; ulimit -f 64", out, "File too large", jobs);
  }
}
END_TEST

/* A failed write of standard output is exit 3 for version and help too. */
START_TEST(hard_version_to_a_full_device_fails)
{
  struct stat st;
  if (stat("/dev/full", &st) != 0)
    return;
  static const char *const args[] = {"version", "--version", "help", NULL};
  for (int i = 0; args[i]; i++) {
    char *err;
    ck_assert_int_eq(tssim_to(":", args[i], "/dev/full", &err), 3);
    ck_assert_str_eq(err, "tssim: cannot write to standard output: No space left on device\n");
    free(err);
  }
}
END_TEST

/* A model that cannot be parsed for want of memory (an address-space limit)
 * is said to be so, exit 1: it was "malformed JSON at line 1", exit 2. Not
 * under a sanitizer or valgrind, which need address space of their own. */
START_TEST(hard_out_of_memory_is_not_malformed_json)
{
#if defined(__SANITIZE_ADDRESS__)
  return;
#endif
  if (tu_tssim_wrapper()[0])
    return;
  enum { ITEMS = 4000000 }; /* 8 MB of text, some 300 MB as a tree */
  char *text = malloc(2 * ITEMS + 256);
  ck_assert_ptr_nonnull(text);
  size_t len = (size_t)sprintf(text, "{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}], "
                                     "\"notes\": [1");
  for (int i = 1; i < ITEMS; i++) {
    text[len++] = ',';
    text[len++] = '1';
  }
  strcpy(text + len, "]}\n");
  tu_write_file(at("m.json"), text);
  cJSON *root;
  ts_err e;
  ck_assert_int_eq(ts_json_parse(text, len + 3, "m.json", &root, &e), 0); /* valid, given the memory */
  cJSON_Delete(root);
  free(text);
  tu_write_file(at("s.json"), "{\"name\": \"big\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}\n");
  char args[3 * PATH_MAX], s_json[PATH_MAX + 64], *err;
  snprintf(s_json, sizeof s_json, "%s", at("s.json"));
  snprintf(args, sizeof args, "run '%s' -q --no-plots -o '%s'", s_json, at("out"));
  ck_assert_int_eq(tssim_under("ulimit -v 200000", args, &err), 1);
  ck_assert_msg(strstr(err, "/m.json: out of memory parsing the JSON text (8000077 bytes; the text was not at fault)\n"),
                "%s", err);
  free(err);
}
END_TEST

/* ---- results folders: leftovers and concurrent runs ---- */

/* Start `tssim ARGS` from the source root (its pid is the process's, under
 * the test wrapper too), stderr into errfile; returns the pid. */
static pid_t spawn(const char *args, const char *errfile)
{
  char cmd[4 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "cd '%s' && exec %s '%s' %s >/dev/null 2>'%s'", tu_source_root(), tu_tssim_wrapper(),
           getenv("TSSIM_BINARY"), args, errfile);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Wait until path exists (a file a spawned run makes), at most limit_s seconds. */
static int appears(const char *path, const char *text, int limit_s)
{
  for (int i = 0; i < limit_s * 20; i++) {
    struct stat st;
    if (stat(path, &st) == 0) {
      if (!text)
        return 1;
      char *have = tu_read_file(path, NULL);
      int found = strstr(have, text) != NULL;
      free(have);
      if (found)
        return 1;
    }
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  return 0;
}

/* The exit status of spawned pid. */
static int reap(pid_t pid)
{
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* A pid no process has (a child that has exited and was reaped). */
static long dead_pid(void)
{
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(0);
  ck_assert_int_eq(reap(pid), 0);
  return (long)pid;
}

/* A run killed with SIGKILL left samples.csv.tmp.PID (megabytes each time);
 * the next run into the folder removes it, and what another dead run's
 * commit had moved aside comes back, while a live process's temporary stays. */
START_TEST(hard_leftovers_of_killed_runs_are_cleaned)
{
  char args[2 * PATH_MAX], path[PATH_MAX + 128], *err;
  const char *out = at("out");
  char outdir[PATH_MAX + 64];
  snprintf(outdir, sizeof outdir, "%s", out);
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 1000,2000,4000 -r 50 -j 1 -q --no-plots -o '%s'", outdir);
  pid_t pid = spawn(args, at("err"));
  snprintf(path, sizeof path, "%s/samples.csv.tmp.%ld", outdir, (long)pid);
  ck_assert_msg(appears(path, NULL, 120), "no %s", path);
  kill(pid, SIGKILL);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFSIGNALED(status));
  ck_assert_int_eq(access(path, F_OK), 0); /* left behind */
  /* what other dead runs left, and a live process's temporary */
  long dead = dead_pid();
  char old[PATH_MAX + 128], live[PATH_MAX + 128], log[PATH_MAX + 128];
  snprintf(old, sizeof old, "%s/summary.csv.old.%ld", outdir, dead);
  snprintf(log, sizeof log, "%s/.wave.log.%ld", outdir, dead);
  snprintf(live, sizeof live, "%s/model.json.tmp.%ld", outdir, (long)getpid());
  tu_write_file(old, "the previous summary\n");
  tu_write_file(log, "gnuplot said\n");
  tu_write_file(live, "being written\n");
  /* a run that fails at its first replication still cleans (it holds the folder) */
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 2 -r 1 --no-plots -o '%s' --set 'classes[0].count=n / 3'",
           outdir);
  ck_assert_int_eq(tssim_under(":", args, &err), 2);
  char want[PATH_MAX + 200];
  snprintf(want, sizeof want, "tssim: %s: removed 3 temporary file(s) a run that did not finish left there (", outdir);
  ck_assert_msg(strstr(err, want) == err, "%s", err);
  free(err);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_ne(access(log, F_OK), 0);
  ck_assert_int_ne(access(old, F_OK), 0);
  snprintf(path, sizeof path, "%s/summary.csv", outdir);
  char *back = tu_read_file(path, NULL);
  ck_assert_str_eq(back, "the previous summary\n");
  free(back);
  ck_assert_int_eq(access(live, F_OK), 0);
  ck_assert_int_eq(remove(live), 0);
  ck_assert_int_eq(leftovers(outdir), 0);
}
END_TEST

/* A run into a folder another run holds waits for it, saying so, and
 * writes nothing until the folder is released. */
START_TEST(hard_second_run_waits_for_the_folder)
{
  char outdir[PATH_MAX + 64], args[2 * PATH_MAX], path[PATH_MAX + 128], errfile[PATH_MAX + 64];
  snprintf(outdir, sizeof outdir, "%s", at("out"));
  snprintf(errfile, sizeof errfile, "%s", at("err"));
  ck_assert_int_eq(mkdir(outdir, 0777), 0);
  int fd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* not held by the run it starts */
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(flock(fd, LOCK_EX), 0); /* as a run holds it */
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 2 -r 1 --no-plots -o '%s'", outdir);
  pid_t pid = spawn(args, errfile);
  char want[PATH_MAX + 256];
  snprintf(want, sizeof want, "tssim: %s: another tssim run is writing into this folder; waiting for it to finish\n",
           outdir);
  ck_assert_msg(appears(errfile, want, 120), "no waiting line");
  ck_assert_int_eq(leftovers(outdir), 0); /* nothing written while it waits */
  snprintf(path, sizeof path, "%s/summary.csv", outdir);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_eq(close(fd), 0);
  ck_assert_int_eq(reap(pid), 0);
  ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* `tssim sensitivity` and `tssim optimize` hold their results folder as a
 * run does: one into a folder another command holds waits, saying so, and
 * writes nothing until it is released; then it cleans what a killed run left
 * there (a dead pid's temporary) and writes its files. */
START_TEST(hard_sensitivity_and_optimize_wait_for_the_folder)
{
  static const char *const cmds[][2] = {
    {"sensitivity scenarios/rr-wave.json --n 2 -r 1 --param params.c_ms --metric wave_ms --scales 1 --no-plots",
     "sensitivity.csv"},
    {"optimize scenarios/rr-wave.json --n 2 -r 1 --minimize wave_ms --field params.c_ms=1:10 --no-plots", "best.json"},
  };
  for (int c = 0; c < 2; c++) {
    char outdir[PATH_MAX + 80], args[2 * PATH_MAX], path[PATH_MAX + 128], dead[PATH_MAX + 128], errfile[PATH_MAX + 80];
    snprintf(outdir, sizeof outdir, "%s%d", at("out"), c);
    snprintf(errfile, sizeof errfile, "%s%d", at("err"), c);
    ck_assert_int_eq(mkdir(outdir, 0777), 0);
    snprintf(dead, sizeof dead, "%s/%s.tmp.%ld", outdir, cmds[c][1], dead_pid());
    tu_write_file(dead, "half a file\n");
    int fd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0); /* as a run holds it */
    snprintf(args, sizeof args, "%s -o '%s'", cmds[c][0], outdir);
    pid_t pid = spawn(args, errfile);
    char want[PATH_MAX + 256];
    snprintf(want, sizeof want, "tssim: %s: another tssim run is writing into this folder; waiting for it to finish\n",
             outdir);
    ck_assert_msg(appears(errfile, want, 120), "%s: no waiting line", cmds[c][1]);
    snprintf(path, sizeof path, "%s/%s", outdir, cmds[c][1]);
    ck_assert_int_ne(access(path, F_OK), 0); /* nothing written while it waits */
    ck_assert_int_eq(leftovers(outdir), 1);
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_eq(reap(pid), 0);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_ne(access(dead, F_OK), 0);
    ck_assert_int_eq(leftovers(outdir), 0);
    snprintf(want, sizeof want, "tssim: %s: removed 1 temporary file(s) a run that did not finish left there (", outdir);
    ck_assert_msg(appears(errfile, want, 1), "%s: the dead run's temporary was not said to be removed", cmds[c][1]);
  }
}
END_TEST

/* Three runs at once into one folder, each with its own cost: they take
 * turns, all succeed, and the folder is one run's whole (its summary's
 * cpu_ms is its samples' cpu_ms), round after round. It was mixed in about
 * 1 of 80 rounds (summary.csv from one run, samples.csv from another). */
START_TEST(hard_concurrent_runs_leave_one_whole_folder)
{
  char outdir[PATH_MAX + 64], cmd[8 * PATH_MAX], status_file[PATH_MAX + 64];
  snprintf(outdir, sizeof outdir, "%s", at("out"));
  for (int round = 0; round < 4; round++) {
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "cd '%s' && (", tu_source_root());
    for (int k = 1; k <= 3; k++)
      len += (size_t)snprintf(cmd + len, sizeof cmd - len,
                              "(%s '%s' run scenarios/rr-wave.json --n 300 -r 2 -j 1 -q --no-plots -o '%s' "
                              "--set params.c_ms=%d; echo $? >'%s/status%d') & ",
                              tu_tssim_wrapper(), getenv("TSSIM_BINARY"), outdir, 100 * k, tmp, k);
    snprintf(cmd + len, sizeof cmd - len, "wait) >/dev/null 2>&1");
    ck_assert_int_eq(system(cmd), 0);
    for (int k = 1; k <= 3; k++) {
      snprintf(status_file, sizeof status_file, "%s/status%d", tmp, k);
      char *st = tu_read_file(status_file, NULL);
      ck_assert_str_eq(st, "0\n");
      free(st);
    }
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/summary.csv", outdir);
    tu_table sum, smp;
    tu_table_read(&sum, path);
    snprintf(path, sizeof path, "%s/samples.csv", outdir);
    tu_table_read(&smp, path);
    double cpu = tu_table_num(&sum, 0, "cpu_ms");
    ck_assert(cpu == 100 || cpu == 200 || cpu == 300);
    for (int r = 0; r < sum.nrows; r++)
      ck_assert_double_eq(tu_table_num(&sum, r, "cpu_ms"), cpu);
    ck_assert_int_eq(smp.nrows, 2 * 300 * 2); /* two worker counts, 300 actors, 2 replications */
    for (int r = 0; r < smp.nrows; r++)
      ck_assert_double_eq(tu_table_num(&smp, r, "cpu_ms"), cpu);
    tu_table_free(&sum);
    tu_table_free(&smp);
    ck_assert_int_eq(leftovers(outdir), 0);
  }
}
END_TEST

Suite *hard_suite(void)
{
  Suite *s = suite_create("hard");
  const TTest *const expressions[] = {hard_expression_nesting_is_limited, hard_expression_refusal_keeps_the_reason,
                                      NULL};
  const TTest *const sets[] = {hard_set_value_is_parsed_whole, hard_set_on_the_command_line, NULL};
  const TTest *const models[] = {hard_after_cycles_are_refused, hard_spans_nothing_begins_are_refused, NULL};
  const TTest *const faults[] = {hard_full_disk_is_an_output_failure, hard_version_to_a_full_device_fails,
                                 hard_out_of_memory_is_not_malformed_json, NULL};
  const TTest *const folders[] = {hard_leftovers_of_killed_runs_are_cleaned, hard_second_run_waits_for_the_folder,
                                  hard_sensitivity_and_optimize_wait_for_the_folder,
                                  hard_concurrent_runs_leave_one_whole_folder, NULL};
  const TTest *const windows[] = {hard_backlog_at_the_horizon_is_said, hard_actors_alive_at_once_are_bounded,
                                  hard_n_read_nowhere_is_said, hard_identical_replications_are_said,
                                  hard_window_after_the_run_is_empty_and_said,
                                  hard_run_time_failure_names_the_axis_labels,
                                  hard_index_that_is_not_an_integer_fails, NULL};
  tu_tcase(s, "expressions", expressions, NULL, NULL, 60);
  tu_tcase(s, "set", sets, make_tmp, remove_tmp, 120);
  tu_tcase(s, "models", models, NULL, NULL, 60);
  tu_tcase(s, "runs", windows, make_tmp, remove_tmp, 120);
  tu_tcase(s, "faults", faults, make_tmp, remove_tmp, 300);
  tu_tcase(s, "folders", folders, make_tmp, remove_tmp, 600);
  return s;
}
