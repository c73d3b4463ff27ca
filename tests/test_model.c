/* Model: xxHash32, dispatch, and worlds of small models written as JSON
 * text, with every expected time worked out by hand in the comments. Times are in
 * ms unless said otherwise; "A 0-10" means A runs from 0 to 10 ms. The numbers
 * the model computes (expressions, random draws, rounding) are test_numbers.c's. */
#include <check.h>
#include <cjson/cJSON.h>
#include <malloc.h> /* mallopt(M_PERTURB): fresh memory that is not 0 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/dispatch.h"
#include "model/xxhash32.h"

#include "model_run.h"

/* ---- xxHash32 ---- */

/* The sanity buffer of xxHash's own self-test (xxhsum): byte i is the top
 * byte of PRIME32 * PRIME64^i. */
static void xxh_sanity_buffer(unsigned char *buf, size_t len)
{
  uint64_t gen = UINT64_C(2654435761);
  for (size_t i = 0; i < len; i++) {
    buf[i] = (unsigned char)(gen >> 56);
    gen *= UINT64_C(11400714785074694797);
  }
}

START_TEST(model_xxh32_published_vectors)
{
  static const char nobody[] = "Nobody inspects the spammish repetition";
  ck_assert_uint_eq(ts_xxh32("", 0, 0), 0x02CC5D05u);
  ck_assert_uint_eq(ts_xxh32("a", 1, 0), 0x550D7456u);
  ck_assert_uint_eq(ts_xxh32("abc", 3, 0), 0x32D153FFu);
  ck_assert_uint_eq(ts_xxh32(nobody, strlen(nobody), 0), 0xE2293B2Fu);
  /* xxhsum's sanity check: every length branch, seed 0 and seed PRIME32 */
  static const struct {
    size_t len;
    uint32_t seed, want;
  } v[] = {
    {0, 0x9E3779B1u, 0x36B78AE7u},  {1, 0, 0xCF65B03Eu},   {1, 0x9E3779B1u, 0xB4545AA4u},
    {14, 0, 0x1208E7E2u},           {14, 0x9E3779B1u, 0x6AF1D1FEu}, {16, 0, 0x93BA3759u},
    {16, 0x9E3779B1u, 0xA94FC1E1u}, {17, 0, 0x89FDC23Eu},  {17, 0x9E3779B1u, 0xC9910739u},
    {222, 0, 0x5BD11DBDu},          {222, 0x9E3779B1u, 0x58803C5Fu},
  };
  unsigned char buf[222];
  xxh_sanity_buffer(buf, sizeof buf);
  for (size_t i = 0; i < LEN(v); i++)
    ck_assert_msg(ts_xxh32(buf, v[i].len, v[i].seed) == v[i].want, "len %zu seed %#x: got %#x, want %#x", v[i].len,
                  v[i].seed, ts_xxh32(buf, v[i].len, v[i].seed), v[i].want);
}
END_TEST

/* ---- dispatch ---- */

#define ONE_MS CPU(1, 1)

START_TEST(model_dispatch_round_robin_is_i_mod_w)
{
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS_N("job", ONE_MS)), 10, 3), TS_WORLD_OK);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(st(&r.w, i)->worker, i % 3);
  run_finish(&r);
}
END_TEST

START_TEST(model_dispatch_least_loaded_lowest_index_on_ties)
{
  static const char json[] = "{\"dispatch\": {\"policy\": \"least_loaded\"}, \"classes\": [" CLASS_N("job", ONE_MS) "]}";
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(r.m.dispatch, TS_DISPATCH_LEAST_LOADED);
  static const int loads[][4] = {{0, 0, 0, 0}, {2, 1, 1, 3}, {1, 1, 0, 0}, {5, 4, 4, 4}, {3, 3, 3, 2}};
  static const int want[] = {0, 1, 2, 1, 3};
  for (size_t c = 0; c < LEN(want); c++)
    ck_assert_int_eq(ts_dispatch_pick(&r.m, 99, 4, loads[c], 1), want[c]);
  /* in a world the load is the placement so far: 0 1 2 0 1 2 0 */
  ck_assert_int_eq(run_observed(&r, 7, 3, NULL), TS_WORLD_OK);
  for (int i = 0; i < 7; i++)
    ck_assert_int_eq(st(&r.w, i)->worker, i % 3);
  run_finish(&r);
}
END_TEST

START_TEST(model_dispatch_hash_is_xxh32_of_task_slash_group)
{
  char id[32], key[64];
  ts_dispatch_group_id("cg", 7, id, sizeof id);
  ck_assert_str_eq(id, "cg7");
  ck_assert_uint_eq(ts_xxh32("task/cg7", 8, 0), 0xB07C6EA2u); /* computed independently */
  ck_assert_int_eq(ts_dispatch_hash("task", "cg7", 4), 0xB07C6EA2u % 4);
  /* hash dispatch, task "task", prefix "cg": the loader's defaults */
  static const char json[] = "{\"classes\": [" CLASS_N("job", ONE_MS) "]}";
  /* xxh32("task/cg<i>") % 4 for i = 0..9, computed independently */
  static const int want[] = {0, 1, 3, 0, 2, 3, 2, 2, 3, 3};
  run r;
  ck_assert_int_eq(run_model(&r, json, 10, 4), TS_WORLD_OK);
  ck_assert_int_eq(r.m.dispatch, TS_DISPATCH_HASH);
  for (int i = 0; i < 10; i++) {
    snprintf(key, sizeof key, "task/cg%d", i);
    ck_assert_int_eq(st(&r.w, i)->worker, (int)(ts_xxh32(key, strlen(key), 0) % 4));
    ck_assert_int_eq(st(&r.w, i)->worker, want[i]);
  }
  run_finish(&r);
}
END_TEST

/* dispatch.ids "per_replication": two actors (ids 0 and 1) on 4 workers
 * share one in about 1/4 of 400 replications (binomial: 100 +- 8.7, so
 * 70 to 130 is 3.5 sd), each placed by xxh32 of its drawn id; with the
 * default fixed ids the two sit where "task/cg0" and "task/cg1" hash in
 * every replication. */
START_TEST(model_dispatch_per_replication_ids_share_a_worker_about_1_in_w)
{
  static const char drawn[] = "{\"dispatch\": {\"ids\": \"per_replication\"}, \"classes\": [" CLASS(
      "small", 1, ONE_MS) ", " CLASS("big", 1, ONE_MS) "]}";
  static const char fixed[] = "{\"classes\": [" CLASS("small", 1, ONE_MS) ", " CLASS("big", 1, ONE_MS) "]}";
  ts_model m, f;
  tu_model(drawn, &m);
  tu_model(fixed, &f);
  ck_assert_int_eq(m.ids_per_replication, 1);
  ck_assert_int_eq(f.ids_per_replication, 0);
  int shared = 0, moved = 0;
  for (uint64_t seed = 1; seed <= 400; seed++) {
    ts_world w;
    ts_world_spec spec = tu_world_spec(1, 4, seed);
    ck_assert_msg(ts_world_init(&w, &m, &spec, NULL) == 0, "%s", w.errmsg);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    int a = st(&w, 0)->worker, b = st(&w, 1)->worker;
    char id[64];
    ts_dispatch_group_id_drawn("cg", w.seed, 0, id, sizeof id);
    ck_assert_int_eq(strlen(id), 2 + 16);
    ck_assert_int_eq(a, ts_dispatch_hash("task", id, 4));
    shared += a == b;
    moved += a != ts_dispatch_hash("task", "cg0", 4);
    ts_world_finish(&w);
    ck_assert_msg(ts_world_init(&w, &f, &spec, NULL) == 0, "%s", w.errmsg);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    ck_assert_int_eq(st(&w, 0)->worker, ts_dispatch_hash("task", "cg0", 4));
    ck_assert_int_eq(st(&w, 1)->worker, ts_dispatch_hash("task", "cg1", 4));
    ts_world_finish(&w);
  }
  ck_assert_msg(shared >= 70 && shared <= 130, "shared a worker in %d of 400 replications", shared);
  ck_assert_msg(moved >= 240, "the small actor left its fixed worker in only %d of 400", moved);
  ts_model_finish(&m);
  ts_model_finish(&f);
  tu_refuse("{\"dispatch\": {\"ids\": \"random\"}, \"classes\": [" CLASS("small", 1, ONE_MS) "]}", "dispatch.ids",
            "expected fixed or per_replication; got \"random\"");
}
END_TEST

START_TEST(model_dispatch_find_by_name)
{
  ck_assert_int_eq(ts_dispatch_find("hash"), TS_DISPATCH_HASH);
  ck_assert_int_eq(ts_dispatch_find("round_robin"), TS_DISPATCH_ROUND_ROBIN);
  ck_assert_int_eq(ts_dispatch_find("least_loaded"), TS_DISPATCH_LEAST_LOADED);
  ck_assert_int_eq(ts_dispatch_find("random"), -1);
  ck_assert_str_eq(ts_dispatch_name(TS_DISPATCH_LEAST_LOADED), "least_loaded");
}
END_TEST

/* ---- locks ---- */

/* lock; cpu 10; io 20 (holding the lock); cpu 5; unlock: 35 ms under the lock */
#define LOCKED_WORK LOCK("m") ", " CPU(10, 1) ", " IO(20) ", " CPU(5, 1) ", " UNLOCK("m")
#define SHARED_M "\"locks\": [{\"name\": \"m\", \"scope\": \"shared\"}], "

/* Observer: lock hand-overs (from, to, when). */
typedef struct handovers {
  int from[8], to[8];
  ts_time at[8];
  int len;
} handovers;

static void on_wake(void *data, ts_time t, int from, int to)
{
  handovers *h = data;
  if (h->len < 8) {
    h->from[h->len] = from;
    h->to[h->len] = to;
    h->at[h->len] = t;
  }
  h->len++;
}

START_TEST(model_lock_shared_fifo_handover)
{
  /* holder arrives at 0; actor 2 ("first") at 1; actor 1 ("second") at 2; one worker each.
   * holder: 0-35. first waits 1-35, runs 35-70. second waits 2-70, runs 70-105. */
  static const char json[] = MODEL_WITH(SHARED_M, CLASS_AT("holder", LOCKED_WORK, 0) ", "
                                                  CLASS_AT("second", LOCKED_WORK, 2) ", "
                                                  CLASS_AT("first", LOCKED_WORK, 1));
  handovers h = {0};
  ts_observer obs = {.data = &h, .wake = on_wake};
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(run_observed(&r, 0, 3, &obs), TS_WORLD_OK);
  static const ts_time done[] = {35, 105, 70}, wait[] = {0, 68, 34};
  for (int a = 0; a < 3; a++) {
    ck_assert_int_eq(st(&r.w, a)->done, MS(done[a]));
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_LOCK_WAIT], MS(wait[a]));
    ck_assert_int_eq(st(&r.w, a)->lock_work, MS(35)); /* includes the 20 ms io */
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_IO], MS(20));
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_READY], 0);
  }
  ck_assert_int_eq(h.len, 2);
  ck_assert_int_eq(h.from[0], 0);
  ck_assert_int_eq(h.to[0], 2);
  ck_assert_int_eq(h.at[0], MS(35));
  ck_assert_int_eq(h.from[1], 2);
  ck_assert_int_eq(h.to[1], 1);
  ck_assert_int_eq(h.at[1], MS(70));
  ck_assert_int_eq(r.w.locks[0].owner, -1);
  run_finish(&r);
}
END_TEST

/* Two actors running LOCKED_WORK on one worker, with the lock in a scope ("actor", "shared"). */
static void two_on_one_worker(const char *scope, run *r)
{
  tu_modelf(&r->m,
            MODEL_WITH("\"locks\": [{\"name\": \"m\", \"scope\": \"%s\"}], ", CLASS("job", 2, LOCKED_WORK)), scope);
  ck_assert_int_eq(run_observed(r, 0, 1, NULL), TS_WORLD_OK);
}

START_TEST(model_lock_per_actor_never_contends)
{
  /* A0 cpu 0-10, io 10-30; A1 cpu 10-20 (its own lock), io 20-40; A0 30-35; A1 40-45 */
  run r;
  two_on_one_worker("actor", &r);
  ck_assert_int_eq(r.m.locks[0].scope, TS_SCOPE_ACTOR);
  ck_assert_int_eq(r.w.nlock_inst, 2);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(35));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(45));
  for (int a = 0; a < 2; a++) {
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_LOCK_WAIT], 0);
    ck_assert_int_eq(st(&r.w, a)->lock_work, MS(35));
  }
  run_finish(&r);
}
END_TEST

START_TEST(model_lock_shared_serializes_one_worker)
{
  /* A0 as above, done 35. A1 starts at 10 (ready_wait 10), waits 10-35 for the lock,
   * is handed it at 35 and runs 35-45, io 45-65, 65-70. */
  run r;
  two_on_one_worker("shared", &r);
  ck_assert_int_eq(r.m.locks[0].scope, TS_SCOPE_SHARED);
  ck_assert_int_eq(r.w.nlock_inst, 1);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(35));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(70));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_LOCK_WAIT], MS(25));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_READY], MS(10));
  ck_assert_int_eq(st(&r.w, 1)->lock_work, MS(35));
  run_finish(&r);
}
END_TEST

START_TEST(model_lock_released_at_the_end_hands_over)
{
  /* a program that never unlocks is refused by the loader */
  static const char never[] = MODEL_WITH(SHARED_M, CLASS("job", 2, LOCK("m") ", " CPU(10, 1)));
  cJSON *root = cJSON_Parse(never);
  ts_model m;
  ts_err e;
  ck_assert_int_eq(ts_model_from_json(root, "test.json", &m, &e), -1);
  ck_assert_msg(strstr(e.msg, "test.json: classes[0].program: lock \"m\" is never released"), "%s", e.msg);
  cJSON_Delete(root);
  /* the unlock as its last step: A0 holds 0-10 and releases at its end; A1 gets it at 10 */
  static const char json[] = MODEL_WITH(SHARED_M, CLASS("job", 2, LOCK("m") ", " CPU(10, 1) ", " UNLOCK("m")));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(10));
  ck_assert_int_eq(st(&r.w, 0)->lock_work, MS(10));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_LOCK_WAIT], MS(10));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(20));
  ck_assert_int_eq(st(&r.w, 1)->lock_work, MS(10));
  ck_assert_int_eq(r.w.locks[0].owner, -1);
  run_finish(&r);
}
END_TEST

START_TEST(model_lock_cycle_deadlocks)
{
  static const char json[] =
      MODEL_WITH("\"locks\": [{\"name\": \"a\", \"scope\": \"shared\"}, {\"name\": \"b\", \"scope\": \"shared\"}], ",
                 CLASS("ab", 1, LOCK("a") ", " CPU(10, 1) ", " LOCK("b") ", " UNLOCK("b") ", " UNLOCK("a")) ", "
                 CLASS("ba", 1, LOCK("b") ", " CPU(10, 1) ", " LOCK("a") ", " UNLOCK("a") ", " UNLOCK("b")));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_STUCK);
  ck_assert_int_eq(r.w.done, 0);
  ck_assert_int_eq(ts_world_actor(&r.w, 0)->state, TS_ACTOR_LOCK_WAIT);
  ck_assert_int_eq(ts_world_actor(&r.w, 1)->state, TS_ACTOR_LOCK_WAIT);
  ck_assert_int_eq(r.w.sim.now, MS(10));
  run_finish(&r);
}
END_TEST

/* A broken invariant stops the run with TS_WORLD_INTERNAL and a diagnostic
 * naming the time, the event and what broke, rather than a wrong table:
 * a worker whose busy time is made to exceed the elapsed time trips the
 * check at its first piece of CPU. */
START_TEST(model_broken_invariant_stops_the_run)
{
  static const char json[] = MODEL_WITH("", CLASS("a", 1, CPU(10, 1)));
  run r;
  tu_model(json, &r.m);
  ts_world_spec sp = tu_world_spec(0, 1, 1);
  ck_assert_int_eq(ts_world_init(&r.w, &r.m, &sp, NULL), 0);
  r.w.workers[0].busy = MS(1000); /* more than the 10 ms the run will last */
  ck_assert_int_eq(ts_world_run(&r.w), TS_WORLD_INTERNAL);
  ck_assert_msg(strstr(r.w.errmsg, "at t = 10000000 ns (event ") &&
                    strstr(r.w.errmsg, "): worker 0 busy 1010000000 ns in 10000000 ns of time"),
                "%s", r.w.errmsg);
  run_finish(&r);
}
END_TEST

/* ---- slicing and the priority threshold ---- */

typedef struct prio_result {
  int64_t slices, yields;
  ts_time work_done, prio_ready_wait, prio_done;
} prio_result;

/* Actor 0 starts an io of 100 ms (priority or not) at 0; actor 1 does 200 ms
 * of sliced work in 1 ms rows, on the same worker (workers = 1) or not. */
static prio_result prio_case(int threshold_ms, int min_ms, int priority, int workers)
{
  run r;
  tu_modelf(&r.m,
            MODEL_WITH("\"worker\": {\"threshold_ms\": %d, \"priority_min_ms\": %d}, ",
                       "{\"name\": \"io\", \"count\": 1, \"program\": [%s]}, " CLASS("work", 1, SLICED(200, 200))),
            threshold_ms, min_ms, priority ? PRIO_IO(100) : IO(100));
  ck_assert_int_eq(run_observed(&r, 0, workers, NULL), TS_WORLD_OK);
  prio_result res = {st(&r.w, 1)->slices, st(&r.w, 1)->yields, st(&r.w, 1)->done,
                     st(&r.w, 0)->state[TS_ACTOR_READY], st(&r.w, 0)->done};
  ck_assert_int_eq(st(&r.w, 1)->timer, MS(200));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_IO], MS(100));
  for (int i = 0; i < r.w.nworkers; i++)
    ck_assert_int_eq(r.w.workers[i].prio_inflight, 0);
  run_finish(&r);
  return res;
}

static void expect_prio(prio_result r, int64_t slices, int64_t yields, int done_ms, int ready_wait_ms)
{
  ck_assert_int_eq(r.slices, slices);
  ck_assert_int_eq(r.yields, yields);
  ck_assert_int_eq(r.work_done, MS(done_ms));
  ck_assert_int_eq(r.prio_ready_wait, MS(ready_wait_ms));
}

START_TEST(model_threshold_plain_io_keeps_threshold)
{
  /* threshold 10: a slice ends after the first row past 10 ms, so 11 ms slices:
   * 18 of 11 ms (198), then 2 ms: 19 slices. The io callback waits for the
   * slice 99-110. */
  expect_prio(prio_case(10, 2, 0, 1), 19, 18, 200, 10);
}
END_TEST

START_TEST(model_threshold_priority_io_quarters_threshold)
{
  /* threshold 10 / 4 = 2.5 ms (> min 2): 3 ms slices while the priority io is in
   * flight: 34 slices to 102 (the callback at 100 waits for the slice 99-102),
   * then 11 ms slices: 8 to 190 and a last one of 10: 34 + 9 = 43 slices. */
  expect_prio(prio_case(10, 2, 1, 1), 43, 42, 200, 2);
}
END_TEST

START_TEST(model_threshold_priority_min_applies)
{
  /* threshold 20 / 4 = 5 < min 7: 7 ms, so 8 ms slices: 13 to 104 (callback waits
   * 100-104), then 21 ms slices: 4 to 188 and a last one of 12: 13 + 5 = 18. */
  expect_prio(prio_case(20, 7, 1, 1), 18, 17, 200, 4);
}
END_TEST

START_TEST(model_threshold_priority_io_on_other_worker_no_effect)
{
  /* the priority io runs on worker 0; worker 1 slices at the full threshold */
  prio_result r = prio_case(10, 2, 1, 2);
  expect_prio(r, 19, 18, 200, 0);
  ck_assert_int_eq(r.prio_done, MS(100));
}
END_TEST

/* A 40 ms job sliced in 1 ms rows (threshold 10, 2.5 while a priority io is
 * in flight) and, arriving at 5 ms, a client of `events` events, each a
 * priority io of io_us microseconds and cpu_us of CPU; priority_yield as
 * given. The job runs 0-11 as its arrival callback and 11-22 in that
 * iteration's check phase; the client's arrival callback runs at 22. */
static void timer_case(const char *yield, int events, int io_us, int cpu_us, run *r)
{
  tu_modelf(&r->m,
            MODEL_WITH("\"worker\": {\"threshold_ms\": 10, \"priority_yield\": \"%s\"}, ",
                       CLASS("big", 1, SLICED(40, 40)) ", "
                       CLASS_AT("new", "{\"op\": \"repeat\", \"count\": %d, \"steps\": [{\"op\": \"io\", \"ms\": %g,"
                                       " \"priority\": true}, {\"op\": \"cpu\", \"ms\": %g}]}", 5)),
            yield, events, io_us / 1000.0, cpu_us / 1000.0);
  ck_assert_int_eq(run_observed(r, 0, 1, NULL), TS_WORLD_OK);
}

#define US(x) ((ts_time)(x) * 1000)

START_TEST(model_priority_yield_timer_waits_a_timers_phase)
{
  run r;
  /* immediate, one event of a 6 ms io and 1 ms: io 22-28; the job's laps are
   * 2.5 ms while it is in flight: 22-25, 25-28; the callback 28-29; the job
   * 29-40, 40-41 at 10 ms again; queued 1 ms in all (28-29) */
  timer_case("immediate", 1, 6000, 1000, &r);
  ck_assert_int_eq(st(&r.w, 1)->done, MS(29));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(41));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(1));
  run_finish(&r);
  /* timer: the job's yield at 25 sees the io in flight: a 1 ms timer, the
   * loop idles 25-26, the job runs 26-29 in the timers phase (the io ends at
   * 28, mid-lap); the callback 29-30 while the job waits for its next timer
   * (29-30), then 30-41 and 41-42; queued 2 ms */
  timer_case("timer", 1, 6000, 1000, &r);
  ck_assert_int_eq(r.m.pools[0].priority_timer, MS(1));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(30));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(42));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(2));
  run_finish(&r);
  /* two fast events (0.4 ms io, 0.5 ms CPU). immediate: io 22-22.4, its
   * callback waits for the lap 22-25, runs 25-25.5; io 25.5-25.9 inside the
   * lap 25.5-28.5; callback 28.5-29 */
  timer_case("immediate", 2, 400, 500, &r);
  ck_assert_int_eq(st(&r.w, 1)->done, US(29000));
  run_finish(&r);
  /* timer: the second io (25.5-25.9) ends inside the timer's gap (25-26):
   * its callback runs at once, 25.9-26.4 */
  timer_case("timer", 2, 400, 500, &r);
  ck_assert_int_eq(st(&r.w, 1)->done, US(26400));
  run_finish(&r);
}
END_TEST

/* ---- overheads ---- */

/* One actor: 40 ms sliced in 1 ms rows; threshold 9 makes 10 ms slices. */
static void sliced_alone(int yield_overhead_ms, run *r)
{
  tu_modelf(&r->m, MODEL_WITH("\"worker\": {\"threshold_ms\": 9, \"yield_overhead_ms\": %d}, ",
                              CLASS("job", 1, SLICED(40, 40))),
            yield_overhead_ms);
  ck_assert_int_eq(r->m.pools[0].yield_overhead, MS(yield_overhead_ms));
  ck_assert_int_eq(run_observed(r, 0, 1, NULL), TS_WORLD_OK);
  ck_assert_int_eq(st(&r->w, 0)->slices, 4);
  ck_assert_int_eq(st(&r->w, 0)->yields, 3);
  ck_assert_int_eq(st(&r->w, 0)->timer, MS(40));
  ck_assert_int_eq(st(&r->w, 0)->cpu, MS(40));
}

START_TEST(model_yield_overhead_is_loop_cpu_not_timer_cpu)
{
  run r;
  sliced_alone(0, &r);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(40));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], 0);
  ck_assert_int_eq(r.w.workers[0].busy, MS(40));
  run_finish(&r);
  /* three yields, 1 ms of loop CPU each: 0-10, 11-21, 22-32, 33-43 */
  sliced_alone(1, &r);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(43));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(3));
  ck_assert_int_eq(r.w.workers[0].busy, MS(43));
  run_finish(&r);
}
END_TEST

START_TEST(model_loop_overhead_once_per_busy_iteration)
{
  /* loop 0-1, A io 1-6; idle; callback at 6: loop 6-7, A cpu 7-17 */
  static const char json[] =
      MODEL_WITH("\"worker\": {\"loop_overhead_ms\": 1}, ", CLASS("job", 1, IO(5) ", " CPU(10, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(17));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_READY], MS(2));
  ck_assert_int_eq(st(&r.w, 0)->cpu, MS(10));
  ck_assert_int_eq(r.w.workers[0].busy, MS(12));
  run_finish(&r);
}
END_TEST

START_TEST(model_yield_step_rejoins_tail)
{
  /* A0 0-5 yields, A1 5-10 yields, A0 10-15, A1 15-20 */
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS("job", 2, CPU(5, 1) ", " YIELD ", " CPU(5, 1))), 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(15));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(20));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(5));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_QUEUED], MS(5));
  ck_assert_int_eq(st(&r.w, 0)->yields, 1);
  ck_assert_int_eq(st(&r.w, 0)->slices, 0); /* untimed steps count no slices... */
  ck_assert_int_eq(st(&r.w, 0)->timer, 0);  /* ...and no timer CPU */
  ck_assert_int_eq(st(&r.w, 0)->cpu, MS(10));
  run_finish(&r);
}
END_TEST

START_TEST(model_slices_count_run_periods_not_steps)
{
  /* two timed 3 ms steps. Threshold 10: one run period, one slice. Threshold 2:
   * no check after a step's last row (lap 3 ms), so the second step's first
   * row (lap 4 > 2) yields: two run periods, two slices */
  static const int thresholds[] = {10, 2};
  static const int64_t want_slices[] = {1, 2}, want_yields[] = {0, 1};
  for (int c = 0; c < 2; c++) {
    run r;
    tu_modelf(&r.m, MODEL_WITH("\"worker\": {\"threshold_ms\": %d}, ", CLASS("job", 1, SLICED(3, 3) ", " SLICED(3, 3))),
              thresholds[c]);
    ck_assert_int_eq(run_observed(&r, 0, 1, NULL), TS_WORLD_OK);
    ck_assert_int_eq(st(&r.w, 0)->slices, want_slices[c]);
    ck_assert_int_eq(st(&r.w, 0)->yields, want_yields[c]);
    ck_assert_int_eq(st(&r.w, 0)->done, MS(6));
    run_finish(&r);
  }
}
END_TEST

/* ---- processor sharing ---- */

/* Run one class of n actors of `ms` non-sliced CPU on `workers` workers and `cores` cores. */
static void shared_host(int cores, int n, int workers, int ms, int want_done_ms)
{
  run r;
  tu_modelf(&r.m, MODEL_WITH("\"host\": {\"cores\": %d}, ",
                             "{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": %d}]}"),
            cores, ms);
  ck_assert_int_eq(run_observed(&r, n, workers, NULL), TS_WORLD_OK);
  for (int a = 0; a < n; a++)
    ck_assert_msg(st(&r.w, a)->done == MS(want_done_ms), "cores %d, actor %d: done at %lld ns, want %d ms", cores, a,
                  (long long)st(&r.w, a)->done, want_done_ms);
  run_finish(&r);
}

START_TEST(model_processor_sharing_slows_when_cores_are_short)
{
  shared_host(1, 2, 2, 100, 200); /* two workers on one core: half speed each */
  shared_host(2, 2, 2, 100, 100);
  shared_host(0, 2, 2, 100, 100); /* 0: a core per worker */
  shared_host(2, 3, 3, 100, 150); /* three on two: 2/3 speed */
}
END_TEST

START_TEST(model_processor_sharing_replans_when_a_worker_idles)
{
  /* one core: both at half speed until the 50 ms job is done at 100; then the
   * 100 ms job (50 done) runs alone at full speed: done at 150 */
  static const char json[] =
      MODEL_WITH("\"host\": {\"cores\": 1}, ", CLASS("long", 1, CPU(100, 1)) ", " CLASS("short", 1, CPU(50, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 1)->done, MS(100));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(150));
  ck_assert_int_eq(st(&r.w, 0)->cpu, MS(150)); /* cpu is wall time on a CPU */
  ck_assert_int_eq(r.w.busy, 0);
  run_finish(&r);
}
END_TEST

/* Slice pieces (worker 0 only) seen through the run observer. */
typedef struct pieces {
  ts_time t0[32], t1[32];
  int len;
} pieces;

static void on_run(void *data, const ts_run_piece *r)
{
  pieces *p = data;
  if (r->worker == 0 && p->len < 32) {
    p->t0[p->len] = r->t0;
    p->t1[p->len] = r->t1;
    p->len++;
  }
}

/* Worker 0: `rows` ms of sliced work in 1 ms rows (threshold 9); worker 1:
 * `other_ms` of plain CPU; one core between them. */
static void sliced_beside(int rows, int other_ms, run *r, pieces *seen)
{
  ts_observer obs = {.data = seen, .run = on_run};
  tu_modelf(&r->m,
            MODEL_WITH("\"host\": {\"cores\": 1}, \"worker\": {\"threshold_ms\": 9}, ",
                       "{\"name\": \"work\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"label\": \"work\", "
                       "\"ms\": %d, \"rows\": %d, \"sliced\": true}]}, "
                       "{\"name\": \"other\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": %d}]}"),
            rows, rows, other_ms);
  ck_assert_int_eq(run_observed(r, 0, 2, &obs), TS_WORLD_OK);
}

START_TEST(model_processor_sharing_slices_by_wall_time)
{
  /* at half speed a 1 ms row takes 2 ms: the lap passes 9 ms after 5 rows, so
   * 40 rows are 8 slices of 10 ms while the other worker (40 ms of CPU) is busy */
  pieces seen = {0};
  run r;
  sliced_beside(40, 40, &r, &seen);
  ck_assert_int_eq(st(&r.w, 0)->slices, 8);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(80));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(80));
  ck_assert_int_eq(seen.len, 8);
  ck_assert_int_eq(seen.t1[0], MS(10));
  run_finish(&r);
}
END_TEST

START_TEST(model_processor_sharing_replan_checks_the_lap_at_a_row_end)
{
  /* half speed while the 15 ms job on worker 1 runs (done at 30): slices 0-10,
   * 10-20, 20-30 of 5 rows each. Row 15 ends at 30, when the lap is 10 ms > 9:
   * the actor must yield at 30, whichever of the two events at 30 runs first.
   * Then full speed: 30-40, 40-50, 50-60 (rows 16-45) and 60-61 (row 46). */
  pieces seen = {0};
  run r;
  sliced_beside(46, 15, &r, &seen);
  ck_assert_int_eq(st(&r.w, 1)->done, MS(30));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(61));
  ck_assert_int_ge(seen.len, 3);
  ck_assert_msg(seen.t1[2] == MS(30), "third slice ends at %lld ns, want 30 ms", (long long)seen.t1[2]);
  ck_assert_int_eq(st(&r.w, 0)->slices, 7);
  ck_assert_int_eq(st(&r.w, 0)->yields, 6);
  run_finish(&r);
}
END_TEST

START_TEST(model_processor_sharing_no_second_check_of_a_checked_row)
{
  /* one core, 3 workers. Workers 0 and 1: 10 ms in 4 rows, threshold 10;
   * at half speed rows end at 5 and 10, where the lap is 10 ms, not over.
   * A 20 ms job arrives on worker 2 one ns later: a third of the core each,
   * and the re-plan lands on row 2's end again. Row 2 was checked at 10, so
   * the slice goes on: row 3 (2.5 ms of work at 1/3 speed) ends near 17.5. */
  static const char json[] = MODEL_WITH("\"host\": {\"cores\": 1}, ",
                                        CLASS("work", 2, SLICED(10, 4)) ", " CLASS_AT("late", CPU(20, 1), 10.000001));
  pieces seen = {0};
  ts_observer obs = {.data = &seen, .run = on_run};
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(r.m.classes[1].arrival.start, MS(10) + 1);
  ck_assert_int_eq(run_observed(&r, 0, 3, &obs), TS_WORLD_OK);
  ck_assert_int_ge(seen.len, 1);
  ck_assert_msg(seen.t1[0] > MS(17) && seen.t1[0] < MS(18), "first slice ends at %lld ns, want about 17.5 ms",
                (long long)seen.t1[0]);
  run_finish(&r);
}
END_TEST

START_TEST(model_loop_overhead_paid_before_the_poll_snapshot)
{
  /* loop overhead 5: the iteration starting at 0 pays 0-5, then snapshots
   * the ready callbacks: A (arrived at 0) and B (arrived at 2, during the
   * overhead). A 5-15, B 15-25 in the same poll phase. */
  static const char json[] = MODEL_WITH("\"worker\": {\"loop_overhead_ms\": 5}, ",
                                        CLASS_AT("a", CPU(10, 1), 0) ", " CLASS_AT("b", CPU(10, 1), 2));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(15));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(25));
  run_finish(&r);
}
END_TEST

START_TEST(model_priority_policy_lets_foreground_bypass)
{
  /* bg0, bg1: 30 ms background each; fg2: 20 ms foreground arriving at 5; 10 ms slices.
   * bg0 0-10, bg1 10-20, bg0 20-30, fg2 30-40 (its arrival callback), then the
   * queue is [bg1, bg0, fg2]: priority runs fg2 40-50 (done), bg1 50-60, bg0 60-70,
   * bg1 70-80; fifo runs bg1 40-50, bg0 50-60, fg2 60-70, bg1 70-80. */
  static const char *const policies[] = {"fifo", "priority_barrier"};
  static const ts_time want_priority[] = {70, 80, 50}, want_fifo[] = {60, 80, 70};
  for (int policy = 0; policy < 2; policy++) {
    run r;
    tu_modelf(&r.m,
              MODEL_WITH("\"worker\": {\"policy\": \"%s\", \"threshold_ms\": 9}, ",
                         "{\"name\": \"bg\", \"count\": 2, \"queue_class\": \"background\", \"program\": ["
                         SLICED(30, 30) "]}, "
                         "{\"name\": \"fg\", \"count\": 1, \"queue_class\": \"foreground\", \"arrival\": "
                         "{\"start_ms\": 5}, \"program\": [" SLICED(20, 20) "]}"),
              policies[policy]);
    ck_assert_ptr_eq(r.m.pools[0].policy, policy ? &ts_sched_priority_barrier : &ts_sched_fifo);
    ck_assert_int_eq(run_observed(&r, 0, 1, NULL), TS_WORLD_OK);
    for (int a = 0; a < 3; a++)
      ck_assert_msg(st(&r.w, a)->done == MS(policy ? want_priority[a] : want_fifo[a]), "%s: actor %d done at %lld ns",
                    r.m.pools[0].policy->name, a, (long long)st(&r.w, a)->done);
    run_finish(&r);
  }
}
END_TEST

/* ---- callbacks and marks ---- */

START_TEST(model_io_callback_waits_for_running_slice)
{
  /* A io 0-5; B cpu 0-20; A's callback is ready at 5 and runs at 20 */
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS("a", 1, IO(5)) ", " CLASS("b", 1, CPU(20, 1))), 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_IO], MS(5));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_READY], MS(15));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(20));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_READY], 0);
  run_finish(&r);
}
END_TEST

START_TEST(model_marks_bound_the_wave)
{
  /* arrives at 3: cpu 3-8, wave_start 8, cpu 8-18, wave_end 18, cpu 18-23 */
  static const char json[] = MODEL(
      CLASS_AT("marked", CPU(5, 1) ", " MARK("wave_start") ", " CPU(10, 1) ", " MARK("wave_end") ", " CPU(5, 1), 3) ", "
      CLASS_AT("plain", CPU(5, 1), 3));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->arrive, MS(3));
  ck_assert_int_eq(st(&r.w, 0)->wave_start, MS(8));
  ck_assert_int_eq(st(&r.w, 0)->wave_end, MS(18));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(23));
  /* without marks the wave runs from arrival to done */
  ck_assert_int_eq(st(&r.w, 1)->wave_start, MS(3));
  ck_assert_int_eq(st(&r.w, 1)->wave_end, MS(8));
  run_finish(&r);
}
END_TEST

/* Done time of actor 0 of n actors of 20 ms CPU, each on its own worker,
 * with the CPU price 1 at n = 1 rising linearly to 2 at n = 3 (priced by the
 * sweep's n). */
static ts_time scaled_done(int n)
{
  static const char json[] =
      MODEL_WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [1, 3], \"scale\": [1, 2], \"by\": \"n\"}}, ",
                 CLASS_N("job", CPU(20, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, n, n), TS_WORLD_OK);
  ck_assert_uint_eq(r.m.nscale, 2);
  ck_assert_int_eq(r.m.scale_by_worker, 0);
  ts_time done = st(&r.w, 0)->done;
  run_finish(&r);
  return done;
}

START_TEST(model_cpu_scale_by_n_prices_cpu)
{
  ck_assert_int_eq(scaled_done(1), MS(20));
  ck_assert_int_eq(scaled_done(2), MS(30));
  ck_assert_int_eq(scaled_done(3), MS(40));
  ck_assert_int_eq(scaled_done(5), MS(40)); /* flat beyond the table */
}
END_TEST

START_TEST(model_horizon_bounds_simulated_time)
{
  /* an hour of CPU per actor on one worker: 10^5 actors fit in 2^61 ns, 10^6 do not */
  static const char json[] = MODEL(CLASS_N("job", CPU(3600000, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, 100000, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 99999)->done, 100000 * MS(3600000));
  ts_world_finish(&r.w);
  ck_assert_int_eq(run_observed(&r, 1000000, 1, NULL), TS_WORLD_HORIZON);
  ck_assert_int_le(r.w.sim.now, TS_HORIZON_MAX);
  run_finish(&r);
}
END_TEST

START_TEST(model_empty_world_finishes)
{
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS_N("job", ONE_MS)), 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(r.w.nactors, 0);
  ck_assert_int_eq(r.w.sim.now, 0);
  run_finish(&r);
}
END_TEST

/* A state's column is made when an actor first leaves that state; only the
 * entries of the actors made so far are cleared then, and an actor made
 * later clears its own. With malloc perturbed (fresh memory is not 0), every
 * actor still reads 0 in a state it never entered and exactly its own time
 * in the one it did: "a" waits 5 ms of I/O from 0 (the I/O column is made
 * at 5 ms), and "b" arrives every 10 ms from 0 (b0 before the column, b1
 * and b2 after it) and only runs 1 ms of CPU. */
START_TEST(model_state_column_entries_start_at_zero)
{
#ifdef M_PERTURB
  mallopt(M_PERTURB, 0x5a);
#endif
  static const char json[] =
      "{\"name\": \"test\", \"classes\": [" CLASS("a", 1, IO(5)) ", "
      "{\"name\": \"b\", \"count\": \"forever\", \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 10}, "
      "\"program\": [" CPU(1, 1) "]}]}";
  run r;
  tu_model(json, &r.m);
  ts_world_spec spec = tu_world_spec(1, 1, 1);
  spec.horizon = MS(25);
  ck_assert_msg(ts_world_init(&r.w, &r.m, &spec, NULL) == 0, "%s", r.w.errmsg);
  ts_world_run(&r.w);
#ifdef M_PERTURB
  mallopt(M_PERTURB, 0);
#endif
  ck_assert_int_eq(r.w.nactors, 4);
  ck_assert_int_eq(ts_world_state_time(&r.w, 0, TS_ACTOR_IO), MS(5));
  for (int id = 1; id < 4; id++) {
    ck_assert_int_eq(ts_world_state_time(&r.w, id, TS_ACTOR_IO), 0);
    ck_assert_int_eq(st(&r.w, id)->state[TS_ACTOR_IO], 0);
    ck_assert_int_eq(st(&r.w, id)->state[TS_ACTOR_RUNNING], MS(1));
  }
  run_finish(&r);
}
END_TEST

/* should_stop for the test below: counts its calls, says stop at the
 * stop_at-th (0: never). */
typedef struct stop_count {
  int calls, stop_at;
} stop_count;

static int stop_when_counted(void *data)
{
  stop_count *c = data;
  return ++c->calls == c->stop_at;
}

/* A run with a should_stop asks it every TS_WORLD_POLL_EVENTS events and
 * stops there when it says so (an interrupt inside a long replication);
 * one that never says stop runs the same events as a run without it. */
START_TEST(model_should_stop_is_asked_between_pieces)
{
  static const char json[] = "{\"name\": \"test\", \"classes\": [" CLASS("a", 200000, CPU(1, 1)) "]}";
  ts_model m;
  tu_model(json, &m);
  uint64_t steps[4];
  int status[4];
  stop_count count[4] = {{0, 0}, {0, 0}, {0, 2}, {0, 1}};
  for (int k = 0; k < 4; k++) {
    ts_world w;
    ts_world_spec spec = tu_world_spec(1, 1, 1);
    if (k > 0) {
      spec.should_stop = stop_when_counted;
      spec.stop_data = &count[k];
    }
    if (k == 3) /* stopped inside the window's part of the run */
      spec.win_t1 = MS(150000);
    ck_assert_msg(ts_world_init(&w, &m, &spec, NULL) == 0, "%s", w.errmsg);
    status[k] = ts_world_run(&w);
    steps[k] = w.sim.steps;
    ts_world_finish(&w);
  }
  ck_assert_int_eq(status[0], TS_WORLD_OK);
  ck_assert_uint_gt(steps[0], 4 * TS_WORLD_POLL_EVENTS);
  ck_assert_int_eq(status[1], TS_WORLD_OK);
  ck_assert_uint_eq(steps[1], steps[0]);
  ck_assert_int_eq(count[1].calls, (int)(steps[0] / TS_WORLD_POLL_EVENTS));
  ck_assert_int_eq(status[2], TS_WORLD_STOPPED);
  ck_assert_uint_eq(steps[2], 2 * TS_WORLD_POLL_EVENTS);
  ck_assert_int_eq(status[3], TS_WORLD_STOPPED);
  ck_assert_uint_eq(steps[3], TS_WORLD_POLL_EVENTS);
  ts_model_finish(&m);
}
END_TEST

/* The unreached-workers note (ts_model_reach_note, src/model/reach_note.c)
 * on the ways into a pool a wa-sqlite run does not take: a fixed placement
 * (worker 0) and a server's constant worker (1) leave 9 of 11 workers idle,
 * the first 8 named and the count said; a server's worker that varies
 * reaches them all, so no note. */
START_TEST(model_reach_note_counts_placements_and_servers)
{
  static const char *const fmt =
      "{\"pools\": [{\"name\": \"p\", \"count\": 11}], \"servers\": [{\"name\": \"s\", \"pool\": \"p\", "
      "\"worker\": %s, \"concurrency\": 1}], \"classes\": [{\"name\": \"a\", \"count\": 1, \"placement\": "
      "{\"pool\": \"p\", \"worker\": 0}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}, {\"name\": \"b\", \"count\": 1, "
      "\"program\": [{\"op\": \"call\", \"server\": \"s\", \"handler\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  char json[1024], note[600];
  ts_model m;
  snprintf(json, sizeof json, fmt, "1");
  tu_model(json, &m);
  ck_assert_int_eq(ts_model_reach_note(&m, note, sizeof note), 1);
  ck_assert_msg(strstr(note, "pools[0] (\"p\") has 11 workers, but every placement, hop and server into it names a "
                             "constant worker, so its workers 2, 3, 4, 5, 6, 7, 8, 9, ... (9 in all) never run "
                             "anything") == note,
                "%s", note);
  ts_model_finish(&m);
  snprintf(json, sizeof json, fmt, "\"i % 11\"");
  tu_model(json, &m);
  ck_assert_int_eq(ts_model_reach_note(&m, note, sizeof note), 0);
  ts_model_finish(&m);
}
END_TEST

Suite *model_suite(void)
{
  Suite *s = suite_create("model");
  const TTest *const core[] = {model_xxh32_published_vectors,
                               model_dispatch_round_robin_is_i_mod_w,
                               model_dispatch_least_loaded_lowest_index_on_ties,
                               model_dispatch_hash_is_xxh32_of_task_slash_group,
                               model_dispatch_per_replication_ids_share_a_worker_about_1_in_w,
                               model_dispatch_find_by_name,
                               model_lock_shared_fifo_handover,
                               model_lock_per_actor_never_contends,
                               model_lock_shared_serializes_one_worker,
                               model_lock_released_at_the_end_hands_over,
                               model_threshold_plain_io_keeps_threshold,
                               model_threshold_priority_io_quarters_threshold,
                               model_threshold_priority_min_applies,
                               model_threshold_priority_io_on_other_worker_no_effect,
                               model_priority_yield_timer_waits_a_timers_phase,
                               model_yield_overhead_is_loop_cpu_not_timer_cpu,
                               model_loop_overhead_once_per_busy_iteration,
                               model_loop_overhead_paid_before_the_poll_snapshot,
                               model_yield_step_rejoins_tail,
                               model_slices_count_run_periods_not_steps,
                               model_processor_sharing_slows_when_cores_are_short,
                               model_processor_sharing_replans_when_a_worker_idles,
                               model_processor_sharing_slices_by_wall_time,
                               model_priority_policy_lets_foreground_bypass,
                               model_io_callback_waits_for_running_slice,
                               model_marks_bound_the_wave,
                               model_cpu_scale_by_n_prices_cpu,
                               model_reach_note_counts_placements_and_servers,
                               NULL};
  const TTest *const limits[] = {model_empty_world_finishes,
                                 model_processor_sharing_replan_checks_the_lap_at_a_row_end,
                                 model_processor_sharing_no_second_check_of_a_checked_row,
                                 model_horizon_bounds_simulated_time, model_state_column_entries_start_at_zero,
                                 model_should_stop_is_asked_between_pieces, NULL};
  const TTest *const errors[] = {model_lock_cycle_deadlocks, model_broken_invariant_stops_the_run, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  tu_tcase(s, "limits", limits, NULL, NULL, 60); /* a world of 10^6 actors */
  tu_tcase(s, "errors", errors, NULL, NULL, 0);
  return s;
}
