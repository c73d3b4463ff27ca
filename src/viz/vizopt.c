#include "viz/vizopt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"

int ts_vizopt_init(ts_vizopt *o, int argc)
{
  memset(o, 0, sizeof *o);
  o->sets = calloc((size_t)argc + 1, sizeof *o->sets);
  o->axes = calloc((size_t)argc + 1, sizeof *o->axes);
  if (o->sets && o->axes)
    return 0;
  ts_vizopt_finish(o);
  return -1;
}

void ts_vizopt_finish(ts_vizopt *o)
{
  free(o->sets);
  free(o->axes);
  o->sets = NULL;
  o->axes = NULL;
}

int ts_vizopt_take(ts_vizopt *o, int c, const char *arg)
{
  switch (c) {
  case 'n': o->n_arg = arg; return 1;
  case 'w': o->w_arg = arg; return 1;
  case 'S': o->seed_arg = arg; return 1;
  case 's': o->sets[o->nsets++] = arg; return 1;
  case 'E': o->max_events_arg = arg; return 1;
  case 'T': o->horizon_arg = arg; return 1;
  case 'X': o->axes[o->naxes++] = arg; return 1;
  default: return 0;
  }
}

static int one_int(const char *text, const char *what, long lo, long hi, int *out, ts_err *e)
{
  char *end;
  long v = strtol(text, &end, 10);
  if (end == text || *end || v < lo || v > hi)
    return ts_err_set(e, what, NULL, "expected one integer in [%ld, %ld], got \"%s\"", lo, hi, text);
  *out = (int)v;
  return 0;
}

int ts_vizopt_resolve(ts_vizopt *o, const ts_scenario *sc, ts_err *e)
{
  o->n = sc->nn ? sc->ns[0] : 1;
  o->workers = sc->nw ? sc->workers[0] : 1;
  o->seed = sc->seed;
  o->horizon = sc->horizon;
  if (o->n_arg && one_int(o->n_arg, "--n", 1, TS_MAX_ACTORS, &o->n, e))
    return -1;
  if (o->w_arg && one_int(o->w_arg, "--workers", 1, TS_MAX_WORKERS, &o->workers, e))
    return -1;
  if (o->seed_arg && ts_parse_seed(o->seed_arg, &o->seed, e))
    return -1;
  if (o->max_events_arg) {
    char *end;
    errno = 0;
    long long v = strtoll(o->max_events_arg, &end, 10);
    if (end == o->max_events_arg || *end || errno || v < 0 || v > TS_VIZOPT_MAX_EVENTS)
      return ts_err_set(e, "--max-events", NULL, "expected an integer in [0, %lld], got \"%s\"",
                        (long long)TS_VIZOPT_MAX_EVENTS, o->max_events_arg);
    o->max_events = (size_t)v;
  }
  if (o->horizon_arg) {
    char *end;
    errno = 0;
    double ms = strtod(o->horizon_arg, &end);
    if (end == o->horizon_arg || *end || errno || !(ms >= 1e-6 && ms <= 1e12))
      return ts_err_set(e, "--horizon", NULL, "expected a number of ms in [1e-06, 1e+12], got \"%s\"", o->horizon_arg);
    o->horizon = ts_time_from_ms(ms);
  }
  return 0;
}
