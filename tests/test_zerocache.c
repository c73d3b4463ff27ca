/* The main job: the shipped zero-cache model on scenarios/zero-cache-wave.json
 * must keep reproducing the recorded wave table (issue 2's acceptance):
 * wave_ratio within 5% of the recorded value at every N, per-group CPU within
 * 5% of its own mean (the flat-CPU law), lock wait near zero and the lock held
 * at least as long as the wave. Reads the summary.csv that `tssim run` writes. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define MAX_ROWS 16
#define MAX_COLS 256

typedef struct table {
  char *text;                     /* the file, cut into fields in place */
  const char *head[MAX_COLS];
  const char *cell[MAX_ROWS][MAX_COLS];
  int ncols, nrows;
} table;

/* Split summary.csv (no quoted fields) into a header and rows. */
static void table_read(table *t, const char *path)
{
  memset(t, 0, sizeof *t);
  t->text = tu_read_file(path, NULL);
  int row = -1;
  for (char *line = strtok(t->text, "\n"); line; line = strtok(NULL, "\n"), row++) {
    ck_assert_int_lt(row, MAX_ROWS);
    int col = 0;
    for (char *f = line, *comma; f; f = comma ? comma + 1 : NULL, col++) {
      comma = strchr(f, ',');
      if (comma)
        *comma = '\0';
      ck_assert_int_lt(col, MAX_COLS);
      if (row < 0)
        t->head[col] = f;
      else
        t->cell[row][col] = f;
    }
    if (row < 0)
      t->ncols = col;
  }
  t->nrows = row;
}

static double value(const table *t, int row, const char *column)
{
  for (int c = 0; c < t->ncols; c++)
    if (strcmp(t->head[c], column) == 0)
      return atof(t->cell[row][c]);
  ck_abort_msg("summary.csv has no column %s", column);
  return 0;
}

START_TEST(zerocache_reproduces_the_recorded_wave_table)
{
  char dir[512], cmd[1024], path[600], *out;
  tu_mkdtemp(dir, sizeof dir, "zerocache");
  snprintf(cmd, sizeof cmd, "run scenarios/zero-cache-wave.json -q --no-plots -o '%s/run'", dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, NULL), 0);
  free(out);
  snprintf(path, sizeof path, "%s/run/summary.csv", dir);
  table t;
  table_read(&t, path);
  ck_assert_int_eq(t.nrows, 5);
  double mean_cpu = 0;
  for (int r = 0; r < t.nrows; r++)
    mean_cpu += value(&t, r, "per_group_cpu_ms") / t.nrows;
  for (int r = 0; r < t.nrows; r++) {
    double n = value(&t, r, "n"), ratio = value(&t, r, "wave_ratio"), rec = value(&t, r, "recorded_wave_ratio");
    double cpu = value(&t, r, "per_group_cpu_ms"), wave = value(&t, r, "wave_ms");
    ck_assert_msg(rec > 0 && ratio / rec - 1 < 0.05 && ratio / rec - 1 > -0.05,
                  "n=%g: wave_ratio %.3f vs recorded %.3f", n, ratio, rec);
    ck_assert_msg(cpu / mean_cpu - 1 < 0.05 && cpu / mean_cpu - 1 > -0.05, "n=%g: per_group_cpu_ms %.1f vs mean %.1f",
                  n, cpu, mean_cpu);
    ck_assert_msg(value(&t, r, "lock_wait_ms") < 0.5, "n=%g: lock wait", n);
    ck_assert_msg(value(&t, r, "lock_work_ms") >= wave, "n=%g: lock_work_ms below wave_ms", n);
  }
  /* the law itself: the wall clock grows about n times */
  ck_assert_double_gt(value(&t, 4, "wave_ratio"), 12);
  free(t.text);
  tu_rmtree(dir);
}
END_TEST

Suite *zerocache_suite(void)
{
  Suite *s = suite_create("zerocache");
  const TTest *const core[] = {zerocache_reproduces_the_recorded_wave_table, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  return s;
}
