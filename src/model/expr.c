/* Expressions: a recursive-descent parser that emits postfix code, and a
 * stack machine that runs it (expr_run.h: inline, so that a caller whose
 * getter is known, the actors', runs it without a call per variable;
 * ts_expr_eval runs the same function). An operator whose operands are all constants
 * (numbers and the $params the resolver folds) is run at compile time and
 * replaced by its value ("$a * $b + i" runs as one number plus i).
 * Invariant of compiled code: running it from an empty stack
 * leaves exactly one value, and the stack never grows beyond `depth`.
 *
 * The code is kept twice: `plain`, one instruction per value pushed or
 * operator applied; and `code`, what runs: the same with each binary
 * operator whose right operand is a number fused with it (kb, and the
 * operator's _K op: "x // 2" is VAR x, IDIV_K 2 instead of VAR x, NUM 2,
 * IDIV): fewer instructions
 * dispatched, the same arithmetic in the same order, so the same bits
 * (ts__expr_eval_plain runs the plain code, for the tests to compare); and
 * a chain "x == c1 || x == c2 || ..." of one variable against numbers is
 * VAR x, IN {c1, c2, ...} (the variable read once: it has one value within
 * an evaluation; the constants ascending, so that the search stops at the
 * first not below x; the result 1 or 0 as the chain's). */
#include "model/expr.h"
#include "model/expr_run.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  const char *s;
  size_t pos;
  ts_expr_resolver resolve;
  void *ctx;
  ts_expr_instr *code;
  size_t len, cap;
  int sp, depth;  /* stack height while emitting, and its maximum */
  int nest;       /* parentheses, unary operators, calls and ?: open */
  char *err;
  size_t errcap;
  int failed;
} parser;

/* Stack effect of each ts_expr_op (values pushed minus popped). */
static int effect(ts_expr_op op)
{
  switch (op) {
  case TS_XOP_NUM: case TS_XOP_VAR: return 1;
  case TS_XOP_NEG: case TS_XOP_NOT: case TS_XOP_FLOOR: case TS_XOP_CEIL: case TS_XOP_ABS: case TS_XOP_VARARG: return 0;
  case TS_XOP_COND:
  case TS_XOP_RING: return -2;
  default: return -1;
  }
}

static void fail(parser *p, const char *fmt, const char *what)
{
  if (!p->failed)
    snprintf(p->err, p->errcap, fmt, what, (int)p->pos + 1);
  p->failed = 1;
}

static void emit(parser *p, ts_expr_instr in)
{
  if (p->failed)
    return;
  if (p->len == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    ts_expr_instr *c = realloc(p->code, cap * sizeof *c);
    if (!c) {
      snprintf(p->err, p->errcap, "out of memory");
      p->failed = 1;
      return;
    }
    p->code = c;
    p->cap = cap;
  }
  p->code[p->len++] = in;
  p->sp += effect(in.op);
  if (p->sp > p->depth)
    p->depth = p->sp;
}

/* Operands an ts_expr_op pops. */
static int arity(ts_expr_op op)
{
  return op == TS_XOP_NUM || op == TS_XOP_VAR ? 0 : op == TS_XOP_COND ? 3 : 1 - effect(op);
}

static double exec(const ts_expr_instr *code, ts_expr_getter get, void *ctx);

/* Emit operator o; when its operands are all constants (numbers, folded
 * $params), replace them and it by its value: the same arithmetic the
 * evaluation would do, done once at compile time. */
static void op(parser *p, ts_expr_op o)
{
  emit(p, (ts_expr_instr){.op = o});
  size_t k = (size_t)arity(o);
  if (p->failed || p->len < k + 1)
    return;
  for (size_t i = p->len - 1 - k; i < p->len - 1; i++)
    if (p->code[i].op != TS_XOP_NUM)
      return;
  ts_expr_instr run[5]; /* (the operator and its k <= 3 operands, then the end) */
  memcpy(run, p->code + p->len - 1 - k, (k + 1) * sizeof *run);
  run[k + 1] = (ts_expr_instr){.op = TS_XOP_END};
  double v = exec(run, NULL, NULL);
  p->len -= k;
  p->code[p->len - 1] = (ts_expr_instr){.op = TS_XOP_NUM, .num = v};
}

static void skip(parser *p)
{
  while (isspace((unsigned char)p->s[p->pos]))
    p->pos++;
}

/* Consume tok if it comes next (after blanks). */
static int accept(parser *p, const char *tok)
{
  skip(p);
  size_t n = strlen(tok);
  if (strncmp(p->s + p->pos, tok, n) != 0)
    return 0;
  /* "<" must not match "<=", "/" not "//", "!" not "!=" */
  char next = p->s[p->pos + n];
  if ((n == 1 && strchr("<>!=", tok[0]) && next == '=') || (n == 1 && tok[0] == '/' && next == '/'))
    return 0;
  p->pos += n;
  return 1;
}

static void expect(parser *p, const char *tok)
{
  if (!accept(p, tok))
    fail(p, "expected '%s' at column %d", tok);
}

static void cond(parser *p);

/* Enter one level of nesting (a parenthesis, a unary operator, a
 * function's arguments, a ?:'s branches), each a recursion of the parser: 0
 * when the parse has failed or would nest deeper than TS_EXPR_MAX_NEST (so
 * the parser's depth is bounded, whatever the input), else 1; leave()
 * undoes it. */
static int enter(parser *p)
{
  if (p->failed)
    return 0;
  if (++p->nest > TS_EXPR_MAX_NEST) {
    char what[16];
    snprintf(what, sizeof what, "%d", TS_EXPR_MAX_NEST);
    fail(p, "nested deeper than %s levels (parentheses, unary operators, functions, ?:) at column %d", what);
    return 0;
  }
  return 1;
}

static void leave(parser *p)
{
  p->nest--;
}

static int is_name_char(char c, int first)
{
  return isalpha((unsigned char)c) || c == '_' || (!first && isdigit((unsigned char)c));
}

const char *ts_expr_excerpt(const char *text, char *buf, size_t cap)
{
  size_t len = strlen(text), keep = cap > 4 ? cap - 4 : 0;
  if (len < cap)
    return text;
  while (keep > 0 && ((unsigned char)text[keep] & 0xc0) == 0x80) /* not inside a UTF-8 character */
    keep--;
  snprintf(buf, cap, "%.*s...", (int)keep, text);
  return buf;
}

const char *ts_expr_said(const ts_expr *e, char *buf, size_t cap)
{
  const char *text = ts_expr_text(e);
  char *end, quoted[TS_EXPR_QUOTE];
  (void)strtod(text, &end);
  if (end != text && *end == '\0')
    return ""; /* a number: the value said after it is the same */
  snprintf(buf, cap, "\"%s\" ", ts_expr_excerpt(text, quoted, cap - 3 < sizeof quoted ? cap - 3 : sizeof quoted));
  return buf;
}

const char *ts_expr_value_text(char *buf, size_t cap, double v, const char *unit)
{
  int digits = 6; /* %g's, or more until the text reads back as v: 1000001 is not "1e+06" */
  if (isnan(v))
    snprintf(buf, cap, "not a number");
  else
    while (snprintf(buf, cap, "%.*g%s", digits, v, unit) > 0 && digits < 17 && strtod(buf, NULL) != v)
      digits++;
  return buf;
}

int ts_expr_is_name(const char *s)
{
  if (!is_name_char(s[0], 1))
    return 0;
  for (const char *c = s + 1; *c; c++)
    if (!is_name_char(*c, 0))
      return 0;
  return 1;
}

static void call(parser *p, const char *name)
{
  static const struct {
    const char *name;
    ts_expr_op op;
    int args;
  } fns[] = {{"min", TS_XOP_MIN, 2}, {"max", TS_XOP_MAX, 2}, {"floor", TS_XOP_FLOOR, 1}, {"ceil", TS_XOP_CEIL, 1}, {"abs", TS_XOP_ABS, 1}};
  for (size_t i = 0; i < sizeof fns / sizeof *fns; i++)
    if (strcmp(fns[i].name, name) == 0) {
      cond(p);
      for (int a = 1; a < fns[i].args; a++) {
        expect(p, ",");
        cond(p);
      }
      expect(p, ")");
      op(p, fns[i].op);
      return;
    }
  /* F(NAME) or F(NAME, arg): a variable of the resolver's */
  skip(p);
  const char *s = p->s + p->pos;
  size_t n = 0;
  while (is_name_char(s[n], n == 0) && n < 60)
    n++;
  char key[140];
  if (n == 0 || is_name_char(s[n], 0) || p->failed) {
    fail(p, "unknown function \"%s\" before column %d (min, max, floor, ceil, abs)", name);
    return;
  }
  p->pos += n;
  int arg = accept(p, ",");
  snprintf(key, sizeof key, "%s(%.*s%s)", name, (int)n, s, arg ? ",i" : "");
  if (arg)
    cond(p);
  expect(p, ")");
  ts_expr_var var = {0, 0, 0};
  double c = 0;
  if (p->failed)
    return;
  if ((p->resolve ? p->resolve(p->ctx, key, &var, &c) : 0) != 1) {
    fail(p, "unknown function or name \"%s\" before column %d", key);
    return;
  }
  emit(p, (ts_expr_instr){.op = arg ? TS_XOP_VARARG : TS_XOP_VAR, .var = var});
}

static void primary(parser *p)
{
  skip(p);
  const char *s = p->s + p->pos;
  if (isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1]))) {
    char *end;
    double v = strtod(s, &end);
    p->pos += (size_t)(end - s);
    if (!isfinite(v))
      fail(p, "number %s too large before column %d", "");
    emit(p, (ts_expr_instr){.op = TS_XOP_NUM, .num = v});
    return;
  }
  if (accept(p, "(")) {
    if (enter(p)) {
      cond(p);
      expect(p, ")");
      leave(p);
    }
    return;
  }
  int dollar = *s == '$';
  if (is_name_char(s[dollar], 1)) {
    char name[64];
    size_t n = (size_t)dollar;
    while (is_name_char(s[n], 0) && n < sizeof name - 1)
      n++;
    if (is_name_char(s[n], 0)) {
      fail(p, "name too long%s at column %d", "");
      return;
    }
    memcpy(name, s, n);
    name[n] = '\0';
    p->pos += n;
    if (!dollar && accept(p, "(")) {
      if (enter(p)) {
        call(p, name);
        leave(p);
      }
      return;
    }
    ts_expr_var var = {0, 0, 0};
    double c = 0;
    int r = p->resolve ? p->resolve(p->ctx, name, &var, &c) : 0;
    if (r == 1)
      emit(p, (ts_expr_instr){.op = TS_XOP_VAR, .var = var});
    else if (r == 2)
      emit(p, (ts_expr_instr){.op = TS_XOP_NUM, .num = c});
    else
      fail(p, "unknown name \"%s\" before column %d", name);
    return;
  }
  fail(p, *s ? "unexpected '%.1s' at column %d" : "expected a value%s at column %d", s);
}

static void unary(parser *p)
{
  int neg = accept(p, "-"), not = !neg && accept(p, "!");
  if (!neg && !not) {
    primary(p);
  } else if (enter(p)) {
    unary(p);
    op(p, neg ? TS_XOP_NEG : TS_XOP_NOT);
    leave(p);
  }
}

/* One level of left-associative binary operators: toks[i] emits ops[i]. */
static void binary(parser *p, void (*next)(parser *), const char *const *toks, const ts_expr_op *ops, size_t n)
{
  next(p);
  for (;;) {
    size_t i = 0;
    while (i < n && !accept(p, toks[i]))
      i++;
    if (i == n || p->failed)
      return;
    next(p);
    op(p, ops[i]);
  }
}

static void prod(parser *p)
{
  static const char *const t[] = {"*", "//", "/", "%"};
  static const ts_expr_op o[] = {TS_XOP_MUL, TS_XOP_IDIV, TS_XOP_DIV, TS_XOP_MOD};
  binary(p, unary, t, o, 4);
}

static void sum(parser *p)
{
  static const char *const t[] = {"+", "-"};
  static const ts_expr_op o[] = {TS_XOP_ADD, TS_XOP_SUB};
  binary(p, prod, t, o, 2);
}

static void cmp(parser *p)
{
  static const char *const t[] = {"==", "!=", "<=", ">=", "<", ">"};
  static const ts_expr_op o[] = {TS_XOP_EQ, TS_XOP_NE, TS_XOP_LE, TS_XOP_GE, TS_XOP_LT, TS_XOP_GT};
  binary(p, sum, t, o, 6);
}

static void and_(parser *p)
{
  static const char *const t[] = {"&&"};
  static const ts_expr_op o[] = {TS_XOP_AND};
  binary(p, cmp, t, o, 1);
}

static void or_(parser *p)
{
  static const char *const t[] = {"||"};
  static const ts_expr_op o[] = {TS_XOP_OR};
  binary(p, and_, t, o, 1);
}

static void cond(parser *p)
{
  or_(p);
  if (accept(p, "?") && enter(p)) {
    cond(p);
    expect(p, ":");
    cond(p);
    op(p, TS_XOP_COND);
    leave(p);
  }
}

/* A binary operator: pops two values, pushes one. */
static int is_binary(ts_expr_op op)
{
  return (op >= TS_XOP_ADD && op <= TS_XOP_OR) || op == TS_XOP_MIN || op == TS_XOP_MAX;
}

/* The _K op of binary operator op (its right operand the instruction's number). */
static ts_expr_op fused_op(ts_expr_op op)
{
  switch (op) {
  case TS_XOP_ADD: return TS_XOP_ADD_K;
  case TS_XOP_SUB: return TS_XOP_SUB_K;
  case TS_XOP_MUL: return TS_XOP_MUL_K;
  case TS_XOP_DIV: return TS_XOP_DIV_K;
  case TS_XOP_IDIV: return TS_XOP_IDIV_K;
  case TS_XOP_MOD: return TS_XOP_MOD_K;
  case TS_XOP_EQ: return TS_XOP_EQ_K;
  case TS_XOP_NE: return TS_XOP_NE_K;
  case TS_XOP_LT: return TS_XOP_LT_K;
  case TS_XOP_LE: return TS_XOP_LE_K;
  case TS_XOP_GT: return TS_XOP_GT_K;
  case TS_XOP_GE: return TS_XOP_GE_K;
  case TS_XOP_AND: return TS_XOP_AND_K;
  case TS_XOP_OR: return TS_XOP_OR_K;
  case TS_XOP_MIN: return TS_XOP_MIN_K;
  default: return TS_XOP_MAX_K; /* (TS_XOP_MAX: is_binary's last) */
  }
}

/* The fused code of plain[0..len) into out (room for len): a number right
 * before a binary operator is that operator's right operand (an operand of
 * more than one instruction ends with an operator), so the two become the
 * operator's _K op with kb set. Returns the fused length. */
static size_t fuse(const ts_expr_instr *plain, size_t len, ts_expr_instr *out)
{
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (is_binary(plain[i].op) && n > 0 && out[n - 1].op == TS_XOP_NUM && !out[n - 1].kb &&
        !(plain[i].op == TS_XOP_MOD && out[n - 1].num == 0)) { /* (MOD_K's b is never 0) */
      out[n - 1] = (ts_expr_instr){.op = fused_op(plain[i].op), .kb = 1, .num = out[n - 1].num};
      continue;
    }
    out[n++] = plain[i];
  }
  return n;
}

/* Whether a and b are the same variable. */
static int same_var(ts_expr_var a, ts_expr_var b)
{
  return a.kind == b.kind && a.index == b.index && a.arg == b.arg;
}

/* The constants a chain "x == c1 || x == c2 || ..." starting at code[i]
 * (VAR x, EQ c1, then VAR x, EQ c, OR for each further c) compares x with:
 * their count, and (set not NULL) the constants in set; 0 and nothing
 * written when there are fewer than 2. */
static int chain_at(const ts_expr_instr *code, size_t len, size_t i, double *set)
{
  if (!(i + 1 < len && code[i].op == TS_XOP_VAR && code[i + 1].op == TS_XOP_EQ_K))
    return 0;
  int n = 1;
  for (size_t j = i + 2; j + 2 < len && code[j].op == TS_XOP_VAR && same_var(code[j].var, code[i].var) &&
                         code[j + 1].op == TS_XOP_EQ_K && code[j + 2].op == TS_XOP_OR;
       j += 3)
    n++;
  if (n < 2)
    return 0;
  for (int k = 0; set && k < n; k++) /* (c1 at i + 1, each further one 3 on) */
    set[k] = code[k ? i + 3 * (size_t)k : i + 1].num;
  return n;
}

/* qsort's order of doubles: ascending, NaNs last. */
static int ascending(const void *pa, const void *pb)
{
  double a = *(const double *)pa, b = *(const double *)pb;
  if (isnan(a) || isnan(b))
    return isnan(a) - isnan(b);
  return (a > b) - (a < b);
}

/* code[0..len) with each chain (chain_at) as VAR x, IN (its constants in
 * e->sets, made here). Returns the new length, or 0 when memory runs out. */
static size_t fuse_chains(ts_expr *e, ts_expr_instr *code, size_t len)
{
  size_t total = 0;
  for (size_t i = 0; i < len; i++) {
    int n = chain_at(code, len, i, NULL);
    total += (size_t)n;
    i += n ? 3 * (size_t)n - 2 : 0;
  }
  if (total == 0)
    return len;
  if (!(e->sets = malloc(total * sizeof *e->sets)))
    return 0;
  size_t out = 0, used = 0;
  for (size_t i = 0; i < len; i++) {
    int n = chain_at(code, len, i, &e->sets[used]);
    code[out++] = code[i];
    if (n) {
      qsort(&e->sets[used], (size_t)n, sizeof *e->sets, ascending);
      code[out++] = (ts_expr_instr){.op = TS_XOP_IN, .kb = n, .set = &e->sets[used]};
      used += (size_t)n;
      i += 3 * (size_t)n - 2;
    }
  }
  return out;
}

/* code[0..len) with each run IDIV_K k, SUB, MOD_K m, ADD (a ring index
 * "B + (C - x // k) % m" from B, C and x on the stack, whatever they are) as
 * one TS_XOP_RING (num k, mod m; m is never 0, as MOD_K's). Returns the new
 * length. */
static size_t fuse_rings(ts_expr_instr *code, size_t len)
{
  size_t out = 0;
  for (size_t i = 0; i < len; i++) {
    if (i + 3 < len && code[i].op == TS_XOP_IDIV_K && code[i + 1].op == TS_XOP_SUB &&
        code[i + 2].op == TS_XOP_MOD_K && code[i + 3].op == TS_XOP_ADD) {
      code[out++] = (ts_expr_instr){.op = TS_XOP_RING, .num = code[i].num, .mod = code[i + 2].num};
      i += 3;
      continue;
    }
    code[out++] = code[i];
  }
  return out;
}

/* Whether op reads a variable (code: TS_XOP_VAR_k too). */
static int reads_var(ts_expr_op op)
{
  return op == TS_XOP_VAR || op == TS_XOP_VARARG || (op >= TS_XOP_VAR_0 && op < TS_XOP_VAR_0 + TS_XOP_VAR_KINDS);
}

/* An expression of plain[0..len), whose memory it takes (grown by one for
 * the end). NULL when memory runs out (plain freed). */
static ts_expr *make(ts_expr_instr *plain, size_t len, int depth, const char *text)
{
  ts_expr *e = calloc(1, sizeof *e);
  char *t = strdup(text);
  ts_expr_instr *code = malloc((len + 1) * sizeof *code);
  ts_expr_instr *ended = e && t && code ? realloc(plain, (len + 1) * sizeof *plain) : NULL;
  if (!ended) {
    free(e);
    free(t);
    free(code);
    free(plain);
    return NULL;
  }
  plain = ended;
  plain[len] = (ts_expr_instr){.op = TS_XOP_END};
  e->plain = plain;
  e->plain_len = len;
  e->code = code;
  e->len = fuse_chains(e, code, fuse(plain, len, code));
  e->len = fuse_rings(code, e->len); /* (0 stays 0) */
  if (e->len == 0) { /* (out of memory: code is never empty) */
    free(e);
    free(t);
    free(code);
    free(plain);
    return NULL;
  }
  for (size_t i = 0; i < e->len; i++) /* (after fuse_chains, which reads TS_XOP_VAR) */
    if (code[i].op == TS_XOP_VAR && code[i].var.kind >= 0 && code[i].var.kind < TS_XOP_VAR_KINDS)
      code[i].op = (ts_expr_op)(TS_XOP_VAR_0 + code[i].var.kind);
  code[e->len] = (ts_expr_instr){.op = TS_XOP_END};
  e->depth = depth;
  e->text = t;
  for (size_t i = 0; i < len; i++)
    e->nvars += plain[i].op == TS_XOP_VAR || plain[i].op == TS_XOP_VARARG;
  return e;
}

ts_expr *ts_expr_compile(const char *text, ts_expr_resolver resolve, void *ctx, char *err, size_t cap)
{
  parser p = {.s = text, .resolve = resolve, .ctx = ctx, .err = err, .errcap = cap};
  cond(&p);
  skip(&p);
  if (!p.failed && p.s[p.pos])
    fail(&p, "unexpected '%.1s' at column %d", p.s + p.pos);
  if (!p.failed && p.depth > TS_EXPR_STACK)
    fail(&p, "nested too deeply%s (column %d)", "");
  if (p.failed) {
    free(p.code);
    return NULL;
  }
  ts_expr *e = make(p.code, p.len, p.depth, text); /* (p.code its own, or freed) */
  if (!e)
    snprintf(err, cap, "out of memory");
  return e;
}

ts_expr *ts_expr_constant(double v)
{
  ts_expr_instr *code = malloc(sizeof *code);
  char text[32];
  if (!code)
    return NULL;
  code[0] = (ts_expr_instr){.op = TS_XOP_NUM, .num = v};
  snprintf(text, sizeof text, "%.17g", v);
  return make(code, 1, 1, text); /* (code its own, or freed) */
}

void ts_expr_free(ts_expr *e)
{
  if (!e)
    return;
  free(e->code);
  free(e->plain);
  free(e->sets);
  free(e->text);
  free(e);
}

int ts_expr_is_constant(const ts_expr *e, double *v)
{
  if (e->nvars > 0)
    return 0;
  *v = ts_expr_eval(e, NULL, NULL);
  return 1;
}

int ts_expr_uses(const ts_expr *e, int kind)
{
  for (size_t i = 0; i < e->plain_len; i++)
    if ((e->plain[i].op == TS_XOP_VAR || e->plain[i].op == TS_XOP_VARARG) && e->plain[i].var.kind == kind)
      return 1;
  return 0;
}

int ts_expr_reads_only(const ts_expr *e, int (*ok)(void *ctx, ts_expr_var v), void *ctx)
{
  for (size_t i = 0; i < e->plain_len; i++)
    if ((e->plain[i].op == TS_XOP_VAR || e->plain[i].op == TS_XOP_VARARG) && !ok(ctx, e->plain[i].var))
      return 0;
  return 1;
}

/* Values instruction in adds to the stack. */
static int stack_effect(const ts_expr_instr *in)
{
  switch (in->op) {
  case TS_XOP_NUM:
  case TS_XOP_VAR: return 1;
  case TS_XOP_COND:
  case TS_XOP_RING: return -2;
  default: return in->op >= TS_XOP_VAR_0 ? 1 : is_binary(in->op) && !in->kb ? -1 : 0; /* (TS_XOP_VAR_k last) */
  }
}

size_t ts__expr_stable_prefix(const ts_expr *e, int (*ok)(void *ctx, ts_expr_var v), void *ctx, int maxk, int *k)
{
  size_t best = 0;
  int sp = 0, vars = 0;
  for (size_t i = 0; i < e->len; i++) {
    const ts_expr_instr *in = &e->code[i];
    int var = reads_var(in->op);
    if (var && !ok(ctx, in->var))
      break;
    vars += var;
    sp += stack_effect(in);
    if (vars > 0 && sp >= 1 && sp <= maxk) {
      best = i + 1;
      *k = sp;
    }
  }
  return best;
}

int ts__expr_same_start(const ts_expr *a, const ts_expr *b, size_t p)
{
  if (p > a->len || p > b->len)
    return 0;
  for (size_t i = 0; i < p; i++) {
    const ts_expr_instr *x = &a->code[i], *y = &b->code[i];
    if (x->op != y->op || x->kb != y->kb || memcmp(&x->num, &y->num, sizeof x->num) != 0)
      return 0;
    if (reads_var(x->op) && !same_var(x->var, y->var))
      return 0;
    if (x->op == TS_XOP_RING && memcmp(&x->mod, &y->mod, sizeof x->mod) != 0)
      return 0;
    for (int j = 0; x->op == TS_XOP_IN && j < x->kb; j++)
      if (memcmp(&x->set[j], &y->set[j], sizeof *x->set) != 0)
        return 0;
  }
  return 1;
}

int ts__expr_code_reads_only(const ts_expr *e, size_t p, int (*ok)(void *ctx, ts_expr_var v), void *ctx)
{
  for (size_t i = 0; i < p && i < e->len; i++)
    if (reads_var(e->code[i].op) && !ok(ctx, e->code[i].var))
      return 0;
  return 1;
}

const char *ts_expr_text(const ts_expr *e)
{
  return e->text;
}

/* The machine (expr_run.h) out of line, for any getter. */
static double exec(const ts_expr_instr *code, ts_expr_getter get, void *ctx)
{
  return ts__expr_run(code, get, ctx);
}

double ts_expr_eval(const ts_expr *e, ts_expr_getter get, void *ctx)
{
  return exec(e->code, get, ctx);
}

double ts__expr_eval_plain(const ts_expr *e, ts_expr_getter get, void *ctx)
{
  return exec(e->plain, get, ctx);
}
