/* Futures and wake costs (issue 17): tasks that register wakers on several
 * channels and re-run a poll pass on every wake (register, pending), the
 * notified bit, children polled by their parent (child, poll_children), and
 * the CPU a notifier pays per task it wakes, one wake after another. Every
 * expected time is worked out by hand in the comments; times in ms. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/world.h"

#include "testutil.h"

#define MS(x) ((ts_time)llround((x) * 1e6))

static int run(ts_world *w, const ts_model *m, int n, int workers)
{
  ts_world_spec spec = tu_world_spec(n, workers, 1);
  ck_assert_int_eq(ts_world_init(w, m, &spec, NULL), 0);
  return ts_world_run(w);
}

static ts_time done(const ts_world *w, int id)
{
  return ts_world_actor(w, id)->st.done;
}

/* Thread workers placed by "worker"; channels a, b, g, t, c; a counter of passes. */
#define FUT_HEAD(chan_extra)                                                                                     \
  "{\"worker\": {\"kind\": \"thread\"}, \"counters\": [{\"name\": \"passes\"}],"                               \
  "\"channels\": [{\"name\": \"a\", \"scope\": \"shared\"}, {\"name\": \"b\", \"scope\": \"shared\"},"         \
  " {\"name\": \"t\", \"scope\": \"shared\"}, {\"name\": \"g\", \"scope\": \"shared\"" chan_extra "}],"
#define STEP_NOTIFY(at, ch) "{\"op\": \"sleep\", \"ms\": " at "}, {\"op\": \"notify\", \"channel\": \"" ch "\"}"

/* One task registered on a and b wakes for either, and re-runs its pass:
 * pass 0 at 0-1 (registers a and b, parks); a's notify at 5 wakes it (pass 1
 * 5-6 registers a again, b is still listed); b's at 10 (pass 2 10-11); b's at
 * 15 ends the loop: 15-16. At the end a still lists the task, b does not. */
START_TEST(futures_any_registered_channel_wakes_the_task)
{
  ts_model m;
  tu_model(FUT_HEAD("") "\"classes\": ["
           "{\"name\": \"task\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["
           " {\"op\": \"repeat\", \"count\": 3, \"steps\": [{\"op\": \"add\", \"counter\": \"passes\"}, {\"op\": \"cpu\", \"ms\": 1},"
           "  {\"op\": \"register\", \"channel\": \"a\"}, {\"op\": \"register\", \"channel\": \"b\"}, {\"op\": \"pending\"}]},"
           " {\"op\": \"cpu\", \"ms\": 1}]},"
           "{\"name\": \"na\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [" STEP_NOTIFY("5", "a") "]},"
           "{\"name\": \"nb\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [" STEP_NOTIFY("10", "b") ", "
           STEP_NOTIFY("5", "b") "]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(done(&w, 0), MS(16));
  ck_assert_double_eq(w.counters[0], 3);
  ck_assert_int_eq((int)w.chans[w.chan_base[0]].waiters.len, 1);
  ck_assert_int_eq((int)w.chans[w.chan_base[1]].waiters.len, 0);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* The notified bit. The task registers on a and runs 4 ms (0-4); a's notify
 * at 2 finds it running: its pending at 4 sends it round again at once (4-8,
 * then it parks); a's notify at 12 ends the loop: done at 13. Without the bit
 * it would have parked at 4 and run its second pass only at 12. */
START_TEST(futures_wake_during_the_pass_runs_it_again)
{
  ts_model m;
  tu_model(FUT_HEAD("") "\"classes\": ["
           "{\"name\": \"task\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["
           " {\"op\": \"repeat\", \"count\": 2, \"steps\": [{\"op\": \"add\", \"counter\": \"passes\"},"
           "  {\"op\": \"register\", \"channel\": \"a\"}, {\"op\": \"cpu\", \"ms\": 4}, {\"op\": \"pending\"}]},"
           " {\"op\": \"cpu\", \"ms\": 1}]},"
           "{\"name\": \"n\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [" STEP_NOTIFY("2", "a") ", "
           STEP_NOTIFY("10", "a") "]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(done(&w, 0), MS(13));
  ck_assert_double_eq(w.counters[0], 2);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Never scheduled twice: parked on a and b after its first pass (0-1), the
 * task is woken by both at 5 (one notifier on another thread); the second
 * wake finds it in its run queue and does nothing, so one pass runs (5-6) and
 * it parks; a's notify at 20 ends the loop: 20-21. Scheduled twice, it would
 * have run on at 6 and ended at 7. */
START_TEST(futures_task_in_run_queue_is_not_scheduled_twice)
{
  ts_model m;
  tu_model(FUT_HEAD("") "\"classes\": ["
           "{\"name\": \"task\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["
           " {\"op\": \"repeat\", \"count\": 2, \"steps\": [{\"op\": \"add\", \"counter\": \"passes\"}, {\"op\": \"cpu\", \"ms\": 1},"
           "  {\"op\": \"register\", \"channel\": \"a\"}, {\"op\": \"register\", \"channel\": \"b\"}, {\"op\": \"pending\"}]},"
           " {\"op\": \"cpu\", \"ms\": 1}]},"
           "{\"name\": \"n\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [" STEP_NOTIFY("5", "a") ", "
           "{\"op\": \"notify\", \"channel\": \"b\"}, " STEP_NOTIFY("15", "a") "]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(done(&w, 0), MS(21));
  ck_assert_double_eq(w.counters[0], 2);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Children. The parent's first pass (0-1) starts two children: each push
 * wakes the parent, which is running (its notified bit); its poll runs both
 * (1-1.5, 1.5-2: each registers on g and returns pending), it registers on t
 * and, notified, runs a second pass at once (2-3: no child woken) and parks.
 * A notifier on thread 1 notifies g at 5, whose task wakes cost 0.1 ms user
 * + 0.2 ms kernel each on another thread: it takes both children's wakers;
 * the first wakes its parent (paid: 5-5.3, the parent runs at 5.3), the
 * second only marks its child (the burst's parent wake is out: free). The
 * third pass (5.3-6.3) polls both children to their ends (6.3-6.8,
 * 6.8-7.3) and parks; t's notify at 10 ends the parent: 10-11. */
START_TEST(futures_children_wake_their_parent_once_per_burst)
{
  ts_model m;
  tu_model(FUT_HEAD(", \"task_wake\": {\"remote_ms\": 0.1, \"remote_kernel_ms\": 0.2}") "\"classes\": ["
           "{\"name\": \"session\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["
           " {\"op\": \"repeat\", \"count\": 3, \"name\": \"k\", \"steps\": [{\"op\": \"add\", \"counter\": \"passes\"},"
           "  {\"op\": \"cpu\", \"ms\": 1},"
           "  {\"op\": \"if\", \"cond\": \"k == 0\", \"then\": ["
           "   {\"op\": \"child\", \"steps\": [{\"op\": \"cpu\", \"ms\": 0.5}, {\"op\": \"register\", \"channel\": \"g\"},"
           "    {\"op\": \"pending\"}, {\"op\": \"cpu\", \"ms\": 0.5}]},"
           "   {\"op\": \"child\", \"steps\": [{\"op\": \"cpu\", \"ms\": 0.5}, {\"op\": \"register\", \"channel\": \"g\"},"
           "    {\"op\": \"pending\"}, {\"op\": \"cpu\", \"ms\": 0.5}]}]},"
           "  {\"op\": \"poll_children\"}, {\"op\": \"register\", \"channel\": \"t\"}, {\"op\": \"pending\"}]},"
           " {\"op\": \"cpu\", \"ms\": 1}]},"
           "{\"name\": \"ng\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [" STEP_NOTIFY("5", "g") "]},"
           "{\"name\": \"nt\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [" STEP_NOTIFY("10", "t") "]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  ck_assert_int_eq(done(&w, 0), MS(11));
  ck_assert_double_eq(w.counters[0], 3);
  ck_assert_int_eq(done(&w, 1), MS(5.3));
  ts_actor_stats ng = ts_world_stats(&w, 1);
  ck_assert_int_eq(ng.cpu, MS(0.3));
  ck_assert_int_eq(ng.kernel, MS(0.2));
  ck_assert_int_eq(done(&w, 3), MS(6.8)); /* the children: hidden actors 3 and 4 */
  ck_assert_int_eq(done(&w, 4), MS(7.3));
  ck_assert_int_eq(w.done, 5);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* Serial wake costs. A notifier on thread 0 wakes four parked waiters, two
 * on its own thread and two on thread 1, at 1 ms: local wakes cost 0.01 ms of
 * user CPU, remote ones 0.1 user + 0.2 kernel, and waking the parked thread
 * 1 costs wake_ms 0.05 once (latency 0.5). Waiter 1 is woken at 1.01, waiter
 * 2 at 1.02, waiter 3 at 1.32 (thread 1: +0.05 to 1.37; it runs at 1.82:
 * done 2.82), waiter 4 at 1.67 (thread 1 already woken: free; done 3.82).
 * Only then does the notifier take its next step (1.67-2.67); its own
 * waiters run after it: 3.67, 4.67. */
START_TEST(futures_notifier_pays_each_wake_serially)
{
  ts_model m;
  tu_model("{\"worker\": {\"kind\": \"thread\"},"
           "\"channels\": [{\"name\": \"c\", \"scope\": \"shared\", \"wake_ms\": 0.05, \"wake_latency_ms\": 0.5,"
           " \"task_wake\": {\"local_ms\": 0.01, \"remote_ms\": 0.1, \"remote_kernel_ms\": 0.2}}],"
           "\"classes\": [{\"name\": \"notifier\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["
           " " STEP_NOTIFY("1", "c") ", {\"op\": \"cpu\", \"ms\": 1}]},"
           "{\"name\": \"waiter\", \"count\": 4, \"placement\": {\"worker\": \"i // 2\"}, \"program\": ["
           " {\"op\": \"wait\", \"channel\": \"c\"}, {\"op\": \"cpu\", \"ms\": 1}]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  static const double expect[] = {2.67, 3.67, 4.67, 2.82, 3.82};
  for (int id = 0; id < 5; id++)
    ck_assert_int_eq(done(&w, id), MS(expect[id]));
  ts_actor_stats n = ts_world_stats(&w, 0);
  ck_assert_int_eq(n.kernel, MS(0.2 + 0.05 + 0.2));
  ck_assert_int_eq(n.cpu, MS(0.01 + 0.01 + 0.3 + 0.05 + 0.3 + 1));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A cost that reads the state: each of three tasks on one thread registers
 * on t and then scans its list, 1 ms per entry: 1, 2 and 3 ms (done at 1, 3,
 * 6). On the indexed channel ti the tasks register on instance i % 2 and
 * scan it: 1, 1, 2 ms more. */
START_TEST(futures_cost_reads_the_waiter_list)
{
  ts_model m;
  tu_model("{\"worker\": {\"kind\": \"thread\"}, \"channels\": [{\"name\": \"t\", \"scope\": \"shared\"},"
           " {\"name\": \"ti\", \"scope\": \"indexed\", \"instances\": 2}],"
           "\"classes\": [{\"name\": \"task\", \"count\": 3, \"program\": ["
           " {\"op\": \"register\", \"channel\": \"t\"}, {\"op\": \"cpu\", \"ms\": \"waiters(t)\"},"
           " {\"op\": \"register\", \"channel\": \"ti\", \"index\": \"i % 2\"}, {\"op\": \"cpu\", \"ms\": \"waiters(ti, i % 2)\"}]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 1), TS_WORLD_OK);
  ck_assert_int_eq(done(&w, 0), MS(2));
  ck_assert_int_eq(done(&w, 1), MS(2 + 3));
  ck_assert_int_eq(done(&w, 2), MS(5 + 5));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* An actor's own state: vars, set, a repeat's "while", version(). The task
 * runs x = 1, 2, 3 ms while x < 3 (done at 6); a child started then copies
 * x (3) and runs 3 ms when polled (6-9); the reader polls the channel's
 * version every 0.4 ms until the publisher's third notify (at 1, 2, 3 ms):
 * it sees 3 at 3.2. */
START_TEST(futures_vars_while_and_version)
{
  ts_model m;
  tu_model("{\"worker\": {\"kind\": \"thread\"}, \"channels\": [{\"name\": \"c\", \"scope\": \"shared\"}],"
           "\"classes\": [{\"name\": \"task\", \"count\": 1, \"placement\": {\"worker\": 0}, \"vars\": {\"x\": 0}, \"program\": ["
           " {\"op\": \"repeat\", \"while\": \"x < 3\", \"steps\": [{\"op\": \"set\", \"var\": \"x\", \"value\": \"x + 1\"},"
           "  {\"op\": \"cpu\", \"ms\": \"x\"}]},"
           " {\"op\": \"child\", \"steps\": [{\"op\": \"cpu\", \"ms\": \"x\"}]}, {\"op\": \"poll_children\"}]},"
           "{\"name\": \"pub\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": [{\"op\": \"repeat\", \"count\": 3,"
           " \"steps\": [" STEP_NOTIFY("1", "c") "]}]},"
           "{\"name\": \"reader\", \"count\": 1, \"placement\": {\"worker\": 2}, \"program\": ["
           " {\"op\": \"repeat\", \"while\": \"version(c) < 3\", \"steps\": [{\"op\": \"sleep\", \"ms\": 0.4}]}]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 3), TS_WORLD_OK);
  ck_assert_int_eq(done(&w, 0), MS(9));
  ck_assert_int_eq(done(&w, 3), MS(9)); /* the child */
  ck_assert_int_eq(done(&w, 2), MS(3.2));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A spawned task and a child start with the timestamp their parent was last
 * carried: the publisher begins its span at 3 and notifies at 5; the reader
 * wakes at 5, spawns a task and starts a child that each end the span d from
 * the notify after 1 ms of CPU, runs 1 ms (5-6) and polls the child (6-7:
 * 4 ms); the spawned task runs when the reader is done (7-8: 5 ms). */
START_TEST(futures_tasks_inherit_the_carried_stamp)
{
  ts_model m;
  tu_model("{\"worker\": {\"kind\": \"thread\"}, \"channels\": [{\"name\": \"c\", \"scope\": \"shared\"}],"
           "\"classes\": [{\"name\": \"pub\", \"count\": 1, \"placement\": {\"worker\": 1}, \"program\": ["
           " {\"op\": \"sleep\", \"ms\": 3}, {\"op\": \"span_begin\", \"span\": \"f\"}, {\"op\": \"sleep\", \"ms\": 2},"
           " {\"op\": \"notify\", \"channel\": \"c\", \"carry\": \"f\"}]},"
           "{\"name\": \"reader\", \"count\": 1, \"placement\": {\"worker\": 0}, \"program\": ["
           " {\"op\": \"wait\", \"channel\": \"c\"},"
           " {\"op\": \"spawn\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"span_end\", \"span\": \"d\", \"from\": \"notify\"}]},"
           " {\"op\": \"child\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"span_end\", \"span\": \"d\", \"from\": \"notify\"}]},"
           " {\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"poll_children\"}]}]}",
           &m);
  ts_world w;
  ck_assert_int_eq(run(&w, &m, 1, 2), TS_WORLD_OK);
  int d = m.spans[0].sampled ? 0 : 1;
  ck_assert_int_eq((int)w.spans[d].len, 2);
  ts_time a = w.spans[d].v[0], b = w.spans[d].v[1];
  ck_assert_int_eq(a < b ? a : b, MS(4));
  ck_assert_int_eq(a < b ? b : a, MS(5));
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* What the loader refuses, with the step's path. */
START_TEST(futures_bad_input_named)
{
  static const struct {
    const char *program, *path, *what;
  } cases[] = {
    {"{\"op\": \"child\", \"steps\": [{\"op\": \"sleep\", \"ms\": 1}, {\"op\": \"pending\"}]}",
     "classes[0].program[0].steps[0].op", "a step that leaves the CPU inside a child"},
    {"{\"op\": \"child\", \"steps\": [{\"op\": \"child\", \"steps\": [{\"op\": \"pending\"}]}]}",
     "classes[0].program[0].steps[0].op", "a child inside a child"},
    {"{\"op\": \"child\", \"steps\": [{\"op\": \"poll_children\"}]}", "classes[0].program[0].steps[0].op",
     "poll_children inside a child"},
    {"{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"pending\"}, {\"op\": \"unlock\", \"lock\": \"m\"}",
     "classes[0].program[1].op", "pending while mutex \"m\" is held"},
    {"{\"op\": \"register\", \"channel\": \"k\"}", "classes[0].program[0].channel", "counts tokens"},
    {"{\"op\": \"cpu\", \"ms\": \"waiters(k, 0)\"}", "classes[0].program[0].ms",
     "unknown function or name \"waiters(k,i)\""},
    {"{\"op\": \"cpu\", \"ms\": \"waiters(nope)\"}", "classes[0].program[0].ms",
     "unknown function or name \"waiters(nope)\""},
    {"{\"op\": \"set\", \"var\": \"y\", \"value\": 1}", "classes[0].program[0].var", "no variable named \"y\""},
    {"{\"op\": \"repeat\", \"steps\": [{\"op\": \"cpu\", \"ms\": 1}]}", "classes[0].program[0].count",
     "missing (required without \"while\")"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char json[1024];
    snprintf(json, sizeof json,
             "{\"worker\": {\"kind\": \"thread\"}, \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": "
             "\"shared\"}], \"channels\": [{\"name\": \"k\", \"scope\": \"shared\", \"tokens\": true}],"
             " \"classes\": [{\"name\": \"t\", \"count\": 1, \"vars\": {\"x\": 0}, \"program\": [%s]}]}",
             cases[i].program);
    tu_refuse(json, cases[i].path, cases[i].what);
  }
}
END_TEST

START_TEST(futures_examples_run)
{
  static const char *const ex[] = {"futures", NULL};
  tu_run_examples(ex);
}
END_TEST

Suite *futures_suite(void)
{
  Suite *s = suite_create("futures");
  const TTest *const core[] = {futures_any_registered_channel_wakes_the_task,
                               futures_wake_during_the_pass_runs_it_again,
                               futures_task_in_run_queue_is_not_scheduled_twice,
                               futures_children_wake_their_parent_once_per_burst,
                               futures_notifier_pays_each_wake_serially, futures_cost_reads_the_waiter_list,
                               futures_vars_while_and_version, futures_tasks_inherit_the_carried_stamp, NULL};
  const TTest *const errors[] = {futures_bad_input_named, futures_examples_run, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  tu_tcase(s, "errors", errors, NULL, NULL, 60);
  return s;
}
