/* The model loader's small shared helpers: names and identifiers, copies
 * that record "out of memory", and the typed fields (enums, times,
 * class-level expressions and counts) that the classes, declarations, host
 * and metrics read the same way. Each records its error with the JSON path
 * of L's cursor. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "io/model_json.h"
#include "io/model_load.h"

char *ts__ml_dup_or_fail(loader *L, const char *s)
{
  char *d = strdup(s);
  if (!d)
    ts_jfail(&L->c, NULL, L->e, "out of memory");
  return d;
}

/* An expression name: [A-Za-z_][A-Za-z0-9_]*, not a built-in. */
int ts__ml_is_identifier(const char *s)
{
  static const char *const builtins[] = {"i", "n", "W", "worker", "pool_size", "now", "arrived", NULL};
  if (strlen(s) > 60 || !ts_expr_is_name(s))
    return 0;
  for (int b = 0; builtins[b]; b++)
    if (strcmp(builtins[b], s) == 0)
      return 0;
  return 1;
}

int ts__ml_name_clash(loader *L, const char *key, const char *name, const char *as)
{
  const ts_class *k = L->klass;
  int ci = k ? (int)(k - L->m->classes) : -1;
  char where[600];
  const char *other = NULL;
  for (size_t l = 0; k && !other && l < k->nlets; l++)
    if (strcmp(k->let_names[l], name) == 0) {
      snprintf(where, sizeof where, "classes[%d].let.%s", ci, name);
      other = "a let of the class";
    }
  for (size_t v = 0; k && !other && v < k->nvars; v++)
    if (strcmp(k->var_names[v], name) == 0) {
      snprintf(where, sizeof where, "classes[%d].vars.%s", ci, name);
      other = "one of the class's vars";
    }
  for (int d = L->depth - 1; !other && d >= 0; d--)
    if (L->loop_name[d] && strcmp(L->loop_name[d], name) == 0) {
      snprintf(where, sizeof where, "%s", L->steps[L->loop_step[d]].where);
      other = "the name of an enclosing repeat";
    }
  for (size_t c = 0; !other && c < L->m->ncounters; c++)
    if (strcmp(L->m->counters[c].name, name) == 0) {
      snprintf(where, sizeof where, "counters[%zu]", c);
      other = "a counter";
    }
  if (!other)
    return 0;
  return ts_jfail(&L->c, key, L->e, "\"%s\" is both %s and %s (%s): a name means one thing in expressions; rename "
                  "one", name, as, other, where);
}

/* A name: letters, digits, '-', '_', '.'; not empty. */
int ts__ml_check_name(loader *L, const char *key, const char *name)
{
  if (!*name || strlen(name) > 100 ||
      strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.") != strlen(name))
    return ts_jfail(&L->c, key, L->e, "expected a name of 1 to 100 letters, digits, '-', '_' or '.', got \"%s\"", name);
  return 0;
}

/* A field of a declaration read through the ts_spec getters. */
ts_spec ts__ml_spec_of(loader *L, const cJSON *obj)
{
  return (ts_spec){.L = L, .st = obj};
}

int ts__ml_enum_field(loader *L, const cJSON *obj, const char *key, const char *const *names, int *out)
{
  ts_spec sp = ts__ml_spec_of(L, obj);
  return ts_spec_enum(&sp, key, 0, names, out);
}

int ts__ml_time_field(loader *L, const cJSON *obj, const char *key, ts_time *out)
{
  ts_spec sp = ts__ml_spec_of(L, obj);
  return ts_spec_time(&sp, key, 0, out);
}

int ts__ml_class_expr(loader *L, const cJSON *obj, const char *key, int required, ts_expr **out)
{
  L->class_expr = 1;
  int r = ts_load_expr(L, obj, key, required, out);
  L->class_expr = 0;
  return r;
}

int ts__ml_check_count(loader *L, const cJSON *obj, const char *key, const ts_expr *e, double lo, double hi)
{
  double v;
  if (!ts_expr_is_constant(e, &v) || ((v >= lo && v <= hi) && v == floor(v)))
    return 0;
  if (cJSON_IsNumber(cJSON_GetObjectItemCaseSensitive(obj, key)))
    return ts_jfail(&L->c, key, L->e, "expected an integer in [%.15g, %.15g], got %s", lo, hi, TS_JNUM(v));
  char quoted[TS_EXPR_QUOTE], num[TS_EXPR_NUM];
  return ts_jfail(&L->c, key, L->e, "\"%s\" is %s: expected an integer in [%.15g, %.15g]",
                  ts_expr_excerpt(ts_expr_text(e), quoted, sizeof quoted), ts_expr_value_text(num, sizeof num, v, ""), lo,
                  hi);
}

/* A count (of a class's actors or a pool's workers): made before any actor,
 * so only $params, n and W; one known at load time must be an integer in
 * [lo, hi] then (else it is checked at each sweep point). */
int ts__ml_count_expr(loader *L, const cJSON *obj, double lo, double hi, ts_expr **out)
{
  L->class_expr = TS_EXPR_COUNT;
  int r = ts_load_expr(L, obj, "count", 1, out);
  L->class_expr = 0;
  return r ? r : ts__ml_check_count(L, obj, "count", *out, lo, hi);
}

