/* Loading a scenario, its model (with overrides) and its baseline, with
 * every check a run needs (axis paths exist and every axis combination
 * loads, the metrics the table and the baseline name exist), from files or
 * from JSON text. The library's handles and the command line both load
 * through here, so they refuse the same inputs with the same messages. */
#ifndef TS_LOAD_H
#define TS_LOAD_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "io/baseline_json.h"
#include "io/err.h"
#include "io/scenario_json.h"
#include "model/model.h"

typedef struct ts_loaded {
  ts_scenario sc;
  ts_model model;
  cJSON *resolved;     /* model tree after overrides */
  ts_baseline baseline;
  int has_baseline;
  int n_read;          /* the model or one of its axis variants reads n (ts_model_reads_n;
                        * assumed of a scenario with more variants than ts_load checks) */
} ts_loaded;

/* Where a scenario comes from: the file path, or JSON text (scenario and
 * model; baseline NULL for none), named "<scenario>", "<model>" and
 * "<baseline>" in messages; and what the caller's overrides are called in a
 * message that blames one ("(from --set P=V)": set_by NULL is "--set", the
 * library's is "tssim_set"). */
typedef struct ts_load_src {
  const char *path;
  const char *scenario_json, *model_json, *baseline_json;
  const char *set_by;
} ts_load_src;

/* Load src's scenario, then its model with the scenario's overrides
 * followed by `sets` ("PATH=VALUE"), then its baseline, and check every axis
 * path exists in the model, every combination of axis values gives a model
 * that loads and every metric the table and the baseline name is reported.
 * Returns 0, or -1 with e filled (a message naming the file and the JSON
 * path; out needs no ts_load_finish then). */
int ts_load(const ts_load_src *src, const char *const *sets, int nsets, ts_loaded *out, ts_err *e);
/* The model of one combination of the scenario's axes (value indexes): the
 * resolved tree with the axis overrides applied. A ts_sweep_spec.model_of
 * callback; ctx is the ts_loaded. */
int ts_load_model_of(void *ctx, const int *values, ts_model *m, char *err, size_t cap);
/* The line (without "tssim: ") for a sweep of L that failed with status sr
 * and errmsg: "FILE: errmsg", FILE the model for TS_SWEEP_MODEL and the
 * scenario otherwise, or errmsg alone when it opens with one of them (a
 * combination's model that does not load: ts_load_model_of names the
 * model, or the scenario's axis). Written into out (size cap). */
void ts_load_sweep_error(const ts_loaded *L, int sr, const char *errmsg, char *out, size_t cap);
/* A ts_sweep_spec.window_of over a ts_loaded: the scenario's window with
 * the combination's axis values of warmup_ms and window_ms. */
void ts_load_window_of(void *ctx, const int *values, ts_time *warmup, ts_time *window);
/* The refusal of dispatch.ids "per_replication" where no model a command
 * runs reads it, into e: m (the model with its overrides, without axes)
 * sets it under hash but an axis on the dispatch places by another policy
 * at every value (at that axis); m sets it under round_robin or
 * least_loaded, which read no id (at model_path's dispatch.ids); else at
 * the value of sc's axis (sc may be NULL) that sets it. Returns 1 when
 * refused at model_path's dispatch.ids (the caller may name the override
 * that set it), 2 when at the scenario's axis, 0 when neither sets it
 * visibly (e untouched). */
int ts_load_ids_refusal(const ts_scenario *sc, const char *model_path, const ts_model *m, ts_err *e);
/* Whether an axis override "PATH=VALUE" sets the scenario's window
 * (warmup_ms, window_ms) instead of a model field. */
int ts_load_window_axis(const char *set);
/* Apply window axis override set (ts_load_window_axis, checked at load) to
 * the scenario: its warmup or its window. */
void ts_load_window_set(ts_scenario *sc, const char *set);
/* The sweep overrides of `tssim run` (--n, --workers, -r, --seed,
 * --ci-target, --ci-max) and of the library's setters, as text; NULL keeps
 * the scenario's. */
typedef struct ts_load_overrides {
  const char *n, *workers, *replications, *seed, *ci_target, *ci_max;
  const char *const *names;  /* what messages call the six (the library's setters); NULL: the options, "--n" ... */
} ts_load_overrides;

/* Apply o to L's scenario, each checked as its option is (the message names
 * the option, or o->names'). Returns 0, or -1 with e filled (L then partly changed). */
int ts_load_override(ts_loaded *L, const ts_load_overrides *o, ts_err *e);
/* An option's integer in [lo, hi] into *out: 0, or -1 with e filled (what
 * names the option). */
int ts_load_parse_count(const char *text, const char *what, long lo, long hi, long *out, ts_err *e);
/* A model that runs forever needs a horizon: 0, or -1 with e filled. */
int ts_load_check_horizon(const ts_loaded *L, ts_err *e);
/* The sweep of L (its n, workers, axes, replications, seed, horizon, window
 * and confidence target: `tssim run`'s and tssim_run's) on jobs threads into
 * spec; sizes gets the axis sizes (>= 16 slots). No progress, stop, shard or
 * samples callbacks. */
struct ts_sweep_spec;
void ts_load_sweep_spec(ts_loaded *L, int jobs, int *sizes, struct ts_sweep_spec *spec);
/* Free what ts_load loaded; a zeroed ts_loaded is accepted. */
void ts_load_finish(ts_loaded *l);

#endif
