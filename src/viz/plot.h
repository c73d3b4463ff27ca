/* Plots: gnuplot scripts in plots/ drawn from a results folder's CSV. */
#ifndef TS_PLOT_H
#define TS_PLOT_H

/* Draw the plots for results folder dir with gnuplot, if installed; when it is
 * not, say how to get them. Never fails the run. Returns the number of plots drawn. */
int ts_plot_results(const char *dir, int quiet);

#endif
