#include "sched/policy.h"

#include <string.h>

static const ts_sched_type *const all[] = {&ts_sched_fifo, &ts_sched_priority, NULL};

const ts_sched_type *ts_sched_find(const char *name)
{
  for (size_t i = 0; all[i]; i++)
    if (strcmp(all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

const ts_sched_type *const *ts_sched_all(void)
{
  return all;
}

void ts_sched_queue_init(ts_sched_queue *q, int burst_limit)
{
  ts_ring_init(&q->ids);
  ts_ring_init(&q->classes);
  q->run_streak = 0;
  q->burst_limit = burst_limit;
}

void ts_sched_queue_finish(ts_sched_queue *q)
{
  ts_ring_finish(&q->ids);
  ts_ring_finish(&q->classes);
}

int ts_sched_queue_push(ts_sched_queue *q, int actor, int klass)
{
  if (ts_ring_push(&q->ids, actor) != 0)
    return -1;
  if (ts_ring_push(&q->classes, klass) != 0) {
    q->ids.len--;
    return -1;
  }
  return 0;
}

int ts_sched_queue_pop(ts_sched_queue *q, const ts_sched_type *type)
{
  if (q->ids.len == 0)
    return -1;
  size_t i = type->pick(q);
  ts_ring_remove_at(&q->classes, i);
  return ts_ring_remove_at(&q->ids, i);
}

size_t ts_sched_queue_len(const ts_sched_queue *q)
{
  return q->ids.len;
}
