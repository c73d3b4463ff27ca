/* Building, running and tearing down one replication. Actors are numbered
 * class by class; arrivals are scheduled in actor order, so actors arriving
 * at the same instant reach their worker's loop in index order. */
#include "model/world.h"

#include <stdlib.h>
#include <string.h>

#include "model/dispatch.h"

static int count_actors(const ts_model *m, int n)
{
  int total = 0;
  for (size_t c = 0; c < m->nclasses; c++)
    total += ts_model_class_count(m, c, n);
  return total;
}

/* Lay the lock instances out declaration by declaration: one for a shared
 * declaration, one per actor otherwise. Fills base[] and returns the total. */
static int lay_out_locks(const ts_model *m, int nactors, int *base)
{
  int total = 0;
  for (size_t d = 0; d < m->nlocks; d++) {
    base[d] = total;
    total += m->locks[d].scope == TS_LOCK_SHARED ? 1 : nactors;
  }
  return total;
}

static int init_actors(ts_world *w)
{
  const ts_model *m = w->model;
  int *load = calloc((size_t)w->nworkers, sizeof *load);
  if (!load)
    return -1;
  int id = 0;
  for (size_t c = 0; c < m->nclasses; c++) {
    int count = ts_model_class_count(m, c, w->n);
    for (int i = 0; i < count; i++, id++) {
      ts_actor *a = &w->actors[id];
      a->id = id;
      a->klass = (int)c;
      a->worker = ts_dispatch_pick(m, id, w->nworkers, load);
      load[a->worker]++;
      a->state = TS_ACTOR_NEW;
      a->lock_since = malloc((m->nlocks ? m->nlocks : 1) * sizeof *a->lock_since);
      if (!a->lock_since) {
        free(load);
        return -1;
      }
      for (size_t d = 0; d < m->nlocks; d++)
        a->lock_since[d] = -1;
      a->st.actor = id;
      a->st.klass = (int)c;
      a->st.worker = a->worker;
      a->st.wave_start = a->st.wave_end = -1;
      ts_time at = m->classes[c].arrival_start + (ts_time)i * m->classes[c].arrival_spacing;
      if (ts_sim_at(&w->sim, at, TS_EV_ARRIVE, id, 0) != 0) {
        free(load);
        return -1;
      }
    }
  }
  free(load);
  return 0;
}

int ts_world_init(ts_world *w, const ts_model *m, int n, int workers, unsigned long seed,
                  const ts_observer *obs)
{
  memset(w, 0, sizeof *w);
  w->model = m;
  w->n = n;
  w->cpu_scale = ts_model_cpu_scale(m, n);
  w->obs = obs;
  w->nworkers = workers;
  w->nactors = count_actors(m, n);
  w->lock_base = calloc(m->nlocks ? m->nlocks : 1, sizeof *w->lock_base);
  w->nlocks = w->lock_base ? lay_out_locks(m, w->nactors, w->lock_base) : 0;
  ts_sim_init(&w->sim, w);
  ts_sim_on(&w->sim, TS_EV_ARRIVE, ts__actor_on_arrive);
  ts_sim_on(&w->sim, TS_EV_IO_DONE, ts__actor_on_io_done);
  ts_sim_on(&w->sim, TS_EV_SEG_END, ts__worker_on_seg_end);
  ts_sim_on(&w->sim, TS_EV_WAKE, ts__worker_on_wake);
  w->rng = ts_rng_create(seed);
  w->workers = calloc((size_t)workers, sizeof *w->workers);
  w->actors = calloc(w->nactors ? (size_t)w->nactors : 1, sizeof *w->actors);
  w->locks = calloc(w->nlocks ? (size_t)w->nlocks : 1, sizeof *w->locks);
  if (!w->rng || !w->workers || !w->actors || !w->locks || !w->lock_base)
    goto fail;
  for (int i = 0; i < workers; i++) {
    ts_worker *wk = &w->workers[i];
    wk->id = i;
    wk->actor = -1;
    ts_ring_init(&wk->ready);
    ts_sched_queue_init(&wk->queue, m->burst_limit);
  }
  for (int l = 0; l < w->nlocks; l++) {
    w->locks[l].owner = -1;
    ts_ring_init(&w->locks[l].waiters);
  }
  if (init_actors(w) != 0)
    goto fail;
  return 0;
fail:
  ts_world_finish(w);
  return -1;
}

void ts_world_finish(ts_world *w)
{
  if (w->workers)
    for (int i = 0; i < w->nworkers; i++) {
      ts_ring_finish(&w->workers[i].ready);
      ts_sched_queue_finish(&w->workers[i].queue);
    }
  if (w->locks)
    for (int l = 0; l < w->nlocks; l++)
      ts_ring_finish(&w->locks[l].waiters);
  if (w->actors)
    for (int a = 0; a < w->nactors; a++)
      free(w->actors[a].lock_since);
  free(w->workers);
  free(w->actors);
  free(w->locks);
  free(w->lock_base);
  ts_rng_destroy(w->rng);
  ts_sim_finish(&w->sim);
  w->workers = NULL;
  w->actors = NULL;
  w->locks = NULL;
  w->lock_base = NULL;
  w->rng = NULL;
}

int ts_world_run(ts_world *w)
{
  ts_sim_run(&w->sim, TS_TIME_MAX, 0);
  if (w->sim.failed)
    return w->sim.failed == TS_SIM_NOMEM ? -1 : -3;
  return w->done == w->nactors ? 0 : -2;
}

void ts__world_nomem(ts_world *w)
{
  w->sim.failed = TS_SIM_NOMEM;
}
