/* repeat: a loop, compiled from
 *   {"op": "repeat", "count": EXPR | "forever", "while": EXPR, "name": NAME, "span": SPAN, "steps": [...]}
 * into repeat (begin: jump = the matching repeat_end) and repeat_end
 * (jump = the begin). The count is evaluated once, on entry; "forever" runs
 * until the run's horizon. A "while" condition is evaluated before each
 * iteration (on entry and after each one): the loop ends when it is 0 (its
 * count, "forever" without one, still bounds it). The loop's iteration (0,
 * 1, ...) is readable in expressions by its name. A span on a repeat gets
 * one sample per iteration. */
#include <math.h>

#include "model/internal.h"

static int exec_begin(ts_world *w, ts_actor *a, const ts_step *s)
{
  int64_t count = -1;
  if (!s->forever) {
    double v = ts__eval(w, a, s->expr);
    if (!(v >= 0 && v <= TS_REPEAT_MAX) || v != floor(v)) { /* (a count known at load is checked there) */
      char said[TS_EXPR_SAID], num[TS_EXPR_NUM];
      ts__fail(w, s, "count %sis %s for actor %d (class %s, i = %d): expected an integer in [0, %g]",
               ts_expr_said(s->expr, said, sizeof said), ts_expr_value_text(num, sizeof num, v, ""), a->id,
               w->model->classes[a->klass].name, a->index, TS_REPEAT_MAX);
      return TS_OP_FREE;
    }
    count = (int64_t)v;
  }
  if (count == 0 || (s->cond && ts__eval(w, a, s->cond) == 0)) {
    a->pc = s->jump + 1;
    return TS_OP_GOTO;
  }
  ts__x(w, a)->loops[s->slot] = (ts_loop){count < 0 ? -1 : count - 1, 0};
  if (s->span >= 0)
    ts__x(w, a)->span_t0[s->span] = w->sim.now;
  return TS_OP_NEXT;
}

static int exec_end(ts_world *w, ts_actor *a, const ts_step *s)
{
  const ts_step *b = &w->model->classes[a->klass].steps[s->jump];
  ts_loop *l = &ts__x(w, a)->loops[b->slot];
  if (b->span >= 0 && ts__x(w, a)->span_t0[b->span] >= 0)
    ts__span_sample(w, b->span, ts__x(w, a)->span_t0[b->span]);
  if (l->left == 0 || (b->cond && ts__eval(w, a, b->cond) == 0)) {
    if (b->span >= 0)
      ts__x(w, a)->span_t0[b->span] = -1;
    return TS_OP_NEXT;
  }
  if (l->left > 0)
    l->left--;
  l->iter++;
  if (b->span >= 0)
    ts__x(w, a)->span_t0[b->span] = w->sim.now;
  a->pc = s->jump + 1;
  return TS_OP_GOTO;
}

const ts_op_type ts_op_repeat = {
  .name = NULL,
  .structured = "repeat",
  .summary = "loop: a count or forever around a block of steps",
  .exec = exec_begin,
};

const ts_op_type ts_op_repeat_end = {
  .name = NULL,
  .summary = "end of a repeat's block",
  .exec = exec_end,
};
