/* Closed forms of queueing theory, each written the way a queueing engineer
 * would write the system in tssim and checked against the formula computed
 * here: the mean of R replications must lie within its 95% Student-t
 * half-width plus a small tolerance (1-2%: the start from empty, the
 * finite run) of the closed form. Fixed seeds, so every run is the same;
 * runs are sized to keep the suite a few seconds plain (valgrind multiplies
 * that by about 30). Models are written with ' for ". Times in ms.
 * TSSIM_QUEUEING_VERBOSE=1 prints each figure beside its closed form. */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sf_gamma.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"
#include "model/world.h"

#include "testutil.h"

enum { REPS = 8 };

/* tu_model of text written with ' for ". */
static void model_q(const char *text, ts_model *m)
{
  char *s = strdup(text);
  ck_assert_ptr_nonnull(s);
  for (char *p = s; *p; p++)
    if (*p == '\'')
      *p = '"';
  tu_model(s, m);
  free(s);
}

/* A statistic of one replication. */
typedef double (*rep_stat)(const ts_world *w, const void *arg);

/* The mean over the actors of class k (every class: k < 0) that finished
 * of their time from arrival to end, in ms. */
static double mean_sojourn_of(const ts_world *w, int k)
{
  double sum = 0;
  int n = 0;
  for (int id = 0; id < w->nactors; id++) {
    const ts_actor *a = ts_world_actor(w, id);
    if (!ts_world_counted(a) || a->st.done < 0 || (k >= 0 && a->klass != k))
      continue;
    sum += ts_time_to_ms(a->st.done - a->st.arrive);
    n++;
  }
  return n ? sum / n : NAN;
}

static double mean_sojourn(const ts_world *w, const void *arg)
{
  return mean_sojourn_of(w, arg ? *(const int *)arg : -1);
}

/* Run the model R times at (n, workers) from seed, take f of each
 * replication and check its mean against `theory` within the 95% half-width
 * plus tol * theory. A closed model (actors looping until the horizon) is
 * measured over [t0_ms, t1_ms); t1_ms 0 keeps the test's default spec. */
static void check_window(const char *what, const char *text, int n, int workers, uint64_t seed, long long t0_ms,
                         long long t1_ms, rep_stat f, const void *arg, double theory, double tol)
{
  ts_model m;
  model_q(text, &m);
  double v[REPS];
  for (int r = 0; r < REPS; r++) {
    ts_world w;
    ts_world_spec sp = tu_world_spec(n, workers, ts_rng_derive_seed(seed, n, workers, r));
    if (t1_ms > 0) {
      sp.horizon = sp.win_t1 = t1_ms * 1000000LL;
      sp.win_t0 = t0_ms * 1000000LL;
    }
    ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
    ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
    v[r] = f(&w, arg);
    ts_world_finish(&w);
  }
  ts_model_finish(&m);
  double mean = gsl_stats_mean(v, 1, REPS);
  double h = gsl_cdf_tdist_Pinv(0.975, REPS - 1) * gsl_stats_sd(v, 1, REPS) / sqrt(REPS);
  if (getenv("TSSIM_QUEUEING_VERBOSE")) /* the figures, for the notes */
    fprintf(stderr, "%-28s %10.4f +- %.4f  closed form %10.4f  (%+.2f%%)\n", what, mean, h, theory,
            100 * (mean - theory) / theory);
  ck_assert_msg(fabs(mean - theory) <= h + tol * theory, "%s: %.4f +- %.4f, closed form %.4f", what, mean, h, theory);
}

/* check_window over the whole run of the default spec. */
static void check_form(const char *what, const char *text, int n, int workers, uint64_t seed, rep_stat f,
                       const void *arg, double theory, double tol)
{
  check_window(what, text, n, workers, seed, 0, 0, f, arg, theory, tol);
}

/* Erlang's C formula: the probability that an arrival waits in M/M/c at
 * offered load a = lambda / mu (a < c). */
static double erlang_c(int c, double a)
{
  double sum = 0, term = 1;
  for (int k = 0; k < c; k++) {
    sum += term;
    term *= a / (k + 1);
  }
  double last = term * c / (c - a); /* a^c / c! / (1 - a / c) */
  return last / (sum + last);
}

/* ---- M/M/c ---- */

/* M/M/4 on a pool of 4 threads: a server of concurrency 4, exponential
 * handlers of 1 ms, Poisson calls at 3.2 per ms (rho 0.8). Mean time in the
 * system W = C(4, 3.2) / (4 mu - lambda) + 1 / mu = 1.7455 ms. (With round
 * robin onto busy threads the queue grew without bound.) */
START_TEST(queueing_mmc_on_cpu_threads)
{
  double lambda = 3.2, c = 4;
  double w = erlang_c(4, lambda) / (c - lambda) + 1;
  check_form("M/M/4 on threads",
             "{'pools': [{'name': 'db', 'kind': 'thread', 'count': 4}],"
             " 'servers': [{'name': 's', 'pool': 'db', 'concurrency': 4}],"
             " 'classes': [{'name': 'job', 'count': 6000, 'arrival': {'kind': 'poisson', 'rate_per_s': 3200},"
             "  'program': [{'op': 'call', 'server': 's', 'handler': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}]}",
             1, 1, 11, mean_sojourn, NULL, w, 0.02);
}
END_TEST

/* M/M/3 on I/O: a semaphore (an async lock of capacity 3) around an
 * exponential 1 ms io, Poisson at 2.4 per ms on one event loop (the steps
 * take no CPU): three servers, FIFO waiters. W = C(3, 2.4) / (3 - 2.4) + 1. */
START_TEST(queueing_mmc_on_io)
{
  check_form("M/M/3 on I/O",
             "{'locks': [{'name': 'conn', 'scope': 'shared', 'capacity': 3}],"
             " 'classes': [{'name': 'job', 'count': 6000, 'arrival': {'kind': 'poisson', 'rate_per_s': 2400},"
             "  'program': [{'op': 'lock', 'lock': 'conn'}, {'op': 'io', 'ms': 1, 'dist': 'exponential'},"
             "   {'op': 'unlock', 'lock': 'conn'}]}]}",
             1, 1, 12, mean_sojourn, NULL, erlang_c(3, 2.4) / (3 - 2.4) + 1, 0.02);
}
END_TEST

/* ---- priorities ---- */

/* Two classes on one event loop under strict_priority, Poisson at 0.3
 * (foreground) and 0.4 (normal) per ms, exponential 1 ms of CPU each. A job
 * first yields into the time-slice queue, whose policy picks the next one to
 * run: non-preemptive priority, Cobham's W_k = 1/mu + W0 / ((1 - s_{k-1})
 * (1 - s_k)) with W0 = sum lambda E[S^2] / 2 = 0.7. With "preempt" (the
 * programs without the yield: a ready foreground job preempts a running
 * normal one) the foreground class sees M/M/1 alone, 1 / (mu - lambda_1),
 * and the normal one (1/mu) / (1 - r1) + (r / mu) / ((1 - r1)(1 - r)). */
static const char *const two_classes =
    "{'worker': {'policy': 'strict_priority'%s}, 'classes': ["
    " {'name': 'hi', 'count': 9000, 'queue_class': 'foreground', 'arrival': {'kind': 'poisson', 'rate_per_s': 300},"
    "  'program': [%s{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]},"
    " {'name': 'lo', 'count': 12000, 'arrival': {'kind': 'poisson', 'rate_per_s': 400},"
    "  'program': [%s{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}";

START_TEST(queueing_cobham_priority)
{
  char text[900];
  snprintf(text, sizeof text, two_classes, "", "{'op': 'yield'}, ", "{'op': 'yield'}, ");
  double r1 = 0.3, r = 0.7, w0 = 0.7;
  int hi = 0, lo = 1;
  check_form("Cobham foreground", text, 1, 1, 13, mean_sojourn, &hi, 1 + w0 / (1 - r1), 0.02);
  check_form("Cobham normal", text, 1, 1, 13, mean_sojourn, &lo, 1 + w0 / ((1 - r1) * (1 - r)), 0.02);
}
END_TEST

START_TEST(queueing_preemptive_resume_priority)
{
  char text[900];
  snprintf(text, sizeof text, two_classes, ", 'preempt': true", "", "");
  double r1 = 0.3, r = 0.7;
  int hi = 0, lo = 1;
  check_form("preemptive foreground", text, 1, 1, 14, mean_sojourn, &hi, 1 / (1 - r1), 0.02);
  check_form("preemptive normal", text, 1, 1, 14, mean_sojourn, &lo, 1 / (1 - r1) + r / ((1 - r1) * (1 - r)), 0.02);
}
END_TEST

/* ---- processor sharing, networks ---- */

/* M/G/1-PS: 64 threads on a host of one core, each job on an idle thread
 * (least_loaded: the fewest live actors), so the jobs in the system share
 * the core equally: processor sharing, whose mean time in the system is
 * insensitive to the demand's shape, E[S] / (1 - rho) = 2 ms for lognormal
 * demands of mean 1 ms and cv 2 at rho 0.5 (FCFS would give 3.5). */
START_TEST(queueing_mg1_processor_sharing)
{
  check_form("M/G/1-PS",
             "{'host': {'cores': 1}, 'worker': {'kind': 'thread'}, 'dispatch': {'policy': 'least_loaded'},"
             " 'classes': [{'name': 'job', 'count': 6000, 'arrival': {'kind': 'poisson', 'rate_per_s': 500},"
             "  'program': [{'op': 'cpu', 'ms': 1, 'dist': 'lognormal', 'cv': 2}]}]}",
             1, 64, 15, mean_sojourn, NULL, 2, 0.02);
}
END_TEST

/* Two stations in tandem (Jackson): Poisson at 0.5 per ms, exponential CPU
 * of 1 ms on one event loop, a hop to a second loop, exponential 0.8 ms
 * there. E[T] = 1 / (mu1 - lambda) + 1 / (mu2 - lambda) = 2 + 4/3. */
START_TEST(queueing_tandem)
{
  check_form("tandem",
             "{'pools': [{'name': 'b', 'count': 1}], 'classes': [{'name': 'job', 'count': 6000,"
             " 'arrival': {'kind': 'poisson', 'rate_per_s': 500}, 'program': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'},"
             "  {'op': 'hop', 'pool': 'b', 'to': 0}, {'op': 'cpu', 'ms': 0.8, 'dist': 'exponential'}]}]}",
             1, 1, 16, mean_sojourn, NULL, 2 + 4.0 / 3, 0.02);
}
END_TEST

/* Feedback by random routing: after each exponential 1 ms of CPU a job
 * leaves with probability 0.5 (an if with p), else it is served again; a
 * job's demand is then exponential of mean 2 ms, and at Poisson 0.3 per ms
 * the mean time in the system is 1 / (mu (1 - q) - lambda) = 5 ms. */
START_TEST(queueing_feedback_routing)
{
  check_form("feedback",
             "{'classes': [{'name': 'job', 'count': 6000, 'arrival': {'kind': 'poisson', 'rate_per_s': 300},"
             " 'program': [{'op': 'repeat', 'count': 'forever', 'steps': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'},"
             "  {'op': 'if', 'p': 0.5, 'then': [{'op': 'exit'}]}]}]}]}",
             1, 1, 17, mean_sojourn, NULL, 1 / (0.5 - 0.3), 0.02);
}
END_TEST

/* Mean value analysis of one FCFS queueing station of exponential service S
 * and a delay (think time Z) with n customers: the response time R(n). */
static double mva_response(int n, double s, double z)
{
  double q = 0, r = 0;
  for (int k = 1; k <= n; k++) {
    r = s * (1 + q);
    q = k / (r + z) * r;
  }
  return r;
}

/* The mean of span 0's samples in the window. */
static double span_mean(const ts_world *w, const void *arg)
{
  (void)arg;
  const ts_span_rec *r = &w->spans[0];
  double sum = 0;
  for (size_t i = 0; i < r->len; i++)
    sum += ts_time_to_ms(r->v[i]);
  return r->len ? sum / (double)r->len : NAN;
}

/* A closed model of REPS replications, its span 0 measured over
 * [500, 6000) ms, against MVA within 2%. */
static void check_closed(const char *what, const char *text, int n, int workers, uint64_t seed, double theory)
{
  check_window(what, text, n, workers, seed, 500, 6000, span_mean, NULL, theory, 0.02);
}

/* The machine-repairman model: n = 6 machines each run an exponential 5 ms
 * (a sleep), then queue for one repairman (an event loop: exponential 1 ms
 * of CPU, FCFS). A span over the whole cycle (the wait for the repairman
 * comes before any step of the machine runs again) against MVA's R + Z. */
START_TEST(queueing_machine_repairman_mva)
{
  check_closed("machine repairman",
               "{'classes': [{'name': 'machine', 'count': 'n', 'program': [{'op': 'repeat', 'count': 'forever',"
               " 'span': 'cycle', 'steps': [{'op': 'sleep', 'ms': 5, 'dist': 'exponential'},"
               " {'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}]}",
               6, 1, 18, mva_response(6, 1, 5) + 5);
}
END_TEST

/* A mutex as an MVA server: 6 threads, each computes an exponential 2 ms on
 * its own core, then holds a mutex around an exponential 0.5 ms (fifo
 * hand-off, no spin, no costs, no wake latency): the mutex is one FCFS
 * station, the computing a delay; the lock-to-unlock time against MVA. */
START_TEST(queueing_mutex_as_mva_server)
{
  check_closed("mutex as a server",
               "{'worker': {'kind': 'thread'}, 'dispatch': {'policy': 'round_robin'},"
               " 'locks': [{'name': 'm', 'kind': 'mutex', 'scope': 'shared'}],"
               " 'classes': [{'name': 't', 'count': 'n', 'program': [{'op': 'repeat', 'count': 'forever', 'steps': ["
               " {'op': 'cpu', 'ms': 2, 'dist': 'exponential'}, {'op': 'span_begin', 'span': 'held'},"
               " {'op': 'lock', 'lock': 'm'}, {'op': 'cpu', 'ms': 0.5, 'dist': 'exponential'}, {'op': 'unlock', 'lock': 'm'},"
               " {'op': 'span_end', 'span': 'held'}]}]}]}",
               6, 6, 19, mva_response(6, 0.5, 2));
}
END_TEST

/* ---- batches ---- */

/* M^X/M/1: Poisson batches at 0.3 per ms of a geometric number of jobs (mean
 * 2: E[X] = 2, E[X^2] = 6), exponential 1 ms each on one event loop, FIFO:
 * rho = 0.6, E[T] = (E[X^2] + E[X]) / (2 E[X] mu (1 - rho)) = 5 ms. */
START_TEST(queueing_batch_arrivals)
{
  check_form("M^X/M/1",
             "{'classes': [{'name': 'job', 'count': 12000, 'arrival': {'kind': 'poisson', 'rate_per_s': 300,"
             "  'batch': {'dist': 'geometric', 'mean': 2}}, 'program': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}",
             1, 1, 20, mean_sojourn, NULL, 8.0 / (2 * 2 * 0.4), 0.02);
}
END_TEST

/* The share of arrivals (actors made) that gave up at their timeout. */
static double timeout_share(const ts_world *w, const void *arg)
{
  (void)arg;
  return (double)w->win_timeouts / w->nactors;
}

/* The share of arrivals that were dropped. */
static double drop_share(const ts_world *w, const void *arg)
{
  (void)arg;
  return (double)w->win_drops / w->nactors;
}

/* ---- giving up: abandonment, bounded queues ---- */

/* M/M/1+M (Erlang-A with one server): Poisson calls at 0.8 per ms, a server
 * of 1 thread with exponential 1 ms handlers, and an exponential patience of
 * mean 2 ms in its queue (a call's timeout). The number in the system is a
 * birth-death chain: births lambda, deaths mu + (k - 1) theta with k in the
 * system. P(abandon) = theta E[Nq] / lambda, and over every call (those that
 * gave up count their patience) E[T] = E[N] / lambda. */
START_TEST(queueing_erlang_a_abandonment)
{
  double lambda = 0.8, mu = 1, theta = 0.5, p = 1, z = 1, en = 0, enq = 0;
  for (int k = 1; k < 400; k++) { /* unnormalised pi_k */
    p *= lambda / (mu + (k - 1) * theta);
    z += p;
    en += k * p;
    enq += (k - 1) * p;
  }
  const char *model = "{'pools': [{'name': 'db', 'kind': 'thread', 'count': 1}], 'servers': [{'name': 's', 'pool': 'db'}],"
                      " 'classes': [{'name': 'job', 'count': 6000, 'arrival': {'kind': 'poisson', 'rate_per_s': 800},"
                      "  'program': [{'op': 'call', 'server': 's', 'timeout': {'ms': 2, 'dist': 'exponential'},"
                      "   'handler': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}]}";
  check_form("M/M/1+M sojourn", model, 1, 1, 21, mean_sojourn, NULL, en / z / lambda, 0.02);
  check_form("M/M/1+M abandonment", model, 1, 1, 21, timeout_share, NULL, theta * enq / z / lambda, 0.02);
}
END_TEST

/* M/M/1/K with K = 5: one event loop of capacity 5 (an arrival that finds
 * five jobs there is dropped), Poisson at 0.9 per ms, exponential 1 ms jobs.
 * P(block) = (1 - rho) rho^K / (1 - rho^(K+1)); the admitted jobs' mean time
 * in the system is E[N] / (lambda (1 - P(block))). */
START_TEST(queueing_mm1k_drops)
{
  double rho = 0.9, z = 0, en = 0;
  int K = 5;
  for (int k = 0; k <= K; k++) {
    z += pow(rho, k);
    en += k * pow(rho, k);
  }
  double pk = pow(rho, K) / z;
  const char *model = "{'worker': {'capacity': 5}, 'classes': [{'name': 'job', 'count': 6000,"
                      " 'arrival': {'kind': 'poisson', 'rate_per_s': 900}, 'program': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}";
  check_form("M/M/1/5 blocking", model, 1, 1, 31, drop_share, NULL, pk, 0.02);
  check_form("M/M/1/5 sojourn", model, 1, 1, 31, mean_sojourn, NULL, en / z / (rho * (1 - pk)), 0.02);
}
END_TEST

/* Erlang's loss system M/M/3/3: a server of concurrency 3 on 3 threads with
 * no room to wait (queue_limit 0), Poisson at 2 per ms, exponential 1 ms
 * handlers: the share refused is Erlang B, a^c / c! / sum_k a^k / k!. */
START_TEST(queueing_erlang_b_loss)
{
  double a = 2, sum = 0;
  for (int k = 0; k <= 3; k++)
    sum += pow(a, k) / gsl_sf_fact((unsigned)k);
  check_form("M/M/3/3 loss",
             "{'pools': [{'name': 'db', 'kind': 'thread', 'count': 3}],"
             " 'servers': [{'name': 's', 'pool': 'db', 'concurrency': 3, 'queue_limit': 0}],"
             " 'classes': [{'name': 'job', 'count': 6000, 'arrival': {'kind': 'poisson', 'rate_per_s': 2000},"
             "  'program': [{'op': 'call', 'server': 's', 'handler': [{'op': 'cpu', 'ms': 1, 'dist': 'exponential'}]}]}]}",
             1, 1, 41, drop_share, NULL, pow(a, 3) / 6 / sum, 0.02);
}
END_TEST

/* ---- the documented figures ---- */

/* In text, the row of the results block after `after` whose first word is
 * label: its job_mean_ms and +-95% (the first two numbers after n, workers). */
static void doc_row(const char *text, const char *after, const char *label, double *mean, double *h)
{
  const char *p = strstr(text, after);
  ck_assert_msg(p != NULL, "no \"%s\" in docs/examples.md", after);
  char want[64];
  snprintf(want, sizeof want, "\n%s ", label);
  p = strstr(p, want);
  ck_assert_msg(p != NULL, "no row %s after \"%s\"", label, after);
  int n, w;
  ck_assert_int_eq(sscanf(p + strlen(want), "%d %d %lf %lf", &n, &w, mean, h), 4);
}

/* docs/examples.md's round robin: its block's intervals cover processor
 * sharing's 2 ms (sliced by time) and Pollaczek-Khinchine's 3.5 ms (first
 * come first served), within the suite's 2%; the text, the model's
 * description and the scenario agree on the rows a job has. */
START_TEST(queueing_documented_round_robin_covers_closed_forms)
{
  char *path = tu_source_path("docs/examples.md");
  char *doc = tu_read_file(path, NULL);
  free(path);
  const char *block = "<!-- results: ./build/src/tssim run scenarios/examples/round-robin.json";
  double mean, h;
  doc_row(doc, block, "time", &mean, &h);
  ck_assert_msg(fabs(mean - 2) <= h + 0.02 * 2, "sliced by time: %.3f +- %.3f, processor sharing 2", mean, h);
  doc_row(doc, block, "none", &mean, &h);
  ck_assert_msg(fabs(mean - 3.5) <= h + 0.02 * 3.5, "first come first served: %.3f +- %.3f, P-K 3.5", mean, h);
  ck_assert_ptr_nonnull(strstr(doc, "sliced by rows (10 rows a job)"));
  free(doc);
  path = tu_source_path("models/examples/round-robin.json");
  char *model = tu_read_file(path, NULL);
  free(path);
  ck_assert_msg(strstr(model, "10 rows a job") && !strstr(model, "1000 rows"), "%s", model);
  free(model);
  path = tu_source_path("scenarios/examples/round-robin.json");
  char *scen = tu_read_file(path, NULL);
  free(path);
  ck_assert_ptr_nonnull(strstr(scen, "\"classes[0].program[0].rows\": 10}"));
  free(scen);
}
END_TEST

Suite *queueing_suite(void)
{
  Suite *s = suite_create("queueing");
  const TTest *const mmc[] = {queueing_mmc_on_cpu_threads, queueing_mmc_on_io, NULL};
  const TTest *const prio[] = {queueing_cobham_priority, queueing_preemptive_resume_priority, NULL};
  const TTest *const net[] = {queueing_mg1_processor_sharing, queueing_tandem, queueing_feedback_routing,
                              queueing_machine_repairman_mva, queueing_mutex_as_mva_server, queueing_batch_arrivals, NULL};
  const TTest *const give_up[] = {queueing_erlang_a_abandonment, queueing_mm1k_drops, queueing_erlang_b_loss, NULL};
  const TTest *const docs[] = {queueing_documented_round_robin_covers_closed_forms, NULL};
  tu_tcase(s, "mmc", mmc, NULL, NULL, 120);
  tu_tcase(s, "giving up", give_up, NULL, NULL, 120);
  tu_tcase(s, "priorities", prio, NULL, NULL, 120);
  tu_tcase(s, "networks", net, NULL, NULL, 120);
  tu_tcase(s, "docs", docs, NULL, NULL, 120);
  return s;
}
