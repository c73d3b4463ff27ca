/* What `tssim sensitivity` and `tssim optimize` say about their answers
 * (a design reviewer's walkthrough): a budget that stopped the search, a
 * slope measured across a jump, a parameter nothing reads, what reproduces
 * the best setting. Every test runs the built binary (TSSIM_BINARY) on
 * small models written into the test's folder. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "clifixture.h"

/* One worker, a big client's 400 ms of CPU in 0.1 ms rows sliced at the
 * threshold, a small client's 5 ms behind it (test_explore.c's slices). */
static const char *const slices =
  "{\"name\": \"slices\", \"worker\": {\"threshold_ms\": 10, \"yield_overhead_ms\": 0.5},"
  " \"classes\": [{\"name\": \"big\", \"count\": 1, \"program\": "
  "   [{\"op\": \"cpu\", \"ms\": 400, \"rows\": 4000, \"sliced\": true}]},"
  "  {\"name\": \"small\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 5}]}]}";

/* tmp/NAME.json, a scenario of model text (tmp/NAME-m.json) with the given
 * sweep members; returns its path (tu_at's). */
static const char *scenario(const char *name, const char *model, const char *sweep)
{
  char rel[64], text[1024];
  snprintf(rel, sizeof rel, "%s-m.json", name);
  tu_write_at(tmp, rel, model);
  snprintf(text, sizeof text, "{\"name\": \"%s\", \"model\": \"%s-m.json\", %s}", name, name, sweep);
  snprintf(rel, sizeof rel, "%s.json", name);
  return tu_write_at(tmp, rel, text);
}

/* optimize on slices at the threshold, with extra options: exit 0; stderr
 * into *err, best.json's text into *best. */
static void optimize_slices(const char *extra, char **err, char **best)
{
  char s[PATH_MAX];
  snprintf(s, sizeof s, "%s", scenario("slices", slices, "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, err, "optimize '%s' --minimize wave_ms@small --field worker.threshold_ms=1:20 "
                                  "--constraint 'wave_ms@big <= 1.05 * baseline' -q --no-plots %s -o '%s'",
                       s, extra, at("o")),
                   0);
  *best = tu_read_file(at("o/best.json"), NULL);
}

/* --max-evals 12 on the new-client scenario stopped Brent after 3 steps
 * (8.69, not the default budget's 5.75) and said nothing; --max-iter 1
 * alike. Each now says so on stderr and in best.json's budget; the default
 * budget, which the search does not reach, says nothing. */
START_TEST(optimize_says_when_its_budget_stopped_the_search)
{
  char *err, *best;
  optimize_slices("--max-evals 10", &err, &best); /* the grid's 9, then one step of Brent */
  ck_assert_msg(strstr(err, "note: --max-evals 10 stopped the search") != NULL, "%s", err);
  ck_assert_msg(strstr(best, "\"max_evals_stopped_the_search\":\ttrue") != NULL, "%s", best);
  ck_assert_msg(strstr(best, "\"settings_searched\":\t10") != NULL, "%s", best);
  free(err), free(best);
  optimize_slices("--max-iter 1", &err, &best);
  ck_assert_msg(strstr(err, "note: --max-iter 1 stopped 1 local search(es)") != NULL, "%s", err);
  ck_assert_msg(strstr(best, "\"local_searches_cut_at_max_iter\":\t1") != NULL, "%s", best);
  free(err), free(best);
  optimize_slices("", &err, &best);
  ck_assert_msg(strstr(err, "note") == NULL, "%s", err);
  ck_assert_msg(strstr(best, "\"max_evals_stopped_the_search\":\tfalse") != NULL, "%s", best);
  ck_assert_msg(strstr(best, "\"local_searches_cut_at_max_iter\":\t0") != NULL, "%s", best);
  free(err), free(best);
}
END_TEST

/* Over two fields the simplex stalls by its 28th iteration, only
 * re-hitting settings it has (73 at --max-iter 40 and at 1000, the same
 * best), yet the note said "--max-iter 1000 stopped 1 local search(es)",
 * and the default budget's run said it too. A search that tried nothing
 * new in its last iterations was not cut short: no note; one at
 * --max-iter 5 still is. */
START_TEST(optimize_budget_note_skips_a_stalled_simplex)
{
  char *err, *best;
  const char *two = "--field worker.yield_overhead_ms=0.1:1";
  char extra[128];
  for (int k = 0; k < 2; k++) {
    snprintf(extra, sizeof extra, "%s%s", two, k ? " --max-iter 1000" : "");
    optimize_slices(extra, &err, &best);
    ck_assert_msg(strstr(err, "--max-iter") == NULL, "%s", err);
    ck_assert_msg(strstr(best, "\"local_searches_cut_at_max_iter\":\t0") != NULL, "%s", best);
    free(err), free(best);
  }
  snprintf(extra, sizeof extra, "%s --max-iter 5", two);
  optimize_slices(extra, &err, &best);
  ck_assert_msg(strstr(err, "note: --max-iter 5 stopped 1 local search(es)") != NULL, "%s", err);
  free(err), free(best);
}
END_TEST

/* The small client arrives at 50 ms behind the big one's $big_ms = 49 ms of
 * CPU on one worker: scaled by 0.95 or 1 the big one is done by then (the
 * small one takes its 5 ms), by 1.05 it is not (1.45 ms more). The central
 * elasticity, 2.9, averages the slopes 0 below and 5.8 above: a jump,
 * which the row and a note say; $small_ms's 1 on both sides is no jump. */
static const char *const late =
  "{\"name\": \"late\", \"params\": {\"big_ms\": 49, \"small_ms\": 5},"
  " \"classes\": [{\"name\": \"big\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"$big_ms\"}]},"
  "  {\"name\": \"small\", \"count\": 1, \"arrival\": {\"start_ms\": 50},"
  "   \"program\": [{\"op\": \"cpu\", \"ms\": \"$small_ms\"}]}]}";

START_TEST(sensitivity_says_an_elasticity_straddles_a_jump)
{
  char *out, *err;
  const char *s = scenario("late", late, "\"n\": [1], \"workers\": [1]");
  ck_assert_int_eq(run(&out, &err, "sensitivity '%s' --metric wave_ms@small --scales 1 --no-plots -o '%s'", s,
                       at("s")),
                   0);
  const char *big = strstr(out, "params.big_ms"), *small = strstr(out, "params.small_ms");
  ck_assert_msg(big && small, "%s", out);
  ck_assert_msg(strstr(big, "jump: 0 below x1, 5.8 above") != NULL && strstr(big, "jump") < small, "%s", out);
  ck_assert_msg(strstr(small, "jump") == NULL, "%s", out);
  ck_assert_msg(strstr(err, "note: 1 of 2 elasticit(ies) straddle a jump") != NULL, "%s", err);
  /* 0 and 5.8 differ in sign (one is 0), which counts as much as a factor of 3: the note says both */
  ck_assert_msg(strstr(err, "differ by a factor of 3 or more or in sign, beyond their intervals") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "params.big_ms on wave_ms@small at n=1 workers=1: 0 below, 5.8 above") != NULL, "%s",
                err);
  free(out), free(err);
}
END_TEST

/* --axis rule=ten kept the value that sets the threshold searched: optimize
 * printed `--set worker.threshold_ms=Q`, which tssim run with the same
 * --axis does not give (there the axis value wins over --set), and
 * best.json kept no --axis or --set. Now a note says so and how to run it,
 * and best.json records run_with and axis_replaced. run's override note
 * listed every value of the axis, those --axis left out too: now only
 * those it runs. A --set value of the searched field was labelled "the
 * scenario's own": now "the --set value". */
START_TEST(optimize_says_what_reproduces_its_best)
{
  char s[PATH_MAX], *err, *best;
  snprintf(s, sizeof s, "%s", scenario("rules", slices, "\"n\": [1], \"workers\": [1], \"axes\": {\"rule\": {\"sets\": "
                                              "{\"ten\": {\"worker.threshold_ms\": 10}, "
                                              "\"twenty\": {\"worker.threshold_ms\": 20}}}}"));
  ck_assert_int_eq(run(NULL, &err, "optimize '%s' --axis rule=ten --minimize wave_ms@small --field "
                                   "worker.threshold_ms=1:20 -q --no-plots -o '%s'", s, at("o")),
                   0);
  ck_assert_msg(strstr(err, "note: the search replaced what --axis rule=ten sets (worker.threshold_ms=10) with the "
                            "searched worker.threshold_ms: tssim run keeps the axis") != NULL, "%s", err);
  free(err);
  best = tu_read_file(at("o/best.json"), NULL);
  ck_assert_msg(strstr(best, "\"run_with\":\t{\n\t\t\"axis\":\t[\"rule=ten\"]") != NULL, "%s", best);
  ck_assert_msg(strstr(best, "\"axis_sets\":\t\"worker.threshold_ms=10\"") != NULL, "%s", best);
  free(best);
  ck_assert_int_eq(run(NULL, &err, "run '%s' --axis rule=ten --set worker.threshold_ms=3 -q --no-plots -o '%s'", s,
                       at("r")),
                   0);
  ck_assert_msg(strstr(err, "at every value --axis keeps (ten)") != NULL && strstr(err, "twenty") == NULL, "%s", err);
  free(err);
  /* the threshold given with --set is the baseline's, and so labelled */
  snprintf(s, sizeof s, "%s", scenario("slices", slices, "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, NULL, "optimize '%s' --set worker.threshold_ms=4 --minimize wave_ms@big --field "
                                   "worker.threshold_ms=1:19 --grid 3 -q --no-plots -o '%s'", s, at("l")),
                   0);
  best = tu_read_file(at("l/best.json"), NULL);
  ck_assert_msg(strstr(best, "\"worker.threshold_ms=4 (the --set value)\"") != NULL, "%s", best);
  ck_assert_msg(strstr(best, "scenario's own") == NULL, "%s", best);
  free(best);
}
END_TEST

/* The Pareto path skipped both: with --set worker.threshold_ms=4 the
 * front's baseline was "(the scenario's own)", and with --axis rule=ten
 * no note said the search replaced the axis value's threshold. */
START_TEST(optimize_front_says_its_baseline_and_replaced_axis)
{
  char s[PATH_MAX], *out, *err;
  snprintf(s, sizeof s, "%s", scenario("slices", slices, "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(&out, NULL, "optimize '%s' --set worker.threshold_ms=4 --minimize wave_ms@small --minimize "
                                   "wave_ms@big --field worker.threshold_ms=1:20 --grid 3 --no-plots -o '%s'", s,
                       at("p")),
                   0);
  ck_assert_msg(strstr(out, "worker.threshold_ms=4 (the --set value)") != NULL, "%s", out);
  ck_assert_msg(strstr(out, "scenario's own") == NULL, "%s", out);
  free(out);
  snprintf(s, sizeof s, "%s", scenario("rules", slices, "\"n\": [1], \"workers\": [1], \"axes\": {\"rule\": {\"sets\": "
                                              "{\"ten\": {\"worker.threshold_ms\": 10}}}}"));
  ck_assert_int_eq(run(NULL, &err, "optimize '%s' --axis rule=ten --minimize wave_ms@small --minimize wave_ms@big "
                                   "--field worker.threshold_ms=1:20 --grid 3 -q --no-plots -o '%s'", s, at("q")),
                   0);
  ck_assert_msg(strstr(err, "note: the search replaced what --axis rule=ten sets (worker.threshold_ms=10)") != NULL
                  && strstr(err, "not the front's settings") != NULL, "%s", err);
  free(err);
}
END_TEST

/* A params entry no expression reads: --set on it changed nothing and said
 * nothing, and sensitivity ranked it 0 +- 0. Now run notes it, and
 * sensitivity leaves it out saying why (in the error when nothing is
 * left). $c_ms2 is another name: c_ms is read only where $c_ms is whole. */
START_TEST(params_unread_is_said)
{
  char s[PATH_MAX], *err;
  snprintf(s, sizeof s, "%s", scenario("unread", "{\"params\": {\"c_ms\": 5, \"c_ms2\": 1, \"unused_ms\": 3}, "
                                       "\"classes\": [{\"count\": 2, \"program\": [{\"op\": \"cpu\", "
                                       "\"ms\": \"$c_ms2 * $c_ms\"}]}]}",
                                       "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "run '%s' --set params.unused_ms=5 --set params.c_ms=4 -q --no-plots -o '%s'", s,
                       at("r")),
                   0);
  ck_assert_msg(strstr(err, "note: --set params.unused_ms=5: no expression of") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "reads $unused_ms, so it changes nothing") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "params.c_ms=4") == NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --scales 1 -q --no-plots -o '%s'", s, at("s")), 0);
  ck_assert_msg(strstr(err, "tssim: note: left out: params.unused_ms: no expression of the model reads $unused_ms")
                  != NULL, "%s", err);
  free(err);
  char *csv = tu_read_file(at("s/sensitivity.csv"), NULL);
  ck_assert_msg(strstr(csv, "params.c_ms,") != NULL && strstr(csv, "unused") == NULL, "%s", csv);
  free(csv);
  snprintf(s, sizeof s, "%s", scenario("none", "{\"params\": {\"unused_ms\": 3}, \"classes\": [{\"count\": 2, "
                                       "\"program\": [{\"op\": \"cpu\", \"ms\": 5}]}]}",
                                       "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' -q --no-plots -o '%s'", s, at("n")), 2);
  ck_assert_msg(strstr(err, "none of the 1 params named *_ms of") != NULL &&
                  strstr(err, "can be scaled: 1 read by no expression; name fields") != NULL, "%s", err);
  free(err);
}
END_TEST

/* The unread-param note had gaps, each silent: --param of one (ranked 0),
 * optimize --field on one, run --set 'params={...}', and --axis mode=A
 * keeping the value that does not read $b_ms (only B's override does). */
START_TEST(params_unread_is_said_by_every_option)
{
  char s[PATH_MAX], *err;
  snprintf(s, sizeof s, "%s", scenario("unread", "{\"params\": {\"c_ms\": 5, \"unused_ms\": 3}, \"classes\": "
                                       "[{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"$c_ms\"}]}]}",
                                       "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --param params.unused_ms --scales 1 -q --no-plots -o '%s'", s,
                       at("s")),
                   0);
  ck_assert_msg(strstr(err, "note: --param params.unused_ms: no expression of") != NULL &&
                  strstr(err, "reads $unused_ms, so scaling it changes nothing") != NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(NULL, &err, "optimize '%s' --minimize wave_ms --field params.unused_ms=1:5 --grid 3 -q "
                                   "--no-plots -o '%s'", s, at("o")),
                   0);
  ck_assert_msg(strstr(err, "note: --field params.unused_ms: no expression of") != NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(NULL, &err, "run '%s' --set 'params={\"c_ms\": 4, \"unused_ms\": 2}' -q --no-plots -o '%s'",
                       s, at("r")),
                   0);
  ck_assert_msg(strstr(err, "note: --set params={...}: no expression of") != NULL &&
                  strstr(err, "reads $unused_ms, so its unused_ms changes nothing") != NULL && !strstr(err, "$c_ms"),
                "%s", err);
  free(err);
  snprintf(s, sizeof s, "%s", scenario("ab", "{\"params\": {\"b_ms\": 5}, \"classes\": [{\"count\": 1, \"program\": "
                                       "[{\"op\": \"cpu\", \"ms\": 2}]}]}", "\"n\": [1], \"workers\": [1], \"axes\": "
                                       "{\"mode\": {\"sets\": {\"A\": {\"classes[0].program[0].ms\": 3}, \"B\": "
                                       "{\"classes[0].program[0].ms\": \"$b_ms\"}}}}"));
  ck_assert_int_eq(run(NULL, &err, "run '%s' --axis mode=A --set params.b_ms=4 -q --no-plots -o '%s'", s, at("a")), 0);
  ck_assert_msg(strstr(err, "note: --set params.b_ms=4: no expression of") != NULL &&
                  strstr(err, "at the values --axis keeps) reads $b_ms") != NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(NULL, &err, "run '%s' --axis mode=B --set params.b_ms=4 -q --no-plots -o '%s'", s, at("b")), 0);
  ck_assert_msg(strstr(err, "reads $b_ms") == NULL, "%s", err);
  free(err);
}
END_TEST

/* optimize's table said "value" for the mean over replications, where run
 * and sensitivity show the pooled median: its header says "mean". */
START_TEST(optimize_table_names_the_mean)
{
  char *out, s[PATH_MAX];
  snprintf(s, sizeof s, "%s", scenario("slices", slices, "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(&out, NULL, "optimize '%s' --minimize wave_ms@small --field worker.threshold_ms=1:20 --grid 3 "
                                   "--no-plots -o '%s'", s, at("o")),
                   0);
  ck_assert_msg(strstr(out, " mean      +-95%     baseline      +-95%") != NULL, "%s", out);
  ck_assert_msg(strstr(out, " value ") == NULL, "%s", out);
  free(out);
}
END_TEST

/* --param params.nosuch_ms advised "give it with --set params.nosuch_ms=VALUE
 * first", which is refused (no such parameter in params): now it names the
 * params there are. It then said "--set cannot add one", but --set of the
 * whole params object and of a field reading it does: that is the advice,
 * and it works. */
START_TEST(params_missing_one_gets_advice_that_works)
{
  char *err, s[PATH_MAX];
  snprintf(s, sizeof s, "%s", scenario("one", "{\"params\": {\"c_ms\": 5}, \"classes\": [{\"count\": 1, \"program\": "
                                       "[{\"op\": \"cpu\", \"ms\": \"$c_ms\"}]}]}", "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --param params.nosuch_ms -q --no-plots -o '%s'", s, at("o")), 2);
  ck_assert_msg(strstr(err, "tssim: --param: params.nosuch_ms is not a parameter of the model") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "(its params: c_ms)") != NULL && strstr(err, "cannot add") == NULL, "%s", err);
  ck_assert_msg(strstr(err, "give the whole object with --set 'params={...,\"nosuch_ms\":VALUE}' and a field that "
                            "reads it with --set 'FIELD=\"$nosuch_ms\"'") != NULL, "%s", err);
  ck_assert_msg(strstr(err, "give it with --set") == NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(NULL, NULL, "sensitivity '%s' --set 'params={\"c_ms\":5,\"nosuch_ms\":2}' --set "
                                   "'classes[0].program[0].ms=\"$nosuch_ms\"' --param params.nosuch_ms --scales 1 -q "
                                   "--no-plots -o '%s'", s, at("o")),
                   0);
  /* of 40 params, the list was cut mid-name ("..., parameter_021_ms, par)"):
   * now between names, with how many more */
  char model[2048] = "{\"params\": {";
  for (int i = 0; i < 40; i++)
    snprintf(model + strlen(model), sizeof model - strlen(model), "%s\"parameter_%03d_ms\": 1", i ? ", " : "", i);
  strcat(model, "}, \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": \"$parameter_000_ms\"}]}]}");
  snprintf(s, sizeof s, "%s", scenario("forty", model, "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --param params.zzz -q --no-plots -o '%s'", s, at("o")), 2);
  ck_assert_msg(strstr(err, ", parameter_020_ms and 19 more): a parameter is") != NULL, "%s", err);
  free(err);
}
END_TEST

/* A --param that is no number quoted the model's JSON cut at 60 bytes,
 * mid-token ({"policy":"fifo",...,"pri): now at a comma, with "...". And
 * -q's help said "print nothing but errors" while the line saying a
 * previous run is replaced stays (docs/output.md): the help says so. */
START_TEST(sensitivity_param_error_and_quiet_say_it_straight)
{
  char *err, *out, s[PATH_MAX];
  snprintf(s, sizeof s, "%s", scenario("long", "{\"worker\": {\"policy\": \"fifo\", \"threshold_ms\": 10, "
                                       "\"yield_overhead_ms\": 0.5, \"priority_divisor\": 4}, "
                                       "\"classes\": [{\"count\": 1, "
                                       "\"program\": [{\"op\": \"cpu\", \"ms\": 5}]}]}",
                                       "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --param worker -q --no-plots -o '%s'", s, at("o")), 2);
  ck_assert_msg(strstr(err, "--param: worker is {\"policy\":\"fifo\",\"threshold_ms\":10,... in the model, not a "
                            "number") != NULL, "%s", err);
  free(err);
  /* a value with no comma before the limit became "..." alone: a string is
   * cut before a space, one with no space at the limit, between UTF-8
   * characters (the quote, 28 e-acutes of 2 bytes, then "...") */
  char model[512], e30[64] = "", want[128];
  for (int i = 0; i < 30; i++)
    strcat(e30, "\xc3\xa9");
  snprintf(want, sizeof want, "--param: name is \"%.56s... in the model", e30);
  snprintf(model, sizeof model, "{\"description\": \"A queue of one worker that serves its clients in the order they "
           "arrive\", \"name\": \"%s\", \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 5}]}]}",
           e30);
  snprintf(s, sizeof s, "%s", scenario("text", model, "\"n\": [1], \"workers\": [1]"));
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --param description -q --no-plots -o '%s'", s, at("o")), 2);
  ck_assert_msg(strstr(err, "--param: description is \"A queue of one worker that serves its clients in the... in "
                            "the model") != NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(NULL, &err, "sensitivity '%s' --param name -q --no-plots -o '%s'", s, at("o")), 2);
  ck_assert_msg(strstr(err, want) != NULL, "%s", err);
  free(err);
  ck_assert_int_eq(run(&out, NULL, "optimize --help"), 0);
  ck_assert_msg(strstr(out, "nothing but errors") == NULL && strstr(out, "a previous run is replaced stays") != NULL,
                "%s", out);
  free(out);
}
END_TEST

Suite *explore_notes_suite(void)
{
  Suite *s = suite_create("explore_notes");
  const TTest *const opt[] = {optimize_says_when_its_budget_stopped_the_search,
                              optimize_budget_note_skips_a_stalled_simplex, optimize_says_what_reproduces_its_best,
                              optimize_front_says_its_baseline_and_replaced_axis,
                              optimize_table_names_the_mean, NULL};
  tu_tcase(s, "optimize", opt, make_tmp, remove_tmp, 300);
  const TTest *const sens[] = {sensitivity_says_an_elasticity_straddles_a_jump, params_unread_is_said,
                               params_unread_is_said_by_every_option,
                               params_missing_one_gets_advice_that_works,
                               sensitivity_param_error_and_quiet_say_it_straight, NULL};
  tu_tcase(s, "sensitivity", sens, make_tmp, remove_tmp, 300);
  return s;
}
