/* wait: park until a channel is notified.
 *   {"op": "wait", "channel": NAME, "index": EXPR, "timeout": {"ms": D, ...}, "else": [...]}
 * index only for indexed channels; with a timeout, a parked waiter gives up
 * when it expires (timeout.c) and goes to the else steps, or ends.
 * Returns at once when the channel has a notify this actor has not seen (or,
 * counting, a token). The woken actor resumes on its own worker, carrying the
 * notifier's timestamp (for span_end "from": "notify"). */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"channel", "index", "timeout", "else", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  return ts__load_chan_ref(sp, s) || ts_op_load_timeout(sp, s);
}

int ts__load_chan_ref(ts_spec *sp, ts_step *s)
{
  if (ts_spec_ref(sp, "channel", 1, TS_REF_CHANNEL, &s->ref))
    return -1;
  const ts_chan_decl *d = &ts_spec_model(sp)->chans[s->ref];
  if (d->scope == TS_SCOPE_INDEXED)
    return ts_spec_expr(sp, "index", 1, &s->index);
  if (ts_spec_has(sp, "index"))
    return ts_spec_fail(sp, "index", "channel \"%s\" is not indexed (its scope is not \"indexed\")", d->name);
  return 0;
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (a->sub == TS_SUB_GAVE_UP)
    return ts__give_up(w, a, s);
  if (a->sub)
    return TS_OP_NEXT;
  const ts_chan_decl *d = &w->model->chans[s->ref];
  int inst = ts__instance(w, a, s, d->scope, d->instances);
  if (inst < 0)
    return TS_OP_FREE;
  if (ts__chan_wait(w, a, s->ref, inst))
    return TS_OP_NEXT;
  ts__actor_set_state(w, a, TS_ACTOR_CHAN_WAIT);
  a->sub = 1;
  if (s->limited)
    ts__timeout_arm(w, a, s);
  return TS_OP_FREE;
}

const ts_op_type ts_op_wait = {
  .name = "wait",
  .keys = keys,
  .summary = "park until a channel is notified (at once if a notify is unseen)",
  .load = load,
  .exec = exec,
};
