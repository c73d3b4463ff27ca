/* Comparing variants of a model run under common random numbers: variant
 * A and variant B run replication r with the same seed, so the difference
 * of their replication-r values is free of the noise they share, and
 * intervals come from the spread of those per-replication differences
 * (paired, Student-t). The results of `tssim sensitivity` (elasticities and
 * virtual-speedup curves) and `tssim optimize` (settings tried, the Pareto
 * front) are plain tables of such comparisons, printed by src/io. */
#ifndef TS_COMPARE_H
#define TS_COMPARE_H
#include <stddef.h>

/* The elasticity of a metric to a parameter by central finite differences,
 * replication by replication: e_r = (hi_r - lo_r) / (rel_step * base_r),
 * where lo, base and hi are the metric at the parameter scaled by 1 - h, 1
 * and 1 + h (rel_step = 2h, the relative change from lo to hi). Values are
 * reps long, stride apart. *mean receives the mean of the e_r and *ci95
 * their Student-t 95% half-width (NAN with one replication). Both are NAN
 * when some replication's value is NAN or its base is 0 (a relative change
 * of 0 is undefined). */
void ts_compare_elasticity(const double *lo, const double *base, const double *hi, size_t stride, size_t reps,
                           double rel_step, double *mean, double *ci95);
/* The mean over replications of b_r - a_r and its Student-t 95%
 * half-width (NAN with one replication; NAN both when a value is NAN). */
void ts_compare_paired(const double *a, const double *b, size_t stride, size_t reps, double *mean, double *ci95);
/* The ratio of b's replication mean to a's, mean(b) / mean(a), and its 95%
 * half-width, paired per replication (the delta method: Student-t over the
 * replications' b_r - ratio * a_r, divided by mean(a)): a b that is a fixed
 * multiple of a has width 0, a fixed shift does not. Both NAN when a value
 * is NAN or mean(a) is 0; the half-width NAN with one replication. */
void ts_compare_ratio(const double *a, const double *b, size_t stride, size_t reps, double *ratio, double *ci95);
/* Mark in front (n entries) the points (f1[i], f2[i]) no other point
 * dominates, both objectives minimised: j dominates i when it is no worse
 * in both and better in one. Points with a NAN, or with skip[i] set (skip
 * may be NULL), are never on the front and dominate nothing. Of equal
 * points only the first is on the front. Returns how many are on it. */
size_t ts_compare_pareto(const double *f1, const double *f2, const unsigned char *skip, size_t n,
                         unsigned char *front);

/* One point of a scenario's sweep: its axis combination, n and workers. */
typedef struct ts_compare_point {
  int combo;
  int n;
  int workers;
} ts_compare_point;

/* What `tssim sensitivity` measured: for every sweep point, metric and
 * parameter (a path or a group of paths scaled together) the elasticity
 * with its 95% half-width, and the metric at each scale of the parameter
 * (the point's value as `tssim run` reports it, and the half-width of its
 * mean). Indexes: elasticity [(point * nmetrics + metric) * nparams +
 * param], value [((point * nmetrics + metric) * nparams + param) * nscales
 * + scale]. */
typedef struct ts_sens_result {
  ts_compare_point *pt;
  size_t npoints;
  char **param;        /* a path, or a group's name */
  size_t nparams;
  char **metric;       /* "wave_ms", or "wave_ms@class" */
  int *digits;         /* [nmetrics]: decimals to print each metric with */
  size_t nmetrics;
  double *scale;       /* the curve's scales, in the order asked */
  size_t nscales;
  double step;         /* h: the elasticity compares scales 1 - h and 1 + h */
  int replications;
  double *elasticity, *elasticity_ci95;
  double *below, *above; /* [as elasticity]: the one-sided elasticities (m0 - m-) / (h m0), (m+ - m0) / (h m0) */
  unsigned char *jump;   /* [as elasticity]: below and above disagree (fit/sensitivity.c): a jump between */
  double *value, *value_ci95;
} ts_sens_result;

/* Allocate r's tables for the sizes it holds (npoints, nparams, nmetrics,
 * nscales), every number NAN. Returns 0, or -1 when memory runs out (r
 * then holds what ts_compare_sens_finish frees). */
int ts_compare_sens_alloc(ts_sens_result *r);
/* Free what r holds (its names too); NULL is accepted. */
void ts_compare_sens_finish(ts_sens_result *r);
/* The order in which to print point k's parameters for metric m: by
 * |elasticity| descending, an undefined elasticity last, ties in the order
 * given. order receives nparams indexes. */
void ts_compare_sens_rank(const ts_sens_result *r, size_t k, size_t m, size_t *order);
/* Whether the curve of parameter p for metric m at point k turns: taken in
 * the order of its scales (ascending), it has both a step up and a step
 * down, a step counting when its change exceeds the sum of the two values'
 * 95% half-widths (0 when undefined) and 1e-9 of the larger |value|.
 * Undefined values are skipped; fewer than 3 scales never turn. */
int ts_compare_sens_turns(const ts_sens_result *r, size_t k, size_t m, size_t p);


/* One setting `tssim optimize` evaluated: its numeric fields' values and
 * choice fields' value indexes (neither: the scenario's own setting, the
 * baseline), the replications it ran, and per measured metric the mean
 * over the sweep's points of the metric's mean over replications (its
 * half-width from the per-replication means over the points); a metric
 * naming one point (fit/explore.h): that point's mean, and its half-width. */
typedef struct ts_opt_trial {
  double *x;            /* [nfields]; the baseline's: the scenario's own values (NAN: not a number) */
  int *choice;          /* [nchoices]; the baseline's may index a label added for the scenario's own value */
  int replications;
  int stage;            /* TS_OPT_STAGE_* */
  double *mean, *ci95;  /* [nmetrics] */
  double *rep;          /* [nmetrics * replications]: per replication, the mean over the points (or the one named) */
  double *pt_mean;      /* [nmetrics * npoints]: per point, the mean over replications */
  int feasible;         /* every constraint holds at every point (or at the one its metric names) */
  double violation;     /* sum of the relative excesses over the limits (0 when feasible) */
  double score;         /* what the search minimises: the objective (negated to maximise) plus a penalty */
} ts_opt_trial;

enum { TS_OPT_STAGE_BASELINE, TS_OPT_STAGE_GRID, TS_OPT_STAGE_BRENT, TS_OPT_STAGE_SIMPLEX, TS_OPT_STAGE_HALVING,
       TS_OPT_STAGE_RACE, TS_OPT_NSTAGES };

/* The stage's name as tried.csv writes it: "baseline", "grid", "brent",
 * "simplex", "halving", "race". */
const char *ts_compare_stage_name(int stage);

/* What `tssim optimize` found: every setting tried, in order; the best
 * (one objective) or the Pareto front (two). Names are the options' own:
 * a numeric field's path, a choice field's path and its values' labels,
 * the metrics measured (the objectives first, then the constraints' other
 * metrics), each constraint's text. */
typedef struct ts_opt_result {
  char **field;
  size_t nfields;
  char **own_text;      /* [nfields]: the scenario's own value where it is not a number (the model's
                           text, e.g. "$join_ms"; the baseline's x is NAN there), else NULL */
  char **choice;
  size_t nchoices;
  char ***label;        /* [nchoices][nlabels[i]]: the values given, then the scenario's own when it is none of them */
  size_t *nlabels;
  char **metric;
  size_t nmetrics;
  int nobjectives;      /* 1 or 2: metrics 0 (and 1) */
  int maximize[2];
  char **constraint;
  int *constraint_metric; /* [nconstraints]: its metric's index */
  size_t nconstraints;
  size_t npoints;
  ts_opt_trial *t;
  size_t ntrials, cap;
  long best;            /* one objective: the best feasible trial (-1: none is feasible) */
  long baseline;        /* the baseline trial at the best's replications */
  size_t *finalists;    /* one objective: the trials compared in the race, the best first (none
                           feasible: the least infeasible) */
  size_t nfinalists;
  unsigned char *close; /* [nfinalists]: its difference from the best's is within its 95% interval */
  double *diff, *diff_ci95; /* [nfinalists]: objective minus the best's, per replication pairs */
  unsigned char *front; /* two objectives: [ntrials], on the Pareto front */
  size_t nfront;
  int max_evals, max_iter; /* the search's budget (ts_opt_spec's) */
  size_t evals;         /* settings the search evaluated against max_evals (the baseline and the race's
                           reruns aside) */
  int evals_stopped;    /* a search step wanted a setting past max_evals: the budget stopped it */
  int iter_cut;         /* local searches stopped at max_iter while they still tried new settings */
  int own_from_set;     /* the baseline's values of the searched paths are --set's: 0 none, 1 all, 2 some
                           (its label says "the --set value" rather than "the scenario's own") */
} ts_opt_result;

/* Free what r holds; NULL is accepted. */
void ts_compare_opt_finish(ts_opt_result *r);

#endif
