/* mark: the interval wave_ms measures, and the end of settle_ms.
 *   {"op": "mark", "name": "wave_start" | "wave_end" | "settled"}
 * Without marks the wave runs from the actor's arrival to its end;
 * settle_ms runs from the arrival to "settled" (a client's connect until
 * what it asked for is settled). */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"name", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  static const char *const names[] = {"wave_start", "wave_end", "settled", NULL};
  return ts_spec_enum(sp, "name", 1, names, &s->mark);
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (s->mark == TS_MARK_WAVE_START)
    ts__x(w, a)->wave_start = w->sim.now;
  else if (s->mark == TS_MARK_WAVE_END)
    ts__x(w, a)->wave_end = w->sim.now;
  else
    ts__x(w, a)->settled = w->sim.now;
  return TS_OP_NEXT;
}

const ts_op_type ts_op_mark = {
  .name = "mark",
  .keys = keys,
  .summary = "record wave_start or wave_end (the interval wave_ms measures), or settled (the end of settle_ms)",
  .load = load,
  .exec = exec,
};
