/* Results in memory: a finished sweep with copies of what reading it needs
 * (axis labels, recorded values), and the actor rows. Each replication's
 * rows are written as binary records (a header, the values, the class name)
 * on the thread that ran it and reach the result in the sweep's order, the
 * order of samples.csv; they are read into rows once the sweep is done. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/report.h"
#include "lib/lib.h"

typedef struct record {
  int combo;
  int name_len;
  double v[TS_LIB_ACTOR_COLS];
} record;

static int format_actors(void *ctx, const ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo,
                         int replication, ts_text *out)
{
  (void)ctx;
  (void)s;
  record rec = {.combo = combo};
  ts_report_actor_values(w, a, replication, rec.v);
  const char *name = w->model->classes[a->klass].name;
  rec.name_len = (int)strlen(name);
  if (ts_text_reserve(out, sizeof rec + (size_t)rec.name_len))
    return -1;
  memcpy(out->v + out->len, &rec, sizeof rec);
  memcpy(out->v + out->len + sizeof rec, name, (size_t)rec.name_len);
  out->len += sizeof rec + (size_t)rec.name_len;
  return 0;
}

static int keep_raw(void *ctx, const char *text, size_t len)
{
  tssim_result *r = ctx;
  if (r->raw_len + len > r->raw_cap) {
    size_t cap = r->raw_cap ? r->raw_cap : 1 << 16;
    while (cap < r->raw_len + len)
      cap *= 2;
    unsigned char *v = realloc(r->raw, cap);
    if (!v) {
      r->raw_failed = 1;
      return -1;
    }
    r->raw = v;
    r->raw_cap = cap;
  }
  memcpy(r->raw + r->raw_len, text, len);
  r->raw_len += len;
  return 0;
}

void ts_lib_keep_actors(tssim_result *r, ts_sweep_spec *spec)
{
  spec->format_samples = format_actors;
  spec->write_samples = keep_raw;
  spec->samples_ctx = r;
}

/* The index of class name in r->classes, added if new; -1 out of memory. */
static int class_index(tssim_result *r, const char *name, size_t len)
{
  for (size_t i = 0; i < r->nclasses; i++)
    if (strlen(r->classes[i]) == len && !memcmp(r->classes[i], name, len))
      return (int)i;
  char **v = realloc(r->classes, (r->nclasses + 1) * sizeof *v);
  if (!v)
    return -1;
  r->classes = v;
  if (!(v[r->nclasses] = strndup(name, len)))
    return -1;
  return (int)r->nclasses++;
}

static int read_actors(tssim_result *r)
{
  size_t n = 0;
  for (size_t at = 0; at < r->raw_len; n++) {
    record rec;
    memcpy(&rec, r->raw + at, sizeof rec);
    at += sizeof rec + (size_t)rec.name_len;
  }
  if (n && !(r->actors = malloc(n * sizeof *r->actors)))
    return -1;
  for (size_t at = 0; at < r->raw_len; r->nactors++) {
    record rec;
    memcpy(&rec, r->raw + at, sizeof rec);
    ts_lib_actor *a = &r->actors[r->nactors];
    a->combo = rec.combo;
    memcpy(a->v, rec.v, sizeof a->v);
    if ((a->klass = class_index(r, (const char *)r->raw + at + sizeof rec, (size_t)rec.name_len)) < 0)
      return -1;
    at += sizeof rec + (size_t)rec.name_len;
  }
  free(r->raw);
  r->raw = NULL;
  r->raw_len = r->raw_cap = 0;
  return 0;
}

int ts_lib_result_finish(tssim_result *r, const ts_loaded *L)
{
  const ts_sweep *s = &r->s;
  const ts_scenario *sc = &L->sc;
  r->naxes = (size_t)sc->naxes;
  if (r->raw_failed)
    return -1;
  if (r->naxes && !(r->labels = calloc(s->ncombos * r->naxes, sizeof *r->labels)))
    return -1;
  for (size_t c = 0; c < s->ncombos; c++)
    for (size_t a = 0; a < r->naxes; a++)
      if (!(r->labels[c * r->naxes + a] = strdup(sc->axes[a].labels[s->combo_values[c * r->naxes + a]])))
        return -1;
  if (s->npoints && !(r->recorded = malloc(s->npoints * s->ncols * sizeof *r->recorded)))
    return -1;
  for (size_t p = 0; p < s->npoints; p++)
    for (size_t c = 0; c < s->ncols; c++) {
      double v = NAN;
      if (!L->has_baseline || !ts_report_recorded(sc, s, &L->baseline, &s->points[p], (int)c, &v))
        v = NAN;
      r->recorded[p * s->ncols + c] = v;
    }
  return read_actors(r);
}

void tssim_result_free(tssim_result *r)
{
  if (!r)
    return;
  if (r->labels)
    for (size_t i = 0; i < r->s.ncombos * r->naxes; i++)
      free(r->labels[i]);
  free(r->labels);
  for (size_t i = 0; i < r->nclasses; i++)
    free(r->classes[i]);
  free(r->classes);
  free(r->recorded);
  free(r->raw);
  free(r->actors);
  ts_sweep_finish(&r->s);
  free(r);
}

/* ---- per point ---- */

size_t tssim_result_points(const tssim_result *r)
{
  return r ? r->s.npoints : 0;
}

size_t tssim_result_metrics(const tssim_result *r)
{
  return r ? r->s.ncols : 0;
}

const char *tssim_result_metric(const tssim_result *r, size_t m)
{
  return r && m < r->s.ncols ? r->s.cols[m].name : NULL;
}

int tssim_result_metric_index(const tssim_result *r, const char *name)
{
  return r && name ? ts_sweep_col(&r->s, name) : -1;
}

/* Point p, or NULL (also when r is NULL). */
static const ts_point *point(const tssim_result *r, size_t p)
{
  return r && p < r->s.npoints ? &r->s.points[p] : NULL;
}

int tssim_result_n(const tssim_result *r, size_t p)
{
  return point(r, p) ? point(r, p)->n : -1;
}

int tssim_result_workers(const tssim_result *r, size_t p)
{
  return point(r, p) ? point(r, p)->workers : -1;
}

int tssim_result_replications(const tssim_result *r, size_t p)
{
  return point(r, p) ? point(r, p)->replications : -1;
}

const char *tssim_result_class(const tssim_result *r, size_t p)
{
  const ts_point *pt = point(r, p);
  return !pt ? NULL : pt->klass < 0 ? "" : pt->class_name;
}

const char *tssim_result_label(const tssim_result *r, size_t p, size_t a)
{
  const ts_point *pt = point(r, p);
  return pt && a < r->naxes ? r->labels[(size_t)pt->combo * r->naxes + a] : NULL;
}

/* v[m] of point p, or NAN. */
static double at(const tssim_result *r, size_t p, size_t m, const double *v)
{
  return point(r, p) && m < r->s.ncols ? v[m] : NAN;
}

double tssim_result_value(const tssim_result *r, size_t p, size_t m)
{
  return point(r, p) ? at(r, p, m, point(r, p)->value) : NAN;
}

double tssim_result_mean(const tssim_result *r, size_t p, size_t m)
{
  return point(r, p) ? at(r, p, m, point(r, p)->mean) : NAN;
}

double tssim_result_ci95(const tssim_result *r, size_t p, size_t m)
{
  return point(r, p) ? at(r, p, m, point(r, p)->ci95) : NAN;
}

double tssim_result_replication(const tssim_result *r, size_t p, size_t m, int k)
{
  const ts_point *pt = point(r, p);
  if (!pt || k < 0 || k >= pt->replications)
    return NAN;
  return at(r, p, m, pt->rep + (size_t)k * r->s.ncols);
}

double tssim_result_recorded(const tssim_result *r, size_t p, size_t m)
{
  return point(r, p) ? at(r, p, m, r->recorded + p * r->s.ncols) : NAN;
}

/* ---- per actor ---- */

size_t tssim_result_actors(const tssim_result *r)
{
  return r ? r->nactors : 0;
}

size_t tssim_result_actor_columns(const tssim_result *r)
{
  (void)r;
  return TS_LIB_ACTOR_COLS;
}

const char *tssim_result_actor_column(const tssim_result *r, size_t c)
{
  (void)r;
  return c < TS_LIB_ACTOR_COLS ? ts_report_actor_columns[c] : NULL;
}

int tssim_result_actor_column_index(const tssim_result *r, const char *name)
{
  (void)r;
  for (int c = 0; c < TS_LIB_ACTOR_COLS; c++)
    if (name && !strcmp(ts_report_actor_columns[c], name))
      return c;
  return -1;
}

double tssim_result_actor_value(const tssim_result *r, size_t i, size_t c)
{
  return r && i < r->nactors && c < TS_LIB_ACTOR_COLS ? r->actors[i].v[c] : NAN;
}

const char *tssim_result_actor_class(const tssim_result *r, size_t i)
{
  return r && i < r->nactors ? r->classes[r->actors[i].klass] : NULL;
}

const char *tssim_result_actor_label(const tssim_result *r, size_t i, size_t a)
{
  return r && i < r->nactors && a < r->naxes ? r->labels[(size_t)r->actors[i].combo * r->naxes + a] : NULL;
}
