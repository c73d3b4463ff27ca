#include "model/dispatch.h"

#include <stdio.h>
#include <string.h>

#include "engine/rng.h"
#include "model/expr.h"
#include "model/xxhash32.h"

static const char *const names[] = {"hash", "round_robin", "least_loaded"};

int ts_dispatch_hash(const char *task_id, const char *group_id, int workers)
{
  char key[512];
  int len = snprintf(key, sizeof key, "%s/%s", task_id, group_id);
  if (len < 0 || (size_t)len >= sizeof key)
    len = (int)strlen(key);
  return (int)(ts_xxh32(key, (size_t)len, 0) % (uint32_t)workers);
}

void ts_dispatch_group_id(const char *prefix, int i, char *buf, size_t len)
{
  snprintf(buf, len, "%s%d", prefix, i);
}

void ts_dispatch_group_id_drawn(const char *prefix, uint64_t rep_seed, int i, char *buf, size_t len)
{
  snprintf(buf, len, "%s%016llx", prefix, (unsigned long long)ts_rng_derive_stream(rep_seed, -2, i, 0));
}

int ts_dispatch_pick(const ts_model *m, int i, int workers, const int *load, uint64_t rep_seed)
{
  char id[256];
  int best = 0;
  switch (m->dispatch) {
  case TS_DISPATCH_HASH:
    if (m->ids_per_replication)
      ts_dispatch_group_id_drawn(m->group_prefix, rep_seed, i, id, sizeof id);
    else
      ts_dispatch_group_id(m->group_prefix, i, id, sizeof id);
    return ts_dispatch_hash(m->task_id, id, workers);
  case TS_DISPATCH_ROUND_ROBIN:
    return i % workers;
  case TS_DISPATCH_LEAST_LOADED:
    for (int k = 1; k < workers; k++)
      if (load[k] < load[best])
        best = k;
    return best;
  }
  return 0;
}

/* Whether two actors or more may share pool p under the dispatch rule: its
 * size may pass 1 and its dispatched classes of fixed count may hold 2
 * actors (a count that is not a constant, e.g. "n", may). */
static int may_share(const ts_model *m, size_t p, int max_workers)
{
  double v, actors = 0;
  if (p == 0 ? max_workers < 2 : ts_expr_is_constant(m->pools[p].count, &v) && v < 2)
    return 0;
  for (size_t c = 0; c < m->nclasses; c++) {
    const ts_class *k = &m->classes[c];
    if (k->pool != (int)p || k->place != TS_PLACE_DISPATCH || k->forever)
      continue;
    actors += ts_expr_is_constant(k->count, &v) ? v : 2;
  }
  return actors >= 2;
}

int ts_dispatch_note(const ts_model *m, int max_workers, int replications, char *out, size_t cap)
{
  int shared = 0;
  if (m->dispatch != TS_DISPATCH_HASH && m->ids_per_replication) {
    snprintf(out, cap, "dispatch.ids \"per_replication\" has no effect under dispatch round_robin or least_loaded, "
             "which read no id (only hash does)");
    return 1;
  }
  if (m->dispatch != TS_DISPATCH_HASH || m->ids_per_replication || replications < 2)
    return 0;
  for (size_t p = 0; p < m->npools && !shared; p++)
    shared = may_share(m, p, max_workers);
  if (!shared)
    return 0;
  snprintf(out, cap,
           "dispatch hash places each actor by a fixed id (\"%s/%s\" followed by its index), so every replication "
           "puts the same actors on the same worker: the 95%% intervals cover the random draws, not which actors "
           "share a worker; dispatch.ids \"per_replication\" draws the ids per replication (docs/language.md, "
           "Dispatch)",
           m->task_id, m->group_prefix);
  return 1;
}

int ts_dispatch_find(const char *name)
{
  for (int k = 0; k < (int)(sizeof names / sizeof *names); k++)
    if (strcmp(names[k], name) == 0)
      return k;
  return -1;
}

const char *ts_dispatch_name(ts_dispatch_kind k)
{
  return names[k];
}
