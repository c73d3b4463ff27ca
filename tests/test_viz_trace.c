/* Seeing the model: recorded timelines and Chrome traces (tssim trace and its
 * page). Scenarios are loaded from the source tree (TSSIM_SOURCE_ROOT); CLI
 * tests run the built binary (TSSIM_BINARY). */
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

/* ---- timeline ---- */

START_TEST(viz_timeline_matches_stats)
{
  ts_loaded L;
  ts_timeline tl;
  vu_record(LOCK, NULL, 0, 4, 2, &L, &tl);
  ck_assert_int_eq(tl.nactors, 4);
  for (int a = 0; a < tl.nactors; a++) {
    ts_time cpu = 0, st[TS_NSTATES] = {0};
    for (size_t i = 0; i < tl.npieces; i++)
      if (tl.pieces[i].actor == a)
        cpu += tl.pieces[i].t1 - tl.pieces[i].t0;
    ck_assert_int_eq(cpu, tl.stats[a].cpu);
    ts_timeline_state_times(&tl, a, 0, tl.end, 0, st);
    ck_assert_int_eq(st[TS_ACTOR_RUNNING], tl.stats[a].cpu);
    ck_assert_int_eq(st[TS_ACTOR_QUEUED], tl.stats[a].state[TS_ACTOR_QUEUED]);
    ck_assert_int_eq(st[TS_ACTOR_READY], tl.stats[a].state[TS_ACTOR_READY]);
    ck_assert_int_eq(st[TS_ACTOR_IO], tl.stats[a].state[TS_ACTOR_IO]);
    ck_assert_int_eq(st[TS_ACTOR_LOCK_WAIT], tl.stats[a].state[TS_ACTOR_LOCK_WAIT]);
  }
  vu_release(&L, &tl);
}
END_TEST

/* A run the horizon ends while a worker runs: its running piece is reported
 * and accounted up to the horizon (no segment end will), so the worker's
 * pieces cover the time it was busy and each actor's pieces its time
 * running and its CPU (a2's 5 ms: the segments that ended alone gave 0). Round
 * robin, 3 actors of 30 ms, q = 10 ms, one worker, horizon 25 ms: a0 0-10,
 * a1 10-20, a2 20-25 (the piece the horizon cut). */
START_TEST(viz_timeline_reports_the_piece_the_horizon_cuts)
{
  static const char *const sets[] = {"params.c_ms=30", "classes[0].program[0].rows=30"};
  ts_loaded L;
  ts_timeline tl;
  char *path = tu_source_path(RR);
  ck_assert_int_eq(ts_cli_load(path, sets, 2, &L), 0);
  free(path);
  ck_assert_int_eq(ts_timeline_record(&tl, &L.model, 3, 1, ts_rng_derive_seed(L.sc.seed, 3, 1, 0),
                                      25 * TS_NS_PER_MS, 0), 0);
  ck_assert_int_eq(tl.end, 25 * TS_NS_PER_MS);
  ts_time busy = 0;
  for (size_t i = 0; i < tl.npieces; i++)
    busy += tl.pieces[i].t1 - tl.pieces[i].t0;
  ck_assert_int_eq(busy, 25 * TS_NS_PER_MS);
  ck_assert_int_eq(tl.npieces, 3);
  ck_assert_int_eq(tl.pieces[2].actor, 2);
  ck_assert_int_eq(tl.pieces[2].t1, 25 * TS_NS_PER_MS);
  for (int a = 0; a < tl.nactors; a++) {
    ts_time ran = 0, st[TS_NSTATES] = {0};
    for (size_t i = 0; i < tl.npieces; i++)
      if (tl.pieces[i].actor == a)
        ran += tl.pieces[i].t1 - tl.pieces[i].t0;
    ts_timeline_state_times(&tl, a, 0, tl.end, 0, st);
    ck_assert_int_eq(ran, st[TS_ACTOR_RUNNING]);
    ck_assert_int_eq(ran, tl.stats[a].cpu);
    ck_assert_int_eq(ran, a < 2 ? 10 * TS_NS_PER_MS : 5 * TS_NS_PER_MS);
  }
  vu_release(&L, &tl);
}
END_TEST

START_TEST(viz_timeline_refuses_overflowing_horizon)
{
  static const char *const sets[] = {"params.c_ms=3600000", "classes[0].program[0].rows=1"};
  ts_loaded L;
  ts_timeline tl;
  char *path = tu_source_path(RR);
  ck_assert_int_eq(ts_cli_load(path, sets, 2, &L), 0); /* an hour each: a million overflow 73 years */
  free(path);
  ck_assert_int_eq(ts_timeline_record(&tl, &L.model, 1000000, 1, 1, TS_TIME_MAX, 0), -4);
  ck_assert_ptr_nonnull(strstr(ts_timeline_strerror(&tl, -4), "fewer actors"));
  vu_release(&L, &tl);
  /* the same when the arrivals drawn while laying out the world pass 73 years (20000 Poisson
   * arrivals at 1e-9/s): not "out of memory recording the timeline" (ux20) */
  static const char *const slow[] = {"classes[0].arrival.rate_per_s=1e-9"};
  path = tu_source_path("scenarios/examples/mm1.json");
  ck_assert_int_eq(ts_cli_load(path, slow, 1, &L), 0);
  free(path);
  ck_assert_int_eq(ts_timeline_record(&tl, &L.model, 1, 1, 1, TS_TIME_MAX, 0), -4);
  vu_release(&L, &tl);
}
END_TEST

/* A state record's worker is an int16: past INT16_MAX workers in all pools
 * (17 pools of 4096 threads) it is -1, unknown, not wrapped (review14b item
 * 4: worker 69632 was recorded as 4096, a thread of another pool). */
START_TEST(viz_state_worker_past_int16_is_unknown)
{
  char json[4096];
  int len = snprintf(json, sizeof json, "{\"pools\": [");
  for (int p = 0; p < 17; p++)
    len += snprintf(json + len, sizeof json - (size_t)len, "%s{\"name\": \"p%d\", \"kind\": \"thread\", \"count\": 4096}",
                    p ? ", " : "", p);
  snprintf(json + len, sizeof json - (size_t)len,
           "], \"classes\": [{\"name\": \"a\", \"count\": 2, \"placement\": {\"pool\": \"p16\", \"worker\": \"i * 4095\"},"
           " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}");
  ts_model m;
  tu_model(json, &m);
  ts_timeline tl = {0};
  ck_assert_int_eq(ts_timeline_record(&tl, &m, 1, 1, 1, TS_TIME_MAX, 0), 0);
  ck_assert_int_eq(tl.nworkers, 1 + 17 * 4096);
  int seen[2] = {0, 0};
  for (size_t i = 0; i < tl.nstates; i++) {
    const ts_tl_state *e = &tl.states[i];
    ck_assert_msg(e->worker == -1 || e->worker == tl.stats[e->actor].worker, "actor %d recorded on worker %d, runs on %d",
                  e->actor, e->worker, tl.stats[e->actor].worker);
    seen[e->actor] |= e->worker == -1;
  }
  ck_assert_int_eq(tl.stats[0].worker, 1 + 16 * 4096); /* 65537: past INT16_MAX too */
  ck_assert_int_eq(tl.stats[1].worker, 1 + 16 * 4096 + 4095);
  ck_assert(seen[0] && seen[1]);
  ts_timeline_finish(&tl);
  ts_model_finish(&m);
}
END_TEST

/* ---- trace ---- */

/* Check a trace tree: valid events; on every worker's loop track the run and
 * loop events never overlap; every time slice of every actor appears exactly
 * once, in order (slice k is the k-th sliced run event); run events sum to
 * the actor's CPU. */
static void check_trace(const cJSON *root_, const ts_timeline *tl)
{
  const cJSON *events = cJSON_GetObjectItemCaseSensitive(root_, "traceEvents");
  ck_assert(cJSON_IsArray(events));
  int nev = cJSON_GetArraySize(events);
  ck_assert_int_gt(nev, 0);
  double *last_end = calloc((size_t)tl->nworkers, sizeof *last_end);
  int64_t *next_slice = calloc((size_t)tl->nactors, sizeof *next_slice);
  double *cpu = calloc((size_t)tl->nactors, sizeof *cpu);
  int named = 0;
  ck_assert(last_end && next_slice && cpu);
  for (int a = 0; a < tl->nactors; a++)
    next_slice[a] = 1;
  for (int w = 0; w < tl->nworkers; w++)
    last_end[w] = -1;
  /* loop-track events in the order of their start (the array holds them grouped, not sorted) */
  const cJSON **loop = calloc((size_t)nev, sizeof *loop);
  int nloop = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, events)
  {
    const char *ph = vu_str(e, "ph");
    ck_assert_int_eq(strlen(ph), 1);
    ck_assert(strchr("XMCbesfi", ph[0]) != NULL);
    int pid = (int)vu_num(e, "pid"), tid = (int)vu_num(e, "tid");
    ck_assert_int_ge(pid, 1);
    ck_assert_int_le(pid, tl->nworkers);
    ck_assert(vu_num(e, "ts") >= 0);
    if (ph[0] == 'M' && strcmp(vu_str(e, "name"), "process_name") == 0)
      named++;
    if (ph[0] == 'X') {
      ck_assert(vu_num(e, "dur") >= 0);
      const char *cat = vu_str(e, "cat");
      if (tid == pid && (strcmp(cat, "run") == 0 || strcmp(cat, "loop") == 0))
        loop[nloop++] = e;
    }
  }
  ck_assert_int_eq(named, tl->nworkers);
  for (int i = 1; i < nloop; i++) { /* insertion sort by ts (stable) */
    const cJSON *x = loop[i];
    int j = i - 1;
    while (j >= 0 && vu_num(loop[j], "ts") > vu_num(x, "ts")) {
      loop[j + 1] = loop[j];
      j--;
    }
    loop[j + 1] = x;
  }
  for (int i = 0; i < nloop; i++) {
    const cJSON *x = loop[i];
    int w = (int)vu_num(x, "pid") - 1;
    double ts = vu_num(x, "ts"), dur = vu_num(x, "dur");
    ck_assert_msg(ts >= last_end[w] - 1e-6, "overlap on worker %d at %.3f us", w, ts);
    last_end[w] = ts + dur;
    if (strcmp(vu_str(x, "cat"), "run") != 0)
      continue;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(x, "args");
    int a = (int)vu_num(args, "actor");
    ck_assert_int_eq(tl->stats[a].worker, w);
    cpu[a] += dur;
    if (cJSON_GetObjectItemCaseSensitive(args, "slice")) {
      int64_t s = (int64_t)vu_num(args, "slice");
      ck_assert_msg(s == next_slice[a], "actor %d: slice %lld where %lld was due", a, (long long)s,
                    (long long)next_slice[a]);
      next_slice[a]++;
    }
  }
  for (int a = 0; a < tl->nactors; a++) {
    ck_assert_int_eq(next_slice[a] - 1, tl->stats[a].slices);
    ck_assert(fabs(cpu[a] - (double)tl->stats[a].cpu / 1000) < 1e-3);
  }
  free(loop);
  free(last_end);
  free(next_slice);
  free(cpu);
}

/* The trace page gives every actor state but running (which takes its
 * actor's color) a color of its own, named as state.c names it, so that its
 * legend and the Gantt chart's say the same states. */
START_TEST(viz_trace_page_colors_every_state)
{
  char *path = tu_source_path("src/viz/trace_viewer.html"), *page = tu_read_file(path, NULL);
  char colors[TS_NSTATES][8] = {{0}};
  for (int s = 0; s < TS_NSTATES; s++) {
    if (s == TS_ACTOR_RUNNING)
      continue;
    char key[64];
    snprintf(key, sizeof key, "\"%s\": \"#", ts_state_get(s)->name);
    const char *at = strstr(page, key);
    ck_assert_msg(at, "the trace page has no color for the state \"%s\"", ts_state_get(s)->name);
    memcpy(colors[s], at + strlen(key) - 1, 7);
    for (int o = 0; o < s; o++)
      ck_assert_msg(strcmp(colors[s], colors[o]), "\"%s\" and \"%s\" share the color %s", ts_state_get(s)->name,
                    ts_state_get(o)->name, colors[s]);
    if (ts_state_get(s)->thread_name) { /* its name on a thread worker: the same color */
      snprintf(key, sizeof key, "\"%s\": \"%s\"", ts_state_get(s)->thread_name, colors[s]);
      ck_assert_msg(strstr(page, key), "the trace page has no %s", key);
    }
  }
  /* a wait for a reply split by the calls: the queue wait a color of its own, the legs the state's */
  char key[96];
  snprintf(key, sizeof key, "\"%s\": \"#", TS_TL_CALL_QUEUED);
  const char *at = strstr(page, key);
  ck_assert_msg(at, "the trace page has no color for \"%s\"", TS_TL_CALL_QUEUED);
  for (int o = 0; o < TS_NSTATES; o++)
    ck_assert_msg(strncmp(at + strlen(key) - 1, colors[o], 7), "the queue wait shares the color of \"%s\"",
                  ts_state_get(o)->name);
  snprintf(key, sizeof key, "\"%s\": \"%s\"", TS_TL_CALL_LEGS, colors[TS_ACTOR_CALL_WAIT]);
  ck_assert_msg(strstr(page, key), "the trace page has no %s", key);
  free(page);
  free(path);
}
END_TEST

START_TEST(viz_trace_zero_cache_n4_slices_once_in_order)
{
  ts_loaded L;
  ts_timeline tl;
  vu_record(ZC, NULL, 0, 4, 1, &L, &tl);
  ts_trace_info info = {.scenario = L.sc.name, .model_file = L.sc.model_path};
  cJSON *tree = ts_trace_build(&tl, &info);
  ck_assert_ptr_nonnull(tree);
  char *text = cJSON_PrintUnformatted(tree);
  cJSON_Delete(tree);
  cJSON *parsed = cJSON_Parse(text); /* what a viewer reads: the printed text */
  ck_assert_ptr_nonnull(parsed);
  check_trace(parsed, &tl);
  for (int a = 0; a < tl.nactors; a++)
    ck_assert_int_gt(tl.stats[a].slices, 10);
  ck_assert_str_eq(vu_str(cJSON_GetObjectItemCaseSensitive(parsed, "otherData"), "scenario"), "zero-cache-wave");
  cJSON_Delete(parsed);
  cJSON_free(text);
  vu_release(&L, &tl);
}
END_TEST

START_TEST(viz_trace_lock_flows_and_counters)
{
  ts_loaded L;
  ts_timeline tl;
  vu_record(LOCK, NULL, 0, 4, 2, &L, &tl);
  cJSON *tree = ts_trace_build(&tl, NULL);
  ck_assert_ptr_nonnull(tree);
  check_trace(tree, &tl);
  int begins = 0, ends = 0, starts = 0, finishes = 0, counters = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
  {
    char ph = vu_str(e, "ph")[0];
    begins += ph == 'b';
    ends += ph == 'e';
    starts += ph == 's';
    finishes += ph == 'f';
    counters += ph == 'C';
  }
  ck_assert_int_eq(begins, ends);
  ck_assert_int_ge(begins, 2 * 4); /* group lock and store lock per actor */
  ck_assert_int_eq(starts, finishes);
  ck_assert_int_ge(starts, (int)tl.nwakes);
  ck_assert_int_gt(counters, 0);
  cJSON_Delete(tree);
  vu_release(&L, &tl);
}
END_TEST

/* An actor's wait for a reply is split in its track as the Gantt chart
 * splits it: the call's wait in the server's queue (its own slice, args
 * naming the server) apart from the request and reply legs, the service in
 * the handler's own states. rpc-server with 2 ms request and 3 ms reply legs
 * on the batches (test_viz_gantt.c's viz_gantt_call_queue_wait_apart_from_legs):
 * batch 0 travels 0-2, waits in sqlite's queue 2-11, runs its handler 11-21
 * and its reply travels 21-24. A trace without calls has no such slice. */
START_TEST(viz_trace_splits_the_reply_wait_by_the_calls)
{
  static const char *const legs[] = {"classes[0].program[0].request_ms=2", "classes[0].program[0].reply_ms=3"};
  static const struct {
    const char *name;
    double t0, t1;
  } want[] = {{TS_TL_CALL_LEGS, 0, 2000}, {TS_TL_CALL_QUEUED, 2000, 11000}, {"running", 11000, 21000},
              {TS_TL_CALL_LEGS, 21000, 24000}};
  ts_loaded L;
  ts_timeline tl;
  vu_record("scenarios/examples/rpc-server.json", legs, 2, 1, 1, &L, &tl);
  cJSON *tree = ts_trace_build(&tl, NULL);
  ck_assert_ptr_nonnull(tree);
  size_t k = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
  {
    if (strcmp(vu_str(e, "ph"), "X") || strcmp(vu_str(e, "cat"), "state") || (int)vu_num(e, "tid") != tl.nworkers + 1)
      continue; /* actor 0's states */
    ck_assert_uint_lt(k, sizeof want / sizeof *want);
    ck_assert_str_eq(vu_str(e, "name"), want[k].name);
    ck_assert_double_eq_tol(vu_num(e, "ts"), want[k].t0, 1e-6);
    ck_assert_double_eq_tol(vu_num(e, "ts") + vu_num(e, "dur"), want[k].t1, 1e-6);
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(e, "args");
    ck_assert_str_eq(vu_str(args, "server"), strcmp(want[k].name, TS_TL_CALL_QUEUED) ? "" : "sqlite");
    k++;
  }
  ck_assert_uint_eq(k, sizeof want / sizeof *want);
  cJSON_Delete(tree);
  vu_release(&L, &tl);
  vu_record(RR, NULL, 0, 3, 1, &L, &tl);
  tree = ts_trace_build(&tl, NULL);
  char *text = cJSON_PrintUnformatted(tree);
  ck_assert_msg(!strstr(text, "waiting for a reply"), "%.2000s", text);
  cJSON_free(text);
  cJSON_Delete(tree);
  vu_release(&L, &tl);
}
END_TEST

START_TEST(viz_trace_cli_writes_file)
{
  char args[2048], *out, path[1024];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  snprintf(args, sizeof args, "trace " ZC " --n 4 -o '%s/sub/zc.json' --html '%s/zc.html'", tmpdir, tmpdir);
  ck_assert_int_eq(tu_tssim(args, &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "ui.perfetto.dev"));
  free(out);
  snprintf(path, sizeof path, "%s/sub/zc.json", tmpdir);
  char *text = tu_read_file(path, NULL);
  cJSON *tree = cJSON_Parse(text);
  ck_assert_ptr_nonnull(tree);
  ck_assert_int_eq((int)vu_num(cJSON_GetObjectItemCaseSensitive(tree, "otherData"), "n"), 4);
  cJSON_Delete(tree);
  /* the page holds the same JSON as its last element, with "<" written "\u003c" so
   * it cannot end its script */
  snprintf(path, sizeof path, "%s/zc.html", tmpdir);
  char *page = tu_read_file(path, NULL);
  const char *open = "<script type=\"application/json\" id=\"trace-data\">";
  const char *js = strstr(page, open);
  ck_assert_ptr_nonnull(js);
  js += strlen(open);
  for (const char *t = text; *t != '\n'; t++, js++)
    if (*t == '<') {
      ck_assert(strncmp(js, "\\u003c", 6) == 0);
      js += 5;
    } else
      ck_assert_int_eq(*js, *t);
  ck_assert_str_eq(js, "</script>\n</body>\n</html>\n");
  ck_assert_int_eq(vu_count(page, "</script>"), 2);
  free(page);
  free(text);
  ck_assert_int_eq(tu_tssim("trace " RR " --n 2 -o /dev/null/x.json", NULL, &out), 2); /* a file in the path */
  ck_assert_str_eq(out, "tssim: -o /dev/null/x.json: /dev/null is a file, expected a folder\n");
  free(out);
  tu_rmtree(tmpdir);
}
END_TEST

/* The walkthrough's report: `tssim trace S -o FOLDER` exited 3 (an I/O
 * failure) for what is bad usage, and `--html FOLDER -o t.json` wrote
 * t.json, then failed with 3. Every output path is checked before the
 * point runs (exit 2, one line, nothing written), and the two files are
 * written at once or neither (the page failing to write leaves no trace). */
/* `tssim trace RR --n 2 ` + the -o and --html options opts (a format of
 * the paths a, b) must exit with status and write want (a format of a)
 * alone on stderr. */
static void trace_refused(int status, const char *want, const char *opts, const char *a, const char *b)
{
  char args[2048], line[2048], *err;
  snprintf(args, sizeof args, "trace " RR " --n 2 ");
  snprintf(args + strlen(args), sizeof args - strlen(args), opts, a, b);
  snprintf(line, sizeof line, want, a);
  ck_assert_int_eq(tu_tssim(args, NULL, &err), status);
  ck_assert_str_eq(err, line);
  free(err);
}

START_TEST(viz_trace_cli_refuses_bad_output_paths_before_writing)
{
  char t[700], page[700];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  snprintf(t, sizeof t, "%s/t.json", tmpdir);
  snprintf(page, sizeof page, "%s/t.html", tmpdir);
  trace_refused(2, "tssim: -o %s: is a folder, expected a file (the trace)\n", "-o '%s'", tmpdir, NULL);
  trace_refused(2, "tssim: --html %s: is a folder, expected a file (the trace's page)\n", "--html '%s' -o '%s'", tmpdir,
                t);
  trace_refused(2, "tssim: --html %s: is the trace's file too (-o), expected another file\n", "--html '%s' -o '%s'", t,
                t);
  trace_refused(2, "tssim: --html %s//t.json: is the trace's file too (-o), expected another file\n",
                "--html '%s//t.json' -o '%s'", tmpdir, t); /* the same file by another path */
  trace_refused(2, "tssim: -o %s/: expected a file (the trace), not a folder\n", "-o '%s/' --html '%s'", tmpdir, page);
  trace_refused(2, "tssim: --html %s/t.html: /dev/null is a file, expected a folder\n", "--html '%s/t.html' -o '%s'",
                "/dev/null", t);
  struct stat st;
  ck_assert_msg(stat(t, &st) != 0 && stat(page, &st) != 0, "a command that failed wrote an output");
  char *left;
  ck_assert_int_eq(tu_sh(&left, "ls -A '%s'", tmpdir), 0);
  ck_assert_str_eq(left, "");
  free(left);
  tu_rmtree(tmpdir);
}
END_TEST

Suite *viz_trace_suite(void)
{
  Suite *s = suite_create("viz_trace");
  const TTest *const core[] = {viz_timeline_matches_stats, viz_timeline_reports_the_piece_the_horizon_cuts,
                               viz_trace_page_colors_every_state,
                               viz_trace_zero_cache_n4_slices_once_in_order, viz_trace_lock_flows_and_counters,
                               viz_state_worker_past_int16_is_unknown, viz_trace_splits_the_reply_wait_by_the_calls, NULL};
  const TTest *const cli[] = {viz_trace_cli_writes_file, viz_trace_cli_refuses_bad_output_paths_before_writing, NULL};
  const TTest *const errors[] = {viz_timeline_refuses_overflowing_horizon, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 120);
  tu_tcase(s, "cli", cli, NULL, NULL, 120);
  tu_tcase(s, "errors", errors, NULL, NULL, 120);
  return s;
}
