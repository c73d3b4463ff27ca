/* The ts_spec reader (model/spec.h) over cJSON: typed fields of the step
 * being loaded, and the names expressions may use. */
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "io/model_load.h"
#include "run/suggest.h"

int ts_spec_fail(ts_spec *sp, const char *key, const char *fmt, ...)
{
  char what[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return ts_jfail(&sp->L->c, key, sp->L->e, "%s", what);
}

/* Names an expression may use: $params, n, W, and (in steps) i, worker,
 * pool_size, now, arrived, the loops around the step, the counters, the
 * class's vars, waiters(CHANNEL[, index]) and version(CHANNEL[, index]). */
static int resolve(void *ctx, const char *name, ts_expr_var *var, double *constant)
{
  loader *L = ctx;
  if (name[0] == '$') {
    const cJSON *p = L->params ? cJSON_GetObjectItemCaseSensitive(L->params, name + 1) : NULL;
    if (!p || !cJSON_IsNumber(p))
      return 0;
    *constant = p->valuedouble;
    return 2;
  }
  static const struct {
    const char *name;
    int kind;
    int in_class;
  } builtins[] = {{"n", TS_VAR_N, 1},          {"W", TS_VAR_W, 1},          {"i", TS_VAR_INDEX, 1},
                  {"worker", TS_VAR_WORKER, 0}, {"pool_size", TS_VAR_POOL_SIZE, 0}, {"now", TS_VAR_NOW, 0},
                  {"arrived", TS_VAR_ARRIVED, 0}};
  for (size_t b = 0; b < sizeof builtins / sizeof *builtins; b++)
    if (strcmp(builtins[b].name, name) == 0 && (builtins[b].in_class || !L->class_expr) &&
        (builtins[b].kind != TS_VAR_INDEX || L->class_expr != TS_EXPR_COUNT)) {
      *var = (ts_expr_var){.kind = builtins[b].kind};
      if (builtins[b].kind == TS_VAR_N)
        L->m->reads_n = 1;
      return 1;
    }
  for (size_t l = 0; L->klass && L->class_expr != TS_EXPR_COUNT && l < L->klass->nlets; l++)
    if (strcmp(L->klass->let_names[l], name) == 0) {
      *var = (ts_expr_var){.kind = TS_VAR_LET, .index = (int)l};
      return 1;
    }
  if (L->class_expr)
    return 0;
  for (int d = L->depth - 1; d >= 0; d--)
    if (L->loop_name[d] && strcmp(L->loop_name[d], name) == 0) {
      *var = (ts_expr_var){.kind = TS_VAR_LOOP, .index = d};
      return 1;
    }
  for (size_t v = 0; L->klass && v < L->klass->nvars; v++)
    if (strcmp(L->klass->var_names[v], name) == 0) {
      *var = (ts_expr_var){.kind = TS_VAR_ACTOR, .index = (int)v};
      return 1;
    }
  /* waiters(CHANNEL), version(CHANNEL) or, indexed, waiters(CHANNEL,i), version(CHANNEL,i) */
  int fn = strncmp(name, "waiters(", 8) == 0 ? 8 : strncmp(name, "version(", 8) == 0 ? 8 : 0;
  for (size_t c = 0; fn && c < L->m->nchans; c++) {
    size_t n = strlen(L->m->chans[c].name);
    int indexed = L->m->chans[c].scope == TS_SCOPE_INDEXED;
    if (strncmp(name + fn, L->m->chans[c].name, n) == 0 && strcmp(name + fn + n, indexed ? ",i)" : ")") == 0) {
      *var = (ts_expr_var){.kind = name[0] == 'w' ? TS_VAR_WAITERS : TS_VAR_VERSION, .index = (int)c};
      return 1;
    }
  }
  for (size_t c = 0; c < L->m->ncounters; c++)
    if (strcmp(L->m->counters[c].name, name) == 0) {
      *var = (ts_expr_var){.kind = TS_VAR_COUNTER, .index = (int)c};
      return 1;
    }
  return 0;
}

/* "; did you mean $NAME?" for the parameter of L nearest to ref ("$x", or
 * "$x" followed by more: the name ends at the first character that cannot
 * be in one), else "", into buf (cap bytes). */
static const char *near_param(const loader *L, const char *ref, char *buf, size_t cap)
{
  char name[128];
  size_t n = 0;
  buf[0] = '\0';
  if (ref[0] != '$')
    return buf;
  while (n + 1 < sizeof name && ref[1 + n] && (isalnum((unsigned char)ref[1 + n]) || ref[1 + n] == '_'))
    n++;
  memcpy(name, ref + 1, n);
  name[n] = '\0';
  const char *near = ts_json_near_member(L->params, name);
  if (near)
    snprintf(buf, cap, "; did you mean $%s?", near);
  return buf;
}

/* The parameter an expression's "unknown name \"$x\" ..." error names when
 * params holds x but not as a number (resolve then refuses it), else NULL. */
static const cJSON *unusable_param(const loader *L, const char *err)
{
  static const char prefix[] = "unknown name \"$";
  if (!L->params || strncmp(err, prefix, sizeof prefix - 1) != 0)
    return NULL;
  const char *name = err + sizeof prefix - 1, *end = strchr(name, '"');
  for (const cJSON *p = L->params->child; p && end; p = p->next)
    if (p->string && strlen(p->string) == (size_t)(end - name) && strncmp(p->string, name, (size_t)(end - name)) == 0)
      return cJSON_IsNumber(p) ? NULL : p;
  return NULL;
}

int ts_load_expr(loader *L, const cJSON *obj, const char *key, int required, ts_expr **out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (!v)
    return required ? ts_jfail(&L->c, key, L->e, "missing (required)") : 0;
  char err[200];
  ts_expr *e;
  if (cJSON_IsNumber(v)) {
    if (!isfinite(v->valuedouble))
      return ts_jfail(&L->c, key, L->e, "expected a finite number");
    e = ts_expr_constant(v->valuedouble);
    snprintf(err, sizeof err, "out of memory");
  } else if (cJSON_IsString(v)) {
    e = ts_expr_compile(v->valuestring, resolve, L, err, sizeof err);
  } else {
    return ts_jfail_got(&L->c, key, v, L->e, "expected a number or an expression such as \"$x * 2\"");
  }
  if (!e) {
    const char *hint = L->class_expr == TS_EXPR_COUNT ? " (names: $params, n, W; not i or lets, which are per actor)"
                       : L->class_expr ? " (names: $params, n, W, i, the class's lets)"
                                     : " (names: $params, n, W, i, worker, pool_size, now, arrived, loop names, counters, lets)";
    char quoted[TS_EXPR_QUOTE];
    const cJSON *param = unusable_param(L, err);
    if (param)
      return ts_jfail_got(&L->c, key, param, L->e, "\"%s\": $%s names params.%s, which must be a number",
                          ts_expr_excerpt(v->valuestring, quoted, sizeof quoted), param->string, param->string);
    int unknown = strncmp(err, "unknown name", 12) == 0;
    char near[160];
    near_param(L, unknown ? err + sizeof "unknown name \"" - 1 : "", near, sizeof near);
    return ts_jfail(&L->c, key, L->e, "%s\"%s\": %s%s",
                    unknown ? "expected a number or an expression such as \"$x * 2\"; got " : "",
                    cJSON_IsString(v) ? ts_expr_excerpt(v->valuestring, quoted, sizeof quoted) : "", err,
                    near[0] ? near : unknown ? hint : "");
  }
  ts_expr_free(*out);
  *out = e;
  return 0;
}

const char *ts_load_string_param(loader *L, const char *key, const char *ref)
{
  const cJSON *p = L->params ? cJSON_GetObjectItemCaseSensitive(L->params, ref + 1) : NULL;
  if (!p) {
    char near[160];
    ts_jfail(&L->c, key, L->e, "refers to %s, which is not in params%s", ref, near_param(L, ref, near, sizeof near));
    return NULL;
  }
  if (!cJSON_IsString(p)) {
    ts_jfail_got(&L->c, key, p, L->e, "%s must be a string (it names something)", ref);
    return NULL;
  }
  return p->valuestring;
}

int ts_load_bad_name(loader *L, const cJSON *obj, const char *key, const char *what, const char *got,
                     const char *const *names)
{
  const cJSON *raw = cJSON_GetObjectItemCaseSensitive(obj, key);
  const char *ref = cJSON_IsString(raw) && raw->valuestring[0] == '$' && strcmp(raw->valuestring, got) != 0
                        ? raw->valuestring
                        : NULL;
  const char *near = ts_suggest(got, names);
  return ts_jfail(&L->c, key, L->e, "expected %s; got \"%s\"%s%s%s%s%s", what, got, ref ? " from " : "",
                  ref ? ref : "", near ? "; did you mean \"" : "", near ? near : "", near ? "\"?" : "");
}

/* Whether s is exactly "$name" (a parameter), not a longer expression. */
static int is_param_ref(const char *s)
{
  return s[0] == '$' && ts_expr_is_name(s + 1);
}

/* The range [lo, hi] as messages show it, into buf (64 bytes). */
static const char *range_text(char *buf, double lo, double hi, int integral)
{
  snprintf(buf, 64, integral ? "[%.0f, %.0f]" : "[%g, %g]", lo, hi);
  return buf;
}

/* A number (or "$param" naming one) in [lo, hi]; `integral` asks for an
 * integer. what names the kind in errors. Absent: 0 and *out unchanged. */
static int constant(ts_spec *sp, const char *key, int required, double lo, double hi, int integral,
                    const char *what, double *out)
{
  loader *L = sp->L;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(sp->st, key);
  char range[64]; /* written only for a message: a model loads thousands of constants */
  if (!v)
    return required ? ts_spec_fail(sp, key, "missing (required): %s in %s", what, range_text(range, lo, hi, integral))
                    : 0;
  if (cJSON_IsString(v) && is_param_ref(v->valuestring)) { /* "$param" alone (an expression starting with one is compiled below) */
    const cJSON *p = L->params ? cJSON_GetObjectItemCaseSensitive(L->params, v->valuestring + 1) : NULL;
    char near[160];
    if (!p)
      return ts_spec_fail(sp, key, "refers to %s, which is not in params%s", v->valuestring,
                          near_param(L, v->valuestring, near, sizeof near));
    if (!cJSON_IsNumber(p))
      return ts_jfail_got(&L->c, key, p, L->e, "%s must be %s in %s", v->valuestring, what,
                          range_text(range, lo, hi, integral));
    double d = p->valuedouble;
    if (!(d >= lo && d <= hi) || (integral && d != floor(d)))
      return ts_spec_fail(sp, key, "%s must be %s in %s, got %s", v->valuestring, what,
                          range_text(range, lo, hi, integral), TS_JNUM(d));
    *out = d;
    return 0;
  }
  double d;
  if (cJSON_IsString(v)) { /* an expression of $params, known at load time */
    char err[200];
    int was = L->class_expr;
    L->class_expr = TS_EXPR_COUNT;
    ts_expr *e = ts_expr_compile(v->valuestring, resolve, L, err, sizeof err);
    L->class_expr = was;
    char quoted[TS_EXPR_QUOTE];
    if (!e)
      return ts_spec_fail(sp, key, "expected %s in %s, \"$param\" or an expression of $params; \"%s\": %s", what,
                          range_text(range, lo, hi, integral), ts_expr_excerpt(v->valuestring, quoted, sizeof quoted),
                          err);
    int known = ts_expr_is_constant(e, &d);
    const char *why = known ? NULL : ts__ml_not_constant_why(e);
    ts_expr_free(e);
    if (!known)
      return ts_spec_fail(sp, key, "\"%s\" reads %s, which is not known when the model loads: expected %s in %s "
                          "known at load time (numbers and $params only)",
                          ts_expr_excerpt(v->valuestring, quoted, sizeof quoted), why, what,
                          range_text(range, lo, hi, integral));
    char num[TS_EXPR_NUM];
    if (!(d >= lo && d <= hi) || (integral && d != floor(d)))
      return ts_spec_fail(sp, key, "\"%s\" is %s: expected %s in %s",
                          ts_expr_excerpt(v->valuestring, quoted, sizeof quoted), ts_expr_value_text(num, sizeof num, d, ""),
                          what, range_text(range, lo, hi, integral));
    *out = d;
    return 0;
  }
  if (!cJSON_IsNumber(v))
    return ts_jfail_got(&L->c, key, v, L->e, "expected %s in %s, \"$param\" or an expression of $params", what,
                        range_text(range, lo, hi, integral));
  d = v->valuedouble;
  if (!(d >= lo && d <= hi))
    return ts_spec_fail(sp, key, "expected %s in %s, got %s", integral ? "an integer" : "a number",
                        range_text(range, lo, hi, integral), TS_JNUM(d));
  if (integral && d != floor(d))
    return ts_spec_fail(sp, key, "expected an integer in %s, got %s", range_text(range, lo, hi, integral), TS_JNUM(d));
  *out = d;
  return 0;
}

int ts_spec_time(ts_spec *sp, const char *key, int required, ts_time *out)
{
  double ms = -1;
  if (constant(sp, key, required, 0, TS_MAX_MS, 0, "a number of ms", &ms))
    return -1;
  if (ms >= 0)
    *out = ts_time_from_ms(ms);
  return 0;
}

int ts_spec_int(ts_spec *sp, const char *key, int required, long lo, long hi, int64_t *out)
{
  double v = (double)lo - 1;
  if (constant(sp, key, required, (double)lo, (double)hi, 1, "an integer", &v))
    return -1;
  if (v >= (double)lo)
    *out = (int64_t)v;
  return 0;
}

int ts_spec_number(ts_spec *sp, const char *key, int required, double lo, double hi, double *out)
{
  return constant(sp, key, required, lo, hi, 0, "a number", out);
}

/* The samples of an empirical duration (ms), divided by their mean into
 * out->emp; out->mean is their mean unless "ms" gives it. */
static int load_samples(ts_spec *sp, ts_dist *out)
{
  loader *L = sp->L;
  const cJSON *arr = NULL, *it;
  if (ts_jget_array(&L->c, sp->st, "samples", 1, &arr, L->e))
    return -1;
  int n = cJSON_GetArraySize(arr);
  if (n < 1 || n > 100000)
    return ts_spec_fail(sp, "samples", "expected 1 to 100,000 durations in ms, got %d", n);
  out->emp = malloc((size_t)n * sizeof *out->emp);
  if (!out->emp)
    return ts_spec_fail(sp, "samples", "out of memory");
  double sum = 0;
  int i = 0;
  cJSON_ArrayForEach(it, arr)
  {
    if (!cJSON_IsNumber(it) || !(it->valuedouble >= 0 && it->valuedouble <= TS_MAX_MS)) {
      size_t old = ts_jpush_key(&L->c, "samples");
      ts_jpush_index(&L->c, i);
      if (cJSON_IsNumber(it))
        ts_jfail(&L->c, NULL, L->e, "expected a duration in ms in [0, %g], got %s", TS_MAX_MS,
                 TS_JNUM(it->valuedouble));
      else
        ts_jfail_got(&L->c, NULL, it, L->e, "expected a duration in ms in [0, %g]", TS_MAX_MS);
      ts_jpop(&L->c, old);
      return -1;
    }
    out->emp[i++] = it->valuedouble;
    sum += it->valuedouble;
  }
  out->nemp = (size_t)n;
  if (!(sum > 0))
    return ts_spec_fail(sp, "samples", "expected at least one duration above 0");
  double mean = sum / n;
  out->emp_max = 0;
  for (i = 0; i < n; i++) {
    out->emp[i] /= mean;
    if (out->emp[i] > out->emp_max)
      out->emp_max = out->emp[i];
  }
  out->mean = ts_time_from_ms(mean);
  return 0;
}

static int spec_dist(ts_spec *sp, const char *key, int required, ts_dist *out)
{
  static const char *const kinds[] = {"fixed", "exponential", "lognormal", "gamma", "uniform", "empirical", NULL};
  static const char *const bys[] = {"mean", "median", NULL};
  int shaped = strcmp(key, "ms") == 0, kind = 0, by = 0;
  double cv = 0;
  if (shaped && (ts_spec_enum(sp, "dist", 0, kinds, &kind) || ts_spec_number(sp, "cv", 0, 0, 10, &cv) ||
                 ts_spec_enum(sp, "by", 0, bys, &by)))
    return -1;
  out->kind = (ts_dist_kind)kind;
  out->cv = cv;
  if (kind == TS_DIST_UNIFORM) {
    if (ts_spec_time(sp, "min_ms", 1, &out->lo) || ts_spec_time(sp, "max_ms", 1, &out->hi))
      return -1;
    if (out->hi < out->lo)
      return ts_spec_fail(sp, "max_ms", "expected max_ms >= min_ms");
    if (ts_spec_has(sp, key))
      return ts_spec_fail(sp, key, "a uniform duration is given by min_ms and max_ms, not ms");
    if (ts_spec_has(sp, "by"))
      return ts_spec_fail(sp, "by", "not for \"dist\": \"uniform\" (given by min_ms and max_ms)");
    out->mean = (out->lo + out->hi) / 2;
    return 0;
  }
  if (shaped && (ts_spec_has(sp, "min_ms") || ts_spec_has(sp, "max_ms")))
    return ts_spec_fail(sp, ts_spec_has(sp, "min_ms") ? "min_ms" : "max_ms", "only for \"dist\": \"uniform\"");
  const cJSON *samples = cJSON_GetObjectItemCaseSensitive(sp->st, "samples");
  if (shaped && samples && !cJSON_IsNull(samples) && kind != TS_DIST_EMPIRICAL) /* (--set ...samples=null drops them) */
    return ts_spec_fail(sp, "samples", "only for \"dist\": \"empirical\"");
  if (kind == TS_DIST_EMPIRICAL) {
    if (ts_spec_has(sp, "cv"))
      return ts_spec_fail(sp, "cv", "not for \"dist\": \"empirical\" (its samples give its shape)");
    if (load_samples(sp, out))
      return -1;
    if (!ts_spec_has(sp, key)) /* the samples as they are */
      return 0;
    required = 1;
  }
  double to_mean = by ? ts_dist_mean_per_median(out->kind, cv, out->emp, out->nemp) : 1;
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(sp->st, key);
  double c = -1;
  if (v && cJSON_IsString(v) && !is_param_ref(v->valuestring)) {
    ts_expr *e = NULL;
    if (ts_load_expr(sp->L, sp->st, key, 1, &e))
      return -1;
    if (!ts_expr_is_constant(e, &c)) {
      out->mean_ms = e;
      out->to_mean = by ? to_mean : 0;
      return 0;
    }
    ts_expr_free(e);
    char num[TS_EXPR_NUM];
    if (!(c >= 0 && c <= TS_MAX_MS))
      return ts_spec_fail(sp, key, "\"%s\" is %s: expected a number in [0, %g]", v->valuestring,
                          ts_expr_value_text(num, sizeof num, c, " ms"), TS_MAX_MS);
  } else {
    ts_time t = -1;
    if (ts_spec_time(sp, key, required, &t))
      return -1;
    if (t < 0 || !by) {
      if (t >= 0)
        out->mean = t;
      return 0;
    }
    c = ts_time_to_ms(t);
  }
  if (by && !(c * to_mean <= TS_MAX_MS))
    return ts_spec_fail(sp, key, "a median of %g ms gives a mean of %g ms: expected at most %g", c, c * to_mean,
                        TS_MAX_MS);
  out->mean = ts_time_from_ms(c * to_mean);
  return 0;
}

int ts_spec_dist(ts_spec *sp, const char *key, int required, ts_dist *out)
{
  if (spec_dist(sp, key, required, out))
    return -1;
  ts_dist_prepare(out);
  return 0;
}

int ts_spec_dist_object(ts_spec *sp, const char *key, ts_dist *out, int *given)
{
  static const char *const keys[] = {"ms", "dist", "cv", "min_ms", "max_ms", "note", NULL};
  loader *L = sp->L;
  const cJSON *o = cJSON_GetObjectItemCaseSensitive(sp->st, key);
  *given = 0;
  if (!o)
    return 0;
  if (!cJSON_IsObject(o))
    return ts_jfail_got(&L->c, key, o, L->e, "expected a duration object such as {\"ms\": 5, \"dist\": \"exponential\"}");
  size_t old = ts_jpush_key(&L->c, key);
  ts_spec sub = {.L = L, .st = o, .dyn = sp->dyn};
  const cJSON *dist = cJSON_GetObjectItemCaseSensitive(o, "dist");
  int bad = ts_jcheck_keys(&L->c, o, keys, L->e);
  if (!bad && cJSON_IsString(dist) && strcmp(dist->valuestring, "empirical") == 0) /* it takes no samples */
    bad = ts_jfail(&L->c, "dist", L->e, "expected fixed, exponential, lognormal, gamma or uniform: a duration "
                   "object takes no \"samples\", so not \"empirical\"") != 0;
  bad = bad || ts_spec_dist(&sub, "ms", 1, out);
  ts_jpop(&L->c, old);
  *given = !bad;
  return bad ? -1 : 0;
}

int ts_spec_bool(ts_spec *sp, const char *key, int required, int *out)
{
  return ts_jget_bool(&sp->L->c, sp->st, key, required, out, sp->L->e);
}

int ts_spec_bool_or(ts_spec *sp, const char *key, const char *word, int *out)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(sp->st, key);
  if (v && cJSON_IsString(v) && strcmp(v->valuestring, word) == 0) {
    *out = 2;
    return 0;
  }
  if (v && !cJSON_IsBool(v))
    return cJSON_IsString(v) ? ts_spec_fail(sp, key, "expected true, false or \"%s\", got \"%s\"", word, v->valuestring)
                             : ts_jfail_got(&sp->L->c, key, v, sp->L->e, "expected true, false or \"%s\"", word);
  return ts_spec_bool(sp, key, 0, out);
}

int ts_spec_string(ts_spec *sp, const char *key, int required, const char **out)
{
  const char *s = NULL;
  if (ts_jget_string(&sp->L->c, sp->st, key, required, &s, sp->L->e))
    return -1;
  if (s && s[0] == '$') {
    s = ts_load_string_param(sp->L, key, s);
    if (!s)
      return -1;
  }
  if (s)
    *out = s;
  return 0;
}

int ts_spec_enum(ts_spec *sp, const char *key, int required, const char *const *names, int *out)
{
  const char *s = NULL;
  if (ts_spec_string(sp, key, required, &s))
    return -1;
  if (!s)
    return 0;
  char list[300] = "";
  for (int i = 0; names[i]; i++) {
    if (strcmp(names[i], s) == 0) {
      *out = i;
      return 0;
    }
    size_t l = strlen(list);
    snprintf(list + l, sizeof list - l, "%s\"%s\"", i ? ", " : "", names[i]);
  }
  char what[320];
  snprintf(what, sizeof what, "one of %s", list);
  return ts_load_bad_name(sp->L, sp->st, key, what, s, names);
}

int ts_spec_expr(ts_spec *sp, const char *key, int required, ts_expr **out)
{
  return ts_load_expr(sp->L, sp->st, key, required, out);
}

int ts_spec_ref(ts_spec *sp, const char *key, int required, ts_ref_kind kind, int *out)
{
  static const char *const what[] = {"lock", "channel", "server", "counter", "span", "pool", "variable"};
  static const char *const where[] = {"locks", "channels", "servers", "counters", "spans", "pools", "the class's vars"};
  const ts_model *m = sp->L->m;
  const char *name = NULL;
  if (ts_spec_string(sp, key, required, &name))
    return -1;
  if (!name)
    return 0;
  size_t n = 0;
  const char *names[65]; /* the first 64, for a suggestion */
  size_t nnames = 0;
  for (size_t i = 0;; i++) {
    const char *have = NULL;
    switch (kind) {
    case TS_REF_LOCK: n = m->nlocks; have = i < n ? m->locks[i].name : NULL; break;
    case TS_REF_CHANNEL: n = m->nchans; have = i < n ? m->chans[i].name : NULL; break;
    case TS_REF_SERVER: n = m->nservers; have = i < n ? m->servers[i].name : NULL; break;
    case TS_REF_COUNTER: n = m->ncounters; have = i < n ? m->counters[i].name : NULL; break;
    case TS_REF_SPAN: n = m->nspans; have = i < n ? m->spans[i].name : NULL; break;
    case TS_REF_POOL: n = m->npools; have = i < n ? m->pools[i].name : NULL; break;
    case TS_REF_VAR:
      n = sp->L->klass ? sp->L->klass->nvars : 0;
      have = i < n ? sp->L->klass->var_names[i] : NULL;
      break;
    }
    if (!have)
      break;
    if (strcmp(have, name) == 0) {
      *out = (int)i;
      return 0;
    }
    if (nnames < 64)
      names[nnames++] = have;
  }
  names[nnames] = NULL;
  const char *near = ts_suggest(name, names);
  if (near)
    return ts_spec_fail(sp, key, "no %s named \"%s\" in %s; did you mean \"%s\"?", what[kind], name, where[kind],
                        near);
  return ts_spec_fail(sp, key, "no %s named \"%s\" in %s", what[kind], name, where[kind]);
}

int ts_spec_site(ts_spec *sp, const char *key, int lock, int *out)
{
  ts_model *m = sp->L->m;
  const char *name = NULL;
  if (ts_spec_string(sp, key, 1, &name))
    return -1;
  if (!*name || !islower((unsigned char)name[0]) ||
      strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(name) || strlen(name) > 30)
    return ts_spec_fail(sp, key, "expected a site name of lower-case letters, digits and '_', a letter first, at most "
                        "30 (it names metric columns)");
  const char *lk = m->locks[lock].name;
  if (m->locks[lock].kind != TS_LOCK_MUTEX)
    return ts_spec_fail(sp, key, "lock \"%s\" is not a mutex: a site attributes mutex contention", lk);
  if (!islower((unsigned char)lk[0]) || strspn(lk, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(lk) ||
      strlen(lk) > 30)
    return ts_spec_fail(sp, key, "mutex \"%s\" has sites, so it names metric columns: expected a lock name of "
                        "lower-case letters, digits and '_', a letter first, at most 30", lk);
  for (size_t i = 0; i < m->nsites; i++)
    if (m->sites[i].lock == lock && strcmp(m->sites[i].name, name) == 0) {
      *out = (int)i;
      return 0;
    }
  if (m->nsites >= 256)
    return ts_spec_fail(sp, key, "at most 256 sites");
  ts_site_decl *v = realloc(m->sites, (m->nsites + 1) * sizeof *v);
  if (!v)
    return ts_spec_fail(sp, key, "out of memory");
  m->sites = v;
  v[m->nsites] = (ts_site_decl){.name = strdup(name), .lock = lock};
  if (!v[m->nsites].name)
    return ts_spec_fail(sp, key, "out of memory");
  *out = (int)m->nsites++;
  return 0;
}

int ts_spec_span(ts_spec *sp, const char *key, int required, int *out)
{
  ts_model *m = sp->L->m;
  const char *name = NULL;
  if (ts_spec_string(sp, key, required, &name))
    return -1;
  if (!name)
    return 0;
  if (!*name || strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != strlen(name))
    return ts_spec_fail(sp, key, "expected a span name of letters, digits and '_' (it names metric columns)");
  for (size_t i = 0; i < m->nspans; i++)
    if (strcmp(m->spans[i].name, name) == 0) {
      *out = (int)i;
      return 0;
    }
  if (m->nspans >= 64)
    return ts_spec_fail(sp, key, "at most 64 spans");
  ts_span_decl *v = realloc(m->spans, (m->nspans + 1) * sizeof *v);
  if (!v)
    return ts_spec_fail(sp, key, "out of memory");
  m->spans = v;
  v[m->nspans].name = strdup(name);
  v[m->nspans].sampled = 0;
  if (!v[m->nspans].name)
    return ts_spec_fail(sp, key, "out of memory");
  *out = (int)m->nspans++;
  return 0;
}

void ts_spec_span_sampled(ts_spec *sp, int span)
{
  sp->L->m->spans[span].sampled = 1;
}

int ts_spec_has(ts_spec *sp, const char *key)
{
  return cJSON_GetObjectItemCaseSensitive(sp->st, key) != NULL;
}

const ts_model *ts_spec_model(ts_spec *sp)
{
  return sp->L->m;
}

const char *ts__ml_not_constant_why(const ts_expr *e)
{
  static const struct {
    int kind;
    const char *why;
  } names[] = {{TS_VAR_N, "n, the sweep's n"},
               {TS_VAR_W, "W, the workers of the main pool"},
               {TS_VAR_INDEX, "i, the actor's index"},
               {TS_VAR_LET, "a let of the class"}};
  for (size_t k = 0; k < sizeof names / sizeof *names; k++)
    if (ts_expr_uses(e, names[k].kind))
      return names[k].why;
  return "a name known only while running";
}
