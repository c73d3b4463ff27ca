/* The public API (include/tssim/tssim.h): scenarios loaded through
 * lib/load.c, sweeps run by run/sweep.c as `tssim run` runs them, results
 * kept in memory. A scenario handle keeps its sources and its overrides, so
 * tssim_set can load it again with one more and leave it as it was when
 * that fails. */
#include "tssim/tssim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "io/report.h"
#include "lib/lib.h"
#include "run/sweep.h"

const char *tssim_version(void)
{
  return TSSIM_VERSION;
}

/* Fill err (which may be NULL) and return code. */
static int fail(tssim_error *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(tssim_error *err, int code, const char *fmt, ...)
{
  if (err) {
    va_list ap;
    va_start(ap, fmt);
    err->code = code;
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
  }
  return code;
}

static int ok(tssim_error *err)
{
  if (err) {
    err->code = TSSIM_OK;
    err->message[0] = '\0';
  }
  return TSSIM_OK;
}

/* A NULL scenario handle (a failed tssim_open leaves *out NULL): the
 * message names the call. */
static int no_handle(tssim_error *err, const char *call)
{
  return fail(err, TSSIM_INPUT, "%s: expected a scenario, got NULL (did tssim_open fail?)", call);
}

/* An int array argument of call, each value in [lo, hi], distinct, at least
 * one: TSSIM_OK or TSSIM_INPUT with err naming call, the argument and the
 * value. */
static int check_ints(const char *call, const char *arg, const int *v, size_t count, long lo, long hi,
                      tssim_error *err)
{
  if (!v || count == 0)
    return fail(err, TSSIM_INPUT, "%s: %s: expected at least one value, got %s", call, arg, v ? "count 0" : "NULL");
  for (size_t i = 0; i < count; i++) {
    if (v[i] < lo || v[i] > hi)
      return fail(err, TSSIM_INPUT, "%s: %s[%zu]: expected an integer in [%ld, %ld], got %d", call, arg, i, lo, hi,
                  v[i]);
    for (size_t j = 0; j < i; j++)
      if (v[j] == v[i])
        return fail(err, TSSIM_INPUT, "%s: %s[%zu]: %d appears twice (at %zu too): each value would repeat a row",
                    call, arg, i, v[i], j);
  }
  return TSSIM_OK;
}

static char *dup_or_null(const char *s, int *failed)
{
  char *d = s ? strdup(s) : NULL;
  *failed |= s && !d;
  return d;
}

/* ---- scenarios ---- */

static const char *const setter_names[6];

/* Put s's sweep overrides (n, workers, replications, seed, confidence
 * target) into L. */
static int apply_overrides(const tssim_scenario *s, ts_loaded *L, ts_err *e)
{
  ts_load_overrides o = {.n = s->over[0], .workers = s->over[1], .replications = s->over[2], .seed = s->over[3],
                         .ci_target = s->over[4], .ci_max = s->over[5], .names = setter_names};
  return ts_load_override(L, &o, e);
}

/* Load s from its sources with its overrides and `extra` (a further "PATH=VALUE",
 * or NULL) into s->L, replacing what it held only on success. */
static int reload(tssim_scenario *s, const char *extra, tssim_error *err)
{
  ts_load_src src = {.path = s->path, .scenario_json = s->scenario_json, .model_json = s->model_json,
                     .baseline_json = s->baseline_json, .set_by = "tssim_set"};
  const char **sets = calloc((size_t)s->nsets + 2, sizeof *sets);
  if (!sets)
    return fail(err, TSSIM_FAILED, "out of memory");
  for (int i = 0; i < s->nsets; i++)
    sets[i] = s->sets[i];
  if (extra)
    sets[s->nsets] = extra;
  ts_loaded L;
  ts_err e;
  int rc = ts_load(&src, sets, s->nsets + (extra != NULL), &L, &e);
  free(sets);
  if (rc)
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  if (apply_overrides(s, &L, &e)) {
    ts_load_finish(&L);
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  }
  ts_load_finish(&s->L);
  s->L = L;
  return ok(err);
}

static int open_src(const char *path, const char *scenario_json, const char *model_json, const char *baseline_json,
                    tssim_scenario **out, tssim_error *err)
{
  *out = NULL;
  tssim_scenario *s = calloc(1, sizeof *s);
  int failed = !s;
  if (s) {
    s->path = dup_or_null(path, &failed);
    s->scenario_json = dup_or_null(scenario_json, &failed);
    s->model_json = dup_or_null(model_json, &failed);
    s->baseline_json = dup_or_null(baseline_json, &failed);
  }
  if (failed) {
    tssim_close(s);
    return fail(err, TSSIM_FAILED, "out of memory");
  }
  int rc = reload(s, NULL, err);
  if (rc) {
    tssim_close(s);
    return rc;
  }
  *out = s;
  return TSSIM_OK;
}

int tssim_open(const char *path, tssim_scenario **out, tssim_error *err)
{
  if (!out)
    return fail(err, TSSIM_INPUT, "tssim_open: out: expected a place for the scenario, got NULL");
  if (!path) {
    *out = NULL;
    return fail(err, TSSIM_INPUT, "tssim_open: path: expected a scenario file, got NULL");
  }
  if (!*path) {
    *out = NULL;
    return fail(err, TSSIM_INPUT, "tssim_open: path: expected a scenario file, got \"\"");
  }
  return open_src(path, NULL, NULL, NULL, out, err);
}

int tssim_open_json(const char *scenario_json, const char *model_json, const char *baseline_json,
                    tssim_scenario **out, tssim_error *err)
{
  if (!out)
    return fail(err, TSSIM_INPUT, "tssim_open_json: out: expected a place for the scenario, got NULL");
  if (!scenario_json || !model_json) {
    *out = NULL;
    return fail(err, TSSIM_INPUT, "%s: no JSON text given", scenario_json ? "<model>" : "<scenario>");
  }
  return open_src(NULL, scenario_json, model_json, baseline_json, out, err);
}

void tssim_close(tssim_scenario *s)
{
  if (!s)
    return;
  ts_load_finish(&s->L);
  for (int i = 0; i < s->nsets; i++)
    free(s->sets[i]);
  free(s->sets);
  for (int k = 0; k < 6; k++)
    free(s->over[k]);
  free(s->path);
  free(s->scenario_json);
  free(s->model_json);
  free(s->baseline_json);
  free(s);
}

int tssim_set(tssim_scenario *s, const char *path_value, tssim_error *err)
{
  if (!s)
    return no_handle(err, "tssim_set");
  const char *eq = path_value ? strchr(path_value, '=') : NULL;
  if (!eq || eq == path_value)
    return fail(err, TSSIM_INPUT, "tssim_set: expected PATH=VALUE, got %s%s%s", path_value ? "\"" : "NULL",
                path_value ? path_value : "", path_value ? "\"" : "");
  char *copy = strdup(path_value);
  char **sets = copy ? realloc(s->sets, ((size_t)s->nsets + 1) * sizeof *sets) : NULL;
  if (!sets) {
    free(copy);
    return fail(err, TSSIM_FAILED, "out of memory");
  }
  s->sets = sets;
  int rc = reload(s, copy, err);
  if (rc) {
    free(copy);
    return rc;
  }
  s->sets[s->nsets++] = copy;
  return TSSIM_OK;
}

/* Override slot k of s (TS_OVER_*) with text, checked as the command
 * line's option is; kept for the reloads of tssim_set. */
enum { TS_OVER_N, TS_OVER_WORKERS, TS_OVER_REPLICATIONS, TS_OVER_SEED, TS_OVER_CI_TARGET, TS_OVER_CI_MAX };

/* What messages call the overrides: the setters, not the command line's options. */
static const char *const setter_names[6] = {"tssim_set_n", "tssim_set_workers", "tssim_set_replications",
                                            "tssim_set_seed", "tssim_set_ci_target: fraction",
                                            "tssim_set_ci_target: max_replications"};

static int override(tssim_scenario *s, int k, const char *text, tssim_error *err)
{
  const char *texts[6] = {NULL};
  texts[k] = text;
  ts_load_overrides o = {.n = texts[0], .workers = texts[1], .replications = texts[2], .seed = texts[3],
                         .ci_target = texts[4], .ci_max = texts[5], .names = setter_names};
  ts_err e;
  char *copy = strdup(text);
  if (!copy)
    return fail(err, TSSIM_FAILED, "out of memory");
  if (ts_load_override(&s->L, &o, &e)) { /* (a failed override changes nothing) */
    free(copy);
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  }
  free(s->over[k]);
  s->over[k] = copy;
  return ok(err);
}

/* v[0..count) as the comma list the command line takes, in a new string. */
static char *int_list(const int *v, size_t count)
{
  size_t cap = count * 12 + 1, at = 0;
  char *text = malloc(cap);
  if (text)
    text[0] = '\0';
  for (size_t i = 0; text && i < count; i++)
    at += (size_t)snprintf(text + at, cap - at, "%s%d", i ? "," : "", v[i]);
  return text;
}

static int override_list(tssim_scenario *s, int k, const int *v, size_t count, tssim_error *err)
{
  char *text = int_list(v, count);
  if (!text)
    return fail(err, TSSIM_FAILED, "out of memory");
  int rc = override(s, k, text, err);
  free(text);
  return rc;
}

int tssim_set_n(tssim_scenario *s, const int *n, size_t count, tssim_error *err)
{
  if (!s)
    return no_handle(err, "tssim_set_n");
  int rc = check_ints("tssim_set_n", "n", n, count, 1, TS_MAX_ACTORS, err);
  return rc ? rc : override_list(s, TS_OVER_N, n, count, err);
}

int tssim_set_workers(tssim_scenario *s, const int *workers, size_t count, tssim_error *err)
{
  if (!s)
    return no_handle(err, "tssim_set_workers");
  int rc = check_ints("tssim_set_workers", "workers", workers, count, 1, TS_MAX_WORKERS, err);
  return rc ? rc : override_list(s, TS_OVER_WORKERS, workers, count, err);
}

int tssim_set_replications(tssim_scenario *s, int replications, tssim_error *err)
{
  if (!s)
    return no_handle(err, "tssim_set_replications");
  return override_list(s, TS_OVER_REPLICATIONS, &replications, 1, err);
}

int tssim_set_seed(tssim_scenario *s, uint64_t seed, tssim_error *err)
{
  if (!s)
    return no_handle(err, "tssim_set_seed");
  char text[32];
  snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
  return override(s, TS_OVER_SEED, text, err);
}

int tssim_set_ci_target(tssim_scenario *s, double fraction, int max_replications, tssim_error *err)
{
  if (!s)
    return no_handle(err, "tssim_set_ci_target");
  char text[64], max[16];
  long v;
  ts_err e;
  snprintf(text, sizeof text, "%.17g", fraction);
  snprintf(max, sizeof max, "%d", max_replications);
  if (ts_load_parse_count(max, setter_names[TS_OVER_CI_MAX], 2, 100000, &v, &e)) /* first: a failure changes nothing */
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  int rc = override(s, TS_OVER_CI_TARGET, text, err);
  return rc ? rc : override(s, TS_OVER_CI_MAX, max, err);
}

const char *tssim_scenario_name(const tssim_scenario *s)
{
  return s ? s->L.sc.name : NULL;
}

size_t tssim_scenario_axes(const tssim_scenario *s)
{
  return s ? (size_t)s->L.sc.naxes : 0;
}

const char *tssim_scenario_axis(const tssim_scenario *s, size_t a)
{
  return s && a < (size_t)s->L.sc.naxes ? s->L.sc.axes[a].key : NULL;
}

/* ---- running ---- */

static int should_stop(void *data)
{
  const tssim_options *o = data;
  return o->should_stop(o->data);
}

static int progress(void *data, size_t point, size_t points, int replication)
{
  const tssim_options *o = data;
  return o->progress(o->data, point, points, replication);
}

/* Run the sweep of s over ns x ws into a new result. */
static int run(tssim_scenario *s, const int *ns, size_t nn, const int *ws, size_t nw, const tssim_options *o,
               tssim_result **out, tssim_error *err)
{
  static const tssim_options defaults;
  ts_err e;
  *out = NULL;
  if (!o)
    o = &defaults;
  if (ts_load_check_horizon(&s->L, &e))
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  tssim_result *r = calloc(1, sizeof *r);
  if (!r)
    return fail(err, TSSIM_FAILED, "out of memory");
  int sizes[16];
  ts_sweep_spec spec;
  ts_load_sweep_spec(&s->L, o->jobs > 0 ? o->jobs : ts_sweep_cores(), sizes, &spec);
  spec.ns = ns;
  spec.nn = nn;
  spec.workers = ws;
  spec.nw = nw;
  spec.progress = o->progress ? progress : NULL;
  spec.should_stop = o->should_stop ? should_stop : NULL;
  spec.progress_data = (void *)o;
  if (!o->no_actors)
    ts_lib_keep_actors(r, &spec);
  int sr = ts_sweep_run(&spec, &r->s);
  int rc = TSSIM_OK;
  if (sr == TS_SWEEP_STOPPED)
    rc = fail(err, TSSIM_STOPPED, "%s: stopped: %zu sweep points done", s->L.sc.file, r->s.points_done);
  else if (sr != 0) {
    char line[1600];
    ts_load_sweep_error(&s->L, sr, r->s.errmsg, line, sizeof line);
    rc = fail(err, sr == TS_SWEEP_MODEL || sr == TS_SWEEP_HORIZON ? TSSIM_INPUT : sr == TS_SWEEP_TEMP ? TSSIM_IO : TSSIM_FAILED,
              "%s", line);
  }
  else if (ts_lib_result_finish(r, &s->L))
    rc = fail(err, TSSIM_FAILED, "out of memory");
  if (rc) {
    tssim_result_free(r);
    return rc;
  }
  *out = r;
  return ok(err);
}

int tssim_run(tssim_scenario *s, const tssim_options *o, tssim_result **out, tssim_error *err)
{
  if (!out)
    return fail(err, TSSIM_INPUT, "tssim_run: out: expected a place for the result, got NULL");
  *out = NULL;
  if (!s)
    return no_handle(err, "tssim_run");
  return run(s, s->L.sc.ns, s->L.sc.nn, s->L.sc.workers, s->L.sc.nw, o, out, err);
}

int tssim_run_point(tssim_scenario *s, int n, int workers, const tssim_options *o, tssim_result **out,
                    tssim_error *err)
{
  if (!out)
    return fail(err, TSSIM_INPUT, "tssim_run_point: out: expected a place for the result, got NULL");
  *out = NULL;
  if (!s)
    return no_handle(err, "tssim_run_point");
  if (n < 1 || n > TS_MAX_ACTORS)
    return fail(err, TSSIM_INPUT, "tssim_run_point: n: expected an integer in [1, %ld], got %d", (long)TS_MAX_ACTORS, n);
  if (workers < 1 || workers > TS_MAX_WORKERS)
    return fail(err, TSSIM_INPUT, "tssim_run_point: workers: expected an integer in [1, %ld], got %d", (long)TS_MAX_WORKERS,
                workers);
  return run(s, &n, 1, &workers, 1, o, out, err);
}
