/* The round-robin reference: models/rr-wave.json against the closed form.
 * N actors each need C = 400 ms in q = 10 ms slices (1 ms rows, 9 ms
 * threshold), FIFO, no overheads, actor i on worker i mod W. On a worker with
 * m actors, the one of local index j finishes in the last round at
 * (m * (C/q - 1) + j + 1) * q, so the last completion is ceil(N/W) * C.
 * Also the whole scenario (scenarios/rr-wave.json through `tssim run`)
 * against the files main wrote before the core reshape (tests/data/expected). */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/model_json.h"
#include "model/world.h"

#include "testutil.h"

#define Q_NS (10 * TS_NS_PER_MS)
#define C_NS (400 * TS_NS_PER_MS)
#define ROUNDS (C_NS / Q_NS)

static ts_model rr;

static void load_rr_with(const char *set)
{
  char *path = tu_source_path("models/rr-wave.json");
  ts_err e;
  const char *sets[] = {set};
  ck_assert_msg(ts_model_load(path, sets, set ? 1 : 0, &rr, NULL, &e) == 0, "%s", e.msg);
  free(path);
}

static void load_rr(void)
{
  load_rr_with(NULL);
}

static void unload_rr(void)
{
  ts_model_finish(&rr);
}

/* Actors on worker k under round robin: those with i mod w == k. */
static int local_count(int n, int w, int k)
{
  return n / w + (k < n % w);
}

/* Run (n, w) and check every actor against the closed form (reporting the
 * first actor that differs; one assertion per world, not per actor). */
static void check_wave(int n, int w)
{
  ts_world world;
  ts_world_spec spec = tu_world_spec(n, w, 1);
  ck_assert_int_eq(ts_world_init(&world, &rr, &spec, NULL), 0);
  ck_assert_int_eq(ts_world_run(&world), TS_WORLD_OK);
  ck_assert_int_eq(world.nactors, n);
  int64_t total_slices = 0;
  ts_time last = 0;
  for (int i = 0; i < n; i++) {
    ts_actor_stats as = ts_world_stats(&world, i);
    const ts_actor_stats *a = &as;
    int k = i % w, m = local_count(n, w, k);
    ts_time want = ((ts_time)m * (ROUNDS - 1) + i / w + 1) * Q_NS;
    if (a->worker != k || a->done != want || a->slices != ROUNDS || a->yields != ROUNDS - 1 || a->timer != C_NS)
      ck_abort_msg("n=%d w=%d actor %d: worker %d (want %d), done %lld ns (want %lld), slices %lld (want %lld), "
                   "yields %lld, timer %lld ns",
                   n, w, i, a->worker, k, (long long)a->done, (long long)want, (long long)a->slices,
                   (long long)ROUNDS, (long long)a->yields, (long long)a->timer);
    total_slices += a->slices;
    if (a->done > last)
      last = a->done;
  }
  ck_assert_int_eq(total_slices, (int64_t)n * ROUNDS);
  ck_assert_int_eq(last, (ts_time)((n + w - 1) / w) * C_NS);
  ts_world_finish(&world);
}

START_TEST(rrwave_model_loads_as_documented)
{
  ck_assert_str_eq(rr.name, "rr-wave");
  ck_assert_uint_eq(rr.npools, 1);
  ck_assert_ptr_eq(rr.pools[0].policy, &ts_sched_fifo);
  ck_assert_int_eq(rr.pools[0].threshold, 9 * TS_NS_PER_MS);
  ck_assert_int_eq(rr.dispatch, TS_DISPATCH_ROUND_ROBIN);
  ck_assert_int_eq(rr.pools[0].yield_overhead, 0);
  ck_assert_int_eq(rr.pools[0].loop_overhead, 0);
  ck_assert_uint_eq(rr.nclasses, 1);
  ck_assert_str_eq(ts_expr_text(rr.classes[0].count), "n"); /* the sweep's n */
  ck_assert(ts_expr_uses(rr.classes[0].count, TS_VAR_N));
  ck_assert_uint_eq(rr.classes[0].nsteps, 1);
  ck_assert_ptr_eq(rr.classes[0].steps[0].type, &ts_op_cpu);
  ck_assert_int_eq(rr.classes[0].steps[0].cost.mean, C_NS);
  ck_assert_int_eq(rr.classes[0].steps[0].rows, 400);
  ck_assert(rr.classes[0].steps[0].sliced);
}
END_TEST

START_TEST(rrwave_one_worker_16)
{
  check_wave(16, 1);
}
END_TEST

START_TEST(rrwave_small_uneven)
{
  check_wave(1, 1);
  check_wave(3, 1);
  check_wave(7, 3);
  check_wave(5, 8); /* fewer actors than workers */
}
END_TEST

START_TEST(rrwave_eight_workers_1000)
{
  check_wave(1000, 8);
}
END_TEST

START_TEST(rrwave_eight_workers_100000)
{
  check_wave(100000, 8);
}
END_TEST

START_TEST(rrwave_threshold_set_changes_quantum)
{
  /* threshold 19 ms: 20 ms slices, 20 rounds; one worker of 4 finishes at
   * (4 * 19 + i + 1) * 20 ms */
  load_rr_with("worker.threshold_ms=19");
  ck_assert_int_eq(rr.pools[0].threshold, 19 * TS_NS_PER_MS);
  ts_world world;
  ts_world_spec spec = tu_world_spec(4, 1, 1);
  ck_assert_int_eq(ts_world_init(&world, &rr, &spec, NULL), 0);
  ck_assert_int_eq(ts_world_run(&world), TS_WORLD_OK);
  for (int i = 0; i < 4; i++) {
    ck_assert_int_eq(ts_world_actor(&world, i)->st.slices, 20);
    ck_assert_int_eq(ts_world_actor(&world, i)->st.done, (ts_time)(4 * 19 + i + 1) * 20 * TS_NS_PER_MS);
  }
  ts_world_finish(&world);
  ts_model_finish(&rr);
}
END_TEST

/* ---- the whole scenario against the outputs of the engine before the core reshape ---- */

#define SAMPLES_HEAD_LINES 33

/* Lines of a CSV text (no quoted fields), cut in place. */
typedef struct csv {
  char *text;
  char **line;
  int nlines;
} csv;

static void csv_read(csv *c, const char *path)
{
  c->text = tu_read_file(path, NULL);
  c->nlines = 0;
  for (const char *p = c->text; *p; p++)
    c->nlines += *p == '\n';
  c->line = calloc((size_t)c->nlines + 1, sizeof *c->line);
  ck_assert_ptr_nonnull(c->line);
  int i = 0;
  for (char *p = c->text; *p && i < c->nlines; i++) {
    c->line[i] = p;
    p = strchr(p, '\n');
    *p++ = '\0';
  }
}

static void csv_free(csv *c)
{
  free(c->line);
  free(c->text);
}

/* Field k of line (0 first) into buf (of size cap); 0 when the line has fewer fields. */
static int csv_field(const char *line, int k, char *buf, size_t cap)
{
  for (; k > 0; k--) {
    line = strchr(line, ',');
    if (!line)
      return 0;
    line++;
  }
  size_t len = strcspn(line, ",");
  ck_assert_uint_lt(len, cap);
  memcpy(buf, line, len);
  buf[len] = '\0';
  return 1;
}

/* Index of the field equal to name in header, or -1. */
static int csv_column(const char *header, const char *name)
{
  char f[256];
  for (int k = 0; csv_field(header, k, f, sizeof f); k++)
    if (strcmp(f, name) == 0)
      return k;
  return -1;
}

/* The first word of `sha256sum path`. */
static void sha256_of(const char *path, char *hex, size_t cap)
{
  char cmd[PATH_MAX + 32];
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "sha256sum '%s'", path), (int)sizeof cmd);
  FILE *p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(fscanf(p, "%64s", hex), 1);
  ck_assert_int_eq(pclose(p), 0);
  ck_assert_uint_lt(strlen(hex), cap);
}

START_TEST(rrwave_run_matches_outputs_before_the_reshape)
{
  char dir[512], out[600], args[1024], *text;
  tu_mkdtemp(dir, sizeof dir, "rrwave");
  snprintf(out, sizeof out, "%s/run", dir);
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --no-plots -o '%s' -q", out);
  int status = tu_tssim(args, &text, NULL);
  ck_assert_msg(status == 0, "exit %d: %s", status, text);
  free(text);
  /* (a) every column the summary had, by name, byte for byte (new columns may follow) */
  char *want_path = tu_source_path("tests/data/expected/rr-wave-summary.csv"), got_path[700];
  snprintf(got_path, sizeof got_path, "%s/summary.csv", out);
  csv want, got;
  csv_read(&want, want_path);
  csv_read(&got, got_path);
  ck_assert_int_eq(got.nlines, want.nlines);
  char name[256], w[256], g[256];
  int ncols = 0;
  for (int k = 0; csv_field(want.line[0], k, name, sizeof name); k++, ncols++) {
    int c = csv_column(got.line[0], name);
    ck_assert_msg(c >= 0, "summary.csv lost column %s", name);
    for (int r = 1; r < want.nlines; r++) {
      ck_assert(csv_field(want.line[r], k, w, sizeof w));
      ck_assert_msg(csv_field(got.line[r], c, g, sizeof g), "summary.csv row %d has no field %s", r, name);
      ck_assert_msg(strcmp(w, g) == 0, "summary.csv row %d, %s: %s, was %s", r, name, g, w);
    }
  }
  ck_assert_int_eq(ncols, 17);
  csv_free(&want);
  csv_free(&got);
  free(want_path);
  /* (b) samples.csv is unchanged as a whole */
  char want_hex[80], got_hex[80];
  want_path = tu_source_path("tests/data/expected/rr-wave-samples.sha256");
  text = tu_read_file(want_path, NULL);
  ck_assert_int_eq(sscanf(text, "%64s", want_hex), 1);
  free(text);
  free(want_path);
  snprintf(got_path, sizeof got_path, "%s/samples.csv", out);
  sha256_of(got_path, got_hex, sizeof got_hex);
  ck_assert_str_eq(got_hex, want_hex);
  /* (c) its first lines, readable when (b) fails */
  want_path = tu_source_path("tests/data/expected/rr-wave-samples-head.csv");
  char *want_head = tu_read_file(want_path, NULL), *samples = tu_read_file(got_path, NULL), *end = samples;
  for (int i = 0; i < SAMPLES_HEAD_LINES && end; i++)
    if ((end = strchr(end, '\n')))
      end++;
  ck_assert_ptr_nonnull(end);
  *end = '\0';
  ck_assert_str_eq(samples, want_head);
  free(samples);
  free(want_head);
  free(want_path);
  tu_rmtree(dir);
}
END_TEST

Suite *rrwave_suite(void)
{
  Suite *s = suite_create("rrwave");
  const TTest *const core[] = {rrwave_model_loads_as_documented,
                               rrwave_one_worker_16,
                               rrwave_small_uneven,
                               rrwave_eight_workers_1000,
                               NULL};
  const TTest *const limits[] = {rrwave_eight_workers_100000, NULL};
  const TTest *const set[] = {rrwave_threshold_set_changes_quantum, NULL};
  const TTest *const outputs[] = {rrwave_run_matches_outputs_before_the_reshape, NULL};
  tu_tcase(s, "core", core, load_rr, unload_rr, 0);
  tu_tcase(s, "limits", limits, load_rr, unload_rr, 300);
  tu_tcase(s, "set", set, NULL, NULL, 0);
  tu_tcase(s, "outputs", outputs, NULL, NULL, 300);
  return s;
}
