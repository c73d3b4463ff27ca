/* A drawn wake latency (a mutex's or a channel's wake_latency_ms as a
 * duration object): each wake draws it from the woken worker's own wake
 * stream. The draws' mean and spread come through; a constant one draws
 * nothing; actors' own draws do not move when it varies; bad input is
 * refused with its JSON path. Times in ms. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/world.h"

#include "testutil.h"

#define MS(x) ((ts_time)llround((x) * 1e6))

/* A publisher thread notifies channel c every 1 ms, `reps` times; one reader
 * on another thread waits on it, ends span "wake" (from the notify: the
 * channel's wake latency, nothing else), then runs an exponential 0.01 ms of
 * CPU drawn from its own stream. */
#define CHAN_MODEL                                                                                                \
  "{\"worker\": {\"kind\": \"thread\"},"                                                                          \
  " \"channels\": [{\"name\": \"c\", \"scope\": \"shared\", \"wake_latency_ms\": %s}],"                           \
  " \"classes\": ["                                                                                               \
  "  {\"name\": \"pub\", \"count\": 1, \"report\": false, \"placement\": {\"rule\": \"fixed\", \"worker\": 0},"   \
  "   \"program\": [{\"op\": \"repeat\", \"count\": %d, \"steps\": [{\"op\": \"sleep\", \"ms\": 1},"                \
  "    {\"op\": \"span_begin\", \"span\": \"f\"}, {\"op\": \"notify\", \"channel\": \"c\", \"carry\": \"f\"}]}]},"  \
  "  {\"name\": \"reader\", \"count\": 1, \"placement\": {\"rule\": \"fixed\", \"worker\": 1},"                    \
  "   \"program\": [{\"op\": \"repeat\", \"count\": %d, \"steps\": [{\"op\": \"wait\", \"channel\": \"c\"},"        \
  "    {\"op\": \"span_end\", \"span\": \"wake\", \"from\": \"notify\"},"                                          \
  "    {\"op\": \"cpu\", \"ms\": 0.01, \"dist\": \"exponential\"}]}]}]}"

/* Run CHAN_MODEL with this wake latency (JSON) for `reps` notifies; w is
 * left for the caller to read and finish. */
static void run_chan(const char *lat, int reps, uint64_t seed, ts_model *m, ts_world *w)
{
  tu_modelf(m, CHAN_MODEL, lat, reps, reps);
  ts_world_spec spec = tu_world_spec(1, 2, seed);
  ck_assert_int_eq(ts_world_init(w, m, &spec, NULL), 0);
  ck_assert_int_eq(ts_world_run(w), TS_WORLD_OK);
}

static const ts_span_rec *wake_span(const ts_model *m, const ts_world *w)
{
  for (size_t s = 0; s < m->nspans; s++)
    if (strcmp(m->spans[s].name, "wake") == 0)
      return &w->spans[s];
  ck_abort_msg("no span wake");
  return NULL;
}

/* The samples' mean and coefficient of variation (ms). */
static void moments(const ts_span_rec *r, double *mean, double *cv)
{
  double s = 0, ss = 0;
  for (size_t i = 0; i < r->len; i++)
    s += (double)r->v[i] / 1e6;
  *mean = s / (double)r->len;
  for (size_t i = 0; i < r->len; i++) {
    double d = (double)r->v[i] / 1e6 - *mean;
    ss += d * d;
  }
  *cv = sqrt(ss / (double)(r->len - 1)) / *mean;
}

/* 4000 wakes: a lognormal of mean 0.1 ms and cv 0.5 gives a sample mean
 * within 4% (about 5 standard errors: 0.5 / sqrt(4000) = 0.8%) and a sample
 * cv within 0.44-0.56; a gamma the same; a uniform 0.05-0.15 stays in its
 * bounds with its mean and its sd (0.1 / sqrt(12) = 0.0289 ms) within 5%. A
 * fixed one (a number, or {"ms"} alone) is every wake exactly. */
START_TEST(wake_drawn_latency_mean_and_spread)
{
  static const char *const shaped[] = {"{\"ms\": 0.1, \"dist\": \"lognormal\", \"cv\": 0.5}",
                                       "{\"ms\": 0.1, \"dist\": \"gamma\", \"cv\": 0.5}", NULL};
  for (int k = 0; shaped[k]; k++) {
    ts_model m;
    ts_world w;
    double mean, cv;
    run_chan(shaped[k], 4000, 1, &m, &w);
    const ts_span_rec *r = wake_span(&m, &w);
    ck_assert_uint_eq(r->len, 4000);
    moments(r, &mean, &cv);
    ck_assert_msg(fabs(mean - 0.1) < 0.004 && cv > 0.44 && cv < 0.56, "%s: mean %g ms, cv %g", shaped[k], mean, cv);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
  ts_model m;
  ts_world w;
  double mean, cv;
  run_chan("{\"dist\": \"uniform\", \"min_ms\": 0.05, \"max_ms\": 0.15}", 4000, 1, &m, &w);
  const ts_span_rec *r = wake_span(&m, &w);
  for (size_t i = 0; i < r->len; i++)
    ck_assert(r->v[i] >= MS(0.05) && r->v[i] <= MS(0.15));
  moments(r, &mean, &cv);
  ck_assert_msg(fabs(mean - 0.1) < 0.005 && fabs(cv * mean - 0.0289) < 0.0015, "mean %g ms, sd %g", mean, cv * mean);
  ts_world_finish(&w);
  ts_model_finish(&m);
  static const char *const fixed[] = {"0.1", "{\"ms\": 0.1}", "{\"ms\": 0.1, \"dist\": \"fixed\", \"cv\": 0.5}", NULL};
  for (int k = 0; fixed[k]; k++) {
    run_chan(fixed[k], 50, 1, &m, &w);
    r = wake_span(&m, &w);
    ck_assert_uint_eq(r->len, 50);
    for (size_t i = 0; i < r->len; i++)
      ck_assert_int_eq(r->v[i], MS(0.1));
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

/* Common random numbers: the reader's exponential CPU comes from its own
 * stream, so its total is the same bit for bit whether the wake latency is
 * fixed or drawn (its wakes move, its draws do not); the object form of a
 * constant gives the very same run as the number. */
START_TEST(wake_draws_leave_actor_streams_alone)
{
  ts_model m;
  ts_world w;
  run_chan("0.1", 500, 7, &m, &w);
  ts_actor_stats fixed[2] = {ts_world_stats(&w, 0), ts_world_stats(&w, 1)};
  ts_world_finish(&w);
  ts_model_finish(&m);
  run_chan("{\"ms\": 0.1}", 500, 7, &m, &w);
  for (int a = 0; a < 2; a++) {
    ts_actor_stats s = ts_world_stats(&w, a);
    ck_assert_int_eq(memcmp(&s, &fixed[a], sizeof s), 0);
  }
  ts_world_finish(&w);
  ts_model_finish(&m);
  run_chan("{\"ms\": 0.1, \"dist\": \"exponential\"}", 500, 7, &m, &w);
  ts_actor_stats reader = ts_world_stats(&w, 1);
  ck_assert_int_eq(reader.cpu, fixed[1].cpu);
  ck_assert_int_ne(reader.done, fixed[1].done); /* its wakes did move */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A mutex's futex wake draws too: two threads take one fifo mutex 200 times
 * each (hold 2 ms); each contended acquire waits for the holder's release and
 * then the wake latency. Drawn from a uniform 0.05-0.15 the wait differs from
 * the fixed 0.1's, by less than the spread allows (each of the ~200 futex
 * wakes moves it by at most 0.05 ms, on average by nothing); with the same
 * seed it is the same, with another seed not. */
START_TEST(wake_drawn_latency_on_a_mutex)
{
#define MUTEX_MODEL                                                                                                  \
  "{\"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"                                \
  " \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"futex_wake_ms\": 0.03,"             \
  " \"wake_latency_ms\": %s}], \"classes\": [{\"name\": \"t\", \"count\": 2, \"program\": [{\"op\": \"repeat\","     \
  " \"count\": 200, \"steps\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 2},"                 \
  " {\"op\": \"unlock\", \"lock\": \"m\"}]}]}]}"
  ts_time wait[4];
  const char *lat[] = {"0.1", "{\"dist\": \"uniform\", \"min_ms\": 0.05, \"max_ms\": 0.15}"};
  const uint64_t seed[] = {1, 1, 1, 2};
  for (int k = 0; k < 4; k++) {
    ts_model m;
    ts_world w;
    tu_modelf(&m, MUTEX_MODEL, lat[k > 0]);
    ts_world_spec spec = tu_world_spec(2, 2, seed[k]);
    ck_assert_int_eq(ts_world_init(&w, &m, &spec, NULL), 0);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    wait[k] = ts_world_stats(&w, 0).mutex_wait + ts_world_stats(&w, 1).mutex_wait;
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
#undef MUTEX_MODEL
  ck_assert_int_ne(wait[1], wait[0]);
  ck_assert_msg(llabs(wait[1] - wait[0]) < MS(2), "fixed %lld, drawn %lld ns", (long long)wait[0], (long long)wait[1]);
  ck_assert_int_eq(wait[2], wait[1]);
  ck_assert_int_ne(wait[3], wait[1]);
}
END_TEST

/* Bad input names the file, the JSON path and what was expected. */
START_TEST(wake_bad_input_named)
{
#define BAD_LOCK(lat)                                                                                                \
  "{\"worker\": {\"kind\": \"thread\"}, \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"wake_latency_ms\": "    \
  lat "}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}"
#define BAD_CHAN(lat)                                                                                                \
  "{\"channels\": [{\"name\": \"c\", \"scope\": \"shared\", \"wake_latency_ms\": " lat "}],"                         \
  " \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}"
  tu_refuse(BAD_LOCK("{\"ms\": \"0.001 * n\", \"dist\": \"lognormal\", \"cv\": 0.2}"), "locks[0].wake_latency_ms.ms",
            "known at load time");
  tu_refuse(BAD_LOCK("{\"ms\": 0.003, \"dist\": \"normal\"}"), "locks[0].wake_latency_ms.dist", "\"lognormal\"");
  tu_refuse(BAD_LOCK("{\"ms\": 0.003, \"dist\": \"lognormal\", \"cv\": 11}"), "locks[0].wake_latency_ms.cv",
            "expected");
  tu_refuse(BAD_LOCK("{\"dist\": \"lognormal\", \"cv\": 0.2}"), "locks[0].wake_latency_ms.ms", "missing");
  tu_refuse(BAD_LOCK("[0.003]"), "locks[0].wake_latency_ms", "expected a number of ms or a duration object");
  tu_refuse(BAD_CHAN("{\"ms\": 0.003, \"samples\": [1, 2]}"), "channels[0].wake_latency_ms", "samples");
  tu_refuse(BAD_CHAN("{\"ms\": -1}"), "channels[0].wake_latency_ms.ms", "expected");
  tu_refuse(BAD_CHAN("{\"dist\": \"uniform\", \"min_ms\": 0.004, \"max_ms\": 0.002}"),
            "channels[0].wake_latency_ms.max_ms", "expected max_ms >= min_ms");
  tu_refuse("{\"locks\": [{\"name\": \"a\", \"wake_latency_ms\": {\"ms\": 0.003}}],"
            " \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
            "locks[0].wake_latency_ms", "only for \"kind\": \"mutex\"");
#undef BAD_LOCK
#undef BAD_CHAN
}
END_TEST

/* The example runs, byte-identical at --jobs 1 and 2. */
START_TEST(wake_example_runs_deterministic)
{
  static const char *const ex[] = {"wake-jitter", NULL};
  tu_run_examples(ex);
  tu_same_at_jobs("scenarios/examples/wake-jitter.json");
}
END_TEST

Suite *wake_suite(void)
{
  Suite *s = suite_create("wake");
  const TTest *const draws[] = {wake_drawn_latency_mean_and_spread, wake_draws_leave_actor_streams_alone,
                                wake_drawn_latency_on_a_mutex, NULL};
  const TTest *const input[] = {wake_bad_input_named, wake_example_runs_deterministic, NULL};
  tu_tcase(s, "draws", draws, NULL, NULL, 0);
  tu_tcase(s, "input", input, NULL, NULL, 60);
  return s;
}
