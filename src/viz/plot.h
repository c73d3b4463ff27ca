/* Plots: the gnuplot scripts of plots/ (compiled into tssim) drawn from a
 * results folder's summary.csv: wave.png (wave wall clock vs N, simulated and
 * recorded, with y = N*wave(N_min)/N_min), cpu.png (per-group CPU vs N),
 * ratio.png (wave ratio vs N per worker count, with y = N),
 * decomposition.png (stacked time per group) and queue.png (the time-slice
 * queue), each also as .svg; each draws one series (or group of bars) per
 * combination of the scenario's axes. */
#ifndef TS_PLOT_H
#define TS_PLOT_H
#include <signal.h>
#include <stdio.h>

#include "io/atomic.h"

/* A drawing a signal handler can stop: the gnuplot process drawing a plot
 * and the temporary files it writes (the .png and .svg under temporary
 * names, its log). Zero it before the drawing; ts_plot_results and
 * ts_plot_draw fill it while gnuplot runs (its pid is set, with the signals
 * blocked, before gnuplot can write anything) and clear it after. */
typedef struct ts_plot_watch {
  volatile sig_atomic_t stop;  /* ts_plot_watch_stop was called: draw no more */
  volatile sig_atomic_t pid;   /* the gnuplot drawing, or 0 */
  volatile sig_atomic_t ntmp;  /* how many of tmp name live temporaries */
  char tmp[3][1024];
  char undrawn[128];           /* after ts_plot_results: the plots a stop left undrawn, ", "-separated */
} ts_plot_watch;

/* Stop the drawing watched by w: no plot starts after this, and the gnuplot
 * drawing one is killed (SIGKILL); the drawing function then reaps it,
 * removes its temporaries and returns. Async-signal-safe (kill only), for a
 * handler of SIGINT or SIGTERM. */
void ts_plot_watch_stop(ts_plot_watch *w);
/* For a handler that ends the process at once: kill the gnuplot drawing (if
 * any), reap it, then remove its temporaries. Async-signal-safe (kill,
 * waitpid, unlink). */
void ts_plot_watch_abandon(ts_plot_watch *w);

/* Have batch a remove every plot file of results folder dir when it commits:
 * a run's new summary.csv never stands beside plots drawn from an older one
 * (ts_plot_results draws them afresh after the commit). Returns 0 or -1
 * with e filled. */
int ts_plot_mark_stale(ts_atomic *a, const char *dir, ts_err *e);

/* Draw the compiled-in plots/<script>.gp into dir/<script>.png and .svg
 * with gnuplot, if installed (when it is not, say how to get it, unless
 * quiet), after assigning the gnuplot string variables dir, png, svg and
 * the NULL-terminated name, value pairs of vars; w (or NULL) watches it.
 * Never fails the command: problems are reported on stderr (a plot a stop
 * ended is not one). Returns 1 when drawn, else 0. */
int ts_plot_draw(const char *dir, const char *script, const char *const *vars, int quiet, ts_plot_watch *w);
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
 * not, say how to get it (unless quiet). w (or NULL) watches the drawing:
 * after ts_plot_watch_stop, the plot being drawn is dropped (its
 * temporaries removed), no other starts, and w->undrawn names the plots
 * not drawn. Never fails the run: problems are reported on stderr. Returns
 * the number of plots drawn (0 to 5). */
int ts_plot_results(const char *dir, int quiet, ts_plot_watch *w);

#endif
