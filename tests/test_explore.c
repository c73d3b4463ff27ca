/* Design exploration (issue 23): `tssim sensitivity` and `tssim optimize`
 * on models whose answers are known in closed form or by hand, the issue's
 * own command, determinism for any --jobs, and every refusal of bad input
 * (exit 2, one line naming the option). Every test runs the built binary
 * (TSSIM_BINARY) on small models written into a temporary folder. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"

#include "testutil.h"

static char tmp[1024];

static void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "explore");
}

static void remove_tmp(void)
{
  tu_rmtree(tmp);
}

/* tmp/rel (testutil's rotating buffers). */
static const char *at(const char *rel)
{
  return tu_at(tmp, rel);
}

/* Write model as tmp/NAME-m.json and a scenario of it as tmp/NAME.json:
 * the given sweep fields (JSON members, e.g. "\"n\": [5], \"workers\": [1]"). */
static void write_case(const char *name, const char *model, const char *sweep)
{
  char rel[128], text[2048];
  snprintf(rel, sizeof rel, "%s-m.json", name);
  tu_write_file(at(rel), model);
  snprintf(text, sizeof text, "{\"name\": \"%s\", \"model\": \"%s-m.json\", %s}", name, name, sweep);
  snprintf(rel, sizeof rel, "%s.json", name);
  tu_write_file(at(rel), text);
}

/* models/examples/mm1.json (M/M/1 at load 0.5, 20000 jobs) with its count
 * replaced by count (14 bytes: "\"count\":  5000"), as the case "mm1". */
static void write_mm1(const char *count, const char *sweep)
{
  char *path = tu_source_path("models/examples/mm1.json");
  char *model = tu_read_file(path, NULL);
  char *at_count = strstr(model, "\"count\": 20000");
  ck_assert_ptr_nonnull(at_count);
  ck_assert_uint_eq(strlen(count), 14);
  memcpy(at_count, count, 14);
  write_case("mm1", model, sweep);
  free(model);
  free(path);
}

/* The first row from `from` of table t whose column col is value, or -1. */
static int find_row(const tu_table *t, const char *col, const char *value, int from)
{
  for (int r = from; r < t->nrows; r++)
    if (strcmp(tu_table_cell(t, r, col), value) == 0)
      return r;
  return -1;
}

/* Files names[0..n) of tmp/a and tmp/b hold the same bytes. */
static void same_files(const char *a, const char *b, const char *const *names, int n)
{
  for (int i = 0; i < n; i++) {
    char ra[64], rb[64];
    snprintf(ra, sizeof ra, "%s/%s", a, names[i]);
    snprintf(rb, sizeof rb, "%s/%s", b, names[i]);
    char *x = tu_read_file(at(ra), NULL), *y = tu_read_file(at(rb), NULL);
    ck_assert_msg(strcmp(x, y) == 0, "%s differs", names[i]);
    free(x);
    free(y);
  }
}

/* Run `tssim ARGS` (sensitivity or optimize) in this process, ARGS split at
 * spaces, '...' quoting: its exit status, and what it wrote to stderr into
 * *err (caller frees). In-process, so a refusal costs no process (the
 * valgrind setup checks this process itself). */
static int in_process(const char *args, char **err)
{
  char buf[4096], *argv[64];
  int argc = 0;
  ck_assert_uint_lt(strlen(args), sizeof buf);
  for (const char *p = args, *end; *p && argc < 63; p = end) {
    while (*p == ' ')
      p++;
    if (!*p)
      break;
    char *w = buf + (p - args);
    argv[argc++] = w;
    for (end = p; *end && *end != ' '; end++)
      if (*end == '\'') /* copy the quoted part without its quotes */
        for (end++; *end && *end != '\''; end++)
          *w++ = *end;
      else
        *w++ = *end;
    *w = '\0';
    if (*end)
      end++;
  }
  argv[argc] = NULL;
  ck_assert_int_gt(argc, 0);
  int (*cmd)(int, char **) = strcmp(argv[0], "sensitivity") == 0 ? ts_cmd_sensitivity : ts_cmd_optimize;
  gsl_set_error_handler_off();
  const char *path = at("stderr.txt");
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert(saved >= 0 && fd >= 0 && dup2(fd, 2) == 2);
  close(fd);
  int rc = cmd(argc, argv);
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  *err = tu_read_file(path, NULL);
  return rc;
}

/* `tssim ARGS` with -j 1 and with -j 3 writes the same bytes into the
 * files names[0..n). */
static void same_for_any_jobs(const char *args, const char *const *names, int n)
{
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "%s -j 1 -o '%s'", args, at("a")), 0);
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "%s -j 3 -o '%s'", args, at("b")), 0);
  same_files("a", "b", names, n);
}

/* One line on stderr naming option, exit status 2. */
static void refused(const char *option, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void refused(const char *option, const char *fmt, ...)
{
  char args[4 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  char *err;
  ck_assert_msg(in_process(args, &err) == 2, "expected exit 2 from tssim %s", args);
  ck_assert_msg(strstr(err, option) != NULL, "%s: the message does not name %s: %s", args, option, err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "%s: not one line: %s", args, err);
  ck_assert_msg(strncmp(err, "tssim: ", 7) == 0, "%s", err);
  free(err);
}

/* ---- sensitivity ---- */

/* M/M/1 at load 0.5 (models/examples/mm1.json with 5000 jobs): the mean
 * sojourn is W = S / (1 - lambda S), so its elasticity to the service time
 * S is 1 + lambda S / (1 - lambda S) = 1 / (1 - rho) = 2. Every variant
 * draws the same unit exponentials (common random numbers), so the
 * per-replication differences are the path's own derivative and the
 * interval is narrow. */
START_TEST(sensitivity_mm1_elasticity_is_one_over_one_minus_rho)
{
  write_mm1("\"count\":  5000", "\"n\": [1], \"workers\": [1], \"replications\": 4, \"seed\": 1");
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "sensitivity '%s' --param params.service_ms --metric sojourn_mean_ms "
                                   "--scales 1 -q --no-plots -o '%s'", at("mm1.json"), at("out")), 0);
  tu_table t;
  tu_table_read(&t, at("out/sensitivity.csv"));
  ck_assert_int_eq(t.nrows, 1);
  ck_assert_str_eq(tu_table_cell(&t, 0, "parameter"), "params.service_ms");
  double e = tu_table_num(&t, 0, "elasticity"), ci = tu_table_num(&t, 0, "elasticity_ci95");
  double rho = 500 * 1e-3 * 1; /* rate_per_s x service_ms */
  ck_assert_msg(fabs(e - 1 / (1 - rho)) <= ci, "elasticity %g +- %g, closed form %g", e, ci, 1 / (1 - rho));
  ck_assert_msg(ci > 0 && ci < 0.15, "half-width %g", ci);
  tu_table_free(&t);
}
END_TEST

/* Five groups ($groups) on one worker, FIFO: each does 10 ms of I/O (all at once),
 * then c = 40 ms of CPU in turn, so group i ends at 10 + (i + 1) c and the
 * median wave is 10 + 3 c. With c scaled by s the curve is 10 + 120 s,
 * linear in the scaled cost, and the elasticity at 1 is 120 / 130. */
static const char *const fifo_wave =
  "{\"name\": \"fifo\", \"params\": {\"c_ms\": 40, \"io_ms\": 10, \"groups\": 5},"
  " \"classes\": [{\"name\": \"group\", \"count\": \"$groups\", \"program\": ["
  "   {\"op\": \"io\", \"ms\": \"$io_ms\"}, {\"op\": \"cpu\", \"ms\": \"$c_ms\"}]}]}";

START_TEST(sensitivity_fifo_wave_curve_is_linear_in_the_cost)
{
  write_case("fifo", fifo_wave, "\"n\": [1], \"workers\": [1], \"replications\": 2");
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "sensitivity '%s' --param params.c_ms --param params.io_ms --metric wave_ms "
                                   "--scales 1,0.8,0.5,0.2,0 -q --no-plots -o '%s'", at("fifo.json"), at("out")),
                   0);
  tu_table c;
  tu_table_read(&c, at("out/curve.csv"));
  ck_assert_int_eq(c.nrows, 10);
  for (int r = find_row(&c, "parameter", "params.c_ms", 0), k = 0; k < 5; r++, k++) {
    double s = tu_table_num(&c, r, "scale");
    ck_assert_str_eq(tu_table_cell(&c, r, "parameter"), "params.c_ms");
    ck_assert_double_eq_tol(tu_table_num(&c, r, "value"), 10 + 3 * 40 * s, 1e-6);
    ck_assert_double_eq_tol(tu_table_num(&c, r, "value_ci95"), 0, 1e-9);
  }
  tu_table_free(&c);
  tu_table t;
  tu_table_read(&t, at("out/sensitivity.csv"));
  ck_assert_int_eq(t.nrows, 2); /* ranked: the CPU first */
  ck_assert_str_eq(tu_table_cell(&t, 0, "parameter"), "params.c_ms");
  ck_assert_double_eq_tol(tu_table_num(&t, 0, "elasticity"), 120.0 / 130, 1e-6);
  ck_assert_double_eq_tol(tu_table_num(&t, 1, "elasticity"), 10.0 / 130, 1e-6);
  tu_table_free(&t);
  /* without --param: every params number named *_ms (the same two; not groups) */
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "sensitivity '%s' --scales 1 -q --no-plots -o '%s'", at("fifo.json"),
                             at("all")),
                   0);
  tu_table_read(&t, at("all/sensitivity.csv"));
  ck_assert_int_eq(t.nrows, 2);
  ck_assert_str_eq(tu_table_cell(&t, 1, "parameter"), "params.io_ms");
  tu_table_free(&t);
}
END_TEST

/* A curve that goes both up and down over its scales is noted on stderr
 * (the count, the first with its values); a linear one is not. fifo_wave
 * with 100 ms more CPU when c_ms < 30: wave_ms at scales 0, 0.2, 0.5 is
 * high (310, 334, 370 ms), at 0.8 low (106), at 1 higher again (130) (its elasticity at 1 knows nothing
 * of it). The model draws nothing random, so that is said too. */
START_TEST(sensitivity_turning_curve_is_noted)
{
  write_case("turn", "{\"name\": \"turn\", \"params\": {\"c_ms\": 40, \"io_ms\": 10, \"groups\": 5},"
                     " \"classes\": [{\"name\": \"group\", \"count\": \"$groups\", \"program\": ["
                     "   {\"op\": \"io\", \"ms\": \"$io_ms\"}, {\"op\": \"cpu\", \"ms\": \"$c_ms\"},"
                     "   {\"op\": \"if\", \"cond\": \"$c_ms < 30\", \"then\": [{\"op\": \"cpu\", \"ms\": 100}]}]}]}",
             "\"n\": [1], \"workers\": [1], \"replications\": 2");
  char *err;
  ck_assert_int_eq(tu_tssimf(NULL, &err, "sensitivity '%s' --param params.c_ms --param params.io_ms --metric wave_ms "
                                   "--scales 1,0.8,0.5,0.2,0 -q --no-plots -o '%s'", at("turn.json"), at("out")),
                   0);
  const char *said = strstr(err, "tssim: note: 1 of 2 curve(s) go both up and down over their scales, by more than "
                                 "their intervals (the first: params.c_ms on wave_ms at n=1 workers=1: 130.0 at x1, "
                                 "106.0 at x0.8, 370.0 at x0.5, ");
  ck_assert_msg(said && strstr(said, "): there the elasticity is the slope between x0.95 and x1.05 only, not a guide "
                                     "to a larger cut"), "%s", err);
  ck_assert_msg(strstr(err, "tssim: note: every setting tried gave identical replications ("), "%s", err);
  free(err);
  write_case("fifo", fifo_wave, "\"n\": [1], \"workers\": [1], \"replications\": 2");
  ck_assert_int_eq(tu_tssimf(NULL, &err, "sensitivity '%s' --param params.c_ms --param params.io_ms --metric wave_ms "
                                   "--scales 1,0.8,0.5,0.2,0 -q --no-plots -o '%s'", at("fifo.json"), at("out")),
                   0);
  ck_assert_msg(!strstr(err, "curve(s) go both up and down"), "%s", err);
  free(err);
}
END_TEST

/* The identical-replications note after a search counts the points that
 * were identical apart from the evaluations: fifo_wave (no random draws) at
 * 2 points (workers 1 and 2), one parameter at 1 -+ h and the scales 1, 0.5:
 * 4 settings (1 is the base), so 2 points and 8 evaluations (it said "8
 * evaluation(s) of a point" and named no count of points). */
START_TEST(sensitivity_identical_note_counts_the_points)
{
  char *err;
  write_case("fifo", fifo_wave, "\"n\": [1], \"workers\": [1, 2], \"replications\": 2");
  ck_assert_int_eq(tu_tssimf(NULL, &err, "sensitivity '%s' --param params.c_ms --metric wave_ms --scales 1,0.5 -q "
                                   "--no-plots -o '%s'", at("fifo.json"), at("out")),
                   0);
  ck_assert_msg(strstr(err, "tssim: note: every setting tried gave identical replications (2 point(s) run with 2 or "
                            "more replications, identical at each setting tried: 8 evaluation(s) in all; the first: "
                            "n=1 workers=1 setting=the scenario's own setting): "),
                "%s", err);
  free(err);
}
END_TEST

/* The issue's command, as written: a group of eight paths, one metric,
 * four scales. The curve falls as the hydration costs fall. */
START_TEST(sensitivity_issue_command_writes_the_curve)
{
  char *out;
  ck_assert_int_eq(tu_tssimf(&out, NULL, "sensitivity scenarios/zero-cache-wave.json --n 8 --group hydration=params.basic_ms,"
                                   "params.summary_ms,params.roster_ms,params.with_problems_ms,params.tracker_ms,"
                                   "params.misconduct_ms,params.lmids_ms,params.mutation_results_ms --metric wave_ms "
                                   "--scales 1,0.9,0.75,0.5 --no-plots -o '%s'", at("zc")),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "n=8 workers=1: wave_ms\n"));
  ck_assert_ptr_nonnull(strstr(out, "     1  hydration "));
  free(out);
  tu_table c;
  tu_table_read(&c, at("zc/curve.csv"));
  ck_assert_int_eq(c.nrows, 4);
  ck_assert_str_eq(c.head[0], "n");
  static const char *const cols[] = {"n", "workers", "parameter", "metric", "scale", "value", "value_ci95"};
  for (int i = 0; i < 7; i++)
    ck_assert_str_eq(c.head[i], cols[i]);
  for (int r = 1; r < 4; r++)
    ck_assert(tu_table_num(&c, r, "value") < tu_table_num(&c, r - 1, "value"));
  tu_table_free(&c);
  tu_table t;
  tu_table_read(&t, at("zc/sensitivity.csv"));
  static const char *const scols[] = {"n", "workers", "parameter", "metric", "elasticity", "elasticity_ci95"};
  for (int i = 0; i < 6; i++)
    ck_assert_str_eq(t.head[i], scols[i]);
  double e = tu_table_num(&t, 0, "elasticity");
  ck_assert(e > 0.5 && e < 1.2);
  tu_table_free(&t);
}
END_TEST

/* The same files for any --jobs; a sweep over n ranks at each point. */
START_TEST(sensitivity_is_the_same_for_any_jobs)
{
  const char *args = "sensitivity scenarios/zero-cache-wave.json --n 1,4 --param params.tracker_ms "
                     "--param params.roster_ms --scales 1,0.5 -r 2 -q --no-plots";
  static const char *const files[] = {"sensitivity.csv", "curve.csv"};
  same_for_any_jobs(args, files, 2);
  tu_table t;
  tu_table_read(&t, at("a/sensitivity.csv"));
  ck_assert_int_eq(t.nrows, 4);
  ck_assert_int_ge(find_row(&t, "n", "4", 0), 2);
  tu_table_free(&t);
}
END_TEST

/* A scaled value the model takes at load but not at run time (a repeat
 * count of 3.6): exit 2, and the line names the setting. */
START_TEST(sensitivity_names_the_setting_a_run_fails_at)
{
  write_case("rep", "{\"name\": \"rep\", \"params\": {\"loops_ms\": 4}, \"classes\": [{\"name\": \"job\", "
                    "\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"$loops_ms + 0 * i\", \"steps\": "
                    "[{\"op\": \"cpu\", \"ms\": 1}]}]}]}",
             "\"n\": [1], \"workers\": [1]");
  char *err;
  ck_assert_int_eq(tu_tssimf(NULL, &err, "sensitivity '%s' --scales 1,0.9 -q --no-plots -o '%s'", at("rep.json"),
                             at("out")),
                   2);
  ck_assert_msg(strstr(err, "replication 0 setting=params.loops_ms at scale 0.9: classes[0].program[0]: ") != NULL,
                "%s", err);
  free(err);
}
END_TEST

START_TEST(sensitivity_refuses_bad_input)
{
  write_case("fifo", fifo_wave, "\"n\": [1], \"workers\": [1]");
  char s[sizeof tmp + 32];
  snprintf(s, sizeof s, "%s", at("fifo.json"));
  refused("--param", "sensitivity '%s' --param params.cms", s);
  refused("--param", "sensitivity '%s' --param classes[0].name", s);
  refused("--group", "sensitivity '%s' --group hydration=", s);
  refused("--group", "sensitivity '%s' --group =params.c_ms", s);
  refused("--group", "sensitivity '%s' --group both=params.c_ms,params.nope", s);
  refused("--metric", "sensitivity '%s' --param params.c_ms --metric wave_mss", s);
  refused("--metric", "sensitivity '%s' --param params.c_ms --metric wave_ms@nobody", s);
  refused("--scales", "sensitivity '%s' --param params.c_ms --scales 1,-0.5", s);
  refused("--scales", "sensitivity '%s' --param params.c_ms --scales 1,1", s);
  refused("--step", "sensitivity '%s' --param params.c_ms --step 0.7", s);
  refused("--param", "sensitivity '%s' --param params.c_ms --param params.c_ms", s);
  refused("--jobs", "sensitivity '%s' --param params.c_ms -j 0", s);
  refused("--frobnicate", "sensitivity '%s' --frobnicate", s);
}
END_TEST

/* Every param named *_ms left out (the model rejects it at a scale, or an
 * axis sets it) said "M has no params named *_ms", though it has them
 * (walkthrough 23 item 8). The line says what happened. */
START_TEST(sensitivity_says_why_every_ms_param_is_left_out)
{
  static const char *const model =
    "{\"params\": {\"c_ms\": 40, \"io_ms\": 10}, \"classes\": [{\"count\": 2, \"program\": ["
    "{\"op\": \"io\", \"ms\": \"$io_ms\"}, {\"op\": \"cpu\", \"ms\": \"$c_ms\", \"rows\": 40}]}]}";
  /* c_ms is rejected at scale 0 (40 rows for 0 ns); in "axis", an axis sets io_ms */
  write_case("rows", "{\"params\": {\"c_ms\": 40}, \"classes\": [{\"count\": 2, \"program\": ["
             "{\"op\": \"cpu\", \"ms\": \"$c_ms\", \"rows\": 40}]}]}", "\"n\": [1], \"workers\": [1]");
  write_case("axis", model, "\"n\": [1], \"workers\": [1], \"axes\": {\"io\": {\"path\": \"params.io_ms\", "
             "\"values\": [1, 2]}}");
  static const char *const cases[][2] = {
    {"rows", ""},
    {"axis", "1 set by a scenario axis; "},
  };
  for (int k = 0; k < 2; k++) {
    char args[3 * PATH_MAX], want[4 * PATH_MAX], name[32], *err;
    snprintf(name, sizeof name, "%s.json", cases[k][0]);
    snprintf(args, sizeof args, "sensitivity '%s' --scales 1,0.5,0 -q -r 1 -o '%s'", at(name), at("o"));
    ck_assert_int_eq(in_process(args, &err), 2);
    snprintf(name, sizeof name, "%s-m.json", cases[k][0]);
    snprintf(want, sizeof want, "tssim: sensitivity: none of the %d params named *_ms of %s can be scaled: %s1 "
             "rejected by the model at a scale (the model rejects params.c_ms = 0 (scale 0): %s: classes[0].program[%d]"
             ".rows: 40 rows for 0 ns of CPU: expected at most one row per ns); name fields with --param PATH or "
             "--group NAME=PATH,..., or leave the scales the model rejects out of --scales\n", k + 1, at(name),
             cases[k][1], at(name), k);
    /* the note that left c_ms out comes first, even with -q; the error line ends it */
    size_t le = strlen(err), lw = strlen(want);
    ck_assert_msg(le > lw && strcmp(err + le - lw, want) == 0, "%s", err);
    const char *note = "tssim: note: left out: the model rejects params.c_ms = 0 (scale 0): ";
    ck_assert_msg(strncmp(err, note, strlen(note)) == 0, "%s", err);
    free(err);
  }
}
END_TEST

/* ---- optimize ---- */

/* A job's 100 ms of CPU split between two pipeline stages on their own
 * workers: x of it before a hop, the rest plus 20 ms after. Ten jobs at
 * once: with a = 100 x and b = 120 - 100 x, job i ends at (i + 1) a + b
 * when a >= b, else a + (i + 1) b, so the median (jobs 4 and 5) is
 * 5.5 max(a, b) + min(a, b): V-shaped in x, least where the stages balance,
 * x* = 0.6, at 6.5 x 60 = 390 ms. Brent's method finds the kink. */
static const char *const pipeline =
  "{\"name\": \"pipe\", \"params\": {\"split\": 0.5}, \"pools\": [{\"name\": \"b\", \"count\": 1}],"
  " \"classes\": [{\"name\": \"job\", \"count\": 10, \"program\": ["
  "   {\"op\": \"cpu\", \"ms\": \"100 * $split\"}, {\"op\": \"hop\", \"pool\": \"b\", \"to\": 0},"
  "   {\"op\": \"cpu\", \"ms\": \"100 * (1 - $split) + 20\"}]}]}";

/* The number at key in best.json's text (the first occurrence). */
static double json_num(const char *text, const char *key)
{
  char k[128];
  snprintf(k, sizeof k, "\"%s\":", key);
  const char *p = strstr(text, k);
  ck_assert_msg(p != NULL, "no %s in %s", key, text);
  return strtod(p + strlen(k), NULL);
}

START_TEST(optimize_finds_the_balanced_pipeline_split)
{
  write_case("pipe", pipeline, "\"n\": [1], \"workers\": [1]");
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize wave_ms --field params.split=0.05:0.95 -q -o '%s'",
                       at("pipe.json"), at("out")),
                   0);
  char *best = tu_read_file(at("out/best.json"), NULL);
  double x = json_num(best, "params.split"), f = json_num(best, "mean");
  ck_assert_msg(fabs(x - 0.6) <= 1e-3 * 0.9, "split %g, by hand 0.6", x);
  ck_assert_msg(fabs(f - 390) <= 0.1, "median %g ms, by hand 390", f);
  free(best);
  tu_table t;
  tu_table_read(&t, at("out/tried.csv"));
  ck_assert_str_eq(tu_table_cell(&t, 0, "stage"), "baseline");
  ck_assert_double_eq_tol(tu_table_num(&t, 0, "wave_ms"), 5.5 * 70 + 50, 1e-6); /* x = 0.5: a = 50, b = 70 */
  ck_assert_int_eq(find_row(&t, "params.split", "0.5", 1), -1); /* the grid's 0.5 is the baseline: not run twice */
  ck_assert_int_ge(find_row(&t, "stage", "brent", 0), 9);        /* after the baseline and 8 grid points */
  tu_table_free(&t);
}
END_TEST

/* One worker, one yield overhead o = 0.5 ms: a big client's 400 ms of CPU
 * in 0.1 ms rows, sliced at the threshold q, and a small client's 5 ms
 * behind it. A slice ends after the row that passes q: m = floor(10 q) + 1
 * rows, so the small client ends at 0.1 m + o + 5 (the less q the better)
 * and the big one at 405 + o (ceil(4000 / m) - 1) (each yield costs it o).
 * At q = 10 (m = 101) that is 15.6 and 424.5 ms. Keeping the big client
 * within 5% (445.725 ms) allows at most 81 yields: m >= 49, q >= 4.8, where
 * the small client ends at 10.4 ms: the threshold to choose. */
static const char *const slices =
  "{\"name\": \"slices\", \"worker\": {\"threshold_ms\": 10, \"yield_overhead_ms\": 0.5},"
  " \"classes\": [{\"name\": \"big\", \"count\": 1, \"program\": "
  "   [{\"op\": \"cpu\", \"ms\": 400, \"rows\": 4000, \"sliced\": true}]},"
  "  {\"name\": \"small\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 5}]}]}";

START_TEST(optimize_finds_the_threshold_within_the_constraint)
{
  write_case("slices", slices, "\"n\": [1], \"workers\": [1]");
  char s[sizeof tmp + 32];
  snprintf(s, sizeof s, "%s", at("slices.json"));
  char *out;
  ck_assert_int_eq(tu_tssimf(&out, NULL, "optimize '%s' --minimize wave_ms@small --field worker.threshold_ms=1:20 "
                                   "--constraint 'wave_ms@big <= 1.05 * baseline' --no-plots -o '%s'", s, at("c")),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "subject to wave_ms@big <= 1.05 * baseline"));
  free(out);
  char *best = tu_read_file(at("c/best.json"), NULL);
  double q = json_num(best, "worker.threshold_ms");
  ck_assert_msg(q >= 4.8 && q < 4.9, "threshold %g, by hand [4.8, 4.9)", q);
  const char *small = strstr(best, "\"metrics\"");
  ck_assert_double_eq_tol(json_num(small, "mean"), 10.4, 1e-9);
  const char *big = strstr(small, "\"wave_ms@big\"");
  ck_assert_double_eq_tol(json_num(big, "mean"), 405 + 0.5 * 81, 1e-9);
  ck_assert(json_num(big, "mean") <= 1.05 * 424.5);
  free(best);
  /* every setting tried is judged: those below 4.8 break the constraint */
  tu_table t;
  tu_table_read(&t, at("c/tried.csv"));
  for (int r = 1; r < t.nrows; r++) {
    double v = tu_table_num(&t, r, "worker.threshold_ms");
    ck_assert_int_eq(atoi(tu_table_cell(&t, r, "feasible")), v >= 4.8);
  }
  tu_table_free(&t);
  /* without the constraint the least threshold wins */
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize wave_ms@small --field worker.threshold_ms=1:20 -q -o '%s'",
                       s, at("u")),
                   0);
  best = tu_read_file(at("u/best.json"), NULL);
  ck_assert_double_eq_tol(json_num(best, "worker.threshold_ms"), 1, 1e-9);
  ck_assert_double_eq_tol(json_num(strstr(best, "\"metrics\""), "mean"), 0.1 * 11 + 5.5, 1e-9);
  free(best);
}
END_TEST

/* A scenario whose axis sets the threshold: searching it is refused (the
 * axis would override it), unless --axis keeps one value, whose overrides
 * then apply as --set would: the same answer as without the axis. */
START_TEST(optimize_searches_a_field_of_a_kept_axis_value)
{
  write_case("rules", slices, "\"n\": [1], \"workers\": [1], \"axes\": {\"rule\": {\"sets\": "
                              "{\"ten\": {\"worker.threshold_ms\": 10}, \"twenty\": {\"worker.threshold_ms\": 20}}}}");
  char s[sizeof tmp + 32];
  snprintf(s, sizeof s, "%s", at("rules.json"));
  const char *args = "--minimize wave_ms@small --field worker.threshold_ms=1:20 --constraint 'wave_ms@big <= 1.05 * "
                     "baseline'";
  refused("--field", "optimize '%s' %s", s, args);
  refused("--axis", "optimize '%s' %s --axis rules=ten", s, args);
  refused("--axis", "optimize '%s' %s --axis rule=ten,eleven", s, args);
  refused("--axis", "optimize '%s' %s --axis rule", s, args);
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' %s --axis rule=ten -q -o '%s'", s, args, at("k")), 0);
  char *best = tu_read_file(at("k/best.json"), NULL);
  double q = json_num(best, "worker.threshold_ms");
  ck_assert_msg(q >= 4.8 && q < 4.9, "threshold %g, by hand [4.8, 4.9)", q);
  free(best);
  /* two values kept stay an axis, in the scenario's order: a row for each */
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "sensitivity '%s' --param worker.yield_overhead_ms --metric wave_ms@big "
                                         "--axis rule=twenty,ten --scales 1 -q --no-plots -o '%s'", s, at("s")),
                   0);
  tu_table t;
  tu_table_read(&t, at("s/sensitivity.csv"));
  ck_assert_int_eq(t.nrows, 2);
  ck_assert_str_eq(tu_table_cell(&t, 0, "rule"), "ten");
  ck_assert_str_eq(tu_table_cell(&t, 1, "rule"), "twenty");
  /* the big client's yields cost o each: 39 of them at q = 10, 19 at 20 */
  ck_assert_double_eq_tol(tu_table_num(&t, 0, "elasticity"), 39 * 0.5 / 424.5, 1e-6);
  ck_assert_double_eq_tol(tu_table_num(&t, 1, "elasticity"), 19 * 0.5 / 414.5, 1e-6);
  tu_table_free(&t);
}
END_TEST

/* Choice fields: every value of a short list; successive halving over a
 * long one (the better half at twice the replications); the same answer. */
START_TEST(optimize_chooses_among_values)
{
  write_case("slices", slices, "\"n\": [1], \"workers\": [1]");
  char s[sizeof tmp + 32];
  snprintf(s, sizeof s, "%s", at("slices.json"));
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize wave_ms@small --choice worker.threshold_ms=2,5,10,20 "
                                   "--constraint 'wave_ms@big <= 1.05 * baseline' -q -o '%s'", s, at("a")),
                   0);
  char *best = tu_read_file(at("a/best.json"), NULL);
  ck_assert_double_eq(json_num(best, "worker.threshold_ms"), 5);
  free(best);
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize wave_ms@small --choice worker.threshold_ms=1,2,3,4,5,6,"
                                   "7,8,9,10,11,12,13,14,15,16,17,18,19,20 --constraint 'wave_ms@big <= 1.05 * "
                                   "baseline' -r 1 -q -o '%s'", s, at("b")),
                   0);
  best = tu_read_file(at("b/best.json"), NULL);
  ck_assert_double_eq(json_num(best, "worker.threshold_ms"), 5);
  free(best);
  tu_table t;
  tu_table_read(&t, at("b/tried.csv"));
  int first = find_row(&t, "replications", "2", 0);
  ck_assert_int_eq(first, 20); /* the baseline (10) and the 19 other values at 1, then the better half at 2 */
  ck_assert_str_eq(tu_table_cell(&t, first + 1, "stage"), "halving");
  tu_table_free(&t);
}
END_TEST

/* Two objectives: the front is the feasible settings tried no other beats
 * in both; here (the small client's end rises with q, the big one's falls)
 * every grid point is on it, and so is the scenario's own q = 10 (between
 * the grid's 5.75 and 10.5), with its value and marked in the text,
 * ordered by the first objective. */
START_TEST(optimize_two_objectives_give_the_front)
{
  write_case("slices", slices, "\"n\": [1], \"workers\": [1]");
  char *out;
  ck_assert_int_eq(tu_tssimf(&out, NULL, "optimize '%s' --minimize wave_ms@small --minimize wave_ms@big --field "
                                   "worker.threshold_ms=1:20 --grid 5 --no-plots -o '%s'", at("slices.json"),
                       at("p")),
                   0);
  ck_assert_msg(strstr(out, "Pareto front: 6 feasible setting(s)") &&
                  strstr(out, "\n  worker.threshold_ms=10 (the scenario's own) "), "%s", out);
  free(out);
  tu_table t;
  tu_table_read(&t, at("p/pareto.csv"));
  ck_assert_int_eq(t.nrows, 6);
  int own = find_row(&t, "stage", "baseline", 0);
  ck_assert_int_eq(own, 2); /* q = 1, 5.75, then 10 */
  ck_assert_double_eq(tu_table_num(&t, own, "worker.threshold_ms"), 10);
  for (int r = 1; r < t.nrows; r++) {
    ck_assert(tu_table_num(&t, r, "wave_ms@small") > tu_table_num(&t, r - 1, "wave_ms@small"));
    ck_assert(tu_table_num(&t, r, "wave_ms@big") < tu_table_num(&t, r - 1, "wave_ms@big"));
  }
  tu_table_free(&t);
}
END_TEST

/* Folder tmp/dir holds exactly the files names (a NULL-terminated list,
 * sorted), nothing else. */
static void holds_only(const char *dir, const char *const *names)
{
  char *out;
  ck_assert_int_eq(tu_sh(&out, "ls -A '%s'", at(dir)), 0);
  char want[256] = "";
  for (int i = 0; names[i]; i++)
    snprintf(want + strlen(want), sizeof want - strlen(want), "%s\n", names[i]);
  ck_assert_msg(strcmp(out, want) == 0, "%s holds\n%sexpected\n%s", dir, out, want);
  free(out);
}

/* Runs into one folder: it holds one run's files (docs/output.md). One
 * objective after two: best.json, not the old pareto.csv and its plot; two
 * after one: pareto.csv, not the old best.json. A run whose commit fails
 * (best.json made a folder, so it cannot be replaced: exit 3) leaves the
 * folder as it was, the other mode's files included. */
START_TEST(optimize_leaves_one_run_in_its_folder)
{
  write_case("slices", slices, "\"n\": [1], \"workers\": [1]");
  char one[sizeof tmp + 256], two[sizeof tmp + 256];
  snprintf(one, sizeof one, "optimize '%s' --minimize wave_ms@small --field worker.threshold_ms=1:20 --grid 3 "
           "-q --no-plots -o '%s'", at("slices.json"), at("d"));
  snprintf(two, sizeof two, "optimize '%s' --minimize wave_ms@small --minimize wave_ms@big --field "
           "worker.threshold_ms=1:20 --grid 3 -q --no-plots -o '%s'", at("slices.json"), at("d"));
  static const char *const first[] = {"pareto.csv", "pareto.png", "pareto.svg", "tried.csv", NULL};
  static const char *const single[] = {"best.json", "tried.csv", NULL};
  static const char *const pair[] = {"pareto.csv", "tried.csv", NULL};
  ck_assert_int_eq(tu_tssim(two, NULL, NULL), 0);
  tu_write_file(at("d/pareto.png"), "an earlier run's plot"); /* as gnuplot would have drawn them */
  tu_write_file(at("d/pareto.svg"), "an earlier run's plot");
  holds_only("d", first);
  ck_assert_int_eq(tu_tssim(one, NULL, NULL), 0);
  holds_only("d", single);
  ck_assert_int_eq(tu_tssim(two, NULL, NULL), 0);
  holds_only("d", pair);
  ck_assert_int_eq(tu_tssim(one, NULL, NULL), 0);
  holds_only("d", single);
  /* a failed commit removes nothing */
  ck_assert_int_eq(tu_tssim(two, NULL, NULL), 0);
  char *tried = tu_read_file(at("d/tried.csv"), NULL);
  ck_assert_int_eq(mkdir(at("d/best.json"), 0700), 0);
  ck_assert_int_eq(tu_tssim(one, NULL, NULL), TS_EXIT_IO);
  static const char *const kept[] = {"best.json", "pareto.csv", "tried.csv", NULL};
  holds_only("d", kept);
  char *after = tu_read_file(at("d/tried.csv"), NULL);
  ck_assert_str_eq(after, tried);
  free(after);
  free(tried);
}
END_TEST

/* Replications grow where two candidates are close. M/G/1 at load 0.5
 * with service times of coefficient of variation 1, exponential, gamma or
 * lognormal: by Pollaczek-Khinchine the mean sojourn depends only on the
 * first two moments, so the three are equal, and the race runs them to
 * --r-max without telling them apart. Halving the service time is told
 * apart at once. */
START_TEST(optimize_race_grows_replications_where_close)
{
  write_mm1("\"count\":  1000", "\"n\": [1], \"workers\": [1], \"replications\": 3");
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --set 'classes[0].program[0].cv=1' --minimize sojourn_mean_ms "
                                   "--choice 'classes[0].program[0].dist=exponential,gamma,lognormal' --r-max 8 -q "
                                   "-o '%s'", at("mm1.json"), at("g")),
                   0);
  char *best = tu_read_file(at("g/best.json"), NULL);
  ck_assert_int_eq((int)json_num(best, "replications"), 8);
  ck_assert_ptr_nonnull(strstr(best, "\"told_apart\":\tfalse"));
  free(best);
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize sojourn_mean_ms --choice params.service_ms=1,0.5 "
                                   "--r-max 8 -q -o '%s'", at("mm1.json"), at("h")),
                   0);
  best = tu_read_file(at("h/best.json"), NULL);
  ck_assert_int_eq((int)json_num(best, "replications"), 3);
  ck_assert_double_eq(json_num(best, "params.service_ms"), 0.5);
  free(best);
}
END_TEST

/* One job of $x ms of CPU on one worker: wave_ms is x. Maximising it
 * subject to wave_ms <= 5 from a baseline of x = 0.001 ms, the penalty (ten
 * times the baseline's objective per unit of relative excess: 0.002 per ms
 * over 5) is far weaker than the objective's gain (1 per ms), so every grid
 * point above 5 (x = 5.075, ..., 20 on the grid of 9 over [0.1, 20]) scores
 * better than the feasible ones (0.1 and 2.5875) and the four best by score
 * are all infeasible. The answer is still the best feasible setting tried:
 * 2.5875. With wave_ms <= 0.05 the only feasible setting tried is the
 * scenario's own, x = 0.001: it is the best (a candidate like any other).
 * With 0.055 <= wave_ms <= 0.06 none is feasible, and the one reported is
 * the least infeasible (0.1, an excess of 0.04 / 0.06 against 0.054 / 0.055
 * for the scenario's own and 19.94 / 0.06 at 20, which scores best). */
static const char *const onejob =
  "{\"name\": \"one\", \"params\": {\"x\": 0.001},"
  " \"classes\": [{\"name\": \"job\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"$x\"}]}]}";

START_TEST(optimize_reports_the_best_feasible_setting)
{
  write_case("one", onejob, "\"n\": [1], \"workers\": [1]");
  const char *args = "--maximize wave_ms --field params.x=0.1:20 --no-plots";
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' %s --constraint 'wave_ms <= 5' -o '%s'", at("one.json"), args,
                             at("f")),
                   0);
  tu_table t;
  tu_table_read(&t, at("f/tried.csv"));
  int infeasible_above = 0;
  double best_feasible = -1;
  for (int r = 1; r < t.nrows; r++) {
    double v = tu_table_num(&t, r, "wave_ms");
    ck_assert_int_eq(atoi(tu_table_cell(&t, r, "feasible")), v <= 5);
    infeasible_above += v > 5;
    best_feasible = v <= 5 && v > best_feasible ? v : best_feasible;
  }
  tu_table_free(&t);
  ck_assert_int_ge(infeasible_above, 4); /* the case: more than --finalists settings beat it by score */
  ck_assert_double_eq_tol(best_feasible, 2.5875, 1e-9);
  char *best = tu_read_file(at("f/best.json"), NULL);
  ck_assert_ptr_nonnull(strstr(best, "\"feasible\":\ttrue"));
  ck_assert_double_eq_tol(json_num(best, "params.x"), best_feasible, 1e-9);
  ck_assert_double_eq_tol(json_num(strstr(best, "\"metrics\""), "mean"), best_feasible, 1e-9);
  free(best);
  /* the scenario's own the only feasible one: the best, marked so */
  char *out;
  ck_assert_int_eq(tu_tssimf(&out, NULL, "optimize '%s' %s --constraint 'wave_ms <= 0.05' -o '%s'", at("one.json"),
                             args, at("o")),
                   0);
  ck_assert_msg(strstr(out, "\nbest setting, at 1 replication(s): --set params.x=0.001 (the scenario's own)\n"), "%s",
                out);
  free(out);
  best = tu_read_file(at("o/best.json"), NULL);
  ck_assert_ptr_nonnull(strstr(best, "\"feasible\":\ttrue"));
  ck_assert_double_eq_tol(json_num(best, "params.x"), 0.001, 1e-12);
  free(best);
  /* none feasible: the least infeasible, marked so */
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' %s --constraint 'wave_ms <= 0.06' --constraint 'wave_ms >= "
                                         "0.055' -o '%s'", at("one.json"), args, at("n")),
                   0);
  best = tu_read_file(at("n/best.json"), NULL);
  ck_assert_ptr_nonnull(strstr(best, "\"feasible\":\tfalse"));
  ck_assert_double_eq_tol(json_num(best, "params.x"), 0.1, 1e-9);
  free(best);
}
END_TEST

/* The scenario's own setting is a candidate like any other: minimising the
 * one job's wave_ms (x) from the model's x = 0.001, below every value
 * searched, answers x = 0.001 (the scenario's own, marked so) by grid and
 * Brent over [0.1, 20] and by successive halving over 17 values, 1 to 17;
 * the search's best was 0.1 and 1 before. */
START_TEST(optimize_the_scenarios_own_setting_can_be_the_best)
{
  write_case("one", onejob, "\"n\": [1], \"workers\": [1]");
  static const char *const over[] = {"--field params.x=0.1:20", "--choice params.x=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17"};
  for (int k = 0; k < 2; k++) {
    char *out;
    ck_assert_int_eq(tu_tssimf(&out, NULL, "optimize '%s' --minimize wave_ms %s --no-plots -o '%s'", at("one.json"),
                               over[k], at("f")),
                     0);
    ck_assert_msg(strstr(out, "\nbest setting, at ") && strstr(out, ": --set params.x=0.001 (the scenario's own)\n") &&
                    (k == 0 || strstr(out, " halving")), "%s", out);
    free(out);
    char *best = tu_read_file(at("f/best.json"), NULL);
    ck_assert_double_eq_tol(json_num(best, "params.x"), 0.001, 1e-12);
    free(best);
  }
}
END_TEST

/* A setting with the scenario's own values is its trial, run once and
 * named so: the slices' own q = 10 among --grid 3 over [1, 19] or
 * --choice 2,10,20 (it was a second trial, a finalist "tied" with the best).
 * A field whose own value is an expression ($x) is written as the model
 * has it, never nan or null. */
START_TEST(optimize_names_the_scenarios_own_setting_once)
{
  write_case("slices", slices, "\"n\": [1], \"workers\": [1]");
  static const char *const over[] = {"--field worker.threshold_ms=1:19 --grid 3", "--choice worker.threshold_ms=2,10,20"};
  for (int k = 0; k < 2; k++) {
    char *out;
    ck_assert_int_eq(tu_tssimf(&out, NULL, "optimize '%s' --maximize wave_ms@small %s --no-plots -o '%s'",
                               at("slices.json"), over[k], at("s")),
                     0);
    const char *own = strstr(out, "worker.threshold_ms=10 (the scenario's own)");
    ck_assert_msg(own && !strstr(own + 1, "worker.threshold_ms=10"), "%s", out);
    free(out);
    tu_table t;
    tu_table_read(&t, at("s/tried.csv"));
    ck_assert_int_eq(t.nrows, 4 - k); /* the baseline, 1 (2) and 19 (20); Brent's 14.5 */
    ck_assert_int_eq(find_row(&t, "worker.threshold_ms", "10", 1), -1);
    tu_table_free(&t);
  }
  write_case("one", onejob, "\"n\": [1], \"workers\": [1]");
  char *out;
  ck_assert_int_eq(tu_tssimf(&out, NULL, "optimize '%s' --minimize wave_ms --field 'classes[0].program[0].ms=0.1:20' "
                             "--no-plots -o '%s'", at("one.json"), at("e")),
                   0);
  ck_assert_msg(strstr(out, ": --set classes[0].program[0].ms=$x (the scenario's own)\n"), "%s", out);
  free(out);
  char *best = tu_read_file(at("e/best.json"), NULL);
  ck_assert_msg(strstr(best, "\"classes[0].program[0].ms\":\t\"$x\""), "%s", best);
  free(best);
  tu_table t;
  tu_table_read(&t, at("e/tried.csv"));
  ck_assert_str_eq(tu_table_cell(&t, 0, "classes[0].program[0].ms"), "$x");
  tu_table_free(&t);
}
END_TEST

/* One job of (x - c)^2 + 1 ms of CPU; the axis shape sets c = 2 (near) or
 * 8 (far), so the mean over the two points is least at x = 5, near's value
 * at x = 2 and far's at x = 8. A metric naming one point is that point's:
 * minimising near gives 2, not the mean's 5. A constraint on far alone,
 * far <= 5, holds for x >= 6 and binds: the answer is 6 (near 17), where
 * the same constraint on every point (near <= 5 too: x <= 4) could not
 * hold. Its baseline is far's at x = 0 (65): far <= 0.5 * baseline holds
 * for x >= 8 - sqrt(31.5) = 2.3875 (with the mean of the points' baselines,
 * 35, it would be 3.94). */
static const char *const quad =
  "{\"name\": \"quad\", \"params\": {\"x\": 0, \"c\": 2},"
  " \"classes\": [{\"name\": \"job\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"($x - $c) * ($x - $c) + 1\"}]}]}";
static const char *const quad_axis =
  "\"n\": [1], \"workers\": [1], \"axes\": {\"shape\": {\"sets\": {\"near\": {\"params.c\": 2}, "
  "\"far\": {\"params.c\": 8}}}}";

/* `tssim optimize` on the quad case with ARGS (after the objective) into
 * tmp/dir: the best x, and tried.csv's rows checked: each row's column
 * "wave_ms[shape=near]" is near's value at its x, and it is feasible
 * exactly when far's value is at most far_max (far_max < 0: no constraint). */
static double quad_best(const char *objective, const char *args, double far_max, const char *dir)
{
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize '%s' --field params.x=0:10 %s -q --no-plots -o '%s'",
                             at("quad.json"), objective, args, at(dir)),
                   0);
  char rel[64];
  snprintf(rel, sizeof rel, "%s/best.json", dir);
  char *best = tu_read_file(at(rel), NULL);
  ck_assert_ptr_nonnull(strstr(best, "\"feasible\":\ttrue"));
  double x = json_num(best, "params.x");
  free(best);
  snprintf(rel, sizeof rel, "%s/tried.csv", dir);
  tu_table t;
  tu_table_read(&t, at(rel));
  for (int r = 1; far_max >= 0 && r < t.nrows; r++) {
    double v = tu_table_num(&t, r, "params.x"), near = (v - 2) * (v - 2) + 1, far = (v - 8) * (v - 8) + 1;
    ck_assert_double_eq_tol(tu_table_num(&t, r, "wave_ms[shape=near]"), near, 1e-5);
    ck_assert_double_eq_tol(tu_table_num(&t, r, "wave_ms[shape=far]"), far, 1e-5);
    if (fabs(far - far_max) > 1e-4)
      ck_assert_int_eq(atoi(tu_table_cell(&t, r, "feasible")), far <= far_max);
  }
  tu_table_free(&t);
  return x;
}

START_TEST(optimize_metric_names_one_point)
{
  write_case("quad", quad, quad_axis);
  double x = quad_best("wave_ms", "", -1, "mean");
  ck_assert_msg(fabs(x - 5) < 0.05, "mean over the points: x %g, by hand 5", x);
  x = quad_best("wave_ms[shape=near]", "", -1, "near");
  ck_assert_msg(fabs(x - 2) < 0.05, "near: x %g, by hand 2", x);
  x = quad_best("wave_ms[shape=far]", "", -1, "far");
  ck_assert_msg(fabs(x - 8) < 0.05, "far: x %g, by hand 8", x);
  x = quad_best("wave_ms[shape=near]", "--constraint 'wave_ms[shape=far] <= 5'", 5, "c");
  ck_assert_msg(x >= 6 && x < 6.05, "near with far <= 5: x %g, by hand 6", x);
  x = quad_best("wave_ms[shape=near]", "--constraint 'wave_ms[shape=far] <= 0.5 * baseline'", 32.5, "b");
  ck_assert_msg(x >= 8 - sqrt(31.5) && x < 2.45, "near with far <= half far's baseline: x %g, by hand 2.3875", x);
}
END_TEST

/* A bad point: one line naming the option and what it expected. */
static void refused_point(const char *option, const char *expected, const char *fmt, ...)
  __attribute__((format(printf, 3, 4)));
static void refused_point(const char *option, const char *expected, const char *fmt, ...)
{
  char args[4 * PATH_MAX];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  refused(option, "%s", args);
  char *err;
  ck_assert_int_eq(in_process(args, &err), 2);
  ck_assert_msg(strstr(err, expected) != NULL, "%s: the message does not say \"%s\": %s", args, expected, err);
  free(err);
}

START_TEST(optimize_refuses_a_bad_point)
{
  write_case("quad", quad, quad_axis);
  write_case("quad2", quad, "\"n\": [1], \"workers\": [1, 2], \"axes\": {\"shape\": {\"sets\": {\"near\": "
                            "{\"params.c\": 2}, \"far\": {\"params.c\": 8}}}}");
  char s[sizeof tmp + 32], s2[sizeof tmp + 32];
  snprintf(s, sizeof s, "%s", at("quad.json"));
  snprintf(s2, sizeof s2, "%s", at("quad2.json"));
  const char *f = "--field params.x=0:10";
  refused_point("--minimize", "its keys: shape, workers, n", "optimize '%s' --minimize 'wave_ms[shap=near]' %s", s, f);
  refused_point("--minimize", "its values: near, far", "optimize '%s' --minimize 'wave_ms[shape=nearby]' %s", s, f);
  refused_point("--minimize", "named twice", "optimize '%s' --minimize 'wave_ms[shape=near,shape=far]' %s", s, f);
  refused_point("--minimize", "expected KEY=LABEL", "optimize '%s' --minimize 'wave_ms[shape]' %s", s, f);
  refused_point("--minimize", "expected METRIC[KEY=LABEL,...]", "optimize '%s' --minimize 'wave_ms[]' %s", s, f);
  /* an empty part is refused, not skipped */
  refused_point("--minimize", "expected KEY=LABEL", "optimize '%s' --minimize 'wave_ms[shape=near,]' %s", s, f);
  refused_point("--minimize", "expected KEY=LABEL", "optimize '%s' --minimize 'wave_ms[,shape=near]' %s", s, f);
  refused_point("--minimize", "expected KEY=LABEL", "optimize '%s' --minimize 'wave_ms[,]' %s", s, f);
  refused_point("--constraint", "expected KEY=LABEL",
                "optimize '%s' --minimize wave_ms %s --constraint 'wave_ms[shape=near,,workers=2] <= 5'", s2, f);
  /* the same point in another key order is the same metric */
  refused_point("--minimize", "is already the first objective",
                "optimize '%s' --minimize 'wave_ms@job[workers=2,shape=far]' --minimize "
                "'wave_ms@job[shape=far,workers=2]' %s", s2, f);
  refused_point("--minimize", "is already the first objective", /* job is the first reported class */
                "optimize '%s' --minimize wave_ms --minimize wave_ms@job %s", s2, f);
  refused_point("--maximize", "expected METRIC[KEY=LABEL,...]", "optimize '%s' --maximize 'wave_ms[shape=near' %s", s,
                f);
  refused_point("--minimize", "does not report", "optimize '%s' --minimize 'wave_mss[shape=near]' %s", s, f);
  refused_point("--constraint", "names 2 points of the sweep, expected one: name workers too",
                "optimize '%s' --minimize wave_ms %s --constraint 'wave_ms[shape=near] <= 5'", s2, f);
  refused_point("--constraint", "its values: 1, 2",
                "optimize '%s' --minimize wave_ms %s --constraint 'wave_ms[shape=near,workers=3] <= 5'", s2, f);
  refused_point("--minimize", "names 4 points of the sweep, expected one: name shape, workers too",
                "optimize '%s' --minimize 'wave_ms@job[n=1]' %s", s2, f);
  refused_point("--metric", "is for tssim optimize",
                "sensitivity '%s' --param params.x --metric 'wave_ms[shape=near]'", s);
  /* named fully (any order), the point is taken; a constraint on it in another key order is measured once */
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "optimize '%s' --minimize 'wave_ms@job[workers=2,shape=far]' %s -q "
                                         "--constraint 'wave_ms@job[shape=far,workers=2] <= 100' "
                                         "--constraint 'wave_ms[shape=far,workers=2] <= 100' --no-plots -o '%s'",
                             s2, f, at("w")),
                   0);
  char *best = tu_read_file(at("w/best.json"), NULL);
  ck_assert_msg(fabs(json_num(best, "params.x") - 8) < 0.05, "%s", best);
  free(best);
  char *tried = tu_read_file(at("w/tried.csv"), NULL);
  *strchr(tried, '\n') = '\0'; /* the header: the metric's columns, quoted (its name holds a comma) */
  ck_assert_msg(strstr(tried, "\"wave_ms@job[workers=2,shape=far]\",\"wave_ms@job[workers=2,shape=far]_ci95\",feasible") &&
                  !strstr(tried, "wave_ms@job[shape=far,workers=2]") && !strstr(tried, "\"wave_ms[shape=far"),
                "%s", tried);
  free(tried);
}
END_TEST

START_TEST(optimize_is_the_same_for_any_jobs)
{
  const char *args = "optimize scenarios/zero-cache-late-group.json --minimize wave_ms@joiner --field "
                     "worker.priority_min_ms=0.5:10 --constraint 'wave_ms@viewsyncer <= 1.02 * baseline' --grid 4 -q";
  static const char *const files[] = {"tried.csv", "best.json"};
  same_for_any_jobs(args, files, 2);
}
END_TEST

START_TEST(optimize_refuses_bad_input)
{
  write_case("slices", slices, "\"n\": [1], \"workers\": [1]");
  const char *obj = "--minimize wave_ms@small";
  char s[sizeof tmp + 32];
  snprintf(s, sizeof s, "%s", at("slices.json"));
  refused("--field", "optimize '%s' %s --field worker.thresold_ms=1:20", s, obj);
  refused("--field", "optimize '%s' %s --field worker.threshold_ms=-1:20", s, obj); /* outside the valid range */
  refused("--field", "optimize '%s' %s --field worker.threshold_ms=20:1", s, obj);
  refused("--field", "optimize '%s' %s --field worker.threshold_ms=1", s, obj);
  refused("--field", "optimize '%s' %s --field 'classes[0].program[0].rows=10:20'", s, obj); /* takes integers */
  refused("--choice", "optimize '%s' %s --choice worker.policy=fifo,shortest_first", s, obj); /* not in the model */
  refused("--choice", "optimize '%s' %s --choice worker.threshold_ms=1", s, obj);
  refused("--choice", "optimize '%s' %s --choice worker.threshold_ms=1,1", s, obj);
  refused("--constraint", "optimize '%s' %s --field worker.threshold_ms=1:20 --constraint 'wave_mss@big <= 2'", s,
          obj);
  refused("--constraint", "optimize '%s' %s --field worker.threshold_ms=1:20 --constraint 'wave_ms@big = 2'", s, obj);
  refused("--constraint", "optimize '%s' %s --field worker.threshold_ms=1:20 --constraint 'wave_ms <= 2 * basline'",
          s, obj);
  refused("--minimize", "optimize '%s' --minimize wave_ms@nobody --field worker.threshold_ms=1:20", s);
  refused("--maximize", "optimize '%s' %s --maximize wave_ms@small --field worker.threshold_ms=1:20", s, obj);
  refused("--minimize", "optimize '%s' --field worker.threshold_ms=1:20", s);
  refused("--field", "optimize '%s' %s", s, obj);
  refused("--field", "optimize '%s' %s --field worker.threshold_ms=1:20 --field worker.threshold_ms=2:3", s, obj);
  refused("--r-max", "optimize '%s' %s --field worker.threshold_ms=1:20 -r 4 --r-max 2", s, obj);
  refused("--max-evals", "optimize '%s' %s --field worker.threshold_ms=1:20 --max-evals 5", s, obj);
}
END_TEST

/* An axis over the scenario's window kept at one value (--axis KEY=LABEL)
 * set the model's field "warmup_ms" (exit 2, unknown key) where it sets the
 * scenario's warmup; and with one replication the sensitivity plot had no
 * point to draw (every error bar undefined): it draws the curve. */
START_TEST(sensitivity_window_axis_and_one_replication)
{
  write_mm1("\"count\":  2000", "\"n\": [1], \"workers\": [1], \"horizon_ms\": 10000,"
                                 " \"axes\": {\"win\": {\"path\": \"warmup_ms\", \"values\": [0, 100]}}");
  char *err;
  ck_assert_int_eq(tu_tssimf(NULL, &err, "sensitivity '%s' --axis win=100 --param params.service_ms --scales 1,0.5 "
                                         "-r 1 -q -o '%s'", at("mm1.json"), at("w")),
                   0);
  ck_assert_msg(strstr(err, "could not draw") == NULL, "%s", err);
  free(err);
  if (system("command -v gnuplot >/dev/null 2>&1") == 0)
    ck_assert(access(at("w/sensitivity.png"), F_OK) == 0);
}
END_TEST

Suite *explore_suite(void)
{
  Suite *s = suite_create("explore");
  const TTest *const sens[] = {sensitivity_mm1_elasticity_is_one_over_one_minus_rho,
                               sensitivity_says_why_every_ms_param_is_left_out,
                               sensitivity_fifo_wave_curve_is_linear_in_the_cost, sensitivity_turning_curve_is_noted,
                               sensitivity_identical_note_counts_the_points,
                               sensitivity_issue_command_writes_the_curve, sensitivity_is_the_same_for_any_jobs,
                               sensitivity_names_the_setting_a_run_fails_at,
                               sensitivity_refuses_bad_input, sensitivity_window_axis_and_one_replication, NULL};
  tu_tcase(s, "sensitivity", sens, make_tmp, remove_tmp, 300);
  const TTest *const opt[] = {optimize_finds_the_balanced_pipeline_split, optimize_finds_the_threshold_within_the_constraint,
                              optimize_searches_a_field_of_a_kept_axis_value, optimize_chooses_among_values, optimize_two_objectives_give_the_front,
                              optimize_leaves_one_run_in_its_folder,
                              optimize_race_grows_replications_where_close, optimize_reports_the_best_feasible_setting,
                              optimize_the_scenarios_own_setting_can_be_the_best, optimize_names_the_scenarios_own_setting_once,
                              optimize_metric_names_one_point, optimize_refuses_a_bad_point,
                              optimize_is_the_same_for_any_jobs,
                              optimize_refuses_bad_input, NULL};
  tu_tcase(s, "optimize", opt, make_tmp, remove_tmp, 300);
  return s;
}
