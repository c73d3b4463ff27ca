/* Channels: fan-out wakeups with a version counter (no wakeup is lost: a
 * waiter that has not seen the latest notify does not wait), or, for
 * counting channels, tokens (a notify adds tokens; a wait takes one).
 *
 * A channel instance's waiter list holds actor ids of two kinds: actors
 * parked in a wait step, and wakers of futures tasks (a register step:
 * op_pending.c), which stay listed whatever the task does until a notify
 * takes them. A notify takes its waiters off the list (all, or one) and
 * wakes each: a parked waiter becomes ready on its own worker (an I/O
 * callback, or with "resume": "microtask" a microtask); a task's
 * waker schedules the task if it is parked at a pending step, does nothing
 * if it is already in its run queue, and else sets its notified bit (it runs
 * its poll pass again); a child's waker marks the child woken and wakes its
 * parent task, once per burst.
 *
 * Waking a worker thread that is parked (idle) and is not the notifier's
 * costs the notifier wake_cpu of kernel CPU, at most once per parked worker
 * per park cycle, and that thread starts wake_latency later (a fixed time or
 * a draw, plus its core's idle-state exit: idle.c). A channel with
 * task_wake costs makes the notifier pay them per task it schedules, one
 * wake after another (op_notify.c). */
#include "model/internal.h"

ts_chan *ts__chan_inst(ts_world *w, int decl, int inst)
{
  return &w->chans[w->chan_base[decl] + inst];
}

/* b becomes ready on its worker after a wake by `from`. Returns 1 if that
 * costs the notifier a thread wake (b's thread is parked: once per cycle). */
static int make_ready(ts_world *w, const ts_actor *from, ts_actor *b, const ts_chan_decl *d)
{
  if (w->obs && w->obs->wake)
    w->obs->wake(w->obs->data, w->sim.now, from->id, b->id);
  ts_worker *wk = &w->workers[b->worker];
  int parked = wk->spec->kind == TS_WORKER_THREAD && wk->seg == TS_SEG_IDLE && wk->blocked < 0 &&
               b->worker != from->worker;
  int charge = parked && !wk->wake_charged;
  ts__actor_set_state(w, b, TS_ACTOR_READY);
  if ((d->microtask ? ts_ring_push(&wk->micro, b->id) : ts__worker_push_ready(wk, b)) != 0)
    ts__world_nomem(w);
  if (charge)
    wk->wake_charged = 1;
  ts__worker_kick(w, wk, w->sim.now + (parked ? ts__wake_delay(w, &d->wake_latency, wk) : 0));
  return charge;
}

/* The task a wake of registered waker b reaches: b itself, its parent when b
 * is a child whose parent has not been woken in this burst, or NULL. */
static ts_actor *task_of(ts_world *w, ts_actor *b)
{
  if (b->x->poll_parent < 0)
    return b;
  ts_actor *p = ts_world_actor(w, b->x->poll_parent);
  return ts__x(w, p)->kids_pending ? NULL : p;
}

int ts__chan_schedules(ts_world *w, int decl, int inst, int id)
{
  ts_actor *b = ts_world_actor(w, id);
  if (b->state == TS_ACTOR_DONE)
    return -1;
  if (ts__x(w, b)->seen[decl].reg != inst)
    return b->worker; /* parked in a wait step */
  ts_actor *t = task_of(w, b);
  return t && t->x && t->x->in_pending ? t->worker : -1;
}

int ts__chan_wake(ts_world *w, ts_actor *from, int decl, int inst, int id)
{
  const ts_chan_decl *d = &w->model->chans[decl];
  const ts_chan *ch = ts__chan_inst(w, decl, inst);
  ts_actor *b = ts_world_actor(w, id);
  if (b->state == TS_ACTOR_DONE)
    return 0; /* a finished child's stale waker */
  ts_actor_ext *x = ts__x(w, b);
  x->carried = ch->stamp;
  if (x->seen[decl].reg != inst) { /* parked in a wait step */
    x->seen[decl] = (ts_seen){inst, x->seen[decl].reg, ch->version};
    x->wait_inst = -1;
    ts__timeout_cancel(b);
    return make_ready(w, from, b, d);
  }
  x->seen[decl].reg = -1;
  if (x->poll_parent >= 0) {
    x->woken = 1;
    ts__x(w, ts_world_actor(w, x->poll_parent))->carried = ch->stamp; /* its task got the notify too */
    ts_actor *p = task_of(w, b);
    if (!p)
      return 0; /* the burst's first wake already woke the parent */
    ts__x(w, p)->kids_pending = 1;
    b = p;
    x = p->x;
  }
  if (x->in_pending) {
    x->in_pending = 0;
    return make_ready(w, from, b, d);
  }
  if (b->state != TS_ACTOR_READY) /* running a pass (or waiting inside one): it runs the pass again */
    x->notified = 1;
  return 0;
}

int ts__chan_take(ts_world *w, ts_actor *a, int decl, int inst, int all, int64_t tokens, ts_time stamp, ts_ring *out)
{
  const ts_chan_decl *d = &w->model->chans[decl];
  ts_chan *ch = ts__chan_inst(w, decl, inst);
  int charged = 0, taken = 0;
  ch->version++;
  w->chan_last[decl] = ++w->chan_epoch; /* lets that read its version are evaluated anew */
  w->let_epoch++;                       /* (kept lets are current only at the same let epoch: actor_eval.c) */
  ch->stamp = stamp;
  if (d->tokens)
    ch->tokens += tokens;
  while (d->tokens ? ch->tokens > 0 : all || taken == 0) {
    int id = ts_ring_pop(&ch->waiters);
    if (id < 0)
      break;
    taken++;
    if (d->tokens)
      ch->tokens--;
    if (!out)
      charged += ts__chan_wake(w, a, decl, inst, id);
    else if (ts_ring_push(out, id) != 0)
      ts__world_nomem(w);
  }
  return charged;
}

int ts__chan_wait(ts_world *w, ts_actor *a, int decl, int inst)
{
  const ts_chan_decl *d = &w->model->chans[decl];
  ts_chan *ch = ts__chan_inst(w, decl, inst);
  ts_seen *seen = &ts__x(w, a)->seen[decl];
  if (d->tokens ? ch->tokens > 0 : ch->version > (seen->inst == inst ? seen->version : 0)) {
    if (d->tokens)
      ch->tokens--;
    *seen = (ts_seen){inst, seen->reg, ch->version};
    ts__x(w, a)->carried = ch->stamp;
    return 1;
  }
  ts__x(w, a)->wait_inst = inst;
  if (ts_ring_push(&ch->waiters, a->id) != 0)
    ts__world_nomem(w);
  return 0;
}

void ts__chan_register(ts_world *w, ts_actor *a, int decl, int inst)
{
  ts_seen *seen = &ts__x(w, a)->seen[decl];
  if (seen->reg == inst)
    return; /* still listed since its last registration there */
  seen->reg = inst;
  if (ts_ring_push(&ts__chan_inst(w, decl, inst)->waiters, a->id) != 0)
    ts__world_nomem(w);
}
