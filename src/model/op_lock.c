/* lock / unlock: take and release a declared lock (lock.c has the rules).
 *   {"op": "lock", "lock": NAME, "index": EXPR}   index only for indexed locks
 * An async lock's waiter leaves the CPU (its worker goes on). A mutex's
 * contended acquire is a state machine on the actor's sub:
 *   0 try; free: take, pay `acquire` (3); held: note the contention, spin (1)
 *   1 spun (or cut short by a release): free: take (3); else enter the futex (2)
 *   2 futex entered: free now: take (3); else park the whole thread (4)
 *   4 woken: fifo already made it the holder; barging retries (as 1, without spinning)
 *   3 acquire paid: next step
 * unlock: pay `release` (0 -> 1), release (1); a parked waiter woken costs
 * futex_wake of kernel CPU (2). */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"lock", "index", NULL};
static const char *const unlock_keys[] = {"lock", NULL};

/* unlock releases the instance the actor holds: it names the lock only. */
static int load_unlock(ts_spec *sp, ts_step *s)
{
  return ts_spec_ref(sp, "lock", 1, TS_REF_LOCK, &s->ref);
}

static int load(ts_spec *sp, ts_step *s)
{
  if (ts_spec_ref(sp, "lock", 1, TS_REF_LOCK, &s->ref))
    return -1;
  const ts_lock_decl *d = &ts_spec_model(sp)->locks[s->ref];
  if (d->scope == TS_SCOPE_INDEXED)
    return ts_spec_expr(sp, "index", 1, &s->index);
  if (ts_spec_has(sp, "index"))
    return ts_spec_fail(sp, "index", "lock \"%s\" is not indexed (its scope is not \"indexed\")", d->name);
  return 0;
}

static int took(ts_world *w, ts_actor *a, const ts_lock_decl *d, int decl)
{
  ts__mutex_took(w, a, decl);
  a->sub = 3;
  return ts__cpu_begin(w, a, d->acquire, 1, 0, TS_ACTOR_RUNNING);
}

/* Enter the futex (2), or park at once when it costs nothing. */
static int enter_futex(ts_world *w, ts_actor *a, const ts_lock_decl *d, int decl, int inst);

static int park(ts_world *w, ts_actor *a, int decl, int inst)
{
  if (ts__lock_enqueue(w, a, decl, inst))
    return TS_OP_FREE;
  ts__actor_set_state(w, a, TS_ACTOR_MUTEX_PARK);
  ts__worker_block(w, &w->workers[a->worker], a);
  a->sub = 4;
  return TS_OP_FREE;
}

static int enter_futex(ts_world *w, ts_actor *a, const ts_lock_decl *d, int decl, int inst)
{
  a->sub = 2;
  if (d->futex_wait > 0)
    return ts__cpu_begin(w, a, d->futex_wait, 1, TS_CPU_KERNEL, TS_ACTOR_FUTEX);
  return park(w, a, decl, inst);
}

static int exec_mutex(ts_world *w, ts_actor *a, const ts_step *s, int inst)
{
  const ts_lock_decl *d = &w->model->locks[s->ref];
  ts_lock *l = ts__lock_inst(w, s->ref, inst);
  switch (a->sub) {
  case 0:
    if (ts__lock_try(w, a, s->ref, inst))
      return took(w, a, d, s->ref);
    ts__x(w, a)->mark = w->sim.now;
    w->mutex_contended++;
    ts__x(w, a)->wait_inst = inst;
    if (d->spin > 0) {
      if (ts_ring_push(&l->spinners, a->id) != 0) {
        ts__world_nomem(w);
        return TS_OP_FREE;
      }
      a->sub = 1;
      return ts__cpu_begin(w, a, d->spin, 1, 0, TS_ACTOR_SPIN);
    }
    return enter_futex(w, a, d, s->ref, inst);
  case 1:
    ts_ring_remove(&l->spinners, a->id);
    if (ts__lock_try(w, a, s->ref, inst))
      return took(w, a, d, s->ref);
    return enter_futex(w, a, d, s->ref, inst);
  case 2:
    if (ts__lock_try(w, a, s->ref, inst))
      return took(w, a, d, s->ref);
    return park(w, a, s->ref, inst);
  case 4:
    if (ts__lock_holds(a, s->ref) || ts__lock_try(w, a, s->ref, inst))
      return took(w, a, d, s->ref);
    return enter_futex(w, a, d, s->ref, inst); /* barging: someone took it first */
  default:
    return TS_OP_NEXT;
  }
}

static int exec_lock(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_lock_decl *d = &w->model->locks[s->ref];
  if (d->kind != TS_LOCK_MUTEX) {
    if (a->sub == 1)
      return TS_OP_NEXT; /* the lock was handed to us */
    int inst = ts__instance(w, a, s, d->scope, d->instances);
    if (inst < 0)
      return TS_OP_FREE;
    if (ts__lock_try(w, a, s->ref, inst))
      return TS_OP_NEXT;
    if (ts__lock_enqueue(w, a, s->ref, inst))
      return TS_OP_FREE;
    ts__actor_set_state(w, a, TS_ACTOR_LOCK_WAIT);
    a->sub = 1;
    return TS_OP_FREE;
  }
  if (a->sub == 3) {
    ts__x(w, a)->wait_inst = -1;
    return TS_OP_NEXT; /* the acquire cost is paid */
  }
  int inst = a->sub == 0 ? ts__instance(w, a, s, d->scope, d->instances) : ts__x(w, a)->wait_inst;
  if (inst < 0)
    return TS_OP_FREE;
  return exec_mutex(w, a, s, inst);
}

static int exec_unlock(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_lock_decl *d = &w->model->locks[s->ref];
  if (a->sub == 0 && !ts__lock_holds(a, s->ref)) {
    ts__fail(w, s, "releases lock \"%s\", which actor %d does not hold", d->name, a->id);
    return TS_OP_FREE;
  }
  if (d->kind != TS_LOCK_MUTEX) {
    ts__lock_release_async(w, a, s->ref);
    return TS_OP_NEXT;
  }
  switch (a->sub) {
  case 0:
    a->sub = 1;
    if (d->release > 0)
      return ts__cpu_begin(w, a, d->release, 1, 0, TS_ACTOR_RUNNING);
    /* fall through */
  case 1:
    if (ts__mutex_release(w, a, s->ref)) {
      a->sub = 2;
      return ts__cpu_begin(w, a, d->futex_wake, 1, TS_CPU_KERNEL, TS_ACTOR_FUTEX);
    }
    return TS_OP_NEXT;
  default:
    return TS_OP_NEXT;
  }
}

const ts_op_type ts_op_lock = {
  .name = "lock",
  .keys = keys,
  .summary = "take a declared lock (async: wait off-CPU; mutex: spin, futex, park the thread)",
  .load = load,
  .exec = exec_lock,
};

const ts_op_type ts_op_unlock = {
  .name = "unlock",
  .keys = unlock_keys,
  .summary = "release a lock; a mutex release that wakes a parked waiter costs futex_wake",
  .load = load_unlock,
  .exec = exec_unlock,
};
