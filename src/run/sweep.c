#include "run/sweep.h"

#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"

typedef struct pool {
  double *v[TS_M_COUNT];
  size_t len;
  size_t cap;
} pool;

static int pool_add(pool *p, const ts_actor_stats *st)
{
  if (p->len == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 64;
    for (int m = 0; m < TS_M_COUNT; m++) {
      double *nv = realloc(p->v[m], cap * sizeof *nv);
      if (!nv)
        return -1;
      p->v[m] = nv;
    }
    p->cap = cap;
  }
  for (int m = 0; m < TS_M_COUNT; m++)
    p->v[m][p->len] = ts_metric_sample((ts_metric)m, st);
  p->len++;
  return 0;
}

static void pool_free(pool *p)
{
  for (int m = 0; m < TS_M_COUNT; m++)
    free(p->v[m]);
  memset(p, 0, sizeof *p);
}

static void summarize(pool *p, ts_point *pt)
{
  pt->samples = p->len;
  for (int m = 0; m < TS_M_COUNT; m++) {
    if (m == TS_M_WAVE_RATIO)
      continue;
    if (p->len == 0) {
      pt->value[m] = 0;
      continue;
    }
    gsl_sort(p->v[m], 1, p->len);
    pt->value[m] = m == TS_M_WAVE_P95_MS ? gsl_stats_quantile_from_sorted_data(p->v[m], 1, p->len, 0.95)
                                         : gsl_stats_median_from_sorted_data(p->v[m], 1, p->len);
  }
}

static int keep(ts_sweep *out, const ts_world *w, int rep, int n, int workers)
{
  size_t need = out->nsamples + (size_t)w->nactors;
  ts_sample *ns = realloc(out->samples, (need ? need : 1) * sizeof *ns);
  if (!ns)
    return -1;
  out->samples = ns;
  for (int a = 0; a < w->nactors; a++)
    out->samples[out->nsamples++] = (ts_sample){rep, n, workers, w->actors[a].st};
  return 0;
}

static int run_point(const ts_model *m, const ts_sweep_spec *spec, int n, int workers, ts_sweep *out)
{
  size_t nk = m->nclasses;
  pool *pools = calloc(nk, sizeof *pools);
  if (!pools)
    return -1;
  int rc = 0;
  for (int r = 0; r < spec->replications && rc == 0; r++) {
    if (spec->should_stop && spec->should_stop(spec->progress_data)) {
      rc = -5;
      break;
    }
    ts_world w;
    if (ts_world_init(&w, m, n, workers, ts_rng_derive_seed(spec->seed, n, workers, r), NULL) != 0) {
      rc = -1;
      break;
    }
    rc = ts_world_run(&w);
    out->events += w.sim.steps;
    for (int a = 0; a < w.nactors && rc == 0; a++)
      if (pool_add(&pools[w.actors[a].klass], &w.actors[a].st) != 0)
        rc = -1;
    if (rc == 0 && spec->keep_samples)
      rc = keep(out, &w, r, n, workers);
    ts_world_finish(&w);
    if (spec->progress)
      spec->progress(spec->progress_data, n, workers, r);
  }
  for (size_t k = 0; k < nk; k++) {
    if (rc == 0) {
      ts_point *pt = &out->points[out->npoints++];
      memset(pt, 0, sizeof *pt);
      pt->n = n;
      pt->workers = workers;
      pt->klass = (int)k;
      pt->replications = spec->replications;
      summarize(&pools[k], pt);
    }
    pool_free(&pools[k]);
  }
  free(pools);
  return rc;
}

/* wave_ratio: wave_ms over wave_ms at the smallest n with the same workers
 * and class that has actors (n = 0 may leave a class empty). */
static void ratios(ts_sweep *s)
{
  for (size_t i = 0; i < s->npoints; i++) {
    ts_point *p = &s->points[i];
    const ts_point *base = NULL;
    for (size_t j = 0; j < s->npoints; j++) {
      const ts_point *q = &s->points[j];
      if (q->workers == p->workers && q->klass == p->klass && q->samples > 0 && (!base || q->n < base->n))
        base = q;
    }
    double b = base ? base->value[TS_M_WAVE_MS] : 0;
    p->value[TS_M_WAVE_RATIO] = b > 0 ? p->value[TS_M_WAVE_MS] / b : 0;
  }
}

int ts_sweep_run(const ts_model *m, const ts_sweep_spec *spec, ts_sweep *out)
{
  memset(out, 0, sizeof *out);
  out->points = calloc(spec->nn * spec->nw * m->nclasses + 1, sizeof *out->points);
  if (!out->points)
    return -1;
  for (size_t ni = 0; ni < spec->nn; ni++)
    if (!ts_model_horizon_ok(m, spec->ns[ni]))
      return -4;
  for (size_t wi = 0; wi < spec->nw; wi++)
    for (size_t ni = 0; ni < spec->nn; ni++) {
      int rc = run_point(m, spec, spec->ns[ni], spec->workers[wi], out);
      if (rc != 0)
        return rc;
    }
  ratios(out);
  return 0;
}

void ts_sweep_finish(ts_sweep *s)
{
  free(s->points);
  free(s->samples);
  memset(s, 0, sizeof *s);
}

const ts_point *ts_sweep_find(const ts_sweep *s, int n, int workers, int klass)
{
  for (size_t i = 0; i < s->npoints; i++)
    if (s->points[i].n == n && s->points[i].workers == workers && s->points[i].klass == klass)
      return &s->points[i];
  return NULL;
}
