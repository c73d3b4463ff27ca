/* Servers: a request queue under a policy, served by a pool's workers, with
 * at most `concurrency` calls in service. An admitted call's actor moves to a
 * worker of the pool (the server's fixed worker, or round robin over the
 * pool) and runs its handler there as a callback. */
#include <math.h>

#include "model/internal.h"

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
      wk = v == floor(v) ? ts__worker_of(w, d->pool, (int)v) : -1;
      if (wk < 0) {
        char quoted[TS_EXPR_QUOTE];
        ts__fail(w, NULL, "servers[%d].worker: server \"%s\"'s worker \"%s\" is %g for a caller with i = %d: expected "
                 "an index in [0, %d) (pool %s)", s, d->name, ts_expr_excerpt(ts_expr_text(d->worker), quoted,
                 sizeof quoted), v, a->index, count, w->model->pools[d->pool].name);
        return;
      }
    } else {
      wk = w->pool_base[d->pool] + sv->next++ % count;
    }
    sv->inflight++;
    if (w->obs && w->obs->call)
      w->obs->call(w->obs->data, w->sim.now, a->id, s, a->sched_class, 1);
    a->worker = wk;
    ts__x(w, a)->wait_inst = -1;
    ts__actor_ready(w, a, 0);
  }
}

void ts__server_request(ts_world *w, ts_actor *a)
{
  const ts_step *s = &w->model->classes[a->klass].steps[a->pc];
  ts_server *sv = &w->servers[s->ref];
  ts__x(w, a)->wait_inst = s->ref;
  if (w->obs && w->obs->call)
    w->obs->call(w->obs->data, w->sim.now, a->id, s->ref, a->sched_class, 0);
  if (ts_sched_queue_push(&sv->queue, a->id, a->sched_class, s->work) != 0) {
    ts__world_nomem(w);
    return;
  }
  admit(w, s->ref);
}

void ts__server_done(ts_world *w, ts_actor *a, int s)
{
  if (w->obs && w->obs->call)
    w->obs->call(w->obs->data, w->sim.now, a->id, s, a->sched_class, 2);
  w->servers[s].inflight--;
  admit(w, s);
}
