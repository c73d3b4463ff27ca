/* yield: rejoin the time-slice queue (an event loop) or the run queue (a thread).
 *   {"op": "yield"} */
#include "model/internal.h"

static const char *const keys[] = {NULL};

static int load(ts_spec *sp, ts_step *s)
{
  (void)sp;
  (void)s;
  return 0;
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  (void)s;
  if (a->sub)
    return TS_OP_NEXT;
  a->sub = 1;
  return ts__worker_yield(w, &w->workers[a->worker], a);
}

const ts_op_type ts_op_yield = {
  .name = "yield",
  .keys = keys,
  .summary = "rejoin the time-slice queue's tail (thread: the run queue's)",
  .load = load,
  .exec = exec,
};
