/* Step ops: one const table, like Lua's opcodes or GSL's rng types. An op is
 * one file (src/model/op_<name>.c) holding its ts_op_type, plus one line in
 * op.c's table. The type says which JSON keys the op takes, how to load them
 * (through the ts_spec reader of spec.h, which hides JSON) and how to run it.
 *
 * Running. An actor runs the op at its pc while it holds the CPU; exec is a
 * small state machine over the actor's `sub` (0 when the step begins) and
 * returns what happened:
 *   TS_OP_NEXT  the step is done: the actor goes on with the next one;
 *   TS_OP_GOTO  exec set a->pc: the actor goes on there;
 *   TS_OP_BUSY  the worker is busy (exec began a CPU segment with
 *               ts__cpu_begin, or the worker pays an overhead after the actor
 *               left); when the actor's segment ends, exec runs again with
 *               the same sub;
 *   TS_OP_FREE  the actor left the CPU (queued, waiting, blocked) and the
 *               worker is free; when the actor next gets the CPU, exec runs
 *               again with the sub it set before leaving;
 *   TS_OP_SWITCH the actor handed its worker's CPU to the worker's actor (a
 *               task polling its child, a child handing back: op_future.c);
 *               the interpreter goes on with that one, at its pc and sub.
 * Structured JSON steps (repeat, if, call) are compiled by the loader into
 * the begin/end ops at the end of the table. */
#ifndef TS_OP_H
#define TS_OP_H
#include "model/model.h"

typedef struct ts_world ts_world;
typedef struct ts_actor ts_actor;
typedef struct ts_spec ts_spec;

enum { TS_OP_NEXT, TS_OP_GOTO, TS_OP_BUSY, TS_OP_FREE, TS_OP_SWITCH };

struct ts_op_type {
  const char *name;           /* as written in JSON "op"; NULL for compiled-only ops */
  const char *structured;     /* a compiled op that begins a structured step: that step's "op" ("repeat", ...) */
  const char *const *keys;    /* the JSON keys it takes besides op, label and note; NULL-terminated */
  const char *summary;        /* one line for --help and the docs */
  /* Read the step's fields from sp into s. Returns 0, or -1 after ts_spec_fail. */
  int (*load)(ts_spec *sp, ts_step *s);
  /* Run the step for actor a (see above). */
  int (*exec)(ts_world *w, ts_actor *a, const ts_step *s);
};

extern const ts_op_type ts_op_cpu, ts_op_io, ts_op_yield, ts_op_lock, ts_op_unlock, ts_op_mark, ts_op_sleep,
    ts_op_span_begin, ts_op_span_end, ts_op_wait, ts_op_notify, ts_op_hop, ts_op_add, ts_op_register, ts_op_pending,
    ts_op_poll_children, ts_op_set, ts_op_exit;
/* compiled from structured steps */
extern const ts_op_type ts_op_repeat, ts_op_repeat_end, ts_op_if, ts_op_jump, ts_op_call, ts_op_call_end,
    ts_op_spawn, ts_op_child;

/* Load the "timeout" key of a lock, wait or call (a duration object, see
 * ts_spec_dist_object) into s->limit and s->limited. Returns 0 or -1. */
int ts_op_load_timeout(ts_spec *sp, ts_step *s);

/* The op a JSON step names ("cpu", ...), or NULL. Structured ops are not here. */
const ts_op_type *ts_op_find(const char *name);
/* The NULL-terminated table of ops a JSON step may name. */
const ts_op_type *const *ts_op_all(void);

#endif
