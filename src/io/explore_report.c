#include "io/explore_report.h"

#include <cjson/cJSON.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void ts_report_combo_labels(const ts_scenario *sc, int combo, const char **labels)
{
  for (int a = sc->naxes - 1; a >= 0; a--) {
    labels[a] = sc->axes[a].labels[combo % sc->axes[a].nvalues];
    combo /= sc->axes[a].nvalues;
  }
}

void ts_report_point_name(const ts_scenario *sc, const ts_compare_point *p, char *buf, size_t cap)
{
  const char *labels[16];
  size_t len = 0;
  ts_report_combo_labels(sc, p->combo, labels);
  buf[0] = '\0';
  for (int a = 0; a < sc->naxes && len < cap; a++, len = strlen(buf))
    snprintf(buf + len, cap - len, "%s=%s ", sc->axes[a].key, labels[a]);
  if (len < cap)
    snprintf(buf + len, cap - len, "n=%d workers=%d", p->n, p->workers);
}

void ts_report_csv_field(FILE *f, const char *s)
{
  if (!strpbrk(s, ",\"\r\n")) {
    fputs(s, f);
    return;
  }
  fputc('"', f);
  for (; *s; s++) {
    if (*s == '"')
      fputc('"', f);
    fputc(*s, f);
  }
  fputc('"', f);
}

/* The point columns of point p: axis labels, n, workers (each followed by a comma). */
static void point_cols(FILE *f, const ts_scenario *sc, const ts_compare_point *p)
{
  const char *labels[16];
  ts_report_combo_labels(sc, p->combo, labels);
  for (int a = 0; a < sc->naxes; a++) {
    ts_report_csv_field(f, labels[a]);
    fputc(',', f);
  }
  fprintf(f, "%d,%d,", p->n, p->workers);
}

static void header(FILE *f, const ts_scenario *sc, const char *rest)
{
  for (int a = 0; a < sc->naxes; a++)
    fprintf(f, "%s,", sc->axes[a].key);
  fprintf(f, "n,workers,%s\n", rest);
}

/* A CSV number after a comma: %.6f, or empty for NAN. */
static void num(FILE *f, double v)
{
  if (isnan(v))
    fputc(',', f);
  else
    fprintf(f, ",%.6f", v);
}

void ts_report_sens_csv(FILE *f, const ts_scenario *sc, const ts_sens_result *r)
{
  size_t *order = malloc((r->nparams + 1) * sizeof *order);
  header(f, sc, "parameter,metric,elasticity,elasticity_ci95");
  for (size_t k = 0; order && k < r->npoints; k++)
    for (size_t m = 0; m < r->nmetrics; m++) {
      ts_compare_sens_rank(r, k, m, order);
      for (size_t i = 0; i < r->nparams; i++) {
        size_t at = (k * r->nmetrics + m) * r->nparams + order[i];
        point_cols(f, sc, &r->pt[k]);
        ts_report_csv_field(f, r->param[order[i]]);
        fputc(',', f);
        ts_report_csv_field(f, r->metric[m]);
        num(f, r->elasticity[at]);
        num(f, r->elasticity_ci95[at]);
        fputc('\n', f);
      }
    }
  free(order);
}

void ts_report_curve_csv(FILE *f, const ts_scenario *sc, const ts_sens_result *r)
{
  header(f, sc, "parameter,metric,scale,value,value_ci95");
  for (size_t k = 0; k < r->npoints; k++)
    for (size_t m = 0; m < r->nmetrics; m++)
      for (size_t p = 0; p < r->nparams; p++)
        for (size_t j = 0; j < r->nscales; j++) {
          size_t at = ((k * r->nmetrics + m) * r->nparams + p) * r->nscales + j;
          point_cols(f, sc, &r->pt[k]);
          ts_report_csv_field(f, r->param[p]);
          fputc(',', f);
          ts_report_csv_field(f, r->metric[m]);
          fprintf(f, ",%g", r->scale[j]);
          num(f, r->value[at]);
          num(f, r->value_ci95[at]);
          fputc('\n', f);
        }
}

/* v with d decimals in width w, or "-" for NAN. */
static void cell(FILE *out, int w, int d, double v)
{
  if (isnan(v))
    fprintf(out, " %*s", w, "-");
  else
    fprintf(out, " %*.*f", w, d, v);
}

void ts_report_sens_print(FILE *out, const ts_scenario *sc, const ts_sens_result *r)
{
  size_t *order = malloc((r->nparams + 1) * sizeof *order);
  int pw = 9; /* "parameter" */
  for (size_t p = 0; p < r->nparams; p++)
    pw = (int)strlen(r->param[p]) > pw ? (int)strlen(r->param[p]) : pw;
  pw = pw > 60 ? 60 : pw;
  for (size_t k = 0; order && k < r->npoints; k++)
    for (size_t m = 0; m < r->nmetrics; m++) {
      char name[300];
      int d = r->digits[m];
      ts_report_point_name(sc, &r->pt[k], name, sizeof name);
      fprintf(out, "\n%s: %s\n", name, r->metric[m]);
      fprintf(out, "  rank  %-*s  elasticity      +-95%%", pw, "parameter");
      for (size_t j = 0; j < r->nscales; j++) {
        char h[32];
        snprintf(h, sizeof h, "x%g", r->scale[j]);
        fprintf(out, " %10s", h);
      }
      fputc('\n', out);
      ts_compare_sens_rank(r, k, m, order);
      for (size_t i = 0; i < r->nparams; i++) {
        size_t at = (k * r->nmetrics + m) * r->nparams + order[i];
        fprintf(out, "  %4zu  %-*.*s ", i + 1, pw, pw, r->param[order[i]]);
        cell(out, 10, 4, r->elasticity[at]);
        cell(out, 10, 4, r->elasticity_ci95[at]);
        for (size_t j = 0; j < r->nscales; j++)
          cell(out, 10, d, r->value[at * r->nscales + j]);
        if (r->jump[at]) /* the central figure straddles a jump: say both sides */
          fprintf(out, "  jump: %.4g below x1, %.4g above", r->below[at], r->above[at]);
        fputc('\n', out);
      }
    }
  free(order);
}

/* ---- optimize ---- */

static void tried_header(FILE *f, const ts_opt_result *r)
{
  fputs("trial,stage,replications", f);
  for (size_t i = 0; i < r->nfields; i++) {
    fputc(',', f);
    ts_report_csv_field(f, r->field[i]);
  }
  for (size_t j = 0; j < r->nchoices; j++) {
    fputc(',', f);
    ts_report_csv_field(f, r->choice[j]);
  }
  for (size_t m = 0; m < r->nmetrics; m++) {
    fputc(',', f);
    ts_report_csv_field(f, r->metric[m]);
    fputc(',', f);
    char ci[300];
    snprintf(ci, sizeof ci, "%s_ci95", r->metric[m]);
    ts_report_csv_field(f, ci);
  }
  fputs(",feasible\n", f);
}

/* Field k's value in trial t as written (buf: room for a number): %.7g, or
 * the model's own text where the scenario's own value is not a number (an
 * expression such as "$join_ms"), never nan. */
static const char *field_value(const ts_opt_result *r, const ts_opt_trial *t, size_t k, char *buf, size_t cap)
{
  if (t->x && isfinite(t->x[k])) {
    snprintf(buf, cap, "%.7g", t->x[k]);
    return buf;
  }
  return r->own_text && r->own_text[k] ? r->own_text[k] : "";
}

static void tried_row(FILE *f, const ts_opt_result *r, size_t i)
{
  const ts_opt_trial *t = &r->t[i];
  char v[32];
  fprintf(f, "%zu,%s,%d", i, ts_compare_stage_name(t->stage), t->replications);
  for (size_t k = 0; k < r->nfields; k++) {
    fputc(',', f);
    ts_report_csv_field(f, field_value(r, t, k, v, sizeof v));
  }
  for (size_t j = 0; j < r->nchoices; j++) {
    fputc(',', f);
    if (t->choice)
      ts_report_csv_field(f, r->label[j][t->choice[j]]);
  }
  for (size_t m = 0; m < r->nmetrics; m++) {
    num(f, t->mean[m]);
    num(f, t->ci95[m]);
  }
  fprintf(f, ",%d\n", t->feasible);
}

void ts_report_opt_tried_csv(FILE *f, const ts_opt_result *r)
{
  tried_header(f, r);
  for (size_t i = 0; i < r->ntrials; i++)
    tried_row(f, r, i);
}

/* The front's trials ordered by the first objective (ties: the second, then
 * the trial's order), into idx; returns how many. */
static size_t front_order(const ts_opt_result *r, size_t *idx)
{
  size_t n = 0;
  for (size_t i = 0; r->front && i < r->ntrials; i++)
    if (r->front[i])
      idx[n++] = i;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0; j--) {
      const ts_opt_trial *a = &r->t[idx[j - 1]], *b = &r->t[idx[j]];
      if (!(b->mean[0] < a->mean[0] || (b->mean[0] == a->mean[0] && b->mean[1] < a->mean[1])))
        break;
      size_t t = idx[j];
      idx[j] = idx[j - 1];
      idx[j - 1] = t;
    }
  return n;
}

void ts_report_opt_pareto_csv(FILE *f, const ts_opt_result *r)
{
  size_t *idx = malloc((r->ntrials + 1) * sizeof *idx);
  tried_header(f, r);
  size_t n = idx ? front_order(r, idx) : 0;
  for (size_t i = 0; i < n; i++)
    tried_row(f, r, idx[i]);
  free(idx);
}

/* "PATH=VALUE ..." of trial t (the --set overrides that give it), into buf;
 * the baseline's (the scenario's own values) marked so. */
static void setting_text(const ts_opt_result *r, const ts_opt_trial *t, const char *sep, char *buf, size_t cap)
{
  size_t len = 0;
  char v[32];
  buf[0] = '\0';
  for (size_t k = 0; t->x && k < r->nfields && len < cap; k++, len = strlen(buf))
    snprintf(buf + len, cap - len, "%s%s=%s", len ? sep : "", r->field[k], field_value(r, t, k, v, sizeof v));
  for (size_t j = 0; t->choice && j < r->nchoices && len < cap; j++, len = strlen(buf))
    snprintf(buf + len, cap - len, "%s%s=%s", len ? sep : "", r->choice[j], r->label[j][t->choice[j]]);
  const char *own = r->own_from_set == 1 ? "the --set value" : r->own_from_set ? "the scenario's own with --set"
                                                                               : "the scenario's own";
  if (t->stage == TS_OPT_STAGE_BASELINE && len < cap)
    snprintf(buf + len, cap - len, len ? " (%s)" : "%s setting", own);
}

static void metric_rows(FILE *out, const ts_opt_result *r, const ts_opt_trial *t, const ts_opt_trial *b)
{
  int w = 6;
  for (size_t m = 0; m < r->nmetrics; m++)
    w = (int)strlen(r->metric[m]) > w ? (int)strlen(r->metric[m]) : w;
  fprintf(out, "  %-10s  %-*s %12s %10s %12s %10s\n", "", w, "metric", "mean", "+-95%", "baseline", "+-95%");
  for (size_t m = 0; m < r->nmetrics; m++) {
    const char *role = (int)m < r->nobjectives ? (r->maximize[m] ? "maximize" : "minimize") : "constraint";
    fprintf(out, "  %-10s  %-*s", role, w, r->metric[m]);
    cell(out, 12, 3, t->mean[m]);
    cell(out, 10, 3, t->ci95[m]);
    cell(out, 12, 3, b ? b->mean[m] : NAN);
    cell(out, 10, 3, b ? b->ci95[m] : NAN);
    fputc('\n', out);
  }
  for (size_t i = 0; i < r->nconstraints; i++)
    fprintf(out, "  subject to %s\n", r->constraint[i]);
}

/* Finalist i had the best's objective in every replication. */
static int tied(const ts_opt_result *r, size_t i)
{
  return r->diff[i] == 0 && !(r->diff_ci95[i] > 0);
}

static void print_best(FILE *out, const ts_opt_result *r)
{
  char text[2048];
  const ts_opt_trial *b = r->baseline >= 0 ? &r->t[r->baseline] : NULL;
  if (r->best < 0) {
    fprintf(out, "\nno setting tried satisfies the constraints at every point (tried.csv has each one's metrics; the "
                 "least infeasible finalist follows)\n");
    if (r->nfinalists == 0)
      return;
  }
  const ts_opt_trial *t = &r->t[r->best >= 0 ? (size_t)r->best : r->finalists[0]];
  setting_text(r, t, " --set ", text, sizeof text);
  fprintf(out, "\n%s setting, at %d replication(s): --set %s\n", r->best >= 0 ? "best" : "least infeasible",
          t->replications, text);
  metric_rows(out, r, t, b);
  if (r->nfinalists > 1)
    fprintf(out, "\nthe race's finalists, %s minus the best's (per replication pairs):\n", r->metric[0]);
  for (size_t i = 1; i < r->nfinalists; i++) {
    const ts_opt_trial *f = &r->t[r->finalists[i]];
    setting_text(r, f, " ", text, sizeof text);
    fprintf(out, "  %-50s", text);
    cell(out, 12, 3, r->diff[i]);
    fputs(" +-", out);
    cell(out, 9, 3, r->diff_ci95[i]);
    fprintf(out, "  %s\n", !f->feasible ? "infeasible" : r->close[i] ? "not told apart" : tied(r, i) ? "tied" : "");
  }
}

void ts_report_opt_print(FILE *out, const ts_scenario *sc, const ts_opt_result *r)
{
  (void)sc;
  size_t stages[TS_OPT_NSTAGES] = {0};
  for (size_t i = 0; i < r->ntrials; i++)
    stages[r->t[i].stage]++;
  fprintf(out, "%zu setting(s) evaluated:", r->ntrials);
  for (int s = 0, first = 1; s < TS_OPT_NSTAGES; s++)
    if (stages[s]) {
      fprintf(out, "%s %zu %s", first ? "" : ",", stages[s], ts_compare_stage_name(s));
      first = 0;
    }
  fputc('\n', out);
  if (r->nobjectives == 1) {
    print_best(out, r);
    return;
  }
  size_t *idx = malloc((r->ntrials + 1) * sizeof *idx);
  size_t n = idx ? front_order(r, idx) : 0;
  char text[2048];
  fprintf(out, "\nPareto front: %zu feasible setting(s) no other feasible one beats in both %s (%s) and %s (%s)\n",
          n, r->metric[0], r->maximize[0] ? "maximized" : "minimized", r->metric[1],
          r->maximize[1] ? "maximized" : "minimized");
  int w = 0;
  for (size_t i = 0; i < n; i++) {
    setting_text(r, &r->t[idx[i]], " ", text, sizeof text);
    w = (int)strlen(text) > w ? (int)strlen(text) : w;
  }
  for (size_t i = 0; i < n; i++) {
    const ts_opt_trial *t = &r->t[idx[i]];
    setting_text(r, t, " ", text, sizeof text);
    fprintf(out, "  %-*s", w, text);
    for (int m = 0; m < 2; m++) {
      cell(out, 12, 3, t->mean[m]);
      fputs(" +-", out);
      cell(out, 9, 3, t->ci95[m]);
    }
    fputc('\n', out);
  }
  free(idx);
}

void ts_report_opt_budget_note(FILE *out, const ts_opt_result *r)
{
  if (r->evals_stopped)
    fprintf(out, "tssim: note: --max-evals %d stopped the search: it had evaluated %zu setting(s) (the baseline and "
                 "the race's reruns aside) when a local search wanted another, so the best may be short of what the "
                 "search would find (a larger --max-evals searches on)\n", r->max_evals, r->evals);
  if (r->iter_cut)
    fprintf(out, "tssim: note: --max-iter %d stopped %d local search(es) before they converged, while they still "
                 "tried new settings, so the best may be short of what the search would find (a larger --max-iter "
                 "searches on)\n", r->max_iter, r->iter_cut);
}

static cJSON *metrics_json(const ts_opt_result *r, const ts_opt_trial *t)
{
  cJSON *o = cJSON_CreateObject();
  for (size_t m = 0; o && m < r->nmetrics; m++) {
    cJSON *v = cJSON_AddObjectToObject(o, r->metric[m]);
    if (!v)
      continue;
    if (isfinite(t->mean[m]))
      cJSON_AddNumberToObject(v, "mean", t->mean[m]);
    if (isfinite(t->ci95[m]))
      cJSON_AddNumberToObject(v, "ci95", t->ci95[m]);
  }
  return o;
}

/* A setting's value text as the model reads it: JSON when all of it is, else the string. */
static cJSON *json_value(const char *text)
{
  cJSON *v = cJSON_Parse(text);
  return v ? v : cJSON_CreateString(text);
}

cJSON *ts_report_opt_best_json(const ts_scenario *sc, const ts_opt_result *r)
{
  cJSON *root = cJSON_CreateObject();
  if (!root)
    return NULL;
  cJSON_AddStringToObject(root, "tssim_version", TSSIM_VERSION);
  cJSON_AddStringToObject(root, "scenario", sc->name);
  cJSON_AddStringToObject(root, "scenario_file", sc->file);
  cJSON_AddNumberToObject(root, "seed", (double)sc->seed);
  cJSON *obj = cJSON_AddArrayToObject(root, "objectives");
  for (int i = 0; obj && i < r->nobjectives; i++) {
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "metric", r->metric[i]);
    cJSON_AddStringToObject(o, "sense", r->maximize[i] ? "maximize" : "minimize");
    cJSON_AddItemToArray(obj, o);
  }
  cJSON *con = cJSON_AddArrayToObject(root, "constraints");
  for (size_t i = 0; con && i < r->nconstraints; i++)
    cJSON_AddItemToArray(con, cJSON_CreateString(r->constraint[i]));
  cJSON_AddNumberToObject(root, "settings_evaluated", (double)r->ntrials);
  cJSON *budget = cJSON_AddObjectToObject(root, "budget");
  if (budget) {
    cJSON_AddNumberToObject(budget, "max_evals", r->max_evals);
    cJSON_AddNumberToObject(budget, "settings_searched", (double)r->evals);
    cJSON_AddBoolToObject(budget, "max_evals_stopped_the_search", r->evals_stopped);
    cJSON_AddNumberToObject(budget, "max_iter", r->max_iter);
    cJSON_AddNumberToObject(budget, "local_searches_cut_at_max_iter", r->iter_cut);
  }
  cJSON_AddBoolToObject(root, "feasible", r->best >= 0);
  long at = r->best >= 0 ? r->best : r->nfinalists ? (long)r->finalists[0] : -1;
  if (at >= 0) {
    const ts_opt_trial *t = &r->t[at];
    cJSON *set = cJSON_AddObjectToObject(root, "setting");
    for (size_t k = 0; set && k < r->nfields; k++) {
      char v[32];
      const char *text = field_value(r, t, k, v, sizeof v);
      cJSON_AddItemToObject(set, r->field[k], text == v ? cJSON_CreateNumber(strtod(v, NULL)) : json_value(text));
    }
    for (size_t j = 0; set && j < r->nchoices; j++)
      cJSON_AddItemToObject(set, r->choice[j], json_value(r->label[j][t->choice[j]]));
    cJSON_AddNumberToObject(root, "replications", t->replications);
    cJSON_AddItemToObject(root, "metrics", metrics_json(r, t));
  }
  if (r->baseline >= 0)
    cJSON_AddItemToObject(root, "baseline", metrics_json(r, &r->t[r->baseline]));
  cJSON *fin = cJSON_AddArrayToObject(root, "finalists");
  for (size_t i = 0; fin && i < r->nfinalists; i++) {
    const ts_opt_trial *t = &r->t[r->finalists[i]];
    char text[2048];
    setting_text(r, t, " ", text, sizeof text);
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "trial", (double)r->finalists[i]);
    cJSON_AddStringToObject(o, "setting", text);
    cJSON_AddBoolToObject(o, "feasible", t->feasible);
    if (i > 0 && isfinite(r->diff[i]))
      cJSON_AddNumberToObject(o, "diff", r->diff[i]);
    if (i > 0 && isfinite(r->diff_ci95[i]))
      cJSON_AddNumberToObject(o, "diff_ci95", r->diff_ci95[i]);
    if (i > 0)
      cJSON_AddBoolToObject(o, "told_apart", !r->close[i] && !tied(r, i));
    if (i > 0 && tied(r, i))
      cJSON_AddBoolToObject(o, "tied", 1);
    cJSON_AddItemToArray(fin, o);
  }
  return root;
}
