/* tssim run: sweep a scenario, print the table, write the results folder
 * (or, with --shard, one shard's partial result for tssim merge). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/explore.h"
#include "io/atomic.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/report.h"
#include "model/dispatch.h"
#include "run/metrics.h"
#include "run/suggest.h"
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
        "  -o, --output DIR        results folder (default: results/<scenario name>): new,\n"
        "                          empty, or an earlier run's (below)\n"
        "      --seed S            scenario seed (default: the scenario's, else 1)\n"
        "      --n LIST            override the sweep's n, e.g. 1,2,4\n"
        "      --workers LIST      override the sweep's worker counts, e.g. 1,2\n"
        "  -r, --replications R    override the number of replications\n"
        "      --set PATH=VALUE    override a model field by its JSON path, e.g.\n"
        "                          --set worker.threshold_ms=200 --set params.tracker_ms=100\n"
        "                          (repeatable; VALUE is JSON, or a string); a scenario\n"
        "                          axis that sets the same field wins (a note says so)\n"
        "      --axis KEY=LABEL,...  run only these values of the scenario's axis KEY, e.g.\n"
        "                          --axis runtime=memory-direct (repeatable; the axis's\n"
        "                          column stays, and so do the baseline's records of them)\n"
        "      --ci-target P%      add replications (in batches of R) until every table\n"
        "                          column's 95% half-width is within P% of its mean (of\n"
        "                          its value for a pooled one at 10 replications or\n"
        "                          more), e.g. 2%\n"
        "      --ci-max R          at most R replications with --ci-target (default 1000)\n"
        "  -j, --jobs J            run replications on J threads (default: the number of\n"
        "                          online cores); the files are the same for any J\n"
        "      --samples WHICH     all (default): samples.csv, one row per actor; none: no\n"
        "                          samples.csv (an old one in the folder is removed)\n"
        "      --shard K/M         run only shard K of M (1 <= K <= M): the sweep points i\n"
        "                          (in the order of summary.csv) with i mod M = K - 1, into a\n"
        "                          partial folder (partial.json, samples.csv) that `tssim\n"
        "                          merge` combines with the other shards' (docs/sweeps.md)\n"
        "      --columns LIST      the printed table's metric columns, in this order, e.g.\n"
        "                          read_p95_ms,wave_ms (the axis columns, n, workers and\n"
        "                          class are always shown; name one metric at least; the\n"
        "                          files written are the same)\n"
        "      --no-plots          do not run gnuplot\n"
        "  -q, --quiet             no table, no progress (the line saying a previous run\n"
        "                          is replaced stays)\n"
        "  -h, --help              this help\n"
        "\n"
        "metrics (docs/output.md; a model adds its spans' and its own):\n",
        f);
  ts_metric_help(f);
  fputs("  <span>_count, <span>_rate_per_s, <span>_mean_ms, <span>_p50_ms, <span>_p95_ms, <span>_p99_ms\n"
        "                       per span of the model\n", f);
  fputs("\nThe output folder is new, empty, or one a tssim run wrote (it holds summary.csv,\n"
        "a plot, ...): / or a folder holding only other files is refused (exit status 2), so\n"
        "that a run never mixes its files with yours. When it holds a previous run, a line on\n"
        "stderr says so before its files are replaced (all at once, when the new ones are\n"
        "complete; old plots are removed then); other files there stay, except one named like\n"
        "a result of run, merge, sensitivity or optimize (docs/output.md).\n"
        "While it runs, one line on stderr (when it is a terminal) shows the points and\n"
        "replications done, their rate and the time left.\n"
        "SIGINT (Ctrl-C) or SIGTERM stops the sweep after the replications in progress;\n"
        "once the results are written, it stops the plots: gnuplot is stopped, no plot is\n"
        "left half drawn, and one line names the plots not drawn. A signal that came after\n"
        "them (or with --no-plots or --shard) still exits 130 or 143, one line saying the\n"
        "results are written.\n"
        "\n" TS_CLI_EXIT_HELP_INTERRUPT,
        f);
}

/* ---- progress ---- */

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* One line on stderr, at most every PROGRESS_EVERY seconds. */
#define PROGRESS_EVERY 0.25

typedef struct progress {
  int on;
  double t0, last;
  size_t points;        /* points this run computes */
  size_t expected;      /* replications it expects (0: unknown, a confidence target) */
  size_t reps;          /* replications folded */
  size_t done;          /* points complete */
  size_t cur;           /* the point of the last replication */
  int started;
  /* the samples written so far, and where each point's rows end */
  uint64_t bytes;
  uint64_t *point_end;  /* [all points] */
} progress;

static void eta(double s, char *buf, size_t cap)
{
  if (!(s >= 0) || s > 360000)
    snprintf(buf, cap, "?");
  else if (s >= 3600)
    snprintf(buf, cap, "%dh%02dm", (int)(s / 3600), (int)(s / 60) % 60);
  else if (s >= 60)
    snprintf(buf, cap, "%dm%02ds", (int)(s / 60), (int)s % 60);
  else
    snprintf(buf, cap, "%.0fs", s);
}

static int on_progress(void *data, size_t point, size_t points, int rep)
{
  progress *p = data;
  (void)points;
  (void)rep;
  if (p->point_end)
    p->point_end[point] = p->bytes;
  if (p->started && point != p->cur)
    p->done++;
  p->started = 1;
  p->cur = point;
  p->reps++;
  if (!p->on)
    return 0;
  double t = now_s();
  if (t - p->last < PROGRESS_EVERY)
    return 0;
  p->last = t;
  double el = t - p->t0, rate = el > 0 ? (double)p->reps / el : 0;
  double frac = p->expected ? (double)p->reps / (double)p->expected
                            : p->points ? (double)p->done / (double)p->points : 0;
  char left[32];
  eta(frac > 0 ? el * (1 - frac) / frac : -1, left, sizeof left);
  fprintf(stderr, "\r\033[K  points %zu/%zu, %zu replications, %.1f/s, ETA %s", p->done, p->points, p->reps, rate,
          left);
  return 0;
}

/* ---- options ---- */

static int parse_shard(const char *arg, int *k, int *m, ts_err *e)
{
  char *end;
  long a = strtol(arg, &end, 10), b = -1;
  if (end != arg && *end == '/') {
    const char *q = end + 1;
    b = strtol(q, &end, 10);
    if (end == q || *end)
      b = -1;
  }
  if (b < 1 || b > 100000 || a < 1 || a > b)
    return ts_err_set(e, "--shard", NULL, "expected K/M with 1 <= K <= M <= 100000, e.g. 3/8, got \"%s\"", arg);
  *k = (int)a;
  *m = (int)b;
  return 0;
}

int ts_cli_run_parse(int argc, char **argv, ts_run_opts *o, int *status)
{
  static const struct option opts[] = {
    {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 'S'},
    {"n", required_argument, NULL, 'n'},      {"workers", required_argument, NULL, 'w'},
    {"replications", required_argument, NULL, 'r'}, {"set", required_argument, NULL, 's'},
    {"no-plots", no_argument, NULL, 'P'},     {"quiet", no_argument, NULL, 'q'},
    {"ci-target", required_argument, NULL, 'T'}, {"ci-max", required_argument, NULL, 'X'},
    {"jobs", required_argument, NULL, 'j'},   {"samples", required_argument, NULL, 'A'},
    {"shard", required_argument, NULL, 'K'}, {"axis", required_argument, NULL, 'x'},
    {"columns", required_argument, NULL, 'C'}, {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0}};
  memset(o, 0, sizeof *o);
  o->plots = 1;
  o->samples = 1;
  o->jobs = ts_sweep_cores();
  o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
  o->axes = calloc((size_t)argc + 1, sizeof *o->axes);
  if (!o->sets || !o->axes) {
    ts_cli_run_opts_finish(o);
    *status = 1;
    return -1;
  }
  ts_err e;
  int c;
  long v = 0;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:r:j:qh", opts, NULL)) != -1) {
    switch (c) {
    case 'o':
      if (!*optarg) {
        ts_err_set(&e, "-o", NULL, "expected a folder, got an empty path");
        goto bad;
      }
      o->outdir = ts_cli_folder(optarg);
      break;
    case 'S': o->seed_arg = optarg; break;
    case 'n': o->n_arg = optarg; break;
    case 'w': o->w_arg = optarg; break;
    case 'r': o->r_arg = optarg; break;
    case 's': o->sets[o->nsets++] = optarg; break;
    case 'x': o->axes[o->naxes++] = optarg; break;
    case 'C': o->columns = optarg; break;
    case 'P': o->plots = 0; break;
    case 'T': o->t_arg = optarg; break;
    case 'X': o->x_arg = optarg; break;
    case 'q': o->quiet = 1; break;
    case 'j':
      if (ts_load_parse_count(optarg, "--jobs", 1, 1024, &v, &e))
        goto bad;
      o->jobs = (int)v;
      break;
    case 'A':
      if (strcmp(optarg, "all") && strcmp(optarg, "none")) {
        ts_err_set(&e, "--samples", NULL, "expected all or none, got \"%s\"", optarg);
        goto bad;
      }
      o->samples = strcmp(optarg, "all") == 0;
      break;
    case 'K':
      if (parse_shard(optarg, &o->shard, &o->shards, &e))
        goto bad;
      break;
    case 'h':
      usage(stdout);
      *status = 0;
      ts_cli_run_opts_finish(o);
      return -1;
    default:
      ts_cli_run_opts_finish(o);
      *status = ts_cli_bad_option("run", argv);
      return -1;
    }
  }
  if (optind != argc - 1) {
    ts_cli_run_opts_finish(o);
    *status = ts_cli_usage_error("run: expected exactly one SCENARIO.json (see tssim run --help)");
    return -1;
  }
  o->scenario = argv[optind];
  return 0;
bad:
  fprintf(stderr, "tssim: %s\n", e.msg);
  ts_cli_run_opts_finish(o);
  *status = 2;
  return -1;
}

void ts_cli_run_opts_finish(ts_run_opts *o)
{
  free(o->sets);
  free(o->axes);
  o->sets = NULL;
  o->axes = NULL;
}

/* The end of the identical-replications note: how to make a model vary. */
#define SPREAD_HINT                                                                                                  \
  "give CPU steps a spread (\"dist\": \"lognormal\", \"cv\": 0.3) or the arrivals randomness (\"poisson\", or "  \
  "\"jitter_ms\") (docs/language.md)"

void ts_cli_notes(const ts_sweep_notes *n, size_t points)
{
  int tried = points > 0;
  int same = n->replicated > 0 && n->identical.count == n->replicated;
  if (n->window_missed.count == 0 && n->backlogged.count == 0 && n->overloaded.count == 0 && !same)
    return;
  fflush(stdout);
  if (n->window_missed.count)
    fprintf(stderr, "tssim: note: %zu replication(s) ended before their measurement window began (warmup_ms; the "
            "first: %s): their CPU, mutex, instruction, memory and span metrics are empty, not 0\n",
            n->window_missed.count, n->window_missed.first);
  if (n->backlogged.count)
    fprintf(stderr, "tssim: note: %zu replication(s) ended with a backlog (the first: %s): the arrivals may outpace "
            "the workers (an offered load above what they serve), and then the metrics describe a queue that grew "
            "until the horizon, not a steady state\n",
            n->backlogged.count, n->backlogged.first);
  if (n->overloaded.count)
    fprintf(stderr, "tssim: note: %zu point(s) run an open class of fixed count on workers offered more than they "
            "serve (the first: %s, as tssim explain gives it): its queue grows until its last "
            "arrival, so its waits and times grow with its count (the run's length), not toward a steady state\n",
            n->overloaded.count, n->overloaded.first);
  if (same && !tried)
    fprintf(stderr, "tssim: note: every point's replications gave identical values (%zu point(s) run with 2 or "
            "more replications; the first: %s): the model draws nothing random that reaches the metrics, so the "
            "95%% intervals are 0 because nothing varies, not because the estimates are exact, and more "
            "replications add nothing; %s\n", n->replicated, n->identical.first, SPREAD_HINT);
  else if (same)
    fprintf(stderr, "tssim: note: every setting tried gave identical replications (%zu point(s) run with 2 or more "
            "replications, identical at each setting tried: %zu evaluation(s) in all; the first: %s): the model "
            "draws nothing random that reaches the metrics, so more replications add nothing and an interval is 0 "
            "because nothing varies; %s\n", points, n->replicated, n->identical.first, SPREAD_HINT);
}

/* A note on stderr when the sweep gives n several values, or --n (n_arg,
 * NULL when not given; own: it gave the scenario's own values, which changes
 * nothing) sets another, but the model reads n nowhere, in none of its axis
 * variants (no expression, no CPU price by n: ts_loaded.n_read): its points
 * then differ only by their random streams (n enters the seed), which a row
 * per n hides, and a --n changes nothing else. */
static void note_n_unread(const ts_loaded *L, const char *n_arg, int own)
{
  if (L->n_read || (L->sc.nn < 2 && (!n_arg || own)))
    return;
  if (L->sc.nn < 2)
    ts_cli_note_n_unread(n_arg, L->sc.model_path);
  else
    fprintf(stderr, "tssim: note: %s%s sweeps n over %zu values, but model %s reads n nowhere (no expression, no "
            "host.cpu_scale_by_n): its points differ only by their random streams\n",
            n_arg ? "--n " : "", n_arg ? n_arg : L->sc.file, L->sc.nn, L->sc.model_path);
}

/* Whether the --set of the run changed the model of some axis combination
 * from the one its scenario describes (the model file with the scenario's
 * "set"): not when each --set gives a field the value it had, or an axis
 * sets it at every value anyway. 1 too when that cannot be told (a file
 * that no longer loads, no memory, more combinations than ts_load checks). */
static int sets_change_model(const ts_loaded *L)
{
  const ts_scenario *sc = &L->sc;
  cJSON *own;
  ts_err e;
  if (ts_json_load(sc->model_path, &own, &e))
    return 1;
  int changed = 0;
  for (int i = 0; i < sc->nsets && !changed; i++)
    changed = ts_model_apply_set(own, sc->model_path, sc->sets[i], &e) != 0;
  long combos = ts_scenario_combos(sc);
  changed |= combos > 1000;
  for (long c = 0; c < combos && !changed; c++) {
    cJSON *ran = ts_cli_combo_tree(sc, L->resolved, c), *recorded = ts_cli_combo_tree(sc, own, c);
    changed = !ran || !recorded || !cJSON_Compare(ran, recorded, 1);
    cJSON_Delete(ran);
    cJSON_Delete(recorded);
  }
  cJSON_Delete(own);
  return changed;
}

void ts_cli_run_notes(const ts_run_opts *o, const ts_loaded *L)
{
  if (!L->has_baseline || o->nsets == 0 || !sets_change_model(L))
    return;
  char sets[600] = "";
  int len = 0;
  for (int i = 0; i < o->nsets && len >= 0 && (size_t)len < sizeof sets; i++)
    len += snprintf(sets + len, sizeof sets - (size_t)len, "%s%s", i ? " " : "", o->sets[i]);
  fprintf(stderr,
          "tssim: note: %s was recorded under %s's own settings, and --set changed them (%s): the recorded and err "
          "columns compare this variant with that recording\n",
          L->baseline.file, L->sc.file, sets);
}

/* The names of a --columns LIST, split at commas (a NULL-terminated array
 * of strings in one block: free it), or NULL when memory runs out. */
static char **column_names(const char *list)
{
  size_t n = 1, len = strlen(list);
  for (const char *p = list; *p; p++)
    n += *p == ',';
  char **v = malloc((n + 1) * sizeof *v + len + 1);
  if (!v)
    return NULL;
  char *text = memcpy((char *)(v + n + 1), list, len + 1);
  for (size_t i = 0; i < n; i++) {
    v[i] = text;
    text += strcspn(text, ",");
    if (*text)
      *text++ = '\0';
  }
  v[n] = NULL;
  return v;
}

/* Whether name is a column the table always shows: n, workers, class, an axis key. */
static int fixed_column(const ts_scenario *sc, const char *name)
{
  int fixed = !strcmp(name, "n") || !strcmp(name, "workers") || !strcmp(name, "class");
  for (int a = 0; a < sc->naxes && !fixed; a++)
    fixed = !strcmp(name, sc->axes[a].key);
  return fixed;
}

/* Mark in found[i] each names[i] that is a fixed column or a metric the
 * model of some axis combination of L reports (L's model, then each
 * combination's: the first 1000, and past that every name counts as found),
 * each model loaded and its metric list built once. 0, or -1 when memory
 * runs out. */
static int find_columns(const ts_loaded *L, char *const *names, unsigned char *found)
{
  const ts_scenario *sc = &L->sc;
  long combos = ts_scenario_combos(sc);
  for (size_t i = 0; names[i]; i++)
    found[i] = fixed_column(sc, names[i]) || combos > 1000;
  for (long c = -1; c < (sc->naxes ? combos : 0) && c < 1000; c++) { /* c = -1: L's model */
    ts_model m;
    ts_metric_list l;
    char err[512];
    int values[16];
    if (c >= 0) {
      ts_scenario_combo_values(sc, c, values);
      if (ts_load_model_of((void *)L, values, &m, err, sizeof err))
        return -1; /* (ts_load loaded every one: out of memory) */
    }
    int rc = ts_metric_list_build(c < 0 ? &L->model : &m, &l, err, sizeof err);
    if (c >= 0)
      ts_model_finish(&m);
    if (rc)
      return -1;
    for (size_t i = 0; names[i]; i++)
      found[i] |= ts_metric_list_find(&l, names[i]) >= 0;
    ts_metric_list_finish(&l);
  }
  return 0;
}

/* The metric of L's model nearest to name into near ("" when none is). */
static void near_metric(const ts_loaded *L, const char *name, char *near, size_t cap)
{
  ts_metric_list l;
  char err[512];
  near[0] = '\0';
  if (ts_metric_list_build(&L->model, &l, err, sizeof err))
    return;
  const char **v = calloc(l.n + 1, sizeof *v);
  for (size_t k = 0; v && k < l.n; k++)
    v[k] = l.v[k].name;
  const char *hint = v ? ts_suggest(name, v) : NULL;
  snprintf(near, cap, "%s", hint ? hint : "");
  free(v);
  ts_metric_list_finish(&l);
}

/* Every name of o's --columns is a metric some combination's model reports,
 * or a column always shown, and one at least is a metric. 0, or -1 with e
 * filled. */
static int check_columns(const ts_run_opts *o, const ts_loaded *L, ts_err *e)
{
  if (!o->columns)
    return 0;
  char **names = column_names(o->columns);
  size_t n = 0;
  while (names && names[n])
    n++;
  unsigned char *found = names ? calloc(n + 1, 1) : NULL;
  char near[TS_SUGGEST_MAX_LEN + 8];
  int rc = 0;
  for (size_t i = 0; found && i < n && rc == 0; i++)
    if (!names[i][0])
      rc = ts_err_set(e, "--columns", NULL, "expected metric names separated by commas, e.g. wave_ms,cpu_ms, got "
                      "\"%s\"", o->columns);
  for (size_t i = 0; found && i < n && rc == 0; i++)
    for (size_t j = 0; j < i && rc == 0; j++)
      if (strcmp(names[i], names[j]) == 0)
        rc = ts_err_set(e, "--columns", NULL, "%s is named twice", names[i]);
  if (!found || (rc == 0 && find_columns(L, names, found)))
    rc = ts_err_set(e, "--columns", NULL, "out of memory");
  for (size_t i = 0; rc == 0 && i < n; i++)
    if (!found[i] && (near_metric(L, names[i], near, sizeof near), 1))
      rc = ts_err_set(e, "--columns", NULL, "\"%s\": model %s does not report it%s%s%s (tssim run --help lists the "
                      "metrics; a model adds its spans' and its own)", names[i], L->sc.model_path,
                      near[0] ? "; did you mean \"" : "", near, near[0] ? "\"?" : "");
  size_t metrics = 0;
  for (size_t i = 0; rc == 0 && i < n; i++)
    metrics += !fixed_column(&L->sc, names[i]);
  if (rc == 0 && metrics == 0)
    rc = ts_err_set(e, "--columns", NULL, "\"%s\" names only columns the table always shows (the axes, n, workers, "
                    "class): expected at least one metric, e.g. wave_ms", o->columns);
  free(found);
  free(names);
  return rc;
}

int ts_cli_run_load(const ts_run_opts *o, ts_loaded *L)
{
  int rc = ts_cli_load_axes(o->scenario, o->sets, o->nsets, o->axes, o->naxes, L);
  if (rc)
    return rc;
  ts_err e;
  ts_load_overrides ov = {.n = o->n_arg, .workers = o->w_arg, .replications = o->r_arg, .seed = o->seed_arg,
                          .ci_target = o->t_arg, .ci_max = o->x_arg};
  int own_n = L->sc.nn == 1 ? L->sc.ns[0] : -1; /* the scenario's one n: a --n of it changes nothing */
  int bad = ts_load_override(L, &ov, &e) || ts_load_check_horizon(L, &e);
  for (int i = 0; !bad && i < o->naxes; i++)
    bad = ts_cli_axis_twice(o->axes, i, &e) || ts_cli_axis_keep(L, o->axes[i], o->drop_axes, &e) != 0;
  if (bad || check_columns(o, L, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    ts_cli_unload(L);
    return e.nomem ? 1 : 2;
  }
  note_n_unread(L, o->n_arg, L->sc.nn == 1 && L->sc.ns[0] == own_n);
  ts_cli_sweep_notes(L);
  return 0;
}

void ts_cli_run_spec(const ts_run_opts *o, ts_loaded *L, int *sizes, ts_sweep_spec *spec)
{
  ts_load_sweep_spec(L, o->jobs, sizes, spec);
  spec->should_stop = ts_cli_should_stop;
  spec->shard = o->shards ? o->shard - 1 : 0;
  spec->shards = o->shards;
}

/* ---- the results ---- */

int ts_cli_outdir_make(const char *dir, ts_outdir *m, ts_err *e)
{
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
    return ts_err_set(e, dir, NULL, "path too long");
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    if (access(buf, F_OK) != 0 && mkdir(buf, 0777) == 0 && m->n < 32)
      m->made[m->n++] = strdup(buf);
    *p = c;
    if (c == '\0')
      break;
  }
  return ts_mkdirs(dir, e); /* the errors, named as the results commit names them */
}

void ts_cli_outdir_unmake(ts_outdir *m)
{
  while (m->n > 0) {
    char *d = m->made[--m->n];
    if (d)
      rmdir(d);
    free(d);
  }
}

int ts_cli_outfile_make(const char *path, ts_outdir *m, ts_err *e)
{
  char dir[1024];
  return ts_atomic_split(path, dir, sizeof dir) ? ts_cli_outdir_make(dir, m, e) : 0;
}

void ts_cli_outdir_end(ts_outdir *m, int failed)
{
  if (failed)
    ts_cli_outdir_unmake(m);
  while (m->n > 0)
    free(m->made[--m->n]);
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

/* What the sweep writes as it runs: samples.csv of the batch. */
typedef struct samples_out {
  const ts_loaded *L;
  FILE *f;
  progress *pr;
  int err;              /* errno of a failed write */
  int hashed;           /* a shard's: the rows' ts_cli_fnv1a goes in hash, for partial.json */
  uint64_t hash;
} samples_out;

static int format_samples(void *ctx, const ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo, int rep,
                          ts_text *out)
{
  const samples_out *so = ctx;
  return ts_report_samples_row(out, &so->L->sc, s, w, a, combo, rep);
}

static int write_samples(void *ctx, const char *text, size_t len)
{
  samples_out *so = ctx;
  so->pr->bytes += len;
  if (so->hashed)
    so->hash = ts_cli_fnv1a(so->hash, text, len);
  errno = 0;
  if (fwrite(text, 1, len, so->f) == len)
    return 0;
  so->err = errno ? errno : EIO;
  return -1;
}

/* Commit the results folder: summary.csv, summary.json (samples.csv is in
 * the batch already, unless none) replace the old ones and the old plots
 * go, all at once (the plots are drawn afresh afterwards). Returns the exit
 * status: 0, TS_EXIT_IO, or the interrupt's when a signal came before the
 * commit (nothing written; the sweep is freed on failure). */
int ts_cli_run_commit(ts_atomic *a, const char *outdir, const ts_loaded *L, ts_sweep *s, int samples, int quiet)
{
  ts_err e;
  if (ts_report_add(a, outdir, &L->sc, L->resolved, s, L->has_baseline ? &L->baseline : NULL, samples, &e) ||
      ts_cli_outdir_replace(a, outdir, &e)) {
    ts_atomic_abort(a);
    fprintf(stderr, "tssim: %s\n", e.msg);
    ts_sweep_finish(s);
    return TS_EXIT_IO;
  }
  if (ts_cli_interrupted()) {
    ts_atomic_abort(a);
    return interrupted(outdir, (int)s->points_done, (int)s->points_done, s);
  }
  if (ts_atomic_commit(a, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    ts_sweep_finish(s);
    return TS_EXIT_IO;
  }
  if (!quiet)
    printf("\nwrote %s/summary.csv, %ssummary.json\n", outdir, samples ? "samples.csv, " : "");
  return 0;
}

static const char plots_gone[] = "the previous run's plots were removed with its results; run again to draw them";

int ts_cli_run_plots_said(const char *outdir, int plots, int drawn, const char *undrawn)
{
  char left[300] = "";
  if (drawn < 0 && plots) /* a signal came before the plots */
    snprintf(left, sizeof left, "the plots were not drawn (%s)", plots_gone);
  else if (drawn >= 0 && *undrawn)
    snprintf(left, sizeof left, "plots not drawn: %.127s (%s)", undrawn, plots_gone);
  return ts_cli_interrupt_written(outdir, drawn > 0 && !*left ? "plots" : NULL, *left ? left : NULL);
}

int ts_cli_run_plots(const char *outdir, int plots, int quiet)
{
  char line[1400];
  ts_plot_watch w;
  memset(&w, 0, sizeof w);
  /* what a second signal writes as it ends the process; the first's, below, names the plots */
  snprintf(line, sizeof line, "tssim: interrupted: the results are written in %s; some plots were not drawn (%s)\n",
           outdir, plots_gone);
  int drawn = -1;
  if (plots && !ts_cli_interrupted()) {
    ts_cli_interrupt_plots(&w, line);
    drawn = ts_plot_results(outdir, quiet, &w);
    ts_cli_interrupt_plots(NULL, NULL);
  }
  return ts_cli_run_plots_said(outdir, plots, drawn, w.undrawn);
}

/* Row p's place, "dispatch=free n=1 workers=1 class job", into buf. */
static void row_name(const ts_loaded *L, const ts_sweep *s, const ts_point *p, char *buf, size_t cap)
{
  const char *labels[16]; /* (at most 16 axes: io/scenario_json.c) */
  ts_report_labels(&L->sc, s, p, labels);
  size_t len = 0;
  buf[0] = 0;
  for (int a = 0; a < L->sc.naxes && len < cap; a++)
    len += (size_t)snprintf(buf + len, cap - len, "%s=%s ", L->sc.axes[a].key, labels[a]);
  if (len < cap)
    snprintf(buf + len, cap - len, "n=%d workers=%d class %s", p->n, p->workers, p->class_name);
}

/* The header's confidence-target line: the claim for the rows that reached
 * the target, and the rows that stopped at the cap without it (how many,
 * and the widest relative half-width among them: ts_point.ci_rel). */
static void print_target(const ts_loaded *L, const ts_sweep *s)
{
  size_t missed = 0;
  int reached_max = 0, missed_max = 0;
  const ts_point *worst = NULL;
  for (size_t i = 0; i < s->npoints; i++) {
    const ts_point *p = &s->points[i];
    int *most = p->ci_missed ? &missed_max : &reached_max;
    *most = p->replications > *most ? p->replications : *most;
    missed += p->ci_missed != 0;
    if (p->ci_missed && p->ci_rel_col >= 0 && (!worst || p->ci_rel > worst->ci_rel))
      worst = p;
  }
  printf("confidence target: every 95%% half-width within %g%% of its mean (of its value for a pooled one), ",
         100 * L->sc.ci_target);
  if (!missed) {
    printf("reached with at most %d replications run\n", s->max_replications);
    return;
  }
  if (missed < s->npoints)
    printf("reached by %zu of %zu rows with at most %d replications run; ", s->npoints - missed, s->npoints,
           reached_max);
  printf("NOT reached by %zu row(s), stopped at the cap (--ci-max, ci_max_replications) with %d replications run",
         missed, missed_max);
  if (worst) {
    char where[300];
    row_name(L, s, worst, where, sizeof where);
    printf(": the widest, %s at %s, is within %.3g%%", s->cols[worst->ci_rel_col].name, where, 100 * worst->ci_rel);
  }
  putchar('\n');
}

/* Print the header lines and the table. */
void ts_cli_run_print(const ts_loaded *L, const ts_sweep *s, const char *columns)
{
  printf("%s%s%s\nmodel %s, seed %llu, %d replication(s)%s%s%s\n", L->sc.name, L->sc.description[0] ? ": " : "",
         L->sc.description, L->sc.model_path, (unsigned long long)L->sc.seed, L->sc.replications,
         L->sc.ci_target > 0 ? " to start" : "", L->has_baseline ? ", recorded: " : "",
         L->has_baseline ? L->baseline.file : "");
  if (L->sc.ci_target > 0)
    print_target(L, s);
  putchar('\n');
  ts_scenario sc = L->sc; /* with --columns, a copy whose table they are */
  char **names = columns ? column_names(columns) : NULL;
  if (names) {
    sc.table = names;
    for (sc.ntable = 0; names[sc.ntable]; sc.ntable++)
      ;
  }
  ts_report_table(stdout, &sc, s, L->has_baseline ? &L->baseline : NULL);
  free(names);
}

/* Why record r matches no point, as far as its axes go, into buf: an axis
 * of the scenario it names no value of, an axis it names that the scenario
 * has not, or else its axis values (none when it names no axes). */
static void axes_reason(const ts_scenario *sc, const ts_record *r, char *buf, size_t cap)
{
  buf[0] = '\0';
  for (int a = 0; a < sc->naxes; a++) {
    int named = 0;
    for (int k = 0; k < r->naxes && !named; k++)
      named = strcmp(r->axes[2 * k], sc->axes[a].key) == 0;
    if (!named) {
      snprintf(buf, cap, "; it names no value of the scenario's axis \"%s\"", sc->axes[a].key);
      return;
    }
  }
  for (int k = 0; k < r->naxes; k++) {
    int known = 0;
    for (int a = 0; a < sc->naxes && !known; a++)
      known = strcmp(r->axes[2 * k], sc->axes[a].key) == 0;
    if (!known) {
      snprintf(buf, cap, "; the scenario has no axis \"%s\"", r->axes[2 * k]);
      return;
    }
  }
  if (r->naxes)
    snprintf(buf, cap, " and its axis values");
}

void ts_cli_baseline_note(const ts_loaded *L, const ts_sweep *s)
{
  size_t first = 0, count = L->has_baseline ? ts_report_unmatched(&L->sc, s, &L->baseline, &first) : 0;
  if (count == 0)
    return;
  const ts_record *r = &L->baseline.rec[first];
  char why[200];
  axes_reason(&L->sc, r, why, sizeof why);
  fflush(stdout);
  if (count == L->baseline.nrec)
    fprintf(stderr, "tssim: note: no recorded value of %s belongs to a point of this sweep (the first, %s, is at "
            "n=%d workers=%d%s): nothing was compared\n", L->baseline.file, r->where, r->n, r->workers, why);
  else
    fprintf(stderr, "tssim: note: %zu of the %zu recorded values of %s belong to no point of this sweep, so they "
            "are not compared (the first, %s, is at n=%d workers=%d%s)\n", count, L->baseline.nrec,
            L->baseline.file, r->where, r->n, r->workers, why);
}

int ts_cmd_run(int argc, char **argv)
{
  ts_run_opts o;
  int rc;
  if (ts_cli_run_parse(argc, argv, &o, &rc))
    return rc;
  ts_loaded L;
  if ((rc = ts_cli_run_load(&o, &L)) != 0) {
    ts_cli_run_opts_finish(&o);
    return rc;
  }
  ts_cli_run_notes(&o, &L);
  int sizes[16];
  ts_sweep_spec spec;
  ts_cli_run_spec(&o, &L, sizes, &spec);
  char dirbuf[1024];
  const char *outdir = o.outdir;
  if (!outdir) {
    snprintf(dirbuf, sizeof dirbuf, "results/%s", L.sc.name);
    outdir = dirbuf;
  }
  ts_atomic a;
  ts_atomic_init(&a);
  ts_outdir made = {0};
  int lock = -1; /* the results folder's */
  progress pr = {.on = !o.quiet && isatty(2)};
  samples_out so = {.L = &L, .pr = &pr, .hashed = o.shards > 0, .hash = TS_CLI_FNV1A_INIT};
  ts_sweep s;
  memset(&s, 0, sizeof s);
  if ((rc = ts_cli_outdir_check(outdir, o.outdir != NULL)) != 0)
    goto done;
  ts_cli_interrupt_catch();
  ts_cli_interrupt_files(&a); /* a second signal removes samples.csv.tmp.PID */
  /* one run at a time writes into a folder: this one from here to its plots */
  if ((rc = ts_cli_outdir_lock(outdir, &made, o.quiet, &lock)) != 0)
    goto done;
  size_t total = ts_sweep_npoints(&spec);
  pr.points = o.shards ? total / (size_t)o.shards + ((size_t)(o.shard - 1) < total % (size_t)o.shards) : total;
  pr.expected = L.sc.ci_target > 0 ? 0 : pr.points * (size_t)L.sc.replications;
  pr.t0 = pr.last = now_s();
  pr.point_end = calloc(total + 1, sizeof *pr.point_end);
  if (!pr.point_end) {
    rc = TS_EXIT_FAILED;
    goto done;
  }
  spec.progress = on_progress;
  spec.progress_data = &pr;
  if (o.samples) { /* samples.csv streams into the batch as the sweep runs */
    ts_err e;
    if (!(so.f = ts_atomic_open(&a, outdir, "samples.csv", &e))) {
      fprintf(stderr, "tssim: %s\n", e.msg);
      rc = TS_EXIT_IO;
      goto done;
    }
    ts_report_samples_header(so.f, &L.sc, &L.model);
    pr.bytes = (uint64_t)ftell(so.f);
    spec.format_samples = format_samples;
    spec.write_samples = write_samples;
    spec.samples_ctx = &so;
  }
  uint64_t header = pr.bytes;
  int sr = ts_sweep_run(&spec, &s);
  if (pr.on)
    fputs("\r\033[K", stderr);
  if (sr == TS_SWEEP_STOPPED) {
    rc = interrupted(outdir, (int)s.points_done, (int)pr.points, &s);
    goto done;
  }
  if (sr == TS_SWEEP_OUTPUT) { /* an I/O failure: the file, why, and that the folder is as it was */
    fprintf(stderr, "tssim: %s/samples.csv: cannot write: %s (%.*s); %s left as it was\n", outdir,
            strerror(so.err ? so.err : EIO), (int)strcspn(s.errmsg, ":"), s.errmsg, outdir);
    ts_sweep_finish(&s);
    rc = TS_EXIT_IO;
    goto done;
  }
  if (sr == TS_SWEEP_TEMP) { /* the temporary file of values kept for quantiles ($TMPDIR full, say) */
    fprintf(stderr, "tssim: %s: %s; %s left as it was\n", L.sc.file, s.errmsg, outdir);
    ts_sweep_finish(&s);
    rc = TS_EXIT_IO;
    goto done;
  }
  if (sr != 0) {
    char line[1600];
    ts_load_sweep_error(&L, sr, s.errmsg, line, sizeof line);
    fprintf(stderr, "tssim: %s\n", line);
    ts_sweep_finish(&s);
    rc = sr == TS_SWEEP_MODEL || sr == TS_SWEEP_HORIZON ? TS_EXIT_USAGE : TS_EXIT_FAILED;
    goto done;
  }
  ts_cli_outdir_say_replacing(outdir); /* only now: every check of the input passed (the sweep too) */
  ts_cli_notes(&s.notes, 0); /* on stderr even with -q: they say what the metrics describe */
  if (o.shards) {
    if (!o.quiet)
      printf("%s: shard %d/%d: %zu of %zu sweep points\n", L.sc.name, o.shard, o.shards, s.points_done, total);
    rc = ts_cli_partial_commit(&a, outdir, argc, argv, &o, &s, header, pr.point_end, so.hash, o.quiet);
    so.f = NULL;
    ts_sweep_finish(&s);
    goto done;
  }
  if (!o.quiet)
    ts_cli_run_print(&L, &s, o.columns);
  ts_cli_baseline_note(&L, &s); /* on stderr even with -q: summary.csv leaves those records out */
  rc = ts_cli_run_commit(&a, outdir, &L, &s, o.samples, o.quiet);
  so.f = NULL;
  if (rc != 0)
    goto done;
  rc = ts_cli_run_plots(outdir, o.plots, o.quiet); /* after the commit: the results stand */
  ts_sweep_finish(&s);
done:
  if (rc != 0) {
    ts_atomic_abort(&a); /* (nothing, after a commit) */
    ts_cli_outdir_unmake(&made);
  }
  ts_cli_interrupt_files(NULL);
  ts_cli_outdir_unlock(lock);
  while (made.n > 0)
    free(made.made[--made.n]);
  free(pr.point_end);
  ts_cli_unload(&L);
  ts_cli_run_opts_finish(&o);
  return rc;
}
