/* Model: xxHash32, dispatch, and worlds built from ts_model structs in C,
 * with every expected time worked out by hand in the comments. Times are in
 * ms unless said otherwise; "A 0-10" means A runs from 0 to 10 ms. */
#include <check.h>
#include <stdio.h>
#include <string.h>

#include "model/dispatch.h"
#include "model/world.h"
#include "model/xxhash32.h"

#include "testutil.h"

#define LEN(a) (sizeof(a) / sizeof *(a))
#define MS(x) ((ts_time)(x) * TS_NS_PER_MS)

#define CPU(ms, r) {.op = TS_STEP_CPU, .label = "cpu", .cost = {.mean = MS(ms)}, .rows = (r)}
#define SLICED(ms, r) {.op = TS_STEP_CPU, .label = "work", .cost = {.mean = MS(ms)}, .rows = (r), .sliced = 1, .timed = 1}
#define IO(ms) {.op = TS_STEP_IO, .label = "io", .cost = {.mean = MS(ms)}, .rows = 1}
#define PRIO_IO(ms) {.op = TS_STEP_IO, .label = "prio", .cost = {.mean = MS(ms)}, .rows = 1, .priority = 1}
#define LOCK(d) {.op = TS_STEP_LOCK, .label = "lock", .rows = 1, .lock = (d)}
#define UNLOCK(d) {.op = TS_STEP_UNLOCK, .label = "unlock", .rows = 1, .lock = (d)}
#define YIELD {.op = TS_STEP_YIELD, .label = "yield", .rows = 1}
#define MARK(m) {.op = TS_STEP_MARK, .label = "mark", .rows = 1, .mark = (m)}
#define CLASS(nm, cnt, prog) {.name = (nm), .count = (cnt), .sched_class = TS_CLASS_NORMAL, .steps = (prog), .nsteps = LEN(prog)}
#define CLASS_AT(nm, prog, start_ms) {.name = (nm), .count = 1, .steps = (prog), .nsteps = LEN(prog), .arrival_start = MS(start_ms)}

/* The loader's defaults (fifo, 10 ms threshold, /4 but >= 2 ms while a
 * priority op is in flight, no overheads, one core per worker), but round
 * robin dispatch instead of hash. */
static ts_model model_of(ts_class *classes, size_t nclasses)
{
  return (ts_model){.name = "test", .policy = &ts_sched_fifo, .threshold = MS(10), .priority_divisor = 4,
                    .priority_min = MS(2), .burst_limit = 8, .dispatch = TS_DISPATCH_ROUND_ROBIN,
                    .task_id = "task", .group_prefix = "cg", .classes = classes, .nclasses = nclasses};
}

/* Build and run a world (seed 1); the caller checks the status and finishes it. */
static int run_world(ts_world *w, const ts_model *m, int n, int workers)
{
  ck_assert_int_eq(ts_world_init(w, m, n, workers, 1, NULL), 0);
  return ts_world_run(w);
}

static const ts_actor_stats *st(const ts_world *w, int actor)
{
  return &w->actors[actor].st;
}

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

static ts_step one_ms[] = {CPU(1, 1)};

START_TEST(model_dispatch_round_robin_is_i_mod_w)
{
  ts_class k[] = {CLASS("job", TS_COUNT_N, one_ms)};
  ts_model m = model_of(k, 1);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 10, 3), 0);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(st(&w, i)->worker, i % 3);
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_dispatch_least_loaded_lowest_index_on_ties)
{
  ts_class k[] = {CLASS("job", TS_COUNT_N, one_ms)};
  ts_model m = model_of(k, 1);
  m.dispatch = TS_DISPATCH_LEAST_LOADED;
  static const int loads[][4] = {{0, 0, 0, 0}, {2, 1, 1, 3}, {1, 1, 0, 0}, {5, 4, 4, 4}, {3, 3, 3, 2}};
  static const int want[] = {0, 1, 2, 1, 3};
  for (size_t c = 0; c < LEN(want); c++)
    ck_assert_int_eq(ts_dispatch_pick(&m, 99, 4, loads[c]), want[c]);
  /* in a world the load is the placement so far: 0 1 2 0 1 2 0 */
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 7, 3), 0);
  for (int i = 0; i < 7; i++)
    ck_assert_int_eq(st(&w, i)->worker, i % 3);
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_dispatch_hash_is_xxh32_of_task_slash_group)
{
  char id[32], key[64];
  ts_dispatch_group_id("cg", 7, id, sizeof id);
  ck_assert_str_eq(id, "cg7");
  ck_assert_uint_eq(ts_xxh32("task/cg7", 8, 0), 0xB07C6EA2u); /* computed independently */
  ck_assert_int_eq(ts_dispatch_hash("task", "cg7", 4), 0xB07C6EA2u % 4);
  ts_class k[] = {CLASS("job", TS_COUNT_N, one_ms)};
  ts_model m = model_of(k, 1);
  m.dispatch = TS_DISPATCH_HASH;
  /* xxh32("task/cg<i>") % 4 for i = 0..9, computed independently */
  static const int want[] = {0, 1, 3, 0, 2, 3, 2, 2, 3, 3};
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 10, 4), 0);
  for (int i = 0; i < 10; i++) {
    snprintf(key, sizeof key, "task/cg%d", i);
    ck_assert_int_eq(st(&w, i)->worker, (int)(ts_xxh32(key, strlen(key), 0) % 4));
    ck_assert_int_eq(st(&w, i)->worker, want[i]);
  }
  ts_world_finish(&w);
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
static ts_step locked_work[] = {LOCK(0), CPU(10, 1), IO(20), CPU(5, 1), UNLOCK(0)};

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
  ts_class k[] = {CLASS_AT("holder", locked_work, 0), CLASS_AT("second", locked_work, 2),
                  CLASS_AT("first", locked_work, 1)};
  ts_lock_decl locks[] = {{.name = "m", .scope = TS_LOCK_SHARED}};
  ts_model m = model_of(k, 3);
  m.locks = locks;
  m.nlocks = 1;
  handovers h = {0};
  ts_observer obs = {.data = &h, .wake = on_wake};
  ts_world w;
  ck_assert_int_eq(ts_world_init(&w, &m, 0, 3, 1, &obs), 0);
  ck_assert_int_eq(ts_world_run(&w), 0);
  static const ts_time done[] = {35, 105, 70}, wait[] = {0, 68, 34};
  for (int a = 0; a < 3; a++) {
    ck_assert_int_eq(st(&w, a)->done, MS(done[a]));
    ck_assert_int_eq(st(&w, a)->lock_wait, MS(wait[a]));
    ck_assert_int_eq(st(&w, a)->lock_work, MS(35)); /* includes the 20 ms io */
    ck_assert_int_eq(st(&w, a)->io, MS(20));
    ck_assert_int_eq(st(&w, a)->ready_wait, 0);
  }
  ck_assert_int_eq(h.len, 2);
  ck_assert_int_eq(h.from[0], 0);
  ck_assert_int_eq(h.to[0], 2);
  ck_assert_int_eq(h.at[0], MS(35));
  ck_assert_int_eq(h.from[1], 2);
  ck_assert_int_eq(h.to[1], 1);
  ck_assert_int_eq(h.at[1], MS(70));
  ck_assert_int_eq(w.locks[0].owner, -1);
  ts_world_finish(&w);
}
END_TEST

/* Two actors running locked_work on one worker, with the lock in a scope. */
static void two_on_one_worker(ts_lock_scope scope, ts_world *w)
{
  static ts_class k[] = {CLASS("job", 2, locked_work)};
  static ts_lock_decl locks[] = {{.name = "m"}};
  static ts_model m;
  m = model_of(k, 1);
  locks[0].scope = scope;
  m.locks = locks;
  m.nlocks = 1;
  ck_assert_int_eq(run_world(w, &m, 0, 1), 0);
}

START_TEST(model_lock_per_actor_never_contends)
{
  /* A0 cpu 0-10, io 10-30; A1 cpu 10-20 (its own lock), io 20-40; A0 30-35; A1 40-45 */
  ts_world w;
  two_on_one_worker(TS_LOCK_PER_ACTOR, &w);
  ck_assert_int_eq(w.nlocks, 2);
  ck_assert_int_eq(st(&w, 0)->done, MS(35));
  ck_assert_int_eq(st(&w, 1)->done, MS(45));
  for (int a = 0; a < 2; a++) {
    ck_assert_int_eq(st(&w, a)->lock_wait, 0);
    ck_assert_int_eq(st(&w, a)->lock_work, MS(35));
  }
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_lock_shared_serializes_one_worker)
{
  /* A0 as above, done 35. A1 starts at 10 (ready_wait 10), waits 10-35 for the lock,
   * is handed it at 35 and runs 35-45, io 45-65, 65-70. */
  ts_world w;
  two_on_one_worker(TS_LOCK_SHARED, &w);
  ck_assert_int_eq(w.nlocks, 1);
  ck_assert_int_eq(st(&w, 0)->done, MS(35));
  ck_assert_int_eq(st(&w, 1)->done, MS(70));
  ck_assert_int_eq(st(&w, 1)->lock_wait, MS(25));
  ck_assert_int_eq(st(&w, 1)->ready_wait, MS(10));
  ck_assert_int_eq(st(&w, 1)->lock_work, MS(35));
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_lock_released_when_holder_finishes)
{
  /* the program never unlocks: A0 holds 0-10 and releases at its end; A1 gets it at 10 */
  static ts_step no_unlock[] = {LOCK(0), CPU(10, 1)};
  ts_class k[] = {CLASS("job", 2, no_unlock)};
  ts_lock_decl locks[] = {{.name = "m", .scope = TS_LOCK_SHARED}};
  ts_model m = model_of(k, 1);
  m.locks = locks;
  m.nlocks = 1;
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 2), 0);
  ck_assert_int_eq(st(&w, 0)->done, MS(10));
  ck_assert_int_eq(st(&w, 0)->lock_work, MS(10));
  ck_assert_int_eq(st(&w, 1)->lock_wait, MS(10));
  ck_assert_int_eq(st(&w, 1)->done, MS(20));
  ck_assert_int_eq(st(&w, 1)->lock_work, MS(10));
  ck_assert_int_eq(w.locks[0].owner, -1);
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_lock_cycle_deadlocks)
{
  static ts_step ab[] = {LOCK(0), CPU(10, 1), LOCK(1), UNLOCK(1), UNLOCK(0)};
  static ts_step ba[] = {LOCK(1), CPU(10, 1), LOCK(0), UNLOCK(0), UNLOCK(1)};
  ts_class k[] = {CLASS("ab", 1, ab), CLASS("ba", 1, ba)};
  ts_lock_decl locks[] = {{.name = "a", .scope = TS_LOCK_SHARED}, {.name = "b", .scope = TS_LOCK_SHARED}};
  ts_model m = model_of(k, 2);
  m.locks = locks;
  m.nlocks = 2;
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 2), -2);
  ck_assert_int_eq(w.done, 0);
  ck_assert_int_eq(w.actors[0].state, TS_ACTOR_LOCK_WAIT);
  ck_assert_int_eq(w.actors[1].state, TS_ACTOR_LOCK_WAIT);
  ck_assert_int_eq(w.sim.now, MS(10));
  ts_world_finish(&w);
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
  static ts_step io_prio[] = {PRIO_IO(100)}, io_plain[] = {IO(100)};
  static ts_step work[] = {SLICED(200, 200)};
  ts_class k[] = {CLASS("io", 1, io_plain), CLASS("work", 1, work)};
  if (priority)
    k[0].steps = io_prio;
  ts_model m = model_of(k, 2);
  m.threshold = MS(threshold_ms);
  m.priority_min = MS(min_ms);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, workers), 0);
  prio_result r = {st(&w, 1)->slices, st(&w, 1)->yields, st(&w, 1)->done, st(&w, 0)->ready_wait,
                   st(&w, 0)->done};
  ck_assert_int_eq(st(&w, 1)->timer, MS(200));
  ck_assert_int_eq(st(&w, 0)->io, MS(100));
  for (int i = 0; i < w.nworkers; i++)
    ck_assert_int_eq(w.workers[i].prio_inflight, 0);
  ts_world_finish(&w);
  return r;
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

/* ---- overheads ---- */

/* One actor: 40 ms sliced in 1 ms rows; threshold 9 makes 10 ms slices. */
static void sliced_alone(ts_time yield_overhead, ts_world *w)
{
  static ts_step work[] = {SLICED(40, 40)};
  static ts_class k[] = {CLASS("job", 1, work)};
  static ts_model m;
  m = model_of(k, 1);
  m.threshold = MS(9);
  m.yield_overhead = yield_overhead;
  ck_assert_int_eq(run_world(w, &m, 0, 1), 0);
  ck_assert_int_eq(st(w, 0)->slices, 4);
  ck_assert_int_eq(st(w, 0)->yields, 3);
  ck_assert_int_eq(st(w, 0)->timer, MS(40));
  ck_assert_int_eq(st(w, 0)->cpu, MS(40));
}

START_TEST(model_yield_overhead_is_loop_cpu_not_timer_cpu)
{
  ts_world w;
  sliced_alone(0, &w);
  ck_assert_int_eq(st(&w, 0)->done, MS(40));
  ck_assert_int_eq(st(&w, 0)->queue_wait, 0);
  ck_assert_int_eq(w.workers[0].busy, MS(40));
  ts_world_finish(&w);
  /* three yields, 1 ms of loop CPU each: 0-10, 11-21, 22-32, 33-43 */
  sliced_alone(MS(1), &w);
  ck_assert_int_eq(st(&w, 0)->done, MS(43));
  ck_assert_int_eq(st(&w, 0)->queue_wait, MS(3));
  ck_assert_int_eq(w.workers[0].busy, MS(43));
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_loop_overhead_once_per_busy_iteration)
{
  /* loop 0-1, A io 1-6; idle; callback at 6: loop 6-7, A cpu 7-17 */
  static ts_step prog[] = {IO(5), CPU(10, 1)};
  ts_class k[] = {CLASS("job", 1, prog)};
  ts_model m = model_of(k, 1);
  m.loop_overhead = MS(1);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 1), 0);
  ck_assert_int_eq(st(&w, 0)->done, MS(17));
  ck_assert_int_eq(st(&w, 0)->ready_wait, MS(2));
  ck_assert_int_eq(st(&w, 0)->cpu, MS(10));
  ck_assert_int_eq(w.workers[0].busy, MS(12));
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_yield_step_rejoins_tail)
{
  /* A0 0-5 yields, A1 5-10 yields, A0 10-15, A1 15-20 */
  static ts_step prog[] = {CPU(5, 1), YIELD, CPU(5, 1)};
  ts_class k[] = {CLASS("job", 2, prog)};
  ts_model m = model_of(k, 1);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 1), 0);
  ck_assert_int_eq(st(&w, 0)->done, MS(15));
  ck_assert_int_eq(st(&w, 1)->done, MS(20));
  ck_assert_int_eq(st(&w, 0)->queue_wait, MS(5));
  ck_assert_int_eq(st(&w, 1)->queue_wait, MS(5));
  ck_assert_int_eq(st(&w, 0)->yields, 1);
  ck_assert_int_eq(st(&w, 0)->slices, 0); /* untimed steps count no slices... */
  ck_assert_int_eq(st(&w, 0)->timer, 0);  /* ...and no timer CPU */
  ck_assert_int_eq(st(&w, 0)->cpu, MS(10));
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_slices_count_run_periods_not_steps)
{
  /* two timed 3 ms steps. Threshold 10: one run period, one slice. Threshold 2:
   * no check after a step's last row (lap 3 ms), so the second step's first
   * row (lap 4 > 2) yields: two run periods, two slices */
  static ts_step prog[] = {SLICED(3, 3), SLICED(3, 3)};
  ts_class k[] = {CLASS("job", 1, prog)};
  static const int thresholds[] = {10, 2};
  static const int64_t want_slices[] = {1, 2}, want_yields[] = {0, 1};
  for (int c = 0; c < 2; c++) {
    ts_model m = model_of(k, 1);
    m.threshold = MS(thresholds[c]);
    ts_world w;
    ck_assert_int_eq(run_world(&w, &m, 0, 1), 0);
    ck_assert_int_eq(st(&w, 0)->slices, want_slices[c]);
    ck_assert_int_eq(st(&w, 0)->yields, want_yields[c]);
    ck_assert_int_eq(st(&w, 0)->done, MS(6));
    ts_world_finish(&w);
  }
}
END_TEST

/* ---- processor sharing ---- */

/* Run one class of n actors of `ms` non-sliced CPU on `workers` workers and `cores` cores. */
static void shared_host(int cores, int n, int workers, int ms, int want_done_ms)
{
  ts_step prog[] = {CPU(ms, 1)};
  ts_class k[] = {CLASS("job", TS_COUNT_N, prog)};
  ts_model m = model_of(k, 1);
  m.cores = cores;
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, n, workers), 0);
  for (int a = 0; a < n; a++)
    ck_assert_msg(st(&w, a)->done == MS(want_done_ms), "cores %d, actor %d: done at %lld ns, want %d ms", cores, a,
                  (long long)st(&w, a)->done, want_done_ms);
  ts_world_finish(&w);
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
  static ts_step long_job[] = {CPU(100, 1)}, short_job[] = {CPU(50, 1)};
  ts_class k[] = {CLASS("long", 1, long_job), CLASS("short", 1, short_job)};
  ts_model m = model_of(k, 2);
  m.cores = 1;
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 2), 0);
  ck_assert_int_eq(st(&w, 1)->done, MS(100));
  ck_assert_int_eq(st(&w, 0)->done, MS(150));
  ck_assert_int_eq(st(&w, 0)->cpu, MS(150)); /* cpu is wall time on a CPU */
  ck_assert_int_eq(w.busy, 0);
  ts_world_finish(&w);
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
static void sliced_beside(int rows, int other_ms, ts_world *w, pieces *seen)
{
  static ts_observer obs;
  obs = (ts_observer){.data = seen, .run = on_run};
  ts_step work[] = {SLICED(rows, rows)}, other[] = {CPU(other_ms, 1)};
  ts_class k[] = {CLASS("work", 1, work), CLASS("other", 1, other)};
  ts_model m = model_of(k, 2);
  m.threshold = MS(9);
  m.cores = 1;
  ck_assert_int_eq(ts_world_init(w, &m, 0, 2, 1, &obs), 0);
  ck_assert_int_eq(ts_world_run(w), 0);
}

START_TEST(model_processor_sharing_slices_by_wall_time)
{
  /* at half speed a 1 ms row takes 2 ms: the lap passes 9 ms after 5 rows, so
   * 40 rows are 8 slices of 10 ms while the other worker (40 ms of CPU) is busy */
  pieces seen = {0};
  ts_world w;
  sliced_beside(40, 40, &w, &seen);
  ck_assert_int_eq(st(&w, 0)->slices, 8);
  ck_assert_int_eq(st(&w, 0)->done, MS(80));
  ck_assert_int_eq(st(&w, 1)->done, MS(80));
  ck_assert_int_eq(seen.len, 8);
  ck_assert_int_eq(seen.t1[0], MS(10));
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_processor_sharing_replan_checks_the_lap_at_a_row_end)
{
  /* half speed while the 15 ms job on worker 1 runs (done at 30): slices 0-10,
   * 10-20, 20-30 of 5 rows each. Row 15 ends at 30, when the lap is 10 ms > 9:
   * the actor must yield at 30, whichever of the two events at 30 runs first.
   * Then full speed: 30-40, 40-50, 50-60 (rows 16-45) and 60-61 (row 46). */
  pieces seen = {0};
  ts_world w;
  sliced_beside(46, 15, &w, &seen);
  ck_assert_int_eq(st(&w, 1)->done, MS(30));
  ck_assert_int_eq(st(&w, 0)->done, MS(61));
  ck_assert_int_ge(seen.len, 3);
  ck_assert_msg(seen.t1[2] == MS(30), "third slice ends at %lld ns, want 30 ms", (long long)seen.t1[2]);
  ck_assert_int_eq(st(&w, 0)->slices, 7);
  ck_assert_int_eq(st(&w, 0)->yields, 6);
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_processor_sharing_no_second_check_of_a_checked_row)
{
  /* one core, 3 workers. Workers 0 and 1: 10 ms in 4 rows, threshold 10;
   * at half speed rows end at 5 and 10, where the lap is 10 ms, not over.
   * A 20 ms job arrives on worker 2 one ns later: a third of the core each,
   * and the re-plan lands on row 2's end again. Row 2 was checked at 10, so
   * the slice goes on: row 3 (2.5 ms of work at 1/3 speed) ends near 17.5. */
  pieces seen = {0};
  static ts_observer obs;
  obs = (ts_observer){.data = &seen, .run = on_run};
  ts_step work[] = {SLICED(10, 4)}, late[] = {CPU(20, 1)};
  ts_class k[] = {CLASS("work", 2, work), CLASS_AT("late", late, 10)};
  k[1].arrival_start += 1;
  ts_model m = model_of(k, 2);
  m.cores = 1;
  ts_world w;
  ck_assert_int_eq(ts_world_init(&w, &m, 0, 3, 1, &obs), 0);
  ck_assert_int_eq(ts_world_run(&w), 0);
  ck_assert_int_ge(seen.len, 1);
  ck_assert_msg(seen.t1[0] > MS(17) && seen.t1[0] < MS(18), "first slice ends at %lld ns, want about 17.5 ms",
                (long long)seen.t1[0]);
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_loop_overhead_paid_before_the_poll_snapshot)
{
  /* loop overhead 5: the iteration starting at 0 pays 0-5, then snapshots
   * the ready callbacks: A (arrived at 0) and B (arrived at 2, during the
   * overhead). A 5-15, B 15-25 in the same poll phase. */
  static ts_step job[] = {CPU(10, 1)};
  ts_class k[] = {CLASS_AT("a", job, 0), CLASS_AT("b", job, 2)};
  ts_model m = model_of(k, 2);
  m.loop_overhead = MS(5);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 1), 0);
  ck_assert_int_eq(st(&w, 0)->done, MS(15));
  ck_assert_int_eq(st(&w, 1)->done, MS(25));
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_priority_policy_lets_foreground_bypass)
{
  /* bg0, bg1: 30 ms background each; fg2: 20 ms foreground arriving at 5; 10 ms slices.
   * bg0 0-10, bg1 10-20, bg0 20-30, fg2 30-40 (its arrival callback), then the
   * queue is [bg1, bg0, fg2]: priority runs fg2 40-50 (done), bg1 50-60, bg0 60-70,
   * bg1 70-80; fifo runs bg1 40-50, bg0 50-60, fg2 60-70, bg1 70-80. */
  static ts_step bg[] = {SLICED(30, 30)}, fg[] = {SLICED(20, 20)};
  ts_class k[] = {CLASS("bg", 2, bg), CLASS_AT("fg", fg, 5)};
  k[0].sched_class = TS_CLASS_BACKGROUND;
  k[1].sched_class = TS_CLASS_FOREGROUND;
  static const ts_time want_priority[] = {70, 80, 50}, want_fifo[] = {60, 80, 70};
  for (int policy = 0; policy < 2; policy++) {
    ts_model m = model_of(k, 2);
    m.threshold = MS(9);
    m.policy = policy ? &ts_sched_priority : &ts_sched_fifo;
    ts_world w;
    ck_assert_int_eq(run_world(&w, &m, 0, 1), 0);
    for (int a = 0; a < 3; a++)
      ck_assert_msg(st(&w, a)->done == MS(policy ? want_priority[a] : want_fifo[a]), "%s: actor %d done at %lld ns",
                    m.policy->name, a, (long long)st(&w, a)->done);
    ts_world_finish(&w);
  }
}
END_TEST

/* ---- callbacks and marks ---- */

START_TEST(model_io_callback_waits_for_running_slice)
{
  /* A io 0-5; B cpu 0-20; A's callback is ready at 5 and runs at 20 */
  static ts_step a[] = {IO(5)}, b[] = {CPU(20, 1)};
  ts_class k[] = {CLASS("a", 1, a), CLASS("b", 1, b)};
  ts_model m = model_of(k, 2);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 1), 0);
  ck_assert_int_eq(st(&w, 0)->io, MS(5));
  ck_assert_int_eq(st(&w, 0)->ready_wait, MS(15));
  ck_assert_int_eq(st(&w, 0)->done, MS(20));
  ck_assert_int_eq(st(&w, 1)->ready_wait, 0);
  ts_world_finish(&w);
}
END_TEST

START_TEST(model_marks_bound_the_wave)
{
  /* arrives at 3: cpu 3-8, wave_start 8, cpu 8-18, wave_end 18, cpu 18-23 */
  static ts_step marked[] = {CPU(5, 1), MARK(TS_MARK_WAVE_START), CPU(10, 1), MARK(TS_MARK_WAVE_END), CPU(5, 1)};
  static ts_step plain[] = {CPU(5, 1)};
  ts_class k[] = {CLASS_AT("marked", marked, 3), CLASS_AT("plain", plain, 3)};
  ts_model m = model_of(k, 2);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 2), 0);
  ck_assert_int_eq(st(&w, 0)->arrive, MS(3));
  ck_assert_int_eq(st(&w, 0)->wave_start, MS(8));
  ck_assert_int_eq(st(&w, 0)->wave_end, MS(18));
  ck_assert_int_eq(st(&w, 0)->done, MS(23));
  /* without marks the wave runs from arrival to done */
  ck_assert_int_eq(st(&w, 1)->wave_start, MS(3));
  ck_assert_int_eq(st(&w, 1)->wave_end, MS(8));
  ts_world_finish(&w);
}
END_TEST

/* ---- random durations ---- */

/* Done time of the single actor of an exponential-latency model under seed. */
static ts_time exp_done(unsigned long seed)
{
  ts_step prog[] = {{.op = TS_STEP_IO, .label = "io", .cost = {.kind = TS_DIST_EXPONENTIAL, .mean = MS(10)}, .rows = 1}};
  ts_class k[] = {CLASS("job", 1, prog)};
  ts_model m = model_of(k, 1);
  ts_world w;
  ck_assert_int_eq(ts_world_init(&w, &m, 0, 1, seed, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), 0);
  ts_time done = st(&w, 0)->done;
  ts_world_finish(&w);
  return done;
}

START_TEST(model_random_latency_follows_seed)
{
  ck_assert_int_eq(exp_done(1), exp_done(1));
  ck_assert_int_ne(exp_done(1), exp_done(2));
  ck_assert_int_gt(exp_done(1), 0);
}
END_TEST

START_TEST(model_random_draws_capped_at_1000x_mean)
{
  /* lognormal, cv 10: P(draw > 1000 * mean) is about 9e-6, so 2e6 draws hit the cap */
  ts_step prog[] = {{.op = TS_STEP_IO, .label = "io", .cost = {.kind = TS_DIST_LOGNORMAL, .mean = MS(1), .cv = 10},
                     .rows = 1}};
  ck_assert_int_eq(ts_model_draw_max(&prog[0].cost), MS(1000));
  ts_class k[] = {CLASS("job", TS_COUNT_N, prog)};
  ts_model m = model_of(k, 1);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 1, 1), 0);
  int capped = 0, beyond = 0;
  for (int i = 0; i < 2000000; i++) {
    ts_time d = ts__draw(&w, &prog[0].cost);
    beyond += d > MS(1000);
    capped += d == MS(1000);
  }
  ck_assert_int_eq(beyond, 0);
  ck_assert_int_gt(capped, 0);
  ts_world_finish(&w);
  ts_dist fixed = {.kind = TS_DIST_FIXED, .mean = MS(7)};
  ck_assert_int_eq(ts_model_draw_max(&fixed), MS(7));
}
END_TEST

/* Done time of actor 0 of n actors of 20 ms CPU, each on its own worker,
 * with the CPU price 1 at n = 1 rising linearly to 2 at n = 3. */
static ts_time scaled_done(int n)
{
  static double scale_n[] = {1, 3}, scale_v[] = {1, 2};
  ts_step prog[] = {CPU(20, 1)};
  ts_class k[] = {CLASS("job", TS_COUNT_N, prog)};
  ts_model m = model_of(k, 1);
  m.scale_n = scale_n;
  m.scale_v = scale_v;
  m.nscale = 2;
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, n, n), 0);
  ts_time done = st(&w, 0)->done;
  ts_world_finish(&w);
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
  /* an hour of CPU per actor: 10^5 actors fit in 2^61 ns, 10^6 do not */
  ts_step prog[] = {CPU(3600000, 1)};
  ts_class k[] = {CLASS("job", TS_COUNT_N, prog)};
  ts_model m = model_of(k, 1);
  ck_assert_int_eq(ts_model_horizon_ok(&m, 100000), 1);
  ck_assert_int_eq(ts_model_horizon_ok(&m, 1000000), 0);
}
END_TEST

START_TEST(model_empty_world_finishes)
{
  ts_class k[] = {CLASS("job", TS_COUNT_N, one_ms)};
  ts_model m = model_of(k, 1);
  ts_world w;
  ck_assert_int_eq(run_world(&w, &m, 0, 2), 0);
  ck_assert_int_eq(w.nactors, 0);
  ck_assert_int_eq(w.sim.now, 0);
  ts_world_finish(&w);
}
END_TEST

Suite *model_suite(void)
{
  Suite *s = suite_create("model");
  const TTest *const core[] = {model_xxh32_published_vectors,
                               model_dispatch_round_robin_is_i_mod_w,
                               model_dispatch_least_loaded_lowest_index_on_ties,
                               model_dispatch_hash_is_xxh32_of_task_slash_group,
                               model_dispatch_find_by_name,
                               model_lock_shared_fifo_handover,
                               model_lock_per_actor_never_contends,
                               model_lock_shared_serializes_one_worker,
                               model_lock_released_when_holder_finishes,
                               model_threshold_plain_io_keeps_threshold,
                               model_threshold_priority_io_quarters_threshold,
                               model_threshold_priority_min_applies,
                               model_threshold_priority_io_on_other_worker_no_effect,
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
                               model_random_latency_follows_seed,
                               model_cpu_scale_by_n_prices_cpu,
                               NULL};
  const TTest *const limits[] = {model_empty_world_finishes,
                                 model_processor_sharing_replan_checks_the_lap_at_a_row_end,
                                 model_processor_sharing_no_second_check_of_a_checked_row,
                                 model_random_draws_capped_at_1000x_mean,
                                 model_horizon_bounds_simulated_time,
                                 NULL};
  const TTest *const errors[] = {model_lock_cycle_deadlocks, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  tu_tcase(s, "limits", limits, NULL, NULL, 0);
  tu_tcase(s, "errors", errors, NULL, NULL, 0);
  return s;
}
