/* The simplex local search (fit/simplex.h): GSL's nmsimplex2 driven
 * iteration by iteration, with our own end of a round (size, objective 0,
 * plateau) and restarts around the best point. */
#include "fit/simplex.h"

#include <math.h>
#include <string.h>

#include <gsl/gsl_multimin.h>

/* Iterations without a better best value that end a round. */
#define STALL(n) (50 + 10 * (int)(n))

typedef struct nm_ctx {
  ts_fit_problem *pb;
  const unsigned char *use;
  const ts_fit_options *o;
  double *values;   /* scratch: the values of the point being evaluated, then of a progress report */
  double *sim;      /* scratch: its simulated targets */
  int search;       /* the local search running (1-based), for progress */
  int searches;
  int rc;           /* first failure of an evaluation, 0 if none */
  ts_err *e;
} nm_ctx;

static double objective(const gsl_vector *x, void *data)
{
  nm_ctx *c = data;
  if (c->rc)
    return TS_FIT_FAILED_OBJECTIVE;
  for (size_t i = 0; i < c->pb->params->n; i++)
    c->values[i] = ts_fit_unmap(&c->pb->params->p[i], gsl_vector_get(x, i));
  c->rc = ts_fit_eval(c->pb, c->values, c->sim, c->e);
  double f = c->rc ? TS_FIT_FAILED_OBJECTIVE : ts_fit_objective(c->pb, c->sim, c->use);
  return isfinite(f) ? f : TS_FIT_FAILED_OBJECTIVE; /* a NaN would also break the ordering of the starts */
}

/* One round: a fresh simplex around x, iterated until it is smaller than
 * tol, the objective is 0, the best value has not improved for STALL
 * iterations (a plateau: the simplex can cycle on one without shrinking),
 * or the local search's iteration budget is spent. x receives the best
 * point. Returns 0 or the evaluation's failure; *spent is 1 when the budget
 * ran out. */
static int round_run(gsl_multimin_fminimizer *s, gsl_multimin_function *F, gsl_vector *x, const gsl_vector *step,
                     ts_fit_local *L, nm_ctx *c, int *spent)
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
      ts__fit_unmap_all(c->pb->params, gsl_multimin_fminimizer_x(s)->data, c->values);
      ts_fit_progress p = {c->search, c->searches, L->rounds, L->iterations, f, size, c->values, -1};
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
                     ts_fit_local *L, nm_ctx *c)
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

int ts__fit_nm_search(ts_fit_problem *pb, const unsigned char *use, const ts_fit_options *o, double *x0,
                      ts_fit_local *L, int search, int searches, double *values, double *sim, ts_err *e)
{
  size_t n = pb->params->n;
  nm_ctx c = {.pb = pb, .use = use, .o = o, .values = values, .sim = sim, .search = search, .searches = searches,
              .e = e};
  gsl_multimin_fminimizer *s = gsl_multimin_fminimizer_alloc(gsl_multimin_fminimizer_nmsimplex2, n);
  gsl_vector *x = gsl_vector_alloc(n), *step = gsl_vector_alloc(n);
  int rc;
  if (!s || !x || !step) {
    rc = -2;
    ts_err_set(e, pb->file, NULL, "out of memory");
  } else {
    gsl_vector_set_all(step, o->step);
    gsl_multimin_function F = {.f = objective, .n = n, .params = &c};
    memcpy(x->data, x0, n * sizeof *x0);
    rc = local_run(s, &F, x, step, L, &c);
    memcpy(x0, x->data, n * sizeof *x0);
  }
  gsl_vector_free(x);
  gsl_vector_free(step);
  gsl_multimin_fminimizer_free(s);
  return rc;
}
