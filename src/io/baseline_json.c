#include "io/baseline_json.h"

#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/suggest.h"
#include "run/metrics.h"

static int add(ts_baseline *b, int n, int workers, int metric, double value, double weight)
{
  ts_record *r = realloc(b->rec, (b->nrec + 1) * sizeof *r);
  if (!r)
    return -1;
  b->rec = r;
  b->rec[b->nrec++] = (ts_record){n, workers, metric, value, weight};
  return 0;
}

static int load_point(ts_jctx *c, const cJSON *p, int scaling_layout, ts_baseline *b, ts_err *e)
{
  long n, workers = 1;
  double weight = 1;
  const cJSON *metrics = p, *it;
  if (!cJSON_IsObject(p))
    return ts_jfail(c, NULL, e, "expected an object with n and metrics");
  if (ts_jget_int(c, p, "n", 1, 1, TS_MAX_ACTORS, &n, e) ||
      ts_jget_int(c, p, "workers", 0, 1, TS_MAX_WORKERS, &workers, e))
    return -1;
  if (!scaling_layout) {
    static const char *const keys[] = {"n", "workers", "metrics", "weight", "note", NULL};
    if (ts_jcheck_keys(c, p, keys, e) || ts_jget_object(c, p, "metrics", 1, &metrics, e) ||
        ts_jget_number(c, p, "weight", 0, 0, 1e6, &weight, e))
      return -1;
  }
  cJSON_ArrayForEach(it, metrics)
  {
    if (scaling_layout && (!strcmp(it->string, "n") || !strcmp(it->string, "workers") ||
                           !strcmp(it->string, "samples") || !cJSON_IsNumber(it)))
      continue;
    int m = ts_metric_find(it->string);
    if (m < 0) {
      if (scaling_layout)
        continue;
      const char *names[TS_M_COUNT + 1] = {NULL};
      for (int k = 0; k < TS_M_COUNT; k++)
        names[k] = ts_metric_get((ts_metric)k)->name;
      const char *near = ts_suggest(it->string, names);
      size_t old = ts_jpush_key(c, "metrics");
      if (near)
        ts_jfail(c, it->string, e, "unknown metric; did you mean \"%s\"? (see `tssim run --help`)", near);
      else
        ts_jfail(c, it->string, e, "unknown metric (see `tssim run --help` for the metric names)");
      ts_jpop(c, old);
      return -1;
    }
    double v;
    size_t old = scaling_layout ? strlen(c->path) : ts_jpush_key(c, "metrics");
    int bad = ts_jget_number(c, metrics, it->string, 1, 0, 1e15, &v, e);
    ts_jpop(c, old);
    if (bad)
      return -1;
    if (add(b, (int)n, (int)workers, m, v, weight))
      return ts_jfail(c, NULL, e, "out of memory");
  }
  return 0;
}

int ts_baseline_from_json(const cJSON *root, const char *path, ts_baseline *b, ts_err *e)
{
  memset(b, 0, sizeof *b);
  ts_jctx c = {.file = path};
  const cJSON *pts = NULL;
  int scaling = 0, rc = -1;
  if (!cJSON_IsObject(root)) {
    ts_jfail(&c, NULL, e, "expected a baseline object with \"points\" (or \"scaling\")");
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
  TS_JARRAY_EACH(i, pt, pts) {
    size_t old = ts_jpush_key(&c, scaling ? "scaling" : "points");
    ts_jpush_index(&c, i);
    int bad = load_point(&c, pt, scaling, b, e);
    ts_jpop(&c, old);
    if (bad)
      goto out;
  }
  if (b->nrec == 0) {
    ts_jfail(&c, scaling ? "scaling" : "points", e, "no recorded metric tssim knows");
    goto out;
  }
  size_t len = strlen(path) + 1;
  b->file = malloc(len);
  if (b->file)
    memcpy(b->file, path, len);
  rc = 0;
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

void ts_baseline_finish(ts_baseline *b)
{
  if (!b)
    return;
  free(b->file);
  free(b->rec);
  memset(b, 0, sizeof *b);
}

int ts_baseline_find(const ts_baseline *b, int n, int workers, int metric, double *value)
{
  for (size_t i = 0; b && i < b->nrec; i++)
    if (b->rec[i].n == n && b->rec[i].workers == workers && b->rec[i].metric == metric) {
      *value = b->rec[i].value;
      return 1;
    }
  return 0;
}
