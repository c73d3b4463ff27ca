/* A sweep: the full factorial of a scenario's axes x n x workers, R
 * replications at each point, and the summary per point and reported actor
 * class. Replication r of point (n, w) is seeded with
 * ts_rng_derive_seed(seed, n, w, r), and every actor's stream derives from
 * that, its class and its index only (never from axis values): two variants
 * of a model see the same randomness (common random numbers), and any point
 * can be rerun alone.
 *
 * Columns are the union, by name, of the metric lists of the axis
 * combinations' models (a variant may add a span); a metric a point's model
 * lacks is NAN there. Every column has the point's value, the mean over
 * replications and the 95% Student-t half-width of that mean (NAN with one
 * replication).
 *
 * Replications may run on several threads (jobs): each one depends only on
 * its seed, and the results are folded in the sweep's order (point by
 * point, replication by replication), so the result is the same for any
 * number of threads. A sweep may also run only a shard of its points
 * (point i of the sweep's order belongs to shard i mod shards); its points
 * then lack wave_ratio, which needs other points (ts_sweep_ratios adds it
 * once every shard's points are together). */
#ifndef TS_SWEEP_H
#define TS_SWEEP_H
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/world.h"
#include "run/metrics.h"

typedef struct ts_point {
  int combo;            /* which axis combination (its value indexes: ts_sweep.combo_values) */
  int n;
  int workers;
  int klass;            /* the class's index in its combination's model; -1: all classes */
  char *class_name;
  int replications;
  size_t samples;       /* actors pooled */
  double *value;        /* [ncols] */
  double *mean;         /* [ncols] over replications */
  double *ci95;         /* [ncols] half-width */
  double *rep;          /* [replications * ncols]: per-replication values */
  int outside;          /* a CPU-by-load input was held flat beyond its recorded range */
  size_t index;         /* the sweep point it belongs to (in the sweep's order, all shards) */
  int ci_missed;        /* with a CI target: some checked half-width stayed above it (it stopped at ci_max) */
  double ci_rel;        /* with a CI target: its widest checked half-width over |its center| (INFINITY: undefined) */
  int ci_rel_col;       /* that column (ts_sweep.cols); -1: none checked (no target, or every center 0 or NAN) */
} ts_point;

/* Growable text, for the samples of a replication. With flush set, text
 * beyond TS_TEXT_FLUSH bytes is handed to it as it grows (streaming);
 * without, it is all kept. */
typedef struct ts_text {
  char *v;
  size_t len, cap;
  int (*flush)(void *ctx, const char *p, size_t n); /* 0, or -1 on failure */
  void *ctx;
  int failed;           /* 0, TS_TEXT_NOMEM (memory ran out) or TS_TEXT_FLUSH (the flush failed) */
} ts_text;

enum { TS_TEXT_NOMEM = 1, TS_TEXT_FLUSH = 2 };

#define TS_TEXT_FLUSH ((size_t)1 << 20)

/* Room for `more` bytes at t->v + t->len (flushing first when t streams).
 * Returns 0, or -1 (and t->failed) when memory ran out or the flush failed. */
int ts_text_reserve(ts_text *t, size_t more);
/* Hand what t holds to its flush (when it has one) and empty it. */
int ts_text_drain(ts_text *t);
/* Free t's storage. */
void ts_text_finish(ts_text *t);

/* What a sweep notes about some of its replications (said on stderr by the
 * commands): how many, and the first of them in the sweep's order. */
typedef struct ts_sweep_note {
  size_t count;
  char first[400];
  size_t first_point; /* the index (ts_point.index) of first's point in its sweep (a shard's, merged: cmd_merge.c) */
} ts_sweep_note;

/* A sweep's notes, or those of several sweeps summed (ts_sweep_notes_add). */
typedef struct ts_sweep_notes {
  ts_sweep_note window_missed; /* replications that ended before the window began (their window metrics NAN);
                                * first: "n=1 workers=1 replication 0 ended at 12.5 ms, its window
                                * starting at 20 ms" (each point named as ts__point_fail names it: with its axes) */
  ts_sweep_note backlogged;    /* replications whose "forever" classes left a backlog at the horizon (point.c's
                                * backlogged); first: "n=1 workers=1 replication 0: 9000 of 10000 arrivals not
                                * done at 1000 ms" */
  ts_sweep_note overloaded;    /* points where an open class of fixed count runs on workers offered a load rho of
                                * 1 or more (run/offered.c); first: "class job at n=1 workers=1, rho = lambda E[S] / c = 2" */
  size_t replicated;           /* points run with 2 or more replications */
  ts_sweep_note identical;     /* of those, the points whose replications gave the same value in every column
                                * the sweep checks (ts_sweep_spec.ci_cols: the table's; NULL: every column;
                                * NAN equal to NAN); first: "n=1 workers=1". All of them (count == replicated):
                                * the model draws nothing random that reaches those metrics */
} ts_sweep_notes;

/* Add the notes of b to a: each count (and replicated) summed, and each first kept, or b's
 * when a had none of that note (so a sum in a fixed order of the sweeps
 * names the first replication in that order). */
void ts_sweep_notes_add(ts_sweep_notes *a, const ts_sweep_notes *b);

typedef struct ts_sweep {
  ts_point *points;
  size_t npoints, cap_points;
  uint64_t events;          /* events dispatched, all replications */
  ts_metric *cols;          /* the columns (no expressions: those stay in the lists) */
  size_t ncols;
  int has_settle;           /* one of them is settle_ms (so samples.csv has the column: ts_report_samples_row) */
  int naxes;
  int *combo_values;        /* [ncombos * naxes] */
  size_t ncombos;
  int max_replications;     /* the most any point took (with a CI target) */
  size_t points_done;       /* sweep points complete (all their rows) */
  size_t points_total;      /* points of the whole sweep (all shards) */
  ts_sweep_notes notes;     /* window missed, backlog at the horizon */
  char errmsg[1024];        /* what failed, when ts_sweep_run fails */
} ts_sweep;

typedef struct ts_sweep_spec {
  const int *ns;
  size_t nn;
  const int *workers;
  size_t nw;
  int replications;
  uint64_t seed;
  ts_time horizon;          /* TS_TIME_MAX: until nothing is left */
  ts_time warmup;           /* the window starts here */
  ts_time window;           /* its length; 0: until the horizon (or the end) */
  /* axes: combinations are the odometer over axis_sizes, the first axis outermost */
  int naxes;
  const int *axis_sizes;
  /* The model of one combination: 0 with *m filled (the sweep finishes it),
   * or -1 with a one-line reason in err. NULL: every combination is `model`. */
  int (*model_of)(void *ctx, const int *values, ts_model *m, char *err, size_t cap);
  const ts_model *model;
  void *ctx;
  /* optional: an axis's name and the label of its value v (with ctx), to
   * name the point a failure happened at ("policy=fifo"); NULL: "axis0=0" */
  const char *(*axis_name)(void *ctx, int axis);
  const char *(*axis_label)(void *ctx, int axis, int v);
  /* optional: the measurement window of one combination, when an axis sets
   * it (warmup and window as above, filled in with these defaults); NULL:
   * warmup and window for every combination */
  void (*window_of)(void *ctx, const int *values, ts_time *warmup, ts_time *window);
  /* confidence target: add replications (up to ci_max) until every
   * half-width is within ci_target x |mean|; 0: no target */
  double ci_target;
  int ci_max;
  /* the columns the target applies to (the reported ones): fills cols with
   * indexes into s->cols and returns how many; NULL: every column */
  int (*ci_cols)(void *ctx, const struct ts_sweep *s, int *cols, int max);
  /* optional: called (on the calling thread) after each replication is
   * folded into its point; a nonzero return stops the sweep */
  int (*progress)(void *data, size_t point, size_t points, int replication);
  /* optional: polled before each replication (with progress_data), on any
   * thread; nonzero stops the sweep (an interrupt) */
  int (*should_stop)(void *data);
  void *progress_data;
  /* optional: the samples. format_samples, on the thread that runs the
   * replication, appends the row of one of its actors (a, counted: not a
   * spawned task, arrived) to out, actor by actor in id order, as they are
   * done and, after the run, those that are not (w: the world, running or
   * finished; its actors may be gone); the texts reach write_samples in
   * the sweep's order (the replication folded next streams into
   * write_samples as it grows). Both 0, or -1 to fail the sweep. */
  int (*format_samples)(void *ctx, const struct ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo,
                        int replication, ts_text *out);
  int (*write_samples)(void *ctx, const char *text, size_t len);
  void *samples_ctx;
  int jobs;                 /* threads running replications; 0 or 1: the calling thread */
  /* values of one quantity (one row, one replication) a quantile needs that
   * are kept in memory; past it they go to a temporary file in $TMPDIR
   * (else /tmp) and the quantiles are found by radix selection, with the
   * same bits. 0: 2^20 */
  size_t spill_values;
  int shard, shards;        /* run only the points i with i mod shards == shard (shards 0: all) */
} ts_sweep_spec;

enum { TS_SWEEP_OK = 0, TS_SWEEP_NOMEM = -1, TS_SWEEP_STUCK = -2, TS_SWEEP_INTERNAL = -3, TS_SWEEP_HORIZON = -4,
       TS_SWEEP_MODEL = -5, TS_SWEEP_BUDGET = -6, TS_SWEEP_STOPPED = -7, TS_SWEEP_OUTPUT = -8, TS_SWEEP_TEMP = -9 };

/* Run a sweep into out (caller memory; free with ts_sweep_finish, also after
 * a failure). Returns TS_SWEEP_OK, or the first failure in the sweep's
 * order with out->errmsg saying what and where: a replication's TS_WORLD_*
 * status (deadlock, model error...), TS_SWEEP_MODEL for a combination's
 * model that does not load, TS_SWEEP_STOPPED when progress or should_stop
 * asked to stop (out->points_done says how many points were complete),
 * TS_SWEEP_OUTPUT when write_samples failed (the caller knows the file and
 * why), TS_SWEEP_TEMP when a temporary file of values kept for quantiles
 * could not be made, written or read (errmsg says where and why). */
int ts_sweep_run(const ts_sweep_spec *spec, ts_sweep *out);
/* The columns and combinations of spec's sweep into out, with no point run
 * (what a merge of shards fills). Returns as ts_sweep_run. */
int ts_sweep_prepare(const ts_sweep_spec *spec, ts_sweep *out);
/* A new point of out with every value NAN (replications * ncols per-replication
 * slots), or NULL when memory runs out. */
ts_point *ts_sweep_add_point(ts_sweep *out, int replications);
/* Compute wave_ratio for every point (after the last point is in). */
void ts_sweep_ratios(ts_sweep *s);
/* Free a sweep's memory. */
void ts_sweep_finish(ts_sweep *s);
/* The point (combo, n, workers) of class name (NULL: the first row of that
 * point), or NULL. */
const ts_point *ts_sweep_find(const ts_sweep *s, int combo, int n, int workers, const char *class_name);
/* The column called name, or -1. */
int ts_sweep_col(const ts_sweep *s, const char *name);
/* The number of points of the sweep spec (combinations x n x workers). */
size_t ts_sweep_npoints(const ts_sweep_spec *spec);
/* The 95% Student-t half-width of the mean of v[0..k) (stride apart): NAN when k < 2. */
double ts_ci95(const double *v, size_t stride, size_t k);
/* The q-quantile of v[0..k) (q = 0.5: the median), exactly as GSL's
 * gsl_stats_median_from_sorted_data / gsl_stats_quantile_from_sorted_data
 * give it for v sorted, found by selection (v is reordered), or read
 * directly when v already ascends; 0 when k is 0. v must hold no NAN. */
double ts_quantile(double *v, size_t k, double q);
/* ts_quantile of k copies of c, without the copies (the same arithmetic on
 * equal order statistics, so the same bits). */
double ts_quantile_same(double c, size_t k, double q);
/* The number of online cores (at least 1). */
int ts_sweep_cores(void);

#endif
