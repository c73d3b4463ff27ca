#include "model/dispatch.h"

#include <stdio.h>
#include <string.h>

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

int ts_dispatch_pick(const ts_model *m, int i, int workers, const int *load)
{
  char id[256];
  int best = 0;
  switch (m->dispatch) {
  case TS_DISPATCH_HASH:
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
