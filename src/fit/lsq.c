/* The least-squares local search (fit/lsq.h): GSL's trust region driven
 * step by step (init, iterate, our own tests), with a forward-difference
 * Jacobian that reuses the residuals GSL evaluated last. */
#include "fit/lsq.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_multifit_nlinear.h>

/* A residual for a simulated value that is not finite: large, finite (GSL
 * needs finite values) and still far from overflowing when squared and summed. */
#define FAILED_RESIDUAL 1e100
/* An iteration, or a round, that lowers the objective by less than this
 * fraction of itself ends the round, or the search. */
#define LSQ_FTOL 1e-4

typedef struct lsq_ctx {
  ts_fit_problem *pb;
  const unsigned char *use;
  double *values;   /* scratch: the values of the point being evaluated */
  double *sim;      /* scratch: its simulated targets */
  double *f0;       /* the residuals at the Jacobian's point */
  double *last_x;   /* the point evaluated last, and its residuals */
  double *last_r;
  int have_last;
  gsl_vector *xj;   /* the Jacobian's displaced point */
  double h;         /* forward-difference step */
  int rc;           /* the first failure of an evaluation, 0 if none */
  ts_err *e;
} lsq_ctx;

/* The residuals at mapped point x into r (one per target). Returns
 * GSL_SUCCESS, or GSL_EBADFUNC when the evaluation failed (c->rc, c->e). */
static int residuals(const gsl_vector *x, void *data, gsl_vector *r)
{
  lsq_ctx *c = data;
  ts_fit_problem *pb = c->pb;
  if (c->rc)
    return GSL_EBADFUNC;
  for (size_t i = 0; i < pb->params->n; i++)
    c->values[i] = ts_fit_unmap(&pb->params->p[i], gsl_vector_get(x, i));
  c->rc = ts_fit_eval(pb, c->values, c->sim, c->e);
  if (c->rc)
    return GSL_EBADFUNC;
  for (size_t i = 0; i < pb->nt; i++) {
    const ts_fit_target *t = &pb->t[i];
    double v = 0;
    if ((!c->use || c->use[i]) && t->weight > 0) {
      v = sqrt(t->weight) * (c->sim[i] - t->recorded) / t->recorded;
      v = isfinite(v) ? v : FAILED_RESIDUAL;
    }
    gsl_vector_set(r, i, v);
    c->last_r[i] = v;
  }
  for (size_t i = 0; i < pb->params->n; i++)
    c->last_x[i] = gsl_vector_get(x, i);
  c->have_last = 1;
  return GSL_SUCCESS;
}

/* The Jacobian at x by forward differences of step h in each mapped
 * coordinate. GSL evaluates the residuals at x just before (at the start,
 * and at the step it accepts) but does not pass them here: they are taken
 * from the last evaluation when it was of x, else evaluated. */
static int jacobian(const gsl_vector *x, void *data, gsl_matrix *J)
{
  lsq_ctx *c = data;
  size_t nt = c->pb->nt, p = c->pb->params->n;
  gsl_vector_view f0 = gsl_vector_view_array(c->f0, nt);
  int rc = GSL_SUCCESS;
  if (c->rc)
    return GSL_EBADFUNC;
  int same = c->have_last;
  for (size_t j = 0; j < p && same; j++)
    same = c->last_x[j] == gsl_vector_get(x, j);
  if (same)
    memcpy(c->f0, c->last_r, nt * sizeof *c->f0);
  else
    rc = residuals(x, c, &f0.vector);
  for (size_t j = 0; j < p && rc == GSL_SUCCESS; j++) {
    gsl_vector_memcpy(c->xj, x);
    gsl_vector_set(c->xj, j, gsl_vector_get(x, j) + c->h);
    gsl_vector_view col = gsl_matrix_column(J, j);
    rc = residuals(c->xj, c, &col.vector);
    gsl_vector_sub(&col.vector, &f0.vector);
    gsl_vector_scale(&col.vector, 1 / c->h);
  }
  return rc;
}

/* The objective of GSL's current point: the sum of its squared residuals. */
static double sum_sq(gsl_multifit_nlinear_workspace *w)
{
  double d;
  gsl_blas_ddot(w->f, w->f, &d);
  return d;
}

/* One round: a fresh trust region at x, iterated until no lower point is
 * found (GSL_ENOPROG), the last step moved no coordinate more than tol, the
 * objective is 0, or the budget of o->max_iter iterations is spent (*spent).
 * x receives the round's point, *f its objective. Returns 0, the
 * evaluation's failure, or -2 for another GSL failure (e filled). */
static int round_run(gsl_multifit_nlinear_workspace *w, gsl_multifit_nlinear_fdf *fdf, gsl_vector *x, lsq_ctx *c,
                     const ts_fit_options *o, ts_fit_local *L, int search, int searches, double *f, int *spent)
{
  size_t p = x->size;
  *spent = 0;
  int status = gsl_multifit_nlinear_init(x, fdf, w);
  double before = status == GSL_SUCCESS ? sum_sq(w) : 0;
  while (status == GSL_SUCCESS) {
    if (L->iterations >= o->max_iter) {
      *spent = 1;
      break;
    }
    status = gsl_multifit_nlinear_iterate(w);
    L->iterations++;
    if (status != GSL_SUCCESS)
      break;
    double step = 0;
    for (size_t i = 0; i < p; i++)
      step = fmax(step, fabs(gsl_vector_get(w->dx, i)));
    if (o->progress) {
      for (size_t i = 0; i < p; i++)
        c->values[i] = ts_fit_unmap(&c->pb->params->p[i], gsl_vector_get(w->x, i));
      ts_fit_progress pr = {search, searches, L->rounds, L->iterations, sum_sq(w), step, c->values, -1};
      o->progress(o->progress_data, &pr);
    }
    double now = sum_sq(w);
    if (step < o->tol || now == 0 || before - now < LSQ_FTOL * before)
      break;
    before = now;
  }
  if (c->rc)
    return c->rc;
  if (status != GSL_SUCCESS && status != GSL_ENOPROG) {
    ts_err_set(c->e, c->pb->file, NULL, "least squares: %s", gsl_strerror(status));
    return -2;
  }
  gsl_vector_memcpy(x, w->x);
  *f = sum_sq(w);
  return 0;
}

int ts__fit_lsq_search(ts_fit_problem *pb, const unsigned char *use, const ts_fit_options *o, double *x0,
                       ts_fit_local *L, int search, int searches, double *values, double *sim, ts_err *e)
{
  size_t p = pb->params->n, nt = pb->nt;
  lsq_ctx c = {.pb = pb, .use = use, .values = values, .sim = sim, .e = e, .h = o->lsq_step};
  c.f0 = calloc(nt + 1, sizeof *c.f0);
  c.last_r = calloc(nt + 1, sizeof *c.last_r);
  c.last_x = calloc(p + 1, sizeof *c.last_x);
  c.xj = gsl_vector_alloc(p);
  gsl_vector *x = gsl_vector_alloc(p);
  gsl_multifit_nlinear_parameters params = gsl_multifit_nlinear_default_parameters();
  params.trs = gsl_multifit_nlinear_trs_lm;
  gsl_multifit_nlinear_fdf fdf = {.f = residuals, .df = jacobian, .fvv = NULL, .n = nt, .p = p, .params = &c};
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(gsl_multifit_nlinear_trust, &params, nt, p);
  int rc = 0;
  if (!c.f0 || !c.last_r || !c.last_x || !c.xj || !x || !w) {
    ts_err_set(e, pb->file, NULL, "out of memory");
    rc = -2;
    goto out;
  }
  memcpy(x->data, x0, p * sizeof *x0);
  double best = HUGE_VAL;
  int spent = 0;
  while (L->rounds < o->max_rounds) {
    L->rounds++;
    double f;
    if ((rc = round_run(w, &fdf, x, &c, o, L, search, searches, &f, &spent)))
      goto out;
    int stalled = L->rounds > 1 && best - f < LSQ_FTOL * best;
    best = f < best ? f : best;
    if (spent || stalled || f == 0)
      break;
  }
  memcpy(x0, x->data, p * sizeof *x0);
  L->objective = best;
  L->converged = !spent;
out:
  gsl_multifit_nlinear_free(w);
  gsl_vector_free(x);
  gsl_vector_free(c.xj);
  free(c.f0);
  free(c.last_r);
  free(c.last_x);
  return rc;
}
