/* The round-robin reference: models/rr-wave.json against the closed form.
 * N actors each need C = 400 ms in q = 10 ms slices (1 ms rows, 9 ms
 * threshold), FIFO, no overheads, actor i on worker i mod W. On a worker with
 * m actors, the one of local index j finishes in the last round at
 * (m * (C/q - 1) + j + 1) * q, so the last completion is ceil(N/W) * C. */
#include <check.h>
#include <stdlib.h>

#include "io/model_json.h"
#include "model/world.h"

#include "testutil.h"

#define Q_NS (10 * TS_NS_PER_MS)
#define C_NS (400 * TS_NS_PER_MS)
#define ROUNDS (C_NS / Q_NS)

static ts_model rr;

static void load_rr_with(const char *set)
{
  char *path = tu_source_path("models/rr-wave.json");
  ts_err e;
  const char *sets[] = {set};
  ck_assert_msg(ts_model_load(path, sets, set ? 1 : 0, &rr, NULL, &e) == 0, "%s", e.msg);
  free(path);
}

static void load_rr(void)
{
  load_rr_with(NULL);
}

static void unload_rr(void)
{
  ts_model_finish(&rr);
}

/* Actors on worker k under round robin: those with i mod w == k. */
static int local_count(int n, int w, int k)
{
  return n / w + (k < n % w);
}

/* Run (n, w) and check every actor against the closed form (reporting the
 * first actor that differs; one assertion per world, not per actor). */
static void check_wave(int n, int w)
{
  ts_world world;
  ck_assert_int_eq(ts_world_init(&world, &rr, n, w, 1, NULL), 0);
  ck_assert_int_eq(ts_world_run(&world), 0);
  ck_assert_int_eq(world.nactors, n);
  int64_t total_slices = 0;
  ts_time last = 0;
  for (int i = 0; i < n; i++) {
    const ts_actor_stats *a = &world.actors[i].st;
    int k = i % w, m = local_count(n, w, k);
    ts_time want = ((ts_time)m * (ROUNDS - 1) + i / w + 1) * Q_NS;
    if (a->worker != k || a->done != want || a->slices != ROUNDS || a->yields != ROUNDS - 1 || a->timer != C_NS)
      ck_abort_msg("n=%d w=%d actor %d: worker %d (want %d), done %lld ns (want %lld), slices %lld (want %lld), "
                   "yields %lld, timer %lld ns",
                   n, w, i, a->worker, k, (long long)a->done, (long long)want, (long long)a->slices,
                   (long long)ROUNDS, (long long)a->yields, (long long)a->timer);
    total_slices += a->slices;
    if (a->done > last)
      last = a->done;
  }
  ck_assert_int_eq(total_slices, (int64_t)n * ROUNDS);
  ck_assert_int_eq(last, (ts_time)((n + w - 1) / w) * C_NS);
  ts_world_finish(&world);
}

START_TEST(rrwave_model_loads_as_documented)
{
  ck_assert_str_eq(rr.name, "rr-wave");
  ck_assert_ptr_eq(rr.policy, &ts_sched_fifo);
  ck_assert_int_eq(rr.threshold, 9 * TS_NS_PER_MS);
  ck_assert_int_eq(rr.dispatch, TS_DISPATCH_ROUND_ROBIN);
  ck_assert_int_eq(rr.yield_overhead, 0);
  ck_assert_int_eq(rr.loop_overhead, 0);
  ck_assert_uint_eq(rr.nclasses, 1);
  ck_assert_int_eq(rr.classes[0].count, TS_COUNT_N);
  ck_assert_uint_eq(rr.classes[0].nsteps, 1);
  ck_assert_int_eq(rr.classes[0].steps[0].cost.mean, C_NS);
  ck_assert_int_eq(rr.classes[0].steps[0].rows, 400);
  ck_assert(rr.classes[0].steps[0].sliced);
}
END_TEST

START_TEST(rrwave_one_worker_16)
{
  check_wave(16, 1);
}
END_TEST

START_TEST(rrwave_small_uneven)
{
  check_wave(1, 1);
  check_wave(3, 1);
  check_wave(7, 3);
  check_wave(5, 8); /* fewer actors than workers */
}
END_TEST

START_TEST(rrwave_eight_workers_1000)
{
  check_wave(1000, 8);
}
END_TEST

START_TEST(rrwave_eight_workers_100000)
{
  check_wave(100000, 8);
}
END_TEST

START_TEST(rrwave_threshold_set_changes_quantum)
{
  /* threshold 19 ms: 20 ms slices, 20 rounds; one worker of 4 finishes at
   * (4 * 19 + i + 1) * 20 ms */
  load_rr_with("worker.threshold_ms=19");
  ck_assert_int_eq(rr.threshold, 19 * TS_NS_PER_MS);
  ts_world world;
  ck_assert_int_eq(ts_world_init(&world, &rr, 4, 1, 1, NULL), 0);
  ck_assert_int_eq(ts_world_run(&world), 0);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(world.actors[i].st.slices, 20);
    ck_assert_int_eq(world.actors[i].st.done, (ts_time)(4 * 19 + i + 1) * 20 * TS_NS_PER_MS);
  }
  ts_world_finish(&world);
  ts_model_finish(&rr);
}
END_TEST

Suite *rrwave_suite(void)
{
  Suite *s = suite_create("rrwave");
  const TTest *const core[] = {rrwave_model_loads_as_documented,
                               rrwave_one_worker_16,
                               rrwave_small_uneven,
                               rrwave_eight_workers_1000,
                               NULL};
  const TTest *const limits[] = {rrwave_eight_workers_100000, NULL};
  const TTest *const set[] = {rrwave_threshold_set_changes_quantum, NULL};
  tu_tcase(s, "core", core, load_rr, unload_rr, 0);
  tu_tcase(s, "limits", limits, load_rr, unload_rr, 300);
  tu_tcase(s, "set", set, NULL, NULL, 0);
  return s;
}
