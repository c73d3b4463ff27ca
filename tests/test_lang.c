/* The model language, part 1: loops, timers, sources, spans, windows, axes,
 * common random numbers and confidence intervals, checked against closed
 * forms (Pollaczek-Khinchine) and hand-worked schedules. Times in ms. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"
#include "io/model_json.h"
#include "model/world.h"
#include "run/metrics.h"
#include "run/sweep.h"
#include "run/sweep_internal.h" /* ts__boot_interval */

#include "testutil.h"

#define MS(x) ((ts_time)llround((x) * 1e6))

static ts_world_spec spec_of(int n, int workers, uint64_t seed, ts_time horizon)
{
  return (ts_world_spec){.n = n, .workers = workers, .seed = seed, .horizon = horizon, .win_t0 = 0,
                         .win_t1 = horizon};
}

/* Run m with n groups on one worker, stream seed 1, to horizon, into w
 * (free with ts_world_finish); the run must succeed. */
static void run_world(ts_world *w, const ts_model *m, int n, ts_time horizon)
{
  ts_world_spec sp = spec_of(n, 1, 1, horizon);
  ck_assert_int_eq(ts_world_init(w, m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(w), TS_WORLD_OK);
}

/* ---- queueing closed forms ---- */

/* Mean wait in the queue of R replications of an open single-server queue
 * (Poisson arrivals at rate lambda per ms, service of mean 1 ms, exponential
 * or fixed) against Pollaczek-Khinchine: Wq = lambda E[S^2] / (2 (1 - rho)). */
static void pk_case(double rho, int exponential)
{
  char json[600];
  snprintf(json, sizeof json,
           "{\"classes\": [{\"name\": \"job\", \"count\": 20000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": %g},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"%s\"}]}]}",
           rho * 1000, exponential ? "exponential" : "fixed");
  ts_model m;
  tu_model(json, &m);
  enum { R = 10 };
  double mean[R];
  for (int r = 0; r < R; r++) {
    ts_world w;
    ts_world_spec sp = spec_of(1, 1, ts_rng_derive_seed(7, 1, 1, r), TS_TIME_MAX);
    ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    double sum = 0;
    for (int a = 0; a < w.nactors; a++)
      sum += ts_time_to_ms(ts_world_stats(&w, a).state[TS_ACTOR_READY]);
    mean[r] = sum / w.nactors;
    ts_world_finish(&w);
  }
  double es2 = exponential ? 2.0 : 1.0; /* E[S^2] for a mean of 1 ms */
  double pk = rho * es2 / (2 * (1 - rho));
  double m0 = gsl_stats_mean(mean, 1, R), h = gsl_cdf_tdist_Pinv(0.975, R - 1) * gsl_stats_sd(mean, 1, R) / sqrt(R);
  ck_assert_msg(fabs(m0 - pk) <= h, "%s rho %.1f: mean wait %.4f +- %.4f ms, Pollaczek-Khinchine %.4f",
                exponential ? "M/M/1" : "M/D/1", rho, m0, h, pk);
  ts_model_finish(&m);
}

START_TEST(lang_mm1_and_md1_match_pollaczek_khinchine)
{
  pk_case(0.5, 1);
  pk_case(0.8, 1);
  pk_case(0.5, 0);
  pk_case(0.8, 0);
}
END_TEST

/* ---- sources, windows, loops ---- */

/* One job every 100 ms, each 1 ms inside a span: jobs k = 0, 1, ... end at
 * 100k + 1; the window [2000, 7000) holds k = 20..69: exactly 50. */
START_TEST(lang_periodic_window_counts_50)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"job\", \"count\": \"forever\", \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 100},"
           " \"program\": [{\"op\": \"span_begin\", \"span\": \"job\"}, {\"op\": \"cpu\", \"ms\": 1},"
           " {\"op\": \"span_end\", \"span\": \"job\"}]}]}",
           &m);
  ts_world w;
  ts_world_spec sp = {.n = 1, .workers = 1, .seed = 1, .horizon = MS(10000), .win_t0 = MS(2000), .win_t1 = MS(7000)};
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  ck_assert_uint_eq(w.spans[0].len, 50);
  ck_assert_int_eq(w.spans[0].ended, 100); /* the jobs at 0..9900; the one at 10000 ends beyond the horizon */
  ck_assert_int_eq(ts_world_window(&w), MS(5000));
  ck_assert_int_eq(w.workers[0].win_user, MS(50)); /* 50 ms of CPU in the window */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* repeat forever stops at the horizon: a 10 ms sleep loop run to 1000 ms
 * has slept 100 times (the 100th ends at the horizon) and is not done. */
START_TEST(lang_repeat_forever_stops_at_horizon)
{
  ts_model m;
  tu_model("{\"counters\": [{\"name\": \"ticks\"}], \"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": ["
           "{\"op\": \"repeat\", \"count\": \"forever\", \"name\": \"k\", \"steps\": [{\"op\": \"sleep\", \"ms\": 10},"
           " {\"op\": \"add\", \"counter\": \"ticks\"}]}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, MS(1000));
  ck_assert_double_eq(w.counters[0], 100);
  ck_assert_int_eq(w.done, 0);
  ck_assert_int_eq(w.sim.now, MS(1000));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A let that reads only its actor's coordinates, its worker and counters is
 * kept with the actor between evaluations, and evaluated anew after a hop
 * moved it or an add changed a counter; one that reads now never is kept.
 * 1 ms (b = 0) twice, add: 2 ms (b = 1), hop of 1 ms to worker 1: 12 ms
 * (b = 11), then now + 1 = 18 ms: done at 1 + 1 + 2 + 1 + 12 + 18 = 35 ms. */
START_TEST(lang_let_kept_until_its_inputs_change)
{
  ts_model m;
  tu_model("{\"locks\": [{\"name\": \"l\", \"scope\": \"shared\"}], \"counters\": [{\"name\": \"c\"}],"
           " \"dispatch\": {\"policy\": \"round_robin\"},"
           " \"classes\": [{\"name\": \"a\", \"count\": 1, \"let\": {\"w\": \"worker\", \"b\": \"w * 10 + c\", \"t\": \"now + b\"},"
           " \"program\": [{\"op\": \"lock\", \"lock\": \"l\"}, {\"op\": \"unlock\", \"lock\": \"l\"},"
           " {\"op\": \"cpu\", \"ms\": \"1 + b\"}, {\"op\": \"cpu\", \"ms\": \"1 + b\"}, {\"op\": \"add\", \"counter\": \"c\"},"
           " {\"op\": \"cpu\", \"ms\": \"1 + b\"}, {\"op\": \"hop\", \"to\": 1, \"ms\": 1}, {\"op\": \"cpu\", \"ms\": \"1 + b\"},"
           " {\"op\": \"cpu\", \"ms\": \"1 + t - b\"}]}]}",
           &m);
  ts_world w;
  ts_world_spec sp = spec_of(1, 2, 1, TS_TIME_MAX);
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  ck_assert(w.let_stable[0] == 3); /* w and b; not t */
  ck_assert_int_eq(ts_world_actor(&w, 0)->st.done, MS(35));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A let that reads its actor's variables is kept with the actor too, and a
 * set of one of them forgets the kept lets that read it, c through b. v = 1 (the actor's extension,
 * where lets are kept, is made then): 11 ms (b = 11) twice, then v = 2:
 * 21 ms (b), 22 ms (c = b + 1, kept, read after the set): done at
 * 11 + 11 + 21 + 22 = 65 ms (45 ms if the set left the old values kept). */
START_TEST(lang_let_of_a_variable_kept_until_a_set)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": 1, \"vars\": {\"v\": 0},"
           " \"let\": {\"b\": \"v * 10 + 1\", \"c\": \"b + 1\"},"
           " \"program\": [{\"op\": \"set\", \"var\": \"v\", \"value\": 1},"
           " {\"op\": \"cpu\", \"ms\": \"b\"}, {\"op\": \"cpu\", \"ms\": \"c - 1\"},"
           " {\"op\": \"set\", \"var\": \"v\", \"value\": \"v + 1\"}, {\"op\": \"cpu\", \"ms\": \"b\"},"
           " {\"op\": \"cpu\", \"ms\": \"c\"}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert(w.let_stable[0] == 3); /* b and c */
  ck_assert_int_eq(ts_world_actor(&w, 0)->st.done, MS(65));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A let that reads a channel's version is kept too, and evaluated anew
 * after a notify of that channel moved its version on: 1 ms (b = 1), a notify
 * of d (b kept), 1 ms, a notify of c: 11 ms (b = 11), 11 ms (kept): done at
 * 1 + 1 + 11 + 11 = 24 ms (4 ms if a notify left the old value kept). The
 * set makes the actor's extension, where lets are kept. */
START_TEST(lang_let_of_a_version_kept_until_a_notify)
{
  ts_model m;
  tu_model("{\"channels\": [{\"name\": \"c\", \"scope\": \"shared\"}, {\"name\": \"d\", \"scope\": \"shared\"}],"
           " \"classes\": [{\"name\": \"a\", \"count\": 1, \"vars\": {\"x\": 0},"
           " \"let\": {\"v\": \"version(c)\", \"b\": \"v * 10 + 1\", \"t\": \"now\"},"
           " \"program\": [{\"op\": \"set\", \"var\": \"x\", \"value\": 1}, {\"op\": \"cpu\", \"ms\": \"b\"},"
           " {\"op\": \"notify\", \"channel\": \"d\"}, {\"op\": \"cpu\", \"ms\": \"b\"},"
           " {\"op\": \"notify\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": \"b\"}, {\"op\": \"cpu\", \"ms\": \"b\"}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert(w.let_stable[0] == 3); /* v and b; not t */
  ck_assert(w.chan_lets[0] == 3 && w.chan_lets[1] == 0); /* v and b read c's version, none d's */
  ck_assert_int_eq(ts_world_actor(&w, 0)->st.done, MS(24));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Nested repeats with counts from params and a loop variable: 3 outer x
 * (k + 1) inner iterations of 1 ms: 1 + 2 + 3 = 6 ms; an if on the loop. */
START_TEST(lang_nested_repeat_and_if)
{
  ts_model m;
  tu_model("{\"params\": {\"outer\": 3}, \"counters\": [{\"name\": \"odd\"}],"
           "\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"$outer\", \"name\": \"k\","
           " \"steps\": [{\"op\": \"repeat\", \"count\": \"k + 1\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}]},"
           " {\"op\": \"if\", \"cond\": \"k % 2 == 1\", \"then\": [{\"op\": \"add\", \"counter\": \"odd\", \"value\": \"10 * k\"}],"
           "  \"else\": [{\"op\": \"add\", \"counter\": \"odd\", \"value\": 1}]}]}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert_int_eq(ts_world_actor(&w, 0)->st.done, MS(6));
  ck_assert_double_eq(w.counters[0], 1 + 10 + 1); /* k = 0: +1, k = 1: +10, k = 2: +1 */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A lock taken in both branches of an if is held after it: the unlock after
 * the if is accepted and releases it (2 actors, 1 ms each under it). */
START_TEST(lang_lock_taken_in_both_branches)
{
  ts_model m;
  tu_model("{\"locks\": [{\"name\": \"l\", \"scope\": \"shared\"}], \"classes\": [{\"name\": \"a\", \"count\": 2, \"program\": ["
           "{\"op\": \"if\", \"cond\": \"i == 0\", \"then\": [{\"op\": \"lock\", \"lock\": \"l\"}],"
           " \"else\": [{\"op\": \"lock\", \"lock\": \"l\"}]},"
           "{\"op\": \"io\", \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"l\"}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert_int_eq(ts_world_actor(&w, 0)->st.done, MS(1));
  ck_assert_int_eq(ts_world_actor(&w, 1)->st.done, MS(2)); /* waited for the first to release */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Kernel CPU on an event loop reports the user/kernel split: 1 ms user and
 * 3 ms kernel per actor, 2 actors, one worker busy for all 8 ms. */
START_TEST(lang_kernel_cpu_on_an_event_loop)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1},"
           " {\"op\": \"cpu\", \"ms\": 3, \"account\": \"kernel\"}]}]}",
           &m);
  ts_metric_list l;
  char err[200];
  ck_assert_int_eq(ts_metric_list_build(&m, &l, err, sizeof err), 0);
  ck_assert_int_ge(ts_metric_list_find(&l, "kernel_cores"), 0);
  ck_assert_int_ge(ts_metric_list_find(&l, "user_cores"), 0);
  ck_assert_int_ge(ts_metric_list_find(&l, "kernel_ms"), 0);
  ts_metric_list_finish(&l);
  ts_world w;
  run_world(&w, &m, 2, TS_TIME_MAX);
  ck_assert_int_eq(ts_world_actor(&w, 1)->st.done, MS(8));
  ck_assert_int_eq(ts_world_stats(&w, 1).kernel, MS(3));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* `arrived` is the actor's arrival time: a timer to arrived + 10 ms ends at
 * 5 + 10 for the first (periodic, phase 5) and at 5 + 20 + 10 for the second
 * (period 20), whatever ran before it (1 ms of CPU). */
START_TEST(lang_arrived_anchors_timers)
{
  ts_model m;
  tu_model("{\"params\": {\"fps\": 50}, \"classes\": [{\"name\": \"a\", \"count\": 2,"
           " \"arrival\": {\"kind\": \"periodic\", \"phase_ms\": 5, \"period_ms\": \"1000 / $fps\"},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"sleep\", \"ms\": \"arrived + 10 - now\"}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert_int_eq(ts_world_actor(&w, 0)->st.done, MS(15));
  ck_assert_int_eq(ts_world_actor(&w, 1)->st.done, MS(35));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Arrivals past the horizon never happen, and that is not a deadlock: 3
 * actors 100 ms apart and a horizon of 150 ms run 2 (the run used to end
 * "deadlocked ... not arrived"), and the third is not counted. */
START_TEST(lang_arrivals_past_the_horizon_are_not_a_deadlock)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": 3, \"arrival\": {\"kind\": \"at\", \"spacing_ms\": 100},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, MS(150));
  ck_assert_int_eq(ts_world_actor(&w, 1)->st.done, MS(101));
  ck_assert(!ts_world_counted(ts_world_actor(&w, 2)));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A closed loop: the i-th follower starts 2 ms after the i-th leader ends. */
START_TEST(lang_after_arrival_closes_the_loop)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"leader\", \"count\": 2, \"arrival\": {\"spacing_ms\": 10},"
           "  \"program\": [{\"op\": \"io\", \"ms\": 5}]},"
           " {\"name\": \"follower\", \"count\": 2, \"arrival\": {\"kind\": \"after\", \"after\": \"leader\", \"delay_ms\": 2},"
           "  \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert_int_eq(ts_world_actor(&w, 2)->st.arrive, MS(7));
  ck_assert_int_eq(ts_world_actor(&w, 3)->st.arrive, MS(17));
  ck_assert_int_eq(ts_world_actor(&w, 3)->st.done, MS(18));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* ---- spans ---- */

/* Seven actors, one after another on one loop, each a span around
 * 1 + i^2 ms of CPU: samples 1, 2, 5, 10, 17, 26, 37. The sweep's mean, p50,
 * p95 and p99 are GSL's on that list. */
START_TEST(lang_span_quantiles_are_gsl)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": 7, \"program\": [{\"op\": \"span_begin\", \"span\": \"op\"},"
           " {\"op\": \"cpu\", \"ms\": \"1 + i * i\"}, {\"op\": \"span_end\", \"span\": \"op\"}]}]}",
           &m);
  int ns[] = {1}, ws[] = {1};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 1, .seed = 1, .model = &m,
                        .horizon = TS_TIME_MAX};
  ts_sweep s;
  ck_assert_int_eq(ts_sweep_run(&spec, &s), 0);
  double v[] = {1, 2, 5, 10, 17, 26, 37};
  gsl_sort(v, 1, 7);
  const ts_point *p = ts_sweep_find(&s, 0, 1, 1, NULL);
  ck_assert_ptr_nonnull(p);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "op_mean_ms")], gsl_stats_mean(v, 1, 7), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "op_p50_ms")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.5), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "op_p95_ms")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.95), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "op_p99_ms")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.99), 1e-9);
  ck_assert_double_eq(p->value[ts_sweep_col(&s, "op_count")], 7);
  ts_sweep_finish(&s);
  ts_model_finish(&m);
}
END_TEST

/* Statistics over actors are GSL's too, p5 and min included: seven actors
 * with waves of 1 + i^2 ms, each on a worker of its own. */
START_TEST(lang_actor_statistics_are_gsl)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": 7, \"placement\": {\"worker\": \"i\"},"
           " \"program\": [{\"op\": \"io\", \"ms\": \"1 + i * i\"}]}],"
           " \"metrics\": {\"w_p5\": {\"actor\": \"wave_ms\", \"stat\": \"p5\"},"
           "  \"w_min\": {\"actor\": \"wave_ms\", \"stat\": \"min\"}, \"w_max\": {\"actor\": \"wave_ms\", \"stat\": \"max\"},"
           "  \"w_p99\": {\"actor\": \"wave_ms\", \"stat\": \"p99\"}, \"w_mean\": {\"actor\": \"wave_ms\", \"stat\": \"mean\"}}}",
           &m);
  int ns[] = {1}, ws[] = {7};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 1, .seed = 1, .model = &m,
                        .horizon = TS_TIME_MAX};
  ts_sweep s;
  ck_assert_int_eq(ts_sweep_run(&spec, &s), 0);
  double v[] = {1, 2, 5, 10, 17, 26, 37};
  const ts_point *p = ts_sweep_find(&s, 0, 1, 7, NULL);
  ck_assert_ptr_nonnull(p);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "w_p5")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.05), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "wave_ms")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.5), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "wave_p95_ms")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.95), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "w_p99")], gsl_stats_quantile_from_sorted_data(v, 1, 7, 0.99), 1e-9);
  ck_assert_double_eq_tol(p->value[ts_sweep_col(&s, "w_mean")], gsl_stats_mean(v, 1, 7), 1e-9);
  ck_assert_double_eq(p->value[ts_sweep_col(&s, "w_min")], 1);
  ck_assert_double_eq(p->value[ts_sweep_col(&s, "w_max")], 37);
  ts_sweep_finish(&s);
  ts_model_finish(&m);
}
END_TEST

/* settle_ms runs from an actor's arrival to its settled mark: three
 * clients arriving at 0, 10 and 20 ms, each 5 ms of CPU (one worker, in
 * turn: 0-5, 10-15, 20-25) and a 30 + 10 i ms wait before the mark:
 * settle_ms 35, 45, 55; samples.csv carries it per actor; settle_p95_ms is
 * GSL's; a model without the mark has no such metric or column. */
START_TEST(lang_settle_ms_from_arrival_to_the_mark)
{
  char dir[256], path[400], *out;
  ck_assert_int_eq(tu_run_files("settle",
                                "{\"classes\": [{\"name\": \"c\", \"count\": \"n\", \"arrival\": {\"spacing_ms\": 10},"
                                " \"program\": [{\"op\": \"cpu\", \"ms\": 5}, {\"op\": \"mark\", \"name\": \"wave_end\"},"
                                " {\"op\": \"io\", \"ms\": \"30 + 10 * i\"}, {\"op\": \"mark\", \"name\": \"settled\"}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [3], \"workers\": [1]}", dir, sizeof dir,
                                &out, NULL),
                   0);
  free(out);
  tu_table t;
  snprintf(path, sizeof path, "%s/out/samples.csv", dir);
  tu_table_read(&t, path);
  ck_assert_int_eq(t.nrows, 3);
  for (int i = 0; i < 3; i++) {
    ck_assert_double_eq(tu_table_num(&t, i, "settle_ms"), 35 + 10 * i);
    ck_assert_double_eq(tu_table_num(&t, i, "wave_ms"), 5);
  }
  tu_table_free(&t);
  snprintf(path, sizeof path, "%s/out/summary.csv", dir);
  tu_table_read(&t, path);
  double v[] = {35, 45, 55};
  ck_assert_double_eq(tu_table_num(&t, 0, "settle_ms"), 45);
  ck_assert_double_eq_tol(tu_table_num(&t, 0, "settle_p95_ms"), gsl_stats_quantile_from_sorted_data(v, 1, 3, 0.95), 1e-6);
  tu_table_free(&t);
  tu_rmtree(dir);
  /* without the mark: neither the metric nor the column */
  ck_assert_int_eq(tu_run_files("settle", "{\"classes\": [{\"name\": \"c\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 5}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1]}", dir, sizeof dir,
                                &out, NULL),
                   0);
  free(out);
  snprintf(path, sizeof path, "%s/out/samples.csv", dir);
  tu_table_read(&t, path);
  ck_assert_int_lt(tu_table_column(&t, "settle_ms"), 0);
  tu_table_free(&t);
  snprintf(path, sizeof path, "%s/out/summary.csv", dir);
  tu_table_read(&t, path);
  ck_assert_int_lt(tu_table_column(&t, "settle_ms"), 0);
  tu_table_free(&t);
  tu_rmtree(dir);
}
END_TEST

/* A span that ends on another actor: the publisher begins "frame" at 1,
 * works 2 ms, notifies carrying the span's start; the reader (same loop)
 * runs 0.5 ms and ends "delivery" from the carried stamp: 3.5 - 1 = 2.5. */
START_TEST(lang_span_ends_on_another_actor)
{
  ts_model m;
  tu_model("{\"channels\": [{\"name\": \"c\", \"scope\": \"shared\"}], \"classes\": ["
           " {\"name\": \"pub\", \"count\": 1, \"program\": [{\"op\": \"sleep\", \"ms\": 1}, {\"op\": \"span_begin\", \"span\": \"frame\"},"
           "  {\"op\": \"cpu\", \"ms\": 2}, {\"op\": \"notify\", \"channel\": \"c\", \"carry\": \"frame\"}]},"
           " {\"name\": \"reader\", \"count\": 1, \"program\": [{\"op\": \"wait\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": 0.5},"
           "  {\"op\": \"span_end\", \"span\": \"delivery\", \"from\": \"notify\"}]}]}",
           &m);
  ts_world w;
  run_world(&w, &m, 1, TS_TIME_MAX);
  ck_assert_uint_eq(w.spans[1].len, 1);
  ck_assert_int_eq(w.spans[1].v[0], MS(2.5));
  ck_assert_uint_eq(w.spans[0].len, 0); /* "frame" only stamps: no samples */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* ---- common random numbers ---- */

/* Class y's I/O draws do not move when class x gains an actor (x's count is
 * a parameter, the sweep point is the same). */
START_TEST(lang_crn_other_class_unchanged)
{
  const char *fmt = "{\"params\": {\"nx\": %d}, \"classes\": ["
                    " {\"name\": \"x\", \"count\": \"$nx\", \"program\": [{\"op\": \"io\", \"ms\": 5, \"dist\": \"exponential\"}]},"
                    " {\"name\": \"y\", \"count\": 3, \"program\": [{\"op\": \"io\", \"ms\": 5, \"dist\": \"lognormal\", \"cv\": 0.5}]}]}";
  ts_time io[2][3];
  for (int v = 0; v < 2; v++) {
    char json[600];
    snprintf(json, sizeof json, fmt, 2 + v);
    ts_model m;
    tu_model(json, &m);
    ts_world w;
    ts_world_spec sp = spec_of(1, 1, 42, TS_TIME_MAX);
    ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    for (int i = 0; i < 3; i++)
      io[v][i] = ts_world_stats(&w, w.class_base[1] + i).state[TS_ACTOR_IO];
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
  for (int i = 0; i < 3; i++) {
    ck_assert_int_eq(io[0][i], io[1][i]);
    ck_assert_int_ne(io[0][i], MS(5)); /* really drawn */
  }
}
END_TEST

/* Two variants that differ only in parameters no step uses (one is the cv
 * of a step that never runs) give identical summaries, through the CLI and a
 * scenario axis, with every shape of random duration drawn. */
START_TEST(lang_crn_variants_identical)
{
  char dir[256], *out;
  ck_assert_int_eq(tu_run_files("crn",
                                "{\"params\": {\"unused\": 1, \"unused_cv\": 0.2, \"c\": 3}, \"classes\": [{\"name\": \"a\","
                                " \"count\": \"n\", \"program\": [{\"op\": \"io\", \"ms\": 4, \"dist\": \"gamma\", \"cv\": 1},"
                                " {\"op\": \"if\", \"cond\": \"i < 0\", \"then\": [{\"op\": \"io\", \"ms\": 3, \"dist\": \"lognormal\","
                                "  \"cv\": \"$unused_cv\"}]},"
                                " {\"op\": \"io\", \"ms\": 5, \"dist\": \"lognormal\", \"cv\": 0.3, \"by\": \"median\"},"
                                " {\"op\": \"io\", \"dist\": \"empirical\", \"samples\": [1, 3, 9]},"
                                " {\"op\": \"cpu\", \"ms\": \"$c\", \"dist\": \"exponential\"}]}]}",
                                "{\"name\": \"crn\", \"model\": \"m.json\", \"n\": [4, 8], \"workers\": [1], \"replications\": 3,"
                                " \"axes\": {\"variant\": {\"sets\": {\"a\": {},"
                                " \"b\": {\"params.unused\": 99, \"params.unused_cv\": 0.9}}}},"
                                " \"compare\": \"variant\"}",
                                dir, sizeof dir, &out, NULL),
                   0);
  free(out);
  char sum[400];
  snprintf(sum, sizeof sum, "%s/out/summary.csv", dir);
  char *text = tu_read_file(sum, NULL);
  /* rows: a n=4, a n=8, b n=4, b n=8; everything after "variant," must match */
  char *rows[5] = {0};
  int k = 0;
  for (char *save = NULL, *l = strtok_r(text, "\n", &save); l && k < 5; l = strtok_r(NULL, "\n", &save))
    rows[k++] = l;
  ck_assert_int_eq(k, 5);
  /* the paired intervals of the changes (the last columns) are empty on a's
   * rows and zero-width on b's: b draws a's numbers */
  const char *first = strstr(rows[0], "_vs_a_ci95");
  ck_assert_ptr_nonnull(first);
  int ci = 0; /* the column of the first interval: the commas before it */
  for (const char *h = rows[0]; h < first; h++)
    ci += *h == ',';
  char *tail[5] = {0};
  for (int r = 1; r < 5; r++) {
    char *c = rows[r];
    for (int f = 0; f < ci && c; f++)
      c = strchr(c, ',') ? strchr(c, ',') + 1 : NULL;
    ck_assert_ptr_nonnull(c);
    tail[r] = c;
    c[-1] = '\0';
  }
  ck_assert_str_eq(strchr(rows[1], ','), strchr(rows[3], ','));
  ck_assert_str_eq(strchr(rows[2], ','), strchr(rows[4], ','));
  int zeros = 0; /* strtok_r skips empty fields: count the ones it sees */
  for (int r = 1; r < 5; r++)
    for (char *save = NULL, *f = strtok_r(tail[r], ",", &save); f; f = strtok_r(NULL, ",", &save)) {
      ck_assert_msg(r < 3 ? 0 : strcmp(f, "0.000000") == 0, "row %d: paired interval %s", r, f);
      zeros++;
    }
  ck_assert_int_ge(zeros, 2 * 10); /* b's two rows: wave_ms, cpu_ms, io_ms, ... each 0 */
  free(text);
  tu_rmtree(dir);
}
END_TEST

/* ---- confidence intervals ---- */

/* --ci-target stops once every reported half-width is within 2% of its mean
 * (of its value, for a pooled one), and a pooled metric's half-width is its
 * bootstrap interval's over the replications (here: the mean wait over
 * every job of every replication, each resample drawing whole
 * replications), not the Student-t half-width of the replication means. */
START_TEST(lang_ci_target_and_t_halfwidth)
{
  char dir[256], args[600];
  tu_mkdtemp(dir, sizeof dir, "ci");
  snprintf(args, sizeof args, "run scenarios/examples/mm1.json -o %s/out -q --no-plots --ci-target 2%% -r 3", dir);
  char *out;
  ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
  free(out);
  char path[400];
  snprintf(path, sizeof path, "%s/out/summary.json", dir);
  char *text = tu_read_file(path, NULL);
  cJSON *root = cJSON_Parse(text);
  free(text);
  const cJSON *pt = cJSON_GetArrayItem(cJSON_GetObjectItem(root, "points"), 0);
  int reps = cJSON_GetObjectItem(pt, "replications")->valueint;
  ck_assert_int_gt(reps, 3); /* 3 were not enough */
  ck_assert_int_lt(reps, 1000); /* the cap was not needed */
  static const char *const reported[] = {"wait_mean_ms", "sojourn_mean_ms", "cpu_cores"};
  for (int i = 0; i < 3; i++) {
    char key[64];
    snprintf(key, sizeof key, "%s_ci95", reported[i]);
    double v = cJSON_GetObjectItem(pt, reported[i])->valuedouble, h = cJSON_GetObjectItem(pt, key)->valuedouble;
    ck_assert_msg(h <= 0.02 * v * 1.1, "%s %g +- %g", reported[i], v, h); /* the value is a median, the target is on the mean */
  }
  /* recompute wait_mean_ms's half-width from samples.csv (ready_wait_ms is column 12) */
  snprintf(path, sizeof path, "%s/out/samples.csv", dir);
  text = tu_read_file(path, NULL);
  double *per = calloc((size_t)reps, sizeof *per), sum = 0;
  size_t cnt = 0, nall = 0, cap = 1024, *ends = calloc((size_t)reps, sizeof *ends);
  double *all = malloc(cap * sizeof *all);
  int cur = 0;
  char *save = NULL, *line = strtok_r(text, "\n", &save); /* header */
  for (line = strtok_r(NULL, "\n", &save);; line = strtok_r(NULL, "\n", &save)) {
    int r = line ? atoi(line) : -1;
    if (r != cur) {
      ends[cur] = nall;
      per[cur] = sum / (double)cnt;
      sum = 0;
      cnt = 0;
      cur = r;
    }
    if (!line)
      break;
    const char *f = line;
    for (int k = 0; k < 11; k++)
      f = strchr(f, ',') + 1;
    sum += atof(f);
    cnt++;
    if (nall == cap)
      all = realloc(all, (cap *= 2) * sizeof *all);
    all[nall++] = atof(f);
  }
  double v = cJSON_GetObjectItem(pt, "wait_mean_ms")->valuedouble, lo, hi;
  uint64_t seed = (uint64_t)cJSON_GetObjectItem(root, "seed")->valuedouble;
  ck_assert_int_eq(ts__boot_interval(all, ends, reps, 2, ts_rng_derive_seed(seed, 1, 1, -1), &lo, &hi), 0);
  double want = fmax(hi - v, v - lo);
  double h = cJSON_GetObjectItem(pt, "wait_mean_ms_ci95")->valuedouble;
  ck_assert_double_eq_tol(h, want, 1e-5 * want + 1e-6);
  ck_assert_double_le(h, 0.02 * v); /* the target, on the value */
  double t = gsl_cdf_tdist_Pinv(0.975, reps - 1) * gsl_stats_sd(per, 1, (size_t)reps) / sqrt(reps);
  ck_assert_double_eq_tol(h, t, 0.5 * t); /* near the replication mean's: the same spread */
  free(all);
  free(ends);
  /* an actor metric pools every job of every replication: the mean of the equal-sized means */
  ck_assert_double_eq_tol(cJSON_GetObjectItem(pt, "wait_mean_ms")->valuedouble, gsl_stats_mean(per, 1, (size_t)reps), 1e-5);
  free(per);
  free(text);
  cJSON_Delete(root);
  tu_rmtree(dir);
}
END_TEST

/* ---- bad input ---- */

typedef struct bad_case {
  const char *model;     /* NULL: a valid one */
  const char *scenario;  /* after the name/model/n/workers keys */
  const char *path;
  const char *what;
} bad_case;

static const char *const ok_model = "{\"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}";

#define WAKE_MODEL(lat)                                                                                              \
  "{\"worker\": {\"kind\": \"thread\"}, \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"wake_latency_ms\": " \
  lat "}], \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}"
static const bad_case bad[] = {
  /* a drawn wake latency (docs/language.md, Drawn wake latencies) through tssim run */
  {WAKE_MODEL("{\"ms\": 0.003, \"dist\": \"lognormal\", \"cv\": -0.2}"), "", "locks[0].wake_latency_ms.cv",
   "expected a number in [0, 10]"},
  {WAKE_MODEL("{\"ms\": \"abc\", \"dist\": \"lognormal\", \"cv\": 0.2}"), "", "locks[0].wake_latency_ms.ms",
   "unknown name \"abc\""},
  {WAKE_MODEL("{\"dist\": \"uniform\", \"max_ms\": 0.002}"), "", "locks[0].wake_latency_ms.min_ms",
   "missing (required)"},
  {WAKE_MODEL("{\"ms\": 0.003, \"dist\": \"empirical\"}"), "", "locks[0].wake_latency_ms.dist",
   "takes no \"samples\", so not \"empirical\""},
  {WAKE_MODEL("{\"ms\": 0.003, \"dist\": \"lognormal\", \"cv\": 0.2, \"shape\": 1}"), "",
   "locks[0].wake_latency_ms", "shape"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": 2, \"steps\": []}]}]}", "",
   "classes[0].program[0].steps", "expected at least one step"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": 2}]}]}", "",
   "classes[0].program[0].steps", "missing (required)"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"forever\", \"steps\": [{\"op\": \"sleep\", \"ms\": 1}]}]}]}",
   "", "horizon_ms", "repeats forever"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"forever\", \"steps\": [{\"op\": \"mark\", \"name\": \"wave_end\"}]}]}]}",
   ", \"horizon_ms\": 10", "classes[0].program[0]", "a mark must be at the program's top level"},
  {NULL, ", \"horizon_ms\": 100, \"warmup_ms\": 50, \"window_ms\": 60", "window_ms", "beyond horizon_ms"},
  {"{\"classes\": [{\"name\": \"b\", \"count\": 1, \"arrival\": {\"kind\": \"after\", \"after\": \"ghost\"}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   "", "classes[0].arrival.after", "no class named \"ghost\""},
  /* a misspelt key under an existing object: blamed on the scenario's axis, not on the model file */
  {NULL, ", \"axes\": {\"t\": {\"path\": \"worker.treshold_ms\", \"values\": [1, 2]}}",
   "/s.json: axes.t.path: worker.treshold_ms: unknown key", "did you mean \"threshold_ms\"?"},
  {NULL, ", \"axes\": {\"t\": {\"sets\": {\"a\": {\"worker.treshold_ms\": 1}}}}",
   "/s.json: axes.t.sets.a: worker.treshold_ms: unknown key", "(in the model "},
  {NULL, ", \"axes\": {\"t\": {\"path\": \"worker.bogus.threshold_ms\", \"values\": [1, 2]}}",
   "/s.json: axes.t.path: worker.bogus: unknown key", "/m.json, with axes t=1)"},
  /* a value the model refuses: blamed on the value, not on the path (walkthrough 15, item 9) */
  {NULL, ", \"axes\": {\"t\": {\"path\": \"worker.threshold_ms\", \"values\": [200, -10]}}",
   "/s.json: axes.t.values[1]: worker.threshold_ms: expected a number in [0, 3.6e+06], got -10",
   "/m.json, with axes t=-10)"},
  {NULL, ", \"axes\": {\"p\": {\"path\": \"worker.policy\", \"values\": [\"fifo\", \"FIFO\"]}}",
   "/s.json: axes.p.values[1]: worker.policy: expected a queue policy", "got \"FIFO\""},
  /* an axis path under an array index that does not exist */
  {NULL, ", \"axes\": {\"t\": {\"path\": \"classes[5].count\", \"values\": [1, 2]}}", "axes.t",
   "classes[5].count is not a field of the model"},
  {"{\"worker\": {\"threshold_ms\": 10}, \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   ", \"axes\": {\"t\": {\"path\": \"worker.threshold_ms\", \"values\": [1, 2]}, \"u\": {\"sets\": {\"x\": {\"worker.threshold_ms\": 3}}}}",
   "axes.u", "two axes on one path"},
  {NULL, ", \"axes\": {\"t\": {\"path\": \"classes[0].program[0].ms\", \"values\": [1, 2]}}, \"compare\": \"v\"", "compare",
   "names no axis"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"l\"}]}], \"locks\": [{\"name\": \"l\"}]}", "",
   "classes[0].program", "lock \"l\" is never released"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"mark\", \"name\": \"wave_end\"}, {\"op\": \"mark\", \"name\": \"wave_start\"}]}]}",
   "", "classes[0].program[1].name", "wave_start after wave_end"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 0.000001, \"rows\": 1000}]}]}", "",
   "classes[0].program[0].rows", "at most one row per ns"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"k + 1\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}",
   "", "classes[0].program[0].count", "unknown name \"k\""},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"forever\", \"steps\": [{\"op\": \"add\", \"counter\": \"c\"}]}]}],"
   " \"counters\": [{\"name\": \"c\"}]}", ", \"horizon_ms\": 10", "classes[0].program[0].count", "take no time"},
  /* an expression that is 0/0: "not a number", not printf's "-nan" (ux20) */
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"0/0\"}]}]}", "",
   "classes[0].program[0].ms", "\"0/0\" is not a number: expected a number in [0, 3.6e+06]"},
  {"{\"classes\": [{\"count\": \"0/0\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "",
   "classes[0].count", "\"0/0\" is not a number: expected an integer in [0, 10000000]"},
  {"{\"classes\": [{\"count\": 1, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": \"0/0\"}, \"program\":"
   " [{\"op\": \"cpu\", \"ms\": 1}]}]}", "", "classes[0].arrival.rate_per_s", "\"0/0\" is not a number: expected"},
  /* the same for a value only a run knows: 0/0 at actor 1 (ux21 item 2: "is -nan ms") */
  {"{\"classes\": [{\"count\": 2, \"program\": [{\"op\": \"cpu\", \"ms\": \"(i-1)/(i-1)\"}]}]}", "",
   "classes[0].program[0]", "duration \"(i-1)/(i-1)\" is not a number for actor 1 (class actor, i = 1): expected [0, 1e+09] ms"},
  /* a hop target out of its pool: the expression, the actor, the range */
  {"{\"classes\": [{\"count\": 2, \"program\": [{\"op\": \"hop\", \"to\": \"i + 4\"}]}]}", "",
   "classes[0].program[0]", "hop target \"i + 4\" is 4 for actor 0 (class actor, i = 0): expected a worker of pool \"main\", an integer in [0, 1)"},
  {"{\"classes\": [{\"count\": 2, \"program\": [{\"op\": \"if\", \"p\": \"(i-1)/(i-1)\", \"then\": [{\"op\": \"cpu\","
   " \"ms\": 1}]}]}]}", "", "classes[0].program[0]", "probability \"(i-1)/(i-1)\" is not a number for actor 1"},
  {"{\"classes\": [{\"count\": 2, \"program\": [{\"op\": \"repeat\", \"count\": \"(i-1)/(i-1)\", \"steps\": [{\"op\":"
   " \"cpu\", \"ms\": 1}]}]}]}", "", "classes[0].program[0]", "count \"(i-1)/(i-1)\" is not a number for actor 1"},
  /* a repeat's count known at load is checked there (no sweep point before the path), a number unquoted; one
   * only a run knows, quoted (walkthrough: a count of -3 failed after the run's 300,000 sessions, as "\"-3\" is -3") */
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": -3, \"steps\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}",
   "", "/m.json: classes[0].program[0].count: ", "expected an integer in [0, 1e+15], got -3\n"},
  {"{\"params\": {\"k\": 2}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"$k - 5\", \"steps\":"
   " [{\"op\": \"cpu\", \"ms\": 1}]}]}]}", "", "/m.json: classes[0].program[0].count: ",
   "\"$k - 5\" is -3: expected an integer in [0, 1e+15]\n"},
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"repeat\", \"count\": \"i - 3\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}",
   "", "replication 0: classes[0].program[0]: ",
   "count \"i - 3\" is -3 for actor 0 (class actor, i = 0): expected an integer in [0, 1e+15]\n"},
  {"{\"channels\": [{\"name\": \"c\", \"tokens\": true}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"notify\","
   " \"channel\": \"c\", \"tokens\": -3}]}]}", "", "/m.json: classes[0].program[0].tokens: ",
   "expected a count in [0, 1e12], got -3\n"},
  {"{\"channels\": [{\"name\": \"c\", \"tokens\": true}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"notify\","
   " \"channel\": \"c\", \"tokens\": \"i - 3\"}]}]}", "", "replication 0: classes[0].program[0]: ",
   "tokens \"i - 3\" is -3: expected a count in [0, 1e12]\n"},
  {"{\"classes\": [{\"name\": \"a\", \"count\": \"(n-1)/(n-1)\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "",
   "classes[0].count", "class a's count \"(n-1)/(n-1)\" is not a number at n = 1"},
  /* a count is made before any actor: a let (per actor) there read 0 */
  {"{\"params\": {\"x\": 2}, \"classes\": [{\"count\": \"k\", \"let\": {\"k\": \"$x * 2\"}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   "", "classes[0].count", "not i or lets"},
  /* both branches take l: held after the if, so a lock never released is caught */
  {"{\"locks\": [{\"name\": \"l\"}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"if\", \"cond\": \"i == 0\","
   " \"then\": [{\"op\": \"lock\", \"lock\": \"l\"}], \"else\": [{\"op\": \"lock\", \"lock\": \"l\"}]}]}]}", "",
   "classes[0].program", "lock \"l\" is never released"},
  /* a model metric named like a built-in replaced that column */
  {"{\"metrics\": {\"cpu_cores\": {\"expr\": \"cpu_ms * 2\"}}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   "", "metrics.cpu_cores", "a metric the model already reports"},
  /* walk14 item 9: a model metric's unknown name gets the nearest, at the field's path */
  {"{\"metrics\": {\"r\": {\"expr\": \"cpu_mss * 2\"}}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   "", "metrics.r.expr", "unknown name \"cpu_mss\" before column 9; did you mean \"cpu_ms\"?"},
  {"{\"params\": {\"rate\": 2}, \"metrics\": {\"r\": {\"expr\": \"cpu_ms * $rat\"}}, \"classes\": [{\"count\": 1,"
   " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "", "metrics.r.expr", "did you mean \"$rate\"?"},
  {"{\"metrics\": {\"r\": {\"actor\": \"wave_mss\"}}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   "", "metrics.r.actor", "\"wave_mss\" is not a per-actor metric; did you mean \"wave_ms\"?"},
  /* a span whose statistics would be called like a built-in */
  {"{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"span_begin\", \"span\": \"wave\"},"
   " {\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"span_end\", \"span\": \"wave\"}]}]}", "", "spans", "would report wave_p95_ms"},
  /* a constant field takes an expression of $params, not of per-actor names */
  {"{\"classes\": [{\"count\": 2, \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 10, \"jitter_ms\": \"i * 2\"},"
   " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "", "classes[0].arrival.jitter_ms", "unknown name \"i\""},
  /* the i-th follower starts when the i-th leader ends: 5 after 3 would leave 2 never started */
  {"{\"classes\": [{\"name\": \"lead\", \"count\": 3, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]},"
   " {\"name\": \"follow\", \"count\": 5, \"arrival\": {\"kind\": \"after\", \"after\": \"lead\"},"
   " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "", "n=1 workers=1", "more than the 3 of class lead it follows"},
  /* a counter's initial value is a constant: $params, not per-actor names */
  {"{\"counters\": [{\"name\": \"c\", \"initial\": \"$nope\"}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
   "", "counters[0].initial", "$nope, which is not in params"},
  /* a table naming a metric the model does not report was dropped */
  {NULL, ", \"table\": [\"wave_ms\", \"slicess\"]", "table[1]", "did you mean \"slices\""},
  /* an axis key past the 40 characters of a results column: the message says the limit */
  {NULL, ", \"axes\": {\"k2345678901234567890123456789012345678901\": {\"path\": \"classes[0].program[0].ms\","
   " \"values\": [1, 2]}}", "axes.k2345678901234567890123456789012345678901",
   "expected an axis key of at most 40 lower-case letters, digits and '_'"},
  /* an axis key named like an output column: summary.csv had two "slices" columns, summary.json one key twice */
  {NULL, ", \"axes\": {\"slices\": {\"path\": \"classes[0].program[0].ms\", \"values\": [1, 2]}}", "axes.slices",
   "\"slices\" is a metric of the model"},
  {NULL, ", \"axes\": {\"wave_ms_ci95\": {\"path\": \"classes[0].program[0].ms\", \"values\": [1, 2]}}",
   "axes.wave_ms_ci95", "a column summary.csv derives from the metric wave_ms"},
  {NULL, ", \"axes\": {\"actor\": {\"path\": \"classes[0].program[0].ms\", \"values\": [1, 2]}}", "axes.actor",
   "\"actor\" is a column of samples.csv or summary.csv"},
};

/* Load errors that said too little or something untrue (a walkthrough of f4d963b, where every
 * case below fails). Item 1, one name with two meanings: a counter k and a var k read the var, a
 * loop k over a var or a let k read the loop or the let, a let k over a counter k the let; all
 * loaded and ran but let vs var, which did not say where the var is. Now all are refused, naming
 * both meanings and where each is declared. */
#define NAMES_MODEL(decl, klass, prog)                                                                      \
  "{" decl "\"classes\": [{\"name\": \"a\", \"count\": 1, " klass "\"program\": [" prog "]}]}"
#define CPU_K "{\"op\": \"cpu\", \"ms\": \"k\"}"
#define LOOP_K(body) "{\"op\": \"repeat\", \"count\": 2, \"name\": \"k\", \"steps\": [" body "]}"
static const bad_case lang25[] = {
  {NAMES_MODEL("\"counters\": [{\"name\": \"k\", \"initial\": 5}], ", "\"vars\": {\"k\": 1}, ", CPU_K), "",
   "/m.json: classes[0].vars.k: ", "\"k\" is both one of the class's vars and a counter (counters[0])"},
  {NAMES_MODEL("", "\"vars\": {\"k\": 1}, ", LOOP_K(CPU_K)), "", "/m.json: classes[0].program[0].name: ",
   "\"k\" is both this repeat's name and one of the class's vars (classes[0].vars.k)"},
  {NAMES_MODEL("", "\"let\": {\"k\": 3}, ", LOOP_K(CPU_K)), "", "/m.json: classes[0].program[0].name: ",
   "\"k\" is both this repeat's name and a let of the class (classes[0].let.k)"},
  {NAMES_MODEL("\"counters\": [{\"name\": \"k\"}], ", "\"let\": {\"k\": 3}, ", CPU_K), "",
   "/m.json: classes[0].let.k: ", "\"k\" is both a let of the class and a counter (counters[0])"},
  {NAMES_MODEL("\"counters\": [{\"name\": \"k\"}], ", "", LOOP_K(CPU_K)), "", "/m.json: classes[0].program[0].name: ",
   "\"k\" is both this repeat's name and a counter (counters[0])"},
  {NAMES_MODEL("", "\"vars\": {\"k\": 1}, \"let\": {\"k\": 3}, ", CPU_K), "", "/m.json: classes[0].let.k: ",
   "\"k\" is both a let of the class and one of the class's vars (classes[0].vars.k)"},
  {NAMES_MODEL("", "", LOOP_K(LOOP_K(CPU_K))), "", "/m.json: classes[0].program[0].steps[0].name: ",
   "\"k\" is both this repeat's name and the name of an enclosing repeat (classes[0].program[0])"},
  /* the loop of a program_of: its path where it is written, the lets of the class that uses it */
  {"{\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [" LOOP_K(CPU_K) "]},"
   " {\"name\": \"b\", \"count\": 1, \"let\": {\"k\": 3}, \"program_of\": \"a\"}]}", "",
   "/m.json: classes[0].program[0].name: ",
   "a let of the class (classes[1].let.k): a name means one thing in expressions; rename one (used by classes[1] "
   "through program_of)\n"},
  /* item 2: a while without a count may never end: the message says that, not "repeats forever" */
  {NAMES_MODEL("\"counters\": [{\"name\": \"c\"}], ", "", "{\"op\": \"repeat\", \"while\": \"c < 3\", \"steps\":"
   " [{\"op\": \"add\", \"counter\": \"c\"}, {\"op\": \"cpu\", \"ms\": 1}]}"), "", "/s.json: horizon_ms: ",
   "classes[0].program[0] repeats until its while is 0, with no count to bound it (it may never end), so the scenario "
   "needs horizon_ms\n"},
  /* item 3: program_of errors at the step's own path (was classes[1].program[1].ms, which does not exist) */
  {"{\"classes\": [{\"name\": \"a\", \"count\": 1, \"let\": {\"k\": 1}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}, "
   CPU_K "]}, {\"name\": \"b\", \"count\": 1, \"program_of\": \"a\"}]}", "", "/m.json: classes[0].program[1].ms: ",
   "unknown name \"k\" before column 2 (names: $params, n, W, i, worker, pool_size, now, arrived, loop names, "
   "counters, lets) (used by classes[1] through program_of)\n"},
  {"{\"classes\": [{\"name\": \"a\", \"count\": 1, \"let\": {\"k\": \"1 - i\"}, \"program\": [{\"op\": \"repeat\","
   " \"count\": \"k\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}]}]}, {\"name\": \"b\", \"count\": 3, \"let\": {\"k\":"
   " \"1 - i\"}, \"program_of\": \"a\"}]}", "", "replication 0: classes[0].program[0]: ",
   "count \"k\" is -1 for actor 3 (class b, i = 2): expected"},
  /* item 4: a scenario where a model belongs */
  {"{\"name\": \"other\", \"model\": \"x.json\", \"workers\": [1]}", "", "/m.json: (top level): ",
   "this is a scenario (it names a model in \"model\"), not a model"},
  /* item 6: a number just past its range reads as itself (was "got 1e+06", inside [1, 1000000]) */
  {NULL, ", \"horizon_ms\": 1000000000001", "/s.json: horizon_ms: ",
   "expected a number in [1e-06, 1e+12], got 1000000000001\n"},
  {NAMES_MODEL("", "", "{\"op\": \"cpu\", \"ms\": 3600001}"), "", "/m.json: classes[0].program[0].ms: ",
   "got 3600001\n"},
  {NAMES_MODEL("", "", "{\"op\": \"cpu\", \"ms\": 1, \"rows\": 10000001}"), "", "/m.json: classes[0].program[0].rows: ",
   "expected an integer in [1, 10000000], got 10000001\n"},
  {NAMES_MODEL("\"locks\": [{\"name\": \"l\", \"scope\": \"indexed\", \"instances\": 1000001}], ", "", CPU_K), "",
   "/m.json: locks[0].instances: ", "expected an integer in [1, 1000000], got 1000001\n"},
  /* item 7: a param is a number or a string */
  {"{\"params\": {\"x\": true}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "",
   "/m.json: params.x: ", "expected a number, or a string (a name a step or a declaration uses), got a boolean\n"},
  {"{\"params\": {\"x\": [1]}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}", "",
   "/m.json: params.x: ", "got an array\n"},
  {NULL, ", \"table\": []", "/s.json: table: ", "expected at least one metric name"},
};

/* The same name meaning one thing per scope is fine: loops one after the
 * other, and a let k in one class with a var k in another. */
START_TEST(lang_names_one_meaning_each_load)
{
  char dir[256];
  const char *model = "{\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [" LOOP_K(CPU_K) ", " LOOP_K(CPU_K)
                      "]}, {\"name\": \"b\", \"count\": 1, \"let\": {\"k\": 2}, \"program\": [" CPU_K "]},"
                      " {\"name\": \"c\", \"count\": 1, \"vars\": {\"k\": 3}, \"program\": [" CPU_K "]}]}";
  const char *scenario = "{\"name\": \"c\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}";
  ck_assert_int_eq(tu_run_files("names", model, scenario, dir, sizeof dir, NULL, NULL), 0);
  tu_rmtree(dir);
}
END_TEST

/* A counter starts at its initial value, given as a number, "$param" or an
 * expression of $params: the cpu step reads it. */
START_TEST(lang_counter_initial_from_params)
{
  static const char *const initial[] = {"3", "\"$x\"", "\"$x / 2 + 1.5\""};
  for (size_t k = 0; k < 3; k++) {
    char dir[256], model[600], path[300];
    snprintf(model, sizeof model,
             "{\"params\": {\"x\": 3}, \"counters\": [{\"name\": \"c\", \"initial\": %s}],"
             " \"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"c\"}]}]}",
             initial[k]);
    ck_assert_int_eq(tu_run_files("counter", model, "{\"name\": \"c\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}",
                                  dir, sizeof dir, NULL, NULL),
                     0);
    snprintf(path, sizeof path, "%s/out/summary.csv", dir);
    tu_table t;
    tu_table_read(&t, path);
    ck_assert_double_eq(tu_table_num(&t, 0, "cpu_ms"), 3.0);
    tu_table_free(&t);
    tu_rmtree(dir);
  }
}
END_TEST

static void expect_bad(const bad_case *c, int i)
{
  char dir[256], text[2000], *out, *err;
  snprintf(text, sizeof text, "{\"name\": \"b\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]%s}", c->scenario);
  int rc = tu_run_files("bad", c->model ? c->model : ok_model, text, dir, sizeof dir, &out, &err);
  ck_assert_msg(rc == 2, "case %d: exit %d: %s", i, rc, err);
  ck_assert_msg(strstr(err, c->path) && strstr(err, c->what), "case %d: %s", i, err);
  ck_assert_msg(strstr(err, "/m.json: ") || strstr(err, "/s.json: "), "case %d names no file: %s", i, err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "case %d: more than one line: %s", i, err);
  free(out);
  free(err);
  tu_rmtree(dir);
}

START_TEST(lang_bad_input_exit_2_with_path)
{
  expect_bad(&bad[_i], _i);
}
END_TEST

START_TEST(lang_load_errors_name_what_is_there)
{
  expect_bad(&lang25[_i], _i);
}
END_TEST

/* A combination past the first 1000 (not checked before the run) whose
 * model does not load: the sweep's line named the model file twice, or the
 * model and then the scenario ("tssim: m.json: s.json: axes.t.path: ..."):
 * it names the scenario's axis once, at the value (axes.t.values[32]: -1). */
START_TEST(lang_late_bad_combination_names_one_file)
{
  char t[200] = "[", u[200] = "[", dir[256], text[600], want[400], *out, *err;
  for (int v = 1; v <= 33; v++) { /* t = -1 with u = 1 is combination 32 * 33 = 1056 */
    snprintf(t + strlen(t), sizeof t - strlen(t), v < 33 ? "%d, " : "-1]", v);
    snprintf(u + strlen(u), sizeof u - strlen(u), v < 33 ? "%d, " : "%d]", v);
  }
  snprintf(text, sizeof text,
           "{\"name\": \"b\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], \"axes\": "
           "{\"t\": {\"path\": \"params.c\", \"values\": %s}, \"u\": {\"path\": \"params.d\", \"values\": %s}}}",
           t, u);
  const char *model = "{\"params\": {\"c\": 1, \"d\": 1}, \"classes\": [{\"name\": \"a\", \"count\": \"n\", "
                      "\"program\": [{\"op\": \"cpu\", \"ms\": \"$c\"}, {\"op\": \"cpu\", \"ms\": \"$d\"}]}]}";
  ck_assert_int_eq(tu_run_files("late", model, text, dir, sizeof dir, &out, &err), 2);
  snprintf(want, sizeof want, "tssim: %s/s.json: axes.t.values[32]: classes[0].program[0].ms: $c must be", dir);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strstr(err, "with axes t=-1, u=1)\n"), "%s", err);
  free(out);
  free(err);
  tu_rmtree(dir);
}
END_TEST

START_TEST(lang_examples_run)
{
  static const char *const ex[] = {"periodic-window", "mm1", NULL};
  tu_run_examples(ex);
}
END_TEST

Suite *lang_suite(void)
{
  Suite *s = suite_create("lang");
  const TTest *const queueing[] = {lang_mm1_and_md1_match_pollaczek_khinchine, NULL};
  const TTest *const structure[] = {lang_periodic_window_counts_50, lang_repeat_forever_stops_at_horizon,
                                    lang_let_kept_until_its_inputs_change,
                                    lang_let_of_a_variable_kept_until_a_set,
                                    lang_let_of_a_version_kept_until_a_notify,
                                    lang_nested_repeat_and_if, lang_after_arrival_closes_the_loop,
                                    lang_lock_taken_in_both_branches, lang_kernel_cpu_on_an_event_loop,
                                    lang_arrived_anchors_timers, lang_arrivals_past_the_horizon_are_not_a_deadlock,
                                    NULL};
  const TTest *const spans[] = {lang_span_quantiles_are_gsl, lang_actor_statistics_are_gsl, lang_span_ends_on_another_actor,
                                lang_settle_ms_from_arrival_to_the_mark, NULL};
  const TTest *const crn[] = {lang_crn_other_class_unchanged, lang_crn_variants_identical,
                              lang_ci_target_and_t_halfwidth, lang_examples_run, lang_counter_initial_from_params,
                              lang_late_bad_combination_names_one_file, NULL};
  tu_tcase(s, "queueing", queueing, NULL, NULL, 120);
  tu_tcase(s, "structure", structure, NULL, NULL, 0);
  tu_tcase(s, "spans", spans, NULL, NULL, 0);
  tu_tcase(s, "crn and ci", crn, NULL, NULL, 120);
  TCase *tc = tcase_create("errors");
  tcase_set_timeout(tc, TU_TIMEOUT_DEFAULT);
  tcase_add_loop_test(tc, lang_bad_input_exit_2_with_path, 0, (int)(sizeof bad / sizeof *bad));
  tcase_add_loop_test(tc, lang_load_errors_name_what_is_there, 0, (int)(sizeof lang25 / sizeof *lang25));
  tcase_add_test(tc, lang_names_one_meaning_each_load);
  suite_add_tcase(s, tc);
  return s;
}
