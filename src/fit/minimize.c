#include "fit/minimize.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_qrng.h>
#include <pthread.h>

#include "fit/lsq.h"
#include "fit/simplex.h"
#include "run/parallel.h"

/* The most dimensions of gsl_qrng_sobol; Halton beyond. */
#define SOBOL_MAX_PARAMS 40

/* A point of the multi-start stage: 0 = the start, k = the k-th quasi-random point. */
typedef struct cand {
  double f;
  int from;
} cand;

/* The local searches, by ts_fit_method: the name --method takes, the
 * words of the tables, and the search. A new method is one file and one
 * entry here. */
static const struct method_type {
  const char *name;
  const char *searches;  /* "%d ... search(es)" in the tables */
  ts__fit_search_fn *search;
} methods[] = {
  [TS_FIT_NM] = {"nm", "simplex", ts__fit_nm_search},
  [TS_FIT_LSQ] = {"lsq", "least-squares", ts__fit_lsq_search},
};

int ts_fit_method_parse(const char *name)
{
  for (size_t m = 0; m < sizeof methods / sizeof *methods; m++)
    if (strcmp(name, methods[m].name) == 0)
      return (int)m;
  return -1;
}

const char *ts_fit_method_name(ts_fit_method m)
{
  return methods[m].name;
}

const char *ts_fit_method_searches(ts_fit_method m)
{
  return methods[m].searches;
}

double ts_fit_unmap(const ts_fit_param *p, double x)
{
  double v = p->min + (p->max - p->min) * (1 + sin(x)) / 2;
  char text[32];
  snprintf(text, sizeof text, "%.7g", v);
  v = strtod(text, NULL);
  double snap = 1e-9 * (p->max - p->min); /* so a fit can land exactly on a bound */
  return v < p->min + snap ? p->min : v > p->max - snap ? p->max : v;
}

int ts_fit_at_bound(const ts_fit_param *p, double value)
{
  double near = 1e-4 * (p->max - p->min);
  return value <= p->min + near || value >= p->max - near;
}

double ts_fit_map(const ts_fit_param *p, double value)
{
  double u = 2 * (value - p->min) / (p->max - p->min) - 1;
  return asin(u < -1 ? -1 : u > 1 ? 1 : u);
}

void ts__fit_unmap_all(const ts_fit_params *ps, const double *x, double *values)
{
  for (size_t i = 0; i < ps->n; i++)
    values[i] = ts_fit_unmap(&ps->p[i], x[i]);
}

void ts_fit_result_finish(ts_fit_result *r)
{
  if (!r)
    return;
  free(r->values);
  free(r->sim);
  free(r->local);
  memset(r, 0, sizeof *r);
}

static int cand_less(const void *a, const void *b)
{
  const cand *x = a, *y = b;
  if (x->f != y->f)
    return x->f < y->f ? -1 : 1;
  return (x->from > y->from) - (x->from < y->from);
}

/* Fill xs (npoints rows of n mapped coordinates): row 0 the start, row k the
 * k-th point of the quasi-random sequence over the bounds. Returns the
 * sequence's name, or NULL when memory runs out. */
static const char *sample(const ts_fit_params *ps, const double *start, size_t npoints, double *xs)
{
  size_t n = ps->n;
  for (size_t i = 0; i < n; i++)
    xs[i] = ts_fit_map(&ps->p[i], start[i]);
  if (npoints < 2)
    return "none";
  int sobol = n <= SOBOL_MAX_PARAMS;
  gsl_qrng *q = gsl_qrng_alloc(sobol ? gsl_qrng_sobol : gsl_qrng_halton, (unsigned)n);
  double *u = calloc(n, sizeof *u);
  if (!q || !u) {
    gsl_qrng_free(q);
    free(u);
    return NULL;
  }
  for (size_t k = 1; k < npoints; k++) {
    gsl_qrng_get(q, u);
    for (size_t i = 0; i < n; i++) {
      const ts_fit_param *p = &ps->p[i];
      xs[k * n + i] = ts_fit_map(p, p->min + u[i] * (p->max - p->min));
    }
  }
  gsl_qrng_free(q);
  free(u);
  return sobol ? "sobol" : "halton";
}

/* Choose up to want points, best objective first, skipping a point whose
 * values equal a chosen one's (a local search from it would repeat).
 * pts is sorted by cand_less; chosen receives indices into it. Returns how
 * many were chosen. */
static int choose(const ts_fit_params *ps, const cand *pts, size_t npoints, const double *xs, int want, int *chosen,
                  double *va, double *vb)
{
  size_t n = ps->n;
  int got = 0;
  for (size_t k = 0; k < npoints && got < want; k++) {
    ts__fit_unmap_all(ps, xs + (size_t)pts[k].from * n, va);
    int same = 0;
    for (int j = 0; j < got && !same; j++) {
      ts__fit_unmap_all(ps, xs + (size_t)pts[chosen[j]].from * n, vb);
      same = memcmp(va, vb, n * sizeof *va) == 0;
    }
    if (!same)
      chosen[got++] = (int)k;
  }
  return got;
}

/* ---- several fits at once, on threads ----
 *
 * A fit is three stages: the multi-start evaluations, the local searches
 * from the best points, the evaluation at the winner. Within a stage the
 * items (points, searches) do not depend on each other, and the fits of a
 * leave-one-out do not depend on each other at all, so a stage runs the
 * items of every fit on o->jobs threads; each thread evaluates on its own
 * copy of the problem (an evaluation writes the values into the model
 * tree). Results are kept per item and folded in the order one thread would
 * have run them, failures included (the first fit that failed, at its first
 * failing item, is the one reported), so the outcome is the same for any
 * number of threads; so are the notes of the items' sweeps (the counts
 * summed, each note's first from the earliest item in that order). */

typedef struct fit_run {
  const unsigned char *use;
  ts_fit_result *r;
  int index;          /* progress: -1 the fit, k: leave-one-out refit k */
  size_t npoints;
  int want;
  double *xs;         /* npoints x n mapped coordinates */
  cand *pts;
  int *chosen;
  int *pt_rc;         /* stage 1: each point's failure */
  ts_err *pt_err;
  int *se_rc;         /* stage 2: each search's failure */
  ts_err *se_err;
  double *se_x;       /* each search's best point */
  int rc;             /* the first failure (0: none) */
  ts_err err;
  int stage;          /* the stage it failed at (4: none) */
  size_t evals;       /* evaluations of this fit */
} fit_run;

typedef struct fit_many {
  ts_fit_problem *pb;
  ts_fit_problem *th;  /* [threads]: the problem, one copy per thread */
  double **values, **sim;  /* [threads] scratch */
  int threads;
  const ts_fit_options *o;
  fit_run *runs;
  size_t nruns;
  size_t *first;       /* [nruns + 1]: the items of each run in a stage, prefix sums */
  ts_sweep_notes notes; /* what the items' sweeps noted (item_done) */
  size_t note_key[3];  /* the order key (item_key) of the item the first window missed, backlog, identical is from */
  pthread_mutex_t mu;  /* around progress callbacks, the runs' evaluation counts and the notes */
} fit_many;

/* Item i of a stage: which run and which item within it. */
static void item_of(const fit_many *M, size_t i, size_t *run, size_t *k)
{
  size_t lo = 0, hi = M->nruns;
  while (hi - lo > 1) {
    size_t mid = (lo + hi) / 2;
    if (M->first[mid] <= i)
      lo = mid;
    else
      hi = mid;
  }
  *run = lo;
  *k = i - M->first[lo];
}

/* The place of item k of run R's stage (1 points, 2 searches, 3 the final
 * evaluation) in a fixed order, the same for any number of threads: run by
 * run, stage by stage, item by item. */
static size_t item_key(const fit_many *M, const fit_run *R, int stage, size_t k)
{
  size_t per = R->npoints + (size_t)R->want + 1;
  return (size_t)(R - M->runs) * per + (stage > 1 ? R->npoints : 0) + (stage > 2 ? (size_t)R->want : 0) + k;
}

/* Add note b of the item at key to a (its first, when no earlier item's is there). */
static void note_fold(ts_sweep_note *a, size_t *akey, const ts_sweep_note *b, size_t key)
{
  if (b->count == 0)
    return;
  if (key < *akey) {
    memcpy(a->first, b->first, sizeof a->first);
    *akey = key;
  }
  a->count += b->count;
}

/* An item (at key) of run R done on thread copy pb (any thread): add the
 * evaluations it ran (pb's count was before at its start) to R's and the
 * notes of its sweeps (pb's, zeroed at its start) to M's. */
static void item_done(fit_many *M, fit_run *R, const ts_fit_problem *pb, size_t before, size_t key)
{
  if (M->threads > 1)
    pthread_mutex_lock(&M->mu);
  R->evals += pb->evaluations - before;
  note_fold(&M->notes.window_missed, &M->note_key[0], &pb->notes.window_missed, key);
  note_fold(&M->notes.backlogged, &M->note_key[1], &pb->notes.backlogged, key);
  note_fold(&M->notes.identical, &M->note_key[2], &pb->notes.identical, key);
  M->notes.replicated += pb->notes.replicated;
  if (M->threads > 1)
    pthread_mutex_unlock(&M->mu);
}

static void report(fit_many *M, ts_fit_progress *p)
{
  if (!M->o->progress)
    return;
  if (M->threads > 1)
    pthread_mutex_lock(&M->mu);
  M->o->progress(M->o->progress_data, p);
  if (M->threads > 1)
    pthread_mutex_unlock(&M->mu);
}

static void stage_points(void *ctx, size_t i, int thread)
{
  fit_many *M = ctx;
  size_t ri, k;
  item_of(M, i, &ri, &k);
  fit_run *R = &M->runs[ri];
  ts_fit_problem *pb = &M->th[thread];
  size_t n = pb->params->n, before = pb->evaluations;
  memset(&pb->notes, 0, sizeof pb->notes);
  ts__fit_unmap_all(pb->params, R->xs + k * n, M->values[thread]);
  R->pt_rc[k] = ts_fit_eval(pb, M->values[thread], M->sim[thread], &R->pt_err[k]);
  double f = R->pt_rc[k] ? TS_FIT_FAILED_OBJECTIVE : ts_fit_objective(pb, M->sim[thread], R->use);
  R->pts[k] = (cand){isfinite(f) ? f : TS_FIT_FAILED_OBJECTIVE, (int)k};
  item_done(M, R, pb, before, item_key(M, R, 1, k));
}

/* A progress callback of one local search: the fit's run index added. */
typedef struct search_report {
  fit_many *M;
  int run;
} search_report;

static void search_progress(void *data, const ts_fit_progress *p)
{
  search_report *sr = data;
  ts_fit_progress q = *p;
  q.run = sr->run;
  report(sr->M, &q);
}

static void stage_search(void *ctx, size_t i, int thread)
{
  fit_many *M = ctx;
  size_t ri, j;
  item_of(M, i, &ri, &j);
  fit_run *R = &M->runs[ri];
  ts_fit_problem *pb = &M->th[thread];
  size_t n = pb->params->n, before = pb->evaluations;
  memset(&pb->notes, 0, sizeof pb->notes);
  const cand *from = &R->pts[R->chosen[j]];
  ts_fit_local *L = &R->r->local[j];
  L->from = from->from;
  L->sampled = from->f;
  search_report sr = {M, R->index};
  ts_fit_options opt = *M->o;
  opt.progress = M->o->progress ? search_progress : NULL;
  opt.progress_data = &sr;
  double *x = R->se_x + j * n;
  memcpy(x, R->xs + (size_t)from->from * n, n * sizeof *R->xs);
  R->se_rc[j] = methods[opt.method].search(pb, R->use, &opt, x, L, (int)j + 1, R->r->nlocal, M->values[thread],
                                           M->sim[thread], &R->se_err[j]);
  item_done(M, R, pb, before, item_key(M, R, 2, j));
}

/* When the best setting leaves a fitted target without a value (every
 * setting tried failed the same way: ts_fit_eval's NAN), its error into e
 * and -2, a failed simulation's code; else 0. */
static int no_value(const ts_fit_problem *pb, const double *sim, const unsigned char *use, ts_err *e)
{
  size_t i = 0;
  while (i < pb->nt && !(isnan(sim[i]) && pb->t[i].weight > 0 && (!use || use[i])))
    i++;
  if (i == pb->nt)
    return 0;
  ts_err_set(e, pb->baseline_file, NULL,
             "no setting tried gives every fitted metric a value: %s has none at n=%d, workers=%d (a span "
             "with no sample, a statistic of no actor)",
             pb->mnames[pb->t[i].metric], pb->t[i].n, pb->t[i].workers);
  return -2;
}

static void stage_final(void *ctx, size_t i, int thread)
{
  fit_many *M = ctx;
  fit_run *R = &M->runs[i];
  ts_fit_problem *pb = &M->th[thread];
  size_t before = pb->evaluations;
  if (R->stage < 3)
    return;
  memset(&pb->notes, 0, sizeof pb->notes);
  R->rc = ts_fit_eval(pb, R->r->values, R->r->sim, &R->err);
  R->r->objective = ts_fit_objective(pb, R->r->sim, R->use);
  if (R->rc == 0 && !isfinite(R->r->objective))
    R->rc = no_value(pb, R->r->sim, R->use, &R->err);
  if (R->rc)
    R->stage = 3;
  item_done(M, R, pb, before, item_key(M, R, 3, 0));
}

static void run_free(fit_run *R)
{
  free(R->xs);
  free(R->pts);
  free(R->chosen);
  free(R->pt_rc);
  free(R->pt_err);
  free(R->se_rc);
  free(R->se_err);
  free(R->se_x);
}

int ts__fit_minimize_runs(ts_fit_problem *pb, size_t nfits, const unsigned char *const *use, const double *start,
                          const ts_fit_options *o, ts_fit_result *rs, ts_err *e, int index_base, size_t *failed)
{
  if (failed)
    *failed = nfits;
  const ts_fit_params *ps = pb->params;
  size_t n = ps->n;
  ts_fit_options opt = o ? *o : (ts_fit_options){0};
  opt.step = opt.step > 0 ? opt.step : 0.3;
  opt.tol = opt.tol > 0 ? opt.tol : 1e-6;
  opt.max_iter = opt.max_iter > 0 ? opt.max_iter : 5000;
  opt.max_rounds = opt.max_rounds > 0 ? opt.max_rounds : 50;
  opt.starts = opt.starts > 0 ? opt.starts : 0;
  opt.searches = opt.searches > 0 ? opt.searches : TS_FIT_DEFAULT_SEARCHES;
  opt.lsq_step = opt.lsq_step > 0 ? opt.lsq_step : TS_FIT_LSQ_STEP;
  for (size_t k = 0; k < nfits; k++)
    memset(&rs[k], 0, sizeof rs[k]);
  if (opt.starts > 0 && n > TS_FIT_MAX_QRNG_PARAMS)
    return ts_err_set(e, pb->file, NULL, "%zu free parameters: quasi-random starts support at most %d (use no starts)",
                      n, TS_FIT_MAX_QRNG_PARAMS);
  size_t npoints = 1 + (size_t)opt.starts;
  int want = opt.searches < (int)npoints ? opt.searches : (int)npoints;
  fit_many M = {.pb = pb, .o = &opt, .nruns = nfits, .note_key = {SIZE_MAX, SIZE_MAX, SIZE_MAX}};
  M.threads = ts_parallel_threads(opt.jobs, nfits * npoints);
  M.runs = calloc(nfits + 1, sizeof *M.runs);
  M.first = calloc(nfits + 1, sizeof *M.first);
  M.th = calloc((size_t)M.threads, sizeof *M.th);
  M.values = calloc((size_t)M.threads, sizeof *M.values);
  M.sim = calloc((size_t)M.threads, sizeof *M.sim);
  double *vb = calloc(n + 1, sizeof *vb);
  int rc = -2, clones = 0, mu = 0;
  if (!M.runs || !M.first || !M.th || !M.values || !M.sim || !vb)
    goto nomem;
  if (M.threads > 1) {
    if (pthread_mutex_init(&M.mu, NULL) != 0)
      goto nomem;
    mu = 1;
  }
  for (int t = 0; t < M.threads; t++) {
    if (ts_fit_problem_clone(pb, &M.th[t]))
      goto nomem;
    clones++;
    M.values[t] = calloc(n + 1, sizeof **M.values);
    M.sim[t] = calloc(pb->nt + 1, sizeof **M.sim);
    if (!M.values[t] || !M.sim[t])
      goto nomem;
  }
  for (size_t k = 0; k < nfits; k++) {
    fit_run *R = &M.runs[k];
    ts_fit_result *r = &rs[k];
    R->use = use ? use[k] : NULL;
    R->r = r;
    R->index = (int)k + index_base;
    R->npoints = npoints;
    R->want = want;
    R->stage = 4;
    r->values = calloc(n + 1, sizeof *r->values);
    r->sim = calloc(pb->nt + 1, sizeof *r->sim);
    r->local = calloc((size_t)want + 1, sizeof *r->local);
    R->xs = calloc(npoints * n + 1, sizeof *R->xs);
    R->pts = calloc(npoints, sizeof *R->pts);
    R->chosen = calloc((size_t)want + 1, sizeof *R->chosen);
    R->pt_rc = calloc(npoints, sizeof *R->pt_rc);
    R->pt_err = calloc(npoints, sizeof *R->pt_err);
    R->se_rc = calloc((size_t)want + 1, sizeof *R->se_rc);
    R->se_err = calloc((size_t)want + 1, sizeof *R->se_err);
    R->se_x = calloc((size_t)want * n + 1, sizeof *R->se_x);
    const char *seq = NULL;
    if (!r->values || !r->sim || !r->local || !R->xs || !R->pts || !R->chosen || !R->pt_rc || !R->pt_err ||
        !R->se_rc || !R->se_err || !R->se_x || !(seq = sample(ps, start, npoints, R->xs)))
      goto nomem;
    r->starts = opt.starts;
    r->method = opt.method;
    r->lsq_step = opt.method == TS_FIT_LSQ ? opt.lsq_step : 0;
    r->sequence = opt.starts > 0 ? seq : NULL;
  }
  /* stage 1: the multi-start points of every fit */
  for (size_t k = 0; k < nfits; k++)
    M.first[k] = k * npoints;
  M.first[nfits] = nfits * npoints;
  ts_parallel_for(M.threads, nfits * npoints, stage_points, &M);
  size_t last = nfits; /* fits after the first one that failed are not needed */
  for (size_t k = 0; k < last; k++) {
    fit_run *R = &M.runs[k];
    for (size_t i = 0; i < npoints; i++)
      if (R->pt_rc[i]) {
        R->rc = R->pt_rc[i];
        R->err = R->pt_err[i];
        R->stage = 1;
        last = k + 1;
        break;
      }
    if (R->stage < 4)
      break;
    qsort(R->pts, npoints, sizeof *R->pts, cand_less);
    R->r->nlocal = choose(ps, R->pts, npoints, R->xs, want, R->chosen, M.values[0], vb);
    if (opt.progress && opt.starts > 0) {
      ts__fit_unmap_all(ps, R->xs + (size_t)R->pts[0].from * n, vb);
      ts_fit_progress p = {0, R->r->nlocal, 0, (int)npoints, R->pts[0].f, 0, vb, R->index};
      report(&M, &p);
    }
  }
  /* stage 2: the local searches of every fit not after a failed one */
  size_t items = 0;
  for (size_t k = 0; k < nfits; k++) {
    M.first[k] = items;
    if (k < last && M.runs[k].stage == 4)
      items += (size_t)M.runs[k].r->nlocal;
  }
  M.first[nfits] = items;
  ts_parallel_for(M.threads, items, stage_search, &M);
  for (size_t k = 0; k < last; k++) {
    fit_run *R = &M.runs[k];
    ts_fit_result *r = R->r;
    if (R->stage < 4)
      break;
    r->converged = 1;
    for (int j = 0; j < r->nlocal; j++) {
      ts_fit_local *L = &r->local[j];
      if (R->se_rc[j]) {
        R->rc = R->se_rc[j];
        R->err = R->se_err[j];
        R->stage = 2;
        r->nlocal = j + 1;
        last = k + 1;
        break;
      }
      r->iterations += L->iterations;
      r->rounds += L->rounds;
      r->converged &= L->converged;
      if (j == 0 || L->objective < r->local[r->best].objective)
        r->best = j;
    }
    if (R->stage < 4)
      break;
    ts__fit_unmap_all(ps, R->se_x + (size_t)r->best * n, r->values);
    R->stage = 3; /* due: the final evaluation */
  }
  /* stage 3: each fit's values evaluated once more (every target's value) */
  ts_parallel_for(ts_parallel_threads(M.threads, last), last, stage_final, &M);
  rc = 0;
  for (size_t k = 0; k < nfits; k++) {
    fit_run *R = &M.runs[k];
    R->r->evaluations = R->evals;
    pb->evaluations += R->evals;
  }
  ts_sweep_notes_add(&pb->notes, &M.notes);
  for (size_t k = 0; k < last && rc == 0; k++)
    if (M.runs[k].rc) {
      rc = M.runs[k].rc;
      *e = M.runs[k].err;
      if (failed)
        *failed = k;
    }
  goto out;
nomem:
  ts_err_set(e, pb->file, NULL, "out of memory");
  rc = -2;
out:
  for (size_t k = 0; M.runs && k < nfits; k++)
    run_free(&M.runs[k]);
  for (int t = 0; t < clones; t++)
    ts_fit_problem_finish(&M.th[t]);
  for (int t = 0; t < M.threads && M.values; t++) {
    free(M.values[t]);
    free(M.sim ? M.sim[t] : NULL);
  }
  if (mu)
    pthread_mutex_destroy(&M.mu);
  free(M.runs);
  free(M.first);
  free(M.th);
  free(M.values);
  free(M.sim);
  free(vb);
  return rc;
}

int ts_fit_minimize_many(ts_fit_problem *pb, size_t nfits, const unsigned char *const *use, const double *start,
                         const ts_fit_options *o, ts_fit_result *rs, ts_err *e)
{
  return ts__fit_minimize_runs(pb, nfits, use, start, o, rs, e, 0, NULL);
}

int ts_fit_minimize(ts_fit_problem *pb, const unsigned char *use, const double *start, const ts_fit_options *o,
                    ts_fit_result *r, ts_err *e)
{
  const unsigned char *uses[] = {use};
  return ts__fit_minimize_runs(pb, 1, use ? uses : NULL, start, o, r, e, -1, NULL);
}
