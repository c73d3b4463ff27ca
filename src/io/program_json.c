/* The program compiler: a class's structured steps (repeat, if, call,
 * spawn and the ops of src/model/op_*.c) become flat begin/end ops, checked
 * as they are compiled for balanced locks on every path, wave marks in order
 * at the top level, no step under a mutex that leaves the CPU
 * (blocks_thread), and no "forever" loop around steps that take no time.
 * A step that may give up (a timeout, a server's full queue) is followed by
 * its "else" steps: step, jump (over them), else steps...; a path that ends
 * with "exit" joins nothing, so its locks need not match. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_load.h"
#include "model/op.h"

/* What is held at a point of a program: lock declarations as bits. */
typedef struct held {
  uint64_t locks;    /* every lock held */
  uint64_t mutexes;  /* of which mutexes */
  int marks;         /* 1 after wave_start, 2 after wave_end */
  int settled;       /* after the settled mark */
  int top;           /* at the program's top level (not inside a block) */
  int takes_time;    /* a step that can take time was compiled (for repeat forever) */
  int in_child;      /* inside a child block: it runs within its parent's poll */
  int ended;         /* the path ended ("exit"): nothing after it runs */
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
  s->site = -1;
  s->alt = -1;
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
         t == &ts_op_pending || t == &ts_op_poll_children || (t == &ts_op_cpu && s->sliced);
}

/* What a child (run inside its parent's poll) may not do: leave the CPU
 * other than by its pending, or poll children of its own. */
static const char *not_in_child(const loader *L, const ts_op_type *t, const ts_step *s)
{
  if (t == &ts_op_poll_children)
    return "poll_children inside a child (children are one level deep)";
  if (t == &ts_op_lock && L->m->locks[s->ref].kind != TS_LOCK_MUTEX)
    return "an async lock inside a child";
  if (t != &ts_op_pending && blocks_thread(t, s))
    return "a step that leaves the CPU inside a child";
  return NULL;
}

/* Mutexes reachable from mutex t along the lock-order edges (t itself included). */
static uint64_t reach(const loader *L, int t)
{
  uint64_t seen = UINT64_C(1) << t, frontier = seen;
  while (frontier) {
    uint64_t next = 0;
    for (int d = 0; d < 64; d++)
      if (frontier >> d & 1)
        next |= L->mutex_order[d];
    frontier = next & ~seen;
    seen |= next;
  }
  return seen;
}

/* Mutex t is taken while the mutexes `held` are: record the order h -> t for
 * each, refusing one that closes a cycle (two threads taking them in opposite
 * orders can deadlock). */
static int lock_order(loader *L, uint64_t held, int t)
{
  if (!L->order_where && !(L->order_where = calloc(64 * 64, sizeof *L->order_where)))
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  for (int h = 0; h < 64; h++) {
    if (!(held >> h & 1) || (L->mutex_order[h] >> t & 1))
      continue;
    if (reach(L, t) >> h & 1) {
      int x = 0; /* the first edge t -> x on a way back to h */
      while (!((L->mutex_order[t] >> x & 1) && (reach(L, x) >> h & 1)))
        x++;
      return ts_jfail(&L->c, "lock", L->e, "takes mutex \"%s\" while holding \"%s\", but %s takes \"%s\" while "
                      "holding \"%s\": a lock-order cycle (two threads taking them in opposite orders deadlock)",
                      L->m->locks[t].name, L->m->locks[h].name, L->order_where[t * 64 + x], L->m->locks[x].name,
                      L->m->locks[t].name);
    }
    L->mutex_order[h] |= UINT64_C(1) << t;
    if (!(L->order_where[h * 64 + t] = strdup(L->c.path)))
      return ts_jfail(&L->c, NULL, L->e, "out of memory");
  }
  return 0;
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
  if (taking && d->kind == TS_LOCK_MUTEX && h->mutexes && lock_order(L, h->mutexes, s->ref))
    return -1;
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

/* The "else" steps of the step at L->steps[at], which may give up: they run
 * from the locks held before it (`before`), and must end holding what the
 * step leaves held (`after`), or end the program ("exit"). */
static int compile_else(loader *L, const cJSON *st, size_t at, const held *before, held *after)
{
  if (!cJSON_GetObjectItemCaseSensitive(st, "else"))
    return 0;
  size_t j = L->nsteps;
  if (!emit(L, &ts_op_jump, "end else"))
    return -1;
  L->steps[at].alt = (int)L->nsteps;
  held b = *before;
  b.top = 0;
  b.ended = 0;
  if (compile_block(L, st, "else", 0, &b))
    return -1;
  L->steps[j].jump = (int)L->nsteps;
  if (!b.ended && b.locks != after->locks)
    return ts_jfail(&L->c, "else", L->e, "the else steps leave different locks held than the step does when it "
                    "does not give up: take the same locks, or end with {\"op\": \"exit\"}");
  after->takes_time |= b.takes_time;
  return 0;
}

/* Whether op type t takes the JSON key. */
static int takes_key(const ts_op_type *t, const char *key)
{
  for (size_t i = 0; t->keys && t->keys[i]; i++)
    if (strcmp(t->keys[i], key) == 0)
      return 1;
  return 0;
}

static int compile_leaf(loader *L, const cJSON *st, const char *op, const char *label, held *h)
{
  held before = *h;
  const ts_op_type *t = ts_op_find(op);
  if (!t) {
    static const char *const compound[] = {"repeat", "if", "call", "spawn", "child"};
    char list[300] = "";
    const char *names[64];
    int k = 0;
    for (const ts_op_type *const *o = ts_op_all(); *o && k < 58; o++) {
      size_t l = strlen(list);
      snprintf(list + l, sizeof list - l, "%s, ", (*o)->name);
      names[k++] = (*o)->name;
    }
    for (int i = 0; i < 5; i++)
      names[k++] = compound[i];
    names[k] = NULL;
    size_t l = strlen(list);
    snprintf(list + l, sizeof list - l, "repeat, if, call, spawn, child");
    char what[320];
    snprintf(what, sizeof what, "one of %s", list);
    return ts_load_bad_name(L, st, "op", what, op, names);
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
  size_t at = L->nsteps;
  ts_step *s = emit(L, t, label ? label : op);
  if (!s)
    return -1;
  ts_spec sp = ts__ml_spec_of(L, st);
  if (t->load(&sp, s))
    return -1;
  if (t == &ts_op_exit) {
    if (L->in_handler)
      return ts_jfail(&L->c, "op", L->e, "exit inside a call's handler: the call would never end (its server would "
                      "keep the place)");
    h->ended = 1;
    return 0;
  }
  if (h->mutexes && blocks_thread(t, s))
    return ts_jfail(&L->c, "op", L->e, "%s while mutex \"%s\" is held: a thread must not leave the CPU while it holds "
                    "an OS mutex (only cpu without slicing, mutexes, notify, add, marks and spans)",
                    t == &ts_op_cpu ? "a sliced cpu step" : op, mutex_held(L, h));
  const char *why = h->in_child ? not_in_child(L, t, s) : NULL;
  if (why)
    return ts_jfail(&L->c, "op", L->e, "%s: a child runs inside its parent's poll, which only its pending ends", why);
  if (t == &ts_op_lock || t == &ts_op_unlock)
    if (lock_bit_check(L, h, s, t == &ts_op_lock))
      return -1;
  if (t == &ts_op_mark && s->mark == TS_MARK_SETTLED) {
    if (!h->top)
      return ts_jfail(&L->c, "name", L->e, "a mark must be at the program's top level (not inside repeat, if or call)");
    if (h->settled)
      return ts_jfail(&L->c, "name", L->e, "a second settled mark: expected at most one");
    h->settled = 1;
    L->m->has_settle = 1;
  } else if (t == &ts_op_mark) {
    int start = s->mark == TS_MARK_WAVE_START;
    if (!h->top)
      return ts_jfail(&L->c, "name", L->e, "a mark must be at the program's top level (not inside repeat, if or call)");
    if ((start && h->marks > 0) || (!start && h->marks > 1))
      return ts_jfail(&L->c, "name", L->e, "%s after %s: expected at most one wave_start, then at most one wave_end",
                      start ? "wave_start" : "wave_end", h->marks == 2 ? "wave_end" : "wave_start");
    h->marks = start ? 1 : 2;
  }
  if (t == &ts_op_cpu || t == &ts_op_io || t == &ts_op_sleep || t == &ts_op_wait || t == &ts_op_hop ||
      t == &ts_op_lock || t == &ts_op_yield || t == &ts_op_pending)
    h->takes_time = 1;
  if (takes_key(t, "else")) {
    if (cJSON_GetObjectItemCaseSensitive(st, "else") && !L->steps[at].limited)
      return ts_jfail(&L->c, "else", L->e, "only with a \"timeout\": the steps to run when the wait gives up");
    L->m->has_timeout |= L->steps[at].limited;
    if (compile_else(L, st, at, &before, h))
      return -1;
  }
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
  static const char *const keys[] = {"op", "label", "note", "count", "while", "name", "span", "steps", NULL};
  const char *name = NULL;
  if (ts_jcheck_keys(&L->c, st, keys, L->e) || ts_jget_string(&L->c, st, "name", 0, &name, L->e))
    return -1;
  if (name && !ts__ml_is_identifier(name))
    return ts_jfail(&L->c, "name", L->e, "expected a loop name of letters, digits and '_' (not a digit first, not "
                    "i, n, W, worker, pool_size or now), got \"%s\"", name);
  if (L->depth >= TS_MAX_LOOP_DEPTH)
    return ts_jfail(&L->c, NULL, L->e, "repeats nested more than %d deep", TS_MAX_LOOP_DEPTH);
  size_t b = L->nsteps;
  if (!emit(L, &ts_op_repeat, label ? label : "repeat"))
    return -1;
  const cJSON *count = cJSON_GetObjectItemCaseSensitive(st, "count");
  int has_while = cJSON_GetObjectItemCaseSensitive(st, "while") != NULL;
  if (!count && !has_while)
    return ts_jfail(&L->c, "count", L->e, "missing (required without \"while\"): a number, \"$param\", an expression "
                    "or \"forever\"");
  if (!count || (cJSON_IsString(count) && strcmp(count->valuestring, "forever") == 0))
    L->steps[b].forever = 1;
  else if (ts_load_expr(L, st, "count", 1, &L->steps[b].expr) ||
           ts__ml_check_count(L, st, "count", L->steps[b].expr, 0, TS_REPEAT_MAX))
    return -1;
  if (has_while && ts_load_expr(L, st, "while", 1, &L->steps[b].cond))
    return -1;
  ts_spec sp = ts__ml_spec_of(L, st);
  if (ts_spec_has(&sp, "span") && ts_spec_span(&sp, "span", 1, &L->steps[b].span))
    return -1;
  if (L->steps[b].span >= 0)
    ts_spec_span_sampled(&sp, L->steps[b].span);
  if (name && ts__ml_name_clash(L, "name", name, "this repeat's name"))
    return -1;
  L->steps[b].slot = L->depth;
  L->loop_step[L->depth] = b;
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
  if (inner.locks != h->locks && !inner.ended)
    return ts_jfail(&L->c, "steps", L->e, "the repeated steps do not release what they take (or release what they "
                    "did not take): every iteration must leave the same locks held");
  if (L->steps[b].forever && !inner.takes_time && !L->steps[b].cond)
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
  static const char *const keys[] = {"op", "label", "note", "cond", "p", "then", "else", NULL};
  if (ts_jcheck_keys(&L->c, st, keys, L->e))
    return -1;
  size_t i = L->nsteps;
  int chance = cJSON_GetObjectItemCaseSensitive(st, "p") != NULL;
  if (chance && cJSON_GetObjectItemCaseSensitive(st, "cond"))
    return ts_jfail(&L->c, "p", L->e, "either \"cond\" (a condition) or \"p\" (a probability), not both");
  if (!emit(L, &ts_op_if, label ? label : "if") || ts_load_expr(L, st, chance ? "p" : "cond", 1, &L->steps[i].expr))
    return -1;
  L->steps[i].chance = chance != 0;
  double p;
  if (chance && ts_expr_is_constant(L->steps[i].expr, &p) && !(p >= 0 && p <= 1))
    return ts_jfail(&L->c, "p", L->e, "expected a probability in [0, 1], got %s", TS_JNUM(p));
  held a = *h, b = *h;
  a.top = b.top = 0;
  if (compile_block(L, st, "then", 1, &a))
    return -1;
  if (cJSON_GetObjectItemCaseSensitive(st, "else")) {
    size_t j = L->nsteps;
    if (!emit(L, &ts_op_jump, "end if"))
      return -1;
    L->steps[i].jump = (int)L->nsteps;
    if (compile_block(L, st, "else", 0, &b)) /* an empty else is no else */
      return -1;
    L->steps[j].jump = (int)L->nsteps;
  } else {
    L->steps[i].jump = (int)L->nsteps;
  }
  if (a.locks != b.locks && !a.ended && !b.ended)
    return ts_jfail(&L->c, "then", L->e, "the branches leave different locks held: every path must take and release "
                    "the same locks");
  h->locks = a.ended ? b.locks : a.locks;
  h->mutexes = a.ended ? b.mutexes : a.mutexes;
  h->ended = a.ended && b.ended;
  h->takes_time |= a.takes_time | b.takes_time;
  return 0;
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
                                     "recv_ms", "work_ms", "span", "wait", "handler", "timeout", "else", NULL};
  int wait = 1;
  if (ts_jcheck_keys(&L->c, st, keys, L->e) || ts_jget_bool(&L->c, st, "wait", 0, &wait, L->e))
    return -1;
  if (h->in_child)
    return ts_jfail(&L->c, "op", L->e, "a call inside a child: a child runs inside its parent's poll, which only its "
                    "pending ends");
  if (h->mutexes)
    return ts_jfail(&L->c, "op", L->e, "call while mutex \"%s\" is held: a thread must not wait while it holds an OS "
                    "mutex", mutex_held(L, h));
  size_t c = L->nsteps;
  ts_step *s = emit(L, &ts_op_call, label ? label : "call");
  if (!s)
    return -1;
  ts_spec sp = ts__ml_spec_of(L, st);
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
      ts_spec_time(&sp, "work_ms", 0, &s->work) || (ts_spec_has(&sp, "span") && ts_spec_span(&sp, "span", 1, &s->span)) ||
      ts_op_load_timeout(&sp, s))
    return -1;
  const ts_server_decl *sd = &L->m->servers[s->ref];
  if (ts_spec_has(&sp, "else") && !s->limited && sd->queue_limit < 0)
    return ts_jfail(&L->c, "else", L->e, "only with a \"timeout\" or a server with a \"queue_limit\": the steps to "
                    "run when the call gives up or is refused");
  L->m->has_timeout |= s->limited;
  if (s->span >= 0)
    ts_spec_span_sampled(&sp, s->span);
  s->klass = ts_sched_class_of(klass);
  if (s->klass < 0)
    return ts_load_bad_name(L, st, "class", "foreground, normal or background", klass, ts_sched_class_names);
  s->send = (ts_time)((double)s->send * L->m->cpu_scale + 0.5); /* CPU costs follow host.cpu_scale */
  s->recv = (ts_time)((double)s->recv * L->m->cpu_scale + 0.5);
  s->wait = wait != 0;
  held inner = *h;
  inner.top = 0;
  size_t first = L->nsteps;
  L->in_handler++;
  int bad = compile_block(L, st, "handler", 0, &inner);
  L->in_handler--;
  if (bad)
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
  if (compile_else(L, st, c, h, h))
    return -1;
  if (!wait) {
    if (!emit(L, &ts_op_exit, "end of the task that waited for the reply"))
      return -1;
    L->steps[c].next = (int)L->nsteps;
  }
  h->takes_time = 1;
  L->m->has_call = 1;
  return 0;
}

/* spawn (a task that runs by itself) and child (one its parent polls):
 * the block, then exit. */
static int compile_task(loader *L, const cJSON *st, const char *label, held *h, int child)
{
  static const char *const keys[] = {"op", "label", "note", "steps", NULL};
  if (ts_jcheck_keys(&L->c, st, keys, L->e))
    return -1;
  if (h->in_child)
    return ts_jfail(&L->c, "op", L->e, "%s inside a child: a child runs inside its parent's poll (children are one "
                    "level deep)", child ? "a child" : "a spawn");
  size_t b = L->nsteps;
  if (!emit(L, child ? &ts_op_child : &ts_op_spawn, label ? label : child ? "child" : "spawn"))
    return -1;
  held inner = {.top = 0, .in_child = child};
  if (compile_block(L, st, "steps", 1, &inner))
    return -1;
  if (inner.locks && !inner.ended)
    return ts_jfail(&L->c, "steps", L->e, "the %s steps do not release every lock they take",
                    child ? "child's" : "spawned");
  if (!emit(L, &ts_op_exit, child ? "end of child" : "end of spawned task"))
    return -1;
  L->steps[b].jump = (int)L->nsteps;
  return 0;
}

static int compile_step(loader *L, const cJSON *st, held *h)
{
  const char *op, *label = NULL;
  if (!cJSON_IsObject(st))
    return ts_jfail_got(&L->c, NULL, st, L->e, "expected a step object {\"op\": ...}");
  if (ts_jget_string(&L->c, st, "op", 1, &op, L->e) || ts_jget_string(&L->c, st, "label", 0, &label, L->e))
    return -1;
  if (strcmp(op, "repeat") == 0)
    return compile_repeat(L, st, label, h);
  if (strcmp(op, "if") == 0)
    return compile_if(L, st, label, h);
  if (strcmp(op, "call") == 0)
    return compile_call(L, st, label, h);
  if (strcmp(op, "spawn") == 0 || strcmp(op, "child") == 0)
    return compile_task(L, st, label, h, op[0] == 'c');
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
    int bad = h->ended ? ts_jfail(&L->c, NULL, L->e, "a step after \"exit\" in the same block never runs") : 0;
    if (!bad)
      bad = compile_step(L, it, h);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  return 0;
}

int ts__ml_compile_program(loader *L, const cJSON *obj, uint64_t *locks)
{
  held h = {.top = 1};
  int bad = compile_block(L, obj, "program", 1, &h);
  *locks = h.ended ? 0 : h.locks;
  return bad;
}
