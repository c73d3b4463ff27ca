#include "fit/minimize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multimin.h>
#include <gsl/gsl_qrng.h>

/* What the simplex sees when an evaluation failed or was not finite: finite
 * (GSL rejects non-finite values) and worse than any real objective. */
#define FAILED_OBJECTIVE 1e300
/* Iterations without a better best value that end a round. */
#define STALL(n) (50 + 10 * (int)(n))
/* The most dimensions of gsl_qrng_sobol; Halton beyond. */
#define SOBOL_MAX_PARAMS 40

typedef struct ctx {
  ts_fit_problem *pb;
  const unsigned char *use;
  const ts_fit_options *o;
  double *values;   /* scratch: the values of the point being evaluated */
  double *sim;      /* scratch: its simulated targets */
  double *shown;    /* scratch: the values a progress report shows */
  int search;       /* the local search running (1-based), for progress */
  int searches;
  int rc;           /* first failure of an evaluation, 0 if none */
  ts_err *e;
} ctx;

/* A point of the multi-start stage: 0 = the start, k = the k-th quasi-random point. */
typedef struct cand {
  double f;
  int from;
} cand;

double ts_fit_unmap(const ts_fit_param *p, double x)
{
  double v = p->min + (p->max - p->min) * (1 + sin(x)) / 2;
  char text[32];
  snprintf(text, sizeof text, "%.7g", v);
  v = strtod(text, NULL);
  double snap = 1e-9 * (p->max - p->min); /* so a fit can land exactly on a bound */
  return v < p->min + snap ? p->min : v > p->max - snap ? p->max : v;
}

int ts_fit_at_bound(const ts_fit_param *p, double value)
{
  double near = 1e-4 * (p->max - p->min);
  return value <= p->min + near || value >= p->max - near;
}

double ts_fit_map(const ts_fit_param *p, double value)
{
  double u = 2 * (value - p->min) / (p->max - p->min) - 1;
  return asin(u < -1 ? -1 : u > 1 ? 1 : u);
}

static void unmap_all(const ts_fit_params *ps, const double *x, double *values)
{
  for (size_t i = 0; i < ps->n; i++)
    values[i] = ts_fit_unmap(&ps->p[i], x[i]);
}

static double objective(const gsl_vector *x, void *data)
{
  ctx *c = data;
  if (c->rc)
    return FAILED_OBJECTIVE;
  for (size_t i = 0; i < c->pb->params->n; i++)
    c->values[i] = ts_fit_unmap(&c->pb->params->p[i], gsl_vector_get(x, i));
  c->rc = ts_fit_eval(c->pb, c->values, c->sim, c->e);
  double f = c->rc ? FAILED_OBJECTIVE : ts_fit_objective(c->pb, c->sim, c->use);
  return isfinite(f) ? f : FAILED_OBJECTIVE; /* a NaN would also break the ordering of the starts */
}

void ts_fit_result_finish(ts_fit_result *r)
{
  if (!r)
    return;
  free(r->values);
  free(r->sim);
  free(r->local);
  memset(r, 0, sizeof *r);
}

/* One round: a fresh simplex around x, iterated until it is smaller than
 * tol, the objective is 0, the best value has not improved for STALL
 * iterations (a plateau: the simplex can cycle on one without shrinking),
 * or the local search's iteration budget is spent. x receives the best
 * point. Returns 0 or the evaluation's failure; *spent is 1 when the budget
 * ran out. */
static int round_run(gsl_multimin_fminimizer *s, gsl_multimin_function *F, gsl_vector *x, const gsl_vector *step,
                     ts_fit_local *L, ctx *c, int *spent)
{
  const ts_fit_options *o = c->o;
  gsl_multimin_fminimizer_set(s, F, x, step);
  *spent = 0;
  double best = HUGE_VAL;
  int stall = 0;
  /* (the minimizer's fval is valid only after an iteration) */
  while (c->rc == 0) {
    if (L->iterations >= o->max_iter) {
      *spent = 1;
      break;
    }
    int status = gsl_multimin_fminimizer_iterate(s);
    L->iterations++;
    double size = gsl_multimin_fminimizer_size(s);
    double f = gsl_multimin_fminimizer_minimum(s);
    if (c->rc == 0 && o->progress) {
      unmap_all(c->pb->params, gsl_multimin_fminimizer_x(s)->data, c->shown);
      ts_fit_progress p = {c->search, c->searches, L->rounds, L->iterations, f, size, c->shown};
      o->progress(o->progress_data, &p);
    }
    stall = f < best ? 0 : stall + 1;
    best = f < best ? f : best;
    if (status != 0 || size < o->tol || f == 0 || stall >= STALL(F->n))
      break;
  }
  gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(s));
  return c->rc;
}

/* One local search from x: rounds until one improves the objective by less
 * than 1e-6 of itself, the objective is 0, or the budget is spent. x
 * receives the best point, L how it went. Returns 0 or the evaluation's
 * failure. */
static int local_run(gsl_multimin_fminimizer *s, gsl_multimin_function *F, gsl_vector *x, const gsl_vector *step,
                     ts_fit_local *L, ctx *c)
{
  double best = HUGE_VAL;
  int spent = 0;
  while (L->rounds < c->o->max_rounds) {
    L->rounds++;
    if (round_run(s, F, x, step, L, c, &spent))
      return c->rc;
    /* each round's simplex has the previous round's best point as a vertex, so f <= best */
    double f = gsl_multimin_fminimizer_minimum(s);
    int stalled = L->rounds > 1 && best - f <= 1e-6 * best;
    best = f < best ? f : best;
    if (spent || stalled || f == 0)
      break;
  }
  L->objective = best;
  L->converged = !spent;
  return 0;
}

static int cand_less(const void *a, const void *b)
{
  const cand *x = a, *y = b;
  if (x->f != y->f)
    return x->f < y->f ? -1 : 1;
  return (x->from > y->from) - (x->from < y->from);
}

/* Fill xs (npoints rows of n mapped coordinates): row 0 the start, row k the
 * k-th point of the quasi-random sequence over the bounds. Returns the
 * sequence's name, or NULL when memory runs out. */
static const char *sample(const ts_fit_params *ps, const double *start, size_t npoints, double *xs)
{
  size_t n = ps->n;
  for (size_t i = 0; i < n; i++)
    xs[i] = ts_fit_map(&ps->p[i], start[i]);
  if (npoints < 2)
    return "none";
  int sobol = n <= SOBOL_MAX_PARAMS;
  gsl_qrng *q = gsl_qrng_alloc(sobol ? gsl_qrng_sobol : gsl_qrng_halton, (unsigned)n);
  double *u = calloc(n, sizeof *u);
  if (!q || !u) {
    gsl_qrng_free(q);
    free(u);
    return NULL;
  }
  for (size_t k = 1; k < npoints; k++) {
    gsl_qrng_get(q, u);
    for (size_t i = 0; i < n; i++) {
      const ts_fit_param *p = &ps->p[i];
      xs[k * n + i] = ts_fit_map(p, p->min + u[i] * (p->max - p->min));
    }
  }
  gsl_qrng_free(q);
  free(u);
  return sobol ? "sobol" : "halton";
}

/* Choose up to want points, best objective first, skipping a point whose
 * values equal a chosen one's (a local search from it would repeat).
 * pts is sorted by cand_less; chosen receives indices into it. Returns how
 * many were chosen. */
static int choose(const ts_fit_params *ps, const cand *pts, size_t npoints, const double *xs, int want, int *chosen,
                  double *va, double *vb)
{
  size_t n = ps->n;
  int got = 0;
  for (size_t k = 0; k < npoints && got < want; k++) {
    unmap_all(ps, xs + (size_t)pts[k].from * n, va);
    int same = 0;
    for (int j = 0; j < got && !same; j++) {
      unmap_all(ps, xs + (size_t)pts[chosen[j]].from * n, vb);
      same = memcmp(va, vb, n * sizeof *va) == 0;
    }
    if (!same)
      chosen[got++] = (int)k;
  }
  return got;
}

int ts_fit_minimize(ts_fit_problem *pb, const unsigned char *use, const double *start, const ts_fit_options *o,
                    ts_fit_result *r, ts_err *e)
{
  const ts_fit_params *ps = pb->params;
  size_t n = ps->n;
  ts_fit_options opt = o ? *o : (ts_fit_options){0};
  opt.step = opt.step > 0 ? opt.step : 0.3;
  opt.tol = opt.tol > 0 ? opt.tol : 1e-6;
  opt.max_iter = opt.max_iter > 0 ? opt.max_iter : 5000;
  opt.max_rounds = opt.max_rounds > 0 ? opt.max_rounds : 50;
  opt.starts = opt.starts > 0 ? opt.starts : 0;
  opt.searches = opt.searches > 0 ? opt.searches : TS_FIT_DEFAULT_SEARCHES;
  memset(r, 0, sizeof *r);
  if (opt.starts > 0 && n > TS_FIT_MAX_QRNG_PARAMS)
    return ts_err_set(e, pb->file, NULL, "%zu free parameters: quasi-random starts support at most %d (use no starts)",
                      n, TS_FIT_MAX_QRNG_PARAMS);
  ctx c = {.pb = pb, .use = use, .o = &opt, .e = e};
  size_t before = pb->evaluations, npoints = 1 + (size_t)opt.starts;
  int want = opt.searches < (int)npoints ? opt.searches : (int)npoints;
  r->values = calloc(n, sizeof *r->values);
  r->sim = calloc(pb->nt + 1, sizeof *r->sim);
  r->local = calloc((size_t)want, sizeof *r->local);
  c.values = calloc(n, sizeof *c.values);
  c.sim = calloc(pb->nt + 1, sizeof *c.sim);
  c.shown = calloc(n, sizeof *c.shown);
  double *xs = calloc(npoints * n, sizeof *xs), *vb = calloc(n, sizeof *vb);
  cand *pts = calloc(npoints, sizeof *pts);
  int *chosen = calloc((size_t)want, sizeof *chosen);
  gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
  gsl_vector *x = gsl_vector_alloc(n), *best_x = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
  const char *seq = NULL;
  int rc = -2;
  if (!r->values || !r->sim || !r->local || !c.values || !c.sim || !c.shown || !xs || !vb || !pts || !chosen || !s ||
      !x || !best_x || !step || !(seq = sample(ps, start, npoints, xs))) {
    ts_err_set(e, pb->file, NULL, "out of memory");
    goto out;
  }
  r->starts = opt.starts;
  r->sequence = opt.starts > 0 ? seq : NULL;
  /* the multi-start stage */
  for (size_t k = 0; k < npoints; k++) {
    gsl_vector_view v = gsl_vector_view_array(xs + k * n, n);
    pts[k] = (cand){objective(&v.vector, &c), (int)k};
    if (c.rc) {
      rc = c.rc;
      goto out;
    }
  }
  qsort(pts, npoints, sizeof *pts, cand_less);
  c.searches = choose(ps, pts, npoints, xs, want, chosen, c.values, vb);
  if (opt.progress && opt.starts > 0) {
    unmap_all(ps, xs + (size_t)pts[0].from * n, c.shown);
    ts_fit_progress p = {0, c.searches, 0, (int)npoints, pts[0].f, 0, c.shown};
    opt.progress(opt.progress_data, &p);
  }
  /* the local searches */
  gsl_vector_set_all(step, opt.step);
  gsl_multimin_function F = {.f = objective, .n = n, .params = &c};
  r->converged = 1;
  for (int j = 0; j < c.searches; j++) {
    const cand *from = &pts[chosen[j]];
    ts_fit_local *L = &r->local[r->nlocal++];
    L->from = from->from;
    L->sampled = from->f;
    memcpy(x->data, xs + (size_t)from->from * n, n * sizeof *xs);
    c.search = j + 1;
    if ((rc = local_run(s, &F, x, step, L, &c)) != 0)
      goto out;
    r->iterations += L->iterations;
    r->rounds += L->rounds;
    r->converged &= L->converged;
    if (j == 0 || L->objective < r->local[r->best].objective) {
      r->best = j;
      gsl_vector_memcpy(best_x, x);
    }
  }
  unmap_all(ps, best_x->data, r->values);
  rc = ts_fit_eval(pb, r->values, r->sim, e);
  r->objective = ts_fit_objective(pb, r->sim, use);
out:
  r->evaluations = pb->evaluations - before;
  gsl_vector_free(x);
  gsl_vector_free(best_x);
  gsl_vector_free(step);
  gsl_multimin_fminimizer_free(s);
  free(c.values);
  free(c.sim);
  free(c.shown);
  free(xs);
  free(vb);
  free(pts);
  free(chosen);
  return rc;
}
