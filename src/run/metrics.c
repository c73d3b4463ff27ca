#include "run/metrics.h"
#include "run/suggest.h"
#include "run/sweep_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

/* The built-in metrics. The first twelve exist for every model, in this
 * order (the historical summary.csv columns); `needs` gates the rest on the
 * model's features. */
enum { F_ALWAYS, F_MUTEX, F_CHAN, F_HOP, F_CALL, F_SLEEP, F_IPMS, F_KERNEL, F_NCLASS, F_CORES, F_TIMEOUT, F_DROP, F_PREEMPT, F_SETTLE };

static const struct builtin {
  const char *name, *unit, *meaning;
  ts_metric_source source;
  int id, stat, digits, needs;
} builtins[] = {
  {"wave_ms", "ms", "wave wall clock: wave_start mark (default: arrival) to wave_end mark (default: done)", TS_SRC_ACTOR, TS_Q_WAVE, 0, 1, F_ALWAYS},
  {"wave_p95_ms", "ms", "95th percentile of wave_ms over all actors of all replications", TS_SRC_ACTOR, TS_Q_WAVE, 1, 1, F_ALWAYS},
  {"per_group_cpu_ms", "ms", "slice-timer CPU: sum of laps (wall time) in timed cpu steps, stopped while queued", TS_SRC_ACTOR, TS_Q_TIMER, 0, 1, F_ALWAYS},
  {"wave_ratio", "ratio", "wave_ms / wave_ms at the smallest n with the same workers", TS_SRC_RATIO, TS_Q_WAVE, 0, 3, F_ALWAYS},
  {"lock_wait_ms", "ms", "time waiting to acquire async locks", TS_SRC_ACTOR, TS_Q_LOCK_WAIT, 0, 1, F_ALWAYS},
  {"lock_work_ms", "ms", "time holding async locks, including time descheduled", TS_SRC_ACTOR, TS_Q_LOCK_WORK, 0, 1, F_ALWAYS},
  {"queue_wait_ms", "ms", "time waiting in the time-slice queue", TS_SRC_ACTOR, TS_Q_QUEUE_WAIT, 0, 1, F_ALWAYS},
  {"slices", "count", "run periods that did timed CPU work", TS_SRC_ACTOR, TS_Q_SLICES, 0, 0, F_ALWAYS},
  {"cpu_ms", "ms", "time the actor ran on a CPU, user and kernel (stretched when workers share cores)", TS_SRC_ACTOR, TS_Q_CPU, 0, 1, F_ALWAYS},
  {"io_ms", "ms", "time waiting off-CPU (io steps)", TS_SRC_ACTOR, TS_Q_IO, 0, 1, F_ALWAYS},
  {"ready_wait_ms", "ms", "time ready but not running: an I/O callback waiting for the loop, a task in a run queue", TS_SRC_ACTOR, TS_Q_READY_WAIT, 0, 1, F_ALWAYS},
  {"done_ms", "ms", "completion time of the actor's program, from time 0", TS_SRC_ACTOR, TS_Q_DONE, 0, 1, F_ALWAYS},
  {"queue_depth", "count", "mean number of actors already waiting in a time-slice queue when an actor enters it", TS_SRC_WORLD, TS_W_QUEUE_DEPTH, 0, 2, F_ALWAYS},
  {"queue_depth_max", "count", "most actors already waiting in a time-slice queue when an actor entered it", TS_SRC_WORLD, TS_W_QUEUE_DEPTH_MAX, 0, 0, F_ALWAYS},
  {"slice_wait_ms", "ms", "mean time from entering the time-slice queue to being resumed", TS_SRC_WORLD, TS_W_SLICE_WAIT, 0, 2, F_ALWAYS},
  {"groups_max", "count", "most actors of the main class placed on one main-pool worker", TS_SRC_WORLD, TS_W_GROUPS_MAX, 0, 0, F_NCLASS},
  {"groups_mean", "count", "actors of the main class per main-pool worker", TS_SRC_WORLD, TS_W_GROUPS_MEAN, 0, 2, F_NCLASS},
  {"cpu_cores", "cores", "CPU of all workers in the window (user + kernel), in cores", TS_SRC_WORLD, TS_W_CPU_CORES, 0, 3, F_ALWAYS},
  {"cores_used", "cores", "CPU work done in the window over its length: at most host.cores (cpu_cores counts busy workers, each slowed by the sharing)", TS_SRC_WORLD, TS_W_CORES_USED, 0, 3, F_CORES},
  {"user_cores", "cores", "user CPU of all workers in the window, in cores", TS_SRC_WORLD, TS_W_USER_CORES, 0, 3, F_KERNEL},
  {"kernel_cores", "cores", "kernel CPU of all workers in the window, in cores", TS_SRC_WORLD, TS_W_KERNEL_CORES, 0, 3, F_KERNEL},
  {"mutex_wait_ms", "ms", "time all actors spent acquiring contended mutexes in the window (spin, futex, parked)", TS_SRC_WORLD, TS_W_MUTEX_WAIT, 0, 1, F_MUTEX},
  {"lock_wait_share", "share", "lock and mutex wait in the window over the workers' user + kernel CPU in it", TS_SRC_WORLD, TS_W_LOCK_WAIT_SHARE, 0, 4, F_ALWAYS},
  {"user_instructions", "instructions", "user CPU in the window times host.instructions_per_ms.user", TS_SRC_WORLD, TS_W_USER_INSTR, 0, 0, F_IPMS},
  {"kernel_instructions", "instructions", "kernel CPU in the window times host.instructions_per_ms.kernel", TS_SRC_WORLD, TS_W_KERNEL_INSTR, 0, 0, F_IPMS},
  {"memory_bytes", "bytes", "declared size of the objects alive at the window's end (actors, locks, channels)", TS_SRC_WORLD, TS_W_MEMORY, 0, 0, F_ALWAYS},
  {"timeouts", "count", "waits (lock, mutex, channel, call) that gave up at their timeout in the window", TS_SRC_WORLD, TS_W_TIMEOUTS, 0, 0, F_TIMEOUT},
  {"drops", "count", "arrivals refused by a full worker (capacity) and calls by a full server queue (queue_limit) in the window", TS_SRC_WORLD, TS_W_DROPS, 0, 0, F_DROP},
  {"preemptions", "count", "running actors preempted by a ready actor of a higher queue class in the window", TS_SRC_WORLD, TS_W_PREEMPTIONS, 0, 0, F_PREEMPT},
  {"kernel_ms", "ms", "kernel CPU of the actor (futex, wakes, kernel cpu steps)", TS_SRC_ACTOR, TS_Q_KERNEL, 0, 2, F_KERNEL},
  {"sleep_ms", "ms", "time sleeping (timers)", TS_SRC_ACTOR, TS_Q_SLEEP, 0, 1, F_SLEEP},
  {"chan_wait_ms", "ms", "time parked on channels", TS_SRC_ACTOR, TS_Q_CHAN_WAIT, 0, 1, F_CHAN},
  {"hop_ms", "ms", "time in transit between workers", TS_SRC_ACTOR, TS_Q_HOP, 0, 3, F_HOP},
  {"call_wait_ms", "ms", "time in calls: request and reply legs and the server's queue", TS_SRC_ACTOR, TS_Q_CALL_WAIT, 0, 2, F_CALL},
  {"actor_mutex_wait_ms", "ms", "time the actor spent acquiring contended mutexes", TS_SRC_ACTOR, TS_Q_MUTEX_WAIT, 0, 3, F_MUTEX},
  {"settle_ms", "ms", "arrival (a client's connect) to the settled mark", TS_SRC_ACTOR, TS_Q_SETTLE, 0, 1, F_SETTLE},
  {"settle_p95_ms", "ms", "95th percentile of settle_ms over all actors of all replications", TS_SRC_ACTOR, TS_Q_SETTLE, 1, 1, F_SETTLE},
};

#define NBUILTIN (sizeof builtins / sizeof *builtins)
#define NALWAYS 12

static const char *const span_stats[TS_SPAN_NSTATS] = {"count", "rate_per_s", "mean", "p50", "p95", "p99"};

int ts_span_stat_find(const char *name)
{
  for (int s = 0; s < TS_SPAN_NSTATS; s++)
    if (strcmp(span_stats[s], name) == 0)
      return s;
  return -1;
}

void ts_metric_help(FILE *f)
{
  static const char *const when[] = {
    [F_ALWAYS] = NULL,          [F_MUTEX] = "with mutexes",      [F_CHAN] = "with channels",
    [F_HOP] = "with hops",      [F_CALL] = "with calls",         [F_SLEEP] = "with sleep steps",
    [F_IPMS] = "with host.instructions_per_ms", [F_KERNEL] = "with kernel CPU",
    [F_NCLASS] = "with a class counted by n", [F_CORES] = "with host.cores", [F_TIMEOUT] = "with a timeout",
    [F_DROP] = "with a capacity or queue_limit", [F_PREEMPT] = "with a preemptive pool",
    [F_SETTLE] = "with a settled mark"};
  for (size_t b = 0; b < NBUILTIN; b++) {
    fprintf(f, "  %-20s %s", builtins[b].name, builtins[b].meaning);
    if (when[builtins[b].needs])
      fprintf(f, " [%s]", when[builtins[b].needs]);
    fputc('\n', f);
  }
  fprintf(f, "  %-20s %s\n", "<pool>_cpu_cores", "CPU of that pool's workers in the window, in cores [per pool beyond the "
          "first]");
  fputs("  mutex_acquires, mutex_contended\n"
        "                       mutex acquires in the window, and those that found the mutex held [with sites]\n"
        "  <lock>_wait_ms, <lock>_wait_share, <lock>_contended, <lock>_acquires, <lock>_convoy_share\n"
        "                       per mutex with sites: wait, share of all mutex wait, contended acquires, acquires, the\n"
        "                       longest stretch with a thread asleep on it over the window\n"
        "  <lock>_<site>_wait_ms, <lock>_<site>_contended, <lock>_<site>_acquires\n"
        "                       per site (a lock step's \"site\")\n",
        f);
}

int ts_metric_builtin(const char *name)
{
  for (int i = 0; i < NALWAYS; i++)
    if (strcmp(builtins[i].name, name) == 0)
      return i;
  return -1;
}

static int wanted(const ts_model *m, int needs)
{
  switch (needs) {
  case F_MUTEX: return m->has_mutex;
  case F_CHAN: return m->has_chan;
  case F_HOP: return m->has_hop;
  case F_CALL: return m->has_call;
  case F_SLEEP: return m->has_sleep;
  case F_IPMS: return m->ipms_user > 0 || m->ipms_kernel > 0;
  case F_CORES: return m->cores > 0;
  case F_TIMEOUT: return m->has_timeout;
  case F_DROP: return m->has_drop;
  case F_PREEMPT: return m->has_preempt;
  case F_KERNEL: return m->has_mutex || m->has_chan || m->has_thread || m->has_kernel_cpu;
  case F_SETTLE: return m->has_settle;
  case F_NCLASS:
    for (size_t k = 0; k < m->nclasses; k++)
      if (m->classes[k].count && ts_expr_uses(m->classes[k].count, TS_VAR_N))
        return 1;
    return 0;
  default: return 1;
  }
}

/* A built-in's meaning, for this model: what cpu_cores counts under
 * processor sharing, what the queue metrics count on threads. */
static const char *meaning_for(const ts_model *m, const struct builtin *b)
{
  if (b->source != TS_SRC_WORLD)
    return b->meaning;
  if (b->id == TS_W_CPU_CORES && m->cores > 0)
    return "busy workers: their busy wall time in the window over its length; above host.cores when more workers "
           "are busy than there are cores (cores_used: the CPU used)";
  if (b->id == TS_W_QUEUE_DEPTH && m->has_thread)
    return "mean number of actors already waiting when an actor enters an event loop's time-slice queue or a "
           "thread's run queue";
  if (b->id == TS_W_QUEUE_DEPTH_MAX && m->has_thread)
    return "most actors already waiting when an actor entered an event loop's time-slice queue or a thread's run "
           "queue";
  return b->meaning;
}

static ts_metric *grow(ts_metric_list *l)
{
  ts_metric *v = realloc(l->v, (l->n + 1) * sizeof *v);
  if (!v)
    return NULL;
  l->v = v;
  memset(&v[l->n], 0, sizeof *v);
  return &v[l->n++];
}

/* Whether a metric before the last one of l is called name. */
static int taken(const ts_metric_list *l, const char *name)
{
  for (size_t i = 0; i + 1 < l->n; i++)
    if (strcmp(l->v[i].name, name) == 0)
      return 1;
  return 0;
}

typedef struct rctx {
  const ts_metric_list *l;
  const ts_model *m;
  char unknown[TS_SUGGEST_MAX_LEN + 2];  /* the last name resolve did not know, for a suggestion */
} rctx;

/* Names in a metric's expression: the metrics before it, and $params. */
static int resolve(void *ctx, const char *name, ts_expr_var *var, double *constant)
{
  rctx *r = ctx;
  snprintf(r->unknown, sizeof r->unknown, "%s", name); /* kept when it is not known */
  if (name[0] == '$') {
    for (size_t p = 0; p < r->m->nparams; p++)
      if (strcmp(r->m->param_names[p], name + 1) == 0) {
        *constant = r->m->param_values[p];
        return 2;
      }
    return 0;
  }
  int i = ts_metric_list_find(r->l, name);
  if (i < 0)
    return 0;
  *var = (ts_expr_var){.kind = 0, .index = i};
  return 1;
}

/* "; did you mean \"x\"?" into hint (size cap) when a name of l (with
 * source src, or any when src < 0) or, for a "$name", a parameter of m is
 * near name; else "". */
static void near_hint(const ts_metric_list *l, int src, const ts_model *m, const char *name, char *hint, size_t cap)
{
  size_t n = name[0] == '$' ? m->nparams : l->n;
  const char **names = calloc(n + 1, sizeof *names);
  size_t k = 0;
  for (size_t i = 0; names && i < n; i++)
    if (name[0] == '$')
      names[k++] = m->param_names[i];
    else if (src < 0 || (int)l->v[i].source == src)
      names[k++] = l->v[i].name;
  const char *near = names ? ts_suggest(name[0] == '$' ? name + 1 : name, names) : NULL;
  if (near)
    snprintf(hint, cap, "; did you mean \"%s%s\"?", name[0] == '$' ? "$" : "", near);
  else if (cap > 0)
    hint[0] = '\0';
  free(names);
}

/* One world metric of a model with sites; -1 after a name clash or out of memory (err says). */
static int add_world(ts_metric_list *out, const char *name, const char *unit, const char *meaning, int id, int digits,
                     char *err, size_t cap)
{
  ts_metric *x = grow(out);
  if (!x) {
    snprintf(err, cap, "out of memory");
    return -1;
  }
  snprintf(x->name, sizeof x->name, "%s", name);
  snprintf(x->meaning, sizeof x->meaning, "%s", meaning);
  x->unit = unit;
  x->source = TS_SRC_WORLD;
  x->id = id;
  x->digits = digits;
  if (taken(out, x->name)) {
    snprintf(err, cap, "locks: the site metric %s is a metric the model already reports: rename the lock or site",
             x->name);
    return -1;
  }
  return 0;
}

/* A model whose lock steps name sites reports, for the window: all mutex
 * acquires and contended ones; per mutex declaration with sites its wait,
 * share of all mutex wait, contended acquires, acquires and convoy share;
 * per site its wait, contended acquires and acquires. */
static int add_site_metrics(const ts_model *m, ts_metric_list *out, char *err, size_t cap)
{
  if (m->nsites == 0)
    return 0;
  char name[80], meaning[200];
  int bad = add_world(out, "mutex_acquires", "count", "mutex acquires that completed in the window, per replication",
                      TS_W_MUTEX_ACQUIRES, 0, err, cap) ||
            add_world(out, "mutex_contended", "count", "mutex acquires that found the mutex held, begun in the window, per "
                      "replication", TS_W_MUTEX_CONTENDED, 0, err, cap);
  for (size_t d = 0; !bad && d < m->nlocks; d++) {
    int used = 0;
    for (size_t i = 0; i < m->nsites; i++)
      used |= m->sites[i].lock == (int)d;
    if (!used)
      continue;
    static const struct {
      const char *suffix, *unit, *what;
      int k, digits;
    } per[] = {{"wait_ms", "ms", "contended acquires' wait (spin, futex, asleep) in the window", TS_LS_WAIT, 1},
               {"wait_share", "share", "its share of all mutex wait in the window", TS_LS_SHARE, 3},
               {"contended", "count", "contended acquires begun in the window", TS_LS_CONTENDED, 0},
               {"acquires", "count", "acquires completed in the window", TS_LS_ACQUIRES, 0},
               {"convoy_share", "share", "the longest stretch of the window with some thread asleep on it, over the "
                "window (near 1: a convoy that never drains)", TS_LS_CONVOY, 3}};
    for (size_t k = 0; !bad && k < sizeof per / sizeof *per; k++) {
      snprintf(name, sizeof name, "%s_%s", m->locks[d].name, per[k].suffix);
      snprintf(meaning, sizeof meaning, "mutex %s: %s", m->locks[d].name, per[k].what);
      bad = add_world(out, name, per[k].unit, meaning, TS_W_LOCK_STAT + 8 * (int)d + per[k].k, per[k].digits, err, cap);
    }
  }
  for (size_t i = 0; !bad && i < m->nsites; i++) {
    static const struct {
      const char *suffix, *unit, *what;
      int k, digits;
    } per[] = {{"wait_ms", "ms", "wait of its contended acquires in the window", TS_LS_WAIT, 1},
               {"contended", "count", "its contended acquires begun in the window", TS_LS_CONTENDED, 0},
               {"acquires", "count", "its acquires completed in the window", TS_LS_ACQUIRES, 0}};
    for (size_t k = 0; !bad && k < sizeof per / sizeof *per; k++) {
      const char *lk = m->locks[m->sites[i].lock].name;
      snprintf(name, sizeof name, "%s_%s_%s", lk, m->sites[i].name, per[k].suffix);
      snprintf(meaning, sizeof meaning, "mutex %s at site %s: %s", lk, m->sites[i].name, per[k].what);
      bad = add_world(out, name, per[k].unit, meaning, TS_W_SITE_STAT + 8 * (int)i + per[k].k, per[k].digits, err, cap);
    }
  }
  if (bad)
    ts_metric_list_finish(out);
  return bad ? -1 : 0;
}

int ts_metric_list_build(const ts_model *m, ts_metric_list *out, char *err, size_t cap)
{
  memset(out, 0, sizeof *out);
  for (size_t b = 0; b < NBUILTIN; b++) {
    if (!wanted(m, builtins[b].needs))
      continue;
    ts_metric *x = grow(out);
    if (!x)
      goto nomem;
    snprintf(x->name, sizeof x->name, "%s", builtins[b].name);
    snprintf(x->meaning, sizeof x->meaning, "%s", meaning_for(m, &builtins[b]));
    x->unit = builtins[b].unit;
    x->source = builtins[b].source;
    x->id = builtins[b].id;
    x->stat = builtins[b].stat;
    x->digits = builtins[b].digits;
  }
  for (size_t p = 1; m->npools > 1 && p < m->npools; p++) {
    ts_metric *x = grow(out);
    if (!x)
      goto nomem;
    snprintf(x->name, sizeof x->name, "%s_cpu_cores", m->pools[p].name);
    snprintf(x->meaning, sizeof x->meaning, "CPU of pool %s's workers in the window, in cores", m->pools[p].name);
    x->unit = "cores";
    x->source = TS_SRC_WORLD;
    x->id = TS_W_POOL_CORES + (int)p;
    x->digits = 3;
  }
  if (add_site_metrics(m, out, err, cap))
    return -1;
  for (size_t s = 0; s < m->nspans; s++)
    for (int st = 0; st < TS_SPAN_NSTATS && m->spans[s].sampled; st++) {
      ts_metric *x = grow(out);
      if (!x)
        goto nomem;
      int ms = st >= TS_SPAN_MEAN;
      snprintf(x->name, sizeof x->name, "%s_%s%s", m->spans[s].name, span_stats[st], ms ? "_ms" : "");
      if (taken(out, x->name)) {
        snprintf(err, cap, "spans: span \"%s\" would report %s, a metric the model already reports: rename the span",
                 m->spans[s].name, x->name);
        ts_metric_list_finish(out);
        return -1;
      }
      snprintf(x->meaning, sizeof x->meaning, "span %s: %s", m->spans[s].name,
               st == TS_SPAN_COUNT ? "samples that ended in the window, per replication"
               : st == TS_SPAN_RATE ? "samples per second of window (its throughput)"
                                    : "of its samples in the window, pooled over replications");
      x->unit = st == TS_SPAN_COUNT ? "count" : st == TS_SPAN_RATE ? "per_s" : "ms";
      x->source = TS_SRC_SPAN;
      x->id = (int)s;
      x->stat = st;
      x->digits = st == TS_SPAN_COUNT ? 0 : 3;
    }
  for (size_t i = 0; i < m->nmetrics; i++) {
    const ts_metric_spec *d = &m->metrics[i];
    if (ts_metric_list_find(out, d->name) >= 0) {
      snprintf(err, cap, "metrics.%s: a metric the model already reports (built in, or from a pool or span): "
               "expected a new name", d->name);
      ts_metric_list_finish(out);
      return -1;
    }
    ts_metric *x = grow(out);
    if (!x)
      goto nomem;
    snprintf(x->name, sizeof x->name, "%s", d->name);
    snprintf(x->meaning, sizeof x->meaning, "%s", *d->meaning ? d->meaning : d->expr ? d->expr : "a span statistic");
    x->per_replication = d->per_replication;
    x->digits = 3;
    if (d->kind == TS_MDEF_ACTOR) {
      int b = -1;
      for (size_t k = 0; k < NBUILTIN; k++)
        if (builtins[k].source == TS_SRC_ACTOR && strcmp(builtins[k].name, d->actor) == 0)
          b = (int)k;
      if (b < 0) {
        char hint[120];
        near_hint(out, TS_SRC_ACTOR, m, d->actor, hint, sizeof hint);
        snprintf(err, cap, "metrics.%s.actor: \"%s\" is not a per-actor metric%s (wave_ms, cpu_ms, ready_wait_ms, "
                 "...)", d->name, d->actor, hint);
        ts_metric_list_finish(out);
        return -1;
      }
      x->source = TS_SRC_ACTOR;
      x->id = builtins[b].id;
      x->stat = d->stat;
      x->unit = builtins[b].unit;
      continue;
    }
    if (d->kind == TS_MDEF_SPAN) {
      x->source = TS_SRC_SPAN;
      x->id = d->span;
      x->stat = d->stat;
      x->unit = d->stat == TS_SPAN_COUNT ? "count" : d->stat == TS_SPAN_RATE ? "per_s" : "ms";
      continue;
    }
    x->source = TS_SRC_EXPR;
    x->unit = "";
    out->n--; /* not findable by its own expression */
    rctx r = {.l = out, .m = m};
    char why[160], hint[120] = "";
    ts_expr *e = ts_expr_compile(d->expr, resolve, &r, why, sizeof why);
    if (!e && strstr(why, "unknown name")) /* the name resolve saw last is the unknown one */
      near_hint(out, -1, m, r.unknown, hint, sizeof hint);
    out->n++;
    if (!e) {
      char quoted[TS_EXPR_QUOTE];
      snprintf(err, cap, "metrics.%s.expr: \"%s\": %s%s (names: the metrics listed by `tssim run --help` and those "
               "before it)", d->name, ts_expr_excerpt(d->expr, quoted, sizeof quoted), why, hint);
      ts_metric_list_finish(out);
      return -1;
    }
    x->expr = e;
  }
  return 0;
nomem:
  snprintf(err, cap, "out of memory");
  ts_metric_list_finish(out);
  return -1;
}

void ts_metric_list_finish(ts_metric_list *l)
{
  for (size_t i = 0; i < l->n; i++)
    ts_expr_free(l->v[i].expr);
  free(l->v);
  memset(l, 0, sizeof *l);
}

int ts_metric_list_find(const ts_metric_list *l, const char *name)
{
  for (size_t i = 0; i < l->n; i++)
    if (strcmp(l->v[i].name, name) == 0)
      return (int)i;
  return -1;
}

double ts_metric_actor_value(const ts_metric *mi, const ts_actor_stats *s)
{
  return ts_metric_quantity(mi->id, s);
}

/* Whether no actor of w has time in state st (no chunk ever had its column). */
static int state_unused(const ts_world *w, int st)
{
  return !(w->states_used >> st & 1);
}

int ts_metric_world_actor_zero(int q, const ts_world *w)
{
  switch (q) {
  case TS_Q_LOCK_WAIT: return state_unused(w, TS_ACTOR_LOCK_WAIT);
  case TS_Q_IO: return state_unused(w, TS_ACTOR_IO);
  case TS_Q_READY_WAIT: return state_unused(w, TS_ACTOR_READY);
  case TS_Q_SLEEP: return state_unused(w, TS_ACTOR_SLEEP);
  case TS_Q_CHAN_WAIT: return state_unused(w, TS_ACTOR_CHAN_WAIT);
  case TS_Q_HOP: return state_unused(w, TS_ACTOR_HOP);
  case TS_Q_CALL_WAIT: return state_unused(w, TS_ACTOR_CALL_WAIT);
  case TS_Q_LOCK_WORK:
  case TS_Q_MUTEX_WAIT: return w->model->nlocks == 0;
  case TS_Q_TIMER:
  case TS_Q_SLICES: return !(w->quantities_used & TS_USED_TIMED);
  case TS_Q_QUEUE_WAIT: return !(w->quantities_used & TS_USED_QUEUED);
  default: return 0;
  }
}

static double world_value(int id, const ts_world *w, double queued)
{
  const ts_model *m = w->model;
  double win = (double)ts_world_window(w);
  ts_time user = 0, kernel = 0;
  int64_t entries = 0, depth = 0, loop_entries = 0; /* (a thread's run-queue entries count in the depth, not in the slice wait) */
  int depth_max = 0, groups_max = 0;
  for (int i = 0; i < w->nworkers; i++) {
    const ts_worker *wk = &w->workers[i];
    user += wk->win_user;
    kernel += wk->win_kernel;
    entries += wk->queue_entries;
    if (wk->spec->kind == TS_WORKER_EVENT_LOOP)
      loop_entries += wk->queue_entries;
    depth += wk->queue_depth_sum;
    if (wk->queue_depth_max > depth_max)
      depth_max = wk->queue_depth_max;
    if (wk->pool == 0 && wk->load > groups_max)
      groups_max = wk->load;
  }
  if (id >= TS_W_LOCK_STAT) {
    int site = id >= TS_W_SITE_STAT, k = (id - (site ? TS_W_SITE_STAT : TS_W_LOCK_STAT)) % 8;
    const ts_mutex_stat *st = site ? &w->site_stat[(id - TS_W_SITE_STAT) / 8] : &w->lock_stat[(id - TS_W_LOCK_STAT) / 8];
    switch (k) {
    case TS_LS_WAIT: return st->wait / 1e6;
    case TS_LS_SHARE: return w->win_mutex_wait > 0 ? st->wait / w->win_mutex_wait : 0;
    case TS_LS_CONTENDED: return (double)st->contended;
    case TS_LS_ACQUIRES: return (double)st->acquires;
    default: return win > 0 ? (double)st->parked_longest / win : 0;
    }
  }
  if (id >= TS_W_POOL_CORES) {
    ts_time t = 0;
    for (int i = w->pool_base[id - TS_W_POOL_CORES]; i < w->pool_base[id - TS_W_POOL_CORES + 1]; i++)
      t += w->workers[i].win_user + w->workers[i].win_kernel;
    return win > 0 ? (double)t / win : 0;
  }
  switch (id) {
  case TS_W_QUEUE_DEPTH: return entries ? (double)depth / (double)entries : 0;
  case TS_W_QUEUE_DEPTH_MAX: return depth_max;
  case TS_W_SLICE_WAIT:
    return loop_entries ? queued / 1e6 / (double)loop_entries : 0;
  case TS_W_GROUPS_MAX: return groups_max;
  case TS_W_GROUPS_MEAN: return w->nmain ? (double)(int)w->placed_main / w->nmain : 0;
  case TS_W_CPU_CORES: return win > 0 ? (double)(user + kernel) / win : 0;
  case TS_W_CORES_USED: return win > 0 ? ts_world_core_time(w) / win : 0;
  case TS_W_TIMEOUTS: return (double)w->win_timeouts;
  case TS_W_DROPS: return (double)w->win_drops;
  case TS_W_PREEMPTIONS: return (double)w->win_preemptions;
  case TS_W_USER_CORES: return win > 0 ? (double)user / win : 0;
  case TS_W_KERNEL_CORES: return win > 0 ? (double)kernel / win : 0;
  case TS_W_MUTEX_WAIT: return w->win_mutex_wait / 1e6;
  case TS_W_LOCK_WAIT_SHARE: {
    double wait = w->win_lock_wait + w->win_mutex_wait;
    return user + kernel > 0 ? wait / (double)(user + kernel) : NAN; /* (over no CPU: undefined) */
  }
  case TS_W_USER_INSTR: return ts_time_to_ms(user) * m->ipms_user;
  case TS_W_KERNEL_INSTR: return ts_time_to_ms(kernel) * m->ipms_kernel;
  case TS_W_MEMORY: return (double)w->memory_at_end;
  case TS_W_MUTEX_ACQUIRES:
  case TS_W_MUTEX_CONTENDED: {
    int64_t n = 0;
    for (size_t d = 0; d < m->nlocks; d++)
      n += id == TS_W_MUTEX_ACQUIRES ? w->lock_stat[d].acquires : w->lock_stat[d].contended;
    return (double)n;
  }
  default: return 0;
  }
}

/* A span's samples in ms in ascending order (NULL when memory runs out):
 * sorted once however many statistics of the span the list has, by
 * gsl_sort unless they already ascend (a span whose samples end in the
 * order they began, often). The same ascending array as a sort of the ns
 * values (metrics.c's qsort before, then converted): ts_time_to_ms is
 * monotone and never -0, so equal values are the same bits. */
static double *span_sorted(const ts_span_rec *r)
{
  size_t n = r->len;
  double *v = malloc((n ? n : 1) * sizeof *v);
  if (!v)
    return NULL;
  for (size_t k = 0; k < n; k++)
    v[k] = ts_time_to_ms(r->v[k]);
  if (!ts__ascends(v, n))
    gsl_sort(v, 1, n);
  return v;
}

/* A span statistic of one replication's samples; *sorted caches the sorted
 * samples across the span's statistics (the caller frees it). */
static double span_value(int stat, const ts_span_rec *r, double win_s, double **sorted)
{
  if (stat == TS_SPAN_COUNT)
    return (double)r->len;
  if (stat == TS_SPAN_RATE)
    return win_s > 0 ? (double)r->len / win_s : 0;
  if (r->len == 0)
    return NAN;
  if (!*sorted && !(*sorted = span_sorted(r)))
    return NAN;
  const double *v = *sorted;
  static const double q[] = {0, 0, 0, 0.5, 0.95, 0.99};
  return stat == TS_SPAN_MEAN ? gsl_stats_mean(v, 1, r->len) : gsl_stats_quantile_from_sorted_data(v, 1, r->len, q[stat]);
}

/* Whether world quantity id is measured in the window (not over the whole run). */
static int windowed(int id)
{
  switch (id) {
  case TS_W_QUEUE_DEPTH: case TS_W_QUEUE_DEPTH_MAX: case TS_W_SLICE_WAIT: case TS_W_GROUPS_MAX: case TS_W_GROUPS_MEAN:
    return 0;
  default:
    return 1;
  }
}

double ts_metric_world_queued(const ts_world *w)
{
  double queued = 0;
  for (int a = 0; a < w->nactors; a++)
    queued += (double)ts_world_state_time(w, a, TS_ACTOR_QUEUED);
  return queued;
}

void ts_metric_world_values(const ts_metric_list *l, const ts_world *w, double queued, double *v)
{
  double win_s = (double)ts_world_window(w) / 1e9;
  size_t ns = w->model->nspans;
  double **sorted = ns ? calloc(ns, sizeof *sorted) : NULL;
  int missed = ts_world_window_missed(w); /* nothing measured in the window: undefined, not 0 */
  for (size_t i = 0; i < l->n; i++) {
    const ts_metric *x = &l->v[i];
    double *one = NULL; /* without the cache (out of memory): sorted for this statistic only */
    if (x->source == TS_SRC_WORLD)
      v[i] = missed && windowed(x->id) ? NAN : world_value(x->id, w, queued);
    else if (x->source == TS_SRC_SPAN)
      v[i] = missed ? NAN : span_value(x->stat, &w->spans[x->id], win_s, sorted ? &sorted[x->id] : &one);
    free(one);
  }
  for (size_t s = 0; sorted && s < ns; s++)
    free(sorted[s]);
  free(sorted);
}

typedef struct ectx {
  const double *v;
} ectx;

static double get(void *ctx, ts_expr_var var)
{
  return ((const ectx *)ctx)->v[var.index];
}

void ts_metric_exprs(const ts_metric_list *l, double *v)
{
  ectx c = {v};
  for (size_t i = 0; i < l->n; i++)
    if (l->v[i].source == TS_SRC_EXPR)
      v[i] = ts_expr_eval(l->v[i].expr, get, &c);
}
