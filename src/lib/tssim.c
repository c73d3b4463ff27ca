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

static char *dup_or_null(const char *s, int *failed)
{
  char *d = s ? strdup(s) : NULL;
  *failed |= s && !d;
  return d;
}

/* ---- scenarios ---- */

/* Put the sweep overrides (n, workers, replications, seed) into s->L. */
static int apply_overrides(tssim_scenario *s)
{
  ts_scenario *sc = &s->L.sc;
  if (s->ns) {
    int *v = malloc(s->nn * sizeof *v);
    if (!v)
      return -1;
    memcpy(v, s->ns, s->nn * sizeof *v);
    free(sc->ns);
    sc->ns = v;
    sc->nn = s->nn;
  }
  if (s->ws) {
    int *v = malloc(s->nw * sizeof *v);
    if (!v)
      return -1;
    memcpy(v, s->ws, s->nw * sizeof *v);
    free(sc->workers);
    sc->workers = v;
    sc->nw = s->nw;
  }
  if (s->replications)
    sc->replications = s->replications;
  if (s->has_seed)
    sc->seed = s->seed;
  return 0;
}

/* Load s from its sources with its overrides and `extra` (a further "PATH=VALUE",
 * or NULL) into s->L, replacing what it held only on success. */
static int reload(tssim_scenario *s, const char *extra, tssim_error *err)
{
  ts_load_src src = {.path = s->path, .scenario_json = s->scenario_json, .model_json = s->model_json,
                     .baseline_json = s->baseline_json};
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
  ts_load_finish(&s->L);
  s->L = L;
  if (apply_overrides(s))
    return fail(err, TSSIM_FAILED, "out of memory");
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
  if (!path) {
    *out = NULL;
    return fail(err, TSSIM_INPUT, "no scenario file given");
  }
  return open_src(path, NULL, NULL, NULL, out, err);
}

int tssim_open_json(const char *scenario_json, const char *model_json, const char *baseline_json,
                    tssim_scenario **out, tssim_error *err)
{
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
  free(s->ns);
  free(s->ws);
  free(s->path);
  free(s->scenario_json);
  free(s->model_json);
  free(s->baseline_json);
  free(s);
}

int tssim_set(tssim_scenario *s, const char *path_value, tssim_error *err)
{
  if (!path_value)
    return fail(err, TSSIM_INPUT, "--set: expected PATH=VALUE, got nothing");
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

/* Replace *list (*len) by a copy of v[0..count), checked as the command
 * line's option opt checks its comma list. */
static int set_list(const int *v, size_t count, const char *opt, long hi, int **list, size_t *len, tssim_error *err)
{
  size_t cap = count * 12 + 1;
  char *text = malloc(cap);
  if (!text)
    return fail(err, TSSIM_FAILED, "out of memory");
  size_t at = 0;
  text[0] = '\0';
  for (size_t i = 0; i < count; i++)
    at += (size_t)snprintf(text + at, cap - at, "%s%d", i ? "," : "", v[i]);
  int *parsed;
  size_t n;
  ts_err e;
  int rc = ts_parse_int_list(text, opt, 1, hi, &parsed, &n, &e);
  free(text);
  if (rc)
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  free(*list);
  *list = parsed;
  *len = n;
  return ok(err);
}

int tssim_set_n(tssim_scenario *s, const int *n, size_t count, tssim_error *err)
{
  int rc = set_list(n, count, "--n", TS_MAX_ACTORS, &s->ns, &s->nn, err);
  return rc ? rc : apply_overrides(s) ? fail(err, TSSIM_FAILED, "out of memory") : TSSIM_OK;
}

int tssim_set_workers(tssim_scenario *s, const int *workers, size_t count, tssim_error *err)
{
  int rc = set_list(workers, count, "--workers", TS_MAX_WORKERS, &s->ws, &s->nw, err);
  return rc ? rc : apply_overrides(s) ? fail(err, TSSIM_FAILED, "out of memory") : TSSIM_OK;
}

int tssim_set_replications(tssim_scenario *s, int replications, tssim_error *err)
{
  if (replications < 1 || replications > 100000)
    return fail(err, TSSIM_INPUT, "--replications: expected an integer in [1, 100000], got \"%d\"", replications);
  s->replications = s->L.sc.replications = replications;
  return ok(err);
}

int tssim_set_seed(tssim_scenario *s, uint64_t seed, tssim_error *err)
{
  char text[32];
  snprintf(text, sizeof text, "%llu", (unsigned long long)seed);
  ts_err e;
  if (ts_parse_seed(text, &seed, &e))
    return fail(err, TSSIM_INPUT, "%s", e.msg);
  s->seed = s->L.sc.seed = seed;
  s->has_seed = 1;
  return ok(err);
}

const char *tssim_scenario_name(const tssim_scenario *s)
{
  return s->L.sc.name;
}

size_t tssim_scenario_axes(const tssim_scenario *s)
{
  return (size_t)s->L.sc.naxes;
}

const char *tssim_scenario_axis(const tssim_scenario *s, size_t a)
{
  return a < (size_t)s->L.sc.naxes ? s->L.sc.axes[a].key : NULL;
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
  else if (sr != 0)
    rc = fail(err, sr == TS_SWEEP_MODEL || sr == TS_SWEEP_HORIZON ? TSSIM_INPUT : TSSIM_FAILED, "%s: %s",
              sr == TS_SWEEP_MODEL ? s->L.sc.model_path : s->L.sc.file, r->s.errmsg);
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
  return run(s, s->L.sc.ns, s->L.sc.nn, s->L.sc.workers, s->L.sc.nw, o, out, err);
}

int tssim_run_point(tssim_scenario *s, int n, int workers, const tssim_options *o, tssim_result **out,
                    tssim_error *err)
{
  *out = NULL;
  if (n < 1 || n > TS_MAX_ACTORS)
    return fail(err, TSSIM_INPUT, "--n: expected an integer in [1, %ld], got \"%d\"", TS_MAX_ACTORS, n);
  if (workers < 1 || workers > TS_MAX_WORKERS)
    return fail(err, TSSIM_INPUT, "--workers: expected an integer in [1, %ld], got \"%d\"", TS_MAX_WORKERS,
                workers);
  return run(s, &n, 1, &workers, 1, o, out, err);
}
