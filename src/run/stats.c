/* Small statistics over arrays that may hold NAN (a metric that does not
 * apply): the quantiles by selection that equal GSL's on sorted data bit
 * for bit, the Student-t 95% half-width, and the statistics of a metric
 * over actors (median, p5, p95, p99, mean, min, max). */
#include "run/sweep.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "run/sweep_internal.h"

/* Copy the finite values of v[0..k) (stride apart) into out; returns how many. */
size_t ts__finite(const double *v, size_t stride, size_t k, double *out)
{
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    if (!isnan(v[i * stride]))
      out[n++] = v[i * stride];
  return n;
}

static double max_of(const double *v, size_t n)
{
  double m = v[0];
  for (size_t i = 1; i < n; i++)
    m = v[i] > m ? v[i] : m;
  return m;
}

static double min_of(const double *v, size_t n)
{
  double m = v[0];
  for (size_t i = 1; i < n; i++)
    m = v[i] < m ? v[i] : m;
  return m;
}

/* GSL's formulas on the order statistics: the median of sorted data is
 * s[(n-1)/2] (odd n) or (s[(n-1)/2] + s[n/2]) / 2.0; the f-quantile is
 * (1 - d) s[l] + d s[l+1] with l = (int)(f (n-1)) and d = f (n-1) - l, or
 * s[n-1] when l = n - 1. Selection finds the same order statistics as
 * sorting (the k-th smallest value is unique whatever the order of equal
 * values), and the arithmetic is GSL's, so the result is bit for bit the
 * same. */
void ts__quantile_ranks(size_t k, double q, size_t *lo, size_t *hi)
{
  if (q == 0.5) {
    *lo = (k - 1) / 2;
    *hi = k / 2;
    return;
  }
  *lo = (size_t)(int)(q * (double)(k - 1));
  *hi = *lo == k - 1 ? *lo : *lo + 1;
}

double ts__quantile_from(size_t k, double q, double l, double h)
{
  size_t lhs, rhs;
  ts__quantile_ranks(k, q, &lhs, &rhs);
  if (lhs == rhs)
    return l;
  if (q == 0.5)
    return (l + h) / 2.0;
  const double delta = q * (double)(k - 1) - (double)lhs;
  return (1 - delta) * l + delta * h;
}

/* (sweep_internal.h) True often for values taken in actor-id order that
 * grow with it: an M/M/1's done_ms, FIFO. */
int ts__ascends(const double *v, size_t k)
{
  for (size_t i = 1; i < k; i++)
    if (v[i] < v[i - 1])
      return 0;
  return 1;
}

double ts_quantile(double *v, size_t k, double q)
{
  /* gsl_stats_select leaves v partitioned around the k-th smallest (every
   * v[i] <= it before it, >= it after), so the order statistic beside it is
   * the largest before it or the smallest after it */
  if (k == 0)
    return 0.0;
  size_t lhs, rhs;
  ts__quantile_ranks(k, q, &lhs, &rhs);
  if (ts__ascends(v, k))
    return ts__quantile_from(k, q, v[lhs], v[rhs]);
  if (q == 0.5) {
    double r = gsl_stats_select(v, 1, k, rhs);
    return ts__quantile_from(k, q, lhs == rhs ? r : max_of(v, rhs), r); /* the lhs-th smallest: the largest below rhs */
  }
  double l = gsl_stats_select(v, 1, k, lhs);
  return ts__quantile_from(k, q, l, lhs == rhs ? l : min_of(v + lhs + 1, k - lhs - 1));
}

/* The order statistics of v[0..k) at ranks r[0..n) (ascending, distinct)
 * into at[0..n): each selected in the part of v above the rank before it
 * (selection leaves v partitioned there: every value before a rank's is <=
 * it, every one after >=, so the next rank's value is the least ones above
 * it), the lowest of a part by one pass instead of a selection. */
static void select_ascending(double *v, size_t k, const size_t *r, int n, double *at)
{
  size_t from = 0;
  for (int i = 0; i < n; i++) {
    if (r[i] == from) { /* the least of v[from..k): to the front */
      size_t m = from;
      for (size_t j = from + 1; j < k; j++)
        if (v[j] < v[m])
          m = j;
      double t = v[from];
      v[from] = v[m];
      v[m] = t;
      at[i] = v[from];
    } else {
      at[i] = gsl_stats_select(v + from, 1, k - from, r[i] - from);
    }
    from = r[i] + 1;
  }
}

void ts__quantiles(double *v, size_t k, const double *q, int nq, double *out)
{
  ts__quantiles_zeros(v, k, 0, 0, q, nq, out);
}

void ts__quantiles_zeros(double *v, size_t k, size_t neg, size_t zeros, const double *q, int nq, double *out)
{
  size_t lo[TS__MAX_QUANTILES], hi[TS__MAX_QUANTILES], r[2 * TS__MAX_QUANTILES];
  double at[2 * TS__MAX_QUANTILES];
  int n = 0;
  size_t all = k + zeros;
  if (all == 0) {
    for (int i = 0; i < nq; i++)
      out[i] = 0.0;
    return;
  }
  for (int i = 0; i < nq; i++) {
    ts__quantile_ranks(all, q[i], &lo[i], &hi[i]);
    size_t two[2] = {lo[i], hi[i]};
    for (int t = 0; t < 2; t++) { /* the kept ranks into r, ascending, once each */
      size_t kr;
      if (!ts__kept_rank(two[t], neg, zeros, &kr))
        continue;
      int j = n;
      while (j > 0 && r[j - 1] > kr)
        j--;
      if (j > 0 && r[j - 1] == kr)
        continue;
      for (int m = n; m > j; m--)
        r[m] = r[m - 1];
      r[j] = kr;
      n++;
    }
  }
  if (ts__ascends(v, k))
    for (int j = 0; j < n; j++)
      at[j] = v[r[j]];
  else
    select_ascending(v, k, r, n, at);
  for (int i = 0; i < nq; i++) {
    size_t kl, kh;
    int keptl = ts__kept_rank(lo[i], neg, zeros, &kl), kepth = ts__kept_rank(hi[i], neg, zeros, &kh);
    double l = 0.0, h = 0.0; /* (+0: a rank among the zeros) */
    for (int j = 0; j < n; j++) {
      if (keptl && r[j] == kl)
        l = at[j];
      if (kepth && r[j] == kh)
        h = at[j];
    }
    out[i] = ts__quantile_from(all, q[i], l, h);
  }
}

double ts_quantile_same(double c, size_t k, double q)
{
  if (k == 0)
    return 0.0;
  if (q == 0.5)
    return (k - 1) / 2 == k / 2 ? c : (c + c) / 2.0;
  const double index = q * (double)(k - 1);
  const size_t lhs = (size_t)(int)index;
  const double delta = index - (double)lhs;
  return lhs == k - 1 ? c : (1 - delta) * c + delta * c;
}

/* The q-quantile (0.5: the median) of v[0..k); NAN when empty. */
double ts__quantile_or_nan(double *v, size_t k, double q)
{
  return k == 0 ? NAN : ts_quantile(v, k, q);
}

/* A statistic of the k values v (reordered): 0 median, 1 p95, 2 mean, 3
 * p99, 4 max, 5 p5, 6 min; NaN without any (a class with no actors, or none that
 * finished for wave_ms and done_ms). same: every value equals v[0], so a
 * quantile needs no selection (GSL's arithmetic on equal order statistics). */
const double ts__stat_level[TS__NSTATS] = {0.5, 0.95, 0, 0.99, 1, 0.05, 0};

double ts__actor_stat(double *v, size_t k, int stat, int same)
{
  if (k == 0)
    return NAN;
  if (stat == 2)
    return gsl_stats_mean(v, 1, k);
  static const double q[] = {0.5, 0.95, 0, 0.99, 1, 0.05, 0};
  return same ? ts_quantile_same(v[0], k, q[stat]) : ts_quantile(v, k, q[stat]);
}

double ts__median_strided(const double *v, size_t stride, size_t k, double *scratch)
{
  return ts__quantile_or_nan(scratch, ts__finite(v, stride, k, scratch), 0.5);
}

double ts_ci95(const double *v, size_t stride, size_t k)
{
  double *x = malloc((k ? k : 1) * sizeof *x);
  if (!x)
    return NAN;
  size_t n = ts__finite(v, stride, k, x);
  double r = NAN;
  if (n >= 2)
    r = gsl_cdf_tdist_Pinv(0.975, (double)(n - 1)) * gsl_stats_sd(x, 1, n) / sqrt((double)n);
  free(x);
  return r;
}

double ts__mean_strided(const double *v, size_t stride, size_t k)
{
  double sum = 0;
  size_t n = 0;
  for (size_t i = 0; i < k; i++)
    if (!isnan(v[i * stride])) {
      sum += v[i * stride];
      n++;
    }
  return n ? sum / (double)n : NAN;
}
