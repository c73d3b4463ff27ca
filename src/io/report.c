#include "io/report.h"

#include <math.h>
#include <string.h>

#include "io/atomic.h"
#include "run/metrics.h"

int ts_report_main_class(const ts_model *m)
{
  for (size_t k = 0; k < m->nclasses; k++)
    if (m->classes[k].count == TS_COUNT_N)
      return (int)k;
  return 0;
}

/* Smallest n of the sweep (workers, class) or of the baseline's metric at workers. */
static int sweep_base_n(const ts_sweep *s, const ts_point *p)
{
  int base = p->n;
  for (size_t i = 0; i < s->npoints; i++)
    if (s->points[i].workers == p->workers && s->points[i].klass == p->klass && s->points[i].n < base)
      base = s->points[i].n;
  return base;
}

static int baseline_base_n(const ts_baseline *b, int workers, int metric)
{
  int base = -1;
  for (size_t i = 0; i < b->nrec; i++)
    if (b->rec[i].workers == workers && b->rec[i].metric == metric && (base < 0 || b->rec[i].n < base))
      base = b->rec[i].n;
  return base;
}

/* The recorded value to print beside point p's metric, if any. A recorded
 * ratio is only comparable when the sweep's smallest n is the baseline's. */
static int recorded(const ts_model *m, const ts_baseline *b, const ts_sweep *s, const ts_point *p, int metric,
                    double *v)
{
  if (!b || p->klass != ts_report_main_class(m))
    return 0;
  if (metric == TS_M_WAVE_RATIO && sweep_base_n(s, p) != baseline_base_n(b, p->workers, metric))
    return 0;
  return ts_baseline_find(b, p->n, p->workers, metric, v);
}

static int baseline_has(const ts_baseline *b, int metric)
{
  for (size_t i = 0; b && i < b->nrec; i++)
    if (b->rec[i].metric == metric)
      return 1;
  return 0;
}

static const int table_metrics[] = {TS_M_WAVE_MS, TS_M_WAVE_RATIO, TS_M_PER_GROUP_CPU_MS, TS_M_LOCK_WAIT_MS,
                                    TS_M_LOCK_WORK_MS, TS_M_QUEUE_WAIT_MS, TS_M_SLICES};

static int width(int metric)
{
  int w = (int)strlen(ts_metric_get(metric)->name);
  return w > 9 ? w : 9;
}

void ts_report_table(FILE *out, const ts_model *m, const ts_sweep *s, const ts_baseline *b)
{
  size_t nm = sizeof table_metrics / sizeof *table_metrics;
  int classes = m->nclasses > 1;
  fprintf(out, "%6s %7s", "n", "workers");
  if (classes)
    fprintf(out, " %-12s", "class");
  for (size_t i = 0; i < nm; i++) {
    fprintf(out, "  %*s", width(table_metrics[i]), ts_metric_get(table_metrics[i])->name);
    if (baseline_has(b, table_metrics[i]))
      fprintf(out, " %9s %7s", "recorded", "err");
  }
  fputc('\n', out);
  for (size_t p = 0; p < s->npoints; p++) {
    const ts_point *pt = &s->points[p];
    fprintf(out, "%6d %7d", pt->n, pt->workers);
    if (classes)
      fprintf(out, " %-12.12s", m->classes[pt->klass].name);
    for (size_t i = 0; i < nm; i++) {
      int mi = table_metrics[i], digits = mi == TS_M_WAVE_RATIO ? 3 : mi == TS_M_SLICES ? 0 : 1;
      double v = pt->value[mi], r;
      fprintf(out, "  %*.*f", width(mi), digits, v);
      if (!baseline_has(b, mi))
        continue;
      if (recorded(m, b, s, pt, mi, &r))
        fprintf(out, " %9.*f %+6.1f%%", digits, r, r != 0 ? 100 * (v - r) / r : 0.0);
      else
        fprintf(out, " %9s %7s", "-", "-");
    }
    fputc('\n', out);
  }
}

void ts_report_summary_csv(FILE *f, const ts_model *m, const ts_sweep *s, const ts_baseline *b)
{
  fprintf(f, "n,workers,class,replications,samples");
  for (int mi = 0; mi < TS_M_COUNT; mi++)
    fprintf(f, ",%s", ts_metric_get(mi)->name);
  for (int mi = 0; mi < TS_M_COUNT; mi++)
    if (baseline_has(b, mi))
      fprintf(f, ",recorded_%s,err_%s", ts_metric_get(mi)->name, ts_metric_get(mi)->name);
  fputc('\n', f);
  for (size_t p = 0; p < s->npoints; p++) {
    const ts_point *pt = &s->points[p];
    fprintf(f, "%d,%d,%s,%d,%zu", pt->n, pt->workers, m->classes[pt->klass].name, pt->replications, pt->samples);
    for (int mi = 0; mi < TS_M_COUNT; mi++)
      fprintf(f, ",%.6f", pt->value[mi]);
    for (int mi = 0; mi < TS_M_COUNT; mi++) {
      double r;
      if (!baseline_has(b, mi))
        continue;
      if (recorded(m, b, s, pt, mi, &r))
        fprintf(f, ",%.6f,%.6f", r, r != 0 ? (pt->value[mi] - r) / r : 0.0);
      else
        fprintf(f, ",,");
    }
    fputc('\n', f);
  }
}

static void samples_csv(FILE *f, const ts_model *m, const ts_sweep *s)
{
  fprintf(f, "replication,n,workers,actor,class,worker,arrive_ms,wave_ms,per_group_cpu_ms,cpu_ms,"
             "queue_wait_ms,ready_wait_ms,io_ms,lock_wait_ms,lock_work_ms,slices,yields,done_ms\n");
  for (size_t i = 0; i < s->nsamples; i++) {
    const ts_sample *x = &s->samples[i];
    const ts_actor_stats *a = &x->st;
    fprintf(f, "%d,%d,%d,%d,%s,%d,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%.6f,%lld,%lld,%.6f\n", x->replication,
            x->n, x->workers, a->actor, m->classes[a->klass].name, a->worker, ts_time_to_ms(a->arrive),
            ts_time_to_ms(a->wave_end - a->wave_start), ts_time_to_ms(a->timer), ts_time_to_ms(a->cpu),
            ts_time_to_ms(a->queue_wait), ts_time_to_ms(a->ready_wait), ts_time_to_ms(a->io),
            ts_time_to_ms(a->lock_wait), ts_time_to_ms(a->lock_work), (long long)a->slices, (long long)a->yields,
            ts_time_to_ms(a->done));
  }
}

static cJSON *points_json(const ts_model *m, const ts_sweep *s, const ts_baseline *b)
{
  cJSON *arr = cJSON_CreateArray();
  for (size_t p = 0; arr && p < s->npoints; p++) {
    const ts_point *pt = &s->points[p];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", pt->n);
    cJSON_AddNumberToObject(o, "workers", pt->workers);
    cJSON_AddStringToObject(o, "class", m->classes[pt->klass].name);
    cJSON_AddNumberToObject(o, "replications", pt->replications);
    cJSON_AddNumberToObject(o, "samples", (double)pt->samples);
    for (int mi = 0; mi < TS_M_COUNT; mi++) {
      double r;
      cJSON_AddNumberToObject(o, ts_metric_get(mi)->name, pt->value[mi]);
      if (recorded(m, b, s, pt, mi, &r)) {
        char key[64];
        snprintf(key, sizeof key, "recorded_%s", ts_metric_get(mi)->name);
        cJSON_AddNumberToObject(o, key, r);
      }
    }
    cJSON_AddItemToArray(arr, o);
  }
  return arr;
}

int ts_report_write(const char *dir, const ts_scenario *sc, const ts_model *m, const cJSON *resolved,
                    const ts_sweep *s, const ts_baseline *b, ts_err *e)
{
  ts_atomic a;
  ts_atomic_init(&a);
  if (ts_report_add(&a, dir, sc, m, resolved, s, b, e))
    return -1;
  return ts_atomic_commit(&a, e);
}

int ts_report_add(ts_atomic *a, const char *dir, const ts_scenario *sc, const ts_model *m, const cJSON *resolved,
                  const ts_sweep *s, const ts_baseline *b, ts_err *e)
{
  if (ts_mkdirs(dir, e)) {
    ts_atomic_abort(a);
    return -1;
  }
  FILE *sum = ts_atomic_open(a, dir, "summary.csv", e);
  FILE *smp = sum ? ts_atomic_open(a, dir, "samples.csv", e) : NULL;
  FILE *js = smp ? ts_atomic_open(a, dir, "summary.json", e) : NULL;
  if (!js) {
    ts_atomic_abort(a);
    return -1;
  }
  ts_report_summary_csv(sum, m, s, b);
  samples_csv(smp, m, s);
  cJSON *root = cJSON_CreateObject();
  cJSON_AddStringToObject(root, "tssim_version", TSSIM_VERSION);
  cJSON_AddStringToObject(root, "scenario", sc->name);
  cJSON_AddStringToObject(root, "scenario_file", sc->file);
  cJSON_AddStringToObject(root, "model_file", sc->model_path);
  char seed[32];
  snprintf(seed, sizeof seed, "%llu", (unsigned long long)sc->seed);
  cJSON_AddRawToObject(root, "seed", seed); /* exact: a double would round seeds above 2^53 */
  cJSON_AddNumberToObject(root, "replications", sc->replications);
  cJSON_AddNumberToObject(root, "events", (double)s->events);
  if (b)
    cJSON_AddStringToObject(root, "baseline_file", b->file);
  cJSON_AddItemToObject(root, "points", points_json(m, s, b));
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
