/* FIFO: the head runs next; a yielding actor rejoins the tail (round robin). */
#include "sched/policy.h"

static size_t pick(ts_sched_queue *q)
{
  (void)q;
  return 0;
}

const ts_sched_type ts_sched_fifo = {
  .name = "fifo",
  .summary = "arrival order; a yielding actor rejoins the tail (round robin)",
  .pick = pick,
};
