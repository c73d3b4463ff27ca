#include "fit/loo.h"

#include <stdlib.h>
#include <string.h>

void ts_fit_loo_finish(ts_fit_loo *l)
{
  if (!l)
    return;
  free(l->values);
  free(l->objective);
  free(l->iterations);
  free(l->evaluations);
  free(l->from);
  free(l->predicted);
  memset(l, 0, sizeof *l);
}

int ts_fit_loo_check(const ts_fit_problem *pb, ts_err *e)
{
  if (pb->npt < 2)
    return ts_err_set(e, pb->baseline_file, NULL, "--loo needs at least 2 recorded (n, workers) points, the baseline has %zu",
                      pb->npt);
  for (size_t k = 0; k < pb->npt; k++) {
    size_t kept = 0;
    for (size_t i = 0; i < pb->nt; i++)
      kept += pb->t[i].point != k && pb->t[i].weight > 0;
    if (kept < pb->params->n)
      return ts_err_set(e, pb->baseline_file, NULL,
                        "--loo: without the point n=%d workers=%d, %zu recorded value(s) remain for %zu free "
                        "parameters: expected at least as many values as parameters",
                        pb->pt[k].n, pb->pt[k].workers, kept, pb->params->n);
  }
  return 0;
}

/* out from the refits' results rs[0..npt). */
static void loo_fill(const ts_fit_problem *pb, const ts_fit_result *rs, ts_fit_loo *out)
{
  size_t nk = pb->params->n;
  for (size_t k = 0; k < pb->npt; k++) {
    const ts_fit_result *r = &rs[k];
    memcpy(out->values + k * nk, r->values, nk * sizeof *r->values);
    out->objective[k] = r->objective;
    out->iterations[k] = r->iterations;
    out->evaluations[k] = r->evaluations;
    out->from[k] = r->local[r->best].from;
    out->sequence = r->sequence;
    for (size_t i = 0; i < pb->nt; i++)
      if (pb->t[i].point == k)
        out->predicted[i] = r->sim[i];
  }
}

static int loo_alloc(const ts_fit_problem *pb, ts_fit_loo *out, ts_err *e)
{
  size_t np = pb->npt, nk = pb->params->n;
  memset(out, 0, sizeof *out);
  out->npoints = np;
  out->nparams = nk;
  out->values = calloc(np * nk + 1, sizeof *out->values);
  out->objective = calloc(np + 1, sizeof *out->objective);
  out->iterations = calloc(np + 1, sizeof *out->iterations);
  out->evaluations = calloc(np + 1, sizeof *out->evaluations);
  out->from = calloc(np + 1, sizeof *out->from);
  out->predicted = calloc(pb->nt + 1, sizeof *out->predicted);
  if (!out->values || !out->objective || !out->iterations || !out->evaluations || !out->from || !out->predicted)
    return ts_err_set(e, pb->file, NULL, "out of memory");
  return 0;
}

/* Fits [first, first + np] side by side: with_fit, the fit itself (all
 * targets) first, then each refit. */
static int runs(ts_fit_problem *pb, const double *start, const ts_fit_options *o, int with_fit, ts_fit_result *rs,
                ts_err *e, size_t *failed)
{
  size_t np = pb->npt, nf = np + (with_fit ? 1 : 0);
  const unsigned char **uses = calloc(nf, sizeof *uses);
  unsigned char *masks = calloc(np * pb->nt + 1, 1);
  int rc;
  if (!uses || !masks) {
    rc = ts_err_set(e, pb->file, NULL, "out of memory");
  } else {
    for (size_t k = 0; k < np; k++) {
      for (size_t i = 0; i < pb->nt; i++)
        masks[k * pb->nt + i] = pb->t[i].point != k;
      uses[k + (with_fit ? 1 : 0)] = masks + k * pb->nt;
    }
    rc = ts__fit_minimize_runs(pb, nf, uses, start, o, rs, e, with_fit ? -1 : 0, failed);
  }
  free(uses);
  free(masks);
  return rc;
}

int ts_fit_loo_run(ts_fit_problem *pb, const double *start, const ts_fit_options *o,
                   void (*before_refit)(void *data, size_t k, size_t npoints), void *data, ts_fit_loo *out,
                   ts_err *e)
{
  if (loo_alloc(pb, out, e) || ts_fit_loo_check(pb, e))
    return -1;
  for (size_t k = 0; before_refit && k < pb->npt; k++)
    before_refit(data, k, pb->npt);
  ts_fit_result *rs = calloc(pb->npt + 1, sizeof *rs);
  if (!rs)
    return ts_err_set(e, pb->file, NULL, "out of memory");
  /* the refits run side by side (ts_fit_minimize_many: the same results as
   * one after another) */
  int rc = runs(pb, start, o, 0, rs, e, NULL);
  if (rc == 0)
    loo_fill(pb, rs, out);
  for (size_t k = 0; k < pb->npt; k++)
    ts_fit_result_finish(&rs[k]);
  free(rs);
  return rc;
}

int ts_fit_fit_and_loo(ts_fit_problem *pb, const double *start, const ts_fit_options *o, ts_fit_result *fit,
                       ts_fit_loo *out, int *stage, ts_err *e)
{
  *stage = 0;
  memset(fit, 0, sizeof *fit);
  if (loo_alloc(pb, out, e) || ts_fit_loo_check(pb, e)) {
    *stage = 1;
    return -1;
  }
  ts_fit_result *rs = calloc(pb->npt + 2, sizeof *rs);
  if (!rs)
    return ts_err_set(e, pb->file, NULL, "out of memory");
  size_t failed = 0;
  int rc = runs(pb, start, o, 1, rs, e, &failed);
  *fit = rs[0];
  if (rc == 0)
    loo_fill(pb, rs + 1, out);
  else
    *stage = failed > 0; /* the first fit that failed: the fit itself, or a refit */
  for (size_t k = 1; k <= pb->npt; k++)
    ts_fit_result_finish(&rs[k]);
  free(rs);
  return rc;
}
