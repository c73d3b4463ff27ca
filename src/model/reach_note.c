/* Workers of a pool that nothing can reach (a valid model, so a note, not
 * an error): an actor enters a pool's worker by its class's placement
 * (class_json.c: dispatch reaches every worker, fixed the worker its
 * expression gives), by a hop (op_hop.c: "to", default the actor's own
 * worker index) or as a call's handler (server.c: a server's "worker",
 * else any worker of its pool). When every one of these into a pool of a
 * constant count names a constant worker, the other workers stay idle. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/model.h"
#include "model/op.h"

/* Mark worker index e (an expression, NULL: unknown) of a pool of count
 * workers in hit; return 1 when it is not a constant (every worker may be
 * reached). */
static int mark(const ts_expr *e, int count, unsigned char *hit)
{
  double v;
  if (!e || !ts_expr_is_constant(e, &v))
    return 1;
  if (v >= 0 && v < count && v == (int)v)
    hit[(int)v] = 1;
  return 0;
}

int ts_model_reach_note(const ts_model *m, char *out, size_t cap)
{
  for (size_t p = 1; p < m->npools; p++) { /* the main pool's size is the sweep's */
    double cv;
    if (!m->pools[p].count || !ts_expr_is_constant(m->pools[p].count, &cv) || cv < 2 || cv > 4096)
      continue;
    int count = (int)cv, any = 0, all = 0;
    const char *first = NULL;
    unsigned char *hit = calloc((size_t)count, 1);
    if (!hit)
      return 0;
    for (size_t c = 0; c < m->nclasses && !all; c++) {
      const ts_class *k = &m->classes[c];
      if (k->pool == (int)p) {
        any = 1;
        all = k->place != TS_PLACE_FIXED || mark(k->place_worker, count, hit);
      }
      for (size_t i = 0; i < k->nsteps && !all; i++) {
        const ts_step *s = &k->steps[i];
        if (s->type != &ts_op_hop || (s->pool != (int)p && s->pool >= 0))
          continue;
        if (s->pool < 0 && !s->index) /* to its own worker index, in its pool (this one, perhaps) */
          all = 1;
        else if (s->pool < 0) /* a constant worker of its pool: this one, perhaps */
          mark(s->index, count, hit);
        else {
          any = 1;
          all = mark(s->index, count, hit);
          first = first ? first : s->where;
        }
      }
    }
    for (size_t v = 0; v < m->nservers && !all; v++)
      if (m->servers[v].pool == (int)p) {
        any = 1;
        all = mark(m->servers[v].worker, count, hit);
      }
    char idle[200] = "";
    int nidle = 0, len = 0;
    for (int w = 0; any && !all && w < count; w++) {
      if (hit[w])
        continue;
      if (nidle++ < 8 && len >= 0 && (size_t)len < sizeof idle)
        len += snprintf(idle + len, sizeof idle - (size_t)len, "%s%d", nidle > 1 ? ", " : "", w);
    }
    free(hit);
    if (!any || all || nidle == 0)
      continue;
    if (nidle > 8 && len >= 0 && (size_t)len < sizeof idle)
      snprintf(idle + len, sizeof idle - (size_t)len, ", ... (%d in all)", nidle);
    snprintf(out, cap, "pools[%zu] (\"%s\") has %d workers, but every placement, hop and server into it names a "
             "constant worker%s%s%s, so its worker%s %s never run%s anything (a worker index that varies, an "
             "expression of i say, spreads them)",
             p - 1, m->pools[p].name, count, first ? " (the first hop: " : "", first ? first : "", first ? ")" : "",
             nidle > 1 ? "s" : "", idle, nidle > 1 ? "" : "s");
    return 1;
  }
  return 0;
}
