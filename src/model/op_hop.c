/* hop: move the actor's continuation to another worker (a message to a
 * session on another thread, an in-memory transport).
 *   {"op": "hop", "pool": NAME, "to": EXPR, "ms": D, "send_ms": T, "recv_ms": T}
 * `to` is a worker index within the pool (default: the actor's pool and its
 * own worker index, "worker"); the transit takes D off-CPU; the sender pays
 * send_ms of CPU before it leaves and the receiver recv_ms when it arrives
 * (both user CPU). The actor stays on the new worker until it hops again. */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"pool", "to", "ms", "dist", "cv", "by", "samples", "min_ms", "max_ms", "send_ms",
                                   "recv_ms", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  s->pool = -1;
  if ((ts_spec_has(sp, "pool") && ts_spec_ref(sp, "pool", 1, TS_REF_POOL, &s->pool)) ||
      ts_spec_expr(sp, "to", 0, &s->index) || ts_spec_dist(sp, "ms", 0, &s->cost) ||
      ts_spec_time(sp, "send_ms", 0, &s->send) || ts_spec_time(sp, "recv_ms", 0, &s->recv))
    return -1;
  double scale = ts_spec_model(sp)->cpu_scale; /* CPU costs follow host.cpu_scale */
  s->send = (ts_time)((double)s->send * scale + 0.5);
  s->recv = (ts_time)((double)s->recv * scale + 0.5);
  return 0;
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  switch (a->sub) {
  case 0:
    a->sub = 1;
    if (s->send > 0)
      return ts__cpu_begin(w, a, s->send, 1, 0, TS_ACTOR_RUNNING);
    /* fall through */
  case 1: {
    int pool = s->pool >= 0 ? s->pool : w->workers[a->worker].pool;
    double to = s->index ? ts__eval(w, a, s->index) : w->workers[a->worker].index;
    int dest = ts__worker_of(w, pool, to);
    if (dest < 0) { /* (without `to` the actor's own index: always a worker of its pool) */
      char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
      ts__fail(w, s, "hop target \"%s\" is %s for actor %d (class %s, i = %d): expected a worker of pool \"%s\", an integer in [0, %d)",
               ts_expr_excerpt(ts_expr_text(s->index), quoted, sizeof quoted), ts_expr_value_text(num, sizeof num, to, ""),
               a->id, w->model->classes[a->klass].name, a->index, w->model->pools[pool].name,
               w->pool_base[pool + 1] - w->pool_base[pool]);
      return TS_OP_FREE;
    }
    ts__actor_set_state(w, a, TS_ACTOR_HOP);
    a->worker = dest;
    a->sub = 2;
    ts__actor_ready_at(w, a, w->sim.now + ts__draw(w, a, &s->cost), TS_READY_ARRIVE);
    return TS_OP_FREE;
  }
  case 2:
    a->sub = 3;
    if (s->recv > 0)
      return ts__cpu_begin(w, a, s->recv, 1, 0, TS_ACTOR_RUNNING);
    return TS_OP_NEXT;
  default:
    return TS_OP_NEXT;
  }
}

const ts_op_type ts_op_hop = {
  .name = "hop",
  .keys = keys,
  .summary = "move to another worker after a latency, paying send_ms and recv_ms of CPU on the two sides",
  .load = load,
  .exec = exec,
};
