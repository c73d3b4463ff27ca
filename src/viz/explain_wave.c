/* The wave law's inputs that tssim explain reads from a class's waves: its
 * form (processor sharing, first come, or none) and CPU term, the actors
 * sharing each wave on a worker, and whether a random CPU demand or a
 * priority operation moved that CPU (explain.c prints them). */
#include "viz/explain_wave.h"

#include <stdlib.h>
#include <string.h>

#include "model/op.h"

int ts_explain_has_wave(const ts_timeline *tl, int a, int k)
{
  return tl->stats[a].klass == k && !tl->stats[a].hidden && tl->stats[a].wave_end >= 0;
}

void ts_explain_ref_cpu(const ts_timeline *ref, const ts_explain_actor *rx, double *c1)
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

/* Whether actor j shares actor i's wave: another actor on i's worker whose
 * wave overlaps i's. */
static int shares_wave(const ts_timeline *tl, int i, int j)
{
  const ts_actor_stats *a = &tl->stats[i];
  ts_time end, start = ts_explain_wave_span(tl, j, &end);
  return j != i && tl->stats[j].worker == a->worker && start >= 0 && start < a->wave_end && end > a->wave_start;
}

int ts_explain_by_worker(const ts_timeline *tl, int **by, int **at)
{
  int nw = tl->nworkers > 0 ? tl->nworkers : 1;
  *by = malloc((size_t)(tl->nactors ? tl->nactors : 1) * sizeof **by);
  *at = calloc((size_t)nw + 2, sizeof **at);
  if (!*by || !*at)
    return -1;
  for (int a = 0; a < tl->nactors; a++)
    (*at)[tl->stats[a].worker + 2]++;
  for (int w = 0; w < nw; w++)
    (*at)[w + 2] += (*at)[w + 1];
  for (int a = 0; a < tl->nactors; a++)
    (*by)[(*at)[tl->stats[a].worker + 1]++] = a;
  return 0;
}

/* Whether every actor on worker w shares the wave of every other (all began
 * one, and the last start comes before the first end): then the actors
 * sharing one's wave are all the others, and the forms need no pairwise
 * test (O(m log m) a worker, not O(m^2)). */
static int all_share(const ts_timeline *tl, const int *by, const int *at, int w)
{
  ts_time last_start = -1, first_end = TS_TIME_MAX;
  for (int u = at[w]; u < at[w + 1]; u++) {
    ts_time end, start = ts_explain_wave_span(tl, by[u], &end);
    if (start < 0)
      return 0;
    last_start = start > last_start ? start : last_start;
    first_end = end < first_end ? end : first_end;
  }
  return last_start < first_end;
}

ts_explain_law_kind ts_explain_law_kind_of(const ts_timeline *tl, const ts_explain_actor *x, int k, const int *by,
                                           const int *at, char *why, size_t cap)
{
  const ts_model *m = tl->model;
  const ts_pool *p = &m->pools[m->classes[k].pool];
  int qc = m->classes[k].sched_class, mixed = -1, long_ = 0;
  for (int w = 0; w < tl->nworkers; w++) {
    int any = 0, all = all_share(tl, by, at, w);
    for (int u = at[w]; u < at[w + 1]; u++) {
      int i = by[u];
      if (!ts_explain_has_wave(tl, i, k))
        continue;
      any = 1;
      long_ |= x[i].slices > 1;
      for (int v = at[w]; v < at[w + 1] && !all; v++) {
        int j = by[v];
        if (!shares_wave(tl, i, j))
          continue;
        long_ |= x[j].slices > 1;
        if (m->classes[tl->stats[j].klass].sched_class != qc)
          mixed = tl->stats[j].klass;
      }
    }
    for (int v = at[w]; v < at[w + 1] && all && any; v++) { /* every actor on w shares each wave */
      int j = by[v];
      long_ |= x[j].slices > 1;
      if (m->classes[tl->stats[j].klass].sched_class != qc)
        mixed = tl->stats[j].klass;
    }
  }
  if (strcmp(p->policy->name, "shortest_first") == 0) {
    snprintf(why, cap, "the worker's shortest_first queue serves the least declared work first, not in turn");
    return TS_EXPLAIN_LAW_NONE;
  }
  if (mixed >= 0 && (strcmp(p->policy->name, "fifo") != 0 || p->preempt)) {
    snprintf(why, cap, "the worker's %s queue%s orders by queue class, and class %s shares the waves of class %s "
             "from another queue class: not in turn", p->policy->name, p->preempt ? " with preemption" : "",
             m->classes[mixed].name, m->classes[k].name);
    return TS_EXPLAIN_LAW_NONE;
  }
  return long_ ? TS_EXPLAIN_LAW_PS : TS_EXPLAIN_LAW_FIFO;
}

/* The form's CPU for actor i (on its worker's list by[u0 .. u1)), from the
 * per-actor CPU c (NULL: per class, c1 at n = 1): PS c_i + the sum over the
 * actors sharing its wave of min(c_j, c_i); FIFO c_i + the CPU of those
 * sharing it that began their wave before it (ties: the lower id). */
static double law_cpu(const ts_timeline *tl, int i, ts_explain_law_kind kind, const double *c, const double *c1,
                      const int *by, int u0, int u1)
{
  double ci = c ? c[i] : c1[tl->stats[i].klass], sum = ci;
  ts_time end, si = ts_explain_wave_span(tl, i, &end);
  for (int u = u0; u < u1; u++) {
    int j = by[u];
    if (!shares_wave(tl, i, j))
      continue;
    double cj = c ? c[j] : c1[tl->stats[j].klass];
    ts_time sj = ts_explain_wave_span(tl, j, &end);
    if (kind == TS_EXPLAIN_LAW_PS)
      sum += cj < ci ? cj : ci;
    else if (sj < si || (sj == si && j < i))
      sum += cj;
  }
  return sum;
}

/* One actor of a worker for the forms' sums: its wave's start, id and CPU. */
typedef struct law_item {
  ts_time start;
  int id;
  double c;
} law_item;

static int cmp_c(const void *x, const void *y)
{
  double a = ((const law_item *)x)->c, b = ((const law_item *)y)->c;
  return (a > b) - (a < b);
}

static int cmp_start(const void *x, const void *y)
{
  const law_item *a = x, *b = y;
  return a->start != b->start ? (a->start > b->start) - (a->start < b->start) : (a->id > b->id) - (a->id < b->id);
}

/* The forms' CPU summed over class k's actors with a wave on worker w, all
 * of whose actors share each other's waves (all_share), into *sum: from the
 * per-actor CPU c, or (c NULL) the class CPU c1. PS: with the worker's CPUs
 * ascending, c_i + sum_j min(c_j, c_i) is the sum of those below c_i plus
 * c_i for each of the others; FIFO: the running sum in wave order (start,
 * then id). it: room for the worker's actors. */
static void worker_law(const ts_timeline *tl, const int *by, const int *at, int w, int k, ts_explain_law_kind kind,
                       const double *c, const double *c1, law_item *it, double *sum)
{
  int m = at[w + 1] - at[w];
  for (int u = 0; u < m; u++) {
    int j = by[at[w] + u];
    ts_time end;
    it[u] = (law_item){ts_explain_wave_span(tl, j, &end), j, c ? c[j] : c1[tl->stats[j].klass]};
  }
  qsort(it, (size_t)m, sizeof *it, kind == TS_EXPLAIN_LAW_PS ? cmp_c : cmp_start);
  double before = 0, below = 0; /* the sum of the CPUs before slot u (FIFO: through it); PS: below its value */
  int lo = 0;                    /* PS: the first slot of slot u's value */
  for (int u = 0; u < m; u++) {
    if (kind == TS_EXPLAIN_LAW_FIFO)
      before += it[u].c;
    else if (u == 0 || it[u].c != it[u - 1].c) {
      lo = u;
      below = before;
    }
    if (ts_explain_has_wave(tl, it[u].id, k))
      *sum += kind == TS_EXPLAIN_LAW_FIFO ? before : below + it[u].c * (m - lo);
    if (kind == TS_EXPLAIN_LAW_PS)
      before += it[u].c;
  }
}

int ts_explain_law_means(const ts_timeline *tl, const ts_explain_actor *x, int k, ts_explain_law_kind kind,
                         const double *c1, const int *by, const int *at, double *at_n, double *from1)
{
  size_t na = (size_t)(tl->nactors ? tl->nactors : 1);
  double *c = malloc(na * sizeof *c), sn = 0, s1 = 0;
  law_item *it = malloc(na * sizeof *it);
  int n = 0;
  if (!c || !it) {
    free(c);
    free(it);
    return -1;
  }
  for (int a = 0; a < tl->nactors; a++)
    c[a] = (double)(x[a].queued_cpu + x[a].loop_cpu);
  for (int w = 0; w < tl->nworkers; w++) {
    int mine = 0;
    for (int u = at[w]; u < at[w + 1]; u++)
      mine += ts_explain_has_wave(tl, by[u], k);
    if (!mine)
      continue;
    n += mine;
    if (all_share(tl, by, at, w)) {
      worker_law(tl, by, at, w, k, kind, c, NULL, it, &sn);
      if (c1)
        worker_law(tl, by, at, w, k, kind, NULL, c1, it, &s1);
      continue;
    }
    for (int u = at[w]; u < at[w + 1]; u++) { /* staggered waves: each pair tested */
      int i = by[u];
      if (!ts_explain_has_wave(tl, i, k))
        continue;
      sn += law_cpu(tl, i, kind, c, NULL, by, at[w], at[w + 1]);
      s1 += c1 ? law_cpu(tl, i, kind, NULL, c1, by, at[w], at[w + 1]) : 0;
    }
  }
  free(c);
  free(it);
  *at_n = n ? sn / n : 0;
  if (from1)
    *from1 = n ? s1 / n : 0;
  return 0;
}

int ts_explain_random_in_wave(const ts_timeline *tl, int k)
{
  for (size_t i = 0; i < tl->npieces; i++) {
    const ts_tl_piece *p = &tl->pieces[i];
    if (p->actor < 0 || !ts_explain_has_wave(tl, p->actor, k) || p->t1 <= tl->stats[p->actor].wave_start ||
        p->t0 >= tl->stats[p->actor].wave_end)
      continue;
    const ts_class *c = &tl->model->classes[k];
    if (p->step >= 0 && (size_t)p->step < c->nsteps && c->steps[p->step].type == &ts_op_cpu &&
        c->steps[p->step].cost.kind != TS_DIST_FIXED)
      return 1;
  }
  return 0;
}

/* A wave of class k on its worker w, [t0, t1); sorted by worker, then start,
 * t1 becomes the latest end of the worker's waves so far. */
typedef struct wave_at {
  int w;
  ts_time t0, t1;
} wave_at;

static int cmp_wave_at(const void *x, const void *y)
{
  const wave_at *a = x, *b = y;
  return a->w != b->w ? (a->w > b->w) - (a->w < b->w) : (a->t0 > b->t0) - (a->t0 < b->t0);
}

/* Whether some wave of v[0 .. n) on worker w meets [t0, t1). */
static int wave_meets(const wave_at *v, size_t n, int w, ts_time t0, ts_time t1)
{
  size_t lo = 0, hi = n;
  while (lo < hi) { /* the first wave of a later worker, or of w starting at t1 or after */
    size_t mid = lo + (hi - lo) / 2;
    if (cmp_wave_at(&v[mid], &(wave_at){w, t1, 0}) < 0)
      lo = mid + 1;
    else
      hi = mid;
  }
  return t1 > t0 && lo > 0 && v[lo - 1].w == w && v[lo - 1].t1 > t0;
}

int ts_explain_priority_in_wave(const ts_timeline *tl, int k)
{
  const ts_model *m = tl->model;
  if (m->pools[m->classes[k].pool].threshold == TS_TIME_MAX)
    return 0;
  size_t n = 0, nw = (size_t)(tl->nworkers > 0 ? tl->nworkers : 1);
  wave_at *v = malloc((size_t)(tl->nactors ? tl->nactors : 1) * sizeof *v);
  int *prio = calloc(nw, sizeof *prio), found = 0;
  ts_time *since = calloc(nw, sizeof *since);
  if (!v || !prio || !since) {
    free(v);
    free(prio);
    free(since);
    return -1;
  }
  for (int a = 0; a < tl->nactors; a++)
    if (ts_explain_has_wave(tl, a, k))
      v[n++] = (wave_at){tl->stats[a].worker, tl->stats[a].wave_start, tl->stats[a].wave_end};
  qsort(v, n, sizeof *v, cmp_wave_at);
  for (size_t i = 1; i < n; i++)
    if (v[i].w == v[i - 1].w && v[i - 1].t1 > v[i].t1)
      v[i].t1 = v[i - 1].t1;
  for (size_t i = 0; i < tl->ncounters && !found; i++) { /* each stretch of a worker's count above 0 */
    const ts_tl_counter *c = &tl->counters[i];
    if (c->worker < 0 || (size_t)c->worker >= nw)
      continue;
    found = prio[c->worker] > 0 && wave_meets(v, n, c->worker, since[c->worker], c->t);
    prio[c->worker] = c->prio_inflight;
    since[c->worker] = c->t;
  }
  for (size_t w = 0; w < nw && !found; w++)
    found = prio[w] > 0 && wave_meets(v, n, (int)w, since[w], tl->end);
  free(v);
  free(prio);
  free(since);
  return found;
}
