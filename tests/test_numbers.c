/* Numbers the model computes: expressions (constant folding, the fused
 * code), random durations (seeds, the cap, each shape against its
 * parameters, lognormal preparation) and the rounding of a draw to ns. */
#include <check.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

#include "engine/rng.h"
#include "model/expr_run.h" /* the compiled code, to count its IN instructions */
#include "model/internal.h" /* ts__draw: the cap on one draw */

#include "model_run.h"

/* ---- expressions ---- */

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

START_TEST(numbers_expr_folding_keeps_every_bit)
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
 * them, chains "x == c1 || x == c2 ..." as one instruction) gives bit for bit what the reference machine gives on the code one
 * instruction per value and operator: on moq's lock indexes and 4,000
 * random expressions, with $a..$c folded and as variables, at 17 values of i
 * and NaN. */
START_TEST(numbers_expr_fused_code_matches_the_plain_code)
{
  static const char *const fixed[] = {"$a * $b + (i - 1 - $c // 2) % $a", "i * $a + (i - 1 - i // 3) % $a", "i",
                                      "$a", "2", "i // 2 - 1", "1 - i", "2 / i", "2 % (i - 1)", "i >= 1 || 0",
                                      "max(i, 3) - min(2, i)", "-i * 2 + !i",
                                      /* chains of one variable against numbers (one IN instruction) */
                                      "i == 1 || i == 2 || i == -0.5 || i == 4", "i == 0 || i == 1 ? i : -i",
                                      "i == 1 || i == 2 && i == 2 || i == 3 || i == 4", "i * 2 == 4 || i == 1 || i == 2",
                                      "i == 1 || (i == 2 || i == 3)", "$a == 2 || $a == 3 || i == -4 || i == 3",
                                      "i == 4 || i == 0.5 || i == -0 || i == -3.5" /* (descending: run ascending) */,
                                      "i % 0", "i % ($a - $a) + i // 0" /* (a remainder by 0 is not a MOD_K) */};
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
      for (double step = 0; step <= 17; step++) { /* i = -4, -3.5, ..., 4, then NaN */
        double i = step < 17 ? -4 + step / 2 : NAN;
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

/* The chains of one variable against numbers are compiled into one IN
 * instruction each (what the test above compares with the reference machine
 * is the fused code, not code the fusion left alone): the IN instructions
 * and the code's length, for whole, partial and no chains. */
START_TEST(numbers_expr_chains_are_fused)
{
  static const struct {
    const char *text;
    int in, len;
  } cases[] = {{"i == 1 || i == 2 || i == -0.5 || i == 4", 1, 2},
               {"i == 0 || i == 1 ? i : -i", 1, 6},
               {"i == 1 || i == 2 || i * 2 == 4", 1, 6},
               {"i * 2 == 4 || i == 1 || i == 2", 0, 9},
               {"i == 1 || i == 2 && i == 2 || i == 3", 0, 11},
               {"i == 1 || i < 2", 0, 5},
               {"i == 1", 0, 2}};
  for (size_t k = 0; k < LEN(cases); k++) {
    char err[128];
    int fold = 1;
    ts_expr *e = ts_expr_compile(cases[k].text, fold_resolve, &fold, err, sizeof err);
    ck_assert_msg(e, "%s: %s", cases[k].text, err);
    int in = 0;
    for (size_t c = 0; c < e->len; c++)
      in += e->code[c].op == TS_XOP_IN;
    ck_assert_msg(in == cases[k].in && (int)e->len == cases[k].len, "%s: %d IN in %zu instructions, expected %d in %d",
                  cases[k].text, in, e->len, cases[k].in, cases[k].len);
    ts_expr_free(e);
  }
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

START_TEST(numbers_random_latency_follows_seed)
{
  ck_assert_int_eq(exp_done(1), exp_done(1));
  ck_assert_int_ne(exp_done(1), exp_done(2));
  ck_assert_int_gt(exp_done(1), 0);
}
END_TEST

START_TEST(numbers_random_draws_capped_at_1000x_mean)
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

START_TEST(numbers_random_draws_match_their_parameters)
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

START_TEST(numbers_random_draw_max_of_each_shape)
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

/* A lognormal's log-scale parameters are worked out once per step
 * (ts_dist_prepare) and give the draws ts_rng_lognormal gives, bit for bit;
 * a step whose mean host.cpu_scale changed after it was read is prepared for
 * the scaled mean; an expression's mean, a cv of 0 and other shapes are not
 * prepared (their draws work them out each time, as before). */
START_TEST(numbers_lognormal_prepared_draws_keep_every_bit)
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
START_TEST(numbers_round_ns_is_llround)
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

Suite *numbers_suite(void)
{
  Suite *s = suite_create("numbers");
  const TTest *const tests[] = {numbers_expr_folding_keeps_every_bit,
                                numbers_expr_fused_code_matches_the_plain_code,
                                numbers_expr_chains_are_fused,
                                numbers_random_latency_follows_seed,
                                numbers_random_draws_capped_at_1000x_mean,
                                numbers_random_draws_match_their_parameters,
                                numbers_random_draw_max_of_each_shape,
                                numbers_lognormal_prepared_draws_keep_every_bit,
                                numbers_round_ns_is_llround,
                                NULL};
  tu_tcase(s, "numbers", tests, NULL, NULL, 60); /* 2 x 10^6 draws */
  return s;
}
