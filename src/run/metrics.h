/* The metric registry: every metric a run reports, with its name, meaning,
 * unit, where it comes from and how it is summarised. A run's list is built
 * from its model: the built-in metrics (always the first twelve, in their
 * historical order, then those the model's features make meaningful), one
 * family per span, and the metrics the model defines.
 *
 * Sources and statistics:
 *   actor  one value per actor (its stats); the point's value is the pooled
 *          median (wave_p95_ms: the pooled 95th percentile) over all actors
 *          of the row's class in all replications;
 *   ratio  wave_ratio: wave_ms over wave_ms at the smallest n of the sweep
 *          with the same workers, axes and class;
 *   world  one value per replication (window CPU, lock wait share, queue
 *          depth...); the point's value is the median over replications;
 *   span   the samples of a span that ended in the window: count and rate
 *          per replication (median over replications), mean and quantiles
 *          pooled over all samples of all replications (GSL, the
 *          linear-interpolation quantile at (n - 1) q);
 *   expr   an expression over the other metrics, evaluated per replication
 *          (median over replications);
 * a model's span metric may also ask for the median over replications of
 * per-replication quantiles ("per": "replication"). Every metric also has
 * its mean over replications and the 95% Student-t half-width of that mean. */
#ifndef TS_METRICS_H
#define TS_METRICS_H
#include <math.h>
#include <stddef.h>
#include <stdio.h>

#include "model/model.h"
#include "model/world.h"

typedef enum { TS_SRC_ACTOR, TS_SRC_RATIO, TS_SRC_WORLD, TS_SRC_SPAN, TS_SRC_EXPR } ts_metric_source;

typedef enum { TS_SPAN_COUNT, TS_SPAN_RATE, TS_SPAN_MEAN, TS_SPAN_P50, TS_SPAN_P95, TS_SPAN_P99, TS_SPAN_NSTATS } ts_span_stat;

/* Per-actor quantities (ts_metric.id for TS_SRC_ACTOR). */
enum {
  TS_Q_WAVE, TS_Q_TIMER, TS_Q_LOCK_WAIT, TS_Q_LOCK_WORK, TS_Q_QUEUE_WAIT, TS_Q_SLICES, TS_Q_CPU, TS_Q_IO,
  TS_Q_READY_WAIT, TS_Q_DONE, TS_Q_KERNEL, TS_Q_SLEEP, TS_Q_CHAN_WAIT, TS_Q_HOP, TS_Q_CALL_WAIT, TS_Q_MUTEX_WAIT,
  TS_Q_SETTLE
};

/* Per-replication quantities of the whole world (ts_metric.id for TS_SRC_WORLD). */
enum {
  TS_W_QUEUE_DEPTH, TS_W_QUEUE_DEPTH_MAX, TS_W_SLICE_WAIT, TS_W_CPU_CORES, TS_W_USER_CORES, TS_W_KERNEL_CORES,
  TS_W_LOCK_WAIT_SHARE, TS_W_MUTEX_WAIT, TS_W_USER_INSTR, TS_W_KERNEL_INSTR, TS_W_MEMORY, TS_W_GROUPS_MAX,
  TS_W_GROUPS_MEAN, TS_W_MUTEX_ACQUIRES, TS_W_MUTEX_CONTENDED, TS_W_CORES_USED, TS_W_TIMEOUTS, TS_W_DROPS, TS_W_PREEMPTIONS, TS_W_POOL_CORES /* + pool index */
};
/* Per mutex declaration and per site (models with sites): TS_W_LOCK_STAT +
 * 8 * declaration + TS_LS_*, TS_W_SITE_STAT + 8 * site + TS_LS_*. */
enum { TS_W_LOCK_STAT = 1 << 20, TS_W_SITE_STAT = 1 << 22 };
enum { TS_LS_WAIT, TS_LS_SHARE, TS_LS_CONTENDED, TS_LS_ACQUIRES, TS_LS_CONVOY };

typedef struct ts_metric {
  char name[80];
  char meaning[200];
  const char *unit;         /* "ms", "count", "cores", "share", "per_s", "bytes", "instructions", "ratio" */
  ts_metric_source source;
  int id;                   /* actor/world quantity, span index, or model metric index */
  int stat;                 /* actor: 0 median, 1 p95; span: ts_span_stat */
  int per_replication;      /* span: the median over replications of per-replication values */
  int digits;               /* decimals in the printed table */
  ts_expr *expr;            /* TS_SRC_EXPR: compiled over the list's metrics */
} ts_metric;

typedef struct ts_metric_list {
  ts_metric *v;
  size_t n;
} ts_metric_list;

/* Build m's metric list into out (caller memory; free with
 * ts_metric_list_finish). Returns 0, or -1 with a one-line reason in err (an
 * expression metric naming an unknown metric, or out of memory). */
int ts_metric_list_build(const ts_model *m, ts_metric_list *out, char *err, size_t cap);
/* Free a list's memory. */
void ts_metric_list_finish(ts_metric_list *l);
/* Print every built-in metric, a line each (name, meaning, and in brackets
 * the model feature it needs when not every model has it), for --help. */
void ts_metric_help(FILE *f);
/* Index of the metric called name in l, or -1. */
int ts_metric_list_find(const ts_metric_list *l, const char *name);
/* Index of a built-in metric that exists for every model (the first twelve)
 * called name, or -1: what host.cpu_scale_by_n's metric may name. */
int ts_metric_builtin(const char *name);
/* The span statistic called name ("p95", ...), or -1. */
int ts_span_stat_find(const char *name);

/* Per-replication values of the world metrics and span statistics of l, from
 * a finished world, into v (indexed like l; actor, ratio and expr metrics are
 * left as they are). When the run ended before its window began
 * (ts_world_window_missed) the metrics measured in the window are NAN.
 * queued: the ns every actor spent in time-slice queues, summed as doubles
 * in actor-id order (slice_wait_ms; the run layer sums it as the actors are
 * done, ts__collect_done). */
void ts_metric_world_values(const ts_metric_list *l, const ts_world *w, double queued, double *v);
/* That sum over the actors of a world that keeps them all (one run without
 * a done callback: ts_world_spec.done). */
double ts_metric_world_queued(const ts_world *w);
/* The value of actor metric mi for one actor's stats. */
double ts_metric_actor_value(const ts_metric *mi, const ts_actor_stats *s);
/* The value of per-actor quantity q (TS_Q_*) for one actor's stats (inline:
 * the run layer takes several per actor as the actors are done). */
static inline double ts_metric_quantity(int q, const ts_actor_stats *s)
{
  switch (q) {
  case TS_Q_WAVE: return s->wave_start < 0 || s->wave_end < 0 ? NAN : ts_time_to_ms(s->wave_end - s->wave_start);
  case TS_Q_TIMER: return ts_time_to_ms(s->timer);
  case TS_Q_LOCK_WAIT: return ts_time_to_ms(s->state[TS_ACTOR_LOCK_WAIT]);
  case TS_Q_LOCK_WORK: return ts_time_to_ms(s->lock_work);
  case TS_Q_QUEUE_WAIT: return ts_time_to_ms(s->state[TS_ACTOR_QUEUED]);
  case TS_Q_SLICES: return (double)s->slices;
  case TS_Q_CPU: return ts_time_to_ms(s->cpu);
  case TS_Q_IO: return ts_time_to_ms(s->state[TS_ACTOR_IO]);
  case TS_Q_READY_WAIT: return ts_time_to_ms(s->state[TS_ACTOR_READY]);
  case TS_Q_DONE: return s->done < 0 ? NAN : ts_time_to_ms(s->done);
  case TS_Q_KERNEL: return ts_time_to_ms(s->kernel);
  case TS_Q_SLEEP: return ts_time_to_ms(s->state[TS_ACTOR_SLEEP]);
  case TS_Q_CHAN_WAIT: return ts_time_to_ms(s->state[TS_ACTOR_CHAN_WAIT]);
  case TS_Q_HOP: return ts_time_to_ms(s->state[TS_ACTOR_HOP]);
  case TS_Q_CALL_WAIT: return ts_time_to_ms(s->state[TS_ACTOR_CALL_WAIT]);
  case TS_Q_MUTEX_WAIT: return ts_time_to_ms(s->mutex_wait);
  case TS_Q_SETTLE: return s->settled < 0 ? NAN : ts_time_to_ms(s->settled - s->arrive);
  default: return 0;
  }
}
/* The same value, ts_metric_quantity(q, &s) with s = ts_world_stats(w,
 * a->id), read from actor a of w without making the record (the collector
 * takes the quantities of each actor as it is done). test_speed_engine's
 * speed_retired_actors_are_measured_as_kept compares the two bit for bit.
 * (Always inlined: the collector's loop over the quantities calls it.) */
__attribute__((always_inline)) static inline double ts_metric_actor_quantity(int q, const ts_world *w,
                                                                        const ts_actor *a)
{
  const ts_actor_ext *x = a->x;
  ts_time t0, t1;
  switch (q) {
  case TS_Q_WAVE:
    ts_world_actor_wave(a, &t0, &t1);
    return t0 < 0 || t1 < 0 ? NAN : ts_time_to_ms(t1 - t0);
  case TS_Q_TIMER: return ts_time_to_ms(a->st.timer);
  case TS_Q_LOCK_WAIT: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_LOCK_WAIT));
  case TS_Q_LOCK_WORK: return ts_time_to_ms(x ? x->lock_work : 0);
  case TS_Q_QUEUE_WAIT: return ts_time_to_ms(a->queue_time);
  case TS_Q_SLICES: return (double)a->st.slices;
  case TS_Q_CPU: return ts_time_to_ms(a->st.cpu);
  case TS_Q_IO: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_IO));
  case TS_Q_READY_WAIT: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_READY));
  case TS_Q_DONE: return a->st.done < 0 ? NAN : ts_time_to_ms(a->st.done);
  case TS_Q_KERNEL: return ts_time_to_ms(x ? x->kernel : 0);
  case TS_Q_SLEEP: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_SLEEP));
  case TS_Q_CHAN_WAIT: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_CHAN_WAIT));
  case TS_Q_HOP: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_HOP));
  case TS_Q_CALL_WAIT: return ts_time_to_ms(ts_world_state_time(w, a->id, TS_ACTOR_CALL_WAIT));
  case TS_Q_MUTEX_WAIT: return ts_time_to_ms(x ? x->mutex_wait : 0);
  case TS_Q_SETTLE: return !x || x->settled < 0 ? NAN : ts_time_to_ms(x->settled - a->st.arrive);
  default: return 0;
  }
}
/* Whether quantity q is 0 for every actor of w so far, known without reading
 * the actors: the time in a state no actor was ever in (its state columns
 * were never made), a lock time in a model without locks, slice-timer CPU
 * and slices before any timed CPU segment, queue time before any actor could
 * enter a time-slice queue (ts_world.quantities_used). 0: not known. */
int ts_metric_world_actor_zero(int q, const ts_world *w);
/* Evaluate the expr metrics of l over v (in list order: an expression may
 * read metrics before it). */
void ts_metric_exprs(const ts_metric_list *l, double *v);

#endif
