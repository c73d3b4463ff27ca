/* The statistics' fast paths give exactly what the slow ones gave: order
 * statistics by selection (of equal values without it, of several levels at
 * once) against GSL on sorted data, quantiles of values spilled to a
 * temporary file or counted as zeros against the values in memory, the
 * collector's quantities (taken once they can move, taken directly)
 * against each actor's whole record, a span's statistics against qsort and
 * GSL, and the fixed-point ms of samples.csv against printf's %.6f. The
 * engine's fast paths are test_speed_engine.c's.
 * (No timing here: scripts/bench measures speed.) */

#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "io/report.h"
#include "run/metrics.h"
#include "run/sweep.h"
#include "run/sweep_internal.h"

#include "testutil.h"

/* ---- order statistics ---- */

START_TEST(speed_quantile_selection_is_gsl_on_sorted)
{
  uint64_t s = 11;
  static const double qs[] = {0.5, 0.95, 0.99, 1, 0.25, 0.0};
  size_t bad = 0;
  double *a = malloc(2000 * sizeof *a), *b = malloc(2000 * sizeof *b);
  ck_assert_ptr_nonnull(a);
  ck_assert_ptr_nonnull(b);
  for (int trial = 0; trial < 600; trial++) {
    size_t n = 1 + (size_t)(tu_lcg(&s) % (trial < 300 ? 12 : 2000));
    int spread = (int)(tu_lcg(&s) % 4); /* few distinct values (ties), or many */
    for (size_t i = 0; i < n; i++)
      a[i] = spread == 0 ? (double)(tu_lcg(&s) % 3) : spread == 1 ? (double)(tu_lcg(&s) % 50) / 1e6
                                                            : (double)(int64_t)(tu_lcg(&s) % 2000000) / 7.0 - 1000;
    if (trial % 3 == 0) /* ascending: read without selection */
      gsl_sort(a, 1, n);
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
      memcpy(b, a, n * sizeof *a);
      gsl_sort(b, 1, n);
      double want = qs[k] == 0.5 ? gsl_stats_median_from_sorted_data(b, 1, n)
                                 : gsl_stats_quantile_from_sorted_data(b, 1, n, qs[k]);
      memcpy(b, a, n * sizeof *a);
      double got = ts_quantile(b, n, qs[k]);
      bad += memcmp(&got, &want, sizeof got) != 0;
    }
  }
  free(a);
  free(b);
  ck_assert_uint_eq(bad, 0);
}
END_TEST

START_TEST(speed_quantile_of_equal_values_needs_no_selection)
{
  uint64_t s = 5;
  static const double qs[] = {0.5, 0.95, 0.99, 1, 0.25, 0.0};
  size_t bad = 0;
  double *b = malloc(3000 * sizeof *b);
  ck_assert_ptr_nonnull(b);
  for (int trial = 0; trial < 400; trial++) {
    size_t n = 1 + (size_t)(tu_lcg(&s) % (trial < 200 ? 12 : 3000));
    double c = trial % 5 == 0 ? 0.0 : (double)(int64_t)(tu_lcg(&s) % 20000000) / 7.0 - 1000;
    for (size_t k = 0; k < sizeof qs / sizeof *qs; k++) {
      for (size_t i = 0; i < n; i++)
        b[i] = c;
      double want = qs[k] == 0.5 ? gsl_stats_median_from_sorted_data(b, 1, n)
                                 : gsl_stats_quantile_from_sorted_data(b, 1, n, qs[k]);
      double got = ts_quantile_same(c, n, qs[k]);
      bad += memcmp(&got, &want, sizeof got) != 0;
    }
  }
  free(b);
  ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- samples.csv's numbers ---- */

static void check_ms(ts_time t, size_t *bad)
{
  char want[64], got[64];
  snprintf(want, sizeof want, "%.6f", ts_time_to_ms(t));
  char *end = ts_report_put_ms(got, t);
  if (strcmp(want, got) != 0 || *end != '\0' || (size_t)(end - got) != strlen(want)) {
    if (*bad < 5)
      fprintf(stderr, "t = %lld: printf %s, fixed point %s\n", (long long)t, want, got);
    (*bad)++;
  }
}

START_TEST(speed_ms_fixed_point_is_printf)
{
  uint64_t s = 5;
  size_t bad = 0;
  static const ts_time edges[] = {0, 1, -1, 999999, 1000000, 1000001, -999999, -1000000, 499999, 500000, 500001,
                                  INT64_C(4503599627370495), INT64_C(4503599627370496), INT64_C(4503599627370497),
                                  -INT64_C(4503599627370496), INT64_C(9007199254740993), INT64_MAX, INT64_MIN + 1,
                                  INT64_C(2305843009213693952)};
  for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
    check_ms(edges[i], &bad);
  for (int k = 0; k <= 18; k++) { /* each digit count's edges: 10^k - 1, 10^k, 10^k + 1 */
    ts_time p = 1;
    for (int e = 0; e < k; e++)
      p *= 10;
    for (int d = -1; d <= 1; d++) {
      check_ms(p + d, &bad);
      check_ms(-(p + d), &bad);
    }
  }
  for (int i = 0; i < 50000; i++) {
    int bits = 1 + (int)(tu_lcg(&s) % 62);
    ts_time t = (ts_time)(tu_lcg(&s) & ((UINT64_C(1) << bits) - 1));
    check_ms(i % 3 == 0 ? -t : t, &bad);
  }
  for (ts_time t = -1000000; t <= 1000000; t += 7) /* every residue pattern near 0 */
    check_ms(t, &bad);
  ck_assert_uint_eq(bad, 0);
}
END_TEST

/* ---- the collector ---- */

/* The io_ms of each actor handed to the samples, per replication. */
typedef struct io_seen {
  double v[2][3000];
  size_t n[2];
} io_seen;

static int seen_io(void *ctx, const ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo, int rep,
                   ts_text *out)
{
  (void)s, (void)w, (void)combo, (void)out;
  io_seen *o = ctx;
  ck_assert_uint_lt(o->n[rep], 3000);
  o->v[rep][o->n[rep]++] = ts_time_to_ms(a->state[TS_ACTOR_IO]);
  return 0;
}

static double bits_of(const double *v, size_t n, double q) /* GSL on a sorted copy */
{
  double *b = malloc(n * sizeof *b);
  memcpy(b, v, n * sizeof *b);
  gsl_sort(b, 1, n);
  double x = gsl_stats_quantile_from_sorted_data(b, 1, n, q);
  free(b);
  return x;
}

/* The collector takes a quantity actor by actor only once some actor was in
 * its state: before that it only counts. 3000 actors one after another,
 * each done before the next arrives; the first 2000 do no I/O (no actor is
 * in state io until actor 2000's), the rest do. Every statistic of io_ms is
 * GSL's on the actors' values, bit for bit, as is the pooled median over two
 * replications; lock_wait_ms (no actor ever waits) is 0. */
START_TEST(speed_collector_counts_zeros_before_a_state_is_used)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"job\", \"count\": 3000, \"arrival\": {\"spacing_ms\": 1},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"io\", \"ms\": \"max(0, i - 1999) / 7\","
           " \"dist\": \"exponential\"}]}],"
           " \"metrics\": {\"io_p5\": {\"actor\": \"io_ms\", \"stat\": \"p5\"}, \"io_p95\": {\"actor\": \"io_ms\", \"stat\": \"p95\"},"
           "  \"io_min\": {\"actor\": \"io_ms\", \"stat\": \"min\"}, \"io_max\": {\"actor\": \"io_ms\", \"stat\": \"max\"},"
           "  \"io_mean\": {\"actor\": \"io_ms\", \"stat\": \"mean\"}}}",
           &m);
  for (int reps = 1; reps <= 2; reps++) {
    io_seen *seen = calloc(1, sizeof *seen);
    int ns[] = {1}, ws[] = {1};
    ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = reps, .seed = 3, .model = &m,
                          .horizon = TS_TIME_MAX, .format_samples = seen_io, .samples_ctx = seen};
    ts_sweep s;
    ck_assert_int_eq(ts_sweep_run(&spec, &s), 0);
    const ts_point *p = ts_sweep_find(&s, 0, 1, 1, NULL);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(seen->n[reps - 1], 3000);
    ck_assert_double_eq(seen->v[0][1999], 0);
    ck_assert_double_gt(seen->v[0][2000], 0);
    double want[7];
    const char *col[7] = {"io_ms", "io_p5", "io_p95", "io_min", "io_max", "io_mean", "lock_wait_ms"};
    if (reps == 1) {
      want[0] = bits_of(seen->v[0], 3000, 0.5);
      want[1] = bits_of(seen->v[0], 3000, 0.05);
      want[2] = bits_of(seen->v[0], 3000, 0.95);
      want[3] = gsl_stats_min(seen->v[0], 1, 3000);
      want[4] = gsl_stats_max(seen->v[0], 1, 3000);
      want[5] = gsl_stats_mean(seen->v[0], 1, 3000);
      want[6] = 0;
    }
    for (int k = 0; k < (reps == 1 ? 7 : 0); k++) {
      double got = p->value[ts_sweep_col(&s, col[k])];
      ck_assert_msg(memcmp(&got, &want[k], sizeof got) == 0, "%s: %.17g, GSL %.17g", col[k], got, want[k]);
    }
    if (reps == 2) { /* pooled over both replications, in replication order */
      double got = p->value[ts_sweep_col(&s, "io_ms")];
      double want2 = bits_of(&seen->v[0][0], 6000, 0.5); /* (v[0] then v[1]: one array of 6000) */
      ck_assert_msg(memcmp(&got, &want2, sizeof got) == 0, "pooled io_ms: %.17g, GSL %.17g", got, want2);
    }
    ts_sweep_finish(&s);
    free(seen);
  }
  ts_model_finish(&m);
}
END_TEST

/* The same for the quantities kept in the actor (ts_world.quantities_used):
 * per_group_cpu_ms and slices are taken only once a timed CPU segment ran,
 * queue_wait_ms once a sliced one did. 3000 jobs on one event loop (a 1 ms
 * threshold), the first 2000 with one plain CPU step; then either 500 that
 * also yield (queue time before any sliced segment) and the rest also with
 * a sliced step (timed by default), or only the sliced step from job 2000:
 * every statistic of the three is GSL's on the jobs' values, bit for bit,
 * and io_ms (no job does I/O) is 0. */
typedef struct kept_seen {
  double v[3][3000];
  size_t n;
} kept_seen;

static int seen_kept(void *ctx, const ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo, int rep,
                     ts_text *out)
{
  (void)s, (void)w, (void)combo, (void)rep, (void)out;
  kept_seen *o = ctx;
  ck_assert_uint_lt(o->n, 3000);
  o->v[0][o->n] = ts_time_to_ms(a->timer);
  o->v[1][o->n] = (double)a->slices;
  o->v[2][o->n] = ts_time_to_ms(a->state[TS_ACTOR_QUEUED]);
  o->n++;
  return 0;
}

START_TEST(speed_collector_takes_kept_quantities_once_they_can_move)
{
  /* the first queue time from a yield op, or from a sliced segment's yield
   * to the queue (both through ts__worker_yield); the bit that resume sets
   * for a sliced segment (cpu.c) is a guard no run here reaches first */
  static const char *const then[2] = {
    "  [{\"op\": \"if\", \"cond\": \"i >= 2000\", \"then\": [{\"op\": \"yield\"}, {\"op\": \"cpu\", \"ms\": 0.5}]}]",
    "  []"};
  static const size_t sliced_from[2] = {2500, 2000};
  for (int variant = 0; variant < 2; variant++) {
    char json[2000];
    snprintf(json, sizeof json,
             "{\"worker\": {\"threshold_ms\": 1}, \"classes\": [{\"name\": \"job\", \"count\": 3000,"
             " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 400},"
             " \"program\": [{\"op\": \"cpu\", \"ms\": 0.1}, {\"op\": \"if\", \"cond\": \"i >= %zu\", \"then\":"
             "  [{\"op\": \"cpu\", \"ms\": 2, \"dist\": \"exponential\", \"rows\": 8, \"sliced\": true}], \"else\":"
             " %s}]}],"
             " \"metrics\": {\"t_p5\": {\"actor\": \"per_group_cpu_ms\", \"stat\": \"p5\"},"
             "  \"t_p95\": {\"actor\": \"per_group_cpu_ms\", \"stat\": \"p95\"},"
             "  \"t_mean\": {\"actor\": \"per_group_cpu_ms\", \"stat\": \"mean\"},"
             "  \"s_p99\": {\"actor\": \"slices\", \"stat\": \"p99\"}, \"s_max\": {\"actor\": \"slices\", \"stat\": \"max\"},"
             "  \"q_p95\": {\"actor\": \"queue_wait_ms\", \"stat\": \"p95\"}, \"q_p99\": {\"actor\": \"queue_wait_ms\", \"stat\": \"p99\"},"
             "  \"q_mean\": {\"actor\": \"queue_wait_ms\", \"stat\": \"mean\"}, \"q_min\": {\"actor\": \"queue_wait_ms\", \"stat\": \"min\"}}}",
             sliced_from[variant], then[variant]);
    ts_model m;
    tu_model(json, &m);
    kept_seen *seen = calloc(1, sizeof *seen);
    int ns[] = {1}, ws[] = {1};
    ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 1, .seed = 7, .model = &m,
                          .horizon = TS_TIME_MAX, .format_samples = seen_kept, .samples_ctx = seen};
    ts_sweep s;
    ck_assert_int_eq(ts_sweep_run(&spec, &s), 0);
    const ts_point *p = ts_sweep_find(&s, 0, 1, 1, NULL);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq(seen->n, 3000);
    for (int k = 0; k < 3; k++) { /* timer and slices 0 until the sliced step, queue time until job 2000 */
      size_t from = k < 2 ? sliced_from[variant] : 2000;
      ck_assert_double_eq(gsl_stats_max(seen->v[k], 1, from), 0);
      ck_assert_double_gt(gsl_stats_max(seen->v[k] + from, 1, 500), 0);
    }
    const char *col[] = {"per_group_cpu_ms", "t_p5", "t_p95", "t_mean", "slices", "s_p99", "s_max",
                         "queue_wait_ms", "q_p95", "q_p99", "q_mean", "q_min", "io_ms"};
    const int of[] = {0, 0, 0, 0, 1, 1, 1, 2, 2, 2, 2, 2, -1};
    const double level[] = {0.5, 0.05, 0.95, -1, 0.5, 0.99, -2, 0.5, 0.95, 0.99, -1, -3, 0};
    for (size_t k = 0; k < sizeof col / sizeof *col; k++) {
      double want = 0;
      if (of[k] >= 0) {
        const double *v = seen->v[of[k]];
        want = level[k] == -1 ? gsl_stats_mean(v, 1, 3000)
               : level[k] == -2 ? gsl_stats_max(v, 1, 3000)
               : level[k] == -3 ? gsl_stats_min(v, 1, 3000)
                                : bits_of(v, 3000, level[k]);
      }
      double got = p->value[ts_sweep_col(&s, col[k])];
      ck_assert_msg(memcmp(&got, &want, sizeof got) == 0, "variant %d, %s: %.17g, GSL %.17g", variant, col[k], got, want);
    }
    ts_sweep_finish(&s);
    free(seen);
    ts_model_finish(&m);
  }
}
END_TEST

/* A format_samples that writes nothing: the collector then takes each actor
 * from its whole record (collect.c take), not from the actor itself. */
static int no_rows(void *ctx, const ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo, int rep,
                   ts_text *out)
{
  (void)ctx, (void)s, (void)w, (void)a, (void)combo, (void)rep, (void)out;
  return 0;
}

/* An actor taken in ts__collect_done's own frame (collect.c's direct path:
 * no samples rows, one replication, nothing pooled) gives every column the
 * bits that taking its whole record gives: two classes with a row each, a
 * wave marked in one, the mean, ends and quantiles of quantities whose
 * values differ from the second actor on, and one (lock wait) that joins
 * the live ones later. */
START_TEST(speed_direct_take_is_the_record_take)
{
  ts_model m;
  tu_model("{\"locks\": [{\"name\": \"l\", \"scope\": \"shared\"}], \"classes\": ["
           " {\"name\": \"job\", \"report\": true, \"count\": 3000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 400},"
           "  \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"},"
           "   {\"op\": \"mark\", \"name\": \"wave_start\"},"
           "   {\"op\": \"io\", \"ms\": 2, \"dist\": \"exponential\"}]},"
           " {\"name\": \"bg\", \"report\": true, \"count\": 500, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 100},"
           "  \"program\": [{\"op\": \"if\", \"cond\": \"i >= 250\", \"then\": [{\"op\": \"lock\", \"lock\": \"l\"},"
           "   {\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"}, {\"op\": \"unlock\", \"lock\": \"l\"}]},"
           "   {\"op\": \"cpu\", \"ms\": 0.2}]}],"
           " \"metrics\": {\"w_mean\": {\"actor\": \"wave_ms\", \"stat\": \"mean\"},"
           "  \"w_max\": {\"actor\": \"wave_ms\", \"stat\": \"max\"}, \"w_min\": {\"actor\": \"wave_ms\", \"stat\": \"min\"},"
           "  \"io_mean\": {\"actor\": \"io_ms\", \"stat\": \"mean\"}, \"io_p5\": {\"actor\": \"io_ms\", \"stat\": \"p5\"},"
           "  \"r_mean\": {\"actor\": \"ready_wait_ms\", \"stat\": \"mean\"},"
           "  \"r_max\": {\"actor\": \"ready_wait_ms\", \"stat\": \"max\"},"
           "  \"l_mean\": {\"actor\": \"lock_wait_ms\", \"stat\": \"mean\"},"
           "  \"l_p99\": {\"actor\": \"lock_wait_ms\", \"stat\": \"p99\"},"
           "  \"c_min\": {\"actor\": \"cpu_ms\", \"stat\": \"min\"}}}",
           &m);
  int ns[] = {1}, ws[] = {1};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 1, .seed = 11, .model = &m,
                        .horizon = TS_TIME_MAX};
  ts_sweep a, b;
  ck_assert_int_eq(ts_sweep_run(&spec, &a), 0); /* the direct path */
  spec.format_samples = no_rows;
  ck_assert_int_eq(ts_sweep_run(&spec, &b), 0); /* each actor's record */
  ck_assert_uint_eq(a.npoints, 2);
  ck_assert_uint_eq(a.npoints, b.npoints);
  ck_assert_uint_eq(a.ncols, b.ncols);
  for (size_t p = 0; p < a.npoints; p++)
    for (size_t k = 0; k < a.ncols; k++)
      ck_assert_msg(memcmp(&a.points[p].value[k], &b.points[p].value[k], sizeof(double)) == 0,
                    "point %zu, %s: direct %.17g, record %.17g", p, a.cols[k].name, a.points[p].value[k],
                    b.points[p].value[k]);
  for (size_t p = 0; p < a.npoints; p++) { /* (the values moved: not all zeros or NaN) */
    ck_assert_double_gt(a.points[p].value[ts_sweep_col(&a, "c_min")], 0);
    ck_assert(isfinite(a.points[p].value[ts_sweep_col(&a, "w_mean")]));
  }
  ck_assert_double_gt(a.points[0].value[ts_sweep_col(&a, "io_p5")], 0);
  ck_assert_double_gt(a.points[0].value[ts_sweep_col(&a, "r_max")], 0);
  ts_sweep_finish(&a);
  ts_sweep_finish(&b);
  ts_model_finish(&m);
}
END_TEST

/* The window of actors done out of id order keeps a slot for each and a
 * record only for those it takes (collect.c recs, reused once taken):
 * 3000 jobs on 4 threads, every 50th held 40 ms on I/O so that the jobs
 * after it wait in the window, each spawning a task (not counted: a slot,
 * no record) that ends at once. Every job is handed over once, in id order,
 * with its own record (its CPU (1 + i % 7) * 0.1 ms and its index). */
typedef struct order_seen {
  int n, last, bad;
} order_seen;

static int seen_order(void *ctx, const ts_sweep *s, const ts_world *w, const ts_actor_stats *a, int combo, int rep,
                      ts_text *out)
{
  (void)s, (void)combo, (void)rep, (void)out;
  order_seen *o = ctx;
  const ts_actor *act = ts_world_actor_at(w, a->actor);
  int i = a->actor; /* (one class: its index is its id) */
  o->bad += a->actor <= o->last || a->hidden || a->cpu != (ts_time)(1 + i % 7) * 100000 ||
            (act && act->index != i);
  o->last = a->actor;
  o->n++;
  return 0;
}

START_TEST(speed_window_records_are_the_actors_own)
{
  ts_model m;
  tu_model("{\"worker\": {\"kind\": \"thread\"}, \"classes\": [{\"name\": \"job\", \"count\": 3000,"
           " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 2000}, \"placement\": {\"worker\": \"i % 4\"},"
           " \"program\": [{\"op\": \"spawn\", \"steps\": [{\"op\": \"cpu\", \"ms\": 0.01}]},"
           " {\"op\": \"cpu\", \"ms\": \"(1 + i % 7) * 0.1\"}, {\"op\": \"io\", \"ms\": \"(i % 50 == 0) * 40 + 0.5\"}]}]}",
           &m);
  order_seen seen = {.last = -1};
  int ns[] = {1}, ws[] = {4};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 1, .seed = 5, .model = &m,
                        .horizon = TS_TIME_MAX, .format_samples = seen_order, .samples_ctx = &seen};
  ts_sweep s;
  ck_assert_int_eq(ts_sweep_run(&spec, &s), 0);
  ck_assert_int_eq(seen.n, 3000);
  ck_assert_int_eq(seen.bad, 0);
  ts_sweep_finish(&s);
  ts_model_finish(&m);
}
END_TEST

/* ---- values spilled to a temporary file ---- */

/* The 4 quantiles of v[0..n) through a ts__vals that spills past spill_at
 * (0: never, for these n) into out; the file's count in *files. */
static void vals_quantiles(const double *v, size_t n, size_t spill_at, double *out, int *files)
{
  static const double q[4] = {0.5, 0.95, 0.99, 0.05};
  ts__vals s = {.spill_at = spill_at};
  for (size_t i = 0; i < n; i++)
    ck_assert_int_eq(ts__vals_push(&s, v[i]), 0);
  *files += s.f != NULL;
  ck_assert_uint_eq(s.written + s.mem.len + s.zeros, n);
  ck_assert_int_eq(ts__vals_quantiles(&s, q, 4, out), 0);
  ts__vals_finish(&s);
}

/* Quantiles of spilled values (radix selection over the file) have the
 * bits of the same values in memory (selection) and of GSL on the sorted
 * values: duplicates, negatives, zeros of both signs (-0 is kept as +0),
 * huge and tiny magnitudes, 1 to 5000 values, thresholds from 1 value up. */
START_TEST(speed_spilled_quantiles_are_in_memory_ones)
{
  static const double q[4] = {0.5, 0.95, 0.99, 0.05};
  static const size_t sizes[] = {1, 2, 3, 4, 5, 17, 100, 1001, 5000};
  static const size_t thresholds[] = {1, 2, 7, 64, 1000};
  uint64_t r = 11;
  double *v = malloc(5000 * sizeof *v), *sorted = malloc(5000 * sizeof *sorted);
  size_t bad = 0;
  int files = 0;
  for (int kind = 0; kind < 4; kind++)
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      size_t n = sizes[si];
      for (size_t i = 0; i < n; i++) {
        uint64_t x = tu_lcg(&r);
        switch (kind) {
        case 0: v[i] = (double)(int)(x % 7) - 3; break;                           /* few values, many ties */
        case 1: v[i] = x % 5 == 0 ? -0.0 : x % 5 == 1 ? 0.0 : (double)(int64_t)(x >> 20) / 1e6 - 4e6; break;
        case 2: { /* any finite double: every exponent, both signs */
          uint64_t b = x;
          double d;
          memcpy(&d, &b, sizeof d);
          v[i] = isfinite(d) ? d : 1.5;
          break;
        }
        default: v[i] = (double)(x >> 40) / 1e6; break;                          /* ms of integer ns */
        }
      }
      for (size_t i = 0; i < n; i++)
        sorted[i] = v[i] + 0.0;
      gsl_sort(sorted, 1, n);
      double want[4], mem[4], got[4];
      for (int k = 0; k < 4; k++)
        want[k] = q[k] == 0.5 ? gsl_stats_median_from_sorted_data(sorted, 1, n)
                              : gsl_stats_quantile_from_sorted_data(sorted, 1, n, q[k]);
      vals_quantiles(v, n, 0, mem, &files);
      bad += memcmp(mem, want, sizeof want) != 0;
      for (size_t ti = 0; ti < sizeof thresholds / sizeof *thresholds; ti++) {
        vals_quantiles(v, n, thresholds[ti], got, &files);
        if (memcmp(got, want, sizeof want) != 0 && bad++ < 5)
          fprintf(stderr, "kind %d n %zu spill at %zu: %.17g %.17g %.17g %.17g, GSL %.17g %.17g %.17g %.17g\n", kind,
                  n, thresholds[ti], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
      }
    }
  ck_assert_uint_eq(bad, 0);
  ck_assert_int_gt(files, 50); /* (the spilled path ran) */
  free(v);
  free(sorted);
}
END_TEST

/* ts__vals_reserve makes the memory for the values expected at once: the
 * pushes up to that many keep it (no growth, no copy); the threshold still
 * caps it (the values past it spill as without a reserve); a reserve once
 * there is memory does nothing. The quantiles are the same either way. */
START_TEST(speed_reserved_values_do_not_grow)
{
  static const double q[4] = {0.5, 0.95, 0.99, 0.05};
  ts__vals a = {0}, b = {.spill_at = 300};
  ts__vals_reserve(&a, 1000);
  ck_assert_uint_eq(a.mem.cap, 1000);
  const double *at = a.mem.v;
  for (int i = 0; i < 1000; i++) {
    ck_assert_int_eq(ts__vals_push(&a, (double)(i * 7 % 1000)), 0);
    ck_assert_int_eq(ts__vals_push(&b, (double)(i * 7 % 1000)), 0);
  }
  ck_assert_ptr_eq(a.mem.v, at);
  ck_assert_uint_eq(a.mem.cap, 1000);
  ts__vals_reserve(&a, 5000);
  ck_assert_uint_eq(a.mem.cap, 1000);
  ts__vals c = {.spill_at = 300};
  ts__vals_reserve(&c, 1000);
  ck_assert_uint_eq(c.mem.cap, 300);
  for (int i = 0; i < 1000; i++)
    ck_assert_int_eq(ts__vals_push(&c, (double)(i * 7 % 1000)), 0);
  ck_assert_ptr_nonnull(c.f);
  ck_assert_uint_eq(c.written + c.mem.len + c.zeros, 1000);
  double qa[4], qb[4], qc[4];
  ck_assert_int_eq(ts__vals_quantiles(&a, q, 4, qa), 0);
  ck_assert_int_eq(ts__vals_quantiles(&b, q, 4, qb), 0);
  ck_assert_int_eq(ts__vals_quantiles(&c, q, 4, qc), 0);
  ck_assert_mem_eq(qa, qb, sizeof qa);
  ck_assert_mem_eq(qa, qc, sizeof qa);
  ts__vals_finish(&a);
  ts__vals_finish(&b);
  ts__vals_finish(&c);
}
END_TEST

/* ts__quantiles (the ranks selected once each, in ascending order, each in
 * the part above the one before) gives each level ts_quantile's bits on its
 * own copy of the values: levels in every order, repeated, one to four of
 * them; ties, negatives, +0, 1 to 3001 values. */
START_TEST(speed_quantiles_at_once_are_one_by_one)
{
  static const double levels[] = {0.5, 0.95, 0.99, 0.05, 1.0 / 3};
  static const size_t sizes[] = {1, 2, 3, 4, 5, 6, 17, 100, 101, 3001};
  uint64_t r = 29;
  double *v = malloc(3001 * sizeof *v), *one = malloc(3001 * sizeof *one), *all = malloc(3001 * sizeof *all);
  size_t bad = 0, runs = 0;
  for (int kind = 0; kind < 4; kind++) /* (3: ascending, with ties: read without selection) */
    for (size_t si = 0; si < sizeof sizes / sizeof *sizes; si++) {
      size_t n = sizes[si];
      for (size_t i = 0; i < n; i++) {
        uint64_t x = tu_lcg(&r);
        v[i] = kind == 0 ? (double)(int)(x % 5) - 2 : kind == 1 ? (double)(int64_t)(x >> 20) / 1e6 - 4e6 : kind == 2 ? (double)(x >> 40) / 1e6 : (double)(int)(x % 97) / 8;
      }
      if (kind == 3)
        gsl_sort(v, 1, n);
      for (int nq = 1; nq <= TS__MAX_QUANTILES; nq++)
        for (int pick = 0; pick < 40; pick++) { /* nq levels drawn from levels[], repeats allowed */
          double q[TS__MAX_QUANTILES], got[TS__MAX_QUANTILES];
          for (int k = 0; k < nq; k++)
            q[k] = levels[tu_lcg(&r) % 5];
          memcpy(all, v, n * sizeof *v);
          ts__quantiles(all, n, q, nq, got);
          for (int k = 0; k < nq; k++) {
            memcpy(one, v, n * sizeof *v);
            double want = kind < 3       ? ts_quantile(one, n, q[k])
                          : q[k] == 0.5 ? gsl_stats_median_from_sorted_data(v, 1, n)
                                        : gsl_stats_quantile_from_sorted_data(v, 1, n, q[k]);
            if (memcmp(&got[k], &want, sizeof want) != 0 && bad++ < 5)
              fprintf(stderr, "kind %d n %zu level %g (%d of %d): %.17g, one by one %.17g\n", kind, n, q[k], k, nq, got[k],
                      want);
          }
          runs++;
        }
    }
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_eq(runs, 4 * 10 * 4 * 40);
  free(v);
  free(one);
  free(all);
}
END_TEST

/* Zeros are counted, not kept (ts__vals.zeros): the quantiles of values
 * with any number of zeros (of both signs), below and above them, have the
 * bits of GSL's on all the values sorted, in memory and spilled; every
 * rank position against the zeros is met (a level's two ranks below them,
 * straddling their first or last, among them, above them), with 1 to 40
 * values and 0, 1 or 3 negatives. The values differ from each other, so a
 * rank off by one reads another value. */
START_TEST(speed_quantiles_of_counted_zeros_are_all_values)
{
  static const double q[4] = {0.5, 0.95, 0.99, 0.05}; /* (vals_quantiles's) */
  static const size_t negs[] = {0, 1, 3};
  double v[40], sorted[40];
  uint64_t r = 41;
  size_t bad = 0, straddle = 0, zeros_read = 0, runs = 0;
  int files = 0;
  for (size_t n = 1; n <= 40; n++)
    for (size_t ni = 0; ni < 3; ni++)
      for (size_t z = 0; negs[ni] + z <= n; z++) {
        size_t neg = negs[ni], pos = n - neg - z;
        for (size_t i = 0; i < neg; i++)
          v[i] = -1.5 - (double)i;
        for (size_t i = 0; i < z; i++)
          v[neg + i] = i % 3 == 1 ? -0.0 : 0.0;
        for (size_t i = 0; i < pos; i++)
          v[neg + z + i] = 0.25 + (double)i;
        for (size_t i = n - 1; i > 0; i--) { /* shuffled */
          size_t j = tu_lcg(&r) % (i + 1);
          double t = v[i];
          v[i] = v[j];
          v[j] = t;
        }
        for (size_t i = 0; i < n; i++)
          sorted[i] = v[i] + 0.0;
        gsl_sort(sorted, 1, n);
        double want[4], mem[4], got[4];
        for (int k = 0; k < 4; k++) {
          want[k] = q[k] == 0.5 ? gsl_stats_median_from_sorted_data(sorted, 1, n)
                                : gsl_stats_quantile_from_sorted_data(sorted, 1, n, q[k]);
          size_t lo, hi;
          ts__quantile_ranks(n, q[k], &lo, &hi);
          straddle += z > 0 && ((lo < neg + z && hi >= neg + z) || (lo < neg && hi >= neg));
          zeros_read += z > 0 && lo >= neg && lo < neg + z;
        }
        vals_quantiles(v, n, 0, mem, &files);
        vals_quantiles(v, n, 3, got, &files);
        runs++;
        if ((memcmp(mem, want, sizeof want) != 0 || memcmp(got, want, sizeof want) != 0) && bad++ < 5)
          fprintf(stderr, "n %zu neg %zu zeros %zu: %.17g %.17g %.17g %.17g, spilled %.17g %.17g %.17g %.17g, GSL %.17g %.17g %.17g %.17g\n",
                  n, neg, z, mem[0], mem[1], mem[2], mem[3], got[0], got[1], got[2], got[3], want[0], want[1], want[2], want[3]);
      }
  ck_assert_uint_eq(bad, 0);
  ck_assert_uint_gt(straddle, 500);
  ck_assert_uint_gt(zeros_read, 500);
  ck_assert_int_gt(files, 1000); /* (the spilled path ran) */
  ck_assert_uint_gt(runs, 2000);
}
END_TEST

/* A sweep whose kept values spill (a threshold of 100 values) gives every
 * value of every column, bit for bit, as one that keeps them in memory;
 * a temporary folder that does not exist fails the sweep with
 * TS_SWEEP_TEMP and a message that names it. */
START_TEST(speed_spilled_sweep_is_the_sweep_in_memory)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"job\", \"count\": 3000, \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 500},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}, {\"op\": \"io\", \"ms\": 2, \"dist\": \"exponential\"}]}],"
           " \"metrics\": {\"w_p5\": {\"actor\": \"wave_ms\", \"stat\": \"p5\"}, \"w_p99\": {\"actor\": \"wave_ms\", \"stat\": \"p99\"},"
           "  \"io_p95\": {\"actor\": \"io_ms\", \"stat\": \"p95\"}, \"cpu_p5\": {\"actor\": \"cpu_ms\", \"stat\": \"p5\"}}}",
           &m);
  int ns[] = {1}, ws[] = {1};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 1, .seed = 5, .model = &m,
                        .horizon = TS_TIME_MAX};
  ts_sweep a, b, c;
  for (int reps = 1; reps <= 10; reps += reps == 1 ? 1 : 8) { /* one, pooled over two, and the bootstrap's ten */
    spec.replications = reps;
    spec.spill_values = 0;
    ck_assert_int_eq(ts_sweep_run(&spec, &a), 0);
    spec.spill_values = 100;
    ck_assert_int_eq(ts_sweep_run(&spec, &b), 0);
    ck_assert_uint_eq(a.npoints, b.npoints);
    ck_assert_uint_eq(a.ncols, b.ncols);
    for (size_t p = 0; p < a.npoints; p++)
      for (size_t k = 0; k < a.ncols; k++) {
        const ts_point *x = &a.points[p], *y = &b.points[p];
        ck_assert_msg(memcmp(&x->value[k], &y->value[k], sizeof(double)) == 0,
                      "%s (%d replications): %.17g, spilled %.17g", a.cols[k].name, reps, x->value[k], y->value[k]);
        ck_assert_msg(memcmp(&x->ci95[k], &y->ci95[k], sizeof(double)) == 0,
                      "%s +-95%% (%d replications): %.17g, spilled %.17g", a.cols[k].name, reps, x->ci95[k],
                      y->ci95[k]);
      }
    ck_assert_double_gt(a.points[0].value[ts_sweep_col(&a, "io_p95")], 0);
    if (reps == 10) /* (a bootstrap interval) */
      ck_assert_double_gt(a.points[0].ci95[ts_sweep_col(&a, "w_p99")], 0);
    ts_sweep_finish(&a);
    ts_sweep_finish(&b);
  }
  const char *old = getenv("TMPDIR");
  char *keep = old ? strdup(old) : NULL;
  setenv("TMPDIR", "/nonexistent-tssim-dir", 1);
  ck_assert_int_eq(ts_sweep_run(&spec, &c), TS_SWEEP_TEMP);
  ck_assert_ptr_nonnull(strstr(c.errmsg, "cannot make a temporary file in /nonexistent-tssim-dir"));
  ck_assert_ptr_null(strchr(c.errmsg, '\n'));
  if (keep)
    setenv("TMPDIR", keep, 1);
  else
    unsetenv("TMPDIR");
  free(keep);
  ts_sweep_finish(&c);
  ts_model_finish(&m);
}
END_TEST

/* The heap in use after each replication is folded (ts_sweep_spec.progress, on the sweep's thread). */
typedef struct heap_seen {
  size_t at[8];
} heap_seen;

static int heap_after_fold(void *data, size_t point, size_t points, int replication)
{
  (void)point;
  (void)points;
  struct mallinfo2 mi = mallinfo2();
  if (replication >= 0 && replication < 8)
    ((heap_seen *)data)->at[replication] = mi.uordblks + mi.hblkhd;
  return 0;
}

/* A point's memory does not grow with its replications: the values its
 * pooled statistics read (a median and p95 over every actor of every
 * replication, a mean) spill past the threshold as one replication's do,
 * so the heap after the 8th replication is folded is within 256 KB of
 * that after the 2nd (it grew by each replication's 20000 actors' values,
 * 8 bytes and a class each, per quantity: above 1 MB). Under a sanitizer's
 * or valgrind's allocator mallinfo2 may count nothing: the bound holds. */
START_TEST(speed_pooled_values_do_not_grow_with_replications)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"job\", \"count\": 20000,"
           " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 500},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}],"
           " \"metrics\": {\"w_p95\": {\"actor\": \"wave_ms\", \"stat\": \"p95\"},"
           "  \"c_mean\": {\"actor\": \"cpu_ms\", \"stat\": \"mean\"}}}",
           &m);
  int ns[] = {1}, ws[] = {1};
  heap_seen seen = {{0}};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = 8, .seed = 5, .model = &m,
                        .horizon = TS_TIME_MAX, .jobs = 1, .spill_values = 1000, .progress = heap_after_fold,
                        .progress_data = &seen};
  ts_sweep s;
  ck_assert_int_eq(ts_sweep_run(&spec, &s), 0);
  ck_assert_msg(seen.at[7] < seen.at[1] + 256 * 1024, "heap %zu after replication 2, %zu after replication 8",
                seen.at[1], seen.at[7]);
  ck_assert_double_gt(s.points[0].value[ts_sweep_col(&s, "w_p95")], 0);
  ts_sweep_finish(&s);
  ts_model_finish(&m);
}
END_TEST

/* ---- a span's samples sorted unless they ascend ---- */

static int cmp_ns(const void *a, const void *b)
{
  ts_time x = *(const ts_time *)a, y = *(const ts_time *)b;
  return (x > y) - (x < y);
}

/* The span statistics of ts_metric_world_values (metrics.c's span_sorted:
 * kept when they already ascend, else gsl_sort) are those of the samples
 * sorted by qsort, in ns, then in ms (the code before it): mean, p50, p95
 * and p99 bit for bit, over samples in one ascending run, in several runs
 * (even and odd counts), descending, random with ties, one, none. */
START_TEST(speed_span_runs_sort_as_qsort)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": [{\"op\": \"span_begin\", \"span\": \"s\"},"
           " {\"op\": \"cpu\", \"ms\": 5}, {\"op\": \"span_end\", \"span\": \"s\"}]}]}",
           &m);
  ts_world w;
  ts_world_spec sp = tu_world_spec(1, 1, 1);
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  ts_metric_list l;
  char err[200];
  ck_assert_int_eq(ts_metric_list_build(&m, &l, err, sizeof err), 0);
  static const char *const names[] = {"s_mean_ms", "s_p50_ms", "s_p95_ms", "s_p99_ms"};
  int at[4];
  for (int k = 0; k < 4; k++)
    ck_assert_int_ge(at[k] = ts_metric_list_find(&l, names[k]), 0);
  double *v = calloc(l.n, sizeof *v);
  ck_assert_ptr_nonnull(v);
  /* (n, runs): how the samples are made below */
  static const size_t cases[][2] = {{1000, 1}, {7000, 7}, {7000, 8}, {64, 8}, {63, 8}, {50, 50},
                                    {5001, 0}, {1, 1},    {2, 2},     {0, 0}};
  uint64_t seed = 11;
  for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
    size_t n = cases[c][0], runs = cases[c][1];
    ts_time *t = malloc((n ? n : 1) * sizeof *t), *ref = malloc((n ? n : 1) * sizeof *ref);
    ck_assert(t && ref);
    for (size_t i = 0; i < n; i++) {
      if (runs == 0) /* random, with ties */
        t[i] = (ts_time)(tu_lcg(&seed) % 500) * 1000003;
      else if (runs == n) /* descending */
        t[i] = (ts_time)(n - i) * 7919;
      else /* runs ascending runs of about n / runs, overlapping, ties among them */
        t[i] = (ts_time)(i % (n / runs + 1)) * 250000 + (ts_time)(i / (n / runs + 1)) * 100000;
    }
    memcpy(ref, t, n * sizeof *t);
    qsort(ref, n, sizeof *ref, cmp_ns);
    ts_time first = n ? t[0] : 0, last = n ? t[n - 1] : 0;
    double *ms = malloc((n ? n : 1) * sizeof *ms);
    ck_assert_ptr_nonnull(ms);
    for (size_t i = 0; i < n; i++)
      ms[i] = ts_time_to_ms(ref[i]);
    double want[4] = {NAN, NAN, NAN, NAN};
    if (n > 0) {
      want[0] = gsl_stats_mean(ms, 1, n);
      want[1] = gsl_stats_quantile_from_sorted_data(ms, 1, n, 0.5);
      want[2] = gsl_stats_quantile_from_sorted_data(ms, 1, n, 0.95);
      want[3] = gsl_stats_quantile_from_sorted_data(ms, 1, n, 0.99);
    }
    free(w.spans[0].v);
    w.spans[0].v = t;
    w.spans[0].len = w.spans[0].cap = n;
    ts_metric_world_values(&l, &w, 0, v);
    for (int k = 0; k < 4; k++)
      ck_assert_msg(memcmp(&v[at[k]], &want[k], sizeof *v) == 0, "case %zu (n %zu): %s %.17g, want %.17g", c, n, names[k],
                    v[at[k]], want[k]);
    if (n) /* the samples are left as they were */
      ck_assert(w.spans[0].v[0] == first && w.spans[0].v[n - 1] == last);
    free(ms);
    free(ref);
  }
  free(v);
  ts_metric_list_finish(&l);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* A point's pooled span statistics (point.c's span_pooled: one copy of a
 * span's samples over the replications, its mean, then the three
 * quantiles at once, for every row) are GSL's over the samples as they
 * ended, replication after replication: the mean in that order, the
 * quantiles of the sorted samples. A model without draws gives the same
 * samples in each of 3 replications, read from one world; two spans of
 * different samples, p95 and p99 on different order statistics, two rows
 * (reported classes). */
START_TEST(speed_span_pooled_stats_are_gsl_on_the_samples)
{
  ts_model m;
  tu_model("{\"classes\": [{\"name\": \"a\", \"count\": 40, \"report\": true, \"program\": ["
           " {\"op\": \"span_begin\", \"span\": \"s\"}, {\"op\": \"cpu\", \"ms\": \"0.37 * i + 0.011 * i * i + 0.3\"},"
           " {\"op\": \"span_end\", \"span\": \"s\"}, {\"op\": \"span_begin\", \"span\": \"t\"},"
           " {\"op\": \"cpu\", \"ms\": \"0.013 * i * i - 0.4 * i + 4.2\"}, {\"op\": \"span_end\", \"span\": \"t\"}]},"
           " {\"name\": \"b\", \"count\": 2, \"report\": true, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
           &m);
  enum { R = 3 };
  ts_world w;
  ts_world_spec sp = tu_world_spec(1, 4, 1);
  ck_assert_int_eq(ts_world_init(&w, &m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(&w), TS_WORLD_OK);
  int ns[] = {1}, ws[] = {4};
  ts_sweep_spec spec = {.ns = ns, .nn = 1, .workers = ws, .nw = 1, .replications = R, .seed = 5, .model = &m,
                        .horizon = TS_TIME_MAX};
  ts_sweep out;
  ck_assert_int_eq(ts_sweep_run(&spec, &out), 0);
  ck_assert_uint_eq(out.npoints, 2);
  static const char *const span[] = {"s", "t"}, *const stat[] = {"mean", "p50", "p95", "p99"};
  for (int s = 0; s < 2; s++) {
    size_t n = w.spans[s].len, k = 0;
    ck_assert_uint_eq(n, 40);
    double v[R * 40], sorted[R * 40], want[4];
    for (int r = 0; r < R; r++)
      for (size_t i = 0; i < n; i++)
        v[k++] = ts_time_to_ms(w.spans[s].v[i]);
    memcpy(sorted, v, sizeof v);
    gsl_sort(sorted, 1, k);
    ck_assert(sorted[0] != sorted[k - 1] && memcmp(sorted, v, sizeof v) != 0); /* (not already sorted) */
    want[0] = gsl_stats_mean(v, 1, k);
    want[1] = gsl_stats_median_from_sorted_data(sorted, 1, k);
    want[2] = gsl_stats_quantile_from_sorted_data(sorted, 1, k, 0.95);
    want[3] = gsl_stats_quantile_from_sorted_data(sorted, 1, k, 0.99);
    for (int st = 0; st < 4; st++) {
      char col[32];
      snprintf(col, sizeof col, "%s_%s_ms", span[s], stat[st]);
      int c = ts_sweep_col(&out, col);
      ck_assert_int_ge(c, 0);
      for (size_t p = 0; p < out.npoints; p++)
        ck_assert_msg(memcmp(&out.points[p].value[c], &want[st], sizeof(double)) == 0, "row %zu %s: %.17g, want %.17g", p,
                      col, out.points[p].value[c], want[st]);
    }
  }
  ts_sweep_finish(&out);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

Suite *speed_stats_suite(void)
{
  Suite *s = suite_create("speed_stats");
  const TTest *const exact[] = {speed_quantile_selection_is_gsl_on_sorted,
                                speed_quantile_of_equal_values_needs_no_selection,
                                speed_ms_fixed_point_is_printf,
                                speed_collector_counts_zeros_before_a_state_is_used,
                                speed_collector_takes_kept_quantities_once_they_can_move,
                                speed_direct_take_is_the_record_take,
                                speed_window_records_are_the_actors_own,
                                speed_spilled_quantiles_are_in_memory_ones,
                                speed_reserved_values_do_not_grow,
                                speed_quantiles_at_once_are_one_by_one,
                                speed_quantiles_of_counted_zeros_are_all_values,
                                speed_spilled_sweep_is_the_sweep_in_memory,
                                speed_pooled_values_do_not_grow_with_replications,
                                speed_span_runs_sort_as_qsort,
                                speed_span_pooled_stats_are_gsl_on_the_samples,
                                NULL};
  tu_tcase(s, "exact", exact, NULL, NULL, 0);
  return s;
}
