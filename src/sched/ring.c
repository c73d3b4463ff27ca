#include "sched/ring.h"

#include <stdlib.h>

void ts_ring_init(ts_ring *r)
{
  r->v = NULL;
  r->head = r->len = r->cap = 0;
}

void ts_ring_finish(ts_ring *r)
{
  free(r->v);
  ts_ring_init(r);
}

int ts_ring_push_grow(ts_ring *r, int x)
{
  if (r->len == r->cap) {
    size_t cap = r->cap ? r->cap * 2 : 16;
    int *v = malloc(cap * sizeof *v);
    if (!v)
      return -1;
    for (size_t i = 0; i < r->len; i++)
      v[i] = r->v[(r->head + i) & (r->cap - 1)];
    free(r->v);
    r->v = v;
    r->head = 0;
    r->cap = cap;
  }
  r->v[(r->head + r->len) & (r->cap - 1)] = x;
  r->len++;
  return 0;
}

int ts_ring_at(const ts_ring *r, size_t i)
{
  return r->v[(r->head + i) & (r->cap - 1)];
}

int ts_ring_push_front(ts_ring *r, int x)
{
  if (r->len == r->cap) { /* full: grow by a push, then rotate the new item to the head */
    if (ts_ring_push_grow(r, x) != 0)
      return -1;
    for (size_t k = r->len - 1; k > 0; k--)
      r->v[(r->head + k) & (r->cap - 1)] = r->v[(r->head + k - 1) & (r->cap - 1)];
    r->v[r->head] = x;
    return 0;
  }
  r->head = (r->head + r->cap - 1) & (r->cap - 1);
  r->v[r->head] = x;
  r->len++;
  return 0;
}

int ts_ring_remove_at(ts_ring *r, size_t i)
{
  if (i == 0)
    return ts_ring_pop(r);
  int x = ts_ring_at(r, i);
  for (size_t k = i; k + 1 < r->len; k++)
    r->v[(r->head + k) & (r->cap - 1)] = r->v[(r->head + k + 1) & (r->cap - 1)];
  r->len--;
  return x;
}

int ts_ring_remove(ts_ring *r, int x)
{
  for (size_t i = 0; i < r->len; i++)
    if (ts_ring_at(r, i) == x) {
      ts_ring_remove_at(r, i);
      return 1;
    }
  return 0;
}
