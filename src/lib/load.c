#include "lib/load.h"

#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/report.h"
#include "model/dispatch.h"
#include "run/suggest.h"
#include "run/metrics.h"
#include "run/sweep.h"

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
  snprintf(at, sizeof at, "$%.*s", len - 7, set + 7); /* "$P" as a whole name */
  for (const char *p = strstr(msg, at); p; p = strstr(p + 1, at)) {
    char c = p[strlen(at)];
    if (!(c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')))
      return 1;
  }
  return 0;
}

/* Write into by (size cap) which override a model error comes from:
 * " (from --set P=V)" (set_by names the caller's call, NULL: "--set") or
 * " (from the scenario's "set": FILE)", or "": the last of sets[0..total)
 * that msg names, else sets[fallback] (-1: none). */
static void blame_override(const char *msg, const char *const *sets, int from_scenario, int total,
                           const char *scenario, const char *set_by, int fallback, char *by, size_t cap)
{
  int i = total - 1;
  while (i >= 0 && !names_override(msg, sets[i])) /* the last override of a path wins */
    i--;
  if (i < 0)
    i = fallback;
  if (i < 0)
    by[0] = '\0';
  else if (i < from_scenario)
    snprintf(by, cap, " (from the scenario's \"set\": %s)", scenario);
  else
    snprintf(by, cap, " (from %.40s %.400s)", set_by ? set_by : "--set", sets[i]);
}

int ts_load_window_axis(const char *set)
{
  return strncmp(set, "warmup_ms=", 10) == 0 || strncmp(set, "window_ms=", 10) == 0;
}

/* The value of a window axis override "KEY=NUMBER" in ms, or -1 when it is not a number >= 0. */
static double window_value(const char *set)
{
  char *end;
  double v = strtod(strchr(set, '=') + 1, &end);
  return *end == '\0' && v >= 0 && v <= 1e12 ? v : -1;
}

/* A window axis value is a number of ms, the window positive, and with the
 * scenario's horizon warmup + window fits under it. */
static int check_window_value(const ts_scenario *sc, const char *set, const char *path, const char *where, ts_err *e)
{
  double v = window_value(set);
  int is_window = strcmp(path, "window_ms") == 0;
  if (v < 0 || (is_window && v == 0))
    return ts_err_set(e, sc->file, where, "%s: expected a number of ms%s, got %s", path, is_window ? " > 0" : " >= 0",
                      strchr(set, '=') + 1);
  ts_time t = ts_time_from_ms(v), warmup = is_window ? sc->warmup : t, window = is_window ? t : sc->window;
  if (sc->horizon != TS_TIME_MAX && warmup + window > sc->horizon)
    return ts_err_set(e, sc->file, where, "%s = %g ms puts the window's end beyond horizon_ms = %g ms", path, v,
                      ts_time_to_ms(sc->horizon));
  return 0;
}

void ts_load_window_set(ts_scenario *sc, const char *set)
{
  *(set[1] == 'a' ? &sc->warmup : &sc->window) = ts_time_from_ms(window_value(set));
}

void ts_load_window_of(void *ctx, const int *values, ts_time *warmup, ts_time *window)
{
  const ts_loaded *L = ctx;
  const ts_scenario *sc = &L->sc;
  for (int a = 0; a < sc->naxes; a++)
    for (int k = 0; k < sc->axes[a].nsets[values[a]]; k++) {
      const char *set = sc->axes[a].sets[values[a]][k];
      if (ts_load_window_axis(set))
        *(set[1] == 'a' ? warmup : window) = ts_time_from_ms(window_value(set));
    }
}

/* Every axis path names a place in the model (or the window), and every
 * combination loads; L->n_read says whether one of them reads n. */
/* Whether dispatch.ids "per_replication" is read by m's dispatch (hash),
 * or set where nothing reads it (round_robin, least_loaded), into ids[0],
 * ids[1] (or'ed). */
static void ids_use(const ts_model *m, int ids[2])
{
  ids[0] |= m->ids_per_replication && m->dispatch == TS_DISPATCH_HASH;
  ids[1] |= m->ids_per_replication && m->dispatch != TS_DISPATCH_HASH;
}

/* Every axis path exists in the model and every combination's model loads
 * (the first 1000); ids gets ids_use of those models (of the model itself
 * without axes). 0, or -1 with e filled. */
static int check_axes(ts_loaded *L, int ids[2], ts_err *e)
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
        char where[128];
        snprintf(where, sizeof where, "axes.%s", ax->key);
        if (ts_load_window_axis(ax->sets[v][k])) {
          if (check_window_value(sc, ax->sets[v][k], path, where, e))
            return -1;
          continue;
        }
        if (!ts_json_path_settable(L->resolved, path)) {
          char parent[512];
          /* the override's JSON path: the axis's path, or its set's name */
          if (ax->path)
            snprintf(where, sizeof where, "axes.%s.path", ax->key);
          else
            snprintf(where, sizeof where, "axes.%s.sets.%s", ax->key, ax->labels[v]);
          if (ts_json_path_check(sc->file, where, path, e)) /* classes[0]count: malformed, said as --set says it */
            return -1;
          const char *near = ts_json_near_key(L->resolved, path, parent, sizeof parent);
          if (near)
            return ts_err_set(e, sc->file, where, "%s is not a field of the model %s; did you mean %s.%s?", path,
                              sc->model_path, parent, near);
          return ts_err_set(e, sc->file, where, "%s is not a field of the model %s, nor a key its object may have (an "
                            "axis sets fields, or adds a key left at its default)", path, sc->model_path);
        }
      }
    combos *= ax->nvalues;
    if (combos > 100000)
      return ts_err_set(e, sc->file, "axes", "more than 100000 combinations of axis values");
  }
  int values[16];
  L->n_read = ts_model_reads_n(&L->model) || combos > 1000;
  if (sc->naxes == 0)
    ids_use(&L->model, ids);
  ids[0] |= combos > 1000; /* (not all checked: the rest may read them) */
  for (long c = 0; sc->naxes > 0 && c < combos && c < 1000; c++) {
    ts_model m;
    char err[sizeof e->msg];
    ts_scenario_combo_values(sc, c, values);
    if (ts_load_model_of(L, values, &m, err, sizeof err))
    {
      snprintf(e->msg, sizeof e->msg, "%s", err);
      e->nomem = 0;
      return -1;
    }
    L->n_read |= ts_model_reads_n(&m);
    ids_use(&m, ids);
    ts_model_finish(&m);
  }
  return 0;
}

int ts_load_ids_refusal(const ts_scenario *sc, const char *model_path, const ts_model *m, ts_err *e)
{
  const char *why = "\"per_replication\" draws the ids that hash dispatch places by, and round_robin and "
                    "least_loaded read none";
  int naxes = sc ? sc->naxes : 0;
  if (m->ids_per_replication && m->dispatch == TS_DISPATCH_HASH) {
    /* the model alone reads them: an axis on dispatch.policy takes hash away
     * at every one of its values, so blame that axis */
    for (int a = 0; a < naxes; a++)
      for (int k = 0; k < sc->axes[a].nsets[0]; k++)
        if (strncmp(sc->axes[a].sets[0][k], "dispatch.policy=", 16) == 0 ||
            strncmp(sc->axes[a].sets[0][k], "dispatch=", 9) == 0) {
          char where[160];
          snprintf(where, sizeof where, sc->axes[a].path ? "axes.%s.values" : "axes.%s.sets", sc->axes[a].key);
          ts_err_set(e, sc->file, where, "expected dispatch.policy \"hash\" at some value: the model %s sets "
                     "dispatch.ids \"per_replication\" under hash, and this axis places by another policy at every "
                     "value, so no combination reads the ids (%s)", model_path, why);
          return 2;
        }
  }
  if (m->ids_per_replication) {
    ts_err_set(e, model_path, "dispatch.ids", "expected \"fixed\" under dispatch.policy \"%s\"%s: %s",
               ts_dispatch_name(m->dispatch), naxes ? " (at every axis value)" : "", why);
    return 1;
  }
  for (int a = 0; a < naxes; a++)
    for (int v = 0; v < sc->axes[a].nvalues; v++)
      for (int k = 0; k < sc->axes[a].nsets[v]; k++) {
        const char *set = sc->axes[a].sets[v][k];
        if (strncmp(set, "dispatch", 8) != 0 || !strchr("=.", set[8]) || !strstr(set, "per_replication"))
          continue;
        char where[160];
        if (sc->axes[a].path)
          snprintf(where, sizeof where, "axes.%s.values[%d]", sc->axes[a].key, v);
        else
          snprintf(where, sizeof where, "axes.%s.sets.%s", sc->axes[a].key, sc->axes[a].labels[v]);
        ts_err_set(e, sc->file, where, "expected no dispatch.ids \"per_replication\" where dispatch.policy is not "
                   "hash at any axis value (model %s): %s", model_path, why);
        return 2;
      }
  return 0;
}

/* dispatch.ids "per_replication" that no combination's model reads (ids:
 * check_axes's): each that sets it places by round_robin or least_loaded,
 * which read no id. Refused by ts_load_ids_refusal, blaming the override
 * that set it in the model (all: its overrides, the scenario's "set"
 * first). 0, or -1 with e filled. */
static int check_ids(const ts_loaded *L, const int ids[2], const char *const *all, int total, const char *set_by,
                     ts_err *e)
{
  const ts_scenario *sc = &L->sc;
  int at = ids[0] || !ids[1] ? 0 : ts_load_ids_refusal(sc, sc->model_path, &L->model, e);
  if (at == 1) {
    char by[600];
    blame_override(e->msg, all, sc->nsets, total, sc->file, set_by, -1, by, sizeof by);
    size_t len = strlen(e->msg);
    snprintf(e->msg + len, sizeof e->msg - len, "%s", by);
  }
  return at ? -1 : 0;
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

/* The columns samples.csv and summary.csv write besides the axes and the
 * metrics (ts_report_actor_columns, then the few ts_report_samples_header
 * and ts_report_summary_csv add), which an axis key may not repeat. */
static int fixed_column(const char *key)
{
  static const char *const more[] = {"class", "settle_ms", "samples", "cpu_by_load", NULL};
  for (int i = 0; ts_report_actor_columns[i]; i++)
    if (strcmp(key, ts_report_actor_columns[i]) == 0)
      return 1;
  for (int i = 0; more[i]; i++)
    if (strcmp(key, more[i]) == 0)
      return 1;
  return 0;
}

/* Whether column name col is metric m or a column summary.csv derives from
 * it (m_mean, m_ci95, recorded_m, err_m, m_vs_LABEL, m_vs_LABEL_ci95). */
static int derived_from(const char *col, const char *m)
{
  size_t l = strlen(m);
  if (strncmp(col, "recorded_", 9) == 0 && strcmp(col + 9, m) == 0)
    return 1;
  if (strncmp(col, "err_", 4) == 0 && strcmp(col + 4, m) == 0)
    return 1;
  if (strncmp(col, m, l) != 0)
    return 0;
  const char *rest = col + l;
  return !*rest || strcmp(rest, "_mean") == 0 || strcmp(rest, "_ci95") == 0 || strncmp(rest, "_vs_", 4) == 0;
}

/* No axis key is the name of a column summary.csv or samples.csv writes
 * besides the axes' own: the file would hold two columns of one name (and
 * summary.json one object with the key twice). Returns 0 or -1 with e
 * naming the axis. */
static int check_axis_keys(const ts_loaded *L, const ts_metric_list *l, ts_err *e)
{
  const ts_scenario *sc = &L->sc;
  for (int a = 0; a < sc->naxes; a++) {
    const char *key = sc->axes[a].key, *metric = NULL;
    for (size_t i = 0; i < l->n && !metric; i++)
      if (derived_from(key, l->v[i].name))
        metric = l->v[i].name;
    char clash[160] = "";
    if (metric && strcmp(key, metric) == 0)
      snprintf(clash, sizeof clash, "a metric of the model");
    else if (metric)
      snprintf(clash, sizeof clash, "a column summary.csv derives from the metric %s", metric);
    else if (fixed_column(key))
      snprintf(clash, sizeof clash, "a column of samples.csv or summary.csv");
    if (*clash) {
      char where[64];
      snprintf(where, sizeof where, "axes.%s", key);
      return ts_err_set(e, sc->file, where, "expected an axis key that no output column has: \"%s\" is %s, so the "
                        "files would hold two columns of that name (rename the axis)", key, clash);
    }
  }
  return 0;
}

/* The metric lists of the scenario's axis combinations, each built the
 * first time it is asked for: the up-front check must see the model an axis
 * value gives, which may report a metric the scenario's model does not
 * (host.cores turns cores_used on) or not report one it does. */
typedef struct combo_lists {
  ts_metric_list *l;
  char *built; /* l[c] is built */
  long n;
} combo_lists;

/* The list of combination c into *out; 0, or -1 with e filled. */
static int combo_list(ts_loaded *L, combo_lists *cl, long c, const ts_metric_list **out, ts_err *e)
{
  if (!cl->built[c]) {
    int values[16];
    ts_model m;
    char err[sizeof e->msg], why[300];
    ts_scenario_combo_values(&L->sc, c, values);
    if (ts_load_model_of(L, values, &m, err, sizeof err)) {
      snprintf(e->msg, sizeof e->msg, "%s", err);
      e->nomem = 0;
      return -1;
    }
    int rc = ts_metric_list_build(&m, &cl->l[c], why, sizeof why);
    ts_model_finish(&m);
    if (rc)
      return ts_err_set(e, L->sc.model_path, NULL, "%s", why);
    cl->built[c] = 1;
  }
  *out = &cl->l[c];
  return 0;
}

/* Whether some combination's model reports metric: 1, 0, or -1 with e. */
static int some_combo_reports(ts_loaded *L, combo_lists *cl, const char *metric, ts_err *e)
{
  for (long c = 0; L->sc.naxes > 0 && c < cl->n; c++) {
    const ts_metric_list *l;
    if (combo_list(L, cl, c, &l, e))
      return -1;
    if (ts_metric_list_find(l, metric) >= 0)
      return 1;
  }
  return 0;
}

/* The combination whose axis values record r names, or -1 (no axes, or
 * values of no combination: the record belongs to no point). */
static long record_combo(const ts_scenario *sc, const ts_record *r)
{
  long c = 0;
  if (sc->naxes == 0 || r->naxes != sc->naxes)
    return -1;
  for (int a = 0; a < sc->naxes; a++) {
    int v = ts_record_axis_value(r, sc->axes[a].key, sc->axes[a].labels, sc->axes[a].nvalues);
    if (v < 0)
      return -1;
    c = c * sc->axes[a].nvalues + v;
  }
  return c;
}

/* Each baseline record that is not loose names a metric that the model of
 * its own combination reports (the scenario's model for a record of no
 * combination): 0, or -1 with e naming the record's JSON path. */
static int check_records(ts_loaded *L, combo_lists *cl, const ts_metric_list *base, ts_err *e)
{
  for (size_t i = 0; i < L->baseline.nrec; i++) {
    ts_record *r = &L->baseline.rec[i];
    long c = record_combo(&L->sc, r);
    const ts_metric_list *l = base;
    char model[600];
    snprintf(model, sizeof model, "%s", L->sc.model_path);
    if (!r->loose && c >= 0) {
      if (combo_list(L, cl, c, &l, e))
        return -1;
      size_t len = strlen(model);
      for (int a = 0; a < r->naxes; a++, len = strlen(model))
        snprintf(model + len, sizeof model - len, "%s%s=%s", a ? ", " : " with axes ", r->axes[2 * a],
                 r->axes[2 * a + 1]);
    }
    ts_baseline one = {.file = L->baseline.file, .rec = r, .nrec = 1};
    if (ts_baseline_check_metrics(&one, l, model, e))
      return -1;
  }
  return 0;
}

/* Every metric the scenario's table shows is one the model of some axis
 * combination reports, every metric the baseline records one its record's
 * combination reports (and the model's metric names are distinct), and no
 * axis key is an output column's name; the baseline's loose records of
 * metrics the scenario's model does not report are dropped. */
static int check_metrics(ts_loaded *L, ts_err *e)
{
  ts_metric_list l;
  char why[300], hint[120];
  if (ts_metric_list_build(&L->model, &l, why, sizeof why))
    return ts_err_set(e, L->sc.model_path, NULL, "%s", why);
  combo_lists cl = {.n = 1};
  for (int a = 0; a < L->sc.naxes; a++)
    cl.n *= L->sc.axes[a].nvalues; /* at most 100000: check_axes */
  cl.l = calloc((size_t)cl.n, sizeof *cl.l);
  cl.built = calloc((size_t)cl.n, 1);
  int rc = !cl.l || !cl.built ? ts_err_set(e, L->sc.file, NULL, "out of memory") : check_axis_keys(L, &l, e);
  for (int i = 0; i < L->sc.ntable && rc == 0; i++) {
    if (ts_metric_list_find(&l, L->sc.table[i]) >= 0)
      continue;
    int some = some_combo_reports(L, &cl, L->sc.table[i], e);
    if (some < 0)
      rc = -1;
    if (some != 0)
      continue;
    char where[32];
    snprintf(where, sizeof where, "table[%d]", i);
    metric_hint(&l, L->sc.table[i], hint, sizeof hint);
    rc = ts_err_set(e, L->sc.file, where, "\"%s\": model %s does not report it%s (tssim run --help lists the "
                    "metrics; a model adds its spans' and its own)", L->sc.table[i], L->sc.model_path, hint);
  }
  if (rc == 0 && L->has_baseline) {
    ts_baseline_keep(&L->baseline, ts_baseline_reports, &l);
    rc = check_records(L, &cl, &l, e);
  }
  for (long c = 0; cl.built && c < cl.n; c++)
    if (cl.built[c])
      ts_metric_list_finish(&cl.l[c]);
  free(cl.l);
  free(cl.built);
  ts_metric_list_finish(&l);
  return rc;
}

/* Whether msg opens with "file: ". */
static int opens_with(const char *msg, const char *file)
{
  size_t l = strlen(file);
  return strncmp(msg, file, l) == 0 && strncmp(msg + l, ": ", 2) == 0;
}

/* Whether model error msg ("MODEL: PATH: ...") is about a path that an axis
 * override of combination `values` sets: the override's path, one under it
 * (the value was an object) or one above it (a misspelt key under an
 * existing object: "worker.bogus" for an axis on worker.bogus.threshold_ms).
 * If so, where (size cap) gets its JSON path in the scenario, as
 * check_axes names it: axes.KEY.values[I] for the value of a path axis
 * (axes.KEY.path when the path is above the value: a misspelt key), or
 * axes.KEY.sets.LABEL (the last override of the path wins, so the last
 * axis is blamed first). */
static int blame_axis(const ts_scenario *sc, const int *values, const char *msg, char *where, size_t cap)
{
  if (!opens_with(msg, sc->model_path))
    return 0;
  const char *mpath = msg + strlen(sc->model_path) + 2;
  size_t plen = strcspn(mpath, " ");
  if (plen == 0 || mpath[plen - 1] != ':')
    return 0;
  plen--; /* "worker.bogus: unknown key": the path before the colon */
  for (int a = sc->naxes - 1; a >= 0; a--) {
    const ts_axis *ax = &sc->axes[a];
    for (int k = ax->nsets[values[a]] - 1; k >= 0; k--) {
      const char *set = ax->sets[values[a]][k];
      size_t slen = strcspn(set, "=");
      if (ts_load_window_axis(set))
        continue;
      int above = plen <= slen && strncmp(set, mpath, plen) == 0 && set[plen] && strchr("=.[", set[plen]);
      if (!above && !names_override(msg, set))
        continue;
      /* a key above the value, or the path's own key unknown: the path is at fault */
      if (ax->path && ((above && set[plen] != '=') || strncmp(mpath + plen + 1, " unknown key", 12) == 0))
        snprintf(where, cap, "axes.%s.path", ax->key);
      else if (ax->path) /* the value, or a key in it */
        snprintf(where, cap, "axes.%s.values[%d]", ax->key, values[a]);
      else
        snprintf(where, cap, "axes.%s.sets.%s", ax->key, ax->labels[values[a]]);
      return 1;
    }
  }
  return 0;
}

int ts_load_model_of(void *ctx, const int *values, ts_model *m, char *err, size_t cap)
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
      if (!ts_load_window_axis(sc->axes[a].sets[values[a]][k]))
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
    char where[160];
    if (blame_axis(sc, values, e.msg, where, sizeof where)) { /* the scenario's axis, in the model */
      const char *rest = e.msg + strlen(sc->model_path) + 2; /* blame_axis: e.msg opens with "MODEL: " */
      snprintf(err, cap, "%s: %s: %s (in the model %s, with axes %s)", sc->file, where, rest, sc->model_path, by);
    } else
      snprintf(err, cap, "%s (with axes %s)", e.msg, by);
  }
  return rc;
}

void ts_load_sweep_error(const ts_loaded *L, int sr, const char *errmsg, char *out, size_t cap)
{
  if (sr == TS_SWEEP_MODEL && (opens_with(errmsg, L->sc.model_path) || opens_with(errmsg, L->sc.file)))
    snprintf(out, cap, "%s", errmsg);
  else
    snprintf(out, cap, "%s: %s", sr == TS_SWEEP_MODEL ? L->sc.model_path : L->sc.file, errmsg);
}

/* Parse JSON text named name into *root. Returns 0 or -1 with e filled. */
static int parse(const char *text, const char *name, cJSON **root, ts_err *e)
{
  if (!text)
    return ts_err_set(e, name, NULL, "no JSON text given");
  return ts_json_parse(text, strlen(text), name, root, e);
}

/* The scenario of src into out->sc. */
static int load_scenario(const ts_load_src *src, ts_loaded *out, ts_err *e)
{
  if (src->path)
    return ts_scenario_load(src->path, &out->sc, e);
  cJSON *root;
  if (parse(src->scenario_json, "<scenario>", &root, e))
    return -1;
  int rc = ts_scenario_convert(root, "<scenario>", 0, &out->sc, e);
  cJSON_Delete(root);
  if (rc)
    return -1;
  free(out->sc.model_path);
  free(out->sc.baseline_path);
  out->sc.model_path = strdup("<model>");
  out->sc.baseline_path = src->baseline_json ? strdup("<baseline>") : NULL;
  if (!out->sc.model_path || (src->baseline_json && !out->sc.baseline_path)) {
    ts_scenario_finish(&out->sc);
    return ts_err_set(e, "<scenario>", NULL, "out of memory");
  }
  return 0;
}

/* The model of src with overrides sets into out->model and out->resolved. */
static int load_model(const ts_load_src *src, const char *const *sets, int nsets, ts_loaded *out, ts_err *e)
{
  if (src->path)
    return ts_model_load(out->sc.model_path, sets, nsets, &out->model, &out->resolved, e);
  cJSON *root;
  if (parse(src->model_json, "<model>", &root, e))
    return -1;
  for (int i = 0; i < nsets; i++)
    if (ts_model_apply_set(root, "<model>", sets[i], e)) {
      cJSON_Delete(root);
      return -1;
    }
  if (ts_model_from_json(root, "<model>", &out->model, e)) {
    cJSON_Delete(root);
    return -1;
  }
  out->resolved = root;
  return 0;
}

/* The override of sets[0..nsets) that makes src's model fail to load
 * (ts_model_failing_set), or -1: for an error that names none of them,
 * such as a step's rows that a --set of its ms makes too many. */
static int failing_set(const ts_load_src *src, const ts_loaded *out, const char *const *sets, int nsets)
{
  cJSON *root;
  ts_err e;
  if (nsets == 0 || (src->path ? ts_json_load(out->sc.model_path, &root, &e) : parse(src->model_json, "<model>",
                                                                                  &root, &e)))
    return -1;
  int i = ts_model_failing_set(root, src->path ? out->sc.model_path : "<model>", sets, nsets);
  cJSON_Delete(root);
  return i;
}

static int load_baseline(const ts_load_src *src, ts_loaded *out, ts_err *e)
{
  if (src->path)
    return ts_baseline_load(out->sc.baseline_path, &out->baseline, e);
  cJSON *root;
  if (parse(src->baseline_json, "<baseline>", &root, e))
    return -1;
  int rc = ts_baseline_from_json(root, "<baseline>", &out->baseline, e);
  cJSON_Delete(root);
  return rc;
}

int ts_load(const ts_load_src *src, const char *const *sets, int nsets, ts_loaded *out, ts_err *e)
{
  memset(out, 0, sizeof *out);
  if (load_scenario(src, out, e))
    return -1;
  int total = out->sc.nsets + nsets;
  const char **all = calloc((size_t)total + 1, sizeof *all);
  if (!all) {
    ts_scenario_finish(&out->sc);
    return ts_err_set(e, NULL, NULL, "out of memory");
  }
  for (int i = 0; i < out->sc.nsets; i++)
    all[i] = out->sc.sets[i];
  for (int i = 0; i < nsets; i++)
    all[out->sc.nsets + i] = sets[i];
  if (load_model(src, all, total, out, e)) {
    char by[600];
    blame_override(e->msg, all, out->sc.nsets, total, out->sc.file, src->set_by, failing_set(src, out, all, total),
                   by, sizeof by);
    size_t len = strlen(e->msg);
    snprintf(e->msg + len, sizeof e->msg - len, "%s", by);
    free(all);
    ts_scenario_finish(&out->sc);
    return -1;
  }
  int ids[2] = {0, 0};
  if (check_axes(out, ids, e) || check_ids(out, ids, all, total, src->set_by, e) ||
      (out->sc.baseline_path && load_baseline(src, out, e))) {
    free(all);
    ts_load_finish(out);
    return -1;
  }
  free(all);
  out->has_baseline = out->sc.baseline_path != NULL;
  if (check_metrics(out, e)) {
    ts_load_finish(out);
    return -1;
  }
  return 0;
}

int ts_load_parse_count(const char *arg, const char *what, long lo, long hi, long *out, ts_err *e)
{
  char *end;
  long v = strtol(arg, &end, 10);
  if (!*arg || *end || v < lo || v > hi)
    return ts_err_set(e, what, NULL, "expected an integer in [%ld, %ld], got \"%s\"", lo, hi, arg);
  *out = v;
  return 0;
}

/* "2%" or "0.02" as a fraction in (0, 1). */
static int parse_target(const char *text, double *out, ts_err *e)
{
  char *end;
  double v = strtod(text, &end);
  if (end != text && *end == '%' && end[1] == '\0')
    v /= 100;
  else if (end == text || *end)
    v = -1;
  if (!(v > 0 && v < 1))
    return ts_err_set(e, "--ci-target", NULL,
                      "expected a percentage between 0%% and 100%% (exclusive) such as 2%%, or a fraction such as "
                      "0.02, got \"%s\"",
                      text);
  *out = v;
  return 0;
}

/* Replace the sweep's list (*list, *len) by the one in arg, unless arg is
 * NULL. Returns 0, or -1 with e filled. */
static int override_list(const char *arg, const char *what, long lo, long hi, int **list, size_t *len, ts_err *e)
{
  int *parsed;
  size_t n;
  if (!arg)
    return 0;
  if (ts_parse_int_list(arg, what, lo, hi, &parsed, &n, e))
    return -1;
  free(*list);
  *list = parsed;
  *len = n;
  return 0;
}

/* A message of option opt ("--seed: ...") named by name instead. */
static int renamed(ts_err *e, const char *opt, const char *name)
{
  size_t l = strlen(opt);
  if (name && strncmp(e->msg, opt, l) == 0 && e->msg[l] == ':') {
    char rest[sizeof e->msg];
    snprintf(rest, sizeof rest, "%s", e->msg + l);
    snprintf(e->msg, sizeof e->msg, "%s%s", name, rest);
  }
  return -1;
}

int ts_load_override(ts_loaded *L, const ts_load_overrides *o, ts_err *e)
{
  static const char *const options[6] = {"--n", "--workers", "--replications", "--seed", "--ci-target", "--ci-max"};
  const char *const *nm = o->names ? o->names : options;
  if (override_list(o->n, nm[0], 1, TS_MAX_ACTORS, &L->sc.ns, &L->sc.nn, e) ||
      override_list(o->workers, nm[1], 1, TS_MAX_WORKERS, &L->sc.workers, &L->sc.nw, e))
    return -1;
  if (!L->sc.n_given && !o->n && L->model.reads_n)
    return ts_err_set(e, L->sc.file, "n", "missing (required: model %s reads n, the sweep's n; give \"n\" or %s)",
                      L->sc.model_path, nm[0]);
  long v = 0;
  if (o->replications) {
    if (ts_load_parse_count(o->replications, nm[2], 1, 100000, &v, e))
      return -1;
    L->sc.replications = (int)v;
  }
  if (o->seed && ts_parse_seed(o->seed, &L->sc.seed, e))
    return renamed(e, options[3], o->names ? nm[3] : NULL);
  if (o->ci_target && parse_target(o->ci_target, &L->sc.ci_target, e))
    return renamed(e, options[4], o->names ? nm[4] : NULL);
  if (o->ci_max) {
    if (ts_load_parse_count(o->ci_max, nm[5], 2, 100000, &v, e))
      return -1;
    L->sc.ci_max = (int)v;
    if (!(L->sc.ci_target > 0))
      return ts_err_set(e, nm[5], NULL, "bounds the replications %s adds, and there is no CI target "
                        "(give %s, or ci_target in the scenario)", nm[4], nm[4]);
  }
  return 0;
}

int ts_load_check_horizon(const ts_loaded *L, ts_err *e)
{
  char why[512];
  if (L->sc.horizon != TS_TIME_MAX || !ts_model_forever(&L->model, why, sizeof why))
    return 0;
  return ts_err_set(e, L->sc.file, "horizon_ms", "missing: %s, so the scenario needs horizon_ms", why);
}

/* The confidence target applies to the metrics the table reports. */
static int table_cols(void *ctx, const ts_sweep *s, int *cols, int max)
{
  const ts_loaded *L = ctx;
  return ts_report_table_cols(&L->sc, s, cols, max);
}

/* The scenario's names for the axes and their values, for messages. */
static const char *axis_name(void *ctx, int axis)
{
  return ((const ts_loaded *)ctx)->sc.axes[axis].key;
}

static const char *axis_label(void *ctx, int axis, int v)
{
  return ((const ts_loaded *)ctx)->sc.axes[axis].labels[v];
}

void ts_load_sweep_spec(ts_loaded *L, int jobs, int *sizes, ts_sweep_spec *spec)
{
  for (int a = 0; a < L->sc.naxes; a++)
    sizes[a] = L->sc.axes[a].nvalues;
  *spec = (ts_sweep_spec){.ns = L->sc.ns, .nn = L->sc.nn, .workers = L->sc.workers, .nw = L->sc.nw,
                          .replications = L->sc.replications, .seed = L->sc.seed,
                          .horizon = L->sc.horizon, .warmup = L->sc.warmup, .window = L->sc.window,
                          .naxes = L->sc.naxes, .axis_sizes = sizes,
                          .model_of = L->sc.naxes ? ts_load_model_of : NULL, .model = &L->model, .ctx = L,
                          .window_of = L->sc.naxes ? ts_load_window_of : NULL,
                          .axis_name = axis_name, .axis_label = axis_label,
                          .ci_target = L->sc.ci_target, .ci_max = L->sc.ci_max, .ci_cols = table_cols,
                          .jobs = jobs};
}

void ts_load_finish(ts_loaded *l)
{
  ts_scenario_finish(&l->sc);
  ts_model_finish(&l->model);
  cJSON_Delete(l->resolved);
  ts_baseline_finish(&l->baseline);
  memset(l, 0, sizeof *l);
}
