/* spawn: start a new task, compiled from
 *   {"op": "spawn", "steps": [...]}
 * into spawn (jump = after the block) block... exit. exit is also a step of
 * its own, {"op": "exit"}: the actor's program (a task: the task) ends there,
 * releasing what it holds as the program's end would. The new task is an
 * actor of the spawner's class (hidden from its statistics) with the
 * spawner's index and loop iterations, on the spawner's worker; it runs the
 * block as a callback and ends at exit. The spawner goes on at once. A task
 * spawned by a task belongs to the same root actor: its actor-scoped locks
 * and channels are the root's, and its random stream is the root's k-th
 * spawn's. */
#include "model/internal.h"
#include "model/spec.h"

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
  .structured = "spawn",
  .summary = "start a task running a block of steps; the spawner goes on",
  .exec = exec_spawn,
};

static const char *const no_keys[] = {NULL};

static int load_exit(ts_spec *sp, ts_step *s)
{
  (void)sp;
  (void)s;
  return 0;
}

const ts_op_type ts_op_exit = {
  .name = "exit",
  .keys = no_keys,
  .summary = "end the actor's program here (a task: the task), releasing what it holds",
  .load = load_exit,
  .exec = exec_exit,
};
