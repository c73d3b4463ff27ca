/* tssim explain's queueing theory (src/viz/explain_theory.c): each closed
 * form it prints (Pollaczek-Khinchine, Erlang C, the split and two-class
 * servers, batches, finite queues, abandonment, periodic arrivals, feedback,
 * a mutex's exact MVA) beside the simulated figure of the same model, and
 * where a form does not apply, why. Scenarios come from the source tree
 * (TSSIM_SOURCE_ROOT); the commands run the built binary (TSSIM_BINARY).
 * Split from test_viz.c (explain's other tests). */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "vizutil.h"

/* Run `tssim ARGS` (an explain) and return the number after want in its
 * report (a simulated mean wait), which tail must follow; a missing want
 * fails with the report's queueing-theory part (the whole report is too
 * long for a Check message). */
static double explain_sim(const char *args, const char *want, const char *tail)
{
  char *out;
  ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
  const char *theory = strstr(out, "\nqueueing theory");
  const char *at = strstr(out, want);
  ck_assert_msg(at, "missing \"%s\" in:%.2000s", want, theory ? theory : out);
  char *end;
  double sim = strtod(at + strlen(want), &end);
  ck_assert_msg(strncmp(end, tail, strlen(tail)) == 0, "\"%s\" not followed by \"%s\"", want, tail);
  free(out);
  return sim;
}

/* Whether tssim args (an explain) exits 0 and prints want. */
static void explain_says(const char *args, const char *want)
{
  char *out;
  ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
  ck_assert_msg(strstr(out, want), "missing \"%s\" in:%.3000s", want, out);
  free(out);
}

/* The scenario of one worker on model m.json, with the members tail ("" for
 * none), as explained_out and explained_sim write it. */
#define ONE_WORKER(tail) "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]" tail "}"

/* The output of `tssim explain` on model (JSON text) in scenario (JSON
 * text: ONE_WORKER); the files it ran on are removed. Free it. */
static char *explained_out(const char *model, const char *scenario)
{
  char dir[256], *out;
  ck_assert_int_eq(tu_run_files("theory", model, scenario, dir, sizeof dir, NULL, NULL), 0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  tu_rmtree(dir);
  return out;
}

/* explain_sim on model (JSON text) in a one-worker scenario. */
static double explained_sim(const char *model, const char *want, const char *tail)
{
  char dir[256], args[600];
  ck_assert_int_eq(tu_run_files("theory", model, ONE_WORKER(""), dir, sizeof dir, NULL, NULL), 0);
  snprintf(args, sizeof args, "explain '%s/s.json'", dir);
  double sim = explain_sim(args, want, tail);
  tu_rmtree(dir);
  return sim;
}

/* An open model's queues against queueing theory: M/M/1 at load 0.5 on one
 * event loop (Pollaczek-Khinchine: rho / (mu (1 - rho)) = 1 ms), M/M/4 at
 * load 0.8 behind a server of 4 threads (Erlang C: P(wait) = 0.5964, mean
 * wait 0.5964 / (4 (1 - 0.8)) = 0.7455 ms), each beside its simulated mean
 * wait; round-robin dispatch onto busy threads and sliced demands keep rho
 * but say why no closed form applies. */
START_TEST(viz_explain_open_queue_theory)
{
  char *out;
  const char *mm1 = "\nqueueing theory (from the declared arrivals and service distributions; simulated: this run):\n"
                    "  - the main pool's event loops (I/O-callback queue): class job, Poisson 500/s, service E[S] = 1 ms"
                    " (exponential, cv 1)\n    rho = lambda E[S] / c = 0.5 with c = 1 server\n"
                    "    M/G/1 (Poisson arrivals, one server, first come first served): Pollaczek-Khinchine\n"
                    "    mean wait lambda E[S^2] / (2 (1 - rho)) = 1 ms; simulated ";
  double sim = explain_sim("explain scenarios/examples/mm1.json", mm1, " ms (mean of 20000 jobs)\n");
  ck_assert_msg(fabs(sim - 1) < 0.1, "simulated %g ms, Pollaczek-Khinchine 1 ms", sim);
  const char *mmc = "  - server db (fifo queue of calls): class request, Poisson 3200/s, service E[S] = 1 ms"
                    " (exponential, cv 1)\n    rho = lambda E[S] / c = 0.8 with c = 4 servers\n"
                    "    M/M/4 (Poisson arrivals, exponential service, first come first served): Erlang C\n"
                    "    P(wait) = 0.5964, mean wait P(wait) E[S] / (c (1 - rho)) = 0.7455 ms; simulated ";
  /* 100,000 calls, not the example's 6,000: at load 0.8 the waits are correlated over hundreds of
   * calls, so one run's mean of 6,000 strays by 0.1 ms or more (0.68 to 1.12 ms over seeds 1 to 6,
   * though seed 1's 0.7535 was within 0.01); of 100,000, 0.69 to 0.77 */
  sim = explain_sim("explain scenarios/examples/mmc-pool.json --set 'classes[0].count=100000'", mmc, " ms (mean of ");
  ck_assert_msg(fabs(sim - 0.7455) < 0.1, "simulated %g ms, Erlang C 0.7455 ms", sim);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mmc-pool.json", &out, NULL), 0);
  ck_assert_msg(!strstr(out, "main pool's event loops (I/O-callback queue)"), "the callers only wait there:\n%s", out);
  free(out);
  /* no CPU to queue for (service 0 ms), and no actor at all (count 0): said, not an empty section (ux20) */
  explain_says("explain scenarios/examples/mm1.json --set params.service_ms=0",
               "simulated: this run):\n  no queue: no actor of this run takes CPU or calls a server (its service"
               " time is 0)\n");
  explain_says("explain scenarios/examples/mm1.json --set 'classes[0].count=0'",
               "\nno actors at this point (every class's count is 0 at n=1): nothing to explain\n");
  /* one job is "1 job" (it said "mean of 1 jobs") */
  explain_says("explain scenarios/examples/mm1.json --set 'classes[0].count=1'",
               "(mean of 1 job; fewer than 1000, so far from a steady state)\n");
  /* a run cut to 5 ms has too few calls for a steady state, and says so beside its mean */
  explain_says("explain scenarios/examples/mmc-pool.json --horizon 5",
               " calls; fewer than 1000, so far from a steady state)\n");
  explain_says("explain scenarios/examples/mmc-pool.json --axis dispatch=round_robin",
               "rho = lambda E[S] / c = 0.8 with c = 4 servers\n    mean wait: does not apply: admitted "
               "calls go to the next worker in turn (dispatch round_robin), busy or not\n");
  /* round robin by time, slices of 0.1 ms against E[S] = 1 ms at load 0.5: processor sharing's
   * rho E[S] / (1 - rho) = 1 ms, the simulated within 10% (it said "does not apply"); sliced by rows,
   * no law (long jobs get long slices) */
  const char *ps = "  - the main pool's event loops (I/O-callback and time-slice queues): class job, Poisson 500/s,"
                   " service E[S] = 1 ms (lognormal, cv 2)\n    rho = lambda E[S] / c = 0.5 with c = 1 server\n"
                   "    M/G/1 processor sharing, approached by round robin (slices of q = 0.1 ms against E[S] = 1 ms;"
                   " exact as\n    q -> 0): mean wait rho E[S] / (1 - rho) = 1 ms whatever the service's distribution;"
                   " simulated ";
  sim = explain_sim("explain scenarios/examples/round-robin.json", ps, " ms\n    (mean of 6000 jobs)\n");
  ck_assert_msg(fabs(sim - 1) < 0.1, "simulated %g ms, processor sharing 1 ms", sim);
  explain_says("explain scenarios/examples/round-robin.json --axis slicing=rows",
               "does not apply: a cpu step sliced by rows: a long job's slices are long, neither first come"
               " first served nor processor sharing\n");
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/round-robin.json --axis slicing=none", &out, NULL), 0);
  ck_assert_msg(strstr(out, "service E[S] = 1 ms (lognormal, cv 2)\n") &&
                    strstr(out, "mean wait lambda E[S^2] / (2 (1 - rho)) = 2.5 ms; simulated "),
                "%s", out);
  free(out);
  /* CPU on the loop, then a call: each queue has its load, neither a closed form */
  out = explained_out("{\"name\": \"cm\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\","
                      " \"count\": 2}], \"servers\": [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": 2}],"
                      " \"classes\": [{\"name\": \"r\", \"count\": 300, \"arrival\": {\"kind\": \"poisson\","
                      " \"rate_per_s\": 500}, \"program\": [{\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"},"
                      " {\"op\": \"call\", \"server\": \"db\", \"handler\": [{\"op\": \"cpu\", \"ms\": 1,"
                      " \"dist\": \"exponential\"}]}]}]}",
                      ONE_WORKER(""));
  ck_assert_msg(strstr(out, "    rho = lambda E[S] / c = 0.25 with c = 1 server\n    mean wait: does not apply: its actors "
                            "come back from their calls to server db and queue again\n") &&
                    strstr(out, "    rho = lambda E[S] / c = 0.25 with c = 2 servers\n    mean wait: does not apply: "
                                "the calls come after CPU on the callers' workers, so they do not arrive as Poisson\n"),
                "%s", out);
  free(out);
  /* a class placed on pool db (4 threads) is that pool's queue, c = 4 (it was the main pool's, c = 1: rho
   * 3.2), split among its threads by hash; at 5000/s the thread (worker 4: the main pool has worker 0)
   * whose share overloads it is named (review14b items 2, 3) */
  for (int r = 0; r < 2; r++) {
    char model[600];
    snprintf(model, sizeof model,
             "{\"name\": \"pooled\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 4}],"
             " \"classes\": [{\"name\": \"job\", \"count\": 400, \"placement\": {\"pool\": \"db\"},"
             " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": %d},"
             " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}",
             r ? 5000 : 3200);
    out = explained_out(model, ONE_WORKER(""));
    ck_assert_msg(strstr(out, r ? "  - pool db's threads (run queue): class job, Poisson 5000/s, service E[S] = 1 ms "
                                  "(exponential, cv 1)\n    rho = lambda E[S] / c = 1.25 with c = 4 servers\n    dispatch "
                                  "hash splits the arrivals by actor id: worker 4 takes 0.267 of them, so its rho = 1.337\n"
                                  "    >= 1: its queue grows without bound, so no steady-state mean wait\n"
                                : "  - pool db's threads (run queue): class job, Poisson 3200/s, service E[S] = 1 ms "
                                  "(exponential, cv 1)\n    rho = lambda E[S] / c = 0.8 with c = 4 servers\n    dispatch "
                                  "hash splits the arrivals by actor id, whatever their times: each worker an M/G/1 at its\n"),
                  "%s", out);
    free(out);
  }
  /* a server of concurrency 8 on 4 threads: 4 in service at once, c = 4 (it said c = 8, rho 0.4) */
  out = explained_out("{\"name\": \"c8\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\","
                      " \"count\": 4}], \"servers\": [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": 8}],"
                      " \"classes\": [{\"name\": \"r\", \"count\": 400, \"arrival\": {\"kind\": \"poisson\","
                      " \"rate_per_s\": 3200}, \"program\": [{\"op\": \"call\", \"server\": \"db\", \"handler\":"
                      " [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}]}",
                      ONE_WORKER(""));
  ck_assert_msg(strstr(out, "    rho = lambda E[S] / c = 0.8 with c = 4 servers\n    mean wait: does not apply: 8 in "
                            "service at once on 4 workers"),
                "%s", out);
  free(out);
  /* two Poisson classes on one loop are one Poisson stream of a mixed service: 300/s of exponential 0.5 ms
   * and 100/s of fixed 4 ms, E[S] = 0.75 * 0.5 + 0.25 * 4 = 1.375 ms, E[S^2] = 0.75 * 0.5 + 0.25 * 16 = 4.375,
   * Pollaczek-Khinchine 0.4 * 4.375 / (2 * 0.45) = 1.944 ms (it said "2 classes share the queues") */
  sim = explained_sim("{\"name\": \"mc\", \"classes\": [{\"name\": \"small\", \"count\": 20000, \"arrival\":"
                      " {\"kind\": \"poisson\", \"rate_per_s\": 300}, \"program\": [{\"op\": \"cpu\", \"ms\": 0.5,"
                      " \"dist\": \"exponential\"}]}, {\"name\": \"big\", \"count\": 8000, \"arrival\": {\"kind\":"
                      " \"poisson\", \"rate_per_s\": 100}, \"program\": [{\"op\": \"cpu\", \"ms\": 4}]}]}",
                      "  - the main pool's event loops (I/O-callback queue): classes small, big, Poisson 400/s, service"
                      " E[S] = 1.375 ms (mixed over the classes, cv 1.15)\n    rho = lambda E[S] / c = 0.55 with c = 1"
                      " server\n    M/G/1 (Poisson arrivals, one server, first come first served): Pollaczek-Khinchine\n"
                      "    mean wait lambda E[S^2] / (2 (1 - rho)) = 1.944 ms; simulated ",
                      " ms (mean of 28000 jobs)\n");
  ck_assert_msg(fabs(sim - 1.944) < 0.15, "simulated %g ms, Pollaczek-Khinchine on the mix 1.944 ms", sim);
  /* strict priority by queue class on one loop, every class yielding into the time-slice queue:
   * preemption.json's 300/s foreground and 400/s normal exponential 1 ms jobs; preemptive resume:
   * 0.3 / 0.7 = 0.4286 ms and 0.3 / 0.7 + 0.7 / (0.7 * 0.3) = 3.762 ms; without preemption (Cobham):
   * 0.7 / 0.7 = 1 ms and 0.7 / (0.7 * 0.3) = 3.333 ms; each simulated within 15% (one replication) */
  for (int r = 0; r < 2; r++) {
    ck_assert_int_eq(tu_tssim(r ? "explain scenarios/examples/preemption.json --axis preempt=false"
                                : "explain scenarios/examples/preemption.json",
                              &out, NULL),
                     0);
    const char *law = r ? "    M/G/1 with strict priority by queue class, non-preemptive (Cobham):\n"
                        : "    M/G/1 with strict priority by queue class, preemptive resume (a higher class preempts a "
                          "lower one):\n";
    ck_assert_msg(strstr(out, law), "%s", out);
    const char *cls[2] = {"      class urgent (foreground, sigma 0.3): ", "      class bulk (normal, sigma 0.7): "};
    double want[2][2] = {{0.4286, 3.762}, {1, 3.333}};
    for (int k = 0; k < 2; k++) {
      const char *at = strstr(out, cls[k]);
      ck_assert_msg(at, "%s", out);
      ck_assert_msg(fabs(atof(at + strlen(cls[k])) - want[r][k]) < 1e-3, "%s", at);
      at = strstr(at, "simulated ");
      ck_assert_ptr_nonnull(at);
      sim = atof(at + strlen("simulated "));
      ck_assert_msg(fabs(sim - want[r][k]) < 0.15 * want[r][k], "simulated %g ms, the law %g ms", sim, want[r][k]);
    }
    free(out);
  }
  /* overloaded, urgent at 800/s (rho 1.2): preemptive resume leaves urgent M/M/1 at 0.8 alone, 0.8 / (1 - 0.8)
   * = 4 ms (simulated 3.752; it said the queue grows without bound for every class), bulk grows without bound;
   * without preemption no law */
  explain_says("explain scenarios/examples/preemption.json --set 'classes[0].arrival.rate_per_s=800'",
               "      class bulk (normal, sigma 1.2): sigma >= 1: its queue grows without bound, no steady-state mean"
               " wait\n");
  /* (100,000 urgent jobs, not the example's 4,500: an M/M/1 at 0.8 is far from its mean over 4,500
   * jobs, 3.75 to 6.24 ms over seeds 1 to 6; over 100,000, 3.79 to 4.15) */
  sim = explain_sim("explain scenarios/examples/preemption.json --set 'classes[0].arrival.rate_per_s=800'"
                    " --set 'classes[0].count=100000'",
                    "      class urgent (foreground, sigma 0.8): 4 ms; simulated ", " ms (mean of 100000 jobs)\n");
  ck_assert_msg(fabs(sim - 4) < 0.4, "simulated %g ms, preemptive resume 4 ms", sim);
  explain_says("explain scenarios/examples/preemption.json --set 'classes[0].arrival.rate_per_s=800' --axis preempt=false",
               "    rho >= 1: the queue grows without bound, so no steady-state mean wait\n");
  /* the same classes in a fifo queue: one stream, Pollaczek-Khinchine 0.7 * 2 / (2 * 0.3) = 2.333 ms; with
   * preempt under fifo no closed form */
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/preemption.json --set worker.policy=fifo --axis preempt=false",
                            &out, NULL),
                   0);
  ck_assert_msg(strstr(out, "    mean wait lambda E[S^2] / (2 (1 - rho)) = 2.333 ms; simulated "), "%.3000s", out);
  free(out);
  explain_says("explain scenarios/examples/preemption.json --set worker.policy=fifo",
               "    mean wait: does not apply: with preempt a higher queue class preempts a running lower one,"
               " under policy fifo: no closed form here\n");
  /* preempt never cuts kernel CPU: the normal class's step as kernel CPU leaves the foreground one Cobham's
   * wait (simulated 1.03 ms, the preemptive law 0.4286), so no law (it gave the preemptive one) */
  explain_says("explain scenarios/examples/preemption.json --set classes[1].program[1].account=kernel",
               "    mean wait: does not apply: with preempt a higher queue class preempts a running lower one,"
               " but class bulk's cpu is kernel CPU (\"account\": \"kernel\"), which is never preempted\n");
  /* no yield steps on a preemptive loop: its ready callbacks run highest class first and preempt (worker.c
   * pop_ready), so the same preemptive-resume law holds whatever the time-slice policy (it said "no closed form") */
  sim = explained_sim("{\"name\": \"p\", \"worker\": {\"preempt\": true}, \"classes\": [{\"name\": \"urgent\", \"count\": 4500,"
                      " \"queue_class\": \"foreground\", \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 300},"
                      " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}, {\"name\": \"bulk\","
                      " \"count\": 6000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 400}, \"program\":"
                      " [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}",
                      "      class urgent (foreground, sigma 0.3): 0.4286 ms; simulated ", " ms (mean of 4500 jobs)\n");
  ck_assert_msg(fabs(sim - 0.4286) < 0.15 * 0.4286, "simulated %g ms, preemptive resume 0.4286 ms", sim);
  /* a class that cannot be pooled is named with its reason */
  out = explained_out("{\"name\": \"mp\", \"classes\": [{\"name\": \"job\", \"count\": \"forever\","
                      " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 300}, \"program\": [{\"op\": \"cpu\","
                      " \"ms\": 0.5}]}, {\"name\": \"tick\", \"count\": \"forever\", \"arrival\": {\"kind\": \"periodic\","
                      " \"period_ms\": 10}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
                      ONE_WORKER(", \"horizon_ms\": 2000"));
  ck_assert_msg(strstr(out, "  - the main pool's event loops (I/O-callback queue): does not apply: classes share the queue"
                            " and arrivals of class tick are not Poisson (periodic)\n"),
                "%s", out);
  free(out);
  /* M/D/4 at load 0.8: no closed form; Allen-Cunneen halves Erlang C's 0.7455 ms ((1 + 0^2) / 2), and the
   * simulated wait lies within 10% of it (it said "does not apply") */
  sim = explained_sim("{\"name\": \"md4\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 4}],"
                      " \"servers\": [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": 4}], \"classes\":"
                      " [{\"name\": \"r\", \"count\": 40000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\":"
                      " 3200}, \"program\": [{\"op\": \"call\", \"server\": \"db\", \"handler\": [{\"op\": \"cpu\","
                      " \"ms\": 1}]}]}]}",
                      "    M/G/4 (fixed service, cv 0) has no exact closed form; Allen-Cunneen approximation\n"
                      "    P(wait) E[S] / (c (1 - rho)) (1 + cv^2) / 2 = 0.3728 ms with Erlang C's P(wait) = 0.5964;"
                      " simulated ",
                      " ms (mean of 40000 calls)\n");
  ck_assert_msg(fabs(sim - 0.3728) < 0.1 * 0.3728, "simulated %g ms, Allen-Cunneen 0.3728 ms", sim);
}
END_TEST

/* Four event loops, each with its own queue, fed by a Poisson stream at load
 * 0.7 (mm1's example, 2800/s of 1 ms): dispatch hash splits it by id, so
 * each worker is an M/M/1 at its share (Pollaczek-Khinchine per worker,
 * 2.334 ms over this split); round_robin gives each worker one arrival in
 * 4, Erlang-4 interarrival times, so E_4/M/1 (1.237 ms, the root of GI/M/1's
 * equation); each simulated mean within 10%, both beside what one shared
 * queue would give (M/M/4: 0.3572 ms). Fixed service under round robin gets
 * Kingman's approximation, labelled; least_loaded has no law; a worker whose
 * share overloads it is named. */
START_TEST(viz_explain_split_queue_theory)
{
  const char *args = "explain scenarios/examples/mm1.json --workers 4 --set 'classes[0].arrival.rate_per_s=2800' "
                     "--set 'classes[0].count=40000' --set dispatch.policy=";
  char cmd[400];
  snprintf(cmd, sizeof cmd, "%shash", args);
  double sim = explain_sim(cmd, "(Pollaczek-Khinchine) = 2.334 ms; simulated ", " ms\n    (mean of 40000 jobs)\n"
                           "    one queue shared by the 4 workers (M/M/4, Erlang C) would wait 0.3572 ms\n");
  ck_assert_msg(fabs(sim - 2.334) < 0.1 * 2.334, "simulated %g ms, M/M/1 per worker 2.334 ms", sim);
  snprintf(cmd, sizeof cmd, "%sround_robin", args);
  sim = explain_sim(cmd, "    dispatch round_robin gives each worker one arrival in 4, in turn: E_4/M/1 per worker "
                         "(Erlang-4\n    interarrival times, exponential service): mean wait sigma E[S] / (1 - sigma), "
                         "sigma the root of\n    sigma = (lambda / (lambda + (1 - sigma) / E[S]))^4, = 1.237 ms; "
                         "simulated ", " ms (mean of 40000 jobs)\n");
  ck_assert_msg(fabs(sim - 1.237) < 0.1 * 1.237, "simulated %g ms, E_4/M/1 1.237 ms", sim);
  snprintf(cmd, sizeof cmd, "%sround_robin --set 'classes[0].program[0].dist=fixed'", args);
  explain_says(cmd, "and fixed service has no exact closed form: Kingman's approximation, exact as rho -> 1\n"
                    "    and high when little varies: (ca^2 + cs^2) / 2 rho / (1 - rho) E[S] = 0.2917 ms; ");
  snprintf(cmd, sizeof cmd, "%sleast_loaded", args);
  explain_says(cmd, "    mean wait: does not apply: 4 workers, each with its own queue (dispatch least_loaded "
                    "splits the arrivals): not one queue\n");
  explain_says("explain scenarios/examples/mm1.json --workers 4 --set 'classes[0].arrival.rate_per_s=3950'"
               " --set 'classes[0].count=2000'",
               "    dispatch hash splits the arrivals by actor id: worker 3 takes 0.26 of them, so its rho "
               "= 1.025\n    >= 1: its queue grows without bound, so no steady-state mean wait\n");
  /* a class of count forever goes round robin by its arrivals under hash too (arrive.c source_actor): E_4/M/1,
   * not M/M/1 per worker (review19 item 1: it printed hash's 2.333 ms beside a simulated 1.19) */
  sim = explain_sim("explain scenarios/examples/mm1.json --workers 4 --set 'classes[0].arrival.rate_per_s=2800' --set "
                    "'classes[0].count=forever' --horizon 14000",
                    "    count forever (under hash too) gives each worker one arrival in 4, in turn: E_4/M/1 per worker "
                    "(Erlang-4\n    interarrival times, exponential service): mean wait sigma E[S] / (1 - sigma), sigma "
                    "the root of\n    sigma = (lambda / (lambda + (1 - sigma) / E[S]))^4, = 1.237 ms; simulated ",
                    " ms (mean of ");
  ck_assert_msg(fabs(sim - 1.237) < 0.1 * 1.237, "simulated %g ms, E_4/M/1 1.237 ms", sim);
  /* round robin at rho >= 1 per worker: no law (it printed "nan ms" for GI/M/1's root, and Kingman's and
   * Allen-Cunneen's negative waits for other service; review19 item 2) */
  for (int fixed = 0; fixed < 2; fixed++) {
    snprintf(cmd, sizeof cmd, "explain scenarios/examples/mm1.json --workers 4 --set 'classes[0].arrival.rate_per_s=4000' "
             "--set 'classes[0].count=2000' --set dispatch.policy=round_robin%s",
             fixed ? " --set 'classes[0].program[0].dist=fixed'" : "");
    explain_says(cmd, "    dispatch round_robin gives each worker one arrival in 4, in turn, so each worker's rho = 1\n"
                      "    >= 1: its queue grows without bound, so no steady-state mean wait\n");
  }
}
END_TEST

/* A server called by two Poisson classes (300/s of exponential 0.5 ms, 100/s
 * of fixed 4 ms) on one thread: one Poisson stream of 400/s of a mixed
 * service (E[S] 1.375 ms, E[S^2] = 0.75 0.5 + 0.25 16 = 4.375 ms^2), so
 * Pollaczek-Khinchine 400/s 4.375 / (2 0.45) = 1.944 ms, the simulated mean
 * within 5% (it said "2 classes call it"); on 4 threads, four times the
 * rates, the Allen-Cunneen approximation for the mixed service. */
START_TEST(viz_explain_server_of_two_classes)
{
  for (int c = 1; c <= 4; c += 3) {
    char model[900], want[400];
    snprintf(model, sizeof model,
             "{\"name\": \"two\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": %d}], \"servers\":"
             " [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": %d}], \"classes\": [{\"name\": \"small\","
             " \"count\": 30000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": %d}, \"program\": [{\"op\":"
             " \"call\", \"server\": \"db\", \"handler\": [{\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"}]}]},"
             " {\"name\": \"big\", \"count\": 10000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": %d},"
             " \"program\": [{\"op\": \"call\", \"server\": \"db\", \"handler\": [{\"op\": \"cpu\", \"ms\": 4}]}]}]}",
             c, c, 300 * c, 100 * c);
    snprintf(want, sizeof want,
             "  - server db (fifo queue of calls): classes small, big, Poisson %d/s, service E[S] = 1.375 ms (mixed over"
             " the classes, cv 1.15)\n    rho = lambda E[S] / c = 0.55 with c = %d server%s\n%s",
             400 * c, c, c > 1 ? "s" : "",
             c > 1 ? "    M/G/4 (mixed service, cv 1.15) has no exact closed form; Allen-Cunneen approximation\n"
                     "    P(wait) E[S] / (c (1 - rho)) (1 + cv^2) / 2 = 0.2005 ms with Erlang C's P(wait) = 0.2268; "
                     "simulated "
                   : "    M/G/1 (Poisson arrivals, one server, first come first served): Pollaczek-Khinchine\n"
                     "    mean wait lambda E[S^2] / (2 (1 - rho)) = 1.944 ms; simulated ");
    double sim = explained_sim(model, want, " ms (mean of 40000 calls)\n"), law = c > 1 ? 0.2005 : 1.944;
    ck_assert_msg(fabs(sim - law) < (c > 1 ? 0.1 : 0.05) * law, "c = %d: simulated %g ms, law %g ms", c, sim, law);
  }
}
END_TEST

/* Poisson batches on one loop (the batch example: 300 batches/s of a
 * geometric number of mean 2 jobs, E[X^2] = 6, exponential 1 ms): M^X/G/1,
 * 0.3 2 2 / 0.8 + (6 - 2) / (4 0.4) = 4 ms, the simulated mean within 10%
 * (it said "arrives in batches"); batches of always one job (the single
 * axis: a geometric of mean 1) are plain M/G/1; batches onto 4 workers have
 * a load but no law. */
START_TEST(viz_explain_batches)
{
  double sim = explain_sim("explain scenarios/examples/batch.json --axis batch=geometric-2",
                           "  - the main pool's event loops (I/O-callback queue): class job in batches (300/s, E[X] = 2), "
                           "Poisson 600/s, service E[S] = 1 ms (exponential, cv 1)\n    rho = lambda E[S] / c = 0.6 with "
                           "c = 1 server\n    M^X/G/1 (Poisson batches of X jobs, E[X] = 2, E[X^2] = 6; one server, first "
                           "come first served):\n    mean wait lambda_b E[X] E[S^2] / (2 (1 - rho)) + E[S] (E[X^2] - E[X]) "
                           "/ (2 E[X] (1 - rho)) (its\n    batch's wait, then the jobs ahead of it in its batch) = 4 ms; "
                           "simulated ",
                           " ms (mean of 12000 jobs)\n");
  ck_assert_msg(fabs(sim - 4) < 0.4, "simulated %g ms, M^X/G/1 4 ms", sim);
  sim = explain_sim("explain scenarios/examples/batch.json --axis batch=single",
                    "    mean wait lambda E[S^2] / (2 (1 - rho)) = 1.5 ms; simulated ", " ms (mean of 12000 jobs)\n");
  ck_assert_msg(fabs(sim - 1.5) < 0.15, "simulated %g ms, M/M/1 1.5 ms", sim);
  explain_says("explain scenarios/examples/batch.json --axis batch=geometric-2 --workers 4",
               "    rho = lambda E[S] / c = 0.15 with c = 4 servers\n    mean wait: does not apply: class job "
               "arrives in batches onto 4 workers, each with its own queue\n");
}
END_TEST

/* A worker that holds at most K = 5 jobs at load 0.9 (the bounded example),
 * and a server with a queue limit:
 * M/M/1/K, P(block) = 0.1 0.9^5 / (1 - 0.9^6) = 0.126 and the admitted
 * jobs' mean wait 1.79 ms (the model's notes: 2.79 ms in the system), the
 * simulated within 10% (it said "a finite queue"); beyond load 1 the law
 * still holds (the queue is finite), and where no law applies (two
 * workers) the report does not say the queue grows without bound. */
START_TEST(viz_explain_finite_queue)
{
  double sim = explain_sim("explain scenarios/examples/bounded.json --axis capacity=5",
                           "    rho = lambda E[S] / c = 0.9 with c = 1 server\n    M/M/1/K (Poisson arrivals, exponential "
                           "service, one server holding at most K = 5 jobs, an arrival\n    that finds K dropped): p_n = "
                           "p_0 a^n / n! up to c, p_c (a / c)^(n - c) above (a = lambda E[S]), P(block)\n    = p_K = "
                           "0.126; simulated ", " (");
  ck_assert_msg(fabs(sim - 0.126) < 0.1 * 0.126, "simulated P(block) %g, M/M/1/K 0.126", sim);
  sim = explain_sim("explain scenarios/examples/bounded.json --axis capacity=5",
                    "    Lq / (lambda (1 - p_K)) = 1.79 ms; simulated ", " ms (mean of ");
  ck_assert_msg(fabs(sim - 1.79) < 0.179, "simulated %g ms, M/M/1/K 1.79 ms", sim);
  /* a server of 4 threads with no waiting room (Erlang's loss system: P(block) = Erlang B(4, 3.2) = 0.2281,
   * no wait), and with 2 places to wait: M/M/4/6, 0.1099 and 0.1254 ms */
  sim = explain_sim("explain scenarios/examples/mmc-pool.json --set servers[0].queue_limit=0 --set "
                    "'classes[0].count=40000'", "(a = lambda E[S]), P(block)\n    = p_K = 0.2281; simulated ", " (");
  ck_assert_msg(fabs(sim - 0.2281) < 0.1 * 0.2281, "simulated P(block) %g, Erlang B 0.2281", sim);
  sim = explain_sim("explain scenarios/examples/mmc-pool.json --set servers[0].queue_limit=2 --set "
                    "'classes[0].count=40000'", "    Lq / (lambda (1 - p_K)) = 0.1254 ms; simulated ", " ms (mean of ");
  ck_assert_msg(fabs(sim - 0.1254) < 0.1 * 0.1254, "simulated %g ms, M/M/4/6 0.1254 ms", sim);
  explain_says("explain scenarios/examples/bounded.json --axis capacity=5 --set params.rate_per_s=2500 "
               "--workers 2",
               "    rho = lambda E[S] / c = 1.25 with c = 2 servers\n    mean wait: does not apply: a capacity "
               "of 5 live actors per worker drops arrivals: a finite queue (M/M/1/K needs one worker, one "
               "class arriving singly and exponential service)\n");
}
END_TEST

/* Callers who hang up after an exponential patience (the reneging example,
 * M/M/1+M: 800/s, 1 ms, patience 2 ms): the birth-death chain gives the
 * share who give up, 0.2559 (the model's notes: 0.256), and every call's
 * mean wait until served or gone, 0.5119 ms (1.256 ms in the system less
 * 0.744 of 1 ms of service), the simulated within 10% (it said "the call
 * times out"); a fixed patience has no law. */
START_TEST(viz_explain_abandonment)
{
  const char *law = "    M/M/1+M (Erlang-A: Poisson calls, exponential service, callers who give up after an exponential\n"
                    "    patience of mean 2 ms): a birth-death chain, deaths min(n, c) / E[S] + max(n - c, 0) / patience;\n"
                    "    share who give up Lq / (lambda patience) = 0.2559; simulated ";
  double sim = explain_sim("explain scenarios/examples/reneging.json", law, " (");
  ck_assert_msg(fabs(sim - 0.2559) < 0.1 * 0.2559, "simulated share %g, Erlang-A 0.2559", sim);
  sim = explain_sim("explain scenarios/examples/reneging.json",
                    "    every call, until served or gone, Lq / lambda = 0.5119 ms; simulated ", " ms (mean of 6000 calls)\n");
  ck_assert_msg(fabs(sim - 0.5119) < 0.1 * 0.5119, "simulated %g ms, Erlang-A 0.5119 ms", sim);
  char *out;
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/reneging.json --set 'classes[0].program[0].timeout.dist=fixed'",
                            &out, NULL), 0);
  ck_assert_msg(strstr(out, "  - server agents (fifo queue of calls): does not apply: the call's timeout is not an "
                            "exponential patience of a constant mean\n"),
                "%.3000s", out);
  free(out);
  /* "else" steps after the call: named as the model writes them (it said "a compiled step", the loader's jump) */
  explain_says("explain scenarios/examples/reneging.json --set 'classes[0].program[0].else=[]'",
               "  - server agents (fifo queue of calls): does not apply: the program has a call with a timeout and "
               "\"else\" steps (only cpu steps make a service time)\n");
  /* two calling classes, only the second patient: no law (it printed M/G/1's 4 ms beside a simulated 1.0,
   * reading the first caller's patience alone; review19 item 3) */
  char dir[256], args[300];
  ck_assert_int_eq(tu_run_files("patience",
                                "{\"name\": \"two\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 1}],"
                                " \"servers\": [{\"name\": \"db\", \"pool\": \"db\"}], \"classes\": [{\"name\": \"calm\","
                                " \"count\": 2000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 400}, \"program\":"
                                " [{\"op\": \"call\", \"server\": \"db\", \"handler\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\":"
                                " \"exponential\"}]}]}, {\"name\": \"patient\", \"count\": 2000, \"arrival\": {\"kind\":"
                                " \"poisson\", \"rate_per_s\": 400}, \"program\": [{\"op\": \"call\", \"server\": \"db\","
                                " \"timeout\": {\"ms\": 2, \"dist\": \"exponential\"}, \"handler\": [{\"op\": \"cpu\", \"ms\":"
                                " 1, \"dist\": \"exponential\"}]}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}", dir, sizeof dir, NULL, NULL),
                   0);
  snprintf(args, sizeof args, "explain '%s/s.json'", dir);
  explain_says(args, "    rho = lambda E[S] / c = 0.8 with c = 1 server\n    mean wait: does not apply: its callers give up "
                     "after a patience (the call's timeout): M/M/c+M needs one calling class\n");
  tu_rmtree(dir);
}
END_TEST

/* One job every 100 ms forever (the periodic-window example): with its
 * fixed 1 ms, D/D/1, no job waits (exactly 0, simulated 0, from the first
 * job: no "far from a steady state" beside its 100 jobs); with an
 * exponential 60 ms, D/M/1 at load 0.6, sigma = exp(-(1 - sigma) / 0.6) =
 * 0.3242 and the mean wait 28.79 ms, the simulated within 10% (it said
 * "not Poisson (periodic)"), beside M/M/1's 90 ms; jittered arrivals have
 * no law. */
START_TEST(viz_explain_periodic)
{
  double sim = explain_sim("explain scenarios/examples/periodic-window.json",
                           "    D/D/1 (one job every 100 ms, fixed service E[S] <= the period): no job ever waits: 0 ms; "
                           "simulated ", " ms\n    (mean of 100 jobs)\n");
  ck_assert_msg(sim == 0, "simulated %g ms, D/D/1 0", sim);
  sim = explain_sim("explain scenarios/examples/periodic-window.json --set 'classes[0].program[1].dist=exponential' "
                    "--set 'classes[0].program[1].ms=60' --horizon 8000000",
                    "    D/M/1 (one job every T = 100 ms, exponential service): mean wait sigma E[S] / (1 - sigma), sigma "
                    "the\n    root of sigma = exp(-(1 - sigma) T / E[S]), = 28.79 ms; simulated ",
                    " ms (mean of 80000 jobs);\n    Poisson arrivals at the same load (M/M/1) would wait 90 ms\n");
  ck_assert_msg(fabs(sim - 28.79) < 2.879, "simulated %g ms, D/M/1 28.79 ms", sim);
  explain_says("explain scenarios/examples/periodic-window.json --set 'classes[0].arrival.jitter_ms=5'",
               "does not apply: arrivals of class job are not Poisson (periodic)\n");
}
END_TEST

/* Random routing back to the queue (the routing example: a repeat whose
 * 1 ms exponential pass ends with an "if" of probability 0.75 of leaving):
 * the demand is a geometric number of passes, exponential of mean 1 / 0.75
 * ms, so M/M/1 at load 0.4 (Jackson: 2.22 ms in the system, the model's
 * notes), 0.8889 ms of wait, the simulated within 10% (it said "a repeat
 * step"); fixed passes give a geometric sum, cv 0.5, 0.5556 ms; a loop of
 * 3 passes at most cuts the geometric tail: no law. */
START_TEST(viz_explain_feedback)
{
  double sim = explain_sim("explain scenarios/examples/routing.json",
                           "    rho = lambda E[S] / c = 0.4 with c = 1 server\n    (a feedback loop: after each pass of 1 ms"
                           " a job leaves with probability 0.75, else is served\n    again: its demand is a geometric "
                           "number of passes, E[S] = 1 ms / 0.75)\n    M/G/1 (Poisson arrivals, one server, first come "
                           "first served): Pollaczek-Khinchine\n    mean wait lambda E[S^2] / (2 (1 - rho)) = 0.8889 ms; "
                           "simulated ", " ms (mean of 6000 jobs)\n");
  ck_assert_msg(fabs(sim - 0.8889) < 0.08889, "simulated %g ms, M/M/1 with feedback 0.8889 ms", sim);
  explain_says("explain scenarios/examples/routing.json --set 'classes[0].program[0].steps[0].dist=fixed' --set "
               "'classes[0].count=60000'", "service E[S] = 1.333 ms (a geometric sum of passes, cv 0.5)\n");
  sim = explain_sim("explain scenarios/examples/routing.json --set 'classes[0].program[0].steps[0].dist=fixed' --set "
                    "'classes[0].count=60000'", "mean wait lambda E[S^2] / (2 (1 - rho)) = 0.5556 ms; simulated ",
                    " ms (mean of 60000 jobs)\n");
  ck_assert_msg(fabs(sim - 0.5556) < 0.05556, "simulated %g ms, geometric sum of fixed passes 0.5556 ms", sim);
  explain_says("explain scenarios/examples/routing.json --set 'classes[0].program[0].count=3'",
               "does not apply: the program has a repeat step (only cpu steps make a service time)\n");
}
END_TEST

/* A mutex in a closed loop against exact MVA: 16 threads (one actor each)
 * think an exponential 1.5 ms and hold an exponential 0.1 ms, the mutex's
 * own costs zero: R(N) - S = 0.2705 ms at 8553.98 acquires/s, simulated
 * within 5%; with the example's costs the hand-off line prices them
 * (0.25 ms a hand-off: 2.251 ms); on one thread it does not apply. */
/* The mutex's simulated figures are the measurement window's, as tssim run
 * takes them: 3 threads, exponential think Z = 4 ms (a sleep) and hold S =
 * 1 ms, forever until 60 s; MVA 549.296 acquires/s. With a warm-up of 1 s and
 * of 30 s the simulated rate is the window's acquires over its length
 * (within 5% of MVA: it said 562.068/s and 1105.4/s, the whole run's acquires
 * over the window), and the wait per acquire is run's mutex_wait_ms over
 * those acquires (it took in the warm-up's waits as well: 0.4674 ms against
 * run's 0.4649 at 30 s). */
START_TEST(viz_explain_mutex_mva_in_the_window)
{
  static const char model[] =
      "{\"name\": \"mx\", \"worker\": {\"kind\": \"thread\"}, \"dispatch\": {\"policy\": \"round_robin\"},"
      " \"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\"}], \"classes\": [{\"name\": \"t\","
      " \"count\": \"n\", \"program\": [{\"op\": \"repeat\", \"count\": \"forever\", \"steps\": ["
      "{\"op\": \"sleep\", \"ms\": 4, \"dist\": \"exponential\"}, {\"op\": \"lock\", \"lock\": \"m\"},"
      " {\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}]}";
  static const int warmups[] = {1000, 30000};
  for (size_t i = 0; i < sizeof warmups / sizeof *warmups; i++) {
    char scenario[200], dir[256], args[300], *out;
    snprintf(scenario, sizeof scenario,
             "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [3], \"workers\": [3], \"horizon_ms\": 60000,"
             " \"warmup_ms\": %d}", warmups[i]);
    ck_assert_int_eq(tu_run_files("mva", model, scenario, dir, sizeof dir, NULL, NULL), 0);
    tu_table t;
    tu_table_read(&t, tu_at(dir, "out/summary.csv"));
    double run_wait = tu_table_num(&t, 0, "mutex_wait_ms");
    tu_table_free(&t);
    snprintf(args, sizeof args, "explain '%s/s.json'", dir);
    ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
    tu_rmtree(dir);
    const char *at = strstr(out, "at 549.296 acquires/s with S the CPU inside alone");
    ck_assert_msg(at, "%.4000s", out);
    at = strstr(at, "  simulated: ");
    ck_assert_ptr_nonnull(at);
    double wait, rate;
    long long acquires;
    ck_assert_int_eq(sscanf(at, "  simulated: %lf ms per acquire at %lf/s (%lld acquires", &wait, &rate, &acquires), 3);
    double len_s = (60000 - warmups[i]) / 1000.0;
    ck_assert_msg(fabs(rate - 549.296) < 0.05 * 549.296, "warm-up %d ms: simulated %g/s, MVA 549.296/s", warmups[i],
                  rate);
    ck_assert_msg(fabs(rate * len_s - (double)acquires) < 1, "%g/s over %g s, %lld acquires", rate, len_s, acquires);
    ck_assert_msg(fabs(wait * (double)acquires - run_wait) < 1e-3 * run_wait,
                  "warm-up %d ms: %g ms a wait, %lld acquires; run's mutex_wait_ms %g", warmups[i], wait, acquires,
                  run_wait);
    free(out);
  }
}
END_TEST

START_TEST(viz_explain_mutex_mva)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mutex.json --n 16 --workers 16"
                            " --set classes[0].program[0].count=2000 --set classes[0].program[0].steps[1].ms=0.1"
                            " --set classes[0].program[0].steps[1].dist=exponential"
                            " --set classes[0].program[0].steps[3].ms=1.5"
                            " --set classes[0].program[0].steps[3].dist=exponential"
                            " --set locks[0].acquire_ms=0 --set locks[0].release_ms=0 --set locks[0].spin_ms=0"
                            " --set locks[0].futex_wait_ms=0 --set locks[0].futex_wake_ms=0"
                            " --set locks[0].wake_latency_ms=0",
                            &out, NULL),
                   0);
  const char *law = "\nqueueing theory for the mutex (a closed loop: N threads think, then hold it):\n"
                    "  N = 16 threads, think Z = 1.5 ms (outside), hold S = 0.1 ms (CPU inside); exact mean value\n"
                    "  analysis, R(k) = S (1 + Q(k-1)), X(k) = k / (Z + R(k)), Q(k) = X(k) R(k),\n"
                    "  exact for an exponential S:\n"
                    "  wait per acquire R(N) - S = 0.2705 ms at 8553.98 acquires/s with S the CPU inside alone"
                    " (the mutex's hand-off costs nothing here)\n  simulated: ";
  const char *at = strstr(out, law);
  ck_assert_msg(at, "%.4000s", out);
  at = strstr(at, "  simulated: ");
  ck_assert_ptr_nonnull(at);
  double sim = atof(at + strlen("  simulated: "));
  ck_assert_msg(fabs(sim - 0.2705) < 0.05 * 0.2705, "simulated %g ms, MVA 0.2705 ms", sim);
  ck_assert_ptr_nonnull(strstr(at, " (32000 acquires)\n"));
  free(out);
  /* the think time as a sleep (a delay, as the machine-repairman's think is): the same law, the same draws */
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mutex.json --n 16 --workers 16"
                            " --set classes[0].program[0].count=2000 --set classes[0].program[0].steps[1].ms=0.1"
                            " --set classes[0].program[0].steps[1].dist=exponential"
                            " --set 'classes[0].program[0].steps[3]={\"op\": \"sleep\", \"ms\": 1.5, \"dist\": \"exponential\"}'"
                            " --set locks[0].acquire_ms=0 --set locks[0].release_ms=0 --set locks[0].spin_ms=0"
                            " --set locks[0].futex_wait_ms=0 --set locks[0].futex_wake_ms=0"
                            " --set locks[0].wake_latency_ms=0",
                            &out, NULL),
                   0);
  at = strstr(out, law);
  ck_assert_msg(at, "%.4000s", out);
  at = strstr(at, "  simulated: ");
  ck_assert_ptr_nonnull(at);
  sim = atof(at + strlen("  simulated: "));
  ck_assert_msg(fabs(sim - 0.2705) < 0.05 * 0.2705, "simulated %g ms with a sleep as think time, MVA 0.2705 ms", sim);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mutex.json --n 16 --workers 16"
                            " --set classes[0].program[0].count=2000 --set classes[0].program[0].steps[1].ms=0.1"
                            " --set classes[0].program[0].steps[3].ms=1.5",
                            &out, NULL),
                   0);
  ck_assert_msg(strstr(out, "  2.251 ms at 3998.66/s with every acquire paying the hand-off too (S + acquire + release +"
                            " futex wake\n  + wake latency = 0.25 ms)\n"),
                "%.4000s", out);
  free(out);
  /* a lock that gives up after a timeout: actors leave the loop (it gave the law, with 2,015 of 32,000 acquires) */
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mutex.json --n 16 --workers 16"
                            " --set classes[0].program[0].count=2000 --set classes[0].program[0].steps[1].ms=0.1"
                            " --set classes[0].program[0].steps[3].ms=1.5"
                            " --set 'classes[0].program[0].steps[0].timeout={\"ms\": 0.05}'",
                            &out, NULL),
                   0);
  ck_assert_msg(strstr(out, "\nqueueing theory for the mutex (a closed loop: N threads think, then hold it):\n"
                            "  does not apply: class task's lock step gives up after a timeout: an actor that gives up"
                            " leaves the loop\n"),
                "%.4000s", out);
  free(out);
  /* CPU priced by load: the steps do not cost their declared Z and S (it gave the law at 2,380 acquires/s, not 4,545) */
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mutex.json --n 16 --workers 16"
                            " --set classes[0].program[0].count=200 --set classes[0].program[0].steps[1].ms=0.1"
                            " --set classes[0].program[0].steps[3].ms=1.5"
                            " --set 'host.cpu_scale_by_n={\"n\": [1, 16], \"scale\": [1, 3], \"by\": \"n\"}'",
                            &out, NULL),
                   0);
  ck_assert_msg(strstr(out, "\nqueueing theory for the mutex (a closed loop: N threads think, then hold it):\n"
                            "  does not apply: the CPU is priced by load (host.cpu_scale_by_n): Z and S are not the"
                            " declared ones\n"),
                "%.4000s", out);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mutex.json", &out, NULL), 0);
  ck_assert_msg(strstr(out, "\nqueueing theory for the mutex (a closed loop: N threads think, then hold it):\n"
                            "  does not apply: some thread runs several actors: they queue for it as well as for the mutex\n"),
                "%.4000s", out);
  free(out);
}
END_TEST
Suite *viz_theory_suite(void)
{
  Suite *s = suite_create("viz_theory");
  const TTest *const cli[] = {viz_explain_open_queue_theory, viz_explain_split_queue_theory,
                              viz_explain_server_of_two_classes, viz_explain_batches,
                              viz_explain_finite_queue, viz_explain_abandonment,
                              viz_explain_periodic, viz_explain_feedback,
                              viz_explain_mutex_mva, viz_explain_mutex_mva_in_the_window, NULL};
  tu_tcase(s, "cli", cli, NULL, NULL, 120);
  return s;
}
