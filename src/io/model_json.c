#include "io/model_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/baseline_json.h"
#include "io/jsonfile.h"
#include "io/scenario_json.h"
#include "model/dispatch.h"
#include "run/metrics.h"

typedef struct loader {
  ts_jctx c;
  ts_err *e;
  const cJSON *params;
  double cpu_scale;
} loader;

/* Whether obj[key] is a reference "$name" to a parameter: 1 with *p set to
 * params[name] (and *name), 0 when it is not a reference, -1 (error) when
 * params has no such name. */
static int param_ref(loader *L, const cJSON *obj, const char *key, const cJSON **p, const char **name)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v || !cJSON_IsString(v) || v->valuestring[0] != '$')
    return 0;
  *name = v->valuestring + 1;
  *p = L->params ? cJSON_GetObjectItemCaseSensitive(L->params, *name) : NULL;
  return *p ? 1 : ts_jfail(&L->c, key, L->e, "refers to $%s, which is not in params", *name);
}

/* A numeric field in [lo, hi] (`integral`: an integer), given as a number or
 * as "$name" naming one in params; `what` names the kind in errors ("a number
 * of ms", "an integer"). Absent and not required: 0 and *out unchanged. */
static int get_numeric(loader *L, const cJSON *obj, const char *key, int required, double lo, double hi,
                       int integral, const char *what, double *out)
{
  const cJSON *p, *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  const char *name;
  char range[64];
  int ref = param_ref(L, obj, key, &p, &name);
  if (ref < 0)
    return -1;
  if (ref || (v && !cJSON_IsNumber(v))) /* only for the errors below: formatting doubles is slow */
    snprintf(range, sizeof range, integral ? "[%.0f, %.0f]" : "[%g, %g]", lo, hi);
  if (ref) {
    double d = cJSON_IsNumber(p) ? p->valuedouble : lo - 1;
    if (d < lo || d > hi || (integral && d != floor(d))) /* range first: no cast of a huge double */
      return ts_jfail(&L->c, key, L->e, "$%s must be %s in %s", name, what, range);
    *out = d;
    return 0;
  }
  if (v && !cJSON_IsNumber(v))
    return ts_jfail(&L->c, key, L->e, "expected %s in %s or \"$param\"", what, range);
  if (!integral)
    return ts_jget_number(&L->c, obj, key, required, lo, hi, out, L->e);
  long n;
  int r = ts_jget_int(&L->c, obj, key, required, (long)lo, (long)hi, &n, L->e);
  if (r == 0 && v)
    *out = (double)n;
  return r;
}

/* A duration field in ms: a number, or "$name" naming a number in params. */
static int get_ms(loader *L, const cJSON *obj, const char *key, int required, ts_time *out)
{
  double ms = -1;
  if (get_numeric(L, obj, key, required, 0, TS_MAX_MS, 0, "a number of ms", &ms))
    return -1;
  if (ms >= 0)
    *out = ts_time_from_ms(ms);
  return 0;
}

/* A count field: an integer in [1, TS_MAX_ROWS], or "$name" naming one in params. */
static int get_count(loader *L, const cJSON *obj, const char *key, long *out)
{
  double n = -1;
  if (get_numeric(L, obj, key, 0, 1, (double)TS_MAX_ROWS, 1, "an integer", &n))
    return -1;
  if (n >= 1)
    *out = (long)n;
  return 0;
}

static int get_dist(loader *L, const cJSON *obj, ts_dist *d)
{
  const char *kind = "fixed";
  double cv = 0;
  if (ts_jget_string(&L->c, obj, "dist", 0, &kind, L->e) || ts_jget_number(&L->c, obj, "cv", 0, 0, 10, &cv, L->e))
    return -1;
  static const char *const names[] = {"fixed", "exponential", "lognormal", "gamma"};
  for (int k = 0; k < 4; k++)
    if (strcmp(kind, names[k]) == 0) {
      d->kind = (ts_dist_kind)k;
      d->cv = cv;
      return 0;
    }
  return ts_jfail(&L->c, "dist", L->e, "expected one of fixed, exponential, lognormal, gamma; got \"%s\"", kind);
}

static int find_lock(loader *L, const ts_model *m, const cJSON *st, int *out)
{
  const char *name;
  if (ts_jget_string(&L->c, st, "lock", 1, &name, L->e))
    return -1;
  for (size_t d = 0; d < m->nlocks; d++)
    if (strcmp(m->locks[d].name, name) == 0) {
      *out = (int)d;
      return 0;
    }
  return ts_jfail(&L->c, "lock", L->e, "no lock named \"%s\" in locks", name);
}

static int load_step(loader *L, ts_model *m, const cJSON *st, ts_step *s)
{
  /* the keys each op takes: a key another op takes is a mistake here */
  static const char *const cpu_keys[] = {"op", "label", "ms", "rows", "sliced", "timed", "dist", "cv", "note", NULL};
  static const char *const io_keys[] = {"op", "label", "ms", "priority", "dist", "cv", "note", NULL};
  static const char *const yield_keys[] = {"op", "label", "note", NULL};
  static const char *const lock_keys[] = {"op", "label", "lock", "note", NULL};
  static const char *const mark_keys[] = {"op", "label", "name", "note", NULL};
  static const struct {
    const char *op;
    const char *const *keys;
  } ops[] = {{"cpu", cpu_keys}, {"io", io_keys}, {"yield", yield_keys}, {"lock", lock_keys},
             {"unlock", lock_keys}, {"mark", mark_keys}};
  const char *op, *label = NULL;
  if (!cJSON_IsObject(st))
    return ts_jfail(&L->c, NULL, L->e, "expected a step object {\"op\": ...}");
  if (ts_jget_string(&L->c, st, "op", 1, &op, L->e))
    return -1;
  const char *const *keys = NULL;
  for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
    if (strcmp(ops[i].op, op) == 0)
      keys = ops[i].keys;
  if (!keys)
    return ts_jfail(&L->c, "op", L->e, "expected one of cpu, io, yield, lock, unlock, mark; got \"%s\"", op);
  if (ts_jcheck_keys(&L->c, st, keys, L->e) || ts_jget_string(&L->c, st, "label", 0, &label, L->e))
    return -1;
  s->label = strdup(label ? label : op);
  if (!s->label)
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  s->rows = 1;
  if (strcmp(op, "cpu") == 0) {
    long rows = 1;
    s->op = TS_STEP_CPU;
    if (get_ms(L, st, "ms", 1, &s->cost.mean) || get_count(L, st, "rows", &rows) ||
        ts_jget_bool(&L->c, st, "sliced", 0, &s->sliced, L->e) || get_dist(L, st, &s->cost))
      return -1;
    double scaled = (double)s->cost.mean * L->cpu_scale;
    if (scaled > (double)TS_DRAW_MAX)
      return ts_jfail(&L->c, "ms", L->e, "expected a cost that times host.cpu_scale stays below %g ms",
                      (double)TS_DRAW_MAX / TS_NS_PER_MS);
    s->cost.mean = (ts_time)(scaled + 0.5);
    s->rows = rows;
    s->timed = s->sliced;
    return ts_jget_bool(&L->c, st, "timed", 0, &s->timed, L->e);
  }
  if (strcmp(op, "io") == 0) {
    s->op = TS_STEP_IO;
    return get_ms(L, st, "ms", 1, &s->cost.mean) || ts_jget_bool(&L->c, st, "priority", 0, &s->priority, L->e) ||
           get_dist(L, st, &s->cost);
  }
  if (strcmp(op, "yield") == 0) {
    s->op = TS_STEP_YIELD;
    return 0;
  }
  if (strcmp(op, "lock") == 0 || strcmp(op, "unlock") == 0) {
    s->op = op[0] == 'l' ? TS_STEP_LOCK : TS_STEP_UNLOCK;
    return find_lock(L, m, st, &s->lock);
  }
  if (strcmp(op, "mark") == 0) {
    const char *name;
    s->op = TS_STEP_MARK;
    if (ts_jget_string(&L->c, st, "name", 1, &name, L->e))
      return -1;
    if (strcmp(name, "wave_start") == 0)
      s->mark = TS_MARK_WAVE_START;
    else if (strcmp(name, "wave_end") == 0)
      s->mark = TS_MARK_WAVE_END;
    else
      return ts_jfail(&L->c, "name", L->e, "expected \"wave_start\" or \"wave_end\", got \"%s\"", name);
    return 0;
  }
  return ts_jfail(&L->c, "op", L->e, "internal: op \"%s\" has keys but no loader", op);
}

/* Locks must be taken before they are released and not taken twice. */
static int check_lock_order(loader *L, const ts_model *m, const ts_class *k)
{
  char held[64] = {0};
  for (size_t i = 0; i < k->nsteps; i++) {
    const ts_step *s = &k->steps[i];
    if (s->op != TS_STEP_LOCK && s->op != TS_STEP_UNLOCK)
      continue;
    size_t old = ts_jpush_key(&L->c, "program");
    ts_jpush_index(&L->c, (int)i);
    int bad = 0;
    if (s->op == TS_STEP_LOCK && held[s->lock])
      bad = ts_jfail(&L->c, "lock", L->e, "takes lock \"%s\" already held (locks are not re-entrant)",
                     m->locks[s->lock].name);
    else if (s->op == TS_STEP_UNLOCK && !held[s->lock])
      bad = ts_jfail(&L->c, "lock", L->e, "releases lock \"%s\", which is not held here",
                     m->locks[s->lock].name);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
    held[s->lock] = s->op == TS_STEP_LOCK;
  }
  return 0;
}

static int load_class(loader *L, ts_model *m, const cJSON *jc, ts_class *k)
{
  static const char *const keys[] = {"name", "count", "queue_class", "arrival", "program", "note", NULL};
  const char *name = "actor", *qc = "normal";
  const cJSON *prog, *arr = NULL;
  if (!cJSON_IsObject(jc))
    return ts_jfail(&L->c, NULL, L->e, "expected a class object");
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 0, &name, L->e) ||
      ts_jget_string(&L->c, jc, "queue_class", 0, &qc, L->e) ||
      ts_jget_array(&L->c, jc, "program", 1, &prog, L->e) || ts_jget_object(&L->c, jc, "arrival", 0, &arr, L->e))
    return -1;
  k->name = strdup(name);
  const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(jc, "count");
  if (!cnt)
    return ts_jfail(&L->c, "count", L->e, "missing (required): \"n\" (the sweep's n) or an integer in [0, %ld]",
                    TS_MAX_ACTORS);
  if (cJSON_IsString(cnt) && strcmp(cnt->valuestring, "n") == 0) {
    k->count = TS_COUNT_N;
  } else {
    long count = 0;
    if (ts_jget_int(&L->c, jc, "count", 1, 0, TS_MAX_ACTORS, &count, L->e))
      return ts_jfail(&L->c, "count", L->e, "expected \"n\" (the sweep's n) or an integer in [0, %ld]",
                      TS_MAX_ACTORS);
    k->count = (int)count;
  }
  if (strcmp(qc, "foreground") == 0)
    k->sched_class = TS_CLASS_FOREGROUND;
  else if (strcmp(qc, "normal") == 0)
    k->sched_class = TS_CLASS_NORMAL;
  else if (strcmp(qc, "background") == 0)
    k->sched_class = TS_CLASS_BACKGROUND;
  else
    return ts_jfail(&L->c, "queue_class", L->e, "expected foreground, normal or background; got \"%s\"", qc);
  if (arr) {
    static const char *const akeys[] = {"start_ms", "spacing_ms", NULL};
    size_t old = ts_jpush_key(&L->c, "arrival");
    int bad = ts_jcheck_keys(&L->c, arr, akeys, L->e) || get_ms(L, arr, "start_ms", 0, &k->arrival_start) ||
              get_ms(L, arr, "spacing_ms", 0, &k->arrival_spacing);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  int n = cJSON_GetArraySize(prog);
  if (n == 0)
    return ts_jfail(&L->c, "program", L->e, "expected at least one step");
  k->steps = calloc((size_t)n, sizeof *k->steps);
  if (!k->steps)
    return ts_jfail(&L->c, "program", L->e, "out of memory");
  k->nsteps = (size_t)n;
  TS_JARRAY_EACH(i, st, prog) {
    size_t old = ts_jpush_key(&L->c, "program");
    ts_jpush_index(&L->c, i);
    int bad = load_step(L, m, st, &k->steps[i]);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  return check_lock_order(L, m, k);
}

static int load_locks(loader *L, ts_model *m, const cJSON *root)
{
  const cJSON *locks = NULL;
  if (ts_jget_array(&L->c, root, "locks", 0, &locks, L->e))
    return -1;
  int n = locks ? cJSON_GetArraySize(locks) : 0;
  if (n > 64)
    return ts_jfail(&L->c, "locks", L->e, "at most 64 lock declarations");
  m->locks = calloc(n ? (size_t)n : 1, sizeof *m->locks);
  if (!m->locks)
    return ts_jfail(&L->c, "locks", L->e, "out of memory");
  TS_JARRAY_EACH(i, jl, locks) {
    static const char *const keys[] = {"name", "scope", "note", NULL};
    const char *name, *scope = "actor";
    size_t old = ts_jpush_key(&L->c, "locks");
    ts_jpush_index(&L->c, i);
    int bad = !cJSON_IsObject(jl) ? ts_jfail(&L->c, NULL, L->e, "expected {\"name\": ..., \"scope\": ...}")
              : (ts_jcheck_keys(&L->c, jl, keys, L->e) || ts_jget_string(&L->c, jl, "name", 1, &name, L->e) ||
                 ts_jget_string(&L->c, jl, "scope", 0, &scope, L->e));
    if (!bad && strcmp(scope, "actor") != 0 && strcmp(scope, "shared") != 0)
      bad = ts_jfail(&L->c, "scope", L->e, "expected \"actor\" (one per actor) or \"shared\"; got \"%s\"", scope);
    for (int j = 0; !bad && j < i; j++)
      if (strcmp(m->locks[j].name, name) == 0)
        bad = ts_jfail(&L->c, "name", L->e, "duplicate lock name \"%s\"", name);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
    m->locks[i].name = strdup(name);
    m->locks[i].scope = strcmp(scope, "shared") == 0 ? TS_LOCK_SHARED : TS_LOCK_PER_ACTOR;
    m->nlocks++;
  }
  return 0;
}

static int load_worker(loader *L, ts_model *m, const cJSON *root)
{
  static const char *const keys[] = {"policy", "threshold_ms", "priority_divisor", "priority_min_ms",
                                     "yield_overhead_ms", "loop_overhead_ms", "burst_limit", "note", NULL};
  const cJSON *wj = NULL;
  const char *policy = "fifo";
  long div = 4, burst = 8;
  m->threshold = ts_time_from_ms(10);
  m->priority_min = ts_time_from_ms(2);
  if (ts_jget_object(&L->c, root, "worker", 0, &wj, L->e))
    return -1;
  if (wj) {
    size_t old = ts_jpush_key(&L->c, "worker");
    int bad = ts_jcheck_keys(&L->c, wj, keys, L->e) || ts_jget_string(&L->c, wj, "policy", 0, &policy, L->e) ||
              get_ms(L, wj, "threshold_ms", 0, &m->threshold) ||
              ts_jget_int(&L->c, wj, "priority_divisor", 0, 1, 1000, &div, L->e) ||
              get_ms(L, wj, "priority_min_ms", 0, &m->priority_min) ||
              get_ms(L, wj, "yield_overhead_ms", 0, &m->yield_overhead) ||
              get_ms(L, wj, "loop_overhead_ms", 0, &m->loop_overhead) ||
              ts_jget_int(&L->c, wj, "burst_limit", 0, 1, 1000000, &burst, L->e);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  m->priority_divisor = (int)div;
  m->burst_limit = (int)burst;
  m->policy = ts_sched_find(policy);
  if (!m->policy)
    return ts_jfail(&L->c, "worker.policy", L->e, "expected a queue policy (fifo, priority); got \"%s\"", policy);
  return 0;
}

static int scale_alloc(loader *L, ts_model *m, size_t k)
{
  m->scale_n = calloc(k, sizeof *m->scale_n);
  m->scale_v = calloc(k, sizeof *m->scale_v);
  if (!m->scale_n || !m->scale_v)
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  m->nscale = k;
  return 0;
}

/* {"n": [...], "scale": [...]}: the table as given. */
static int scale_from_table(loader *L, ts_model *m, const cJSON *t)
{
  const cJSON *ns, *vs;
  if (ts_jget_array(&L->c, t, "n", 1, &ns, L->e) || ts_jget_array(&L->c, t, "scale", 1, &vs, L->e))
    return -1;
  int k = cJSON_GetArraySize(ns);
  if (k == 0 || k != cJSON_GetArraySize(vs))
    return ts_jfail(&L->c, "scale", L->e, "expected as many scales as n values (at least one)");
  if (scale_alloc(L, m, (size_t)k))
    return -1;
  const cJSON *v = ts_jarray_first(vs);
  TS_JARRAY_EACH(i, x, ns) {
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || (i > 0 && x->valuedouble <= m->scale_n[i - 1]))
      return ts_jfail(&L->c, "n", L->e, "expected increasing numbers >= 0");
    if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > 1e3)
      return ts_jfail(&L->c, "scale", L->e, "expected numbers in (0, 1000]");
    m->scale_n[i] = x->valuedouble;
    m->scale_v[i] = v->valuedouble;
    v = v->next;
  }
  return 0;
}

/* {"baseline": FILE, "metric": NAME}: scale(n) = metric(n) / metric(smallest n),
 * read from a recorded baseline (workers = 1 points), so no number is copied by hand. */
static int scale_from_baseline(loader *L, ts_model *m, const cJSON *t)
{
  const char *file, *metric = "per_group_cpu_ms";
  if (ts_jget_string(&L->c, t, "baseline", 1, &file, L->e) || ts_jget_string(&L->c, t, "metric", 0, &metric, L->e))
    return -1;
  int mi = ts_metric_find(metric);
  if (mi < 0)
    return ts_jfail(&L->c, "metric", L->e, "unknown metric \"%s\"", metric);
  char *path = ts_path_relative_to(L->c.file, file);
  if (!path)
    return ts_jfail(&L->c, "baseline", L->e, "out of memory");
  ts_baseline b;
  ts_err be;
  int bad = ts_baseline_load(path, &b, &be);
  free(path);
  if (bad)
    return ts_jfail(&L->c, "baseline", L->e, "cannot read the baseline: %s", be.msg);
  size_t k = 0;
  for (size_t i = 0; i < b.nrec; i++)
    k += b.rec[i].metric == mi && b.rec[i].workers == 1;
  if (k == 0) {
    ts_baseline_finish(&b);
    return ts_jfail(&L->c, "metric", L->e, "the baseline records no %s at workers = 1", metric);
  }
  if (scale_alloc(L, m, k)) {
    ts_baseline_finish(&b);
    return -1;
  }
  size_t j = 0;
  for (size_t i = 0; i < b.nrec; i++)
    if (b.rec[i].metric == mi && b.rec[i].workers == 1) {
      size_t at = j++;
      while (at > 0 && m->scale_n[at - 1] > b.rec[i].n) { /* insertion by n */
        m->scale_n[at] = m->scale_n[at - 1];
        m->scale_v[at] = m->scale_v[at - 1];
        at--;
      }
      m->scale_n[at] = b.rec[i].n;
      m->scale_v[at] = b.rec[i].value;
    }
  ts_baseline_finish(&b);
  double first = m->scale_v[0];
  for (size_t i = 0; i < k; i++) {
    if (first <= 0 || (i > 0 && m->scale_n[i] == m->scale_n[i - 1]))
      return ts_jfail(&L->c, "baseline", L->e, "needs one positive %s per n", metric);
    m->scale_v[i] /= first;
  }
  return 0;
}

static int load_cpu_scale_by_n(loader *L, ts_model *m, const cJSON *h)
{
  static const char *const keys[] = {"n", "scale", "baseline", "metric", "note", NULL};
  const cJSON *t = NULL;
  if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "cpu_scale_by_n")))
    return 0; /* null: no table (e.g. --set host.cpu_scale_by_n=null) */
  if (ts_jget_object(&L->c, h, "cpu_scale_by_n", 0, &t, L->e))
    return -1;
  if (!t)
    return 0;
  size_t old = ts_jpush_key(&L->c, "cpu_scale_by_n");
  int bad = ts_jcheck_keys(&L->c, t, keys, L->e) ||
            (cJSON_GetObjectItemCaseSensitive(t, "baseline") ? scale_from_baseline(L, m, t)
                                                             : scale_from_table(L, m, t));
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

static int load_host_dispatch(loader *L, ts_model *m, const cJSON *root)
{
  static const char *const hkeys[] = {"cores", "cpu_scale", "cpu_scale_by_n", "note", NULL};
  static const char *const dkeys[] = {"policy", "task_id", "group_prefix", "note", NULL};
  const cJSON *h = NULL, *d = NULL;
  long cores = 0;
  const char *policy = "hash", *task = "task", *prefix = "cg";
  L->cpu_scale = 1;
  if (ts_jget_object(&L->c, root, "host", 0, &h, L->e) || ts_jget_object(&L->c, root, "dispatch", 0, &d, L->e))
    return -1;
  if (h) {
    size_t old = ts_jpush_key(&L->c, "host");
    int bad = ts_jcheck_keys(&L->c, h, hkeys, L->e) || ts_jget_int(&L->c, h, "cores", 0, 0, 4096, &cores, L->e) ||
              ts_jget_number(&L->c, h, "cpu_scale", 0, 1e-6, 1e3, &L->cpu_scale, L->e) ||
              load_cpu_scale_by_n(L, m, h);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  if (d) {
    size_t old = ts_jpush_key(&L->c, "dispatch");
    int bad = ts_jcheck_keys(&L->c, d, dkeys, L->e) || ts_jget_string(&L->c, d, "policy", 0, &policy, L->e) ||
              ts_jget_string(&L->c, d, "task_id", 0, &task, L->e) ||
              ts_jget_string(&L->c, d, "group_prefix", 0, &prefix, L->e);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  int kind = ts_dispatch_find(policy);
  if (kind < 0)
    return ts_jfail(&L->c, "dispatch.policy", L->e, "expected hash, round_robin or least_loaded; got \"%s\"",
                    policy);
  m->cores = (int)cores;
  m->dispatch = (ts_dispatch_kind)kind;
  if (strlen(task) > 200 || strlen(prefix) > 200)
    return ts_jfail(&L->c, strlen(task) > 200 ? "dispatch.task_id" : "dispatch.group_prefix", L->e,
                    "expected at most 200 characters");
  m->task_id = strdup(task);
  m->group_prefix = strdup(prefix);
  return 0;
}

/* Every string the loader copied exists (strdup can fail). */
static int strings_ok(const ts_model *m)
{
  if (!m->name || !m->task_id || !m->group_prefix)
    return 0;
  for (size_t d = 0; d < m->nlocks; d++)
    if (!m->locks[d].name)
      return 0;
  for (size_t c = 0; c < m->nclasses; c++)
    if (!m->classes[c].name)
      return 0;
  return 1;
}

int ts_model_from_json(const cJSON *root, const char *file, ts_model *m, ts_err *e)
{
  static const char *const keys[] = {"name", "description", "host", "worker", "dispatch", "locks", "classes",
                                     "params", "free", "provenance", "notes", NULL};
  loader L = {.e = e};
  L.c.file = file;
  memset(m, 0, sizeof *m);
  const char *name = "model";
  const cJSON *classes;
  if (!cJSON_IsObject(root))
    return ts_jfail(&L.c, NULL, e, "expected a model object");
  if (ts_jcheck_keys(&L.c, root, keys, e) || ts_jget_string(&L.c, root, "name", 0, &name, e) ||
      ts_jget_object(&L.c, root, "params", 0, &L.params, e))
    goto fail;
  m->name = strdup(name);
  if (load_host_dispatch(&L, m, root) || load_worker(&L, m, root) || load_locks(&L, m, root) ||
      ts_jget_array(&L.c, root, "classes", 1, &classes, e))
    goto fail;
  int n = cJSON_GetArraySize(classes);
  if (n == 0) {
    ts_jfail(&L.c, "classes", e, "expected at least one actor class");
    goto fail;
  }
  m->classes = calloc((size_t)n, sizeof *m->classes);
  if (!m->classes)
    goto fail;
  TS_JARRAY_EACH(i, jc, classes) {
    size_t old = ts_jpush_key(&L.c, "classes");
    ts_jpush_index(&L.c, i);
    m->nclasses++;
    int bad = load_class(&L, m, jc, &m->classes[i]);
    ts_jpop(&L.c, old);
    if (bad)
      goto fail;
  }
  if (!strings_ok(m)) {
    ts_jfail(&L.c, NULL, e, "out of memory");
    goto fail;
  }
  return 0;
fail:
  ts_model_finish(m);
  return -1;
}

int ts_model_apply_set(cJSON *root, const char *file, const char *set, ts_err *e)
{
  const char *eq = strchr(set, '=');
  if (!eq || eq == set)
    return ts_err_set(e, file, "--set", "expected PATH=VALUE, got \"%s\"", set);
  char path[512];
  size_t n = (size_t)(eq - set);
  if (n >= sizeof path)
    return ts_err_set(e, file, "--set", "path too long");
  memcpy(path, set, n);
  path[n] = '\0';
  return ts_json_set_path(root, file, path, eq + 1, e);
}

int ts_model_load(const char *path, const char *const *sets, int nsets, ts_model *m, cJSON **resolved, ts_err *e)
{
  cJSON *root;
  if (ts_json_load(path, &root, e))
    return -1;
  for (int i = 0; i < nsets; i++)
    if (ts_model_apply_set(root, path, sets[i], e)) {
      cJSON_Delete(root);
      return -1;
    }
  if (ts_model_from_json(root, path, m, e)) {
    cJSON_Delete(root);
    return -1;
  }
  if (resolved)
    *resolved = root;
  else
    cJSON_Delete(root);
  return 0;
}
