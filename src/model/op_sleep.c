/* sleep: a timer.
 *   {"op": "sleep", "ms": D}
 * Off-CPU; on an event loop its continuation runs in the timers phase (as in
 * Node), on a thread it rejoins the run queue (as in tokio). */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"ms", "dist", "cv", "by", "samples", "min_ms", "max_ms", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  return ts_spec_dist(sp, "ms", 1, &s->cost);
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (a->sub)
    return TS_OP_NEXT;
  a->sub = 1;
  ts__actor_set_state(w, a, TS_ACTOR_SLEEP);
  ts__actor_ready_at(w, a, w->sim.now + ts__draw(w, a, &s->cost), TS_READY_TIMER);
  return TS_OP_FREE;
}

const ts_op_type ts_op_sleep = {
  .name = "sleep",
  .keys = keys,
  .summary = "a timer: off-CPU, resumes in the timers phase (event loop) or the run queue (thread)",
  .load = load,
  .exec = exec,
};
