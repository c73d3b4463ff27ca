/* Leave-one-out cross-validation: for each recorded (n, workers) point, refit
 * the parameters to every other point's targets and predict the held-out
 * point's. The sweep still runs every point, so a held-out point at the
 * smallest n remains the base of wave_ratio; only the objective drops it. */
#ifndef TS_FIT_LOO_H
#define TS_FIT_LOO_H
#include <stddef.h>

#include "fit/minimize.h"
#include "fit/problem.h"

typedef struct ts_fit_loo {
  size_t npoints;       /* = the problem's npt */
  size_t nparams;
  double *values;       /* npoints x nparams: the refit values without point k, row k */
  double *objective;    /* npoints: each refit's objective (over the kept targets) */
  int *iterations;      /* npoints: each refit's local-search iterations, all searches */
  size_t *evaluations;  /* npoints: each refit's sweeps, its multi-start stage included */
  int *from;            /* npoints: where each refit's best search began (as ts_fit_local.from) */
  const char *sequence; /* the quasi-random sequence of the starts, NULL without */
  double *predicted;    /* nt: each target's prediction by the refit that held its point out */
} ts_fit_loo;

/* Check that leave-one-out can run: at least 2 points, and without any one
 * of them at least as many weighted values as parameters. Returns 0 or -1
 * with e filled. */
int ts_fit_loo_check(const ts_fit_problem *pb, ts_err *e);
/* Run the refits from start (one value per parameter) with options o (may be
 * NULL): each refit is a ts_fit_minimize, multi-start included. before_refit,
 * when not NULL, is called before refit k of npoints. out is caller memory;
 * free it with ts_fit_loo_finish even on failure.
 * Returns 0; -1 / -2 as ts_fit_eval; -1 also when ts_fit_loo_check fails
 * (e filled). */
int ts_fit_loo_run(ts_fit_problem *pb, const double *start, const ts_fit_options *o,
                   void (*before_refit)(void *data, size_t k, size_t npoints), void *data, ts_fit_loo *out,
                   ts_err *e);
/* The fit (to every target, as ts_fit_minimize with use NULL gives it, into
 * fit) and its leave-one-out refits (as ts_fit_loo_run, into out) at once,
 * their stages side by side on o->jobs threads. Returns 0, or the failure
 * of the first that failed with *stage 0 (the fit) or 1 (a refit, or the
 * check of ts_fit_loo_check). Free fit and out as usual, also on failure. */
int ts_fit_fit_and_loo(ts_fit_problem *pb, const double *start, const ts_fit_options *o, ts_fit_result *fit,
                       ts_fit_loo *out, int *stage, ts_err *e);
/* Free a LOO table; NULL is accepted. */
void ts_fit_loo_finish(ts_fit_loo *l);

#endif
