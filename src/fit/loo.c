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

int ts_fit_loo_run(ts_fit_problem *pb, const double *start, const ts_fit_options *o,
                   void (*before_refit)(void *data, size_t k, size_t npoints), void *data, ts_fit_loo *out,
                   ts_err *e)
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
  unsigned char *use = calloc(pb->nt + 1, 1);
  int rc = -1;
  if (!out->values || !out->objective || !out->iterations || !out->evaluations || !out->from || !out->predicted ||
      !use) {
    ts_err_set(e, pb->file, NULL, "out of memory");
    goto out;
  }
  if (ts_fit_loo_check(pb, e))
    goto out;
  for (size_t k = 0; k < np; k++) {
    for (size_t i = 0; i < pb->nt; i++)
      use[i] = pb->t[i].point != k;
    if (before_refit)
      before_refit(data, k, np);
    ts_fit_result r;
    rc = ts_fit_minimize(pb, use, start, o, &r, e);
    if (rc == 0) {
      memcpy(out->values + k * nk, r.values, nk * sizeof *r.values);
      out->objective[k] = r.objective;
      out->iterations[k] = r.iterations;
      out->evaluations[k] = r.evaluations;
      out->from[k] = r.local[r.best].from;
      out->sequence = r.sequence;
      for (size_t i = 0; i < pb->nt; i++)
        if (pb->t[i].point == k)
          out->predicted[i] = r.sim[i];
    }
    ts_fit_result_finish(&r);
    if (rc)
      goto out;
  }
out:
  free(use);
  return rc;
}
