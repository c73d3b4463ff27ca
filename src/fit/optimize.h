/* Which setting to choose: minimise or maximise a metric over numeric
 * fields (each within bounds) and choice fields (each one of a set of
 * values), subject to constraints on other metrics, answered by the
 * simulator. Every setting is an exploration variant (fit/explore.h): it
 * runs over the scenario's whole sweep with the same seeds as every other
 * setting (common random numbers), so two settings are compared
 * replication by replication, and the search is a deterministic function
 * of its inputs (the same for any number of threads).
 *
 * A metric's value for a setting is the mean over the sweep's points of
 * its mean over replications; a constraint "METRIC OP LIMIT" must hold at
 * every point, LIMIT an expression of numbers and `baseline` (the metric
 * at that point under the scenario's own setting, the same replications).
 * A metric that names one point of the sweep, METRIC[KEY=LABEL,...]
 * (ts_explore_metric_parse_at), is that point's mean over replications, and
 * a constraint on it holds at that point only (its baseline that point's).
 *
 * One objective, the search:
 *   1. the baseline (the scenario's own setting, a candidate like any
 *      other: its trial records its values, marked by its stage);
 *   2. numeric fields: a grid (GRID evenly spaced values of one field; with
 *      several, GRID x fields quasi-random Sobol points of the box, the
 *      first its centre) at every combination of the choice fields; then, from the
 *      best grid point of each of the best FINALISTS combinations, GSL's
 *      Brent minimiser (gsl_min_fminimizer_brent) on the bracket around it
 *      (one field) or the Nelder-Mead simplex (gsl_multimin
 *      nmsimplex2, several, through the bounded map of fit/minimize.h);
 *      choice fields alone: every combination (at most 16), or successive
 *      halving (all at R replications, the better half at 2R, ...);
 *      constraints enter the search as a penalty (ten times the baseline's
 *      objective per unit of relative excess: weak when the baseline's
 *      objective is small, so the search may leave the feasible set);
 *   3. the race: the FINALISTS best distinct settings (by score, the
 *      baseline among them; after halving it takes the last place when it
 *      scores better at the last round's replications; when none
 *      is feasible, the best feasible setting tried takes the last place, or
 *      with none feasible the least infeasible) are run again with
 *      twice the replications (up to R_MAX) while the best feasible one's
 *      objective is within the 95% interval of another's (paired, per
 *      replication): replications grow where two candidates are close.
 *      The best is the race's best feasible setting; without one, the
 *      least infeasible finalist is reported as such.
 * Two objectives: the grid (or every combination) is evaluated and the
 * feasible settings tried (the baseline included) no other feasible setting
 * dominates form the Pareto front. */
#ifndef TS_FIT_OPTIMIZE_H
#define TS_FIT_OPTIMIZE_H
#include <stddef.h>

#include "fit/explore.h"
#include "model/expr.h"
#include "run/compare.h"

typedef struct ts_opt_field {
  char *path;
  double lo, hi;
} ts_opt_field;

typedef struct ts_opt_choice {
  char *path;
  char **values;    /* as given: JSON, or a string */
  size_t nvalues;
} ts_opt_choice;

enum { TS_OPT_LE, TS_OPT_LT, TS_OPT_GE, TS_OPT_GT };

typedef struct ts_opt_constraint {
  char *text;
  ts_explore_metric metric;
  int op;
  ts_expr *limit;   /* reads `baseline` */
} ts_opt_constraint;

#define TS_OPT_DEFAULT_GRID 9
#define TS_OPT_DEFAULT_FINALISTS 4
#define TS_OPT_DEFAULT_MAX_EVALS 500
#define TS_OPT_DEFAULT_MAX_ITER 40
#define TS_OPT_DEFAULT_TOL 1e-3
#define TS_OPT_HALVING_ABOVE 16

typedef struct ts_opt_spec {
  const ts_opt_field *fields;
  size_t nfields;
  const ts_opt_choice *choices;
  size_t nchoices;
  const ts_explore_metric *objectives;
  int nobjectives;            /* 1 or 2 */
  int maximize[2];
  const ts_opt_constraint *constraints;
  size_t nconstraints;
  int replications;           /* R: the search's */
  int r_max;                  /* the race's most */
  int grid;                   /* GRID */
  int finalists;              /* FINALISTS */
  int max_evals;              /* settings the search may evaluate (the race's reruns aside) */
  int max_iter;               /* iterations of each local search */
  double tol;                 /* a local search stops within tol x a field's range */
} ts_opt_spec;

/* Parse --field PATH=LO:HI into f (free with ts_opt_field_finish): PATH a
 * field of x's model that ts_explore_check_path accepts, LO < HI, and the
 * model takes the field at LO, HI and a value between. Returns 0, or -1
 * with e filled naming --field (and the bound the model rejects, and why). */
int ts_opt_field_parse(const char *arg, const ts_explore *x, ts_opt_field *f, ts_err *e);
void ts_opt_field_finish(ts_opt_field *f);
/* Parse --choice PATH=V1,V2,... into c (free with ts_opt_choice_finish):
 * at least two distinct values, each one the model takes. Returns 0, or -1
 * with e filled naming --choice. */
int ts_opt_choice_parse(const char *arg, const ts_explore *x, ts_opt_choice *c, ts_err *e);
void ts_opt_choice_finish(ts_opt_choice *c);
/* Parse --constraint "METRIC OP LIMIT" (OP one of <=, <, >=, >) into c
 * (free with ts_opt_constraint_finish); METRIC as ts_explore_metric_parse_at
 * takes it for model m and x's sweep (one point may be named). Returns 0,
 * or -1 with e filled naming --constraint. */
int ts_opt_constraint_parse(const char *arg, const ts_model *m, const ts_explore *x, ts_opt_constraint *c,
                            ts_err *e);
void ts_opt_constraint_finish(ts_opt_constraint *c);
/* The number of settings the grid stage evaluates (for checking
 * max_evals before anything runs). */
size_t ts_opt_grid_size(const ts_opt_spec *spec);

/* Search spec over x's scenario into r (caller memory; free with
 * ts_compare_opt_finish, also after a failure). Returns ts_sweep_run's
 * status (TS_SWEEP_OK; TS_SWEEP_STOPPED after an interrupt; ...) with a
 * one-line reason in err (size cap) on failure. */
int ts_opt_run(const ts_explore *x, const ts_opt_spec *spec, ts_opt_result *r, char *err, size_t cap);

#endif
