/* A recorded timeline: one replication of a model at one sweep point, with
 * everything its observer reported, kept in memory for traces, Gantt charts
 * and explanations.
 *
 * Invariants after ts_timeline_record: pieces, states, counters, locks and
 * wakes are each in nondecreasing time order (the order the world reported
 * them); pieces on one worker never overlap; states[state_at[a] ..
 * state_at[a + 1]) are actor a's state changes in time order (the same for
 * locks with lock_at); stats[a] is actor a's ts_actor_stats at the end. */
#ifndef TS_TIMELINE_H
#define TS_TIMELINE_H
#include <stddef.h>
#include <stdint.h>

#include "engine/time.h"
#include "model/model.h"
#include "model/state.h"
#include "model/world.h"

/* A run piece: worker ran actor (-1: loop overhead) from t0 to t1. */
typedef struct ts_tl_piece {
  ts_time t0, t1;
  int worker;
  int actor;
  int step;           /* index in the actor's class program, -1 for loop overhead */
  int run;            /* the actor's run period (1, 2, ...): times it got the CPU */
  int64_t slice;      /* the actor's time slice (1, 2, ...) for timed steps, else 0 */
  int sliced;
  int state;          /* the actor's on-CPU state: running, spinning, in futex */
  const char *label;  /* the step's label (owned by the model), or "loop" */
} ts_tl_piece;

/* An actor entered state (ts_actor_state) at t, on worker (where it runs
 * now, or is bound for: a hop's or an admitted call's target; -1 unknown).
 * Narrow fields keep the record at 16 bytes: a worker past INT16_MAX (in all
 * pools) is stored as -1, unknown (readers then take the actor's home). */
typedef struct ts_tl_state {
  ts_time t;
  int actor;
  int16_t state;
  int16_t worker;
} ts_tl_state;

typedef struct ts_tl_counter {
  ts_time t;
  int worker;
  int queue_depth;
  int prio_inflight;
} ts_tl_counter;

typedef struct ts_tl_lock {
  ts_time t;
  int actor;
  int decl;           /* index into the model's locks */
  int held;           /* 1 acquired, 0 released */
} ts_tl_lock;

typedef struct ts_tl_wake {
  ts_time t;
  int from, to;
} ts_tl_wake;

/* A worker blocked by actor's mutex wait (on = 1) or running again (on = 0). */
typedef struct ts_tl_block {
  ts_time t;
  int worker, actor, on;
} ts_tl_block;

/* A call: queued (ev 0), admitted (1) or done (2) at server, class klass. */
typedef struct ts_tl_call {
  ts_time t;
  int actor, server, klass, ev;
} ts_tl_call;

/* One call of an actor, paired from the call records: its request reached
 * server's queue at `queued` (ev 0), its service began at `admitted` (ev 1;
 * -1: never, refused or timed out there) and it ended at `done` (ev 2: its
 * handler's end, or the refusal or timeout; -1: not by the end of the run). */
typedef struct ts_tl_callspan {
  ts_time queued, admitted, done;
  int server, klass;
} ts_tl_callspan;

/* The names of a wait for a reply split by the calls (gantt's legend, the
 * trace's slices, explain's rows): the wait in the server's queue, the rest. */
#define TS_TL_CALL_QUEUED "waiting for a reply: queued at the server"
#define TS_TL_CALL_LEGS "waiting for a reply: request or reply on the way"

typedef struct ts_timeline {
  const ts_model *model;
  int n;
  int nworkers;               /* every pool's workers */
  int nmain;                  /* the main pool's (the sweep's workers) */
  int *worker_pool;           /* [nworkers]: the pool of each worker (the model's pools[]) */
  int *worker_index;          /* [nworkers]: its index within that pool */
  int nactors;
  unsigned long seed;
  ts_time end;                /* the last instant anything happened */
  ts_time horizon;            /* the run's horizon (TS_TIME_MAX: none) */
  int stuck;                  /* the run deadlocked (-2 from ts_timeline_record): actors not done
                                 are stuck; otherwise the horizon stopped them */
  ts_actor_stats *stats;      /* per actor, at the end */
  unsigned char *dropped;     /* per actor: 1 when its arrival was refused (a worker full at its capacity:
                                 ts_actor.dropped), done at once without running (its stats' done stays -1) */
  ts_tl_piece *pieces;
  size_t npieces, cap_pieces;
  ts_tl_state *states;        /* grouped by actor after recording */
  size_t nstates, cap_states;
  size_t *state_at;           /* nactors + 1 offsets into states */
  ts_tl_counter *counters;
  size_t ncounters, cap_counters;
  ts_tl_lock *locks;          /* grouped by actor after recording */
  size_t nlocks, cap_locks;
  size_t *lock_at;            /* nactors + 1 offsets into locks */
  ts_tl_wake *wakes;
  size_t nwakes, cap_wakes;
  ts_tl_block *blocks;
  size_t nblocks, cap_blocks;
  ts_tl_call *calls;
  size_t ncalls, cap_calls;
  ts_tl_callspan *call_spans; /* the calls, grouped by actor after recording, each actor's in the
                                 order they were queued (so their queue waits in time order) */
  size_t ncall_spans;
  size_t *call_span_at;       /* nactors + 1 offsets into call_spans */
  double *mutex_wait;         /* [model locks]: ns actors waited for each mutex, the whole run */
  int64_t mutex_contended;
  ts_mutex_stat *lock_stat;   /* [model locks]: contention per mutex declaration, the whole run */
  ts_mutex_stat *site_stat;   /* [model sites]: ... per site */
  ts_time **span_v;           /* [model spans]: each span's samples (durations) that ended in the
                                 measurement window [win_t0, win_t1), as tssim run takes them */
  size_t *span_len, *span_cap;
  ts_time win_t0, win_t1;     /* the measurement window (warmup_ms, window_ms; else 0 and the horizon) */
  ts_time win_len;            /* its length, its end clipped to when the run stopped (ts_world_window) */
  int win_missed;             /* the run ended at or before win_t0 (ts_world_window_missed) */
  size_t records;              /* everything recorded: pieces + states + counters + locks + wakes */
  size_t max_records;          /* 0: no limit */
  /* while recording */
  const ts_world *world;
  int *runs;
  size_t cap_runs;
  int failed;
  char errmsg[400];
} ts_timeline;

/* Run one replication of m with n groups on `workers` workers, the given
 * stream seed and horizon (TS_TIME_MAX: none), recording it into tl (caller
 * memory; free with ts_timeline_finish, also after a failure). max_records
 * (0: no limit) refuses a point that would record more (run pieces, state
 * changes, counter samples, lock changes, wakes): the run stops there.
 * Returns 0; -1 when memory runs out; -2 when the run deadlocked (the
 * timeline then holds what happened until it stuck, and tl->errmsg says who
 * waits on what); -3 on an internal error of the world (tl->errmsg); -4 when
 * simulated time would pass 73 years; -5 when a step failed or the model
 * cannot be laid out at this point (tl->errmsg); -6 past max_records. */
int ts_timeline_record(ts_timeline *tl, const ts_model *m, int n, int workers, uint64_t seed, ts_time horizon,
                       size_t max_records);
/* The same with the measurement window of tssim run: warmup (win_t0) and
 * window (0: until the horizon). Only the span samples are taken in it
 * (span_v, win_len, win_missed); everything else is recorded over the whole
 * run, as ts_timeline_record does (whose window is the whole run). */
int ts_timeline_record_window(ts_timeline *tl, const ts_model *m, int n, int workers, uint64_t seed,
                              ts_time horizon, ts_time warmup, ts_time window, size_t max_records);
/* What a nonzero ts_timeline_record result means, as a sentence. */
const char *ts_timeline_strerror(const ts_timeline *tl, int rc);
/* Free a timeline's memory; a zeroed or finished timeline is accepted. */
void ts_timeline_finish(ts_timeline *tl);
/* The name of worker w (main pool: "worker W"; another pool: its name and
 * index, "srv 0") into buf of size cap; returns buf. */
const char *ts_timeline_worker_name(const ts_timeline *tl, int w, char *buf, size_t cap);
/* The name of actor a ("actor A", with its class when the model has
 * several: "actor A (high)") into buf of size cap; returns buf. */
const char *ts_timeline_actor_name(const ts_timeline *tl, int a, char *buf, size_t cap);
/* Whether worker w is a thread (else an event loop). */
int ts_timeline_worker_is_thread(const ts_timeline *tl, int w);
/* Short name of an actor state ("running", "queued", ...). */
const char *ts_timeline_state_name(int state);
/* The name of a recorded state change e: ts_timeline_state_name, or the
 * state's thread_name (ready: "runnable", in a run queue, not an I/O
 * callback queue) when the worker it happened on (e->worker; unknown: the
 * actor's home worker) is a thread. An actor of an event loop that hopped
 * to, or is served on, a thread is runnable there. */
const char *ts_timeline_entry_state_name(const ts_timeline *tl, const ts_tl_state *e);
/* Whether the worker of state change e (e->worker; unknown: its actor's home) is a thread. */
int ts_timeline_entry_on_thread(const ts_timeline *tl, const ts_tl_state *e);

/* When call c's wait in its server's queue ended: its admission, else its
 * end (refused, timed out), else the run's end. */
ts_time ts_timeline_call_queue_end(const ts_timeline *tl, const ts_tl_callspan *c);
/* A part of a wait for a reply, [t0, t1): c is the call whose wait in its
 * server's queue it is, or NULL for the rest (the request and reply legs). */
typedef void (*ts_tl_call_part_fn)(void *data, const ts_tl_callspan *c, ts_time t0, ts_time t1);
/* Actor a's wait for a reply over [t0, t1) (a stretch of its
 * TS_ACTOR_CALL_WAIT) split by its calls, each part given to fn with data,
 * in time order (an actor has at most one call in a queue at a time: a
 * handler's own call waits after its caller's was admitted). *k: the first
 * of a's calls that may still overlap; start at tl->call_span_at[a] and
 * keep it over a's stretches in time order (it only advances). */
void ts_timeline_call_wait_parts(const ts_timeline *tl, int a, size_t *k, ts_time t0, ts_time t1,
                                 ts_tl_call_part_fn fn, void *data);
/* Add a part's length to data (ts_time[2]): [0] in a server's queue, [1] the rest. */
void ts_timeline_call_part_add(void *data, const ts_tl_callspan *c, ts_time t0, ts_time t1);

/* Time actor a spent in each state (indexed by ts_actor_state) within [t0, t1),
 * added into out[TS_NSTATES]. When `lock_only`, only the time it held
 * at least one lock counts. */
void ts_timeline_state_times(const ts_timeline *tl, int a, ts_time t0, ts_time t1, int lock_only,
                             ts_time *out);

#endif
