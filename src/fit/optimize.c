/* The search of `tssim optimize` (optimize.h): settings evaluated in
 * batches (one exploration run each, on the threads asked for), kept as
 * trials so none runs twice at the same replications; the grid, the local
 * searches (Brent, Nelder-Mead), successive halving, the race, the front. */
#include "fit/optimize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_min.h>
#include <gsl/gsl_multimin.h>
#include <gsl/gsl_qrng.h>

#include "fit/minimize.h"
#include "fit/param.h"
#include "io/jsonfile.h"

/* What a minimiser sees for a setting that failed or has no objective:
 * finite, and worse than any real one. */
#define FAILED_SCORE 1e300

typedef struct opt {
  const ts_explore *x;
  const ts_opt_spec *spec;
  ts_opt_result *r;
  size_t narms;
  size_t evals;         /* distinct settings the search evaluated (the baseline and the race aside) */
  int rc;               /* the first failure (a TS_SWEEP_* status), 0 if none */
  char *err;
  size_t cap;
  ts_fit_param *map;    /* [nfields]: the bounded map of fit/minimize.h */
  int *arm;             /* scratch: one arm's choice indexes */
  double *own_x;        /* [nfields]: the scenario's own setting (the baseline's trial records it) */
  double *own_r;        /* [nfields]: own_x as a searched value would be (round7 within the field's
                           bounds; NAN when not a number or outside them) */
  int *own_c;           /* [nchoices] */
} opt;

/* A setting to evaluate: NULL x and c for the baseline (the scenario's own
 * setting, whatever values its trial records). */
typedef struct setting {
  const double *x;
  const int *c;
} setting;

/* Whether s is the scenario's own setting: the baseline, or values equal
 * to its own after the same rounding (so it is not run twice). */
static int is_own(const opt *o, setting s)
{
  if (!s.x)
    return 1;
  for (size_t f = 0; f < o->spec->nfields; f++)
    if (!(s.x[f] == o->own_r[f]))
      return 0;
  for (size_t j = 0; j < o->spec->nchoices; j++)
    if (s.c[j] != o->own_c[j])
      return 0;
  return 1;
}

static int same_sets(const opt *o, setting a, setting b)
{
  int ao = is_own(o, a), bo = is_own(o, b);
  if (ao || bo)
    return ao && bo;
  return memcmp(a.x, b.x, o->spec->nfields * sizeof *a.x) == 0 &&
         memcmp(a.c, b.c, o->spec->nchoices * sizeof *a.c) == 0;
}

/* The setting trial t ran. */
static setting setting_of(const ts_opt_trial *t)
{
  return t->stage == TS_OPT_STAGE_BASELINE ? (setting){NULL, NULL} : (setting){t->x, t->choice};
}

static int same_setting(const opt *o, const ts_opt_trial *t, setting s)
{
  return same_sets(o, setting_of(t), s);
}

/* The trial of s at reps replications, or -1. */
static long find(const opt *o, setting s, int reps)
{
  for (size_t i = 0; i < o->r->ntrials; i++)
    if (o->r->t[i].replications == reps && same_setting(o, &o->r->t[i], s))
      return (long)i;
  return -1;
}

/* A new trial for s (its measurements to come), or NULL out of memory. */
static ts_opt_trial *add_trial(opt *o, setting s, int reps, int stage)
{
  ts_opt_result *r = o->r;
  if (r->ntrials == r->cap) {
    size_t cap = r->cap ? 2 * r->cap : 64;
    ts_opt_trial *t = realloc(r->t, cap * sizeof *t);
    if (!t)
      return NULL;
    r->t = t;
    r->cap = cap;
  }
  ts_opt_trial *t = &r->t[r->ntrials];
  memset(t, 0, sizeof *t);
  size_t nm = r->nmetrics;
  t->replications = reps;
  t->stage = stage;
  t->mean = calloc(nm + 1, sizeof *t->mean);
  t->ci95 = calloc(nm + 1, sizeof *t->ci95);
  t->rep = calloc(nm * (size_t)reps + 1, sizeof *t->rep);
  t->pt_mean = calloc(nm * r->npoints + 1, sizeof *t->pt_mean);
  int bad = !t->mean || !t->ci95 || !t->rep || !t->pt_mean;
  if (!s.x) /* the baseline: it records the scenario's own values */
    s = (setting){o->own_x, o->own_c};
  if (!bad) {
    t->x = malloc((o->spec->nfields + 1) * sizeof *t->x);
    t->choice = malloc((o->spec->nchoices + 1) * sizeof *t->choice);
    bad = !t->x || !t->choice;
    if (!bad) {
      memcpy(t->x, s.x, o->spec->nfields * sizeof *s.x);
      memcpy(t->choice, s.c, o->spec->nchoices * sizeof *s.c);
    }
  }
  r->ntrials++; /* freed with the result even when incomplete */
  return bad ? NULL : t;
}

/* The metric spec of measured metric m. */
static const ts_explore_metric *metric_of(const opt *o, size_t m)
{
  const ts_opt_spec *sp = o->spec;
  if (m < (size_t)sp->nobjectives)
    return &sp->objectives[m];
  for (size_t i = 0; i < sp->nconstraints; i++)
    if ((size_t)o->r->constraint_metric[i] == m)
      return &sp->constraints[i].metric;
  return NULL;
}

/* Whether metric mt counts at sweep point k: every point, or the one it names. */
static int counts_at(const ts_explore_metric *mt, size_t k)
{
  return mt->point < 0 || (size_t)mt->point == k;
}

/* Fill trial t from variant v of the finished run s: per replication, the
 * mean over the points of each metric (a metric naming one point: that
 * point's value). */
static void measure(const opt *o, const ts_sweep *s, size_t v, ts_opt_trial *t)
{
  size_t np = o->r->npoints, R = (size_t)t->replications;
  for (size_t m = 0; m < o->r->nmetrics; m++) {
    const ts_explore_metric *mt = metric_of(o, m);
    int c = ts_sweep_col(s, mt->name);
    double *rep = t->rep + m * R, over = mt->point < 0 ? (double)np : 1;
    for (size_t r = 0; r < R; r++)
      rep[r] = 0;
    for (size_t k = 0; k < np; k++) {
      const ts_point *p = c < 0 ? NULL : ts_explore_row(o->x, s, v, k, mt);
      t->pt_mean[m * np + k] = p ? p->mean[c] : NAN;
      for (size_t r = 0; r < R && counts_at(mt, k); r++)
        rep[r] += (p && (int)r < p->replications ? p->rep[r * s->ncols + (size_t)c] : NAN) / over;
    }
    double sum = 0;
    for (size_t r = 0; r < R; r++)
      sum += rep[r];
    t->mean[m] = sum / (double)R;
    t->ci95[m] = ts_ci95(rep, 1, R);
  }
}

static double get_baseline(void *ctx, ts_expr_var var)
{
  (void)var;
  return *(const double *)ctx;
}

/* Constraint c's limit where the baseline's value is baseline. */
static double limit_of(const ts_opt_constraint *c, double baseline)
{
  return ts_expr_eval(c->limit, get_baseline, &baseline);
}

/* Feasibility, violation and score of t against the baseline trial b (the
 * same replications): a constraint holds at every point, or at the one
 * point its metric names (its limit from b at that point). */
static void judge(const opt *o, ts_opt_trial *t, const ts_opt_trial *b)
{
  const ts_opt_spec *sp = o->spec;
  size_t np = o->r->npoints;
  t->violation = 0;
  for (size_t i = 0; i < sp->nconstraints; i++) {
    const ts_opt_constraint *c = &sp->constraints[i];
    size_t m = (size_t)o->r->constraint_metric[i];
    for (size_t k = 0; k < np; k++) {
      if (!counts_at(&c->metric, k))
        continue;
      double v = t->pt_mean[m * np + k], lim = limit_of(c, b->pt_mean[m * np + k]);
      if (isnan(v) || isnan(lim)) {
        t->violation += 1;
        continue;
      }
      double over = c->op == TS_OPT_LE || c->op == TS_OPT_LT ? v - lim : lim - v;
      int holds = c->op == TS_OPT_LT || c->op == TS_OPT_GT ? over < 0 : over <= 0;
      if (!holds)
        t->violation += (over > 0 ? over : 1e-12) / (fabs(lim) > 1e-12 ? fabs(lim) : 1e-12);
    }
  }
  t->feasible = t->violation == 0;
  double f = sp->maximize[0] ? -t->mean[0] : t->mean[0];
  double scale = fabs(b->mean[0]) > 1e-9 ? fabs(b->mean[0]) : 1e-9;
  t->score = isfinite(f) ? f + 10 * scale * t->violation : FAILED_SCORE;
}

/* The sets of setting s into sets (room: nfields + nchoices). */
static size_t fill_sets(const opt *o, setting s, ts_explore_set *sets)
{
  const ts_opt_spec *sp = o->spec;
  size_t n = 0;
  for (size_t i = 0; s.x && i < sp->nfields; i++)
    sets[n++] = (ts_explore_set){sp->fields[i].path, s.x[i], NULL};
  for (size_t j = 0; s.x && j < sp->nchoices; j++)
    sets[n++] = (ts_explore_set){sp->choices[j].path, 0, sp->choices[j].values[s.c[j]]};
  return n;
}

static int fail(opt *o, int rc, const char *why)
{
  if (o->rc == 0) {
    o->rc = rc;
    snprintf(o->err, o->cap, "%s", why);
  }
  return -1;
}

/* Evaluate settings s[0..n) at reps replications, with the baseline at reps
 * when it has not run there: what has not run at reps runs in one
 * exploration, as trials of stage; idx[i] (idx may be NULL) receives s[i]'s
 * trial. Returns 0, or -1 with o->rc set. */
static int eval_batch(opt *o, const setting *s, size_t n, int reps, int stage, long *idx)
{
  size_t per = o->spec->nfields + o->spec->nchoices + 1;
  setting *todo = malloc((n + 1) * sizeof *todo);
  ts_explore_variant *v = malloc((n + 1) * sizeof *v);
  ts_explore_set *sets = malloc((n + 1) * per * sizeof *sets);
  size_t *first = malloc((n + 1) * sizeof *first); /* the trial index of each variant */
  if (!todo || !v || !sets || !first) {
    free(todo), free(v), free(sets), free(first);
    return fail(o, TS_SWEEP_NOMEM, "out of memory");
  }
  size_t nv = 0;
  setting base = {NULL, NULL};
  if (find(o, base, reps) < 0)
    todo[nv++] = base;
  for (size_t i = 0; i < n; i++) {
    int dup = find(o, s[i], reps) >= 0;
    for (size_t j = 0; j < nv && !dup; j++)
      dup = same_sets(o, todo[j], s[i]);
    if (!dup)
      todo[nv++] = s[i];
  }
  int rc = 0;
  if (nv > 0) {
    for (size_t j = 0; j < nv; j++)
      v[j] = (ts_explore_variant){sets + j * per, fill_sets(o, todo[j], sets + j * per), NULL};
    ts_sweep sw;
    memset(&sw, 0, sizeof sw);
    int sr = ts_explore_run(o->x, v, nv, reps, &sw);
    for (size_t j = 0; j < nv && sr == 0; j++) {
      ts_opt_trial *t = add_trial(o, todo[j], reps, todo[j].x ? stage : TS_OPT_STAGE_BASELINE);
      if (!t) {
        sr = TS_SWEEP_NOMEM;
        snprintf(sw.errmsg, sizeof sw.errmsg, "out of memory");
        break;
      }
      first[j] = o->r->ntrials - 1;
      measure(o, &sw, j, t);
      o->evals += todo[j].x && stage != TS_OPT_STAGE_RACE;
    }
    if (sr) {
      rc = fail(o, sr, sw.errmsg[0] ? sw.errmsg : "out of memory");
    } else {
      const ts_opt_trial *b = &o->r->t[find(o, base, reps)];
      for (size_t j = 0; j < nv; j++)
        judge(o, &o->r->t[first[j]], b);
    }
    ts_sweep_finish(&sw);
  }
  for (size_t i = 0; idx && i < n; i++)
    idx[i] = rc ? -1 : find(o, s[i], reps);
  free(todo), free(v), free(sets), free(first);
  return rc;
}

/* v rounded to 7 significant digits (what is written is what ran) and held within [lo, hi]. */
static double round7(double v, double lo, double hi)
{
  char text[32];
  snprintf(text, sizeof text, "%.7g", v);
  v = strtod(text, NULL);
  return v < lo ? lo : v > hi ? hi : v;
}

/* The score of x at arm c, evaluated at the search's replications (once:
 * a setting evaluated before is not run again). FAILED_SCORE after a
 * failure, or when the budget is spent (*spent then set). */
static double score_at(opt *o, const double *x, const int *c, int stage, int *spent)
{
  setting s = {x, c};
  long i = find(o, s, o->spec->replications);
  if (i < 0 && o->evals >= (size_t)o->spec->max_evals) {
    *spent = o->r->evals_stopped = 1;
    return FAILED_SCORE;
  }
  if (i < 0 && (o->rc || eval_batch(o, &s, 1, o->spec->replications, stage, &i)))
    return FAILED_SCORE;
  return o->r->t[i].score;
}

/* Arm a's choice indexes into c (the first choice varies slowest). */
static void arm_choices(const opt *o, size_t a, int *c)
{
  for (size_t j = o->spec->nchoices; j-- > 0;) {
    c[j] = (int)(a % o->spec->choices[j].nvalues);
    a /= o->spec->choices[j].nvalues;
  }
}

/* The grid's points into g (npts x nfields); returns npts. One field:
 * GRID evenly spaced values, bounds included; several: GRID x nfields
 * points of the quasi-random sequence (Sobol, Halton beyond 40 fields),
 * the first of which is the box's centre. */
static size_t grid_points(const opt *o, double *g)
{
  const ts_opt_spec *sp = o->spec;
  size_t F = sp->nfields, K = (size_t)sp->grid;
  if (F == 1) {
    for (size_t i = 0; i < K; i++)
      g[i] = round7(sp->fields[0].lo + (sp->fields[0].hi - sp->fields[0].lo) * (double)i / (double)(K - 1),
                    sp->fields[0].lo, sp->fields[0].hi);
    return K;
  }
  gsl_qrng *q = gsl_qrng_alloc(F <= 40 ? gsl_qrng_sobol : gsl_qrng_halton, (unsigned)F);
  double u[1229];
  for (size_t i = 0; q && i < K * F; i++) {
    gsl_qrng_get(q, u);
    for (size_t f = 0; f < F; f++)
      g[i * F + f] = round7(sp->fields[f].lo + (sp->fields[f].hi - sp->fields[f].lo) * u[f], sp->fields[f].lo,
                            sp->fields[f].hi);
  }
  gsl_qrng_free(q);
  if (!q)
    fail((opt *)o, TS_SWEEP_NOMEM, "out of memory");
  return q ? K * F : 0;
}

typedef struct local_ctx {
  opt *o;
  const int *arm;
  double *x;      /* scratch: nfields */
  int spent;      /* the budget ran out */
} local_ctx;

/* Whether a local search that ran it iterations, the last stale of which
 * evaluated no new setting, was cut short by max_iter: the loop ran out
 * (not converged, not stopped by max_evals: spent) while it still tried new
 * settings in its last nfields + 1 iterations. One that only re-hits
 * settings it has (a simplex at the 7 digits' resolution, or pinned at a
 * bound) has stalled: more iterations find nothing new. */
static int cut_short(const opt *o, int it, int stale, int spent)
{
  return it == o->spec->max_iter && !spent && stale <= (int)o->spec->nfields;
}

static double brent_f(double v, void *data)
{
  local_ctx *l = data;
  const ts_opt_field *f = &l->o->spec->fields[0];
  l->x[0] = round7(v, f->lo, f->hi);
  return score_at(l->o, l->x, l->arm, TS_OPT_STAGE_BRENT, &l->spent);
}

/* Brent's method for one field at arm c, on the bracket around the best of
 * its grid points xs (scores fs, k of them, ascending). A best point at a
 * bound is bracketed by the midpoint towards its neighbour when that is
 * better than both; a flat best (a tie with a neighbour) is left as it is. */
static void brent(opt *o, const int *c, const double *xs, const double *fs, size_t k)
{
  size_t b = 0;
  for (size_t i = 1; i < k; i++)
    b = fs[i] < fs[b] ? i : b;
  double x[1];
  local_ctx l = {o, c, x, 0};
  double xa, xm, xb, fa, fm, fb;
  if (b > 0 && b + 1 < k) {
    xa = xs[b - 1], fa = fs[b - 1], xm = xs[b], fm = fs[b], xb = xs[b + 1], fb = fs[b + 1];
  } else {
    size_t j = b == 0 ? 1 : k - 2;
    xm = round7((xs[b] + xs[j]) / 2, o->spec->fields[0].lo, o->spec->fields[0].hi);
    fm = brent_f(xm, &l);
    xa = xs[b < j ? b : j], fa = fs[b < j ? b : j], xb = xs[b < j ? j : b], fb = fs[b < j ? j : b];
  }
  if (o->rc || l.spent || !(fm < fa && fm < fb))
    return;
  gsl_function fn = {brent_f, &l};
  gsl_min_fminimizer *s = gsl_min_fminimizer_alloc(gsl_min_fminimizer_brent);
  if (!s) {
    fail(o, TS_SWEEP_NOMEM, "out of memory");
    return;
  }
  double tol = o->spec->tol * (o->spec->fields[0].hi - o->spec->fields[0].lo);
  int it = 0, stale = 0;
  if (gsl_min_fminimizer_set_with_values(s, &fn, xm, fm, xa, fa, xb, fb) == GSL_SUCCESS)
    for (; it < o->spec->max_iter && !o->rc && !l.spent; it++) {
      size_t e0 = o->evals;
      if (gsl_min_fminimizer_iterate(s) != GSL_SUCCESS)
        break;
      stale = o->evals == e0 ? stale + 1 : 0;
      if (gsl_min_test_interval(gsl_min_fminimizer_x_lower(s), gsl_min_fminimizer_x_upper(s), tol, 0) == GSL_SUCCESS)
        break;
    }
  o->r->iter_cut += cut_short(o, it, stale, l.spent);
  gsl_min_fminimizer_free(s);
}

static double simplex_f(const gsl_vector *y, void *data)
{
  local_ctx *l = data;
  for (size_t f = 0; f < l->o->spec->nfields; f++)
    l->x[f] = ts_fit_unmap(&l->o->map[f], gsl_vector_get(y, f));
  return score_at(l->o, l->x, l->arm, TS_OPT_STAGE_SIMPLEX, &l->spent);
}

/* GSL's Nelder-Mead simplex (nmsimplex2) over several fields at arm c,
 * from x0, through the bounded map (every point within the bounds). */
static void simplex(opt *o, const int *c, const double *x0)
{
  size_t F = o->spec->nfields;
  double *x = malloc(F * sizeof *x);
  gsl_vector *y = gsl_vector_alloc(F), *step = gsl_vector_alloc(F);
  gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, F);
  local_ctx l = {o, c, x, 0};
  if (x && y && step && s) {
    for (size_t f = 0; f < F; f++) {
      gsl_vector_set(y, f, ts_fit_map(&o->map[f], x0[f]));
      gsl_vector_set(step, f, 0.3);
    }
    gsl_multimin_function fn = {simplex_f, F, &l};
    int it = 0, stale = 0;
    if (gsl_multimin_fminimizer_set(s, &fn, y, step) == GSL_SUCCESS)
      for (; it < o->spec->max_iter && !o->rc && !l.spent; it++) {
        size_t e0 = o->evals;
        if (gsl_multimin_fminimizer_iterate(s) != GSL_SUCCESS ||
            gsl_multimin_test_size(gsl_multimin_fminimizer_size(s), o->spec->tol) == GSL_SUCCESS)
          break;
        stale = o->evals == e0 ? stale + 1 : 0;
      }
    o->r->iter_cut += cut_short(o, it, stale, l.spent);
  } else {
    fail(o, TS_SWEEP_NOMEM, "out of memory");
  }
  gsl_multimin_fminimizer_free(s);
  gsl_vector_free(y);
  gsl_vector_free(step);
  free(x);
}

/* Order idx[0..n) by their trials' scores (stable: ties keep their order). */
static void by_score(const opt *o, const long *trial, size_t *idx, size_t n)
{
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && o->r->t[trial[idx[j]]].score < o->r->t[trial[idx[j - 1]]].score; j--) {
      size_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
}

/* Every arm at every grid point (or once, without numeric fields), in one
 * batch at the search's replications. grid: npts x nfields; cs: narms x
 * nchoices (filled here); trial receives narms x npts trial indexes. */
static int grid_stage(opt *o, const double *grid, size_t npts, int *cs, long *trial)
{
  size_t F = o->spec->nfields, C = o->spec->nchoices, n = o->narms * npts;
  setting *s = malloc((n + 1) * sizeof *s);
  if (!s)
    return fail(o, TS_SWEEP_NOMEM, "out of memory");
  for (size_t a = 0; a < o->narms; a++) {
    arm_choices(o, a, cs + a * C);
    for (size_t p = 0; p < npts; p++)
      s[a * npts + p] = (setting){grid + p * F, cs + a * C};
  }
  int rc = eval_batch(o, s, n, o->spec->replications, TS_OPT_STAGE_GRID, trial);
  free(s);
  return rc;
}

/* Successive halving over the arms (no numeric fields): all at R, the
 * better half at 2R, ... until FINALISTS remain; their settings go into
 * fin (room: narms) and *reps receives the replications they last ran. */
static int halving(opt *o, int *cs, setting *fin, size_t *nfin, int *reps)
{
  static const double none[1] = {0}; /* no numeric fields: an empty x, not the baseline's NULL */
  size_t n = o->narms, C = o->spec->nchoices;
  size_t *keep = malloc((n + 1) * sizeof *keep), *ord = malloc((n + 1) * sizeof *ord);
  size_t *tmp = malloc((n + 1) * sizeof *tmp);
  long *t = malloc((n + 1) * sizeof *t);
  int rc = !keep || !ord || !tmp || !t ? fail(o, TS_SWEEP_NOMEM, "out of memory") : 0;
  for (size_t a = 0; rc == 0 && a < n; a++) {
    arm_choices(o, a, cs + a * C);
    keep[a] = a;
  }
  for (*reps = o->spec->replications; rc == 0;) {
    for (size_t i = 0; i < n; i++) {
      fin[i] = (setting){none, cs + keep[i] * C};
      ord[i] = i;
    }
    if ((rc = eval_batch(o, fin, n, *reps, TS_OPT_STAGE_HALVING, t)) != 0)
      break;
    by_score(o, t, ord, n);
    for (size_t i = 0; i < n; i++)
      tmp[i] = keep[ord[i]];
    memcpy(keep, tmp, n * sizeof *keep);
    for (size_t i = 0; i < n; i++)
      fin[i] = (setting){none, cs + keep[i] * C};
    if (n <= (size_t)o->spec->finalists)
      break;
    n = (n + 1) / 2 > (size_t)o->spec->finalists ? (n + 1) / 2 : (size_t)o->spec->finalists;
    *reps = 2 * *reps > o->spec->r_max ? o->spec->r_max : 2 * *reps;
  }
  *nfin = n;
  free(keep), free(ord), free(tmp), free(t);
  return rc;
}

/* The race among the settings fin[0..n) (best first) from reps
 * replications: while the best feasible one's objective is within the 95%
 * interval of another feasible one's (paired, per replication), all run
 * again at twice the replications (up to R_MAX). Fills r's best,
 * baseline, finalists (the best first; none feasible: the least
 * infeasible), close, diff and diff_ci95. */
static int race(opt *o, const setting *fin, size_t n, int reps)
{
  ts_opt_result *r = o->r;
  long *t = malloc((n + 1) * sizeof *t);
  r->finalists = calloc(n + 1, sizeof *r->finalists);
  r->close = calloc(n + 1, 1);
  r->diff = calloc(n + 1, sizeof *r->diff);
  r->diff_ci95 = calloc(n + 1, sizeof *r->diff_ci95);
  if (!t || !r->finalists || !r->close || !r->diff || !r->diff_ci95) {
    free(t);
    return fail(o, TS_SWEEP_NOMEM, "out of memory");
  }
  int sign = o->spec->maximize[0] ? -1 : 1;
  long lead = -1;
  for (;;) {
    if (eval_batch(o, fin, n, reps, TS_OPT_STAGE_RACE, t)) {
      free(t);
      return -1;
    }
    lead = -1;
    size_t top = 0; /* the lead, or without one the least infeasible */
    for (size_t i = 0; i < n; i++) {
      const ts_opt_trial *a = &r->t[t[i]];
      if (a->feasible && isfinite(a->mean[0]) && (lead < 0 || sign * a->mean[0] < sign * r->t[t[lead]].mean[0]))
        lead = (long)i;
      if (a->violation < r->t[t[top]].violation)
        top = i;
    }
    top = lead >= 0 ? (size_t)lead : top;
    int any = 0;
    for (size_t j = 0; j < n; j++) { /* the top first, then the others in the search's order */
      size_t i = j == 0 ? top : j - (j <= top);
      const ts_opt_trial *a = &r->t[t[i]];
      r->finalists[j] = (size_t)t[i];
      r->diff[j] = r->diff_ci95[j] = NAN;
      r->close[j] = 0;
      if (lead < 0 || j == 0)
        continue;
      ts_compare_paired(r->t[t[lead]].rep, a->rep, 1, (size_t)reps, &r->diff[j], &r->diff_ci95[j]);
      r->close[j] = a->feasible && isfinite(r->diff_ci95[j]) && r->diff_ci95[j] > 0 &&
                    fabs(r->diff[j]) <= r->diff_ci95[j];
      any |= r->close[j];
    }
    if (!any || reps >= o->spec->r_max)
      break;
    reps = 2 * reps > o->spec->r_max ? o->spec->r_max : 2 * reps;
  }
  r->nfinalists = n;
  r->best = lead >= 0 ? t[lead] : -1;
  setting base = {NULL, NULL};
  r->baseline = find(o, base, reps);
  free(t);
  return 0;
}

/* Trial i is one the report should rather name than trial j (j < 0: none
 * yet): feasible before infeasible; among feasible ones the lower score
 * (the objective: no penalty), among infeasible ones the least violation. */
static int reportable_before(const opt *o, size_t i, long j)
{
  const ts_opt_trial *a = &o->r->t[i], *b = j < 0 ? NULL : &o->r->t[j];
  if (!b || a->feasible != b->feasible)
    return !b || a->feasible;
  return a->feasible ? a->score < b->score : a->violation < b->violation;
}

/* Make sure the race among fin[0..n) (room: n) can name the best feasible
 * setting the search tried, or, none being feasible, the least infeasible:
 * the penalty ranks an infeasible setting with a much better objective above
 * every feasible one when it is weak (a small baseline objective), so the
 * search's best by score may all be infeasible. When fin holds no feasible
 * setting but the search tried one (any replications), the best feasible
 * one takes the last place; none being feasible, the least infeasible does. */
static void keep_reportable(const opt *o, setting *fin, size_t n)
{
  long want = -1;
  for (size_t i = 0; i < o->r->ntrials; i++) {
    const ts_opt_trial *t = &o->r->t[i];
    if (t->stage != TS_OPT_STAGE_RACE && t->score < FAILED_SCORE && reportable_before(o, i, want))
      want = (long)i;
  }
  if (want < 0 || n == 0)
    return;
  const ts_opt_trial *w = &o->r->t[want];
  for (size_t i = 0; i < n; i++) {
    if (same_setting(o, w, fin[i]))
      return;
    long f = find(o, fin[i], w->replications);
    if (w->feasible && f >= 0 && o->r->t[f].feasible)
      return;
  }
  fin[n - 1] = setting_of(w);
}

/* The FINALISTS best distinct settings the search evaluated at its
 * replications (the scenario's own among them: it may be the best), best
 * first, into fin (room: FINALISTS), the best feasible (or least
 * infeasible) among them (keep_reportable). Returns how many. */
static size_t candidates(const opt *o, setting *fin)
{
  size_t n = 0, cap = (size_t)o->spec->finalists;
  size_t *best = malloc((cap + 1) * sizeof *best);
  for (size_t i = 0; best && i < o->r->ntrials; i++) {
    const ts_opt_trial *t = &o->r->t[i];
    if (t->replications != o->spec->replications || t->score >= FAILED_SCORE)
      continue;
    size_t j = n < cap ? n++ : cap;
    if (j == cap && !(t->score < o->r->t[best[cap - 1]].score))
      continue;
    if (j == cap)
      j = cap - 1;
    for (; j > 0 && t->score < o->r->t[best[j - 1]].score; j--)
      best[j] = best[j - 1];
    best[j] = i;
  }
  if (!best)
    return 0;
  for (size_t i = 0; i < n; i++)
    fin[i] = setting_of(&o->r->t[best[i]]);
  free(best);
  keep_reportable(o, fin, n);
  return n;
}

/* Successive halving's finalists fin[0..n) (best first, at reps; room:
 * n + 1) with the scenario's own setting, a candidate like the search's
 * (candidates): it joins them when they are fewer than FINALISTS, else it
 * takes the last place when its score at reps is better. Returns how many. */
static size_t with_own(const opt *o, setting *fin, size_t n, int reps)
{
  long b = find(o, (setting){NULL, NULL}, reps), w = n ? find(o, fin[n - 1], reps) : -1;
  if (b < 0 || o->r->t[b].score >= FAILED_SCORE)
    return n;
  for (size_t i = 0; i < n; i++)
    if (is_own(o, fin[i])) /* an arm with the scenario's own values is its trial already */
      return n;
  if (n < (size_t)o->spec->finalists)
    n++;
  else if (!(w >= 0 && o->r->t[b].score < o->r->t[w].score))
    return n;
  fin[n - 1] = (setting){NULL, NULL};
  return n;
}

/* One objective with numeric fields (or few combinations): the grid, the
 * local searches from the best arms, the race. */
static int search(opt *o, int *cs)
{
  size_t F = o->spec->nfields, K = F == 0 ? 1 : F == 1 ? (size_t)o->spec->grid : (size_t)o->spec->grid * F;
  double *grid = calloc(K * (F ? F : 1) + 1, sizeof *grid);
  long *trial = malloc((o->narms * K + 1) * sizeof *trial);
  double *xs = malloc((K + 1) * sizeof *xs), *fs = malloc((K + 1) * sizeof *fs);
  size_t *arms = malloc((o->narms + 1) * sizeof *arms);
  long *abest = malloc((o->narms + 1) * sizeof *abest);
  setting *fin = malloc(((size_t)o->spec->finalists + 1) * sizeof *fin);
  int rc = !grid || !trial || !xs || !fs || !arms || !abest || !fin ? fail(o, TS_SWEEP_NOMEM, "out of memory") : 0;
  size_t npts = rc ? 0 : F ? grid_points(o, grid) : 1;
  if (rc == 0)
    rc = grid_stage(o, grid, npts, cs, trial);
  for (size_t a = 0; rc == 0 && a < o->narms; a++) { /* each arm's best grid point */
    arms[a] = a;
    abest[a] = trial[a * npts];
    for (size_t p = 1; p < npts; p++)
      if (o->r->t[trial[a * npts + p]].score < o->r->t[abest[a]].score)
        abest[a] = trial[a * npts + p];
  }
  if (rc == 0)
    by_score(o, abest, arms, o->narms);
  for (size_t i = 0; rc == 0 && F > 0 && i < o->narms && i < (size_t)o->spec->finalists && !o->rc; i++) {
    size_t a = arms[i];
    const int *c = cs + a * o->spec->nchoices;
    if (F == 1) {
      for (size_t p = 0; p < npts; p++) {
        xs[p] = grid[p];
        fs[p] = o->r->t[trial[a * npts + p]].score;
      }
      brent(o, c, xs, fs, npts);
    } else {
      simplex(o, c, o->r->t[abest[a]].x);
    }
  }
  rc = o->rc ? -1 : rc;
  if (rc == 0)
    rc = race(o, fin, candidates(o, fin), o->spec->replications);
  free(grid), free(trial), free(xs), free(fs), free(arms), free(abest), free(fin);
  return rc;
}

/* Two objectives: the grid, then the feasible settings tried (the
 * scenario's own included) no other feasible one dominates. */
static int front(opt *o, int *cs)
{
  size_t F = o->spec->nfields, K = F == 0 ? 1 : F == 1 ? (size_t)o->spec->grid : (size_t)o->spec->grid * F;
  double *grid = calloc(K * (F ? F : 1) + 1, sizeof *grid);
  long *trial = malloc((o->narms * K + 1) * sizeof *trial);
  int rc = !grid || !trial ? fail(o, TS_SWEEP_NOMEM, "out of memory") : 0;
  if (rc == 0)
    rc = grid_stage(o, grid, F ? grid_points(o, grid) : 1, cs, trial);
  ts_opt_result *r = o->r;
  double *f1 = malloc((r->ntrials + 1) * sizeof *f1), *f2 = malloc((r->ntrials + 1) * sizeof *f2);
  unsigned char *skip = malloc(r->ntrials + 1);
  r->front = calloc(r->ntrials + 1, 1);
  if (rc == 0 && (!f1 || !f2 || !skip || !r->front))
    rc = fail(o, TS_SWEEP_NOMEM, "out of memory");
  for (size_t i = 0; rc == 0 && i < r->ntrials; i++) {
    f1[i] = (o->spec->maximize[0] ? -1 : 1) * r->t[i].mean[0];
    f2[i] = (o->spec->maximize[1] ? -1 : 1) * r->t[i].mean[1];
    skip[i] = !r->t[i].feasible;
  }
  if (rc == 0)
    r->nfront = ts_compare_pareto(f1, f2, skip, r->ntrials, r->front);
  r->best = -1;
  r->baseline = 0;
  free(grid), free(trial), free(f1), free(f2), free(skip);
  return rc;
}

/* The measured metric of r (its index in r->metric) that mt is the same as
 * (ts_explore_metric_same), or r->nmetrics; the constraints before
 * r->nconstraints are already measured. */
static size_t measured_as(const ts_opt_spec *sp, const ts_opt_result *r, const ts_explore_metric *mt)
{
  for (int i = 0; i < sp->nobjectives; i++)
    if (ts_explore_metric_same(&sp->objectives[i], mt))
      return (size_t)i;
  for (size_t i = 0; i < r->nconstraints; i++)
    if (ts_explore_metric_same(&sp->constraints[i].metric, mt))
      return (size_t)r->constraint_metric[i];
  return r->nmetrics;
}

/* r's names from spec: fields, choices and their labels, the metrics
 * measured (objectives, then the constraints' other metrics), constraints. */
static int names(const ts_opt_spec *sp, ts_opt_result *r)
{
  r->field = calloc(sp->nfields + 1, sizeof *r->field);
  r->own_text = calloc(sp->nfields + 1, sizeof *r->own_text);
  r->choice = calloc(sp->nchoices + 1, sizeof *r->choice);
  r->label = calloc(sp->nchoices + 1, sizeof *r->label);
  r->nlabels = calloc(sp->nchoices + 1, sizeof *r->nlabels);
  r->metric = calloc((size_t)sp->nobjectives + sp->nconstraints + 1, sizeof *r->metric);
  r->constraint = calloc(sp->nconstraints + 1, sizeof *r->constraint);
  r->constraint_metric = calloc(sp->nconstraints + 1, sizeof *r->constraint_metric);
  if (!r->field || !r->own_text || !r->choice || !r->label || !r->nlabels || !r->metric || !r->constraint || !r->constraint_metric)
    return -1;
  for (; r->nfields < sp->nfields; r->nfields++)
    if (!(r->field[r->nfields] = strdup(sp->fields[r->nfields].path)))
      return -1;
  for (; r->nchoices < sp->nchoices; r->nchoices++) {
    const ts_opt_choice *c = &sp->choices[r->nchoices];
    if (!(r->choice[r->nchoices] = strdup(c->path)) || !(r->label[r->nchoices] = calloc(c->nvalues, sizeof(char *))))
      return -1;
    for (size_t *k = &r->nlabels[r->nchoices]; *k < c->nvalues; ++*k)
      if (!(r->label[r->nchoices][*k] = strdup(c->values[*k])))
        return -1;
  }
  r->nobjectives = sp->nobjectives;
  for (int i = 0; i < sp->nobjectives; i++) {
    r->maximize[i] = sp->maximize[i];
    if (!(r->metric[r->nmetrics++] = strdup(sp->objectives[i].text)))
      return -1;
  }
  for (; r->nconstraints < sp->nconstraints; r->nconstraints++) {
    const ts_opt_constraint *c = &sp->constraints[r->nconstraints];
    size_t m = measured_as(sp, r, &c->metric);
    if (m == r->nmetrics && !(r->metric[r->nmetrics++] = strdup(c->metric.text)))
      return -1;
    r->constraint_metric[r->nconstraints] = (int)m;
    if (!(r->constraint[r->nconstraints] = strdup(c->text)))
      return -1;
  }
  return 0;
}

/* A choice field's value v as the model reads it (JSON when all of it is,
 * else the string, as --set), or NULL out of memory. */
static cJSON *choice_json(const char *v)
{
  cJSON *j = cJSON_ParseWithOpts(v, NULL, 1);
  return j ? j : cJSON_CreateString(v);
}

/* The text of the model's value node (a new string, or NULL out of
 * memory): a string's own text (when it does not read as JSON, e.g. an
 * expression "$join_ms"), else its JSON text. */
static char *own_text(const cJSON *node)
{
  cJSON *probe = cJSON_IsString(node) ? cJSON_Parse(node->valuestring) : NULL;
  char *text = cJSON_IsString(node) && !probe ? strdup(node->valuestring)
               : node                         ? cJSON_PrintUnformatted(node)
                                              : strdup("null");
  cJSON_Delete(probe);
  return text;
}

/* The label of value node, not one of choice j's given values (own_text).
 * Appended to r's labels of j; returns its index, or -1 out of memory. */
static int add_label(ts_opt_result *r, size_t j, const cJSON *node)
{
  char *text = own_text(node);
  char **l = text ? realloc(r->label[j], (r->nlabels[j] + 1) * sizeof *l) : NULL;
  if (!l) {
    free(text);
    return -1;
  }
  r->label[j] = l;
  l[r->nlabels[j]] = text;
  return (int)r->nlabels[j]++;
}

/* The scenario's own setting (what the baseline runs) into o->own_x, own_r
 * and own_c: each field's value in x's model (NAN when it is not a number,
 * whose text goes into r's own_text),
 * each choice field's value as the index of the given value it equals, or
 * of a label added for it (add_label). Returns 0, or -1 out of memory. */
static int own_setting(opt *o, const ts_explore *x)
{
  const ts_opt_spec *sp = o->spec;
  for (size_t f = 0; f < sp->nfields; f++) {
    const cJSON *node = ts_json_get_path(x->tree, sp->fields[f].path);
    const ts_opt_field *fd = &sp->fields[f];
    o->own_x[f] = cJSON_IsNumber(node) ? node->valuedouble : NAN;
    o->own_r[f] = o->own_x[f] >= fd->lo && o->own_x[f] <= fd->hi ? round7(o->own_x[f], fd->lo, fd->hi) : NAN;
    if (!cJSON_IsNumber(node) && !(o->r->own_text[f] = own_text(node)))
      return -1;
  }
  for (size_t j = 0; j < sp->nchoices; j++) {
    const cJSON *node = ts_json_get_path(x->tree, sp->choices[j].path);
    o->own_c[j] = -1;
    for (size_t k = 0; node && k < sp->choices[j].nvalues && o->own_c[j] < 0; k++) {
      cJSON *v = choice_json(sp->choices[j].values[k]);
      if (!v)
        return -1;
      if (cJSON_Compare(node, v, 1))
        o->own_c[j] = (int)k;
      cJSON_Delete(v);
    }
    if (o->own_c[j] < 0 && (o->own_c[j] = add_label(o->r, j, node)) < 0)
      return -1;
  }
  return 0;
}

int ts_opt_run(const ts_explore *x, const ts_opt_spec *spec, ts_opt_result *r, char *err, size_t cap)
{
  memset(r, 0, sizeof *r);
  r->best = r->baseline = -1;
  r->npoints = x->npoints;
  r->max_evals = spec->max_evals;
  r->max_iter = spec->max_iter;
  opt o = {.x = x, .spec = spec, .r = r, .narms = 1, .err = err, .cap = cap};
  err[0] = '\0';
  for (size_t j = 0; j < spec->nchoices; j++)
    o.narms *= spec->choices[j].nvalues;
  o.map = calloc(spec->nfields + 1, sizeof *o.map);
  o.own_x = calloc(spec->nfields + 1, sizeof *o.own_x);
  o.own_r = calloc(spec->nfields + 1, sizeof *o.own_r);
  o.own_c = calloc(spec->nchoices + 1, sizeof *o.own_c);
  int *cs = calloc(o.narms * spec->nchoices + 1, sizeof *cs);
  setting *fin = malloc((o.narms + 1) * sizeof *fin);
  if (!o.map || !o.own_x || !o.own_r || !o.own_c || !cs || !fin || names(spec, r) || own_setting(&o, x)) {
    free(o.map), free(o.own_x), free(o.own_r), free(o.own_c), free(cs), free(fin);
    snprintf(err, cap, "out of memory");
    return TS_SWEEP_NOMEM;
  }
  for (size_t f = 0; f < spec->nfields; f++)
    o.map[f] = (ts_fit_param){.min = spec->fields[f].lo, .max = spec->fields[f].hi};
  size_t nfin = 0;
  int reps = spec->replications;
  if (eval_batch(&o, NULL, 0, reps, TS_OPT_STAGE_BASELINE, NULL) == 0) {
    if (spec->nobjectives == 2)
      front(&o, cs);
    else if (spec->nfields == 0 && o.narms > TS_OPT_HALVING_ABOVE) {
      if (halving(&o, cs, fin, &nfin, &reps) == 0) {
        nfin = with_own(&o, fin, nfin, reps);
        keep_reportable(&o, fin, nfin);
        race(&o, fin, nfin, reps);
      }
    } else {
      search(&o, cs);
    }
  }
  r->evals = o.evals;
  free(o.map), free(o.own_x), free(o.own_r), free(o.own_c), free(cs), free(fin);
  return o.rc;
}
