/* add: change a declared counter, which expressions can read.
 *   {"op": "add", "counter": NAME, "value": EXPR}   value defaults to 1 */
#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"counter", "value", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  if (ts_spec_ref(sp, "counter", 1, TS_REF_COUNTER, &s->ref))
    return -1;
  if (!ts_spec_has(sp, "value")) {
    s->expr = ts_expr_constant(1);
    return s->expr ? 0 : ts_spec_fail(sp, NULL, "out of memory");
  }
  return ts_spec_expr(sp, "value", 1, &s->expr);
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  w->counters[s->ref] += ts__eval(w, a, s->expr);
  w->let_epoch++; /* lets that read counters are evaluated anew */
  return TS_OP_NEXT;
}

const ts_op_type ts_op_add = {
  .name = "add",
  .keys = keys,
  .summary = "add a value (default 1) to a declared counter",
  .load = load,
  .exec = exec,
};
