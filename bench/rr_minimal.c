/* The yardstick of scripts/bench: the rr-wave model (models/rr-wave.json) as
 * a hand-written loop, no framework. N actors each need C ns of CPU in
 * slices of q ns; actor i is queued on worker i mod W; each worker serves its
 * FIFO queue round robin (a yielding actor rejoins the tail), and the W
 * workers advance together through one binary heap of slice ends ordered by
 * (time, sequence), the way a discrete-event engine would, so ties resolve
 * in the same order as tssim's. Per actor it keeps what tssim's samples
 * show for this model (done time, slices, yields, queue wait, CPU) and at
 * the end it takes the median of each over all actors (the summary's
 * value), as tssim does. It prints those medians and a checksum, so the
 * loop cannot be optimised away and its result can be checked against
 * tssim's summary.csv.
 *
 * Usage: rr_minimal N W [C_ms q_ms]   (default C = 400 ms, q = 10 ms) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

typedef struct ev {
  int64_t time;
  uint64_t seq;
  int worker;
} ev;

typedef struct actor {
  int64_t left, queued_at, queue_wait, cpu, done;
  int32_t slices, yields;
} actor;

static int less(const ev *a, const ev *b)
{
  return a->time != b->time ? a->time < b->time : a->seq < b->seq;
}

/* Put e at the root of heap h[0..n) in place of the least event and restore the order. */
static void replace_top(ev *h, size_t n, ev e)
{
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && less(&h[c + 1], &h[c]))
      c++;
    if (!less(&h[c], &e))
      break;
    h[i] = h[c];
    i = c;
  }
  h[i] = e;
}

static void push(ev *h, size_t *n, ev e)
{
  size_t i = (*n)++;
  while (i > 0 && less(&e, &h[(i - 1) / 2])) {
    h[i] = h[(i - 1) / 2];
    i = (i - 1) / 2;
  }
  h[i] = e;
}

static int cmp(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double median(double *v, size_t n)
{
  qsort(v, n, sizeof *v, cmp);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
  if (argc != 3 && argc != 5) {
    fprintf(stderr, "usage: rr_minimal N W [C_ms q_ms]\n");
    return 2;
  }
  long n = atol(argv[1]), w = atol(argv[2]);
  int64_t c = (argc == 5 ? atol(argv[3]) : 400) * INT64_C(1000000);
  int64_t q = (argc == 5 ? atol(argv[4]) : 10) * INT64_C(1000000);
  if (n < 1 || w < 1 || c < 1 || q < 1)
    return 2;
  actor *a = calloc((size_t)n, sizeof *a);
  /* worker k's FIFO ring: capacity its actor count, items at ring[k][(head + i) % cap] */
  int **ring = calloc((size_t)w, sizeof *ring);
  long *head = calloc((size_t)w, sizeof *head), *len = calloc((size_t)w, sizeof *len), *cap = calloc((size_t)w, sizeof *cap);
  int *running = calloc((size_t)w, sizeof *running);
  ev *heap = calloc((size_t)w, sizeof *heap);
  if (!a || !ring || !head || !len || !cap || !running || !heap)
    return 1;
  for (long k = 0; k < w; k++) {
    cap[k] = n / w + (k < n % w);
    ring[k] = malloc((size_t)(cap[k] ? cap[k] : 1) * sizeof **ring);
    if (!ring[k])
      return 1;
  }
  for (long i = 0; i < n; i++) {
    long k = i % w;
    a[i].left = c;
    a[i].done = -1;
    ring[k][len[k]++] = (int)i;
  }
  uint64_t seq = 0, events = 0;
  size_t hn = 0;
  /* every worker starts its first actor at time 0 */
  for (long k = 0; k < w && k < n; k++) {
    int id = ring[k][head[k]];
    head[k] = (head[k] + 1) % cap[k];
    len[k]--;
    running[k] = id;
    a[id].slices++;
    push(heap, &hn, (ev){a[id].left < q ? a[id].left : q, seq++, (int)k});
  }
  while (hn > 0) {
    ev e = heap[0];
    int k = e.worker, id = running[k];
    actor *x = &a[id];
    int64_t ran = x->left < q ? x->left : q;
    events++;
    x->left -= ran;
    x->cpu += ran;
    if (x->left > 0) { /* yield: rejoin the tail */
      x->yields++;
      x->queued_at = e.time;
      ring[k][(head[k] + len[k]) % cap[k]] = id;
      len[k]++;
    } else {
      x->done = e.time;
    }
    if (len[k] == 0) { /* the worker goes idle */
      heap[0] = heap[--hn];
      if (hn > 0)
        replace_top(heap, hn, heap[0]);
      continue;
    }
    int next = ring[k][head[k]];
    head[k] = (head[k] + 1) % cap[k];
    len[k]--;
    actor *y = &a[next];
    y->queue_wait += e.time - y->queued_at;
    y->slices++;
    running[k] = next;
    replace_top(heap, hn, (ev){e.time + (y->left < q ? y->left : q), seq++, k});
  }
  double *v = malloc((size_t)n * sizeof *v);
  if (!v)
    return 1;
  double med[4];
  for (int m = 0; m < 4; m++) {
    for (long i = 0; i < n; i++)
      v[i] = m == 0 ? (double)a[i].done / 1e6 : m == 1 ? (double)a[i].queue_wait / 1e6
           : m == 2 ? (double)a[i].cpu / 1e6 : (double)a[i].slices;
    med[m] = median(v, (size_t)n);
  }
  uint64_t sum = 0;
  for (long i = 0; i < n; i++)
    sum += (uint64_t)a[i].done + (uint64_t)a[i].slices + (uint64_t)a[i].yields;
  printf("rr_minimal n=%ld w=%ld: %llu slices, median done %.6f ms, queue wait %.6f ms, cpu %.6f ms, slices %.0f, "
         "checksum %llu\n", n, w, (unsigned long long)events, med[0], med[1], med[2], med[3], (unsigned long long)sum);
  for (long k = 0; k < w; k++)
    free(ring[k]);
  free(ring);
  free(head);
  free(len);
  free(cap);
  free(running);
  free(heap);
  free(a);
  free(v);
  return 0;
}
