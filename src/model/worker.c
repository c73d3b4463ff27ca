/* Workers: one event loop and one CPU each, on a host of `cores` cores.
 *
 * Loop iteration (Node-like): the poll phase runs every I/O callback that was
 * ready when the phase began (each runs until its actor leaves the CPU), then
 * the check phase resumes at most one actor from the time-slice queue, as
 * zero-cache's setImmediate does. Loop overhead, when set, is charged once per
 * iteration that does work.
 *
 * CPU under processor sharing: while `busy` workers run on a host with fewer
 * cores, each progresses at cores/busy ns of work per ns. A running segment
 * keeps (seg_t0, work done at seg_t0) and one SEG_END event stamped with the
 * worker's gen; when the rate changes every running segment is brought up to
 * date and re-planned, and stale events are ignored by their stamp. With
 * busy <= cores the rate is 1 and all arithmetic is exact. */
#include "model/world.h"

static void rate(const ts_world *w, int64_t *p, int64_t *q)
{
  int cores = w->model->cores;
  if (cores > 0 && w->busy > cores) {
    *p = cores;
    *q = w->busy;
  } else {
    *p = *q = 1;
  }
}

static const ts_step *cur_step(const ts_world *w, const ts_actor *a)
{
  return &w->model->classes[a->klass].steps[a->pc];
}

/* Work done after j of R rows of a step costing c: floor(j * c / R) without overflow. */
static ts_time cum(ts_time c, int64_t rows, int64_t j)
{
  return j * (c / rows) + (j * (c % rows)) / rows;
}

/* The smallest j in [lo, rows] with cum(j) > x, or rows. */
static int64_t first_row_beyond(ts_time c, int64_t rows, int64_t lo, ts_time x)
{
  int64_t hi = rows;
  if (lo > rows)
    return rows;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (cum(c, rows, mid) > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

static ts_time threshold(const ts_world *w, const ts_worker *wk)
{
  const ts_model *m = w->model;
  if (wk->prio_inflight <= 0)
    return m->threshold;
  ts_time t = m->threshold / (m->priority_divisor > 0 ? m->priority_divisor : 1);
  return t > m->priority_min ? t : m->priority_min;
}

/* Express the worker's fractional work in units of 1/q ns (the rate's denominator). */
static void rescale_frac(ts_worker *wk, int64_t q)
{
  if (wk->frac_q != q) {
    wk->frac = wk->frac_q > 0 ? wk->frac * q / wk->frac_q : 0;
    wk->frac_q = q;
  }
}

/* Bring the running segment's work up to now at the current rate; work
 * beyond whole ns is kept in frac, so no rounding is lost between re-plans. */
static void catch_up(ts_world *w, ts_worker *wk)
{
  ts_time now = w->sim.now;
  ts_time elapsed = now - wk->seg_t0;
  if (elapsed <= 0 || wk->seg == TS_SEG_IDLE)
    return;
  int64_t p, q;
  rate(w, &p, &q);
  rescale_frac(wk, q);
  ts_time total = elapsed * p + wk->frac, work = total / q;
  wk->frac = total % q;
  wk->busy += elapsed;
  if (wk->seg == TS_SEG_OVERHEAD) {
    wk->over_left = work < wk->over_left ? wk->over_left - work : 0;
  } else {
    ts_actor *a = &w->actors[wk->actor];
    a->step_done += work;
    if (a->step_done >= a->step_cost) {
      a->step_done = a->step_cost;
      wk->frac = 0;
    }
    a->st.cpu += elapsed;
    if (cur_step(w, a)->timed)
      a->st.timer += elapsed;
  }
  wk->seg_t0 = now;
}

static void schedule_end(ts_world *w, ts_worker *wk, ts_time work_left)
{
  int64_t p, q;
  rate(w, &p, &q);
  rescale_frac(wk, q);
  ts_time num = work_left * q - wk->frac;
  ts_time dt = num > 0 ? (num + p - 1) / p : 0;
  wk->gen++;
  ts_sim_at(&w->sim, w->sim.now + dt, TS_EV_SEG_END, wk->id, wk->gen);
}

/* Plan the running actor's cpu step: up to the first row after which its lap
 * exceeds the threshold (sliced), or to the end of the step. */
static void plan_actor(ts_world *w, ts_worker *wk)
{
  ts_actor *a = &w->actors[wk->actor];
  const ts_step *s = cur_step(w, a);
  ts_time c = a->step_cost, w0 = a->step_done;
  int64_t rows = s->rows, j = rows;
  if (s->sliced && c > 0) {
    int64_t p, q;
    rate(w, &p, &q);
    ts_time rem = wk->seg_threshold - (w->sim.now - a->lap_start);
    /* rows finished by now: a re-plan may land between rows, or exactly on a
     * row's end whose check is still due */
    int64_t done = first_row_beyond(c, rows, a->rows_done + 1, w0) - 1;
    if (cum(c, rows, done + 1) <= w0)
      done++; /* w0 is the end of the last row */
    if (rem < 0 && done > a->rows_done && cum(c, rows, done) == w0 && wk->frac == 0) {
      j = done; /* a row not yet checked ends now, with the lap over: yield now */
    } else {
      /* the first row ending beyond x: the next row's end when the lap is
       * already over, else the row whose end takes the lap past the threshold */
      ts_time x = rem < 0 ? w0 : w0 + rem * p / q;
      j = first_row_beyond(c, rows, done + 1, x);
    }
  }
  a->rows_target = j;
  schedule_end(w, wk, cum(c, rows, j) - w0);
}

static void plan(ts_world *w, ts_worker *wk)
{
  if (wk->seg == TS_SEG_ACTOR)
    plan_actor(w, wk);
  else if (wk->seg == TS_SEG_OVERHEAD)
    schedule_end(w, wk, wk->over_left);
}

/* Change the number of busy workers by delta, re-planning the other running
 * segments when the processor-sharing rate changes. */
static void set_busy(ts_world *w, ts_worker *self, int delta)
{
  int cores = w->model->cores;
  int before = w->busy, after = w->busy + delta;
  int rate_changes = cores > 0 && (before > cores || after > cores);
  if (rate_changes)
    for (int i = 0; i < w->nworkers; i++)
      if (&w->workers[i] != self && w->workers[i].seg != TS_SEG_IDLE)
        catch_up(w, &w->workers[i]);
  w->busy = after;
  if (rate_changes)
    for (int i = 0; i < w->nworkers; i++)
      if (&w->workers[i] != self && w->workers[i].seg != TS_SEG_IDLE)
        plan(w, &w->workers[i]);
}

static void emit_piece(ts_world *w, ts_worker *wk, const char *label, int sliced)
{
  if (w->obs && w->obs->run && w->sim.now > wk->piece_t0) {
    ts_run_piece p = {.worker = wk->id, .actor = -1, .t0 = wk->piece_t0, .t1 = w->sim.now, .label = label,
                      .sliced = sliced, .step = -1};
    if (wk->seg == TS_SEG_ACTOR) {
      const ts_actor *a = &w->actors[wk->actor];
      p.actor = a->id;
      p.step = (int)a->pc;
      p.slice = cur_step(w, a)->timed ? a->st.slices : 0;
    }
    w->obs->run(w->obs->data, &p);
  }
  wk->piece_t0 = w->sim.now;
}

static void become_busy(ts_world *w, ts_worker *wk, ts_seg_kind kind)
{
  if (wk->seg == TS_SEG_IDLE)
    set_busy(w, wk, +1);
  wk->seg = kind;
  wk->seg_t0 = w->sim.now;
  wk->piece_t0 = w->sim.now;
  wk->frac = 0;
  wk->frac_q = 1;
}

void ts__worker_start_overhead(ts_world *w, ts_worker *wk, ts_time work)
{
  become_busy(w, wk, TS_SEG_OVERHEAD);
  wk->actor = -1;
  wk->over_left = work;
  plan(w, wk);
}

/* The running actor begins (or resumes) a cpu step at now. */
void ts__worker_run_cpu(ts_world *w, ts_worker *wk, ts_actor *a)
{
  const ts_step *s = cur_step(w, a);
  if (s->timed && !a->lap_counted) {
    a->lap_counted = 1;
    a->st.slices++;
  }
  become_busy(w, wk, TS_SEG_ACTOR);
  wk->actor = a->id;
  plan(w, wk);
}

/* The actor at the head of a queue gets the CPU: a new run period and lap. */
static int start_actor(ts_world *w, ts_worker *wk, int id)
{
  ts_actor *a = &w->actors[id];
  if (a->prio_pending) {
    a->prio_pending = 0;
    wk->prio_inflight--;
  }
  ts__actor_set_state(w, a, TS_ACTOR_RUNNING);
  a->lap_start = w->sim.now;
  a->lap_counted = 0;
  wk->seg_threshold = threshold(w, wk);
  wk->actor = id;
  ts__worker_counters(w, wk);
  return ts__actor_continue(w, a);
}

static void go_idle(ts_world *w, ts_worker *wk)
{
  if (wk->seg != TS_SEG_IDLE) {
    wk->seg = TS_SEG_IDLE;
    wk->actor = -1;
    set_busy(w, wk, -1);
  }
}

void ts__worker_next(ts_world *w, ts_worker *wk)
{
  for (;;) {
    switch (wk->phase) {
    case TS_PHASE_POLL:
      if (wk->poll_left > 0 && wk->ready.len > 0) {
        wk->poll_left--;
        if (start_actor(w, wk, ts_ring_pop(&wk->ready)))
          return;
      } else {
        wk->phase = TS_PHASE_CHECK;
      }
      break;
    case TS_PHASE_CHECK: {
      wk->phase = TS_PHASE_START;
      int id = ts_sched_queue_pop(&wk->queue, w->model->policy);
      if (id >= 0 && start_actor(w, wk, id))
        return;
      break;
    }
    case TS_PHASE_START:
      if (wk->ready.len == 0 && ts_sched_queue_len(&wk->queue) == 0) {
        go_idle(w, wk);
        return;
      }
      if (w->model->loop_overhead > 0 && !wk->overhead_paid) {
        wk->overhead_paid = 1; /* the snapshot is taken when it is paid */
        ts__worker_start_overhead(w, wk, w->model->loop_overhead);
        return;
      }
      wk->overhead_paid = 0;
      wk->poll_left = wk->ready.len;
      wk->phase = TS_PHASE_POLL;
      break;
    }
  }
}

void ts__worker_counters(ts_world *w, ts_worker *wk)
{
  if (w->obs && w->obs->counters)
    w->obs->counters(w->obs->data, w->sim.now, wk->id, (int)ts_sched_queue_len(&wk->queue),
                     wk->prio_inflight);
}

void ts__worker_kick(ts_world *w, ts_worker *wk)
{
  if (wk->seg == TS_SEG_IDLE && !wk->wake_pending) {
    wk->wake_pending = 1;
    ts_sim_at(&w->sim, w->sim.now, TS_EV_WAKE, wk->id, 0);
  }
}

void ts__worker_on_wake(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_worker *wk = &w->workers[ev->obj];
  wk->wake_pending = 0;
  if (wk->seg == TS_SEG_IDLE)
    ts__worker_next(w, wk);
}

/* The running actor yields: it rejoins the queue's tail, and the loop pays the
 * yield overhead. Returns 1 if the worker stays busy. */
int ts__worker_yield(ts_world *w, ts_worker *wk, ts_actor *a)
{
  a->st.yields++;
  ts__actor_set_state(w, a, TS_ACTOR_QUEUED);
  if (ts_sched_queue_push(&wk->queue, a->id, w->model->classes[a->klass].sched_class) != 0)
    ts__world_nomem(w);
  ts__worker_counters(w, wk);
  if (w->model->yield_overhead > 0) {
    ts__worker_start_overhead(w, wk, w->model->yield_overhead);
    return 1;
  }
  return 0;
}

void ts__worker_on_seg_end(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_worker *wk = &w->workers[ev->obj];
  if (ev->gen != wk->gen || wk->seg == TS_SEG_IDLE)
    return; /* superseded by a re-plan */
  catch_up(w, wk);
  if (wk->seg == TS_SEG_OVERHEAD) {
    emit_piece(w, wk, "loop", 0);
    ts__worker_next(w, wk);
    return;
  }
  ts_actor *a = &w->actors[wk->actor];
  const ts_step *s = cur_step(w, a);
  a->rows_done = a->rows_target;
  a->step_done = cum(a->step_cost, s->rows, a->rows_done);
  wk->frac = 0;
  int over = s->sliced && w->sim.now - a->lap_start > wk->seg_threshold;
  if (a->rows_done < s->rows && !over) {
    plan(w, wk); /* rounding under processor sharing: not over yet */
    return;
  }
  emit_piece(w, wk, s->label, s->sliced);
  int busy;
  if (a->rows_done == s->rows) { /* no check after a step's last row */
    a->pc++;
    a->in_step = 0;
    busy = ts__actor_continue(w, a);
  } else {
    busy = ts__worker_yield(w, wk, a);
  }
  if (!busy)
    ts__worker_next(w, wk);
}
