/* Actors: the step-program interpreter and the per-actor measurements. An
 * actor runs its steps while it holds the CPU; ts__actor_continue returns when
 * a cpu step has been planned on the worker (1) or the actor left the CPU (0). */
#include "model/world.h"

#include <math.h>

static void add_state_time(ts_actor *a, ts_time dt)
{
  switch (a->state) {
  case TS_ACTOR_QUEUED: a->st.queue_wait += dt; break;
  case TS_ACTOR_READY: a->st.ready_wait += dt; break;
  case TS_ACTOR_IO: a->st.io += dt; break;
  case TS_ACTOR_LOCK_WAIT: a->st.lock_wait += dt; break;
  default: break;
  }
}

void ts__actor_set_state(ts_world *w, ts_actor *a, ts_actor_state s)
{
  ts_time now = w->sim.now;
  add_state_time(a, now - a->state_since);
  a->state = s;
  a->state_since = now;
  if (w->obs && w->obs->actor_state)
    w->obs->actor_state(w->obs->data, now, a->id, (int)s);
}

ts_time ts__draw(ts_world *w, const ts_dist *d)
{
  double v;
  switch (d->kind) {
  case TS_DIST_EXPONENTIAL: v = ts_rng_exponential(w->rng, (double)d->mean); break;
  case TS_DIST_LOGNORMAL: v = ts_rng_lognormal(w->rng, (double)d->mean, d->cv); break;
  case TS_DIST_GAMMA: v = ts_rng_gamma(w->rng, (double)d->mean, d->cv); break;
  default: return d->mean;
  }
  double max = (double)ts_model_draw_max(d);
  return v <= 0 ? 0 : v >= max ? (ts_time)max : (ts_time)(v + 0.5);
}

/* Make actor a ready for a callback on its worker's loop. */
static void make_ready(ts_world *w, ts_actor *a)
{
  ts_worker *wk = &w->workers[a->worker];
  ts__actor_set_state(w, a, TS_ACTOR_READY);
  if (ts_ring_push(&wk->ready, a->id) != 0)
    ts__world_nomem(w);
  ts__worker_kick(w, wk);
}

static void finish(ts_world *w, ts_actor *a)
{
  ts_time now = w->sim.now;
  for (size_t d = 0; d < w->model->nlocks; d++)
    if (a->lock_since[d] >= 0)
      ts__lock_release(w, a, (int)d);
  ts__actor_set_state(w, a, TS_ACTOR_DONE);
  a->st.done = now;
  if (a->st.wave_start < 0)
    a->st.wave_start = a->st.arrive;
  if (a->st.wave_end < 0)
    a->st.wave_end = now;
  w->done++;
}

int ts__actor_continue(ts_world *w, ts_actor *a)
{
  const ts_class *k = &w->model->classes[a->klass];
  ts_worker *wk = &w->workers[a->worker];
  while (a->pc < k->nsteps) {
    const ts_step *s = &k->steps[a->pc];
    switch (s->op) {
    case TS_STEP_CPU:
      if (!a->in_step) { /* a new step, not a resumed one */
        a->step_cost = ts__draw(w, &s->cost);
        if (w->cpu_scale != 1.0) {
          double scaled = (double)a->step_cost * w->cpu_scale;
          a->step_cost = scaled >= (double)TS_DRAW_MAX ? TS_DRAW_MAX : (ts_time)llround(scaled);
        }
        a->step_done = 0;
        a->rows_done = 0;
        if (a->step_cost == 0)
          break;
        a->in_step = 1;
      }
      ts__worker_run_cpu(w, wk, a);
      return 1;
    case TS_STEP_IO:
      a->pc++;
      if (s->priority) {
        wk->prio_inflight++;
        a->prio_pending = 1;
        ts__worker_counters(w, wk);
      }
      ts__actor_set_state(w, a, TS_ACTOR_IO);
      ts_sim_at(&w->sim, w->sim.now + ts__draw(w, &s->cost), TS_EV_IO_DONE, a->id, 0);
      return 0;
    case TS_STEP_YIELD:
      a->pc++;
      return ts__worker_yield(w, wk, a);
    case TS_STEP_LOCK:
      a->pc++;
      if (!ts__lock_acquire(w, a, s->lock)) {
        ts__actor_set_state(w, a, TS_ACTOR_LOCK_WAIT);
        return 0;
      }
      continue;
    case TS_STEP_UNLOCK:
      ts__lock_release(w, a, s->lock);
      break;
    case TS_STEP_MARK:
      if (s->mark == TS_MARK_WAVE_START)
        a->st.wave_start = w->sim.now;
      else
        a->st.wave_end = w->sim.now;
      break;
    }
    a->pc++;
  }
  finish(w, a);
  return 0;
}

void ts__actor_on_arrive(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_actor *a = &w->actors[ev->obj];
  a->st.arrive = sim->now;
  a->state_since = sim->now;
  make_ready(w, a);
}

void ts__actor_on_io_done(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  make_ready(w, &w->actors[ev->obj]);
}

/* Hand a released lock to actor a: it resumes as a callback on its loop. */
void ts__actor_grant(ts_world *w, ts_actor *a)
{
  make_ready(w, a);
}
