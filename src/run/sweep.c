/* The sweep's points and columns, and its entry points: the combinations
 * of the axes (an odometer, the first axis slowest), each with its model
 * and metric list (combo_run); the columns, the union by name of the
 * lists; pass 1 (prepare: the combinations and columns, with no point run)
 * and pass 2 (ts_sweep_run: the points in the sweep's order, combination,
 * then workers, then n, run by runner.c); wave_ratio once every point is
 * in; and the lookups over a finished sweep. */
#include "run/sweep.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "run/sweep_internal.h"

size_t ts_sweep_npoints(const ts_sweep_spec *spec)
{
  size_t c = 1;
  for (int a = 0; a < spec->naxes; a++)
    c *= (size_t)spec->axis_sizes[a];
  return c * spec->nn * spec->nw;
}

static size_t ncombos(const ts_sweep_spec *spec)
{
  size_t c = 1;
  for (int a = 0; a < spec->naxes; a++)
    c *= (size_t)spec->axis_sizes[a];
  return c;
}

/* The axis values of combination c: the first axis varies slowest. */
static void combo_values(const ts_sweep_spec *spec, size_t c, int *values)
{
  for (int a = spec->naxes - 1; a >= 0; a--) {
    values[a] = (int)(c % (size_t)spec->axis_sizes[a]);
    c /= (size_t)spec->axis_sizes[a];
  }
}

static int add_columns(ts_sweep *out, const ts_metric_list *l)
{
  for (size_t i = 0; i < l->n; i++) {
    if (ts_sweep_col(out, l->v[i].name) >= 0)
      continue;
    ts_metric *c = realloc(out->cols, (out->ncols + 1) * sizeof *c);
    if (!c)
      return -1;
    out->cols = c;
    c[out->ncols] = l->v[i];
    c[out->ncols].expr = NULL;
    out->has_settle |= strcmp(l->v[i].name, "settle_ms") == 0;
    out->ncols++;
  }
  return 0;
}

static void combo_finish(combo_run *cr)
{
  if (cr->have_list)
    ts_metric_list_finish(&cr->l);
  if (cr->have_model && cr->owned)
    ts_model_finish(&cr->m);
  free(cr->colmap);
  free(cr->qid);
  free(cr->qof);
  free(cr->want);
}

/* Build combination c's model and list (pass 1: the columns). */
static int combo_setup(const ts_sweep_spec *spec, ts_sweep *out, size_t c, combo_run *cr)
{
  memset(cr, 0, sizeof *cr);
  const int *values = out->combo_values + c * (size_t)spec->naxes;
  if (!spec->model_of) {
    cr->m = *spec->model;
  } else {
    if (spec->model_of(spec->ctx, values, &cr->m, out->errmsg, sizeof out->errmsg))
      return TS_SWEEP_MODEL;
    cr->owned = 1;
  }
  cr->have_model = 1;
  cr->warmup = spec->warmup;
  cr->window = spec->window;
  if (spec->window_of)
    spec->window_of(spec->ctx, values, &cr->warmup, &cr->window);
  if (ts_metric_list_build(&cr->m, &cr->l, out->errmsg, sizeof out->errmsg) != 0)
    return TS_SWEEP_MODEL;
  cr->have_list = 1;
  if (add_columns(out, &cr->l))
    return TS_SWEEP_NOMEM;
  size_t n = cr->l.n ? cr->l.n : 1;
  cr->qid = malloc(n * sizeof *cr->qid);
  cr->qof = malloc(n * sizeof *cr->qof);
  cr->want = malloc(n);
  if (!cr->qid || !cr->qof || !cr->want)
    return TS_SWEEP_NOMEM;
  memset(cr->want, 1, n);
  for (size_t i = 0; i < cr->l.n; i++) {
    cr->qof[i] = -1;
    if (cr->l.v[i].source != TS_SRC_ACTOR)
      continue;
    int q = 0;
    while (q < cr->nq && cr->qid[q] != cr->l.v[i].id)
      q++;
    if (q == cr->nq)
      cr->qid[cr->nq++] = cr->l.v[i].id;
    cr->qof[i] = q;
  }
  return 0;
}

static int combo_colmap(const ts_sweep *out, combo_run *cr)
{
  cr->colmap = malloc((cr->l.n ? cr->l.n : 1) * sizeof *cr->colmap);
  if (!cr->colmap)
    return TS_SWEEP_NOMEM;
  for (size_t i = 0; i < cr->l.n; i++)
    cr->colmap[i] = ts_sweep_col(out, cr->l.v[i].name);
  return 0;
}

/* pass 1: the combinations' models and the columns, the union over them. */
static int prepare(const ts_sweep_spec *spec, ts_sweep *out, combo_run **crs, unsigned char **ci_colp)
{
  memset(out, 0, sizeof *out);
  size_t nco = ncombos(spec);
  out->naxes = spec->naxes;
  out->ncombos = nco;
  out->points_total = ts_sweep_npoints(spec);
  out->combo_values = calloc(nco * (size_t)spec->naxes + 1, sizeof *out->combo_values);
  *crs = calloc(nco + 1, sizeof **crs);
  if (!out->combo_values || !*crs) {
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    return TS_SWEEP_NOMEM;
  }
  for (size_t c = 0; c < nco; c++)
    combo_values(spec, c, out->combo_values + c * (size_t)spec->naxes);
  int rc = 0;
  for (size_t c = 0; c < nco && rc == 0; c++)
    rc = combo_setup(spec, out, c, &(*crs)[c]);
  for (size_t c = 0; c < nco && rc == 0; c++)
    rc = combo_colmap(out, &(*crs)[c]);
  if (rc == TS_SWEEP_NOMEM)
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
  /* the columns a confidence target applies to */
  unsigned char *ci_col = calloc(out->ncols + 1, 1);
  if (!ci_col && rc == 0) {
    rc = TS_SWEEP_NOMEM;
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
  }
  if (ci_col && spec->ci_cols && rc == 0) {
    int *cols = malloc((out->ncols + 1) * sizeof *cols);
    int k = cols ? spec->ci_cols(spec->ctx, out, cols, (int)out->ncols) : 0;
    for (int i = 0; i < k; i++)
      ci_col[cols[i]] = 1;
    free(cols);
  } else if (ci_col) {
    memset(ci_col, 1, out->ncols);
  }
  *ci_colp = ci_col;
  return rc;
}

static void combos_finish(combo_run *crs, size_t n)
{
  for (size_t c = 0; crs && c < n; c++)
    combo_finish(&crs[c]);
  free(crs);
}

int ts_sweep_prepare(const ts_sweep_spec *spec, ts_sweep *out)
{
  combo_run *crs;
  unsigned char *ci_col;
  int rc = prepare(spec, out, &crs, &ci_col);
  combos_finish(crs, out->ncombos);
  free(ci_col);
  return rc;
}

int ts_sweep_run(const ts_sweep_spec *spec, ts_sweep *out)
{
  combo_run *crs;
  unsigned char *ci_col;
  int rc = prepare(spec, out, &crs, &ci_col);
  size_t nco = out->ncombos, ntodo = 0;
  todo *td = calloc(out->points_total + 1, sizeof *td);
  if (!td && rc == 0) {
    snprintf(out->errmsg, sizeof out->errmsg, "out of memory");
    rc = TS_SWEEP_NOMEM;
  }
  size_t index = 0;
  for (size_t c = 0; td && c < nco; c++)
    for (size_t wi = 0; wi < spec->nw; wi++)
      for (size_t ni = 0; ni < spec->nn; ni++, index++)
        if (spec->shards <= 1 || (int)(index % (size_t)spec->shards) == spec->shard)
          td[ntodo++] = (todo){(int)c, spec->ns[ni], spec->workers[wi], index};
  if (rc == 0)
    rc = ts__sweep_points(spec, out, crs, ci_col, td, ntodo);
  free(td);
  free(ci_col);
  if (rc == 0 && spec->shards <= 1)
    ts_sweep_ratios(out);
  combos_finish(crs, nco);
  return rc;
}

/* wave_ratio: wave_ms over wave_ms at the smallest n of the same combination,
 * workers and class that has actors; per replication the same, replication
 * by replication. */
void ts_sweep_ratios(ts_sweep *s)
{
  int wave = ts_sweep_col(s, "wave_ms"), ratio = ts_sweep_col(s, "wave_ratio");
  if (wave < 0 || ratio < 0)
    return;
  size_t nc = s->ncols;
  for (size_t i = 0; i < s->npoints; i++) {
    ts_point *p = &s->points[i];
    const ts_point *base = NULL;
    for (size_t j = 0; j < s->npoints; j++) {
      const ts_point *q = &s->points[j];
      if (q->combo == p->combo && q->workers == p->workers && strcmp(q->class_name, p->class_name) == 0 &&
          q->samples > 0 && (!base || q->n < base->n))
        base = q;
    }
    double b = base ? base->value[wave] : 0;
    p->value[ratio] = b > 0 ? p->value[wave] / b : NAN;
    int reps = base && base->replications < p->replications ? base->replications : p->replications;
    for (int r = 0; r < p->replications; r++) {
      double bw = base && r < reps ? base->rep[(size_t)r * nc + (size_t)wave] : NAN;
      p->rep[(size_t)r * nc + (size_t)ratio] = bw > 0 ? p->rep[(size_t)r * nc + (size_t)wave] / bw : NAN;
    }
    p->mean[ratio] = ts__mean_strided(p->rep + ratio, nc, (size_t)p->replications);
    p->ci95[ratio] = ts_ci95(p->rep + ratio, nc, (size_t)p->replications);
  }
}

void ts_sweep_finish(ts_sweep *s)
{
  for (size_t i = 0; i < s->npoints; i++) {
    free(s->points[i].value);
    free(s->points[i].mean);
    free(s->points[i].ci95);
    free(s->points[i].rep);
    free(s->points[i].class_name);
  }
  free(s->points);
  free(s->cols);
  free(s->combo_values);
  memset(s, 0, sizeof *s);
}

static void note_add(ts_sweep_note *a, const ts_sweep_note *b)
{
  if (b->count == 0)
    return;
  if (a->count == 0) {
    memcpy(a->first, b->first, sizeof a->first);
    a->first_point = b->first_point;
  }
  a->count += b->count;
}

void ts_sweep_notes_add(ts_sweep_notes *a, const ts_sweep_notes *b)
{
  note_add(&a->window_missed, &b->window_missed);
  note_add(&a->backlogged, &b->backlogged);
  note_add(&a->identical, &b->identical);
  note_add(&a->overloaded, &b->overloaded);
  a->replicated += b->replicated;
}

const ts_point *ts_sweep_find(const ts_sweep *s, int combo, int n, int workers, const char *class_name)
{
  for (size_t i = 0; i < s->npoints; i++) {
    const ts_point *p = &s->points[i];
    if (p->combo == combo && p->n == n && p->workers == workers &&
        (!class_name || strcmp(p->class_name, class_name) == 0))
      return p;
  }
  return NULL;
}

int ts_sweep_col(const ts_sweep *s, const char *name)
{
  for (size_t i = 0; i < s->ncols; i++)
    if (strcmp(s->cols[i].name, name) == 0)
      return (int)i;
  return -1;
}
