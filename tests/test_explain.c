/* tssim explain where it was wrong or silent: its spans measured in the
 * scenario's window as tssim run measures them, the wave law's closed form
 * per queue policy (processor sharing on a round-robin queue, checked
 * against replications of the simulator), the wait between an actor's
 * arrival and its wave, and the worker an actor is on after a hop. CLI
 * tests run the built binary (TSSIM_BINARY). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The game-backend model of test_viz.c: a clock ticks every 50 ms, each of
 * n rooms does an exponential burst of 2 ms per tick; span tick from the
 * tick to the room's burst's end. */
#define GAME_MODEL                                                                                                  \
  "{\"name\": \"game\", \"worker\": {\"kind\": \"thread\"},"                                                        \
  " \"channels\": [{\"name\": \"tick\", \"scope\": \"shared\"}],"                                                   \
  " \"classes\": [{\"name\": \"clock\", \"count\": \"forever\", \"report\": false,"                                 \
  " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 50}, \"program\": ["                                       \
  "{\"op\": \"span_begin\", \"span\": \"tick\"}, {\"op\": \"notify\", \"channel\": \"tick\","                       \
  " \"carry\": \"tick\"}]}, {\"name\": \"room\", \"count\": \"n\", \"program\": ["                                  \
  "{\"op\": \"repeat\", \"count\": \"forever\", \"steps\": [{\"op\": \"wait\", \"channel\": \"tick\"},"             \
  " {\"op\": \"cpu\", \"ms\": 2, \"dist\": \"exponential\"},"                                                       \
  " {\"op\": \"span_end\", \"span\": \"tick\", \"from\": \"notify\"}]}]}]}"

/* explain's spans are the samples tssim run takes: those that ended in the
 * scenario's window (warmup_ms 300, window_ms 400 of a 1000 ms run), their
 * count, rate over the window and quantiles equal to run's tick_* metrics;
 * the header says the window. Before, explain took the whole run (about
 * 2.5 times the samples). */
START_TEST(explain_spans_measure_run_s_window)
{
  char dir[512], *out;
  ck_assert_int_eq(tu_run_files("explain-window", GAME_MODEL,
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [60], \"workers\": [2],"
                                " \"horizon_ms\": 1000, \"warmup_ms\": 300, \"window_ms\": 400, \"replications\": 1,"
                                " \"table\": [\"tick_count\", \"tick_rate_per_s\", \"tick_mean_ms\", \"tick_p99_ms\"]}",
                                dir, sizeof dir, NULL, NULL),
                   0);
  char path[600];
  snprintf(path, sizeof path, "%s/out/summary.csv", dir);
  tu_table t;
  tu_table_read(&t, path);
  ck_assert_int_eq(t.nrows, 1);
  char want[200];
  snprintf(want, sizeof want, "  span tick: %.0f samples, %.3f per s; mean %.3f ms, p50 ", tu_table_num(&t, 0, "tick_count"),
           tu_table_num(&t, 0, "tick_rate_per_s"), tu_table_num(&t, 0, "tick_mean_ms"));
  char p99[80];
  snprintf(p99, sizeof p99, ", p99 %.3f, max ", tu_table_num(&t, 0, "tick_p99_ms"));
  tu_table_free(&t);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  const char *span = strstr(out, "\nspans (the model's latency measures; this replication, every sample that ended in "
                                 "the measurement window [300.000, 700.000) ms (warmup_ms, window_ms), as tssim run "
                                 "takes them):\n");
  ck_assert_msg(span, "%.3000s", out);
  ck_assert_msg(strstr(span, want) && strstr(span, p99), "want \"%s\" and \"%s\" in:\n%.3000s", want, p99, out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* What an actor did between its arrival and its wave_start mark is its own
 * line, by state. Two actors arrive together on one loop, each waits 20 ms
 * of I/O, marks wave_start and runs 1 ms: the first marks at 20 ms, the
 * second waits for the loop 1 ms more (its callback ready while the first
 * runs), so before the wave: mean 20.5 ms, I/O 20 and callback wait 0.5.
 * Before, nothing said where the 20.5 ms went (the wave is 1 ms). */
START_TEST(explain_shows_the_wait_before_the_wave)
{
  char dir[512], *out;
  ck_assert_int_eq(tu_run_files("explain-before",
                                "{\"name\": \"pre\", \"classes\": [{\"name\": \"c\", \"count\": \"n\", \"program\": ["
                                "{\"op\": \"io\", \"ms\": 20}, {\"op\": \"mark\", \"name\": \"wave_start\"},"
                                " {\"op\": \"cpu\", \"ms\": 1}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1], \"replications\": 1}",
                                dir, sizeof dir, NULL, NULL),
                   0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  ck_assert_msg(strstr(out, "  wave (wave_start to wave_end) per actor: mean 1 ms, median 1, min 1, max 1\n"
                            "  before its wave (arrival to wave_start, not in the wave): 20.5 ms per actor, mean:\n"
                            "    I/O 20, callback wait 0.5\n"),
                "%.3000s", out);
  free(out);
  /* a wave that begins at the arrival has no such line */
  ck_assert_int_eq(tu_tssim("explain scenarios/rr-wave.json --n 2 --workers 1", &out, NULL), 0);
  ck_assert_msg(!strstr(out, "before its wave"), "%.3000s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* A small class (uniform 4 to 6 ms of CPU) and a big one (40 to 60 ms), one
 * actor each, arriving together on one event loop whose fifo queue cuts
 * their CPU in 0.1 ms slices. SLICED is the cpu steps' "sliced". */
static void two_class_files(const char *tag, const char *sliced, int replications, char *dir, size_t cap)
{
  char model[1024], scenario[300];
  snprintf(model, sizeof model,
           "{\"name\": \"two\", \"host\": {\"cores\": 0}, \"worker\": {\"policy\": \"fifo\", \"threshold_ms\": 0.1,"
           " \"yield_overhead_ms\": 0, \"loop_overhead_ms\": 0}, \"classes\": ["
           "{\"name\": \"small\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"dist\": \"uniform\", \"min_ms\": 4,"
           " \"max_ms\": 6, \"sliced\": %s}]},"
           "{\"name\": \"big\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"dist\": \"uniform\", \"min_ms\": 40,"
           " \"max_ms\": 60, \"sliced\": %s}]}]}",
           sliced, sliced);
  snprintf(scenario, sizeof scenario,
           "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], \"replications\": %d, \"seed\": 1,"
           " \"table\": [\"wave_ms\"]}",
           replications);
  ck_assert_int_eq(tu_run_files(tag, model, scenario, dir, cap, NULL, NULL), 0);
}

/* The number after the first "= simulated - law" at or after from. */
static double law_gap(const char *from)
{
  const char *p = strstr(from, "= simulated - law");
  ck_assert_ptr_nonnull(p);
  return atof(p + strlen("= simulated - law"));
}

/* On a round-robin (fifo, time-sliced) queue the law is processor
 * sharing's: wave_i ~ c_i + sum_j min(c_j, c_i). Against 30 replications of
 * the simulator (tssim run's mean wave and its 95% half-width per class),
 * the form from the declared mean demands (small: 5 + 5 = 10 ms, big: 50 +
 * 5 = 55 ms) lies within the CI of both classes, while the old sum of the
 * co-located CPU (55 ms for both) misses the small class by far. On one
 * replication (explain) the form misses the small actor's wave by less
 * than one slice (0.1 ms: it finishes in the last round of slices) and the
 * big one's not at all. */
START_TEST(explain_law_is_processor_sharing_on_a_round_robin_queue)
{
  char dir[512], path[600], *out;
  two_class_files("explain-ps", "\"time\"", 30, dir, sizeof dir);
  snprintf(path, sizeof path, "%s/out/summary.csv", dir);
  tu_table t;
  tu_table_read(&t, path);
  ck_assert_int_eq(t.nrows, 2);
  for (int r = 0; r < 2; r++) {
    int small = strcmp(tu_table_cell(&t, r, "class"), "small") == 0;
    double mean = tu_table_num(&t, r, "wave_ms_mean"), ci = tu_table_num(&t, r, "wave_ms_ci95");
    double ps = small ? 5 + 5 : 50 + 5, sum = 55;
    ck_assert_msg(fabs(mean - ps) <= ci, "%s: simulated %g +- %g, processor sharing %g", small ? "small" : "big",
                  mean, ci, ps);
    if (small)
      ck_assert_msg(fabs(mean - sum) > ci, "small: simulated %g +- %g, the sum %g", mean, ci, sum);
  }
  tu_table_free(&t);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  const char *small = strstr(out, "\nwave law for class small: wave(N) ~ m*(queued CPU + loop CPU) + overlappable "
                                  "latency\n  for equal demands; its queue serves in turn (round robin), so per actor, "
                                  "as under processor sharing:\n  wave ~ c + sum over j of min(c_j, c) + overlappable "
                                  "latency\n");
  const char *big = strstr(out, "\nwave law for class big: wave(N) ~ m*(queued CPU + loop CPU) + overlappable "
                                "latency\n  for equal demands; its queue serves in turn (round robin)");
  ck_assert_msg(small && big, "%.3000s", out);
  double gs = law_gap(small), gb = law_gap(big);
  ck_assert_msg(gs <= 0 && gs > -0.1 && gb == 0, "small %g, big %g:\n%.3000s", gs, gb, out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* Unsliced, each actor's CPU runs in one slice, first come first served:
 * the law is the CPU of those ahead plus its own, exact here (the small
 * actor, id 0, first: c_small; the big one c_small + c_big). */
START_TEST(explain_law_is_fifo_when_the_cpu_runs_to_completion)
{
  char dir[512], *out;
  two_class_files("explain-fifo", "false", 1, dir, sizeof dir);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  const char *small = strstr(out, "\nwave law for class small: each actor's CPU ran in one slice (first come, run to "
                                  "completion), so per actor:\n  wave ~ c + sum over the j ahead of it of c_j");
  const char *big = strstr(out, "\nwave law for class big: each actor's CPU ran in one slice");
  ck_assert_msg(small && big, "%.3000s", out);
  ck_assert_msg(law_gap(small) == 0 && law_gap(big) == 0, "%.3000s", out);
  ck_assert_msg(strstr(small, "    worker busy in its wave less c + CPU ahead "), "%.3000s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* A queue that orders by queue class (strict_priority) with two queue
 * classes sharing the waves has no closed form: the law says so and why. */
START_TEST(explain_law_does_not_apply_to_a_priority_queue)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain scenarios/wa-sqlite-zc-two-classes.json --axis policy=strict_priority", &out,
                            NULL),
                   0);
  ck_assert_msg(strstr(out, "\nwave law for class viewsyncer: closed form does not apply: the worker's strict_priority "
                            "queue orders by queue class, and class foreground shares the waves of class viewsyncer "
                            "from another queue class: not in turn\n"),
                "%.3000s", out);
  free(out);
}
END_TEST

/* After a hop an actor's co-located set and its waits are those of the
 * worker it reached, not its home. Two movers hop from the event loop to
 * one thread and run 5 ms there, one stay runs 5 ms on the loop: the
 * movers' m is 2 (the thread's), the stay's 1 (before: 3 for all, every
 * actor counted on its home loop). Without the stay, the mover that waits
 * 2.5 ms (mean) in the thread's run queue waits for the other mover's CPU
 * (before: the loop's, idle). */
START_TEST(explain_after_a_hop_uses_the_worker_reached)
{
  char dir[512], *out;
  for (int stay = 0; stay <= 1; stay++) {
    char model[600];
    snprintf(model, sizeof model,
             "{\"name\": \"hop\", \"pools\": [{\"name\": \"t\", \"kind\": \"thread\", \"count\": 1}], \"classes\": ["
             "{\"name\": \"mover\", \"count\": 2, \"program\": [{\"op\": \"hop\", \"pool\": \"t\", \"to\": 0},"
             " {\"op\": \"cpu\", \"ms\": 5}]}%s]}",
             stay ? ", {\"name\": \"stay\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 5}]}" : "");
    ck_assert_int_eq(tu_run_files("explain-hop", model, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}",
                                  dir, sizeof dir, NULL, NULL),
                     0);
    ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
    if (stay)
      ck_assert_msg(strstr(out, "\nclass mover: 2 actors, m = 2 (") && strstr(out, "\nclass stay: 1 actor, m = 1 ("),
                    "%.3000s", out);
    else
      ck_assert_msg(strstr(out, "  while it waited (queue, run queue, lock: 2.5 ms) its worker ran:\n"
                                "    other actors' CPU                                   2.5 ms  100.0%\n"),
                    "%.3000s", out);
    free(out);
    tu_rmtree(dir);
  }
}
END_TEST

/* A caller's wait for a reply is split as the Gantt chart splits it: its
 * call's wait in the server's queue, its request and reply legs, and (a
 * line under the rows) its service, the handler's own states. rpc-server
 * (priority_barrier, burst limit 8) with 2 ms request and 3 ms reply legs on
 * the batches: the reads are served 1-11, batch i waits in the queue from 2
 * to 11 + 10 i (mean 54 ms), travels 2 + 3 ms and is served 10 ms; read i
 * waits i ms in the queue (mean 4.5) and has no legs. Before, one row "waiting for a
 * reply" (59 ms) lumped queue and legs. A model without calls keeps the one
 * name (the rows of states it has). */
START_TEST(explain_splits_the_reply_wait_by_the_calls)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/rpc-server.json --axis policy=priority_barrier"
                            " --set 'classes[0].program[0].request_ms=2' --set 'classes[0].program[0].reply_ms=3'",
                            &out, NULL), 0);
  const char *batch = strstr(out, "\nclass batch: "), *read = strstr(out, "\nclass read: ");
  ck_assert_msg(batch && read, "%.3000s", out);
  ck_assert_msg(strstr(batch, "    waiting for a reply: queued at the server            54 ms   78.3%\n"
                              "    waiting for a reply: request or reply legs            5 ms    7.2%\n"
                              "    = wave                                               69 ms\n"
                              "  its calls (mean per actor): queued at the server 54 ms, request and reply legs 5 ms,"
                              " service 10 ms\n") && strstr(batch, "\nclass read: ") == read,
                "%.3000s", out);
  ck_assert_msg(strstr(read, "    waiting for a reply: queued at the server           4.5 ms   81.8%\n") &&
                    !strstr(read, "request or reply legs  ") && strstr(read, " request and reply legs 0 ms, service 1 ms\n"),
                "%.3000s", out);
  ck_assert_msg(!strstr(out, "    waiting for a reply  "), "%.3000s", out);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/rr-wave.json --n 2 --workers 1", &out, NULL), 0);
  ck_assert_msg(!strstr(out, "waiting for a reply") && !strstr(out, "its calls"), "%.3000s", out);
  free(out);
}
END_TEST

/* The report of tssim explain on model (JSON text) in a one-worker
 * scenario of its own (removed after); the caller frees it. */
static char *explain_model(const char *tag, const char *model)
{
  char dir[256], *out;
  ck_assert_int_eq(tu_run_files(tag, model, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}", dir,
                                sizeof dir, NULL, NULL),
                   0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  tu_rmtree(dir);
  return out;
}

/* The wave law of class cls in explain's report on model (explain_model):
 * *law, from its heading on; the caller frees the report. */
static char *explain_law(const char *tag, const char *model, const char *cls, const char **law)
{
  char *out = explain_model(tag, model), head[96];
  snprintf(head, sizeof head, "\nwave law for class %s: ", cls);
  *law = strstr(out, head);
  ck_assert_msg(*law, "%.4000s", out);
  return out;
}

/* What a call waited behind, worked by hand: 4 callers arrive 1 ms apart at
 * a server of 2 places (2 threads), each served 5 ms. Calls 0 and 1 run at
 * once ([0, 5), [1, 6)); call 2 waits [2, 5) behind both (3 + 3 ms), call
 * 3 waits [3, 6) behind calls 0, 1 and 2 (2 + 3 + 1 ms): queue 1.5 ms and
 * behind 3 ms a call, mean. The sums come from sorted admissions and ends
 * (explain_more.c's served), no longer from every pair of calls. */
START_TEST(explain_calls_behind_worked_by_hand)
{
  char *out = explain_model("behind", "{\"name\": \"behind\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\","
                             " \"count\": 2}], \"servers\": [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": 2}],"
                             " \"classes\": [{\"name\": \"c\", \"count\": 4, \"arrival\": {\"kind\": \"at\","
                             " \"spacing_ms\": 1}, \"program\": [{\"op\": \"call\", \"server\": \"db\", \"handler\":"
                             " [{\"op\": \"cpu\", \"ms\": 5}]}]}]}");
  ck_assert_msg(strstr(out, "  c (normal)                    4        1.500                  0.000        3.000        0.000\n"),
                "%.3000s", out);
  free(out);
}
END_TEST

/* A handler's own call is inside its caller's service, so "its calls"
 * counts its service once: a call to a whose handler runs 2 ms and then
 * calls b (5 ms) is served 7 ms in a 7 ms wave (it said 12: the nested
 * call's 5 ms again). */
START_TEST(explain_nested_call_service_counted_once)
{
  char *out = explain_model("nested", "{\"name\": \"nested\", \"pools\": [{\"name\": \"pa\", \"kind\": \"thread\","
                             " \"count\": 1}, {\"name\": \"pb\", \"kind\": \"thread\", \"count\": 1}], \"servers\":"
                             " [{\"name\": \"a\", \"pool\": \"pa\"}, {\"name\": \"b\", \"pool\": \"pb\"}], \"classes\":"
                             " [{\"name\": \"c\", \"count\": 1, \"arrival\": {\"kind\": \"at\", \"start_ms\": 0},"
                             " \"program\": [{\"op\": \"call\", \"server\": \"a\", \"handler\": [{\"op\": \"cpu\","
                             " \"ms\": 2}, {\"op\": \"call\", \"server\": \"b\", \"handler\": [{\"op\": \"cpu\","
                             " \"ms\": 5}]}]}]}]}");
  ck_assert_msg(strstr(out, "  wave (wave_start to wave_end) per actor: mean 7 ms,") &&
                    strstr(out, "  its calls (mean per actor): queued at the server 0 ms, request and reply legs 0 ms,"
                                " service 7 ms\n"),
                "%.3000s", out);
  free(out);
}
END_TEST

/* The law's other terms are the wave's too, as its CPU is: 4 actors on one
 * loop (10 ms threshold, 0.5 ms a yield) run a random 50 ms (exponential)
 * before wave_start, 100 ms in the wave and 70 ms after it, priced x1.2 at
 * n = 4. The slices row counts those that ran in the wave (11 at n = 1: the
 * 100 ms in 10, and the 1 ns the threshold leaves of the slice before the
 * mark; 13 at n = 4: 120 ms), not the whole life's (20 and 24.5); why the CPU
 * moved gives the yields in the wave (10 and 12, not 19 and 23.5) and says
 * nothing of random demands, which only the CPU before the wave has. */
START_TEST(explain_law_terms_are_the_wave_s)
{
  char dir[512], *out;
  ck_assert_int_eq(tu_run_files("explain-inside",
                                "{\"name\": \"inside\", \"host\": {\"cpu_scale_by_n\": {\"n\": [1, 4],"
                                " \"scale\": [1, 1.2], \"by\": \"n\"}}, \"worker\": {\"policy\": \"fifo\","
                                " \"threshold_ms\": 10, \"yield_overhead_ms\": 0.5, \"loop_overhead_ms\": 0},"
                                " \"classes\": [{\"name\": \"job\", \"count\": \"n\", \"program\": ["
                                "{\"op\": \"cpu\", \"ms\": 50, \"dist\": \"exponential\", \"sliced\": \"time\"},"
                                " {\"op\": \"mark\", \"name\": \"wave_start\"},"
                                " {\"op\": \"cpu\", \"ms\": 100, \"sliced\": \"time\"},"
                                " {\"op\": \"mark\", \"name\": \"wave_end\"},"
                                " {\"op\": \"cpu\", \"ms\": 70, \"sliced\": \"time\"}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 4], \"workers\": [1],"
                                " \"replications\": 1, \"seed\": 1}",
                                dir, sizeof dir, NULL, NULL),
                   0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json' --n 4 --workers 1", dir), 0);
  const char *law = strstr(out, "\nwave law for class job: ");
  ck_assert_msg(law, "%.4000s", out);
  ck_assert_msg(strstr(law, "\n  slices in the wave                                     11           13\n") &&
                    strstr(law, "\n  - 12 yields per actor in its wave here against 10 at n=1 (2 more; each costs 0.5 ms"
                                " of loop overhead)\n") &&
                    !strstr(law, "random"),
                "%.4000s", law);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* The loop overhead in an actor's wave is shared among the actors whose
 * waves overlap it, as the law sums their CPU (k*c holds it once for equal
 * demands), not among every actor of its worker: two actors arrive 1 s
 * apart on one loop, each runs 100 ms in 10 ms slices paying 0.5 ms a yield
 * (9 of them in its wave, alone): c = 100 + 4.5 and the law is exact (it
 * said 102.25, half the overhead, and +2.25 ms unexplained in the first
 * line). The law's rows say its k, 1 (each wave alone), beside m, 2 (the
 * actors on the worker): before, only m, which the law does not use. */
START_TEST(explain_overhead_is_shared_by_the_overlapping_waves)
{
  const char *law;
  char *out = explain_law("explain-stagger",
                          "{\"name\": \"stagger\", \"worker\": {\"policy\": \"fifo\", \"threshold_ms\": 10,"
                          " \"yield_overhead_ms\": 0.5, \"loop_overhead_ms\": 0}, \"classes\": [{\"name\": \"job\","
                          " \"count\": 2, \"arrival\": {\"kind\": \"at\", \"spacing_ms\": 1000}, \"program\": ["
                          "{\"op\": \"cpu\", \"ms\": 100, \"sliced\": \"time\"}]}]}",
                          "job", &law);
  ck_assert_msg(strstr(law, "\n  loop CPU (other steps + overhead/k)                                4.5\n") &&
                    strstr(law, "\n  law: c + sum min(c_j, c) + latency                               104.5\n") &&
                    strstr(law, "\n  k (actors sharing its wave, itself included)                         1\n"
                                "  m (actors on its worker)                                             2\n") &&
                    law_gap(law) == 0,
                "%.4000s", law);
  free(out);
}
END_TEST

/* The form is chosen from the slices in the wave, as c is its CPU there:
 * 3 actors on one loop mark wave_start, wait 1 ms of I/O, run 5 ms unsliced
 * and mark wave_end, then run 50 ms in 10 ms slices after their waves. In
 * the wave each ran in one slice, first come: the FIFO form's 5 + 1, 10 + 1
 * and 15 + 1 ms, mean 11, is exact. Before, the 5 slices after the wave put
 * the class under processor sharing: 16 ms, -5 ms in the first exact line. */
START_TEST(explain_form_reads_the_slices_in_the_wave)
{
  const char *law;
  char *out = explain_law("explain-form",
                          "{\"name\": \"form\", \"worker\": {\"policy\": \"fifo\", \"threshold_ms\": 10,"
                          " \"yield_overhead_ms\": 0, \"loop_overhead_ms\": 0}, \"classes\": [{\"name\": \"job\","
                          " \"count\": 3, \"program\": [{\"op\": \"mark\", \"name\": \"wave_start\"},"
                          " {\"op\": \"io\", \"ms\": 1}, {\"op\": \"cpu\", \"ms\": 5}, {\"op\": \"mark\", \"name\":"
                          " \"wave_end\"}, {\"op\": \"io\", \"ms\": 1}, {\"op\": \"cpu\", \"ms\": 50, \"sliced\":"
                          " \"time\"}]}]}",
                          "job", &law);
  ck_assert_msg(strstr(law, "\nwave law for class job: each actor's CPU ran in one slice") == law &&
                    strstr(law, "\n  law: c + CPU ahead + latency                                        11\n") &&
                    law_gap(law) == 0,
                "%.4000s", law);
  free(out);
}
END_TEST

/* The priority line under why the CPU moved is said for a class only when a
 * priority operation was in flight on its worker in its waves (the
 * threshold drops then): n jobs run 20 ms in 10 ms slices at 0 (priced
 * x1.5 at n = 2), one late actor does a priority I/O at 1 s. Before, both
 * classes got the line, as some class of the model had a priority step. */
START_TEST(explain_priority_line_only_for_its_waves)
{
  char dir[512], *out;
  ck_assert_int_eq(tu_run_files("explain-prio",
                                "{\"name\": \"prio\", \"host\": {\"cpu_scale_by_n\": {\"n\": [1, 2],"
                                " \"scale\": [1, 1.5], \"by\": \"n\"}}, \"worker\": {\"policy\": \"fifo\","
                                " \"threshold_ms\": 10, \"yield_overhead_ms\": 0, \"loop_overhead_ms\": 0},"
                                " \"classes\": ["
                                "{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 20,"
                                " \"sliced\": \"time\"}]}, {\"name\": \"late\", \"count\": 1, \"arrival\": {\"kind\":"
                                " \"at\", \"start_ms\": 1000}, \"program\": [{\"op\": \"io\", \"ms\": 1, \"priority\":"
                                " true}, {\"op\": \"cpu\", \"ms\": 20, \"sliced\": \"time\"}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1],"
                                " \"replications\": 1, \"seed\": 1}",
                                dir, sizeof dir, NULL, NULL),
                   0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json' --n 2 --workers 1", dir), 0);
  const char *job = strstr(out, "\nwave law for class job: "), *late = strstr(out, "\nwave law for class late: ");
  ck_assert_msg(job && late && job < late, "%.4000s", out);
  const char *line = "\n  - a priority operation was in flight in its waves: meanwhile the yield threshold drops to\n"
                     "    max(10/4, 2) ms: more, shorter slices\n";
  const char *said = strstr(job, line);
  ck_assert_msg(said && said > late, "%.4000s", job); /* late's, not job's */
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* The locks held while runnable are split as the runnable wait is, and the
 * other states a lock was held in have rows: a holder takes lock l on a
 * thread, waits 1 ms of I/O while the thread's other task parks on mutex m
 * (held 5 ms on another pool; 0.5 ms wake latency), then runs 1 ms and
 * waits on a channel (0.25 ms wake latency) still holding l. Held while
 * runnable: the thread busy 0.1 ms (the parker), parked 4.5, waking 0.25;
 * on the channel 3.4: the rows add up to held while descheduled, 9.25 ms.
 * Before, one row 'held while runnable 4.85 ms' and nothing for the channel
 * (nor for std-mutex's parked holders, its 24.997 ms). */
START_TEST(explain_held_is_split_as_the_waits)
{
  char *out = explain_model("explain-held",
                            "{\"name\": \"held\", \"worker\": {\"kind\": \"thread\"}, \"pools\": [{\"name\": \"o\","
                            " \"kind\": \"thread\", \"count\": 1}], \"locks\": [{\"name\": \"l\"}, {\"name\": \"m\","
                            " \"kind\": \"mutex\", \"scope\": \"shared\", \"wake_latency_ms\": 0.5}], \"channels\":"
                            " [{\"name\": \"go\", \"scope\": \"shared\", \"wake_latency_ms\": 0.25}], \"classes\": ["
                            "{\"name\": \"holder\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"l\"},"
                            " {\"op\": \"io\", \"ms\": 1}, {\"op\": \"cpu\", \"ms\": 1},"
                            " {\"op\": \"wait\", \"channel\": \"go\"}, {\"op\": \"cpu\", \"ms\": 1},"
                            " {\"op\": \"unlock\", \"lock\": \"l\"}]},"
                            " {\"name\": \"parker\", \"count\": 1, \"program\": [{\"op\": \"sleep\", \"ms\": 0.5},"
                            " {\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"unlock\","
                            " \"lock\": \"m\"}]}, {\"name\": \"owner\", \"count\": 1, \"placement\": {\"pool\": \"o\"},"
                            " \"program\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 5},"
                            " {\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"sleep\", \"ms\": 5}, {\"op\":"
                            " \"notify\", \"channel\": \"go\"}]}]}");
  ck_assert_msg(strstr(out, "\n  locks: held 11.25 ms of the wave; held while descheduled 9.25 ms (82.2% of the "
                            "wave):\n"
                            "    held while queued                                     0 ms\n"
                            "    held while runnable, thread busy                    0.1 ms\n"
                            "    held while runnable, thread parked                  4.5 ms\n"
                            "    held while runnable, thread waking up              0.25 ms\n"
                            "    held during I/O                                       1 ms\n"
                            "    held while waiting for another lock                   0 ms\n"
                            "    held while waiting on a channel                     3.4 ms\n"),
                "%.4000s", out);
  free(out);
}
END_TEST

/* Spinning and in the futex the actor holds a CPU (the state table's on_cpu):
 * a lock held then is not held while descheduled. a takes async lock l,
 * sleeps 0.5 ms, then contends for mutex m, which b holds on another pool
 * for [0, 3): spin 1 ms, futex 0.2, parked 1.3, then 0.1 ms of CPU. Held
 * 3.1 ms: running 0.1, descheduled 1.8 (sleeping 0.5, parked 1.3), on CPU
 * waiting 1.2 (spin 1, futex 0.2). Before, 'held while descheduled 3 ms'
 * with the spin and the futex among its rows. */
START_TEST(explain_held_on_cpu_is_not_descheduled)
{
  char *out = explain_model("explain-held-cpu",
                            "{\"name\": \"held\", \"worker\": {\"kind\": \"thread\"}, \"pools\": [{\"name\": \"o\","
                            " \"kind\": \"thread\", \"count\": 1}], \"locks\": [{\"name\": \"l\"}, {\"name\": \"m\","
                            " \"kind\": \"mutex\", \"scope\": \"shared\", \"spin_ms\": 1, \"futex_wait_ms\": 0.2}],"
                            " \"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\":"
                            " \"l\"}, {\"op\": \"sleep\", \"ms\": 0.5}, {\"op\": \"lock\", \"lock\": \"m\"}, {\"op\":"
                            " \"cpu\", \"ms\": 0.1}, {\"op\": \"unlock\", \"lock\": \"m\"}, {\"op\": \"unlock\", \"lock\":"
                            " \"l\"}]}, {\"name\": \"b\", \"count\": 1, \"placement\": {\"pool\": \"o\"}, \"program\":"
                            " [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", \"ms\": 3}, {\"op\": \"unlock\","
                            " \"lock\": \"m\"}]}]}");
  ck_assert_msg(strstr(out, "\n  locks: held 3.1 ms of the wave; held while descheduled 1.8 ms (58.1% of the "
                            "wave):\n"
                            "    held while queued                                     0 ms\n"
                            "    held while runnable                                   0 ms\n"
                            "    held during I/O                                       0 ms\n"
                            "    held while waiting for another lock                   0 ms\n"
                            "    held while sleeping                                 0.5 ms\n"
                            "    held while parked on a mutex                        1.3 ms\n"
                            "  held while on CPU waiting (spin, futex) 1.2 ms (38.7% of the wave):\n"
                            "    held while spinning on a mutex                        1 ms\n"
                            "    held while in futex (kernel)                        0.2 ms\n\n"),
                "%.4000s", out);
  free(out);
}
END_TEST

Suite *explain_suite(void)
{
  Suite *s = suite_create("explain");
  const TTest *const cli[] = {explain_spans_measure_run_s_window, explain_shows_the_wait_before_the_wave,
                              explain_law_is_processor_sharing_on_a_round_robin_queue,
                              explain_law_is_fifo_when_the_cpu_runs_to_completion,
                              explain_law_does_not_apply_to_a_priority_queue,
                              explain_after_a_hop_uses_the_worker_reached, explain_splits_the_reply_wait_by_the_calls,
                              explain_calls_behind_worked_by_hand, explain_nested_call_service_counted_once,
                              explain_law_terms_are_the_wave_s, explain_overhead_is_shared_by_the_overlapping_waves,
                              explain_form_reads_the_slices_in_the_wave, explain_priority_line_only_for_its_waves,
                              explain_held_is_split_as_the_waits, explain_held_on_cpu_is_not_descheduled, NULL};
  tu_tcase(s, "cli", cli, NULL, NULL, 120);
  return s;
}
