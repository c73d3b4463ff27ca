/* libtssim: the tssim simulator as a C library (the `tssim` command is built
 * on it). Load a scenario and its model (from files or from JSON text),
 * override model fields as `tssim run --set` does, run the sweep or one
 * point, and read the results, per point and per actor, from memory.
 *
 *   tssim_scenario *s;
 *   tssim_error err;
 *   if (tssim_open("scenarios/rr-wave.json", &s, &err) != TSSIM_OK) {
 *     fprintf(stderr, "%s\n", err.message);
 *     ...
 *   }
 *   tssim_result *r;
 *   if (tssim_run_point(s, 16, 1, NULL, &r, &err) == TSSIM_OK) {
 *     int wave = tssim_result_metric_index(r, "wave_ms");
 *     printf("%g\n", tssim_result_value(r, 0, wave));
 *     tssim_result_free(r);
 *   }
 *   tssim_close(s);
 *
 * Errors are codes (the exit statuses of the command line) with the message
 * the command line prints. Handles are opaque; one handle is used by one
 * thread at a time (a run may use several threads itself: options.jobs),
 * different handles by any threads. Results are deterministic: the same
 * scenario, fields and seed give the same numbers for any number of jobs.
 * The language of models and scenarios, and the meaning of every metric, are
 * in tssim's docs (docs/language.md, docs/output.md); the API in
 * docs/library.md. */
#ifndef TSSIM_H
#define TSSIM_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What the shared library exports (everything else in it is hidden). */
#if defined(TSSIM_BUILDING) && defined(__GNUC__)
#define TSSIM_API __attribute__((visibility("default")))
#else
#define TSSIM_API
#endif

/* Status codes: the exit statuses of the tssim command. */
enum {
  TSSIM_OK = 0,
  TSSIM_FAILED = 1,  /* the simulation failed (a deadlock, out of memory) */
  TSSIM_INPUT = 2,   /* bad input: the model, scenario, baseline or an argument */
  TSSIM_IO = 3,      /* reading or writing a file failed */
  TSSIM_STOPPED = 4  /* options.should_stop stopped the run */
};

/* What went wrong: the code returned and the one-line message tssim prints
 * (without its "tssim: " prefix), naming the file, the JSON path and what
 * was expected. Every call given a NULL scenario (what a failed tssim_open
 * leaves) returns TSSIM_INPUT ("tssim_run: expected a scenario, got NULL
 * ..."); the accessors of a NULL scenario return NULL or 0. */
typedef struct tssim_error {
  int code;
  char message[1024];
} tssim_error;

/* The library's version, e.g. "0.1.0" (the tssim command's). */
TSSIM_API const char *tssim_version(void);

/* ---- scenarios ---- */

typedef struct tssim_scenario tssim_scenario;

/* Load the scenario file path, its model (relative to it) and its baseline,
 * with every check `tssim run` makes, into *out (free with tssim_close).
 * Returns TSSIM_OK, or a code with err filled (err may be NULL); *out is
 * then NULL. */
TSSIM_API int tssim_open(const char *path, tssim_scenario **out, tssim_error *err);
/* The same from JSON text: scenario_json is a scenario (its "model" field
 * may be left out, and is not read: model_json is the model; nor is its
 * "baseline": baseline_json is the baseline, or NULL for none). Messages name them "<scenario>", "<model>" and "<baseline>"; a file
 * the model names (a cpu_scale_by_n baseline) is read relative to the current
 * folder. */
TSSIM_API int tssim_open_json(const char *scenario_json, const char *model_json, const char *baseline_json,
                    tssim_scenario **out, tssim_error *err);
/* Free a scenario; NULL is accepted. */
TSSIM_API void tssim_close(tssim_scenario *s);

/* Override a model field, "PATH=VALUE" as `tssim run --set` takes it (VALUE
 * is JSON, or a string), after the scenario's own overrides and the earlier
 * ones; the model is checked again. Returns TSSIM_OK, or TSSIM_INPUT with
 * err filled (the scenario is then as it was; a message blaming an override
 * ends "(from tssim_set PATH=VALUE)"). */
TSSIM_API int tssim_set(tssim_scenario *s, const char *path_value, tssim_error *err);
/* Replace the sweep's actor counts n (count values) or worker counts, as
 * `tssim run --n` and `--workers` do. Returns TSSIM_OK or TSSIM_INPUT. */
TSSIM_API int tssim_set_n(tssim_scenario *s, const int *n, size_t count, tssim_error *err);
TSSIM_API int tssim_set_workers(tssim_scenario *s, const int *workers, size_t count, tssim_error *err);
/* Replace the number of replications (1..100000) or the seed (0..2^53-1).
 * Each setter checks its value as the command line's option does (the
 * message names the call and its argument: "tssim_set_n: n[0]: expected an
 * integer in [1, 1000000], got 0") and changes nothing when it fails. */
TSSIM_API int tssim_set_replications(tssim_scenario *s, int replications, tssim_error *err);
TSSIM_API int tssim_set_seed(tssim_scenario *s, uint64_t seed, tssim_error *err);
/* Add replications (in batches of the scenario's, up to max_replications in
 * 2..100000) until every table column's 95% half-width is within fraction
 * (0 < fraction < 1) of its mean, as `tssim run --ci-target` and `--ci-max`. */
TSSIM_API int tssim_set_ci_target(tssim_scenario *s, double fraction, int max_replications, tssim_error *err);

/* The scenario's name, and its axes (the sweeps over model fields besides n
 * and workers): how many, and axis a's key. */
TSSIM_API const char *tssim_scenario_name(const tssim_scenario *s);
TSSIM_API size_t tssim_scenario_axes(const tssim_scenario *s);
TSSIM_API const char *tssim_scenario_axis(const tssim_scenario *s, size_t a);

/* ---- running ---- */

typedef struct tssim_result tssim_result;

/* How to run; a zeroed struct (or NULL) means the defaults. */
typedef struct tssim_options {
  int jobs;         /* threads running replications; 0: one per online core */
  int no_actors;    /* nonzero: keep no per-actor rows (they take memory) */
  /* optional: called after each replication is folded in (point counts the
   * points done so far, of points); nonzero stops the run */
  int (*progress)(void *data, size_t point, size_t points, int replication);
  /* optional: polled before each replication, from any thread; nonzero
   * stops the run (TSSIM_STOPPED) */
  int (*should_stop)(void *data);
  void *data;
} tssim_options;

/* Run the scenario's sweep (every axis combination x n x workers, its
 * replications) into *out (free with tssim_result_free). Returns TSSIM_OK, or
 * a code with err filled and *out NULL. */
TSSIM_API int tssim_run(tssim_scenario *s, const tssim_options *o, tssim_result **out, tssim_error *err);
/* The same for one point of the sweep: n actors on workers workers (every
 * axis combination). */
TSSIM_API int tssim_run_point(tssim_scenario *s, int n, int workers, const tssim_options *o, tssim_result **out,
                    tssim_error *err);
TSSIM_API void tssim_result_free(tssim_result *r);

/* ---- results per point: the rows of summary.csv ---- */

/* Every accessor below accepts a NULL result (what a failed tssim_run
 * leaves in *out): counts are 0, names NULL, indexes -1, values NAN. */

/* The points (a row per axis combination, n, workers and reported class, in
 * summary.csv's order) and the metrics (its columns). */
TSSIM_API size_t tssim_result_points(const tssim_result *r);
TSSIM_API size_t tssim_result_metrics(const tssim_result *r);
/* Metric m's name ("wave_ms"), or the index of the metric called name (-1
 * when there is none). */
TSSIM_API const char *tssim_result_metric(const tssim_result *r, size_t m);
TSSIM_API int tssim_result_metric_index(const tssim_result *r, const char *name);
/* Point p's n, workers, replications, class ("" for all classes together)
 * and label on axis a. */
TSSIM_API int tssim_result_n(const tssim_result *r, size_t p);
TSSIM_API int tssim_result_workers(const tssim_result *r, size_t p);
TSSIM_API int tssim_result_replications(const tssim_result *r, size_t p);
TSSIM_API const char *tssim_result_class(const tssim_result *r, size_t p);
TSSIM_API const char *tssim_result_label(const tssim_result *r, size_t p, size_t a);
/* Metric m at point p: its value (summary.csv's column), the mean over the
 * replications, the 95% half-width summary.csv gives as <m>_ci95 (for a
 * pooled metric at 10 replications or more, of its bootstrap interval over
 * replications; else of the mean over replications: docs/output.md),
 * replication k's value, and the value the baseline records there. NAN
 * where there is none. */
TSSIM_API double tssim_result_value(const tssim_result *r, size_t p, size_t m);
TSSIM_API double tssim_result_mean(const tssim_result *r, size_t p, size_t m);
TSSIM_API double tssim_result_ci95(const tssim_result *r, size_t p, size_t m);
TSSIM_API double tssim_result_replication(const tssim_result *r, size_t p, size_t m, int k);
TSSIM_API double tssim_result_recorded(const tssim_result *r, size_t p, size_t m);

/* ---- results per actor: the rows of samples.csv ---- */

/* The actor rows (every counted actor of every replication of every point,
 * in samples.csv's order; none with options.no_actors) and their numeric
 * columns (replication, n, workers, actor, worker, arrive_ms, wave_ms, ...:
 * samples.csv's, without the axis labels and the class). */
TSSIM_API size_t tssim_result_actors(const tssim_result *r);
TSSIM_API size_t tssim_result_actor_columns(const tssim_result *r);
TSSIM_API const char *tssim_result_actor_column(const tssim_result *r, size_t c);
TSSIM_API int tssim_result_actor_column_index(const tssim_result *r, const char *name);
/* Row i's column c (NAN where samples.csv leaves it empty), its class and
 * its label on axis a. */
TSSIM_API double tssim_result_actor_value(const tssim_result *r, size_t i, size_t c);
TSSIM_API const char *tssim_result_actor_class(const tssim_result *r, size_t i);
TSSIM_API const char *tssim_result_actor_label(const tssim_result *r, size_t i, size_t a);

#ifdef __cplusplus
}
#endif
#endif
