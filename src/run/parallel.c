#include "run/parallel.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct pfor {
  void (*fn)(void *ctx, size_t i, int thread);
  void *ctx;
  size_t n, next;
  pthread_mutex_t mu;
} pfor;

typedef struct worker_arg {
  pfor *p;
  int thread;
} worker_arg;

static void *worker(void *arg)
{
  worker_arg *a = arg;
  pfor *p = a->p;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    size_t i = p->next < p->n ? p->next++ : p->n;
    pthread_mutex_unlock(&p->mu);
    if (i >= p->n)
      break;
    p->fn(p->ctx, i, a->thread);
  }
  return NULL;
}

int ts_parallel_threads(int jobs, size_t n)
{
  return jobs <= 1 || n <= 1 ? 1 : (size_t)jobs < n ? jobs : (int)n;
}

void ts_parallel_for(int jobs, size_t n, void (*fn)(void *ctx, size_t i, int thread), void *ctx)
{
  int t = ts_parallel_threads(jobs, n);
  pfor p = {.fn = fn, .ctx = ctx, .n = n};
  pthread_t *th = t > 1 ? calloc((size_t)t, sizeof *th) : NULL;
  worker_arg *args = t > 1 ? calloc((size_t)t, sizeof *args) : NULL;
  int started = 0;
  if (th && args && pthread_mutex_init(&p.mu, NULL) == 0) {
    for (int k = 1; k < t; k++) { /* the calling thread is thread 0 */
      args[k] = (worker_arg){&p, k};
      if (pthread_create(&th[k], NULL, worker, &args[k]) == 0)
        started++;
      else
        break;
    }
    args[0] = (worker_arg){&p, 0};
    worker(&args[0]);
    for (int k = 1; k <= started; k++)
      pthread_join(th[k], NULL);
    pthread_mutex_destroy(&p.mu);
  } else {
    for (size_t i = 0; i < n; i++)
      fn(ctx, i, 0);
  }
  free(th);
  free(args);
}
