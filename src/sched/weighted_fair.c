/* Weighted fair queueing between the classes. Each class c has a weight w_c
 * and a virtual time v_c (service received per unit of weight). The next item
 * is the oldest of the backlogged class with the least v_c (ties: the higher
 * class); taking it adds its work (1 when it declares none) divided by w_c.
 * A class that was idle starts from the least v of the backlogged classes,
 * so idleness earns no credit. Over a long backlog each class gets service
 * in proportion to its weight. */
#include "sched/policy.h"

static size_t pick(ts_sched_queue *q)
{
  size_t first[TS_NCLASSES];
  for (int c = 0; c < TS_NCLASSES; c++)
    first[c] = q->len;
  for (size_t i = q->len; i-- > 0;)
    first[ts_sched_queue_at(q, i)->klass] = i;
  int best = -1;
  double floor_v = 0;
  for (int c = 0; c < TS_NCLASSES; c++)
    if (first[c] < q->len && (best < 0 || q->vtime[c] < floor_v)) {
      best = c;
      floor_v = q->vtime[c];
    }
  for (int c = 0; c < TS_NCLASSES; c++)
    if (first[c] == q->len && q->vtime[c] < floor_v)
      q->vtime[c] = floor_v; /* idle classes bank nothing */
  const ts_sched_item *it = ts_sched_queue_at(q, first[best]);
  double w = q->p.weights[best] > 0 ? q->p.weights[best] : 1;
  q->vtime[best] += (double)(it->work > 0 ? it->work : 1) / w;
  return first[best];
}

const ts_sched_type ts_sched_weighted_fair = {
  .name = "weighted_fair",
  .summary = "classes share service in proportion to their weights (WFQ), FIFO within a class",
  .pick = pick,
};
