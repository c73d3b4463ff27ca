/* tssim trace: record one sweep point and write it as a Chrome trace. */
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "viz/timeline.h"
#include "viz/trace.h"
#include "viz/vizopt.h"

static void usage(FILE *f)
{
  fprintf(f, "usage: tssim trace SCENARIO.json [options]\n"
        "\n"
        "Simulate one sweep point of the scenario (replication 0) and write its timeline as\n"
        "Chrome trace-event JSON: open it in https://ui.perfetto.dev (or --html's page).\n"
        "One process per worker: its event loop or thread track (which actor runs each slice,\n"
        "step by step, and loop overhead), one track per actor (queued, running, callback\n"
        "wait on an event loop or runnable on a thread, by the worker it waits for, I/O,\n"
        "lock wait; lock held as an async slice), flow arrows from I/O completions to\n"
        "their callbacks and for wakes (lock and mutex hand-overs, notifies of parked\n"
        "waiters), counters of queue depth and priority operations in flight. Times are\n"
        "simulated microseconds.\n"
        "\n"
        "options:\n"
        "  -o, --output FILE       trace file (default: results/<scenario name>/trace-n<N>-w<W>.json)\n"
        "      --html FILE         also write FILE: a self-contained page that draws the same trace\n"
        "                          as a timeline in any browser, offline\n" TS_VIZOPT_HELP
        "  -h, --help              this help\n"
        "\n"
        "The point is refused when it records more than --max-events events (default %d: a trace\n"
        "costs about 1.5 KB of memory and 130 bytes of file per event).\n"
        "\n" TS_CLI_EXIT_HELP ".\n",
        TS_VIZOPT_TRACE_EVENTS);
}

typedef struct trace_opts {
  const char *out, *html;
} trace_opts;

static int take(void *ctx, int c, const char *arg)
{
  trace_opts *t = ctx;
  switch (c) {
  case 'o': t->out = arg; return 0;
  case 'H': t->html = arg; return 0;
  default: return -1;
  }
}

static int write_trace(void *ctx, const ts_cli_point *p, const ts_timeline *tl)
{
  const trace_opts *t = ctx;
  const ts_scenario *sc = &p->L.sc;
  ts_trace_info info = {.scenario = p->title, .model_file = sc->model_path};
  ts_err e;
  ts_atomic a;
  ts_atomic_init(&a);
  ts_outdir made = {0}; /* the files' missing folders, removed if the files are not written */
  ts_cli_interrupt_catch(); /* while the files are written: a first signal waits for them, a second removes them */
  ts_cli_interrupt_files(&a);
  /* one batch: both files, or neither (the page's failure left the trace written) */
  int bad = ts_cli_outfile_make(t->out, &made, &e) || (t->html && ts_cli_outfile_make(t->html, &made, &e)) ||
            ts_trace_write(&a, tl, &info, t->out, &e) || (t->html && ts_trace_write_html(&a, tl, &info, t->html, &e));
  if (bad)
    ts_atomic_abort(&a);
  else
    bad = ts_atomic_commit(&a, &e);
  ts_cli_interrupt_files(NULL);
  ts_cli_outdir_end(&made, bad);
  if (bad) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    return TS_EXIT_IO;
  }
  printf("wrote %s: n=%d, workers=%d, %d actor%s, %.3f ms simulated, %zu run pieces\n"
         "open it in https://ui.perfetto.dev (Open trace file)\n",
         t->out, p->opt.n, p->opt.workers, tl->nactors, tl->nactors == 1 ? "" : "s", ts_time_to_ms(tl->end), tl->npieces);
  if (t->html)
    printf("wrote %s: the same trace as a page for any browser, offline\n", t->html);
  /* a signal that came as they were written: said as by every command */
  char both[2 * PATH_MAX + 8];
  snprintf(both, sizeof both, "%s%s%s", t->out, t->html ? " and " : "", t->html ? t->html : "");
  return ts_cli_interrupt_written(both, NULL, NULL);
}

/* Whether paths a and b name one file: the same name in the same folder
 * (by device and inode when both folders exist: "t.json" and "./t.json",
 * "sub/t.json" and "sub//t.json"), else the same text. */
static int same_file(const char *a, const char *b)
{
  char da[1024], db[1024];
  const char *na = ts_atomic_split(a, da, sizeof da), *nb = ts_atomic_split(b, db, sizeof db);
  struct stat sa, sb;
  if (!na || !nb || strcmp(na, nb) != 0)
    return strcmp(a, b) == 0;
  if (stat(da, &sa) == 0 && stat(db, &sb) == 0)
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
  return strcmp(a, b) == 0;
}

/* Refuse, before anything runs, an output path opt names that cannot be the
 * file what is written to: ts_cli_outfile_check's rules (a folder, a name
 * ending in "/", another non-regular file or a file in its folder's path:
 * exit status 2, one line; a folder that cannot be written: 3; missing
 * folders are made when the trace is written), or the file other (the other
 * output's, or NULL) names too (2). Returns 0 or the exit status. */
static int check_output(const char *opt, const char *path, const char *what, const char *other)
{
  int rc = ts_cli_outfile_check(path, opt, what);
  if (rc == 0 && other && same_file(path, other))
    rc = ts_cli_usage_error("%s %s: is the trace's file too (-o), expected another file", opt, path);
  return rc;
}

int ts_cmd_trace(int argc, char **argv)
{
  static const struct option opts[] = {
    TS_VIZOPT_LONG, {"output", required_argument, NULL, 'o'}, {"html", required_argument, NULL, 'H'},
    {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  trace_opts t = {0};
  const ts_cli_point_cmd cmd = {"trace", "o:h", opts, usage, take, &t, TS_VIZOPT_TRACE_EVENTS};
  ts_cli_point p;
  int rc;
  if (ts_cli_point_open(&cmd, argc, argv, &p, &rc))
    return rc;
  char path[1024];
  if (!t.out) {
    snprintf(path, sizeof path, "results/%s/trace-n%d-w%d.json", p.L.sc.name, p.opt.n, p.opt.workers);
    t.out = path;
  }
  if ((rc = check_output("-o", t.out, "the trace", NULL)) == 0 &&
      (!t.html || (rc = check_output("--html", t.html, "the trace's page", t.out)) == 0))
    rc = ts_cli_point_show(&p, write_trace, &t, " (the trace shows where they stuck)");
  ts_cli_point_finish(&p);
  return rc;
}
