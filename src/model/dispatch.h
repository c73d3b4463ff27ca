/* Dispatch of actors to workers: the static placement a real system uses. */
#ifndef TS_DISPATCH_H
#define TS_DISPATCH_H
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"

/* zero-cache's placement: xxHash32(task_id + "/" + group_id, seed 0) mod workers. */
int ts_dispatch_hash(const char *task_id, const char *group_id, int workers);
/* The synthetic client-group id of actor i: prefix followed by i (e.g. "cg7"),
 * written into buf of size len. */
void ts_dispatch_group_id(const char *prefix, int i, char *buf, size_t len);
/* Worker for the i-th actor under a policy; load[] is the number of actors
 * placed on each worker so far (least_loaded picks the smallest, lowest index first). */
int ts_dispatch_pick(const ts_model *m, int i, int workers, const int *load);
/* The dispatch kind called name, or -1. */
int ts_dispatch_find(const char *name);
/* The name of a dispatch kind. */
const char *ts_dispatch_name(ts_dispatch_kind k);

#endif
