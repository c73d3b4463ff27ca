/* Locks. Async FIFO locks (promise chains): a waiter leaves the CPU and its
 * worker goes on; on release the oldest waiter becomes a holder and resumes
 * as a callback on its own worker's loop. Mutexes (OS mutexes): an
 * uncontended acquire and a release cost user CPU; a contended acquire spins
 * (user CPU) up to spin, then enters the futex (kernel CPU) and parks the
 * whole thread; a release that wakes a waiter costs the releaser futex_wake
 * of kernel CPU, and the woken thread runs wake_latency later (a fixed time
 * or a draw, plus its core's idle-state exit: idle.c). Hand-off is
 * fifo (ownership passes to the oldest parked waiter at the release),
 * barging (the mutex is free: a spinner or a running thread may take it
 * before the woken waiter retries) or std (Rust std's futex mutex: barging,
 * plus the CONTENDED state: a release of a CONTENDED mutex pays futex_wake
 * whether or not anyone sleeps, and frees every spinner; op_lock.c has the
 * acquire's rules). Capacity k > 1 makes fifo or barging a semaphore. An
 * acquire pays `migrate` more when the mutex's previous holder ran on another
 * worker (its cache lines move).
 *
 * Invariant: 0 <= holders <= capacity; with capacity 1, owner is the holder;
 * contended is 0 while a std mutex is free. */
#include "model/internal.h"

#include <stdlib.h>

/* a becomes a holder of lock decl (d)'s instance inst (l). (Inline: every
 * uncontended acquire runs it, in ts__lock_try.) */
static inline void take_in(ts_world *w, ts_actor *a, const ts_lock_decl *d, ts_lock *l, int decl, int inst)
{
  if (l->holders >= d->capacity) {
    ts__invariant(w, "lock \"%s\"[%d] taken by actor %d beyond its capacity %d", d->name, inst, a->id, d->capacity);
    return;
  }
  ts__lock_take_room(w, a, d, l, decl, inst);
}

/* take_in, looking up the declaration and the instance. */
static inline void take(ts_world *w, ts_actor *a, int decl, int inst)
{
  take_in(w, a, &w->model->locks[decl], ts__lock_inst(w, decl, inst), decl, inst);
}

int ts__lock_try(ts_world *w, ts_actor *a, int decl, int inst)
{
  return ts__lock_try_in(w, a, &w->model->locks[decl], ts__lock_inst(w, decl, inst), decl, inst);
}

int ts__lock_enqueue(ts_world *w, ts_actor *a, int decl, int inst)
{
  return ts__lock_enqueue_in(w, a, ts__lock_inst(w, decl, inst), inst);
}

/* Drop a's hold of decl; returns the instance it held. (Inline: every
 * release runs it, in ts__mutex_release.) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int drop(ts_world *w, ts_actor *a, int decl)
{
  const ts_lock_decl *d = &w->model->locks[decl];
  int inst = ts__x(w, a)->held[decl].inst;
  ts_lock *l = ts__lock_inst(w, decl, inst);
  ts_time held = w->sim.now - ts__x(w, a)->held[decl].since;
  if (d->kind == TS_LOCK_MUTEX)
    ts__x(w, a)->mutex_hold += held;
  else
    ts__x(w, a)->lock_work += held;
  ts__x(w, a)->held[decl] = (ts_held){-1, -1};
  l->holders--;
  l->owner = -1;
  if (w->obs && w->obs->lock)
    w->obs->lock(w->obs->data, w->sim.now, a->id, decl, 0);
  return inst;
}

void ts__lock_release_async(ts_world *w, ts_actor *a, int decl)
{
  int inst = drop(w, a, decl);
  ts_lock *l = ts__lock_inst(w, decl, inst);
  int next = ts_ring_pop(&l->waiters);
  if (next < 0)
    return;
  ts_actor *b = ts_world_actor(w, next);
  ts__x(w, b)->wait_inst = -1;
  take(w, b, decl, inst);
  if (w->obs && w->obs->wake)
    w->obs->wake(w->obs->data, w->sim.now, a->id, next);
  ts__actor_ready(w, b, 0);
}

void ts__mutex_stop_spinners(ts_world *w, ts_lock *l)
{
  for (int id; (id = ts_ring_pop(&l->spinners)) >= 0;)
    ts__cpu_cut(w, &w->workers[ts_world_actor(w, id)->worker]);
}

/* Wake the oldest parked waiter of l (if any): its thread resumes after the
 * wake latency, with ownership when fifo. Returns 1 if one was woken. */
static int wake_waiter(ts_world *w, const ts_actor *a, const ts_lock_decl *d, int decl, int inst, ts_lock *l)
{
  int next = ts_ring_pop(&l->waiters);
  if (next < 0)
    return 0;
  ts__mutex_sleepers(w, decl, -1);
  ts_actor *b = ts_world_actor(w, next);
  if (d->handoff == TS_HANDOFF_FIFO)
    take_in(w, b, d, l, decl, inst); /* fifo: ownership passes at the release */
  if (w->obs && w->obs->wake)
    w->obs->wake(w->obs->data, w->sim.now, a->id, next);
  ts__worker_resume_at(w, b, w->sim.now + ts__wake_delay(w, &d->wake_latency, &w->workers[b->worker]));
  return 1;
}

int ts__mutex_release(ts_world *w, ts_actor *a, int decl)
{
  const ts_lock_decl *d = &w->model->locks[decl];
  int inst = drop(w, a, decl);
  ts_lock *l = ts__lock_inst(w, decl, inst);
  if (d->handoff == TS_HANDOFF_STD) {
    /* swap(UNLOCKED): every spinner sees it free; FUTEX_WAKE if it was CONTENDED */
    int contended = l->contended;
    l->contended = 0;
    if (l->spinners.len > 0) /* (none: no call) */
      ts__mutex_stop_spinners(w, l);
    if (contended)
      wake_waiter(w, a, d, decl, inst, l);
    return contended;
  }
  if (wake_waiter(w, a, d, decl, inst, l))
    return 1;
  /* a spinner on another thread sees it free now */
  int spinner = ts_ring_pop(&l->spinners);
  if (spinner >= 0)
    ts__cpu_cut(w, &w->workers[ts_world_actor(w, spinner)->worker]);
  return 0;
}

void ts__mutex_contended(ts_world *w, ts_actor *a, int decl, int site)
{
  ts__x(w, a)->mark = w->sim.now;
  w->mutex_contended++;
  if (!ts__now_in_window(w))
    return;
  w->lock_stat[decl].contended++;
  if (site >= 0)
    w->site_stat[site].contended++;
}

/* (a's extension looked up once: ts__mutex_took made it) */
void ts__mutex_waited(ts_world *w, ts_actor *a, int decl, int site)
{
  ts_actor_ext *x = a->x;
  ts_time wait = w->sim.now - x->mark;
  double in = (double)ts__clip(w, x->mark, w->sim.now);
  x->mutex_wait += wait;
  w->win_mutex_wait += in;
  w->mutex_wait_by_lock[decl] += (double)wait;
  w->lock_stat[decl].wait += in;
  if (site >= 0)
    w->site_stat[site].wait += in;
  x->mark = -1;
}

void ts__lock_release_all(ts_world *w, ts_actor *a)
{
  for (size_t d = 0; a->x && a->x->held && d < w->model->nlocks; d++)
    if (a->x->held[d].inst >= 0) {
      if (w->model->locks[d].kind == TS_LOCK_MUTEX)
        ts__mutex_release(w, a, (int)d);
      else
        ts__lock_release_async(w, a, (int)d);
    }
}
