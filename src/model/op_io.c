/* io: an off-CPU wait (a database, an HTTP call).
 *   {"op": "io", "ms": D, "priority": B}
 * Its continuation is an I/O callback on the actor's worker. A priority
 * operation counts as in flight on the worker (lowering its yield threshold)
 * from its start until its callback runs. */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"ms", "priority", "dist", "cv", "by", "samples", "min_ms", "max_ms", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  int prio = 0;
  if (ts_spec_dist(sp, "ms", 1, &s->cost) || ts_spec_bool(sp, "priority", 0, &prio))
    return -1;
  s->priority = prio != 0;
  return 0;
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (a->sub)
    return TS_OP_NEXT;
  a->sub = 1;
  if (s->priority) {
    ts_worker *wk = &w->workers[a->worker];
    wk->prio_inflight++;
    a->prio_pending = 1;
    ts__worker_counters(w, wk);
  }
  ts__actor_set_state(w, a, TS_ACTOR_IO);
  ts__actor_ready_at(w, a, w->sim.now + ts__draw(w, a, &s->cost), TS_READY_CALLBACK);
  return TS_OP_FREE;
}

const ts_op_type ts_op_io = {
  .name = "io",
  .keys = keys,
  .summary = "off-CPU wait; its continuation is an I/O callback (priority: lowers the threshold while in flight)",
  .load = load,
  .exec = exec,
};
