#include "engine/heap.h"

#include <stdlib.h>

static inline int less(const ts_event *a, const ts_event *b)
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

/* The index where an event of key (t, seq) settles when sifted down from
 * the hole at the root of v[0..len), moving the events above it up. */
static inline size_t sift_down_hole(ts_event *v, size_t len, ts_time t, uint64_t seq)
{
  ts_event key = {.time = t, .seq = seq};
  size_t i = 0;
  for (;;) {
    size_t child = 2 * i + 1;
    if (child >= len)
      break;
    if (child + 1 < len && less(&v[child + 1], &v[child]))
      child++;
    if (!less(&v[child], &key))
      break;
    v[i] = v[child];
    i = child;
  }
  return i;
}

/* Store ev at v[i] field by field: an event just built field by field is
 * then never read back whole (a wide load of narrow fresh stores stalls). */
static inline void put(ts_event *v, size_t i, const ts_event *ev)
{
  v[i].time = ev->time;
  v[i].seq = ev->seq;
  v[i].kind = ev->kind;
  v[i].obj = ev->obj;
  v[i].gen = ev->gen;
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
  put(h->v, i, ev);
  return 0;
}

int ts_heap_pop(ts_heap *h, ts_event *out)
{
  if (h->len == 0)
    return 0;
  *out = h->v[0];
  ts_event last = h->v[--h->len];
  if (h->len > 0)
    h->v[sift_down_hole(h->v, h->len, last.time, last.seq)] = last;
  return 1;
}

void ts_heap_replace_top(ts_heap *h, const ts_event *ev)
{
  ts_event e = {.time = ev->time, .seq = ev->seq, .kind = ev->kind, .obj = ev->obj, .gen = ev->gen};
  put(h->v, sift_down_hole(h->v, h->len, e.time, e.seq), &e); /* (ev may point into the heap) */
}
