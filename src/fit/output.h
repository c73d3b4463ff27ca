/* What a calibration leaves behind: the calibrated model (the input model
 * with the fitted values at their paths and a "provenance" object that says
 * how they were obtained, see docs/calibration.md) and the printed tables. */
#ifndef TS_FIT_OUTPUT_H
#define TS_FIT_OUTPUT_H
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>

#include "fit/loo.h"
#include "fit/minimize.h"
#include "fit/problem.h"

struct ts_atomic;

typedef struct ts_fit_report {
  const char *model_file;
  const char *baseline_file;
  const char *const *sets;     /* the --set overrides applied to the model */
  int nsets;
  const ts_fit_result *fit;
  const ts_fit_loo *loo;       /* NULL without --loo */
  const char *output_file;     /* where the calibrated model goes (its file paths are made to resolve from there) */
} ts_fit_report;

/* A new tree (free with cJSON_Delete): model with every fitted value written
 * at its path, each fitted "free" entry given the "start" the fit used (so
 * calibrating the result again repeats this fit), "provenance" set to the
 * calibration's record, and every file path field (relative to
 * rp->model_file) rewritten to name the same file from rp->output_file's
 * folder (io/paths.h). Returns NULL with e filled on failure. */
cJSON *ts_fit_calibrated(const cJSON *model, const ts_fit_problem *pb, const ts_fit_report *rp, ts_err *e);
/* Write doc to path atomically (a temporary file renamed over path; its
 * folder made first when missing, with its parents) through batch a,
 * which the caller initialized (ts_atomic_init) and may have given to a
 * signal handler (ts_cli_interrupt_files: a second signal removes the
 * temporary); a is committed or aborted on return. Returns 0 or -1 with e filled. */
int ts_fit_write(struct ts_atomic *a, const char *path, const cJSON *doc, ts_err *e);
/* Print the fitted parameters with their start and bounds. */
void ts_fit_print_params(FILE *out, const ts_fit_problem *pb, const ts_fit_result *r);
/* Print each target's recorded value, its simulated value in sim under the
 * heading `label` ("fitted", "predicted") and the relative error, then the
 * worst error per metric. */
void ts_fit_print_targets(FILE *out, const ts_fit_problem *pb, const double *sim, const char *label);
/* Print each leave-one-out refit's values and objective. */
void ts_fit_print_loo(FILE *out, const ts_fit_problem *pb, const ts_fit_loo *l);

#endif
