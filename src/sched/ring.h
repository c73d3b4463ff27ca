/* A growable FIFO ring of ints (actor ids). Invariant: items occupy
 * v[(head + i) & (cap - 1)] for 0 <= i < len, and cap is 0 or a power of two. */
#ifndef TS_RING_H
#define TS_RING_H
#include <stddef.h>

typedef struct ts_ring {
  int *v;
  size_t head;
  size_t len;
  size_t cap;
} ts_ring;

/* Initialise an empty ring in caller memory. */
void ts_ring_init(ts_ring *r);
/* Free storage; the ring is empty afterwards. */
void ts_ring_finish(ts_ring *r);
/* Append x at the tail, growing the ring (the slow part of ts_ring_push). */
int ts_ring_push_grow(ts_ring *r, int x);
/* Append x at the tail. Returns 0, or -1 when memory runs out. */
static inline int ts_ring_push(ts_ring *r, int x)
{
  if (r->len == r->cap)
    return ts_ring_push_grow(r, x);
  r->v[(r->head + r->len) & (r->cap - 1)] = x;
  r->len++;
  return 0;
}
/* Put x at the head (before every other item). Returns 0, or -1 when memory runs out. */
int ts_ring_push_front(ts_ring *r, int x);
/* Remove and return the head, or -1 when empty. */
static inline int ts_ring_pop(ts_ring *r)
{
  if (r->len == 0)
    return -1;
  int x = r->v[r->head];
  r->head = (r->head + 1) & (r->cap - 1);
  r->len--;
  return x;
}
/* The i-th item from the head (0 <= i < len). */
int ts_ring_at(const ts_ring *r, size_t i);
/* Remove the i-th item from the head, keeping the order of the rest. */
int ts_ring_remove_at(ts_ring *r, size_t i);
/* Remove the first item equal to x, keeping the order of the rest. Returns 1
 * if it was there, else 0. */
int ts_ring_remove(ts_ring *r, int x);

#endif
