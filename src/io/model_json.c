/* Models from JSON: the file's top level, its declarations, and the program
 * compiler (structured steps into flat begin/end ops, checked for balanced
 * locks on every path, marks in order, and what may run under a mutex).
 * The format is documented in docs/language.md. */
#include "io/model_json.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/baseline_json.h"
#include "io/model_load.h"
#include "io/scenario_json.h"
#include "model/dispatch.h"
#include "model/op.h"
#include "run/metrics.h"

/* ---- small helpers ---- */

static char *dup_or_fail(loader *L, const char *s)
{
  char *d = strdup(s);
  if (!d)
    ts_jfail(&L->c, NULL, L->e, "out of memory");
  return d;
}

/* An expression name: [A-Za-z_][A-Za-z0-9_]*, not a built-in. */
static int is_identifier(const char *s)
{
  static const char *const builtins[] = {"i", "n", "W", "worker", "pool_size", "now", "arrived", NULL};
  if (strlen(s) > 60 || !ts_expr_is_name(s))
    return 0;
  for (int b = 0; builtins[b]; b++)
    if (strcmp(builtins[b], s) == 0)
      return 0;
  return 1;
}

/* A name: letters, digits, '-', '_', '.'; not empty. */
static int check_name(loader *L, const char *key, const char *name)
{
  if (!*name || strlen(name) > 100 ||
      strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(name))
    return ts_jfail(&L->c, key, L->e, "expected a name of 1 to 100 letters, digits, '-', '_' or '.', got \"%s\"", name);
  return 0;
}

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

/* A field of a declaration read through the ts_spec getters. */
static ts_spec spec_of(loader *L, const cJSON *obj)
{
  return (ts_spec){.L = L, .st = obj};
}

static int enum_field(loader *L, const cJSON *obj, const char *key, const char *const *names, int *out)
{
  ts_spec sp = spec_of(L, obj);
  return ts_spec_enum(&sp, key, 0, names, out);
}

static int time_field(loader *L, const cJSON *obj, const char *key, ts_time *out)
{
  ts_spec sp = spec_of(L, obj);
  return ts_spec_time(&sp, key, 0, out);
}

static int int_field(loader *L, const cJSON *obj, const char *key, long lo, long hi, int64_t *out)
{
  ts_spec sp = spec_of(L, obj);
  return ts_spec_int(&sp, key, 0, lo, hi, out);
}

static int class_expr(loader *L, const cJSON *obj, const char *key, int required, ts_expr **out)
{
  L->class_expr = 1;
  int r = ts_load_expr(L, obj, key, required, out);
  L->class_expr = 0;
  return r;
}

/* A count (of a class's actors or a pool's workers): made before any actor,
 * so only $params, n and W. */
static int count_expr(loader *L, const cJSON *obj, ts_expr **out)
{
  L->class_expr = TS_EXPR_COUNT;
  int r = ts_load_expr(L, obj, "count", 1, out);
  L->class_expr = 0;
  return r;
}

/* ---- the program compiler ---- */

/* What is held at a point of a program: lock declarations as bits. */
typedef struct held {
  uint64_t locks;    /* every lock held */
  uint64_t mutexes;  /* of which mutexes */
  int marks;         /* 1 after wave_start, 2 after wave_end */
  int top;           /* at the program's top level (not inside a block) */
  int takes_time;    /* a step that can take time was compiled (for repeat forever) */
} held;

static ts_step *emit(loader *L, const ts_op_type *type, const char *label)
{
  if (L->nsteps == L->cap) {
    size_t cap = L->cap ? L->cap * 2 : 16;
    ts_step *v = realloc(L->steps, cap * sizeof *v);
    if (!v) {
      ts_jfail(&L->c, NULL, L->e, "out of memory");
      return NULL;
    }
    L->steps = v;
    L->cap = cap;
  }
  ts_step *s = &L->steps[L->nsteps++];
  memset(s, 0, sizeof *s);
  s->type = type;
  s->span = -1;
  s->rows = 1;
  s->label = strdup(label);
  s->where = strdup(L->c.path);
  if (!s->label || !s->where) {
    ts_jfail(&L->c, NULL, L->e, "out of memory");
    return NULL;
  }
  return s;
}

static int compile_block(loader *L, const cJSON *obj, const char *key, int required, held *h);

/* Whether an op may run while a thread holds an OS mutex: not if it can leave
 * the CPU (the thread would block, or run another task that needs the mutex). */
static int blocks_thread(const ts_op_type *t, const ts_step *s)
{
  return t == &ts_op_io || t == &ts_op_sleep || t == &ts_op_yield || t == &ts_op_wait || t == &ts_op_hop ||
         (t == &ts_op_cpu && s->sliced);
}

static int lock_bit_check(loader *L, held *h, const ts_step *s, int taking)
{
  const ts_lock_decl *d = &L->m->locks[s->ref];
  uint64_t bit = UINT64_C(1) << s->ref;
  if (taking && (h->locks & bit))
    return ts_jfail(&L->c, "lock", L->e, "takes lock \"%s\" already held (locks are not re-entrant)", d->name);
  if (!taking && !(h->locks & bit))
    return ts_jfail(&L->c, "lock", L->e, "releases lock \"%s\", which is not held here", d->name);
  if (taking && d->kind != TS_LOCK_MUTEX && h->mutexes)
    return ts_jfail(&L->c, "lock", L->e, "takes async lock \"%s\" while holding a mutex (a thread must not wait while "
                    "it holds an OS mutex)", d->name);
  h->locks ^= bit;
  if (d->kind == TS_LOCK_MUTEX)
    h->mutexes ^= bit;
  return 0;
}

static const char *mutex_held(const loader *L, const held *h)
{
  for (size_t d = 0; d < L->m->nlocks; d++)
    if (h->mutexes & (UINT64_C(1) << d))
      return L->m->locks[d].name;
  return "?";
}

static int compile_leaf(loader *L, const cJSON *st, const char *op, const char *label, held *h)
{
  const ts_op_type *t = ts_op_find(op);
  if (!t) {
    char list[300] = "";
    for (const ts_op_type *const *o = ts_op_all(); *o; o++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s, ", (*o)->name);
    }
    return ts_jfail(&L->c, "op", L->e, "expected one of %srepeat, if, call, spawn; got \"%s\"", list, op);
  }
  const char *keys[24];
  size_t nk = 0;
  keys[nk++] = "op";
  keys[nk++] = "label";
  keys[nk++] = "note";
  for (size_t i = 0; t->keys[i] && nk < 23; i++)
    keys[nk++] = t->keys[i];
  keys[nk] = NULL;
  if (ts_jcheck_keys(&L->c, st, keys, L->e))
    return -1;
  ts_step *s = emit(L, t, label ? label : op);
  if (!s)
    return -1;
  ts_spec sp = spec_of(L, st);
  if (t->load(&sp, s))
    return -1;
  if (h->mutexes && blocks_thread(t, s))
    return ts_jfail(&L->c, "op", L->e, "%s while mutex \"%s\" is held: a thread must not leave the CPU while it holds "
                    "an OS mutex (only cpu without slicing, mutexes, notify, add, marks and spans)",
                    t == &ts_op_cpu ? "a sliced cpu step" : op, mutex_held(L, h));
  if (t == &ts_op_lock || t == &ts_op_unlock)
    if (lock_bit_check(L, h, s, t == &ts_op_lock))
      return -1;
  if (t == &ts_op_mark) {
    int start = s->mark == TS_MARK_WAVE_START;
    if (!h->top)
      return ts_jfail(&L->c, "name", L->e, "a mark must be at the program's top level (not inside repeat, if or call)");
    if ((start && h->marks > 0) || (!start && h->marks > 1))
      return ts_jfail(&L->c, "name", L->e, "%s after %s: expected at most one wave_start, then at most one wave_end",
                      start ? "wave_start" : "wave_end", h->marks == 2 ? "wave_end" : "wave_start");
    h->marks = start ? 1 : 2;
  }
  if (t == &ts_op_cpu || t == &ts_op_io || t == &ts_op_sleep || t == &ts_op_wait || t == &ts_op_hop ||
      t == &ts_op_lock || t == &ts_op_yield)
    h->takes_time = 1;
  if (t == &ts_op_sleep)
    L->m->has_sleep = 1;
  if (t == &ts_op_cpu && s->kernel)
    L->m->has_kernel_cpu = 1;
  if (t == &ts_op_hop)
    L->m->has_hop = 1;
  return 0;
}

static int compile_repeat(loader *L, const cJSON *st, const char *label, held *h)
{
  static const char *const keys[] = {"op", "label", "note", "count", "name", "span", "steps", NULL};
  const char *name = NULL;
  if (ts_jcheck_keys(&L->c, st, keys, L->e) || ts_jget_string(&L->c, st, "name", 0, &name, L->e))
    return -1;
  if (name && !is_identifier(name))
    return ts_jfail(&L->c, "name", L->e, "expected a loop name of letters, digits and '_' (not a digit first, not "
                    "i, n, W, worker, pool_size or now), got \"%s\"", name);
  if (L->depth >= TS_MAX_LOOP_DEPTH)
    return ts_jfail(&L->c, NULL, L->e, "repeats nested more than %d deep", TS_MAX_LOOP_DEPTH);
  size_t b = L->nsteps;
  if (!emit(L, &ts_op_repeat, label ? label : "repeat"))
    return -1;
  const cJSON *count = cJSON_GetObjectItemCaseSensitive(st, "count");
  if (!count)
    return ts_jfail(&L->c, "count", L->e, "missing (required): a number, \"$param\", an expression or \"forever\"");
  if (cJSON_IsString(count) && strcmp(count->valuestring, "forever") == 0)
    L->steps[b].forever = 1;
  else if (ts_load_expr(L, st, "count", 1, &L->steps[b].expr))
    return -1;
  ts_spec sp = spec_of(L, st);
  if (ts_spec_has(&sp, "span") && ts_spec_span(&sp, "span", 1, &L->steps[b].span))
    return -1;
  if (L->steps[b].span >= 0)
    ts_spec_span_sampled(&sp, L->steps[b].span);
  L->steps[b].slot = L->depth;
  L->loop_name[L->depth++] = name;
  if (L->depth > L->max_depth)
    L->max_depth = L->depth;
  held inner = *h;
  inner.top = 0;
  inner.takes_time = 0;
  int bad = compile_block(L, st, "steps", 1, &inner);
  L->depth--;
  if (bad)
    return -1;
  if (inner.locks != h->locks)
    return ts_jfail(&L->c, "steps", L->e, "the repeated steps do not release what they take (or release what they "
                    "did not take): every iteration must leave the same locks held");
  if (L->steps[b].forever && !inner.takes_time)
    return ts_jfail(&L->c, "count", L->e, "\"forever\" around steps that take no time: it would never end (add a "
                    "cpu, io, sleep or wait)");
  h->takes_time |= inner.takes_time;
  h->marks = inner.marks;
  ts_step *e = emit(L, &ts_op_repeat_end, "end repeat");
  if (!e)
    return -1;
  e->jump = (int)b;
  L->steps[b].jump = (int)(L->nsteps - 1);
  return 0;
}

static int compile_if(loader *L, const cJSON *st, const char *label, held *h)
{
  static const char *const keys[] = {"op", "label", "note", "cond", "then", "else", NULL};
  if (ts_jcheck_keys(&L->c, st, keys, L->e))
    return -1;
  size_t i = L->nsteps;
  if (!emit(L, &ts_op_if, label ? label : "if") || ts_load_expr(L, st, "cond", 1, &L->steps[i].expr))
    return -1;
  held a = *h, b = *h;
  a.top = b.top = 0;
  if (compile_block(L, st, "then", 1, &a))
    return -1;
  if (cJSON_GetObjectItemCaseSensitive(st, "else")) {
    size_t j = L->nsteps;
    if (!emit(L, &ts_op_jump, "end if"))
      return -1;
    L->steps[i].jump = (int)L->nsteps;
    if (compile_block(L, st, "else", 1, &b))
      return -1;
    L->steps[j].jump = (int)L->nsteps;
  } else {
    L->steps[i].jump = (int)L->nsteps;
  }
  if (a.locks != b.locks)
    return ts_jfail(&L->c, "then", L->e, "the branches leave different locks held: every path must take and release "
                    "the same locks");
  h->locks = a.locks;
  h->mutexes = a.mutexes;
  h->takes_time |= a.takes_time | b.takes_time;
  return 0;
}

static int class_of_name(const char *s)
{
  return strcmp(s, "foreground") == 0 ? TS_CLASS_FOREGROUND : strcmp(s, "normal") == 0 ? TS_CLASS_NORMAL
         : strcmp(s, "background") == 0 ? TS_CLASS_BACKGROUND : -1;
}

static int server_named(const ts_model *m, const char *name)
{
  for (size_t i = 0; i < m->nservers; i++)
    if (strcmp(m->servers[i].name, name) == 0)
      return 1;
  return 0;
}

static int compile_call(loader *L, const cJSON *st, const char *label, held *h)
{
  static const char *const keys[] = {"op", "label", "note", "server", "class", "request_ms", "reply_ms", "send_ms",
                                     "recv_ms", "work_ms", "span", "wait", "handler", NULL};
  int wait = 1;
  if (ts_jcheck_keys(&L->c, st, keys, L->e) || ts_jget_bool(&L->c, st, "wait", 0, &wait, L->e))
    return -1;
  if (h->mutexes)
    return ts_jfail(&L->c, "op", L->e, "call while mutex \"%s\" is held: a thread must not wait while it holds an OS "
                    "mutex", mutex_held(L, h));
  size_t sp_at = L->nsteps;
  if (!wait && !emit(L, &ts_op_spawn, "spawn call"))
    return -1;
  size_t c = L->nsteps;
  ts_step *s = emit(L, &ts_op_call, label ? label : "call");
  if (!s)
    return -1;
  ts_spec sp = spec_of(L, st);
  const char *klass = "normal";
  const char *sname = NULL;
  if (ts_jget_string(&L->c, st, "server", 1, &sname, L->e))
    return -1;
  if (ts_model_find_pool(L->m, sname) >= 0 && !server_named(L->m, sname))
    return ts_jfail(&L->c, "server", L->e, "\"%s\" is a pool of workers, not a server: declare a server on it in "
                    "\"servers\" ({\"name\": ..., \"pool\": \"%s\"}) and call that", sname, sname);
  if (ts_spec_ref(&sp, "server", 1, TS_REF_SERVER, &s->ref) || ts_spec_string(&sp, "class", 0, &klass) ||
      ts_spec_dist(&sp, "request_ms", 0, &s->cost) || ts_spec_dist(&sp, "reply_ms", 0, &s->cost2) ||
      ts_spec_time(&sp, "send_ms", 0, &s->send) || ts_spec_time(&sp, "recv_ms", 0, &s->recv) ||
      ts_spec_time(&sp, "work_ms", 0, &s->work) || (ts_spec_has(&sp, "span") && ts_spec_span(&sp, "span", 1, &s->span)))
    return -1;
  if (s->span >= 0)
    ts_spec_span_sampled(&sp, s->span);
  s->klass = class_of_name(klass);
  if (s->klass < 0)
    return ts_jfail(&L->c, "class", L->e, "expected foreground, normal or background; got \"%s\"", klass);
  s->send = (ts_time)((double)s->send * L->m->cpu_scale + 0.5); /* CPU costs follow host.cpu_scale */
  s->recv = (ts_time)((double)s->recv * L->m->cpu_scale + 0.5);
  s->wait = wait != 0;
  held inner = *h;
  inner.top = 0;
  size_t first = L->nsteps;
  if (compile_block(L, st, "handler", 0, &inner))
    return -1;
  if (!cJSON_GetObjectItemCaseSensitive(st, "work_ms")) /* declared work: the handler's fixed CPU */
    for (size_t i = first; i < L->nsteps; i++)
      if (L->steps[i].type == &ts_op_cpu && !L->steps[i].cost.mean_ms)
        L->steps[c].work += L->steps[i].cost.mean;
  if (inner.locks != h->locks)
    return ts_jfail(&L->c, "handler", L->e, "the handler does not release what it takes");
  ts_step *e = emit(L, &ts_op_call_end, "reply");
  if (!e)
    return -1;
  e->jump = (int)c;
  L->steps[c].jump = (int)(L->nsteps - 1);
  if (!wait) {
    if (!emit(L, &ts_op_exit, "end of spawned call"))
      return -1;
    L->steps[sp_at].jump = (int)L->nsteps;
  }
  h->takes_time = 1;
  L->m->has_call = 1;
  return 0;
}

static int compile_spawn(loader *L, const cJSON *st, const char *label, held *h)
{
  static const char *const keys[] = {"op", "label", "note", "steps", NULL};
  if (ts_jcheck_keys(&L->c, st, keys, L->e))
    return -1;
  size_t b = L->nsteps;
  if (!emit(L, &ts_op_spawn, label ? label : "spawn"))
    return -1;
  held inner = {.top = 0};
  if (compile_block(L, st, "steps", 1, &inner))
    return -1;
  if (inner.locks)
    return ts_jfail(&L->c, "steps", L->e, "the spawned steps do not release every lock they take");
  if (!emit(L, &ts_op_exit, "end of spawned task"))
    return -1;
  L->steps[b].jump = (int)L->nsteps;
  (void)h;
  return 0;
}

static int compile_step(loader *L, const cJSON *st, held *h)
{
  const char *op, *label = NULL;
  if (!cJSON_IsObject(st))
    return ts_jfail(&L->c, NULL, L->e, "expected a step object {\"op\": ...}");
  if (ts_jget_string(&L->c, st, "op", 1, &op, L->e) || ts_jget_string(&L->c, st, "label", 0, &label, L->e))
    return -1;
  if (strcmp(op, "repeat") == 0)
    return compile_repeat(L, st, label, h);
  if (strcmp(op, "if") == 0)
    return compile_if(L, st, label, h);
  if (strcmp(op, "call") == 0)
    return compile_call(L, st, label, h);
  if (strcmp(op, "spawn") == 0)
    return compile_spawn(L, st, label, h);
  return compile_leaf(L, st, op, label, h);
}

static int compile_block(loader *L, const cJSON *obj, const char *key, int required, held *h)
{
  const cJSON *arr = NULL, *it;
  if (ts_jget_array(&L->c, obj, key, required, &arr, L->e))
    return -1;
  if (!arr)
    return 0;
  if (!arr->child && required)
    return ts_jfail(&L->c, key, L->e, "expected at least one step");
  int i = 0;
  cJSON_ArrayForEach(it, arr)
  {
    size_t old = ts_jpush_key(&L->c, key);
    ts_jpush_index(&L->c, i++);
    int bad = compile_step(L, it, h);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  return 0;
}

/* ---- classes ---- */

static int load_arrival(loader *L, const cJSON *arr, ts_class *k)
{
  static const char *const keys[] = {"kind", "start_ms", "spacing_ms", "period_ms", "phase_ms", "jitter_ms",
                                     "rate_per_s", "after", "delay_ms", "note", NULL};
  static const char *const kinds[] = {"at", "periodic", "poisson", "after", NULL};
  int kind = 0;
  ts_arrival *a = &k->arrival;
  if (ts_jcheck_keys(&L->c, arr, keys, L->e) || enum_field(L, arr, "kind", kinds, &kind))
    return -1;
  a->kind = (ts_arrival_kind)kind;
  static const char *const only[][5] = {{"start_ms", "spacing_ms", NULL},
                                        {"period_ms", "phase_ms", "jitter_ms", NULL},
                                        {"rate_per_s", "start_ms", NULL},
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
  if (time_field(L, arr, "start_ms", &a->start) || time_field(L, arr, "spacing_ms", &a->spacing) ||
      time_field(L, arr, "phase_ms", &a->phase) || time_field(L, arr, "jitter_ms", &a->jitter) ||
      time_field(L, arr, "delay_ms", &a->delay))
    return -1;
  if (a->kind == TS_ARRIVE_PERIODIC) {
    ts_spec sp = spec_of(L, arr);
    if (ts_spec_time(&sp, "period_ms", 1, &a->period))
      return -1;
    if (a->period <= 0)
      return ts_jfail(&L->c, "period_ms", L->e, "expected a period > 0");
  }
  if (a->kind == TS_ARRIVE_POISSON &&
      ts_jget_number(&L->c, arr, "rate_per_s", 1, 1e-9, 1e9, &a->rate_per_s, L->e))
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
      enum_field(L, pl, "rule", rules, &rule))
    return -1;
  if (pool && (k->pool = ts_model_find_pool(L->m, pool)) < 0)
    return ts_jfail(&L->c, "pool", L->e, "no pool named \"%s\" (the main pool is \"%s\")", pool, L->m->pools[0].name);
  if (cJSON_GetObjectItemCaseSensitive(pl, "worker") && !cJSON_GetObjectItemCaseSensitive(pl, "rule"))
    rule = 1;
  k->place = (ts_place_rule)rule;
  if (rule == TS_PLACE_FIXED)
    return class_expr(L, pl, "worker", 1, &k->place_worker);
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
  ts_expr_free(e);
  if (!known)
    return ts_jfail(&L->c, key, L->e, "expected a value known at load time (numbers and $params only)");
  if (!(v >= lo && v <= hi) || v != floor(v))
    return ts_jfail(&L->c, key, L->e, "expected an integer in [%g, %g], got %g", lo, hi, v);
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
    if (!is_identifier(it->string))
      bad = ts_jfail(&L->c, it->string, L->e, "expected a name of letters, digits and '_' (not a built-in name)");
    else if (ts_load_expr(L, lets, it->string, 1, &k->lets[k->nlets]))
      bad = 1;
    else if (!(k->let_names[k->nlets++] = dup_or_fail(L, it->string)))
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
                    "\"$param\", an expression or \"forever\"", TS_MAX_ACTORS);
  if (cJSON_IsString(cnt) && strcmp(cnt->valuestring, "forever") == 0) {
    k->forever = 1;
    return 0;
  }
  if (cJSON_IsNumber(cnt) && (cnt->valuedouble < 0 || cnt->valuedouble > TS_MAX_ACTORS ||
                              cnt->valuedouble != floor(cnt->valuedouble)))
    return ts_jfail(&L->c, "count", L->e, "expected \"n\" (the sweep's n) or an integer in [0, %ld]", TS_MAX_ACTORS);
  if (!cJSON_IsNumber(cnt) && !cJSON_IsString(cnt))
    return ts_jfail(&L->c, "count", L->e, "expected \"n\" (the sweep's n), an integer in [0, %ld] or an expression",
                    TS_MAX_ACTORS);
  return count_expr(L, jc, &k->count);
}

static int load_class(loader *L, const cJSON *jc, int index)
{
  static const char *const keys[] = {"name", "count", "queue_class", "arrival", "placement", "report", "size_bytes",
                                     "let", "program", "program_of", "note", NULL};
  ts_model *m = L->m;
  ts_class *k = &m->classes[index];
  const char *name = "actor", *qc = "normal";
  const cJSON *arr = NULL, *pl = NULL;
  int report = 1;
  if (!cJSON_IsObject(jc))
    return ts_jfail(&L->c, NULL, L->e, "expected a class object");
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 0, &name, L->e) ||
      ts_jget_string(&L->c, jc, "queue_class", 0, &qc, L->e) || ts_jget_object(&L->c, jc, "arrival", 0, &arr, L->e) ||
      ts_jget_object(&L->c, jc, "placement", 0, &pl, L->e) || ts_jget_bool(&L->c, jc, "report", 0, &report, L->e))
    return -1;
  if (check_name(L, "name", name))
    return -1;
  for (int j = 0; j < index; j++)
    if (strcmp(m->classes[j].name, name) == 0)
      return ts_jfail(&L->c, "name", L->e, "duplicate class name \"%s\"", name);
  if (!(k->name = dup_or_fail(L, name)))
    return -1;
  k->report = report;
  L->klass = k;
  if (load_lets(L, jc, k) || const_field(L, jc, "size_bytes", 0, 1e12, &k->size_bytes))
    return -1;
  if (load_count(L, jc, k))
    return -1;
  k->sched_class = class_of_name(qc);
  if (k->sched_class < 0)
    return ts_jfail(&L->c, "queue_class", L->e, "expected foreground, normal or background; got \"%s\"", qc);
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
  held h = {.top = 1};
  const char *of = NULL;
  if (ts_jget_string(&L->c, jc, "program_of", 0, &of, L->e))
    return -1;
  const cJSON *src = jc;
  if (of) { /* the program of another class, compiled again for this one */
    if (cJSON_GetObjectItemCaseSensitive(jc, "program"))
      return ts_jfail(&L->c, "program_of", L->e, "expected either \"program\" or \"program_of\", not both");
    const cJSON *it;
    src = NULL;
    cJSON_ArrayForEach(it, L->classes_json)
    {
      const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
      if (it != jc && cJSON_IsString(nm) && strcmp(nm->valuestring, of) == 0 &&
          cJSON_GetObjectItemCaseSensitive(it, "program"))
        src = it;
    }
    if (!src)
      return ts_jfail(&L->c, "program_of", L->e, "no class named \"%s\" with a \"program\"", of);
  }
  int bad = compile_block(L, src, "program", 1, &h);
  k->steps = L->steps;
  k->nsteps = L->nsteps;
  k->loops = L->max_depth;
  L->steps = NULL;
  L->klass = NULL;
  if (bad)
    return -1;
  if (h.locks) {
    for (size_t d = 0; d < m->nlocks; d++)
      if (h.locks & (UINT64_C(1) << d))
        return ts_jfail(&L->c, "program", L->e, "lock \"%s\" is never released (every lock taken must be released "
                        "on every path)", m->locks[d].name);
  }
  return 0;
}

/* ---- declarations ---- */

static int scope_of(loader *L, const cJSON *obj, int *scope, int *instances, const char *what)
{
  static const char *const scopes[] = {"actor", "shared", "per_worker", "indexed", NULL};
  int64_t n = 0;
  *scope = TS_SCOPE_ACTOR;
  if (enum_field(L, obj, "scope", scopes, scope) || int_field(L, obj, "instances", 1, 1000000, &n))
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
  return check_name(L, "name", name);
}

static int load_lock(loader *L, const cJSON *jl, int i)
{
  static const char *const keys[] = {"name", "kind", "scope", "instances", "capacity", "handoff", "acquire_ms",
                                     "release_ms", "spin_ms", "futex_wait_ms", "futex_wake_ms", "wake_latency_ms",
                                     "size_bytes", "note", NULL};
  static const char *const kinds[] = {"async", "mutex", NULL};
  static const char *const handoffs[] = {"fifo", "barging", NULL};
  static const char *const mutex_only[] = {"handoff", "acquire_ms", "release_ms", "spin_ms", "futex_wait_ms",
                                           "futex_wake_ms", "wake_latency_ms", NULL};
  ts_lock_decl *d = &L->m->locks[i];
  const char *name;
  int kind = 0, scope, inst, handoff = 0;
  int64_t cap = 1;
  if (!cJSON_IsObject(jl))
    return ts_jfail(&L->c, NULL, L->e, "expected {\"name\": ..., \"scope\": ...}");
  if (ts_jcheck_keys(&L->c, jl, keys, L->e) || ts_jget_string(&L->c, jl, "name", 1, &name, L->e) ||
      enum_field(L, jl, "kind", kinds, &kind) || scope_of(L, jl, &scope, &inst, "lock") ||
      int_field(L, jl, "capacity", 1, 1000000, &cap) || enum_field(L, jl, "handoff", handoffs, &handoff) ||
      time_field(L, jl, "acquire_ms", &d->acquire) || time_field(L, jl, "release_ms", &d->release) ||
      time_field(L, jl, "spin_ms", &d->spin) || time_field(L, jl, "futex_wait_ms", &d->futex_wait) ||
      time_field(L, jl, "futex_wake_ms", &d->futex_wake) || time_field(L, jl, "wake_latency_ms", &d->wake_latency) ||
      int_field(L, jl, "size_bytes", 0, INT64_C(1) << 40, &d->size_bytes))
    return -1;
  if (kind != TS_LOCK_MUTEX)
    for (int k = 0; mutex_only[k]; k++)
      if (cJSON_GetObjectItemCaseSensitive(jl, mutex_only[k]))
        return ts_jfail(&L->c, mutex_only[k], L->e, "only for \"kind\": \"mutex\"");
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->locks[j].name;
  if (unique(L, name, names, (size_t)i, "lock") || !(d->name = dup_or_fail(L, name)))
    return -1;
  double k = L->m->cpu_scale; /* CPU costs follow host.cpu_scale */
  ts_time *cpu[] = {&d->acquire, &d->release, &d->spin, &d->futex_wait, &d->futex_wake};
  for (size_t c = 0; c < sizeof cpu / sizeof *cpu; c++)
    *cpu[c] = (ts_time)((double)*cpu[c] * k + 0.5);
  d->kind = (ts_lock_kind)kind;
  d->scope = (ts_scope)scope;
  d->instances = inst;
  d->capacity = (int)cap;
  d->barging = handoff == 1;
  L->m->nlocks++;
  if (kind == TS_LOCK_MUTEX)
    L->m->has_mutex = 1;
  return 0;
}

static int load_channel(loader *L, const cJSON *jc, int i)
{
  static const char *const keys[] = {"name", "scope", "instances", "tokens", "wake_ms", "wake_latency_ms",
                                     "size_bytes", "note", NULL};
  ts_chan_decl *d = &L->m->chans[i];
  const char *name;
  int scope, inst, tokens = 0;
  if (!cJSON_IsObject(jc))
    return ts_jfail(&L->c, NULL, L->e, "expected {\"name\": ..., \"scope\": ...}");
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 1, &name, L->e) ||
      scope_of(L, jc, &scope, &inst, "channel") || ts_jget_bool(&L->c, jc, "tokens", 0, &tokens, L->e) ||
      time_field(L, jc, "wake_ms", &d->wake_cpu) || time_field(L, jc, "wake_latency_ms", &d->wake_latency) ||
      int_field(L, jc, "size_bytes", 0, INT64_C(1) << 40, &d->size_bytes))
    return -1;
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->chans[j].name;
  if (unique(L, name, names, (size_t)i, "channel") || !(d->name = dup_or_fail(L, name)))
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
    return ts_jfail(&L->c, NULL, L->e, "expected {\"name\": ..., \"initial\": ...}");
  ts_spec sp = spec_of(L, jc);
  if (ts_jcheck_keys(&L->c, jc, keys, L->e) || ts_jget_string(&L->c, jc, "name", 1, &name, L->e) ||
      ts_spec_number(&sp, "initial", 0, -1e15, 1e15, &d->initial))
    return -1;
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->counters[j].name;
  if (unique(L, name, names, (size_t)i, "counter"))
    return -1;
  if (!is_identifier(name))
    return ts_jfail(&L->c, "name", L->e, "expected a counter name of letters, digits and '_' (not a built-in name "
                    "of expressions), got \"%s\"", name);
  if (!(d->name = dup_or_fail(L, name)))
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
    static const char *const wkeys[] = {"foreground", "normal", "background", NULL};
    size_t old = ts_jpush_key(&L->c, "weights");
    int bad = ts_jcheck_keys(&L->c, wj, wkeys, L->e);
    for (int c = 0; c < TS_NCLASSES && !bad; c++)
      bad = ts_jget_number(&L->c, wj, wkeys[c], 0, 1e-6, 1e6, &sp->weights[c], L->e);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  *policy = ts_sched_find(name);
  if (!*policy) {
    char list[200] = "";
    for (const ts_sched_type *const *t = ts_sched_all(); *t; t++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s%s", l ? ", " : "", (*t)->name);
    }
    return ts_jfail(&L->c, "policy", L->e, "expected a queue policy (%s); got \"%s\"", list, name);
  }
  return 0;
}

static int load_pool_fields(loader *L, const cJSON *wj, ts_pool *p, int main)
{
  static const char *const keys[] = {"name", "kind", "count", "policy", "threshold_ms", "priority_divisor",
                                     "priority_min_ms", "yield_overhead_ms", "loop_overhead_ms", "burst_limit",
                                     "weights", "note", NULL};
  static const char *const kinds[] = {"event_loop", "thread", NULL};
  const char *name = main ? "main" : NULL;
  int kind = 0;
  int64_t div = 4;
  if (ts_jcheck_keys(&L->c, wj, keys, L->e) || ts_jget_string(&L->c, wj, "name", !main, &name, L->e) ||
      enum_field(L, wj, "kind", kinds, &kind) || int_field(L, wj, "priority_divisor", 1, 1000, &div) ||
      load_policy(L, wj, &p->policy, &p->sched))
    return -1;
  if (check_name(L, "name", name) || !(p->name = dup_or_fail(L, name)))
    return -1;
  p->kind = (ts_worker_kind)kind;
  p->priority_divisor = (int)div;
  p->threshold = kind == TS_WORKER_THREAD ? TS_TIME_MAX : ts_time_from_ms(10);
  p->priority_min = ts_time_from_ms(2);
  if (time_field(L, wj, "threshold_ms", &p->threshold) || time_field(L, wj, "priority_min_ms", &p->priority_min) ||
      time_field(L, wj, "yield_overhead_ms", &p->yield_overhead) ||
      time_field(L, wj, "loop_overhead_ms", &p->loop_overhead))
    return -1;
  if (kind == TS_WORKER_THREAD) {
    L->m->has_thread = 1;
    if (p->policy != &ts_sched_fifo)
      return ts_jfail(&L->c, "policy", L->e, "a thread's run queue is FIFO; queue policies apply to event loops and "
                      "servers");
    if (cJSON_GetObjectItemCaseSensitive(wj, "loop_overhead_ms"))
      return ts_jfail(&L->c, "loop_overhead_ms", L->e, "only for \"kind\": \"event_loop\"");
  }
  if (main) {
    if (cJSON_GetObjectItemCaseSensitive(wj, "count"))
      return ts_jfail(&L->c, "count", L->e, "the main pool has the sweep's number of workers (scenario \"workers\")");
    return 0;
  }
  return count_expr(L, wj, &p->count);
}

static int load_pool(loader *L, const cJSON *jp, int i)
{
  ts_pool *p = &L->m->pools[i + 1];
  if (!cJSON_IsObject(jp))
    return ts_jfail(&L->c, NULL, L->e, "expected a pool object {\"name\": ..., \"count\": ...}");
  L->m->npools++;
  if (load_pool_fields(L, jp, p, 0))
    return -1;
  for (int j = 0; j <= i; j++)
    if (strcmp(L->m->pools[j].name, p->name) == 0)
      return ts_jfail(&L->c, "name", L->e, "duplicate pool name \"%s\"", p->name);
  return 0;
}

static int load_pools(loader *L, const cJSON *root)
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
  static const char *const keys[] = {"name", "pool", "worker", "concurrency", "policy", "burst_limit", "weights",
                                     "note", NULL};
  ts_server_decl *d = &L->m->servers[i];
  const char *name, *pool = NULL;
  int64_t conc = 1;
  if (!cJSON_IsObject(js))
    return ts_jfail(&L->c, NULL, L->e, "expected a server object {\"name\": ..., \"pool\": ...}");
  if (ts_jcheck_keys(&L->c, js, keys, L->e) || ts_jget_string(&L->c, js, "name", 1, &name, L->e) ||
      ts_jget_string(&L->c, js, "pool", 0, &pool, L->e) || int_field(L, js, "concurrency", 1, 1000000, &conc) ||
      load_policy(L, js, &d->policy, &d->sched) || class_expr(L, js, "worker", 0, &d->worker))
    return -1;
  const char *names[64];
  for (int j = 0; j < i; j++)
    names[j] = L->m->servers[j].name;
  if (unique(L, name, names, (size_t)i, "server") || !(d->name = dup_or_fail(L, name)))
    return -1;
  L->m->nservers++;
  d->pool = pool ? ts_model_find_pool(L->m, pool) : 0;
  if (d->pool < 0)
    return ts_jfail(&L->c, "pool", L->e, "no pool named \"%s\"", pool);
  d->concurrency = (int)conc;
  return 0;
}

static int load_locks(loader *L, const cJSON *root)
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

/* ---- host ---- */

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
  const cJSON *x = ns->child, *v = vs->child;
  for (int i = 0; i < k; i++, x = x->next, v = v->next) {
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || (i > 0 && x->valuedouble <= m->scale_n[i - 1]))
      return ts_jfail(&L->c, "n", L->e, "expected increasing numbers >= 0");
    if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > 1e3)
      return ts_jfail(&L->c, "scale", L->e, "expected numbers in (0, 1000]");
    m->scale_n[i] = x->valuedouble;
    m->scale_v[i] = v->valuedouble;
  }
  return 0;
}

/* {"baseline": FILE, "metric": NAME}: scale(x) = metric(x) / metric(smallest x),
 * read from a recorded baseline (workers = 1 points), so no number is copied by hand. */
static int scale_from_baseline(loader *L, ts_model *m, const cJSON *t)
{
  const char *file, *metric = "per_group_cpu_ms";
  if (ts_jget_string(&L->c, t, "baseline", 1, &file, L->e) || ts_jget_string(&L->c, t, "metric", 0, &metric, L->e))
    return -1;
  if (ts_metric_builtin(metric) < 0)
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
    k += strcmp(b.rec[i].metric, metric) == 0 && b.rec[i].workers == 1 && !b.rec[i].axes;
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
    if (strcmp(b.rec[i].metric, metric) == 0 && b.rec[i].workers == 1 && !b.rec[i].axes) {
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
    if (!(m->scale_v[i] > 0 && m->scale_v[i] <= 1e3)) /* what a table may hold */
      return ts_jfail(&L->c, "baseline", L->e, "%s at n = %g is %g times its value at n = %g: expected a CPU scale "
                      "in (0, 1000]", metric, m->scale_n[i], m->scale_v[i], m->scale_n[0]);
  }
  return 0;
}

static int load_cpu_scale_by_n(loader *L, ts_model *m, const cJSON *h)
{
  static const char *const keys[] = {"n", "scale", "baseline", "metric", "by", "note", NULL};
  static const char *const bys[] = {"worker", "n", NULL};
  const cJSON *t = NULL;
  if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "cpu_scale_by_n")))
    return 0; /* null: no table (e.g. --set host.cpu_scale_by_n=null) */
  if (ts_jget_object(&L->c, h, "cpu_scale_by_n", 0, &t, L->e))
    return -1;
  if (!t)
    return 0;
  size_t old = ts_jpush_key(&L->c, "cpu_scale_by_n");
  int by = 0, from_baseline = cJSON_GetObjectItemCaseSensitive(t, "baseline") != NULL;
  int bad = ts_jcheck_keys(&L->c, t, keys, L->e) || enum_field(L, t, "by", bys, &by);
  if (!bad && from_baseline && (cJSON_GetObjectItemCaseSensitive(t, "n") || cJSON_GetObjectItemCaseSensitive(t, "scale")))
    bad = ts_jfail(&L->c, "baseline", L->e, "expected either \"baseline\" (and \"metric\") or the table \"n\" and "
                   "\"scale\", not both");
  if (!bad && !from_baseline && cJSON_GetObjectItemCaseSensitive(t, "metric"))
    bad = ts_jfail(&L->c, "metric", L->e, "\"metric\" names what to read from a \"baseline\", and there is none");
  if (!bad)
    bad = from_baseline ? scale_from_baseline(L, m, t) : scale_from_table(L, m, t);
  m->scale_by_worker = by == 0;
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

static int load_host_dispatch(loader *L, ts_model *m, const cJSON *root)
{
  static const char *const hkeys[] = {"cores", "cpu_scale", "cpu_scale_by_n", "instructions_per_ms", "note", NULL};
  static const char *const dkeys[] = {"policy", "task_id", "group_prefix", "note", NULL};
  const cJSON *h = NULL, *d = NULL, *ip = NULL;
  long cores = 0;
  const char *policy = "hash", *task = "task", *prefix = "cg";
  m->cpu_scale = 1;
  if (ts_jget_object(&L->c, root, "host", 0, &h, L->e) || ts_jget_object(&L->c, root, "dispatch", 0, &d, L->e))
    return -1;
  if (h) {
    size_t old = ts_jpush_key(&L->c, "host");
    int bad = ts_jcheck_keys(&L->c, h, hkeys, L->e) || ts_jget_int(&L->c, h, "cores", 0, 0, 4096, &cores, L->e) ||
              ts_jget_number(&L->c, h, "cpu_scale", 0, 1e-6, 1e3, &m->cpu_scale, L->e) ||
              load_cpu_scale_by_n(L, m, h) || ts_jget_object(&L->c, h, "instructions_per_ms", 0, &ip, L->e);
    if (!bad && ip) {
      static const char *const ikeys[] = {"user", "kernel", "note", NULL};
      size_t o2 = ts_jpush_key(&L->c, "instructions_per_ms");
      bad = ts_jcheck_keys(&L->c, ip, ikeys, L->e) ||
            ts_jget_number(&L->c, ip, "user", 1, 0, 1e12, &m->ipms_user, L->e) ||
            ts_jget_number(&L->c, ip, "kernel", 1, 0, 1e12, &m->ipms_kernel, L->e);
      ts_jpop(&L->c, o2);
    }
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
  if (!(m->task_id = dup_or_fail(L, task)) || !(m->group_prefix = dup_or_fail(L, prefix)))
    return -1;
  return 0;
}

/* ---- model-defined metrics ---- */

static int load_metric(loader *L, ts_model *m, const cJSON *jm)
{
  static const char *const keys[] = {"span", "actor", "stat", "expr", "per", "meaning", "note", NULL};
  static const char *const pers[] = {"pooled", "replication", NULL};
  static const char *const actor_stats[] = {"median", "p95", "mean", "p99", "max", NULL};
  ts_metric_spec *d = &m->metrics[m->nmetrics];
  const char *span = NULL, *stat = "p50", *expr = NULL, *meaning = "", *actor = NULL;
  int per = -1;
  size_t old = ts_jpush_key(&L->c, jm->string);
  int bad = !cJSON_IsObject(jm)
                ? ts_jfail(&L->c, NULL, L->e, "expected {\"span\": NAME, \"stat\": ...} or {\"expr\": ...}")
                : ts_jcheck_keys(&L->c, jm, keys, L->e) || ts_jget_string(&L->c, jm, "span", 0, &span, L->e) ||
                      ts_jget_string(&L->c, jm, "stat", 0, &stat, L->e) ||
                      ts_jget_string(&L->c, jm, "expr", 0, &expr, L->e) ||
                      ts_jget_string(&L->c, jm, "actor", 0, &actor, L->e) ||
                      ts_jget_string(&L->c, jm, "meaning", 0, &meaning, L->e) || enum_field(L, jm, "per", pers, &per);
  if (!bad && (!!span + !!expr + !!actor) != 1)
    bad = ts_jfail(&L->c, NULL, L->e, "expected exactly one of \"span\", \"actor\" and \"expr\"");
  if (!bad && actor) {
    d->kind = TS_MDEF_ACTOR;
    d->stat = -1;
    for (int k = 0; actor_stats[k]; k++)
      if (strcmp(actor_stats[k], strcmp(stat, "p50") == 0 ? "median" : stat) == 0)
        d->stat = k;
    if (d->stat < 0)
      bad = ts_jfail(&L->c, "stat", L->e, "expected median, p95, mean, p99 or max; got \"%s\"", stat);
    else if (!(d->actor = strdup(actor)))
      bad = ts_jfail(&L->c, NULL, L->e, "out of memory");
  }
  if (!bad && span) {
    d->kind = TS_MDEF_SPAN;
    d->span = -1;
    for (size_t s = 0; s < m->nspans; s++)
      if (strcmp(m->spans[s].name, span) == 0)
        d->span = (int)s;
    d->stat = ts_span_stat_find(stat);
    if (d->span < 0)
      bad = ts_jfail(&L->c, "span", L->e, "no span named \"%s\" in the programs", span);
    else if (d->stat < 0)
      bad = ts_jfail(&L->c, "stat", L->e, "expected count, rate_per_s, mean, p50, p95 or p99; got \"%s\"", stat);
  }
  if (!bad && expr)
    d->kind = TS_MDEF_EXPR;
  if (!bad && ts_metric_builtin(jm->string) >= 0)
    bad = ts_jfail(&L->c, NULL, L->e, "\"%s\" is a built-in metric", jm->string);
  if (!bad && strspn(jm->string, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(jm->string))
    bad = ts_jfail(&L->c, NULL, L->e, "expected a metric name of lower-case letters, digits and '_'");
  d->per_replication = per < 0 ? d->kind == TS_MDEF_EXPR : per == 1;
  if (!bad && d->kind == TS_MDEF_ACTOR && d->per_replication)
    bad = ts_jfail(&L->c, "per", L->e, "an actor metric pools every actor of every replication");
  ts_jpop(&L->c, old);
  if (bad) { /* not counted in m->nmetrics: free what it holds here */
    free(d->actor);
    d->actor = NULL;
    return -1;
  }
  d->name = strdup(jm->string);
  d->meaning = strdup(meaning);
  d->expr = expr ? strdup(expr) : NULL;
  m->nmetrics++;
  if (!d->name || !d->meaning || (expr && !d->expr))
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  return 0;
}

static int load_metrics(loader *L, ts_model *m, const cJSON *root)
{
  const cJSON *ms = NULL, *it;
  if (ts_jget_object(&L->c, root, "metrics", 0, &ms, L->e))
    return -1;
  if (!ms)
    return 0;
  size_t n = 0;
  cJSON_ArrayForEach(it, ms) n++;
  if (n > 256)
    return ts_jfail(&L->c, "metrics", L->e, "at most 256 metrics");
  m->metrics = calloc(n + 1, sizeof *m->metrics);
  if (!m->metrics)
    return ts_jfail(&L->c, "metrics", L->e, "out of memory");
  size_t old = ts_jpush_key(&L->c, "metrics");
  int bad = 0;
  cJSON_ArrayForEach(it, ms) if (!bad) bad = load_metric(L, m, it);
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

/* The numeric params, kept for metric expressions ($name). */
static int load_params(loader *L, ts_model *m)
{
  const cJSON *it;
  size_t n = 0;
  if (!L->params)
    return 0;
  cJSON_ArrayForEach(it, L->params) n += cJSON_IsNumber(it);
  m->param_names = calloc(n + 1, sizeof *m->param_names);
  m->param_values = calloc(n + 1, sizeof *m->param_values);
  if (!m->param_names || !m->param_values)
    return ts_jfail(&L->c, "params", L->e, "out of memory");
  cJSON_ArrayForEach(it, L->params)
  {
    const char *k = it->string;
    if (!ts_expr_is_name(k)) {
      size_t old = ts_jpush_key(&L->c, "params");
      int r = ts_jfail(&L->c, k, L->e, "a parameter name is letters, digits and '_', not starting with a digit "
                       "(\"$%s\" in an expression would not name it)", k);
      ts_jpop(&L->c, old);
      return r;
    }
    if (!cJSON_IsNumber(it))
      continue;
    m->param_values[m->nparams] = it->valuedouble;
    if (!(m->param_names[m->nparams++] = dup_or_fail(L, it->string)))
      return -1;
  }
  return 0;
}

/* Whole-model rules that need every class. */
static int check_model(loader *L, ts_model *m)
{
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    if (!k->forever)
      continue;
    for (size_t s = 0; s < k->nsteps; s++) {
      const ts_step *st = &k->steps[s];
      int actor_scoped = 0;
      if ((st->type == &ts_op_lock || st->type == &ts_op_unlock) && m->locks[st->ref].scope == TS_SCOPE_ACTOR)
        actor_scoped = 1;
      if ((st->type == &ts_op_wait || st->type == &ts_op_notify) && m->chans[st->ref].scope == TS_SCOPE_ACTOR)
        actor_scoped = 1;
      if (actor_scoped) {
        char path[64];
        snprintf(path, sizeof path, "classes[%zu].count", c);
        return ts_jfail(&L->c, path, L->e, "a class that arrives until the horizon cannot use actor-scoped locks or "
                        "channels (%s): give it a fixed count", st->where);
      }
    }
  }
  return 0;
}

int ts_model_from_json(const cJSON *root, const char *file, ts_model *m, ts_err *e)
{
  static const char *const keys[] = {"name", "description", "host", "worker", "pools", "dispatch", "locks",
                                     "channels", "counters", "servers", "classes", "params", "metrics", "free",
                                     "provenance", "notes", NULL};
  loader L = {.e = e, .m = m};
  L.c.file = file;
  memset(m, 0, sizeof *m);
  const char *name = "model";
  const cJSON *classes;
  if (!cJSON_IsObject(root))
    return ts_jfail(&L.c, NULL, e, "expected a model object");
  if (ts_jcheck_keys(&L.c, root, keys, e) || ts_jget_string(&L.c, root, "name", 0, &name, e) ||
      ts_jget_object(&L.c, root, "params", 0, &L.params, e))
    goto fail;
  if (!(m->name = dup_or_fail(&L, name)) || load_params(&L, m))
    goto fail;
  if (load_host_dispatch(&L, m, root) || load_pools(&L, root) || load_locks(&L, root) ||
      ts_jget_array(&L.c, root, "classes", 1, &classes, e))
    goto fail;
  int n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, classes) n++;
  if (n == 0) {
    ts_jfail(&L.c, "classes", e, "expected at least one actor class");
    goto fail;
  }
  if (n > 1000) {
    ts_jfail(&L.c, "classes", e, "at most 1000 classes");
    goto fail;
  }
  m->classes = calloc((size_t)n, sizeof *m->classes);
  if (!m->classes)
    goto fail;
  L.classes_json = classes;
  int i = 0;
  cJSON_ArrayForEach(it, classes)
  {
    size_t old = ts_jpush_key(&L.c, "classes");
    ts_jpush_index(&L.c, i);
    m->nclasses++;
    int bad = load_class(&L, it, i++);
    ts_jpop(&L.c, old);
    if (bad)
      goto fail;
  }
  if (load_metrics(&L, m, root) || check_model(&L, m))
    goto fail;
  return 0;
fail:
  free(L.steps);
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

int ts_model_inline_files(cJSON *root, const char *file, ts_err *e)
{
  cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "host");
  cJSON *t = cJSON_IsObject(h) ? cJSON_GetObjectItemCaseSensitive(h, "cpu_scale_by_n") : NULL;
  if (!cJSON_IsObject(t) || !cJSON_GetObjectItemCaseSensitive(t, "baseline"))
    return 0;
  ts_model m;
  if (ts_model_from_json(root, file, &m, e))
    return -1;
  cJSON *ns = cJSON_CreateArray(), *vs = cJSON_CreateArray();
  int bad = !ns || !vs;
  for (size_t i = 0; !bad && i < m.nscale; i++) {
    cJSON *x = cJSON_CreateNumber(m.scale_n[i]);
    if (!x || !cJSON_AddItemToArray(ns, x)) {
      cJSON_Delete(x);
      bad = 1;
      break;
    }
    cJSON *v = cJSON_CreateNumber(m.scale_v[i]);
    if (!v || !cJSON_AddItemToArray(vs, v)) {
      cJSON_Delete(v);
      bad = 1;
    }
  }
  ts_model_finish(&m);
  if (bad || !cJSON_AddItemToObject(t, "n", ns)) {
    cJSON_Delete(ns);
    cJSON_Delete(vs);
    return ts_err_set(e, file, "host.cpu_scale_by_n", "out of memory");
  }
  if (!cJSON_AddItemToObject(t, "scale", vs)) {
    cJSON_Delete(vs);
    cJSON_DeleteItemFromObjectCaseSensitive(t, "n");
    return ts_err_set(e, file, "host.cpu_scale_by_n", "out of memory");
  }
  cJSON_DeleteItemFromObjectCaseSensitive(t, "baseline");
  cJSON_DeleteItemFromObjectCaseSensitive(t, "metric");
  return 0;
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
