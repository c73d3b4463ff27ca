/* Helpers of the calibration suites (fit, fitlsq): a scratch folder with a
 * synthetic baseline, tssim calibrate on the command line, the problem of a
 * model and baseline built as tssim calibrate builds it. */
#include "fitutil.h"

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "run/metrics.h"
#include "testutil.h"

void scratch_open(scratch *s, const char *name)
{
  memset(s, 0, sizeof *s);
  tu_mkdtemp(s->dir, sizeof s->dir, "fit");
  snprintf(s->baseline, sizeof s->baseline, "%s/%s", s->dir, name);
}

const char *out_path(scratch *s, const char *name)
{
  ck_assert_int_lt(s->nout, 8);
  char dir[sizeof s->dir]; /* a copy: snprintf must not read the object it writes */
  memcpy(dir, s->dir, sizeof dir);
  snprintf(s->out[s->nout], sizeof s->out[0], "%s/%s", dir, name);
  return s->out[s->nout++];
}

void clean(scratch *s)
{
  tu_rmtree(s->dir);
}

void sweep_model(const char *rel, const char *const *sets, int nsets, int *ns, size_t nn, int *ws, size_t nw,
                 ts_sweep *sw)
{
  char *model = tu_source_path(rel);
  ts_model m;
  ts_err e;
  ck_assert_msg(ts_model_load(model, sets, nsets, &m, NULL, &e) == 0, "%s", e.msg);
  ts_sweep_spec spec = {.ns = ns, .nn = nn, .workers = ws, .nw = nw, .replications = 1, .seed = 1,
                        .horizon = TS_TIME_MAX, .model = &m};
  ck_assert_msg(ts_sweep_run(&spec, sw) == 0, "%s", sw->errmsg);
  ts_model_finish(&m);
  free(model);
}

int sweep_col(const ts_sweep *sw, const char *name)
{
  int c = ts_sweep_col(sw, name);
  ck_assert_msg(c >= 0, "the sweep has no column %s", name);
  return c;
}

void make_synthetic(scratch *s)
{
  scratch_open(s, "baseline.json");
  char set_c[64], set_io[64];
  snprintf(set_c, sizeof set_c, "params.c_ms=%g", TRUE_C_MS);
  snprintf(set_io, sizeof set_io, "classes[0].program[0].ms=%g", TRUE_IO_MS);
  const char *sets[] = {set_c, set_io};
  int ns[] = {1, 2, 4}, ws[] = {1, 2};
  ts_sweep sw;
  sweep_model("tests/data/fit-rr.json", sets, 2, ns, 3, ws, 2, &sw);
  int wave = sweep_col(&sw, "wave_ms"), ratio = sweep_col(&sw, "wave_ratio");
  cJSON *root = cJSON_CreateObject(), *pts = cJSON_AddArrayToObject(root, "points");
  for (size_t i = 0; i < sw.npoints; i++) {
    cJSON *p = cJSON_CreateObject(), *mx;
    cJSON_AddNumberToObject(p, "n", sw.points[i].n);
    cJSON_AddNumberToObject(p, "workers", sw.points[i].workers);
    mx = cJSON_AddObjectToObject(p, "metrics");
    cJSON_AddNumberToObject(mx, "wave_ms", sw.points[i].value[wave]);
    cJSON_AddNumberToObject(mx, "wave_ratio", sw.points[i].value[ratio]);
    cJSON_AddItemToArray(pts, p);
  }
  char *text = cJSON_Print(root);
  tu_write_file(s->baseline, text);
  free(text);
  cJSON_Delete(root);
  ts_sweep_finish(&sw);
}

char *vcli(int *status, const char *fmt, va_list ap)
{
  const char *root = tu_source_root();
  char args[2048], cmd[4096] = "calibrate ";
  vsnprintf(args, sizeof args, fmt, ap);
  for (const char *p = args; *p; p++) {
    size_t l = strlen(cmd);
    if (*p == '@')
      snprintf(cmd + l, sizeof cmd - l, "%s/", root);
    else
      snprintf(cmd + l, sizeof cmd - l, "%c", *p);
  }
  char *out;
  *status = tu_tssim(cmd, &out, NULL);
  return out;
}

char *cli(int *status, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  char *out = vcli(status, fmt, ap);
  va_end(ap);
  return out;
}

char *cli_ok(const char *fmt, ...)
{
  int st;
  va_list ap;
  va_start(ap, fmt);
  char *out = vcli(&st, fmt, ap);
  va_end(ap);
  ck_assert_msg(st == 0, "exit %d: %s", st, out);
  return out;
}

cJSON *load_json(const char *path)
{
  cJSON *doc;
  ts_err e;
  ck_assert_msg(ts_json_load(path, &doc, &e) == 0, "%s", e.msg);
  return doc;
}

double number_at(cJSON *root, const char *path)
{
  cJSON *v = ts_json_get_path(root, path);
  ck_assert_msg(v && cJSON_IsNumber(v), "no number at %s", path);
  return v->valuedouble;
}

void assert_near(double got, double want, double rel)
{
  ck_assert_msg(fabs(got - want) <= rel * fabs(want), "got %.9g, want %.9g within %g%%", got, want, 100 * rel);
}

void problem_open(problem *f, void (*make)(scratch *), const char *rel, uint64_t seed, int replications)
{
  ts_err e;
  memset(f, 0, sizeof *f);
  make(&f->s);
  f->model = tu_source_path(rel);
  ck_assert_msg(ts_json_load(f->model, &f->tree, &e) == 0, "%s", e.msg);
  ck_assert_msg(ts_fit_params_read(f->tree, f->model, NULL, 0, &f->ps, &e) == 0, "%s", e.msg);
  ck_assert_msg(ts_baseline_load(f->s.baseline, &f->b, &e) == 0, "%s", e.msg);
  int rc = ts_fit_problem_init(&f->pb, f->tree, f->model, &f->ps, &f->b, NULL, NULL, seed, replications, &e);
  ck_assert_msg(rc == 0, "%s", e.msg);
}

void problem_close(problem *f)
{
  ts_fit_problem_finish(&f->pb);
  ts_baseline_finish(&f->b);
  ts_fit_params_finish(&f->ps);
  cJSON_Delete(f->tree);
  free(f->model);
  clean(&f->s);
}

void expect_error(const char *args, const char *want1, const char *want2)
{
  int st;
  char *text = cli(&st, "%s", args);
  ck_assert_msg(st == 2, "`%s`: exit %d, want 2: %s", args, st, text);
  ck_assert_msg(strstr(text, want1) && (!want2 || strstr(text, want2)), "`%s`: %s", args, text);
  ck_assert_msg(strchr(text, '\n') == text + strlen(text) - 1, "`%s`: more than one line: %s", args, text);
  free(text);
}
