/* Seeing the model: the terminal Gantt chart (tssim gantt), the state names it
 * and the trace give, and the command line the point commands (gantt, trace,
 * explain) share. Scenarios are loaded from the source tree
 * (TSSIM_SOURCE_ROOT); CLI tests run the built binary (TSSIM_BINARY). */
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

/* ---- gantt ---- */

static const char *const rr_sets[] = {"params.c_ms=30", "classes[0].program[0].rows=30"};

static char *render(const ts_timeline *tl, int width, int ascii)
{
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_ptr_nonnull(f);
  ts_gantt_opts o = {.width = width, .ascii = ascii, .max_actors = 32, .title = "rr-wave"};
  ck_assert_int_eq(ts_gantt_render(f, tl, &o), 0);
  fclose(f);
  return buf;
}

/* Round robin, N = 3 actors of C = 30 ms on W = 1 worker, q = 10 ms. By hand:
 *   0-10 a0, 10-20 a1, 20-30 a2, 30-40 a0, 40-50 a1, 50-60 a2, 60-70 a0 (done),
 *   70-80 a1 (done), 80-90 a2 (done); all arrive at 0 as callbacks, so a1 waits
 *   for the loop 0-10 and a2 0-20, then each waits in the queue between slices.
 * One column is 2 ms: a 10 ms slice is 5 columns. */
START_TEST(viz_gantt_rr_wave_matches_hand_drawn_schedule)
{
  ts_loaded L;
  ts_timeline tl;
  vu_record(RR, rr_sets, 2, 3, 1, &L, &tl);
  char *got = render(&tl, 100, 1);
  const char *want =
    "rr-wave: n=3, workers=1: 0 to 90 ms, one column = 2 ms\n"
    "           0         20        40        60        80 ms\n"
    "           +---------+---------+---------+---------+----\n"
    "worker 0  |000001111122222000001111122222000001111122222| busy 100%\n"
    "actor 0   |#####..........#####..........#####          | done 70 ms\n"
    "actor 1   |:::::#####..........#####..........#####     | done 80 ms\n"
    "actor 2   |::::::::::#####..........#####..........#####| done 90 ms\n"
    "workers: 0-9a-zA-Z the actor running (* beyond 61)  ~ loop overhead  blank idle\n"
    "actors:  # running  . queued (time-slice queue)  : callback wait (I/O callback queue)  _ I/O\n"
    "         x lock wait  blank not arrived or done\n"
    "ends:    done T: finished at T\n";
  ck_assert_str_eq(got, want);
  free(got);
  got = render(&tl, 100, 0);
  ck_assert_ptr_nonnull(strstr(got, "\nactor 0   │█████░░░░░░░░░░█████░░░░░░░░░░█████          │ done 70 ms\n"));
  ck_assert_ptr_nonnull(strstr(got, "\nactor 2   │▒▒▒▒▒▒▒▒▒▒█████░░░░░░░░░░█████░░░░░░░░░░█████│ done 90 ms\n"));
  free(got);
  vu_release(&L, &tl);
}
END_TEST

/* Every line fits the width, in characters (not bytes), at any width. */
START_TEST(viz_gantt_fits_width)
{
  static const int widths[] = {60, 80, 100, 137};
  ts_loaded L;
  ts_timeline tl;
  vu_record(ZC, NULL, 0, 4, 1, &L, &tl);
  for (size_t i = 0; i < sizeof widths / sizeof *widths; i++)
    for (int ascii = 0; ascii < 2; ascii++) {
      char *got = render(&tl, widths[i], ascii);
      int col = 0, lines = 0;
      for (const unsigned char *p = (const unsigned char *)got; *p; p++) {
        if (*p == '\n') {
          lines++;
          col = 0;
          continue;
        }
        col += (*p & 0xC0) != 0x80;
        ck_assert_msg(col <= widths[i], "line %d wider than %d", lines + 1, widths[i]);
      }
      ck_assert_int_ge(lines, 3 + 1 + 2 * 4 + 2); /* axis, worker, actor and lock rows, legend */
      free(got);
    }
  ts_gantt_opts o = {.width = TS_GANTT_MIN_WIDTH - 1, .max_actors = 4};
  ck_assert_int_eq(ts_gantt_render(stdout, &tl, &o), -1);
  vu_release(&L, &tl);
}
END_TEST

/* The row of `label` ("worker 3") in chart text, between its bars, into
 * cells (at most cap - 1 of them). */
static void chart_row(const char *chart, const char *label, char *cells, size_t cap)
{
  char key[32];
  snprintf(key, sizeof key, "\n%s ", label);
  const char *r = strstr(chart, key);
  ck_assert_msg(r != NULL, "no row %s in\n%s", label, chart);
  const char *a = strchr(r + 1, '|'), *b = a ? strchr(a + 1, '|') : NULL;
  ck_assert(a && b && (size_t)(b - a - 1) < cap);
  memcpy(cells, a + 1, (size_t)(b - a - 1));
  cells[b - a - 1] = '\0';
}

/* A lecturer's walkthrough: the M/M/3's server threads were drawn as
 * "worker 1..3" ("event loop (CPU)" in the trace, whose metadata said
 * workers: 4 where the command said workers=1), and gantt's actor rows did
 * not say their class. A pool's worker is named by its pool and index, as a
 * thread; the main pool's stay "worker W"; an actor's row names its class
 * when the model has several. */
START_TEST(viz_gantt_rows_name_pool_workers_and_classes)
{
  ts_loaded L;
  ts_timeline tl;
  char *got, name[64];
  size_t len;
  ts_gantt_opts o = {.width = 80, .ascii = 1, .max_actors = 1};
  vu_record("scenarios/examples/rpc-server.json", NULL, 0, 1, 1, &L, &tl);
  /* two classes: an actor's row says its class, as the trace's does */
  ck_assert_str_eq(ts_timeline_actor_name(&tl, 0, name, sizeof name), "actor 0 (batch)");
  ck_assert_int_gt(tl.nworkers, tl.nmain);
  ck_assert_str_eq(ts_timeline_worker_name(&tl, 0, name, sizeof name), "worker 0");
  ck_assert_str_eq(ts_timeline_worker_name(&tl, 1, name, sizeof name), "db 0");
  ck_assert(ts_timeline_worker_is_thread(&tl, 1));
  FILE *f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_ptr_nonnull(strstr(got, "\ndb 0 "));
  ck_assert_ptr_null(strstr(got, "\nworker 1 "));
  ck_assert_ptr_nonnull(strstr(got, "\nactor 0 (batch) "));
  free(got);
  cJSON *tree = ts_trace_build(&tl, NULL);
  const cJSON *od = cJSON_GetObjectItemCaseSensitive(tree, "otherData");
  ck_assert_int_eq((int)vu_num(od, "workers"), 1);
  ck_assert_int_eq((int)vu_num(od, "pool_workers"), tl.nworkers - 1);
  int named = 0;
  const cJSON *ev;
  cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
  {
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (strcmp(vu_str(ev, "name"), "process_name") == 0 && strcmp(vu_str(args, "name"), "db 0") == 0)
      named++;
    if (strcmp(vu_str(ev, "name"), "thread_name") == 0 && (int)vu_num(ev, "pid") == 2)
      ck_assert_str_eq(vu_str(args, "name"), "thread (CPU)");
  }
  ck_assert_int_eq(named, 1);
  cJSON_Delete(tree);
  vu_release(&L, &tl);
  /* a label too long for its column keeps its tail: three threads of a long-named pool stay apart */
  const char *const sets[] = {"pools[0].name=\"database_connection_pool\"", "pools[0].count=3",
                              "servers[0].pool=\"database_connection_pool\""};
  vu_record("scenarios/examples/rpc-server.json", sets, 3, 1, 1, &L, &tl);
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  for (int k = 0; k < 3; k++) {
    char row[64];
    snprintf(row, sizeof row, "\ndatabase_co..tion_pool %d  |", k);
    ck_assert_msg(strstr(got, row) != NULL, "no row \"%s\" in\n%s", row + 1, got);
  }
  free(got);
  vu_release(&L, &tl);
}
END_TEST

/* walk13b: a thread's ready actor waits in its run queue, not an event
 * loop's I/O callback queue: the Gantt legend and the trace name the state
 * "runnable" on thread workers (ts_state_info.thread_name); a chart with both
 * kinds of worker names both; an event loop's stay "callback wait" (the rr
 * wave's legend: viz_gantt_rr_wave_matches_hand_drawn_schedule). mutex.json
 * on one thread: actor 1 waits runnable while actor 0 runs. */
/* The name of actor a's first recorded entry into state; none recorded: of
 * an entry on an unknown worker (named by the actor's home worker). */
static const char *entry_name(const ts_timeline *tl, int a, int state)
{
  for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++)
    if (tl->states[i].state == state)
      return ts_timeline_entry_state_name(tl, &tl->states[i]);
  ts_tl_state e = {.actor = a, .state = (int16_t)state, .worker = -1};
  return ts_timeline_entry_state_name(tl, &e);
}

START_TEST(viz_thread_ready_state_is_runnable)
{
  ts_loaded L;
  ts_timeline tl;
  char *got;
  size_t len;
  ts_gantt_opts o = {.width = 80, .ascii = 1};
  vu_record("scenarios/examples/mutex.json", NULL, 0, 2, 1, &L, &tl);
  ck_assert_str_eq(entry_name(&tl, 1, TS_ACTOR_READY), "runnable");
  ck_assert_str_eq(entry_name(&tl, 1, TS_ACTOR_LOCK_WAIT), "lock wait");
  FILE *f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(got, "  : runnable (run queue)  ") && !strstr(got, "callback wait"), "%s", got);
  free(got);
  cJSON *tree = ts_trace_build(&tl, NULL);
  int runnable = 0;
  const cJSON *ev;
  cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
  {
    ck_assert_str_ne(vu_str(ev, "name"), "callback wait");
    runnable += strcmp(vu_str(ev, "name"), "runnable") == 0;
  }
  ck_assert_int_eq(runnable, 1);
  cJSON_Delete(tree);
  vu_release(&L, &tl);
  /* an event loop and a pool of threads: both names */
  vu_record("scenarios/examples/rpc-server.json", NULL, 0, 1, 1, &L, &tl);
  ck_assert_str_eq(entry_name(&tl, 0, TS_ACTOR_READY), "callback wait");
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(got, ": callback wait (I/O callback queue)  ") && !strstr(got, "runnable"),
                "no actor waited in the db thread's run queue:\n%s", got);
  free(got);
  vu_release(&L, &tl);
}
END_TEST

/* A ready actor is named by the worker it waits on, not its home: two jobs
 * of an event loop hop at once to one thread and run 5 ms there, holding
 * their own lock; the second waits runnable in the thread's run queue (the
 * trace, the chart's legend, explain's rows). With 1 ms of CPU on the loop
 * before the hop, it first waits as a callback on the loop, then runnable
 * on the thread: both names. */
START_TEST(viz_ready_state_named_by_the_worker_it_waits_on)
{
  for (int before = 0; before <= 1; before++) {
    char dir[256], model[1024], path[600], *out;
    snprintf(model, sizeof model,
             "{\"name\": \"hop\", \"pools\": [{\"name\": \"t\", \"kind\": \"thread\", \"count\": 1}],"
             " \"locks\": [{\"name\": \"mine\", \"scope\": \"actor\"}],"
             " \"classes\": [{\"name\": \"job\", \"count\": 2, \"program\": [{\"op\": \"lock\", \"lock\": \"mine\"},"
             " %s{\"op\": \"hop\", \"pool\": \"t\", \"to\": 0}, {\"op\": \"cpu\", \"ms\": 5},"
             " {\"op\": \"unlock\", \"lock\": \"mine\"}]}]}",
             before ? "{\"op\": \"cpu\", \"ms\": 1}, " : "");
    ck_assert_int_eq(tu_run_files("ready-worker", model, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}",
                                  dir, sizeof dir, NULL, NULL),
                     0);
    ck_assert_int_eq(tu_tssimf(&out, NULL, "trace '%s/s.json' -o '%s/t.json'", dir, dir), 0);
    free(out);
    snprintf(path, sizeof path, "%s/t.json", dir);
    char *text = tu_read_file(path, NULL);
    cJSON *tree = cJSON_Parse(text);
    free(text);
    ck_assert_ptr_nonnull(tree);
    int runnable = 0, callback = 0;
    const cJSON *ev;
    cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
    {
      runnable += strcmp(vu_str(ev, "name"), "runnable") == 0;
      callback += strcmp(vu_str(ev, "name"), "callback wait") == 0;
    }
    cJSON_Delete(tree);
    ck_assert_int_eq(runnable, 1);
    ck_assert_int_eq(callback, before);
    ck_assert_int_eq(tu_tssimf(&out, NULL, "gantt '%s/s.json' --ascii --width 80", dir), 0);
    ck_assert_msg(before ? strstr(out, ": callback wait (I/O callback queue) or runnable (run queue)") != NULL
                         : strstr(out, ": runnable (run queue)") && !strstr(out, "callback wait"),
                  "%s", out);
    free(out);
    ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
    const char *rows[][3] = {{"\n    run-queue wait (runnable, thread busy)              2.5 ms   33.3%\n",
                              "\n  while it waited (queue, run queue, lock: 2.5 ms)",
                              "\n    held while runnable                                 2.5 ms\n"},
                             {"\n    ready wait (I/O callbacks, run queues)              2.5 ms   29.4%\n",
                              "\n  while it waited (queue, ready, lock: 2.5 ms)",
                              "\n    held while ready                                      2 ms\n"}};
    for (int i = 0; i < 3; i++)
      ck_assert_msg(strstr(out, rows[before][i]), "missing \"%s\" in:\n%s", rows[before][i], out);
    ck_assert_msg(!strstr(out, "callback wait"), "%s", out);
    free(out);
    tu_rmtree(dir);
  }
}
END_TEST

/* Issue 13: with many actors per column (rr-wave, 125 actors a worker) or
 * more distinct actors in a column than a cell could tally (zero-cache,
 * n = 64 on 4 workers), worker rows were drawn blank ("idle") beside "busy
 * 100%". A worker cell is blank exactly when the worker was idle for more
 * than half of it; actors beyond 61 share '*', drawn or not. */
START_TEST(viz_gantt_worker_rows_show_busy)
{
  ts_loaded L;
  ts_timeline tl;
  char *got, cells[256], label[32];
  ts_gantt_opts o = {.width = 100, .ascii = 1, .max_actors = 2};
  size_t len;
  vu_record(RR, NULL, 0, 1000, 8, &L, &tl);
  FILE *f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  for (int w = 0; w < 8; w++) {
    snprintf(label, sizeof label, "worker %d", w);
    chart_row(got, label, cells, sizeof cells);
    ck_assert_msg(strchr(cells, ' ') == NULL && strchr(cells, '*') != NULL, "%s: \"%s\"", label, cells);
  }
  free(got);
  vu_release(&L, &tl);

  vu_record(ZC, NULL, 0, 64, 4, &L, &tl);
  o.max_actors = 4;
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  const char *col = strstr(got, "one column = ");
  double step_ms;
  ck_assert(col && sscanf(col, "one column = %lf ms", &step_ms) == 1);
  ts_time step = (ts_time)llround(step_ms * TS_NS_PER_MS);
  int nonblank = 0;
  for (int w = 0; w < 4; w++) {
    snprintf(label, sizeof label, "worker %d", w);
    chart_row(got, label, cells, sizeof cells);
    for (int k = 0; cells[k]; k++) {
      ts_time lo = k * step, hi = lo + step < tl.end ? lo + step : tl.end, busy = 0;
      for (size_t i = 0; i < tl.npieces; i++) {
        const ts_tl_piece *p = &tl.pieces[i];
        ts_time a = p->t0 > lo ? p->t0 : lo, b = p->t1 < hi ? p->t1 : hi;
        if (p->worker == w && b > a)
          busy += b - a;
      }
      ck_assert_msg((cells[k] == ' ') == (hi - lo - busy > busy), "%s, column %d: '%c' but busy %lld of %lld ns",
                    label, k, cells[k], (long long)busy, (long long)(hi - lo));
      nonblank += cells[k] != ' ';
    }
  }
  /* most cells busy: workers 0-2 idle only while the harness's batch waits
   * for the clients still connecting on worker 3 */
  ck_assert_int_gt(nonblank, 60);
  free(got);
  vu_release(&L, &tl);
}
END_TEST

/* A caller waiting for a reply: its call's wait in the server's queue (from
 * the request's arrival there to the start of its service, as the run's
 * call records say) is drawn apart from its request and reply legs, and its
 * service in the handler's own states. rpc-server's model (priority_barrier,
 * burst limit 8) with 2 ms request and 3 ms reply legs on the batches: the
 * ten 1 ms reads arrive at the server at 1 ms, before any batch, and are
 * served 1-11; batch 0's request arrives at 2, waits 2-11, is served 11-21
 * and its reply travels 21-24; batch 1 waits 2-21, is served 21-31, its
 * reply 31-34. */
START_TEST(viz_gantt_call_queue_wait_apart_from_legs)
{
  static const char *const legs[] = {"classes[0].program[0].request_ms=2", "classes[0].program[0].reply_ms=3"};
  ts_loaded L;
  ts_timeline tl;
  char *got;
  size_t len;
  ts_gantt_opts o = {.width = 100, .ascii = 1, .max_actors = 2, .to = 40 * TS_NS_PER_MS};
  vu_record("scenarios/examples/rpc-server.json", legs, 2, 1, 1, &L, &tl);
  FILE *f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(got, "\nactor 0 (batch)  |ooqqqqqqqqq##########ooo                |") &&
                    strstr(got, "\nactor 1 (batch)  |ooqqqqqqqqqqqqqqqqqqq##########ooo      |") &&
                    strstr(got, "  q waiting for a reply: queued at the server") &&
                    strstr(got, "  o waiting for a reply: request or reply on the way") &&
                    strstr(got, "\ncalls:   a call waits in the server's queue until the server starts serving it;"),
                "%s", got);
  free(got);
  o.ascii = 0; /* Unicode: the queue wait is a black circle */
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(got, "\nactor 0 (batch)  │◦◦●●●●●●●●●██████████◦◦◦") && strstr(got, "  ● waiting for a reply: "
                "queued at the server"), "%s", got);
  free(got);
  vu_release(&L, &tl);
  /* without legs every wait for a reply is in the queue: no "on the way";
   * batch 0 arrives at 0 and is served at once, 0-10; batch 1 waits behind
   * it and behind the 8 reads the burst limit lets pass it, 0-18 */
  vu_record("scenarios/examples/rpc-server.json", NULL, 0, 1, 1, &L, &tl);
  o.ascii = 1;
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(got, "\nactor 0 (batch)  |##########                              |") &&
                    strstr(got, "\nactor 1 (batch)  |qqqqqqqqqqqqqqqqqq##########            |") &&
                    !strstr(got, "on the way") &&
                    !strstr(got, "|o") && strstr(got, "q waiting for a reply: queued at the server"), "%s", got);
  free(got);
  vu_release(&L, &tl);
}
END_TEST

START_TEST(viz_gantt_cli_options_and_errors)
{
  char *out;
  ck_assert_int_eq(tu_tssim("gantt " RR " --n 3 --workers 1 --set params.c_ms=30 "
                         "--set 'classes[0].program[0].rows=30' --ascii", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "actor 2   |::::::::::#####..........#####..........#####| done 90 ms"));
  free(out);
  ck_assert_int_eq(tu_tssim("gantt " RR " --n 40 --workers 2 --max-actors 5 --ascii", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "(35 more actors not drawn: see --max-actors)"));
  free(out);
  ck_assert_int_eq(tu_tssim("gantt " RR " --width 20", &out, NULL), 2);
  ck_assert_ptr_nonnull(strstr(out, "--width: expected an integer in [60, 10000], got \"20\""));
  free(out);
  ck_assert_int_eq(tu_tssim("gantt " RR " --n 3,4", &out, NULL), 2);
  ck_assert_ptr_nonnull(strstr(out, "--n: expected one integer"));
  free(out);
  ck_assert_int_eq(tu_tssim("gantt " RR " --workers 0", &out, NULL), 2);
  free(out);
  ck_assert_int_eq(tu_tssim("gantt " RR " --seed -1", &out, NULL), 2);
  free(out);
  ck_assert_int_eq(tu_tssim("gantt no-such-scenario.json", &out, NULL), 2);
  ck_assert_ptr_nonnull(strstr(out, "no-such-scenario.json"));
  free(out);
  ck_assert_int_eq(tu_tssim("gantt", &out, NULL), 2);
  free(out);
  ck_assert_int_eq(tu_tssim("gantt --help", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "--ascii"));
  free(out);
  ck_assert_int_eq(tu_tssim("trace " RR " --set worker.no_such_field=1", &out, NULL), 2);
  free(out);
  ck_assert_int_eq(tu_tssim("explain " RR " --bogus", &out, NULL), 2);
  free(out);
}
END_TEST

/* ---- the command line trace, gantt and explain share ---- */

/* `tssim ARGS` exits with status and writes exactly want_err to stderr. */
static void expect_stderr(const char *args, int status, const char *want_err)
{
  char *err;
  ck_assert_int_eq(tu_tssim(args, NULL, &err), status);
  ck_assert_msg(strcmp(err, want_err) == 0, "`%s`: stderr\n%s\nwant\n%s", args, err, want_err);
  free(err);
}

START_TEST(viz_cli_point_usage_and_errors)
{
  static const struct {
    const char *cmd, *stuck;
  } cmds[] = {{"trace", "the trace shows where they stuck"},
              {"gantt", "the chart shows where they stuck"},
              {"explain", "see tssim gantt or tssim trace"}};
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
    const char *cmd = cmds[i].cmd;
    char args[1024], want[512], *out, *err;
    /* one line naming the command and where its options are listed */
    snprintf(args, sizeof args, "%s a.json b.json", cmd);
    snprintf(want, sizeof want, "tssim: %s: expected exactly one SCENARIO.json (see tssim %s --help)\n", cmd, cmd);
    expect_stderr(args, 2, want);
    snprintf(args, sizeof args, "%s --bogus " RR, cmd);
    snprintf(want, sizeof want, "tssim: %s: unknown option, or an option without its value: --bogus (see tssim %s --help)\n",
             cmd, cmd);
    expect_stderr(args, 2, want);
    snprintf(args, sizeof args, "%s --help", cmd);
    ck_assert_int_eq(tu_tssim(args, &out, &err), 0);
    snprintf(want, sizeof want, "usage: tssim %s SCENARIO.json [options]\n", cmd);
    ck_assert_msg(strncmp(out, want, strlen(want)) == 0, "%s", out);
    ck_assert_ptr_nonnull(strstr(out, "--seed S"));
    ck_assert_str_eq(err, "");
    free(out);
    free(err);
    /* bad input: one line */
    snprintf(args, sizeof args, "%s " RR " --n x", cmd);
    expect_stderr(args, 2, "tssim: --n: expected one integer in [1, 1000000], got \"x\"\n");
    snprintf(args, sizeof args, "%s " RR " --seed x", cmd);
    expect_stderr(args, 2, "tssim: --seed: expected an integer in [0, 9007199254740991], got \"x\"\n");
    snprintf(args, sizeof args, "%s " RR " --set params.c_ms=3600000 --set 'classes[0].program[0].rows=1' --n 1000000 --max-events 0",
             cmd);
    expect_stderr(args, 2, "tssim: " RR ": simulated time would pass 73 years (fewer actors or shorter steps)\n");
    /* a deadlock: shown (trace, gantt), then one line naming who waits on what and where to look */
    snprintf(args, sizeof args, "%s tests/data/deadlock.json%s%s%s", cmd, i == 0 ? " -o '" : "", i == 0 ? tmpdir : "",
             i == 0 ? "/d.json'" : "");
    snprintf(want, sizeof want, " (%s)\n", cmds[i].stuck);
    ck_assert_int_eq(tu_tssim(args, NULL, &err), 1);
    size_t len = strlen(err), tail = strlen(want);
    ck_assert_msg(strncmp(err, "tssim: tests/data/deadlock.json: ", 33) == 0 && strchr(err, '\n') == err + len - 1 &&
                      len > tail && strcmp(err + len - tail, want) == 0 &&
                      strstr(err, "ab #0 (actor 0, step classes[0].program[2]): ") &&
                      strstr(err, "ba #0 (actor 1, step classes[1].program[2]): ") && strstr(err, "lock \"a\"") &&
                      strstr(err, "lock \"b\""),
                  "`%s`: stderr\n%s", args, err);
    free(err);
  }
  tu_rmtree(tmpdir);
}
END_TEST

/* Actor rows the horizon stopped end "at horizon", a deadlock's "stuck";
 * the legend says what each ending means. */
START_TEST(viz_gantt_horizon_is_not_stuck)
{
  char *out = vu_closed_loop("\"forever\"", "gantt --ascii");
  ck_assert_msg(strstr(out, "| at horizon\nactor 1 ") && !strstr(out, "stuck") &&
                    strstr(out, "\nends:    at horizon: running or waiting when the run ended\n"),
                "%s", out);
  free(out);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "gantt tests/data/deadlock.json --ascii"), 1);
  ck_assert_msg(strstr(out, "| stuck\n") && !strstr(out, "at horizon") &&
                    strstr(out, "\nends:    stuck: waiting in a deadlock (exit status 1)\n"),
                "%s", out);
  free(out);
}
END_TEST

/* An arrival refused by a full worker (capacity 1: three 1 ms jobs at 0 on
 * one event loop, the first runs, the other two are dropped at once) ends
 * its row "dropped at 0 ms", not "done" (the model marks it done without a
 * done time) nor "at horizon", and the legend says what that means; the
 * job that ran ends "done 1 ms". explain says the drops are why its law
 * does not apply (not "did not finish by the horizon"). */
START_TEST(viz_gantt_dropped_actor_says_dropped)
{
  char dir[512], path[600], *out;
  tu_mkdtemp(dir, sizeof dir, "dropped");
  snprintf(path, sizeof path, "%s/m.json", dir);
  tu_write_file(path, "{\"name\": \"d\", \"worker\": {\"capacity\": 1}, \"classes\": [{\"name\": \"job\", "
                      "\"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}");
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, "{\"name\": \"d\", \"model\": \"m.json\", \"n\": [3], \"workers\": [1]}");
  ck_assert_int_eq(tu_tssimf(&out, NULL, "gantt '%s' --ascii --width 70", path), 0);
  ck_assert_msg(strstr(out, "\nactor 0   |####################| done 1 ms\n"
                            "actor 1   |                    | dropped at 0 ms\n"
                            "actor 2   |                    | dropped at 0 ms\n") &&
                  strstr(out, "\nends:    done T: finished at T\n         dropped at T: arrived at T at a worker "
                              "holding its capacity, and never ran\n") &&
                  !strstr(out, "at horizon"),
                "%s", out);
  free(out);
  /* trace marks their ends "dropped", the job that ran "done" */
  char trace[600];
  snprintf(trace, sizeof trace, "%s/t.json", dir);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "trace '%s' -o '%s'", path, trace), 0);
  free(out);
  out = tu_read_file(trace, NULL);
  int dropped = 0, done = 0;
  for (const char *p = out; (p = strstr(p, "{\"name\":\"dropped\",\"cat\":\"state\",\"ph\":\"i\"")); p++)
    dropped++;
  for (const char *p = out; (p = strstr(p, "{\"name\":\"done\",\"cat\":\"state\",\"ph\":\"i\"")); p++)
    done++;
  ck_assert_msg(dropped == 2 && done == 1, "dropped %d, done %d", dropped, done);
  free(out);
  /* explain's round-robin law says why it does not apply: drops, not the horizon */
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s'", path), 0);
  ck_assert_msg(strstr(out, "does not apply: 2 of the 3 actors were dropped (arrived at a worker holding its "
                            "capacity).\n") &&
                  !strstr(out, "did not finish by the horizon"),
                "%s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* A time window (--from, --to; walkthrough: gantt had none). The round robin
 * of three 30 ms actors in 10 ms slices, by hand: 30-40 a0, 40-50 a1, 50-60
 * a2, 60-70 a0 (done 70), 70-80 a1 (done 80), 80-90 a2 (done 90). From 30 to
 * 60 ms every actor is present; from 75 ms actor 0 (done at 70) is not, and
 * a footnote counts it. The library refuses an empty window; the command
 * line refuses bad values with one line and exit status 2. */
START_TEST(viz_gantt_time_window)
{
  ts_loaded L;
  ts_timeline tl;
  vu_record(RR, rr_sets, 2, 3, 1, &L, &tl);
  ts_gantt_opts o = {.width = 80, .ascii = 1, .max_actors = 32, .title = "rr-wave",
                     .from = 30 * TS_NS_PER_MS, .to = 60 * TS_NS_PER_MS};
  char *buf = NULL;
  size_t len = 0;
  FILE *f = open_memstream(&buf, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(buf, "rr-wave: n=3, workers=1: 30 to 60 ms (the run: 0 to 90 ms), one column = 1 ms\n"
                            "           30        40        50 ms\n"
                            "           +---------+---------+---------\n"
                            "worker 0  |000000000011111111112222222222| busy 100%\n"
                            "actor 0   |##########....................| done 70 ms\n"
                            "actor 1   |..........##########..........| done 80 ms\n"
                            "actor 2   |....................##########| done 90 ms\n"
                            "workers: ") == buf,
                "%s", buf);
  free(buf);
  o.from = 90 * TS_NS_PER_MS; /* the run's end: nothing to draw */
  o.to = 0;
  ck_assert_int_eq(ts_gantt_render(stdout, &tl, &o), -1);
  o.from = 50 * TS_NS_PER_MS;
  o.to = 50 * TS_NS_PER_MS;
  ck_assert_int_eq(ts_gantt_render(stdout, &tl, &o), -1);
  vu_release(&L, &tl);
  char *out;
  ck_assert_int_eq(tu_tssim("gantt " RR " --n 3 --workers 1 --set params.c_ms=30 --set classes[0].program[0].rows=30"
                            " --ascii --width 80 --from 75",
                            &out, NULL),
                   0);
  ck_assert_msg(strstr(out, ": 75 to 90 ms (the run: 0 to 90 ms), one column = 0.5 ms\n") &&
                    strstr(out, "\nworker 0  |111111111122222222222222222222| busy 100%\n"
                                "actor 1   |##########                    | done 80 ms\n"
                                "actor 2   |..........####################| done 90 ms\n"
                                "(1 actor outside the window: not arrived by its end or ended before its start)\n") &&
                    !strstr(out, "actor 0"),
                "%s", out);
  free(out);
  static const struct {
    const char *args, *err;
  } bad[] = {
    {"--from -1", "tssim: --from: expected a number of ms in [0, 1e+12], got \"-1\"\n"},
    {"--from 1ms", "tssim: --from: expected a number of ms in [0, 1e+12], got \"1ms\"\n"},
    {"--to 0", "tssim: --to: expected a number of ms in (0, 1e+12], got \"0\"\n"},
    {"--to 1e13", "tssim: --to: expected a number of ms in (0, 1e+12], got \"1e13\"\n"},
    {"--to nan", "tssim: --to: expected a number of ms in (0, 1e+12], got \"nan\"\n"},
    {"--from 50 --to 40", "tssim: --from 50: expected a time before --to 40 (ms)\n"},
    {"--from 40 --to 40", "tssim: --from 40: expected a time before --to 40 (ms)\n"},
    {"--from 90", "tssim: --from 90: expected a time before the end of the run (90 ms)\n"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
    char args[512];
    snprintf(args, sizeof args, "gantt " RR " --n 3 --workers 1 --set params.c_ms=30 --set classes[0].program[0].rows=30 %s",
             bad[i].args);
    expect_stderr(args, 2, bad[i].err);
  }
  ck_assert_int_eq(tu_tssim("gantt --help", &out, NULL), 0);
  ck_assert_msg(strstr(out, "--from MS") && strstr(out, "--to MS"), "%s", out);
  free(out);
}
END_TEST

/* ---- shared options ---- */

START_TEST(viz_vizopt_defaults_and_errors)
{
  ts_vizopt o;
  ts_err e;
  int ns[] = {8, 16}, ws[] = {2};
  ts_scenario sc = {.ns = ns, .nn = 2, .workers = ws, .nw = 1, .seed = 42};
  ck_assert_int_eq(ts_vizopt_init(&o, 4), 0);
  ck_assert_int_eq(ts_vizopt_resolve(&o, &sc, &e), 0);
  ck_assert_int_eq(o.n, 8);
  ck_assert_int_eq(o.workers, 2);
  ck_assert_int_eq(o.seed, 42);
  ck_assert(ts_vizopt_take(&o, 'n', "3"));
  ck_assert(ts_vizopt_take(&o, 's', "a=1"));
  ck_assert(!ts_vizopt_take(&o, 'x', "?"));
  ck_assert_int_eq(ts_vizopt_resolve(&o, &sc, &e), 0);
  ck_assert_int_eq(o.n, 3);
  ck_assert_int_eq(o.nsets, 1);
  ck_assert(ts_vizopt_take(&o, 'w', "many"));
  ck_assert_int_eq(ts_vizopt_resolve(&o, &sc, &e), -1);
  ck_assert_str_eq(e.msg, "--workers: expected one integer in [1, 4096], got \"many\"");
  ck_assert(ts_vizopt_take(&o, 'w', "1"));
  ck_assert(ts_vizopt_take(&o, 'S', "x"));
  ck_assert_int_eq(ts_vizopt_resolve(&o, &sc, &e), -1);
  ck_assert_str_eq(e.msg, "--seed: expected an integer in [0, 9007199254740991], got \"x\"");
  ts_vizopt_finish(&o);
}
END_TEST

/* A cell shows what filled most of its column, and the legend says so when
 * a cell drawn held more than one thing (idle, not arrived and done are no
 * thing): round robin of 16 actors on
 * rr-wave at the default width, 8 slices a column, shows 8 of them in the
 * worker row. The hand-drawn schedule, one thing a cell, has no such line
 * (viz_gantt_rr_wave_matches_hand_drawn_schedule). */
START_TEST(viz_gantt_legend_says_a_cell_shows_the_most)
{
  char *out;
  ck_assert_int_eq(tu_tssim("gantt scenarios/rr-wave.json", &out, NULL), 0);
  ck_assert_msg(strstr(out, "\ncells:   a cell shows what filled most of its column; what else ran or waited there is "
                            "not drawn"),
                "%.3000s", out);
  free(out);
  /* one job alone: each cell holds the job's run and idle time, nothing else to hide (a review: the line
   * was printed here, idle counted as a second thing) */
  ck_assert_int_eq(tu_tssim("gantt scenarios/examples/mm1.json --set 'classes[0].count=1'", &out, NULL), 0);
  ck_assert_msg(!strstr(out, "\ncells:"), "%.3000s", out);
  free(out);
}
END_TEST

Suite *viz_gantt_suite(void)
{
  Suite *s = suite_create("viz_gantt");
  const TTest *const core[] = {viz_gantt_rr_wave_matches_hand_drawn_schedule, viz_gantt_fits_width,
                               viz_gantt_worker_rows_show_busy, viz_gantt_rows_name_pool_workers_and_classes,
                               viz_gantt_call_queue_wait_apart_from_legs,
                               viz_thread_ready_state_is_runnable, viz_vizopt_defaults_and_errors, NULL};
  const TTest *const cli[] = {viz_gantt_cli_options_and_errors, viz_ready_state_named_by_the_worker_it_waits_on,
                              viz_gantt_horizon_is_not_stuck, viz_gantt_dropped_actor_says_dropped,
                              viz_gantt_time_window, viz_gantt_legend_says_a_cell_shows_the_most,
                              viz_cli_point_usage_and_errors, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 120);
  tu_tcase(s, "cli", cli, NULL, NULL, 120);
  return s;
}
