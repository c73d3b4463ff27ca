#include "fit/param.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"

/* 1 when path is top-level key or below it. */
static int under(const char *path, const char *key)
{
  size_t len = strlen(key);
  return strncmp(path, key, len) == 0 && (path[len] == '\0' || path[len] == '.' || path[len] == '[');
}

/* 1 when one of the overrides "PATH=VALUE" sets exactly this path. */
static int is_pinned(const char *path, const char *const *sets, int nsets)
{
  size_t len = strlen(path);
  for (int i = 0; i < nsets; i++)
    if (strncmp(sets[i], path, len) == 0 && sets[i][len] == '=')
      return 1;
  return 0;
}

/* Read free[i] into p. A pinned parameter (set by --set) skips the start checks. */
static int read_one(ts_jctx *c, cJSON *root, const cJSON *jp, const char *const *sets, int nsets, ts_fit_param *p,
                    int *pinned_out, ts_err *e)
{
  static const char *const keys[] = {"name", "path", "min", "max", "start", "note", NULL};
  const char *name, *path, *note = NULL;
  if (!cJSON_IsObject(jp))
    return ts_jfail_got(c, NULL, jp, e, "expected {\"name\": ..., \"path\": ..., \"min\": ..., \"max\": ...}");
  if (ts_jcheck_keys(c, jp, keys, e) || ts_jget_string(c, jp, "name", 1, &name, e) ||
      ts_jget_string(c, jp, "path", 1, &path, e) || ts_jget_string(c, jp, "note", 0, &note, e) ||
      ts_jget_number(c, jp, "min", 1, -1e300, 1e300, &p->min, e) ||
      ts_jget_number(c, jp, "max", 1, -1e300, 1e300, &p->max, e))
    return -1;
  if (!*name)
    return ts_jfail(c, "name", e, "expected a non-empty name");
  size_t len = ts_jpush_key(c, "path");
  int bad = ts_json_path_check(c->file, c->path, path, e); /* classes[0]count: malformed, said as --set says it */
  ts_jpop(c, len);
  if (bad)
    return -1;
  const cJSON *at = *path ? ts_json_get_path(root, path) : NULL;
  if (!at)
    return ts_jfail(c, "path", e, "\"%s\" is not in the model (expected a dotted path to a number, e.g. params.%s)",
                    path, name);
  if (under(path, "free") || under(path, "provenance"))
    return ts_jfail(c, "path", e, "\"%s\" is not a model value (expected a path like params.%s)", path, name);
  int pinned = *pinned_out = is_pinned(path, sets, nsets);
  if (!(p->min < p->max))
    return ts_jfail(c, NULL, e, "expected min < max, got min %g and max %g", p->min, p->max);
  const cJSON *js = cJSON_GetObjectItemCaseSensitive(jp, "start");
  if (js && !cJSON_IsNumber(js))
    return ts_jfail_got(c, "start", js, e, "expected a number within [min, max] = [%g, %g]", p->min, p->max);
  if (js)
    p->start = js->valuedouble;
  else if (cJSON_IsNumber(at))
    p->start = at->valuedouble;
  else if (!pinned)
    return ts_jfail(c, "path", e, "%s holds no number to start from: give \"start\"", path);
  if (!pinned && !(p->start >= p->min && p->start <= p->max)) {
    if (js)
      return ts_jfail(c, "start", e, "%g is outside [min, max] = [%g, %g]", p->start, p->min, p->max);
    return ts_jfail(c, "path", e, "the value at %s, %g, is outside [min, max] = [%g, %g]: give \"start\"", path,
                    p->start, p->min, p->max);
  }
  p->name = strdup(name);
  p->path = strdup(path);
  p->note = note ? strdup(note) : NULL;
  if (!p->name || !p->path || (note && !p->note))
    return ts_jfail(c, NULL, e, "out of memory");
  return 0;
}

/* Names and paths must be distinct: two names for one value would fight. */
static int check_distinct(ts_jctx *c, const cJSON *arr, ts_err *e)
{
  int n = cJSON_GetArraySize(arr);
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      const cJSON *a = cJSON_GetArrayItem(arr, i), *b = cJSON_GetArrayItem(arr, j);
      static const char *const what[] = {"name", "path"};
      for (int k = 0; k < 2; k++)
        if (!strcmp(cJSON_GetObjectItemCaseSensitive(a, what[k])->valuestring,
                    cJSON_GetObjectItemCaseSensitive(b, what[k])->valuestring)) {
          size_t old = ts_jpush_index(c, i);
          ts_jfail(c, what[k], e, "same %s as free[%d]", what[k], j);
          ts_jpop(c, old);
          return -1;
        }
    }
  return 0;
}

int ts_fit_params_read(cJSON *root, const char *file, const char *const *sets, int nsets, ts_fit_params *ps,
                       ts_err *e)
{
  ts_jctx c = {.file = file};
  const cJSON *arr = NULL;
  memset(ps, 0, sizeof *ps);
  if (!cJSON_IsObject(root))
    return ts_jfail_got(&c, NULL, root, e, "expected a model object");
  if (ts_jget_array(&c, root, "free", 0, &arr, e))
    return -1;
  int n = arr ? cJSON_GetArraySize(arr) : 0;
  if (n == 0)
    return ts_jfail(&c, "free", e, "%s: a model to calibrate lists its free parameters, e.g. \"free\": "
                    "[{\"name\": \"c_ms\", \"path\": \"params.c_ms\", \"min\": 1, \"max\": 1000}]",
                    arr ? "empty" : "missing");
  ps->p = calloc((size_t)n, sizeof *ps->p);
  ps->pinned = calloc((size_t)n, sizeof *ps->pinned);
  if (!ps->p || !ps->pinned) {
    ts_fit_params_finish(ps);
    return ts_jfail(&c, "free", e, "out of memory");
  }
  size_t base = ts_jpush_key(&c, "free");
  for (int i = 0; i < n; i++) {
    ts_fit_param p = {.index = i};
    size_t old = ts_jpush_index(&c, i);
    int pinned = 0;
    int bad = read_one(&c, root, cJSON_GetArrayItem(arr, i), sets, nsets, &p, &pinned, e);
    ts_jpop(&c, old);
    if (!bad && pinned) {
      ps->pinned[ps->npinned++] = p.name;
      p.name = NULL;
      free(p.path);
      free(p.note);
    } else {
      ps->p[ps->n++] = p;
    }
    if (bad) {
      ts_fit_params_finish(ps);
      return -1;
    }
  }
  int bad = check_distinct(&c, arr, e);
  ts_jpop(&c, base);
  if (!bad && ps->n == 0)
    bad = ts_jfail(&c, "free", e, "every free parameter is pinned by --set: nothing left to fit");
  if (bad)
    ts_fit_params_finish(ps);
  return bad ? -1 : 0;
}

void ts_fit_params_finish(ts_fit_params *ps)
{
  if (!ps)
    return;
  for (size_t i = 0; i < ps->n; i++) {
    free(ps->p[i].name);
    free(ps->p[i].path);
    free(ps->p[i].note);
  }
  for (size_t i = 0; i < ps->npinned; i++)
    free(ps->pinned[i]);
  free(ps->p);
  free(ps->pinned);
  memset(ps, 0, sizeof *ps);
}
