/* Building, running and tearing down one replication. Actors of fixed-count
 * classes are made at init, numbered class by class; their arrivals count as
 * scheduled in actor order before anything else, so actors arriving at the
 * same instant reach their worker's loop in index order. The arrival times,
 * the engine's lane that serves them and the classes that arrive until the
 * horizon are in arrive.c. */
#include "model/internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dispatch.h"

/* An integer from a count or placement expression, evaluated at init; a
 * failure names the field by its JSON path: "pools" or "classes", the
 * index there, the field and what it is ("pool db's count"). */
static int init_int(ts_world *w, const ts_expr *e, const ts_actor *a, long lo, long hi, const char *array, int index,
                    const char *field, const char *what, const char *name, long *out)
{
  double v = ts__eval(w, a, e);
  if (!(v >= (double)lo && v <= (double)hi) || v != floor(v)) {
    char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM], who[32] = "";
    if (a)
      snprintf(who, sizeof who, ", i = %d", a->index);
    snprintf(w->errmsg, sizeof w->errmsg,
             "%s[%d].%s: %s %s's %s \"%s\" is %s at n = %d, W = %d%s: expected an integer in [%ld, %ld]", array,
             index, field, array[0] == 'p' ? "pool" : "class", name, what,
             ts_expr_excerpt(ts_expr_text(e), quoted, sizeof quoted), ts_expr_value_text(num, sizeof num, v, ""), w->n,
             w->nmain, who, lo, hi);
    w->error = TS_WORLD_MODEL;
    return -1;
  }
  *out = (long)v;
  return 0;
}

static int lay_out_pools(ts_world *w, int workers)
{
  const ts_model *m = w->model;
  w->pool_base = calloc(m->npools + 1, sizeof *w->pool_base);
  if (!w->pool_base)
    return -1;
  int total = 0;
  for (size_t p = 0; p < m->npools; p++) {
    long count = workers;
    w->pool_base[p] = total;
    if (p > 0 && init_int(w, m->pools[p].count, NULL, 1, 4096, "pools", (int)p - 1, "count", "count", m->pools[p].name,
                          &count))
      return -1;
    total += (int)count;
    if (p == 0)
      w->nmain = (int)count;
  }
  w->pool_base[m->npools] = total;
  w->nworkers = total;
  if (m->nidle && m->cores > 0 && m->cores < total) { /* idle.c prices a sleeping thread's core as idle */
    snprintf(w->errmsg, sizeof w->errmsg,
             "host.cores: %d cores for %d workers at n = %d, W = %d: with idle_states expected a core per worker "
             "(0 or at least %d: a sleeping thread's core would run another thread)",
             m->cores, total, w->n, w->nmain, total);
    w->error = TS_WORLD_MODEL;
    return -1;
  }
  w->workers = calloc((size_t)total, sizeof *w->workers);
  if (!w->workers)
    return -1;
  for (size_t p = 0; p < m->npools; p++)
    for (int i = w->pool_base[p]; i < w->pool_base[p + 1]; i++) {
      ts_worker *wk = &w->workers[i];
      wk->id = i;
      wk->pool = (int)p;
      wk->index = i - w->pool_base[p];
      wk->spec = &m->pools[p];
      wk->actor = -1;
      wk->blocked = -1;
      wk->cpu_scale = 1;
      ts__idle_init(w, wk);
      ts_ring_init(&wk->ready);
      ts_ring_init(&wk->timers);
      ts_ring_init(&wk->micro);
      ts_sched_queue_init(&wk->queue, &m->pools[p].sched);
      ts_ring_init(&wk->fifo_q);
      ts_ring_init(&wk->wakes);
      wk->fifo = m->pools[p].policy == &ts_sched_fifo;
      wk->rr_able = !w->obs && wk->fifo && m->pools[p].kind == TS_WORKER_EVENT_LOOP && m->pools[p].loop_overhead <= 0 &&
                    m->pools[p].priority_timer == 0 &&
                    !m->pools[p].preempt;
    }
  return 0;
}

/* Instances of each declaration: one per actor, one, one per worker, or `instances`. */
static int instances(const ts_world *w, ts_scope scope, int n_indexed)
{
  switch (scope) {
  case TS_SCOPE_ACTOR: return w->nfixed;
  case TS_SCOPE_SHARED: return 1;
  case TS_SCOPE_PER_WORKER: return w->nworkers;
  default: return n_indexed;
  }
}

static int lay_out_objects(ts_world *w)
{
  const ts_model *m = w->model;
  w->lock_base = calloc(m->nlocks + 1, sizeof *w->lock_base);
  w->chan_base = calloc(m->nchans + 1, sizeof *w->chan_base);
  if (!w->lock_base || !w->chan_base)
    return -1;
  for (size_t d = 0; d < m->nlocks; d++) {
    w->lock_base[d] = w->nlock_inst;
    w->nlock_inst += instances(w, m->locks[d].scope, m->locks[d].instances);
  }
  w->lock_base[m->nlocks] = w->nlock_inst;
  for (size_t d = 0; d < m->nchans; d++) {
    w->chan_base[d] = w->nchan_inst;
    w->nchan_inst += instances(w, m->chans[d].scope, m->chans[d].instances);
  }
  w->chan_base[m->nchans] = w->nchan_inst;
  w->locks = calloc(w->nlock_inst ? (size_t)w->nlock_inst : 1, sizeof *w->locks);
  w->chans = calloc(w->nchan_inst ? (size_t)w->nchan_inst : 1, sizeof *w->chans);
  w->servers = calloc(m->nservers ? m->nservers : 1, sizeof *w->servers);
  w->counters = calloc(m->ncounters ? m->ncounters : 1, sizeof *w->counters);
  w->spans = calloc(m->nspans ? m->nspans : 1, sizeof *w->spans);
  w->mutex_wait_by_lock = calloc(m->nlocks ? m->nlocks : 1, sizeof *w->mutex_wait_by_lock);
  w->lock_stat = calloc(m->nlocks ? m->nlocks : 1, sizeof *w->lock_stat);
  w->site_stat = calloc(m->nsites ? m->nsites : 1, sizeof *w->site_stat);
  if (!w->locks || !w->chans || !w->servers || !w->counters || !w->spans || !w->mutex_wait_by_lock || !w->lock_stat ||
      !w->site_stat)
    return -1;
  for (int l = 0; l < w->nlock_inst; l++) {
    w->locks[l].owner = -1;
    w->locks[l].last_worker = w->locks[l].prev_worker = -1;
    ts_ring_init(&w->locks[l].waiters);
    ts_ring_init(&w->locks[l].spinners);
  }
  for (int c = 0; c < w->nchan_inst; c++) {
    w->chans[c].stamp = -1;
    ts_ring_init(&w->chans[c].waiters);
  }
  for (size_t s = 0; s < m->nservers; s++)
    ts_sched_queue_init(&w->servers[s].queue, &m->servers[s].sched);
  for (size_t c = 0; c < m->ncounters; c++)
    w->counters[c] = m->counters[c].initial;
  return 0;
}

/* Counts of every class, in order (a count may read the counts before it). */
static int count_classes(ts_world *w)
{
  const ts_model *m = w->model;
  w->class_base = calloc(m->nclasses + 1, sizeof *w->class_base);
  w->class_count = calloc(m->nclasses + 1, sizeof *w->class_count);
  w->class_epochs = calloc(m->nclasses + 1, sizeof *w->class_epochs);
  w->class_cut = calloc(m->nclasses + 1, sizeof *w->class_cut);
  if (!w->class_base || !w->class_count || !w->class_epochs || !w->class_cut)
    return -1;
  int total = 0;
  for (size_t c = 0; c < m->nclasses; c++) {
    long count = 0;
    w->class_base[c] = total;
    if (!m->classes[c].forever &&
        init_int(w, m->classes[c].count, NULL, 0, TS_WORLD_MAX_ACTORS, "classes", (int)c, "count", "count", m->classes[c].name,
                 &count))
      return -1;
    w->class_count[c] = (int)count;
    total += (int)count;
  }
  w->class_base[m->nclasses] = total;
  w->nfixed = total;
  for (size_t c = 0; c < m->nclasses; c++) { /* the i-th follower starts when the i-th leader ends */
    const ts_arrival *ar = &m->classes[c].arrival;
    if (ar->kind == TS_ARRIVE_AFTER && !m->classes[ar->after].forever &&
        w->class_count[c] > w->class_count[ar->after]) {
      snprintf(w->errmsg, sizeof w->errmsg,
               "classes[%zu].count: class %s has %d actors at n = %d, more than the %d of class %s it follows "
               "(arrival \"after\"): the rest would never start",
               c, m->classes[c].name, w->class_count[c], w->n, w->class_count[ar->after], m->classes[ar->after].name);
      w->error = TS_WORLD_MODEL;
      return -1;
    }
  }
  if (total > TS_WORLD_MAX_ACTORS) {
    snprintf(w->errmsg, sizeof w->errmsg, "%d actors at n = %d: expected at most %d", total, w->n, TS_WORLD_MAX_ACTORS);
    w->error = TS_WORLD_MODEL;
    return -1;
  }
  return 0;
}

/* The worker actor i of class c goes to. */
static int place(ts_world *w, int c, int i, int id, int *load)
{
  const ts_class *k = &w->model->classes[c];
  int p = k->pool, count = w->pool_base[p + 1] - w->pool_base[p];
  if (k->place == TS_PLACE_FIXED) {
    ts_actor probe = {.index = i, .klass = c, .worker = w->pool_base[p]};
    long v;
    if (init_int(w, k->place_worker, &probe, 0, count - 1, "classes", c, "placement.worker", "placement worker", k->name,
                 &v))
      return -1;
    return w->pool_base[p] + (int)v;
  }
  if (count == 1) /* every rule picks the only worker (a hash mod 1 is 0) */
    return w->pool_base[p];
  return w->pool_base[p] + ts_dispatch_pick(w->model, id, count, load ? load + w->pool_base[p] : NULL, w->seed);
}

static int pure_var(void *ctx, ts_expr_var v)
{
  (void)ctx;
  switch (v.kind) {
  case TS_VAR_INDEX:
  case TS_VAR_N:
  case TS_VAR_W:
  case TS_VAR_WORKER:
  case TS_VAR_POOL_SIZE:
  case TS_VAR_ARRIVED:
  case TS_VAR_ACTOR: return 1;
  default: return 0; /* counters, class counts, lets... may have moved on by the time it is made */
  }
}

/* Whether the placement of class c's actors can be made again from their
 * index alone, when a lazy world makes their chunk: not least_loaded over
 * several workers (it depends on every placement before), and a fixed
 * placement that reads only the actor's coordinates. */
static int placement_pure(const ts_world *w, int c)
{
  const ts_class *k = &w->model->classes[c];
  if (k->place == TS_PLACE_FIXED)
    return ts_expr_reads_only(k->place_worker, pure_var, NULL);
  return w->pool_base[k->pool + 1] - w->pool_base[k->pool] == 1 || w->model->dispatch != TS_DISPATCH_LEAST_LOADED;
}

/* The worker every actor of class c goes to, when place gives it without
 * reading the actor (a placement that is not fixed, on a pool of one
 * worker); else -1. */
static int one_worker(const ts_world *w, int c)
{
  const ts_class *k = &w->model->classes[c];
  if (k->place == TS_PLACE_FIXED || w->pool_base[k->pool + 1] - w->pool_base[k->pool] != 1)
    return -1;
  return w->pool_base[k->pool];
}

int ts__world_make_fixed(ts_world *w, int lo, int hi)
{
  ts_actor *chunk = w->chunks[lo >> TS_CHUNK_BITS];
  int c = 0;
  /* a new chunk has no state columns yet (one is made for an actor of the
   * chunk, and freed with it), and a column made later zeroes the entries
   * of every fixed actor: so none is set here (tests: each set as for a
   * spawned actor, as a check) */
  int cols = w->slow_paths;
  for (int s = 0; s < TS_NSTATES; s++)
    cols |= w->scol[(lo >> TS_CHUNK_BITS) * TS_NSTATES + s] != NULL;
  for (int id = lo; id < hi;) {
    while (id >= w->class_base[c + 1])
      c++;
    /* class c's actors in [id, end): where each goes is the same question
     * for all of them (one worker: asked once; slow_paths, tests: each) */
    int end = w->class_base[c + 1] < hi ? w->class_base[c + 1] : hi;
    int kept = w->placed && !placement_pure(w, c), one = w->slow_paths ? -1 : one_worker(w, c);
    for (; id < end; id++) {
      int i = id - w->class_base[c], wk;
      if (one >= 0) {
        wk = one;
      } else if (kept) {
        wk = w->placed[id];
      } else if ((wk = place(w, c, i, id, NULL)) < 0) {
        w->sim.failed = TS_SIM_STOP;
        return -1;
      }
      if (cols)
        ts__actor_init(w, &chunk[id & (TS_CHUNK - 1)], id, c, i, wk, 0);
      else
        ts__actor_init_fields(w, &chunk[id & (TS_CHUNK - 1)], id, c, i, wk, 0);
    }
  }
  return 0;
}

/* Whether a done actor of class k may give its memory back: its steps are
 * all of ops after which nothing names a done actor (a spawn's root is
 * named by its tasks, a futures task by the wakers it registered and its
 * children; an op not in this list is kept, to be safe). */
static int class_retires(const ts_class *k)
{
  static const ts_op_type *const safe[] = {
      &ts_op_cpu,  &ts_op_io,     &ts_op_yield,  &ts_op_lock,   &ts_op_unlock,     &ts_op_mark, &ts_op_sleep,
      &ts_op_span_begin, &ts_op_span_end, &ts_op_wait, &ts_op_notify, &ts_op_hop, &ts_op_add, &ts_op_set,
      &ts_op_repeat, &ts_op_repeat_end, &ts_op_if, &ts_op_jump, &ts_op_call, &ts_op_call_end};
  for (size_t j = 0; j < k->nsteps; j++) {
    size_t n = 0;
    while (n < sizeof safe / sizeof *safe && safe[n] != k->steps[j].type)
      n++;
    if (n == sizeof safe / sizeof *safe)
      return 0;
  }
  return 1;
}

/* Lazy: which classes retire, and room for the placements that cannot be
 * made again (the fixed actors' chunks are made when their actors arrive). */
static int lazy_setup(ts_world *w)
{
  const ts_model *m = w->model;
  int impure = 0;
  for (size_t c = 0; c < m->nclasses; c++)
    impure |= w->class_count[c] > 0 && !placement_pure(w, (int)c);
  if (impure && !(w->placed = malloc(((size_t)w->nfixed + 1) * sizeof *w->placed)))
    return -1;
  w->reclaim = calloc(m->nclasses + 1, 1);
  w->ext_free = calloc(m->nclasses + 1, sizeof *w->ext_free);
  if (!w->reclaim || !w->ext_free)
    return -1;
  for (size_t c = 0; c < m->nclasses; c++)
    w->reclaim[c] = class_retires(&m->classes[c]);
  w->nactors = w->nfixed;
  return 0;
}

static int init_actors(ts_world *w)
{
  const ts_model *m = w->model;
  int *load = calloc((size_t)w->nworkers, sizeof *load);
  w->lane = calloc(m->nclasses + 1, sizeof *w->lane);
  if (!load || !w->lane) {
    free(load);
    return -1;
  }
  int main = ts_model_main_class(m), rc = 0;
  w->main_class = main;
  /* a generated class's draws are a copy of the world's stream: the world's
   * own draws pass over them when a later class or a source draws too */
  int last_drawer = -1, sources_draw = 0;
  for (size_t c = 0; c < m->nclasses; c++) {
    if (m->classes[c].forever)
      sources_draw = 1;
    else if (ts__draws_at_init(w, (int)c))
      last_drawer = (int)c;
  }
  for (size_t c = 0; c < m->nclasses && rc == 0; c++) {
    ts__arrivals cur = {.poisson_t = m->classes[c].arrival.start};
    ts_lane_class *lc = &w->lane[w->nlane];
    if (m->classes[c].forever || m->classes[c].arrival.kind == TS_ARRIVE_AFTER || w->class_count[c] == 0) {
      lc = NULL;
    } else if (ts__lane_setup(w, (int)c, lc) != 0) {
      rc = -1;
      break;
    }
    int pure = placement_pure(w, (int)c);
    /* One worker (place gives its only one without reading the actor),
     * actors made when they arrive, arrival times drawn as they happen: what
     * the loop below adds for each actor, for all of them at once. */
    int one = w->lazy && lc && lc->gen ? one_worker(w, (int)c) : -1;
    if (one >= 0) {
      int count = w->class_count[c];
      load[one] += count;
      if ((int)c == main) {
        w->workers[one].load += count;
        w->placed_main += w->workers[one].pool == 0 ? count : 0;
      }
    }
    for (int i = one >= 0 ? w->class_count[c] : 0; i < w->class_count[c] && rc == 0; i++) {
      int id = w->class_base[c] + i;
      int wk = place(w, (int)c, i, id, load);
      if (wk < 0) {
        rc = -1; /* (w->error says why) */
        break;
      }
      load[wk]++;
      if ((int)c == main)
        w->workers[wk].load++;
      if (!w->lazy) {
        if (!ts__actor_new(w, (int)c, i, wk, NULL)) {
          rc = -1;
          break;
        }
      } else {
        w->placed_main += (int)c == main && w->workers[wk].pool == 0;
        if (!pure)
          w->placed[id] = wk;
      }
      if (lc && lc->gen)
        continue;
      ts_time at = ts__arrival_time(w->rng, &m->classes[c], i, &cur);
      if (lc)
        ts__lane_note(w, lc, i, at);
    }
    if (lc && lc->gen && rc == 0) {
      if ((int)c < last_drawer || sources_draw) /* the world's stream passes over the class's draws */
        for (int i = 0; i < w->class_count[c]; i++)
          ts__arrival_time(w->rng, &m->classes[c], i, &cur);
      ts__lane_gen_next(w, lc);
    }
    if (lc) {
      w->nlane++;
      if (rc == 0 && ts__lane_order(w, lc, w->class_count[c]) != 0)
        rc = -1;
    }
  }
  free(load);
  /* (an open system of one class: its own generator, without the search) */
  ts_sim_lane_fn next = w->nlane == 1 && w->lane->gen ? ts__lane_next_one : ts__lane_next;
  if (rc == 0 && ts_sim_lane(&w->sim, TS_EV_ARRIVE, next, w) != 0)
    rc = -1;
  return rc;
}

static void on_ready(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  if (w->lazy && !ts_world_actor_at(w, ev->obj)) {
    ts__invariant(w, "an event for actor %d after it was retired", ev->obj);
    return;
  }
  ts_actor *a = ts_world_actor(w, ev->obj);
  if (ev->gen == TS_READY_REQUEST)
    ts__server_request(w, a);
  else
    ts__actor_ready(w, a, ev->gen == TS_READY_TIMER);
}

/* The CPU price of each worker: by its load of the main class, or by n. */
static void price_workers(ts_world *w)
{
  const ts_model *m = w->model;
  for (int i = 0; i < w->nworkers; i++)
    w->workers[i].cpu_scale = ts_model_cpu_scale(m, m->scale_by_worker ? w->workers[i].load : w->n);
}

/* Each class's stream key (ts_rng_stream_key of the replication's seed):
 * an actor's stream seed is one step from it (actor.c ts__actor_rng).
 * Returns 0, or -1 when memory runs out (one spare entry: a model without
 * classes still gets a non-NULL table). */
static int stream_keys(ts_world *w)
{
  size_t n = w->model->nclasses;
  if (!(w->stream_key = malloc((n + 1) * sizeof *w->stream_key)))
    return -1;
  for (size_t c = 0; c < n; c++)
    w->stream_key[c] = ts_rng_stream_key(w->seed, (int)c);
  return 0;
}

/* Why laying out the world failed: the cause it noted (an arrival past 73
 * years, a model error, an invariant), else memory. */
static int init_failed(const ts_world *w)
{
  return w->error ? w->error : TS_WORLD_NOMEM;
}

int ts_world_init(ts_world *w, const ts_model *m, const ts_world_spec *spec, const ts_observer *obs)
{
  memset(w, 0, sizeof *w);
  w->model = m;
  w->n = spec->n;
  w->seed = spec->seed;
  w->obs = obs;
  w->horizon = spec->horizon;
  w->win_t0 = spec->win_t0;
  w->win_t1 = spec->win_t1;
  w->win_all = w->win_t0 <= 0 && w->win_t1 >= w->horizon;
  w->max_events = spec->max_events;
  w->should_stop = spec->should_stop;
  w->max_alive = spec->max_alive > 0 && spec->max_alive < TS_WORLD_MAX_ACTORS ? spec->max_alive : TS_WORLD_MAX_ACTORS;
  w->stop_data = spec->stop_data;
  w->memory_at_end = -1;
  w->on_done = spec->done;
  w->done_ctx = spec->done_ctx;
  w->lazy = spec->done != NULL;
  ts_sim_init(&w->sim, w);
  ts_sim_on(&w->sim, TS_EV_ARRIVE, ts__on_arrive);
  ts_sim_on(&w->sim, TS_EV_READY, on_ready);
  ts_sim_on(&w->sim, TS_EV_SEG_END, ts__cpu_on_seg_end);
  ts_sim_on(&w->sim, TS_EV_WAKE, ts__worker_on_wake);
  ts_sim_on(&w->sim, TS_EV_SOURCE, ts__on_source);
  ts_sim_on(&w->sim, TS_EV_RESUME, ts__worker_on_resume);
  ts_sim_on(&w->sim, TS_EV_RELEASE, ts__worker_on_release);
  ts_sim_on(&w->sim, TS_EV_TIMEOUT, ts__timeout_on_expire);
  ts_sim_on(&w->sim, TS_EV_PREEMPT, ts__worker_on_preempt);
  w->rng = ts_rng_create_small(ts_rng_derive_stream(spec->seed, -1, -1, 0));
  w->rng_size = ts_rng_small_size();
  for (size_t c = 0; c < m->nclasses; c++)
    w->followers |= m->classes[c].arrival.kind == TS_ARRIVE_AFTER;
  if (!w->rng || stream_keys(w) != 0 || ts__ext_sink_init(w) != 0 || ts__lets_init(w) != 0 || lay_out_pools(w, spec->workers) != 0 ||
      count_classes(w) != 0 || lay_out_objects(w) != 0 || (w->lazy && lazy_setup(w) != 0) || init_actors(w) != 0)
    return init_failed(w);
  price_workers(w);
  ts__start_sources(w);
  return w->sim.failed ? init_failed(w) : 0;
}

void ts_world_finish(ts_world *w)
{
  free(w->stream_key);
  if (w->workers)
    for (int i = 0; i < w->nworkers; i++) {
      ts_ring_finish(&w->workers[i].ready);
      ts_ring_finish(&w->workers[i].timers);
      ts_ring_finish(&w->workers[i].micro);
      ts_sched_queue_finish(&w->workers[i].queue);
      ts_ring_finish(&w->workers[i].fifo_q);
      ts_ring_finish(&w->workers[i].wakes);
      ts_rng_destroy(w->workers[i].wake_rng);
    }
  for (int l = 0; w->locks && l < w->nlock_inst; l++) {
    ts_ring_finish(&w->locks[l].waiters);
    ts_ring_finish(&w->locks[l].spinners);
  }
  for (int c = 0; w->chans && c < w->nchan_inst; c++)
    ts_ring_finish(&w->chans[c].waiters);
  for (size_t s = 0; w->servers && s < w->model->nservers; s++)
    ts_sched_queue_finish(&w->servers[s].queue);
  for (size_t s = 0; w->spans && s < w->model->nspans; s++)
    free(w->spans[s].v);
  for (int c = 0; c < (w->cap_actors >> TS_CHUNK_BITS); c++) {
    free(w->chunks[c]);
    for (int s = 0; s < TS_NSTATES; s++)
      free(w->scol[c * TS_NSTATES + s]);
  }
  free(w->spare_chunk);
  free(w->chunks);
  free(w->scol);
  free(w->chunk_left);
  free(w->chunk_gone);
  free(w->dead);
  free(w->placed);
  free(w->reclaim);
  free(w->ext_free);
  free(w->workers);
  free(w->pool_base);
  free(w->class_base);
  free(w->class_count);
  free(w->class_epochs);
  free(w->class_cut);
  free(w->locks);
  free(w->lock_base);
  free(w->chans);
  free(w->chan_base);
  free(w->servers);
  free(w->counters);
  free(w->let_stable);
  free(w->var_lets);
  free(w->chan_lets);
  free(w->chan_last);
  for (size_t c = 0; w->idx_pre && c < w->model->nclasses; c++)
    free(w->idx_pre[c]);
  free(w->idx_pre);
  free(w->idx_bits);
  free(w->spans);
  free(w->mutex_wait_by_lock);
  free(w->lock_stat);
  free(w->site_stat);
  for (int c = 0; w->lane && c < w->nlane; c++) {
    free(w->lane[c].t);
    free(w->lane[c].order);
    ts_rng_destroy(w->lane[c].gen);
  }
  free(w->lane);
  ts__pool_finish(&w->rng_pool);
  for (int b = 0; b < (w->rng_slots + (1 << TS_RNG_BLOCK_BITS) - 1) >> TS_RNG_BLOCK_BITS; b++)
    free(w->rng_blocks[b]);
  free(w->rng_blocks);
  free(w->rng_free);
  ts_rng_destroy(w->rng);
  ts_sim_finish(&w->sim);
  memset(w, 0, sizeof *w);
}

void ts_world_trim(ts_world *w)
{
  for (int i = 0; w->workers && i < w->nworkers; i++) {
    ts_worker *wk = &w->workers[i];
    if (wk->ready.len == 0)
      ts_ring_finish(&wk->ready);
    if (wk->timers.len == 0)
      ts_ring_finish(&wk->timers);
    if (wk->micro.len == 0)
      ts_ring_finish(&wk->micro);
    if (wk->fifo_q.len == 0)
      ts_ring_finish(&wk->fifo_q);
    if (wk->wakes.len == 0)
      ts_ring_finish(&wk->wakes);
    if (ts_sched_queue_len(&wk->queue) == 0)
      ts_sched_queue_finish(&wk->queue);
  }
  if (!ts_sim_peek(&w->sim))
    ts_heap_finish(&w->sim.heap);
}

/* Bytes of the objects alive now: actors that arrived and are not done, and
 * every declared lock and channel instance. */
static int64_t memory_now(const ts_world *w)
{
  const ts_model *m = w->model;
  int64_t bytes = w->live_bytes;
  for (size_t d = 0; d < m->nlocks; d++)
    bytes += (int64_t)(w->lock_base[d + 1] - w->lock_base[d]) * m->locks[d].size_bytes;
  for (size_t d = 0; d < m->nchans; d++)
    bytes += (int64_t)(w->chan_base[d + 1] - w->chan_base[d]) * m->chans[d].size_bytes;
  return bytes;
}

/* Close every open interval at the end of the run, so the statistics cover it. */
static void close_states(ts_world *w)
{
  for (size_t d = 0; d < w->model->nlocks; d++)
    if (w->lock_stat[d].parked > 0)
      ts__mutex_sleepers(w, (int)d, 0);
  for (int id = 0; id < w->nactors; id++) {
    ts_actor *a = (ts_actor *)ts_world_actor_at(w, id);
    if (!a)
      id |= TS_CHUNK - 1; /* a chunk not made or freed: none of it is running */
    else if (a->state != TS_ACTOR_DONE && a->state != TS_ACTOR_NEW)
      ts__actor_set_state(w, a, a->state);
  }
  for (int i = 0; i < w->nworkers; i++) {
    ts_worker *wk = &w->workers[i];
    if (wk->seg != TS_SEG_IDLE) /* account the running piece up to now */
      ts__cpu_close(w, wk);
  }
}

/* The event budget: events still allowed in this run (one more than the
 * limit, so going past it is seen), or 0 for no limit. */
static int over_budget(const ts_world *w)
{
  return w->max_events && w->sim.steps > w->max_events;
}

static uint64_t budget_left(const ts_world *w)
{
  return w->max_events ? w->max_events + 1 - w->sim.steps : 0;
}

/* ts_sim_run to until within the budget; with a should_stop, in pieces of
 * TS_WORLD_POLL_EVENTS events, asking it between two (the same events run).
 * Returns 1 when should_stop stopped the run, else 0. */
static int run_until(ts_world *w, ts_time until)
{
  if (!w->should_stop) {
    ts_sim_run(&w->sim, until, budget_left(w));
    return 0;
  }
  for (;;) {
    uint64_t left = budget_left(w), piece = left && left < TS_WORLD_POLL_EVENTS ? left : TS_WORLD_POLL_EVENTS;
    if (ts_sim_run(&w->sim, until, piece) < piece || w->sim.failed || over_budget(w))
      return 0;
    if (w->should_stop(w->stop_data))
      return 1;
  }
}

/* Whether an actor that arrived is neither done nor able to go on: with no
 * event left, that is a deadlock. Actors that never arrived (their arrival
 * lies past the horizon) are not. */
static int any_blocked(const ts_world *w)
{
  for (int id = 0; id < w->nactors; id++) {
    const ts_actor *a = ts_world_actor_at(w, id);
    if (!a)
      id |= TS_CHUNK - 1;
    else if (a->state != TS_ACTOR_DONE && a->state != TS_ACTOR_NEW)
      return 1;
  }
  return 0;
}

/* Whether a class whose arrival fell past the horizon has a step of type t
 * naming ref (ref < 0: naming anything). */
static int cut_class_has(const ts_world *w, const ts_op_type *t, int ref)
{
  const ts_model *m = w->model;
  for (size_t c = 0; c < m->nclasses; c++)
    for (size_t i = 0; w->class_cut[c] && i < m->classes[c].nsteps; i++)
      if (m->classes[c].steps[i].type == t && (ref < 0 || m->classes[c].steps[i].ref == ref))
        return 1;
  return 0;
}

/* The first actor at *id or after it that has started and not finished
 * (*id becomes its id), or NULL when none is left: the actors left waiting
 * at the end of a run. */
static const ts_actor *next_live(const ts_world *w, int *id)
{
  for (; *id < w->nactors; ++*id) {
    const ts_actor *a = ts_world_actor_at(w, *id);
    if (!a)
      *id |= TS_CHUNK - 1; /* an empty chunk: on to the next */
    else if (a->state != TS_ACTOR_DONE && a->state != TS_ACTOR_NEW)
      return a;
  }
  return NULL;
}

/* Whether every actor left waiting (none pending) may wait for a class whose
 * arrival the horizon cut, so the window ended before the work began: an
 * actor waiting on a channel that a cut class notifies (any channel, for a
 * wait on channels it registered on), or on a lock a cut class unlocks; an
 * actor waiting for a lock, mutex or a server's reply waits on other actors
 * left waiting, which counts only when some actor's wait is a cut class's
 * notify. Any other wait is a deadlock whatever arrives later. */
static int cut_could_end_all(const ts_world *w)
{
  int direct = 0;
  const ts_actor *a;
  for (int id = 0; (a = next_live(w, &id)) != NULL; id++) {
    const ts_class *k = &w->model->classes[a->klass];
    const ts_step *s = a->pc < (int)k->nsteps ? &k->steps[a->pc] : NULL;
    if (s && a->state == TS_ACTOR_CHAN_WAIT && cut_class_has(w, &ts_op_notify, s->ref < 0 ? -1 : s->ref))
      direct = 1;
    else if (s && (a->state == TS_ACTOR_LOCK_WAIT || a->state == TS_ACTOR_MUTEX_PARK || a->state == TS_ACTOR_SPIN) &&
             cut_class_has(w, &ts_op_unlock, s->ref))
      direct = 1;
    else if (!s || (a->state != TS_ACTOR_LOCK_WAIT && a->state != TS_ACTOR_MUTEX_PARK &&
                    a->state != TS_ACTOR_SPIN && a->state != TS_ACTOR_CALL_WAIT))
      return 0;
  }
  return direct;
}

int ts_world_run(ts_world *w)
{
  if (w->error)
    return w->error;
  if (w->slow_paths) { /* tests, set after ts_world_init: cpu.c's rr_slice off (the general slice end), */
    for (int i = 0; i < w->nworkers; i++)
      w->workers[i].rr_able = 0;
    for (size_t c = 0; c < w->model->nclasses; c++) /* and no let kept: each evaluated at each read (actor_eval.c) */
      w->let_stable[c] = 0;
  }
  if (w->win_t1 < w->horizon) {
    if (run_until(w, w->win_t1))
      return TS_WORLD_STOPPED;
    if (!w->sim.failed) {
      if (w->sim.now < w->win_t1 && ts_sim_peek(&w->sim))
        w->sim.now = w->win_t1;
      w->memory_at_end = memory_now(w);
    }
  }
  if (!w->sim.failed && !over_budget(w) && run_until(w, w->horizon))
    return TS_WORLD_STOPPED;
  ts__world_sweep(w);
  if (w->error)
    return w->error;
  if (over_budget(w))
    return TS_WORLD_BUDGET;
  if (w->sim.failed)
    return w->sim.failed == TS_SIM_NOMEM ? TS_WORLD_NOMEM : w->sim.failed == TS_SIM_STOP ? TS_WORLD_HORIZON
                                                                                         : TS_WORLD_INTERNAL;
  int reached = ts_sim_peek(&w->sim) != NULL; /* events left beyond the horizon */
  if (reached && w->horizon != TS_TIME_MAX)
    w->sim.now = w->horizon;
  close_states(w);
  if (w->error) /* (the end's accounting may make a running actor's extension: out of memory) */
    return w->error;
  if (w->memory_at_end < 0)
    w->memory_at_end = memory_now(w);
  if (reached || w->done == w->nactors || !any_blocked(w) || (w->arrivals_cut && cut_could_end_all(w)))
    return TS_WORLD_OK;
  return TS_WORLD_STUCK;
}

void ts_world_stats_into(const ts_world *w, int id, ts_actor_stats *s)
{
  const ts_actor *a = ts_world_actor(w, id);
  const ts_actor_ext *x = a->x;
  s->actor = id; /* (every field is written: no memset of the whole record) */
  s->klass = a->klass;
  s->worker = a->home;
  s->arrive = a->st.arrive;
  s->done = a->st.done;
  s->timer = a->st.timer;
  s->cpu = a->st.cpu;
  s->slices = a->st.slices;
  s->yields = a->st.yields;
  s->hidden = a->hidden;
  ts_world_wave(w, id, &s->wave_start, &s->wave_end);
  s->settled = x ? x->settled : -1;
  s->kernel = x ? x->kernel : 0;
  s->lock_work = x ? x->lock_work : 0;
  s->mutex_wait = x ? x->mutex_wait : 0;
  s->mutex_hold = x ? x->mutex_hold : 0;
  memset(s->state, 0, sizeof s->state);
  ts_time *const *col = &w->scol[(id >> TS_CHUNK_BITS) * TS_NSTATES];
  for (uint32_t u = w->states_used; u; u &= u - 1) { /* (the other states' times are 0) */
    int st = __builtin_ctz(u);
    if (col[st])
      s->state[st] = col[st][id & (TS_CHUNK - 1)];
  }
  s->state[TS_ACTOR_RUNNING] = a->run_time;
  s->state[TS_ACTOR_QUEUED] = a->queue_time;
}

ts_actor_stats ts_world_stats(const ts_world *w, int id)
{
  ts_actor_stats s;
  ts_world_stats_into(w, id, &s);
  return s;
}

ts_time ts_world_window(const ts_world *w)
{
  ts_time end = w->win_t1 < w->sim.now ? w->win_t1 : w->sim.now;
  return end > w->win_t0 ? end - w->win_t0 : 0;
}

int ts_world_window_missed(const ts_world *w)
{
  return w->win_t0 > 0 && w->sim.now <= w->win_t0;
}

double ts_world_core_time(const ts_world *w)
{
  int cores = w->model->cores, c = w->busy < cores ? w->busy : cores;
  return w->win_core_ns + (double)ts__clip(w, w->busy_since, w->sim.now) * c;
}

void ts__at_failed(ts_world *w, ts_time at)
{
  if (at > TS_HORIZON_MAX) {
    if (!w->error) {
      snprintf(w->errmsg, sizeof w->errmsg, "simulated time would pass 73 years (2^61 ns)");
      w->error = TS_WORLD_HORIZON;
    }
    w->sim.failed = TS_SIM_STOP;
    return;
  }
  if (!w->error && w->sim.failed == TS_SIM_PAST)
    ts__invariant(w, "an event was scheduled in the past (at %lld ns)", (long long)at);
}

void ts__world_nomem(ts_world *w)
{
  if (!w->error)
    w->error = TS_WORLD_NOMEM;
  w->sim.failed = TS_SIM_NOMEM;
}

/* A deadlock's message shows names (classes, locks, channels, servers: up
 * to 100 characters) to STUCK_NAME characters, so that an entry is short
 * enough to stay whole. */
#define STUCK_NAME 40
/* held_by's worst case: " (instance -2147483648)" (23), " held by " NAME
 * " #-2147483648" (62), " and " NAME " #-2147483648" (58), " and -2147483648
 * more" (21), the NUL. */
#define HELD_CAP (23 + 62 + 58 + 21 + 1)
/* waits_on's worst case: "waiting for lock \"" NAME "\"" then held_by's
 * (a channel's or a server's wait is shorter: a state's name is short). */
#define WHAT_CAP (18 + STUCK_NAME + 1 + HELD_CAP)
/* The room ts_world_stuck keeps for "; and -2147483648 more" and the NUL. */
#define MORE_ROOM 24

/* Which instance of lock decl actor a waits on and who holds it, as words
 * after the wait: " held by ab #0" (its class and index), " held by ab #0 and
 * ab #1", " held by ab #0, ab #1 and 3 more" (a lock of capacity > 1: the
 * first two by id); an indexed lock's instance first (" (instance 3)"); "" when not
 * known. */
static void held_by(const ts_world *w, const ts_actor *a, int decl, char *buf, size_t cap)
{
  const ts_model *m = w->model;
  int inst = a->x ? a->x->wait_inst : -1, n = 0, first[2] = {-1, -1};
  buf[0] = '\0';
  if (inst < 0 || inst >= w->lock_base[decl + 1] - w->lock_base[decl])
    return;
  const ts_lock *l = &w->locks[w->lock_base[decl] + inst];
  const ts_actor *h;
  for (int id = l->owner >= 0 ? l->owner : 0; n < l->holders && (h = next_live(w, &id)) != NULL; id++)
    if (l->owner >= 0 ? h->id == l->owner : h->x && h->x->held && h->x->held[decl].inst == inst) {
      if (n < 2)
        first[n] = h->id;
      n++;
    }
  int len = m->locks[decl].scope == TS_SCOPE_INDEXED ? snprintf(buf, cap, " (instance %d)", inst) : 0;
  for (int j = 0; j < n && j < 2 && len >= 0 && (size_t)len < cap; j++) {
    h = ts_world_actor_at(w, first[j]);
    len += snprintf(buf + len, cap - (size_t)len, "%s%.*s #%d", j == 0 ? " held by " : n == 2 ? " and " : ", ",
                    STUCK_NAME, m->classes[h->klass].name, h->index);
  }
  if (n > 2 && len >= 0 && (size_t)len < cap)
    snprintf(buf + len, cap - (size_t)len, " and %d more", n - 2);
}

/* What actor a waits on, in words (a lock: who holds it). */
static void waits_on(const ts_world *w, const ts_actor *a, char *buf, size_t cap)
{
  const ts_model *m = w->model;
  const ts_class *k = &m->classes[a->klass];
  const ts_step *s = a->pc < (int)k->nsteps ? &k->steps[a->pc] : NULL;
  const char *what = ts_state_get(a->state)->name;
  char holders[HELD_CAP];
  if (s && (a->state == TS_ACTOR_LOCK_WAIT || a->state == TS_ACTOR_MUTEX_PARK || a->state == TS_ACTOR_SPIN))
    held_by(w, a, s->ref, holders, sizeof holders);
  if (s && a->state == TS_ACTOR_LOCK_WAIT)
    snprintf(buf, cap, "waiting for lock \"%.*s\"%s", STUCK_NAME, m->locks[s->ref].name, holders);
  else if (s && (a->state == TS_ACTOR_MUTEX_PARK || a->state == TS_ACTOR_SPIN))
    snprintf(buf, cap, "parked on mutex \"%.*s\"%s", STUCK_NAME, m->locks[s->ref].name, holders);
  else if (s && a->state == TS_ACTOR_CHAN_WAIT && s->ref < 0)
    snprintf(buf, cap, "pending (a wake from a channel it registered on)");
  else if (s && a->state == TS_ACTOR_CHAN_WAIT)
    snprintf(buf, cap, "%s \"%.*s\"", what, STUCK_NAME, m->chans[s->ref].name);
  else if (s && a->state == TS_ACTOR_CALL_WAIT)
    snprintf(buf, cap, "%s from server \"%.*s\"", what, STUCK_NAME, m->servers[s->ref].name);
  else
    snprintf(buf, cap, "%s", what);
}

void ts_world_stuck(const ts_world *w, char *buf, size_t cap, int max)
{
  size_t len = 0;
  int shown = 0, stuck = 0;
  buf[0] = '\0';
  const ts_actor *a;
  for (int id = 0; (a = next_live(w, &id)) != NULL; id++) {
    stuck++;
    if (shown >= max || len + 1 >= cap)
      continue;
    char what[WHAT_CAP], one[WHAT_CAP + 256];
    waits_on(w, a, what, sizeof what);
    int r = snprintf(one, sizeof one, "%s%.*s #%d (actor %d, step %s): %s", shown ? "; " : "", STUCK_NAME,
                     w->model->classes[a->klass].name, a->index, a->id,
                     a->pc < (int)w->model->classes[a->klass].nsteps ? w->model->classes[a->klass].steps[a->pc].where
                                                                      : "end",
                     what);
    /* whole entries only, with room left for the count of the others */
    if (shown && (r < 0 || (size_t)r >= sizeof one || len + (size_t)r + MORE_ROOM > cap)) {
      len = cap;
      continue;
    }
    /* (the first, cut when it must be, short of that room too) */
    snprintf(buf + len, cap > MORE_ROOM ? cap - MORE_ROOM : cap, "%s", one);
    len = strlen(buf);
    shown++;
  }
  if (stuck > shown)
    snprintf(buf + strlen(buf), cap - strlen(buf), "; and %d more", stuck - shown);
}

const char *ts_world_strerror(const ts_world *w, int status)
{
  switch (status) {
  case TS_WORLD_OK: return "ok";
  case TS_WORLD_NOMEM: return "out of memory";
  case TS_WORLD_STUCK: return "the simulation deadlocked: actors wait on something that never comes";
  case TS_WORLD_HORIZON: return "simulated time would pass 73 years (fewer actors or shorter steps)";
  case TS_WORLD_STOPPED: return "stopped";
  case TS_WORLD_MODEL:
  case TS_WORLD_INTERNAL: return w->errmsg;
  default: return "unknown error";
  }
}
