#include "io/scenario_json.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/paths.h"

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
    for (size_t j = 0; j < n; j++)
      if (v[j] == x) {
        free(v);
        return ts_err_set(e, what, NULL, "%ld appears twice in \"%s\": each value would repeat a row", x, text);
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

/* The array of distinct integers at root[key]; absent and not required: [lo]. */
/* The optional "seed": an integer in [0, TS_SEED_MAX] (beyond a long's
 * range on some hosts, so not ts_jget_int). 0, or -1 with e filled. */
/* The file the scenario's key names (given as written, at path): 0 when it
 * is a file tssim can read, else -1 with the scenario's key blamed. */
static int readable(ts_jctx *c, const char *key, const char *given, const char *path, ts_err *e)
{
  struct stat st;
  char from[PATH_MAX + 80] = "", near[PATH_MAX], hint[PATH_MAX + 40] = "";
  if (!path) /* (not when the scenario loaded: path is given joined to its folder) */
    path = given;
  if (strcmp(given, path) != 0) /* path is the scenario's folder joined with given: the path from here */
    snprintf(from, sizeof from, " (a path relative to the scenario's folder; from here: %s)", path);
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return ts_jfail(c, key, e, "\"%s\"%s is a directory, expected a JSON %s file", given, from, key);
  if (access(path, R_OK) != 0) {
    int err = errno;
    const char *slash = strrchr(given, '/'), *name = ts_path_near_file(path, near, sizeof near);
    if (err == ENOENT && name) { /* as given: its folder, the near name */
      const char *base = strrchr(name, '/');
      snprintf(hint, sizeof hint, "; did you mean \"%.*s%s\"?", slash ? (int)(slash + 1 - given) : 0, given,
               base ? base + 1 : name);
    }
    return ts_jfail(c, key, e, "cannot read \"%s\"%s: %s%s", given, from, strerror(err), hint);
  }
  return 0;
}

static int load_seed(ts_jctx *c, const cJSON *root, double *seed, ts_err *e)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "seed");
  if (!v)
    return 0;
  if (!cJSON_IsNumber(v))
    return ts_jfail_got(c, "seed", v, e, "expected an integer in [0, %llu]", (unsigned long long)TS_SEED_MAX);
  double d = v->valuedouble;
  if (!(d >= 0 && d <= (double)TS_SEED_MAX && d == floor(d)))
    return ts_jfail(c, "seed", e, "expected an integer in [0, %llu], got %.15g", (unsigned long long)TS_SEED_MAX, d);
  *seed = d;
  return 0;
}

static int int_array(ts_jctx *c, const cJSON *root, const char *key, int required, long lo, long hi, int **out,
                     size_t *len, ts_err *e)
{
  const cJSON *a = NULL;
  if (ts_jget_array(c, root, key, required, &a, e))
    return -1;
  if (!a) {
    if (!(*out = malloc(sizeof **out)))
      return ts_jfail(c, key, e, "out of memory");
    **out = (int)lo;
    *len = 1;
    return 0;
  }
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
      if (cJSON_IsNumber(x))
        ts_jfail(c, NULL, e, "expected an integer in [%ld, %ld], got %s", lo, hi, TS_JNUM(x->valuedouble));
      else
        ts_jfail_got(c, NULL, x, e, "expected an integer in [%ld, %ld]", lo, hi);
      ts_jpop(c, old);
      return -1;
    }
    (*out)[i] = (int)x->valuedouble;
    for (int j = 0; j < i; j++)
      if ((*out)[j] == (*out)[i]) {
        size_t old = ts_jpush_key(c, key);
        ts_jpush_index(c, i);
        ts_jfail(c, NULL, e, "%d is already %s[%d]: each value would repeat a row", (*out)[i], key, j);
        ts_jpop(c, old);
        return -1;
      }
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

/* "PATH=JSON" for one override, in a new string. */
static char *override(const char *path, const cJSON *v)
{
  char *text = cJSON_PrintUnformatted(v);
  if (!text)
    return NULL;
  size_t len = strlen(path) + strlen(text) + 2;
  char *kv = malloc(len);
  if (kv)
    snprintf(kv, len, "%s=%s", path, text);
  free(text);
  return kv;
}

/* A value as a results column prints it: strings without quotes. */
static char *label_of(const cJSON *v)
{
  if (cJSON_IsString(v))
    return strdup(v->valuestring);
  return cJSON_PrintUnformatted(v);
}

static int is_key(const char *k)
{
  static const char *const reserved[] = {"n", "workers", "class", "replications", "samples", NULL};
  if (!*k || strlen(k) > TS_AXIS_KEY_MAX || strspn(k, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(k))
    return 0;
  for (int i = 0; reserved[i]; i++)
    if (strcmp(reserved[i], k) == 0)
      return 0;
  return 1;
}

static int load_axis(ts_jctx *c, const cJSON *ja, ts_axis *ax, ts_err *e)
{
  static const char *const keys[] = {"path", "values", "sets", "note", NULL};
  const char *path = NULL;
  const cJSON *values = NULL, *sets = NULL, *it;
  if (!cJSON_IsObject(ja))
    return ts_jfail_got(c, NULL, ja, e, "expected {\"path\": ..., \"values\": [...]} or {\"sets\": {NAME: {PATH: VALUE}}}");
  if (ts_jcheck_keys(c, ja, keys, e) || ts_jget_string(c, ja, "path", 0, &path, e) ||
      ts_jget_array(c, ja, "values", 0, &values, e) || ts_jget_object(c, ja, "sets", 0, &sets, e))
    return -1;
  if (!!path != !!values || !!values == !!sets)
    return ts_jfail(c, NULL, e, "expected either \"path\" with \"values\", or \"sets\"");
  const cJSON *list = values ? values : sets;
  int n = 0;
  cJSON_ArrayForEach(it, list) n++;
  if (n == 0 || n > 1000)
    return ts_jfail(c, values ? "values" : "sets", e, "expected 1 to 1000 values");
  ax->labels = calloc((size_t)n, sizeof *ax->labels);
  ax->sets = calloc((size_t)n, sizeof *ax->sets);
  ax->nsets = calloc((size_t)n, sizeof *ax->nsets);
  if (!ax->labels || !ax->sets || !ax->nsets || (path && !(ax->path = strdup(path))))
    return ts_jfail(c, NULL, e, "out of memory");
  cJSON_ArrayForEach(it, list)
  {
    int v = ax->nvalues++;
    if (values) {
      ax->labels[v] = label_of(it);
      ax->sets[v] = calloc(1, sizeof **ax->sets);
      if (ax->sets[v])
        ax->sets[v][ax->nsets[v]++] = override(path, it);
    } else {
      size_t old = ts_jpush_key(c, "sets");
      int bad = !cJSON_IsObject(it) ? ts_jfail_got(c, it->string, it, e, "expected an object of overrides {PATH: VALUE}") : 0;
      ts_jpop(c, old);
      if (bad)
        return -1;
      const cJSON *o;
      int k = 0;
      cJSON_ArrayForEach(o, it) k++;
      ax->labels[v] = strdup(it->string);
      ax->sets[v] = calloc((size_t)k + 1, sizeof **ax->sets);
      cJSON_ArrayForEach(o, it) if (ax->sets[v]) ax->sets[v][ax->nsets[v]++] = override(o->string, o);
    }
    if (!ax->labels[v] || !ax->sets[v])
      return ts_jfail(c, NULL, e, "out of memory");
    for (int k = 0; k < ax->nsets[v]; k++)
      if (!ax->sets[v][k])
        return ts_jfail(c, NULL, e, "out of memory");
    for (int u = 0; u < v; u++)
      if (strcmp(ax->labels[u], ax->labels[v]) == 0)
        return ts_jfail(c, values ? "values" : "sets", e, "the value \"%s\" appears twice", ax->labels[v]);
  }
  return 0;
}

/* The path of an override "PATH=JSON" (into buf). */
static const char *path_of(const char *kv, char *buf, size_t cap)
{
  size_t n = strcspn(kv, "=");
  snprintf(buf, cap, "%.*s", (int)(n < cap ? n : cap - 1), kv);
  return buf;
}

static int load_axes(ts_jctx *c, const cJSON *root, ts_scenario *s, ts_err *e)
{
  const cJSON *axes = NULL, *it;
  const char *compare = NULL;
  if (ts_jget_object(c, root, "axes", 0, &axes, e) || ts_jget_string(c, root, "compare", 0, &compare, e))
    return -1;
  s->compare = -1;
  int n = 0;
  if (axes)
    cJSON_ArrayForEach(it, axes) n++;
  if (n > 16)
    return ts_jfail(c, "axes", e, "at most 16 axes");
  s->axes = calloc((size_t)n + 1, sizeof *s->axes);
  if (!s->axes)
    return ts_jfail(c, "axes", e, "out of memory");
  if (axes)
    cJSON_ArrayForEach(it, axes)
    {
      size_t old = ts_jpush_key(c, "axes");
      ts_axis *ax = &s->axes[s->naxes++];
      int bad = 0;
      if (!is_key(it->string))
        bad = ts_jfail(c, it->string, e, "expected an axis key of at most %d lower-case letters, digits and '_' (not "
                       "n, workers, class, replications or samples)", TS_AXIS_KEY_MAX);
      if (!bad && !(ax->key = strdup(it->string)))
        bad = ts_jfail(c, it->string, e, "out of memory");
      if (!bad) {
        ts_jpush_key(c, it->string);
        bad = load_axis(c, it, ax, e);
      }
      ts_jpop(c, old);
      if (bad)
        return -1;
    }
  /* no two axes may set the same path */
  for (int a = 0; a < s->naxes; a++)
    for (int b = a + 1; b < s->naxes; b++)
      for (int va = 0; va < s->axes[a].nvalues; va++)
        for (int ka = 0; ka < s->axes[a].nsets[va]; ka++)
          for (int vb = 0; vb < s->axes[b].nvalues; vb++)
            for (int kb = 0; kb < s->axes[b].nsets[vb]; kb++) {
              char pa[256], pb[256];
              if (strcmp(path_of(s->axes[a].sets[va][ka], pa, sizeof pa), path_of(s->axes[b].sets[vb][kb], pb, sizeof pb)) == 0) {
                size_t old = ts_jpush_key(c, "axes");
                ts_jfail(c, s->axes[b].key, e, "sets %s, which axis \"%s\" sets too (two axes on one path)", pa,
                         s->axes[a].key);
                ts_jpop(c, old);
                return -1;
              }
            }
  if (compare) {
    for (int a = 0; a < s->naxes; a++)
      if (strcmp(s->axes[a].key, compare) == 0)
        s->compare = a;
    if (s->compare < 0)
      return ts_jfail(c, "compare", e, "names no axis: \"%s\" is not a key of \"axes\"", compare);
    if (s->axes[s->compare].nvalues < 2)
      return ts_jfail(c, "compare", e, "axis \"%s\" has one value: nothing to compare", compare);
  }
  return 0;
}

/* horizon_ms, warmup_ms, window_ms. */
static int load_times(ts_jctx *c, const cJSON *root, ts_scenario *s, ts_err *e)
{
  double h = -1, w = 0, win = 0;
  if (ts_jget_number(c, root, "horizon_ms", 0, 1e-6, 1e12, &h, e) ||
      ts_jget_number(c, root, "warmup_ms", 0, 0, 1e12, &w, e) || ts_jget_number(c, root, "window_ms", 0, 1e-6, 1e12, &win, e))
    return -1;
  s->horizon = h > 0 ? ts_time_from_ms(h) : TS_TIME_MAX;
  s->warmup = ts_time_from_ms(w);
  s->window = win > 0 ? ts_time_from_ms(win) : 0;
  if (h > 0 && w + win > h)
    return ts_jfail(c, win > 0 ? "window_ms" : "warmup_ms", e, "warmup_ms + window_ms = %g ms is beyond horizon_ms = %g ms",
                    w + win, h);
  return 0;
}

static int load_table(ts_jctx *c, const cJSON *root, ts_scenario *s, ts_err *e)
{
  const cJSON *t = NULL, *it;
  double target = 0;
  long max = 1000;
  if (ts_jget_array(c, root, "table", 0, &t, e) || ts_jget_number(c, root, "ci_target", 0, 0, 1, &target, e) ||
      ts_jget_int(c, root, "ci_max_replications", 0, 2, 100000, &max, e))
    return -1;
  if (target == 0 && cJSON_GetObjectItemCaseSensitive(root, "ci_max_replications"))
    return ts_jfail(c, "ci_max_replications", e, "bounds the replications ci_target adds, and there is no ci_target");
  s->ci_target = target;
  s->ci_max = (int)max;
  if (!t)
    return 0;
  int n = 0;
  cJSON_ArrayForEach(it, t) n++;
  if (n == 0) /* (it fell back to the default columns) */
    return ts_jfail(c, "table", e, "expected at least one metric name; leave \"table\" out for the default columns");
  s->table = calloc((size_t)n + 1, sizeof *s->table);
  if (!s->table)
    return ts_jfail(c, "table", e, "out of memory");
  cJSON_ArrayForEach(it, t)
  {
    int twice = -1; /* (a column shown twice, as --columns refuses) */
    for (int j = 0; cJSON_IsString(it) && j < s->ntable && twice < 0; j++)
      twice = strcmp(s->table[j], it->valuestring) == 0 ? j : -1;
    if (!cJSON_IsString(it) || twice >= 0) {
      size_t old = ts_jpush_key(c, "table");
      ts_jpush_index(c, s->ntable);
      if (twice >= 0)
        ts_jfail(c, NULL, e, "\"%s\" is named twice (also table[%d])", it->valuestring, twice);
      else
        ts_jfail_got(c, NULL, it, e, "expected a metric name");
      ts_jpop(c, old);
      return -1;
    }
    if (!(s->table[s->ntable++] = strdup(it->valuestring)))
      return ts_jfail(c, "table", e, "out of memory");
  }
  return 0;
}

int ts_scenario_from_json(const cJSON *root, const char *path, ts_scenario *s, ts_err *e)
{
  return ts_scenario_convert(root, path, 1, s, e);
}

int ts_scenario_convert(const cJSON *root, const char *path, int check_files, ts_scenario *s, ts_err *e)
{
  static const char *const keys[] = {"name", "description", "model", "baseline", "n", "workers", "replications",
                                     "seed", "set", "axes", "compare", "horizon_ms", "warmup_ms", "window_ms",
                                     "table", "ci_target", "ci_max_replications", "notes", NULL};
  memset(s, 0, sizeof *s);
  ts_jctx c = {.file = path};
  const char *name = NULL, *model = "<model>", *baseline = NULL, *desc = "";
  long reps = 1;
  double seed = 1;
  int rc = -1;
  if (!cJSON_IsObject(root)) {
    ts_jfail_got(&c, NULL, root, e, "expected a scenario object");
    goto out;
  }
  if (cJSON_GetObjectItemCaseSensitive(root, "classes") && !cJSON_GetObjectItemCaseSensitive(root, "model")) {
    ts_jfail(&c, NULL, e, "this is a model (it has \"classes\"), not a scenario: give a scenario, which names "
             "its model in \"model\" (e.g. scenarios/zero-cache-wave.json)");
    goto out;
  }
  if (ts_jcheck_keys(&c, root, keys, e) || ts_jget_string(&c, root, "name", 1, &name, e) ||
      ts_jget_string(&c, root, "description", 0, &desc, e) || ts_jget_string(&c, root, "model", check_files, &model, e) ||
      ts_jget_string(&c, root, "baseline", 0, &baseline, e) ||
      int_array(&c, root, "n", 0, 1, TS_MAX_ACTORS, &s->ns, &s->nn, e) ||
      int_array(&c, root, "workers", 1, 1, TS_MAX_WORKERS, &s->workers, &s->nw, e) ||
      ts_jget_int(&c, root, "replications", 0, 1, 100000, &reps, e) ||
      load_seed(&c, root, &seed, e) || load_sets(&c, root, s, e) ||
      load_axes(&c, root, s, e) || load_times(&c, root, s, e) || load_table(&c, root, s, e))
    goto out;
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
  if (check_files && (readable(&c, "model", model, s->model_path, e) ||
                      (baseline && readable(&c, "baseline", baseline, s->baseline_path, e))))
    goto out;
  s->replications = (int)reps;
  s->n_given = cJSON_GetObjectItemCaseSensitive(root, "n") != NULL;
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

void ts_scenario_combo_values(const ts_scenario *s, long c, int *values)
{
  for (int a = s->naxes - 1; a >= 0; a--) {
    values[a] = (int)(c % s->axes[a].nvalues);
    c /= s->axes[a].nvalues;
  }
}

long ts_scenario_combos(const ts_scenario *s)
{
  long combos = 1;
  for (int a = 0; a < s->naxes; a++)
    combos *= s->axes[a].nvalues;
  return combos;
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
  for (int a = 0; s->axes && a < s->naxes; a++) {
    ts_axis *ax = &s->axes[a];
    for (int v = 0; v < ax->nvalues; v++) {
      free(ax->labels ? ax->labels[v] : NULL);
      for (int k = 0; ax->sets && ax->sets[v] && k < ax->nsets[v]; k++)
        free(ax->sets[v][k]);
      free(ax->sets ? ax->sets[v] : NULL);
    }
    free(ax->labels);
    free(ax->sets);
    free(ax->nsets);
    free(ax->key);
    free(ax->path);
  }
  free(s->axes);
  for (int i = 0; i < s->ntable; i++)
    free(s->table[i]);
  free(s->table);
  memset(s, 0, sizeof *s);
}
