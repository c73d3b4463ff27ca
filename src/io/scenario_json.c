#include "io/scenario_json.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/jsonfile.h"
#include "io/model_json.h"

char *ts_path_relative_to(const char *base, const char *rel)
{
  if (rel[0] == '/')
    return strdup(rel);
  const char *slash = strrchr(base, '/');
  size_t dl = slash ? (size_t)(slash - base) : 0; /* base's folder, without its slash */
  /* fold "dir/../x" into "x" while the folder's last part is a plain name */
  while (dl > 0 && strncmp(rel, "../", 3) == 0) {
    size_t start = dl;
    while (start > 0 && base[start - 1] != '/')
      start--;
    size_t part = dl - start;
    if ((part == 2 && strncmp(base + start, "..", 2) == 0) || (part == 1 && base[start] == '.'))
      break;
    rel += 3;
    dl = start > 0 ? start - 1 : 0;
    if (start == 0)
      break; /* folded the whole folder: rel is relative to the current one */
  }
  char *out = malloc(dl + strlen(rel) + 2);
  if (!out)
    return NULL;
  if (dl > 0 || (slash && dl == 0 && base[0] == '/'))
    snprintf(out, dl + strlen(rel) + 2, "%.*s/%s", (int)dl, base, rel);
  else
    strcpy(out, rel);
  return out;
}

int ts_parse_seed(const char *text, uint64_t *out, ts_err *e)
{
  char *end;
  errno = 0;
  unsigned long long s = strtoull(text, &end, 10);
  if (end == text || *end || text[0] == '-' || errno || s > TS_SEED_MAX)
    return ts_err_set(e, "--seed", NULL, "expected an integer in [0, %llu], got \"%s\"",
                      (unsigned long long)TS_SEED_MAX, text);
  *out = s;
  return 0;
}

int ts_parse_int_list(const char *text, const char *what, long lo, long hi, int **out, size_t *len, ts_err *e)
{
  size_t cap = 1;
  for (const char *p = text; *p; p++)
    cap += *p == ',';
  int *v = malloc(cap * sizeof *v);
  if (!v)
    return ts_err_set(e, what, NULL, "out of memory");
  size_t n = 0;
  const char *p = text;
  while (*p) {
    char *end;
    long x = strtol(p, &end, 10);
    if (end == p || (*end && *end != ',') || x < lo || x > hi) {
      free(v);
      return ts_err_set(e, what, NULL, "expected a comma-separated list of integers in [%ld, %ld], got \"%s\"",
                        lo, hi, text);
    }
    v[n++] = (int)x;
    p = *end ? end + 1 : end;
    if (*end == ',' && *p == '\0') { /* a trailing comma */
      free(v);
      return ts_err_set(e, what, NULL, "expected a comma-separated list of integers in [%ld, %ld], got \"%s\"",
                        lo, hi, text);
    }
  }
  if (n == 0) {
    free(v);
    return ts_err_set(e, what, NULL, "expected at least one integer");
  }
  *out = v;
  *len = n;
  return 0;
}

static int int_array(ts_jctx *c, const cJSON *root, const char *key, long lo, long hi, int **out, size_t *len,
                     ts_err *e)
{
  const cJSON *a;
  if (ts_jget_array(c, root, key, 1, &a, e))
    return -1;
  int n = cJSON_GetArraySize(a);
  if (n == 0 || n > 1000)
    return ts_jfail(c, key, e, "expected 1 to 1000 integers in [%ld, %ld]", lo, hi);
  *out = malloc((size_t)n * sizeof **out);
  if (!*out)
    return ts_jfail(c, key, e, "out of memory");
  *len = (size_t)n;
  TS_JARRAY_EACH(i, x, a) {
    if (!cJSON_IsNumber(x) || x->valuedouble < (double)lo || x->valuedouble > (double)hi ||
        x->valuedouble != floor(x->valuedouble)) {
      size_t old = ts_jpush_key(c, key);
      ts_jpush_index(c, i);
      ts_jfail(c, NULL, e, "expected an integer in [%ld, %ld]", lo, hi);
      ts_jpop(c, old);
      return -1;
    }
    (*out)[i] = (int)x->valuedouble;
  }
  return 0;
}

static int load_sets(ts_jctx *c, const cJSON *root, ts_scenario *s, ts_err *e)
{
  const cJSON *set = NULL, *it;
  if (ts_jget_object(c, root, "set", 0, &set, e))
    return -1;
  if (!set)
    return 0;
  int n = cJSON_GetArraySize(set);
  s->sets = calloc((size_t)n + 1, sizeof *s->sets);
  if (!s->sets)
    return ts_jfail(c, "set", e, "out of memory");
  cJSON_ArrayForEach(it, set)
  {
    char *v = cJSON_PrintUnformatted(it);
    size_t len = strlen(it->string) + (v ? strlen(v) : 0) + 2;
    char *kv = malloc(len);
    if (!v || !kv) {
      free(v);
      free(kv);
      return ts_jfail(c, "set", e, "out of memory");
    }
    snprintf(kv, len, "%s=%s", it->string, v);
    free(v);
    s->sets[s->nsets++] = kv;
  }
  return 0;
}

int ts_scenario_from_json(const cJSON *root, const char *path, ts_scenario *s, ts_err *e)
{
  static const char *const keys[] = {"name", "description", "model", "baseline", "n", "workers",
                                     "replications", "seed", "set", "notes", NULL};
  memset(s, 0, sizeof *s);
  ts_jctx c = {.file = path};
  const char *name = NULL, *model, *baseline = NULL, *desc = "";
  long reps = 1;
  double seed = 1;
  int rc = -1;
  if (!cJSON_IsObject(root)) {
    ts_jfail(&c, NULL, e, "expected a scenario object");
    goto out;
  }
  if (ts_jcheck_keys(&c, root, keys, e) || ts_jget_string(&c, root, "name", 1, &name, e) ||
      ts_jget_string(&c, root, "description", 0, &desc, e) || ts_jget_string(&c, root, "model", 1, &model, e) ||
      ts_jget_string(&c, root, "baseline", 0, &baseline, e) ||
      int_array(&c, root, "n", 0, TS_MAX_ACTORS, &s->ns, &s->nn, e) ||
      int_array(&c, root, "workers", 1, TS_MAX_WORKERS, &s->workers, &s->nw, e) ||
      ts_jget_int(&c, root, "replications", 0, 1, 100000, &reps, e) ||
      ts_jget_number(&c, root, "seed", 0, 0, (double)TS_SEED_MAX, &seed, e) || load_sets(&c, root, s, e))
    goto out;
  if (seed != floor(seed)) { /* already within [0, TS_SEED_MAX] */
    ts_jfail(&c, "seed", e, "expected an integer in [0, %llu]", (unsigned long long)TS_SEED_MAX);
    goto out;
  }
  if (strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(name) ||
      !*name || name[0] == '.') {
    ts_jfail(&c, "name", e, "expected letters, digits, '-', '_' or '.' (it names the results folder)");
    goto out;
  }
  s->file = strdup(path);
  s->name = strdup(name);
  s->description = strdup(desc);
  s->model_path = ts_path_relative_to(path, model);
  s->baseline_path = baseline ? ts_path_relative_to(path, baseline) : NULL;
  if (!s->file || !s->name || !s->description || !s->model_path || (baseline && !s->baseline_path)) {
    ts_jfail(&c, NULL, e, "out of memory");
    goto out;
  }
  if (access(s->model_path, R_OK) != 0) {
    ts_jfail(&c, "model", e, "cannot read \"%s\" (%s, relative to the scenario's folder): %s", model, s->model_path,
             strerror(errno));
    goto out;
  }
  if (baseline && access(s->baseline_path, R_OK) != 0) {
    ts_jfail(&c, "baseline", e, "cannot read \"%s\" (%s, relative to the scenario's folder): %s", baseline,
             s->baseline_path, strerror(errno));
    goto out;
  }
  s->replications = (int)reps;
  s->seed = (uint64_t)seed;
  rc = 0;
out:
  if (rc)
    ts_scenario_finish(s);
  return rc;
}

int ts_scenario_load(const char *path, ts_scenario *s, ts_err *e)
{
  cJSON *root;
  memset(s, 0, sizeof *s);
  if (ts_json_load(path, &root, e))
    return -1;
  int rc = ts_scenario_from_json(root, path, s, e);
  cJSON_Delete(root);
  return rc;
}

void ts_scenario_finish(ts_scenario *s)
{
  if (!s)
    return;
  for (int i = 0; i < s->nsets; i++)
    free(s->sets[i]);
  free(s->sets);
  free(s->file);
  free(s->name);
  free(s->description);
  free(s->model_path);
  free(s->baseline_path);
  free(s->ns);
  free(s->workers);
  memset(s, 0, sizeof *s);
}
