/* Seeing the model: recorded timelines, Chrome traces, the terminal Gantt
 * chart, tssim explain and the plots. Scenarios are loaded from the source
 * tree (TSSIM_SOURCE_ROOT); CLI tests run the built binary (TSSIM_BINARY). */
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

#define RR "scenarios/rr-wave.json"
#define ZC "scenarios/zero-cache-wave.json"
#define LOCK "tests/data/viz-lock-scenario.json"

/* Load a scenario of the source tree with overrides and record (n, workers)
 * exactly as the commands do (replication 0 of the scenario's seed). */
static void record(const char *scenario, const char *const *sets, int nsets, int n, int workers, ts_loaded *L,
                   ts_timeline *tl)
{
  char *path = tu_source_path(scenario);
  ck_assert_int_eq(ts_cli_load(path, sets, nsets, L), 0);
  free(path);
  int rc = ts_timeline_record(tl, &L->model, n, workers, ts_rng_derive_seed(L->sc.seed, n, workers, 0),
                              L->sc.horizon, 0);
  ck_assert_msg(rc == 0, "%s", ts_timeline_strerror(tl, rc));
}

static void release(ts_loaded *L, ts_timeline *tl)
{
  ts_timeline_finish(tl);
  ts_cli_unload(L);
}

static char tmpdir[512];

static double num(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  ck_assert_msg(cJSON_IsNumber(v), "missing number %s", key);
  return v->valuedouble;
}

static const char *str(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

/* ---- timeline ---- */

START_TEST(viz_timeline_matches_stats)
{
  ts_loaded L;
  ts_timeline tl;
  record(LOCK, NULL, 0, 4, 2, &L, &tl);
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
  release(&L, &tl);
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
  release(&L, &tl);
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
    const char *ph = str(e, "ph");
    ck_assert_int_eq(strlen(ph), 1);
    ck_assert(strchr("XMCbesfi", ph[0]) != NULL);
    int pid = (int)num(e, "pid"), tid = (int)num(e, "tid");
    ck_assert_int_ge(pid, 1);
    ck_assert_int_le(pid, tl->nworkers);
    ck_assert(num(e, "ts") >= 0);
    if (ph[0] == 'M' && strcmp(str(e, "name"), "process_name") == 0)
      named++;
    if (ph[0] == 'X') {
      ck_assert(num(e, "dur") >= 0);
      const char *cat = str(e, "cat");
      if (tid == pid && (strcmp(cat, "run") == 0 || strcmp(cat, "loop") == 0))
        loop[nloop++] = e;
    }
  }
  ck_assert_int_eq(named, tl->nworkers);
  for (int i = 1; i < nloop; i++) { /* insertion sort by ts (stable) */
    const cJSON *x = loop[i];
    int j = i - 1;
    while (j >= 0 && num(loop[j], "ts") > num(x, "ts")) {
      loop[j + 1] = loop[j];
      j--;
    }
    loop[j + 1] = x;
  }
  for (int i = 0; i < nloop; i++) {
    const cJSON *x = loop[i];
    int w = (int)num(x, "pid") - 1;
    double ts = num(x, "ts"), dur = num(x, "dur");
    ck_assert_msg(ts >= last_end[w] - 1e-6, "overlap on worker %d at %.3f us", w, ts);
    last_end[w] = ts + dur;
    if (strcmp(str(x, "cat"), "run") != 0)
      continue;
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(x, "args");
    int a = (int)num(args, "actor");
    ck_assert_int_eq(tl->stats[a].worker, w);
    cpu[a] += dur;
    if (cJSON_GetObjectItemCaseSensitive(args, "slice")) {
      int64_t s = (int64_t)num(args, "slice");
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
  free(page);
  free(path);
}
END_TEST

START_TEST(viz_trace_zero_cache_n4_slices_once_in_order)
{
  ts_loaded L;
  ts_timeline tl;
  record(ZC, NULL, 0, 4, 1, &L, &tl);
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
  ck_assert_str_eq(str(cJSON_GetObjectItemCaseSensitive(parsed, "otherData"), "scenario"), "zero-cache-wave");
  cJSON_Delete(parsed);
  cJSON_free(text);
  release(&L, &tl);
}
END_TEST

START_TEST(viz_trace_lock_flows_and_counters)
{
  ts_loaded L;
  ts_timeline tl;
  record(LOCK, NULL, 0, 4, 2, &L, &tl);
  cJSON *tree = ts_trace_build(&tl, NULL);
  ck_assert_ptr_nonnull(tree);
  check_trace(tree, &tl);
  int begins = 0, ends = 0, starts = 0, finishes = 0, counters = 0;
  const cJSON *e;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
  {
    char ph = str(e, "ph")[0];
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
  release(&L, &tl);
}
END_TEST

static int count(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

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
  ck_assert_int_eq((int)num(cJSON_GetObjectItemCaseSensitive(tree, "otherData"), "n"), 4);
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
  ck_assert_int_eq(count(page, "</script>"), 2);
  free(page);
  free(text);
  ck_assert_int_eq(tu_tssim("trace " RR " --n 2 -o /dev/null/x.json", &out, NULL), 3); /* I/O failure */
  ck_assert_ptr_nonnull(strstr(out, "/dev/null"));
  free(out);
  tu_rmtree(tmpdir);
}
END_TEST

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
  record(RR, rr_sets, 2, 3, 1, &L, &tl);
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
  release(&L, &tl);
}
END_TEST

/* Every line fits the width, in characters (not bytes), at any width. */
START_TEST(viz_gantt_fits_width)
{
  static const int widths[] = {60, 80, 100, 137};
  ts_loaded L;
  ts_timeline tl;
  record(ZC, NULL, 0, 4, 1, &L, &tl);
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
  release(&L, &tl);
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
  record("scenarios/examples/rpc-server.json", NULL, 0, 1, 1, &L, &tl);
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
  ck_assert_int_eq((int)num(od, "workers"), 1);
  ck_assert_int_eq((int)num(od, "pool_workers"), tl.nworkers - 1);
  int named = 0;
  const cJSON *ev;
  cJSON_ArrayForEach(ev, cJSON_GetObjectItemCaseSensitive(tree, "traceEvents"))
  {
    const cJSON *args = cJSON_GetObjectItemCaseSensitive(ev, "args");
    if (strcmp(str(ev, "name"), "process_name") == 0 && strcmp(str(args, "name"), "db 0") == 0)
      named++;
    if (strcmp(str(ev, "name"), "thread_name") == 0 && (int)num(ev, "pid") == 2)
      ck_assert_str_eq(str(args, "name"), "thread (CPU)");
  }
  ck_assert_int_eq(named, 1);
  cJSON_Delete(tree);
  release(&L, &tl);
  /* a label too long for its column keeps its tail: three threads of a long-named pool stay apart */
  const char *const sets[] = {"pools[0].name=\"database_connection_pool\"", "pools[0].count=3",
                              "servers[0].pool=\"database_connection_pool\""};
  record("scenarios/examples/rpc-server.json", sets, 3, 1, 1, &L, &tl);
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  for (int k = 0; k < 3; k++) {
    char row[64];
    snprintf(row, sizeof row, "\ndatabase_co..tion_pool %d  |", k);
    ck_assert_msg(strstr(got, row) != NULL, "no row \"%s\" in\n%s", row + 1, got);
  }
  free(got);
  release(&L, &tl);
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
  record("scenarios/examples/mutex.json", NULL, 0, 2, 1, &L, &tl);
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
    ck_assert_str_ne(str(ev, "name"), "callback wait");
    runnable += strcmp(str(ev, "name"), "runnable") == 0;
  }
  ck_assert_int_eq(runnable, 1);
  cJSON_Delete(tree);
  release(&L, &tl);
  /* an event loop and a pool of threads: both names */
  record("scenarios/examples/rpc-server.json", NULL, 0, 1, 1, &L, &tl);
  ck_assert_str_eq(entry_name(&tl, 0, TS_ACTOR_READY), "callback wait");
  f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  ck_assert_msg(strstr(got, ": callback wait (I/O callback queue)  ") && !strstr(got, "runnable"),
                "no actor waited in the db thread's run queue:\n%s", got);
  free(got);
  release(&L, &tl);
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
      runnable += strcmp(str(ev, "name"), "runnable") == 0;
      callback += strcmp(str(ev, "name"), "callback wait") == 0;
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
  record(RR, NULL, 0, 1000, 8, &L, &tl);
  FILE *f = open_memstream(&got, &len);
  ck_assert_int_eq(ts_gantt_render(f, &tl, &o), 0);
  fclose(f);
  for (int w = 0; w < 8; w++) {
    snprintf(label, sizeof label, "worker %d", w);
    chart_row(got, label, cells, sizeof cells);
    ck_assert_msg(strchr(cells, ' ') == NULL && strchr(cells, '*') != NULL, "%s: \"%s\"", label, cells);
  }
  free(got);
  release(&L, &tl);

  record(ZC, NULL, 0, 64, 4, &L, &tl);
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
  release(&L, &tl);
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

/* ---- explain ---- */

START_TEST(viz_explain_rr_closed_form_exact)
{
  static const struct {
    int n, workers;
    ts_time last_ms;
  } pts[] = {{16, 1, 6400}, {20, 3, 2800}, {1, 1, 400}, {1000, 8, 50000}};
  for (size_t i = 0; i < sizeof pts / sizeof *pts; i++) {
    ts_loaded L;
    ts_timeline tl;
    ts_explain_rr r;
    record(RR, NULL, 0, pts[i].n, pts[i].workers, &L, &tl);
    ck_assert_int_eq(ts_explain_rr_check(&tl, &r), 0);
    ck_assert(r.applies);
    ck_assert_int_eq(r.slices, 40);
    ck_assert_int_eq(r.quantum, 10 * TS_NS_PER_MS);
    ck_assert(r.equal_slices);
    ck_assert_int_eq(r.matched, pts[i].n);
    ck_assert_int_eq(r.total, pts[i].n);
    ck_assert_int_eq(r.last_pred, pts[i].last_ms * TS_NS_PER_MS);
    ck_assert_int_eq(r.last_sim, r.last_pred);
    release(&L, &tl);
  }
}
END_TEST

/* Unequal slices: C = 25 ms in 1 ms rows is cut 10 + 10 + 5; the formula
 * with the last slice s = 5 ms still predicts every completion. */
START_TEST(viz_explain_rr_unequal_last_slice)
{
  static const char *const sets[] = {"params.c_ms=25", "classes[0].program[0].rows=25"};
  ts_loaded L;
  ts_timeline tl;
  ts_explain_rr r;
  record(RR, sets, 2, 5, 2, &L, &tl);
  ck_assert_int_eq(ts_explain_rr_check(&tl, &r), 0);
  ck_assert(r.applies);
  ck_assert(!r.equal_slices);
  ck_assert_int_eq(r.slices, 3);
  ck_assert_int_eq(r.last_slice, 5 * TS_NS_PER_MS);
  ck_assert_int_eq(r.matched, 5);
  ck_assert_int_eq(r.last_sim, 3 * 25 * TS_NS_PER_MS);
  release(&L, &tl);
}
END_TEST

START_TEST(viz_explain_rr_report_states_the_law)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain " RR " --n 16 --workers 1", &out, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "C = 400 ms of CPU per actor in S = ceil(C/q) = 40 slices of q = 10 ms"));
  ck_assert_ptr_nonnull(strstr(out, "finishes at ((S-1)*m + i + 1)*q"));
  ck_assert_ptr_nonnull(strstr(out, "last completion ceil(N/W)*C = 16*400 = 6400 ms; simulated 6400 ms: exact"));
  ck_assert_ptr_nonnull(strstr(out, "all 16 match the formula exactly (first 6250 ms, last 6400 ms)"));
  ck_assert_ptr_nonnull(strstr(out, "mean completion: limit 6400 ms, simulated 6325 ms (75 ms earlier)"));
  ck_assert_ptr_nonnull(strstr(out, "own CPU (running)                                   400 ms"));
  free(out);
}
END_TEST

/* The accounting identities hold exactly, actor by actor. */
/* explain's time-slice queue section against round robin by hand: 8 actors
 * of 3 slices of 10 ms on one worker yield 16 times; the first round finds
 * 0..7 waiting, the second 7 each: mean (28 + 56) / 16 = 5.25, most 7, and
 * every yield waits 7 slices (70 ms). */
START_TEST(viz_explain_queue_matches_round_robin)
{
  char *out = NULL;
  ck_assert_int_eq(tu_tssim("explain " RR " --n 8 --set params.c_ms=30 --set 'classes[0].program[0].rows=30'", &out,
                            NULL),
                   0);
  ck_assert_msg(strstr(out, "\ntime-slice queue (the whole run)"), "%s", out);
  ck_assert_msg(strstr(out, "\n  0             16                      5.25              7                  70.000\n"), "%s",
                out);
  free(out);
}
END_TEST

START_TEST(viz_explain_accounting_is_exact)
{
  static const char *const scen[] = {ZC, LOCK, RR};
  for (size_t k = 0; k < 3; k++) {
    ts_loaded L;
    ts_timeline tl;
    record(scen[k], NULL, 0, 4, k == 1 ? 2 : 1, &L, &tl);
    ts_explain_actor *x = calloc((size_t)tl.nactors, sizeof *x);
    ck_assert_int_eq(ts_explain_account(&tl, x), 0);
    for (int a = 0; a < tl.nactors; a++) {
      ts_time sum = 0;
      for (int s = 0; s <= TS_ACTOR_DONE; s++)
        sum += x[a].state[s];
      ck_assert_int_eq(sum, x[a].wave);
      ck_assert_int_eq(x[a].wave, x[a].worker_busy + x[a].state[TS_ACTOR_IO] + x[a].state[TS_ACTOR_SLEEP] -
                                     x[a].io_busy - x[a].sleep_busy - x[a].outside + x[a].wait_idle +
                                     x[a].other_gap);
      ck_assert_int_eq(x[a].wait_others + x[a].wait_loop + x[a].wait_idle,
                       x[a].state[TS_ACTOR_QUEUED] + x[a].state[TS_ACTOR_READY] + x[a].state[TS_ACTOR_LOCK_WAIT]);
      ck_assert_int_le(x[a].held[TS_ACTOR_QUEUED], x[a].state[TS_ACTOR_QUEUED]);
    }
    free(x);
    release(&L, &tl);
  }
}
END_TEST

START_TEST(viz_explain_zero_cache_names_terms)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain " ZC " --n 4", &out, NULL), 0);
  static const char *const terms[] = {
    "own CPU (running)", "queue wait (time-slice queue)", "I/O-callback wait", "I/O (off CPU)", "lock wait",
    "held while descheduled", "held while queued",
    "does not apply: the program has repeat, io, add, if, wait, notify, lock, yield and unlock steps, not only CPU.",
    "wave(N) ~ m*(queued CPU + loop CPU) + overlappable latency", "queued CPU (time-sliced steps)",
    "loop CPU (other steps + share of overhead)", "overlappable latency", "from n=1",
    "worker busy while the actor was in I/O (latency hidden)", "= simulated - law",
    "the model prices CPU by load"};
  for (size_t i = 0; i < sizeof terms / sizeof *terms; i++)
    ck_assert_msg(strstr(out, terms[i]) != NULL, "missing \"%s\" in:\n%s", terms[i], out);
  free(out);
}
END_TEST

/* Open arrivals (poisson, or count forever) are no closed wave: explain
 * gives no m and no law, says why, and names the queues the arrivals wait
 * in (a server's, the event loop's callbacks); a class arriving at once
 * beside an open one keeps its law. */
START_TEST(viz_explain_open_arrivals_have_no_wave_law)
{
  char dir[256], cmd[600], *out;
  const char *model =
      "{\"name\": \"o\", \"worker\": {\"policy\": \"strict_priority\"},"
      " \"pools\": [{\"name\": \"srv\", \"kind\": \"thread\", \"count\": 3}],"
      " \"servers\": [{\"name\": \"desk\", \"pool\": \"srv\", \"concurrency\": 3}],"
      " \"classes\": [{\"name\": \"customer\", \"count\": \"forever\","
      " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": 2400},"
      " \"program\": [{\"op\": \"call\", \"server\": \"desk\", \"handler\": [{\"op\": \"cpu\", \"ms\": 1,"
      " \"dist\": \"exponential\"}]}]}]}";
  ck_assert_int_eq(tu_run_files("explain-open", model,
                                "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1], \"horizon_ms\": 1000}", dir,
                                sizeof dir, NULL, NULL),
                   0);
  snprintf(cmd, sizeof cmd, "explain %s/s.json", dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, NULL), 0);
  static const char *const terms[] = {
    "model o: strict_priority time-slice queue,",
    "  server desk: fifo queue of calls, 3 in service at once, on pool srv (threads)\n",
    "open arrivals (count forever, poisson 2400/s): no m, the actors do not start together\n",
    "does not apply: open arrivals (class customer: count forever, poisson 2400/s), not all at one instant.\n",
    "wave law (wave(N) ~ m*(queued CPU + loop CPU) + latency): does not apply: open arrivals\n"
    "  (class customer: count forever, poisson 2400/s).\n",
    "  - server desk (pool srv): calls wait in its fifo queue for one of 3 places in service;\n",
    "no step yields, so the strict_priority time-slice queue stays empty and orders nothing\n"};
  for (size_t i = 0; i < sizeof terms / sizeof *terms; i++)
    ck_assert_msg(strstr(out, terms[i]) != NULL, "missing \"%s\" in:\n%s", terms[i], out);
  ck_assert_msg(!strstr(out, "m (actors on its worker)") && !strstr(out, "m = "), "%s", out);
  free(out);
  tu_rmtree(dir);
  /* beside an open class, one whose n actors arrive at once keeps its law */
  model = "{\"name\": \"o\", \"classes\": [{\"name\": \"wave\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\","
          " \"ms\": 5}]}, {\"name\": \"tick\", \"count\": \"forever\", \"arrival\": {\"kind\": \"periodic\","
          " \"period_ms\": 7}, \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}";
  ck_assert_int_eq(tu_run_files("explain-open", model,
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [4], \"workers\": [1],"
                                " \"horizon_ms\": 100}",
                                dir, sizeof dir, NULL, NULL),
                   0);
  snprintf(cmd, sizeof cmd, "explain %s/s.json", dir);
  ck_assert_int_eq(tu_tssim(cmd, &out, NULL), 0);
  ck_assert_msg(strstr(out, "\nwave law for class wave: wave(N) ~ m*(queued CPU + loop CPU) + overlappable latency\n") &&
                    strstr(out, "\nwave law for class tick: does not apply: open arrivals (count forever, periodic every "
                                "7 ms): its actors do not start together\n"),
                "%s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* An open model's queues against queueing theory: M/M/1 at load 0.5 on one
 * event loop (Pollaczek-Khinchine: rho / (mu (1 - rho)) = 1 ms), M/M/4 at
 * load 0.8 behind a server of 4 threads (Erlang C: P(wait) = 0.5964, mean
 * wait 0.5964 / (4 (1 - 0.8)) = 0.7455 ms), each beside its simulated mean
 * wait; round-robin dispatch onto busy threads and sliced demands keep rho
 * but say why no closed form applies. */
START_TEST(viz_explain_open_queue_theory)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mm1.json", &out, NULL), 0);
  const char *mm1 = "\nqueueing theory (from the declared arrivals and service distributions; simulated: this run):\n"
                    "  - the main pool's event loops (I/O-callback queue): class job, Poisson 500/s, service E[S] = 1 ms"
                    " (exponential, cv 1)\n    rho = lambda E[S] / c = 0.5 with c = 1 server\n"
                    "    M/G/1 (Poisson arrivals, one server, first come first served): Pollaczek-Khinchine\n"
                    "    mean wait lambda E[S^2] / (2 (1 - rho)) = 1 ms; simulated ";
  const char *at = strstr(out, mm1);
  ck_assert_msg(at, "%s", out);
  double sim = atof(at + strlen(mm1));
  ck_assert_msg(fabs(sim - 1) < 0.1, "simulated %g ms, Pollaczek-Khinchine 1 ms", sim);
  ck_assert_ptr_nonnull(strstr(at, " ms (mean of 20000 jobs)\n"));
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mmc-pool.json", &out, NULL), 0);
  const char *mmc = "  - server db (fifo queue of calls): class request, Poisson 3200/s, service E[S] = 1 ms"
                    " (exponential, cv 1)\n    rho = lambda E[S] / c = 0.8 with c = 4 servers\n"
                    "    M/M/4 (Poisson arrivals, exponential service, first come first served): Erlang C\n"
                    "    P(wait) = 0.5964, mean wait P(wait) E[S] / (c (1 - rho)) = 0.7455 ms; simulated ";
  at = strstr(out, mmc);
  ck_assert_msg(at, "%s", out);
  sim = atof(at + strlen(mmc));
  ck_assert_msg(fabs(sim - 0.7455) < 0.1, "simulated %g ms, Erlang C 0.7455 ms", sim);
  ck_assert_msg(!strstr(out, "main pool's event loops (I/O-callback queue)"), "the callers only wait there:\n%s", out);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/mmc-pool.json --axis dispatch=round_robin", &out, NULL), 0);
  ck_assert_msg(strstr(out, "rho = lambda E[S] / c = 0.8 with c = 4 servers\n    mean wait: does not apply: admitted "
                            "calls go to the next worker in turn (dispatch round_robin), busy or not\n"),
                "%s", out);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/round-robin.json", &out, NULL), 0);
  ck_assert_msg(strstr(out, "  - the main pool's event loops (I/O-callback queue): does not apply: a sliced cpu step "
                            "yields: round robin, not first come first served\n"),
                "%s", out);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/round-robin.json --axis slicing=none", &out, NULL), 0);
  ck_assert_msg(strstr(out, "service E[S] = 1 ms (lognormal, cv 2)\n") &&
                    strstr(out, "mean wait lambda E[S^2] / (2 (1 - rho)) = 2.5 ms; simulated "),
                "%s", out);
  free(out);
  /* CPU on the loop, then a call: each queue has its load, neither a closed form */
  char dir[256];
  ck_assert_int_eq(tu_run_files("theory", "{\"name\": \"cm\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\","
                                " \"count\": 2}], \"servers\": [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": 2}],"
                                " \"classes\": [{\"name\": \"r\", \"count\": 300, \"arrival\": {\"kind\": \"poisson\","
                                " \"rate_per_s\": 500}, \"program\": [{\"op\": \"cpu\", \"ms\": 0.5, \"dist\": \"exponential\"},"
                                " {\"op\": \"call\", \"server\": \"db\", \"handler\": [{\"op\": \"cpu\", \"ms\": 1,"
                                " \"dist\": \"exponential\"}]}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}", dir, sizeof dir, NULL, NULL),
                   0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  ck_assert_msg(strstr(out, "    rho = lambda E[S] / c = 0.25 with c = 1 server\n    mean wait: does not apply: its actors "
                            "come back from their calls to server db and queue again\n") &&
                    strstr(out, "    rho = lambda E[S] / c = 0.25 with c = 2 servers\n    mean wait: does not apply: "
                                "the calls come after CPU on the callers' workers, so they do not arrive as Poisson\n"),
                "%s", out);
  free(out);
  tu_rmtree(dir);
  /* a class placed on pool db (4 threads) is that pool's queue, c = 4 (it was the main pool's, c = 1: rho
   * 3.2); at 5000/s rho >= 1 is said before why no closed form applies (review14b items 2, 3) */
  for (int r = 0; r < 2; r++) {
    char model[600];
    snprintf(model, sizeof model,
             "{\"name\": \"pooled\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\", \"count\": 4}],"
             " \"classes\": [{\"name\": \"job\", \"count\": 400, \"placement\": {\"pool\": \"db\"},"
             " \"arrival\": {\"kind\": \"poisson\", \"rate_per_s\": %d},"
             " \"program\": [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}",
             r ? 5000 : 3200);
    ck_assert_int_eq(tu_run_files("theory", model, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}", dir,
                                  sizeof dir, NULL, NULL),
                     0);
    ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
    ck_assert_msg(strstr(out, r ? "  - pool db's threads (run queue): class job, Poisson 5000/s, service E[S] = 1 ms "
                                  "(exponential, cv 1)\n    rho = lambda E[S] / c = 1.25 with c = 4 servers\n    rho >= 1: "
                                  "the queue grows without bound, so no steady-state mean wait\n    mean wait: does not "
                                  "apply: 4 workers, each with its own queue"
                                : "  - pool db's threads (run queue): class job, Poisson 3200/s, service E[S] = 1 ms "
                                  "(exponential, cv 1)\n    rho = lambda E[S] / c = 0.8 with c = 4 servers\n    mean wait: "
                                  "does not apply: 4 workers, each with its own queue"),
                  "%s", out);
    free(out);
    tu_rmtree(dir);
  }
  /* a server of concurrency 8 on 4 threads: 4 in service at once, c = 4 (it said c = 8, rho 0.4) */
  ck_assert_int_eq(tu_run_files("theory", "{\"name\": \"c8\", \"pools\": [{\"name\": \"db\", \"kind\": \"thread\","
                                " \"count\": 4}], \"servers\": [{\"name\": \"db\", \"pool\": \"db\", \"concurrency\": 8}],"
                                " \"classes\": [{\"name\": \"r\", \"count\": 400, \"arrival\": {\"kind\": \"poisson\","
                                " \"rate_per_s\": 3200}, \"program\": [{\"op\": \"call\", \"server\": \"db\", \"handler\":"
                                " [{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"exponential\"}]}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1]}", dir, sizeof dir, NULL, NULL),
                   0);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  ck_assert_msg(strstr(out, "    rho = lambda E[S] / c = 0.8 with c = 4 servers\n    mean wait: does not apply: 8 in "
                            "service at once on 4 workers"),
                "%s", out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* A window that ends before the work begins is not a deadlock: viewers
 * wait on a channel for a publisher that arrives at 10 ms; with a 5 ms
 * horizon the publisher's arrival lies past it, so the run ends at the
 * horizon (it was "stuck", exit 1) and explain says the window ended first.
 * A 20 ms horizon lets it notify them all; a publisher that never notifies
 * leaves them stuck whatever the horizon, even when another class (cron, at
 * 500 ms) arrives past it (c = 3: that cut arrival turned the deadlock into
 * exit 0, review14b); c = 4: the notifying publisher and cron both cut. */
START_TEST(viz_explain_window_ends_before_the_work_is_not_stuck)
{
  for (int c = 0; c < 5; c++) {
    char dir[256], model[1024], scen[200], *out, *err;
    snprintf(model, sizeof model,
             "{\"name\": \"late\", \"channels\": [{\"name\": \"frames\", \"scope\": \"shared\"}],"
             " \"classes\": [{\"name\": \"publisher\", \"count\": 1, \"arrival\": {\"kind\": \"at\", \"start_ms\": 10},"
             " \"program\": [{\"op\": \"cpu\", \"ms\": 1}%s]},"
             " {\"name\": \"viewer\", \"count\": 2, \"program\": [{\"op\": \"wait\", \"channel\": \"frames\"},"
             " {\"op\": \"cpu\", \"ms\": 1}]}%s]}",
             c < 2 || c == 4 ? ", {\"op\": \"notify\", \"channel\": \"frames\"}" : "",
             c >= 3 ? ", {\"name\": \"cron\", \"count\": 1, \"arrival\": {\"kind\": \"at\", \"start_ms\": 500},"
                      " \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}"
                    : "");
    snprintf(scen, sizeof scen, "{\"name\": \"s\", \"model\": \"m.json\", \"workers\": [1], \"horizon_ms\": %d}",
             c == 0 || c == 4 ? 5 : 20);
    tu_run_files("late", model, scen, dir, sizeof dir, NULL, NULL);
    int rc = tu_tssimf(&out, &err, "explain '%s/s.json'", dir);
    if (c == 0 || c == 4) {
      ck_assert_msg(rc == 0, "%s", err);
      ck_assert_msg(strstr(out, "\nclass publisher: 1 actor\n  none arrived by the horizon (5 ms): the window ended "
                                "before their work began, nothing is stuck\n"),
                    "%s", out);
      ck_assert_msg(strstr(out, "\nclass viewer: 2 actors\n  none finished by the horizon"), "%s", out);
      ck_assert_msg(c == 0 || strstr(out, "\nclass cron: 1 actor\n  none arrived by the horizon (5 ms)"), "%s", out);
    } else if (c == 1) {
      ck_assert_msg(rc == 0 && strstr(out, "\nclass viewer: 2 actors, m = 3"), "%s%s", out, err);
    } else {
      ck_assert_msg(rc == 1 && strstr(err, "waiting on a channel \"frames\""), "exit %d: %s%s", rc, out, err);
    }
    free(out);
    free(err);
    if (c == 0) { /* the chart: the viewers at the horizon, the publisher not arrived */
      ck_assert_int_eq(tu_tssimf(&out, NULL, "gantt '%s/s.json' --ascii", dir), 0);
      ck_assert_msg(!strstr(out, "stuck") && strstr(out, "| not arrived\n") && strstr(out, "| at horizon\n"), "%s", out);
      free(out);
    }
    tu_rmtree(dir);
  }
}
END_TEST

/* The wave law is refused for what a run did, not for what its model could
 * do: a hop class of count 0 never hops. */
START_TEST(viz_explain_law_refused_only_for_hops_that_happen)
{
  for (int hoppers = 0; hoppers <= 1; hoppers++) {
    char dir[256], model[1024], cmd[600], *out;
    snprintf(model, sizeof model,
             "{\"name\": \"h\", \"worker\": {\"threshold_ms\": 10},"
             " \"classes\": [{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 5}]},"
             " {\"name\": \"mover\", \"count\": %d, \"program\": [{\"op\": \"hop\", \"to\": 0, \"ms\": 0.1},"
             " {\"op\": \"cpu\", \"ms\": 1}]}]}",
             hoppers);
    ck_assert_int_eq(tu_run_files("explain-hop", model, "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 2], \"workers\": [2]}",
                                  dir, sizeof dir, NULL, NULL),
                     0);
    snprintf(cmd, sizeof cmd, "explain %s/s.json --n 2", dir);
    ck_assert_int_eq(tu_tssim(cmd, &out, NULL), 0);
    int refused = strstr(out, "does not apply: the actors hop between workers") != NULL;
    ck_assert_msg(refused == hoppers, "hoppers %d:\n%s", hoppers, out);
    free(out);
    tu_rmtree(dir);
  }
}
END_TEST

/* A closed loop (walkthrough): clients that think (sleep) and compute
 * (cpu) in a repeat, `count` times ("forever": a 400 ms horizon stops them),
 * 4 on one worker. Runs `tssim CMD DIR/s.json`, checks it exits 0 and
 * returns its standard output (caller frees). */
static char *closed_loop(const char *count, const char *cmd)
{
  char dir[512], path[600], model[800], *out;
  tu_mkdtemp(dir, sizeof dir, "closed");
  snprintf(model, sizeof model,
           "{\"name\": \"closed\", \"classes\": [{\"name\": \"client\", \"count\": \"n\", \"program\": ["
           "{\"op\": \"repeat\", \"count\": %s, \"steps\": [{\"op\": \"sleep\", \"ms\": 50, \"dist\": \"exponential\"},"
           " {\"op\": \"cpu\", \"ms\": 10, \"dist\": \"exponential\"}]}]}]}",
           count);
  snprintf(path, sizeof path, "%s/m.json", dir);
  tu_write_file(path, model);
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, strstr(count, "forever")
                          ? "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [4], \"workers\": [1], \"horizon_ms\": 400}"
                          : "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [4], \"workers\": [1]}");
  ck_assert_int_eq(tu_tssimf(&out, NULL, "%s '%s/s.json'", cmd, dir), 0);
  tu_rmtree(dir);
  return out;
}

/* No actor finished by the horizon: each class says so, then what its
 * actors did from their arrival to the end of the run (each state's mean per
 * actor, adding up to the run), and the report ends there (no closed form,
 * no law of a wave that never ended). */
START_TEST(viz_explain_no_wave_says_what_the_class_did)
{
  char *out = closed_loop("\"forever\"", "explain");
  const char *line = "\n  none finished by the horizon (horizon_ms or --horizon; or a program that runs forever): no wave to "
                     "break down\n  what they did from their arrival to the end of the run (";
  const char *at = strstr(out, line);
  ck_assert_msg(at, "%s", out);
  double sum = 0, v, total = -1;
  char name[64];
  for (const char *p = strchr(at + strlen(line), '\n') + 1; *p; p = strchr(p, '\n') + 1) {
    ck_assert_msg(sscanf(p, " %63[^0-9=] %lf ms", name, &v) == 2 || sscanf(p, " = in the run %lf ms", &total) == 1,
                  "not a row: %s", p);
    if (total >= 0) {
      ck_assert_msg(strchr(p, '\n')[1] == '\0', "not the last line: %s", p);
      break;
    }
    sum += v;
  }
  ck_assert_msg(total > 0 && fabs(sum - total) < 0.005, "rows %g, run %g:\n%s", sum, total, out);
  ck_assert_msg(strstr(out, "    sleeping ") && strstr(out, "    running "), "%s", out);
  ck_assert_msg(!strstr(out, "law") && !strstr(out, "simulated") && !strstr(out, "closed form"), "%s", out);
  free(out);
}
END_TEST

/* left15 item 5: a game backend measured by a span (a report: false clock
 * ticks every 50 ms; each room does a burst of CPU per tick and ends the
 * span from the tick's stamp; the rooms repeat forever) had no wave: explain
 * said "none finished" and stopped, after a full breakdown of the clock as if
 * it were the workload. Now the clock is labelled, the rooms' class says what
 * they did, and the span's figures are those tssim run reports (p99 the
 * same as its tick_p99_ms at the same point, replication 0). */
START_TEST(viz_explain_span_measured_model)
{
  char dir[512], *out;
  ck_assert_int_eq(tu_run_files("game",
                                "{\"name\": \"game\", \"worker\": {\"kind\": \"thread\"},"
                                " \"channels\": [{\"name\": \"tick\", \"scope\": \"shared\"}],"
                                " \"classes\": [{\"name\": \"clock\", \"count\": \"forever\", \"report\": false,"
                                " \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 50}, \"program\": ["
                                "{\"op\": \"span_begin\", \"span\": \"tick\"}, {\"op\": \"notify\", \"channel\": \"tick\","
                                " \"carry\": \"tick\"}]}, {\"name\": \"room\", \"count\": \"n\", \"program\": ["
                                "{\"op\": \"repeat\", \"count\": \"forever\", \"steps\": [{\"op\": \"wait\", \"channel\": \"tick\"},"
                                " {\"op\": \"cpu\", \"ms\": 2, \"dist\": \"exponential\"},"
                                " {\"op\": \"span_end\", \"span\": \"tick\", \"from\": \"notify\"}]}]}]}",
                                "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [60], \"workers\": [2],"
                                " \"horizon_ms\": 1000, \"replications\": 1, \"table\": [\"tick_p99_ms\"]}",
                                dir, sizeof dir, NULL, NULL),
                   0);
  char path[600];
  snprintf(path, sizeof path, "%s/out/summary.csv", dir);
  tu_table t;
  tu_table_read(&t, path);
  ck_assert_int_eq(t.nrows, 1);
  char want[120];
  snprintf(want, sizeof want, ", p99 %.3f, max ", tu_table_num(&t, 0, "tick_p99_ms"));
  tu_table_free(&t);
  ck_assert_int_eq(tu_tssimf(&out, NULL, "explain '%s/s.json'", dir), 0);
  ck_assert_msg(strstr(out, "\nclass clock (report: false: no rows of its own in the results): "), "%s", out);
  ck_assert_msg(strstr(out, "\nclass room: 60 actors\n  none finished by the horizon (horizon_ms or --horizon; or a "
                            "program that runs forever): no wave to break down; the spans below measure the run\n"
                            "  what they did from their arrival to the end of the run (1000.000 ms; mean per actor):\n"),
                "%s", out);
  ck_assert_msg(strstr(out, "    waiting on a channel ") && strstr(out, "    runnable "), "%s", out);
  const char *span = strstr(out, "\nspans (the model's latency measures; this replication, every sample that ended in "
                                 "the run):\n  span tick: ");
  ck_assert_msg(span && strstr(span, want), "want \"%s\" in:\n%s", want, out);
  free(out);
  tu_rmtree(dir);
}
END_TEST

/* The lines of "differs from the law ... by exactly" sum to the printed
 * difference (to the printed precision, 0.001 ms a line) on a model with
 * sleep, which the law counts as latency; the closed form's refusal names the
 * step kinds the program has. */
START_TEST(viz_explain_law_lines_sum_with_sleep)
{
  char *out = closed_loop("20", "explain");
  ck_assert_msg(strstr(out, "does not apply: the program has repeat and sleep steps, not only CPU.\n"), "%s", out);
  ck_assert_msg(strstr(out, "... and sleep in the wave (think time)"), "%s", out);
  const char *p = strstr(out, "by exactly (mean per actor):\n");
  ck_assert_ptr_nonnull(p);
  p = strchr(p, '\n') + 1;
  double sum = 0, total = 0;
  int lines = 0, slept = 0;
  for (;;) {
    const char *eol = strchr(p, '\n'), *ms = strstr(p, " ms\n");
    ck_assert_msg(eol && ms == eol - 3, "%s", p);
    const char *num = ms;
    while (num > p && num[-1] != ' ')
      num--;
    double v = atof(num);
    slept |= strncmp(p, "    worker busy while the actor slept", 37) == 0 && v < 0;
    if (strncmp(p, "    = simulated - law", 21) == 0) {
      total = v;
      break;
    }
    sum += v;
    lines++;
    p = eol + 1;
  }
  ck_assert_msg(slept, "no hidden think time:\n%s", out);
  ck_assert_msg(total < 0 && fabs(sum - total) <= 0.0005 * (lines + 1), "lines sum to %.4f, total %.3f:\n%s", sum,
                total, out);
  free(out);
}
END_TEST

/* An actor with no wave (here the last job, which the horizon stopped) is
 * left out of the means instead of counting as a wave of 0. */
START_TEST(viz_explain_means_leave_out_actors_without_a_wave)
{
  char *out;
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/periodic-window.json", &out, NULL), 0);
  ck_assert_msg(strstr(out, "\n  1 ended no wave (dropped, or stopped by the horizon): the means below are over the 100 "
                            "that did\n  wave (wave_start to wave_end) per actor: mean 1 ms, median 1, min 1, max 1\n") &&
                    strstr(out, "does not apply: open arrivals (class job: count forever, periodic every 100 ms), not all at "
                                "one instant.\n"),
                "%s", out);
  free(out);
  ck_assert_int_eq(tu_tssim("explain scenarios/examples/batch.json", &out, NULL), 0);
  ck_assert_msg(strstr(out, "does not apply: open arrivals (class job: poisson 600/s), not all at one instant.\n"), "%s",
                out);
  free(out);
}
END_TEST

/* Actor rows the horizon stopped end "at horizon", a deadlock's "stuck";
 * the legend says what each ending means. */
START_TEST(viz_gantt_horizon_is_not_stuck)
{
  char *out = closed_loop("\"forever\"", "gantt --ascii");
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

/* ---- plots ---- */

static int exists(const char *dir, const char *name)
{
  char path[1024];
  struct stat st;
  snprintf(path, sizeof path, "%s/%s", dir, name);
  return stat(path, &st) == 0 && st.st_size > 0;
}

START_TEST(viz_plot_with_and_without_gnuplot)
{
  char args[1024], res[700];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  snprintf(res, sizeof res, "%s/res", tmpdir);
  snprintf(args, sizeof args, "run " LOCK " -q --no-plots -o '%s'", res);
  ck_assert_int_eq(tu_tssim(args, NULL, NULL), 0);
  char *path = strdup(getenv("PATH") ? getenv("PATH") : "");
  setenv("PATH", "/nonexistent", 1); /* no gnuplot: nothing drawn, no failure */
  ck_assert_int_eq(ts_plot_results(res, 1), 0);
  setenv("PATH", path, 1);
  free(path);
  ck_assert(!exists(res, "wave.png"));
  if (system("command -v gnuplot >/dev/null 2>&1") == 0) {
    ck_assert_int_eq(ts_plot_results(res, 1), 5);
    static const char *const files[] = {"wave", "cpu", "ratio", "decomposition", "queue"};
    for (int i = 0; i < 5; i++) {
      char name[64];
      snprintf(name, sizeof name, "%s.png", files[i]);
      ck_assert_msg(exists(res, name), "missing %s", name);
      snprintf(name, sizeof name, "%s.svg", files[i]);
      ck_assert_msg(exists(res, name), "missing %s", name);
    }
  }
  ck_assert_int_eq(ts_plot_results("/nonexistent-folder", 1), 0);
  tu_rmtree(tmpdir);
}
END_TEST

/* A model that calls a server: the decomposition draws its call wait (the
 * server's queue) beside own CPU; one without calls has no such bar. */
START_TEST(viz_decomposition_draws_the_server_wait)
{
  if (system("command -v gnuplot >/dev/null 2>&1") != 0)
    return; /* nothing is drawn without gnuplot */
  char dir[256], args[700], path[800];
  const char *model =
      "{\"name\": \"o\", \"pools\": [{\"name\": \"srv\", \"kind\": \"thread\", \"count\": 1}],"
      " \"servers\": [{\"name\": \"desk\", \"pool\": \"srv\"}],"
      " \"classes\": [{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"call\", \"server\": \"desk\","
      " \"handler\": [{\"op\": \"cpu\", \"ms\": 1}]}]}]}";
  for (int calls = 0; calls <= 1; calls++) {
    ck_assert_int_eq(tu_run_files("viz-decomp", calls ? model : "{\"name\": \"o\", \"classes\": [{\"name\": "
                                  "\"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": 1}]}]}",
                                  "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, 4], \"workers\": [1]}", dir,
                                  sizeof dir, NULL, NULL),
                     0);
    snprintf(args, sizeof args, "run %s/s.json -o %s/plots -q", dir, dir);
    ck_assert_int_eq(tu_tssim(args, NULL, NULL), 0);
    snprintf(path, sizeof path, "%s/plots/decomposition.svg", dir);
    char *svg = tu_read_file(path, NULL);
    ck_assert_msg((strstr(svg, "call wait (server queue, legs)") != NULL) == calls, "calls %d", calls);
    ck_assert_ptr_nonnull(strstr(svg, "own CPU"));
    free(svg);
    tu_rmtree(dir);
  }
}
END_TEST

/* TSSIM_PLOTS_DIR holding only an edited wave.gp: wave is drawn by it, the
 * other plots by the compiled-in scripts; a script there that cannot be read
 * (a folder, a dangling link) is not drawn, and neither is anything when
 * TSSIM_PLOTS_DIR is not a folder (each plot says why). */
START_TEST(viz_plots_dir_with_one_script_falls_back_to_the_built_in_ones)
{
  if (system("command -v gnuplot >/dev/null 2>&1") != 0)
    return; /* nothing is drawn without gnuplot */
  char args[1024], res[700], scripts[700], path[800];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "viz");
  snprintf(res, sizeof res, "%s/res", tmpdir);
  snprintf(scripts, sizeof scripts, "%s/scripts", tmpdir);
  ck_assert_int_eq(mkdir(scripts, 0755), 0);
  snprintf(args, sizeof args, "run " LOCK " -q --no-plots -o '%s'", res);
  ck_assert_int_eq(tu_tssim(args, NULL, NULL), 0);
  snprintf(path, sizeof path, "%s/wave.gp", scripts);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("set terminal svg size 200, 100\nset output png\nset title 'edited-wave'\nplot x\n"
        "set terminal svg size 200, 100\nset output svg\nplot x\nset output\n",
        f);
  fclose(f);
  setenv("TSSIM_PLOTS_DIR", scripts, 1);
  int drawn = ts_plot_results(res, 1);
  /* a folder named cpu.gp and a dangling link queue.gp are scripts that cannot be read, not absent ones */
  snprintf(path, sizeof path, "%s/cpu.gp", scripts);
  ck_assert_int_eq(mkdir(path, 0755), 0);
  snprintf(path, sizeof path, "%s/queue.gp", scripts);
  ck_assert_int_eq(symlink("no-such-script.gp", path), 0);
  int unreadable = ts_plot_results(res, 1);
  snprintf(path, sizeof path, "%s/cpu.gp", scripts);
  ck_assert_int_eq(rmdir(path), 0);
  snprintf(path, sizeof path, "%s/queue.gp", scripts);
  ck_assert_int_eq(unlink(path), 0);
  snprintf(path, sizeof path, "%s/nonexistent", tmpdir);
  setenv("TSSIM_PLOTS_DIR", path, 1);
  int none = ts_plot_results(res, 1);
  unsetenv("TSSIM_PLOTS_DIR");
  ck_assert_int_eq(drawn, 5);
  ck_assert_int_eq(unreadable, 3);
  ck_assert_int_eq(none, 0);
  snprintf(path, sizeof path, "%s/wave.svg", res);
  char *wave = tu_read_file(path, NULL);
  snprintf(path, sizeof path, "%s/cpu.svg", res);
  char *cpu = tu_read_file(path, NULL);
  ck_assert_ptr_nonnull(strstr(wave, "edited-wave"));
  ck_assert_ptr_null(strstr(cpu, "edited-wave"));
  free(wave);
  free(cpu);
  tu_rmtree(tmpdir);
}
END_TEST

Suite *viz_suite(void)
{
  Suite *s = suite_create("viz");
  const TTest *const core[] = {viz_timeline_matches_stats,
                               viz_trace_page_colors_every_state, viz_trace_zero_cache_n4_slices_once_in_order,
                               viz_trace_lock_flows_and_counters,
                               viz_gantt_rr_wave_matches_hand_drawn_schedule,
                               viz_gantt_fits_width,
                               viz_gantt_worker_rows_show_busy, viz_gantt_rows_name_pool_workers_and_classes,
                               viz_thread_ready_state_is_runnable,
                               viz_explain_rr_closed_form_exact,
                               viz_explain_rr_unequal_last_slice,
                               viz_explain_accounting_is_exact,
                               viz_vizopt_defaults_and_errors, viz_state_worker_past_int16_is_unknown,
                               NULL};
  const TTest *const cli[] = {viz_trace_cli_writes_file,
                              viz_gantt_cli_options_and_errors,
                              viz_explain_rr_report_states_the_law,
                              viz_explain_zero_cache_names_terms, viz_explain_law_refused_only_for_hops_that_happen,
                              viz_explain_open_arrivals_have_no_wave_law, viz_explain_open_queue_theory,
                              viz_ready_state_named_by_the_worker_it_waits_on,
                              viz_explain_window_ends_before_the_work_is_not_stuck,
                              viz_explain_queue_matches_round_robin,
                              viz_explain_no_wave_says_what_the_class_did, viz_explain_span_measured_model, viz_explain_law_lines_sum_with_sleep,
                              viz_gantt_horizon_is_not_stuck, viz_explain_means_leave_out_actors_without_a_wave,
                              viz_gantt_dropped_actor_says_dropped,
                              viz_cli_point_usage_and_errors,
                              viz_plot_with_and_without_gnuplot,
                              viz_decomposition_draws_the_server_wait,
                              viz_plots_dir_with_one_script_falls_back_to_the_built_in_ones,
                              NULL};
  const TTest *const errors[] = {viz_timeline_refuses_overflowing_horizon, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 120);
  tu_tcase(s, "cli", cli, NULL, NULL, 120);
  tu_tcase(s, "errors", errors, NULL, NULL, 120);
  return s;
}
