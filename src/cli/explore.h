/* What `tssim sensitivity` and `tssim optimize` share: the options they
 * take from `tssim run` (the sweep, replications, seed, overrides, threads,
 * output folder, plots), loading the scenario into an exploration
 * (fit/explore.h), and writing the results folder whole (io/atomic.h). */
#ifndef TS_CLI_EXPLORE_H
#define TS_CLI_EXPLORE_H
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "fit/explore.h"
#include "io/atomic.h"

/* --help lines of the shared options (all but -o and -h). */
#define TS_CLI_EXPLORE_HELP                                                                                 \
  "      --n LIST            override the sweep's n, e.g. 1,16\n"                                        \
  "      --workers LIST      override the sweep's worker counts\n"                                       \
  "  -r, --replications R    replications per point and setting (default: the scenario's)\n"             \
  "      --seed S            seed of the common random numbers (default: the scenario's)\n"             \
  "      --set PATH=VALUE    override a model field first (repeatable), as tssim run does\n"             \
  "      --axis KEY=LABEL,...  keep only these values of the scenario's axis KEY; with one,\n"          \
  "                          the axis goes and its overrides apply as --set would (so a\n"            \
  "                          field it sets may be searched or scaled) (repeatable)\n"                 \
  "  -j, --jobs J            run replications on J threads (default: the number of online\n"            \
  "                          cores); the files are the same for any J\n"                                 \
  "      --no-plots          do not run gnuplot\n"                                                       \
  "  -q, --quiet             no tables, no progress line: errors and notes only, on stderr\n"       \
  "                          (the line saying a previous run is replaced stays)\n"

/* The end of a command's --help: the shared options (TS_CLI_EXPLORE_HELP),
 * -o with its default results/<scenario name>-<suffix>, --help, what a
 * signal does and the exit statuses. */
void ts_cli_explore_usage_end(FILE *f, const char *suffix);

typedef struct ts_cli_explore_opts {
  ts_run_opts run; /* scenario, outdir, n_arg, w_arg, r_arg, seed_arg, sets, axes, jobs, quiet, plots */
} ts_cli_explore_opts;

/* Parse a command's argv: the shared options into o (free it with
 * ts_cli_explore_opts_finish in every case), the command's own (own,
 * ending with a zero entry) through take, which returns 0 when it took
 * option c with argument arg, -1 when c is no option of the command, else
 * the exit status after printing what was wrong. --help prints usage on
 * stdout. Exactly one SCENARIO.json must be left: it goes into
 * o->run.scenario. Returns 0 to go on, -1 after --help (exit 0), else the
 * exit status after printing one line naming the option. */
int ts_cli_explore_parse(int argc, char **argv, const char *cmd, const struct option *own,
                         int (*take)(void *ctx, int c, const char *arg), void *ctx, void (*usage)(FILE *f),
                         ts_cli_explore_opts *o);
void ts_cli_explore_opts_finish(ts_cli_explore_opts *o);

/* A command's scenario, exploration and results folder. */
typedef struct ts_cli_explore {
  ts_loaded L;
  int loaded;
  ts_explore x;
  ts_sweep_notes notes;       /* what x's sweeps noted (said at the commit) */
  int explored;
  const char *outdir;
  char dirbuf[1024];
  ts_atomic batch;
  ts_outdir made;
  int locked;                 /* the results folder is locked (ts_cli_outdir_lock), by lock (-1: no locks there) */
  int lock;
  int committed;
  int quiet;
  /* the progress line (on a terminal, unless quiet) */
  int progress;
  double t0, last;
  size_t reps;                /* replications run so far */
  size_t total;               /* replications expected (0: not known) */
  const size_t *settings;     /* settings evaluated so far (NULL: not shown) */
} ts_cli_explore;

/* --axis KEY=LABEL,LABEL,...: keep only those values of L's scenario's
 * axis KEY, in the scenario's order. With one left and drop, the axis
 * goes: its overrides are applied to the model (a window axis's to the
 * scenario's window); without drop it stays, an axis of one value (its
 * column and a baseline's records of it stay). Returns 0, or -1 with e
 * naming --axis and what was wrong. */
int ts_cli_axis_keep(ts_loaded *L, const char *arg, int drop, ts_err *e);

/* Whether --axis args[i] names the key of an earlier one (args[0..i-1]):
 * then -1 with e saying "KEY is given twice", else 0. Call it before
 * ts_cli_axis_keep, which has removed the other values by then. */
int ts_cli_axis_twice(const char *const *args, int i, ts_err *e);

/* Load o's scenario with its overrides into ex, keep the axis values
 * --axis names, and set up its exploration; the results folder is -o,
 * else results/<scenario name>-<suffix>. Returns
 * 0, or the exit status after printing what was wrong. ex is freed by
 * ts_cli_explore_finish in every case. */
int ts_cli_explore_load(const ts_cli_explore_opts *o, ts_cli_explore *ex, const char *suffix);
/* Before the simulations: check the results folder can be written (exit
 * status 3 if not, after saying why), catch SIGINT and SIGTERM (the
 * exploration then stops after the replications in progress), make and lock
 * the results folder as `tssim run` does (ts_cli_outdir_lock: one command at
 * a time writes into it, until ts_cli_explore_finish, plots included; a
 * second one waits, saying so; what killed runs left there is cleaned) and, on a
 * terminal unless quiet, show one progress line on stderr: replications
 * run (of total, when not 0), settings evaluated (when settings is not
 * NULL), rate and time left. Returns 0 or the exit status. */
int ts_cli_explore_start(ts_cli_explore *ex, size_t total, const size_t *settings);
/* Clear the progress line. */
void ts_cli_explore_progress_done(ts_cli_explore *ex);
/* Report a failed exploration (ts_sweep_run's status sr, its reason err)
 * and return the exit status: the interrupt's after a signal, 2 when the
 * model fails at a setting, else 1. */
int ts_cli_explore_failed(ts_cli_explore *ex, int sr, const char *err);
/* Open results file name in the batch (making the folder). NULL with e
 * filled on failure. */
FILE *ts_cli_explore_file(ts_cli_explore *ex, const char *name, ts_err *e);
/* Print e and return TS_EXIT_IO (the batch is aborted). */
int ts_cli_explore_io_failed(ts_cli_explore *ex, const ts_err *e);
/* Write the batch: every file at once, or none (an interrupt before it
 * leaves the folder as it was). what lists the files for the closing
 * "wrote DIR/..." line. Returns the exit status. */
int ts_cli_explore_commit(ts_cli_explore *ex, const char *what);
/* After the commit: draw the compiled-in plots/<script>.gp with vars
 * (ts_plot_draw), which a signal stops (ts_cli_interrupt_plots); script
 * NULL: no plot (--no-plots, or none of this kind). Returns 0, or the
 * interrupt's status when a signal came, before, during or after the plot,
 * even with none (as tssim run), after one line on stderr
 * (ts_cli_interrupt_written) says the results are written and whether the
 * plot is. */
int ts_cli_explore_draw(ts_cli_explore *ex, const char *script, const char *const *vars);
/* Free ex: an uncommitted batch is aborted and the folders it made removed;
 * the results folder is unlocked. */
void ts_cli_explore_finish(ts_cli_explore *ex);

#endif
