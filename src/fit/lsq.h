/* The least-squares local search of a fit (method "lsq"): GSL's nonlinear
 * least squares (gsl_multifit_nlinear, trust region, Levenberg-Marquardt)
 * on the targets' scaled errors, whose sum of squares is the objective:
 *   r_i = sqrt(weight_i) * (simulated_i - recorded_i) / recorded_i
 * (0 for a target the fit does not use). It runs in the mapped coordinates
 * of fit/minimize.h (value = min + (max - min) * (1 + sin x) / 2, rounded to
 * 7 significant digits), so it is unconstrained and every value it tries lies
 * within its bounds.
 *
 * The Jacobian is forward differences with a fixed step in the mapped
 * coordinates (ts_fit_options.lsq_step, default TS_FIT_LSQ_STEP), not GSL's
 * relative step: the objective is deterministic (common random numbers) but
 * piecewise (an event reordering moves it by a jump), so a step near machine
 * precision sees zero or a jump, where a step of a few hundredths of a radian
 * (about 1% of a parameter's range at mid-range) sees the trend. Every
 * evaluation is of the problem, in the order GSL asks for it: a search is a
 * deterministic function of its inputs. For src/fit. */
#ifndef TS_FIT_LSQ_H
#define TS_FIT_LSQ_H

#include "fit/minimize.h"
#include "fit/problem.h"

/* The forward-difference step in mapped coordinates (radians). */
#define TS_FIT_LSQ_STEP 0.02

/* One least-squares local search of pb's targets with use == NULL or
 * use[i] != 0, from x (mapped coordinates, one per parameter; receives the
 * best point found). From o: max_iter (trust-region iterations, each ending
 * at an accepted step, all rounds), max_rounds, tol (a round ends when the
 * last step moved no mapped coordinate more than tol), lsq_step (the
 * forward-difference step, above 0) and progress (one report per iteration;
 * search and searches label it). values and sim are scratch of one per
 * parameter and one per target. L receives iterations, rounds, objective
 * and converged (0 when max_iter stopped it). A round also ends when the
 * trust region finds no lower point (GSL_ENOPROG), the objective is 0, or
 * an iteration lowered it by less than 1e-4 of itself; rounds restart the
 * trust region at the best point until one improves the objective by less
 * than 1e-4 of itself. Returns 0, or ts_fit_eval's failure with e filled
 * (-2 also when memory runs out or GSL fails otherwise). */
int ts__fit_lsq_search(ts_fit_problem *pb, const unsigned char *use, const ts_fit_options *o, double *x,
                       ts_fit_local *L, int search, int searches, double *values, double *sim, ts_err *e);

#endif
