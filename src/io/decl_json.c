/* Declarations: the main pool ("worker") and the other pools, locks and
 * mutexes, channels, counters and servers, with their queue policies. They
 * are loaded before the classes, whose programs refer to them by name. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "io/model_load.h"

/* Run fn on each element of the array at obj[key] (absent: nothing), with the
 * cursor at key[i]. Linear in the array's length. */
static int each(loader *L, const cJSON *obj, const char *key, int required, int (*fn)(loader *, const cJSON *, int))
{
  const cJSON *arr = NULL, *it;
  if (ts_jget_array(&L->c, obj, key, required, &arr, L->e))
    return -1;
  if (!arr)
    return 0;
  int i = 0;
  cJSON_ArrayForEach(it, arr)
  {
    size_t old = ts_jpush_key(&L->c, key);
    ts_jpush_index(&L->c, i);
    int bad = fn(L, it, i);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
    i++;
  }
  return 0;
}

static int array_len(loader *L, const cJSON *obj, const char *key, int max, int *n)
{
  const cJSON *arr = NULL, *it;
  *n = 0;
  if (ts_jget_array(&L->c, obj, key, 0, &arr, L->e))
    return -1;
  if (arr)
    cJSON_ArrayForEach(it, arr)(*n)++;
  if (*n > max)
    return ts_jfail(&L->c, key, L->e, "at most %d entries", max);
  return 0;
}

static int int_field(loader *L, const cJSON *obj, const char *key, long lo, long hi, int64_t *out)
{
  ts_spec sp = ts__ml_spec_of(L, obj);
  return ts_spec_int(&sp, key, 0, lo, hi, out);
}

static int scope_of(loader *L, const cJSON *obj, int *scope, int *instances, const char *what)
{
  static const char *const scopes[] = {"actor", "shared", "per_worker", "indexed", NULL};
  int64_t n = 0;
  *scope = TS_SCOPE_ACTOR;
  if (ts__ml_enum_field(L, obj, "scope", scopes, scope) || int_field(L, obj, "instances", 1, 1000000, &n))
    return -1;
  if (*scope == TS_SCOPE_INDEXED && n == 0)
    return ts_jfail(&L->c, "instances", L->e, "missing (required for \"scope\": \"indexed\"): how many %ss", what);
  if (*scope != TS_SCOPE_INDEXED && n != 0)
    return ts_jfail(&L->c, "instances", L->e, "only for \"scope\": \"indexed\"");
  *instances = (int)n;
  return 0;
}

static int unique(loader *L, const char *name, const char *const *names, size_t n, const char *what)
{
  for (size_t j = 0; j < n; j++)
    if (strcmp(names[j], name) == 0)
      return ts_jfail(&L->c, "name", L->e, "duplicate %s name \"%s\"", what, name);
  return ts__ml_check_name(L, "name", name);
}

/* A mutex's or channel's "wake_latency_ms": a constant (fixed), or a duration
 * object {"ms", "dist", "cv", "min_ms", "max_ms"} (a timeout's form) whose
 * values are known at load. out is ts_dist_prepare'd. */
static int wake_latency(loader *L, const cJSON *obj, ts_dist *out)
{
  static const char *const key = "wake_latency_ms";
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  *out = (ts_dist){.kind = TS_DIST_FIXED};
  if (v && !cJSON_IsNumber(v) && !cJSON_IsString(v) && !cJSON_IsObject(v))
    return ts_jfail_got(&L->c, key, v, L->e, "expected a number of ms or a duration object such as {\"ms\": 0.003, "
                        "\"dist\": \"lognormal\", \"cv\": 0.5}");
  if (!cJSON_IsObject(v)) {
    ts_dist_prepare(out);
    return ts__ml_time_field(L, obj, key, &out->mean);
  }
  ts_spec sp = ts__ml_spec_of(L, obj);
  int given;
  if (ts_spec_dist_object(&sp, key, out, &given))
    return -1;
  if (!out->mean_ms)
    return 0;
  ts_expr_free(out->mean_ms);
  out->mean_ms = NULL;
  size_t old = ts_jpush_key(&L->c, key);
  ts_jfail(&L->c, "ms", L->e, "expected a number of ms known at load time (numbers and $params only): a wake "
           "latency has no actor to evaluate an expression for");
  ts_jpop(&L->c, old);
  return -1;
}

static int load_lock(loader *L, const cJSON *jl, int i)
{
  static const char *const keys[] = {"name", "kind", "scope", "instances", "capacity", "handoff", "acquire_ms",
                                     "release_ms", "migrate_ms", "spin_ms", "futex_wait_ms", "futex_wake_ms",
                                     "wake_latency_ms", "size_bytes", "note", NULL};
  static const char *const kinds[] = {"async", "mutex", NULL};
  static const char *const handoffs[] = {"fifo", "barging", "std", NULL};
  static const char *const mutex_only[] = {"handoff", "acquire_ms", "release_ms", "migrate_ms", "spin_ms",
                                           "futex_wait_ms", "futex_wake_ms", "wake_latency_ms", NULL};
  ts_lock_decl *d = &L->m->locks[i];
  const char *name;
  int kind = 0, scope, inst, handoff = 0;
  int64_t cap = 1;
  if (!cJSON_IsObject(jl))
    return ts_jfail_got(&L->c, NULL, jl, L->e, "expected {\"name\": ..., \"scope\": ...}");
  if (ts_jcheck_keys(&L->c, jl, keys, L->e) || ts_jget_string(&L->c, jl, "name", 1, &name, L->e) ||
      ts__ml_enum_field(L, jl, "kind", kinds, &kind) || scope_of(L, jl, &scope, &inst, "lock") ||
      int_field(L, jl, "capacity", 1, 1000000, &cap) || ts__ml_enum_field(L, jl, "handoff", handoffs, &handoff) ||
      ts__ml_time_field(L, jl, "acquire_ms", &d->acquire) || ts__ml_time_field(L, jl, "release_ms", &d->release) ||
      ts__ml_time_field(L, jl, "migrate_ms", &d->migrate) || ts__ml_time_field(L, jl, "spin_ms", &d->spin) || ts__ml_time_field(L, jl, "futex_wait_ms", &d->futex_wait) ||
      ts__ml_time_field(L, jl, "futex_wake_ms", &d->futex_wake) ||
      wake_latency(L, jl, &d->wake_latency) ||
      int_field(L, jl, "size_bytes", 0, INT64_C(1) << 40, &d->size_bytes))
    return -1;
  if (kind != TS_LOCK_MUTEX)
    for (int k = 0; mutex_only[k]; k++)
      if (cJSON_GetObjectItemCaseSensitive(jl, mutex_only[k]))
        return ts_jfail(&L->c, mutex_only[k], L->e, "only for \"kind\": \"mutex\"");
  if (handoff == TS_HANDOFF_STD && cap > 1)
    return ts_jfail(&L->c, "capacity", L->e, "a \"std\" mutex has one holder (capacity 1): a semaphore is \"fifo\" or "
                    "\"barging\"");
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->locks[j].name;
  if (unique(L, name, names, (size_t)i, "lock") || !(d->name = ts__ml_dup_or_fail(L, name)))
    return -1;
  double k = L->m->cpu_scale; /* CPU costs follow host.cpu_scale */
  ts_time *cpu[] = {&d->acquire, &d->release, &d->migrate, &d->spin, &d->futex_wait, &d->futex_wake};
  for (size_t c = 0; c < sizeof cpu / sizeof *cpu; c++)
    *cpu[c] = (ts_time)((double)*cpu[c] * k + 0.5);
  d->kind = (ts_lock_kind)kind;
  d->scope = (ts_scope)scope;
  d->instances = inst;
  d->capacity = (int)cap;
  d->handoff = (ts_handoff)handoff;
  L->m->nlocks++;
  if (kind == TS_LOCK_MUTEX)
    L->m->has_mutex = 1;
  return 0;
}

/* A channel's "task_wake": {"local_ms", "local_kernel_ms", "remote_ms",
 * "remote_kernel_ms"}, the CPU a notifier pays per task it schedules. */
static int load_task_wake(loader *L, const cJSON *jc, ts_chan_decl *d)
{
  static const char *const keys[] = {"local_ms", "local_kernel_ms", "remote_ms", "remote_kernel_ms", "note", NULL};
  const cJSON *tw = NULL;
  if (ts_jget_object(&L->c, jc, "task_wake", 0, &tw, L->e))
    return -1;
  if (!tw)
    return 0;
  size_t old = ts_jpush_key(&L->c, "task_wake");
  ts_time *cost[] = {&d->task_wake_user[0], &d->task_wake_kernel[0], &d->task_wake_user[1], &d->task_wake_kernel[1]};
  int bad = ts_jcheck_keys(&L->c, tw, keys, L->e);
  for (int k = 0; k < 4 && !bad; k++) {
    bad = ts__ml_time_field(L, tw, keys[k], cost[k]);
    *cost[k] = (ts_time)((double)*cost[k] * L->m->cpu_scale + 0.5); /* CPU follows host.cpu_scale */
    d->task_costs |= *cost[k] > 0;
  }
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

/* How a woken waiter, an admitted handler or a reply resumes on its worker. */
static const char *const resumes[] = {"callback", "microtask", NULL};

static int load_channel(loader *L, const cJSON *jc, int i)
{
  static const char *const keys[] = {"name", "scope", "instances", "tokens", "wake_ms", "wake_latency_ms",
                                     "task_wake", "resume", "size_bytes", "note", NULL};
  ts_chan_decl *d = &L->m->chans[i];
  const char *name;
  int scope, inst, tokens = 0;
  if (!cJSON_IsObject(jc))
    return ts_jfail_got(&L->c, NULL, jc, L->e, "expected {\"name\": ..., \"scope\": ...}");
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 1, &name, L->e) ||
      scope_of(L, jc, &scope, &inst, "channel") || ts_jget_bool(&L->c, jc, "tokens", 0, &tokens, L->e) ||
      ts__ml_time_field(L, jc, "wake_ms", &d->wake_cpu) ||
      wake_latency(L, jc, &d->wake_latency) ||
      ts__ml_enum_field(L, jc, "resume", resumes, &d->microtask) ||
      int_field(L, jc, "size_bytes", 0, INT64_C(1) << 40, &d->size_bytes) || load_task_wake(L, jc, d))
    return -1;
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->chans[j].name;
  if (unique(L, name, names, (size_t)i, "channel") || !(d->name = ts__ml_dup_or_fail(L, name)))
    return -1;
  d->wake_cpu = (ts_time)((double)d->wake_cpu * L->m->cpu_scale + 0.5); /* CPU follows host.cpu_scale */
  d->scope = (ts_scope)scope;
  d->instances = inst;
  d->tokens = tokens;
  L->m->nchans++;
  L->m->has_chan = 1;
  return 0;
}

static int load_counter(loader *L, const cJSON *jc, int i)
{
  static const char *const keys[] = {"name", "initial", "note", NULL};
  ts_counter_decl *d = &L->m->counters[i];
  const char *name;
  if (!cJSON_IsObject(jc))
    return ts_jfail_got(&L->c, NULL, jc, L->e, "expected {\"name\": ..., \"initial\": ...}");
  ts_spec sp = ts__ml_spec_of(L, jc);
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 1, &name, L->e) ||
      ts_spec_number(&sp, "initial", 0, -1e15, 1e15, &d->initial))
    return -1;
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->counters[j].name;
  if (unique(L, name, names, (size_t)i, "counter"))
    return -1;
  if (!ts__ml_is_identifier(name))
    return ts_jfail(&L->c, "name", L->e, "expected a counter name of letters, digits and '_' (not a built-in name "
                    "of expressions), got \"%s\"", name);
  if (!(d->name = ts__ml_dup_or_fail(L, name)))
    return -1;
  L->m->ncounters++;
  return 0;
}

/* The policy fields of a worker or server: policy, burst_limit, weights. */
static int load_policy(loader *L, const cJSON *obj, const ts_sched_type **policy, ts_sched_params *sp)
{
  const char *name = "fifo";
  int64_t burst = 8;
  const cJSON *wj = NULL;
  *sp = ts_sched_default_params();
  if (ts_jget_string(&L->c, obj, "policy", 0, &name, L->e) || int_field(L, obj, "burst_limit", 1, 1000000, &burst) ||
      ts_jget_object(&L->c, obj, "weights", 0, &wj, L->e))
    return -1;
  sp->burst_limit = (int)burst;
  if (wj) {
    const char *const *wkeys = ts_sched_class_names;
    size_t old = ts_jpush_key(&L->c, "weights");
    int bad = ts_jcheck_keys(&L->c, wj, wkeys, L->e);
    ts_spec ws = ts__ml_spec_of(L, wj);
    for (int c = 0; c < TS_NCLASSES && !bad; c++)
      bad = ts_spec_number(&ws, wkeys[c], 0, 1e-6, 1e6, &sp->weights[c]);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  *policy = ts_sched_find(name);
  if (!*policy) {
    char list[200] = "", what[240];
    const char *names[32];
    int k = 0;
    for (const ts_sched_type *const *t = ts_sched_all(); *t && k < 31; t++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", (*t)->name);
      names[k++] = (*t)->name;
    }
    names[k] = NULL;
    snprintf(what, sizeof what, "a queue policy (%s)", list);
    return ts_load_bad_name(L, obj, "policy", what, name, names);
  }
  return 0;
}

static int load_pool_fields(loader *L, const cJSON *wj, ts_pool *p, int main)
{
  static const char *const keys[] = {"name", "kind", "count", "policy", "threshold_ms", "priority_divisor",
                                     "priority_min_ms", "priority_yield", "yield_overhead_ms", "loop_overhead_ms",
                                     "burst_limit", "weights", "capacity", "preempt", "note", NULL};
  static const char *const kinds[] = {"event_loop", "thread", NULL};
  static const char *const yields[] = {"immediate", "timer", NULL};
  const char *name = main ? "main" : NULL;
  int kind = 0, yield = 0;
  int64_t div = 4, cap = 0;
  if (ts_jcheck_keys(&L->c, wj, keys, L->e) || ts_jget_string(&L->c, wj, "name", !main, &name, L->e) ||
      ts__ml_enum_field(L, wj, "kind", kinds, &kind) || int_field(L, wj, "priority_divisor", 1, 1000, &div) ||
      ts__ml_enum_field(L, wj, "priority_yield", yields, &yield) || load_policy(L, wj, &p->policy, &p->sched) ||
      int_field(L, wj, "capacity", 1, 10000000, &cap))
    return -1;
  p->priority_timer = yield ? TS_PRIORITY_TIMER : 0;
  p->capacity = (int)cap;
  L->m->has_drop |= cap > 0;
  if (ts_jget_bool(&L->c, wj, "preempt", 0, &p->preempt, L->e))
    return -1;
  L->m->has_preempt |= p->preempt != 0;
  if (ts__ml_check_name(L, "name", name) || !(p->name = ts__ml_dup_or_fail(L, name)))
    return -1;
  p->kind = (ts_worker_kind)kind;
  p->priority_divisor = (int)div;
  p->threshold = kind == TS_WORKER_THREAD ? TS_TIME_MAX : ts_time_from_ms(10);
  p->priority_min = ts_time_from_ms(2);
  if (ts__ml_time_field(L, wj, "threshold_ms", &p->threshold) ||
      ts__ml_time_field(L, wj, "priority_min_ms", &p->priority_min) ||
      ts__ml_time_field(L, wj, "yield_overhead_ms", &p->yield_overhead) ||
      ts__ml_time_field(L, wj, "loop_overhead_ms", &p->loop_overhead))
    return -1;
  if (kind == TS_WORKER_THREAD) {
    L->m->has_thread = 1;
    if (p->policy != &ts_sched_fifo)
      return ts_jfail(&L->c, "policy", L->e, "a thread's run queue is FIFO; queue policies apply to event loops and "
                      "servers");
    if (cJSON_GetObjectItemCaseSensitive(wj, "loop_overhead_ms"))
      return ts_jfail(&L->c, "loop_overhead_ms", L->e, "only for \"kind\": \"event_loop\"");
    if (yield)
      return ts_jfail(&L->c, "priority_yield", L->e, "only for \"kind\": \"event_loop\" (a thread has no timers "
                      "phase)");
    if (p->preempt)
      return ts_jfail(&L->c, "preempt", L->e, "only for \"kind\": \"event_loop\" (a thread's run queue is FIFO: it has "
                      "no classes to preempt by)");
  }
  if (main) {
    if (cJSON_GetObjectItemCaseSensitive(wj, "count"))
      return ts_jfail(&L->c, "count", L->e, "the main pool has the sweep's number of workers (scenario \"workers\")");
    return 0;
  }
  return ts__ml_count_expr(L, wj, 1, TS_MAX_WORKERS, &p->count);
}

static int load_pool(loader *L, const cJSON *jp, int i)
{
  ts_pool *p = &L->m->pools[i + 1];
  if (!cJSON_IsObject(jp))
    return ts_jfail_got(&L->c, NULL, jp, L->e, "expected a pool object {\"name\": ..., \"count\": ...}");
  L->m->npools++;
  if (load_pool_fields(L, jp, p, 0))
    return -1;
  for (int j = 0; j <= i; j++)
    if (strcmp(L->m->pools[j].name, p->name) == 0)
      return ts_jfail(&L->c, "name", L->e, "duplicate pool name \"%s\"", p->name);
  return 0;
}

int ts__ml_load_pools(loader *L, const cJSON *root)
{
  ts_model *m = L->m;
  const cJSON *wj = NULL;
  int n;
  if (ts_jget_object(&L->c, root, "worker", 0, &wj, L->e) || array_len(L, root, "pools", 64, &n))
    return -1;
  m->pools = calloc((size_t)n + 1, sizeof *m->pools);
  if (!m->pools)
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  size_t old = ts_jpush_key(&L->c, "worker");
  static const cJSON empty = {0};
  m->npools = 1; /* so ts_model_finish frees what the main pool got, even on an error */
  int bad = load_pool_fields(L, wj ? wj : &empty, &m->pools[0], 1);
  ts_jpop(&L->c, old);
  if (bad)
    return -1;
  return each(L, root, "pools", 0, load_pool);
}

static int load_server(loader *L, const cJSON *js, int i)
{
  static const char *const keys[] = {"name", "pool", "worker", "dispatch", "concurrency", "queue_limit", "policy",
                                     "burst_limit", "weights", "resume", "note", NULL};
  static const char *const dispatches[] = {"free", "round_robin", NULL};
  ts_server_decl *d = &L->m->servers[i];
  const char *name, *pool = NULL;
  int64_t conc = 1, limit = -1;
  int rr = 0;
  if (!cJSON_IsObject(js))
    return ts_jfail_got(&L->c, NULL, js, L->e, "expected a server object {\"name\": ..., \"pool\": ...}");
  L->m->nservers++; /* so ts_model_finish frees what it gets, even on an error */
  if (cJSON_GetObjectItemCaseSensitive(js, "worker") && cJSON_GetObjectItemCaseSensitive(js, "dispatch"))
    return ts_jfail(&L->c, "dispatch", L->e, "a server with a \"worker\" serves on that worker: \"dispatch\" picks "
                    "among the pool's workers only without one");
  if (ts_jcheck_keys(&L->c, js, keys, L->e) || ts_jget_string(&L->c, js, "name", 1, &name, L->e) ||
      ts_jget_string(&L->c, js, "pool", 0, &pool, L->e) || int_field(L, js, "concurrency", 1, 1000000, &conc) ||
      load_policy(L, js, &d->policy, &d->sched) || ts__ml_class_expr(L, js, "worker", 0, &d->worker) ||
      ts__ml_enum_field(L, js, "dispatch", dispatches, &rr) || int_field(L, js, "queue_limit", 0, 10000000, &limit) ||
      ts__ml_enum_field(L, js, "resume", resumes, &d->microtask))
    return -1;
  d->queue_limit = (int)limit;
  L->m->has_drop |= limit >= 0;
  d->round_robin = rr;
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->servers[j].name;
  if (unique(L, name, names, (size_t)i, "server") || !(d->name = ts__ml_dup_or_fail(L, name)))
    return -1;
  d->pool = pool ? ts_model_find_pool(L->m, pool) : 0;
  if (d->pool < 0)
    return ts_jfail(&L->c, "pool", L->e, "no pool named \"%s\"", pool);
  double v, count = TS_MAX_WORKERS;
  if (d->pool > 0 && !ts_expr_is_constant(L->m->pools[d->pool].count, &count))
    count = TS_MAX_WORKERS; /* the pool's size is known at each sweep point */
  if (d->worker && ts_expr_is_constant(d->worker, &v) && (!(v >= 0 && v < count) || v != floor(v))) {
    char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
    if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(js, "worker")))
      return ts_jfail(&L->c, "worker", L->e, "expected an index in [0, %.0f) (pool %s), got %s", count,
                      L->m->pools[d->pool].name, TS_JNUM(v));
    return ts_jfail(&L->c, "worker", L->e, "\"%s\" is %s: expected an index in [0, %.0f) (pool %s)",
                    ts_expr_excerpt(ts_expr_text(d->worker), quoted, sizeof quoted),
                    ts_expr_value_text(num, sizeof num, v, ""), count, L->m->pools[d->pool].name);
  }
  d->concurrency = (int)conc;
  return 0;
}

int ts__ml_load_locks(loader *L, const cJSON *root)
{
  ts_model *m = L->m;
  int nl, nc, nk, ns;
  if (array_len(L, root, "locks", 64, &nl) || array_len(L, root, "channels", 64, &nc) ||
      array_len(L, root, "counters", 64, &nk) || array_len(L, root, "servers", 64, &ns))
    return -1;
  m->locks = calloc((size_t)nl + 1, sizeof *m->locks);
  m->chans = calloc((size_t)nc + 1, sizeof *m->chans);
  m->counters = calloc((size_t)nk + 1, sizeof *m->counters);
  m->servers = calloc((size_t)ns + 1, sizeof *m->servers);
  if (!m->locks || !m->chans || !m->counters || !m->servers)
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  return each(L, root, "locks", 0, load_lock) || each(L, root, "channels", 0, load_channel) ||
         each(L, root, "counters", 0, load_counter) || each(L, root, "servers", 0, load_server);
}
