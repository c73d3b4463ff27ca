#include "fit/explore.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "run/suggest.h"
#include "run/metrics.h"

/* Whether an axis value of sc overrides something under the model's host. */
static int axes_touch_host(const ts_scenario *sc)
{
  for (int a = 0; a < sc->naxes; a++)
    for (int v = 0; v < sc->axes[a].nvalues; v++)
      for (int k = 0; k < sc->axes[a].nsets[v]; k++) {
        const char *set = sc->axes[a].sets[v][k];
        if (strncmp(set, "host", 4) == 0 && strchr(".=[", set[4]))
          return 1;
      }
  return 0;
}

int ts_explore_init(ts_explore *x, const cJSON *resolved, const ts_scenario *sc, int jobs, ts_err *e)
{
  memset(x, 0, sizeof *x);
  x->sc = sc;
  x->file = sc->model_path;
  x->jobs = jobs;
  x->ncombos = (size_t)ts_scenario_combos(sc);
  x->npoints = x->ncombos * sc->nw * sc->nn;
  x->tree = cJSON_Duplicate(resolved, 1);
  if (!x->tree)
    return ts_err_set(e, x->file, NULL, "out of memory");
  /* every variant converts the tree: read the files it names once, here,
   * unless an axis overrides the host (then each combination reads them) */
  if (!axes_touch_host(sc) && ts_model_inline_files(x->tree, x->file, e)) {
    ts_explore_finish(x);
    return -1;
  }
  return 0;
}

void ts_explore_finish(ts_explore *x)
{
  if (!x)
    return;
  cJSON_Delete(x->tree);
  memset(x, 0, sizeof *x);
}

ts_compare_point ts_explore_point(const ts_explore *x, size_t k)
{
  size_t nn = x->sc->nn, nw = x->sc->nw;
  return (ts_compare_point){(int)(k / (nn * nw)), x->sc->ns[k % nn], x->sc->workers[(k / nn) % nw]};
}

/* Write variant v's changes into tree t. */
static int apply_variant(cJSON *t, const char *file, const ts_explore_variant *v, ts_err *e)
{
  for (size_t i = 0; v && i < v->nsets; i++) {
    const ts_explore_set *s = &v->sets[i];
    cJSON *node = s->json ? NULL : ts_json_get_path(t, s->path);
    if (node && cJSON_IsNumber(node)) {
      cJSON_SetNumberValue(node, s->value);
      continue;
    }
    char text[40];
    if (!s->json)
      snprintf(text, sizeof text, "%.17g", s->value);
    if (ts_json_set_path(t, file, s->path, s->json ? s->json : text, e))
      return -1;
  }
  return 0;
}

int ts_explore_model(const ts_explore *x, const ts_explore_variant *v, int combo, ts_model *m, ts_err *e)
{
  const ts_scenario *sc = x->sc;
  cJSON *t = cJSON_Duplicate(x->tree, 1);
  if (!t)
    return ts_err_set(e, x->file, NULL, "out of memory");
  int rc = apply_variant(t, x->file, v, e), values[16];
  ts_scenario_combo_values(sc, combo, values);
  for (int a = sc->naxes - 1; a >= 0 && rc == 0; a--)
    for (int k = 0; k < sc->axes[a].nsets[values[a]] && rc == 0; k++)
      rc = ts_model_apply_set(t, x->file, sc->axes[a].sets[values[a]][k], e);
  if (rc == 0)
    rc = ts_model_from_json(t, x->file, m, e);
  cJSON_Delete(t);
  return rc;
}

typedef struct run_ctx {
  const ts_explore *x;
  const ts_explore_variant *v;
  char text[600];  /* a variant's text, for a failed point's message */
} run_ctx;

/* A ts_sweep_spec.model_of: values[0] is the variant, the rest the
 * scenario's axis values. */
static int variant_model(void *ctx, const int *values, ts_model *m, char *err, size_t cap)
{
  const run_ctx *rc = ctx;
  const ts_scenario *sc = rc->x->sc;
  int combo = 0;
  for (int a = 0; a < sc->naxes; a++)
    combo = combo * sc->axes[a].nvalues + values[a + 1];
  ts_err e;
  if (ts_explore_model(rc->x, &rc->v[values[0]], combo, m, &e)) {
    snprintf(err, cap, "%s", e.msg);
    return -1;
  }
  return 0;
}

/* What variant v changes: its label, else its sets "PATH=VALUE ...". */
static void variant_text(const ts_explore_variant *v, char *buf, size_t cap)
{
  size_t len = 0;
  buf[0] = '\0';
  if (v->label) {
    snprintf(buf, cap, "%s", v->label);
    return;
  }
  for (size_t i = 0; i < v->nsets && len < cap; i++, len = strlen(buf))
    if (v->sets[i].json)
      snprintf(buf + len, cap - len, "%s%s=%s", i ? " " : "", v->sets[i].path, v->sets[i].json);
    else
      snprintf(buf + len, cap - len, "%s%s=%.7g", i ? " " : "", v->sets[i].path, v->sets[i].value);
  if (!buf[0])
    snprintf(buf, cap, "the scenario's own setting");
}

/* The names a failed point's message gives its axes: "setting" and what
 * the variant changes for the first, the scenario's keys and labels for
 * the others (ts_sweep_spec.axis_name and axis_label). */
static const char *axis_name(void *ctx, int axis)
{
  const run_ctx *rc = ctx;
  return axis == 0 ? "setting" : rc->x->sc->axes[axis - 1].key;
}

static const char *axis_label(void *ctx, int axis, int v)
{
  run_ctx *rc = ctx;
  if (axis > 0)
    return rc->x->sc->axes[axis - 1].labels[v];
  variant_text(&rc->v[v], rc->text, sizeof rc->text);
  return rc->text;
}

int ts_explore_run(const ts_explore *x, const ts_explore_variant *v, size_t nv, int replications, ts_sweep *out)
{
  const ts_scenario *sc = x->sc;
  int sizes[17];
  sizes[0] = (int)nv;
  for (int a = 0; a < sc->naxes && a < 16; a++)
    sizes[a + 1] = sc->axes[a].nvalues;
  run_ctx ctx = {x, v, ""};
  ts_sweep_spec spec = {.ns = sc->ns, .nn = sc->nn, .workers = sc->workers, .nw = sc->nw,
                        .replications = replications, .seed = sc->seed, .horizon = sc->horizon,
                        .warmup = sc->warmup, .window = sc->window, .naxes = sc->naxes + 1,
                        .axis_sizes = sizes, .model_of = variant_model, .axis_name = axis_name,
                        .axis_label = axis_label, .ctx = &ctx,
                        .should_stop = x->should_stop, .progress = x->progress, .progress_data = x->data,
                        .jobs = x->jobs};
  int rc = ts_sweep_run(&spec, out);
  if (rc == 0 && x->notes)
    ts_sweep_notes_add(x->notes, &out->notes);
  return rc;
}

const ts_point *ts_explore_row(const ts_explore *x, const ts_sweep *s, size_t v, size_t k,
                               const ts_explore_metric *mt)
{
  ts_compare_point p = ts_explore_point(x, k);
  return ts_sweep_find(s, (int)(v * x->ncombos) + p.combo, p.n, p.workers, mt->klass);
}

void ts_explore_metric_finish(ts_explore_metric *mt)
{
  if (!mt)
    return;
  free(mt->text);
  free(mt->name);
  free(mt->klass);
  memset(mt, 0, sizeof *mt);
}

/* The reported classes of m, NULL-terminated (caller frees the array). */
static const char **reported_classes(const ts_model *m)
{
  const char **v = calloc(m->nclasses + 1, sizeof *v);
  size_t n = 0;
  for (size_t c = 0; v && c < m->nclasses; c++)
    if (m->classes[c].report)
      v[n++] = m->classes[c].name;
  return v;
}

static int check_class(const char *klass, const ts_model *m, const char *option, const char *text, ts_err *e)
{
  const char **names = reported_classes(m);
  if (!names)
    return ts_err_set(e, option, NULL, "out of memory");
  int found = 0;
  for (size_t i = 0; names[i]; i++)
    found |= strcmp(names[i], klass) == 0;
  const char *near = found ? NULL : ts_suggest(klass, names);
  char list[400] = "";
  for (size_t i = 0, len = 0; names[i] && len < sizeof list; i++, len = strlen(list))
    snprintf(list + len, sizeof list - len, "%s%s", i ? ", " : "", names[i]);
  free(names);
  if (found)
    return 0;
  if (near)
    return ts_err_set(e, option, NULL, "%s: the model has no reported class \"%s\"; did you mean \"%s\"?", text,
                      klass, near);
  return ts_err_set(e, option, NULL, "%s: the model has no reported class \"%s\" (its reported classes: %s)", text,
                    klass, list[0] ? list : "none; its rows pool every class as \"all\"");
}

static int check_metric(const char *name, const ts_model *m, const char *option, const char *text, ts_err *e)
{
  ts_metric_list l;
  char why[300];
  if (ts_metric_list_build(m, &l, why, sizeof why))
    return ts_err_set(e, option, NULL, "%s", why);
  int rc = 0;
  if (ts_metric_list_find(&l, name) < 0) {
    const char **names = calloc(l.n + 1, sizeof *names);
    for (size_t i = 0; names && i < l.n; i++)
      names[i] = l.v[i].name;
    const char *near = names ? ts_suggest(name, names) : NULL;
    char hint[120] = "";
    if (near)
      snprintf(hint, sizeof hint, "; did you mean \"%s\"?", near);
    rc = ts_err_set(e, option, NULL, "%s: the model does not report \"%s\"%s (tssim run --help lists the metrics)",
                    text, name, hint);
    free(names);
  }
  ts_metric_list_finish(&l);
  return rc;
}

/* Parse "NAME" or "NAME@CLASS" (the first len bytes of text) into mt. */
/* The index of the class whose row a metric @klass (NULL: no class named)
 * reads: klass's, or the first reported class's; -1 when the model reports
 * no class (one row for the whole point). */
static int row_class(const ts_model *m, const char *klass)
{
  for (size_t c = 0; c < m->nclasses; c++)
    if (klass ? strcmp(m->classes[c].name, klass) == 0 : m->classes[c].report)
      return (int)c;
  return -1;
}

static int parse_name(const char *text, size_t tlen, const ts_model *m, const char *option, ts_explore_metric *mt,
                      ts_err *e)
{
  memset(mt, 0, sizeof *mt);
  mt->point = -1;
  const char *at = memchr(text, '@', tlen);
  size_t len = at ? (size_t)(at - text) : tlen;
  if (len == 0 || (at && at + 1 == text + tlen))
    return ts_err_set(e, option, NULL, "expected METRIC or METRIC@CLASS, e.g. wave_ms or wave_ms@joiner, got \"%s\"",
                      text);
  mt->text = strdup(text);
  mt->name = strndup(text, len);
  mt->klass = at ? strndup(at + 1, tlen - len - 1) : NULL;
  if (!mt->text || !mt->name || (at && !mt->klass)) {
    ts_explore_metric_finish(mt);
    return ts_err_set(e, option, NULL, "out of memory");
  }
  if (check_metric(mt->name, m, option, text, e) || (mt->klass && check_class(mt->klass, m, option, text, e))) {
    ts_explore_metric_finish(mt);
    return -1;
  }
  mt->row = row_class(m, mt->klass);
  return 0;
}

int ts_explore_metric_parse(const char *text, const ts_model *m, const char *option, ts_explore_metric *mt,
                            ts_err *e)
{
  if (strchr(text, '['))
    return ts_err_set(e, option, NULL, "%s: expected METRIC or METRIC@CLASS (a point of the sweep, [KEY=LABEL,...], "
                      "is for tssim optimize's metrics; this command reports every point)", text);
  return parse_name(text, strlen(text), m, option, mt, e);
}

/* The sweep's dimensions as a selector names them: the scenario's axes,
 * then workers and n. */
typedef struct dim {
  const char *key;
  int size;
} dim;

static int ndims(const ts_scenario *sc)
{
  return sc->naxes + 2;
}

static dim dim_of(const ts_scenario *sc, int d)
{
  if (d < sc->naxes)
    return (dim){sc->axes[d].key, sc->axes[d].nvalues};
  return d == sc->naxes ? (dim){"workers", (int)sc->nw} : (dim){"n", (int)sc->nn};
}

/* Value v of dimension d as a selector names it, into buf. */
static const char *dim_label(const ts_scenario *sc, int d, int v, char *buf, size_t cap)
{
  if (d < sc->naxes)
    return sc->axes[d].labels[v];
  snprintf(buf, cap, "%d", d == sc->naxes ? sc->workers[v] : sc->ns[v]);
  return buf;
}

/* "a, b, c": dimension d's labels (d < 0: the keys), into buf. */
static void dim_list(const ts_scenario *sc, int d, char *buf, size_t cap)
{
  size_t len = 0;
  buf[0] = '\0';
  int n = d < 0 ? ndims(sc) : dim_of(sc, d).size;
  for (int i = 0; i < n && len < cap; i++, len = strlen(buf)) {
    char num[24];
    snprintf(buf + len, cap - len, "%s%s", i ? ", " : "", d < 0 ? dim_of(sc, i).key : dim_label(sc, d, i, num, sizeof num));
  }
}

/* The index of label in dimension d, or -1. */
static int find_label(const ts_scenario *sc, int d, const char *label)
{
  char num[24];
  for (int v = 0; v < dim_of(sc, d).size; v++)
    if (strcmp(dim_label(sc, d, v, num, sizeof num), label) == 0)
      return v;
  return -1;
}

/* The point that "KEY=LABEL,..." (sel) names in x's sweep into *point.
 * text is the whole metric, for messages. */
static int select_point(const ts_explore *x, char *sel, const char *option, const char *text, long *point, ts_err *e)
{
  const ts_scenario *sc = x->sc;
  int nd = ndims(sc), want[18];
  char list[400];
  for (int d = 0; d < nd; d++)
    want[d] = -1;
  for (char *tok = sel, *next; tok; tok = next) { /* (not strtok: an empty part must be refused, not skipped) */
    char *comma = strchr(tok, ',');
    next = comma ? comma + 1 : NULL;
    if (comma)
      *comma = '\0';
    char *eq = strchr(tok, '=');
    if (!eq || eq == tok || !eq[1])
      return ts_err_set(e, option, NULL, "%s: expected KEY=LABEL in the point's [...], got \"%s\"", text, tok);
    *eq = '\0';
    int d = 0;
    while (d < nd && strcmp(dim_of(sc, d).key, tok) != 0)
      d++;
    if (d == nd) {
      dim_list(sc, -1, list, sizeof list);
      return ts_err_set(e, option, NULL, "%s: the sweep has no key \"%s\" (its keys: %s)", text, tok, list);
    }
    if (want[d] >= 0)
      return ts_err_set(e, option, NULL, "%s: %s is named twice", text, tok);
    if ((want[d] = find_label(sc, d, eq + 1)) < 0) {
      dim_list(sc, d, list, sizeof list);
      return ts_err_set(e, option, NULL, "%s: %s has no value \"%s\" in this sweep (its values: %s)", text, tok,
                        eq + 1, list);
    }
  }
  size_t many = 1, len = 0;
  list[0] = '\0';
  for (int d = 0; d < nd; d++) {
    dim dm = dim_of(sc, d);
    if (want[d] >= 0 || dm.size == 1) {
      want[d] = want[d] < 0 ? 0 : want[d];
      continue;
    }
    many *= (size_t)dm.size;
    snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "", dm.key);
    len = strlen(list);
  }
  if (many > 1)
    return ts_err_set(e, option, NULL, "%s: names %zu points of the sweep, expected one: name %s too", text, many,
                      list);
  long combo = 0;
  for (int a = 0; a < sc->naxes; a++)
    combo = combo * sc->axes[a].nvalues + want[a];
  *point = (combo * (long)sc->nw + want[sc->naxes]) * (long)sc->nn + want[sc->naxes + 1];
  return 0;
}

int ts_explore_metric_same(const ts_explore_metric *a, const ts_explore_metric *b)
{
  return strcmp(a->name, b->name) == 0 && a->row == b->row && a->point == b->point;
}

int ts_explore_metric_parse_at(const char *text, const ts_model *m, const ts_explore *x, const char *option,
                               ts_explore_metric *mt, ts_err *e)
{
  const char *open = strchr(text, '[');
  if (!open)
    return parse_name(text, strlen(text), m, option, mt, e);
  size_t tlen = strlen(text);
  if (text[tlen - 1] != ']' || open + 2 >= text + tlen || strchr(open + 1, '[') ||
      memchr(open, ']', (size_t)(text + tlen - 1 - open)))
    return ts_err_set(e, option, NULL, "expected METRIC[KEY=LABEL,...] (one point of the sweep), e.g. "
                      "wave_ms[rule=ten,workers=4], got \"%s\"", text);
  if (x->sc->naxes > 16)
    return ts_err_set(e, option, NULL, "%s: at most 16 axes", text);
  if (parse_name(text, (size_t)(open - text), m, option, mt, e))
    return -1;
  char *sel = strndup(open + 1, (size_t)(text + tlen - 2 - open));
  int rc = sel ? select_point(x, sel, option, text, &mt->point, e) : ts_err_set(e, option, NULL, "out of memory");
  free(sel);
  if (rc)
    ts_explore_metric_finish(mt);
  return rc;
}

/* Whether path a lies inside b or is b (b followed by '.', '[' or the end). */
static int within(const char *a, const char *b)
{
  size_t n = strlen(b);
  return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '.' || a[n] == '[');
}

int ts_explore_check_path(const cJSON *tree, const ts_scenario *sc, const char *option, const char *path,
                          ts_err *e)
{
  if (!*path)
    return ts_err_set(e, option, NULL, "expected a JSON path into the model, e.g. params.tracker_ms, got \"\"");
  if (!ts_json_get_path((cJSON *)tree, path)) {
    if (ts_json_path_check(option, NULL, path, e)) /* classes[0]count: malformed, said as --set says it */
      return -1;
    char parent[512];
    const char *near = ts_json_near_key(tree, path, parent, sizeof parent);
    if (near)
      return ts_err_set(e, option, NULL, "%s is not a field of the model %s; did you mean %s.%s?", path,
                        sc->model_path, parent, near);
    if (strcmp(parent, "params") == 0) { /* --set params.NAME cannot add a parameter: name those there are */
      char names[400] = "";
      const cJSON *params = cJSON_GetObjectItemCaseSensitive(tree, "params");
      size_t len = 0, more = 0; /* whole names while they fit, room kept for " and N more" */
      for (const cJSON *c = params ? params->child : NULL; c; c = c->next)
        if (more || len + 2 + strlen(c->string) + 20 >= sizeof names)
          more++;
        else
          len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", len ? ", " : "", c->string);
      if (more)
        snprintf(names + len, sizeof names - len, len ? " and %zu more" : "%zu too long to name", more);
      const char *name = path + strlen("params.");
      return ts_err_set(e, option, NULL, "%s is not a parameter of the model %s (its params: %s): a parameter is "
                        "one the model writes in params and reads as $NAME; write it in the model, or give the "
                        "whole object with --set 'params={...,\"%s\":VALUE}' and a field that reads it with "
                        "--set 'FIELD=\"$%s\"' (--set %s=VALUE is refused)", path, sc->model_path,
                        names[0] ? names : "none", name, name, path);
    }
    if (parent[0] && cJSON_IsObject(ts_json_get_path((cJSON *)tree, parent)))
      return ts_err_set(e, option, NULL, "%s is not a field of the model %s (a field left at its default: write it "
                        "in the model, or give it with --set %s=VALUE first)", path, sc->model_path, path);
    return ts_err_set(e, option, NULL, "%s is not a field of the model %s (a path such as params.tracker_ms or "
                      "worker.threshold_ms, the syntax of --set)", path, sc->model_path);
  }
  for (int a = 0; a < sc->naxes; a++)
    for (int v = 0; v < sc->axes[a].nvalues; v++)
      for (int k = 0; k < sc->axes[a].nsets[v]; k++) {
        const char *set = sc->axes[a].sets[v][k];
        char at[512];
        snprintf(at, sizeof at, "%.*s", (int)strcspn(set, "="), set);
        if (within(path, at) || within(at, path))
          return ts_err_set(e, option, NULL, "%s: the scenario's axis \"%s\" sets %s, which would override the "
                            "change (keep one of its values with --axis %s=LABEL)", path, sc->axes[a].key, at,
                            sc->axes[a].key);
      }
  return 0;
}
