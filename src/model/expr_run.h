/* The expression machine, inline: compiled code (expr.c compiles it) and the
 * stack machine that runs it, for a caller whose getter the compiler can
 * inline (the actors' evaluation, actor_eval.c) and for expr.c's own
 * ts_expr_eval (any getter, through its pointer). Both run this one
 * function: the same instructions, the same arithmetic in the same order,
 * so the same bits. Internal to the model layer. */
#ifndef TS_MODEL_EXPR_RUN_H
#define TS_MODEL_EXPR_RUN_H
#include "model/expr.h"

#include <math.h>
#include <stddef.h>

/* Binary: TS_XOP_ADD to TS_XOP_OR, TS_XOP_MIN, TS_XOP_MAX (expr.c's is_binary). */
typedef enum {
  TS_XOP_NUM, TS_XOP_VAR, TS_XOP_VARARG, TS_XOP_NEG, TS_XOP_NOT, TS_XOP_ADD, TS_XOP_SUB, TS_XOP_MUL, TS_XOP_DIV,
  TS_XOP_IDIV, TS_XOP_MOD, TS_XOP_EQ, TS_XOP_NE, TS_XOP_LT, TS_XOP_LE, TS_XOP_GT, TS_XOP_GE, TS_XOP_AND, TS_XOP_OR,
  TS_XOP_COND, TS_XOP_MIN, TS_XOP_MAX, TS_XOP_FLOOR, TS_XOP_CEIL, TS_XOP_ABS,
  TS_XOP_IN, /* code only: the top value is one of set[0..kb) (ascending, NaNs last) (1) or not (0) */
  /* code only: a binary operator whose right operand is the instruction's
   * number (kb set; expr.c's fused_op): one op per operator, so the machine
   * tests no flag to find its operand */
  TS_XOP_ADD_K, TS_XOP_SUB_K, TS_XOP_MUL_K, TS_XOP_DIV_K, TS_XOP_IDIV_K, TS_XOP_MOD_K, TS_XOP_EQ_K, TS_XOP_NE_K,
  TS_XOP_LT_K, TS_XOP_LE_K, TS_XOP_GT_K, TS_XOP_GE_K, TS_XOP_AND_K, TS_XOP_OR_K, TS_XOP_MIN_K, TS_XOP_MAX_K,
  /* code only: "B + (C - x // k) % m", a ring index, from the values B, C, x
   * (x the top): IDIV_K k, SUB, MOD_K m, ADD as one instruction (num k, mod
   * m; expr.c's fuse_rings), the same operations in the same order */
  TS_XOP_RING,
  /* code only: TS_XOP_VAR of a variable of kind k < TS_XOP_VAR_KINDS, the
   * kind in the op (TS_XOP_VAR_0 + k), so that a getter inlined into the
   * machine is inlined once per kind, its switch on the kind folded away */
  TS_XOP_VAR_0, TS_XOP_VAR_1, TS_XOP_VAR_2, TS_XOP_VAR_3, TS_XOP_VAR_4, TS_XOP_VAR_5, TS_XOP_VAR_6, TS_XOP_VAR_7,
  TS_XOP_VAR_8, TS_XOP_VAR_9, TS_XOP_VAR_10, TS_XOP_VAR_11, TS_XOP_VAR_12, TS_XOP_VAR_13, TS_XOP_VAR_14,
  TS_XOP_VAR_15,
  TS_XOP_END /* code only: the end of the code (ts_expr.code[len], plain[plain_len]): the machine stops */
} ts_expr_op;

#define TS_XOP_VAR_KINDS 16 /* the kinds with a TS_XOP_VAR_k op */

typedef struct ts_expr_instr {
  ts_expr_op op;
  int kb;         /* code: a binary operator whose right operand is num (a TS_XOP_*_K op); TS_XOP_IN: set's length */
  double num;
  union {
    ts_expr_var var;   /* TS_XOP_VAR, TS_XOP_VARARG */
    const double *set; /* TS_XOP_IN: constants (ts_expr.sets) */
    double mod;        /* TS_XOP_RING: m (never 0) */
  };
} ts_expr_instr;

struct ts_expr {
  ts_expr_instr *code;  /* plain with the numbers fused into the operators after them; code[len] is TS_XOP_END */
  size_t len;
  ts_expr_instr *plain; /* one instruction per value or operator; plain[plain_len] is TS_XOP_END */
  size_t plain_len;
  int depth;            /* largest stack the code needs */
  int nvars;            /* TS_XOP_VAR instructions */
  double *sets;         /* the constants of code's TS_XOP_IN instructions */
  char *text;
};

#if defined(__GNUC__)
#define TS_EXPR_INLINE static inline __attribute__((always_inline))
#define TS_EXPR_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define TS_EXPR_INLINE static inline
#define TS_EXPR_UNLIKELY(x) (x)
#endif

/* The most values an expression's stack holds (ts_expr_compile refuses a
 * deeper one), so the room every caller of the machine gives it. */
#define TS_EXPR_STACK 64

/* TS_XOP_RING's value, B + (C - x // k) % m: IDIV_K k, SUB, MOD_K m and ADD
 * as their own cases compute them, in their order (so the same bits). For
 * the machine and for an index whose B and C are kept (actor_eval.c index_kept). */
TS_EXPR_INLINE double ts__expr_ring(double B, double C, double x, double k, double m)
{
  double d = C - floor(x / k);
  return B + (d - m * floor(d / m));
}

/* The stack machine: code up to its TS_XOP_END from the stack st[0..sp)
 * (room for TS_EXPR_STACK values), reading variables through get (NULL:
 * every variable is 0). A binary operator's right operand is the top value,
 * or the instruction's number for a TS_XOP_*_K op. Returns the values then
 * on st. (The end is an instruction, not a bound tested before each one.) */
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic error "-Wswitch-enum" /* (an op without its case: an error, despite the default) */
#endif
TS_EXPR_INLINE int ts__expr_run_from(const ts_expr_instr *code, ts_expr_getter get, void *ctx, double *st, int sp)
{
  double a, b;
  for (const ts_expr_instr *in = code;; in++) {
    switch (in->op) {
    case TS_XOP_END: return sp;
    case TS_XOP_NUM: st[sp++] = in->num; continue;
    case TS_XOP_VAR: st[sp++] = get ? get(ctx, in->var) : 0; continue;
/* a variable of kind k (its index from the instruction) */
#define TS_XOP_VAR_OF(k)                                                                                  \
  case TS_XOP_VAR_##k:                                                                                    \
    st[sp++] = get ? get(ctx, (ts_expr_var){.kind = k, .index = in->var.index, .arg = in->var.arg}) : 0; \
    continue
    TS_XOP_VAR_OF(0); TS_XOP_VAR_OF(1); TS_XOP_VAR_OF(2); TS_XOP_VAR_OF(3);
    TS_XOP_VAR_OF(4); TS_XOP_VAR_OF(5); TS_XOP_VAR_OF(6); TS_XOP_VAR_OF(7);
    TS_XOP_VAR_OF(8); TS_XOP_VAR_OF(9); TS_XOP_VAR_OF(10); TS_XOP_VAR_OF(11);
    TS_XOP_VAR_OF(12); TS_XOP_VAR_OF(13); TS_XOP_VAR_OF(14); TS_XOP_VAR_OF(15);
#undef TS_XOP_VAR_OF
    case TS_XOP_VARARG: {
      ts_expr_var v = in->var;
      v.arg = st[sp - 1];
      st[sp - 1] = get ? get(ctx, v) : 0;
      continue;
    }
    case TS_XOP_NEG: st[sp - 1] = -st[sp - 1]; continue;
    case TS_XOP_NOT: st[sp - 1] = st[sp - 1] == 0; continue;
    case TS_XOP_FLOOR: st[sp - 1] = floor(st[sp - 1]); continue;
    case TS_XOP_CEIL: st[sp - 1] = ceil(st[sp - 1]); continue;
    case TS_XOP_ABS: st[sp - 1] = fabs(st[sp - 1]); continue;
    case TS_XOP_IN: { /* "x == c1 || x == c2 || ...": the same 1 or 0 (the set ascending: the first
                       * constant not below x is the only one that may equal it; a NaN x equals none) */
      int hit = 0;
      for (int j = 0; j < in->kb; j++)
        if (in->set[j] >= st[sp - 1]) {
          hit = in->set[j] == st[sp - 1];
          break;
        }
      st[sp - 1] = hit;
      continue;
    }
    case TS_XOP_COND:
      st[sp - 3] = st[sp - 3] != 0 ? st[sp - 2] : st[sp - 1];
      sp -= 2;
      continue;
/* a binary operator: a (below) op b (the top; for op's _K form the instruction's number) */
#define TS_XOP_BINARY(op, r)               \
  case op:                                 \
    b = st[--sp];                          \
    a = st[sp - 1];                        \
    st[sp - 1] = (r);                      \
    continue;                              \
  case op##_K:                             \
    b = in->num;                           \
    a = st[sp - 1];                        \
    st[sp - 1] = (r);                      \
    continue
    TS_XOP_BINARY(TS_XOP_ADD, a + b);
    TS_XOP_BINARY(TS_XOP_SUB, a - b);
    TS_XOP_BINARY(TS_XOP_MUL, a * b);
    TS_XOP_BINARY(TS_XOP_DIV, a / b);
    TS_XOP_BINARY(TS_XOP_IDIV, floor(a / b));
    case TS_XOP_MOD: /* (a - b * floor(a / b): the MOD_K form's, whose b is never 0) */
      b = st[--sp];
      a = st[sp - 1];
      st[sp - 1] = b == 0 ? NAN : a - b * floor(a / b);
      continue;
    case TS_XOP_MOD_K: /* (expr.c's fuse leaves "x % 0" unfused) */
      b = in->num;
      a = st[sp - 1];
      st[sp - 1] = a - b * floor(a / b);
      continue;
    case TS_XOP_RING:
      st[sp - 3] = ts__expr_ring(st[sp - 3], st[sp - 2], st[sp - 1], in->num, in->mod);
      sp -= 2;
      continue;
    TS_XOP_BINARY(TS_XOP_EQ, a == b);
    TS_XOP_BINARY(TS_XOP_NE, a != b);
    TS_XOP_BINARY(TS_XOP_LT, a < b);
    TS_XOP_BINARY(TS_XOP_LE, a <= b);
    TS_XOP_BINARY(TS_XOP_GT, a > b);
    TS_XOP_BINARY(TS_XOP_GE, a >= b);
    TS_XOP_BINARY(TS_XOP_AND, a != 0 && b != 0);
    TS_XOP_BINARY(TS_XOP_OR, a != 0 || b != 0);
    TS_XOP_BINARY(TS_XOP_MIN, a < b ? a : b);
    TS_XOP_BINARY(TS_XOP_MAX, a > b ? a : b);
#undef TS_XOP_BINARY
#if defined(__GNUC__)
    default: __builtin_unreachable(); /* (no range test: compiled code holds only the ops above) */
#endif
    }
  }
}
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif

/* The stack machine on code (up to its TS_XOP_END) from an empty stack:
 * the one value left (NaN if the code leaves another count). */
TS_EXPR_INLINE double ts__expr_run(const ts_expr_instr *code, ts_expr_getter get, void *ctx)
{
  double st[TS_EXPR_STACK];
  return ts__expr_run_from(code, get, ctx, st, 0) == 1 ? st[0] : NAN;
}

/* ts_expr_eval(e, get, ctx), with get inlined where the caller's is known. */
TS_EXPR_INLINE double ts__expr_eval_inline(const ts_expr *e, ts_expr_getter get, void *ctx)
{
  return ts__expr_run(e->code, get, ctx);
}
#endif
