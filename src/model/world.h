/* One replication of a model at one sweep point: the workers, actors and
 * locks that a ts_model describes, wired to a ts_sim. ts_world_run drives the
 * simulation to the end and leaves one ts_actor_stats per actor.
 *
 * Invariants: a worker runs at most one segment (a slice of one actor's CPU
 * steps, or loop overhead) at a time; an actor is in exactly one place: running,
 * in its worker's I/O-callback queue, in its worker's time-slice queue, waiting
 * on I/O, waiting for a lock, or done. */
#ifndef TS_WORLD_H
#define TS_WORLD_H
#include <stdint.h>

#include "engine/rng.h"
#include "engine/sim.h"
#include "model/model.h"
#include "model/observer.h"
#include "sched/policy.h"
#include "sched/ring.h"

typedef enum {
  TS_ACTOR_NEW,        /* not yet arrived */
  TS_ACTOR_READY,      /* in the worker's I/O-callback queue */
  TS_ACTOR_RUNNING,
  TS_ACTOR_QUEUED,     /* in the time-slice queue */
  TS_ACTOR_IO,         /* waiting off-CPU */
  TS_ACTOR_LOCK_WAIT,
  TS_ACTOR_DONE
} ts_actor_state;

/* Per-actor measurements, the ones the real probes take. */
typedef struct ts_actor_stats {
  int actor;
  int klass;
  int worker;
  ts_time arrive;
  ts_time wave_start;
  ts_time wave_end;
  ts_time done;
  ts_time timer;        /* slice-timer CPU: sum of laps in timed steps */
  ts_time cpu;          /* all CPU the actor ran (wall time on a CPU) */
  ts_time queue_wait;   /* time in the time-slice queue */
  ts_time ready_wait;   /* time in the I/O-callback queue */
  ts_time io;           /* time waiting off-CPU */
  ts_time lock_wait;    /* time waiting to acquire locks */
  ts_time lock_work;    /* time holding locks (summed over acquisitions) */
  int64_t slices;       /* run periods that did timed CPU work */
  int64_t yields;
} ts_actor_stats;

typedef struct ts_actor {
  int id;
  int klass;
  int worker;
  ts_actor_state state;
  ts_time state_since;
  size_t pc;            /* current step */
  int in_step;          /* the cpu step at pc has begun and not finished */
  ts_time step_cost;    /* drawn cost of the current cpu step */
  ts_time step_done;    /* work done in the current cpu step */
  int64_t rows_done;
  int64_t rows_target;  /* rows done when the planned segment ends */
  ts_time lap_start;
  int lap_counted;      /* this run period already counted as a slice */
  int prio_pending;     /* a priority io completed but its callback has not run */
  ts_time *lock_since;  /* per lock: acquisition time, or -1 */
  ts_actor_stats st;
} ts_actor;

typedef enum { TS_SEG_IDLE, TS_SEG_ACTOR, TS_SEG_OVERHEAD } ts_seg_kind;

/* A loop iteration: START (pay loop overhead, snapshot the ready callbacks),
 * POLL (run the snapshot's callbacks), CHECK (resume at most one queued actor). */
typedef enum { TS_PHASE_START, TS_PHASE_POLL, TS_PHASE_CHECK } ts_loop_phase;

typedef struct ts_worker {
  int id;
  ts_ring ready;          /* actors whose I/O completed: callbacks for the poll phase */
  ts_sched_queue queue;   /* the time-slice queue */
  ts_loop_phase phase;    /* where the loop iteration stands */
  int overhead_paid;      /* this iteration's loop overhead is paid */
  size_t poll_left;       /* callbacks left in this iteration's poll phase */
  int wake_pending;
  int prio_inflight;      /* priority operations in flight in this worker's process */
  ts_seg_kind seg;
  int actor;              /* running actor (TS_SEG_ACTOR) */
  ts_time seg_t0;         /* when work done was last brought up to date */
  int64_t frac;           /* work done beyond whole ns, in units of 1/frac_q ns */
  int64_t frac_q;
  ts_time piece_t0;       /* start of the run piece being traced */
  ts_time over_left;      /* TS_SEG_OVERHEAD: overhead work left */
  ts_time seg_threshold;  /* threshold in force for this run period */
  uint32_t gen;           /* stamps SEG_END events; bumped on replan */
  ts_time busy;           /* wall time spent running segments */
} ts_worker;

typedef struct ts_lock {
  int owner;              /* actor id, or -1 */
  ts_ring waiters;
} ts_lock;

typedef struct ts_world {
  const ts_model *model;
  ts_sim sim;
  ts_rng *rng;
  int n;
  int nworkers;
  ts_worker *workers;
  int nactors;
  ts_actor *actors;
  int nlocks;             /* instantiated locks */
  ts_lock *locks;         /* declaration-major: lock_base[d] is the first of declaration d's */
  int *lock_base;
  int busy;               /* workers running a segment */
  double cpu_scale;       /* ts_model_cpu_scale at this n */
  int done;               /* actors done */
  const ts_observer *obs; /* optional: trace records */
} ts_world;

/* Build a world for n groups on `workers` workers with the given seed, in
 * caller memory. obs may be NULL. Returns 0, or -1 when memory runs out
 * (everything built so far is freed). */
int ts_world_init(ts_world *w, const ts_model *m, int n, int workers, unsigned long seed,
                  const ts_observer *obs);
/* Free a world's memory. */
void ts_world_finish(ts_world *w);
/* Run to the end (every actor done, or no events left). Returns 0 when every
 * actor finished, -1 on memory failure, -2 if actors remain stuck (deadlock),
 * -3 on an internal error (an event scheduled in the past). */
int ts_world_run(ts_world *w);

/* internal, across src/model (ts__ = not part of the library's interface) */

/* An idle worker has work: schedule its WAKE at the current instant (once). */
void ts__worker_kick(ts_world *w, ts_worker *wk);
/* Make the worker busy with `work` ns of loop CPU that belongs to no actor. */
void ts__worker_start_overhead(ts_world *w, ts_worker *wk, ts_time work);
/* The running actor a begins or resumes its cpu step on wk at the current time. */
void ts__worker_run_cpu(ts_world *w, ts_worker *wk, ts_actor *a);
/* The running actor a rejoins wk's time-slice queue; wk pays the yield
 * overhead. Returns 1 if wk stays busy (overhead), 0 if it is free. */
int ts__worker_yield(ts_world *w, ts_worker *wk, ts_actor *a);
/* Report wk's queue depth and priority ops in flight to the observer. */
void ts__worker_counters(ts_world *w, ts_worker *wk);
/* wk's CPU is free: advance its loop iteration (START, POLL, CHECK) until an
 * actor or overhead keeps it busy or nothing is left (then it goes idle). */
void ts__worker_next(ts_world *w, ts_worker *wk);
/* Event handlers: a planned segment ends (ignored when its gen is stale);
 * an idle worker wakes. */
void ts__worker_on_seg_end(ts_sim *sim, const ts_event *ev);
void ts__worker_on_wake(ts_sim *sim, const ts_event *ev);
/* Move actor a to state s at the current time, adding the time spent in the
 * old state to its stats. */
void ts__actor_set_state(ts_world *w, ts_actor *a, ts_actor_state s);
/* Run a's program from its pc while it holds the CPU. Returns 1 when a cpu
 * step (or yield overhead) keeps the worker busy, 0 when a left the CPU. */
int ts__actor_continue(ts_world *w, ts_actor *a);
/* Event handlers: an actor arrives; an actor's io step completes. */
void ts__actor_on_arrive(ts_sim *sim, const ts_event *ev);
void ts__actor_on_io_done(ts_sim *sim, const ts_event *ev);
/* a was handed a lock: it resumes as a callback on its worker's loop. */
void ts__actor_grant(ts_world *w, ts_actor *a);
/* Take lock decl for a: 1 if acquired now, 0 if a was queued behind the owner. */
int ts__lock_acquire(ts_world *w, ts_actor *a, int decl);
/* Release lock decl held by a (no-op if a does not hold it); the oldest
 * waiter, if any, becomes the owner and is granted. */
void ts__lock_release(ts_world *w, ts_actor *a, int decl);
/* One draw of d from the replication's stream, in ns, capped at ts_model_draw_max(d). */
ts_time ts__draw(ts_world *w, const ts_dist *d);
/* Memory ran out inside a handler: stop the run (ts_world_run returns -1). */
void ts__world_nomem(ts_world *w);

enum { TS_EV_ARRIVE = 0, TS_EV_IO_DONE, TS_EV_SEG_END, TS_EV_WAKE };

#endif
