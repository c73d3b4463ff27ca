/* The world's shortcuts (ts_world.slow_paths) in what a program's ops do
 * give exactly what the general paths give: CPU segments (one-row, fused
 * and plain ones, an op's last phase, segment ends held out of the event
 * list), the round-robin slice end and a preemptive event loop; mutexes (a
 * first try in one pass, a release and its wake, std mutexes with
 * timeouts); observed (the same stream of pieces and state changes) and
 * with a window that clips on both sides; and the expressions the ops read:
 * the inline expression machine on the moq relay model, kept lets and index
 * starts (a spawned task starts with its parent's), the ring index
 * instruction (issue 22). Each run is compared whole with the same run
 * without the shortcuts. An open system's job lifecycle (arrivals, chunks,
 * records) is test_shortcuts_lifecycle.c's; the engine's and the
 * collector's fast paths are test_speed_engine.c's and test_speed_stats.c's.
 * (No timing here: scripts/bench measures speed.) */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "model/expr_run.h" /* the compiled code, to find its RING instructions */
#include "model/internal.h"

#include "testutil.h"

/* ---- the world's shortcuts (ts_world.slow_paths) ---- */

/* Run model m with world spec sp twice, with the shortcuts and without
 * (slow_paths, and win_all off: the window is clipped to), observed by oa
 * and ob (NULL: none; same_runs_without_shortcuts), and check that the
 * runs are the same: events, end, each actor's whole record and last
 * segment, each worker's busy and window times, the mutexes' contention
 * (per declaration, per site, in all) and the channels' versions. Returns
 * the events. */
static uint64_t same_runs_observed(const ts_model *m, const ts_world_spec *sp, const ts_observer *oa,
                                   const ts_observer *ob)
{
  ts_world a, b;
  ck_assert_int_eq(ts_world_init(&a, m, sp, oa), 0);
  ck_assert_int_eq(ts_world_init(&b, m, sp, ob), 0);
  b.slow_paths = 1;
  b.win_all = 0; /* clip to the window (all of it) instead of knowing it holds all */
  ck_assert_msg(ts_world_run(&a) == TS_WORLD_OK, "%s", a.errmsg);
  ck_assert_msg(ts_world_run(&b) == TS_WORLD_OK, "%s", b.errmsg);
  ck_assert_uint_eq(a.sim.steps, b.sim.steps);
  ck_assert_int_eq(a.sim.now, b.sim.now);
  ck_assert_int_eq(a.nactors, b.nactors);
  for (int id = 0; id < a.nactors; id++) {
    ts_actor_stats x, y;
    ts_world_stats_into(&a, id, &x);
    ts_world_stats_into(&b, id, &y);
    ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "actor %d: cpu %lld vs %lld, done %lld vs %lld", id,
                  (long long)x.cpu, (long long)y.cpu, (long long)x.done, (long long)y.done);
    const ts_seg *g = &ts_world_actor(&a, id)->seg, *h = &ts_world_actor(&b, id)->seg; /* its last segment */
    ck_assert_msg(g->cost == h->cost && g->row == h->row && g->rows == h->rows && g->exact == h->exact &&
                    g->done == h->done,
                  "actor %d's last segment: cost %lld row %lld exact %d vs cost %lld row %lld exact %d", id,
                  (long long)g->cost, (long long)g->row, g->exact, (long long)h->cost, (long long)h->row, h->exact);
  }
  for (int i = 0; i < a.nworkers; i++) {
    const ts_worker *x = &a.workers[i], *y = &b.workers[i];
    ck_assert_msg(x->busy == y->busy && x->win_user == y->win_user && x->win_kernel == y->win_kernel &&
                    x->busy_kernel == y->busy_kernel,
                  "worker %d: busy %lld user %lld vs busy %lld user %lld", i, (long long)x->busy,
                  (long long)x->win_user, (long long)y->busy, (long long)y->win_user);
  }
  ck_assert_int_eq(a.mutex_contended, b.mutex_contended);
  /* the ops run at the last instant (the livelock's count): a shortcut that
   * steps on without an op's exec (cpu.c, TS_CPU_LAST) counts it the same */
  ck_assert_int_eq(a.ops_instant, b.ops_instant);
  ck_assert_uint_eq(a.ops_at_instant, b.ops_at_instant);
  ck_assert(a.win_mutex_wait == b.win_mutex_wait);
  for (size_t d = 0; d < m->nlocks; d++)
    ck_assert_msg(memcmp(&a.lock_stat[d], &b.lock_stat[d], sizeof a.lock_stat[d]) == 0 &&
                    a.mutex_wait_by_lock[d] == b.mutex_wait_by_lock[d],
                  "lock %zu: %lld vs %lld acquires", d, (long long)a.lock_stat[d].acquires,
                  (long long)b.lock_stat[d].acquires);
  for (size_t k = 0; k < m->nsites; k++)
    ck_assert_msg(memcmp(&a.site_stat[k], &b.site_stat[k], sizeof a.site_stat[k]) == 0, "site %zu", k);
  for (int k = 0; k < a.nchan_inst; k++)
    ck_assert_msg(a.chans[k].version == b.chans[k].version, "channel instance %d", k);
  uint64_t steps = a.sim.steps;
  ts_world_finish(&a);
  ts_world_finish(&b);
  return steps;
}

static uint64_t same_runs_without_shortcuts(const ts_model *m, const ts_world_spec *sp)
{
  return same_runs_observed(m, sp, NULL, NULL);
}

/* same_runs_without_shortcuts of model json under spec sp. */
static uint64_t same_runs_spec(const char *json, const ts_world_spec *sp)
{
  ts_model m;
  tu_model(json, &m);
  uint64_t steps = same_runs_without_shortcuts(&m, sp);
  ts_model_finish(&m);
  return steps;
}

/* same_runs_without_shortcuts of model json at n and workers (seed 11). */
static uint64_t same_without_shortcuts(const char *json, int n, int workers)
{
  ts_world_spec sp = tu_world_spec(n, workers, 11);
  return same_runs_spec(json, &sp);
}

/* ---- the same runs observed, and windowed ---- */

/* One thing an observer saw: its hook (kind) and its arguments, in order. */
typedef struct seen {
  int64_t kind, t0, t1, a, b, c, d, e, f;
  const char *label;
} seen;

typedef struct seen_log {
  seen *v;
  size_t n, cap;
} seen_log;

static void seen_add(void *data, seen s)
{
  seen_log *l = data;
  if (l->n == l->cap) {
    l->cap = l->cap ? 2 * l->cap : 4096;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    ck_assert_ptr_nonnull(l->v);
  }
  l->v[l->n++] = s;
}

static void seen_state(void *d, ts_time t, int actor, int state)
{
  seen_add(d, (seen){.kind = 0, .t0 = t, .a = actor, .b = state});
}

static void seen_run(void *d, const ts_run_piece *p)
{
  seen_add(d, (seen){.kind = 1, .t0 = p->t0, .t1 = p->t1, .a = p->worker, .b = p->actor, .c = p->sliced,
                     .d = p->kernel, .e = p->state, .f = p->step * 1000003LL + p->slice, .label = p->label});
}

static void seen_counters(void *d, ts_time t, int worker, int depth, int prio)
{
  seen_add(d, (seen){.kind = 2, .t0 = t, .a = worker, .b = depth, .c = prio});
}

static void seen_lock(void *d, ts_time t, int actor, int decl, int held)
{
  seen_add(d, (seen){.kind = 3, .t0 = t, .a = actor, .b = decl, .c = held});
}

static void seen_wake(void *d, ts_time t, int from, int to)
{
  seen_add(d, (seen){.kind = 4, .t0 = t, .a = from, .b = to});
}

static void seen_blocked(void *d, ts_time t, int worker, int actor, int on)
{
  seen_add(d, (seen){.kind = 5, .t0 = t, .a = worker, .b = actor, .c = on});
}

static void seen_call(void *d, ts_time t, int actor, int server, int klass, int ev)
{
  seen_add(d, (seen){.kind = 6, .t0 = t, .a = actor, .b = server, .c = klass, .d = ev});
}

/* An observer that records every hook's call into l. */
static ts_observer recorder(seen_log *l)
{
  return (ts_observer){.data = l, .actor_state = seen_state, .run = seen_run, .counters = seen_counters,
                       .lock = seen_lock, .wake = seen_wake, .blocked = seen_blocked, .call = seen_call};
}

/* same_runs_without_shortcuts of model json under spec sp with a
 * recording observer on both runs: the same runs, and the same streams of
 * observed things (pieces, state changes, counters, locks, wakes, blocks,
 * calls) in the same order. Returns the things seen. */
static size_t same_observed_spec(const char *json, const ts_world_spec *spec)
{
  ts_model m;
  tu_model(json, &m);
  ts_world_spec sp = *spec;
  seen_log la = {0}, lb = {0};
  ts_observer oa = recorder(&la), ob = recorder(&lb);
  same_runs_observed(&m, &sp, &oa, &ob);
  for (size_t i = 0; i < la.n && i < lb.n; i++) {
    const seen *x = &la.v[i], *y = &lb.v[i];
    ck_assert_msg(x->kind == y->kind && x->t0 == y->t0 && x->t1 == y->t1 && x->a == y->a && x->b == y->b &&
                    x->c == y->c && x->d == y->d && x->e == y->e && x->f == y->f && x->label == y->label,
                  "observed %zu: kind %lld t %lld..%lld (%lld %lld %lld) vs kind %lld t %lld..%lld (%lld %lld %lld)", i,
                  (long long)x->kind, (long long)x->t0, (long long)x->t1, (long long)x->a, (long long)x->b,
                  (long long)x->c, (long long)y->kind, (long long)y->t0, (long long)y->t1, (long long)y->a,
                  (long long)y->b, (long long)y->c);
  }
  ck_assert_uint_eq(la.n, lb.n);
  size_t seen_n = la.n;
  free(la.v);
  free(lb.v);
  ts_model_finish(&m);
  return seen_n;
}

/* same_observed_spec at n and workers (seed 11). */
static size_t same_observed_without_shortcuts(const char *json, int n, int workers)
{
  ts_world_spec sp = tu_world_spec(n, workers, 11);
  return same_observed_spec(json, &sp);
}

/* same_without_shortcuts with the measurement window [t0, t1) (ns; seed
 * 11): the run with the shortcuts clips to it too (win_all off on both
 * sides). */
static uint64_t same_windowed_without_shortcuts(const char *json, int n, int workers, ts_time t0, ts_time t1)
{
  ts_world_spec sp = tu_world_spec(n, workers, 11);
  sp.win_t0 = t0;
  sp.win_t1 = t1;
  return same_runs_spec(json, &sp);
}

/* ---- the models the tests share ---- */

/* Threads sharing mutex m, with every lock cost set (fixed, small), up to
 * its last field: the models below close it ("}]") or add fields first. */
#define THREADS_ON_M                                                                                               \
  "\"worker\": {\"kind\": \"thread\"}, \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"acquire_ms\": 0.01," \
  " \"release_ms\": 0.01, \"spin_ms\": 0.05, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.03, \"wake_latency_ms\": 0.1"

/* 12 threads on one mutex (spin, futex, kernel and user one-row costs), a
 * timed kernel cpu, a cpu of 2 rows, an exponential one and a constant one;
 * "%s" is the host (e.g. 4 cores: processor sharing). */
static const char mutex_fmt[] =
  "{%s" THREADS_ON_M "}], \"classes\": [{\"name\": \"t\", \"count\": \"n\","
  " \"program\": [{\"op\": \"repeat\", \"count\": 30, \"steps\": [{\"op\": \"lock\", \"lock\": \"m\"},"
  " {\"op\": \"cpu\", \"ms\": 0.7, \"timed\": true, \"account\": \"kernel\"}, {\"op\": \"cpu\", \"ms\": 1,"
  " \"rows\": 2}, {\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.5, \"dist\":"
  " \"exponential\"}, {\"op\": \"cpu\", \"ms\": 0.3}]}]}]}";

/* An event loop whose sliced cpu (7 rows) yields once its lap passes 1 ms
 * (rr_slice's case), then an exponential cpu and a constant one, arrivals
 * at 900/s. */
static const char loop_json[] =
  "{\"worker\": {\"threshold_ms\": 1}, \"classes\": [{\"name\": \"job\", \"count\": 2000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 900},"
  " \"program\": [{\"op\": \"cpu\", \"ms\": 3, \"rows\": 7, \"sliced\": true},"
  " {\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}, {\"op\": \"cpu\", \"ms\": 0.2}]}]}";

/* ---- CPU segments and event loops ---- */

/* A round-robin event loop's slice end (cpu.c rr_slice: to the queue's
 * tail, the yield's overhead or the queue's head on the CPU) is the general
 * path's: sliced cpu over a 1 ms threshold, without and with a yield
 * overhead, and with a window that clips. */
START_TEST(speed_round_robin_slices_are_the_general_path)
{
  static const char *const over[] = {"", ", \"yield_overhead_ms\": 0.02"};
  for (int k = 0; k < 2; k++) {
    char json[800];
    snprintf(json, sizeof json,
             "{\"worker\": {\"threshold_ms\": 1%s}, \"classes\": [{\"name\": \"job\", \"count\": 1500, \"arrival\":"
             " {\"kind\": \"poisson\", \"rate_per_s\": 250}, \"program\": [{\"op\": \"cpu\", \"ms\": 3, \"rows\": 7,"
             " \"sliced\": true}, {\"op\": \"cpu\", \"ms\": 0.4, \"dist\": \"exponential\"}]}]}",
             over[k]);
    ck_assert_uint_gt(same_without_shortcuts(json, 1, 1), 6000);
    ck_assert_uint_gt(same_windowed_without_shortcuts(json, 1, 1, 1000 * TS_NS_PER_MS, 4000 * TS_NS_PER_MS), 6000);
  }
}
END_TEST

/* Observed, the shortcuts (the fused end emits its piece, the fused begin
 * sets the state) give the observer what the general path gives: the mutex
 * threads on 4 cores and on a core each, and the event loop's slices. */
START_TEST(speed_observed_runs_are_the_general_path)
{
  static const char *const hosts[] = {"\"host\": {\"cores\": 4}, ", ""};
  for (int k = 0; k < 2; k++) {
    char json[1024];
    snprintf(json, sizeof json, mutex_fmt, hosts[k]);
    ck_assert_uint_gt(same_observed_without_shortcuts(json, 12, 12), 5000);
  }
  ck_assert_uint_gt(same_observed_without_shortcuts(loop_json, 1, 2), 8000);
}
END_TEST

/* With a measurement window that does not hold the whole run (a warmup, an
 * end before the run's), the shortcuts clip to it as the general path does:
 * the mutex threads (window 20-60 ms of ~100) and the event loop's slices
 * (0.5-1.5 s of ~2.2). */
START_TEST(speed_windowed_runs_are_the_general_path)
{
  char json[1024];
  snprintf(json, sizeof json, mutex_fmt, "\"host\": {\"cores\": 4}, ");
  ck_assert_uint_gt(same_windowed_without_shortcuts(json, 12, 12, 20 * TS_NS_PER_MS, 60 * TS_NS_PER_MS), 3000);
  snprintf(json, sizeof json, mutex_fmt, "");
  ck_assert_uint_gt(same_windowed_without_shortcuts(json, 12, 12, 20 * TS_NS_PER_MS, 60 * TS_NS_PER_MS), 3000);
  ck_assert_uint_gt(same_windowed_without_shortcuts(loop_json, 1, 2, 500 * TS_NS_PER_MS, 1500 * TS_NS_PER_MS), 6000);
}
END_TEST

/* A preemptive event loop (strict priority by queue class): background jobs'
 * sliced cpu preempted by foreground arrivals, each with a constant and an
 * exponential cpu after it; the same as the general path, observed too. */
START_TEST(speed_preemptive_loop_is_the_general_path)
{
  static const char json[] =
    "{\"worker\": {\"policy\": \"strict_priority\", \"preempt\": true}, \"classes\": ["
    " {\"name\": \"bg\", \"count\": 300, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 150},"
    "  \"queue_class\": \"background\", \"program\": [{\"op\": \"cpu\", \"ms\": 4, \"rows\": 8, \"sliced\": true},"
    "  {\"op\": \"cpu\", \"ms\": 0.5}, {\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"}]},"
    " {\"name\": \"fg\", \"count\": 600, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 300},"
    "  \"queue_class\": \"foreground\", \"program\": [{\"op\": \"cpu\", \"ms\": 0.3},"
    "  {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"}]}]}";
  ts_model m;
  tu_model(json, &m);
  ts_world_spec sp = tu_world_spec(1, 1, 11);
  ts_world w;
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  ck_assert_int_gt(w.win_preemptions, 20); /* preemption is exercised */
  ts_world_finish(&w);
  ts_model_finish(&m);
  ck_assert_uint_gt(same_without_shortcuts(json, 1, 1), 3000);
  ck_assert_uint_gt(same_observed_without_shortcuts(json, 1, 1), 3000);
}
END_TEST

/* A CPU segment of one row (ts__cpu_begin without its divisions) is the
 * general one: 16 threads on one mutex (every lock cost, spin and futex is
 * one row) with a cpu of 3 rows beside them, and an event loop's sliced cpu
 * then an exponential one; each actor's last segment is one row. */
START_TEST(speed_one_row_segments_are_the_general_ones)
{
  static const char mutex[] =
    "{" THREADS_ON_M "}], \"classes\": [{\"name\": \"t\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\","
    " \"count\": 40, \"steps\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 2, \"rows\": 3},"
    " {\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"}]}]}]}";
  ck_assert_uint_gt(same_without_shortcuts(mutex, 16, 16), 4000);
  static const char loop[] =
    "{\"classes\": [{\"name\": \"job\", \"count\": 2000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 900},"
    " \"program\": [{\"op\": \"cpu\", \"ms\": 3, \"rows\": 7, \"sliced\": true},"
    " {\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}";
  ck_assert_uint_gt(same_without_shortcuts(loop, 1, 2), 6000);
}
END_TEST

/* A segment end held out of the event list (cpu.c's loop, engine/sim.h
 * ts_sim_at_next) runs in place only when it is the next event: the same
 * events in the same order as one event a call with every end in the list
 * (slow_paths), where the list's and the lane's events tie with it (fixed
 * costs on a 10 us grid, periodic arrivals on the same grid, which count as
 * scheduled first), and where the run's horizon falls on such a tie or
 * between events (held ends past it are left in the list: the same end).
 * Threads on one mutex, a closed loop and an open one, plain and observed. */
START_TEST(speed_held_segment_ends_run_in_the_list_order)
{
  static const char open_fmt[] =
    "{" THREADS_ON_M "}], \"classes\": [{\"name\": \"job\", \"count\": 400, \"arrival\": {\"kind\":"
    " \"periodic\", \"period_ms\": %s, \"phase_ms\": 0}, \"program\": [{\"op\": \"lock\", \"lock\": \"m\"},"
    " {\"op\": \"cpu\", \"ms\": 0.2}, {\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.05}]}]}";
  static const char *const periods[] = {"0.3", "0.25", "0.12"};
  static const ts_time horizons[] = {(ts_time)60 * 1000000, (ts_time)60 * 1000000 + 123457};
  char json[1400];
  for (int p = 0; p < 3; p++)
    for (int h = 0; h < 2; h++) {
      snprintf(json, sizeof json, open_fmt, periods[p]);
      ts_world_spec sp = tu_world_spec(1, 3, 11);
      sp.horizon = horizons[h];
      ck_assert_uint_gt(same_runs_spec(json, &sp), 800);
      ck_assert_uint_gt(same_observed_spec(json, &sp), 1000);
    }
  /* the closed loop of 16 threads, cut mid-way at 24 instants 7 us apart
   * (some inside a held end's segment) */
  snprintf(json, sizeof json, mutex_fmt, "");
  for (int h = 0; h < 24; h++) {
    ts_world_spec sp = tu_world_spec(16, 16, 11);
    sp.horizon = (ts_time)50 * 1000000 + h * 7000;
    ck_assert_uint_gt(same_runs_spec(json, &sp), 300);
    ck_assert_uint_gt(same_observed_spec(json, &sp), 500);
  }
}
END_TEST

/* The fused segment path (cpu.c: an unsliced segment's end at rate 1, the
 * actor's next one-row segment on its own worker, and a constant cost
 * without the draw's call) is the general one: 12 threads on one mutex
 * (spin, futex and lock costs: one row, in their states, kernel and user)
 * with a timed kernel cpu, a cpu of 2 rows and an exponential one, on 4
 * cores, so processor sharing moves the rate under some segments (the
 * general path) and not under others; then the same on a core each. */
START_TEST(speed_fused_segments_are_the_general_path)
{
  static const char *const hosts[] = {"\"host\": {\"cores\": 4}, ", ""};
  for (int k = 0; k < 2; k++) {
    char json[1024];
    snprintf(json, sizeof json, mutex_fmt, hosts[k]);
    ck_assert_uint_gt(same_without_shortcuts(json, 12, 12), 3000);
  }
}
END_TEST

/* A plain segment's end (cpu.c plain_work: armed to its end by
 * ts__cpu_begin's one-row cases, never re-planned, cut, preempted or
 * resumed since) and an op's last phase that steps on without its exec
 * (TS_CPU_LAST: a cpu step, a paid acquire, an unlock's futex wake) are the
 * general path: the closed loop of models/examples/mutex.json (fixed
 * costs: ties at equal times) at 16 threads on 16 workers, each with a core
 * of its own and on a host of 4 cores (rate changes re-plan plain
 * segments), plain and observed; a std mutex (every spinner's spin cut by a
 * release). */
START_TEST(speed_plain_segments_and_op_ends_are_the_general_path)
{
  static const char fmt[] =
    "{%s" THREADS_ON_M "%s}], \"classes\": [{\"name\": \"t\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\","
    " \"count\": 60, \"steps\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 2},"
    " {\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.5}]}]}]}";
  static const char *const hosts[] = {"", "\"host\": {\"cores\": 4}, "};
  static const char *const handoffs[] = {"", ", \"handoff\": \"std\""};
  char json[1400];
  for (int h = 0; h < 2; h++)
    for (int k = 0; k < 2; k++) {
      snprintf(json, sizeof json, fmt, hosts[h], handoffs[k]);
      ck_assert_uint_gt(same_without_shortcuts(json, 16, 16), 6000);
      ck_assert_uint_gt(same_observed_without_shortcuts(json, 16, 16), 6000);
    }
}
END_TEST

/* ---- mutexes ---- */

/* A std mutex (futex.rs: every spinner's spin cut short by a release) that
 * threads spin on and give up on after an exponential timeout (then a short
 * cpu and a plain retry), on 3 cores and on a core each, with and without
 * a window: the same as the general path. */
START_TEST(speed_std_mutex_timeouts_are_the_general_path)
{
  static const char *const hosts[] = {"\"host\": {\"cores\": 3}, ", ""};
  for (int k = 0; k < 2; k++) {
    char json[1400];
    snprintf(json, sizeof json,
             "{%s\"worker\": {\"kind\": \"thread\"}, \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"handoff\":"
             " \"std\", \"scope\": \"shared\", \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"spin_ms\": 0.08,"
             " \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.03, \"wake_latency_ms\": 0.05}], \"classes\": [{\"name\":"
             " \"t\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\", \"count\": 30, \"steps\": [{\"op\": \"lock\","
             " \"lock\": \"m\", \"site\": \"a\", \"timeout\": {\"ms\": 0.3, \"dist\": \"exponential\"}, \"else\":"
             " [{\"op\": \"cpu\", \"ms\": 0.05}, {\"op\": \"lock\", \"lock\": \"m\", \"site\": \"b\"}]},"
             " {\"op\": \"cpu\", \"ms\": 0.4, \"dist\": \"exponential\"}, {\"op\": \"unlock\", \"lock\": \"m\"},"
             " {\"op\": \"cpu\", \"ms\": 0.3}]}]}]}",
             hosts[k]);
    ts_model m;
    tu_model(json, &m);
    ts_world_spec sp = tu_world_spec(10, 10, 11);
    ts_world w;
    ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    ck_assert_int_gt(w.win_timeouts, 10); /* the timeouts are exercised */
    ts_world_finish(&w);
    ts_model_finish(&m);
    ck_assert_uint_gt(same_without_shortcuts(json, 10, 10), 2000);
    ck_assert_uint_gt(same_windowed_without_shortcuts(json, 10, 10, 5 * TS_NS_PER_MS, 25 * TS_NS_PER_MS), 2000);
  }
}
END_TEST

/* A mutex's first try in one pass and its paid acquire's step on without
 * the general path (op_lock.c: try_mutex, exec_lock's SUB_TOOK) are the
 * general path: 12 threads on 4 cores over a std mutex with two sites (the
 * CONTENDED state, site attribution), a fifo mutex of 3 indexed instances
 * with a timeout (taken while free, contended, given up), a barging mutex
 * per worker with no acquire cost (the acquire goes on at once) and an
 * async lock; uncontended and contended acquires of each. */
START_TEST(speed_mutex_first_try_is_the_general_path)
{
  static const char json[] =
    "{\"host\": {\"cores\": 4}, \"worker\": {\"kind\": \"thread\"}, \"locks\": ["
    "{\"name\": \"s\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"std\", \"acquire_ms\": 0.01,"
    " \"release_ms\": 0.01, \"spin_ms\": 0.04, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.03,"
    " \"wake_latency_ms\": 0.1, \"migrate_ms\": 0.005},"
    "{\"name\": \"f\", \"kind\": \"mutex\", \"scope\": \"indexed\", \"instances\": 3, \"handoff\": \"fifo\","
    " \"acquire_ms\": 0.02, \"release_ms\": 0.01, \"spin_ms\": 0.03, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.02,"
    " \"wake_latency_ms\": 0.05},"
    "{\"name\": \"b\", \"kind\": \"mutex\", \"scope\": \"per_worker\", \"handoff\": \"barging\", \"acquire_ms\": 0,"
    " \"release_ms\": 0.01, \"spin_ms\": 0, \"futex_wait_ms\": 0.01, \"futex_wake_ms\": 0.01, \"wake_latency_ms\": 0.05},"
    "{\"name\": \"q\"}],"
    " \"classes\": [{\"name\": \"t\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\", \"count\": 40, \"steps\": ["
    " {\"op\": \"lock\", \"lock\": \"s\", \"site\": \"hot\"}, {\"op\": \"cpu\", \"ms\": 0.3, \"dist\": \"exponential\"},"
    " {\"op\": \"unlock\", \"lock\": \"s\"}, {\"op\": \"cpu\", \"ms\": 0.6, \"dist\": \"exponential\"},"
    " {\"op\": \"lock\", \"lock\": \"s\", \"site\": \"cold\"}, {\"op\": \"cpu\", \"ms\": 0.05},"
    " {\"op\": \"unlock\", \"lock\": \"s\"},"
    " {\"op\": \"lock\", \"lock\": \"f\", \"index\": \"i % 3\", \"timeout\": {\"ms\": 0.4}},"
    " {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"}, {\"op\": \"unlock\", \"lock\": \"f\"},"
    " {\"op\": \"lock\", \"lock\": \"b\"}, {\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"unlock\", \"lock\": \"b\"},"
    " {\"op\": \"lock\", \"lock\": \"q\"}, {\"op\": \"sleep\", \"ms\": 0.2, \"dist\": \"exponential\"},"
    " {\"op\": \"unlock\", \"lock\": \"q\"}]}]}]}";
  ts_model m;
  tu_model(json, &m);
  ts_world_spec sp = tu_world_spec(12, 12, 11);
  ts_world w;
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  /* both kinds of acquire ran: some tries found the mutexes held, some free */
  ck_assert_int_gt(w.mutex_contended, 100);
  ck_assert_int_lt(w.mutex_contended, 12 * 40 * 4 - 100);
  ck_assert_int_gt(w.win_timeouts, 0);
  ts_world_finish(&w);
  ck_assert_uint_gt(same_runs_without_shortcuts(&m, &sp), 5000);
  ts_model_finish(&m);
}
END_TEST

/* A mutex's release on without the general path's re-derivation (op_lock.c:
 * exec_unlock's sub 1, release paid, and sub 2, futex wake paid; lock.c: no
 * stop_spinners call without spinners), and a woken waiter's acquire cost
 * begun on its idle worker without the general path (cpu.c: ts__cpu_begin's
 * idle case; at rate 1, and planned when 10 threads share 3 cores), are the
 * general path: 10 threads on 3
 * cores and on a core each, unobserved and observed (the lock and wake
 * hooks), over a std mutex (CONTENDED: every release of it pays futex_wake;
 * spinners freed), a fifo mutex with no release cost (the release at once,
 * sub 0) and a barging one that hands nothing over (a spinner cut short). */
START_TEST(speed_mutex_release_and_wake_are_the_general_path)
{
  static const char fmt[] =
    "{%s\"worker\": {\"kind\": \"thread\"}, \"locks\": ["
    "{\"name\": \"s\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"std\", \"acquire_ms\": 0.01,"
    " \"release_ms\": 0.01, \"spin_ms\": 0.04, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.03,"
    " \"wake_latency_ms\": 0.1},"
    "{\"name\": \"f\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"fifo\", \"acquire_ms\": 0.02,"
    " \"release_ms\": 0, \"spin_ms\": 0.03, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.02, \"wake_latency_ms\": 0.05},"
    "{\"name\": \"b\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"barging\", \"acquire_ms\": 0.01,"
    " \"release_ms\": 0.02, \"spin_ms\": 0.2, \"futex_wait_ms\": 0.01, \"futex_wake_ms\": 0.01, \"wake_latency_ms\": 0.05}],"
    " \"classes\": [{\"name\": \"t\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\", \"count\": 30, \"steps\": ["
    " {\"op\": \"lock\", \"lock\": \"s\"}, {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"},"
    " {\"op\": \"unlock\", \"lock\": \"s\"}, {\"op\": \"cpu\", \"ms\": 0.3, \"dist\": \"exponential\"},"
    " {\"op\": \"lock\", \"lock\": \"f\"}, {\"op\": \"cpu\", \"ms\": 0.1, \"dist\": \"exponential\"},"
    " {\"op\": \"unlock\", \"lock\": \"f\"}, {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"},"
    " {\"op\": \"lock\", \"lock\": \"b\"}, {\"op\": \"cpu\", \"ms\": 0.05},"
    " {\"op\": \"unlock\", \"lock\": \"b\"}]}]}]}";
  static const char *const hosts[] = {"\"host\": {\"cores\": 3}, ", ""};
  for (int k = 0; k < 2; k++) {
    char json[2048];
    snprintf(json, sizeof json, fmt, hosts[k]);
    ck_assert_uint_gt(same_without_shortcuts(json, 10, 10), 3000);
    ck_assert_uint_gt(same_observed_without_shortcuts(json, 10, 10), 3000);
  }
}
END_TEST

/* ---- the expressions the ops read: kept lets, index starts, the ring index ---- */

/* The moq relay model (models/moq-relay.json: nested mutexes with indexed
 * instances, lets over channel versions and waiter counts, notifies, child
 * tasks) runs the same without the shortcuts: the expression machine with
 * the actors' getter inlined is ts_expr_eval's. Chat (base design, 100
 * viewers, 16 workers) and video with replicas (mode 2, hop sessions, 24
 * viewers, 4 workers), 1 s each. */
START_TEST(speed_moq_relay_is_the_general_path)
{
  static const char *const chat[] = {"params.fanin=100", "params.viewers=100", "params.fps=4", NULL};
  static const char *const video[] = {"params.tracks=2", "params.video=1", "params.mode=2", "params.fanin=24",
                                      "params.viewers=24", "params.threshold=1", NULL};
  const char *const *sets[] = {chat, video};
  const int workers[] = {16, 4};
  for (int k = 0; k < 2; k++) {
    int n = 0;
    while (sets[k][n])
      n++;
    char *path = tu_source_path("models/moq-relay.json");
    ts_model m;
    ts_err e;
    ck_assert_msg(ts_model_load(path, sets[k], n, &m, NULL, &e) == 0, "%s", e.msg);
    free(path);
    ts_world_spec sp = tu_world_spec(1, workers[k], 3);
    sp.horizon = (ts_time)1000 * 1000000;
    ck_assert_uint_gt(same_runs_without_shortcuts(&m, &sp), 50000);
    ts_model_finish(&m);
  }
}
END_TEST

/* The model json runs the same without the shortcuts: 8 threads on 4
 * workers, and each on its own (more than 150 events each). */
static void same_at_8_threads(const char *json)
{
  ck_assert_uint_gt(same_without_shortcuts(json, 8, 4), 150);
  ck_assert_uint_gt(same_without_shortcuts(json, 8, 8), 150);
}

/* Index expressions whose start reads only stable inputs keep that start
 * in the actor's let cache (ts_world.idx_pre): the runs are the general
 * path's (ts__eval of the whole index) when what the start reads changes:
 * a set of c (through G and directly), an add to counter k (T), a hop (T
 * reads the worker) and a notify of v (T reads its version). The indexes
 * name lock and channel instances: a stale start notifies another instance
 * (the channels' versions are compared) or locks another mutex. Kept
 * whole ("G", "T + 900") and up to the loop's j (T * 8 and c - 1, two
 * values; T * 8, one, which no set forgets; T * 4, which must not share
 * T * 8's kept start: ts__expr_same_start compares the numbers too). 8
 * threads on 4 workers, and each on its own. */
START_TEST(speed_index_starts_are_the_general_path)
{
  static const char json[] =
    "{\"worker\": {\"kind\": \"thread\"}, \"counters\": [{\"name\": \"k\"}],"
    " \"channels\": [{\"name\": \"ch\", \"scope\": \"indexed\", \"instances\": 1024},"
    " {\"name\": \"v\", \"scope\": \"shared\"}],"
    " \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"indexed\", \"instances\": 1024,"
    " \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.02}],"
    " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"vars\": {\"c\": 0},"
    " \"let\": {\"T\": \"worker * 4 + k + version(v)\", \"G\": \"T * 8 + c % 8\"},"
    " \"program\": [{\"op\": \"repeat\", \"count\": 6, \"name\": \"j\", \"steps\": ["
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T * 8 + j % 8\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T * 4 + j % 8\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T + 900\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"G\"},"
    " {\"op\": \"lock\", \"lock\": \"m\", \"index\": \"T * 8 + (c - 1 - j // 2) % 8\"},"
    " {\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"m\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T * 8 + (c - 1 - j // 2) % 8\"},"
    " {\"op\": \"set\", \"var\": \"c\", \"value\": \"c + 1\"},"
    " {\"op\": \"if\", \"cond\": \"j == 2\", \"then\": [{\"op\": \"add\", \"counter\": \"k\"}]},"
    " {\"op\": \"if\", \"cond\": \"j == 3\", \"then\": [{\"op\": \"hop\", \"to\": \"(worker + 1) % W\", \"ms\": 0.5}]},"
    " {\"op\": \"if\", \"cond\": \"j == 4 && i % 2 == 0\", \"then\": [{\"op\": \"notify\", \"channel\": \"v\"}]},"
    " {\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  same_at_8_threads(json);
}
END_TEST

/* A spawned task and a call's task start with their parent's kept lets and
 * index starts (when class, i and worker are its parent's): the runs are the
 * general path's (slow_paths evaluates them anew). Nested spawns whose
 * parent set a variable, notified an actor-scoped and a shared channel
 * (whose versions lets read), hopped; a call's task on the server's pool
 * (another worker: nothing carried) whose handler sets a variable. */
START_TEST(speed_spawned_tasks_start_with_their_parents_lets_as_the_general_path)
{
  static const char spawn[] =
    "{\"worker\": {\"kind\": \"thread\"}, \"counters\": [{\"name\": \"k\"}], \"channels\": [{\"name\": \"ch\", \"scope\": "
    "\"indexed\", \"instances\": 1024}, {\"name\": \"v\", \"scope\": \"shared\"}, {\"name\": \"av\", \"scope\": \"actor\"}], "
    "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"indexed\", \"instances\": 1024, \"acquire_ms\": 0.01, "
    "\"release_ms\": 0.01, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.02}], \"classes\": [{\"name\": \"a\", "
    "\"count\": \"n\", \"vars\": {\"c\": 0}, \"let\": {\"T\": \"worker * 4 + k + version(v) + version(av) + c % 3\", "
    "\"G\": \"T * 8 + c % 8\", \"F\": \"c == 1 || c == 3 || c == 5 || c == 7\"}, \"program\": [{\"op\": \"repeat\", "
    "\"count\": 6, \"name\": \"j\", \"steps\": [{\"op\": \"set\", \"var\": \"c\", \"value\": \"c + 1\"}, {\"op\": \"notify\", "
    "\"channel\": \"ch\", \"index\": \"G\"}, {\"op\": \"spawn\", \"steps\": [{\"op\": \"notify\", \"channel\": \"ch\", \"index\": "
    "\"T\"}, {\"op\": \"lock\", \"lock\": \"m\", \"index\": \"T * 8 + (c - 1 - j // 2) % 8\"}, {\"op\": \"cpu\", \"ms\": 1}, "
    "{\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"G + F * 100\"}, {\"op\": "
    "\"set\", \"var\": \"c\", \"value\": \"c + 2\"}, {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"G\"}, {\"op\": "
    "\"notify\", \"channel\": \"av\"}, {\"op\": \"spawn\", \"steps\": [{\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T "
    "+ 900\"}, {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"G + F * 100\"}]}, {\"op\": \"hop\", \"to\": \"(worker + "
    "1) % W\", \"ms\": 0.5}, {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T + 900\"}, {\"op\": \"spawn\", \"steps\": "
    "[{\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T + 900\"}, {\"op\": \"notify\", \"channel\": \"ch\", \"index\": "
    "\"G\"}]}]}, {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T * 8 + (c - 1 - j // 2) % 8\"}, {\"op\": "
    "\"notify\", \"channel\": \"ch\", \"index\": \"G + F * 100\"}, {\"op\": \"if\", \"cond\": \"j == 2\", \"then\": [{\"op\": "
    "\"add\", \"counter\": \"k\"}]}, {\"op\": \"if\", \"cond\": \"j == 4 && i % 2 == 0\", \"then\": [{\"op\": \"notify\", "
    "\"channel\": \"v\"}]}, {\"op\": \"if\", \"cond\": \"j == 3\", \"then\": [{\"op\": \"hop\", \"to\": \"(worker + 1) % W\", "
    "\"ms\": 0.5}]}, {\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  static const char call[] =
    "{\"worker\": {\"kind\": \"thread\"}, \"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 2}], \"servers\": "
    "[{\"name\": \"s\", \"pool\": \"db\", \"concurrency\": 2}], \"channels\": [{\"name\": \"ch\", \"scope\": \"indexed\", "
    "\"instances\": 4096}, {\"name\": \"v\", \"scope\": \"shared\"}], \"classes\": [{\"name\": \"a\", \"count\": \"n\", "
    "\"vars\": {\"c\": 0}, \"let\": {\"T\": \"worker * 16 + c % 7 + version(v)\", \"G\": \"T * 8 + c % 8\"}, \"program\": "
    "[{\"op\": \"repeat\", \"count\": 5, \"name\": \"j\", \"steps\": [{\"op\": \"notify\", \"channel\": \"ch\", \"index\": "
    "\"G\"}, {\"op\": \"set\", \"var\": \"c\", \"value\": \"c + 1\"}, {\"op\": \"call\", \"server\": \"s\", \"wait\": false, "
    "\"request_ms\": 0.2, \"reply_ms\": 0.3, \"handler\": [{\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T\"}, "
    "{\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"G + 1000\"}, {\"op\": \"set\", \"var\": \"c\", \"value\": \"c + 3\"}, "
    "{\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"G\"}, {\"op\": \"cpu\", \"ms\": 0.5}]}, {\"op\": \"notify\", "
    "\"channel\": \"ch\", \"index\": \"T\"}, {\"op\": \"if\", \"cond\": \"j == 2 && i % 2 == 0\", \"then\": [{\"op\": "
    "\"notify\", \"channel\": \"v\"}]}, {\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  for (int n = 1; n <= 16; n *= 4) {
    ck_assert_uint_gt(same_without_shortcuts(spawn, n, 4), 20);
    ck_assert_uint_gt(same_without_shortcuts(call, n, 2), 20);
  }
}
END_TEST

/* A kept let is current while the let epoch has not moved on: a notify
 * moves it on with the channel epoch, so the lets that read the notified
 * channel's version are forgotten and the others kept, and a counter's add
 * moves it on alone, so all are forgotten (actor_eval.c lets_refresh). The runs
 * are the general path's (slow_paths keeps no let: each is evaluated at
 * each read): V reads the version of an indexed channel's instance that c
 * picks, U another channel's, D both and counter k, and every duration
 * reads D; two instances are notified in turn, k added every third pass,
 * c set every other. A stale V, U or D changes a duration, so the
 * actors' records differ. 6 threads on 3 workers, and each on its own. */
START_TEST(speed_kept_lets_are_current_after_notifies_and_adds)
{
  static const char json[] =
    "{\"worker\": {\"kind\": \"thread\"}, \"counters\": [{\"name\": \"k\"}],"
    " \"channels\": [{\"name\": \"ch\", \"scope\": \"indexed\", \"instances\": 4},"
    " {\"name\": \"other\", \"scope\": \"shared\"}],"
    " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"vars\": {\"c\": 0},"
    " \"let\": {\"V\": \"version(ch, c % 2)\", \"U\": \"version(other)\", \"W2\": \"i % 3 + 1\","
    " \"D\": \"0.5 + V * 0.25 + U * 0.125 + k * 0.0625 + W2 * 0.03125\"},"
    " \"program\": [{\"op\": \"repeat\", \"count\": 9, \"name\": \"j\", \"steps\": ["
    " {\"op\": \"cpu\", \"ms\": \"D\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"(i + j) % 2\"},"
    " {\"op\": \"cpu\", \"ms\": \"D + W2 * 0.01\"},"
    " {\"op\": \"if\", \"cond\": \"j % 3 == 1\", \"then\": [{\"op\": \"add\", \"counter\": \"k\"}]},"
    " {\"op\": \"if\", \"cond\": \"j % 4 == 2\", \"then\": [{\"op\": \"notify\", \"channel\": \"other\"}]},"
    " {\"op\": \"cpu\", \"ms\": \"D\"},"
    " {\"op\": \"set\", \"var\": \"c\", \"value\": \"c + j % 2\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"2 + j % 2\"},"
    " {\"op\": \"cpu\", \"ms\": \"D\"}]}]}]}";
  ck_assert_uint_gt(same_without_shortcuts(json, 6, 3), 200);
  ck_assert_uint_gt(same_without_shortcuts(json, 6, 6), 200);
}
END_TEST

/* ring_resolve and ring_get: the variables B, C and x are ring_vals[0..3). */
static int ring_resolve(void *ctx, const char *name, ts_expr_var *var, double *constant)
{
  (void)ctx, (void)constant;
  static const char *const names[] = {"B", "C", "x"};
  for (int k = 0; k < 3; k++)
    if (strcmp(name, names[k]) == 0) {
      *var = (ts_expr_var){.kind = 0, .index = k};
      return 1;
    }
  return 0;
}

static double ring_get(void *ctx, ts_expr_var v)
{
  return ((const double *)ctx)[v.index];
}

/* The ring index superinstruction (TS_XOP_RING: IDIV_K, SUB, MOD_K, ADD of
 * "B + (C - x // k) % m" as one, expr.c's fuse_rings) gives bit for bit what
 * the plain code, one instruction per value and operator, gives: moq's form
 * and others with the same code, at integers, halves, both zeros, huge
 * values, infinities and NaN for B, C and x, with k and m whole, fractional,
 * negative (k also 0). Each expression's code has its RING. */
START_TEST(speed_ring_index_is_the_plain_code)
{
  static const char *const forms[] = {"B + (C - x // %s) %% %s", "B * 1 + (C - 1 - x // %s) %% %s",
                                      "(B + (C - x // %s) %% %s) * 2", "x // 2 + (B + (C - x // %s) %% %s)"};
  static const char *const ks[] = {"2", "3", "-2", "0.5", "0", "1e-300"};
  static const char *const ms[] = {"64", "7", "-64", "2.5", "1e300"};
  static const double vals[] = {0, -0.0, 1, -1, 2, 2.5, -2.5, 63, 64, 65, -65, 0.1, 1e300, -1e300, 9007199254740993.0,
                                12345678901.0, INFINITY, -INFINITY, NAN};
  const int nv = (int)(sizeof vals / sizeof *vals);
  long numbers = 0;
  for (size_t f = 0; f < sizeof forms / sizeof *forms; f++)
    for (size_t ik = 0; ik < sizeof ks / sizeof *ks; ik++)
      for (size_t im = 0; im < sizeof ms / sizeof *ms; im++) {
        char text[128], err[128];
        snprintf(text, sizeof text, forms[f], ks[ik], ms[im]);
        ts_expr *e = ts_expr_compile(text, ring_resolve, NULL, err, sizeof err);
        ck_assert_msg(e, "%s: %s", text, err);
        int rings = 0;
        for (size_t c = 0; c < e->len; c++)
          rings += e->code[c].op == TS_XOP_RING;
        ck_assert_msg(rings == 1, "%s: %d RING instructions", text, rings);
        for (int b = 0; b < nv; b++)
          for (int c = 0; c < nv; c++)
            for (int x = 0; x < nv; x++) {
              double at[3] = {vals[b], vals[c], vals[x]};
              double got = ts_expr_eval(e, ring_get, at), want = ts__expr_eval_plain(e, ring_get, at);
              ck_assert_msg(memcmp(&got, &want, sizeof got) == 0 || (got != got && want != want),
                            "%s at B = %g, C = %g, x = %g: %.17g, plain code %.17g", text, at[0], at[1], at[2], got,
                            want);
              numbers += got == got;
            }
        ts_expr_free(e);
      }
  ck_assert_int_gt(numbers, 100000); /* (most are numbers, not NaN) */
}
END_TEST

/* An index whose kept start leaves B and C and whose rest is one variable x
 * and a RING (ts_idx_pre.ring: actor_eval.c index_kept computes it without the
 * machine) names the instances the general path's ts__eval of the whole
 * index names: x a loop's j, now and arrived, k 2, 3 and -2, C below 0, on
 * locks and notifies; B and C change with a set of c and an add to k. 8
 * threads on 4 workers, and each on its own. */
START_TEST(speed_kept_ring_indexes_are_the_general_path)
{
  static const char json[] =
    "{\"worker\": {\"kind\": \"thread\"}, \"counters\": [{\"name\": \"k\"}],"
    " \"channels\": [{\"name\": \"ch\", \"scope\": \"indexed\", \"instances\": 1024}],"
    " \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"indexed\", \"instances\": 1024,"
    " \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.02}],"
    " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"vars\": {\"c\": 0},"
    " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 0.7},"
    " \"let\": {\"T\": \"worker * 4 + k\"},"
    " \"program\": [{\"op\": \"repeat\", \"count\": 7, \"name\": \"j\", \"steps\": ["
    " {\"op\": \"lock\", \"lock\": \"m\", \"index\": \"T * 8 + (c - 5 - j // 2) % 8\"},"
    " {\"op\": \"cpu\", \"ms\": 0.3}, {\"op\": \"unlock\", \"lock\": \"m\"},"
    " {\"op\": \"lock\", \"lock\": \"m\", \"index\": \"T * 8 + (c + 1 - now // 3) % 8\"},"
    " {\"op\": \"cpu\", \"ms\": 0.4}, {\"op\": \"unlock\", \"lock\": \"m\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T * 8 + (c - 1 - j // -2) % 8\"},"
    " {\"op\": \"notify\", \"channel\": \"ch\", \"index\": \"T * 8 + (c - arrived // 1) % 8\"},"
    " {\"op\": \"set\", \"var\": \"c\", \"value\": \"c + 3\"},"
    " {\"op\": \"if\", \"cond\": \"j == 2\", \"then\": [{\"op\": \"add\", \"counter\": \"k\"}]},"
    " {\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  same_at_8_threads(json);
}
END_TEST

Suite *shortcuts_ops_suite(void)
{
  Suite *s = suite_create("shortcuts_ops");
  const TTest *const exact[] = {speed_round_robin_slices_are_the_general_path,
                                speed_observed_runs_are_the_general_path,
                                speed_windowed_runs_are_the_general_path,
                                speed_preemptive_loop_is_the_general_path,
                                speed_one_row_segments_are_the_general_ones,
                                speed_held_segment_ends_run_in_the_list_order,
                                speed_fused_segments_are_the_general_path,
                                speed_plain_segments_and_op_ends_are_the_general_path,
                                speed_std_mutex_timeouts_are_the_general_path,
                                speed_mutex_first_try_is_the_general_path,
                                speed_mutex_release_and_wake_are_the_general_path,
                                speed_moq_relay_is_the_general_path,
                                speed_index_starts_are_the_general_path,
                                speed_spawned_tasks_start_with_their_parents_lets_as_the_general_path,
                                speed_kept_lets_are_current_after_notifies_and_adds,
                                speed_ring_index_is_the_plain_code,
                                speed_kept_ring_indexes_are_the_general_path,
                                NULL};
  tu_tcase(s, "exact", exact, NULL, NULL, 0);
  return s;
}
