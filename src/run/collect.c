/* One replication's actors, reduced as they are done. The world hands each
 * actor to ts__collect_done when it is done (ts_world_spec.done), so its
 * memory can go to the actors that come after it; after the run,
 * ts__collect_end takes the actors that are not done. Every per-actor
 * statistic, the values a point pools and the samples rows are made here,
 * in actor-id order, as a pass over the finished world's actors did: the
 * means are GSL's running mean in that order, so their bits are the same.
 *
 * Invariant: every actor below `base` has been taken (or, not counted,
 * skipped); the window holds the done actors at and above it, slot
 * (head + id - base) mod cap. So the memory is for the actors done out of
 * id order (behind one that is not done), and for the values that a
 * quantile needs: one double per actor, and only once two values differ.
 * A slot is 13 bytes (has, wq, wrec); the record of an actor to take is
 * kept apart (recs), so the spawned tasks that end behind a fixed actor
 * (moq's 28,000 GroupServe children behind viewers that never end) hold a
 * slot each, not a record.
 * A quantity known to be 0 for every actor so far is not read (see relive). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/sweep_internal.h"

/* A quantity the collector takes actor by actor. */
typedef struct ts__live {
  int q;             /* TS_Q_* */
  int pool;          /* c->pool[j] */
  int need;          /* c->need[j] */
  size_t at;         /* its index j among c->q times sizeof (ts__acc): its accumulator's offset in a row's, in bytes (one add) */
} ts__live;

static int per_actor(const ts_metric *x)
{
  return x->source == TS_SRC_ACTOR || x->source == TS_SRC_RATIO;
}

/* What a quantity's accumulator keeps beside its counts (collector.need):
 * the values themselves (a quantile reads them), the running mean, the max
 * and min. A quantity's statistics no metric of the run reads are not made:
 * in an M/M/1 run the CPU and done time are read only as medians. */
enum { NEED_VALUES = 1, NEED_MEAN = 2, NEED_ENDS = 4 };

/* What statistic stat of ts__actor_stat needs (NEED_*): its values for a
 * quantile; mean, max and min are streamed. */
static int stat_needs(int stat)
{
  switch (stat) {
  case 2: return NEED_MEAN;
  case 4:
  case 6: return NEED_ENDS;
  default: return NEED_VALUES;
  }
}

static int qindex(const collector *c, int q)
{
  for (int j = 0; j < c->nq; j++)
    if (c->q[j] == q)
      return j;
  return -1;
}

int ts__collect_init(collector *c, const point_run *pr, const ts_sweep *out, int r, rep_out *o)
{
  const ts_metric_list *l = &pr->cr->l;
  const ts_model *m = &pr->cr->m;
  memset(c, 0, sizeof *c);
  c->pr = pr;
  c->out = out;
  c->rep = r;
  c->o = o;
  size_t nl = l->n;
  c->q = malloc((nl + 1) * sizeof *c->q);
  c->need = calloc(nl + 1, 1);
  c->pool = malloc((nl + 1) * sizeof *c->pool);
  c->row_of = malloc((m->nclasses + 1) * sizeof *c->row_of);
  if (!c->q || !c->need || !c->pool || !c->row_of)
    return -1;
  for (size_t i = 0; i < nl; i++) {
    const ts_metric *x = &l->v[i];
    if (!per_actor(x) || !pr->cr->want[i])
      continue;
    int j = qindex(c, x->id);
    if (j < 0) {
      j = c->nq++;
      c->q[j] = x->id;
      c->pool[j] = -1;
    }
    c->need[j] |= (unsigned char)stat_needs(x->stat);
    if (pr->pool && x->source == TS_SRC_ACTOR)
      c->pool[j] = pr->cr->qof[i];
  }
  for (size_t k = 0; k < m->nclasses; k++)
    c->row_of[k] = -1;
  for (int k = 0; k < pr->nrows; k++)
    for (size_t cl = 0; cl < m->nclasses; cl++)
      if (pr->rows[k].klass < 0 || pr->rows[k].klass == (int)cl)
        c->row_of[cl] = k;
  c->acc = calloc((size_t)pr->nrows * (size_t)c->nq + 1, sizeof *c->acc);
  c->live = malloc(((size_t)c->nq + 1) * sizeof *c->live);
  o->rowsamples = calloc((size_t)pr->nrows + 1, sizeof *o->rowsamples);
  if (!c->acc || !c->live || !o->rowsamples)
    return -1;
  c->direct = !pr->spec->format_samples && !pr->pool;
  c->spill_at = pr->spec->spill_values;
  for (size_t k = 0; k < (size_t)pr->nrows * (size_t)c->nq; k++)
    c->acc[k].v.spill_at = c->spill_at;
  if (pr->pool) {
    o->pv = calloc((size_t)pr->nrows * (size_t)pr->cr->nq + 1, sizeof *o->pv);
    if (!o->pv)
      return -1;
    for (size_t k = 0; k < (size_t)pr->nrows * (size_t)pr->cr->nq; k++)
      /* (read in order only: a buffer's worth in memory) */
      o->pv[k].spill_at = c->spill_at && c->spill_at < TS__SPILL_CHUNK ? c->spill_at : TS__SPILL_CHUNK;
  }
  return 0;
}

void ts__collect_finish(collector *c)
{
  for (int k = 0; c->acc && k < c->pr->nrows * c->nq; k++)
    ts__vals_finish(&c->acc[k].v);
  free(c->acc);
  free(c->q);
  free(c->need);
  free(c->pool);
  free(c->row_of);
  free(c->live);
  free(c->has);
  free(c->wq);
  free(c->wrec);
  free(c->recs);
  free(c->free_recs);
  memset(c, 0, sizeof *c);
}

/* Keep pooled value x (a NaN: not) in v, in order, zeros too (the point's
 * mean and sums read them in order; those before the first value that is
 * not 0 only counted, in v->zeros): in memory up to v's threshold, then in
 * its temporary file (ts__vals_push_slow). 0, or -1 (out of memory, or
 * v->err). */
static int keep(ts__vals *v, double x)
{
  if (isnan(x))
    return 0;
  if (x == 0 && v->mem.len == 0 && !v->f) { /* (a leading zero: counted; a quantity never used costs nothing) */
    v->zeros++;
    return 0;
  }
  if (v->mem.len < v->mem.cap) {
    v->mem.v[v->mem.len++] = x;
    return 0;
  }
  return ts__vals_push_slow(v, x);
}

/* Value x of the next actor (in id order) into a: its count and, as need
 * (NEED_*) asks, GSL's running mean (gsl_stats_mean's recurrence, in long
 * double), max and min, and the values once two differ (until then `first`
 * stands for them all). A value bit for bit equal to every one before it is only
 * counted: the recurrence adds (x - mean) / cnt = 0 (mean is first, or +0
 * for a first -0), and max and min do not move. (Always inlined: once per
 * quantity of every actor; out of line it cost a call each.) */
__attribute__((always_inline)) static inline int acc_add(ts__acc *a, double x, int need)
{
  int keep = need & NEED_VALUES;
  uint64_t bits;
  memcpy(&bits, &x, sizeof bits);
  a->all++;
  if (a->same) {
    if (bits == a->fbits) { /* (never a NaN: first is not) */
      a->cnt++;
      return 0;
    }
  } else if (a->cnt > 0 && !isnan(x)) {
    /* most values: two before them differed and x is a number, so only the
     * count, mean, ends and values move (the steps below, without the tests
     * that only the first values need) */
    a->cnt++;
    if (need & NEED_MEAN)
      a->mean += (x - a->mean) / (long double)(int64_t)a->cnt; /* (the count as a signed integer, exact: one fild) */
    if (need & NEED_ENDS) {
      if (x > a->max)
        a->max = x;
      if (x < a->min)
        a->min = x;
    }
    return keep ? ts__vals_push(&a->v, x) : 0;
  }
  if (isnan(x))
    return 0;
  a->cnt++;
  if (need & NEED_MEAN)
    a->mean += (x - a->mean) / (long double)(int64_t)a->cnt;
  if (a->cnt == 1) {
    a->first = a->min = a->max = x;
    a->fbits = bits;
    a->same = 1;
    return 0;
  }
  if (need & NEED_ENDS) {
    if (x > a->max)
      a->max = x;
    if (x < a->min)
      a->min = x;
  }
  if (a->same) { /* x is the first to differ */
    a->same = 0;
    for (size_t k = 1; keep && k < a->cnt; k++) /* the cnt - 1 before x were all first */
      if (ts__vals_push(&a->v, a->first))
        return -1;
  }
  return keep ? ts__vals_push(&a->v, x) : 0;
}

/* The actors so far of a quantity not taken actor by actor (it was 0 for
 * every one of them) into a, to n actors: what acc_add would make of n zeros
 * (a holds nothing yet, or only +0s). */
static void acc_zeros(ts__acc *a, size_t n)
{
  if (a->all >= n)
    return;
  if (a->cnt == 0) {
    a->first = a->min = a->max = 0;
    a->fbits = 0; /* +0 */
    a->same = 1;
  }
  a->cnt += n - a->all;
  a->all = n;
}

/* Memory for the values of quantity j that each row expects
 * (ts__vals_reserve), when a quantile reads them: one per actor of the
 * row's classes that w makes (for a class that makes them as it goes, those
 * made so far), a hint only. Made once, not grown (and copied) by doubling. */
static void reserve(collector *c, const ts_world *w, int j)
{
  if (!(c->need[j] & NEED_VALUES))
    return;
  for (int k = 0; k < c->pr->nrows; k++) {
    size_t n = 0;
    for (size_t cl = 0; cl < w->model->nclasses; cl++)
      if (c->row_of[cl] == k && w->class_count[cl] > 0)
        n += (size_t)w->class_count[cl];
    ts__vals_reserve(&c->acc[(size_t)k * (size_t)c->nq + (size_t)j].v, n);
  }
}

/* c->live for w as it is now: a quantity the world says is 0 for every actor
 * so far (a state no actor was in, a lock time without locks, slice-timer
 * CPU and slices before any timed segment, queue time before any actor could
 * queue) is left out, unless a point pools it (its values are kept one by
 * one). A quantity that joins has its zeros so far counted. The states only
 * ever join w's states_used, and the bits only join its quantities_used, so
 * a quantity once live stays live. */
__attribute__((noinline, cold)) /* (rare: kept out of take's frame) */
static void relive(collector *c, const ts_world *w)
{
  c->nlive = 0;
  for (int j = 0; j < c->nq; j++) {
    if (c->pool[j] < 0 && ts_metric_world_actor_zero(c->q[j], w))
      continue;
    c->live[c->nlive++] = (ts__live){.q = c->q[j], .at = (size_t)j * sizeof(ts__acc), .need = c->need[j], .pool = c->pool[j]};
    reserve(c, w, j);
    for (int k = 0; k < c->pr->nrows; k++)
      acc_zeros(&c->acc[(size_t)k * (size_t)c->nq + (size_t)j], c->o->rowsamples[k]);
  }
  c->used = w->states_used;
  c->qused = w->quantities_used;
  c->live_ok = 1;
}

/* Take one counted actor's measurements (the next in id order): from its
 * record s, or (s NULL) from the actor a itself, done now (no samples rows
 * to write: the quantities only, not the whole record). pooled: the point
 * may pool values (0: it pools none, c->pool is all -1). Always inlined in
 * take, take_pooled and ts__collect_done (the direct path: c->direct) with
 * constant s, a and pooled, so that each copy has one of the reads and only
 * the pool tests it needs. */
__attribute__((always_inline)) static inline int take_in(collector *c, const ts_world *w, const ts_actor_stats *s,
                                                         const ts_actor *a, int pooled)
{
  const point_run *pr = c->pr;
  rep_out *o = c->o;
  if (!c->live_ok || c->used != w->states_used || c->qused != w->quantities_used)
    relive(c, w);
  int klass = s ? s->klass : a->klass;
  int row = c->row_of[klass];
  ts__acc *ra = row >= 0 ? &c->acc[(size_t)row * (size_t)c->nq] : NULL;
  if (ra)
    o->rowsamples[row]++;
  for (const ts__live *l = c->live, *end = ra ? l + c->nlive : l; l < end; l++) {
    double x = s ? ts_metric_quantity(l->q, s) : ts_metric_actor_quantity(l->q, w, a);
    ts__acc *acc = (ts__acc *)(void *)((char *)ra + l->at);
    if (acc_add(acc, x, l->need)) {
      c->failed = acc->v.err ? &acc->v : NULL;
      return -1;
    }
    if (pooled && l->pool >= 0) {
      ts__vals *pv = &o->pv[(size_t)row * (size_t)pr->cr->nq + (size_t)l->pool];
      if (keep(pv, x)) {
        c->failed = pv->err ? pv : NULL;
        return -1;
      }
    }
  }
  const ts_sweep_spec *spec = pr->spec;
  if (s && spec->format_samples &&
      (spec->format_samples(spec->samples_ctx, c->out, w, s, pr->combo, c->rep, &o->text) || o->text.failed)) {
    c->samples_failed = 1;
    return -1;
  }
  return 0;
}

/* take_in from actor record s. (A function of its own, out of its callers:
 * they take most actors by the direct path.) */
__attribute__((noinline)) static int take(collector *c, const ts_world *w, const ts_actor_stats *s)
{
  return take_in(c, w, s, NULL, 1);
}

/* take_in from actor a, done now, at a point that pools values. */
__attribute__((noinline)) static int take_pooled(collector *c, const ts_world *w, const ts_actor *a)
{
  return take_in(c, w, NULL, a, 1);
}

/* Room in the window for id (>= base). */
static int window_fit(collector *c, int id)
{
  size_t off = (size_t)(id - c->base);
  if (off < c->cap)
    return 0;
  size_t cap = c->cap ? c->cap : 64;
  while (cap <= off)
    cap *= 2;
  unsigned char *has = calloc(cap, 1);
  ts_time *wq = malloc(cap * sizeof *wq);
  int *wrec = malloc(cap * sizeof *wrec);
  if (!has || !wq || !wrec) {
    free(has);
    free(wq);
    free(wrec);
    return -1;
  }
  for (size_t k = 0; k < c->cap; k++) { /* unwrapped: base at 0 */
    size_t from = (c->head + k) & (c->cap - 1);
    has[k] = c->has[from];
    wq[k] = c->wq[from];
    wrec[k] = c->wrec[from];
  }
  free(c->has);
  free(c->wq);
  free(c->wrec);
  c->has = has;
  c->wq = wq;
  c->wrec = wrec;
  c->cap = cap;
  c->head = 0;
  return 0;
}

/* A free record for an actor that waits in the window: its index, or -1
 * (out of memory). */
static int record_new(collector *c)
{
  if (c->nfree > 0)
    return c->free_recs[--c->nfree];
  if (c->nrecs == 0 || (c->nrecs >= 16 && (c->nrecs & (c->nrecs - 1)) == 0)) { /* none yet, or full (16, 32, ...) */
    int cap = c->nrecs ? 2 * c->nrecs : 16;
    ts_actor_stats *recs = realloc(c->recs, (size_t)cap * sizeof *recs);
    if (!recs)
      return -1;
    c->recs = recs;
    int *fr = realloc(c->free_recs, (size_t)cap * sizeof *fr);
    if (!fr)
      return -1;
    c->free_recs = fr;
  }
  return c->nrecs++;
}

/* Slot `at` of the window (full) taken: its queue time summed, its actor
 * taken if it is one to take, the slot emptied. 0 or -1. */
static int window_take(collector *c, const ts_world *w, size_t at)
{
  c->queued += (double)c->wq[at];
  if (c->has[at] == 1) {
    int r = c->wrec[at];
    if (take(c, w, &c->recs[r]))
      return -1;
    c->free_recs[c->nfree++] = r;
  }
  c->has[at] = 0;
  return 0;
}

int ts__collect_done(void *ctx, const ts_world *w, const ts_actor *a)
{
  collector *c = ctx;
  if (a->id != c->base) { /* behind one not done yet: it waits in the window */
    if (window_fit(c, a->id))
      return -1;
    size_t at = (c->head + (size_t)(a->id - c->base)) & (c->cap - 1);
    c->wq[at] = a->queue_time;
    if (ts_world_counted(a)) {
      int r = record_new(c);
      if (r < 0)
        return -1;
      ts_world_stats_into(w, a->id, &c->recs[r]);
      c->wrec[at] = r;
    }
    c->has[at] = ts_world_counted(a) ? 1 : 2;
    return 0;
  }
  c->queued += (double)a->queue_time;
  if (ts_world_counted(a)) { /* (not a spawned task, not dropped) */
    if (c->direct) { /* (most runs: in this frame, no call) */
      if (take_in(c, w, NULL, a, 0))
        return -1;
    } else if (!c->pr->spec->format_samples) {
      if (take_pooled(c, w, a))
        return -1;
    } else {
      ts_actor_stats s;
      ts_world_stats_into(w, a->id, &s);
      if (take(c, w, &s))
        return -1;
    }
  }
  c->base++;
  if (c->cap == 0)
    return 0;
  c->head = (c->head + 1) & (c->cap - 1);
  while (c->has[c->head]) { /* the ones that waited for it */
    if (window_take(c, w, c->head))
      return -1;
    c->head = (c->head + 1) & (c->cap - 1);
    c->base++;
  }
  return 0;
}

int ts__collect_end(collector *c, const ts_world *w)
{
  for (int id = c->base; id < w->nactors; id++) {
    size_t off = (size_t)(id - c->base);
    if (off < c->cap && c->has[(c->head + off) & (c->cap - 1)]) {
      if (window_take(c, w, (c->head + off) & (c->cap - 1)))
        return -1;
      continue;
    }
    const ts_actor *a = ts_world_actor_at(w, id);
    if (!a) {
      id |= TS_CHUNK - 1; /* a chunk never made: its actors never arrived */
      continue;
    }
    c->queued += (double)a->queue_time;
    if (ts_world_counted(a)) { /* arrived and not done (the done ones were handed over) */
      c->unfinished += w->model->classes[a->klass].forever;
      ts_actor_stats s;
      ts_world_stats_into(w, id, &s);
      if (take(c, w, &s))
        return -1;
    }
  }
  return 0;
}

/* The quantiles of quantity j that c's rows report, of a's values, into
 * a->qv (ts__actor_stat's numbering), all at once: in one set of passes
 * over the file when they spilled, else by one selection per rank they read
 * (ts__quantiles). 0 or -1. */
static int row_quantiles(const collector *c, ts__acc *a, int j)
{
  static const int stats[] = {0, 1, 3, 5}; /* (the quantile statistics) */
  const ts_metric_list *l = &c->pr->cr->l;
  double q[4], got[4];
  int nq = 0, which[4];
  for (int k = 0; k < 4; k++)
    for (size_t i = 0; i < l->n; i++) {
      const ts_metric *x = &l->v[i];
      if (per_actor(x) && c->pr->cr->want[i] && x->id == c->q[j] && x->stat == stats[k]) {
        which[nq] = stats[k];
        q[nq++] = ts__stat_level[stats[k]];
        break;
      }
    }
  if (ts__vals_quantiles(&a->v, q, nq, got))
    return -1;
  for (int k = 0; k < nq; k++)
    a->qv[which[k]] = got[k];
  a->qdone = 1;
  return 0;
}

/* Statistic stat (ts__actor_stat's numbering) of row k's quantity j into
 * *out. 0, or -1 (out of memory, or its temporary file failed). */
static int acc_stat(const collector *c, ts__acc *a, int j, int stat, double *out)
{
  if (a->cnt == 0) {
    *out = NAN;
    return 0;
  }
  switch (stat) {
  case 2: *out = (double)a->mean; return 0;
  case 4: *out = a->max; return 0;
  case 6: *out = a->min; return 0;
  default: break;
  }
  if (a->same) {
    *out = ts_quantile_same(a->first, a->cnt, ts__stat_level[stat]);
  } else {
    if (!a->qdone && row_quantiles(c, a, j))
      return -1;
    *out = a->qv[stat];
  }
  return 0;
}

int ts__collect_rows(collector *c, const double *wv)
{
  const ts_metric_list *l = &c->pr->cr->l;
  size_t nl = l->n;
  for (int k = 0; k < c->pr->nrows; k++) {
    double *v = c->o->rows + (size_t)k * nl;
    memcpy(v, wv, nl * sizeof *v);
    for (size_t i = 0; i < nl; i++) {
      const ts_metric *x = &l->v[i];
      int j = per_actor(x) && c->pr->cr->want[i] ? qindex(c, x->id) : -1;
      if (j < 0)
        continue;
      ts__acc *a = &c->acc[(size_t)k * (size_t)c->nq + (size_t)j];
      acc_zeros(a, c->o->rowsamples[k]); /* (a quantity not live to the end) */
      if (acc_stat(c, a, j, x->stat, &v[i])) {
        c->failed = a->v.err ? &a->v : NULL;
        return -1;
      }
    }
    ts_metric_exprs(l, v);
  }
  return 0;
}
