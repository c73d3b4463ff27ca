/* Hard runs (issue 21): what a run says of a point that fails while
 * running (by its axis labels), of arrivals that outpace the workers, of a
 * sweep over n that the model does not read, of identical replications, of
 * actors alive at once past the bound, and of a window past the run. */
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hardutil.h"
#include "testutil.h"

/* ---- messages name what failed where ---- */

/* A step failing while running names the sweep point by the scenario's
 * axis names and value labels (policy=fifo variant=broken), not by axis
 * and value indexes; the JSON path of the step follows. */
START_TEST(hard_run_time_failure_names_the_axis_labels)
{
  tu_write_file(at("m.json"), "{\"params\": {\"k\": 0}, \"worker\": {\"policy\": \"fifo\"},\n"
                              " \"locks\": [{\"name\": \"g\", \"scope\": \"indexed\", \"instances\": 2}],\n"
                              " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [\n"
                              "  {\"op\": \"lock\", \"lock\": \"g\", \"index\": \"i + $k\"}, {\"op\": \"cpu\", \"ms\": 1},\n"
                              "  {\"op\": \"unlock\", \"lock\": \"g\"}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"ax\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1],\n"
                              " \"axes\": {\"policy\": {\"path\": \"worker.policy\", \"values\": [\"fifo\", \"shortest_first\"]},\n"
                              "  \"variant\": {\"sets\": {\"fine\": {\"params.k\": 0}, \"broken\": {\"params.k\": 5}}}}}\n");
  char *err;
  ck_assert_int_eq(run_set("out", "", &err), 2);
  ck_assert_msg(strstr(err, "/m.json: n=1 workers=1 replication 0 policy=fifo variant=broken: classes[0].program[0]: "
                            "index \"i + $k\" is 5 for actor 0 (class a, i = 0): expected an integer in [0, 2)\n"),
                "%s", err);
  free(err);
}
END_TEST

/* An indexed lock's index that is in range but not an integer (0.5, just
 * below 1) fails the run, named, as one out of range does. */
START_TEST(hard_index_that_is_not_an_integer_fails)
{
  static const char *const ks[] = {"0.5", "0.9999999999"};
  for (int k = 0; k < 2; k++) {
    char model[1024], want[256];
    snprintf(model, sizeof model,
             "{\"params\": {\"k\": %s}, \"worker\": {\"policy\": \"fifo\"},\n"
             " \"locks\": [{\"name\": \"g\", \"scope\": \"indexed\", \"instances\": 2}],\n"
             " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": [\n"
             "  {\"op\": \"lock\", \"lock\": \"g\", \"index\": \"i + $k\"}, {\"op\": \"cpu\", \"ms\": 1},\n"
             "  {\"op\": \"unlock\", \"lock\": \"g\"}]}]}\n",
             ks[k]);
    tu_write_file(at("m.json"), model);
    tu_write_file(at("s.json"), "{\"name\": \"frac\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}\n");
    char *err;
    ck_assert_int_eq(run_set("out", "", &err), 2);
    snprintf(want, sizeof want, "index \"i + $k\" is %s for actor 0 (class a, i = 0): expected an integer in [0, 2)\n",
             k ? "0.9999999999" : "0.5"); /* (%g printed it as 1, an integer in range) */
    ck_assert_msg(strstr(err, want), "%s", err);
    free(err);
  }
}
END_TEST

/* ---- arrivals that outpace the workers ---- */

/* An open class of fixed count (Poisson at 2000/s, a 1 ms exponential job)
 * on workers offered rho = lambda E[S] / c >= 1 is said once per point, by
 * class and rho (the old binary said nothing: its t_mean only grows with the
 * count); at 4 workers (rho 0.5), or at 500/s on one, nothing is said. */
START_TEST(hard_overloaded_fixed_count_is_said)
{
  tu_write_file(at("m.json"), "{\"params\": {\"rate\": 2000}, \"classes\": [{\"name\": \"job\", \"count\": 3000,\n"
                              " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": \"$rate\"},\n"
                              " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"o\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1, 2, 4], "
                              "\"replications\": 2}\n");
  char *err;
  ck_assert_int_eq(run_set("o", "", &err), 0);
  ck_assert_msg(strstr(err, "tssim: note: 2 point(s) run an open class of fixed count on workers offered more than "
                            "they serve (the first: class job at n=1 workers=1, rho = lambda E[S] / c = 2, as tssim "
                            "explain gives it): its queue grows until its last arrival, so its waits and times grow "
                            "with its count (the run's length), not toward a steady state\n"), "%s", err);
  free(err);
  ck_assert_int_eq(run_set("o", "--set params.rate=500", &err), 0);
  ck_assert_msg(!strstr(err, "fixed count"), "%s", err);
  free(err);
}
END_TEST

/* A class that arrives until the horizon faster than its worker serves it
 * (a 2 ms job every 1 ms on one event loop: load 2) ends with half of its
 * arrivals not done (arrivals at 0, 1, ..., 1000 ms; job k done at 2k + 2 ms:
 * 500 done); the run says so on stderr (exit 0: the metrics are what
 * happened until the horizon). The same class at load 0.5 leaves at most one
 * job, and the run says nothing. sensitivity, optimize and calibrate say it
 * once, summed. calibrate's first is that of its first evaluation, the start
 * (a 1 ms job every 0.1 ms: 9001 of 10001 not done), with any number of
 * threads, though with two the other evaluates a quasi-random start (a
 * longer period: fewer arrivals, done sooner) at the same time; a search of
 * periods of 2-4 ms says nothing. */
START_TEST(hard_backlog_at_the_horizon_is_said)
{
  tu_write_file(at("m.json"), "{\"params\": {\"cost\": 2}, \"classes\": [{\"name\": \"job\", \"count\": \"forever\",\n"
                              " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 1},\n"
                              " \"program\": [{\"op\": \"cpu\", \"ms\": \"$cost\"}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"b\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], "
                              "\"replications\": 2, \"horizon_ms\": 1000}\n");
  char *err;
  ck_assert_int_eq(run_set("b", "", &err), 0);
  ck_assert(drop_identical(err)); /* periodic arrivals, fixed costs: nothing random */
  ck_assert_str_eq(err, "tssim: note: 2 replication(s) ended with a backlog (the first: n=1 workers=1 replication 0: "
                        "501 of 1001 arrivals not done at 1000 ms): the arrivals may outpace the workers (an offered "
                        "load above what they serve), and then the metrics describe a queue that grew until the "
                        "horizon, not a steady state\n");
  free(err);
  ck_assert_int_eq(run_set("b", "--set params.cost=0.5", &err), 0);
  ck_assert(drop_identical(err));
  ck_assert_str_eq(past_replacing(err), "");
  free(err);
  /* sensitivity and optimize say it too (once, summed over their sweeps), and not at load 0.5 */
  static const char *const explore[] = {"sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param params.cost "
                                        "--scales 1 --metric wave_ms --set params.cost=%s",
                                        "optimize '%s/s.json' -q --no-plots -o '%s/x' --minimize wave_ms "
                                        "--grid 3 --max-evals 6 --field params.cost=%s"};
  static const char *const values[][2] = {{"2", "0.5"}, {"1.5:2 --set params.cost=2", "0.1:0.5 --set params.cost=0.5"}};
  for (int k = 0; k < 4; k++) {
    char args[3 * PATH_MAX];
    snprintf(args, sizeof args, explore[k / 2], tmp, tmp, values[k / 2][k % 2]);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    if (k % 2) {
      ck_assert_msg(!strstr(err, "backlog"), "%s: %s", args, err);
    } else {
      ck_assert_msg(strstr(err, "replication(s) ended with a backlog (the first: n=1 workers=1 replication 0 "
                                "setting=the scenario's own setting: 501 of 1001 "),
                    "%s: %s", args, err);
    }
    free(err);
  }
  char *said[2] = {NULL, NULL};
  for (int k = 0; k < 4; k++) {
    char model[600], args[5 * PATH_MAX];
    snprintf(model, sizeof model, "{\"params\": {\"p\": 1}, \"free\": [{\"name\": \"p\", \"path\": \"params.p\", "
             "\"min\": %s}], \"classes\": [{\"name\": \"job\", \"count\": \"forever\", \"arrival\": {\"kind\": "
             "\"periodic\", \"period_ms\": \"$p\"}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}\n",
             k < 2 ? "0.1, \"max\": 0.75, \"start\": 0.1" : "2, \"max\": 4, \"start\": 2");
    tu_write_file(at("mc.json"), model);
    tu_write_file(at("bl.json"), "{\"points\": [{\"n\": 1, \"workers\": 1, \"metrics\": {\"wave_ms\": 1000}}]}\n");
    snprintf(args, sizeof args, "calibrate '%s/mc.json' '%s/bl.json' --scenario '%s/s.json' -r 2 --starts 3 --searches 1 "
             "--max-iter 2 -q -o '%s/fitted.json' --jobs %d", tmp, tmp, tmp, tmp, k % 2 + 1);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    ck_assert_msg(drop_identical(err), "%s: %s", args, err);
    if (k < 2) {
      ck_assert_msg(strstr(err, "tssim: note: ") == err && !strstr(err + 1, "tssim: note: ") &&
                      strstr(err, " replication(s) ended with a backlog (the first: n=1 workers=1 replication 0: 9001 "
                                  "of 10001 arrivals not done at 1000 ms): the arrivals may outpace the workers"),
                    "%s: %s", args, err);
      said[k] = err;
    } else {
      ck_assert_msg(!strstr(err, "backlog"), "%s: %s", args, err);
      free(err);
    }
  }
  ck_assert_str_eq(said[0], said[1]); /* --jobs 1 and 2: the same count, the same first */
  free(said[0]);
  free(said[1]);
}
END_TEST

/* A sweep over n of a model that reads n nowhere gets a note (its rows
 * would differ only by their random streams), and so does a --n given to
 * run or explain, unless it is the scenario's own n; a model whose count is
 * n, one whose axis makes its count n in one variant, or one n from the
 * scenario, does not. So do
 * sensitivity (the same sweep) and calibrate (a baseline recording two n). */
START_TEST(hard_n_read_nowhere_is_said)
{
  static const char *const counts[] = {"3", "\"n\""};
  for (int k = 0; k < 2; k++) {
    char model[300];
    snprintf(model, sizeof model, "{\"classes\": [{\"name\": \"a\", \"count\": %s, \"program\": [{\"op\": \"cpu\", "
             "\"ms\": 1, \"dist\": \"exponential\"}]}]}\n", counts[k]);
    tu_write_file(at("m.json"), model);
    for (int many = 0; many < 2; many++) {
      tu_write_file(at("s.json"), many ? "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1]}\n"
                                       : "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1]}\n");
      char *err;
      ck_assert_int_eq(run_set("u", "", &err), 0);
      const char *said = strstr(err, "tssim: note: ");
      if (k == 0 && many) {
        ck_assert_ptr_nonnull(said);
        ck_assert_msg(strstr(said, "/s.json sweeps n over 2 values, but model ") &&
                        strstr(said, "/m.json reads n nowhere (no expression, no host.cpu_scale_by_n): its points "
                                     "differ only by their random streams\n"),
                    "%s", err);
      } else {
        ck_assert_msg(!said, "count %s, %s: %s", counts[k], many ? "n [1, 2]" : "n [2]", err);
      }
      free(err);
    }
    /* one n given by --n, to run and to explain: the same, said as --n */
    for (int view = 0; view < 2; view++) {
      char *err, args[3 * PATH_MAX];
      if (view)
        snprintf(args, sizeof args, "explain '%s/s.json' --n 5", tmp);
      ck_assert_int_eq(view ? tu_tssim(args, NULL, &err) : run_set("u", "--n 5", &err), 0);
      const char *said = strstr(err, "tssim: note: ");
      if (k == 0) {
        ck_assert_msg(said && strstr(said, "tssim: note: --n 5: model ") &&
                        strstr(said, "/m.json reads n nowhere (no expression, no host.cpu_scale_by_n): n changes "
                                     "only the random streams (it enters the seed)\n"),
                      "%s", err);
      } else {
        ck_assert_msg(!said, "count n, --n 5: %s", err);
      }
      free(err);
    }
    /* a --n of the scenario's own n (2) changes nothing, and says nothing */
    tu_write_file(at("s.json"), "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1]}\n");
    for (int view = 0; view < 2; view++) {
      char *err, args[3 * PATH_MAX];
      snprintf(args, sizeof args, "explain '%s/s.json' --n 2", tmp);
      ck_assert_int_eq(view ? tu_tssim(args, NULL, &err) : run_set("u", "--n 2", &err), 0);
      ck_assert_msg(!strstr(err, "tssim: note: "), "count %s, --n 2: %s", counts[k], err);
      free(err);
    }
  }
  tu_write_file(at("s.json"), "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1], "
                              "\"axes\": {\"c\": {\"path\": \"classes[0].count\", \"values\": [3, \"n\"]}}}\n");
  tu_write_file(at("m.json"), "{\"classes\": [{\"name\": \"a\", \"count\": 3, \"program\": [{\"op\": \"cpu\", "
                              "\"ms\": 1}]}]}\n");
  char *err;
  ck_assert_int_eq(run_set("u", "", &err), 0);
  ck_assert_msg(!strstr(err, "tssim: note: "), "an axis variant reads n: %s", err);
  free(err);
  tu_write_file(at("s.json"), "{\"name\": \"u\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1]}\n");
  tu_write_file(at("bl.json"), "{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}}, {\"n\": 2, \"metrics\": "
                               "{\"wave_ms\": 2}}]}\n");
  for (int k = 0; k < 4; k++) {
    char model[300], args[5 * PATH_MAX];
    snprintf(model, sizeof model, "{\"params\": {\"c\": 1}, \"free\": [{\"name\": \"c\", \"path\": \"params.c\", "
             "\"min\": 0.5, \"max\": 2}], \"classes\": [{\"name\": \"a\", \"count\": %s, \"program\": [{\"op\": "
             "\"cpu\", \"ms\": \"$c\"}]}]}\n", counts[k % 2]);
    tu_write_file(at("m.json"), model);
    if (k < 2)
      snprintf(args, sizeof args, "sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param params.c --scales 1 "
               "--metric wave_ms", tmp, tmp);
    else
      snprintf(args, sizeof args, "calibrate '%s/m.json' '%s/bl.json' --starts 0 --max-iter 2 -q -o '%s/f.json'", tmp,
               tmp, tmp);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    ck_assert_msg(drop_identical(err) == (k >= 2), "%s: %s", args, err); /* calibrate's 3 replications */
    char want[3 * PATH_MAX];
    snprintf(want, sizeof want, "tssim: note: %s/%s, but model %s/m.json reads n nowhere (no expression, no "
             "host.cpu_scale_by_n): its points differ only by their random streams\n", tmp,
             k < 2 ? "s.json sweeps n over 2 values" : "bl.json records n at 2 values", tmp);
    if (k % 2)
      ck_assert_msg(!strstr(err, "tssim: note: "), "%s: %s", args, err);
    else
      ck_assert_str_eq(err, want);
    free(err);
  }
}
END_TEST

/* A model without random draws gives every replication the same values:
 * a note says its intervals are 0 because nothing varies (all points, the
 * first named; with -q too), and sensitivity says it as well. A spread on
 * the CPU step, or one replication, says nothing; nor does a random model
 * at a point where a metric happens not to vary (workers 2: no wait),
 * since the others do. A table of metrics that never vary gets the note. */
START_TEST(hard_identical_replications_are_said)
{
  static const char *const models[] = {"", ", \"dist\": \"exponential\""};
  for (int k = 0; k < 2; k++) {
    char model[400];
    snprintf(model, sizeof model, "{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\"}], \"classes\": [{\"name\": "
             "\"a\", \"count\": \"n\", \"program\": [{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"cpu\", "
             "\"ms\": 1%s}, {\"op\": \"unlock\", \"lock\": \"m\"}]}]}\n", models[k]);
    tu_write_file(at("m.json"), model);
    tu_write_file(at("s.json"), "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [2, 3], \"workers\": [1, 2], "
                                "\"replications\": 3, \"table\": [\"wave_ms\", \"mutex_wait_ms\"]}\n");
    char *err;
    ck_assert_int_eq(run_set("d", "", &err), 0);
    /* hash dispatch of fixed ids on 2 workers over 3 replications: said too (docs/output.md) */
    ck_assert_msg(drop_fixed_placement(err), "%s", err);
    if (k == 0)
      ck_assert_str_eq(past_replacing(err), IDENTICAL_NOTE "4" IDENTICAL_REST "n=2 workers=1): the model draws nothing "
                       "random that reaches the metrics, so the 95% intervals are 0 because nothing varies, not "
                       "because the estimates are exact, and more replications add nothing; give CPU steps a spread "
                       "(\"dist\": \"lognormal\", \"cv\": 0.3) or the arrivals randomness (\"poisson\", or "
                       "\"jitter_ms\") (docs/language.md)\n");
    else
      ck_assert_str_eq(past_replacing(err), "");
    free(err);
    ck_assert_int_eq(run_set("d", "-r 1", &err), 0);
    ck_assert_str_eq(past_replacing(err), "");
    free(err);
    char args[3 * PATH_MAX];
    snprintf(args, sizeof args, "sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param 'classes[0].program[1].ms' "
             "--scales 1 --metric wave_ms", tmp, tmp);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
    ck_assert_msg((strstr(err, "tssim: note: every setting tried gave identical replications (") != NULL) == (k == 0),
                  "%s: %s", args, err);
    free(err);
  }
  /* the random model, with a table of a metric it never makes vary (one worker: no lock wait) */
  tu_write_file(at("s.json"), "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [2], \"workers\": [1], "
                              "\"replications\": 3, \"table\": [\"mutex_wait_ms\"]}\n");
  char *err;
  ck_assert_int_eq(run_set("d", "", &err), 0);
  ck_assert_msg(strstr(err, IDENTICAL_NOTE "1" IDENTICAL_REST "n=2 workers=1)"), "%s", err);
  free(err);
}
END_TEST

/* A world stops an arrival that would make more than spec.max_alive actors
 * alive at once (TS_WORLD_MAX_ACTORS, 10,000,000, without one) with
 * TS_WORLD_MODEL and a line naming the class, instead of growing until
 * memory runs out: 100 alive at most, a 2 ms job every 1 ms (job k arrives at
 * k ms and is done at 2k + 2 ms), so the arrival at 199 ms (199 made, 99
 * done) is refused. A spec asking for more than
 * TS_WORLD_MAX_ACTORS gets TS_WORLD_MAX_ACTORS. */
START_TEST(hard_actors_alive_at_once_are_bounded)
{
  ts_model m;
  tu_model("{\"name\": \"t\", \"classes\": [{\"name\": \"job\", \"count\": \"forever\", \"arrival\": {\"kind\": "
           "\"periodic\", \"period_ms\": 1}, \"program\": [{\"op\": \"cpu\", \"ms\": 2}]}]}",
           &m);
  for (int k = 0; k < 2; k++) {
    ts_world w;
    ts_world_spec spec = tu_world_spec(1, 1, 1);
    spec.horizon = ts_time_from_ms(1000);
    spec.max_alive = k ? TS_WORLD_MAX_ACTORS + 1 : 100;
    ck_assert_int_eq(ts_world_init(&w, &m, &spec, NULL), 0);
    int rc = ts_world_run(&w);
    if (k) {
      ck_assert_int_eq(rc, TS_WORLD_OK);
      ck_assert_int_eq(w.max_alive, TS_WORLD_MAX_ACTORS);
    } else {
      ck_assert_int_eq(rc, TS_WORLD_MODEL);
      ck_assert_str_eq(w.errmsg, "classes[0].arrival: class job: 100 actors alive at 199 ms (199 made, 99 done) at "
                                 "n = 1: expected at most 100 at once (do the arrivals outpace the workers?)");
    }
    ts_world_finish(&w);
  }
  ts_model_finish(&m);
}
END_TEST

/* ---- a window past the run ---- */

/* A window that starts after the run ended measured nothing: its metrics
 * are empty (not 0.000000 as if measured) and a note says why; the
 * metrics of the whole run keep their values; a window that starts before
 * the end is measured. sensitivity and calibrate say it too, once. */
START_TEST(hard_window_after_the_run_is_empty_and_said)
{
  tu_write_file(at("m.json"), "{\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\"}],\n"
                              " \"classes\": [{\"name\": \"a\", \"count\": \"n\", \"size_bytes\": 100, \"program\": [\n"
                              "  {\"op\": \"span_begin\", \"span\": \"s\"}, {\"op\": \"lock\", \"lock\": \"m\"},\n"
                              "  {\"op\": \"cpu\", \"ms\": 1}, {\"op\": \"unlock\", \"lock\": \"m\"},\n"
                              "  {\"op\": \"span_end\", \"span\": \"s\"}]}]}\n");
  static const char *const windowed[] = {"cpu_cores", "mutex_wait_ms", "lock_wait_share", "memory_bytes", "s_count",
                                         "s_rate_per_s", "s_p50_ms", NULL};
  for (int late = 1; late >= 0; late--) {
    char scen[300];
    snprintf(scen, sizeof scen, "{\"name\": \"w\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [1], "
             "\"replications\": 2, \"warmup_ms\": %s}\n", late ? "1e9" : "0.5");
    tu_write_file(at("s.json"), scen);
    char *err;
    ck_assert_int_eq(run_set("w", "", &err), 0);
    ck_assert(drop_identical(err)); /* fixed costs, no arrivals: nothing random */
    if (late)
      ck_assert_str_eq(err, "tssim: note: 4 replication(s) ended before their measurement window began (warmup_ms; "
                            "the first: n=1 workers=1 replication 0 ended at 1 ms, its window starting at 1e+09 ms): "
                            "their CPU, mutex, instruction, memory and span metrics are empty, not 0\n");
    else
      ck_assert_str_eq(past_replacing(err), ""); /* the folder holds the late run */
    free(err);
    tu_write_file(at("bl.json"), "{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}}]}\n");
    for (int k = 0; k < 2; k++) {
      char args[5 * PATH_MAX];
      if (k == 0)
        snprintf(args, sizeof args, "sensitivity '%s/s.json' -q --no-plots -o '%s/x' --param 'classes[0].program[2].ms' "
                 "--scales 1 --metric wave_ms", tmp, tmp);
      else
        snprintf(args, sizeof args, "calibrate '%s/m.json' '%s/bl.json' --scenario '%s/s.json' --starts 0 --max-iter 2 "
                 "-q -o '%s/f.json' --set 'free=[{\"name\": \"c\", \"path\": \"classes[0].program[2].ms\", "
                 "\"min\": 0.5, \"max\": 2}]'", tmp, tmp, tmp, tmp);
      ck_assert_int_eq(tu_tssim(args, NULL, &err), 0);
      drop_identical(err); /* calibrate's replications; sensitivity runs one */
      const char *said = strstr(err, "tssim: note: ");
      char first[300]; /* sensitivity's sweep names its setting as an axis */
      snprintf(first, sizeof first, " replication(s) ended before their measurement window began (warmup_ms; the "
               "first: n=1 workers=1 replication 0%s ended at 1 ms, its window starting at 1e+09 ms): their CPU",
               k == 0 ? " setting=the scenario's own setting" : "");
      ck_assert_msg(late ? said && strstr(said, first) &&
                             !strstr(said + 1, "tssim: note")
                         : !strstr(err, "tssim: note"), "%s: %s", args, err);
      free(err);
    }
    tu_table t;
    tu_table_read(&t, at("w/summary.csv"));
    for (int row = 0; row < 2; row++) {
      for (int i = 0; windowed[i]; i++)
        ck_assert_msg((tu_table_cell(&t, row, windowed[i])[0] == '\0') == late, "%s at row %d: \"%s\"", windowed[i],
                      row, tu_table_cell(&t, row, windowed[i]));
      ck_assert((tu_table_cell(&t, row, "cpu_cores_mean")[0] == '\0') == late);
      ck_assert_str_eq(tu_table_cell(&t, row, "queue_depth"), "0.000000"); /* the whole run's */
      ck_assert_double_eq(tu_table_num(&t, row, "cpu_ms"), 1.0);
    }
    tu_table_free(&t);
  }
}
END_TEST

/* The model of the dispatch tests: 2 actors of a 1 ms CPU step, placed by
 * dispatch (DISPATCH: its "dispatch" object's fields), and a scenario over
 * workers 1, 2 with 3 replications and axes AXES (JSON, "" for none). */
static void write_dispatch_files(const char *dispatch, const char *axes)
{
  char text[1024];
  snprintf(text, sizeof text, "{\"dispatch\": {%s}, \"classes\": [{\"name\": \"a\", \"count\": 2, \"program\": "
           "[{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}\n", dispatch);
  tu_write_file(at("m.json"), text);
  snprintf(text, sizeof text, "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1, 2], "
           "\"replications\": 3%s%s}\n", *axes ? ", \"axes\": " : "", axes);
  tu_write_file(at("s.json"), text);
}

/* The note that hash of fixed ids places every replication alike follows
 * the axes: an axis that switches dispatch to hash gets it at that value,
 * and one that changes the hash's strings gets a note per value, naming
 * each one's (it was decided on the model without its axes: no note, or
 * one naming the model's own strings). */
START_TEST(hard_fixed_placement_note_follows_the_axes)
{
  write_dispatch_files("\"policy\": \"round_robin\"", "{\"d\": {\"path\": \"dispatch.policy\", \"values\": "
                       "[\"round_robin\", \"hash\"]}}");
  char *err, want[PATH_MAX + 200];
  ck_assert_int_eq(run_set("d", "", &err), 0);
  snprintf(want, sizeof want, "tssim: note: %s/m.json at d=hash: dispatch hash places each actor by a fixed id "
           "(\"task/cg\" followed by its index)", tmp);
  ck_assert_msg(strstr(err, want) && strchr(err, '\n') == err + strlen(err) - 1, "%s", past_replacing(err));
  free(err);
  write_dispatch_files("\"policy\": \"hash\"", "{\"t\": {\"path\": \"dispatch.task_id\", \"values\": [\"a\", \"b\"]}}");
  ck_assert_int_eq(run_set("d", "", &err), 0);
  ck_assert_msg(strstr(err, "/m.json at t=a: dispatch hash places each actor by a fixed id (\"a/cg\" followed") &&
                    strstr(err, "/m.json at t=b: dispatch hash places each actor by a fixed id (\"b/cg\" followed") &&
                    !strstr(err, "task/cg"),
                "%s", err);
  free(err);
}
END_TEST

/* dispatch.ids "per_replication" where no dispatch reads it (round_robin,
 * least_loaded) is refused: exit 2, one line naming the model's
 * dispatch.ids (and the --set it came from), or the axis value that sets
 * it; where an axis switches dispatch to hash, the values that do not read
 * it get one note instead; a model that hashes by them under an axis that
 * never hashes has that axis blamed. */
START_TEST(hard_per_replication_ids_no_dispatch_reads_are_refused)
{
  write_dispatch_files("\"policy\": \"round_robin\"", "");
  char *err;
  ck_assert_int_eq(run_set("d", "--set dispatch.ids=per_replication", &err), 2);
  ck_assert_msg(strstr(err, "/m.json: dispatch.ids: expected \"fixed\" under dispatch.policy \"round_robin\": "
                            "\"per_replication\" draws the ids that hash dispatch places by, and round_robin and "
                            "least_loaded read none (from --set dispatch.ids=per_replication)\n") &&
                    strchr(err, '\n') == err + strlen(err) - 1,
                "%s", err);
  free(err);
  write_dispatch_files("\"policy\": \"least_loaded\"", "{\"i\": {\"sets\": {\"f\": {}, \"p\": {\"dispatch.ids\": "
                       "\"per_replication\"}}}}");
  ck_assert_int_eq(run_set("d", "", &err), 2);
  ck_assert_msg(strstr(err, "/s.json: axes.i.sets.p: expected no dispatch.ids \"per_replication\" where "
                            "dispatch.policy is not hash at any axis value (model ") &&
                    strchr(err, '\n') == err + strlen(err) - 1,
                "%s", err);
  free(err);
  write_dispatch_files("\"policy\": \"round_robin\", \"ids\": \"per_replication\"",
                       "{\"d\": {\"path\": \"dispatch.policy\", \"values\": [\"round_robin\", \"hash\", "
                       "\"least_loaded\"]}}");
  ck_assert_int_eq(run_set("d", "", &err), 0);
  char want[PATH_MAX + 200];
  snprintf(want, sizeof want, "tssim: note: %s/m.json at 2 of the 3 axis combinations: dispatch.ids "
           "\"per_replication\" has no effect under dispatch round_robin or least_loaded, which read no id (only hash "
           "does)\n", tmp);
  ck_assert_str_eq(past_replacing(err), want);
  free(err);
  /* the model hashes by drawn ids, an axis places by other policies at every
   * value: the axis is blamed, not the model's hash (review17 item 1) */
  write_dispatch_files("\"policy\": \"hash\", \"ids\": \"per_replication\"",
                       "{\"d\": {\"path\": \"dispatch.policy\", \"values\": [\"round_robin\", \"least_loaded\"]}}");
  ck_assert_int_eq(run_set("d", "", &err), 2);
  ck_assert_msg(strstr(err, "/s.json: axes.d.values: expected dispatch.policy \"hash\" at some value: the model ") &&
                    strchr(err, '\n') == err + strlen(err) - 1,
                "%s", err);
  free(err);
}
END_TEST

/* calibrate refuses dispatch.ids "per_replication" that none of the
 * models it runs reads as tssim run does (exit 2, one line): from its
 * --set, or from the value of its --scenario's axis that the baseline
 * records; under hash (which reads them) it fits. */
START_TEST(hard_calibrate_refuses_per_replication_ids_no_dispatch_reads)
{
  write_dispatch_files("\"policy\": \"round_robin\"", "{\"i\": {\"sets\": {\"f\": {}, \"p\": {\"dispatch.ids\": "
                       "\"per_replication\"}}}}");
  tu_write_file(at("fm.json"), "{\"dispatch\": {\"policy\": \"round_robin\"}, \"params\": {\"c\": 1}, \"free\": "
                "[{\"name\": \"c\", \"path\": \"params.c\", \"min\": 0.5, \"max\": 2, \"start\": 1}], \"classes\": "
                "[{\"name\": \"a\", \"count\": 2, \"program\": [{\"op\": \"cpu\", \"ms\": \"$c\", \"dist\": "
                "\"exponential\"}]}]}\n");
  tu_write_file(at("b.json"), "{\"points\": [{\"n\": 1, \"workers\": 2, \"metrics\": {\"wave_ms\": 2}}]}\n");
  tu_write_file(at("bp.json"), "{\"points\": [{\"n\": 1, \"workers\": 2, \"axes\": {\"i\": \"p\"}, \"metrics\": "
                "{\"wave_ms\": 2}}]}\n");
  static const struct {
    const char *baseline, *extra, *err; /* extra: "%s" is tmp; err: stderr's only line holds it; NULL: the fit runs */
  } cases[] = {
    {"b.json", "--set dispatch.ids=per_replication", "/fm.json: dispatch.ids: expected \"fixed\" under "
     "dispatch.policy \"round_robin\": \"per_replication\" draws the ids that hash dispatch places by, and "
     "round_robin and least_loaded read none (from --set dispatch.ids=per_replication)\n"},
    {"bp.json", "--scenario '%s/s.json'", "/s.json: axes.i.sets.p: expected no dispatch.ids \"per_replication\" "
     "where dispatch.policy is not hash at any axis value (model "},
    {"b.json", "--set dispatch.policy=hash --set dispatch.ids=per_replication", NULL},
  };
  for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
    char extra[PATH_MAX + 100], args[5 * PATH_MAX], *err;
    snprintf(extra, sizeof extra, cases[k].extra, tmp);
    snprintf(args, sizeof args, "calibrate '%s/fm.json' '%s/%s' %s --starts 0 --max-iter 1 -q -o '%s/x.json'", tmp,
             tmp, cases[k].baseline, extra, tmp);
    int status = tu_tssim(args, NULL, &err);
    if (cases[k].err) {
      ck_assert_msg(status == 2 && strstr(err, cases[k].err) && strchr(err, '\n') == err + strlen(err) - 1,
                    "%s: %d: %s", args, status, err);
    } else {
      ck_assert_msg(status == 0 && !strstr(err, "dispatch.ids"), "%s: %d: %s", args, status, err);
    }
    free(err);
  }
}
END_TEST

/* The notes name their first point as the table does, with its axes by
 * name and label, and the window note gives that point's own window start:
 * an axis over warmup_ms (one run of 1 ms: the window past it at wu=1e9
 * only) and one over the arrivals' period (a 10 ms job every 20 ms: done;
 * every 2 ms: a backlog, at period=2 only). */
START_TEST(hard_notes_name_the_point_by_its_axes)
{
  tu_write_file(at("m.json"), "{\"classes\": [{\"name\": \"a\", \"count\": \"n\", \"program\": "
                              "[{\"op\": \"cpu\", \"ms\": 1}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"w\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], "
                              "\"axes\": {\"wu\": {\"path\": \"warmup_ms\", \"values\": [0.5, 1e9]}}}\n");
  char *err;
  ck_assert_int_eq(run_set("w", "", &err), 0);
  ck_assert_str_eq(err, "tssim: note: 1 replication(s) ended before their measurement window began (warmup_ms; the "
                        "first: n=1 workers=1 replication 0 wu=1000000000 ended at 1 ms, its window starting at 1e+09 ms): "
                        "their CPU, mutex, instruction, memory and span metrics are empty, not 0\n");
  free(err);
  tu_write_file(at("m.json"), "{\"classes\": [{\"name\": \"job\", \"count\": \"forever\",\n"
                              " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 20},\n"
                              " \"program\": [{\"op\": \"cpu\", \"ms\": 10}]}]}\n");
  tu_write_file(at("s.json"), "{\"name\": \"b\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1], "
                              "\"replications\": 2, \"horizon_ms\": 1000, \"axes\": {\"period\": {\"path\": "
                              "\"classes[0].arrival.period_ms\", \"values\": [20, 2]}}}\n");
  ck_assert_int_eq(run_set("b", "", &err), 0);
  ck_assert_str_eq(err, "tssim: note: 2 replication(s) ended with a backlog (the first: n=1 workers=1 replication 0 "
                        "period=2: 401 of 501 arrivals not done at 1000 ms): the arrivals may outpace the workers (an "
                        "offered load above what they serve), and then the metrics describe a queue that grew until "
                        "the horizon, not a steady state\n"
                        "tssim: note: every point's replications gave identical values (2 point(s) run with 2 or more "
                        "replications; the first: n=1 workers=1 period=20): the model draws nothing random that reaches "
                        "the metrics, so the 95% intervals are 0 because nothing varies, not because the estimates "
                        "are exact, and more replications add nothing; give CPU steps a spread (\"dist\": "
                        "\"lognormal\", \"cv\": 0.3) or the arrivals randomness (\"poisson\", or \"jitter_ms\") "
                        "(docs/language.md)\n");
  free(err);
}
END_TEST

/* A key right after ']' (classes[0]count) was read as classes[0].count:
 * every route that takes a path refuses it with the same words (exit 2,
 * one line), each naming its file and JSON path or its option: --set, the
 * scenario's "set", an axis's path and its sets, --param, --field and
 * --choice. One loop iteration a route; the scenario's "axes" and the
 * options said "is not a field of the model" before (42209e9). */
typedef struct {
  const char *scenario; /* added to the scenario */
  const char *command;  /* tssim COMMAND tmp/s.json ... -o tmp/x ARGS */
  const char *where;    /* the message's start, after "tssim: " (a leading '/': after tmp) */
  const char *after;    /* what follows the words */
} malformed_route;
static const malformed_route malformed[] = {
  {"", "run --set 'classes[0]count=2'", "/m.json: ", " (from --set classes[0]count=2)"},
  {", \"set\": {\"classes[0]count\": 2}", "run", "/m.json: ", " (from the scenario's \"set\": "},
  {", \"axes\": {\"c\": {\"path\": \"classes[0]count\", \"values\": [1, 2]}}", "run", "/s.json: axes.c.path: ", ""},
  {", \"axes\": {\"c\": {\"sets\": {\"one\": {\"classes[0]count\": 1}}}}", "run", "/s.json: axes.c.sets.one: ", ""},
  {"", "sensitivity --param 'classes[0]count' --scales 1 --metric wave_ms", "--param: ", ""},
  {"", "optimize --minimize wave_ms --grid 3 --max-evals 3 --field 'classes[0]count=1:3'", "--field: ", ""},
  {"", "optimize --minimize wave_ms --choice 'classes[0]count=1,2'", "--choice: ", ""},
};
START_TEST(hard_key_after_index_without_dot_is_refused)
{
  const malformed_route *r = &malformed[_i];
  tu_write_file(at("m.json"), "{\"classes\": [{\"name\": \"a\", \"count\": 1, \"program\": "
                              "[{\"op\": \"cpu\", \"ms\": 1}]}]}\n");
  char text[400], args[3 * PATH_MAX], want[PATH_MAX + 400], *err;
  snprintf(text, sizeof text, "{\"name\": \"w\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]%s}\n", r->scenario);
  tu_write_file(at("s.json"), text);
  size_t cmd = strcspn(r->command, " ");
  snprintf(args, sizeof args, "%.*s '%s/s.json' -q --no-plots -o '%s/x'%s", (int)cmd, r->command, tmp, tmp,
           r->command + cmd);
  ck_assert_int_eq(tu_tssim(args, NULL, &err), 2);
  snprintf(want, sizeof want, "tssim: %s%sclasses[0]count: expected a path of keys joined by '.' and [indexes] of "
           "whole numbers, as classes[0].count (a key follows ']' after a '.')%s", r->where[0] == '/' ? tmp : "",
           r->where, r->after);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0 && strchr(err, '\n') == err + strlen(err) - 1, "%s: %s", args,
                err);
  free(err);
}
END_TEST

Suite *hard_runs_suite(void)
{
  Suite *s = suite_create("hard_runs");
  const TTest *const windows[] = {hard_backlog_at_the_horizon_is_said, hard_overloaded_fixed_count_is_said, hard_actors_alive_at_once_are_bounded,
                                  hard_n_read_nowhere_is_said, hard_identical_replications_are_said,
                                  hard_window_after_the_run_is_empty_and_said, hard_notes_name_the_point_by_its_axes,
                                  hard_run_time_failure_names_the_axis_labels,
                                  hard_index_that_is_not_an_integer_fails,
                                  hard_fixed_placement_note_follows_the_axes,
                                  hard_per_replication_ids_no_dispatch_reads_are_refused,
                                  hard_calibrate_refuses_per_replication_ids_no_dispatch_reads, NULL};
  TCase *tc = tu_tcase(s, "runs", windows, make_tmp, remove_tmp, 120);
  tcase_add_loop_test(tc, hard_key_after_index_without_dot_is_refused, 0, (int)(sizeof malformed / sizeof *malformed));
  return s;
}
