/* The future-event list: events ordered by (time, seq). seq is assigned at
 * insertion and strictly increases, so events at equal times run in the
 * order they were scheduled (FIFO), on every machine.
 *
 * Two parts hold the events: a binary min-heap, and a sorted run (a ring of
 * events in increasing order) that takes every event not less than the
 * run's last one. A simulation schedules most events later than all pending
 * ones (a slice's end, a round robin's next turn), so those cost a ring
 * append instead of a sift; the rest go to the heap. The least event is the
 * lesser of the heap's top and the run's head.
 * Invariants: v[(i - 1) / 2] precedes v[i] for 0 < i < len; run[(run_head +
 * i) & (run_cap - 1)] precedes run[(run_head + i + 1) & (run_cap - 1)] for
 * 0 <= i + 1 < run_len; run_cap is 0 or a power of two; while run_len > 0,
 * (run_last_time, run_last_seq) is the run's last event's key; every event
 * in the heap precedes the run's last (an event joins the heap only then,
 * and the run's last only grows), so the run empties only with the heap. */
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
  ts_event *v;   /* the binary heap */
  size_t len;
  size_t cap;
  ts_event *run; /* the sorted run, a ring */
  size_t run_head;
  size_t run_len;
  size_t run_cap;
  ts_time run_last_time; /* with run_last_seq, the run's last event's key: */
  uint64_t run_last_seq; /* whether an event joins the run is one compare */
} ts_heap;

/* Initialise an empty list in caller-provided memory. */
void ts_heap_init(ts_heap *h);
/* Free the list's storage; it is empty and reusable afterwards. */
void ts_heap_finish(ts_heap *h);
/* Insert ev. Returns 0, or -1 when memory runs out (the list is unchanged). */
int ts_heap_push(ts_heap *h, const ts_event *ev);
/* Remove the least event into *out. Returns 1, or 0 when the list is empty. */
int ts_heap_pop(ts_heap *h, ts_event *out);
/* Whether event a runs before event b. */
static inline int ts_event_before(const ts_event *a, const ts_event *b)
{
  if (a->time != b->time)
    return a->time < b->time;
  return a->seq < b->seq;
}

/* Whether event a runs before the event of key (time, seq). */
static inline int ts__event_before_key(const ts_event *a, ts_time time, uint64_t seq)
{
  if (a->time != time)
    return a->time < time;
  return a->seq < seq;
}

/* The number of events in the list. */
static inline size_t ts_heap_size(const ts_heap *h)
{
  return h->len + h->run_len;
}

/* The least event without removing it, or NULL when empty. */
static inline const ts_event *ts_heap_peek(const ts_heap *h)
{
  const ts_event *top = h->len ? &h->v[0] : NULL;
  if (h->run_len == 0)
    return top;
  const ts_event *head = &h->run[h->run_head];
  return top && ts_event_before(top, head) ? top : head;
}

/* Whether ev runs before every event of the list but its least (the list
 * is not empty; in_run as ts_heap_drop_least_at's): the events after the
 * run's head are after its second, those in the heap after its top's
 * children. */
static inline int ts_heap_before_rest(const ts_heap *h, const ts_event *ev, int in_run)
{
  if (in_run)
    return (h->run_len < 2 || ts_event_before(ev, &h->run[(h->run_head + 1) & (h->run_cap - 1)])) &&
           (h->len == 0 || ts_event_before(ev, &h->v[0]));
  return (h->len < 2 || ts_event_before(ev, &h->v[1])) && (h->len < 3 || ts_event_before(ev, &h->v[2])) &&
         (h->run_len == 0 || ts_event_before(ev, &h->run[h->run_head]));
}

/* ts_heap_drop_least_at when the least is the heap's top. */
void ts__heap_drop_heap_top(ts_heap *h);

/* Remove the least event (the list must not be empty): in_run is 1 when it
 * is the run's head, 0 when it is the heap's top (what ts_heap_peek told).
 * The same as ts_heap_pop without the copy and the search. */
static inline void ts_heap_drop_least_at(ts_heap *h, int in_run)
{
  if (in_run) {
    h->run_head = (h->run_head + 1) & (h->run_cap - 1);
    h->run_len--;
    return;
  }
  ts__heap_drop_heap_top(h);
}

/* ts_heap_replace_top when the fast case does not apply: the least event is
 * the run's head and ev is before the run's last event (run_head), or the
 * least is the heap's top (heap_top). */
int ts__heap_replace_run_head(ts_heap *h, const ts_event *ev);
int ts__heap_replace_heap_top(ts_heap *h, const ts_event *ev);

/* ts_heap_replace_top_at's case where the least event is the run's head
 * and ev goes to the run's tail: the ring turns by one. */
static inline void ts__heap_run_turn(ts_heap *h, const ts_event *ev)
{
  size_t mask = h->run_cap - 1;
  ts_event e = *ev; /* (ev may point into the list) */
  h->run[(h->run_head + h->run_len) & mask] = e; /* the head's slot when the ring is full: it leaves */
  h->run_head = (h->run_head + 1) & mask;
  h->run_last_time = e.time;
  h->run_last_seq = e.seq;
}

/* ts_heap_replace_top when the caller knows where the least event is:
 * in_run is 1 when it is the run's head, 0 when it is the heap's top (what
 * ts_heap_peek told: the run's head unless the heap's top runs before it).
 * Events then come out exactly as after a pop and a push. */
static inline int ts_heap_replace_top_at(ts_heap *h, const ts_event *ev, int in_run)
{
  if (in_run) {
    if (!ts__event_before_key(ev, h->run_last_time, h->run_last_seq)) {
      ts__heap_run_turn(h, ev);
      return 0;
    }
    return ts__heap_replace_run_head(h, ev);
  }
  return ts__heap_replace_heap_top(h, ev);
}

/* ts_heap_replace_top_at for an event newer than every event in the list
 * (a seq greater than theirs, as ts_sim_at gives): at an equal time it runs
 * after the run's last, so whether it joins the run is one compare of
 * times. Events then come out exactly as after a pop and a push. */
static inline int ts_heap_replace_top_newest_at(ts_heap *h, const ts_event *ev, int in_run)
{
  if (in_run) {
    if (ev->time >= h->run_last_time) {
      ts__heap_run_turn(h, ev);
      return 0;
    }
    return ts__heap_replace_run_head(h, ev);
  }
  return ts__heap_replace_heap_top(h, ev);
}

/* Remove the least event and insert ev (the list must not be empty): what a
 * handler that schedules its own follow-up needs. Events then come out
 * exactly as after a pop and a push. The common cases are a few stores:
 * the least is the run's head and ev goes to the run's tail, or the least
 * is the heap's top and ev is earlier than its children (it stays on top);
 * otherwise one sift when both are in the heap. Returns 0, or -1 when
 * memory runs out (the least event is removed, ev is not inserted). */
static inline int ts_heap_replace_top(ts_heap *h, const ts_event *ev)
{
  return ts_heap_replace_top_at(h, ev, h->run_len > 0 && (h->len == 0 || ts_event_before(&h->run[h->run_head], &h->v[0])));
}

#endif
