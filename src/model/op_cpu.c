/* cpu: a CPU burst.
 *   {"op": "cpu", "ms": D, "rows": R, "sliced": B|"time", "timed": B, "account": "user"|"kernel", "lap": "restart"}
 * The demand D (a duration: dist, cv apply) is split into R equal rows.
 * Sliced: after every row but the last the actor checks its lap and yields
 * to the queue's tail once it exceeds the threshold. Sliced "time": no rows;
 * the actor yields when its lap reaches the threshold, to the ns (a
 * round-robin quantum that does not depend on the demand). Timed steps count in the
 * slice timer (per_group_cpu_ms); `timed` defaults to `sliced`. "lap":
 * "restart" starts a new lap when the step begins, without yielding (what
 * zero-cache's timer.startWithoutYielding does at each pipeline). The cost is
 * multiplied by the worker's CPU price (host.cpu_scale_by_n). */
#include <math.h>

#include "model/internal.h"
#include "model/spec.h"

static const char *const keys[] = {"ms", "rows", "sliced", "timed", "account", "lap", "dist", "cv", "by", "samples",
                                   "min_ms", "max_ms", NULL};

static int load(ts_spec *sp, ts_step *s)
{
  static const char *const accounts[] = {"user", "kernel", NULL};
  static const char *const laps[] = {"continue", "restart", NULL};
  int sliced = 0, timed = -1, account = 0, lap = 0;
  int64_t rows = 1;
  if (ts_spec_dist(sp, "ms", 1, &s->cost) || ts_spec_int(sp, "rows", 0, 1, 10000000, &rows) ||
      ts_spec_bool_or(sp, "sliced", "time", &sliced) || ts_spec_bool(sp, "timed", 0, &timed) ||
      ts_spec_enum(sp, "account", 0, accounts, &account) || ts_spec_enum(sp, "lap", 0, laps, &lap))
    return -1;
  if (rows > 1 && s->cost.mean_ms == NULL && rows > s->cost.mean)
    return ts_spec_fail(sp, "rows", "%lld rows for %lld ns of CPU: expected at most one row per ns",
                        (long long)rows, (long long)s->cost.mean);
  if (sliced == 2 && ts_spec_has(sp, "rows"))
    return ts_spec_fail(sp, "rows", "a step sliced by time (\"sliced\": \"time\") has no rows");
  double scale = ts_spec_model(sp)->cpu_scale; /* host.cpu_scale: constant costs now, expressions when drawn */
  if (!s->cost.mean_ms && scale != 1.0) {
    double scaled = (double)s->cost.mean * scale;
    if (scaled > (double)TS_DRAW_MAX)
      return ts_spec_fail(sp, "ms", "expected a cost that times host.cpu_scale stays below %g ms",
                          (double)TS_DRAW_MAX / TS_NS_PER_MS);
    s->cost.mean = (ts_time)(scaled + 0.5);
    s->cost.lo = (ts_time)((double)s->cost.lo * scale + 0.5);
    s->cost.hi = (ts_time)((double)s->cost.hi * scale + 0.5);
    ts_dist_prepare(&s->cost);
  }
  s->rows = rows;
  s->sliced = sliced != 0;
  s->by_time = sliced == 2;
  s->timed = timed < 0 ? s->sliced : timed != 0;
  s->kernel = account == 1;
  s->new_lap = lap == 1;
  return 0;
}

/* The step's demand for a now (drawn, times the worker's CPU price), and
 * the step's start: a new lap when it restarts one, sub 1 (exec's next call
 * returns TS_OP_NEXT). */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline ts_time start(ts_world *w, ts_actor *a, const ts_step *s)
{
  ts_time cost = ts__draw(w, a, &s->cost);
  double scale = w->workers[a->worker].cpu_scale * (s->cost.mean_ms ? w->model->cpu_scale : 1.0);
  if (scale != 1.0) {
    double scaled = (double)cost * scale;
    cost = scaled >= (double)TS_DRAW_MAX ? TS_DRAW_MAX : scaled >= 0 ? ts__round_ns(scaled) : (ts_time)llround(scaled);
  }
  if (s->new_lap)
    a->lap_start = w->sim.now;
  a->sub = 1;
  return cost;
}

/* ts__cpu_begin of a one-row step's segment (out of line: its inline case
 * then costs exec's other steps no registers). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static int begin_one(ts_world *w, ts_actor *a, ts_time cost, int flags)
{
  return ts__cpu_begin(w, a, cost, 1, flags, TS_ACTOR_RUNNING);
}

static int exec(ts_world *w, ts_actor *a, const ts_step *s)
{
  if (a->sub)
    return TS_OP_NEXT;
  ts_time cost = start(w, a, s);
  int flags = (s->sliced ? TS_CPU_SLICED : 0) | (s->timed ? TS_CPU_TIMED : 0) | (s->kernel ? TS_CPU_KERNEL : 0) |
              (s->by_time ? TS_CPU_BY_TIME : 0);
  if (s->sliced || s->timed || s->rows != 1) /* never a one-row case of ts__cpu_begin, which alone read TS_CPU_LAST */
    return ts__cpu_begin_any(w, a, cost, s->rows, flags, TS_ACTOR_RUNNING);
  return begin_one(w, a, cost, flags | TS_CPU_LAST); /* its segment is the step's last phase */
}

const ts_op_type ts_op_cpu = {
  .name = "cpu",
  .keys = keys,
  .summary = "CPU demand in equal rows; sliced: yield after a row once the lap passes the threshold",
  .load = load,
  .exec = exec,
};
