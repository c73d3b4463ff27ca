/* A parallel for: the items of an index range on a few threads, each item
 * once, taken in index order. What runs in parallel must depend only on its
 * item (and what it alone writes), so the result is the same for any number
 * of threads. */
#ifndef TS_PARALLEL_H
#define TS_PARALLEL_H
#include <stddef.h>

/* Run fn(ctx, i, thread) for every i in [0, n) on min(jobs, n) threads
 * (thread in [0, that)); jobs <= 1 runs them in order on the calling
 * thread (thread 0), as does a failure to start threads. Returns when all
 * are done. */
void ts_parallel_for(int jobs, size_t n, void (*fn)(void *ctx, size_t i, int thread), void *ctx);
/* The number of threads ts_parallel_for(jobs, n, ...) uses. */
int ts_parallel_threads(int jobs, size_t n);

#endif
