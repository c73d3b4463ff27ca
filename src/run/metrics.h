/* The metrics tssim reports, by name. Per-sample metrics come from one
 * actor's ts_actor_stats; a sweep point's value is the pooled median over all
 * actors of all replications (wave_p95_ms: the pooled 95th percentile;
 * wave_ratio: wave_ms over wave_ms at the smallest n with the same workers). */
#ifndef TS_METRICS_H
#define TS_METRICS_H
#include <stddef.h>

#include "model/world.h"

typedef enum {
  TS_M_WAVE_MS,
  TS_M_WAVE_P95_MS,
  TS_M_PER_GROUP_CPU_MS,
  TS_M_WAVE_RATIO,
  TS_M_LOCK_WAIT_MS,
  TS_M_LOCK_WORK_MS,
  TS_M_QUEUE_WAIT_MS,
  TS_M_SLICES,
  TS_M_CPU_MS,
  TS_M_IO_MS,
  TS_M_READY_WAIT_MS,
  TS_M_DONE_MS,
  TS_M_COUNT
} ts_metric;

typedef struct ts_metric_info {
  const char *name;
  const char *meaning;
} ts_metric_info;

/* Name and meaning of metric m. */
const ts_metric_info *ts_metric_get(ts_metric m);
/* The metric called name, or -1. */
int ts_metric_find(const char *name);
/* The per-actor value of a per-sample metric (not WAVE_P95_MS / WAVE_RATIO). */
double ts_metric_sample(ts_metric m, const ts_actor_stats *s);

#endif
