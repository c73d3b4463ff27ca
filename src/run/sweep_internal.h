/* Declarations shared by the files of the sweep (sweep.c, point.c,
 * runner.c, stats.c) and nothing else (ts__ = not part of the library's
 * interface). */
#ifndef TS_RUN_SWEEP_INTERNAL_H
#define TS_RUN_SWEEP_INTERNAL_H
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "run/sweep.h"

/* --- small statistics over arrays that may hold NAN (stats.c) --- */

/* Copy the finite values of v[0..k) (stride apart) into out; returns how many. */
size_t ts__finite(const double *v, size_t stride, size_t k, double *out);
/* The q-quantile (0.5: the median) of v[0..k) (reordered); NAN when empty. */
double ts__quantile_or_nan(double *v, size_t k, double q);
/* Statistic stat (0 median, 1 p95, 2 mean, 3 p99, 4 max, 5 p5, 6 min) of v[0..k) (reordered); NAN when empty. */
double ts__actor_stat(double *v, size_t k, int stat, int same);
/* ts__actor_stat's numbering: the mean's number and how many there are. */
enum { TS__STAT_MEAN = 2, TS__NSTATS = 7 };
/* The quantile level of each of ts__actor_stat's statistics (max 1, min 0;
 * 0 for the mean, which is not one). */
extern const double ts__stat_level[TS__NSTATS];
/* The ranks (0-based order statistics) of k sorted values that GSL's
 * q-quantile reads (ts_quantile): *lo and *hi (the same when it reads one). */
void ts__quantile_ranks(size_t k, double q, size_t *lo, size_t *hi);
/* GSL's q-quantile of k sorted values from those two order statistics l and h. */
double ts__quantile_from(size_t k, double q, double l, double h);
/* The median of the finite values of v[0..k) (stride apart), using scratch (room for k); NAN when none. */
double ts__median_strided(const double *v, size_t stride, size_t k, double *scratch);
/* The mean of the finite values of v[0..k) (stride apart); NAN when none. */
double ts__mean_strided(const double *v, size_t stride, size_t k);

/* --- the bootstrap over replications of a pooled statistic (boot.c) --- */

/* Resamples of the bootstrap. */
#define TS__BOOT_RESAMPLES 1000
/* Replications a pooled value needs before its interval is the bootstrap's:
 * a resample's statistic lies about between the replications' own, and the
 * range of R replications' statistics holds the true one with probability
 * at most 1 - 2^(1 - R) (75% at R = 3, 94% at R = 5), so with fewer the
 * bootstrap cannot give 95%; there the half-width stays the Student-t one
 * of the replications' statistics (ts_ci95). */
#define TS__BOOT_MIN_REPLICATIONS 10
/* The 95% bootstrap percentile interval [*lo, *hi] of statistic stat
 * (ts__actor_stat's numbering) of values pooled over reps replications:
 * v[0..end[reps - 1]) holds them (finite), replication r's at [end[r - 1],
 * end[r]) (end[-1] = 0). Each of TS__BOOT_RESAMPLES resamples draws reps
 * replications with replacement (GSL's MT19937 seeded with seed: the same
 * seed, the same resamples) and takes the statistic over their values;
 * *lo, *hi are the ts__boot_level(reps) and 1 - ts__boot_level(reps)
 * quantiles of those (the expanded percentile interval). NAN both with
 * fewer than 2 replications or no value. 0, or -1 when out of memory. */
int ts__boot_interval(const double *v, const size_t *end, int reps, int stat, unsigned long seed, double *lo,
                      double *hi);
/* The tail probability of the expanded percentile interval of reps >= 2
 * replications: Phi(-sqrt(reps / (reps - 1)) t(0.975, reps - 1)). */
double ts__boot_level(int reps);
/* The half-width reported for a value with bootstrap interval [lo, hi]: the
 * larger distance from the value to an end, so value +- it covers the
 * interval; NAN when any is. */
double ts__boot_halfwidth(double value, double lo, double hi);

/* --- the sweep's types --- */

/* A growable array of doubles. */
typedef struct dvec {
  double *v;
  size_t len, cap;
} dvec;

/* Append x[0..n) to d, growing it (doubling from 64). 0, or -1 when out of
 * memory (d unchanged). */
int ts__dvec_append(dvec *d, const double *x, size_t n);

/* --- the values a quantile needs, in memory then in a temporary file (spill.c) --- */

/* Values held in memory per quantity before they go to a temporary file,
 * and the buffer that is left them after that. */
#define TS__SPILL_AT ((size_t)1 << 20)
#define TS__SPILL_CHUNK ((size_t)1 << 16)

typedef struct ts__vals {
  dvec mem;          /* the values not written yet (all of them until the first spill); cap <= the threshold */
  size_t zeros;      /* the values that are 0 (of either sign): counted, not kept */
  size_t neg;        /* the values kept that are < 0 (they sort below the zeros) */
  FILE *f;           /* the temporary file (raw doubles, in order), once spilled */
  size_t written;    /* values in the file */
  size_t spill_at;   /* the threshold (values in memory); 0: TS__SPILL_AT */
  const char *err;   /* what failed (a temporary file's make, write or read), or NULL */
  int errnum;        /* its errno */
} ts__vals;

/* Append x to v (never a NaN): a 0 (either sign: a quantile reads it as
 * +0) only counted (v->zeros; half an M/M/1's waits are 0), any other value
 * in memory while there is room below the threshold, else the memory to the
 * file first (and then only TS__SPILL_CHUNK values in memory). 0, or -1
 * (out of memory, or v->err). The inline fast path is ts__vals_push. */
int ts__vals_push_slow(ts__vals *v, double x);
static inline int ts__vals_push(ts__vals *v, double x)
{
  int64_t bits;
  memcpy(&bits, &x, sizeof bits);
  if (bits <= 0) { /* +0, or the sign bit set (< 0, or -0): one test for the values above 0, most of them */
    if (x == 0) {
      v->zeros++;
      return 0;
    }
    v->neg++;
  }
  if (v->mem.len < v->mem.cap) {
    v->mem.v[v->mem.len++] = x;
    return 0;
  }
  return ts__vals_push_slow(v, x);
}
/* Where rank r (0-based, ascending) of k kept values, neg of them < 0, and
 * zeros zeros falls: 0 when among the zeros (its value is +0), else 1 and
 * *at its rank among the kept values (those below the zeros keep theirs,
 * those above them move down by zeros). */
static inline int ts__kept_rank(size_t r, size_t neg, size_t zeros, size_t *at)
{
  if (r < neg) {
    *at = r;
    return 1;
  }
  if (r < neg + zeros)
    return 0;
  *at = r - zeros;
  return 1;
}
/* Room in v's memory for n values (at most the threshold), made now, before
 * the first push: the values then go in without growing (and copying) the
 * memory by doubling. A hint: nothing when v holds memory already, or when
 * the memory cannot be had (the pushes grow it as before). */
void ts__vals_reserve(ts__vals *v, size_t n);
/* Whether v[0..k) ascends (v holds no NAN): its values are then its order
 * statistics, v[r] the r-th smallest, with no sort or selection. The pass
 * stops at the first descent. */
int ts__ascends(const double *v, size_t k);

/* The most quantiles ts__quantiles finds in one call. */
#define TS__MAX_QUANTILES 4
/* The q[i]-quantiles (i < nq <= TS__MAX_QUANTILES) of v[0..k) into out, each
 * ts_quantile(v, k, q[i])'s bits (v must hold no NAN and no -0: the order
 * statistics are then unique), with fewer passes over v than one
 * ts_quantile each: the ranks they read are selected once each, in
 * ascending order, each in the part of v above the one before (or read
 * directly when v already ascends). v is reordered. */
void ts__quantiles(double *v, size_t k, const double *q, int nq, double *out);
/* ts__quantiles of the k values v[0..k) (none 0, neg of them < 0) with
 * zeros values +0 besides, not in v: the bits of the quantiles of all k +
 * zeros of them. v is reordered. */
void ts__quantiles_zeros(double *v, size_t k, size_t neg, size_t zeros, const double *q, int nq, double *out);
/* The q[i]-quantiles (i < nq <= 4) of v's values (at least one) into out:
 * ts_quantile's bits, from memory or by radix selection over the file. 0,
 * or -1 (out of memory, or v->err). The memory's values are reordered. */
int ts__vals_quantiles(ts__vals *v, const double *q, int nq, double *out);
/* The order statistics rank[0..nr) (0-based, ascending, nr <= 8, each below
 * v's count, zeros included) of v's values into out, without reordering
 * the values in memory (selection in a copy, or radix selection over the
 * file). 0, or -1 (out of memory, or v->err). */
int ts__vals_order(ts__vals *v, const size_t *rank, int nr, double *out);
/* Hand v's kept values to fn, in the order pushed, a run at a time (the
 * memory, or the file read into the memory's buffer); a -1 from fn stops it.
 * 0, or -1 (fn's, or v->err). */
int ts__vals_each(ts__vals *v, int (*fn)(void *ctx, const double *x, size_t n), void *ctx);
/* What failed on v's temporary file, where and why (one line), into buf. */
void ts__vals_why(const ts__vals *v, char *buf, size_t cap);
/* Free what v holds and close its file. */
void ts__vals_finish(ts__vals *v);

/* --- a point's pooled values of one quantity, replication by replication (pooled.c) --- */

/* The values (not NaN) one statistic pools over a point's replications, in
 * the order they came: their running mean (gsl_stats_mean's, long double),
 * each replication's count, zeros and sum (the bootstrap's), and, when a
 * quantile reads them, the values themselves in a ts__vals (in memory up to
 * its threshold, then in its temporary file), so that a point's memory
 * does not grow with its replications. */
typedef struct ts__pooled {
  ts__vals v;        /* the values but the zeros, replication after replication (keep) */
  int keep;          /* a quantile reads them (else only the mean and the counts) */
  unsigned stats;    /* the statistics (1 << ts__actor_stat's number) read of them */
  double qv[TS__NSTATS]; /* their values by that number, once found (qdone) */
  int qdone;         /* qv holds every quantile of stats, of the replications so far */
  long double mean;  /* running mean of every value so far */
  size_t cnt;        /* every value so far */
  int reps, cap;     /* replications begun, and room for */
  struct ts__pooled_rep {
    size_t end;      /* v's kept values after it */
    size_t n;        /* its values */
    size_t zeros;    /* of those, the zeros */
    double sum;      /* their sum, in order */
  } *rep;            /* [reps] */
} ts__pooled;

/* Begin replication p->reps in p. 0 or -1 (out of memory). */
int ts__pooled_begin(ts__pooled *p);
/* Add x[0..n) (NaNs skipped) to p's last replication. 0, or -1 (out of memory, or p->v.err). */
int ts__pooled_add(ts__pooled *p, const double *x, size_t n);
/* Statistic stat (ts__actor_stat's numbering) of every value of p into
 * *out: the bits of ts__actor_stat over them in order (NAN when none). 0,
 * or -1 (out of memory, or p->v.err). */
int ts__pooled_stat(ts__pooled *p, int stat, double *out);
/* The q[i]-quantiles (i < nq <= 4) of p's values (at least one) into out. 0 or -1. */
int ts__pooled_quantiles(ts__pooled *p, const double *q, int nq, double *out);
/* Free what p holds. */
void ts__pooled_finish(ts__pooled *p);
/* The bootstrap interval of ts__boot_interval over p's replications. 0, or -1 (out of memory, or p->v.err). */
int ts__boot_pooled(ts__pooled *p, int stat, unsigned long seed, double *lo, double *hi);

/* One axis combination for the whole sweep: its model, metric list, the
 * list's columns in the sweep, and the distinct per-actor quantities its
 * actor metrics read (what a point pools). */
typedef struct combo_run {
  ts_model m;
  ts_time warmup, window;   /* its measurement window (ts_sweep_spec.window_of) */
  int have_model, owned, have_list;
  ts_metric_list l;
  int *colmap;          /* [l.n] */
  int *qid;             /* [nq]: ts_metric.id of each distinct actor quantity */
  int *qof;             /* [l.n]: metric i's index into qid, or -1 */
  int nq;
  unsigned char *want;  /* [l.n]: metric i is computed (all of them, for now) */
} combo_run;

/* What one point accumulates over its replications, per reported row. */
typedef struct row {
  int klass;         /* -1: all classes */
  dvec rep;          /* per replication: nl values each */
  size_t samples;
} row;

typedef struct point_run {
  const ts_sweep_spec *spec;
  const combo_run *cr;
  int combo, n, workers;
  size_t index;      /* in the sweep's order */
  row *rows;
  int nrows;
  int pool;          /* the point's actor metrics pool every actor of every replication */
  ts__pooled *spans;   /* [model spans]: pooled samples (ms) of every replication */
  ts__pooled *q;       /* [nrows * cr->nq]: each row's pooled actor values (pool) */
  int reps;          /* replications folded */
  int target;        /* replications asked for so far */
  int queued;        /* replications made tasks so far (<= target) */
  int cap;           /* the most it may take */
  int outside;
  double *scratch;
  size_t scratch_cap;
} point_run;

/* A replication "ends with a backlog" (ts_sweep_notes.backlogged, a note on
 * stderr) when at least this many actors of "forever" classes, and this share
 * of their arrivals, are not done when it ends. */
#define TS_SWEEP_BACKLOG_MIN 100
#define TS_SWEEP_BACKLOG_SHARE 0.05

/* The first class of w's model that is open (Poisson or periodic arrivals)
 * and of fixed count and whose pool's workers are offered a load rho =
 * lambda E[S] / c of 1 or more (offered.c: from the classes whose demand is
 * constant cpu steps), that load into *rho; or -1 (none, or out of memory). */
int ts__overloaded(const ts_world *w, double *rho);

/* One replication reduced to what its point folds in. */
typedef struct rep_out {
  int rc;            /* 0, or a TS_SWEEP_* failure described in why */
  char why[400];
  uint64_t events;
  int outside;
  ts_time missed;    /* when the run ended, if that was before its window began; else -1 */
  int arrived;       /* actors of the classes that arrive until the horizon ("forever") */
  int unfinished;    /* of those, not done when the run ended */
  int overloaded;    /* the first open class of fixed count on workers offered a load >= 1 (ts__overloaded), or -1 */
  double rho;        /* that load */
  double *rows;      /* [nrows * nl] */
  size_t *rowsamples;/* [nrows] */
  dvec *spans;       /* [model spans] */
  ts__vals *pv;      /* [nrows * nq]: the values (not NaN) of each pooled quantity of each row's actors, in actor order
                      (pool): .zeros counts those before the first that is not 0, the values from that one on are
                      kept (zeros too), in memory up to TS__SPILL_CHUNK, then in its temporary file */
  ts_text text;      /* its samples */
} rep_out;

/* --- one replication's actors, as they are done (collect.c) --- */

/* One row's statistics of one per-actor quantity, streamed in actor order. */
typedef struct ts__acc {
  size_t all, cnt;   /* actors, and those with a value (not NaN) */
  long double mean;  /* GSL's running mean of the values so far */
  double first, min, max;
  uint64_t fbits;    /* first's bits */
  int same;          /* every value so far equals first (bit for bit) */
  ts__vals v;        /* the values, once two differ (when a quantile needs them) */
  double qv[6];      /* its quantiles by ts__actor_stat's numbering (ts__collect_rows), once v is spilled */
  int qdone;
} ts__acc;

typedef struct collector {
  const struct point_run *pr;
  const ts_sweep *out;
  int rep;
  rep_out *o;
  int nq;            /* the quantities the rows need */
  int *q;            /* [nq]: TS_Q_* */
  unsigned char *need; /* [nq]: the statistics its metrics read (collect.c NEED_*) */
  int *pool;         /* [nq]: its index among the point's pooled quantities (cr->qid), or -1 */
  int *row_of;       /* [model classes]: the row an actor of the class goes to, or -1 */
  ts__acc *acc;      /* [nrows * nq] */
  struct ts__live *live; /* [nlive]: the quantities taken actor by actor; the others are 0 for every actor so far */
  int nlive;
  uint32_t used;     /* the world's states_used when live was made */
  uint32_t qused;    /* and its quantities_used */
  int live_ok;
  int direct;        /* no samples rows and no pooled values: an actor done in id order is taken from itself in ts__collect_done's frame */
  /* the window (see collect.c), slot by slot: */
  unsigned char *has;  /* 0 empty, 1 an actor to take, 2 one not counted */
  ts_time *wq;         /* its time in time-slice queues */
  int *wrec;           /* an actor to take: its record's index in recs */
  size_t cap, head;
  ts_actor_stats *recs; /* the records of the actors to take in the window, and free ones */
  int *free_recs;      /* the free records' indices (a stack) */
  int nrecs, nfree;
  int base;
  int samples_failed;
  size_t spill_at;   /* ts__vals.spill_at of the values kept (ts_sweep_spec.spill_values) */
  const ts__vals *failed; /* the values whose temporary file failed, or NULL */
  double queued;     /* every actor's time in time-slice queues (ns), summed in id order (as doubles: the bits of slice_wait_ms) */
  int unfinished;    /* actors of "forever" classes not done at the end (ts__collect_end) */
} collector;

/* Ready c to take replication r of pr into o (o->rowsamples, o->q). 0 or -1 (out of memory). */
int ts__collect_init(collector *c, const struct point_run *pr, const ts_sweep *out, int r, rep_out *o);
/* The world's done callback (ts_world_done_fn; ctx: the collector). */
int ts__collect_done(void *ctx, const ts_world *w, const ts_actor *a);
/* After the run: take the actors of w that are not done, and those left in the window. 0 or -1. */
int ts__collect_end(collector *c, const ts_world *w);
/* o->rows: the world values wv, each row's actor statistics, the
 * expressions. 0, or -1: out of memory, or c->failed's temporary file. */
int ts__collect_rows(collector *c, const double *wv);

/* Free what c holds. */
void ts__collect_finish(collector *c);

/* The points a sweep runs: combination, workers, n (in the sweep's order) and its index. */
typedef struct todo {
  int combo, n, workers;
  size_t index;
} todo;

/* --- one point's replications (point.c) --- */

/* A point ready to run: its rows (one per reported class, or one for all); NULL when memory runs out. */
point_run *ts__point_open(const ts_sweep_spec *spec, const combo_run *cr, int combo, int n, int workers,
                          size_t index);
/* Free pr and what it holds (NULL: nothing). */
void ts__point_finish(point_run *pr);
/* Ask for pr's next batch [reps, target); returns how many (0: the point is complete). */
int ts__point_next_batch(point_run *pr, const unsigned char *ci_col);
/* Turn pr's rows into points of out; 0, or -1 when memory runs out. */
int ts__point_emit(point_run *pr, ts_sweep *out);
/* Count complete point pr in out's notes: replicated when it ran 2 or more
 * replications, and identical too when they gave the same value in every
 * column ci_col marks, on every row; with a CI target, its points (the
 * last pr->nrows of out) say whether they missed it and their widest
 * relative half-width (ts_point.ci_missed, ci_rel). */
void ts__point_note(point_run *pr, const unsigned char *ci_col, ts_sweep *out);
/* Fill out->errmsg with what failed at replication r of pr and where; returns rc. */
int ts__point_fail(ts_sweep *out, int rc, const point_run *pr, int r, const char *what);
/* Run replication r of point pr into o (any thread: pr and out are only read). */
void ts__rep_run(const point_run *pr, int r, const ts_sweep *out, rep_out *o);
/* Fold replication r's o into pr (in the sweep's order); 0 or a TS_SWEEP_* failure. */
int ts__rep_fold(point_run *pr, int r, rep_out *o, ts_sweep *out);
/* Free what o holds (pr: the point it was run for). */
void ts__rep_out_finish(rep_out *o, const point_run *pr);

/* --- tasks and threads (runner.c) --- */

/* Pass 2: run the points td[0..ntodo) of the prepared combinations crs on
 * spec->jobs threads, folding each replication in the sweep's order into
 * out; frees everything it made. Returns 0 or a TS_SWEEP_* failure. */
int ts__sweep_points(const ts_sweep_spec *spec, ts_sweep *out, combo_run *crs, const unsigned char *ci_col,
                     const todo *td, size_t ntodo);

#endif
