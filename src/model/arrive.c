/* Arrivals: when the actors of a fixed-count class arrive (their times,
 * batches and the engine's lane that merges the classes' cursors in (time,
 * actor id) order), and the classes that arrive until the horizon (one
 * pending SOURCE event each, one actor per arrival). world.c builds the
 * actors and calls these at init; the lane and on SOURCE events at run time. */
#include "model/internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How many actors one arrival of ar brings (a draw from r unless fixed). */
static int batch_size(ts_rng *r, const ts_arrival *ar)
{
  switch (ar->batch_kind) {
  case TS_BATCH_GEOMETRIC: return (int)ts_rng_geometric(r, 1 / ar->batch_mean);
  case TS_BATCH_UNIFORM: return ar->batch_lo + (int)ts_rng_index(r, (size_t)(ar->batch_hi - ar->batch_lo + 1));
  default: return ar->batch > 1 ? ar->batch : 1;
  }
}

double ts_arrival_batch_mean(const ts_arrival *a)
{
  switch (a->batch_kind) {
  case TS_BATCH_GEOMETRIC: return a->batch_mean;
  case TS_BATCH_UNIFORM: return (a->batch_lo + a->batch_hi) / 2.0;
  default: return a->batch;
  }
}

/* A Poisson gap of mean_ns drawn from r, in whole ns: llround of the draw
 * (ts__round_ns in its range [0, TS_DRAW_MAX], the same value without the
 * call), TS_TIME_MAX from 2^63 ns on (llround's range ends there). */
static inline ts_time poisson_gap(ts_rng *r, double mean_ns)
{
  double x = ts_rng_exponential(r, mean_ns);
  if (x >= 0 && x <= (double)TS_DRAW_MAX)
    return ts__round_ns(x);
  return x < 0x1p63 ? (ts_time)llround(x) : TS_TIME_MAX;
}

static int batched(const ts_arrival *ar)
{
  return ar->batch_kind != TS_BATCH_FIXED || ar->batch > 1;
}

/* a + b for a, b >= 0, TS_TIME_MAX where it would overflow: an arrival past
 * the 73-year limit is refused by the caller (ts__at_failed), never wrapped.
 * (GCC's overflow test: one jump on the add, where a compare before it cost
 * the M/M/1 row 12 instructions a job.) */
static inline ts_time add_sat(ts_time a, ts_time b)
{
  ts_time sum;
  return __builtin_add_overflow(a, b, &sum) ? TS_TIME_MAX : sum;
}

/* base + i * step for base, i, step >= 0, saturating as add_sat. */
static inline ts_time nth_sat(ts_time base, int i, ts_time step)
{
  if (step > 0 && (ts_time)i > (TS_TIME_MAX - base) / step)
    return TS_TIME_MAX;
  return base + (ts_time)i * step;
}

/* When arrival (epoch) i of a fixed-count class happens (before the horizon
 * check), drawn from r (the world's stream at init); TS_TIME_MAX for one
 * beyond any time that can be represented. */
static inline ts_time epoch_time(ts_rng *r, const ts_class *k, int i, ts_time *poisson_t)
{
  const ts_arrival *ar = &k->arrival;
  switch (ar->kind) {
  case TS_ARRIVE_PERIODIC: {
    ts_time t = nth_sat(ar->phase, i, ar->period);
    if (ar->jitter > 0)
      t = add_sat(t, (ts_time)(ts_rng_uniform(r) * (double)ar->jitter));
    return t;
  }
  case TS_ARRIVE_POISSON:
    *poisson_t = add_sat(*poisson_t, poisson_gap(r, 1e9 / ar->rate_per_s));
    return *poisson_t;
  case TS_ARRIVE_AFTER: return -1; /* started by its predecessor's end */
  default: return nth_sat(ar->start, i, ar->spacing);
  }
}

/* When the i-th actor of a fixed-count class arrives: its own arrival, or
 * its batch's (actors i, i + 1, ... share one arrival until it has brought
 * its batch). */
ts_time ts__arrival_time(ts_rng *r, const ts_class *k, int i, ts__arrivals *cur)
{
  if (!batched(&k->arrival))
    return epoch_time(r, k, i, &cur->poisson_t);
  if (cur->left <= 0) {
    cur->t = epoch_time(r, k, cur->epoch++, &cur->poisson_t);
    cur->left = batch_size(r, &k->arrival);
  }
  cur->left--;
  return cur->t;
}

/* The arrival cursor of fixed-count class c; NULL when it has none. */
int ts__lane_setup(ts_world *w, int c, ts_lane_class *lc)
{
  const ts_class *k = &w->model->classes[c];
  const ts_arrival *ar = &k->arrival;
  memset(lc, 0, sizeof *lc);
  lc->base = w->class_base[c];
  lc->lo = w->class_count[c];
  if (ar->kind == TS_ARRIVE_AT && ar->spacing >= 0 && !batched(ar)) {
    lc->start = ar->start;
    lc->step = ar->spacing;
    return 0;
  }
  if (ar->kind == TS_ARRIVE_PERIODIC && ar->jitter <= 0 && !batched(ar)) {
    lc->start = ar->phase;
    lc->step = ar->period;
    return 0;
  }
  if (w->lazy && !batched(ar) &&
      (ar->kind == TS_ARRIVE_POISSON || (ar->kind == TS_ARRIVE_PERIODIC && ar->jitter <= ar->period))) {
    /* times nondecreasing in the index (a jitter shorter than the period
     * keeps each arrival before the next period's): drawn as they come */
    lc->gen = ts_rng_clone(w->rng);
    lc->klass = c;
    lc->hi = w->class_count[c];
    lc->gen_i = -1;
    lc->gen_sum = ar->start;
    return lc->gen ? 0 : -1;
  }
  lc->stored = 1;
  lc->t = malloc(((size_t)w->class_count[c] + 1) * sizeof *lc->t);
  return lc->t ? 0 : -1;
}

/* A generated class's next arrival in the horizon (gen_i = hi: none left). */
/* ts__lane_gen_next's body (always inlined: ts__lane_next_one runs it in
 * its own frame, once an arrival). */
__attribute__((always_inline)) static inline void gen_next_in(ts_world *w, ts_lane_class *lc)
{
  const ts_class *k = &w->model->classes[lc->klass];
  while (++lc->gen_i < lc->hi) {
    ts_time at = epoch_time(lc->gen, k, lc->gen_i, &lc->gen_sum); /* (not batched) */
    if (at > TS_HORIZON_MAX && at <= w->horizon) {
      ts__at_failed(w, at); /* simulated time would pass the limit */
      break;
    }
    if (at > w->horizon) {
      w->arrivals_cut = w->class_cut[lc->klass] = 1;
      break; /* and so would every later one */
    }
    if (at >= 0) {
      lc->gen_t = at;
      return;
    }
  }
  lc->gen_i = lc->hi;
}

void ts__lane_gen_next(ts_world *w, ts_lane_class *lc)
{
  gen_next_in(w, lc);
}

/* Actor i of class c arrives at `at` (-1: not at all, it follows another's end). */
void ts__lane_note(ts_world *w, ts_lane_class *lc, int i, ts_time at)
{
  if (at > TS_HORIZON_MAX && at <= w->horizon) {
    ts__at(w, at, TS_EV_ARRIVE, lc->base + i, 0); /* fails: simulated time would pass the limit */
    at = -1;
  }
  int in = at >= 0 && at <= w->horizon;
  if (at > w->horizon)
    w->arrivals_cut = w->class_cut[lc->klass] = 1;
  if (lc->stored) {
    lc->t[i] = in ? at : -1;
    if (in && lc->hi > 0 && at < lc->last)
      lc->unsorted = 1;
    if (in) {
      lc->last = at;
      lc->hi++;
    }
    return;
  }
  if (in) { /* nondecreasing: the arriving indexes are one range */
    if (i < lc->lo)
      lc->lo = i;
    lc->hi = i + 1;
  }
}

/* The positions of a stored class in arrival order: stable by index. */
int ts__lane_order(ts_world *w, ts_lane_class *lc, int count)
{
  int n = 0;
  if (!lc->stored)
    return 0;
  if (lc->hi == 0) {
    free(lc->t);
    lc->t = NULL;
    return 0;
  }
  lc->order = malloc((size_t)lc->hi * sizeof *lc->order);
  if (!lc->order)
    return -1;
  for (int i = 0; i < count; i++)
    if (lc->t[i] >= 0)
      lc->order[n++] = i;
  if (lc->unsorted) { /* merge sort by (time, index): stable, no callback context needed */
    int *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
      return -1;
    for (int width = 1; width < n; width *= 2) {
      for (int lo = 0; lo < n; lo += 2 * width) {
        int mid = lo + width < n ? lo + width : n, hi = lo + 2 * width < n ? lo + 2 * width : n;
        int a = lo, b = mid, o = lo;
        while (a < mid && b < hi)
          tmp[o++] = lc->t[lc->order[b]] < lc->t[lc->order[a]] ? lc->order[b++] : lc->order[a++];
        while (a < mid)
          tmp[o++] = lc->order[a++];
        while (b < hi)
          tmp[o++] = lc->order[b++];
      }
      memcpy(lc->order, tmp, (size_t)n * sizeof *tmp);
    }
    free(tmp);
  }
  (void)w;
  return 0;
}

/* The lane's generator: the next arrival over all class cursors, least
 * (time, actor id) first. */
int ts__lane_next(void *ctx, ts_time *time, int32_t *obj)
{
  ts_world *w = ctx;
  ts_lane_class *best = NULL;
  ts_time bt = 0;
  int bi = 0;
  for (int c = 0; c < w->nlane; c++) {
    ts_lane_class *lc = &w->lane[c];
    ts_time t;
    int i;
    if (lc->gen) {
      if (lc->gen_i >= lc->hi)
        continue;
      i = lc->gen_i;
      t = lc->gen_t;
    } else if (lc->stored) {
      if (lc->pos >= lc->hi)
        continue;
      i = lc->order[lc->pos];
      t = lc->t[i];
    } else {
      if (lc->lo + lc->pos >= lc->hi)
        continue;
      i = lc->lo + lc->pos;
      t = lc->start + (ts_time)i * lc->step;
    }
    if (!best || t < bt) { /* classes in id order: a tie keeps the earlier */
      best = lc;
      bt = t;
      bi = lc->base + i;
    }
  }
  if (!best)
    return 0;
  best->pos++;
  if (best->gen)
    ts__lane_gen_next(w, best);
  *time = bt;
  *obj = bi;
  return 1;
}

int ts__lane_next_one(void *ctx, ts_time *time, int32_t *obj)
{
  ts_world *w = ctx;
  if (w->slow_paths) /* (tests: the search over the cursors, to compare) */
    return ts__lane_next(ctx, time, obj);
  ts_lane_class *lc = w->lane;
  if (lc->gen_i >= lc->hi)
    return 0;
  *time = lc->gen_t;
  *obj = lc->base + lc->gen_i;
  lc->pos++;
  gen_next_in(w, lc);
  return 1;
}

/* Whether class c's arrivals draw from the world's stream at init. */
int ts__draws_at_init(const ts_world *w, int c)
{
  const ts_class *k = &w->model->classes[c];
  const ts_arrival *ar = &k->arrival;
  return !k->forever && w->class_count[c] > 0 &&
         (ar->kind == TS_ARRIVE_POISSON || (ar->kind == TS_ARRIVE_PERIODIC && ar->jitter > 0) ||
          ar->batch_kind != TS_BATCH_FIXED);
}

/* The first arrival of each class that arrives until the horizon. */
void ts__start_sources(ts_world *w)
{
  const ts_model *m = w->model;
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_arrival *ar = &m->classes[c].arrival;
    if (!m->classes[c].forever)
      continue;
    ts_time at = ar->kind == TS_ARRIVE_PERIODIC ? ar->phase : ar->start;
    if (ar->kind == TS_ARRIVE_POISSON)
      at += poisson_gap(w->rng, 1e9 / ar->rate_per_s);
    else if (ar->jitter > 0)
      at += (ts_time)(ts_rng_uniform(w->rng) * (double)ar->jitter);
    if (at <= w->horizon)
      ts__at(w, at, TS_EV_SOURCE, (int32_t)c, 0);
    else
      w->arrivals_cut = w->class_cut[c] = 1;
  }
}

/* The i-th actor of source class c arrives now. Returns 0, or -1 when the run stops. */
static int source_actor(ts_world *w, int c, int i)
{
  ts_sim *sim = &w->sim;
  const ts_class *k = &w->model->classes[c];
  int p = k->pool, count = w->pool_base[p + 1] - w->pool_base[p];
  int wk;
  if (k->place == TS_PLACE_FIXED) {
    ts_actor probe = {.index = i, .klass = c, .worker = w->pool_base[p]};
    double v = ts__eval(w, &probe, k->place_worker);
    wk = ts__worker_of(w, p, v);
    if (wk < 0) {
      char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
      snprintf(w->errmsg, sizeof w->errmsg,
               "classes[%d].placement.worker: class %s's placement worker \"%s\" is %s for i = %d: expected [0, %d)",
               c, k->name, ts_expr_excerpt(ts_expr_text(k->place_worker), quoted, sizeof quoted),
               ts_expr_value_text(num, sizeof num, v, ""), i, count);
      w->error = TS_WORLD_MODEL;
      sim->failed = TS_SIM_STOP;
      return -1;
    }
  } else {
    wk = w->pool_base[p] + i % count; /* sources spread round robin */
  }
  ts_actor *a = ts__actor_new(w, c, i, wk, NULL);
  if (!a)
    return -1;
  ts__actor_arrive(w, a);
  return 0;
}

/* Whether one more arrival of class c would make more than w->max_alive
 * (ts_world_spec.max_alive) actors alive at once, of every class and spawned
 * tasks included (arrivals that outpace the workers grow the backlog, and its
 * memory, until the horizon). Then the run stops with TS_WORLD_MODEL, its
 * reason in errmsg. (ts__actor_new bounds the actor ids.) */
static int too_many_alive(ts_world *w, int c)
{
  if (w->live < w->max_alive)
    return 0;
  const ts_class *k = &w->model->classes[c];
  snprintf(w->errmsg, sizeof w->errmsg,
           "classes[%d].arrival: class %s: %d actors alive at %g ms (%d made, %d done) at n = %d: expected at "
           "most %d at once (do the arrivals outpace the workers?)",
           c, k->name, w->live, ts_time_to_ms(w->sim.now), w->nactors, w->done, w->n, w->max_alive);
  w->error = TS_WORLD_MODEL;
  w->sim.failed = TS_SIM_STOP;
  return 1;
}

void ts__on_source(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  if (w->ndead)
    ts__world_sweep(w);
  const ts_class *k = &w->model->classes[ev->obj];
  const ts_arrival *ar = &k->arrival;
  for (int b = batch_size(w->rng, ar); b > 0; b--) { /* one arrival, a batch of actors */
    if (too_many_alive(w, ev->obj))
      return;
    int i = w->class_count[ev->obj]++;
    w->let_epoch++; /* count(class) changed */
    if (source_actor(w, ev->obj, i))
      return;
  }
  int e = ++w->class_epochs[ev->obj];
  ts_time next = ar->kind == TS_ARRIVE_PERIODIC
                     ? ar->phase + (ts_time)e * ar->period +
                           (ar->jitter > 0 ? (ts_time)(ts_rng_uniform(w->rng) * (double)ar->jitter) : 0)
                     : sim->now + poisson_gap(w->rng, 1e9 / ar->rate_per_s);
  if (next < sim->now)
    next = sim->now;
  if (next <= w->horizon)
    ts__at(w, next, TS_EV_SOURCE, ev->obj, 0);
  else
    w->arrivals_cut = w->class_cut[ev->obj] = 1;
}
