#include "fit/problem.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "run/metrics.h"
#include "run/sweep.h"

int ts_fit_set_values(cJSON *tree, const char *file, const ts_fit_params *ps, const double *values, ts_err *e)
{
  for (size_t i = 0; i < ps->n; i++) {
    cJSON *node = isfinite(values[i]) ? ts_json_get_path(tree, ps->p[i].path) : NULL;
    if (node && cJSON_IsNumber(node)) { /* what writing %.17g and parsing it back gives, directly */
      cJSON_SetNumberValue(node, values[i]);
      continue;
    }
    char text[40];
    snprintf(text, sizeof text, "%.17g", values[i]);
    if (ts_json_set_path(tree, file, ps->p[i].path, text, e))
      return -1;
  }
  return 0;
}

static int find_point(const ts_fit_problem *pb, int n, int workers, int combo)
{
  for (size_t i = 0; i < pb->npt; i++)
    if (pb->pt[i].n == n && pb->pt[i].workers == workers && pb->pt[i].combo == combo)
      return (int)i;
  return -1;
}

/* The index of metric name in pb->mnames, added when new; -1 out of memory. */
static int metric_index(ts_fit_problem *pb, const char *name)
{
  for (size_t i = 0; i < pb->nmnames; i++)
    if (strcmp(pb->mnames[i], name) == 0)
      return (int)i;
  char **v = realloc(pb->mnames, (pb->nmnames + 1) * sizeof *v);
  if (!v)
    return -1;
  pb->mnames = v;
  v[pb->nmnames] = strdup(name);
  return v[pb->nmnames] ? (int)pb->nmnames++ : -1;
}

/* The axis combination a record names (every scenario axis, by value label):
 * its index in the odometer order of ts_sweep_run, or -1 with e filled. */
static int record_combo(const ts_fit_problem *pb, const ts_record *r, ts_err *e)
{
  const ts_scenario *sc = pb->sc;
  int naxes = sc ? sc->naxes : 0, combo = 0;
  if (r->naxes != naxes && !sc)
    return ts_err_set(e, pb->baseline_file, NULL,
                      "n=%d workers=%d: a record names %d axis value(s) and no scenario was given: pass the "
                      "scenario whose axes the records name with --scenario FILE", r->n, r->workers, r->naxes);
  if (r->naxes != naxes)
    return ts_err_set(e, pb->baseline_file, NULL,
                      "n=%d workers=%d: a record names %d axis value(s); the scenario has %d axes (each record "
                      "names one value of every axis)", r->n, r->workers, r->naxes, naxes);
  for (int a = 0; a < naxes; a++) {
    int v = ts_record_axis_value(r, sc->axes[a].key, sc->axes[a].labels, sc->axes[a].nvalues);
    if (v < 0)
      return ts_err_set(e, pb->baseline_file, NULL, "n=%d workers=%d: no value of axis \"%s\" matches the record",
                        r->n, r->workers, sc->axes[a].key);
    combo = combo * sc->axes[a].nvalues + v;
  }
  return combo;
}

static int cmp_int(const void *a, const void *b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* Group the points by combination and worker count (ascending), each with its n ascending. */
static int make_groups(ts_fit_problem *pb)
{
  pb->g = calloc(pb->npt, sizeof *pb->g);
  if (!pb->g)
    return -1;
  for (size_t i = 0; i < pb->npt; i++) {
    size_t k = 0;
    while (k < pb->ng && (pb->g[k].workers != pb->pt[i].workers || pb->g[k].combo != pb->pt[i].combo))
      k++;
    if (k == pb->ng) {
      pb->g[k].workers = pb->pt[i].workers;
      pb->g[k].combo = pb->pt[i].combo;
      pb->g[k].ns = calloc(pb->npt, sizeof *pb->g[k].ns);
      if (!pb->g[k].ns)
        return -1;
      pb->ng++;
    }
    pb->g[k].ns[pb->g[k].nn++] = pb->pt[i].n;
  }
  for (size_t k = 0; k < pb->ng; k++)
    qsort(pb->g[k].ns, pb->g[k].nn, sizeof *pb->g[k].ns, cmp_int);
  for (size_t a = 1; a < pb->ng; a++)
    for (size_t b = a; b > 0 && (pb->g[b - 1].combo > pb->g[b].combo ||
                                 (pb->g[b - 1].combo == pb->g[b].combo && pb->g[b - 1].workers > pb->g[b].workers));
         b--) {
      ts_fit_group t = pb->g[b];
      pb->g[b] = pb->g[b - 1];
      pb->g[b - 1] = t;
    }
  return 0;
}

static int wanted(const char *const *use_metric, const char *name)
{
  if (!use_metric)
    return 1;
  for (size_t i = 0; use_metric[i]; i++)
    if (strcmp(use_metric[i], name) == 0)
      return 1;
  return 0;
}

static int select_reported(ts_fit_problem *pb, const ts_baseline *b, const int *reported, const char *const *use_metric,
                           ts_err *e);
static int combo_model(ts_fit_problem *pb, int combo, ts_model *m, ts_err *e);

/* 1 if the model of record r's axis combination reports r's metric, 0 if
 * not, -1 on error (an axis value the scenario lacks, a set that fails). */
static int combo_reports(ts_fit_problem *pb, const ts_record *r, ts_err *e)
{
  int combo = record_combo(pb, r, e);
  if (combo < 0)
    return -1;
  ts_model m;
  ts_metric_list l;
  char why[300];
  if (combo_model(pb, combo, &m, e))
    return -1;
  int rc = ts_metric_list_build(&m, &l, why, sizeof why);
  ts_model_finish(&m);
  if (rc)
    return ts_err_set(e, pb->file, NULL, "%s", why);
  rc = ts_metric_list_find(&l, r->metric) >= 0;
  ts_metric_list_finish(&l);
  return rc;
}

/* Whether the model reports each of b's metrics, into out[] (1 or 0): the
 * model as it stands, or else the model of the record's axis combination
 * (an axis value may turn a metric on). A record that is not loose, and
 * that use_metric (NULL: all) asks for, must name one of them: tssim run's
 * message (JSON path, nearest name) when it does not. */
static int model_reports(ts_fit_problem *pb, const ts_baseline *b, const char *const *use_metric, int *out,
                         ts_err *e)
{
  ts_model m;
  ts_metric_list l;
  char why[300];
  if (ts_model_from_json(pb->tree, pb->file, &m, e))
    return -1;
  int rc = ts_metric_list_build(&m, &l, why, sizeof why);
  ts_model_finish(&m);
  if (rc)
    return ts_err_set(e, pb->file, NULL, "%s", why);
  ts_baseline missing = *b; /* the asked-for records neither model reports */
  missing.nrec = 0;
  missing.rec = calloc(b->nrec + 1, sizeof *missing.rec);
  if (!missing.rec)
    rc = ts_err_set(e, b->file, NULL, "out of memory");
  for (size_t i = 0; rc == 0 && i < b->nrec; i++) {
    out[i] = ts_metric_list_find(&l, b->rec[i].metric) >= 0;
    if (out[i] || b->rec[i].loose || !wanted(use_metric, b->rec[i].metric))
      continue;
    int in_combo = combo_reports(pb, &b->rec[i], e);
    if (in_combo < 0)
      rc = -1;
    else if (in_combo)
      out[i] = 1;
    else
      missing.rec[missing.nrec++] = b->rec[i];
  }
  if (rc == 0)
    rc = ts_baseline_check_metrics(&missing, &l, pb->file, e);
  free(missing.rec);
  ts_metric_list_finish(&l);
  return rc;
}

static int select_targets(ts_fit_problem *pb, const ts_baseline *b, const char *const *use_metric, ts_err *e)
{
  int *reported = calloc(b->nrec + 1, sizeof *reported);
  if (!reported)
    return ts_err_set(e, b->file, NULL, "out of memory");
  int rc = model_reports(pb, b, use_metric, reported, e);
  for (size_t i = 0; rc == 0 && i < b->nrec; i++)
    if (b->rec[i].loose && !reported[i])
      reported[i] = -1; /* the shared layout's field of a metric this model does not report: left out */
  if (rc == 0)
    rc = select_reported(pb, b, reported, use_metric, e);
  free(reported);
  return rc;
}

static int select_reported(ts_fit_problem *pb, const ts_baseline *b, const int *reported, const char *const *use_metric,
                           ts_err *e)
{
  pb->t = calloc(b->nrec + 1, sizeof *pb->t);
  pb->pt = calloc(b->nrec + 1, sizeof *pb->pt);
  if (!pb->t || !pb->pt)
    return ts_err_set(e, b->file, NULL, "out of memory");
  for (size_t i = 0; i < b->nrec; i++) {
    const ts_record *r = &b->rec[i];
    if (reported[i] < 0 || !wanted(use_metric, r->metric))
      continue;
    if (r->value == 0 && r->weight > 0) /* (the objective divides by it; ts_baseline_load keeps it for tssim run) */
      return ts_err_set(e, b->file, r->where,
                        "recorded as 0 (n=%d workers=%d): a relative error is undefined (give it %s, or leave %s "
                        "out with --metrics)", r->n, r->workers,
                        strncmp(r->where, "scaling", 7) == 0 ? "null: not recorded" : "\"weight\": 0", r->metric);
    int combo = record_combo(pb, r, e);
    if (combo < 0)
      return -1;
    int m = metric_index(pb, r->metric);
    if (m < 0)
      return ts_err_set(e, b->file, NULL, "out of memory");
    int p = find_point(pb, r->n, r->workers, combo);
    if (p < 0) {
      p = (int)pb->npt++;
      pb->pt[p] = (ts_fit_point){r->n, r->workers, combo};
    }
    pb->t[pb->nt++] = (ts_fit_target){r->n, r->workers, combo, m, r->value, r->weight, (size_t)p};
  }
  for (size_t k = 0; use_metric && use_metric[k]; k++) {
    int found = 0;
    for (size_t i = 0; i < pb->nt; i++)
      found |= strcmp(pb->mnames[pb->t[i].metric], use_metric[k]) == 0;
    if (!found)
      return ts_err_set(e, b->file, NULL, "--metrics names %s, which this baseline does not record", use_metric[k]);
  }
  size_t weighted = 0;
  for (size_t i = 0; i < pb->nt; i++)
    weighted += pb->t[i].weight > 0;
  if (weighted < pb->params->n)
    return ts_err_set(e, b->file, NULL,
                      "%zu recorded value(s) with a weight above 0 for %zu free parameters: expected at least "
                      "as many values as parameters",
                      weighted, pb->params->n);
  return make_groups(pb) ? ts_err_set(e, b->file, NULL, "out of memory") : 0;
}

/* Skip "FILE: " at the head of a loader's message when FILE is ours. */
static const char *without_file(const char *msg, const char *file)
{
  size_t len = strlen(file);
  return strncmp(msg, file, len) == 0 && msg[len] == ':' && msg[len + 1] == ' ' ? msg + len + 2 : msg;
}

/* Convert the model with each parameter at its min, max and an interior value. */
static int probe(ts_fit_problem *pb, ts_err *e)
{
  const ts_fit_params *ps = pb->params;
  double *v = calloc(ps->n + 1, sizeof *v);
  if (!v)
    return ts_err_set(e, pb->file, NULL, "out of memory");
  int rc = 0;
  for (size_t i = 0; i < ps->n && rc == 0; i++) {
    const ts_fit_param *p = &ps->p[i];
    static const char *const what[] = {"start", "min", "max", "interior value"};
    double at[] = {p->start, p->min, p->max, p->min + 0.381966011250105 * (p->max - p->min)};
    for (int k = 0; k < 4 && rc == 0; k++) {
      for (size_t j = 0; j < ps->n; j++)
        v[j] = ps->p[j].start;
      v[i] = at[k];
      ts_model m;
      ts_err inner;
      if (ts_fit_set_values(pb->tree, pb->file, ps, v, &inner) ||
          ts_model_from_json(pb->tree, pb->file, &m, &inner)) {
        char where[32];
        snprintf(where, sizeof where, "free[%d]", p->index);
        rc = ts_err_set(e, pb->file, where, "the model rejects %s = %g (its %s): %s", p->path, at[k], what[k],
                        without_file(inner.msg, pb->file));
      } else {
        ts_model_finish(&m);
      }
    }
  }
  free(v);
  return rc;
}

/* Whether an axis value of sc overrides something under the model's host. */
static int axes_touch_host(const ts_scenario *sc)
{
  for (int a = 0; sc && a < sc->naxes; a++)
    for (int v = 0; v < sc->axes[a].nvalues; v++)
      for (int k = 0; k < sc->axes[a].nsets[v]; k++) {
        const char *set = sc->axes[a].sets[v][k];
        if (strncmp(set, "host", 4) == 0 && (set[4] == '.' || set[4] == '=' || set[4] == '['))
          return 1;
      }
  return 0;
}

/* Every run of a calibration ends at the scenario's horizon, or when no
 * event is left: a model that runs forever (at one of the recorded axis
 * combinations) needs a horizon, as tssim run asks. */
static int check_horizon(ts_fit_problem *pb, ts_err *e)
{
  if (pb->sc && pb->sc->horizon != TS_TIME_MAX)
    return 0;
  for (size_t k = 0; k < pb->ng; k++) {
    ts_model m;
    char why[512];
    if (combo_model(pb, pb->g[k].combo, &m, e))
      return -1;
    int forever = ts_model_forever(&m, why, sizeof why);
    ts_model_finish(&m);
    if (!forever)
      continue;
    if (pb->sc)
      return ts_err_set(e, pb->sc->file, "horizon_ms", "missing: %s, so the scenario needs horizon_ms", why);
    return ts_err_set(e, pb->file, NULL, "%s, so its runs need a horizon: give --scenario FILE with horizon_ms "
                      "(docs/calibration.md)", why);
  }
  return 0;
}

int ts_fit_problem_init(ts_fit_problem *pb, const cJSON *model, const char *file, const ts_fit_params *ps,
                        const ts_baseline *b, const ts_scenario *sc, const char *const *use_metric, uint64_t seed,
                        int replications, ts_err *e)
{
  memset(pb, 0, sizeof *pb);
  pb->sc = sc;
  pb->params = ps;
  pb->seed = seed;
  pb->replications = replications;
  pb->tree = cJSON_Duplicate(model, 1);
  pb->file = strdup(file);
  pb->baseline_file = strdup(b->file ? b->file : "baseline");
  if (!pb->tree || !pb->file || !pb->baseline_file) {
    ts_fit_problem_finish(pb);
    return ts_err_set(e, file, NULL, "out of memory");
  }
  /* every evaluation converts the tree: read its files (a baseline the CPU
   * scale comes from) once, here, unless an axis overrides the host (then
   * each combination reads them as the model says) */
  if ((!axes_touch_host(sc) && ts_model_inline_files(pb->tree, pb->file, e)) || probe(pb, e) || select_targets(pb, b, use_metric, e) ||
      check_horizon(pb, e)) {
    ts_fit_problem_finish(pb);
    return -1;
  }
  return 0;
}

int ts_fit_problem_clone(const ts_fit_problem *pb, ts_fit_problem *out)
{
  *out = *pb;
  out->is_clone = 1;
  out->evaluations = 0;
  memset(&out->notes, 0, sizeof out->notes);
  out->tree = cJSON_Duplicate(pb->tree, 1);
  return out->tree ? 0 : -1;
}

void ts_fit_problem_finish(ts_fit_problem *pb)
{
  if (!pb)
    return;
  if (pb->is_clone) {
    cJSON_Delete(pb->tree);
    memset(pb, 0, sizeof *pb);
    return;
  }
  cJSON_Delete(pb->tree);
  free(pb->file);
  free(pb->baseline_file);
  free(pb->t);
  free(pb->pt);
  for (size_t k = 0; pb->g && k < pb->ng; k++)
    free(pb->g[k].ns);
  free(pb->g);
  for (size_t k = 0; k < pb->nmnames; k++)
    free(pb->mnames[k]);
  free(pb->mnames);
  memset(pb, 0, sizeof *pb);
}

/* The model of group g's combination: the tree with the combination's axis
 * overrides applied (to a copy). */
static int combo_model(ts_fit_problem *pb, int combo, ts_model *m, ts_err *e)
{
  const ts_scenario *sc = pb->sc;
  if (!sc || sc->naxes == 0)
    return ts_model_from_json(pb->tree, pb->file, m, e);
  cJSON *t = cJSON_Duplicate(pb->tree, 1);
  if (!t)
    return ts_err_set(e, pb->file, NULL, "out of memory");
  int rc = 0, values[16];
  ts_scenario_combo_values(sc, combo, values);
  for (int a = sc->naxes - 1; a >= 0 && rc == 0; a--)
    for (int k = 0; k < sc->axes[a].nsets[values[a]] && rc == 0; k++)
      rc = ts_model_apply_set(t, pb->file, sc->axes[a].sets[values[a]][k], e);
  if (rc == 0)
    rc = ts_model_from_json(t, pb->file, m, e);
  cJSON_Delete(t);
  return rc;
}

int ts_fit_problem_reads_n(ts_fit_problem *pb, ts_err *e)
{
  int reads = 0;
  for (size_t k = 0; k < pb->ng && !reads; k++) {
    ts_model m;
    if (combo_model(pb, pb->g[k].combo, &m, e))
      return -1;
    reads = ts_model_reads_n(&m);
    ts_model_finish(&m);
  }
  return reads;
}

/* Sweep one group and copy its targets' values into sim. */
static int run_group(ts_fit_problem *pb, const ts_model *m, const ts_fit_group *g, double *sim, ts_err *e)
{
  const ts_scenario *sc = pb->sc;
  ts_sweep_spec spec = {.ns = g->ns, .nn = g->nn, .workers = &g->workers, .nw = 1,
                        .replications = pb->replications, .seed = pb->seed, .model = m,
                        .horizon = sc ? sc->horizon : TS_TIME_MAX, .warmup = sc ? sc->warmup : 0,
                        .window = sc ? sc->window : 0, .should_stop = pb->should_stop, .progress_data = pb->stop_data};
  ts_sweep s;
  int rc = ts_sweep_run(&spec, &s);
  if (rc == TS_SWEEP_STOPPED) {
    ts_sweep_finish(&s);
    ts_err_set(e, pb->file, NULL, "interrupted");
    return -3;
  }
  if (rc != 0) {
    ts_err_set(e, pb->file, NULL, "workers=%d: %s", g->workers, s.errmsg);
    ts_sweep_finish(&s);
    return rc == TS_SWEEP_MODEL || rc == TS_SWEEP_HORIZON ? -1 : -2; /* bad input, as tssim run says */
  }
  ts_sweep_notes_add(&pb->notes, &s.notes);
  for (size_t i = 0; i < pb->nt; i++) {
    if (pb->t[i].workers != g->workers || pb->t[i].combo != g->combo)
      continue;
    const ts_point *p = ts_sweep_find(&s, 0, pb->t[i].n, g->workers, NULL);
    int c = ts_sweep_col(&s, pb->mnames[pb->t[i].metric]);
    if (c < 0) {
      ts_err_set(e, pb->baseline_file, NULL, "%s is recorded but is not a metric of the model",
                 pb->mnames[pb->t[i].metric]);
      ts_sweep_finish(&s);
      return -1;
    }
    sim[i] = p ? p->value[c] : NAN; /* no value: the evaluation fails (ts_fit_objective is NAN) */
  }
  ts_sweep_finish(&s);
  return 0;
}

int ts_fit_eval(ts_fit_problem *pb, const double *values, double *sim, ts_err *e)
{
  if (pb->should_stop && pb->should_stop(pb->stop_data)) {
    ts_err_set(e, pb->file, NULL, "interrupted");
    return -3;
  }
  if (ts_fit_set_values(pb->tree, pb->file, pb->params, values, e))
    return -1;
  int rc = 0;
  for (size_t k = 0; k < pb->ng && rc == 0; k++) {
    ts_model m;
    if (combo_model(pb, pb->g[k].combo, &m, e))
      return -1;
    rc = run_group(pb, &m, &pb->g[k], sim, e);
    ts_model_finish(&m);
  }
  pb->evaluations++;
  return rc;
}

double ts_fit_objective(const ts_fit_problem *pb, const double *sim, const unsigned char *use)
{
  double sum = 0;
  for (size_t i = 0; i < pb->nt; i++) {
    if ((use && !use[i]) || pb->t[i].weight == 0)
      continue;
    double r = (sim[i] - pb->t[i].recorded) / pb->t[i].recorded;
    sum += pb->t[i].weight * r * r;
  }
  return sum;
}

int ts_fit_worst(const ts_fit_problem *pb, const double *sim, int metric)
{
  int worst = -1;
  double w = -1;
  for (size_t i = 0; i < pb->nt; i++) {
    const ts_fit_target *t = &pb->t[i];
    if ((metric >= 0 && t->metric != metric) || t->recorded == 0)
      continue;
    double err = fabs((sim[i] - t->recorded) / t->recorded);
    if (err > w) {
      w = err;
      worst = (int)i;
    }
  }
  return worst;
}
