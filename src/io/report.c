#include "io/report.h"

#include <math.h>
#include <string.h>

#include "io/atomic.h"
#include "run/compare.h"
#include "run/metrics.h"

void ts_report_labels(const ts_scenario *sc, const ts_sweep *s, const ts_point *p, const char **labels)
{
  for (int a = 0; a < sc->naxes; a++)
    labels[a] = sc->axes[a].labels[s->combo_values[(size_t)p->combo * (size_t)s->naxes + (size_t)a]];
}

static void axis_keys(const ts_scenario *sc, const char **keys)
{
  for (int a = 0; a < sc->naxes; a++)
    keys[a] = sc->axes[a].key;
}

/* The smallest n of the sweep at p's combination, workers and class. */
static int sweep_base_n(const ts_sweep *s, const ts_point *p)
{
  int base = p->n;
  for (size_t i = 0; i < s->npoints; i++) {
    const ts_point *q = &s->points[i];
    if (q->combo == p->combo && q->workers == p->workers && strcmp(q->class_name, p->class_name) == 0 && q->n < base)
      base = q->n;
  }
  return base;
}

double ts_rel_error(double v, double r)
{
  return r != 0 ? (v - r) / r : NAN; /* (a NAN v gives NAN) */
}

/* The smallest recorded n of metric at workers (any axes). */
static int baseline_base_n(const ts_baseline *b, int workers, const char *metric)
{
  int base = -1;
  for (size_t i = 0; i < b->nrec; i++)
    if (b->rec[i].workers == workers && strcmp(b->rec[i].metric, metric) == 0 && (base < 0 || b->rec[i].n < base))
      base = b->rec[i].n;
  return base;
}

/* The class whose rows a baseline describes: the first row class of the point
 * (the model's first reported class). */
static int first_row(const ts_sweep *s, const ts_point *p)
{
  return ts_sweep_find(s, p->combo, p->n, p->workers, NULL) == p;
}

int ts_report_recorded(const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b, const ts_point *p, int c,
                       double *v)
{
  if (!b || !first_row(s, p))
    return 0;
  const char *metric = s->cols[c].name;
  if (s->cols[c].source == TS_SRC_RATIO && sweep_base_n(s, p) != baseline_base_n(b, p->workers, metric))
    return 0;
  const char *keys[16], *labels[16];
  axis_keys(sc, keys);
  ts_report_labels(sc, s, p, labels);
  return ts_baseline_find(b, p->n, p->workers, keys, labels, sc->naxes, metric, v);
}

size_t ts_report_unmatched(const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b, size_t *first)
{
  const char *keys[16], *labels[16];
  axis_keys(sc, keys);
  size_t count = 0;
  for (size_t i = 0; b && i < b->nrec; i++) {
    int found = 0;
    for (size_t k = 0; k < s->npoints && !found; k++) {
      ts_report_labels(sc, s, &s->points[k], labels);
      found = ts_record_matches(&b->rec[i], s->points[k].n, s->points[k].workers, keys, labels, sc->naxes);
    }
    if (!found && count++ == 0)
      *first = i;
  }
  return count;
}

/* The point of the compare axis's first value that p is compared with. */
static const ts_point *compare_base(const ts_scenario *sc, const ts_sweep *s, const ts_point *p)
{
  if (sc->compare < 0)
    return NULL;
  int na = s->naxes;
  const int *pv = &s->combo_values[(size_t)p->combo * (size_t)na];
  for (size_t i = 0; i < s->npoints; i++) {
    const ts_point *q = &s->points[i];
    const int *qv = &s->combo_values[(size_t)q->combo * (size_t)na];
    int same = q->n == p->n && q->workers == p->workers && strcmp(q->class_name, p->class_name) == 0 &&
               qv[sc->compare] == 0;
    for (int a = 0; a < na && same; a++)
      same = a == sc->compare || qv[a] == pv[a];
    if (same)
      return q;
  }
  return NULL;
}

/* The 95% half-width of p's change in metric c from base (its compare
 * point) as a fraction: the interval of the ratio of their replication means,
 * paired per replication (ts_compare_ratio), since replication r runs with
 * the same seeds at both points (common random numbers). NAN for base
 * itself, without a base, with fewer than 2 replications in common, or when
 * a replication has no value. */
static double compare_ci95(const ts_sweep *s, const ts_point *p, const ts_point *base, size_t c)
{
  if (!base || base == p)
    return NAN;
  size_t k = (size_t)(p->replications < base->replications ? p->replications : base->replications);
  double ratio, h;
  ts_compare_ratio(base->rep + c, p->rep + c, s->ncols, k, &ratio, &h);
  return h;
}

static int has_spans(const ts_sweep *s)
{
  for (size_t c = 0; c < s->ncols; c++)
    if (s->cols[c].source == TS_SRC_SPAN)
      return 1;
  return 0;
}

int ts_report_table_cols(const ts_scenario *sc, const ts_sweep *s, int *cols, int max)
{
  static const char *const waves[] = {"wave_ms", "wave_ratio", "per_group_cpu_ms", "lock_wait_ms", "lock_work_ms",
                                      "queue_wait_ms", "slices", "queue_depth", "slice_wait_ms", NULL};
  int n = 0;
  if (sc && sc->ntable > 0) {
    for (int i = 0; i < sc->ntable && n < max; i++) {
      int c = ts_sweep_col(s, sc->table[i]);
      if (c >= 0)
        cols[n++] = c;
    }
    return n;
  }
  if (!has_spans(s)) {
    for (int i = 0; waves[i] && n < max; i++) {
      int c = ts_sweep_col(s, waves[i]);
      if (c >= 0)
        cols[n++] = c;
    }
    return n;
  }
  for (size_t c = 0; c < s->ncols && n < max; c++) {
    const ts_metric *m = &s->cols[c];
    if ((m->source == TS_SRC_SPAN && (m->stat == TS_SPAN_P50 || m->stat == TS_SPAN_P95)) || m->source == TS_SRC_EXPR ||
        strcmp(m->name, "cpu_cores") == 0 || strcmp(m->name, "lock_wait_share") == 0)
      cols[n++] = (int)c;
  }
  return n;
}

static int width(const ts_metric *m)
{
  int w = (int)strlen(m->name);
  return w > 9 ? w : 9;
}

static int baseline_has(const ts_baseline *b, const ts_sweep *s, int c)
{
  return b && ts_baseline_has(b, s->cols[c].name);
}

void ts_report_table(FILE *out, const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b)
{
  int cols[64], nm = ts_report_table_cols(sc, s, cols, 64);
  int classes = 0, reps = 0, outside = 0, per_actor = 0;
  for (int i = 0; i < nm; i++)
    per_actor |= s->cols[cols[i]].source == TS_SRC_ACTOR || s->cols[cols[i]].source == TS_SRC_RATIO;
  for (size_t p = 0; p < s->npoints; p++) {
    classes |= per_actor && strcmp(s->points[p].class_name, s->points[0].class_name) != 0;
    reps |= s->points[p].replications > 1;
    outside |= s->points[p].outside;
  }
  for (int a = 0; a < sc->naxes; a++) {
    int w = (int)strlen(sc->axes[a].key);
    for (int v = 0; v < sc->axes[a].nvalues; v++)
      if ((int)strlen(sc->axes[a].labels[v]) > w)
        w = (int)strlen(sc->axes[a].labels[v]);
    fprintf(out, "%-*s ", w > 24 ? 24 : w, sc->axes[a].key);
  }
  fprintf(out, "%6s %7s", "n", "workers");
  if (classes)
    fprintf(out, " %-12s", "class");
  for (int i = 0; i < nm; i++) {
    const ts_metric *m = &s->cols[cols[i]];
    fprintf(out, "  %*s", width(m), m->name);
    if (reps)
      fprintf(out, " %9s", "+-95%");
    if (baseline_has(b, s, cols[i]))
      fprintf(out, " %9s %7s", "recorded", "err");
    if (sc->compare >= 0)
      fprintf(out, " %8s", "vs first");
    if (sc->compare >= 0 && reps)
      fprintf(out, " %7s", "+-95%");
  }
  fputc('\n', out);
  for (size_t p = 0; p < s->npoints; p++) {
    const ts_point *pt = &s->points[p];
    if (!per_actor && !first_row(s, pt))
      continue; /* the columns are the same on every class's row */
    const char *labels[16];
    ts_report_labels(sc, s, pt, labels);
    for (int a = 0; a < sc->naxes; a++) {
      int w = (int)strlen(sc->axes[a].key);
      for (int v = 0; v < sc->axes[a].nvalues; v++)
        if ((int)strlen(sc->axes[a].labels[v]) > w)
          w = (int)strlen(sc->axes[a].labels[v]);
      w = w > 24 ? 24 : w;
      fprintf(out, "%-*.*s ", w, w, labels[a]);
    }
    fprintf(out, "%6d %7d", pt->n, pt->workers);
    if (classes)
      fprintf(out, " %-12.12s", pt->class_name);
    const ts_point *base = compare_base(sc, s, pt);
    for (int i = 0; i < nm; i++) {
      const ts_metric *m = &s->cols[cols[i]];
      double v = pt->value[cols[i]], r;
      if (isnan(v))
        fprintf(out, "  %*s", width(m), "-");
      else
        fprintf(out, "  %*.*f", width(m), m->digits, v);
      if (reps) {
        double h = pt->ci95[cols[i]];
        if (isnan(h))
          fprintf(out, " %9s", "-");
        else
          fprintf(out, " %9.*f", m->digits > 0 ? m->digits : 1, h);
      }
      if (baseline_has(b, s, cols[i])) {
        if (!ts_report_recorded(sc, s, b, pt, cols[i], &r))
          fprintf(out, " %9s %7s", "-", "-");
        else if (isnan(ts_rel_error(v, r)))
          fprintf(out, " %9.*f %7s", m->digits, r, "-");
        else
          fprintf(out, " %9.*f %+6.1f%%", m->digits, r, 100 * ts_rel_error(v, r));
      }
      if (sc->compare >= 0) {
        double bv = base ? base->value[cols[i]] : NAN;
        if (base == pt || isnan(bv) || isnan(v) || bv == 0)
          fprintf(out, " %8s", "-");
        else
          fprintf(out, " %+7.1f%%", 100 * (v - bv) / bv);
        if (reps) {
          double h = compare_ci95(s, pt, base, (size_t)cols[i]);
          if (isnan(h))
            fprintf(out, " %7s", "-");
          else
            fprintf(out, " %6.1f%%", 100 * h);
        }
      }
    }
    if (pt->outside)
      fputs("  *", out);
    fputc('\n', out);
  }
  if (outside)
    fputs("* outside the recorded range of host.cpu_scale_by_n: the CPU price is held flat at its nearest "
          "recorded load\n", out);
}

/* A CSV number: %.6f, or empty for NAN. */
static void num(FILE *f, double v)
{
  if (isnan(v))
    fputs(",", f);
  else
    fprintf(f, ",%.6f", v);
}

void ts_report_summary_csv(FILE *f, const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b)
{
  int scaled = 0;
  for (size_t p = 0; p < s->npoints; p++)
    scaled |= s->points[p].outside;
  for (int a = 0; a < sc->naxes; a++)
    fprintf(f, "%s,", sc->axes[a].key);
  fprintf(f, "n,workers,class,replications,samples");
  for (size_t c = 0; c < s->ncols; c++)
    fprintf(f, ",%s", s->cols[c].name);
  for (size_t c = 0; c < s->ncols; c++)
    if (baseline_has(b, s, (int)c))
      fprintf(f, ",recorded_%s,err_%s", s->cols[c].name, s->cols[c].name);
  for (size_t c = 0; c < s->ncols; c++)
    fprintf(f, ",%s_mean,%s_ci95", s->cols[c].name, s->cols[c].name);
  if (sc->compare >= 0)
    for (size_t c = 0; c < s->ncols; c++)
      fprintf(f, ",%s_vs_%s", s->cols[c].name, sc->axes[sc->compare].labels[0]);
  if (sc->compare >= 0)
    for (size_t c = 0; c < s->ncols; c++)
      fprintf(f, ",%s_vs_%s_ci95", s->cols[c].name, sc->axes[sc->compare].labels[0]);
  if (scaled)
    fputs(",cpu_by_load", f);
  fputc('\n', f);
  for (size_t p = 0; p < s->npoints; p++) {
    const ts_point *pt = &s->points[p];
    const char *labels[16];
    ts_report_labels(sc, s, pt, labels);
    for (int a = 0; a < sc->naxes; a++)
      fprintf(f, "%s,", labels[a]);
    fprintf(f, "%d,%d,%s,%d,%zu", pt->n, pt->workers, pt->class_name, pt->replications, pt->samples);
    for (size_t c = 0; c < s->ncols; c++)
      num(f, pt->value[c]);
    for (size_t c = 0; c < s->ncols; c++) {
      double r;
      if (!baseline_has(b, s, (int)c))
        continue;
      if (ts_report_recorded(sc, s, b, pt, (int)c, &r)) {
        fprintf(f, ",%.6f", r);
        num(f, ts_rel_error(pt->value[c], r));
      } else
        fprintf(f, ",,");
    }
    for (size_t c = 0; c < s->ncols; c++) {
      num(f, pt->mean[c]);
      num(f, pt->ci95[c]);
    }
    if (sc->compare >= 0) {
      const ts_point *base = compare_base(sc, s, pt);
      for (size_t c = 0; c < s->ncols; c++) {
        double bv = base ? base->value[c] : NAN;
        num(f, isnan(bv) || bv == 0 ? NAN : pt->value[c] / bv);
      }
      for (size_t c = 0; c < s->ncols; c++)
        num(f, compare_ci95(s, pt, base, c));
    }
    if (scaled)
      fprintf(f, ",%s", pt->outside ? "held flat" : "recorded");
    fputc('\n', f);
  }
}

void ts_report_samples_header(FILE *f, const ts_scenario *sc, const ts_model *m)
{
  for (int a = 0; a < sc->naxes; a++)
    fprintf(f, "%s,", sc->axes[a].key);
  /* the numeric columns of ts_report_actor_columns, and the class's name after the actor's index */
  for (int i = 0; ts_report_actor_columns[i]; i++)
    fprintf(f, "%s%s%s", i ? "," : "", ts_report_actor_columns[i], strcmp(ts_report_actor_columns[i], "actor") ? "" : ",class");
  fprintf(f, "%s\n", m->has_settle ? ",settle_ms" : "");
}

/* Write the decimal digits of u at p; returns the end. */
static const char digit_pairs[] = "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
                                  "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
                                  "8081828384858687888990919293949596979899";

/* Write the digits of u at p, two at a time from the end, so that
 * p[0..width) holds them right-aligned (width >= the digit count). */
static void put_digits(char *p, size_t width, uint64_t u)
{
  char *b = p + width;
  while (u >= 100) {
    unsigned d = (unsigned)(u % 100) * 2;
    u /= 100;
    *--b = digit_pairs[d + 1];
    *--b = digit_pairs[d];
  }
  if (u >= 10) {
    *--b = digit_pairs[u * 2 + 1];
    *--b = digit_pairs[u * 2];
  } else {
    *--b = (char)('0' + u);
  }
}

static char *put_u64(char *p, uint64_t u)
{
  static const uint64_t tens[19] = {UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
    UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000), UINT64_C(10000000000),
    UINT64_C(100000000000), UINT64_C(1000000000000), UINT64_C(10000000000000), UINT64_C(100000000000000),
    UINT64_C(1000000000000000), UINT64_C(10000000000000000), UINT64_C(100000000000000000),
    UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};
  size_t n = 1; /* its digits: one more for each power of ten it reaches (a compare, not a division) */
  while (n < 20 && u >= tens[n - 1])
    n++;
  put_digits(p, n, u);
  return p + n;
}

static char *put_i64(char *p, int64_t v)
{
  if (v < 0) {
    *p++ = '-';
    return put_u64(p, (uint64_t)0 - (uint64_t)v);
  }
  return put_u64(p, (uint64_t)v);
}

/* t ns as milliseconds, exactly what printf("%.6f", (double)t / 1e6) writes
 * (ts_time_to_ms then %.6f). For |t| < 2^52 the double q = t / 1e6 is the
 * decimal x = t / 10^6 rounded to nearest, so |q - x| <= 2^-53 |x| < 0.5e-6:
 * x is then the multiple of 1e-6 nearest to q, strictly, and %.6f (which
 * rounds q's exact value to six decimals, symmetrically for negatives)
 * writes x's digits: t div 10^6, a point, t mod 10^6 in six digits. t = 0
 * gives +0.0, so no "-0.000000" arises. Beyond 2^52 ns (52 days), printf. */
char *ts_report_put_ms(char *p, ts_time t)
{
  if (t == 0) { /* (the most common value of a samples row) */
    memcpy(p, "0.000000", 9);
    return p + 8;
  }
  uint64_t u = t < 0 ? (uint64_t)0 - (uint64_t)t : (uint64_t)t;
  if (u >= (UINT64_C(1) << 52))
    return p + snprintf(p, 40, "%.6f", ts_time_to_ms(t));
  if (t < 0)
    *p++ = '-';
  p = put_u64(p, u / 1000000);
  unsigned f = (unsigned)(u % 1000000); /* six digits, zero-padded: three pairs */
  p[0] = '.';
  for (int i = 5; i > 0; i -= 2) {
    unsigned d = f % 100 * 2;
    f /= 100;
    p[i] = digit_pairs[d];
    p[i + 1] = digit_pairs[d + 1];
  }
  p[7] = '\0';
  return p + 7;
}

int ts_report_samples_row(ts_text *out, const ts_scenario *sc, const ts_sweep *s, const ts_world *w,
                          const ts_actor_stats *a, int combo, int replication)
{
  const char *labels[16];
  size_t prefix = 0;
  for (int k = 0; k < sc->naxes; k++) {
    labels[k] = sc->axes[k].labels[s->combo_values[(size_t)combo * (size_t)s->naxes + (size_t)k]];
    prefix += strlen(labels[k]) + 1;
  }
  int settle = s->has_settle; /* the header's column (the sweep's model has the mark) */
  const char *klass = w->model->classes[a->klass].name;
  size_t kl = strlen(klass);
  /* 3 ints + 3 ids + 11 times (at most 40 each) + 2 counters + separators */
  if (ts_text_reserve(out, prefix + kl + 6 * 21 + 11 * 40 + 2 * 21 + 24))
    return -1;
  char *p = out->v + out->len;
  for (int k = 0; k < sc->naxes; k++) {
    size_t ll = strlen(labels[k]);
    memcpy(p, labels[k], ll);
    p += ll;
    *p++ = ',';
  }
  p = put_i64(p, replication);
  *p++ = ',';
  p = put_i64(p, w->n);
  *p++ = ',';
  p = put_i64(p, w->nmain);
  *p++ = ',';
  p = put_i64(p, a->actor);
  *p++ = ',';
  memcpy(p, klass, kl);
  p += kl;
  *p++ = ',';
  p = put_i64(p, a->worker);
  const ts_time times[] = {a->arrive, a->wave_end - a->wave_start, a->timer, a->cpu, a->state[TS_ACTOR_QUEUED],
                           a->state[TS_ACTOR_READY], a->state[TS_ACTOR_IO], a->state[TS_ACTOR_LOCK_WAIT],
                           a->lock_work};
  int waved = a->wave_start >= 0 && a->wave_end >= 0; /* an actor still running has no wave_ms, no done_ms */
  for (size_t i = 0; i < sizeof times / sizeof *times; i++) {
    *p++ = ',';
    if (i != 1 || waved)
      p = ts_report_put_ms(p, times[i]);
  }
  *p++ = ',';
  p = put_i64(p, a->slices);
  *p++ = ',';
  p = put_i64(p, a->yields);
  *p++ = ',';
  if (a->done >= 0)
    p = ts_report_put_ms(p, a->done);
  if (settle) {
    *p++ = ',';
    if (a->settled >= 0)
      p = ts_report_put_ms(p, a->settled - a->arrive);
  }
  *p++ = '\n';
  out->len = (size_t)(p - out->v);
  return 0;
}

const char *const ts_report_actor_columns[] = {"replication", "n", "workers", "actor", "worker", "arrive_ms",
  "wave_ms", "per_group_cpu_ms", "cpu_ms", "queue_wait_ms", "ready_wait_ms", "io_ms", "lock_wait_ms", "lock_work_ms",
  "slices", "yields", "done_ms", NULL};

void ts_report_actor_values(const ts_world *w, const ts_actor_stats *a, int replication, double *v)
{
  const ts_time times[] = {a->arrive, a->wave_end - a->wave_start, a->timer, a->cpu, a->state[TS_ACTOR_QUEUED],
                           a->state[TS_ACTOR_READY], a->state[TS_ACTOR_IO], a->state[TS_ACTOR_LOCK_WAIT],
                           a->lock_work};
  int waved = a->wave_start >= 0 && a->wave_end >= 0;
  v[0] = replication;
  v[1] = w->n;
  v[2] = w->nmain;
  v[3] = a->actor;
  v[4] = a->worker;
  for (size_t i = 0; i < sizeof times / sizeof *times; i++)
    v[5 + i] = i != 1 || waved ? ts_time_to_ms(times[i]) : NAN;
  v[14] = (double)a->slices;
  v[15] = (double)a->yields;
  v[16] = a->done >= 0 ? ts_time_to_ms(a->done) : NAN;
}

static void add_number(cJSON *o, const char *key, double v)
{
  if (isnan(v))
    cJSON_AddNullToObject(o, key);
  else
    cJSON_AddNumberToObject(o, key, v);
}

static cJSON *points_json(const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b)
{
  cJSON *arr = cJSON_CreateArray();
  for (size_t p = 0; arr && p < s->npoints; p++) {
    const ts_point *pt = &s->points[p];
    cJSON *o = cJSON_CreateObject();
    const char *labels[16];
    ts_report_labels(sc, s, pt, labels);
    for (int a = 0; a < sc->naxes; a++)
      cJSON_AddStringToObject(o, sc->axes[a].key, labels[a]);
    cJSON_AddNumberToObject(o, "n", pt->n);
    cJSON_AddNumberToObject(o, "workers", pt->workers);
    cJSON_AddStringToObject(o, "class", pt->class_name);
    cJSON_AddNumberToObject(o, "replications", pt->replications);
    cJSON_AddNumberToObject(o, "samples", (double)pt->samples);
    for (size_t c = 0; c < s->ncols; c++) {
      double r;
      char key[128];
      add_number(o, s->cols[c].name, pt->value[c]);
      snprintf(key, sizeof key, "%s_ci95", s->cols[c].name);
      add_number(o, key, pt->ci95[c]);
      if (ts_report_recorded(sc, s, b, pt, (int)c, &r)) {
        snprintf(key, sizeof key, "recorded_%s", s->cols[c].name);
        cJSON_AddNumberToObject(o, key, r);
      }
    }
    if (pt->outside)
      cJSON_AddStringToObject(o, "cpu_by_load", "held flat");
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

static cJSON *metrics_json(const ts_sweep *s)
{
  cJSON *o = cJSON_CreateObject();
  for (size_t c = 0; o && c < s->ncols; c++) {
    cJSON *m = cJSON_CreateObject();
    cJSON_AddStringToObject(m, "unit", s->cols[c].unit);
    cJSON_AddStringToObject(m, "meaning", s->cols[c].meaning);
    cJSON_AddItemToObject(o, s->cols[c].name, m);
  }
  return o;
}

int ts_report_add(ts_atomic *a, const char *dir, const ts_scenario *sc, const cJSON *resolved,
                  const ts_sweep *s, const ts_baseline *b, int samples, ts_err *e)
{
  if (ts_mkdirs(dir, e)) {
    ts_atomic_abort(a);
    return -1;
  }
  FILE *sum = ts_atomic_open(a, dir, "summary.csv", e);
  FILE *js = sum ? ts_atomic_open(a, dir, "summary.json", e) : NULL;
  if (!js || (!samples && ts_atomic_remove(a, dir, "samples.csv", e))) {
    ts_atomic_abort(a);
    return -1;
  }
  ts_report_summary_csv(sum, sc, s, b);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "tssim_version", TSSIM_VERSION);
  cJSON_AddStringToObject(root, "scenario", sc->name);
  cJSON_AddStringToObject(root, "scenario_file", sc->file);
  cJSON_AddStringToObject(root, "model_file", sc->model_path);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)sc->seed);
  cJSON_AddRawToObject(root, "seed", seed); /* exact: a double would round seeds above 2^53 */
  cJSON_AddNumberToObject(root, "replications", sc->replications);
  if (s->max_replications > sc->replications)
    cJSON_AddNumberToObject(root, "max_replications", s->max_replications);
  cJSON_AddNumberToObject(root, "events", (double)s->events);
  if (b)
    cJSON_AddStringToObject(root, "baseline_file", b->file);
  cJSON_AddItemToObject(root, "metrics", metrics_json(s));
  cJSON_AddItemToObject(root, "points", points_json(sc, s, b));
  cJSON_AddItemToObject(root, "model", cJSON_Duplicate(resolved, 1));
  char *text = cJSON_Print(root);
  cJSON_Delete(root);
  if (!text) {
    ts_atomic_abort(a);
    return ts_err_set(e, dir, NULL, "out of memory writing summary.json");
  }
  fputs(text, js);
  fputc('\n', js);
  cJSON_free(text);
  return 0;
}
