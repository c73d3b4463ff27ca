/* Model-defined metrics ("metrics": {NAME: ...}): a span's statistic, a
 * statistic over actors, or an expression of other metrics, each checked
 * against the built-in metric names and the programs' spans. */
#include <stdlib.h>
#include <string.h>

#include "io/model_load.h"
#include "run/suggest.h"
#include "run/metrics.h"

static int load_metric(loader *L, ts_model *m, const cJSON *jm)
{
  static const char *const keys[] = {"span", "actor", "stat", "expr", "per", "meaning", "note", NULL};
  static const char *const pers[] = {"pooled", "replication", NULL};
  static const char *const actor_stats[] = {"median", "p95", "mean", "p99", "max", "p5", "min", NULL};
  ts_metric_spec *d = &m->metrics[m->nmetrics];
  const char *span = NULL, *stat = "p50", *expr = NULL, *meaning = "", *actor = NULL;
  int per = -1;
  size_t old = ts_jpush_key(&L->c, jm->string);
  int bad = !cJSON_IsObject(jm)
                ? ts_jfail_got(&L->c, NULL, jm, L->e, "expected {\"span\": NAME, \"stat\": ...} or {\"expr\": ...}")
                : ts_jcheck_keys(&L->c, jm, keys, L->e) || ts_jget_string(&L->c, jm, "span", 0, &span, L->e) ||
                      ts_jget_string(&L->c, jm, "stat", 0, &stat, L->e) ||
                      ts_jget_string(&L->c, jm, "expr", 0, &expr, L->e) ||
                      ts_jget_string(&L->c, jm, "actor", 0, &actor, L->e) ||
                      ts_jget_string(&L->c, jm, "meaning", 0, &meaning, L->e) ||
                      ts__ml_enum_field(L, jm, "per", pers, &per);
  if (!bad && (!!span + !!expr + !!actor) != 1)
    bad = ts_jfail(&L->c, NULL, L->e, "expected exactly one of \"span\", \"actor\" and \"expr\"");
  if (!bad && actor) {
    d->kind = TS_MDEF_ACTOR;
    d->stat = -1;
    for (int k = 0; actor_stats[k]; k++)
      if (strcmp(actor_stats[k], strcmp(stat, "p50") == 0 ? "median" : stat) == 0)
        d->stat = k;
    if (d->stat < 0)
      bad = ts_jfail(&L->c, "stat", L->e, "expected median, p5, p95, p99, mean, min or max; got \"%s\"", stat);
    else if (!(d->actor = strdup(actor)))
      bad = ts_jfail(&L->c, NULL, L->e, "out of memory");
  }
  if (!bad && span) {
    d->kind = TS_MDEF_SPAN;
    d->span = -1;
    const char *names[65]; /* the first 64, for a suggestion */
    size_t nnames = 0;
    for (size_t s = 0; s < m->nspans; s++) {
      if (strcmp(m->spans[s].name, span) == 0)
        d->span = (int)s;
      if (nnames < 64)
        names[nnames++] = m->spans[s].name;
    }
    names[nnames] = NULL;
    d->stat = ts_span_stat_find(stat);
    const char *near = d->span < 0 ? ts_suggest(span, names) : NULL;
    if (near)
      bad = ts_jfail(&L->c, "span", L->e, "no span named \"%s\" in the programs; did you mean \"%s\"?", span, near);
    else if (d->span < 0)
      bad = ts_jfail(&L->c, "span", L->e, "no span named \"%s\" in the programs", span);
    else if (d->stat < 0)
      bad = ts_jfail(&L->c, "stat", L->e, "expected count, rate_per_s, mean, p50, p95 or p99; got \"%s\"", stat);
  }
  if (!bad && expr)
    d->kind = TS_MDEF_EXPR;
  if (!bad && ts_metric_builtin(jm->string) >= 0)
    bad = ts_jfail(&L->c, NULL, L->e, "\"%s\" is a built-in metric", jm->string);
  if (!bad && strspn(jm->string, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(jm->string))
    bad = ts_jfail(&L->c, NULL, L->e, "expected a metric name of lower-case letters, digits and '_'");
  d->per_replication = per < 0 ? d->kind == TS_MDEF_EXPR : per == 1;
  if (!bad && d->kind == TS_MDEF_ACTOR && d->per_replication)
    bad = ts_jfail(&L->c, "per", L->e, "an actor metric pools every actor of every replication");
  ts_jpop(&L->c, old);
  if (bad) { /* not counted in m->nmetrics: free what it holds here */
    free(d->actor);
    d->actor = NULL;
    return -1;
  }
  d->name = strdup(jm->string);
  d->meaning = strdup(meaning);
  d->expr = expr ? strdup(expr) : NULL;
  m->nmetrics++;
  if (!d->name || !d->meaning || (expr && !d->expr))
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  return 0;
}

int ts__ml_load_metrics(loader *L, ts_model *m, const cJSON *root)
{
  const cJSON *ms = NULL, *it;
  if (ts_jget_object(&L->c, root, "metrics", 0, &ms, L->e))
    return -1;
  if (!ms)
    return 0;
  size_t n = 0;
  cJSON_ArrayForEach(it, ms) n++;
  if (n > 256)
    return ts_jfail(&L->c, "metrics", L->e, "at most 256 metrics");
  m->metrics = calloc(n + 1, sizeof *m->metrics);
  if (!m->metrics)
    return ts_jfail(&L->c, "metrics", L->e, "out of memory");
  size_t old = ts_jpush_key(&L->c, "metrics");
  int bad = 0;
  cJSON_ArrayForEach(it, ms) if (!bad) bad = load_metric(L, m, it);
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}
