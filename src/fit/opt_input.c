/* The options of `tssim optimize` that name what to search and what to
 * respect: --field, --choice, --constraint, checked against the model
 * before anything runs. */
#include "fit/optimize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void ts_opt_field_finish(ts_opt_field *f)
{
  if (f)
    free(f->path);
}

void ts_opt_choice_finish(ts_opt_choice *c)
{
  if (!c)
    return;
  for (size_t i = 0; c->values && i < c->nvalues; i++)
    free(c->values[i]);
  free(c->values);
  free(c->path);
  memset(c, 0, sizeof *c);
}

void ts_opt_constraint_finish(ts_opt_constraint *c)
{
  if (!c)
    return;
  free(c->text);
  ts_explore_metric_finish(&c->metric);
  ts_expr_free(c->limit);
  memset(c, 0, sizeof *c);
}

/* Whether x's model takes set at combination 0; else why, into why. */
static int takes(const ts_explore *x, const ts_explore_set *set, ts_err *why)
{
  ts_explore_variant v = {set, 1, NULL};
  ts_model m;
  if (ts_explore_model(x, &v, 0, &m, why))
    return 0;
  ts_model_finish(&m);
  return 1;
}

/* Split "PATH=REST" at its first '=' into path (size cap); REST or NULL. */
static const char *split_eq(const char *arg, char *path, size_t cap)
{
  const char *eq = strchr(arg, '=');
  if (!eq || eq == arg || (size_t)(eq - arg) >= cap)
    return NULL;
  snprintf(path, cap, "%.*s", (int)(eq - arg), arg);
  return eq + 1;
}

int ts_opt_field_parse(const char *arg, const ts_explore *x, ts_opt_field *f, ts_err *e)
{
  char path[512], *end;
  memset(f, 0, sizeof *f);
  const char *rest = split_eq(arg, path, sizeof path);
  double lo = rest ? strtod(rest, &end) : NAN, hi = NAN;
  if (rest && end != rest && *end == ':') {
    const char *h = end + 1;
    hi = strtod(h, &end);
    if (end == h || *end)
      hi = NAN;
  }
  if (!isfinite(lo) || !isfinite(hi))
    return ts_err_set(e, "--field", NULL, "expected PATH=LO:HI, e.g. worker.threshold_ms=1:200, got \"%s\"", arg);
  if (!(lo < hi))
    return ts_err_set(e, "--field", NULL, "%s: expected LO < HI, got %g:%g", path, lo, hi);
  if (ts_explore_check_path(x->tree, x->sc, "--field", path, e))
    return -1;
  static const char *const what[] = {"its lower bound", "its upper bound", "a value between its bounds"};
  double at[] = {lo, hi, lo + 0.381966011250105 * (hi - lo)};
  for (int k = 0; k < 3; k++) {
    ts_explore_set set = {path, at[k], NULL};
    ts_err why;
    if (takes(x, &set, &why))
      continue;
    int ints = k == 2 && lo == floor(lo) && hi == floor(hi);
    return ts_err_set(e, "--field", NULL, "%s: the model rejects %.7g (%s): %s%s", path, at[k], what[k], why.msg,
                      ints ? " (for a field that takes integers, list them: --choice PATH=1,2,3)" : "");
  }
  f->path = strdup(path);
  f->lo = lo;
  f->hi = hi;
  return f->path ? 0 : ts_err_set(e, "--field", NULL, "out of memory");
}

int ts_opt_choice_parse(const char *arg, const ts_explore *x, ts_opt_choice *c, ts_err *e)
{
  char path[512], buf[4096];
  memset(c, 0, sizeof *c);
  const char *rest = split_eq(arg, path, sizeof path);
  if (!rest || !*rest)
    return ts_err_set(e, "--choice", NULL, "expected PATH=V1,V2,..., e.g. worker.policy=fifo,shortest_first, got "
                      "\"%s\"", arg);
  if (snprintf(buf, sizeof buf, "%s", rest) >= (int)sizeof buf)
    return ts_err_set(e, "--choice", NULL, "%s: list too long", path);
  if (ts_explore_check_path(x->tree, x->sc, "--choice", path, e))
    return -1;
  c->path = strdup(path);
  c->values = calloc(strlen(rest) / 2 + 2, sizeof *c->values);
  if (!c->path || !c->values) {
    ts_opt_choice_finish(c);
    return ts_err_set(e, "--choice", NULL, "out of memory");
  }
  for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
    for (size_t i = 0; i < c->nvalues; i++)
      if (strcmp(c->values[i], tok) == 0) {
        ts_opt_choice_finish(c);
        return ts_err_set(e, "--choice", NULL, "%s: %s is listed twice", path, tok);
      }
    ts_explore_set set = {path, 0, tok};
    ts_err why;
    if (!takes(x, &set, &why)) {
      ts_opt_choice_finish(c);
      return ts_err_set(e, "--choice", NULL, "%s: the model rejects %s: %s", path, tok, why.msg);
    }
    if (!(c->values[c->nvalues++] = strdup(tok))) {
      ts_opt_choice_finish(c);
      return ts_err_set(e, "--choice", NULL, "out of memory");
    }
  }
  if (c->nvalues < 2) {
    ts_opt_choice_finish(c);
    return ts_err_set(e, "--choice", NULL, "%s: expected at least two values to choose from, got \"%s\"", path,
                      rest);
  }
  return 0;
}

static int resolve_baseline(void *ctx, const char *name, ts_expr_var *var, double *constant)
{
  (void)ctx;
  (void)constant;
  if (strcmp(name, "baseline") != 0)
    return 0;
  *var = (ts_expr_var){.kind = 0};
  return 1;
}

/* Trim spaces at both ends of s in place; returns its start. */
static char *trim(char *s)
{
  while (*s == ' ')
    s++;
  size_t n = strlen(s);
  while (n > 0 && s[n - 1] == ' ')
    s[--n] = '\0';
  return s;
}

int ts_opt_constraint_parse(const char *arg, const ts_model *m, const ts_explore *x, ts_opt_constraint *c,
                            ts_err *e)
{
  static const char *const ops[] = {"<=", "<", ">=", ">"};
  char buf[1024];
  memset(c, 0, sizeof *c);
  if (snprintf(buf, sizeof buf, "%s", arg) >= (int)sizeof buf)
    return ts_err_set(e, "--constraint", NULL, "too long");
  char *at = strpbrk(buf, "<>");
  if (!at)
    return ts_err_set(e, "--constraint", NULL, "expected \"METRIC OP LIMIT\" with OP one of <=, <, >=, >, e.g. "
                      "\"wave_ms@big <= 1.05 * baseline\", got \"%s\"", arg);
  int op = 0;
  while (strncmp(at, ops[op], strlen(ops[op])) != 0)
    op++;
  const char *from = at, *to = at; /* the whole operator as written: "=>" is not ">" after a metric "x =" */
  while (from > buf && strchr("=!<>", from[-1]))
    from--;
  while (*to && strchr("=!<>", *to))
    to++;
  if ((size_t)(to - from) != strlen(ops[op]) || from != at)
    return ts_err_set(e, "--constraint", NULL, "\"%s\": unknown operator \"%.*s\": expected one of <=, <, >=, >, e.g. "
                      "\"wave_ms@big <= 1.05 * baseline\"", arg, (int)(to - from), from);
  char *rhs = at + strlen(ops[op]);
  *at = '\0';
  char *metric = trim(buf);
  rhs = trim(rhs);
  if (!*metric || !*rhs)
    return ts_err_set(e, "--constraint", NULL, "expected \"METRIC OP LIMIT\", e.g. \"wave_ms@big <= 1.05 * "
                      "baseline\", got \"%s\"", arg);
  char why[200];
  if (ts_explore_metric_parse_at(metric, m, x, "--constraint", &c->metric, e))
    return -1;
  c->limit = ts_expr_compile(rhs, resolve_baseline, NULL, why, sizeof why);
  c->text = strdup(arg);
  c->op = op;
  if (!c->limit || !c->text) {
    ts_opt_constraint_finish(c);
    return ts_err_set(e, "--constraint", NULL, "\"%s\": the limit %s: %s (a number, or an expression of numbers "
                      "and baseline, the metric under the scenario's own setting)", arg, rhs, why);
  }
  return 0;
}

size_t ts_opt_grid_size(const ts_opt_spec *spec)
{
  size_t arms = 1;
  for (size_t j = 0; j < spec->nchoices; j++)
    arms *= spec->choices[j].nvalues;
  size_t g = spec->nfields == 0 ? 1 : spec->nfields == 1 ? (size_t)spec->grid
                                                          : (size_t)spec->grid * spec->nfields;
  if (spec->nfields == 0 && spec->nobjectives == 1 && arms > TS_OPT_HALVING_ABOVE)
    return arms; /* successive halving: every combination once at R */
  return arms * g;
}
