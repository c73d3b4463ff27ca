/* The parts of tssim explain for contention primitives: where mutex
 * contention went (per worker: spinning, futex work, blocked; per mutex: the
 * wait), and what calls waited behind at their servers (per class of the
 * waiting call: the service of each class of call that ran while it was
 * queued). Both are exact sums over the recorded timeline. */
#include "viz/explain.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/op.h"

static double ms(ts_time ns)
{
  return (double)ns / 1e6;
}

/* The lock declaration a run piece's step names, or -1. */
static int piece_lock(const ts_model *m, const ts_timeline *tl, const ts_tl_piece *p)
{
  if (p->actor < 0 || p->step < 0)
    return -1;
  const ts_step *s = &m->classes[tl->stats[p->actor].klass].steps[p->step];
  return s->type == &ts_op_lock || s->type == &ts_op_unlock ? s->ref : -1;
}

static void explain_sites(FILE *out, const ts_timeline *tl);

int ts_explain_contention(FILE *out, const ts_timeline *tl)
{
  const ts_model *m = tl->model;
  if (!m->has_mutex)
    return 0;
  int nw = tl->nworkers > 0 ? tl->nworkers : 1;
  /* per worker: busy, spin, futex, blocked; per lock: spin, futex */
  ts_time *busy = calloc((size_t)nw * 4, sizeof *busy);
  ts_time *by_lock = calloc(m->nlocks * 2 + 1, sizeof *by_lock);
  if (!busy || !by_lock) {
    free(busy);
    free(by_lock);
    return -1;
  }
  for (size_t i = 0; i < tl->npieces; i++) {
    const ts_tl_piece *p = &tl->pieces[i];
    if (p->worker < 0 || p->worker >= nw)
      continue;
    ts_time d = p->t1 - p->t0;
    busy[p->worker * 4] += d;
    int k = p->state == TS_ACTOR_SPIN ? 1 : p->state == TS_ACTOR_FUTEX ? 2 : 0;
    busy[p->worker * 4 + k] += k ? d : 0;
    int l = piece_lock(m, tl, p);
    if (k && l >= 0)
      by_lock[l * 2 + k - 1] += d;
  }
  ts_time *since = calloc((size_t)nw, sizeof *since);
  for (size_t i = 0; since && i < tl->nblocks; i++) {
    const ts_tl_block *b = &tl->blocks[i];
    if (b->worker < 0 || b->worker >= nw)
      continue;
    if (b->on)
      since[b->worker] = b->t;
    else
      busy[b->worker * 4 + 3] += b->t - since[b->worker];
  }
  free(since);
  double total = 0;
  for (size_t d = 0; d < m->nlocks; d++)
    total += tl->mutex_wait ? tl->mutex_wait[d] : 0;
  fprintf(out, "\ncontention on mutexes (the whole run, %lld contended acquires)\n", (long long)tl->mutex_contended);
  fprintf(out, "  %-14s %14s %8s %14s %14s\n", "mutex", "wait (ms)", "share", "spinning (ms)", "futex (ms)");
  for (size_t d = 0; d < m->nlocks; d++) {
    if (m->locks[d].kind != TS_LOCK_MUTEX)
      continue;
    double wt = tl->mutex_wait ? tl->mutex_wait[d] : 0;
    fprintf(out, "  %-14.14s %14.3f %7.1f%% %14.3f %14.3f\n", m->locks[d].name, wt / 1e6,
            total > 0 ? 100 * wt / total : 0.0, ms(by_lock[d * 2]), ms(by_lock[d * 2 + 1]));
  }
  fprintf(out, "  (wait: from a contended acquire to holding the mutex, spinning, in the futex and parked;\n"
               "   futex: kernel CPU of the acquirers' futex waits and the releasers' wakes)\n");
  fprintf(out, "  %-10s %12s %22s %22s %22s\n", "worker", "busy (ms)", "spinning", "in futex (kernel)",
          "blocked (parked)");
  for (int k = 0; k < nw; k++) {
    ts_time b = busy[k * 4];
    if (b == 0 && busy[k * 4 + 3] == 0)
      continue;
    fprintf(out, "  %-10d %12.3f %13.3f ms %5.1f%% %13.3f ms %5.1f%% %13.3f ms\n", k, ms(b), ms(busy[k * 4 + 1]),
            b ? 100.0 * (double)busy[k * 4 + 1] / (double)b : 0.0, ms(busy[k * 4 + 2]),
            b ? 100.0 * (double)busy[k * 4 + 2] / (double)b : 0.0, ms(busy[k * 4 + 3]));
  }
  free(busy);
  free(by_lock);
  explain_sites(out, tl);
  return 0;
}

/* Per site: acquires, contended ones and their wait; per mutex with sites:
 * the regime (a convoy: some thread asleep on it for most of the run). */
static void explain_sites(FILE *out, const ts_timeline *tl)
{
  const ts_model *m = tl->model;
  if (m->nsites == 0 || !tl->site_stat || !tl->lock_stat)
    return;
  double total = 0;
  for (size_t d = 0; d < m->nlocks; d++)
    total += tl->lock_stat[d].wait;
  fprintf(out, "\ncontention by site (the whole run)\n");
  fprintf(out, "  %-14s %-16s %10s %10s %8s %14s %8s\n", "mutex", "site", "acquires", "contended", "of them",
          "wait (ms)", "share");
  for (size_t d = 0; d < m->nlocks; d++)
    for (size_t i = 0; i < m->nsites; i++) {
      const ts_mutex_stat *st = &tl->site_stat[i];
      if (m->sites[i].lock != (int)d)
        continue;
      fprintf(out, "  %-14.14s %-16.16s %10lld %10lld %7.1f%% %14.3f %7.1f%%\n", m->locks[d].name, m->sites[i].name,
              (long long)st->acquires, (long long)st->contended,
              st->acquires ? 100.0 * (double)st->contended / (double)st->acquires : 0.0, st->wait / 1e6,
              total > 0 ? 100 * st->wait / total : 0.0);
    }
  ts_time run = tl->end > 0 ? tl->end : 1;
  for (size_t d = 0; d < m->nlocks; d++) {
    int used = 0;
    for (size_t i = 0; i < m->nsites; i++)
      used |= m->sites[i].lock == (int)d;
    if (!used)
      continue;
    double share = (double)tl->lock_stat[d].parked_longest / (double)run;
    fprintf(out, "  regime of %s: %s (the longest stretch with a thread asleep on it: %.3f ms, %.1f%% of the run)\n",
            m->locks[d].name, share >= 0.5 ? "convoy: its sleepers never drain" : "uncollapsed: its sleepers drain",
            (double)tl->lock_stat[d].parked_longest / 1e6, 100 * share);
  }
}

/* The service times of one server's calls of one class, as two sorted
 * arrays (admissions, ends) with prefix sums, so that the service they gave
 * before any instant t, F(t) = sum over calls of |[admitted, done) before t|
 * = t #(admitted < t) - sum(admitted < t) - t #(done < t) + sum(done < t),
 * takes two binary searches. The sums wrap modulo 2^64 (unsigned): each
 * F(t1) - F(t0) is a true overlap below 2^63, so it comes out exact. */
typedef struct served {
  ts_time *at[2];    /* admissions, ends: sorted */
  uint64_t *sum[2];  /* sum[k][i]: of at[k][0..i) */
  size_t n;
} served;

static int cmp_time(const void *x, const void *y)
{
  ts_time a = *(const ts_time *)x, b = *(const ts_time *)y;
  return (a > b) - (a < b);
}

/* How many of the sorted v[0..n) are below t. */
static size_t below(const ts_time *v, size_t n, ts_time t)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (v[mid] < t)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

static uint64_t served_before(const served *sv, ts_time t)
{
  size_t na = below(sv->at[0], sv->n, t), nd = below(sv->at[1], sv->n, t);
  return (uint64_t)t * na - sv->sum[0][na] - (uint64_t)t * nd + sv->sum[1][nd];
}

/* sv: the calls to server s of call class k that were admitted (their end
 * the run's when they never ended). 0, or -1 when out of memory. */
static int served_init(served *sv, const ts_timeline *tl, int s, int k)
{
  memset(sv, 0, sizeof *sv);
  for (size_t i = 0; i < tl->ncall_spans; i++)
    sv->n += tl->call_spans[i].server == s && tl->call_spans[i].klass == k && tl->call_spans[i].admitted >= 0;
  for (int j = 0; j < 2; j++) {
    sv->at[j] = malloc((sv->n + 1) * sizeof *sv->at[j]);
    sv->sum[j] = malloc((sv->n + 1) * sizeof *sv->sum[j]);
    if (!sv->at[j] || !sv->sum[j])
      return -1;
  }
  size_t n = 0;
  for (size_t i = 0; i < tl->ncall_spans; i++) {
    const ts_tl_callspan *c = &tl->call_spans[i];
    if (c->server == s && c->klass == k && c->admitted >= 0) {
      sv->at[0][n] = c->admitted;
      sv->at[1][n++] = c->done >= 0 ? c->done : tl->end;
    }
  }
  for (int j = 0; j < 2; j++) {
    qsort(sv->at[j], sv->n, sizeof *sv->at[j], cmp_time);
    sv->sum[j][0] = 0;
    for (size_t i = 0; i < sv->n; i++)
      sv->sum[j][i + 1] = sv->sum[j][i] + (uint64_t)sv->at[j][i];
  }
  return 0;
}

static void served_free(served *sv)
{
  for (int j = 0; j < 2; j++) {
    free(sv->at[j]);
    free(sv->sum[j]);
  }
}

int ts_explain_calls(FILE *out, const ts_timeline *tl)
{
  const char *const *cls = ts_sched_class_names;
  const ts_model *m = tl->model;
  if (m->nservers == 0 || tl->ncalls == 0 || !tl->call_span_at)
    return 0;
  for (size_t s = 0; s < m->nservers; s++) {
    /* rows: (actor class, call class); columns: the class of the calls served meanwhile */
    size_t rows = m->nclasses * TS_NCLASSES;
    double *behind = calloc(rows * TS_NCLASSES + 1, sizeof *behind), *wait = calloc(rows + 1, sizeof *wait);
    int *count = calloc(rows + 1, sizeof *count), rc = 0;
    served sv[TS_NCLASSES];
    for (int k = 0; k < TS_NCLASSES; k++)
      rc |= served_init(&sv[k], tl, (int)s, k);
    for (int a = 0; !rc && behind && wait && count && a < tl->nactors; a++)
      for (size_t i = tl->call_span_at[a]; i < tl->call_span_at[a + 1]; i++) {
        const ts_tl_callspan *x = &tl->call_spans[i];
        if (x->server != (int)s || x->admitted < 0)
          continue;
        size_t r = (size_t)tl->stats[a].klass * TS_NCLASSES + (size_t)x->klass;
        count[r]++;
        wait[r] += (double)(x->admitted - x->queued);
        /* its own service starts at its admission, so it adds nothing to its queue wait */
        for (int k = 0; k < TS_NCLASSES; k++)
          behind[r * TS_NCLASSES + (size_t)k] +=
              (double)(int64_t)(served_before(&sv[k], x->admitted) - served_before(&sv[k], x->queued));
      }
    for (int k = 0; k < TS_NCLASSES; k++)
      served_free(&sv[k]);
    if (rc || !behind || !wait || !count) {
      free(behind);
      free(wait);
      free(count);
      return -1;
    }
    fprintf(out, "\ncalls to server %s: what each waited behind in its queue (policy %s; mean per call)\n",
            m->servers[s].name, m->servers[s].policy->name);
    fprintf(out, "  %-24s %6s %12s   behind: %12s %12s %12s\n", "caller (call class)", "calls", "queue (ms)", cls[0],
            cls[1], cls[2]);
    for (size_t r = 0; r < rows; r++) {
      if (!count[r])
        continue;
      char who[80];
      snprintf(who, sizeof who, "%s (%s)", m->classes[r / TS_NCLASSES].name, cls[r % TS_NCLASSES]);
      fprintf(out, "  %-24.24s %6d %12.3f           %12.3f %12.3f %12.3f\n", who, count[r], wait[r] / count[r] / 1e6,
              behind[r * TS_NCLASSES] / count[r] / 1e6, behind[r * TS_NCLASSES + 1] / count[r] / 1e6,
              behind[r * TS_NCLASSES + 2] / count[r] / 1e6);
    }
    int places = m->servers[s].concurrency;
    if (places > 1)
      fprintf(out, "  (behind: the service time of the calls of each class that ran while the call was queued, summed\n"
                   "   over the server's %d places, so it may exceed the queue wait)\n", places);
    else
      fprintf(out, "  (behind: the service time of the calls of each class that ran while the call was queued)\n");
    free(behind);
    free(wait);
    free(count);
  }
  return 0;
}

int ts_explain_queue(FILE *out, const ts_timeline *tl)
{
  int nw = tl->nworkers > 0 ? tl->nworkers : 1;
  /* per worker: entries, depth sum, depth max, from counters (an entry raises its worker's count by one) */
  int64_t *v = calloc((size_t)nw * 3, sizeof *v);
  int *last = calloc((size_t)nw, sizeof *last);
  double *wait = calloc((size_t)nw, sizeof *wait);
  int64_t *waits = calloc((size_t)nw, sizeof *waits);
  if (!v || !last || !wait || !waits) {
    free(v);
    free(last);
    free(wait);
    free(waits);
    return -1;
  }
  for (size_t i = 0; i < tl->ncounters; i++) {
    const ts_tl_counter *c = &tl->counters[i];
    if (c->worker < 0 || c->worker >= nw)
      continue;
    if (c->queue_depth == last[c->worker] + 1) {
      int64_t *x = &v[3 * c->worker];
      x[0]++;
      x[1] += last[c->worker];
      if (last[c->worker] > x[2])
        x[2] = last[c->worker];
    }
    last[c->worker] = c->queue_depth;
  }
  /* slice wait: each stay in the queued state, charged to the worker the actor was placed on */
  for (int a = 0; a < tl->nactors; a++)
    for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++) {
      const ts_tl_state *st = &tl->states[i];
      if (st->state != TS_ACTOR_QUEUED)
        continue;
      ts_time end = i + 1 < tl->state_at[a + 1] ? tl->states[i + 1].t : tl->end;
      int wk = tl->stats[a].worker;
      if (wk >= 0 && wk < nw) {
        wait[wk] += ms(end - st->t);
        waits[wk]++;
      }
    }
  int64_t any = 0;
  for (int w = 0; w < nw; w++)
    any += v[3 * w];
  if (any) {
    fprintf(out, "\ntime-slice queue (the whole run): what an actor found when it yielded, and how long it waited\n");
    fprintf(out, "  worker   entries   waiting at entry (mean)   most waiting   slice wait (ms, mean)\n");
    for (int w = 0; w < nw; w++) {
      const int64_t *x = &v[3 * w];
      if (!x[0])
        continue;
      fprintf(out, "  %-6d %9lld %25.2f %14lld %23.3f\n", w, (long long)x[0], (double)x[1] / (double)x[0],
              (long long)x[2], waits[w] ? wait[w] / (double)waits[w] : 0.0);
    }
    fprintf(out, "  (summary.csv's queue_depth, queue_depth_max and slice_wait_ms are the same over all workers)\n");
  }
  free(v);
  free(last);
  free(wait);
  free(waits);
  return 0;
}
