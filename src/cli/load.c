#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/suggest.h"
#include "run/metrics.h"

int ts_cli_usage_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("tssim: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

int ts_cli_bad_option(const char *cmd, char **argv)
{
  return ts_cli_usage_error("%s: unknown option, or an option without its value: %s (see tssim %s --help)", cmd,
                            argv[optind - 1], cmd);
}

/* Whether an error message points at the override "PATH=VALUE": it names
 * PATH (or a place inside it), or, for PATH = params.NAME, the reference $NAME. */
static int names_override(const char *msg, const char *set)
{
  const char *eq = strchr(set, '=');
  int len = eq ? (int)(eq - set) : 0;
  char at[520];
  if (len == 0 || len > 500)
    return 0;
  snprintf(at, sizeof at, ": %.*s", len, set);
  const char *hit = strstr(msg, at);
  if (hit && strchr(":.[", hit[strlen(at)]))
    return 1;
  if (strncmp(set, "params.", 7) != 0)
    return 0;
  snprintf(at, sizeof at, "$%.*s ", len - 7, set + 7);
  return strstr(msg, at) != NULL;
}

/* Write into by (size cap) which override a model error comes from:
 * " (from --set P=V)" or " (from the scenario's "set": FILE)", or "". */
static void blame_override(const char *msg, const char *const *sets, int from_scenario, int total,
                           const char *scenario, char *by, size_t cap)
{
  by[0] = '\0';
  for (int i = total - 1; i >= 0; i--) /* the last override of a path wins */
    if (names_override(msg, sets[i])) {
      if (i < from_scenario)
        snprintf(by, cap, " (from the scenario's \"set\": %s)", scenario);
      else
        snprintf(by, cap, " (from --set %.400s)", sets[i]);
      return;
    }
}

/* The axis values of combination c (the first axis varies slowest). */
static void combo_of(const ts_scenario *sc, long c, int *values)
{
  for (int a = sc->naxes - 1; a >= 0; a--) {
    values[a] = (int)(c % sc->axes[a].nvalues);
    c /= sc->axes[a].nvalues;
  }
}

/* Every axis path names a place in the model, and every combination loads. */
static int check_axes(ts_loaded *L, ts_err *e)
{
  const ts_scenario *sc = &L->sc;
  long combos = 1;
  for (int a = 0; a < sc->naxes; a++) {
    const ts_axis *ax = &sc->axes[a];
    for (int v = 0; v < ax->nvalues; v++)
      for (int k = 0; k < ax->nsets[v]; k++) {
        char path[512];
        size_t n = strcspn(ax->sets[v][k], "=");
        snprintf(path, sizeof path, "%.*s", (int)(n < sizeof path ? n : sizeof path - 1), ax->sets[v][k]);
        if (!ts_json_get_path(L->resolved, path)) {
          char where[128];
          snprintf(where, sizeof where, "axes.%s", ax->key);
          return ts_err_set(e, sc->file, where, "%s is not a field of the model %s (an axis replaces fields that exist)",
                            path, sc->model_path);
        }
      }
    combos *= ax->nvalues;
    if (combos > 100000)
      return ts_err_set(e, sc->file, "axes", "more than 100000 combinations of axis values");
  }
  int values[16];
  for (long c = 0; sc->naxes > 0 && c < combos && c < 1000; c++) {
    ts_model m;
    char err[sizeof e->msg];
    combo_of(sc, c, values);
    if (ts_cli_model_of(L, values, &m, err, sizeof err))
    {
      snprintf(e->msg, sizeof e->msg, "%s", err);
      return -1;
    }
    ts_model_finish(&m);
  }
  return 0;
}

/* "did you mean ...? " for a metric name not in l, or "". */
static void metric_hint(const ts_metric_list *l, const char *name, char *hint, size_t cap)
{
  const char **names = calloc(l->n + 1, sizeof *names);
  for (size_t i = 0; names && i < l->n; i++)
    names[i] = l->v[i].name;
  const char *near = names ? ts_suggest(name, names) : NULL;
  snprintf(hint, cap, near ? "; did you mean \"%s\"?" : "%s", near ? near : "");
  free(names);
}

/* Every metric the scenario's table shows and the baseline records is one
 * the model reports (and the model's metric names are distinct). */
static int check_metrics(const ts_loaded *L, ts_err *e)
{
  ts_metric_list l;
  char why[300], hint[120];
  if (ts_metric_list_build(&L->model, &l, why, sizeof why))
    return ts_err_set(e, L->sc.model_path, NULL, "%s", why);
  int rc = 0;
  for (int i = 0; i < L->sc.ntable && rc == 0; i++) {
    if (ts_metric_list_find(&l, L->sc.table[i]) >= 0)
      continue;
    char where[32];
    snprintf(where, sizeof where, "table[%d]", i);
    metric_hint(&l, L->sc.table[i], hint, sizeof hint);
    rc = ts_err_set(e, L->sc.file, where, "\"%s\": model %s does not report it%s (tssim run --help lists the "
                    "metrics; a model adds its spans' and its own)", L->sc.table[i], L->sc.model_path, hint);
  }
  for (size_t i = 0; L->has_baseline && i < L->baseline.nrec && rc == 0; i++) {
    const ts_record *r = &L->baseline.rec[i];
    if (ts_metric_list_find(&l, r->metric) >= 0)
      continue;
    metric_hint(&l, r->metric, hint, sizeof hint);
    rc = ts_err_set(e, L->baseline.file, r->where, "unknown metric: model %s does not report it%s (tssim run --help "
                    "lists the metrics; a model adds its spans' and its own)", L->sc.model_path, hint);
  }
  ts_metric_list_finish(&l);
  return rc;
}

int ts_cli_model_of(void *ctx, const int *values, ts_model *m, char *err, size_t cap)
{
  const ts_loaded *L = ctx;
  const ts_scenario *sc = &L->sc;
  cJSON *t = cJSON_Duplicate(L->resolved, 1);
  ts_err e;
  if (!t) {
    snprintf(err, cap, "out of memory");
    return -1;
  }
  int rc = 0, a = 0;
  for (; a < sc->naxes && rc == 0; a++)
    for (int k = 0; k < sc->axes[a].nsets[values[a]] && rc == 0; k++)
      rc = ts_model_apply_set(t, sc->model_path, sc->axes[a].sets[values[a]][k], &e);
  if (rc == 0) {
    a = -1;
    rc = ts_model_from_json(t, sc->model_path, m, &e);
  }
  cJSON_Delete(t);
  if (rc) {
    char by[200] = "";
    for (int k = 0; k < sc->naxes; k++) {
      size_t l = strlen(by);
      snprintf(by + l, sizeof by - l, "%s%s=%s", k ? ", " : "", sc->axes[k].key, sc->axes[k].labels[values[k]]);
    }
    snprintf(err, cap, "%s (with axes %s)", e.msg, by);
  }
  return rc;
}

int ts_cli_load(const char *path, const char *const *sets, int nsets, ts_loaded *out)
{
  ts_err e;
  memset(out, 0, sizeof *out);
  if (ts_scenario_load(path, &out->sc, &e))
    return ts_cli_usage_error("%s", e.msg);
  int total = out->sc.nsets + nsets;
  const char **all = calloc((size_t)total + 1, sizeof *all);
  if (!all) {
    ts_scenario_finish(&out->sc);
    return ts_cli_usage_error("out of memory");
  }
  for (int i = 0; i < out->sc.nsets; i++)
    all[i] = out->sc.sets[i];
  for (int i = 0; i < nsets; i++)
    all[out->sc.nsets + i] = sets[i];
  int bad = ts_model_load(out->sc.model_path, all, total, &out->model, &out->resolved, &e);
  if (bad) {
    char by[600];
    blame_override(e.msg, all, out->sc.nsets, total, out->sc.file, by, sizeof by);
    ts_cli_usage_error("%s%s", e.msg, by);
    free(all);
    ts_scenario_finish(&out->sc);
    return 2;
  }
  free(all);
  if (check_axes(out, &e)) {
    ts_cli_unload(out);
    return ts_cli_usage_error("%s", e.msg);
  }
  if (out->sc.baseline_path) {
    if (ts_baseline_load(out->sc.baseline_path, &out->baseline, &e)) {
      ts_cli_unload(out);
      return ts_cli_usage_error("%s", e.msg);
    }
    out->has_baseline = 1;
  }
  if (check_metrics(out, &e)) {
    ts_cli_unload(out);
    return ts_cli_usage_error("%s", e.msg);
  }
  return 0;
}

void ts_cli_unload(ts_loaded *l)
{
  ts_scenario_finish(&l->sc);
  ts_model_finish(&l->model);
  cJSON_Delete(l->resolved);
  ts_baseline_finish(&l->baseline);
  memset(l, 0, sizeof *l);
}
