/* tssim explain: decompose one sweep point's wall clock and set it beside
 * the closed-form laws. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "engine/rng.h"
#include "viz/explain.h"
#include "viz/timeline.h"
#include "viz/vizopt.h"

static void usage(FILE *f)
{
  fputs("usage: tssim explain SCENARIO.json [options]\n"
        "\n"
        "Simulate one sweep point of the scenario (replication 0) and explain its wall clock:\n"
        "for each actor class, where the wave goes (own CPU, queue wait, I/O-callback wait,\n"
        "I/O, lock wait), what the worker ran while the actor waited, and how long locks\n"
        "stayed held while their holder was descheduled. Then the closed forms: round robin\n"
        "with equal demands (exact when it applies), its processor-sharing limit (q -> 0), and\n"
        "the wave law wave(N) ~ m*(queued CPU + loop CPU) + overlappable latency, with its\n"
        "terms from n=1 and at this n, and the exact reasons the simulation differs from it.\n"
        "\n"
        "options:\n" TS_VIZOPT_HELP
        "  -h, --help              this help\n"
        "\n"
        "exit status: 0 ok, 1 the simulation failed, 2 bad usage or bad input.\n",
        f);
}

int ts_cmd_explain(int argc, char **argv)
{
  static const struct option opts[] = {TS_VIZOPT_LONG, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  ts_vizopt o;
  int c;
  if (ts_vizopt_init(&o, argc))
    return 1;
  optind = 1;
  while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
    if (ts_vizopt_take(&o, c, optarg))
      continue;
    if (c == 'h') {
      usage(stdout);
      ts_vizopt_finish(&o);
      return 0;
    }
    usage(stderr);
    ts_vizopt_finish(&o);
    return 2;
  }
  if (optind != argc - 1) {
    ts_vizopt_finish(&o);
    usage(stderr);
    return ts_cli_usage_error("explain: expected exactly one SCENARIO.json");
  }
  ts_loaded L;
  if (ts_cli_load(argv[optind], o.sets, o.nsets, &L)) {
    ts_vizopt_finish(&o);
    return 2;
  }
  ts_err e;
  int rc = 2;
  ts_timeline tl = {0}, ref = {0};
  if (ts_vizopt_resolve(&o, &L.sc, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    goto done;
  }
  rc = 1;
  int r = ts_timeline_record(&tl, &L.model, o.n, o.workers, ts_rng_derive_seed(o.seed, o.n, o.workers, 0));
  int r1 = o.n == 1 ? 0 : ts_timeline_record(&ref, &L.model, 1, o.workers, ts_rng_derive_seed(o.seed, 1, o.workers, 0));
  if (r != 0 || r1 != 0) {
    int bad = r != 0 ? r : r1;
    fprintf(stderr, "tssim: %s: %s%s\n", L.sc.file, ts_timeline_strerror(bad),
            bad == -2 ? " (see tssim gantt or tssim trace)" : "");
    rc = bad == -4 ? 2 : 1;
    goto done;
  }
  if (ts_explain_report(stdout, &tl, o.n == 1 ? NULL : &ref, L.sc.name)) {
    fprintf(stderr, "tssim: out of memory explaining the run\n");
    goto done;
  }
  rc = 0;
done:
  ts_timeline_finish(&tl);
  ts_timeline_finish(&ref);
  ts_cli_unload(&L);
  ts_vizopt_finish(&o);
  return rc;
}
