/* Strict priority: the oldest item of the highest class queued (foreground,
 * then normal, then background); FIFO within a class. Low classes can starve. */
#include "sched/policy.h"

static size_t pick(ts_sched_queue *q)
{
  size_t best = 0;
  for (size_t i = 1; i < q->len; i++)
    if (ts_sched_queue_at(q, i)->klass < ts_sched_queue_at(q, best)->klass)
      best = i;
  return best;
}

const ts_sched_type ts_sched_strict_priority = {
  .name = "strict_priority",
  .summary = "highest class first (foreground, normal, background), FIFO within a class",
  .pick = pick,
};
