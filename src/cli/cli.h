/* Subcommands: a const table of {name, summary, main}. A new subcommand is one
 * cmd_<name>.c file plus one line in main.c's table. Each returns the process
 * exit status (TS_EXIT_*). */
#ifndef TS_CLI_H
#define TS_CLI_H
#include <stddef.h>
#include <stdint.h>

/* Exit statuses, the same for every command (docs/output.md, "Exit status"). */
enum {
  TS_EXIT_OK = 0,
  TS_EXIT_FAILED = 1, /* the simulation failed (deadlock, out of memory) */
  TS_EXIT_USAGE = 2,  /* bad usage or bad input (model, scenario, baseline, options) */
  TS_EXIT_IO = 3      /* writing the results failed (I/O) */
  /* 128 + signal: interrupted (130 SIGINT, 143 SIGTERM), see ts_cli_interrupt_catch */
};

/* The help's closing line. */
#define TS_CLI_EXIT_HELP                                                                            \
  "exit status: 0 ok, 1 the simulation failed, 2 bad usage or bad input, 3 an I/O failure\n"        \
  "writing the results"
#define TS_CLI_EXIT_HELP_INTERRUPT                                                                  \
  TS_CLI_EXIT_HELP ", 130 or 143 interrupted (SIGINT or SIGTERM: earlier result files\n"             \
  "are left as they were, temporary files removed).\n"

typedef struct ts_command {
  const char *name;
  const char *summary;
  int (*main)(int argc, char **argv);
} ts_command;

int ts_cmd_run(int argc, char **argv);
int ts_cmd_calibrate(int argc, char **argv);
int ts_cmd_trace(int argc, char **argv);
int ts_cmd_gantt(int argc, char **argv);
int ts_cmd_explain(int argc, char **argv);
int ts_cmd_merge(int argc, char **argv);
int ts_cmd_sensitivity(int argc, char **argv);
int ts_cmd_optimize(int argc, char **argv);

/* Shared by the subcommands that load a scenario and its model: they load
 * through the library's loader (lib/load.h), as tssim_open does. */
#include "lib/load.h"

/* ts_load of scenario file `path` with the overrides `sets`: prints the
 * error ("tssim: " and ts_load's message) and returns 2 on bad input, 1 when
 * memory ran out, 0 on success; on success, notes on stderr each --set that
 * an axis overrides (the axis wins), naming both. */
int ts_cli_load(const char *path, const char *const *sets, int nsets, ts_loaded *out);
/* ts_cli_load with the --axis KEY=LABEL,... options that will keep only
 * some values of an axis (axes[0..naxes), checked later by
 * ts_cli_axis_keep): an axis's note names only the values it keeps. */
int ts_cli_load_axes(const char *path, const char *const *sets, int nsets, const char *const *axes, int naxes,
                     ts_loaded *out);
/* Whether the model tree or one of sc's axis overrides (of the values the
 * --axis options axes[0..naxes) keep; NULL, 0: every value) reads
 * params.NAME: a string in either (any depth: expressions, "$param"
 * references) holds $NAME as a whole name. The loader reads params only so. */
int ts_cli_param_read(const cJSON *tree, const ts_scenario *sc, const char *const *axes, int naxes,
                      const char *name);
/* When path is params.NAME and nothing reads it (ts_cli_param_read, at
 * every value of sc's axes), a note on stderr: "tssim: note: OPTION PATH:
 * no expression of MODEL (nor an axis of SCENARIO) reads $NAME, so WHAT".
 * Returns 1 when it noted, else 0. */
int ts_cli_note_unread(const cJSON *tree, const ts_scenario *sc, const char *option, const char *path,
                       const char *what);
/* The --axis option of axes[0..naxes) ("KEY=LABEL,LABEL,...", as given)
 * for axis key, or NULL: the one parser of --axis with
 * ts_cli_axis_keeps (ts_cli_axis_keep checks the labels exist). */
const char *ts_cli_axis_option(const char *const *axes, int naxes, const char *key);
/* Whether the --axis option keep (ts_cli_axis_option's; NULL: none, so
 * every value runs) runs the value label. */
int ts_cli_axis_keeps(const char *keep, const char *label);
/* Whether override (or path) a, "PATH=VALUE", replaces what override (or
 * path) b set: the same path, or a's an ancestor of b's. */
int ts_cli_set_covers(const char *a, const char *b);
/* Note on stderr each queue policy of L's model that never reorders
 * anything (ts_model_policy_note): for a scenario with axes, of every
 * combination's model (the first 1000), one note per distinct text, naming
 * the axis values where it applies unless it applies to all. */
void ts_cli_policy_notes(const ts_loaded *L);
/* Note on stderr, as ts_cli_policy_notes does, ts_dispatch_note of each
 * axis combination's model (L's sweep: its largest worker count, its
 * replications or --ci-max): the combinations that place by hash of fixed
 * ids, naming the task and prefix, and those whose dispatch reads no
 * per_replication ids they set; then the workers of a pool that nothing
 * reaches (ts_model_reach_note); then ts_cli_policy_notes's notes. Each
 * combination's model is loaded once for the three. */
void ts_cli_sweep_notes(const ts_loaded *L);
/* Note on stderr that --n n_arg changes only the random streams (n enters
 * the seed) of the model at model_path, which reads n nowhere: the caller
 * has checked that (ts_model_reads_n, or ts_loaded.n_read). */
void ts_cli_note_n_unread(const char *n_arg, const char *model_path);
/* tree with the model overrides of combination c of sc's axes applied
 * (not its window axes): a copy, or NULL when memory runs out or an
 * override fails. */
cJSON *ts_cli_combo_tree(const ts_scenario *sc, const cJSON *tree, long c);
/* Free what ts_cli_load loaded. */
void ts_cli_unload(ts_loaded *l);
/* After getopt_long (with opterr = 0) returned '?': print one line naming the
 * option it rejected and where the options are listed; return 2. */
int ts_cli_bad_option(const char *cmd, char **argv);
/* Print "tssim: message" to stderr and return 2. */
int ts_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* `tssim run`'s options, shared with `tssim merge` (which re-reads those a
 * shard ran with). */
typedef struct ts_run_opts {
  const char *scenario;
  const char *outdir, *seed_arg, *n_arg, *w_arg, *r_arg, *t_arg, *x_arg;
  const char **sets;
  int nsets;
  const char **axes; /* --axis KEY=LABEL,...: as given (ts_cli_axis_keep) */
  int naxes;
  int drop_axes;     /* an axis --axis keeps one value of goes (sensitivity, optimize); else it stays */
  int quiet, plots, samples, jobs;
  int shard, shards;   /* --shard K/M (1-based K); shards 0: none */
  const char *columns; /* --columns LIST: the printed table's metrics, in order (NULL: the scenario's table) */
} ts_run_opts;

/* Parse tssim run's argv into o (free with ts_cli_run_opts_finish). Returns
 * 0, or -1 with *status the exit status (after --help, or after printing
 * what was wrong); o needs no finish then. */
int ts_cli_run_parse(int argc, char **argv, ts_run_opts *o, int *status);
void ts_cli_run_opts_finish(ts_run_opts *o);
/* Load o's scenario with its overrides into L, keep only the axis values
 * its --axis options name (ts_cli_axis_keep), check its --columns (each a
 * metric the model reports at some axis combination, or a column always
 * shown: n, workers, class, an axis key), and note on stderr when it
 * sweeps n over values its model reads nowhere, and its dispatch, reach
 * and policy notes (ts_cli_sweep_notes). Returns 0, or the exit status
 * after printing the error (L needs no unload then). */
int ts_cli_run_load(const ts_run_opts *o, ts_loaded *L);
/* What tssim run notes on stderr once its scenario is loaded, after
 * ts_cli_run_load's notes (tssim merge says the same): when --set changed the model of some axis
 * combination of a scenario with a baseline (not when each --set gives a
 * field the value it has, or an axis sets it at every value anyway), that
 * the baseline was recorded without those changes, naming them. */
void ts_cli_run_notes(const ts_run_opts *o, const ts_loaded *L);
/* The sweep of o and L into spec (sizes: the axis sizes, >= 16 slots). */
struct ts_sweep_spec;
void ts_cli_run_spec(const ts_run_opts *o, ts_loaded *L, int *sizes, struct ts_sweep_spec *spec);
/* Print the header lines and the table of a finished sweep: the metric
 * columns of columns (--columns, a comma-separated list checked by
 * ts_cli_run_load; NULL: the scenario's table or the default). */
struct ts_sweep;
void ts_cli_run_print(const ts_loaded *L, const struct ts_sweep *s, const char *columns);
/* On stderr (even quiet), when recorded values of L's baseline belong to no
 * point of the sweep s (a typo'd n, a narrower --n): how many, and the first
 * with its JSON path; they are not compared. Nothing when all belong. */
void ts_cli_baseline_note(const ts_loaded *L, const struct ts_sweep *s);
/* On stderr (even quiet: they say what the metrics describe), the notes
 * of a sweep or of several summed (ts_sweep_notes): how many replications
 * ended before their measurement window (each named with its start) and how many
 * with a backlog of arrivals not done, each with the first of them; and,
 * when every point run with 2 or more replications gave identical
 * replications (ts_sweep_notes.identical), that its intervals say nothing.
 * points: 0 for one sweep (run, merge); else the notes are summed over the
 * settings a search tried (sensitivity, optimize, calibrate), each setting
 * evaluated at these distinct points, and the identical note counts them
 * (the points that were identical) apart from the evaluations in all.
 * Nothing for a count of 0. */
struct ts_sweep_notes;
void ts_cli_notes(const struct ts_sweep_notes *n, size_t points);
/* Add summary.csv and summary.json (and the removal of old plots, and of an
 * old samples.csv when samples is 0) to batch a and commit it. Returns the
 * exit status; on failure s is freed and a aborted. */
struct ts_atomic;
int ts_cli_run_commit(struct ts_atomic *a, const char *outdir, const ts_loaded *L, struct ts_sweep *s, int samples,
                      int quiet);
/* After ts_cli_run_commit: draw the plots (when plots) of results folder
 * outdir, which a signal stops (ts_cli_interrupt_plots). Returns 0, or the
 * interrupt's status when a signal came before, during or after the plots,
 * after one line on stderr (ts_cli_interrupt_written) says that the results
 * are written and which plots were not drawn (the previous run's were
 * removed with its results), or that the plots are written too (all that
 * were drawn: none is named undrawn because it came after them), or that
 * nothing was left to do (no plots: --no-plots, no gnuplot). */
int ts_cli_run_plots(const char *outdir, int plots, int quiet);
/* ts_cli_run_plots's end, which its tests call: 0 when no signal has come,
 * else its line (ts_cli_interrupt_written) and the interrupt's status. plots:
 * they were asked for; drawn: how many ts_plot_results drew, -1 when it did
 * not run (a signal came before); undrawn: the plots a stop of its drawing
 * left undrawn (ts_plot_watch.undrawn; "": none, even when the signal came
 * after them). */
int ts_cli_run_plots_said(const char *outdir, int plots, int drawn, const char *undrawn);
/* Commit a shard's partial folder: partial.json beside the samples.csv that
 * a holds (rows from header_bytes on; point i's end at point_end[i];
 * samples_hash the ts_cli_fnv1a of those rows, all of them in file order).
 * The folder's summary.csv and summary.json, if any, go. Returns the exit
 * status (a is aborted on failure; a signal that came as it was committed:
 * ts_cli_interrupt_written's line and the interrupt's status). */
int ts_cli_partial_commit(struct ts_atomic *a, const char *outdir, int argc, char **argv, const ts_run_opts *o,
                          const struct ts_sweep *s, uint64_t header_bytes, const uint64_t *point_end,
                          uint64_t samples_hash, int quiet);
/* FNV-1a, 64 bits (Fowler, Noll, Vo: offset basis TS_CLI_FNV1A_INIT, prime
 * 0x100000001b3), of n more bytes p after hash h: what a shard's partial.json
 * records of its samples.csv rows, and tssim merge checks the rows it copies
 * against (not a defence against tampering: a check that the file is the one
 * the shard wrote). */
#define TS_CLI_FNV1A_INIT 0xcbf29ce484222325ULL
uint64_t ts_cli_fnv1a(uint64_t h, const void *p, size_t n);

/* The folders ts_cli_outdir_make created, to remove if the run fails. */
typedef struct ts_outdir {
  char *made[32];
  int n;
} ts_outdir;
/* mkdir -p dir, remembering what it created. Returns 0 or -1 with e filled. */
int ts_cli_outdir_make(const char *dir, ts_outdir *m, struct ts_err *e);
/* Remove the (empty) folders m created, deepest first, and forget them. */
void ts_cli_outdir_unmake(ts_outdir *m);
/* The end of a command's writing: when failed, ts_cli_outdir_unmake (a
 * failed command leaves no folder it made, never removes one that was
 * there); else forget the folders m made (they hold the results). */
void ts_cli_outdir_end(ts_outdir *m, int failed);
/* The folder of output file path (a command's one file: calibrate's model,
 * trace's files) made as ts_cli_outdir_make makes a results folder, what it
 * created remembered in m (ts_cli_outdir_end). A path whose folder does not
 * fit (ts_atomic_split) is left for the writer to refuse. Returns 0 or -1
 * with e filled. */
int ts_cli_outfile_make(const char *path, ts_outdir *m, struct ts_err *e);

/* Results folder dir (given: by -o, else the default) can be created or
 * written into: every part of its path that exists is a folder, and the
 * first missing part's parent is writable; an existing dir is not the root
 * folder and is empty or holds a file a results command writes (a data
 * file, a plot, a temporary: an earlier run's folder), so that a run's files
 * are never mixed with, or replace, files of a folder no run wrote. Returns
 * 0, or prints one line naming dir (as "-o DIR" when given) and returns
 * TS_EXIT_USAGE (a file, the root, a foreign folder) or TS_EXIT_IO. */
int ts_cli_outdir_check(const char *dir, int given);
/* Output file path (of a command that writes one file at the end of its
 * work: calibrate's model) can be written, checked before
 * the work: it does not end in '/', is not a folder or another non-regular
 * file, every part of its folder's path that exists is a folder and the
 * folder exists and is writable, or the first missing part's parent is
 * (the writer makes the missing folders, as tssim run does its results
 * folder). option is how the user gave it ("-o", "--html"; NULL: a
 * default, then the line says to give -o FILE); what says what the file
 * holds ("the calibrated model"). Returns 0, or prints one line naming the
 * path and what was expected and returns TS_EXIT_USAGE (a folder, a file
 * in the folder's path) or TS_EXIT_IO (a folder that cannot be written). */
int ts_cli_outfile_check(const char *path, const char *option, const char *what);
/* Make results folder dir (mkdir -p, remembered in m) and lock it for this
 * process, so that one run at a time writes into it: from before its first
 * temporary file until its last result (plots included); a second run into
 * the folder says it waits on stderr and waits (flock on the folder itself,
 * released when *fd is closed or the process ends, however it ends). A
 * folder removed or replaced while it waited (its run failed) is made again.
 * A file system without locks is written without one. Then the temporary
 * files of runs that died (SIGKILL: "NAME.tmp.PID", "NAME.old.PID",
 * ".NAME.log.PID" of a process that is gone) are removed, and an old file
 * that only a dead run's commit had moved aside is put back; unless quiet,
 * one line says what was cleaned. Returns 0 with *fd the lock (-1: none), or
 * the exit status after printing one line: TS_EXIT_IO, or the interrupt's
 * when a signal came while it waited. */
int ts_cli_outdir_lock(const char *dir, ts_outdir *m, int quiet, int *fd);
/* Release what ts_cli_outdir_lock took (fd -1: nothing). */
void ts_cli_outdir_unlock(int fd);
/* Whether dir holds the files of a previous run of a results command (run,
 * merge, a shard's partial.json, sensitivity, optimize: summary.json,
 * sensitivity.csv, tried.csv, ...); if so the newest one's time goes into when. */
int ts_cli_outdir_previous(const char *dir, char *when, size_t cap);
/* The folder argument dir (an -o DIR, as a shell's completion writes it:
 * "out/") without its trailing slashes, so that the paths and messages
 * joined to it read DIR/FILE ("/" stays). Edits dir in place; returns it. */
char *ts_cli_folder(char *dir);
/* Say on stderr (even quiet: it says what is lost) "tssim: replacing DIR/
 * (previous run: TIME)" when dir holds a previous run's files. Called once
 * the command is going to write: after every check of its input (a model
 * refused while the sweep runs, a shard's changed samples), never before
 * an exit that leaves the folder as it was for bad input. */
void ts_cli_outdir_say_replacing(const char *dir);
/* Have batch a remove, when it commits, every file that a results command
 * (run, merge, run --shard, sensitivity, optimize) writes into a results
 * folder and a itself neither writes nor removes already: data files and
 * plots (drawn afresh after the commit), so that dir then holds this run's
 * files only, whichever command wrote there before (docs/output.md); other
 * files (a trace, the user's) stay. Call it once every file of a is open.
 * Returns 0 or -1 with e filled. */
int ts_cli_outdir_replace(struct ts_atomic *a, const char *dir, struct ts_err *e);
/* rc, unless standard output could not be flushed: then one line says so and
 * TS_EXIT_IO is returned (when rc was 0). */
int ts_cli_stdout_status(int rc);

/* Catch SIGINT and SIGTERM: the handler only records the signal (once; a
 * second one ends the process, after removing the temporaries of the batch
 * given to ts_cli_interrupt_files). */
void ts_cli_interrupt_catch(void);
/* The batch whose temporaries a second signal removes before the process
 * ends (NULL: none); a must stay valid until this is called again with NULL. */
struct ts_atomic;
void ts_cli_interrupt_files(const struct ts_atomic *a);
/* The plots being drawn (NULL: none): a first signal stops w
 * (ts_plot_watch_stop: the gnuplot drawing is killed, no other plot
 * starts), a second abandons it (ts_plot_watch_abandon) and writes line (or
 * nothing, when NULL) on stderr before the process ends. When a signal was
 * caught already, w is stopped at once. w and line stay valid until this is
 * called again with NULL. */
struct ts_plot_watch;
void ts_cli_interrupt_plots(struct ts_plot_watch *w, const char *line);
/* The signal caught since ts_cli_interrupt_catch, or 0. */
int ts_cli_interrupted(void);
/* ts_cli_interrupted() != 0, as a ts_sweep_spec.should_stop. */
int ts_cli_should_stop(void *unused);
/* 128 + the signal caught: the exit status of an interrupted command. */
int ts_cli_interrupt_status(void);
/* The end of a command whose results are written (committed) in outdir,
 * its plots drawn or not: 0 when no signal has come; else, stdout flushed,
 * one line on stderr and the interrupt's status. The line says what the
 * signal left undone: undrawn ("plots not drawn: cpu (...)": "tssim:
 * interrupted: the results are written in DIR; UNDRAWN"); else what is
 * written besides the results, drawn ("plots": "tssim: interrupted: the
 * results and plots are written in DIR"); else (both NULL) that nothing
 * was ("...; nothing was left to do"). */
int ts_cli_interrupt_written(const char *outdir, const char *drawn, const char *undrawn);

/* Shared by the subcommands that record one sweep point (trace, gantt,
 * explain): their command line is SCENARIO.json, the ts_vizopt options and
 * options of their own. */
#include <getopt.h>
#include <stdio.h>

#include "viz/timeline.h"
#include "viz/vizopt.h"

typedef struct ts_cli_point_cmd {
  const char *name;              /* "trace": named in the usage error */
  const char *shortopts;         /* for getopt_long, with "h" */
  const struct option *longopts; /* TS_VIZOPT_LONG, the command's own, {"help", ..., 'h'} */
  void (*usage)(FILE *f);
  /* Take the command's own option c (a getopt_long result) with argument
   * arg. Returns 0 when taken; -1 when it is not one (then the usage goes to
   * stderr and the exit status is 2); else the exit status, after printing
   * one line. NULL: the command has no options of its own. */
  int (*take)(void *ctx, int c, const char *arg);
  void *ctx;
  size_t max_events;             /* default of --max-events (0: no limit) */
} ts_cli_point_cmd;

typedef struct ts_cli_point {
  ts_vizopt opt; /* n, workers and seed resolved */
  ts_loaded L;   /* its scenario's axes applied, one value each (none left) */
  char title[512]; /* the scenario's name and the axis values drawn: "NAME (KEY=LABEL, ...)" */
} ts_cli_point;

/* Parse cmd's command line argv, load its scenario (with the --set
 * overrides) and resolve the sweep point into p. Returns 0 when p is ready
 * (free it with ts_cli_point_finish). Else nothing is left to free, what was
 * wrong is printed, and the command exits with *status: 0 after --help, 2
 * after bad usage or bad input, 1 out of memory. */
int ts_cli_point_open(const ts_cli_point_cmd *cmd, int argc, char **argv, ts_cli_point *p, int *status);
/* Record replication 0 of the point with n actors (p->opt.n, or another)
 * into tl. Returns ts_timeline_record's result. */
int ts_cli_point_record(const ts_cli_point *p, int n, ts_timeline *tl);
/* Print "tssim: SCENARIO: what" for ts_timeline_record's nonzero result r
 * on tl, with hint appended, and return the exit status: 2 when the point is
 * too large to simulate or to record (then the line says how to raise the
 * limit) or the model fails at it, else 1. */
int ts_cli_point_fail(const ts_cli_point *p, const ts_timeline *tl, int r, const char *hint);
/* Record the point and hand its timeline to show, also when its actors
 * stuck on locks (then the picture shows where, and stuck is appended to
 * the error that follows it). show returns 0, or an exit status after
 * printing what failed. Returns the exit status. */
int ts_cli_point_show(const ts_cli_point *p, int (*show)(void *ctx, const ts_cli_point *p, const ts_timeline *tl),
                      void *ctx, const char *stuck);
/* Free what ts_cli_point_open loaded. */
void ts_cli_point_finish(ts_cli_point *p);

#endif
