/* Results: the aligned table on stdout and the files of a run folder
 * (summary.csv, samples.csv, summary.json), documented in README.md
 * ("What the output means"). */
#ifndef TS_REPORT_H
#define TS_REPORT_H
#include <cjson/cJSON.h>
#include <stdio.h>

#include "io/atomic.h"
#include "io/baseline_json.h"
#include "io/err.h"
#include "io/scenario_json.h"
#include "model/model.h"
#include "run/sweep.h"

/* The class a baseline's points describe: the first class counted by n. */
int ts_report_main_class(const ts_model *m);
/* Print the sweep as an aligned table, with recorded values and relative
 * errors beside each prediction when b is not NULL. */
void ts_report_table(FILE *out, const ts_model *m, const ts_sweep *s, const ts_baseline *b);
/* Write summary.csv, samples.csv and summary.json into dir, atomically.
 * resolved is the model tree after overrides. Returns 0 or -1 with e filled. */
int ts_report_write(const char *dir, const ts_scenario *sc, const ts_model *m, const cJSON *resolved,
                    const ts_sweep *s, const ts_baseline *b, ts_err *e);
/* The same files added to batch (not committed: the caller commits, with
 * whatever else the batch holds). On failure the batch is aborted. Returns 0
 * or -1 with e filled. */
int ts_report_add(ts_atomic *batch, const char *dir, const ts_scenario *sc, const ts_model *m, const cJSON *resolved,
                  const ts_sweep *s, const ts_baseline *b, ts_err *e);
/* Write summary.csv alone to f. */
void ts_report_summary_csv(FILE *f, const ts_model *m, const ts_sweep *s, const ts_baseline *b);

#endif
