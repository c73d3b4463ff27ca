/* Engine: the event heap's (time, seq) order, the simulation clock and its
 * limits, and the random streams. */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>

#include "engine/heap.h"
#include "engine/rng.h"
#include "engine/sim.h"
#include "engine/time.h"

#include "testutil.h"

/* A fixed pseudo-random sequence (64-bit LCG, Knuth's MMIX constants), so the
 * heap is exercised independently of the engine's own RNG. */
static uint64_t lcg_next(uint64_t *state)
{
  *state = *state * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return *state >> 33;
}

/* Handlers record the obj of each event they see, and when. */
typedef struct record {
  int32_t obj[64];
  ts_time at[64];
  int len;
} record;

static void on_record(ts_sim *sim, const ts_event *ev)
{
  record *r = sim->data;
  if (r->len < 64) {
    r->obj[r->len] = ev->obj;
    r->at[r->len] = sim->now;
  }
  r->len++;
}

/* Records, and the first time it runs schedules two more events at now. */
static void on_record_and_spawn(ts_sim *sim, const ts_event *ev)
{
  on_record(sim, ev);
  if (ev->obj == 0) {
    ts_sim_at(sim, sim->now, 0, 100, 0);
    ts_sim_at(sim, sim->now, 0, 101, 0);
  }
}

static void push_event(ts_heap *h, ts_time time, uint64_t seq)
{
  ts_event ev = {.time = time, .seq = seq, .obj = (int32_t)seq};
  ck_assert_int_eq(ts_heap_push(h, &ev), 0);
}

/* Pop everything; returns the count, and fails if (time, seq) ever decreased.
 * (One assertion at the end: Check reports every assertion to its parent.) */
static size_t drain_sorted(ts_heap *h)
{
  ts_event prev, ev;
  size_t n = 0, bad = 0;
  while (ts_heap_pop(h, &ev)) {
    if (n > 0 && (prev.time > ev.time || (prev.time == ev.time && prev.seq >= ev.seq)))
      bad++;
    prev = ev;
    n++;
  }
  ck_assert_uint_eq(bad, 0);
  return n;
}

START_TEST(engine_heap_orders_by_time_then_seq)
{
  ts_heap h;
  ts_heap_init(&h);
  /* (time, seq) pushed out of order */
  push_event(&h, 30, 1);
  push_event(&h, 10, 5);
  push_event(&h, 20, 2);
  push_event(&h, 10, 3);
  push_event(&h, 20, 0);
  push_event(&h, 10, 4);
  static const ts_time want_time[] = {10, 10, 10, 20, 20, 30};
  static const uint64_t want_seq[] = {3, 4, 5, 0, 2, 1};
  ts_event ev;
  for (int i = 0; i < 6; i++) {
    ck_assert_ptr_nonnull(ts_heap_peek(&h));
    ck_assert_int_eq(ts_heap_peek(&h)->time, want_time[i]);
    ck_assert_int_eq(ts_heap_pop(&h, &ev), 1);
    ck_assert_int_eq(ev.time, want_time[i]);
    ck_assert_uint_eq(ev.seq, want_seq[i]);
  }
  ck_assert_int_eq(ts_heap_pop(&h, &ev), 0);
  ck_assert_ptr_null(ts_heap_peek(&h));
  ts_heap_finish(&h);
}
END_TEST

START_TEST(engine_heap_random_pushes_pop_sorted)
{
  ts_heap h;
  ts_heap_init(&h);
  uint64_t state = 12345, seq = 0;
  /* times in [0, 500): many ties, so seq order matters; grows past 64 slots */
  for (int i = 0; i < 20000; i++)
    push_event(&h, (ts_time)(lcg_next(&state) % 500), seq++);
  ck_assert_uint_eq(ts_heap_size(&h), 20000);
  ck_assert_uint_eq(drain_sorted(&h), 20000);
  ck_assert_uint_eq(ts_heap_size(&h), 0);
  ts_heap_finish(&h);
}
END_TEST

START_TEST(engine_heap_interleaved_push_pop_stays_sorted)
{
  ts_heap h;
  ts_heap_init(&h);
  uint64_t state = 99, seq = 0;
  ts_time floor_time = 0;
  size_t backwards = 0;
  ts_event ev;
  /* like a simulation: pop the least, push a few at or after it */
  push_event(&h, 0, seq++);
  for (int i = 0; i < 5000 && ts_heap_pop(&h, &ev); i++) {
    backwards += ev.time < floor_time;
    floor_time = ev.time;
    int k = (int)(lcg_next(&state) % 3);
    for (int j = 0; j < k; j++)
      push_event(&h, ev.time + (ts_time)(lcg_next(&state) % 4), seq++);
  }
  ck_assert_uint_eq(backwards, 0);
  drain_sorted(&h);
  ts_heap_finish(&h);
  /* finish leaves an empty, reusable heap */
  push_event(&h, 7, 0);
  ck_assert_int_eq(ts_heap_peek(&h)->time, 7);
  ts_heap_finish(&h);
}
END_TEST

/* Events later than all pending ones go to the sorted run, the rest to the
 * binary heap: whatever the mix, pops (and replace-tops) come out exactly in
 * (time, seq) order, the order a sort of everything pushed gives. */
START_TEST(engine_heap_run_and_heap_give_one_order)
{
  ts_heap h;
  ts_heap_init(&h);
  uint64_t state = 7, seq = 0;
  size_t bad = 0, in_run = 0, in_heap = 0, popped = 0;
  ts_time now = 0;
  ts_event ev, last = {.time = -1};
  for (int i = 0; i < 30000; i++) {
    uint64_t r = lcg_next(&state);
    ts_time t = now + (ts_time)(r % 4 == 0 ? lcg_next(&state) % 5 : 1000 + lcg_next(&state) % 50);
    ts_event e = {.time = t, .seq = seq++};
    if (r % 3 == 0 && ts_heap_size(&h) > 0) {
      const ts_event *top = ts_heap_peek(&h);
      ts_event want = *top;
      e.time += top->time - now; /* a handler's follow-up: not before its own event */
      ck_assert_int_eq(ts_heap_replace_top(&h, &e), 0);
      ev = want; /* what left */
    } else {
      ck_assert_int_eq(ts_heap_push(&h, &e), 0);
      if (r % 2 == 0 || !ts_heap_pop(&h, &ev))
        continue;
    }
    bad += ts_event_before(&ev, &last);
    last = ev;
    now = ev.time;
    popped++;
    in_run += h.run_len > 0;
    in_heap += h.len > 0;
  }
  while (ts_heap_pop(&h, &ev)) {
    bad += ts_event_before(&ev, &last);
    last = ev;
  }
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_gt(popped, 5000);
  ck_assert_uint_gt(in_run, 1000); /* both parts were in use */
  ck_assert_uint_gt(in_heap, 1000);
  ts_heap_finish(&h);
}
END_TEST

/* The reference list: every pending event in an array; the least found by
 * a linear scan (ts_event_before), removed by moving the last one in. */
typedef struct ref_list {
  ts_event v[4096];
  size_t len;
} ref_list;

static ts_event ref_take_least(ref_list *r)
{
  size_t best = 0;
  for (size_t i = 1; i < r->len; i++)
    if (ts_event_before(&r->v[i], &r->v[best]))
      best = i;
  ts_event least = r->v[best];
  r->v[best] = r->v[--r->len];
  return least;
}

/* Whether a and b are the same event, payload included. */
static int same_event(const ts_event *a, const ts_event *b)
{
  return a->time == b->time && a->seq == b->seq && a->kind == b->kind && a->obj == b->obj && a->gen == b->gen;
}

/* Pushes, pops, replace-tops (both entry points, and with ev pointing into
 * the list) in a random mix, at list sizes from 1 to ~1,000, with many events
 * at equal times, some later than everything pending (the run's tail), some
 * earlier than the least: every event that leaves is exactly the reference's
 * least (time, seq, and its payload), and the sizes agree after each step. */
START_TEST(engine_heap_matches_a_reference_list)
{
  static const size_t sizes[] = {1, 2, 3, 4, 5, 8, 17, 63, 64, 65, 130, 500, 1000};
  static ref_list ref;
  ts_heap h;
  ts_heap_init(&h);
  uint64_t state = 11, seq = 0;
  size_t bad = 0, ops = 0, ties = 0, via_run = 0, via_heap = 0;
  ts_time now = 0, tail = 0; /* the latest time pushed */
  for (size_t k = 0; k < 2 * (sizeof sizes / sizeof *sizes); k++) {
    size_t target = sizes[k / 2];
    int feed_run = k % 2; /* then 3 in 8 events go after the latest */
    for (size_t step = 0; step < 10 * target + 600; step++) {
      uint64_t r = lcg_next(&state);
      uint64_t pick = lcg_next(&state) % 8;
      ts_time t = pick < 1 ? now + (ts_time)(r % 3) : pick < 5 ? (feed_run ? tail : now) + (ts_time)(r % 3) : now + (pick < 7 ? 1000 + (ts_time)(r % 40) : (ts_time)(r % 5000) - 2000);
      tail = t > tail ? t : tail;
      ts_event e = {.time = t, .seq = seq++, .kind = (int)(r % 16), .obj = (int32_t)(r >> 7), .gen = (uint32_t)(r >> 11)};
      size_t len = ts_heap_size(&h);
      int grow = len < target || (len < 2 * target && r % 2 == 0);
      int op = len == 0 ? 0 : grow ? (r % 4 == 0 ? 2 : 0) : (int)(1 + r % 4);
      ts_event out, want;
      if (op == 0) { /* push */
        ck_assert_int_eq(ts_heap_push(&h, &e), 0);
        ref.v[ref.len++] = e;
        continue;
      }
      want = ref_take_least(&ref);
      const ts_event *top = ts_heap_peek(&h);
      out = *top;
      if (op == 1) { /* pop */
        ck_assert_int_eq(ts_heap_pop(&h, &out), 1);
      } else if (op == 2 || op == 3) { /* replace the least with e */
        int in_run = top != h.v; /* (as engine/sim.c tells it) */
        via_run += in_run;
        via_heap += !in_run;
        ck_assert_int_eq(op == 2 ? ts_heap_replace_top(&h, &e) : ts_heap_replace_top_at(&h, &e, in_run), 0);
        ref.v[ref.len++] = e;
      } else { /* replace the least with itself: ev points into the list */
        ck_assert_int_eq(ts_heap_replace_top(&h, top), 0);
        ref.v[ref.len++] = out;
      }
      bad += !same_event(&out, &want);
      bad += ts_heap_size(&h) != ref.len;
      bad += h.len > 0 && h.run_len == 0; /* heap.h's invariant: the run empties only with the heap */
      ties += ref.len > 0 && ts_heap_peek(&h)->time == out.time;
      now = out.time;
      ops++;
    }
    while (ref.len > 0) { /* drain */
      ts_event want = ref_take_least(&ref), out;
      ck_assert_int_eq(ts_heap_pop(&h, &out), 1);
      bad += !same_event(&out, &want);
    }
    bad += ts_heap_size(&h) != 0;
  }
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_gt(ops, 10000);
  ck_assert_uint_gt(ties, 1000); /* equal times were common */
  ck_assert_uint_gt(via_run, 1000); /* both parts gave the least */
  ck_assert_uint_gt(via_heap, 1000);
  ts_heap_finish(&h);
}
END_TEST

START_TEST(engine_sim_equal_times_run_fifo)
{
  record r = {0};
  ts_sim sim;
  ts_sim_init(&sim, &r);
  ts_sim_on(&sim, 0, on_record);
  ts_sim_on(&sim, 1, on_record);
  /* 40 events at one instant, alternating kinds, plus one earlier and one later */
  for (int i = 0; i < 40; i++)
    ck_assert_int_eq(ts_sim_at(&sim, 5, i % 2, i, 0), 0);
  ck_assert_int_eq(ts_sim_at(&sim, 9, 0, 41, 0), 0);
  ck_assert_int_eq(ts_sim_at(&sim, 1, 0, 40, 0), 0);
  ck_assert_uint_eq(ts_sim_run(&sim, TS_TIME_MAX, 0), 42);
  ck_assert_int_eq(r.len, 42);
  ck_assert_int_eq(r.obj[0], 40);
  for (int i = 0; i < 40; i++) {
    ck_assert_int_eq(r.obj[i + 1], i);
    ck_assert_int_eq(r.at[i + 1], 5);
  }
  ck_assert_int_eq(r.obj[41], 41);
  ck_assert_int_eq(sim.now, 9);
  ck_assert_uint_eq(sim.steps, 42);
  ck_assert_int_eq(sim.failed, 0);
  ts_sim_finish(&sim);
}
END_TEST

START_TEST(engine_sim_events_scheduled_now_run_after_pending_ones)
{
  record r = {0};
  ts_sim sim;
  ts_sim_init(&sim, &r);
  ts_sim_on(&sim, 0, on_record_and_spawn);
  ts_sim_at(&sim, 3, 0, 0, 0);
  ts_sim_at(&sim, 3, 0, 1, 0);
  ts_sim_run(&sim, TS_TIME_MAX, 0);
  /* 0 spawns 100 and 101 at t=3; they run after 1, which was already pending */
  ck_assert_int_eq(r.len, 4);
  ck_assert_int_eq(r.obj[0], 0);
  ck_assert_int_eq(r.obj[1], 1);
  ck_assert_int_eq(r.obj[2], 100);
  ck_assert_int_eq(r.obj[3], 101);
  ts_sim_finish(&sim);
}
END_TEST

START_TEST(engine_sim_at_rejects_the_past)
{
  record r = {0};
  ts_sim sim;
  ts_sim_init(&sim, &r);
  ts_sim_on(&sim, 0, on_record);
  ts_sim_at(&sim, 10, 0, 1, 0);
  ck_assert_int_eq(ts_sim_step(&sim), 1);
  ck_assert_int_eq(sim.now, 10);
  ck_assert_int_eq(sim.failed, 0);
  /* now itself is allowed; one ns earlier is not */
  ck_assert_int_eq(ts_sim_at(&sim, 10, 0, 2, 0), 0);
  ck_assert_int_eq(sim.failed, 0);
  ck_assert_int_eq(ts_sim_at(&sim, 9, 0, 3, 0), -1);
  ck_assert_int_eq(sim.failed, TS_SIM_PAST);
  /* the rejected event is not queued, and run stops once failed is set */
  ck_assert_uint_eq(ts_heap_size(&sim.heap), 1);
  ck_assert_uint_eq(ts_sim_run(&sim, TS_TIME_MAX, 0), 0);
  ck_assert_int_eq(r.len, 1);
  ts_sim_finish(&sim);
}
END_TEST

START_TEST(engine_sim_at_rejects_bad_kinds)
{
  ts_sim sim;
  ts_sim_init(&sim, NULL);
  ck_assert_int_eq(ts_sim_at(&sim, 1, TS_SIM_MAX_KINDS, 0, 0), -1);
  ck_assert_int_eq(sim.failed, TS_SIM_PAST);
  sim.failed = TS_SIM_OK;
  ck_assert_int_eq(ts_sim_at(&sim, 1, -1, 0, 0), -1);
  ck_assert_int_eq(sim.failed, TS_SIM_PAST);
  ck_assert_uint_eq(ts_heap_size(&sim.heap), 0);
  ts_sim_finish(&sim);
}
END_TEST

START_TEST(engine_sim_step_on_empty_returns_zero)
{
  ts_sim sim;
  ts_sim_init(&sim, NULL);
  ck_assert_int_eq(ts_sim_step(&sim), 0);
  ck_assert_int_eq(sim.now, 0);
  ck_assert_uint_eq(sim.steps, 0);
  /* an event of a kind with no handler still advances the clock */
  ts_sim_at(&sim, 4, 3, 0, 0);
  ck_assert_int_eq(ts_sim_step(&sim), 1);
  ck_assert_int_eq(sim.now, 4);
  ck_assert_int_eq(ts_sim_step(&sim), 0);
  ck_assert_int_eq(sim.now, 4);
  ck_assert_uint_eq(sim.steps, 1);
  ts_sim_finish(&sim);
}
END_TEST

static void schedule_ten(ts_sim *sim, record *r)
{
  ts_sim_init(sim, r);
  ts_sim_on(sim, 0, on_record);
  for (int i = 1; i <= 10; i++)
    ts_sim_at(sim, i * 10, 0, i, 0);
}

START_TEST(engine_sim_run_stops_after_until)
{
  record r = {0};
  ts_sim sim;
  schedule_ten(&sim, &r);
  /* events at exactly `until` run; later ones stay queued */
  ck_assert_uint_eq(ts_sim_run(&sim, 50, 0), 5);
  ck_assert_int_eq(sim.now, 50);
  ck_assert_uint_eq(ts_heap_size(&sim.heap), 5);
  ck_assert_uint_eq(ts_sim_run(&sim, 54, 0), 0);
  ck_assert_uint_eq(ts_sim_run(&sim, TS_TIME_MAX, 0), 5);
  ck_assert_int_eq(r.len, 10);
  ck_assert_int_eq(sim.now, 100);
  ts_sim_finish(&sim);
}
END_TEST

START_TEST(engine_sim_run_stops_after_max_steps)
{
  record r = {0};
  ts_sim sim;
  schedule_ten(&sim, &r);
  ck_assert_uint_eq(ts_sim_run(&sim, TS_TIME_MAX, 3), 3);
  ck_assert_int_eq(r.len, 3);
  ck_assert_int_eq(sim.now, 30);
  ck_assert_uint_eq(sim.steps, 3);
  /* both limits: whichever comes first */
  ck_assert_uint_eq(ts_sim_run(&sim, 45, 5), 1);
  ck_assert_uint_eq(ts_sim_run(&sim, TS_TIME_MAX, 100), 6);
  ck_assert_uint_eq(sim.steps, 10);
  ts_sim_finish(&sim);
}
END_TEST

START_TEST(engine_time_ms_conversion_rounds)
{
  ck_assert_int_eq(ts_time_from_ms(1), TS_NS_PER_MS);
  ck_assert_int_eq(ts_time_from_ms(1.5), 1500000);
  ck_assert_int_eq(ts_time_from_ms(0.0000004), 0);
  ck_assert_int_eq(ts_time_from_ms(0.0000006), 1);
  ck_assert_int_eq(ts_time_from_ms(3.6e6), INT64_C(3600000000000));
  ck_assert_double_eq(ts_time_to_ms(2500000), 2.5);
}
END_TEST

START_TEST(engine_rng_same_seed_same_sequence)
{
  ts_rng *a = ts_rng_create(42), *b = ts_rng_create(42), *c = ts_rng_create(43);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  ck_assert_ptr_nonnull(c);
  int differs = 0, same = 0, outside = 0;
  for (int i = 0; i < 1000; i++) {
    double x = ts_rng_uniform(a), y = ts_rng_uniform(b), z = ts_rng_uniform(c);
    same += x == y;
    outside += x < 0 || x >= 1;
    differs += x != z;
  }
  ck_assert_int_eq(same, 1000);
  ck_assert_int_eq(outside, 0);
  ck_assert_int_gt(differs, 990);
  for (int i = 0; i < 100; i++) {
    same += ts_rng_exponential(a, 5) == ts_rng_exponential(b, 5);
    same += ts_rng_lognormal(a, 5, 0.5) == ts_rng_lognormal(b, 5, 0.5);
    same += ts_rng_gamma(a, 5, 0.5) == ts_rng_gamma(b, 5, 0.5);
  }
  ck_assert_int_eq(same, 1300);
  ts_rng_destroy(a);
  ts_rng_destroy(b);
  ts_rng_destroy(c);
  ts_rng_destroy(NULL);
}
END_TEST

/* Sample mean of `count` draws of a distribution with the given mean and cv. */
static double sample_mean(double (*draw)(ts_rng *, double, double), double mean, double cv, int count)
{
  ts_rng *r = ts_rng_create(7);
  double sum = 0;
  for (int i = 0; i < count; i++)
    sum += draw(r, mean, cv);
  ts_rng_destroy(r);
  return sum / count;
}

static double draw_exponential(ts_rng *r, double mean, double cv)
{
  (void)cv;
  return ts_rng_exponential(r, mean);
}

START_TEST(engine_rng_distributions_have_their_mean)
{
  /* fixed seed: deterministic; 200000 draws put the mean within 1% */
  ck_assert_double_eq_tol(sample_mean(draw_exponential, 10, 0, 200000), 10, 0.1);
  ck_assert_double_eq_tol(sample_mean(ts_rng_lognormal, 10, 0.5, 200000), 10, 0.1);
  ck_assert_double_eq_tol(sample_mean(ts_rng_gamma, 10, 0.5, 200000), 10, 0.1);
  /* cv 0 is the fixed value */
  ts_rng *r = ts_rng_create(1);
  ck_assert_double_eq(ts_rng_lognormal(r, 3, 0), 3);
  ck_assert_double_eq(ts_rng_gamma(r, 3, 0), 3);
  ts_rng_destroy(r);
}
END_TEST

START_TEST(engine_rng_derive_seed_depends_on_every_coordinate)
{
  unsigned long base = ts_rng_derive_seed(1, 16, 1, 0);
  ck_assert_uint_eq(base, ts_rng_derive_seed(1, 16, 1, 0));
  ck_assert_uint_ne(base, ts_rng_derive_seed(2, 16, 1, 0));
  ck_assert_uint_ne(base, ts_rng_derive_seed(1, 17, 1, 0));
  ck_assert_uint_ne(base, ts_rng_derive_seed(1, 16, 2, 0));
  ck_assert_uint_ne(base, ts_rng_derive_seed(1, 16, 1, 1));
  /* swapping coordinates gives different streams */
  ck_assert_uint_ne(ts_rng_derive_seed(1, 2, 1, 0), ts_rng_derive_seed(1, 1, 2, 0));
  ck_assert_uint_ne(ts_rng_derive_seed(1, 2, 1, 0), ts_rng_derive_seed(1, 1, 1, 2));
  ck_assert_uint_ne(ts_rng_derive_seed(1, 1, 2, 0), ts_rng_derive_seed(1, 1, 1, 2));
}
END_TEST

/* An actor's stream made in place (ts_rng_init_small, whose GSL seeding is
 * table lookups) is the stream GSL's own seeding makes (ts_rng_create_small:
 * gsl_rng_set of taus2), draw for draw: over 10^5 seeds of 64 bits, and over
 * the seeds whose LCG steps land below taus2's floors (s1 < 2, s2 < 8,
 * s3 < 16), where the seeding adds to a component. */
START_TEST(engine_rng_small_stream_in_place_is_gsls)
{
  uint32_t inv = 69069; /* 69069^-1 mod 2^32 by Newton's iteration */
  for (int k = 0; k < 5; k++)
    inv *= 2 - UINT32_C(69069) * inv;
  ck_assert_uint_eq((uint32_t)(UINT32_C(69069) * inv), 1);
  enum { EDGE = 3 * 16, N = 100000 };
  uint64_t seeds[EDGE + N];
  int n = 0;
  for (int d = 1; d <= 3; d++) /* LCG^d(seed) = t, t < 16: the d-th component is at its floor or below */
    for (uint32_t t = 0; t < 16; t++) {
      uint32_t x = t;
      for (int k = 0; k < d; k++)
        x *= inv;
      seeds[n++] = x;
    }
  uint64_t st = 7;
  for (int i = 0; i < N; i++)
    seeds[n++] = lcg_next(&st) << 31 ^ lcg_next(&st);
  void *mem = malloc(ts_rng_small_size());
  ck_assert_ptr_nonnull(mem);
  int differ = 0;
  for (int i = 0; i < n; i++) {
    ts_rng *a = ts_rng_init_small(mem, seeds[i]), *b = ts_rng_create_small(seeds[i]);
    ck_assert_ptr_nonnull(b);
    for (int k = 0; k < 4; k++)
      differ += ts_rng_uniform(a) != ts_rng_uniform(b);
    ts_rng_destroy(b);
  }
  ck_assert_int_eq(differ, 0);
  free(mem);
}
END_TEST

static int cmp_ulong(const void *a, const void *b)
{
  unsigned long x = *(const unsigned long *)a, y = *(const unsigned long *)b;
  return (x > y) - (x < y);
}

START_TEST(engine_rng_derive_seed_no_collisions_over_a_sweep)
{
  /* every (n, workers, replication) of a plausible sweep gets its own seed */
  enum { NN = 20, NW = 8, NR = 10, TOTAL = NN * NW * NR };
  static unsigned long seen[TOTAL];
  int k = 0, collisions = 0;
  for (int n = 1; n <= NN; n++)
    for (int w = 1; w <= NW; w++)
      for (int r = 0; r < NR; r++)
        seen[k++] = ts_rng_derive_seed(1, n, w, r);
  qsort(seen, TOTAL, sizeof *seen, cmp_ulong);
  for (int i = 1; i < TOTAL; i++)
    collisions += seen[i] == seen[i - 1];
  ck_assert_int_eq(collisions, 0);
}
END_TEST

/* A random run for ts_sim_next_in_place: the handlers of kinds 0 and 1
 * each schedule 0 to 2 events (kind 0 or 1, often at now: equal times) and
 * note (handler, obj, now, steps) per event; kind 0's handler, with use 1,
 * runs the next kind-0 event in place, with use 2 the next event of any kind
 * (ts_sim_next_any_in_place: kind 1 by its handler). A lane (kind 2) brings
 * 400 events. */
typedef struct inplace {
  int use;
  uint64_t rng;
  int32_t next_obj;
  int64_t *trace;
  size_t len, cap;
  long in_place; /* events run in place */
  int lane_left;
  ts_time lane_t;
} inplace;

static void inplace_note(inplace *p, int64_t a, int64_t b, int64_t c, int64_t d)
{
  if (p->len + 4 > p->cap) {
    p->cap = p->cap ? 2 * p->cap : 4096;
    p->trace = realloc(p->trace, p->cap * sizeof *p->trace);
    ck_assert_ptr_nonnull(p->trace);
  }
  p->trace[p->len++] = a;
  p->trace[p->len++] = b;
  p->trace[p->len++] = c;
  p->trace[p->len++] = d;
}

static void inplace_event(ts_sim *sim, const ts_event *ev, int handler)
{
  inplace *p = sim->data;
  inplace_note(p, handler, ev->obj, sim->now, (int64_t)sim->steps);
  int n = (int)(lcg_next(&p->rng) % 3);
  for (int i = 0; i < n && p->next_obj < 30000; i++) {
    int kind = lcg_next(&p->rng) % 4 ? 0 : 1;
    ts_time dt = lcg_next(&p->rng) % 3 ? (ts_time)(lcg_next(&p->rng) % 20) : 0;
    ck_assert_int_eq(ts_sim_at(sim, sim->now + dt, kind, p->next_obj++, 0), 0);
  }
}

static void on_inplace0(ts_sim *sim, const ts_event *ev)
{
  inplace *p = sim->data;
  ts_event buf;
  for (;;) {
    if (ev->kind == 0)
      inplace_event(sim, ev, 0);
    else
      sim->handlers[ev->kind](sim, ev);
    if (!p->use || !(ev = p->use == 2 ? ts_sim_next_any_in_place(sim, &buf) : ts_sim_next_in_place(sim, 0, &buf)))
      return;
    p->in_place++;
  }
}

static void on_inplace1(ts_sim *sim, const ts_event *ev)
{
  inplace_event(sim, ev, 1);
}

static void on_inplace2(ts_sim *sim, const ts_event *ev)
{
  inplace_event(sim, ev, 2);
}

static int inplace_lane(void *ctx, ts_time *time, int32_t *obj)
{
  inplace *p = ctx;
  if (p->lane_left == 0)
    return 0;
  p->lane_left--;
  p->lane_t += 13;
  *time = p->lane_t;
  *obj = -p->lane_left;
  return 1;
}

/* The run's trace, run in pieces: to untils 7 apart, single steps, pieces
 * of 37 steps, then to the end (each piece's count noted too). */
static void inplace_run(inplace *p, int use)
{
  *p = (inplace){.use = use, .rng = 42, .lane_left = 400};
  ts_sim sim;
  ts_sim_init(&sim, p);
  ts_sim_on(&sim, 0, on_inplace0);
  ts_sim_on(&sim, 1, on_inplace1);
  ts_sim_on(&sim, 2, on_inplace2);
  ck_assert_int_eq(ts_sim_lane(&sim, 2, inplace_lane, p), 0);
  for (int i = 0; i < 50; i++)
    ck_assert_int_eq(ts_sim_at(&sim, (ts_time)(lcg_next(&p->rng) % 100), (int)(lcg_next(&p->rng) % 2), p->next_obj++, 0),
                     0);
  for (ts_time until = 0; until < 2000; until += 7)
    inplace_note(p, -1, (int64_t)ts_sim_run(&sim, until, 0), sim.now, 0);
  for (int i = 0; i < 5; i++)
    inplace_note(p, -2, ts_sim_step(&sim), sim.now, 0);
  for (uint64_t ran = 37; ran == 37;) {
    ran = ts_sim_run(&sim, TS_TIME_MAX - 1, 37);
    inplace_note(p, -3, (int64_t)ran, sim.now, 0);
  }
  inplace_note(p, -4, (int64_t)ts_sim_run(&sim, TS_TIME_MAX, 0), sim.now, (int64_t)sim.steps);
  ck_assert_int_eq(sim.failed, 0);
  ck_assert_ptr_null(ts_sim_peek(&sim));
  ts_sim_finish(&sim);
}

START_TEST(engine_sim_next_in_place_runs_as_dispatch)
{
  inplace a, b, c;
  inplace_run(&a, 0);
  inplace_run(&b, 1);
  inplace_run(&c, 2);
  ck_assert_uint_gt(a.len, 4 * 20000);
  ck_assert_uint_eq(a.len, b.len);
  ck_assert_uint_eq(a.len, c.len);
  size_t first_diff = a.len;
  for (size_t i = 0; i < a.len && first_diff == a.len; i++)
    if (a.trace[i] != b.trace[i] || a.trace[i] != c.trace[i])
      first_diff = i;
  ck_assert_uint_eq(first_diff, a.len); /* the same events, order, clock, steps and piece counts */
  ck_assert_int_eq(a.in_place, 0);
  ck_assert_int_gt(b.in_place, 5000); /* the in-place path ran */
  ck_assert_int_gt(c.in_place, b.in_place); /* kind 1 ran in place too */
  free(a.trace);
  free(b.trace);
  free(c.trace);
}
END_TEST

Suite *engine_suite(void)
{
  Suite *s = suite_create("engine");
  const TTest *const core[] = {engine_heap_orders_by_time_then_seq,
                               engine_heap_random_pushes_pop_sorted,
                               engine_heap_interleaved_push_pop_stays_sorted, engine_heap_run_and_heap_give_one_order,
                               engine_heap_matches_a_reference_list,
                               engine_sim_equal_times_run_fifo,
                               engine_sim_events_scheduled_now_run_after_pending_ones,
                               engine_sim_next_in_place_runs_as_dispatch,
                               engine_time_ms_conversion_rounds,
                               engine_rng_same_seed_same_sequence,
                               engine_rng_distributions_have_their_mean,
                               engine_rng_derive_seed_depends_on_every_coordinate,
                               engine_rng_derive_seed_no_collisions_over_a_sweep,
                               engine_rng_small_stream_in_place_is_gsls,
                               NULL};
  const TTest *const limits[] = {engine_sim_step_on_empty_returns_zero,
                                 engine_sim_run_stops_after_until,
                                 engine_sim_run_stops_after_max_steps,
                                 NULL};
  const TTest *const errors[] = {engine_sim_at_rejects_the_past, engine_sim_at_rejects_bad_kinds, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  tu_tcase(s, "limits", limits, NULL, NULL, 0);
  tu_tcase(s, "errors", errors, NULL, NULL, 0);
  return s;
}
