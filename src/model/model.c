#include "model/model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"

static void free_step(ts_step *s)
{
  free(s->label);
  free(s->where);
  ts_expr_free(s->cost.mean_ms);
  ts_expr_free(s->cost2.mean_ms);
  free(s->cost.emp);
  free(s->cost2.emp);
  ts_expr_free(s->index);
  ts_expr_free(s->expr);
  ts_expr_free(s->cond);
}

void ts_model_finish(ts_model *m)
{
  if (!m)
    return;
  for (size_t c = 0; c < m->nclasses; c++) {
    for (size_t s = 0; s < m->classes[c].nsteps; s++)
      free_step(&m->classes[c].steps[s]);
    free(m->classes[c].steps);
    free(m->classes[c].name);
    ts_expr_free(m->classes[c].count);
    ts_expr_free(m->classes[c].place_worker);
    for (size_t l = 0; l < m->classes[c].nlets; l++) {
      free(m->classes[c].let_names[l]);
      ts_expr_free(m->classes[c].lets[l]);
    }
    free(m->classes[c].let_names);
    free(m->classes[c].lets);
    for (size_t v = 0; v < m->classes[c].nvars; v++)
      free(m->classes[c].var_names[v]);
    free(m->classes[c].var_names);
    free(m->classes[c].var_init);
  }
  for (size_t i = 0; i < m->nsites; i++)
    free(m->sites[i].name);
  free(m->sites);
  for (size_t p = 0; p < m->npools; p++) {
    free(m->pools[p].name);
    ts_expr_free(m->pools[p].count);
  }
  for (size_t l = 0; l < m->nlocks; l++)
    free(m->locks[l].name);
  for (size_t c = 0; c < m->nchans; c++)
    free(m->chans[c].name);
  for (size_t s = 0; s < m->nservers; s++) {
    free(m->servers[s].name);
    ts_expr_free(m->servers[s].worker);
  }
  for (size_t c = 0; c < m->ncounters; c++)
    free(m->counters[c].name);
  for (size_t s = 0; s < m->nspans; s++)
    free(m->spans[s].name);
  for (size_t i = 0; i < m->nmetrics; i++) {
    free(m->metrics[i].name);
    free(m->metrics[i].meaning);
    free(m->metrics[i].expr);
    free(m->metrics[i].actor);
  }
  for (size_t i = 0; i < m->nparams; i++)
    free(m->param_names[i]);
  free(m->param_names);
  free(m->param_values);
  free(m->classes);
  free(m->pools);
  free(m->locks);
  free(m->chans);
  free(m->servers);
  free(m->counters);
  free(m->spans);
  free(m->metrics);
  free(m->scale_n);
  free(m->scale_v);
  free(m->name);
  for (size_t i = 0; i < m->nidle; i++)
    free(m->idle_states[i].name);
  free(m->idle_states);
  free(m->task_id);
  free(m->group_prefix);
  memset(m, 0, sizeof *m);
}

int ts_model_find_pool(const ts_model *m, const char *name)
{
  for (size_t i = 0; i < m->npools; i++)
    if (strcmp(m->pools[i].name, name) == 0)
      return (int)i;
  return -1;
}

int ts_model_find_class(const ts_model *m, const char *name)
{
  for (size_t i = 0; i < m->nclasses; i++)
    if (strcmp(m->classes[i].name, name) == 0)
      return (int)i;
  return -1;
}

int ts_model_main_class(const ts_model *m)
{
  for (size_t k = 0; k < m->nclasses; k++)
    if (m->classes[k].count && ts_expr_uses(m->classes[k].count, TS_VAR_N))
      return (int)k;
  return 0;
}

int ts_model_reads_n(const ts_model *m)
{
  return m->reads_n || (m->nscale > 0 && !m->scale_by_worker);
}

int ts_model_forever(const ts_model *m, char *out, size_t cap)
{
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    if (k->forever) {
      snprintf(out, cap, "class %s arrives until the horizon (\"count\": \"forever\")", k->name);
      return 1;
    }
    for (size_t i = 0; i < k->nsteps; i++)
      if (k->steps[i].forever) {
        snprintf(out, cap, k->steps[i].cond ? "%s repeats until its while is 0, with no count to bound it (it may "
                 "never end)" : "%s repeats forever", k->steps[i].where);
        return 1;
      }
  }
  return 0;
}

double ts_model_cpu_scale(const ts_model *m, double x)
{
  size_t k = m->nscale;
  if (k == 0)
    return 1.0;
  if (x <= m->scale_n[0])
    return m->scale_v[0];
  for (size_t i = 1; i < k; i++)
    if (x <= m->scale_n[i]) {
      double f = (x - m->scale_n[i - 1]) / (m->scale_n[i] - m->scale_n[i - 1]);
      return m->scale_v[i - 1] + f * (m->scale_v[i] - m->scale_v[i - 1]);
    }
  return m->scale_v[k - 1];
}

int ts_model_cpu_scale_range(const ts_model *m, double *lo, double *hi)
{
  if (m->nscale == 0)
    return 0;
  *lo = m->scale_n[0];
  *hi = m->scale_n[m->nscale - 1];
  return 1;
}

ts_time ts_model_draw_max(const ts_dist *d)
{
  if (d->mean_ms)
    return TS_DRAW_MAX;
  if (d->kind == TS_DIST_FIXED)
    return d->mean;
  if (d->kind == TS_DIST_UNIFORM)
    return d->hi;
  if (d->kind == TS_DIST_EMPIRICAL) {
    double max = (double)d->mean * d->emp_max;
    return max >= (double)TS_DRAW_MAX ? TS_DRAW_MAX : (ts_time)ceil(max);
  }
  return d->mean > TS_DRAW_MAX / 1000 ? TS_DRAW_MAX : d->mean * 1000;
}

void ts_dist_prepare(ts_dist *d)
{
  d->ln_mean = d->ln_cv = -1;
  if (d->kind != TS_DIST_LOGNORMAL || d->mean_ms || !(d->cv > 0))
    return;
  d->ln_mean = (double)d->mean;
  d->ln_cv = d->cv;
  ts_rng_lognormal_params(d->ln_mean, d->ln_cv, &d->ln_mu, &d->ln_sigma);
}

double ts_dist_mean_per_median(ts_dist_kind kind, double cv, const double *emp, size_t nemp)
{
  switch (kind) {
  case TS_DIST_EXPONENTIAL: return 1 / log(2.0);
  case TS_DIST_LOGNORMAL: return sqrt(1 + cv * cv);
  case TS_DIST_GAMMA: {
    if (cv <= 0)
      return 1;
    double k = 1 / (cv * cv);
    return k / gsl_cdf_gamma_Pinv(0.5, k, 1);
  }
  case TS_DIST_EMPIRICAL: {
    double *v = nemp ? malloc(nemp * sizeof *v) : NULL;
    if (!v)
      return 1;
    memcpy(v, emp, nemp * sizeof *v);
    gsl_sort(v, 1, nemp);
    double mean = gsl_stats_mean(v, 1, nemp), median = gsl_stats_median_from_sorted_data(v, 1, nemp);
    free(v);
    return median > 0 ? mean / median : 1;
  }
  default: return 1;
  }
}
