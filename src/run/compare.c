/* Paired comparisons of variants under common random numbers, and the
 * tables of `tssim sensitivity`. */
#include "run/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/sweep.h"

/* The mean of d[0..k) and its half-width (NAN with one value). */
static void mean_ci(const double *d, size_t k, double *mean, double *ci95)
{
  double sum = 0;
  for (size_t i = 0; i < k; i++)
    sum += d[i];
  *mean = k ? sum / (double)k : NAN;
  *ci95 = ts_ci95(d, 1, k);
}

void ts_compare_elasticity(const double *lo, const double *base, const double *hi, size_t stride, size_t reps,
                           double rel_step, double *mean, double *ci95)
{
  double *e = malloc((reps ? reps : 1) * sizeof *e);
  *mean = *ci95 = NAN;
  if (!e)
    return;
  size_t k = 0;
  for (; k < reps; k++) {
    double l = lo[k * stride], b = base[k * stride], h = hi[k * stride];
    if (isnan(l) || isnan(b) || isnan(h) || b == 0)
      break;
    e[k] = (h - l) / (rel_step * b);
  }
  if (k == reps && reps > 0)
    mean_ci(e, k, mean, ci95);
  free(e);
}

void ts_compare_paired(const double *a, const double *b, size_t stride, size_t reps, double *mean, double *ci95)
{
  double *d = malloc((reps ? reps : 1) * sizeof *d);
  *mean = *ci95 = NAN;
  if (!d)
    return;
  size_t k = 0;
  for (; k < reps && !isnan(a[k * stride]) && !isnan(b[k * stride]); k++)
    d[k] = b[k * stride] - a[k * stride];
  if (k == reps && reps > 0)
    mean_ci(d, k, mean, ci95);
  free(d);
}

void ts_compare_ratio(const double *a, const double *b, size_t stride, size_t reps, double *ratio, double *ci95)
{
  *ratio = *ci95 = NAN;
  double sa = 0, sb = 0;
  for (size_t k = 0; k < reps; k++) {
    if (isnan(a[k * stride]) || isnan(b[k * stride]))
      return;
    sa += a[k * stride];
    sb += b[k * stride];
  }
  if (reps == 0 || sa == 0)
    return;
  *ratio = sb / sa;
  double *d = malloc(reps * sizeof *d);
  if (!d)
    return;
  for (size_t k = 0; k < reps; k++)
    d[k] = b[k * stride] - *ratio * a[k * stride];
  *ci95 = ts_ci95(d, 1, reps) / fabs(sa / (double)reps);
  free(d);
}

static int usable(const double *f1, const double *f2, const unsigned char *skip, size_t i)
{
  return !isnan(f1[i]) && !isnan(f2[i]) && !(skip && skip[i]);
}

size_t ts_compare_pareto(const double *f1, const double *f2, const unsigned char *skip, size_t n,
                         unsigned char *front)
{
  size_t on = 0;
  for (size_t i = 0; i < n; i++) {
    front[i] = 0;
    if (!usable(f1, f2, skip, i))
      continue;
    int dominated = 0;
    for (size_t j = 0; j < n && !dominated; j++) {
      if (j == i || !usable(f1, f2, skip, j))
        continue;
      int no_worse = f1[j] <= f1[i] && f2[j] <= f2[i];
      int better = f1[j] < f1[i] || f2[j] < f2[i];
      dominated = no_worse && (better || j < i); /* an equal point before i stands for it */
    }
    front[i] = !dominated;
    on += front[i];
  }
  return on;
}

int ts_compare_sens_alloc(ts_sens_result *r)
{
  size_t ne = r->npoints * r->nmetrics * r->nparams, nv = ne * r->nscales;
  r->elasticity = malloc((ne + 1) * sizeof *r->elasticity);
  r->elasticity_ci95 = malloc((ne + 1) * sizeof *r->elasticity_ci95);
  r->value = malloc((nv + 1) * sizeof *r->value);
  r->value_ci95 = malloc((nv + 1) * sizeof *r->value_ci95);
  r->digits = calloc(r->nmetrics + 1, sizeof *r->digits);
  r->below = malloc((ne + 1) * sizeof *r->below);
  r->above = malloc((ne + 1) * sizeof *r->above);
  r->jump = calloc(ne + 1, 1);
  if (!r->elasticity || !r->elasticity_ci95 || !r->value || !r->value_ci95 || !r->digits || !r->below || !r->above ||
      !r->jump)
    return -1;
  for (size_t i = 0; i < ne; i++)
    r->elasticity[i] = r->elasticity_ci95[i] = r->below[i] = r->above[i] = NAN;
  for (size_t i = 0; i < nv; i++)
    r->value[i] = r->value_ci95[i] = NAN;
  return 0;
}

static void free_names(char **v, size_t n)
{
  for (size_t i = 0; v && i < n; i++)
    free(v[i]);
  free(v);
}

void ts_compare_sens_finish(ts_sens_result *r)
{
  if (!r)
    return;
  free(r->pt);
  free_names(r->param, r->nparams);
  free_names(r->metric, r->nmetrics);
  free(r->scale);
  free(r->elasticity);
  free(r->elasticity_ci95);
  free(r->below);
  free(r->above);
  free(r->jump);
  free(r->value);
  free(r->value_ci95);
  free(r->digits);
  memset(r, 0, sizeof *r);
}

void ts_compare_sens_rank(const ts_sens_result *r, size_t k, size_t m, size_t *order)
{
  const double *e = r->elasticity + (k * r->nmetrics + m) * r->nparams;
  for (size_t i = 0; i < r->nparams; i++)
    order[i] = i;
  /* insertion sort: stable, and the lists are short */
  for (size_t i = 1; i < r->nparams; i++)
    for (size_t j = i; j > 0; j--) {
      double a = e[order[j - 1]], b = e[order[j]];
      int swap = isnan(a) ? !isnan(b) : !isnan(b) && fabs(b) > fabs(a);
      if (!swap)
        break;
      size_t t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
}

int ts_compare_sens_turns(const ts_sens_result *r, size_t k, size_t m, size_t p)
{
  size_t at = ((k * r->nmetrics + m) * r->nparams + p) * r->nscales;
  const double *v = r->value + at, *h = r->value_ci95 + at;
  int up = 0, down = 0;
  double last = NAN, last_h = 0, last_s = -1;
  for (;;) { /* the scales in ascending order: the least above last_s, each time */
    size_t j = r->nscales;
    for (size_t i = 0; i < r->nscales; i++)
      if (r->scale[i] > last_s && !isnan(v[i]) && (j == r->nscales || r->scale[i] < r->scale[j]))
        j = i;
    if (j == r->nscales)
      break;
    double hj = isnan(h[j]) ? 0 : h[j], d = v[j] - last;
    double tol = fmax(last_h + hj, 1e-9 * fmax(fabs(v[j]), fabs(last)));
    up |= d > tol;
    down |= d < -tol;
    last = v[j];
    last_h = hj;
    last_s = r->scale[j];
  }
  return up && down;
}

const char *ts_compare_stage_name(int stage)
{
  static const char *const names[] = {"baseline", "grid", "brent", "simplex", "halving", "race"};
  return stage >= 0 && stage < TS_OPT_NSTAGES ? names[stage] : "?";
}

static void trial_finish(ts_opt_trial *t)
{
  free(t->x);
  free(t->choice);
  free(t->mean);
  free(t->ci95);
  free(t->rep);
  free(t->pt_mean);
}

void ts_compare_opt_finish(ts_opt_result *r)
{
  if (!r)
    return;
  free_names(r->field, r->nfields);
  free_names(r->own_text, r->nfields);
  for (size_t i = 0; r->label && i < r->nchoices; i++)
    free_names(r->label[i], r->nlabels[i]);
  free(r->label);
  free(r->nlabels);
  free_names(r->choice, r->nchoices);
  free_names(r->metric, r->nmetrics);
  free_names(r->constraint, r->nconstraints);
  free(r->constraint_metric);
  for (size_t i = 0; r->t && i < r->ntrials; i++)
    trial_finish(&r->t[i]);
  free(r->t);
  free(r->finalists);
  free(r->close);
  free(r->diff);
  free(r->diff_ci95);
  free(r->front);
  memset(r, 0, sizeof *r);
}
