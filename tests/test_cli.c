/* The command line as a user meets it (issue 13, "Hard inputs and a new
 * user's bug list"): what each command prints, its exit status (0 ok, 1 the
 * simulation failed, 2 bad usage or input, 3 an I/O failure writing results,
 * 130/143 interrupted), the results folder it leaves, and the size guards.
 * Every test runs the built binary (TSSIM_BINARY) from the source root.
 * Interrupted commands: test_cli_signals.c. */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/model.h"
#include "clifixture.h"
#include "testutil.h"

/* ---- explain ---- */

/* Issue 13 item 1: the processor-sharing line printed the last simulated
 * completion through a buffer already holding another number, so it read
 * "last: limit 90 ms, simulated 78 ms" two lines after "simulated 90 ms: exact". */
START_TEST(cli_explain_numbers_of_one_line_are_distinct)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain " RR30 " --n 5 --workers 2", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "last completion ceil(N/W)*C = 3*30 = 90 ms; simulated 90 ms: exact\n"));
  ck_assert_ptr_nonnull(
    strstr(out, "  mean completion: limit 78 ms, simulated 70 ms (8 ms earlier); last: limit 90 ms, simulated 90 ms\n"));
  free(out);
  /* one actor is "1 actor", in the header and in the time-slice queue's m */
  ck_assert_int_eq(tu_tssim("explain " RR30 " --n 1 --workers 1", &out, NULL), 0);
  ck_assert_msg(strstr(out, ", 1 actor, one replication") && strstr(out, "m = 1 actor on the busiest worker") &&
                  !strstr(out, " 1 actors"),
                "%s", out);
  free(out);
}
END_TEST


/* ---- the results folder ---- */

/* Issue 13 item 7: a --no-plots rerun left the old plots beside the new
 * summary.csv. The commit of the results folder removes them. */
START_TEST(cli_run_removes_stale_plots)
{
  static const char *const stale[] = {"wave.png", "wave.svg", "cpu.png", "ratio.svg", "decomposition.png"};
  ck_assert_int_eq(run(NULL, NULL, "run " RR " --n 2 -r 1 -q --no-plots -o '%s'", at("out")), 0);
  for (size_t i = 0; i < sizeof stale / sizeof *stale; i++) {
    char rel[64];
    snprintf(rel, sizeof rel, "out/%s", stale[i]);
    tu_write_file(at(rel), "an old plot");
  }
  tu_write_file(at("out/notes.txt"), "mine");
  ck_assert_int_eq(tu_plot_files(at("out")), 5);
  ck_assert_int_eq(run(NULL, NULL, "run " RR " --n 4 -r 1 -q --no-plots -o '%s'", at("out")), 0);
  ck_assert_int_eq(tu_plot_files(at("out")), 0);
  ck_assert(tu_exists(at("out/summary.csv")) && tu_exists(at("out/samples.csv")) && tu_exists(at("out/summary.json")));
  ck_assert(tu_exists(at("out/notes.txt"))); /* only what tssim writes goes */
  char *csv = tu_read_file(at("out/summary.csv"), NULL);
  ck_assert_ptr_nonnull(strstr(csv, "\n4,1,job,"));
  free(csv);
  ck_assert_int_eq(tu_leftovers(at("out")), 0);
}
END_TEST

/* Issue 13 item 8: -o naming a regular file exited 1 ("the simulation
 * failed") with "summary.csv.tmp.7487: cannot write: Not a directory"; then
 * 3, an I/O failure, for what is the user's mistake (ux21 item 3): every
 * command whose -o is a folder says so in one line, exit 2, and writes
 * nothing. A trace's -o is a file: a file where its folder should be is
 * the same mistake, said the same way before the point runs (as
 * calibrate's -o before the fit: fit_error_output_checked_before_the_fit). */
START_TEST(cli_output_is_a_file_exits_2)
{
  char *err, want[2 * PATH_MAX];
  tu_write_file(at("x"), "not a folder");
  ck_assert_int_eq(run(NULL, NULL, "run tests/data/exp.json --shard 1/1 -q -o '%s'", at("p1")), 0);
  const char *const cmds[] = {
    "run " RR " --n 2 -q -o '%s'", "merge '%s/p1' -q --no-plots -o '%s'",
    "sensitivity tests/data/exp.json -q --no-plots -o '%s' --param 'classes[0].program[0].ms' --scales 1 "
    "--metric wave_ms",
    "optimize tests/data/exp.json -q --no-plots -o '%s' --minimize wave_ms --grid 3 --field "
    "'classes[0].program[0].ms=0.5:1'"};
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++)
    for (int deeper = 0; deeper < 2; deeper++) {
      const char *o = at(deeper ? "x/y" : "x");
      ck_assert_int_eq(c == 1 ? run(NULL, &err, cmds[c], tmp, o) : (run(NULL, &err, cmds[c], o)), 2);
      if (deeper)
        snprintf(want, sizeof want, "tssim: -o %s: %s is a file, expected a folder\n", o, at("x"));
      else
        snprintf(want, sizeof want, "tssim: -o %s: is a file, expected a folder\n", o);
      ck_assert_msg(strcmp(err, want) == 0, "%s: %s", cmds[c], err);
      free(err);
    }
  char *text = tu_read_file(at("x"), NULL);
  ck_assert_str_eq(text, "not a folder");
  free(text);
  ck_assert_int_eq(tu_leftovers(tmp), 0);
  /* a trace into a file's "folder" */
  ck_assert_int_eq(run(NULL, &err, "trace " RR " --n 2 -o '%s'", at("x/t.json")), 2);
  snprintf(want, sizeof want, "tssim: -o %s: %s is a file, expected a folder\n", at("x/t.json"), at("x"));
  ck_assert_str_eq(err, want);
  free(err);
}
END_TEST

/* An -o no folder can be made at, in a folder we may write to (a name too
 * long; /proc, as root): "cannot create the folder" without -o, exit 3,
 * after loading (walkthrough 23 item 5). It is the input's fault: exit 2,
 * one line naming -o, before anything is written. */
START_TEST(cli_output_that_cannot_exist_exits_2)
{
  char name[300], o[PATH_MAX + 400], want[2 * PATH_MAX + 800], *err;
  memset(name, 'a', 299);
  name[299] = '\0';
  snprintf(o, sizeof o, "%s/%s", tmp, name);
  const char *const cmds[] = {"run " RR " --n 2 -q --no-plots -o '%s'", "trace " RR " --n 2 -o '%s/t.json'",
                              "calibrate models/zero-cache.json models/baselines/zero-cache-wave.json -q -o '%s/c.json'",
                              "sensitivity tests/data/exp.json -q --no-plots -o '%s' --param "
                              "'classes[0].program[0].ms' --scales 1 --metric wave_ms"};
  for (int proc = 0; proc < (geteuid() == 0 ? 2 : 1); proc++)
    for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
      const char *at_o = proc ? "/proc/tssim-no-such" : o;
      ck_assert_int_eq(run(NULL, &err, cmds[c], at_o), 2);
      snprintf(want, sizeof want, "tssim: -o %s%s: cannot create the %s in %s: %s (expected a path where a folder "
               "can be made)\n", at_o, c == 1 ? "/t.json" : c == 2 ? "/c.json" : "",
               c == 0 || c == 3 ? "results folder" : "folder", proc ? "/proc" : tmp,
               proc ? "No such file or directory" : "File name too long");
      ck_assert_msg(strcmp(err, want) == 0, "%s: %s", cmds[c], err);
      free(err);
    }
  /* review 23b: a symbolic link to nothing in the path was exit 3 without -o */
  ck_assert_int_eq(symlink(at("nowhere"), at("dangling")), 0);
  for (int whole = 0; whole < 2; whole++) {
    ck_assert_int_eq(run(NULL, &err, "run " RR " --n 2 -q --no-plots -o '%s%s'", at("dangling"), whole ? "" : "/x"), 2);
    snprintf(want, sizeof want, "tssim: -o %s%s: %s is a symbolic link to nothing, expected a folder\n",
             at("dangling"), whole ? "" : "/x", at("dangling"));
    ck_assert_str_eq(err, want);
    free(err);
  }
  ck_assert_int_eq(unlink(at("dangling")), 0);
  /* a probe a SIGKILL left (.tssim-probe.PID) is neither a result nor a stranger's file */
  ck_assert_int_eq(mkdir(at("par"), 0755), 0);
  ck_assert_int_eq(mkdir(at("par/.tssim-probe.999"), 0755), 0);
  ck_assert_int_eq(run(NULL, NULL, "run " RR " --n 2 -r 1 -q --no-plots -o '%s'", at("par")), 0);
  ck_assert(tu_exists(at("par/summary.csv")));
  tu_rmtree(at("par"));
  char *left;
  ck_assert_int_eq(tu_sh(&left, "ls -A '%s'", tmp), 0);
  ck_assert_str_eq(left, "");
  free(left);
}
END_TEST

/* Progress is for a terminal: with stderr a pipe, calibrate wrote one line
 * per simplex iteration (1.1 MB for the zero-cache fit). */
START_TEST(cli_calibrate_progress_only_on_a_terminal)
{
  char *out, *err;
  ck_assert_int_eq(run(&out, &err,
                       "calibrate models/zero-cache.json models/baselines/zero-cache-wave.json --starts 2 "
                       "--max-iter 20 -r 1 -o '%s'",
                       at("fitted.json")),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "fitted"));
  ck_assert_str_eq(err, "");
  free(out);
  free(err);
}
END_TEST

/* The walkthrough of run 12: calibrate -o OTHER/x.json copied the model's
 * relative host.cpu_scale_by_n.baseline ("baselines/zero-cache-wave.json",
 * relative to models/) as it was, so the written model named a file that is
 * not there ("cannot read the baseline"). It now names the same file from
 * its own folder: the temporary folder is another branch of the tree than
 * models/, so by its absolute path (never a "../"); the model loads. */
START_TEST(cli_calibrate_elsewhere_keeps_file_paths)
{
  ck_assert_int_eq(mkdir(at("elsewhere"), 0777), 0);
  ck_assert_int_eq(run(NULL, NULL,
                       "calibrate models/zero-cache.json models/baselines/zero-cache-wave.json --starts 0 "
                       "--max-iter 1 -r 1 -q -o '%s'",
                       at("elsewhere/fitted.json")),
                   0);
  cJSON *doc;
  ts_err e;
  ck_assert_int_eq(ts_json_load(at("elsewhere/fitted.json"), &doc, &e), 0);
  const cJSON *b = ts_json_get_path(doc, "host.cpu_scale_by_n.baseline");
  ck_assert(cJSON_IsString(b));
  ck_assert_msg(b->valuestring[0] == '/' && strstr(b->valuestring, "models/baselines/zero-cache-wave.json"), "%s",
                b->valuestring);
  cJSON_Delete(doc);
  ts_model m;
  int rc = ts_model_load(at("elsewhere/fitted.json"), NULL, 0, &m, NULL, &e);
  ck_assert_msg(rc == 0, "%s", e.msg);
  ts_model_finish(&m);
}
END_TEST

/* A command line and the one line it must be refused with (exit 2). */
typedef struct refusal {
  const char *args, *err;
} refusal;

static void expect_refused(const refusal *cases, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    char *err;
    ck_assert_int_eq(run(NULL, &err, "%s", cases[i].args), 2);
    ck_assert_msg(strcmp(err, cases[i].err) == 0, "%s: %s", cases[i].args, err);
    free(err);
  }
}

/* Arrivals drawn while the world is laid out (batches of a Poisson class)
 * that pass 73 years: ts_world_init said -1, so run and calibrate said "out
 * of memory" and exited 1 (ux21 item 1). Every command says the real cause,
 * exit 2. */
START_TEST(cli_arrivals_past_73_years_exit_2)
{
#define SLOW "scenarios/examples/batch.json --set 'classes[0].arrival.rate_per_s=1e-9'"
  static const char *const cmds[] = {"run " SLOW " -q --no-plots -o '%s'", "explain " SLOW "%.0s",
                                     "gantt " SLOW "%.0s", "trace " SLOW " -o '%s'",
                                     "calibrate %s/m.json %s/b.json --starts 0 -r 1 -q -o %s/c.json"};
#undef SLOW
  tu_write_file(at("m.json"),
                "{\"name\": \"slow\", \"params\": {\"s\": 1}, \"classes\": [{\"name\": \"job\", \"count\": 100, "
                "\"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 1e-9, \"batch\": {\"dist\": \"geometric\", "
                "\"mean\": 2}}, \"program\": [{\"op\": \"cpu\", \"ms\": \"$s\"}, {\"op\": \"span_end\", \"span\": "
                "\"job\", \"from\": \"arrival\"}]}], \"free\": [{\"name\": \"s\", \"path\": \"params.s\", \"min\": "
                "0.5, \"max\": 2, \"start\": 1}]}");
  tu_write_file(at("b.json"), "{\"points\": [{\"n\": 1, \"workers\": 1, \"metrics\": {\"job_mean_ms\": 5}}]}");
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
    char *err;
    ck_assert_int_eq(run(NULL, &err, cmds[c], c == 0 ? at("o") : c == 3 ? at("t.json") : tmp, tmp, tmp), 2);
    ck_assert_msg(strstr(err, ": simulated time would pass 73 years (fewer actors or shorter steps)\n") &&
                    !strchr(err, '\n')[1],
                  "%s: %s", cmds[c], err);
    free(err);
  }
}
END_TEST

/* Issue 13 item 8: a model or scenario that is a folder said only "read error". */
START_TEST(cli_input_is_a_directory_exits_2)
{
  static const refusal cases[] = {
    {"run models/", "tssim: models/: is a directory, expected a JSON file\n"},
    {"run scenarios", "tssim: scenarios: is a directory, expected a JSON file\n"},
    {"gantt scenarios/", "tssim: scenarios/: is a directory, expected a JSON file\n"},
    {"calibrate models/ models/baselines/zero-cache-wave.json", "tssim: models/: is a directory, expected a JSON file\n"},
    {"calibrate models/zero-cache.json models/baselines", "tssim: models/baselines: is a directory, expected a JSON file\n"},
  };
  expect_refused(cases, sizeof cases / sizeof *cases);
}
END_TEST

/* A new user's mistakes, found by a walkthrough: each refused with exit 2
 * and a line that says what to do. */
START_TEST(cli_common_mistakes_are_named)
{
  static const refusal cases[] = {
    {"run scenarios/rr-wave.json -o ''", "tssim: -o: expected a folder, got an empty path\n"},
    /* walkthrough 15: said "tssim: : cannot open: No such file or directory" */
    {"run ''", "tssim: \"\": expected the name of a JSON file, got an empty path\n"},
    {"explain ''", "tssim: \"\": expected the name of a JSON file, got an empty path\n"},
    {"merge -o '' results/x", "tssim: -o: expected a folder, got an empty path\n"},
    {"calibrate models/zero-cache.json models/baselines/zero-cache-wave.json -o ''",
     "tssim: -o: expected a file, got an empty path\n"},
    {"run models/rr-wave.json", "tssim: models/rr-wave.json: (top level): this is a model (it has \"classes\"), not a "
                                "scenario: give a scenario, which names its model in \"model\" (e.g. "
                                "scenarios/zero-cache-wave.json)\n"},
    {"run tests/data/bad/scenario-axis-set-misspelt.json",
     "tssim: tests/data/bad/scenario-axis-set-misspelt.json: axes.a.sets.v: params.trakcer_ms is not a field of the "
     "model models/zero-cache.json; did you mean params.tracker_ms?\n"},
    {"run scenarios/zero-cache-wave.json --set params.trackr_ms=5",
     "tssim: models/zero-cache.json: params.trackr_ms: no such parameter in params; did you mean "
     "\"tracker_ms\"? (from --set params.trackr_ms=5)\n"},
    /* walkthrough 23 item 4: an error at another field than the --set's lacked the suffix; calibrate's had none */
    {"explain " RR " --set params.rows=3 --set 'classes[0].program[0].ms=0' --set params.c_ms=2",
     "tssim: models/rr-wave.json: classes[0].program[0].rows: 3 rows for 0 ns of CPU: expected at most one row per "
     "ns (from --set classes[0].program[0].ms=0)\n"},
    {"run " RR " --set params.c_ms=0 -o /dev/null/x",
     "tssim: models/rr-wave.json: classes[0].program[0].rows: 400 rows for 0 ns of CPU: expected at most one row per "
     "ns (from --set params.c_ms=0)\n"},
    {"calibrate models/rr-wave.json models/baselines/zero-cache-wave.json --set params.c_ms=0 -o /dev/null/x",
     "tssim: models/rr-wave.json: classes[0].program[0].rows: 400 rows for 0 ns of CPU: expected at most one row per "
     "ns (from --set params.c_ms=0)\n"},
    /* review 23b: the blame went to the first failing prefix, though a later --set undid it */
    {"run " RR " --set 'classes[0].count=-1' --set 'classes[0].count=n' --set params.c_ms=0 -o /dev/null/x",
     "tssim: models/rr-wave.json: classes[0].program[0].rows: 400 rows for 0 ns of CPU: expected at most one row per "
     "ns (from --set params.c_ms=0)\n"},
    {"calibrate models/zero-cache.json models/baselines/zero-cache-wave.json --set params.trackr_ms=5 -o /dev/null/x",
     "tssim: models/zero-cache.json: params.trackr_ms: no such parameter in params; did you mean \"tracker_ms\"? (from "
     "--set params.trackr_ms=5)\n"},
  };
  expect_refused(cases, sizeof cases / sizeof *cases);
}
END_TEST

/* A misspelt command is one line with the nearest command and a pointer to
 * --help (not the whole help); `tssim version --help` is version's usage,
 * and version takes no other argument; run's --ci-max without a CI target
 * is refused (it was ignored). */
START_TEST(cli_misspelt_command_and_version_help)
{
  static const refusal cases[] = {
    {"runn scenarios/rr-wave.json", "tssim: unknown command \"runn\"; did you mean \"run\"? (tssim --help lists the "
                                    "commands)\n"},
    {"frobnicate", "tssim: unknown command \"frobnicate\" (tssim --help lists the commands)\n"},
    {"version extra", "tssim: version: unexpected argument \"extra\" (usage: tssim version)\n"},
    {"run scenarios/examples/mm1.json --ci-max 5", "tssim: --ci-max: bounds the replications --ci-target adds, and "
                                                  "there is no CI target (give --ci-target, or ci_target in the "
                                                  "scenario)\n"},
    {"--version extra", "tssim: --version: unexpected argument \"extra\" (usage: tssim version)\n"},
  };
  expect_refused(cases, sizeof cases / sizeof *cases);
  char *out;
  ck_assert_int_eq(run(&out, NULL, "version --help"), 0);
  ck_assert_str_eq(out, "usage: tssim version\n\nPrint the version of tssim (as tssim --version does).\n");
  free(out);
}
END_TEST

/* With --ci-target, the header says the replications it started with and
 * the most any point ran (not only the starting R as if that were all). */
START_TEST(cli_run_ci_target_header_says_replications_run)
{
  char *out;
  ck_assert_int_eq(run(&out, NULL, "run scenarios/examples/mm1.json -r 3 --ci-target 5%% --no-plots -o '%s'",
                       at("ci")), 0);
  ck_assert_msg(strstr(out, ", 3 replication(s) to start\n"), "%s", out);
  ck_assert_msg(strstr(out, "reached with at most ") && strstr(out, " replications run\n"), "%s", out);
  free(out);
}
END_TEST

/* The header claims the CI target only for the rows that reached it: a row
 * that stopped at --ci-max without it is named with its widest relative
 * half-width (the old header said "reached with at most 6 replications run"
 * of every row, sojourn_p95_ms at 9.41% against a 9.35% target), in run and
 * in merge of the shards alike. */
START_TEST(cli_run_ci_target_header_says_which_rows_missed)
{
  char *out;
  ck_assert_int_eq(run(&out, NULL, "run scenarios/examples/mmc-pool.json --ci-target 9.35%% --ci-max 6 --no-plots "
                       "-o '%s'", at("ci")), 0);
  ck_assert_msg(strstr(out, "within 9.35% of its mean (of its value for a pooled one), reached by 1 of 2 rows with at "
                       "most 6 replications run; NOT reached by 1 row(s), stopped at the cap (--ci-max, "
                       "ci_max_replications) with 6 replications run: the widest, sojourn_p95_ms at dispatch=free "
                       "n=1 workers=1 class request, is within 9.41%\n"), "%s", out);
  ck_assert_msg(!strstr(out, "reached with at most"), "%s", out);
  free(out);
  for (int k = 1; k <= 2; k++) {
    char shard[16];
    snprintf(shard, sizeof shard, "s%d", k);
    ck_assert_int_eq(run(NULL, NULL, "run scenarios/examples/mmc-pool.json --ci-target 2%% --ci-max 6 --shard %d/2 "
                         "-q -o '%s'", k, at(shard)), 0);
  }
  ck_assert_int_eq(run(&out, NULL, "merge '%s/s1' '%s/s2' --no-plots -o '%s'", tmp, tmp, at("m")), 0);
  ck_assert_msg(strstr(out, "within 2% of its mean (of its value for a pooled one), NOT reached by 2 row(s), stopped "
                       "at the cap (--ci-max, ci_max_replications) with 6 replications run: the widest, "
                       "sojourn_p95_ms at dispatch=free n=1 workers=1 class request, is within 9.41%\n"), "%s", out);
  free(out);
}
END_TEST

/* --columns picks and orders the table's metric columns (the axis columns,
 * n and workers stay), leaves the files as they were, and refuses a name no
 * model of the scenario reports: exit 2, one line, the near name. */
START_TEST(cli_run_columns_pick_the_table)
{
  char *out, *plain, *err;
  ck_assert_int_eq(run(&plain, NULL, "run scenarios/examples/std-mutex.json -r 2 --no-plots -o '%s'", at("a")), 0);
  ck_assert_int_eq(run(&out, NULL, "run scenarios/examples/std-mutex.json -r 2 --no-plots -o '%s' --columns "
                       "cpu_cores,handoff,done_ms", at("b")), 0);
  const char *head = strstr(out, "\nhandoff "), *row = head ? strstr(head + 1, "\nbarging ") : NULL;
  ck_assert_msg(head && row && strstr(head, "cpu_cores") && strstr(head, "done_ms") &&
                    strstr(head, "cpu_cores") < strstr(head, "done_ms") && strstr(head, "done_ms") < row &&
                    strstr(head, " n workers ") && !strstr(out, "mutex_wait_ms"),
                "%s", out);
  ck_assert_msg(strstr(plain, "mutex_wait_ms") && strstr(plain, "done_ms") && strstr(plain, "cpu_cores") &&
                    strstr(plain, "done_ms") < strstr(plain, "cpu_cores"),
                "%s", plain);
  static const char *const files[][2] = {{"a/summary.csv", "b/summary.csv"}, {"a/samples.csv", "b/samples.csv"}};
  for (int i = 0; i < 2; i++) {
    char *x = tu_read_file(at(files[i][0]), NULL), *y = tu_read_file(at(files[i][1]), NULL);
    ck_assert_msg(x && y && strcmp(x, y) == 0, "%s", files[i][1]);
    free(x);
    free(y);
  }
  free(out);
  free(plain);
  ck_assert_int_eq(run(&out, &err, "run scenarios/examples/std-mutex.json -r 1 --no-plots -o '%s' --columns "
                       "done_ms,mutex_wiat_ms", at("c")), 2);
  ck_assert_str_eq(err, "tssim: --columns: \"mutex_wiat_ms\": model models/examples/std-mutex.json does not report it; "
                        "did you mean \"mutex_wait_ms\"? (tssim run --help lists the metrics; a model adds its spans' "
                        "and its own)\n");
  ck_assert(!tu_exists(at("c")));
  free(out);
  free(err);
  ck_assert_int_eq(run(&out, &err, "run scenarios/examples/std-mutex.json -r 1 --no-plots -o '%s' --columns "
                       "done_ms,,cpu_cores", at("c")), 2);
  ck_assert_msg(strstr(err, "--columns: expected metric names separated by commas") &&
                    strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(run(&out, &err, "run scenarios/examples/std-mutex.json -r 1 --no-plots -o '%s' --columns "
                       "done_ms,cpu_cores,done_ms", at("c")), 2);
  ck_assert_str_eq(err, "tssim: --columns: done_ms is named twice\n");
  ck_assert(!tu_exists(at("c")));
  free(out);
  free(err);
  /* a table of no metric (walkthrough 23 item 3: it printed n and workers alone) */
  ck_assert_int_eq(run(&out, &err, "run scenarios/examples/std-mutex.json -r 1 --no-plots -o '%s' --columns "
                       "n,handoff,workers", at("c")), 2);
  ck_assert_str_eq(err, "tssim: --columns: \"n,handoff,workers\" names only columns the table always shows (the axes, "
                        "n, workers, class): expected at least one metric, e.g. wave_ms\n");
  ck_assert(!tu_exists(at("c")));
  free(out);
  free(err);
}
END_TEST

/* A baseline none of whose records is at a point of the sweep compared
 * nothing, while the header still said "recorded: FILE": a note says so;
 * and when some are not at a point, how many. */
START_TEST(cli_run_notes_a_baseline_that_matches_nothing)
{
  char *out, *err;
  ck_assert_int_eq(run(&out, &err, "run scenarios/zero-cache-wave.json --n 3 -r 1 --no-plots -o '%s'", at("n3")), 0);
  ck_assert_ptr_nonnull(strstr(err, "tssim: note: no recorded value of models/baselines/zero-cache-wave.json belongs "
                                    "to a point of this sweep"));
  free(out);
  free(err);
  /* some records at no point (walk14 item 3): how many are not compared */
  ck_assert_int_eq(run(&out, &err, "run scenarios/zero-cache-wave.json --n 1,3 -r 1 --no-plots -o '%s'", at("n13")), 0);
  ck_assert_msg(strstr(err, "tssim: note: 20 of the 25 recorded values of models/baselines/zero-cache-wave.json belong "
                            "to no point of this sweep, so they are not compared (the first, scaling[1]."), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(run(&out, &err, "run scenarios/zero-cache-wave.json --n 1,2,4,8,16 -r 1 -q --no-plots -o '%s'",
                       at("n13")), 0);
  ck_assert_ptr_null(strstr(err, "note:"));
  free(out);
  free(err);
}
END_TEST

/* Issue 13 item 10: a rerun replaced the folder's files without a word
 * (also with -q, which hides the table and progress, not what is lost). */
START_TEST(cli_run_says_it_replaces_previous_results)
{
  char *err, want[PATH_MAX + 64];
  ck_assert_int_eq(run(NULL, &err, "run " RR " --n 2 -r 1 --no-plots -o '%s'", at("out")), 0);
  ck_assert_ptr_null(strstr(err, "replacing"));
  free(err);
  ck_assert_int_eq(run(NULL, &err, "run " RR " --n 2 -r 1 --no-plots -o '%s'", at("out")), 0);
  snprintf(want, sizeof want, "tssim: replacing %s/ (previous run: 2", at("out"));
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr: %s", err);
  ck_assert_ptr_nonnull(strchr(err, ')'));
  ck_assert_int_eq(strchr(err, '\n') - err + 1, (long)strlen(err)); /* one line */
  free(err);
  ck_assert_int_eq(run(NULL, &err, "run " RR " --n 2 -r 1 --no-plots -q -o '%s'", at("out")), 0);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr: %s", err); /* --quiet keeps that line */
  ck_assert_int_eq(strchr(err, '\n') - err + 1, (long)strlen(err));
  free(err);
  /* the folder as a shell's completion writes it, "out/": its files are out/FILE (ux20: it said out//summary.csv) */
  char *out, wrote[PATH_MAX + 64];
  ck_assert_int_eq(run(&out, &err, "run " RR " --n 2 -r 1 --no-plots -o '%s//'", at("out")), 0);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "stderr: %s", err);
  snprintf(wrote, sizeof wrote, "\nwrote %s/summary.csv, samples.csv, summary.json\n", at("out"));
  ck_assert_msg(strstr(out, wrote), "stdout: %s", out);
  free(out);
  free(err);
}
END_TEST

/* "replacing DIR/" is said once the command is going to write, after every
 * check of its input (ux22 item 3): a --set the model refuses only while the
 * sweep runs (a duration of i - 2 ms: negative for actor 0) said "tssim:
 * replacing out/" before its error (exit 2), though nothing was replaced;
 * sensitivity, whose search runs that model, said it too. Now the error
 * alone, the folder as it was. */
START_TEST(cli_replacing_is_said_only_before_writing)
{
  static const char *const cmds[] = {
    "run " RR " --n 2 -r 1 --no-plots -o '%s' --set 'classes[0].program[0].ms=i - 2'",
    "sensitivity " RR " --n 2 -r 1 -q --no-plots -o '%s' --param params.c_ms --scales 1 --metric wave_ms "
    "--set 'classes[0].program[0].ms=$c_ms * i - 2'"};
  char *err, cmd[2 * PATH_MAX];
  ck_assert_int_eq(run(NULL, NULL, "run " RR " --n 2 -r 1 -q --no-plots -o '%s'", at("out")), 0);
  char *before = tu_read_file(at("out/summary.csv"), NULL);
  for (int k = 0; k < 2; k++) {
    snprintf(cmd, sizeof cmd, cmds[k], at("out"));
    ck_assert_int_eq(run(NULL, &err, "%s", cmd), 2);
    ck_assert_msg(strncmp(err, "tssim: models/rr-wave.json: n=2 workers=1 replication 0", 55) == 0 &&
                    strstr(err, " is -2 ms for actor 0 (class ") && strchr(err, '\n') == err + strlen(err) - 1,
                  "%s: %s", cmd, err);
    free(err);
    char *after = tu_read_file(at("out/summary.csv"), NULL);
    ck_assert_str_eq(before, after);
    free(after);
  }
  free(before);
}
END_TEST

/* The names in folder dir, sorted, comma-separated, into buf. */
static const char *names_in(const char *dir, char *buf, size_t cap)
{
  char *out;
  ck_assert_int_eq(tu_sh(&out, "LC_ALL=C ls '%s' | tr '\\n' ,", dir), 0);
  snprintf(buf, cap, "%s", out);
  free(out);
  return buf;
}

/* A results folder holds one command's files, whichever wrote there before:
 * sensitivity into a run's folder replaces the run's files (data and plots)
 * in its commit, saying so as run does; optimize replaces sensitivity's, and
 * run optimize's. Files no results command writes (a trace, the user's)
 * stay. (Before, sensitivity.csv stood beside the run's summary.csv.) The
 * first run is into a folder holding only a trace of tssim trace's default
 * name: the user's file comes once the folder is a results folder
 * (cli_output_folder_is_new_or_a_results_folder). */
START_TEST(cli_results_folder_holds_one_commands_files)
{
  static const char *const cmds[] = {
    "run tests/data/exp.json -r 1 -q --no-plots -o '%s'",
    "sensitivity tests/data/exp.json -r 1 -q --no-plots -o '%s' --param 'classes[0].program[0].ms' --scales 1 "
    "--metric wave_ms",
    "optimize tests/data/exp.json -r 1 -q --no-plots -o '%s' --minimize wave_ms --grid 3 "
    "--field 'classes[0].program[0].ms=0.5:1'",
    "run tests/data/exp.json -r 1 -q --no-plots --samples none -o '%s'"};
  static const char *const left[] = {"samples.csv,summary.csv,summary.json,trace-n8-w1.json,",
                                     "curve.csv,notes.txt,sensitivity.csv,trace-n8-w1.json,",
                                     "best.json,notes.txt,trace-n8-w1.json,tried.csv,",
                                     "notes.txt,summary.csv,summary.json,trace-n8-w1.json,"};
  static const char *const plots[] = {"wave.png", "sensitivity.svg", "pareto.png", "wave.svg"};
  char *err, buf[1024], want[1200], cmd[2 * PATH_MAX];
  ck_assert_int_eq(mkdir(at("out"), 0777), 0);
  for (int k = 0; k < 4; k++) {
    if (k > 0) { /* as if the previous command had drawn its plot */
      char plot[PATH_MAX + 64];
      snprintf(plot, sizeof plot, "%s/%s", at("out"), plots[k - 1]);
      tu_write_file(plot, "a plot\n");
    }
    tu_write_file(at("out/trace-n8-w1.json"), "{}\n");
    if (k > 0)
      tu_write_file(at("out/notes.txt"), "mine\n");
    snprintf(cmd, sizeof cmd, cmds[k], at("out"));
    ck_assert_int_eq(run(NULL, &err, "%s", cmd), 0);
    snprintf(want, sizeof want, "tssim: replacing %s/ (previous run: 2", at("out"));
    ck_assert_msg(k == 0 ? !strstr(err, "replacing") : strncmp(err, want, strlen(want)) == 0, "%s: %s", cmd, err);
    free(err);
    ck_assert_msg(strcmp(names_in(at("out"), buf, sizeof buf), left[k]) == 0, "after %s: %s", cmd, buf);
  }
}
END_TEST

/* ux21 item 4: `run -o /` wrote its files into /, and any folder took them
 * (a home folder, a source tree), replacing a file of its own named like a
 * result and removing one named like a dead run's temporary. A results
 * folder is new, empty, or an earlier run's (it holds a file a results
 * command writes): else one line, exit 2, nothing written. */
START_TEST(cli_output_folder_is_new_or_a_results_folder)
{
  static const char *const cmds[] = {
    "run tests/data/exp.json -r 1 -q --no-plots -o '%s'",
    "optimize tests/data/exp.json -r 1 -q --no-plots -o '%s' --minimize wave_ms --grid 3 "
    "--field 'classes[0].program[0].ms=0.5:1'"};
  char *err, buf[1024], want[2 * PATH_MAX];
  /* (a run that would fail on its first actor: before the fix it wrote nothing into / either) */
  ck_assert_int_eq(run(NULL, &err, "run tests/data/exp.json -q --no-plots --set 'classes[0].program[0].ms=\"1/(i-i)\"' "
                       "-o /"), 2);
  ck_assert_str_eq(err, "tssim: -o /: is the root folder: expected a new or empty folder, or an earlier run's "
                        "results folder\n");
  free(err);
  ck_assert_int_eq(mkdir(at("mine"), 0777), 0);
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
    tu_write_file(at("mine/notes.txt"), "mine\n");
    ck_assert_int_eq(run(NULL, &err, cmds[c], at("mine")), 2);
    snprintf(want, sizeof want, "tssim: -o %s: holds files no tssim run wrote (e.g. notes.txt): expected a new or "
             "empty folder, or an earlier run's results folder\n", at("mine"));
    ck_assert_str_eq(err, want);
    free(err);
    ck_assert_str_eq(names_in(at("mine"), buf, sizeof buf), "notes.txt,");
  }
  /* an empty folder, then the same folder with a file of the user's beside the results */
  ck_assert_int_eq(mkdir(at("new"), 0777), 0);
  ck_assert_int_eq(run(NULL, NULL, cmds[0], at("new")), 0);
  tu_write_file(at("new/notes.txt"), "mine\n");
  ck_assert_int_eq(run(NULL, NULL, cmds[0], at("new")), 0);
  ck_assert_str_eq(names_in(at("new"), buf, sizeof buf), "notes.txt,samples.csv,summary.csv,summary.json,");
}
END_TEST

/* A failed write of standard output is an I/O failure too. */
START_TEST(cli_stdout_write_failure_exits_3)
{
  if (!tu_exists("/dev/full"))
    return;
  char cmd[3 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "cd '%s' && %s '%s' gantt " RR " --n 3 >/dev/full 2>'%s'", tu_source_root(),
           tu_tssim_wrapper(), getenv("TSSIM_BINARY"), at("err"));
  int status = system(cmd);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 3);
  char *err = tu_read_file(at("err"), NULL);
  ck_assert_ptr_nonnull(strstr(err, "tssim: cannot write to standard output"));
  free(err);
}
END_TEST

/* Every --help ends with the exit statuses. */
START_TEST(cli_help_lists_exit_statuses)
{
  static const char *const cmds[] = {"--help", "run --help", "calibrate --help", "sensitivity --help",
                                     "optimize --help", "trace --help", "gantt --help", "explain --help"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    char *out;
    ck_assert_int_eq(run(&out, NULL, "%s", cmds[i]), 0);
    ck_assert_msg(strstr(out, "exit status: 0 ok, 1 the simulation failed, 2 bad usage or bad input, 3 an I/O "
                              "failure\nwriting the results") != NULL,
                  "%s", cmds[i]);
    int interruptible = i < 5;
    ck_assert_msg((strstr(out, "130 or 143 interrupted") != NULL) == interruptible, "%s", cmds[i]);
    free(out);
  }
}
END_TEST

/* `tssim help run` printed the top-level help (walkthrough 23 item 2): help
 * CMD is CMD --help, help alone the top-level one, an unknown CMD exit 2
 * and one line with the near name. */
START_TEST(cli_help_command_prints_its_help)
{
  static const char *const cmds[] = {"run", "calibrate", "sensitivity", "optimize", "trace", "gantt", "explain",
                                     "merge", "version"};
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    char *want, *got;
    ck_assert_int_eq(run(&want, NULL, "%s --help", cmds[i]), 0);
    ck_assert_int_eq(run(&got, NULL, "help %s", cmds[i]), 0);
    ck_assert_msg(strcmp(want, got) == 0 && strncmp(got, "usage: tssim ", 13) == 0, "help %s: %s", cmds[i], got);
    free(want);
    free(got);
  }
  char *want, *got;
  ck_assert_int_eq(run(&want, NULL, "--help"), 0);
  ck_assert_int_eq(run(&got, NULL, "help"), 0);
  ck_assert_str_eq(want, got);
  free(got);
  ck_assert_int_eq(run(&got, NULL, "help help"), 0);
  ck_assert_str_eq(want, got);
  free(want);
  free(got);
  static const refusal cases[] = {
    {"help rn", "tssim: unknown command \"rn\"; did you mean \"run\"? (tssim --help lists the commands)\n"},
    {"help frobnicate", "tssim: unknown command \"frobnicate\" (tssim --help lists the commands)\n"},
    {"help run extra", "tssim: help: unexpected argument \"extra\" (usage: tssim help [COMMAND])\n"},
  };
  expect_refused(cases, sizeof cases / sizeof *cases);
}
END_TEST

/* Every script answers --help with its help: exit 0, text on stdout
 * (scripts/fuzz-inputs --help died of a Python traceback, walkthrough 23
 * item 9). */
START_TEST(cli_every_script_prints_its_help)
{
  char *dir = tu_source_path("scripts");
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));) {
    char path[PATH_MAX + 300];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (de->d_name[0] == '.' || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0)
      continue;
    char *out, *first = tu_read_file(path, NULL);
    int python = first && strncmp(first, "#!/usr/bin/env python3", 22) == 0;
    free(first);
    if (python && !tu_have("python3"))
      continue;
    int rc = tu_sh(&out, "'%s' --help 2>/dev/null", path);
    ck_assert_msg(rc == 0 && strlen(out) > 40 && !strstr(out, "Traceback"), "%s --help: exit %d: %s", de->d_name, rc,
                  out);
    free(out);
    n++;
  }
  closedir(d);
  free(dir);
  ck_assert_int_gt(n, 20);
}
END_TEST

/* run --help lists every built-in metric, each gated one with what it needs
 * (groups_max and the pools' cores were missing). */
START_TEST(cli_run_help_lists_every_metric)
{
  char *out;
  ck_assert_int_eq(run(&out, NULL, "run --help"), 0);
  static const char *const want[] = {"  wave_ms ", "  groups_max ", "[with a class counted by n]", "  hop_ms ",
                                     "[with hops]", "  <pool>_cpu_cores ", "<span>_p99_ms"};
  for (size_t i = 0; i < sizeof want / sizeof *want; i++)
    ck_assert_msg(strstr(out, want[i]) != NULL, "missing \"%s\"", want[i]);
  free(out);
}
END_TEST

/* ---- size guards ---- */

/* A relay engineer's walkthrough: explain, gantt and trace drew the model's
 * own setting and ignored the scenario's axes (std-mutex's table starts
 * with fifo, explain showed std), with no way to pick one. They draw each
 * axis's first value, or the --axis KEY=LABEL given, and say which. */
START_TEST(cli_viz_axis_picks_the_drawn_value)
{
  char *fifo, *std, *err;
  ck_assert_int_eq(run(&fifo, NULL, "explain scenarios/examples/std-mutex.json"), 0);
  ck_assert_ptr_nonnull(strstr(fifo, "example-std-mutex (handoff=fifo): n=16, workers=4"));
  ck_assert_int_eq(run(&std, NULL, "explain scenarios/examples/std-mutex.json --axis handoff=std"), 0);
  ck_assert_ptr_nonnull(strstr(std, "example-std-mutex (handoff=std): n=16, workers=4"));
  /* the same as the model's field set by hand */
  char *byset;
  ck_assert_int_eq(run(&byset, NULL, "explain scenarios/examples/std-mutex.json --axis handoff=std --set "
                                     "'locks[0].handoff=\"fifo\"'"), 0);
  ck_assert_str_eq(byset, std); /* the axis's value overrides --set, as in tssim run */
  const char *body_fifo = strchr(fifo, '\n'), *body_std = strchr(std, '\n');
  ck_assert_str_ne(body_fifo, body_std);
  free(byset);
  free(fifo);
  free(std);
  ck_assert_int_eq(run(&fifo, NULL, "gantt scenarios/examples/batch.json --horizon 3 --axis batch=geometric-2"), 0);
  ck_assert_ptr_nonnull(strstr(fifo, "example-batch (batch=geometric-2): n=1, workers=1: 0 to"));
  free(fifo);
  static const char *const bad[][2] = {
    {"handoff=bogus", "tssim: --axis: handoff: no value \"bogus\" (its values: fifo, barging, std)\n"},
    {"hand=std", "tssim: --axis: hand: scenarios/examples/std-mutex.json has no such axis (its axes: handoff)\n"},
    {"handoff=std,fifo",
     "tssim: --axis: expected KEY=LABEL, one value to draw (e.g. handoff=barging), got \"handoff=std,fifo\"\n"},
    /* walkthrough 15: these said "expected KEY=LABEL,LABEL,..." (sensitivity's form), which explain refuses */
    {"handoff", "tssim: --axis: expected KEY=LABEL, one value to draw (e.g. handoff=barging), got \"handoff\"\n"},
    {"handoff=", "tssim: --axis: expected KEY=LABEL, one value to draw (e.g. handoff=barging), got \"handoff=\"\n"},
    {"handoff=std --axis handoff=fifo", "tssim: --axis: handoff is given twice\n"}};
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    ck_assert_int_eq(run(NULL, &err, "explain scenarios/examples/std-mutex.json --axis %s", bad[i][0]), 2);
    ck_assert_str_eq(err, bad[i][1]);
    free(err);
  }
  ck_assert_int_eq(run(NULL, &err, "explain scenarios/examples/mm1.json --axis handoff"), 2);
  ck_assert_str_eq(err, "tssim: --axis: scenarios/examples/mm1.json has no axes to draw a value of, got \"handoff\"\n");
  free(err);
}
END_TEST

/* A lecturer's walkthrough: an open system's gantt drew its whole 100 s
 * horizon in 2 s columns, and --set horizon_ms is not a model field.
 * --horizon MS (trace, gantt, explain) simulates only the first MS ms, and
 * the chart covers all of them: it stopped at the last event (0 to 4.104 ms,
 * busy 31% of that; with --seed 7, no job before 5 ms, "0 to 0 ns, one
 * column = 1 ns" and trace's "0.000 ms simulated"), and it drew the jobs
 * that had not arrived as rows although it counts them apart. */
START_TEST(cli_viz_horizon_draws_a_window)
{
  char *out, *err;
  ck_assert_int_eq(run(&out, NULL, "gantt scenarios/examples/mm1.json --horizon 5 --max-actors 2"), 0);
  ck_assert_msg(strstr(out, "example-mm1: n=1, workers=1: 0 to 5 ms, one column = 0.1 ms"), "%s", out);
  /* the rows not drawn are the jobs that had not arrived by 5 ms, and it says so */
  ck_assert_ptr_nonnull(strstr(out, "(1 more actor not drawn: see --max-actors; and 19997 that had not arrived by the end)"));
  free(out);
  ck_assert_int_eq(run(&out, NULL, "gantt scenarios/examples/mm1.json --horizon 5"), 0);
  ck_assert_msg(strstr(out, "│ busy 25%\n") && !strstr(out, "│ not arrived") &&
                    strstr(out, "\nactor 2   │") && !strstr(out, "\nactor 3 ") &&
                    strstr(out, "\n(19997 more actors, none arrived by the end)\n"),
                "%s", out);
  free(out);
  ck_assert_int_eq(run(&out, NULL, "gantt scenarios/examples/mm1.json --seed 7 --horizon 5"), 0);
  ck_assert_msg(strstr(out, "example-mm1: n=1, workers=1: 0 to 5 ms, one column = 0.1 ms") &&
                    strstr(out, "│ busy 0%\n(20000 actors, none arrived by the end)\n"),
                "%s", out);
  free(out);
  ck_assert_int_eq(run(&out, NULL, "trace scenarios/examples/mm1.json --seed 7 --horizon 5 -o '%s'", at("t.json")), 0);
  ck_assert_msg(strstr(out, ", 5.000 ms simulated, 0 run pieces"), "%s", out);
  free(out);
  ck_assert_int_eq(run(&out, NULL, "gantt scenarios/examples/mm1.json --max-actors 2"), 0);
  ck_assert_ptr_null(strstr(out, "one column = 0.1 ms"));
  free(out);
  ck_assert_int_eq(run(NULL, &err, "gantt scenarios/examples/mm1.json --horizon 0"), 2);
  ck_assert_str_eq(err, "tssim: --horizon: expected a number of ms in [1e-06, 1e+12], got \"0\"\n");
  free(err);
  ck_assert_int_eq(run(NULL, NULL, "explain scenarios/examples/mm1.json --horizon 5"), 0);
}
END_TEST

/* Issue 13 item 9: tssim trace had no size guard (rr-wave at n = 10,000:
 * 25 s, 3 GB, a 264 MB file). A point past --max-events is refused with one
 * line saying how to override, and nothing is written. */
/* Walkthrough 15: `gantt --width 100` drew a timeline about 57 columns
 * wide. --width bounds the longest line, labels and end notes included,
 * and the time axis steps 1-2-5: the help says so, and no line passes it. */
START_TEST(cli_gantt_width_bounds_the_longest_line)
{
  char *out;
  ck_assert_int_eq(run(&out, NULL, "gantt --help"), 0);
  ck_assert_ptr_nonnull(strstr(out, "--width COLUMNS     the longest line, labels and end notes included"));
  ck_assert_ptr_nonnull(strstr(out, "up to 2.5 times shorter"));
  free(out);
  static const int widths[] = {60, 100, 160};
  for (size_t i = 0; i < sizeof widths / sizeof *widths; i++) {
    ck_assert_int_eq(run(&out, NULL, "gantt " RR " --n 3 --ascii --width %d", widths[i]), 0);
    size_t longest = 0;
    for (char *line = out; *line;) {
      size_t len = strcspn(line, "\n");
      longest = len > longest ? len : longest;
      line += len + (line[len] == '\n');
    }
    ck_assert_msg(longest <= (size_t)widths[i] && longest > (size_t)widths[i] / 2, "--width %d: longest line %zu",
                  widths[i], longest);
    free(out);
  }
}
END_TEST

START_TEST(cli_viz_refuse_points_past_max_events)
{
  char *err;
  ck_assert_int_eq(run(NULL, &err, "trace " RR " --n 10000 -o '%s'", at("t.json")), 2);
  ck_assert_str_eq(err, "tssim: scenarios/rr-wave.json: n=10000, workers=1 records more than 500000 events (run "
                        "pieces, state changes, counters); draw a smaller --n or a shorter --horizon MS, or raise "
                        "the limit with --max-events N (0: no limit)\n");
  free(err);
  ck_assert(!tu_exists(at("t.json")));
  ck_assert_int_eq(tu_leftovers(tmp), 0);
  ck_assert_int_eq(run(NULL, &err, "gantt " RR " --n 100 --max-events 1000"), 2);
  ck_assert_ptr_nonnull(strstr(err, "n=100, workers=1 records more than 1000 events"));
  free(err);
  ck_assert_int_eq(run(NULL, &err, "explain " RR " --n 100 --max-events 1000"), 2);
  ck_assert_ptr_nonnull(strstr(err, "--max-events N"));
  free(err);
  /* at the limit exactly (n = 2 records 400 events) it draws; 0 lifts it */
  ck_assert_int_eq(run(NULL, NULL, "gantt " RR " --n 2 --max-events 400"), 0);
  ck_assert_int_eq(run(NULL, NULL, "gantt " RR " --n 2 --max-events 399"), 2);
  ck_assert_int_eq(run(NULL, NULL, "trace " RR " --n 2 --max-events 0 -o '%s'", at("t.json")), 0);
  ck_assert(tu_exists(at("t.json")));
  ck_assert_int_eq(run(NULL, &err, "trace " RR " --n 2 --max-events -1"), 2);
  ck_assert_ptr_nonnull(strstr(err, "--max-events: expected an integer in [0, "));
  free(err);
}
END_TEST

/* Issue 13 item 6: n = 0 (a row of zeros) and repeated n or worker counts
 * (duplicated rows) ran with exit 0; --n and --workers refuse them as the
 * scenario does. */
START_TEST(cli_run_refuses_zero_and_repeated_sweep_values)
{
  char *err = NULL;
  ck_assert_int_eq(run(NULL, &err, "run " RR " --n 0 -r 1 -q --no-plots -o '%s'", at("out")), 2);
  ck_assert_ptr_nonnull(strstr(err, "--n: expected a comma-separated list of integers in [1, "));
  free(err);
  ck_assert_int_eq(run(NULL, &err, "run " RR " --n 4,4,1 -r 1 -q --no-plots -o '%s'", at("out")), 2);
  ck_assert_ptr_nonnull(strstr(err, "--n: 4 appears twice in \"4,4,1\""));
  free(err);
  ck_assert_int_eq(run(NULL, &err, "run " RR " --workers 1,1 -r 1 -q --no-plots -o '%s'", at("out")), 2);
  ck_assert_ptr_nonnull(strstr(err, "--workers: 1 appears twice"));
  free(err);
  ck_assert_int_eq(run(NULL, &err, "gantt " RR " --n 0"), 2);
  free(err);
}
END_TEST

Suite *cli_suite(void)
{
  Suite *s = suite_create("cli");
  const TTest *const out[] = {cli_explain_numbers_of_one_line_are_distinct, cli_help_lists_exit_statuses, cli_run_help_lists_every_metric,
                              cli_help_command_prints_its_help, cli_every_script_prints_its_help, NULL};
  const TTest *const results[] = {cli_run_removes_stale_plots,
                                  cli_output_is_a_file_exits_2,
                                  cli_output_that_cannot_exist_exits_2,
                                  cli_calibrate_progress_only_on_a_terminal,
                                  cli_calibrate_elsewhere_keeps_file_paths,
                                  cli_arrivals_past_73_years_exit_2,
                                  cli_input_is_a_directory_exits_2, cli_common_mistakes_are_named, cli_run_notes_a_baseline_that_matches_nothing,
                                  cli_run_says_it_replaces_previous_results,
                                  cli_replacing_is_said_only_before_writing,
                                  cli_results_folder_holds_one_commands_files,
                                  cli_output_folder_is_new_or_a_results_folder,
                                  cli_misspelt_command_and_version_help, cli_run_ci_target_header_says_replications_run,
                                  cli_run_ci_target_header_says_which_rows_missed,
                                  cli_run_columns_pick_the_table,
                                  cli_stdout_write_failure_exits_3,
                                  NULL};
  const TTest *const limits[] = {cli_viz_horizon_draws_a_window, cli_gantt_width_bounds_the_longest_line, cli_viz_axis_picks_the_drawn_value, cli_viz_refuse_points_past_max_events, cli_run_refuses_zero_and_repeated_sweep_values,
                                 NULL};
  tu_tcase(s, "output", out, NULL, NULL, 300);
  tu_tcase(s, "results", results, make_tmp, remove_tmp, 300);
  tu_tcase(s, "limits", limits, make_tmp, remove_tmp, 300);
  return s;
}
