/* The values of one quantity that its quantiles need (collect.c): in
 * memory up to a threshold, then in a temporary file, so that a run of
 * 10^7 jobs needs no more memory than one of 10^6. The quantiles of
 * spilled values are found by radix selection: each order statistic a
 * quantile reads is found by four passes over the file, 16 bits of an
 * order-preserving 64-bit key of the double at a time (a histogram of 65536
 * buckets per order statistic), all order statistics in the same passes.
 * The quantile is then ts_quantile's arithmetic on the same two order
 * statistics, so it has the same bits as the values sorted in memory.
 *
 * The values are never NaN (not counted) and never 0: a push only counts a
 * zero (either sign; +0, the only zero integer nanoseconds give, is what a
 * quantile reads), and a rank among the zeros is +0 without a pass
 * (ts__kept_rank). The key orders the kept values as < does, so the k-th
 * smallest is one double, bit for bit.
 *
 * Once spilled, the memory is only a write (and read) buffer of
 * TS__SPILL_CHUNK values: a run's memory for these values peaks when the
 * threshold is reached, whatever the number of values after it.
 *
 * The file is made in $TMPDIR (else /tmp) and unlinked at once: it goes
 * when it is closed or the process ends, however the run ends. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_statistics_double.h>

#include "run/sweep_internal.h"

#define KEY_BITS 16
#define BUCKETS (1u << KEY_BITS)
#define PASSES (64 / KEY_BITS)
#define MAX_RANKS 8 /* two order statistics for each of up to four quantiles */

/* The order-preserving key of x (not NaN): a > b as doubles iff key(a) > key(b) (-0 below +0). */
static uint64_t key_of(double x)
{
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return u >> 63 ? ~u : u | UINT64_C(1) << 63;
}

static double value_of(uint64_t k)
{
  uint64_t u = k >> 63 ? k & ~(UINT64_C(1) << 63) : ~k;
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

static int fail(ts__vals *v, const char *what)
{
  if (!v->err) {
    v->err = what;
    v->errnum = errno ? errno : EIO;
  }
  return -1;
}

/* Where the temporary files go: $TMPDIR, else /tmp. */
static const char *temp_dir(void)
{
  const char *dir = getenv("TMPDIR");
  return dir && *dir ? dir : "/tmp";
}

/* A new temporary file in temp_dir(), already unlinked; NULL on failure (v->err). */
static FILE *temp_file(ts__vals *v)
{
  const char *dir = temp_dir();
  char path[4096];
  if ((size_t)snprintf(path, sizeof path, "%s/tssim-values-XXXXXX", dir) >= sizeof path) {
    errno = ENAMETOOLONG;
    fail(v, "cannot make a temporary file");
    return NULL;
  }
  errno = 0;
  int fd = mkstemp(path);
  if (fd < 0) {
    fail(v, "cannot make a temporary file");
    return NULL;
  }
  unlink(path);
  FILE *f = fdopen(fd, "w+b");
  if (!f) {
    fail(v, "cannot make a temporary file");
    close(fd);
  }
  return f;
}

/* Write the values in memory to the file (made on first use). */
static int spill(ts__vals *v)
{
  if (!v->f && !(v->f = temp_file(v)))
    return -1;
  errno = 0;
  if (v->mem.len && (fseek(v->f, 0, SEEK_END) != 0 || /* (after a read: the values go after those in the file) */
                     fwrite(v->mem.v, sizeof *v->mem.v, v->mem.len, v->f) != v->mem.len))
    return fail(v, "cannot write a temporary file");
  v->written += v->mem.len;
  v->mem.len = 0;
  return 0;
}

int ts__vals_push_slow(ts__vals *v, double x)
{
  size_t limit = v->spill_at ? v->spill_at : TS__SPILL_AT;
  if (v->f || v->mem.len >= limit) { /* (the memory is full) */
    if (spill(v))
      return -1;
    size_t chunk = limit < TS__SPILL_CHUNK ? limit : TS__SPILL_CHUNK;
    if (v->mem.cap > chunk) { /* from now on, only a write buffer */
      double *p = realloc(v->mem.v, chunk * sizeof *p);
      if (!p)
        return -1;
      v->mem.v = p;
      v->mem.cap = chunk;
    }
  } else if (v->mem.len == v->mem.cap) {
    size_t cap = v->mem.cap ? v->mem.cap * 2 : 64;
    if (cap > limit)
      cap = limit;
    double *p = realloc(v->mem.v, cap * sizeof *p);
    if (!p)
      return -1;
    v->mem.v = p;
    v->mem.cap = cap;
  }
  v->mem.v[v->mem.len++] = x; /* (never a 0: ts__vals_push counted it) */
  return 0;
}

void ts__vals_reserve(ts__vals *v, size_t n)
{
  size_t limit = v->spill_at ? v->spill_at : TS__SPILL_AT;
  if (v->mem.cap || v->f || n <= 64)
    return;
  double *p = malloc((n < limit ? n : limit) * sizeof *p);
  if (p) {
    v->mem.v = p;
    v->mem.cap = n < limit ? n : limit;
  }
}

/* Radix selection of the order statistics rank[0..nr) (0-based, each <
 * n) of the spilled values into out. The memory buffer is the read buffer.
 * Ranks whose key prefixes agree so far share a histogram (adjacent ranks
 * mostly do), and only the histograms in use are touched. Counts fit 32
 * bits: a row has fewer values than actors (an int). */
static int select_ranks(ts__vals *v, size_t n, const size_t *rank, int nr, double *out)
{
  uint32_t(*hist)[BUCKETS] = malloc((size_t)nr * sizeof *hist);
  if (!hist)
    return -1;
  uint64_t prefix[MAX_RANKS] = {0}; /* the key's bits found so far */
  size_t left[MAX_RANKS];           /* its rank among the values with that prefix */
  int grp[MAX_RANKS];               /* the histogram it reads this pass */
  uint64_t gprefix[MAX_RANKS];      /* each histogram's prefix */
  for (int t = 0; t < nr; t++)
    left[t] = rank[t];
  int rc = 0;
  for (int p = 0; p < PASSES && rc == 0; p++) {
    int shift = 64 - KEY_BITS * (p + 1), ng = 0;
    for (int t = 0; t < nr; t++) {
      int g = 0;
      while (g < ng && gprefix[g] != prefix[t])
        g++;
      if (g == ng)
        gprefix[ng++] = prefix[t];
      grp[t] = g;
    }
    memset(hist, 0, (size_t)ng * sizeof *hist);
    errno = 0;
    if (fseek(v->f, 0, SEEK_SET) != 0) {
      rc = fail(v, "cannot read a temporary file");
      break;
    }
    for (size_t done = 0; done < n && rc == 0;) {
      size_t want = n - done < v->mem.cap ? n - done : v->mem.cap;
      if (fread(v->mem.v, sizeof *v->mem.v, want, v->f) != want) {
        rc = fail(v, "cannot read a temporary file");
        break;
      }
      for (size_t i = 0; i < want; i++) {
        uint64_t k = key_of(v->mem.v[i]);
        uint64_t high = p == 0 ? 0 : k >> (shift + KEY_BITS);
        for (int g = 0; g < ng; g++)
          if (high == gprefix[g]) {
            hist[g][(unsigned)(k >> shift) & (BUCKETS - 1)]++;
            break;
          }
      }
      done += want;
    }
    for (int t = 0; t < nr && rc == 0; t++) { /* the bucket holding each rank */
      const uint32_t *h = hist[grp[t]];
      unsigned b = 0;
      while (left[t] >= h[b]) {
        left[t] -= h[b];
        b++;
      }
      prefix[t] = prefix[t] << KEY_BITS | b;
    }
  }
  for (int t = 0; t < nr && rc == 0; t++)
    out[t] = value_of(prefix[t]);
  free(hist);
  return rc;
}

int ts__vals_quantiles(ts__vals *v, const double *q, int nq, double *out)
{
  size_t n = v->written + v->mem.len, all = n + v->zeros;
  if (!v->f) {
    ts__quantiles_zeros(v->mem.v, n, v->neg, v->zeros, q, nq, out);
    return 0;
  }
  if (spill(v) || fflush(v->f) != 0)
    return fail(v, "cannot write a temporary file");
  size_t rank[MAX_RANKS], lo[MAX_RANKS / 2], hi[MAX_RANKS / 2];
  int nr = 0, at_of[MAX_RANKS]; /* each quantile's two ranks' index into rank, or -1 (a 0) */
  for (int i = 0; i < nq && i < MAX_RANKS / 2; i++) {
    ts__quantile_ranks(all, q[i], &lo[i], &hi[i]);
    size_t two[2] = {lo[i], hi[i]};
    for (int t = 0; t < 2; t++) {
      at_of[2 * i + t] = -1;
      if (ts__kept_rank(two[t], v->neg, v->zeros, &rank[nr]))
        at_of[2 * i + t] = nr++;
    }
  }
  double at[MAX_RANKS];
  if (nr > 0 && select_ranks(v, n, rank, nr, at))
    return -1;
  for (int i = 0; i < nq && i < MAX_RANKS / 2; i++) {
    double l = at_of[2 * i] < 0 ? 0.0 : at[at_of[2 * i]], h = at_of[2 * i + 1] < 0 ? 0.0 : at[at_of[2 * i + 1]];
    out[i] = ts__quantile_from(all, q[i], l, h);
  }
  return 0;
}

int ts__vals_order(ts__vals *v, const size_t *rank, int nr, double *out)
{
  size_t n = v->written + v->mem.len, at[MAX_RANKS];
  int nk = 0, of[MAX_RANKS]; /* each rank's index into at, or -1 (a 0) */
  for (int t = 0; t < nr && t < MAX_RANKS; t++)
    of[t] = ts__kept_rank(rank[t], v->neg, v->zeros, &at[nk]) ? nk++ : -1;
  double got[MAX_RANKS];
  if (nk > 0 && !v->f) { /* a copy: the memory keeps its order */
    double *c = malloc((n ? n : 1) * sizeof *c);
    if (!c)
      return -1;
    for (int t = 0; t < nk; t++) {
      memcpy(c, v->mem.v, n * sizeof *c);
      got[t] = gsl_stats_select(c, 1, n, at[t]);
    }
    free(c);
  } else if (nk > 0) {
    if (spill(v) || fflush(v->f) != 0)
      return fail(v, "cannot write a temporary file");
    if (select_ranks(v, n, at, nk, got))
      return -1;
  }
  for (int t = 0; t < nr && t < MAX_RANKS; t++)
    out[t] = of[t] < 0 ? 0.0 : got[of[t]];
  return 0;
}

int ts__vals_each(ts__vals *v, int (*fn)(void *ctx, const double *x, size_t n), void *ctx)
{
  if (!v->f)
    return v->mem.len ? fn(ctx, v->mem.v, v->mem.len) : 0;
  if (spill(v) || fflush(v->f) != 0)
    return fail(v, "cannot write a temporary file");
  errno = 0;
  if (fseek(v->f, 0, SEEK_SET) != 0)
    return fail(v, "cannot read a temporary file");
  for (size_t done = 0; done < v->written;) {
    size_t want = v->written - done < v->mem.cap ? v->written - done : v->mem.cap;
    if (fread(v->mem.v, sizeof *v->mem.v, want, v->f) != want)
      return fail(v, "cannot read a temporary file");
    if (fn(ctx, v->mem.v, want))
      return -1;
    done += want;
  }
  return 0;
}

void ts__vals_why(const ts__vals *v, char *buf, size_t cap)
{
  char e[200];
  if (strerror_r(v->errnum, e, sizeof e) != 0)
    snprintf(e, sizeof e, "error %d", v->errnum);
  snprintf(buf, cap, "%s in %.200s (the values kept for quantiles past %zu per quantity; TMPDIR sets where): %s",
           v->err ? v->err : "cannot use a temporary file", temp_dir(), v->spill_at ? v->spill_at : TS__SPILL_AT, e);
}

void ts__vals_finish(ts__vals *v)
{
  free(v->mem.v);
  if (v->f)
    fclose(v->f);
  memset(v, 0, sizeof *v);
}
