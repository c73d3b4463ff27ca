/* The bootstrap over replications of a pooled statistic: a point's
 * per-actor median (or p95, p99, mean...) and its span quantiles pool the
 * values of every replication, and the replications are the independent
 * units (the actors of one replication share its world), so a resample draws
 * R whole replications with replacement and recomputes the pooled statistic
 * over their values (a replication drawn twice counts twice). The 95%
 * interval is the expanded percentile interval (Hesterberg, "What teachers
 * should know about the bootstrap", 2015, section 5): the a and 1 - a
 * quantiles of TS__BOOT_RESAMPLES such statistics, with a = Phi(-sqrt(R /
 * (R - 1)) t(0.975, R - 1)) instead of 0.025, which undoes the plain
 * percentile interval's narrowness with few replications (a = 0.0159 at R =
 * 20, 0.001 at R = 5, below 1e-7 at R = 3: the extremes of the resamples)
 * and tends to 0.025 as R grows.
 *
 * A resample is a weight per replication (how many times it was drawn), so
 * its k-th smallest value is found in the pooled values sorted once (only
 * a band of them around the full sample's quantile: see band): with
 * P(j) the weight of the sorted values before position j, it is the value at
 * the j where P(j) <= k < P(j + 1). Each resample starts from the position of
 * the full sample's quantile (P there is the replications' counts below it,
 * found once, times their weights) and walks to its own: a resample's
 * quantile lies near the full sample's, so the walk is short, and a resample
 * costs O(R) plus the walk, not a selection over every value. */
#include "run/sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"
#include "run/sweep_internal.h"

typedef struct ranked {
  double x;
  int r; /* its replication */
} ranked;

static int ranked_cmp(const void *a, const void *b)
{
  const ranked *p = a, *q = b;
  if (p->x != q->x)
    return p->x < q->x ? -1 : 1;
  return (p->r > q->r) - (p->r < q->r);
}

/* The value of rank k (0-based) of the resample whose weights are w into
 * *x, moving (*j, *p) = (position in the band g[0..len), the weight before
 * it) there. -1 when it lies outside the band. */
static int kth(const ranked *g, size_t len, const unsigned *w, size_t k, size_t *j, size_t *p, double *x)
{
  while (*p > k) {
    if (*j == 0)
      return -1;
    --*j;
    *p -= w[g[*j].r];
  }
  while (*p + w[g[*j].r] <= k) {
    if (*j + 1 == len)
      return -1;
    *p += w[g[*j].r];
    ++*j;
  }
  *x = g[*j].x;
  return 0;
}

/* Where each replication's values lie in the band: replication r's
 * positions, ascending, at pos[off[r]..off[r + 1]). */
typedef struct places {
  size_t *pos, *off;
} places;

static int places_make(const ranked *g, size_t len, int reps, places *pl)
{
  pl->pos = malloc((len ? len : 1) * sizeof *pl->pos);
  pl->off = calloc((size_t)reps + 2, sizeof *pl->off);
  if (!pl->pos || !pl->off)
    return -1;
  for (size_t j = 0; j < len; j++)
    pl->off[g[j].r + 2]++;
  for (int r = 0; r < reps; r++)
    pl->off[r + 2] += pl->off[r + 1];
  for (size_t j = 0; j < len; j++) /* off[r + 1]: where replication r's next goes */
    pl->pos[pl->off[g[j].r + 1]++] = j;
  return 0;
}

/* P(j): the resample's weight of the values ranked below band position j
 * (below[r]: replication r's values below the band). */
static size_t weight_below(const places *pl, const unsigned *w, const int *drawn, int nd, const size_t *below, size_t j)
{
  size_t p = 0;
  for (int i = 0; i < nd; i++) {
    int r = drawn[i];
    const size_t *a = pl->pos + pl->off[r];
    size_t lo = 0, hi = pl->off[r + 1] - pl->off[r];
    while (lo < hi) { /* how many of r's positions are below j */
      size_t mid = lo + (hi - lo) / 2;
      if (a[mid] < j)
        lo = mid + 1;
      else
        hi = mid;
    }
    p += w[r] * (below[r] + lo);
  }
  return p;
}

/* kth by bisection over the band (for a band much longer than the
 * replications, where the walk would be long): the last position j with
 * P(j) <= k. The same value as kth; -1 outside the band. */
static int kth_bisect(const ranked *g, size_t len, const places *pl, const unsigned *w, const int *drawn, int nd,
                      const size_t *below, size_t k, double *x)
{
  if (weight_below(pl, w, drawn, nd, below, 0) > k)
    return -1;
  size_t lo = 0, hi = len; /* P(lo) <= k; find the last such j in [lo, hi] */
  while (lo < hi) {
    size_t mid = lo + (hi - lo + 1) / 2;
    if (weight_below(pl, w, drawn, nd, below, mid) <= k)
      lo = mid;
    else
      hi = mid - 1;
  }
  if (lo == len)
    return -1;
  *x = g[lo].x;
  return 0;
}

/* The band being gathered by a pass over a pool's values (band_take). */
typedef struct gather {
  const ts__pooled *p;
  double xa, xb;
  ranked *g;
  size_t len, cap;
  size_t at;   /* values passed */
  int r;       /* the replication of the next value */
  size_t *below;
} gather;

static int band_put(gather *b, double x, int r)
{
  if (b->len == b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 1024;
    ranked *g = realloc(b->g, cap * sizeof *g);
    if (!g)
      return -1;
    b->g = g;
    b->cap = cap;
  }
  b->g[b->len++] = (ranked){.x = x, .r = r};
  return 0;
}

static int band_take(void *ctx, const double *x, size_t n)
{
  gather *b = ctx;
  for (size_t i = 0; i < n; i++, b->at++) {
    while (b->at >= b->p->rep[b->r].end)
      b->r++;
    if (x[i] < b->xa)
      b->below[b->r]++;
    else if (x[i] <= b->xb && band_put(b, x[i], b->r))
      return -1;
  }
  return 0;
}

/* The band of the pooled values around rank j0: the ranks [j0 - half,
 * j0 + half] (within [0, n)) and every value equal to those two, sorted
 * with their replications into *g (*len of them, malloc'd), whose first has
 * rank *start; base[r], below[r]: replication r's values ranked below the
 * band, and below j0. The band's two ends are order statistics of the pool
 * (ts__vals_order), its values one pass over them (the zeros, not kept,
 * by each replication's count). Sorting the band instead of every value is
 * what makes a large run cheap; a resample whose quantile lies outside it
 * asks for a wider one. 0 or -1 (out of memory, or the pool's file). */
static int band(ts__pooled *p, int reps, size_t n, size_t j0, size_t half, ranked **g, size_t *len, size_t *start,
                size_t *base, size_t *below)
{
  size_t ends[2] = {j0 > half ? j0 - half : 0, n - 1 - j0 > half ? j0 + half : n - 1};
  double x[2];
  if (ts__vals_order(&p->v, ends, 2, x))
    return -1;
  memset(below, 0, (size_t)reps * sizeof *below);
  free(*g);
  *g = NULL;
  gather b = {.p = p, .xa = x[0], .xb = x[1], .below = below};
  int rc = ts__vals_each(&p->v, band_take, &b);
  for (int r = 0; r < reps && rc == 0; r++) {
    if (0 < b.xa)
      below[r] += p->rep[r].zeros;
    else if (0 <= b.xb)
      for (size_t z = 0; z < p->rep[r].zeros && rc == 0; z++)
        rc = band_put(&b, 0.0, r);
  }
  *g = b.g;
  if (rc)
    return -1;
  size_t lower = 0;
  for (int r = 0; r < reps; r++)
    lower += below[r];
  qsort(*g, b.len, sizeof **g, ranked_cmp);
  memcpy(base, below, (size_t)reps * sizeof *base);
  for (size_t i = 0; i < j0 - lower; i++)
    below[(*g)[i].r]++;
  *len = b.len;
  *start = lower;
  return 0;
}

double ts__boot_level(int reps)
{
  const double n = reps;
  return gsl_cdf_ugaussian_P(-sqrt(n / (n - 1)) * gsl_cdf_tdist_Pinv(0.975, n - 1));
}

int ts__boot_interval(const double *v, const size_t *end, int reps, int stat, unsigned long seed, double *lo,
                      double *hi)
{
  ts__pooled p = {.keep = 1};
  int rc = 0;
  for (int r = 0; r < reps && rc == 0; r++) {
    size_t from = r ? end[r - 1] : 0;
    rc = ts__pooled_begin(&p) || ts__pooled_add(&p, v + from, end[r] - from) ? -1 : 0;
  }
  if (rc == 0)
    rc = ts__boot_pooled(&p, stat, seed, lo, hi);
  ts__pooled_finish(&p);
  return rc;
}

int ts__boot_pooled(ts__pooled *p, int stat, unsigned long seed, double *lo, double *hi)
{
  *lo = *hi = NAN;
  int reps = p->reps;
  size_t n = p->cnt;
  if (reps < 2 || n == 0)
    return 0;
  const int mean = stat == TS__STAT_MEAN;
  const double q = ts__stat_level[stat];
  ranked *g = NULL;
  unsigned *w = calloc((size_t)reps, sizeof *w);
  size_t *below = calloc((size_t)reps, sizeof *below), *cnt = malloc((size_t)reps * sizeof *cnt);
  double *sum = calloc((size_t)reps, sizeof *sum), *bs = malloc(TS__BOOT_RESAMPLES * sizeof *bs);
  int *drawn = malloc((size_t)reps * sizeof *drawn);
  size_t *base = malloc((size_t)reps * sizeof *base);
  places pl = {NULL, NULL};
  ts_rng *rng = NULL;
  int rc = -1;
  if (!w || !below || !cnt || !sum || !bs || !drawn || !base)
    goto out;
  for (int r = 0; r < reps; r++) {
    cnt[r] = p->rep[r].n;
    sum[r] = p->rep[r].sum;
  }
  size_t j0 = 0, unused, len = 0, start = 0, nb = 0;
  if (!mean)
    ts__quantile_ranks(n, q, &j0, &unused);
  /* the band: 1/64 of the values (at least 1024) each side, 8 times wider
   * each time a resample falls outside it, until it holds them all */
  for (size_t half = n / 64 > 1024 ? n / 64 : 1024;; half *= 8) {
    if (!mean && band(p, reps, n, j0, half, &g, &len, &start, base, below))
      goto out;
    ts_rng_destroy(rng);
    if (!(rng = ts_rng_create(seed)))
      goto out;
    const int bisect = !mean && len > 64 * (size_t)reps;
    free(pl.pos);
    free(pl.off);
    pl.pos = pl.off = NULL;
    if (bisect && places_make(g, len, reps, &pl))
      goto out;
    int outside = 0;
    nb = 0;
    for (int b = 0; b < TS__BOOT_RESAMPLES && !outside; b++) {
      int nd = 0;
      for (int i = 0; i < reps; i++) {
        size_t r = ts_rng_index(rng, (size_t)reps);
        if (w[r]++ == 0)
          drawn[nd++] = (int)r;
      }
      size_t k = 0, p = 0;
      double s = 0;
      for (int r = 0; r < reps; r++) {
        k += w[r] * cnt[r];
        p += w[r] * below[r];
        s += w[r] * sum[r];
      }
      if (k > 0 && mean) {
        bs[nb++] = s / (double)k;
      } else if (k > 0) {
        size_t rl, rh, j = j0 - start;
        double l = 0, h = 0;
        ts__quantile_ranks(k, q, &rl, &rh);
        if (bisect)
          outside = kth_bisect(g, len, &pl, w, drawn, nd, base, rl, &l) ||
                    (rh != rl && kth_bisect(g, len, &pl, w, drawn, nd, base, rh, &h));
        else
          outside = kth(g, len, w, rl, &j, &p, &l) || (rh != rl && kth(g, len, w, rh, &j, &p, &h));
        if (!outside)
          bs[nb++] = ts__quantile_from(k, q, l, rh == rl ? l : h);
      }
      memset(w, 0, (size_t)reps * sizeof *w);
    }
    if (!outside)
      break;
    if (half >= n) { /* (the band held every value: cannot be) */
      nb = 0;
      break;
    }
  }
  if (nb > 0) {
    double a = ts__boot_level(reps);
    gsl_sort(bs, 1, nb);
    *lo = gsl_stats_quantile_from_sorted_data(bs, 1, nb, a);
    *hi = gsl_stats_quantile_from_sorted_data(bs, 1, nb, 1 - a);
  }
  rc = 0;
out:
  free(g);
  free(drawn);
  free(base);
  free(pl.pos);
  free(pl.off);
  free(w);
  free(below);
  free(cnt);
  free(sum);
  free(bs);
  ts_rng_destroy(rng);
  return rc;
}

double ts__boot_halfwidth(double value, double lo, double hi)
{
  if (isnan(value) || isnan(lo) || isnan(hi))
    return NAN;
  double up = hi - value, down = value - lo;
  return up > down ? up : down;
}
