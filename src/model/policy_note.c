/* Queue policies that can never reorder anything as the model is written
 * (a valid model, so a note, not an error).
 *
 * An event loop's policy orders only its time-slice queue, which an actor
 * enters only by yielding (a "yield" step, or a sliced "cpu" step past the
 * threshold: worker.c queue_push, from op_yield.c and cpu.c); arrivals and
 * wakeups are timers and I/O callbacks run in arrival order. A server's
 * policy orders its calls by the call's "class" (op_call.c request), never
 * by the caller's queue_class, and by the call's declared work (program_json.c:
 * work_ms, else the handler's fixed cpu). */
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "model/op.h"

/* Whether the policy orders by priority class (else fifo or shortest_first). */
static int by_class(const ts_sched_type *p)
{
  return p != &ts_sched_fifo && p != &ts_sched_shortest_first;
}

int ts_model_some_step_yields(const ts_model *m)
{
  for (size_t c = 0; c < m->nclasses; c++)
    for (size_t i = 0; i < m->classes[c].nsteps; i++) {
      const ts_step *s = &m->classes[c].steps[i];
      if (s->type == &ts_op_yield || (s->type == &ts_op_cpu && s->sliced))
        return 1;
    }
  return 0;
}

/* The one priority class every actor and every call of m has, or -1 when
 * there are several. */
static int only_class(const ts_model *m)
{
  int seen = -1;
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    if (seen >= 0 && k->sched_class != seen)
      return -1;
    seen = k->sched_class;
    for (size_t i = 0; i < k->nsteps; i++)
      if (k->steps[i].type == &ts_op_call && k->steps[i].klass != seen)
        return -1;
  }
  return seen;
}

static void pool_path(const ts_model *m, size_t p, char *out, size_t cap)
{
  (void)m;
  if (p == 0)
    snprintf(out, cap, "worker");
  else
    snprintf(out, cap, "pools[%zu]", p - 1);
}

static int pool_note(const ts_model *m, size_t p, int yields, int klass, char *out, size_t cap)
{
  const ts_pool *pl = &m->pools[p];
  if (pl->kind != TS_WORKER_EVENT_LOOP || pl->policy == &ts_sched_fifo || pl->preempt)
    return 0;
  char path[32];
  pool_path(m, p, path, sizeof path);
  if (!yields) {
    snprintf(out, cap,
             "%s.policy %s never reorders anything here: on an event loop a policy orders only the time-slice queue, "
             "which an actor enters only by yielding, and no step yields (no \"yield\" step, no sliced \"cpu\"), so "
             "arrivals and wakeups run first come first served; for non-preemptive priority put {\"op\": \"yield\"} "
             "before the work, for preemptive resume set %s.preempt true",
             path, pl->policy->name, path);
    return 1;
  }
  if (klass >= 0 && by_class(pl->policy)) {
    snprintf(out, cap,
             "%s.policy %s never reorders anything here: it orders by priority class, and every actor and call has "
             "class %s; give the classes to prioritise another \"queue_class\" (or a call another \"class\")",
             path, pl->policy->name, ts_sched_class_names[klass]);
    return 1;
  }
  return 0;
}

/* The first call step to server sv of a class whose queue_class differs
 * from the call's class (that class in *klass), or NULL. */
static const ts_step *call_unlike_caller(const ts_model *m, int sv, int *klass)
{
  for (size_t c = 0; c < m->nclasses; c++)
    for (size_t i = 0; i < m->classes[c].nsteps; i++) {
      const ts_step *s = &m->classes[c].steps[i];
      if (s->type == &ts_op_call && s->ref == sv && s->klass != m->classes[c].sched_class) {
        *klass = m->classes[c].sched_class;
        return s;
      }
    }
  return NULL;
}

static int server_note(const ts_model *m, int sv, char *out, size_t cap)
{
  const ts_server_decl *d = &m->servers[sv];
  if (d->policy == &ts_sched_fifo)
    return 0;
  int klass = -1, calls = 0;
  int64_t work = -1;
  int one_class = 1, one_work = 1;
  for (size_t c = 0; c < m->nclasses; c++)
    for (size_t i = 0; i < m->classes[c].nsteps; i++) {
      const ts_step *s = &m->classes[c].steps[i];
      if (s->type != &ts_op_call || s->ref != sv)
        continue;
      one_class &= !calls || s->klass == klass;
      one_work &= !calls || s->work == work;
      klass = s->klass;
      work = s->work;
      calls++;
    }
  if (calls == 0)
    return 0;
  if (by_class(d->policy) && one_class) {
    int caller = 0;
    const ts_step *s = call_unlike_caller(m, sv, &caller);
    int n = snprintf(out, cap,
                     "servers[%d].policy %s never reorders anything here: a server orders its calls by the call "
                     "step's \"class\" (normal when not given), not by the caller's queue_class, and every call to "
                     "\"%s\" has class %s; to serve by class set \"class\" on the call steps",
                     sv, d->policy->name, d->name, ts_sched_class_names[klass]);
    if (s && n > 0 && (size_t)n < cap)
      snprintf(out + n, cap - (size_t)n, ", e.g. %s.class \"%s\" (its class's queue_class)", s->where,
               ts_sched_class_names[caller]);
    return 1;
  }
  if (d->policy == &ts_sched_shortest_first && one_work) {
    snprintf(out, cap,
             "servers[%d].policy shortest_first never reorders anything here: it orders calls by their declared "
             "work (work_ms, else the handler's fixed cpu ms), and every call to \"%s\" declares %g ms; set "
             "\"work_ms\" on the call steps",
             sv, d->name, ts_time_to_ms(work));
    return 1;
  }
  return 0;
}

int ts_model_policy_note(const ts_model *m, char *out, size_t cap)
{
  int yields = ts_model_some_step_yields(m), klass = only_class(m);
  for (size_t p = 0; p < m->npools; p++)
    if (pool_note(m, p, yields, klass, out, cap))
      return 1;
  for (size_t s = 0; s < m->nservers; s++)
    if (server_note(m, (int)s, out, cap))
      return 1;
  return 0;
}
