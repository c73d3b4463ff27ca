/* Scheduling: the ring buffer under the queues, the FIFO policy, and the
 * wa-sqlite priority policy worked by hand. Queue items are written as
 * strings of class letters: F foreground, N normal, B background; item i gets
 * actor id i. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sched/policy.h"
#include "sched/ring.h"

#include "testutil.h"

static void ring_push_range(ts_ring *r, int from, int to)
{
  for (int x = from; x < to; x++)
    ck_assert_int_eq(ts_ring_push(r, x), 0);
}

static void ring_expect(const ts_ring *r, const int *want, size_t n)
{
  ck_assert_uint_eq(r->len, n);
  for (size_t i = 0; i < n; i++)
    ck_assert_int_eq(ts_ring_at(r, i), want[i]);
}

static int class_of(char c)
{
  return c == 'F' ? TS_CLASS_FOREGROUND : c == 'N' ? TS_CLASS_NORMAL : TS_CLASS_BACKGROUND;
}

/* Queue the classes in `items` as actors 0, 1, 2... */
static void queue_fill(ts_sched_queue *q, const char *items, int first_id)
{
  for (int i = 0; items[i]; i++)
    ck_assert_int_eq(ts_sched_queue_push(q, first_id + i, class_of(items[i]), 0), 0);
}

/* An empty queue whose policy allows burst_limit foreground jobs in a row. */
static void queue_init_burst(ts_sched_queue *q, int burst_limit)
{
  ts_sched_params p = ts_sched_default_params();
  p.burst_limit = burst_limit;
  ts_sched_queue_init(q, &p);
}

/* Pop everything with the policy and compare with the expected id order. */
static void queue_expect_order(ts_sched_queue *q, const ts_sched_type *t, const int *want, size_t n)
{
  ck_assert_uint_eq(ts_sched_queue_len(q), n);
  for (size_t i = 0; i < n; i++) {
    int got = ts_sched_queue_pop(q, t);
    ck_assert_msg(got == want[i], "pick %zu: got actor %d, expected %d", i, got, want[i]);
  }
  ck_assert_int_eq(ts_sched_queue_pop(q, t), -1);
  ck_assert_uint_eq(ts_sched_queue_len(q), 0);
}

/* The whole priority case: a fresh queue of `items`, popped to the end. */
static void priority_case(const char *items, int burst_limit, const int *want)
{
  ts_sched_queue q;
  queue_init_burst(&q, burst_limit);
  queue_fill(&q, items, 0);
  queue_expect_order(&q, &ts_sched_priority_barrier, want, strlen(items));
  ts_sched_queue_finish(&q);
}

START_TEST(sched_ring_push_pop_fifo)
{
  ts_ring r;
  ts_ring_init(&r);
  ck_assert_int_eq(ts_ring_pop(&r), -1);
  ring_push_range(&r, 0, 5);
  for (int x = 0; x < 5; x++)
    ck_assert_int_eq(ts_ring_pop(&r), x);
  ck_assert_int_eq(ts_ring_pop(&r), -1);
  ck_assert_uint_eq(r.len, 0);
  ts_ring_finish(&r);
  ck_assert_ptr_null(r.v);
}
END_TEST

START_TEST(sched_ring_wraps_and_grows_in_order)
{
  ts_ring r;
  ts_ring_init(&r);
  ring_push_range(&r, 0, 16); /* fills the first allocation */
  size_t cap = r.cap;
  for (int x = 0; x < 10; x++)
    ck_assert_int_eq(ts_ring_pop(&r), x);
  ring_push_range(&r, 16, 26); /* wraps around the end */
  ck_assert_uint_eq(r.cap, cap);
  ck_assert_uint_gt(r.head + r.len, r.cap);
  ring_push_range(&r, 26, 40); /* grows while wrapped */
  ck_assert_uint_gt(r.cap, cap);
  ck_assert_uint_eq(r.len, 30);
  for (int x = 10; x < 40; x++)
    ck_assert_int_eq(ts_ring_pop(&r), x);
  ck_assert_int_eq(ts_ring_pop(&r), -1);
  ts_ring_finish(&r);
}
END_TEST

START_TEST(sched_ring_remove_at_keeps_order)
{
  ts_ring r;
  ts_ring_init(&r);
  ring_push_range(&r, 0, 16);
  for (int x = 0; x < 12; x++)
    ts_ring_pop(&r);
  ring_push_range(&r, 16, 24); /* 12..23, wrapped: head at 12 of 16 */
  ck_assert_int_eq(ts_ring_remove_at(&r, 5), 17); /* across the wrap */
  ck_assert_int_eq(ts_ring_remove_at(&r, 0), 12); /* the head */
  ck_assert_int_eq(ts_ring_remove_at(&r, r.len - 1), 23); /* the tail */
  static const int want[] = {13, 14, 15, 16, 18, 19, 20, 21, 22};
  ring_expect(&r, want, 9);
  ring_push_range(&r, 24, 26); /* the tail still appends after removals */
  static const int want2[] = {13, 14, 15, 16, 18, 19, 20, 21, 22, 24, 25};
  ring_expect(&r, want2, 11);
  ts_ring_finish(&r);
}
END_TEST

START_TEST(sched_fifo_returns_arrival_order)
{
  static const int want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  ts_sched_queue q;
  queue_init_burst(&q, 8);
  queue_fill(&q, "BNFFBNFBFN", 0); /* classes are ignored */
  queue_expect_order(&q, &ts_sched_fifo, want, 10);
  ts_sched_queue_finish(&q);
}
END_TEST

START_TEST(sched_priority_foreground_bypasses_background)
{
  static const int want[] = {2, 4, 0, 1, 3};
  priority_case("BBFBF", 8, want);
}
END_TEST

START_TEST(sched_priority_foreground_never_crosses_normal)
{
  /* B N F: the barrier is N at 1; nothing foreground before it: head, then N, then F */
  static const int want1[] = {0, 1, 2};
  priority_case("BNF", 8, want1);
  /* B F N F: F1 bypasses B0, but F3 waits behind N2 */
  static const int want2[] = {1, 0, 2, 3};
  priority_case("BFNF", 8, want2);
  /* normal and background stay FIFO with each other */
  static const int want3[] = {0, 1, 2, 3};
  priority_case("NBNB", 8, want3);
}
END_TEST

START_TEST(sched_priority_burst_limit_lets_head_run)
{
  /* B then ten F: eight F run, then the burst limit lets the head B0 run, then the rest */
  static const int want[] = {1, 2, 3, 4, 5, 6, 7, 8, 0, 9, 10};
  priority_case("BFFFFFFFFFF", 8, want);
  /* a smaller limit */
  static const int want2[] = {1, 2, 0, 3, 5, 4}; /* F5 before B4: the streak restarted at F3 */
  priority_case("BFFFBF", 2, want2);
}
END_TEST

START_TEST(sched_priority_foreground_head_runs_past_burst_limit)
{
  /* all foreground: the head is foreground, so the burst limit never blocks it */
  static const int want[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
  priority_case("FFFFFFFFFFFF", 8, want);
}
END_TEST

START_TEST(sched_priority_streak_spans_pushes)
{
  ts_sched_queue q;
  queue_init_burst(&q, 2);
  queue_fill(&q, "BFF", 0);
  ck_assert_int_eq(ts_sched_queue_pop(&q, &ts_sched_priority_barrier), 1);
  ck_assert_int_eq(ts_sched_queue_pop(&q, &ts_sched_priority_barrier), 2);
  /* two foreground in a row: a newly queued F3 must let the head B0 run first */
  queue_fill(&q, "F", 3);
  ck_assert_int_eq(ts_sched_queue_pop(&q, &ts_sched_priority_barrier), 0);
  ck_assert_int_eq(q.run_streak, 0);
  /* the background run reset the streak */
  queue_fill(&q, "BF", 4);
  static const int want[] = {3, 5, 4};
  queue_expect_order(&q, &ts_sched_priority_barrier, want, 3);
  ts_sched_queue_finish(&q);
}
END_TEST

START_TEST(sched_find_by_name)
{
  ck_assert_ptr_eq(ts_sched_find("fifo"), &ts_sched_fifo);
  ck_assert_ptr_eq(ts_sched_find("priority_barrier"), &ts_sched_priority_barrier);
  ck_assert_ptr_eq(ts_sched_find("priority"), &ts_sched_priority_barrier); /* the old name */
  ck_assert_ptr_null(ts_sched_find("lifo"));
  ck_assert_ptr_null(ts_sched_find("FIFO"));
  ck_assert_ptr_null(ts_sched_find(""));
  const ts_sched_type *const *all = ts_sched_all();
  size_t n = 0;
  while (all[n]) {
    ck_assert_ptr_eq(ts_sched_find(all[n]->name), all[n]);
    ck_assert_ptr_nonnull(all[n]->summary);
    n++;
  }
  ck_assert_uint_eq(n, 5); /* fifo, priority_barrier, strict_priority, shortest_first, weighted_fair */
}
END_TEST

START_TEST(sched_queue_pop_empty)
{
  ts_sched_queue q;
  queue_init_burst(&q, 8);
  ck_assert_uint_eq(ts_sched_queue_len(&q), 0);
  ck_assert_int_eq(ts_sched_queue_pop(&q, &ts_sched_fifo), -1);
  ck_assert_int_eq(ts_sched_queue_pop(&q, &ts_sched_priority_barrier), -1);
  ts_sched_queue_finish(&q);
}
END_TEST

/* A two-class M/G/1 model (high: foreground, low: normal) on one event loop
 * under strict_priority, with `pre` before each class's work (JSON steps and
 * a comma, or ""), and `worker` extra worker keys. */
static void loop_model(ts_model *m, const char *pre, const char *worker)
{
  tu_modelf(m,
            "{\"name\": \"p\", \"worker\": {\"policy\": \"strict_priority\"%s},"
            " \"classes\": ["
            "{\"name\": \"high\", \"count\": \"forever\", \"queue_class\": \"foreground\","
            " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 400},"
            " \"program\": [%s{\"op\": \"cpu\", \"ms\": 0.5}]},"
            "{\"name\": \"low\", \"count\": \"forever\","
            " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 300},"
            " \"program\": [%s{\"op\": \"cpu\", \"ms\": 2}]}]}",
            worker, pre, pre);
}

/* The same two classes calling server "cpu" of policy `policy`, the high
 * class's call with the extra keys `call` (a comma first, or ""). */
static void server_model(ts_model *m, const char *policy, const char *call)
{
  tu_modelf(m,
            "{\"name\": \"p\", \"pools\": [{\"name\": \"srv\", \"kind\": \"thread\", \"count\": 1}],"
            " \"servers\": [{\"name\": \"cpu\", \"pool\": \"srv\", \"policy\": \"%s\"}],"
            " \"classes\": ["
            "{\"name\": \"high\", \"count\": \"forever\", \"queue_class\": \"foreground\","
            " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 400},"
            " \"program\": [{\"op\": \"call\", \"server\": \"cpu\"%s,"
            " \"handler\": [{\"op\": \"cpu\", \"ms\": 0.5}]}]},"
            "{\"name\": \"low\", \"count\": \"forever\","
            " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 300},"
            " \"program\": [{\"op\": \"call\", \"server\": \"cpu\","
            " \"handler\": [{\"op\": \"cpu\", \"ms\": 2}]}]}]}",
            policy, call);
}

static void expect_note(const ts_model *m, const char *want)
{
  char note[1024] = "";
  int got = ts_model_policy_note(m, note, sizeof note);
  if (!want) {
    ck_assert_msg(!got, "unexpected note: %s", note);
    return;
  }
  ck_assert_msg(got && strstr(note, want), "note: %s", note);
  ck_assert_ptr_null(strchr(note, '\n'));
}

/* On an event loop arrivals are I/O callbacks, run in arrival order; the
 * policy orders only the time-slice queue, which nothing enters without a
 * yield. With a yield (or preempt) the classes are served by class. */
START_TEST(sched_loop_policy_without_yield_is_noted)
{
  ts_model m;
  loop_model(&m, "", "");
  expect_note(&m, "worker.policy strict_priority never reorders anything here");
  expect_note(&m, "no step yields");
  expect_note(&m, "{\"op\": \"yield\"} before the work");
  ts_model_finish(&m);
  loop_model(&m, "{\"op\": \"yield\"},", "");
  expect_note(&m, NULL);
  ts_model_finish(&m);
  loop_model(&m, "", ", \"preempt\": true");
  expect_note(&m, NULL);
  ts_model_finish(&m);
  /* one class only: a class policy has nothing to order by */
  tu_modelf(&m, "{\"name\": \"p\", \"worker\": {\"policy\": \"weighted_fair\"}, \"classes\": [{\"name\": \"a\","
                " \"count\": 2, \"program\": [{\"op\": \"yield\"}, {\"op\": \"cpu\", \"ms\": 1}]}]}");
  expect_note(&m, "worker.policy weighted_fair never reorders anything here: it orders by priority class, and every "
                  "actor and call has class normal");
  ts_model_finish(&m);
}
END_TEST

/* A server orders by the call's class, which defaults to normal whatever the
 * caller's queue_class. */
START_TEST(sched_server_policy_with_one_call_class_is_noted)
{
  ts_model m;
  server_model(&m, "strict_priority", "");
  expect_note(&m, "servers[0].policy strict_priority never reorders anything here");
  expect_note(&m, "every call to \"cpu\" has class normal");
  expect_note(&m, "e.g. classes[0].program[0].class \"foreground\"");
  ts_model_finish(&m);
  server_model(&m, "strict_priority", ", \"class\": \"foreground\"");
  expect_note(&m, NULL);
  ts_model_finish(&m);
  server_model(&m, "shortest_first", ", \"work_ms\": 2");
  expect_note(&m, "servers[0].policy shortest_first never reorders anything here: it orders calls by their declared "
                  "work (work_ms, else the handler's fixed cpu ms), and every call to \"cpu\" declares 2 ms");
  ts_model_finish(&m);
  server_model(&m, "shortest_first", ""); /* 0.5 and 2 ms: the handlers' */
  expect_note(&m, NULL);
  ts_model_finish(&m);
  server_model(&m, "fifo", "");
  expect_note(&m, NULL);
  ts_model_finish(&m);
}
END_TEST

/* dir/m.json: a foreground class and a normal one, one 1 ms job each, on a
 * worker with queue policy policy. */
static void write_policy_model(const char *dir, const char *policy)
{
  char path[600], text[600];
  snprintf(path, sizeof path, "%s/m.json", dir);
  snprintf(text, sizeof text,
           "{\"name\": \"p\", \"worker\": {\"policy\": \"%s\"}, \"classes\": ["
           "{\"name\": \"a\", \"count\": 1, \"queue_class\": \"foreground\", \"program\": [{\"op\": "
           "\"cpu\", \"ms\": 1}]}, {\"name\": \"b\", \"count\": 1, \"program\": [{\"op\": \"cpu\", "
           "\"ms\": 1}]}]}",
           policy);
  tu_write_file(path, text);
}

/* The command line prints the note, one line on stderr, and runs: the
 * model is valid. */
START_TEST(sched_policy_note_on_the_command_line)
{
  char dir[512], path[600];
  tu_mkdtemp(dir, sizeof dir, "sched");
  write_policy_model(dir, "strict_priority");
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1], \"replications\": 1}");
  char *err = NULL;
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s/s.json -o %s/out -q --no-plots --samples none", dir, dir), 0);
  const char *want = "/m.json: worker.policy strict_priority never reorders anything here: ";
  ck_assert_msg(strncmp(err, "tssim: note: ", 13) == 0 && strstr(err, want) && strchr(err, '\n') == err + strlen(err) - 1,
                "stderr: %s", err);
  free(err);
  tu_rmtree(dir);
}
END_TEST

/* A policy that a scenario axis gives says the same, once per value it
 * applies to, naming that value: a policy axis over fifo and
 * strict_priority notes strict_priority at policy=strict_priority (before:
 * nothing, the model file's policy being fifo). An axis that leaves the
 * note the same everywhere gets it once, as without axes. */
START_TEST(sched_policy_note_names_the_axis_value)
{
  char dir[512], path[600];
  tu_mkdtemp(dir, sizeof dir, "sched");
  write_policy_model(dir, "fifo");
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1], \"replications\": 1, \"axes\": {"
                      "\"t\": {\"path\": \"worker.threshold_ms\", \"values\": [10, 2]},"
                      " \"policy\": {\"path\": \"worker.policy\", \"values\": [\"fifo\", \"strict_priority\", \"weighted_fair\"]}}}");
  char *err = NULL;
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s/s.json -o %s/out -q --no-plots --samples none", dir, dir), 0);
  const char *sp = "/m.json at policy=strict_priority: worker.policy strict_priority never reorders anything here: ";
  const char *wf = "/m.json at policy=weighted_fair: worker.policy weighted_fair never reorders anything here: ";
  const char *two = strchr(err, '\n') ? strchr(strchr(err, '\n') + 1, '\n') : NULL;
  ck_assert_msg(strncmp(err, "tssim: note: ", 13) == 0 && strstr(err, sp) && strstr(err, wf) && two &&
                    two == err + strlen(err) - 1 && strstr(err, sp) < strstr(err, wf),
                "stderr: %s", err);
  free(err);
  /* explain draws one point: the note of its model */
  ck_assert_int_eq(tu_tssimf(NULL, &err, "explain %s/s.json --axis policy=weighted_fair --axis t=2", dir), 0);
  ck_assert_msg(strstr(err, "/m.json: worker.policy weighted_fair never reorders anything here") &&
                    !strstr(err, "strict_priority"),
                "stderr: %s", err);
  free(err);
  /* the same note at every combination: once, as without axes */
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1], \"replications\": 1, \"axes\": {"
                      "\"t\": {\"path\": \"worker.threshold_ms\", \"values\": [10, 2]}}}");
  ck_assert_int_eq(tu_tssimf(NULL, &err, "run %s/s.json -o %s/out2 -q --no-plots --samples none --set "
                                         "worker.policy=strict_priority",
                             dir, dir),
                   0);
  const char *once = "/m.json: worker.policy strict_priority never reorders anything here: ";
  ck_assert_msg(strncmp(err, "tssim: note: ", 13) == 0 && strstr(err, once) && strchr(err, '\n') == err + strlen(err) - 1,
                "stderr: %s", err);
  free(err);
  tu_rmtree(dir);
}
END_TEST

Suite *sched_suite(void)
{
  Suite *s = suite_create("sched");
  const TTest *const core[] = {sched_ring_push_pop_fifo,
                               sched_ring_remove_at_keeps_order,
                               sched_fifo_returns_arrival_order,
                               sched_priority_foreground_bypasses_background,
                               sched_priority_foreground_never_crosses_normal,
                               sched_find_by_name,
                               NULL};
  const TTest *const limits[] = {sched_ring_wraps_and_grows_in_order,
                                 sched_priority_burst_limit_lets_head_run,
                                 sched_priority_foreground_head_runs_past_burst_limit,
                                 sched_priority_streak_spans_pushes,
                                 sched_queue_pop_empty,
                                 NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  const TTest *const notes[] = {sched_loop_policy_without_yield_is_noted,
                                sched_server_policy_with_one_call_class_is_noted,
                                sched_policy_note_on_the_command_line,
                                sched_policy_note_names_the_axis_value,
                                NULL};
  tu_tcase(s, "limits", limits, NULL, NULL, 0);
  tu_tcase(s, "notes", notes, NULL, NULL, 0);
  return s;
}
