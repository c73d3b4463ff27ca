/* Shared by the model and numbers suites: small models written as JSON text
 * and a world of one of them, run under seed 1. Times are in ms unless said
 * otherwise. */
#ifndef TSSIM_TESTS_MODEL_RUN_H
#define TSSIM_TESTS_MODEL_RUN_H
#include <check.h>

#include "io/model_json.h"
#include "model/world.h"

#include "testutil.h"

#define LEN(a) (sizeof(a) / sizeof *(a))
#define MS(x) ((ts_time)(x) * TS_NS_PER_MS)

/* Steps and classes as JSON text; numbers are written as they are given. */
#define CPU(ms, r) "{\"op\": \"cpu\", \"label\": \"cpu\", \"ms\": " #ms ", \"rows\": " #r "}"
#define SLICED(ms, r) "{\"op\": \"cpu\", \"label\": \"work\", \"ms\": " #ms ", \"rows\": " #r ", \"sliced\": true}"
#define IO(ms) "{\"op\": \"io\", \"label\": \"io\", \"ms\": " #ms "}"
#define PRIO_IO(ms) "{\"op\": \"io\", \"label\": \"prio\", \"ms\": " #ms ", \"priority\": true}"
#define LOCK(d) "{\"op\": \"lock\", \"label\": \"lock\", \"lock\": \"" d "\"}"
#define UNLOCK(d) "{\"op\": \"unlock\", \"label\": \"unlock\", \"lock\": \"" d "\"}"
#define YIELD "{\"op\": \"yield\", \"label\": \"yield\"}"
#define MARK(m) "{\"op\": \"mark\", \"label\": \"mark\", \"name\": \"" m "\"}"
/* A class of cnt actors ("n": the sweep's n), or of one actor arriving at start_ms. */
#define CLASS(nm, cnt, prog) "{\"name\": \"" nm "\", \"count\": " #cnt ", \"program\": [" prog "]}"
#define CLASS_N(nm, prog) "{\"name\": \"" nm "\", \"count\": \"n\", \"program\": [" prog "]}"
#define CLASS_AT(nm, prog, start_ms) \
  "{\"name\": \"" nm "\", \"count\": 1, \"arrival\": {\"start_ms\": " #start_ms "}, \"program\": [" prog "]}"

/* A model with the loader's defaults (fifo, 10 ms threshold, /4 but >= 2 ms
 * while a priority op is in flight, no overheads, one core per worker), but
 * round robin dispatch instead of hash; extra holds more top-level members,
 * each followed by ", ". */
#define MODEL_WITH(extra, classes) \
  "{\"name\": \"test\", \"dispatch\": {\"policy\": \"round_robin\"}, " extra "\"classes\": [" classes "]}"
#define MODEL(classes) MODEL_WITH("", classes)

/* A model and one world of it (the world reads the model while it lives). */
typedef struct run {
  ts_model m;
  ts_world w;
} run;

/* Build r's world of (n, workers) under seed 1 with observer obs (may be
 * NULL) and run it; returns ts_world_run's status. The model must be in r->m. */
static inline int run_observed(run *r, int n, int workers, const ts_observer *obs)
{
  ts_world_spec spec = tu_world_spec(n, workers, 1);
  ck_assert_msg(ts_world_init(&r->w, &r->m, &spec, obs) == 0, "%s", r->w.errmsg);
  return ts_world_run(&r->w);
}

/* Load json into r and run (n, workers) under seed 1; the caller checks the
 * status and ends with run_finish. */
static inline int run_model(run *r, const char *json, int n, int workers)
{
  tu_model(json, &r->m);
  return run_observed(r, n, workers, NULL);
}

static inline void run_finish(run *r)
{
  ts_world_finish(&r->w);
  ts_model_finish(&r->m);
}

/* Actor's measurements (a copy: ts_world_stats; a few live at once). */
static inline const ts_actor_stats *st(const ts_world *w, int actor)
{
  static ts_actor_stats copies[8];
  static unsigned next;
  ts_actor_stats *s = &copies[next++ % 8];
  *s = ts_world_stats(w, actor);
  return s;
}

#endif
