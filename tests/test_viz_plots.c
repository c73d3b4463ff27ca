/* Seeing the model: the gnuplot plots tssim run draws beside summary.csv.
 * CLI tests run the built binary (TSSIM_BINARY). */
#include <check.h>
#include <cjson/cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "engine/rng.h"
#include "model/state.h"
#include "viz/explain.h"
#include "viz/gantt.h"
#include "viz/plot.h"
#include "viz/timeline.h"
#include "viz/trace.h"
#include "viz/vizopt.h"

#include "testutil.h"
#include "vizutil.h"

static char tmpdir[512];

/* ---- plots ---- */

static int exists(const char *dir, const char *name)
{
  char path[1024];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 && st.st_size > 0;
}

START_TEST(viz_plot_with_and_without_gnuplot)
{
  char args[1024], res[700];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  snprintf(res, sizeof res, "%s/res", tmpdir);
  snprintf(args, sizeof args, "run " LOCK " -q --no-plots -o '%s'", res);
  ck_assert_int_eq(tu_tssim(args, NULL, NULL), 0);
  char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", "/nonexistent", 1); /* no gnuplot: nothing drawn, no failure */
  ck_assert_int_eq(ts_plot_results(res, 1), 0);
  setenv("PATH", path, 1);
  free(path);
  ck_assert(!exists(res, "wave.png"));
  if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
    ck_assert_int_eq(ts_plot_results(res, 1), 5);
    static const char *const files[] = {"wave", "cpu", "ratio", "decomposition", "queue"};
    for (int i = 0; i < 5; i++) {
      char name[64];
      snprintf(name, sizeof name, "%s.png", files[i]);
      ck_assert_msg(exists(res, name), "missing %s", name);
      snprintf(name, sizeof name, "%s.svg", files[i]);
      ck_assert_msg(exists(res, name), "missing %s", name);
    }
  }
  ck_assert_int_eq(ts_plot_results("/nonexistent-folder", 1), 0);
  tu_rmtree(tmpdir);
}
END_TEST

/* A model that calls a server: the decomposition draws its call wait (the
 * server's queue) beside own CPU; one without calls has no such bar. */
START_TEST(viz_decomposition_draws_the_server_wait)
{
  if (system("command -v gnuplot >/dev/null 2>&1") != 0)
    return; /* nothing is drawn without gnuplot */
  char dir[256], args[700], path[800];
  const char *model =
      "{\"name\": \"o\", \"pools\": [{\"name\": \"srv\", \"kind\": \"thread\", \"count\": 1}],"
      " \"servers\": [{\"name\": \"desk\", \"pool\": \"srv\"}],"
      " \"classes\": [{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"call\", \"server\": \"desk\","
      " \"handler\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  for (int calls = 0; calls <= 1; calls++) {
    ck_assert_int_eq(tu_run_files("viz-decomp", calls ? model : "{\"name\": \"o\", \"classes\": [{\"name\": "
                                  "\"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
                                  "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 4], \"workers\": [1]}", dir,
                                  sizeof dir, NULL, NULL),
                     0);
    snprintf(args, sizeof args, "run %s/s.json -o %s/plots -q", dir, dir);
    ck_assert_int_eq(tu_tssim(args, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/plots/decomposition.svg", dir);
    char *svg = tu_read_file(path, NULL);
    ck_assert_msg((strstr(svg, "call wait (server queue, legs)") != NULL) == calls, "calls %d", calls);
    ck_assert_ptr_nonnull(strstr(svg, "own CPU"));
    free(svg);
    tu_rmtree(dir);
  }
}
END_TEST

/* TSSIM_PLOTS_DIR holding only an edited wave.gp: wave is drawn by it, the
 * other plots by the compiled-in scripts; a script there that cannot be read
 * (a folder, a dangling link) is not drawn, and neither is anything when
 * TSSIM_PLOTS_DIR is not a folder (each plot says why). */
START_TEST(viz_plots_dir_with_one_script_falls_back_to_the_built_in_ones)
{
  if (system("command -v gnuplot >/dev/null 2>&1") != 0)
    return; /* nothing is drawn without gnuplot */
  char args[1024], res[700], scripts[700], path[800];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  snprintf(res, sizeof res, "%s/res", tmpdir);
  snprintf(scripts, sizeof scripts, "%s/scripts", tmpdir);
  ck_assert_int_eq(mkdir(scripts, 0755), 0);
  snprintf(args, sizeof args, "run " LOCK " -q --no-plots -o '%s'", res);
  ck_assert_int_eq(tu_tssim(args, NULL, NULL), 0);
  snprintf(path, sizeof path, "%s/wave.gp", scripts);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("set terminal svg size 200, 100\nset output png\nset title 'edited-wave'\nplot x\n"
        "set terminal svg size 200, 100\nset output svg\nplot x\nset output\n",
        f);
  fclose(f);
  setenv("TSSIM_PLOTS_DIR", scripts, 1);
  int drawn = ts_plot_results(res, 1);
  /* a folder named cpu.gp and a dangling link queue.gp are scripts that cannot be read, not absent ones */
  snprintf(path, sizeof path, "%s/cpu.gp", scripts);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/queue.gp", scripts);
  ck_assert_int_eq(symlink("no-such-script.gp", path), 0);
  int unreadable = ts_plot_results(res, 1);
  snprintf(path, sizeof path, "%s/cpu.gp", scripts);
  ck_assert_int_eq(rmdir(path), 0);
  snprintf(path, sizeof path, "%s/queue.gp", scripts);
  ck_assert_int_eq(unlink(path), 0);
  snprintf(path, sizeof path, "%s/nonexistent", tmpdir);
  setenv("TSSIM_PLOTS_DIR", path, 1);
  int none = ts_plot_results(res, 1);
  unsetenv("TSSIM_PLOTS_DIR");
  ck_assert_int_eq(drawn, 5);
  ck_assert_int_eq(unreadable, 3);
  ck_assert_int_eq(none, 0);
  snprintf(path, sizeof path, "%s/wave.svg", res);
  char *wave = tu_read_file(path, NULL);
  snprintf(path, sizeof path, "%s/cpu.svg", res);
  char *cpu = tu_read_file(path, NULL);
  ck_assert_ptr_nonnull(strstr(wave, "edited-wave"));
  ck_assert_ptr_null(strstr(cpu, "edited-wave"));
  free(wave);
  free(cpu);
  tu_rmtree(tmpdir);
}
END_TEST

Suite *viz_plots_suite(void)
{
  Suite *s = suite_create("viz_plots");
  const TTest *const cli[] = {viz_plot_with_and_without_gnuplot, viz_decomposition_draws_the_server_wait,
                              viz_plots_dir_with_one_script_falls_back_to_the_built_in_ones, NULL};
  tu_tcase(s, "cli", cli, NULL, NULL, 120);
  return s;
}
