/* tssim run: sweep a scenario, print the table, write the results folder. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "io/model_json.h"
#include "io/report.h"
#include "run/metrics.h"
#include "run/sweep.h"
#include "viz/plot.h"

static void usage(FILE *f)
{
  fputs("usage: tssim run SCENARIO.json [options]\n"
        "\n"
        "Run the scenario's sweep over n (actors of the class counted by \"n\") and workers,\n"
        "print a table and write summary.csv, samples.csv, summary.json (and plots, when\n"
        "gnuplot is installed) into the output folder.\n"
        "\n"
        "options:\n"
        "  -o, --output DIR        results folder (default: results/<scenario name>)\n"
        "      --seed S            scenario seed (default: the scenario's, else 1)\n"
        "      --n LIST            override the sweep's n, e.g. 1,2,4\n"
        "      --workers LIST      override the sweep's worker counts, e.g. 1,2\n"
        "  -r, --replications R    override the number of replications\n"
        "      --set PATH=VALUE    override a model field by its JSON path, e.g.\n"
        "                          --set worker.threshold_ms=200 --set params.tracker_ms=100\n"
        "                          (repeatable; VALUE is JSON, or a string)\n"
        "      --ci-target P%      add replications (in batches of R) until every metric's 95%\n"
        "                          half-width is within P% of its mean, e.g. 2%\n"
        "      --ci-max R          at most R replications with --ci-target (default 1000)\n"
        "      --no-plots          do not run gnuplot\n"
        "  -q, --quiet             no table, no progress\n"
        "  -h, --help              this help\n"
        "\n"
        "metrics (see README \"What the output means\"; a model adds its spans' and its own):\n",
        f);
  ts_model none = {0};
  ts_metric_list l;
  char err[64];
  none.has_mutex = none.has_chan = none.has_hop = none.has_call = none.has_sleep = none.has_thread = 1;
  none.ipms_user = 1;
  if (ts_metric_list_build(&none, &l, err, sizeof err) == 0) {
    for (size_t m = 0; m < l.n; m++)
      fprintf(f, "  %-20s %s\n", l.v[m].name, l.v[m].meaning);
    ts_metric_list_finish(&l);
  }
  fputs("  <span>_count, <span>_rate_per_s, <span>_mean_ms, <span>_p50_ms, <span>_p95_ms, <span>_p99_ms\n"
        "                       per span of the model\n", f);
  fputs("\nWhen the output folder holds a previous run, a line on stderr says so before its files\n"
        "are replaced (all at once, when the new ones are complete; old plots are removed then).\n"
        "SIGINT (Ctrl-C) or SIGTERM stops the sweep after the replication in progress.\n"
        "\n" TS_CLI_EXIT_HELP_INTERRUPT,
        f);
}

typedef struct progress {
  int on;
} progress;

static int on_progress(void *data, size_t point, size_t points, int rep)
{
  progress *p = data;
  if (p->on)
    fprintf(stderr, "\r  point %zu/%zu, replication %d", point + 1, points, rep + 1);
  return 0;
}

/* "2%" or "0.02" as a fraction in (0, 1). */
static int parse_target(const char *text, double *out, ts_err *e)
{
  char *end;
  double v = strtod(text, &end);
  if (end != text && *end == '%' && end[1] == '\0')
    v /= 100;
  else if (end == text || *end)
    v = -1;
  if (!(v > 0 && v < 1))
    return ts_err_set(e, "--ci-target", NULL, "expected a percentage such as 2%%, got \"%s\"", text);
  *out = v;
  return 0;
}

/* Replace the sweep's list (*list, *len) by the one in arg, unless arg is
 * NULL. Returns 0, or -1 with e filled. */
static int override_list(const char *arg, const char *what, long lo, long hi, int **list, size_t *len, ts_err *e)
{
  int *parsed;
  size_t n;
  if (!arg)
    return 0;
  if (ts_parse_int_list(arg, what, lo, hi, &parsed, &n, e))
    return -1;
  free(*list);
  *list = parsed;
  *len = n;
  return 0;
}

/* The confidence target applies to the metrics the table reports. */
static int table_cols(void *ctx, const ts_sweep *s, int *cols, int max)
{
  const ts_loaded *L = ctx;
  return ts_report_table_cols(&L->sc, s, cols, max);
}

/* A model that runs forever needs a horizon. */
static int check_horizon(const ts_loaded *L, ts_err *e)
{
  if (L->sc.horizon != TS_TIME_MAX)
    return 0;
  for (size_t c = 0; c < L->model.nclasses; c++) {
    const ts_class *k = &L->model.classes[c];
    if (k->forever)
      return ts_err_set(e, L->sc.file, "horizon_ms", "missing: class %s arrives until the horizon (\"count\": "
                        "\"forever\"), so the scenario needs horizon_ms", k->name);
    for (size_t i = 0; i < k->nsteps; i++)
      if (k->steps[i].forever)
        return ts_err_set(e, L->sc.file, "horizon_ms", "missing: %s repeats forever, so the scenario needs horizon_ms",
                          k->steps[i].where);
  }
  return 0;
}

/* The sweep stopped at a signal: say what was not finished, free it, and
 * return the exit status. */
static int interrupted(const char *outdir, int points_done, int points, ts_sweep *s)
{
  fprintf(stderr, "tssim: interrupted: %d of %d sweep points done; %s%s left as it was\n", points_done, points,
          outdir, outdir[strlen(outdir) - 1] == '/' ? "" : "/");
  ts_sweep_finish(s);
  return ts_cli_interrupt_status();
}

/* Write the results folder in one batch: summary.csv, samples.csv and
 * summary.json replace the old ones and the old plots go, all at once (the
 * plots are drawn afresh afterwards). Returns the exit status: 0, TS_EXIT_IO,
 * or the interrupt's when a signal came before the commit (nothing written;
 * the sweep is freed on failure). */
static int write_results(const char *outdir, const ts_loaded *L, ts_sweep *s, int quiet)
{
  ts_atomic a;
  ts_err e;
  ts_atomic_init(&a);
  if (ts_plot_mark_stale(&a, outdir, &e) ||
      ts_report_add(&a, outdir, &L->sc, L->resolved, s, L->has_baseline ? &L->baseline : NULL, &e)) {
    ts_atomic_abort(&a);
    fprintf(stderr, "tssim: %s\n", e.msg);
    ts_sweep_finish(s);
    return TS_EXIT_IO;
  }
  if (ts_cli_interrupted()) {
    ts_atomic_abort(&a);
    return interrupted(outdir, (int)s->points_done, (int)s->points_done, s);
  }
  if (ts_atomic_commit(&a, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    ts_sweep_finish(s);
    return TS_EXIT_IO;
  }
  if (!quiet)
    printf("\nwrote %s/summary.csv, samples.csv, summary.json\n", outdir);
  return 0;
}

int ts_cmd_run(int argc, char **argv)
{
  static const struct option opts[] = {
    {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 'S'},
    {"n", required_argument, NULL, 'n'},      {"workers", required_argument, NULL, 'w'},
    {"replications", required_argument, NULL, 'r'}, {"set", required_argument, NULL, 's'},
    {"no-plots", no_argument, NULL, 'P'},     {"quiet", no_argument, NULL, 'q'},
    {"ci-target", required_argument, NULL, 'T'}, {"ci-max", required_argument, NULL, 'X'},
    {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};
  const char *outdir = NULL, *seed_arg = NULL, *n_arg = NULL, *w_arg = NULL, *r_arg = NULL, *t_arg = NULL,
             *x_arg = NULL;
  const char **sets = calloc((size_t)argc + 1, sizeof *sets);
  int nsets = 0, quiet = 0, plots = 1, c, rc = 2;
  if (!sets)
    return 1;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:r:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o': outdir = optarg; break;
    case 'S': seed_arg = optarg; break;
    case 'n': n_arg = optarg; break;
    case 'w': w_arg = optarg; break;
    case 'r': r_arg = optarg; break;
    case 's': sets[nsets++] = optarg; break;
    case 'P': plots = 0; break;
    case 'T': t_arg = optarg; break;
    case 'X': x_arg = optarg; break;
    case 'q': quiet = 1; break;
    case 'h': usage(stdout); free(sets); return 0;
    default: free(sets); return ts_cli_bad_option("run", argv);
    }
  }
  if (optind != argc - 1) {
    free(sets);
    return ts_cli_usage_error("run: expected exactly one SCENARIO.json (see tssim run --help)");
  }
  ts_loaded L;
  if (ts_cli_load(argv[optind], sets, nsets, &L)) {
    free(sets);
    return 2;
  }
  ts_err e;
  if (override_list(n_arg, "--n", 1, TS_MAX_ACTORS, &L.sc.ns, &L.sc.nn, &e) ||
      override_list(w_arg, "--workers", 1, TS_MAX_WORKERS, &L.sc.workers, &L.sc.nw, &e))
    goto bad;
  if (r_arg) {
    char *end;
    long r = strtol(r_arg, &end, 10);
    if (*end || r < 1 || r > 100000) {
      ts_err_set(&e, "--replications", NULL, "expected an integer in [1, 100000], got \"%s\"", r_arg);
      goto bad;
    }
    L.sc.replications = (int)r;
  }
  if (seed_arg && ts_parse_seed(seed_arg, &L.sc.seed, &e))
    goto bad;
  if (t_arg && parse_target(t_arg, &L.sc.ci_target, &e))
    goto bad;
  if (x_arg) {
    char *end;
    long x = strtol(x_arg, &end, 10);
    if (*end || x < 2 || x > 100000) {
      ts_err_set(&e, "--ci-max", NULL, "expected an integer in [2, 100000], got \"%s\"", x_arg);
      goto bad;
    }
    L.sc.ci_max = (int)x;
  }
  if (check_horizon(&L, &e))
    goto bad;
  int sizes[16];
  for (int a = 0; a < L.sc.naxes; a++)
    sizes[a] = L.sc.axes[a].nvalues;
  char dirbuf[1024], when[64];
  if (!outdir) {
    snprintf(dirbuf, sizeof dirbuf, "results/%s", L.sc.name);
    outdir = dirbuf;
  }
  if ((rc = ts_cli_outdir_check(outdir)) != 0)
    goto done;
  ts_cli_interrupt_catch();
  if (!quiet && ts_cli_outdir_previous(outdir, when, sizeof when))
    fprintf(stderr, "tssim: replacing %s%s (previous run: %s)\n", outdir,
            outdir[strlen(outdir) - 1] == '/' ? "" : "/", when);
  progress pr = {.on = !quiet && isatty(2)};
  ts_sweep_spec spec = {.ns = L.sc.ns, .nn = L.sc.nn, .workers = L.sc.workers, .nw = L.sc.nw,
                        .replications = L.sc.replications, .seed = L.sc.seed, .keep_samples = 1,
                        .horizon = L.sc.horizon, .warmup = L.sc.warmup, .window = L.sc.window,
                        .naxes = L.sc.naxes, .axis_sizes = sizes, .model_of = L.sc.naxes ? ts_cli_model_of : NULL,
                        .model = &L.model, .ctx = &L, .ci_target = L.sc.ci_target, .ci_max = L.sc.ci_max,
                        .ci_cols = table_cols,
                        .progress = on_progress, .progress_data = &pr, .should_stop = ts_cli_should_stop};
  ts_sweep s;
  int sr = ts_sweep_run(&spec, &s);
  if (pr.on)
    fputs("\r\033[K", stderr);
  if (sr == TS_SWEEP_STOPPED) {
    rc = interrupted(outdir, (int)s.points_done, (int)ts_sweep_npoints(&spec), &s);
    goto done;
  }
  if (sr != 0) {
    fprintf(stderr, "tssim: %s: %s\n", sr == TS_SWEEP_MODEL ? L.sc.model_path : L.sc.file, s.errmsg);
    ts_sweep_finish(&s);
    rc = sr == TS_SWEEP_MODEL || sr == TS_SWEEP_HORIZON ? TS_EXIT_USAGE : TS_EXIT_FAILED;
    goto done;
  }
  if (!quiet) {
    printf("%s: %s\nmodel %s, seed %llu, %d replication(s)%s%s\n", L.sc.name, L.sc.description, L.sc.model_path,
           (unsigned long long)L.sc.seed, L.sc.replications, L.has_baseline ? ", recorded: " : "",
           L.has_baseline ? L.baseline.file : "");
    if (L.sc.ci_target > 0)
      printf("confidence target: every 95%% half-width within %g%% of its mean, reached with at most %d "
             "replications\n", 100 * L.sc.ci_target, s.max_replications);
    putchar('\n');
    ts_report_table(stdout, &L.sc, &s, L.has_baseline ? &L.baseline : NULL);
  }
  if ((rc = write_results(outdir, &L, &s, quiet)) != 0)
    goto done;
  int skipped = plots && ts_cli_interrupted();
  if (plots && !skipped)
    ts_plot_results(outdir, quiet);
  ts_sweep_finish(&s);
  if (ts_cli_interrupted()) { /* after the commit: the results stand */
    fprintf(stderr, "tssim: interrupted: the results are written in %s; %s\n", outdir,
            skipped ? "the plots were not drawn" : plots ? "some plots may be missing" : "nothing was left to do");
    rc = ts_cli_interrupt_status();
  }
  goto done;
bad:
  fprintf(stderr, "tssim: %s\n", e.msg);
  rc = 2;
done:
  ts_cli_unload(&L);
  free(sets);
  return rc;
}
