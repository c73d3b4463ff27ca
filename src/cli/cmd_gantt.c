/* tssim gantt: record one sweep point and draw it in the terminal. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "engine/rng.h"
#include "viz/gantt.h"
#include "viz/timeline.h"
#include "viz/vizopt.h"

static void usage(FILE *f)
{
  fputs("usage: tssim gantt SCENARIO.json [options]\n"
        "\n"
        "Simulate one sweep point of the scenario (replication 0) and draw its timeline:\n"
        "a time axis, one row per worker (which actor runs, loop overhead, idle), one row\n"
        "per actor (running, queued, callback wait, I/O, lock wait) and, when the model\n"
        "has locks, a row under each actor showing when it holds one; then a legend.\n"
        "\n"
        "options:\n"
        "      --width COLUMNS     total width (default 100, at least 60)\n"
        "      --ascii             plain ASCII instead of Unicode blocks\n"
        "      --max-actors K      draw at most the first K actors (default 32)\n" TS_VIZOPT_HELP
        "  -h, --help              this help\n"
        "\n"
        "exit status: 0 ok, 1 the simulation failed, 2 bad usage or bad input.\n",
        f);
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

int ts_cmd_gantt(int argc, char **argv)
{
  static const struct option opts[] = {TS_VIZOPT_LONG,
                                       {"width", required_argument, NULL, 'W'},
                                       {"ascii", no_argument, NULL, 'A'},
                                       {"max-actors", required_argument, NULL, 'M'},
                                       {"help", no_argument, NULL, 'h'},
                                       {NULL, 0, NULL, 0}};
  ts_vizopt o;
  ts_gantt_opts g = {.width = 100, .max_actors = 32};
  int c, bad = 0;
  if (ts_vizopt_init(&o, argc))
    return 1;
  optind = 1;
  while (!bad && (c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (ts_vizopt_take(&o, c, optarg))
      continue;
    switch (c) {
    case 'W': bad = int_arg(optarg, "--width", TS_GANTT_MIN_WIDTH, 10000, &g.width); break;
    case 'A': g.ascii = 1; break;
    case 'M': bad = int_arg(optarg, "--max-actors", 0, 1000000, &g.max_actors); break;
    case 'h': usage(stdout); ts_vizopt_finish(&o); return 0;
    default: usage(stderr); ts_vizopt_finish(&o); return 2;
    }
  }
  if (bad || optind != argc - 1) {
    ts_vizopt_finish(&o);
    if (bad)
      return 2;
    usage(stderr);
    return ts_cli_usage_error("gantt: expected exactly one SCENARIO.json");
  }
  ts_loaded L;
  if (ts_cli_load(argv[optind], o.sets, o.nsets, &L)) {
    ts_vizopt_finish(&o);
    return 2;
  }
  ts_err e;
  int rc = 2;
  ts_timeline tl = {0};
  if (ts_vizopt_resolve(&o, &L.sc, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    goto done;
  }
  int r = ts_timeline_record(&tl, &L.model, o.n, o.workers, ts_rng_derive_seed(o.seed, o.n, o.workers, 0));
  rc = r == -4 ? 2 : 1;
  if (r != 0 && r != -2) {
    fprintf(stderr, "tssim: %s: %s\n", L.sc.file, ts_timeline_strerror(r));
    goto done;
  }
  g.title = L.sc.name;
  if (ts_gantt_render(stdout, &tl, &g)) {
    fprintf(stderr, "tssim: out of memory drawing the chart\n");
    goto done;
  }
  if (r == -2) {
    fprintf(stderr, "tssim: %s: %s (the chart shows where they stuck)\n", L.sc.file, ts_timeline_strerror(r));
    goto done;
  }
  rc = 0;
done:
  ts_timeline_finish(&tl);
  ts_cli_unload(&L);
  ts_vizopt_finish(&o);
  return rc;
}
