#include "fit/output.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit/print.h"
#include "io/atomic.h"
#include "io/paths.h"
#include "io/report.h"
#include "run/metrics.h"

/* v rounded to `digits` significant digits, so the file stays readable. */
static double round_sig(double v, int digits)
{
  char text[40];
  snprintf(text, sizeof text, "%.*g", digits, v);
  return strtod(text, NULL);
}

/* The scenario's axis values of combination `combo` as "key=label, ...", or
 * "" without axes (combo = combo * nvalues + value, axis by axis). */
static const char *combo_text(const ts_fit_problem *pb, int combo, char *buf, size_t cap)
{
  buf[0] = '\0';
  if (!pb->sc || pb->sc->naxes == 0)
    return buf;
  int v[16], naxes = pb->sc->naxes;
  ts_scenario_combo_values(pb->sc, combo, v);
  for (int a = 0; a < naxes; a++) {
    size_t l = strlen(buf);
    snprintf(buf + l, cap - l, "%s%s=%s", a ? ", " : "", pb->sc->axes[a].key, pb->sc->axes[a].labels[v[a]]);
  }
  return buf;
}

/* One target's row; `where` adds its n and workers (and axis values). */
static cJSON *target_row(const ts_fit_problem *pb, const ts_fit_target *t, double sim, const char *label, int where)
{
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  if (where) {
    char axes[256];
    if (*combo_text(pb, t->combo, axes, sizeof axes))
      cJSON_AddStringToObject(o, "axes", axes);
    cJSON_AddNumberToObject(o, "n", t->n);
    cJSON_AddNumberToObject(o, "workers", t->workers);
  }
  cJSON_AddStringToObject(o, "metric", pb->mnames[t->metric]);
  cJSON_AddNumberToObject(o, "recorded", t->recorded);
  cJSON_AddNumberToObject(o, label, round_sig(sim, 7));
  cJSON_AddNumberToObject(o, "rel_error", round_sig(ts_rel_error(sim, t->recorded), 4));
  if (t->weight != 1)
    cJSON_AddNumberToObject(o, "weight", t->weight);
  return o;
}

/* {"wave_ms": {"n": .., "workers": .., "rel_error": ..}, ...}: the worst target per metric. */
static cJSON *worst_table(const ts_fit_problem *pb, const double *sim)
{
  cJSON *o = cJSON_CreateObject();
  for (int m = -1; o && m < (int)pb->nmnames; m++) {
    int i = ts_fit_worst(pb, sim, m);
    if (i < 0)
      continue;
    cJSON *w = cJSON_AddObjectToObject(o, m < 0 ? "all" : pb->mnames[m]);
    if (!w)
      continue;
    if (m < 0)
      cJSON_AddStringToObject(w, "metric", pb->mnames[pb->t[i].metric]);
    char axes[256];
    if (*combo_text(pb, pb->t[i].combo, axes, sizeof axes))
      cJSON_AddStringToObject(w, "axes", axes);
    cJSON_AddNumberToObject(w, "n", pb->t[i].n);
    cJSON_AddNumberToObject(w, "workers", pb->t[i].workers);
    cJSON_AddNumberToObject(w, "rel_error", round_sig(ts_rel_error(sim[i], pb->t[i].recorded), 4));
  }
  return o;
}

static cJSON *targets(const ts_fit_problem *pb, const double *sim, const char *label)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; a && i < pb->nt; i++)
    cJSON_AddItemToArray(a, target_row(pb, &pb->t[i], sim[i], label, 1));
  return a;
}

static cJSON *parameters(const ts_fit_problem *pb, const double *values)
{
  cJSON *a = cJSON_CreateArray();
  for (size_t i = 0; a && i < pb->params->n; i++) {
    const ts_fit_param *p = &pb->params->p[i];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(a, o);
    cJSON_AddStringToObject(o, "name", p->name);
    cJSON_AddStringToObject(o, "path", p->path);
    cJSON_AddNumberToObject(o, "value", values[i]);
    cJSON_AddNumberToObject(o, "start", p->start);
    cJSON_AddNumberToObject(o, "min", p->min);
    cJSON_AddNumberToObject(o, "max", p->max);
    cJSON_AddBoolToObject(o, "at_bound", ts_fit_at_bound(p, values[i]));
  }
  return a;
}

/* "start" or "sobol 16": where a local search began. */
static void search_from(const char *sequence, int from, char *buf, size_t len)
{
  if (from == 0 || !sequence)
    snprintf(buf, len, "start");
  else
    snprintf(buf, len, "%s %d", sequence, from);
}

/* The provenance's "method": the search, in words. The simplex's text is
 * what it always was (calibrated models stay byte-identical). */
static const char *method_text(const ts_fit_result *r, char *buf, size_t len)
{
  if (r->method != TS_FIT_LSQ)
    return r->starts > 0 ? "multi-start: the objective at the start and at quasi-random points over the bounds, "
                           "then GSL nmsimplex2 (Nelder-Mead) on sine-mapped bounds, restarted until no "
                           "improvement, from the best of them; the best search wins; objective = sum of weight * "
                           "((simulated - recorded) / recorded)^2 with the same seeds at every evaluation"
                         : "GSL nmsimplex2 (Nelder-Mead) on sine-mapped bounds from the start, restarted until no "
                           "improvement; objective = sum of weight * ((simulated - recorded) / recorded)^2 with "
                           "the same seeds at every evaluation";
  snprintf(buf, len,
           "%sGSL multifit_nlinear trust region (Levenberg-Marquardt) on the residuals sqrt(weight) * (simulated - "
           "recorded) / recorded, on sine-mapped bounds, Jacobian by forward differences of step %g in the mapped "
           "coordinates, restarted until no improvement, %s; objective = sum of the squared residuals with the "
           "same seeds at every evaluation",
           r->starts > 0 ? "multi-start: the objective at the start and at quasi-random points over the bounds, "
                           "then "
                         : "",
           r->lsq_step, r->starts > 0 ? "from the best of them; the best search wins" : "from the start");
  return buf;
}

/* Each local search of a fit, in the order run. */
static cJSON *searches(const ts_fit_result *r)
{
  cJSON *a = cJSON_CreateArray();
  for (int j = 0; a && j < r->nlocal; j++) {
    const ts_fit_local *L = &r->local[j];
    cJSON *o = cJSON_CreateObject();
    cJSON_AddItemToArray(a, o);
    char from[48];
    search_from(r->sequence, L->from, from, sizeof from);
    cJSON_AddStringToObject(o, "from", from);
    cJSON_AddNumberToObject(o, "sampled", round_sig(L->sampled, 6));
    cJSON_AddNumberToObject(o, "objective", round_sig(L->objective, 6));
    cJSON_AddNumberToObject(o, "iterations", L->iterations);
    cJSON_AddNumberToObject(o, "rounds", L->rounds);
    cJSON_AddBoolToObject(o, "converged", L->converged);
    if (j == r->best)
      cJSON_AddBoolToObject(o, "best", 1);
  }
  return a;
}

static cJSON *loo_table(const ts_fit_problem *pb, const ts_fit_loo *l)
{
  cJSON *o = cJSON_CreateObject();
  cJSON *pts = cJSON_AddArrayToObject(o, "points");
  for (size_t k = 0; pts && k < l->npoints; k++) {
    cJSON *p = cJSON_CreateObject();
    cJSON_AddItemToArray(pts, p);
    cJSON_AddNumberToObject(p, "n", pb->pt[k].n);
    cJSON_AddNumberToObject(p, "workers", pb->pt[k].workers);
    cJSON *v = cJSON_AddObjectToObject(p, "values");
    for (size_t j = 0; v && j < l->nparams; j++)
      cJSON_AddNumberToObject(v, pb->params->p[j].name, l->values[k * l->nparams + j]);
    cJSON_AddNumberToObject(p, "objective", round_sig(l->objective[k], 6));
    cJSON_AddNumberToObject(p, "iterations", l->iterations[k]);
    cJSON_AddNumberToObject(p, "evaluations", (double)l->evaluations[k]);
    char from[48];
    search_from(l->sequence, l->from[k], from, sizeof from);
    cJSON_AddStringToObject(p, "from", from);
    cJSON *pred = cJSON_AddArrayToObject(p, "predictions");
    for (size_t i = 0; pred && i < pb->nt; i++)
      if (pb->t[i].point == k)
        cJSON_AddItemToArray(pred, target_row(pb, &pb->t[i], l->predicted[i], "predicted", 0));
  }
  cJSON_AddItemToObject(o, "worst", worst_table(pb, l->predicted));
  size_t none = 0;
  for (size_t i = 0; i < pb->nt; i++)
    none += isnan(l->predicted[i]) != 0;
  if (none) /* predictions with "predicted": null, which "worst" leaves out */
    cJSON_AddNumberToObject(o, "no_value", (double)none);
  return o;
}

static cJSON *provenance(const ts_fit_problem *pb, const ts_fit_report *rp)
{
  const ts_fit_result *r = rp->fit;
  cJSON *o = cJSON_CreateObject();
  if (!o)
    return NULL;
  cJSON_AddStringToObject(o, "calibrated_by", "tssim calibrate");
  cJSON_AddStringToObject(o, "tssim_version", TSSIM_VERSION);
  cJSON_AddStringToObject(o, "model", rp->model_file);
  cJSON_AddStringToObject(o, "baseline", rp->baseline_file);
  cJSON *ms = cJSON_AddArrayToObject(o, "metrics");
  for (int m = 0; ms && m < (int)pb->nmnames; m++)
    for (size_t i = 0; i < pb->nt; i++)
      if (pb->t[i].metric == m) {
        cJSON_AddItemToArray(ms, cJSON_CreateString(pb->mnames[m]));
        break;
      }
  cJSON *sets = cJSON_AddArrayToObject(o, "overrides");
  for (int i = 0; sets && i < rp->nsets; i++)
    cJSON_AddItemToArray(sets, cJSON_CreateString(rp->sets[i]));
  cJSON *pinned = cJSON_AddArrayToObject(o, "pinned");
  for (size_t i = 0; pinned && i < pb->params->npinned; i++)
    cJSON_AddItemToArray(pinned, cJSON_CreateString(pb->params->pinned[i]));
  if (pb->seed <= (UINT64_C(1) << 53))
    cJSON_AddNumberToObject(o, "seed", (double)pb->seed);
  else {
    char text[32];
    snprintf(text, sizeof text, "%llu", (unsigned long long)pb->seed);
    cJSON_AddStringToObject(o, "seed", text);
  }
  cJSON_AddNumberToObject(o, "replications", pb->replications);
  char method[640];
  cJSON_AddStringToObject(o, "method", method_text(r, method, sizeof method));
  cJSON_AddNumberToObject(o, "objective", round_sig(r->objective, 6));
  cJSON_AddNumberToObject(o, "starts", r->starts);
  if (r->sequence)
    cJSON_AddStringToObject(o, "sequence", r->sequence);
  cJSON_AddItemToObject(o, "searches", searches(r));
  cJSON_AddNumberToObject(o, "iterations", r->iterations);
  cJSON_AddNumberToObject(o, "rounds", r->rounds);
  cJSON_AddNumberToObject(o, "evaluations", (double)r->evaluations);
  cJSON_AddBoolToObject(o, "converged", r->converged);
  cJSON_AddItemToObject(o, "parameters", parameters(pb, r->values));
  cJSON_AddItemToObject(o, "residuals", targets(pb, r->sim, "fitted"));
  cJSON_AddItemToObject(o, "worst", worst_table(pb, r->sim));
  if (rp->loo)
    cJSON_AddItemToObject(o, "loo", loo_table(pb, rp->loo));
  return o;
}

cJSON *ts_fit_calibrated(const cJSON *model, const ts_fit_problem *pb, const ts_fit_report *rp, ts_err *e)
{
  cJSON *doc = cJSON_Duplicate(model, 1);
  if (!doc) {
    ts_err_set(e, rp->model_file, NULL, "out of memory");
    return NULL;
  }
  if (ts_fit_set_values(doc, rp->model_file, pb->params, rp->fit->values, e) ||
      (rp->output_file && ts_model_rebase_paths(doc, rp->model_file, rp->output_file, e))) {
    cJSON_Delete(doc);
    return NULL;
  }
  /* record each start, so calibrating the calibrated model starts where this fit did */
  cJSON *fr = cJSON_GetObjectItemCaseSensitive(doc, "free");
  for (size_t i = 0; i < pb->params->n; i++) {
    cJSON *entry = cJSON_GetArrayItem(fr, pb->params->p[i].index);
    if (entry && !cJSON_GetObjectItemCaseSensitive(entry, "start"))
      cJSON_AddNumberToObject(entry, "start", pb->params->p[i].start);
  }
  cJSON *prov = provenance(pb, rp);
  if (!prov) {
    cJSON_Delete(doc);
    ts_err_set(e, rp->model_file, NULL, "out of memory");
    return NULL;
  }
  if (cJSON_GetObjectItemCaseSensitive(doc, "provenance"))
    cJSON_ReplaceItemInObjectCaseSensitive(doc, "provenance", prov);
  else
    cJSON_AddItemToObject(doc, "provenance", prov);
  return doc;
}

int ts_fit_write(ts_atomic *a, const char *path, const cJSON *doc, ts_err *e)
{
  char *text = ts_fit_json_print(doc);
  if (!text)
    return ts_err_set(e, path, NULL, "out of memory");
  FILE *f = ts_atomic_open_path(a, path, e);
  int rc = -1;
  if (f) {
    fputs(text, f);
    rc = ts_atomic_commit(a, e);
  }
  free(text);
  return rc;
}

void ts_fit_print_params(FILE *out, const ts_fit_problem *pb, const ts_fit_result *r)
{
  fprintf(out, "%-20s %12s %12s %12s %12s\n", "parameter", "fitted", "start", "min", "max");
  for (size_t i = 0; i < pb->params->n; i++) {
    const ts_fit_param *p = &pb->params->p[i];
    int edge = ts_fit_at_bound(p, r->values[i]);
    fprintf(out, "%-20s %12.7g %12.7g %12.7g %12.7g%s\n", p->name, r->values[i], p->start, p->min, p->max,
            edge ? "  (at a bound)" : "");
  }
  for (size_t i = 0; i < pb->params->npinned; i++)
    fprintf(out, "%-20s %12s   pinned by --set\n", pb->params->pinned[i], "");
  if (r->starts > 0) {
    fprintf(out, "%d %s search(es) from the best of the start and %d %s point(s):\n", r->nlocal,
            ts_fit_method_searches(r->method), r->starts, r->sequence);
    fprintf(out, "%8s %12s %12s %10s %7s\n", "search", "from", "sampled", "objective", "rounds");
    for (int j = 0; j < r->nlocal; j++) {
      const ts_fit_local *L = &r->local[j];
      char from[48];
      search_from(r->sequence, L->from, from, sizeof from);
      fprintf(out, "%8d %12s %12.6g %10.6g %7d%s%s\n", j + 1, from, L->sampled, L->objective, L->rounds,
              j == r->best ? "  best" : "", L->converged ? "" : "  (not converged)");
    }
  }
  fprintf(out, "objective %.6g after %d iteration(s) in %d round(s), %zu sweeps%s\n", r->objective, r->iterations,
          r->rounds, r->evaluations, r->converged ? "" : " (stopped by --max-iter: not converged)");
}

void ts_fit_print_targets(FILE *out, const ts_fit_problem *pb, const double *sim, const char *label)
{
  char axes[256];
  int aw = 0; /* the axes column's width (0: no axes) */
  for (size_t i = 0; i < pb->nt; i++) {
    int l = (int)strlen(combo_text(pb, pb->t[i].combo, axes, sizeof axes));
    aw = l > aw ? l : aw;
  }
  int mw = 17; /* the metric column's width */
  for (size_t m = 0; m < pb->nmnames; m++)
    mw = (int)strlen(pb->mnames[m]) > mw ? (int)strlen(pb->mnames[m]) : mw;
  if (aw)
    fprintf(out, "%-*s ", aw, "axes");
  fprintf(out, "%6s %7s %-*s %12s %12s %10s\n", "n", "workers", mw, "metric", "recorded", label, "rel_error");
  for (size_t i = 0; i < pb->nt; i++) {
    const ts_fit_target *t = &pb->t[i];
    if (aw)
      fprintf(out, "%-*s ", aw, combo_text(pb, t->combo, axes, sizeof axes));
    fprintf(out, "%6d %7d %-*s %12.6g", t->n, t->workers, mw, pb->mnames[t->metric], t->recorded);
    if (isnan(sim[i])) { /* the run left the metric empty (a span without a sample, ...): no number to compare */
      fprintf(out, " %12s %10s  (%s)%s\n", "no value", "-",
              strcmp(label, "predicted") == 0 ? "none at the values refitted without this point" : "none here",
              t->weight == 0 ? "  (weight 0)" : "");
      continue;
    }
    fprintf(out, " %12.6g", sim[i]);
    double pct = 100 * ts_rel_error(sim[i], t->recorded);
    if (t->recorded != 0)
      fprintf(out, " %+9.2f%%", fabs(pct) < 0.005 ? 0.0 : pct);
    else
      fprintf(out, " %10s", "-");
    fputs(t->weight == 0 ? "  (weight 0)\n" : "\n", out);
  }
  fputs("worst |rel_error|:", out);
  const char *sep = " ";
  for (int m = 0; m < (int)pb->nmnames; m++) {
    int i = ts_fit_worst(pb, sim, m);
    if (i < 0)
      continue;
    combo_text(pb, pb->t[i].combo, axes, sizeof axes);
    fprintf(out, "%s%s %.2f%% (%s%sn=%d, workers=%d)", sep, pb->mnames[m],
            100 * fabs(ts_rel_error(sim[i], pb->t[i].recorded)), axes, *axes ? ", " : "", pb->t[i].n, pb->t[i].workers);
    sep = ", ";
  }
  size_t none = 0, first = 0;
  for (size_t i = pb->nt; i-- > 0;)
    if (isnan(sim[i])) {
      none++;
      first = i;
    }
  if (none) { /* the worst are of the values there are: say those without */
    combo_text(pb, pb->t[first].combo, axes, sizeof axes);
    fprintf(out, "%s; %zu %s without a value (%s%s at %s%sn=%d, workers=%d)", *sep == ',' ? "" : " none", none, label,
            none > 1 ? "the first: " : "", pb->mnames[pb->t[first].metric], axes, *axes ? ", " : "", pb->t[first].n,
            pb->t[first].workers);
  }
  fputc('\n', out);
}

void ts_fit_print_loo(FILE *out, const ts_fit_problem *pb, const ts_fit_loo *l)
{
  char axes[256];
  int aw = 0; /* the axes column's width (0: no axes) */
  for (size_t k = 0; k < l->npoints; k++) {
    int len = (int)strlen(combo_text(pb, pb->pt[k].combo, axes, sizeof axes));
    aw = len > aw ? len : aw;
  }
  if (aw && aw < 9)
    aw = 9;
  if (aw)
    fprintf(out, "%-*s ", aw, "held axes");
  fprintf(out, "%6s %7s %12s %10s", "held n", "workers", "objective", "from");
  for (size_t j = 0; j < l->nparams; j++) {
    int w = (int)strlen(pb->params->p[j].name);
    fprintf(out, " %*s", w < 10 ? 10 : w, pb->params->p[j].name);
  }
  fputc('\n', out);
  for (size_t k = 0; k < l->npoints; k++) {
    char from[48];
    search_from(l->sequence, l->from[k], from, sizeof from);
    if (aw)
      fprintf(out, "%-*s ", aw, combo_text(pb, pb->pt[k].combo, axes, sizeof axes));
    fprintf(out, "%6d %7d %12.4g %10s", pb->pt[k].n, pb->pt[k].workers, l->objective[k], from);
    for (size_t j = 0; j < l->nparams; j++) {
      int w = (int)strlen(pb->params->p[j].name);
      fprintf(out, " %*.7g", w < 10 ? 10 : w, l->values[k * l->nparams + j]);
    }
    fputc('\n', out);
  }
}
