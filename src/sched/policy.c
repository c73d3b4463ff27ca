#include "sched/policy.h"

#include <stdlib.h>
#include <string.h>

static const ts_sched_type *const all[] = {&ts_sched_fifo, &ts_sched_priority_barrier, &ts_sched_strict_priority,
                                           &ts_sched_shortest_first, &ts_sched_weighted_fair, NULL};

const char *const ts_sched_class_names[TS_NCLASSES + 1] = {"foreground", "normal", "background", NULL};

int ts_sched_class_of(const char *name)
{
  for (int k = 0; k < TS_NCLASSES; k++)
    if (strcmp(name, ts_sched_class_names[k]) == 0)
      return k;
  return -1;
}

const ts_sched_type *ts_sched_find(const char *name)
{
  if (strcmp(name, "priority") == 0)
    return &ts_sched_priority_barrier;
  for (size_t i = 0; all[i]; i++)
    if (strcmp(all[i]->name, name) == 0)
      return all[i];
  return NULL;
}

const ts_sched_type *const *ts_sched_all(void)
{
  return all;
}

ts_sched_params ts_sched_default_params(void)
{
  return (ts_sched_params){.burst_limit = 8, .weights = {4, 2, 1}};
}

void ts_sched_queue_init(ts_sched_queue *q, const ts_sched_params *p)
{
  memset(q, 0, sizeof *q);
  q->p = p ? *p : ts_sched_default_params();
}

void ts_sched_queue_finish(ts_sched_queue *q)
{
  free(q->v);
  q->v = NULL;
  q->head = q->len = q->cap = 0;
}

int ts_sched_queue_push(ts_sched_queue *q, int actor, int klass, int64_t work)
{
  if (q->len == q->cap) {
    size_t cap = q->cap ? q->cap * 2 : 16;
    ts_sched_item *v = malloc(cap * sizeof *v);
    if (!v)
      return -1;
    for (size_t i = 0; i < q->len; i++)
      v[i] = q->v[(q->head + i) & (q->cap - 1)];
    free(q->v);
    q->v = v;
    q->head = 0;
    q->cap = cap;
  }
  q->v[(q->head + q->len) & (q->cap - 1)] = (ts_sched_item){actor, klass, work};
  q->len++;
  return 0;
}

const ts_sched_item *ts_sched_queue_at(const ts_sched_queue *q, size_t i)
{
  return &q->v[(q->head + i) & (q->cap - 1)];
}

/* Remove the i-th item from the head, keeping the order of the rest; its actor. */
static int remove_at(ts_sched_queue *q, size_t i)
{
  size_t mask = q->cap - 1;
  int actor = q->v[(q->head + i) & mask].actor;
  if (i == 0) {
    q->head = (q->head + 1) & mask;
  } else {
    for (size_t k = i; k + 1 < q->len; k++)
      q->v[(q->head + k) & mask] = q->v[(q->head + k + 1) & mask];
  }
  q->len--;
  return actor;
}

int ts_sched_queue_pop(ts_sched_queue *q, const ts_sched_type *type)
{
  if (q->len == 0)
    return -1;
  return remove_at(q, type == &ts_sched_fifo ? 0 : type->pick(q));
}

int ts_sched_queue_remove(ts_sched_queue *q, int actor)
{
  for (size_t i = 0; i < q->len; i++)
    if (q->v[(q->head + i) & (q->cap - 1)].actor == actor) {
      remove_at(q, i);
      return 1;
    }
  return 0;
}
