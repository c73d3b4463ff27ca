/* Expressions evaluated for an actor: ts__eval (an expression with the
 * actor's variables: its index, worker, loops, actor variables and lets;
 * the world's counters, class counts and channel versions), the lets kept
 * across evaluations (the stable lets of a class, found at init by
 * ts__lets_init, kept in the actor's let cache and forgotten when what they
 * read changes: ts__lets_forget_var, a channel's notify, the let epoch), and
 * the instance a step's index means (ts__instance), whose stable start is
 * kept in the same cache (ts_world.idx_pre). The getter of the variables,
 * get, is inlined into the expression machine (expr_run.h). */
#include "model/internal.h"
#include "model/expr_run.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
