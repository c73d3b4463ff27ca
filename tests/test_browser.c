/* The trace page (`tssim trace --html`, src/viz/trace_viewer.html) opened in
 * a real browser: headless Chromium runs the page's script and dumps the DOM
 * it built, and the tests count its tracks and slices against the trace JSON
 * (and the closed form of round robin); a page cut short, a trace without
 * events or with unreadable ones, and a trace too big to draw at once each
 * say so in the page instead of leaving it blank. Without chromium on the
 * PATH (or $TSSIM_CHROMIUM) the suite is skipped (exit 77, one line says so). */
#include <cjson/cJSON.h>
#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define DATA_TAG "<script type=\"application/json\" id=\"trace-data\">"
#define RR "scenarios/rr-wave.json"
#define ZC "scenarios/zero-cache-wave.json"

static char tmpdir[PATH_MAX];

static const char *chromium(void)
{
  const char *c = getenv("TSSIM_CHROMIUM");
  return c && *c ? c : "chromium";
}

/* The DOM of page file path once its script ran (caller frees). */
static char *dump_dom(const char *path)
{
  static int profiles;
  char *dom;
  int rc = tu_sh(&dom,
                 "'%s' --headless --no-sandbox --disable-gpu --disable-quic --no-first-run "
                 "--disable-background-networking --disable-component-update --disable-sync "
                 "--user-data-dir='%s/profile-%d' --dump-dom 'file://%s' 2>/dev/null",
                 chromium(), tmpdir, profiles++, path);
  ck_assert_msg(rc == 0 && strstr(dom, "</html>"), "%s --dump-dom %s: exit %d\n%.2000s", chromium(), path, rc, dom);
  return dom;
}

static int count(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

/* The text of the element with id (its first text node), in a new string. */
static char *text_of(const char *dom, const char *id)
{
  char key[64];
  snprintf(key, sizeof key, "id=\"%s\"", id);
  const char *p = strstr(dom, key);
  ck_assert_msg(p != NULL, "no element %s in the page", id);
  p = strchr(p, '>') + 1;
  return strndup(p, strcspn(p, "<"));
}

/* Events of the trace JSON file path with phase ph (and category cat, unless
 * NULL). */
static int events(const char *path, const char *ph, const char *cat)
{
  char *text = tu_read_file(path, NULL);
  cJSON *root = cJSON_Parse(text), *e;
  ck_assert_ptr_nonnull(root);
  int n = 0;
  cJSON_ArrayForEach(e, cJSON_GetObjectItemCaseSensitive(root, "traceEvents"))
  {
    const cJSON *p = cJSON_GetObjectItemCaseSensitive(e, "ph"), *c = cJSON_GetObjectItemCaseSensitive(e, "cat");
    n += !strcmp(p->valuestring, ph) && (!cat || (cJSON_IsString(c) && !strcmp(c->valuestring, cat)));
  }
  cJSON_Delete(root);
  free(text);
  return n;
}

/* Write the trace page of `tssim trace SCENARIO ARGS` to tmpdir/NAME.html and
 * its JSON to tmpdir/NAME.json. */
static void trace(const char *scenario, const char *args, const char *name)
{
  char cmd[PATH_MAX * 3], *out;
  snprintf(cmd, sizeof cmd, "trace %s %s -o '%s/%s.json' --html '%s/%s.html'", scenario, args, tmpdir, name, tmpdir,
           name);
  int rc = tu_tssim(cmd, &out, NULL);
  ck_assert_msg(rc == 0, "%s", out);
  free(out);
}

static void assert_no_message(const char *dom)
{
  ck_assert_ptr_nonnull(strstr(dom, "id=\"message\" hidden"));
  ck_assert_ptr_nonnull(strstr(dom, "id=\"note\" hidden"));
}

/* Round robin of 3 actors of C = 400 ms in q = 10 ms slices on one worker:
 * 40 slices each, 120 in the loop track, and as many state slices as the JSON
 * has; a step label holding "</script><!--" is drawn as text, not markup. */
START_TEST(browser_page_draws_tracks_and_slices)
{
  char path[PATH_MAX + 32];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "browser");
  trace(RR, "--n 3 --workers 1 --set 'classes[0].program[0].label=\"</script><!--x\"'", "rr");
  snprintf(path, sizeof path, "%s/rr.html", tmpdir);
  char *dom = dump_dom(path), *title = text_of(dom, "title");
  assert_no_message(dom);
  ck_assert_str_eq(title, "rr-wave: n = 3, workers = 1");
  for (const char *track = "worker 0\0event loop (CPU)\0actor 0: job\0actor 1: job\0actor 2: job\0"; *track;
       track += strlen(track) + 1) {
    char text[64];
    snprintf(text, sizeof text, ">%s</text>", track);
    ck_assert_msg(strstr(dom, text), "no track %s", track);
  }
  ck_assert_int_eq(count(dom, "class=\"run\""), 120);
  for (int a = 0; a < 3; a++) {
    char tip[64];
    snprintf(tip, sizeof tip, "<title>actor %d: run ", a);
    ck_assert_int_eq(count(dom, tip), 40);
  }
  snprintf(path, sizeof path, "%s/rr.json", tmpdir);
  ck_assert_int_eq(count(dom, "class=\"state\""), events(path, "X", "state"));
  ck_assert_int_eq(count(dom, "class=\"step\""), events(path, "X", "step"));
  ck_assert_int_eq(count(dom, "class=\"lock\""), 0);
  ck_assert_ptr_null(strstr(dom, "lock held</span>")); /* no legend entry for what is not drawn */
  ck_assert_int_gt(count(dom, ": &lt;/script&gt;&lt;!--x, "), 0);
  ck_assert_int_eq(count(dom, "</script>"), 2); /* the page's own two */
  free(title);
  free(dom);
  /* zero-cache at N = 2: locks held, wake arrows, the queue-depth counter */
  trace(ZC, "--n 2", "zc");
  snprintf(path, sizeof path, "%s/zc.html", tmpdir);
  dom = dump_dom(path);
  assert_no_message(dom);
  snprintf(path, sizeof path, "%s/zc.json", tmpdir);
  ck_assert_int_eq(count(dom, "class=\"run\""), events(path, "X", "run"));
  ck_assert_int_eq(count(dom, "class=\"lock\""), events(path, "b", NULL));
  ck_assert_int_gt(events(path, "b", NULL), 0);
  ck_assert_ptr_nonnull(strstr(dom, "lock held</span>"));
  ck_assert_int_eq(count(dom, "class=\"flow\""), events(path, "s", NULL));
  ck_assert_int_gt(events(path, "s", NULL), 0);
  ck_assert_ptr_nonnull(strstr(dom, ">max "));
  /* a state besides queued has its own color and legend entry */
  ck_assert_ptr_nonnull(strstr(dom, "<i style=\"background:#d4c4ec\"></i>waiting on a channel</span>"));
  ck_assert_int_gt(count(dom, "fill=\"#d4c4ec\""), 0);
  ck_assert_int_eq(count(dom, "fill=\"#ccc\""), 0); /* no state falls back to the unknown color */
  free(dom);
  tu_rmtree(tmpdir);
}
END_TEST

/* A page made of the trace page of rr-wave with its data replaced by json,
 * written to tmpdir/name.html; its DOM after the script ran (caller frees). */
static char *page_with(const char *json, const char *name)
{
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/template.html", tmpdir);
  char *page = tu_read_file(path, NULL), *data = strstr(page, DATA_TAG);
  ck_assert_ptr_nonnull(data);
  data += strlen(DATA_TAG);
  const char *end = strstr(data, "</script>");
  snprintf(path, sizeof path, "%s/%s.html", tmpdir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fprintf(f, "%.*s%s%s", (int)(data - page), page, json, end);
  ck_assert_int_eq(fclose(f), 0);
  free(page);
  return dump_dom(path);
}

static void assert_message(const char *dom, const char *want)
{
  char *msg = text_of(dom, "message");
  ck_assert_msg(strstr(msg, want), "the page says \"%s\", not \"%s\"", msg, want);
  ck_assert_ptr_null(strstr(dom, "id=\"message\" hidden"));
  free(msg);
}

START_TEST(browser_unreadable_trace_says_so_in_the_page)
{
  char path[PATH_MAX + 32];
  tu_mkdtemp(tmpdir, sizeof tmpdir, "browser");
  trace(RR, "--n 2 --workers 1", "template");
  /* the page cut short in its data */
  snprintf(path, sizeof path, "%s/template.html", tmpdir);
  size_t len;
  char *page = tu_read_file(path, &len);
  snprintf(path, sizeof path, "%s/cut.html", tmpdir);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fwrite(page, 1, len - 2000, f);
  ck_assert_int_eq(fclose(f), 0);
  free(page);
  char *dom = dump_dom(path);
  assert_message(dom, "This page cannot draw its trace: its trace is not valid JSON (");
  assert_message(dom, "the file is cut short or was edited");
  ck_assert_ptr_null(strstr(dom, "<svg"));
  ck_assert_ptr_nonnull(strstr(dom, ">tssim trace</h1>"));      /* no "n = undefined" */
  ck_assert_ptr_nonnull(strstr(dom, "id=\"legend\" hidden")); /* no legend of nothing */
  free(dom);
  /* JSON, but not a trace */
  dom = page_with("{\"traceEvents\": 5}", "noevents");
  assert_message(dom, "its trace has no traceEvents array");
  ck_assert_ptr_null(strstr(dom, "<svg"));
  free(dom);
  /* one event without a time among drawable ones */
  dom = page_with("{\"traceEvents\": [{\"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"dur\": 5},"
                  "{\"name\": \"running\", \"cat\": \"state\", \"ph\": \"X\", \"pid\": 1, \"tid\": 2, \"ts\": 0, "
                  "\"dur\": 5}]}",
                  "oneBad");
  assert_message(dom, "1 of 2 events could not be drawn (the first, traceEvents[0]: no numeric ts).");
  ck_assert_int_eq(count(dom, "class=\"state\""), 1);
  free(dom);
  /* events, but nothing with a duration */
  dom = page_with("{\"traceEvents\": [{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 1, \"args\": {}}]}",
                  "nothing");
  assert_message(dom, "The trace has no slices to draw.");
  free(dom);
  tu_rmtree(tmpdir);
}
END_TEST

/* 30,000 slices, more than the page draws at once (20,000): it draws the
 * first 20,000 and says which part of the time it shows and how to see the
 * rest. */
START_TEST(browser_huge_trace_draws_a_part_and_says_so)
{
  enum { N = 30000 };
  tu_mkdtemp(tmpdir, sizeof tmpdir, "browser");
  trace(RR, "--n 2 --workers 1", "template");
  size_t cap = (size_t)N * 100 + 1000, len = 0;
  char *json = malloc(cap);
  ck_assert_ptr_nonnull(json);
  len += (size_t)snprintf(json + len, cap - len,
                          "{\"traceEvents\": [{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 1, \"tid\": 2, "
                          "\"args\": {\"name\": \"actor 0: big\"}}");
  for (int i = 0; i < N; i++)
    len += (size_t)snprintf(json + len, cap - len,
                            ",{\"name\":\"running\",\"cat\":\"state\",\"ph\":\"X\",\"pid\":1,\"tid\":2,\"ts\":%d,"
                            "\"dur\":5}",
                            i * 10);
  snprintf(json + len, cap - len, "]}");
  char *dom = page_with(json, "huge");
  free(json);
  ck_assert_ptr_nonnull(strstr(dom, "id=\"message\" hidden"));
  char *note = text_of(dom, "note");
  ck_assert_str_eq(note, "This view holds 30000 slices; the page draws at most 20000 at once, so it shows 0 to 200 "
                         "ms of 0 to 299.995 ms. Drag across the chart to zoom, set the range in the address "
                         "(#from=MS&amp;to=MS), or open the trace JSON in ui.perfetto.dev.");
  ck_assert_int_eq(count(dom, "class=\"state\""), 20000);
  free(note);
  free(dom);
  tu_rmtree(tmpdir);
}
END_TEST

Suite *browser_suite(void)
{
  char cmd[PATH_MAX];
  snprintf(cmd, sizeof cmd, "command -v '%s' >/dev/null", chromium());
  if (system(cmd) != 0) { /* (outside a test: no Check assertions here) */
    printf("browser: skipped: %s is not installed (scripts/deps installs Debian's chromium)\n", chromium());
    exit(77);
  }
  Suite *s = suite_create("browser");
  TCase *tc = tcase_create("page");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, browser_page_draws_tracks_and_slices);
  tcase_add_test(tc, browser_unreadable_trace_says_so_in_the_page);
  tcase_add_test(tc, browser_huge_trace_draws_a_part_and_says_so);
  suite_add_tcase(s, tc);
  return s;
}
