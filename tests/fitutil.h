/* Helpers of the calibration suites (fit, fitlsq). */
#ifndef TS_TEST_FITUTIL_H
#define TS_TEST_FITUTIL_H
#include <cjson/cJSON.h>
#include <stdarg.h>
#include <stdint.h>

#include "fit/param.h"
#include "fit/problem.h"
#include "io/baseline_json.h"
#include "run/sweep.h"

/* fit-rr.json's true values, which make_synthetic's baseline records. */
#define TRUE_C_MS 137.5
#define TRUE_IO_MS 42.25

/* A scratch folder with a synthetic baseline, removed by clean. */
typedef struct scratch {
  char dir[512];
  char baseline[600];
  char out[8][600];
  int nout;
} scratch;

/* Make the folder; the baseline will be its file `name`. */
void scratch_open(scratch *s, const char *name);
/* A path `name` in the folder (at most 8 per scratch). */
const char *out_path(scratch *s, const char *name);
/* Remove the folder. */
void clean(scratch *s);
/* Sweep the model of the source tree at rel with overrides sets, one
 * replication of seed 1, over ns and ws (ts_sweep_finish sw). */
void sweep_model(const char *rel, const char *const *sets, int nsets, int *ns, size_t nn, int *ws, size_t nw,
                 ts_sweep *sw);
/* The column of metric name in sw, which must have it. */
int sweep_col(const ts_sweep *sw, const char *name);
/* Sweep fit-rr.json at the true values and write what it shows as a
 * "points" baseline: wave_ms and wave_ratio at n = 1, 2, 4 on 1 and 2 workers. */
void make_synthetic(scratch *s);
/* Run `tssim calibrate ARGS` (stderr folded into stdout); the output (caller
 * frees) and the exit status. Paths starting with @ are under the source root. */
char *vcli(int *status, const char *fmt, va_list ap);
char *cli(int *status, const char *fmt, ...);
/* cli for a calibration that must succeed: its output (caller frees). */
char *cli_ok(const char *fmt, ...);
/* The JSON document at path (caller deletes). */
cJSON *load_json(const char *path);
/* The number at a dotted path of root, which must be there. */
double number_at(cJSON *root, const char *path);
/* got within rel (relative) of want. */
void assert_near(double got, double want, double rel);

/* The calibration problem of the model at rel (in the source tree) against
 * the baseline make writes, built as tssim calibrate builds it. */
typedef struct problem {
  scratch s;
  char *model;
  cJSON *tree;
  ts_fit_params ps;
  ts_baseline b;
  ts_fit_problem pb;
} problem;

/* Build f: make's baseline and the model at rel, as tssim calibrate does. */
void problem_open(problem *f, void (*make)(scratch *), const char *rel, uint64_t seed, int replications);
void problem_close(problem *f);
/* Each bad input: exit 2 and one message naming the file, the JSON path and
 * what was expected (want1 and, when not NULL, want2 in it). */
void expect_error(const char *args, const char *want1, const char *want2);

#endif
