/* if: a branch, compiled from
 *   {"op": "if", "cond": EXPR, "then": [...], "else": [...]}
 *   {"op": "if", "p": EXPR, "then": [...], "else": [...]}
 * into if (jump = the else block, or the end) ... jump (over the else block) ...
 * With "p" (random routing) then is taken with probability p, evaluated when
 * the step runs (in [0, 1]): one uniform draw from the actor's own stream,
 * taken when it is below p, so variants that change p keep the actor's
 * draws (common random numbers) and a larger p takes then for every draw a
 * smaller one did. */
#include "model/internal.h"

static int exec_if(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (s->chance) {
    double p = ts__eval(w, a, s->expr);
    if (!(p >= 0 && p <= 1)) {
      char num[TS_EXPR_NUM];
      ts__fail(w, s, "probability \"%s\" is %s for actor %d (class %s, i = %d): expected [0, 1]",
               ts_expr_text(s->expr), ts_expr_value_text(num, sizeof num, p, ""), a->id,
               w->model->classes[a->klass].name, a->index);
      return TS_OP_FREE;
    }
    ts_rng *r = ts__actor_rng(w, a);
    if (!r)
      return TS_OP_FREE;
    if (ts_rng_uniform(r) < p)
      return TS_OP_NEXT;
    a->pc = s->jump;
    return TS_OP_GOTO;
  }
  if (ts__eval(w, a, s->expr) != 0)
    return TS_OP_NEXT;
  a->pc = s->jump;
  return TS_OP_GOTO;
}

static int exec_jump(ts_world *w, ts_actor *a, const ts_step *s)
{
  (void)w;
  a->pc = s->jump;
  return TS_OP_GOTO;
}

const ts_op_type ts_op_if = {
  .name = NULL,
  .structured = "if",
  .summary = "branch on a condition",
  .exec = exec_if,
};

const ts_op_type ts_op_jump = {
  .name = NULL,
  .summary = "jump (the end of an if's then block)",
  .exec = exec_jump,
};
