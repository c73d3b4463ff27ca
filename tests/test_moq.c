/* The moq relay model (models/moq-relay.json) against the closed forms its
 * mechanism implies: with one worker thread no mutex is ever contended; one
 * frame to R viewers on W workers causes exactly R deliveries and one paid
 * remote wake per viewer on another worker than the publisher's; a late
 * viewer's delivery takes the 16 track-mutex acquisitions and 4G + 10 nested
 * group reads the code gives (mechanism_from_code.acquisitions_per_delivery);
 * the track's and the groups' waiter lists cost what kio's
 * WaiterList::register does. */
#include <check.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/world.h"

#include "testutil.h"

#define MS(x) ((ts_time)llround((x) * 1e6))

/* models/moq-relay.json with overrides sets[0..] (NULL-terminated). */
static void load_moq(ts_model *m, const char *const *sets)
{
  int n = 0;
  while (sets[n])
    n++;
  char *path = tu_source_path("models/moq-relay.json");
  ts_err e;
  ck_assert_msg(ts_model_load(path, sets, n, m, NULL, &e) == 0, "%s", e.msg);
  free(path);
}

static void run_moq(ts_world *w, const ts_model *m, int workers, double horizon_ms)
{
  ts_world_spec sp = tu_world_spec(1, workers, 1);
  sp.horizon = MS(horizon_ms);
  sp.win_t0 = 0;
  sp.win_t1 = sp.horizon;
  ck_assert_int_eq(ts_world_init(w, m, &sp, NULL), 0);
  ck_assert_int_eq(ts_world_run(w), TS_WORLD_OK);
}

static ts_time sum_of(const ts_world *w, size_t offset)
{
  ts_time s = 0;
  for (int a = 0; a < w->nactors; a++)
  {
    ts_actor_stats st = ts_world_stats(w, a);
    s += *(const ts_time *)((const char *)&st + offset);
  }
  return s;
}

/* The user CPU that a waiter-list entry's cost of 1000 ns adds (against 0) to
 * one message on one thread, with overrides sets[0..] (NULL-terminated, at
 * most 8): the publisher starts at 10 ms, when every viewer is parked, and
 * the run ends at 900 ms. Each probed or swept entry adds exactly 1000 ns. */
static ts_time scan_user_ns(const char *const *sets)
{
  ts_time user[2];
  for (int k = 0; k < 2; k++) {
    const char *all[16];
    int n = 0;
    while (sets[n] && n < 8) {
      all[n] = sets[n];
      n++;
    }
    all[n++] = "classes[0].arrival.jitter_ms=0";
    all[n++] = "classes[0].arrival.phase_ms=10";
    all[n++] = k ? "params.scan_ns=1000" : "params.scan_ns=0";
    all[n] = NULL;
    ts_model m;
    load_moq(&m, all);
    ts_world w;
    run_moq(&w, &m, 1, 900);
    user[k] = 0;
    for (int q = 0; q < w.nworkers; q++)
      user[k] += w.workers[q].busy - w.workers[q].busy_kernel;
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
  return user[1] - user[0];
}

/* Chat (one track, every message a new group) with 300 viewers on one
 * worker thread: a task holds a mutex only inside CPU, one thread runs one
 * task at a time, so no acquire ever finds a mutex held: no lock wait, no
 * futex, no kernel work at all (the notifier's own worker is never parked;
 * the streams' network cost, kernel CPU, is set to 0). */
START_TEST(moq_one_worker_never_contended)
{
  static const char *const sets[] = {"params.viewers=300", "params.fanin=300", "params.fps=20",
                                     "params.stream_net_ms=0", NULL};
  ts_model m;
  load_moq(&m, sets);
  ts_world w;
  run_moq(&w, &m, 1, 1000);
  ck_assert_int_eq(w.mutex_contended, 0);
  ck_assert_int_eq(sum_of(&w, offsetof(ts_actor_stats, mutex_wait)), 0);
  ck_assert_int_eq(sum_of(&w, offsetof(ts_actor_stats, kernel)), 0);
  ck_assert_double_eq(w.win_mutex_wait, 0);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* One frame (the publisher starts at 10 ms, when every viewer is parked;
 * 1 fps; a horizon of 0.5 s) to R = 64 viewers on W = 1, 4, 16 threads:
 * exactly 64 deliveries; the publisher pays wake_kernel_ms for each of the
 * 64 - 64 / W viewers on other workers than its own, whose tasks its new
 * group wakes (viewer i lives on worker (1 + i) % W). Every other kernel cost
 * is set to 0 (futexes, parked threads, the group channel's wakes, the
 * streams' network cost), so that the kernel CPU is exactly those wakes. */
START_TEST(moq_one_frame_r_deliveries_remote_wakes_paid)
{
  static const char *const sets[] = {"params.viewers=64",
                                     "params.fanin=64",
                                     "params.fps=1",
                                     "classes[0].arrival.jitter_ms=0",
                                     "classes[0].arrival.phase_ms=10",
                                     "params.wake_kernel_ms=0.004",
                                     "params.futex_ms=0",
                                     "params.park_wake_ms=0",
                                     "channels[1].task_wake.remote_kernel_ms=0",
                                     "params.stream_net_ms=0",
                                     NULL};
  for (int W = 1; W <= 16; W *= 4) {
    ts_model m;
    load_moq(&m, sets);
    ts_world w;
    run_moq(&w, &m, W, 500);
    int delivery = -1;
    for (size_t s = 0; s < m.nspans; s++)
      if (strcmp(m.spans[s].name, "delivery") == 0)
        delivery = (int)s;
    ck_assert_int_ge(delivery, 0);
    ck_assert_int_eq(w.spans[delivery].len, 64);
    ts_time kernel = 0;
    for (int k = 0; k < w.nworkers; k++)
      kernel += w.workers[k].busy_kernel;
    ck_assert_msg(kernel == (64 - 64 / W) * MS(0.004), "W = %d: %lld ns of wakes, want %d", W, (long long)kernel,
                  64 - 64 / W);
    ts_world_finish(&w);
    ts_model_finish(&m);
  }
}
END_TEST

/* One viewer on one thread, one message. The viewer's first pass at 0 (4
 * track polls, nothing cached) registers it; the publisher runs P1 to P5
 * (one track acquisition, 4 group writes), then the viewer is late: its
 * new-group pass (7 track polls, its child's first poll: 1 expiry check),
 * the spurious pass of the child's push (4) and the ACK's pass (4): 16 track
 * acquisitions; 4 drift polls nesting 2 reads of the G = 1 cached group, the
 * expiry check's 3 and the child's 3 direct reads: 14 group acquisitions,
  * 4G + 10. Four passes, one delivery (the pass span counts three: the last
 * waits at its pending when the run ends). */
START_TEST(moq_late_viewer_acquisitions_from_the_code)
{
  static const char *const sets[] = {"params.viewers=1", "params.fanin=1", "params.fps=1", NULL};
  ts_model m;
  load_moq(&m, sets);
  ts_world w;
  run_moq(&w, &m, 1, 900);
  ck_assert_int_eq(w.lock_stat[0].acquires, 4 + 1 + 16);
  ck_assert_int_eq(w.lock_stat[1].acquires, 4 + 14);
  int pass = -1;
  for (size_t s = 0; s < m.nspans; s++)
    if (strcmp(m.spans[s].name, "pass") == 0)
      pass = (int)s;
  ck_assert_int_eq((int)w.spans[pass].len, 3);
  ts_world_finish(&w);
  ts_model_finish(&m);
}
END_TEST

/* The track's waiter list costs what kio's WaiterList::register does
 * (kio/src/waiter.rs:249-292): a waker not on the list this round (a notify
 * takes the whole list, producer.rs:370-394, leaving an empty one of 4 inline
 * slots) probes at most 2 slots, and finds the list full when it holds 4, 8,
 * 16, ... entries, sweeps it whole and doubles it; a waker already on it this
 * round costs nothing. R = 8 viewers on one thread, one message: round 0 puts
 * the 8 cursors on the list (entries 0..7 found: 13 probed, a sweep of 4),
 * round 1 the 8 cursors and the 8 children's first expiry checks (0..15: 29
 * probed, sweeps of 4 and 8): 58 entries, the user CPU scan_ns adds (a
 * whole-list scan at every child's first expiry check gives 64). */
START_TEST(moq_waiter_list_sweeps_only_when_full)
{
  static const char *const sets[] = {"params.viewers=8", "params.fanin=8", "params.fps=1", NULL};
  ts_time d = scan_user_ns(sets);
  ck_assert_msg(d == 58 * 1000, "scan adds %lld ns, want 58 entries x 1000 ns", (long long)d);
}
END_TEST

/* A group's waiter list costs the same (kio/src/waiter.rs:249-292): a
 * GroupServe whose poll of the group finds no new frame registers on the
 * group's list under the group mutex (kio/src/consumer.rs, Consumer::poll),
 * once per round of that list (every notify of the group takes it). R = 8
 * viewers on one thread, groups of 2 frames, the first frame only (the
 * second comes at 1010 ms, after the horizon): the track's list costs what
 * moq_waiter_list_sweeps_only_when_full counts (58 entries), and the 8
 * children, which deliver the first frame and wait for the second, register
 * on the group's list in one round: 0..7 entries found, 13 probed and a sweep
 * of 4, 17 more: 75 in all (without the group's list, 58). */
START_TEST(moq_group_waiter_list_costs_the_same)
{
  static const char *const sets[] = {"params.viewers=8", "params.fanin=8", "params.fps=1", "params.group_frames=2",
                                     NULL};
  ts_time d = scan_user_ns(sets);
  ck_assert_msg(d == (58 + 17) * 1000, "scan adds %lld ns, want (58 + 17) entries x 1000 ns", (long long)d);
}
END_TEST

/* scripts/moq-frontier (docs/moq-relay.md, "What does not hold") searches
 * the box of the model's free costs: every tssim command it runs that
 * searches (optimize) names each free[] path exactly once, with the model's
 * own min and max (so a cost added to free[], dropped, or a range changed
 * moves the study with it), and no other field; its chat-16 sample and
 * the five searches from it hold chat-16's p50 within 25% of the recorded
 * 34 ms (the fanout-16 sample is the seventh command); the two joint
 * searches run chat and fanout at 16 workers with each constraint naming
 * its point: fanout-16's share within 1.25 x 0.36, chat-16's p50 held; the docs
 * show its output in a results block, so scripts/readme-results reruns it. */
START_TEST(moq_frontier_searches_the_models_box)
{
  char *path = tu_source_path("models/moq-relay.json");
  cJSON *doc = NULL;
  ts_err e;
  ck_assert_msg(ts_json_load(path, &doc, &e) == 0, "%s", e.msg);
  cJSON *free_ = ts_json_get_path(doc, "free");
  int nfree = cJSON_GetArraySize(free_);
  ck_assert_int_eq(nfree, 9);
  char *out = NULL;
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-frontier' --commands", tu_source_root()), 0);
  int searches = 0, held = 0, joint = 0;
  for (char *line = strtok(out, "\n"); line; line = strtok(NULL, "\n")) {
    if (!strstr(line, " optimize "))
      continue;
    searches++;
    int fields = 0;
    for (const char *p = line; (p = strstr(p, "--field ")) != NULL; p++)
      fields++;
    ck_assert_msg(fields == nfree, "%d --field in: %s", fields, line);
    const cJSON *f;
    cJSON_ArrayForEach(f, free_)
    {
      char key[128];
      snprintf(key, sizeof key, "--field %s=", cJSON_GetObjectItem(f, "path")->valuestring);
      const char *at = strstr(line, key);
      ck_assert_msg(at && !strstr(at + 1, key), "%s not once in: %s", key, line);
      char *end;
      double lo = strtod(at + strlen(key), &end);
      ck_assert_msg(*end == ':', "%s: no LO:HI", key);
      double hi = strtod(end + 1, NULL);
      ck_assert_msg(lo == cJSON_GetObjectItem(f, "min")->valuedouble && hi == cJSON_GetObjectItem(f, "max")->valuedouble,
                    "%s%g:%g, the model's free[] says %g:%g", key, lo, hi, cJSON_GetObjectItem(f, "min")->valuedouble,
                    cJSON_GetObjectItem(f, "max")->valuedouble);
    }
    held += strstr(line, "'latency_p50_ms <= 42.5'") && strstr(line, "'latency_p50_ms >= 25.5'");
    joint += strstr(line, " --axis workload=chat,fanout --workers 16 ") && strstr(line, "[workload=chat]' ") &&
             strstr(line, "'lock_wait_share[workload=fanout] <= 0.45'") &&
             strstr(line, "'latency_p50_ms[workload=chat] <= 42.5'") &&
             strstr(line, "'latency_p50_ms[workload=chat] >= 25.5'");
  }
  ck_assert_int_eq(searches, 9);
  ck_assert_int_eq(held, 6);
  ck_assert_int_eq(joint, 2);
  free(out);
  cJSON_Delete(doc);
  free(path);
  char *docs = tu_source_path("docs/moq-relay.md");
  char *text = tu_read_file(docs, NULL);
  ck_assert_ptr_nonnull(strstr(text, "\n<!-- results: scripts/moq-frontier -->\n```\n"));
  free(text);
  free(docs);
}
END_TEST

/* A stand-in tssim for the moq-targets tests, in a new temporary folder `dir`
 * (at `fake`): it appends its arguments, bracketed, as one line to `args`
 * (dir/args), runs `first` (shell code, may be "") before anything, and
 * writes into its -o folder a summary.csv whose chat-16 lock_wait_share is
 * 2.0 when the shell test `when_variant` (given each argument as $a) held for
 * one argument, 0.3 otherwise. */
static void stand_in_tssim(char dir[4096], char fake[4200], char args[4200], const char *name, const char *first,
                           const char *when_variant)
{
  tu_mkdtemp(dir, 4096, name);
  snprintf(fake, 4200, "%s/tssim", dir);
  snprintf(args, 4200, "%s/args", dir);
  char body[9000];
  snprintf(body, sizeof body,
           "#!/bin/sh\n"
           "%s\n"
           "o= s=0.3 prev=\n"
           "for a; do printf '[%%s]' \"$a\"; [ \"$prev\" = -o ] && o=$a; %s && s=2.0; prev=$a; done >>'%s'\n"
           "echo >>'%s'\n"
           "mkdir -p \"$o\" && printf 'workload,workers,lock_wait_share\\nchat,16,%%s\\n' $s >\"$o/summary.csv\"\n",
           first, when_variant, args, args);
  tu_write_file(fake, body);
  ck_assert_int_eq(chmod(fake, 0755), 0);
}

/* scripts/moq-targets --set KEY=VALUE (docs/moq-relay.md, "Targets with the
 * host's wake-up spread") hands every pair to tssim run intact (a value with
 * a space too, and the --set=KEY=VALUE form), runs the shipped model into
 * DIR/shipped and the variant into DIR/set (-o DIR), never into
 * results/moq-base/, and prints the shipped figure beside the variant's with
 * whether each holds; --no-run reads such a run only with the same pairs; a
 * failed tssim run stops it with tssim's status and message; a bad option, a
 * --set without KEY=VALUE and -o without --set exit 2 naming it, before any
 * run. A stand-in tssim records its
 * arguments and writes a summary.csv whose chat-16 share is 2.0 (within 25%
 * of the recorded 2.15) when it was given a --set, 0.3 otherwise. */
START_TEST(moq_targets_pass_set_through)
{
  char dir[4096], fake[4200], args[4200];
  stand_in_tssim(dir, fake, args, "moqtargets", "case \"$*\" in *fail=1*) echo 'stand-in: no fail' >&2; exit 2 ;; esac",
                 "[ \"$a\" = --set ]");
  const char *root = tu_source_root();
  char *out = NULL;
  static const char *const bad[] = {"--bogus", "--set", "--set nokey", "-o x", NULL};
  static const char *const says[] = {"unknown option '--bogus'", "--set needs a value", "--set takes KEY=VALUE, not 'nokey'",
                                     "-o names the directory of a --set run", NULL};
  for (int i = 0; bad[i]; i++) {
    ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' '%s' %s", root, fake, bad[i]), 2);
    ck_assert_msg(strstr(out, says[i]) && strstr(out, "usage: scripts/moq-targets"), "%s: %s", bad[i], out);
    free(out);
    ck_assert_msg(access(args, F_OK) != 0, "%s ran tssim", bad[i]);
  }
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' --set 'a.b={\"ms\": 1}' --set=k=2 -o '%s/out' '%s'", root, dir, fake),
                   0);
  char want[9000];
  snprintf(want, sizeof want, "with --set: %s/out/set/ (results/moq-base/ untouched)\n  --set a.b={\"ms\": 1}\n  --set k=2\n",
           dir);
  ck_assert_msg(strstr(out, want), "no '%s' in:\n%s", want, out);
  const char *row = strstr(out, "\nchat ");
  ck_assert_ptr_nonnull(row);
  char wl[16], metric[32], holds[8], holds_set[8];
  int workers;
  double recorded, shipped, set;
  ck_assert_int_eq(sscanf(row, " %15s %d %31s %lf %lf %lf %*s %7s %7s", wl, &workers, metric, &recorded, &shipped, &set,
                          holds, holds_set),
                   8);
  ck_assert_str_eq(metric, "lock_wait_share");
  ck_assert_msg(shipped == 0.3 && set == 2.0 && !strcmp(holds, "NO") && !strcmp(holds_set, "yes"), "%s", row);
  free(out);
  char *ran = tu_read_file(args, NULL);
  char shipped_run[9000], set_run[9000];
  snprintf(shipped_run, sizeof shipped_run, "[run][scenarios/moq-base.json][--no-plots][-q][-o][%s/out/shipped]\n", dir);
  snprintf(set_run, sizeof set_run,
           "[run][scenarios/moq-base.json][--no-plots][-q][-o][%s/out/set][--set][a.b={\"ms\": 1}][--set][k=2]\n", dir);
  char both[20000];
  snprintf(both, sizeof both, "%s%s", shipped_run, set_run);
  ck_assert_str_eq(ran, both);
  free(ran);
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' --no-run --set k=3 -o '%s/out' '%s'", root, dir, fake), 1);
  ck_assert_msg(strstr(out, "holds no run with these --set pairs"), "%s", out);
  free(out);
  ck_assert_int_eq(
    tu_sh(&out, "'%s/scripts/moq-targets' --no-run --set 'a.b={\"ms\": 1}' --set k=2 -o '%s/out' '%s'", root, dir, fake), 0);
  ck_assert_msg(strstr(out, want), "no '%s' in:\n%s", want, out);
  free(out);
  ran = tu_read_file(args, NULL);
  ck_assert_str_eq(ran, both);
  free(ran);
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' --set fail=1 -o '%s/out' '%s'", root, dir, fake), 2);
  ck_assert_msg(strstr(out, "tssim run of the set model failed:\nstand-in: no fail\n"), "%s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* scripts/moq-targets --model FILE runs another model of the same structure
 * (models/moq-relay-spread.json, scripts/moq-calibrate --spread) as the
 * variant: the shipped model on scenarios/moq-base.json into DIR/shipped, FILE
 * on a copy of the scenario (DIR/scenario.json) that names FILE as its model
 * and the scenario's other files where they are, into DIR/set, columns
 * "shipped" and "variant"; --no-run reads only a run of the same model; a
 * missing FILE exits 2 before any run. The stand-in records its arguments
 * and writes a chat-16 share of 2.0 when its scenario is the copy. */
START_TEST(moq_targets_run_another_model)
{
  char dir[4096], fake[4200], args[4200];
  stand_in_tssim(dir, fake, args, "moqmodel", "", "case $a in *scenario.json) true ;; *) false ;; esac");
  const char *root = tu_source_root();
  char *out = NULL;
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' --model nosuch.json -o '%s/out' '%s'", root, dir, fake), 2);
  ck_assert_msg(strstr(out, "--model nosuch.json: no such file") && strstr(out, "usage: scripts/moq-targets"), "%s", out);
  free(out);
  ck_assert_msg(access(args, F_OK) != 0, "a missing --model ran tssim");
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' --model models/moq-relay.json -o '%s/out' '%s'", root, dir, fake), 0);
  char want[9000];
  snprintf(want, sizeof want, "variant: %s/out/set/ (results/moq-base/ untouched)\n  --model models/moq-relay.json\n", dir);
  ck_assert_msg(strstr(out, want), "no '%s' in:\n%s", want, out);
  ck_assert_msg(strstr(out, " shipped    variant ") && strstr(out, "holds variant\n"), "%s", out);
  const char *row = strstr(out, "\nchat ");
  ck_assert_ptr_nonnull(row);
  double shipped, variant;
  ck_assert_int_eq(sscanf(row, " %*s %*d %*s %*f %lf %lf", &shipped, &variant), 2);
  ck_assert_msg(shipped == 0.3 && variant == 2.0, "%s", row);
  free(out);
  char *ran = tu_read_file(args, NULL), want_ran[20000];
  snprintf(want_ran, sizeof want_ran,
           "[run][scenarios/moq-base.json][--no-plots][-q][-o][%s/out/shipped]\n"
           "[run][%s/out/scenario.json][--no-plots][-q][-o][%s/out/set]\n",
           dir, dir, dir);
  ck_assert_str_eq(ran, want_ran);
  free(ran);
  char scpath[4200];
  snprintf(scpath, sizeof scpath, "%s/out/scenario.json", dir);
  char *sc = tu_read_file(scpath, NULL);
  ck_assert_msg(strstr(sc, "/models/moq-relay.json\"") && strstr(sc, "/models/baselines/moq-relay-base.json\"") &&
                  !strstr(sc, "\"../"),
                "%s", sc);
  free(sc);
  ck_assert_int_eq(tu_sh(&out, "'%s/scripts/moq-targets' --no-run --model models/moq-relay-spread.json -o '%s/out' '%s'", root,
                         dir, fake),
                   1);
  ck_assert_msg(strstr(out, "holds no run with these --set pairs and model"), "%s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

Suite *moq_suite(void)
{
  Suite *s = suite_create("moq");
  const TTest *const forms[] = {moq_one_worker_never_contended, moq_one_frame_r_deliveries_remote_wakes_paid,
                                moq_late_viewer_acquisitions_from_the_code, moq_waiter_list_sweeps_only_when_full,
                                moq_group_waiter_list_costs_the_same, NULL};
  tu_tcase(s, "closed forms", forms, NULL, NULL, 120);
  const TTest *const frontier[] = {moq_frontier_searches_the_models_box, NULL};
  tu_tcase(s, "frontier", frontier, NULL, NULL, 60);
  const TTest *const targets[] = {moq_targets_pass_set_through, moq_targets_run_another_model, NULL};
  tu_tcase(s, "targets", targets, NULL, NULL, 60);
  return s;
}
