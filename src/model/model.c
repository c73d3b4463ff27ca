#include "model/model.h"

#include <stdlib.h>

void ts_model_finish(ts_model *m)
{
  if (!m)
    return;
  for (size_t c = 0; c < m->nclasses; c++) {
    for (size_t s = 0; s < m->classes[c].nsteps; s++)
      free(m->classes[c].steps[s].label);
    free(m->classes[c].steps);
    free(m->classes[c].name);
  }
  free(m->classes);
  for (size_t l = 0; l < m->nlocks; l++)
    free(m->locks[l].name);
  free(m->locks);
  free(m->scale_n);
  free(m->scale_v);
  m->scale_n = m->scale_v = NULL;
  m->nscale = 0;
  free(m->name);
  free(m->task_id);
  free(m->group_prefix);
  m->classes = NULL;
  m->locks = NULL;
  m->nclasses = m->nlocks = 0;
  m->name = m->task_id = m->group_prefix = NULL;
}

int ts_model_class_count(const ts_model *m, size_t c, int n)
{
  return m->classes[c].count == TS_COUNT_N ? n : m->classes[c].count;
}

double ts_model_cpu_scale(const ts_model *m, int n)
{
  size_t k = m->nscale;
  if (k == 0)
    return 1.0;
  if (n <= m->scale_n[0])
    return m->scale_v[0];
  for (size_t i = 1; i < k; i++)
    if (n <= m->scale_n[i]) {
      double f = (n - m->scale_n[i - 1]) / (m->scale_n[i] - m->scale_n[i - 1]);
      return m->scale_v[i - 1] + f * (m->scale_v[i] - m->scale_v[i - 1]);
    }
  return m->scale_v[k - 1];
}

ts_time ts_model_draw_max(const ts_dist *d)
{
  if (d->kind == TS_DIST_FIXED)
    return d->mean;
  return d->mean > TS_DRAW_MAX / 1000 ? TS_DRAW_MAX : d->mean * 1000;
}

int ts_model_horizon_ok(const ts_model *m, int n)
{
  double total = 0, scale = 1;
  for (size_t i = 0; i < m->nscale; i++)
    if (m->scale_v[i] > scale)
      scale = m->scale_v[i];
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    double count = ts_model_class_count(m, c, n), per_actor = 0;
    for (size_t s = 0; s < k->nsteps; s++) {
      double d = (double)ts_model_draw_max(&k->steps[s].cost);
      per_actor += k->steps[s].op == TS_STEP_CPU ? d * scale : d;
      per_actor += (double)(m->yield_overhead + m->loop_overhead) * (double)k->steps[s].rows;
    }
    total += (double)k->arrival_start + count * ((double)k->arrival_spacing + per_actor);
  }
  return total < (double)TS_HORIZON_MAX;
}
