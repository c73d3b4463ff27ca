/* tssim sensitivity: which cost, cut by how much, moves a metric most:
 * elasticities with their intervals, ranked, and virtual-speedup curves,
 * at every point of a scenario's sweep (fit/sensitivity.h). */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/explore.h"
#include "fit/sensitivity.h"
#include "io/explore_report.h"
#include "viz/plot.h"

#define DEFAULT_STEP 0.05

static const double default_scales[] = {1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2, 0.1};

static void usage(FILE *f)
{
  fputs("usage: tssim sensitivity SCENARIO.json [options]\n"
        "\n"
        "Which cost, cut by how much, moves a metric most. For each parameter (a numeric\n"
        "field of the model, or a named group of fields scaled together) and metric, at\n"
        "every point of the scenario's sweep: the elasticity (relative change of the metric\n"
        "per relative change of the parameter) by central differences at scales 1 - h and\n"
        "1 + h, replication by replication under common random numbers, with its 95%\n"
        "interval, ranked; and the virtual-speedup curve, the metric with the parameter\n"
        "scaled by each of the scales. Writes sensitivity.csv, curve.csv and the plot\n"
        "sensitivity.png into the output folder, replacing the results an earlier command\n"
        "left there (a line on stderr says so). Formats: docs/explore.md.\n"
        "\n"
        "options:\n"
        "      --param PATH        a numeric field to scale, e.g. params.tracker_ms (repeatable)\n"
        "      --group NAME=PATH,PATH,...\n"
        "                          fields scaled together, reported as NAME (repeatable)\n"
        "                          (without --param and --group: every number in the model's\n"
        "                          params named *_ms, its costs and times, that the model\n"
        "                          takes at every scale)\n"
        "      --metric M          a metric, or METRIC@CLASS for a class's row (repeatable;\n"
        "                          default: the first of the scenario's table, else wave_ms)\n"
        "      --scales LIST       the curve's scales (default 1,0.9,0.8,...,0.1), each in\n"
        "                          [0, 1000]\n"
        "      --step H            the elasticity's relative step, in (0, 0.5] (default 0.05)\n",
        f);
  ts_cli_explore_usage_end(f, "sensitivity");
}

typedef struct options {
  ts_cli_explore_opts x;
  const char **params;      /* --param, --group: as given */
  const char **param_opt;   /* the option each came from */
  int nparams;
  const char **metrics;
  int nmetrics;
  double *scales;
  size_t nscales;
  double step;
} options;

static void options_finish(options *o)
{
  ts_cli_explore_opts_finish(&o->x);
  free(o->params);
  free(o->param_opt);
  free(o->metrics);
  if (o->scales != default_scales)
    free(o->scales);
}

/* Parse --scales: distinct numbers in [0, 1000]. */
static int parse_scales(const char *text, options *o, ts_err *e)
{
  char buf[4096];
  if (snprintf(buf, sizeof buf, "%s", text) >= (int)sizeof buf)
    return ts_err_set(e, "--scales", NULL, "list too long");
  size_t cap = strlen(text) / 2 + 2, n = 0;
  double *v = malloc(cap * sizeof *v);
  if (!v)
    return ts_err_set(e, "--scales", NULL, "out of memory");
  const char *p = buf;
  for (;;) {
    char *end;
    double s = strtod(p, &end);
    if (end == p || (*end && *end != ',') || !(s >= 0 && s <= 1000) || n == cap) {
      free(v);
      return ts_err_set(e, "--scales", NULL, "expected a comma list of scales in [0, 1000], e.g. 1,0.9,0.75,0.5, "
                        "got \"%s\"", text);
    }
    for (size_t i = 0; i < n; i++)
      if (v[i] == s) {
        free(v);
        return ts_err_set(e, "--scales", NULL, "%g is listed twice in \"%s\"", s, text);
      }
    v[n++] = s;
    if (!*end)
      break;
    p = end + 1;
  }
  if (o->scales != default_scales)
    free(o->scales);
  o->scales = v;
  o->nscales = n;
  return 0;
}

/* One option of the command's own (a ts_cli_explore_parse take). */
static int take(void *ctx, int c, const char *arg)
{
  options *o = ctx;
  ts_err e;
  char *end;
  switch (c) {
  case 'p':
  case 'g':
    o->param_opt[o->nparams] = c == 'p' ? "--param" : "--group";
    o->params[o->nparams++] = arg;
    return 0;
  case 'm': o->metrics[o->nmetrics++] = arg; return 0;
  case 'c': return parse_scales(arg, o, &e) ? ts_cli_usage_error("%s", e.msg) : 0;
  case 'H':
    o->step = strtod(arg, &end);
    if (end == arg || *end || !(o->step > 0 && o->step <= 0.5))
      return ts_cli_usage_error("--step: expected a relative step in (0, 0.5], e.g. 0.05, got \"%s\"", arg);
    return 0;
  default: return -1;
  }
}

/* Returns 0 to go on, -1 after --help (exit 0), else the exit status. */
static int parse_args(int argc, char **argv, options *o)
{
  static const struct option own[] = {
    {"param", required_argument, NULL, 'p'}, {"group", required_argument, NULL, 'g'},
    {"metric", required_argument, NULL, 'm'}, {"scales", required_argument, NULL, 'c'},
    {"step", required_argument, NULL, 'H'},  {NULL, 0, NULL, 0}};
  o->params = calloc((size_t)argc + 1, sizeof *o->params);
  o->param_opt = calloc((size_t)argc + 1, sizeof *o->param_opt);
  o->metrics = calloc((size_t)argc + 1, sizeof *o->metrics);
  if (!o->params || !o->param_opt || !o->metrics)
    return TS_EXIT_FAILED;
  return ts_cli_explore_parse(argc, argv, "sensitivity", own, take, o, usage, &o->x);
}

/* Everything one command loads and measures. */
typedef struct work {
  ts_cli_explore ex;
  ts_sens_param *params;
  size_t nparams;
  ts_explore_metric *metrics;
  size_t nmetrics;
  ts_sens_result r;
} work;

static void work_finish(work *w)
{
  for (size_t i = 0; w->params && i < w->nparams; i++)
    ts_sens_param_finish(&w->params[i]);
  free(w->params);
  for (size_t i = 0; w->metrics && i < w->nmetrics; i++)
    ts_explore_metric_finish(&w->metrics[i]);
  free(w->metrics);
  ts_compare_sens_finish(&w->r);
  ts_cli_explore_finish(&w->ex);
}

/* One --param PATH or --group NAME=PATH,... into p. */
static int read_param(const work *w, const char *opt, const char *arg, ts_sens_param *p, ts_err *e)
{
  if (strcmp(opt, "--param") == 0)
    return ts_sens_param_init(p, &w->ex.x, opt, arg, &arg, 1, e);
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg)
    return ts_err_set(e, opt, NULL, "expected NAME=PATH,PATH,..., e.g. hydration=params.basic_ms,params.summary_ms, "
                      "got \"%s\"", arg);
  char name[128], where[160], buf[4096];
  if ((size_t)(eq - arg) >= sizeof name || snprintf(buf, sizeof buf, "%s", eq + 1) >= (int)sizeof buf)
    return ts_err_set(e, opt, NULL, "\"%.60s...\": name or list too long", arg);
  snprintf(name, sizeof name, "%.*s", (int)(eq - arg), arg);
  if (strchr(name, ','))
    return ts_err_set(e, opt, NULL, "\"%s\": a group's name has no commas", name);
  snprintf(where, sizeof where, "--group %s", name);
  const char *paths[512];
  size_t n = 0;
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok && n < 512; tok = strtok_r(NULL, ",", &save))
    paths[n++] = tok;
  if (n == 0)
    return ts_err_set(e, where, NULL, "the group is empty: expected NAME=PATH,PATH,...");
  return ts_sens_param_init(p, &w->ex.x, where, name, paths, n, e);
}

/* The parameters: those asked for, or every number in params named *_ms
 * (the model's costs and times) that the model takes at every scale (the
 * others named on stderr). */
static int read_params(const options *o, work *w, const ts_sens_spec *spec, ts_err *e)
{
  const cJSON *params = cJSON_GetObjectItemCaseSensitive(w->ex.x.tree, "params");
  size_t max = (size_t)o->nparams + (size_t)cJSON_GetArraySize(params);
  w->params = calloc(max + 1, sizeof *w->params);
  if (!w->params)
    return ts_err_set(e, "sensitivity", NULL, "out of memory");
  for (int i = 0; i < o->nparams; i++) {
    if (read_param(w, o->param_opt[i], o->params[i], &w->params[w->nparams], e))
      return -1;
    w->nparams++;
    for (size_t j = 0; j + 1 < w->nparams; j++)
      if (strcmp(w->params[j].name, w->params[w->nparams - 1].name) == 0)
        return ts_err_set(e, o->param_opt[i], NULL, "%s is named twice", w->params[j].name);
    if (ts_sens_probe(&w->ex.x, spec, &w->params[w->nparams - 1], o->param_opt[i], e))
      return -1;
  }
  for (size_t i = 0; i < w->nparams; i++) /* even quiet: an elasticity of 0 by construction */
    for (size_t j = 0; j < w->params[i].npaths; j++)
      ts_cli_note_unread(w->ex.x.tree, &w->ex.L.sc, o->param_opt[i], w->params[i].paths[j],
                         "scaling it changes nothing (its elasticity is 0)");
  if (o->nparams > 0)
    return 0;
  size_t matched = 0, by_axis = 0, rejected = 0, unread = 0;
  char first[1024] = ""; /* the first rejection's reason */
  for (const cJSON *c = params ? params->child : NULL; c; c = c->next) {
    size_t len = strlen(c->string);
    if (!cJSON_IsNumber(c) || len < 3 || strcmp(c->string + len - 3, "_ms") != 0)
      continue; /* a cost is a duration: counts and switches stay as they are */
    matched++;
    char path[300];
    const char *pp = path;
    snprintf(path, sizeof path, "params.%s", c->string);
    ts_err inner;
    ts_sens_param *p = &w->params[w->nparams];
    if (!ts_cli_param_read(w->ex.x.tree, &w->ex.L.sc, NULL, 0, c->string)) {
      fprintf(stderr, "tssim: note: left out: %s: no expression of the model reads $%s (scaling it changes "
              "nothing)\n", path, c->string); /* even quiet: a figure left out */
      unread++;
      continue;
    }
    if (ts_sens_param_init(p, &w->ex.x, "--param", path, &pp, 1, &inner)) {
      by_axis++;
      continue; /* an axis sets it */
    }
    if (ts_sens_probe(&w->ex.x, spec, p, "note: left out", &inner)) {
      fprintf(stderr, "tssim: %s\n", inner.msg); /* even quiet */
      if (!rejected++)
        snprintf(first, sizeof first, "%s", inner.msg + strlen("note: left out: "));
      ts_sens_param_finish(p);
      continue;
    }
    w->nparams++;
  }
  if (w->nparams == 0 && matched == 0)
    return ts_err_set(e, "sensitivity", NULL, "%s has no params named *_ms to scale: name fields with --param "
                      "PATH or --group NAME=PATH,...", w->ex.L.sc.model_path);
  if (w->nparams == 0) { /* every one it has is left out: say why, not that it has none */
    char why[1200] = "";
    if (unread)
      snprintf(why, sizeof why, "%zu read by no expression%s", unread, by_axis || rejected ? "; " : "");
    if (by_axis)
      snprintf(why + strlen(why), sizeof why - strlen(why), "%zu set by a scenario axis%s", by_axis,
               rejected ? "; " : "");
    if (rejected)
      snprintf(why + strlen(why), sizeof why - strlen(why), "%zu rejected by the model at a scale (%s%.500s)",
               rejected, rejected > 1 ? "the first: " : "", first);
    return ts_err_set(e, "sensitivity", NULL, "none of the %zu params named *_ms of %s can be scaled: %s; name "
                      "fields with --param PATH or --group NAME=PATH,...%s", matched, w->ex.L.sc.model_path, why,
                      rejected ? ", or leave the scales the model rejects out of --scales" : "");
  }
  return 0;
}

static int read_metrics(const options *o, work *w, ts_err *e)
{
  const ts_scenario *sc = &w->ex.L.sc;
  const char *dflt = sc->ntable > 0 ? sc->table[0] : "wave_ms";
  size_t n = o->nmetrics > 0 ? (size_t)o->nmetrics : 1;
  w->metrics = calloc(n, sizeof *w->metrics);
  if (!w->metrics)
    return ts_err_set(e, "--metric", NULL, "out of memory");
  for (; w->nmetrics < n; w->nmetrics++) {
    const char *text = o->nmetrics > 0 ? o->metrics[w->nmetrics] : dflt;
    for (size_t j = 0; j < w->nmetrics; j++)
      if (strcmp(w->metrics[j].text, text) == 0)
        return ts_err_set(e, "--metric", NULL, "%s is named twice", text);
    if (ts_explore_metric_parse(text, &w->ex.L.model, "--metric", &w->metrics[w->nmetrics], e))
      return -1;
  }
  return 0;
}

/* The words of list (space-separated, each in double quotes) into buf. */
static void quoted(char *buf, size_t cap, char *const *names, size_t n)
{
  size_t len = 0;
  buf[0] = '\0';
  for (size_t i = 0; i < n && len < cap; i++, len = strlen(buf))
    snprintf(buf + len, cap - len, "%s\"%s\"", i ? " " : "", names[i]);
}

static int draw(work *w)
{
  const ts_sens_result *r = &w->r;
  const ts_scenario *sc = &w->ex.L.sc;
  char axes[1024] = "", points[4096] = "", metrics[2048], params[8192], name[300];
  for (int a = 0; a < sc->naxes; a++)
    snprintf(axes + strlen(axes), sizeof axes - strlen(axes), "%s%s", a ? " " : "", sc->axes[a].key);
  for (size_t k = 0; k < r->npoints && k < 16; k++) {
    ts_report_point_name(sc, &r->pt[k], name, sizeof name);
    snprintf(points + strlen(points), sizeof points - strlen(points), "%s\"%s\"", k ? " " : "", name);
  }
  quoted(metrics, sizeof metrics, r->metric, r->nmetrics);
  quoted(params, sizeof params, r->param, r->nparams);
  const char *vars[] = {"title", sc->name, "axes", axes, "points", points, "metrics", metrics, "params", params,
                        NULL};
  return ts_cli_explore_draw(&w->ex, "sensitivity", vars);
}

/* On stderr: how many curves turn (ts_compare_sens_turns), the first named
 * with its values, and what that means for their elasticities. */
static void note_turns(const work *w)
{
  const ts_sens_result *r = &w->r;
  size_t count = 0, total = r->npoints * r->nmetrics * r->nparams, first = 0;
  for (size_t k = 0; k < r->npoints; k++)
    for (size_t m = 0; m < r->nmetrics; m++)
      for (size_t p = 0; p < r->nparams; p++)
        if (ts_compare_sens_turns(r, k, m, p) && count++ == 0)
          first = (k * r->nmetrics + m) * r->nparams + p;
  if (count == 0)
    return;
  char name[300], values[400] = "";
  size_t k = first / (r->nmetrics * r->nparams), m = first / r->nparams % r->nmetrics;
  ts_report_point_name(&w->ex.L.sc, &r->pt[k], name, sizeof name);
  for (size_t j = 0; j < r->nscales && j < 6; j++)
    snprintf(values + strlen(values), sizeof values - strlen(values), "%s%.*f at x%g", j ? ", " : "", r->digits[m],
             r->value[first * r->nscales + j], r->scale[j]);
  fflush(stdout);
  fprintf(stderr, "tssim: note: %zu of %zu curve(s) go both up and down over their scales, by more than their "
          "intervals (the first: %s on %s at %s: %s%s): there the elasticity is the slope between x%g and x%g only, "
          "not a guide to a larger cut (fixed durations can lock into phase: docs/explore.md)\n", count, total,
          r->param[first % r->nparams], r->metric[m], name, values, r->nscales > 6 ? ", ..." : "", 1 - r->step,
          1 + r->step);
}

/* On stderr: how many elasticities straddle a jump (ts_sens_result.jump),
 * the first named with its one-sided elasticities. */
static void note_jumps(const work *w)
{
  const ts_sens_result *r = &w->r;
  size_t count = 0, total = r->npoints * r->nmetrics * r->nparams, first = 0;
  for (size_t i = 0; i < total; i++)
    if (r->jump[i] && count++ == 0)
      first = i;
  if (count == 0)
    return;
  char name[300];
  size_t k = first / (r->nmetrics * r->nparams), m = first / r->nparams % r->nmetrics;
  ts_report_point_name(&w->ex.L.sc, &r->pt[k], name, sizeof name);
  fflush(stdout);
  fprintf(stderr, "tssim: note: %zu of %zu elasticit(ies) straddle a jump: the one-sided elasticities, between x%g "
          "and x1 and between x1 and x%g, differ by a factor of 3 or more or in sign, beyond their intervals (the "
          "first: %s on %s at %s: %.4g below, %.4g above): their central elasticity, the mean of the two, describes "
          "neither side (rank it with care); the rows say \"jump\" (the curve, or a smaller --step, shows where it is: "
          "docs/explore.md)\n", count, total, 1 - r->step, 1 + r->step, r->param[first % r->nparams], r->metric[m],
          name, r->below[first], r->above[first]);
}

static int run(const options *o, work *w)
{
  ts_err e;
  int rc = ts_cli_explore_load(&o->x, &w->ex, "sensitivity");
  if (rc)
    return rc;
  ts_sens_spec spec = {.scales = o->scales, .nscales = o->nscales, .step = o->step,
                       .replications = w->ex.L.sc.replications};
  if (read_metrics(o, w, &e) || read_params(o, w, &spec, &e))
    return ts_cli_usage_error("%s", e.msg);
  spec.params = w->params;
  spec.nparams = w->nparams;
  spec.metrics = w->metrics;
  spec.nmetrics = w->nmetrics;
  size_t total = w->ex.x.npoints * ts_sens_nvariants(&spec) * (size_t)spec.replications;
  if ((rc = ts_cli_explore_start(&w->ex, total, NULL)) != 0)
    return rc;
  char err[512];
  int sr = ts_sens_run(&w->ex.x, &spec, &w->r, err, sizeof err);
  ts_cli_explore_progress_done(&w->ex);
  if (sr)
    return ts_cli_explore_failed(&w->ex, sr, err);
  const ts_scenario *sc = &w->ex.L.sc;
  if (!o->x.run.quiet) {
    printf("%s: sensitivity of %zu metric(s) to %zu parameter(s)\nmodel %s, seed %llu, %d replication(s); "
           "elasticity by central differences between scales %g and %g, replication by replication (common "
           "random numbers)\n", sc->name, w->nmetrics, w->nparams, sc->model_path, (unsigned long long)sc->seed,
           sc->replications, 1 - o->step, 1 + o->step);
    ts_report_sens_print(stdout, sc, &w->r);
  }
  FILE *f1 = ts_cli_explore_file(&w->ex, "sensitivity.csv", &e);
  FILE *f2 = f1 ? ts_cli_explore_file(&w->ex, "curve.csv", &e) : NULL;
  if (!f2)
    return ts_cli_explore_io_failed(&w->ex, &e);
  ts_report_sens_csv(f1, sc, &w->r);
  ts_report_curve_csv(f2, sc, &w->r);
  if ((rc = ts_cli_explore_commit(&w->ex, "sensitivity.csv, curve.csv")) != 0)
    return rc;
  note_turns(w);
  note_jumps(w);
  return o->x.run.plots ? draw(w) : ts_cli_explore_draw(&w->ex, NULL, NULL);
}

int ts_cmd_sensitivity(int argc, char **argv)
{
  options o = {.scales = (double *)default_scales, .nscales = sizeof default_scales / sizeof *default_scales,
               .step = DEFAULT_STEP};
  work w;
  memset(&w, 0, sizeof w);
  int rc = parse_args(argc, argv, &o);
  if (rc == 0)
    rc = run(&o, &w);
  work_finish(&w);
  options_finish(&o);
  return rc < 0 ? 0 : rc;
}
