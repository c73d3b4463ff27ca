/* set: give one of the actor's variables (its class's "vars") a new value.
 *   {"op": "set", "var": NAME, "value": EXPR}
 * The value is evaluated now, for this actor; a spawned task or a child
 * starts with a copy of its parent's variables. */
#include <math.h>

#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"var", "value", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  return ts_spec_ref(sp, "var", 1, TS_REF_VAR, &s->ref) || ts_spec_expr(sp, "value", 1, &s->expr) ? -1 : 0;
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  double v = ts__eval(w, a, s->expr);
  if (!isfinite(v) || fabs(v) > 1e15) {
    char num[TS_EXPR_NUM];
    ts__fail(w, s, "value \"%s\" is %s for actor %d (class %s, i = %d): expected a number in [-1e15, 1e15]",
             ts_expr_text(s->expr), ts_expr_value_text(num, sizeof num, v, ""), a->id, w->model->classes[a->klass].name,
             a->index);
    return TS_OP_FREE;
  }
  ts__x(w, a)->vars[s->ref] = v;
  ts__lets_forget_var(w, a, s->ref);
  return TS_OP_NEXT;
}

const ts_op_type ts_op_set = {
  .name = "set",
  .keys = keys,
  .summary = "give one of the actor's variables (its class's vars) a value",
  .load = load,
  .exec = exec,
};
