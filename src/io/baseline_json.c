#include "io/baseline_json.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "run/suggest.h"
#include "run/metrics.h"

static int add(ts_baseline *b, int n, int workers, const char *metric, double value, double weight,
               const cJSON *axes, const char *where)
{
  ts_record *r = realloc(b->rec, (b->nrec + 1) * sizeof *r);
  if (!r)
    return -1;
  b->rec = r;
  ts_record *x = &b->rec[b->nrec];
  *x = (ts_record){.n = n, .workers = workers, .value = value, .weight = weight};
  x->metric = strdup(metric);
  x->where = strdup(where);
  b->nrec++;
  if (!x->metric || !x->where)
    return -1;
  const cJSON *it;
  int k = 0;
  if (axes)
    cJSON_ArrayForEach(it, axes) k++;
  if (k == 0)
    return 0;
  x->axes = calloc((size_t)k * 2, sizeof *x->axes);
  if (!x->axes)
    return -1;
  cJSON_ArrayForEach(it, axes)
  {
    x->axes[2 * x->naxes] = strdup(it->string);
    x->axes[2 * x->naxes + 1] = strdup(it->valuestring);
    x->naxes++;
    if (!x->axes[2 * x->naxes - 2] || !x->axes[2 * x->naxes - 1])
      return -1;
  }
  return 0;
}

static int load_axes(ts_jctx *c, const cJSON *p, const cJSON **axes, ts_err *e)
{
  const cJSON *it;
  if (ts_jget_object(c, p, "axes", 0, axes, e))
    return -1;
  if (*axes)
    cJSON_ArrayForEach(it, *axes) if (!cJSON_IsString(it))
    {
      size_t old = ts_jpush_key(c, "axes");
      ts_jfail_got(c, it->string, it, e, "expected the axis value as a string (a set's name, or the value as printed)");
      ts_jpop(c, old);
      return -1;
    }
  return 0;
}

/* Whether the shared layout's top-level "metrics" object (its fields'
 * descriptions) describes field name. */
static int described(const cJSON *described_fields, const char *name)
{
  return cJSON_IsObject(described_fields) && cJSON_GetObjectItemCaseSensitive(described_fields, name) != NULL;
}

static int load_point(ts_jctx *c, const cJSON *p, const cJSON *described_fields, int scaling_layout, ts_baseline *b,
                      ts_err *e)
{
  long n, workers = 1;
  double weight = 1;
  const cJSON *metrics = p, *axes = NULL, *it;
  if (!cJSON_IsObject(p))
    return ts_jfail_got(c, NULL, p, e, "expected an object with n and metrics");
  if (ts_jget_int(c, p, "n", 1, 1, TS_MAX_ACTORS, &n, e) ||
      ts_jget_int(c, p, "workers", 0, 1, TS_MAX_WORKERS, &workers, e))
    return -1;
  if (!scaling_layout) {
    static const char *const keys[] = {"n", "workers", "axes", "metrics", "weight", "note", NULL};
    if (ts_jcheck_keys(c, p, keys, e) || ts_jget_object(c, p, "metrics", 1, &metrics, e) ||
        ts_jget_number(c, p, "weight", 0, 0, 1e6, &weight, e) || load_axes(c, p, &axes, e))
      return -1;
  }
  cJSON_ArrayForEach(it, metrics)
  {
    /* (scaling: every field but n, workers, samples and note is a recorded
     * value, a number or null for not recorded) */
    if (scaling_layout && (!strcmp(it->string, "n") || !strcmp(it->string, "workers") ||
                           !strcmp(it->string, "samples") || cJSON_IsNull(it)))
      continue;
    if (strcmp(it->string, "note") == 0)
      continue;
    if (!*it->string || strspn(it->string, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(it->string)) {
      size_t old = scaling_layout ? strlen(c->path) : ts_jpush_key(c, "metrics");
      ts_jfail(c, it->string, e, "expected a metric name (lower-case letters, digits, '_')");
      ts_jpop(c, old);
      return -1;
    }
    double v;
    size_t old = scaling_layout ? strlen(c->path) : ts_jpush_key(c, "metrics");
    int bad = ts_jget_number(c, metrics, it->string, 1, 0, 1e15, &v, e);
    ts_jpop(c, old);
    if (bad)
      return -1;
    char where[600];
    snprintf(where, sizeof where, "%s%s%s.%s", c->path, scaling_layout ? "" : ".", scaling_layout ? "" : "metrics",
             it->string);
    if (add(b, (int)n, (int)workers, it->string, v, weight, axes, where))
      return ts_jfail(c, NULL, e, "out of memory");
    b->rec[b->nrec - 1].loose = scaling_layout && described(described_fields, it->string);
  }
  return 0;
}

/* Whether records a and b are at the same point: the same n, workers and
 * axis values (in any order). */
static int same_point(const ts_record *a, const ts_record *b)
{
  if (a->n != b->n || a->workers != b->workers || a->naxes != b->naxes)
    return 0;
  for (int k = 0; k < a->naxes; k++) {
    int found = 0;
    for (int j = 0; j < b->naxes && !found; j++)
      found = !strcmp(a->axes[2 * k], b->axes[2 * j]) && !strcmp(a->axes[2 * k + 1], b->axes[2 * j + 1]);
    if (!found)
      return 0;
  }
  return 1;
}

/* A record and its place in the file, for check_duplicates's sort. */
typedef struct placed {
  const ts_record *r;
  size_t i;
} placed;

/* qsort's order for check_duplicates: by metric, n, workers and number of
 * axes, then by place in the file. */
static int by_point(const void *x, const void *y)
{
  const placed *p = x, *q = y;
  const ts_record *a = p->r, *b = q->r;
  int c = strcmp(a->metric, b->metric);
  if (!c)
    c = a->n != b->n ? (a->n < b->n ? -1 : 1) : a->workers != b->workers ? (a->workers < b->workers ? -1 : 1)
      : a->naxes != b->naxes ? (a->naxes < b->naxes ? -1 : 1) : 0;
  return c ? c : (p->i > q->i) - (p->i < q->i);
}

/* Refuse a metric recorded twice at one point: ts_baseline_find reads the
 * first, so the second would be fitted by calibrate and ignored by run. The
 * message names the repeat that comes first in the file. */
static int check_duplicates(const ts_baseline *b, const char *path, ts_err *e)
{
  placed *ix = malloc((b->nrec ? b->nrec : 1) * sizeof *ix);
  size_t dup = SIZE_MAX, first = 0;
  if (!ix)
    return ts_err_set(e, path, NULL, "out of memory");
  for (size_t i = 0; i < b->nrec; i++)
    ix[i] = (placed){&b->rec[i], i};
  qsort(ix, b->nrec, sizeof *ix, by_point);
  /* records of one metric at one (n, workers) with as many axes are
   * neighbours; compare those pairwise (few: one per axis value) */
  for (size_t g = 0, end; g < b->nrec; g = end) {
    for (end = g + 1; end < b->nrec && by_point(&(placed){ix[g].r, 0}, &(placed){ix[end].r, 0}) == 0; end++)
      ;
    for (size_t k = g + 1; k < end; k++)
      for (size_t f = g; f < k && ix[k].i < dup; f++)
        if (same_point(ix[f].r, ix[k].r)) {
          dup = ix[k].i;
          first = ix[f].i;
        }
  }
  free(ix);
  if (dup == SIZE_MAX)
    return 0;
  const ts_record *r = &b->rec[dup], *f = &b->rec[first];
  /* the first's point: its path up to the index's ']' */
  const char *close = strchr(f->where, ']');
  int len = close ? (int)(close - f->where + 1) : (int)strlen(f->where);
  return ts_err_set(e, path, r->where, "%s at n=%d, workers=%d%s is recorded twice: %.*s records it first "
                    "(expected one record per metric and point)", r->metric, r->n, r->workers,
                    r->naxes ? " with the same axes" : "", len, f->where);
}

int ts_baseline_from_json(const cJSON *root, const char *path, ts_baseline *b, ts_err *e)
{
  memset(b, 0, sizeof *b);
  ts_jctx c = {.file = path};
  const cJSON *pts = NULL, *it;
  int scaling = 0, rc = -1, i = 0;
  if (!cJSON_IsObject(root)) {
    ts_jfail_got(&c, NULL, root, e, "expected a baseline object with \"points\" (or \"scaling\")");
    goto out;
  }
  if (ts_jget_array(&c, root, "points", 0, &pts, e))
    goto out;
  if (!pts) {
    if (ts_jget_array(&c, root, "scaling", 0, &pts, e))
      goto out;
    scaling = 1;
  }
  if (!pts) {
    ts_jfail(&c, "points", e, "missing: a baseline needs \"points\" (or \"scaling\")");
    goto out;
  }
  cJSON_ArrayForEach(it, pts)
  {
    size_t old = ts_jpush_key(&c, scaling ? "scaling" : "points");
    ts_jpush_index(&c, i++);
    int bad = load_point(&c, it, cJSON_GetObjectItemCaseSensitive(root, "metrics"), scaling, b, e);
    ts_jpop(&c, old);
    if (bad)
      goto out;
  }
  if (b->nrec == 0) {
    ts_jfail(&c, scaling ? "scaling" : "points", e, "expected at least one recorded value, got none");
    goto out;
  }
  if (check_duplicates(b, path, e))
    goto out;
  b->file = strdup(path);
  rc = b->file ? 0 : ts_jfail(&c, NULL, e, "out of memory");
out:
  if (rc)
    ts_baseline_finish(b);
  return rc;
}

int ts_baseline_load(const char *path, ts_baseline *b, ts_err *e)
{
  cJSON *root;
  memset(b, 0, sizeof *b);
  if (ts_json_load(path, &root, e))
    return -1;
  int rc = ts_baseline_from_json(root, path, b, e);
  cJSON_Delete(root);
  return rc;
}

static void free_record(ts_record *r)
{
  free(r->metric);
  free(r->where);
  for (int k = 0; k < 2 * r->naxes; k++)
    free(r->axes[k]);
  free(r->axes);
}

void ts_baseline_finish(ts_baseline *b)
{
  if (!b)
    return;
  for (size_t i = 0; i < b->nrec; i++)
    free_record(&b->rec[i]);
  free(b->file);
  free(b->rec);
  memset(b, 0, sizeof *b);
}

int ts_record_matches(const ts_record *r, int n, int workers, const char *const *keys, const char *const *labels,
                      int naxes)
{
  if (r->n != n || r->workers != workers || r->naxes != naxes)
    return 0;
  for (int k = 0; k < r->naxes; k++) {
    int found = 0;
    for (int a = 0; a < naxes && !found; a++)
      found = strcmp(keys[a], r->axes[2 * k]) == 0 && strcmp(labels[a], r->axes[2 * k + 1]) == 0;
    if (!found)
      return 0;
  }
  return 1;
}

int ts_record_axis_value(const ts_record *r, const char *key, char *const *labels, int nlabels)
{
  int v = -1;
  for (int k = 0; k < r->naxes; k++)
    if (strcmp(r->axes[2 * k], key) == 0)
      for (int j = 0; j < nlabels; j++)
        if (strcmp(labels[j], r->axes[2 * k + 1]) == 0)
          v = j;
  return v;
}

int ts_baseline_find(const ts_baseline *b, int n, int workers, const char *const *keys, const char *const *labels,
                     int naxes, const char *metric, double *value)
{
  for (size_t i = 0; b && i < b->nrec; i++)
    if (strcmp(b->rec[i].metric, metric) == 0 && ts_record_matches(&b->rec[i], n, workers, keys, labels, naxes)) {
      *value = b->rec[i].value;
      return 1;
    }
  return 0;
}

int ts_baseline_reports(const void *list, const char *metric)
{
  return ts_metric_list_find(list, metric) >= 0;
}

void ts_baseline_keep(ts_baseline *b, int (*reports)(const void *ctx, const char *metric), const void *ctx)
{
  size_t k = 0;
  for (size_t i = 0; i < b->nrec; i++) {
    if (b->rec[i].loose && !reports(ctx, b->rec[i].metric))
      free_record(&b->rec[i]);
    else
      b->rec[k++] = b->rec[i];
  }
  b->nrec = k;
}

int ts_baseline_has(const ts_baseline *b, const char *metric)
{
  for (size_t i = 0; b && i < b->nrec; i++)
    if (strcmp(b->rec[i].metric, metric) == 0)
      return 1;
  return 0;
}

int ts_baseline_check_metrics(const ts_baseline *b, const ts_metric_list *l, const char *model, ts_err *e)
{
  for (size_t i = 0; i < b->nrec; i++) {
    const ts_record *r = &b->rec[i];
    if (r->loose || ts_metric_list_find(l, r->metric) >= 0)
      continue;
    const char **names = calloc(l->n + 1, sizeof *names);
    for (size_t k = 0; names && k < l->n; k++)
      names[k] = l->v[k].name;
    const char *near = names ? ts_suggest(r->metric, names) : NULL;
    char hint[160] = "";
    if (near)
      snprintf(hint, sizeof hint, "; did you mean \"%s\"?", near);
    free(names);
    return ts_err_set(e, b->file, r->where, "unknown metric: model %s does not report it%s (tssim run --help lists "
                      "the metrics; a model adds its spans' and its own%s)", model, hint,
                      strncmp(r->where, "scaling[", 8) == 0 ? "; a \"scaling\" field that the file's top-level "
                      "\"metrics\" object describes is left out for a model that does not report it" : "");
  }
  return 0;
}
