/* Queue policies, as a const type table chosen by name (the way GSL picks
 * gsl_rng_mt19937). Any queue of waiting work uses them: a worker's
 * time-slice queue and a server's request queue alike. A new policy is one
 * file with one ts_sched_type plus one line in policy.c's table.
 *
 * A queue holds items in arrival order; each item is an actor id with a
 * priority class (TS_CLASS_*) and its declared remaining work in ns (0 when
 * not declared). A policy decides only which queued item runs next; the
 * worker or server decides when. */
#ifndef TS_POLICY_H
#define TS_POLICY_H
#include <stddef.h>
#include <stdint.h>

enum { TS_CLASS_FOREGROUND = 0, TS_CLASS_NORMAL = 1, TS_CLASS_BACKGROUND = 2, TS_NCLASSES = 3 };

typedef struct ts_sched_item {
  int actor;
  int klass;
  int64_t work;       /* declared remaining work (ns), 0 = unknown */
} ts_sched_item;

/* A policy's parameters, from the model. */
typedef struct ts_sched_params {
  int burst_limit;                 /* priority_barrier: foreground jobs in a row (MAX_FOREGROUND_BURST) */
  double weights[TS_NCLASSES];     /* weighted_fair: share of each class */
} ts_sched_params;

typedef struct ts_sched_queue {
  ts_sched_item *v;   /* ring: items at v[(head + i) & (cap - 1)] */
  size_t head, len, cap;
  ts_sched_params p;
  int run_streak;     /* priority_barrier: foreground jobs run in a row */
  double vtime[TS_NCLASSES]; /* weighted_fair: service per unit weight */
} ts_sched_queue;

typedef struct ts_sched_type {
  const char *name;
  const char *summary;
  /* Index (from the head) of the item to run next; only called when len > 0.
   * May update the queue's policy state (it is then taken). */
  size_t (*pick)(ts_sched_queue *q);
} ts_sched_type;

extern const ts_sched_type ts_sched_fifo;
extern const ts_sched_type ts_sched_priority_barrier;
extern const ts_sched_type ts_sched_strict_priority;
extern const ts_sched_type ts_sched_shortest_first;
extern const ts_sched_type ts_sched_weighted_fair;

/* The queue classes' names by TS_CLASS_* ("foreground", "normal",
 * "background"), NULL after the last. */
extern const char *const ts_sched_class_names[TS_NCLASSES + 1];

/* The TS_CLASS_* of a queue class's name, or -1. */
int ts_sched_class_of(const char *name);

/* The policy with this name ("priority" is accepted for priority_barrier), or NULL. */
const ts_sched_type *ts_sched_find(const char *name);
/* The NULL-terminated table of all policies (for --help and errors). */
const ts_sched_type *const *ts_sched_all(void);
/* The default parameters: burst limit 8, weights 4 : 2 : 1. */
ts_sched_params ts_sched_default_params(void);

/* Initialise an empty queue with a policy's parameters. */
void ts_sched_queue_init(ts_sched_queue *q, const ts_sched_params *p);
/* Free a queue's storage. */
void ts_sched_queue_finish(ts_sched_queue *q);
/* Append an item. Returns 0 or -1 when memory runs out. */
int ts_sched_queue_push(ts_sched_queue *q, int actor, int klass, int64_t work);
/* Remove and return the actor the policy picks, or -1 when empty. */
int ts_sched_queue_pop(ts_sched_queue *q, const ts_sched_type *type);
/* Remove the item of `actor` (a waiter that gave up), keeping the order of
 * the rest. Returns 1 if it was queued, else 0. */
int ts_sched_queue_remove(ts_sched_queue *q, int actor);
/* Number of queued items. */
static inline size_t ts_sched_queue_len(const ts_sched_queue *q)
{
  return q->len;
}
/* The i-th item from the head (0 <= i < len). */
const ts_sched_item *ts_sched_queue_at(const ts_sched_queue *q, size_t i);

#endif
