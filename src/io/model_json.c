/* Models from JSON, the top level: the file's keys, its params, the order
 * in which the sections are loaded (host and dispatch, pools, declarations,
 * classes, metrics; see model_load.h for the files that load each), the
 * whole-model checks, --set overrides and the inlining of referenced files.
 * The format is documented in docs/language.md. */
#include "io/model_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_load.h"
#include "run/suggest.h"
#include "model/op.h"

/* The numeric params, kept for metric expressions ($name). */
static int load_params(loader *L, ts_model *m)
{
  const cJSON *it;
  size_t n = 0;
  if (!L->params)
    return 0;
  cJSON_ArrayForEach(it, L->params) n += cJSON_IsNumber(it);
  m->param_names = calloc(n + 1, sizeof *m->param_names);
  m->param_values = calloc(n + 1, sizeof *m->param_values);
  if (!m->param_names || !m->param_values)
    return ts_jfail(&L->c, "params", L->e, "out of memory");
  cJSON_ArrayForEach(it, L->params)
  {
    const char *k = it->string;
    if (!ts_expr_is_name(k)) {
      size_t old = ts_jpush_key(&L->c, "params");
      int r = ts_jfail(&L->c, k, L->e, "a parameter name is letters, digits and '_', not starting with a digit "
                       "(\"$%s\" in an expression would not name it)", k);
      ts_jpop(&L->c, old);
      return r;
    }
    if (!cJSON_IsNumber(it) && !cJSON_IsString(it)) {
      size_t old = ts_jpush_key(&L->c, "params");
      int r = ts_jfail_got(&L->c, k, it, L->e, "expected a number, or a string (a name a step or a declaration uses)");
      ts_jpop(&L->c, old);
      return r;
    }
    if (!cJSON_IsNumber(it))
      continue;
    m->param_values[m->nparams] = it->valuedouble;
    if (!(m->param_names[m->nparams++] = ts__ml_dup_or_fail(L, it->string)))
      return -1;
  }
  return 0;
}

/* Whole-model rules that need every class. */
static int check_model(loader *L, ts_model *m)
{
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    if (!k->forever)
      continue;
    for (size_t s = 0; s < k->nsteps; s++) {
      const ts_step *st = &k->steps[s];
      int actor_scoped = 0;
      if ((st->type == &ts_op_lock || st->type == &ts_op_unlock) && m->locks[st->ref].scope == TS_SCOPE_ACTOR)
        actor_scoped = 1;
      if ((st->type == &ts_op_wait || st->type == &ts_op_notify) && m->chans[st->ref].scope == TS_SCOPE_ACTOR)
        actor_scoped = 1;
      if (actor_scoped) {
        char path[64];
        snprintf(path, sizeof path, "classes[%zu].count", c);
        return ts_jfail(&L->c, path, L->e, "a class that arrives until the horizon cannot use actor-scoped locks or "
                        "channels (%s): give it a fixed count", st->where);
      }
    }
  }
  return 0;
}

/* `after` arrivals that come round to their own class: no actor of the
 * cycle ever arrives (the run would end at once with empty metrics).
 * Refused at the first class of the cycle, naming it whole. */
static int check_after_cycles(loader *L, const ts_model *m)
{
  for (size_t c = 0; c < m->nclasses; c++) {
    size_t k = c, steps = 0;
    while (m->classes[k].arrival.kind == TS_ARRIVE_AFTER && steps++ < m->nclasses) {
      k = (size_t)m->classes[k].arrival.after;
      if (k < c)
        break; /* a cycle through a class before c was refused there */
      if (k != c)
        continue;
      char cycle[400];
      size_t len = (size_t)snprintf(cycle, sizeof cycle, "%s", m->classes[c].name);
      k = c;
      do {
        k = (size_t)m->classes[k].arrival.after;
        if (len < sizeof cycle)
          len += (size_t)snprintf(cycle + len, sizeof cycle - len, " -> %s", m->classes[k].name);
      } while (k != c);
      char path[64];
      snprintf(path, sizeof path, "classes[%zu].arrival.after", c);
      return ts_jfail(&L->c, path, L->e, "the after arrivals form a cycle (%s): no actor of %s ever arrives; "
                      "one class of the cycle must arrive otherwise", cycle,
                      m->classes[c].arrival.after == (int)c ? "the class" : "these classes");
    }
  }
  return 0;
}

/* Every span a step reads the begin of is begun somewhere: a notify's
 * "carry" and a span_end from its begin name a span that a span_begin, a
 * repeat or a call begins (a typo would otherwise carry "now", or end
 * nothing, without a word). Refused at the step, with the nearest begun
 * span's name. */
static int check_spans(loader *L, const ts_model *m)
{
  unsigned char begun[64] = {0};
  for (size_t c = 0; c < m->nclasses; c++)
    for (size_t i = 0; i < m->classes[c].nsteps; i++) {
      const ts_step *st = &m->classes[c].steps[i];
      if (st->span >= 0 && st->span < 64 &&
          (st->type == &ts_op_span_begin || st->type == &ts_op_repeat || st->type == &ts_op_call))
        begun[st->span] = 1;
    }
  const char *names[65];
  size_t nb = 0;
  for (size_t s = 0; s < m->nspans && s < 64; s++)
    if (begun[s])
      names[nb++] = m->spans[s].name;
  names[nb] = NULL;
  for (size_t c = 0; c < m->nclasses; c++)
    for (size_t i = 0; i < m->classes[c].nsteps; i++) {
      const ts_step *st = &m->classes[c].steps[i];
      int reads = (st->type == &ts_op_notify && st->span >= 0) ||
                  (st->type == &ts_op_span_end && !st->from_notify && !st->from_arrival);
      if (!reads || st->span < 0 || st->span >= 64 || begun[st->span])
        continue;
      const char *name = m->spans[st->span].name, *near = ts_suggest(name, names);
      char path[600], hint[200];
      snprintf(path, sizeof path, "%s.%s", st->where, st->type == &ts_op_notify ? "carry" : "span");
      if (near)
        snprintf(hint, sizeof hint, "; did you mean \"%s\"?", near);
      else if (nb)
        snprintf(hint, sizeof hint, " (begun: %s%s)", names[0], nb > 1 ? ", ..." : "");
      else
        snprintf(hint, sizeof hint, " (no step begins a span)");
      ts_jctx top = {.file = L->c.file};
      return ts_jfail(&top, path, L->e, "no span_begin, repeat or call begins span \"%s\", so %s%s", name,
                      st->type == &ts_op_notify ? "the notify would carry its own time" : "it would record nothing",
                      hint);
    }
  return 0;
}

static void free_order(loader *L)
{
  for (size_t i = 0; L->order_where && i < 64 * 64; i++)
    free(L->order_where[i]);
  free(L->order_where);
}

int ts_model_from_json(const cJSON *root, const char *file, ts_model *m, ts_err *e)
{
  static const char *const keys[] = {"name", "description", "host", "worker", "pools", "dispatch", "locks",
                                     "channels", "counters", "servers", "classes", "params", "metrics", "free",
                                     "provenance", "notes", NULL};
  loader L = {.e = e, .m = m};
  L.c.file = file;
  memset(m, 0, sizeof *m);
  const char *name = "model";
  const cJSON *classes;
  if (!cJSON_IsObject(root))
    return ts_jfail_got(&L.c, NULL, root, e, "expected a model object");
  if (cJSON_GetObjectItemCaseSensitive(root, "model") && !cJSON_GetObjectItemCaseSensitive(root, "classes"))
    return ts_jfail(&L.c, NULL, e, "this is a scenario (it names a model in \"model\"), not a model: a scenario's "
                    "\"model\" names a model file, which has \"classes\" (e.g. models/zero-cache.json)");
  if (ts_jcheck_keys(&L.c, root, keys, e) || ts_jget_string(&L.c, root, "name", 0, &name, e) ||
      ts_jget_object(&L.c, root, "params", 0, &L.params, e))
    goto fail;
  if (!*name) /* optional: an empty one is none (explain's "model : fifo" read as a model named fifo) */
    name = "model";
  if (!(m->name = ts__ml_dup_or_fail(&L, name)) || load_params(&L, m))
    goto fail;
  if (ts__ml_load_host_dispatch(&L, m, root) || ts__ml_load_pools(&L, root) || ts__ml_load_locks(&L, root) ||
      ts_jget_array(&L.c, root, "classes", 1, &classes, e))
    goto fail;
  int n = 0;
  const cJSON *it;
  cJSON_ArrayForEach(it, classes) n++;
  if (n == 0) {
    ts_jfail(&L.c, "classes", e, "expected at least one actor class");
    goto fail;
  }
  if (n > 1000) {
    ts_jfail(&L.c, "classes", e, "at most 1000 classes");
    goto fail;
  }
  m->classes = calloc((size_t)n, sizeof *m->classes);
  if (!m->classes)
    goto fail;
  L.classes_json = classes;
  int i = 0;
  cJSON_ArrayForEach(it, classes)
  {
    size_t old = ts_jpush_key(&L.c, "classes");
    ts_jpush_index(&L.c, i);
    m->nclasses++;
    int bad = ts__ml_load_class(&L, it, i++);
    ts_jpop(&L.c, old);
    if (bad)
      goto fail;
  }
  if (ts__ml_load_metrics(&L, m, root) || check_model(&L, m) || check_after_cycles(&L, m) || check_spans(&L, m))
    goto fail;
  free_order(&L);
  return 0;
fail:
  free(L.steps);
  free_order(&L);
  ts_model_finish(m);
  return -1;
}

int ts_model_apply_set(cJSON *root, const char *file, const char *set, ts_err *e)
{
  const char *eq = strchr(set, '=');
  if (!eq || eq == set)
    return ts_err_set(e, file, "--set", "expected PATH=VALUE, got \"%s\"", set);
  char path[512];
  size_t n = (size_t)(eq - set);
  if (n >= sizeof path)
    return ts_err_set(e, file, "--set", "path too long");
  memcpy(path, set, n);
  path[n] = '\0';
  return ts_json_set_path(root, file, path, eq + 1, e);
}

int ts_model_inline_files(cJSON *root, const char *file, ts_err *e)
{
  cJSON *h = cJSON_GetObjectItemCaseSensitive(root, "host");
  cJSON *t = cJSON_IsObject(h) ? cJSON_GetObjectItemCaseSensitive(h, "cpu_scale_by_n") : NULL;
  if (!cJSON_IsObject(t) || !cJSON_GetObjectItemCaseSensitive(t, "baseline"))
    return 0;
  ts_model m;
  if (ts_model_from_json(root, file, &m, e))
    return -1;
  cJSON *ns = cJSON_CreateArray(), *vs = cJSON_CreateArray();
  int bad = !ns || !vs;
  for (size_t i = 0; !bad && i < m.nscale; i++) {
    cJSON *x = cJSON_CreateNumber(m.scale_n[i]);
    if (!x || !cJSON_AddItemToArray(ns, x)) {
      cJSON_Delete(x);
      bad = 1;
      break;
    }
    cJSON *v = cJSON_CreateNumber(m.scale_v[i]);
    if (!v || !cJSON_AddItemToArray(vs, v)) {
      cJSON_Delete(v);
      bad = 1;
    }
  }
  ts_model_finish(&m);
  if (bad || !cJSON_AddItemToObject(t, "n", ns)) {
    cJSON_Delete(ns);
    cJSON_Delete(vs);
    return ts_err_set(e, file, "host.cpu_scale_by_n", "out of memory");
  }
  if (!cJSON_AddItemToObject(t, "scale", vs)) {
    cJSON_Delete(vs);
    cJSON_DeleteItemFromObjectCaseSensitive(t, "n");
    return ts_err_set(e, file, "host.cpu_scale_by_n", "out of memory");
  }
  cJSON_DeleteItemFromObjectCaseSensitive(t, "baseline");
  cJSON_DeleteItemFromObjectCaseSensitive(t, "metric");
  return 0;
}

int ts_model_failing_set(const cJSON *root, const char *file, const char *const *sets, int nsets)
{
  int blame = -1, loads = 0; /* (whether sets[0..k) loads) */
  for (int k = 0; k <= nsets; k++) {
    cJSON *t = cJSON_Duplicate(root, 1);
    if (!t)
      return -1;
    ts_model m;
    ts_err e;
    int bad = 0;
    for (int i = 0; i < k && !bad; i++)
      bad = ts_model_apply_set(t, file, sets[i], &e) != 0;
    if (!bad && !(bad = ts_model_from_json(t, file, &m, &e) != 0))
      ts_model_finish(&m);
    cJSON_Delete(t);
    if (bad && (e.nomem || k == 0))
      return -1;
    if (bad && loads)
      blame = k - 1;
    loads = !bad;
  }
  return loads ? -1 : blame;
}

int ts_model_load(const char *path, const char *const *sets, int nsets, ts_model *m, cJSON **resolved, ts_err *e)
{
  cJSON *root;
  if (ts_json_load(path, &root, e))
    return -1;
  for (int i = 0; i < nsets; i++)
    if (ts_model_apply_set(root, path, sets[i], e)) {
      cJSON_Delete(root);
      return -1;
    }
  if (ts_model_from_json(root, path, m, e)) {
    cJSON_Delete(root);
    return -1;
  }
  if (resolved)
    *resolved = root;
  else
    cJSON_Delete(root);
  return 0;
}
