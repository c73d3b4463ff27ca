/* The simplex local search of a fit (method "nm"): GSL's Nelder-Mead
 * simplex (gsl_multimin_fminimizer_nmsimplex2) on the objective, in the
 * mapped coordinates of fit/minimize.h (value = min + (max - min) *
 * (1 + sin x) / 2, rounded to 7 significant digits), so it is unconstrained
 * and every value it tries lies within its bounds. It uses no derivatives:
 * a simulated objective is piecewise constant (time is integer ns) and
 * rough. For src/fit. */
#ifndef TS_FIT_SIMPLEX_H
#define TS_FIT_SIMPLEX_H

#include "fit/minimize.h"
#include "fit/problem.h"

/* One simplex search of pb's targets with use == NULL or use[i] != 0, from
 * x (mapped coordinates, one per parameter; receives the best point found):
 * a ts__fit_search_fn. From o: step (the first simplex's step along each
 * axis), tol (a round ends when the simplex is smaller), max_iter
 * (iterations, all rounds), max_rounds and progress (one report per
 * iteration; search and searches label it). values and sim are scratch of
 * one per parameter and one per target. A round also ends when the
 * objective is 0 or the best value has not improved for 50 + 10 *
 * (parameters) iterations (a plateau, on which a simplex can cycle without
 * shrinking); rounds rebuild the simplex around the best point until one
 * improves the objective by less than 1e-6 of itself. L receives
 * iterations, rounds, objective and converged (0 when max_iter stopped it).
 * Returns 0, or ts_fit_eval's failure with e filled (-2 also when memory
 * runs out). */
int ts__fit_nm_search(ts_fit_problem *pb, const unsigned char *use, const ts_fit_options *o, double *x,
                      ts_fit_local *L, int search, int searches, double *values, double *sim, ts_err *e);

#endif
