/* Hard faults (issue 21): full disks, memory and standard output, and
 * results folders (leftovers of killed runs, runs that wait for a folder
 * another holds, concurrent runs into one folder). */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/jsonfile.h"

#include "hardutil.h"
#include "model_run.h"
#include "testutil.h"

/* ---- faults: full disks, memory, standard output ---- */

/* Run `tssim ARGS` from the source root in a shell that first runs prefix
 * (limits: "ulimit -f 64"), its standard output into stdout_path (a
 * device); stderr into *err. Returns the exit status. */
static int tssim_to(const char *prefix, const char *args, const char *stdout_path, char **err)
{
  char cmd[4 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "cd '%s' && %s; %s '%s' %s >%s 2>'%s'", tu_source_root(), prefix, tu_tssim_wrapper(),
           getenv("TSSIM_BINARY"), args, stdout_path, at("err"));
  int status = system(cmd);
  ck_assert_msg(WIFEXITED(status), "did not exit: %s", cmd);
  *err = tu_read_file(at("err"), NULL);
  return WEXITSTATUS(status);
}

/* tssim_to with standard output dropped. */
static int tssim_under(const char *prefix, const char *args, char **err)
{
  return tssim_to(prefix, args, "/dev/null", err);
}

/* Into folder out (under limits prefix): a small run that fits, then one
 * whose samples do not (n = 1000, 270 KB a replication) on jobs threads:
 * exit status 3, one line naming samples.csv and why, and the small run's
 * files left as they were, without temporaries. */
static void full_disk(const char *prefix, const char *out, const char *why, int jobs)
{
  char args[2 * PATH_MAX], *err, path[PATH_MAX + 32], want[3 * PATH_MAX];
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 2 -r 1 -q --no-plots -o '%s'", out);
  ck_assert_int_eq(tssim_under(prefix, args, &err), 0);
  free(err);
  snprintf(path, sizeof path, "%s/summary.csv", out);
  char *before = tu_read_file(path, NULL);
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 1000 -r 2 -j %d -q --no-plots -o '%s'", jobs, out);
  ck_assert_int_eq(tssim_under(prefix, args, &err), 3);
  snprintf(want, sizeof want, "tssim: %s/samples.csv: cannot write: %s (n=1000 workers=1 replication ", out, why);
  const char *said = past_replacing(err); /* the small run is there */
  ck_assert_msg(strstr(said, want) == said && strstr(said, "left as it was\n") && strchr(said, '\n')[1] == '\0',
                "%s", err);
  free(err);
  char *after = tu_read_file(path, NULL);
  ck_assert_str_eq(before, after);
  ck_assert_int_eq(tu_leftovers(out), 0);
  free(before);
  free(after);
}

/* A full disk while the samples stream out was "cannot write the samples",
 * exit 1, no path. On a 64 KB tmpfs when this test may mount one (root),
 * and always with a file-size limit (EFBIG: the same failed write, as any
 * user can make it). */
START_TEST(hard_full_disk_is_an_output_failure)
{
  char mnt[PATH_MAX + 64], cmd[2 * PATH_MAX + 64], out[PATH_MAX + 128];
  snprintf(mnt, sizeof mnt, "%s", at("mnt"));
  ck_assert_int_eq(mkdir(mnt, 0777), 0);
  snprintf(cmd, sizeof cmd, "mount -t tmpfs -o size=64k tmpfs '%s' 2>/dev/null", mnt);
  if (system(cmd) == 0) {
    snprintf(out, sizeof out, "%s/out", mnt);
    full_disk(":", out, "No space left on device", 1);
    snprintf(cmd, sizeof cmd, "umount '%s'", mnt);
    ck_assert_int_eq(system(cmd), 0);
  }
  for (int jobs = 1; jobs <= 2; jobs++) {
    snprintf(out, sizeof out, "%s/limited-%d", tmp, jobs);
    full_disk("trap '' XFSZ; ulimit -f 64", out, "File too large", jobs);
  }
}
END_TEST

/* A calibrated model that cannot be written whole (a file size limit below
 * its 24 KB): exit 3, one line naming it, no temporary left. (Its path is
 * checked before the fit: a folder, or a file in its path, is exit 2 then,
 * fit_error_output_checked_before_the_fit.) The folders of its path that
 * calibrate made (made/sub) go with the failed write; the one that was
 * there (the test's) stays: they were left, empty. */
START_TEST(hard_calibrate_write_failure_exits_3)
{
  char args[2 * PATH_MAX], *err, want[PATH_MAX + 64];
  snprintf(args, sizeof args, "calibrate models/zero-cache.json models/baselines/zero-cache-wave.json --starts 0 "
           "--max-iter 1 -r 1 -q -o '%s/made/sub/fitted.json'", tmp);
  ck_assert_int_eq(tssim_under("trap '' XFSZ; ulimit -f 8", args, &err), 3);
  snprintf(want, sizeof want, "tssim: %s/made/sub/fitted.json: cannot write: ", tmp);
  ck_assert_msg(strstr(err, want) == err && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
  free(err);
  ck_assert_int_eq(tu_leftovers(tmp), 0);
  snprintf(want, sizeof want, "%s/made", tmp);
  ck_assert_msg(access(want, F_OK) != 0, "%s was left", want);
  ck_assert_int_eq(access(tmp, F_OK), 0);
}
END_TEST

/* The same for tssim trace's two files (one batch): a failed write (here
 * the first, the trace's) removes the folders made for either, and no
 * temporary stays; the test's folder stays. */
START_TEST(hard_trace_write_failure_removes_the_folders_it_made)
{
  char args[3 * PATH_MAX], *err, want[PATH_MAX + 64];
  snprintf(args, sizeof args, "trace scenarios/rr-wave.json --n 2 -o '%s/made/sub/t.json' --html '%s/page/t.html'",
           tmp, tmp);
  ck_assert_int_eq(tssim_under("trap '' XFSZ; ulimit -f 8", args, &err), 3);
  snprintf(want, sizeof want, "tssim: %s/made/sub/t.json: cannot write: ", tmp);
  ck_assert_msg(strstr(err, want) == err && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
  free(err);
  ck_assert_int_eq(tu_leftovers(tmp), 0);
  static const char *const made[] = {"made", "page"};
  for (int i = 0; i < 2; i++) {
    snprintf(want, sizeof want, "%s/%s", tmp, made[i]);
    ck_assert_msg(access(want, F_OK) != 0, "%s was left", want);
  }
  ck_assert_int_eq(access(tmp, F_OK), 0);
}
END_TEST

/* A failed write of standard output is exit 3 for version and help too. */
START_TEST(hard_version_to_a_full_device_fails)
{
  struct stat st;
  if (stat("/dev/full", &st) != 0)
    return;
  static const char *const args[] = {"version", "--version", "help", NULL};
  for (int i = 0; args[i]; i++) {
    char *err;
    ck_assert_int_eq(tssim_to(":", args[i], "/dev/full", &err), 3);
    ck_assert_str_eq(err, "tssim: cannot write to standard output: No space left on device\n");
    free(err);
  }
}
END_TEST

/* A model that cannot be parsed for want of memory (an address-space limit)
 * is said to be so, exit 1: it was "malformed JSON at line 1", exit 2. Not
 * under a sanitizer or valgrind, which need address space of their own. */
START_TEST(hard_out_of_memory_is_not_malformed_json)
{
#if defined(__SANITIZE_ADDRESS__)
  return;
#endif
  if (tu_tssim_wrapper()[0])
    return;
  enum { ITEMS = 4000000 }; /* 8 MB of text, some 300 MB as a tree */
  char *text = malloc(2 * ITEMS + 256);
  ck_assert_ptr_nonnull(text);
  size_t len = (size_t)sprintf(text, "{\"classes\": [{\"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}], "
                                     "\"notes\": [1");
  for (int i = 1; i < ITEMS; i++) {
    text[len++] = ',';
    text[len++] = '1';
  }
  strcpy(text + len, "]}\n");
  tu_write_file(at("m.json"), text);
  cJSON *root;
  ts_err e;
  ck_assert_int_eq(ts_json_parse(text, len + 3, "m.json", &root, &e), 0); /* valid, given the memory */
  cJSON_Delete(root);
  free(text);
  tu_write_file(at("s.json"), "{\"name\": \"big\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}\n");
  char args[3 * PATH_MAX], s_json[PATH_MAX + 64], *err;
  snprintf(s_json, sizeof s_json, "%s", at("s.json"));
  snprintf(args, sizeof args, "run '%s' -q --no-plots -o '%s'", s_json, at("out"));
  ck_assert_int_eq(tssim_under("ulimit -v 200000", args, &err), 1);
  ck_assert_msg(strstr(err, "/m.json: out of memory parsing the JSON text (8000077 bytes; the text was not at fault)\n"),
                "%s", err);
  free(err);
}
END_TEST

/* Memory that runs out while actors make their extensions (their locks'
 * holds, loops, variables, spans: model/actor.c ts__actor_ext), forced by
 * the pool's block limit: the run ends "out of memory", never a crash. It
 * was SIGSEGV: the sink handed out had no arrays, and a lock step wrote its
 * hold to held[decl] (internal.h ts__lock_take_room), a repeat its loop to
 * loops[slot] (op_repeat.c). 200 actors on 2 workers, so that memory runs out
 * at each of their first steps, whichever comes first. */
START_TEST(hard_out_of_memory_in_a_step_is_said)
{
  static const char *const models[] = {
      /* the tutorial's first model: a lock of each actor's own */
      MODEL_WITH("\"locks\": [{\"name\": \"group\", \"scope\": \"actor\"}], ",
                 CLASS("session", 200, LOCK("group") ", " SLICED(12, 12) ", " UNLOCK("group"))),
      /* a shared mutex */
      MODEL_WITH("\"locks\": [{\"name\": \"m\", \"kind\": \"mutex\", \"scope\": \"shared\"}], ",
                 CLASS("t", 200, LOCK("m") ", " CPU(1, 1) ", " UNLOCK("m"))),
      /* a repeat with a span, and a variable set in it */
      MODEL("{\"name\": \"r\", \"count\": 200, \"vars\": {\"v\": 0}, \"program\": [{\"op\": \"repeat\", \"count\": 3, "
            "\"span\": \"it\", \"steps\": [{\"op\": \"set\", \"var\": \"v\", \"value\": \"v + 1\"}, " CPU(1, 1) "]}]}"),
  };
  for (size_t k = 0; k < LEN(models); k++) {
    for (size_t blocks = 1; blocks <= 3; blocks++) {
      run r;
      tu_model(models[k], &r.m);
      ts_world_spec sp = tu_world_spec(0, 2, 1);
      ck_assert_int_eq(ts_world_init(&r.w, &r.m, &sp, NULL), 0);
      r.w.rng_pool.max_blocks = blocks; /* the first block (1 KB) holds a few extensions, the next 16 KB */
      int status = ts_world_run(&r.w);
      ck_assert_msg(status == TS_WORLD_NOMEM, "model %zu, %zu block(s): %s", k, blocks,
                    ts_world_strerror(&r.w, status));
      ck_assert_str_eq(ts_world_strerror(&r.w, status), "out of memory");
      run_finish(&r);
    }
  }
}
END_TEST

/* ---- results folders: leftovers and concurrent runs ---- */

/* Start `tssim ARGS` from the source root (its pid is the process's, under
 * the test wrapper too), stderr into errfile; returns the pid. */
static pid_t spawn(const char *args, const char *errfile)
{
  char cmd[4 * PATH_MAX];
  snprintf(cmd, sizeof cmd, "cd '%s' && exec %s '%s' %s >/dev/null 2>'%s'", tu_source_root(), tu_tssim_wrapper(),
           getenv("TSSIM_BINARY"), args, errfile);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Wait until path exists (a file a spawned run makes), at most limit_s seconds. */
static int appears(const char *path, const char *text, int limit_s)
{
  for (int i = 0; i < limit_s * 20; i++) {
    struct stat st;
    if (stat(path, &st) == 0) {
      if (!text)
        return 1;
      char *have = tu_read_file(path, NULL);
      int found = strstr(have, text) != NULL;
      free(have);
      if (found)
        return 1;
    }
    nanosleep(&(struct timespec){0, 50000000}, NULL);
  }
  return 0;
}

/* The exit status of spawned pid. */
static int reap(pid_t pid)
{
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status));
  return WEXITSTATUS(status);
}

/* A pid no process has (a child that has exited and was reaped). */
static long dead_pid(void)
{
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0)
    _exit(0);
  ck_assert_int_eq(reap(pid), 0);
  return (long)pid;
}

/* A run killed with SIGKILL left samples.csv.tmp.PID (megabytes each time);
 * the next run into the folder removes it, and what another dead run's
 * commit had moved aside comes back, while a live process's temporary stays. */
START_TEST(hard_leftovers_of_killed_runs_are_cleaned)
{
  char args[2 * PATH_MAX], path[PATH_MAX + 128], *err;
  const char *out = at("out");
  char outdir[PATH_MAX + 64];
  snprintf(outdir, sizeof outdir, "%s", out);
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 1000,2000,4000 -r 50 -j 1 -q --no-plots -o '%s'", outdir);
  pid_t pid = spawn(args, at("err"));
  snprintf(path, sizeof path, "%s/samples.csv.tmp.%ld", outdir, (long)pid);
  ck_assert_msg(appears(path, NULL, 120), "no %s", path);
  kill(pid, SIGKILL);
  int status;
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFSIGNALED(status));
  ck_assert_int_eq(access(path, F_OK), 0); /* left behind */
  /* what other dead runs left, and a live process's temporary */
  long dead = dead_pid();
  char old[PATH_MAX + 128], live[PATH_MAX + 128], log[PATH_MAX + 128];
  snprintf(old, sizeof old, "%s/summary.csv.old.%ld", outdir, dead);
  snprintf(log, sizeof log, "%s/.wave.log.%ld", outdir, dead);
  snprintf(live, sizeof live, "%s/model.json.tmp.%ld", outdir, (long)getpid());
  tu_write_file(old, "the previous summary\n");
  tu_write_file(log, "gnuplot said\n");
  tu_write_file(live, "being written\n");
  /* a run that fails at its first replication still cleans (it holds the folder) */
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 2 -r 1 --no-plots -o '%s' --set 'classes[0].count=n / 3'",
           outdir);
  ck_assert_int_eq(tssim_under(":", args, &err), 2);
  char want[PATH_MAX + 200];
  snprintf(want, sizeof want, "tssim: %s: removed 3 temporary file(s) a run that did not finish left there (", outdir);
  ck_assert_msg(strstr(err, want) == err, "%s", err);
  free(err);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_ne(access(log, F_OK), 0);
  ck_assert_int_ne(access(old, F_OK), 0);
  snprintf(path, sizeof path, "%s/summary.csv", outdir);
  char *back = tu_read_file(path, NULL);
  ck_assert_str_eq(back, "the previous summary\n");
  free(back);
  ck_assert_int_eq(access(live, F_OK), 0);
  ck_assert_int_eq(remove(live), 0);
  ck_assert_int_eq(tu_leftovers(outdir), 0);
}
END_TEST

/* A run into a folder another run holds waits for it, saying so, and
 * writes nothing until the folder is released. */
START_TEST(hard_second_run_waits_for_the_folder)
{
  char outdir[PATH_MAX + 64], args[2 * PATH_MAX], path[PATH_MAX + 128], errfile[PATH_MAX + 64];
  snprintf(outdir, sizeof outdir, "%s", at("out"));
  snprintf(errfile, sizeof errfile, "%s", at("err"));
  ck_assert_int_eq(mkdir(outdir, 0777), 0);
  int fd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC); /* not held by the run it starts */
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(flock(fd, LOCK_EX), 0); /* as a run holds it */
  snprintf(args, sizeof args, "run scenarios/rr-wave.json --n 2 -r 1 --no-plots -o '%s'", outdir);
  pid_t pid = spawn(args, errfile);
  char want[PATH_MAX + 256];
  snprintf(want, sizeof want, "tssim: %s: another tssim run is writing into this folder; waiting for it to finish\n",
           outdir);
  ck_assert_msg(appears(errfile, want, 120), "no waiting line");
  ck_assert_int_eq(tu_leftovers(outdir), 0); /* nothing written while it waits */
  snprintf(path, sizeof path, "%s/summary.csv", outdir);
  ck_assert_int_ne(access(path, F_OK), 0);
  ck_assert_int_eq(close(fd), 0);
  ck_assert_int_eq(reap(pid), 0);
  ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* `tssim sensitivity` and `tssim optimize` hold their results folder as a
 * run does: one into a folder another command holds waits, saying so, and
 * writes nothing until it is released; then it cleans what a killed run left
 * there (a dead pid's temporary) and writes its files. */
START_TEST(hard_sensitivity_and_optimize_wait_for_the_folder)
{
  static const char *const cmds[][2] = {
    {"sensitivity scenarios/rr-wave.json --n 2 -r 1 --param params.c_ms --metric wave_ms --scales 1 --no-plots",
     "sensitivity.csv"},
    {"optimize scenarios/rr-wave.json --n 2 -r 1 --minimize wave_ms --field params.c_ms=1:10 --no-plots", "best.json"},
  };
  for (int c = 0; c < 2; c++) {
    char outdir[PATH_MAX + 80], args[2 * PATH_MAX], path[PATH_MAX + 128], dead[PATH_MAX + 128], errfile[PATH_MAX + 80];
    snprintf(outdir, sizeof outdir, "%s%d", at("out"), c);
    snprintf(errfile, sizeof errfile, "%s%d", at("err"), c);
    ck_assert_int_eq(mkdir(outdir, 0777), 0);
    snprintf(dead, sizeof dead, "%s/%s.tmp.%ld", outdir, cmds[c][1], dead_pid());
    tu_write_file(dead, "half a file\n");
    int fd = open(outdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0); /* as a run holds it */
    snprintf(args, sizeof args, "%s -o '%s'", cmds[c][0], outdir);
    pid_t pid = spawn(args, errfile);
    char want[PATH_MAX + 256];
    snprintf(want, sizeof want, "tssim: %s: another tssim run is writing into this folder; waiting for it to finish\n",
             outdir);
    ck_assert_msg(appears(errfile, want, 120), "%s: no waiting line", cmds[c][1]);
    snprintf(path, sizeof path, "%s/%s", outdir, cmds[c][1]);
    ck_assert_int_ne(access(path, F_OK), 0); /* nothing written while it waits */
    ck_assert_int_eq(tu_leftovers(outdir), 1);
    ck_assert_int_eq(close(fd), 0);
    ck_assert_int_eq(reap(pid), 0);
    ck_assert_int_eq(access(path, F_OK), 0);
    ck_assert_int_ne(access(dead, F_OK), 0);
    ck_assert_int_eq(tu_leftovers(outdir), 0);
    snprintf(want, sizeof want, "tssim: %s: removed 1 temporary file(s) a run that did not finish left there (", outdir);
    ck_assert_msg(appears(errfile, want, 1), "%s: the dead run's temporary was not said to be removed", cmds[c][1]);
  }
}
END_TEST

/* Three runs at once into one folder, each with its own cost: they take
 * turns, all succeed, and the folder is one run's whole (its summary's
 * cpu_ms is its samples' cpu_ms), round after round. It was mixed in about
 * 1 of 80 rounds (summary.csv from one run, samples.csv from another). */
START_TEST(hard_concurrent_runs_leave_one_whole_folder)
{
  char outdir[PATH_MAX + 64], cmd[8 * PATH_MAX], status_file[PATH_MAX + 64];
  snprintf(outdir, sizeof outdir, "%s", at("out"));
  for (int round = 0; round < 4; round++) {
    size_t len = (size_t)snprintf(cmd, sizeof cmd, "cd '%s' && (", tu_source_root());
    for (int k = 1; k <= 3; k++)
      len += (size_t)snprintf(cmd + len, sizeof cmd - len,
                              "(%s '%s' run scenarios/rr-wave.json --n 300 -r 2 -j 1 -q --no-plots -o '%s' "
                              "--set params.c_ms=%d; echo $? >'%s/status%d') & ",
                              tu_tssim_wrapper(), getenv("TSSIM_BINARY"), outdir, 100 * k, tmp, k);
    snprintf(cmd + len, sizeof cmd - len, "wait) >/dev/null 2>&1");
    ck_assert_int_eq(system(cmd), 0);
    for (int k = 1; k <= 3; k++) {
      snprintf(status_file, sizeof status_file, "%s/status%d", tmp, k);
      char *st = tu_read_file(status_file, NULL);
      ck_assert_str_eq(st, "0\n");
      free(st);
    }
    char path[PATH_MAX + 128];
    snprintf(path, sizeof path, "%s/summary.csv", outdir);
    tu_table sum, smp;
    tu_table_read(&sum, path);
    snprintf(path, sizeof path, "%s/samples.csv", outdir);
    tu_table_read(&smp, path);
    double cpu = tu_table_num(&sum, 0, "cpu_ms");
    ck_assert(cpu == 100 || cpu == 200 || cpu == 300);
    for (int r = 0; r < sum.nrows; r++)
      ck_assert_double_eq(tu_table_num(&sum, r, "cpu_ms"), cpu);
    ck_assert_int_eq(smp.nrows, 2 * 300 * 2); /* two worker counts, 300 actors, 2 replications */
    for (int r = 0; r < smp.nrows; r++)
      ck_assert_double_eq(tu_table_num(&smp, r, "cpu_ms"), cpu);
    tu_table_free(&sum);
    tu_table_free(&smp);
    ck_assert_int_eq(tu_leftovers(outdir), 0);
  }
}
END_TEST

/* Entries in folder dir (. and .. aside). */
static int entries(const char *dir)
{
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));)
    n += strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0;
  closedir(d);
  return n;
}

/* The test runner's folder (tests/main.c: $TMPDIR/tssim-suite-XXXXXX) of a
 * runner killed by SIGKILL mid-suite, as meson test kills a test's process
 * group half a second after its SIGTERM (a timeout, a cancelled meson
 * test): /tmp held such folders of earlier sessions (with tssim-run-*,
 * tssim-install-* ... inside); a runner's janitor now removes it once the
 * suite's processes are gone. The runner here is test_speed_stats (seconds
 * long), a process group of its own as under meson test; killed after its
 * folder appears (again if it had finished first). */
START_TEST(hard_killed_test_runner_leaves_no_folder)
{
  const char *root = getenv("TSSIM_BUILD_ROOT");
  ck_assert_msg(root != NULL, "TSSIM_BUILD_ROOT is not set (tests/meson.build)");
  char runner[PATH_MAX + 64], dir[PATH_MAX + 64];
  snprintf(runner, sizeof runner, "%s/tests/test_speed_stats", root);
  snprintf(dir, sizeof dir, "%s", at("suites"));
  ck_assert_int_eq(mkdir(dir, 0755), 0);
  int killed = 0;
  for (int attempt = 0; attempt < 5 && !killed; attempt++) {
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
      int null = open("/dev/null", O_WRONLY);
      if (setpgid(0, 0) != 0 || setenv("TMPDIR", dir, 1) != 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        _exit(126);
      execl(runner, runner, (char *)NULL);
      _exit(127);
    }
    int status, done = 0;
    while (entries(dir) == 0 && !(done = waitpid(pid, &status, WNOHANG) == pid))
      nanosleep(&(struct timespec){0, 1000000}, NULL);
    if (!done) {
      kill(pid, SIGKILL);
      ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    }
    ck_assert_msg(WIFSIGNALED(status) || (WIFEXITED(status) && WEXITSTATUS(status) == 0), "%s: status %d", runner,
                  status);
    killed = WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
  }
  ck_assert_msg(killed, "%s finished before it could be killed, 5 times", runner);
  for (int i = 0; i < 1200 && entries(dir) > 0; i++) /* (its test process, if forked, ends its test first) */
    nanosleep(&(struct timespec){0, 100000000}, NULL);
  ck_assert_msg(entries(dir) == 0, "a killed runner left its folder in %s", dir);
}
END_TEST

Suite *hard_faults_suite(void)
{
  Suite *s = suite_create("hard_faults");
  const TTest *const faults[] = {hard_full_disk_is_an_output_failure, hard_calibrate_write_failure_exits_3,
                                 hard_trace_write_failure_removes_the_folders_it_made,
                                 hard_version_to_a_full_device_fails,
                                 hard_out_of_memory_is_not_malformed_json, hard_out_of_memory_in_a_step_is_said,
                                 NULL};
  const TTest *const folders[] = {hard_leftovers_of_killed_runs_are_cleaned, hard_second_run_waits_for_the_folder,
                                  hard_sensitivity_and_optimize_wait_for_the_folder,
                                  hard_concurrent_runs_leave_one_whole_folder, hard_killed_test_runner_leaves_no_folder,
                                  NULL};
  tu_tcase(s, "faults", faults, make_tmp, remove_tmp, 300);
  tu_tcase(s, "folders", folders, make_tmp, remove_tmp, 600);
  return s;
}
