/* Actors: the step-program interpreter and the per-actor measurements. An
 * actor runs the ops of its program while it holds the CPU (op.h gives the
 * protocol); ts__actor_continue returns when the worker is busy or the actor
 * left the CPU. */
#include "model/internal.h"
#include "model/expr_run.h"

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
      ts__fail(w, &w->model->classes[a->klass].steps[a->pc], "duration \"%s\" is %s for actor %d: expected [0, %g]",
               ts_expr_excerpt(ts_expr_text(d->mean_ms), quoted, sizeof quoted),
               ts_expr_value_text(num, sizeof num, ms, " ms"), a->id, (double)TS_DRAW_MAX / TS_NS_PER_MS);
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

/* Lets remembered within one evaluation (nothing an expression reads
 * changes while it is evaluated, so each let has one value then). */
#define LET_MEMO 64

typedef struct evctx {
  const ts_world *w;
  const ts_actor *a;
  uint64_t known;       /* bit k: memo[k] holds let k */
  double memo[LET_MEMO];
} evctx;

/* The value of let k for the actor of ctx (get's case of a let): from the
 * evaluation's memo, or the actor's kept values when they are current, else
 * let_eval. */
static inline double let_value(evctx *m, int k);

/* The value of variable v for the actor of ctx (an evctx). Inlined into
 * the expression machine (ts__expr_eval_inline): no call per variable. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double get(void *ctx, ts_expr_var v)
{
  evctx *c = ctx;
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
  case TS_VAR_LOOP: return a && a->x && a->x->loops ? (double)a->x->loops[v.index].iter : 0;
  case TS_VAR_COUNTER: return w->counters[v.index];
  case TS_VAR_NOW: return ts_time_to_ms(w->sim.now);
  case TS_VAR_ARRIVED: return a ? ts_time_to_ms(a->st.arrive) : 0;
  case TS_VAR_COUNT: return w->class_count[v.index];
  case TS_VAR_WAITERS:
  case TS_VAR_VERSION: {
    const ts_chan_decl *d = &w->model->chans[v.index];
    int inst;
    switch (d->scope) {
    case TS_SCOPE_SHARED: inst = 0; break;
    case TS_SCOPE_PER_WORKER: inst = a ? a->worker : 0; break;
    case TS_SCOPE_ACTOR: inst = a ? (a->x && a->x->parent >= 0 ? a->x->parent : a->id) : 0; break;
    default: /* indexed: an instance (in range: (int) is floor) */
      if (!(v.arg >= 0 && v.arg < d->instances) || v.arg != (double)(int)v.arg)
        return NAN; /* the caller's range check names the expression */
      inst = (int)v.arg;
    }
    const ts_chan *ch = &w->chans[w->chan_base[v.index] + inst];
    return v.kind == TS_VAR_WAITERS ? (double)ch->waiters.len : (double)ch->version;
  }
  case TS_VAR_ACTOR:
    return a && a->x && a->x->vars ? a->x->vars[v.index] : a ? w->model->classes[a->klass].var_init[v.index] : 0;
  case TS_VAR_LET: return a ? let_value(c, v.index) : 0;
  default: return 0;
  }
}

/* Forget from lc (an actor of class c) the lets that read the version of a
 * channel notified since lc->chan_epoch. */
static void forget_versions(const ts_world *w, int c, ts_let_cache *lc)
{
  size_t n = w->model->nchans;
  for (size_t d = 0; d < n; d++)
    if (w->chan_last[d] > lc->chan_epoch)
      lc->known &= ~w->chan_lets[(size_t)c * n + d];
  lc->chan_epoch = w->chan_epoch;
}

/* lc (actor a's let cache) made current: emptied when a's worker changed
 * or the let epoch moved on by more than the notifies since (a counter or a
 * class count changed too), else the lets and index starts that read a
 * channel notified since it was last current forgotten. (A notify moves
 * both epochs on, so that one test, lc->epoch == w->let_epoch, tells that
 * nothing changed.) */
static void lets_refresh(const ts_world *w, const ts_actor *a, ts_let_cache *lc)
{
  if (lc->worker != a->worker || w->let_epoch - lc->epoch != w->chan_epoch - lc->chan_epoch) {
    lc->known = 0;
    lc->worker = a->worker;
    lc->epoch = w->let_epoch;
    lc->chan_epoch = w->chan_epoch;
  } else if (lc->epoch != w->let_epoch) { /* versions moved on, nothing else */
    forget_versions(w, a->klass, lc);
    lc->epoch = w->let_epoch;
  }
}

/* let_value's slow path: let k evaluated (after the kept values of lc, an
 * actor's, are emptied when its worker or the let epoch changed, and the
 * lets of notified channels forgotten), and remembered. Out of line: its
 * evaluation makes a large frame that every read would pay. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static double let_eval(evctx *m, int k, ts_let_cache *lc)
{
  const ts_world *w = m->w;
  const ts_actor *a = m->a;
  if (lc) {
    lets_refresh(w, a, lc);
    if (lc->known >> k & 1)
      return lc->v[k];
  }
  const ts_expr *e = w->model->classes[a->klass].lets[k];
  double val = TS_EXPR_UNLIKELY(w->slow_paths) ? ts_expr_eval(e, get, m) : ts__expr_eval_inline(e, get, m);
  if (lc) {
    lc->v[k] = val;
    lc->known |= UINT64_C(1) << k;
  }
  if (k < LET_MEMO) {
    m->memo[k] = val;
    m->known |= UINT64_C(1) << k;
  }
  return val;
}

static inline double let_value(evctx *m, int k)
{
  const ts_world *w = m->w;
  const ts_actor *a = m->a;
  if (k < LET_MEMO && (m->known >> k & 1))
    return m->memo[k];
  /* a stable let is kept in the actor's extension across evaluations */
  ts_let_cache *lc = a->x && k < 64 && (w->let_stable[a->klass] >> k & 1) ? a->x->lets : NULL;
  if (lc && lc->worker == a->worker && lc->epoch == w->let_epoch &&
      (lc->known >> k & 1))
    return lc->v[k];
  return let_eval(m, k, lc);
}

/* Whether variable v keeps a let stable (ctx: the stable lets of its class so far). */
static int stable_var(void *ctx, ts_expr_var v)
{
  const uint64_t *stable = ctx;
  switch (v.kind) {
  case TS_VAR_INDEX:
  case TS_VAR_N:
  case TS_VAR_W:
  case TS_VAR_WORKER:
  case TS_VAR_POOL_SIZE:
  case TS_VAR_COUNTER:
  case TS_VAR_COUNT:
  case TS_VAR_ACTOR:   /* (a set of it forgets the lets that read it: ts__lets_forget_var) */
  case TS_VAR_VERSION: return 1; /* (a notify forgets the lets that read its channel: forget_versions) */
  case TS_VAR_LET: return v.index < 64 && (*stable >> v.index & 1);
  default: return 0; /* now, a loop's iteration, and whatever else changes by itself */
  }
}

/* ts__lets_init's walk of the variables of stable let l of a class: l joins
 * lets[j] (j < n) when it reads variable j of this kind (an actor variable,
 * a channel's version), directly or through an earlier let of lets[j]
 * (likewise the slots of a kept index start, after the lets). */
typedef struct var_walk {
  uint64_t *lets;
  size_t n;
  int kind;
  uint64_t bits; /* l's bit (or the slots of a kept index start) */
} var_walk;

static int note_var(void *ctx, ts_expr_var v)
{
  var_walk *vw = ctx;
  for (size_t j = 0; j < vw->n; j++)
    if ((v.kind == vw->kind && v.index == (int)j) || (v.kind == TS_VAR_LET && v.index < 64 && (vw->lets[j] >> v.index & 1)))
      vw->lets[j] |= vw->bits;
  return 1;
}

/* Values of an index start kept at most. */
#define IDX_KEEP 4
/* Instructions of a start kept at most, unless it is the whole code (its
 * run copies it and the end: keep_start). */
#define IDX_START_CODE 32

/* Whether the code of index e after a kept start of len instructions that
 * leaves k values is one variable's read and a RING (ts_idx_pre.ring). */
static int ring_rest(const ts_expr *e, size_t len, int k)
{
  const ts_expr_instr *rest = e->code + len;
  return k == 2 && len + 2 == e->len &&
         (rest[0].op == TS_XOP_VAR || (rest[0].op >= TS_XOP_VAR_0 && rest[0].op < TS_XOP_VAR_0 + TS_XOP_VAR_KINDS)) &&
         rest[1].op == TS_XOP_RING;
}

/* The kept index starts of class c (ts_world.idx_pre), after its lets are
 * known (let_stable, var_lets, chan_lets): slots from the class's nlets up,
 * while they fit in the 64 bits of the let cache. */
static int idx_init(ts_world *w, size_t c)
{
  const ts_model *m = w->model;
  const ts_class *k = &m->classes[c];
  if (!(w->idx_pre[c] = calloc(k->nsteps + 1, sizeof *w->idx_pre[c])))
    return -1;
  int slot = (int)k->nlets;
  for (size_t j = 0; j < k->nsteps; j++) {
    const ts_step *s = &k->steps[j];
    int n = 0;
    size_t len = s->index && s->type != &ts_op_hop /* (its target: ts__eval) */
                     ? ts__expr_stable_prefix(s->index, stable_var, &w->let_stable[c], IDX_KEEP, &n)
                     : 0;
    if (len == 0 || (len < s->index->len && len > IDX_START_CODE))
      continue;
    /* the same start as an earlier step's (an index written twice): its slots */
    size_t same = 0;
    while (same < j && !(w->idx_pre[c][same].bits && w->idx_pre[c][same].len == (int)len &&
                         ts__expr_same_start(k->steps[same].index, s->index, len)))
      same++;
    if (same < j) {
      w->idx_pre[c][j] = w->idx_pre[c][same];
      w->idx_pre[c][j].e = s->index;
      w->idx_pre[c][j].ring = ring_rest(s->index, len, n);
      continue;
    }
    if (slot + n > 64)
      continue;
    uint64_t bits = ((UINT64_C(1) << n) - 1) << slot;
    w->idx_pre[c][j] =
      (ts_idx_pre){.bits = bits, .len = (int)len, .k = n, .slot = slot, .ring = ring_rest(s->index, len, n), .e = s->index};
    var_walk vw = {.lets = &w->var_lets[c * w->var_stride], .n = k->nvars, .kind = TS_VAR_ACTOR, .bits = bits};
    ts__expr_code_reads_only(s->index, len, note_var, &vw);
    vw = (var_walk){.lets = &w->chan_lets[c * m->nchans], .n = m->nchans, .kind = TS_VAR_VERSION, .bits = bits};
    ts__expr_code_reads_only(s->index, len, note_var, &vw);
    w->idx_bits[c] |= bits;
    slot += n;
    if (slot > w->let_slots)
      w->let_slots = slot;
  }
  return 0;
}

int ts__lets_init(ts_world *w)
{
  const ts_model *m = w->model;
  w->var_stride = 0;
  for (size_t c = 0; c < m->nclasses; c++)
    if (m->classes[c].nvars > w->var_stride)
      w->var_stride = m->classes[c].nvars;
  w->let_stable = calloc(m->nclasses + 1, sizeof *w->let_stable);
  w->var_lets = calloc(m->nclasses * w->var_stride + 1, sizeof *w->var_lets);
  w->chan_lets = calloc(m->nclasses * m->nchans + 1, sizeof *w->chan_lets);
  w->chan_last = calloc(m->nchans + 1, sizeof *w->chan_last);
  w->idx_pre = calloc(m->nclasses + 1, sizeof *w->idx_pre);
  w->idx_bits = calloc(m->nclasses + 1, sizeof *w->idx_bits);
  if (!w->let_stable || !w->var_lets || !w->chan_lets || !w->chan_last || !w->idx_pre || !w->idx_bits)
    return -1;
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    uint64_t stable = 0;
    for (size_t l = 0; l < k->nlets && l < 64; l++)
      if (ts_expr_reads_only(k->lets[l], stable_var, &stable)) {
        stable |= UINT64_C(1) << l;
        uint64_t bit = UINT64_C(1) << l;
        var_walk vw = {.lets = &w->var_lets[c * w->var_stride], .n = k->nvars, .kind = TS_VAR_ACTOR, .bits = bit};
        ts_expr_reads_only(k->lets[l], note_var, &vw);
        vw = (var_walk){.lets = &w->chan_lets[c * m->nchans], .n = m->nchans, .kind = TS_VAR_VERSION, .bits = bit};
        ts_expr_reads_only(k->lets[l], note_var, &vw);
        if ((int)l >= w->let_slots)
          w->let_slots = (int)l + 1;
      }
    w->let_stable[c] = stable;
    if (idx_init(w, c) != 0)
      return -1;
  }
  return 0;
}

void ts__lets_forget_var(ts_world *w, ts_actor *a, int j)
{
  if (a->x && a->x->lets)
    a->x->lets->known &= ~w->var_lets[(size_t)a->klass * w->var_stride + (size_t)j];
}

double ts__eval(ts_world *w, const ts_actor *a, const ts_expr *e)
{
  evctx c;
  c.w = w;
  c.a = a;
  c.known = 0;
  /* the machine with get inlined; slow_paths (tests): ts_expr_eval's, calling get */
  return TS_EXPR_UNLIKELY(w->slow_paths) ? ts_expr_eval(e, get, &c) : ts__expr_eval_inline(e, get, &c);
}

/* to[0..k) = from[0..k), 1 <= k <= IDX_KEEP (unrolled: not a memcpy call). */
static inline void copy_values(double *to, const double *from, int k)
{
  switch (k) {
  case 4: to[3] = from[3]; /* fall through */
  case 3: to[2] = from[2]; /* fall through */
  case 2: to[1] = from[1]; /* fall through */
  default: to[0] = from[0];
  }
}

/* index_kept's slow path: the kept start ip of index e made current in lc
 * (actor a's let cache): emptied when a's worker or the let epoch changed,
 * the lets of notified channels forgotten, and the start evaluated and
 * kept when its values are not there. Out of line: rare, and its copy of
 * the start would enlarge every index's frame. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void keep_start(const ts_world *w, const ts_actor *a, const ts_expr *e, const ts_idx_pre *ip, ts_let_cache *lc)
{
  lets_refresh(w, a, lc);
  if ((lc->known & ip->bits) == ip->bits)
    return;
  evctx c;
  c.w = w;
  c.a = a;
  c.known = 0;
  ts_expr_instr start[IDX_START_CODE + 1]; /* (the machine runs to an end: the whole code has its own) */
  const ts_expr_instr *code = e->code;
  if ((size_t)ip->len < e->len) {
    memcpy(start, e->code, (size_t)ip->len * sizeof *start);
    start[ip->len] = (ts_expr_instr){.op = TS_XOP_END};
    code = start;
  }
  double st[TS_EXPR_STACK];
  ts__expr_run_from(code, get, &c, st, 0); /* (leaves ip->k values) */
  copy_values(&lc->v[ip->slot], st, ip->k);
  lc->known |= ip->bits;
}

/* Index e of actor a's step whose start ip keeps (ts_world.idx_pre), as
 * ts__eval gives it: the start's values from a's let cache (lc), evaluated
 * and kept when they are not current, then the rest of e's code from them. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline double index_kept(const ts_world *w, const ts_actor *a, const ts_expr *e, const ts_idx_pre *ip,
                                ts_let_cache *lc)
{
  if (!(lc->worker == a->worker && lc->epoch == w->let_epoch &&
        (lc->known & ip->bits) == ip->bits))
    keep_start(w, a, e, ip, lc);
  if ((size_t)ip->len == e->len) /* (the whole code: its one value) */
    return lc->v[ip->slot];
  evctx c;
  c.w = w;
  c.a = a;
  c.known = 0;
  if (ip->ring) { /* the rest is x and a RING: what the machine computes from B and C kept, without it */
    const ts_expr_instr *in = e->code + ip->len;
    double x = get(&c, in[0].var); /* (a TS_XOP_VAR_k keeps its variable, kind k) */
    return ts__expr_ring(lc->v[ip->slot], lc->v[ip->slot + 1], x, in[1].num, in[1].mod);
  }
  double st[TS_EXPR_STACK];
  copy_values(st, &lc->v[ip->slot], ip->k);
  return ts__expr_run_from(e->code + ip->len, get, &c, st, ip->k) == 1 ? st[0] : NAN;
}

/* ts__instance's failure: index value v of a's step s is not an instance. */
#if defined(__GNUC__)
__attribute__((noinline, cold))
#endif
static int index_fail(ts_world *w, const ts_actor *a, const ts_step *s, double v, int instances)
{
  char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
  return ts__fail(w, s, "index \"%s\" is %s for actor %d (class %s, i = %d): expected an integer in [0, %d)",
                  ts_expr_excerpt(ts_expr_text(s->index), quoted, sizeof quoted), ts_expr_value_text(num, sizeof num, v, ""), a->id,
                  w->model->classes[a->klass].name, a->index, instances);
}

int ts__instance(ts_world *w, ts_actor *a, const ts_step *s, ts_scope scope, int instances)
{
  if (scope != TS_SCOPE_INDEXED) /* (tested first: the indexed scope is the common case here) */
    return scope == TS_SCOPE_ACTOR ? (a->x && a->x->parent >= 0 ? a->x->parent : a->id)
           : scope == TS_SCOPE_SHARED ? 0
                                      : a->worker; /* per worker */
  /* a kept start (idx_pre) of the index of a's step (steps[a->pc], where
   * its op runs; s's when it is that expression: ip->e, NULL when nothing
   * is kept): from the actor's let cache; slow_paths (tests): ts__eval, the
   * whole code */
  const ts_idx_pre *ip = &w->idx_pre[a->klass][a->pc];
  double v = ip->e == s->index && a->x && a->x->lets && !w->slow_paths ? index_kept(w, a, s->index, ip, a->x->lets)
                                                                        : ts__eval(w, a, s->index);
  if (TS_EXPR_UNLIKELY(!(v >= 0 && v < instances) || v != (double)(int)v)) /* (in range: (int) is floor) */
    return index_fail(w, a, s, v, instances);
  return (int)v;
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

/* Done actor a is handed to the world's on_done; when its class allows, its
 * extension goes to the next of its class and its chunk is freed once all
 * of the chunk's actors are retired (at the next sweep). */
__attribute__((always_inline)) static inline void retire(ts_world *w, ts_actor *a) /* (in its callers' frames) */
{
  if (w->on_done(w->done_ctx, w, a) != 0) {
    ts__world_nomem(w);
    return;
  }
  if (!w->reclaim[a->klass])
    return;
  if (a->x && a->x != &w->ext_sink) {
    *(void **)(void *)a->x = w->ext_free[a->klass];
    w->ext_free[a->klass] = a->x;
  }
  a->x = NULL;
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
  ts__actor_set_state(w, a, TS_ACTOR_DONE);
  a->st.done = now;
  if (a->x) { /* (without one: no marks, so its wave is arrival to end) */
    if (a->x->wave_start < 0)
      a->x->wave_start = a->st.arrive;
    if (a->x->wave_end < 0)
      a->x->wave_end = now;
  }
  w->done++;
  w->live--;
  w->live_bytes -= w->model->classes[a->klass].size_bytes;
  rng_release(w, a);
  if (!a->hidden)
    w->workers[a->home].live--;
  if (w->followers) /* (most models: no class follows another) */
    start_followers(w, a);
  if (w->on_done)
    retire(w, a);
  return back;
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

ts_actor_ext *ts__actor_ext(ts_world *w, ts_actor *a)
{
  const ts_model *m = w->model;
  const ts_class *c = &m->classes[a->klass];
  /* one block: the extension, then the per-actor arrays of the features the model uses */
  size_t nl = (size_t)c->loops, ns = m->nspans, nk = m->nlocks, nc = m->nchans, nvar = c->nvars;
  size_t nv = w->let_stable[a->klass] | w->idx_bits[a->klass]
                  ? (sizeof(ts_let_cache) + (size_t)w->let_slots * sizeof(double) + 15) & ~(size_t)15
                  : 0;
  size_t head = (sizeof(ts_actor_ext) + 15) & ~(size_t)15;
  size_t bytes = head + nv + nvar * sizeof(double) + nl * sizeof(ts_loop) + ns * sizeof(ts_time) + nk * sizeof(ts_held) +
                 nc * sizeof(ts_seen);
  char *p;
  if (w->ext_free && w->ext_free[a->klass]) { /* a retired actor's of its class: the same size */
    p = w->ext_free[a->klass];
    w->ext_free[a->klass] = *(void **)(void *)p;
  } else {
    p = ts__pool_take(&w->rng_pool, bytes);
  }
  if (!p) {
    ts__world_nomem(w);
    return &w->ext_sink;
  }
  ts_actor_ext *x = (ts_actor_ext *)(void *)p;
  *x = (ts_actor_ext){.parent = -1, .wait_inst = -1, .mark = -1, .carried = -1, .poll_parent = -1, .first_child = -1,
                      .next_child = -1, .wave_start = -1, .wave_end = -1, .settled = -1};
  p += head;
  x->lets = nv ? (ts_let_cache *)(void *)p : NULL;
  if (x->lets)
    *x->lets = (ts_let_cache){.worker = -1};
  p += nv;
  x->vars = nvar ? (double *)(void *)p : NULL;
  p += nvar * sizeof(double);
  for (size_t j = 0; j < nvar; j++)
    x->vars[j] = c->var_init[j];
  x->loops = nl ? (ts_loop *)(void *)p : NULL;
  p += nl * sizeof(ts_loop);
  x->held = nk ? (ts_held *)(void *)p : NULL;
  p += nk * sizeof(ts_held);
  x->seen = nc ? (ts_seen *)(void *)p : NULL;
  p += nc * sizeof(ts_seen);
  x->span_t0 = ns ? (ts_time *)(void *)p : NULL;
  for (size_t j = 0; j < nl; j++)
    x->loops[j] = (ts_loop){0, 0};
  for (size_t j = 0; j < nk; j++)
    x->held[j] = (ts_held){-1, -1};
  for (size_t j = 0; j < nc; j++)
    x->seen[j] = (ts_seen){-1, -1, 0};
  for (size_t j = 0; j < ns; j++)
    x->span_t0[j] = -1;
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
