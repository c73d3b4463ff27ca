/* Queue policies for a worker's time-slice queue, as a const type table
 * chosen by name (the way GSL picks gsl_rng_mt19937). A new policy is one
 * file with one ts_sched_type plus one line in policy.c's table.
 *
 * Items are actor ids with a priority class (TS_CLASS_*). A policy decides
 * only which queued item runs next; the worker decides when. */
#ifndef TS_POLICY_H
#define TS_POLICY_H
#include <stddef.h>

#include "sched/ring.h"

enum { TS_CLASS_FOREGROUND = 0, TS_CLASS_NORMAL = 1, TS_CLASS_BACKGROUND = 2 };

typedef struct ts_sched_queue {
  ts_ring ids;       /* queued actor ids, in arrival order */
  ts_ring classes;   /* their classes, same positions */
  int run_streak;    /* policy scratch: e.g. foreground jobs run in a row */
  int burst_limit;   /* policy parameter (priority: MAX_FOREGROUND_BURST) */
} ts_sched_queue;

typedef struct ts_sched_type {
  const char *name;
  const char *summary;
  /* Index (from the head) of the item to run next; only called when len > 0. */
  size_t (*pick)(ts_sched_queue *q);
} ts_sched_type;

extern const ts_sched_type ts_sched_fifo;
extern const ts_sched_type ts_sched_priority;

/* The policy with this name, or NULL. */
const ts_sched_type *ts_sched_find(const char *name);
/* The NULL-terminated table of all policies (for --help and errors). */
const ts_sched_type *const *ts_sched_all(void);

/* Initialise an empty queue. */
void ts_sched_queue_init(ts_sched_queue *q, int burst_limit);
/* Free a queue's storage. */
void ts_sched_queue_finish(ts_sched_queue *q);
/* Append an actor of a class. Returns 0 or -1 when memory runs out. */
int ts_sched_queue_push(ts_sched_queue *q, int actor, int klass);
/* Remove and return the actor the policy picks, or -1 when empty. */
int ts_sched_queue_pop(ts_sched_queue *q, const ts_sched_type *type);
/* Number of queued actors. */
size_t ts_sched_queue_len(const ts_sched_queue *q);

#endif
