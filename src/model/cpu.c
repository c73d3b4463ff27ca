/* CPU segments: an actor's burst of CPU (or loop overhead) on its worker,
 * planned as one SEG_END event, on a host of `cores` cores.
 *
 * A segment of cost C in R rows is not simulated row by row. When it gets the
 * CPU, the worker computes the first row after which the actor's lap exceeds
 * the threshold (sliced segments; the cumulative cost after j rows is
 * floor(j*C/R), and the first row whose end passes x is ceil((x+1)*R/C),
 * in O(1)) and schedules one SEG_END there; at that row the actor
 * yields to the queue's tail. No check follows a segment's last row.
 *
 * Processor sharing: while `busy` workers run on a host with fewer cores,
 * each progresses at cores/busy ns of work per ns. A running segment keeps
 * (seg_t0, work done at seg_t0) and one SEG_END stamped with the worker's
 * gen; when the rate changes every running segment is brought up to date and
 * re-planned, and stale events are ignored by their stamp (the way Redis's
 * ae marks deleted events). Work beyond whole ns is kept in frac, so re-plans
 * lose nothing. With busy <= cores the rate is 1 and all arithmetic is exact. */
#include "model/internal.h"

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

/* Whether the busy workers progress at rate 1 (each a core of its own). */
static inline int rate_one(const ts_world *w)
{
  int cores = w->model->cores;
  return cores <= 0 || w->busy <= cores;
}

static const ts_step *cur_step(const ts_world *w, const ts_actor *a)
{
  return &w->model->classes[a->klass].steps[a->pc];
}

/* Work done after j of R rows of a segment costing c: floor(j * c / R)
 * without overflow (one division when j * c fits in 64 bits, as it does
 * when c <= INT64_MAX / R: g->exact). */
static inline ts_time cum_exact(ts_time c, int64_t rows, int64_t j)
{
  return j * c / rows;
}

static ts_time cum_wide(ts_time c, int64_t rows, int64_t j)
{
  return j * (c / rows) + (j * (c % rows)) / rows;
}

static inline ts_time cum(const ts_seg *g, int64_t j)
{
  if (g->row > 0)
    return j * g->row; /* rows of equal cost */
  return g->exact ? cum_exact(g->cost, g->rows, j) : cum_wide(g->cost, g->rows, j);
}

/* The smallest j in [lo, rows] with cum(j) > x, or rows: a binary search,
 * for segments whose c * R does not fit in 64 bits. */
static int64_t first_row_beyond_search(ts_time c, int64_t rows, int64_t lo, ts_time x)
{
  int64_t hi = rows;
  if (lo > rows)
    return rows;
  while (lo < hi) {
    int64_t mid = lo + (hi - lo) / 2;
    if (cum_wide(c, rows, mid) > x)
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

/* The same in O(1). For an integer x >= 0, floor(j c / R) > x exactly when
 * j c >= (x + 1) R, so the least such j overall is ceil((x + 1) R / c); the
 * answer is that clamped to [lo, rows] (cum is nondecreasing, and no row
 * qualifies when x >= c = cum(R)). (x + 1) R <= c R fits in 64 bits when
 * g->exact. */
static inline int64_t first_row_beyond(const ts_seg *g, int64_t lo, ts_time x)
{
  ts_time c = g->cost;
  int64_t rows = g->rows;
  if (lo > rows || x >= c)
    return rows;
  if (x < 0)
    return lo;
  if (!g->exact)
    return first_row_beyond_search(c, rows, lo, x);
  int64_t num = (x + 1) * rows, j = num / c + (num % c != 0);
  return j < lo ? lo : j > rows ? rows : j;
}

int64_t ts__rows_beyond(ts_time c, int64_t rows, int64_t lo, ts_time x, int fast)
{
  ts_seg g = {.cost = c, .rows = (int32_t)rows, .exact = c <= INT64_MAX / rows};
  return fast ? first_row_beyond(&g, lo, x) : first_row_beyond_search(c, rows, lo, x);
}

/* Express the worker's fractional work in units of 1/q ns (the rate's denominator). */
static void rescale_frac(ts_worker *wk, int64_t q)
{
  if (wk->frac_q != q) {
    wk->frac = wk->frac_q > 0 ? wk->frac * q / wk->frac_q : 0;
    wk->frac_q = q;
  }
}

/* Bring the running segment's work up to now at the current rate; a is
 * wk's actor when its segment is an actor's (the caller has it at hand), or
 * NULL to look it up. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void catch_up_of(ts_world *w, ts_worker *wk, ts_actor *a)
{
  ts_time now = w->sim.now;
  ts_time elapsed = now - wk->seg_t0;
  if (elapsed <= 0 || wk->seg == TS_SEG_IDLE)
    return;
  int64_t p, q;
  ts_time work;
  rate(w, &p, &q);
  if (p == q && wk->frac_q == 1) { /* a core of its own: exact ns */
    work = elapsed;
  } else {
    rescale_frac(wk, q);
    ts_time total = elapsed * p + wk->frac;
    work = total / q;
    wk->frac = total % q;
  }
  wk->busy += elapsed;
  /* (seg_t0 >= 0 and now <= the horizon: a window of the whole run holds it all) */
  ts_time in_window = w->win_all ? elapsed : ts__clip(w, wk->seg_t0, now);
  int kernel = 0;
  if (wk->seg == TS_SEG_OVERHEAD) {
    wk->over_left = work < wk->over_left ? wk->over_left - work : 0;
  } else {
    if (!a)
      a = ts_world_actor(w, wk->actor);
    a->seg.done += work;
    if (a->seg.done >= a->seg.cost) {
      if (a->seg.done - a->seg.cost > 1) /* its end is planned for the ns its work completes */
        ts__invariant(w, "actor %d's CPU segment got %lld ns of work for a demand of %lld ns", a->id,
                      (long long)a->seg.done, (long long)a->seg.cost);
      a->seg.done = a->seg.cost;
      wk->frac = 0;
    }
    kernel = a->seg.kernel;
    a->st.cpu += elapsed;
    if (kernel)
      ts__x(w, a)->kernel += elapsed;
    if (a->seg.timed)
      a->st.timer += elapsed;
  }
  if (kernel) {
    wk->busy_kernel += elapsed;
    wk->win_kernel += in_window;
  } else {
    wk->win_user += in_window;
  }
  if (wk->busy > now)
    ts__invariant(w, "worker %d busy %lld ns in %lld ns of time", wk->id, (long long)wk->busy, (long long)now);
  wk->seg_t0 = now;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void catch_up(ts_world *w, ts_worker *wk)
{
  catch_up_of(w, wk, NULL);
}

/* catch_up_of for actor a's segment on worker wk at rate 1 with frac_q 1
 * (its work is the elapsed ns); kernel 0: the caller knows the segment is
 * not kernel time (the test goes). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void catch_up_one(ts_world *w, ts_worker *wk, ts_actor *a, int kernel)
{
  ts_time now = w->sim.now, elapsed = now - wk->seg_t0;
  if (elapsed <= 0)
    return;
  ts_seg *g = &a->seg;
  wk->busy += elapsed;
  ts_time in_window = w->win_all ? elapsed : ts__clip(w, wk->seg_t0, now);
  g->done += elapsed;
  if (g->done >= g->cost) {
    if (g->done - g->cost > 1) /* its end is planned for the ns its work completes */
      ts__invariant(w, "actor %d's CPU segment got %lld ns of work for a demand of %lld ns", a->id,
                    (long long)g->done, (long long)g->cost);
    g->done = g->cost;
    wk->frac = 0;
  }
  a->st.cpu += elapsed;
  if (kernel && g->kernel) {
    ts__x(w, a)->kernel += elapsed;
    wk->busy_kernel += elapsed;
    wk->win_kernel += in_window;
  } else {
    wk->win_user += in_window;
  }
  if (g->timed)
    a->st.timer += elapsed;
  if (wk->busy > now)
    ts__invariant(w, "worker %d busy %lld ns in %lld ns of time", wk->id, (long long)wk->busy, (long long)now);
  wk->seg_t0 = now;
}

/* Arm wk's segment end dt ns from now (a new generation: earlier ends are void). */
static inline void arm_end(ts_world *w, ts_worker *wk, ts_time dt)
{
  wk->gen++;
  ts__at(w, w->sim.now + dt, TS_EV_SEG_END, wk->id, wk->gen);
}

static void schedule_end(ts_world *w, ts_worker *wk, ts_time work_left)
{
  int64_t p, q;
  ts_time dt;
  rate(w, &p, &q);
  if (p == q && wk->frac_q == 1) { /* frac is 0 in units of 1 ns */
    dt = work_left > 0 ? work_left : 0;
  } else {
    rescale_frac(wk, q);
    ts_time num = work_left * q - wk->frac;
    dt = num > 0 ? (num + p - 1) / p : 0;
  }
  arm_end(w, wk, dt);
}

/* The row at whose end a new lap of a's segment g yields, from wk's cache:
 * at a row's end, rows of equal cost r, a full lap of threshold x ahead, so
 * the first row ending beyond x is floor(x / r) + 1 rows on (or the last
 * row). -1 when the cache does not hold this (r, x). */
static inline int64_t cached_lap_row(const ts_worker *wk, const ts_seg *g)
{
  if (!g->at_row || g->row <= 0 || wk->lap_row != g->row || wk->lap_thr != wk->seg_threshold)
    return -1;
  return wk->lap_k >= g->rows - g->rows_done ? g->rows : g->rows_done + wk->lap_k;
}

/* Plan a segment sliced by time: to the work done when the lap reaches the
 * threshold (at least 1 ns on), or to its end. */
static void plan_by_time(ts_world *w, ts_worker *wk, ts_actor *a)
{
  ts_seg *g = &a->seg;
  ts_time target = g->cost;
  if (wk->seg_threshold != TS_TIME_MAX) {
    int64_t p, q;
    rate(w, &p, &q);
    ts_time rem = wk->seg_threshold - (w->sim.now - a->lap_start);
    ts_time more = rem <= 0 ? 0 : p == q ? rem : rem * p / q;
    if (more < g->cost - g->done)
      target = g->done + (more > 0 ? more : 1);
  }
  g->rows_target = g->rows;
  g->at_row = 0;
  schedule_end(w, wk, target - g->done);
}

/* Plan the running actor's segment: up to the first row after which its lap
 * exceeds the threshold (sliced), or to the end of the segment. */
static void plan_actor(ts_world *w, ts_worker *wk)
{
  ts_actor *a = ts_world_actor(w, wk->actor);
  ts_seg *g = &a->seg;
  ts_time c = g->cost, w0 = g->done;
  int64_t rows = g->rows, j = rows;
  if (g->by_time) {
    plan_by_time(w, wk, a);
    return;
  }
  if (g->sliced && c > 0 && wk->seg_threshold != TS_TIME_MAX) {
    int64_t p, q;
    rate(w, &p, &q);
    ts_time rem = wk->seg_threshold - (w->sim.now - a->lap_start);
    /* rows finished by now: a re-plan may land between rows, or exactly on a
     * row's end whose check is still due */
    int64_t done;
    int at_row = g->at_row;
    if (at_row && g->row > 0 && p == q && rem == wk->seg_threshold && rem >= 0) {
      /* A new lap at the end of row d, rows of equal cost r (a core of its
       * own): x = d r + rem, so the first row ending beyond x is d +
       * floor(rem / r) + 1 (or the last row), the same for every such lap
       * of the worker: cached. */
      if (wk->lap_row != g->row || wk->lap_thr != rem) {
        wk->lap_row = g->row;
        wk->lap_thr = rem;
        wk->lap_k = rem / g->row + 1;
      }
      j = cached_lap_row(wk, g);
      goto planned;
    }
    if (at_row && c >= rows) {
      done = g->rows_done; /* at the end of row rows_done, and every row costs >= 1 ns */
    } else {
      done = first_row_beyond(g, g->rows_done + 1, w0) - 1;
      if (cum(g, done + 1) <= w0)
        done++; /* w0 is the end of the last row */
    }
    if (rem < 0 && done > g->rows_done && cum(g, done) == w0 && wk->frac == 0) {
      j = done; /* a row not yet checked ends now, with the lap over: yield now */
    } else {
      /* the first row ending beyond x: the next row's end when the lap is
       * already over, else the row whose end takes the lap past the threshold */
      ts_time x = rem < 0 ? w0 : p == q ? w0 + rem : w0 + rem * p / q;
      j = first_row_beyond(g, done + 1, x);
    }
  }
planned:
  g->rows_target = (int32_t)j;
  g->at_row = 0; /* a piece is planned */
  schedule_end(w, wk, cum(g, j) - w0);
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
static void set_busy_shared(ts_world *w, ts_worker *self, int delta);
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void set_busy(ts_world *w, ts_worker *self, int delta)
{
  if (w->model->cores <= 0) { /* no host cores: a core each, no rate to change, no cores to count */
    w->busy += delta;
    return;
  }
  set_busy_shared(w, self, delta);
}

/* set_busy on a host of cores > 0 (out of line). */
static void set_busy_shared(ts_world *w, ts_worker *self, int delta)
{
  int cores = w->model->cores;
  int before = w->busy, after = w->busy + delta;
  int rate_changes = cores > 0 && (before > cores || after > cores);
  if (cores > 0) { /* the cores in use: min(busy, cores) */
    w->win_core_ns += (double)ts__clip(w, w->busy_since, w->sim.now) * (before < cores ? before : cores);
    w->busy_since = w->sim.now;
  }
  if (rate_changes)
    for (int i = 0; i < w->nworkers; i++)
      if (&w->workers[i] != self && w->workers[i].seg != TS_SEG_IDLE)
        catch_up(w, &w->workers[i]);
  w->busy = after;
  if (rate_changes)
    for (int i = 0; i < w->nworkers; i++)
      if (&w->workers[i] != self && w->workers[i].seg != TS_SEG_IDLE) {
        if (w->workers[i].seg == TS_SEG_ACTOR) /* (re-planned: no longer plain) */
          ts_world_actor(w, w->workers[i].actor)->seg.plain = 0;
        plan(w, &w->workers[i]);
      }
}

static inline void emit_piece(ts_world *w, ts_worker *wk)
{
  if (w->obs && w->obs->run && w->sim.now > wk->piece_t0) {
    ts_run_piece p = {.worker = wk->id, .actor = -1, .t0 = wk->piece_t0, .t1 = w->sim.now, .label = "loop",
                      .step = -1, .state = TS_ACTOR_RUNNING};
    if (wk->seg == TS_SEG_ACTOR) {
      const ts_actor *a = ts_world_actor(w, wk->actor);
      p.actor = a->id;
      p.step = a->pc;
      p.label = cur_step(w, a)->label;
      p.sliced = a->seg.sliced;
      p.kernel = a->seg.kernel;
      p.state = a->seg.state;
      p.slice = a->seg.timed ? a->st.slices : 0;
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

void ts__cpu_idle(ts_world *w, ts_worker *wk)
{
  if (wk->seg != TS_SEG_IDLE) {
    wk->seg = TS_SEG_IDLE;
    wk->actor = -1;
    set_busy(w, wk, -1);
  }
}

void ts__cpu_close(ts_world *w, ts_worker *wk)
{
  emit_piece(w, wk);
  catch_up(w, wk);
}

void ts__cpu_overhead(ts_world *w, ts_worker *wk, ts_time work)
{
  become_busy(w, wk, TS_SEG_OVERHEAD);
  wk->actor = -1;
  wk->over_left = work;
  plan(w, wk);
}

/* ts__cpu_resume's body, inlined into ts__cpu_begin (a new segment is the
 * common case: one call less per CPU burst, same effects). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void resume(ts_world *w, ts_actor *a)
{
  ts_worker *wk = &w->workers[a->worker];
  if (wk->seg == TS_SEG_ACTOR && wk->actor >= 0 && wk->actor != a->id)
    ts__invariant(w, "worker %d starts actor %d's CPU while actor %d's segment runs", wk->id, a->id, wk->actor);
  if (a->seg.timed && !a->lap_counted) {
    a->lap_counted = 1;
    a->st.slices++;
    w->quantities_used |= TS_USED_TIMED; /* (st.timer grows only in a timed segment, and every segment begins here) */
  }
  if (a->seg.state != TS_ACTOR_RUNNING && a->state != a->seg.state)
    ts__actor_set_state(w, a, a->seg.state);
  become_busy(w, wk, TS_SEG_ACTOR);
  wk->actor = a->id;
  ts_seg *g = &a->seg;
  if (!g->sliced && rate_one(w)) { /* plan_actor's plan of an unsliced segment at rate 1, inline: to its end */
    g->rows_target = g->rows;
    g->at_row = 0;
    arm_end(w, wk, g->cost > g->done ? g->cost - g->done : 0);
    return;
  }
  if (g->sliced) /* it may yield to the queue (rr_slice, or ts__worker_yield from ts__cpu_on_seg_end) */
    w->quantities_used |= TS_USED_QUEUED;
  plan(w, wk);
}

void ts__cpu_resume(ts_world *w, ts_actor *a)
{
  resume(w, a); /* (a segment stopped mid-way: ts__cpu_preempt cleared its plain) */
}

static int begin_general(ts_world *w, ts_actor *a, ts_time cost, int64_t rows, int flags, int state);

int ts__cpu_begin_any(ts_world *w, ts_actor *a, ts_time cost, int64_t rows, int flags, int state)
{
  if (cost <= 0)
    return TS_OP_NEXT;
  ts_worker *wk = &w->workers[a->worker];
  /* The same segment on an idle worker whose actor is this one: a thread
   * that resumes on its own worker (ts__worker_on_resume set wk->actor; a
   * mutex waiter woken, its acquire cost next). What the general path below
   * does in that case, without the rows' arithmetic and resume's tests (no
   * other actor's segment runs, no lap to count): the segment, the state,
   * busy from idle, then the plan to its end at rate 1 or plan's.
   * slow_paths (tests): the general path. */
  if (rows == 1 && !(flags & (TS_CPU_SLICED | TS_CPU_TIMED)) && wk->seg == TS_SEG_IDLE && wk->actor == a->id &&
      !w->slow_paths) {
    a->seg = (ts_seg){.cost = cost, .row = cost, .rows = 1, .active = 1, .kernel = (flags & TS_CPU_KERNEL) != 0,
                      .state = (uint8_t)state, .exact = 1, .at_row = 1, .last = (flags & TS_CPU_LAST) != 0};
    if (state != TS_ACTOR_RUNNING && a->state != state)
      ts__actor_set_state(w, a, state);
    become_busy(w, wk, TS_SEG_ACTOR);
    if (rate_one(w)) {
      a->seg.rows_target = 1;
      a->seg.at_row = 0;
      if (flags & TS_CPU_NEXT) { /* arm_end, its end held out of the list while ts__cpu_on_seg_end's loop allows */
        wk->gen++;
        ts__at_next(w, w->sim.now + cost, TS_EV_SEG_END, wk->id, wk->gen);
      } else {
        arm_end(w, wk, cost);
      }
      a->seg.plain = 1; /* (one row, neither sliced nor timed, to its end at rate 1) */
    } else {
      plan(w, wk);
    }
    return TS_OP_BUSY;
  }
  return begin_general(w, a, cost, rows, flags, state);
}

/* ts__cpu_begin_any's general path (out of line: the one-row case above
 * then saves fewer registers). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int begin_general(ts_world *w, ts_actor *a, ts_time cost, int64_t rows, int flags, int state)
{
  rows = rows < 1 ? 1 : rows > INT32_MAX ? INT32_MAX : rows; /* (the loader allows at most 10^7) */
  /* one row (every lock, hop and call cost): exact and row = cost, without the divisions */
  int one = rows == 1 && !w->slow_paths;
  a->seg = (ts_seg){.cost = cost, .rows = (int32_t)rows, .active = 1, .sliced = (flags & TS_CPU_SLICED) != 0,
                    .timed = (flags & TS_CPU_TIMED) != 0, .kernel = (flags & TS_CPU_KERNEL) != 0,
                    .by_time = (flags & TS_CPU_BY_TIME) != 0 && (flags & TS_CPU_SLICED) != 0,
                    .state = (uint8_t)state, .exact = one || cost <= INT64_MAX / rows,
                    .row = one ? cost : cost % rows == 0 ? cost / rows : 0, .at_row = 1};
  /* (.last stays 0: its end calls the op's exec, which returns TS_OP_NEXT all the same) */
  resume(w, a);
  return TS_OP_BUSY;
}

void ts__cpu_preempt(ts_world *w, ts_worker *wk)
{
  catch_up(w, wk);
  emit_piece(w, wk);
  ts_seg *g = &ts_world_actor(w, wk->actor)->seg;
  g->at_row = 0; /* it may stop inside a row */
  g->plain = 0;  /* (it resumes in a new plan) */
  wk->frac = 0;
  wk->gen++;
}

void ts__cpu_cut(ts_world *w, ts_worker *wk)
{
  if (wk->seg != TS_SEG_ACTOR)
    return;
  catch_up(w, wk);
  ts_actor *a = ts_world_actor(w, wk->actor);
  a->seg.cost = a->seg.done;
  a->seg.rows = 1;
  a->seg.rows_target = 1;
  a->seg.at_row = 0;
  a->seg.exact = 1;
  a->seg.row = a->seg.cost;
  wk->frac = 0;
  a->seg.plain = 0; /* (its work is not its cost as planned) */
  wk->gen++;
  ts__at(w, w->sim.now, TS_EV_SEG_END, wk->id, wk->gen);
}

/* The common end of a slice, in one pass: actor a's planned piece ends
 * over the threshold with rows left, on an event loop that surely goes on
 * with "a to the queue's tail, then the yield's overhead, or else the
 * queue's head on the CPU": no observer, a core of its own, a fifo queue,
 * no loop overhead, no timers or callbacks waiting, in its start phase. It
 * does what ts__cpu_on_seg_end, ts__worker_yield (and ts__cpu_overhead),
 * ts__worker_next, start_actor and ts__cpu_resume do in that case, in the
 * same order, without their generality; a is wk's running actor, its
 * segment sliced. Returns 0 (and changes nothing) when the case does not
 * apply. */
static int rr_slice(ts_world *w, ts_worker *wk, ts_actor *a)
{
  int cores = w->model->cores;
  if (!wk->rr_able || wk->ready.len > 0 || wk->timers.len > 0 || wk->micro.len > 0 || wk->phase != TS_PHASE_START || wk->blocked >= 0 ||
      w->error || wk->frac_q != 1 || (cores > 0 && w->busy > cores))
    return 0;
  ts_time now = w->sim.now;
  ts_seg *g = &a->seg;
  if (g->rows_target >= g->rows || now - a->lap_start <= wk->seg_threshold || g->kernel)
    return 0;
  catch_up_one(w, wk, a, 0); /* not kernel time (above) */
  g->rows_done = g->rows_target;
  g->done = cum(g, g->rows_done);
  g->at_row = 1;
  wk->frac = 0;
  wk->piece_t0 = now; /* emit_piece, with no observer */
  /* ts__worker_yield */
  a->st.yields++;
  int depth = (int)wk->fifo_q.len;
  wk->queue_entries++;
  wk->queue_depth_sum += depth;
  if (depth > wk->queue_depth_max)
    wk->queue_depth_max = depth;
  ts__actor_account_state(w, a, TS_ACTOR_QUEUED); /* rr_able: no observer */
  if (ts_ring_push(&wk->fifo_q, a->id) != 0)
    ts__world_nomem(w);
  if (w->error)
    return 1;
  if (wk->spec->yield_overhead > 0) { /* ts__cpu_overhead: the loop pays for the yield, busy still */
    wk->seg = TS_SEG_OVERHEAD;
    wk->seg_t0 = now;
    wk->piece_t0 = now;
    wk->frac = 0;
    wk->frac_q = 1;
    wk->actor = -1;
    wk->over_left = wk->spec->yield_overhead;
    schedule_end(w, wk, wk->over_left);
    return 1;
  }
  /* ts__worker_next: the start phase, with no timers and no callbacks, goes
   * straight to the check phase, which resumes the queue's head */
  wk->overhead_paid = 0;
  wk->timers_left = 0;
  wk->poll_left = 0;
  wk->phase = TS_PHASE_START;
  ts_actor *b = ts_world_actor(w, ts_ring_pop(&wk->fifo_q));
  /* start_actor */
  if (b->prio_pending) {
    b->prio_pending = 0;
    wk->prio_inflight--;
  }
  ts__actor_account_state(w, b, TS_ACTOR_RUNNING);
  b->lap_start = now;
  b->lap_counted = 0;
  wk->seg_threshold = ts__worker_threshold(wk);
  wk->actor = b->id;
  if (!b->seg.active) {
    if (!ts__actor_continue(w, b))
      ts__worker_loop(w, wk);
    return 1;
  }
  /* ts__cpu_resume (the worker stays busy: no change of rate). No
   * quantities_used bit to set: b's segment began in resume, which set them */
  if (b->seg.timed && !b->lap_counted) {
    b->lap_counted = 1;
    b->st.slices++;
  }
  if (b->seg.state != TS_ACTOR_RUNNING && b->state != b->seg.state)
    ts__actor_set_state(w, b, b->seg.state);
  wk->seg_t0 = now;
  wk->piece_t0 = now;
  wk->frac = 0;
  wk->frac_q = 1;
  /* plan_actor, when its lap cache holds b's rows: a core of its own and a
   * lap just begun (lap_start = now) */
  ts_seg *h = &b->seg;
  int64_t j = h->sliced && h->cost > 0 && wk->seg_threshold != TS_TIME_MAX ? cached_lap_row(wk, h) : -1;
  if (j >= 0) {
    h->rows_target = (int32_t)j;
    h->at_row = 0;
    ts_time left = cum(h, j) - h->done;
    arm_end(w, wk, left > 0 ? left : 0);
    return 1;
  }
  plan_actor(w, wk);
  return 1;
}

static void seg_end_general(ts_world *w, ts_worker *wk);

/* Actor a's segment, its op's last phase (TS_CPU_LAST), just ended: what
 * ts__actor_run does with that op's exec, which would return TS_OP_NEXT,
 * without the call: the op counts at this instant (the livelock's count),
 * and a goes to its next step. Not when the run has failed or the count
 * reaches the livelock's limit: ts__actor_run then does it all. */
static inline void op_done(ts_world *w, ts_actor *a)
{
  if (w->sim.now != w->ops_instant) {
    w->ops_instant = w->sim.now;
    w->ops_at_instant = 0;
  }
  if (w->error || w->ops_at_instant >= TS_LIVELOCK_OPS)
    return;
  w->ops_at_instant++;
  a->pc++;
  a->sub = 0;
}

/* catch_up_one for actor a's plain segment (a->seg.plain) ending now: its
 * one row, neither sliced nor timed, armed to its end at rate 1 by
 * ts__cpu_begin (its continuation case, internal.h, or its idle worker's
 * case) and never re-planned (a change of rate: set_busy_shared), cut or
 * preempted since (each clears plain; a new segment's begin sets it anew;
 * only a preempted segment resumes mid-way, ts__cpu_resume).
 * So its work is its cost, done in the ns elapsed since it
 * began, with no frac, and it is not timed: the same effects in the same
 * order, without the tests that hold by construction. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void plain_work(ts_world *w, ts_worker *wk, ts_actor *a)
{
  ts_seg *g = &a->seg;
  ts_time now = w->sim.now, elapsed = now - wk->seg_t0;
  if (elapsed != g->cost)
    ts__invariant(w, "actor %d's plain CPU segment of %lld ns ended after %lld ns", a->id, (long long)g->cost,
                  (long long)elapsed);
  wk->busy += elapsed;
  ts_time in_window = w->win_all ? elapsed : ts__clip(w, wk->seg_t0, now);
  a->st.cpu += elapsed;
  if (g->kernel) {
    ts__x(w, a)->kernel += elapsed;
    wk->busy_kernel += elapsed;
    wk->win_kernel += in_window;
  } else {
    wk->win_user += in_window;
  }
  if (wk->busy > now)
    ts__invariant(w, "worker %d busy %lld ns in %lld ns of time", wk->id, (long long)wk->busy, (long long)now);
  wk->seg_t0 = now;
}

/* One SEG_END event (ts__cpu_on_seg_end's body). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void seg_end(ts_world *w, const ts_event *ev)
{
  ts_worker *wk = &w->workers[ev->obj];
  if (ev->gen != wk->gen || wk->seg == TS_SEG_IDLE)
    return; /* superseded by a re-plan */
  if (wk->seg == TS_SEG_ACTOR) {
    ts_actor *a = ts_world_actor(w, wk->actor);
    ts_seg *g = &a->seg;
    if (g->sliced) {
      if (rr_slice(w, wk, a)) /* slow_paths (tests): rr_able is 0 (ts_world_run), the general path */
        return;
    } else if (g->plain || (g->rows_target == g->rows && rate_one(w) && wk->frac_q == 1 && !w->slow_paths)) {
      /* An actor's unsliced segment, planned to its end, at rate 1: what
       * catch_up_of, the end below and emit_piece do in that case, in the
       * same order, without their other cases. Then the actor goes on with
       * its next op. */
      if (g->plain)
        plain_work(w, wk, a);
      else
        catch_up_one(w, wk, a, 1);
      g->rows_done = g->rows;
      g->done = g->cost; /* cum(g, rows): rows * row, rows * cost / rows, or cost - cost % rows + cost % rows */
      g->at_row = 1;
      wk->frac = 0;
      emit_piece(w, wk);
      g->active = 0;
      if (a->state != TS_ACTOR_RUNNING)
        ts__actor_set_state(w, a, TS_ACTOR_RUNNING);
      if (g->last)
        op_done(w, a);
      if (!ts__actor_run(w, a))
        ts__worker_next(w, wk);
      return;
    }
  }
  seg_end_general(w, wk);
}

void ts__cpu_on_seg_end(ts_sim *sim, const ts_event *ev)
{
  ts_world *w = sim->data;
  ts_event next;
  /* the next event the run would dispatch now (the list's, not the lane's)
   * runs here in place of a return and a call (engine/sim.h: the same
   * dispatch, the same step): a SEG_END inline, another kind (a parked
   * thread's RESUME, a WAKE...) by its handler. A segment end armed by the
   * event just run may be held out of the list meanwhile (arm_end and
   * ts__cpu_begin, ts__at_next): when nothing is due before it (the list's
   * least and the lane's next are later, or equal and scheduled earlier) it
   * runs next without entering the list, else it enters the list then.
   * slow_paths (tests): one event a call, nothing held. */
  sim->hold = !w->slow_paths;
  do {
    if (ev->kind == TS_EV_SEG_END)
      seg_end(w, ev);
    else if (sim->handlers[ev->kind])
      sim->handlers[ev->kind](sim, ev);
  } while ((ev = ts_sim_next_held_in_place(sim, &next)));
  sim->hold = 0;
}

/* ts__cpu_on_seg_end's general path (out of line: the fused end above then
 * saves fewer registers). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static void seg_end_general(ts_world *w, ts_worker *wk)
{
  if (wk->seg == TS_SEG_OVERHEAD) {
    catch_up(w, wk);
    emit_piece(w, wk);
    ts__worker_next(w, wk);
    return;
  }
  ts_actor *a = ts_world_actor(w, wk->actor);
  catch_up_of(w, wk, a);
  ts_seg *g = &a->seg;
  int over;
  if (g->by_time) { /* done is what catch_up counted; the lap reaches the threshold, or the work is done */
    over = w->sim.now - a->lap_start >= wk->seg_threshold;
    if (g->done >= g->cost) {
      g->done = g->cost;
      g->rows_done = g->rows;
    }
  } else {
    g->rows_done = g->rows_target;
    g->done = cum(g, g->rows_done);
    g->at_row = 1;
    over = g->sliced && w->sim.now - a->lap_start > wk->seg_threshold;
  }
  wk->frac = 0;
  if (g->rows_done < g->rows && !over) {
    plan(w, wk); /* rounding under processor sharing: not over yet */
    return;
  }
  emit_piece(w, wk);
  int busy;
  if (g->rows_done == g->rows) { /* no check after a segment's last row */
    g->active = 0;
    if (a->state != TS_ACTOR_RUNNING)
      ts__actor_set_state(w, a, TS_ACTOR_RUNNING);
    busy = ts__actor_continue(w, a);
  } else {
    busy = ts__worker_yield(w, wk, a) == TS_OP_BUSY;
  }
  if (!busy)
    ts__worker_next(w, wk);
}
