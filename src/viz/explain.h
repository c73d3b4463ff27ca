/* Explaining a recorded timeline: where each actor's wave wall clock went,
 * and how it compares with the closed-form laws of time-slice scheduling.
 *
 * The accounting is exact. For an actor whose wave window is [ws, we) on a
 * worker that was busy B (all actors' CPU plus loop overhead, whole run):
 *   wave = own CPU + queue wait + callback wait + I/O + lock wait + sleep
 *          + other states                                         (states)
 *   wave = B + I/O + sleep - (worker busy during own I/O) - (worker busy
 *          during own sleep) - (worker busy outside [ws, we)) + (worker idle
 *          while waiting) + (other states less the worker's busy time in
 *          them)                                                     (law)
 * so the law wave ~ L + latency (I/O and sleep), L the CPU its worker's
 * queue makes the actor wait for (processor sharing on a queue that serves
 * in turn: c + sum over the actors j sharing its wave of min(c_j, c); first
 * come, run to completion: c + the c_j ahead; m*c for equal demands; c an
 * actor's CPU within its own wave, as c_j within j's), misses exactly by
 * (B - outside - L) and the other bracketed terms, which the report prints. The
 * worker is the one the actor is on for its wave (after a hop, the one it
 * reached; each wait is set against the worker it waited on). Only actors
 * whose wave ended (wave_end >= 0) have a wave: the others, stopped by the
 * horizon, are left out of the means. */
#ifndef TS_EXPLAIN_H
#define TS_EXPLAIN_H
#include <stdio.h>

#include "viz/timeline.h"

/* One actor's accounting over its wave window. */
typedef struct ts_explain_actor {
  ts_time wave;                        /* wave_end - wave_start */
  ts_time state[TS_NSTATES];           /* time in each state within the window */
  ts_time held[TS_NSTATES];            /* ...of which holding at least one lock */
  ts_time wait_others;                 /* while waiting (queued, callback, lock): other actors' CPU */
  ts_time wait_loop;                   /* ...loop overhead */
  ts_time wait_idle;                   /* ...worker idle (running nothing) */
  ts_time wait_blocked;                /* ...of which blocked: a task of it parked on a mutex */
  ts_time ready_blocked;               /* of state[TS_ACTOR_READY] on a thread: its thread blocked */
  ts_time ready_waking;                /* ...its thread idle and not blocked: waking up (wake latency) */
  ts_time held_blocked;                /* of held[TS_ACTOR_READY] on a thread: its thread blocked */
  ts_time held_waking;                 /* ...its thread idle and not blocked: waking up */
  ts_time io_busy;                     /* worker busy while this actor was in I/O */
  ts_time sleep_busy;                  /* worker busy while this actor slept (sleep steps) */
  ts_time other_gap;                   /* time in the other states (neither running, waiting, I/O
                                          nor sleeping) less its worker's busy time in them */
  ts_time outside;                     /* worker busy outside the window */
  ts_time worker_busy;                 /* B: its worker's busy time, whole run (the worker it is on for
                                          its wave: after a hop, the one it reached) */
  ts_time queued_cpu;                  /* its CPU in timed (time-sliced) steps within the window */
  ts_time loop_cpu;                    /* its other CPU within the window, plus its share of the loop
                                          overhead there (the worker's within the window / sharers) */
  ts_time step_cpu;                    /* its CPU within the window (queued_cpu + its other CPU) */
  int peers;                           /* actors on that worker, itself included */
  int sharers;                         /* ...of which those whose waves overlap its own (itself included:
                                          ts_explain_wave_span), who share the loop overhead in it */
  int64_t slices;                      /* its time slices that ran within the window */
  int64_t yields;                      /* its yields within the window */
  ts_time call_queued;                 /* of state[TS_ACTOR_CALL_WAIT]: its calls' waits in the servers'
                                          queues (ts_timeline_call_wait_parts); the rest: their legs */
  ts_time call_service;                /* its calls' service within the window, admission to end (the
                                          handler's own states; a handler's own call is inside its
                                          caller's service and counted there, once) */
} ts_explain_actor;

/* When actor j's wave (else, arrived and not done, its arrival) began, or
 * -1 when it has none; *end: its end (the run's end when it did not end). */
ts_time ts_explain_wave_span(const ts_timeline *tl, int j, ts_time *end);

/* Account every actor of tl into out[tl->nactors]. Returns 0, or -1 when
 * memory runs out. */
int ts_explain_account(const ts_timeline *tl, ts_explain_actor *out);

/* The round-robin closed form, when it applies to tl: one class running one
 * cpu step of a fixed demand C (marks allowed), FIFO queue, no overheads,
 * all arrivals at one instant, no processor sharing. Slices follow from the
 * rows and the threshold exactly as the worker cuts them; on a worker with m
 * actors the i-th (in arrival order, from 0) completes at
 *   start + m*(C - s) + (i + 1)*s,   s = the last slice,
 * so the last at start + m*C. */
typedef struct ts_explain_rr {
  int applies;
  char why_not[200];     /* when it does not apply */
  ts_time cost;          /* C */
  ts_time quantum;       /* the first slice */
  ts_time last_slice;    /* s */
  int equal_slices;      /* every slice is quantum long */
  int64_t slices;        /* S */
  ts_time start;
  int m_max;             /* most actors on one worker */
  int matched, total;    /* completions equal to the prediction */
  ts_time max_err;       /* largest |simulated - predicted| completion */
  ts_time last_pred, last_sim, first_sim;
  ts_time sum_sim;       /* sum of simulated completions (for the mean) */
  ts_time sum_ps;        /* sum of completions in the processor-sharing limit */
} ts_explain_rr;

/* Check the round-robin closed form against tl. Returns 0 (out->applies
 * tells whether it applied), or -1 when memory runs out. */
int ts_explain_rr_check(const ts_timeline *tl, ts_explain_rr *out);

/* The mutex contention of tl: per mutex the wait, spinning and futex work;
 * per worker its busy time, spinning, futex work and time blocked. Nothing
 * when the model has no mutex. Returns 0, or -1 when memory runs out. */
int ts_explain_contention(FILE *out, const ts_timeline *tl);
/* Per server, per class of caller and call: the calls, their mean queue
 * wait, and the service of each class of call that ran while they were
 * queued. Nothing without servers. Returns 0, or -1 when memory runs out. */
int ts_explain_calls(FILE *out, const ts_timeline *tl);

/* Actor a's time in each state within [t0, t1) added into t[TS_NSTATES + 1],
 * its wait for a reply split by its calls: t[TS_NSTATES] the waits in the
 * servers' queues, t[TS_ACTOR_CALL_WAIT] the rest (the request and reply
 * legs). Not arrived (TS_ACTOR_NEW) counts from a's first recorded state. */
void ts_explain_state_times(const ts_timeline *tl, int a, ts_time t0, ts_time t1, double *t);
/* The name of entry st of such an array: the state's (on a thread worker
 * its thread_name when `thread`), the two parts of a wait for a reply named
 * apart when the run made calls. */
const char *ts_explain_state_label(const ts_timeline *tl, int st, int thread);
/* The entry of such an array to print i-th (i in [0, TS_NSTATES]): the
 * states in their order, the wait in a queue just before the legs. */
int ts_explain_state_at(int i);
/* A mutex taken in a closed loop (N actors, each alone on a thread: think,
 * lock, hold, unlock) against exact mean value analysis of the
 * machine-repairman model, beside the simulated wait per acquire; or why it
 * does not apply. Prints nothing for a model without mutexes. 0, or -1 when
 * out of memory (explain_mva.c). */
int ts_explain_mva(FILE *out, const ts_timeline *tl);

/* What class k's actors did from their arrival to the end of the run, mean
 * per actor and state: for a class none of whose waves ended. */
void ts_explain_run_states(FILE *out, const ts_timeline *tl, int k);
/* Each span of the model: its samples that ended in the measurement window
 * (tl->win_t0, win_t1: the scenario's warmup_ms and window_ms), their rate
 * over it, mean and quantiles (as tssim run computes them), the window named
 * in the heading when it is not the whole run. Nothing when the model has no
 * span. Returns 0, or -1 when memory runs out. */
int ts_explain_spans(FILE *out, const ts_timeline *tl);

/* The time-slice queues of tl, per worker: entries, the mean and most
 * actors already waiting at an entry, and the mean slice wait (entering the
 * queue to being resumed). Nothing when no actor ever entered one. Returns
 * 0, or -1 when memory runs out. */
int ts_explain_queue(FILE *out, const ts_timeline *tl);

/* Whether m is open: some class's actors arrive over the run (poisson
 * arrivals, or "count": "forever"; a fixed count arriving periodically is a
 * staggered closed wave), so no closed wave of m actors that start
 * together; then why (each such class and its arrivals, "class high: count
 * forever, poisson 400/s; ...") is written into why (size cap). */
int ts_explain_open(const ts_model *m, char *why, size_t cap);
/* The same for class k alone, its arrivals ("count forever, poisson 400/s") into buf. */
int ts_explain_open_class(const ts_model *m, int k, char *buf, size_t cap);
/* For an open model (why: ts_explain_open's): the wave law does not apply,
 * and the queues the arrivals of tl waited in (the servers called, the main
 * pool's callbacks and time-slice queue). */
void ts_explain_open_queues(FILE *out, const ts_timeline *tl, const char *why);
/* For an open model: per queue (the main pool's, each server's) its load
 * rho = lambda E[S] / c from the declared arrivals and distributions and,
 * when it is M/G/1 (Pollaczek-Khinchine) or M/M/c (Erlang C: GSL's Poisson
 * distribution), the mean wait beside the simulated one (x: the accounting
 * of tl); otherwise "does not apply: " and the assumption that fails (several
 * classes, arrivals not Poisson, a policy other than first come first served,
 * a step that is not CPU, ...). */
void ts_explain_theory(FILE *out, const ts_timeline *tl, const ts_explain_actor *x);

/* Print the report for tl. ref, if not NULL, is the same model at n = 1 on
 * the same workers: the law's terms are then also predicted from it. title
 * names the scenario. When no actor's wave ended (the horizon stopped them
 * all), each class says so in one line and the report ends after the
 * whole-run sections (queue, mutexes, calls): no closed form, no law.
 * Returns 0, or -1 when memory runs out. */
int ts_explain_report(FILE *out, const ts_timeline *tl, const ts_timeline *ref, const char *title);

#endif
