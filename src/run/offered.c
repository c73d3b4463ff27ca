/* The offered load of each pool's workers, for run's note on an open class
 * of fixed count whose workers cannot keep up (rho >= 1: its queue grows
 * until its last arrival, so its metrics measure the run's length). rho =
 * lambda E[S] / c per pool, as tssim explain's (viz/explain_theory.c
 * head_of) for the classes it can read: Poisson arrivals at rate_per_s (times
 * the batch's mean size) or periodic ones (a batch per period), and a
 * program of cpu steps of constant mean (marks, spans and yields around
 * them); c the pool's workers. Classes of any other program add nothing, so
 * the load is a lower bound: a note is never for a load the model might not
 * offer. */
#include "run/sweep_internal.h"

#include <stdlib.h>

#include "model/op.h"
#include "model/world.h"

/* Actors of class c per ns, or 0 when it does not arrive by a rate (closed, "at", "after"). */
static double arrival_rate(const ts_class *c)
{
  const ts_arrival *a = &c->arrival;
  double batch = ts_arrival_batch_mean(a);
  if (a->kind == TS_ARRIVE_POISSON)
    return a->rate_per_s / 1e9 * batch;
  if (a->kind == TS_ARRIVE_PERIODIC && a->period > 0)
    return batch / (double)a->period;
  return 0;
}

/* Class c's CPU demand per actor (ns): the sum of its cpu steps' means, when
 * its program is only cpu steps of constant mean, marks, spans and yields;
 * else 0. */
static double demand(const ts_class *c)
{
  double sum = 0;
  for (size_t i = 0; i < c->nsteps; i++) {
    const ts_step *s = &c->steps[i];
    if (s->type == &ts_op_cpu && !s->cost.mean_ms)
      sum += (double)s->cost.mean;
    else if (s->type != &ts_op_mark && s->type != &ts_op_span_begin && s->type != &ts_op_span_end &&
             s->type != &ts_op_yield)
      return 0;
  }
  return sum;
}

int ts__overloaded(const ts_world *w, double *rho)
{
  const ts_model *m = w->model;
  double *load = calloc(m->npools + 1, sizeof *load);
  int first = -1;
  if (!load || m->nscale) /* (CPU priced by load: no constant demand) */
    goto done;
  for (size_t k = 0; k < m->nclasses; k++) /* (a class of count 0 at this point offers nothing) */
    if (m->classes[k].forever || w->class_count[k] > 0)
      load[m->classes[k].pool] += arrival_rate(&m->classes[k]) * demand(&m->classes[k]);
  for (size_t k = 0; k < m->nclasses; k++) {
    const ts_class *c = &m->classes[k];
    int p = c->pool, workers = w->pool_base[p + 1] - w->pool_base[p];
    if (c->forever || w->class_count[k] < 1 || arrival_rate(c) <= 0 || workers < 1 || load[p] / workers < 1)
      continue;
    if (first < 0) {
      first = (int)k;
      *rho = load[p] / workers;
    }
  }
done:
  free(load);
  return first;
}
