/* Scenarios from JSON: which model, which sweep, how many replications, which
 * seed, which baseline to compare with, and overrides of model parameters.
 * Relative paths inside a scenario are relative to the scenario file. */
#ifndef TS_SCENARIO_JSON_H
#define TS_SCENARIO_JSON_H
#include <stddef.h>
#include <stdint.h>

#include "engine/time.h"
#include "io/err.h"

struct cJSON;

/* The largest seed: 2^53 - 1, the largest integer a JSON number holds exactly. */
#define TS_SEED_MAX UINT64_C(9007199254740991)

/* The longest axis key: a results column's name. */
#define TS_AXIS_KEY_MAX 40

/* A sweep axis over model fields: each value is a list of overrides. */
typedef struct ts_axis {
  char *key;             /* its column in the results (at most TS_AXIS_KEY_MAX characters) */
  char *path;            /* a path axis: the JSON path its values replace; NULL for a set axis */
  int nvalues;
  char **labels;         /* [nvalues]: the value as printed, or the set's name */
  char ***sets;          /* [nvalues][nsets[v]]: "PATH=JSON" overrides */
  int *nsets;
} ts_axis;

typedef struct ts_scenario {
  char *file;
  char *name;
  char *description;
  char *model_path;      /* resolved against the scenario's folder */
  char *baseline_path;   /* NULL when none */
  int *ns;
  size_t nn;
  int n_given;           /* the scenario gives n (else n = [1]; a model that reads n needs it) */
  int *workers;
  size_t nw;
  int replications;
  uint64_t seed;
  char **sets;           /* "PATH=JSON" model overrides */
  int nsets;
  ts_axis *axes;
  int naxes;
  int compare;           /* the axis whose other values get _vs_<first> ratios, or -1 */
  ts_time horizon;       /* TS_TIME_MAX when not given */
  ts_time warmup;
  ts_time window;        /* 0: until the horizon (or the end) */
  char **table;          /* metrics the printed table shows (NULL: the default) */
  int ntable;
  double ci_target;      /* 0: none */
  int ci_max;
} ts_scenario;

/* Load a scenario file into s (caller memory). Returns 0 or -1 with e filled. */
int ts_scenario_load(const char *path, ts_scenario *s, ts_err *e);
/* The same from a parsed tree, named path in errors and for resolving the
 * model and baseline paths (which must be readable). */
int ts_scenario_from_json(const struct cJSON *root, const char *path, ts_scenario *s, ts_err *e);
/* ts_scenario_from_json, checking the model and baseline files are readable
 * only when check_files; without, "model" may be left out (a scenario given
 * as text comes with its model). */
int ts_scenario_convert(const struct cJSON *root, const char *path, int check_files, ts_scenario *s, ts_err *e);
/* Free a scenario's memory; NULL is accepted. */
void ts_scenario_finish(ts_scenario *s);
/* The axis value indexes of axis combination c of s into values[0..naxes)
 * (at most 16): the first axis varies slowest. */
void ts_scenario_combo_values(const ts_scenario *s, long c, int *values);
/* How many axis combinations s has: the product of its axes' value counts
 * (1 without axes; the loader caps it at 100000). */
long ts_scenario_combos(const ts_scenario *s);
/* Parse a comma list of positive integers ("1,2,4") into a new array.
 * Returns 0 or -1 with e filled (what names the option). */
int ts_parse_int_list(const char *text, const char *what, long lo, long hi, int **out, size_t *len, ts_err *e);
/* Parse a --seed value: an integer in [0, TS_SEED_MAX]. Returns 0 or -1 with e filled. */
int ts_parse_seed(const char *text, uint64_t *out, ts_err *e);
/* Join dir-of(base) and rel unless rel is absolute. Returns a new string or NULL. */
char *ts_path_relative_to(const char *base, const char *rel);

#endif
