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
 * replication). */
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
} ts_point;

typedef struct ts_sample {
  int combo;
  int replication;
  int n;
  int workers;
  const char *class_name;   /* owned by the sweep (names) */
  ts_actor_stats st;
} ts_sample;

typedef struct ts_sweep {
  ts_point *points;
  size_t npoints, cap_points;
  ts_sample *samples;       /* only when keep_samples */
  size_t nsamples, cap_samples;
  uint64_t events;          /* events dispatched, all replications */
  ts_metric *cols;          /* the columns (no expressions: those stay in the lists) */
  size_t ncols;
  int naxes;
  int *combo_values;        /* [ncombos * naxes] */
  size_t ncombos;
  int max_replications;     /* the most any point took (with a CI target) */
  char **names;             /* class names the samples point to */
  size_t nnames;
  size_t points_done;       /* sweep points complete (all their rows) */
  char errmsg[512];         /* what failed, when ts_sweep_run fails */
} ts_sweep;

typedef struct ts_sweep_spec {
  const int *ns;
  size_t nn;
  const int *workers;
  size_t nw;
  int replications;
  uint64_t seed;
  int keep_samples;
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
  /* confidence target: add replications (up to ci_max) until every
   * half-width is within ci_target x |mean|; 0: no target */
  double ci_target;
  int ci_max;
  /* the columns the target applies to (the reported ones): fills cols with
   * indexes into s->cols and returns how many; NULL: every column */
  int (*ci_cols)(void *ctx, const struct ts_sweep *s, int *cols, int max);
  /* optional: called after each replication; a nonzero return stops the sweep */
  int (*progress)(void *data, size_t point, size_t points, int replication);
  /* optional: polled before each replication (with progress_data); nonzero stops the sweep (an interrupt) */
  int (*should_stop)(void *data);
  void *progress_data;
} ts_sweep_spec;

enum { TS_SWEEP_OK = 0, TS_SWEEP_NOMEM = -1, TS_SWEEP_STUCK = -2, TS_SWEEP_INTERNAL = -3, TS_SWEEP_HORIZON = -4,
       TS_SWEEP_MODEL = -5, TS_SWEEP_STOPPED = -6 };

/* Run a sweep into out (caller memory; free with ts_sweep_finish, also after
 * a failure). Returns TS_SWEEP_OK, or the first failure with out->errmsg
 * saying what and where: a replication's TS_WORLD_* status (deadlock, model
 * error...), TS_SWEEP_MODEL for a combination's model that does not load,
 * TS_SWEEP_STOPPED when progress or should_stop asked to stop (out->points_done
 * says how many points were complete). */
int ts_sweep_run(const ts_sweep_spec *spec, ts_sweep *out);
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

#endif
