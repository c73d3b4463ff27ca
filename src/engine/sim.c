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
}

void ts_sim_on(ts_sim *sim, int kind, ts_sim_handler fn)
{
  if (kind >= 0 && kind < TS_SIM_MAX_KINDS)
    sim->handlers[kind] = fn;
}

int ts_sim_at(ts_sim *sim, ts_time at, int kind, int32_t obj, uint32_t gen)
{
  if (at < sim->now || kind < 0 || kind >= TS_SIM_MAX_KINDS) {
    sim->failed = TS_SIM_PAST;
    return -1;
  }
  ts_event ev = {.time = at, .seq = sim->next_seq++, .kind = kind, .obj = obj, .gen = gen};
  if (ts_heap_push(&sim->heap, &ev) != 0) {
    sim->failed = TS_SIM_NOMEM;
    return -1;
  }
  return 0;
}

int ts_sim_step(ts_sim *sim)
{
  ts_event ev;
  if (!ts_heap_pop(&sim->heap, &ev))
    return 0;
  sim->now = ev.time;
  sim->steps++;
  if (sim->handlers[ev.kind])
    sim->handlers[ev.kind](sim, &ev);
  return 1;
}

uint64_t ts_sim_run(ts_sim *sim, ts_time until, uint64_t max_steps)
{
  uint64_t ran = 0;
  for (;;) {
    const ts_event *next = ts_heap_peek(&sim->heap);
    if (!next || next->time > until || sim->failed)
      break;
    if (max_steps && ran >= max_steps)
      break;
    ts_sim_step(sim);
    ran++;
  }
  return ran;
}
