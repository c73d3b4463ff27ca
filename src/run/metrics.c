#include "run/metrics.h"

#include <string.h>

static const ts_metric_info info[TS_M_COUNT] = {
  [TS_M_WAVE_MS] = {"wave_ms", "wave wall clock: wave_start mark (default: arrival) to wave_end mark (default: done)"},
  [TS_M_WAVE_P95_MS] = {"wave_p95_ms", "95th percentile of wave_ms over all actors of all replications"},
  [TS_M_PER_GROUP_CPU_MS] = {"per_group_cpu_ms", "slice-timer CPU: sum of laps (wall time) in timed cpu steps, stopped while queued"},
  [TS_M_WAVE_RATIO] = {"wave_ratio", "wave_ms / wave_ms at the smallest n with the same workers"},
  [TS_M_LOCK_WAIT_MS] = {"lock_wait_ms", "time waiting to acquire locks"},
  [TS_M_LOCK_WORK_MS] = {"lock_work_ms", "time holding locks, including time descheduled"},
  [TS_M_QUEUE_WAIT_MS] = {"queue_wait_ms", "time waiting in the time-slice queue"},
  [TS_M_SLICES] = {"slices", "run periods that did timed CPU work"},
  [TS_M_CPU_MS] = {"cpu_ms", "time the actor ran on its worker, sliced or not (stretched when workers share cores)"},
  [TS_M_IO_MS] = {"io_ms", "time waiting off-CPU (io steps)"},
  [TS_M_READY_WAIT_MS] = {"ready_wait_ms", "time an I/O callback waited for the event loop"},
  [TS_M_DONE_MS] = {"done_ms", "completion time of the actor's program, from time 0"},
};

const ts_metric_info *ts_metric_get(ts_metric m)
{
  return &info[m];
}

int ts_metric_find(const char *name)
{
  for (int m = 0; m < TS_M_COUNT; m++)
    if (strcmp(info[m].name, name) == 0)
      return m;
  return -1;
}

double ts_metric_sample(ts_metric m, const ts_actor_stats *s)
{
  switch (m) {
  case TS_M_WAVE_MS:
  case TS_M_WAVE_P95_MS:
  case TS_M_WAVE_RATIO: return ts_time_to_ms(s->wave_end - s->wave_start);
  case TS_M_PER_GROUP_CPU_MS: return ts_time_to_ms(s->timer);
  case TS_M_LOCK_WAIT_MS: return ts_time_to_ms(s->lock_wait);
  case TS_M_LOCK_WORK_MS: return ts_time_to_ms(s->lock_work);
  case TS_M_QUEUE_WAIT_MS: return ts_time_to_ms(s->queue_wait);
  case TS_M_SLICES: return (double)s->slices;
  case TS_M_CPU_MS: return ts_time_to_ms(s->cpu);
  case TS_M_IO_MS: return ts_time_to_ms(s->io);
  case TS_M_READY_WAIT_MS: return ts_time_to_ms(s->ready_wait);
  case TS_M_DONE_MS: return ts_time_to_ms(s->done);
  default: return 0;
  }
}
