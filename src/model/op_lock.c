/* lock / unlock: take and release a declared lock (lock.c has the rules).
 *   {"op": "lock", "lock": NAME, "index": EXPR, "timeout": {"ms": D, ...}, "else": [...]}
 * index only for indexed locks; with a timeout, a contended acquire gives up
 * when it expires (timeout.c): at its next decision (spun, futex returned,
 * woken), or at once when parked, and goes to the else steps, or ends.
 * An async lock's waiter leaves the CPU (its worker goes on). A mutex's
 * contended acquire is a state machine on the actor's sub:
 *   0 try; free: take, pay `acquire` (3); held: note the contention, spin (1)
 *   1 spun (or cut short by a release): free: take (3); else enter the futex (2)
 *   2 futex entered: free now: take (3); else park the whole thread (4)
 *   4 woken: fifo already made it the holder; barging retries (as 1, without spinning)
 *   3 acquire paid: next step
 * std (Rust std's futex mutex, library/std/src/sys/sync/mutex/futex.rs),
 * where "contend" is: swap the state to CONTENDED (every spinner stops) and
 * enter the futex (2):
 *   0 CAS UNLOCKED -> LOCKED; held: spin (1) only while it is LOCKED, else contend
 *   1 spun: free: take as LOCKED (3); else contend
 *   2 futex_wait returned: free: swap took it, as CONTENDED (3); CONTENDED:
 *     sleep (4); LOCKED (a barger took it): spin again (6)
 *   4 woken: free: take as CONTENDED (3); LOCKED: spin (6); CONTENDED: futex (2)
 *   6 spun after a wake: free: take as CONTENDED (3); else contend
 * A woken thread that loses to a barger sleeps again at the futex queue's tail.
 * unlock: pay `release` (0 -> 1), release (1); a parked waiter woken costs
 * futex_wake of kernel CPU (2) (std: every release of a CONTENDED mutex). */
#include "model/internal.h"
#include "model/spec.h"

enum { SUB_TRY, SUB_SPUN, SUB_FUTEX, SUB_TOOK, SUB_WOKEN, SUB_RESPUN = 6 };

static const char *const keys[] = {"lock", "index", "site", "timeout", "else", NULL};
static const char *const unlock_keys[] = {"lock", NULL};

/* unlock releases the instance the actor holds: it names the lock only. */
static int load_unlock(ts_spec *sp, ts_step *s)
{
  return ts_spec_ref(sp, "lock", 1, TS_REF_LOCK, &s->ref);
}

static int load(ts_spec *sp, ts_step *s)
{
  if (ts_spec_ref(sp, "lock", 1, TS_REF_LOCK, &s->ref) || ts_op_load_timeout(sp, s))
    return -1;
  if (ts_spec_has(sp, "site") && ts_spec_site(sp, "site", s->ref, &s->site))
    return -1;
  const ts_lock_decl *d = &ts_spec_model(sp)->locks[s->ref];
  if (d->scope == TS_SCOPE_INDEXED)
    return ts_spec_expr(sp, "index", 1, &s->index);
  if (ts_spec_has(sp, "index"))
    return ts_spec_fail(sp, "index", "lock \"%s\" is not indexed (its scope is not \"indexed\")", d->name);
  return 0;
}

/* a stops spinning on l: ts_ring_remove of a from the spinners, whose first
 * case (a is the head, the oldest spinner: spins of one lock end in the
 * order they began) needs no call. a may be gone already (a release cut
 * its spin: it popped a), and then the head is another spinner. */
static inline void unspin(ts_lock *l, const ts_actor *a)
{
  if (l->spinners.len > 0 && l->spinners.v[l->spinners.head] == a->id)
    ts_ring_pop(&l->spinners);
  else
    ts_ring_remove(&l->spinners, a->id);
}

/* A contended acquire gave up (its timeout expired): its wait counts as mutex wait. */
static int gave_up(ts_world *w, ts_actor *a, const ts_step *s, ts_lock *l)
{
  unspin(l, a);
  ts__mutex_took(w, a, s->ref, s->site);
  ts__x(w, a)->wait_inst = -1;
  return ts__give_up(w, a, s);
}

/* a took mutex d (s->ref) at s's site: count it, end its wait (the instance
 * it waited on), and pay the acquire; exec runs again at sub 3. s is a's
 * current step (every phase runs at the lock step). */
static int took(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, const ts_lock *l)
{
  ts__mutex_took(w, a, s->ref, s->site);
  a->x->wait_inst = -1; /* (ts__mutex_took made the extension) */
  a->sub = SUB_TOOK;
  ts_time cost = d->acquire;
  if (d->migrate > 0 && l->prev_worker >= 0 && l->prev_worker != l->last_worker)
    cost += d->migrate; /* the previous holder ran on another worker: its cache lines move */
  return ts__cpu_begin(w, a, cost, 1, TS_CPU_LAST | TS_CPU_NEXT, TS_ACTOR_RUNNING); /* (exec_lock at SUB_TOOK: TS_OP_NEXT) */
}

/* Park a's thread in l's waiters; exec runs again at sub 4 when a release
 * wakes it. */
static int park(ts_world *w, ts_actor *a, int decl, int inst, ts_lock *l)
{
  if (ts__lock_enqueue_in(w, a, l, inst))
    return TS_OP_FREE;
  ts__mutex_sleepers(w, decl, +1);
  ts__actor_set_state(w, a, TS_ACTOR_MUTEX_PARK);
  ts__worker_block(w, &w->workers[a->worker], a);
  a->sub = SUB_WOKEN;
  return TS_OP_FREE;
}

/* Spin for a held mutex (user CPU, cut short when its state changes), then exec runs again at sub. */
static int spin(ts_world *w, ts_actor *a, const ts_lock_decl *d, ts_lock *l, int sub)
{
  if (ts_ring_push(&l->spinners, a->id) != 0) {
    ts__world_nomem(w);
    return TS_OP_FREE;
  }
  a->sub = sub;
  return ts__cpu_begin(w, a, d->spin, 1, TS_CPU_NEXT, TS_ACTOR_SPIN);
}

static int futex_check(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l);

/* Enter the futex: pay futex_wait (then exec runs again at sub 2), or check at once when it costs nothing. */
static int enter_futex(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l)
{
  a->sub = SUB_FUTEX;
  if (d->futex_wait > 0)
    return ts__cpu_begin(w, a, d->futex_wait, 1, TS_CPU_KERNEL | TS_CPU_NEXT, TS_ACTOR_FUTEX);
  return futex_check(w, a, s, d, inst, l);
}

/* std: the state is LOCKED or CONTENDED after a failed try: mark it CONTENDED
 * (spinners stop: they never spin on CONTENDED) and enter the futex. */
static int contend(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l)
{
  if (!l->contended) {
    l->contended = 1;
    ts__mutex_stop_spinners(w, l);
  }
  return enter_futex(w, a, s, d, inst, l);
}

/* std: take a free mutex by swap(CONTENDED): the next release pays a futex wake. */
static int take_contended(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l)
{
  ts__lock_try_in(w, a, d, l, s->ref, inst);
  l->contended = 1;
  return took(w, a, s, d, l);
}

/* The futex_wait syscall returned (sub 2): take, sleep, or (std) spin again. */
static int futex_check(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l)
{
  if (d->handoff != TS_HANDOFF_STD) {
    if (ts__lock_try_in(w, a, d, l, s->ref, inst))
      return took(w, a, s, d, l);
    return park(w, a, s->ref, inst, l);
  }
  if (l->holders < d->capacity)
    return take_contended(w, a, s, d, inst, l);
  if (l->contended)
    return park(w, a, s->ref, inst, l);
  return d->spin > 0 ? spin(w, a, d, l, SUB_RESPUN) : contend(w, a, s, d, inst, l);
}

static int exec_std(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l)
{
  switch (a->sub) {
  case SUB_TRY:
    if (ts__lock_try_in(w, a, d, l, s->ref, inst)) {
      l->contended = 0;
      return took(w, a, s, d, l);
    }
    ts__mutex_contended(w, a, s->ref, s->site);
    ts__x(w, a)->wait_inst = inst;
    if (d->spin > 0 && !l->contended)
      return spin(w, a, d, l, SUB_SPUN);
    return contend(w, a, s, d, inst, l);
  case SUB_SPUN:
    unspin(l, a);
    if (ts__lock_try_in(w, a, d, l, s->ref, inst)) { /* CAS UNLOCKED -> LOCKED */
      l->contended = 0;
      return took(w, a, s, d, l);
    }
    return contend(w, a, s, d, inst, l);
  case SUB_FUTEX:
    return futex_check(w, a, s, d, inst, l);
  case SUB_WOKEN:
    if (l->holders < d->capacity)
      return take_contended(w, a, s, d, inst, l);
    if (l->contended)
      return enter_futex(w, a, s, d, inst, l);
    return d->spin > 0 ? spin(w, a, d, l, SUB_RESPUN) : contend(w, a, s, d, inst, l);
  case SUB_RESPUN:
    unspin(l, a);
    if (l->holders < d->capacity)
      return take_contended(w, a, s, d, inst, l);
    return contend(w, a, s, d, inst, l);
  default:
    return TS_OP_NEXT;
  }
}

/* A mutex's acquire at phase a->sub: d is s's declaration, l its instance inst. */
static int exec_mutex(ts_world *w, ts_actor *a, const ts_step *s, const ts_lock_decl *d, int inst, ts_lock *l)
{
  if (a->sub == TS_SUB_GAVE_UP) /* parked when its timeout expired */
    return gave_up(w, a, s, l);
  if (s->limited) {
    if (a->sub == SUB_TRY && l->holders >= d->capacity)
      ts__timeout_arm(w, a, s); /* contended: the timeout runs from this try */
    else if (a->sub != SUB_TRY && a->sub != SUB_TOOK && a->x->expired && !ts__lock_holds(a, s->ref))
      return gave_up(w, a, s, l); /* it expired while spinning or in the futex call */
  }
  if (d->handoff == TS_HANDOFF_STD)
    return exec_std(w, a, s, d, inst, l);
  switch (a->sub) {
  case SUB_TRY:
    if (ts__lock_try_in(w, a, d, l, s->ref, inst))
      return took(w, a, s, d, l);
    ts__mutex_contended(w, a, s->ref, s->site);
    ts__x(w, a)->wait_inst = inst;
    if (d->spin > 0)
      return spin(w, a, d, l, SUB_SPUN);
    return enter_futex(w, a, s, d, inst, l);
  case SUB_SPUN:
    unspin(l, a);
    if (ts__lock_try_in(w, a, d, l, s->ref, inst))
      return took(w, a, s, d, l);
    return enter_futex(w, a, s, d, inst, l);
  case SUB_FUTEX:
    return futex_check(w, a, s, d, inst, l);
  case SUB_WOKEN:
    if (ts__lock_holds(a, s->ref) || ts__lock_try_in(w, a, d, l, s->ref, inst))
      return took(w, a, s, d, l);
    return enter_futex(w, a, s, d, inst, l); /* barging: someone took it first */
  default:
    return TS_OP_NEXT;
  }
}

/* exec_lock's work at every phase but a paid acquire's (out of line: the
 * paid acquire's return then saves no registers). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int lock_phase(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_lock_decl *d = &w->model->locks[s->ref];
  if (d->kind != TS_LOCK_MUTEX) {
    if (a->sub == 1)
      return TS_OP_NEXT; /* the lock was handed to us */
    if (a->sub == TS_SUB_GAVE_UP)
      return ts__give_up(w, a, s);
    int inst = ts__instance(w, a, s, d->scope, d->instances);
    if (inst < 0)
      return TS_OP_FREE;
    if (ts__lock_try(w, a, s->ref, inst))
      return TS_OP_NEXT;
    if (ts__lock_enqueue(w, a, s->ref, inst))
      return TS_OP_FREE;
    ts__actor_set_state(w, a, TS_ACTOR_LOCK_WAIT);
    a->sub = 1;
    if (s->limited)
      ts__timeout_arm(w, a, s);
    return TS_OP_FREE;
  }
  if (a->sub == SUB_TOOK) {
    ts__x(w, a)->wait_inst = -1;
    return TS_OP_NEXT; /* the acquire cost is paid */
  }
  int inst = a->sub != SUB_TRY                                ? ts__x(w, a)->wait_inst
             : d->scope == TS_SCOPE_SHARED && !w->slow_paths ? 0
                                                             : ts__instance(w, a, s, d->scope, d->instances);
  if (inst < 0)
    return TS_OP_FREE;
  ts_lock *l = ts__lock_inst(w, s->ref, inst);
  if (a->sub == SUB_TRY && !w->slow_paths && l->holders < d->capacity) {
    /* The first try of a free mutex in one pass (the shortcut; exec_mutex's
     * SUB_TRY without its timeout and phase tests, which a free mutex's
     * first try never needs): take it (std: as LOCKED; its contended flag
     * is already 0, lock.c) and pay the acquire. A held one goes to
     * exec_mutex's try. */
    ts__lock_take_room(w, a, d, l, s->ref, inst); /* (ts__lock_try's take, its room just checked) */
    return took(w, a, s, d, l);
  }
  return exec_mutex(w, a, s, d, inst, l);
}

/* A mutex's release (its `release` cost paid): drop it (lock.c); waking a
 * parked waiter costs futex_wake of kernel CPU (then exec runs again at sub 2). */
static int release(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (ts__mutex_release(w, a, s->ref)) {
    a->sub = 2;
    return ts__cpu_begin(w, a, w->model->locks[s->ref].futex_wake, 1, TS_CPU_KERNEL | TS_CPU_LAST | TS_CPU_NEXT,
                         TS_ACTOR_FUTEX); /* (exec_unlock at sub 2: TS_OP_NEXT) */
  }
  return TS_OP_NEXT;
}

static int exec_unlock(ts_world *w, ts_actor *a, const ts_step *s)
{
  /* A mutex's release cost is paid (sub 1: release now) or its futex wake is
   * (sub 2: next step): only a mutex's unlock has a sub other than 0 (an
   * async lock's goes on at sub 0), so the general path's declaration, hold
   * and kind tests below give the same. slow_paths (tests): the general path. */
  if (a->sub && !w->slow_paths)
    return a->sub == 1 ? release(w, a, s) : TS_OP_NEXT;
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
      return ts__cpu_begin(w, a, d->release, 1, TS_CPU_NEXT, TS_ACTOR_RUNNING);
    /* fall through */
  case 1:
    return release(w, a, s);
  default:
    return TS_OP_NEXT;
  }
}

static int exec_lock(ts_world *w, ts_actor *a, const ts_step *s)
{
  /* A mutex's acquire is paid (took ended its wait): next step. (An async
   * lock's sub is 0, 1 or TS_SUB_GAVE_UP, never SUB_TOOK.) slow_paths
   * (tests): the general path, lock_phase. */
  if (a->sub == SUB_TOOK && !w->slow_paths)
    return TS_OP_NEXT;
  return lock_phase(w, a, s);
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
