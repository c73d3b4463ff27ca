/* A yardstick of scripts/bench: the M/M/1 queue of models/examples/mm1.json
 * as a hand-written loop, no framework. Jobs arrive as a Poisson process of
 * rate R per second (each arrival drawn when the previous one happens) and
 * need an exponential CPU demand of mean S ms on one server, served to
 * completion in arrival order. Events (the next arrival, the running job's
 * end) sit in a binary heap ordered by (time, sequence), the way a
 * discrete-event engine would keep them; the waiting jobs in a FIFO ring.
 * Draws come from GSL's taus2 (one stream for arrivals, one for demands), as
 * tssim's do, though not the same streams: the results agree with tssim's
 * in distribution (Pollaczek-Khinchine: a mean wait of 1 ms at the
 * defaults), not draw for draw. Per job it keeps what tssim's summary needs
 * for this model (the wait in the queue and the time in the system), and at
 * the end it takes their means, the median and the 95th percentile of the
 * time in the system, as tssim does, and prints them with a checksum so
 * the loop cannot be optimised away.
 *
 * Usage: mm1_minimal N [R S_ms]   (default R = 500 per s, S = 1 ms: load 0.5) */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

enum { ARRIVE, DEPART };

typedef struct ev {
  int64_t time;
  uint64_t seq;
  int kind;
} ev;

static int less(const ev *a, const ev *b)
{
  return a->time != b->time ? a->time < b->time : a->seq < b->seq;
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

static ev pop(ev *h, size_t *n)
{
  ev top = h[0], e = h[--*n];
  size_t i = 0;
  for (;;) {
    size_t c = 2 * i + 1;
    if (c >= *n)
      break;
    if (c + 1 < *n && less(&h[c + 1], &h[c]))
      c++;
    if (!less(&h[c], &e))
      break;
    h[i] = h[c];
    i = c;
  }
  if (*n > 0)
    h[i] = e;
  return top;
}

int main(int argc, char **argv)
{
  if (argc != 2 && argc != 4) {
    fprintf(stderr, "usage: mm1_minimal N [R S_ms]\n");
    return 2;
  }
  long n = atol(argv[1]);
  double rate = argc == 4 ? atof(argv[2]) : 500, service = (argc == 4 ? atof(argv[3]) : 1) * 1e6;
  if (n < 1 || !(rate > 0) || !(service > 0))
    return 2;
  gsl_rng *arr = gsl_rng_alloc(gsl_rng_taus2), *dem = gsl_rng_alloc(gsl_rng_taus2);
  double *wait = malloc((size_t)n * sizeof *wait), *sys = malloc((size_t)n * sizeof *sys);
  int64_t *arrived = malloc((size_t)n * sizeof *arrived); /* per job until it starts: the FIFO's times */
  if (!arr || !dem || !wait || !sys || !arrived)
    return 1;
  gsl_rng_set(arr, 1);
  gsl_rng_set(dem, 2);
  ev heap[2];
  size_t hn = 0;
  uint64_t seq = 0, events = 0;
  long next = 0, head = 0, tail = 0; /* jobs arrived so far; the FIFO is [head, tail) of the job numbers */
  int busy = 0;
  int64_t t = 0, started = 0;
  push(heap, &hn, (ev){llround(gsl_ran_exponential(arr, 1e9 / rate)), seq++, ARRIVE});
  while (hn > 0) {
    ev e = pop(heap, &hn);
    t = e.time;
    events++;
    if (e.kind == ARRIVE) {
      arrived[next] = t;
      tail = ++next;
      if (next < n)
        push(heap, &hn, (ev){t + llround(gsl_ran_exponential(arr, 1e9 / rate)), seq++, ARRIVE});
    } else { /* the running job (head - 1) is done */
      sys[head - 1] = (double)(t - arrived[head - 1]) / 1e6;
      busy = 0;
    }
    if (!busy && head < tail) { /* the server takes the oldest waiting job */
      wait[head] = (double)(t - arrived[head]) / 1e6;
      started = t;
      head++;
      busy = 1;
      push(heap, &hn, (ev){started + llround(gsl_ran_exponential(dem, service)), seq++, DEPART});
    }
  }
  double mw = gsl_stats_mean(wait, 1, (size_t)n), ms = gsl_stats_mean(sys, 1, (size_t)n);
  /* selection, not a sort (as tssim's quantiles): the p95 interpolates between two order statistics */
  double pos = 0.95 * (double)(n - 1), lo = floor(pos);
  double p95 = gsl_stats_select(sys, 1, (size_t)n, (size_t)lo);
  if (pos > lo)
    p95 += (pos - lo) * (gsl_stats_select(sys, 1, (size_t)n, (size_t)lo + 1) - p95);
  double med = gsl_stats_median(sys, 1, (size_t)n);
  printf("mm1_minimal n=%ld: %llu events, mean wait %.6f ms, mean in system %.6f ms, median %.6f ms, p95 %.6f ms, "
         "end %lld ns\n", n, (unsigned long long)events, mw, ms, med, p95, (long long)t);
  gsl_rng_free(arr);
  gsl_rng_free(dem);
  free(wait);
  free(sys);
  free(arrived);
  return 0;
}
