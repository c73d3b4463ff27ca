/* A model as plain C data: what src/io makes of a model JSON file. Nothing
 * here knows JSON; nothing here changes during a run.
 *
 * Vocabulary. Workers come in pools (the first pool, "main", has the sweep's
 * number of workers); a worker is an event loop (phases, a time-slice queue
 * under a named policy, a yield threshold) or a thread (one FIFO run queue,
 * each poll runs until the task awaits). Workers share a host of `cores`
 * cores. Classes of actors run step programs; each actor is placed on a
 * worker of its pool for life, by a dispatch rule or a fixed formula. Locks
 * (async FIFO locks, blocking mutexes, semaphores), channels (fan-out
 * wakeups), servers (request queues served by a pool), counters and spans are
 * declared by name; steps name them.
 *
 * A program is a flat array of steps: structured steps (repeat, if, call)
 * are compiled into begin/end pairs with jump targets, the way Lua compiles
 * loops into FORPREP/FORLOOP. The step ops are the const table in op.h. */
#ifndef TS_MODEL_H
#define TS_MODEL_H
#include <stddef.h>
#include <stdint.h>

#include "engine/time.h"
#include "model/expr.h"
#include "sched/policy.h"

typedef enum {
  TS_DIST_FIXED, TS_DIST_EXPONENTIAL, TS_DIST_LOGNORMAL, TS_DIST_GAMMA, TS_DIST_UNIFORM, TS_DIST_EMPIRICAL
} ts_dist_kind;

/* A random duration: a mean (fixed, or an expression in ms evaluated when
 * drawn) and a distribution shape. A duration given by its median ("by":
 * "median") is held as its mean: a constant is converted when the model
 * loads, an expression's value is multiplied by to_mean when drawn. */
typedef struct ts_dist {
  ts_dist_kind kind;
  ts_time mean;
  double cv;          /* coefficient of variation: lognormal, gamma */
  ts_time lo, hi;     /* uniform: [lo, hi] */
  ts_expr *mean_ms;   /* when not NULL: the mean in ms (or the median: to_mean), evaluated per draw */
  double to_mean;     /* mean / median of the shape, for an expression given by its median; 0: given by its mean */
  double *emp;        /* empirical: the samples divided by their mean (so the draws' mean is the mean) */
  size_t nemp;
  double emp_max;     /* empirical: the largest of emp */
  /* lognormal of a constant mean: ts_rng_lognormal_params of (ln_mean,
   * ln_cv), worked out once by ts_dist_prepare; a draw uses them only while
   * the mean and cv still equal ln_mean and ln_cv (-1 when not worked out) */
  double ln_mean, ln_cv, ln_mu, ln_sigma;
} ts_dist;

/* Kinds of expression variables (ts_expr_var.kind) in model expressions. */
enum {
  TS_VAR_INDEX,       /* i: the actor's index within its class */
  TS_VAR_N,           /* n: the sweep's n */
  TS_VAR_W,           /* W: workers in the main pool */
  TS_VAR_WORKER,      /* worker: the actor's worker, as an index within its pool */
  TS_VAR_POOL_SIZE,   /* workers in the actor's pool */
  TS_VAR_LOOP,        /* a repeat's iteration (0, 1, ...), by loop slot */
  TS_VAR_COUNTER,     /* a declared counter, by index */
  TS_VAR_NOW,         /* now: simulated time in ms */
  TS_VAR_ARRIVED,     /* arrived: the actor's arrival time in ms */
  TS_VAR_COUNT,       /* count(class): actors of a class, by class index */
  TS_VAR_LET,         /* one of the actor's class's named expressions ("let"), by index */
  TS_VAR_WAITERS,     /* waiters(CHANNEL[, index]): entries on a channel instance's list, by declaration */
  TS_VAR_VERSION,     /* version(CHANNEL[, index]): notifies of a channel instance so far, by declaration */
  TS_VAR_ACTOR        /* one of the actor's variables ("vars"), by index */
};

typedef struct ts_op_type ts_op_type;

/* One step of a program. Which fields an op reads is said in its file
 * (src/model/op_*.c); the rest stay zero. */
typedef struct ts_step {
  const ts_op_type *type;
  char *label;
  char *where;        /* the step's JSON path, for errors found while running */
  ts_dist cost;       /* cpu: demand; io, sleep: latency; hop: transit; call: request leg */
  ts_dist cost2;      /* call: reply leg */
  ts_dist limit;      /* lock, wait, call: how long the actor waits before it gives up (limited) */
  int64_t rows;       /* cpu: equal chunks (>= 1) */
  unsigned sliced : 1, timed : 1, kernel : 1, priority : 1, all : 1, wait : 1, from_notify : 1, forever : 1,
      new_lap : 1, by_time : 1, from_arrival : 1, limited : 1, chance : 1;
  int ref;            /* the lock, channel, server, counter or span the step names */
  ts_expr *index;     /* the instance of an indexed lock or channel; hop: target worker */
  ts_expr *expr;      /* repeat: count; if: condition (chance: the probability of then); add, set: value; notify: tokens */
  ts_expr *cond;      /* repeat: its "while" condition, checked before each iteration (NULL: none) */
  int slot;           /* repeat: loop slot (nesting depth) */
  int jump;           /* repeat, if, else: where control goes */
  int alt;            /* lock, wait, call: where an actor that gives up goes (its else steps); -1: it ends */
  int next;           /* call with wait false: where its caller goes on (past the task's steps) */
  int span;           /* span begun or ended here (-1: none) */
  int klass;          /* call: priority class (TS_CLASS_*) */
  int pool;           /* hop, call: the pool of the target */
  ts_time send, recv; /* hop: CPU on each side; call: on the caller */
  int64_t work;       /* call: declared work for shortest_first (ns) */
  int mark;           /* mark: TS_MARK_* */
  int site;           /* lock: its site (ts_model.sites), or -1 */
} ts_step;

/* A repeat's count: an integer in [0, TS_REPEAT_MAX], checked at load when
 * it is known there, else on entry (op_repeat.c). */
#define TS_REPEAT_MAX 1e15

typedef enum { TS_MARK_WAVE_START, TS_MARK_WAVE_END, TS_MARK_SETTLED } ts_mark_id;

typedef enum { TS_WORKER_EVENT_LOOP, TS_WORKER_THREAD } ts_worker_kind;

/* A pool of identical workers. */
typedef struct ts_pool {
  char *name;
  ts_worker_kind kind;
  ts_expr *count;             /* NULL: the sweep's workers (the main pool) */
  const ts_sched_type *policy;  /* event loop: the time-slice queue's policy */
  ts_sched_params sched;
  ts_time threshold;          /* yield threshold; TS_TIME_MAX: none */
  int priority_divisor;       /* threshold / divisor while a priority op is in flight */
  ts_time priority_min;       /* ...but at least this */
  ts_time priority_timer;     /* event loop: a yield while a priority op is in flight waits for a timer of this
                               * long before it may resume (priority_yield "timer"); 0: the check phase
                               * resumes it (setImmediate, "immediate") */
  ts_time yield_overhead;     /* loop CPU per yield */
  ts_time loop_overhead;      /* loop CPU per event-loop iteration that does work */
  int capacity;               /* live actors per worker at most (an arrival beyond it is dropped); 0: no limit */
  int preempt;                /* event loop: a ready actor of a higher queue class preempts a running lower one */
} ts_pool;

/* The timer a yield waits for under "priority_yield": "timer": Node's
 * setTimeout(fn, 1). */
#define TS_PRIORITY_TIMER (1 * TS_NS_PER_MS)

typedef enum { TS_SCOPE_ACTOR, TS_SCOPE_SHARED, TS_SCOPE_PER_WORKER, TS_SCOPE_INDEXED } ts_scope;

typedef enum { TS_LOCK_ASYNC, TS_LOCK_MUTEX } ts_lock_kind;

/* A mutex's rules (lock.c): fifo hands it to the oldest parked waiter at the
 * release; barging frees it and wakes that waiter, which retries; std is Rust
 * std's futex mutex (UNLOCKED, LOCKED, CONTENDED: spin only while LOCKED, a
 * woken thread acquires as CONTENDED, a release of a CONTENDED mutex always
 * pays a futex wake). */
typedef enum { TS_HANDOFF_FIFO, TS_HANDOFF_BARGING, TS_HANDOFF_STD } ts_handoff;

typedef struct ts_lock_decl {
  char *name;
  ts_lock_kind kind;
  ts_scope scope;
  int instances;              /* indexed: how many */
  int capacity;               /* holders at once (> 1: a semaphore) */
  ts_handoff handoff;         /* mutex: what a release does (fifo, barging, std) */
  ts_time acquire, release;   /* mutex: user CPU of an uncontended acquire, of a release */
  ts_time migrate;            /* mutex: user CPU added to an acquire when the last holder ran on another worker */
  ts_time spin;               /* mutex: user CPU spun before parking */
  ts_time futex_wait;         /* mutex: kernel CPU to park */
  ts_time futex_wake;         /* mutex: kernel CPU of a release that wakes a waiter */
  ts_dist wake_latency;       /* mutex: until the woken thread runs (fixed, or drawn per wake: idle.c) */
  int64_t size_bytes;
} ts_lock_decl;

typedef struct ts_chan_decl {
  char *name;
  ts_scope scope;
  int instances;              /* indexed: how many */
  int tokens;                 /* 1: a counting channel (notify adds tokens, wait takes one) */
  ts_time wake_cpu;           /* kernel CPU to wake one parked worker thread */
  ts_dist wake_latency;       /* until a parked thread that was woken runs (fixed, or drawn per wake: idle.c) */
  /* CPU the notifier pays per task a notify schedules, one wake after another:
   * [0] a task on its own worker, [1] on another; user and kernel */
  ts_time task_wake_user[2], task_wake_kernel[2];
  int task_costs;             /* some task_wake cost is not 0 */
  int microtask;              /* a woken waiter resumes as a microtask */
  int64_t size_bytes;
} ts_chan_decl;

typedef struct ts_server_decl {
  char *name;
  int pool;                   /* the pool whose workers serve */
  ts_expr *worker;            /* NULL: any worker of the pool; else the worker's index in it */
  int round_robin;            /* without worker: 1 = the next worker of the pool in turn, busy or not;
                               * 0 = a free one (the fewest calls in service; round robin among equals) */
  int concurrency;            /* calls in service at once */
  int queue_limit;            /* calls waiting at most (a call beyond it is refused: a drop); -1: no limit */
  const ts_sched_type *policy;
  ts_sched_params sched;
  int microtask;              /* admitted handlers and replies without a reply leg resume as microtasks */
} ts_server_decl;

typedef struct ts_counter_decl {
  char *name;
  double initial;
} ts_counter_decl;

typedef struct ts_span_decl {
  char *name;
  int sampled;                /* some step ends it (span_end, a repeat's or a call's span); else it only stamps notifies */
} ts_span_decl;

/* A site: a named place in the programs where a mutex is taken (a lock
 * step's "site"); contention is reported per mutex and per site. */
typedef struct ts_site_decl {
  char *name;
  int lock;                   /* the mutex declaration its steps take */
} ts_site_decl;

typedef enum { TS_ARRIVE_AT, TS_ARRIVE_PERIODIC, TS_ARRIVE_POISSON, TS_ARRIVE_AFTER } ts_arrival_kind;

typedef enum { TS_BATCH_FIXED, TS_BATCH_GEOMETRIC, TS_BATCH_UNIFORM } ts_batch_kind;

typedef struct ts_arrival {
  ts_arrival_kind kind;
  ts_time start;              /* at: first arrival */
  ts_time spacing;            /* at: between consecutive arrivals */
  ts_time period, phase, jitter;   /* periodic */
  double rate_per_s;          /* poisson */
  int after;                  /* after: the class whose i-th actor's end starts our i-th */
  ts_time delay;              /* after: from that end */
  ts_batch_kind batch_kind;   /* actors per arrival: batch (fixed), geometric of mean batch_mean, uniform in [lo, hi] */
  int batch;                  /* fixed: actors per arrival (1: one) */
  double batch_mean;
  int batch_lo, batch_hi;
} ts_arrival;

/* The mean number of actors one arrival of a brings: a fixed batch's size,
 * a geometric batch's mean, a uniform batch's (lo + hi) / 2 (arrive.c). */
double ts_arrival_batch_mean(const ts_arrival *a);

typedef enum { TS_PLACE_DISPATCH, TS_PLACE_FIXED } ts_place_rule;

#define TS_COUNT_FOREVER (-2)   /* a source class: arrivals until the horizon */

typedef struct ts_class {
  char *name;
  ts_expr *count;             /* actors of this class; NULL with forever */
  int forever;                /* arrivals until the horizon (periodic, poisson) */
  int sched_class;            /* TS_CLASS_* used by queue policies */
  ts_arrival arrival;
  int pool;
  ts_place_rule place;
  ts_expr *place_worker;      /* fixed: the worker index within the pool */
  int report;                 /* gets its own rows in the results */
  char **let_names;           /* named expressions of the class ("let"), usable in its expressions */
  ts_expr **lets;
  size_t nlets;
  char **var_names;           /* the actor's own variables ("vars"): set by set steps, read by name */
  double *var_init;           /* their values on arrival */
  size_t nvars;
  int64_t size_bytes;         /* memory of one live actor */
  ts_step *steps;
  size_t nsteps;
  int loops;                  /* loop slots its program needs (deepest repeat nesting) */
} ts_class;

typedef enum { TS_DISPATCH_HASH, TS_DISPATCH_ROUND_ROBIN, TS_DISPATCH_LEAST_LOADED } ts_dispatch_kind;

/* A metric the model defines: a name, and how it is computed. */
typedef enum { TS_MDEF_SPAN, TS_MDEF_EXPR, TS_MDEF_ACTOR } ts_mdef_kind;
typedef struct ts_metric_spec {
  char *name;
  char *meaning;
  ts_mdef_kind kind;
  int span;                   /* TS_MDEF_SPAN */
  int stat;                   /* TS_MDEF_SPAN: ts_span_stat; TS_MDEF_ACTOR: 0 median, 1 p95, 2 mean, 3 p99, 4 max, 5 p5, 6 min */
  char *actor;                /* TS_MDEF_ACTOR: the per-actor metric it summarises */
  char *expr;                 /* TS_MDEF_EXPR: over other metrics, compiled by run/ */
  int per_replication;        /* value = median over replications of per-replication values */
} ts_metric_spec;

/* A host idle state (a C-state, idle.c): an idle core whose predicted idle
 * length is at least residency may enter it; leaving it takes exit. */
typedef struct ts_idle_state {
  char *name;
  ts_time residency, exit;
} ts_idle_state;

/* What the idle governor predicts an idle length from: this sleep's own
 * length (an ideal governor) or the worker's previous sleep's. */
typedef enum { TS_IDLE_ACTUAL, TS_IDLE_LAST } ts_idle_governor;

typedef struct ts_model {
  char *name;
  double cpu_scale;           /* host.cpu_scale: every CPU cost is multiplied by it (constants at load) */
  ts_pool *pools;             /* pools[0] is the main pool */
  size_t npools;
  /* host */
  int cores;                  /* host cores shared by all workers (0: one per worker) */
  /* CPU price by load: cpu steps cost scale(x) times their nominal cost, with
   * scale piecewise linear in x through (scale_n[i], scale_v[i]), flat beyond
   * the ends; no table = 1. x is the number of actors of the main class on the
   * actor's worker when scale_by_worker, else the sweep's n. */
  double *scale_n;
  double *scale_v;
  size_t nscale;
  int scale_by_worker;
  double ipms_user, ipms_kernel;  /* instructions per ms of CPU (0: not reported) */
  ts_idle_state *idle_states; /* the host's idle states, by increasing residency (none: wakes pay no exit) */
  size_t nidle;
  ts_idle_governor idle_governor;
  /* dispatch (the main pool's rule; other pools use it too) */
  ts_dispatch_kind dispatch;
  char *task_id;              /* dispatch hash: taskID */
  char *group_prefix;         /* dispatch hash: clientGroupID = prefix + index */
  int ids_per_replication;    /* dispatch hash: 1 = clientGroupID = prefix + 16 hex digits drawn from the
                               * replication's seed and the index (ts_dispatch_group_id_drawn); 0 = fixed */
  /* declarations */
  ts_class *classes;
  size_t nclasses;
  ts_lock_decl *locks;
  size_t nlocks;
  ts_chan_decl *chans;
  size_t nchans;
  ts_server_decl *servers;
  size_t nservers;
  ts_counter_decl *counters;
  size_t ncounters;
  ts_span_decl *spans;
  size_t nspans;
  ts_site_decl *sites;        /* the lock steps' sites, declared by first use */
  size_t nsites;
  ts_metric_spec *metrics;
  size_t nmetrics;
  char **param_names;         /* the numeric params, which metric expressions may read as $name */
  double *param_values;
  size_t nparams;
  /* features used anywhere, so absent ones cost nothing per actor */
  unsigned has_mutex : 1, has_chan : 1, has_hop : 1, has_call : 1, has_sleep : 1, has_thread : 1;
  unsigned has_kernel_cpu : 1; /* a cpu step with "account": "kernel" */
  unsigned reads_n : 1;        /* some expression reads the sweep's n (a scenario must then give n) */
  unsigned has_timeout : 1;    /* a step with a timeout */
  unsigned has_drop : 1;       /* a server's queue_limit or a pool's capacity */
  unsigned has_preempt : 1;    /* a pool with "preempt" */
  unsigned has_settle : 1;     /* a "settled" mark: settle_ms */
} ts_model;

/* Free everything a model owns (not the struct itself); NULL is accepted. */
void ts_model_finish(ts_model *m);
/* The largest duration one draw of d can take: the mean when fixed, the
 * largest sample when empirical, else min(1000 * mean, TS_DRAW_MAX) (random
 * draws are capped there; for a cv up to 3 the cap moves a lognormal's mean
 * by less than 0.01%). A mean given by an expression is bounded by
 * TS_DRAW_MAX. */
ts_time ts_model_draw_max(const ts_dist *d);
/* The ratio mean / median of a distribution of shape kind with coefficient
 * of variation cv (empirical: of the samples emp): 1 when fixed or uniform,
 * 1 / ln 2 when exponential, sqrt(1 + cv^2) when lognormal, k / the median of
 * a unit gamma of shape k = 1 / cv^2 (GSL) when gamma. */
/* Work out d's lognormal draw parameters for its constant mean and cv now
 * (ln_mu, ln_sigma), so that draws skip the logarithms; call it again after
 * changing d's mean or cv (a draw checks the key and works them out itself
 * when it is stale). A dist of another kind, an expression's mean or a cv
 * <= 0 gets the key -1 (never used). */
void ts_dist_prepare(ts_dist *d);
double ts_dist_mean_per_median(ts_dist_kind kind, double cv, const double *emp, size_t nemp);

/* The largest duration of one step, about 11.6 days: with at most 4096
 * workers and cores, processor-sharing products (ns x workers) stay in int64. */
#define TS_DRAW_MAX INT64_C(1000000000000000)
#define TS_HORIZON_MAX (INT64_C(1) << 61)         /* about 73 years */

/* The CPU price multiplier at load x (1 without a table). */
double ts_model_cpu_scale(const ts_model *m, double x);
/* The range of loads the CPU price table covers: 1 and *lo, *hi set, or 0 without a table. */
int ts_model_cpu_scale_range(const ts_model *m, double *lo, double *hi);
/* Index of the pool, lock, channel, server, counter, span or class called name, or -1. */
int ts_model_find_pool(const ts_model *m, const char *name);
int ts_model_find_class(const ts_model *m, const char *name);
/* The first class counted by the sweep's n (whose count reads n), or 0. */
int ts_model_main_class(const ts_model *m);
/* Whether the sweep's n changes m's runs: an expression reads n, or the CPU
 * price is by n (host.cpu_scale_by_n without scale_by_worker). */
int ts_model_reads_n(const ts_model *m);
/* Whether a queue policy of m can never reorder anything as m is written (an
 * event loop's non-fifo policy while no step yields, or every item has one
 * class; a server's class policy while every call to it has one class, or
 * shortest_first while every call declares the same work): 1 with the first
 * such reason and its fix, one line starting with the policy's JSON path,
 * written into out (size cap), else 0. A valid model: a note, not an error. */
int ts_model_policy_note(const ts_model *m, char *out, size_t cap);
/* Whether a pool of m (not the main one) of a constant count of 2 workers
 * or more has workers that no placement, hop or server can reach, because
 * every one into it names a constant worker (src/model/reach_note.c): 1
 * with one line naming the pool (its JSON path and name) and those workers
 * written into out (size cap), else 0. A valid model: a note, not an error. */
int ts_model_reach_note(const ts_model *m, char *out, size_t cap);
/* Whether some step of m can put an actor in a time-slice queue (a "yield"
 * step, or a sliced "cpu" step): else an event loop's policy orders nothing. */
int ts_model_some_step_yields(const ts_model *m);
/* Whether m's runs need a horizon to end: a class arrives until the horizon
 * ("count": "forever") or a step repeats forever (or while a condition
 * holds, with no count). 1 with the first such
 * reason written into out (size cap, one phrase: "class room arrives until
 * the horizon (...)", "classes[0].program[0] repeats forever"), else 0. */
int ts_model_forever(const ts_model *m, char *out, size_t cap);

#endif
