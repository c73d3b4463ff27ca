/* Free parameters: the values of a model that `tssim calibrate` fits. A model
 * lists them in a top-level "free" array (see docs/calibration.md):
 *   "free": [{"name": "tracker_ms", "path": "params.tracker_ms",
 *             "min": 50, "max": 500, "start": 224.8, "note": "..."}]
 * path is a dotted JSON path into the model (the syntax of --set); start
 * defaults to the number found at path. Invariant after a successful read:
 * min < max, min <= start <= max, names and paths distinct, every path exists. */
#ifndef TS_FIT_PARAM_H
#define TS_FIT_PARAM_H
#include <cjson/cJSON.h>
#include <stddef.h>

#include "io/err.h"

typedef struct ts_fit_param {
  char *name;
  char *path;
  char *note;       /* NULL when none */
  double min;
  double max;
  double start;
  int index;        /* position in the model's "free" array */
} ts_fit_param;

typedef struct ts_fit_params {
  ts_fit_param *p;  /* the parameters to fit */
  size_t n;
  char **pinned;    /* names of free parameters pinned by --set (not fitted) */
  size_t npinned;
} ts_fit_params;

/* Read root's "free" array into ps (caller memory; free with
 * ts_fit_params_finish). A parameter whose path is the PATH of one of the
 * `nsets` overrides "PATH=VALUE" in sets keeps that value and is not fitted.
 * file names the model in errors. Returns 0, or -1 with e filled naming the
 * JSON path (no "free" array, a path not in the model, min >= max, a start
 * outside [min, max], every parameter pinned...). */
int ts_fit_params_read(cJSON *root, const char *file, const char *const *sets, int nsets, ts_fit_params *ps,
                       ts_err *e);
/* Free what ts_fit_params_read allocated; NULL is accepted. */
void ts_fit_params_finish(ts_fit_params *ps);

#endif
