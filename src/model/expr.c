/* Expressions: a recursive-descent parser that emits postfix code, and a
 * stack machine that runs it. An operator whose operands are all constants
 * (numbers and the $params the resolver folds) is run at compile time and
 * replaced by its value ("$a * $b + i" runs as one number plus i).
 * Invariant of compiled code: running it from an empty stack
 * leaves exactly one value, and the stack never grows beyond `depth`.
 *
 * The code is kept twice: `plain`, one instruction per value pushed or
 * operator applied; and `code`, what runs: the same with each binary
 * operator whose right operand is a number fused with it (kb: "x // 2" is
 * VAR x, IDIV 2 instead of VAR x, NUM 2, IDIV): fewer instructions
 * dispatched, the same arithmetic in the same order, so the same bits
 * (ts__expr_eval_plain runs the plain code, for the tests to compare). */
#include "model/expr.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Binary: OP_ADD to OP_OR, OP_MIN, OP_MAX (is_binary). */
typedef enum {
  OP_NUM, OP_VAR, OP_VARARG, OP_NEG, OP_NOT, OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_IDIV, OP_MOD,
  OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE, OP_AND, OP_OR, OP_COND,
  OP_MIN, OP_MAX, OP_FLOOR, OP_CEIL, OP_ABS
} opcode;

typedef struct instr {
  opcode op;
  int kb;         /* code: a binary operator whose right operand is num */
  double num;
  ts_expr_var var;
} instr;

struct ts_expr {
  instr *code;    /* plain with the numbers fused into the operators after them */
  size_t len;
  instr *plain;   /* one instruction per value or operator */
  size_t plain_len;
  int depth;      /* largest stack the code needs */
  int nvars;      /* OP_VAR instructions */
  char *text;
};

typedef struct parser {
  const char *s;
  size_t pos;
  ts_expr_resolver resolve;
  void *ctx;
  instr *code;
  size_t len, cap;
  int sp, depth;  /* stack height while emitting, and its maximum */
  int nest;       /* parentheses, unary operators, calls and ?: open */
  char *err;
  size_t errcap;
  int failed;
} parser;

/* Stack effect of each opcode (values pushed minus popped). */
static int effect(opcode op)
{
  switch (op) {
  case OP_NUM: case OP_VAR: return 1;
  case OP_NEG: case OP_NOT: case OP_FLOOR: case OP_CEIL: case OP_ABS: case OP_VARARG: return 0;
  case OP_COND: return -2;
  default: return -1;
  }
}

static void fail(parser *p, const char *fmt, const char *what)
{
  if (!p->failed)
    snprintf(p->err, p->errcap, fmt, what, (int)p->pos + 1);
  p->failed = 1;
}

static void emit(parser *p, instr in)
{
  if (p->failed)
    return;
  if (p->len == p->cap) {
    size_t cap = p->cap ? p->cap * 2 : 16;
    instr *c = realloc(p->code, cap * sizeof *c);
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

/* Operands an opcode pops. */
static int arity(opcode op)
{
  return op == OP_NUM || op == OP_VAR ? 0 : op == OP_COND ? 3 : 1 - effect(op);
}

static double exec(const instr *code, size_t len, ts_expr_getter get, void *ctx);

/* Emit operator o; when its operands are all constants (numbers, folded
 * $params), replace them and it by its value: the same arithmetic the
 * evaluation would do, done once at compile time. */
static void op(parser *p, opcode o)
{
  emit(p, (instr){.op = o});
  size_t k = (size_t)arity(o);
  if (p->failed || p->len < k + 1)
    return;
  for (size_t i = p->len - 1 - k; i < p->len - 1; i++)
    if (p->code[i].op != OP_NUM)
      return;
  double v = exec(p->code + p->len - 1 - k, k + 1, NULL, NULL);
  p->len -= k;
  p->code[p->len - 1] = (instr){.op = OP_NUM, .num = v};
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
    opcode op;
    int args;
  } fns[] = {{"min", OP_MIN, 2}, {"max", OP_MAX, 2}, {"floor", OP_FLOOR, 1}, {"ceil", OP_CEIL, 1}, {"abs", OP_ABS, 1}};
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
  emit(p, (instr){.op = arg ? OP_VARARG : OP_VAR, .var = var});
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
    emit(p, (instr){.op = OP_NUM, .num = v});
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
      emit(p, (instr){.op = OP_VAR, .var = var});
    else if (r == 2)
      emit(p, (instr){.op = OP_NUM, .num = c});
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
    op(p, neg ? OP_NEG : OP_NOT);
    leave(p);
  }
}

/* One level of left-associative binary operators: toks[i] emits ops[i]. */
static void binary(parser *p, void (*next)(parser *), const char *const *toks, const opcode *ops, size_t n)
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
  static const opcode o[] = {OP_MUL, OP_IDIV, OP_DIV, OP_MOD};
  binary(p, unary, t, o, 4);
}

static void sum(parser *p)
{
  static const char *const t[] = {"+", "-"};
  static const opcode o[] = {OP_ADD, OP_SUB};
  binary(p, prod, t, o, 2);
}

static void cmp(parser *p)
{
  static const char *const t[] = {"==", "!=", "<=", ">=", "<", ">"};
  static const opcode o[] = {OP_EQ, OP_NE, OP_LE, OP_GE, OP_LT, OP_GT};
  binary(p, sum, t, o, 6);
}

static void and_(parser *p)
{
  static const char *const t[] = {"&&"};
  static const opcode o[] = {OP_AND};
  binary(p, cmp, t, o, 1);
}

static void or_(parser *p)
{
  static const char *const t[] = {"||"};
  static const opcode o[] = {OP_OR};
  binary(p, and_, t, o, 1);
}

static void cond(parser *p)
{
  or_(p);
  if (accept(p, "?") && enter(p)) {
    cond(p);
    expect(p, ":");
    cond(p);
    op(p, OP_COND);
    leave(p);
  }
}

/* A binary operator: pops two values, pushes one. */
static int is_binary(opcode op)
{
  return (op >= OP_ADD && op <= OP_OR) || op == OP_MIN || op == OP_MAX;
}

/* The fused code of plain[0..len) into out (room for len): a number right
 * before a binary operator is that operator's right operand (an operand of
 * more than one instruction ends with an operator), so the two become the
 * operator with kb set. Returns the fused length. */
static size_t fuse(const instr *plain, size_t len, instr *out)
{
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    if (is_binary(plain[i].op) && n > 0 && out[n - 1].op == OP_NUM && !out[n - 1].kb) {
      out[n - 1] = (instr){.op = plain[i].op, .kb = 1, .num = out[n - 1].num};
      continue;
    }
    out[n++] = plain[i];
  }
  return n;
}

static ts_expr *make(instr *plain, size_t len, int depth, const char *text)
{
  ts_expr *e = calloc(1, sizeof *e);
  char *t = strdup(text);
  instr *code = malloc(len * sizeof *code);
  if (!e || !t || !code) {
    free(e);
    free(t);
    free(code);
    return NULL;
  }
  e->plain = plain;
  e->plain_len = len;
  e->code = code;
  e->len = fuse(plain, len, code);
  e->depth = depth;
  e->text = t;
  for (size_t i = 0; i < len; i++)
    e->nvars += plain[i].op == OP_VAR || plain[i].op == OP_VARARG;
  return e;
}

ts_expr *ts_expr_compile(const char *text, ts_expr_resolver resolve, void *ctx, char *err, size_t cap)
{
  parser p = {.s = text, .resolve = resolve, .ctx = ctx, .err = err, .errcap = cap};
  cond(&p);
  skip(&p);
  if (!p.failed && p.s[p.pos])
    fail(&p, "unexpected '%.1s' at column %d", p.s + p.pos);
  if (!p.failed && p.depth > 64)
    fail(&p, "nested too deeply%s (column %d)", "");
  ts_expr *e = p.failed ? NULL : make(p.code, p.len, p.depth, text);
  if (!e) {
    if (!p.failed)
      snprintf(err, cap, "out of memory");
    free(p.code);
  }
  return e;
}

ts_expr *ts_expr_constant(double v)
{
  instr *code = malloc(sizeof *code);
  char text[32];
  if (!code)
    return NULL;
  code[0] = (instr){.op = OP_NUM, .num = v};
  snprintf(text, sizeof text, "%.17g", v);
  ts_expr *e = make(code, 1, 1, text);
  if (!e)
    free(code);
  return e;
}

void ts_expr_free(ts_expr *e)
{
  if (!e)
    return;
  free(e->code);
  free(e->plain);
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
    if ((e->plain[i].op == OP_VAR || e->plain[i].op == OP_VARARG) && e->plain[i].var.kind == kind)
      return 1;
  return 0;
}

int ts_expr_reads_only(const ts_expr *e, int (*ok)(void *ctx, ts_expr_var v), void *ctx)
{
  for (size_t i = 0; i < e->plain_len; i++)
    if ((e->plain[i].op == OP_VAR || e->plain[i].op == OP_VARARG) && !ok(ctx, e->plain[i].var))
      return 0;
  return 1;
}

const char *ts_expr_text(const ts_expr *e)
{
  return e->text;
}

/* The stack machine: code[0..len) from an empty stack, reading variables
 * through get (NULL: every variable is 0). A binary operator's right
 * operand is the top value, or the instruction's number when kb is set. */
static double exec(const instr *code, size_t len, ts_expr_getter get, void *ctx)
{
  double st[64], a, b;
  int sp = 0;
  for (const instr *in = code, *end = code + len; in < end; in++) {
    switch (in->op) {
    case OP_NUM: st[sp++] = in->num; continue;
    case OP_VAR: st[sp++] = get ? get(ctx, in->var) : 0; continue;
    case OP_VARARG: {
      ts_expr_var v = in->var;
      v.arg = st[sp - 1];
      st[sp - 1] = get ? get(ctx, v) : 0;
      continue;
    }
    case OP_NEG: st[sp - 1] = -st[sp - 1]; continue;
    case OP_NOT: st[sp - 1] = st[sp - 1] == 0; continue;
    case OP_FLOOR: st[sp - 1] = floor(st[sp - 1]); continue;
    case OP_CEIL: st[sp - 1] = ceil(st[sp - 1]); continue;
    case OP_ABS: st[sp - 1] = fabs(st[sp - 1]); continue;
    case OP_COND:
      st[sp - 3] = st[sp - 3] != 0 ? st[sp - 2] : st[sp - 1];
      sp -= 2;
      continue;
/* a binary operator: a (below) op b (the top, or the instruction's number) */
#define BINARY(r)                          \
  b = in->kb ? in->num : st[--sp];         \
  a = st[sp - 1];                          \
  st[sp - 1] = (r);                        \
  continue
    case OP_ADD: BINARY(a + b);
    case OP_SUB: BINARY(a - b);
    case OP_MUL: BINARY(a * b);
    case OP_DIV: BINARY(a / b);
    case OP_IDIV: BINARY(floor(a / b));
    case OP_MOD: BINARY(b == 0 ? NAN : a - b * floor(a / b));
    case OP_EQ: BINARY(a == b);
    case OP_NE: BINARY(a != b);
    case OP_LT: BINARY(a < b);
    case OP_LE: BINARY(a <= b);
    case OP_GT: BINARY(a > b);
    case OP_GE: BINARY(a >= b);
    case OP_AND: BINARY(a != 0 && b != 0);
    case OP_OR: BINARY(a != 0 || b != 0);
    case OP_MIN: BINARY(a < b ? a : b);
    case OP_MAX: BINARY(a > b ? a : b);
#undef BINARY
    }
  }
  return sp == 1 ? st[0] : NAN;
}

double ts_expr_eval(const ts_expr *e, ts_expr_getter get, void *ctx)
{
  return exec(e->code, e->len, get, ctx);
}

double ts__expr_eval_plain(const ts_expr *e, ts_expr_getter get, void *ctx)
{
  return exec(e->plain, e->plain_len, get, ctx);
}
