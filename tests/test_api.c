/* The public C API (include/tssim/tssim.h), used as a program would use it:
 * its results equal what `tssim run` writes (summary.csv and samples.csv) and
 * the closed form of round robin, from files or JSON text, for any number of
 * jobs; its errors are the codes and messages of the command line; a failed
 * tssim_set leaves the scenario as it was. */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "tssim/tssim.h"

#define RR "scenarios/rr-wave.json"

static tssim_scenario *open_ok(const char *rel)
{
  char *path = tu_source_path(rel);
  tssim_scenario *s;
  tssim_error err;
  ck_assert_msg(tssim_open(path, &s, &err) == TSSIM_OK, "%s", err.message);
  ck_assert_int_eq(err.code, TSSIM_OK);
  free(path);
  return s;
}

static tssim_result *run_ok(tssim_scenario *s, int jobs)
{
  tssim_options o = {.jobs = jobs};
  tssim_result *r;
  tssim_error err;
  ck_assert_msg(tssim_run(s, &o, &r, &err) == TSSIM_OK, "%s", err.message);
  return r;
}

/* Round robin, N = 16 actors of C = 400 ms in q = 10 ms slices on W = 1
 * worker: actor i is done at (N (C/q - 1) + i + 1) q; the per-point values
 * and the actor rows equal `tssim run`'s summary.csv and samples.csv. */
START_TEST(api_run_equals_the_command_line_and_the_closed_form)
{
  char dir[PATH_MAX], path[PATH_MAX + 32], *out;
  tssim_scenario *s = open_ok(RR);
  tssim_error err;
  ck_assert_str_eq(tssim_scenario_name(s), "rr-wave");
  ck_assert_int_eq(tssim_set_n(s, (int[]){16}, 1, &err), TSSIM_OK);
  tssim_result *r = run_ok(s, 2);
  ck_assert_uint_eq(tssim_result_points(r), 2);
  ck_assert_int_eq(tssim_result_n(r, 0), 16);
  ck_assert_int_eq(tssim_result_workers(r, 1), 8);
  ck_assert_uint_eq(tssim_result_actors(r), 32);
  int done = tssim_result_actor_column_index(r, "done_ms");
  ck_assert_int_ge(done, 0);
  for (size_t i = 0; i < 16; i++)
    ck_assert_double_eq(tssim_result_actor_value(r, i, (size_t)done), (16 * 39 + (double)i + 1) * 10);
  /* the command line's files */
  tu_mkdtemp(dir, sizeof dir, "api");
  char args[PATH_MAX + 64];
  snprintf(args, sizeof args, "run " RR " --n 16 -o '%s' -q --no-plots", dir);
  ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
  free(out);
  tu_table t;
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  tu_table_read(&t, path);
  ck_assert_int_eq(t.nrows, (int)tssim_result_points(r));
  for (size_t m = 0; m < tssim_result_metrics(r); m++) {
    const char *name = tssim_result_metric(r, m);
    ck_assert_int_eq(tssim_result_metric_index(r, name), (int)m);
    if (tu_table_column(&t, name) < 0)
      continue;
    for (int p = 0; p < t.nrows; p++) {
      const char *cell = tu_table_cell(&t, p, name);
      double v = tssim_result_value(r, (size_t)p, m);
      if (!*cell)
        ck_assert_msg(isnan(v), "%s at point %d: %g where summary.csv has none", name, p, v);
      else
        ck_assert_msg(fabs(v - atof(cell)) <= 1e-6 * fabs(v) + 1e-3, "%s at point %d: %g, summary.csv %s", name, p,
                      v, cell);
    }
  }
  tu_table_free(&t);
  snprintf(path, sizeof path, "%s/samples.csv", dir);
  tu_table_read(&t, path);
  ck_assert_int_eq(t.nrows, (int)tssim_result_actors(r));
  for (int i = 0; i < t.nrows; i++) {
    ck_assert_str_eq(tssim_result_actor_class(r, (size_t)i), tu_table_cell(&t, i, "class"));
    for (size_t c = 0; c < tssim_result_actor_columns(r); c++) {
      const char *cell = tu_table_cell(&t, i, tssim_result_actor_column(r, c));
      double v = tssim_result_actor_value(r, (size_t)i, c);
      ck_assert_msg(*cell ? v == atof(cell) : isnan(v), "row %d %s: %g, samples.csv %s", i,
                    tssim_result_actor_column(r, c), v, cell);
    }
  }
  tu_table_free(&t);
  tu_rmtree(dir);
  tssim_result_free(r);
  tssim_close(s);
}
END_TEST

/* A confidence target adds replications as tssim run --ci-target does. */
START_TEST(api_confidence_target_adds_replications_as_the_command_line)
{
  char dir[PATH_MAX], path[PATH_MAX + 32], args[PATH_MAX + 96], *out;
  tssim_scenario *s = open_ok(RR);
  tssim_error err;
  ck_assert_int_eq(tssim_set_n(s, (int[]){16}, 1, &err), TSSIM_OK);
  ck_assert_int_eq(tssim_set_ci_target(s, 0.02, 10, &err), TSSIM_OK);
  tssim_result *r = run_ok(s, 1);
  tu_mkdtemp(dir, sizeof dir, "api");
  snprintf(args, sizeof args, "run " RR " --n 16 --ci-target 2%% --ci-max 10 -o '%s' -q --no-plots", dir);
  ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
  free(out);
  tu_table t;
  snprintf(path, sizeof path, "%s/summary.csv", dir);
  tu_table_read(&t, path);
  for (int p = 0; p < t.nrows; p++)
    ck_assert_int_eq(tssim_result_replications(r, (size_t)p), atoi(tu_table_cell(&t, p, "replications")));
  ck_assert_int_gt(tssim_result_replications(r, 0), 1); /* one replication has no half-width */
  tu_table_free(&t);
  tu_rmtree(dir);
  tssim_result_free(r);
  tssim_close(s);
}
END_TEST

/* The values of two results must be the same bits. */
static void assert_same(const tssim_result *a, const tssim_result *b)
{
  ck_assert_uint_eq(tssim_result_points(a), tssim_result_points(b));
  ck_assert_uint_eq(tssim_result_metrics(a), tssim_result_metrics(b));
  for (size_t p = 0; p < tssim_result_points(a); p++)
    for (size_t m = 0; m < tssim_result_metrics(a); m++) {
      double x = tssim_result_value(a, p, m), y = tssim_result_value(b, p, m);
      ck_assert_msg(x == y || (isnan(x) && isnan(y)), "%s: %g != %g", tssim_result_metric(a, m), x, y);
      x = tssim_result_ci95(a, p, m);
      y = tssim_result_ci95(b, p, m);
      ck_assert(x == y || (isnan(x) && isnan(y)));
    }
  ck_assert_uint_eq(tssim_result_actors(a), tssim_result_actors(b));
  for (size_t i = 0; i < tssim_result_actors(a); i++)
    for (size_t c = 0; c < tssim_result_actor_columns(a); c++) {
      double x = tssim_result_actor_value(a, i, c), y = tssim_result_actor_value(b, i, c);
      ck_assert(x == y || (isnan(x) && isnan(y)));
    }
}

static const char model_json[] =
  "{\"name\": \"rr\", \"host\": {\"cores\": 0},"
  " \"worker\": {\"policy\": \"fifo\", \"threshold_ms\": 9, \"yield_overhead_ms\": 0, \"loop_overhead_ms\": 0},"
  " \"dispatch\": {\"policy\": \"round_robin\"}, \"params\": {\"c_ms\": 40, \"rows\": 40},"
  " \"classes\": [{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": \"$c_ms\","
  " \"rows\": \"$rows\", \"sliced\": true}]}]}";

/* The same model and scenario from JSON text and from files give the same
 * bits, for 1 and 3 jobs; an axis's labels name the points and the rows. */
START_TEST(api_json_text_equals_files_for_any_jobs)
{
  static const char scenario[] =
    "{\"name\": \"rr-axes\", \"model\": \"m.json\", \"n\": [2, 3], \"workers\": [1], \"replications\": 2,"
    " \"axes\": {\"c\": {\"path\": \"params.c_ms\", \"values\": [20, 40]}}}";
  char dir[PATH_MAX], path[PATH_MAX + 16];
  tu_mkdtemp(dir, sizeof dir, "api");
  snprintf(path, sizeof path, "%s/m.json", dir);
  tu_write_file(path, model_json);
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, scenario);
  tssim_scenario *f, *t;
  tssim_error err;
  ck_assert_msg(tssim_open(path, &f, &err) == TSSIM_OK, "%s", err.message);
  ck_assert_msg(tssim_open_json(scenario, model_json, NULL, &t, &err) == TSSIM_OK, "%s", err.message);
  ck_assert_uint_eq(tssim_scenario_axes(t), 1);
  ck_assert_str_eq(tssim_scenario_axis(t, 0), "c");
  tssim_result *a = run_ok(f, 1), *b = run_ok(t, 3);
  assert_same(a, b);
  ck_assert_uint_eq(tssim_result_points(a), 4);
  ck_assert_str_eq(tssim_result_label(a, 0, 0), "20");
  ck_assert_str_eq(tssim_result_label(a, 3, 0), "40");
  ck_assert_str_eq(tssim_result_class(a, 0), "job");
  ck_assert_int_eq(tssim_result_replications(a, 0), 2);
  ck_assert_uint_eq(tssim_result_actors(a), 2 * (2 + 3) * 2);
  ck_assert_str_eq(tssim_result_actor_label(a, 0, 0), "20");
  ck_assert_str_eq(tssim_result_actor_label(a, tssim_result_actors(a) - 1, 0), "40");
  ck_assert_str_eq(tssim_result_actor_class(a, 0), "job");
  /* one point; no actor rows when asked */
  tssim_result_free(b);
  tssim_options o = {.no_actors = 1};
  ck_assert_int_eq(tssim_run_point(t, 3, 1, &o, &b, &err), TSSIM_OK);
  ck_assert_uint_eq(tssim_result_points(b), 2);
  ck_assert_uint_eq(tssim_result_actors(b), 0);
  int done = tssim_result_metric_index(b, "done_ms");
  ck_assert_double_eq(tssim_result_value(b, 1, (size_t)done), tssim_result_value(a, 3, (size_t)done));
  ck_assert(isnan(tssim_result_recorded(b, 0, 0)));
  tssim_result_free(a);
  tssim_result_free(b);
  tssim_close(f);
  tssim_close(t);
  tu_rmtree(dir);
}
END_TEST

/* What `tssim run` prints for args (its stderr's first line, without
 * "tssim: "), in a new string. */
static char *cli_error(const char *args)
{
  char *out, *err;
  ck_assert_int_eq(tu_tssim(args, &out, &err), 2);
  free(out);
  ck_assert_int_eq(strncmp(err, "tssim: ", 7), 0);
  memmove(err, err + 7, strlen(err + 7) + 1);
  err[strcspn(err, "\n")] = '\0';
  return err;
}

static int stop_now(void *data)
{
  (void)data;
  return 1;
}

/* Bad input gives the code of the command line and its message, naming the
 * call instead of the option; a failed
 * tssim_set, _n or _replications leaves the scenario running as before. */
START_TEST(api_errors_are_the_command_line_s)
{
  tssim_scenario *s;
  tssim_error err;
  char *want = cli_error("run scenarios/nonexistent.json");
  char *path = tu_source_path("scenarios/nonexistent.json");
  ck_assert_int_eq(tssim_open(path, &s, &err), TSSIM_INPUT);
  ck_assert_ptr_null(s);
  ck_assert_int_eq(err.code, TSSIM_INPUT);
  ck_assert_ptr_nonnull(strstr(want, "nonexistent.json"));
  ck_assert_ptr_nonnull(strstr(err.message, strstr(want, "nonexistent.json")));
  free(want);
  free(path);
  s = open_ok(RR);
  ck_assert_int_eq(tssim_set_n(s, (int[]){16}, 1, &err), TSSIM_OK);
  tssim_result *before = run_ok(s, 1), *after;
  /* the same, but naming the caller's call: "(from tssim_set P=V)", not "--set" */
  want = cli_error("run " RR " --set params.c_ms=-5");
  ck_assert_int_eq(tssim_set(s, "params.c_ms=-5", &err), TSSIM_INPUT);
  const char *by = strstr(want, " (from --set params.c_ms=-5)"), *file = strstr(want, "models/rr-wave.json");
  ck_assert(by && file && file < by);
  char lib[2048];
  snprintf(lib, sizeof lib, "%.*s (from tssim_set%s", (int)(by - file), file, by + strlen(" (from --set"));
  ck_assert_str_eq(strstr(err.message, "models/rr-wave.json"), lib);
  free(want);
  /* the checks are the command line's, but the messages name the call and
   * its argument, not an option (walk14 item 8) */
  ck_assert_int_eq(tssim_set_n(s, (int[]){0}, 1, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set_n: n[0]: expected an integer in [1, 1000000], got 0");
  ck_assert_int_eq(tssim_set_n(s, (int[]){16}, 0, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set_n: n: expected at least one value, got count 0");
  ck_assert_int_eq(tssim_set_workers(s, (int[]){1, 2, 1}, 3, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set_workers: workers[2]: 1 appears twice (at 0 too): each value would repeat a row");
  want = cli_error("run " RR " -r 0");
  ck_assert_int_eq(tssim_set_replications(s, 0, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set_replications: expected an integer in [1, 100000], got \"0\"");
  ck_assert_str_eq(strchr(err.message, ':'), strchr(want, ':'));
  free(want);
  ck_assert_int_eq(tssim_run_point(s, 16, 0, NULL, &after, &err), TSSIM_INPUT);
  ck_assert_ptr_null(after);
  ck_assert_str_eq(err.message, "tssim_run_point: workers: expected an integer in [1, 4096], got 0");
  ck_assert_int_eq(tssim_set_ci_target(s, 0.02, 1, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set_ci_target: max_replications: expected an integer in [2, 100000], got \"1\"");
  ck_assert_int_eq(tssim_set_ci_target(s, 2, 10, &err), TSSIM_INPUT);
  ck_assert_msg(strncmp(err.message, "tssim_set_ci_target: fraction: expected a percentage", 52) == 0, "%s",
                err.message);
  ck_assert_int_eq(tssim_set(s, "params.c_ms", &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set: expected PATH=VALUE, got \"params.c_ms\"");
  ck_assert_int_eq(tssim_set(s, NULL, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set: expected PATH=VALUE, got NULL");
  /* a parameter that is not there: no "--set" in the message */
  ck_assert_int_eq(tssim_set(s, "params.c_mss=3", &err), TSSIM_INPUT);
  ck_assert_msg(strstr(err.message, "params.c_mss: no such parameter in params; did you mean \"c_ms\"? (from "
                                    "tssim_set params.c_mss=3)") && !strstr(err.message, "--"), "%s", err.message);
  after = run_ok(s, 1);
  assert_same(before, after);
  tssim_result_free(after);
  /* a stop asked for */
  tssim_options o = {.should_stop = stop_now};
  ck_assert_int_eq(tssim_run(s, &o, &after, &err), TSSIM_STOPPED);
  ck_assert_ptr_null(after);
  /* a set that works changes the model */
  ck_assert_int_eq(tssim_set(s, "params.c_ms=30", &err), TSSIM_OK);
  ck_assert_int_eq(tssim_set(s, "params.rows=30", &err), TSSIM_OK);
  ck_assert_int_eq(tssim_run_point(s, 3, 1, NULL, &after, &err), TSSIM_OK);
  int done = tssim_result_actor_column_index(after, "done_ms");
  ck_assert_double_eq(tssim_result_actor_value(after, 2, (size_t)done), 90);
  tssim_result_free(after);
  tssim_result_free(before);
  tssim_close(s);
  /* text that is not JSON, and a model without the scenario's metric */
  ck_assert_int_eq(tssim_open_json("{", model_json, NULL, &s, &err), TSSIM_INPUT);
  ck_assert_int_eq(strncmp(err.message, "<scenario>: ", 12), 0);
  ck_assert_int_eq(tssim_open_json("{\"name\": \"x\", \"model\": \"m\", \"n\": [1], \"workers\": [1], \"table\": "
                                   "[\"nope_ms\"]}",
                                   model_json, NULL, &s, &err),
                   TSSIM_INPUT);
  ck_assert_msg(strstr(err.message, "<scenario>: table[0]: \"nope_ms\": model <model> does not report it"), "%s",
                err.message);
}
END_TEST

/* walk14 item 4: the header says a text scenario's "model" is not read, yet
 * leaving it out failed with "<scenario>: model: missing (required)". */
START_TEST(api_json_scenario_needs_no_model_field)
{
  tssim_scenario *s;
  tssim_error err;
  ck_assert_msg(tssim_open_json("{\"name\": \"x\", \"n\": [1], \"workers\": [1]}", model_json, NULL, &s, &err) ==
                TSSIM_OK, "%s", err.message);
  tssim_result *r = run_ok(s, 1);
  ck_assert_uint_eq(tssim_result_points(r), 1);
  tssim_result_free(r);
  tssim_close(s);
}
END_TEST

/* walk14 item 8: the handle a failed tssim_open leaves (NULL) given to the
 * other calls is bad input, not a crash; so is a NULL out. */
START_TEST(api_null_handle_is_bad_input)
{
  tssim_scenario *s = NULL;
  tssim_result *r = (tssim_result *)&s; /* not NULL: the call must clear it */
  tssim_error err;
  ck_assert_int_eq(tssim_run_point(NULL, 1, 1, NULL, &r, &err), TSSIM_INPUT);
  ck_assert_ptr_null(r);
  ck_assert_str_eq(err.message, "tssim_run_point: expected a scenario, got NULL (did tssim_open fail?)");
  ck_assert_int_eq(tssim_run(NULL, NULL, &r, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_run: expected a scenario, got NULL (did tssim_open fail?)");
  ck_assert_int_eq(tssim_run(NULL, NULL, NULL, NULL), TSSIM_INPUT);
  ck_assert_int_eq(tssim_set(NULL, "params.x=1", &err), TSSIM_INPUT);
  ck_assert_int_eq(tssim_set_n(NULL, (int[]){1}, 1, &err), TSSIM_INPUT);
  ck_assert_int_eq(tssim_set_workers(NULL, (int[]){1}, 1, &err), TSSIM_INPUT);
  ck_assert_int_eq(tssim_set_replications(NULL, 1, &err), TSSIM_INPUT);
  ck_assert_int_eq(tssim_set_seed(NULL, 1, &err), TSSIM_INPUT);
  ck_assert_int_eq(tssim_set_ci_target(NULL, 0.02, 10, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_set_ci_target: expected a scenario, got NULL (did tssim_open fail?)");
  ck_assert_ptr_null(tssim_scenario_name(NULL));
  ck_assert_uint_eq(tssim_scenario_axes(NULL), 0);
  ck_assert_ptr_null(tssim_scenario_axis(NULL, 0));
  ck_assert_int_eq(tssim_open(NULL, NULL, &err), TSSIM_INPUT);
  /* walkthrough 15: "" said ": cannot open: No such file or directory" */
  tssim_scenario *none = (tssim_scenario *)&err;
  ck_assert_int_eq(tssim_open("", &none, &err), TSSIM_INPUT);
  ck_assert_str_eq(err.message, "tssim_open: path: expected a scenario file, got \"\"");
  ck_assert_ptr_null(none);
  ck_assert_int_eq(tssim_open_json("{}", "{}", NULL, NULL, &err), TSSIM_INPUT);
  tssim_close(NULL);
  /* the accessors of a NULL result (what a failed run leaves): nothing, not a crash */
  ck_assert_uint_eq(tssim_result_points(NULL), 0);
  ck_assert_uint_eq(tssim_result_metrics(NULL), 0);
  ck_assert_ptr_null(tssim_result_metric(NULL, 0));
  ck_assert_int_eq(tssim_result_metric_index(NULL, "wave_ms"), -1);
  ck_assert_int_eq(tssim_result_n(NULL, 0), -1);
  ck_assert_ptr_null(tssim_result_label(NULL, 0, 0));
  ck_assert(isnan(tssim_result_value(NULL, 0, 0)) && isnan(tssim_result_recorded(NULL, 0, 0)));
  ck_assert_uint_eq(tssim_result_actors(NULL), 0);
  ck_assert(isnan(tssim_result_actor_value(NULL, 0, 0)));
  ck_assert_ptr_null(tssim_result_actor_class(NULL, 0));
  ck_assert_ptr_null(tssim_result_actor_label(NULL, 0, 0));
  tssim_result_free(NULL);
}
END_TEST

Suite *api_suite(void)
{
  Suite *s = suite_create("api");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, api_run_equals_the_command_line_and_the_closed_form);
  tcase_add_test(tc, api_json_text_equals_files_for_any_jobs);
  tcase_add_test(tc, api_errors_are_the_command_line_s);
  tcase_add_test(tc, api_null_handle_is_bad_input);
  tcase_add_test(tc, api_json_scenario_needs_no_model_field);
  tcase_add_test(tc, api_confidence_target_adds_replications_as_the_command_line);
  suite_add_tcase(s, tc);
  return s;
}
