/* spawn: start a new task, compiled from
 *   {"op": "spawn", "steps": [...]}
 * into spawn (jump = after the block) block... exit. The new task is an
 * actor of the spawner's class (hidden from its statistics) with the
 * spawner's index and loop iterations, on the spawner's worker; it runs the
 * block as a callback and ends at exit. The spawner goes on at once. A task
 * spawned by a task belongs to the same root actor: its actor-scoped locks
 * and channels are the root's, and its random stream is the root's k-th
 * spawn's. */
#include "model/internal.h"

static int exec_spawn(ts_world *w, ts_actor *a, const ts_step *s)
{
  ts_actor *child = ts__actor_spawn(w, a);
  if (!child)
    return TS_OP_FREE;
  child->pc = a->pc + 1;
  ts__actor_arrive(w, child);
  a->pc = s->jump;
  return TS_OP_GOTO;
}

static int exec_exit(ts_world *w, ts_actor *a, const ts_step *s)
{
  (void)s;
  a->pc = (int)w->model->classes[a->klass].nsteps;
  return TS_OP_GOTO;
}

const ts_op_type ts_op_spawn = {
  .name = NULL,
  .summary = "start a task running a block of steps; the spawner goes on",
  .exec = exec_spawn,
};

const ts_op_type ts_op_exit = {
  .name = NULL,
  .summary = "end the task",
  .exec = exec_exit,
};
