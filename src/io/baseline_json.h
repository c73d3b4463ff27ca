/* Recorded baselines: the metrics a real system recorded per sweep point.
 * Two layouts are read:
 *   {"points": [{"n": 2, "workers": 1, "metrics": {"wave_ms": 882.4}, "weight": 1}]}
 *   {"scaling": [{"n": 2, "wave_ms": 882.4, ...}]}  (the shared baselines' layout;
 *   workers defaults to 1, and every numeric field other than n, workers and
 *   samples is a metric)
 * Only metrics tssim knows (run/metrics.h) are kept; an unknown metric name is
 * an error in the "points" layout and skipped in the "scaling" layout. */
#ifndef TS_BASELINE_JSON_H
#define TS_BASELINE_JSON_H
#include <stddef.h>

#include "io/err.h"

struct cJSON;

typedef struct ts_record {
  int n;
  int workers;
  int metric;      /* ts_metric */
  double value;
  double weight;
} ts_record;

typedef struct ts_baseline {
  char *file;
  ts_record *rec;
  size_t nrec;
} ts_baseline;

/* Load a baseline file into b (caller memory). Returns 0 or -1 with e filled. */
int ts_baseline_load(const char *path, ts_baseline *b, ts_err *e);
/* The same from a parsed tree, named path in errors. */
int ts_baseline_from_json(const struct cJSON *root, const char *path, ts_baseline *b, ts_err *e);
/* Free a baseline; NULL is accepted. */
void ts_baseline_finish(ts_baseline *b);
/* The recorded value of metric at (n, workers): 1 and *value, or 0 if none. */
int ts_baseline_find(const ts_baseline *b, int n, int workers, int metric, double *value);

#endif
