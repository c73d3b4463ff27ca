/* The world's shortcuts (ts_world.slow_paths) in an open system's job
 * lifecycle give exactly what the general paths give (issue 22, the M/M/1
 * row): classes on one worker placed at once, an arrival's chunk and
 * worker, the one-lane arrival and its Poisson gaps, the stream seed from
 * the class key, an actor's set-up, the stats record written field by
 * field, an arrival's wake of its idle worker and the event loop's next
 * callback in one pass. Most runs are lazy (a done callback) and compared
 * with the same runs without the shortcuts actor by actor, each record as
 * it was handed over. What the ops do (segments, mutexes, lets) is
 * test_shortcuts_ops.c's. (No timing here: scripts/bench measures speed.) */

#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "engine/rng.h"
#include "model/internal.h"

#include "testutil.h"

static int count_done(void *ctx, const ts_world *w, const ts_actor *a)
{
  (void)w, (void)a;
  ++*(int *)ctx;
  return 0;
}

/* A lazy world (a done callback) places a class on a pool of one worker, its
 * arrivals generated as they happen, all at once at init (world.c
 * init_actors) instead of actor by actor: the same worker loads and main
 * placements, and the same run, as the same classes placed actor by actor
 * (a fixed placement on worker 0, which init_actors places one by one). Two
 * classes, the main one and another, on the main pool and on a second. */
START_TEST(speed_classes_on_one_worker_are_placed_at_once)
{
  static const char *const fmt =
    "{\"pools\": [{\"name\": \"aux\", \"count\": 1}],"
    " \"classes\": [{\"name\": \"job\", \"count\": 700, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 500}%s,"
    "   \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]},"
    "  {\"name\": \"side\", \"count\": 300, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 200}, \"placement\": {\"pool\": \"aux\"%s},"
    "   \"program\": [{\"op\": \"cpu\", \"ms\": 2, \"dist\": \"exponential\"}]}]}";
  char ja[1200], jb[1200];
  snprintf(ja, sizeof ja, fmt, "", "");
  snprintf(jb, sizeof jb, fmt, ", \"placement\": {\"rule\": \"fixed\", \"worker\": 0}",
           ", \"rule\": \"fixed\", \"worker\": 0");
  ts_model ma, mb;
  tu_model(ja, &ma);
  tu_model(jb, &mb);
  int done_a = 0, done_b = 0;
  ts_world a, b;
  ts_world_spec sa = tu_world_spec(1, 1, 5), sb = sa;
  sa.done = count_done;
  sa.done_ctx = &done_a;
  sb.done = count_done;
  sb.done_ctx = &done_b;
  ck_assert_int_eq(ts_world_init(&a, &ma, &sa, NULL), 0);
  ck_assert_int_eq(ts_world_init(&b, &mb, &sb, NULL), 0);
  ck_assert(a.lazy && b.lazy);
  ck_assert_int_eq(a.nworkers, 2);
  ck_assert_int_eq(b.nworkers, 2);
  ck_assert_int_eq(a.placed_main, b.placed_main);
  ck_assert_int_gt(a.placed_main, 0);
  for (int i = 0; i < a.nworkers; i++)
    ck_assert_msg(a.workers[i].load == b.workers[i].load, "worker %d: load %d, placed one by one %d", i,
                  a.workers[i].load, b.workers[i].load);
  ck_assert_int_eq(ts_world_run(&a), TS_WORLD_OK);
  ck_assert_int_eq(ts_world_run(&b), TS_WORLD_OK);
  ck_assert_int_eq(done_a, 1000);
  ck_assert_int_eq(done_b, 1000);
  ck_assert_uint_eq(a.sim.steps, b.sim.steps);
  ck_assert_int_eq(a.sim.now, b.sim.now);
  for (int i = 0; i < a.nworkers; i++)
    ck_assert_int_eq(a.workers[i].busy, b.workers[i].busy);
  ts_world_finish(&a);
  ts_world_finish(&b);
  ts_model_finish(&ma);
  ts_model_finish(&mb);
}
END_TEST

/* Each done actor's record, by id (a lazy world's done callback). */
typedef struct records {
  ts_actor_stats v[12000];
  int n;
} records;

static int keep_record(void *ctx, const ts_world *w, const ts_actor *a)
{
  records *r = ctx;
  ck_assert_int_lt(a->id, 12000);
  ts_world_stats_into(w, a->id, &r->v[a->id]);
  r->n++;
  return 0;
}

/* Lazy runs (a done callback) of model json at n and workers, with the
 * shortcuts and without (slow_paths): the same events, end, worker times
 * and every actor's record as it was handed over. Returns the actors done. */
static int lazy_same_without_shortcuts(const char *json, int n, int workers)
{
  ts_model m;
  tu_model(json, &m);
  static records ra, rb;
  memset(&ra, 0, sizeof ra);
  memset(&rb, 0, sizeof rb);
  ts_world a, b;
  ts_world_spec sa = tu_world_spec(n, workers, 13), sb = sa;
  sa.done = keep_record;
  sa.done_ctx = &ra;
  sb.done = keep_record;
  sb.done_ctx = &rb;
  ck_assert_int_eq(ts_world_init(&a, &m, &sa, NULL), 0);
  ck_assert_int_eq(ts_world_init(&b, &m, &sb, NULL), 0);
  ck_assert(a.lazy && b.lazy);
  b.slow_paths = 1;
  ck_assert_int_eq(ts_world_run(&a), TS_WORLD_OK);
  ck_assert_int_eq(ts_world_run(&b), TS_WORLD_OK);
  ck_assert_uint_eq(a.sim.steps, b.sim.steps);
  ck_assert_int_eq(a.sim.now, b.sim.now);
  ck_assert_int_eq(ra.n, rb.n);
  for (int id = 0; id < 12000; id++)
    ck_assert_msg(memcmp(&ra.v[id], &rb.v[id], sizeof ra.v[id]) == 0, "actor %d: worker %d vs %d, done %lld vs %lld",
                  id, ra.v[id].worker, rb.v[id].worker, (long long)ra.v[id].done, (long long)rb.v[id].done);
  for (int i = 0; i < a.nworkers; i++)
    ck_assert_msg(a.workers[i].busy == b.workers[i].busy && a.workers[i].load == b.workers[i].load,
                  "worker %d: busy %lld vs %lld", i, (long long)a.workers[i].busy, (long long)b.workers[i].busy);
  int done = ra.n;
  ts_world_finish(&a);
  ts_world_finish(&b);
  ts_model_finish(&m);
  return done;
}

/* An arrival finds its chunk without ts__chunk once it is made, and a
 * chunk's actors of a class on one worker are placed without place
 * (actor.c ts__on_arrive, world.c ts__world_make_fixed, which sets no
 * state-column entry: a new chunk has no column yet): the same runs as with
 * each asked (and each entry set). Three classes over three chunks: an M/M/1 job on the main pool's
 * one worker, a side class on a pool of two (placed actor by actor), and
 * one with a fixed placement on the main pool. */
START_TEST(speed_arrivals_find_their_chunk_and_worker_as_asked)
{
  static const char json[] =
    "{\"pools\": [{\"name\": \"aux\", \"count\": 2}],"
    " \"classes\": [{\"name\": \"job\", \"count\": 6000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 500},"
    "   \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]},"
    "  {\"name\": \"side\", \"count\": 3000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 300},"
    "   \"placement\": {\"pool\": \"aux\"}, \"program\": [{\"op\": \"cpu\", \"ms\": 2, \"dist\": \"exponential\"}]},"
    "  {\"name\": \"pinned\", \"count\": 2500, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 200},"
    "   \"placement\": {\"rule\": \"fixed\", \"worker\": 0}, \"program\": [{\"op\": \"cpu\", \"ms\": 0.2}]}]}";
  ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, 1), 11500);
}
END_TEST

/* ts_world_stats_into writes every byte of the record (no memset of the
 * whole: world.c): into a record of 0x00 bytes and one of 0xa5 bytes, the
 * same bytes, for actors with an extension (marks, a lock) and without,
 * done and not yet arrived. */
START_TEST(speed_stats_record_is_written_whole)
{
  ts_model m;
  tu_model("{\"locks\": [{\"name\": \"l\", \"scope\": \"shared\"}], \"classes\": ["
           " {\"name\": \"job\", \"count\": 20, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 500},"
           "  \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]},"
           " {\"name\": \"locker\", \"count\": 20, \"program\": [{\"op\": \"mark\", \"name\": \"wave_start\"},"
           "  {\"op\": \"lock\", \"lock\": \"l\"}, {\"op\": \"io\", \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"l\"}]}]}",
           &m);
  ts_world w;
  ts_world_spec sp = tu_world_spec(1, 1, 3);
  sp.horizon = (ts_time)15 * 1000000; /* (some not done, some not arrived) */
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  int with_ext = 0;
  for (int id = 0; id < w.nactors; id++) {
    ts_actor_stats x, y;
    memset(&x, 0, sizeof x);
    memset(&y, 0xa5, sizeof y);
    ts_world_stats_into(&w, id, &x);
    ts_world_stats_into(&w, id, &y);
    ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "actor %d: a byte not written", id);
    with_ext += ts_world_actor(&w, id)->x != NULL;
  }
  ck_assert_int_gt(with_ext, 0);
  ck_assert_int_lt(with_ext, w.nactors);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* An actor's stream seed from its class's key (ts_rng_stream_key, found
 * once per class by the world) is ts_rng_derive_stream's, and that is the
 * derivation every recorded output was made with: its values at 91f506f
 * (replication seeds, classes, indexes with -1, spawn ordinals). */
START_TEST(speed_stream_seed_from_the_class_key_is_the_derivation)
{
  static const struct {
    uint64_t seed;
    int klass, index, k;
    uint64_t want;
  } v[] = {
      {UINT64_C(1), 0, 0, 0, UINT64_C(0xc0dae9284ff67d2d)},
      {UINT64_C(1), 0, 0, 2, UINT64_C(0x5ed6215206ec5374)},
      {UINT64_C(1), 0, 77, 0, UINT64_C(0xdbc74ce170a0db85)},
      {UINT64_C(1), 0, 77, 2, UINT64_C(0x917e65eda40c3525)},
      {UINT64_C(1), 0, -1, 0, UINT64_C(0x959eff517779fa90)},
      {UINT64_C(1), 0, -1, 2, UINT64_C(0x6b264b2a50934282)},
      {UINT64_C(1), 3, 0, 0, UINT64_C(0x16454f1483ba6fc3)},
      {UINT64_C(1), 3, 0, 2, UINT64_C(0xb79cf398e8474c08)},
      {UINT64_C(1), 3, 77, 0, UINT64_C(0x163c158a0da073bd)},
      {UINT64_C(1), 3, 77, 2, UINT64_C(0xe9dd3dc585714c26)},
      {UINT64_C(1), 3, -1, 0, UINT64_C(0x3a2518be9aac612f)},
      {UINT64_C(1), 3, -1, 2, UINT64_C(0xbcc657b34040dbc0)},
      {UINT64_C(11400714819323198485), 0, 0, 0, UINT64_C(0x5944266f12486c2e)},
      {UINT64_C(11400714819323198485), 0, 0, 2, UINT64_C(0x4b85481d346d80fe)},
      {UINT64_C(11400714819323198485), 0, 77, 0, UINT64_C(0x2b490fa9b1941de6)},
      {UINT64_C(11400714819323198485), 0, 77, 2, UINT64_C(0x421ebf8b832a06f0)},
      {UINT64_C(11400714819323198485), 0, -1, 0, UINT64_C(0x67f183f860cba8b9)},
      {UINT64_C(11400714819323198485), 0, -1, 2, UINT64_C(0x916ce9bc36d1566d)},
      {UINT64_C(11400714819323198485), 3, 0, 0, UINT64_C(0x9cb6782366b20675)},
      {UINT64_C(11400714819323198485), 3, 0, 2, UINT64_C(0x65daa1ce05536ec8)},
      {UINT64_C(11400714819323198485), 3, 77, 0, UINT64_C(0xdc4cb8785aa95fb2)},
      {UINT64_C(11400714819323198485), 3, 77, 2, UINT64_C(0x6f2efcd95ddb5acb)},
      {UINT64_C(11400714819323198485), 3, -1, 0, UINT64_C(0x15f05cc69b160922)},
      {UINT64_C(11400714819323198485), 3, -1, 2, UINT64_C(0x1225e755f56b4199)},
      {UINT64_C(123456789), 0, 0, 0, UINT64_C(0x0771a127a224f8d2)},
      {UINT64_C(123456789), 0, 0, 2, UINT64_C(0x1150207eec6d67ec)},
      {UINT64_C(123456789), 0, 77, 0, UINT64_C(0xa193c2b79e6dca93)},
      {UINT64_C(123456789), 0, 77, 2, UINT64_C(0xe816cf90780a58f2)},
      {UINT64_C(123456789), 0, -1, 0, UINT64_C(0xad1b311c39b5cdf1)},
      {UINT64_C(123456789), 0, -1, 2, UINT64_C(0xd6db8b7c74151bfe)},
      {UINT64_C(123456789), 3, 0, 0, UINT64_C(0x32fd3e7285f2c67c)},
      {UINT64_C(123456789), 3, 0, 2, UINT64_C(0xea1438e0357df1b8)},
      {UINT64_C(123456789), 3, 77, 0, UINT64_C(0xc28d4e5d37748f4e)},
      {UINT64_C(123456789), 3, 77, 2, UINT64_C(0xe3610f10c556b872)},
      {UINT64_C(123456789), 3, -1, 0, UINT64_C(0x98b998dcba545fb7)},
      {UINT64_C(123456789), 3, -1, 2, UINT64_C(0x70ef53d2c8c4add1)},
  };
  for (size_t t = 0; t < sizeof v / sizeof *v; t++) {
    ck_assert_msg(ts_rng_derive_stream(v[t].seed, v[t].klass, v[t].index, v[t].k) == v[t].want, "derivation %zu", t);
    ck_assert_msg(ts_rng_stream_seed(ts_rng_stream_key(v[t].seed, v[t].klass), v[t].index, v[t].k) == v[t].want,
                  "from the key, %zu", t);
  }
}
END_TEST

/* An open system of one generated class (an M/M/1) takes its next arrival
 * from its one lane (arrive.c ts__lane_next_one, the lane's generator that
 * world.c picks for it, without the search over the lanes of
 * ts__lane_next), and its Poisson gaps are llround's without the call (poisson_gap):
 * the same runs as the search over the lanes (slow_paths), and the same
 * arrival times as llround of the same draws. */
START_TEST(speed_one_lane_is_the_search_over_lanes)
{
  static const char json[] =
    "{\"classes\": [{\"name\": \"job\", \"count\": 9000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 700},"
    "   \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}";
  ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, 1), 9000);
  ts_model m;
  tu_model(json, &m);
  ts_world w;
  ts_world_spec sp = tu_world_spec(1, 1, 13);
  sp.done = count_done;
  int done = 0;
  sp.done_ctx = &done;
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(w.nlane, 1);
  ck_assert(w.sim.lane_next == ts__lane_next_one);
  ts_rng *r = ts_rng_clone(w.rng); /* (the class's draws are a copy of the world's stream) */
  ts_time at = 0, t;
  int32_t obj;
  for (int i = 0; i < 9000; i++) {
    at += (ts_time)llround(ts_rng_exponential(r, 1e9 / 700));
    ck_assert_int_eq(i == 0 ? w.sim.lane_ev.time : (ts__lane_next_one(&w, &t, &obj), t), at);
  }
  ck_assert_int_eq(ts__lane_next_one(&w, &t, &obj), 0);
  ts_rng_destroy(r);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* An arrival that finds its worker idle runs the worker's WAKE in its own
 * frame when that WAKE would be the next event (actor.c ts__on_arrive,
 * engine/sim.h ts_sim_now_in_place: counted as an event), and an event loop
 * with nothing but ready callbacks takes the next of them in one pass
 * (worker.c poll_next): the same runs as with the WAKE scheduled and the
 * loop's phases stepped one by one (slow_paths). An M/M/1 on an event loop
 * and on a thread, and an event loop shared with a class whose batches of
 * two arrive at one instant (the second arrival's WAKE is not next) and
 * which sleeps (timers) and yields (the time-slice queue). */
START_TEST(speed_arrival_wakes_and_polls_are_the_general_path)
{
  static const char fmt[] =
    "{%s\"classes\": [{\"name\": \"job\", \"count\": 4000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 600},"
    " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}%s]}";
  static const char tick[] =
    ", {\"name\": \"tick\", \"count\": 3000, \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 4.5, \"batch\": 2},"
    " \"program\": [{\"op\": \"cpu\", \"ms\": 0.3}, {\"op\": \"sleep\", \"ms\": 0.5}, {\"op\": \"yield\"},"
    " {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"}]}";
  char json[1200];
  snprintf(json, sizeof json, fmt, "", "");
  ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, 1), 4000);
  snprintf(json, sizeof json, fmt, "\"worker\": {\"kind\": \"thread\"}, ", "");
  ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, 1), 4000);
  snprintf(json, sizeof json, fmt, "", tick);
  ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, 1), 7000);
}
END_TEST

/* An actor's set-up (ts__actor_init_fields: zeroed 16 bytes at a time, not
 * by memset) leaves the same bytes over memory of any content (a chunk
 * reused after its actors were all done: ts__chunk's spare), as memset and
 * its fields did; and M/M/1 runs over many chunks, each made in the last
 * one's memory, are the runs whose chunks are each new (slow_paths). */
START_TEST(speed_actor_set_up_zeroes_every_byte)
{
  static const char json[] =
    "{\"classes\": [{\"name\": \"job\", \"count\": 11000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 900},"
    " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}, {\"op\": \"io\", \"ms\": 0.5}]}]}";
  ts_model m;
  tu_model(json, &m);
  ts_world w;
  ts_world_spec sp = tu_world_spec(1, 1, 3);
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  static ts_actor a[2], b;
  memset(&a[0], 0x00, sizeof a[0]);
  memset(&a[1], 0xa5, sizeof a[1]);
  for (int k = 0; k < 2; k++)
    ts__actor_init_fields(&w, &a[k], 4099, 0, 4099, 0, 1);
  memset(&b, 0, sizeof b);
  b.id = 4099;
  b.klass = 0;
  b.index = 4099;
  b.worker = b.home = 0;
  b.hidden = 1;
  b.sched_class = (uint8_t)m.classes[0].sched_class;
  b.state = TS_ACTOR_NEW;
  b.st.done = -1;
  ck_assert(memcmp(&a[0], &b, sizeof b) == 0);
  ck_assert(memcmp(&a[1], &b, sizeof b) == 0);
  ts_world_finish(&w);
  ts_model_finish(&m);
  ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, 1), 11000);
}
END_TEST

/* An rr_able event loop with no timer and no microtask takes its next ready
 * callback (or parks) in one pass, from its poll phase, the poll phase's
 * end or an iteration's start (worker.c next_rr): the same runs as the
 * loop's phases stepped one by one (slow_paths). Jobs that return by an I/O
 * callback (a callback made ready while the loop is idle: an iteration's
 * start) and notify a microtask channel, and batches of two that wait on it
 * (microtasks), yield (the time-slice queue) and sleep (timers), so that
 * each case of the pass and each case it leaves to the loop occurs; on one
 * worker and on two, at two loads. */
START_TEST(speed_next_callback_in_one_pass_is_the_loop_stepped)
{
  static const char fmt[] =
    "{\"channels\": [{\"name\": \"c\", \"scope\": \"shared\", \"tokens\": true, \"resume\": \"microtask\"}],"
    " \"classes\": [{\"name\": \"job\", \"count\": 3000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": %d},"
    " \"program\": [{\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"},"
    " {\"op\": \"io\", \"ms\": 0.4, \"dist\": \"exponential\"}, {\"op\": \"notify\", \"channel\": \"c\"},"
    " {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"}]},"
    " {\"name\": \"tick\", \"count\": 1400, \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 3.1, \"batch\": 2},"
    " \"program\": [{\"op\": \"wait\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": 0.3}, {\"op\": \"yield\"},"
    " {\"op\": \"sleep\", \"ms\": 0.5}, {\"op\": \"cpu\", \"ms\": 0.2, \"dist\": \"exponential\"}]}]}";
  static const int rates[] = {400, 900};
  char json[1400];
  for (int r = 0; r < 2; r++) {
    snprintf(json, sizeof json, fmt, rates[r]);
    for (int workers = 1; workers <= 2; workers++)
      ck_assert_int_eq(lazy_same_without_shortcuts(json, 1, workers), 4400);
  }
}
END_TEST

Suite *shortcuts_lifecycle_suite(void)
{
  Suite *s = suite_create("shortcuts_lifecycle");
  const TTest *const exact[] = {speed_classes_on_one_worker_are_placed_at_once,
                                speed_arrivals_find_their_chunk_and_worker_as_asked,
                                speed_stats_record_is_written_whole,
                                speed_stream_seed_from_the_class_key_is_the_derivation,
                                speed_one_lane_is_the_search_over_lanes,
                                speed_arrival_wakes_and_polls_are_the_general_path,
                                speed_actor_set_up_zeroes_every_byte,
                                speed_next_callback_in_one_pass_is_the_loop_stepped,
                                NULL};
  tu_tcase(s, "exact", exact, NULL, NULL, 0);
  return s;
}
