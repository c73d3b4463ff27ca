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
/* The client-group id of actor i drawn for the replication of stream seed
 * rep_seed (dispatch.ids "per_replication"): prefix followed by 16 hex
 * digits of ts_rng_derive_stream(rep_seed, -2, i, 0), a function of the
 * seed and i alone (no stream is drawn from: every variant of one
 * replication places alike), written into buf of size len. */
void ts_dispatch_group_id_drawn(const char *prefix, uint64_t rep_seed, int i, char *buf, size_t len);
/* Worker for the i-th actor under a policy, in the replication of stream
 * seed rep_seed (read by hash with per-replication ids only); load[] is the
 * number of actors placed on each worker so far (least_loaded picks the
 * smallest, lowest index first). */
int ts_dispatch_pick(const ts_model *m, int i, int workers, const int *load, uint64_t rep_seed);
/* A note (one line, no newline, into out of size cap) when m places actors
 * by hash of fixed ids on a main pool of up to max_workers > 1 workers over
 * replications > 1 (ci_target: replications until a target) and at least
 * two actors may share the pool: every replication places them alike, so an
 * interval over replications leaves placement out; or when m sets
 * dispatch.ids "per_replication" under round_robin or least_loaded, which
 * read no id (ts_load refuses a scenario where no axis combination's
 * dispatch reads them). Returns 1 with the note written, else 0. */
int ts_dispatch_note(const ts_model *m, int max_workers, int replications, char *out, size_t cap);
/* The dispatch kind called name, or -1. */
int ts_dispatch_find(const char *name);
/* The name of a dispatch kind. */
const char *ts_dispatch_name(ts_dispatch_kind k);

#endif
