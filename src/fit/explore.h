/* Exploring a model's settings: variants of a scenario's model (some of
 * its fields changed) run over the scenario's whole sweep (its axis
 * combinations, worker counts and n) in one ts_sweep, with R replications
 * at each point. Replication r of a point has the same seed in every
 * variant (common random numbers: ts_rng_derive_seed of the scenario's
 * seed, n, workers and r only), so differences between variants are those
 * of the changed fields, not of the draws; and the runs are the same for
 * any number of threads.
 *
 * A variant's changes are written into a copy of the model tree after the
 * scenario's "set" and --set, and before the scenario's axis overrides (as
 * --set would be). The variants form one more axis of the sweep, ahead of
 * the scenario's: sweep combination v * ncombos + c is variant v at the
 * scenario's combination c. */
#ifndef TS_FIT_EXPLORE_H
#define TS_FIT_EXPLORE_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "io/err.h"
#include "io/scenario_json.h"
#include "model/model.h"
#include "run/compare.h"
#include "run/sweep.h"

/* One changed field: path gets the number value, or, when json is not
 * NULL, that JSON value (or string, as --set reads VALUE). */
typedef struct ts_explore_set {
  const char *path;
  double value;
  const char *json;
} ts_explore_set;

typedef struct ts_explore_variant {
  const ts_explore_set *sets;
  size_t nsets;
  const char *label;  /* what it is, for errors ("params.x at scale 0.95"); NULL: its sets */
} ts_explore_variant;

/* A metric as the exploration commands name it: "wave_ms" (the point's
 * first row: its first reported class, as a baseline compares) or
 * "wave_ms@joiner" (the row of class joiner); `tssim optimize` also takes
 * one point of the sweep after it, "wave_ms@joiner[rule=ten,workers=4]"
 * (ts_explore_metric_parse_at). */
typedef struct ts_explore_metric {
  char *text;        /* as given */
  char *name;        /* the metric */
  char *klass;       /* NULL: the first row */
  int row;           /* the class whose row it reads (klass, or the model's first reported class), -1: the
                      * only row of a model that reports no class */
  long point;        /* the sweep point it names (ts_explore_point's k), or -1: every point */
} ts_explore_metric;

typedef struct ts_explore {
  cJSON *tree;                  /* owned: the model after set and --set, other files inlined */
  const char *file;             /* the model file, for errors (borrowed) */
  const ts_scenario *sc;        /* borrowed: the sweep, seed, horizon, window */
  size_t ncombos;               /* the scenario's axis combinations */
  size_t npoints;               /* ncombos x workers x n */
  int jobs;                     /* threads running replications */
  /* optional, as ts_sweep_spec's: polled before each replication (any
   * thread), and called after each replication is folded (the calling
   * thread); nonzero stops. Both receive data. */
  int (*should_stop)(void *data);
  int (*progress)(void *data, size_t point, size_t points, int replication);
  void *data;
  ts_sweep_notes *notes;        /* optional: what the sweeps noted, summed by ts_explore_run in the order run */
} ts_explore;

/* Set up x over scenario sc (borrowed, must outlive x) and the model tree
 * resolved (after the scenario's set and --set; copied). Returns 0, or -1
 * with e filled (out of memory, an unreadable file the model names). */
int ts_explore_init(ts_explore *x, const cJSON *resolved, const ts_scenario *sc, int jobs, ts_err *e);
/* Free what ts_explore_init made; NULL is accepted. */
void ts_explore_finish(ts_explore *x);
/* Scenario point k (0 <= k < npoints, the sweep's order: combination, then
 * workers, then n). */
ts_compare_point ts_explore_point(const ts_explore *x, size_t k);
/* The model of variant v at the scenario's axis combination combo, into m
 * (free with ts_model_finish). Returns 0, or -1 with e filled (the model
 * rejects the variant's values). */
int ts_explore_model(const ts_explore *x, const ts_explore_variant *v, int combo, ts_model *m, ts_err *e);
/* Run the nv variants over every point of the sweep, replications each,
 * into out (free with ts_sweep_finish, also after a failure). Returns
 * ts_sweep_run's status; out->errmsg says what failed, and at which
 * variant (its label) and axis values (their labels). */
int ts_explore_run(const ts_explore *x, const ts_explore_variant *v, size_t nv, int replications, ts_sweep *out);
/* The row of metric mt at variant v and scenario point k of a finished
 * run, or NULL (no such class there). */
const ts_point *ts_explore_row(const ts_explore *x, const ts_sweep *s, size_t v, size_t k,
                               const ts_explore_metric *mt);

/* Parse "NAME" or "NAME@CLASS" into mt (free with ts_explore_metric_finish)
 * and check model m reports the metric and has the class, reported.
 * option names the option in errors ("--metric"). Returns 0, or -1 with e
 * filled: one line naming the option, with a suggestion when the name is
 * near a known one. */
int ts_explore_metric_parse(const char *text, const ts_model *m, const char *option, ts_explore_metric *mt,
                            ts_err *e);
/* The same, and the metric may name one point of x's sweep:
 * "METRIC[@CLASS][KEY=LABEL,...]", KEY an axis key of x's scenario (its
 * LABEL one of the axis's labels), `workers` or `n` (LABEL one of the
 * sweep's values), each key at most once; a key whose dimension has one
 * value may be left out, every other must be named, so that the selector
 * names exactly one point (mt->point). Returns 0, or -1 with e filled: one
 * line naming the option and what was expected (the keys, or the key's
 * labels, or the keys still to name). */
int ts_explore_metric_parse_at(const char *text, const ts_model *m, const ts_explore *x, const char *option,
                               ts_explore_metric *mt, ts_err *e);
void ts_explore_metric_finish(ts_explore_metric *mt);

/* Whether a and b measure the same thing: the same metric of the same row
 * (wave_ms and wave_ms@FIRST, FIRST the first reported class, are one) at
 * the same point, whatever order their texts name the point's keys in. */
int ts_explore_metric_same(const ts_explore_metric *a, const ts_explore_metric *b);
/* Check path names a field of tree that option may change: it exists and
 * no axis of sc sets it, a place inside it, or a place around it. Returns
 * 0, or -1 with e filled (naming the option, and a nearby key when the last
 * one is mistyped). */
int ts_explore_check_path(const cJSON *tree, const ts_scenario *sc, const char *option, const char *path,
                          ts_err *e);

#endif
