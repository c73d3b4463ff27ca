/* Sensitivity of metrics to a model's costs: which cost, cut by how much,
 * moves a metric most. A parameter is one numeric field of the model, or a
 * named group of them scaled together (every hydration cost). At every
 * point of the scenario's sweep it measures
 *   - the elasticity, the relative change of the metric per relative change
 *     of the parameter, by central differences: the parameter scaled by
 *     1 - h and 1 + h, replication by replication under common random
 *     numbers (ts_compare_elasticity), with its 95% interval;
 *   - the virtual-speedup curve: the metric with the parameter scaled by
 *     each of the scales (1, 0.9, ... 0.1: what if this cost were 10%,
 *     20% ... cheaper).
 * Every variant (the base, and each parameter at each scale and at 1 +- h)
 * runs in one exploration (fit/explore.h), so the whole measurement is one
 * sweep on the threads asked for, and its result is the same for any
 * number of them. */
#ifndef TS_FIT_SENSITIVITY_H
#define TS_FIT_SENSITIVITY_H
#include <stddef.h>

#include "fit/explore.h"
#include "run/compare.h"

/* A parameter: its name (a path, or a group's name) and the fields it
 * scales, each with its value in the model. */
typedef struct ts_sens_param {
  char *name;
  char **paths;
  double *base;
  size_t npaths;
} ts_sens_param;

typedef struct ts_sens_spec {
  const ts_sens_param *params;
  size_t nparams;
  const double *scales;          /* the curve's scales, each in [0, 1000] */
  size_t nscales;
  double step;                   /* h, in (0, 0.5] */
  const ts_explore_metric *metrics;
  size_t nmetrics;
  int replications;
} ts_sens_spec;

/* Make p the parameter name scaling the fields paths[0..npaths) of x's
 * model (free with ts_sens_param_finish): each must be a field that
 * ts_explore_check_path accepts and hold a number. option names the option
 * in errors ("--param", "--group hydration"). Returns 0, or -1 with e
 * filled (p then needs no finish). */
int ts_sens_param_init(ts_sens_param *p, const ts_explore *x, const char *option, const char *name,
                       const char *const *paths, size_t npaths, ts_err *e);
void ts_sens_param_finish(ts_sens_param *p);
/* Check x's model takes parameter p at every scale of spec and at 1 +- h,
 * at every axis combination. Returns 0, or -1 with e filled, naming option,
 * the value and the scale the model rejects, and why. */
int ts_sens_probe(const ts_explore *x, const ts_sens_spec *spec, const ts_sens_param *p, const char *option,
                  ts_err *e);
/* The variants a measurement of spec runs: the base, and each parameter at
 * each scale besides 1 and at 1 +- h (each distinct scale once). */
size_t ts_sens_nvariants(const ts_sens_spec *spec);
/* Measure spec over every point of x's sweep into r (caller memory; free
 * with ts_compare_sens_finish, also after a failure). Returns ts_sweep_run's
 * status (TS_SWEEP_OK, TS_SWEEP_STOPPED...), with a one-line reason in err
 * (size cap) on failure. */
int ts_sens_run(const ts_explore *x, const ts_sens_spec *spec, ts_sens_result *r, char *err, size_t cap);

#endif
