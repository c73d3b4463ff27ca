/* Parallel and sharded runs give the files of a plain run, byte for byte:
 * `tssim run --jobs 1` and `--jobs 2`; two shards (`--shard K/2`) merged by
 * `tssim merge`; the README's GNU parallel recipe on localhost (when
 * `parallel` is installed); `--samples none`. And merge refuses shards that
 * do not make a whole run. Each test runs the built binary into its own
 * temporary folder. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char dir[512];

static void dir_create(void)
{
  tu_mkdtemp(dir, sizeof dir, "parallel");
}

static void dir_remove(void)
{
  tu_rmtree(dir);
}

#define ZC "scenarios/zero-cache-wave.json"
#define RPC "scenarios/examples/rpc-server.json"   /* axes and a compare column */
#define RR "scenarios/rr-wave.json --n 16,1000 --workers 1,8"

static const char *const files[] = {"summary.csv", "samples.csv", "summary.json"};

/* `tssim ARGS` with %s for DIR; must exit 0. */
static void ok(const char *fmt, const char *a, const char *b)
{
  char cmd[4096], *text;
  snprintf(cmd, sizeof cmd, fmt, a, b);
  int status = tu_tssim(cmd, &text, NULL);
  ck_assert_msg(status == 0, "failed (exit %d): %s\n%s", status, cmd, text);
  free(text);
}

/* DIR/A/FILE and DIR/B/FILE are byte-identical for every file (and exist). */
/* Folders dir/a and dir/b hold byte-identical result files (samples.csv
 * too when samples). */
static void same_files(const char *a, const char *b, int samples)
{
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    if (!samples && strcmp(files[i], "samples.csv") == 0)
      continue;
    char pa[1024], pb[1024];
    size_t la, lb;
    snprintf(pa, sizeof pa, "%s/%s/%s", dir, a, files[i]);
    snprintf(pb, sizeof pb, "%s/%s/%s", dir, b, files[i]);
    char *x = tu_read_file(pa, &la), *y = tu_read_file(pb, &lb);
    ck_assert_msg(la == lb && memcmp(x, y, la) == 0, "%s differs between %s and %s", files[i], a, b);
    free(x);
    free(y);
  }
}

static void same(const char *a, const char *b)
{
  same_files(a, b, 1);
}

static void jobs_same(const char *scenario)
{
  char a[700], b[700];
  snprintf(a, sizeof a, "%s/j1", dir);
  snprintf(b, sizeof b, "%s/j2", dir);
  ok("run %s --jobs 1 -q --no-plots -o '%s'", scenario, a);
  ok("run %s --jobs 2 -q --no-plots -o '%s'", scenario, b);
  same("j1", "j2");
}

START_TEST(parallel_jobs_1_and_2_same_files_zero_cache)
{
  jobs_same(ZC);
}
END_TEST

START_TEST(parallel_jobs_1_and_2_same_files_axes)
{
  jobs_same(RPC);
}
END_TEST

START_TEST(parallel_jobs_same_files_ci_target)
{
  /* replications added in batches until the half-widths are tight: the batches of later points overlap */
  char a[700], b[700];
  snprintf(a, sizeof a, "%s/j1", dir);
  snprintf(b, sizeof b, "%s/j2", dir);
  ok("run tests/data/exp.json --ci-target 5%% --ci-max 12 -r 2 --jobs 1 -q --no-plots -o '%s'%s", a, "");
  ok("run tests/data/exp.json --ci-target 5%% --ci-max 12 -r 2 --jobs 3 -q --no-plots -o '%s'%s", b, "");
  same("j1", "j2");
}
END_TEST

/* Shards 1/2 and 2/2, merged (in either order), against the plain run. */
static void shards_same(const char *scenario)
{
  char whole[700], p1[700], p2[700], m[2200];
  snprintf(whole, sizeof whole, "%s/whole", dir);
  snprintf(p1, sizeof p1, "%s/p1", dir);
  snprintf(p2, sizeof p2, "%s/p2", dir);
  ok("run %s -q --no-plots -o '%s'", scenario, whole);
  ok("run %s --shard 1/2 -q -o '%s'", scenario, p1);
  ok("run %s --shard 2/2 -q -o '%s'", scenario, p2);
  snprintf(m, sizeof m, "merge '%s' '%s' -q --no-plots -o '%s/merged'", p2, p1, dir);
  ok("%s%s", m, "");
  same("whole", "merged");
}

START_TEST(parallel_two_shards_merged_zero_cache)
{
  shards_same(ZC);
}
END_TEST

START_TEST(parallel_two_shards_merged_axes)
{
  shards_same(RPC);
}
END_TEST

START_TEST(parallel_two_shards_merged_rr_wave)
{
  shards_same(RR);
}
END_TEST

/* The README's recipe: GNU parallel runs the shards, tssim merge joins them. */
START_TEST(parallel_gnu_parallel_recipe)
{
  if (system("command -v parallel >/dev/null 2>&1") != 0) {
    fprintf(stderr, "parallel_gnu_parallel_recipe: skipped (GNU parallel is not installed: scripts/deps installs it)\n");
    return;
  }
  char whole[700], cmd[4096];
  snprintf(whole, sizeof whole, "%s/whole", dir);
  ok("run " ZC " -q --no-plots -o '%s'%s", whole, "");
  const char *bin = getenv("TSSIM_BINARY");
  ck_assert_ptr_nonnull(bin);
  snprintf(cmd, sizeof cmd,
           "cd '%s' && parallel --will-cite %s '%s' run " ZC " --shard {}/4 --jobs 1 -q -o '%s/out/{}' ::: 1 2 3 4",
           tu_source_root(), tu_tssim_wrapper(), bin, dir);
  int status = system(cmd);
  ck_assert_msg(status == 0, "GNU parallel failed: %s", cmd);
  char m[4096];
  snprintf(m, sizeof m, "merge '%s/out/1' '%s/out/2' '%s/out/3' '%s/out/4' -q --no-plots -o '%s/merged'", dir, dir, dir,
           dir, dir);
  ok("%s%s", m, "");
  same("whole", "merged");
}
END_TEST

START_TEST(parallel_samples_none)
{
  char a[700], b[700], path[800];
  snprintf(a, sizeof a, "%s/all", dir);
  snprintf(b, sizeof b, "%s/none", dir);
  ok("run " ZC " -q --no-plots -o '%s'%s", a, "");
  ok("run " ZC " -q --no-plots -o '%s'%s", b, ""); /* then again without samples: the old samples.csv goes */
  ok("run " ZC " --samples none -q --no-plots -o '%s'%s", b, "");
  snprintf(path, sizeof path, "%s/samples.csv", b);
  ck_assert_int_ne(access(path, F_OK), 0);
  same_files("all", "none", 0);
}
END_TEST

/* Shards without samples (into folders that do not exist yet): the merged summary files are the plain run's. */
START_TEST(parallel_two_shards_no_samples)
{
  char whole[700], p1[700], p2[700], m[4096];
  snprintf(whole, sizeof whole, "%s/whole", dir);
  snprintf(p1, sizeof p1, "%s/new/p1", dir);
  snprintf(p2, sizeof p2, "%s/new/p2", dir);
  ok("run " ZC " --samples none -q --no-plots -o '%s'%s", whole, "");
  ok("run " ZC " --samples none --shard 1/2 -q -o '%s'%s", p1, "");
  ok("run " ZC " --samples none --shard 2/2 -q -o '%s'%s", p2, "");
  snprintf(m, sizeof m, "merge '%s' '%s' -q --no-plots -o '%s/merged'", p1, p2, dir);
  ok("%s%s", m, "");
  char path[800];
  snprintf(path, sizeof path, "%s/merged/samples.csv", dir);
  ck_assert_int_ne(access(path, F_OK), 0);
  same_files("whole", "merged", 0);
}
END_TEST

START_TEST(parallel_merge_refuses_incomplete_shards)
{
  char p1[700], cmd[4096], *out, *err;
  snprintf(p1, sizeof p1, "%s/p1", dir);
  ok("run " ZC " --shard 1/3 -q -o '%s'%s", p1, "");
  snprintf(cmd, sizeof cmd, "merge '%s' -q -o '%s/m'", p1, dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, "1 of 3 shards given; missing shard(s) 2, 3 of 3") != NULL, "stderr: %s", err);
  free(out);
  free(err);
  snprintf(cmd, sizeof cmd, "merge '%s' '%s' '%s' -q -o '%s/m'", p1, p1, p1, dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, "shard 1/3 again") != NULL, "stderr: %s", err);
  free(out);
  free(err);
  snprintf(cmd, sizeof cmd, "merge '%s/nothing-here' -q -o '%s/m'", dir, dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, "partial.json") != NULL, "stderr: %s", err);
  free(out);
  free(err);
  /* the results folder is a shard's (here by another path): its partial.json would be replaced */
  char p2[700], p3[700];
  snprintf(p2, sizeof p2, "%s/p2", dir);
  snprintf(p3, sizeof p3, "%s/p3", dir);
  ok("run " ZC " --shard 2/3 -q -o '%s'%s", p2, "");
  ok("run " ZC " --shard 3/3 -q -o '%s'%s", p3, "");
  snprintf(cmd, sizeof cmd, "merge '%s' '%s' '%s' -o '%s/../%s/p2'", p1, p2, p3, dir, strrchr(dir, '/') + 1);
  ck_assert_int_eq(tu_tssim(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, "is the shard folder") != NULL && strstr(err, "write them to another folder\n") != NULL,
                "stderr: %s", err);
  ck_assert_msg(*out == '\0', "a refused results folder, yet the table was printed: %s", out); /* (checked first) */
  free(out);
  free(err);
  char path[800];
  snprintf(path, sizeof path, "%s/partial.json", p2);
  ck_assert_int_eq(access(path, F_OK), 0);
}
END_TEST

/* The notes of a sharded run's points (ts_sweep_notes: replications that
 * ended with a backlog at the horizon, or before the measurement window
 * began; a sweep of n that the model reads nowhere) are said by the merge as
 * the unsharded run says them, with the same counts and the same first
 * replication in the sweep's order: shard 1/2 holds the points 0, 2, ... and
 * its first backlog (n=1 workers=1) comes before shard 2/2's (n=2 workers=1),
 * though the merge is given shard 2/2 first. So is the note that every
 * point's replications were identical (both models draw nothing random). */
START_TEST(parallel_merge_says_the_notes_of_the_unsharded_run)
{
  char path[700];
  snprintf(path, sizeof path, "%s/m.json", dir);
  tu_write_file(path, "{\"params\": {\"cost\": 2}, \"classes\": [{\"name\": \"job\", \"count\": \"forever\",\n"
                      " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 1},\n"
                      " \"program\": [{\"op\": \"cpu\", \"ms\": \"$cost\"}]}]}\n");
  snprintf(path, sizeof path, "%s/backlog.json", dir);
  tu_write_file(path, "{\"name\": \"b\", \"model\": \"m.json\", \"n\": [1, 2, 3], \"workers\": [1, 2], "
                      "\"replications\": 2, \"horizon_ms\": 1000}\n");
  snprintf(path, sizeof path, "%s/f.json", dir);
  tu_write_file(path, "{\"classes\": [{\"name\": \"job\", \"count\": \"n\",\n"
                      " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}\n");
  snprintf(path, sizeof path, "%s/late.json", dir);
  tu_write_file(path, "{\"name\": \"w\", \"model\": \"f.json\", \"n\": [1, 2, 3], \"workers\": [1], "
                      "\"replications\": 2, \"warmup_ms\": 1e9}\n");
  static const char *const scenarios[] = {"backlog.json", "late.json"};
  static const char *const notes[] = {"6 replication(s) ended with a backlog (the first: n=1 workers=1 replication 0: "
                                      "501 of 1001 arrivals not done at 1000 ms)",
                                      "6 replication(s) ended before their measurement window began (warmup_ms; the "
                                      "first: n=1 workers=1 replication 0 ended at 1 ms, its window starting at 1e+09 ms)"};
  for (int k = 0; k < 2; k++) {
    char *said[2], *out;
    ck_assert_int_eq(tu_tssimf(&out, &said[0], "run '%s/%s' -q --no-plots -o '%s/whole%d'", dir, scenarios[k], dir, k),
                     0);
    free(out);
    for (int j = 1; j <= 2; j++) {
      ck_assert_int_eq(tu_tssimf(&out, NULL, "run '%s/%s' --shard %d/2 -q -o '%s/p%d_%d'", dir, scenarios[k], j, dir, k,
                                 j), 0);
      free(out);
    }
    ck_assert_int_eq(tu_tssimf(&out, &said[1], "merge '%s/p%d_2' '%s/p%d_1' -q --no-plots -o '%s/merged%d'", dir, k,
                               dir, k, dir, k), 0);
    free(out);
    ck_assert_msg(strstr(said[0], notes[k]), "run: %s", said[0]);
    /* fixed costs, periodic arrivals: every replication identical, said by both (partial.json's "identical") */
    char same[200];
    snprintf(same, sizeof same, "tssim: note: every point's replications gave identical values (%d point(s) run with 2 "
             "or more replications; the first: n=1 workers=1)", k ? 3 : 6);
    ck_assert_msg(strstr(said[0], same), "run: %s", said[0]);
    ck_assert_msg(strcmp(said[0], said[1]) == 0, "run said:\n%smerge said:\n%s", said[0], said[1]);
    free(said[0]);
    free(said[1]);
  }
  /* a partial.json whose notes are not what run writes is refused, naming them */
  ck_assert_int_eq(tu_sh(NULL, "sed -i 's/\"first_point\":/\"first_place\":/' '%s/p1_1/partial.json'", dir), 0);
  char *err;
  ck_assert_int_eq(tu_tssimf(NULL, &err, "merge '%s/p1_1' '%s/p1_2' -q --no-plots -o '%s/m'", dir, dir, dir), 2);
  ck_assert_msg(strstr(err, "p1_1: partial.json: notes: expected {\"window_missed\": {\"count\", \"first\", "
                            "\"first_point\"}") && strchr(err, '\n') == err + strlen(err) - 1, "%s", err);
  free(err);
}
END_TEST

/* `tssim merge DIR/p1 DIR/p2`: exit 2, one line on stderr holding what,
 * and no results folder made. */
static void merge_refused(const char *what)
{
  char cmd[2000], *out, *err;
  snprintf(cmd, sizeof cmd, "merge '%s/p1' '%s/p2' -q --no-plots -o '%s/m'", dir, dir, dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, &err), 2);
  ck_assert_msg(strstr(err, what) != NULL && strchr(err, '\n') == err + strlen(err) - 1, "stderr: %s", err);
  snprintf(cmd, sizeof cmd, "%s/m", dir);
  ck_assert_int_ne(access(cmd, F_OK), 0);
  free(out);
  free(err);
}

/* `tssim merge P1 P2 -o DIR/m` succeeds. */
static void merges(const char *p1, const char *p2)
{
  char cmd[2400];
  snprintf(cmd, sizeof cmd, "merge '%s' '%s' -q --no-plots -o '%s/m'", p1, p2, dir);
  ok("%s%s", cmd, "");
}

/* Shards 1/2 and 2/2 of ZC into DIR/p1 and DIR/p2 (700 bytes each). */
static void two_shards(char *p1, char *p2)
{
  snprintf(p1, 700, "%s/p1", dir);
  snprintf(p2, 700, "%s/p2", dir);
  ok("run " ZC " --shard 1/2 -q -o '%s'%s", p1, "");
  ok("run " ZC " --shard 2/2 -q -o '%s'%s", p2, "");
}

/* A shard folder whose samples.csv was cut short, or is gone, is bad input
 * (exit 2, naming the file and the byte its partial.json expects), not a
 * failure to write (3); put back whole, it merges. */
START_TEST(parallel_merge_refuses_a_cut_short_samples_file)
{
  char p1[700], p2[700], path[800], msg[1000];
  two_shards(p1, p2);
  snprintf(path, sizeof path, "%s/samples.csv", p1);
  size_t len;
  char *whole = tu_read_file(path, &len);
  ck_assert_int_eq(truncate(path, (off_t)(len / 2)), 0);
  snprintf(msg, sizeof msg, "%s: %zu bytes, expected at least %zu (partial.json points[", path, len / 2, len);
  merge_refused(msg);
  ck_assert_int_eq(unlink(path), 0);
  snprintf(msg, sizeof msg, "%s: cannot read: No such file or directory", path);
  merge_refused(msg);
  tu_write_file(path, whole);
  free(whole);
  /* a byte range that is not one */
  snprintf(path, sizeof path, "%s/partial.json", p1);
  char *partial = tu_read_file(path, NULL), *at = strstr(partial, "\"samples_bytes\":\t[");
  ck_assert_ptr_nonnull(at);
  at += strlen("\"samples_bytes\":\t[");
  char *changed = malloc(strlen(partial) + 8);
  snprintf(changed, strlen(partial) + 8, "%.*s-1, %s", (int)(at - partial), partial, at);
  tu_write_file(path, changed);
  merge_refused("partial.json: points[0].samples_bytes: expected [FROM, TO]");
  tu_write_file(path, partial);
  free(changed);
  free(partial);
  merges(p1, p2);
}
END_TEST

/* A shard folder whose samples.csv has the length its partial.json names
 * but other bytes (a digit changed in a row) is bad input too: exit 2,
 * naming the file, nothing written (the length alone let it through: the
 * merged samples.csv was not the unsharded run's); put back, it merges. */
START_TEST(parallel_merge_refuses_a_changed_samples_file)
{
  char p1[700], p2[700], path[800], msg[1000];
  two_shards(p1, p2);
  snprintf(path, sizeof path, "%s/samples.csv", p2);
  size_t len;
  char *whole = tu_read_file(path, &len), *changed = strdup(whole);
  char *digit = strpbrk(strchr(changed, '\n') + 1, "0123456789"); /* in the first row */
  ck_assert_ptr_nonnull(digit);
  *digit = *digit == '9' ? '8' : (char)(*digit + 1);
  tu_write_file(path, changed);
  snprintf(msg, sizeof msg, "%s: its rows are not the bytes shard 2/2 wrote (FNV-1a ", path);
  merge_refused(msg);
  tu_write_file(path, whole);
  merges(p1, p2);
  /* into that merged folder: the same one line, without "replacing .../m/" before it (ux22 item 3: it was said
   * before the rows were checked), the folder as it was */
  char cmd[2000], *err, summary[800];
  snprintf(summary, sizeof summary, "%s/m/summary.csv", dir);
  char *before = tu_read_file(summary, NULL), *after;
  tu_write_file(path, changed);
  snprintf(cmd, sizeof cmd, "merge '%s' '%s' -q --no-plots -o '%s/m'", p1, p2, dir);
  ck_assert_int_eq(tu_tssim(cmd, NULL, &err), 2);
  ck_assert_msg(strncmp(err, "tssim: ", 7) == 0 && strstr(err, msg) == err + 7 &&
                  strchr(err, '\n') == err + strlen(err) - 1, "stderr: %s", err);
  ck_assert_str_eq(before, after = tu_read_file(summary, NULL));
  tu_write_file(path, whole);
  free(err);
  free(before);
  free(after);
  free(changed);
  free(whole);
}
END_TEST

Suite *parallel_suite(void)
{
  Suite *s = suite_create("parallel");
  const TTest *const jobs[] = {parallel_jobs_1_and_2_same_files_zero_cache, parallel_jobs_1_and_2_same_files_axes,
                               parallel_jobs_same_files_ci_target, parallel_samples_none, NULL};
  const TTest *const shards[] = {parallel_two_shards_merged_zero_cache, parallel_two_shards_merged_axes,
                                 parallel_two_shards_merged_rr_wave, parallel_gnu_parallel_recipe,
                                 parallel_two_shards_no_samples,
                                 parallel_merge_refuses_incomplete_shards, parallel_merge_refuses_a_cut_short_samples_file,
                                 parallel_merge_refuses_a_changed_samples_file,
                                 parallel_merge_says_the_notes_of_the_unsharded_run, NULL};
  tu_tcase(s, "jobs", jobs, dir_create, dir_remove, 300);
  tu_tcase(s, "shards", shards, dir_create, dir_remove, 300);
  return s;
}
