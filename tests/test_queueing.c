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
 * plus tol * theory. */
static void check_form(const char *what, const char *text, int n, int workers, uint64_t seed, rep_stat f,
                       const void *arg, double theory, double tol)
{
  ts_model m;
  model_q(text, &m);
  double v[REPS];
  for (int r = 0; r < REPS; r++) {
    ts_world w;
    ts_world_spec sp = tu_world_spec(n, workers, ts_rng_derive_seed(seed, n, workers, r));
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

Suite *queueing_suite(void)
{
  Suite *s = suite_create("queueing");
  const TTest *const mmc[] = {queueing_mmc_on_cpu_threads, NULL};
  const TTest *const give_up[] = {queueing_erlang_a_abandonment, queueing_mm1k_drops, queueing_erlang_b_loss, NULL};
  tu_tcase(s, "mmc", mmc, NULL, NULL, 120);
  tu_tcase(s, "giving up", give_up, NULL, NULL, 120);
  return s;
}
