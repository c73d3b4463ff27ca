/* tssim optimize: which setting to choose: minimise or maximise a metric
 * over numeric and choice fields, subject to constraints on other metrics
 * (fit/optimize.h). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/explore.h"
#include "fit/optimize.h"
#include "io/atomic.h"
#include "io/explore_report.h"
#include "viz/plot.h"

static void usage(FILE *f)
{
  fprintf(f,
          "usage: tssim optimize SCENARIO.json --minimize M|--maximize M [--field PATH=LO:HI]...\n"
          "                      [--choice PATH=V1,V2,...]... [--constraint \"M OP LIMIT\"]... [options]\n"
          "\n"
          "Which setting to choose: minimise or maximise a metric (METRIC, or METRIC@CLASS for\n"
          "a class's row) over numeric fields within bounds and choice fields, subject to\n"
          "constraints on other metrics, under common random numbers (every setting runs\n"
          "with the same seeds). A metric's value is the mean over the sweep's points of its\n"
          "mean over replications; a constraint must hold at every point. A metric may name\n"
          "one point of the sweep, METRIC[KEY=LABEL,...] (KEY an axis key, workers or n;\n"
          "every key with several values named), e.g. wave_ms@big[rule=ten,workers=4]: its\n"
          "value is then that point's mean over replications, a constraint on it holds at\n"
          "that point only, and its baseline is that point's. One field: a grid, then GSL's\n"
          "Brent minimiser; several: the grid, then GSL's Nelder-Mead simplex; choice\n"
          "fields alone: every combination (successive halving above %d). Then the\n"
          "best settings race: while the best one is within the 95%% interval of another\n"
          "(paired per replication), all run again at twice the replications. With two\n"
          "objectives the grid is evaluated and the Pareto front reported. Writes tried.csv\n"
          "(every setting), best.json (one objective) or pareto.csv and pareto.png (two) into\n"
          "the output folder, replacing the results an earlier command left there (the\n"
          "other's, a run's; a line on stderr says so). Formats: docs/explore.md.\n"
          "\n"
          "options:\n"
          "      --minimize M        the objective, to make as small as possible\n"
          "      --maximize M        ... or as large; one or two objectives in all\n"
          "      --field PATH=LO:HI  a numeric field searched within [LO, HI] (repeatable)\n"
          "      --choice PATH=V1,V2,...\n"
          "                          a field set to one of these values (JSON, or a string)\n"
          "                          (repeatable)\n"
          "      --constraint \"M OP LIMIT\"\n"
          "                          OP one of <=, <, >=, >; LIMIT a number or an expression of\n"
          "                          numbers and baseline (M under the scenario's own setting),\n"
          "                          e.g. \"wave_ms@big <= 1.05 * baseline\" (repeatable)\n"
          "      --grid K            grid values of one field (default %d; several fields: K x\n"
          "                          fields quasi-random points, the first the centre)\n"
          "      --finalists K       settings in the race, and combinations searched (default %d)\n"
          "      --r-max R           the race's most replications (default 8 x R)\n"
          "      --max-evals N       settings the grid and the local searches may evaluate, the\n"
          "                          baseline (the scenario's own) and the race's reruns aside\n"
          "                          (default %d); a note says when it stopped the search\n"
          "      --max-iter N        iterations of each local search (default %d); a note says\n"
          "                          when one stopped while it still tried new settings\n",
          TS_OPT_HALVING_ABOVE, TS_OPT_DEFAULT_GRID, TS_OPT_DEFAULT_FINALISTS, TS_OPT_DEFAULT_MAX_EVALS,
          TS_OPT_DEFAULT_MAX_ITER);
  ts_cli_explore_usage_end(f, "optimize");
}

typedef struct options {
  ts_cli_explore_opts x;
  const char *objective[2];
  int maximize[2];
  int nobjectives;
  const char **fields, **choices, **constraints;
  int nfields, nchoices, nconstraints;
  long grid, finalists, r_max, max_evals, max_iter;
} options;

static void options_finish(options *o)
{
  ts_cli_explore_opts_finish(&o->x);
  free(o->fields);
  free(o->choices);
  free(o->constraints);
}

/* An integer option's value in [lo, hi] into *out: 0, or the exit status
 * after saying what was expected. */
static int parse_count(const char *arg, const char *what, long lo, long hi, long *out)
{
  char *end;
  long v = strtol(arg, &end, 10);
  if (!*arg || *end || v < lo || v > hi)
    return ts_cli_usage_error("%s: expected an integer in [%ld, %ld], got \"%s\"", what, lo, hi, arg);
  *out = v;
  return 0;
}

/* One option of the command's own (a ts_cli_explore_parse take). */
static int take(void *ctx, int c, const char *arg)
{
  options *o = ctx;
  switch (c) {
  case 'm':
  case 'M':
    if (o->nobjectives == 2)
      return ts_cli_usage_error("%s: at most two objectives (--minimize or --maximize), got a third: %s",
                                c == 'm' ? "--minimize" : "--maximize", arg);
    o->maximize[o->nobjectives] = c == 'M';
    o->objective[o->nobjectives++] = arg;
    return 0;
  case 'f': o->fields[o->nfields++] = arg; return 0;
  case 'c': o->choices[o->nchoices++] = arg; return 0;
  case 'C': o->constraints[o->nconstraints++] = arg; return 0;
  case 'g': return parse_count(arg, "--grid", 3, 1000, &o->grid);
  case 'F': return parse_count(arg, "--finalists", 1, 100, &o->finalists);
  case 'R': return parse_count(arg, "--r-max", 1, 100000, &o->r_max);
  case 'E': return parse_count(arg, "--max-evals", 1, 1000000, &o->max_evals);
  case 'I': return parse_count(arg, "--max-iter", 1, 100000, &o->max_iter);
  default: return -1;
  }
}

/* Returns 0 to go on, -1 after --help (exit 0), else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
  static const struct option own[] = {
    {"minimize", required_argument, NULL, 'm'}, {"maximize", required_argument, NULL, 'M'},
    {"field", required_argument, NULL, 'f'},    {"choice", required_argument, NULL, 'c'},
    {"constraint", required_argument, NULL, 'C'}, {"grid", required_argument, NULL, 'g'},
    {"finalists", required_argument, NULL, 'F'}, {"r-max", required_argument, NULL, 'R'},
    {"max-evals", required_argument, NULL, 'E'}, {"max-iter", required_argument, NULL, 'I'},
    {NULL, 0, NULL, 0}};
  o->fields = calloc((size_t)argc + 1, sizeof *o->fields);
  o->choices = calloc((size_t)argc + 1, sizeof *o->choices);
  o->constraints = calloc((size_t)argc + 1, sizeof *o->constraints);
  if (!o->fields || !o->choices || !o->constraints)
    return TS_EXIT_FAILED;
  int rc = ts_cli_explore_parse(argc, argv, "optimize", own, take, o, usage, &o->x);
  if (rc)
    return rc;
  if (o->nobjectives == 0)
    return ts_cli_usage_error("optimize: expected an objective: --minimize METRIC or --maximize METRIC");
  if (o->nfields + o->nchoices == 0)
    return ts_cli_usage_error("optimize: expected something to search: --field PATH=LO:HI or --choice "
                              "PATH=V1,V2,...");
  if (o->nfields > 64)
    return ts_cli_usage_error("--field: at most 64 numeric fields, got %d", o->nfields);
  return 0;
}

/* Everything one command loads and finds. */
typedef struct work {
  ts_cli_explore ex;
  ts_explore_metric obj[2];
  int nobj;
  ts_opt_field *fields;
  int nfields;
  ts_opt_choice *choices;
  int nchoices;
  ts_opt_constraint *constraints;
  int nconstraints;
  ts_opt_result r;
} work;

static void work_finish(work *w)
{
  for (int i = 0; i < w->nobj; i++)
    ts_explore_metric_finish(&w->obj[i]);
  for (int i = 0; w->fields && i < w->nfields; i++)
    ts_opt_field_finish(&w->fields[i]);
  free(w->fields);
  for (int i = 0; w->choices && i < w->nchoices; i++)
    ts_opt_choice_finish(&w->choices[i]);
  free(w->choices);
  for (int i = 0; w->constraints && i < w->nconstraints; i++)
    ts_opt_constraint_finish(&w->constraints[i]);
  free(w->constraints);
  ts_compare_opt_finish(&w->r);
  ts_cli_explore_finish(&w->ex);
}

/* Every path searched is named once. */
static int check_paths(const work *w, ts_err *e)
{
  int n = w->nfields + w->nchoices;
  for (int i = 0; i < n; i++)
    for (int j = 0; j < i; j++) {
      const char *a = i < w->nfields ? w->fields[i].path : w->choices[i - w->nfields].path;
      const char *b = j < w->nfields ? w->fields[j].path : w->choices[j - w->nfields].path;
      if (strcmp(a, b) == 0)
        return ts_err_set(e, i < w->nfields ? "--field" : "--choice", NULL, "%s is searched twice", a);
    }
  return 0;
}

static int read_inputs(const options *o, work *w, ts_err *e)
{
  const ts_model *m = &w->ex.L.model;
  for (; w->nobj < o->nobjectives; w->nobj++)
    if (ts_explore_metric_parse_at(o->objective[w->nobj], m, &w->ex.x,
                                   o->maximize[w->nobj] ? "--maximize" : "--minimize", &w->obj[w->nobj], e))
      return -1;
  if (o->nobjectives == 2 && ts_explore_metric_same(&w->obj[0], &w->obj[1]))
    return ts_err_set(e, o->maximize[1] ? "--maximize" : "--minimize", NULL, "%s is already the first objective",
                      w->obj[1].text);
  w->fields = calloc((size_t)o->nfields + 1, sizeof *w->fields);
  w->choices = calloc((size_t)o->nchoices + 1, sizeof *w->choices);
  w->constraints = calloc((size_t)o->nconstraints + 1, sizeof *w->constraints);
  if (!w->fields || !w->choices || !w->constraints)
    return ts_err_set(e, "optimize", NULL, "out of memory");
  for (; w->nfields < o->nfields; w->nfields++)
    if (ts_opt_field_parse(o->fields[w->nfields], &w->ex.x, &w->fields[w->nfields], e))
      return -1;
  for (; w->nchoices < o->nchoices; w->nchoices++)
    if (ts_opt_choice_parse(o->choices[w->nchoices], &w->ex.x, &w->choices[w->nchoices], e))
      return -1;
  for (; w->nconstraints < o->nconstraints; w->nconstraints++)
    if (ts_opt_constraint_parse(o->constraints[w->nconstraints], m, &w->ex.x, &w->constraints[w->nconstraints], e))
      return -1;
  return check_paths(w, e);
}

static int draw(work *w)
{
  const ts_opt_result *r = &w->r;
  const char *vars[] = {"title", w->ex.L.sc.name, "xmetric", r->metric[0], "ymetric", r->metric[1], NULL};
  return ts_cli_explore_draw(&w->ex, "pareto", vars);
}

/* Print the header: what is searched, and how. */
static void header(const options *o, const work *w, const ts_opt_spec *spec)
{
  const ts_scenario *sc = &w->ex.L.sc;
  printf("%s: %s %s", sc->name, o->maximize[0] ? "maximize" : "minimize", w->obj[0].text);
  if (w->nobj == 2)
    printf(" and %s %s", o->maximize[1] ? "maximize" : "minimize", w->obj[1].text);
  printf(" over");
  for (int i = 0; i < w->nfields; i++)
    printf("%s %s in [%g, %g]", i ? "," : "", w->fields[i].path, w->fields[i].lo, w->fields[i].hi);
  for (int j = 0; j < w->nchoices; j++) {
    printf("%s %s in {", j || w->nfields ? "," : "", w->choices[j].path);
    for (size_t k = 0; k < w->choices[j].nvalues; k++)
      printf("%s%s", k ? ", " : "", w->choices[j].values[k]);
    putchar('}');
  }
  for (int i = 0; i < w->nconstraints; i++)
    printf("%s %s", i ? "," : ", subject to", w->constraints[i].text);
  printf("\nmodel %s, seed %llu, %d replication(s) per setting (up to %d in the race), %zu sweep point(s), common "
         "random numbers\n", sc->model_path, (unsigned long long)sc->seed, spec->replications, spec->r_max,
         w->ex.x.npoints);
}

/* The --axis option of o keeping one value of an axis of sc (the scenario
 * as its file has it) whose value sets path or a path above it, that
 * override into *over; or NULL. */
static const char *kept_axis_sets(const ts_scenario *sc, const options *o, const char *path, const char **over)
{
  for (int a = 0; a < sc->naxes; a++) {
    const ts_axis *ax = &sc->axes[a];
    const char *arg = ts_cli_axis_option(o->x.run.axes, o->x.run.naxes, ax->key);
    for (int v = 0; arg && !strchr(arg, ',') && v < ax->nvalues; v++)
      for (int k = 0; ts_cli_axis_keeps(arg, ax->labels[v]) && k < ax->nsets[v]; k++)
        if (ts_cli_set_covers(ax->sets[v][k], path)) {
          *over = ax->sets[v][k];
          return arg;
        }
  }
  return NULL;
}

/* Whether a --set of o gives path (or a path above it). */
static int set_gives(const options *o, const char *path)
{
  for (int i = 0; i < o->x.run.nsets; i++)
    if (ts_cli_set_covers(o->x.run.sets[i], path))
      return 1;
  return 0;
}

/* Where the scenario's own values of the searched paths come from, read
 * from the scenario file's axes (the loaded one has lost those --axis
 * kept at one value): r's own_from_set (a --set gives it, no kept axis
 * value overrides that); and, when the best (two objectives: a setting of
 * the front) is not the scenario's own, each searched path a kept axis
 * value sets, into replaced (a JSON array of {searched, axis, axis_sets}):
 * the best's --set does not give it in tssim run, where the axis stays and
 * wins (note_replaced). */
static void origins(const options *o, work *w, cJSON *replaced)
{
  ts_scenario sc;
  ts_err e;
  if (ts_scenario_load(o->x.run.scenario, &sc, &e))
    return; /* (loaded once already: out of memory) */
  ts_opt_result *r = &w->r;
  long at = r->best >= 0 ? r->best : r->nfinalists ? (long)r->finalists[0] : -1;
  int away = at >= 0 && r->t[at].stage != TS_OPT_STAGE_BASELINE;
  for (size_t i = 0; w->nobj == 2 && r->front && i < r->ntrials; i++)
    away |= r->front[i] && r->t[i].stage != TS_OPT_STAGE_BASELINE;
  int given = 0, n = w->nfields + w->nchoices;
  for (int i = 0; i < n; i++) {
    const char *path = i < w->nfields ? w->fields[i].path : w->choices[i - w->nfields].path, *over = NULL;
    const char *axis = kept_axis_sets(&sc, o, path, &over);
    given += !axis && set_gives(o, path);
    if (!axis || !away)
      continue;
    cJSON *item = cJSON_CreateObject();
    cJSON_AddStringToObject(item, "searched", path);
    cJSON_AddStringToObject(item, "axis", axis);
    cJSON_AddStringToObject(item, "axis_sets", over);
    cJSON_AddItemToArray(replaced, item);
  }
  r->own_from_set = given == 0 ? 0 : given == n ? 1 : 2;
  ts_scenario_finish(&sc);
}

/* On stderr, when replaced (origins) has an item: that tssim run does not
 * give the best (two objectives: the front's settings) with the printed
 * --set, and how to run it. */
static void note_replaced(const options *o, const work *w, const cJSON *replaced)
{
  const cJSON *it = cJSON_GetArrayItem(replaced, 0);
  if (!it)
    return;
  const char *path = cJSON_GetStringValue(cJSON_GetObjectItem(it, "searched"));
  const char *axis = cJSON_GetStringValue(cJSON_GetObjectItem(it, "axis"));
  const char *over = cJSON_GetStringValue(cJSON_GetObjectItem(it, "axis_sets"));
  fflush(stdout);
  fprintf(stderr, "tssim: note: the search replaced what --axis %s sets (%s) with the searched %s: tssim run keeps "
          "the axis, whose value wins over --set, so `tssim run %s --axis %s --set %s=...` runs %s, not %s; "
          "to run %s, give its value in that axis value of a copy of the scenario%s\n", axis, over, path,
          o->x.run.scenario, axis, path, over, w->nobj == 2 ? "the front's settings" : "the best",
          w->nobj == 2 ? "one" : "the best",
          w->nobj == 2 ? "" : " (best.json's run_with has the options and axis_replaced what they replace)");
}

/* best.json's run_with: the options the sweep ran with (--axis, --set, --n,
 * --workers as given; the replications used: the seed is best.json's
 * seed), so that tssim run can be given the same. */
static void run_with(const options *o, const work *w, cJSON *doc)
{
  cJSON *rw = cJSON_AddObjectToObject(doc, "run_with");
  cJSON *axes = rw ? cJSON_AddArrayToObject(rw, "axis") : NULL, *sets = rw ? cJSON_AddArrayToObject(rw, "set") : NULL;
  for (int i = 0; axes && i < o->x.run.naxes; i++)
    cJSON_AddItemToArray(axes, cJSON_CreateString(o->x.run.axes[i]));
  for (int i = 0; sets && i < o->x.run.nsets; i++)
    cJSON_AddItemToArray(sets, cJSON_CreateString(o->x.run.sets[i]));
  if (rw && o->x.run.n_arg)
    cJSON_AddStringToObject(rw, "n", o->x.run.n_arg);
  if (rw && o->x.run.w_arg)
    cJSON_AddStringToObject(rw, "workers", o->x.run.w_arg);
  if (rw)
    cJSON_AddNumberToObject(rw, "replications", w->ex.L.sc.replications);
}

static int write_results(const options *o, work *w, cJSON *replaced)
{
  ts_err e;
  const ts_scenario *sc = &w->ex.L.sc;
  FILE *tried = ts_cli_explore_file(&w->ex, "tried.csv", &e);
  if (!tried) /* the files of an earlier run of another kind (best.json, pareto.csv, run's) go at the commit */
    return ts_cli_explore_io_failed(&w->ex, &e);
  ts_report_opt_tried_csv(tried, &w->r);
  if (w->nobj == 2) {
    FILE *pareto = ts_cli_explore_file(&w->ex, "pareto.csv", &e);
    if (!pareto)
      return ts_cli_explore_io_failed(&w->ex, &e);
    ts_report_opt_pareto_csv(pareto, &w->r);
    return ts_cli_explore_commit(&w->ex, "tried.csv, pareto.csv");
  }
  FILE *best = ts_cli_explore_file(&w->ex, "best.json", &e);
  cJSON *doc = best ? ts_report_opt_best_json(sc, &w->r) : NULL;
  if (doc) {
    run_with(o, w, doc);
    cJSON_AddItemReferenceToObject(doc, "axis_replaced", replaced);
  }
  char *text = doc ? cJSON_Print(doc) : NULL;
  cJSON_Delete(doc);
  if (!best || !text) {
    free(text);
    if (best)
      ts_err_set(&e, w->ex.outdir, NULL, "out of memory");
    return ts_cli_explore_io_failed(&w->ex, &e);
  }
  fprintf(best, "%s\n", text);
  free(text);
  return ts_cli_explore_commit(&w->ex, "tried.csv, best.json");
}

static int run(const options *o, work *w)
{
  ts_err e;
  int rc = ts_cli_explore_load(&o->x, &w->ex, "optimize");
  if (rc)
    return rc;
  if (read_inputs(o, w, &e))
    return ts_cli_usage_error("%s", e.msg);
  for (int i = 0; i < w->nfields + w->nchoices; i++) /* even quiet */
    ts_cli_note_unread(w->ex.x.tree, &w->ex.L.sc, i < w->nfields ? "--field" : "--choice",
                       i < w->nfields ? w->fields[i].path : w->choices[i - w->nfields].path,
                       "searching it changes nothing");
  int R = w->ex.L.sc.replications;
  ts_opt_spec spec = {.fields = w->fields, .nfields = (size_t)w->nfields, .choices = w->choices,
                      .nchoices = (size_t)w->nchoices, .objectives = w->obj, .nobjectives = w->nobj,
                      .maximize = {o->maximize[0], o->maximize[1]}, .constraints = w->constraints,
                      .nconstraints = (size_t)w->nconstraints, .replications = R,
                      .r_max = o->r_max ? (int)o->r_max : 8 * R, .grid = (int)o->grid,
                      .finalists = (int)o->finalists, .max_evals = (int)o->max_evals,
                      .max_iter = (int)o->max_iter, .tol = TS_OPT_DEFAULT_TOL};
  if (spec.r_max < R)
    return ts_cli_usage_error("--r-max: %d is below the search's %d replication(s)", spec.r_max, R);
  size_t g = ts_opt_grid_size(&spec);
  if (g > (size_t)spec.max_evals)
    return ts_cli_usage_error("--max-evals: the grid alone is %zu settings, above %d (a smaller --grid, fewer "
                              "choices, or a larger --max-evals)", g, spec.max_evals);
  if ((rc = ts_cli_explore_start(&w->ex, 0, &w->r.ntrials)) != 0)
    return rc;
  if (!o->x.run.quiet) {
    header(o, w, &spec);
    fflush(stdout);
  }
  char err[512];
  int sr = ts_opt_run(&w->ex.x, &spec, &w->r, err, sizeof err);
  ts_cli_explore_progress_done(&w->ex);
  if (sr)
    return ts_cli_explore_failed(&w->ex, sr, err);
  cJSON *replaced = cJSON_CreateArray();
  if (!replaced)
    return ts_cli_explore_failed(&w->ex, TS_SWEEP_NOMEM, "out of memory");
  origins(o, w, replaced);
  if (!o->x.run.quiet)
    ts_report_opt_print(stdout, &w->ex.L.sc, &w->r);
  fflush(stdout);
  ts_report_opt_budget_note(stderr, &w->r); /* even quiet: it says what the best is worth */
  note_replaced(o, w, replaced);
  rc = write_results(o, w, replaced);
  cJSON_Delete(replaced);
  if (rc != 0)
    return rc;
  return o->x.run.plots && w->nobj == 2 ? draw(w) : ts_cli_explore_draw(&w->ex, NULL, NULL);
}

int ts_cmd_optimize(int argc, char **argv)
{
  options o = {.grid = TS_OPT_DEFAULT_GRID, .finalists = TS_OPT_DEFAULT_FINALISTS,
               .max_evals = TS_OPT_DEFAULT_MAX_EVALS, .max_iter = TS_OPT_DEFAULT_MAX_ITER};
  work w;
  memset(&w, 0, sizeof w);
  int rc = parse_args(argc, argv, &o);
  if (rc == 0)
    rc = run(&o, &w);
  work_finish(&w);
  options_finish(&o);
  return rc < 0 ? 0 : rc;
}
