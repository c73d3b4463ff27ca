/* Bad input at the command line (split from test_io.c): the CLI's exit
 * statuses (2 and one line naming the file, the JSON path and what was
 * expected, whatever the input), baselines that match nothing or keep every
 * field, and failed runs or writes that keep the previous results. Inputs
 * are written into a fresh temporary folder per test. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "iodocs.h"
#include "testutil.h"

static char tmp[512];            /* the test's folder (mkdtemp) */
static char *cli_out, *cli_err; /* what the last cli() call wrote */

static void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "io");
}

static void remove_tmp(void)
{
  free(cli_out);
  free(cli_err);
  cli_out = cli_err = NULL;
  tu_rmtree(tmp);
}

/* tmp/name (testutil's rotating buffers). */
static const char *tmp_path(const char *name)
{
  return tu_at(tmp, name);
}

/* Write text to tmp/name; its path. */
static const char *write_tmp(const char *name, const char *text)
{
  return tu_write_at(tmp, name, text);
}

/* Run `tssim ARGS` from the source root, its stdout and stderr into cli_out
 * and cli_err; returns the exit status. */
static int cli(const char *args)
{
  free(cli_out);
  free(cli_err);
  return tu_tssim(args, &cli_out, &cli_err);
}

static int count_lines(const char *text)
{
  int lines = 0;
  for (; *text; text++)
    lines += *text == '\n';
  return lines;
}

/* The call failed with exit 2 and exactly one stderr line containing `what`. */
static void expect_one_line_error(int status, const char *what)
{
  const char *err = cli_err;
  ck_assert_int_eq(status, 2);
  int lines = count_lines(err);
  ck_assert_msg(lines == 1, "want one stderr line, got %d:\n%s", lines, err);
  ck_assert_msg(strncmp(err, "tssim: ", 7) == 0 && strstr(err, what), "stderr lacks \"%s\": %s", what, err);
}

#define RR_ARGS "run scenarios/rr-wave.json --n 16 --workers 1 -q --no-plots"

/* walk14 item 2: the "scaling" layout kept only built-in metric names, so a
 * recorded span metric (t_p50_ms) was dropped, and so was a typo, silently.
 * Every field is now a recorded value: one the model does not report is an
 * error with a near name, unless the file's "metrics" object describes it
 * (the shared baselines describe what the real system measured). */
START_TEST(io_cli_scaling_baseline_keeps_every_field)
{
  write_tmp("m.json", PROGRAM("{\"op\": \"span_begin\", \"span\": \"t\"}, {\"op\": \"cpu\", \"ms\": 1},"
                              " {\"op\": \"span_end\", \"span\": \"t\"}"));
  write_tmp("s.json", SCENARIO(", \"baseline\": \"b.json\", \"table\": [\"t_p50_ms\", \"wave_ms\"]"));
  write_tmp("b.json", "{\"scaling\": [{\"n\": 1, \"t_p50_ms\": 2, \"t_p99ms\": 3}]}");
  char args[2 * PATH_MAX + 64];
  snprintf(args, sizeof args, "run '%s' --no-plots -o '%s'", tmp_path("s.json"), tmp_path("out"));
  expect_one_line_error(cli(args), "b.json: scaling[0].t_p99ms: unknown metric: model ");
  ck_assert_ptr_nonnull(strstr(cli_err, "m.json does not report it; did you mean \"t_p99_ms\"?"));
  write_tmp("b.json", "{\"metrics\": {\"settle_ms\": \"s\", \"tracker_ms\": \"t\"}, \"scaling\": [{\"n\": 1, \"samples\": 3,"
                      " \"t_p50_ms\": 2, \"settle_ms\": 9, \"tracker_ms\": 5}]}");
  ck_assert_msg(cli(args) == 0, "%s", cli_err);
  ck_assert_msg(strstr(cli_out, "t_p50_ms  recorded     err"), "%s", cli_out);
  ck_assert_ptr_nonnull(strstr(cli_out, "1.000     2.000  -50.0%"));
}
END_TEST

/* left15 item 2: tssim run checked the table's and the baseline's metrics
 * against the model without the scenario's axes applied, so a metric that
 * only an axis value turns on (host.cores gives cores_used) was refused, and
 * a record of a metric that its own axis value turns off was accepted and
 * compared with nothing. The table needs some combination to report the
 * metric; a record, its own combination (calibrate does the same: 45e9424). */
START_TEST(io_cli_metric_check_follows_axes)
{
  write_tmp("m.json", OK_MODEL);
  write_tmp("s.json", SCENARIO(", \"table\": [\"cores_used\"], \"baseline\": \"b.json\", \"axes\": {\"h\": {\"sets\":"
                               " {\"off\": {\"host\": {}}, \"c2\": {\"host.cores\": 2}}}}"));
  write_tmp("b.json", "{\"points\": [{\"n\": 1, \"axes\": {\"h\": \"c2\"}, \"metrics\": {\"cores_used\": 0.5}}]}");
  char args[2 * PATH_MAX + 64];
  snprintf(args, sizeof args, "run '%s' --no-plots -o '%s'", tmp_path("s.json"), tmp_path("out"));
  ck_assert_msg(cli(args) == 0, "%s", cli_err);
  ck_assert_msg(strstr(cli_out, "cores_used  recorded     err"), "%s", cli_out);
  ck_assert_msg(strstr(cli_out, "c2       1       1       1.000     0.500 +100.0%"), "%s", cli_out);
  write_tmp("b.json", "{\"points\": [{\"n\": 1, \"axes\": {\"h\": \"c2\"}, \"metrics\": {\"cores_used\": 0.5}},"
                      " {\"n\": 1, \"axes\": {\"h\": \"off\"}, \"metrics\": {\"cores_used\": 0.5}}]}");
  expect_one_line_error(cli(args), "b.json: points[1].metrics.cores_used: unknown metric: model ");
  ck_assert_msg(strstr(cli_err, "m.json with axes h=off does not report it"), "%s", cli_err);
  write_tmp("s.json", SCENARIO(", \"table\": [\"cores_used\"], \"axes\": {\"h\": {\"sets\":"
                               " {\"off\": {\"host\": {}}, \"on\": {\"host\": {}}}}}"));
  expect_one_line_error(cli(args), "s.json: table[0]: \"cores_used\": model ");
  /* a column named twice is refused, as --columns does (ux20: it was shown twice) */
  write_tmp("s.json", SCENARIO(", \"table\": [\"wave_ms\", \"cpu_ms\", \"wave_ms\"]"));
  expect_one_line_error(cli(args), "s.json: table[2]: \"wave_ms\" is named twice (also table[0])");
}
END_TEST

/* walk14 item 3: a record at an n the sweep lacks (45 typed for 40) was
 * left out silently (only a baseline of which nothing matched got a note,
 * and only without -q). Now a note says how many records belong to no
 * point and the first, even with -q; none when every record belongs. */
START_TEST(io_cli_unmatched_records_are_noted)
{
  write_tmp("m.json", MODEL("{\"count\": \"n\", \"program\": [" OK_STEP "]}"));
  write_tmp("s.json", "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1], \"baseline\": \"b.json\"}");
  write_tmp("b.json", "{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}}, {\"n\": 3, \"metrics\": {\"wave_ms\": 2}}]}");
  char args[2 * PATH_MAX + 64];
  snprintf(args, sizeof args, "run '%s' -q --no-plots -o '%s'", tmp_path("s.json"), tmp_path("out"));
  ck_assert_int_eq(cli(args), 0);
  ck_assert_msg(strstr(cli_err, "tssim: note: 1 of the 2 recorded values of ") &&
                strstr(cli_err, "b.json belong to no point of this sweep, so they are not compared (the first, "
                                "points[1].metrics.wave_ms, is at n=3 workers=1)\n"), "%s", cli_err);
  write_tmp("b.json", "{\"points\": [{\"n\": 4, \"metrics\": {\"wave_ms\": 1}}]}");
  ck_assert_int_eq(cli(args), 0);
  ck_assert_msg(strstr(cli_err, "recorded values of") == NULL &&
                strstr(cli_err, "no recorded value of ") && strstr(cli_err, "nothing was compared"), "%s", cli_err);
  write_tmp("b.json", "{\"points\": [{\"n\": 2, \"metrics\": {\"wave_ms\": 1}}]}");
  ck_assert_int_eq(cli(args), 0);
  ck_assert_msg(strstr(cli_err, "tssim: note") == NULL, "%s", cli_err);
  /* records at the sweep's n that name no value of an axis: the note says which axis (review14c) */
  write_tmp("s.json", "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1], \"baseline\": \"b.json\","
                      " \"axes\": {\"h\": {\"sets\": {\"c1\": {\"host.cores\": 1}}}}}");
  ck_assert_int_eq(cli(args), 0);
  ck_assert_msg(strstr(cli_err, "is at n=2 workers=1; it names no value of the scenario's axis \"h\"): nothing was "
                                "compared\n"), "%s", cli_err);
}
END_TEST

START_TEST(io_cli_bad_file_exits_2_one_line)
{
  write_tmp("bad.json", "{\"name\": \"x\",\n \"model\": }");
  char args[PATH_MAX + 64];
  snprintf(args, sizeof args, "run '%s'", tmp_path("bad.json"));
  expect_one_line_error(cli(args), "malformed JSON at line 2");
  snprintf(args, sizeof args, "run '%s'", tmp_path("absent.json"));
  expect_one_line_error(cli(args), "cannot open");
  /* a scenario whose model is bad: the model file is named */
  write_tmp("m.json", PROGRAM("{\"op\": \"cpu\", \"ms\": -1}"));
  write_tmp("s.json", SCENARIO(""));
  snprintf(args, sizeof args, "run '%s'", tmp_path("s.json"));
  expect_one_line_error(cli(args), "m.json: classes[0].program[0].ms: expected a number");
  /* a sweep whose simulated time would overflow is refused: 10^6 actors of an hour each */
  write_tmp("m.json", MODEL("{\"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 3600000}]}"));
  write_tmp("s.json", "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1000000], \"workers\": [1]}");
  expect_one_line_error(cli(args), "s.json: n=1000000 workers=1 replication 0: simulated time would pass 73 years");
}
END_TEST

START_TEST(io_cli_error_is_one_line_for_any_input)
{
  /* a JSON string may hold a newline ("\n"); the message quoting it must stay one line */
  write_tmp("m.json", PROGRAM("{\"op\": \"sl\\neep\"}"));
  write_tmp("s.json", SCENARIO(""));
  char args[PATH_MAX + 64];
  snprintf(args, sizeof args, "run '%s'", tmp_path("s.json"));
  expect_one_line_error(cli(args), "classes[0].program[0].op: expected one of cpu");
}
END_TEST

START_TEST(io_cli_bad_options_exit_2_one_line)
{
  expect_one_line_error(cli(RR_ARGS " --set worker.treshold_ms=5"), "worker.treshold_ms: unknown key");
  expect_one_line_error(cli(RR_ARGS " --set classes[4].count=1"), "classes[4].count: no such place");
  expect_one_line_error(cli(RR_ARGS " --n 1,x"), "--n: expected a comma-separated list");
  expect_one_line_error(cli(RR_ARGS " --workers 0"), "--workers: expected");
  expect_one_line_error(cli(RR_ARGS " -r 0"), "--replications: expected an integer");
  expect_one_line_error(cli(RR_ARGS " --seed -3"), "--seed: expected an integer in [0, 9007199254740991]");
}
END_TEST

/* Each message says what was expected, with the file and the JSON path (a
 * lecturer's walkthrough, walk13 item 8). */
START_TEST(io_cli_messages_say_what_was_expected)
{
  char args[PATH_MAX + 200];
  /* "=>" is no operator, not a metric named "srv =" */
  expect_one_line_error(cli("optimize scenarios/examples/mm1.json --minimize wait_mean_ms --choice "
                            "params.service_ms=1,1.1 --constraint 'cpu_cores => 0.2'"),
                        "--constraint: \"cpu_cores => 0.2\": unknown operator \"=>\": expected one of <=, <, >=, >");
  /* a scenario's model that is a folder: the scenario and its key "model" */
  write_tmp("s.json", "{\"name\": \"s\", \"model\": \"..\", \"workers\": [1]}");
  snprintf(args, sizeof args, "run '%s'", tmp_path("s.json"));
  expect_one_line_error(cli(args), "s.json: model: \"..\" (");
  expect_one_line_error(cli(args), ") is a directory, expected a JSON model file");
  /* a word where ms are expected */
  write_tmp("m.json", PROGRAM("{\"op\": \"cpu\", \"ms\": \"fast\"}"));
  write_tmp("s.json", SCENARIO(""));
  expect_one_line_error(cli(args), "m.json: classes[0].program[0].ms: expected a number or an expression such as "
                                   "\"$x * 2\"; got \"fast\": unknown name \"fast\"");
  /* an integer field says integer whether the value is out of range or not whole */
  write_tmp("m.json", "{\"servers\": [{\"name\": \"s\", \"concurrency\": 0}], \"classes\": [" CLASS_OF(OK_STEP) "]}");
  expect_one_line_error(cli(args), "m.json: servers[0].concurrency: expected an integer in [1, 1000000], got 0");
  write_tmp("m.json", "{\"servers\": [{\"name\": \"s\", \"concurrency\": 2.5}], \"classes\": [" CLASS_OF(OK_STEP) "]}");
  expect_one_line_error(cli(args), "m.json: servers[0].concurrency: expected an integer in [1, 1000000], got 2.5");
}
END_TEST

START_TEST(io_cli_usage_statuses)
{
  ck_assert_int_eq(cli("run"), 2);
  ck_assert_int_eq(count_lines(cli_err), 1); /* one line, pointing at --help */
  ck_assert_ptr_nonnull(strstr(cli_err, "expected exactly one SCENARIO.json (see tssim run --help)"));
  ck_assert_int_eq(cli("run a.json b.json"), 2);
  ck_assert_int_eq(cli("run --bogus scenarios/rr-wave.json"), 2);
  ck_assert_int_eq(count_lines(cli_err), 1);
  ck_assert_ptr_nonnull(strstr(cli_err, "run: unknown option, or an option without its value: --bogus"));
  ck_assert_int_eq(cli("run --help"), 0);
  ck_assert_ptr_nonnull(strstr(cli_out, "usage: tssim run SCENARIO.json"));
  ck_assert_ptr_nonnull(strstr(cli_out, "wave_p95_ms"));
  ck_assert_int_eq(cli("frobnicate"), 2);
  ck_assert_ptr_nonnull(strstr(cli_err, "unknown command \"frobnicate\""));
  ck_assert_int_eq(cli(""), 2);
  ck_assert_int_eq(cli("--help"), 0);
  ck_assert_int_eq(cli("--version"), 0);
  ck_assert_str_eq(cli_out, "tssim " TSSIM_VERSION "\n");
}
END_TEST

/* Run into tmp/out and return summary.csv's bytes. */
static char *good_run_summary(size_t *len)
{
  char args[PATH_MAX + 128];
  snprintf(args, sizeof args, RR_ARGS " -o '%s'", tmp_path("out"));
  ck_assert_int_eq(cli(args), 0);
  return tu_read_file(tmp_path("out/summary.csv"), len);
}

/* Run a failing command into tmp/out; summary.csv must be byte-identical to before. */
static void expect_failed_run_keeps(const char *args_fmt, int status, const char *before, size_t before_len)
{
  char args[2 * PATH_MAX + 256];
  snprintf(args, sizeof args, args_fmt, tmp_path("out"));
  ck_assert_int_eq(cli(args), status);
  size_t len;
  char *after = tu_read_file(tmp_path("out/summary.csv"), &len);
  ck_assert_uint_eq(len, before_len);
  ck_assert(memcmp(before, after, len) == 0);
  free(after);
}

START_TEST(io_cli_failed_run_keeps_old_results)
{
  size_t len;
  char *before = good_run_summary(&len);
  ck_assert_uint_gt(len, 0);
  expect_failed_run_keeps(RR_ARGS " --set worker.policy=lifo -o '%s'", 2, before, len);
  /* a run that deadlocks fails with status 1, after loading */
  expect_failed_run_keeps("run tests/data/deadlock.json -q --no-plots -o '%s'", 1, before, len);
  ck_assert_ptr_nonnull(strstr(cli_err, "deadlocked"));
  free(before);
}
END_TEST

START_TEST(io_cli_failed_write_keeps_old_results)
{
  /* the batch fails at its last file (summary.json cannot be replaced: it is a
   * non-empty folder): the files before it must not have been replaced either */
  size_t len;
  char *before = good_run_summary(&len);
  char cmd[3 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "rm '%s' && mkdir -p '%s/keep'", tmp_path("out/summary.json"),
           tmp_path("out/summary.json"));
  ck_assert_int_eq(system(cmd), 0);
  /* an I/O failure writing results: status 3 */
  expect_failed_run_keeps("run scenarios/rr-wave.json --n 8 --workers 1 -q --no-plots -o '%s'", 3, before, len);
  free(before);
}
END_TEST

Suite *io_cli_suite(void)
{
  Suite *s = suite_create("io_cli");
  const TTest *const cli_tests[] = {io_cli_bad_file_exits_2_one_line, io_cli_scaling_baseline_keeps_every_field, io_cli_metric_check_follows_axes,
                                    io_cli_unmatched_records_are_noted,
                                    io_cli_bad_options_exit_2_one_line,
                                    io_cli_error_is_one_line_for_any_input,
                                    io_cli_usage_statuses,
                                    io_cli_messages_say_what_was_expected,
                                    io_cli_failed_run_keeps_old_results,
                                    io_cli_failed_write_keeps_old_results,
                                    NULL};
  tu_tcase(s, "cli", cli_tests, make_tmp, remove_tmp, 60);
  return s;
}
