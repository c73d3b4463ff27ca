/* Input: every error path of the model, scenario and baseline loaders, each
 * checked for its file, its JSON path and what was expected; --set
 * overrides. Inputs are written into a fresh temporary folder per test. The
 * CLI's exit statuses for bad input: test_io_cli.c. */
/* realpath is an XSI function */
#define _XOPEN_SOURCE 700

#include <check.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/atomic.h"
#include "io/baseline_json.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/paths.h"
#include "io/scenario_json.h"
#include "model/op.h"
#include "run/metrics.h"

#include "iodocs.h"
#include "testutil.h"

#define LEN(a) (sizeof(a) / sizeof *(a))

/* ---- temporary folder and files ---- */

static char tmp[512];            /* the test's folder (mkdtemp) */

static void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "io");
}

static void remove_tmp(void)
{
  tu_rmtree(tmp);
}

/* tmp/name (testutil's rotating buffers). */
static const char *tmp_path(const char *name)
{
  return tu_at(tmp, name);
}

/* Write text to tmp/name; its path. */
static const char *write_tmp(const char *name, const char *text)
{
  return tu_write_at(tmp, name, text);
}

/* ---- error messages: "FILE: PATH: what" ---- */

typedef struct bad_input {
  const char *json;
  const char *set;   /* model only: one --set override, or NULL */
  const char *path;  /* the JSON path the message must name, or NULL */
  const char *what;  /* words the message must contain */
} bad_input;

static void expect_message(const char *msg, const char *file, const bad_input *c)
{
  char want_path[512];
  ck_assert_msg(strncmp(msg, file, strlen(file)) == 0, "message does not start with the file: %s", msg);
  if (c->path) {
    snprintf(want_path, sizeof want_path, ": %s: ", c->path);
    ck_assert_msg(strstr(msg, want_path) != NULL, "message lacks path \"%s\": %s\ninput: %s", c->path, msg, c->json);
  }
  ck_assert_msg(strstr(msg, c->what) != NULL, "message lacks \"%s\": %s\ninput: %s", c->what, msg, c->json);
}


static const bad_input bad_models[] = {
  /* walk14 item 5: a field fixed at load names the name it cannot read */
  {MODEL("{\"count\": \"forever\", \"arrival\": {\"kind\": \"periodic\", \"period_ms\": \"50 / n\"}, \"program\": ["
         OK_STEP "]}"), NULL, "classes[0].arrival.period_ms",
   "\"50 / n\" reads n, the sweep's n, which is not known when the model loads: expected a number of ms in"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"lognormal\", \"cv\": \"W / 10\"}"), NULL, "classes[0].program[0].cv",
   "\"W / 10\" reads W, the workers of the main pool, which is not known when the model loads"},
  {MODEL("{\"count\": 1, \"size_bytes\": \"i * 8\", \"program\": [" OK_STEP "]}"), NULL, "classes[0].size_bytes",
   "it reads i, the actor's index, which is not known when the model loads"},
  /* malformed JSON: line and column */
  {"{\"classes\": [\n  {\"count\": 1, \"program\": ]}\n]}", NULL, NULL, "malformed JSON at line 2, column 27"},
  /* cJSON points at the second comma or just past it: column 15 or 16 */
  {"{\"classes\": [\n  {\"count\": 1,, \"program\": []}\n]}", NULL, NULL, "malformed JSON at line 2, column 1"},
  {"", NULL, NULL, "malformed JSON at line 1, column 1"},
  {OK_MODEL " x", NULL, NULL, "malformed JSON at line 1"},
  /* wrong types */
  {"[1, 2]", NULL, "(top level)", "expected a model object, got an array"},
  {"{\"name\": 5, \"classes\": []}", NULL, "name", "expected a string, got a number"},
  {WITH("\"worker\": 3"), NULL, "worker", "expected an object, got a number"},
  {"{\"classes\": {}}", NULL, "classes", "expected an array, got an object"},
  {MODEL("3"), NULL, "classes[0]", "expected a class object, got a number"},
  /* every type error says what it got (ts_jfail_got) */
  {PROGRAM("\"cpu\""), NULL, "classes[0].program[0]", "expected a step object {\"op\": ...}, got a string"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": {\"x\": 1}}"), NULL, "classes[0].program[0].ms",
   "\"$param\" or an expression of $params, got an object"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": [1]}"), NULL, "classes[0].program[0].ms", "got an array"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"rows\": true}"), NULL, "classes[0].program[0].rows", "got a boolean"},
  {MODEL("{\"count\": [1], \"program\": [" OK_STEP "]}"), NULL, "classes[0].count",
   "an integer in [0, 10000000] or an expression, got an array"},
  {WITH("\"metrics\": {\"m\": 3}"), NULL, "metrics.m", "or {\"expr\": ...}, got a number"},
  /* a count out of range says what it was (the walkthrough of run 12 saw no -3) */
  {MODEL("{\"count\": -3, \"program\": [" OK_STEP "]}"), NULL, "classes[0].count",
   "expected \"n\" (the sweep's n) or an integer in [0, 10000000], got -3"},
  {MODEL("{\"count\": 2.5, \"program\": [" OK_STEP "]}"), NULL, "classes[0].count", "[0, 10000000], got 2.5"},
  {WITH("\"locks\": [\"l\"]"), NULL, "locks[0]", "expected {\"name\": ..., \"scope\": ...}, got a string"},
  {PROGRAM_WITH("\"params\": {\"x\": \"1\"}", "{\"op\": \"cpu\", \"ms\": \"$x\"}"), NULL, "classes[0].program[0].ms",
   "$x must be a number of ms in [0, 3.6e+06], got a string"},
  {MODEL("{\"count\": \"many\", \"program\": [" OK_STEP "]}"), NULL, "classes[0].count",
   "\"many\": unknown name \"many\""},
  {MODEL("{\"count\": 1.5, \"program\": [" OK_STEP "]}"), NULL, "classes[0].count", "an integer in [0, 10000000]"},
  {PROGRAM("7"), NULL, "classes[0].program[0]", "expected a step object"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": \"ten\"}"), NULL, "classes[0].program[0].ms", "\"ten\": unknown name \"ten\""},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"sliced\": \"yes\"}"), NULL, "classes[0].program[0].sliced",
   "expected true, false or \"time\", got \"yes\""},
  {PROGRAM("{\"op\": \"io\", \"ms\": 1, \"priority\": 1}"), NULL, "classes[0].program[0].priority",
   "expected true or false, got a number"},
  {PROGRAM("{\"op\": 3}"), NULL, "classes[0].program[0].op", "expected a string, got a number"},
  /* missing required fields */
  {"{}", NULL, "classes", "missing (required)"},
  {"{\"classes\": []}", NULL, "classes", "expected at least one actor class"},
  {MODEL("{\"count\": 1}"), NULL, "classes[0].program", "missing (required)"},
  {MODEL("{\"count\": 1, \"program\": []}"), NULL, "classes[0].program", "expected at least one step"},
  {MODEL("{\"program\": [" OK_STEP "]}"), NULL, "classes[0].count", "missing (required): \"n\""},
  {PROGRAM("{\"ms\": 1}"), NULL, "classes[0].program[0].op", "missing (required)"},
  {PROGRAM("{\"op\": \"cpu\"}"), NULL, "classes[0].program[0].ms", "missing (required)"},
  {PROGRAM("{\"op\": \"io\"}"), NULL, "classes[0].program[0].ms", "missing (required)"},
  {PROGRAM("{\"op\": \"lock\"}"), NULL, "classes[0].program[0].lock", "missing (required)"},
  {PROGRAM("{\"op\": \"mark\"}"), NULL, "classes[0].program[0].name", "missing (required)"},
  {WITH("\"locks\": [{\"scope\": \"shared\"}]"), NULL, "locks[0].name", "missing (required)"},
  /* negative costs and absurd sizes */
  {PROGRAM("{\"op\": \"yield\"}, {\"op\": \"yield\"}, {\"op\": \"cpu\", \"ms\": -1}"), NULL,
   "classes[0].program[2].ms", "expected a number in [0, 3.6e+06], got -1"},
  {PROGRAM("{\"op\": \"io\", \"ms\": -0.5}"), NULL, "classes[0].program[0].ms", "got -0.5"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1e9}"), NULL, "classes[0].program[0].ms", "got 1e+09"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"rows\": 20000000}"), NULL, "classes[0].program[0].rows",
   "[1, 10000000], got 2e+07"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"rows\": 0}"), NULL, "classes[0].program[0].rows", "[1, 10000000]"},
  {MODEL("{\"count\": 20000000, \"program\": [" OK_STEP "]}"), NULL, "classes[0].count", "[0, 10000000]"},
  {MODEL("{\"count\": -1, \"program\": [" OK_STEP "]}"), NULL, "classes[0].count", "[0, 10000000]"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"cv\": 20}"), NULL, "classes[0].program[0].cv", "[0, 10]"},
  {MODEL("{\"count\": 1, \"arrival\": {\"spacing_ms\": -2}, \"program\": [" OK_STEP "]}"), NULL,
   "classes[0].arrival.spacing_ms", "got -2"},
  {WITH("\"host\": {\"cores\": 5000}"), NULL, "host.cores", "[0, 4096]"},
  {WITH("\"host\": {\"cpu_scale\": 0}"), NULL, "host.cpu_scale", "expected a number in"},
  {WITH("\"worker\": {\"burst_limit\": 0}"), NULL, "worker.burst_limit", "[1, 1000000]"},
  {WITH("\"worker\": {\"priority_divisor\": 0}"), NULL, "worker.priority_divisor", "[1, 1000]"},
  {WITH("\"worker\": {\"threshold_ms\": -1}"), NULL, "worker.threshold_ms", "got -1"},
  /* unknown keys (typos) */
  {WITH("\"wroker\": {}"), NULL, "wroker",
   "unknown key; did you mean \"worker\"? (expected one of: name, description"},
  {WITH("\"worker\": {\"treshold_ms\": 5}"), NULL, "worker.treshold_ms", "unknown key"},
  {WITH("\"host\": {\"core\": 2}"), NULL, "host.core", "unknown key"},
  {WITH("\"dispatch\": {\"polcy\": \"hash\"}"), NULL, "dispatch.polcy", "unknown key"},
  {MODEL("{\"count\": 1, \"programme\": [], \"program\": [" OK_STEP "]}"), NULL, "classes[0].programme",
   "unknown key"},
  {MODEL("{\"count\": 1, \"arrival\": {\"every_ms\": 2}, \"program\": [" OK_STEP "]}"), NULL,
   "classes[0].arrival.every_ms", "unknown key (expected one of: kind, start_ms, spacing_ms,"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"slcied\": true}"), NULL, "classes[0].program[0].slcied", "unknown key"},
  {WITH("\"locks\": [{\"name\": \"m\", \"scop\": \"shared\"}]"), NULL, "locks[0].scop", "unknown key"},
  /* unknown names */
  {PROGRAM("{\"op\": \"nap\", \"ms\": 1}"), NULL, "classes[0].program[0].op",
   "expected one of cpu, io, sleep, yield, lock, unlock, mark, span_begin, span_end, wait, notify, hop, add, set, "
   "register, pending, poll_children, exit, repeat, "
   "if, call, spawn, child; got \"nap\""},
  {PROGRAM("{\"op\": \"lock\", \"lock\": \"m\"}"), NULL, "classes[0].program[0].lock", "no lock named \"m\" in locks"},
  /* a name near a declared one is suggested (walk13b: a notify on "msg" among channels ["msgs"]) */
  {PROGRAM_WITH("\"channels\": [{\"name\": \"msgs\"}]", "{\"op\": \"notify\", \"channel\": \"msg\"}"), NULL,
   "classes[0].program[0].channel", "no channel named \"msg\" in channels; did you mean \"msgs\"?"},
  {PROGRAM_WITH("\"locks\": [{\"name\": \"track\", \"kind\": \"mutex\"}]", "{\"op\": \"lock\", \"lock\": \"trak\"}"),
   NULL, "classes[0].program[0].lock", "no lock named \"trak\" in locks; did you mean \"track\"?"},
  {PROGRAM_WITH("\"counters\": [{\"name\": \"sent\"}]", "{\"op\": \"add\", \"counter\": \"snt\", \"value\": 1}"),
   NULL, "classes[0].program[0].counter", "no counter named \"snt\" in counters; did you mean \"sent\"?"},
  {PROGRAM_WITH("\"metrics\": {\"w\": {\"span\": \"wav\", \"stat\": \"p50\"}}",
                "{\"op\": \"span_begin\", \"span\": \"wave\"}, {\"op\": \"span_end\", \"span\": \"wave\"}"),
   NULL, "metrics.w.span", "no span named \"wav\" in the programs; did you mean \"wave\"?"},
  {WITH("\"worker\": {\"policy\": \"lifo\"}"), NULL, "worker.policy",
   "expected a queue policy (fifo, priority_barrier, strict_priority, shortest_first, weighted_fair); got \"lifo\""},
  {WITH("\"dispatch\": {\"policy\": \"random\"}"), NULL, "dispatch.policy",
   "expected hash, round_robin or least_loaded; got \"random\""},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"dist\": \"weibull\"}"), NULL, "classes[0].program[0].dist",
   "expected one of \"fixed\", \"exponential\", \"lognormal\", \"gamma\", \"uniform\", \"empirical\"; got \"weibull\""},
  {MODEL("{\"count\": 1, \"queue_class\": \"urgent\", \"program\": [" OK_STEP "]}"), NULL, "classes[0].queue_class",
   "expected foreground, normal or background; got \"urgent\""},
  {PROGRAM("{\"op\": \"mark\", \"name\": \"wave_middle\"}"), NULL, "classes[0].program[0].name",
   "expected one of \"wave_start\", \"wave_end\", \"settled\"; got \"wave_middle\""},
  {WITH("\"locks\": [{\"name\": \"m\", \"scope\": \"global\"}]"), NULL, "locks[0].scope",
   "expected one of \"actor\", \"shared\", \"per_worker\", \"indexed\"; got \"global\""},
  {WITH("\"locks\": [{\"name\": \"m\"}, {\"name\": \"m\"}]"), NULL, "locks[1].name", "duplicate lock name \"m\""},
  {WITH("\"locks\": [3]"), NULL, "locks[0]", "expected {\"name\""},
  /* lock order */
  {PROGRAM_WITH("\"locks\": [{\"name\": \"m\"}]", OK_STEP ", {\"op\": \"unlock\", \"lock\": \"m\"}"), NULL,
   "classes[0].program[1].lock", "releases lock \"m\", which is not held here"},
  {PROGRAM_WITH("\"locks\": [{\"name\": \"m\"}]", "{\"op\": \"lock\", \"lock\": \"m\"}, {\"op\": \"lock\", \"lock\": \"m\"}"),
   NULL, "classes[0].program[1].lock", "already held"},
  /* $param references */
  {PROGRAM("{\"op\": \"cpu\", \"ms\": \"$nope\"}"), NULL, "classes[0].program[0].ms",
   "refers to $nope, which is not in params"},
  /* walkthrough 23b: a misspelt $param had no suggestion (--set params.rat had one) */
  {PROGRAM_WITH("\"params\": {\"service_ms\": 1}", "{\"op\": \"cpu\", \"ms\": \"$servce_ms\"}"), NULL,
   "classes[0].program[0].ms", "refers to $servce_ms, which is not in params; did you mean $service_ms?"},
  {PROGRAM_WITH("\"params\": {\"service_ms\": 1}", "{\"op\": \"cpu\", \"ms\": \"2 * $servce_ms\"}"), NULL,
   "classes[0].program[0].ms", "unknown name \"$servce_ms\" before column 15; did you mean $service_ms?"},
  {PROGRAM_WITH("\"params\": {\"x\": -1}", "{\"op\": \"io\", \"ms\": \"$x\"}"), NULL, "classes[0].program[0].ms",
   "$x must be a number of ms in [0, 3.6e+06], got -1"},
  {PROGRAM_WITH("\"params\": {\"x\": \"ten\"}", "{\"op\": \"io\", \"ms\": \"$x\"}"), NULL, "classes[0].program[0].ms",
   "$x must be a number of ms in [0, 3.6e+06], got a string"},
  {PROGRAM_WITH("\"params\": {\"x\": \"ten\"}", "{\"op\": \"io\", \"ms\": \"$x * 2\"}"), NULL,
   "classes[0].program[0].ms", "\"$x * 2\": $x names params.x, which must be a number, got a string"},
  /* a param is a number or a string: an array is refused where it is declared (lang25 item 7) */
  {PROGRAM_WITH("\"params\": {\"x\": [1]}", "{\"op\": \"io\", \"ms\": \"1 + $x\"}"), NULL,
   "params.x", "expected a number, or a string (a name a step or a declaration uses), got an array"},
  {WITH("\"params\": 3"), NULL, "params", "expected an object, got a number"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"rows\": \"$nope\"}"), NULL, "classes[0].program[0].rows",
   "refers to $nope, which is not in params"},
  {PROGRAM_WITH("\"params\": {\"r\": 1.5}", "{\"op\": \"cpu\", \"ms\": 1, \"rows\": \"$r\"}"), NULL,
   "classes[0].program[0].rows", "$r must be an integer in [1, 10000000], got 1.5"},
  {PROGRAM("{\"op\": \"cpu\", \"ms\": 1, \"rows\": \"many\"}"), NULL, "classes[0].program[0].rows",
   "expected an integer in [1, 10000000], \"$param\" or an expression of $params"},
  /* host.cpu_scale_by_n */
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [1, 2], \"scale\": [1]}}"), NULL, "host.cpu_scale_by_n.scale",
   "expected as many scales as n values"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [2, 1], \"scale\": [1, 1]}}"), NULL, "host.cpu_scale_by_n.n[1]",
   "expected increasing numbers >= 0, got 1"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [1], \"scale\": [0]}}"), NULL, "host.cpu_scale_by_n.scale[0]",
   "expected numbers in (0, 1000], got 0"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [\"1\"], \"scale\": [1]}}"), NULL, "host.cpu_scale_by_n.n[0]",
   "expected increasing numbers >= 0, got a string"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [1]}}"), NULL, "host.cpu_scale_by_n.scale", "missing (required)"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"nn\": [1], \"scale\": [1]}}"), NULL, "host.cpu_scale_by_n.nn",
   "unknown key"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"baseline\": \"absent.json\"}}"), NULL, "host.cpu_scale_by_n.baseline",
   "cannot read the baseline"},
  {WITH("\"host\": {\"cpu_scale_by_n\": {\"baseline\": \"b.json\", \"metric\": \"bogus\"}}"), NULL,
   "host.cpu_scale_by_n.metric", "unknown metric \"bogus\""},
  {WITH("\"host\": {\"cpu_scale_by_n\": 3}"), NULL, "host.cpu_scale_by_n", "expected an object"},
  /* --set overrides that fail */
  {OK_MODEL, "classes[3].count=2", "classes[3].count", "no such place in the model"},
  {OK_MODEL, "classes[0].program[2]={\"op\": \"yield\"}", "classes[0].program[2]", "array index out of range"},
  {OK_MODEL, "classes[0].program[4].ms=2", "classes[0].program[4].ms", "no such place in the model"},
  {OK_MODEL, "classes[0].count.x=1", "classes[0].count.x", "no such place in the model"},
  {OK_MODEL, "classes[0]count=2", "classes[0]count", "expected a path of keys joined by '.' and [indexes]"},
  {WITH("\"worker\": {}"), "worker.treshold_ms=5", "worker.treshold_ms", "unknown key"},
  {OK_MODEL, "wroker.threshold_ms=5", "wroker", "unknown key; did you mean \"worker\"?"},
  {WITH("\"params\": {\"c_ms\": 1}"), "params.c_mss=5", "params.c_mss", "no such parameter in params; did you mean \"c_ms\"?"},
  {OK_MODEL, "classes[0].program[0].ms=-3", "classes[0].program[0].ms", "got -3"},
  {OK_MODEL, "worker.threshold_ms", "--set", "expected PATH=VALUE, got \"worker.threshold_ms\""},
  {OK_MODEL, "=5", "--set", "expected PATH=VALUE"},
};

START_TEST(io_model_rejects_bad_input)
{
  const bad_input *c = &bad_models[_i];
  const char *file = write_tmp("model.json", c->json);
  ts_model m;
  ts_err e;
  const char *sets[] = {c->set};
  int rc = ts_model_load(file, sets, c->set ? 1 : 0, &m, NULL, &e);
  ck_assert_msg(rc == -1, "case %d accepted: %s", _i, c->json);
  expect_message(e.msg, file, c);
}
END_TEST


static const bad_input bad_scenarios[] = {
  {"{\"name\": \"s\",\n\"n\": [1,]}", NULL, NULL, "malformed JSON at line 2"},
  {"\"s\"", NULL, "(top level)", "expected a scenario object, got a string"},
  {"{\"model\": \"m.json\", \"n\": [1], \"workers\": [1]}", NULL, "name", "missing (required)"},
  {"{\"name\": \"s\", \"n\": [1], \"workers\": [1]}", NULL, "model", "missing (required)"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1]}", NULL, "workers", "missing (required)"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [], \"workers\": [1]}", NULL, "n", "expected 1 to 1000 integers"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": 4, \"workers\": [1]}", NULL, "n", "expected an array, got a number"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1, \"x\"], \"workers\": [1]}", NULL, "n[1]",
   "expected an integer in [1, 1000000], got a string"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1.5], \"workers\": [1]}", NULL, "n[0]", "expected an integer"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [2000000], \"workers\": [1]}", NULL, "n[0]", "[1, 1000000]"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1e300], \"workers\": [1]}", NULL, "n[0]", "[1, 1000000]"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [0]}", NULL, "workers[0]", "[1, 4096]"},
  {"{\"name\": \"s\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1, 5000]}", NULL, "workers[1]", "[1, 4096]"},
  {SCENARIO(", \"replications\": 0"), NULL, "replications", "[1, 100000]"},
  {SCENARIO(", \"seed\": -1"), NULL, "seed", "expected an integer in [0, 9007199254740991], got -1"},
  {SCENARIO(", \"seed\": 1.5"), NULL, "seed", "expected an integer in [0, 9007199254740991], got 1.5"},
  {SCENARIO(", \"seed\": \"7\""), NULL, "seed", "expected an integer in [0, 9007199254740991], got a string"},
  {SCENARIO(", \"replications\": 0"), NULL, "replications", "expected an integer in [1, 100000], got 0"},
  {SCENARIO(", \"seed\": \"one\""), NULL, "seed", "got a string"},
  {SCENARIO(", \"set\": [\"a=1\"]"), NULL, "set", "expected an object, got an array"},
  {SCENARIO(", \"replication\": 3"), NULL, "replication",
   "unknown key; did you mean \"replications\"? (expected one of: name, description, model"},
  {SCENARIO(", \"description\": 3"), NULL, "description", "expected a string"},
  {SCENARIO(", \"baseline\": false"), NULL, "baseline", "expected a string, got a boolean"},
  {"{\"name\": \"../up\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}", NULL, "name",
   "expected letters, digits, '-', '_' or '.'"},
  {"{\"name\": \"\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}", NULL, "name", "expected letters"},
  {"{\"name\": \".hidden\", \"model\": \"m.json\", \"n\": [1], \"workers\": [1]}", NULL, "name", "expected letters"},
};

START_TEST(io_scenario_rejects_bad_input)
{
  const bad_input *c = &bad_scenarios[_i];
  const char *file = write_tmp("scenario.json", c->json);
  ts_scenario s;
  ts_err e;
  ck_assert_msg(ts_scenario_load(file, &s, &e) == -1, "case %d accepted: %s", _i, c->json);
  expect_message(e.msg, file, c);
  ck_assert_ptr_null(s.ns); /* a failed load frees what it built */
}
END_TEST

static const bad_input bad_baselines[] = {
  {"{\"points\": [", NULL, NULL, "malformed JSON at line 1"},
  {"[]", NULL, "(top level)", "expected a baseline object with \"points\" (or \"scaling\"), got an array"},
  {"{}", NULL, "points", "missing: a baseline needs \"points\" (or \"scaling\")"},
  {"{\"points\": {}}", NULL, "points", "expected an array, got an object"},
  {"{\"scaling\": 1}", NULL, "scaling", "expected an array, got a number"},
  {"{\"points\": []}", NULL, "points", "expected at least one recorded value, got none"},
  {"{\"points\": [2]}", NULL, "points[0]", "expected an object with n and metrics, got a number"},
  {"{\"points\": [{\"metrics\": {\"wave_ms\": 1}}]}", NULL, "points[0].n", "missing (required)"},
  {"{\"points\": [{\"n\": -1, \"metrics\": {\"wave_ms\": 1}}]}", NULL, "points[0].n", "[1, 1000000]"},
  {"{\"points\": [{\"n\": 1, \"workers\": 0, \"metrics\": {\"wave_ms\": 1}}]}", NULL, "points[0].workers",
   "[1, 4096]"},
  {"{\"points\": [{\"n\": 1}]}", NULL, "points[0].metrics", "missing (required)"},
  /* metric names are checked against a run's metrics when the baseline is used; here only their spelling */
  {"{\"points\": [{\"n\": 1, \"metrics\": {\"Wave_ms\": 1}}]}", NULL, "points[0].metrics.Wave_ms",
   "expected a metric name (lower-case letters, digits, '_')"},
  {"{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": -1}}]}", NULL, "points[0].metrics.wave_ms",
   "expected a number in [0, 1e+15], got -1"},
  {"{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": \"1\"}}]}", NULL, "points[0].metrics.wave_ms",
   "got a string"},
  {"{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}, \"wieght\": 2}]}", NULL, "points[0].wieght",
   "unknown key"},
  {"{\"points\": [{\"n\": 1, \"metrics\": {\"wave_ms\": 1}, \"weight\": -2}]}", NULL, "points[0].weight",
   "expected a number in [0, "},
  {"{\"scaling\": [{\"n\": 1, \"samples\": 3, \"tracker_ms\": null}]}", NULL, "scaling",
   "expected at least one recorded value, got none"},
  /* the shared layout: every other field is a recorded value, a number (or null) */
  {"{\"scaling\": [{\"n\": 1, \"wave_ms\": 5, \"settle_ms\": \"n/a\"}]}", NULL, "scaling[0].settle_ms",
   "got a string"},
  {"{\"scaling\": [{\"n\": 1, \"Wave_ms\": 5}]}", NULL, "scaling[0].Wave_ms", "expected a metric name"},
  {"{\"scaling\": [{\"n\": 1, \"wave_ms\": -5}]}", NULL, "scaling[0].wave_ms", "got -5"},
  {"{\"scaling\": [{\"wave_ms\": 5}]}", NULL, "scaling[0].n", "missing (required)"},
  /* a metric recorded twice at one point: run compared the first, calibrate fitted both (walkthrough 23 item 1) */
  {"{\"points\": [{\"n\": 2, \"workers\": 1, \"metrics\": {\"wave_ms\": 240}}, {\"n\": 2, \"workers\": 1, "
   "\"metrics\": {\"wave_ms\": 250}}]}", NULL, "points[1].metrics.wave_ms",
   "wave_ms at n=2, workers=1 is recorded twice: points[0] records it first (expected one record per metric and "
   "point)"},
  {"{\"points\": [{\"n\": 2, \"metrics\": {\"wave_ms\": 1, \"slices\": 2}}, {\"n\": 2, \"workers\": 2, "
   "\"metrics\": {\"wave_ms\": 1}}, {\"n\": 2, \"workers\": 1, \"metrics\": {\"settle_ms\": 3, \"slices\": 4}}]}",
   NULL, "points[2].metrics.slices", "slices at n=2, workers=1 is recorded twice: points[0] records it first"},
  {"{\"points\": [{\"n\": 1, \"axes\": {\"a\": \"x\", \"b\": \"y\"}, \"metrics\": {\"wave_ms\": 1}}, "
   "{\"n\": 1, \"axes\": {\"a\": \"z\", \"b\": \"y\"}, \"metrics\": {\"wave_ms\": 1}}, "
   "{\"n\": 1, \"axes\": {\"b\": \"y\", \"a\": \"z\"}, \"metrics\": {\"wave_ms\": 1}}]}", NULL,
   "points[2].metrics.wave_ms", "wave_ms at n=1, workers=1 with the same axes is recorded twice: points[1] records "
   "it first"},
  {"{\"scaling\": [{\"n\": 1, \"wave_ms\": 5}, {\"n\": 2, \"wave_ms\": 6}, {\"n\": 1, \"wave_ms\": 7}]}", NULL,
   "scaling[2].wave_ms", "wave_ms at n=1, workers=1 is recorded twice: scaling[0] records it first"},
};

/* A model that reports the first twelve metrics, not settle_ms nor tracker_ms. */
static int reports_no_settle(const void *ctx, const char *metric)
{
  (void)ctx;
  return ts_metric_builtin(metric) >= 0;
}

START_TEST(io_baseline_rejects_bad_input)
{
  const bad_input *c = &bad_baselines[_i];
  const char *file = write_tmp("baseline.json", c->json);
  ts_baseline b;
  ts_err e;
  ck_assert_msg(ts_baseline_load(file, &b, &e) == -1, "case %d accepted: %s", _i, c->json);
  expect_message(e.msg, file, c);
  ck_assert_uint_eq(b.nrec, 0);
}
END_TEST

START_TEST(io_missing_files_are_named)
{
  const char *file = tmp_path("absent.json");
  const bad_input c = {"(no file)", NULL, NULL, "cannot open"};
  ts_model m;
  ts_scenario s;
  ts_baseline b;
  ts_err e;
  ck_assert_int_eq(ts_model_load(file, NULL, 0, &m, NULL, &e), -1);
  expect_message(e.msg, file, &c);
  ck_assert_int_eq(ts_scenario_load(file, &s, &e), -1);
  expect_message(e.msg, file, &c);
  ck_assert_int_eq(ts_baseline_load(file, &b, &e), -1);
  expect_message(e.msg, file, &c);
}
END_TEST

/* ---- successful loads ---- */

START_TEST(io_model_defaults_and_fields)
{
  const char *file = write_tmp(
      "model.json", "{\"name\": \"full\", \"host\": {\"cores\": 3, \"cpu_scale\": 2},"
                    " \"worker\": {\"policy\": \"priority\", \"threshold_ms\": 20, \"burst_limit\": 4},"
                    " \"dispatch\": {\"policy\": \"hash\", \"task_id\": \"t1\", \"group_prefix\": \"g\"},"
                    " \"locks\": [{\"name\": \"a\"}, {\"name\": \"b\", \"scope\": \"shared\"}],"
                    " \"params\": {\"x\": 2.5},"
                    " \"classes\": [{\"name\": \"fg\", \"count\": \"n\", \"queue_class\": \"foreground\","
                    "   \"arrival\": {\"start_ms\": 1, \"spacing_ms\": 0.5}, \"program\": ["
                    "   {\"op\": \"lock\", \"lock\": \"b\"},"
                    "   {\"op\": \"cpu\", \"ms\": \"$x\", \"rows\": 5, \"sliced\": true},"
                    "   {\"op\": \"io\", \"ms\": 3, \"priority\": true, \"dist\": \"gamma\", \"cv\": 0.5},"
                    "   {\"op\": \"unlock\", \"lock\": \"b\"}, {\"op\": \"mark\", \"name\": \"wave_end\"}]}]}");
  ts_model m;
  ts_err e;
  ck_assert_msg(ts_model_load(file, NULL, 0, &m, NULL, &e) == 0, "%s", e.msg);
  ck_assert_str_eq(m.name, "full");
  ck_assert_int_eq(m.cores, 3);
  ck_assert_uint_eq(m.npools, 1);
  const ts_pool *p = &m.pools[0];
  ck_assert_ptr_eq(p->policy, &ts_sched_priority_barrier); /* "priority" names it */
  ck_assert_int_eq(p->threshold, 20 * TS_NS_PER_MS);
  ck_assert_int_eq(p->priority_divisor, 4);            /* default */
  ck_assert_int_eq(p->priority_min, 2 * TS_NS_PER_MS); /* default */
  ck_assert_int_eq(p->sched.burst_limit, 4);
  ck_assert_int_eq(m.dispatch, TS_DISPATCH_HASH);
  ck_assert_str_eq(m.task_id, "t1");
  ck_assert_str_eq(m.group_prefix, "g");
  ck_assert_uint_eq(m.nlocks, 2);
  ck_assert_int_eq(m.locks[0].scope, TS_SCOPE_ACTOR); /* default */
  ck_assert_int_eq(m.locks[0].kind, TS_LOCK_ASYNC);   /* default */
  ck_assert_int_eq(m.locks[1].scope, TS_SCOPE_SHARED);
  const ts_class *k = &m.classes[0];
  ck_assert_str_eq(ts_expr_text(k->count), "n");
  ck_assert(ts_expr_uses(k->count, TS_VAR_N));
  ck_assert_int_eq(k->sched_class, TS_CLASS_FOREGROUND);
  ck_assert_int_eq(k->arrival.kind, TS_ARRIVE_AT); /* default */
  ck_assert_int_eq(k->arrival.start, TS_NS_PER_MS);
  ck_assert_int_eq(k->arrival.spacing, TS_NS_PER_MS / 2);
  ck_assert_uint_eq(k->nsteps, 5);
  ck_assert_ptr_eq(k->steps[0].type, &ts_op_lock);
  ck_assert_int_eq(k->steps[0].ref, 1);
  ck_assert_ptr_eq(k->steps[1].type, &ts_op_cpu);
  ck_assert_ptr_eq(k->steps[2].type, &ts_op_io);
  ck_assert_ptr_eq(k->steps[3].type, &ts_op_unlock);
  ck_assert_ptr_eq(k->steps[4].type, &ts_op_mark);
  ck_assert_int_eq(k->steps[1].rows, 5);
  ck_assert(k->steps[1].sliced && k->steps[1].timed);
  ck_assert_str_eq(k->steps[1].label, "cpu");
  ck_assert_int_eq(k->steps[2].cost.mean, 3 * TS_NS_PER_MS); /* io is not scaled */
  ck_assert_int_eq(k->steps[2].cost.kind, TS_DIST_GAMMA);
  ck_assert_double_eq(k->steps[2].cost.cv, 0.5);
  ck_assert(k->steps[2].priority);
  ck_assert_int_eq(k->steps[4].mark, TS_MARK_WAVE_END);
  /* a constant CPU cost is priced by host.cpu_scale at load (model.h) */
  ck_assert_int_eq(k->steps[1].cost.mean, 5 * TS_NS_PER_MS); /* $x = 2.5 ms, cpu_scale 2 */
  ts_model_finish(&m);
  ts_model_finish(NULL);
}
END_TEST

/* A model's name is optional ("model"); an empty one showed as nothing:
 * explain's "model : fifo time-slice queue" read as a model named fifo
 * (walkthrough 23 item 7). Empty is none. */
START_TEST(io_model_empty_name_is_the_default)
{
  static const char *const docs[] = {"{\"name\": \"\", " "\"classes\": [" "{\"count\": 1, \"program\": [" OK_STEP "]}]}",
                                     OK_MODEL};
  for (int i = 0; i < 2; i++) {
    ts_model m;
    ts_err e;
    ck_assert_msg(ts_model_load(write_tmp("model.json", docs[i]), NULL, 0, &m, NULL, &e) == 0, "%s", e.msg);
    ck_assert_str_eq(m.name, "model");
    ts_model_finish(&m);
  }
}
END_TEST

START_TEST(io_set_changes_threshold)
{
  const char *file = write_tmp("model.json", WITH("\"worker\": {\"threshold_ms\": 9}"));
  const char *sets[] = {"worker.threshold_ms=200", "worker.policy=priority", "classes[0].program[0].ms=4"};
  ts_model m;
  ts_err e;
  cJSON *resolved = NULL;
  ck_assert_msg(ts_model_load(file, sets, 3, &m, &resolved, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(m.pools[0].threshold, 200 * TS_NS_PER_MS);
  ck_assert_ptr_eq(m.pools[0].policy, &ts_sched_priority_barrier); /* a non-JSON value is a string */
  ck_assert_int_eq(m.classes[0].steps[0].cost.mean, 4 * TS_NS_PER_MS);
  /* the resolved tree holds the overrides */
  ck_assert_double_eq(cJSON_GetNumberValue(ts_json_get_path(resolved, "worker.threshold_ms")), 200);
  cJSON_Delete(resolved);
  ts_model_finish(&m);
  /* without the override the file's value stands */
  ck_assert_int_eq(ts_model_load(file, NULL, 0, &m, NULL, &e), 0);
  ck_assert_int_eq(m.pools[0].threshold, 9 * TS_NS_PER_MS);
  ts_model_finish(&m);
}
END_TEST

START_TEST(io_set_null_clears_cpu_scale_table)
{
  const char *file = write_tmp(
      "model.json", WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [1, 3], \"scale\": [1, 2]}}"));
  const char *sets[] = {"host.cpu_scale_by_n=null"};
  ts_model m;
  ts_err e;
  ck_assert_msg(ts_model_load(file, NULL, 0, &m, NULL, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(m.nscale, 2);
  ck_assert_double_eq(ts_model_cpu_scale(&m, 2), 1.5);
  ts_model_finish(&m);
  ck_assert_msg(ts_model_load(file, sets, 1, &m, NULL, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(m.nscale, 0);
  ck_assert_double_eq(ts_model_cpu_scale(&m, 2), 1);
  ts_model_finish(&m);
}
END_TEST

START_TEST(io_scenario_fields_and_relative_paths)
{
  write_tmp("m.json", "{}"); /* the scenario loader checks that its files can be read */
  write_tmp("b.json", "{}");
  const char *file = write_tmp("scenario.json", "{\"name\": \"s\", \"model\": \"m.json\", \"baseline\": \"b.json\","
                                                " \"n\": [1, 2, 4], \"workers\": [1, 8], \"replications\": 3,"
                                                " \"seed\": 77, \"set\": {\"worker.threshold_ms\": 200,"
                                                " \"worker.policy\": \"priority\"}}");
  ts_scenario s;
  ts_err e;
  ck_assert_msg(ts_scenario_load(file, &s, &e) == 0, "%s", e.msg);
  ck_assert_str_eq(s.name, "s");
  ck_assert_str_eq(s.model_path, tmp_path("m.json"));
  ck_assert_str_eq(s.baseline_path, tmp_path("b.json"));
  ck_assert_int_eq(s.replications, 3);
  ck_assert_uint_eq(s.seed, 77);
  ck_assert_uint_eq(s.nn, 3);
  ck_assert_int_eq(s.ns[2], 4);
  ck_assert_int_eq(s.nsets, 2);
  ck_assert_str_eq(s.sets[0], "worker.threshold_ms=200");
  ck_assert_str_eq(s.sets[1], "worker.policy=\"priority\"");
  ts_scenario_finish(&s);
  ts_scenario_finish(NULL);
  char *abs = ts_path_relative_to("a/b/s.json", "/x/m.json"), *rel = ts_path_relative_to("s.json", "m.json");
  ck_assert_str_eq(abs, "/x/m.json");
  ck_assert_str_eq(rel, "m.json");
  free(abs);
  free(rel);
  static const char *const folds[][3] = {{"scenarios/s.json", "../models/m.json", "models/m.json"},
                                         {"a/b/s.json", "../../m.json", "m.json"},
                                         {"a/b/s.json", "../../../m.json", "../m.json"},
                                         {"/x/s.json", "../m.json", "/m.json"},
                                         {"s.json", "../m.json", "../m.json"},
                                         {"../s.json", "../m.json", "../../m.json"}};
  for (size_t i = 0; i < sizeof folds / sizeof *folds; i++) {
    char *p = ts_path_relative_to(folds[i][0], folds[i][1]);
    ck_assert_str_eq(p, folds[i][2]);
    free(p);
  }
}
END_TEST

/* A model's file path as a model written elsewhere must say it
 * (tssim calibrate -o OTHER/x.json): kept when absolute or in the same
 * folder, relative from the new folder when the file lies under it, else
 * (another branch of the tree, or a folder that is not there) absolute:
 * never a "../" that a symlinked folder would send elsewhere. */
START_TEST(io_path_rebase_names_the_same_file)
{
  char real[PATH_MAX], f[4][PATH_MAX + 32], want[PATH_MAX + 32];
  ck_assert_ptr_nonnull(realpath(tmp, real));
  snprintf(f[0], sizeof f[0], "%s/a/b", tmp);
  snprintf(f[1], sizeof f[1], "%s/c", tmp);
  ck_assert_int_eq(mkdir(tmp_path("a"), 0777) | mkdir(f[0], 0777) | mkdir(f[1], 0777), 0);
  snprintf(f[0], sizeof f[0], "%s/a/m.json", tmp);
  snprintf(f[1], sizeof f[1], "%s/c/o.json", tmp);
  snprintf(f[2], sizeof f[2], "%s/a/b/o.json", tmp);
  snprintf(f[3], sizeof f[3], "%s/gone/o.json", tmp);
  char want_c[PATH_MAX + 32];
  const char *cases[][3] = {{f[0], "/x/y.json", "/x/y.json"}, {f[0], "b/../f.json", "b/../f.json"},
                            {f[0], "b/f.json", want},         {f[0], "../c/f.json", want_c},
                            {f[0], "b/f.json", want},         {f[0], "b/f.json", "f.json"}};
  const char *to[] = {f[1], f[0], f[1], f[2], f[3], f[2]};
  snprintf(want, sizeof want, "%s/a/b/f.json", real);
  snprintf(want_c, sizeof want_c, "%s/c/f.json", real);
  for (size_t i = 0; i < LEN(cases); i++) {
    char *p = ts_path_rebase(cases[i][0], cases[i][1], to[i]);
    ck_assert_msg(p && strcmp(p, cases[i][2]) == 0, "%zu: %s, want %s", i, p, cases[i][2]);
    free(p);
  }
}
END_TEST

START_TEST(io_cpu_scale_from_baseline)
{
  /* per_group_cpu_ms 400 at n=1 and 200 at n=4 (workers 1); the n=2, workers=2 point is ignored */
  write_tmp("b.json", "{\"points\": [{\"n\": 4, \"metrics\": {\"per_group_cpu_ms\": 200}},"
                      " {\"n\": 1, \"metrics\": {\"per_group_cpu_ms\": 400}},"
                      " {\"n\": 2, \"workers\": 2, \"metrics\": {\"per_group_cpu_ms\": 900}}]}");
  const char *file = write_tmp("model.json", WITH("\"host\": {\"cpu_scale_by_n\": {\"baseline\": \"b.json\"}}"));
  ts_model m;
  ts_err e;
  ck_assert_msg(ts_model_load(file, NULL, 0, &m, NULL, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(m.nscale, 2);
  ck_assert_double_eq(ts_model_cpu_scale(&m, 1), 1);
  ck_assert_double_eq_tol(ts_model_cpu_scale(&m, 2), 1 - 0.5 / 3, 1e-12);
  ck_assert_double_eq(ts_model_cpu_scale(&m, 4), 0.5);
  ck_assert_double_eq(ts_model_cpu_scale(&m, 100), 0.5);
  ts_model_finish(&m);
  /* a baseline without the metric at workers = 1 */
  file = write_tmp("model.json", WITH("\"host\": {\"cpu_scale_by_n\": {\"baseline\": \"b.json\","
                                      " \"metric\": \"wave_ms\"}}"));
  const bad_input c = {"(metric wave_ms)", NULL, "host.cpu_scale_by_n.metric", "records no wave_ms at workers = 1"};
  ck_assert_int_eq(ts_model_load(file, NULL, 0, &m, NULL, &e), -1);
  expect_message(e.msg, file, &c);
}
END_TEST

START_TEST(io_parse_int_list)
{
  int *v;
  size_t n;
  ts_err e;
  ck_assert_int_eq(ts_parse_int_list("1,2,40", "--n", 0, 100, &v, &n, &e), 0);
  ck_assert_uint_eq(n, 3);
  ck_assert_int_eq(v[2], 40);
  free(v);
  static const char *const bad[] = {"", "1,,2", "1,x", "101", "-1", "1.5", ",1"};
  for (size_t i = 0; i < LEN(bad); i++) {
    ck_assert_msg(ts_parse_int_list(bad[i], "--n", 0, 100, &v, &n, &e) == -1, "accepted \"%s\"", bad[i]);
    ck_assert_msg(strncmp(e.msg, "--n: ", 5) == 0, "%s", e.msg);
  }
}
END_TEST

START_TEST(io_baseline_layouts)
{
  const char *pts = write_tmp("points.json", "{\"points\": [{\"n\": 2, \"workers\": 4, \"weight\": 3,"
                                             " \"metrics\": {\"wave_ms\": 882.4, \"slices\": 7}}]}");
  ts_baseline b;
  ts_err e;
  double v = 0;
  ck_assert_msg(ts_baseline_load(pts, &b, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(b.nrec, 2);
  ck_assert_str_eq(b.file, pts);
  ck_assert_int_eq(ts_baseline_find(&b, 2, 4, NULL, NULL, 0, "wave_ms", &v), 1);
  ck_assert_double_eq(v, 882.4);
  ck_assert_double_eq(b.rec[0].weight, 3);
  ck_assert_int_eq(ts_baseline_find(&b, 2, 1, NULL, NULL, 0, "wave_ms", &v), 0);
  ck_assert_int_eq(ts_baseline_find(&b, 2, 4, NULL, NULL, 0, "lock_wait_ms", &v), 0);
  ts_baseline_finish(&b);
  /* one metric at points that differ in workers or in an axis value is not a repeat */
  const char *apart = write_tmp("apart.json", "{\"points\": [{\"n\": 2, \"metrics\": {\"wave_ms\": 1}},"
                                " {\"n\": 2, \"workers\": 2, \"metrics\": {\"wave_ms\": 2}},"
                                " {\"n\": 2, \"axes\": {\"a\": \"x\"}, \"metrics\": {\"wave_ms\": 3}},"
                                " {\"n\": 2, \"axes\": {\"a\": \"y\"}, \"metrics\": {\"wave_ms\": 4}},"
                                " {\"n\": 2, \"axes\": {\"a\": \"y\", \"b\": \"x\"}, \"metrics\": {\"wave_ms\": 5}}]}");
  ck_assert_msg(ts_baseline_load(apart, &b, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(b.nrec, 5);
  ts_baseline_finish(&b);
  /* the shared layout: workers default to 1; every field but n, workers,
   * samples and note is a recorded value; one that the top-level "metrics"
   * object describes (settle_ms, tracker_ms) is loose */
  const char *sc = write_tmp("scaling.json", "{\"system\": \"x\", \"metrics\": {\"settle_ms\": \"s\", \"tracker_ms\": \"t\"},"
                                             " \"scaling\": [{\"n\": 1, \"samples\": 3,"
                                             " \"wave_ms\": 496.8, \"settle_ms\": 998, \"tracker_ms\": 224.8, \"note\": \"a\"},"
                                             " {\"n\": 2, \"wave_ms\": 882.4, \"wave_ratio\": 1.78}]}");
  ck_assert_msg(ts_baseline_load(sc, &b, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(b.nrec, 5);
  ck_assert_int_eq(ts_baseline_find(&b, 1, 1, NULL, NULL, 0, "settle_ms", &v), 1);
  for (size_t i = 0; i < b.nrec; i++)
    ck_assert_int_eq(b.rec[i].loose, strcmp(b.rec[i].metric, "settle_ms") == 0 || strcmp(b.rec[i].metric, "tracker_ms") == 0);
  ts_baseline_keep(&b, reports_no_settle, NULL);
  ck_assert_uint_eq(b.nrec, 3);
  ck_assert_int_eq(ts_baseline_find(&b, 1, 1, NULL, NULL, 0, "settle_ms", &v), 0);
  ck_assert_int_eq(ts_baseline_find(&b, 1, 1, NULL, NULL, 0, "wave_ms", &v), 1);
  ck_assert_double_eq(v, 496.8);
  ck_assert_int_eq(ts_baseline_find(&b, 2, 1, NULL, NULL, 0, "wave_ratio", &v), 1);
  ck_assert_double_eq(v, 1.78);
  ts_baseline_finish(&b);
  ts_baseline_finish(NULL);
}
END_TEST

START_TEST(io_json_set_path_edits_tree)
{
  cJSON *root = cJSON_Parse("{\"a\": {\"b\": [1, {\"c\": 2}]}}");
  ts_err e;
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.b[1].c", "5", &e), 0);
  ck_assert_double_eq(cJSON_GetNumberValue(ts_json_get_path(root, "a.b[1].c")), 5);
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.b[0]", "[1, 2]", &e), 0);
  ck_assert(cJSON_IsArray(ts_json_get_path(root, "a.b[0]")));
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.d", "hello world", &e), 0);
  ck_assert_str_eq(cJSON_GetStringValue(ts_json_get_path(root, "a.d")), "hello world");
  ck_assert_ptr_null(ts_json_get_path(root, "a.b[2]"));
  ck_assert_ptr_null(ts_json_get_path(root, "a.x"));
  ck_assert_ptr_null(ts_json_get_path(root, "a.b[1]c")); /* a key after ']' takes its '.' */
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.b[1]c", "1", &e), -1);
  ck_assert_double_eq(cJSON_GetNumberValue(ts_json_get_path(root, "a.b[1].c")), 5);
  ck_assert_int_eq(ts_json_set_path(root, "f", "", "1", &e), -1);
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.b[x]", "1", &e), -1);
  ck_assert_int_eq(ts_json_set_path(root, "f", "a.b[-1]", "1", &e), -1);
  cJSON_Delete(root);
}
END_TEST

/* Files named by ts_atomic_remove go with the commit, and come back when it
 * fails (here: a target is a folder). */
START_TEST(io_atomic_remove_goes_with_the_commit)
{
  ts_atomic a;
  ts_err e;
  write_tmp("a.txt", "old a");
  write_tmp("stale.png", "old plot");
  ts_atomic_init(&a);
  FILE *f = ts_atomic_open(&a, tmp, "a.txt", &e);
  ck_assert_ptr_nonnull(f);
  fputs("new a", f);
  ck_assert_int_eq(ts_atomic_remove(&a, tmp, "stale.png", &e), 0);
  ck_assert_int_eq(ts_atomic_remove(&a, tmp, "never-there.svg", &e), 0);
  ck_assert_int_eq(access(tmp_path("stale.png"), F_OK), 0); /* nothing happens before the commit */
  ck_assert_int_eq(ts_atomic_commit(&a, &e), 0);
  ck_assert_int_ne(access(tmp_path("stale.png"), F_OK), 0);
  char *text = tu_read_file(tmp_path("a.txt"), NULL);
  ck_assert_str_eq(text, "new a");
  free(text);

  write_tmp("stale.png", "old plot");
  ck_assert_int_eq(mkdir(tmp_path("b.txt"), 0777), 0);
  ts_atomic_init(&a);
  ck_assert_ptr_nonnull(ts_atomic_open(&a, tmp, "a.txt", &e));
  ck_assert_ptr_nonnull(ts_atomic_open(&a, tmp, "b.txt", &e));
  ck_assert_int_eq(ts_atomic_remove(&a, tmp, "stale.png", &e), 0);
  ck_assert_int_eq(ts_atomic_commit(&a, &e), -1);
  ck_assert_ptr_nonnull(strstr(e.msg, "b.txt: cannot replace: not a regular file"));
  text = tu_read_file(tmp_path("stale.png"), NULL);
  ck_assert_str_eq(text, "old plot");
  free(text);
  text = tu_read_file(tmp_path("a.txt"), NULL);
  ck_assert_str_eq(text, "new a");
  free(text);
  ck_assert_int_eq(rmdir(tmp_path("b.txt")), 0);

  /* a folder given with its trailing slash names its files with one (ux20: "//tmp") */
  char slashed[PATH_MAX];
  snprintf(slashed, sizeof slashed, "%s/", tmp);
  ts_atomic_init(&a);
  ck_assert_ptr_nonnull(ts_atomic_open(&a, slashed, "b.txt", &e));
  ck_assert_int_eq(mkdir(tmp_path("b.txt"), 0777), 0);
  ck_assert_int_eq(ts_atomic_commit(&a, &e), -1);
  ck_assert_ptr_nonnull(strstr(e.msg, "b.txt: cannot replace"));
  ck_assert_ptr_null(strstr(e.msg, "//"));
  ck_assert_int_eq(rmdir(tmp_path("b.txt")), 0);

  /* ts_mkdirs names the part of the path that is a file */
  write_tmp("file", "x");
  ck_assert_int_eq(ts_mkdirs(tmp_path("file/sub"), &e), -1);
  ck_assert_ptr_nonnull(strstr(e.msg, "file: cannot create the folder: a file of that name exists"));
  ck_assert_ptr_null(ts_atomic_open(&a, tmp_path("file"), "x.csv", &e));
  ck_assert_ptr_nonnull(strstr(e.msg, "file/x.csv: cannot write: Not a directory"));
}
END_TEST

Suite *io_suite(void)
{
  Suite *s = suite_create("io");
  const TTest *const core[] = {io_model_defaults_and_fields, io_model_empty_name_is_the_default,
                               io_set_changes_threshold,
                               io_set_null_clears_cpu_scale_table,
                               io_scenario_fields_and_relative_paths,
                               io_cpu_scale_from_baseline,
                               io_path_rebase_names_the_same_file,
                               io_parse_int_list,
                               io_baseline_layouts,
                               io_json_set_path_edits_tree,
                               io_atomic_remove_goes_with_the_commit,
                               NULL};
  const TTest *const errors[] = {io_missing_files_are_named, NULL};
  tu_tcase(s, "core", core, make_tmp, remove_tmp, 0);
  TCase *errors_tc = tu_tcase(s, "errors", errors, make_tmp, remove_tmp, 0);
  tcase_add_loop_test(errors_tc, io_model_rejects_bad_input, 0, (int)LEN(bad_models));
  tcase_add_loop_test(errors_tc, io_scenario_rejects_bad_input, 0, (int)LEN(bad_scenarios));
  tcase_add_loop_test(errors_tc, io_baseline_rejects_bad_input, 0, (int)LEN(bad_baselines));
  return s;
}
