/* Servers: a request queue under a policy, served by a pool's workers, with
 * at most `concurrency` calls in service and at most `queue_limit` waiting
 * (a call that finds the queue full is refused: a drop). An admitted call's actor moves to a
 * worker of the pool and runs its handler there as a callback (with "resume":
 * "microtask", as a microtask): the server's
 * fixed worker; else a free worker of the pool (the fewest calls in service
 * on it, from any server; among equals the first from the one after the last
 * chosen), so that concurrency c on c threads is c servers (M/M/c); or, with
 * "dispatch": "round_robin", the next worker in turn, busy or not.
 *
 * Invariant: a worker's `calls` is the number of admitted calls whose
 * handler was given that worker and has not ended. */
#include <math.h>

#include "model/internal.h"

/* The worker of pool p with the fewest calls in service, the first such
 * from the one after the server's last choice; the choice is remembered. */
static int free_worker(ts_world *w, int p, ts_server *sv)
{
  int base = w->pool_base[p], count = w->pool_base[p + 1] - base, best = -1;
  for (int k = 0; k < count && (best < 0 || w->workers[best].calls > 0); k++) {
    int wk = base + (sv->next + k) % count;
    if (best < 0 || w->workers[wk].calls < w->workers[best].calls)
      best = wk;
  }
  sv->next = best - base + 1;
  return best;
}

static void admit(ts_world *w, int s)
{
  const ts_server_decl *d = &w->model->servers[s];
  ts_server *sv = &w->servers[s];
  int count = w->pool_base[d->pool + 1] - w->pool_base[d->pool];
  while (sv->inflight < d->concurrency && ts_sched_queue_len(&sv->queue) > 0 && !w->error) {
    ts_actor *a = ts_world_actor(w, ts_sched_queue_pop(&sv->queue, d->policy));
    int wk;
    if (d->worker) {
      double v = ts__eval(w, a, d->worker);
      wk = ts__worker_of(w, d->pool, v);
      if (wk < 0) {
        char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
        ts__fail(w, NULL, "servers[%d].worker: server \"%s\"'s worker \"%s\" is %s for a caller with i = %d: expected "
                 "an index in [0, %d) (pool %s)", s, d->name, ts_expr_excerpt(ts_expr_text(d->worker), quoted,
                 sizeof quoted), ts_expr_value_text(num, sizeof num, v, ""), a->index, count, w->model->pools[d->pool].name);
        return;
      }
    } else if (d->round_robin) {
      wk = w->pool_base[d->pool] + sv->next++ % count;
    } else {
      wk = free_worker(w, d->pool, sv);
    }
    sv->inflight++;
    w->workers[wk].calls++;
    ts__x(w, a)->serve_worker = wk;
    if (w->obs && w->obs->call)
      w->obs->call(w->obs->data, w->sim.now, a->id, s, a->sched_class, 1);
    a->worker = wk;
    ts__x(w, a)->wait_inst = -1;
    ts__timeout_cancel(a);
    if (d->microtask)
      ts__actor_microtask(w, a);
    else
      ts__actor_ready(w, a, 0);
  }
}

void ts__server_request(ts_world *w, ts_actor *a)
{
  const ts_step *s = &w->model->classes[a->klass].steps[a->pc];
  const ts_server_decl *d = &w->model->servers[s->ref];
  ts_server *sv = &w->servers[s->ref];
  if (d->queue_limit >= 0 && (int)ts_sched_queue_len(&sv->queue) >= d->queue_limit &&
      sv->inflight >= d->concurrency) { /* refused: the caller learns it at once, on its own worker */
    ts__count_now(w, &w->win_drops);
    if (w->obs && w->obs->call) {
      w->obs->call(w->obs->data, w->sim.now, a->id, s->ref, a->sched_class, 0);
      w->obs->call(w->obs->data, w->sim.now, a->id, s->ref, a->sched_class, 2);
    }
    a->sched_class = (uint8_t)w->model->classes[a->klass].sched_class;
    a->sub = TS_SUB_GAVE_UP;
    ts__actor_ready(w, a, 0);
    return;
  }
  ts__x(w, a)->wait_inst = s->ref;
  if (s->limited)
    ts__timeout_arm(w, a, s);
  if (w->obs && w->obs->call)
    w->obs->call(w->obs->data, w->sim.now, a->id, s->ref, a->sched_class, 0);
  if (ts_sched_queue_push(&sv->queue, a->id, a->sched_class, s->work) != 0) {
    ts__world_nomem(w);
    return;
  }
  admit(w, s->ref);
}

void ts__server_done(ts_world *w, ts_actor *a, int s, int klass)
{
  if (w->obs && w->obs->call)
    w->obs->call(w->obs->data, w->sim.now, a->id, s, klass, 2);
  w->servers[s].inflight--;
  w->workers[ts__x(w, a)->serve_worker].calls--;
  admit(w, s);
}
