#include <ctype.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/model_json.h"
#include "model/dispatch.h"

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

static void set_axis_notes(const ts_scenario *sc, const char *const *sets, int nsets, const char *const *axes,
                           int naxes);
static void set_unread_notes(const ts_loaded *L, const char *const *sets, int nsets, const char *const *axes,
                             int naxes);

int ts_cli_load_axes(const char *path, const char *const *sets, int nsets, const char *const *axes, int naxes,
                     ts_loaded *out)
{
  ts_err e;
  ts_load_src src = {.path = path};
  if (ts_load(&src, sets, nsets, out, &e)) {
    ts_cli_usage_error("%s", e.msg);
    return e.nomem ? TS_EXIT_FAILED : TS_EXIT_USAGE; /* memory ran out: the input was not at fault */
  }
  set_axis_notes(&out->sc, sets, nsets, axes, naxes);
  set_unread_notes(out, sets, nsets, axes, naxes);
  return 0;
}

int ts_cli_load(const char *path, const char *const *sets, int nsets, ts_loaded *out)
{
  return ts_cli_load_axes(path, sets, nsets, NULL, 0, out);
}

/* The length of the JSON path of override "PATH=VALUE". */
static size_t path_len(const char *set)
{
  return strcspn(set, "=");
}

/* Whether an override of path a (length la) replaces what one of path b
 * (length lb) set: the same path, or a's an ancestor of b's. */
static int covers(const char *a, size_t la, const char *b, size_t lb)
{
  return la <= lb && strncmp(a, b, la) == 0 && (la == lb || b[la] == '.' || b[la] == '[');
}

int ts_cli_set_covers(const char *a, const char *b)
{
  return covers(a, path_len(a), b, path_len(b));
}

const char *ts_cli_axis_option(const char *const *axes, int naxes, const char *key)
{
  size_t lk = strlen(key);
  for (int i = 0; i < naxes; i++)
    if (strncmp(axes[i], key, lk) == 0 && axes[i][lk] == '=')
      return axes[i];
  return NULL;
}

int ts_cli_axis_keeps(const char *keep, const char *label)
{
  if (!keep)
    return 1;
  size_t ll = strlen(label);
  for (const char *p = strchr(keep, '=') + 1; *p; p += strcspn(p, ","), p += *p == ',')
    if (strcspn(p, ",") == ll && strncmp(p, label, ll) == 0)
      return 1;
  return 0;
}

/* A note on stderr for each --set that an axis of sc overrides (an axis
 * value wins: the model of a combination is the run's, --set included, with
 * the axis's overrides applied on top), naming both and the values run (an
 * --axis option of axes[0..naxes) keeps only some): an axis that sets the
 * --set's path or one above it overrides it, one that sets a path under it
 * (--set worker={...}, an axis on worker.threshold_ms) overrides it in part. */
static void set_axis_notes(const ts_scenario *sc, const char *const *sets, int nsets, const char *const *axes,
                           int naxes)
{
  for (int i = 0; i < nsets; i++) {
    size_t ls = path_len(sets[i]);
    for (int a = 0; a < sc->naxes; a++) {
      const ts_axis *ax = &sc->axes[a];
      const char *keep = ts_cli_axis_option(axes, naxes, ax->key);
      char labels[300] = "", over[300] = "";
      int hit = 0, len = 0, part = 0, run = 0;
      for (int v = 0; v < ax->nvalues; v++)
        run += ts_cli_axis_keeps(keep, ax->labels[v]);
      for (int v = 0; v < ax->nvalues; v++)
        for (int k = 0; k < ax->nsets[v] && ts_cli_axis_keeps(keep, ax->labels[v]); k++) {
          const char *o = ax->sets[v][k];
          size_t lo = path_len(o);
          if (!covers(o, lo, sets[i], ls) && !covers(sets[i], ls, o, lo))
            continue;
          if (!hit) {
            snprintf(over, sizeof over, "%.*s", (int)lo, o);
            part = lo > ls;
          }
          if (len >= 0 && (size_t)len < sizeof labels)
            len += snprintf(labels + len, sizeof labels - (size_t)len, "%s%s", hit ? ", " : "", ax->labels[v]);
          hit++;
          break;
        }
      if (!hit)
        continue;
      fprintf(stderr,
              "tssim: note: --set %s is overridden%s by axis \"%s\" of %s (it sets %s) at %s (%s): an axis value "
              "wins over --set; to run other values, change the axis in the scenario\n",
              sets[i], part ? " in part" : "", ax->key, sc->file, over,
              hit < run ? "its values" : keep ? "every value --axis keeps" : "every value", labels);
    }
  }
}

/* Whether text holds $name as a whole name (not a prefix of a longer one). */
static int names_param(const char *text, const char *name, size_t len)
{
  for (const char *p = strchr(text, '$'); p; p = strchr(p + 1, '$'))
    if (strncmp(p + 1, name, len) == 0 && !isalnum((unsigned char)p[1 + len]) && p[1 + len] != '_')
      return 1;
  return 0;
}

static int tree_reads(const cJSON *node, const char *name, size_t len)
{
  if (cJSON_IsString(node))
    return names_param(node->valuestring, name, len);
  for (const cJSON *c = node ? node->child : NULL; c; c = c->next)
    if (tree_reads(c, name, len))
      return 1;
  return 0;
}

int ts_cli_param_read(const cJSON *tree, const ts_scenario *sc, const char *const *axes, int naxes,
                      const char *name)
{
  size_t len = strlen(name);
  for (int a = 0; a < sc->naxes; a++)
    for (int v = 0; v < sc->axes[a].nvalues; v++)
      for (int k = 0; k < sc->axes[a].nsets[v] && ts_cli_axis_keeps(ts_cli_axis_option(axes, naxes, sc->axes[a].key),
                                                         sc->axes[a].labels[v]); k++)
        if (names_param(sc->axes[a].sets[v][k], name, len))
          return 1;
  return tree_reads(tree, name, len);
}

/* The note that OPTION TEXT gives $name, which nothing reads (kept: at the
 * axis values --axis keeps), so WHAT. */
static void unread_note(const ts_scenario *sc, int kept, const char *option, const char *text, const char *name,
                        const char *what)
{
  fprintf(stderr, "tssim: note: %s %s: no expression of %s (nor an axis of %s%s) reads $%s, so %s\n", option, text,
          sc->model_path, sc->file, kept ? " at the values --axis keeps" : "", name, what);
}

int ts_cli_note_unread(const cJSON *tree, const ts_scenario *sc, const char *option, const char *path,
                       const char *what)
{
  if (strncmp(path, "params.", 7) != 0 || strcspn(path + 7, ".[") != strlen(path + 7) ||
      ts_cli_param_read(tree, sc, NULL, 0, path + 7))
    return 0;
  unread_note(sc, 0, option, path, path + 7, what);
  return 1;
}

/* A note on stderr for each --set params.NAME=VALUE, and each NAME of a
 * --set params={...}, that nothing in L's model or scenario reads
 * (ts_cli_param_read, at the axis values the --axis options of
 * axes[0..naxes) keep): the run is the same without it. */
static void set_unread_notes(const ts_loaded *L, const char *const *sets, int nsets, const char *const *axes,
                             int naxes)
{
  for (int i = 0; i < nsets; i++) {
    size_t len = path_len(sets[i]);
    char name[256];
    if (len == 6 && strncmp(sets[i], "params", 6) == 0 && sets[i][6] == '=') {
      cJSON *obj = cJSON_Parse(sets[i] + 7);
      for (const cJSON *c = cJSON_IsObject(obj) ? obj->child : NULL; c; c = c->next)
        if (!ts_cli_param_read(L->resolved, &L->sc, axes, naxes, c->string)) {
          snprintf(name, sizeof name, "its %.200s changes nothing", c->string);
          unread_note(&L->sc, naxes > 0, "--set", "params={...}", c->string, name);
        }
      cJSON_Delete(obj);
      continue;
    }
    if (strncmp(sets[i], "params.", 7) != 0 || len - 7 >= sizeof name || strcspn(sets[i] + 7, ".[=") != len - 7)
      continue;
    snprintf(name, sizeof name, "%.*s", (int)(len - 7), sets[i] + 7);
    if (!ts_cli_param_read(L->resolved, &L->sc, axes, naxes, name))
      unread_note(&L->sc, naxes > 0, "--set", sets[i], name, "it changes nothing");
  }
}

/* One note of a model (ts_model_policy_note, ts_dispatch_note) and the axis
 * combinations whose model gives it. */
typedef struct combo_note {
  char text[1024];
  long count;              /* combinations */
  int first[16], same[16]; /* the first's values; whether each axis has that value in all of them */
} combo_note;

/* A note of model m (ctx: the caller's) into out (size cap): 1 with it written, or 0. */
typedef int (*model_note_fn)(const ts_model *m, const void *ctx, char *out, size_t cap);

enum { MAX_NOTES = 8 }; /* distinct notes of one kind */

/* One kind of note: its function and context, and the distinct notes it
 * gave over the combinations. */
typedef struct note_kind {
  model_note_fn fn;
  const void *ctx;
  combo_note *pn; /* [MAX_NOTES] */
  int npn;
} note_kind;

/* Count note (of the combination with these axis values) into kind k. */
static void count_note(const ts_scenario *sc, note_kind *k, const char *note, const int *values)
{
  int i = 0;
  while (i < k->npn && strcmp(k->pn[i].text, note) != 0)
    i++;
  if (i == k->npn) {
    if (k->npn == MAX_NOTES)
      return;
    k->npn++;
    snprintf(k->pn[i].text, sizeof k->pn[i].text, "%s", note);
    for (int a = 0; a < sc->naxes; a++) {
      k->pn[i].first[a] = values[a];
      k->pn[i].same[a] = 1;
    }
  }
  k->pn[i].count++;
  for (int a = 0; a < sc->naxes; a++)
    k->pn[i].same[a] &= k->pn[i].first[a] == values[a];
}

/* On stderr, kind k's notes over the `checked` combinations, with where. */
static void print_notes(const ts_scenario *sc, const note_kind *k, long checked)
{
  for (int i = 0; i < k->npn; i++) {
    const combo_note *pn = &k->pn[i];
    if (pn->count == checked) { /* every combination: as without axes */
      fprintf(stderr, "tssim: note: %s: %s\n", sc->model_path, pn->text);
      continue;
    }
    /* where: the axis values every combination with the note has, and how many of those combinations have it */
    char where[600] = "";
    int len = 0;
    long of = 1;
    for (int a = 0; a < sc->naxes; a++) {
      if (!pn->same[a]) {
        of *= sc->axes[a].nvalues;
        continue;
      }
      if (len >= 0 && (size_t)len < sizeof where)
        len += snprintf(where + len, sizeof where - (size_t)len, " %.60s=%.60s", sc->axes[a].key,
                        sc->axes[a].labels[pn->first[a]]);
    }
    if (len == 0) {
      snprintf(where, sizeof where, " %ld of the %ld axis combinations", pn->count, checked);
    } else if (pn->count < of && len >= 0 && (size_t)len < sizeof where) {
      snprintf(where + len, sizeof where - (size_t)len, " (%ld of its %ld combinations)", pn->count, of);
    }
    fprintf(stderr, "tssim: note: %s at%s: %s\n", sc->model_path, where, pn->text);
  }
}

/* On stderr, for each of the nkinds kinds in turn, each note its fn gives
 * of the models of L's axis combinations (the first 1000, as ts_load checks;
 * L's model without axes), once, with where: "MODEL: NOTE" when every
 * combination gives it, else "MODEL at AXIS=VALUE ...: NOTE" (the axis
 * values all those combinations have, and how many of the combinations
 * with those values give it; "at K of the N axis combinations" when they
 * have no value in common). Each combination's model is loaded once for
 * all the kinds. */
static void combo_notes(const ts_loaded *L, note_kind *kinds, int nkinds)
{
  const ts_scenario *sc = &L->sc;
  char note[1024];
  if (sc->naxes == 0) {
    for (int k = 0; k < nkinds; k++)
      if (kinds[k].fn(&L->model, kinds[k].ctx, note, sizeof note))
        fprintf(stderr, "tssim: note: %s: %s\n", sc->model_path, note);
    return;
  }
  long combos = ts_scenario_combos(sc);
  combo_note *pn = calloc((size_t)nkinds * MAX_NOTES, sizeof *pn);
  int values[16];
  long checked = 0;
  for (int k = 0; k < nkinds; k++)
    kinds[k] = (note_kind){kinds[k].fn, kinds[k].ctx, pn ? pn + k * MAX_NOTES : NULL, 0};
  for (long c = 0; pn && c < combos && c < 1000; c++, checked++) { /* (ts_load checks as many) */
    ts_scenario_combo_values(sc, c, values);
    ts_model m;
    char err[512];
    if (ts_load_model_of((void *)L, values, &m, err, sizeof err))
      continue; /* (ts_load loaded every one: out of memory) */
    for (int k = 0; k < nkinds; k++)
      if (kinds[k].fn(&m, kinds[k].ctx, note, sizeof note))
        count_note(sc, &kinds[k], note, values);
    ts_model_finish(&m);
  }
  for (int k = 0; pn && k < nkinds; k++)
    print_notes(sc, &kinds[k], checked);
  free(pn);
}

static int policy_note(const ts_model *m, const void *ctx, char *out, size_t cap)
{
  (void)ctx;
  return ts_model_policy_note(m, out, cap);
}

void ts_cli_note_n_unread(const char *n_arg, const char *model_path)
{
  fprintf(stderr, "tssim: note: --n %s: model %s reads n nowhere (no expression, no host.cpu_scale_by_n): n changes "
          "only the random streams (it enters the seed)\n", n_arg, model_path);
}

void ts_cli_policy_notes(const ts_loaded *L)
{
  note_kind k = {.fn = policy_note};
  combo_notes(L, &k, 1);
}

/* The largest worker count and the replications a sweep may run: what
 * ts_dispatch_note reads. */
typedef struct sweep_size {
  int max_workers, replications;
} sweep_size;

static int dispatch_note(const ts_model *m, const void *ctx, char *out, size_t cap)
{
  const sweep_size *z = ctx;
  return ts_dispatch_note(m, z->max_workers, z->replications, out, cap);
}

static int reach_note(const ts_model *m, const void *ctx, char *out, size_t cap)
{
  (void)ctx;
  return ts_model_reach_note(m, out, cap);
}

void ts_cli_sweep_notes(const ts_loaded *L)
{
  sweep_size z = {0, L->sc.replications};
  for (size_t i = 0; i < L->sc.nw; i++)
    z.max_workers = L->sc.workers[i] > z.max_workers ? L->sc.workers[i] : z.max_workers;
  if (L->sc.ci_target > 0 && L->sc.ci_max > z.replications)
    z.replications = L->sc.ci_max;
  note_kind k[] = {{.fn = dispatch_note, .ctx = &z}, {.fn = reach_note}, {.fn = policy_note}};
  combo_notes(L, k, 3);
}

cJSON *ts_cli_combo_tree(const ts_scenario *sc, const cJSON *tree, long c)
{
  int values[16];
  ts_err e;
  cJSON *t = cJSON_Duplicate(tree, 1);
  ts_scenario_combo_values(sc, c, values);
  for (int a = 0; t && a < sc->naxes; a++)
    for (int k = 0; k < sc->axes[a].nsets[values[a]]; k++) {
      const char *set = sc->axes[a].sets[values[a]][k];
      if (!ts_load_window_axis(set) && ts_model_apply_set(t, sc->model_path, set, &e)) {
        cJSON_Delete(t);
        return NULL;
      }
    }
  return t;
}

void ts_cli_unload(ts_loaded *l)
{
  ts_load_finish(l);
}
