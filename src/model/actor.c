/* Actors: the step-program interpreter and the per-actor measurements. An
 * actor runs the ops of its program while it holds the CPU (op.h gives the
 * protocol); ts__actor_continue returns when the worker is busy or the actor
 * left the CPU. Here: an actor's life (the memory pool, its random stream
 * and draws, ready and microtask, new and spawn, arrival, finish and
 * retirement, the chunks of actors, span samples, failures); the
 * expressions it evaluates (ts__eval, its kept lets, ts__instance) are
 * actor_eval.c's. */
#include "model/internal.h"
#include "model/expr.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ts__state_column(ts_world *w, int id, int s)
{
  int c = id >> TS_CHUNK_BITS;
  ts_time *col = malloc(TS_CHUNK * sizeof *col);
  if (!col) {
    ts__world_nomem(w);
    return -1;
  }
  /* only the entries of the ids given so far are zeroed: an actor made
   * later zeroes its own (ts__actor_init), so a world of a few actors does
   * not clear the whole chunk (most of the cost of a small replication) */
  int given = (w->nactors > id ? w->nactors : id + 1) - (c << TS_CHUNK_BITS);
  memset(col, 0, (size_t)(given < TS_CHUNK ? given : TS_CHUNK) * sizeof *col);
  w->scol[c * TS_NSTATES + s] = col;
  w->states_used |= UINT32_C(1) << s;
  return 0;
}

#define POOL_BLOCK 16384

void *ts__pool_take(ts_mempool *p, size_t size)
{
  size = (size + 15) & ~(size_t)15;
  if (p->nblocks == 0 || p->used + size > p->cap) {
    size_t cap = size > POOL_BLOCK ? size : POOL_BLOCK;
    /* the first block is small: most worlds need a few streams */
    if (p->nblocks == 0 && size <= 1024)
      cap = 1024;
    if (p->max_blocks && p->nblocks >= p->max_blocks)
      return NULL; /* (tests: memory running out) */
    char **b = realloc(p->blocks, (p->nblocks + 1) * sizeof *b);
    if (!b)
      return NULL;
    p->blocks = b;
    if (!(b[p->nblocks] = malloc(cap)))
      return NULL;
    p->nblocks++;
    p->used = 0;
    p->cap = cap;
  }
  void *m = p->blocks[p->nblocks - 1] + p->used;
  p->used += size;
  return m;
}

void ts__pool_finish(ts_mempool *p)
{
  for (size_t i = 0; i < p->nblocks; i++)
    free(p->blocks[i]);
  free(p->blocks);
  memset(p, 0, sizeof *p);
}

/* Stream slot k's memory. */
static void *rng_slot(const ts_world *w, int k)
{
  return w->rng_blocks[k >> TS_RNG_BLOCK_BITS] + (size_t)(k & ((1 << TS_RNG_BLOCK_BITS) - 1)) * w->rng_size;
}

/* Memory for the block of stream slots that slot k (its first) begins
 * (rng_take's rare path). 0, or -1 when memory runs out. */
__attribute__((noinline)) static int rng_block(ts_world *w, int k)
{
  size_t nb = (size_t)(k >> TS_RNG_BLOCK_BITS);
  char **b = realloc(w->rng_blocks, (nb + 1) * sizeof *b);
  if (!b)
    return -1;
  w->rng_blocks = b;
  if (!(b[nb] = malloc(((size_t)1 << TS_RNG_BLOCK_BITS) * w->rng_size)))
    return -1;
  return 0;
}

/* A free stream slot: a done actor's, else a new one. -1 when memory runs out. */
static inline int rng_take(ts_world *w)
{
  if (w->nrng_free > 0)
    return w->rng_free[--w->nrng_free];
  int k = w->rng_slots;
  if ((k & ((1 << TS_RNG_BLOCK_BITS) - 1)) == 0 && rng_block(w, k) != 0)
    return -1;
  w->rng_slots++;
  return k;
}

/* ts__actor_rng's body (always inlined: ts__draw_any runs it in its frame). */
__attribute__((always_inline)) static inline ts_rng *actor_rng_in(ts_world *w, ts_actor *a)
{
  if (a->rng > 0)
    return (ts_rng *)rng_slot(w, a->rng - 1);
  int k = rng_take(w);
  if (k < 0) {
    ts__world_nomem(w);
    return NULL;
  }
  a->rng = k + 1;
  /* spawned: its root's coordinates and the spawn's ordinal among the root's */
  int spawn_k = a->x ? a->x->spawn_k : 0;
  uint64_t seed = w->slow_paths ? ts_rng_derive_stream(w->seed, a->klass, a->index, spawn_k)
                                : ts_rng_stream_seed(w->stream_key[a->klass], a->index, spawn_k);
  return ts_rng_init_small(rng_slot(w, k), seed);
}

ts_rng *ts__actor_rng(ts_world *w, ts_actor *a)
{
  return actor_rng_in(w, a);
}

/* a is done: its stream's memory goes to the next stream made. (Inline: in finish's frame.) */
static inline void rng_release(ts_world *w, ts_actor *a)
{
  if (a->rng <= 0)
    return;
  if (w->nrng_free == w->cap_rng_free) {
    int cap = w->cap_rng_free ? 2 * w->cap_rng_free : 64;
    int *v = realloc(w->rng_free, (size_t)cap * sizeof *v);
    if (!v)
      return; /* the slot is not reused: no harm */
    w->rng_free = v;
    w->cap_rng_free = cap;
  }
  w->rng_free[w->nrng_free++] = a->rng - 1;
  a->rng = 0;
}

/* ts__draw_shaped's body (always inlined, as actor_rng_in). */
__attribute__((always_inline)) static inline ts_time draw_shaped_in(ts_rng *r, const ts_dist *d, double mean)
{
  double v;
  switch (d->kind) {
  case TS_DIST_EXPONENTIAL: v = ts_rng_exponential(r, mean); break;
  case TS_DIST_LOGNORMAL: /* (the parameters worked out at load while they hold) */
    v = mean == d->ln_mean && d->cv == d->ln_cv ? ts_rng_lognormal_at(r, d->ln_mu, d->ln_sigma)
                                                : ts_rng_lognormal(r, mean, d->cv);
    break;
  case TS_DIST_GAMMA: v = ts_rng_gamma(r, mean, d->cv); break;
  case TS_DIST_UNIFORM: v = (double)d->lo + ts_rng_uniform(r) * (double)(d->hi - d->lo); break;
  case TS_DIST_EMPIRICAL: v = mean * d->emp[ts_rng_index(r, d->nemp)]; break;
  default: v = mean; break;
  }
  double max = d->kind == TS_DIST_UNIFORM     ? (double)d->hi
               : d->kind == TS_DIST_EMPIRICAL ? mean * d->emp_max
               : mean * 1000 < (double)TS_DRAW_MAX ? mean * 1000
                                                   : (double)TS_DRAW_MAX;
  if (max > (double)TS_DRAW_MAX)
    max = (double)TS_DRAW_MAX;
  return v <= 0 ? 0 : v >= max ? (ts_time)max : (ts_time)(v + 0.5);
}

ts_time ts__draw_shaped(ts_rng *r, const ts_dist *d, double mean)
{
  return draw_shaped_in(r, d, mean);
}

ts_time ts__draw_any(ts_world *w, ts_actor *a, const ts_dist *d)
{
  double mean = (double)d->mean;
  if (d->mean_ms) {
    double ms = ts__eval(w, a, d->mean_ms);
    if (!(ms >= 0) || ms * TS_NS_PER_MS > (double)TS_DRAW_MAX) {
      char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
      ts__fail(w, &w->model->classes[a->klass].steps[a->pc], "duration \"%s\" is %s for actor %d (class %s, i = %d): expected [0, %g] ms",
               ts_expr_excerpt(ts_expr_text(d->mean_ms), quoted, sizeof quoted),
               ts_expr_value_text(num, sizeof num, ms, " ms"), a->id, w->model->classes[a->klass].name, a->index,
               (double)TS_DRAW_MAX / TS_NS_PER_MS);
      return 0;
    }
    mean = ms * TS_NS_PER_MS * (d->to_mean > 0 ? d->to_mean : 1);
  }
  if (d->kind == TS_DIST_FIXED) /* (a constant mean is whole ns, exact as a double: llround gives it back) */
    return !d->mean_ms && d->mean >= 0 && d->mean <= TS_DRAW_MAX ? d->mean : (ts_time)llround(mean);
  ts_rng *r = actor_rng_in(w, a);
  if (!r)
    return 0;
  return draw_shaped_in(r, d, mean);
}

/* ts__actor_ready's body (always inlined: ts__actor_arrive runs it in its
 * own frame); last: the kick is the last act of a lane event's handler
 * (ts__worker_kick_last). */
__attribute__((always_inline)) static inline void ready_in(ts_world *w, ts_actor *a, int timer, int last)
{
  ts_worker *wk = &w->workers[a->worker];
  ts__actor_set_state(w, a, TS_ACTOR_READY);
  int on_timers = timer && wk->spec->kind == TS_WORKER_EVENT_LOOP;
  if ((on_timers ? ts_ring_push(&wk->timers, a->id) : ts__worker_push_ready(wk, a)) != 0)
    ts__world_nomem(w);
  if (last)
    ts__worker_kick_last(w, wk);
  else
    ts__worker_kick(w, wk, w->sim.now);
}

void ts__actor_ready(ts_world *w, ts_actor *a, int timer)
{
  ready_in(w, a, timer, 0);
}

void ts__actor_microtask(ts_world *w, ts_actor *a)
{
  ts_worker *wk = &w->workers[a->worker];
  ts__actor_set_state(w, a, TS_ACTOR_READY);
  if (ts_ring_push(&wk->micro, a->id) != 0)
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

/* Done actor a's extension, if it has one, goes to the next of its class
 * (ts__actor_ext takes it from ext_free). */
static void give_back_ext(ts_world *w, ts_actor *a)
{
  if (a->x && a->x != &w->ext_sink) {
    *(void **)(void *)a->x = w->ext_free[a->klass];
    w->ext_free[a->klass] = a->x;
  }
  a->x = NULL;
}

/* Done actor a is handed to the world's on_done; when its class allows, its
 * extension goes to the next of its class and its chunk is freed once all
 * of the chunk's actors are retired (at the next sweep). A spawned task
 * (hidden) of a class that does not retire gives back its extension only:
 * its id may still be named (a stale waker on a channel's list, read as
 * done there: channel.c; a timeout, which finds no extension: timeout.c),
 * but nothing reads a done task's extension any more: its parent's list
 * dropped it and its locks were released (ts__actor_finish), it names no
 * task but its root (spawn) or its parent (child), and on_done has taken
 * its measurements. (moq chat: 28,000 GroupServe children, 20 MB of
 * extensions made new, 2.6 MB now.) */
__attribute__((always_inline)) static inline void retire(ts_world *w, ts_actor *a) /* (in its callers' frames) */
{
  if (w->on_done(w->done_ctx, w, a) != 0) {
    ts__world_nomem(w);
    return;
  }
  if (!w->reclaim[a->klass]) {
    if (a->hidden)
      give_back_ext(w, a);
    return;
  }
  give_back_ext(w, a);
  int c = a->id >> TS_CHUNK_BITS;
  if (--w->chunk_left[c] > 0)
    return;
  if (w->ndead == w->cap_dead) {
    int cap = w->cap_dead ? 2 * w->cap_dead : 16;
    int *v = realloc(w->dead, (size_t)cap * sizeof *v);
    if (!v)
      return; /* the chunk is not freed: no harm */
    w->dead = v;
    w->cap_dead = cap;
  }
  w->dead[w->ndead++] = c;
}

void ts__world_sweep(ts_world *w)
{
  for (int k = 0; k < w->ndead; k++) {
    int c = w->dead[k];
    if (!w->spare_chunk && !w->slow_paths) /* (kept for the next chunk: no new pages to fault in) */
      w->spare_chunk = w->chunks[c];
    else
      free(w->chunks[c]);
    w->chunks[c] = NULL;
    w->chunk_gone[c] = 1;
    for (int s = 0; s < TS_NSTATES; s++) {
      free(w->scol[c * TS_NSTATES + s]);
      w->scol[c * TS_NSTATES + s] = NULL;
    }
  }
  w->ndead = 0;
}

/* a is done now: its state, end time, the world's counts and its stream's
 * memory (ts__actor_finish, and a child ended with its task). (Inline: in
 * finish's frame.) */
static inline void mark_done(ts_world *w, ts_actor *a)
{
  ts__actor_set_state(w, a, TS_ACTOR_DONE);
  a->st.done = w->sim.now;
  w->done++;
  w->live--;
  w->live_bytes -= w->model->classes[a->klass].size_bytes;
  rng_release(w, a);
}

int ts__actor_finish(ts_world *w, ts_actor *a)
{
  ts_time now = w->sim.now;
  int back = -1;
  if (a->x) { /* (without one: no children, no parent to hand back to, no locks held) */
    back = a->x->poll_parent;
    if (a->x->first_child >= 0 || back >= 0)
      ts__future_finish(w, a);
    ts__lock_release_all(w, a);
  }
  mark_done(w, a);
  if (a->x) { /* (without one: no marks, so its wave is arrival to end) */
    if (a->x->wave_start < 0)
      a->x->wave_start = a->st.arrive;
    if (a->x->wave_end < 0)
      a->x->wave_end = now;
  }
  if (!a->hidden)
    w->workers[a->home].live--;
  if (w->followers) /* (most models: no class follows another) */
    start_followers(w, a);
  if (w->on_done)
    retire(w, a);
  return back;
}

void ts__actor_end_child(ts_world *w, ts_actor *c)
{
  mark_done(w, c);
  if (w->on_done && w->on_done(w->done_ctx, w, c) != 0)
    ts__world_nomem(w);
}

void ts__actor_livelock(ts_world *w, const ts_step *s)
{
  ts__fail(w, s, "%llu steps ran at t = %.6f ms without time passing (a loop whose body takes no time?)",
           (unsigned long long)TS_LIVELOCK_OPS, ts_time_to_ms(w->sim.now));
}

int ts__actor_continue(ts_world *w, ts_actor *a)
{
  return ts__actor_run(w, a);
}

/* Room for chunk slots up to c. Returns 0 or -1. */
static int chunk_slots(ts_world *w, int c)
{
  int nslots = w->cap_actors >> TS_CHUNK_BITS;
  if (c < nslots)
    return 0;
  int cap = nslots ? nslots : 1;
  while (cap <= c)
    cap *= 2;
  ts_actor **v = realloc(w->chunks, (size_t)cap * sizeof *v);
  if (!v)
    return -1;
  w->chunks = v;
  ts_time **sc = realloc(w->scol, (size_t)cap * TS_NSTATES * sizeof *sc);
  if (!sc)
    return -1;
  w->scol = sc;
  int32_t *left = realloc(w->chunk_left, (size_t)cap * sizeof *left);
  if (!left)
    return -1;
  w->chunk_left = left;
  uint8_t *gone = realloc(w->chunk_gone, (size_t)cap);
  if (!gone)
    return -1;
  w->chunk_gone = gone;
  for (int k = nslots; k < cap; k++) {
    v[k] = NULL;
    memset(sc + (size_t)k * TS_NSTATES, 0, TS_NSTATES * sizeof *sc);
    left[k] = TS_CHUNK;
    gone[k] = 0;
  }
  w->cap_actors = cap << TS_CHUNK_BITS;
  return 0;
}

ts_actor *ts__chunk(ts_world *w, int c)
{
  if (chunk_slots(w, c) != 0) {
    ts__world_nomem(w);
    return NULL;
  }
  if (w->chunks[c])
    return w->chunks[c];
  if (w->chunk_gone[c]) {
    ts__invariant(w, "actors %d to %d are named after they were all done and retired", c << TS_CHUNK_BITS,
                  ((c + 1) << TS_CHUNK_BITS) - 1);
    return NULL;
  }
  ts_actor *v = w->spare_chunk ? w->spare_chunk : malloc(TS_CHUNK * sizeof *v); /* each actor is set up when it is made */
  w->spare_chunk = NULL;
  if (!v) {
    ts__world_nomem(w);
    return NULL;
  }
  w->chunks[c] = v;
  int lo = c << TS_CHUNK_BITS, hi = lo + TS_CHUNK;
  if (w->lazy && lo < w->nfixed && ts__world_make_fixed(w, lo, hi < w->nfixed ? hi : w->nfixed) != 0)
    return NULL;
  return v;
}

/* The sizes of an extension's arrays (its class's, or the sink's: the
 * largest of any class). */
typedef struct ext_sizes {
  size_t nvar, nl, nk, nc, ns;
} ext_sizes;

static inline size_t ext_bytes(const ext_sizes *z)
{
  return z->nvar * sizeof(double) + z->nl * sizeof(ts_loop) + z->ns * sizeof(ts_time) + z->nk * sizeof(ts_held) +
         z->nc * sizeof(ts_seen);
}

/* x as a new extension, its arrays of sizes z at p (ext_bytes(z) bytes, 8-byte
 * aligned): the defaults, variables from var_init (NULL: 0), no lets. */
__attribute__((always_inline)) static inline void ext_lay_out(ts_actor_ext *x, char *p, const ext_sizes *z,
                                                              const double *var_init)
{
  *x = (ts_actor_ext){.parent = -1, .wait_inst = -1, .mark = -1, .carried = -1, .poll_parent = -1, .first_child = -1,
                      .next_child = -1, .wave_start = -1, .wave_end = -1, .settled = -1};
  x->vars = z->nvar ? (double *)(void *)p : NULL;
  p += z->nvar * sizeof(double);
  for (size_t j = 0; j < z->nvar; j++)
    x->vars[j] = var_init ? var_init[j] : 0;
  x->loops = z->nl ? (ts_loop *)(void *)p : NULL;
  p += z->nl * sizeof(ts_loop);
  x->held = z->nk ? (ts_held *)(void *)p : NULL;
  p += z->nk * sizeof(ts_held);
  x->seen = z->nc ? (ts_seen *)(void *)p : NULL;
  p += z->nc * sizeof(ts_seen);
  x->span_t0 = z->ns ? (ts_time *)(void *)p : NULL;
  for (size_t j = 0; j < z->nl; j++)
    x->loops[j] = (ts_loop){0, 0};
  for (size_t j = 0; j < z->nk; j++)
    x->held[j] = (ts_held){-1, -1};
  for (size_t j = 0; j < z->nc; j++)
    x->seen[j] = (ts_seen){-1, -1, 0};
  for (size_t j = 0; j < z->ns; j++)
    x->span_t0[j] = -1;
}

/* The sink's sizes: each array as long as any class's. */
static ext_sizes sink_sizes(const ts_model *m)
{
  ext_sizes z = {.nk = m->nlocks, .nc = m->nchans, .ns = m->nspans};
  for (size_t c = 0; c < m->nclasses; c++) {
    z.nvar = m->classes[c].nvars > z.nvar ? m->classes[c].nvars : z.nvar;
    z.nl = (size_t)m->classes[c].loops > z.nl ? (size_t)m->classes[c].loops : z.nl;
  }
  return z;
}

int ts__ext_sink_init(ts_world *w)
{
  ext_sizes z = sink_sizes(w->model);
  size_t bytes = ext_bytes(&z);
  w->ext_sink_mem = bytes ? ts__pool_take(&w->rng_pool, bytes) : NULL;
  if (bytes && !w->ext_sink_mem)
    return -1;
  ext_lay_out(&w->ext_sink, w->ext_sink_mem, &z, NULL);
  return 0;
}

/* The sink handed out (memory ran out making an extension): as a new
 * extension of the largest sizes, whatever the last writes to it were. */
__attribute__((noinline, cold)) static ts_actor_ext *ext_sink(ts_world *w)
{
  ts__world_nomem(w);
  ext_sizes z = sink_sizes(w->model);
  ext_lay_out(&w->ext_sink, w->ext_sink_mem, &z, NULL);
  return &w->ext_sink;
}

ts_actor_ext *ts__actor_ext(ts_world *w, ts_actor *a)
{
  const ts_model *m = w->model;
  const ts_class *c = &m->classes[a->klass];
  /* one block: the extension, then the per-actor arrays of the features the model uses */
  ext_sizes z = {.nvar = c->nvars, .nl = (size_t)c->loops, .nk = m->nlocks, .nc = m->nchans, .ns = m->nspans};
  size_t nv = w->let_stable[a->klass] | w->idx_bits[a->klass]
                  ? (sizeof(ts_let_cache) + (size_t)w->let_slots * sizeof(double) + 15) & ~(size_t)15
                  : 0;
  size_t head = (sizeof(ts_actor_ext) + 15) & ~(size_t)15;
  size_t bytes = head + nv + ext_bytes(&z);
  char *p;
  if (w->ext_free && w->ext_free[a->klass]) { /* a retired actor's of its class: the same size */
    p = w->ext_free[a->klass];
    w->ext_free[a->klass] = *(void **)(void *)p;
  } else {
    p = ts__pool_take(&w->rng_pool, bytes);
  }
  if (!p)
    return ext_sink(w);
  ts_actor_ext *x = (ts_actor_ext *)(void *)p;
  ext_lay_out(x, p + head + nv, &z, c->var_init);
  x->lets = nv ? (ts_let_cache *)(void *)(p + head) : NULL;
  if (x->lets)
    *x->lets = (ts_let_cache){.worker = -1};
  if (a->st.done >= 0) { /* made after its end (a read of its marks): its wave as finish set it */
    x->wave_start = a->st.arrive;
    x->wave_end = a->st.done;
  }
  a->x = x;
  return x;
}

ts_actor *ts__actor_new(ts_world *w, int k, int i, int wk, const ts_actor *parent)
{
  const ts_model *m = w->model;
  const ts_class *c = &m->classes[k];
  int id = w->nactors;
  if (id == INT_MAX) { /* ids, class counts and the chunk table are ints */
    snprintf(w->errmsg, sizeof w->errmsg,
             "class %s: %d actors (arrivals and spawned tasks) by %g ms at n = %d: expected at most %d in one run "
             "(a shorter horizon_ms, a lower rate or fewer spawns)", c->name, id, ts_time_to_ms(w->sim.now), w->n,
             INT_MAX);
    w->error = TS_WORLD_MODEL;
    w->sim.failed = TS_SIM_STOP;
    return NULL;
  }
  ts_actor *chunk = ts__chunk(w, id >> TS_CHUNK_BITS);
  if (!chunk)
    return NULL;
  ts_actor *a = &chunk[id & (TS_CHUNK - 1)];
  ts__actor_init(w, a, id, k, i, wk, parent != NULL);
  w->nactors++;
  if (k == w->main_class && w->workers[wk].pool == 0)
    w->placed_main++;
  if (parent) { /* spawned: its root's coordinates (the fixed actor the spawns began at) and its parent's loops */
    const ts_actor *root = parent->x && parent->x->parent >= 0 ? ts_world_actor(w, parent->x->parent) : parent;
    ts_actor_ext *x = ts__x(w, a);
    x->parent = root->id;
    x->spawn_k = root->x ? root->x->spawns : 0;
    if (parent->x && parent->x->loops && x->loops && c->loops)
      memcpy(x->loops, parent->x->loops, (size_t)c->loops * sizeof(ts_loop));
    if (parent->x && parent->x->vars && x->vars)
      memcpy(x->vars, parent->x->vars, c->nvars * sizeof(double));
    /* its stable lets and kept index starts read what its parent's read
     * (the same class, i and worker, its variables, the counters and
     * versions): the parent's kept values are its own, as current as they
     * were (the let epoch and versions they were kept at come with them);
     * slow_paths (tests): evaluated anew */
    if (parent->x && parent->x->lets && x->lets && parent->klass == k && parent->index == i && parent->worker == wk &&
        !w->slow_paths)
      memcpy(x->lets, parent->x->lets, sizeof(ts_let_cache) + (size_t)w->let_slots * sizeof(double));
    if (parent->x)
      x->carried = parent->x->carried; /* the timestamp its parent was last carried */
  }
  return a;
}

ts_actor *ts__actor_spawn(ts_world *w, ts_actor *a)
{
  /* spawns are numbered per root actor, so that every task of its tree has a stream of its own */
  ts_actor *root = a->x && a->x->parent >= 0 ? ts_world_actor(w, a->x->parent) : a;
  ts__x(w, root)->spawns++;
  return ts__actor_new(w, a->klass, a->index, a->worker, a);
}

/* least_loaded dispatch: a places itself, as it arrives, on the worker of
 * its pool with the fewest live actors (the lowest index among equals): join
 * the shortest queue. Its main-class load and the CPU price by load move with it. */
__attribute__((noinline)) static void join_shortest(ts_world *w, ts_actor *a)
{
  const ts_model *m = w->model;
  const ts_class *k = &m->classes[a->klass];
  int base = w->pool_base[k->pool], count = w->pool_base[k->pool + 1] - base, best = base;
  for (int i = base + 1; i < base + count; i++)
    if (w->workers[i].live < w->workers[best].live)
      best = i;
  if (best == a->home)
    return;
  if (a->klass == ts_model_main_class(m)) {
    w->workers[a->home].load--;
    w->workers[best].load++;
    if (m->scale_by_worker) {
      w->workers[a->home].cpu_scale = ts_model_cpu_scale(m, w->workers[a->home].load);
      w->workers[best].cpu_scale = ts_model_cpu_scale(m, w->workers[best].load);
    }
  }
  a->home = a->worker = best;
}

/* a arrives at a worker holding its pool's capacity of live actors: it is
 * dropped (a lost arrival): done at once, without running and outside the
 * statistics; a drop counts in the window, and its followers start. */
__attribute__((noinline)) static void drop(ts_world *w, ts_actor *a)
{
  a->dropped = 1;
  ts__actor_set_state(w, a, TS_ACTOR_DONE);
  w->done++;
  ts__count_now(w, &w->win_drops);
  if (w->followers) /* (most models: no class follows another) */
    start_followers(w, a);
  if (w->on_done)
    retire(w, a);
}

/* ts__actor_begin's body (always inlined, as ready_in). */
__attribute__((always_inline)) static inline int begin_in(ts_world *w, ts_actor *a)
{
  a->st.arrive = w->sim.now;
  a->state_since = w->sim.now;
  if (!a->hidden) {
    const ts_class *k = &w->model->classes[a->klass];
    ts_worker *wk;
    if (w->model->dispatch == TS_DISPATCH_LEAST_LOADED && k->place == TS_PLACE_DISPATCH)
      join_shortest(w, a);
    wk = &w->workers[a->home];
    if (wk->spec->capacity > 0 && wk->live >= wk->spec->capacity) {
      drop(w, a);
      return 0;
    }
    wk->live++;
  }
  w->live++;
  w->live_bytes += w->model->classes[a->klass].size_bytes;
  return 1;
}

int ts__actor_begin(ts_world *w, ts_actor *a)
{
  return begin_in(w, a);
}

/* ts__actor_arrive's body (always inlined: begin and ready in one frame,
 * ts__on_arrive's). */
__attribute__((always_inline)) static inline void arrive_in(ts_world *w, ts_actor *a, int last)
{
  if (begin_in(w, a))
    ready_in(w, a, 0, last);
}

void ts__actor_arrive(ts_world *w, ts_actor *a)
{
  arrive_in(w, a, 0);
}

void ts__on_arrive(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  if (!w->lazy) {
    ts__actor_arrive(w, ts_world_actor(w, ev->obj));
    return;
  }
  if (w->ndead)
    ts__world_sweep(w);
  /* its chunk, made when the first of its actors arrived (ts__chunk:
   * made now, or, when it is there, the same; slow_paths, tests: asked) */
  int c = ev->obj >> TS_CHUNK_BITS;
  ts_actor *chunk = c < (w->cap_actors >> TS_CHUNK_BITS) && w->chunks[c] && !w->slow_paths ? w->chunks[c]
                                                                                        : ts__chunk(w, c);
  if (chunk) /* (in this frame: an arrival a job; its kick is the handler's last act) */
    arrive_in(w, &chunk[ev->obj & (TS_CHUNK - 1)], 1);
}

void ts__span_sample(ts_world *w, int span, ts_time t0)
{
  ts_span_rec *r = &w->spans[span];
  ts_time now = w->sim.now;
  r->ended++;
  if (w->obs && w->obs->span)
    w->obs->span(w->obs->data, now, span, now - t0);
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
  char msg[300];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (s && s->where)
    snprintf(w->errmsg, sizeof w->errmsg, "%s: %s", s->where, msg);
  else
    snprintf(w->errmsg, sizeof w->errmsg, "%s", msg); /* msg names its JSON path */
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
