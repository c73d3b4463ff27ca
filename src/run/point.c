/* One point's replications. A point (combination, n, workers) opens with
 * one row per reported class (or one for all) and asks for its
 * replications in batches: one batch, or more under a confidence target
 * until every half-width is within it or the cap is reached. A replication
 * (ts__rep_run, on any thread) builds and runs a world and reduces it to a
 * rep_out: its per-row values, span samples, pooled actor values when the
 * point needs them (in order, spilled past a threshold), its samples text.
 * ts__rep_fold adds a rep_out to its point, in the sweep's order (the pooled
 * values to the point's pools, pooled.c), and ts__point_emit turns the rows
 * into the sweep's points. */
#include "run/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"
#include "run/sweep_internal.h"

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

int ts__dvec_append(dvec *d, const double *x, size_t n)
{
  if (n == 0)
    return 0;
  if (dvec_reserve(d, n))
    return -1;
  memcpy(d->v + d->len, x, n * sizeof *x);
  d->len += n;
  return 0;
}

void ts__rep_out_finish(rep_out *o, const point_run *pr)
{
  free(o->rows);
  free(o->rowsamples);
  for (size_t s = 0; o->spans && s < pr->cr->m.nspans; s++)
    free(o->spans[s].v);
  free(o->spans);
  for (int k = 0; o->pv && k < pr->nrows * pr->cr->nq; k++)
    ts__vals_finish(&o->pv[k]);
  free(o->pv);
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

/* Name point pr in where (size bytes) as the table does: "n=1 workers=1",
 * " replication r" when r >= 0, then each axis by the scenario's name and
 * label (" policy=fifo"; " axis0=1" without them). */
static void point_where(const point_run *pr, const ts_sweep *out, int r, char *where, size_t size)
{
  const ts_sweep_spec *spec = pr->spec;
  int len = snprintf(where, size, "n=%d workers=%d", pr->n, pr->workers);
  if (r >= 0 && len > 0 && (size_t)len < size)
    len += snprintf(where + len, size - (size_t)len, " replication %d", r);
  for (int a = 0; a < out->naxes && len > 0 && (size_t)len < size; a++) {
    int v = out->combo_values[(size_t)pr->combo * (size_t)out->naxes + (size_t)a];
    if (spec->axis_name && spec->axis_label) /* by the scenario's names: policy=fifo */
      len += snprintf(where + len, size - (size_t)len, " %.60s=%.60s", spec->axis_name(spec->ctx, a),
                      spec->axis_label(spec->ctx, a, v));
    else
      len += snprintf(where + len, size - (size_t)len, " axis%d=%d", a, v);
  }
}

int ts__point_fail(ts_sweep *out, int rc, const point_run *pr, int r, const char *what)
{
  char where[400] = "";
  point_where(pr, out, r, where, sizeof where);
  snprintf(out->errmsg, sizeof out->errmsg, "%s: %s", where, what);
  return rc;
}

/* Run replication r of point pr into o (any thread: pr and out are only read). */
void ts__rep_run(const point_run *pr, int r, const ts_sweep *out, rep_out *o)
{
  const ts_sweep_spec *spec = pr->spec;
  const ts_metric_list *l = &pr->cr->l;
  const ts_model *m = &pr->cr->m;
  size_t nl = l->n;
  o->missed = -1;
  o->arrived = o->unfinished = 0;
  o->overloaded = -1;
  if (spec->should_stop && spec->should_stop(spec->progress_data)) {
    o->rc = TS_SWEEP_STOPPED;
    snprintf(o->why, sizeof o->why, "stopped");
    return;
  }
  collector c;
  if (ts__collect_init(&c, pr, out, r, o)) {
    ts__collect_finish(&c);
    o->rc = TS_SWEEP_NOMEM;
    snprintf(o->why, sizeof o->why, "out of memory");
    return;
  }
  /* the actors go to the collector as they are done (their memory to those after them) */
  ts_world w;
  ts_world_spec ws = {.n = pr->n, .workers = pr->workers,
                      .seed = ts_rng_derive_seed(spec->seed, pr->n, pr->workers, r), .horizon = spec->horizon,
                      .win_t0 = pr->cr->warmup,
                      .win_t1 = pr->cr->window > 0 ? pr->cr->warmup + pr->cr->window : spec->horizon,
                      .done = ts__collect_done, .done_ctx = &c, .should_stop = spec->should_stop,
                      .stop_data = spec->progress_data};
  int rc = ts_world_init(&w, m, &ws, NULL);
  if (rc == 0)
    rc = ts_world_run(&w);
  o->events = w.sim.steps;
  if (rc == 0 && ts__collect_end(&c, &w))
    rc = TS_WORLD_NOMEM;
  if (rc != 0) {
    if (rc == TS_WORLD_STUCK) {
      static const char said[] = "the simulation deadlocked: ";
      char who[sizeof o->why - sizeof said + 1]; /* all of it fits in why, "; and N more" included */
      ts_world_stuck(&w, who, sizeof who, 4);
      snprintf(o->why, sizeof o->why, "%s%s", said, who);
    } else if (c.failed) {
      ts__vals_why(c.failed, o->why, sizeof o->why);
    } else if (c.samples_failed) {
      snprintf(o->why, sizeof o->why, "%s",
               o->text.failed == TS_TEXT_FLUSH ? "cannot write the samples" : "out of memory (making the samples)");
    } else {
      snprintf(o->why, sizeof o->why, "%s", ts_world_strerror(&w, rc));
    }
    o->rc = c.failed ? TS_SWEEP_TEMP
            : c.samples_failed && o->text.failed == TS_TEXT_FLUSH ? TS_SWEEP_OUTPUT
            : rc == -1 ? TS_SWEEP_NOMEM
                       : rc;
    ts_world_finish(&w);
    ts__collect_finish(&c); /* (after c's flags are read) */
    return;
  }
  o->outside = outside_range(&w);
  o->missed = ts_world_window_missed(&w) ? w.sim.now : -1;
  for (size_t k = 0; k < m->nclasses; k++)
    o->arrived += m->classes[k].forever ? w.class_count[k] : 0;
  o->unfinished = c.unfinished;
  o->overloaded = r == 0 ? ts__overloaded(&w, &o->rho) : -1; /* (the model's and the point's: one replication says it) */
  ts_world_trim(&w); /* the queues' memory goes before the statistics' comes */
  double *wv = malloc((nl ? nl : 1) * sizeof *wv);
  o->rows = malloc(((size_t)pr->nrows * nl + 1) * sizeof *o->rows);
  o->spans = calloc(m->nspans + 1, sizeof *o->spans);
  int bad = !wv || !o->rows || !o->spans;
  if (!bad) {
    for (size_t i = 0; i < nl; i++)
      wv[i] = NAN;
    ts_metric_world_values(l, &w, c.queued, wv);
  }
  for (size_t s = 0; !bad && s < m->nspans; s++) {
    bad = dvec_reserve(&o->spans[s], w.spans[s].len);
    for (size_t k = 0; !bad && k < w.spans[s].len; k++)
      o->spans[s].v[o->spans[s].len++] = ts_time_to_ms(w.spans[s].v[k]);
  }
  if (!bad && ts__collect_rows(&c, wv)) {
    bad = 1;
    if (c.failed) {
      o->rc = TS_SWEEP_TEMP;
      ts__vals_why(c.failed, o->why, sizeof o->why);
    }
  }
  free(wv);
  ts_world_finish(&w);
  ts__collect_finish(&c);
  if (bad && !o->rc) {
    o->rc = TS_SWEEP_NOMEM;
    snprintf(o->why, sizeof o->why, "out of memory");
  }
}

/* Whether o's run ended with a backlog: at least TS_SWEEP_BACKLOG_MIN
 * actors of "forever" classes, and TS_SWEEP_BACKLOG_SHARE of their arrivals,
 * not done (a stable queue leaves about its mean occupancy, a small share of a
 * long run's arrivals; arrivals that outpace the workers leave a share that
 * grows toward 1 - 1/load). */
static int backlogged(const rep_out *o)
{
  return o->unfinished >= TS_SWEEP_BACKLOG_MIN && o->unfinished >= TS_SWEEP_BACKLOG_SHARE * o->arrived;
}

/* ts__vals_each's callback: add x[0..n) to the pool ctx. */
static int pool_take(void *ctx, const double *x, size_t n)
{
  return ts__pooled_add(ctx, x, n);
}

/* Add the values of pv (a replication's, in order: its leading zeros
 * counted, the rest kept) to p. 0 or -1. */
static int fold_values(ts__pooled *p, ts__vals *pv)
{
  static const double zeros[256];
  for (size_t z = pv->zeros; z > 0;) {
    size_t n = z < 256 ? z : 256;
    if (ts__pooled_add(p, zeros, n))
      return -1;
    z -= n;
  }
  return ts__vals_each(pv, pool_take, p);
}

/* Fold replication r's pooled values in o (its span samples, its rows'
 * actor values) into pr's pools, as a new replication of each. 0, or a
 * TS_SWEEP_* failure (out of memory, or a temporary file: said in out). */
static int fold_pooled(point_run *pr, int r, rep_out *o, ts_sweep *out)
{
  size_t ns = pr->cr->m.nspans, np = pr->pool ? (size_t)pr->nrows * (size_t)pr->cr->nq : 0;
  for (size_t s = 0; s < ns + np; s++) {
    ts__pooled *p = s < ns ? &pr->spans[s] : &pr->q[s - ns];
    int rc = ts__pooled_begin(p);
    if (rc == 0)
      rc = s < ns ? ts__pooled_add(p, o->spans[s].v, o->spans[s].len) : fold_values(p, &o->pv[s - ns]);
    if (rc == 0)
      continue;
    const ts__vals *bad = p->v.err ? &p->v : s >= ns && o->pv[s - ns].err ? &o->pv[s - ns] : NULL;
    if (!bad)
      return ts__point_fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
    char why[400];
    ts__vals_why(bad, why, sizeof why);
    return ts__point_fail(out, TS_SWEEP_TEMP, pr, r, why);
  }
  return 0;
}

/* Fold replication r's o into pr (in the sweep's order). */
int ts__rep_fold(point_run *pr, int r, rep_out *o, ts_sweep *out)
{
  const ts_sweep_spec *spec = pr->spec;
  size_t nl = pr->cr->l.n;
  out->events += o->events;
  if (o->rc != 0)
    return ts__point_fail(out, o->rc, pr, r, o->why);
  pr->outside |= o->outside;
  ts_sweep_notes *nt = &out->notes;
  char where[sizeof nt->window_missed.first] = "";
  if ((o->missed >= 0 && nt->window_missed.count == 0) || (backlogged(o) && nt->backlogged.count == 0))
    point_where(pr, out, r, where, sizeof where);
  if (o->missed >= 0 && nt->window_missed.count++ == 0) {
    nt->window_missed.first_point = pr->index;
    snprintf(nt->window_missed.first, sizeof nt->window_missed.first, "%s ended at %g ms, its window starting at %g ms",
             where, ts_time_to_ms(o->missed), ts_time_to_ms(pr->cr->warmup));
  }
  if (backlogged(o) && nt->backlogged.count++ == 0) {
    nt->backlogged.first_point = pr->index;
    snprintf(nt->backlogged.first, sizeof nt->backlogged.first, "%s: %d of %d arrivals not done at %g ms", where,
             o->unfinished, o->arrived, ts_time_to_ms(spec->horizon));
  }
  if (r == 0 && o->overloaded >= 0 && nt->overloaded.count++ == 0) { /* (the model's, so once per point) */
    nt->overloaded.first_point = pr->index;
    point_where(pr, out, -1, where, sizeof where);
    snprintf(nt->overloaded.first, sizeof nt->overloaded.first, "class %.60s at %s, rho = lambda E[S] / c = %.3g",
             pr->cr->m.classes[o->overloaded].name, where, o->rho);
  }
  int rc = fold_pooled(pr, r, o, out);
  if (rc)
    return rc;
  for (int k = 0; k < pr->nrows; k++) {
    if (ts__dvec_append(&pr->rows[k].rep, o->rows + (size_t)k * nl, nl))
      return ts__point_fail(out, TS_SWEEP_NOMEM, pr, r, "out of memory");
    pr->rows[k].samples += o->rowsamples[k];
  }
  if (spec->write_samples) {
    if (o->text.flush) {
      if (ts_text_drain(&o->text))
        return ts__point_fail(out, o->text.failed == TS_TEXT_FLUSH ? TS_SWEEP_OUTPUT : TS_SWEEP_NOMEM, pr, r,
                              "cannot write the samples");
    } else if (o->text.len > 0 && spec->write_samples(spec->samples_ctx, o->text.v, o->text.len)) {
      return ts__point_fail(out, TS_SWEEP_OUTPUT, pr, r, "cannot write the samples");
    }
  }
  return 0;
}

/* Whether metric x's interval is the bootstrap's: its value pools the values
 * of every replication (an actor metric, a span's mean or quantile, not
 * "per": "replication") and the point has TS__BOOT_MIN_REPLICATIONS. */
static int pooled(const point_run *pr, const ts_metric *x)
{
  return pr->pool && pr->reps >= TS__BOOT_MIN_REPLICATIONS &&
         (x->source == TS_SRC_ACTOR ||
          (x->source == TS_SRC_SPAN && x->stat >= TS_SPAN_MEAN && !x->per_replication));
}

/* ts__actor_stat's numbering of pooled metric x's statistic. */
static int pooled_stat(const ts_metric *x)
{
  static const int of_span[] = {[TS_SPAN_MEAN] = 2, [TS_SPAN_P50] = 0, [TS_SPAN_P95] = 1, [TS_SPAN_P99] = 3};
  return x->source == TS_SRC_ACTOR ? x->stat : of_span[x->stat];
}

/* The pool of pooled metric i on row k: its span's, or the row's of its actor quantity. */
static ts__pooled *pool_of(const point_run *pr, int k, size_t i)
{
  const ts_metric *x = &pr->cr->l.v[i];
  if (x->source != TS_SRC_ACTOR)
    return &pr->spans[x->id];
  return &pr->q[(size_t)k * (size_t)pr->cr->nq + (size_t)pr->cr->qof[i]];
}

/* Pooled metric i's value on row k into *value (known: *value already
 * holds it) and the half-width of its bootstrap interval over the replications into
 * *hw (ts__boot_pooled, seeded from the scenario's seed and the point's n
 * and workers: the same resamples for every metric, row and axis value of
 * the point, whatever --jobs). 0, or -1 (out of memory, or a temporary file). */
static int pooled_ci(point_run *pr, int k, size_t i, int known, double *value, double *hw)
{
  const ts_metric *x = &pr->cr->l.v[i];
  ts__pooled *p = pool_of(pr, k, i);
  double lo, hi;
  unsigned long seed = ts_rng_derive_seed(pr->spec->seed, pr->n, pr->workers, -1);
  if (ts__boot_pooled(p, pooled_stat(x), seed, &lo, &hi))
    return -1;
  if (!known && ts__pooled_stat(p, pooled_stat(x), value))
    return -1;
  *hw = ts__boot_halfwidth(*value, lo, hi);
  return 0;
}

/* Room in pr->scratch for a value per replication (the medians over them). 0 or -1. */
static int pooled_room(point_run *pr)
{
  return scratch(pr, pr->reps > 0 ? (size_t)pr->reps : 1);
}

/* Row k's value of list metric i and its 95% half-width: the replication
 * mean's, or for a pooled metric its bootstrap interval's around the pooled
 * value (pooled_room done). 0, or -1 (out of memory). */
static int row_halfwidth(point_run *pr, int k, size_t i, double *m, double *h)
{
  size_t nl = pr->cr->l.n;
  const double *v = pr->rows[k].rep.v + i;
  if (pooled(pr, &pr->cr->l.v[i]))
    return pooled_ci(pr, k, i, 0, m, h);
  *m = ts__mean_strided(v, nl, (size_t)pr->reps);
  *h = ts_ci95(v, nl, (size_t)pr->reps);
  return 0;
}

/* Whether every half-width of every row is within the target: the
 * replication mean's, relative to that mean, or for a pooled metric its
 * bootstrap interval's, relative to the pooled value (out of memory: not
 * within it). */
static int tight(point_run *pr, const unsigned char *ci_col)
{
  size_t nl = pr->cr->l.n;
  if (pooled_room(pr))
    return 0;
  for (int k = 0; k < pr->nrows; k++)
    for (size_t i = 0; i < nl; i++) {
      if (!ci_col[pr->cr->colmap[i]])
        continue;
      double m, h;
      if (row_halfwidth(pr, k, i, &m, &h))
        return 0;
      if (isnan(m) || m == 0)
        continue;
      if (isnan(h) || h > pr->spec->ci_target * fabs(m))
        return 0;
    }
  return 1;
}

/* Into each of pr's points (the last pr->nrows of out, just emitted) whether
 * it missed the target (ts_point.ci_missed) and its widest half-width
 * relative to its center over the columns tight checks (ci_rel, ci_rel_col;
 * an undefined half-width counts as infinite). */
static void note_target(point_run *pr, const unsigned char *ci_col, ts_sweep *out)
{
  size_t nl = pr->cr->l.n;
  if (out->npoints < (size_t)pr->nrows)
    return;
  ts_point *pts = out->points + out->npoints - (size_t)pr->nrows;
  int room = pooled_room(pr) == 0;
  for (int k = 0; k < pr->nrows; k++) {
    ts_point *p = &pts[k];
    p->ci_rel_col = -1;
    for (size_t i = 0; i < nl; i++) {
      double m, h;
      if (!ci_col[pr->cr->colmap[i]] || !room || row_halfwidth(pr, k, i, &m, &h) || isnan(m) || m == 0)
        continue;
      double rel = isnan(h) ? INFINITY : h / fabs(m);
      p->ci_missed |= isnan(h) || h > pr->spec->ci_target * fabs(m);
      if (p->ci_rel_col < 0 || rel > p->ci_rel) {
        p->ci_rel = rel;
        p->ci_rel_col = pr->cr->colmap[i];
      }
    }
  }
}

/* Whether pr's replications gave the same value in every column ci_col
 * marks, on every row (NAN equal to NAN). */
static int same_everywhere(const point_run *pr, const unsigned char *ci_col)
{
  size_t nl = pr->cr->l.n;
  for (int k = 0; k < pr->nrows; k++)
    for (size_t i = 0; i < nl; i++) {
      if (!ci_col[pr->cr->colmap[i]])
        continue;
      const double *v = pr->rows[k].rep.v + i;
      for (int r = 1; r < pr->reps; r++) {
        double b = v[(size_t)r * nl];
        if (!(b == v[0] || (isnan(b) && isnan(v[0]))))
          return 0;
      }
    }
  return 1;
}

void ts__point_note(point_run *pr, const unsigned char *ci_col, ts_sweep *out)
{
  if (pr->spec->ci_target > 0)
    note_target(pr, ci_col, out);
  if (pr->reps < 2)
    return;
  ts_sweep_notes *nt = &out->notes;
  nt->replicated++;
  if (same_everywhere(pr, ci_col) && nt->identical.count++ == 0) {
    nt->identical.first_point = pr->index;
    point_where(pr, out, -1, nt->identical.first, sizeof nt->identical.first);
  }
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
  p->ci_rel_col = -1;
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

/* The pooled statistics (ts_span_stat TS_SPAN_MEAN to TS_SPAN_P99) of span
 * s's samples over the point's replications into st[0..4): GSL's mean of
 * the finite samples in their order (kept as they came), then the three
 * quantiles at once (ts__pooled_quantiles: each the bits of ts_quantile's);
 * NAN without samples. The same for every row: a span is not a class's.
 * 0, or -1 (out of memory, or the pool's temporary file). */
static int span_pooled(point_run *pr, size_t s, double st[4])
{
  static const double q[] = {0.5, 0.95, 0.99};
  ts__pooled *p = &pr->spans[s];
  if (p->cnt == 0) {
    st[0] = st[1] = st[2] = st[3] = NAN;
    return 0;
  }
  st[0] = (double)p->mean;
  return ts__pooled_quantiles(p, q, 3, st + 1);
}

/* The rows' summaries become points. */
int ts__point_emit(point_run *pr, ts_sweep *out)
{
  const ts_metric_list *l = &pr->cr->l;
  const ts_model *m = &pr->cr->m;
  size_t nl = l->n, nc = out->ncols;
  if (pooled_room(pr))
    return -1;
  double *span_st = malloc((4 * m->nspans + 1) * sizeof *span_st); /* span_pooled's, once read */
  unsigned char *span_got = calloc(m->nspans + 1, 1);
  if (!span_st || !span_got) {
    free(span_st);
    free(span_got);
    return -1;
  }
  int rc = 0;
  for (int k = 0; k < pr->nrows && rc == 0; k++) {
    row *rw = &pr->rows[k];
    ts_point *p = ts_sweep_add_point(out, pr->reps);
    if (!p) {
      rc = -1;
      break;
    }
    p->combo = pr->combo;
    p->n = pr->n;
    p->workers = pr->workers;
    p->klass = rw->klass;
    p->index = pr->index;
    p->class_name = strdup(rw->klass >= 0 ? m->classes[rw->klass].name : "all");
    if (!p->class_name) {
      rc = -1;
      break;
    }
    p->replications = pr->reps;
    p->samples = rw->samples;
    p->outside = pr->outside;
    for (size_t i = 0; i < nl; i++) {
      const ts_metric *x = &l->v[i];
      int c = pr->cr->colmap[i];
      const double *rv = rw->rep.v + i;
      for (int r = 0; r < pr->reps; r++)
        p->rep[(size_t)r * nc + (size_t)c] = rv[(size_t)r * nl];
      p->mean[c] = ts__mean_strided(rv, nl, (size_t)pr->reps);
      p->ci95[c] = ts_ci95(rv, nl, (size_t)pr->reps);
      if (x->source == TS_SRC_ACTOR && !pr->pool) {
        /* one replication: pooling its actors is what its row value did */
        p->value[c] = rv[0];
      } else if (x->source == TS_SRC_ACTOR) {
        if (ts__pooled_stat(pool_of(pr, k, i), x->stat, &p->value[c])) {
          rc = -1;
          break;
        }
      } else if (x->source == TS_SRC_SPAN && x->stat >= TS_SPAN_MEAN && !x->per_replication) {
        double *st = span_st + 4 * (size_t)x->id;
        if (!span_got[x->id]) {
          if (span_pooled(pr, (size_t)x->id, st)) {
            rc = -1;
            break;
          }
          span_got[x->id] = 1;
        }
        p->value[c] = st[x->stat - TS_SPAN_MEAN];
      } else if (x->source != TS_SRC_RATIO) {
        p->value[c] = ts__median_strided(rv, nl, (size_t)pr->reps, pr->scratch);
      }
      if (pooled(pr, x) && pooled_ci(pr, k, i, 1, &p->value[c], &p->ci95[c])) {
        rc = -1;
        break;
      }
    }
  }
  free(span_st);
  free(span_got);
  return rc;
}

void ts__point_finish(point_run *pr)
{
  if (!pr)
    return;
  for (int k = 0; pr->rows && k < pr->nrows; k++)
    free(pr->rows[k].rep.v);
  free(pr->rows);
  for (size_t s = 0; pr->spans && s < pr->cr->m.nspans; s++)
    ts__pooled_finish(&pr->spans[s]);
  free(pr->spans);
  for (int k = 0; pr->q && k < pr->nrows * pr->cr->nq; k++)
    ts__pooled_finish(&pr->q[k]);
  free(pr->q);
  free(pr->scratch);
  free(pr);
}

/* A point ready to run: its rows (one per reported class, or one for all). */
point_run *ts__point_open(const ts_sweep_spec *spec, const combo_run *cr, int combo, int n, int workers,
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
  pr->q = calloc((size_t)pr->nrows * (size_t)cr->nq + 1, sizeof *pr->q);
  if (!pr->rows || !pr->spans || !pr->q) {
    ts__point_finish(pr);
    return NULL;
  }
  for (size_t s = 0; s < m->nspans; s++)
    pr->spans[s] = (ts__pooled){.keep = 1, .v.spill_at = spec->spill_values};
  for (int k = 0; k < pr->nrows * cr->nq; k++) { /* the values kept when a quantile of them is read */
    pr->q[k].v.spill_at = spec->spill_values;
    for (size_t i = 0; i < cr->l.n; i++)
      if (cr->qof[i] == k % cr->nq && cr->l.v[i].source == TS_SRC_ACTOR)
        pr->q[k].stats |= 1u << cr->l.v[i].stat;
    pr->q[k].keep = (pr->q[k].stats & ~(1u << 2)) != 0;
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
int ts__point_next_batch(point_run *pr, const unsigned char *ci_col)
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
