/* Contention primitives (model language, part 2): thread workers, channels
 * with fan-out wakeups, blocking mutexes with futex costs, semaphores, hops,
 * calls to servers with priority classes. Every expected time is worked out
 * by hand in the comments; times in ms. */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "model/world.h"
#include "run/metrics.h"
#include "sched/policy.h"

#include "testutil.h"

#define MS(x) ((ts_time)llround((x) * 1e6))

static void load(const char *json, ts_model *m)
{
  cJSON *root = cJSON_Parse(json);
  ck_assert_msg(root != NULL, "bad test JSON: %s", json);
  ts_err e;
  int rc = ts_model_from_json(root, "test.json", m, &e);
  cJSON_Delete(root);
  ck_assert_msg(rc == 0, "%s", e.msg);
}

static int run(ts_world *w, const ts_model *m, int n, int workers)
{
  ts_world_spec spec = {.n = n, .workers = workers, .seed = 1, .horizon = TS_TIME_MAX, .win_t0 = 0,
                        .win_t1 = TS_TIME_MAX};
  ck_assert_int_eq(ts_world_init(w, m, &spec, NULL), 0);
  return ts_world_run(w);
}

/* Actor's measurements (a copy: ts_world_stats; a few live at once). */
static const ts_actor_stats *st(const ts_world *w, int id)
{
  static ts_actor_stats copies[8];
  static unsigned next;
  ts_actor_stats *s = &copies[next++ % 8];
  *s = ts_world_stats(w, id);
  return s;
}

/* ---- mutexes ---- */

#define MUTEX_MODEL(handoff, reps)                                                                               \
  "{\"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"                            \
  "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"" handoff "\","     \
  " \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"spin_ms\": 0.05, \"futex_wait_ms\": 0.02,"                     \
  " \"futex_wake_ms\": 0.03, \"wake_latency_ms\": 0.1}],"                                                        \
  "\"classes\": [{\"name\": \"t\", \"count\": \"n\", \"program\": [{\"op\": \"repeat\", \"count\": " reps ","     \
  " \"steps\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 2}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}]}"

/* Two threads, one task each, both at 0.
 * t0: acquire 0-0.01, critical 0.01-2.01, release 2.01-2.02; the parked t1 is
 *     handed the mutex at 2.02; t0 pays futex_wake 2.02-2.05 and ends at 2.05.
 * t1: held at 0: spins 0-0.05, enters the futex 0.05-0.07, parks at 0.07;
 *     resumes at 2.02 + 0.1 = 2.12: acquire 2.12-2.13, critical -4.13,
 *     release -4.14: ends at 4.14. Its mutex wait is 0 to 2.12. */
START_TEST(contention_mutex_two_threads_exact_timeline)
{
  ts_model m;
  load(MUTEX_MODEL("fifo", "1"), &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(2.05));
  ck_assert_int_eq(st(&w, 1)->done, MS(4.14));
  ck_assert_int_eq(st(&w, 0)->mutex_wait, 0);
  ck_assert_int_eq(st(&w, 1)->mutex_wait, MS(2.12));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_SPIN], MS(0.05));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_FUTEX], MS(0.02));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_MUTEX_PARK], MS(2.05));
  /* user / kernel split: t0 2.02 user + 0.03 kernel; t1 2.07 user (spin included) + 0.02 kernel */
  ck_assert_int_eq(st(&w, 0)->cpu, MS(2.05));
  ck_assert_int_eq(st(&w, 0)->kernel, MS(0.03));
  ck_assert_int_eq(st(&w, 1)->cpu, MS(2.09));
  ck_assert_int_eq(st(&w, 1)->kernel, MS(0.02));
  ck_assert_int_eq(w.workers[0].busy, MS(2.05));
  ck_assert_int_eq(w.workers[0].busy_kernel, MS(0.03));
  ck_assert_int_eq(w.workers[1].busy, MS(2.09));
  ck_assert_int_eq(w.workers[1].busy_kernel, MS(0.02));
  ck_assert_int_eq(w.mutex_contended, 1);
  ck_assert_double_eq(w.win_mutex_wait, (double)MS(2.12));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Two iterations each. fifo: t0's release at 2.02 hands the mutex to t1;
 * t0 (futex_wake to 2.05) finds it held, spins 2.05-2.10, futex -2.12,
 * parks; t1 resumes 2.12, holds 2.12-4.14, hands it to t0 (resumes 4.24) and
 * comes back for its second turn at 4.17 to find it held: spin, futex, park;
 * t0 holds 4.24-6.26, pays futex_wake, ends 6.29; t1 resumes 6.36, ends 8.38.
 * barging: the release at 2.02 only frees it; t0 takes it again at 2.05
 * (before the woken t1 runs at 2.12), holds 2.05-4.07, wakes t1 (4.17) and
 * ends at 4.10 after futex_wake; t1 (woken at 2.12 to a held mutex: futex
 * again 2.12-2.14, parks) takes it at 4.17 for both turns: ends 8.21. */
START_TEST(contention_mutex_barging_and_fifo_differ)
{
  ts_model m;
  load(MUTEX_MODEL("fifo", "2"), &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(6.29));
  ck_assert_int_eq(st(&w, 1)->done, MS(8.38));
  ts_world_finish(&w);
  ts_model_finish(&m);
  load(MUTEX_MODEL("barging", "2"), &m);
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(4.10));
  ck_assert_int_eq(st(&w, 1)->done, MS(8.21));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_FUTEX], MS(0.04)); /* it entered the futex twice */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A barging mutex whose release cuts a spin while another spinner waits,
 * three threads on three workers (acquire, release and futex costs 0; spin 1 ms).
 * h: takes it at 0, holds it to 0.3.  a: cpu 0-0.1, spins from 0.1.
 * b: cpu 0-0.2, spins from 0.2 (behind a).
 * h's release at 0.3 has no waiter: it cuts the oldest spin, a's: a takes it
 *     at 0.3 (its spin's end finds itself gone from the spinners, b at
 *     their head, and must leave b there), holds it to 0.4.
 * a's release at 0.4 cuts b's spin: b takes it at 0.4 and ends at 0.5 (had
 *     a's end removed b, b would spin on to 1.2 and end at 1.3). */
START_TEST(contention_mutex_cut_spin_leaves_the_other_spinners)
{
  ts_model m;
  load("{\"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"
       "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"barging\","
       " \"acquire_ms\": 0, \"release_ms\": 0, \"spin_ms\": 1, \"futex_wait_ms\": 0, \"futex_wake_ms\": 0,"
       " \"wake_latency_ms\": 0.1}],"
       "\"classes\": ["
       "{\"name\": \"h\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.3},"
       " {\"op\": \"unlock\", \"lock\": \"m\"}]},"
       "{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"lock\", \"lock\": \"m\"},"
       " {\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"unlock\", \"lock\": \"m\"}]},"
       "{\"name\": \"b\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 0.2}, {\"op\": \"lock\", \"lock\": \"m\"},"
       " {\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 3, 3), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(0.3));
  ck_assert_int_eq(st(&w, 1)->done, MS(0.4));
  ck_assert_int_eq(st(&w, 2)->done, MS(0.5));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_SPIN], MS(0.2));
  ck_assert_int_eq(st(&w, 2)->state[TS_ACTOR_SPIN], MS(0.2));
  ck_assert_int_eq(w.mutex_contended, 2);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Rust std's futex mutex ("std"), four threads arriving 0.03 ms apart, one
 * turn each.
 * t0 (0): CAS takes it LOCKED: acquire 0-0.01, critical -2.01, release -2.02.
 * t1 (0.03): LOCKED: spins 0.03-0.08, then swaps it to CONTENDED, futex
 *     0.08-0.10, sleeps.
 * t2 (0.06): LOCKED: spins 0.06-0.08, cut short when t1 marks it CONTENDED
 *     (std never spins on CONTENDED); futex 0.08-0.10, sleeps behind t1.
 * t3 (0.09): CONTENDED: no spin; futex 0.09-0.11, sleeps behind t2.
 * t0's release at 2.02 finds it CONTENDED: futex_wake 2.02-2.05 (done 2.05),
 *     t1 resumes at 2.12 and takes it as CONTENDED: 2.12-2.14, critical
 *     -4.14 (acquire 0.01 first), wakes t2 (4.24), futex_wake -4.17.
 * t2: 4.24 + 2.02 = 6.26, wakes t3 (6.36), futex_wake: done 6.29.
 * t3: 6.36 + 2.02 = 8.38; it took the mutex as CONTENDED, so its release pays
 *     futex_wake though nobody sleeps: done 8.41. */
START_TEST(contention_std_mutex_spins_only_while_locked)
{
  ts_model m;
  tu_modelf(&m,
            "{\"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"
            "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"std\","
            " \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"spin_ms\": 0.05, \"futex_wait_ms\": 0.02,"
            " \"futex_wake_ms\": 0.03, \"wake_latency_ms\": 0.1}],"
            "\"classes\": [{\"name\": \"t\", \"count\": \"n\", \"arrival\": {\"spacing_ms\": 0.03}, \"program\": ["
            " {\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 2}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}");
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 4, 4), TS_WORLD_OK);
  static const double done[] = {2.05, 4.17, 6.29, 8.41}, spun[] = {0, 0.05, 0.02, 0};
  for (int a = 0; a < 4; a++) {
    ck_assert_int_eq(st(&w, a)->done, MS(done[a]));
    ck_assert_int_eq(st(&w, a)->state[TS_ACTOR_SPIN], MS(spun[a]));
  }
  ck_assert_int_eq(st(&w, 3)->kernel, MS(0.02 + 0.03)); /* one futex_wait, one futex_wake for nobody */
  ck_assert_int_eq(w.mutex_contended, 3);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* What a contended acquire is (contended_per_delivery, the site columns): an
 * entry into std's slow path, lock_contended (library/std/src/sys/sync/mutex/
 * futex.rs), when the fast CAS UNLOCKED -> LOCKED fails, whether the spin then
 * gets the mutex or the thread sleeps. Two threads, t1 arriving at 0.005:
 * t0 CAS at 0: acquire 0-0.01, critical -0.03, release -0.04 (LOCKED: no
 * futex_wake). t1 finds it LOCKED: spins 0.005-0.04, cut short by the release,
 * CAS takes it LOCKED: acquire 0.04-0.05, critical -0.07, release -0.08. One
 * contended acquire, 0.035 of wait, all spinning, no futex call. */
START_TEST(contention_std_mutex_spin_success_is_contended)
{
  ts_model m;
  tu_modelf(&m,
            "{\"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"
            "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"std\","
            " \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"spin_ms\": 0.05, \"futex_wait_ms\": 0.02,"
            " \"futex_wake_ms\": 0.03, \"wake_latency_ms\": 0.1}],"
            "\"classes\": [{\"name\": \"t\", \"count\": \"n\", \"arrival\": {\"spacing_ms\": 0.005}, \"program\": ["
            " {\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.02}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}");
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(0.04));
  ck_assert_int_eq(st(&w, 1)->done, MS(0.08));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_SPIN], MS(0.035));
  ck_assert_int_eq(st(&w, 1)->mutex_wait, MS(0.035));
  ck_assert_int_eq(st(&w, 0)->kernel + st(&w, 1)->kernel, 0);
  ck_assert_int_eq(w.mutex_contended, 1);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* std, two threads, two turns each (MUTEX_MODEL): t1 spins 0-0.05, marks it
 * CONTENDED, futex 0.05-0.07, sleeps. t0's release at 2.02 wakes it (2.12)
 * and pays futex_wake to 2.05, then barges: its second CAS at 2.05 takes the
 * free mutex LOCKED, holding it 2.05-4.07. t1 wakes at 2.12 to a LOCKED mutex:
 * spins 2.12-2.17, marks it CONTENDED, futex 2.17-2.19, sleeps again (a woken
 * loser sleeps). t0's release at 4.07 pays futex_wake (done 4.10) and wakes
 * t1 (4.17): it takes it CONTENDED, holds 4.17-6.19, pays futex_wake for
 * nobody to 6.22, and its second turn (a plain CAS) ends at 8.24. */
START_TEST(contention_std_mutex_woken_loser_sleeps_again)
{
  ts_model m;
  load(MUTEX_MODEL("std", "2"), &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(4.10));
  ck_assert_int_eq(st(&w, 1)->done, MS(8.24));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_SPIN], MS(0.10));
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_FUTEX], MS(0.02 + 0.02 + 0.03)); /* two futex_waits, one wake */
  ck_assert_int_eq(st(&w, 1)->mutex_wait, MS(4.17));
  ck_assert_int_eq(w.mutex_contended, 1);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* migrate_ms: an acquire after a holder on another worker pays it, one after
 * a holder on the same worker does not. Thread 0 takes the mutex twice in a
 * row (0-2.02, 2.02-4.04: no migration, the first has no predecessor); the
 * task on thread 1 arrives at 5 and takes it after thread 0: acquire 0.01 +
 * 0.5, critical 2, release 0.01: done at 7.52. */
START_TEST(contention_mutex_migration_cost)
{
  ts_model m;
  tu_modelf(&m,
            "{\"worker\": {\"kind\": \"thread\"},"
            "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"std\","
            " \"acquire_ms\": 0.01, \"release_ms\": 0.01, \"migrate_ms\": 0.5}],"
            "\"classes\": [{\"name\": \"t\", \"count\": 2, \"placement\": {\"worker\": \"i\"},"
            " \"arrival\": {\"spacing_ms\": 5}, \"program\": [{\"op\": \"repeat\", \"count\": \"2 - i\", \"steps\": ["
            " {\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 2}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}]}");
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(4.04));
  ck_assert_int_eq(st(&w, 1)->done, MS(7.52));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Sites: the two-thread timeline of contention_mutex_two_threads_exact_timeline
 * with t0's acquire at site "x" and t1's at site "y". Only t1 contends (its
 * wait 0 to 2.12 goes to y); one thread sleeps on m from 0.07 to 2.02: the
 * convoy share is 1.95 over the 4.14 ms run. summary.csv has the window's
 * columns per mutex and per site. */
START_TEST(contention_sites_attribute_the_wait)
{
  const char *model =
    "{\"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"
    "\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"acquire_ms\": 0.01, \"release_ms\": 0.01,"
    " \"spin_ms\": 0.05, \"futex_wait_ms\": 0.02, \"futex_wake_ms\": 0.03, \"wake_latency_ms\": 0.1}],"
    "\"classes\": [{\"name\": \"t\", \"count\": \"n\", \"program\": [{\"op\": \"if\", \"cond\": \"i == 0\","
    " \"then\": [{\"op\": \"lock\", \"lock\": \"m\", \"site\": \"x\"}], \"else\": [{\"op\": \"lock\", \"lock\": \"m\", \"site\": \"y\"}]},"
    " {\"op\": \"cpu\", \"ms\": 2}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}";
  ts_model m;
  tu_model(model, &m);
  ck_assert_int_eq((int)m.nsites, 2);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_double_eq(w.lock_stat[0].wait, (double)MS(2.12));
  ck_assert_int_eq(w.lock_stat[0].contended, 1);
  ck_assert_int_eq(w.lock_stat[0].acquires, 2);
  ck_assert_int_eq(w.lock_stat[0].parked_longest, MS(1.95));
  ck_assert_double_eq(w.site_stat[0].wait, 0);
  ck_assert_int_eq(w.site_stat[0].acquires, 1);
  ck_assert_double_eq(w.site_stat[1].wait, (double)MS(2.12));
  ck_assert_int_eq(w.site_stat[1].contended, 1);
  ts_world_finish(&w);
  ts_model_finish(&m);
  char dir[256], *out, *err;
  ck_assert_int_eq(tu_run_files("sites", model, "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [2], \"workers\": [2]}", dir,
                                sizeof dir, &out, &err),
                   0);
  char path[512];
  snprintf(path, sizeof path, "%s/out/summary.csv", dir);
  tu_table t;
  tu_table_read(&t, path);
  static const struct {
    const char *col;
    double v;
  } want[] = {{"mutex_acquires", 2}, {"mutex_contended", 1}, {"m_wait_ms", 2.12}, {"m_wait_share", 1},
              {"m_contended", 1}, {"m_acquires", 2}, {"m_x_wait_ms", 0}, {"m_x_acquires", 1}, {"m_y_wait_ms", 2.12},
              {"m_y_contended", 1}, {"m_y_acquires", 1}};
  for (size_t k = 0; k < sizeof want / sizeof *want; k++)
    ck_assert_msg(fabs(tu_table_num(&t, 0, want[k].col) - want[k].v) < 1e-9, "%s", want[k].col);
  ck_assert_msg(fabs(tu_table_num(&t, 0, "m_convoy_share") - 1.95 / 4.14) < 1e-6, "convoy share");
  tu_table_free(&t);
  free(out);
  free(err);
  tu_rmtree(dir);
}
END_TEST

/* One thread: a task holds the mutex only inside CPU, so no other task of the
 * thread can find it held: never contended, no futex work. t0 ends at 2.02,
 * t1 runs after it: 2.02 + 2.02 = 4.04. */
START_TEST(contention_mutex_one_worker_never_contended)
{
  ts_model m;
  load(MUTEX_MODEL("fifo", "3"), &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 4, 1), TS_WORLD_OK);
  ck_assert_int_eq(w.mutex_contended, 0);
  ck_assert_double_eq(w.win_mutex_wait, 0);
  for (int a = 0; a < 4; a++) {
    ck_assert_int_eq(st(&w, a)->kernel, 0);
    ck_assert_int_eq(st(&w, a)->mutex_wait, 0);
  }
  ck_assert_int_eq(w.workers[0].busy_kernel, 0);
  ck_assert_int_eq(st(&w, 3)->done, 4 * MS(6.06));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* An async semaphore of capacity 2, five callers each holding it for 10 ms of
 * I/O: two at a time: done at 10, 10, 20, 20, 30; waits 0, 0, 10, 10, 20. */
/* A task spawned by a spawned task belongs to the root actor: its
 * actor-scoped lock is the root's (the grandchild G waits for the child A
 * to release it: G ends at A's end + its own sleep), and its random stream
 * is its own (A's and G's exponential sleeps differ; before the fix G drew
 * A's stream and its lock index ran past the lock instances). */
START_TEST(contention_nested_spawn_shares_the_root)
{
  ts_model m;
  load("{\"locks\": [{\"name\": \"g\", \"scope\": \"actor\"}],"
       "\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"spawn\", \"steps\": ["
       " {\"op\": \"spawn\", \"steps\": [{\"op\": \"lock\", \"lock\": \"g\"},"
       "  {\"op\": \"sleep\", \"ms\": 1, \"dist\": \"exponential\"}, {\"op\": \"unlock\", \"lock\": \"g\"}]},"
       " {\"op\": \"lock\", \"lock\": \"g\"}, {\"op\": \"sleep\", \"ms\": 1, \"dist\": \"exponential\"},"
       " {\"op\": \"unlock\", \"lock\": \"g\"}]}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
  ck_assert_int_eq(w.nactors, 3); /* the root, its task A, A's task G */
  const ts_actor_stats *A = st(&w, 1), *G = st(&w, 2);
  ck_assert(A->state[TS_ACTOR_SLEEP] > 0 && G->state[TS_ACTOR_SLEEP] > 0);
  ck_assert_msg(A->state[TS_ACTOR_SLEEP] != G->state[TS_ACTOR_SLEEP], "A and G drew the same sleep");
  ck_assert_int_eq(G->done, A->done + G->state[TS_ACTOR_SLEEP]);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

START_TEST(contention_semaphore_capacity_two)
{
  ts_model m;
  load("{\"locks\": [{\"name\": \"pool\", \"scope\": \"shared\", \"capacity\": 2}],"
       "\"classes\": [{\"name\": \"c\", \"count\": 5, \"program\": [{\"op\": \"lock\", \"lock\": \"pool\"},"
       " {\"op\": \"io\", \"ms\": 10}, {\"op\": \"unlock\", \"lock\": \"pool\"}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
  static const double done[] = {10, 10, 20, 20, 30}, wait[] = {0, 0, 10, 10, 20};
  for (int a = 0; a < 5; a++) {
    ck_assert_int_eq(st(&w, a)->done, MS(done[a]));
    ck_assert_int_eq(st(&w, a)->state[TS_ACTOR_LOCK_WAIT], MS(wait[a]));
  }
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* ---- channels ---- */

/* One notify with 64 waiters on 4 threads (16 each; the notifier is a 65th
 * actor on thread 0): 64 wakeups; threads 1-3 are parked, so 3 worker wakes
 * are charged (0.005 ms each) and they start after the wake latency, 0.02. */
START_TEST(contention_fanout_64_waiters_4_threads)
{
  ts_model m;
  load("{\"worker\": {\"kind\": \"thread\"},"
       "\"channels\": [{\"name\": \"c\", \"scope\": \"shared\", \"wake_ms\": 0.005, \"wake_latency_ms\": 0.02}],"
       "\"classes\": ["
       " {\"name\": \"reader\", \"count\": 64, \"placement\": {\"rule\": \"fixed\", \"worker\": \"i % W\"},"
       "  \"program\": [{\"op\": \"wait\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": 0.01}]},"
       " {\"name\": \"pub\", \"count\": 1, \"placement\": {\"rule\": \"fixed\", \"worker\": 0},"
       "  \"program\": [{\"op\": \"sleep\", \"ms\": 1}, {\"op\": \"notify\", \"channel\": \"c\"}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 4), TS_WORLD_OK);
  const ts_actor_stats *p = st(&w, 64);
  ck_assert_int_eq(p->kernel, 3 * MS(0.005)); /* at most one wake per parked worker */
  ck_assert_int_eq(p->done, MS(1) + 3 * MS(0.005));
  int woke = 0;
  for (int a = 0; a < 64; a++) {
    woke += st(&w, a)->state[TS_ACTOR_CHAN_WAIT] > 0;
    ck_assert_int_eq(st(&w, a)->state[TS_ACTOR_CHAN_WAIT], MS(1)); /* parked until the notify at 1 */
  }
  ck_assert_int_eq(woke, 64);
  /* reader 1 is the first on thread 1: it runs when the thread wakes, 1 + 0.02 */
  ck_assert_int_eq(st(&w, 1)->done, MS(1.02) + MS(0.01));
  /* the 16 readers of thread 0 run after the notifier's wake costs: the last at 1.015 + 16 * 0.01 */
  ck_assert_int_eq(st(&w, 60)->done, MS(1.015) + 16 * MS(0.01));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A wait after a notify the waiter has not seen returns at once (no lost
 * wakeup): the notifier runs first (at 0), the waiter waits at 1 and goes on. */
START_TEST(contention_wait_after_unseen_notify_returns)
{
  ts_model m;
  load("{\"channels\": [{\"name\": \"c\", \"scope\": \"shared\"}],"
       "\"classes\": ["
       " {\"name\": \"pub\", \"count\": 1, \"program\": [{\"op\": \"notify\", \"channel\": \"c\"}]},"
       " {\"name\": \"late\", \"count\": 1, \"program\": [{\"op\": \"sleep\", \"ms\": 1}, {\"op\": \"wait\", \"channel\": \"c\"},"
       "   {\"op\": \"wait\", \"channel\": \"c\"}]},"
       " {\"name\": \"pub2\", \"count\": 1, \"program\": [{\"op\": \"sleep\", \"ms\": 5}, {\"op\": \"notify\", \"channel\": \"c\"}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
  /* the first wait returns at 1; the second waits for pub2's notify at 5 */
  ck_assert_int_eq(st(&w, 1)->state[TS_ACTOR_CHAN_WAIT], MS(4));
  ck_assert_int_eq(st(&w, 1)->done, MS(5));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* ---- hops ---- */

/* send 0.02 on worker 0, 0.1 in transit, recv 0.03 on worker 1, then 1 ms of
 * CPU there: done at 1.15; worker 0 busy 0.02, worker 1 busy 1.03. */
START_TEST(contention_hop_adds_latency_and_cpu)
{
  ts_model m;
  load("{\"worker\": {\"kind\": \"thread\"}, \"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": ["
       " {\"op\": \"hop\", \"to\": 1, \"ms\": 0.1, \"send_ms\": 0.02, \"recv_ms\": 0.03}, {\"op\": \"cpu\", \"ms\": 1}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(1.15));
  ck_assert_int_eq(st(&w, 0)->state[TS_ACTOR_HOP], MS(0.1));
  ck_assert_int_eq(w.workers[0].busy, MS(0.02));
  ck_assert_int_eq(w.workers[1].busy, MS(1.03));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* ---- calls ---- */

/* Ten background calls queue at a one-at-a-time server (10 ms each), then ten
 * foreground calls (1 ms each) arrive at 1. priority_barrier: batch 0 runs
 * 0-10; then the reads bypass the queued batches, 8 in a row (burst limit),
 * 10-18; batch 1 runs 18-28 (the 9th job after the head: the background one);
 * the last two reads 28-30; then batches 2..9 at 30-110. */
START_TEST(contention_call_priority_burst_order)
{
  ts_model m;
  load("{\"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 1}],"
       "\"servers\": [{\"name\": \"s\", \"pool\": \"db\", \"policy\": \"priority_barrier\", \"burst_limit\": 8}],"
       "\"classes\": ["
       " {\"name\": \"batch\", \"count\": 10, \"program\": [{\"op\": \"call\", \"server\": \"s\", \"class\": \"background\","
       "   \"handler\": [{\"op\": \"cpu\", \"ms\": 10}]}]},"
       " {\"name\": \"read\", \"count\": 10, \"arrival\": {\"start_ms\": 1}, \"program\": [{\"op\": \"call\", \"server\": \"s\","
       "   \"class\": \"foreground\", \"handler\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}",
       &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
  static const double batch[] = {10, 28, 40, 50, 60, 70, 80, 90, 100, 110};
  static const double read[] = {11, 12, 13, 14, 15, 16, 17, 18, 29, 30};
  for (int i = 0; i < 10; i++) {
    ck_assert_int_eq(st(&w, i)->done, MS(batch[i]));
    ck_assert_int_eq(st(&w, 10 + i)->done, MS(read[i]));
  }
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* With concurrency 2 on a pool of 2 threads two 10 ms calls overlap: both
 * end at 10; with concurrency 1 the second ends at 20. */
START_TEST(contention_call_concurrency_two_overlaps)
{
  const char *fmt = "{\"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 2}],"
                    "\"servers\": [{\"name\": \"s\", \"pool\": \"db\", \"concurrency\": %d}],"
                    "\"classes\": [{\"name\": \"c\", \"count\": 2, \"program\": [{\"op\": \"call\", \"server\": \"s\","
                    "  \"handler\": [{\"op\": \"cpu\", \"ms\": 10}]}]}]}";
  char json[600];
  for (int conc = 1; conc <= 2; conc++) {
    snprintf(json, sizeof json, fmt, conc);
    ts_model m;
    load(json, &m);
    ts_world w;
    ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
    ck_assert_int_eq(st(&w, 0)->done, MS(10));
    ck_assert_int_eq(st(&w, 1)->done, MS(conc == 2 ? 10 : 20));
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

/* ---- deadlocks ---- */

/* Mutexes taken in opposite orders are refused at load (a lock-order cycle:
 * two threads meeting there would deadlock), naming both steps; so is a
 * longer cycle m1 -> m2 -> m3 -> m1 across classes. Async locks are not
 * checked: their cycles are run-time deadlocks (tests/data/deadlock.json). */
START_TEST(contention_mutex_order_cycle_refused)
{
#define M3 "\"locks\": [{\"name\": \"m1\", \"kind\": \"mutex\", \"scope\": \"shared\"}, {\"name\": \"m2\", \"kind\": \"mutex\"," \
           " \"scope\": \"shared\"}, {\"name\": \"m3\", \"kind\": \"mutex\", \"scope\": \"shared\"}],"
#define NEST(a, b) "{\"op\": \"lock\", \"lock\": \"" a "\"}, {\"op\": \"lock\", \"lock\": \"" b "\"}, {\"op\": \"unlock\", \"lock\": \"" b "\"}," \
                   " {\"op\": \"unlock\", \"lock\": \"" a "\"}"
  tu_refuse("{" M3 "\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [" NEST("m1", "m2") "]},"
         " {\"name\": \"b\", \"count\": 1, \"program\": [" NEST("m2", "m1") "]}]}",
         "classes[1].program[1].lock", "takes mutex \"m1\" while holding \"m2\", but classes[0].program[1] takes \"m2\"");
  tu_refuse("{" M3 "\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [" NEST("m1", "m2") ", " NEST("m2", "m3") "]},"
         " {\"name\": \"b\", \"count\": 1, \"program\": [" NEST("m3", "m1") "]}]}",
         "classes[1].program[1].lock", "a lock-order cycle");
  ts_model m; /* one order everywhere loads */
  load("{" M3 "\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [" NEST("m1", "m2") ", " NEST("m2", "m3") "]},"
       " {\"name\": \"b\", \"count\": 1, \"program\": [" NEST("m1", "m3") "]}]}",
       &m);
  ts_model_finish(&m);
#undef NEST
#undef M3
}
END_TEST

/* A deadlock's message says who holds each lock the blocked actors wait for
 * (class and index; the first two holders of a lock of capacity > 1 and how
 * many more; an indexed lock's instance), in id order: a run-time mutex
 * deadlock (a preempted holder: the foreground actor parks its only worker on
 * the mutex), an async cycle through a lock of capacity 2 (h #0 and #1 hold
 * s, g holds t; each wants the other) and one through an indexed lock. */
START_TEST(contention_deadlock_names_the_holders)
{
  static const struct {
    const char *json;
    int workers;
    const char *said;
  } cases[] = {
      {"{\"worker\": {\"policy\": \"strict_priority\", \"preempt\": true}, \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\","
       " \"scope\": \"shared\"}], \"classes\": [{\"name\": \"lo\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"m\"},"
       " {\"op\": \"cpu\", \"ms\": 10}, {\"op\": \"unlock\", \"lock\": \"m\"}]}, {\"name\": \"hi\", \"count\": 1, \"queue_class\":"
       " \"foreground\", \"arrival\": {\"start_ms\": 1}, \"program\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\","
       " \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}",
       1, "hi #0 (actor 1, step classes[1].program[0]): parked on mutex \"m\" held by lo #0"},
      {"{\"locks\": [{\"name\": \"s\", \"scope\": \"shared\", \"capacity\": %d}, {\"name\": \"t\", \"scope\": \"shared\"}],"
       " \"classes\": [{\"name\": \"g\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"t\"}, {\"op\": \"cpu\", \"ms\": 1},"
       " {\"op\": \"lock\", \"lock\": \"s\"}, {\"op\": \"unlock\", \"lock\": \"s\"}, {\"op\": \"unlock\", \"lock\": \"t\"}]},"
       " {\"name\": \"h\", \"count\": %d, \"program\": [{\"op\": \"lock\", \"lock\": \"s\"}, {\"op\": \"cpu\", \"ms\": 1},"
       " {\"op\": \"lock\", \"lock\": \"t\"}, {\"op\": \"unlock\", \"lock\": \"t\"}, {\"op\": \"unlock\", \"lock\": \"s\"}]}]}",
       4, "g #0 (actor 0, step classes[0].program[2]): waiting for lock \"s\" held by h #0 and h #1; h #0 (actor 1, step "
          "classes[1].program[2]): waiting for lock \"t\" held by g #0; h #1 (actor 2, step classes[1].program[2]): waiting "
          "for lock \"t\" held by g #0; and 1 more"},
      {NULL, 4, "waiting for lock \"s\" held by h #0, h #1 and 1 more; "},
      {"{\"dispatch\": {\"policy\": \"round_robin\"}, \"locks\": [{\"name\": \"x\", \"scope\": \"indexed\", \"instances\": 3}, {\"name\": \"y\", \"scope\": \"shared\"}],"
       " \"classes\": [{\"name\": \"p\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"y\"}, {\"op\": \"cpu\", \"ms\": 1},"
       " {\"op\": \"lock\", \"lock\": \"x\", \"index\": 2}, {\"op\": \"unlock\", \"lock\": \"x\"}, {\"op\": \"unlock\", \"lock\": \"y\"}]},"
       " {\"name\": \"q\", \"count\": 3, \"program\": [{\"op\": \"lock\", \"lock\": \"x\", \"index\": \"i\"}, {\"op\": \"cpu\", \"ms\": 1},"
       " {\"op\": \"lock\", \"lock\": \"y\"}, {\"op\": \"unlock\", \"lock\": \"y\"}, {\"op\": \"unlock\", \"lock\": \"x\"}]}]}",
       4, "p #0 (actor 0, step classes[0].program[2]): waiting for lock \"x\" (instance 2) held by q #2; "},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char json[2000];
    const char *text = cases[k].json ? cases[k].json : cases[k - 1].json;
    snprintf(json, sizeof json, text, k == 1 ? 2 : 3, k == 1 ? 3 : 4); /* (case 2: case 1, s of capacity 3) */
    ts_model m;
    load(json, &m);
    ts_world w;
    ts_world_spec sp = tu_world_spec(0, cases[k].workers, 1);
    ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
    ck_assert_msg(ts_world_run(&w) == TS_WORLD_STUCK, "case %zu: not stuck", k);
    char said[600];
    ts_world_stuck(&w, said, sizeof said, 3);
    ck_assert_msg(strstr(said, cases[k].said), "case %zu: %s", k, said);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

/* Through the CLI: a reader waiting on a channel nobody notifies: exit 1, one
 * line naming the actor and the channel. */
START_TEST(contention_channel_deadlock_exits_1)
{
  char dir[256], *out, *err;
  ck_assert_int_eq(tu_run_files("deadlock",
                                "{\"channels\": [{\"name\": \"news\", \"scope\": \"shared\"}], \"classes\": [{\"name\": \"reader\","
                                " \"count\": 2, \"program\": [{\"op\": \"wait\", \"channel\": \"news\"}]}]}",
                                "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}", dir, sizeof dir, &out,
                                &err),
                   1);
  ck_assert_msg(strstr(err, "deadlocked") && strstr(err, "reader #0") && strstr(err, "waiting on a channel \"news\""),
                "%s", err);
  ck_assert_msg(strchr(err, '\n') == err + strlen(err) - 1, "more than one line: %s", err);
  free(out);
  free(err);
  tu_rmtree(dir);
}
END_TEST

/* Names of 90 characters (up to 100 are allowed) are shown to 40 in a
 * deadlock's message, so its entries stay whole and the count of the others
 * stays: a cycle through a lock of capacity 2 (case 1 of
 * contention_deadlock_names_the_holders). run said "... held by hhh...h #0
 * and hhhhhhh" (cut in the second holder, without "; and 3 more"); trace cut
 * the same way. */
START_TEST(contention_deadlock_long_names_keep_the_count)
{
  char g[91], h[91], h40[41], model[1200], holders[200], dir[256], *err;
  memset(g, 'g', 90), memset(h, 'h', 90), memset(h40, 'h', 40);
  g[90] = h[90] = h40[40] = '\0';
  snprintf(model, sizeof model,
           "{\"locks\": [{\"name\": \"s\", \"scope\": \"shared\", \"capacity\": 2}, {\"name\": \"t\", \"scope\": \"shared\"}],"
           " \"classes\": [{\"name\": \"%s\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"t\"}, {\"op\": \"cpu\","
           " \"ms\": 1}, {\"op\": \"lock\", \"lock\": \"s\"}, {\"op\": \"unlock\", \"lock\": \"s\"}, {\"op\": \"unlock\", \"lock\":"
           " \"t\"}]}, {\"name\": \"%s\", \"count\": 3, \"program\": [{\"op\": \"lock\", \"lock\": \"s\"}, {\"op\": \"cpu\","
           " \"ms\": 1}, {\"op\": \"lock\", \"lock\": \"t\"}, {\"op\": \"unlock\", \"lock\": \"t\"}, {\"op\": \"unlock\", \"lock\":"
           " \"s\"}]}]}",
           g, h);
  snprintf(holders, sizeof holders, "waiting for lock \"s\" held by %s #0 and %s #1;", h40, h40);
  ck_assert_int_eq(tu_run_files("deadlock", model, "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [1], \"workers\": [4]}",
                                dir, sizeof dir, NULL, &err),
                   1);
  const char *end = err + strlen(err);
  ck_assert_msg(strstr(err, holders) && end - err > 13 && strcmp(end - 13, "; and 3 more\n") == 0, "%s", err);
  ck_assert_msg(strchr(err, '\n') == end - 1, "more than one line: %s", err);
  free(err);
  ck_assert_int_eq(tu_tssimf(NULL, &err, "trace '%s/s.json' -o '%s/trace'", dir, dir), 1);
  ck_assert_msg(strstr(err, holders) && strstr(err, " more (the trace shows where they stuck)\n"), "%s", err);
  free(err);
  tu_rmtree(dir);
}
END_TEST

/* ---- bad input ---- */

START_TEST(contention_bad_input_named)
{
  tu_refuse("{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"wait\", \"channel\": \"nope\"}]}]}",
         "classes[0].program[0].channel", "no channel named \"nope\"");
  tu_refuse("{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"m\"}]}]}",
         "classes[0].program[0].lock", "no lock named \"m\"");
  tu_refuse("{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"call\", \"server\": \"db\"}]}]}",
         "classes[0].program[0].server", "no server named \"db\"");
  tu_refuse("{\"pools\": [{\"name\": \"db\", \"count\": 1}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"call\", \"server\": \"db\"}]}]}",
         "classes[0].program[0].server", "is a pool of workers, not a server");
  tu_refuse("{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"capacity\": 0}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
         "locks[0].capacity", "expected an integer in [1, 1000000]");
  tu_refuse("{\"locks\": [{\"name\": \"m\", \"spin_ms\": 1}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
         "locks[0].spin_ms", "only for \"kind\": \"mutex\"");
  tu_refuse("{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\"}], \"classes\": [{\"count\": 1, \"program\": ["
         "{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"io\", \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}",
         "classes[0].program[1].op", "while mutex \"m\" is held");
  tu_refuse("{\"servers\": [{\"name\": \"s\", \"concurrency\": 0}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
         "servers[0].concurrency", "expected an integer in [1, 1000000]");
  tu_refuse("{\"locks\": [{\"name\": \"m\", \"scope\": \"shared\"}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"m\","
            " \"site\": \"a\"}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}",
            "classes[0].program[0].site", "lock \"m\" is not a mutex");
  tu_refuse("{\"locks\": [{\"name\": \"Big-M\", \"kind\": \"mutex\", \"scope\": \"shared\"}], \"classes\": [{\"count\": 1, \"program\": ["
            "{\"op\": \"lock\", \"lock\": \"Big-M\", \"site\": \"a\"}, {\"op\": \"unlock\", \"lock\": \"Big-M\"}]}]}",
            "classes[0].program[0].site", "it names metric columns");
  tu_refuse("{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\"}], \"classes\": [{\"count\": 1, \"program\": ["
            "{\"op\": \"lock\", \"lock\": \"m\", \"site\": \"Poll\"}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}",
            "classes[0].program[0].site", "expected a site name of lower-case letters");
  tu_refuse("{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\", \"handoff\": \"std\", \"capacity\": 2}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
         "locks[0].capacity", "a \"std\" mutex has one holder");
  tu_refuse("{\"worker\": {\"kind\": \"fiber\"}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
         "worker.kind", "expected one of \"event_loop\", \"thread\"");
}
END_TEST

/* A hop to a worker index out of range, a fraction, a huge value or a NaN stops
 * the run naming the step (exit 2); none is cast to int before the range
 * test (for 1e30 and the NaN that cast is undefined behaviour). */
START_TEST(contention_hop_out_of_range_named)
{
  static const char *const targets[] = {"5", "2.5", "-1", "\"1e30\"", "\"i/i\""};
  for (size_t k = 0; k < sizeof targets / sizeof *targets; k++) {
    char text[256];
    snprintf(text, sizeof text,
             "{\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"hop\", \"to\": %s}]}]}",
             targets[k]);
    ts_model m;
    load(text, &m);
    ts_world w;
    ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_MODEL);
    ck_assert_msg(strstr(w.errmsg, "classes[0].program[0]") && strstr(w.errmsg, "expected a worker of pool \"main\""),
                  "to %s: %s", targets[k], w.errmsg);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

/* ---- idle states (host.idle_states, idle.c) ---- */

/* The model json with the host section host added (a C1 of 2 us and a C6 of
 * 133 us entered from 100 us under governor gov). */
static void load_idle(const char *json, const char *gov, ts_model *m)
{
  char host[400];
  snprintf(host, sizeof host,
           "{\"idle_states\": [{\"name\": \"C1\", \"target_residency_ms\": 0.002, \"exit_latency_ms\": 0.002},"
           " {\"name\": \"C6\", \"target_residency_ms\": 0.1, \"exit_latency_ms\": 0.133}], \"idle_governor\": \"%s\"}",
           gov);
  cJSON *root = cJSON_Parse(json), *h = cJSON_Parse(host);
  ck_assert_ptr_nonnull(root);
  ck_assert_ptr_nonnull(h);
  cJSON_AddItemToObject(root, "host", h);
  ts_err e;
  int rc = ts_model_from_json(root, "test.json", m, &e);
  cJSON_Delete(root);
  ck_assert_msg(rc == 0, "%s", e.msg);
}

/* A sleeper thread (worker 1) waits on a counting channel three times
 * (0.001 ms of CPU after each); a waker (worker 0) notifies it after 0.01,
 * 1 and 0.2 ms of sleep: at 0.01, 1.01 and 1.21. Wake latency 0.05.
 * none: resumes 0.06, 1.06, 1.26: done 1.261.
 * actual: slept 0.01 (C1: +0.002): 0.062, parks 0.063; slept 0.947 (C6:
 *   +0.133): 1.193, parks 1.194; slept 0.016 (C1): 1.262: done 1.263.
 * last: predicts 0 (no state): 0.06, parks 0.061; predicts the previous
 *   0.01 (C1): 1.062, parks 1.063; predicts the previous 0.949 (C6) for a
 *   sleep of 0.147: 1.21 + 0.05 + 0.133 = 1.393: done 1.394. */
#define IDLE_CHAN_MODEL                                                                                              \
  "{\"worker\": {\"kind\": \"thread\"}, \"channels\": [{\"name\": \"c\", \"scope\": \"shared\", \"tokens\": true,"   \
  " \"wake_latency_ms\": 0.05}], \"classes\": ["                                                                    \
  "{\"name\": \"sleeper\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": ["                            \
  "{\"op\": \"wait\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": 0.001}, {\"op\": \"wait\", \"channel\": \"c\"},"  \
  " {\"op\": \"cpu\", \"ms\": 0.001}, {\"op\": \"wait\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": 0.001}]},"    \
  "{\"name\": \"waker\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["                              \
  "{\"op\": \"sleep\", \"ms\": 0.01}, {\"op\": \"notify\", \"channel\": \"c\"}, {\"op\": \"sleep\", \"ms\": 1},"      \
  " {\"op\": \"notify\", \"channel\": \"c\"}, {\"op\": \"sleep\", \"ms\": 0.2}, {\"op\": \"notify\", \"channel\": \"c\"}]}]}"

START_TEST(contention_idle_exit_follows_the_sleep)
{
  ts_model m;
  ts_world w;
  load(IDLE_CHAN_MODEL, &m);
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(1.261));
  ts_world_finish(&w);
  ts_model_finish(&m);
  load_idle(IDLE_CHAN_MODEL, "actual", &m);
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(1.263));
  ts_world_finish(&w);
  ts_model_finish(&m);
  load_idle(IDLE_CHAN_MODEL, "last", &m);
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(1.394));
  ck_assert_int_eq(w.workers[1].idle_prev, MS(0.147)); /* the last sleep, 1.063 to 1.21 */
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* The two-thread mutex timeline above (t1 parks in the futex at 0.07 and is
 * woken at 2.02) with idle states: actual: it slept 1.95 ms, C6, so it
 * resumes at 2.02 + 0.1 + 0.133 = 2.253 and ends at 4.273 (mutex wait
 * 2.253); last: its previous sleep (none before its arrival at 0) predicts 0,
 * no state: as without idle states (4.14). */
START_TEST(contention_idle_exit_delays_a_futex_wake)
{
  ts_model m;
  ts_world w;
  load_idle(MUTEX_MODEL("fifo", "1"), "actual", &m);
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 0)->done, MS(2.05));
  ck_assert_int_eq(st(&w, 1)->done, MS(4.273));
  ck_assert_int_eq(st(&w, 1)->mutex_wait, MS(2.253));
  ts_world_finish(&w);
  ts_model_finish(&m);
  load_idle(MUTEX_MODEL("fifo", "1"), "last", &m);
  ck_assert_int_eq(run(&w, &m, 2, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&w, 1)->done, MS(4.14));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Idle states are checked at load: each error names host.idle_states[i] or
 * host.idle_governor and what was expected; host.cores below the workers at
 * a point is refused there. */
START_TEST(contention_idle_bad_input_named)
{
#define IDLE_BAD(host) "{\"host\": " host ", \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}"
#define IDLE_S(n, r, x) "{\"name\": \"" n "\", \"target_residency_ms\": " r ", \"exit_latency_ms\": " x "}"
  tu_refuse(IDLE_BAD("{\"idle_states\": [" IDLE_S("C1", "0.002", "0.002") ", " IDLE_S("C6", "0.002", "0.133")
                     "], \"idle_governor\": \"actual\"}"),
            "host.idle_states[1].target_residency_ms", "expected the states by increasing target residency");
  tu_refuse(IDLE_BAD("{\"idle_states\": [" IDLE_S("C1", "0.002", "-1") "], \"idle_governor\": \"actual\"}"),
            "host.idle_states[0].exit_latency_ms", "expected a number in [0");
  tu_refuse(IDLE_BAD("{\"idle_states\": [{\"name\": \"C1\", \"exit_latency_ms\": 0.002}], \"idle_governor\": \"last\"}"),
            "host.idle_states[0].target_residency_ms", "missing (required)");
  tu_refuse(IDLE_BAD("{\"idle_states\": [" IDLE_S("C1", "0.002", "0.002") "]}"), "host.idle_governor",
            "expected \"actual\" or \"last\"");
  tu_refuse(IDLE_BAD("{\"idle_states\": [" IDLE_S("C1", "0.002", "0.002") "], \"idle_governor\": \"menu\"}"),
            "host.idle_governor", "expected one of \"actual\", \"last\"");
  tu_refuse(IDLE_BAD("{\"idle_governor\": \"last\"}"), "host.idle_governor", "needs \"idle_states\"");
  tu_refuse(IDLE_BAD("{\"idle_states\": [], \"idle_governor\": \"last\"}"), "host.idle_states",
            "expected at least one idle state");
  tu_refuse(IDLE_BAD("{\"idle_states\": [3], \"idle_governor\": \"last\"}"), "host.idle_states[0]",
            "expected an object");
  tu_refuse(IDLE_BAD("{\"idle_states\": [{\"name\": \"C1\", \"target_residency_ms\": 0, \"exit_latency_ms\": 0,"
                     " \"exit_ms\": 1}], \"idle_governor\": \"last\"}"),
            "host.idle_states[0]", "exit_ms");
  /* fewer cores than workers: a sleeping thread's core may run another thread, so it is not idle; the
   * workers are known at each point (W), where the run refuses (review14b item 5); cores 2 for 2 runs */
  for (int cores = 1; cores <= 2; cores++) {
    char json[600];
    snprintf(json, sizeof json,
             IDLE_BAD("{\"cores\": %d, \"idle_states\": [" IDLE_S("C1", "0.002", "0.002") "], \"idle_governor\": \"last\"}"),
             cores);
    ts_model m;
    ts_world w;
    tu_model(json, &m);
    ts_world_spec spec = {.n = 1, .workers = 2, .seed = 1, .horizon = TS_TIME_MAX, .win_t0 = 0, .win_t1 = TS_TIME_MAX};
    int rc = ts_world_init(&w, &m, &spec, NULL);
    if (cores == 1)
      ck_assert_msg(rc == TS_WORLD_MODEL && strstr(w.errmsg, "host.cores: 1 cores for 2 workers at n = 1, W = 2: with "
                                                            "idle_states expected a core per worker (0 or at least 2"),
                    "%d: %s", rc, w.errmsg);
    else
      ck_assert_int_eq(rc, 0);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
#undef IDLE_S
#undef IDLE_BAD
}
END_TEST

/* The example (no idle states, actual, last) is byte-identical with --jobs 1 and 2. */
START_TEST(contention_idle_example_deterministic)
{
  tu_same_at_jobs("scenarios/examples/idle-states.json");
}
END_TEST

/* ---- the examples run ---- */

/* lock_wait_share over workers that used no CPU is undefined (NaN: `-` in
 * the table, an empty field), not 0: actors held a lock across a 10 ms io
 * step, 80 a second, and waited for it. With a 1 ms cpu step in the lock it
 * is the wait over that CPU. */
START_TEST(contention_lock_wait_share_over_no_cpu_is_undefined)
{
  for (int cpu = 0; cpu < 2; cpu++) {
    char json[600];
    snprintf(json, sizeof json,
             "{\"name\": \"t\", \"locks\": [{\"name\": \"l\", \"scope\": \"shared\"}],"
             " \"classes\": [{\"name\": \"a\", \"count\": 400,"
             " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 80},"
             " \"program\": [{\"op\": \"lock\", \"lock\": \"l\"},"
             " %s{\"op\": \"io\", \"ms\": 10}, {\"op\": \"unlock\", \"lock\": \"l\"}]}]}",
             cpu ? "{\"op\": \"cpu\", \"ms\": 1}, " : "");
    ts_model m;
    load(json, &m);
    ts_world w;
    ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
    ts_metric_list l;
    char err[200];
    ck_assert_int_eq(ts_metric_list_build(&m, &l, err, sizeof err), 0);
    int at = ts_metric_list_find(&l, "lock_wait_share");
    ck_assert_int_ge(at, 0);
    double *v = calloc(l.n, sizeof *v);
    ck_assert_ptr_nonnull(v);
    ts_metric_world_values(&l, &w, 0, v);
    ck_assert_msg(w.win_lock_wait + w.win_mutex_wait > 0, "%g %g", (double)w.win_lock_wait, (double)w.win_mutex_wait);
    if (cpu)
      ck_assert_double_gt(v[at], 1);
    else
      ck_assert_msg(isnan(v[at]), "lock_wait_share over no CPU: %g", v[at]);
    free(v);
    ts_metric_list_finish(&l);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

START_TEST(contention_examples_run)
{
  static const char *const ex[] = {"mutex", "std-mutex", "fanout", "rpc-server", "idle-states", NULL};
  tu_run_examples(ex);
}
END_TEST

Suite *contention_suite(void)
{
  Suite *s = suite_create("contention");
  const TTest *const mutex[] = {contention_mutex_two_threads_exact_timeline,
                                       contention_mutex_barging_and_fifo_differ,
                                       contention_mutex_cut_spin_leaves_the_other_spinners,
                                       contention_mutex_one_worker_never_contended,
                                       contention_std_mutex_spins_only_while_locked,
                                       contention_std_mutex_spin_success_is_contended,
                                       contention_std_mutex_woken_loser_sleeps_again, contention_mutex_migration_cost,
                                       contention_sites_attribute_the_wait,
                                       contention_semaphore_capacity_two, contention_nested_spawn_shares_the_root,
                                       contention_idle_exit_follows_the_sleep, contention_idle_exit_delays_a_futex_wake,
                                       contention_lock_wait_share_over_no_cpu_is_undefined, NULL};
  const TTest *const chan[] = {contention_fanout_64_waiters_4_threads,
                                      contention_wait_after_unseen_notify_returns, NULL};
  const TTest *const move[] = {contention_hop_adds_latency_and_cpu,
                                      contention_call_priority_burst_order,
                                      contention_call_concurrency_two_overlaps, NULL};
  const TTest *const errors[] = {contention_mutex_order_cycle_refused,
                                        contention_channel_deadlock_exits_1, contention_deadlock_names_the_holders,
                                        contention_deadlock_long_names_keep_the_count,
                                        contention_bad_input_named,
                                        contention_hop_out_of_range_named, contention_examples_run,
                                        contention_idle_bad_input_named, contention_idle_example_deterministic, NULL};
  tu_tcase(s, "mutex", mutex, NULL, NULL, 0);
  tu_tcase(s, "channels", chan, NULL, NULL, 0);
  tu_tcase(s, "hops and calls", move, NULL, NULL, 0);
  tu_tcase(s, "errors", errors, NULL, NULL, 60);
  return s;
}
