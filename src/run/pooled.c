/* A point's pooled values of one quantity (an actor quantity on one row,
 * or a span's samples), replication by replication. The pooled mean is
 * GSL's running mean over the values in the order they came, so it is kept
 * as they come; a quantile's values go to a ts__vals, which spills past
 * its threshold as one replication's do (spill.c): a point's memory for
 * them stays under the threshold however many replications it runs, and
 * its quantiles are the same order statistics, bit for bit. The bootstrap
 * (boot.c) reads each replication's count, zeros and sum, and the values
 * in replication order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "run/sweep_internal.h"

int ts__pooled_begin(ts__pooled *p)
{
  if (p->reps == p->cap) {
    int cap = p->cap ? p->cap * 2 : 16;
    struct ts__pooled_rep *rep = realloc(p->rep, (size_t)cap * sizeof *rep);
    if (!rep)
      return -1;
    p->rep = rep;
    p->cap = cap;
  }
  p->qdone = 0;
  p->rep[p->reps++] = (struct ts__pooled_rep){.end = p->v.written + p->v.mem.len};
  return 0;
}

int ts__pooled_add(ts__pooled *p, const double *x, size_t n)
{
  struct ts__pooled_rep *r = &p->rep[p->reps - 1];
  size_t z0 = p->v.zeros;
  for (size_t i = 0; i < n; i++) {
    if (isnan(x[i]))
      continue;
    p->cnt++;
    p->mean += (x[i] - p->mean) / (long double)p->cnt;
    r->n++;
    r->sum += x[i];
    if (p->keep) {
      if (ts__vals_push(&p->v, x[i]))
        return -1;
    } else {
      p->v.zeros += x[i] == 0;
    }
  }
  r->zeros += p->v.zeros - z0;
  r->end = p->v.written + p->v.mem.len;
  return 0;
}

int ts__pooled_quantiles(ts__pooled *p, const double *q, int nq, double *out)
{
  ts__vals *v = &p->v;
  if (v->f) /* (the file's order is kept: the memory is written to it first) */
    return ts__vals_quantiles(v, q, nq, out);
  double *c = malloc((v->mem.len ? v->mem.len : 1) * sizeof *c); /* a copy: the memory keeps its order */
  if (!c)
    return -1;
  if (v->mem.len) /* (no values yet: mem.v is NULL, which memcpy may not be given) */
    memcpy(c, v->mem.v, v->mem.len * sizeof *c);
  ts__quantiles_zeros(c, v->mem.len, v->neg, v->zeros, q, nq, out);
  free(c);
  return 0;
}

int ts__pooled_stat(ts__pooled *p, int stat, double *out)
{
  if (p->cnt == 0) {
    *out = NAN;
    return 0;
  }
  if (stat == TS__STAT_MEAN) {
    *out = (double)p->mean;
    return 0;
  }
  if (!p->qdone) { /* every quantile read of p at once: one selection (or one set of passes over the file) */
    double q[TS__MAX_QUANTILES], got[TS__MAX_QUANTILES];
    int which[TS__MAX_QUANTILES], nq = 0;
    unsigned want = (p->stats | 1u << stat) & ~(1u << TS__STAT_MEAN);
    for (int k = 0; k < TS__NSTATS; k++) {
      if (want & 1u << k) {
        which[nq] = k;
        q[nq++] = ts__stat_level[k];
      }
      if (nq == TS__MAX_QUANTILES || (nq > 0 && k == TS__NSTATS - 1)) {
        if (ts__pooled_quantiles(p, q, nq, got))
          return -1;
        for (int i = 0; i < nq; i++)
          p->qv[which[i]] = got[i];
        nq = 0;
      }
    }
    p->qdone = !(want & ~p->stats); /* (a statistic not in stats: found now, not kept for later) */
  }
  *out = p->qv[stat];
  return 0;
}

void ts__pooled_finish(ts__pooled *p)
{
  ts__vals_finish(&p->v);
  free(p->rep);
  memset(p, 0, sizeof *p);
}
