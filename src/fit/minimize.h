/* Minimizing a problem's objective: a multi-start stage, then local
 * searches from the best points it found, by one of the methods of
 * ts_fit_method: GSL's Nelder-Mead simplex (gsl_multimin_fminimizer_nmsimplex2,
 * fit/simplex.h) or nonlinear least squares (fit/lsq.h). A simulated
 * objective is piecewise constant (time is integer ns) and rough, so a
 * local search ends in a local minimum that depends on where it started.
 *
 * Each parameter p in [min, max] is searched through x in R with
 *   p = min + (max - min) * (1 + sin x) / 2
 * so every evaluated value lies within its bounds, and is rounded to 7
 * significant digits (and onto a bound within 1e-9 of the range): the values
 * written to a calibrated model are exactly those evaluated.
 *
 * Multi-start: the objective is evaluated at the start and at `starts`
 * points of a quasi-random sequence over the bounds (Sobol, Halton beyond 40
 * parameters; uniform in the values, not in x). A local search runs from
 * each of the `searches` best distinct points (ties to the earlier point);
 * the best local search wins (ties to the earlier search). A local search is
 * rounds of its method: after a round converges the method restarts at the
 * best point, until a round improves the objective by little (1e-6 of itself
 * for the simplex, 1e-4 for least squares). Nothing is random and nothing
 * depends on timing, so a fit is a deterministic function of its inputs. */
#ifndef TS_FIT_MINIMIZE_H
#define TS_FIT_MINIMIZE_H
#include <stddef.h>

#include "fit/problem.h"

/* The defaults of `tssim calibrate` (the library's, for zeroed options, are
 * 0 starts: a single local search from the start, by TS_FIT_NM). */
#define TS_FIT_DEFAULT_STARTS 32
#define TS_FIT_DEFAULT_SEARCHES 4
#define TS_FIT_DEFAULT_METHOD TS_FIT_LSQ
/* The most parameters quasi-random starts support (gsl_qrng_halton). */
#define TS_FIT_MAX_QRNG_PARAMS 1229

/* What a progress callback sees: once after the multi-start stage (search
 * 0; not without starts), then after each simplex iteration of each local
 * search. */
typedef struct ts_fit_progress {
  int search;              /* 1, 2, ... searches; 0 for the multi-start stage */
  int searches;            /* local searches this fit runs */
  int round;               /* 1, 2, ... (restarts of this local search) */
  int iteration;           /* iterations of this local search so far, all rounds; points sampled for search 0 */
  double objective;        /* this search's best so far (the best point sampled, for search 0) */
  double size;             /* simplex size in mapped coordinates (TS_FIT_LSQ: the step's largest
                            * move in them; 0 for search 0) */
  const double *values;    /* the values at objective, one per parameter */
  int run;                 /* ts_fit_minimize_many: which of its fits (0, 1, ...); else -1 */
} ts_fit_progress;

/* The local search of a fit: GSL's Nelder-Mead simplex (fit/simplex.h; the
 * library's default, 0), or nonlinear least squares on the targets' scaled
 * errors (fit/lsq.h; the default of `tssim calibrate`,
 * TS_FIT_DEFAULT_METHOD). */
typedef enum ts_fit_method { TS_FIT_NM = 0, TS_FIT_LSQ = 1 } ts_fit_method;

/* The method named name ("nm", "lsq"), or -1. */
int ts_fit_method_parse(const char *name);
/* The name of method m. */
const char *ts_fit_method_name(ts_fit_method m);
/* What the tables call method m's local searches ("simplex", "least-squares"). */
const char *ts_fit_method_searches(ts_fit_method m);

typedef struct ts_fit_options {
  double step;             /* initial simplex step in mapped coordinates (radians); 0 = 0.3 */
  double tol;              /* a round ends when the simplex size (lsq: step) is below tol; 0 = 1e-6 */
  int max_iter;            /* iterations per local search, all rounds; 0 = 5000 */
  int max_rounds;          /* per local search; 0 = 50 */
  int starts;              /* quasi-random points sampled besides the start; 0 = none */
  int searches;            /* local searches from the best points; 0 = TS_FIT_DEFAULT_SEARCHES */
  /* called after each step; with jobs > 1 from any thread (one call at a
   * time), and the steps of different searches interleave */
  void (*progress)(void *data, const ts_fit_progress *p);
  void *progress_data;
  int jobs;                /* threads evaluating independent points and searches; 0 or 1: one */
  ts_fit_method method;    /* the local search; 0 = TS_FIT_NM */
  double lsq_step;         /* TS_FIT_LSQ: forward-difference step in mapped coordinates; 0 = TS_FIT_LSQ_STEP */
} ts_fit_options;

/* One local search of a fit. */
typedef struct ts_fit_local {
  int from;                /* its first point: 0 = the start, k = the k-th quasi-random point */
  double sampled;          /* the objective there */
  double objective;        /* where the search ended */
  int iterations;
  int rounds;
  int converged;           /* 0 when max_iter stopped it */
} ts_fit_local;

typedef struct ts_fit_result {
  double *values;          /* the best values, one per parameter (allocated) */
  double *sim;             /* every target's simulated value at values (allocated) */
  double objective;        /* over the targets used */
  int iterations;          /* all local searches */
  int rounds;              /* all local searches */
  size_t evaluations;      /* sweeps, the multi-start stage included */
  int converged;           /* 0 when max_iter stopped any local search */
  int starts;              /* quasi-random points sampled */
  const char *sequence;    /* their sequence ("sobol", "halton"), NULL when starts is 0 */
  ts_fit_local *local;     /* the local searches in the order run (allocated) */
  int nlocal;
  int best;                /* index into local of the winner */
  ts_fit_method method;    /* the local searches' method */
  double lsq_step;         /* TS_FIT_LSQ: the forward-difference step used */
} ts_fit_result;

/* Fit pb's parameters to the targets i with use == NULL or use[i] != 0,
 * from start (one value per parameter, within bounds) and, with o->starts,
 * from quasi-random points. o may be NULL for the defaults. r (caller
 * memory) receives the result; free it with ts_fit_result_finish even on
 * failure. Returns 0, or -1 / -2 as ts_fit_eval with e filled; -1 also when
 * o->starts is above 0 with more than TS_FIT_MAX_QRNG_PARAMS parameters. */
int ts_fit_minimize(ts_fit_problem *pb, const unsigned char *use, const double *start, const ts_fit_options *o,
                    ts_fit_result *r, ts_err *e);
/* nfits fits of pb at once, fit k to the targets with use[k][i] != 0 (use
 * NULL: all), each from start: what nfits calls of ts_fit_minimize in turn
 * would give (rs[k], free each with ts_fit_result_finish), their stages run
 * side by side on o->jobs threads (progress reports carry the fit's index
 * in run). Returns 0, or the failure of the first fit that failed, as
 * ts_fit_minimize. */
int ts_fit_minimize_many(ts_fit_problem *pb, size_t nfits, const unsigned char *const *use, const double *start,
                         const ts_fit_options *o, ts_fit_result *rs, ts_err *e);
/* ts_fit_minimize_many with the fits' progress index starting at
 * index_base (-1: the first is "the fit"); *failed (when not NULL)
 * receives the index of the fit whose failure is returned (nfits: none).
 * For src/fit. */
int ts__fit_minimize_runs(ts_fit_problem *pb, size_t nfits, const unsigned char *const *use, const double *start,
                          const ts_fit_options *o, ts_fit_result *rs, ts_err *e, int index_base, size_t *failed);
/* What a local search sees when an evaluation failed or was not finite:
 * finite (GSL rejects non-finite values) and worse than any real objective.
 * For src/fit. */
#define TS_FIT_FAILED_OBJECTIVE 1e300
/* One local search of a method (fit/simplex.h, fit/lsq.h say what each
 * reads of o): pb's targets with use == NULL or use[i] != 0, from x (mapped
 * coordinates, one per parameter; receives the best point found); search
 * and searches label its progress reports; values and sim are scratch of
 * one per parameter and one per target; L receives iterations, rounds,
 * objective and converged. Returns 0, or ts_fit_eval's failure with e
 * filled (-2 also when memory runs out). For src/fit. */
typedef int ts__fit_search_fn(ts_fit_problem *pb, const unsigned char *use, const ts_fit_options *o, double *x,
                              ts_fit_local *L, int search, int searches, double *values, double *sim, ts_err *e);
/* Free a result's arrays; NULL is accepted. */
void ts_fit_result_finish(ts_fit_result *r);
/* 1 when value is within 1e-4 of p's range from a bound: the fit would
 * likely go further if the bound allowed it. */
int ts_fit_at_bound(const ts_fit_param *p, double value);
/* The parameter value of mapped coordinate x (bounds, rounding), and back. */
double ts_fit_unmap(const ts_fit_param *p, double x);
/* values[i] = ts_fit_unmap(&ps->p[i], x[i]) for each of ps's parameters.
 * For src/fit. */
void ts__fit_unmap_all(const ts_fit_params *ps, const double *x, double *values);
double ts_fit_map(const ts_fit_param *p, double value);

#endif
