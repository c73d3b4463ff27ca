/* tssim calibrate: fit a model's free parameters to a recorded baseline,
 * print the fit (and leave-one-out) tables, write the calibrated model. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "fit/loo.h"
#include "fit/lsq.h"
#include "fit/minimize.h"
#include "fit/output.h"
#include "fit/param.h"
#include "fit/problem.h"
#include "io/atomic.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/dispatch.h"
#include "run/metrics.h"
#include "run/sweep.h"

#define DEFAULT_REPLICATIONS 3

static void usage(FILE *f)
{
  fprintf(f, "usage: tssim calibrate MODEL.json BASELINE.json [options]\n"
        "\n"
        "Fit the model's free parameters (its \"free\" array) to the metrics recorded in the\n"
        "baseline by minimizing sum weight * ((simulated - recorded) / recorded)^2. The objective\n"
        "is evaluated at the start and at --starts quasi-random points over the bounds; GSL's\n"
        "nonlinear least squares (or, with --method nm, its Nelder-Mead simplex) then runs\n"
        "from the --searches best of them, and the best search wins. Every evaluation sweeps\n"
        "the recorded (n, workers) points with the same seeds, so the fit is deterministic.\n"
        "Prints each recorded value beside the fitted prediction and writes the calibrated\n"
        "model: the same JSON with the fitted values and a \"provenance\" record. Formats:\n"
        "docs/calibration.md.\n"
        "\n"
        "options:\n"
        "  -o, --output FILE       calibrated model (default: MODEL.calibrated.json beside\n"
        "                          MODEL.json); may be MODEL.json itself; checked before the\n"
        "                          fit, its folder made when missing (and removed again\n"
        "                          when the model cannot be written)\n"
        "      --loo               leave-one-out: refit without each recorded point, predict it\n"
        "      --metrics LIST      fit only these recorded metrics, e.g. wave_ms,wave_ratio\n"
        "                          (default: every metric the baseline records)\n"
        "      --scenario FILE     the axes, horizon and window of the runs (the model and the\n"
        "                          baseline are still the ones given)\n"
        "      --seed S            seed of the common random numbers (default 1)\n"
        "  -r, --replications R    replications per point and evaluation (default 3)\n"
        "      --set PATH=VALUE    override a model field before fitting (repeatable); a free\n"
        "                          parameter's own path pins it to VALUE: it is not fitted\n"
        "      --starts K          quasi-random (Sobol) points sampled over the bounds besides\n"
        "                          the start (default %d; 0: one search from the start)\n"
        "      --searches L        local searches, from the L best points sampled (default %d)\n"
        "      --max-iter N        iterations per search, all restarts (default 5000)\n"
        "      --method M          the local search: lsq (GSL's nonlinear least squares,\n"
        "                          Levenberg-Marquardt, on the targets' scaled errors; the\n"
        "                          default) or nm (GSL's Nelder-Mead simplex: tens of times\n"
        "                          the evaluations; the shipped models were fitted with it)\n"
        "      --lsq-step H        lsq: forward-difference step of the Jacobian, in the\n"
        "                          sine-mapped coordinates (default %g; in (0, 1])\n"
        "  -j, --jobs J            evaluate the start points, run the searches and the\n"
        "                          leave-one-out refits on J threads (default: the number of\n"
        "                          online cores); the result is the same for any J\n"
        "  -q, --quiet             no tables, no progress line (shown on stderr when it is a\n"
        "                          terminal: the search, its iteration and best objective)\n"
        "      --progress          every progress report as a line of its own on stderr,\n"
        "                          terminal or not (for a log)\n"
        "  -h, --help              this help\n"
        "\n"
        "A baseline may record any metric of the model (tssim run --help lists them); with\n"
        "--scenario, its records name the scenario's axis values and every run uses the\n"
        "scenario's horizon and window.\n",
          TS_FIT_DEFAULT_STARTS, TS_FIT_DEFAULT_SEARCHES, TS_FIT_LSQ_STEP);
  fputs("\nSIGINT (Ctrl-C) or SIGTERM stops the fit before its next evaluation; the output file\n"
        "is then left as it was. A signal that came as the model was written still exits\n"
        "130 or 143, one line saying it is written.\n\n" TS_CLI_EXIT_HELP_INTERRUPT,
        f);
}

typedef struct progress {
  int on;            /* print at all: stderr is a terminal (or --progress), and not --quiet */
  int lines;         /* --progress: one line per report, none skipped */
  const ts_fit_problem *pb;
  double last;       /* terminal: when the line was last written */
} progress;

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One report of the minimizer (one call at a time, from any thread): one
 * line on the terminal, rewritten at most every 0.2 s; with --progress one
 * line each. */
static void on_iteration(void *data, const ts_fit_progress *p)
{
  progress *pr = data;
  if (!pr->on)
    return;
  if (!pr->lines) {
    double t = now_s();
    if (t - pr->last < 0.2)
      return;
    pr->last = t;
  }
  char label[96];
  if (p->run < 0)
    snprintf(label, sizeof label, "fit");
  else
    snprintf(label, sizeof label, "loo %d/%zu (n=%d, workers=%d)", p->run + 1, pr->pb->npt, pr->pb->pt[p->run].n,
             pr->pb->pt[p->run].workers);
  if (p->search == 0)
    fprintf(stderr, "%s%s: sampled %d start points, best objective %.6g", pr->lines ? "" : "\r\033[K", label,
            p->iteration, p->objective);
  else
    fprintf(stderr, "%s%s: search %d/%d iteration %d round %d objective %.6g size %.2g", pr->lines ? "" : "\r\033[K",
            label, p->search, p->searches, p->iteration, p->round, p->objective, p->size);
  for (size_t i = 0; i < pr->pb->params->n; i++)
    fprintf(stderr, " %s=%.7g", pr->pb->params->p[i].name, p->values[i]);
  if (pr->lines)
    fputc('\n', stderr);
}

static void progress_done(const progress *pr)
{
  if (pr->on && !pr->lines)
    fputs("\r\033[K", stderr);
}

/* Parse --metrics into a NULL-terminated list of names in buf's storage.
 * Returns 0 or -1 with e filled. */
static int parse_metrics(const char *list, char *buf, size_t cap, const char **names, int max, ts_err *e)
{
  if (snprintf(buf, cap, "%s", list) >= (int)cap)
    return ts_err_set(e, "--metrics", NULL, "list too long");
  int n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < max; tok = strtok_r(NULL, ",", &save))
    names[n++] = tok;
  names[n] = NULL;
  return n ? 0 : ts_err_set(e, "--metrics", NULL, "expected a comma list of metric names, got \"%s\"", list);
}

static int parse_count(const char *text, const char *what, long lo, long hi, long *out, ts_err *e)
{
  char *end;
  long v = strtol(text, &end, 10);
  if (!*text || *end || v < lo || v > hi)
    return ts_err_set(e, what, NULL, "expected an integer in [%ld, %ld], got \"%s\"", lo, hi, text);
  *out = v;
  return 0;
}

/* MODEL's path with ".json" replaced by ".calibrated.json": beside the model,
 * so paths inside it that are relative to its folder still hold. */
static void default_output(const char *model, char *buf, size_t len)
{
  size_t n = strlen(model);
  if (n > 5 && strcmp(model + n - 5, ".json") == 0)
    n -= 5;
  snprintf(buf, len, "%.*s.calibrated.json", (int)n, model);
}

typedef struct options {
  const char *model, *baseline, *output;
  const char **sets;
  int nsets;
  int loo, quiet, progress; /* progress: every report as a line, terminal or not */
  const char *use_metric[64];
  char metric_buf[1024];
  int metrics_given;
  const char *scenario;
  unsigned long long seed;
  long replications, max_iter, starts, searches, jobs;
  ts_fit_method method;
  double lsq_step;  /* 0: not given */
} options;

/* Returns -1 to exit 0 (help), 0 to go on, 2 on bad usage. */
static int parse_args(int argc, char **argv, options *o)
{
  static const struct option opts[] = {
    {"output", required_argument, NULL, 'o'}, {"loo", no_argument, NULL, 'L'},
    {"metrics", required_argument, NULL, 'M'}, {"seed", required_argument, NULL, 'S'},
    {"replications", required_argument, NULL, 'r'}, {"set", required_argument, NULL, 's'},
    {"max-iter", required_argument, NULL, 'I'}, {"starts", required_argument, NULL, 'K'},
    {"searches", required_argument, NULL, 'l'}, {"quiet", no_argument, NULL, 'q'},
    {"scenario", required_argument, NULL, 'C'}, {"jobs", required_argument, NULL, 'j'},
    {"progress", no_argument, NULL, 'P'},       {"method", required_argument, NULL, 'T'},
    {"lsq-step", required_argument, NULL, 'H'}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  ts_err e;
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:r:j:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o':
      if (!*optarg)
        return ts_cli_usage_error("-o: expected a file, got an empty path");
      o->output = optarg;
      break;
    case 'L': o->loo = 1; break;
    case 'M':
      if (parse_metrics(optarg, o->metric_buf, sizeof o->metric_buf, o->use_metric, 63, &e))
        return ts_cli_usage_error("%s", e.msg);
      o->metrics_given = 1;
      break;
    case 'S': {
      uint64_t seed;
      if (ts_parse_seed(optarg, &seed, &e))
        return ts_cli_usage_error("%s", e.msg);
      o->seed = seed;
      break;
    }
    case 'r':
      if (parse_count(optarg, "--replications", 1, 100000, &o->replications, &e))
        return ts_cli_usage_error("%s", e.msg);
      break;
    case 's': o->sets[o->nsets++] = optarg; break;
    case 'I':
      if (parse_count(optarg, "--max-iter", 1, 10000000, &o->max_iter, &e))
        return ts_cli_usage_error("%s", e.msg);
      break;
    case 'K':
      if (parse_count(optarg, "--starts", 0, 1000000, &o->starts, &e))
        return ts_cli_usage_error("%s", e.msg);
      break;
    case 'l':
      if (parse_count(optarg, "--searches", 1, 10000, &o->searches, &e))
        return ts_cli_usage_error("%s", e.msg);
      break;
    case 'T': {
      int m = ts_fit_method_parse(optarg);
      if (m < 0)
        return ts_cli_usage_error("--method: expected lsq or nm, got \"%s\"", optarg);
      o->method = (ts_fit_method)m;
      break;
    }
    case 'H': {
      char *end;
      o->lsq_step = strtod(optarg, &end);
      if (!*optarg || *end || !(o->lsq_step > 0 && o->lsq_step <= 1))
        return ts_cli_usage_error("--lsq-step: expected a number in (0, 1], got \"%s\"", optarg);
      break;
    }
    case 'q': o->quiet = 1; break;
    case 'P': o->progress = 1; break;
    case 'C': o->scenario = optarg; break;
    case 'j':
      if (parse_count(optarg, "--jobs", 1, 1024, &o->jobs, &e))
        return ts_cli_usage_error("%s", e.msg);
      break;
    case 'h': usage(stdout); return -1;
    default: return ts_cli_bad_option("calibrate", argv);
    }
  }
  if (o->lsq_step > 0 && o->method != TS_FIT_LSQ)
    return ts_cli_usage_error("--lsq-step: applies to --method lsq only");
  if (optind != argc - 2)
    return ts_cli_usage_error("calibrate: expected MODEL.json and BASELINE.json (see tssim calibrate --help)");
  o->model = argv[optind];
  o->baseline = argv[optind + 1];
  return 0;
}

/* Load the model tree with the overrides and check it converts; an error
 * an override causes says which, as run's do ("(from --set P=V)"). */
static int load_model(const options *o, cJSON **tree, ts_err *e)
{
  ts_model m;
  cJSON *root;
  if (ts_json_load(o->model, &root, e))
    return -1;
  *tree = cJSON_Duplicate(root, 1);
  int bad = !*tree ? ts_err_set(e, o->model, NULL, "out of memory") : 0;
  for (int i = 0; i < o->nsets && !bad; i++)
    bad = ts_model_apply_set(*tree, o->model, o->sets[i], e);
  if (!bad && !(bad = ts_model_from_json(*tree, o->model, &m, e)))
    ts_model_finish(&m);
  int by = bad && !e->nomem ? ts_model_failing_set(root, o->model, (const char *const *)o->sets, o->nsets) : -1;
  if (by >= 0) {
    size_t len = strlen(e->msg);
    snprintf(e->msg + len, sizeof e->msg - len, " (from --set %s)", o->sets[by]);
  }
  cJSON_Delete(root);
  return bad ? -1 : 0;
}

/* Everything loaded, fitted and written by one calibration. */
typedef struct run {
  cJSON *tree;
  ts_scenario sc;
  int has_sc;
  ts_fit_params ps;
  ts_baseline b;
  ts_fit_problem pb;
  ts_fit_result fit;
  ts_fit_loo loo;
  double *start;
} run;

static void run_finish(run *R)
{
  cJSON_Delete(R->tree);
  if (R->has_sc)
    ts_scenario_finish(&R->sc);
  ts_fit_params_finish(&R->ps);
  ts_baseline_finish(&R->b);
  ts_fit_problem_finish(&R->pb);
  ts_fit_result_finish(&R->fit);
  ts_fit_loo_finish(&R->loo);
  free(R->start);
}

/* Where the calibrated model goes: --output, or MODEL.calibrated.json. */
static const char *output_path(const options *o, char *buf, size_t len)
{
  if (o->output)
    return o->output;
  default_output(o->model, buf, len);
  return buf;
}

/* The exit status after a failed fit stage (ts_fit_minimize's rc): 2 when
 * the model rejected values, the interrupt's status (after saying what was
 * not finished) when a signal stopped it, else 1. */
static int failed(const options *o, const run *R, int rc, const char *stage)
{
  if (rc == -1)
    return TS_EXIT_USAGE;
  if (rc != -3)
    return TS_EXIT_FAILED;
  char buf[1024];
  fprintf(stderr, "tssim: interrupted: %s was not finished (%zu evaluations done); %s left as it was\n", stage,
          R->pb.evaluations, output_path(o, buf, sizeof buf));
  return ts_cli_interrupt_status();
}

/* A note on stderr, as tssim run's on a sweep, when the baseline records
 * several values of n but the model reads n nowhere (at the axis
 * combinations it records): the points then differ only by their random
 * streams. Returns 0, or -1 with e filled. */
static int note_n_unread(const options *o, run *R, ts_err *e)
{
  size_t values = 0;
  for (size_t i = 0; i < R->pb.npt; i++) {
    size_t j = 0;
    while (j < i && R->pb.pt[j].n != R->pb.pt[i].n)
      j++;
    values += j == i;
  }
  int reads = values < 2 ? 1 : ts_fit_problem_reads_n(&R->pb, e);
  if (reads < 0)
    return -1;
  if (!reads) {
    fflush(stdout);
    fprintf(stderr, "tssim: note: %s records n at %zu values, but model %s reads n nowhere (no expression, no "
            "host.cpu_scale_by_n): its points differ only by their random streams\n", o->baseline, values, o->model);
  }
  return 0;
}

/* dispatch.ids "per_replication" that no model the fit runs reads, refused
 * as tssim run refuses it (ts_load_ids_refusal): each model that sets it
 * (the model with its --set; with --scenario, that of each axis combination
 * the baseline records) places by round_robin or least_loaded, which read
 * no id. Returns 0, or -1 with e filled. */
static int check_ids(const options *o, const run *R, ts_err *e)
{
  const ts_scenario *sc = R->has_sc && R->sc.naxes ? &R->sc : NULL;
  int read = 0, unread = 0;
  for (size_t k = 0; k < (sc ? R->pb.ng : 1); k++) {
    cJSON *t = sc ? ts_cli_combo_tree(sc, R->tree, R->pb.g[k].combo) : R->tree;
    ts_model m;
    int rc = t ? ts_model_from_json(t, o->model, &m, e) : ts_err_set(e, o->model, NULL, "out of memory");
    if (t != R->tree)
      cJSON_Delete(t);
    if (rc)
      return -1;
    read |= m.ids_per_replication && m.dispatch == TS_DISPATCH_HASH;
    unread |= m.ids_per_replication && m.dispatch != TS_DISPATCH_HASH;
    ts_model_finish(&m);
  }
  ts_model m;
  if (read || !unread || ts_model_from_json(R->tree, o->model, &m, e))
    return read || !unread ? 0 : -1;
  int at = ts_load_ids_refusal(sc, o->model, &m, e);
  const char *by = NULL;
  for (int i = 0; at == 1 && i < o->nsets; i++) /* the last override of a path wins */
    by = strncmp(o->sets[i], "dispatch", 8) == 0 && strstr(o->sets[i], "per_replication") ? o->sets[i] : by;
  ts_model_finish(&m);
  if (by) {
    size_t len = strlen(e->msg);
    snprintf(e->msg + len, sizeof e->msg - len, " (from --set %s)", by);
  }
  return at ? -1 : 0;
}

/* Write the calibrated model doc to out whole (ts_fit_write), making the
 * missing folders of its path first; a failed write removes the folders it
 * made (ts_cli_outfile_make), never one that was there. Returns 0, or -1
 * with e filled. */
static int write_model(const char *out, const cJSON *doc, ts_err *e)
{
  ts_atomic a;
  ts_atomic_init(&a);
  ts_outdir made = {0};
  int rc = ts_cli_outfile_make(out, &made, e);
  if (rc == 0) {
    ts_cli_interrupt_files(&a); /* a second signal removes MODEL.tmp.PID */
    rc = ts_fit_write(&a, out, doc, e);
    ts_cli_interrupt_files(NULL);
  }
  ts_cli_outdir_end(&made, rc != 0);
  return rc;
}

static int calibrate(const options *o, run *R, ts_err *e)
{
  if (o->scenario) {
    if (ts_scenario_load(o->scenario, &R->sc, e))
      return e->nomem ? TS_EXIT_FAILED : TS_EXIT_USAGE;
    R->has_sc = 1;
  }
  if (load_model(o, &R->tree, e) ||
      ts_fit_params_read(R->tree, o->model, (const char *const *)o->sets, o->nsets, &R->ps, e) ||
      ts_baseline_load(o->baseline, &R->b, e) ||
      ts_fit_problem_init(&R->pb, R->tree, o->model, &R->ps, &R->b, R->has_sc ? &R->sc : NULL,
                          o->metrics_given ? o->use_metric : NULL, o->seed, (int)o->replications, e))
    return e->nomem ? TS_EXIT_FAILED : TS_EXIT_USAGE; /* memory ran out, or bad input */
  if (check_ids(o, R, e))
    return e->nomem ? TS_EXIT_FAILED : TS_EXIT_USAGE;
  if (o->loo && ts_fit_loo_check(&R->pb, e))
    return 2;
  if (note_n_unread(o, R, e))
    return TS_EXIT_USAGE;
  char defbuf[1024];
  const char *out = output_path(o, defbuf, sizeof defbuf);
  int bad = ts_cli_outfile_check(out, o->output ? "-o" : NULL, "the calibrated model");
  if (bad) {
    e->msg[0] = '\0'; /* (said) */
    return bad;
  }
  R->pb.should_stop = ts_cli_should_stop;
  R->start = calloc(R->ps.n, sizeof *R->start);
  if (!R->start) {
    ts_err_set(e, o->model, NULL, "out of memory");
    return 1;
  }
  for (size_t i = 0; i < R->ps.n; i++)
    R->start[i] = R->ps.p[i].start;
  if (!o->quiet) {
    printf("calibrate %s to %s: %zu recorded value(s) at %zu point(s), seed %llu, %ld replication(s), "
           "%ld quasi-random start(s)\n\n",
           o->model, o->baseline, R->pb.nt, R->pb.npt, o->seed, o->replications, o->starts);
    fflush(stdout);
  }
  progress pr = {.on = !o->quiet && (o->progress || isatty(2)), .lines = o->progress, .pb = &R->pb};
  ts_fit_options fo = {.max_iter = (int)o->max_iter, .starts = (int)o->starts, .searches = (int)o->searches,
                       .progress = on_iteration, .progress_data = &pr, .jobs = (int)o->jobs,
                       .method = o->method, .lsq_step = o->lsq_step};
  /* with --loo, the fit and the refits run side by side (the same results
   * as one after the other; the tables come out in the same order) */
  int stage = 0, rc = o->loo ? ts_fit_fit_and_loo(&R->pb, R->start, &fo, &R->fit, &R->loo, &stage, e)
                             : ts_fit_minimize(&R->pb, NULL, R->start, &fo, &R->fit, e);
  progress_done(&pr);
  if (rc && stage == 0)
    return failed(o, R, rc, "the fit");
  if (!o->quiet) {
    ts_fit_print_params(stdout, &R->pb, &R->fit);
    putchar('\n');
    if (o->loo) /* beside the held-out table below, which looks the same */
      puts("in sample: each recorded value against the fit to every point, its own included");
    ts_fit_print_targets(stdout, &R->pb, R->fit.sim, "fitted");
    fflush(stdout);
  }
  if (o->loo) {
    if (rc)
      return failed(o, R, rc, "the leave-one-out refits");
    if (!o->quiet) {
      puts("\nleave-one-out: each point predicted by a fit without it");
      ts_fit_print_loo(stdout, &R->pb, &R->loo);
      putchar('\n');
      puts("held out: each recorded value against the refit without its point, which did not see it");
      ts_fit_print_targets(stdout, &R->pb, R->loo.predicted, "predicted");
    }
  }
  ts_fit_report rp = {o->model, o->baseline, (const char *const *)o->sets, o->nsets, &R->fit,
                      o->loo ? &R->loo : NULL, out};
  cJSON *doc = ts_fit_calibrated(R->tree, &R->pb, &rp, e);
  if (!doc)
    return TS_EXIT_FAILED;
  if (ts_cli_interrupted()) {
    cJSON_Delete(doc);
    return failed(o, R, -3, "writing the calibrated model");
  }
  rc = write_model(out, doc, e);
  cJSON_Delete(doc);
  if (rc)
    return TS_EXIT_IO;
  if (!o->quiet)
    printf("\nwrote %s\n", out);
  /* what the evaluations' sweeps noted, summed over all of them (the search
   * and the refits included), each note's first in a fixed order: fit by fit */
  ts_cli_notes(&R->pb.notes, R->pb.npt ? R->pb.npt : 1); /* the recorded points */
  return ts_cli_interrupt_written(out, NULL, NULL); /* a signal that came as it was written: said, as tssim run */
}

int ts_cmd_calibrate(int argc, char **argv)
{
  options o = {.seed = 1, .replications = DEFAULT_REPLICATIONS, .starts = TS_FIT_DEFAULT_STARTS,
               .searches = TS_FIT_DEFAULT_SEARCHES, .jobs = ts_sweep_cores(), .method = TS_FIT_DEFAULT_METHOD};
  o.sets = calloc((size_t)argc + 1, sizeof *o.sets);
  if (!o.sets)
    return 1;
  int rc = parse_args(argc, argv, &o);
  if (rc) {
    free(o.sets);
    return rc < 0 ? 0 : rc;
  }
  gsl_set_error_handler_off(); /* GSL failures are return codes here, never abort() */
  run R;
  memset(&R, 0, sizeof R);
  ts_err e;
  ts_cli_interrupt_catch();
  e.msg[0] = '\0';
  rc = calibrate(&o, &R, &e);
  if (rc && rc < 128 && e.msg[0]) /* an interrupt was reported already */
    fprintf(stderr, "tssim: %s\n", e.msg);
  run_finish(&R);
  free(o.sets);
  return rc;
}
