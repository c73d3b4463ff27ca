/* A sweep: every (n, workers) point of a scenario, R replications each, and
 * the pooled summary per point and actor class. Replication r of point
 * (n, w) is seeded with ts_rng_derive_seed(seed, n, w, r), so any point can be
 * rerun alone and common random numbers hold across model changes. */
#ifndef TS_SWEEP_H
#define TS_SWEEP_H
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/world.h"
#include "run/metrics.h"

typedef struct ts_point {
  int n;
  int workers;
  int klass;
  int replications;
  size_t samples;
  double value[TS_M_COUNT];
} ts_point;

typedef struct ts_sample {
  int replication;
  int n;
  int workers;
  ts_actor_stats st;
} ts_sample;

typedef struct ts_sweep {
  ts_point *points;
  size_t npoints;
  ts_sample *samples;     /* only when keep_samples */
  size_t nsamples;
  uint64_t events;        /* events dispatched, all replications */
} ts_sweep;

typedef struct ts_sweep_spec {
  const int *ns;
  size_t nn;
  const int *workers;
  size_t nw;
  int replications;
  uint64_t seed;
  int keep_samples;
  /* optional progress callback, called after each replication */
  void (*progress)(void *data, int n, int workers, int replication);
  void *progress_data;
  /* optional, called with progress_data before each replication: nonzero
   * stops the sweep (ts_sweep_run returns -5) */
  int (*should_stop)(void *data);
} ts_sweep_spec;

/* Run a sweep of model m into out (caller memory; free with ts_sweep_finish).
 * Returns 0, or what ts_world_run returned for the first replication that
 * failed: -1 out of memory, -2 deadlock (actors left waiting with no event
 * pending, e.g. a lock cycle), -3 internal error; or -4 before running
 * anything when a point's simulated horizon could overflow (ts_model_horizon_ok);
 * -5 when should_stop stopped it. */
int ts_sweep_run(const ts_model *m, const ts_sweep_spec *spec, ts_sweep *out);
/* Free a sweep's memory. */
void ts_sweep_finish(ts_sweep *s);
/* The summary point for (n, workers, class), or NULL. */
const ts_point *ts_sweep_find(const ts_sweep *s, int n, int workers, int klass);

#endif
