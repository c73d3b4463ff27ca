/* The numbers behind tssim explain: per-actor accounting of the wave window
 * against its worker's run pieces, and the round-robin closed form. */
#include "viz/explain.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model/op.h"

/* Pieces grouped by a key (a worker, or an actor), each group in time
 * order: idx[at[k] .. at[k + 1]); cum[j + k], for j in [at[k], at[k + 1]],
 * is the total duration of the group's pieces before slot j (one more entry
 * per group than it has pieces, hence the offset k). Any
 * window's busy time is then two binary searches, so accounting every actor
 * costs O(pieces log pieces), not O(actors * pieces). */
typedef struct by_key {
  size_t *idx;
  size_t *at;
  ts_time *cum;
  int nkeys;
} by_key;

/* The group of piece p, or -1 to leave it out. */
typedef int (*piece_key)(const ts_tl_piece *p);

static int key_worker(const ts_tl_piece *p)
{
  return p->worker;
}

static int key_loop(const ts_tl_piece *p)
{
  return p->actor < 0 ? p->worker : -1;
}

static int key_actor(const ts_tl_piece *p)
{
  return p->actor;
}

static void by_key_free(by_key *g)
{
  free(g->idx);
  free(g->at);
  free(g->cum);
}

static int index_pieces(const ts_timeline *tl, int nkeys, piece_key key, by_key *g)
{
  g->nkeys = nkeys;
  g->idx = malloc((tl->npieces ? tl->npieces : 1) * sizeof *g->idx);
  g->at = calloc((size_t)nkeys + 2, sizeof *g->at);
  g->cum = malloc((tl->npieces + (size_t)nkeys + 1) * sizeof *g->cum);
  if (!g->idx || !g->at || !g->cum)
    return -1;
  for (size_t i = 0; i < tl->npieces; i++) {
    int k = key(&tl->pieces[i]);
    if (k >= 0)
      g->at[k + 2]++;
  }
  for (int k = 0; k < nkeys; k++)
    g->at[k + 2] += g->at[k + 1];
  for (size_t i = 0; i < tl->npieces; i++) { /* stable: each group stays in time order */
    int k = key(&tl->pieces[i]);
    if (k >= 0)
      g->idx[g->at[k + 1]++] = i;
  }
  for (int k = 0; k < nkeys; k++) { /* group k's sums at cum[at[k] + k ..] */
    ts_time sum = 0;
    size_t c = g->at[k] + (size_t)k;
    g->cum[c++] = 0;
    for (size_t j = g->at[k]; j < g->at[k + 1]; j++) {
      const ts_tl_piece *p = &tl->pieces[g->idx[j]];
      sum += p->t1 - p->t0;
      g->cum[c++] = sum;
    }
  }
  return 0;
}

/* Time within [t0, t1) covered by group k's pieces. */
static ts_time group_sum(const ts_timeline *tl, const by_key *g, int k, ts_time t0, ts_time t1)
{
  if (k < 0 || k >= g->nkeys || t1 <= t0)
    return 0;
  size_t base = g->at[k], end = g->at[k + 1], lo = base, hi = end;
  while (lo < hi) { /* first piece ending after t0 */
    size_t mid = lo + (hi - lo) / 2;
    if (tl->pieces[g->idx[mid]].t1 <= t0)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t first = lo;
  hi = end;
  while (lo < hi) { /* first piece starting at or after t1 */
    size_t mid = lo + (hi - lo) / 2;
    if (tl->pieces[g->idx[mid]].t0 < t1)
      lo = mid + 1;
    else
      hi = mid;
  }
  size_t last = lo; /* pieces [first, last) meet the window */
  if (first >= last)
    return 0;
  const ts_time *cum = g->cum + k; /* cum[j] for piece slot j: the sum before it */
  ts_time total = cum[last] - cum[first];
  const ts_tl_piece *a = &tl->pieces[g->idx[first]], *b = &tl->pieces[g->idx[last - 1]];
  if (a->t0 < t0)
    total -= t0 - a->t0;
  if (b->t1 > t1)
    total -= b->t1 - t1;
  return total;
}

/* The stretches each worker was blocked (a task of it parked on a mutex,
 * its wake latency included: ts_tl_block on to off; one not ended, to the
 * end of the run): worker w's are [t0[j], t1[j]) for j in [at[w], at[w + 1]),
 * in time order. */
typedef struct blocked_by {
  ts_time *t0, *t1;
  size_t *at;
} blocked_by;

static int index_blocked(const ts_timeline *tl, blocked_by *b)
{
  int nw = tl->nworkers;
  size_t *fill = calloc((size_t)nw + 1, sizeof *fill);
  b->at = calloc((size_t)nw + 1, sizeof *b->at);
  b->t0 = malloc((tl->nblocks ? tl->nblocks : 1) * sizeof *b->t0);
  b->t1 = malloc((tl->nblocks ? tl->nblocks : 1) * sizeof *b->t1);
  if (!fill || !b->at || !b->t0 || !b->t1) {
    free(fill);
    return -1;
  }
  for (size_t i = 0; i < tl->nblocks; i++)
    if (tl->blocks[i].on && tl->blocks[i].worker >= 0 && tl->blocks[i].worker < nw)
      b->at[tl->blocks[i].worker + 1]++;
  for (int w = 0; w < nw; w++)
    b->at[w + 1] += b->at[w];
  for (int w = 0; w < nw; w++)
    fill[w] = b->at[w];
  for (size_t i = 0; i < tl->nblocks; i++) {
    const ts_tl_block *e = &tl->blocks[i];
    if (e->worker < 0 || e->worker >= nw)
      continue;
    if (e->on) {
      b->t0[fill[e->worker]] = e->t;
      b->t1[fill[e->worker]++] = tl->end;
    } else if (fill[e->worker] > b->at[e->worker]) {
      b->t1[fill[e->worker] - 1] = e->t;
    }
  }
  free(fill);
  return 0;
}

/* Time within [t0, t1) worker w was blocked. */
static ts_time blocked_within(const blocked_by *b, int w, ts_time t0, ts_time t1)
{
  size_t lo = b->at[w], hi = b->at[w + 1];
  while (lo < hi) { /* the first stretch ending after t0 */
    size_t mid = lo + (hi - lo) / 2;
    if (b->t1[mid] <= t0)
      lo = mid + 1;
    else
      hi = mid;
  }
  ts_time total = 0;
  for (size_t j = lo; j < b->at[w + 1] && b->t0[j] < t1; j++)
    total += (b->t1[j] < t1 ? b->t1[j] : t1) - (b->t0[j] > t0 ? b->t0[j] : t0);
  return total;
}

/* The pieces of the timeline grouped three ways, and the workers' blocked stretches. */
typedef struct by_worker {
  by_key all;   /* per worker */
  by_key loop;  /* per worker, loop overhead only */
  by_key own;   /* per actor */
  blocked_by blocked;
} by_worker;

/* Actor self's CPU on worker w within [t0, t1): the whole of its pieces
 * there (by_key own), or, for an actor that hopped (its pieces on several
 * workers), those on w alone. */
static ts_time own_within(const ts_timeline *tl, const by_worker *bw, int self, int hopped, int w, ts_time t0,
                          ts_time t1)
{
  if (!hopped)
    return group_sum(tl, &bw->own, self, t0, t1);
  ts_time total = 0;
  for (size_t j = bw->own.at[self]; j < bw->own.at[self + 1]; j++) {
    const ts_tl_piece *p = &tl->pieces[bw->own.idx[j]];
    ts_time lo = p->t0 > t0 ? p->t0 : t0, hi = p->t1 < t1 ? p->t1 : t1;
    if (p->worker == w && hi > lo)
      total += hi - lo;
  }
  return total;
}

/* Worker w's busy time within [t0, t1), split into actor `self`, other
 * actors, and loop overhead. */
static void busy_within(const ts_timeline *tl, const by_worker *bw, int w, int self, int hopped, ts_time t0, ts_time t1,
                        ts_time *own, ts_time *others, ts_time *loop)
{
  ts_time all = group_sum(tl, &bw->all, w, t0, t1), l = group_sum(tl, &bw->loop, w, t0, t1);
  ts_time o = own_within(tl, bw, self, hopped, w, t0, t1);
  *own += o;
  *loop += l;
  *others += all - o - l;
}

/* Actor a's lock records (tl->locks[i .. end), in time order) walked once
 * beside its states: held, the locks it holds before record i. */
typedef struct held_walk {
  size_t i, end;
  int held;
} held_walk;

/* Move h past the records at or before t. */
static void held_walk_to(const ts_timeline *tl, held_walk *h, ts_time t)
{
  for (; h->i < h->end && tl->locks[h->i].t <= t; h->i++)
    h->held += tl->locks[h->i].held ? 1 : h->held > 0 ? -1 : 0;
}

/* Of a runnable wait [s0, s1) on worker w's thread (h's actor a: not at
 * records before s0), the time it held a lock with the thread blocked and
 * with it idle otherwise (waking up) into x's held_blocked and held_waking,
 * as account_one splits the wait (the rest of held[TS_ACTOR_READY]: the
 * thread busy). */
static void held_runnable(const ts_timeline *tl, const by_worker *bw, held_walk *h, int w, int a, int hopped,
                          ts_time s0, ts_time s1, ts_explain_actor *x)
{
  held_walk_to(tl, h, s0);
  for (ts_time u0 = s0; u0 < s1;) {
    ts_time u1 = h->i < h->end && tl->locks[h->i].t < s1 ? tl->locks[h->i].t : s1;
    if (h->held > 0 && u1 > u0) {
      ts_time o = 0, oth = 0, l = 0;
      busy_within(tl, bw, w, a, hopped, u0, u1, &o, &oth, &l);
      ts_time idle = (u1 - u0) - oth - l, blk = blocked_within(&bw->blocked, w, u0, u1);
      blk = blk < idle ? blk : idle;
      x->held_blocked += blk;
      x->held_waking += idle - blk;
    }
    held_walk_to(tl, h, u1);
    u0 = u1;
  }
}

/* The worker of state entry e: the one it names, else its actor's home. */
static int entry_worker(const ts_timeline *tl, const ts_tl_state *e)
{
  return e->worker >= 0 && e->worker < tl->nworkers ? e->worker : tl->stats[e->actor].worker;
}

/* The worker actor a is on for its wave: after a hop, the one it reached
 * (the worker of its last state before wave_end; without a wave, its last),
 * else its home. *hopped: whether it ran or waited on another worker. */
static int wave_worker(const ts_timeline *tl, const by_worker *bw, int a, int *hopped)
{
  const ts_actor_stats *st = &tl->stats[a];
  int w = st->worker;
  *hopped = 0;
  for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++) {
    const ts_tl_state *e = &tl->states[i];
    int ew = entry_worker(tl, e);
    *hopped |= ew != st->worker;
    if (st->wave_end < 0 || e->t < st->wave_end || i == tl->state_at[a])
      w = ew;
  }
  for (size_t j = bw->own.at[a]; j < bw->own.at[a + 1] && !*hopped; j++)
    *hopped = tl->pieces[bw->own.idx[j]].worker != st->worker;
  return w;
}

ts_time ts_explain_wave_span(const ts_timeline *tl, int j, ts_time *end)
{
  const ts_actor_stats *b = &tl->stats[j];
  ts_time start = b->wave_start;
  if (start < 0 && b->done < 0 && tl->state_at[j] < tl->state_at[j + 1])
    start = b->arrive;
  *end = b->wave_end >= 0 ? b->wave_end : tl->end;
  return start;
}

/* A worker and an instant: the actors' wave starts and ends, sorted by both. */
typedef struct at_worker {
  int w;
  ts_time t;
} at_worker;

static int cmp_at_worker(const void *x, const void *y)
{
  const at_worker *a = x, *b = y;
  return a->w != b->w ? (a->w > b->w) - (a->w < b->w) : (a->t > b->t) - (a->t < b->t);
}

/* The first of v[0 .. n) not before (w, t). */
static size_t at_worker_first(const at_worker *v, size_t n, int w, ts_time t)
{
  size_t lo = 0, hi = n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_at_worker(&v[mid], &(at_worker){w, t}) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

/* Into sharers[a]: the actors on a's worker wk[a] whose waves
 * (ts_explain_wave_span) overlap a's, a included: those that began before
 * its end less those that ended by its start (each of which began before
 * it), O(actors log actors). Returns 0 or -1 (memory). */
static int count_sharers(const ts_timeline *tl, const int *wk, int *sharers)
{
  size_t na = (size_t)(tl->nactors ? tl->nactors : 1), n = 0;
  at_worker *starts = malloc(na * sizeof *starts), *ends = malloc(na * sizeof *ends);
  if (!starts || !ends) {
    free(starts);
    free(ends);
    return -1;
  }
  for (int j = 0; j < tl->nactors; j++) {
    ts_time end, start = ts_explain_wave_span(tl, j, &end);
    if (start < 0)
      continue;
    starts[n] = (at_worker){wk[j], start};
    ends[n++] = (at_worker){wk[j], end};
  }
  qsort(starts, n, sizeof *starts, cmp_at_worker);
  qsort(ends, n, sizeof *ends, cmp_at_worker);
  for (int a = 0; a < tl->nactors; a++) {
    ts_time ws = tl->stats[a].wave_start, we = tl->stats[a].wave_end;
    sharers[a] = 1;
    if (ws >= 0 && we > ws) /* the count holds a itself */
      sharers[a] = (int)(at_worker_first(starts, n, wk[a], we) - at_worker_first(ends, n, wk[a], ws + 1));
  }
  free(starts);
  free(ends);
  return 0;
}

static void account_one(const ts_timeline *tl, const by_worker *bw, const ts_time *busy, const int *peers,
                        int sharers, int a, int w, int hopped, ts_explain_actor *x)
{
  const ts_actor_stats *st = &tl->stats[a];
  ts_time ws = st->wave_start, we = st->wave_end;
  memset(x, 0, sizeof *x);
  x->wave = we - ws;
  x->worker_busy = busy[w];
  x->peers = peers[w];
  x->sharers = sharers;
  int64_t slice = 0;
  for (size_t j = bw->own.at[a]; j < bw->own.at[a + 1]; j++) { /* its CPU inside the wave, timed or not */
    const ts_tl_piece *p = &tl->pieces[bw->own.idx[j]];
    ts_time lo = p->t0 > ws ? p->t0 : ws, hi = p->t1 < we ? p->t1 : we;
    if (hi <= lo)
      continue;
    *(p->slice > 0 ? &x->queued_cpu : &x->step_cpu) += hi - lo;
    x->slices += p->slice > 0 && p->slice != slice; /* a slice's pieces are consecutive */
    slice = p->slice > 0 ? p->slice : slice;
  }
  /* the loop overhead in the wave is the waves' that overlap it: m*c sums it once for equal demands */
  x->loop_cpu = x->step_cpu + group_sum(tl, &bw->loop, w, ws, we) / sharers;
  x->step_cpu += x->queued_cpu;
  for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++) /* on an event loop a yield enters the queue */
    x->yields += tl->states[i].state == TS_ACTOR_QUEUED && tl->states[i].t >= ws && tl->states[i].t < we;
  ts_timeline_state_times(tl, a, ws, we, 0, x->state);
  ts_timeline_state_times(tl, a, ws, we, 1, x->held);
  ts_time own = 0, others = 0, loop = 0;
  busy_within(tl, bw, w, a, hopped, ws, we, &own, &others, &loop);
  x->outside = busy[w] - (own + others + loop);
  size_t lo = tl->state_at[a], hi = tl->state_at[a + 1], k = tl->call_span_at[a];
  ts_time parts[2] = {0, 0}; /* its waits for a reply: in the servers' queues, the legs */
  ts_time outer_end = -1;     /* the end of the last outermost call's service */
  held_walk h = {tl->lock_at[a], tl->lock_at[a + 1], 0};
  for (size_t j = k; j < tl->call_span_at[a + 1]; j++) {
    const ts_tl_callspan *c = &tl->call_spans[j];
    if (c->admitted < 0 || c->queued < outer_end)
      continue; /* never served, or a handler's own call: inside its caller's service, counted there */
    ts_time s0 = c->admitted > ws ? c->admitted : ws, s1 = c->done >= 0 ? c->done : tl->end;
    outer_end = s1;
    s1 = s1 < we ? s1 : we;
    if (s1 > s0)
      x->call_service += s1 - s0;
  }
  for (size_t i = lo; i < hi; i++) {
    int s = tl->states[i].state;
    ts_time s0 = tl->states[i].t > ws ? tl->states[i].t : ws;
    ts_time s1 = i + 1 < hi ? tl->states[i + 1].t : tl->end;
    s1 = s1 < we ? s1 : we;
    if (s1 <= s0)
      continue;
    if (s == TS_ACTOR_CALL_WAIT)
      ts_timeline_call_wait_parts(tl, a, &k, s0, s1, ts_timeline_call_part_add, parts);
    ts_time o = 0, oth = 0, l = 0;
    if (s == TS_ACTOR_RUNNING)
      continue; /* its own CPU: B counts it, as the wave does */
    int ew = hopped ? entry_worker(tl, &tl->states[i]) : w; /* the worker it waited on: after a hop, not its home */
    busy_within(tl, bw, ew, a, hopped, s0, s1, &o, &oth, &l);
    if (s == TS_ACTOR_IO) {
      x->io_busy += oth + l;
    } else if (s == TS_ACTOR_SLEEP) {
      x->sleep_busy += oth + l;
    } else if (s == TS_ACTOR_QUEUED || s == TS_ACTOR_READY || s == TS_ACTOR_LOCK_WAIT) {
      ts_time idle = (s1 - s0) - oth - l, blk = blocked_within(&bw->blocked, ew, s0, s1);
      blk = blk < idle ? blk : idle; /* a blocked worker runs nothing */
      x->wait_others += oth;
      x->wait_loop += l;
      x->wait_idle += idle;
      x->wait_blocked += blk;
      if (s == TS_ACTOR_READY && ts_timeline_entry_on_thread(tl, &tl->states[i])) { /* runnable */
        x->ready_blocked += blk;
        x->ready_waking += idle - blk; /* its thread idle, not blocked: its wake latency */
        held_runnable(tl, bw, &h, ew, a, hopped, s0, s1, x);
      }
    } else {
      x->other_gap += (s1 - s0) - (o + oth + l);
    }
  }
  x->call_queued = parts[0];
}

int ts_explain_account(const ts_timeline *tl, ts_explain_actor *out)
{
  by_worker bw;
  size_t nw = (size_t)tl->nworkers;
  ts_time *busy = calloc(nw, sizeof *busy);
  int *peers = calloc(nw, sizeof *peers), *wk = NULL, *hop = NULL, *sharers = NULL, rc = -1;
  memset(&bw, 0, sizeof bw);
  if (!busy || !peers || index_pieces(tl, tl->nworkers, key_worker, &bw.all) ||
      index_pieces(tl, tl->nworkers, key_loop, &bw.loop) || index_pieces(tl, tl->nactors, key_actor, &bw.own) ||
      index_blocked(tl, &bw.blocked))
    goto done;
  for (size_t i = 0; i < tl->npieces; i++)
    busy[tl->pieces[i].worker] += tl->pieces[i].t1 - tl->pieces[i].t0;
  wk = malloc((size_t)(tl->nactors ? tl->nactors : 1) * sizeof *wk);
  hop = malloc((size_t)(tl->nactors ? tl->nactors : 1) * sizeof *hop);
  sharers = malloc((size_t)(tl->nactors ? tl->nactors : 1) * sizeof *sharers);
  if (!wk || !hop || !sharers)
    goto done;
  for (int a = 0; a < tl->nactors; a++)
    peers[wk[a] = wave_worker(tl, &bw, a, &hop[a])]++;
  if (count_sharers(tl, wk, sharers))
    goto done;
  for (int a = 0; a < tl->nactors; a++)
    account_one(tl, &bw, busy, peers, sharers[a], a, wk[a], hop[a], &out[a]);
  rc = 0;
done:
  by_key_free(&bw.all);
  by_key_free(&bw.loop);
  by_key_free(&bw.own);
  free(bw.blocked.t0);
  free(bw.blocked.t1);
  free(bw.blocked.at);
  free(busy);
  free(peers);
  free(wk);
  free(hop);
  free(sharers);
  return rc;
}

/* Work done after j of R rows of a step costing c, as the worker computes it. */
static ts_time cum(ts_time c, int64_t rows, int64_t j)
{
  return j * (c / rows) + (j * (c % rows)) / rows;
}

/* The name a step of the program is written with ("sleep", "repeat", ...);
 * NULL for the end of a block, a jump, a child: part of the step that began it. */
static const char *step_name(const ts_op_type *t)
{
  return t->name ? t->name : t->structured;
}

/* Into buf: "the program has sleep and repeat steps, not only CPU", naming
 * every kind of step of class k other than cpu and mark, in program order. */
static void other_steps(const ts_class *k, char *buf, size_t len)
{
  const char *seen[64];
  size_t n = 0;
  for (size_t i = 0; i < k->nsteps; i++) {
    const char *name = step_name(k->steps[i].type);
    if (!name || k->steps[i].type == &ts_op_cpu || k->steps[i].type == &ts_op_mark)
      continue;
    size_t j = 0;
    while (j < n && strcmp(seen[j], name) != 0)
      j++;
    if (j == n && n < sizeof seen / sizeof *seen)
      seen[n++] = name;
  }
  size_t at = (size_t)snprintf(buf, len, "the program has %s", n == 1 ? "a " : "");
  for (size_t j = 0; j < n && at < len; j++)
    at += (size_t)snprintf(buf + at, len - at, "%s%s", j == 0 ? "" : j + 1 == n ? " and " : ", ", seen[j]);
  if (at < len)
    snprintf(buf + at, len - at, " step%s, not only CPU", n == 1 ? "" : "s");
}

/* Why the closed form does not apply to class k's one cpu step on tl's
 * workers, or NULL if it does. */
static const char *rr_why_not_cpu(const ts_timeline *tl, const ts_class *k, const ts_step *cpu)
{
  const ts_model *m = tl->model;
  if (!cpu)
    return "the program has no cpu step";
  if (cpu->cost.kind != TS_DIST_FIXED)
    return "the CPU demand is random, not equal for every actor";
  if (cpu->cost.mean <= 0)
    return "the CPU demand is zero";
  if (m->pools[0].yield_overhead > 0 || m->pools[0].loop_overhead > 0)
    return "yields and loop iterations cost CPU (overheads)";
  if (strcmp(m->pools[0].policy->name, "fifo") != 0)
    return "the queue policy is not FIFO";
  if (k->arrival.kind != TS_ARRIVE_AT || k->arrival.spacing != 0)
    return "actors arrive at different times";
  if (m->npools > 1 || m->pools[0].kind != TS_WORKER_EVENT_LOOP)
    return "the model has several pools or thread workers";
  if (m->cores > 0 && m->cores < tl->nworkers)
    return "workers share fewer cores than there are workers (processor sharing)";
  return NULL;
}

/* Why the closed form does not apply to tl's model, into buf (len bytes).
 * Returns 1 when it does not apply, 0 when it does (*cpu: the one cpu step). */
static int rr_why_not(const ts_timeline *tl, const ts_step **cpu, char *buf, size_t len)
{
  const ts_model *m = tl->model;
  const char *why = NULL;
  *cpu = NULL;
  const ts_class *k = m->nclasses == 1 ? &m->classes[0] : NULL;
  if (!k)
    why = "the model has more than one actor class";
  for (size_t i = 0; k && i < k->nsteps && !why; i++) {
    const ts_step *s = &k->steps[i];
    if (s->type == &ts_op_mark)
      continue;
    if (s->type != &ts_op_cpu) {
      other_steps(k, buf, len);
      return 1;
    }
    why = *cpu ? "the program has more than one cpu step" : NULL;
    *cpu = s;
  }
  if (!why)
    why = rr_why_not_cpu(tl, k, *cpu);
  if (why)
    snprintf(buf, len, "%s", why);
  return why != NULL;
}

/* The slices one actor's cpu step is cut into: count, first and last. A step
 * sliced by time yields when its lap reaches the threshold q (at least 1 ns a
 * slice, src/model/cpu.c plan_by_time): S = ceil(C/q), the last C - (S-1)q. */
static void rr_slices(const ts_timeline *tl, const ts_step *s, ts_explain_rr *r)
{
  ts_time c = r->cost, th = tl->model->pools[0].threshold;
  int64_t rows = s->rows, j = 0;
  r->equal_slices = 1;
  r->slices = 0;
  if (s->by_time && th != TS_TIME_MAX) {
    ts_time q = th > 1 ? th : 1;
    r->slices = (c + q - 1) / q;
    r->quantum = c < q ? c : q;
    r->last_slice = c - (r->slices - 1) * q;
    r->equal_slices = r->last_slice == r->quantum;
    return;
  }
  while (j < rows) {
    int64_t next = rows;
    if (s->sliced) { /* the first row whose end takes the lap past the threshold */
      int64_t lo = j + 1, hi = rows;
      while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cum(c, rows, mid) - cum(c, rows, j) > th)
          hi = mid;
        else
          lo = mid + 1;
      }
      next = lo;
    }
    ts_time len = cum(c, rows, next) - cum(c, rows, j);
    if (r->slices == 0)
      r->quantum = len;
    else if (len != r->quantum)
      r->equal_slices = 0;
    r->last_slice = len;
    r->slices++;
    j = next;
  }
}

int ts_explain_rr_check(const ts_timeline *tl, ts_explain_rr *r)
{
  const ts_step *cpu = NULL;
  memset(r, 0, sizeof *r);
  if (rr_why_not(tl, &cpu, r->why_not, sizeof r->why_not))
    return 0;
  int unfinished = 0, dropped = 0;
  for (int a = 0; a < tl->nactors; a++) {
    dropped += tl->dropped[a];
    unfinished += tl->stats[a].done < 0 && !tl->dropped[a];
  }
  if (dropped) {
    snprintf(r->why_not, sizeof r->why_not, "%d of the %d actors %s dropped (arrived at a worker holding its capacity)",
             dropped, tl->nactors, dropped == 1 ? "was" : "were");
    return 0;
  }
  if (unfinished) {
    snprintf(r->why_not, sizeof r->why_not, "%d of the %d actors did not finish by the horizon", unfinished,
             tl->nactors);
    return 0;
  }
  int *count = calloc((size_t)tl->nworkers, sizeof *count), *pos = calloc((size_t)tl->nworkers, sizeof *pos);
  if (!count || !pos) {
    free(count);
    free(pos);
    return -1;
  }
  r->applies = 1;
  r->cost = cpu->cost.mean;
  double scale = ts_model_cpu_scale(tl->model, tl->n);
  if (scale != 1.0) /* priced by load, exactly as the world does */
    r->cost = (ts_time)llround((double)r->cost * scale);
  r->start = tl->model->classes[0].arrival.start;
  rr_slices(tl, cpu, r);
  for (int a = 0; a < tl->nactors; a++)
    count[tl->stats[a].worker]++;
  for (int w = 0; w < tl->nworkers; w++)
    r->m_max = count[w] > r->m_max ? count[w] : r->m_max;
  r->total = tl->nactors;
  r->first_sim = TS_TIME_MAX;
  for (int a = 0; a < tl->nactors; a++) { /* actors reach their worker in index order */
    const ts_actor_stats *st = &tl->stats[a];
    int m = count[st->worker], i = pos[st->worker]++;
    ts_time pred = r->start + (ts_time)m * (r->cost - r->last_slice) + (ts_time)(i + 1) * r->last_slice;
    ts_time err = st->done > pred ? st->done - pred : pred - st->done;
    r->matched += err == 0;
    r->max_err = err > r->max_err ? err : r->max_err;
    r->last_pred = pred > r->last_pred ? pred : r->last_pred;
    r->last_sim = st->done > r->last_sim ? st->done : r->last_sim;
    r->first_sim = st->done < r->first_sim ? st->done : r->first_sim;
    r->sum_sim += st->done;
    r->sum_ps += r->start + (ts_time)m * r->cost;
  }
  if (tl->nactors == 0)
    r->first_sim = 0;
  free(count);
  free(pos);
  return 0;
}
