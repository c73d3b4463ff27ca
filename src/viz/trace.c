/* Building the trace-event tree. Worker pieces are grouped into run periods
 * in one pass: a run period is the maximal sequence of consecutive pieces on
 * one worker with the same (actor, run). */
#include "viz/trace.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


typedef struct builder {
  const ts_timeline *tl;
  cJSON *events;
  int failed;
  long next_id;
} builder;

static double us(ts_time t)
{
  return (double)t / 1000.0;
}

/* Thread ids are unique across processes, as Perfetto expects: worker w's
 * loop is tid w + 1 (its process's main thread), actor a is tid nworkers + a + 1. */
static int actor_pid(const ts_timeline *tl, int a)
{
  return tl->stats[a].worker + 1;
}

static int actor_tid(const ts_timeline *tl, int a)
{
  return tl->nworkers + a + 1;
}

static void num(builder *b, cJSON *o, const char *key, double v)
{
  if (!o || !cJSON_AddNumberToObject(o, key, v))
    b->failed = 1;
}

static void str(builder *b, cJSON *o, const char *key, const char *v)
{
  if (!o || !cJSON_AddStringToObject(o, key, v))
    b->failed = 1;
}

/* A new event {name, cat, ph, pid, tid, ts} appended to the list, or NULL. */
static cJSON *event(builder *b, const char *ph, const char *name, const char *cat, int pid, int tid, ts_time t)
{
  cJSON *o = cJSON_CreateObject();
  if (!o || !cJSON_AddItemToArray(b->events, o)) {
    cJSON_Delete(o);
    b->failed = 1;
    return NULL;
  }
  str(b, o, "name", name);
  if (cat)
    str(b, o, "cat", cat);
  str(b, o, "ph", ph);
  num(b, o, "pid", pid);
  num(b, o, "tid", tid);
  num(b, o, "ts", us(t));
  return o;
}

static cJSON *complete(builder *b, const char *name, const char *cat, int pid, int tid, ts_time t0, ts_time t1)
{
  cJSON *o = event(b, "X", name, cat, pid, tid, t0);
  num(b, o, "dur", us(t1) - us(t0));
  return o;
}

static cJSON *args(builder *b, cJSON *o)
{
  cJSON *a = o ? cJSON_AddObjectToObject(o, "args") : NULL;
  if (!a)
    b->failed = 1;
  return a;
}

static void metadata(builder *b, const char *what, int pid, int tid, const char *name, int sort)
{
  char key[32];
  cJSON *o = event(b, "M", what, NULL, pid, tid, 0);
  str(b, args(b, o), "name", name);
  snprintf(key, sizeof key, "%s_sort_index", strncmp(what, "process", 7) == 0 ? "process" : "thread");
  o = event(b, "M", key, NULL, pid, tid, 0);
  num(b, args(b, o), "sort_index", sort);
}

static void names(builder *b)
{
  const ts_timeline *tl = b->tl;
  char buf[160];
  for (int w = 0; w < tl->nworkers; w++) {
    metadata(b, "process_name", w + 1, w + 1, ts_timeline_worker_name(tl, w, buf, sizeof buf), w);
    metadata(b, "thread_name", w + 1, w + 1, ts_timeline_worker_is_thread(tl, w) ? "thread (CPU)" : "event loop (CPU)",
             -1);
  }
  for (int a = 0; a < tl->nactors; a++) {
    char name[128];
    ts_timeline_actor_name(tl, a, name, sizeof name);
    snprintf(buf, sizeof buf, "%s: %s", name, tl->model->classes[tl->stats[a].klass].name);
    metadata(b, "thread_name", actor_pid(tl, a), actor_tid(tl, a), tl->model->nclasses > 1 ? name : buf, a);
  }
}

typedef struct open_run {
  size_t first;   /* first piece, or SIZE_MAX when none is open */
  ts_time t0, t1;
  int64_t slice;
  int pieces;
} open_run;

static void flush_run(builder *b, open_run *r)
{
  if (r->first == SIZE_MAX)
    return;
  const ts_timeline *tl = b->tl;
  const ts_tl_piece *p = &tl->pieces[r->first];
  char name[128];
  ts_timeline_actor_name(tl, p->actor, name, sizeof name);
  cJSON *a = args(b, complete(b, name, "run", p->worker + 1, p->worker + 1, r->t0, r->t1));
  num(b, a, "actor", p->actor);
  str(b, a, "class", tl->model->classes[tl->stats[p->actor].klass].name);
  num(b, a, "run", p->run);
  if (r->slice > 0)
    num(b, a, "slice", (double)r->slice);
  num(b, a, "pieces", r->pieces);
  r->first = SIZE_MAX;
}

static void worker_tracks(builder *b)
{
  const ts_timeline *tl = b->tl;
  open_run *open = malloc((size_t)tl->nworkers * sizeof *open);
  if (!open) {
    b->failed = 1;
    return;
  }
  for (int w = 0; w < tl->nworkers; w++)
    open[w].first = SIZE_MAX;
  for (size_t i = 0; i < tl->npieces && !b->failed; i++) {
    const ts_tl_piece *p = &tl->pieces[i];
    open_run *r = &open[p->worker];
    if (p->actor < 0) {
      flush_run(b, r);
      complete(b, "loop overhead", "loop", p->worker + 1, p->worker + 1, p->t0, p->t1);
      continue;
    }
    if (r->first != SIZE_MAX) {
      const ts_tl_piece *q = &tl->pieces[r->first];
      if (q->actor != p->actor || q->run != p->run)
        flush_run(b, r);
    }
    if (r->first == SIZE_MAX)
      *r = (open_run){.first = i, .t0 = p->t0};
    r->t1 = p->t1;
    r->pieces++;
    if (p->slice > r->slice)
      r->slice = p->slice;
    cJSON *a = args(b, complete(b, p->label, "step", p->worker + 1, p->worker + 1, p->t0, p->t1));
    num(b, a, "actor", p->actor);
    num(b, a, "step", p->step);
    if (p->slice > 0)
      num(b, a, "slice", (double)p->slice);
    if (p->sliced)
      num(b, a, "sliced", 1);
  }
  for (int w = 0; w < tl->nworkers; w++)
    flush_run(b, &open[w]);
  free(open);
}

static void flow(builder *b, const char *name, int pid0, int tid0, ts_time t0, int pid1, int tid1, ts_time t1)
{
  long id = ++b->next_id;
  cJSON *s = event(b, "s", name, "flow", pid0, tid0, t0);
  num(b, s, "id", (double)id);
  cJSON *f = event(b, "f", name, "flow", pid1, tid1, t1);
  num(b, f, "id", (double)id);
  str(b, f, "bp", "e");
}

/* Where a part of a wait for a reply goes: an actor's track. */
typedef struct track {
  builder *b;
  int pid, tid;
} track;

/* A part of a wait for a reply (ts_timeline_call_wait_parts) as a slice of
 * its own on the track (data): the wait in a server's queue, named by the
 * server, or the request and reply legs. */
static void call_part(void *data, const ts_tl_callspan *c, ts_time t0, ts_time t1)
{
  track *k = data;
  cJSON *o = complete(k->b, c ? TS_TL_CALL_QUEUED : TS_TL_CALL_LEGS, "state", k->pid, k->tid, t0, t1);
  if (c)
    str(k->b, args(k->b, o), "server", k->b->tl->model->servers[c->server].name);
}

static void actor_states(builder *b, int a)
{
  const ts_timeline *tl = b->tl;
  int pid = actor_pid(tl, a), tid = actor_tid(tl, a);
  size_t lo = tl->state_at[a], hi = tl->state_at[a + 1], k = tl->call_span_at[a];
  track tr = {b, pid, tid};
  for (size_t i = lo; i < hi && !b->failed; i++) {
    const ts_tl_state *s = &tl->states[i];
    if (s->state == TS_ACTOR_DONE) { /* a dropped actor is done at its arrival: say which */
      cJSON *o = event(b, "i", tl->dropped[a] ? "dropped" : "done", "state", pid, tid, s->t);
      str(b, o, "s", "t");
      continue;
    }
    ts_time t1 = i + 1 < hi ? tl->states[i + 1].t : tl->end;
    if (t1 > s->t && s->state == TS_ACTOR_CALL_WAIT && tl->ncall_spans > 0) /* split by the calls */
      ts_timeline_call_wait_parts(tl, a, &k, s->t, t1, call_part, &tr);
    else if (t1 > s->t)
      complete(b, ts_timeline_entry_state_name(tl, s), "state", pid, tid, s->t, t1);
    /* an I/O completion: arrow to the run of its callback on the loop */
    if (s->state == TS_ACTOR_READY && i > lo && tl->states[i - 1].state == TS_ACTOR_IO && i + 1 < hi &&
        tl->states[i + 1].state == TS_ACTOR_RUNNING) {
      ts_time run0 = tl->states[i + 1].t, run1 = i + 2 < hi ? tl->states[i + 2].t : tl->end;
      if (run1 > run0)
        flow(b, "I/O done: callback", pid, tid, s->t, pid, pid, run0);
    }
  }
}

static void actor_locks(builder *b, int a)
{
  const ts_timeline *tl = b->tl;
  int pid = actor_pid(tl, a), tid = actor_tid(tl, a);
  long open[64] = {0};
  for (size_t i = tl->lock_at[a]; i < tl->lock_at[a + 1] && !b->failed; i++) {
    const ts_tl_lock *l = &tl->locks[i];
    char name[160];
    snprintf(name, sizeof name, "holds %s", tl->model->locks[l->decl].name);
    if (l->held)
      open[l->decl] = ++b->next_id;
    cJSON *o = event(b, l->held ? "b" : "e", name, "lock", pid, tid, l->t);
    num(b, o, "id", (double)open[l->decl]);
    if (!l->held)
      open[l->decl] = 0;
  }
  for (size_t d = 0; d < tl->model->nlocks && d < 64; d++)
    if (open[d]) {
      char name[160];
      snprintf(name, sizeof name, "holds %s", tl->model->locks[d].name);
      num(b, event(b, "e", name, "lock", pid, tid, tl->end), "id", (double)open[d]);
    }
}

static void wakes(builder *b)
{
  const ts_timeline *tl = b->tl;
  for (size_t i = 0; i < tl->nwakes && !b->failed; i++) {
    const ts_tl_wake *k = &tl->wakes[i];
    flow(b, "wake", actor_pid(tl, k->from), actor_tid(tl, k->from), k->t, actor_pid(tl, k->to),
         actor_tid(tl, k->to), k->t);
  }
}

static void counters(builder *b)
{
  const ts_timeline *tl = b->tl;
  int *last = malloc((size_t)tl->nworkers * 2 * sizeof *last);
  if (!last) {
    b->failed = 1;
    return;
  }
  for (int w = 0; w < 2 * tl->nworkers; w++)
    last[w] = -1;
  for (size_t i = 0; i < tl->ncounters && !b->failed; i++) {
    const ts_tl_counter *c = &tl->counters[i];
    int *q = &last[2 * c->worker], *p = &last[2 * c->worker + 1];
    if (c->queue_depth != *q)
      num(b, args(b, event(b, "C", "time-slice queue", NULL, c->worker + 1, c->worker + 1, c->t)), "queued actors",
          c->queue_depth);
    if (c->prio_inflight != *p)
      num(b, args(b, event(b, "C", "priority ops in flight", NULL, c->worker + 1, c->worker + 1, c->t)), "in flight",
          c->prio_inflight);
    *q = c->queue_depth;
    *p = c->prio_inflight;
  }
  free(last);
}

static void other_data(builder *b, cJSON *root, const ts_trace_info *info)
{
  const ts_timeline *tl = b->tl;
  cJSON *o = cJSON_AddObjectToObject(root, "otherData");
  if (!o) {
    b->failed = 1;
    return;
  }
  str(b, o, "generator", "tssim " TSSIM_VERSION);
  if (info && info->scenario)
    str(b, o, "scenario", info->scenario);
  if (info && info->model_file)
    str(b, o, "model_file", info->model_file);
  str(b, o, "model", tl->model->name);
  num(b, o, "n", tl->n);
  num(b, o, "workers", tl->nmain);
  if (tl->nworkers > tl->nmain)
    num(b, o, "pool_workers", tl->nworkers - tl->nmain);
  num(b, o, "actors", tl->nactors);
  num(b, o, "seed", (double)tl->seed);
  str(b, o, "time_unit", "ts and dur in microseconds of simulated time");
}

cJSON *ts_trace_build(const ts_timeline *tl, const ts_trace_info *info)
{
  builder b = {.tl = tl};
  cJSON *root = cJSON_CreateObject();
  b.events = root ? cJSON_AddArrayToObject(root, "traceEvents") : NULL;
  if (!b.events) {
    cJSON_Delete(root);
    return NULL;
  }
  names(&b);
  worker_tracks(&b);
  for (int a = 0; a < tl->nactors && !b.failed; a++) {
    actor_states(&b, a);
    actor_locks(&b, a);
  }
  wakes(&b);
  counters(&b);
  str(&b, root, "displayTimeUnit", "ms");
  other_data(&b, root, info);
  if (b.failed) {
    cJSON_Delete(root);
    return NULL;
  }
  return root;
}
