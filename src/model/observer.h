/* Observation hooks: what traces, timelines and Gantt charts are drawn from.
 * The world calls these (when set) as things happen; they must not change
 * the world. */
#ifndef TS_OBSERVER_H
#define TS_OBSERVER_H
#include "engine/time.h"

typedef struct ts_observer {
  void *data;
  /* An actor changed state (ts_actor_state) at time t. */
  void (*actor_state)(void *data, ts_time t, int actor, int state);
  /* Worker ran actor (or -1 for loop overhead) from t0 to t1; label is the step. */
  void (*run)(void *data, int worker, int actor, ts_time t0, ts_time t1, const char *label, int sliced);
  /* Queue depth of a worker's time-slice queue, and its priority ops in flight. */
  void (*counters)(void *data, ts_time t, int worker, int queue_depth, int prio_inflight);
  /* An actor's lock (declaration index) was acquired (held=1) or released (held=0). */
  void (*lock)(void *data, ts_time t, int actor, int decl, int held);
  /* Actor `from` woke actor `to` (lock hand-over) at t. */
  void (*wake)(void *data, ts_time t, int from, int to);
} ts_observer;

#endif
