/* A program using libtssim: load a scenario, override model fields, run its
 * sweep and print each point's wave_ms (mean and 95% half-width) and its
 * slowest actor, read from memory (no results folder). Build it against an
 * installed tssim:
 *
 *   cc sweep.c $(pkg-config --cflags --libs tssim) -o sweep
 *   ./sweep scenarios/rr-wave.json 16 params.c_ms=30
 *
 * usage: sweep SCENARIO.json N [PATH=VALUE ...]   (N: the number of actors) */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include <tssim/tssim.h>

int main(int argc, char **argv)
{
  if (argc < 3) {
    fprintf(stderr, "usage: sweep SCENARIO.json N [PATH=VALUE ...]\n");
    return 2;
  }
  tssim_scenario *s;
  tssim_result *r = NULL;
  tssim_error err;
  int n = atoi(argv[2]);
  if (tssim_open(argv[1], &s, &err) != TSSIM_OK) {
    fprintf(stderr, "sweep: %s\n", err.message);
    return err.code;
  }
  for (int i = 3; i < argc; i++)
    if (tssim_set(s, argv[i], &err) != TSSIM_OK)
      goto fail;
  if (tssim_set_n(s, &n, 1, &err) != TSSIM_OK || tssim_run(s, NULL, &r, &err) != TSSIM_OK)
    goto fail;
  int wave = tssim_result_metric_index(r, "wave_ms");
  int col = tssim_result_actor_column_index(r, "wave_ms");
  printf("%s with libtssim %s\n%8s %8s %12s %10s %14s\n", tssim_scenario_name(s), tssim_version(), "n", "workers",
         "wave_ms mean", "+-95%", "slowest actor");
  for (size_t p = 0; p < tssim_result_points(r); p++) {
    /* the slowest actor of this point's rows (any replication) */
    double slowest = NAN;
    for (size_t i = 0; i < tssim_result_actors(r); i++) {
      double v = tssim_result_actor_value(r, i, (size_t)col);
      if ((int)tssim_result_actor_value(r, i, 1) == tssim_result_n(r, p) &&
          (int)tssim_result_actor_value(r, i, 2) == tssim_result_workers(r, p) && !isnan(v) &&
          (isnan(slowest) || v > slowest))
        slowest = v;
    }
    printf("%8d %8d %12.3f %10.3f %14.3f\n", tssim_result_n(r, p), tssim_result_workers(r, p),
           tssim_result_mean(r, p, (size_t)wave), tssim_result_ci95(r, p, (size_t)wave), slowest);
  }
  tssim_result_free(r);
  tssim_close(s);
  return 0;
fail:
  fprintf(stderr, "sweep: %s\n", err.message);
  tssim_close(s);
  return err.code;
}
