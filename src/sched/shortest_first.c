/* Shortest first: the item with the least declared remaining work; ties (and
 * items that declare none, as 0) in arrival order. */
#include "sched/policy.h"

static size_t pick(ts_sched_queue *q)
{
  size_t best = 0;
  for (size_t i = 1; i < q->len; i++)
    if (ts_sched_queue_at(q, i)->work < ts_sched_queue_at(q, best)->work)
      best = i;
  return best;
}

const ts_sched_type ts_sched_shortest_first = {
  .name = "shortest_first",
  .summary = "least declared remaining work first, ties in arrival order",
  .pick = pick,
};
