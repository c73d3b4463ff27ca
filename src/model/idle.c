/* Host idle states (C-states): the wake latency that depends on how long a
 * core slept. A worker's thread sleeps when it parks with an empty run queue
 * or blocks in a mutex's futex; its pinned core is idle meanwhile, and the
 * host's idle governor puts it in the deepest declared state whose target
 * residency is at most the predicted idle length: under "actual" the length
 * of this sleep up to its wake (an ideal governor), under "last" the length
 * of the worker's previous sleep (a last-value predictor, the simplest form
 * of Linux's menu governor). A wake that pays a declared wake latency (a
 * mutex's futex wake or a timeout of its futex wait, a channel's wake of a
 * parked thread) pays that state's exit latency on top. With no states
 * declared nothing here runs (idle_since stays -1).
 *
 * The wake latency itself is a declaration's, fixed or drawn: a draw comes
 * from the woken worker's own wake stream (ts_rng_derive_stream(seed, -3,
 * worker, 0)), made at the first draw, so that a model whose wake latencies
 * are fixed draws nothing and an actor's draws do not move when they vary.
 *
 * Invariant: idle_since >= 0 while the worker's thread sleeps and has not run
 * since (a thread worker sleeps from the start of a run); idle_exit >= 0
 * once a wake of that sleep has priced it, and later wakes of the same sleep
 * pay the same exit (the core leaves its state once). idle_prev is the length
 * of its previous sleep (0 before any), up to the wake that ended it. */
#include "model/internal.h"

/* The exit latency of the deepest state with target residency <= predicted
 * (0: none, a polling idle). States are sorted by residency at load. */
static ts_time exit_for(const ts_model *m, ts_time predicted)
{
  ts_time exit = 0;
  for (size_t i = 0; i < m->nidle && m->idle_states[i].residency <= predicted; i++)
    exit = m->idle_states[i].exit;
  return exit;
}

void ts__idle_init(const ts_world *w, ts_worker *wk)
{
  wk->idle_since = w->model->nidle > 0 && wk->spec->kind == TS_WORKER_THREAD ? 0 : -1;
  wk->idle_exit = -1;
  wk->idle_prev = 0;
}

void ts__idle_sleep(const ts_world *w, ts_worker *wk, int blocks)
{
  if (w->model->nidle == 0 || (!blocks && wk->idle_since >= 0))
    return;
  wk->idle_since = w->sim.now;
  wk->idle_exit = -1;
}

ts_time ts__idle_exit(ts_world *w, ts_worker *wk)
{
  const ts_model *m = w->model;
  if (m->nidle == 0 || wk->idle_since < 0)
    return 0;
  if (wk->idle_exit >= 0)
    return wk->idle_exit;
  ts_time slept = w->sim.now - wk->idle_since;
  wk->idle_exit = exit_for(m, m->idle_governor == TS_IDLE_LAST ? wk->idle_prev : slept);
  wk->idle_prev = slept;
  return wk->idle_exit;
}

void ts__idle_run(const ts_world *w, ts_worker *wk)
{
  if (wk->idle_exit < 0) /* woken without a priced wake (a timer, an I/O completion, its own notify) */
    wk->idle_prev = w->sim.now - wk->idle_since;
  wk->idle_since = -1;
}

ts_time ts__wake_delay_idle(ts_world *w, const ts_dist *lat, ts_worker *wk)
{
  ts_time d = lat->mean;
  if (lat->kind != TS_DIST_FIXED) {
    if (!wk->wake_rng && !(wk->wake_rng = ts_rng_create_small(ts_rng_derive_stream(w->seed, -3, wk->id, 0))))
      ts__world_nomem(w);
    else
      d = ts__draw_shaped(wk->wake_rng, lat, (double)lat->mean);
  }
  return d + ts__idle_exit(w, wk);
}
