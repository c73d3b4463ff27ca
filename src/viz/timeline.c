/* Recording a timeline: a ts_observer whose callbacks append to growable
 * arrays. The run callback also reads the running actor's current step and
 * slice count from the world (read only), so a piece knows which step and
 * which time slice it belongs to, counted exactly as ts_actor_stats counts. */
#include "viz/timeline.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"

/* Make room for one more element of `size` bytes. Returns 0 or -1. */
static int grow(void **v, size_t *cap, size_t len, size_t size)
{
  if (len < *cap)
    return 0;
  size_t nc = *cap ? *cap * 2 : 256;
  void *nv = realloc(*v, nc * size);
  if (!nv)
    return -1;
  *v = nv;
  *cap = nc;
  return 0;
}

/* Append value to one of tl's arrays, unless recording already stopped: out
 * of memory (failed = FAIL_NOMEM) or past the record limit (FAIL_LIMIT). */
#define PUSH(tl, arr, n, cap, value)                                                  \
  do {                                                                                \
    if ((tl)->failed)                                                                 \
      return;                                                                         \
    if ((tl)->max_records && (tl)->records >= (tl)->max_records) {                    \
      (tl)->failed = FAIL_LIMIT;                                                      \
      return;                                                                         \
    }                                                                                 \
    if (grow((void **)&(tl)->arr, &(tl)->cap, (tl)->n, sizeof *(tl)->arr)) {          \
      (tl)->failed = FAIL_NOMEM;                                                      \
      return;                                                                         \
    }                                                                                 \
    (tl)->arr[(tl)->n++] = (value);                                                   \
    (tl)->records++;                                                                  \
  } while (0)

enum { FAIL_NOMEM = 1, FAIL_LIMIT = 2 };

static void note_time(ts_timeline *tl, ts_time t)
{
  if (t > tl->end)
    tl->end = t;
}

static void on_state(void *data, ts_time t, int actor, int state)
{
  ts_timeline *tl = data;
  note_time(tl, t);
  if (state == TS_ACTOR_RUNNING) {
    if ((size_t)actor >= tl->cap_runs) { /* actors made while running (spawned, sources) */
      size_t cap = tl->cap_runs * 2 > (size_t)actor + 1 ? tl->cap_runs * 2 : (size_t)actor + 1;
      int *v = realloc(tl->runs, cap * sizeof *v);
      if (!v) {
        tl->failed = FAIL_NOMEM;
        return;
      }
      memset(v + tl->cap_runs, 0, (cap - tl->cap_runs) * sizeof *v);
      tl->runs = v;
      tl->cap_runs = cap;
    }
    tl->runs[actor]++;
  }
  const ts_actor *x = tl->world ? ts_world_actor_at(tl->world, actor) : NULL;
  /* a worker past the int16 field (pools of 4096 workers hold more in all) is unknown: -1, not wrapped */
  int16_t worker = x && x->worker >= 0 && x->worker < tl->nworkers && x->worker <= INT16_MAX ? (int16_t)x->worker : -1;
  PUSH(tl, states, nstates, cap_states,
       ((ts_tl_state){.t = t, .actor = actor, .state = (int16_t)state, .worker = worker}));
}

static void on_run(void *data, const ts_run_piece *r)
{
  ts_timeline *tl = data;
  ts_tl_piece p = {.t0 = r->t0, .t1 = r->t1, .worker = r->worker, .actor = r->actor, .step = r->step,
                   .sliced = r->sliced, .state = r->state, .label = r->label ? r->label : "loop"};
  note_time(tl, r->t1);
  if (r->actor >= 0) {
    p.run = tl->runs[r->actor];
    p.slice = r->slice;
  }
  PUSH(tl, pieces, npieces, cap_pieces, p);
}

static void on_counters(void *data, ts_time t, int worker, int depth, int prio)
{
  ts_timeline *tl = data;
  note_time(tl, t);
  PUSH(tl, counters, ncounters, cap_counters,
       ((ts_tl_counter){.t = t, .worker = worker, .queue_depth = depth, .prio_inflight = prio}));
}

static void on_lock(void *data, ts_time t, int actor, int decl, int held)
{
  ts_timeline *tl = data;
  note_time(tl, t);
  PUSH(tl, locks, nlocks, cap_locks, ((ts_tl_lock){.t = t, .actor = actor, .decl = decl, .held = held}));
}

static void on_blocked(void *data, ts_time t, int worker, int actor, int on)
{
  ts_timeline *tl = data;
  note_time(tl, t);
  PUSH(tl, blocks, nblocks, cap_blocks, ((ts_tl_block){.t = t, .worker = worker, .actor = actor, .on = on}));
}

static void on_call(void *data, ts_time t, int actor, int server, int klass, int ev)
{
  ts_timeline *tl = data;
  note_time(tl, t);
  PUSH(tl, calls, ncalls, cap_calls, ((ts_tl_call){.t = t, .actor = actor, .server = server, .klass = klass, .ev = ev}));
}

static void on_wake(void *data, ts_time t, int from, int to)
{
  ts_timeline *tl = data;
  note_time(tl, t);
  PUSH(tl, wakes, nwakes, cap_wakes, ((ts_tl_wake){.t = t, .from = from, .to = to}));
}

/* Stable counting sort of n records of `size` bytes by their actor field
 * (at byte offset `off`) into groups; fills at[0..nactors]. Returns 0 or -1. */
static int group_by_actor(void *v, size_t n, size_t size, size_t off, int nactors, size_t **at)
{
  *at = calloc((size_t)nactors + 2, sizeof **at);
  char *tmp = malloc(n ? n * size : 1);
  if (!*at || !tmp) {
    free(tmp);
    return -1;
  }
  char *base = v;
  for (size_t i = 0; i < n; i++) {
    int a;
    memcpy(&a, base + i * size + off, sizeof a);
    (*at)[a + 2]++;
  }
  for (int a = 0; a < nactors; a++)
    (*at)[a + 2] += (*at)[a + 1];
  /* at[a + 1] is now the first slot of actor a; fill, advancing it */
  for (size_t i = 0; i < n; i++) {
    int a;
    memcpy(&a, base + i * size + off, sizeof a);
    memcpy(tmp + (*at)[a + 1]++ * size, base + i * size, size);
  }
  if (n)
    memcpy(base, tmp, n * size);
  free(tmp);
  return 0;
}

/* tl->call_spans and call_span_at from the call records (time order): a
 * call opens at its queueing (ev 0) and its next admission or end (ev 1, 2)
 * closes the queue wait; an admitted call is in service until the next end
 * that no later admitted call of the actor claims first (a handler's own
 * calls nest inside its caller's service: a stack). Returns 0 or -1. */
static int pair_calls(ts_timeline *tl)
{
  size_t n = (size_t)tl->nactors, none = SIZE_MAX;
  tl->call_span_at = calloc(n + 2, sizeof *tl->call_span_at);
  size_t *open = malloc((n + 1) * sizeof *open), *top = malloc((n + 1) * sizeof *top);
  size_t *below = NULL;
  int rc = -1;
  if (!tl->call_span_at || !open || !top)
    goto done;
  for (size_t i = 0; i < tl->ncalls; i++)
    if (tl->calls[i].ev == 0 && tl->calls[i].actor >= 0 && (size_t)tl->calls[i].actor < n)
      tl->call_span_at[tl->calls[i].actor + 2]++;
  for (size_t a = 0; a < n; a++)
    tl->call_span_at[a + 2] += tl->call_span_at[a + 1];
  tl->ncall_spans = tl->call_span_at[n + 1];
  tl->call_spans = malloc((tl->ncall_spans + 1) * sizeof *tl->call_spans);
  below = malloc((tl->ncall_spans + 1) * sizeof *below); /* the call in service under each (the stack) */
  if (!tl->call_spans || !below)
    goto done;
  for (size_t a = 0; a < n; a++)
    open[a] = top[a] = none;
  for (size_t i = 0; i < tl->ncalls; i++) { /* call_span_at[a + 1]: the next of a's while filling */
    const ts_tl_call *e = &tl->calls[i];
    if (e->actor < 0 || (size_t)e->actor >= n)
      continue;
    size_t a = (size_t)e->actor;
    if (e->ev == 0) {
      open[a] = tl->call_span_at[a + 1]++;
      tl->call_spans[open[a]] = (ts_tl_callspan){e->t, -1, -1, e->server, e->klass};
    } else if (open[a] != none && e->ev == 1) {
      tl->call_spans[open[a]].admitted = e->t;
      below[open[a]] = top[a];
      top[a] = open[a];
      open[a] = none;
    } else if (open[a] != none) { /* refused or timed out in the queue */
      tl->call_spans[open[a]].done = e->t;
      open[a] = none;
    } else if (e->ev == 2 && top[a] != none) {
      tl->call_spans[top[a]].done = e->t;
      top[a] = below[top[a]];
    }
  }
  rc = 0;
done:
  free(open);
  free(top);
  free(below);
  return rc;
}

/* A span's sample: kept when it ended in the measurement window, as the
 * world keeps it for tssim run (ts__span_sample). */
static void on_span(void *data, ts_time t, int span, ts_time duration)
{
  ts_timeline *tl = data;
  if (tl->failed || t < tl->win_t0 || t >= tl->win_t1)
    return;
  if (grow((void **)&tl->span_v[span], &tl->span_cap[span], tl->span_len[span], sizeof **tl->span_v)) {
    tl->failed = FAIL_NOMEM;
    return;
  }
  tl->span_v[span][tl->span_len[span]++] = duration;
}

int ts_timeline_record(ts_timeline *tl, const ts_model *m, int n, int workers, uint64_t seed, ts_time horizon,
                       size_t max_records)
{
  return ts_timeline_record_window(tl, m, n, workers, seed, horizon, 0, 0, max_records);
}

/* ts_timeline_record's status for a world that failed with rc (TS_WORLD_*). */
static int world_failed(int rc)
{
  return rc == TS_WORLD_NOMEM ? -1 : rc == TS_WORLD_MODEL ? -5 : rc == TS_WORLD_HORIZON ? -4 : -3;
}

int ts_timeline_record_window(ts_timeline *tl, const ts_model *m, int n, int workers, uint64_t seed,
                              ts_time horizon, ts_time warmup, ts_time window, size_t max_records)
{
  memset(tl, 0, sizeof *tl);
  tl->win_t0 = warmup;
  tl->win_t1 = window > 0 ? warmup + window : horizon; /* as run/point.c sets the world's */
  tl->span_v = calloc(m->nspans + 1, sizeof *tl->span_v);
  tl->span_len = calloc(m->nspans + 1, sizeof *tl->span_len);
  tl->span_cap = calloc(m->nspans + 1, sizeof *tl->span_cap);
  if (!tl->span_v || !tl->span_len || !tl->span_cap)
    return -1;
  tl->max_records = max_records;
  tl->model = m;
  tl->n = n;
  tl->nworkers = tl->nmain = workers;
  tl->seed = seed;
  tl->horizon = horizon;
  ts_observer obs = {.data = tl, .actor_state = on_state, .run = on_run, .counters = on_counters,
                     .lock = on_lock, .wake = on_wake, .blocked = on_blocked, .call = on_call, .span = on_span};
  ts_world w;
  /* each event records at least one thing, so max_records events bound the run too */
  ts_world_spec ws = {.n = n, .workers = workers, .seed = seed, .horizon = horizon, .win_t0 = 0, .win_t1 = horizon,
                      .max_events = max_records};
  int irc = ts_world_init(&w, m, &ws, &obs);
  if (irc != 0) {
    snprintf(tl->errmsg, sizeof tl->errmsg, "%s", ts_world_strerror(&w, irc));
    ts_world_finish(&w);
    return world_failed(irc);
  }
  tl->nworkers = w.nworkers; /* every pool's */
  tl->nmain = w.nmain;
  tl->worker_pool = malloc((size_t)w.nworkers * sizeof *tl->worker_pool);
  tl->worker_index = malloc((size_t)w.nworkers * sizeof *tl->worker_index);
  if (!tl->worker_pool || !tl->worker_index) {
    ts_world_finish(&w);
    return -1;
  }
  for (int k = 0; k < w.nworkers; k++) {
    tl->worker_pool[k] = w.workers[k].pool;
    tl->worker_index[k] = w.workers[k].index;
  }
  tl->world = &w;
  tl->cap_runs = w.nactors ? (size_t)w.nactors : 1;
  tl->runs = calloc(tl->cap_runs, sizeof *tl->runs);
  int rc = TS_WORLD_NOMEM;
  if (tl->runs) {
    rc = ts_world_run(&w);
    tl->nactors = w.nactors; /* with those made while running */
    tl->stats = calloc(w.nactors ? (size_t)w.nactors : 1, sizeof *tl->stats);
    if (rc != 0 && rc != TS_WORLD_NOMEM && rc != TS_WORLD_BUDGET) {
      if (rc == TS_WORLD_STUCK) {
        tl->stuck = 1;
        ts_world_stuck(&w, tl->errmsg, sizeof tl->errmsg, 4);
      }
      else
        snprintf(tl->errmsg, sizeof tl->errmsg, "%s", ts_world_strerror(&w, rc));
    }
    tl->dropped = calloc(w.nactors ? (size_t)w.nactors : 1, sizeof *tl->dropped);
    for (int a = 0; tl->stats && tl->dropped && a < w.nactors; a++) {
      tl->stats[a] = ts_world_stats(&w, a);
      tl->dropped[a] = ts_world_actor(&w, a)->dropped;
    }
    if (!tl->stats || !tl->dropped)
      tl->failed = FAIL_NOMEM;
    tl->mutex_wait = calloc(m->nlocks + 1, sizeof *tl->mutex_wait);
    if (tl->mutex_wait)
      for (size_t d = 0; d < m->nlocks; d++)
        tl->mutex_wait[d] = w.mutex_wait_by_lock[d];
    tl->mutex_contended = w.mutex_contended;
    tl->lock_stat = calloc(m->nlocks + 1, sizeof *tl->lock_stat);
    tl->site_stat = calloc(m->nsites + 1, sizeof *tl->site_stat);
    if (tl->lock_stat && tl->site_stat) {
      memcpy(tl->lock_stat, w.lock_stat, m->nlocks * sizeof *tl->lock_stat);
      memcpy(tl->site_stat, w.site_stat, m->nsites * sizeof *tl->site_stat);
    } else {
      tl->failed = FAIL_NOMEM;
    }
    ts_time now = w.sim.now, end = tl->win_t1 < now ? tl->win_t1 : now; /* ts_world_window's */
    /* a run the horizon stopped (events left beyond it, or arrivals past it) ends there, not at its last event */
    if (rc == 0 && horizon != TS_TIME_MAX && (now >= horizon || w.arrivals_cut) && horizon > tl->end)
      tl->end = horizon;
    tl->win_len = end > tl->win_t0 ? end - tl->win_t0 : 0;
    tl->win_missed = tl->win_t0 > 0 && now <= tl->win_t0;
  }
  ts_world_finish(&w);
  tl->world = NULL;
  free(tl->runs);
  tl->runs = NULL;
  if (tl->failed == FAIL_LIMIT || rc == TS_WORLD_BUDGET)
    return -6;
  if (tl->failed || rc == TS_WORLD_NOMEM)
    return -1;
  if (rc == TS_WORLD_INTERNAL || rc == TS_WORLD_HORIZON || rc == TS_WORLD_MODEL)
    return world_failed(rc);
  if (group_by_actor(tl->states, tl->nstates, sizeof *tl->states, offsetof(ts_tl_state, actor), tl->nactors,
                     &tl->state_at) ||
      group_by_actor(tl->locks, tl->nlocks, sizeof *tl->locks, offsetof(ts_tl_lock, actor), tl->nactors,
                     &tl->lock_at) ||
      pair_calls(tl))
    return -1;
  return rc == TS_WORLD_STUCK ? -2 : 0;
}

const char *ts_timeline_strerror(const ts_timeline *tl, int rc)
{
  switch (rc) {
  case -1: return "out of memory recording the timeline";
  case -2:
  case -3:
  case -5: return tl->errmsg[0] ? tl->errmsg : "internal error";
  case -4: return "simulated time would pass 73 years (fewer actors or shorter steps)";
  case -6: return "the point records more events than the limit";
  default: return "ok";
  }
}

const char *ts_timeline_worker_name(const ts_timeline *tl, int w, char *buf, size_t cap)
{
  int p = tl->worker_pool ? tl->worker_pool[w] : 0;
  if (p == 0)
    snprintf(buf, cap, "worker %d", w);
  else
    snprintf(buf, cap, "%s %d", tl->model->pools[p].name, tl->worker_index[w]);
  return buf;
}

const char *ts_timeline_actor_name(const ts_timeline *tl, int a, char *buf, size_t cap)
{
  if (tl->model->nclasses > 1)
    snprintf(buf, cap, "actor %d (%s)", a, tl->model->classes[tl->stats[a].klass].name);
  else
    snprintf(buf, cap, "actor %d", a);
  return buf;
}

int ts_timeline_worker_is_thread(const ts_timeline *tl, int w)
{
  return tl->model->pools[tl->worker_pool ? tl->worker_pool[w] : 0].kind == TS_WORKER_THREAD;
}

void ts_timeline_finish(ts_timeline *tl)
{
  free(tl->worker_pool);
  free(tl->worker_index);
  free(tl->stats);
  free(tl->dropped);
  free(tl->pieces);
  free(tl->states);
  free(tl->state_at);
  free(tl->counters);
  free(tl->locks);
  free(tl->lock_at);
  free(tl->wakes);
  free(tl->blocks);
  free(tl->calls);
  free(tl->call_spans);
  free(tl->call_span_at);
  free(tl->mutex_wait);
  free(tl->lock_stat);
  free(tl->site_stat);
  for (size_t s = 0; tl->span_v && tl->model && s < tl->model->nspans; s++)
    free(tl->span_v[s]);
  free(tl->span_v);
  free(tl->span_len);
  free(tl->span_cap);
  free(tl->runs);
  memset(tl, 0, sizeof *tl);
}

const char *ts_timeline_state_name(int state)
{
  return ts_state_get(state)->name;
}

int ts_timeline_entry_on_thread(const ts_timeline *tl, const ts_tl_state *e)
{
  int w = e->worker >= 0 && e->worker < tl->nworkers ? e->worker : tl->stats[e->actor].worker;
  return ts_timeline_worker_is_thread(tl, w);
}

const char *ts_timeline_entry_state_name(const ts_timeline *tl, const ts_tl_state *e)
{
  const ts_state_info *info = ts_state_get(e->state);
  return info->thread_name && ts_timeline_entry_on_thread(tl, e) ? info->thread_name : info->name;
}

ts_time ts_timeline_call_queue_end(const ts_timeline *tl, const ts_tl_callspan *c)
{
  return c->admitted >= 0 ? c->admitted : c->done >= 0 ? c->done : tl->end;
}

void ts_timeline_call_wait_parts(const ts_timeline *tl, int a, size_t *k, ts_time t0, ts_time t1,
                                 ts_tl_call_part_fn fn, void *data)
{
  size_t hi = tl->call_span_at ? tl->call_span_at[a + 1] : 0;
  while (*k < hi && ts_timeline_call_queue_end(tl, &tl->call_spans[*k]) <= t0)
    (*k)++;
  ts_time at = t0;
  for (size_t j = *k; j < hi && tl->call_spans[j].queued < t1; j++) {
    const ts_tl_callspan *c = &tl->call_spans[j];
    ts_time end = ts_timeline_call_queue_end(tl, c);
    ts_time lo = c->queued > at ? c->queued : at, up = end < t1 ? end : t1;
    if (lo >= up)
      continue;
    if (lo > at)
      fn(data, NULL, at, lo);
    fn(data, c, lo, up);
    at = up;
  }
  if (at < t1)
    fn(data, NULL, at, t1);
}

void ts_timeline_call_part_add(void *data, const ts_tl_callspan *c, ts_time t0, ts_time t1)
{
  ((ts_time *)data)[c ? 0 : 1] += t1 - t0;
}

static ts_time overlap(ts_time a0, ts_time a1, ts_time b0, ts_time b1)
{
  ts_time lo = a0 > b0 ? a0 : b0, hi = a1 < b1 ? a1 : b1;
  return hi > lo ? hi - lo : 0;
}

/* Time within [s0, s1) during which actor a held at least one lock. */
static ts_time held_within(const ts_timeline *tl, int a, ts_time s0, ts_time s1)
{
  ts_time total = 0, since = 0;
  int held = 0;
  for (size_t i = tl->lock_at[a]; i < tl->lock_at[a + 1]; i++) {
    const ts_tl_lock *l = &tl->locks[i];
    if (l->held && held++ == 0)
      since = l->t;
    else if (!l->held && held > 0 && --held == 0)
      total += overlap(since, l->t, s0, s1);
  }
  if (held > 0)
    total += overlap(since, tl->end, s0, s1);
  return total;
}

void ts_timeline_state_times(const ts_timeline *tl, int a, ts_time t0, ts_time t1, int lock_only, ts_time *out)
{
  size_t lo = tl->state_at[a], hi = tl->state_at[a + 1];
  ts_time prev_t = 0;
  int prev = TS_ACTOR_NEW;
  for (size_t i = lo; i <= hi; i++) {
    ts_time t = i < hi ? tl->states[i].t : tl->end;
    ts_time s0 = prev_t > t0 ? prev_t : t0, s1 = t < t1 ? t : t1;
    if (s1 > s0)
      out[prev] += lock_only ? held_within(tl, a, s0, s1) : s1 - s0;
    if (i < hi) {
      prev_t = t;
      prev = tl->states[i].state;
    }
  }
}
