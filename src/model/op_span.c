/* span_begin / span_end: a named per-operation latency.
 *   {"op": "span_begin", "span": NAME}
 *   {"op": "span_end", "span": NAME, "from": "begin" | "notify" | "arrival"}
 * Each end is one sample of the span (counted when it ends inside the
 * measurement window). A span begins when its span_begin step runs, which
 * is after the actor waited for its worker (as a tracer's span in the real
 * code begins when that code runs). "from": "notify" measures from the
 * timestamp the last notify carried to this actor (a frame stamped by its
 * publisher, delivered to each reader), so a span may begin on one actor and
 * end on another; "from": "arrival" from the actor's arrival (a spawned
 * task's: its spawn), so queueing for the worker is in it (the sojourn). An
 * end without its beginning records nothing. */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"span", "from", NULL};
static const char *const begin_keys[] = {"span", NULL};

static int load_begin(ts_spec *sp, ts_step *s)
{
  return ts_spec_span(sp, "span", 1, &s->span);
}

static int load_end(ts_spec *sp, ts_step *s)
{
  static const char *const from[] = {"begin", "notify", "arrival", NULL};
  int f = 0;
  if (ts_spec_span(sp, "span", 1, &s->span) || ts_spec_enum(sp, "from", 0, from, &f))
    return -1;
  ts_spec_span_sampled(sp, s->span);
  s->from_notify = f == 1;
  s->from_arrival = f == 2;
  return 0;
}

static int exec_begin(ts_world *w, ts_actor *a, const ts_step *s)
{
  ts__x(w, a)->span_t0[s->span] = w->sim.now;
  return TS_OP_NEXT;
}

static int exec_end(ts_world *w, ts_actor *a, const ts_step *s)
{
  ts_time t0 = s->from_notify ? ts__x(w, a)->carried : s->from_arrival ? a->st.arrive : ts__x(w, a)->span_t0[s->span];
  if (t0 >= 0)
    ts__span_sample(w, s->span, t0);
  if (!s->from_notify && !s->from_arrival)
    ts__x(w, a)->span_t0[s->span] = -1;
  return TS_OP_NEXT;
}

const ts_op_type ts_op_span_begin = {
  .name = "span_begin",
  .keys = begin_keys,
  .summary = "begin a named latency span",
  .load = load_begin,
  .exec = exec_begin,
};

const ts_op_type ts_op_span_end = {
  .name = "span_end",
  .keys = keys,
  .summary = "end a span: one sample (from its begin, or from the timestamp a notify carried)",
  .load = load_end,
  .exec = exec_end,
};
