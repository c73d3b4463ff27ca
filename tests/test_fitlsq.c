/* Calibration by nonlinear least squares (`--method lsq`, fit/lsq.h):
 * recovering known parameters of the deterministic fixture
 * tests/data/fit-rr.json from a baseline the simulator made itself, staying
 * within bounds when the truth lies outside them, the same bytes for any
 * --jobs, the provenance saying which method ran, and the option errors. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fit/loo.h"
#include "fit/lsq.h"
#include "fit/minimize.h"
#include "fitutil.h"
#include "io/jsonfile.h"
#include "testutil.h"

/* Every reported point of a search, checked against the bounds. */
typedef struct seen {
  const ts_fit_params *ps;
  int reports;
  int outside;
} seen;

static void check_bounds(void *data, const ts_fit_progress *p)
{
  seen *s = data;
  s->reports++;
  for (size_t i = 0; i < s->ps->n; i++)
    s->outside += p->values[i] < s->ps->p[i].min || p->values[i] > s->ps->p[i].max;
}

/* The library path: one search from the start lands on the truth, in far
 * fewer evaluations than the simplex needs from the same start. */
START_TEST(fitlsq_recovers_synthetic)
{
  problem f;
  problem_open(&f, make_synthetic, "tests/data/fit-rr.json", 1, 1);
  double start[] = {f.ps.p[0].start, f.ps.p[1].start};
  ts_fit_options o = {.method = TS_FIT_LSQ};
  ts_fit_result r, nm;
  ts_err e;
  ck_assert_msg(ts_fit_minimize(&f.pb, NULL, start, &o, &r, &e) == 0, "%s", e.msg);
  assert_near(r.values[0], TRUE_C_MS, 0.01);
  assert_near(r.values[1], TRUE_IO_MS, 0.01);
  ck_assert(r.converged);
  ck_assert(r.objective < 1e-6);
  ck_assert_int_eq(r.method, TS_FIT_LSQ);
  ck_assert_double_eq(r.lsq_step, TS_FIT_LSQ_STEP);
  for (size_t i = 0; i < f.pb.nt; i++)
    assert_near(r.sim[i], f.pb.t[i].recorded, 0.001);
  ck_assert_msg(ts_fit_minimize(&f.pb, NULL, start, NULL, &nm, &e) == 0, "%s", e.msg);
  ck_assert_msg(r.evaluations < nm.evaluations, "lsq %zu evaluations, nm %zu", r.evaluations, nm.evaluations);
  ck_assert_int_eq(nm.method, TS_FIT_NM);
  ts_fit_result_finish(&r);
  ts_fit_result_finish(&nm);
  problem_close(&f);
}
END_TEST

/* With c_ms's range [50, 120] below its true 137.5, the fit ends at the
 * bound (within at_bound's 1e-4 of the range: the sine map is flat there, so
 * the search approaches it), and every point it reports lies within the
 * bounds. */
START_TEST(fitlsq_respects_bounds)
{
  problem f;
  problem_open(&f, make_synthetic, "tests/data/fit-rr.json", 1, 1);
  f.ps.p[0].min = 50;
  f.ps.p[0].max = 120;
  f.ps.p[0].start = 100;
  double start[] = {f.ps.p[0].start, f.ps.p[1].start};
  seen s = {.ps = &f.ps};
  ts_fit_options o = {.method = TS_FIT_LSQ, .starts = 4, .searches = 2, .progress = check_bounds,
                      .progress_data = &s};
  ts_fit_result r;
  ts_err e;
  ck_assert_msg(ts_fit_minimize(&f.pb, NULL, start, &o, &r, &e) == 0, "%s", e.msg);
  ck_assert_int_gt(s.reports, 2);
  ck_assert_int_eq(s.outside, 0);
  ck_assert_double_le(r.values[0], 120);
  ck_assert_msg(ts_fit_at_bound(&f.ps.p[0], r.values[0]), "c_ms %.9g", r.values[0]);
  ck_assert(r.values[1] >= f.ps.p[1].min && r.values[1] <= f.ps.p[1].max);
  ck_assert(r.objective > 1e-4); /* the truth is out of reach */
  ts_fit_result_finish(&r);
  problem_close(&f);
}
END_TEST

/* The same command gives the same bytes with 1 and 2 threads, leave-one-out
 * included; the provenance names the method and its step. */
START_TEST(fitlsq_cli_deterministic)
{
  scratch s;
  make_synthetic(&s);
  const char *a = out_path(&s, "a.json"), *b = out_path(&s, "b.json"), *c = out_path(&s, "c.json");
  const char *const outs[] = {a, b, c};
  const char *const jobs[] = {"1", "2", "2"};
  for (int i = 0; i < 3; i++) {
    char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 -q --loo --method lsq --starts 4 --searches 2 -j %s",
                        s.baseline, outs[i], jobs[i]);
    ck_assert_str_eq(text, "");
    free(text);
  }
  char *ta = tu_read_file(a, NULL), *tb = tu_read_file(b, NULL), *tc = tu_read_file(c, NULL);
  ck_assert_str_eq(ta, tb);
  ck_assert_str_eq(ta, tc);
  free(ta);
  free(tb);
  free(tc);
  cJSON *doc = load_json(a);
  const char *method = ts_json_get_path(doc, "provenance.method")->valuestring;
  ck_assert_msg(strstr(method, "multifit_nlinear") && strstr(method, "step 0.02 "), "%s", method);
  assert_near(number_at(doc, "params.c_ms"), TRUE_C_MS, 0.01);
  ck_assert_int_eq(cJSON_GetArraySize(ts_json_get_path(doc, "provenance.loo.points")), 6);
  cJSON_Delete(doc);
  /* the tables say which search ran; another step is recorded as given */
  char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 --method lsq --lsq-step 0.05 --starts 2", s.baseline,
                      c);
  ck_assert_ptr_nonnull(strstr(text, "least-squares search(es) from the best of the start and 2 sobol point(s)"));
  free(text);
  doc = load_json(c);
  ck_assert_ptr_nonnull(strstr(ts_json_get_path(doc, "provenance.method")->valuestring, "step 0.05 "));
  cJSON_Delete(doc);
  clean(&s);
}
END_TEST

/* tssim calibrate's local search is lsq unless --method says otherwise: no
 * --method writes what --method lsq writes, byte for byte; --method nm is
 * the simplex. */
START_TEST(fitlsq_cli_default_is_lsq)
{
  scratch s;
  make_synthetic(&s);
  const char *a = out_path(&s, "default.json"), *b = out_path(&s, "lsq.json"), *c = out_path(&s, "nm.json");
  const char *const outs[] = {a, b, c};
  const char *const method[] = {"", "--method lsq", "--method nm"};
  const char *const words[] = {"least-squares search(es)", "least-squares search(es)", "simplex search(es)"};
  const char *const search[] = {"multifit_nlinear", "multifit_nlinear", "nmsimplex2"};
  for (int i = 0; i < 3; i++) {
    char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 --starts 2 --searches 1 %s", s.baseline, outs[i],
                        method[i]);
    ck_assert_msg(strstr(text, words[i]), "%s: %s", method[i], text);
    free(text);
    cJSON *doc = load_json(outs[i]);
    const char *m = ts_json_get_path(doc, "provenance.method")->valuestring;
    ck_assert_msg(strstr(m, search[i]), "%s: %s", method[i], m);
    cJSON_Delete(doc);
  }
  char *ta = tu_read_file(a, NULL), *tb = tu_read_file(b, NULL);
  ck_assert_str_eq(ta, tb);
  free(ta);
  free(tb);
  clean(&s);
}
END_TEST

/* The shipped calibrations were made by the simplex, and the commands that
 * reproduce them pin it (the default is lsq): each shipped model whose
 * provenance says nmsimplex2 names `--method nm` in the command its notes
 * give. scripts/moq-calibrate (the moq relay's fit: refitted in issue 17 by
 * least squares, then by the simplex, which it now names) names its method
 * too, whichever it is, so that a change of the default cannot change what
 * it reproduces. */
START_TEST(fitlsq_shipped_fits_pin_the_simplex)
{
  static const char *const models[] = {"models/zero-cache.json", "models/wa-sqlite.json"};
  for (size_t k = 0; k < sizeof models / sizeof *models; k++) {
    char *path = tu_source_path(models[k]);
    cJSON *doc = load_json(path);
    ck_assert_ptr_nonnull(strstr(ts_json_get_path(doc, "provenance.method")->valuestring, "nmsimplex2"));
    const char *cmd = strstr(ts_json_get_path(doc, "notes.fitted")->valuestring, "tssim calibrate ");
    ck_assert_msg(cmd && strstr(cmd, " --method nm "), "%s: notes.fitted does not pin --method nm", models[k]);
    cJSON_Delete(doc);
    free(path);
  }
  char *path = tu_source_path("scripts/moq-calibrate");
  char *text = tu_read_file(path, NULL);
  ck_assert_msg(strstr(text, " --method nm ") || strstr(text, " --method lsq "),
                "scripts/moq-calibrate does not name its --method");
  free(text);
  free(path);
}
END_TEST

static int stop_after(void *data)
{
  int *left = data;
  return (*left)-- <= 0;
}

/* An evaluation that fails (here: stopped, as by SIGINT) ends the search
 * wherever it falls (the start, a Jacobian column, a trial step) with that
 * failure, and nothing after it is evaluated. */
START_TEST(fitlsq_failed_evaluation_ends_the_search)
{
  problem f;
  problem_open(&f, make_synthetic, "tests/data/fit-rr.json", 1, 1);
  double start[] = {f.ps.p[0].start, f.ps.p[1].start};
  for (int k = 0; k < 40; k += 3) {
    int left = k;
    f.pb.should_stop = stop_after;
    f.pb.stop_data = &left;
    f.pb.evaluations = 0;
    ts_fit_options o = {.method = TS_FIT_LSQ};
    ts_fit_result r;
    ts_err e;
    ck_assert_int_eq(ts_fit_minimize(&f.pb, NULL, start, &o, &r, &e), -3);
    ck_assert_msg(strstr(e.msg, "interrupted"), "%s", e.msg);
    ck_assert_int_le(f.pb.evaluations, (size_t)k);
    ck_assert_int_eq(left, -1); /* polled once more after the stop: never */
    ts_fit_result_finish(&r);
  }
  problem_close(&f);
}
END_TEST

START_TEST(fitlsq_error_options)
{
  const char *rr = "@tests/data/fit-rr.json @tests/data/fit-zero.json -q ";
  char args[256];
  static const char *const bad[][2] = {
    {"--method simplex", "tssim: --method: expected lsq or nm, got \"simplex\""},
    {"--method", "tssim: calibrate: unknown option, or an option without its value: --method (see tssim calibrate --help)"},
    {"--method lsq --lsq-step 0", "tssim: --lsq-step: expected a number in (0, 1], got \"0\""},
    {"--method lsq --lsq-step 1.5", "tssim: --lsq-step: expected a number in (0, 1], got \"1.5\""},
    {"--method lsq --lsq-step 0.1x", "tssim: --lsq-step: expected a number in (0, 1], got \"0.1x\""},
    {"--method nm --lsq-step 0.1", "tssim: --lsq-step: applies to --method lsq only"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    snprintf(args, sizeof args, "%s%s", rr, bad[i][0]);
    expect_error(args, bad[i][1], NULL);
  }
  int st;
  char *text = cli(&st, "--help");
  ck_assert_int_eq(st, 0);
  ck_assert_ptr_nonnull(strstr(text, "--method M"));
  ck_assert_ptr_nonnull(strstr(text, "--lsq-step H"));
  free(text);
  ck_assert_int_eq(ts_fit_method_parse("nm"), TS_FIT_NM);
  ck_assert_int_eq(ts_fit_method_parse("lsq"), TS_FIT_LSQ);
  ck_assert_int_eq(ts_fit_method_parse("LSQ"), -1);
  ck_assert_str_eq(ts_fit_method_name(TS_FIT_LSQ), "lsq");
}
END_TEST

Suite *fitlsq_suite(void)
{
  Suite *s = suite_create("fitlsq");
  const TTest *const core[] = {fitlsq_recovers_synthetic, fitlsq_respects_bounds,
                               fitlsq_failed_evaluation_ends_the_search, NULL};
  const TTest *const cli_tests[] = {fitlsq_cli_deterministic, fitlsq_cli_default_is_lsq, fitlsq_error_options,
                                    fitlsq_shipped_fits_pin_the_simplex, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 120);
  tu_tcase(s, "cli", cli_tests, NULL, NULL, 120);
  return s;
}
