/* The options trace, gantt and explain share: which sweep point of a
 * scenario to record (--n, --workers, --seed, --axis, --horizon) and model
 * overrides (--set).
 * A command puts TS_VIZOPT_LONG in its getopt_long table and hands every
 * option to ts_vizopt_take. */
#ifndef TS_VIZOPT_H
#define TS_VIZOPT_H
#include <stdint.h>
#include <stdio.h>

#include "engine/time.h"
#include "io/err.h"
#include "io/scenario_json.h"

#define TS_VIZOPT_LONG                                                                              \
  {"n", required_argument, NULL, 'n'}, {"workers", required_argument, NULL, 'w'},                  \
  {"seed", required_argument, NULL, 'S'}, {"set", required_argument, NULL, 's'},                   \
  {"max-events", required_argument, NULL, 'E'}, {"horizon", required_argument, NULL, 'T'},       \
  {"axis", required_argument, NULL, 'X'}

/* The help lines of the shared options. */
#define TS_VIZOPT_HELP                                                                              \
  "      --n N               groups (actors of the class counted by \"n\"; default: the\n"        \
  "                          scenario's first n)\n"                                               \
  "      --workers W         workers (default: the scenario's first worker count)\n"              \
  "      --seed S            scenario seed (default: the scenario's); replication 0 is drawn\n"   \
  "      --axis KEY=LABEL    the value of the scenario's axis KEY to draw (repeatable;\n"       \
  "                          default: each axis's first value, summary.csv's first row)\n"     \
  "      --set PATH=VALUE    override a model field by its JSON path (repeatable), e.g.\n"        \
  "                          --set params.c_ms=30 (an axis's value overrides it)\n"            \
  "      --max-events N      refuse a point that records more than N events (run pieces,\n"      \
  "                          state changes, counter samples, lock changes); 0: no limit\n"      \
  "      --horizon MS        end the run at MS ms, in place of the scenario's horizon_ms\n"       \
  "                          (shorter or longer): a window of an open system\n"

/* --max-events: its largest value, and the defaults. A trace costs about
 * 1.5 KB of memory and 130 bytes of file per event while it is built;
 * gantt and explain keep only the timeline (about 34 bytes per event). At
 * the defaults rr-wave draws up to n = 2500 on one worker in a trace and
 * (n = 100000, workers = 8: 20 million events) in gantt and explain. */
#define TS_VIZOPT_MAX_EVENTS 1000000000000LL
#define TS_VIZOPT_TRACE_EVENTS 500000
#define TS_VIZOPT_VIEW_EVENTS 25000000

typedef struct ts_vizopt {
  const char *n_arg, *w_arg, *seed_arg, *max_events_arg, *horizon_arg;
  const char **sets;   /* argv entries; room for every argument */
  int nsets;
  const char **axes;   /* --axis KEY=LABEL argv entries, likewise */
  int naxes;
  /* after ts_vizopt_resolve */
  int n, workers;
  uint64_t seed;
  size_t max_events;   /* 0: no limit; ts_vizopt_resolve keeps the caller's default without --max-events */
  ts_time horizon;     /* --horizon, else the scenario's horizon_ms (TS_TIME_MAX: none) */
} ts_vizopt;

/* Prepare o for a command line of argc arguments. Returns 0 or -1 (memory). */
int ts_vizopt_init(ts_vizopt *o, int argc);
/* Free what ts_vizopt_init took. */
void ts_vizopt_finish(ts_vizopt *o);
/* Take option c (a getopt_long result) with argument arg. Returns 1 if it is
 * a shared option, else 0. */
int ts_vizopt_take(ts_vizopt *o, int c, const char *arg);
/* Check the options and fill n, workers, seed and horizon, defaulting to
 * the scenario's first sweep point, its seed and its horizon_ms, and
 * max_events when given.
 * Returns 0, or -1 with e filled. */
int ts_vizopt_resolve(ts_vizopt *o, const ts_scenario *sc, ts_err *e);

#endif
