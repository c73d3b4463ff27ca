/* Declarations shared by the files of src/model and nothing else (ts__ =
 * not part of the library's interface). */
#ifndef TS_MODEL_INTERNAL_H
#define TS_MODEL_INTERNAL_H
#include <string.h>

#include "model/world.h"

/* Event kinds the model registers with the engine. */
enum {
  TS_EV_ARRIVE,   /* obj: actor; it reaches its worker for the first time */
  TS_EV_READY,    /* obj: actor; gen: a TS_READY_* code */
  TS_EV_SEG_END,  /* obj: worker; gen: the worker's generation when planned */
  TS_EV_WAKE,     /* obj: worker; an idle worker has work */
  TS_EV_SOURCE,   /* obj: class; the next arrival of a class that arrives until the horizon */
  TS_EV_RESUME,   /* obj: actor; its blocked thread runs again (after a futex wake) */
  TS_EV_RELEASE,  /* obj: worker; the timer its time-slice queue's head waits for expires (priority_yield "timer") */
  TS_EV_TIMEOUT,  /* obj: actor; gen: its wait_gen when armed; a wait's timeout expires */
  TS_EV_PREEMPT   /* obj: worker; something became ready on a preemptive worker: check its running actor */
};

/* The sub of a step whose actor gave up waiting (a timeout, a full queue):
 * the step's exec then calls ts__give_up. */
#define TS_SUB_GAVE_UP 100

/* How an actor becomes ready (TS_EV_READY's gen). */
enum {
  TS_READY_CALLBACK, /* an io completed: a callback in the poll phase */
  TS_READY_TIMER,    /* a sleep ended: the timers phase */
  TS_READY_ARRIVE,   /* it reached a worker after a hop or a call leg */
  TS_READY_REQUEST   /* a call reached its server: it joins the server's queue */
};

/* Flags of ts__cpu_begin. TS_CPU_LAST: the segment is its op's last phase,
 * so that when it ends the op's exec would only return TS_OP_NEXT; the
 * end then steps on to the next op itself (cpu.c, seg_end) without the call.
 * TS_CPU_NEXT: its end most likely runs next (a mutex's short phase, while
 * the other threads wait on it): in its one-row cases at rate 1 the end may
 * be held out of the event list (ts__at_next); the same events either way. */
enum { TS_CPU_SLICED = 1, TS_CPU_TIMED = 2, TS_CPU_KERNEL = 4, TS_CPU_BY_TIME = 8, TS_CPU_LAST = 16, TS_CPU_NEXT = 32 };

/* --- memory (actor.c) --- */

/* size bytes (a multiple of 16 or less than a block) from pool p, 16-byte
 * aligned, or NULL when memory runs out; they live until ts__pool_finish. */
void *ts__pool_take(ts_mempool *p, size_t size);
void ts__pool_finish(ts_mempool *p);

/* --- actors (actor.c) --- */

/* Make a's extension (ts__x's slow path): defaults, and the arrays of the
 * features its model has. Out of memory: ts__world_nomem, and the world's
 * sink (ts_world.ext_sink), never NULL. */
ts_actor_ext *ts__actor_ext(ts_world *w, ts_actor *a);
/* The sink's arrays, from the world's pool (at init, before any actor).
 * 0, or -1 when memory runs out. */
int ts__ext_sink_init(ts_world *w);
/* a's extension, made on first use. */
static inline ts_actor_ext *ts__x(ts_world *w, ts_actor *a)
{
  return a->x ? a->x : ts__actor_ext(w, a);
}

/* llround(x) for x in [0, TS_DRAW_MAX], the same value without the call:
 * there x - trunc(x) is exact, and a half rounds up (away from 0) as
 * llround rounds it. */
static inline ts_time ts__round_ns(double x)
{
  ts_time t = (ts_time)x;
  return x - (double)t >= 0.5 ? t + 1 : t;
}

/* Make the column of state s for actor id's chunk (ts__actor_set_state's
 * slow path), its entries 0 for the ids given so far (and id), which are
 * every fixed actor's (w->nactors starts at the fixed count); a spawned
 * actor made later sets its own entry (ts__actor_init), so no entry is read
 * unset.
 * Returns 0, or -1 after ts__world_nomem. */
int ts__state_column(ts_world *w, int id, int s);
static inline ts_time ts__clip(const ts_world *w, ts_time t0, ts_time t1);
/* Move a to state s now, adding the time in the old state to its stats and,
 * clipped to the window, to the world's; the observer is not told (for a
 * world without one: cpu.c's fast path). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void ts__actor_account_state(ts_world *w, ts_actor *a, int s)
{
  ts_time now = w->sim.now;
  ts_time dt = now - a->state_since;
  if (dt != 0) {
    if (a->state == TS_ACTOR_RUNNING) {
      a->run_time += dt;
    } else if (a->state == TS_ACTOR_QUEUED) {
      a->queue_time += dt;
    } else {
      ts_time **col = &w->scol[(a->id >> TS_CHUNK_BITS) * TS_NSTATES + a->state];
      if (*col || ts__state_column(w, a->id, a->state) == 0)
        (*col)[a->id & (TS_CHUNK - 1)] += dt;
      if (a->state == TS_ACTOR_LOCK_WAIT)
        w->win_lock_wait += (double)ts__clip(w, a->state_since, now);
    }
  }
  a->state = (uint8_t)s;
  a->state_since = now;
}
/* Move a to state s now (ts__actor_account_state), and tell the observer. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void ts__actor_set_state(ts_world *w, ts_actor *a, int s)
{
  ts__actor_account_state(w, a, s);
  if (w->obs && w->obs->actor_state)
    w->obs->actor_state(w->obs->data, w->sim.now, a->id, s);
}
/* Run a's program from its pc while it holds the CPU. Returns 1 when the
 * worker is busy (a CPU segment or an overhead), 0 when it is free. Its
 * body is ts__actor_run (the end of this file). */
int ts__actor_continue(ts_world *w, ts_actor *a);
/* Ops run at one instant by one world before it is declared a livelock (a
 * loop whose body takes no time). */
#define TS_LIVELOCK_OPS UINT64_C(50000000)
/* ts__actor_run's parts out of line: a's program ended (returns the task a
 * child hands the CPU back to, or -1); the livelock's failure at step s. */
int ts__actor_finish(ts_world *w, ts_actor *a);
void ts__actor_livelock(ts_world *w, const ts_step *s);
/* a becomes ready on its current worker now: an I/O callback, or (timer) a
 * timer in the timers phase. Kicks the worker. */
void ts__actor_ready(ts_world *w, ts_actor *a, int timer);
/* a becomes ready on its current worker now as a microtask (a promise
 * reaction): the worker runs it, and every microtask queued meanwhile,
 * before anything else it would run next. Kicks the worker. */
void ts__actor_microtask(ts_world *w, ts_actor *a);
/* Schedule a TS_EV_READY of kind code for a at absolute time at. */
void ts__actor_ready_at(ts_world *w, ts_actor *a, ts_time at, int code);
/* ts__draw's general case, out of line: any distribution, any mean. */
ts_time ts__draw_any(ts_world *w, ts_actor *a, const ts_dist *d);
/* One draw of d's shape (not fixed) of this mean (ns) from r, rounded to the
 * ns and capped as ts__draw caps it. */
ts_time ts__draw_shaped(ts_rng *r, const ts_dist *d, double mean);
/* One draw of d for actor a (its own stream), in ns, capped at
 * ts_model_draw_max(d); a mean given by an expression is evaluated for a. A
 * constant cost (fixed, a mean in range) is its mean without the call
 * (ts__draw_any gives the same; slow_paths, tests: the call). */
static inline ts_time ts__draw(ts_world *w, ts_actor *a, const ts_dist *d)
{
  if (d->kind == TS_DIST_FIXED && !d->mean_ms && d->mean >= 0 && d->mean <= TS_DRAW_MAX && !w->slow_paths)
    return d->mean;
  return ts__draw_any(w, a, d);
}

/* --- expressions evaluated for actors (actor_eval.c) --- */

/* Find which lets of each class are stable (ts_world.let_stable). Returns 0
 * or -1 (out of memory). */
int ts__lets_init(ts_world *w);
/* Actor a's variable j has a new value: the stable lets kept for a that read
 * it (directly or through other lets) are evaluated anew at their next read. */
void ts__lets_forget_var(ts_world *w, ts_actor *a, int j);
/* e evaluated for actor a (its index, worker, loops; the world's counters). */
double ts__eval(ts_world *w, const ts_actor *a, const ts_expr *e);
/* The instance of a declaration of this scope that a step means for a:
 * actor -> a->id, shared -> 0, per_worker -> a's worker, indexed -> the
 * step's index expression, which must lie in [0, instances). Returns the
 * offset within the declaration, or -1 after ts__fail. */
int ts__instance(ts_world *w, ts_actor *a, const ts_step *s, ts_scope scope, int instances);

/* --- actors, continued --- */

/* Make a new actor (spawned by parent, or from a source; or, in a world
 * that is not lazy, a fixed one at init) of class k with index i on worker
 * wk. Returns it, or NULL after ts__world_nomem. */
ts_actor *ts__actor_new(ts_world *w, int k, int i, int wk, const ts_actor *parent);
/* ts__actor_init without the state columns: for an actor whose chunk has
 * none yet (a lazy world's new chunk: ts__world_make_fixed), so that a
 * column made later zeroes its entry (ts__state_column). */
static inline void ts__actor_init_fields(ts_world *w, ts_actor *a, int id, int k, int i, int wk, int hidden)
{
  /* all bytes 0 (16 at a time: a memset of this size is a rep stos, whose
   * start-up was most of a lazy chunk's set-up on the wall clock), then the
   * fields that are not */
  typedef long long zero16 __attribute__((vector_size(16), aligned(8), may_alias));
  _Static_assert(sizeof *a % 16 == 0, "ts_actor: a multiple of 16 bytes");
#pragma GCC unroll 16
  for (size_t b = 0; b < sizeof *a / 16; b++)
    ((zero16 *)(void *)a)[b] = (zero16){0, 0};
  a->id = id;
  a->klass = k;
  a->index = i;
  a->worker = a->home = wk;
  a->hidden = (uint8_t)hidden;
  a->sched_class = (uint8_t)w->model->classes[k].sched_class;
  a->state = TS_ACTOR_NEW;
  a->st.done = -1;
}
/* Set up actor id's memory as a new actor of class k with index i on
 * worker wk (hidden: spawned), its entries in its chunk's state columns 0.
 * Inline: a lazy world sets up a chunk's actors in one loop
 * (ts__world_make_fixed), one call each otherwise. */
static inline void ts__actor_init(ts_world *w, ts_actor *a, int id, int k, int i, int wk, int hidden)
{
  ts__actor_init_fields(w, a, id, k, i, wk, hidden);
  ts_time *const *col = &w->scol[(id >> TS_CHUNK_BITS) * TS_NSTATES];
  for (uint32_t u = w->states_used; u; u &= u - 1) { /* its entries in the columns its chunk has (of the states used) */
    int s = __builtin_ctz(u);
    if (col[s])
      col[s][id & (TS_CHUNK - 1)] = 0;
  }
}

/* Chunk c's memory, made (lazy: with the fixed actors it holds, by
 * ts__world_make_fixed) when it is not; NULL after ts__world_nomem, or
 * after ts__invariant when the chunk was freed. */
ts_actor *ts__chunk(ts_world *w, int c);
/* Lazy: set up the fixed actors of ids [lo, hi) (a new chunk's). Returns 0,
 * or -1 (a placement failed: w->error). */
int ts__world_make_fixed(ts_world *w, int lo, int hi);
/* Free the chunks whose actors are all retired (at the start of an event:
 * no actor's memory is in use). */
void ts__world_sweep(ts_world *w);
/* Arrivals (arrive.c). Where a fixed-count class's arrivals stand: the
 * Poisson clock, and in a batch its time, its arrival (epoch) number and the
 * actors it still brings. Starts as {.poisson_t = the arrival's start}. */
typedef struct ts__arrivals {
  ts_time poisson_t, t;
  int epoch, left;
} ts__arrivals;
/* When the i-th actor of fixed-count class k arrives (i = 0, 1, ... in
 * turn), drawn from r: its own arrival, or its batch's; -1 when it follows
 * another's end (before the horizon check). */
ts_time ts__arrival_time(ts_rng *r, const ts_class *k, int i, ts__arrivals *cur);
/* Whether fixed-count class c's arrivals draw from the world's stream at init. */
int ts__draws_at_init(const ts_world *w, int c);
/* Set up lc, the lane cursor of fixed-count class c (a formula, generated as
 * they come from a copy of the world's stream, or stored). 0, or -1 (out of
 * memory). */
int ts__lane_setup(ts_world *w, int c, ts_lane_class *lc);
/* A generated cursor's next arrival in the horizon (gen_i = hi: none left). */
void ts__lane_gen_next(ts_world *w, ts_lane_class *lc);
/* Actor i of lc's class arrives at `at` (-1: not at all). */
void ts__lane_note(ts_world *w, ts_lane_class *lc, int i, ts_time at);
/* After every ts__lane_note of a stored class of count actors: its
 * positions in (time, index) order. 0, or -1 (out of memory). */
int ts__lane_order(ts_world *w, ts_lane_class *lc, int count);
/* The engine lane's generator (ctx: the world): the next arrival over all
 * class cursors, least (time, actor id) first; 0 when none is left. */
int ts__lane_next(void *ctx, ts_time *time, int32_t *obj);
/* ts__lane_next for a world whose lane is one generated class (an open
 * system: w->nlane 1, w->lane->gen): its next arrival, the one after it
 * drawn in the same frame; slow_paths (tests): ts__lane_next. */
int ts__lane_next_one(void *ctx, ts_time *time, int32_t *obj);
/* Schedule the first arrival of each class that arrives until the horizon. */
void ts__start_sources(ts_world *w);
/* SOURCE event handler: one arrival (a batch of actors) of class ev->obj,
 * and its next arrival. */
void ts__on_source(ts_sim *sim, const ts_event *ev);
/* A new task spawned by a: an actor of a's class with a's index and loops
 * on a's worker, hidden, numbered among the spawns of a's root (its random
 * stream). Returns it, or NULL after ts__world_nomem. */
ts_actor *ts__actor_spawn(ts_world *w, ts_actor *a);
/* a's program ended (op_future.c): its children end with it, and a child
 * leaves its parent's list. */
void ts__future_finish(ts_world *w, ts_actor *a);
/* Child c of a task that ends (ts__future_finish) ends with it: done now,
 * its stream's memory given back, and handed to the world's on_done as any
 * done actor is (so that a collector's window moves past its id). Its
 * extension stays: it may hold what a lock still names. */
void ts__actor_end_child(ts_world *w, ts_actor *c);
/* a arrives now on its worker (its program starts as a callback). */
void ts__actor_arrive(ts_world *w, ts_actor *a);
/* ARRIVE event handler: actor ev->obj arrives (a lazy world makes its chunk,
 * with the chunk's fixed actors, when the first of them arrives). */
void ts__on_arrive(ts_sim *sim, const ts_event *ev);
/* a arrives now, without becoming ready: the caller sets what it waits for.
 * Returns 1, or 0 when a's worker was full and a was dropped. */
int ts__actor_begin(ts_world *w, ts_actor *a);
/* a's own stream, made (seeded) on its first call. NULL after
 * ts__world_nomem. */
ts_rng *ts__actor_rng(ts_world *w, ts_actor *a);

/* --- CPU segments (cpu.c) --- */

static inline void ts__at(ts_world *w, ts_time at, int kind, int32_t obj, uint32_t gen);
static inline void ts__at_next(ts_world *w, ts_time at, int kind, int32_t obj, uint32_t gen);
/* ts__cpu_begin's cases but the continuation (out of line, cpu.c). */
int ts__cpu_begin_any(ts_world *w, ts_actor *a, ts_time cost, int64_t rows, int flags, int state);
/* a (running on its worker) begins a CPU segment of `cost` ns in `rows`
 * chunks, in state TS_ACTOR_RUNNING, SPIN or FUTEX. Returns TS_OP_BUSY, or
 * TS_OP_NEXT when cost is 0 (nothing to run).
 *
 * Inline, its commonest case: the actor's next segment on a worker busy
 * with an actor's segment (TS_SEG_ACTOR) whose actor is this one, one row,
 * neither sliced nor timed, at rate 1 (a core of its own: no host cores, or
 * no more busy workers than cores), armed to its end in the caller's frame:
 * what ts__cpu_begin_any's general path does in that case, without its
 * re-checks (resume's invariant, the lap count, become_busy's change of
 * rate, the worker's actor) and the flags' arithmetic. The case is not only
 * a continuation (the actor's last segment just ended, ts__cpu_on_seg_end):
 * start_actor of an actor on a worker that never went idle, rr_slice's
 * hand-over, TS_OP_SWITCH, a child's return to its parent (actor.c, after
 * finish) reach it too. It holds for all of them because it relies only on
 * wk->seg == TS_SEG_ACTOR (not idle: busy already, no change of rate) and
 * wk->actor == a->id (what resume would set). slow_paths (tests): the
 * general path. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int ts__cpu_begin(ts_world *w, ts_actor *a, ts_time cost, int64_t rows, int flags, int state)
{
  ts_worker *wk = &w->workers[a->worker];
  int cores = w->model->cores;
  if (cost > 0 && rows == 1 && !(flags & (TS_CPU_SLICED | TS_CPU_TIMED)) && wk->seg == TS_SEG_ACTOR &&
      wk->actor == a->id && !w->slow_paths && (cores <= 0 || w->busy <= cores)) {
    a->seg = (ts_seg){.cost = cost, .row = cost, .rows = 1, .rows_target = 1, .active = 1,
                      .kernel = (flags & TS_CPU_KERNEL) != 0, .state = (uint8_t)state, .exact = 1,
                      .last = (flags & TS_CPU_LAST) != 0, .plain = 1};
    if (state != TS_ACTOR_RUNNING && a->state != state)
      ts__actor_set_state(w, a, state);
    ts_time now = w->sim.now;
    wk->seg_t0 = now;
    wk->piece_t0 = now;
    wk->frac = 0;
    wk->frac_q = 1;
    wk->gen++; /* a new generation: earlier ends are void (cpu.c, arm_end) */
    if (flags & TS_CPU_NEXT)
      ts__at_next(w, now + cost, TS_EV_SEG_END, wk->id, wk->gen);
    else
      ts__at(w, now + cost, TS_EV_SEG_END, wk->id, wk->gen);
    return TS_OP_BUSY;
  }
  return ts__cpu_begin_any(w, a, cost, rows, flags, state);
}
/* The running actor a resumes its unfinished segment. */
void ts__cpu_resume(ts_world *w, ts_actor *a);
/* wk becomes busy with `work` ns of loop CPU that belongs to no actor. */
void ts__cpu_overhead(ts_world *w, ts_worker *wk, ts_time work);
/* Stop wk's running actor segment now, keeping what it has done (its
 * planned end is void): the actor is preempted and resumes it later. */
void ts__cpu_preempt(ts_world *w, ts_worker *wk);
/* End wk's running actor segment now, as if its demand were what it has done
 * (a spinner that got its mutex stops spinning). */
void ts__cpu_cut(ts_world *w, ts_worker *wk);
/* wk's CPU goes idle (no segment). */
void ts__cpu_idle(ts_world *w, ts_worker *wk);
/* The run ended (the horizon) with busy worker wk running: its work up to
 * now is accounted as a segment end would (the worker's busy and window
 * times, and the running actor's CPU, kernel and slice-timer time), and
 * its running piece goes to the observer's run callback (none without one). */
void ts__cpu_close(ts_world *w, ts_worker *wk);
/* The smallest j in [lo, rows] whose cumulative cost floor(j * c / rows)
 * exceeds x, or rows: in O(1) (fast), or by binary search (for tests). */
int64_t ts__rows_beyond(ts_time c, int64_t rows, int64_t lo, ts_time x, int fast);
/* Event handler: a planned segment ends (ignored when its gen is stale). */
void ts__cpu_on_seg_end(ts_sim *sim, const ts_event *ev);

/* --- idle states (idle.c) --- */

/* wk's idle-state bookkeeping at the start of a run (a thread sleeps from 0
 * when the host declares idle states). */
void ts__idle_init(const ts_world *w, ts_worker *wk);
/* wk's thread goes to sleep now: it blocks in a futex (blocks = 1: a new
 * sleep) or parks with an empty run queue (a sleep already begun goes on). */
void ts__idle_sleep(const ts_world *w, ts_worker *wk, int blocks);
/* wk's sleeping thread is woken now by a wake that pays a wake latency: the
 * exit latency of the idle state its governor chose, to add to it (0 when
 * the host declares none or the thread is not asleep). */
ts_time ts__idle_exit(ts_world *w, ts_worker *wk);
/* ts__wake_delay's general case: a drawn latency, or idle states. */
ts_time ts__wake_delay_idle(ts_world *w, const ts_dist *lat, ts_worker *wk);
/* How long after a wake now wk's sleeping thread runs: the declaration's
 * wake latency lat (its mean when fixed, else a draw from wk's own wake
 * stream) plus ts__idle_exit. Inline: a fixed latency on a host without
 * idle states (most models) is its mean, with no call. */
static inline ts_time ts__wake_delay(ts_world *w, const ts_dist *lat, ts_worker *wk)
{
  if (lat->kind == TS_DIST_FIXED && w->model->nidle == 0)
    return lat->mean;
  return ts__wake_delay_idle(w, lat, wk);
}
/* wk's thread runs again after a sleep (call only when idle_since >= 0). */
void ts__idle_run(const ts_world *w, ts_worker *wk);

/* --- workers (worker.c) --- */

/* wk has work: schedule its WAKE at time at (>= now), unless one comes sooner. */
void ts__worker_kick(ts_world *w, ts_worker *wk, ts_time at);
/* ts__worker_kick at now as the last act of the handler of a lane event
 * (an arrival): when the WAKE it would schedule is the next event to run
 * anyway (ts_sim_now_in_place: it counts as run), its handler runs here
 * instead, in place of a return, a push and a dispatch. slow_paths (tests):
 * the WAKE. */
void ts__worker_kick_last(ts_world *w, ts_worker *wk);
/* wk's CPU is free: run what its loop runs next (timers, callbacks, a queued
 * actor; a thread's run queue) until something keeps it busy or nothing is
 * left (then it goes idle). Does nothing while the worker is blocked. */
void ts__worker_next(ts_world *w, ts_worker *wk);
/* The running actor a rejoins its worker's time-slice queue (a thread: its
 * run queue) and the loop pays the yield overhead. Returns TS_OP_BUSY if
 * the worker stays busy (overhead), else TS_OP_FREE. */
int ts__worker_yield(ts_world *w, ts_worker *wk, ts_actor *a);
/* The threshold in force for a run period starting now on wk. */
static inline ts_time ts__worker_threshold(const ts_worker *wk)
{
  const ts_pool *p = wk->spec;
  if (wk->prio_inflight <= 0 || p->threshold == TS_TIME_MAX)
    return p->threshold;
  ts_time t = p->threshold / (p->priority_divisor > 0 ? p->priority_divisor : 1);
  return t > p->priority_min ? t : p->priority_min;
}
/* Go on with wk's event loop where it stands (ts__worker_next without its
 * checks; for cpu.c's fast path, after an actor it started left the CPU). */
void ts__worker_loop(ts_world *w, ts_worker *wk);
/* a's whole worker blocks (a mutex): it runs nothing until ts__worker_resume. */
void ts__worker_block(ts_world *w, ts_worker *wk, ts_actor *a);
/* The blocked actor a runs again on its worker at time at (a futex wake's latency). */
void ts__worker_resume_at(ts_world *w, ts_actor *a, ts_time at);
/* a becomes ready on wk: it joins the ready ring (an event loop's I/O
 * callbacks, a thread's run queue; a thread counts the entry and the tasks it
 * finds there for queue_depth). Returns 0 or -1 (out of memory). */
static inline int ts__worker_push_ready(ts_worker *wk, const ts_actor *a)
{
  if (wk->spec->kind == TS_WORKER_THREAD) {
    int depth = (int)wk->ready.len;
    wk->queue_entries++;
    wk->queue_depth_sum += depth;
    if (depth > wk->queue_depth_max)
      wk->queue_depth_max = depth;
  }
  return ts_ring_push(&wk->ready, a->id);
}
/* Report wk's queue depth and priority ops in flight to the observer. */
void ts__worker_counters(ts_world *w, ts_worker *wk);
/* The worker (global id) that index `i` of pool p means, or -1 when `i` is not a
 * whole number in range (a NaN, a fraction, a negative or a huge value). */
int ts__worker_of(const ts_world *w, int pool, double i);
/* Event handlers. */
void ts__worker_on_wake(ts_sim *sim, const ts_event *ev);
void ts__worker_on_preempt(ts_sim *sim, const ts_event *ev);
void ts__worker_on_resume(ts_sim *sim, const ts_event *ev);
void ts__worker_on_release(ts_sim *sim, const ts_event *ev);

/* --- locks, channels, servers --- */

/* Lock decl's instance inst. */
static inline ts_lock *ts__lock_inst(ts_world *w, int decl, int inst)
{
  return &w->locks[w->lock_base[decl] + inst];
}
/* Whether lock decl's instance inst has room for another holder. */
static inline int ts__lock_free(ts_world *w, int decl, int inst)
{
  return ts__lock_inst(w, decl, inst)->holders < w->model->locks[decl].capacity;
}
/* Whether a holds (an instance of) lock decl. */
static inline int ts__lock_holds(const ts_actor *a, int decl)
{
  return a->x && a->x->held && a->x->held[decl].inst >= 0;
}
/* a takes the instance if it has room: 1, else 0. */
int ts__lock_try(ts_world *w, ts_actor *a, int decl, int inst);
/* a joins the instance's waiters (oldest first). Returns 0 or -1 (out of memory). */
int ts__lock_enqueue(ts_world *w, ts_actor *a, int decl, int inst);
/* ts__lock_enqueue with instance inst (l) at hand: defined below. */
static inline int ts__lock_enqueue_in(ts_world *w, ts_actor *a, ts_lock *l, int inst);
/* a releases async lock decl; the oldest waiter becomes a holder and resumes as a callback. */
void ts__lock_release_async(ts_world *w, ts_actor *a, int decl);
/* a releases mutex decl. fifo and barging: with a parked waiter, fifo hands
 * it over, barging frees it; either way the waiter's thread resumes after the
 * wake latency and 1 is returned (the releaser pays futex_wake); without one,
 * the oldest spinner stops spinning now and 0 is returned. std: every spinner
 * stops now; if the mutex was CONTENDED the oldest parked waiter (if any) is
 * woken and 1 is returned (the futex wake is paid even with nobody parked). */
int ts__mutex_release(ts_world *w, ts_actor *a, int decl);
/* Every spinner of l stops spinning now (it sees the state change). */
void ts__mutex_stop_spinners(ts_world *w, ts_lock *l);
/* Whether now is inside the measurement window [win_t0, win_t1). */
static inline int ts__now_in_window(const ts_world *w)
{
  return w->sim.now >= w->win_t0 && w->sim.now < w->win_t1;
}
/* a's acquire of mutex decl at site (-1: none) finds it held: note when
 * its wait began and count it (in the window: per declaration and site). */
void ts__mutex_contended(ts_world *w, ts_actor *a, int decl, int site);
/* ts__mutex_took's accounting of a wait: a contended for mutex decl at site
 * (-1: none) since its mark, and holds it now (a's extension exists). */
void ts__mutex_waited(ts_world *w, ts_actor *a, int decl, int site);
/* a holds mutex decl, taken at site (-1: none): count the acquire (in the
 * window: per declaration and site) and, after contending since its mark,
 * account the wait. (Inline: every acquire pays it.) */
static inline void ts__mutex_took(ts_world *w, ts_actor *a, int decl, int site)
{
  if (ts__now_in_window(w)) {
    w->lock_stat[decl].acquires++;
    if (site >= 0)
      w->site_stat[site].acquires++;
  }
  if (ts__x(w, a)->mark >= 0)
    ts__mutex_waited(w, a, decl, site);
}
/* delta threads fall asleep on (+1) or are woken from (-1) mutex decl; 0
 * closes the stretch in progress (the run ends). Keeps the longest stretch
 * of the window during which some thread slept on it. */
static inline void ts__mutex_sleepers(ts_world *w, int decl, int delta)
{
  ts_mutex_stat *st = &w->lock_stat[decl];
  if (st->parked == 0 && delta > 0)
    st->parked_since = w->sim.now;
  st->parked += delta;
  if (st->parked == 0 || delta == 0) { /* a stretch with sleepers ends (or the run does) */
    ts_time stretch = ts__clip(w, st->parked_since, w->sim.now);
    if (stretch > st->parked_longest)
      st->parked_longest = stretch;
  }
}
/* Release every lock a holds (its program ended or failed). */
void ts__lock_release_all(ts_world *w, ts_actor *a);
/* Channel decl's instance inst. */
ts_chan *ts__chan_inst(ts_world *w, int decl, int inst);
/* a notifies the instance: the version moves on (counting channels gain
 * `tokens`, and each waiter taken takes one) and the stamp is set; all
 * waiters (or one; counting: while tokens last) are taken off its list. With
 * out NULL each is woken now (ts__chan_wake) and the number of parked worker
 * threads the notifier pays to wake is returned; else their ids are appended
 * to out, to be woken one by one, and 0 is returned. */
int ts__chan_take(ts_world *w, ts_actor *a, int decl, int inst, int all, int64_t tokens, ts_time stamp, ts_ring *out);
/* Wake actor id, taken off the instance's list by a notify of `from`: a
 * parked waiter or a task (or, for a child, its parent) parked at a pending
 * step becomes ready; a running task gets its notified bit. Returns 1 if the
 * notifier pays a parked thread's wake (once per park cycle), else 0. */
int ts__chan_wake(ts_world *w, ts_actor *from, int decl, int inst, int id);
/* The worker the wake of actor id (taken off the instance's list) would
 * schedule a task on, or -1 when it schedules none (already scheduled or
 * running, done, or a child whose parent this burst already woke). */
int ts__chan_schedules(ts_world *w, int decl, int inst, int id);
/* a waits on the instance: 1 when it need not (an unseen notify, or a token:
 * taken), else 0 with a queued as a waiter. */
int ts__chan_wait(ts_world *w, ts_actor *a, int decl, int inst);
/* a's waker joins the instance's list, unless it is there since its last
 * registration (a futures task: op_pending.c). */
void ts__chan_register(ts_world *w, ts_actor *a, int decl, int inst);
/* Load the "channel" (and, for indexed ones, "index") keys of a wait or notify. */
int ts__load_chan_ref(ts_spec *sp, ts_step *s);
/* Actor a's call reached its server: queue it; admit what the server can take. */
void ts__server_request(ts_world *w, ts_actor *a);
/* Actor a's call of priority class klass in service on server s finished:
 * admit the next ones. */
void ts__server_done(ts_world *w, ts_actor *a, int s, int klass);

/* --- giving up: timeouts, drops (timeout.c) --- */

/* a begins to wait at step s (s->limited): its timeout expires a draw of
 * s->limit from now, unless the wait is over by then. */
void ts__timeout_arm(ts_world *w, ts_actor *a, const ts_step *s);
/* Event handler: a timeout expires; a still waiting leaves the queue it is
 * in and resumes with TS_SUB_GAVE_UP (a thread blocked on a mutex first
 * wakes, after the mutex's wake latency). */
void ts__timeout_on_expire(ts_sim *sim, const ts_event *ev);
/* a gave up at step s: go to its else steps (s->alt), or end its program.
 * Returns TS_OP_GOTO. */
int ts__give_up(ts_world *w, ts_actor *a, const ts_step *s);
/* A wait is over (the lock, the notify or the admission came): a timeout
 * armed for it is void. */
static inline void ts__timeout_cancel(ts_actor *a)
{
  if (a->x)
    a->x->wait_gen++;
}
/* a becomes a holder of lock decl (declaration d)'s instance inst (l),
 * which has room (the caller checked: holders < capacity; lock.c's take
 * checks it first). Its wait, if any, is over; the observer sees the take. */
static inline void ts__lock_take_room(ts_world *w, ts_actor *a, const ts_lock_decl *d, ts_lock *l, int decl, int inst)
{
  l->holders++;
  l->owner = d->capacity == 1 ? a->id : -1;
  l->prev_worker = l->last_worker;
  l->last_worker = a->worker;
  ts__timeout_cancel(a);
  ts__x(w, a)->held[decl] = (ts_held){inst, w->sim.now};
  if (w->obs && w->obs->lock)
    w->obs->lock(w->obs->data, w->sim.now, a->id, decl, 1);
}
void ts__world_nomem(ts_world *w); /* (the world's section, below) */
static inline int ts__lock_enqueue_in(ts_world *w, ts_actor *a, ts_lock *l, int inst)
{
  ts__x(w, a)->wait_inst = inst;
  if (ts_ring_push(&l->waiters, a->id) != 0) {
    ts__world_nomem(w);
    return -1;
  }
  return 0;
}
/* ts__lock_try with the declaration d and the instance l at hand (the mutex
 * phases of op_lock.c have them): a takes l if it has room: 1, else 0. */
static inline int ts__lock_try_in(ts_world *w, ts_actor *a, const ts_lock_decl *d, ts_lock *l, int decl, int inst)
{
  if (l->holders >= d->capacity)
    return 0;
  ts__lock_take_room(w, a, d, l, decl, inst);
  return 1;
}

/* --- the world --- */

/* Memory ran out inside a handler: stop the run (TS_WORLD_NOMEM). */
void ts__world_nomem(ts_world *w);
/* A step failed while running (an index out of range...): stop the run with
 * TS_WORLD_MODEL and a message naming the step (s NULL: the message names
 * its JSON path itself). Returns -1. */
int ts__fail(ts_world *w, const ts_step *s, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A broken invariant: stop the run with TS_WORLD_INTERNAL naming it. */
void ts__invariant(ts_world *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* ts__at's failure: the horizon passed, or the engine refused the event. */
void ts__at_failed(ts_world *w, ts_time at);
/* Schedule an event; on failure the run stops. */
static inline void ts__at(ts_world *w, ts_time at, int kind, int32_t obj, uint32_t gen)
{
  if (at > TS_HORIZON_MAX || ts_sim_at(&w->sim, at, kind, obj, gen) != 0)
    ts__at_failed(w, at);
}
/* ts__at for a CPU segment's end that most likely runs next (TS_CPU_NEXT):
 * held out of the event list while ts__cpu_on_seg_end's loop allows it
 * (engine/sim.h, ts_sim_at_next), else scheduled as ts__at does. */
static inline void ts__at_next(ts_world *w, ts_time at, int kind, int32_t obj, uint32_t gen)
{
  if (at > TS_HORIZON_MAX || ts_sim_at_next(&w->sim, at, kind, obj, gen) != 0)
    ts__at_failed(w, at);
}
/* Overlap of [t0, t1) with the measurement window. */
static inline ts_time ts__clip(const ts_world *w, ts_time t0, ts_time t1)
{
  ts_time lo = t0 > w->win_t0 ? t0 : w->win_t0, hi = t1 < w->win_t1 ? t1 : w->win_t1;
  return hi > lo ? hi - lo : 0;
}
/* Count one event (a timeout, a drop) in *c when it happens inside the window. */
static inline void ts__count_now(const ts_world *w, int64_t *c)
{
  *c += ts__now_in_window(w);
}
/* A span of actor a ends now, having begun at t0: record its sample. */
void ts__span_sample(ts_world *w, int span, ts_time t0);

/* ts__actor_continue, inline for the handlers that run an actor's next ops
 * at most events (a CPU segment's end, ts__cpu_on_seg_end; a worker taking
 * the next actor, a parked thread resuming: worker.c): the event and the
 * ops it runs in one frame, without a call between them (mutex row of
 * scripts/bench-instr: -4.4%). Same ops, same order. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int ts__actor_run(ts_world *w, ts_actor *a)
{
  if (w->sim.now != w->ops_instant) {
    w->ops_instant = w->sim.now;
    w->ops_at_instant = 0;
  }
  for (;;) {
    const ts_class *k = &w->model->classes[a->klass];
    while (a->pc < (int)k->nsteps && !w->error) {
      const ts_step *s = &k->steps[a->pc];
      if (++w->ops_at_instant > TS_LIVELOCK_OPS) {
        ts__actor_livelock(w, s);
        return 0;
      }
      switch (s->type->exec(w, a, s)) {
      case TS_OP_NEXT:
        a->pc++;
        a->sub = 0;
        break;
      case TS_OP_GOTO:
        a->sub = 0;
        break;
      case TS_OP_BUSY:
        return 1;
      case TS_OP_SWITCH: /* the worker goes on with another task of the same poll */
        a = ts_world_actor(w, w->workers[a->worker].actor);
        k = &w->model->classes[a->klass];
        break;
      default:
        return 0;
      }
    }
    if (w->error)
      return 0;
    int back = ts__actor_finish(w, a);
    if (back < 0)
      return 0;
    a = ts_world_actor(w, back); /* a child ended: its parent's poll goes on */
    w->workers[a->worker].actor = back;
  }
}

#endif
