/* The results of `tssim sensitivity` and `tssim optimize`: the printed
 * ranking and the CSV files (docs/explore.md). Every file opens with the
 * point columns of summary.csv: one per scenario axis (the value's label),
 * then n and workers. */
#ifndef TS_EXPLORE_REPORT_H
#define TS_EXPLORE_REPORT_H
#include <stdio.h>

#include "io/scenario_json.h"
#include "run/compare.h"

struct cJSON;

/* The axis labels of combination combo, one per axis of sc, into labels. */
void ts_report_combo_labels(const ts_scenario *sc, int combo, const char **labels);
/* "n=8 workers=1", after "key=label " for each axis, into buf. */
void ts_report_point_name(const ts_scenario *sc, const ts_compare_point *p, char *buf, size_t cap);
/* Print the ranking: for each point and metric, the parameters by
 * |elasticity|, each with its 95% half-width and the metric at each
 * scale; a row whose one-sided elasticities disagree (ts_sens_result.jump)
 * ends with "jump: B below x1, A above". */
void ts_report_sens_print(FILE *out, const ts_scenario *sc, const ts_sens_result *r);
/* sensitivity.csv: the point columns, parameter, metric, elasticity,
 * elasticity_ci95; a row per point, metric and parameter, ranked as
 * printed. */
void ts_report_sens_csv(FILE *f, const ts_scenario *sc, const ts_sens_result *r);
/* curve.csv: the point columns, parameter, metric, scale, value,
 * value_ci95; a row per point, metric, parameter and scale, in the order
 * asked. */
void ts_report_curve_csv(FILE *f, const ts_scenario *sc, const ts_sens_result *r);
/* tried.csv: every setting `tssim optimize` evaluated, in order: trial,
 * stage, replications, one column per numeric field (its value, %.7g) and
 * choice field (its value's label), both empty for the baseline (the
 * scenario's own setting), then for each metric measured its value (the
 * mean over the points of its mean over replications) and value_ci95,
 * then feasible (1 or 0). */
void ts_report_opt_tried_csv(FILE *f, const ts_opt_result *r);
/* pareto.csv: the columns of tried.csv, the rows on the Pareto front,
 * ordered by the first objective. */
void ts_report_opt_pareto_csv(FILE *f, const ts_opt_result *r);
/* Print the best setting (one objective) with its metrics and intervals
 * beside the baseline's, the constraints' limits, and the race; or the
 * Pareto front (two). */
void ts_report_opt_print(FILE *out, const ts_scenario *sc, const ts_opt_result *r);
/* On out (stderr), a note for each budget that stopped the search short:
 * --max-evals (a step wanted a setting past it) and --max-iter (local
 * searches that ran out of iterations before they converged). Nothing when
 * neither did. */
void ts_report_opt_budget_note(FILE *out, const ts_opt_result *r);
/* best.json of one objective: the best setting (and its --set overrides),
 * the budget (max_evals, the settings searched against it, whether it
 * stopped the search; max_iter, the local searches it cut), its metrics
 * with their intervals, the baseline's, each constraint and its limit,
 * the finalists of the race. A new tree (caller frees), or NULL
 * out of memory. */
struct cJSON *ts_report_opt_best_json(const ts_scenario *sc, const ts_opt_result *r);

/* Write s to f as one CSV field: as it is, or in double quotes (quotes
 * doubled) when it holds a comma, a quote or a line break. */
void ts_report_csv_field(FILE *f, const char *s);

#endif
