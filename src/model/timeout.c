/* Giving up: a lock, mutex, channel or call wait with a timeout. When a
 * step with "timeout" begins to wait it arms one TIMEOUT event a draw of its
 * limit later (the actor's own stream), stamped with the actor's wait_gen;
 * the end of the wait (the lock taken, the notify, the admission) bumps
 * wait_gen, so a late expiry is ignored, as is one for a wait the actor is
 * no longer in (another step, another state).
 *
 * An expiry takes the actor out of what it waits in (the lock's waiters, the
 * channel's, the server's queue) and makes it ready as a timer, with
 * TS_SUB_GAVE_UP; its step's exec then sends it to its "else" steps, or ends
 * its program. A mutex acquire is a thread's: parked, the thread wakes after
 * the mutex's wake latency (a kernel timer); spinning, the spin is cut; in
 * the futex call, it finishes the call first (expired is checked at each of
 * the acquire's decisions). A timeout counts in win_timeouts. */
#include "model/internal.h"
#include "model/spec.h"

int ts_op_load_timeout(ts_spec *sp, ts_step *s)
{
  int given;
  if (ts_spec_dist_object(sp, "timeout", &s->limit, &given))
    return -1;
  s->limited = given != 0;
  return 0;
}

void ts__timeout_arm(ts_world *w, ts_actor *a, const ts_step *s)
{
  ts_actor_ext *x = ts__x(w, a);
  ts_time limit = ts__draw(w, a, &s->limit);
  x->wait_gen++;
  x->wait_pc = a->pc;
  x->expired = 0;
  ts__at(w, w->sim.now + limit, TS_EV_TIMEOUT, a->id, x->wait_gen);
}

int ts__give_up(ts_world *w, ts_actor *a, const ts_step *s)
{
  a->pc = s->alt >= 0 ? s->alt : (int)w->model->classes[a->klass].nsteps;
  return TS_OP_GOTO;
}

/* a leaves its wait and resumes as a timer with TS_SUB_GAVE_UP. */
static void leave(ts_world *w, ts_actor *a)
{
  a->x->wait_inst = -1;
  a->sub = TS_SUB_GAVE_UP;
  ts__count_now(w, &w->win_timeouts);
  ts__actor_ready(w, a, 1);
}

/* The expiry of a mutex acquire's timeout, in whatever phase it is. */
static void mutex_expired(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_lock_decl *d = &w->model->locks[s->ref];
  ts_actor_ext *x = a->x;
  if (a->state == TS_ACTOR_MUTEX_PARK && ts_ring_remove(&ts__lock_inst(w, s->ref, x->wait_inst)->waiters, a->id)) {
    a->sub = TS_SUB_GAVE_UP; /* its thread wakes from the futex: still blocked until then */
    ts__count_now(w, &w->win_timeouts);
    ts__worker_resume_at(w, a, w->sim.now + ts__wake_delay(w, &d->wake_latency, &w->workers[a->worker]));
    return;
  }
  if (ts__lock_holds(a, s->ref))
    return; /* a fifo release made it the holder: the acquire succeeded */
  x->expired = 1; /* seen at its next decision */
  if (a->state == TS_ACTOR_SPIN)
    ts__cpu_cut(w, &w->workers[a->worker]);
}

void ts__timeout_on_expire(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_actor *a = (ts_actor *)ts_world_actor_at(w, ev->obj); /* NULL: retired, its chunk freed */
  ts_actor_ext *x = a ? a->x : NULL;
  if (!x || ev->gen != x->wait_gen || x->wait_pc != a->pc || a->state == TS_ACTOR_DONE)
    return;
  const ts_step *s = &w->model->classes[a->klass].steps[a->pc];
  if (s->type == &ts_op_lock && w->model->locks[s->ref].kind == TS_LOCK_MUTEX) {
    mutex_expired(w, a, s);
  } else if (s->type == &ts_op_lock) {
    if (a->state == TS_ACTOR_LOCK_WAIT && ts_ring_remove(&ts__lock_inst(w, s->ref, x->wait_inst)->waiters, a->id))
      leave(w, a);
  } else if (s->type == &ts_op_wait) {
    if (a->state == TS_ACTOR_CHAN_WAIT && ts_ring_remove(&ts__chan_inst(w, s->ref, x->wait_inst)->waiters, a->id))
      leave(w, a);
  } else if (s->type == &ts_op_call) {
    if (a->state == TS_ACTOR_CALL_WAIT && x->wait_inst == s->ref &&
        ts_sched_queue_remove(&w->servers[s->ref].queue, a->id)) {
      if (w->obs && w->obs->call) /* the call ends without service */
        w->obs->call(w->obs->data, w->sim.now, a->id, s->ref, a->sched_class, 2);
      a->sched_class = (uint8_t)w->model->classes[a->klass].sched_class;
      leave(w, a);
    }
  }
}
