/* Observation hooks: what traces, timelines and Gantt charts are drawn from.
 * The world calls these (when set) as things happen; they must not change
 * the world. */
#ifndef TS_OBSERVER_H
#define TS_OBSERVER_H
#include "engine/time.h"

/* One piece of CPU on a worker: an actor's step (or loop overhead) from t0
 * until the step ended or the actor left the CPU. */
typedef struct ts_run_piece {
  int worker;
  int actor;          /* -1: loop overhead (yields, iterations) */
  ts_time t0, t1;
  const char *label;  /* the step's label, or "loop" */
  int sliced;
  int kernel;         /* kernel CPU (futex, wakes) */
  int state;          /* the actor's on-CPU state: running, spinning, in futex */
  int step;           /* index of the step in the actor's program, or -1 */
  long long slice;    /* the actor's slice number for timed steps (1 = first), else 0 */
} ts_run_piece;

typedef struct ts_observer {
  void *data;
  /* An actor changed state (ts_actor_state) at time t. */
  void (*actor_state)(void *data, ts_time t, int actor, int state);
  /* A worker ran one piece of CPU (see ts_run_piece). */
  void (*run)(void *data, const ts_run_piece *piece);
  /* Queue depth of a worker's time-slice queue, and its priority ops in flight. */
  void (*counters)(void *data, ts_time t, int worker, int queue_depth, int prio_inflight);
  /* An actor's lock (declaration index) was acquired (held=1) or released (held=0). */
  void (*lock)(void *data, ts_time t, int actor, int decl, int held);
  /* Actor `from` woke actor `to` (lock or mutex hand-over, notify) at t. */
  void (*wake)(void *data, ts_time t, int from, int to);
  /* A worker blocked (a mutex: it runs nothing) or ran again. */
  void (*blocked)(void *data, ts_time t, int worker, int actor, int on);
  /* A call of actor to server s with priority class klass: ev 0 joined the
   * server's queue, 1 admitted (its handler starts), 2 done (the server freed). */
  void (*call)(void *data, ts_time t, int actor, int server, int klass, int ev);
  /* A sample of span (the model's spans[] index) lasting duration ended at
   * t, in the measurement window or not. */
  void (*span)(void *data, ts_time t, int span, ts_time duration);
} ts_observer;

#endif
