/* Async FIFO locks (promise chains). A lock declared per actor exists once
 * per actor; a shared lock once per world. The owner keeps it across every
 * wait: I/O, yields, time in the queue. On release the oldest waiter becomes
 * the owner and resumes as a callback on its own worker's loop. */
#include "model/world.h"

/* Index in w->locks of declaration decl as actor a sees it. */
static int lock_index(const ts_world *w, const ts_actor *a, int decl)
{
  return w->lock_base[decl] + (w->model->locks[decl].scope == TS_LOCK_SHARED ? 0 : a->id);
}

static void took(ts_world *w, ts_actor *a, int decl)
{
  a->lock_since[decl] = w->sim.now;
  if (w->obs && w->obs->lock)
    w->obs->lock(w->obs->data, w->sim.now, a->id, decl, 1);
}

int ts__lock_acquire(ts_world *w, ts_actor *a, int decl)
{
  ts_lock *l = &w->locks[lock_index(w, a, decl)];
  if (l->owner < 0) {
    l->owner = a->id;
    took(w, a, decl);
    return 1;
  }
  if (ts_ring_push(&l->waiters, a->id) != 0)
    ts__world_nomem(w);
  return 0;
}

void ts__lock_release(ts_world *w, ts_actor *a, int decl)
{
  ts_lock *l = &w->locks[lock_index(w, a, decl)];
  if (l->owner != a->id)
    return; /* io rejects programs that unlock what they do not hold */
  a->st.lock_work += w->sim.now - a->lock_since[decl];
  a->lock_since[decl] = -1;
  if (w->obs && w->obs->lock)
    w->obs->lock(w->obs->data, w->sim.now, a->id, decl, 0);
  l->owner = -1;
  int next = ts_ring_pop(&l->waiters);
  if (next < 0)
    return;
  ts_actor *b = &w->actors[next];
  l->owner = next;
  took(w, b, decl);
  if (w->obs && w->obs->wake)
    w->obs->wake(w->obs->data, w->sim.now, a->id, next);
  ts__actor_grant(w, b);
}
