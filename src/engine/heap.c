#include "engine/heap.h"

#include <stdlib.h>

void ts_heap_init(ts_heap *h)
{
  h->v = NULL;
  h->len = 0;
  h->cap = 0;
  h->run = NULL;
  h->run_head = 0;
  h->run_len = 0;
  h->run_cap = 0;
  h->run_last_time = 0;
  h->run_last_seq = 0;
}

void ts_heap_finish(ts_heap *h)
{
  free(h->v);
  free(h->run);
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
    if (child + 1 < len && ts_event_before(&v[child + 1], &v[child]))
      child++;
    if (!ts_event_before(&v[child], &key))
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

/* Whether ev belongs at the run's tail: the run is empty or ev is not
 * before its last event. */
static inline int fits_run(const ts_heap *h, const ts_event *ev)
{
  return h->run_len == 0 || !ts__event_before_key(ev, h->run_last_time, h->run_last_seq);
}

/* Double the run's ring, keeping its order. Returns 0 or -1. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int grow_run(ts_heap *h)
{
  size_t cap = h->run_cap ? h->run_cap * 2 : 64;
  ts_event *r = malloc(cap * sizeof *r);
  if (!r)
    return -1;
  for (size_t i = 0; i < h->run_len; i++)
    r[i] = h->run[(h->run_head + i) & (h->run_cap - 1)];
  free(h->run);
  h->run = r;
  h->run_head = 0;
  h->run_cap = cap;
  return 0;
}

/* Double the heap's array. Returns 0 or -1. (Both growers out of line:
 * rare, they stay out of the inlined pushes.) */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int grow_heap(ts_heap *h)
{
  size_t cap = h->cap ? h->cap * 2 : 64;
  ts_event *v = realloc(h->v, cap * sizeof *v);
  if (!v)
    return -1;
  h->v = v;
  h->cap = cap;
  return 0;
}

/* (run_append, heap_push and heap_drop_top are inlined into each caller:
 * the out-of-line replace paths below then do their work in one frame, not
 * in a call from a call.) */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int run_append(ts_heap *h, const ts_event *ev)
{
  if (h->run_len == h->run_cap && grow_run(h) != 0)
    return -1;
  put(h->run, (h->run_head + h->run_len) & (h->run_cap - 1), ev);
  h->run_len++;
  h->run_last_time = ev->time;
  h->run_last_seq = ev->seq;
  return 0;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline int heap_push(ts_heap *h, const ts_event *ev)
{
  if (h->len == h->cap && grow_heap(h) != 0)
    return -1;
  size_t i = h->len++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!ts_event_before(ev, &h->v[parent]))
      break;
    h->v[i] = h->v[parent];
    i = parent;
  }
  put(h->v, i, ev);
  return 0;
}

int ts_heap_push(ts_heap *h, const ts_event *ev)
{
  return fits_run(h, ev) ? run_append(h, ev) : heap_push(h, ev);
}

/* Whether the least event is the run's head (the list is not empty). */
static inline int least_in_run(const ts_heap *h)
{
  return h->run_len > 0 && (h->len == 0 || ts_event_before(&h->run[h->run_head], &h->v[0]));
}

static void run_drop_head(ts_heap *h)
{
  h->run_head = (h->run_head + 1) & (h->run_cap - 1);
  h->run_len--;
}

#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline void heap_drop_top(ts_heap *h)
{
  ts_event last = h->v[--h->len];
  if (h->len > 0)
    h->v[sift_down_hole(h->v, h->len, last.time, last.seq)] = last;
}

void ts__heap_drop_heap_top(ts_heap *h)
{
  heap_drop_top(h);
}

int ts_heap_pop(ts_heap *h, ts_event *out)
{
  if (ts_heap_size(h) == 0)
    return 0;
  if (least_in_run(h)) {
    *out = h->run[h->run_head];
    run_drop_head(h);
  } else {
    *out = h->v[0];
    heap_drop_top(h);
  }
  return 1;
}

/* Both kept out of line (GCC and clang): inlined, their sifts make every
 * caller of ts_heap_replace_top save and restore registers even in the fast
 * case. The inline part found where the least event is: they do not look
 * again. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
int ts__heap_replace_run_head(ts_heap *h, const ts_event *ev)
{
  ts_event e = {.time = ev->time, .seq = ev->seq, .kind = ev->kind, .obj = ev->obj, .gen = ev->gen}; /* (ev may point into the list) */
  run_drop_head(h);
  if (h->run_len == 0) /* ts_heap_push's choice: an empty run takes it */
    return run_append(h, &e);
  return heap_push(h, &e); /* ev is before the run's last, which stays */
}

/* replace_heap_top_slow when ev joins the run: the heap's top leaves, ev
 * goes to the run's tail (out of line: the sift below saves fewer
 * registers without it). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int replace_heap_top_to_run(ts_heap *h, const ts_event *ev)
{
  ts_event e = *ev; /* (ev may point into the list) */
  heap_drop_top(h);
  return run_append(h, &e);
}

/* ts__heap_replace_heap_top past its common case. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int replace_heap_top_slow(ts_heap *h, const ts_event *ev)
{
  if (!ts__event_before_key(ev, h->run_last_time, h->run_last_seq)) /* fits_run: the run is not empty (the heap is not) */
    return replace_heap_top_to_run(h, ev);
  ts_time time = ev->time; /* (read before the sift: ev may point into the list) */
  uint64_t seq = ev->seq;
  int kind = ev->kind;
  int32_t obj = ev->obj;
  uint32_t gen = ev->gen;
  ts_event *to = &h->v[sift_down_hole(h->v, h->len, time, seq)];
  to->time = time;
  to->seq = seq;
  to->kind = kind;
  to->obj = obj;
  to->gen = gen;
  return 0;
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
int ts__heap_replace_heap_top(ts_heap *h, const ts_event *ev)
{
  ts_event *v = h->v;
  size_t len = h->len;
  if (len > 2 ? ev->time < v[1].time && ev->time < v[2].time
              : ev->time < (len == 2 ? v[1].time : h->run_last_time)) {
    /* ev stays the heap's top: it precedes the heap's second level (or the
     * other heap event, or with the top alone, the run's last), and so the
     * run's last (it does not join the run). The common case: a handler's
     * follow-up runs next. No registers to save, no sift. */
    put(v, 0, ev);
    return 0;
  }
  return replace_heap_top_slow(h, ev);
}
