/* notify: wake the waiters of a channel.
 *   {"op": "notify", "channel": NAME, "index": EXPR, "wake": "all" | "one",
 *    "tokens": EXPR, "carry": SPAN, "forward": BOOL}
 * "wake" (default all) for version channels; "tokens" (default 1) for
 * counting ones. The notify carries a timestamp: now, the begin time of the
 * notifier's open span named by "carry", or ("forward": true) the timestamp
 * the notifier itself last received (a relay passing a frame on keeps the
 * publisher's stamp). Each parked worker thread it wakes costs the notifier
 * the channel's wake_ms of kernel CPU (once per park cycle).
 *
 * Without task_wake costs every waiter is woken at once and the thread wakes
 * are paid right after (sub 1). With them the waiters taken off the list go
 * to the worker's wake list and are woken one after another: for each, the
 * notifier pays the user (sub 2 -> 3) and the kernel (3 -> 4) CPU of waking
 * a task on its own or another worker (nothing when the wake schedules no
 * task), then the wake happens, then a parked thread's wake_ms if it is
 * charged (4 -> 5), and the next one (5 -> 2). */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"channel", "index", "wake", "tokens", "carry", "forward", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  static const char *const wakes[] = {"all", "one", NULL};
  int one = 0, forward = 0;
  s->span = -1;
  if (ts__load_chan_ref(sp, s) || ts_spec_enum(sp, "wake", 0, wakes, &one) ||
      ts_spec_expr(sp, "tokens", 0, &s->expr) || (ts_spec_has(sp, "carry") && ts_spec_span(sp, "carry", 1, &s->span)) ||
      ts_spec_bool(sp, "forward", 0, &forward))
    return -1;
  if (forward && s->span >= 0)
    return ts_spec_fail(sp, "forward", "expected either \"carry\" or \"forward\"");
  s->from_notify = forward != 0;
  s->all = one == 0;
  if (s->expr && !ts_spec_model(sp)->chans[s->ref].tokens)
    return ts_spec_fail(sp, "tokens", "channel \"%s\" does not count tokens (declare it with \"tokens\": true)",
                        ts_spec_model(sp)->chans[s->ref].name);
  double v;
  if (s->expr && ts_expr_is_constant(s->expr, &v) && !(v >= 0 && v <= 1e12)) { /* known at load: checked now */
    char said[TS_EXPR_SAID], num[TS_EXPR_NUM];
    const char *e = ts_expr_said(s->expr, said, sizeof said), *n = ts_expr_value_text(num, sizeof num, v, "");
    return *e ? ts_spec_fail(sp, "tokens", "%sis %s: expected a count in [0, 1e12]", e, n)
              : ts_spec_fail(sp, "tokens", "expected a count in [0, 1e12], got %s", n);
  }
  return 0;
}

/* The serial wakes (subs 2-5) of a notify of channel decl's instance inst. */
static int wake_serially(ts_world *w, ts_actor *a, const ts_chan_decl *d, int decl, int inst)
{
  ts_worker *wk = &w->workers[a->worker];
  for (;;) {
    switch (a->sub) {
    case 2: {
      if (wk->wakes.len == 0)
        return TS_OP_NEXT;
      int at = ts__chan_schedules(w, decl, inst, ts_ring_at(&wk->wakes, 0));
      int remote = at >= 0 && at != a->worker;
      wk->wake_kernel = at >= 0 ? d->task_wake_kernel[remote] : 0;
      a->sub = 3;
      if (at >= 0 && d->task_wake_user[remote] > 0)
        return ts__cpu_begin(w, a, d->task_wake_user[remote], 1, 0, TS_ACTOR_RUNNING);
      break;
    }
    case 3:
      a->sub = 4;
      if (wk->wake_kernel > 0)
        return ts__cpu_begin(w, a, wk->wake_kernel, 1, TS_CPU_KERNEL, TS_ACTOR_FUTEX);
      break;
    case 4: {
      int charged = ts__chan_wake(w, a, decl, inst, ts_ring_pop(&wk->wakes));
      a->sub = 5;
      if (charged && d->wake_cpu > 0)
        return ts__cpu_begin(w, a, d->wake_cpu, 1, TS_CPU_KERNEL, TS_ACTOR_FUTEX);
      break;
    }
    default:
      a->sub = 2;
      break;
    }
  }
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_chan_decl *d = &w->model->chans[s->ref];
  if (a->sub == 1)
    return TS_OP_NEXT;
  if (a->sub >= 2) {
    int r = wake_serially(w, a, d, s->ref, ts__x(w, a)->wait_inst);
    if (r == TS_OP_NEXT)
      ts__x(w, a)->wait_inst = -1;
    return r;
  }
  int inst = ts__instance(w, a, s, d->scope, d->instances);
  if (inst < 0)
    return TS_OP_FREE;
  int64_t tokens = 1;
  if (s->expr) {
    double v = ts__eval(w, a, s->expr);
    if (!(v >= 0 && v <= 1e12)) {
      char said[TS_EXPR_SAID], num[TS_EXPR_NUM];
      ts__fail(w, s, "tokens %sis %s: expected a count in [0, 1e12]", ts_expr_said(s->expr, said, sizeof said),
               ts_expr_value_text(num, sizeof num, v, ""));
      return TS_OP_FREE;
    }
    tokens = (int64_t)v;
  }
  ts_time stamp = s->from_notify && ts__x(w, a)->carried >= 0               ? ts__x(w, a)->carried
                  : s->span >= 0 && ts__x(w, a)->span_t0[s->span] >= 0 ? ts__x(w, a)->span_t0[s->span]
                                                             : w->sim.now;
  if (d->task_costs) {
    ts__chan_take(w, a, s->ref, inst, s->all, tokens, stamp, &w->workers[a->worker].wakes);
    ts__x(w, a)->wait_inst = inst; /* the instance, kept across the wakes' segments */
    a->sub = 2;
    int r = wake_serially(w, a, d, s->ref, inst);
    if (r == TS_OP_NEXT)
      ts__x(w, a)->wait_inst = -1;
    return r;
  }
  int wakes = ts__chan_take(w, a, s->ref, inst, s->all, tokens, stamp, NULL);
  a->sub = 1;
  return ts__cpu_begin(w, a, (ts_time)wakes * d->wake_cpu, 1, TS_CPU_KERNEL, TS_ACTOR_FUTEX);
}

const ts_op_type ts_op_notify = {
  .name = "notify",
  .keys = keys,
  .summary = "wake a channel's waiters (all or one; counting: add tokens), carrying a timestamp",
  .load = load,
  .exec = exec,
};
