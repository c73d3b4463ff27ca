/* Futures: tasks polled the way tokio polls a task and kio's Tasks poll
 * their children. A task's program loops over a poll pass that registers
 * the task's waker on channels and ends at a pending step; any of those
 * channels' notifies wakes it, whatever the pass found, and it runs the
 * pass again.
 *   {"op": "register", "channel": NAME, "index": EXPR}
 *       put the task's waker on the channel instance's list (a no-op while
 *       it is still there from its last registration); it stays listed until
 *       a notify takes it, whatever the task does meanwhile
 *   {"op": "pending"}
 *       end the poll pass: when a wake came while the pass ran (the notified
 *       bit), rejoin the run queue's tail at once; else park until a wake.
 *       Either way the task goes on at the next step when it runs again. A
 *       child's pending hands the CPU back to the parent polling it
 *   {"op": "child", "steps": [...]}
 *       compiled into child (jump past the block), the block, exit: start a
 *       child, a task of the same class (hidden from its statistics) that
 *       runs only when this task polls its children; a new child is woken,
 *       and so is this task (it is running: its notified bit is set)
 *   {"op": "poll_children"}
 *       run each child woken since the last poll (in creation order, on
 *       this task's CPU) until its pending or its block's end; a child woken
 *       during the poll runs in the next one
 * A notify that takes a child's waker marks the child woken and wakes its
 * parent once per burst (channel.c). A task's notified bit is set by a wake
 * that finds it running a pass (or waiting inside one), not by one that
 * finds it in its run queue: a task is never scheduled twice. */
#include "model/internal.h"
#include "model/spec.h"

static const char *const no_keys[] = {NULL};
static const char *const reg_keys[] = {"channel", "index", NULL};

static int load_none(ts_spec *sp, ts_step *s)
{
  (void)sp;
  s->ref = -1;
  return 0;
}

static int load_register(ts_spec *sp, ts_step *s)
{
  if (ts__load_chan_ref(sp, s))
    return -1;
  const ts_chan_decl *d = &ts_spec_model(sp)->chans[s->ref];
  if (d->tokens)
    return ts_spec_fail(sp, "channel", "channel \"%s\" counts tokens: a waker registers on a version channel",
                        d->name);
  return 0;
}

static int exec_register(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_chan_decl *d = &w->model->chans[s->ref];
  int inst = ts__instance(w, a, s, d->scope, d->instances);
  if (inst < 0)
    return TS_OP_FREE;
  ts__chan_register(w, a, s->ref, inst);
  return TS_OP_NEXT;
}

/* The worker goes on with actor id (a child handing back, or a parent
 * polling a child): ts__actor_continue switches to it. */
static int switch_to(ts_world *w, ts_actor *a, int id)
{
  w->workers[a->worker].actor = id;
  ts__actor_set_state(w, ts_world_actor(w, id), TS_ACTOR_RUNNING);
  return TS_OP_SWITCH;
}

static int exec_pending(ts_world *w, ts_actor *a, const ts_step *s)
{
  (void)s;
  if (a->sub)
    return TS_OP_NEXT;
  ts_actor_ext *x = ts__x(w, a);
  if (x->poll_parent >= 0) { /* Pending to the parent's poll: the child goes on after this step next time */
    a->pc++;
    ts__actor_set_state(w, a, TS_ACTOR_CHAN_WAIT);
    return switch_to(w, a, x->poll_parent);
  }
  a->sub = 1;
  if (x->notified) { /* woken during the pass: run it again, after the tasks already queued */
    x->notified = 0;
    ts__actor_set_state(w, a, TS_ACTOR_READY);
    if (ts_ring_push(&w->workers[a->worker].ready, a->id) != 0)
      ts__world_nomem(w);
    return TS_OP_FREE;
  }
  x->in_pending = 1;
  ts__actor_set_state(w, a, TS_ACTOR_CHAN_WAIT);
  return TS_OP_FREE;
}

static int exec_child(ts_world *w, ts_actor *a, const ts_step *s)
{
  ts_actor *c = ts__actor_spawn(w, a);
  if (!c)
    return TS_OP_FREE;
  ts_actor_ext *x = ts__x(w, a), *cx = ts__x(w, c);
  c->pc = a->pc + 1;
  cx->poll_parent = a->id;
  cx->woken = 1;
  if (x->first_child < 0) {
    x->first_child = c->id;
  } else {
    ts_actor *last = ts_world_actor(w, x->first_child);
    while (last->x->next_child >= 0)
      last = ts_world_actor(w, last->x->next_child);
    last->x->next_child = c->id;
  }
  c->st.arrive = w->sim.now;
  c->state_since = w->sim.now;
  w->live++;
  w->live_bytes += w->model->classes[c->klass].size_bytes;
  ts__actor_set_state(w, c, TS_ACTOR_CHAN_WAIT);
  if (!x->kids_pending) { /* the push wakes the owner, which is running */
    x->kids_pending = 1;
    x->notified = 1;
  }
  a->pc = s->jump;
  return TS_OP_GOTO;
}

static int exec_poll(ts_world *w, ts_actor *a, const ts_step *s)
{
  (void)s;
  ts_actor_ext *x = ts__x(w, a);
  if (a->sub == 0) { /* re-arm, then take the woken set */
    x->kids_pending = 0;
    for (int c = x->first_child; c >= 0; c = ts_world_actor(w, c)->x->next_child) {
      ts_actor_ext *cx = ts_world_actor(w, c)->x;
      cx->in_sweep = cx->woken;
      cx->woken = 0;
    }
    a->sub = 1;
  }
  for (int c = x->first_child; c >= 0; c = ts_world_actor(w, c)->x->next_child)
    if (ts_world_actor(w, c)->x->in_sweep) {
      ts_world_actor(w, c)->x->in_sweep = 0;
      return switch_to(w, a, c);
    }
  return TS_OP_NEXT;
}

void ts__future_finish(ts_world *w, ts_actor *a)
{
  ts_actor_ext *x = a->x;
  if (!x)
    return;
  while (x->first_child >= 0) { /* a task that ends takes its children with it */
    ts_actor *c = ts_world_actor(w, x->first_child);
    x->first_child = c->x->next_child;
    c->x->poll_parent = -1;
    ts__actor_end_child(w, c);
  }
  if (x->poll_parent < 0)
    return;
  ts_actor_ext *px = ts_world_actor(w, x->poll_parent)->x; /* a child that ends leaves its parent's list */
  for (int *link = &px->first_child; *link >= 0; link = &ts_world_actor(w, *link)->x->next_child)
    if (*link == a->id) {
      *link = x->next_child;
      break;
    }
}

const ts_op_type ts_op_register = {
  .name = "register",
  .keys = reg_keys,
  .summary = "put the task's waker on a channel's list (futures: any notify of it wakes the task)",
  .load = load_register,
  .exec = exec_register,
};

const ts_op_type ts_op_pending = {
  .name = "pending",
  .keys = no_keys,
  .summary = "end a poll pass: park until a registered channel wakes the task (run again at once if one did)",
  .load = load_none,
  .exec = exec_pending,
};

const ts_op_type ts_op_poll_children = {
  .name = "poll_children",
  .keys = no_keys,
  .summary = "poll the task's children woken since its last poll, each until its pending",
  .load = load_none,
  .exec = exec_poll,
};

const ts_op_type ts_op_child = {
  .name = NULL,
  .summary = "start a child task that runs when its parent polls its children",
  .exec = exec_child,
};
