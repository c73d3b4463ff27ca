#include "engine/sim.h"

#include <string.h>

void ts_sim_init(ts_sim *sim, void *data)
{
  memset(sim, 0, sizeof *sim);
  ts_heap_init(&sim->heap);
  sim->data = data;
}

void ts_sim_finish(ts_sim *sim)
{
  ts_heap_finish(&sim->heap);
  sim->lane_on = 0;
}

void ts_sim_on(ts_sim *sim, int kind, ts_sim_handler fn)
{
  if (kind >= 0 && kind < TS_SIM_MAX_KINDS)
    sim->handlers[kind] = fn;
}

/* Fetch the lane's next event into lane_ev (or turn the lane off). */
static void lane_fetch(ts_sim *sim)
{
  ts_time t;
  int32_t obj;
  if (!sim->lane_next(sim->lane_ctx, &t, &obj)) {
    sim->lane_on = 0;
    return;
  }
  if (t < sim->lane_ev.time) {
    sim->failed = TS_SIM_PAST;
    sim->lane_on = 0;
    return;
  }
  sim->lane_ev.time = t;
  sim->lane_ev.obj = obj;
}

int ts_sim_lane(ts_sim *sim, int kind, ts_sim_lane_fn next, void *ctx)
{
  if (kind < 0 || kind >= TS_SIM_MAX_KINDS || ts_heap_size(&sim->heap) > 0 || sim->next_seq > 0 || sim->lane_on) {
    sim->failed = TS_SIM_PAST;
    return -1;
  }
  sim->lane_ev = (ts_event){.time = sim->now, .kind = kind};
  sim->lane_next = next;
  sim->lane_ctx = ctx;
  sim->lane_on = 1;
  lane_fetch(sim);
  return sim->failed ? -1 : 0;
}

void ts__sim_drop_pending(ts_sim *sim)
{
  sim->pending = 0;
  ts_heap_drop_least_at(&sim->heap, sim->top_in_run);
}

/* ts_sim_at's insertion for the held event, whose key may be older than
 * the list's (so the general replace, not the newest-event one). */
int ts__sim_put_held(ts_sim *sim)
{
  int rc;
  if (sim->pending) { /* the running handler's own event is the top: replace it */
    sim->pending = 0;
    rc = ts_heap_replace_top_at(&sim->heap, &sim->held_ev, sim->top_in_run);
  } else {
    rc = ts_heap_push(&sim->heap, &sim->held_ev);
  }
  if (rc != 0) {
    sim->failed = TS_SIM_NOMEM;
    return -1;
  }
  return 0;
}

/* Dispatch top, the next event: the lane's (lane: 1) or the list's least. */
static inline void dispatch(ts_sim *sim, const ts_event *top, int lane)
{
  ts_event ev = *top;
  if (lane)
    lane_fetch(sim);
  sim->now = ev.time;
  sim->steps++;
  sim->pending = !lane;
  sim->top_in_run = top != sim->heap.v; /* (ts_heap_peek gave the run's head or v[0]) */
  if (sim->handlers[ev.kind])
    sim->handlers[ev.kind](sim, &ev);
  if (sim->pending) { /* nothing replaced it: remove it */
    sim->pending = 0;
    ts_event drop;
    ts_heap_pop(&sim->heap, &drop);
  }
}

/* The next event, or NULL; *lane says whether it is the lane's. */
static inline const ts_event *next_event(const ts_sim *sim, int *lane)
{
  const ts_event *top = ts_heap_peek(&sim->heap);
  *lane = sim->lane_on && (!top || sim->lane_ev.time <= top->time);
  return *lane ? &sim->lane_ev : top;
}

const ts_event *ts_sim_peek(const ts_sim *sim)
{
  int lane;
  return next_event(sim, &lane);
}

int ts_sim_step(ts_sim *sim)
{
  int lane;
  const ts_event *next = next_event(sim, &lane);
  if (!next)
    return 0;
  sim->until = TS_TIME_MAX;
  sim->steps_end = sim->steps + 1; /* one event: none in place */
  dispatch(sim, next, lane);
  return 1;
}

uint64_t ts_sim_run(ts_sim *sim, ts_time until, uint64_t max_steps)
{
  uint64_t first = sim->steps; /* (events run in place count as steps too) */
  sim->until = until;
  sim->steps_end = max_steps && max_steps <= UINT64_MAX - first ? first + max_steps : UINT64_MAX;
  while (!sim->failed && sim->steps < sim->steps_end) {
    int lane;
    const ts_event *next = next_event(sim, &lane);
    if (!next || next->time > until)
      break;
    dispatch(sim, next, lane);
  }
  return sim->steps - first;
}
