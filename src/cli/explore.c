#include "cli/explore.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "io/model_json.h"
#include "run/sweep.h"
#include "viz/plot.h"

/* The shared long options; their values are the ts_run_opts letters of
 * tssim run where there is one. */
static const struct option shared[] = {
  {"output", required_argument, NULL, 'o'}, {"seed", required_argument, NULL, 'S'},
  {"n", required_argument, NULL, 'n'},      {"workers", required_argument, NULL, 'w'},
  {"replications", required_argument, NULL, 'r'}, {"set", required_argument, NULL, 's'},
  {"no-plots", no_argument, NULL, 'P'},     {"quiet", no_argument, NULL, 'q'},
  {"jobs", required_argument, NULL, 'j'},   {"axis", required_argument, NULL, 'A'},
  {"help", no_argument, NULL, 'h'},         {NULL, 0, NULL, 0}};

void ts_cli_explore_usage_end(FILE *f, const char *suffix)
{
  fputs(TS_CLI_EXPLORE_HELP, f);
  fprintf(f, "  -o, --output DIR        results folder (default: results/<scenario name>-%s):\n"
             "                          new, empty, or an earlier run's, as for tssim run\n"
             "  -h, --help              this help\n"
             "\n"
             "SIGINT (Ctrl-C) or SIGTERM stops it after the replications in progress; earlier\n"
             "result files are then left as they were. Once the results are written, it stops\n"
             "the plot (none is left half drawn); a signal that came after them still exits\n"
             "130 or 143, one line saying the results are written and what was not done.\n"
             "\n" TS_CLI_EXIT_HELP_INTERRUPT,
          suffix);
}

void ts_cli_explore_opts_finish(ts_cli_explore_opts *o)
{
  ts_cli_run_opts_finish(&o->run);
}

/* Take getopt_long's result c with argument arg when it is a shared option.
 * Returns 1 when taken, 0 when it is not one, -1 with e filled when its
 * value is bad. */
static int take_shared(ts_cli_explore_opts *o, int c, char *arg, ts_err *e)
{
  ts_run_opts *r = &o->run;
  char *end;
  long v;
  switch (c) {
  case 'o':
    if (!*arg)
      return ts_err_set(e, "-o", NULL, "expected a folder, got an empty path");
    r->outdir = ts_cli_folder(arg);
    return 1;
  case 'S': r->seed_arg = arg; return 1;
  case 'n': r->n_arg = arg; return 1;
  case 'w': r->w_arg = arg; return 1;
  case 'r': r->r_arg = arg; return 1;
  case 's': r->sets[r->nsets++] = arg; return 1;
  case 'A': r->axes[r->naxes++] = arg; return 1;
  case 'P': r->plots = 0; return 1;
  case 'q': r->quiet = 1; return 1;
  case 'j':
    v = strtol(arg, &end, 10);
    if (!*arg || *end || v < 1 || v > 1024)
      return ts_err_set(e, "--jobs", NULL, "expected an integer in [1, 1024], got \"%s\"", arg);
    r->jobs = (int)v;
    return 1;
  default: return 0;
  }
}

int ts_cli_explore_parse(int argc, char **argv, const char *cmd, const struct option *own,
                         int (*take)(void *ctx, int c, const char *arg), void *ctx, void (*usage)(FILE *f),
                         ts_cli_explore_opts *o)
{
  memset(o, 0, sizeof *o);
  o->run.plots = 1;
  o->run.jobs = ts_sweep_cores();
  o->run.sets = calloc((size_t)argc + 1, sizeof *o->run.sets);
  o->run.axes = calloc((size_t)argc + 1, sizeof *o->run.axes);
  o->run.drop_axes = 1;
  if (!o->run.sets || !o->run.axes)
    return TS_EXIT_FAILED;
  struct option opts[64];
  size_t n = 0;
  for (size_t i = 0; own[i].name && n + 1 < 64; i++)
    opts[n++] = own[i];
  for (size_t i = 0; shared[i].name && n + 1 < 64; i++)
    opts[n++] = shared[i];
  opts[n] = (struct option){NULL, 0, NULL, 0};
  ts_err e;
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, "o:r:j:qh", opts, NULL)) != -1) {
    int t = take_shared(o, c, optarg, &e);
    if (t < 0)
      return ts_cli_usage_error("%s", e.msg);
    if (t > 0)
      continue;
    if (c == 'h') {
      usage(stdout);
      return -1;
    }
    if ((t = c == '?' ? -1 : take(ctx, c, optarg)) != 0)
      return t < 0 ? ts_cli_bad_option(cmd, argv) : t;
  }
  if (optind != argc - 1)
    return ts_cli_usage_error("%s: expected exactly one SCENARIO.json (see tssim %s --help)", cmd, cmd);
  o->run.scenario = argv[optind];
  return 0;
}

/* Free value v of axis ax. */
static void free_value(ts_axis *ax, int v)
{
  free(ax->labels[v]);
  for (int k = 0; k < ax->nsets[v]; k++)
    free(ax->sets[v][k]);
  free(ax->sets[v]);
}

/* The list of ax's labels (or of sc's axis keys when ax is NULL), for messages. */
static void names_of(const ts_scenario *sc, const ts_axis *ax, char *buf, size_t cap)
{
  size_t len = 0;
  buf[0] = '\0';
  for (int i = 0; i < (ax ? ax->nvalues : sc->naxes) && len < cap; i++, len = strlen(buf))
    snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", ax ? ax->labels[i] : sc->axes[i].key);
}

/* Axis a of L's scenario keeps only its values marked in keep (nkeep of
 * them, at least one). With one left and drop, the axis goes: its
 * overrides are applied to the model tree, which is converted again. */
static int keep_values(ts_loaded *L, int a, const unsigned char *keep, int nkeep, int drop, ts_err *e)
{
  ts_scenario *sc = &L->sc;
  ts_axis *ax = &sc->axes[a];
  if (nkeep > 1 || !drop) {
    int n = 0;
    for (int v = 0; v < ax->nvalues; v++) {
      if (!keep[v]) {
        free_value(ax, v);
        continue;
      }
      ax->labels[n] = ax->labels[v];
      ax->sets[n] = ax->sets[v];
      ax->nsets[n++] = ax->nsets[v];
    }
    ax->nvalues = n;
    return 0;
  }
  int rc = 0;
  for (int v = 0; v < ax->nvalues; v++) {
    for (int k = 0; keep[v] && rc == 0 && k < ax->nsets[v]; k++)
      if (ts_load_window_axis(ax->sets[v][k]))
        ts_load_window_set(sc, ax->sets[v][k]);
      else
        rc = ts_model_apply_set(L->resolved, sc->model_path, ax->sets[v][k], e);
    free_value(ax, v);
  }
  free(ax->labels), free(ax->sets), free(ax->nsets), free(ax->key), free(ax->path);
  memmove(ax, ax + 1, (size_t)(sc->naxes - a - 1) * sizeof *ax);
  sc->naxes--;
  sc->compare = sc->compare == a ? -1 : sc->compare > a ? sc->compare - 1 : sc->compare;
  if (rc)
    return -1;
  ts_model_finish(&L->model);
  memset(&L->model, 0, sizeof L->model);
  return ts_model_from_json(L->resolved, sc->model_path, &L->model, e);
}

int ts_cli_axis_keep(ts_loaded *L, const char *arg, int drop, ts_err *e)
{
  ts_scenario *sc = &L->sc;
  const char *eq = strchr(arg, '=');
  char list[400], buf[2048];
  int a = 0;
  while (eq && a < sc->naxes && !ts_cli_axis_option(&arg, 1, sc->axes[a].key))
    a++;
  if (!eq || !eq[1])
    return ts_err_set(e, "--axis", NULL, "expected KEY=LABEL,LABEL,..., e.g. rule=10ms-timer, got \"%s\"", arg);
  if (a == sc->naxes) {
    names_of(sc, NULL, list, sizeof list);
    return ts_err_set(e, "--axis", NULL, "%.*s: %s has no such axis (its axes: %s)", (int)(eq - arg), arg, sc->file,
                      list[0] ? list : "none");
  }
  ts_axis *ax = &sc->axes[a];
  unsigned char *keep = calloc((size_t)ax->nvalues + 1, 1);
  if (!keep || snprintf(buf, sizeof buf, "%s", eq + 1) >= (int)sizeof buf) {
    free(keep);
    return ts_err_set(e, "--axis", NULL, "%s: list too long, or out of memory", ax->key);
  }
  int nkeep = 0, rc = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && rc == 0; tok = strtok_r(NULL, ",", &save)) {
    int v = 0;
    while (v < ax->nvalues && strcmp(ax->labels[v], tok) != 0)
      v++;
    names_of(sc, ax, list, sizeof list);
    if (v == ax->nvalues)
      rc = ts_err_set(e, "--axis", NULL, "%s: no value \"%s\" (its values: %s)", ax->key, tok, list);
    else if (keep[v])
      rc = ts_err_set(e, "--axis", NULL, "%s: %s is named twice", ax->key, tok);
    else
      nkeep += keep[v] = 1;
  }
  if (rc == 0)
    rc = keep_values(L, a, keep, nkeep, drop, e);
  free(keep);
  return rc;
}

int ts_cli_axis_twice(const char *const *args, int i, ts_err *e)
{
  const char *eq = strchr(args[i], '=');
  for (int j = 0; eq && j < i; j++)
    if (strncmp(args[j], args[i], (size_t)(eq - args[i]) + 1) == 0)
      return ts_err_set(e, "--axis", NULL, "%.*s is given twice", (int)(eq - args[i]), args[i]);
  return 0;
}

int ts_cli_explore_load(const ts_cli_explore_opts *o, ts_cli_explore *ex, const char *suffix)
{
  ts_err e;
  ts_atomic_init(&ex->batch);
  ex->quiet = o->run.quiet;
  int rc = ts_cli_run_load(&o->run, &ex->L);
  if (rc)
    return rc;
  ex->loaded = 1; /* (ts_cli_run_load noted the policies that reorder nothing) */
  if (ts_explore_init(&ex->x, ex->L.resolved, &ex->L.sc, o->run.jobs, &e))
    return ts_cli_usage_error("%s", e.msg);
  ex->explored = 1;
  ex->x.should_stop = ts_cli_should_stop;
  ex->x.notes = &ex->notes;
  ex->outdir = o->run.outdir;
  if (!ex->outdir) {
    snprintf(ex->dirbuf, sizeof ex->dirbuf, "results/%s-%s", ex->L.sc.name, suffix);
    ex->outdir = ex->dirbuf;
  }
  return 0;
}

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A ts_explore progress: one line on stderr, at most every 0.25 s. */
static int on_progress(void *data, size_t point, size_t points, int rep)
{
  ts_cli_explore *ex = data;
  (void)point;
  (void)points;
  (void)rep;
  ex->reps++;
  double t = now_s();
  if (t - ex->last < 0.25)
    return 0;
  ex->last = t;
  double el = t - ex->t0, rate = el > 0 ? (double)ex->reps / el : 0;
  fprintf(stderr, "\r\033[K  replications %zu", ex->reps);
  if (ex->total)
    fprintf(stderr, "/%zu", ex->total);
  if (ex->settings)
    fprintf(stderr, ", settings evaluated %zu", *ex->settings);
  fprintf(stderr, ", %.1f/s", rate);
  if (ex->total && rate > 0 && ex->reps < ex->total)
    fprintf(stderr, ", ETA %.0fs", (double)(ex->total - ex->reps) / rate);
  return 0;
}

int ts_cli_explore_start(ts_cli_explore *ex, size_t total, const size_t *settings)
{
  int rc = ts_cli_outdir_check(ex->outdir, ex->outdir != ex->dirbuf);
  if (rc)
    return rc;
  ts_cli_interrupt_catch();
  ts_cli_interrupt_files(&ex->batch);
  if ((rc = ts_cli_outdir_lock(ex->outdir, &ex->made, ex->quiet, &ex->lock)) != 0)
    return rc;
  ex->locked = 1;
  ex->progress = !ex->quiet && isatty(2);
  ex->total = total;
  ex->settings = settings;
  ex->t0 = ex->last = now_s();
  ex->x.data = ex;
  if (ex->progress)
    ex->x.progress = on_progress;
  return 0;
}

void ts_cli_explore_progress_done(ts_cli_explore *ex)
{
  if (ex->progress)
    fputs("\r\033[K", stderr);
  ex->progress = 0;
}

/* The folder's name with one trailing slash. */
static const char *slash(const char *dir)
{
  return dir[strlen(dir) - 1] == '/' ? "" : "/";
}

int ts_cli_explore_failed(ts_cli_explore *ex, int sr, const char *err)
{
  if (sr == TS_SWEEP_STOPPED) {
    fprintf(stderr, "tssim: interrupted: %s%s left as it was\n", ex->outdir, slash(ex->outdir));
    return ts_cli_interrupt_status();
  }
  char line[1600];
  ts_load_sweep_error(&ex->L, sr, err, line, sizeof line);
  fprintf(stderr, "tssim: %s\n", line);
  return sr == TS_SWEEP_MODEL || sr == TS_SWEEP_HORIZON ? TS_EXIT_USAGE : sr == TS_SWEEP_TEMP ? TS_EXIT_IO : TS_EXIT_FAILED;
}

FILE *ts_cli_explore_file(ts_cli_explore *ex, const char *name, ts_err *e)
{
  if (ex->made.n == 0 && ts_cli_outdir_make(ex->outdir, &ex->made, e))
    return NULL;
  return ts_atomic_open(&ex->batch, ex->outdir, name, e);
}

int ts_cli_explore_io_failed(ts_cli_explore *ex, const ts_err *e)
{
  ts_atomic_abort(&ex->batch);
  fprintf(stderr, "tssim: %s\n", e->msg);
  return TS_EXIT_IO;
}

int ts_cli_explore_commit(ts_cli_explore *ex, const char *what)
{
  ts_err e;
  if (ts_cli_interrupted()) {
    ts_atomic_abort(&ex->batch);
    fprintf(stderr, "tssim: interrupted: %s%s left as it was\n", ex->outdir, slash(ex->outdir));
    return ts_cli_interrupt_status();
  }
  ts_cli_outdir_say_replacing(ex->outdir); /* only now: the search ran (a model refused at a setting is input) */
  if (ts_cli_outdir_replace(&ex->batch, ex->outdir, &e) || ts_atomic_commit(&ex->batch, &e))
    return ts_cli_explore_io_failed(ex, &e);
  ex->committed = 1;
  if (!ex->quiet)
    printf("\nwrote %s%s%s\n", ex->outdir, slash(ex->outdir), what);
  ts_cli_notes(&ex->notes, ex->x.npoints ? ex->x.npoints : 1); /* each setting runs every point */
  return 0;
}

int ts_cli_explore_draw(ts_cli_explore *ex, const char *script, const char *const *vars)
{
  if (!script)
    return ts_cli_interrupt_written(ex->outdir, NULL, NULL);
  char line[1400], plot[300];
  ts_plot_watch w;
  memset(&w, 0, sizeof w);
  snprintf(line, sizeof line, "tssim: interrupted: the results are written in %s; the plot %s was not drawn\n",
           ex->outdir, script);
  ts_cli_interrupt_plots(&w, line); /* (stopped at once when a signal came already) */
  int drawn = ts_plot_draw(ex->outdir, script, vars, ex->quiet, &w);
  ts_cli_interrupt_plots(NULL, NULL);
  snprintf(plot, sizeof plot, drawn ? "the plot %s" : "the plot %s was not drawn", script);
  return ts_cli_interrupt_written(ex->outdir, drawn ? plot : NULL, drawn ? NULL : plot);
}

void ts_cli_explore_finish(ts_cli_explore *ex)
{
  if (!ex->committed) {
    ts_atomic_abort(&ex->batch);
    ts_cli_outdir_unmake(&ex->made);
  }
  ts_cli_interrupt_files(NULL);
  if (ex->locked)
    ts_cli_outdir_unlock(ex->lock);
  while (ex->made.n > 0)
    free(ex->made.made[--ex->made.n]);
  if (ex->explored)
    ts_explore_finish(&ex->x);
  if (ex->loaded)
    ts_cli_unload(&ex->L);
  memset(ex, 0, sizeof *ex);
}
