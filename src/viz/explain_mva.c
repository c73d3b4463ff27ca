/* A mutex in a closed loop against mean value analysis in tssim explain.
 *
 * N actors, each alone on its own thread, loop forever (or a counted
 * number of times) over "think (CPU or sleep outside), lock, CPU inside, unlock,
 * think": the machine-repairman model, a closed network of one delay
 * station (the think time Z, any distribution) and one single-server
 * station (the mutex, service S = the CPU inside). Exact MVA (Reiser and
 * Lavenberg, JACM 1980) gives, for k = 1..N,
 *   R(k) = S (1 + Q(k-1)),  X(k) = k / (Z + R(k)),  Q(k) = X(k) R(k),
 * and the mean wait per acquire R(N) - S, exact for an exponential S and
 * an approximation otherwise (the report says which). The mutex's own costs
 * (acquire, release, spin, futex, wake latency) are not in S: the
 * difference from the simulated wait is theirs, and a loop that runs only a
 * few times is not in steady state. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/op.h"
#include "viz/explain.h"

/* The loop of class k: think and hold CPU (ns, means) and the lock it
 * takes, or -1 with why set when the program is not one such loop. */
static int read_loop(const ts_model *m, int k, double *think, double *hold, int *exponential, char *why, size_t cap)
{
  const ts_class *c = &m->classes[k];
  int lock = -1, phase = 0; /* 0 before the repeat, 1 outside, 2 inside, 3 after unlock, 4 after the loop */
  *think = *hold = 0;
  *exponential = 1;
  for (size_t i = 0; i < c->nsteps; i++) {
    const ts_step *s = &c->steps[i];
    if (s->type == &ts_op_mark || s->type == &ts_op_span_begin || s->type == &ts_op_span_end)
      continue;
    if (s->type == &ts_op_repeat && phase == 0 && !s->cond) {
      phase = 1;
    } else if (s->type == &ts_op_repeat_end && phase == 3) {
      phase = 4;
    } else if (s->type == &ts_op_lock && phase == 1 && s->limited) {
      snprintf(why, cap, "class %s's lock step gives up after a timeout: an actor that gives up leaves the loop", c->name);
      return -1;
    } else if (s->type == &ts_op_lock && phase == 1) {
      lock = s->ref;
      phase = 2;
    } else if (s->type == &ts_op_unlock && phase == 2 && s->ref == lock) {
      phase = 3;
    } else if (s->type == &ts_op_sleep && (phase == 1 || phase == 3) && !s->cost.mean_ms) {
      *think += (double)s->cost.mean; /* a delay: the think time's distribution does not matter */
    } else if (s->type == &ts_op_cpu && (phase == 1 || phase == 2 || phase == 3) && !s->cost.mean_ms && !s->sliced) {
      if (phase == 2) {
        *hold += (double)s->cost.mean;
        *exponential &= s->cost.kind == TS_DIST_EXPONENTIAL && *hold == (double)s->cost.mean;
      } else {
        *think += (double)s->cost.mean;
      }
    } else {
      const char *op = s->type->name ? s->type->name : s->type->structured; /* as the model writes it */
      snprintf(why, cap, "class %s's program is not one loop of cpu or sleep, lock, cpu, unlock, cpu or sleep (its %s"
               " step%s)", c->name, op ? op : "structured",
               s->type == &ts_op_cpu || s->type == &ts_op_sleep ? " there, or a cost given by an expression" : "");
      return -1;
    }
  }
  if (phase != 4 || *hold <= 0) {
    snprintf(why, cap, "class %s's program is not one loop of cpu or sleep, lock, cpu (> 0), unlock, cpu or sleep",
             c->name);
    return -1;
  }
  return lock;
}

/* Exact MVA of the machine-repairman model: the mean wait before service
 * (ns) of n customers with think time z and service s, and the
 * throughput per ns into *x. */
static double mva_wait(int n, double z, double s, double *x)
{
  double q = 0, r = s;
  *x = 0;
  for (int k = 1; k <= n; k++) {
    r = s * (1 + q);
    *x = k / (z + r);
    q = *x * r;
  }
  return r - s;
}

/* Whether class k's program has a lock step. */
static int takes_lock(const ts_model *m, int k)
{
  for (size_t i = 0; i < m->classes[k].nsteps; i++)
    if (m->classes[k].steps[i].type == &ts_op_lock)
      return 1;
  return 0;
}

/* Mutex lock's contention in tl's measurement window, as tssim run counts it
 * (acquires completed in it, waits clipped to it), into *st. The timeline's
 * own counts cover the whole run: with a warm-up or a window the point runs
 * again without an observer, the same events (the observer changes nothing),
 * its world measuring the window. Returns 0, -1 when memory runs out. */
static int window_stat(const ts_timeline *tl, int lock, ts_mutex_stat *st)
{
  *st = tl->lock_stat[lock];
  if (tl->win_t0 == 0 && tl->win_t1 == tl->horizon)
    return 0;
  ts_world w;
  ts_world_spec ws = {.n = tl->n, .workers = tl->nmain, .seed = tl->seed, .horizon = tl->horizon,
                      .win_t0 = tl->win_t0, .win_t1 = tl->win_t1, .max_events = tl->max_records};
  int rc = ts_world_init(&w, tl->model, &ws, NULL);
  if (rc == 0) /* (the recording laid the same world out) */
    rc = ts_world_run(&w) == TS_WORLD_NOMEM ? TS_WORLD_NOMEM : 0;
  if (rc == 0)
    *st = w.lock_stat[lock];
  ts_world_finish(&w);
  return rc == 0 ? 0 : -1;
}

int ts_explain_mva(FILE *out, const ts_timeline *tl)
{
  const ts_model *m = tl->model;
  if (!m->has_mutex || !tl->lock_stat)
    return 0;
  int k = -1, n = 0, shared = 0;
  char why[240] = "";
  int *seen = calloc((size_t)(tl->nworkers > 0 ? tl->nworkers : 1), sizeof *seen);
  if (!seen)
    return -1;
  for (int a = 0; a < tl->nactors; a++) {
    if (tl->stats[a].hidden)
      continue;
    int w = tl->stats[a].worker; /* any actor on a thread shares it, a lock taker or not */
    if (w >= 0 && w < tl->nworkers)
      shared |= seen[w]++ > 0;
    if (!takes_lock(m, tl->stats[a].klass))
      continue;
    if (k >= 0 && tl->stats[a].klass != k)
      snprintf(why, sizeof why, "several classes take it");
    k = tl->stats[a].klass;
    n++;
  }
  free(seen);
  if (k < 0)
    return 0;
  double think = 0, hold = 0;
  int exponential = 0, lock = -1;
  if (!why[0])
    lock = read_loop(m, k, &think, &hold, &exponential, why, sizeof why);
  char open[96];
  if (!why[0] && ts_explain_open_class(m, k, open, sizeof open))
    snprintf(why, sizeof why, "class %s arrives over time (%s): the loop is not closed", m->classes[k].name, open);
  if (!why[0] && (m->locks[lock].kind != TS_LOCK_MUTEX || m->locks[lock].scope != TS_SCOPE_SHARED ||
                  m->locks[lock].capacity > 1))
    snprintf(why, sizeof why, "%s is not one shared mutex", m->locks[lock].name);
  if (!why[0] && m->pools[m->classes[k].pool].kind != TS_WORKER_THREAD)
    snprintf(why, sizeof why, "the workers are event loops: a holder's loop runs its other actors");
  if (!why[0] && shared)
    snprintf(why, sizeof why, "some thread runs several actors: they queue for it as well as for the mutex");
  if (!why[0] && m->nscale)
    snprintf(why, sizeof why, "the CPU is priced by load (host.cpu_scale_by_n): Z and S are not the declared ones");
  if (!why[0] && m->cores > 0 && m->cores < n)
    snprintf(why, sizeof why, "%d threads share %d core%s", n, m->cores, m->cores == 1 ? "" : "s");
  fprintf(out, "\nqueueing theory for the mutex (a closed loop: N threads think, then hold it):\n");
  if (why[0]) {
    fprintf(out, "  does not apply: %s\n", why);
    return 0;
  }
  ts_mutex_stat win;
  if (window_stat(tl, lock, &win))
    return -1;
  const ts_mutex_stat *st = &win;
  double x, wait = mva_wait(n, think, hold, &x);
  double sim = st->acquires ? st->wait / (double)st->acquires : 0;
  double len = (double)(tl->win_len > 0 ? tl->win_len : tl->end > 0 ? tl->end : 1);
  fprintf(out, "  N = %d thread%s, think Z = %.4g ms (outside), hold S = %.4g ms (CPU inside); exact mean value\n"
               "  analysis, R(k) = S (1 + Q(k-1)), X(k) = k / (Z + R(k)), Q(k) = X(k) R(k),\n  %s:\n",
          n, n == 1 ? "" : "s", think / 1e6, hold / 1e6,
          exponential ? "exact for an exponential S" : "exact for an exponential S; S is not exponential here, so an approximation");
  const ts_lock_decl *d = &m->locks[lock];
  double handoff = (double)(d->acquire + d->release + d->futex_wake) + (double)d->wake_latency.mean;
  double x2, wait2 = mva_wait(n, think, hold + handoff, &x2);
  fprintf(out, "  wait per acquire R(N) - S = %.4g ms at %.6g acquires/s with S the CPU inside alone%s\n", wait / 1e6,
          x * 1e9, handoff > 0 ? ";" : " (the mutex's hand-off costs nothing here)");
  if (handoff > 0)
    fprintf(out, "  %.4g ms at %.6g/s with every acquire paying the hand-off too (S + acquire + release + futex wake\n"
                 "  + wake latency = %.4g ms)\n",
            wait2 / 1e6, x2 * 1e9, (hold + handoff) / 1e6);
  fprintf(out, "  simulated: %.4g ms per acquire at %.6g/s (%lld acquires%s)\n", sim / 1e6,
          (double)st->acquires / len * 1e9, (long long)st->acquires,
          st->acquires < 20LL * n ? "; fewer than 20 a thread: far from a steady state" : "");
  return 0;
}
