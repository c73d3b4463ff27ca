/* The wa-sqlite RPC scheduler's priority policy. When the server frees, the
 * barrier is the first queued NORMAL job; the first FOREGROUND job queued
 * before the barrier (or anywhere, with no barrier) runs if fewer than
 * burst_limit foreground jobs ran in a row or if the head is itself
 * foreground; otherwise the head runs. Foreground work thus bypasses queued
 * background work but never crosses a normal job. */
#include "sched/policy.h"

static size_t pick(ts_sched_queue *q)
{
  size_t len = q->classes.len;
  size_t barrier = len;
  for (size_t i = 0; i < len; i++)
    if (ts_ring_at(&q->classes, i) == TS_CLASS_NORMAL) {
      barrier = i;
      break;
    }
  size_t fg = len;
  for (size_t i = 0; i < barrier; i++)
    if (ts_ring_at(&q->classes, i) == TS_CLASS_FOREGROUND) {
      fg = i;
      break;
    }
  /* (when the head is itself foreground, fg is the head: either way it runs) */
  size_t chosen = fg < len && q->run_streak < q->burst_limit ? fg : 0;
  if (ts_ring_at(&q->classes, chosen) == TS_CLASS_FOREGROUND)
    q->run_streak++;
  else
    q->run_streak = 0;
  return chosen;
}

const ts_sched_type ts_sched_priority = {
  .name = "priority",
  .summary = "foreground bypasses queued background work, never a normal job (wa-sqlite)",
  .pick = pick,
};
