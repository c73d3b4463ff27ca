/* Workers: an event loop or a thread, each with one CPU (see cpu.c for how
 * CPU is shared when the host has fewer cores).
 *
 * Microtasks (promise reactions) run before anything else: whenever the
 * worker's CPU frees, its microtasks run, each until it leaves the CPU,
 * including those they queue, before its loop takes the next timer, callback
 * or queued actor (or a thread its run queue's next task).
 *
 * Event loop (Node-like): an iteration starts by paying the loop overhead
 * (when set) and taking a snapshot of the expired timers and the ready I/O
 * callbacks; the timers phase runs the timers of the snapshot, the poll phase
 * its callbacks (each until its actor leaves the CPU), then the check phase
 * resumes at most one actor from the time-slice queue, as zero-cache's
 * setImmediate does.
 *
 * Thread (tokio-like): one FIFO run queue of ready tasks; each poll runs a
 * task until it leaves the CPU; a yield rejoins the run queue's tail. When
 * the run queue is empty the thread parks; a notify from another worker that
 * wakes it pays the wake cost once per park cycle.
 *
 * A worker blocked in a mutex runs nothing until the mutex is handed to the
 * blocked actor and its wake latency has passed.
 *
 * Preemptive-resume priority (an event loop with "preempt"): its poll phase
 * runs the ready callbacks highest queue class first (the oldest among
 * equals), and when an actor of a higher class than the running one becomes
 * ready, or the worker starts an actor while one of a higher class waits
 * (a timer, a callback, or in the time-slice queue), the running one is
 * preempted at once (a PREEMPT check at the same instant): it goes back to
 * the head of the ready callbacks with the rest of its CPU step (preemptive
 * resume: first of its class again), and the waiting one runs.
 * Only a running user segment is preempted (not a spin, a futex call or
 * kernel CPU, nor loop overhead). */
#include <math.h>

#include "model/internal.h"

/* The time-slice queue: a plain ring of actor ids under the fifo policy
 * (its pick is always the head), else the policy's queue. */
static inline size_t queue_len(const ts_worker *wk)
{
  return wk->fifo ? wk->fifo_q.len : ts_sched_queue_len(&wk->queue);
}

static inline int queue_pop(ts_worker *wk)
{
  return wk->fifo ? ts_ring_pop(&wk->fifo_q) : ts_sched_queue_pop(&wk->queue, wk->spec->policy);
}

static inline int queue_push(ts_worker *wk, const ts_actor *a)
{
  if (wk->fifo)
    return ts_ring_push(&wk->fifo_q, a->id);
  return ts_sched_queue_push(&wk->queue, a->id, a->sched_class, a->seg.active ? a->seg.cost - a->seg.done : 0);
}

/* zero-cache's time-slice queue is a lock whose holder waits for its
 * release: setImmediate (the next check phase: the queue's head is taken
 * there) or, under "priority_yield": "timer", while a priority op is in
 * flight, a timer of priority_timer (a RELEASE event; the head then runs in
 * a timers phase). The wait is chosen when the head takes the lock: as it
 * joins an empty queue, or as the one before it is released. */
static void arm_head(ts_world *w, ts_worker *wk)
{
  if (wk->spec->priority_timer == 0 || wk->head_timer || wk->prio_inflight <= 0 || queue_len(wk) == 0)
    return;
  wk->head_timer = 1;
  ts__at(w, w->sim.now + wk->spec->priority_timer, TS_EV_RELEASE, wk->id, 0);
}

/* The queue's head, taken for the check phase, or -1 (none, or its timer
 * runs). */
static int queue_take(ts_world *w, ts_worker *wk)
{
  if (wk->head_timer)
    return -1;
  int id = queue_pop(wk);
  if (id >= 0)
    arm_head(w, wk);
  return id;
}

void ts__worker_on_release(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_worker *wk = &w->workers[ev->obj];
  wk->head_timer = 0;
  int id = queue_pop(wk);
  if (id < 0)
    return;
  /* its timer's callback (queued, still) runs in the next timers phase */
  if (ts_ring_push(&wk->timers, id) != 0)
    ts__world_nomem(w);
  arm_head(w, wk);
  ts__worker_kick(w, wk, sim->now);
}


static long best_in(const ts_world *w, const ts_ring *r);

/* Schedule wk's PREEMPT check now, unless one is pending. */
static void check_preempt(ts_world *w, ts_worker *wk)
{
  if (!wk->preempt_pending) {
    wk->preempt_pending = 1;
    ts__at(w, w->sim.now, TS_EV_PREEMPT, wk->id, 0);
  }
}

/* start_actor's body; rr: wk is rr_able (world.h: no observer, no
 * preemption), so the preemption check, the observer's state change and the
 * counters, which that leaves without effect, are not tested (always
 * inlined: with rr constant, in next_rr's frame). */
__attribute__((always_inline)) static inline int start_in(ts_world *w, ts_worker *wk, int id, int rr)
{
  ts_actor *a = ts_world_actor(w, id);
  if (!rr && wk->spec->preempt && (wk->ready.len > 0 || wk->timers.len > 0 || queue_len(wk) > 0))
    check_preempt(w, wk); /* a waiting actor may outrank it */
  if (a->prio_pending) {
    a->prio_pending = 0;
    wk->prio_inflight--;
  }
  if (rr)
    ts__actor_account_state(w, a, TS_ACTOR_RUNNING);
  else
    ts__actor_set_state(w, a, TS_ACTOR_RUNNING);
  a->lap_start = w->sim.now;
  a->lap_counted = 0;
  wk->seg_threshold = ts__worker_threshold(wk);
  wk->actor = id;
  if (wk->idle_since >= 0)
    ts__idle_run(w, wk);
  if (!rr)
    ts__worker_counters(w, wk);
  if (a->seg.active) {
    ts__cpu_resume(w, a);
    return 1;
  }
  return ts__actor_run(w, a);
}

/* Actor id gets wk's CPU for a new run period (a new lap). Returns 1 if the
 * worker is busy afterwards. */
static int start_actor(ts_world *w, ts_worker *wk, int id)
{
  return start_in(w, wk, id, 0);
}

/* The index in ring r of the actor of the highest queue class (the first
 * among equals), or -1 when r is empty. */
static long best_in(const ts_world *w, const ts_ring *r)
{
  long best = -1;
  int klass = TS_NCLASSES;
  for (size_t i = 0; i < r->len && klass > 0; i++) {
    int k = ts_world_actor(w, ts_ring_at(r, i))->sched_class;
    if (k < klass) {
      klass = k;
      best = (long)i;
    }
  }
  return best;
}

/* The next ready callback: the head, or on a preemptive worker the highest class. */
static int pop_ready(ts_world *w, ts_worker *wk)
{
  if (!wk->spec->preempt)
    return ts_ring_pop(&wk->ready);
  return ts_ring_remove_at(&wk->ready, (size_t)best_in(w, &wk->ready));
}

static void park(ts_world *w, ts_worker *wk)
{
  ts__cpu_idle(w, wk);
  ts__idle_sleep(w, wk, 0);
  wk->wake_charged = 0; /* a new park cycle */
}

/* Run wk's microtasks, each until it leaves the CPU, and those they queue.
 * Returns 1 if one keeps the worker busy. */
static int run_microtasks(ts_world *w, ts_worker *wk)
{
  while (wk->micro.len > 0 && wk->blocked < 0 && !w->error)
    if (start_actor(w, wk, ts_ring_pop(&wk->micro)))
      return 1;
  return 0;
}

static void next_thread(ts_world *w, ts_worker *wk)
{
  for (;;) {
    if (run_microtasks(w, wk))
      return;
    if (wk->blocked >= 0) {
      ts__cpu_idle(w, wk);
      return;
    }
    if (wk->ready.len == 0) {
      park(w, wk);
      return;
    }
    if (start_actor(w, wk, ts_ring_pop(&wk->ready)))
      return;
  }
}

static void next_loop(ts_world *w, ts_worker *wk)
{
  for (;;) {
    if (run_microtasks(w, wk))
      return;
    if (wk->blocked >= 0) {
      ts__cpu_idle(w, wk);
      return;
    }
    switch (wk->phase) {
    case TS_PHASE_TIMERS:
      if (wk->timers_left > 0 && wk->timers.len > 0) {
        wk->timers_left--;
        if (start_actor(w, wk, ts_ring_pop(&wk->timers)))
          return;
      } else {
        wk->phase = TS_PHASE_POLL;
      }
      break;
    case TS_PHASE_POLL:
      if (wk->poll_left > 0 && wk->ready.len > 0) {
        wk->poll_left--;
        if (start_actor(w, wk, pop_ready(w, wk)))
          return;
      } else if (wk->fifo_q.len == 0 && wk->rr_able && wk->timers.len == 0) {
        /* The poll phase is over, and what follows holds no choice: an
         * rr_able loop (fifo, no loop overhead, no priority timer, no
         * preemption) with nothing in its time-slice queue and no timer
         * (no microtask either: run_microtasks found none) finds the queue
         * empty in its check phase, then in its start phase parks (no
         * callback) or, with no overhead to pay, snapshots the callbacks
         * and polls the first through an empty timers phase. The same
         * phase, snapshot and rings as those cases step by step leave. */
        wk->phase = TS_PHASE_START;
        if (wk->ready.len == 0) {
          park(w, wk);
          return;
        }
        wk->overhead_paid = 0;
        wk->timers_left = 0;
        wk->poll_left = wk->ready.len - 1;
        wk->phase = TS_PHASE_POLL;
        if (start_actor(w, wk, ts_ring_pop(&wk->ready)))
          return;
      } else {
        wk->phase = TS_PHASE_CHECK;
      }
      break;
    case TS_PHASE_CHECK: {
      wk->phase = TS_PHASE_START;
      int id = queue_take(w, wk);
      if (id >= 0 && start_actor(w, wk, id))
        return;
      break;
    }
    case TS_PHASE_START: {
      size_t queued = wk->head_timer ? 0 : queue_len(wk);
      if (wk->ready.len == 0 && wk->timers.len == 0 && queued == 0) {
        park(w, wk);
        return;
      }
      if (wk->spec->loop_overhead > 0 && !wk->overhead_paid) {
        wk->overhead_paid = 1; /* the snapshot is taken when it is paid */
        ts__cpu_overhead(w, wk, wk->spec->loop_overhead);
        return;
      }
      wk->overhead_paid = 0;
      wk->timers_left = wk->timers.len;
      wk->poll_left = wk->ready.len;
      if (wk->timers_left == 0 && wk->poll_left == 0) { /* empty timers and poll phases: straight to check */
        wk->phase = TS_PHASE_START;
        int id = queue_take(w, wk);
        if (id >= 0 && start_actor(w, wk, id))
          return;
        break;
      }
      /* (an empty timers phase only passes to the poll phase: straight there) */
      wk->phase = wk->timers_left > 0 ? TS_PHASE_TIMERS : TS_PHASE_POLL;
      break;
    }
    }
  }
}

/* ts__worker_next for an rr_able loop (an event loop, fifo, no overhead, no
 * priority timer, no preemption, no observer; slow_paths: never). With no
 * timer and no microtask, in its poll phase with callbacks of its snapshot
 * left, or at the poll phase's end with an empty time-slice queue, or at an
 * iteration's start, next_loop's passes take the next ready callback,
 * through an empty check phase and an iteration's start (its snapshot: no
 * timer, the callbacks now, less the one taken) in the last two cases, or,
 * with no callback (the queue empty), park at the start: the same phase,
 * snapshot and rings here, and the actor started in this frame (M/M/1:
 * every job's start and every idle spell). Otherwise next_loop. (Out of
 * line: ts__worker_next's other cases keep their small frame.) */
__attribute__((noinline)) static void next_rr(ts_world *w, ts_worker *wk)
{
  if ((wk->micro.len | wk->timers.len) == 0 && wk->blocked < 0) {
    int ph = wk->phase;
    if (wk->ready.len > 0) {
      if (ph == TS_PHASE_POLL && wk->poll_left > 0) {
        wk->poll_left--;
      } else if (ph == TS_PHASE_START || (ph == TS_PHASE_POLL && wk->fifo_q.len == 0)) {
        wk->overhead_paid = 0;
        wk->timers_left = 0;
        wk->poll_left = wk->ready.len - 1;
        wk->phase = TS_PHASE_POLL;
      } else {
        next_loop(w, wk);
        return;
      }
      if (!start_in(w, wk, ts_ring_pop(&wk->ready), 1))
        next_loop(w, wk); /* (it left the CPU at once: the loop goes on) */
      return;
    }
    if (wk->fifo_q.len == 0 && (ph == TS_PHASE_POLL || ph == TS_PHASE_START)) {
      wk->phase = TS_PHASE_START;
      park(w, wk);
      return;
    }
  }
  next_loop(w, wk);
}

void ts__worker_next(ts_world *w, ts_worker *wk)
{
  if (w->error)
    return;
  if (wk->spec->kind == TS_WORKER_THREAD)
    next_thread(w, wk);
  else if (wk->rr_able)
    next_rr(w, wk);
  else
    next_loop(w, wk);
}

void ts__worker_counters(ts_world *w, ts_worker *wk)
{
  if (w->obs && w->obs->counters)
    w->obs->counters(w->obs->data, w->sim.now, wk->id, (int)queue_len(wk), wk->prio_inflight);
}

/* ts__worker_kick's body; last: ts__worker_kick_last's (at is now). */
static inline void kick(ts_world *w, ts_worker *wk, ts_time at, int last)
{
  if (wk->spec->preempt && wk->seg == TS_SEG_ACTOR)
    check_preempt(w, wk); /* what became ready may outrank the running actor */
  if (wk->seg != TS_SEG_IDLE || wk->blocked >= 0)
    return;
  if (wk->wake_pending && wk->wake_at <= at)
    return;
  if (last && !w->error && !w->slow_paths && ts_sim_now_in_place(&w->sim)) {
    /* the WAKE would be the next event (it counts as run): its handler,
     * ts__worker_on_wake, here (its wake is no longer pending; the worker
     * is idle and not blocked) */
    wk->wake_pending = 0;
    if (wk->rr_able) /* (ts__worker_next's case for it: no error here) */
      next_rr(w, wk);
    else
      ts__worker_next(w, wk);
    return;
  }
  wk->wake_pending = 1;
  wk->wake_at = at;
  ts__at(w, at, TS_EV_WAKE, wk->id, 0);
}

void ts__worker_kick(ts_world *w, ts_worker *wk, ts_time at)
{
  kick(w, wk, at, 0);
}

void ts__worker_kick_last(ts_world *w, ts_worker *wk)
{
  kick(w, wk, w->sim.now, 1);
}

void ts__worker_on_wake(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_worker *wk = &w->workers[ev->obj];
  if (wk->wake_pending && wk->wake_at == sim->now)
    wk->wake_pending = 0;
  if (wk->seg == TS_SEG_IDLE && wk->blocked < 0)
    ts__worker_next(w, wk);
}

/* The waiting actor of wk (an expired timer, a ready callback, or in the
 * time-slice queue) of the highest queue class above `klass`, the first
 * among equals (timers, then callbacks, then the queue's oldest), taken out
 * of where it waits; -1 when none outranks klass. */
static int take_outranking(ts_world *w, ts_worker *wk, int klass)
{
  const ts_ring *rings[] = {&wk->timers, &wk->ready, wk->fifo ? &wk->fifo_q : NULL};
  long at[3] = {-1, -1, -1};
  int best = -1, bk = klass;
  for (int k = 0; k < 3; k++) {
    if (rings[k])
      at[k] = best_in(w, rings[k]);
    if (rings[k] && at[k] >= 0 && ts_world_actor(w, ts_ring_at(rings[k], (size_t)at[k]))->sched_class < bk) {
      bk = ts_world_actor(w, ts_ring_at(rings[k], (size_t)at[k]))->sched_class;
      best = k;
    }
  }
  if (!wk->fifo) /* a policy's queue: its oldest item of the highest class */
    for (size_t i = 0; i < ts_sched_queue_len(&wk->queue); i++)
      if (ts_sched_queue_at(&wk->queue, i)->klass < bk) {
        bk = ts_sched_queue_at(&wk->queue, i)->klass;
        best = 3;
        at[2] = (long)i;
      }
  if (best < 0)
    return -1;
  if (best == 3) {
    int id = ts_sched_queue_at(&wk->queue, (size_t)at[2])->actor;
    ts_sched_queue_remove(&wk->queue, id);
    return id;
  }
  return ts_ring_remove_at((ts_ring *)rings[best], (size_t)at[best]);
}

void ts__worker_on_preempt(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_worker *wk = &w->workers[ev->obj];
  wk->preempt_pending = 0;
  if (w->error || wk->seg != TS_SEG_ACTOR || wk->blocked >= 0 || wk->actor < 0)
    return;
  ts_actor *a = ts_world_actor(w, wk->actor);
  if (!a->seg.active || a->seg.state != TS_ACTOR_RUNNING || a->seg.kernel)
    return;
  int id = take_outranking(w, wk, a->sched_class);
  if (id < 0)
    return;
  ts__cpu_preempt(w, wk); /* a keeps the rest of its step, first of the ready callbacks */
  ts__actor_set_state(w, a, TS_ACTOR_READY);
  if (ts_ring_push_front(&wk->ready, a->id) != 0) {
    ts__world_nomem(w);
    return;
  }
  ts__count_now(w, &w->win_preemptions);
  if (!start_actor(w, wk, id))
    ts__worker_next(w, wk);
}

int ts__worker_yield(ts_world *w, ts_worker *wk, ts_actor *a)
{
  a->st.yields++;
  int rc;
  if (wk->spec->kind == TS_WORKER_THREAD) {
    ts__actor_set_state(w, a, TS_ACTOR_READY);
    rc = ts__worker_push_ready(wk, a);
  } else {
    int depth = (int)queue_len(wk);
    w->quantities_used |= TS_USED_QUEUED;
    wk->queue_entries++;
    wk->queue_depth_sum += depth;
    if (depth > wk->queue_depth_max)
      wk->queue_depth_max = depth;
    ts__actor_set_state(w, a, TS_ACTOR_QUEUED);
    rc = queue_push(wk, a);
    if (depth == 0 && rc == 0)
      arm_head(w, wk); /* it takes the free lock */
  }
  if (rc != 0)
    ts__world_nomem(w);
  ts__worker_counters(w, wk);
  if (wk->spec->yield_overhead > 0) {
    ts__cpu_overhead(w, wk, wk->spec->yield_overhead);
    return TS_OP_BUSY;
  }
  return TS_OP_FREE;
}

void ts__worker_loop(ts_world *w, ts_worker *wk)
{
  next_loop(w, wk);
}

void ts__worker_block(ts_world *w, ts_worker *wk, ts_actor *a)
{
  wk->blocked = a->id;
  ts__idle_sleep(w, wk, 1);
  if (w->obs && w->obs->blocked)
    w->obs->blocked(w->obs->data, w->sim.now, wk->id, a->id, 1);
}

void ts__worker_resume_at(ts_world *w, ts_actor *a, ts_time at)
{
  ts__at(w, at, TS_EV_RESUME, a->id, 0);
}

void ts__worker_on_resume(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_actor *a = ts_world_actor(w, ev->obj);
  ts_worker *wk = &w->workers[a->worker];
  if (wk->blocked != a->id) {
    ts__invariant(w, "actor %d resumed on worker %d, which it does not block", a->id, wk->id);
    return;
  }
  wk->blocked = -1;
  if (wk->idle_since >= 0)
    ts__idle_run(w, wk);
  if (w->obs && w->obs->blocked)
    w->obs->blocked(w->obs->data, sim->now, wk->id, a->id, 0);
  /* the poll that blocked goes on: same run period, same lap */
  ts__actor_set_state(w, a, TS_ACTOR_RUNNING);
  wk->actor = a->id;
  if (!ts__actor_run(w, a))
    ts__worker_next(w, wk);
}

int ts__worker_of(const ts_world *w, int pool, double i)
{
  int count = w->pool_base[pool + 1] - w->pool_base[pool];
  /* compared as a double first: casting a NaN or an out-of-range value to int is undefined */
  return i >= 0 && i < count && i == floor(i) ? w->pool_base[pool] + (int)i : -1;
}
