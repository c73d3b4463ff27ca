/* SIGINT and SIGTERM during tssim run and tssim calibrate. The handler only
 * records which signal came (a sig_atomic_t: static mutable state, as is the
 * batch pointer below, since a handler has no context to write to; the only
 * other, for the same reason, is io/jsonfile.c's flag for cJSON's failed
 * allocations); the sweep and
 * the calibration poll it between replications and evaluations, stop, and
 * the command removes its temporaries, says what was not finished and exits
 * 128 + the signal. A second signal ends the process at once, by the
 * signal's default action, after removing the temporaries of the batch the
 * command is writing (ts_cli_interrupt_files). Without that, `timeout
 * -s INT 1 tssim run ...` (timeout signals tssim, then its process group)
 * left samples.csv.tmp.PID, megabytes, beside the results.
 * While the plots are drawn (ts_cli_interrupt_plots), the first signal also
 * kills the gnuplot drawing, and the second kills it, reaps it, removes its
 * temporaries and writes the command's line before the process ends: an
 * interrupted plot left cpu.png.tmp.PID and a gnuplot that went on drawing
 * after tssim had gone. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "viz/plot.h"

static volatile sig_atomic_t caught;
static const ts_atomic *volatile writing;
static ts_plot_watch *volatile drawing;
static const char *volatile drawing_line;

static void on_signal(int sig)
{
  int saved = errno;
  ts_plot_watch *w = drawing;
  if (!caught) {
    caught = sig;
    if (w)
      ts_plot_watch_stop(w);
    errno = saved;
    return;
  }
  const ts_atomic *a = writing;
  if (a)
    ts_atomic_unlink_temporaries(a);
  if (w) {
    ts_plot_watch_abandon(w);
    const char *line = drawing_line;
    if (line && write(2, line, strlen(line)) < 0)
      line = NULL; /* (nothing more to do: the process ends) */
  }
  signal(sig, SIG_DFL);
  raise(sig); /* delivered when the handler returns: the default action, as before */
}

void ts_cli_interrupt_catch(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = 0;
  sigemptyset(&sa.sa_mask);
  caught = 0;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

void ts_cli_interrupt_files(const ts_atomic *a)
{
  writing = a;
}

void ts_cli_interrupt_plots(ts_plot_watch *w, const char *line)
{
  drawing_line = line;
  drawing = w;
  if (w && caught) /* (a signal between these lines stops it as well) */
    ts_plot_watch_stop(w);
}

int ts_cli_interrupted(void)
{
  return caught;
}

int ts_cli_should_stop(void *unused)
{
  (void)unused;
  return caught != 0;
}

int ts_cli_interrupt_status(void)
{
  return 128 + caught;
}

int ts_cli_interrupt_written(const char *outdir, const char *drawn, const char *undrawn)
{
  if (!caught)
    return 0;
  fflush(stdout);
  if (undrawn)
    fprintf(stderr, "tssim: interrupted: the results are written in %s; %s\n", outdir, undrawn);
  else if (drawn)
    fprintf(stderr, "tssim: interrupted: the results and %s are written in %s\n", drawn, outdir);
  else
    fprintf(stderr, "tssim: interrupted: the results are written in %s; nothing was left to do\n", outdir);
  return ts_cli_interrupt_status();
}
