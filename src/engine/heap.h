/* The future-event list: a binary min-heap of events ordered by (time, seq).
 * seq is assigned at insertion and strictly increases, so events at equal
 * times run in the order they were scheduled (FIFO), on every machine.
 * Invariant: v[(i - 1) / 2] precedes v[i] for 0 < i < len. */
#ifndef TS_HEAP_H
#define TS_HEAP_H
#include <stddef.h>
#include <stdint.h>

#include "engine/time.h"

typedef struct ts_event {
  ts_time time;
  uint64_t seq;
  int kind;      /* index into the simulation's handler table */
  int32_t obj;   /* the object the event is about (worker, actor...) */
  uint32_t gen;  /* generation stamp: lets an owner ignore superseded events */
} ts_event;

typedef struct ts_heap {
  ts_event *v;
  size_t len;
  size_t cap;
} ts_heap;

/* Initialise an empty heap in caller-provided memory. */
void ts_heap_init(ts_heap *h);
/* Free the heap's storage; the heap is empty and reusable afterwards. */
void ts_heap_finish(ts_heap *h);
/* Insert ev. Returns 0, or -1 when memory runs out (the heap is unchanged). */
int ts_heap_push(ts_heap *h, const ts_event *ev);
/* Remove the least event into *out. Returns 1, or 0 when the heap is empty. */
int ts_heap_pop(ts_heap *h, ts_event *out);
/* Remove the least event and insert ev, in one pass (the heap must not be
 * empty): what a handler that schedules its own follow-up needs. The heap
 * then holds what a pop followed by a push would leave (the order in which
 * events come out is the same; only the array may differ). */
void ts_heap_replace_top(ts_heap *h, const ts_event *ev);
/* The least event without removing it, or NULL when empty. */
static inline const ts_event *ts_heap_peek(const ts_heap *h)
{
  return h->len ? &h->v[0] : NULL;
}

#endif
