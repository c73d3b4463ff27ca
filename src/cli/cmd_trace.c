/* tssim trace: record one sweep point and write it as a Chrome trace. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "engine/rng.h"
#include "viz/timeline.h"
#include "viz/trace.h"
#include "viz/vizopt.h"

static void usage(FILE *f)
{
  fputs("usage: tssim trace SCENARIO.json [options]\n"
        "\n"
        "Simulate one sweep point of the scenario (replication 0) and write its timeline as\n"
        "Chrome trace-event JSON: open it in https://ui.perfetto.dev or chrome://tracing.\n"
        "One process per worker: its event loop track (which actor runs each slice, step\n"
        "by step, and loop overhead), one track per actor (queued, running, callback wait,\n"
        "I/O, lock wait; lock held as an async slice), flow arrows from I/O completions to\n"
        "their callbacks and for lock hand-overs, counters of queue depth and priority\n"
        "operations in flight. Times are simulated microseconds.\n"
        "\n"
        "options:\n"
        "  -o, --output FILE       trace file (default: results/<scenario name>/trace-n<N>-w<W>.json)\n"
        "      --html FILE         also write FILE: a self-contained page that draws the same trace\n"
        "                          as a timeline in any browser, offline\n" TS_VIZOPT_HELP
        "  -h, --help              this help\n"
        "\n"
        "exit status: 0 ok, 1 the simulation or the write failed, 2 bad usage or bad input.\n",
        f);
}

int ts_cmd_trace(int argc, char **argv)
{
  static const struct option opts[] = {
    TS_VIZOPT_LONG, {"output", required_argument, NULL, 'o'}, {"html", required_argument, NULL, 'H'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  ts_vizopt o;
  const char *out = NULL, *html = NULL;
  int c;
  if (ts_vizopt_init(&o, argc))
    return 1;
  optind = 1;
  while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
    if (ts_vizopt_take(&o, c, optarg))
      continue;
    switch (c) {
    case 'o': out = optarg; break;
    case 'H': html = optarg; break;
    case 'h': usage(stdout); ts_vizopt_finish(&o); return 0;
    default: usage(stderr); ts_vizopt_finish(&o); return 2;
    }
  }
  if (optind != argc - 1) {
    ts_vizopt_finish(&o);
    usage(stderr);
    return ts_cli_usage_error("trace: expected exactly one SCENARIO.json");
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
  char path[1024];
  if (!out) {
    snprintf(path, sizeof path, "results/%s/trace-n%d-w%d.json", L.sc.name, o.n, o.workers);
    out = path;
  }
  int r = ts_timeline_record(&tl, &L.model, o.n, o.workers, ts_rng_derive_seed(o.seed, o.n, o.workers, 0));
  rc = r == -4 ? 2 : 1;
  if (r != 0 && r != -2) {
    fprintf(stderr, "tssim: %s: %s\n", L.sc.file, ts_timeline_strerror(r));
    goto done;
  }
  ts_trace_info info = {.scenario = L.sc.name, .model_file = L.sc.model_path};
  if (ts_trace_write(&tl, &info, out, &e) || (html && ts_trace_write_html(&tl, &info, html, &e))) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    goto done;
  }
  printf("wrote %s: n=%d, workers=%d, %d actors, %.3f ms simulated, %zu run pieces\n"
         "open it in https://ui.perfetto.dev (Open trace file) or chrome://tracing (Load)\n",
         out, o.n, o.workers, tl.nactors, ts_time_to_ms(tl.end), tl.npieces);
  if (html)
    printf("wrote %s: the same trace as a page for any browser, offline\n", html);
  if (r == -2) {
    fprintf(stderr, "tssim: %s: %s (the trace shows where they stuck)\n", L.sc.file, ts_timeline_strerror(r));
    goto done;
  }
  rc = 0;
done:
  ts_timeline_finish(&tl);
  ts_cli_unload(&L);
  ts_vizopt_finish(&o);
  return rc;
}
