#include "fit/minimize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_multimin.h>

/* What the simplex sees when an evaluation failed: finite (GSL rejects
 * non-finite values) and worse than any real objective. */
#define FAILED_OBJECTIVE 1e300
/* Iterations without a better best value that end a round. */
#define STALL(n) (50 + 10 * (int)(n))

typedef struct ctx {
  ts_fit_problem *pb;
  const unsigned char *use;
  double *values;   /* scratch: the values of the point being evaluated */
  double *sim;      /* scratch: its simulated targets */
  int rc;           /* first failure of an evaluation, 0 if none */
  ts_err *e;
} ctx;

double ts_fit_unmap(const ts_fit_param *p, double x)
{
  double v = p->min + (p->max - p->min) * (1 + sin(x)) / 2;
  char text[32];
  snprintf(text, sizeof text, "%.7g", v);
  v = strtod(text, NULL);
  return v < p->min ? p->min : v > p->max ? p->max : v;
}

double ts_fit_map(const ts_fit_param *p, double value)
{
  double u = 2 * (value - p->min) / (p->max - p->min) - 1;
  return asin(u < -1 ? -1 : u > 1 ? 1 : u);
}

static void unmap_all(const ts_fit_params *ps, const gsl_vector *x, double *values)
{
  for (size_t i = 0; i < ps->n; i++)
    values[i] = ts_fit_unmap(&ps->p[i], gsl_vector_get(x, i));
}

static double objective(const gsl_vector *x, void *data)
{
  ctx *c = data;
  if (c->rc)
    return FAILED_OBJECTIVE;
  unmap_all(c->pb->params, x, c->values);
  c->rc = ts_fit_eval(c->pb, c->values, c->sim, c->e);
  return c->rc ? FAILED_OBJECTIVE : ts_fit_objective(c->pb, c->sim, c->use);
}

void ts_fit_result_finish(ts_fit_result *r)
{
  if (!r)
    return;
  free(r->values);
  free(r->sim);
  memset(r, 0, sizeof *r);
}

/* One round: a fresh simplex around x, iterated until it is smaller than
 * tol, the objective is 0, the best value has not improved for STALL
 * iterations (a plateau: the simplex can cycle on one without shrinking),
 * or the iteration budget is spent. Returns 0 or
 * the evaluation's failure; *spent is 1 when the budget ran out. */
static int round_run(gsl_multimin_fminimizer *s, gsl_multimin_function *F, gsl_vector *x, gsl_vector *step,
                     const ts_fit_options *o, ts_fit_result *r, ctx *c, int *spent)
{
  gsl_multimin_fminimizer_set(s, F, x, step);
  *spent = 0;
  double best = HUGE_VAL;
  int stall = 0;
  /* (the minimizer's fval is valid only after an iteration) */
  while (c->rc == 0) {
    if (r->iterations >= o->max_iter) {
      *spent = 1;
      break;
    }
    int status = gsl_multimin_fminimizer_iterate(s);
    r->iterations++;
    double size = gsl_multimin_fminimizer_size(s);
    if (c->rc == 0 && o->progress) {
      unmap_all(c->pb->params, gsl_multimin_fminimizer_x(s), r->values);
      ts_fit_progress p = {r->rounds, r->iterations, gsl_multimin_fminimizer_minimum(s), size, r->values};
      o->progress(o->progress_data, &p);
    }
    double f = gsl_multimin_fminimizer_minimum(s);
    stall = f < best ? 0 : stall + 1;
    best = f < best ? f : best;
    if (status != 0 || size < o->tol || f == 0 || stall >= STALL(F->n))
      break;
  }
  gsl_vector_memcpy(x, gsl_multimin_fminimizer_x(s));
  return c->rc;
}

int ts_fit_minimize(ts_fit_problem *pb, const unsigned char *use, const double *start, const ts_fit_options *o,
                    ts_fit_result *r, ts_err *e)
{
  const ts_fit_params *ps = pb->params;
  size_t n = ps->n;
  ts_fit_options opt = o ? *o : (ts_fit_options){0};
  opt.step = opt.step > 0 ? opt.step : 0.3;
  opt.tol = opt.tol > 0 ? opt.tol : 1e-6;
  opt.max_iter = opt.max_iter > 0 ? opt.max_iter : 2000;
  opt.max_rounds = opt.max_rounds > 0 ? opt.max_rounds : 4;
  memset(r, 0, sizeof *r);
  ctx c = {.pb = pb, .use = use, .e = e};
  size_t before = pb->evaluations;
  r->values = calloc(n, sizeof *r->values);
  r->sim = calloc(pb->nt + 1, sizeof *r->sim);
  c.values = calloc(n, sizeof *c.values);
  c.sim = calloc(pb->nt + 1, sizeof *c.sim);
  gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
  gsl_vector *x = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
  int rc = -2;
  if (!r->values || !r->sim || !c.values || !c.sim || !s || !x || !step) {
    ts_err_set(e, pb->file, NULL, "out of memory");
    goto out;
  }
  for (size_t i = 0; i < n; i++)
    gsl_vector_set(x, i, ts_fit_map(&ps->p[i], start[i]));
  gsl_vector_set_all(step, opt.step);
  gsl_multimin_function F = {.f = objective, .n = n, .params = &c};
  double best = HUGE_VAL;
  int spent = 0;
  while (r->rounds < opt.max_rounds) {
    r->rounds++;
    if ((rc = round_run(s, &F, x, step, &opt, r, &c, &spent)) != 0)
      goto out;
    double f = gsl_multimin_fminimizer_minimum(s);
    int stalled = r->rounds > 1 && best - f <= 1e-9 * best;
    best = f < best ? f : best;
    if (spent || stalled || f == 0)
      break;
  }
  r->converged = !spent;
  unmap_all(ps, x, r->values);
  rc = ts_fit_eval(pb, r->values, r->sim, e);
  r->objective = ts_fit_objective(pb, r->sim, use);
out:
  r->evaluations = pb->evaluations - before;
  gsl_vector_free(x);
  gsl_vector_free(step);
  gsl_multimin_fminimizer_free(s);
  free(c.values);
  free(c.sim);
  return rc;
}
