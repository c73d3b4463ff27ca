/* Results: the aligned table on stdout and the files of a run folder
 * (summary.csv, samples.csv, summary.json), documented in
 * docs/output.md. */
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

/* The axis labels of point p, one per scenario axis, into labels. */
void ts_report_labels(const ts_scenario *sc, const ts_sweep *s, const ts_point *p, const char **labels);
/* The relative error of simulated value v against recorded value r,
 * (v - r) / r: NAN (undefined: an empty field, "-" or null) when r is 0 (a
 * recorded 0, legitimate for a lock wait, has none: 0 would say a perfect
 * match whatever v is) or v is NAN. */
double ts_rel_error(double v, double r);
/* The recorded value of column c at point p: 1 and *v, or 0. The base row
 * of a recorded ratio must be the sweep's. */
int ts_report_recorded(const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b, const ts_point *p, int c,
                       double *v);
/* How many of b's records belong to no point of the sweep (another n,
 * workers or axis value); the first of them into *first. */
size_t ts_report_unmatched(const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b, size_t *first);
/* The metrics the table shows: the scenario's "table", else a default for
 * the columns the sweep has. Returns how many column indexes went into cols. */
int ts_report_table_cols(const ts_scenario *sc, const ts_sweep *s, int *cols, int max);
/* Print the sweep as an aligned table, with recorded values and relative
 * errors beside each prediction when b is not NULL, the 95% half-width when
 * there are replications, and deltas against the compare axis's first value. */
void ts_report_table(FILE *out, const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b);
/* Add summary.csv and summary.json of dir to batch (not committed: the
 * caller commits, with whatever else the batch holds; samples.csv is the
 * caller's, written as the sweep runs). resolved is the model tree after
 * overrides. samples 0: there is no samples.csv this time, and the commit
 * removes an old one. On failure the batch is aborted. Returns 0 or -1 with
 * e filled. */
int ts_report_add(ts_atomic *batch, const char *dir, const ts_scenario *sc, const cJSON *resolved, const ts_sweep *s,
                  const ts_baseline *b, int samples, ts_err *e);
/* samples.csv: its header line (m: the sweep's model; a model with a settled
 * mark adds the column settle_ms), then (any thread) the row of one actor a
 * (not a spawned one) of a replication of world w, appended to out; the
 * times are written exactly as printf's %.6f of their ms. Returns 0 or -1
 * (out of memory, or out's flush failed). */
void ts_report_samples_header(FILE *f, const ts_scenario *sc, const ts_model *m);
/* Write t ns as ms at p, exactly as printf("%.6f", ts_time_to_ms(t)) would
 * (at most 40 bytes, NUL-terminated); returns the end (at the NUL). */
char *ts_report_put_ms(char *p, ts_time t);
int ts_report_samples_row(ts_text *out, const ts_scenario *sc, const ts_sweep *s, const ts_world *w,
                          const ts_actor_stats *a, int combo, int replication);
/* Write summary.csv alone to f. */
/* The numeric columns of a samples.csv row (without the axis labels and the
 * class), NULL-terminated, and the values of them of actor a (counted) of
 * world w (replication as given; NAN where samples.csv leaves the field
 * empty). Keep in step with ts_report_samples_row, which writes the same
 * fields as text. */
extern const char *const ts_report_actor_columns[];
void ts_report_actor_values(const ts_world *w, const ts_actor_stats *a, int replication, double *v);
void ts_report_summary_csv(FILE *f, const ts_scenario *sc, const ts_sweep *s, const ts_baseline *b);

#endif
