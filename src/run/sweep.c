/* The sweep's runner. Points are taken in the sweep's order (combination,
 * then workers, then n); each point runs its replications in batches (one
 * batch, or more under a confidence target). A replication is a task: it
 * builds and runs a world and reduces it to a rep_out (its per-row values,
 * span samples, pooled actor values when the point needs them, its samples
 * text). Tasks run on the calling thread (one job) or on worker threads,
 * which take the earliest queued task in the sweep's order; the calling
 * thread folds the rep_outs into their points strictly in that order, so
 * every sum, every pooled array and every line of samples text comes out as
 * one thread would make it. Invariant: the fold cursor (cur, r) is the
 * earliest replication not yet folded; every task before it is folded and
 * freed. */
#include "run/sweep.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
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

static double max_of(const double *v, size_t n)
{
  double m = v[0];
  for (size_t i = 1; i < n; i++)
    m = v[i] > m ? v[i] : m;
  return m;
}

static double min_of(const double *v, size_t n)
{
  double m = v[0];
  for (size_t i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

/* GSL's formulas on the order statistics: the median of sorted data is
 * s[(n-1)/2] (odd n) or (s[(n-1)/2] + s[n/2]) / 2.0; the f-quantile is
 * (1 - d) s[l] + d s[l+1] with l = (int)(f (n-1)) and d = f (n-1) - l, or
 * s[n-1] when l = n - 1. Selection finds the same order statistics as
 * sorting (the k-th smallest value is unique whatever the order of equal
 * values), and the arithmetic is GSL's, so the result is bit for bit the
 * same. */
double ts_quantile(double *v, size_t k, double q)
{
  /* gsl_stats_select leaves v partitioned around the k-th smallest (every
   * v[i] <= it before it, >= it after), so the order statistic beside it is
   * the largest before it or the smallest after it */
  if (k == 0)
    return 0.0;
  if (q == 0.5) {
    size_t lhs = (k - 1) / 2, rhs = k / 2;
    double r = gsl_stats_select(v, 1, k, rhs);
    if (lhs == rhs)
      return r;
    return (max_of(v, rhs) + r) / 2.0; /* the lhs-th smallest: the largest below rhs */
  }
  const double index = q * (double)(k - 1);
  const size_t lhs = (size_t)(int)index;
  const double delta = index - (double)lhs;
  double l = gsl_stats_select(v, 1, k, lhs);
  if (lhs == k - 1)
    return l;
  return (1 - delta) * l + delta * min_of(v + lhs + 1, k - lhs - 1);
}

double ts_quantile_same(double c, size_t k, double q)
{
  if (k == 0)
    return 0.0;
  if (q == 0.5)
    return (k - 1) / 2 == k / 2 ? c : (c + c) / 2.0;
  const double index = q * (double)(k - 1);
  const size_t lhs = (size_t)(int)index;
  const double delta = index - (double)lhs;
  return lhs == k - 1 ? c : (1 - delta) * c + delta * c;
}

/* The q-quantile (0.5: the median) of v[0..k); NAN when empty. */
static double quantile(double *v, size_t k, double q)
{
  return k == 0 ? NAN : ts_quantile(v, k, q);
}

/* A statistic of the k values v (reordered): 0 median, 1 p95, 2 mean, 3
 * p99, 4 max; NaN without any (a class with no actors, or none that
 * finished for wave_ms and done_ms). same: every value equals v[0], so a
 * quantile needs no selection (GSL's arithmetic on equal order statistics). */
static double actor_stat(double *v, size_t k, int stat, int same)
{
  if (k == 0)
    return NAN;
  if (stat == 2)
    return gsl_stats_mean(v, 1, k);
  static const double q[] = {0.5, 0.95, 0, 0.99, 1};
  return same ? ts_quantile_same(v[0], k, q[stat]) : ts_quantile(v, k, q[stat]);
}

/* The counted actors of class klass (-1: all). */
static size_t counted(const ts_world *w, int klass)
{
  size_t n = 0;
  for (int id = 0; id < w->nactors; id++) {
    const ts_actor *a = ts_world_actor(w, id);
    n += ts_world_counted(a) && (klass < 0 || a->klass == klass);
  }
  return n;
}

/* Actor quantity q of every counted actor of class klass (-1: all) into v,
 * in actor order, leaving out NaN (an actor still running has no wave_ms or
 * done_ms). Returns how many went in; *all counts the NaN too, *same says
 * whether they are all equal. */
static size_t actor_values(const ts_world *w, int q, int klass, double *v, size_t *all, int *same)
{
  size_t cnt = 0;
  *all = 0;
  *same = 1;
  for (int id = 0; id < w->nactors; id++) {
    const ts_actor *a = ts_world_actor(w, id);
    if (!ts_world_counted(a) || (klass >= 0 && a->klass != klass))
      continue;
    double x = ts_metric_world_actor(q, w, id);
    ++*all;
    if (isnan(x))
      continue;
    if (cnt > 0 && (x != v[0] || signbit(x) != signbit(v[0])))
      *same = 0;
    v[cnt++] = x;
  }
  return cnt;
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

int ts_sweep_cores(void)
{
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n >= 1 ? (int)(n < 1024 ? n : 1024) : 1;
}

/* ---- growable arrays and text ---- */

typedef struct dvec {
  double *v;
  size_t len, cap;
} dvec;

static int dvec_reserve(dvec *d, size_t more)
{
  if (d->len + more <= d->cap)
    return 0;
  size_t cap = d->cap ? d->cap : 64;
  while (cap < d->len + more)
    cap *= 2;
  double *v = realloc(d->v, cap * sizeof *v);
  if (!v)
    return -1;
  d->v = v;
  d->cap = cap;
  return 0;
}

static int dvec_append(dvec *d, const double *x, size_t n)
{
  if (n == 0)
    return 0;
  if (dvec_reserve(d, n))
    return -1;
  memcpy(d->v + d->len, x, n * sizeof *x);
  d->len += n;
  return 0;
}

int ts_text_drain(ts_text *t)
{
  if (t->flush && t->len > 0 && !t->failed) {
    if (t->flush(t->ctx, t->v, t->len) != 0)
      t->failed = 1;
    t->len = 0;
  }
  return t->failed ? -1 : 0;
}

int ts_text_reserve(ts_text *t, size_t more)
{
  if (t->failed)
    return -1;
  if (t->flush && t->len >= TS_TEXT_FLUSH && ts_text_drain(t))
    return -1;
  if (t->len + more <= t->cap)
    return 0;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + more)
    cap *= 2;
  char *v = realloc(t->v, cap);
  if (!v) {
    t->failed = 1;
    return -1;
  }
  t->v = v;
  t->cap = cap;
  return 0;
}

void ts_text_finish(ts_text *t)
{
  free(t->v);
  t->v = NULL;
  t->len = t->cap = 0;
}

/* ---- the sweep's points and columns ---- */

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

/* One axis combination for the whole sweep: its model, metric list, the
 * list's columns in the sweep, and the distinct per-actor quantities its
 * actor metrics read (what a point pools). */
typedef struct combo_run {
  ts_model m;
  int have_model, owned, have_list;
  ts_metric_list l;
  int *colmap;          /* [l.n] */
  int *qid;             /* [nq]: ts_metric.id of each distinct actor quantity */
  int *qof;             /* [l.n]: metric i's index into qid, or -1 */
  int nq;
} combo_run;

static void combo_finish(combo_run *cr)
{
  if (cr->have_list)
    ts_metric_list_finish(&cr->l);
  if (cr->have_model && cr->owned)
    ts_model_finish(&cr->m);
  free(cr->colmap);
  free(cr->qid);
  free(cr->qof);
}

/* Build combination c's model and list (pass 1: the columns). */
static int combo_setup(const ts_sweep_spec *spec, ts_sweep *out, size_t c, combo_run *cr)
{
  memset(cr, 0, sizeof *cr);
  const int *values = out->combo_values + c * (size_t)spec->naxes;
  if (!spec->model_of) {
    cr->m = *spec->model;
  } else {
    if (spec->model_of(spec->ctx, values, &cr->m, out->errmsg, sizeof out->errmsg))
      return TS_SWEEP_MODEL;
    cr->owned = 1;
  }
  cr->have_model = 1;
  if (ts_metric_list_build(&cr->m, &cr->l, out->errmsg, sizeof out->errmsg) != 0)
    return TS_SWEEP_MODEL;
  cr->have_list = 1;
  if (add_columns(out, &cr->l))
    return TS_SWEEP_NOMEM;
  size_t n = cr->l.n ? cr->l.n : 1;
  cr->qid = malloc(n * sizeof *cr->qid);
  cr->qof = malloc(n * sizeof *cr->qof);
  if (!cr->qid || !cr->qof)
    return TS_SWEEP_NOMEM;
  for (size_t i = 0; i < cr->l.n; i++) {
    cr->qof[i] = -1;
    if (cr->l.v[i].source != TS_SRC_ACTOR)
      continue;
    int q = 0;
    while (q < cr->nq && cr->qid[q] != cr->l.v[i].id)
      q++;
    if (q == cr->nq)
      cr->qid[cr->nq++] = cr->l.v[i].id;
    cr->qof[i] = q;
  }
  return 0;
}

static int combo_colmap(const ts_sweep *out, combo_run *cr)
{
  cr->colmap = malloc((cr->l.n ? cr->l.n : 1) * sizeof *cr->colmap);
  if (!cr->colmap)
    return TS_SWEEP_NOMEM;
  for (size_t i = 0; i < cr->l.n; i++)
    cr->colmap[i] = ts_sweep_col(out, cr->l.v[i].name);
  return 0;
}

/* ---- one point's replications ---- */

/* What one point accumulates over its replications, per reported row. */
typedef struct row {
  int klass;         /* -1: all classes */
  dvec rep;          /* per replication: nl values each */
  size_t samples;
} row;

typedef struct point_run {
  const ts_sweep_spec *spec;
  const combo_run *cr;
  int combo, n, workers;
  size_t index;      /* in the sweep's order */
  row *rows;
  int nrows;
  int pool;          /* the point's actor metrics need every actor of every replication */
  dvec *spans;       /* [model spans]: pooled samples (ms) of every replication */
  dvec *q;           /* [cr->nq]: pooled actor values, replication by replication (pool) */
  int *qk;           /* class of each pooled actor */
  size_t nactors, cap_actors;
  int reps;          /* replications folded */
  int target;        /* replications asked for so far */
  int queued;        /* replications made tasks so far (<= target) */
  int cap;           /* the most it may take */
  int outside;
  double *scratch;
  size_t scratch_cap;
} point_run;

/* One replication reduced to what its point folds in. */
typedef struct rep_out {
  int rc;            /* 0, or a TS_SWEEP_* failure described in why */
  char why[400];
  uint64_t events;
  int outside;
  double *rows;      /* [nrows * nl] */
  size_t *rowsamples;/* [nrows] */
  dvec *spans;       /* [model spans] */
  double *q;         /* [nq * nactors] (pool) */
  int *qk;           /* [nactors] (pool) */
  size_t nactors;
  ts_text text;      /* its samples */
} rep_out;

static void rep_out_finish(rep_out *o, const point_run *pr)
{
  free(o->rows);
  free(o->rowsamples);
  for (size_t s = 0; o->spans && s < pr->cr->m.nspans; s++)
    free(o->spans[s].v);
  free(o->spans);
  free(o->q);
  free(o->qk);
  ts_text_finish(&o->text);
}

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

/* Whether metric x is a statistic over actors (its value comes from each actor's). */
static int per_actor(const ts_metric *x)
{
  return x->source == TS_SRC_ACTOR || x->source == TS_SRC_RATIO;
}

/* Run replication r of point pr into o (any thread: pr and out are only read). */
static void run_rep(const point_run *pr, int r, const ts_sweep *out, rep_out *o)
{
  const ts_sweep_spec *spec = pr->spec;
  const ts_metric_list *l = &pr->cr->l;
  const ts_model *m = &pr->cr->m;
  size_t nl = l->n;
  if (spec->should_stop && spec->should_stop(spec->progress_data)) {
    o->rc = TS_SWEEP_STOPPED;
    snprintf(o->why, sizeof o->why, "stopped");
    return;
  }
  ts_world w;
  ts_world_spec ws = {.n = pr->n, .workers = pr->workers,
                      .seed = ts_rng_derive_seed(spec->seed, pr->n, pr->workers, r), .horizon = spec->horizon,
                      .win_t0 = spec->warmup,
                      .win_t1 = spec->window > 0 ? spec->warmup + spec->window : spec->horizon};
  int rc = ts_world_init(&w, m, &ws, NULL);
  if (rc == 0)
    rc = ts_world_run(&w);
  o->events = w.sim.steps;
  if (rc != 0) {
    if (rc == TS_WORLD_STUCK) {
      char who[300];
      ts_world_stuck(&w, who, sizeof who, 4);
      snprintf(o->why, sizeof o->why, "the simulation deadlocked: %s", who);
    } else {
      snprintf(o->why, sizeof o->why, "%s", ts_world_strerror(&w, rc));
    }
    ts_world_finish(&w);
    o->rc = rc == -1 ? TS_SWEEP_NOMEM : rc;
    return;
  }
  o->outside = outside_range(&w);
  ts_world_trim(&w); /* the queues' memory goes before the statistics' comes */
  size_t kept = counted(&w, -1);
  double *wv = malloc((nl ? nl : 1) * sizeof *wv);
  double *sc = malloc(((size_t)w.nactors + 1) * sizeof *sc);
  unsigned char *got = malloc(nl + 1); /* the row's metrics computed so far */
  o->rows = malloc(((size_t)pr->nrows * nl + 1) * sizeof *o->rows);
  o->rowsamples = calloc((size_t)pr->nrows, sizeof *o->rowsamples);
  o->spans = calloc(m->nspans + 1, sizeof *o->spans);
  int bad = !wv || !sc || !got || !o->rows || !o->rowsamples || !o->spans;
  if (!bad) {
    for (size_t i = 0; i < nl; i++)
      wv[i] = NAN;
    ts_metric_world_values(l, &w, wv);
  }
  for (size_t s = 0; !bad && s < m->nspans; s++) {
    bad = dvec_reserve(&o->spans[s], w.spans[s].len);
    for (size_t k = 0; !bad && k < w.spans[s].len; k++)
      o->spans[s].v[o->spans[s].len++] = ts_time_to_ms(w.spans[s].v[k]);
  }
  if (!bad && pr->pool) { /* every kept actor's value of each quantity, in actor order */
    int nq = pr->cr->nq;
    o->q = malloc(((size_t)nq * kept + 1) * sizeof *o->q);
    o->qk = malloc((kept + 1) * sizeof *o->qk);
    bad = !o->q || !o->qk;
    for (int id = 0, k = 0; !bad && id < w.nactors; id++) {
      const ts_actor *a = ts_world_actor(&w, id);
      if (!ts_world_counted(a))
        continue;
      o->qk[k] = a->klass;
      for (int q = 0; q < nq; q++)
        o->q[(size_t)q * kept + (size_t)k] = ts_metric_world_actor(pr->cr->qid[q], &w, id);
      k++;
    }
    o->nactors = kept;
  }
  for (int k = 0; k < pr->nrows && !bad; k++) {
    int klass = pr->rows[k].klass;
    double *v = o->rows + (size_t)k * nl;
    memcpy(v, wv, nl * sizeof *v);
    memset(got, 0, nl);
    int64_t row_all = -1; /* the row's counted actors, once known */
    for (size_t i = 0; i < nl; i++) {
      const ts_metric *x = &l->v[i];
      if (got[i] || !per_actor(x))
        continue;
      /* one pass over the actors per quantity, for every statistic of it
       * (the mean first: it is taken in actor order) */
      size_t all, cnt;
      int same, zero = ts_metric_world_actor_zero(x->id, &w);
      if (zero) { /* 0 for every actor: no pass over them but to count */
        if (row_all < 0)
          row_all = (int64_t)counted(&w, klass);
        all = cnt = (size_t)row_all;
        same = 1;
      } else {
        cnt = actor_values(&w, x->id, klass, sc, &all, &same);
        row_all = (int64_t)all;
      }
      if (i == 0)
        o->rowsamples[k] += all;
      for (int mean_pass = 1; mean_pass >= 0; mean_pass--)
        for (size_t j = i; j < nl; j++) {
          const ts_metric *y = &l->v[j];
          if (!got[j] && per_actor(y) && y->id == x->id && (y->stat == 2) == mean_pass) {
            /* every statistic of zeros is +0 (GSL's mean and quantiles alike) */
            v[j] = zero ? (cnt ? 0.0 : NAN) : actor_stat(sc, cnt, y->stat, same);
            got[j] = 1;
          }
        }
    }
    ts_metric_exprs(l, v);
  }
  if (!bad && spec->format_samples &&
      (spec->format_samples(spec->samples_ctx, out, &w, pr->combo, r, &o->text) || o->text.failed)) {
    o->rc = TS_SWEEP_NOMEM;
    snprintf(o->why, sizeof o->why, "%s", o->text.failed ? "cannot write the samples" : "out of memory");
  }
  free(wv);
  free(sc);
  free(got);
  ts_world_finish(&w);
  if (bad) {
    o->rc = TS_SWEEP_NOMEM;
    snprintf(o->why, sizeof o->why, "out of memory");
  }
}

/* Fold replication r's o into pr (in the sweep's order). */
static int fold(point_run *pr, int r, rep_out *o, ts_sweep *out)
{
  const ts_sweep_spec *spec = pr->spec;
  size_t nl = pr->cr->l.n;
  out->events += o->events;
  if (o->rc != 0)
    return fail(out, o->rc, pr, r, o->why);
  pr->outside |= o->outside;
  for (size_t s = 0; s < pr->cr->m.nspans; s++)
    if (dvec_append(&pr->spans[s], o->spans[s].v, o->spans[s].len))
      return fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
  if (pr->pool) {
    for (int q = 0; q < pr->cr->nq; q++)
      if (dvec_append(&pr->q[q], o->q + (size_t)q * o->nactors, o->nactors))
        return fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
    if (pr->nactors + o->nactors > pr->cap_actors) {
      size_t cap = pr->cap_actors ? pr->cap_actors : 1024;
      while (cap < pr->nactors + o->nactors)
        cap *= 2;
      int *v = realloc(pr->qk, cap * sizeof *v);
      if (!v)
        return fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
      pr->qk = v;
      pr->cap_actors = cap;
    }
    memcpy(pr->qk + pr->nactors, o->qk, o->nactors * sizeof *o->qk);
    pr->nactors += o->nactors;
  }
  for (int k = 0; k < pr->nrows; k++) {
    if (dvec_append(&pr->rows[k].rep, o->rows + (size_t)k * nl, nl))
      return fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
    pr->rows[k].samples += o->rowsamples[k];
  }
  if (spec->write_samples) {
    if (o->text.flush) {
      if (ts_text_drain(&o->text))
        return fail(out, TS_SWEEP_NOMEM, pr, r, "cannot write the samples");
    } else if (o->text.len > 0 && spec->write_samples(spec->samples_ctx, o->text.v, o->text.len)) {
      return fail(out, TS_SWEEP_NOMEM, pr, r, "cannot write the samples");
    }
  }
  return 0;
}

/* Whether every half-width of every row is within the target. */
static int tight(const point_run *pr, const unsigned char *ci_col)
{
  size_t nl = pr->cr->l.n;
  for (int k = 0; k < pr->nrows; k++)
    for (size_t i = 0; i < nl; i++) {
      if (!ci_col[pr->cr->colmap[i]])
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

ts_point *ts_sweep_add_point(ts_sweep *out, int reps)
{
  size_t ncols = out->ncols;
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
  p->value = malloc((ncols + 1) * sizeof *p->value);
  p->mean = malloc((ncols + 1) * sizeof *p->mean);
  p->ci95 = malloc((ncols + 1) * sizeof *p->ci95);
  p->rep = malloc((ncols * (size_t)reps + 1) * sizeof *p->rep);
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
  const ts_metric_list *l = &pr->cr->l;
  const ts_model *m = &pr->cr->m;
  size_t nl = l->n, nc = out->ncols;
  size_t need = pr->reps > 0 ? (size_t)pr->reps : 1;
  for (size_t s = 0; s < m->nspans; s++)
    if (pr->spans[s].len > need)
      need = pr->spans[s].len;
  if (pr->nactors > need)
    need = pr->nactors;
  if (scratch(pr, need))
    return -1;
  for (int k = 0; k < pr->nrows; k++) {
    row *rw = &pr->rows[k];
    ts_point *p = ts_sweep_add_point(out, pr->reps);
    if (!p)
      return -1;
    p->combo = pr->combo;
    p->n = pr->n;
    p->workers = pr->workers;
    p->klass = rw->klass;
    p->index = pr->index;
    p->class_name = strdup(rw->klass >= 0 ? m->classes[rw->klass].name : "all");
    if (!p->class_name)
      return -1;
    p->replications = pr->reps;
    p->samples = rw->samples;
    p->outside = pr->outside;
    for (size_t i = 0; i < nl; i++) {
      const ts_metric *x = &l->v[i];
      int c = pr->cr->colmap[i];
      const double *rv = rw->rep.v + i;
      for (int r = 0; r < pr->reps; r++)
        p->rep[(size_t)r * nc + (size_t)c] = rv[(size_t)r * nl];
      p->mean[c] = mean_strided(rv, nl, (size_t)pr->reps);
      p->ci95[c] = ts_ci95(rv, nl, (size_t)pr->reps);
      if (x->source == TS_SRC_ACTOR && !pr->pool) {
        /* one replication: pooling its actors is what its row value did */
        p->value[c] = rv[0];
      } else if (x->source == TS_SRC_ACTOR) {
        const dvec *qv = &pr->q[pr->cr->qof[i]];
        size_t cnt = 0;
        for (size_t a = 0; a < pr->nactors; a++)
          if ((rw->klass < 0 || pr->qk[a] == rw->klass) && !isnan(qv->v[a]))
            pr->scratch[cnt++] = qv->v[a];
        p->value[c] = actor_stat(pr->scratch, cnt, x->stat, 0);
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

static void point_finish(point_run *pr)
{
  if (!pr)
    return;
  for (int k = 0; pr->rows && k < pr->nrows; k++)
    free(pr->rows[k].rep.v);
  free(pr->rows);
  for (size_t s = 0; pr->spans && s < pr->cr->m.nspans; s++)
    free(pr->spans[s].v);
  free(pr->spans);
  for (int q = 0; pr->q && q < pr->cr->nq; q++)
    free(pr->q[q].v);
  free(pr->q);
  free(pr->qk);
  free(pr->scratch);
  free(pr);
}

/* A point ready to run: its rows (one per reported class, or one for all). */
static point_run *point_open(const ts_sweep_spec *spec, const combo_run *cr, int combo, int n, int workers,
                             size_t index)
{
  point_run *pr = calloc(1, sizeof *pr);
  if (!pr)
    return NULL;
  const ts_model *m = &cr->m;
  pr->spec = spec;
  pr->cr = cr;
  pr->combo = combo;
  pr->n = n;
  pr->workers = workers;
  pr->index = index;
  int nrep = 0;
  for (size_t k = 0; k < m->nclasses; k++)
    nrep += m->classes[k].report;
  pr->nrows = nrep > 0 ? nrep : 1;
  pr->rows = calloc((size_t)pr->nrows, sizeof *pr->rows);
  pr->spans = calloc(m->nspans + 1, sizeof *pr->spans);
  pr->q = calloc((size_t)cr->nq + 1, sizeof *pr->q);
  if (!pr->rows || !pr->spans || !pr->q) {
    point_finish(pr);
    return NULL;
  }
  int k = 0;
  for (size_t c = 0; c < m->nclasses; c++)
    if (m->classes[c].report || nrep == 0) {
      pr->rows[k].klass = nrep ? (int)c : -1;
      if (++k == pr->nrows)
        break;
    }
  int batch = spec->replications;
  pr->cap = spec->ci_target > 0 ? (spec->ci_max > 0 ? spec->ci_max : 1000) : batch;
  /* with one replication, a point's pooled actor values are its replication's */
  pr->pool = !(spec->ci_target <= 0 && spec->replications == 1);
  return pr;
}

/* The replications of pr's next batch: [reps, target). Returns how many (0: the point is complete). */
static int next_batch(point_run *pr, const unsigned char *ci_col)
{
  const ts_sweep_spec *spec = pr->spec;
  int batch = spec->replications;
  if (spec->ci_target > 0 && batch < 2)
    batch = 2;
  if (pr->target > 0 && (spec->ci_target <= 0 || pr->reps >= pr->cap || tight(pr, ci_col)))
    return 0;
  int to = pr->reps + batch < pr->cap ? pr->reps + batch : pr->cap;
  int added = to - pr->target;
  pr->target = to;
  return added > 0 ? added : 0;
}

/* ---- tasks and threads ---- */

typedef struct task {
  point_run *pr;
  size_t seq;        /* the point's position among the points run */
  int rep;
  int state;         /* QUEUED, RUNNING, DONE */
  rep_out out;
} task;

enum { QUEUED, RUNNING, DONE };

typedef struct runner {
  const ts_sweep_spec *spec;
  ts_sweep *out;
  pthread_mutex_t mu;
  pthread_cond_t work, done;
  task **t;          /* tasks not yet folded */
  size_t nt, cap;
  point_run **open;  /* [points run]: opened and not yet emitted */
  size_t nopen;
  size_t cur_seq;    /* the fold cursor: the task folded next (with threads, under mu) */
  int cur_rep;
  int quit;
  int threads;
} runner;

static task *task_add(runner *R, point_run *pr, size_t seq, int rep)
{
  if (R->nt == R->cap) {
    size_t cap = R->cap ? R->cap * 2 : 16;
    task **v = realloc(R->t, cap * sizeof *v);
    if (!v)
      return NULL;
    R->t = v;
    R->cap = cap;
  }
  task *t = calloc(1, sizeof *t);
  if (!t)
    return NULL;
  t->pr = pr;
  t->seq = seq;
  t->rep = rep;
  t->state = QUEUED;
  R->t[R->nt++] = t;
  return t;
}

/* The earliest queued task in the sweep's order, or NULL. */
static task *earliest_queued(runner *R)
{
  task *best = NULL;
  for (size_t i = 0; i < R->nt; i++) {
    task *t = R->t[i];
    if (t->state == QUEUED && (!best || t->seq < best->seq || (t->seq == best->seq && t->rep < best->rep)))
      best = t;
  }
  return best;
}

static int text_flush(void *ctx, const char *p, size_t n)
{
  const ts_sweep_spec *spec = ctx;
  return spec->write_samples(spec->samples_ctx, p, n);
}

/* Run task t. Its samples stream into write_samples when it is the one
 * folded next (everything before it is written, and the calling thread
 * waits for it, writing nothing meanwhile); else they wait in memory for
 * their turn. Called with R->mu held when there are threads. */
static void task_run(runner *R, task *t, int at_cursor)
{
  if (at_cursor && R->spec->write_samples) {
    t->out.text.flush = text_flush;
    t->out.text.ctx = (void *)R->spec;
  }
  run_rep(t->pr, t->rep, R->out, &t->out);
}

static void *worker_main(void *arg)
{
  runner *R = arg;
  pthread_mutex_lock(&R->mu);
  for (;;) {
    if (R->quit)
      break;
    task *t = earliest_queued(R);
    if (!t) {
      pthread_cond_wait(&R->work, &R->mu);
      continue;
    }
    t->state = RUNNING;
    int at_cursor = t->seq == R->cur_seq && t->rep == R->cur_rep;
    pthread_mutex_unlock(&R->mu);
    task_run(R, t, at_cursor);
    pthread_mutex_lock(&R->mu);
    t->state = DONE;
    pthread_cond_broadcast(&R->done);
  }
  pthread_mutex_unlock(&R->mu);
  return NULL;
}

/* Wait for task t (queued or running) to be done; with no threads, run it here. */
static void task_wait(runner *R, task *t)
{
  if (R->threads == 0) {
    if (t->state == QUEUED) {
      t->state = RUNNING;
      task_run(R, t, 1);
      t->state = DONE;
    }
    return;
  }
  pthread_mutex_lock(&R->mu);
  while (t->state != DONE)
    pthread_cond_wait(&R->done, &R->mu);
  pthread_mutex_unlock(&R->mu);
}

/* Remove folded task t from the list and free it. */
static void task_drop(runner *R, task *t)
{
  if (R->threads)
    pthread_mutex_lock(&R->mu);
  for (size_t i = 0; i < R->nt; i++)
    if (R->t[i] == t) {
      memmove(R->t + i, R->t + i + 1, (R->nt - i - 1) * sizeof *R->t);
      R->nt--;
      break;
    }
  if (R->threads)
    pthread_mutex_unlock(&R->mu);
  rep_out_finish(&t->out, t->pr);
  free(t);
}

/* Queue replications [from, to) of pr. Returns 0 or -1 (out of memory). */
static int queue_reps(runner *R, point_run *pr, size_t seq, int from, int to)
{
  if (R->threads)
    pthread_mutex_lock(&R->mu);
  int rc = 0;
  for (int r = from; r < to && rc == 0; r++)
    rc = task_add(R, pr, seq, r) ? 0 : -1;
  if (R->threads) {
    pthread_cond_broadcast(&R->work);
    pthread_mutex_unlock(&R->mu);
  }
  return rc;
}

static task *find_task(runner *R, size_t seq, int rep)
{
  task *found = NULL;
  if (R->threads)
    pthread_mutex_lock(&R->mu);
  for (size_t i = 0; i < R->nt && !found; i++)
    if (R->t[i]->seq == seq && R->t[i]->rep == rep)
      found = R->t[i];
  if (R->threads)
    pthread_mutex_unlock(&R->mu);
  return found;
}

/* The points a sweep runs: combination, workers, n (in the sweep's order) and its index. */
typedef struct todo {
  int combo, n, workers;
  size_t index;
} todo;

/* ---- the sweep ---- */

/* pass 1: the combinations' models and the columns, the union over them. */
static int prepare(const ts_sweep_spec *spec, ts_sweep *out, combo_run **crs, unsigned char **ci_colp)
{
  memset(out, 0, sizeof *out);
  size_t nco = ncombos(spec);
  out->naxes = spec->naxes;
  out->ncombos = nco;
  out->points_total = ts_sweep_npoints(spec);
  out->combo_values = calloc(nco * (size_t)spec->naxes + 1, sizeof *out->combo_values);
  *crs = calloc(nco + 1, sizeof **crs);
  if (!out->combo_values || !*crs) {
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    return TS_SWEEP_NOMEM;
  }
  for (size_t c = 0; c < nco; c++)
    combo_values(spec, c, out->combo_values + c * (size_t)spec->naxes);
  int rc = 0;
  for (size_t c = 0; c < nco && rc == 0; c++)
    rc = combo_setup(spec, out, c, &(*crs)[c]);
  for (size_t c = 0; c < nco && rc == 0; c++)
    rc = combo_colmap(out, &(*crs)[c]);
  if (rc == TS_SWEEP_NOMEM)
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
  /* the columns a confidence target applies to */
  unsigned char *ci_col = calloc(out->ncols + 1, 1);
  if (!ci_col && rc == 0) {
    rc = TS_SWEEP_NOMEM;
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
  }
  if (ci_col && spec->ci_cols && rc == 0) {
    int *cols = malloc((out->ncols + 1) * sizeof *cols);
    int k = cols ? spec->ci_cols(spec->ctx, out, cols, (int)out->ncols) : 0;
    for (int i = 0; i < k; i++)
      ci_col[cols[i]] = 1;
    free(cols);
  } else if (ci_col) {
    memset(ci_col, 1, out->ncols);
  }
  *ci_colp = ci_col;
  return rc;
}

static void combos_finish(combo_run *crs, size_t n)
{
  for (size_t c = 0; crs && c < n; c++)
    combo_finish(&crs[c]);
  free(crs);
}

int ts_sweep_prepare(const ts_sweep_spec *spec, ts_sweep *out)
{
  combo_run *crs;
  unsigned char *ci_col;
  int rc = prepare(spec, out, &crs, &ci_col);
  combos_finish(crs, out->ncombos);
  free(ci_col);
  return rc;
}

/* pass 2: run the points in order, folding each replication as it comes. */
/* Keep the window of tasks full, in the sweep's order: the next
 * replications asked for of the points open, then new points. Returns 0 or
 * TS_SWEEP_NOMEM. */
static int fill(runner *R, combo_run *crs, const unsigned char *ci_col, const todo *td, size_t ntodo, size_t cur,
                size_t *opened)
{
  size_t window = R->threads ? (size_t)R->threads * 2 : 1;
  while (R->nt < window) {
    size_t p = cur;
    while (p < *opened && R->open[p]->queued >= R->open[p]->target)
      p++;
    if (p < *opened) {
      point_run *pr = R->open[p];
      if (queue_reps(R, pr, p, pr->queued, pr->queued + 1))
        return TS_SWEEP_NOMEM;
      pr->queued++;
      continue;
    }
    if (*opened == ntodo)
      break;
    const todo *d = &td[*opened];
    point_run *pr = point_open(R->spec, &crs[d->combo], d->combo, d->n, d->workers, d->index);
    if (!pr)
      return TS_SWEEP_NOMEM;
    next_batch(pr, ci_col);
    R->open[(*opened)++] = pr;
  }
  return 0;
}

/* pass 2: run the points in order, folding each replication as it comes. */
static int run_points(runner *R, combo_run *crs, const unsigned char *ci_col, const todo *td, size_t ntodo)
{
  const ts_sweep_spec *spec = R->spec;
  ts_sweep *out = R->out;
  size_t total = out->points_total;
  point_run **open = R->open = calloc(ntodo + 1, sizeof *open);
  if (!open) {
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    return TS_SWEEP_NOMEM;
  }
  size_t opened = 0, cur = 0;
  R->nopen = ntodo;
  int r = 0, rc = 0;
  while (cur < ntodo && rc == 0) {
    if (fill(R, crs, ci_col, td, ntodo, cur, &opened)) {
      snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
      rc = TS_SWEEP_NOMEM;
      break;
    }
    point_run *pr = open[cur];
    if (R->threads) { /* the cursor: a task that starts now at it streams its samples */
      pthread_mutex_lock(&R->mu);
      R->cur_seq = cur;
      R->cur_rep = r;
      pthread_mutex_unlock(&R->mu);
    }
    task *t = find_task(R, cur, r);
    if (!t) {
      snprintf(out->errmsg, sizeof out->errmsg, "internal error: replication %d of point %zu was never queued", r,
               cur);
      rc = TS_SWEEP_INTERNAL;
      break;
    }
    task_wait(R, t);
    rc = fold(pr, r, &t->out, out);
    task_drop(R, t);
    if (rc)
      break;
    if (spec->progress && spec->progress(spec->progress_data, pr->index, total, r)) {
      rc = fail(out, TS_SWEEP_STOPPED, pr, r, "stopped");
      break;
    }
    r++;
    if (r < pr->target)
      continue;
    pr->reps = pr->target;
    if (next_batch(pr, ci_col) > 0)
      continue; /* more replications: the next fill queues them */
    if (pr->reps > out->max_replications)
      out->max_replications = pr->reps;
    if (emit_points(pr, out)) {
      rc = fail(out, TS_SWEEP_NOMEM, pr, 0, "out of memory");
      break;
    }
    out->points_done++;
    point_finish(pr);
    open[cur++] = NULL;
    r = 0;
  }
  /* stop the threads first: tasks still running read the points */
  if (R->threads) {
    pthread_mutex_lock(&R->mu);
    R->quit = 1;
    pthread_cond_broadcast(&R->work);
    pthread_mutex_unlock(&R->mu);
  }
  return rc;
}

int ts_sweep_run(const ts_sweep_spec *spec, ts_sweep *out)
{
  combo_run *crs;
  unsigned char *ci_col;
  int rc = prepare(spec, out, &crs, &ci_col);
  size_t nco = out->ncombos, ntodo = 0;
  todo *td = calloc(out->points_total + 1, sizeof *td);
  if (!td && rc == 0) {
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    rc = TS_SWEEP_NOMEM;
  }
  size_t index = 0;
  for (size_t c = 0; td && c < nco; c++)
    for (size_t wi = 0; wi < spec->nw; wi++)
      for (size_t ni = 0; ni < spec->nn; ni++, index++)
        if (spec->shards <= 1 || (int)(index % (size_t)spec->shards) == spec->shard)
          td[ntodo++] = (todo){(int)c, spec->ns[ni], spec->workers[wi], index};
  runner R = {.spec = spec, .out = out};
  pthread_t *th = NULL;
  int started = 0;
  if (rc == 0 && spec->jobs > 1) {
    int want = spec->jobs;
    th = calloc((size_t)want, sizeof *th);
    if (th && pthread_mutex_init(&R.mu, NULL) == 0) {
      pthread_cond_init(&R.work, NULL);
      pthread_cond_init(&R.done, NULL);
      R.threads = want;
      for (int i = 0; i < want; i++)
        if (pthread_create(&th[i], NULL, worker_main, &R) == 0)
          started++;
      if (started == 0) { /* no thread: run here */
        R.threads = 0;
        pthread_cond_destroy(&R.work);
        pthread_cond_destroy(&R.done);
        pthread_mutex_destroy(&R.mu);
      }
    }
  }
  if (rc == 0)
    rc = run_points(&R, crs, ci_col, td, ntodo);
  if (R.threads) {
    for (int i = 0; i < started; i++)
      pthread_join(th[i], NULL);
    pthread_cond_destroy(&R.work);
    pthread_cond_destroy(&R.done);
    pthread_mutex_destroy(&R.mu);
  }
  free(th);
  /* what is left after a failure: tasks not folded, then the points opened */
  for (size_t i = 0; i < R.nt; i++) {
    rep_out_finish(&R.t[i]->out, R.t[i]->pr);
    free(R.t[i]);
  }
  free(R.t);
  for (size_t i = 0; R.open && i < R.nopen; i++)
    point_finish(R.open[i]);
  free(R.open);
  free(td);
  free(ci_col);
  if (rc == 0 && spec->shards <= 1)
    ts_sweep_ratios(out);
  combos_finish(crs, nco);
  return rc;
}

/* wave_ratio: wave_ms over wave_ms at the smallest n of the same combination,
 * workers and class that has actors; per replication the same, replication
 * by replication. */
void ts_sweep_ratios(ts_sweep *s)
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

void ts_sweep_finish(ts_sweep *s)
{
  for (size_t i = 0; i < s->npoints; i++) {
    free(s->points[i].value);
    free(s->points[i].mean);
    free(s->points[i].ci95);
    free(s->points[i].rep);
    free(s->points[i].class_name);
  }
  free(s->points);
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
