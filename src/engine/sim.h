/* The discrete-event core. A ts_sim owns the clock, the future-event list and
 * a table of handlers indexed by event kind; it knows nothing of workers or
 * actors. The model layer registers its handlers and schedules events.
 * Invariant: now never decreases; an event is never scheduled in the past.
 *
 * Events come from the heap and, optionally, from one lane: a stream of
 * events fixed before the run (arrivals) that a generator hands out in time
 * order, so they never sit in the heap. The lane's events count as scheduled
 * before any other, so at equal times they run first: the order is exactly
 * the (time, seq) order they would have had in the heap.
 *
 * While a handler runs, the event it was given is still the list's least; the
 * first event the handler schedules replaces it in one operation (a handler
 * that schedules its own follow-up costs one sift, or one ring append,
 * instead of a pop and a push), and the least is removed after the handler
 * when it scheduled nothing (or, in a handler that runs the next event in
 * place, when it asks for the next).
 *
 * A handler may run the next event in place of a return and a call
 * (ts_sim_next_in_place): when it is of the handler's own kind and the
 * running ts_sim_run or ts_sim_step would dispatch it next, it is dispatched
 * there (the clock, the step count, the list as dispatch leaves them) and
 * the handler loops. Same events, same order, same steps.
 *
 * Such a handler may also let the handlers it runs hold one event out of
 * the list (ts_sim_at_next): the event its handler most likely runs next (a
 * CPU segment's end). Its key (time, seq) is taken as ts_sim_at takes it,
 * so it is in the list as far as order goes; when the handler is done
 * (ts_sim_next_held_in_place) it is dispatched without entering the list if
 * it is the next event, or else inserted where ts_sim_at would have put it.
 * No event stays held past that: the rest of the engine never sees one. */
#ifndef TS_SIM_H
#define TS_SIM_H
#include <stdint.h>

#include "engine/heap.h"
#include "engine/time.h"

#define TS_SIM_MAX_KINDS 16

enum { TS_SIM_OK = 0, TS_SIM_NOMEM = 1, TS_SIM_PAST = 2, TS_SIM_STOP = 3 };

typedef struct ts_sim ts_sim;
typedef void (*ts_sim_handler)(ts_sim *sim, const ts_event *ev);
/* A lane's generator: the lane's next event's time and object (1), or 0 when
 * the lane has no more. Times must not decrease. */
typedef int (*ts_sim_lane_fn)(void *ctx, ts_time *time, int32_t *obj);

struct ts_sim {
  ts_time now;
  uint64_t next_seq;
  uint64_t steps;      /* events dispatched so far */
  ts_heap heap;
  ts_sim_handler handlers[TS_SIM_MAX_KINDS];
  void *data;          /* the model's context, for handlers */
  int failed;          /* TS_SIM_NOMEM or TS_SIM_PAST once scheduling failed; TS_SIM_STOP: a handler stopped the run */
  int pending;         /* a handler runs and the heap's top is its event, not yet removed */
  int top_in_run;      /* with pending: that event is the run's head (else the heap's top; engine/heap.h) */
  int hold;            /* 0: events go to the list; 1: ts_sim_at_next may hold one; 2: held_ev is held
                        * (engine/sim.h: ts_sim_next_held_in_place) */
  ts_event held_ev;    /* with hold 2: an event out of the list (ts_sim_at_next) */
  ts_time until;       /* the running ts_sim_run's until (ts_sim_next_in_place stops beyond it) */
  uint64_t steps_end;  /* and its end: steps never go past it (ts_sim_step: one) */
  int lane_on;         /* lane_ev is the lane's next event */
  ts_event lane_ev;
  ts_sim_lane_fn lane_next;
  void *lane_ctx;
};

/* Initialise a simulation at time 0 in caller memory; data is handed to handlers. */
void ts_sim_init(ts_sim *sim, void *data);
/* Free the event list. */
void ts_sim_finish(ts_sim *sim);
/* Route events of this kind (0 <= kind < TS_SIM_MAX_KINDS) to fn. */
void ts_sim_on(ts_sim *sim, int kind, ts_sim_handler fn);
/* Take events of this kind from generator next (with ctx) as the lane; call
 * it before anything is scheduled. Its first event is fetched now. Returns
 * 0, or -1 and sets sim->failed to TS_SIM_PAST (a bad kind, or events were
 * scheduled already: a bug in the caller). */
int ts_sim_lane(ts_sim *sim, int kind, ts_sim_lane_fn next, void *ctx);
/* Schedule an event at absolute time at (>= now). Returns 0, or -1 and sets
 * sim->failed to TS_SIM_NOMEM (memory ran out) or TS_SIM_PAST (at < now, or a
 * bad kind: a bug in the caller). */
static inline int ts_sim_at(ts_sim *sim, ts_time at, int kind, int32_t obj, uint32_t gen)
{
  if (at < sim->now || kind < 0 || kind >= TS_SIM_MAX_KINDS) {
    sim->failed = TS_SIM_PAST;
    return -1;
  }
  ts_event ev = {.time = at, .seq = sim->next_seq++, .kind = kind, .obj = obj, .gen = gen};
  if (sim->pending) { /* the running handler's own event is the top: replace it */
    sim->pending = 0;
    if (ts_heap_replace_top_newest_at(&sim->heap, &ev, sim->top_in_run) != 0) { /* (seq grows: ev is the newest) */
      sim->failed = TS_SIM_NOMEM;
      return -1;
    }
    return 0;
  }
  if (ts_heap_push(&sim->heap, &ev) != 0) {
    sim->failed = TS_SIM_NOMEM;
    return -1;
  }
  return 0;
}
/* ts_sim_at for an event that the running handler will likely run next (a
 * CPU segment's end): while holding is on (sim->hold, set by a handler that
 * runs the next events in place, ts_sim_next_held_in_place) and nothing is
 * held yet, the event is held out of the list, its seq taken as ts_sim_at
 * takes it; otherwise ts_sim_at. Returns 0 or -1 as ts_sim_at. */
static inline int ts_sim_at_next(ts_sim *sim, ts_time at, int kind, int32_t obj, uint32_t gen)
{
  if (sim->hold == 1 && at >= sim->now && kind >= 0 && kind < TS_SIM_MAX_KINDS) {
    sim->hold = 2;
    sim->held_ev.time = at; /* (field by field: no padding to clear) */
    sim->held_ev.seq = sim->next_seq++;
    sim->held_ev.kind = kind;
    sim->held_ev.obj = obj;
    sim->held_ev.gen = gen;
    return 0;
  }
  return ts_sim_at(sim, at, kind, obj, gen);
}
/* Remove the running handler's event (pending: it scheduled nothing), as
 * dispatch does after the handler; pending becomes 0. */
void ts__sim_drop_pending(ts_sim *sim);
/* ts_sim_next_in_place's test and dispatch for an event of any kind, or of
 * kind only (kind >= 0). */
static inline const ts_event *ts__sim_next_in_place_of(ts_sim *sim, int kind, ts_event *buf)
{
  if (sim->pending || sim->failed) { /* (one test on the common path) */
    if (sim->failed)
      return NULL; /* (dispatch removes a pending event) */
    ts__sim_drop_pending(sim); /* the handler scheduled nothing: remove its event, as dispatch would after it */
  }
  if (sim->steps >= sim->steps_end)
    return NULL;
  const ts_event *top = ts_heap_peek(&sim->heap);
  if (!top || (kind >= 0 && top->kind != kind) || top->time > sim->until ||
      (sim->lane_on && sim->lane_ev.time <= top->time))
    return NULL;
  *buf = *top;
  sim->now = buf->time;
  sim->steps++;
  sim->pending = 1;
  sim->top_in_run = top != sim->heap.v; /* (ts_heap_peek gave the run's head or v[0]) */
  return buf;
}
/* For a handler of events of this kind, when it is done with its event:
 * the next event, dispatched as ts_sim_run would dispatch it next (the clock
 * moves to it, it counts as a step, it is the list's least while the handler
 * runs it), when it is the list's (not the lane's), of this kind, and the
 * running ts_sim_run or ts_sim_step would run it now (no failure, not past
 * until, steps left); the handler then runs it in place of a return and a
 * call, and asks again. It is copied into *buf. NULL otherwise: the handler
 * returns. When the handler scheduled nothing, its event is removed here
 * first (what dispatch would do after it returned). Only from a handler that
 * ts_sim_run or ts_sim_step called. */
static inline const ts_event *ts_sim_next_in_place(ts_sim *sim, int kind, ts_event *buf)
{
  return ts__sim_next_in_place_of(sim, kind, buf);
}
/* ts_sim_next_in_place for the next event of the list whatever its kind:
 * the handler runs it as dispatch would (its own kind itself, another kind
 * by a call of that kind's handler, which must not keep its event: it is
 * *buf), then asks again. When that handler scheduled nothing, its event
 * is removed at the next ask, as a handler's own. */
static inline const ts_event *ts_sim_next_any_in_place(ts_sim *sim, ts_event *buf)
{
  return ts__sim_next_in_place_of(sim, -1, buf);
}

/* For a handler of a lane event (none of its own pending in the list) about
 * to schedule an event at now whose handler it could run itself: whether
 * that event would be the next one dispatched, the list and the lane
 * holding none at or before now, and the running ts_sim_run would run it
 * (steps left; ts_sim_step runs one event only). If so the event counts as
 * scheduled and dispatched (its sequence number, a step: the same clock,
 * steps and order as when it is) and 1 is returned: the handler runs it in
 * place. 0: the handler schedules it. */
static inline int ts_sim_now_in_place(ts_sim *sim)
{
  if ((sim->lane_on && sim->lane_ev.time <= sim->now) || sim->pending || sim->failed || sim->steps >= sim->steps_end)
    return 0;
  const ts_event *top = ts_heap_peek(&sim->heap);
  if (top && top->time <= sim->now)
    return 0;
  sim->next_seq++;
  sim->steps++;
  return 1;
}

/* Insert the held event as ts_sim_at inserts (the handler's own event,
 * when still the list's, is replaced), for a key that may be older than
 * the list's. Out of line: the loops that inline ts_sim_next_held_in_place
 * stay small. */
int ts__sim_put_held(ts_sim *sim);
/* ts_sim_next_any_in_place for a handler that runs events in place while
 * the handlers it runs may hold one (sim->hold 1 or 2, set by the caller;
 * 0: none runs in place, NULL). When the handler it ran held one
 * (ts_sim_at_next) and that event is the next the running ts_sim_run or
 * ts_sim_step would dispatch (no failure, steps left, not past until,
 * before the lane's next and the list's least by (time, seq)), it is
 * dispatched from the hold without entering the list: the clock moves to
 * it, it counts as a step, and it is not the list's (nothing to remove
 * after it). Otherwise it is inserted, and the list's next is asked for as
 * ts_sim_next_any_in_place does. Holding stays on (hold 1) either way; the
 * caller turns it off (0) when it returns. A held event is handed out
 * where it is held, not copied to *buf: its handler must read it before it
 * schedules anything (as cpu.c's seg_end, the one handler of the kind
 * ts_sim_at_next is used for, does). */
static inline const ts_event *ts_sim_next_held_in_place(ts_sim *sim, ts_event *buf)
{
  if (sim->hold != 1) {
    if (!sim->hold)
      return NULL;
    sim->hold = 1;
    const ts_event *h = &sim->held_ev, *top;
    if (!sim->failed && sim->steps < sim->steps_end && h->time <= sim->until &&
        !(sim->lane_on && sim->lane_ev.time <= h->time) &&
        (sim->pending ? ts_heap_before_rest(&sim->heap, h, sim->top_in_run)
                      : !(top = ts_heap_peek(&sim->heap)) || ts_event_before(h, top))) {
      /* (the handler's own event, when still pending, stays the list's top:
       * the first event the held one's handler schedules replaces it, or
       * the next ask removes it, as for a handler's own event) */
      sim->now = h->time;
      sim->steps++;
      return h;
    }
    if (ts__sim_put_held(sim) != 0)
      return NULL;
  }
  return ts__sim_next_in_place_of(sim, -1, buf);
}

/* The next event to run (lane or heap) without removing it, or NULL when
 * nothing is left. Not for handlers. */
const ts_event *ts_sim_peek(const ts_sim *sim);
/* Dispatch the next event. Returns 1 if one ran, 0 if the list is empty. */
int ts_sim_step(ts_sim *sim);
/* Run until the list is empty, an event lies beyond until, or max_steps events
 * ran (0 = no limit). Returns the number of events dispatched. */
uint64_t ts_sim_run(ts_sim *sim, ts_time until, uint64_t max_steps);

#endif
