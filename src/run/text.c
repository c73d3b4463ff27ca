/* Growable text (ts_text), for the samples of a replication: kept whole,
 * or handed to its flush beyond TS_TEXT_FLUSH bytes as it grows. Once
 * failed is set (TS_TEXT_NOMEM: memory ran out; TS_TEXT_FLUSH: the flush
 * failed) every call fails. */
#include "run/sweep.h"

#include <stdlib.h>

int ts_text_drain(ts_text *t)
{
  if (t->flush && t->len > 0 && !t->failed) {
    if (t->flush(t->ctx, t->v, t->len) != 0)
      t->failed = TS_TEXT_FLUSH;
    t->len = 0;
  }
  return t->failed ? -1 : 0;
}

int ts_text_reserve(ts_text *t, size_t more)
{
  if (t->failed)
    return -1;
  if (t->flush && t->len >= TS_TEXT_FLUSH && ts_text_drain(t))
    return -1;
  if (t->len + more <= t->cap)
    return 0;
  size_t cap = t->cap ? t->cap : 4096;
  while (cap < t->len + more)
    cap *= 2;
  char *v = realloc(t->v, cap);
  if (!v) {
    t->failed = TS_TEXT_NOMEM;
    return -1;
  }
  t->v = v;
  t->cap = cap;
  return 0;
}

void ts_text_finish(ts_text *t)
{
  free(t->v);
  t->v = NULL;
  t->len = t->cap = 0;
}
