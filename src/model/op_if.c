/* if: a branch, compiled from
 *   {"op": "if", "cond": EXPR, "then": [...], "else": [...]}
 * into if (jump = the else block, or the end) ... jump (over the else block) ... */
#include "model/internal.h"

static int exec_if(ts_world *w, ts_actor *a, const ts_step *s)
{
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
  .summary = "branch on a condition",
  .exec = exec_if,
};

const ts_op_type ts_op_jump = {
  .name = NULL,
  .summary = "jump (the end of an if's then block)",
  .exec = exec_jump,
};
