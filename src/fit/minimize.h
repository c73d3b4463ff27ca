/* Minimizing a problem's objective with GSL's Nelder-Mead simplex
 * (gsl_multimin_fminimizer_nmsimplex2). A simulated objective is piecewise
 * constant (time is integer ns), so no derivatives are used. Each parameter
 * p in [min, max] is searched through x in R with
 *   p = min + (max - min) * (1 + sin x) / 2
 * so every evaluated value lies within its bounds, and is rounded to 7
 * significant digits: the values written to a calibrated model are exactly
 * those evaluated. After a round converges the simplex is rebuilt around the
 * best point and the search restarts, until a round no longer improves. */
#ifndef TS_FIT_MINIMIZE_H
#define TS_FIT_MINIMIZE_H
#include <stddef.h>

#include "fit/problem.h"

/* What a progress callback sees after each simplex iteration. */
typedef struct ts_fit_progress {
  int round;               /* 1, 2, ... (restarts) */
  int iteration;           /* iterations so far, all rounds */
  double objective;        /* best so far */
  double size;             /* simplex size in mapped coordinates */
  const double *values;    /* best values so far, one per parameter */
} ts_fit_progress;

typedef struct ts_fit_options {
  double step;             /* initial simplex step in mapped coordinates (radians); 0 = 0.3 */
  double tol;              /* a round ends when the simplex size is below tol; 0 = 1e-6 */
  int max_iter;            /* iterations per fit, all rounds; 0 = 2000 */
  int max_rounds;          /* 0 = 4 */
  void (*progress)(void *data, const ts_fit_progress *p);
  void *progress_data;
} ts_fit_options;

typedef struct ts_fit_result {
  double *values;          /* the best values, one per parameter (allocated) */
  double *sim;             /* every target's simulated value at values (allocated) */
  double objective;        /* over the targets used */
  int iterations;
  int rounds;
  size_t evaluations;
  int converged;           /* 0 when max_iter stopped the search */
} ts_fit_result;

/* Fit pb's parameters to the targets i with use == NULL or use[i] != 0,
 * from start (one value per parameter, within bounds). o may be NULL for
 * the defaults. r (caller memory) receives the result; free it with
 * ts_fit_result_finish even on failure. Returns 0, or -1 / -2 as
 * ts_fit_eval with e filled. */
int ts_fit_minimize(ts_fit_problem *pb, const unsigned char *use, const double *start, const ts_fit_options *o,
                    ts_fit_result *r, ts_err *e);
/* Free a result's arrays; NULL is accepted. */
void ts_fit_result_finish(ts_fit_result *r);
/* The parameter value of mapped coordinate x (bounds, rounding), and back. */
double ts_fit_unmap(const ts_fit_param *p, double x);
double ts_fit_map(const ts_fit_param *p, double value);

#endif
