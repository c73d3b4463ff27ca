#include "fit/sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"

void ts_sens_param_finish(ts_sens_param *p)
{
  if (!p)
    return;
  for (size_t i = 0; p->paths && i < p->npaths; i++)
    free(p->paths[i]);
  free(p->paths);
  free(p->base);
  free(p->name);
  memset(p, 0, sizeof *p);
}

/* JSON text cut to at most max bytes, "..." included, which then ends it
 * (text as it is when it fits): at the last token boundary that leaves
 * room, after a comma outside a string or before a space inside one; with
 * none, at the limit, but never inside a UTF-8 character or an escape. */
static void cut_json(char *text, size_t max)
{
  size_t len = strlen(text), at = 0, limit = 0;
  if (len <= max)
    return;
  int in_string = 0;
  for (size_t i = 0; i + 3 <= max; i++) {
    if (((unsigned char)text[i] & 0xC0) != 0x80)
      limit = i; /* a cut before text[i] splits nothing */
    if (in_string && text[i] == '\\')
      i++;
    else if (text[i] == '"')
      in_string = !in_string;
    else if (!in_string && text[i] == ',' && i + 4 <= max)
      at = i + 1;
    else if (in_string && text[i] == ' ' && i > 1)
      at = i;
  }
  at = at ? at : limit;
  snprintf(text + at, len + 1 - at, "...");
}

int ts_sens_param_init(ts_sens_param *p, const ts_explore *x, const char *option, const char *name,
                       const char *const *paths, size_t npaths, ts_err *e)
{
  memset(p, 0, sizeof *p);
  for (size_t i = 0; i < npaths; i++) {
    if (ts_explore_check_path(x->tree, x->sc, option, paths[i], e))
      return -1;
    for (size_t j = 0; j < i; j++)
      if (strcmp(paths[i], paths[j]) == 0)
        return ts_err_set(e, option, NULL, "%s is named twice", paths[i]);
    const cJSON *node = ts_json_get_path(x->tree, paths[i]);
    if (!cJSON_IsNumber(node)) {
      char *text = cJSON_PrintUnformatted(node);
      const char *s = cJSON_IsString(node) ? node->valuestring : NULL;
      int ref = s && s[0] == '$' && ts_json_get_path(x->tree, "params") && strchr(s + 1, ' ') == NULL;
      if (text)
        cut_json(text, 60);
      int rc = ts_err_set(e, option, NULL, "%s is %s in the model, not a number%s%s%s", paths[i],
                          text ? text : "not a number", ref ? " (scale the parameter it names: params." : "",
                          ref ? s + 1 : "", ref ? ")" : "");
      free(text);
      return rc;
    }
  }
  p->name = strdup(name);
  p->paths = calloc(npaths + 1, sizeof *p->paths);
  p->base = calloc(npaths + 1, sizeof *p->base);
  if (!p->name || !p->paths || !p->base) {
    ts_sens_param_finish(p);
    return ts_err_set(e, option, NULL, "out of memory");
  }
  for (; p->npaths < npaths; p->npaths++) {
    p->paths[p->npaths] = strdup(paths[p->npaths]);
    p->base[p->npaths] = ts_json_get_path(x->tree, paths[p->npaths])->valuedouble;
    if (!p->paths[p->npaths]) {
      ts_sens_param_finish(p);
      return ts_err_set(e, option, NULL, "out of memory");
    }
  }
  return 0;
}

/* The scales besides 1 the measurement runs: the curve's, then 1 - h and
 * 1 + h, each once. Returns how many went into u (room: nscales + 2). */
static size_t levels(const ts_sens_spec *spec, double *u)
{
  size_t n = 0;
  for (size_t i = 0; i < spec->nscales + 2; i++) {
    double s = i < spec->nscales ? spec->scales[i] : i == spec->nscales ? 1 - spec->step : 1 + spec->step;
    int seen = s == 1;
    for (size_t j = 0; j < n && !seen; j++)
      seen = u[j] == s;
    if (!seen)
      u[n++] = s;
  }
  return n;
}

size_t ts_sens_nvariants(const ts_sens_spec *spec)
{
  double *u = malloc((spec->nscales + 2) * sizeof *u);
  size_t n = u ? 1 + spec->nparams * levels(spec, u) : 0;
  free(u);
  return n;
}

/* The variant index of parameter p at scale s (0: the base). */
static size_t variant_of(const double *u, size_t nu, size_t p, double s)
{
  for (size_t j = 0; j < nu; j++)
    if (u[j] == s)
      return 1 + p * nu + j;
  return 0;
}

/* Parameter p's fields at scale s, into sets (room: p->npaths). */
static void fill_sets(const ts_sens_param *p, double s, ts_explore_set *sets)
{
  for (size_t i = 0; i < p->npaths; i++)
    sets[i] = (ts_explore_set){p->paths[i], p->base[i] * s, NULL};
}

int ts_sens_probe(const ts_explore *x, const ts_sens_spec *spec, const ts_sens_param *p, const char *option,
                  ts_err *e)
{
  double *u = malloc((spec->nscales + 2) * sizeof *u);
  ts_explore_set *sets = malloc((p->npaths + 1) * sizeof *sets);
  int rc = !u || !sets ? ts_err_set(e, option, NULL, "out of memory") : 0;
  size_t nu = rc ? 0 : levels(spec, u);
  for (size_t j = 0; j < nu && rc == 0; j++) {
    fill_sets(p, u[j], sets);
    ts_explore_variant v = {sets, p->npaths, NULL};
    ts_model m;
    ts_err inner;
    if (ts_explore_model(x, &v, 0, &m, &inner) == 0) {
      ts_model_finish(&m);
      continue;
    }
    char what[300];
    if (p->npaths == 1)
      snprintf(what, sizeof what, "%s = %.7g (scale %g)", p->paths[0], p->base[0] * u[j], u[j]);
    else
      snprintf(what, sizeof what, "its %zu fields at scale %g", p->npaths, u[j]);
    rc = ts_err_set(e, option, NULL, "the model rejects %s: %s", what, inner.msg);
  }
  free(u);
  free(sets);
  return rc;
}

/* Whether the one-sided elasticities a (below 1, half-width ca) and b
 * (above, cb) disagree so much that their mean, the central elasticity,
 * describes neither side: a jump (or kink) between 1 - h and 1 + h. They
 * must differ by more than their intervals allow (an undefined half-width,
 * one replication, counts 0), by at least 0.1 (half a percent of the
 * metric over h = 0.05: less changes no ranking), and by a factor of 3 or
 * more (or in sign): a smooth curve's two slopes over 2h differ by far
 * less (M/M/1's W = S / (1 - rho) at rho 0.5: 1.90 and 2.11). */
static int disagree(double a, double ca, double b, double cb)
{
  if (isnan(a) || isnan(b))
    return 0;
  double d = fabs(a - b), big = fmax(fabs(a), fabs(b)), small = fmin(fabs(a), fabs(b));
  double ci = (isnan(ca) ? 0 : ca) + (isnan(cb) ? 0 : cb);
  return d > ci && d >= 0.1 && (a * b <= 0 || big >= 3 * small);
}

/* The elasticities and curves of point k, metric m, from the finished run s. */
static void measure(const ts_explore *x, const ts_sens_spec *spec, const ts_sweep *s, const double *u, size_t nu,
                    size_t k, size_t m, ts_sens_result *r)
{
  const ts_explore_metric *mt = &spec->metrics[m];
  int c = ts_sweep_col(s, mt->name);
  const ts_point *base = ts_explore_row(x, s, 0, k, mt);
  if (c < 0 || !base)
    return;
  r->digits[m] = s->cols[c].digits;
  size_t nc = s->ncols;
  for (size_t p = 0; p < spec->nparams; p++) {
    size_t at = (k * spec->nmetrics + m) * spec->nparams + p;
    const ts_point *lo = ts_explore_row(x, s, variant_of(u, nu, p, 1 - spec->step), k, mt);
    const ts_point *hi = ts_explore_row(x, s, variant_of(u, nu, p, 1 + spec->step), k, mt);
    if (lo && hi) {
      size_t R = (size_t)base->replications;
      double cb, ca;
      ts_compare_elasticity(lo->rep + c, base->rep + c, hi->rep + c, nc, R, 2 * spec->step, &r->elasticity[at],
                            &r->elasticity_ci95[at]);
      ts_compare_elasticity(lo->rep + c, base->rep + c, base->rep + c, nc, R, spec->step, &r->below[at], &cb);
      ts_compare_elasticity(base->rep + c, base->rep + c, hi->rep + c, nc, R, spec->step, &r->above[at], &ca);
      r->jump[at] = (unsigned char)disagree(r->below[at], cb, r->above[at], ca);
    }
    for (size_t j = 0; j < spec->nscales; j++) {
      const ts_point *q = ts_explore_row(x, s, variant_of(u, nu, p, spec->scales[j]), k, mt);
      r->value[at * spec->nscales + j] = q ? q->value[c] : NAN;
      r->value_ci95[at * spec->nscales + j] = q ? q->ci95[c] : NAN;
    }
  }
}

/* r's labels and sizes from spec; 0 or -1 out of memory. */
static int result_init(const ts_explore *x, const ts_sens_spec *spec, ts_sens_result *r)
{
  memset(r, 0, sizeof *r);
  r->npoints = x->npoints;
  r->nparams = spec->nparams;
  r->nmetrics = spec->nmetrics;
  r->nscales = spec->nscales;
  r->step = spec->step;
  r->replications = spec->replications;
  r->pt = calloc(r->npoints + 1, sizeof *r->pt);
  r->param = calloc(r->nparams + 1, sizeof *r->param);
  r->metric = calloc(r->nmetrics + 1, sizeof *r->metric);
  r->scale = calloc(r->nscales + 1, sizeof *r->scale);
  if (!r->pt || !r->param || !r->metric || !r->scale || ts_compare_sens_alloc(r))
    return -1;
  for (size_t k = 0; k < r->npoints; k++)
    r->pt[k] = ts_explore_point(x, k);
  for (size_t p = 0; p < r->nparams; p++)
    if (!(r->param[p] = strdup(spec->params[p].name)))
      return -1;
  for (size_t m = 0; m < r->nmetrics; m++)
    if (!(r->metric[m] = strdup(spec->metrics[m].text)))
      return -1;
  memcpy(r->scale, spec->scales, r->nscales * sizeof *r->scale);
  return 0;
}

int ts_sens_run(const ts_explore *x, const ts_sens_spec *spec, ts_sens_result *r, char *err, size_t cap)
{
  size_t maxpaths = 1;
  for (size_t p = 0; p < spec->nparams; p++)
    maxpaths = spec->params[p].npaths > maxpaths ? spec->params[p].npaths : maxpaths;
  double *u = malloc((spec->nscales + 2) * sizeof *u);
  size_t nu = u ? levels(spec, u) : 0, nv = 1 + spec->nparams * nu;
  ts_explore_variant *v = calloc(nv, sizeof *v);
  ts_explore_set *sets = malloc((spec->nparams * nu * maxpaths + 1) * sizeof *sets);
  int rc = !u || !v || !sets || result_init(x, spec, r) ? TS_SWEEP_NOMEM : 0;
  char (*labels)[160] = malloc((nv + 1) * sizeof *labels);
  rc = rc ? rc : labels ? 0 : TS_SWEEP_NOMEM;
  for (size_t p = 0; p < spec->nparams && rc == 0; p++)
    for (size_t j = 0; j < nu; j++) {
      ts_explore_set *at = sets + (p * nu + j) * maxpaths;
      fill_sets(&spec->params[p], u[j], at);
      snprintf(labels[1 + p * nu + j], sizeof labels[0], "%.100s at scale %g", spec->params[p].name, u[j]);
      v[1 + p * nu + j] = (ts_explore_variant){at, spec->params[p].npaths, labels[1 + p * nu + j]};
    }
  ts_sweep s;
  memset(&s, 0, sizeof s);
  if (rc == 0)
    rc = ts_explore_run(x, v, nv, spec->replications, &s);
  if (rc == TS_SWEEP_NOMEM && !s.errmsg[0])
    snprintf(s.errmsg, sizeof s.errmsg, "out of memory");
  for (size_t k = 0; k < r->npoints && rc == 0; k++)
    for (size_t m = 0; m < spec->nmetrics; m++)
      measure(x, spec, &s, u, nu, k, m, r);
  if (rc)
    snprintf(err, cap, "%s", s.errmsg);
  ts_sweep_finish(&s);
  free(u);
  free(v);
  free(sets);
  free(labels);
  return rc;
}
