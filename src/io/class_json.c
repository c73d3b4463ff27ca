/* Actor classes: a class's name, count, queue class, arrival process,
 * placement, "let" names and program (compiled by program_json.c, or another
 * class's with "program_of"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "io/model_load.h"

/* "batch": actors per arrival: an integer (a number, "$param" or an
 * expression of $params), or {"dist": "geometric", "mean": M} (on 1, 2, ...)
 * or {"dist": "uniform", "min": A, "max": B} (integers). */
static int load_batch(loader *L, const cJSON *arr, ts_arrival *a)
{
  static const char *const keys[] = {"dist", "mean", "min", "max", "note", NULL};
  static const char *const dists[] = {"fixed", "geometric", "uniform", NULL};
  const cJSON *b = cJSON_GetObjectItemCaseSensitive(arr, "batch");
  int64_t k = 1;
  a->batch = 1;
  if (!b)
    return 0;
  if (!cJSON_IsObject(b)) {
    ts_spec sp = ts__ml_spec_of(L, arr);
    if (ts_spec_int(&sp, "batch", 1, 1, 1000000, &k))
      return -1;
    a->batch = (int)k;
    return 0;
  }
  size_t old = ts_jpush_key(&L->c, "batch");
  ts_spec sp = ts__ml_spec_of(L, b);
  int dist = 0, bad = ts_jcheck_keys(&L->c, b, keys, L->e) || ts_spec_enum(&sp, "dist", 1, dists, &dist);
  int64_t lo = 1, hi = 1;
  if (!bad && dist == TS_BATCH_FIXED)
    bad = ts_jfail(&L->c, "dist", L->e, "a fixed batch is a number: \"batch\": K");
  if (!bad && dist == TS_BATCH_GEOMETRIC) {
    bad = ts_spec_number(&sp, "mean", 1, 1, 1e6, &a->batch_mean);
    if (!bad && (ts_spec_has(&sp, "min") || ts_spec_has(&sp, "max")))
      bad = ts_jfail(&L->c, ts_spec_has(&sp, "min") ? "min" : "max", L->e, "only for \"dist\": \"uniform\"");
  }
  if (!bad && dist == TS_BATCH_UNIFORM) {
    bad = ts_spec_int(&sp, "min", 1, 1, 1000000, &lo) || ts_spec_int(&sp, "max", 1, 1, 1000000, &hi);
    if (!bad && hi < lo)
      bad = ts_jfail(&L->c, "max", L->e, "expected max >= min (%lld)", (long long)lo);
    if (!bad && ts_spec_has(&sp, "mean"))
      bad = ts_jfail(&L->c, "mean", L->e, "only for \"dist\": \"geometric\"");
  }
  ts_jpop(&L->c, old);
  a->batch_kind = (ts_batch_kind)dist;
  a->batch_lo = (int)lo;
  a->batch_hi = (int)hi;
  return bad ? -1 : 0;
}

static int load_arrival(loader *L, const cJSON *arr, ts_class *k)
{
  static const char *const keys[] = {"kind", "start_ms", "spacing_ms", "period_ms", "phase_ms", "jitter_ms",
                                     "rate_per_s", "after", "delay_ms", "batch", "note", NULL};
  static const char *const kinds[] = {"at", "periodic", "poisson", "after", NULL};
  int kind = 0;
  ts_arrival *a = &k->arrival;
  if (ts_jcheck_keys(&L->c, arr, keys, L->e) || ts__ml_enum_field(L, arr, "kind", kinds, &kind))
    return -1;
  a->kind = (ts_arrival_kind)kind;
  static const char *const only[][5] = {{"start_ms", "spacing_ms", "batch", NULL},
                                        {"period_ms", "phase_ms", "jitter_ms", "batch", NULL},
                                        {"rate_per_s", "start_ms", "batch", NULL},
                                        {"after", "delay_ms", NULL}};
  const cJSON *it;
  cJSON_ArrayForEach(it, arr)
  {
    int ok = strcmp(it->string, "kind") == 0 || strcmp(it->string, "note") == 0;
    for (int i = 0; only[kind][i]; i++)
      ok |= strcmp(only[kind][i], it->string) == 0;
    if (!ok)
      return ts_jfail(&L->c, it->string, L->e, "not a key of \"kind\": \"%s\" arrivals", kinds[kind]);
  }
  if (ts__ml_time_field(L, arr, "start_ms", &a->start) || ts__ml_time_field(L, arr, "spacing_ms", &a->spacing) ||
      ts__ml_time_field(L, arr, "phase_ms", &a->phase) || ts__ml_time_field(L, arr, "jitter_ms", &a->jitter) ||
      ts__ml_time_field(L, arr, "delay_ms", &a->delay))
    return -1;
  if (a->kind == TS_ARRIVE_PERIODIC) {
    ts_spec sp = ts__ml_spec_of(L, arr);
    if (ts_spec_time(&sp, "period_ms", 1, &a->period))
      return -1;
    if (a->period <= 0)
      return ts_jfail(&L->c, "period_ms", L->e, "expected a period > 0");
  }
  if (a->kind == TS_ARRIVE_POISSON) {
    ts_spec sp = ts__ml_spec_of(L, arr);
    if (ts_spec_number(&sp, "rate_per_s", 1, 1e-9, 1e9, &a->rate_per_s))
      return -1;
  }
  if (load_batch(L, arr, a))
    return -1;
  if (a->kind == TS_ARRIVE_AFTER) {
    const char *after;
    if (ts_jget_string(&L->c, arr, "after", 1, &after, L->e))
      return -1;
    a->after = -1;
    const cJSON *jc;
    int i = 0;
    cJSON_ArrayForEach(jc, L->classes_json)
    {
      const cJSON *nm = cJSON_GetObjectItemCaseSensitive(jc, "name");
      if (cJSON_IsString(nm) && strcmp(nm->valuestring, after) == 0)
        a->after = i;
      i++;
    }
    if (a->after < 0)
      return ts_jfail(&L->c, "after", L->e, "no class named \"%s\" in classes", after);
  }
  return 0;
}

static int load_placement(loader *L, const cJSON *pl, ts_class *k)
{
  static const char *const keys[] = {"pool", "rule", "worker", "note", NULL};
  static const char *const rules[] = {"dispatch", "fixed", NULL};
  const char *pool = NULL;
  int rule = 0;
  if (ts_jcheck_keys(&L->c, pl, keys, L->e) || ts_jget_string(&L->c, pl, "pool", 0, &pool, L->e) ||
      ts__ml_enum_field(L, pl, "rule", rules, &rule))
    return -1;
  if (pool && (k->pool = ts_model_find_pool(L->m, pool)) < 0)
    return ts_jfail(&L->c, "pool", L->e, "no pool named \"%s\" (the main pool is \"%s\")", pool, L->m->pools[0].name);
  if (cJSON_GetObjectItemCaseSensitive(pl, "worker") && !cJSON_GetObjectItemCaseSensitive(pl, "rule"))
    rule = 1;
  k->place = (ts_place_rule)rule;
  if (rule == TS_PLACE_FIXED)
    return ts__ml_class_expr(L, pl, "worker", 1, &k->place_worker);
  if (cJSON_GetObjectItemCaseSensitive(pl, "worker"))
    return ts_jfail(&L->c, "worker", L->e, "only with \"rule\": \"fixed\"");
  return 0;
}

/* An integer field in [lo, hi] given by a number, "$param" or an expression
 * of params (known at load time). Absent: *out unchanged. */
static int const_field(loader *L, const cJSON *obj, const char *key, double lo, double hi, int64_t *out)
{
  ts_expr *e = NULL;
  double v;
  if (!cJSON_GetObjectItemCaseSensitive(obj, key))
    return 0;
  L->class_expr = 1;
  int bad = ts_load_expr(L, obj, key, 1, &e);
  L->class_expr = 0;
  if (bad)
    return -1;
  int known = ts_expr_is_constant(e, &v);
  const char *why = known ? NULL : ts__ml_not_constant_why(e);
  ts_expr_free(e);
  if (!known)
    return ts_jfail(&L->c, key, L->e, "it reads %s, which is not known when the model loads: expected a value "
                    "known at load time (numbers and $params only)", why);
  if (!(v >= lo && v <= hi) || v != floor(v))
    return ts_jfail(&L->c, key, L->e, "expected an integer in [%g, %g], got %s", lo, hi, TS_JNUM(v));
  *out = (int64_t)v;
  return 0;
}

/* "let": {"NAME": EXPR, ...}: named expressions the class's other
 * expressions may use (each may use the ones before it). */
static int load_lets(loader *L, const cJSON *jc, ts_class *k)
{
  const cJSON *lets = NULL, *it;
  if (ts_jget_object(&L->c, jc, "let", 0, &lets, L->e))
    return -1;
  if (!lets)
    return 0;
  size_t n = 0;
  cJSON_ArrayForEach(it, lets) n++;
  if (n > 64)
    return ts_jfail(&L->c, "let", L->e, "at most 64 names");
  k->let_names = calloc(n, sizeof *k->let_names);
  k->lets = calloc(n, sizeof *k->lets);
  if (!k->let_names || !k->lets)
    return ts_jfail(&L->c, "let", L->e, "out of memory");
  size_t old = ts_jpush_key(&L->c, "let");
  int bad = 0;
  cJSON_ArrayForEach(it, lets)
  {
    if (bad)
      break;
    if (!ts__ml_is_identifier(it->string))
      bad = ts_jfail(&L->c, it->string, L->e, "expected a name of letters, digits and '_' (not a built-in name)");
    else if (ts__ml_name_clash(L, it->string, it->string, "a let of the class"))
      bad = 1;
    else if (ts_load_expr(L, lets, it->string, 1, &k->lets[k->nlets]))
      bad = 1;
    else if (!(k->let_names[k->nlets++] = ts__ml_dup_or_fail(L, it->string)))
      bad = 1;
  }
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

/* "vars": {"NAME": VALUE, ...}: the actor's own variables, numbers known at
 * load (a number, "$param" or an expression of $params), changed by set
 * steps and read by name in the class's step expressions and lets. */
static int load_vars(loader *L, const cJSON *jc, ts_class *k)
{
  const cJSON *vars = NULL, *it;
  if (ts_jget_object(&L->c, jc, "vars", 0, &vars, L->e))
    return -1;
  if (!vars)
    return 0;
  size_t n = 0;
  cJSON_ArrayForEach(it, vars) n++;
  if (n > 64)
    return ts_jfail(&L->c, "vars", L->e, "at most 64 names");
  k->var_names = calloc(n, sizeof *k->var_names);
  k->var_init = calloc(n, sizeof *k->var_init);
  if (!k->var_names || !k->var_init)
    return ts_jfail(&L->c, "vars", L->e, "out of memory");
  size_t old = ts_jpush_key(&L->c, "vars");
  ts_spec sp = ts__ml_spec_of(L, vars);
  int bad = 0;
  cJSON_ArrayForEach(it, vars)
  {
    if (bad)
      break;
    if (!ts__ml_is_identifier(it->string))
      bad = ts_jfail(&L->c, it->string, L->e, "expected a name of letters, digits and '_' (not a built-in name)");
    else if (ts__ml_name_clash(L, it->string, it->string, "one of the class's vars"))
      bad = 1;
    else if (ts_spec_number(&sp, it->string, 1, -1e15, 1e15, &k->var_init[k->nvars]))
      bad = 1;
    else if (!(k->var_names[k->nvars++] = ts__ml_dup_or_fail(L, it->string)))
      bad = 1;
  }
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

static int load_count(loader *L, const cJSON *jc, ts_class *k)
{
  const cJSON *cnt = cJSON_GetObjectItemCaseSensitive(jc, "count");
  if (!cnt)
    return ts_jfail(&L->c, "count", L->e, "missing (required): \"n\" (the sweep's n), an integer in [0, %ld], "
                    "\"$param\", an expression or \"forever\"", TS_MAX_COUNT);
  if (cJSON_IsString(cnt) && strcmp(cnt->valuestring, "forever") == 0) {
    k->forever = 1;
    return 0;
  }
  if (cJSON_IsNumber(cnt) && (cnt->valuedouble < 0 || cnt->valuedouble > TS_MAX_COUNT ||
                              cnt->valuedouble != floor(cnt->valuedouble)))
    return ts_jfail(&L->c, "count", L->e, "expected \"n\" (the sweep's n) or an integer in [0, %ld], got %.15g",
                    TS_MAX_COUNT, cnt->valuedouble);
  if (!cJSON_IsNumber(cnt) && !cJSON_IsString(cnt))
    return ts_jfail_got(&L->c, "count", cnt, L->e,
                        "expected \"n\" (the sweep's n), an integer in [0, %ld] or an expression", TS_MAX_COUNT);
  return ts__ml_count_expr(L, jc, 0, TS_MAX_COUNT, &k->count);
}

int ts__ml_load_class(loader *L, const cJSON *jc, int index)
{
  static const char *const keys[] = {"name", "count", "queue_class", "arrival", "placement", "report", "size_bytes",
                                     "let", "vars", "program", "program_of", "note", NULL};
  ts_model *m = L->m;
  ts_class *k = &m->classes[index];
  const char *name = "actor", *qc = "normal";
  const cJSON *arr = NULL, *pl = NULL;
  int report = 1;
  if (!cJSON_IsObject(jc))
    return ts_jfail_got(&L->c, NULL, jc, L->e, "expected a class object");
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 0, &name, L->e) ||
      ts_jget_string(&L->c, jc, "queue_class", 0, &qc, L->e) || ts_jget_object(&L->c, jc, "arrival", 0, &arr, L->e) ||
      ts_jget_object(&L->c, jc, "placement", 0, &pl, L->e) || ts_jget_bool(&L->c, jc, "report", 0, &report, L->e))
    return -1;
  if (ts__ml_check_name(L, "name", name))
    return -1;
  for (int j = 0; j < index; j++)
    if (strcmp(m->classes[j].name, name) == 0)
      return ts_jfail(&L->c, "name", L->e, "duplicate class name \"%s\"", name);
  if (!(k->name = ts__ml_dup_or_fail(L, name)))
    return -1;
  k->report = report;
  L->klass = k;
  if (load_vars(L, jc, k) || load_lets(L, jc, k) || const_field(L, jc, "size_bytes", 0, 1e12, &k->size_bytes))
    return -1;
  if (load_count(L, jc, k))
    return -1;
  k->sched_class = ts_sched_class_of(qc);
  if (k->sched_class < 0)
    return ts_load_bad_name(L, jc, "queue_class", "foreground, normal or background", qc, ts_sched_class_names);
  if (arr) {
    size_t old = ts_jpush_key(&L->c, "arrival");
    int bad = load_arrival(L, arr, k);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  if (k->forever && k->arrival.kind != TS_ARRIVE_PERIODIC && k->arrival.kind != TS_ARRIVE_POISSON)
    return ts_jfail(&L->c, "count", L->e, "\"forever\" is for classes that arrive periodically or as a Poisson "
                    "process (arrival.kind)");
  if (pl) {
    size_t old = ts_jpush_key(&L->c, "placement");
    int bad = load_placement(L, pl, k);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  L->nsteps = L->cap = 0;
  L->steps = NULL;
  L->depth = L->max_depth = 0;
  uint64_t locks = 0;
  const char *of = NULL;
  if (ts_jget_string(&L->c, jc, "program_of", 0, &of, L->e))
    return -1;
  const cJSON *src = jc;
  int src_index = index;
  if (of) { /* the program of another class, compiled again for this one */
    if (cJSON_GetObjectItemCaseSensitive(jc, "program"))
      return ts_jfail(&L->c, "program_of", L->e, "expected either \"program\" or \"program_of\", not both");
    const cJSON *it;
    int j = 0;
    src = NULL;
    cJSON_ArrayForEach(it, L->classes_json)
    {
      const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
      if (it != jc && cJSON_IsString(nm) && strcmp(nm->valuestring, of) == 0 &&
          cJSON_GetObjectItemCaseSensitive(it, "program")) {
        src = it;
        src_index = j;
      }
      j++;
    }
    if (!src)
      return ts_jfail(&L->c, "program_of", L->e, "no class named \"%s\" with a \"program\"", of);
  }
  /* the steps' paths are where they are written: in the other class for program_of */
  char path[sizeof L->c.path];
  memcpy(path, L->c.path, sizeof path);
  snprintf(L->c.path, sizeof L->c.path, "classes[%d]", src_index);
  int bad = ts__ml_compile_program(L, src, &locks);
  k->steps = L->steps;
  k->nsteps = L->nsteps;
  k->loops = L->max_depth;
  L->steps = NULL;
  L->klass = NULL;
  for (size_t d = 0; !bad && locks && d < m->nlocks; d++)
    if (locks & (UINT64_C(1) << d))
      bad = ts_jfail(&L->c, "program", L->e, "lock \"%s\" is never released (every lock taken must be released "
                     "on every path)", m->locks[d].name);
  memcpy(L->c.path, path, sizeof path);
  if (bad && of && !L->e->nomem) {
    size_t len = strlen(L->e->msg);
    snprintf(L->e->msg + len, sizeof L->e->msg - len, " (used by classes[%d] through program_of)", index);
  }
  return bad ? -1 : 0;
}
