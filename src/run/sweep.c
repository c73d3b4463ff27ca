#include "run/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"

/* ---- small statistics over arrays that may hold NAN (a metric that does not apply) ---- */

/* Copy the finite values of v[0..k) (stride apart) into out; returns how many. */
static size_t finite(const double *v, size_t stride, size_t k, double *out)
{
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    if (!isnan(v[i * stride]))
      out[n++] = v[i * stride];
  return n;
}

/* The q-quantile (0.5: the median) of v[0..k), sorting it; NAN when empty. */
static double quantile(double *v, size_t k, double q)
{
  if (k == 0)
    return NAN;
  gsl_sort(v, 1, k);
  return q == 0.5 ? gsl_stats_median_from_sorted_data(v, 1, k) : gsl_stats_quantile_from_sorted_data(v, 1, k, q);
}

/* An actor metric's statistic over v[0..k) (sorting it): 0 median, 1 p95,
 * 2 mean, 3 p99, 4 max. 0 when there is no actor. */
static double actor_stat(double *v, size_t k, int stat)
{
  if (k == 0)
    return 0;
  if (stat == 2)
    return gsl_stats_mean(v, 1, k);
  static const double q[] = {0.5, 0.95, 0, 0.99, 1};
  return quantile(v, k, q[stat]);
}

static double median_strided(const double *v, size_t stride, size_t k, double *scratch)
{
  return quantile(scratch, finite(v, stride, k, scratch), 0.5);
}

double ts_ci95(const double *v, size_t stride, size_t k)
{
  double *x = malloc((k ? k : 1) * sizeof *x);
  if (!x)
    return NAN;
  size_t n = finite(v, stride, k, x);
  double r = NAN;
  if (n >= 2)
    r = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * gsl_stats_sd(x, 1, n) / sqrt((double)n);
  free(x);
  return r;
}

static double mean_strided(const double *v, size_t stride, size_t k)
{
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    if (!isnan(v[i * stride])) {
      sum += v[i * stride];
      n++;
    }
  return n ? sum / (double)n : NAN;
}

/* ---- growable arrays ---- */

typedef struct dvec {
  double *v;
  size_t len, cap;
} dvec;

static int dvec_push(dvec *d, double x)
{
  if (d->len == d->cap) {
    size_t cap = d->cap ? d->cap * 2 : 64;
    double *v = realloc(d->v, cap * sizeof *v);
    if (!v)
      return -1;
    d->v = v;
    d->cap = cap;
  }
  d->v[d->len++] = x;
  return 0;
}

/* ---- the sweep ---- */

size_t ts_sweep_npoints(const ts_sweep_spec *spec)
{
  size_t c = 1;
  for (int a = 0; a < spec->naxes; a++)
    c *= (size_t)spec->axis_sizes[a];
  return c * spec->nn * spec->nw;
}

static size_t ncombos(const ts_sweep_spec *spec)
{
  size_t c = 1;
  for (int a = 0; a < spec->naxes; a++)
    c *= (size_t)spec->axis_sizes[a];
  return c;
}

/* The axis values of combination c: the first axis varies slowest. */
static void combo_values(const ts_sweep_spec *spec, size_t c, int *values)
{
  for (int a = spec->naxes - 1; a >= 0; a--) {
    values[a] = (int)(c % (size_t)spec->axis_sizes[a]);
    c /= (size_t)spec->axis_sizes[a];
  }
}

static int combo_model(const ts_sweep_spec *spec, const int *values, ts_model *m, int *owned, ts_sweep *out)
{
  *owned = 0;
  if (!spec->model_of) {
    *m = *spec->model;
    return 0;
  }
  if (spec->model_of(spec->ctx, values, m, out->errmsg, sizeof out->errmsg))
    return -1;
  *owned = 1;
  return 0;
}

static int add_columns(ts_sweep *out, const ts_metric_list *l)
{
  for (size_t i = 0; i < l->n; i++) {
    if (ts_sweep_col(out, l->v[i].name) >= 0)
      continue;
    ts_metric *c = realloc(out->cols, (out->ncols + 1) * sizeof *c);
    if (!c)
      return -1;
    out->cols = c;
    c[out->ncols] = l->v[i];
    c[out->ncols].expr = NULL;
    out->ncols++;
  }
  return 0;
}

/* What one point accumulates over its replications, per reported row. */
typedef struct row {
  int klass;         /* -1: all classes */
  dvec rep;          /* per replication: nl values each */
  size_t samples;
} row;

typedef struct point_run {
  const ts_sweep_spec *spec;
  const ts_model *m;
  const ts_metric_list *l;
  const int *colmap;
  int combo, n, workers;
  row *rows;
  int nrows;
  dvec *spans;       /* [model spans]: pooled samples (ms) of every replication */
  const unsigned char *ci_col; /* [ncols]: the confidence target applies */
  ts_sample *actors; /* every actor of every replication (not spawned ones): pooled actor metrics */
  size_t nactors, cap_actors;
  int reps;
  int outside;
  double *scratch;
  size_t scratch_cap;
} point_run;

static int scratch(point_run *pr, size_t n)
{
  if (n <= pr->scratch_cap)
    return 0;
  double *v = realloc(pr->scratch, n * sizeof *v);
  if (!v)
    return -1;
  pr->scratch = v;
  pr->scratch_cap = n;
  return 0;
}

/* The sweep's copy of a class name (one per distinct name). */
static const char *intern(ts_sweep *out, const char *name)
{
  for (size_t i = 0; i < out->nnames; i++)
    if (strcmp(out->names[i], name) == 0)
      return out->names[i];
  char **v = realloc(out->names, (out->nnames + 1) * sizeof *v);
  if (!v)
    return NULL;
  out->names = v;
  v[out->nnames] = strdup(name);
  return v[out->nnames] ? v[out->nnames++] : NULL;
}

static int keep_actor(point_run *pr, const ts_actor *a, const char *klass, int r)
{
  if (pr->nactors == pr->cap_actors) {
    size_t cap = pr->cap_actors ? pr->cap_actors * 2 : 1024;
    ts_sample *v = realloc(pr->actors, cap * sizeof *v);
    if (!v)
      return -1;
    pr->actors = v;
    pr->cap_actors = cap;
  }
  pr->actors[pr->nactors++] = (ts_sample){pr->combo, r, pr->n, pr->workers, klass, a->st};
  return 0;
}

/* Whether a point lies outside the recorded range of the CPU-by-load input. */
static int outside_range(const ts_world *w)
{
  double lo, hi;
  if (!ts_model_cpu_scale_range(w->model, &lo, &hi))
    return 0;
  if (!w->model->scale_by_worker)
    return w->n < lo || w->n > hi;
  for (int i = 0; i < w->nmain; i++)
    if (w->workers[i].load > 0 && (w->workers[i].load < lo || w->workers[i].load > hi))
      return 1;
  return 0;
}

static int fail(ts_sweep *out, int rc, const point_run *pr, int r, const char *what)
{
  char where[200] = "";
  int len = snprintf(where, sizeof where, "n=%d workers=%d replication %d", pr->n, pr->workers, r);
  for (int a = 0; a < out->naxes && len > 0 && (size_t)len < sizeof where; a++)
    len += snprintf(where + len, sizeof where - (size_t)len, " axis%d=%d", a,
                    out->combo_values[(size_t)pr->combo * (size_t)out->naxes + (size_t)a]);
  snprintf(out->errmsg, sizeof out->errmsg, "%s: %s", where, what);
  return rc;
}

/* Run one replication and fold it into the rows. */
static int run_rep(point_run *pr, int r, ts_sweep *out)
{
  const ts_sweep_spec *spec = pr->spec;
  const ts_metric_list *l = pr->l;
  size_t nl = l->n;
  ts_world w;
  ts_world_spec ws = {.n = pr->n, .workers = pr->workers,
                      .seed = ts_rng_derive_seed(spec->seed, pr->n, pr->workers, r), .horizon = spec->horizon,
                      .win_t0 = spec->warmup,
                      .win_t1 = spec->window > 0 ? spec->warmup + spec->window : spec->horizon};
  int rc = ts_world_init(&w, pr->m, &ws, NULL);
  if (rc == 0)
    rc = ts_world_run(&w);
  out->events += w.sim.steps;
  if (rc != 0) {
    char why[400];
    if (rc == TS_WORLD_STUCK) {
      char who[300];
      ts_world_stuck(&w, who, sizeof who, 4);
      snprintf(why, sizeof why, "the simulation deadlocked: %s", who);
    } else {
      snprintf(why, sizeof why, "%s", ts_world_strerror(&w, rc));
    }
    ts_world_finish(&w);
    return fail(out, rc == -1 ? TS_SWEEP_NOMEM : rc, pr, r, why);
  }
  pr->outside |= outside_range(&w);
  double *wv = malloc((nl ? nl : 1) * sizeof *wv);
  if (!wv || scratch(pr, (size_t)w.nactors + 1)) {
    free(wv);
    ts_world_finish(&w);
    return fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
  }
  for (size_t i = 0; i < nl; i++)
    wv[i] = NAN;
  ts_metric_world_values(l, &w, wv);
  int bad = 0;
  for (size_t s = 0; s < pr->m->nspans && !bad; s++)
    for (size_t k = 0; k < w.spans[s].len && !bad; k++)
      bad = dvec_push(&pr->spans[s], ts_time_to_ms(w.spans[s].v[k]));
  for (int id = 0; id < w.nactors && !bad; id++) {
    const ts_actor *a = ts_world_actor(&w, id);
    if (!a->hidden) {
      const char *klass = intern(out, pr->m->classes[a->klass].name);
      bad = !klass || keep_actor(pr, a, klass, r);
    }
  }
  for (int k = 0; k < pr->nrows && !bad; k++) {
    row *rw = &pr->rows[k];
    size_t base = rw->rep.len;
    for (size_t i = 0; i < nl && !bad; i++)
      bad = dvec_push(&rw->rep, wv[i]);
    for (size_t i = 0; i < nl && !bad; i++) {
      const ts_metric *x = &l->v[i];
      if (x->source != TS_SRC_ACTOR && x->source != TS_SRC_RATIO)
        continue;
      size_t cnt = 0;
      for (int id = 0; id < w.nactors; id++) {
        const ts_actor *a = ts_world_actor(&w, id);
        if (!a->hidden && (rw->klass < 0 || a->klass == rw->klass))
          pr->scratch[cnt++] = ts_metric_actor_value(x, &a->st);
      }
      rw->rep.v[base + i] = actor_stat(pr->scratch, cnt, x->stat);
      if (i == 0)
        rw->samples += cnt;
    }
    ts_metric_exprs(l, rw->rep.v + base);
  }
  free(wv);
  ts_world_finish(&w);
  return bad ? fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory") : 0;
}

/* Whether every half-width of every row is within the target. */
static int tight(const point_run *pr)
{
  size_t nl = pr->l->n;
  for (int k = 0; k < pr->nrows; k++)
    for (size_t i = 0; i < nl; i++) {
      if (!pr->ci_col[pr->colmap[i]])
        continue;
      const double *v = pr->rows[k].rep.v + i;
      double m = mean_strided(v, nl, (size_t)pr->reps), h = ts_ci95(v, nl, (size_t)pr->reps);
      if (isnan(m) || m == 0)
        continue;
      if (isnan(h) || h > pr->spec->ci_target * fabs(m))
        return 0;
    }
  return 1;
}

static ts_point *new_point(ts_sweep *out, size_t ncols, int reps)
{
  if (out->npoints == out->cap_points) {
    size_t cap = out->cap_points ? out->cap_points * 2 : 16;
    ts_point *v = realloc(out->points, cap * sizeof *v);
    if (!v)
      return NULL;
    out->points = v;
    out->cap_points = cap;
  }
  ts_point *p = &out->points[out->npoints];
  memset(p, 0, sizeof *p);
  p->value = malloc(ncols * sizeof *p->value);
  p->mean = malloc(ncols * sizeof *p->mean);
  p->ci95 = malloc(ncols * sizeof *p->ci95);
  p->rep = malloc(ncols * (size_t)reps * sizeof *p->rep);
  if (!p->value || !p->mean || !p->ci95 || !p->rep) {
    free(p->value);
    free(p->mean);
    free(p->ci95);
    free(p->rep);
    return NULL;
  }
  for (size_t c = 0; c < ncols; c++)
    p->value[c] = p->mean[c] = p->ci95[c] = NAN;
  for (size_t c = 0; c < ncols * (size_t)reps; c++)
    p->rep[c] = NAN;
  out->npoints++;
  return p;
}

/* The rows' summaries become points. */
static int emit_points(point_run *pr, ts_sweep *out)
{
  const ts_metric_list *l = pr->l;
  size_t nl = l->n, nc = out->ncols;
  size_t need = pr->reps > 0 ? (size_t)pr->reps : 1;
  for (size_t s = 0; s < pr->m->nspans; s++)
    if (pr->spans[s].len > need)
      need = pr->spans[s].len;
  if (pr->nactors > need)
    need = pr->nactors;
  if (scratch(pr, need))
    return -1;
  for (int k = 0; k < pr->nrows; k++) {
    row *rw = &pr->rows[k];
    ts_point *p = new_point(out, nc, pr->reps);
    if (!p)
      return -1;
    p->combo = pr->combo;
    p->n = pr->n;
    p->workers = pr->workers;
    p->klass = rw->klass;
    p->class_name = strdup(rw->klass >= 0 ? pr->m->classes[rw->klass].name : "all");
    if (!p->class_name)
      return -1;
    p->replications = pr->reps;
    p->samples = rw->samples;
    p->outside = pr->outside;
    for (size_t i = 0; i < nl; i++) {
      const ts_metric *x = &l->v[i];
      int c = pr->colmap[i];
      const double *rv = rw->rep.v + i;
      for (int r = 0; r < pr->reps; r++)
        p->rep[(size_t)r * nc + (size_t)c] = rv[(size_t)r * nl];
      p->mean[c] = mean_strided(rv, nl, (size_t)pr->reps);
      p->ci95[c] = ts_ci95(rv, nl, (size_t)pr->reps);
      if (x->source == TS_SRC_ACTOR) {
        size_t cnt = 0;
        for (size_t a = 0; a < pr->nactors; a++)
          if (rw->klass < 0 || pr->actors[a].st.klass == rw->klass)
            pr->scratch[cnt++] = ts_metric_actor_value(x, &pr->actors[a].st);
        p->value[c] = actor_stat(pr->scratch, cnt, x->stat);
      } else if (x->source == TS_SRC_SPAN && x->stat >= TS_SPAN_MEAN && !x->per_replication) {
        const dvec *sv = &pr->spans[x->id];
        size_t cnt = finite(sv->v, 1, sv->len, pr->scratch);
        static const double q[] = {0, 0, 0, 0.5, 0.95, 0.99};
        p->value[c] = cnt == 0 ? NAN : x->stat == TS_SPAN_MEAN ? gsl_stats_mean(pr->scratch, 1, cnt)
                                                               : quantile(pr->scratch, cnt, q[x->stat]);
      } else if (x->source != TS_SRC_RATIO) {
        p->value[c] = median_strided(rv, nl, (size_t)pr->reps, pr->scratch);
      }
    }
  }
  return 0;
}

static void free_run(point_run *pr)
{
  for (int k = 0; k < pr->nrows; k++)
    free(pr->rows[k].rep.v);
  free(pr->actors);
  free(pr->rows);
  for (size_t s = 0; pr->spans && s < pr->m->nspans; s++)
    free(pr->spans[s].v);
  free(pr->spans);
  free(pr->scratch);
}

static int run_point(point_run *pr, size_t index, size_t total, ts_sweep *out)
{
  const ts_model *m = pr->m;
  const ts_sweep_spec *spec = pr->spec;
  int nrep = 0;
  for (size_t k = 0; k < m->nclasses; k++)
    nrep += m->classes[k].report;
  pr->nrows = nrep > 0 ? nrep : 1;
  pr->rows = calloc((size_t)pr->nrows, sizeof *pr->rows);
  pr->spans = calloc(m->nspans + 1, sizeof *pr->spans);
  if (!pr->rows || !pr->spans)
    return fail(out, TS_SWEEP_NOMEM, pr, 0, "out of memory");
  int k = 0;
  for (size_t c = 0; c < m->nclasses; c++)
    if (m->classes[c].report || nrep == 0) {
      pr->rows[k].klass = nrep ? (int)c : -1;
      if (++k == pr->nrows)
        break;
    }
  int batch = spec->replications, cap = spec->ci_target > 0 ? (spec->ci_max > 0 ? spec->ci_max : 1000) : batch;
  if (spec->ci_target > 0 && batch < 2)
    batch = 2;
  for (;;) {
    for (int r = pr->reps; r < pr->reps + batch && r < cap; r++) {
      if (spec->should_stop && spec->should_stop(spec->progress_data))
        return fail(out, TS_SWEEP_STOPPED, pr, r, "stopped");
      int rc = run_rep(pr, r, out);
      if (rc != 0)
        return rc;
      if (spec->progress && spec->progress(spec->progress_data, index, total, r))
        return fail(out, TS_SWEEP_STOPPED, pr, r, "stopped");
    }
    pr->reps = pr->reps + batch < cap ? pr->reps + batch : cap;
    if (spec->ci_target <= 0 || pr->reps >= cap || tight(pr))
      break;
  }
  if (pr->reps > out->max_replications)
    out->max_replications = pr->reps;
  if (emit_points(pr, out))
    return fail(out, TS_SWEEP_NOMEM, pr, 0, "out of memory");
  if (spec->keep_samples && pr->nactors > 0) {
    if (out->nsamples + pr->nactors > out->cap_samples) {
      size_t cap = out->cap_samples ? out->cap_samples : 1024;
      while (cap < out->nsamples + pr->nactors)
        cap *= 2;
      ts_sample *v = realloc(out->samples, cap * sizeof *v);
      if (!v)
        return fail(out, TS_SWEEP_NOMEM, pr, 0, "out of memory");
      out->samples = v;
      out->cap_samples = cap;
    }
    memcpy(out->samples + out->nsamples, pr->actors, pr->nactors * sizeof *pr->actors);
    out->nsamples += pr->nactors;
  }
  out->points_done++;
  return 0;
}

/* wave_ratio: wave_ms over wave_ms at the smallest n of the same combination,
 * workers and class that has actors; per replication the same, replication
 * by replication. */
static void ratios(ts_sweep *s)
{
  int wave = ts_sweep_col(s, "wave_ms"), ratio = ts_sweep_col(s, "wave_ratio");
  if (wave < 0 || ratio < 0)
    return;
  size_t nc = s->ncols;
  for (size_t i = 0; i < s->npoints; i++) {
    ts_point *p = &s->points[i];
    const ts_point *base = NULL;
    for (size_t j = 0; j < s->npoints; j++) {
      const ts_point *q = &s->points[j];
      if (q->combo == p->combo && q->workers == p->workers && strcmp(q->class_name, p->class_name) == 0 &&
          q->samples > 0 && (!base || q->n < base->n))
        base = q;
    }
    double b = base ? base->value[wave] : 0;
    p->value[ratio] = b > 0 ? p->value[wave] / b : 0;
    int reps = base && base->replications < p->replications ? base->replications : p->replications;
    for (int r = 0; r < p->replications; r++) {
      double bw = base && r < reps ? base->rep[(size_t)r * nc + (size_t)wave] : NAN;
      p->rep[(size_t)r * nc + (size_t)ratio] = bw > 0 ? p->rep[(size_t)r * nc + (size_t)wave] / bw : NAN;
    }
    p->mean[ratio] = mean_strided(p->rep + ratio, nc, (size_t)p->replications);
    p->ci95[ratio] = ts_ci95(p->rep + ratio, nc, (size_t)p->replications);
  }
}

int ts_sweep_run(const ts_sweep_spec *spec, ts_sweep *out)
{
  memset(out, 0, sizeof *out);
  size_t nco = ncombos(spec), total = ts_sweep_npoints(spec), index = 0;
  int *values = calloc((size_t)spec->naxes + 1, sizeof *values);
  out->naxes = spec->naxes;
  out->ncombos = nco;
  out->combo_values = calloc(nco * (size_t)spec->naxes + 1, sizeof *out->combo_values);
  if (!values || !out->combo_values) {
    free(values);
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    return TS_SWEEP_NOMEM;
  }
  for (size_t c = 0; c < nco; c++)
    combo_values(spec, c, out->combo_values + c * (size_t)spec->naxes);
  int rc = 0;
  /* pass 1: the columns, the union over the combinations' models */
  for (size_t c = 0; c < nco && rc == 0; c++) {
    ts_model m;
    int owned;
    ts_metric_list l;
    if (combo_model(spec, out->combo_values + c * (size_t)spec->naxes, &m, &owned, out)) {
      rc = TS_SWEEP_MODEL;
      break;
    }
    if (ts_metric_list_build(&m, &l, out->errmsg, sizeof out->errmsg) != 0)
      rc = TS_SWEEP_MODEL;
    else if (add_columns(out, &l))
      rc = TS_SWEEP_NOMEM;
    ts_metric_list_finish(&l);
    if (owned)
      ts_model_finish(&m);
  }
  /* the columns a confidence target applies to */
  unsigned char *ci_col = calloc(out->ncols + 1, 1);
  if (!ci_col && rc == 0)
    rc = TS_SWEEP_NOMEM;
  if (ci_col && spec->ci_cols) {
    int *cols = malloc((out->ncols + 1) * sizeof *cols);
    int k = cols ? spec->ci_cols(spec->ctx, out, cols, (int)out->ncols) : 0;
    for (int i = 0; i < k; i++)
      ci_col[cols[i]] = 1;
    free(cols);
  } else if (ci_col) {
    memset(ci_col, 1, out->ncols);
  }
  /* pass 2: run */
  for (size_t c = 0; c < nco && rc == 0; c++) {
    ts_model m;
    int owned;
    ts_metric_list l;
    memcpy(values, out->combo_values + c * (size_t)spec->naxes, (size_t)spec->naxes * sizeof *values);
    if (combo_model(spec, values, &m, &owned, out)) {
      rc = TS_SWEEP_MODEL;
      break;
    }
    int *colmap = NULL;
    if (ts_metric_list_build(&m, &l, out->errmsg, sizeof out->errmsg) != 0) {
      rc = TS_SWEEP_MODEL;
    } else {
      colmap = malloc((l.n ? l.n : 1) * sizeof *colmap);
      if (!colmap)
        rc = TS_SWEEP_NOMEM;
      for (size_t i = 0; colmap && i < l.n; i++)
        colmap[i] = ts_sweep_col(out, l.v[i].name);
      for (size_t wi = 0; wi < spec->nw && rc == 0; wi++)
        for (size_t ni = 0; ni < spec->nn && rc == 0; ni++) {
          point_run pr = {.spec = spec, .m = &m, .l = &l, .colmap = colmap, .combo = (int)c, .n = spec->ns[ni],
                          .workers = spec->workers[wi], .ci_col = ci_col};
          rc = run_point(&pr, index++, total, out);
          free_run(&pr);
        }
      ts_metric_list_finish(&l);
    }
    free(colmap);
    if (owned)
      ts_model_finish(&m);
  }
  free(values);
  free(ci_col);
  if (rc == 0)
    ratios(out);
  return rc;
}

void ts_sweep_finish(ts_sweep *s)
{
  for (size_t i = 0; i < s->npoints; i++) {
    free(s->points[i].value);
    free(s->points[i].mean);
    free(s->points[i].ci95);
    free(s->points[i].rep);
    free(s->points[i].class_name);
  }
  for (size_t i = 0; i < s->nnames; i++)
    free(s->names[i]);
  free(s->names);
  free(s->points);
  free(s->samples);
  free(s->cols);
  free(s->combo_values);
  memset(s, 0, sizeof *s);
}

const ts_point *ts_sweep_find(const ts_sweep *s, int combo, int n, int workers, const char *class_name)
{
  for (size_t i = 0; i < s->npoints; i++) {
    const ts_point *p = &s->points[i];
    if (p->combo == combo && p->n == n && p->workers == workers &&
        (!class_name || strcmp(p->class_name, class_name) == 0))
      return p;
  }
  return NULL;
}

int ts_sweep_col(const ts_sweep *s, const char *name)
{
  for (size_t i = 0; i < s->ncols; i++)
    if (strcmp(s->cols[i].name, name) == 0)
      return (int)i;
  return -1;
}
