/* The text of tssim explain: per class, where the wave went and what the
 * worker did meanwhile; then the round-robin closed form and its
 * processor-sharing limit where they apply, and the wave law everywhere.
 * Means are over the actors of a class, so every table adds up exactly. */
#include "viz/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/dispatch.h"
#include "model/state.h"
#include "viz/explain_wave.h"

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

/* Class means over the actors with a wave (count); unfinished: the class's
 * other visible actors. */
typedef struct class_sum {
  int count, unfinished;
  double wave, state[TS_NSTATES], held[TS_NSTATES];
  double wait_others, wait_loop, wait_idle, wait_blocked, ready_blocked, ready_waking, held_blocked, held_waking,
      io_busy, sleep_busy, other_gap, outside, busy, queued, loop, peers, sharers, slices, yields, cpu, call_queued,
      call_service;
  ts_time wmin, wmax;
} class_sum;

static void sum_class(const ts_timeline *tl, const ts_explain_actor *x, int k, class_sum *s)
{
  memset(s, 0, sizeof *s);
  s->wmin = TS_TIME_MAX;
  for (int a = 0; a < tl->nactors; a++) {
    s->unfinished += tl->stats[a].klass == k && !tl->stats[a].hidden && !ts_explain_has_wave(tl, a, k);
    if (!ts_explain_has_wave(tl, a, k))
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
    s->wait_blocked += (double)e->wait_blocked;
    s->ready_blocked += (double)e->ready_blocked;
    s->ready_waking += (double)e->ready_waking;
    s->held_blocked += (double)e->held_blocked;
    s->held_waking += (double)e->held_waking;
    s->io_busy += (double)e->io_busy;
    s->sleep_busy += (double)e->sleep_busy;
    s->other_gap += (double)e->other_gap;
    s->outside += (double)e->outside;
    s->busy += (double)e->worker_busy;
    s->queued += (double)e->queued_cpu;
    s->loop += (double)e->loop_cpu;
    s->peers += e->peers;
    s->sharers += e->sharers;
    s->slices += (double)e->slices; /* in the wave, as the law's CPU */
    s->yields += (double)e->yields;
    s->cpu += (double)e->step_cpu;
    s->call_queued += (double)e->call_queued;
    s->call_service += (double)e->call_service;
    s->wmin = e->wave < s->wmin ? e->wave : s->wmin;
    s->wmax = e->wave > s->wmax ? e->wave : s->wmax;
  }
  double n = s->count ? s->count : 1;
  double *f[] = {&s->wave,   &s->wait_others, &s->wait_loop, &s->wait_idle, &s->wait_blocked, &s->ready_blocked,
                 &s->ready_waking, &s->io_busy,
                 &s->sleep_busy, &s->other_gap, &s->outside, &s->busy,   &s->queued,
                 &s->loop,   &s->peers,       &s->slices,    &s->yields,    &s->cpu,
                 &s->call_queued, &s->call_service, &s->held_blocked, &s->held_waking, &s->sharers};
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
    if (ts_explain_has_wave(tl, a, k))
      v[n++] = x[a].wave;
  qsort(v, n, sizeof *v, cmp_time);
  double m = n == 0 ? 0 : n % 2 ? (double)v[n / 2] : ((double)v[n / 2 - 1] + (double)v[n / 2]) / 2;
  free(v);
  return m;
}

/* What class k's actors with a wave did between their arrival and their
 * wave_start (a connect, a wait for the batch, an admission): per state,
 * mean per actor, into t[TS_NSTATES + 1] (ts_explain_state_times). Returns
 * the mean total (0: each wave began at its actor's arrival). */
static double before_wave(const ts_timeline *tl, int k, double *t)
{
  int n = 0;
  double total = 0;
  for (int st = 0; st <= TS_NSTATES; st++)
    t[st] = 0;
  for (int a = 0; a < tl->nactors; a++) {
    if (!ts_explain_has_wave(tl, a, k))
      continue;
    n++;
    ts_explain_state_times(tl, a, tl->stats[a].arrive, tl->stats[a].wave_start, t);
  }
  for (int st = 0; st <= TS_NSTATES && n; st++)
    total += t[st] /= n;
  return total;
}

/* The line of what came before the wave, when anything did: "before its
 * wave (arrival to wave_start, not in the wave): X ms per actor: ..." with
 * each state that took time, largest first. */
static void before_wave_line(FILE *out, const ts_timeline *tl, int k)
{
  double t[TS_NSTATES + 1];
  double total = before_wave(tl, k, t);
  if (strcmp(ms(total).s, "0") == 0)
    return;
  int thread = tl->model->pools[tl->model->classes[k].pool].kind == TS_WORKER_THREAD;
  fprintf(out, "  before its wave (arrival to wave_start, not in the wave): %s ms per actor, mean:\n   ", ms(total).s);
  for (int shown = 0;; shown++) {
    int best = -1;
    for (int i = 0; i <= TS_NSTATES; i++) {
      int st = ts_explain_state_at(i);
      if (t[st] > 0 && (best < 0 || t[st] > t[best]))
        best = st;
    }
    if (best < 0)
      break;
    fprintf(out, "%s %s %s", shown ? "," : "", ts_explain_state_label(tl, best, thread), ms(t[best]).s);
    t[best] = 0;
  }
  fprintf(out, "\n");
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
  const char *held_busy; /* ...that row when a thread's parked or waking part has rows of its own */
  const char *short_;    /* in "while it waited (queue, ..., lock)" */
} ready_words;

static ready_words ready_words_of(const ts_timeline *tl, int k)
{
  static const ready_words loop = {"I/O-callback wait (ready, loop busy)", "held in callback wait",
                                    "held in callback wait", "callback"},
                           thread = {"run-queue wait (runnable, thread busy)", "held while runnable",
                                     "held while runnable, thread busy", "run queue"},
                           both = {"ready wait (I/O callbacks, run queues)", "held while ready",
                                   "held while ready, worker busy", "ready"};
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

/* Whether state st has a row of its own in the decomposition (and in its
 * locks), or is none of the wave's (not arrived, done). */
static int own_row(int st)
{
  static const int shown[] = {TS_ACTOR_NEW, TS_ACTOR_RUNNING, TS_ACTOR_QUEUED, TS_ACTOR_READY, TS_ACTOR_IO,
                              TS_ACTOR_LOCK_WAIT, TS_ACTOR_DONE};
  for (size_t i = 0; i < sizeof shown / sizeof *shown; i++)
    if (shown[i] == st)
      return 1;
  return 0;
}

/* A row "held while STATE" for each state of s without a row of its own
 * (own_row) where a lock was held, on a CPU (the state table's on_cpu, but
 * not running) or not, as on_cpu says. */
static void held_rows(FILE *out, const class_sum *s, int on_cpu)
{
  for (int st = 0; st < TS_NSTATES; st++)
    if (!own_row(st) && !ts_state_get(st)->on_cpu == !on_cpu && s->held[st] > 0) {
      char what[64];
      snprintf(what, sizeof what, "held while %s", ts_state_get(st)->name);
      row(out, what, s->held[st], 0);
    }
}

static void decomposition(FILE *out, const ts_timeline *tl, const ts_explain_actor *x, int k, const class_sum *s)
{
  ready_words rw = ready_words_of(tl, k);
  int all = s->count + s->unfinished;
  fprintf(out, "\nclass %s%s: %d actor%s", tl->model->classes[k].name,
          tl->model->classes[k].report ? "" : " (report: false: no rows of its own in the results)", all,
          all == 1 ? "" : "s");
  int arrived = 0; /* actors with a recorded state or dropped at arrival: the others' arrival lay past the end */
  for (int a = 0; a < tl->nactors; a++)
    arrived += tl->stats[a].klass == k && !tl->stats[a].hidden &&
               (tl->state_at[a] < tl->state_at[a + 1] || (tl->dropped && tl->dropped[a]));
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
  int never = all - arrived, stopped = s->unfinished - never; /* of those without a wave */
  char more[64] = "";
  if (never > 0)
    snprintf(more, sizeof more, "; %d more never arrived before the run ended", never);
  if (stopped > 0)
    fprintf(out, "  %d ended no wave (dropped, or stopped by the horizon)%s: the means below are over the %d that did\n",
            stopped, more, s->count);
  else if (never > 0)
    fprintf(out, "  %d never arrived before the run ended: the means below are over the %d whose wave ended\n", never,
            s->count);
  fprintf(out, "  wave (wave_start to wave_end) per actor: mean %s ms, median %s, min %s, max %s\n",
          ms(s->wave).s, ms(median_wave(tl, x, k)).s, ms((double)s->wmin).s, ms((double)s->wmax).s);
  before_wave_line(out, tl, k);
  fprintf(out, "  where the wave goes (mean per actor):\n");
  row(out, "own CPU (running)", s->state[TS_ACTOR_RUNNING], s->wave);
  row(out, "queue wait (time-slice queue)", s->state[TS_ACTOR_QUEUED], s->wave);
  row(out, rw.row, s->state[TS_ACTOR_READY] - s->ready_blocked - s->ready_waking, s->wave);
  if (s->ready_blocked > 0) /* a runnable task's thread parked (another task of it on a mutex) */
    row(out, "runnable: thread parked on a mutex", s->ready_blocked, s->wave);
  if (s->ready_waking > 0) /* a task made runnable on a sleeping thread waits for it to wake */
    row(out, "runnable: thread waking up (wake latency)", s->ready_waking, s->wave);
  row(out, "I/O (off CPU)", s->state[TS_ACTOR_IO], s->wave);
  row(out, "lock wait", s->state[TS_ACTOR_LOCK_WAIT], s->wave);
  for (int st = 0; st < TS_NSTATES; st++) { /* the other states, where they took time (state table) */
    int done = own_row(st);
    int split = st == TS_ACTOR_CALL_WAIT && tl->ncall_spans > 0; /* by the calls: the queue wait, the legs */
    if (split && s->call_queued > 0)
      row(out, ts_explain_state_label(tl, TS_NSTATES, 0), s->call_queued, s->wave);
    if (!done && s->state[st] - (split ? s->call_queued : 0) > 0)
      row(out, ts_explain_state_label(tl, st, 0), s->state[st] - (split ? s->call_queued : 0), s->wave);
  }
  row(out, "= wave", s->wave, 0);
  if (tl->ncall_spans > 0 && s->state[TS_ACTOR_CALL_WAIT] + s->call_service > 0)
    fprintf(out, "  its calls (mean per actor): queued at the server %s ms, request and reply legs %s ms, service %s ms\n"
            "  (a call's service runs its handler, whose own CPU and waits are in the rows above)\n",
            ms(s->call_queued).s, ms(s->state[TS_ACTOR_CALL_WAIT] - s->call_queued).s, ms(s->call_service).s);
  double waited = s->state[TS_ACTOR_QUEUED] + s->state[TS_ACTOR_READY] + s->state[TS_ACTOR_LOCK_WAIT];
  fprintf(out, "  while it waited (queue, %s, lock: %s ms) its worker ran:\n", rw.short_, ms(waited).s);
  row(out, "other actors' CPU", s->wait_others, waited);
  row(out, "loop overhead (yields, loop iterations)", s->wait_loop, waited);
  if (s->wait_blocked > 0)
    row(out, "nothing: blocked, a task parked on a mutex", s->wait_blocked, waited);
  if (s->ready_waking > 0)
    row(out, "nothing: waking up (wake latency)", s->ready_waking, waited);
  row(out, "nothing (idle)", s->wait_idle - s->wait_blocked - s->ready_waking, waited);
  double held = 0, desched = 0, on_cpu = 0; /* on_cpu: held on a CPU but not running (spin, futex) */
  for (int i = 0; i <= TS_ACTOR_DONE; i++) {
    held += s->held[i];
    if (!ts_state_get(i)->on_cpu)
      desched += s->held[i];
    else if (i != TS_ACTOR_RUNNING)
      on_cpu += s->held[i];
  }
  if (tl->model->nlocks == 0)
    return;
  fprintf(out, "  locks: held %s ms of the wave; held while descheduled %s ms (%.1f%% of the wave):\n",
          ms(held).s, ms(desched).s, s->wave > 0 ? 100 * desched / s->wave : 0.0);
  row(out, "held while queued", s->held[TS_ACTOR_QUEUED], 0);
  int split = s->held_blocked > 0 || s->held_waking > 0; /* as the runnable wait is split above */
  row(out, split ? rw.held_busy : rw.held, s->held[TS_ACTOR_READY] - s->held_blocked - s->held_waking, 0);
  if (s->held_blocked > 0)
    row(out, "held while runnable, thread parked", s->held_blocked, 0);
  if (s->held_waking > 0)
    row(out, "held while runnable, thread waking up", s->held_waking, 0);
  row(out, "held during I/O", s->held[TS_ACTOR_IO], 0);
  row(out, "held while waiting for another lock", s->held[TS_ACTOR_LOCK_WAIT], 0);
  held_rows(out, s, 0); /* the other states it held a lock in: the rows add up to the descheduled */
  if (on_cpu <= 0)
    return;
  char keys[64] = ""; /* the on-CPU states other than running, by the state table: "spin, futex" */
  for (int st = 0; st < TS_NSTATES; st++)
    if (st != TS_ACTOR_RUNNING && ts_state_get(st)->on_cpu)
      snprintf(keys + strlen(keys), sizeof keys - strlen(keys), "%s%s", *keys ? ", " : "", ts_state_get(st)->key);
  fprintf(out, "  held while on CPU waiting (%s) %s ms (%.1f%% of the wave):\n", keys, ms(on_cpu).s,
          s->wave > 0 ? 100 * on_cpu / s->wave : 0.0);
  held_rows(out, s, 1);
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
  int by_time = 0; /* the one class's one cpu step is sliced by time */
  for (size_t i = 0; i < m->classes[0].nsteps; i++)
    by_time |= m->classes[0].steps[i].type == &ts_op_cpu && m->classes[0].steps[i].by_time;
  fprintf(out, "\n  (a slice ends %s the %s ms threshold)\n",
          by_time ? "when the lap reaches" : "after the first row that takes the lap past",
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

/* Why class k's per-actor CPU at this n differs from n = 1; priority: a
 * priority operation was in flight in its waves (ts_explain_priority_in_wave),
 * here or at n = 1. */
static void cpu_moved(FILE *out, const ts_timeline *tl, int k, const class_sum *s, const class_sum *r, int priority)
{
  const ts_model *m = tl->model;
  int random = ts_explain_random_in_wave(tl, k);
  fprintf(out, "  per-actor CPU moved from %s ms at n=1 (steps %s + overhead share %s)\n", ms(r->queued + r->loop).s,
          ms(r->cpu).s, ms(r->queued + r->loop - r->cpu).s);
  fprintf(out, "  to %s ms here (steps %s + overhead share %s):\n", ms(s->queued + s->loop).s, ms(s->cpu).s,
          ms(s->queued + s->loop - s->cpu).s);
  double p1 = ts_model_cpu_scale(m, 1), pn = ts_model_cpu_scale(m, tl->n);
  if (p1 != pn)
    fprintf(out, "  - the model prices CPU by load (host.cpu_scale_by_n): x%.4g at n=1, x%.4g at n=%d\n", p1, pn,
            tl->n);
  if (random)
    fprintf(out, "  - CPU demands in the wave are random in this model: each actor draws its own\n");
  if (s->yields != r->yields) /* means over the actors: fewer here when they drew less CPU (fewer slices) */
    fprintf(out, "  - %g yields per actor in its wave here against %g at n=1 (%g %s; each costs %s ms of loop overhead)\n",
            s->yields, r->yields, fabs(s->yields - r->yields), s->yields > r->yields ? "more" : "fewer",
            ms((double)m->pools[0].yield_overhead).s);
  const ts_pool *pl = &m->pools[m->classes[k].pool];
  if (priority)
    fprintf(out, "  - a priority operation was in flight in its waves: meanwhile the yield threshold drops to\n"
                 "    max(%s/%d, %s) ms: more, shorter slices\n",
            ms((double)pl->threshold).s, pl->priority_divisor, ms((double)pl->priority_min).s);
  if (m->pools[0].loop_overhead > 0)
    fprintf(out, "  - each loop iteration that does work costs %s ms, shared among the worker's actors\n",
            ms((double)m->pools[0].loop_overhead).s);
}

/* The form of class k's law and its CPU term (ts_explain_law_means). */
typedef struct law_form {
  ts_explain_law_kind kind;
  char why[300];       /* TS_EXPLAIN_LAW_NONE: why */
  double cpu, cpu1;    /* the CPU term at this n, and from n = 1 */
  int priority;        /* a priority operation was in flight in the class's waves, here or at n = 1 */
} law_form;

static void law(FILE *out, const ts_timeline *tl, int k, const class_sum *s, const ts_timeline *ref,
                const class_sum *r, const law_form *f)
{
  const char *name = tl->model->classes[k].name;
  if (f->kind == TS_EXPLAIN_LAW_NONE) {
    fprintf(out, "\nwave law for class %s: closed form does not apply: %s\n", name, f->why);
    return;
  }
  double sleep1 = ref ? r->state[TS_ACTOR_SLEEP] : 0, sleep = s->state[TS_ACTOR_SLEEP];
  double pred = f->cpu + s->state[TS_ACTOR_IO] + sleep;
  int slept = sleep > 0 || sleep1 > 0;
  const char *label =
      f->kind == TS_EXPLAIN_LAW_PS ? "law: c + sum min(c_j, c) + latency" : "law: c + CPU ahead + latency";
  if (f->kind == TS_EXPLAIN_LAW_PS)
    fprintf(out, "\nwave law for class %s: wave(N) ~ m*(queued CPU + loop CPU) + overlappable latency\n"
                 "  for equal demands; its queue serves in turn (round robin), so per actor, as under processor sharing:\n"
                 "  wave ~ c + sum over j of min(c_j, c) + overlappable latency\n"
                 "  (c: an actor's queued CPU + loop CPU inside its wave; j: the other actors on its worker whose waves\n"
                 "  overlap its own; k: those and itself, who share the worker's loop overhead in its wave)\n",
            name);
  else
    fprintf(out, "\nwave law for class %s: each actor's CPU ran in one slice (first come, run to completion), so per actor:\n"
                 "  wave ~ c + sum over the j ahead of it of c_j + overlappable latency\n"
                 "  (c: an actor's queued CPU + loop CPU inside its wave; j ahead: the other actors on its worker whose\n"
                 "  waves overlap its own and began first; k: all those whose waves overlap its own, itself included,\n"
                 "  who share the worker's loop overhead in its wave)\n",
            name);
  fprintf(out, "  %-44s %12s %12s\n", "term (mean per actor)", ref ? "from n=1" : "", "at this n");
  if (ref) {
    fprintf(out, "  %-44s %12s %12s\n", "queued CPU (time-sliced steps)", ms(r->queued).s, ms(s->queued).s);
    fprintf(out, "  %-44s %12s %12s\n", "loop CPU (other steps + overhead/k)", ms(r->loop).s, ms(s->loop).s);
    fprintf(out, "  %-44s %12s %12s\n", "overlappable latency (I/O in the wave)", ms(r->state[TS_ACTOR_IO]).s,
            ms(s->state[TS_ACTOR_IO]).s);
    if (slept)
      fprintf(out, "  %-44s %12s %12s\n", "... and sleep in the wave (think time)", ms(sleep1).s, ms(sleep).s);
    fprintf(out, "  %-44s %12g %12g\n", "slices in the wave", r->slices, s->slices);
    fprintf(out, "  %-44s %12g %12g\n", "k (actors sharing its wave, itself included)", r->sharers, s->sharers);
    fprintf(out, "  %-44s %12g %12g\n", "m (actors on its worker)", r->peers, s->peers);
    double p1 = f->cpu1 + r->state[TS_ACTOR_IO] + sleep1;
    fprintf(out, "  %-44s %12s %12s\n", label, ms(p1).s, ms(pred).s);
    fprintf(out, "  %-44s %12s %12s\n", "simulated mean wave", "", ms(s->wave).s);
    fprintf(out, "  %-44s %11.1f%% %11.1f%%\n", "simulated vs law", p1 > 0 ? 100 * (s->wave - p1) / p1 : 0.0, pred > 0 ? 100 * (s->wave - pred) / pred : 0.0);
  } else {
    fprintf(out, "  %-44s %12s %12s\n", "queued CPU (time-sliced steps)", "", ms(s->queued).s);
    fprintf(out, "  %-44s %12s %12s\n", "loop CPU (other steps + overhead/k)", "", ms(s->loop).s);
    fprintf(out, "  %-44s %12s %12s\n", "overlappable latency (I/O in the wave)", "", ms(s->state[TS_ACTOR_IO]).s);
    if (slept)
      fprintf(out, "  %-44s %12s %12s\n", "... and sleep in the wave (think time)", "", ms(sleep).s);
    fprintf(out, "  %-44s %12s %12g\n", "k (actors sharing its wave, itself included)", "", s->sharers);
    fprintf(out, "  %-44s %12s %12g\n", "m (actors on its worker)", "", s->peers);
    fprintf(out, "  %-44s %12s %12s\n", label, "", ms(pred).s);
    fprintf(out, "  %-44s %12s %12s\n", "simulated mean wave", "", ms(s->wave).s);
    fprintf(out, "  %-44s %12s %11.1f%%\n", "simulated vs law", "", pred > 0 ? 100 * (s->wave - pred) / pred : 0.0);
  }
  fprintf(out, "  the simulation differs from the law at this n by exactly (mean per actor):\n");
  fprintf(out, "    %-58s %12s ms\n",
          f->kind == TS_EXPLAIN_LAW_PS ? "worker busy in its wave less c + sum min(c_j, c)"
                            : "worker busy in its wave less c + CPU ahead",
          sms(s->busy - s->outside - f->cpu).s); /* the worker's busy time in the wave less c's */
  fprintf(out, "    %-58s %12s ms\n", "worker busy while the actor was in I/O (latency hidden)", sms(-s->io_busy).s);
  if (slept)
    fprintf(out, "    %-58s %12s ms\n", "worker busy while the actor slept (think time hidden)", sms(-s->sleep_busy).s);
  fprintf(out, "    %-58s %12s ms\n", "worker idle while it waited", sms(s->wait_idle).s);
  if (s->other_gap != 0)
    fprintf(out, "    %-58s %12s ms\n", "other states, less the worker's busy time in them", sms(s->other_gap).s);
  fprintf(out, "    %-58s %12s ms\n", "= simulated - law", sms(s->wave - pred).s);
  if (ref && s->queued + s->loop != r->queued + r->loop)
    cpu_moved(out, tl, k, s, r, f->priority);
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
  int *by = NULL, *at = NULL;
  int rc = -1;
  ts_explain_rr rr;
  if (!x || !c1 || (ref && !rx) || ts_explain_account(tl, x) || (ref && ts_explain_account(ref, rx)) ||
      ts_explain_rr_check(tl, &rr) || ts_explain_by_worker(tl, &by, &at))
    goto done;
  if (ref)
    ts_explain_ref_cpu(ref, rx, c1);
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
      ts_explain_mva(out, tl) || ts_explain_calls(out, tl))
    goto done;
  rc = 0;
  if (!tl->nactors) /* every class's count is 0 at this n */
    fprintf(out, "\nno actors at this point (every class's count is 0 at n=%d): nothing to explain\n", tl->n);
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
    fprintf(out, "\nwave law: does not apply: %s\n", no_law);
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
    else if (s.count) {
      law_form f;
      f.kind = ts_explain_law_kind_of(tl, x, (int)k, by, at, f.why, sizeof f.why);
      int here = ts_explain_priority_in_wave(tl, (int)k);
      int at1 = ref ? ts_explain_priority_in_wave(ref, (int)k) : 0;
      f.priority = here > 0 || at1 > 0;
      double *from1 = ref && r.count ? &f.cpu1 : NULL;
      if (here < 0 || at1 < 0 ||
          (f.kind != TS_EXPLAIN_LAW_NONE && ts_explain_law_means(tl, x, (int)k, f.kind, c1, by, at, &f.cpu, from1))) {
        rc = -1;
        goto done;
      }
      law(out, tl, (int)k, &s, ref && r.count ? ref : NULL, &r, &f);
    }
  }
  rc = 0;
done:
  free(x);
  free(rx);
  free(c1);
  free(by);
  free(at);
  return rc;
}
