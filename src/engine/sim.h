/* The discrete-event core. A ts_sim owns the clock, the future-event list and
 * a table of handlers indexed by event kind; it knows nothing of workers or
 * actors. The model layer registers its handlers and schedules events.
 * Invariant: now never decreases; an event is never scheduled in the past. */
#ifndef TS_SIM_H
#define TS_SIM_H
#include <stdint.h>

#include "engine/heap.h"
#include "engine/time.h"

#define TS_SIM_MAX_KINDS 16

enum { TS_SIM_OK = 0, TS_SIM_NOMEM = 1, TS_SIM_PAST = 2, TS_SIM_STOP = 3 };

typedef struct ts_sim ts_sim;
typedef void (*ts_sim_handler)(ts_sim *sim, const ts_event *ev);

struct ts_sim {
  ts_time now;
  uint64_t next_seq;
  uint64_t steps;      /* events dispatched so far */
  ts_heap heap;
  ts_sim_handler handlers[TS_SIM_MAX_KINDS];
  void *data;          /* the model's context, for handlers */
  int failed;          /* TS_SIM_NOMEM or TS_SIM_PAST once scheduling failed; TS_SIM_STOP: a handler stopped the run */
};

/* Initialise a simulation at time 0 in caller memory; data is handed to handlers. */
void ts_sim_init(ts_sim *sim, void *data);
/* Free the event list. */
void ts_sim_finish(ts_sim *sim);
/* Route events of this kind (0 <= kind < TS_SIM_MAX_KINDS) to fn. */
void ts_sim_on(ts_sim *sim, int kind, ts_sim_handler fn);
/* Schedule an event at absolute time at (>= now). Returns 0, or -1 and sets
 * sim->failed to TS_SIM_NOMEM (memory ran out) or TS_SIM_PAST (at < now, or a
 * bad kind: a bug in the caller). */
int ts_sim_at(ts_sim *sim, ts_time at, int kind, int32_t obj, uint32_t gen);
/* Dispatch the next event. Returns 1 if one ran, 0 if the list is empty. */
int ts_sim_step(ts_sim *sim);
/* Run until the list is empty, an event lies beyond until, or max_steps events
 * ran (0 = no limit). Returns the number of events dispatched. */
uint64_t ts_sim_run(ts_sim *sim, ts_time until, uint64_t max_steps);

#endif
