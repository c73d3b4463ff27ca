/* tssim gantt: record one sweep point and draw it in the terminal. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "viz/gantt.h"
#include "viz/timeline.h"
#include "viz/vizopt.h"

static void usage(FILE *f)
{
  fprintf(f, "usage: tssim gantt SCENARIO.json [options]\n"
        "\n"
        "Simulate one sweep point of the scenario (replication 0) and draw its timeline:\n"
        "a time axis, one row per worker (which actor runs, loop overhead, idle), one row\n"
        "per actor (running, queued, callback wait on an event loop or runnable on a thread,\n"
        "I/O, lock wait, a call's wait in the server's queue apart from its request and\n"
        "reply legs, its service in the handler's own states) and, when the model has\n"
        "locks, a row under each actor showing when it holds one; then a legend. An actor\n"
        "row ends \"done T\", \"dropped at T\" (a full worker refused its arrival), \"at\n"
        "horizon\" (the scenario's horizon_ms, or --horizon, ended the run) or \"stuck\" (a\n"
        "deadlock: exit status 1).\n"
        "\n"
        "options:\n"
        "      --width COLUMNS     the longest line, labels and end notes included (default\n"
        "                          100, at least 60); the time axis takes what is left, in\n"
        "                          columns of 1, 2 or 5 times a power of ten, so it may be\n"
        "                          up to 2.5 times shorter\n"
        "      --ascii             plain ASCII instead of Unicode blocks\n"
        "      --max-actors K      draw at most the first K actors (default 32; 0 draws the\n"
        "                          workers' rows only)\n"
        "      --from MS           draw from MS ms of simulated time (default 0): the\n"
        "                          columns cover the window only, and the actor rows are\n"
        "                          the actors present in it (arrived before its end, not\n"
        "                          ended before its start)\n"
        "      --to MS             draw up to MS ms (default: the end of the run); unlike\n"
        "                          --horizon it does not change the run, only what is drawn\n" TS_VIZOPT_HELP
        "  -h, --help              this help\n"
        "\n"
        "The point is refused when it records more than --max-events events (default %d).\n"
        "\n" TS_CLI_EXIT_HELP " (standard output).\n",
        TS_VIZOPT_VIEW_EVENTS);
}

static int int_arg(const char *text, const char *what, long lo, long hi, int *out)
{
  char *end;
  long v = strtol(text, &end, 10);
  if (end == text || *end || v < lo || v > hi)
    return ts_cli_usage_error("%s: expected an integer in [%ld, %ld], got \"%s\"", what, lo, hi, text);
  *out = (int)v;
  return 0;
}

/* A time of --from (lo_open 0: at least 0) or --to (lo_open 1: above 0) in
 * ms, into *out as ns. Returns 0, or 2 after saying what was expected. */
static int ms_arg(const char *text, const char *what, int lo_open, ts_time *out)
{
  char *end;
  errno = 0;
  double ms = strtod(text, &end);
  if (end == text || *end || errno || !isfinite(ms) || ms > 1e12 || (lo_open ? !(ms > 0) : !(ms >= 0)))
    return ts_cli_usage_error("%s: expected a number of ms in %s0, 1e+12], got \"%s\"", what, lo_open ? "(" : "[",
                              text);
  *out = ts_time_from_ms(ms);
  return 0;
}

static int take(void *ctx, int c, const char *arg)
{
  ts_gantt_opts *g = ctx;
  switch (c) {
  case 'F': return ms_arg(arg, "--from", 0, &g->from);
  case 'U': return ms_arg(arg, "--to", 1, &g->to);
  case 'W': return int_arg(arg, "--width", TS_GANTT_MIN_WIDTH, 10000, &g->width);
  case 'A': g->ascii = 1; return 0;
  case 'M': return int_arg(arg, "--max-actors", 0, 1000000, &g->max_actors);
  default: return -1;
  }
}

static int draw(void *ctx, const ts_cli_point *p, const ts_timeline *tl)
{
  ts_gantt_opts *g = ctx;
  g->title = p->title;
  if (g->from > 0 && g->from >= tl->end) {
    fprintf(stderr, "tssim: --from %.6g: expected a time before the end of the run (%.6g ms)\n", ts_time_to_ms(g->from),
            ts_time_to_ms(tl->end));
    return 2;
  }
  if (ts_gantt_render(stdout, tl, g)) {
    fprintf(stderr, "tssim: out of memory drawing the chart\n");
    return 1;
  }
  return 0;
}

int ts_cmd_gantt(int argc, char **argv)
{
  static const struct option opts[] = {TS_VIZOPT_LONG,
                                       {"width", required_argument, NULL, 'W'},
                                       {"ascii", no_argument, NULL, 'A'},
                                       {"max-actors", required_argument, NULL, 'M'},
                                       {"from", required_argument, NULL, 'F'},
                                       {"to", required_argument, NULL, 'U'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  ts_gantt_opts g = {.width = 100, .max_actors = 32};
  const ts_cli_point_cmd cmd = {"gantt", "h", opts, usage, take, &g, TS_VIZOPT_VIEW_EVENTS};
  ts_cli_point p;
  int rc;
  if (ts_cli_point_open(&cmd, argc, argv, &p, &rc))
    return rc;
  if (g.to > 0 && g.from >= g.to) {
    ts_cli_point_finish(&p);
    return ts_cli_usage_error("--from %.6g: expected a time before --to %.6g (ms)", ts_time_to_ms(g.from),
                              ts_time_to_ms(g.to));
  }
  rc = ts_cli_point_show(&p, draw, &g, " (the chart shows where they stuck)");
  ts_cli_point_finish(&p);
  return rc;
}
