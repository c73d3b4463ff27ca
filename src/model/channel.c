/* Channels: fan-out wakeups with a version counter (no wakeup is lost: a
 * waiter that has not seen the latest notify does not wait), or, for
 * counting channels, tokens (a notify adds tokens; a wait takes one).
 *
 * A notify makes each woken waiter ready on its own worker. Waking a worker
 * thread that is parked (idle) and is not the notifier's costs the notifier
 * wake_cpu of kernel CPU, at most once per parked worker per park cycle, and
 * that thread starts wake_latency later. */
#include "model/internal.h"

ts_chan *ts__chan_inst(ts_world *w, int decl, int inst)
{
  return &w->chans[w->chan_base[decl] + inst];
}

/* Wake waiter b of channel decl: it has seen `version`, carries stamp. Returns
 * 1 if waking it costs the notifier a thread wake. */
static int wake(ts_world *w, const ts_actor *from, ts_actor *b, int decl, int inst, const ts_chan *ch)
{
  const ts_chan_decl *d = &w->model->chans[decl];
  ts__x(w, b)->seen[decl] = (ts_seen){inst, ch->version};
  ts__x(w, b)->carried = ch->stamp;
  ts__x(w, b)->wait_inst = -1;
  if (w->obs && w->obs->wake)
    w->obs->wake(w->obs->data, w->sim.now, from->id, b->id);
  ts_worker *wk = &w->workers[b->worker];
  int parked = wk->spec->kind == TS_WORKER_THREAD && wk->seg == TS_SEG_IDLE && wk->blocked < 0 &&
               b->worker != from->worker;
  int charge = parked && !wk->wake_charged;
  ts__actor_set_state(w, b, TS_ACTOR_READY);
  if (ts_ring_push(&wk->ready, b->id) != 0)
    ts__world_nomem(w);
  if (charge)
    wk->wake_charged = 1;
  ts__worker_kick(w, wk, w->sim.now + (parked ? d->wake_latency : 0));
  return charge;
}

int ts__chan_notify(ts_world *w, ts_actor *a, int decl, int inst, int all, int64_t tokens, ts_time stamp)
{
  const ts_chan_decl *d = &w->model->chans[decl];
  ts_chan *ch = ts__chan_inst(w, decl, inst);
  int charged = 0;
  ch->version++;
  ch->stamp = stamp;
  if (d->tokens) {
    ch->tokens += tokens;
    while (ch->tokens > 0 && ch->waiters.len > 0) {
      ch->tokens--;
      charged += wake(w, a, ts_world_actor(w, ts_ring_pop(&ch->waiters)), decl, inst, ch);
    }
    return charged;
  }
  do {
    int id = ts_ring_pop(&ch->waiters);
    if (id < 0)
      break;
    charged += wake(w, a, ts_world_actor(w, id), decl, inst, ch);
  } while (all);
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
    *seen = (ts_seen){inst, ch->version};
    ts__x(w, a)->carried = ch->stamp;
    return 1;
  }
  ts__x(w, a)->wait_inst = inst;
  if (ts_ring_push(&ch->waiters, a->id) != 0)
    ts__world_nomem(w);
  return 0;
}
