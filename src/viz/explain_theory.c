/* Queueing theory beside an open model's simulation in tssim explain: per
 * queue its load rho = lambda E[S] / c from the declared arrival rate and
 * service distributions and, where the model is a textbook queue, the
 * closed-form mean wait next to the simulated one: Pollaczek-Khinchine for
 * one server (M/G/1), Erlang C for c servers with exponential service
 * (M/M/c), the Allen-Cunneen approximation for c servers with any other
 * service (M/G/c, labelled as an approximation), and the others of
 * explain_laws.h (priority, processor sharing, batches, finite queues,
 * queues split by dispatch). Several Poisson classes on one queue are one
 * Poisson stream of a mixed service. A queue that is not one of these says
 * which assumption fails.
 *
 * A service time is the sum of a class's cpu steps on the queue's workers
 * (the main pool's, or a server's handler); the steps around them must take
 * no time (marks, spans), so the workers do nothing but serve. */
#include "viz/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/dispatch.h"
#include "model/op.h"
#include "viz/explain_laws.h"

/* The service a class's program asks of one queue (explain_laws.h). */
typedef ts_law_service service;

typedef struct program {
  service main;      /* cpu steps outside call handlers: on the class's own pool */
  service handler;   /* cpu steps of its call's handler */
  int server;        /* the one server it calls (-1: none) */
  int yields;        /* a yield before its first cpu step: it queues in the time-slice queue */
  int by_time;       /* cpu steps sliced by time (round robin: processor sharing as the slice shrinks) */
  int whole;         /* cpu steps outside handlers that run to completion */
  int kernel;        /* a cpu step outside the handler is kernel CPU ("account": "kernel"): never preempted */
  double patience;   /* its call's timeout, an exponential patience in the server's queue: its mean (ns; 0: none) */
  double leave;      /* its cpu demand is a feedback loop, left after each pass with this probability (0: none) */
  char why[160];     /* not empty: no service time can be read from it */
} program;

static const char *const dist_names[] = {"fixed", "exponential", "lognormal", "gamma", "uniform", "empirical"};

static int zero(const ts_dist *d)
{
  return !d->mean_ms && d->kind == TS_DIST_FIXED && d->mean == 0;
}

/* Add one draw of d to s: 0, or -1 when its mean is an expression. */
static int add_dist(service *s, const ts_dist *d)
{
  if (d->mean_ms)
    return -1;
  double m = (double)d->mean, v = 0;
  switch (d->kind) {
  case TS_DIST_FIXED: v = 0; break;
  case TS_DIST_EXPONENTIAL: v = m * m; break;
  case TS_DIST_LOGNORMAL:
  case TS_DIST_GAMMA: v = d->cv * m * d->cv * m; break;
  case TS_DIST_UNIFORM: v = (double)(d->hi - d->lo) * (double)(d->hi - d->lo) / 12; break;
  case TS_DIST_EMPIRICAL: {
    double sq = 0;
    for (size_t i = 0; i < d->nemp; i++)
      sq += d->emp[i] * d->emp[i];
    v = d->nemp ? m * m * (sq / (double)d->nemp - 1) : 0;
    v = v > 0 ? v : 0;
    break;
  }
  }
  if (m <= 0)
    return 0;
  s->mean += m;
  s->var += v;
  s->terms++;
  s->exponential = s->terms == 1 && d->kind == TS_DIST_EXPONENTIAL;
  s->kind = dist_names[d->kind];
  s->cv = sqrt(s->var) / s->mean;
  return 0;
}

/* Whether c's steps from i are a feedback loop (random routing back to
 * the queue): a repeat of forever or of a count that cuts a negligible
 * tail, without a "while", whose body is one cpu step run to completion
 * then an "if" with a constant probability p of leaving (its then steps
 * only marks, span ends and an exit; no else). Then the loop's whole demand
 * is a geometric number N (on 1, 2, ...; E[N] = 1/p, E[N(N - 1)] = 2 (1 -
 * p) / p^2) of that step's draws S: into *svc, E[S] / p and E[S^2] / p +
 * 2 (1 - p) E[S]^2 / p^2 (exponential stays exponential), *leave = p; and
 * returns the repeat_end's index. -1 when the steps are not that. */
static int feedback_loop(const ts_class *c, size_t i, service *svc, double *leave)
{
  const ts_step *st = c->steps;
  if (st[i].type != &ts_op_repeat || st[i].cond || st[i].jump < 0 || (size_t)st[i].jump >= c->nsteps)
    return -1;
  size_t end = (size_t)st[i].jump, j = i + 1;
  double p, count = 0;
  if (j + 2 > end || st[j].type != &ts_op_cpu || st[j].sliced || st[j + 1].type != &ts_op_if || !st[j + 1].chance ||
      !ts_expr_is_constant(st[j + 1].expr, &p) || !(p > 0 && p <= 1))
    return -1;
  if (!st[i].forever && !(ts_expr_is_constant(st[i].expr, &count) && count >= 1 && pow(1 - p, count) < 1e-9))
    return -1;
  size_t k = j + 2; /* the then steps, up to the if's jump (the end: no else) */
  if (st[j + 1].jump != (int)end)
    return -1;
  for (; k < end; k++)
    if (st[k].type != &ts_op_mark && st[k].type != &ts_op_span_end && st[k].type != &ts_op_exit)
      return -1;
  service one = {0};
  if (add_dist(&one, &st[j].cost) || one.terms != 1)
    return -1;
  double s2 = one.var + one.mean * one.mean, mean = one.mean / p;
  double second = s2 / p + 2 * (1 - p) * one.mean * one.mean / (p * p);
  *svc = one;
  svc->mean = mean;
  svc->var = second - mean * mean > 0 ? second - mean * mean : 0;
  svc->cv = sqrt(svc->var) / mean;
  if (!one.exponential)
    svc->kind = "a geometric sum of passes"; /* (of exponential passes: exponential again) */
  *leave = p;
  return (int)end;
}

/* Into why: that class c's program has "else" steps, naming the step they
 * belong to as the model writes it ("a call with a timeout"); at is the jump
 * over them that the loader put after that step (its alt is at + 1). */
static void else_steps(const ts_class *c, size_t at, char *why, size_t cap)
{
  const ts_step *s = NULL;
  for (size_t j = 0; j < at && !s; j++)
    if (c->steps[j].alt == (int)at + 1)
      s = &c->steps[j];
  const char *op = s ? (s->type->name ? s->type->name : s->type->structured) : NULL;
  snprintf(why, cap, "the program has a %s %s \"else\" steps (only cpu steps make a service time)", op ? op : "step",
           s && s->limited ? "with a timeout and" : "with");
}

/* Read class k's program into p. */
static void read_program(const ts_model *m, int k, program *p)
{
  memset(p, 0, sizeof *p);
  p->server = -1;
  const ts_class *c = &m->classes[k];
  int handler_end = -1;
  for (size_t i = 0; i < c->nsteps && !p->why[0]; i++) {
    const ts_step *s = &c->steps[i];
    int in_handler = (int)i < handler_end;
    if (s->type == &ts_op_mark || s->type == &ts_op_span_begin || s->type == &ts_op_span_end)
      continue;
    service loop;
    double leave;
    int end = -1;
    if (s->type == &ts_op_repeat && !in_handler && !p->main.terms && p->server < 0 &&
        (end = feedback_loop(c, i, &loop, &leave)) >= 0) {
      p->main = loop;
      p->leave = leave;
      p->whole++;
      i = (size_t)end; /* (past the loop) */
    } else if (s->type == &ts_op_yield && !in_handler && !p->yields && !p->main.terms) {
      p->yields = 1;
    } else if (s->type == &ts_op_cpu && p->leave > 0 && !in_handler) {
      snprintf(p->why, sizeof p->why, "a cpu step after its feedback loop");
    } else if (s->type == &ts_op_cpu) {
      p->kernel |= s->kernel && !in_handler;
      if (s->sliced && (!s->by_time || in_handler))
        snprintf(p->why, sizeof p->why, "a cpu step sliced by rows: a long job's slices are long, neither first come"
                 " first served nor processor sharing");
      else if (add_dist(in_handler ? &p->handler : &p->main, &s->cost))
        snprintf(p->why, sizeof p->why, "a cpu demand given by an expression");
      else if (!in_handler && s->sliced)
        p->by_time++;
      else if (!in_handler)
        p->whole++;
    } else if (s->type == &ts_op_call && !in_handler && p->server < 0) {
      if (!zero(&s->cost) || !zero(&s->cost2) || s->send || s->recv)
        snprintf(p->why, sizeof p->why, "the call has request, reply, send or receive times besides the handler");
      else if (!s->wait)
        snprintf(p->why, sizeof p->why, "the call does not wait for its reply");
      else if (s->limited && (s->limit.kind != TS_DIST_EXPONENTIAL || s->limit.mean_ms || s->limit.mean <= 0))
        snprintf(p->why, sizeof p->why, "the call's timeout is not an exponential patience of a constant mean");
      else if (s->limited)
        p->patience = (double)s->limit.mean;
      p->server = s->ref;
      handler_end = s->jump;
    } else if (s->type == &ts_op_call_end && (int)i == handler_end) {
      continue;
    } else if (s->type == &ts_op_call) {
      snprintf(p->why, sizeof p->why, "the program calls more than once");
    } else if (s->type == &ts_op_jump) { /* (an "if" is named at its start) */
      else_steps(c, i, p->why, sizeof p->why);
    } else {
      const char *name = s->type->name ? s->type->name : s->type->structured;
      snprintf(p->why, sizeof p->why, "the program has a%s %s step (only cpu steps make a service time)",
               name && strchr("aeiou", name[0]) ? "n" : "", name ? name : "structured");
    }
  }
}

/* Arrivals of class k per ns, or 0 with why set when they are not Poisson of single actors. */
static double poisson_rate(const ts_class *c, char *why, size_t cap)
{
  const ts_arrival *a = &c->arrival;
  if (a->kind != TS_ARRIVE_POISSON)
    snprintf(why, cap, "arrivals of class %s are not Poisson (%s)", c->name,
             a->kind == TS_ARRIVE_PERIODIC ? "periodic" : a->kind == TS_ARRIVE_AT ? "at fixed times" : "after another class");
  else if (a->batch_kind != TS_BATCH_FIXED || a->batch != 1)
    snprintf(why, cap, "class %s arrives in batches", c->name);
  else
    return a->rate_per_s / 1e9;
  return 0;
}

/* Whether class c arrives in Poisson batches (not single actors): then the
 * batch size X's E[X] and E[X^2] into ex, ex2 (fixed K: K and K^2;
 * geometric on 1, 2, ... of mean M: M and M (2M - 1); uniform integer in
 * [A, B]: its mean and variance ((B - A + 1)^2 - 1) / 12 plus the mean
 * squared). */
static int poisson_batches(const ts_class *c, double *ex, double *ex2)
{
  const ts_arrival *a = &c->arrival;
  if (a->kind != TS_ARRIVE_POISSON || (a->batch_kind == TS_BATCH_FIXED && a->batch == 1))
    return 0;
  *ex = ts_arrival_batch_mean(a);
  switch (a->batch_kind) {
  case TS_BATCH_FIXED: *ex2 = *ex * *ex; break;
  case TS_BATCH_GEOMETRIC: *ex2 = *ex * (2 * *ex - 1); break;
  case TS_BATCH_UNIFORM: {
    double span = a->batch_hi - a->batch_lo + 1;
    *ex2 = (span * span - 1) / 12 + *ex * *ex;
    break;
  }
  }
  return 1;
}

/* The queue's line and its load: lambda per ns (arrivals: "Poisson",
 * "periodic"), service s, c servers; who
 * names the class (or classes) whose arrivals feed it. */
static void head_of(FILE *out, const char *queue, const char *who, const char *arrivals, double lambda, const service *s,
                    int c)
{
  char a[32];
  ts_law_ms(a, sizeof a, s->mean);
  fprintf(out, "  - %s: %s, %s %.6g/s, service E[S] = %s ms (%s, cv %.3g)\n"
               "    rho = lambda E[S] / c = %.4g with c = %d server%s\n",
          queue, who, arrivals, lambda * 1e9, a, s->terms == 1 ? s->kind : s->kind ? "a sum of cpu steps" : "mixed over the classes",
          s->cv, lambda * s->mean / c, c, c == 1 ? "" : "s");
}

/* Why the workers of pool p are not c servers doing only this queue's work,
 * or NULL; a capacity (a finite queue) is not a reason when finite_ok. */
static const char *shared_workers(const ts_timeline *tl, int pool, char *buf, size_t cap, int finite_ok)
{
  const ts_model *m = tl->model;
  if (m->nscale)
    return "the CPU is priced by load (host.cpu_scale_by_n)";
  if (m->cores > 0 && m->cores < tl->nworkers) {
    snprintf(buf, cap, "%d workers share %d cores", tl->nworkers, m->cores);
    return buf;
  }
  if (m->pools[pool].kind == TS_WORKER_EVENT_LOOP && m->pools[pool].loop_overhead > 0)
    return "each loop iteration's overhead adds to the service";
  if (m->pools[pool].capacity > 0 && !finite_ok) {
    snprintf(buf, cap, "a capacity of %d live actors per worker drops arrivals: a finite queue", m->pools[pool].capacity);
    return buf;
  }
  return NULL;
}

/* The classes with visible actors in tl (1 each) into seen; returns how many. */
static int classes_seen(const ts_timeline *tl, char *seen)
{
  int n = 0;
  for (int a = 0; a < tl->nactors; a++) {
    int k = tl->stats[a].klass;
    if (!tl->stats[a].hidden && !seen[k]) {
      seen[k] = 1;
      n++;
    }
  }
  return n;
}

/* Why no mean wait: the reason, after saying rho >= 1 when it is and the
 * queue is not finite (a capacity or queue limit bounds it, or callers who
 * all give up after a patience). */
static void no_mean_wait(FILE *out, double lambda, const service *s, int c, int finite, const char *why)
{
  if (lambda * s->mean / c >= 1 && !finite)
    fprintf(out, "    rho >= 1: the queue grows without bound, so no steady-state mean wait\n");
  fprintf(out, "    mean wait: does not apply: %s\n", why);
}

/* Workers of pool p in tl. */
static int pool_workers(const ts_timeline *tl, int p)
{
  int n = 0;
  for (int w = 0; w < tl->nworkers; w++)
    n += tl->worker_pool[w] == p;
  return n;
}

/* The first worker of pool p in tl (workers are numbered pool by pool). */
static int pool_first_worker(const ts_timeline *tl, int p)
{
  int w = 0;
  while (w < tl->nworkers && tl->worker_pool[w] != p)
    w++;
  return w;
}

/* Whether class k runs its cpu steps on pool p's queue (a class pooled there). */
static int on_queue(const ts_model *m, const program *pr, const char *seen, size_t k, int p)
{
  return seen[k] && m->classes[k].pool == p && (pr[k].main.terms || pr[k].why[0]);
}

/* How pool p's queue orders the classes on it: 0 first come first served (no
 * yield step, so the time-slice queue stays empty, or a queue that is FIFO),
 * 1 strict priority without preemption, 2 strict priority with preemptive
 * resume (every class yielding into a strict_priority queue, or none
 * yielding on a preemptive loop, whose ready callbacks run highest class
 * first); -1 with why set when it is none of these. */
static int queue_order(const ts_model *m, int p, const program *pr, const char *seen, char *why, size_t cap)
{
  const ts_pool *pool = &m->pools[p];
  int yielding = 0, levels = 0;
  const char *silent = NULL, *kernel = NULL; /* a class that does not yield; one below the top with kernel CPU */
  for (size_t k = 0; k < m->nclasses; k++)
    if (on_queue(m, pr, seen, k, p)) {
      yielding |= pr[k].yields;
      silent = pr[k].yields ? silent : m->classes[k].name;
      levels |= 1 << m->classes[k].sched_class;
    }
  for (size_t k = 0; k < m->nclasses; k++) /* a job of the top class is never preempted anyway */
    if (on_queue(m, pr, seen, k, p) && pr[k].kernel && (levels & ((1 << m->classes[k].sched_class) - 1)))
      kernel = m->classes[k].name;
  int several = levels & (levels - 1); /* more than one queue class */
  int strict = pool->kind == TS_WORKER_EVENT_LOOP && pool->policy == &ts_sched_strict_priority && several;
  int ready_first = pool->kind == TS_WORKER_EVENT_LOOP && pool->preempt && several && !yielding;
  if (yielding && pool->yield_overhead > 0)
    snprintf(why, cap, "each yield's overhead (yield_overhead_ms) adds to the service");
  else if (ready_first && !kernel) /* worker.c pop_ready: the highest class's callback first, preempting */
    return 2;
  else if (ready_first)
    snprintf(why, cap, "with preempt a higher queue class preempts a running lower one, but class %s's cpu is kernel CPU"
             " (\"account\": \"kernel\"), which is never preempted", kernel);
  else if (pool->kind == TS_WORKER_EVENT_LOOP && pool->preempt && several && !strict)
    snprintf(why, cap, "with preempt a higher queue class preempts a running lower one, under policy %s: no closed form here",
             pool->policy->name);
  else if (pool->kind == TS_WORKER_EVENT_LOOP && pool->preempt && several && silent)
    snprintf(why, cap, "with preempt a higher queue class preempts a running lower one, and class %s does not yield into"
             " the strict_priority queue", silent);
  else if (!yielding || pool->kind == TS_WORKER_THREAD || pool->policy == &ts_sched_fifo || !several)
    return 0;
  else if (!strict)
    snprintf(why, cap, "its time-slice queue's policy %s has no closed form here", pool->policy->name);
  else if (silent)
    snprintf(why, cap, "class %s does not yield, so the strict_priority queue does not order it", silent);
  else if (pool->preempt && kernel)
    snprintf(why, cap, "with preempt a higher queue class preempts a running lower one, but class %s's cpu is kernel CPU"
             " (\"account\": \"kernel\"), which is never preempted", kernel);
  else
    return pool->preempt ? 2 : 1;
  return -1;
}

/* M/G/1 with strict priority (Cobham 1954 without preemption; preemptive
 * resume as in Harchol-Balter, Performance Modeling and Design of Computer
 * Systems, 2013, ch. 32): per queue class, sigma_k the load of the classes
 * at or above it and R_k their residual lambda E[S^2] / 2 (all classes
 * without preemption); a class's wait is R / ((1 - sigma_{k-1}) (1 - sigma_k)),
 * plus E[S] sigma_{k-1} / (1 - sigma_{k-1}) with preemption (its service
 * stretched by the higher classes). Each model class beside its simulated
 * mean wait. */
static void priority_form(FILE *out, const ts_timeline *tl, const ts_explain_actor *x, const program *pr,
                          const char *seen, int p, int preempt)
{
  const ts_model *m = tl->model;
  double rho[TS_NCLASSES] = {0}, resid[TS_NCLASSES] = {0}, all = 0;
  for (size_t k = 0; k < m->nclasses; k++)
    if (on_queue(m, pr, seen, k, p)) {
      const service *s = &pr[k].main;
      double lambda = m->classes[k].arrival.rate_per_s / 1e9;
      rho[m->classes[k].sched_class] += lambda * s->mean;
      resid[m->classes[k].sched_class] += lambda * (s->var + s->mean * s->mean) / 2;
      all += lambda * (s->var + s->mean * s->mean) / 2;
    }
  char r0[32];
  ts_law_ms(r0, sizeof r0, all);
  if (preempt)
    fprintf(out, "    M/G/1 with strict priority by queue class, preemptive resume (a higher class preempts a lower one):\n"
                 "    wait_k = E[S_k] sigma_{k-1} / (1 - sigma_{k-1}) + R_k / ((1 - sigma_{k-1}) (1 - sigma_k)),\n"
                 "    sigma_k the load of the classes at or above k, R_k their lambda E[S^2] / 2\n");
  else
    fprintf(out, "    M/G/1 with strict priority by queue class, non-preemptive (Cobham):\n"
                 "    wait_k = R / ((1 - sigma_{k-1}) (1 - sigma_k)), sigma_k the load of the classes at or above k,\n"
                 "    R = lambda E[S^2] / 2 over all classes = %s ms\n", r0);
  for (size_t k = 0; k < m->nclasses; k++) {
    if (!on_queue(m, pr, seen, k, p))
      continue;
    int level = m->classes[k].sched_class;
    double above = 0, upto = 0, r = 0;
    for (int j = 0; j <= level; j++) {
      upto += rho[j];
      r += resid[j];
      above += j < level ? rho[j] : 0;
    }
    double mean = pr[k].main.mean;
    double wait = (preempt ? r : all) / ((1 - above) * (1 - upto)) + (preempt ? mean * above / (1 - above) : 0);
    double sum = 0;
    int n = 0;
    for (int a = 0; a < tl->nactors; a++)
      if (tl->stats[a].klass == (int)k && !tl->stats[a].hidden && tl->stats[a].wave_end >= 0) {
        sum += (double)(x[a].state[TS_ACTOR_READY] + x[a].state[TS_ACTOR_QUEUED]);
        n++;
      }
    char a[32], b[32];
    ts_law_ms(a, sizeof a, wait);
    ts_law_ms(b, sizeof b, n ? sum / n : 0);
    char whatbuf[96];
    if (upto >= 1) /* (preemptive only: the classes above it stay in a steady state) */
      fprintf(out, "      class %s (%s, sigma %.4g): sigma >= 1: its queue grows without bound, no steady-state mean wait\n",
              m->classes[k].name, ts_sched_class_names[level], upto);
    else
      fprintf(out, "      class %s (%s, sigma %.4g): %s ms; simulated %s ms (mean of %d %s)\n", m->classes[k].name,
              ts_sched_class_names[level], upto, a, b, n, ts_law_short_run(whatbuf, sizeof whatbuf, n, "jobs"));
  }
}

/* c workers of pool p, each with its own first-come-first-served queue,
 * the Poisson stream (lambda per ns, service s) split among them by the
 * model's dispatch: hash places each actor by a hash of its id, which its
 * arrival time does not enter, so worker k's share p_k of the stream
 * (counted from the actors placed) is again Poisson (taking the hash as a
 * random split) and an M/G/1: Pollaczek-Khinchine per worker, the mean over
 * the jobs sum p_k W_k; round_robin gives each worker every c-th arrival,
 * so Erlang-c interarrival times (ca^2 = 1/c): GI/M/1 exactly with
 * exponential service, else Kingman's approximation (ca^2 + cs^2) / 2 rho
 * / (1 - rho) E[S]. rule: the dispatch that places the actors (a class of
 * count forever spreads its arrivals round robin under hash too:
 * arrive.c source_actor). Beside the simulated mean wait (sim ns over n
 * jobs), then what one queue shared by the c workers would give. */
static void split_form(FILE *out, const ts_timeline *tl, const char *pooled, int p, int c, int rule, double lambda,
                       const service *s, double sim, int n)
{
  char a[32], b[32], d[32], whatbuf[96];
  ts_law_ms(b, sizeof b, sim);
  const char *what = ts_law_short_run(whatbuf, sizeof whatbuf, n, "jobs");
  double wait = 0;
  if (rule == TS_DISPATCH_ROUND_ROBIN) {
    double rho = lambda * s->mean / c;
    const char *by = tl->model->dispatch == TS_DISPATCH_ROUND_ROBIN ? "dispatch round_robin" : "count forever (under hash too)";
    if (rho >= 1) { /* (GI/M/1's root leaves (0, 1); Kingman's turns negative) */
      fprintf(out, "    %s gives each worker one arrival in %d, in turn, so each worker's rho = %.4g\n"
                   "    >= 1: its queue grows without bound, so no steady-state mean wait\n", by, c, rho);
      return;
    }
    wait = s->exponential ? ts_law_erlang_m1_wait(lambda, s->mean, c)
                          : (1.0 / c + s->cv * s->cv) / 2 * rho / (1 - rho) * s->mean;
    ts_law_ms(a, sizeof a, wait);
    if (s->exponential)
      fprintf(out,
              "    %s gives each worker one arrival in %d, in turn: E_%d/M/1 per worker (Erlang-%d\n"
              "    interarrival times, exponential service): mean wait sigma E[S] / (1 - sigma), sigma the root of\n"
              "    sigma = (lambda / (lambda + (1 - sigma) / E[S]))^%d, = %s ms; simulated %s ms (mean of %d %s)\n",
              by, c, c, c, c, a, b, n, what);
    else
      fprintf(out,
              "    %s gives each worker one arrival in %d, in turn (Erlang-%d interarrival times,\n"
              "    ca^2 = 1/%d), and %s service has no exact closed form: Kingman's approximation, exact as rho -> 1\n"
              "    and high when little varies: (ca^2 + cs^2) / 2 rho / (1 - rho) E[S] = %s ms; simulated %s ms\n"
              "    (mean of %d %s)\n",
              by, c, c, c, s->kind ? s->kind : "mixed", a, b, n, what);
  } else {
    int *placed = calloc((size_t)c, sizeof *placed), all = 0;
    if (!placed)
      return;
    for (int x = 0; x < tl->nactors; x++) {
      int k = tl->stats[x].worker - pool_first_worker(tl, p);
      if (pooled[tl->stats[x].klass] && !tl->stats[x].hidden && k >= 0 && k < c) {
        placed[k]++;
        all++;
      }
    }
    int busiest = 0;
    for (int k = 0; k < c && all > 0; k++) {
      double lk = lambda * placed[k] / all, rk = lk * s->mean;
      busiest = placed[k] > placed[busiest] ? k : busiest;
      wait = rk >= 1 ? INFINITY : wait + (double)placed[k] / all * lk * (s->var + s->mean * s->mean) / (2 * (1 - rk));
    }
    double top = all ? lambda * placed[busiest] / all * s->mean : 0;
    free(placed);
    if (wait == INFINITY) {
      fprintf(out, "    dispatch hash splits the arrivals by actor id: worker %d takes %.3g of them, so its rho = %.4g\n"
                   "    >= 1: its queue grows without bound, so no steady-state mean wait\n",
              pool_first_worker(tl, p) + busiest, top / lambda / s->mean, top);
      return;
    }
    ts_law_ms(a, sizeof a, wait);
    fprintf(out,
            "    dispatch hash splits the arrivals by actor id, whatever their times: each worker an M/G/1 at its\n"
            "    share p_k of the stream (the busiest at rho %.4g), the mean over the jobs sum p_k W_k with\n"
            "    W_k = p_k lambda E[S^2] / (2 (1 - p_k lambda E[S])) (Pollaczek-Khinchine) = %s ms; simulated %s ms\n"
            "    (mean of %d %s)\n",
            top, a, b, n, what);
  }
  ts_law_ms(d, sizeof d, ts_law_shared_wait(c, lambda, s));
  fprintf(out, "    one queue shared by the %d workers (M/%s/%d%s) would wait %s ms\n", c, s->exponential ? "M" : "G", c,
          s->exponential ? ", Erlang C" : ", Allen-Cunneen", d);
}

/* The classes k with on[k] set, their Poisson streams pooled into one (a
 * sum of independent Poisson streams is Poisson): the rate per ns into
 * *lambda, the service of a job drawn from the mix into *mix (E[S] and
 * E[S^2] of each class's handler's service if handler, else of its own,
 * weighted by its share of the arrivals), "classes" and their names into
 * who. The caller has checked that each is Poisson with a service. */
static void mix_classes(const ts_model *m, const program *pr, const char *on, int handler, double *lambda,
                        service *mix, char *who, size_t whocap)
{
  double sum = 0, second = 0;
  int n = 0;
  memset(mix, 0, sizeof *mix);
  snprintf(who, whocap, "classes");
  for (size_t k = 0; k < m->nclasses; k++)
    if (on[k]) {
      sum += m->classes[k].arrival.rate_per_s / 1e9;
      size_t len = strlen(who);
      snprintf(who + len, whocap - len, "%s %s", n ? "," : "", m->classes[k].name);
      n++;
    }
  for (size_t k = 0; k < m->nclasses; k++)
    if (on[k]) {
      const service *s = handler ? &pr[k].handler : &pr[k].main;
      double share = m->classes[k].arrival.rate_per_s / 1e9 / sum;
      mix->mean += share * s->mean;
      second += share * (s->var + s->mean * s->mean);
    }
  mix->var = second - mix->mean * mix->mean;
  mix->var = mix->var > 0 ? mix->var : 0;
  mix->terms = n;
  mix->cv = mix->mean > 0 ? sqrt(mix->var) / mix->mean : 0;
  *lambda = sum;
}

/* The classes seen whose actors run cpu steps on pool p pooled into one
 * Poisson stream of a mixed service (mix_classes). 0, or -1 with why set
 * when a class cannot be pooled. */
static int pool_classes(const ts_model *m, const program *pr, const char *seen, int p, double *lambda, service *mix,
                        char *who, size_t whocap, char *why, size_t cap)
{
  char *on = calloc(m->nclasses ? m->nclasses : 1, 1);
  if (!on)
    return snprintf(why, cap, "out of memory"), -1;
  for (size_t k = 0; k < m->nclasses; k++) {
    const ts_class *c = &m->classes[k];
    if (!on_queue(m, pr, seen, k, p))
      continue;
    char reason[200] = "";
    poisson_rate(c, reason, sizeof reason);
    if (!reason[0] && pr[k].why[0])
      snprintf(reason, sizeof reason, "class %s: %s", c->name, pr[k].why);
    if (!reason[0] && pr[k].server >= 0)
      snprintf(reason, sizeof reason, "class %s's actors come back from their calls to server %s and queue again",
               c->name, m->servers[pr[k].server].name);
    if (reason[0]) {
      snprintf(why, cap, "classes share the queue and %s", reason);
      free(on);
      return -1;
    }
    on[k] = 1;
  }
  mix_classes(m, pr, on, 0, lambda, mix, who, whocap);
  free(on);
  return 0;
}

/* How the actors of the classes on pool p's queue are spread over its
 * workers: the rule (TS_DISPATCH_*) that places them all, or -1 with why
 * set (a class placed by placement.worker; least_loaded; round_robin over
 * several classes, which numbers their actors class by class, not by
 * arrival; a class of count forever, which goes round robin by its own
 * arrivals under hash too (arrive.c source_actor), beside other classes). */
static int split_rule(const ts_model *m, const program *pr, const char *seen, int p, char *why, size_t cap)
{
  int pooled = 0, forever = -1;
  for (size_t k = 0; k < m->nclasses; k++)
    if (on_queue(m, pr, seen, k, p)) {
      pooled++;
      if (m->classes[k].place == TS_PLACE_FIXED)
        return snprintf(why, cap, "placement.worker fixes each actor's"), -1;
      forever = m->classes[k].forever && m->dispatch != TS_DISPATCH_LEAST_LOADED ? (int)k : forever;
    }
  if (forever >= 0 && pooled > 1)
    snprintf(why, cap, "class %s, of count forever, goes to them in turn by its arrivals, the others by dispatch %s",
             m->classes[forever].name, ts_dispatch_name(m->dispatch));
  else if (forever >= 0)
    return TS_DISPATCH_ROUND_ROBIN;
  else if (m->dispatch == TS_DISPATCH_LEAST_LOADED || (m->dispatch == TS_DISPATCH_ROUND_ROBIN && pooled > 1))
    snprintf(why, cap, "dispatch %s splits the arrivals%s", ts_dispatch_name(m->dispatch),
             pooled > 1 ? " of several classes by id, not by arrival" : "");
  else
    return (int)m->dispatch;
  return -1;
}

/* The queue of the pool where a class's actors run their cpu steps (the
 * first such class's placement pool; c = that pool's workers). Several
 * classes there are pooled into one stream of a mixed service
 * (pool_classes); their placement and dispatch are the first class's. */
static void main_queue(FILE *out, const ts_timeline *tl, const ts_explain_actor *x, const program *pr,
                       const char *seen, int nseen)
{
  const ts_model *m = tl->model;
  int k = -1;
  for (size_t i = 0; i < m->nclasses; i++)
    if (seen[i] && (pr[i].main.terms || pr[i].why[0]) && k < 0)
      k = (int)i;
  if (k < 0) /* its actors only wait there for their replies */
    return;
  const ts_class *c = &m->classes[k];
  int p = c->pool, workers = pool_workers(tl, p);
  int yielding = 0; /* a class yields into the time-slice queue, so an event loop's wait is in both */
  for (size_t i = 0; i < m->nclasses; i++)
    yielding |= on_queue(m, pr, seen, i, p) && (pr[i].yields || pr[i].by_time);
  const char *loop_queues = yielding ? "event loops (I/O-callback and time-slice queues)" : "event loops (I/O-callback queue)";
  char queue[160];
  if (p == 0)
    snprintf(queue, sizeof queue, "the main pool's %s", m->pools[0].kind == TS_WORKER_THREAD ? "threads (run queue)"
                                                                                           : loop_queues);
  else
    snprintf(queue, sizeof queue, "pool %s's %s", m->pools[p].name,
             m->pools[p].kind == TS_WORKER_THREAD ? "threads (run queue)" : loop_queues);
  char why[300] = "", buf[120], who[200];
  const char *shared = shared_workers(tl, p, buf, sizeof buf, 1);
  service mixed;
  const service *svc = &mixed;
  double lambda = 0, ex = 1, ex2 = 1; /* batch size moments (one class arriving in Poisson batches) */
  int pooled = 0, batched = 0, finite = m->pools[p].capacity; /* finite: live actors a worker holds (0: no limit) */
  int periodic = 0; /* one class arriving one at a time every period, without jitter */
  for (size_t i = 0; i < m->nclasses; i++)
    pooled += on_queue(m, pr, seen, i, p);
  if (pooled > 1) {
    pool_classes(m, pr, seen, p, &lambda, &mixed, who, sizeof who, why, sizeof why);
  } else {
    lambda = poisson_rate(c, why, sizeof why);
    svc = &pr[k].main;
    snprintf(who, sizeof who, "class %s", c->name);
    if (poisson_batches(c, &ex, &ex2)) { /* jobs per ns: batches times their mean size */
      why[0] = 0;
      lambda = c->arrival.rate_per_s / 1e9 * ex;
      batched = ex2 > 1; /* (a batch always of 1, as a geometric of mean 1, is single arrivals) */
      if (batched)
        snprintf(who, sizeof who, "class %s in batches (%.6g/s, E[X] = %.4g)", c->name, c->arrival.rate_per_s, ex);
    }
    const ts_arrival *ar = &c->arrival;
    if (ar->kind == TS_ARRIVE_PERIODIC && c->forever && ar->jitter == 0 && ar->batch_kind == TS_BATCH_FIXED &&
        ar->batch == 1 && ar->period > 0) { /* one every period, forever */
      why[0] = 0;
      lambda = 1 / (double)ar->period;
      periodic = 1;
    }
    if (!why[0] && pr[k].why[0])
      snprintf(why, sizeof why, "%s", pr[k].why);
  }
  if (why[0]) { /* no load to give */
    fprintf(out, "  - %s: does not apply: %s\n", queue, why);
    return;
  }
  if (workers < 1)
    workers = 1;
  head_of(out, queue, who, periodic ? "periodic" : "Poisson", lambda, svc, workers);
  if (pooled == 1 && pr[k].leave > 0) {
    char one[32];
    ts_law_ms(one, sizeof one, svc->mean * pr[k].leave);
    fprintf(out, "    (a feedback loop: after each pass of %s ms a job leaves with probability %.4g, else is served\n"
                 "    again: its demand is a geometric number of passes, E[S] = %s ms / %.4g)\n",
            one, pr[k].leave, one, pr[k].leave);
  }
  char split[160] = "";
  int rule = split_rule(m, pr, seen, p, split, sizeof split);
  if (pooled == 1 && pr[k].server >= 0)
    snprintf(why, sizeof why, "its actors come back from their calls to server %s and queue again",
             m->servers[pr[k].server].name);
  else if (workers > 1 && rule < 0)
    snprintf(why, sizeof why, "%d workers, each with its own queue (%s): not one queue", workers, split);
  else if (shared)
    snprintf(why, sizeof why, "%s", shared);
  else if (nseen > pooled)
    snprintf(why, sizeof why, "%d other classes run elsewhere or only call", nseen - pooled);
  else if (finite > 0 && (workers > 1 || batched || pooled > 1 || !svc->exponential))
    snprintf(why, sizeof why, "a capacity of %d live actors per worker drops arrivals: a finite queue (M/M/1/K needs one "
             "worker, one class arriving singly and exponential service)", finite);
  else if (periodic && (workers > 1 || finite > 0 || (!svc->exponential && svc->var > 0)))
    snprintf(why, sizeof why, "class %s arrives every %.4g ms: %s", c->name, (double)c->arrival.period / 1e6,
             workers > 1 ? "onto several workers, each with its own queue"
             : finite > 0 ? "a capacity on periodic arrivals has no law here"
                          : "D/G/1 has no closed form (D/M/1 and D/D/1 have)");
  else if (batched && workers > 1)
    snprintf(why, sizeof why, "class %s arrives in batches onto %d workers, each with its own queue", c->name, workers);
  int order = why[0] ? 0 : queue_order(m, p, pr, seen, why, sizeof why);
  if (why[0]) {
    no_mean_wait(out, lambda, svc, workers, finite > 0, why);
    return;
  }
  int by_time = 0, whole = 0;
  for (size_t i = 0; i < m->nclasses; i++)
    if (on_queue(m, pr, seen, i, p)) {
      by_time += pr[i].by_time;
      whole += pr[i].whole;
    }
  const ts_pool *pl = &m->pools[p];
  int sliced = by_time && pl->threshold != TS_TIME_MAX; /* without a threshold a sliced step runs whole */
  if (sliced && whole)
    snprintf(why, sizeof why, "some cpu steps are sliced by time and some run to completion");
  else if (sliced && order > 0)
    snprintf(why, sizeof why, "steps sliced by time under a priority order");
  else if (sliced && pl->yield_overhead > 0)
    snprintf(why, sizeof why, "each slice's yield overhead (yield_overhead_ms) adds to the service");
  else if (sliced && pl->kind == TS_WORKER_EVENT_LOOP && pl->policy != &ts_sched_fifo)
    snprintf(why, sizeof why, "its time-slice queue's policy %s is not round robin", pl->policy->name);
  if (why[0]) {
    no_mean_wait(out, lambda, svc, workers, finite > 0, why);
    return;
  }
  if (finite > 0 && (order > 0 || sliced)) {
    snprintf(why, sizeof why, "a capacity of %d live actors per worker drops arrivals and %s", finite,
             sliced ? "its steps are sliced by time" : "the queue has a priority order");
    no_mean_wait(out, lambda, svc, workers, finite > 0, why);
    return;
  }
  if ((batched || periodic) && (order > 0 || sliced)) {
    snprintf(why, sizeof why, "class %s arrives %s and %s", c->name, batched ? "in batches" : "periodically",
             sliced ? "its steps are sliced by time" : "the queue has a priority order");
    no_mean_wait(out, lambda, svc, workers, finite > 0, why);
    return;
  }
  if (workers > 1 && (order > 0 || sliced)) {
    snprintf(why, sizeof why, "%d workers, each with its own queue (dispatch %s splits the arrivals) and %s", workers,
             ts_dispatch_name(m->dispatch), sliced ? "steps sliced by time" : "a priority order");
    no_mean_wait(out, lambda, svc, workers, finite > 0, why);
    return;
  }
  /* preemptive resume: a class sees only those at or above it, so a load of 1 or more leaves the top classes a law */
  if (order > 0 && (lambda * svc->mean < 1 || order == 2)) {
    priority_form(out, tl, x, pr, seen, p, order == 2);
    return;
  }
  double sum = 0;
  int n = 0;
  for (int a = 0; a < tl->nactors; a++) {
    int ka = tl->stats[a].klass;
    if ((ka == k || (pooled > 1 && m->classes[ka].pool == p)) && !tl->stats[a].hidden && tl->stats[a].wave_end >= 0) {
      sum += (double)(x[a].state[TS_ACTOR_READY] + x[a].state[TS_ACTOR_QUEUED]);
      n++;
    }
  }
  if (periodic) {
    ts_law_periodic(out, (double)c->arrival.period, svc, n ? sum / n : 0, n);
  } else if (finite > 0) {
    int dropped = 0, arrived = 0;
    for (int a = 0; a < tl->nactors; a++)
      if (tl->stats[a].klass == k && !tl->stats[a].hidden) {
        dropped += tl->dropped && tl->dropped[a];
        arrived += tl->state_at[a] < tl->state_at[a + 1] || (tl->dropped && tl->dropped[a]);
      }
    ts_law_finite(out, lambda, svc->mean, 1, finite, dropped, arrived, n ? sum / n : 0, n, "jobs");
  } else if (batched) {
    ts_law_batch(out, lambda / ex, ex, ex2, svc, n ? sum / n : 0, n);
  } else if (workers > 1) {
    char *on = calloc(m->nclasses, 1);
    for (size_t i = 0; on && i < m->nclasses; i++)
      on[i] = (char)on_queue(m, pr, seen, i, p);
    if (on)
      split_form(out, tl, on, p, workers, rule, lambda, svc, n ? sum / n : 0, n);
    free(on);
  } else if (sliced)
    ts_law_sharing(out, lambda, svc, pl->threshold, n ? sum / n : 0, n);
  else
    ts_law_closed(out, 1, lambda, svc, n ? sum / n : 0, n, "jobs");
}

/* Server s's queue: the classes whose actors call it (several: one Poisson
 * stream of a mixed service, mix_classes). */
static void server_queue(FILE *out, const ts_timeline *tl, int s, const program *pr, const char *seen)
{
  const ts_model *m = tl->model;
  const ts_server_decl *d = &m->servers[s];
  int k = -1, callers = 0, threads = 0, others = 0;
  for (size_t i = 0; i < m->nclasses; i++)
    if (seen[i] && pr[i].server == s) {
      k = k < 0 ? (int)i : k;
      callers++;
    }
  if (k < 0)
    return;
  for (int w = 0; w < tl->nworkers; w++)
    threads += tl->worker_pool[w] == d->pool;
  for (size_t i = 0; i < m->nclasses; i++)
    others += seen[i] && m->classes[i].pool == d->pool;
  for (size_t i = 0; i < m->nservers; i++)
    others += i != (size_t)s && m->servers[i].pool == d->pool;
  char queue[160], why[200] = "", buf[120];
  snprintf(queue, sizeof queue, "server %s (%s queue of calls)", d->name, d->policy->name);
  const char *shared = shared_workers(tl, d->pool, buf, sizeof buf, 0);
  char *on = calloc(m->nclasses, 1), who[200];
  if (!on)
    return;
  int cpu_first = 0, patient = 0; /* a caller runs CPU on its own worker before it calls; callers that give up */
  for (size_t i = 0; i < m->nclasses && !why[0]; i++) {
    if (!seen[i] || pr[i].server != s)
      continue;
    char reason[200] = "";
    poisson_rate(&m->classes[i], reason, sizeof reason);
    if (!reason[0] && pr[i].why[0])
      snprintf(reason, sizeof reason, "%s", pr[i].why);
    else if (!reason[0] && pr[i].handler.terms == 0)
      snprintf(reason, sizeof reason, "its handler takes no CPU");
    if (reason[0] && callers > 1)
      snprintf(why, sizeof why, "%d classes call it and class %s: %s", callers, m->classes[i].name, reason);
    else if (reason[0])
      snprintf(why, sizeof why, "%s", reason);
    on[i] = 1;
    cpu_first |= pr[i].main.terms > 0;
    patient += pr[i].patience > 0;
  }
  if (why[0]) { /* no load to give */
    fprintf(out, "  - %s: does not apply: %s\n", queue, why);
    free(on);
    return;
  }
  double lambda;
  service mixed;
  mix_classes(m, pr, on, 1, &lambda, &mixed, who, sizeof who);
  free(on);
  const service *svc = callers > 1 ? &mixed : &pr[k].handler; /* (one class: its own, exponential or not) */
  if (callers == 1)
    snprintf(who, sizeof who, "class %s", m->classes[k].name);
  int servers = d->concurrency < threads ? d->concurrency : threads; /* in service at once, each on a worker */
  if (servers < 1)
    servers = 1;
  head_of(out, queue, who, "Poisson", lambda, svc, servers);
  if (cpu_first)
    snprintf(why, sizeof why, "the calls come after CPU on the callers' workers, so they do not arrive as Poisson");
  else if (d->policy != &ts_sched_fifo)
    snprintf(why, sizeof why, "its policy %s is not first come first served", d->policy->name);
  else if (patient && (callers > 1 || !svc->exponential || d->queue_limit >= 0))
    snprintf(why, sizeof why, "its callers give up after a patience (the call's timeout): M/M/c+M needs %s",
             callers > 1 ? "one calling class" : d->queue_limit >= 0 ? "no queue limit" : "exponential service");
  else if (d->queue_limit >= 0 && !svc->exponential)
    snprintf(why, sizeof why, "its queue_limit %d refuses calls: a finite queue (M/M/c/K needs exponential service)",
             d->queue_limit);
  else if (d->worker || d->round_robin)
    snprintf(why, sizeof why, "admitted calls go to %s, busy or not",
             d->worker ? "one fixed worker" : "the next worker in turn (dispatch round_robin)");
  else if (d->concurrency > threads)
    snprintf(why, sizeof why, "%d in service at once on %d workers: admitted calls queue again on the workers",
             d->concurrency, threads);
  else if (others)
    snprintf(why, sizeof why, "its pool %s runs other work too", m->pools[d->pool].name);
  else if (shared)
    snprintf(why, sizeof why, "%s", shared);
  if (why[0]) {
    no_mean_wait(out, lambda, svc, servers, d->queue_limit >= 0 || patient == callers, why); /* (bounded) */
    return;
  }
  /* the simulated wait, from the timeline's call spans: each admitted call's from its queueing to its
   * admission (sum over n); every call that left the queue (left: admitted, refused or gone, not those
   * still queued when the run ended), never of them not admitted, waited until each left */
  double sum = 0, waited = 0;
  int n = 0, left = 0, never = 0;
  for (size_t i = 0; i < tl->ncall_spans; i++) {
    const ts_tl_callspan *c = &tl->call_spans[i];
    if (c->server != s || (c->admitted < 0 && c->done < 0))
      continue;
    left++;
    never += c->admitted < 0;
    waited += (double)((c->admitted >= 0 ? c->admitted : c->done) - c->queued);
    if (c->admitted >= 0) {
      sum += (double)(c->admitted - c->queued);
      n++;
    }
  }
  if (pr[k].patience > 0) {
    ts_law_abandon(out, lambda, svc->mean, pr[k].patience, servers, never, left, left ? waited / left : 0);
    return;
  }
  if (d->queue_limit >= 0) {
    ts_law_finite(out, lambda, svc->mean, servers, servers + d->queue_limit, never, left, n ? sum / n : 0, n, "calls");
    return;
  }
  ts_law_closed(out, servers, lambda, svc, n ? sum / n : 0, n, "calls");
}

/* Whether main_queue or server_queue has a queue to describe: a class seen in
 * the run that takes CPU (or says why no service can be read) or calls a server. */
static int any_queue(const ts_model *m, const program *pr, const char *seen)
{
  for (size_t i = 0; i < m->nclasses; i++)
    if (seen[i] && (pr[i].main.terms || pr[i].why[0] || pr[i].server >= 0))
      return 1;
  return 0;
}

void ts_explain_theory(FILE *out, const ts_timeline *tl, const ts_explain_actor *x)
{
  const ts_model *m = tl->model;
  program *pr = calloc(m->nclasses ? m->nclasses : 1, sizeof *pr);
  char *seen = calloc(m->nclasses ? m->nclasses : 1, 1);
  if (pr && seen) {
    for (size_t k = 0; k < m->nclasses; k++)
      read_program(m, (int)k, &pr[k]);
    int nseen = classes_seen(tl, seen);
    fprintf(out, "\nqueueing theory (from the declared arrivals and service distributions; simulated: this run):\n");
    if (!any_queue(m, pr, seen))
      fprintf(out, "  no queue: no actor of this run takes CPU or calls a server (its service time is 0)\n");
    main_queue(out, tl, x, pr, seen, nseen);
    for (size_t s = 0; s < m->nservers; s++)
      server_queue(out, tl, (int)s, pr, seen);
  }
  free(pr);
  free(seen);
}
