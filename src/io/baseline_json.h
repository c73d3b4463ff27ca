/* Recorded baselines: the metrics a real system recorded per sweep point.
 * Two layouts are read:
 *   {"points": [{"n": 2, "workers": 1, "axes": {"workload": "chat"},
 *                "metrics": {"wave_ms": 882.4}, "weight": 1}]}
 *   {"scaling": [{"n": 2, "wave_ms": 882.4, ...}]}  (the shared baselines' layout;
 *   workers defaults to 1, and every field other than n, workers, samples
 *   and note is a recorded value, a number, or null for not recorded; one
 *   that the file's top-level "metrics" object describes is loose:
 *   ts_baseline_keep drops it for a model that does not report it, since the
 *   shared layout records what the real system measured)
 * A record belongs to the sweep point with the same n, workers and axis
 * values (a record without axes to points without axes). Metric names are
 * checked against a run's metrics when the baseline is used. */
#ifndef TS_BASELINE_JSON_H
#define TS_BASELINE_JSON_H
#include <stddef.h>

#include "io/err.h"

struct cJSON;
struct ts_metric_list;

typedef struct ts_record {
  int n;
  int workers;
  char *metric;
  char *where;       /* its JSON path, for errors: "points[2].metrics.wave_ms" */
  double value;
  double weight;
  char **axes;       /* naxes pairs: key, label; NULL when none */
  int naxes;
  int loose;         /* the shared layout's field that its "metrics" object describes: kept only for a model
                      * that reports it */
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
/* Whether record r belongs to the point (n, workers) whose axis values are
 * labels[i] for axis keys[i] (naxes of them). */
int ts_record_matches(const ts_record *r, int n, int workers, const char *const *keys, const char *const *labels,
                      int naxes);
/* Which of an axis's values record r names: the index in labels[0..nlabels)
 * of the label r gives for axis key (the last that matches), or -1 when r
 * names no value of that axis or one not among labels. */
int ts_record_axis_value(const ts_record *r, const char *key, char *const *labels, int nlabels);
/* The recorded value of metric at a point (as ts_record_matches): 1 and
 * *value, or 0 if none. */
int ts_baseline_find(const ts_baseline *b, int n, int workers, const char *const *keys, const char *const *labels,
                     int naxes, const char *metric, double *value);
/* Whether b records metric anywhere. */
int ts_baseline_has(const ts_baseline *b, const char *metric);
/* Drop b's loose records of metrics the model does not report (reports(ctx,
 * metric) is 0): the shared layout records what the real system measured,
 * and a model need not report all of it. */
void ts_baseline_keep(ts_baseline *b, int (*reports)(const void *ctx, const char *metric), const void *ctx);
/* Whether the metric list (a ts_metric_list: a model's) has metric: the
 * reports argument of ts_baseline_keep. */
int ts_baseline_reports(const void *list, const char *metric);
/* Check b against the metrics a model reports (l; model is its file, for
 * the message): every record that is not loose must name one of l (loose
 * ones are for ts_baseline_keep to drop). Returns 0, or -1 with e filled:
 * the first unknown one, with its JSON path and the nearest name of l. */
int ts_baseline_check_metrics(const ts_baseline *b, const struct ts_metric_list *l, const char *model, ts_err *e);

#endif
