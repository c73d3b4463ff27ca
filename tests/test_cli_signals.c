/* The command line interrupted (issue 13, "Hard inputs and a new user's
 * bug list"; split from test_cli.c): SIGINT and SIGTERM during a run,
 * calibrate or the plots keep the previous results whole and remove the
 * temporaries (a second signal too), exit 130/143 with one line, and a
 * signal that comes once the results are written is said alike by every
 * command. Every test runs the built binary (TSSIM_BINARY) from the source
 * root. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "clifixture.h"
#include "testutil.h"

/* Start `tssim args...` (NULL-terminated) from the source root with stdout
 * and stderr into tmp/out and tmp/err, with library preload LD_PRELOADed
 * when not NULL (then not under $TSSIM_TEST_WRAPPER: the preload is for
 * tssim, not for valgrind); returns its pid. */
static pid_t spawn_with(const char *const *args, const char *preload)
{
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    int o = open(at("out"), O_WRONLY | O_CREAT | O_TRUNC, 0644), e = open(at("err"), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (o < 0 || e < 0 || chdir(tu_source_root()) != 0 || dup2(o, 1) < 0 || dup2(e, 2) < 0)
      _exit(127);
    char *argv[48], wrap[512], asan[1024];
    int n = 0;
    if (preload) { /* an ASan build's runtime then does not come first: say it need not */
      snprintf(asan, sizeof asan, "%s%sverify_asan_link_order=0", getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "",
               getenv("ASAN_OPTIONS") ? ":" : "");
      if (setenv("LD_PRELOAD", preload, 1) || setenv("ASAN_OPTIONS", asan, 1))
        _exit(127);
    }
    snprintf(wrap, sizeof wrap, "%s", preload ? "" : tu_tssim_wrapper());
    for (char *save = NULL, *w = strtok_r(wrap, " ", &save); w && n < 16; w = strtok_r(NULL, " ", &save))
      argv[n++] = w;
    argv[n++] = getenv("TSSIM_BINARY");
    for (; *args && n < 47; args++)
      argv[n++] = (char *)*args;
    argv[n] = NULL;
    execvp(argv[0], argv);
    _exit(127);
  }
  return pid;
}

static pid_t spawn(const char *const *args)
{
  return spawn_with(args, NULL);
}

/* Wait until file path holds `text` (the child printed it), or the child
 * exited (then fail). Polls; no assumption on how long it takes. */
static void wait_for(pid_t pid, const char *path, const char *text)
{
  for (;;) {
    char *got = tu_exists(path) ? tu_read_file(path, NULL) : NULL;
    int found = got && strstr(got, text);
    free(got);
    if (found)
      return;
    int status;
    ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0, "tssim exited before printing \"%s\"", text);
    struct timespec ts = {0, 10 * 1000 * 1000};
    nanosleep(&ts, NULL);
  }
}

/* Files of the results folder, read back. */
typedef struct snapshot {
  char *text[3];
  size_t len[3];
} snapshot;

static const char *const result_files[] = {"res/summary.csv", "res/samples.csv", "res/summary.json"};

static void snap(snapshot *s)
{
  for (int i = 0; i < 3; i++)
    s->text[i] = tu_read_file(at(result_files[i]), &s->len[i]);
}

static void expect_same(const snapshot *s)
{
  for (int i = 0; i < 3; i++) {
    size_t len;
    char *now = tu_read_file(at(result_files[i]), &len);
    ck_assert_msg(len == s->len[i] && memcmp(now, s->text[i], len) == 0, "%s changed", result_files[i]);
    free(now);
    free(s->text[i]);
  }
}

/* SIGINT or SIGTERM in the middle of a long sweep (rr-wave, one point of
 * n = 20000 with 100000 replications: it never ends by itself) into a folder holding an earlier result: exit 128 +
 * the signal, the earlier files byte-identical, no temporaries, one line. */
static void interrupt_run(int sig, int want_status)
{
  ck_assert_int_eq(run(NULL, NULL, "run " RR " --n 1,2 -r 1 -q -o '%s'", at("res")), 0);
  snapshot before;
  snap(&before);
  int plots = tu_plot_files(at("res"));
  const char *args[] = {"run", RR, "--n", "20000", "--workers", "1", "-r", "100000", "-o", at("res"), NULL};
  pid_t pid = spawn(args);
  char started[PATH_MAX + 64]; /* samples.csv's temporary: made once the signal is caught */
  snprintf(started, sizeof started, "%s/samples.csv.tmp.%ld", at("res"), (long)pid);
  wait_for(pid, started, "");
  ck_assert_int_eq(kill(pid, sig), 0);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFEXITED(status), "tssim did not exit: signal %d", WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  ck_assert_int_eq(WEXITSTATUS(status), want_status);
  expect_same(&before);
  ck_assert_int_eq(tu_plot_files(at("res")), plots);
  ck_assert_int_eq(tu_leftovers(at("res")), 0);
  char *err = tu_read_file(at("err"), NULL), want[PATH_MAX + 64];
  const char *line = err; /* (no "replacing": nothing was) */
  snprintf(want, sizeof want, " of 1 sweep points done; %s/ left as it was\n", at("res"));
  ck_assert_msg(strncmp(line, "tssim: interrupted: 0 of 1", 26) == 0 && strstr(line, want) != NULL &&
                  strchr(line, '\n')[1] == '\0',
                "stderr: %s", err);
  free(err);
}

START_TEST(cli_run_sigint_keeps_previous_results)
{
  interrupt_run(SIGINT, 130);
}
END_TEST

START_TEST(cli_run_sigterm_keeps_previous_results)
{
  interrupt_run(SIGTERM, 143);
}
END_TEST

/* The walkthrough of run 12: `timeout -s INT 1 tssim run ...` signals tssim
 * twice (timeout signals it, then its process group); the second signal
 * ended the process at once and samples.csv.tmp.PID (3-32 MB) stayed beside
 * the results. A second signal still ends the process at once, by the
 * signal, but first removes the temporaries of the batch being written.
 * In a child: the two signals raised where a temporary exists. */
START_TEST(cli_second_signal_removes_temporaries)
{
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    ts_atomic a;
    ts_err e;
    ts_atomic_init(&a);
    ts_cli_interrupt_catch();
    ts_cli_interrupt_files(&a);
    FILE *f = ts_atomic_open(&a, tmp, "samples.csv", &e);
    if (!f || fputs("n,workers\n", f) < 0 || fflush(f) != 0)
      _exit(10);
    raise(SIGINT);
    if (ts_cli_interrupted() != SIGINT) /* the first one is only recorded */
      _exit(11);
    raise(SIGINT);
    _exit(12); /* not reached */
  }
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "status %d", status);
  ck_assert_int_eq(tu_leftovers(tmp), 0);
  ck_assert(!tu_exists(at("samples.csv")));
}
END_TEST

/* The same for a calibration writing over an existing model file. */
START_TEST(cli_calibrate_sigterm_keeps_previous_output)
{
  tu_write_file(at("fitted.json"), "{\"an\": \"earlier calibration\"}\n");
  const char *args[] = {"calibrate", "models/zero-cache.json", "models/baselines/zero-cache-wave.json",
                        "--starts", "100000", "-o", at("fitted.json"), NULL};
  pid_t pid = spawn(args);
  wait_for(pid, at("out"), "calibrate models/zero-cache.json to "); /* printed once the signal is caught */
  ck_assert_int_eq(kill(pid, SIGTERM), 0);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  ck_assert_int_eq(WEXITSTATUS(status), 143);
  char *text = tu_read_file(at("fitted.json"), NULL), *err = tu_read_file(at("err"), NULL), want[PATH_MAX + 64];
  ck_assert_str_eq(text, "{\"an\": \"earlier calibration\"}\n");
  snprintf(want, sizeof want, " evaluations done); %s left as it was\n", at("fitted.json"));
  ck_assert_msg(strstr(err, "tssim: interrupted: the fit was not finished (") && strstr(err, want), "%s", err);
  free(text);
  free(err);
  ck_assert_int_eq(tu_leftovers(tmp), 0);
}
END_TEST

/* Every command that writes files through a batch gives it to the signal
 * handler (ts_cli_interrupt_files), so that a second signal removes its
 * temporaries: signal_shim.c raises SIGINT twice at the first rename of a
 * temporary, while it is there, and each command dies by SIGINT leaving no
 * NAME.tmp.PID. (calibrate's model file and trace's files were written
 * through batches of their own that the handler did not know: a second
 * signal then left fitted.json.tmp.PID, trace.json.tmp.PID.) */
START_TEST(cli_second_signal_removes_every_commands_temporaries)
{
  const char *shim = getenv("TSSIM_SIGNAL_SHIM");
  ck_assert_msg(shim != NULL, "TSSIM_SIGNAL_SHIM is not set (tests/meson.build)");
  for (int k = 1; k <= 2; k++)
    ck_assert_int_eq(tu_tssimf(NULL, NULL, "run tests/data/exp.json --shard %d/2 -q -o '%s/p%d'", k, tmp, k), 0);
  char o[8][PATH_MAX + 64];
  static const char *const names[] = {"run", "shard", "merged", "sens", "opt", "fitted.json", "trace.json", "t.html"};
  for (int i = 0; i < 8; i++)
    snprintf(o[i], sizeof o[i], "%s/%s", tmp, names[i]);
  char p1[PATH_MAX + 64], p2[PATH_MAX + 64];
  snprintf(p1, sizeof p1, "%s/p1", tmp);
  snprintf(p2, sizeof p2, "%s/p2", tmp);
  const char *const cmds[][20] = {
    {"run", "tests/data/exp.json", "-q", "--no-plots", "-o", o[0], NULL},
    {"run", "tests/data/exp.json", "--shard", "1/2", "-q", "-o", o[1], NULL},
    {"merge", p1, p2, "-q", "--no-plots", "-o", o[2], NULL},
    {"sensitivity", "tests/data/exp.json", "-q", "--no-plots", "-o", o[3], "--param", "classes[0].program[0].ms",
     "--scales", "1", "--metric", "wave_ms", NULL},
    {"optimize", "tests/data/exp.json", "-q", "--no-plots", "-o", o[4], "--minimize", "wave_ms", "--grid", "3",
     "--field", "classes[0].program[0].ms=0.5:1", NULL},
    {"calibrate", "models/zero-cache.json", "models/baselines/zero-cache-wave.json", "--starts", "0", "--max-iter", "1",
     "-r", "1", "-q", "-o", o[5], NULL},
    {"trace", "scenarios/rr-wave.json", "--n", "16", "--workers", "1", "-o", o[6], "--html", o[7], NULL}};
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
    pid_t pid = spawn_with(cmds[c], shim);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char *err = tu_read_file(at("err"), NULL), *left;
    ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT, "tssim %s: status %d (not killed by SIGINT at "
                  "its first commit?): %s", cmds[c][0], status, err);
    ck_assert_int_eq(tu_sh(&left, "find '%s' -name '*.tmp.*'", tmp), 0);
    ck_assert_msg(strcmp(left, "") == 0, "tssim %s left its temporaries at a second signal: %s", cmds[c][0], left);
    free(left);
    free(err);
  }
}
END_TEST

/* A signal that comes once the results are written (signal_shim.c with
 * TSSIM_SIGNAL_SHIM_ONCE: one SIGINT as the commit renames its first file,
 * the commit going on) is said alike by every command: exit 130 and one
 * line, the results written. sensitivity, optimize (--no-plots, or one
 * objective: no plot) and calibrate exited 0 saying nothing, where run said
 * "nothing was left to do" and exited 130; a run with plots names them not
 * drawn (the signal came before them). So do a shard's run (--shard 1/2
 * exited 0 saying nothing) and trace (which said "the trace was written
 * whole"), naming its file. */
START_TEST(cli_signal_after_the_results_is_said_alike)
{
  const char *shim = getenv("TSSIM_SIGNAL_SHIM");
  ck_assert_msg(shim != NULL, "TSSIM_SIGNAL_SHIM is not set (tests/meson.build)");
  char o[9][PATH_MAX + 64];
  static const char *const names[] = {"run", "plots", "sens", "sensplot", "opt", "opt1", "fitted.json", "shard",
                                      "t.json"};
  static const char *const written[] = {"summary.csv", "summary.csv", "curve.csv", "curve.csv", "tried.csv",
                                        "best.json", NULL, "partial.json", NULL};
  for (int i = 0; i < 9; i++)
    snprintf(o[i], sizeof o[i], "%s/%s", tmp, names[i]);
  const char *const cmds[][20] = {
    {"run", "tests/data/exp.json", "-q", "--no-plots", "-o", o[0], NULL},
    {"run", "tests/data/exp.json", "-q", "-o", o[1], NULL},
    {"sensitivity", "tests/data/exp.json", "-q", "--no-plots", "-o", o[2], "--param", "classes[0].program[0].ms",
     "--scales", "1", "--metric", "wave_ms", NULL},
    {"sensitivity", "tests/data/exp.json", "-q", "-o", o[3], "--param", "classes[0].program[0].ms", "--scales", "1",
     "--metric", "wave_ms", NULL},
    {"optimize", "tests/data/exp.json", "-q", "--no-plots", "-o", o[4], "--minimize", "wave_ms", "--grid", "3",
     "--field", "classes[0].program[0].ms=0.5:1", NULL},
    {"optimize", "tests/data/exp.json", "-q", "-o", o[5], "--minimize", "wave_ms", "--grid", "3",
     "--field", "classes[0].program[0].ms=0.5:1", NULL},
    {"calibrate", "models/zero-cache.json", "models/baselines/zero-cache-wave.json", "--starts", "0", "--max-iter", "1",
     "-r", "1", "-q", "-o", o[6], NULL},
    {"run", "tests/data/exp.json", "-q", "--shard", "1/2", "-o", o[7], NULL},
    {"trace", "tests/data/exp.json", "-o", o[8], NULL}};
  const char *const says[] = {
    "nothing was left to do",
    "the plots were not drawn (the previous run's plots were removed with its results; run again to draw them)",
    "nothing was left to do", "the plot sensitivity was not drawn", "nothing was left to do",
    "nothing was left to do", "nothing was left to do", "nothing was left to do", "nothing was left to do"};
  ck_assert_int_eq(setenv("TSSIM_SIGNAL_SHIM_ONCE", "1", 1), 0);
  for (size_t c = 0; c < sizeof cmds / sizeof *cmds; c++) {
    pid_t pid = spawn_with(cmds[c], shim);
    int status;
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    char *err = tu_read_file(at("err"), NULL), want[sizeof o + 256];
    snprintf(want, sizeof want, "tssim: interrupted: the results are written in %s; %s\n", o[c], says[c]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 130, "tssim %s: status %d: %s", cmds[c][0], status, err);
    ck_assert_msg(strcmp(err, want) == 0, "tssim %s said %s", cmds[c][0], err);
    char path[sizeof o + 256];
    snprintf(path, sizeof path, "%s%s%s", o[c], written[c] ? "/" : "", written[c] ? written[c] : "");
    ck_assert_msg(tu_exists(path), "%s is not written", path);
    free(err);
  }
  unsetenv("TSSIM_SIGNAL_SHIM_ONCE");
}
END_TEST

Suite *cli_signals_suite(void)
{
  Suite *s = suite_create("cli_signals");
  const TTest *const interrupts[] = {cli_run_sigint_keeps_previous_results, cli_run_sigterm_keeps_previous_results,
                                     cli_calibrate_sigterm_keeps_previous_output,
                                     cli_second_signal_removes_temporaries,
                                     cli_second_signal_removes_every_commands_temporaries,
                                     cli_signal_after_the_results_is_said_alike, NULL};
  tu_tcase(s, "interrupts", interrupts, make_tmp, remove_tmp, 300);
  return s;
}
