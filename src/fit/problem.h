/* A calibration problem: a model tree with free parameters and the recorded
 * values it must reproduce. An evaluation writes the parameter values into
 * the tree, converts it (ts_model_from_json) and sweeps every recorded
 * (n, workers) point with the same seed each time (common random numbers),
 * so the objective is a deterministic function of the values:
 *   objective = sum over targets of weight * ((simulated - recorded) / recorded)^2 */
#ifndef TS_FIT_PROBLEM_H
#define TS_FIT_PROBLEM_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "fit/param.h"
#include "io/baseline_json.h"
#include "io/err.h"
#include "io/scenario_json.h"
#include "run/sweep.h"

/* One recorded value to reproduce. */
typedef struct ts_fit_target {
  int n;
  int workers;
  int combo;         /* the scenario's axis combination (0 without axes) */
  int metric;        /* index into ts_fit_problem.mnames */
  double recorded;
  double weight;
  size_t point;      /* index into ts_fit_problem.pt */
} ts_fit_target;

/* A recorded sweep point: the unit a leave-one-out refit holds out. */
typedef struct ts_fit_point {
  int n;
  int workers;
  int combo;
} ts_fit_point;

/* The points run by one sweep: one combination and worker count, its recorded n ascending. */
typedef struct ts_fit_group {
  int combo;
  int workers;
  int *ns;
  size_t nn;
} ts_fit_group;

typedef struct ts_fit_problem {
  cJSON *tree;                  /* owned copy of the model; each evaluation writes here */
  char *file;                   /* the model file, for errors */
  char *baseline_file;          /* the baseline file, for errors */
  const ts_fit_params *params;  /* borrowed */
  ts_fit_target *t;             /* in the baseline's order */
  size_t nt;
  ts_fit_point *pt;             /* in order of first appearance */
  size_t npt;
  ts_fit_group *g;
  size_t ng;
  uint64_t seed;
  int replications;
  size_t evaluations;           /* sweeps run so far */
  ts_sweep_notes notes;         /* what their sweeps noted (window missed, backlog), summed; each note's
                                 * first in a fixed order (ts_fit_minimize folds its threads' fit by fit) */
  char **mnames;                /* the recorded metrics' names, in order of first appearance */
  size_t nmnames;
  const ts_scenario *sc;        /* axes, horizon and window (NULL: none) */
  char **combo_label;           /* [ncombos]: "workload=chat" etc., for output */
  size_t ncombos;
  /* optional, set after ts_fit_problem_init: polled before each evaluation
   * and replication; nonzero stops the fit (ts_fit_eval returns -3) */
  int (*should_stop)(void *data);
  void *stop_data;
  int is_clone;                 /* a ts_fit_problem_clone: only tree is its own */
} ts_fit_problem;

/* Build a problem in pb (caller memory; free with ts_fit_problem_finish) from
 * a model tree (copied), its parameters ps (borrowed, must outlive pb) and
 * baseline b; sc (borrowed, may be NULL) gives the axes that baseline records
 * name, and the horizon and window of every run. use_metric is a
 * NULL-terminated list of the metric names to fit, or NULL for every metric
 * b records. The model is also converted with each
 * parameter at its start, min, max and an interior value, so bounds the model
 * cannot take are reported now rather than mid-fit. Returns 0, or -1 with e
 * filled: a chosen metric not recorded, a recorded 0 (relative error
 * undefined), fewer weighted recorded values than parameters, a bound the
 * model rejects. */
int ts_fit_problem_init(ts_fit_problem *pb, const cJSON *model, const char *file, const ts_fit_params *ps,
                        const ts_baseline *b, const ts_scenario *sc, const char *const *use_metric, uint64_t seed,
                        int replications, ts_err *e);
/* Free what ts_fit_problem_init allocated; NULL is accepted. */
void ts_fit_problem_finish(ts_fit_problem *pb);
/* A copy of pb for another thread: its own model tree (evaluations write
 * there), evaluation count and notes (from 0), everything else shared read-only
 * with pb, which must outlive it. Free with ts_fit_problem_finish. Returns
 * 0, or -1 when memory runs out. */
int ts_fit_problem_clone(const ts_fit_problem *pb, ts_fit_problem *out);
/* Run the model with values (one per parameter, in ps order): sim[i]
 * receives target i's simulated value (NAN where the run gives the metric
 * no value there, e.g. a span with no sample in the window: the objective is
 * then NAN and the searches count the evaluation as failed, as they do a
 * failed run); the notes of its sweeps are added to pb->notes. Returns 0; -1 when the model rejects
 * the values, also when a run fails on them (a step's value out of range, simulated time past 73
 * years: TS_SWEEP_MODEL, TS_SWEEP_HORIZON); -2 when the simulation failed (deadlock, out of memory); -3
 * when should_stop stopped it; e is filled on failure. */
int ts_fit_eval(ts_fit_problem *pb, const double *values, double *sim, ts_err *e);
/* Whether the model reads n (ts_model_reads_n: an expression, or a CPU
 * price by n) at one of the axis combinations pb's targets are at: 1 or 0,
 * or -1 with e filled (a combination's model does not load). */
int ts_fit_problem_reads_n(ts_fit_problem *pb, ts_err *e);
/* The objective over the targets i with use == NULL or use[i] != 0. */
double ts_fit_objective(const ts_fit_problem *pb, const double *sim, const unsigned char *use);
/* The target with the largest |relative error| of sim among those of metric
 * (any metric when metric < 0), or -1 when there is none. */
int ts_fit_worst(const ts_fit_problem *pb, const double *sim, int metric);
/* Write values at their paths in tree (any tree shaped like the model). Returns 0 or -1 with e filled. */
int ts_fit_set_values(cJSON *tree, const char *file, const ts_fit_params *ps, const double *values, ts_err *e);

#endif
