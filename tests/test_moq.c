/* The moq relay model (models/moq-relay.json) against the closed forms its
 * mechanism implies: with one worker thread no mutex is ever contended, and
 * one frame to R viewers on W workers causes exactly R reads and at most W
 * worker wakes (one futex wake per parked worker per park cycle). */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "model/world.h"

#include "testutil.h"

#define MS(x) ((ts_time)llround((x) * 1e6))

/* models/moq-relay.json with overrides sets[0..] (NULL-terminated). */
static void load_moq(ts_model *m, const char *const *sets)
{
  int n = 0;
  while (sets[n])
    n++;
  char *path = tu_source_path("models/moq-relay.json");
  ts_err e;
  ck_assert_msg(ts_model_load(path, sets, n, m, NULL, &e) == 0, "%s", e.msg);
  free(path);
}

static void run_moq(ts_world *w, const ts_model *m, int workers, double horizon_ms)
{
  ts_world_spec sp = tu_world_spec(1, workers, 1);
  sp.horizon = MS(horizon_ms);
  sp.win_t0 = 0;
  sp.win_t1 = sp.horizon;
  ck_assert_int_eq(ts_world_init(w, m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(w), TS_WORLD_OK);
}

static ts_time sum_of(const ts_world *w, size_t offset)
{
  ts_time s = 0;
  for (int a = 0; a < w->nactors; a++)
  {
    ts_actor_stats st = ts_world_stats(w, a);
    s += *(const ts_time *)((const char *)&st + offset);
  }
  return s;
}

/* Chat (one track, every message a new group) with 300 viewers on one
 * worker thread: a task holds a mutex only inside CPU, one thread runs one
 * task at a time, so no acquire ever finds a mutex held: no lock wait, no
 * futex, no kernel work at all (the notifier's own worker is never parked;
 * the streams' network cost, kernel CPU, is set to 0). */
START_TEST(moq_one_worker_never_contended)
{
  static const char *const sets[] = {"params.viewers=300", "params.fanin=300", "params.fps=20",
                                     "params.stream_net_ms=0", NULL};
  ts_model m;
  load_moq(&m, sets);
  ts_world w;
  run_moq(&w, &m, 1, 1000);
  ck_assert_int_eq(w.mutex_contended, 0);
  ck_assert_int_eq(sum_of(&w, offsetof(ts_actor_stats, mutex_wait)), 0);
  ck_assert_int_eq(sum_of(&w, offsetof(ts_actor_stats, kernel)), 0);
  ck_assert_double_eq(w.win_mutex_wait, 0);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* One frame (the publisher starts at 10 ms, when every viewer is parked;
 * 1 fps; a horizon of 0.5 s) to R = 64 viewers on W = 1, 4, 16 threads:
 * exactly 64 deliveries; the notifier pays one wake per parked worker,
 * W - 1 (its own worker is running it). The mutexes' futex costs and the
 * streams' network cost are set to 0 so that all kernel CPU is the wakes. */
START_TEST(moq_one_frame_r_reads_at_most_w_wakes)
{
  static const char *const sets[] = {"params.viewers=64",
                                     "params.fanin=64",
                                     "params.fps=1",
                                     "classes[0].arrival.jitter_ms=0",
                                     "classes[0].arrival.phase_ms=10",
                                     "channels[0].wake_ms=0.004",
                                     "locks[0].futex_wait_ms=0",
                                     "locks[0].futex_wake_ms=0",
                                     "locks[1].futex_wait_ms=0",
                                     "locks[1].futex_wake_ms=0",
                                     "params.stream_net_ms=0",
                                     NULL};
  for (int W = 1; W <= 16; W *= 4) {
    ts_model m;
    load_moq(&m, sets);
    ts_world w;
    run_moq(&w, &m, W, 500);
    int delivery = -1;
    for (size_t s = 0; s < m.nspans; s++)
      if (strcmp(m.spans[s].name, "delivery") == 0)
        delivery = (int)s;
    ck_assert_int_ge(delivery, 0);
    ck_assert_int_eq(w.spans[delivery].len, 64);
    ts_time kernel = sum_of(&w, offsetof(ts_actor_stats, kernel));
    ck_assert_msg(kernel == (W - 1) * MS(0.004), "W = %d: %lld ns of wakes, want %d", W, (long long)kernel, W - 1);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

Suite *moq_suite(void)
{
  Suite *s = suite_create("moq");
  const TTest *const forms[] = {moq_one_worker_never_contended, moq_one_frame_r_reads_at_most_w_wakes, NULL};
  tu_tcase(s, "closed forms", forms, NULL, NULL, 120);
  return s;
}
