/* One replication of a model at one sweep point: the workers, actors, locks,
 * channels and servers that a ts_model describes, wired to a ts_sim.
 * ts_world_run drives the simulation up to a time and leaves one
 * ts_actor_stats per actor and the window's accumulators.
 *
 * Invariants: a worker runs at most one segment (a piece of one actor's CPU,
 * or loop overhead) at a time; an actor is in exactly one state (state.h) and
 * in at most one queue; a lock instance has at most `capacity` holders;
 * simulated time never decreases. ts_world_check verifies the cheap ones. */
#ifndef TS_WORLD_H
#define TS_WORLD_H
#include <stdint.h>

#include "engine/rng.h"
#include "engine/sim.h"
#include "model/model.h"
#include "model/observer.h"
#include "model/op.h"
#include "model/state.h"
#include "sched/policy.h"
#include "sched/ring.h"

/* Per-actor measurements, the ones the real probes take. */
typedef struct ts_actor_stats {
  int actor;
  int klass;
  int worker;           /* the worker it was placed on (its home) */
  int hidden;           /* a spawned task or a child: not in its class's statistics */
  ts_time arrive;
  ts_time wave_start;
  ts_time wave_end;
  ts_time settled;      /* its "settled" mark, or -1 */
  ts_time done;         /* -1 while not done */
  ts_time timer;        /* slice-timer CPU: sum of laps in timed steps */
  ts_time cpu;          /* all CPU the actor ran (wall time on a CPU, user and kernel) */
  ts_time kernel;       /* of which kernel CPU */
  ts_time lock_work;    /* time holding async locks (summed over acquisitions) */
  ts_time mutex_wait;   /* from a contended mutex acquire to holding it (spin, futex, parked) */
  ts_time mutex_hold;   /* time holding mutexes */
  ts_time state[TS_NSTATES]; /* time spent in each state */
  int64_t slices;       /* run periods that did timed CPU work */
  int64_t yields;
} ts_actor_stats;
/* (no padding: ts_world_stats_into writes every byte without a memset, and
 * records compare with memcmp) */
_Static_assert(sizeof(ts_actor_stats) == 4 * sizeof(int) + (13 + TS_NSTATES) * sizeof(ts_time),
               "ts_actor_stats has padding");

/* An actor's measurements as the world keeps them while it runs: the
 * scalars of ts_actor_stats that every model needs, under the same names.
 * The rest is kept apart: the time in each state in per-state columns of
 * the world (only for the states some actor spent time in); marks, kernel
 * CPU, lock and mutex times in the actor's ts_actor_ext (only when it uses
 * them). ts_world_stats gives the whole record. */
typedef struct ts_actor_acc {
  /* updated at every slice */
  ts_time timer;        /* slice-timer CPU: sum of laps in timed steps */
  ts_time cpu;          /* all CPU the actor ran (wall time on a CPU, user and kernel) */
  int64_t slices;       /* run periods that did timed CPU work */
  int64_t yields;
  /* the rest */
  ts_time arrive;
  ts_time done;         /* -1 while not done */
} ts_actor_acc;

/* ts_world.quantities_used: bits for the per-actor quantities kept in the
 * actor rather than in a state column (states_used tells those). */
enum {
  TS_USED_TIMED = 1,  /* st.timer and st.slices: an actor ran a timed CPU segment (cpu.c resume) */
  TS_USED_QUEUED = 2, /* queue_time: an actor may enter a time-slice queue (a sliced segment began, cpu.c
                       * resume; or one yielded on an event loop, ts__worker_yield) */
};

/* A CPU segment: the actor's current burst of CPU and where it stands. */
typedef struct ts_seg {
  ts_time done;         /* work done so far */
  ts_time row;          /* cost / rows when rows divides cost, else 0 */
  ts_time cost;         /* demand */
  int32_t rows_done;
  int32_t rows_target;  /* rows done when the planned piece ends */
  int32_t rows;         /* equal chunks (>= 1); a sliced segment checks the lap after each */
  uint8_t active;       /* begun and not finished */
  uint8_t sliced, timed, kernel;
  uint8_t state;        /* TS_ACTOR_RUNNING, SPIN or FUTEX while it runs */
  uint8_t exact;        /* cost * rows fits in 64 bits (row arithmetic in one division) */
  uint8_t at_row;       /* done is the end of row rows_done, and no piece is planned */
  uint8_t by_time;      /* sliced by time: one row; the actor yields when its lap reaches the threshold */
  uint8_t last;         /* its op's last phase (TS_CPU_LAST): its end is the op's TS_OP_NEXT */
  uint8_t plain;        /* one row, neither sliced nor timed, armed to its end at rate 1 by ts__cpu_begin and
                         * never re-planned, cut or preempted since (cpu.c, plain_work) */
} ts_seg;

typedef struct ts_loop {
  int64_t left;         /* iterations left after this one (forever: -1) */
  int64_t iter;         /* this iteration, from 0 */
} ts_loop;

/* The values of an actor's stable lets (ts_world.let_stable), valid while
 * its worker is `worker` and the world's let_epoch is `epoch`; at a later
 * let_epoch that moved on by notifies only (as much as chan_epoch did since
 * `chan_epoch`), those that do not read a notified channel's version
 * (ts_world.chan_lets, chan_last) are still valid. */
typedef struct ts_let_cache {
  uint64_t known;       /* bit k: v[k] holds let k */
  uint64_t epoch;
  uint64_t chan_epoch;
  int worker;
  double v[];           /* [ts_world.let_slots] */
} ts_let_cache;

/* A kept start of index expression e (ts_world.idx_pre): its code's first
 * len instructions read only stable inputs and leave k values, kept in let
 * cache slots slot..slot+k-1 (their bits: bits; 0, e NULL: nothing kept).
 * ring: the rest of the code is one variable x and a RING (a ring index
 * B + (C - x // k) % m of the two kept values B and C: actor_eval.c index_kept). */
typedef struct ts_idx_pre {
  uint64_t bits;
  int len;
  int k;
  int slot;
  int ring;
  const ts_expr *e;
} ts_idx_pre;

typedef struct ts_held {
  int inst;             /* instance held, or -1 */
  ts_time since;
} ts_held;

typedef struct ts_seen {
  int inst;             /* the channel instance last waited on, or -1 */
  int reg;              /* the instance its waker is registered on (a register step, not yet woken), or -1 */
  int64_t version;      /* its version when last seen */
} ts_seen;

/* What an actor has only when it uses it (locks, channels, spans, loops,
 * calls, spawns, marks, mutexes, stable lets): made on first use, from the
 * world's memory pool (ts__x). */
typedef struct ts_actor_ext {
  int ret_worker;       /* a call: the worker its reply returns to */
  int serve_worker;     /* a call in service: the worker its handler was given */
  int parent;           /* spawned: the root actor of its spawn tree (a fixed actor); else -1 */
  int spawns;           /* a root: tasks spawned in its tree so far */
  int spawn_k;          /* spawned: its number among its root's spawns, from 1 (its stream's ordinal); else 0 */
  int wait_inst;        /* the lock/channel/server instance it waits on, or -1 */
  ts_time mark;         /* a time an op keeps across a wait (mutex: contention began) */
  uint32_t wait_gen;    /* timeouts armed so far (an expiry is for the latest) */
  int wait_pc;          /* the step the latest timeout was armed at */
  uint8_t expired;      /* a mutex acquire's timeout expired while it spun or entered the futex */
  ts_time carried;      /* the timestamp the last notify carried to it (-1: none) */
  /* futures (op_pending.c): */
  uint8_t notified;     /* woken while running a poll pass: its pending step runs the pass again */
  uint8_t in_pending;   /* parked at a pending step until a wake */
  uint8_t kids_pending; /* a child's wake since its last poll of the children has woken it (once per burst) */
  uint8_t woken;        /* a child: woken since its parent last polled it */
  uint8_t in_sweep;     /* a child: to be polled in its parent's current poll of the children */
  int poll_parent;      /* a child: the task that polls it, else -1 */
  int first_child;      /* a task: its first live child (a list in creation order), or -1 */
  int next_child;       /* a child: the next of its parent's children, or -1 */
  ts_loop *loops;       /* [class loops], or NULL */
  ts_time *span_t0;     /* [model spans]: when each open span began, -1 if not open */
  ts_held *held;        /* [model locks] */
  ts_seen *seen;        /* [model channels] */
  double *vars;         /* [class vars]: its variables, or NULL */
  /* measurements (ts_actor_stats's names) */
  ts_time wave_start;   /* -1: not marked (then its arrival, once it is done) */
  ts_time wave_end;     /* -1: not marked (then its end) */
  ts_time settled;      /* -1: not marked */
  ts_time kernel;       /* kernel CPU */
  ts_time lock_work;    /* time holding async locks (summed over acquisitions) */
  ts_time mutex_wait;   /* from a contended mutex acquire to holding it (spin, futex, parked) */
  ts_time mutex_hold;   /* time holding mutexes */
  struct ts_let_cache *lets; /* its class has stable lets: their values, else NULL */
} ts_actor_ext;

/* An actor. The fields every slice touches come first (about two cache
 * lines: its state, lap, segment and CPU counters); the rest follows. */
typedef struct ts_actor {
  int id;
  int worker;           /* where it runs now */
  uint8_t state;
  uint8_t prio_pending; /* a priority io completed but its callback has not run */
  uint8_t lap_counted;  /* this run period already counted as a slice */
  uint8_t hidden;       /* spawned: not in the statistics of its class */
  uint8_t sched_class;  /* class in queues, TS_CLASS_* (a call sets its own while it lasts) */
  uint8_t dropped;      /* its arrival was refused (a full worker): not in the statistics */
  ts_time state_since;
  ts_time lap_start;
  ts_time run_time;     /* time in TS_ACTOR_RUNNING so far (the world's columns keep the other states) */
  ts_time queue_time;   /* time in TS_ACTOR_QUEUED so far */
  ts_seg seg;
  ts_actor_acc st;      /* its measurements (ts_world_stats: all of them) */
  int klass;
  int index;            /* within its class */
  int home;             /* where it was placed */
  int pc;               /* current step */
  int sub;              /* where the current step's exec stands (0 at its start) */
  int32_t rng;          /* its random stream: slot rng - 1 of the world's (0: none yet; ts__actor_rng) */
  ts_actor_ext *x;      /* what it uses beyond that, or NULL (ts__x) */
} ts_actor;

typedef enum { TS_SEG_IDLE, TS_SEG_ACTOR, TS_SEG_OVERHEAD } ts_seg_kind;

/* An event-loop iteration: START (pay loop overhead, snapshot the expired
 * timers and ready callbacks), TIMERS (run the expired timers), POLL (run the
 * snapshot's callbacks), CHECK (resume at most one queued actor). */
typedef enum { TS_PHASE_START, TS_PHASE_TIMERS, TS_PHASE_POLL, TS_PHASE_CHECK } ts_loop_phase;

typedef struct ts_worker {
  int id;                 /* across all pools */
  int pool;
  int index;              /* within its pool */
  const ts_pool *spec;
  ts_ring ready;          /* event loop: I/O callbacks for the poll phase; thread: the run queue */
  ts_ring timers;         /* event loop: expired timers for the timers phase */
  ts_ring micro;          /* microtasks: run before anything else, whatever the phase */
  ts_sched_queue queue;   /* event loop: the time-slice queue (a policy other than fifo) */
  ts_ring fifo_q;         /* event loop: the time-slice queue under fifo (actor ids) */
  int fifo;               /* the queue policy is fifo: fifo_q is the queue */
  int rr_able;            /* no observer, an event loop, fifo, no loop overhead, not slow_paths (cleared by ts_world_run): cpu.c's fast slice end may apply */
  ts_loop_phase phase;
  int overhead_paid;      /* this iteration's loop overhead is paid */
  size_t poll_left;       /* callbacks left in this iteration's poll phase */
  size_t timers_left;     /* timers left in this iteration's timers phase */
  int wake_pending;       /* a WAKE event is scheduled at wake_at */
  ts_time wake_at;
  int wake_charged;       /* thread: a notifier paid to wake it in this park cycle */
  ts_ring wakes;          /* a notify with per-task wake costs in progress here: the waiters it still wakes */
  ts_time wake_kernel;    /* ...and the kernel CPU of the one it is waking now */
  int preempt_pending;    /* preempt: a PREEMPT check is scheduled now */
  int blocked;            /* the actor whose mutex wait blocks the whole worker, or -1 */
  ts_time idle_since;     /* idle states: when its thread went to sleep, or -1 (idle.c) */
  ts_time idle_exit;      /* ...the exit latency a wake of this sleep priced, or -1 */
  ts_time idle_prev;      /* ...the length of its previous sleep */
  ts_rng *wake_rng;       /* draws of a wake latency that is not fixed, made at its first (idle.c), or NULL */
  int prio_inflight;      /* priority operations in flight in this worker's process */
  int head_timer;         /* priority_yield "timer": the time-slice queue's head waits for its timer (a RELEASE event) */
  ts_seg_kind seg;
  int actor;              /* running actor (TS_SEG_ACTOR) */
  ts_time seg_t0;         /* when work done was last brought up to date */
  int64_t frac;           /* work done beyond whole ns, in units of 1/frac_q ns */
  int64_t frac_q;
  ts_time piece_t0;       /* start of the run piece being traced */
  ts_time over_left;      /* TS_SEG_OVERHEAD: overhead work left */
  ts_time seg_threshold;  /* threshold in force for this run period */
  ts_time lap_row, lap_thr; /* rows of equal cost lap_row ns and a lap of lap_thr ns: */
  int64_t lap_k;          /* ...a new lap runs lap_k rows (cpu.c's cache) */
  uint32_t gen;           /* stamps SEG_END events; bumped on replan */
  int load;               /* actors of the main class placed here */
  int calls;              /* calls in service here (servers' handlers admitted to this worker) */
  int live;               /* actors placed here that arrived and are not done (spawned tasks not counted) */
  double cpu_scale;       /* CPU price at this worker's load */
  ts_time busy;           /* wall time spent running segments */
  ts_time busy_kernel;    /* of which kernel CPU */
  ts_time win_user, win_kernel; /* busy time within the measurement window */
  int64_t queue_entries;  /* entries into the time-slice queue */
  int64_t queue_depth_sum;/* actors already waiting there at each entry */
  int queue_depth_max;
} ts_worker;

typedef struct ts_lock {
  int holders;            /* actors holding it (at most the capacity) */
  int owner;              /* with capacity 1: the holder, or -1 */
  int last_worker;        /* mutex: the worker of its latest holder, or -1 */
  int prev_worker;        /* mutex: the worker of the holder before (for the migration cost), or -1 */
  int contended;          /* std mutex: held in the CONTENDED state (a release pays a futex wake) */
  ts_ring waiters;        /* actors waiting to acquire, oldest first */
  ts_ring spinners;       /* mutex: actors spinning for it now, oldest first */
} ts_lock;

/* Mutex contention of one mutex declaration or one site, in the
 * measurement window (ts_world.lock_stat, site_stat). */
typedef struct ts_mutex_stat {
  double wait;            /* ns from contended acquires to holding, clipped to the window */
  int64_t contended;      /* contended acquires that began in the window */
  int64_t acquires;       /* acquires (contended or not) that completed in the window */
  int parked;             /* a declaration: threads asleep on it now */
  ts_time parked_since;   /* ...since when some thread has been asleep on it without a break */
  ts_time parked_longest; /* the longest such stretch within the window */
} ts_mutex_stat;

typedef struct ts_chan {
  int64_t version;        /* notifies so far */
  int64_t tokens;         /* counting channels: notifies not yet taken */
  ts_time stamp;          /* the timestamp the last notify carried */
  ts_ring waiters;
} ts_chan;

typedef struct ts_server {
  ts_sched_queue queue;   /* calls waiting for service */
  int inflight;
  int next;               /* round robin over the pool's workers */
} ts_server;

/* A span's samples in one replication: durations of those that ended in the
 * window, in ns. */
typedef struct ts_span_rec {
  ts_time *v;
  size_t len, cap;
  int64_t ended;          /* all that ended, in the window or not */
} ts_span_rec;

/* Small objects that live as long as the world (actors' random streams):
 * carved from blocks, freed all at once. */
typedef struct ts_mempool {
  char **blocks;
  size_t nblocks;
  size_t used, cap;     /* in the last block */
  size_t max_blocks;    /* tests: blocks it may take; the next take that needs one fails (0: no limit) */
} ts_mempool;

/* The arrival cursor of one fixed-count class (the engine's lane merges
 * them): indexes [lo, hi) arriving at start + i * step, or (stored) the
 * times t[i] (-1: not arriving) visited in order[0..hi), or (gen) times
 * drawn as they are needed, in index order, from a copy of the stream the
 * world would have drawn them from at init. */
typedef struct ts_lane_class {
  int base;               /* actor id of index 0 */
  int lo, hi, pos;
  ts_time start, step;
  int stored, unsorted;
  ts_time last;
  ts_time *t;
  int *order;
  ts_rng *gen;            /* gen: the class's draws (NULL: not gen) */
  int klass;              /* gen: the class */
  int gen_i;              /* gen: the index of gen_t, the next arrival (gen_i = hi: none left) */
  ts_time gen_t;
  ts_time gen_sum;        /* gen, poisson: the sum of the gaps so far */
} ts_lane_class;

/* Called with each actor as it is done, its measurements final: 0, or -1
 * to stop the run (TS_WORLD_NOMEM). */
typedef int (*ts_world_done_fn)(void *ctx, const struct ts_world *w, const ts_actor *a);

enum { TS_WORLD_OK = 0, TS_WORLD_NOMEM = -1, TS_WORLD_STUCK = -2, TS_WORLD_INTERNAL = -3, TS_WORLD_HORIZON = -4,
       TS_WORLD_MODEL = -5, TS_WORLD_BUDGET = -6, TS_WORLD_STOPPED = -7 };

/* How many events a run goes between two polls of its spec's should_stop. */
#define TS_WORLD_POLL_EVENTS 65536

/* Actors of fixed-count classes in all, and actors alive at once (those of
 * classes that arrive until the horizon included), at most: beyond either a
 * run stops with TS_WORLD_MODEL instead of growing until memory runs out. */
#define TS_WORLD_MAX_ACTORS 10000000

typedef struct ts_world {
  const ts_model *model;
  ts_sim sim;
  uint64_t seed;          /* this replication's stream seed: actors derive theirs from it */
  uint64_t *stream_key;   /* [classes]: ts_rng_stream_key(seed, class), the first part of that derivation */
  ts_rng *rng;            /* the world's own stream (sources) */
  int n;
  int nworkers;           /* all pools */
  int nmain;              /* workers of the main pool */
  int *pool_base;         /* [npools + 1]: the first worker of each pool */
  ts_worker *workers;
  /* actors: chunks of TS_CHUNK, addresses stable while the world lives */
  ts_actor **chunks;
  ts_time **scol;         /* [chunks * TS_NSTATES]: time of each actor of a chunk in a state, or NULL (all 0);
                           * never made for RUNNING and QUEUED, which the actor keeps itself (a slice changes both) */
  int nactors;            /* ids given so far (lazy: the fixed actors' ids count from init) */
  int cap_actors;         /* chunk slots * TS_CHUNK; a slot's chunk is NULL before it is made and once freed */
  int *class_base;        /* [nclasses + 1]: first actor id of each class (fixed counts) */
  int *class_count;       /* [nclasses]: actors of each class (forever: made so far) */
  int *class_epochs;      /* [nclasses]: arrivals (batches) of each class that arrives until the horizon so far */
  int nfixed;             /* actors made at init (not spawned, not from sources) */
  int done;               /* actors done */
  int live;               /* actors arrived and not done */
  int busy;               /* workers running a segment */
  ts_time busy_since;     /* host.cores > 0: when busy last changed */
  double win_core_ns;     /* host.cores > 0: the integral of min(busy, cores) over the window until busy_since (ns) */
  ts_lane_class *lane;    /* arrival cursors of the fixed-count classes */
  ts_mempool rng_pool;    /* the actors' extensions */
  /* the actors' random streams: slots of ts_rng_small_size() bytes in blocks
   * of TS_RNG_BLOCK; a done actor's slot is reused by the next stream made,
   * so they take memory for the actors alive, not for all that ever were */
  char **rng_blocks;
  size_t rng_size;        /* ts_rng_small_size(), asked once */
  int rng_slots;          /* slots made */
  int *rng_free;          /* slots of done actors */
  int nrng_free, cap_rng_free;
  /* The sink: what ts__x gives when memory runs out making an actor's
   * extension (ts__world_nomem has set w->error, so the actor stops after its
   * op and the run after its event, "out of memory"). Its callers write and
   * read it as the actor's own, unchecked: its arrays (ext_sink_mem, from the
   * pool at init: ts__ext_sink_init) are as long as any class's, and it is
   * laid out as a new extension each time it is handed out, so an index read
   * from it is one a new extension would give (-1: none), never a stale one
   * another actor wrote. It is never an actor's a->x. */
  ts_actor_ext ext_sink;
  void *ext_sink_mem;
  int nlane;
  /* retiring (ts_world_spec.done): done actors are handed to on_done; lazy
   * worlds make the fixed-count actors a chunk at a time, when the first of
   * a chunk arrives, and free a chunk once each of its actors is done and
   * of a class whose actors nothing names after they are done (reclaim) */
  ts_world_done_fn on_done;
  void *done_ctx;
  int lazy;
  int slow_paths;         /* tests: 1 turns the exact shortcuts off (cpu.c, rr_slice too: ts_world_run clears rr_able; internal.h: ts__draw calls ts__draw_any for a constant cost; actor_eval.c: ts_expr_eval, not the inline machine, no let kept (ts_world_run clears let_stable: each let evaluated at each read); actor.c: each stream seed from ts_rng_derive_stream; world.c: a lazy world asks ts__chunk and place for each arrival and actor; arrive.c: the next arrival searched over all lanes) to compare the runs */
  uint8_t *reclaim;       /* [nclasses] */
  int followers;          /* a class arrives after the actors of another end (TS_ARRIVE_AFTER):
                           * an actor's end may start one (actor.c start_followers) */
  int32_t *chunk_left;    /* [chunk slots]: actors of the chunk not yet retired */
  uint8_t *chunk_gone;    /* [chunk slots]: freed */
  int *dead;              /* chunks to free at the next event that holds no actor (ts__world_sweep) */
  ts_actor *spare_chunk;  /* the memory of the last chunk freed while none was spare, for the next chunk made (ts__chunk), or NULL */
  int ndead, cap_dead;
  int *placed;            /* lazy: [nfixed] the worker of each fixed actor whose placement cannot be made again, or NULL */
  void **ext_free;        /* [nclasses]: retired actors' extensions, for the next of their class (a list) */
  int main_class;         /* ts_model_main_class */
  int64_t placed_main;    /* actors of the main class placed on the main pool, ever (groups_mean) */
  int64_t live_bytes;     /* the declared size of the actors arrived and not done */
  uint32_t states_used;   /* bit s: some actor spent time in state s (its column exists, or did) */
  uint32_t quantities_used; /* TS_USED_* bits: some actor may have a nonzero value of the quantity (set before
                             * the first such value; a quantity without its bit is 0 for every actor so far) */
  /* declared objects, declaration-major: lock_base[d] is the first instance of declaration d */
  ts_lock *locks;
  int *lock_base;
  int nlock_inst;
  ts_chan *chans;
  int *chan_base;
  int nchan_inst;
  ts_server *servers;
  double *counters;
  /* lets cached per actor: bit k of let_stable[c] says that let k of class
   * c reads only its actor's coordinates (i, n, W, its arrival), its worker,
   * its variables (vars), counters, class counts and channel versions (lets
   * of the same kind included): its value changes only when the actor's
   * worker does, a set gives a variable it reads a value (var_lets), a
   * notify moves the version of a channel it reads on (chan_lets), or
   * let_epoch moves on, which every change of a counter or of a class count
   * does (a notify moves it on too, and chan_epoch: actor_eval.c lets_refresh) */
  uint64_t *let_stable;   /* [nclasses] */
  uint64_t *var_lets;     /* [c * var_stride + j]: the stable lets of class c that read its variable j */
  size_t var_stride;      /* the most variables of a class */
  uint64_t *chan_lets;    /* [c * nchans + d]: the stable lets of class c that read channel d's version */
  uint64_t let_epoch;
  uint64_t chan_epoch;    /* moves on at every notify (a version moves on), as let_epoch does then */
  uint64_t *chan_last;    /* [nchans]: chan_epoch after channel d's last notify */
  int let_slots;          /* slots of the let cache: the most a class uses (<= 64) */
  /* the kept starts of index expressions: step j of class c's index keeps
   * the values of its stable start in its actor's let cache as slots after
   * the class's lets (idx_pre[c][j]; var_lets and chan_lets name the slots
   * too, so a set, a notify, a hop or let_epoch forgets them as they do a
   * stable let; steps whose starts are the same code share slots);
   * idx_bits[c]: all of class c's such slots */
  ts_idx_pre **idx_pre;   /* [nclasses][its steps] */
  uint64_t *idx_bits;     /* [nclasses] */
  /* measurement window [win_t0, win_t1) and its accumulators */
  ts_time win_t0, win_t1;
  int win_all;            /* the window holds the whole run (win_t0 <= 0, win_t1 >= horizon): no clipping */
  ts_time horizon;        /* the run stops here (TS_TIME_MAX: when events run out) */
  int arrivals_cut;       /* an arrival fell past the horizon (arrive.c): actors left waiting at the end may
                           * wait for it (class_cut), so they are not a deadlock; the window ended first */
  uint8_t *class_cut;     /* [nclasses]: 1 when an arrival of that class fell past the horizon */
  uint64_t max_events;    /* 0: no limit */
  int (*should_stop)(void *data); /* NULL: never asked */
  void *stop_data;
  double win_lock_wait;   /* ns all actors spent waiting for async locks, within the window (a sum: a double) */
  double win_mutex_wait;          /* ns actors spent acquiring contended mutexes, within the window */
  double *mutex_wait_by_lock;     /* [model locks]: ns, the whole run */
  ts_mutex_stat *lock_stat;       /* [model locks]: the window's mutex contention per declaration */
  ts_mutex_stat *site_stat;       /* [model sites]: ... per site */
  int64_t mutex_contended;        /* contended acquires */
  int64_t win_timeouts;           /* waits that gave up at their timeout, in the window */
  int64_t win_drops;              /* arrivals and calls refused by a full worker or server queue, in the window */
  int64_t win_preemptions;        /* running actors preempted by a higher class, in the window */
  ts_span_rec *spans;     /* [model spans] */
  int64_t memory_at_end;  /* bytes of live objects at the window's end (-1 until then) */
  int ended;              /* the window's end was reached and its snapshot taken */
  /* errors */
  int error;              /* TS_WORLD_* once the run failed */
  char errmsg[400];       /* TS_WORLD_MODEL: what went wrong, naming the step */
  uint64_t ops_at_instant;/* ops run at the current instant (livelock guard) */
  int max_alive;          /* actors alive at once at most (ts_world_spec.max_alive) */
  ts_time ops_instant;
  const ts_observer *obs; /* optional: trace records */
} ts_world;

#define TS_RNG_BLOCK_BITS 10
#define TS_CHUNK_BITS 12
#define TS_CHUNK (1 << TS_CHUNK_BITS)

/* Actor id's memory. */
static inline ts_actor *ts_world_actor(const ts_world *w, int id)
{
  return &w->chunks[id >> TS_CHUNK_BITS][id & (TS_CHUNK - 1)];
}

/* Actor id's memory, or NULL when its chunk is not made (lazy: none of its
 * actors arrived yet: they are all new) or was freed (all retired). */
static inline const ts_actor *ts_world_actor_at(const ts_world *w, int id)
{
  int c = id >> TS_CHUNK_BITS;
  return id >= 0 && c < (w->cap_actors >> TS_CHUNK_BITS) && w->chunks[c] ? &w->chunks[c][id & (TS_CHUNK - 1)] : NULL;
}

/* Whether actor a counts in the statistics and samples: not a spawned task,
 * and arrived (an arrival past the horizon never happens). */
static inline int ts_world_counted(const ts_actor *a)
{
  return !a->hidden && !a->dropped && a->state != TS_ACTOR_NEW;
}

/* The time actor id spent in state s so far. */
static inline ts_time ts_world_state_time(const ts_world *w, int id, int s)
{
  if (s == TS_ACTOR_RUNNING)
    return ts_world_actor(w, id)->run_time;
  if (s == TS_ACTOR_QUEUED)
    return ts_world_actor(w, id)->queue_time;
  const ts_time *col = w->scol[(id >> TS_CHUNK_BITS) * TS_NSTATES + s];
  return col ? col[id & (TS_CHUNK - 1)] : 0;
}

/* Actor a's wave: its marks, else its arrival and (once done) its end. */
static inline void ts_world_actor_wave(const ts_actor *a, ts_time *start, ts_time *end)
{
  if (a->x) {
    *start = a->x->wave_start;
    *end = a->x->wave_end;
  } else {
    *start = a->st.done >= 0 ? a->st.arrive : -1;
    *end = a->st.done;
  }
}

/* Actor id's wave (ts_world_actor_wave). */
static inline void ts_world_wave(const ts_world *w, int id, ts_time *start, ts_time *end)
{
  ts_world_actor_wave(ts_world_actor(w, id), start, end);
}

/* Actor id's measurements, whole. */
ts_actor_stats ts_world_stats(const ts_world *w, int id);
/* The same into *s (no copy of the record: the run layer takes one per actor). */
void ts_world_stats_into(const ts_world *w, int id, ts_actor_stats *s);

/* Where one replication runs and what it measures. */
typedef struct ts_world_spec {
  int n;                  /* the sweep's n */
  int workers;            /* workers of the main pool */
  uint64_t seed;          /* the replication's stream seed */
  ts_time horizon;        /* stop here; TS_TIME_MAX: when nothing is left to do */
  ts_time win_t0, win_t1; /* the measurement window; win_t1 = TS_TIME_MAX: until the end */
  uint64_t max_events;    /* stop with TS_WORLD_BUDGET after this many events (0: no limit) */
  int max_alive;          /* stop with TS_WORLD_MODEL when an arrival would make more actors alive at
                           * once (0: TS_WORLD_MAX_ACTORS, also the most it may be) */
  /* optional: asked every TS_WORLD_POLL_EVENTS events (with stop_data);
   * nonzero stops the run with TS_WORLD_STOPPED (an interrupt). The events
   * run are the same as without it. */
  int (*should_stop)(void *data);
  void *stop_data;
  /* optional: each actor is handed to done (with done_ctx) as it is done;
   * then the world is lazy (world.c): its memory is for the actors alive,
   * and whatever needs a done actor's measurements takes them there (after
   * the run, ts_world_actor_at gives the actors that were not done) */
  ts_world_done_fn done;
  void *done_ctx;
} ts_world_spec;

/* Build a world for spec in caller memory. obs may be NULL. Returns 0;
 * TS_WORLD_NOMEM (-1) when memory runs out; TS_WORLD_MODEL when the model
 * cannot be laid out at this point (a count or placement out of range:
 * w->errmsg says which); TS_WORLD_HORIZON when an arrival drawn while laying
 * out would pass TS_HORIZON_MAX; TS_WORLD_INTERNAL on a broken invariant
 * (w->errmsg). ts_world_strerror says which; the world needs ts_world_finish
 * in every case. */
int ts_world_init(ts_world *w, const ts_model *m, const ts_world_spec *spec, const ts_observer *obs);
/* Free a world's memory. */
void ts_world_finish(ts_world *w);
/* After ts_world_run: free what only running needs (the event list, the
 * queues, which are empty when every actor is done), keeping the actors'
 * measurements and the window's accumulators for the statistics. */
void ts_world_trim(ts_world *w);
/* Run until the horizon, or until nothing is left to do. Returns TS_WORLD_OK
 * when every actor finished or the horizon was reached (events left past it,
 * or the actors left waiting may wait for a class whose arrival it cut:
 * class_cut); TS_WORLD_STUCK when
 * actors are left waiting with nothing pending (a deadlock: ts_world_stuck
 * says who waits on what); TS_WORLD_NOMEM; TS_WORLD_HORIZON when simulated
 * time would pass TS_HORIZON_MAX; TS_WORLD_MODEL when a step failed while
 * running (w->errmsg); TS_WORLD_INTERNAL on a broken invariant (a bug:
 * w->errmsg names it); TS_WORLD_BUDGET after spec.max_events events;
 * TS_WORLD_STOPPED when spec.should_stop said so. */
int ts_world_run(ts_world *w);
/* Describe up to `max` actors that are stuck (not done) and what each waits
 * on, into buf (one line). */
void ts_world_stuck(const ts_world *w, char *buf, size_t cap, int max);
/* The window's length in ns (its end clipped to when the run stopped). */
ts_time ts_world_window(const ts_world *w);
/* 1 when the run ended at or before the window's start (warmup_ms past the
 * run's end): the window holds nothing, and its metrics are not measured. */
int ts_world_window_missed(const ts_world *w);
/* With host.cores > 0: the CPU work done in the window so far, in ns (the
 * integral of min(busy workers, cores) over it). */
double ts_world_core_time(const ts_world *w);
/* A sentence for a TS_WORLD_* status (with errmsg where it has one). */
const char *ts_world_strerror(const ts_world *w, int status);

#endif
