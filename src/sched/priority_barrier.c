/* The wa-sqlite RPC scheduler's priority policy. When the server frees, the
 * barrier is the first queued NORMAL job; the first FOREGROUND job queued
 * before the barrier (or anywhere, with no barrier) runs if fewer than
 * burst_limit foreground jobs ran in a row or if the head is itself
 * foreground; otherwise the head runs. Foreground work thus bypasses queued
 * background work but never crosses a normal job; normal and background stay
 * FIFO with each other. */
#include "sched/policy.h"

static size_t pick(ts_sched_queue *q)
{
  size_t len = q->len, barrier = len, fg = len;
  for (size_t i = 0; i < len; i++)
    if (ts_sched_queue_at(q, i)->klass == TS_CLASS_NORMAL) {
      barrier = i;
      break;
    }
  for (size_t i = 0; i < barrier; i++)
    if (ts_sched_queue_at(q, i)->klass == TS_CLASS_FOREGROUND) {
      fg = i;
      break;
    }
  /* (when the head is itself foreground, fg is the head: either way it runs) */
  size_t chosen = fg < len && q->run_streak < q->p.burst_limit ? fg : 0;
  if (ts_sched_queue_at(q, chosen)->klass == TS_CLASS_FOREGROUND)
    q->run_streak++;
  else
    q->run_streak = 0;
  return chosen;
}

const ts_sched_type ts_sched_priority_barrier = {
  .name = "priority_barrier",
  .summary = "foreground bypasses queued background work, never a normal job; burst limit (wa-sqlite)",
  .pick = pick,
};
