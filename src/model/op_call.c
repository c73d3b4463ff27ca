/* call: a request to a server and its reply, compiled from
 *   {"op": "call", "server": NAME, "class": "foreground"|"normal"|"background",
 *    "request_ms": D, "reply_ms": D, "send_ms": T, "recv_ms": T, "work_ms": T,
 *    "span": SPAN, "wait": true, "handler": [...], "timeout": D, "else": [...]}
 * into call (jump = its call_end) handler... call_end (jump = the call), then
 * the else steps, then (wait false) exit. The caller pays send_ms of CPU, its
 * request travels request_ms and joins the server's queue with its class and
 * declared work (with no request leg at once, before the caller's worker runs
 * anything else); the server admits up to its concurrency in the order its
 * policy picks; an admitted call runs the handler steps on a worker of the
 * server's pool; then the reply travels reply_ms back to the caller's worker,
 * which pays recv_ms. The caller waits throughout. With wait false the
 * caller pays send_ms, its request leaves at once and it goes on past the
 * exit (next), while a task (a spawned actor at the call) waits for the
 * reply, pays recv_ms and ends. A span on a call gets one sample per call,
 * from its start until the caller has paid recv_ms for the reply (the whole
 * round trip as the caller sees it). */
#include "model/internal.h"

/* a's request leaves now: it travels its leg, or joins the queue at once. */
static void request(ts_world *w, ts_actor *a, const ts_step *s)
{
  a->sched_class = s->klass;
  ts__x(w, a)->ret_worker = a->worker;
  ts__actor_set_state(w, a, TS_ACTOR_CALL_WAIT);
  a->sub = 2;
  ts_time leg = ts__draw(w, a, &s->cost);
  if (leg > 0)
    ts__actor_ready_at(w, a, w->sim.now + leg, TS_READY_REQUEST);
  else /* no request leg: the call joins the queue now, as a JavaScript call enqueues synchronously */
    ts__server_request(w, a);
}

static int exec_call(ts_world *w, ts_actor *a, const ts_step *s)
{
  switch (a->sub) {
  case 0:
    if (s->span >= 0 && s->wait)
      ts__x(w, a)->span_t0[s->span] = w->sim.now;
    a->sub = 1;
    if (s->send > 0)
      return ts__cpu_begin(w, a, s->send, 1, 0, TS_ACTOR_RUNNING);
    /* fall through */
  case 1:
    if (s->wait) {
      request(w, a, s);
      return TS_OP_FREE;
    } else { /* the request leaves now; a task waits for the reply, and the caller goes on past the call */
      ts_actor *t = ts__actor_spawn(w, a);
      if (!t)
        return TS_OP_FREE;
      ts__actor_begin(w, t);
      t->pc = a->pc;
      if (s->span >= 0)
        ts__x(w, t)->span_t0[s->span] = w->sim.now;
      request(w, t, s);
      a->pc = s->next;
      return TS_OP_GOTO;
    }
  case TS_SUB_GAVE_UP: /* timed out in the server's queue, or refused by a full one */
    if (s->span >= 0)
      ts__x(w, a)->span_t0[s->span] = -1;
    return ts__give_up(w, a, s);
  default:
    return TS_OP_NEXT; /* admitted: the handler runs on the server's worker */
  }
}

static int exec_end(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_step *c = &w->model->classes[a->klass].steps[s->jump];
  switch (a->sub) {
  case 0: {
    int klass = a->sched_class;
    ts_time leg = ts__draw(w, a, &c->cost2);
    int micro = leg == 0 && w->model->servers[c->ref].microtask;
    if (!micro)
      ts__server_done(w, a, c->ref, klass);
    a->sched_class = w->model->classes[a->klass].sched_class;
    ts__actor_set_state(w, a, TS_ACTOR_CALL_WAIT);
    a->worker = ts__x(w, a)->ret_worker;
    a->sub = 1;
    if (!micro) {
      ts__actor_ready_at(w, a, w->sim.now + leg, TS_READY_ARRIVE);
      return TS_OP_FREE;
    }
    /* a promise reaction: the caller's continuation is queued before the
     * server takes its next call (whose handler is the next microtask) */
    ts__actor_microtask(w, a);
    ts__server_done(w, a, c->ref, klass);
    return TS_OP_FREE;
  }
  case 1:
    a->sub = 2;
    if (c->recv > 0)
      return ts__cpu_begin(w, a, c->recv, 1, 0, TS_ACTOR_RUNNING);
    /* fall through */
  default:
    if (c->span >= 0 && ts__x(w, a)->span_t0[c->span] >= 0) {
      ts__span_sample(w, c->span, ts__x(w, a)->span_t0[c->span]);
      ts__x(w, a)->span_t0[c->span] = -1;
    }
    return TS_OP_NEXT;
  }
}

const ts_op_type ts_op_call = {
  .name = NULL,
  .structured = "call",
  .summary = "send a request to a server and wait for its reply",
  .exec = exec_call,
};

const ts_op_type ts_op_call_end = {
  .name = NULL,
  .summary = "the end of a call's handler: free the server, send the reply",
  .exec = exec_end,
};
