/* Actors: the step-program interpreter and the per-actor measurements. An
 * actor runs the ops of its program while it holds the CPU (op.h gives the
 * protocol); ts__actor_continue returns when the worker is busy or the actor
 * left the CPU. */
#include "model/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Ops run at one instant by one world before it is declared a livelock (a
 * loop whose body takes no time). */
#define LIVELOCK_OPS UINT64_C(50000000)

void ts__actor_set_state(ts_world *w, ts_actor *a, int s)
{
  ts_time now = w->sim.now;
  ts_time dt = now - a->state_since;
  a->st.state[a->state] += dt;
  if (!a->hidden || a->state != TS_ACTOR_NEW)
    w->win_state[a->state] += (double)ts__clip(w, a->state_since, now);
  a->state = (uint8_t)s;
  a->state_since = now;
  if (w->obs && w->obs->actor_state)
    w->obs->actor_state(w->obs->data, now, a->id, s);
}

int ts__actor_rng(ts_world *w, ts_actor *a)
{
  if (a->rng)
    return 0;
  /* spawned: the parent's coordinates and the spawn's ordinal among the parent's */
  a->rng = ts_rng_create_small(ts_rng_derive_stream(w->seed, a->klass, a->index, a->spawn_k));
  if (!a->rng) {
    ts__world_nomem(w);
    return -1;
  }
  return 0;
}

ts_time ts__draw(ts_world *w, ts_actor *a, const ts_dist *d)
{
  double mean = (double)d->mean, v;
  if (d->mean_ms) {
    double ms = ts__eval(w, a, d->mean_ms);
    if (!(ms >= 0) || ms * TS_NS_PER_MS > (double)TS_DRAW_MAX) {
      ts__fail(w, &w->model->classes[a->klass].steps[a->pc], "duration \"%s\" is %g ms for actor %d: expected [0, %g]",
               ts_expr_text(d->mean_ms), ms, a->id, (double)TS_DRAW_MAX / TS_NS_PER_MS);
      return 0;
    }
    mean = ms * TS_NS_PER_MS;
  }
  if (d->kind == TS_DIST_FIXED)
    return (ts_time)llround(mean);
  if (ts__actor_rng(w, a))
    return 0;
  switch (d->kind) {
  case TS_DIST_EXPONENTIAL: v = ts_rng_exponential(a->rng, mean); break;
  case TS_DIST_LOGNORMAL: v = ts_rng_lognormal(a->rng, mean, d->cv); break;
  case TS_DIST_GAMMA: v = ts_rng_gamma(a->rng, mean, d->cv); break;
  case TS_DIST_UNIFORM: v = (double)d->lo + ts_rng_uniform(a->rng) * (double)(d->hi - d->lo); break;
  default: v = mean; break;
  }
  double max = d->kind == TS_DIST_UNIFORM ? (double)d->hi : mean * 1000 < (double)TS_DRAW_MAX ? mean * 1000 : (double)TS_DRAW_MAX;
  return v <= 0 ? 0 : v >= max ? (ts_time)max : (ts_time)(v + 0.5);
}

typedef struct evctx {
  const ts_world *w;
  const ts_actor *a;
} evctx;

static double get(void *ctx, ts_expr_var v)
{
  const evctx *c = ctx;
  const ts_world *w = c->w;
  const ts_actor *a = c->a;
  switch (v.kind) {
  case TS_VAR_INDEX: return a ? a->index : 0;
  case TS_VAR_N: return w->n;
  case TS_VAR_W: return w->nmain;
  case TS_VAR_WORKER: return a ? w->workers[a->worker].index : 0;
  case TS_VAR_POOL_SIZE: {
    int p = a ? w->workers[a->worker].pool : 0;
    return w->pool_base[p + 1] - w->pool_base[p];
  }
  case TS_VAR_LOOP: return a && a->loops ? (double)a->loops[v.index].iter : 0;
  case TS_VAR_COUNTER: return w->counters[v.index];
  case TS_VAR_NOW: return ts_time_to_ms(w->sim.now);
  case TS_VAR_ARRIVED: return a ? ts_time_to_ms(a->st.arrive) : 0;
  case TS_VAR_COUNT: return w->class_count[v.index];
  case TS_VAR_LET: return a ? ts_expr_eval(w->model->classes[a->klass].lets[v.index], get, ctx) : 0;
  default: return 0;
  }
}

double ts__eval(ts_world *w, const ts_actor *a, const ts_expr *e)
{
  evctx c = {w, a};
  return ts_expr_eval(e, get, &c);
}

int ts__instance(ts_world *w, ts_actor *a, const ts_step *s, ts_scope scope, int instances)
{
  switch (scope) {
  case TS_SCOPE_ACTOR: return a->parent >= 0 ? a->parent : a->id;
  case TS_SCOPE_SHARED: return 0;
  case TS_SCOPE_PER_WORKER: return a->worker;
  case TS_SCOPE_INDEXED: break;
  }
  double v = ts__eval(w, a, s->index);
  if (!(v >= 0 && v < instances) || v != floor(v))
    return ts__fail(w, s, "index \"%s\" is %g for actor %d (class %s, i = %d): expected an integer in [0, %d)",
                    ts_expr_text(s->index), v, a->id, w->model->classes[a->klass].name, a->index, instances);
  return (int)v;
}

void ts__actor_ready(ts_world *w, ts_actor *a, int timer)
{
  ts_worker *wk = &w->workers[a->worker];
  ts__actor_set_state(w, a, TS_ACTOR_READY);
  int on_timers = timer && wk->spec->kind == TS_WORKER_EVENT_LOOP;
  if (ts_ring_push(on_timers ? &wk->timers : &wk->ready, a->id) != 0)
    ts__world_nomem(w);
  ts__worker_kick(w, wk, w->sim.now);
}

void ts__actor_ready_at(ts_world *w, ts_actor *a, ts_time at, int code)
{
  ts__at(w, at, TS_EV_READY, a->id, (uint32_t)code);
}

/* The i-th actor of class `follower` arrives delay after the i-th of the class it follows ends. */
static void start_followers(ts_world *w, const ts_actor *a)
{
  const ts_model *m = w->model;
  if (a->hidden)
    return;
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_arrival *ar = &m->classes[c].arrival;
    if (ar->kind == TS_ARRIVE_AFTER && ar->after == a->klass && a->index < w->class_count[c])
      ts__at(w, w->sim.now + ar->delay, TS_EV_ARRIVE, w->class_base[c] + a->index, 0);
  }
}

static void finish(ts_world *w, ts_actor *a)
{
  ts_time now = w->sim.now;
  ts__lock_release_all(w, a);
  ts__actor_set_state(w, a, TS_ACTOR_DONE);
  a->st.done = now;
  if (a->st.wave_start < 0)
    a->st.wave_start = a->st.arrive;
  if (a->st.wave_end < 0)
    a->st.wave_end = now;
  w->done++;
  w->live--;
  start_followers(w, a);
}

int ts__actor_continue(ts_world *w, ts_actor *a)
{
  const ts_class *k = &w->model->classes[a->klass];
  if (w->sim.now != w->ops_instant) {
    w->ops_instant = w->sim.now;
    w->ops_at_instant = 0;
  }
  while (a->pc < (int)k->nsteps && !w->error) {
    const ts_step *s = &k->steps[a->pc];
    if (++w->ops_at_instant > LIVELOCK_OPS) {
      ts__fail(w, s, "%llu steps ran at t = %.6f ms without time passing (a loop whose body takes no time?)",
               (unsigned long long)LIVELOCK_OPS, ts_time_to_ms(w->sim.now));
      return 0;
    }
    switch (s->type->exec(w, a, s)) {
    case TS_OP_NEXT:
      a->pc++;
      a->sub = 0;
      break;
    case TS_OP_GOTO:
      a->sub = 0;
      break;
    case TS_OP_BUSY:
      return 1;
    default:
      return 0;
    }
  }
  if (!w->error)
    finish(w, a);
  return 0;
}

static int alloc_chunk(ts_world *w)
{
  int nchunks = w->cap_actors >> TS_CHUNK_BITS;
  ts_actor **c = realloc(w->chunks, (size_t)(nchunks + 1) * sizeof *c);
  if (!c)
    return -1;
  w->chunks = c;
  c[nchunks] = calloc(TS_CHUNK, sizeof **c);
  if (!c[nchunks])
    return -1;
  w->cap_actors += TS_CHUNK;
  return 0;
}

ts_actor *ts__actor_new(ts_world *w, int k, int i, int wk, const ts_actor *parent)
{
  const ts_model *m = w->model;
  const ts_class *c = &m->classes[k];
  if (w->nactors == w->cap_actors && alloc_chunk(w) != 0) {
    ts__world_nomem(w);
    return NULL;
  }
  int id = w->nactors;
  ts_actor *a = ts_world_actor(w, id);
  memset(a, 0, sizeof *a);
  a->id = id;
  a->klass = k;
  a->index = i;
  a->worker = a->home = wk;
  a->parent = parent ? parent->id : -1;
  a->hidden = parent != NULL;
  a->spawn_k = parent ? parent->spawns : 0;
  a->sched_class = c->sched_class;
  a->state = TS_ACTOR_NEW;
  a->wait_inst = -1;
  a->carried = -1;
  a->mark = -1;
  a->st.actor = id;
  a->st.klass = k;
  a->st.worker = wk;
  a->st.wave_start = a->st.wave_end = a->st.done = -1;
  /* one block for the per-actor arrays of the features the model uses */
  size_t nl = (size_t)c->loops, ns = m->nspans, nk = m->nlocks, nc = m->nchans;
  size_t bytes = nl * sizeof(ts_loop) + ns * sizeof(ts_time) + nk * sizeof(ts_held) + nc * sizeof(ts_seen);
  if (bytes > 0) {
    char *p = malloc(bytes);
    if (!p) {
      ts__world_nomem(w);
      return NULL;
    }
    a->loops = nl ? (ts_loop *)(void *)p : NULL;
    p += nl * sizeof(ts_loop);
    a->held = nk ? (ts_held *)(void *)p : NULL;
    p += nk * sizeof(ts_held);
    a->seen = nc ? (ts_seen *)(void *)p : NULL;
    p += nc * sizeof(ts_seen);
    a->span_t0 = ns ? (ts_time *)(void *)p : NULL;
    for (size_t j = 0; j < nk; j++)
      a->held[j] = (ts_held){-1, -1};
    for (size_t j = 0; j < nc; j++)
      a->seen[j] = (ts_seen){-1, 0};
    for (size_t j = 0; j < ns; j++)
      a->span_t0[j] = -1;
    if (parent && parent->loops && nl)
      memcpy(a->loops, parent->loops, nl * sizeof(ts_loop));
  }
  w->nactors++;
  return a;
}

void ts__actor_arrive(ts_world *w, ts_actor *a)
{
  a->st.arrive = w->sim.now;
  a->state_since = w->sim.now;
  w->live++;
  ts__actor_ready(w, a, 0);
}

void ts__span_sample(ts_world *w, int span, ts_time t0)
{
  ts_span_rec *r = &w->spans[span];
  ts_time now = w->sim.now;
  r->ended++;
  if (now < w->win_t0 || now >= w->win_t1)
    return;
  if (r->len == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 256;
    ts_time *v = realloc(r->v, cap * sizeof *v);
    if (!v) {
      ts__world_nomem(w);
      return;
    }
    r->v = v;
    r->cap = cap;
  }
  r->v[r->len++] = now - t0;
}

int ts__fail(ts_world *w, const ts_step *s, const char *fmt, ...)
{
  if (w->error)
    return -1;
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(w->errmsg, sizeof w->errmsg, "%s: %s", s && s->where ? s->where : "model", msg);
  w->error = TS_WORLD_MODEL;
  w->sim.failed = TS_SIM_STOP;
  return -1;
}

void ts__invariant(ts_world *w, const char *fmt, ...)
{
  if (w->error)
    return;
  char msg[200];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  snprintf(w->errmsg, sizeof w->errmsg, "at t = %lld ns (event %llu): %s", (long long)w->sim.now,
           (unsigned long long)w->sim.steps, msg);
  w->error = TS_WORLD_INTERNAL;
  w->sim.failed = TS_SIM_STOP;
}
