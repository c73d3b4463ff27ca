/* Plots: the gnuplot scripts of plots/ (compiled into tssim) drawn from a
 * results folder's summary.csv: wave.png (wave wall clock vs N, simulated and
 * recorded, with y = N*wave(N_min)/N_min), cpu.png (per-group CPU vs N),
 * ratio.png (wave ratio vs N per worker count, with y = N),
 * decomposition.png (stacked time per group) and queue.png (the time-slice
 * queue), each also as .svg; each draws one series (or group of bars) per
 * combination of the scenario's axes. */
#ifndef TS_PLOT_H
#define TS_PLOT_H
#include <stdio.h>

#include "io/atomic.h"

/* Have batch a remove every plot file of results folder dir when it commits:
 * a run's new summary.csv never stands beside plots drawn from an older one
 * (ts_plot_results draws them afresh after the commit). Returns 0 or -1
 * with e filled. */
int ts_plot_mark_stale(ts_atomic *a, const char *dir, ts_err *e);

/* Draw the compiled-in plots/<script>.gp into dir/<script>.png and .svg
 * with gnuplot, if installed (when it is not, say how to get it, unless
 * quiet), after assigning the gnuplot string variables dir, png, svg and
 * the NULL-terminated name, value pairs of vars. Never fails the command:
 * problems are reported on stderr. Returns 1 when drawn, else 0. */
int ts_plot_draw(const char *dir, const char *script, const char *const *vars, int quiet);
/* Have batch a remove dir/<script>.png and .svg when it commits. Returns 0
 * or -1 with e filled. */
int ts_plot_mark_stale_one(ts_atomic *a, const char *dir, const char *script, ts_err *e);

/* Whether name is <script>.png or <script>.svg; script NULL: a plot file
 * ts_plot_results draws (wave.png, cpu.svg, ...). */
int ts_plot_is_file(const char *name, const char *script);

/* Write to out the gnuplot variables tssim run gives plots/<script>.gp
 * (script: wave, cpu, ratio, decomposition or queue) from results folder
 * dir's summary.csv: what a script reads besides the file (docs/viz.md;
 * one series_<i> per axis combination). Returns 0, or -1 when summary.csv
 * cannot be read or script is not one of those. */
int ts_plot_results_vars(const char *dir, const char *script, FILE *out);

/* Draw the plots for results folder dir with gnuplot, if installed; when it is
 * not, say how to get it (unless quiet). Never fails the run: problems are
 * reported on stderr. Returns the number of plots drawn (0 to 5). */
int ts_plot_results(const char *dir, int quiet);

#endif
