/* Calibration: recovering known parameters from a baseline the simulator
 * made itself, the multi-start stage escaping a local minimum, the calibrated
 * model's provenance, leave-one-out, determinism, and every input error of
 * `tssim calibrate`. The fixture model
 * (tests/data/fit-rr.json) is deterministic, so one replication suffices. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fit/loo.h"
#include "fit/minimize.h"
#include "fit/output.h"
#include "fit/param.h"
#include "fit/print.h"
#include "fit/problem.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "run/metrics.h"
#include "run/sweep.h"

#include "testutil.h"

#include "fitutil.h"

/* The library path: read the free parameters, fit, land within 1% of the truth. */
START_TEST(fit_recovers_synthetic)
{
  problem f;
  problem_open(&f, make_synthetic, "tests/data/fit-rr.json", 1, 1);
  const ts_fit_params *ps = &f.ps;
  const ts_fit_problem *pb = &f.pb;
  ck_assert_int_eq(ps->n, 2);
  ck_assert_str_eq(ps->p[0].name, "c_ms");
  ck_assert_double_eq(ps->p[0].start, 200); /* the value at its path */
  ck_assert_double_eq(ps->p[1].start, 10);  /* its "start" */
  ck_assert_int_eq(pb->nt, 12);
  ck_assert_int_eq(pb->npt, 6);
  ck_assert_int_eq(pb->ng, 2);
  double start[] = {ps->p[0].start, ps->p[1].start};
  ts_fit_result r;
  ts_err e;
  ck_assert_msg(ts_fit_minimize(&f.pb, NULL, start, NULL, &r, &e) == 0, "%s", e.msg);
  assert_near(r.values[0], TRUE_C_MS, 0.01);
  assert_near(r.values[1], TRUE_IO_MS, 0.01);
  ck_assert(r.converged);
  ck_assert_int_gt(r.iterations, 0);
  ck_assert(r.objective < 1e-6);
  for (size_t i = 0; i < pb->nt; i++)
    assert_near(r.sim[i], pb->t[i].recorded, 0.001);
  ts_fit_result_finish(&r);
  problem_close(&f);
}
END_TEST

#define TRUE_CV 0.4

/* A baseline of tests/data/fit-cv.json swept at io_cv = TRUE_CV: wave_ms and
 * wave_p95_ms at n = 20 and 40. */
static void make_cv(scratch *s)
{
  scratch_open(s, "cv.json");
  char set[64];
  snprintf(set, sizeof set, "params.io_cv=%g", TRUE_CV);
  const char *sets[] = {set};
  int ns[] = {20, 40}, ws[] = {1};
  ts_sweep sw;
  sweep_model("tests/data/fit-cv.json", sets, 1, ns, 2, ws, 1, &sw);
  int wave = sweep_col(&sw, "wave_ms"), p95 = sweep_col(&sw, "wave_p95_ms");
  FILE *f = fopen(s->baseline, "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"points\": [", f);
  for (size_t i = 0; i < sw.npoints; i++)
    fprintf(f, "%s{\"n\": %d, \"metrics\": {\"wave_ms\": %.17g, \"wave_p95_ms\": %.17g}}", i ? ", " : "",
            sw.points[i].n, sw.points[i].value[wave], sw.points[i].value[p95]);
  fputs("]}\n", f);
  ck_assert_int_eq(fclose(f), 0);
  ts_sweep_finish(&sw);
}

/* A spread is a parameter like any other: the fit recovers the cv of a
 * lognormal duration from the 95th percentile it leaves in the waves (the
 * same draws at every evaluation: common random numbers). */
START_TEST(fit_recovers_a_cv)
{
  problem f;
  problem_open(&f, make_cv, "tests/data/fit-cv.json", 1, 1);
  double start[] = {f.ps.p[0].start};
  ck_assert_double_eq(start[0], 0.1);
  ts_fit_result r;
  ts_err e;
  ck_assert_msg(ts_fit_minimize(&f.pb, NULL, start, NULL, &r, &e) == 0, "%s", e.msg);
  assert_near(r.values[0], TRUE_CV, 0.01);
  ck_assert(r.objective < 1e-6);
  ts_fit_result_finish(&r);
  problem_close(&f);
}
END_TEST

#define TRUE_THRESHOLD_MS 60.0
#define POOR_THRESHOLD_MS 20.0

/* A baseline of tests/data/fit-saw.json swept at TRUE_THRESHOLD_MS: wave_ms at n = 1 and 3. */
static void make_saw(scratch *s)
{
  scratch_open(s, "saw.json");
  char set[64];
  snprintf(set, sizeof set, "worker.threshold_ms=%g", TRUE_THRESHOLD_MS);
  const char *sets[] = {set};
  int ns[] = {1, 3}, ws[] = {1};
  ts_sweep sw;
  sweep_model("tests/data/fit-saw.json", sets, 1, ns, 2, ws, 1, &sw);
  int wave = sweep_col(&sw, "wave_ms");
  FILE *f = fopen(s->baseline, "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"points\": [", f);
  for (size_t i = 0; i < sw.npoints; i++)
    fprintf(f, "%s{\"n\": %d, \"metrics\": {\"wave_ms\": %.17g}}", i ? ", " : "", sw.points[i].n,
            sw.points[i].value[wave]);
  fputs("]}\n", f);
  ck_assert_int_eq(fclose(f), 0);
  ts_sweep_finish(&sw);
}

/* On a sawtooth objective a single search from a poor start ends in a local
 * minimum (the tooth it started near); the multi-start stage finds the
 * tooth of the truth, deterministically. */
START_TEST(fit_multistart_escapes_local_minimum)
{
  problem f;
  problem_open(&f, make_saw, "tests/data/fit-saw.json", 1, 1);
  ts_fit_problem *pb = &f.pb;
  ts_err e;
  ck_assert_double_eq(f.ps.p[0].start, POOR_THRESHOLD_MS);
  double start[] = {POOR_THRESHOLD_MS};
  /* one search: stuck a tooth away, more than 2% off at n=3 */
  ts_fit_result one;
  ck_assert_msg(ts_fit_minimize(pb, NULL, start, NULL, &one, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(one.starts, 0);
  ck_assert_ptr_null(one.sequence);
  ck_assert_int_eq(one.nlocal, 1);
  ck_assert_int_eq(one.local[0].from, 0);
  ck_assert(one.converged);
  ck_assert_double_gt(one.objective, 4e-4);
  ck_assert_double_gt(fabs(one.values[0] - TRUE_THRESHOLD_MS), 0.1 * TRUE_THRESHOLD_MS);
  /* 8 Sobol points, searches from the 4 best: the truth */
  ts_fit_options o = {.starts = 8};
  ts_fit_result multi, again;
  size_t before = pb->evaluations;
  ck_assert_msg(ts_fit_minimize(pb, NULL, start, &o, &multi, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(multi.starts, 8);
  ck_assert_str_eq(multi.sequence, "sobol");
  ck_assert_int_eq(multi.nlocal, TS_FIT_DEFAULT_SEARCHES);
  ck_assert_int_eq(multi.evaluations, pb->evaluations - before);
  ck_assert_int_gt(multi.evaluations, 9);
  ck_assert_double_lt(multi.objective, 1e-12);
  assert_near(multi.values[0], TRUE_THRESHOLD_MS, 0.01);
  ck_assert_int_ne(multi.local[multi.best].from, 0);
  for (int j = 0; j < multi.nlocal; j++) {
    ck_assert_double_ge(multi.local[j].objective, multi.objective);
    ck_assert_double_le(multi.local[j].objective, multi.local[j].sampled);
    ck_assert_int_ge(multi.local[j].from, 0);
    ck_assert_int_le(multi.local[j].from, 8);
    if (j > 0) /* searched best sampled first */
      ck_assert_double_ge(multi.local[j].sampled, multi.local[j - 1].sampled);
  }
  int it = 0;
  for (int j = 0; j < multi.nlocal; j++)
    it += multi.local[j].iterations;
  ck_assert_int_eq(it, multi.iterations);
  /* deterministic */
  ck_assert_msg(ts_fit_minimize(pb, NULL, start, &o, &again, &e) == 0, "%s", e.msg);
  ck_assert_double_eq(again.values[0], multi.values[0]);
  ck_assert_int_eq(again.evaluations, multi.evaluations);
  for (int j = 0; j < multi.nlocal; j++) {
    ck_assert_int_eq(again.local[j].from, multi.local[j].from);
    ck_assert_double_eq(again.local[j].objective, multi.local[j].objective);
    ck_assert_int_eq(again.local[j].iterations, multi.local[j].iterations);
  }
  /* more searches than points: one per distinct point */
  ts_fit_options wide = {.starts = 2, .searches = 10};
  ts_fit_result w;
  ck_assert_msg(ts_fit_minimize(pb, NULL, start, &wide, &w, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(w.nlocal, 3);
  ts_fit_result_finish(&w);
  ts_fit_result_finish(&one);
  ts_fit_result_finish(&multi);
  ts_fit_result_finish(&again);
  ts_fit_result_finish(NULL);
  problem_close(&f);
}
END_TEST

/* The objective is deterministic and 0 at the truth; the mapping keeps bounds. */
START_TEST(fit_objective_and_mapping)
{
  problem f;
  problem_open(&f, make_synthetic, "tests/data/fit-rr.json", 7, 2);
  ts_fit_problem *pb = &f.pb;
  const ts_fit_param *p0 = &f.ps.p[0];
  ts_err e;
  double truth[] = {TRUE_C_MS, TRUE_IO_MS}, off[] = {150, 40}, sim[12], sim2[12];
  ck_assert_int_eq(ts_fit_eval(pb, truth, sim, &e), 0);
  ck_assert_double_lt(ts_fit_objective(pb, sim, NULL), 1e-12);
  ck_assert_int_eq(ts_fit_eval(pb, off, sim, &e), 0);
  ck_assert_int_eq(ts_fit_eval(pb, off, sim2, &e), 0);
  ck_assert_double_gt(ts_fit_objective(pb, sim, NULL), 1e-4);
  ck_assert_mem_eq(sim, sim2, sizeof sim);
  unsigned char none[12] = {0};
  ck_assert_double_eq(ts_fit_objective(pb, sim, none), 0);
  for (double x = -10; x <= 10; x += 0.37) {
    double v = ts_fit_unmap(p0, x);
    ck_assert(v >= p0->min && v <= p0->max);
  }
  ck_assert_double_eq(ts_fit_unmap(p0, -asin(1.0)), p0->min);
  ck_assert_double_eq(ts_fit_unmap(p0, asin(1.0)), p0->max);
  assert_near(ts_fit_unmap(p0, ts_fit_map(p0, 321.5)), 321.5, 1e-6);
  problem_close(&f);
}
END_TEST

/* The calibrated model: fitted values at their paths and a full provenance. */
START_TEST(fit_cli_provenance)
{
  scratch s;
  make_synthetic(&s);
  const char *out = out_path(&s, "cal.json");
  char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 --seed 5 --progress --method nm", s.baseline, out);
  ck_assert_ptr_nonnull(strstr(text, "rel_error"));
  ck_assert_ptr_nonnull(strstr(text, "wave_ratio"));
  ck_assert_ptr_nonnull(strstr(text, "fit: sampled 33 start points, best objective "));
  ck_assert_ptr_nonnull(strstr(text, "fit: search 1/4 iteration 1 round 1 ")); /* progress, one line per iteration */
  ck_assert_ptr_nonnull(strstr(text, "fit: search 4/4 iteration 1 round 1 "));
  ck_assert_ptr_nonnull(strstr(text, "4 simplex search(es) from the best of the start and 32 sobol point(s)"));
  free(text);
  cJSON *doc = load_json(out);
  assert_near(number_at(doc, "params.c_ms"), TRUE_C_MS, 0.01);
  assert_near(number_at(doc, "classes[0].program[0].ms"), TRUE_IO_MS, 0.01);
  cJSON *pv = cJSON_GetObjectItem(doc, "provenance");
  ck_assert_ptr_nonnull(pv);
  ck_assert_str_eq(cJSON_GetObjectItem(pv, "tssim_version")->valuestring, TSSIM_VERSION);
  ck_assert_str_eq(cJSON_GetObjectItem(pv, "baseline")->valuestring, s.baseline);
  ck_assert_double_eq(number_at(pv, "seed"), 5);
  ck_assert_double_eq(number_at(pv, "replications"), 1);
  ck_assert_double_gt(number_at(pv, "iterations"), 0);
  /* the multi-start stage: 32 Sobol points besides the start, 4 searches, one best */
  ck_assert_double_eq(number_at(pv, "starts"), TS_FIT_DEFAULT_STARTS);
  ck_assert_str_eq(cJSON_GetObjectItem(pv, "sequence")->valuestring, "sobol");
  ck_assert_ptr_nonnull(strstr(cJSON_GetObjectItem(pv, "method")->valuestring, "multi-start"));
  cJSON *searches = cJSON_GetObjectItem(pv, "searches"), *sr;
  ck_assert_int_eq(cJSON_GetArraySize(searches), TS_FIT_DEFAULT_SEARCHES);
  int nbest = 0, iterations = 0;
  cJSON_ArrayForEach(sr, searches)
  {
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(sr, "from"));
    ck_assert_double_le(number_at(sr, "objective"), number_at(sr, "sampled"));
    iterations += (int)number_at(sr, "iterations");
    if (cJSON_IsTrue(cJSON_GetObjectItem(sr, "best"))) {
      nbest++;
      ck_assert_double_eq(number_at(sr, "objective"), number_at(pv, "objective"));
    }
  }
  ck_assert_int_eq(nbest, 1);
  ck_assert_double_eq(iterations, number_at(pv, "iterations"));
  ck_assert_double_gt(number_at(pv, "evaluations"), TS_FIT_DEFAULT_STARTS + 1 + iterations);
  ck_assert_double_lt(number_at(pv, "objective"), 1e-6);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(pv, "metrics")), 2);
  ck_assert_str_eq(ts_json_get_path(pv, "metrics[0]")->valuestring, "wave_ms");
  ck_assert_str_eq(ts_json_get_path(pv, "parameters[1].path")->valuestring, "classes[0].program[0].ms");
  cJSON *res = cJSON_GetObjectItem(pv, "residuals");
  ck_assert_int_eq(cJSON_GetArraySize(res), 12);
  cJSON *row;
  cJSON_ArrayForEach(row, res)
  {
    static const char *const keys[] = {"n", "workers", "metric", "recorded", "fitted", "rel_error"};
    for (int k = 0; k < 6; k++)
      ck_assert_msg(cJSON_GetObjectItem(row, keys[k]) != NULL, "residual without %s", keys[k]);
    ck_assert_double_lt(fabs(number_at(row, "rel_error")), 0.001);
  }
  ck_assert_ptr_null(cJSON_GetObjectItem(pv, "loo"));
  /* the calibrated model is a model: it loads, and calibrates again */
  ts_model m;
  ts_err e;
  ck_assert_msg(ts_model_from_json(doc, out, &m, &e) == 0, "%s", e.msg);
  ts_model_finish(&m);
  cJSON_Delete(doc);
  clean(&s);
}
END_TEST

START_TEST(fit_cli_loo_shape)
{
  scratch s;
  make_synthetic(&s);
  const char *out = out_path(&s, "loo.json");
  char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 --loo --metrics wave_ratio,wave_ms --progress", s.baseline, out);
  ck_assert_ptr_nonnull(strstr(text, "leave-one-out"));
  ck_assert_ptr_nonnull(strstr(text, "predicted"));
  ck_assert_ptr_nonnull(strstr(text, "loo 6/6 (n=4, workers=2): sampled 33 start points"));
  ck_assert_ptr_nonnull(strstr(text, "loo 6/6 (n=4, workers=2): search 4/4 iteration"));
  free(text);
  cJSON *doc = load_json(out);
  cJSON *loo = ts_json_get_path(doc, "provenance.loo");
  ck_assert_ptr_nonnull(loo);
  cJSON *pts = cJSON_GetObjectItem(loo, "points"), *p;
  ck_assert_int_eq(cJSON_GetArraySize(pts), 6);
  cJSON_ArrayForEach(p, pts)
  {
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(p, "n"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(p, "workers"));
    ck_assert_ptr_nonnull(ts_json_get_path(p, "values.c_ms"));
    ck_assert_ptr_nonnull(ts_json_get_path(p, "values.io_ms"));
    ck_assert_ptr_nonnull(cJSON_GetObjectItem(p, "from"));
    ck_assert_double_gt(number_at(p, "evaluations"), TS_FIT_DEFAULT_STARTS + 1);
    cJSON *pred = cJSON_GetObjectItem(p, "predictions"), *q;
    ck_assert_int_eq(cJSON_GetArraySize(pred), 2);
    cJSON_ArrayForEach(q, pred)
    {
      ck_assert_ptr_nonnull(cJSON_GetObjectItem(q, "predicted"));
      /* the model is exact, so each held-out point is predicted */
      ck_assert_double_lt(fabs(number_at(q, "rel_error")), 0.01);
    }
  }
  ck_assert_ptr_nonnull(ts_json_get_path(loo, "worst.all.rel_error"));
  ck_assert_ptr_nonnull(ts_json_get_path(loo, "worst.wave_ratio.n"));
  ck_assert_ptr_nonnull(ts_json_get_path(loo, "worst.wave_ms.workers"));
  cJSON_Delete(doc);
  clean(&s);
}
END_TEST

START_TEST(fit_cli_deterministic)
{
  scratch s;
  make_synthetic(&s);
  const char *a = out_path(&s, "a.json"), *b = out_path(&s, "b.json");
  for (int i = 0; i < 2; i++) {
    char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 -q --loo", s.baseline, i ? b : a);
    ck_assert_str_eq(text, ""); /* -q: silent */
    free(text);
  }
  char *ta = tu_read_file(a, NULL), *tb = tu_read_file(b, NULL);
  ck_assert_str_eq(ta, tb);
  free(ta);
  free(tb);
  /* calibrating the calibrated model repeats the fit: same start, same values */
  const char *c = out_path(&s, "c.json");
  char *text = cli_ok("%s %s -o %s -r 1 -q --loo", a, s.baseline, c);
  free(text);
  cJSON *da = load_json(a), *dc = load_json(c);
  ck_assert_double_eq(number_at(da, "free[0].start"), 200);
  static const char *const same[] = {"params", "classes", "free", "provenance.parameters", "provenance.residuals",
                                     "provenance.loo"};
  for (int i = 0; i < 6; i++)
    ck_assert_msg(cJSON_Compare(ts_json_get_path(da, same[i]), ts_json_get_path(dc, same[i]), 1), "%s differs",
                  same[i]);
  cJSON_Delete(da);
  cJSON_Delete(dc);
  clean(&s);
}
END_TEST

/* --starts 0 is one search from the start, recorded as such; --starts 8 finds the truth. */
START_TEST(fit_cli_starts)
{
  scratch s;
  make_saw(&s);
  const char *one = out_path(&s, "one.json"), *multi = out_path(&s, "multi.json");
  char *text = cli_ok("@tests/data/fit-saw.json %s -o %s -r 1 --starts 0 --progress --method nm", s.baseline, one);
  ck_assert_ptr_null(strstr(text, "sampled"));
  ck_assert_ptr_null(strstr(text, "simplex search(es)"));
  ck_assert_ptr_nonnull(strstr(text, "fit: search 1/1 iteration 1 "));
  free(text);
  text = cli_ok("@tests/data/fit-saw.json %s -o %s -r 1 -q --starts 8 --searches 2 --method nm", s.baseline, multi);
  free(text);
  cJSON *d1 = load_json(one), *dm = load_json(multi);
  ck_assert_double_eq(number_at(d1, "provenance.starts"), 0);
  ck_assert_ptr_null(ts_json_get_path(d1, "provenance.sequence"));
  ck_assert_int_eq(cJSON_GetArraySize(ts_json_get_path(d1, "provenance.searches")), 1);
  ck_assert_str_eq(ts_json_get_path(d1, "provenance.searches[0].from")->valuestring, "start");
  ck_assert_double_gt(fabs(number_at(d1, "worker.threshold_ms") - TRUE_THRESHOLD_MS), 0.1 * TRUE_THRESHOLD_MS);
  ck_assert_double_eq(number_at(dm, "provenance.starts"), 8);
  ck_assert_int_eq(cJSON_GetArraySize(ts_json_get_path(dm, "provenance.searches")), 2);
  ck_assert_ptr_nonnull(strstr(ts_json_get_path(dm, "provenance.searches[0].from")->valuestring, "sobol "));
  assert_near(number_at(dm, "worker.threshold_ms"), TRUE_THRESHOLD_MS, 0.01);
  ck_assert_double_lt(number_at(dm, "provenance.objective"), 1e-12);
  cJSON_Delete(d1);
  cJSON_Delete(dm);
  clean(&s);
}
END_TEST

/* A --set on a free parameter's path pins it; the other is still fitted. */
START_TEST(fit_cli_pinned)
{
  scratch s;
  make_synthetic(&s);
  const char *out = out_path(&s, "pin.json");
  char *text = cli_ok("@tests/data/fit-rr.json %s -o %s -r 1 -q --set params.c_ms=%g", s.baseline, out, TRUE_C_MS);
  free(text);
  cJSON *doc = load_json(out);
  ck_assert_double_eq(number_at(doc, "params.c_ms"), TRUE_C_MS);
  assert_near(number_at(doc, "classes[0].program[0].ms"), TRUE_IO_MS, 0.01);
  ck_assert_str_eq(ts_json_get_path(doc, "provenance.pinned[0]")->valuestring, "c_ms");
  ck_assert_str_eq(ts_json_get_path(doc, "provenance.overrides[0]")->valuestring, "params.c_ms=137.5");
  ck_assert_int_eq(cJSON_GetArraySize(ts_json_get_path(doc, "provenance.parameters")), 1);
  cJSON_Delete(doc);
  clean(&s);
}
END_TEST

/* The calibrated text: two-space indentation, short containers on one line. */
START_TEST(fit_print_layout)
{
  cJSON *doc = cJSON_Parse("{\"a\": {\"b\": 1, \"c\": [1, 2]}, \"d\": [], \"e\": \"x\"}");
  char *t = ts_fit_json_print(doc);
  ck_assert_str_eq(t, "{\"a\": {\"b\": 1, \"c\": [1, 2]}, \"d\": [], \"e\": \"x\"}\n");
  free(t);
  cJSON_Delete(doc);
  doc = cJSON_CreateObject();
  cJSON *arr = cJSON_AddArrayToObject(doc, "long");
  for (int i = 0; i < 40; i++)
    cJSON_AddItemToArray(arr, cJSON_CreateNumber(1000 + i));
  t = ts_fit_json_print(doc);
  ck_assert(strncmp(t, "{\n  \"long\": [\n    1000,\n    1001,\n", 34) == 0);
  cJSON *back = cJSON_Parse(t);
  ck_assert(cJSON_Compare(back, doc, 1));
  cJSON_Delete(back);
  free(t);
  cJSON_Delete(doc);
}
END_TEST


#define RR "@tests/data/fit-rr.json "
#define BASE "@tests/data/fit-bad-metric.json "

/* A target with no value at an evaluation (its span has no sample: the
 * model runs it only when x >= 1) fails that evaluation, as a failed run
 * does. Counted as 0 it scored an error of 100%, better than any x >= 1
 * (26 and more against 10 recorded, 160% and more), so the fit chose an x
 * where the metric does not exist. */
START_TEST(fit_target_without_value_fails_the_evaluation)
{
  char d[256], path[512];
  tu_mkdtemp(d, sizeof d, "novalue");
  snprintf(path, sizeof path, "%s/m.json", d);
  tu_write_file(path, "{\"params\": {\"x\": 0.5}, \"free\": [{\"name\": \"x\", \"path\": \"params.x\", \"min\": 0, \"max\": 2}],"
                      " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"if\", \"cond\": \"$x >= 1\","
                      " \"then\": [{\"op\": \"span_begin\", \"span\": \"s\"}, {\"op\": \"cpu\", \"ms\": \"25 + $x\"},"
                      " {\"op\": \"span_end\", \"span\": \"s\"}]}]}]}");
  snprintf(path, sizeof path, "%s/b.json", d);
  tu_write_file(path, "{\"points\": [{\"n\": 1, \"workers\": 1, \"metrics\": {\"s_mean_ms\": 10}}]}");
  char *out, *err;
  ck_assert_int_eq(tu_tssimf(&out, &err, "calibrate %s/m.json %s/b.json -o %s/fit.json -q -r 1 --starts 8 --jobs 1", d, d,
                             d),
                   0);
  snprintf(path, sizeof path, "%s/fit.json", d);
  char *text = tu_read_file(path, NULL);
  cJSON *m = cJSON_Parse(text);
  ck_assert_ptr_nonnull(m);
  double x = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "params"), "x")->valuedouble;
  ck_assert_msg(x >= 1 && x < 1.05, "x = %g: the fit must stay where the span exists, at its cheapest end", x);
  cJSON_Delete(m);
  free(text);
  free(out);
  free(err);
  /* bounds where the span never runs: no setting gives it a value, and calibrate says so (exit 1) */
  ck_assert_int_eq(tu_tssimf(&out, &err, "calibrate %s/m.json %s/b.json --set 'free[0].max=0.9' -o %s/fit9.json -q -r 1 "
                             "--starts 8 --jobs 1", d, d, d),
                   1);
  ck_assert_msg(strstr(err, "b.json: no setting tried gives every fitted metric a value: s_mean_ms has none at n=1, "
                            "workers=1"),
                "%s", err);
  free(out);
  free(err);
  tu_rmtree(d);
}
END_TEST

/* A leave-one-out prediction can have no value: the span s runs only at
 * n <= x, so the fit to both points keeps x >= 2, but the refit without n=2
 * lands at the cheapest x the point n=1 allows, x near 1, where n=2 has no
 * span. The predicted table says "no value" and no error, not nan, the
 * summary line counts it beside the worst errors (of the values there are),
 * and the JSON has "predicted": null and the loo's "no_value": 1. */
/* Into folder d: m.json, whose span s runs only at n <= x, and b.json,
 * recording s_mean_ms and wave_ms at n = 1 and 2 (one worker). */
static void write_span_below_x(const char *d)
{
  char path[512];
  snprintf(path, sizeof path, "%s/m.json", d);
  tu_write_file(path, "{\"params\": {\"x\": 2.5}, \"free\": [{\"name\": \"x\", \"path\": \"params.x\", \"min\": 0, "
                      "\"max\": 3}], \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"if\", "
                      "\"cond\": \"$x >= n\", \"then\": [{\"op\": \"span_begin\", \"span\": \"s\"}, {\"op\": \"cpu\", "
                      "\"ms\": \"25 + $x\"}, {\"op\": \"span_end\", \"span\": \"s\"}]}, {\"op\": \"cpu\", \"ms\": 1}]}]}");
  snprintf(path, sizeof path, "%s/b.json", d);
  tu_write_file(path, "{\"points\": [{\"n\": 1, \"workers\": 1, \"metrics\": {\"s_mean_ms\": 10, \"wave_ms\": 30}},"
                      " {\"n\": 2, \"workers\": 1, \"metrics\": {\"s_mean_ms\": 10, \"wave_ms\": 60}}]}");
}

START_TEST(fit_loo_prediction_without_value_is_said)
{
  char d[256], path[512];
  tu_mkdtemp(d, sizeof d, "loonone");
  write_span_below_x(d);
  char *out, *err;
  ck_assert_int_eq(tu_tssimf(&out, &err, "calibrate %s/m.json %s/b.json --loo -o %s/fit.json -r 1 --starts 8 --jobs 1",
                             d, d, d), 0);
  const char *pred = strstr(out, "leave-one-out: each point predicted");
  ck_assert_msg(pred && !strstr(out, "nan"), "%s", out);
  ck_assert_msg(strstr(pred, "\n     2       1 s_mean_ms                   10     no value          -  (none at the "
                             "values refitted without this point)\n"), "%s", out);
  ck_assert_msg(strstr(pred, "\nworst |rel_error|: s_mean_ms 170.00% (n=1, workers=1), wave_ms 97.50% (n=2, "
                             "workers=1); 1 predicted without a value (s_mean_ms at n=2, workers=1)\n"), "%s", out);
  snprintf(path, sizeof path, "%s/fit.json", d);
  char *text = tu_read_file(path, NULL);
  cJSON *m = cJSON_Parse(text);
  ck_assert_ptr_nonnull(m);
  const cJSON *loo = cJSON_GetObjectItem(cJSON_GetObjectItem(m, "provenance"), "loo");
  const cJSON *p2 = cJSON_GetArrayItem(cJSON_GetObjectItem(loo, "points"), 1);
  const cJSON *s = cJSON_GetArrayItem(cJSON_GetObjectItem(p2, "predictions"), 0);
  ck_assert_str_eq(cJSON_GetObjectItem(s, "metric")->valuestring, "s_mean_ms");
  ck_assert(cJSON_IsNull(cJSON_GetObjectItem(s, "predicted")) && cJSON_IsNull(cJSON_GetObjectItem(s, "rel_error")));
  ck_assert_int_eq(cJSON_GetObjectItem(loo, "no_value")->valueint, 1);
  cJSON_Delete(m);
  free(text);
  free(out);
  free(err);
  tu_rmtree(d);
}
END_TEST

/* With --loo the screen shows two tables of the same shape, recorded against
 * a simulated value: the fit's (in sample: the fit saw every point) and the
 * refits' (held out: each point predicted by the refit without it). A line
 * above each says which; without --loo the fit's table has no such line. */
START_TEST(fit_loo_tables_say_in_sample_and_held_out)
{
  char d[256];
  tu_mkdtemp(d, sizeof d, "lootables");
  write_span_below_x(d);
  static const char *const in = "\nin sample: each recorded value against the fit to every point, its own included\n"
                                "     n workers metric                recorded       fitted  rel_error\n";
  static const char *const held = "\nheld out: each recorded value against the refit without its point, which did "
                                  "not see it\n     n workers metric                recorded    predicted  rel_error\n";
  for (int loo = 1; loo >= 0; loo--) {
    char *out;
    ck_assert_int_eq(tu_tssimf(&out, NULL, "calibrate %s/m.json %s/b.json %s -o %s/fit.json -r 1 --starts 8 --jobs 1",
                               d, d, loo ? "--loo" : "", d), 0);
    const char *a = strstr(out, in), *b = strstr(out, held);
    if (loo)
      ck_assert_msg(a && b && a < b && !strstr(a + 1, in) && !strstr(b + 1, held), "%s", out);
    else
      ck_assert_msg(!a && !b && !strstr(out, "in sample:") &&
                    strstr(out, "\n     n workers metric                recorded       fitted  rel_error\n"), "%s", out);
    free(out);
  }
  tu_rmtree(d);
}
END_TEST

START_TEST(fit_error_no_free)
{
  expect_error("@models/rr-wave.json @tests/data/fit-one-value.json -q", "rr-wave.json: free: missing",
               "\"path\"");
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free=[]'", "fit-rr.json: free: empty", NULL);
}
END_TEST

START_TEST(fit_error_bad_path)
{
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[0].path=params.nope'",
               "fit-rr.json: free[0].path: \"params.nope\" is not in the model", NULL);
  /* a malformed path: --set's words (ts_json_path_check), not "not in the model" */
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[1].path=classes[0]program[0].ms'",
               "fit-rr.json: free[1].path: classes[0]program[0].ms: expected a path of keys joined by '.' and [indexes]"
               " of whole numbers, as classes[0].count (a key follows ']' after a '.')", NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[1].name=c_ms'", "free[1].name: same name as free[0]",
               NULL);
}
END_TEST

START_TEST(fit_error_bounds)
{
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[0].min=2000'",
               "fit-rr.json: free[0]: expected min < max, got min 2000 and max 1000", NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[0].max=10'", "free[0]: expected min < max", NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[1].start=300'",
               "fit-rr.json: free[1].start: 300 is outside [min, max] = [0, 200]", NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[1].start=\"10\"'",
               "fit-rr.json: free[1].start: expected a number within [min, max] = [0, 200], got a string", NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[1]=3'",
               "fit-rr.json: free[1]: expected {\"name\": ..., \"path\": ..., \"min\": ..., \"max\": ...}, got a number",
               NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[1].min=-1'",
               "fit-rr.json: free[1]: the model rejects classes[0].program[0].ms = -1 (its min)", NULL);
  expect_error(RR "@tests/data/fit-one-value.json -q --set 'free[0].min=300'",
               "fit-rr.json: free[0].path: the value at params.c_ms, 200, is outside [min, max] = [300, 1000]",
               "give \"start\"");
}
END_TEST

START_TEST(fit_error_baseline)
{
  /* metric names are checked against the model's metrics when the baseline is used, not at load */
  /* as tssim run says it (walk14 item 6: it had no JSON path, no near name) */
  expect_error(RR BASE "-q", "fit-bad-metric.json: points[0].metrics.settle_ms: unknown metric: model ",
               "fit-rr.json does not report it (tssim run --help lists the metrics");
  expect_error(RR "@tests/data/fit-typo-metric.json -q", "fit-typo-metric.json: points[1].metrics.wave_ratoi: unknown "
               "metric: model ", "does not report it; did you mean \"wave_ratio\"?");
  expect_error(RR "@tests/data/fit-one-value.json -q",
               "fit-one-value.json: 1 recorded value(s) with a weight above 0 for 2 free parameters", NULL);
  expect_error(RR "@tests/data/fit-zero.json -q", "fit-zero.json: points[0].metrics.queue_wait_ms: recorded as 0 "
               "(n=1 workers=1): a relative error is undefined (give it \"weight\": 0, or leave queue_wait_ms out "
               "with --metrics)", NULL);
  expect_error(RR "@tests/data/fit-zero.json -q --metrics wave_ms --loo",
               "fit-zero.json: --loo: without the point n=1 workers=1, 1 recorded value(s) remain for 2 free parameters", NULL);
  /* records that name axis values, given without their scenario: it says which option is missing (ux20) */
  expect_error("@models/zero-cache.json @models/baselines/wa-sqlite-fifo.json -q",
               "wa-sqlite-fifo.json: n=1 workers=1: a record names 3 axis value(s) and no scenario was given: pass "
               "the scenario whose axes the records name with --scenario FILE", NULL);
}
END_TEST

START_TEST(fit_error_metrics)
{
  expect_error(RR "@tests/data/fit-zero.json -q --metrics wave_ms,settle_ms",
               "fit-zero.json: --metrics names settle_ms, which this baseline does not record", NULL);
  expect_error(RR "@tests/data/fit-zero.json -q --metrics wave_ms,lock_wait_ms",
               "fit-zero.json: --metrics names lock_wait_ms, which this baseline does not record", NULL);
}
END_TEST

START_TEST(fit_error_usage)
{
  int st;
  char *text = cli(&st, RR "-q");
  ck_assert_int_eq(st, 2);
  ck_assert_ptr_nonnull(strstr(text, "tssim: calibrate: expected MODEL.json and BASELINE.json (see tssim calibrate --help)"));
  ck_assert_ptr_null(strstr(text, "usage:")); /* one line, not the whole help */
  free(text);
  text = cli(&st, "--help");
  ck_assert_int_eq(st, 0);
  ck_assert_ptr_nonnull(strstr(text, "--loo"));
  free(text);
  expect_error(RR "@tests/data/fit-zero.json -q -r 0", "--replications: expected an integer", NULL);
  expect_error(RR "@tests/data/fit-zero.json -q --starts -1", "--starts: expected an integer in [0, ", NULL);
  expect_error(RR "@tests/data/fit-zero.json -q --searches 0", "--searches: expected an integer in [1, ", NULL);
  text = cli(&st, "--help");
  ck_assert_ptr_nonnull(strstr(text, "--starts K"));
  ck_assert_ptr_nonnull(strstr(text, "(default 32;"));
  free(text);
}
END_TEST

/* The calibrated model's path is checked before the fit (ux22 item 1): -o
 * naming a folder ran the whole fit, printed its tables, then failed with
 * "cannot replace: not a regular file" (exit 3), the fit lost; a file in
 * the path likewise. Now exit 2 and one line, nothing fitted (the --progress
 * lines and the tables would be in the output). A missing folder is made, as
 * tssim run and trace make theirs (it said "cannot write", exit 3). */
START_TEST(fit_error_output_checked_before_the_fit)
{
  scratch s;
  make_synthetic(&s);
  const char *folder = out_path(&s, "adir"), *file = out_path(&s, "afile");
  ck_assert_int_eq(mkdir(folder, 0777), 0);
  tu_write_file(file, "mine\n");
  int st;
  char *text = cli(&st, RR "%s -r 1 --starts 0 --progress -o %s", s.baseline, folder);
  char want[1400];
  snprintf(want, sizeof want, "tssim: -o %s: is a folder, expected a file (the calibrated model)\n", folder);
  ck_assert_msg(st == 2 && strcmp(text, want) == 0, "exit %d: %s", st, text);
  free(text);
  text = cli(&st, RR "%s -r 1 --starts 0 --progress -o %s/cal.json", s.baseline, file);
  snprintf(want, sizeof want, "tssim: -o %s/cal.json: %s is a file, expected a folder\n", file, file);
  ck_assert_msg(st == 2 && strcmp(text, want) == 0, "exit %d: %s", st, text);
  free(text);
  char made[1200];
  snprintf(made, sizeof made, "%s/new/sub/cal.json", s.dir);
  free(cli_ok(RR "%s -r 1 --starts 0 -q -o %s", s.baseline, made));
  cJSON *doc = load_json(made);
  ck_assert_ptr_nonnull(cJSON_GetObjectItem(doc, "provenance"));
  cJSON_Delete(doc);
  clean(&s);
}
END_TEST

/* A recorded 0 (weight 0: the objective cannot divide by it) has no
 * relative error: the calibrated model's residual says null, as the table
 * says "-", not the 0 of a perfect match (ux22 item 2). */
START_TEST(fit_recorded_zero_has_no_rel_error)
{
  scratch s;
  scratch_open(&s, "zero.json");
  tu_write_file(s.baseline, "{\"points\": [{\"n\": 1, \"workers\": 1, \"metrics\": {\"wave_ms\": 150}},\n"
                            "  {\"n\": 2, \"workers\": 1, \"metrics\": {\"wave_ms\": 267.6}},\n"
                            "  {\"n\": 2, \"workers\": 1, \"metrics\": {\"queue_wait_ms\": 0}, \"weight\": 0}]}\n");
  const char *out = out_path(&s, "cal.json");
  char *text = cli_ok(RR "%s -r 1 --starts 0 -o %s", s.baseline, out);
  ck_assert_msg(strstr(text, "queue_wait_ms") && strstr(text, "          -  (weight 0)\n"), "%s", text);
  free(text);
  cJSON *doc = load_json(out), *row, *zero = NULL;
  cJSON_ArrayForEach(row, ts_json_get_path(doc, "provenance.residuals"))
    if (strcmp(cJSON_GetObjectItem(row, "metric")->valuestring, "queue_wait_ms") == 0)
      zero = row;
  ck_assert_ptr_nonnull(zero);
  ck_assert_double_eq(number_at(zero, "recorded"), 0);
  ck_assert_msg(cJSON_IsNull(cJSON_GetObjectItem(zero, "rel_error")), "rel_error %g",
                cJSON_GetObjectItem(zero, "rel_error")->valuedouble);
  cJSON_Delete(doc);
  clean(&s);
}
END_TEST

/* Quasi-random starts need a sequence of as many dimensions as parameters. */
START_TEST(fit_error_starts_dimension)
{
  size_t n = TS_FIT_MAX_QRNG_PARAMS + 1;
  ts_fit_param *p = calloc(n, sizeof *p);
  double *start = calloc(n, sizeof *start);
  ck_assert(p && start);
  char file[] = "many.json";
  ts_fit_params ps = {.p = p, .n = n};
  ts_fit_problem pb = {.file = file, .params = &ps};
  ts_fit_options o = {.starts = 1};
  ts_fit_result r;
  ts_err e;
  ck_assert_int_eq(ts_fit_minimize(&pb, NULL, start, &o, &r, &e), -1);
  ck_assert_msg(strstr(e.msg, "many.json: 1230 free parameters: quasi-random starts support at most 1229"), "%s",
                e.msg);
  ck_assert_int_eq(pb.evaluations, 0);
  ts_fit_result_finish(&r);
  free(p);
  free(start);
}
END_TEST

/* Write into s's folder a calibration over a scenario's axes: the model
 * `model` (class a, n actors of one cpu step of $c_ms, c_ms free in [1, 10]
 * from start; extra: more top-level fields, each followed by ", "), the
 * baseline text into s->baseline, and the scenario sc.json over ns (a JSON
 * list) on 1 worker with the axes object axes; scen (cap bytes) gets its path. */
static void write_axis_fixture(scratch *s, const char *model, const char *extra, double start, const char *baseline,
                               const char *ns, const char *axes, char *scen, size_t cap)
{
  char path[700], text[2048];
  snprintf(path, sizeof path, "%s/%s", s->dir, model);
  snprintf(text, sizeof text, "{\"name\": \"m\", %s\"params\": {\"c_ms\": %g},"
           " \"free\": [{\"name\": \"c_ms\", \"path\": \"params.c_ms\", \"min\": 1, \"max\": 10}],"
           " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": \"$c_ms\"}]}]}",
           extra, start);
  tu_write_file(path, text);
  tu_write_file(s->baseline, baseline);
  snprintf(scen, cap, "%s/sc.json", s->dir);
  snprintf(text, sizeof text, "{\"name\": \"ax\", \"model\": \"%s\", \"n\": %s, \"workers\": [1], \"axes\": %s}", model,
           ns, axes);
  tu_write_file(scen, text);
}

/* A recorded metric that only an axis value turns on (host.cores gives
 * cores_used) is checked against its own combination's model, and a
 * recorded metric --metrics leaves out is not checked at all (review14c:
 * the up-front check of 9cb6944 refused both). */
START_TEST(fit_metric_check_follows_axes_and_metrics)
{
  scratch s;
  scratch_open(&s, "b.json");
  char scen[700];
  write_axis_fixture(&s, "m.json", "", 2,
                     "{\"points\": [{\"n\": 2, \"axes\": {\"h\": \"c1\"}, \"metrics\": {\"cores_used\": 0.9, \"wave_ms\": 3}},"
                     " {\"n\": 2, \"axes\": {\"h\": \"c2\"}, \"metrics\": {\"cores_used\": 0.9, \"wave_ms\": 3}}]}",
                     "[2]", "{\"h\": {\"sets\": {\"c1\": {\"host.cores\": 1}, \"c2\": {\"host.cores\": 2}}}}", scen,
                     sizeof scen);
  free(cli_ok("%s/m.json %s --scenario %s --starts 0 --searches 1 -r 1 -q -o %s", s.dir, s.baseline, scen,
              out_path(&s, "fitted.json")));
  free(cli_ok(RR BASE "--metrics wave_ms --starts 0 --searches 1 -r 1 -q -o %s", out_path(&s, "fitted2.json")));
  clean(&s);
}
END_TEST

/* Found in review: with the CPU scale's baseline read once and inlined, a
 * scenario axis that chose the scale's metric was ignored (both axis values
 * predicted the same). Calibrate's fitted values must be what tssim run
 * gives for the calibrated model under the same scenario. */
START_TEST(fit_axis_over_the_cpu_scale_is_honoured)
{
  scratch s;
  scratch_open(&s, "blc.json");
  char path[700];
  snprintf(path, sizeof path, "%s/bl.json", s.dir);
  tu_write_file(path, "{\"points\": [{\"n\": 1, \"metrics\": {\"per_group_cpu_ms\": 100, \"wave_ms\": 10}},"
                      " {\"n\": 2, \"metrics\": {\"per_group_cpu_ms\": 90, \"wave_ms\": 30}},"
                      " {\"n\": 4, \"metrics\": {\"per_group_cpu_ms\": 80, \"wave_ms\": 70}}]}");
  char scen[700];
  write_axis_fixture(&s, "mc.json", "\"host\": {\"cpu_scale_by_n\": {\"baseline\": \"bl.json\", \"metric\": \"wave_ms\"}}, ", 5,
                     "{\"points\": [{\"n\": 1, \"axes\": {\"scale\": \"wave\"}, \"metrics\": {\"wave_ms\": 5}},"
                     " {\"n\": 4, \"axes\": {\"scale\": \"wave\"}, \"metrics\": {\"wave_ms\": 100}},"
                     " {\"n\": 1, \"axes\": {\"scale\": \"cpu\"}, \"metrics\": {\"wave_ms\": 5}},"
                     " {\"n\": 4, \"axes\": {\"scale\": \"cpu\"}, \"metrics\": {\"wave_ms\": 16}}]}",
                     "[1, 4]", "{\"scale\": {\"sets\": {\"wave\": {\"host.cpu_scale_by_n.metric\": \"wave_ms\"},"
                     " \"cpu\": {\"host.cpu_scale_by_n.metric\": \"per_group_cpu_ms\"}}}}", scen, sizeof scen);
  const char *out = out_path(&s, "fitted.json");
  free(cli_ok("%s/mc.json %s --scenario %s --starts 0 --searches 1 -r 1 -q -o %s", s.dir, s.baseline, scen, out));
  cJSON *doc = load_json(out);
  double c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "params"), "c_ms")->valuedouble;
  const cJSON *res = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(doc, "provenance"), "residuals");
  double fitted[2] = {NAN, NAN};
  const cJSON *r;
  cJSON_ArrayForEach(r, res)
  {
    if (cJSON_GetObjectItemCaseSensitive(r, "n")->valueint != 4)
      continue;
    int k = strcmp(cJSON_GetObjectItemCaseSensitive(r, "axes")->valuestring, "scale=cpu") == 0;
    fitted[k] = cJSON_GetObjectItemCaseSensitive(r, "fitted")->valuedouble;
  }
  cJSON_Delete(doc);
  /* what tssim run predicts at n = 4 with the fitted c_ms: the wave_ms scale (x7) and the cpu one (x0.8) */
  char cmd[2400], *text;
  snprintf(cmd, sizeof cmd, "run %s --set params.c_ms=%.17g -r 1 -q --no-plots -o %s/run", scen, c, s.dir);
  ck_assert_int_eq(tu_tssim(cmd, &text, NULL), 0);
  free(text);
  snprintf(path, sizeof path, "%s/run/summary.csv", s.dir);
  tu_table t;
  tu_table_read(&t, path);
  int checked = 0;
  for (int row = 0; row < t.nrows; row++) {
    if (atoi(tu_table_cell(&t, row, "n")) != 4)
      continue;
    int k = strcmp(tu_table_cell(&t, row, "scale"), "cpu") == 0;
    double ran = tu_table_num(&t, row, "wave_ms");
    ck_assert_msg(fabs(ran - fitted[k]) <= 1e-5 * ran, "scale=%s: calibrate %g, run %g", k ? "cpu" : "wave", fitted[k], ran);
    checked++;
  }
  ck_assert_int_eq(checked, 2);
  ck_assert(fabs(fitted[0] - fitted[1]) > 1);
  tu_table_free(&t);
  clean(&s);
}
END_TEST

/* A calibration converts the model once per evaluation; the CPU scale's
 * baseline file is read once, as the table it stands for, and the model is
 * the same. */
START_TEST(fit_inlined_baseline_scale_is_the_same_model)
{
  char *path = tu_source_path("models/zero-cache.json");
  cJSON *tree;
  ts_err e;
  ck_assert_msg(ts_json_load(path, &tree, &e) == 0, "%s", e.msg);
  cJSON *copy = cJSON_Duplicate(tree, 1);
  ck_assert_ptr_nonnull(copy);
  ck_assert_int_eq(ts_model_inline_files(copy, path, &e), 0);
  const cJSON *t = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(copy, "host"), "cpu_scale_by_n");
  ck_assert_ptr_null(cJSON_GetObjectItemCaseSensitive(t, "baseline"));
  ck_assert_ptr_nonnull(cJSON_GetObjectItemCaseSensitive(t, "scale"));
  ts_model a, b;
  ck_assert_int_eq(ts_model_from_json(tree, path, &a, &e), 0);
  ck_assert_int_eq(ts_model_from_json(copy, path, &b, &e), 0);
  ck_assert_uint_eq(a.nscale, b.nscale);
  ck_assert_uint_gt(a.nscale, 1);
  ck_assert_int_eq(a.scale_by_worker, b.scale_by_worker);
  for (size_t i = 0; i < a.nscale; i++) {
    ck_assert(memcmp(&a.scale_n[i], &b.scale_n[i], sizeof a.scale_n[i]) == 0);
    ck_assert(memcmp(&a.scale_v[i], &b.scale_v[i], sizeof a.scale_v[i]) == 0);
  }
  ts_model_finish(&a);
  ts_model_finish(&b);
  cJSON_Delete(copy);
  cJSON_Delete(tree);
  free(path);
}
END_TEST

/* walk14 item 1: without --scenario, a model that repeats forever ran
 * each evaluation until memory ran out (9.2 GB after 12 minutes). It needs a
 * horizon, as tssim run says: without a scenario, or with one without
 * horizon_ms, calibrate refuses (exit 2, one line); with horizon_ms it fits. */
START_TEST(fit_error_forever_needs_a_horizon)
{
  scratch s;
  scratch_open(&s, "rec.json");
  char model[700], scen[700], nohz[700], args[3000];
  snprintf(model, sizeof model, "%s/m.json", s.dir);
  snprintf(scen, sizeof scen, "%s/sc.json", s.dir);
  snprintf(nohz, sizeof nohz, "%s/nohz.json", s.dir);
  tu_write_file(model, "{\"name\": \"t\", \"params\": {\"c_ms\": 2},"
                       " \"free\": [{\"name\": \"c_ms\", \"path\": \"params.c_ms\", \"min\": 1, \"max\": 10}],"
                       " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\","
                       " \"count\": \"forever\", \"steps\": [{\"op\": \"cpu\", \"ms\": \"$c_ms\"},"
                       " {\"op\": \"sleep\", \"ms\": 50}]}]}]}");
  tu_write_file(s.baseline, "{\"points\": [{\"n\": 2, \"metrics\": {\"cpu_cores\": 0.1}}]}");
  tu_write_file(scen, "{\"name\": \"hz\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1], \"horizon_ms\": 1000}");
  tu_write_file(nohz, "{\"name\": \"nohz\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1]}");
  snprintf(args, sizeof args, "%s %s --starts 0 -r 1 -q -o %s/out.json", model, s.baseline, s.dir);
  expect_error(args, "m.json: classes[0].program[0] repeats forever, so its runs need a horizon: give --scenario FILE "
               "with horizon_ms", NULL);
  snprintf(args, sizeof args, "%s %s --scenario %s --starts 0 -r 1 -q -o %s/out.json", model, s.baseline, nohz, s.dir);
  expect_error(args, "nohz.json: horizon_ms: missing: classes[0].program[0] repeats forever, so the scenario needs "
               "horizon_ms", NULL);
  free(cli_ok("%s %s --scenario %s --starts 0 -r 1 -q -o %s/out.json", model, s.baseline, scen, s.dir));
  clean(&s);
}
END_TEST

Suite *fit_suite(void)
{
  Suite *s = suite_create("fit");
  const TTest *const core[] = {fit_recovers_synthetic,
                               fit_recovers_a_cv,
                               fit_objective_and_mapping,
                               fit_multistart_escapes_local_minimum,
                               fit_print_layout,
                               NULL};
  const TTest *const cli_tests[] = {fit_cli_provenance,
                                    fit_cli_loo_shape,
                                    fit_cli_deterministic,
                                    fit_cli_pinned,
                                    fit_cli_starts,
                                    fit_target_without_value_fails_the_evaluation,
                                    fit_loo_prediction_without_value_is_said,
                                    fit_loo_tables_say_in_sample_and_held_out,
                                    fit_recorded_zero_has_no_rel_error,
                                    NULL};
  const TTest *const errors[] = {fit_error_no_free,
                                 fit_error_bad_path,
                                 fit_error_bounds,
                                 fit_error_baseline,
                                 fit_error_metrics,
                                 fit_error_usage,
                                 fit_error_starts_dimension,
                                 fit_error_output_checked_before_the_fit,
                                 fit_error_forever_needs_a_horizon,
                                 NULL};
  const TTest *const inline_tests[] = {fit_inlined_baseline_scale_is_the_same_model,
                                       fit_axis_over_the_cpu_scale_is_honoured,
                                       fit_metric_check_follows_axes_and_metrics, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 120);
  tu_tcase(s, "cli", cli_tests, NULL, NULL, 120);
  tu_tcase(s, "errors", errors, NULL, NULL, 60);
  tu_tcase(s, "inline", inline_tests, NULL, NULL, 60);
  return s;
}
