/* The wave law's form and CPU term for tssim explain, from the recorded
 * waves of a class (explain_wave.c; explain.c prints the law). Internal to
 * the viz layer. */
#ifndef TS_VIZ_EXPLAIN_WAVE_H
#define TS_VIZ_EXPLAIN_WAVE_H

#include <stddef.h>

#include "viz/explain.h"

/* The closed form of the wave law for a class, by its workers' queue
 * (docs/viz.md): processor sharing where the queue serves its actors in
 * turn (round robin), FIFO where each actor's CPU ran in one slice (run to
 * completion), none otherwise (why says why). */
typedef enum { TS_EXPLAIN_LAW_PS, TS_EXPLAIN_LAW_FIFO, TS_EXPLAIN_LAW_NONE } ts_explain_law_kind;

/* Whether actor a counts in its class's means: visible, and its wave ended
 * (an actor the horizon stopped has no wave). */
int ts_explain_has_wave(const ts_timeline *tl, int a, int k);
/* Per-class mean of queued + loop CPU in ref (n = 1), into c1[nclasses]. */
void ts_explain_ref_cpu(const ts_timeline *ref, const ts_explain_actor *rx, double *c1);
/* Actors of tl grouped by worker: by[at[w] .. at[w + 1]). Returns 0 or -1
 * (memory; the caller frees both). */
int ts_explain_by_worker(const ts_timeline *tl, int **by, int **at);
/* The form for class k: its pool's policy serves in turn when it is fifo
 * (without preemption), or any other policy but shortest_first while every
 * actor sharing the class's waves has one queue class (each then takes the
 * oldest); FIFO when besides every such actor's CPU in its wave (x: its
 * slices there, as c counts its CPU there) ran in one slice. */
ts_explain_law_kind ts_explain_law_kind_of(const ts_timeline *tl, const ts_explain_actor *x, int k, const int *by,
                                           const int *at, char *why, size_t cap);
/* The law's CPU term for class k, mean over its actors with a wave: at this
 * n (*at_n, from each actor's own CPU) and from n = 1 (*from1, its class's
 * CPU at n = 1, c1; NULL: none). Returns 0 or -1 (memory). */
int ts_explain_law_means(const ts_timeline *tl, const ts_explain_actor *x, int k, ts_explain_law_kind kind,
                         const double *c1, const int *by, const int *at, double *at_n, double *from1);
/* Whether a cpu step of random demand ran inside the wave of an actor of
 * class k (its pieces there: a random connect before the wave moves no CPU
 * of the law). */
int ts_explain_random_in_wave(const ts_timeline *tl, int k);
/* Whether a priority operation was in flight on the worker of an actor of
 * class k during its wave (tl's prio_inflight counter above 0 there: the
 * worker's yield threshold was divided, ts__worker_threshold), its pool's
 * threshold finite. 1, 0, or -1 (memory). */
int ts_explain_priority_in_wave(const ts_timeline *tl, int k);

#endif
