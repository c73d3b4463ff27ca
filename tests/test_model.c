/* Model: xxHash32, dispatch, and worlds of small models written as JSON
 * text, with every expected time worked out by hand in the comments. Times are in
 * ms unless said otherwise; "A 0-10" means A runs from 0 to 10 ms. */
#include <check.h>
#include <cjson/cJSON.h>
#include <malloc.h> /* mallopt(M_PERTURB): fresh memory that is not 0 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"
#include "io/model_json.h"
#include "model/dispatch.h"
#include "model/internal.h" /* ts__draw: the cap on one draw */
#include "model/world.h"
#include "model/xxhash32.h"

#include "testutil.h"

#define LEN(a) (sizeof(a) / sizeof *(a))
#define MS(x) ((ts_time)(x) * TS_NS_PER_MS)

/* Steps and classes as JSON text; numbers are written as they are given. */
#define CPU(ms, r) "{\"op\": \"cpu\", \"label\": \"cpu\", \"ms\": " #ms ", \"rows\": " #r "}"
#define SLICED(ms, r) "{\"op\": \"cpu\", \"label\": \"work\", \"ms\": " #ms ", \"rows\": " #r ", \"sliced\": true}"
#define IO(ms) "{\"op\": \"io\", \"label\": \"io\", \"ms\": " #ms "}"
#define PRIO_IO(ms) "{\"op\": \"io\", \"label\": \"prio\", \"ms\": " #ms ", \"priority\": true}"
#define LOCK(d) "{\"op\": \"lock\", \"label\": \"lock\", \"lock\": \"" d "\"}"
#define UNLOCK(d) "{\"op\": \"unlock\", \"label\": \"unlock\", \"lock\": \"" d "\"}"
#define YIELD "{\"op\": \"yield\", \"label\": \"yield\"}"
#define MARK(m) "{\"op\": \"mark\", \"label\": \"mark\", \"name\": \"" m "\"}"
/* A class of cnt actors ("n": the sweep's n), or of one actor arriving at start_ms. */
#define CLASS(nm, cnt, prog) "{\"name\": \"" nm "\", \"count\": " #cnt ", \"program\": [" prog "]}"
#define CLASS_N(nm, prog) "{\"name\": \"" nm "\", \"count\": \"n\", \"program\": [" prog "]}"
#define CLASS_AT(nm, prog, start_ms) \
  "{\"name\": \"" nm "\", \"count\": 1, \"arrival\": {\"start_ms\": " #start_ms "}, \"program\": [" prog "]}"

/* A model with the loader's defaults (fifo, 10 ms threshold, /4 but >= 2 ms
 * while a priority op is in flight, no overheads, one core per worker), but
 * round robin dispatch instead of hash; extra holds more top-level members,
 * each followed by ", ". */
#define MODEL_WITH(extra, classes) \
  "{\"name\": \"test\", \"dispatch\": {\"policy\": \"round_robin\"}, " extra "\"classes\": [" classes "]}"
#define MODEL(classes) MODEL_WITH("", classes)

/* A model and one world of it (the world reads the model while it lives). */
typedef struct run {
  ts_model m;
  ts_world w;
} run;

/* Build r's world of (n, workers) under seed 1 with observer obs (may be
 * NULL) and run it; returns ts_world_run's status. The model must be in r->m. */
static int run_observed(run *r, int n, int workers, const ts_observer *obs)
{
  ts_world_spec spec = tu_world_spec(n, workers, 1);
  ck_assert_msg(ts_world_init(&r->w, &r->m, &spec, obs) == 0, "%s", r->w.errmsg);
  return ts_world_run(&r->w);
}

/* Load json into r and run (n, workers) under seed 1; the caller checks the
 * status and ends with run_finish. */
static int run_model(run *r, const char *json, int n, int workers)
{
  tu_model(json, &r->m);
  return run_observed(r, n, workers, NULL);
}

static void run_finish(run *r)
{
  ts_world_finish(&r->w);
  ts_model_finish(&r->m);
}

/* Actor's measurements (a copy: ts_world_stats; a few live at once). */
static const ts_actor_stats *st(const ts_world *w, int actor)
{
  static ts_actor_stats copies[8];
  static unsigned next;
  ts_actor_stats *s = &copies[next++ % 8];
  *s = ts_world_stats(w, actor);
  return s;
}

/* ---- xxHash32 ---- */

/* The sanity buffer of xxHash's own self-test (xxhsum): byte i is the top
 * byte of PRIME32 * PRIME64^i. */
static void xxh_sanity_buffer(unsigned char *buf, size_t len)
{
  uint64_t gen = UINT64_C(2654435761);
  for (size_t i = 0; i < len; i++) {
    buf[i] = (unsigned char)(gen >> 56);
    gen *= UINT64_C(11400714785074694797);
  }
}

/* Constant folding: with $a, $b, $c folded as constants at compile time,
 * every expression gives bit for bit what it gives when they are variables
 * read at evaluation (the arithmetic is the same, only done earlier). */
static int fold_resolve(void *ctx, const char *name, ts_expr_var *var, double *c)
{
  static const double vals[] = {3, -2.5, 7e-3};
  const int fold = *(const int *)ctx;
  if (name[0] == '$' && name[1] >= 'a' && name[1] <= 'c' && !name[2]) {
    if (fold) {
      *c = vals[name[1] - 'a'];
      return 2;
    }
    *var = (ts_expr_var){.kind = 1, .index = name[1] - 'a'};
    return 1;
  }
  if (strcmp(name, "i") == 0) {
    *var = (ts_expr_var){.kind = 0};
    return 1;
  }
  return 0;
}

static double fold_get(void *ctx, ts_expr_var v)
{
  static const double vals[] = {3, -2.5, 7e-3};
  return v.kind == 1 ? vals[v.index] : *(const double *)ctx;
}

START_TEST(model_expr_folding_keeps_every_bit)
{
  static const char *const texts[] = {
    "$a * $b + i", "($a + $b) * ($a - $c) / i", "i // ($a + 1) + $b % $a", "-$a + !$b * i", "$c * 1e9 / 3 + i * $c",
    "min($a, $b) + max(i, $c) + floor($b) + ceil($c) + abs($b)", "$a > $b ? i : $c", "i > 2 ? $a * $c : $b / $c",
    "$a == 3 && $b < 0 || i", "($a * ($b * ($c * ($a + i))))", "1 / 3 * $c - 0.1 * 3", "$b // 0 + i", "$a % 0 + i",
  };
  for (size_t k = 0; k < sizeof texts / sizeof *texts; k++) {
    char err[128];
    int yes = 1, no = 0;
    ts_expr *f = ts_expr_compile(texts[k], fold_resolve, &yes, err, sizeof err);
    ts_expr *v = ts_expr_compile(texts[k], fold_resolve, &no, err, sizeof err);
    ck_assert_msg(f && v, "%s: %s", texts[k], err);
    for (double i = -3; i <= 5; i += 0.5) {
      double a = ts_expr_eval(f, fold_get, &i), b = ts_expr_eval(v, fold_get, &i);
      ck_assert_msg(memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b), "%s at i = %g: %.17g folded, %.17g not",
                    texts[k], i, a, b);
    }
    ck_assert_str_eq(ts_expr_text(f), texts[k]);
    ts_expr_free(f);
    ts_expr_free(v);
  }
  /* an expression of constants only is a constant */
  int yes = 1;
  char err[128];
  double c;
  ts_expr *e = ts_expr_compile("$a * $b + 1", fold_resolve, &yes, err, sizeof err);
  ck_assert(e && ts_expr_is_constant(e, &c));
  ck_assert(c == 3 * -2.5 + 1);
  ts_expr_free(e);
}
END_TEST

/* Append text to the expression being built in buf (cap bytes, *len used). */
static void put(char *buf, size_t cap, size_t *len, const char *text)
{
  size_t n = strlen(text);
  ck_assert_uint_lt(*len + n, cap);
  memcpy(buf + *len, text, n + 1);
  *len += n;
}

/* Append a random expression of depth at most d to buf, from state *s:
 * numbers, i, $a..$c, every operator and function, ?:. */
static void random_expr(uint64_t *s, int d, char *buf, size_t cap, size_t *len)
{
  static const char *const leaves[] = {"i", "$a", "$b", "$c", "0", "1", "2", "3", "0.5", "7", "1e9", "0.1"};
  static const char *const bins[] = {" + ", " - ", " * ", " / ", " // ", " % ", " == ", " != ", " < ", " <= ", " > ",
                                     " >= ", " && ", " || "};
  static const char *const fns[] = {"min(", "max(", "floor(", "ceil(", "abs("};
  *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  unsigned r = (unsigned)(*s >> 33), pick = r / 8;
  if (d == 0 || r % 8 < 2) {
    put(buf, cap, len, leaves[pick % LEN(leaves)]);
  } else if (r % 8 < 5) {
    put(buf, cap, len, "(");
    random_expr(s, d - 1, buf, cap, len);
    put(buf, cap, len, bins[pick % LEN(bins)]);
    random_expr(s, d - 1, buf, cap, len);
    put(buf, cap, len, ")");
  } else if (r % 8 == 5) {
    put(buf, cap, len, pick % 2 ? "-(" : "!(");
    random_expr(s, d - 1, buf, cap, len);
    put(buf, cap, len, ")");
  } else if (r % 8 == 6) {
    put(buf, cap, len, fns[pick % LEN(fns)]);
    random_expr(s, d - 1, buf, cap, len);
    if (pick % LEN(fns) < 2) { /* min, max */
      put(buf, cap, len, ", ");
      random_expr(s, d - 1, buf, cap, len);
    }
    put(buf, cap, len, ")");
  } else {
    put(buf, cap, len, "(");
    random_expr(s, d - 1, buf, cap, len);
    put(buf, cap, len, " ? ");
    random_expr(s, d - 1, buf, cap, len);
    put(buf, cap, len, " : ");
    random_expr(s, d - 1, buf, cap, len);
    put(buf, cap, len, ")");
  }
}

/* The evaluation of compiled code (numbers fused into the operators after
 * them) gives bit for bit what the reference machine gives on the code one
 * instruction per value and operator: on moq's lock indexes and 4,000
 * random expressions, with $a..$c folded and as variables, at 17 values of i. */
START_TEST(model_expr_fused_code_matches_the_plain_code)
{
  static const char *const fixed[] = {"$a * $b + (i - 1 - $c // 2) % $a", "i * $a + (i - 1 - i // 3) % $a", "i",
                                      "$a", "2", "i // 2 - 1", "1 - i", "2 / i", "2 % (i - 1)", "i >= 1 || 0",
                                      "max(i, 3) - min(2, i)", "-i * 2 + !i"};
  uint64_t s = 42;
  int numbers = 0;
  for (int k = 0; k < 4000 + (int)LEN(fixed); k++) {
    char text[2048] = "";
    size_t len = 0;
    if (k < (int)LEN(fixed))
      put(text, sizeof text, &len, fixed[k]);
    else
      random_expr(&s, 4, text, sizeof text, &len);
    for (int fold = 0; fold < 2; fold++) {
      char err[128];
      ts_expr *e = ts_expr_compile(text, fold_resolve, &fold, err, sizeof err);
      ck_assert_msg(e, "%s: %s", text, err);
      for (double i = -4; i <= 4; i += 0.5) {
        double a = ts_expr_eval(e, fold_get, &i), b = ts__expr_eval_plain(e, fold_get, &i);
        ck_assert_msg(memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b), "%s at i = %g: %.17g, reference %.17g",
                      text, i, a, b);
        numbers += a == a;
      }
      ts_expr_free(e);
    }
  }
  ck_assert_int_gt(numbers, 4000); /* most are numbers, not NaN */
}
END_TEST

START_TEST(model_xxh32_published_vectors)
{
  static const char nobody[] = "Nobody inspects the spammish repetition";
  ck_assert_uint_eq(ts_xxh32("", 0, 0), 0x02CC5D05u);
  ck_assert_uint_eq(ts_xxh32("a", 1, 0), 0x550D7456u);
  ck_assert_uint_eq(ts_xxh32("abc", 3, 0), 0x32D153FFu);
  ck_assert_uint_eq(ts_xxh32(nobody, strlen(nobody), 0), 0xE2293B2Fu);
  /* xxhsum's sanity check: every length branch, seed 0 and seed PRIME32 */
  static const struct {
    size_t len;
    uint32_t seed, want;
  } v[] = {
    {0, 0x9E3779B1u, 0x36B78AE7u},  {1, 0, 0xCF65B03Eu},   {1, 0x9E3779B1u, 0xB4545AA4u},
    {14, 0, 0x1208E7E2u},           {14, 0x9E3779B1u, 0x6AF1D1FEu}, {16, 0, 0x93BA3759u},
    {16, 0x9E3779B1u, 0xA94FC1E1u}, {17, 0, 0x89FDC23Eu},  {17, 0x9E3779B1u, 0xC9910739u},
    {222, 0, 0x5BD11DBDu},          {222, 0x9E3779B1u, 0x58803C5Fu},
  };
  unsigned char buf[222];
  xxh_sanity_buffer(buf, sizeof buf);
  for (size_t i = 0; i < LEN(v); i++)
    ck_assert_msg(ts_xxh32(buf, v[i].len, v[i].seed) == v[i].want, "len %zu seed %#x: got %#x, want %#x", v[i].len,
                  v[i].seed, ts_xxh32(buf, v[i].len, v[i].seed), v[i].want);
}
END_TEST

/* ---- dispatch ---- */

#define ONE_MS CPU(1, 1)

START_TEST(model_dispatch_round_robin_is_i_mod_w)
{
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS_N("job", ONE_MS)), 10, 3), TS_WORLD_OK);
  for (int i = 0; i < 10; i++)
    ck_assert_int_eq(st(&r.w, i)->worker, i % 3);
  run_finish(&r);
}
END_TEST

START_TEST(model_dispatch_least_loaded_lowest_index_on_ties)
{
  static const char json[] = "{\"dispatch\": {\"policy\": \"least_loaded\"}, \"classes\": [" CLASS_N("job", ONE_MS) "]}";
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(r.m.dispatch, TS_DISPATCH_LEAST_LOADED);
  static const int loads[][4] = {{0, 0, 0, 0}, {2, 1, 1, 3}, {1, 1, 0, 0}, {5, 4, 4, 4}, {3, 3, 3, 2}};
  static const int want[] = {0, 1, 2, 1, 3};
  for (size_t c = 0; c < LEN(want); c++)
    ck_assert_int_eq(ts_dispatch_pick(&r.m, 99, 4, loads[c]), want[c]);
  /* in a world the load is the placement so far: 0 1 2 0 1 2 0 */
  ck_assert_int_eq(run_observed(&r, 7, 3, NULL), TS_WORLD_OK);
  for (int i = 0; i < 7; i++)
    ck_assert_int_eq(st(&r.w, i)->worker, i % 3);
  run_finish(&r);
}
END_TEST

START_TEST(model_dispatch_hash_is_xxh32_of_task_slash_group)
{
  char id[32], key[64];
  ts_dispatch_group_id("cg", 7, id, sizeof id);
  ck_assert_str_eq(id, "cg7");
  ck_assert_uint_eq(ts_xxh32("task/cg7", 8, 0), 0xB07C6EA2u); /* computed independently */
  ck_assert_int_eq(ts_dispatch_hash("task", "cg7", 4), 0xB07C6EA2u % 4);
  /* hash dispatch, task "task", prefix "cg": the loader's defaults */
  static const char json[] = "{\"classes\": [" CLASS_N("job", ONE_MS) "]}";
  /* xxh32("task/cg<i>") % 4 for i = 0..9, computed independently */
  static const int want[] = {0, 1, 3, 0, 2, 3, 2, 2, 3, 3};
  run r;
  ck_assert_int_eq(run_model(&r, json, 10, 4), TS_WORLD_OK);
  ck_assert_int_eq(r.m.dispatch, TS_DISPATCH_HASH);
  for (int i = 0; i < 10; i++) {
    snprintf(key, sizeof key, "task/cg%d", i);
    ck_assert_int_eq(st(&r.w, i)->worker, (int)(ts_xxh32(key, strlen(key), 0) % 4));
    ck_assert_int_eq(st(&r.w, i)->worker, want[i]);
  }
  run_finish(&r);
}
END_TEST

START_TEST(model_dispatch_find_by_name)
{
  ck_assert_int_eq(ts_dispatch_find("hash"), TS_DISPATCH_HASH);
  ck_assert_int_eq(ts_dispatch_find("round_robin"), TS_DISPATCH_ROUND_ROBIN);
  ck_assert_int_eq(ts_dispatch_find("least_loaded"), TS_DISPATCH_LEAST_LOADED);
  ck_assert_int_eq(ts_dispatch_find("random"), -1);
  ck_assert_str_eq(ts_dispatch_name(TS_DISPATCH_LEAST_LOADED), "least_loaded");
}
END_TEST

/* ---- locks ---- */

/* lock; cpu 10; io 20 (holding the lock); cpu 5; unlock: 35 ms under the lock */
#define LOCKED_WORK LOCK("m") ", " CPU(10, 1) ", " IO(20) ", " CPU(5, 1) ", " UNLOCK("m")
#define SHARED_M "\"locks\": [{\"name\": \"m\", \"scope\": \"shared\"}], "

/* Observer: lock hand-overs (from, to, when). */
typedef struct handovers {
  int from[8], to[8];
  ts_time at[8];
  int len;
} handovers;

static void on_wake(void *data, ts_time t, int from, int to)
{
  handovers *h = data;
  if (h->len < 8) {
    h->from[h->len] = from;
    h->to[h->len] = to;
    h->at[h->len] = t;
  }
  h->len++;
}

START_TEST(model_lock_shared_fifo_handover)
{
  /* holder arrives at 0; actor 2 ("first") at 1; actor 1 ("second") at 2; one worker each.
   * holder: 0-35. first waits 1-35, runs 35-70. second waits 2-70, runs 70-105. */
  static const char json[] = MODEL_WITH(SHARED_M, CLASS_AT("holder", LOCKED_WORK, 0) ", "
                                                  CLASS_AT("second", LOCKED_WORK, 2) ", "
                                                  CLASS_AT("first", LOCKED_WORK, 1));
  handovers h = {0};
  ts_observer obs = {.data = &h, .wake = on_wake};
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(run_observed(&r, 0, 3, &obs), TS_WORLD_OK);
  static const ts_time done[] = {35, 105, 70}, wait[] = {0, 68, 34};
  for (int a = 0; a < 3; a++) {
    ck_assert_int_eq(st(&r.w, a)->done, MS(done[a]));
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_LOCK_WAIT], MS(wait[a]));
    ck_assert_int_eq(st(&r.w, a)->lock_work, MS(35)); /* includes the 20 ms io */
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_IO], MS(20));
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_READY], 0);
  }
  ck_assert_int_eq(h.len, 2);
  ck_assert_int_eq(h.from[0], 0);
  ck_assert_int_eq(h.to[0], 2);
  ck_assert_int_eq(h.at[0], MS(35));
  ck_assert_int_eq(h.from[1], 2);
  ck_assert_int_eq(h.to[1], 1);
  ck_assert_int_eq(h.at[1], MS(70));
  ck_assert_int_eq(r.w.locks[0].owner, -1);
  run_finish(&r);
}
END_TEST

/* Two actors running LOCKED_WORK on one worker, with the lock in a scope ("actor", "shared"). */
static void two_on_one_worker(const char *scope, run *r)
{
  tu_modelf(&r->m,
            MODEL_WITH("\"locks\": [{\"name\": \"m\", \"scope\": \"%s\"}], ", CLASS("job", 2, LOCKED_WORK)), scope);
  ck_assert_int_eq(run_observed(r, 0, 1, NULL), TS_WORLD_OK);
}

START_TEST(model_lock_per_actor_never_contends)
{
  /* A0 cpu 0-10, io 10-30; A1 cpu 10-20 (its own lock), io 20-40; A0 30-35; A1 40-45 */
  run r;
  two_on_one_worker("actor", &r);
  ck_assert_int_eq(r.m.locks[0].scope, TS_SCOPE_ACTOR);
  ck_assert_int_eq(r.w.nlock_inst, 2);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(35));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(45));
  for (int a = 0; a < 2; a++) {
    ck_assert_int_eq(st(&r.w, a)->state[TS_ACTOR_LOCK_WAIT], 0);
    ck_assert_int_eq(st(&r.w, a)->lock_work, MS(35));
  }
  run_finish(&r);
}
END_TEST

START_TEST(model_lock_shared_serializes_one_worker)
{
  /* A0 as above, done 35. A1 starts at 10 (ready_wait 10), waits 10-35 for the lock,
   * is handed it at 35 and runs 35-45, io 45-65, 65-70. */
  run r;
  two_on_one_worker("shared", &r);
  ck_assert_int_eq(r.m.locks[0].scope, TS_SCOPE_SHARED);
  ck_assert_int_eq(r.w.nlock_inst, 1);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(35));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(70));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_LOCK_WAIT], MS(25));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_READY], MS(10));
  ck_assert_int_eq(st(&r.w, 1)->lock_work, MS(35));
  run_finish(&r);
}
END_TEST

START_TEST(model_lock_released_at_the_end_hands_over)
{
  /* a program that never unlocks is refused by the loader */
  static const char never[] = MODEL_WITH(SHARED_M, CLASS("job", 2, LOCK("m") ", " CPU(10, 1)));
  cJSON *root = cJSON_Parse(never);
  ts_model m;
  ts_err e;
  ck_assert_int_eq(ts_model_from_json(root, "test.json", &m, &e), -1);
  ck_assert_msg(strstr(e.msg, "test.json: classes[0].program: lock \"m\" is never released"), "%s", e.msg);
  cJSON_Delete(root);
  /* the unlock as its last step: A0 holds 0-10 and releases at its end; A1 gets it at 10 */
  static const char json[] = MODEL_WITH(SHARED_M, CLASS("job", 2, LOCK("m") ", " CPU(10, 1) ", " UNLOCK("m")));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(10));
  ck_assert_int_eq(st(&r.w, 0)->lock_work, MS(10));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_LOCK_WAIT], MS(10));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(20));
  ck_assert_int_eq(st(&r.w, 1)->lock_work, MS(10));
  ck_assert_int_eq(r.w.locks[0].owner, -1);
  run_finish(&r);
}
END_TEST

START_TEST(model_lock_cycle_deadlocks)
{
  static const char json[] =
      MODEL_WITH("\"locks\": [{\"name\": \"a\", \"scope\": \"shared\"}, {\"name\": \"b\", \"scope\": \"shared\"}], ",
                 CLASS("ab", 1, LOCK("a") ", " CPU(10, 1) ", " LOCK("b") ", " UNLOCK("b") ", " UNLOCK("a")) ", "
                 CLASS("ba", 1, LOCK("b") ", " CPU(10, 1) ", " LOCK("a") ", " UNLOCK("a") ", " UNLOCK("b")));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_STUCK);
  ck_assert_int_eq(r.w.done, 0);
  ck_assert_int_eq(ts_world_actor(&r.w, 0)->state, TS_ACTOR_LOCK_WAIT);
  ck_assert_int_eq(ts_world_actor(&r.w, 1)->state, TS_ACTOR_LOCK_WAIT);
  ck_assert_int_eq(r.w.sim.now, MS(10));
  run_finish(&r);
}
END_TEST

/* A broken invariant stops the run with TS_WORLD_INTERNAL and a diagnostic
 * naming the time, the event and what broke, rather than a wrong table:
 * a worker whose busy time is made to exceed the elapsed time trips the
 * check at its first piece of CPU. */
START_TEST(model_broken_invariant_stops_the_run)
{
  static const char json[] = MODEL_WITH("", CLASS("a", 1, CPU(10, 1)));
  run r;
  tu_model(json, &r.m);
  ts_world_spec sp = tu_world_spec(0, 1, 1);
  ck_assert_int_eq(ts_world_init(&r.w, &r.m, &sp, NULL), 0);
  r.w.workers[0].busy = MS(1000); /* more than the 10 ms the run will last */
  ck_assert_int_eq(ts_world_run(&r.w), TS_WORLD_INTERNAL);
  ck_assert_msg(strstr(r.w.errmsg, "at t = 10000000 ns (event ") &&
                    strstr(r.w.errmsg, "): worker 0 busy 1010000000 ns in 10000000 ns of time"),
                "%s", r.w.errmsg);
  run_finish(&r);
}
END_TEST

/* ---- slicing and the priority threshold ---- */

typedef struct prio_result {
  int64_t slices, yields;
  ts_time work_done, prio_ready_wait, prio_done;
} prio_result;

/* Actor 0 starts an io of 100 ms (priority or not) at 0; actor 1 does 200 ms
 * of sliced work in 1 ms rows, on the same worker (workers = 1) or not. */
static prio_result prio_case(int threshold_ms, int min_ms, int priority, int workers)
{
  run r;
  tu_modelf(&r.m,
            MODEL_WITH("\"worker\": {\"threshold_ms\": %d, \"priority_min_ms\": %d}, ",
                       "{\"name\": \"io\", \"count\": 1, \"program\": [%s]}, " CLASS("work", 1, SLICED(200, 200))),
            threshold_ms, min_ms, priority ? PRIO_IO(100) : IO(100));
  ck_assert_int_eq(run_observed(&r, 0, workers, NULL), TS_WORLD_OK);
  prio_result res = {st(&r.w, 1)->slices, st(&r.w, 1)->yields, st(&r.w, 1)->done,
                     st(&r.w, 0)->state[TS_ACTOR_READY], st(&r.w, 0)->done};
  ck_assert_int_eq(st(&r.w, 1)->timer, MS(200));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_IO], MS(100));
  for (int i = 0; i < r.w.nworkers; i++)
    ck_assert_int_eq(r.w.workers[i].prio_inflight, 0);
  run_finish(&r);
  return res;
}

static void expect_prio(prio_result r, int64_t slices, int64_t yields, int done_ms, int ready_wait_ms)
{
  ck_assert_int_eq(r.slices, slices);
  ck_assert_int_eq(r.yields, yields);
  ck_assert_int_eq(r.work_done, MS(done_ms));
  ck_assert_int_eq(r.prio_ready_wait, MS(ready_wait_ms));
}

START_TEST(model_threshold_plain_io_keeps_threshold)
{
  /* threshold 10: a slice ends after the first row past 10 ms, so 11 ms slices:
   * 18 of 11 ms (198), then 2 ms: 19 slices. The io callback waits for the
   * slice 99-110. */
  expect_prio(prio_case(10, 2, 0, 1), 19, 18, 200, 10);
}
END_TEST

START_TEST(model_threshold_priority_io_quarters_threshold)
{
  /* threshold 10 / 4 = 2.5 ms (> min 2): 3 ms slices while the priority io is in
   * flight: 34 slices to 102 (the callback at 100 waits for the slice 99-102),
   * then 11 ms slices: 8 to 190 and a last one of 10: 34 + 9 = 43 slices. */
  expect_prio(prio_case(10, 2, 1, 1), 43, 42, 200, 2);
}
END_TEST

START_TEST(model_threshold_priority_min_applies)
{
  /* threshold 20 / 4 = 5 < min 7: 7 ms, so 8 ms slices: 13 to 104 (callback waits
   * 100-104), then 21 ms slices: 4 to 188 and a last one of 12: 13 + 5 = 18. */
  expect_prio(prio_case(20, 7, 1, 1), 18, 17, 200, 4);
}
END_TEST

START_TEST(model_threshold_priority_io_on_other_worker_no_effect)
{
  /* the priority io runs on worker 0; worker 1 slices at the full threshold */
  prio_result r = prio_case(10, 2, 1, 2);
  expect_prio(r, 19, 18, 200, 0);
  ck_assert_int_eq(r.prio_done, MS(100));
}
END_TEST

/* A 40 ms job sliced in 1 ms rows (threshold 10, 2.5 while a priority io is
 * in flight) and, arriving at 5 ms, a client of `events` events, each a
 * priority io of io_us microseconds and cpu_us of CPU; priority_yield as
 * given. The job runs 0-11 as its arrival callback and 11-22 in that
 * iteration's check phase; the client's arrival callback runs at 22. */
static void timer_case(const char *yield, int events, int io_us, int cpu_us, run *r)
{
  tu_modelf(&r->m,
            MODEL_WITH("\"worker\": {\"threshold_ms\": 10, \"priority_yield\": \"%s\"}, ",
                       CLASS("big", 1, SLICED(40, 40)) ", "
                       CLASS_AT("new", "{\"op\": \"repeat\", \"count\": %d, \"steps\": [{\"op\": \"io\", \"ms\": %g,"
                                       " \"priority\": true}, {\"op\": \"cpu\", \"ms\": %g}]}", 5)),
            yield, events, io_us / 1000.0, cpu_us / 1000.0);
  ck_assert_int_eq(run_observed(r, 0, 1, NULL), TS_WORLD_OK);
}

#define US(x) ((ts_time)(x) * 1000)

START_TEST(model_priority_yield_timer_waits_a_timers_phase)
{
  run r;
  /* immediate, one event of a 6 ms io and 1 ms: io 22-28; the job's laps are
   * 2.5 ms while it is in flight: 22-25, 25-28; the callback 28-29; the job
   * 29-40, 40-41 at 10 ms again; queued 1 ms in all (28-29) */
  timer_case("immediate", 1, 6000, 1000, &r);
  ck_assert_int_eq(st(&r.w, 1)->done, MS(29));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(41));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(1));
  run_finish(&r);
  /* timer: the job's yield at 25 sees the io in flight: a 1 ms timer, the
   * loop idles 25-26, the job runs 26-29 in the timers phase (the io ends at
   * 28, mid-lap); the callback 29-30 while the job waits for its next timer
   * (29-30), then 30-41 and 41-42; queued 2 ms */
  timer_case("timer", 1, 6000, 1000, &r);
  ck_assert_int_eq(r.m.pools[0].priority_timer, MS(1));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(30));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(42));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(2));
  run_finish(&r);
  /* two fast events (0.4 ms io, 0.5 ms CPU). immediate: io 22-22.4, its
   * callback waits for the lap 22-25, runs 25-25.5; io 25.5-25.9 inside the
   * lap 25.5-28.5; callback 28.5-29 */
  timer_case("immediate", 2, 400, 500, &r);
  ck_assert_int_eq(st(&r.w, 1)->done, US(29000));
  run_finish(&r);
  /* timer: the second io (25.5-25.9) ends inside the timer's gap (25-26):
   * its callback runs at once, 25.9-26.4 */
  timer_case("timer", 2, 400, 500, &r);
  ck_assert_int_eq(st(&r.w, 1)->done, US(26400));
  run_finish(&r);
}
END_TEST

/* ---- overheads ---- */

/* One actor: 40 ms sliced in 1 ms rows; threshold 9 makes 10 ms slices. */
static void sliced_alone(int yield_overhead_ms, run *r)
{
  tu_modelf(&r->m, MODEL_WITH("\"worker\": {\"threshold_ms\": 9, \"yield_overhead_ms\": %d}, ",
                              CLASS("job", 1, SLICED(40, 40))),
            yield_overhead_ms);
  ck_assert_int_eq(r->m.pools[0].yield_overhead, MS(yield_overhead_ms));
  ck_assert_int_eq(run_observed(r, 0, 1, NULL), TS_WORLD_OK);
  ck_assert_int_eq(st(&r->w, 0)->slices, 4);
  ck_assert_int_eq(st(&r->w, 0)->yields, 3);
  ck_assert_int_eq(st(&r->w, 0)->timer, MS(40));
  ck_assert_int_eq(st(&r->w, 0)->cpu, MS(40));
}

START_TEST(model_yield_overhead_is_loop_cpu_not_timer_cpu)
{
  run r;
  sliced_alone(0, &r);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(40));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], 0);
  ck_assert_int_eq(r.w.workers[0].busy, MS(40));
  run_finish(&r);
  /* three yields, 1 ms of loop CPU each: 0-10, 11-21, 22-32, 33-43 */
  sliced_alone(1, &r);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(43));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(3));
  ck_assert_int_eq(r.w.workers[0].busy, MS(43));
  run_finish(&r);
}
END_TEST

START_TEST(model_loop_overhead_once_per_busy_iteration)
{
  /* loop 0-1, A io 1-6; idle; callback at 6: loop 6-7, A cpu 7-17 */
  static const char json[] =
      MODEL_WITH("\"worker\": {\"loop_overhead_ms\": 1}, ", CLASS("job", 1, IO(5) ", " CPU(10, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(17));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_READY], MS(2));
  ck_assert_int_eq(st(&r.w, 0)->cpu, MS(10));
  ck_assert_int_eq(r.w.workers[0].busy, MS(12));
  run_finish(&r);
}
END_TEST

START_TEST(model_yield_step_rejoins_tail)
{
  /* A0 0-5 yields, A1 5-10 yields, A0 10-15, A1 15-20 */
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS("job", 2, CPU(5, 1) ", " YIELD ", " CPU(5, 1))), 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(15));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(20));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_QUEUED], MS(5));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_QUEUED], MS(5));
  ck_assert_int_eq(st(&r.w, 0)->yields, 1);
  ck_assert_int_eq(st(&r.w, 0)->slices, 0); /* untimed steps count no slices... */
  ck_assert_int_eq(st(&r.w, 0)->timer, 0);  /* ...and no timer CPU */
  ck_assert_int_eq(st(&r.w, 0)->cpu, MS(10));
  run_finish(&r);
}
END_TEST

START_TEST(model_slices_count_run_periods_not_steps)
{
  /* two timed 3 ms steps. Threshold 10: one run period, one slice. Threshold 2:
   * no check after a step's last row (lap 3 ms), so the second step's first
   * row (lap 4 > 2) yields: two run periods, two slices */
  static const int thresholds[] = {10, 2};
  static const int64_t want_slices[] = {1, 2}, want_yields[] = {0, 1};
  for (int c = 0; c < 2; c++) {
    run r;
    tu_modelf(&r.m, MODEL_WITH("\"worker\": {\"threshold_ms\": %d}, ", CLASS("job", 1, SLICED(3, 3) ", " SLICED(3, 3))),
              thresholds[c]);
    ck_assert_int_eq(run_observed(&r, 0, 1, NULL), TS_WORLD_OK);
    ck_assert_int_eq(st(&r.w, 0)->slices, want_slices[c]);
    ck_assert_int_eq(st(&r.w, 0)->yields, want_yields[c]);
    ck_assert_int_eq(st(&r.w, 0)->done, MS(6));
    run_finish(&r);
  }
}
END_TEST

/* ---- processor sharing ---- */

/* Run one class of n actors of `ms` non-sliced CPU on `workers` workers and `cores` cores. */
static void shared_host(int cores, int n, int workers, int ms, int want_done_ms)
{
  run r;
  tu_modelf(&r.m, MODEL_WITH("\"host\": {\"cores\": %d}, ",
                             "{\"name\": \"job\", \"count\": \"n\", \"program\": [{\"op\": \"cpu\", \"ms\": %d}]}"),
            cores, ms);
  ck_assert_int_eq(run_observed(&r, n, workers, NULL), TS_WORLD_OK);
  for (int a = 0; a < n; a++)
    ck_assert_msg(st(&r.w, a)->done == MS(want_done_ms), "cores %d, actor %d: done at %lld ns, want %d ms", cores, a,
                  (long long)st(&r.w, a)->done, want_done_ms);
  run_finish(&r);
}

START_TEST(model_processor_sharing_slows_when_cores_are_short)
{
  shared_host(1, 2, 2, 100, 200); /* two workers on one core: half speed each */
  shared_host(2, 2, 2, 100, 100);
  shared_host(0, 2, 2, 100, 100); /* 0: a core per worker */
  shared_host(2, 3, 3, 100, 150); /* three on two: 2/3 speed */
}
END_TEST

START_TEST(model_processor_sharing_replans_when_a_worker_idles)
{
  /* one core: both at half speed until the 50 ms job is done at 100; then the
   * 100 ms job (50 done) runs alone at full speed: done at 150 */
  static const char json[] =
      MODEL_WITH("\"host\": {\"cores\": 1}, ", CLASS("long", 1, CPU(100, 1)) ", " CLASS("short", 1, CPU(50, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 1)->done, MS(100));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(150));
  ck_assert_int_eq(st(&r.w, 0)->cpu, MS(150)); /* cpu is wall time on a CPU */
  ck_assert_int_eq(r.w.busy, 0);
  run_finish(&r);
}
END_TEST

/* Slice pieces (worker 0 only) seen through the run observer. */
typedef struct pieces {
  ts_time t0[32], t1[32];
  int len;
} pieces;

static void on_run(void *data, const ts_run_piece *r)
{
  pieces *p = data;
  if (r->worker == 0 && p->len < 32) {
    p->t0[p->len] = r->t0;
    p->t1[p->len] = r->t1;
    p->len++;
  }
}

/* Worker 0: `rows` ms of sliced work in 1 ms rows (threshold 9); worker 1:
 * `other_ms` of plain CPU; one core between them. */
static void sliced_beside(int rows, int other_ms, run *r, pieces *seen)
{
  ts_observer obs = {.data = seen, .run = on_run};
  tu_modelf(&r->m,
            MODEL_WITH("\"host\": {\"cores\": 1}, \"worker\": {\"threshold_ms\": 9}, ",
                       "{\"name\": \"work\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"label\": \"work\", "
                       "\"ms\": %d, \"rows\": %d, \"sliced\": true}]}, "
                       "{\"name\": \"other\", \"count\": 1, \"program\": [{\"op\": \"cpu\", \"ms\": %d}]}"),
            rows, rows, other_ms);
  ck_assert_int_eq(run_observed(r, 0, 2, &obs), TS_WORLD_OK);
}

START_TEST(model_processor_sharing_slices_by_wall_time)
{
  /* at half speed a 1 ms row takes 2 ms: the lap passes 9 ms after 5 rows, so
   * 40 rows are 8 slices of 10 ms while the other worker (40 ms of CPU) is busy */
  pieces seen = {0};
  run r;
  sliced_beside(40, 40, &r, &seen);
  ck_assert_int_eq(st(&r.w, 0)->slices, 8);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(80));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(80));
  ck_assert_int_eq(seen.len, 8);
  ck_assert_int_eq(seen.t1[0], MS(10));
  run_finish(&r);
}
END_TEST

START_TEST(model_processor_sharing_replan_checks_the_lap_at_a_row_end)
{
  /* half speed while the 15 ms job on worker 1 runs (done at 30): slices 0-10,
   * 10-20, 20-30 of 5 rows each. Row 15 ends at 30, when the lap is 10 ms > 9:
   * the actor must yield at 30, whichever of the two events at 30 runs first.
   * Then full speed: 30-40, 40-50, 50-60 (rows 16-45) and 60-61 (row 46). */
  pieces seen = {0};
  run r;
  sliced_beside(46, 15, &r, &seen);
  ck_assert_int_eq(st(&r.w, 1)->done, MS(30));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(61));
  ck_assert_int_ge(seen.len, 3);
  ck_assert_msg(seen.t1[2] == MS(30), "third slice ends at %lld ns, want 30 ms", (long long)seen.t1[2]);
  ck_assert_int_eq(st(&r.w, 0)->slices, 7);
  ck_assert_int_eq(st(&r.w, 0)->yields, 6);
  run_finish(&r);
}
END_TEST

START_TEST(model_processor_sharing_no_second_check_of_a_checked_row)
{
  /* one core, 3 workers. Workers 0 and 1: 10 ms in 4 rows, threshold 10;
   * at half speed rows end at 5 and 10, where the lap is 10 ms, not over.
   * A 20 ms job arrives on worker 2 one ns later: a third of the core each,
   * and the re-plan lands on row 2's end again. Row 2 was checked at 10, so
   * the slice goes on: row 3 (2.5 ms of work at 1/3 speed) ends near 17.5. */
  static const char json[] = MODEL_WITH("\"host\": {\"cores\": 1}, ",
                                        CLASS("work", 2, SLICED(10, 4)) ", " CLASS_AT("late", CPU(20, 1), 10.000001));
  pieces seen = {0};
  ts_observer obs = {.data = &seen, .run = on_run};
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(r.m.classes[1].arrival.start, MS(10) + 1);
  ck_assert_int_eq(run_observed(&r, 0, 3, &obs), TS_WORLD_OK);
  ck_assert_int_ge(seen.len, 1);
  ck_assert_msg(seen.t1[0] > MS(17) && seen.t1[0] < MS(18), "first slice ends at %lld ns, want about 17.5 ms",
                (long long)seen.t1[0]);
  run_finish(&r);
}
END_TEST

START_TEST(model_loop_overhead_paid_before_the_poll_snapshot)
{
  /* loop overhead 5: the iteration starting at 0 pays 0-5, then snapshots
   * the ready callbacks: A (arrived at 0) and B (arrived at 2, during the
   * overhead). A 5-15, B 15-25 in the same poll phase. */
  static const char json[] = MODEL_WITH("\"worker\": {\"loop_overhead_ms\": 5}, ",
                                        CLASS_AT("a", CPU(10, 1), 0) ", " CLASS_AT("b", CPU(10, 1), 2));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->done, MS(15));
  ck_assert_int_eq(st(&r.w, 1)->done, MS(25));
  run_finish(&r);
}
END_TEST

START_TEST(model_priority_policy_lets_foreground_bypass)
{
  /* bg0, bg1: 30 ms background each; fg2: 20 ms foreground arriving at 5; 10 ms slices.
   * bg0 0-10, bg1 10-20, bg0 20-30, fg2 30-40 (its arrival callback), then the
   * queue is [bg1, bg0, fg2]: priority runs fg2 40-50 (done), bg1 50-60, bg0 60-70,
   * bg1 70-80; fifo runs bg1 40-50, bg0 50-60, fg2 60-70, bg1 70-80. */
  static const char *const policies[] = {"fifo", "priority_barrier"};
  static const ts_time want_priority[] = {70, 80, 50}, want_fifo[] = {60, 80, 70};
  for (int policy = 0; policy < 2; policy++) {
    run r;
    tu_modelf(&r.m,
              MODEL_WITH("\"worker\": {\"policy\": \"%s\", \"threshold_ms\": 9}, ",
                         "{\"name\": \"bg\", \"count\": 2, \"queue_class\": \"background\", \"program\": ["
                         SLICED(30, 30) "]}, "
                         "{\"name\": \"fg\", \"count\": 1, \"queue_class\": \"foreground\", \"arrival\": "
                         "{\"start_ms\": 5}, \"program\": [" SLICED(20, 20) "]}"),
              policies[policy]);
    ck_assert_ptr_eq(r.m.pools[0].policy, policy ? &ts_sched_priority_barrier : &ts_sched_fifo);
    ck_assert_int_eq(run_observed(&r, 0, 1, NULL), TS_WORLD_OK);
    for (int a = 0; a < 3; a++)
      ck_assert_msg(st(&r.w, a)->done == MS(policy ? want_priority[a] : want_fifo[a]), "%s: actor %d done at %lld ns",
                    r.m.pools[0].policy->name, a, (long long)st(&r.w, a)->done);
    run_finish(&r);
  }
}
END_TEST

/* ---- callbacks and marks ---- */

START_TEST(model_io_callback_waits_for_running_slice)
{
  /* A io 0-5; B cpu 0-20; A's callback is ready at 5 and runs at 20 */
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS("a", 1, IO(5)) ", " CLASS("b", 1, CPU(20, 1))), 0, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_IO], MS(5));
  ck_assert_int_eq(st(&r.w, 0)->state[TS_ACTOR_READY], MS(15));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(20));
  ck_assert_int_eq(st(&r.w, 1)->state[TS_ACTOR_READY], 0);
  run_finish(&r);
}
END_TEST

START_TEST(model_marks_bound_the_wave)
{
  /* arrives at 3: cpu 3-8, wave_start 8, cpu 8-18, wave_end 18, cpu 18-23 */
  static const char json[] = MODEL(
      CLASS_AT("marked", CPU(5, 1) ", " MARK("wave_start") ", " CPU(10, 1) ", " MARK("wave_end") ", " CPU(5, 1), 3) ", "
      CLASS_AT("plain", CPU(5, 1), 3));
  run r;
  ck_assert_int_eq(run_model(&r, json, 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 0)->arrive, MS(3));
  ck_assert_int_eq(st(&r.w, 0)->wave_start, MS(8));
  ck_assert_int_eq(st(&r.w, 0)->wave_end, MS(18));
  ck_assert_int_eq(st(&r.w, 0)->done, MS(23));
  /* without marks the wave runs from arrival to done */
  ck_assert_int_eq(st(&r.w, 1)->wave_start, MS(3));
  ck_assert_int_eq(st(&r.w, 1)->wave_end, MS(8));
  run_finish(&r);
}
END_TEST

/* ---- random durations ---- */

/* Done time of the single actor of an exponential-latency model under seed. */
static ts_time exp_done(uint64_t seed)
{
  static const char json[] = MODEL(CLASS("job", 1, "{\"op\": \"io\", \"ms\": 10, \"dist\": \"exponential\"}"));
  run r;
  tu_model(json, &r.m);
  ck_assert_int_eq(r.m.classes[0].steps[0].cost.kind, TS_DIST_EXPONENTIAL);
  ts_world_spec spec = tu_world_spec(0, 1, seed);
  ck_assert_int_eq(ts_world_init(&r.w, &r.m, &spec, NULL), 0);
  ck_assert_int_eq(ts_world_run(&r.w), TS_WORLD_OK);
  ts_time done = st(&r.w, 0)->done;
  run_finish(&r);
  return done;
}

START_TEST(model_random_latency_follows_seed)
{
  ck_assert_int_eq(exp_done(1), exp_done(1));
  ck_assert_int_ne(exp_done(1), exp_done(2));
  ck_assert_int_gt(exp_done(1), 0);
}
END_TEST

START_TEST(model_random_draws_capped_at_1000x_mean)
{
  /* lognormal, cv 10: P(draw > 1000 * mean) is about 9e-6, so 2e6 draws hit the cap */
  static const char json[] =
      MODEL(CLASS_N("job", "{\"op\": \"io\", \"ms\": 1, \"dist\": \"lognormal\", \"cv\": 10}"));
  run r;
  ck_assert_int_eq(run_model(&r, json, 1, 1), TS_WORLD_OK);
  const ts_dist *cost = &r.m.classes[0].steps[0].cost;
  ck_assert_int_eq(cost->kind, TS_DIST_LOGNORMAL);
  ck_assert_int_eq(ts_model_draw_max(cost), MS(1000));
  /* draws from actor 0's own stream */
  ts_actor *a = ts_world_actor(&r.w, 0);
  int capped = 0, beyond = 0;
  for (int i = 0; i < 2000000; i++) {
    ts_time d = ts__draw(&r.w, a, cost);
    beyond += d > MS(1000);
    capped += d == MS(1000);
  }
  ck_assert_int_eq(beyond, 0);
  ck_assert_int_gt(capped, 0);
  run_finish(&r);
  ts_dist fixed = {.kind = TS_DIST_FIXED, .mean = MS(7)};
  ck_assert_int_eq(ts_model_draw_max(&fixed), MS(7));
}
END_TEST

/* Draws of one duration, checked against its parameters with GSL's
 * statistics over DRAWS draws of actor 0's stream. Each tolerance is 5
 * standard errors of the statistic at this sample size: the mean's from the
 * sample's sd, the sd's from the sample's kurtosis, a probability's from the
 * binomial. */
#define DRAWS 200000

typedef struct draws {
  double *v; /* ms */
  double mean, sd;
} draws;

static void draw_many(const char *step, draws *d)
{
  char json[1200];
  snprintf(json, sizeof json, MODEL_WITH("\"params\": {\"c\": 0.5, \"m\": 10}, ", CLASS("job", 1, "%s")), step);
  run r;
  ck_assert_int_eq(run_model(&r, json, 1, 1), TS_WORLD_OK);
  ts_actor *a = ts_world_actor(&r.w, 0);
  d->v = malloc(DRAWS * sizeof *d->v);
  ck_assert_ptr_nonnull(d->v);
  for (int i = 0; i < DRAWS; i++)
    d->v[i] = (double)ts__draw(&r.w, a, &r.m.classes[0].steps[0].cost) / TS_NS_PER_MS;
  run_finish(&r);
  d->mean = gsl_stats_mean(d->v, 1, DRAWS);
  d->sd = gsl_stats_sd_m(d->v, 1, DRAWS, d->mean);
}

static void check_mean(const draws *d, double mean, const char *what)
{
  double tol = 5 * d->sd / sqrt(DRAWS);
  ck_assert_msg(fabs(d->mean - mean) <= tol, "%s: mean %g, expected %g +- %g", what, d->mean, mean, tol);
}

static void check_cv(const draws *d, double cv, const char *what)
{
  double kurt = gsl_stats_kurtosis_m_sd(d->v, 1, DRAWS, d->mean, d->sd) + 3;
  double tol = 5 * d->sd * sqrt((kurt - 1) / DRAWS) / 2; /* the sd's standard error */
  ck_assert_msg(fabs(d->sd - cv * d->mean) <= tol, "%s: sd %g, expected %g +- %g", what, d->sd, cv * d->mean, tol);
}

/* The share of draws below x is p. */
static void check_below(const draws *d, double x, double p, const char *what)
{
  int below = 0;
  for (int i = 0; i < DRAWS; i++)
    below += d->v[i] < x;
  double share = (double)below / DRAWS, tol = 5 * sqrt(p * (1 - p) / DRAWS);
  ck_assert_msg(fabs(share - p) <= tol, "%s: %g of the draws below %g, expected %g +- %g", what, share, x, p, tol);
}

START_TEST(model_random_draws_match_their_parameters)
{
  draws d;
  /* lognormal by its mean: mean 10, sd 5, median 10 / sqrt(1 + cv^2) */
  draw_many("{\"op\": \"io\", \"ms\": 10, \"dist\": \"lognormal\", \"cv\": 0.5}", &d);
  check_mean(&d, 10, "lognormal");
  check_cv(&d, 0.5, "lognormal");
  check_below(&d, 10 / sqrt(1.25), 0.5, "lognormal");
  free(d.v);
  /* by its median, cv a $param: half below 10, mean 10 sqrt(1.25) */
  draw_many("{\"op\": \"io\", \"ms\": \"$m\", \"dist\": \"lognormal\", \"cv\": \"$c\", \"by\": \"median\"}", &d);
  check_below(&d, 10, 0.5, "lognormal by median");
  check_mean(&d, 10 * sqrt(1.25), "lognormal by median");
  check_cv(&d, 0.5, "lognormal by median");
  free(d.v);
  /* a median given by an expression evaluated at each draw (i is 0) */
  draw_many("{\"op\": \"io\", \"ms\": \"$m * 2 + i\", \"dist\": \"lognormal\", \"cv\": 0.5, \"by\": \"median\"}", &d);
  check_below(&d, 20, 0.5, "lognormal by median, an expression");
  free(d.v);
  /* gamma by its mean, and by its median (GSL's inverse gamma CDF) */
  draw_many("{\"op\": \"cpu\", \"ms\": 10, \"dist\": \"gamma\", \"cv\": 0.3}", &d);
  check_mean(&d, 10, "gamma");
  check_cv(&d, 0.3, "gamma");
  free(d.v);
  draw_many("{\"op\": \"cpu\", \"ms\": 10, \"dist\": \"gamma\", \"cv\": 0.5, \"by\": \"median\"}", &d);
  check_below(&d, 10, 0.5, "gamma by median");
  check_mean(&d, 10 * 4 / gsl_cdf_gamma_Pinv(0.5, 4, 1), "gamma by median");
  check_cv(&d, 0.5, "gamma by median");
  free(d.v);
  /* exponential by its median: mean 10 / ln 2, cv 1 */
  draw_many("{\"op\": \"sleep\", \"ms\": 10, \"dist\": \"exponential\", \"by\": \"median\"}", &d);
  check_below(&d, 10, 0.5, "exponential by median");
  check_mean(&d, 10 / log(2.0), "exponential by median");
  check_cv(&d, 1, "exponential by median");
  free(d.v);
  /* empirical: the samples themselves, each equally likely */
  draw_many("{\"op\": \"io\", \"dist\": \"empirical\", \"samples\": [1, 2, 2, 7]}", &d);
  check_mean(&d, 3, "empirical");
  check_below(&d, 1.5, 0.25, "empirical");
  check_below(&d, 2.5, 0.75, "empirical");
  for (int i = 0; i < DRAWS; i++)
    ck_assert(d.v[i] == 1 || d.v[i] == 2 || d.v[i] == 7);
  free(d.v);
  /* rescaled to a mean of 30 (10, 20, 20, 70), and to a median of 4 (2, 4, 4, 14) */
  draw_many("{\"op\": \"io\", \"ms\": 30, \"dist\": \"empirical\", \"samples\": [1, 2, 2, 7]}", &d);
  check_mean(&d, 30, "empirical, mean 30");
  check_below(&d, 15, 0.25, "empirical, mean 30");
  free(d.v);
  draw_many("{\"op\": \"io\", \"ms\": 4, \"dist\": \"empirical\", \"samples\": [1, 2, 2, 7], \"by\": \"median\"}", &d);
  check_mean(&d, 6, "empirical, median 4");
  for (int i = 0; i < DRAWS; i++)
    ck_assert(d.v[i] == 2 || d.v[i] == 4 || d.v[i] == 14);
  free(d.v);
}
END_TEST

START_TEST(model_random_draw_max_of_each_shape)
{
  run r;
  tu_model(MODEL(CLASS("job", 1, "{\"op\": \"io\", \"ms\": 30, \"dist\": \"empirical\", \"samples\": [1, 2, 2, 7]},"
                                 "{\"op\": \"io\", \"ms\": 10, \"dist\": \"lognormal\", \"cv\": 1, \"by\": \"median\"}")),
           &r.m);
  ck_assert_int_eq(ts_model_draw_max(&r.m.classes[0].steps[0].cost), MS(70));
  /* the median converted to the mean: 10 sqrt(2) ms, capped at 1000 times that */
  ck_assert_int_eq(r.m.classes[0].steps[1].cost.mean, 14142136);
  ck_assert_int_eq(ts_model_draw_max(&r.m.classes[0].steps[1].cost), 14142136000);
  ts_model_finish(&r.m);
}
END_TEST

/* Done time of actor 0 of n actors of 20 ms CPU, each on its own worker,
 * with the CPU price 1 at n = 1 rising linearly to 2 at n = 3 (priced by the
 * sweep's n). */
static ts_time scaled_done(int n)
{
  static const char json[] =
      MODEL_WITH("\"host\": {\"cpu_scale_by_n\": {\"n\": [1, 3], \"scale\": [1, 2], \"by\": \"n\"}}, ",
                 CLASS_N("job", CPU(20, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, n, n), TS_WORLD_OK);
  ck_assert_uint_eq(r.m.nscale, 2);
  ck_assert_int_eq(r.m.scale_by_worker, 0);
  ts_time done = st(&r.w, 0)->done;
  run_finish(&r);
  return done;
}

START_TEST(model_cpu_scale_by_n_prices_cpu)
{
  ck_assert_int_eq(scaled_done(1), MS(20));
  ck_assert_int_eq(scaled_done(2), MS(30));
  ck_assert_int_eq(scaled_done(3), MS(40));
  ck_assert_int_eq(scaled_done(5), MS(40)); /* flat beyond the table */
}
END_TEST

START_TEST(model_horizon_bounds_simulated_time)
{
  /* an hour of CPU per actor on one worker: 10^5 actors fit in 2^61 ns, 10^6 do not */
  static const char json[] = MODEL(CLASS_N("job", CPU(3600000, 1)));
  run r;
  ck_assert_int_eq(run_model(&r, json, 100000, 1), TS_WORLD_OK);
  ck_assert_int_eq(st(&r.w, 99999)->done, 100000 * MS(3600000));
  ts_world_finish(&r.w);
  ck_assert_int_eq(run_observed(&r, 1000000, 1, NULL), TS_WORLD_HORIZON);
  ck_assert_int_le(r.w.sim.now, TS_HORIZON_MAX);
  run_finish(&r);
}
END_TEST

START_TEST(model_empty_world_finishes)
{
  run r;
  ck_assert_int_eq(run_model(&r, MODEL(CLASS_N("job", ONE_MS)), 0, 2), TS_WORLD_OK);
  ck_assert_int_eq(r.w.nactors, 0);
  ck_assert_int_eq(r.w.sim.now, 0);
  run_finish(&r);
}
END_TEST

/* A state's column is made when an actor first leaves that state; only the
 * entries of the actors made so far are cleared then, and an actor made
 * later clears its own. With malloc perturbed (fresh memory is not 0), every
 * actor still reads 0 in a state it never entered and exactly its own time
 * in the one it did: "a" waits 5 ms of I/O from 0 (the I/O column is made
 * at 5 ms), and "b" arrives every 10 ms from 0 (b0 before the column, b1
 * and b2 after it) and only runs 1 ms of CPU. */
START_TEST(model_state_column_entries_start_at_zero)
{
#ifdef M_PERTURB
  mallopt(M_PERTURB, 0x5a);
#endif
  static const char json[] =
      "{\"name\": \"test\", \"classes\": [" CLASS("a", 1, IO(5)) ", "
      "{\"name\": \"b\", \"count\": \"forever\", \"arrival\": {\"kind\": \"periodic\", \"period_ms\": 10}, "
      "\"program\": [" CPU(1, 1) "]}]}";
  run r;
  tu_model(json, &r.m);
  ts_world_spec spec = tu_world_spec(1, 1, 1);
  spec.horizon = MS(25);
  ck_assert_msg(ts_world_init(&r.w, &r.m, &spec, NULL) == 0, "%s", r.w.errmsg);
  ts_world_run(&r.w);
#ifdef M_PERTURB
  mallopt(M_PERTURB, 0);
#endif
  ck_assert_int_eq(r.w.nactors, 4);
  ck_assert_int_eq(ts_world_state_time(&r.w, 0, TS_ACTOR_IO), MS(5));
  for (int id = 1; id < 4; id++) {
    ck_assert_int_eq(ts_world_state_time(&r.w, id, TS_ACTOR_IO), 0);
    ck_assert_int_eq(st(&r.w, id)->state[TS_ACTOR_IO], 0);
    ck_assert_int_eq(st(&r.w, id)->state[TS_ACTOR_RUNNING], MS(1));
  }
  run_finish(&r);
}
END_TEST

/* A lognormal's log-scale parameters are worked out once per step
 * (ts_dist_prepare) and give the draws ts_rng_lognormal gives, bit for bit;
 * a step whose mean host.cpu_scale changed after it was read is prepared for
 * the scaled mean; an expression's mean, a cv of 0 and other shapes are not
 * prepared (their draws work them out each time, as before). */
START_TEST(model_lognormal_prepared_draws_keep_every_bit)
{
  static const double means[] = {1, 3e5, 4.4031140e7, 2.5615480e8};
  static const double cvs[] = {0.005, 0.0124035, 0.3, 1, 10};
  for (size_t i = 0; i < LEN(means); i++)
    for (size_t j = 0; j < LEN(cvs); j++) {
      ts_dist d = {.kind = TS_DIST_LOGNORMAL, .mean = (ts_time)means[i], .cv = cvs[j]};
      ts_dist_prepare(&d);
      ck_assert(d.ln_mean == (double)d.mean && d.ln_cv == d.cv);
      ts_rng *a = ts_rng_create(9), *b = ts_rng_create(9);
      for (int k = 0; k < 200; k++) {
        double x = ts_rng_lognormal_at(a, d.ln_mu, d.ln_sigma), y = ts_rng_lognormal(b, (double)d.mean, d.cv);
        ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "mean %g cv %g draw %d: %.17g != %.17g", means[i], cvs[j], k, x,
                      y);
      }
      ts_rng_destroy(a);
      ts_rng_destroy(b);
    }
  run r;
  tu_model(MODEL_WITH("\"host\": {\"cpu_scale\": 0.5}, ",
                      CLASS("a", 1, "{\"op\": \"cpu\", \"ms\": 10, \"dist\": \"lognormal\", \"cv\": 0.3}, "
                                    "{\"op\": \"io\", \"ms\": \"1 + i\", \"dist\": \"lognormal\", \"cv\": 0.3}, "
                                    "{\"op\": \"io\", \"ms\": 4, \"dist\": \"lognormal\"}, "
                                    "{\"op\": \"io\", \"ms\": 4, \"dist\": \"gamma\", \"cv\": 0.3}")),
           &r.m);
  const ts_step *st = r.m.classes[0].steps;
  ck_assert_int_eq(st[0].cost.mean, MS(5));
  ck_assert(st[0].cost.ln_mean == (double)MS(5) && st[0].cost.ln_cv == 0.3);
  for (int k = 1; k < 4; k++)
    ck_assert(st[k].cost.ln_mean == -1 && st[k].cost.ln_cv == -1);
  ts_model_finish(&r.m);
}
END_TEST

/* ts__round_ns gives llround's value on [0, TS_DRAW_MAX]: halves, the
 * doubles either side of them, whole numbers and values spread over the range. */
START_TEST(model_round_ns_is_llround)
{
  static const double edge[] = {0, 0.25, 0.49999999999999994, 0.5, 0.5000000000000001, 1, 1.5, 2.5,
                                 999999999999999.5, (double)TS_DRAW_MAX - 0.5, (double)TS_DRAW_MAX};
  for (size_t i = 0; i < LEN(edge); i++)
    ck_assert_int_eq(ts__round_ns(edge[i]), llround(edge[i]));
  ts_rng *r = ts_rng_create(3);
  for (int k = 0; k < 100000; k++) {
    double x = ts_rng_uniform(r) * pow(10, k % 16);
    ck_assert_msg(ts__round_ns(x) == llround(x), "%.17g", x);
    x = floor(x) + 0.5;
    ck_assert_msg(ts__round_ns(x) == llround(x), "%.17g", x);
    x = nextafter(x, 0);
    ck_assert_msg(ts__round_ns(x) == llround(x), "%.17g", x);
  }
  ts_rng_destroy(r);
}
END_TEST

Suite *model_suite(void)
{
  Suite *s = suite_create("model");
  const TTest *const core[] = {model_xxh32_published_vectors,
                               model_dispatch_round_robin_is_i_mod_w,
                               model_dispatch_least_loaded_lowest_index_on_ties,
                               model_dispatch_hash_is_xxh32_of_task_slash_group,
                               model_dispatch_find_by_name,
                               model_lock_shared_fifo_handover,
                               model_lock_per_actor_never_contends,
                               model_lock_shared_serializes_one_worker,
                               model_lock_released_at_the_end_hands_over,
                               model_threshold_plain_io_keeps_threshold,
                               model_threshold_priority_io_quarters_threshold,
                               model_threshold_priority_min_applies,
                               model_threshold_priority_io_on_other_worker_no_effect,
                               model_priority_yield_timer_waits_a_timers_phase,
                               model_yield_overhead_is_loop_cpu_not_timer_cpu,
                               model_loop_overhead_once_per_busy_iteration,
                               model_loop_overhead_paid_before_the_poll_snapshot,
                               model_yield_step_rejoins_tail,
                               model_slices_count_run_periods_not_steps,
                               model_processor_sharing_slows_when_cores_are_short,
                               model_processor_sharing_replans_when_a_worker_idles,
                               model_processor_sharing_slices_by_wall_time,
                               model_priority_policy_lets_foreground_bypass,
                               model_io_callback_waits_for_running_slice,
                               model_marks_bound_the_wave,
                               model_random_latency_follows_seed,
                               model_random_draw_max_of_each_shape,
                               model_cpu_scale_by_n_prices_cpu,
                               NULL};
  const TTest *const limits[] = {model_empty_world_finishes,
                                 model_expr_folding_keeps_every_bit, model_expr_fused_code_matches_the_plain_code,
                                 model_processor_sharing_replan_checks_the_lap_at_a_row_end,
                                 model_processor_sharing_no_second_check_of_a_checked_row,
                                 model_random_draws_capped_at_1000x_mean,
                                 model_random_draws_match_their_parameters,
                                 model_horizon_bounds_simulated_time, model_state_column_entries_start_at_zero,
                                 model_lognormal_prepared_draws_keep_every_bit, model_round_ns_is_llround,
                                 NULL};
  const TTest *const errors[] = {model_lock_cycle_deadlocks, model_broken_invariant_stops_the_run, NULL};
  tu_tcase(s, "core", core, NULL, NULL, 0);
  tu_tcase(s, "limits", limits, NULL, NULL, 60); /* a world of 10^6 actors */
  tu_tcase(s, "errors", errors, NULL, NULL, 0);
  return s;
}
