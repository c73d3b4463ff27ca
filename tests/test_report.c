/* Results files: what `tssim run` writes (summary.csv, samples.csv,
 * summary.json), their values on the round-robin reference, and their
 * determinism under a seed. Each test runs the built binary into its own
 * temporary folder. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"
#include "run/sweep_internal.h" /* ts__boot_interval: the interval the files must show */
#include "testutil.h"

static char dir[512]; /* this test's folder: one subfolder per run */

static void dir_create(void)
{
  tu_mkdtemp(dir, sizeof dir, "report");
}

static void dir_remove(void)
{
  tu_rmtree(dir);
}

/* `tssim run SCENARIO -q --no-plots -o DIR/OUT ARGS`, from the source root; must exit 0. */
static void run_into(const char *out, const char *scenario, const char *args)
{
  char cmd[4096], *text;
  snprintf(cmd, sizeof cmd, "run '%s' -q --no-plots -o '%s/%s' %s", scenario, dir, out, args);
  int status = tu_tssim(cmd, &text, NULL);
  ck_assert_msg(status == 0, "failed (exit %d): %s\n%s", status, cmd, text);
  free(text);
}

#define RR "scenarios/rr-wave.json"
#define RR16 "--n 16 --workers 1"
#define EXP "tests/data/exp.json"

/* The bytes of DIR/OUT/FILE, NUL-terminated (caller frees). */
static char *result(const char *out, const char *file)
{
  char path[1024];
  snprintf(path, sizeof path, "%s/%s/%s", dir, out, file);
  return tu_read_file(path, NULL);
}

/* DIR/OUT/FILE parsed as JSON (caller deletes). */
static cJSON *result_json(const char *out, const char *file)
{
  char *text = result(out, file);
  cJSON *root = cJSON_Parse(text);
  ck_assert_msg(root != NULL, "%s does not parse", file);
  free(text);
  return root;
}

static int same_file(const char *out_a, const char *out_b, const char *file)
{
  char *a = result(out_a, file), *b = result(out_b, file);
  int same = strcmp(a, b) == 0;
  free(a);
  free(b);
  return same;
}

/* ---- CSV: a header line and rows of comma-separated fields ---- */

static int count_lines(const char *text)
{
  int n = 0;
  for (; *text; text++)
    n += *text == '\n';
  return n;
}

/* Index of column name in the header (the first line), or -1. */
static int column(const char *csv, const char *name)
{
  size_t len = strlen(name);
  int col = 0;
  for (const char *p = csv; *p && *p != '\n'; col++) {
    size_t f = strcspn(p, ",\n");
    if (f == len && strncmp(p, name, len) == 0)
      return col;
    p += f + (p[f] == ',');
  }
  return -1;
}

/* Start of line `row` (0 = header). */
static const char *line(const char *csv, int row)
{
  for (; row > 0; row--) {
    csv = strchr(csv, '\n');
    ck_assert_ptr_nonnull(csv);
    csv++;
  }
  return csv;
}

/* The field of column `name` on line `row`, as a number. */
/* The text of column name in row (up to the next ',' or newline). */
static const char *field_text(const char *csv, int row, const char *name)
{
  int col = column(csv, name);
  ck_assert_msg(col >= 0, "no column %s", name);
  const char *p = line(csv, row);
  for (int c = 0; c < col; c++) {
    p += strcspn(p, ",\n");
    ck_assert_int_eq(*p, ',');
    p++;
  }
  return p;
}

static double field(const char *csv, int row, const char *name)
{
  return strtod(field_text(csv, row, name), NULL);
}

/* ---- tests ---- */

START_TEST(report_summary_csv_columns_and_values)
{
  /* n = 16 on one worker: actor i is done at (16 * 39 + i + 1) * 10 ms, so
   * wave_ms (the median) is 6325, p95 interpolates 6390..6400 at 0.25: 6392.5;
   * queue_wait = done - 400 ms CPU - 10 i ms ready wait = 5850 for every actor */
  run_into("rr", RR, RR16);
  char *csv = result("rr", "summary.csv");
  static const char *const cols[] = {"n", "workers", "replications", "wave_ms", "wave_p95_ms", "per_group_cpu_ms",
                                     "wave_ratio", "lock_wait_ms", "lock_work_ms", "queue_wait_ms", "slices"};
  for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
    ck_assert_msg(column(csv, cols[i]) >= 0, "summary.csv lacks column %s", cols[i]);
  ck_assert_int_eq(count_lines(csv), 2);
  ck_assert_double_eq(field(csv, 1, "n"), 16);
  ck_assert_double_eq(field(csv, 1, "workers"), 1);
  ck_assert_double_eq(field(csv, 1, "replications"), 1);
  ck_assert_double_eq(field(csv, 1, "wave_ms"), 6325);
  ck_assert_double_eq(field(csv, 1, "wave_p95_ms"), 6392.5);
  ck_assert_double_eq(field(csv, 1, "per_group_cpu_ms"), 400);
  ck_assert_double_eq(field(csv, 1, "wave_ratio"), 1);
  ck_assert_double_eq(field(csv, 1, "lock_wait_ms"), 0);
  ck_assert_double_eq(field(csv, 1, "lock_work_ms"), 0);
  ck_assert_double_eq(field(csv, 1, "queue_wait_ms"), 5850);
  ck_assert_double_eq(field(csv, 1, "slices"), 40);
  free(csv);
}
END_TEST

START_TEST(report_samples_one_row_per_actor)
{
  run_into("rr", RR, RR16);
  char *csv = result("rr", "samples.csv");
  ck_assert_int_eq(count_lines(csv), 1 + 16);
  for (int i = 0; i < 16; i++) {
    ck_assert_double_eq(field(csv, 1 + i, "actor"), i);
    ck_assert_double_eq(field(csv, 1 + i, "done_ms"), (16 * 39 + i + 1) * 10);
    ck_assert_double_eq(field(csv, 1 + i, "slices"), 40);
    ck_assert_double_eq(field(csv, 1 + i, "ready_wait_ms"), 10 * i);
  }
  free(csv);
}
END_TEST

START_TEST(report_samples_cover_every_replication)
{
  /* n = 3 and 5, two replications each: 16 rows, each (replication, n) with actors 0..n-1 */
  run_into("rr", RR, "--n 3,5 --workers 1 -r 2");
  char *csv = result("rr", "samples.csv");
  ck_assert_int_eq(count_lines(csv), 1 + (3 + 5) * 2);
  int seen[2][6] = {{0}};
  for (int row = 1; row <= 16; row++) {
    int rep = (int)field(csv, row, "replication"), n = (int)field(csv, row, "n"), a = (int)field(csv, row, "actor");
    ck_assert(rep >= 0 && rep < 2 && (n == 3 || n == 5) && a >= 0 && a < n);
    seen[rep][a] += n;
  }
  for (int rep = 0; rep < 2; rep++)
    for (int a = 0; a < 5; a++)
      ck_assert_int_eq(seen[rep][a], a < 3 ? 3 + 5 : 5);
  free(csv);
  char *sum = result("rr", "summary.csv");
  ck_assert_int_eq(count_lines(sum), 1 + 2);
  ck_assert_double_eq(field(sum, 1, "replications"), 2);
  ck_assert_double_eq_tol(field(sum, 2, "wave_ratio"), field(sum, 2, "wave_ms") / field(sum, 1, "wave_ms"), 1e-6);
  free(sum);
}
END_TEST

START_TEST(report_wave_ratio_ignores_a_point_without_actors)
{
  /* a count of n - 2: n = 2 has no actors (no wave_ms): the ratio's base
   * must be the smallest n that has samples, here n = 4 (2 actors, 795 ms;
   * n = 6: 4 actors, 1585 ms) */
  run_into("rr", RR, "--n 2,4,6 --workers 1 --set 'classes[0].count=\"n - 2\"'");
  char *csv = result("rr", "summary.csv");
  ck_assert_int_eq(count_lines(csv), 1 + 3);
  ck_assert_double_eq(field(csv, 2, "wave_ms"), 795);
  ck_assert_double_eq(field(csv, 3, "wave_ms"), 1585);
  ck_assert_double_eq_tol(field(csv, 2, "wave_ratio"), 1, 1e-6);
  ck_assert_double_eq_tol(field(csv, 3, "wave_ratio"), 1585.0 / 795, 1e-6);
  free(csv);
}
END_TEST

/* The time-slice queue metrics against round robin worked by hand: N actors
 * of S slices of q = 10 ms on one worker (rows of 1 ms, threshold 9 ms).
 * The actors arrive together as callbacks, so the first round's yields find
 * 0, 1, ..., N - 1 actors in the time-slice queue and every later yield N - 1:
 * queue_depth = (N - 1)(S - 3/2)/(S - 1), queue_depth_max = N - 1, and every
 * yield waits (N - 1) q to be resumed. On W = 2 workers with i mod W
 * dispatch each worker holds N/2 of them. */
START_TEST(report_queue_metrics_match_round_robin)
{
  run_into("q", RR, "--n 1,2,3,8 --workers 1,2 --set params.c_ms=30 --set 'classes[0].program[0].rows=30'");
  char *csv = result("q", "summary.csv");
  ck_assert_int_eq(count_lines(csv), 1 + 8);
  const int ns[] = {1, 2, 3, 8};
  const double S = 3;
  for (int row = 1; row <= 8; row++) {
    int n = ns[(row - 1) % 4], w = row <= 4 ? 1 : 2;
    ck_assert_double_eq(field(csv, row, "n"), n);
    ck_assert_double_eq(field(csv, row, "workers"), w);
    double m = (n + w - 1) / w; /* actors per worker (n = 1 on 2 workers: one worker idle) */
    double depth = n == 1 ? 0 : (m - 1) * (S - 1.5) / (S - 1);
    if (w == 2 && n % 2 == 1 && n > 1) /* 3 on 2 workers: 2 and 1; the entries of both are averaged */
      depth = ((m - 1) * (S - 1.5) * 2 + 0) / ((S - 1) * 3);
    ck_assert_msg(fabs(field(csv, row, "queue_depth") - depth) < 1e-6, "n %d w %d: queue_depth %g, want %g", n, w,
                  field(csv, row, "queue_depth"), depth);
    ck_assert_double_eq(field(csv, row, "queue_depth_max"), m - 1);
    double wait = w == 2 && n == 3 ? (2.0 * 2 * 10 + 2 * 0) / 6 : (m - 1) * 10;
    ck_assert_msg(fabs(field(csv, row, "slice_wait_ms") - wait) < 1e-6, "n %d w %d: slice_wait_ms %g, want %g", n, w,
                  field(csv, row, "slice_wait_ms"), wait);
  }
  free(csv);
}
END_TEST

/* An actor still running at the horizon has no wave_ms and no done_ms: its
 * samples.csv fields are empty and it is left out of those medians (it
 * used to count as a wave of 0 and a done_ms of -0.000001); a class with no
 * actors reports empty values, not 0. rr-wave's 2 actors need 60 ms each on
 * one worker (done at 110 and 120 ms): a horizon of 115 ms ends the second
 * one's run; a count of n - 2 at n = 2 makes no actor. */
START_TEST(report_unfinished_actors_have_no_wave)
{
  char scen[1100];
  snprintf(scen, sizeof scen, "%s/short.json", dir);
  char *root = tu_source_path("models/rr-wave.json"), text[1400];
  snprintf(text, sizeof text,
           "{\"name\": \"short\", \"model\": \"%s\", \"n\": [2], \"workers\": [1], \"horizon_ms\": 115,"
           " \"set\": {\"params.c_ms\": 60, \"classes[0].program[0].rows\": 60}}",
           root);
  free(root);
  tu_write_file(scen, text);
  run_into("short", scen, "");
  char *csv = result("short", "summary.csv"), *samples = result("short", "samples.csv");
  ck_assert_double_eq(field(csv, 1, "samples"), 2);
  ck_assert_double_eq(field(csv, 1, "wave_ms"), 110); /* the finished one only */
  ck_assert_double_eq(field(csv, 1, "done_ms"), 110);
  ck_assert_ptr_nonnull(strstr(samples, "\n0,2,1,1,job,0,0.000000,,")); /* actor 1: no wave_ms */
  ck_assert_msg(samples[strlen(samples) - 2] == ',', "actor 1 has a done_ms: %s", samples);
  free(csv);
  free(samples);
  run_into("none", RR, "--n 2 --workers 1 --set 'classes[0].count=\"n - 2\"'");
  csv = result("none", "summary.csv");
  ck_assert_ptr_nonnull(strstr(csv, "\n2,1,job,1,0,,"));
  free(csv);
}
END_TEST

START_TEST(report_summary_json_records_the_run)
{
  run_into("rr", RR, RR16 " --seed 7");
  cJSON *root = result_json("rr", "summary.json");
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(root, "tssim_version")), TSSIM_VERSION);
  ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "seed")), 7);
  ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(root, "replications")), 1);
  const cJSON *model = cJSON_GetObjectItem(root, "model");
  ck_assert(cJSON_IsObject(model));
  ck_assert_str_eq(cJSON_GetStringValue(cJSON_GetObjectItem(model, "name")), "rr-wave");
  const cJSON *points = cJSON_GetObjectItem(root, "points");
  ck_assert_int_eq(cJSON_GetArraySize(points), 1);
  ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(cJSON_GetArrayItem(points, 0), "wave_ms")), 6325);
  cJSON_Delete(root);
}
END_TEST

START_TEST(report_json_model_holds_overrides)
{
  run_into("rr", RR, RR16 " --set worker.threshold_ms=19");
  cJSON *root = result_json("rr", "summary.json");
  const cJSON *worker = cJSON_GetObjectItem(cJSON_GetObjectItem(root, "model"), "worker");
  ck_assert_double_eq(cJSON_GetNumberValue(cJSON_GetObjectItem(worker, "threshold_ms")), 19);
  cJSON_Delete(root);
  /* 20 ms slices: 20 per actor */
  char *csv = result("rr", "summary.csv");
  ck_assert_double_eq(field(csv, 1, "slices"), 20);
  free(csv);
}
END_TEST

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

START_TEST(report_summary_is_pooled_median_and_p95_of_samples)
{
  /* random latencies make the pooled distribution skewed: median and mean differ */
  run_into("exp", EXP, "--seed 3");
  char *samples = result("exp", "samples.csv"), *summary = result("exp", "summary.csv");
  enum { COUNT = 8 * 2 };
  double v[COUNT], mean = 0;
  ck_assert_int_eq(count_lines(samples), 1 + COUNT);
  for (int i = 0; i < COUNT; i++)
    mean += v[i] = field(samples, 1 + i, "wave_ms");
  mean /= COUNT;
  qsort(v, COUNT, sizeof *v, cmp_double);
  double median = (v[7] + v[8]) / 2, p95 = v[14] + 0.25 * (v[15] - v[14]); /* at (COUNT - 1) * 0.95 */
  ck_assert_double_eq_tol(field(summary, 1, "wave_ms"), median, 1e-5);
  ck_assert_double_eq_tol(field(summary, 1, "wave_p95_ms"), p95, 1e-5);
  ck_assert(fabs(mean - median) > 1e-3);
  free(samples);
  free(summary);
}
END_TEST

START_TEST(report_same_seed_byte_identical)
{
  run_into("a", EXP, "--seed 5");
  run_into("b", EXP, "--seed 5");
  ck_assert(same_file("a", "b", "summary.csv"));
  ck_assert(same_file("a", "b", "samples.csv"));
  ck_assert(same_file("a", "b", "summary.json"));
}
END_TEST

START_TEST(report_seed_changes_random_samples)
{
  run_into("a", EXP, "--seed 5");
  run_into("b", EXP, "--seed 6");
  ck_assert(!same_file("a", "b", "samples.csv"));
  /* the two replications of one run differ from each other too */
  char *csv = result("a", "samples.csv");
  ck_assert_int_eq(count_lines(csv), 1 + 8 * 2);
  ck_assert(field(csv, 1, "io_ms") != field(csv, 9, "io_ms"));
  free(csv);
  /* without random durations the seed changes nothing but its own record */
  run_into("c", RR, RR16 " --seed 5");
  run_into("d", RR, RR16 " --seed 6");
  ck_assert(same_file("c", "d", "samples.csv"));
  ck_assert(same_file("c", "d", "summary.csv"));
}
END_TEST

/* The seed summary.json records for the run into DIR/OUT. */
static double recorded_seed(const char *out)
{
  cJSON *root = result_json(out, "summary.json");
  const cJSON *seed = cJSON_GetObjectItem(root, "seed");
  ck_assert(cJSON_IsNumber(seed));
  double v = seed->valuedouble;
  cJSON_Delete(root);
  return v;
}

/* Run with --seed SEED, then again with the seed summary.json recorded: same samples. */
static void expect_recorded_seed_reproduces(const char *seed)
{
  char args[128];
  snprintf(args, sizeof args, "--seed %s", seed);
  run_into("first", EXP, args);
  double rec = recorded_seed("first");
  snprintf(args, sizeof args, "--seed %.0f", rec);
  run_into("again", EXP, args);
  ck_assert_msg(strtod(seed, NULL) == rec, "ran with seed %s, summary.json records %.0f", seed, rec);
  ck_assert(same_file("first", "again", "samples.csv"));
}

START_TEST(report_recorded_seed_reproduces_the_run)
{
  expect_recorded_seed_reproduces("12345");
  /* the largest seed a scenario file accepts (2^53 - 1) */
  expect_recorded_seed_reproduces("9007199254740991");
}
END_TEST

/* dir/b.json, a baseline recording wave_ms 6000 at n = 16, and beside it
 * dir/s.json, a scenario naming it and the reference model rr-wave by
 * absolute path; the scenario's path into path[0..size). */
static void write_baseline_scenario(const char *in, char *path, size_t size)
{
  char text[2048];
  snprintf(path, size, "%s/b.json", in);
  tu_write_file(path, "{\"points\": [{\"n\": 16, \"workers\": 1, \"metrics\": {\"wave_ms\": 6000}}]}");
  snprintf(path, size, "%s/s.json", in);
  snprintf(text, sizeof text,
           "{\"name\": \"with-baseline\", \"model\": \"%s/models/rr-wave.json\", \"baseline\": \"b.json\","
           " \"n\": [16], \"workers\": [1]}",
           tu_source_root());
  tu_write_file(path, text);
}

START_TEST(report_baseline_adds_recorded_columns)
{
  /* a scenario beside its baseline, naming the reference model by absolute path */
  char path[1024];
  write_baseline_scenario(dir, path, sizeof path);
  run_into("rr", path, "");
  char *csv = result("rr", "summary.csv");
  ck_assert_double_eq(field(csv, 1, "recorded_wave_ms"), 6000);
  ck_assert_double_eq_tol(field(csv, 1, "err_wave_ms"), 325.0 / 6000, 1e-6);
  ck_assert_int_eq(column(csv, "recorded_slices"), -1);
  free(csv);
}
END_TEST

/* A recorded 0 (a lock wait of 0 is one) has no relative error: err is an
 * empty field (docs/output.md: an undefined value), "-" in the table, not
 * err_wave_ms=0.000000 and "+0.0%", a perfect match whatever was simulated
 * (ux22 item 2). */
START_TEST(report_recorded_zero_has_no_error)
{
  char path[1024], cmd[3000], *out;
  write_baseline_scenario(dir, path, sizeof path);
  snprintf(path, sizeof path, "%s/b.json", dir);
  tu_write_file(path, "{\"points\": [{\"n\": 16, \"workers\": 1, \"metrics\": {\"wave_ms\": 0}}]}");
  snprintf(cmd, sizeof cmd, "run '%s/s.json' --no-plots -o '%s/zero'", dir, dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, NULL), 0);
  char *row = strstr(out, "\n    16       1 "), want[64];
  ck_assert_msg(row, "%s", out);
  row[1 + strcspn(row + 1, "\n")] = '\0'; /* the row alone */
  snprintf(want, sizeof want, " %9.1f %7s", 0.0, "-"); /* recorded, err */
  ck_assert_msg(strstr(row, want) && !strchr(row, '%'), "%s", out);
  free(out);
  char *csv = result("zero", "summary.csv");
  ck_assert_double_eq(field(csv, 1, "recorded_wave_ms"), 0);
  ck_assert_msg(strchr(",\n", *field_text(csv, 1, "err_wave_ms")), "err_wave_ms: %.12s", field_text(csv, 1, "err_wave_ms"));
  free(csv);
}
END_TEST

/* With "compare", each change from the compare axis's first value gets a
 * paired interval of the ratio of the replication means: replication r draws
 * the same numbers at every axis value, so doubling an exponential demand
 * (every replication's wave exactly twice the first value's) has a
 * zero-width interval, while a fixed 5 ms shift moves the ratio by 5 / X_r
 * and has the delta method's 5 ci / m^2 (m, ci: the first value's mean and
 * half-width over the replications). */
START_TEST(report_compare_interval_is_paired)
{
  const char *model = "{\"name\": \"m\", \"params\": {\"k\": 1, \"d\": 0}, \"classes\": [{\"name\": \"job\", \"count\": \"n\","
                      " \"program\": [{\"op\": \"cpu\", \"ms\": \"$k\", \"dist\": \"exponential\"},"
                      " {\"op\": \"sleep\", \"ms\": \"$d\"}]}]}";
  const char *scenario = "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], \"replications\": 8,"
                         " \"axes\": {\"v\": {\"sets\": {\"a\": {\"params.d\": 0}, \"shift\": {\"params.d\": 5},"
                         " \"double\": {\"params.k\": 2}}}}, \"compare\": \"v\"}";
  char d[256], *out, *err;
  ck_assert_int_eq(tu_run_files("compare", model, scenario, d, sizeof d, &out, &err), 0);
  char path[512];
  snprintf(path, sizeof path, "%s/out/summary.csv", d);
  tu_table t;
  tu_table_read(&t, path);
  ck_assert_str_eq(tu_table_cell(&t, 0, "v"), "a");
  ck_assert_str_eq(tu_table_cell(&t, 0, "wave_ms_vs_a_ci95"), "");
  /* the Student-t half-width of the first value's replication mean (one
   * actor per replication: its wave); with 8 replications, below
   * TS__BOOT_MIN_REPLICATIONS, wave_ms_ci95 is that half-width too, not the
   * pooled median's bootstrap interval */
  snprintf(path, sizeof path, "%s/out/samples.csv", d);
  tu_table sm;
  tu_table_read(&sm, path);
  double a[8];
  int na = 0;
  for (int r = 0; r < sm.nrows; r++)
    if (strcmp(tu_table_cell(&sm, r, "v"), "a") == 0 && na < 8)
      a[na++] = tu_table_num(&sm, r, "wave_ms");
  ck_assert_int_eq(na, 8);
  tu_table_free(&sm);
  double m = gsl_stats_mean(a, 1, 8), ci = gsl_cdf_tdist_Pinv(0.975, 7) * gsl_stats_sd(a, 1, 8) / sqrt(8.0);
  ck_assert_double_eq_tol(tu_table_num(&t, 0, "wave_ms_mean"), m, 1e-5);
  ck_assert_double_gt(ci / m, 0.1);
  double hw = tu_table_num(&t, 0, "wave_ms_ci95");
  ck_assert_int_lt(8, TS__BOOT_MIN_REPLICATIONS);
  ck_assert_double_eq_tol(hw, ci, 1e-5 * ci);
  ck_assert_str_eq(tu_table_cell(&t, 1, "v"), "shift");
  ck_assert_double_eq_tol(tu_table_num(&t, 1, "wave_ms_mean"), m + 5, 1e-5);
  double want = 5 * ci / (m * m);
  ck_assert_double_gt(want, 0.01);
  ck_assert_double_eq_tol(tu_table_num(&t, 1, "wave_ms_vs_a_ci95"), want, 1e-4 * want);
  ck_assert_str_eq(tu_table_cell(&t, 2, "v"), "double");
  ck_assert_double_eq_tol(tu_table_num(&t, 2, "wave_ms_mean"), 2 * m, 1e-5);
  ck_assert_double_gt(tu_table_num(&t, 2, "wave_ms_ci95"), 2 * hw - 1e-5); /* every replication doubled */
  ck_assert_str_ne(tu_table_cell(&t, 2, "wave_ms_vs_a_ci95"), "");
  ck_assert_double_lt(tu_table_num(&t, 2, "wave_ms_vs_a_ci95"), 1e-5); /* demands rounded to whole ns */
  tu_table_free(&t);
  free(out);
  free(err);
  tu_rmtree(d);
}
END_TEST

/* A pooled statistic's +-95% is an interval on that statistic: a bootstrap
 * over the replications (ts__boot_interval, seeded from the scenario's seed
 * and the point). With one actor, and one span sample, per replication,
 * each replication's median, p95 and p99 are its one value, so the
 * Student-t half-width over the replications' statistics (what the files
 * showed before) was the same for all of them; the pooled p99 lies near the
 * largest of the 20 values, the median in their middle, and their intervals
 * differ. Every interval holds its pooled value, and the half-width is the
 * larger distance from the value to an end of it. */
START_TEST(report_pooled_quantile_interval_is_a_bootstrap)
{
  const char *model = "{\"name\": \"m\", \"classes\": [{\"name\": \"job\", \"count\": 1, \"program\": ["
                      "{\"op\": \"span_begin\", \"span\": \"s\"}, {\"op\": \"cpu\", \"ms\": 10, \"dist\": \"exponential\"},"
                      " {\"op\": \"span_end\", \"span\": \"s\"}]}]}";
  const char *scenario = "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], \"replications\": 20,"
                         " \"seed\": 7}";
  char d[256], *out, *err, path[512];
  ck_assert_int_eq(tu_run_files("boot", model, scenario, d, sizeof d, &out, &err), 0);
  tu_table t, sm;
  snprintf(path, sizeof path, "%s/out/summary.csv", d);
  tu_table_read(&t, path);
  snprintf(path, sizeof path, "%s/out/samples.csv", d);
  tu_table_read(&sm, path);
  ck_assert_int_eq(sm.nrows, 20);
  double x[20], sorted[20];
  size_t end[20];
  for (int r = 0; r < 20; r++) {
    ck_assert_int_eq((int)tu_table_num(&sm, r, "replication"), r);
    x[r] = sorted[r] = tu_table_num(&sm, r, "wave_ms");
    end[r] = (size_t)r + 1;
  }
  gsl_sort(sorted, 1, 20);
  const struct {
    const char *name;
    int stat; /* ts__actor_stat's numbering */
    double q;
  } m[] = {{"wave_ms", 0, 0.5}, {"wave_p95_ms", 1, 0.95}, {"s_p50_ms", 0, 0.5}, {"s_p95_ms", 1, 0.95},
           {"s_p99_ms", 3, 0.99}, {"s_mean_ms", 2, -1}};
  double hw[6];
  for (int i = 0; i < 6; i++) {
    char ci[64];
    snprintf(ci, sizeof ci, "%s_ci95", m[i].name);
    double v = tu_table_num(&t, 0, m[i].name), lo, hi;
    double pooled = m[i].q < 0 ? gsl_stats_mean(x, 1, 20) : gsl_stats_quantile_from_sorted_data(sorted, 1, 20, m[i].q);
    ck_assert_double_eq_tol(v, pooled, 2e-6);
    hw[i] = tu_table_num(&t, 0, ci);
    ck_assert_int_eq(ts__boot_interval(x, end, 20, m[i].stat, ts_rng_derive_seed(7, 1, 1, -1), &lo, &hi), 0);
    ck_assert_msg(lo - 2e-6 <= v && v <= hi + 2e-6, "%s %g not in [%g, %g]", m[i].name, v, lo, hi);
    ck_assert_msg(lo < hi, "%s: [%g, %g]", m[i].name, lo, hi);
    ck_assert_double_eq_tol(hw[i], fmax(hi - v, v - lo), 1e-5);
  }
  /* the p99's interval is not the median's (before: the same number) */
  ck_assert_double_gt(fabs(hw[4] - hw[2]), 0.1 * hw[2]);
  ck_assert_double_gt(fabs(hw[1] - hw[0]), 0.1 * hw[0]);
  /* the span's and the actor's statistics are the same values, so the same intervals */
  ck_assert_double_eq_tol(hw[0], hw[2], 1e-5);
  /* <m>_mean stays the replication mean of the per-replication statistic */
  ck_assert_double_eq_tol(tu_table_num(&t, 0, "s_p99_ms_mean"), gsl_stats_mean(x, 1, 20), 2e-6);
  tu_table_free(&t);
  tu_table_free(&sm);
  free(out);
  free(err);
  tu_rmtree(d);
}
END_TEST

/* The bootstrap's interval against a brute-force one computed here from
 * its definition (sweep_internal.h): each of TS__BOOT_RESAMPLES resamples
 * draws reps replications with GSL's MT19937 seeded as ts__boot_interval
 * is (gsl_rng_uniform_int), pools their values (a replication drawn twice
 * counts twice), sorts them and takes the statistic with GSL; the interval
 * is the Phi(-sqrt(R/(R-1)) t(0.975, R-1)) and 1 - that quantiles of the
 * resamples' statistics. Two data sets: 5 replications of 20..40 values
 * (the walk over the band), and 8 of 300..900 values with a shift per
 * replication and ties (values on a 0.5 grid): the band of 1024 each side
 * is too narrow for some resamples (it widens) and holds more than 64
 * values per replication (bisection). Every statistic: p50, p95, mean,
 * p99, max, p5, min. */
static void brute_boot(const double *v, const size_t *end, int reps, unsigned long seed, double lo[7], double hi[7])
{
  static const double level[] = {0.5, 0.95, -1, 0.99, 1, 0.05, 0};
  size_t n = end[reps - 1];
  double *pool = malloc(n * (size_t)reps * sizeof *pool), *bs[7];
  ck_assert_ptr_nonnull(pool);
  for (int i = 0; i < 7; i++) {
    bs[i] = malloc(TS__BOOT_RESAMPLES * sizeof *bs[i]);
    ck_assert_ptr_nonnull(bs[i]);
  }
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(g);
  gsl_rng_set(g, seed);
  for (int b = 0; b < TS__BOOT_RESAMPLES; b++) {
    size_t k = 0;
    for (int i = 0; i < reps; i++) {
      unsigned long r = gsl_rng_uniform_int(g, (unsigned long)reps);
      for (size_t j = r ? end[r - 1] : 0; j < end[r]; j++)
        pool[k++] = v[j];
    }
    gsl_sort(pool, 1, k);
    for (int i = 0; i < 7; i++)
      bs[i][b] = level[i] < 0 ? gsl_stats_mean(pool, 1, k) : gsl_stats_quantile_from_sorted_data(pool, 1, k, level[i]);
  }
  double a = gsl_cdf_ugaussian_P(-sqrt(reps / (reps - 1.0)) * gsl_cdf_tdist_Pinv(0.975, reps - 1.0));
  for (int i = 0; i < 7; i++) {
    gsl_sort(bs[i], 1, TS__BOOT_RESAMPLES);
    lo[i] = gsl_stats_quantile_from_sorted_data(bs[i], 1, TS__BOOT_RESAMPLES, a);
    hi[i] = gsl_stats_quantile_from_sorted_data(bs[i], 1, TS__BOOT_RESAMPLES, 1 - a);
    free(bs[i]);
  }
  gsl_rng_free(g);
  free(pool);
}

START_TEST(report_boot_interval_is_the_brute_force_bootstrap)
{
  static const struct {
    int reps, min, spread;
    double shift, grid;
  } sets[] = {{5, 20, 20, 0, 0}, {8, 300, 600, 40, 0.5}};
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  ck_assert_ptr_nonnull(g);
  gsl_rng_set(g, 11);
  for (int d = 0; d < 2; d++) {
    int reps = sets[d].reps;
    size_t end[8], n = 0;
    double *v = malloc(8 * 900 * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (int r = 0; r < reps; r++) {
      size_t count = (size_t)sets[d].min + gsl_rng_uniform_int(g, (unsigned long)sets[d].spread);
      for (size_t i = 0; i < count; i++) {
        double x = sets[d].shift * r + gsl_ran_exponential(g, 10);
        v[n++] = sets[d].grid > 0 ? sets[d].grid * floor(x / sets[d].grid) : x;
      }
      end[r] = n;
    }
    unsigned long seed = ts_rng_derive_seed(3, 4, 1, -1);
    double lo[7], hi[7];
    brute_boot(v, end, reps, seed, lo, hi);
    for (int stat = 0; stat < 7; stat++) {
      double l, h;
      ck_assert_int_eq(ts__boot_interval(v, end, reps, stat, seed, &l, &h), 0);
      ck_assert_msg(fabs(l - lo[stat]) <= 1e-9 * fabs(lo[stat]) && fabs(h - hi[stat]) <= 1e-9 * fabs(hi[stat]),
                    "data %d stat %d: [%.17g, %.17g], brute force [%.17g, %.17g]", d, stat, l, h, lo[stat], hi[stat]);
      ck_assert_double_lt(l, h);
    }
    free(v);
  }
  gsl_rng_free(g);
}
END_TEST

/* A --set of a field that a scenario axis sets is overridden by the axis
 * (its values win): one note on stderr names both and the values that win;
 * an axis that sets it at some values only names those; a --set that no
 * axis touches says nothing. run --help says an axis wins. */
START_TEST(report_set_under_an_axis_is_noted)
{
  const char *model = "{\"name\": \"m\", \"params\": {\"k\": 1, \"d\": 0}, \"classes\": [{\"name\": \"job\", \"count\": 1,"
                      " \"program\": [{\"op\": \"cpu\", \"ms\": \"$k\"}, {\"op\": \"sleep\", \"ms\": \"$d\"}]}]}";
  const char *scenario = "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], \"replications\": 1,"
                         " \"axes\": {\"t\": {\"path\": \"params.k\", \"values\": [1, 2]},"
                         " \"v\": {\"sets\": {\"a\": {\"params.d\": 0}, \"b\": {\"params\": {\"k\": 1, \"d\": 3}}}}}}";
  char d[256], *out, *err;
  ck_assert_int_eq(tu_run_files("setaxis", model, scenario, d, sizeof d, &out, &err), 0);
  ck_assert_msg(!strstr(err, "overridden"), "stderr: %s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s/s.json -o %s/out2 -q --no-plots --set params.k=5 --set params.d=7", d, d),
                   0);
  char want[700];
  snprintf(want, sizeof want,
           "tssim: note: --set params.k=5 is overridden by axis \"t\" of %s/s.json (it sets params.k) at every value "
           "(1, 2): an axis value wins over --set",
           d);
  ck_assert_msg(strstr(err, want), "stderr: %s", err);
  /* the set axis replaces all of params at its value b: both --set */
  ck_assert_msg(strstr(err, "--set params.k=5 is overridden by axis \"v\"") &&
                    strstr(err, "--set params.d=7 is overridden by axis \"v\" of ") &&
                    strstr(err, "(it sets params) at its values (b)"),
                "stderr: %s", err);
  /* params.d at value a too */
  ck_assert_msg(!strstr(err, "params.d=7 is overridden by axis \"t\""), "stderr: %s", err);
  int lines = 0;
  for (const char *c = err; *c; c++)
    lines += *c == '\n';
  ck_assert_msg(lines == 3, "stderr: %s", err);
  free(err);
  /* a --set of params, above both axes' paths: each axis overrides it in part (v's first value, a, sets params.d) */
  ck_assert_int_eq(
      tu_tssimf(NULL, &err, "run %s/s.json -o %s/out3 -q --no-plots --set 'params={\"k\": 5, \"d\": 7}'", d, d), 0);
  snprintf(want, sizeof want,
           "tssim: note: --set params={\"k\": 5, \"d\": 7} is overridden in part by axis \"t\" of %s/s.json (it "
           "sets params.k) at every value (1, 2): ",
           d);
  ck_assert_msg(strstr(err, want), "stderr: %s", err);
  ck_assert_msg(strstr(err, "7} is overridden in part by axis \"v\" of ") &&
                    strstr(err, "(it sets params.d) at every value (a, b)"),
                "stderr: %s", err);
  free(err);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "run --help"), 0);
  ck_assert_msg(strstr(out, "axis that sets the same field wins"), "%s", out);
  free(out);
  tu_rmtree(d);
}
END_TEST

/* A --set on a scenario with a baseline runs a variant the baseline did
 * not record: the recorded and err columns stay, and a note names the
 * baseline and what --set changed. */
START_TEST(report_set_with_a_baseline_is_noted)
{
  char path[1024], *err;
  write_baseline_scenario(dir, path, sizeof path);
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s -q --no-plots -o %s/a", path, dir), 0);
  ck_assert_msg(!strstr(err, "was recorded under"), "stderr: %s", err);
  free(err);
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s -q --no-plots -o %s/b --set worker.threshold_ms=2", path, dir), 0);
  char want[3000];
  snprintf(want, sizeof want,
           "tssim: note: %s/b.json was recorded under %s's own settings, and --set changed them "
           "(worker.threshold_ms=2): the recorded and err columns compare this variant with that recording\n",
           dir, path);
  ck_assert_msg(strstr(err, want), "stderr: %s", err);
  free(err);
  char *csv = result("b", "summary.csv");
  ck_assert_double_eq(field(csv, 1, "recorded_wave_ms"), 6000);
  free(csv);
  /* a --set of the value the model has (rr-wave.json: 9) changes nothing: no note */
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s -q --no-plots -o %s/c --set worker.threshold_ms=9", path, dir), 0);
  ck_assert_msg(!strstr(err, "was recorded under"), "stderr: %s", err);
  free(err);
  /* nor one that an axis sets at every value; one it sets at some values only does */
  char text[2048];
  snprintf(text, sizeof text,
           "{\"name\": \"with-baseline\", \"model\": \"%s/models/rr-wave.json\", \"baseline\": \"b.json\","
           " \"n\": [16], \"workers\": [1], \"axes\": {\"t\": {\"path\": \"worker.threshold_ms\", \"values\": [2, 9]},"
           " \"u\": {\"sets\": {\"a\": {}, \"b\": {\"worker.yield_overhead_ms\": 0}}}}}",
           tu_source_root());
  tu_write_file(path, text);
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s -q --no-plots -o %s/d --set worker.threshold_ms=2", path, dir), 0);
  ck_assert_msg(!strstr(err, "was recorded under"), "stderr: %s", err);
  free(err);
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s -q --no-plots -o %s/e --set worker.yield_overhead_ms=1", path, dir), 0);
  ck_assert_msg(strstr(err, "--set changed them (worker.yield_overhead_ms=1)"), "stderr: %s", err);
  free(err);
}
END_TEST

Suite *report_suite(void)
{
  Suite *s = suite_create("report");
  const TTest *const core[] = {report_summary_csv_columns_and_values,
                               report_samples_one_row_per_actor,
                               report_samples_cover_every_replication,
                               report_summary_json_records_the_run,
                               report_wave_ratio_ignores_a_point_without_actors,
                               report_queue_metrics_match_round_robin,
                               report_unfinished_actors_have_no_wave,
                               report_json_model_holds_overrides,
                               report_baseline_adds_recorded_columns,
                               report_recorded_zero_has_no_error,
                               report_compare_interval_is_paired,
                               report_pooled_quantile_interval_is_a_bootstrap,
                               report_boot_interval_is_the_brute_force_bootstrap,
                               report_set_under_an_axis_is_noted,
                               report_set_with_a_baseline_is_noted,
                               NULL};
  const TTest *const seeds[] = {report_summary_is_pooled_median_and_p95_of_samples,
                                report_same_seed_byte_identical,
                                report_seed_changes_random_samples,
                                report_recorded_seed_reproduces_the_run,
                                NULL};
  tu_tcase(s, "core", core, dir_create, dir_remove, 60);
  tu_tcase(s, "seeds", seeds, dir_create, dir_remove, 60);
  return s;
}
