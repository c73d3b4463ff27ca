#include "engine/heap.h"

#include <stdlib.h>

static int less(const ts_event *a, const ts_event *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  return a->seq < b->seq;
}

void ts_heap_init(ts_heap *h)
{
  h->v = NULL;
  h->len = 0;
  h->cap = 0;
}

void ts_heap_finish(ts_heap *h)
{
  free(h->v);
  ts_heap_init(h);
}

int ts_heap_push(ts_heap *h, const ts_event *ev)
{
  if (h->len == h->cap) {
    size_t cap = h->cap ? h->cap * 2 : 64;
    ts_event *v = realloc(h->v, cap * sizeof *v);
    if (!v)
      return -1;
    h->v = v;
    h->cap = cap;
  }
  size_t i = h->len++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!less(ev, &h->v[parent]))
      break;
    h->v[i] = h->v[parent];
    i = parent;
  }
  h->v[i] = *ev;
  return 0;
}

int ts_heap_pop(ts_heap *h, ts_event *out)
{
  if (h->len == 0)
    return 0;
  *out = h->v[0];
  ts_event last = h->v[--h->len];
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= h->len)
      break;
    if (child + 1 < h->len && less(&h->v[child + 1], &h->v[child]))
      child++;
    if (!less(&h->v[child], &last))
      break;
    h->v[i] = h->v[child];
    i = child;
  }
  if (h->len > 0)
    h->v[i] = last;
  return 1;
}

const ts_event *ts_heap_peek(const ts_heap *h)
{
  return h->len ? &h->v[0] : NULL;
}
