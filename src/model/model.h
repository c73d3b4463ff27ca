/* A model as plain C data: what src/io makes of a model JSON file. Nothing
 * here knows JSON; nothing here changes during a run.
 *
 * Vocabulary. A model has workers (single-threaded event loops, one CPU each,
 * with a time-slice queue under a named policy) on a host with a number of
 * cores, classes of actors, and declared locks. Every actor of a class runs
 * the class's step program:
 *   cpu     a CPU burst of `cost` split into `rows` equal chunks; when sliced,
 *           the actor checks after each chunk whether its lap exceeds the
 *           worker's threshold and, if so, yields to the queue's tail;
 *   io      an off-CPU wait of `latency` (optionally a priority operation,
 *           which lowers the threshold while in flight); its completion is a
 *           callback on the worker's loop;
 *   yield   rejoin the time-slice queue;
 *   lock / unlock   an async FIFO lock, held across every wait;
 *   mark    record the current time under a name (wave_start, wave_end).
 */
#ifndef TS_MODEL_H
#define TS_MODEL_H
#include <stddef.h>
#include <stdint.h>

#include "engine/time.h"
#include "sched/policy.h"

typedef enum { TS_STEP_CPU, TS_STEP_IO, TS_STEP_YIELD, TS_STEP_LOCK, TS_STEP_UNLOCK, TS_STEP_MARK } ts_step_op;

typedef enum { TS_DIST_FIXED, TS_DIST_EXPONENTIAL, TS_DIST_LOGNORMAL, TS_DIST_GAMMA } ts_dist_kind;

typedef enum { TS_MARK_WAVE_START, TS_MARK_WAVE_END } ts_mark_id;

typedef enum { TS_LOCK_PER_ACTOR, TS_LOCK_SHARED } ts_lock_scope;

typedef enum { TS_DISPATCH_HASH, TS_DISPATCH_ROUND_ROBIN, TS_DISPATCH_LEAST_LOADED } ts_dispatch_kind;

/* A random duration: mean plus a distribution shape. */
typedef struct ts_dist {
  ts_dist_kind kind;
  ts_time mean;
  double cv;          /* coefficient of variation, for lognormal and gamma */
} ts_dist;

typedef struct ts_step {
  ts_step_op op;
  char *label;
  ts_dist cost;       /* cpu: CPU demand; io: latency */
  int64_t rows;       /* cpu: number of equal chunks (>= 1) */
  int sliced;         /* cpu: yield check after every chunk */
  int timed;          /* cpu: counted by the actor's slice timer (per-group CPU) */
  int priority;       /* io: a priority operation while in flight */
  int lock;           /* lock/unlock: index into ts_model.locks */
  ts_mark_id mark;    /* mark */
} ts_step;

typedef struct ts_lock_decl {
  char *name;
  ts_lock_scope scope;
} ts_lock_decl;

typedef struct ts_class {
  char *name;
  int count;          /* actors of this class; TS_COUNT_N = the sweep's n */
  int sched_class;    /* TS_CLASS_* used by the queue policy */
  ts_time arrival_start;    /* first arrival */
  ts_time arrival_spacing;  /* between consecutive arrivals of this class */
  ts_step *steps;
  size_t nsteps;
} ts_class;

#define TS_COUNT_N (-1)

typedef struct ts_model {
  char *name;
  /* worker */
  const ts_sched_type *policy;
  ts_time threshold;          /* yield threshold */
  int priority_divisor;       /* threshold / divisor while a priority op is in flight */
  ts_time priority_min;       /* ...but at least this */
  ts_time yield_overhead;     /* loop CPU per yield */
  ts_time loop_overhead;      /* loop CPU per event-loop iteration that does work */
  int burst_limit;            /* policy parameter (priority policy) */
  /* host and dispatch */
  int cores;                  /* host cores shared by all workers (processor sharing) */
  /* CPU price by load: cpu steps cost scale(n) times their nominal cost, with
   * scale piecewise linear in n through (scale_n[i], scale_v[i]), flat beyond
   * the ends; no table = 1. */
  double *scale_n;
  double *scale_v;
  size_t nscale;
  ts_dispatch_kind dispatch;
  char *task_id;              /* dispatch hash: taskID */
  char *group_prefix;         /* dispatch hash: clientGroupID = prefix + index */
  /* actors */
  ts_class *classes;
  size_t nclasses;
  ts_lock_decl *locks;
  size_t nlocks;
} ts_model;

/* Free everything a model owns (not the struct itself); NULL is accepted. */
void ts_model_finish(ts_model *m);
/* The largest duration one draw of d can take: the mean when fixed, else
 * min(1000 * mean, TS_DRAW_MAX) (random draws are capped there; for a cv up
 * to 3 the cap moves a lognormal's mean by less than 0.01%). */
ts_time ts_model_draw_max(const ts_dist *d);
/* 1 if every actor's program at load n (run back to back, at the largest
 * draws, plus arrivals) fits in TS_HORIZON_MAX ns, so simulated time cannot
 * overflow; 0 if not. */
int ts_model_horizon_ok(const ts_model *m, int n);

/* The largest duration of one step, about 11.6 days: with at most 4096
 * workers and cores, processor-sharing products (ns x workers) stay in int64. */
#define TS_DRAW_MAX INT64_C(1000000000000000)
#define TS_HORIZON_MAX (INT64_C(1) << 61)         /* about 73 years */

/* The CPU price multiplier at load n (1 without a table). */
double ts_model_cpu_scale(const ts_model *m, int n);
/* Number of actors of class c for a sweep point with n groups. */
int ts_model_class_count(const ts_model *m, size_t c, int n);

#endif
