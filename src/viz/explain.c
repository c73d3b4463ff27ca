/* The text of tssim explain: per class, where the wave went and what the
 * worker did meanwhile; then the round-robin closed form and its
 * processor-sharing limit where they apply, and the wave law everywhere.
 * Means are over the actors of a class, so every table adds up exactly. */
#include "viz/explain.h"

#include <stdlib.h>
#include <string.h>

#include "model/dispatch.h"

/* A number printed by ms() or sms(), returned by value: each call has its
 * own storage, alive until the end of the full expression that made it (C11
 * 6.2.4p8), so several can be arguments of one printf. */
typedef struct msstr {
  char s[40];
} msstr;

/* Milliseconds with up to 3 decimals, trailing zeros dropped. */
static msstr ms(double ns)
{
  msstr r;
  snprintf(r.s, sizeof r.s, "%.3f", ns / 1e6);
  char *dot = strchr(r.s, '.');
  if (dot) {
    char *e = r.s + strlen(r.s) - 1;
    while (e > dot && *e == '0')
      *e-- = '\0';
    if (e == dot)
      *e = '\0';
  }
  if (strcmp(r.s, "-0") == 0)
    strcpy(r.s, "0");
  return r;
}

/* The same with a sign: "+1.5", "-2", "0". */
static msstr sms(double ns)
{
  msstr t = ms(ns), r;
  size_t plus = ns > 0 && strcmp(t.s, "0") != 0, n = strlen(t.s);
  if (n > sizeof r.s - 1 - plus)
    n = sizeof r.s - 1 - plus;
  r.s[0] = '+';
  memcpy(r.s + plus, t.s, n);
  r.s[plus + n] = '\0';
  return r;
}

/* Whether actor a counts in its class's means: visible, and its wave ended
 * (an actor the horizon stopped has no wave). */
static int has_wave(const ts_timeline *tl, int a, int k)
{
  return tl->stats[a].klass == k && !tl->stats[a].hidden && tl->stats[a].wave_end >= 0;
}

/* Class means over the actors with a wave (count); unfinished: the class's
 * other visible actors. */
typedef struct class_sum {
  int count, unfinished;
  double wave, state[TS_NSTATES], held[TS_NSTATES];
  double wait_others, wait_loop, wait_idle, io_busy, sleep_busy, other_gap, outside, busy, queued, loop, peers,
      slices, yields, cpu;
  ts_time wmin, wmax;
} class_sum;

static void sum_class(const ts_timeline *tl, const ts_explain_actor *x, int k, class_sum *s)
{
  memset(s, 0, sizeof *s);
  s->wmin = TS_TIME_MAX;
  for (int a = 0; a < tl->nactors; a++) {
    s->unfinished += tl->stats[a].klass == k && !tl->stats[a].hidden && !has_wave(tl, a, k);
    if (!has_wave(tl, a, k))
      continue;
    const ts_explain_actor *e = &x[a];
    s->count++;
    s->wave += (double)e->wave;
    for (int i = 0; i <= TS_ACTOR_DONE; i++) {
      s->state[i] += (double)e->state[i];
      s->held[i] += (double)e->held[i];
    }
    s->wait_others += (double)e->wait_others;
    s->wait_loop += (double)e->wait_loop;
    s->wait_idle += (double)e->wait_idle;
    s->io_busy += (double)e->io_busy;
    s->sleep_busy += (double)e->sleep_busy;
    s->other_gap += (double)e->other_gap;
    s->outside += (double)e->outside;
    s->busy += (double)e->worker_busy;
    s->queued += (double)e->queued_cpu;
    s->loop += (double)e->loop_cpu;
    s->peers += e->peers;
    s->slices += (double)tl->stats[a].slices;
    s->yields += (double)tl->stats[a].yields;
    s->cpu += (double)tl->stats[a].cpu;
    s->wmin = e->wave < s->wmin ? e->wave : s->wmin;
    s->wmax = e->wave > s->wmax ? e->wave : s->wmax;
  }
  double n = s->count ? s->count : 1;
  double *f[] = {&s->wave,   &s->wait_others, &s->wait_loop, &s->wait_idle, &s->io_busy,
                 &s->sleep_busy, &s->other_gap, &s->outside, &s->busy,   &s->queued,
                 &s->loop,   &s->peers,       &s->slices,    &s->yields,    &s->cpu};
  for (size_t i = 0; i < sizeof f / sizeof *f; i++)
    *f[i] /= n;
  for (int i = 0; i <= TS_ACTOR_DONE; i++) {
    s->state[i] /= n;
    s->held[i] /= n;
  }
}

static int cmp_time(const void *a, const void *b)
{
  ts_time x = *(const ts_time *)a, y = *(const ts_time *)b;
  return (x > y) - (x < y);
}

/* Median wave of class k (the mean of the two middle values for even counts). */
static double median_wave(const ts_timeline *tl, const ts_explain_actor *x, int k)
{
  ts_time *v = malloc((size_t)(tl->nactors ? tl->nactors : 1) * sizeof *v);
  size_t n = 0;
  if (!v)
    return 0;
  for (int a = 0; a < tl->nactors; a++)
    if (has_wave(tl, a, k))
      v[n++] = x[a].wave;
  qsort(v, n, sizeof *v, cmp_time);
  double m = n == 0 ? 0 : n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
  free(v);
  return m;
}

static void row(FILE *out, const char *what, double v, double total)
{
  if (total > 0)
    fprintf(out, "    %-42s %12s ms %6.1f%%\n", what, ms(v).s, 100 * v / total);
  else
    fprintf(out, "    %-42s %12s ms\n", what, ms(v).s);
}

/* Where class k's actors waited ready to run, as the rows name it: an event
 * loop's I/O-callback queue or a thread's run queue, by the worker of each
 * wait that took time (a hop or a call's admission moves an actor to a
 * worker of the other kind); without one, by the class's pool. */
typedef struct ready_words {
  const char *row;       /* the decomposition row */
  const char *held;      /* the row of locks held meanwhile */
  const char *short_;    /* in "while it waited (queue, ..., lock)" */
} ready_words;

static ready_words ready_words_of(const ts_timeline *tl, int k)
{
  static const ready_words loop = {"I/O-callback wait (ready, loop busy)", "held in callback wait", "callback"},
                           thread = {"run-queue wait (runnable, thread busy)", "held while runnable", "run queue"},
                           both = {"ready wait (I/O callbacks, run queues)", "held while ready", "ready"};
  int threads = 0, loops = 0;
  for (int a = 0; a < tl->nactors; a++) {
    if (tl->stats[a].klass != k || tl->stats[a].hidden)
      continue;
    for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++) {
      const ts_tl_state *e = &tl->states[i];
      ts_time t1 = i + 1 < tl->state_at[a + 1] ? tl->states[i + 1].t : tl->end;
      if (e->state != TS_ACTOR_READY || t1 <= e->t)
        continue;
      int on = ts_timeline_entry_on_thread(tl, e);
      threads += on;
      loops += !on;
    }
  }
  if (!threads && !loops)
    return tl->model->pools[tl->model->classes[k].pool].kind == TS_WORKER_THREAD ? thread : loop;
  return threads && loops ? both : threads ? thread : loop;
}

static void decomposition(FILE *out, const ts_timeline *tl, const ts_explain_actor *x, int k, const class_sum *s)
{
  ready_words rw = ready_words_of(tl, k);
  int all = s->count + s->unfinished;
  fprintf(out, "\nclass %s%s: %d actor%s", tl->model->classes[k].name,
          tl->model->classes[k].report ? "" : " (report: false: no rows of its own in the results)", all,
          all == 1 ? "" : "s");
  int arrived = 0; /* actors with a recorded state: the others' arrival lay past the end */
  for (int a = 0; a < tl->nactors; a++)
    arrived += tl->stats[a].klass == k && !tl->stats[a].hidden && tl->state_at[a] < tl->state_at[a + 1];
  if (!s->count && !arrived && tl->horizon != TS_TIME_MAX && !tl->stuck) {
    fprintf(out, "\n  none arrived by the horizon (%s ms): the window ended before their work began, nothing is "
            "stuck\n  (a longer horizon_ms or --horizon shows it)\n",
            ms((double)tl->horizon).s);
    return;
  }
  if (!s->count) {
    fprintf(out, "\n  none finished by the horizon (horizon_ms or --horizon; or a program that runs forever): no wave to "
            "break down%s%s\n",
            tl->model->nlocks ? "; see the contention on mutexes below" : "",
            tl->model->nspans ? "; the spans below measure the run" : "");
    ts_explain_run_states(out, tl, k);
    return;
  }
  char open[96];
  if (ts_explain_open_class(tl->model, k, open, sizeof open))
    fprintf(out, ", open arrivals (%s): no m, the actors do not start together\n", open);
  else
    fprintf(out, ", m = %g (actors of any class on an actor's worker, mean)\n", s->peers);
  if (s->unfinished)
    fprintf(out, "  %d ended no wave (dropped, or stopped by the horizon): the means below are over the %d that did\n",
            s->unfinished, s->count);
  fprintf(out, "  wave (wave_start to wave_end) per actor: mean %s ms, median %s, min %s, max %s\n",
          ms(s->wave).s, ms(median_wave(tl, x, k)).s, ms((double)s->wmin).s, ms((double)s->wmax).s);
  fprintf(out, "  where the wave goes (mean per actor):\n");
  row(out, "own CPU (running)", s->state[TS_ACTOR_RUNNING], s->wave);
  row(out, "queue wait (time-slice queue)", s->state[TS_ACTOR_QUEUED], s->wave);
  row(out, rw.row, s->state[TS_ACTOR_READY], s->wave);
  row(out, "I/O (off CPU)", s->state[TS_ACTOR_IO], s->wave);
  row(out, "lock wait", s->state[TS_ACTOR_LOCK_WAIT], s->wave);
  for (int st = 0; st < TS_NSTATES; st++) { /* the other states, where they took time (state table) */
    static const int shown[] = {TS_ACTOR_NEW, TS_ACTOR_RUNNING, TS_ACTOR_QUEUED, TS_ACTOR_READY, TS_ACTOR_IO,
                                TS_ACTOR_LOCK_WAIT, TS_ACTOR_DONE};
    int done = 0;
    for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
      done |= shown[i] == st;
    if (!done && s->state[st] > 0)
      row(out, ts_state_get(st)->name, s->state[st], s->wave);
  }
  row(out, "= wave", s->wave, 0);
  double waited = s->state[TS_ACTOR_QUEUED] + s->state[TS_ACTOR_READY] + s->state[TS_ACTOR_LOCK_WAIT];
  fprintf(out, "  while it waited (queue, %s, lock: %s ms) its worker ran:\n", rw.short_, ms(waited).s);
  row(out, "other actors' CPU", s->wait_others, waited);
  row(out, "loop overhead (yields, loop iterations)", s->wait_loop, waited);
  row(out, "nothing (idle)", s->wait_idle, waited);
  double held = 0, desched = 0;
  for (int i = 0; i <= TS_ACTOR_DONE; i++) {
    held += s->held[i];
    desched += i == TS_ACTOR_RUNNING ? 0 : s->held[i];
  }
  if (tl->model->nlocks == 0)
    return;
  fprintf(out, "  locks: held %s ms of the wave; held while descheduled %s ms (%.1f%% of the wave):\n",
          ms(held).s, ms(desched).s, s->wave > 0 ? 100 * desched / s->wave : 0.0);
  row(out, "held while queued", s->held[TS_ACTOR_QUEUED], 0);
  row(out, rw.held, s->held[TS_ACTOR_READY], 0);
  row(out, "held during I/O", s->held[TS_ACTOR_IO], 0);
  row(out, "held while waiting for another lock", s->held[TS_ACTOR_LOCK_WAIT], 0);
}

/* Whether every class of tl with an actor arrives over the run
 * (ts_explain_open_class). */
static int every_class_open(const ts_timeline *tl)
{
  char buf[96];
  int seen = 0;
  for (int a = 0; a < tl->nactors; a++) {
    if (tl->stats[a].hidden)
      continue;
    if (!ts_explain_open_class(tl->model, tl->stats[a].klass, buf, sizeof buf))
      return 0;
    seen = 1;
  }
  return seen;
}

static void closed_form(FILE *out, const ts_timeline *tl, const ts_explain_rr *r)
{
  const ts_model *m = tl->model;
  int rr_dispatch = m->dispatch == TS_DISPATCH_ROUND_ROBIN || m->dispatch == TS_DISPATCH_LEAST_LOADED;
  fprintf(out, "\nclosed form: round robin with equal demands\n");
  char open[400];
  if (every_class_open(tl) && ts_explain_open(m, open, sizeof open)) {
    fprintf(out, "  does not apply: open arrivals (%s), not all at one instant.\n", open);
    return;
  }
  if (!r->applies) {
    fprintf(out, "  does not apply: %s.\n", r->why_not);
    return;
  }
  fprintf(out, "  C = %s ms of CPU per actor", ms((double)r->cost).s);
  if (r->equal_slices)
    fprintf(out, " in S = ceil(C/q) = %lld slices of q = %s ms", (long long)r->slices, ms((double)r->quantum).s);
  else
    fprintf(out, " in S = %lld slices (first %s ms, last s = %s ms)", (long long)r->slices, ms((double)r->quantum).s,
            ms((double)r->last_slice).s);
  fprintf(out, "\n  (a slice ends after the first row that takes the lap past the %s ms threshold)\n",
          ms((double)m->pools[0].threshold).s);
  fprintf(out, "  m = %d actor%s on the busiest worker%s\n", r->m_max, r->m_max == 1 ? "" : "s",
          rr_dispatch ? " = ceil(N/W)" : "");
  if (r->equal_slices)
    fprintf(out, "  the i-th actor of a worker with m actors (i from 0) finishes at ((S-1)*m + i + 1)*q\n");
  else
    fprintf(out, "  the i-th actor of a worker with m actors (i from 0) finishes at m*(C - s) + (i + 1)*s\n");
  if (r->start)
    fprintf(out, "  (plus the common arrival time %s ms)\n", ms((double)r->start).s);
  fprintf(out, "  last completion %s = %d*%s = %s ms; simulated %s ms: %s\n", rr_dispatch ? "ceil(N/W)*C" : "m*C",
          r->m_max, ms((double)r->cost).s, ms((double)r->last_pred).s, ms((double)r->last_sim).s,
          r->last_pred == r->last_sim ? "exact" : "differs");
  if (r->matched == r->total)
    fprintf(out, "  per-actor completions: all %d match the formula exactly (first %s ms, last %s ms)\n", r->total,
            ms((double)r->first_sim).s, ms((double)r->last_sim).s);
  else
    fprintf(out, "  per-actor completions: %d of %d match; largest difference %s ms\n", r->matched, r->total,
            ms((double)r->max_err).s);
  double mean = (double)r->sum_sim / (r->total ? r->total : 1), ps = (double)r->sum_ps / (r->total ? r->total : 1);
  fprintf(out, "\nprocessor-sharing limit (q -> 0): a worker's m actors all finish together at m*C");
  fprintf(out, " (N*C/W when W divides N)\n");
  fprintf(out, "  mean completion: limit %s ms, simulated %s ms (%s ms earlier); last: limit %s ms, simulated %s ms\n",
          ms(ps).s, ms(mean).s, ms(ps - mean).s, ms((double)r->last_pred).s, ms((double)r->last_sim).s);
  fprintf(out, "  why: with a finite quantum the actors of a worker finish one slice apart in the last round\n"
               "  (the i-th at m*C - (m-1-i)*q), so the mean is (m-1)*q/2 before the limit and the last one is\n"
               "  on it; as q -> 0 the spread vanishes.\n");
}

/* Per-class mean of queued + loop CPU in ref (n = 1), into c1[nclasses]. */
static void ref_cpu(const ts_timeline *ref, const ts_explain_actor *rx, double *c1)
{
  for (size_t k = 0; k < ref->model->nclasses; k++) {
    double sum = 0;
    int n = 0;
    for (int a = 0; a < ref->nactors; a++)
      if (ref->stats[a].klass == (int)k) {
        sum += (double)(rx[a].queued_cpu + rx[a].loop_cpu);
        n++;
      }
    c1[k] = n ? sum / n : 0;
  }
}

/* Per worker of tl, the sum over its actors of their class's CPU at n = 1
 * (c1), into pw[tl->nworkers]. */
static void worker_cpu_from_ref(const ts_timeline *tl, const double *c1, double *pw)
{
  for (int j = 0; j < tl->nactors; j++)
    pw[tl->stats[j].worker] += c1[tl->stats[j].klass];
}

/* The law predicted from n = 1: for each actor of class k, the sum over its
 * worker's actors of their class's CPU at n = 1 (pw), plus the latency at n = 1. */
static double predict_from_ref(const ts_timeline *tl, int k, const double *pw, double lat1)
{
  double total = 0;
  int n = 0;
  for (int a = 0; a < tl->nactors; a++) {
    if (tl->stats[a].klass != k || tl->stats[a].hidden)
      continue;
    total += pw[tl->stats[a].worker] + lat1;
    n++;
  }
  return n ? total / n : 0;
}

/* Why the per-actor CPU at this n differs from n = 1. */
static void cpu_moved(FILE *out, const ts_timeline *tl, const class_sum *s, const class_sum *r)
{
  const ts_model *m = tl->model;
  int random = 0, priority = 0;
  for (size_t k = 0; k < m->nclasses; k++)
    for (size_t i = 0; i < m->classes[k].nsteps; i++) {
      const ts_step *st = &m->classes[k].steps[i];
      random |= st->type == &ts_op_cpu && st->cost.kind != TS_DIST_FIXED;
      priority |= st->type == &ts_op_io && st->priority;
    }
  fprintf(out, "  per-actor CPU moved from %s ms at n=1 (steps %s + overhead share %s)\n", ms(r->queued + r->loop).s,
          ms(r->cpu).s, ms(r->queued + r->loop - r->cpu).s);
  fprintf(out, "  to %s ms here (steps %s + overhead share %s):\n", ms(s->queued + s->loop).s, ms(s->cpu).s,
          ms(s->queued + s->loop - s->cpu).s);
  double p1 = ts_model_cpu_scale(m, 1), pn = ts_model_cpu_scale(m, tl->n);
  if (p1 != pn)
    fprintf(out, "  - the model prices CPU by load (host.cpu_scale_by_n): x%.4g at n=1, x%.4g at n=%d\n", p1, pn,
            tl->n);
  if (random)
    fprintf(out, "  - CPU demands are random in this model: each actor draws its own\n");
  if (s->yields != r->yields)
    fprintf(out, "  - %+g yields per actor (each costs %s ms of loop overhead)\n", s->yields - r->yields,
            ms((double)m->pools[0].yield_overhead).s);
  if (priority)
    fprintf(out, "  - while a priority operation is in flight the yield threshold drops to max(%s/%d, %s) ms:\n"
                 "    more, shorter slices\n",
            ms((double)m->pools[0].threshold).s, m->pools[0].priority_divisor, ms((double)m->pools[0].priority_min).s);
  if (m->pools[0].loop_overhead > 0)
    fprintf(out, "  - each loop iteration that does work costs %s ms, shared among the worker's actors\n",
            ms((double)m->pools[0].loop_overhead).s);
}

static void law(FILE *out, const ts_timeline *tl, int k, const class_sum *s, const ts_timeline *ref,
                const class_sum *r, const double *pw)
{
  double sleep1 = ref ? r->state[TS_ACTOR_SLEEP] : 0, sleep = s->state[TS_ACTOR_SLEEP];
  double pred = s->busy + s->state[TS_ACTOR_IO] + sleep;
  int slept = sleep > 0 || sleep1 > 0;
  fprintf(out, "\nwave law for class %s: wave(N) ~ m*(queued CPU + loop CPU) + overlappable latency\n",
          tl->model->classes[k].name);
  fprintf(out, "  %-44s %12s %12s\n", "term (mean per actor)", ref ? "from n=1" : "", "at this n");
  if (ref) {
    fprintf(out, "  %-44s %12s %12s\n", "queued CPU (time-sliced steps)", ms(r->queued).s, ms(s->queued).s);
    fprintf(out, "  %-44s %12s %12s\n", "loop CPU (other steps + share of overhead)", ms(r->loop).s, ms(s->loop).s);
    fprintf(out, "  %-44s %12s %12s\n", "overlappable latency (I/O in the wave)", ms(r->state[TS_ACTOR_IO]).s,
            ms(s->state[TS_ACTOR_IO]).s);
    if (slept)
      fprintf(out, "  %-44s %12s %12s\n", "... and sleep in the wave (think time)", ms(sleep1).s, ms(sleep).s);
    fprintf(out, "  %-44s %12g %12g\n", "slices", r->slices, s->slices);
    fprintf(out, "  %-44s %12g %12g\n", "m (actors on its worker)", r->peers, s->peers);
    double p1 = predict_from_ref(tl, k, pw, r->state[TS_ACTOR_IO] + sleep1);
    fprintf(out, "  %-44s %12s %12s\n", "law: m*(queued + loop CPU) + latency", ms(p1).s, ms(pred).s);
    fprintf(out, "  %-44s %12s %12s\n", "simulated mean wave", "", ms(s->wave).s);
    fprintf(out, "  %-44s %11.1f%% %11.1f%%\n", "simulated vs law", p1 > 0 ? 100 * (s->wave - p1) / p1 : 0.0, pred > 0 ? 100 * (s->wave - pred) / pred : 0.0);
  } else {
    fprintf(out, "  %-44s %12s %12s\n", "queued CPU (time-sliced steps)", "", ms(s->queued).s);
    fprintf(out, "  %-44s %12s %12s\n", "loop CPU (other steps + share of overhead)", "", ms(s->loop).s);
    fprintf(out, "  %-44s %12s %12s\n", "overlappable latency (I/O in the wave)", "", ms(s->state[TS_ACTOR_IO]).s);
    if (slept)
      fprintf(out, "  %-44s %12s %12s\n", "... and sleep in the wave (think time)", "", ms(sleep).s);
    fprintf(out, "  %-44s %12s %12g\n", "m (actors on its worker)", "", s->peers);
    fprintf(out, "  %-44s %12s %12s\n", "law: m*(queued + loop CPU) + latency", "", ms(pred).s);
    fprintf(out, "  %-44s %12s %12s\n", "simulated mean wave", "", ms(s->wave).s);
    fprintf(out, "  %-44s %12s %11.1f%%\n", "simulated vs law", "", pred > 0 ? 100 * (s->wave - pred) / pred : 0.0);
  }
  fprintf(out, "  the simulation differs from the law at this n by exactly (mean per actor):\n");
  fprintf(out, "    %-58s %12s ms\n", "worker busy while the actor was in I/O (latency hidden)", sms(-s->io_busy).s);
  fprintf(out, "    %-58s %12s ms\n", "worker busy outside its wave (others before or after it)", sms(-s->outside).s);
  if (slept)
    fprintf(out, "    %-58s %12s ms\n", "worker busy while the actor slept (think time hidden)", sms(-s->sleep_busy).s);
  fprintf(out, "    %-58s %12s ms\n", "worker idle while it waited", sms(s->wait_idle).s);
  if (s->other_gap != 0)
    fprintf(out, "    %-58s %12s ms\n", "other states, less the worker's busy time in them", sms(s->other_gap).s);
  fprintf(out, "    %-58s %12s ms\n", "= simulated - law", sms(s->wave - pred).s);
  if (ref && s->queued + s->loop != r->queued + r->loop)
    cpu_moved(out, tl, s, r);
}

static void header(FILE *out, const ts_timeline *tl, const char *title)
{
  const ts_model *m = tl->model;
  fprintf(out, "%s: n=%d, workers=%d, %d actor%s, one replication (stream seed %lu)\n", title ? title : m->name,
          tl->n, tl->nmain, tl->nactors, tl->nactors == 1 ? "" : "s", tl->seed);
  if (m->pools[0].kind == TS_WORKER_THREAD)
    fprintf(out, "model %s: thread workers (a FIFO run queue each; a task runs until it waits),\n", m->name);
  else
    fprintf(out, "model %s: %s time-slice queue, yield threshold %s ms, yield overhead %s ms, loop overhead %s ms,\n", m->name,
            m->pools[0].policy->name, ms((double)m->pools[0].threshold).s, ms((double)m->pools[0].yield_overhead).s,
            ms((double)m->pools[0].loop_overhead).s);
  if (m->cores > 0)
    fprintf(out, "  %d cores shared by the workers, dispatch %s\n", m->cores, ts_dispatch_name(m->dispatch));
  else
    fprintf(out, "  one core per worker, dispatch %s\n", ts_dispatch_name(m->dispatch));
  for (size_t i = 0; i < m->nservers; i++) /* a server's queue is another queue than the main pool's */
    fprintf(out, "  server %s: %s queue of calls, %d in service at once, on pool %s (%s)\n", m->servers[i].name,
            m->servers[i].policy->name, m->servers[i].concurrency, m->pools[m->servers[i].pool].name,
            m->pools[m->servers[i].pool].kind == TS_WORKER_THREAD ? "threads" : "event loops");
}

/* Whether some actor entered state st during the recorded run. */
static int entered(const ts_timeline *tl, int st)
{
  for (size_t i = 0; i < tl->nstates; i++)
    if (tl->states[i].state == st)
      return 1;
  return 0;
}

/* Whether some actor entered state st inside its wave (a wait before
 * wave_start, such as a client's wait for the harness's batch, is not the
 * wave's). */
static int entered_in_wave(const ts_timeline *tl, int st)
{
  for (size_t i = 0; i < tl->nstates; i++) {
    const ts_tl_state *e = &tl->states[i];
    const ts_actor_stats *a = &tl->stats[e->actor];
    if (e->state == st && e->t >= a->wave_start && (a->wave_end < 0 || e->t < a->wave_end))
      return 1;
  }
  return 0;
}

int ts_explain_report(FILE *out, const ts_timeline *tl, const ts_timeline *ref, const char *title)
{
  size_t nc = tl->model->nclasses;
  ts_explain_actor *x = calloc((size_t)(tl->nactors ? tl->nactors : 1), sizeof *x);
  ts_explain_actor *rx = ref ? calloc((size_t)(ref->nactors ? ref->nactors : 1), sizeof *rx) : NULL;
  double *c1 = calloc(nc, sizeof *c1);
  double *pw = calloc((size_t)(tl->nworkers > 0 ? tl->nworkers : 1), sizeof *pw);
  int rc = -1;
  ts_explain_rr rr;
  if (!x || !c1 || !pw || (ref && !rx) || ts_explain_account(tl, x) || (ref && ts_explain_account(ref, rx)) ||
      ts_explain_rr_check(tl, &rr))
    goto done;
  if (ref) {
    ref_cpu(ref, rx, c1);
    worker_cpu_from_ref(tl, c1, pw);
  }
  header(out, tl, title);
  int waves = 0;
  for (size_t k = 0; k < nc; k++) {
    class_sum s;
    sum_class(tl, x, (int)k, &s);
    if (s.count || s.unfinished)
      decomposition(out, tl, x, (int)k, &s);
    waves += s.count;
  }
  if (ts_explain_spans(out, tl) || ts_explain_queue(out, tl) || ts_explain_contention(out, tl) ||
      ts_explain_calls(out, tl))
    goto done;
  rc = 0;
  if (!waves) /* the horizon stopped every actor: no wave for the closed form or the law */
    goto done;
  closed_form(out, tl, &rr);
  const ts_model *m = tl->model;
  /* what this run did, not what the model could do (a hop class of count 0 never hops) */
  const char *no_law = tl->ncalls > 0 ? "the actors call servers"
                       : entered(tl, TS_ACTOR_HOP) ? "the actors hop between workers"
                       : m->has_thread ? "the workers are threads, not time-slice loops"
                       : tl->mutex_contended > 0 ? "the actors contend on mutexes"
                       : entered_in_wave(tl, TS_ACTOR_CHAN_WAIT) ? "the actors wait on channels in their waves"
                                                         : NULL;
  char open[400];
  if (every_class_open(tl) && ts_explain_open(m, open, sizeof open)) {
    ts_explain_open_queues(out, tl, open);
    ts_explain_theory(out, tl, x);
    nc = 0;
  } else if (no_law) {
    fprintf(out, "\nwave law (wave(N) ~ m*(queued CPU + loop CPU) + latency): does not apply: %s\n", no_law);
    nc = 0;
  }
  for (size_t k = 0; k < nc; k++) {
    class_sum s, r;
    sum_class(tl, x, (int)k, &s);
    if (ref)
      sum_class(ref, rx, (int)k, &r);
    char arr[96];
    if (s.count && ts_explain_open_class(m, (int)k, arr, sizeof arr))
      fprintf(out, "\nwave law for class %s: does not apply: open arrivals (%s): its actors do not start together\n",
              m->classes[k].name, arr);
    else if (s.count)
      law(out, tl, (int)k, &s, ref && r.count ? ref : NULL, &r, pw);
  }
  rc = 0;
done:
  free(x);
  free(rx);
  free(c1);
  free(pw);
  return rc;
}
