/* The textbook laws tssim explain sets beside a simulated mean wait
 * (explain_theory.c decides which applies to a queue): each prints its
 * formula, its value and the simulated one, or computes a wait. Times in
 * ns; rates per ns. */
#include "viz/explain_laws.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void ts_law_ms(char *buf, size_t cap, double ns)
{
  snprintf(buf, cap, "%.4g", ns / 1e6);
}

const char *ts_law_short_run(char *buf, size_t cap, int n, const char *what)
{
  size_t len = strlen(what);
  if (n == 1 && len > 0 && what[len - 1] == 's') /* "1 job", not "1 jobs" */
    len--;
  snprintf(buf, cap, "%.*s%s", (int)len, what, n < 1000 ? "; fewer than 1000, so far from a steady state" : "");
  return buf;
}

/* Erlang C: the probability that a job of a Poisson stream (lambda per
 * ns) finds all c servers of service s busy (rho = lambda E[S] / c < 1),
 * from GSL's Poisson distribution (Erlang B first). */
static double erlang_c_of(int c, double lambda, const ts_law_service *s)
{
  double load = lambda * s->mean, rho = load / c; /* offered load in erlangs */
  double erlang_b = gsl_ran_poisson_pdf((unsigned)c, load) / gsl_cdf_poisson_P((unsigned)c, load);
  return erlang_b / (1 - rho * (1 - erlang_b));
}

double ts_law_shared_wait(int c, double lambda, const ts_law_service *s)
{
  double rho = lambda * s->mean / c;
  double wait = erlang_c_of(c, lambda, s) * s->mean / (c * (1 - rho));
  return s->exponential ? wait : wait * (1 + s->cv * s->cv) / 2;
}

void ts_law_closed(FILE *out, int c, double lambda, const ts_law_service *s, double sim, int n, const char *what)
{
  double rho = lambda * s->mean / c;
  char a[32], b[32], whatbuf[96];
  what = ts_law_short_run(whatbuf, sizeof whatbuf, n, what);
  if (rho >= 1) {
    fprintf(out, "    rho >= 1: the queue grows without bound, so no steady-state mean wait\n");
    return;
  }
  ts_law_ms(b, sizeof b, sim);
  if (c == 1) {
    double wq = lambda * (s->var + s->mean * s->mean) / (2 * (1 - rho));
    ts_law_ms(a, sizeof a, wq);
    fprintf(out,
            "    M/G/1 (Poisson arrivals, one server, first come first served): Pollaczek-Khinchine\n"
            "    mean wait lambda E[S^2] / (2 (1 - rho)) = %s ms; simulated %s ms (mean of %d %s)\n",
            a, b, n, what);
    return;
  }
  double erlang_c = erlang_c_of(c, lambda, s);
  if (!s->exponential) {
    ts_law_ms(a, sizeof a, ts_law_shared_wait(c, lambda, s));
    fprintf(out,
            "    M/G/%d (%s service, cv %.3g) has no exact closed form; Allen-Cunneen approximation\n"
            "    P(wait) E[S] / (c (1 - rho)) (1 + cv^2) / 2 = %s ms with Erlang C's P(wait) = %.4g; simulated %s ms (mean of %d %s)\n",
            c, s->kind ? s->kind : "mixed", s->cv, a, erlang_c, b, n, what);
    return;
  }
  ts_law_ms(a, sizeof a, ts_law_shared_wait(c, lambda, s));
  fprintf(out,
          "    M/M/%d (Poisson arrivals, exponential service, first come first served): Erlang C\n"
          "    P(wait) = %.4g, mean wait P(wait) E[S] / (c (1 - rho)) = %s ms; simulated %s ms (mean of %d %s)\n",
          c, erlang_c, a, b, n, what);
}

void ts_law_sharing(FILE *out, double lambda, const ts_law_service *s, ts_time q, double sim, int n)
{
  double rho = lambda * s->mean;
  char a[32], b[32], c[32], d[32], whatbuf[96];
  if (rho >= 1) {
    fprintf(out, "    rho >= 1: the queue grows without bound, so no steady-state mean wait\n");
    return;
  }
  ts_law_ms(a, sizeof a, rho * s->mean / (1 - rho));
  ts_law_ms(b, sizeof b, sim);
  ts_law_ms(c, sizeof c, (double)q);
  ts_law_ms(d, sizeof d, s->mean);
  fprintf(out,
          "    M/G/1 processor sharing, approached by round robin (slices of q = %s ms against E[S] = %s ms; exact as\n"
          "    q -> 0): mean wait rho E[S] / (1 - rho) = %s ms whatever the service's distribution; simulated %s ms\n"
          "    (mean of %d %s)\n",
          c, d, a, b, n, ts_law_short_run(whatbuf, sizeof whatbuf, n, "jobs"));
}

void ts_law_batch(FILE *out, double lambda_b, double ex, double ex2, const ts_law_service *s, double sim, int n)
{
  double rho = lambda_b * ex * s->mean, s2 = s->var + s->mean * s->mean;
  char a[32], b[32], whatbuf[96];
  if (rho >= 1) {
    fprintf(out, "    rho >= 1: the queue grows without bound, so no steady-state mean wait\n");
    return;
  }
  ts_law_ms(a, sizeof a, lambda_b * ex * s2 / (2 * (1 - rho)) + s->mean * (ex2 - ex) / (2 * ex * (1 - rho)));
  ts_law_ms(b, sizeof b, sim);
  fprintf(out,
          "    M^X/G/1 (Poisson batches of X jobs, E[X] = %.4g, E[X^2] = %.4g; one server, first come first served):\n"
          "    mean wait lambda_b E[X] E[S^2] / (2 (1 - rho)) + E[S] (E[X^2] - E[X]) / (2 E[X] (1 - rho)) (its\n"
          "    batch's wait, then the jobs ahead of it in its batch) = %s ms; simulated %s ms (mean of %d %s)\n",
          ex, ex2, a, b, n, ts_law_short_run(whatbuf, sizeof whatbuf, n, "jobs"));
}

void ts_law_finite(FILE *out, double lambda, double es, int c, int k, int dropped, int arrived, double sim, int n,
                        const char *what)
{
  double r = lambda * es, w = 1, sum = 1, lq = 0;
  for (int j = 1; j <= k; j++) { /* w: p_j / p_0 */
    w *= j <= c ? r / j : r / c;
    sum += w;
    lq += j > c ? (j - c) * w : 0;
  }
  double pk = w / sum;
  lq /= sum;
  char a[32], b[32], head[160], whatbuf[96];
  ts_law_ms(a, sizeof a, lq / (lambda * (1 - pk)));
  ts_law_ms(b, sizeof b, sim);
  if (c == 1)
    snprintf(head, sizeof head, "M/M/1/K (Poisson arrivals, exponential service, one server holding at most K = %d jobs", k);
  else
    snprintf(head, sizeof head, "M/M/%d/K (Poisson arrivals, exponential service, %d servers, at most K = %d in all", c, c,
             k);
  fprintf(out,
          "    %s, an arrival\n"
          "    that finds K dropped): p_n = p_0 a^n / n! up to c, p_c (a / c)^(n - c) above (a = lambda E[S]), P(block)\n"
          "    = p_K = %.4g; simulated %.4g (%d of %d arrivals dropped); mean wait of the admitted\n"
          "    Lq / (lambda (1 - p_K)) = %s ms; simulated %s ms (mean of %d %s)\n",
          head, pk, arrived ? (double)dropped / arrived : 0, dropped, arrived, a, b, n,
          ts_law_short_run(whatbuf, sizeof whatbuf, n, what));
}

/* f(sigma) = A*(1 - sigma) - sigma, A* the Laplace transform of the
 * interarrival time in units of the mean service (mu = 1; p: {r, c}):
 * Erlang-c of phase rate r (c >= 1: (r / (r + t))^c) or fixed of length r
 * (c = 0: exp(-r t)). Its root in (0, 1) is GI/M/1's sigma. */
static double gim1_f(double sigma, void *p)
{
  const double *q = p;
  double t = 1 - sigma;
  return (q[1] >= 1 ? pow(q[0] / (q[0] + t), q[1]) : exp(-q[0] * t)) - sigma;
}

/* GI/M/1's sigma for gim1_f's {r, c} by GSL's Brent solver (rho < 1), or NAN. */
static double gim1_sigma(double r, int c)
{
  double q[2] = {r, (double)c};
  gsl_function f = {gim1_f, q};
  gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
  double hi = 1 - 1e-12, sigma = NAN;
  if (s && gim1_f(hi, q) < 0 && gsl_root_fsolver_set(s, &f, 0, hi) == GSL_SUCCESS) {
    for (int it = 0; it < 200; it++) {
      if (gsl_root_fsolver_iterate(s) != GSL_SUCCESS)
        break;
      if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s), 0, 1e-14) == GSL_SUCCESS) {
        sigma = gsl_root_fsolver_root(s);
        break;
      }
    }
  }
  gsl_root_fsolver_free(s);
  return sigma;
}

double ts_law_erlang_m1_wait(double lambda, double es, int c)
{
  double sigma = gim1_sigma(lambda * es, c); /* (phase rate lambda, in units of es) */
  return sigma / (1 - sigma) * es;
}

/* D/M/1's mean wait: GI/M/1 with arrivals every period and exponential
 * service of mean es (< period). */
static double periodic_m1_wait(double period, double es)
{
  double sigma = gim1_sigma(period / es, 0);
  return sigma / (1 - sigma) * es;
}

void ts_law_periodic(FILE *out, double period, const ts_law_service *s, double sim, int n)
{
  char a[32], b[32], d[32], t[32], whatbuf[96];
  const char *what = ts_law_short_run(whatbuf, sizeof whatbuf, n, "jobs");
  double rho = s->mean / period;
  ts_law_ms(b, sizeof b, sim);
  ts_law_ms(t, sizeof t, period);
  if (rho >= 1) {
    fprintf(out, "    rho >= 1: the queue grows without bound, so no steady-state mean wait\n");
    return;
  }
  if (!s->exponential) { /* fixed (the caller refused any other): no transient, however few the jobs */
    fprintf(out, "    D/D/1 (one job every %s ms, fixed service E[S] <= the period): no job ever waits: 0 ms; simulated %s ms\n"
                 "    (mean of %d job%s)\n", t, b, n, n == 1 ? "" : "s");
    return;
  }
  ts_law_ms(a, sizeof a, periodic_m1_wait(period, s->mean));
  ts_law_ms(d, sizeof d, rho * s->mean / (1 - rho));
  fprintf(out,
          "    D/M/1 (one job every T = %s ms, exponential service): mean wait sigma E[S] / (1 - sigma), sigma the\n"
          "    root of sigma = exp(-(1 - sigma) T / E[S]), = %s ms; simulated %s ms (mean of %d %s);\n"
          "    Poisson arrivals at the same load (M/M/1) would wait %s ms\n",
          t, a, b, n, what, d);
}

void ts_law_abandon(FILE *out, double lambda, double es, double patience, int c, int gave_up, int arrived, double sim)
{
  double w = 1, sum = 1, lq = 0; /* w: p_n / p_0 */
  for (int n = 1; n < 10000000; n++) {
    w *= lambda / ((n < c ? n : c) / es + (n > c ? n - c : 0) / patience);
    sum += w;
    lq += n > c ? (n - c) * w : 0;
    if (n > c && w < 1e-17 * sum)
      break;
  }
  lq /= sum;
  char a[32], b[32], whatbuf[96];
  ts_law_ms(a, sizeof a, lq / lambda);
  ts_law_ms(b, sizeof b, sim);
  fprintf(out,
          "    M/M/%d+M (Erlang-A: Poisson calls, exponential service, callers who give up after an exponential\n"
          "    patience of mean %.4g ms): a birth-death chain, deaths min(n, c) / E[S] + max(n - c, 0) / patience;\n"
          "    share who give up Lq / (lambda patience) = %.4g; simulated %.4g (%d of %d calls); mean wait of\n"
          "    every call, until served or gone, Lq / lambda = %s ms; simulated %s ms (mean of %d %s)\n",
          c, patience / 1e6, lq / (lambda * patience), arrived ? (double)gave_up / arrived : 0, gave_up, arrived, a, b,
          arrived, ts_law_short_run(whatbuf, sizeof whatbuf, arrived, "calls"));
}
