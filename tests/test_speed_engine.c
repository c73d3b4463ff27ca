/* The engine's fast paths give exactly what the slow ones gave: the O(1)
 * row arithmetic of CPU segments against the binary search it replaced,
 * the heap's replace-top and a handler's follow-ups replacing its event in
 * place against a pop and a push, arrivals served from the engine's lane
 * in the (time, seq) order the heap would have given them, and actors
 * retired as they are done against a world that keeps them all. The
 * statistics' fast paths are test_speed_stats.c's; the world's shortcuts
 * test_shortcuts_ops.c's and test_shortcuts_lifecycle.c's.
 * (No timing here: scripts/bench measures speed.) */

#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "engine/heap.h"
#include "engine/sim.h"
#include "model/internal.h"
#include "run/metrics.h"

#include "testutil.h"

/* ---- rows ---- */

START_TEST(speed_rows_o1_equals_search)
{
  uint64_t s = 7;
  size_t bad = 0, tried = 0;
  static const ts_time costs[] = {1, 2, 3, 7, 10, 399, 400, 401, 1000, 999983, INT64_C(400000000),
                                  INT64_C(1000000000000000), INT64_C(922337203685477580)};
  static const int64_t rows[] = {1, 2, 3, 7, 400, 401, 999, 10000000};
  for (size_t ci = 0; ci < sizeof costs / sizeof *costs; ci++)
    for (size_t ri = 0; ri < sizeof rows / sizeof *rows; ri++) {
      ts_time c = costs[ci];
      int64_t r = rows[ri];
      for (int k = 0; k < 400; k++) {
        int64_t lo = (int64_t)(tu_lcg(&s) % (uint64_t)(r + 2));
        ts_time x;
        switch (k % 4) {
        case 0: x = (ts_time)(tu_lcg(&s) % (uint64_t)(c + 2)); break;      /* anywhere in the segment */
        case 1: x = (ts_time)((__int128)c * (lo % (r + 1)) / r); break; /* exactly a row's end */
        case 2: x = (ts_time)((__int128)c * (lo % (r + 1)) / r) - 1; break;
        default: x = c + (ts_time)(tu_lcg(&s) % 5) - 2; break;             /* around the end */
        }
        tried++;
        bad += ts__rows_beyond(c, r, lo, x, 1) != ts__rows_beyond(c, r, lo, x, 0);
      }
    }
  ck_assert_uint_gt(tried, 40000);
  ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- the event list ---- */

START_TEST(speed_heap_replace_top_is_pop_then_push)
{
  ts_heap a, b;
  ts_heap_init(&a);
  ts_heap_init(&b);
  uint64_t s = 3, seq = 0;
  for (int i = 0; i < 300; i++) {
    ts_event ev = {.time = (ts_time)(tu_lcg(&s) % 50), .seq = seq++};
    ck_assert_int_eq(ts_heap_push(&a, &ev), 0);
    ck_assert_int_eq(ts_heap_push(&b, &ev), 0);
  }
  size_t bad = 0;
  for (int i = 0; i < 20000; i++) {
    ts_event top = *ts_heap_peek(&a), got;
    ts_event ev = {.time = top.time + (ts_time)(tu_lcg(&s) % 7), .seq = seq++};
    ck_assert_int_eq(ts_heap_replace_top(&a, &ev), 0);
    ts_heap_pop(&b, &got);
    ts_heap_push(&b, &ev);
    bad += got.seq != top.seq || ts_heap_peek(&a)->seq != ts_heap_peek(&b)->seq;
  }
  ts_event x, y;
  while (ts_heap_pop(&a, &x) && ts_heap_pop(&b, &y))
    bad += x.seq != y.seq;
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_eq(ts_heap_size(&a), 0);
  ts_heap_finish(&a);
  ts_heap_finish(&b);
}
END_TEST

/* Handlers that schedule 0 to 2 follow-ups (some at the same instant, some
 * far ahead), against the same decisions made on a bare list by pop then
 * push: the simulation, which replaces its handler's event in the place
 * dispatch found it (sim.top_in_run), runs the events in the same order. */
typedef struct chain {
  uint64_t s;
  int n, cap;       /* events run (the first cap recorded) */
  int32_t next;
  int32_t *obj;
} chain;

/* Decide event number n's follow-ups: their delays in d, their count returned. */
static int follow_ups(chain *c, ts_time *d)
{
  if (c->n >= c->cap / 2)
    return 0;
  int k = (int)(tu_lcg(&c->s) % 3);
  for (int i = 0; i < k; i++) {
    uint64_t x = tu_lcg(&c->s);
    d[i] = x % 5 == 0 ? 0 : x % 7 == 0 ? (ts_time)(x % 100000) : (ts_time)(x % 30);
  }
  return k;
}

static void on_chain(ts_sim *sim, const ts_event *ev)
{
  chain *c = sim->data;
  if (c->n < c->cap)
    c->obj[c->n] = ev->obj;
  c->n++;
  ts_time d[4];
  int k = follow_ups(c, d);
  for (int i = 0; i < k; i++)
    ck_assert_int_eq(ts_sim_at(sim, sim->now + d[i], 0, c->next++, 0), 0);
}

START_TEST(speed_handler_follow_ups_run_as_pop_then_push)
{
  enum { CAP = 60000 };
  chain a = {.s = 9, .cap = CAP, .obj = malloc(CAP * sizeof(int32_t))}, b = a;
  b.obj = malloc(CAP * sizeof(int32_t));
  ts_sim sim;
  ts_sim_init(&sim, &a);
  ts_sim_on(&sim, 0, on_chain);
  ts_heap h;
  ts_heap_init(&h);
  uint64_t seq = 0;
  for (int i = 0; i < 40; i++) {
    ts_time t = (ts_time)(tu_lcg(&a.s) % 50);
    ck_assert_int_eq(ts_sim_at(&sim, t, 0, a.next++, 0), 0);
    ts_event ev = {.time = t, .seq = seq++, .obj = b.next++};
    ck_assert_int_eq(ts_heap_push(&h, &ev), 0);
  }
  b.s = a.s;
  ts_sim_run(&sim, TS_TIME_MAX, 0);
  ts_event ev;
  while (ts_heap_pop(&h, &ev)) {
    if (b.n < b.cap)
      b.obj[b.n] = ev.obj;
    b.n++;
    ts_time d[4];
    int k = follow_ups(&b, d);
    for (int i = 0; i < k; i++) {
      ts_event f = {.time = ev.time + d[i], .seq = seq++, .obj = b.next++};
      ck_assert_int_eq(ts_heap_push(&h, &f), 0);
    }
  }
  ck_assert_int_ge(a.n, CAP / 2);
  ck_assert_int_le(a.n, CAP);
  ck_assert_int_eq(a.n, b.n);
  int bad = 0;
  for (int i = 0; i < a.n; i++)
    bad += a.obj[i] != b.obj[i];
  ck_assert_int_eq(bad, 0);
  ts_heap_finish(&h);
  ts_sim_finish(&sim);
  free(a.obj);
  free(b.obj);
}
END_TEST

/* ---- the lane ---- */

typedef struct seen {
  int32_t obj[256];
  ts_time at[256];
  int len;
  int lane_next, lane_len;
  const ts_time *lane_times;
} seen;

static int lane_gen(void *ctx, ts_time *t, int32_t *obj)
{
  seen *r = ctx;
  if (r->lane_next == r->lane_len)
    return 0;
  *t = r->lane_times[r->lane_next];
  *obj = 1000 + r->lane_next++;
  return 1;
}

static void on_any(ts_sim *sim, const ts_event *ev)
{
  seen *r = sim->data;
  r->obj[r->len] = ev->obj;
  r->at[r->len++] = sim->now;
  if (ev->obj == 1000) /* the first arrival schedules one at its own time: after the lane's ties */
    ts_sim_at(sim, sim->now, 1, 7, 0);
}

START_TEST(speed_lane_runs_before_heap_ties)
{
  static const ts_time times[] = {0, 0, 5, 5, 9};
  seen r = {.lane_len = 5, .lane_times = times};
  ts_sim sim;
  ts_sim_init(&sim, &r);
  ts_sim_on(&sim, 0, on_any);
  ts_sim_on(&sim, 1, on_any);
  ck_assert_int_eq(ts_sim_lane(&sim, 0, lane_gen, &r), 0);
  ck_assert_int_eq(ts_sim_at(&sim, 5, 1, 1, 0), 0);
  ck_assert_int_eq(ts_sim_at(&sim, 0, 1, 2, 0), 0);
  ck_assert_uint_eq(ts_sim_run(&sim, TS_TIME_MAX, 0), 8);
  static const int32_t want[] = {1000, 1001, 2, 7, 1002, 1003, 1, 1004};
  ck_assert_int_eq(r.len, 8);
  for (int i = 0; i < 8; i++)
    ck_assert_int_eq(r.obj[i], want[i]);
  ck_assert_int_eq(sim.now, 9);
  ck_assert_ptr_null(ts_sim_peek(&sim));
  ts_sim_finish(&sim);
}
END_TEST

/* ---- actors retired as they are done ---- */

/* A world with a done callback (the run layer's) against one that keeps
 * every actor, same model and seed: each actor is handed over once, when it
 * is done, with the measurements the full world ends with (and each
 * per-actor quantity read from the actor is the record's); the memory held
 * is the chunks of the actors alive, not of all of them. The lock's
 * timeouts mostly expire after their actor is done and its chunk freed
 * (those expiries are ignored). */
typedef struct handed {
  const ts_world *ref;
  int n, bad, max_chunks;
} handed;

static int same_stats(const ts_actor_stats *a, const ts_actor_stats *b)
{
  int same = a->actor == b->actor && a->klass == b->klass && a->worker == b->worker && a->arrive == b->arrive &&
             a->wave_start == b->wave_start && a->wave_end == b->wave_end && a->done == b->done &&
             a->timer == b->timer && a->cpu == b->cpu && a->kernel == b->kernel && a->lock_work == b->lock_work &&
             a->slices == b->slices && a->yields == b->yields;
  for (int s = 0; s < TS_NSTATES; s++)
    same &= a->state[s] == b->state[s];
  return same;
}

static int on_done(void *ctx, const ts_world *w, const ts_actor *a)
{
  handed *h = ctx;
  h->n++;
  ts_actor_stats s = ts_world_stats(w, a->id), r = ts_world_stats(h->ref, a->id);
  h->bad += !same_stats(&s, &r) || a->state != TS_ACTOR_DONE;
  for (int q = TS_Q_WAVE; q <= TS_Q_SETTLE; q++) { /* each quantity read from the actor: the record's, bit for bit */
    double x = ts_metric_actor_quantity(q, w, a), y = ts_metric_quantity(q, &s);
    h->bad += memcmp(&x, &y, sizeof x) != 0;
  }
  int chunks = 0;
  for (int c = 0; c < w->cap_actors >> TS_CHUNK_BITS; c++)
    chunks += w->chunks[c] != NULL;
  if (chunks > h->max_chunks)
    h->max_chunks = chunks;
  return 0;
}

START_TEST(speed_retired_actors_are_measured_as_kept)
{
  ts_model m;
  tu_model("{\"locks\": [{\"name\": \"l\", \"scope\": \"shared\"}], \"classes\": [{\"name\": \"job\", \"count\": 40000,"
           " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 500}, \"program\": ["
           " {\"op\": \"lock\", \"lock\": \"l\", \"timeout\": {\"ms\": 5000, \"dist\": \"exponential\"}},"
           " {\"op\": \"io\", \"ms\": 1, \"dist\": \"exponential\"}, {\"op\": \"unlock\", \"lock\": \"l\"}]}]}",
           &m);
  ts_world ref, w;
  ts_world_spec sp = tu_world_spec(1, 1, 7);
  ck_assert_int_eq(ts_world_init(&ref, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&ref), TS_WORLD_OK);
  handed h = {.ref = &ref};
  sp.done = on_done;
  sp.done_ctx = &h;
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  ck_assert_int_eq(h.n, 40000);
  ck_assert_int_eq(h.bad, 0);
  ck_assert_int_eq(w.nactors, 40000);
  ck_assert_int_le(h.max_chunks, 2); /* of 10: the one arriving and the one before it */
  for (int c = 0; c < (w.nactors - 1) >> TS_CHUNK_BITS; c++) /* (the last is part-used: a spawn could take an id in it) */
    ck_assert_ptr_null(w.chunks[c]);
  ck_assert_int_eq(ref.sim.steps, w.sim.steps);
  ck_assert_int_eq(ref.sim.now, w.sim.now);
  ck_assert_int_eq(ref.win_timeouts, w.win_timeouts);
  ts_world_finish(&w);
  ts_world_finish(&ref);
  ts_model_finish(&m);
}
END_TEST

/* Spawned tasks (a futures child per frame, as moq's GroupServe) give
 * their extensions back when they are done, though their class does not
 * retire (a task's id may still be named by a stale waker): the world with
 * a done callback runs the same events as one that keeps every extension,
 * hands over the same measurements, and its memory pool stops growing once
 * the children alive at once have theirs (without the give-back: one new
 * extension per child, 1,200 children). Every done actor is handed over,
 * the children a session takes with it as it ends too (ts__actor_end_child:
 * a collector's window waits for an id never handed over). */
static int pool_blocks_on_done(void *ctx, const ts_world *w, const ts_actor *a)
{
  handed *h = ctx;
  h->n++;
  if (ts_world_counted(a)) {
    ts_actor_stats s = ts_world_stats(w, a->id), r = ts_world_stats(h->ref, a->id);
    h->bad += !same_stats(&s, &r);
  }
  if ((int)w->rng_pool.nblocks > h->max_chunks)
    h->max_chunks = (int)w->rng_pool.nblocks;
  return 0;
}

START_TEST(speed_done_tasks_give_back_their_extensions)
{
  ts_model m;
  tu_model("{\"worker\": {\"kind\": \"thread\"}, \"channels\": [{\"name\": \"track\", \"scope\": \"shared\"},"
           " {\"name\": \"group\", \"scope\": \"shared\"}], \"classes\": ["
           "{\"name\": \"publisher\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": [{\"op\": \"repeat\","
           " \"count\": 200, \"steps\": [{\"op\": \"cpu\", \"ms\": 0.01}, {\"op\": \"notify\", \"channel\": \"track\"},"
           " {\"op\": \"sleep\", \"ms\": 2}, {\"op\": \"cpu\", \"ms\": 0.01}, {\"op\": \"notify\", \"channel\": \"group\"},"
           " {\"op\": \"sleep\", \"ms\": 8}]}]},"
           "{\"name\": \"session\", \"count\": 6, \"placement\": {\"worker\": \"1 + i % 2\"}, \"vars\": {\"cursor\": 0},"
           " \"program\": [{\"op\": \"repeat\", \"while\": \"cursor < 200\", \"steps\": [{\"op\": \"cpu\", \"ms\": 0.02},"
           " {\"op\": \"if\", \"cond\": \"version(track) > cursor\", \"then\": [{\"op\": \"set\", \"var\": \"cursor\","
           " \"value\": \"cursor + 1\"}, {\"op\": \"child\", \"steps\": [{\"op\": \"repeat\", \"while\":"
           " \"version(group) < cursor\", \"steps\": [{\"op\": \"cpu\", \"ms\": 0.01}, {\"op\": \"register\","
           " \"channel\": \"group\"}, {\"op\": \"pending\"}]}, {\"op\": \"cpu\", \"ms\": \"0.05 + i * 0.01\"}]}]},"
           " {\"op\": \"register\", \"channel\": \"track\"}, {\"op\": \"poll_children\"}, {\"op\": \"pending\"}]}]}]}",
           &m);
  ts_world ref, w;
  ts_world_spec sp = tu_world_spec(1, 3, 7);
  sp.horizon = sp.win_t1 = 2100 * TS_NS_PER_MS;
  ck_assert_int_eq(ts_world_init(&ref, &m, &sp, NULL), 0);
  ts_world_run(&ref);
  handed h = {.ref = &ref};
  sp.done = pool_blocks_on_done;
  sp.done_ctx = &h;
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ts_world_run(&w);
  ck_assert_int_eq(w.error, 0);
  ck_assert_int_eq(ref.nactors, 7 + 6 * 200); /* the children: one per session and frame */
  ck_assert_int_eq(h.n, w.done); /* every done actor handed over, a session's last child too (it ends with it) */
  ck_assert_int_ge(h.n, 1000);
  ck_assert_int_eq(h.bad, 0);
  ck_assert_int_eq(ref.sim.steps, w.sim.steps);
  ck_assert_int_eq(ref.sim.now, w.sim.now);
  ck_assert_int_eq(ref.done, w.done);
  ck_assert_int_gt((int)ref.rng_pool.nblocks, 8); /* every child's extension made new */
  ck_assert_int_le(h.max_chunks, 3);              /* the first block, the next, and one for the streams' growth */
  ts_world_finish(&w);
  ts_world_finish(&ref);
  ts_model_finish(&m);
}
END_TEST

Suite *speed_engine_suite(void)
{
  Suite *s = suite_create("speed_engine");
  const TTest *const exact[] = {speed_rows_o1_equals_search,
                                speed_heap_replace_top_is_pop_then_push,
                                speed_lane_runs_before_heap_ties,
                                speed_retired_actors_are_measured_as_kept,
                                speed_done_tasks_give_back_their_extensions,
                                speed_handler_follow_ups_run_as_pop_then_push,
                                NULL};
  tu_tcase(s, "exact", exact, NULL, NULL, 0);
  return s;
}
