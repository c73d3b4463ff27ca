/* Expressions in model and scenario fields: "$viewers // W", "i % W",
 * "4 + 2 * (k == 1)", "0.05 + 0.0001 * rows", "min($burst, 8)".
 *
 * Grammar, loosest first (C's precedence, Python's division):
 *   cond   := or ['?' cond ':' cond]
 *   or     := and {'||' and}          and := cmp {'&&' cmp}
 *   cmp    := sum [('==' | '!=' | '<' | '<=' | '>' | '>=') sum]
 *   sum    := prod {('+' | '-') prod}
 *   prod   := unary {('*' | '/' | '//' | '%') unary}
 *   unary  := ('-' | '!') unary | primary
 *   primary:= number | '$'name | name | name '(' cond {',' cond} ')'
 *           | name '(' name [',' cond] ')' | '(' cond ')'
 * '/' divides exactly, '//' is floor division and '%' the matching
 * non-negative remainder (for a positive divisor); comparisons and logic
 * give 0 or 1. Functions: min, max, floor, ceil, abs. Values are doubles
 * (integers up to 2^53 are exact).
 *
 * A name is resolved once, when the expression is compiled, by the caller's
 * resolver into a variable (a kind and an index the caller defines); a
 * resolver may also return a constant (a parameter), which is folded. A
 * call of a function that is not built in, whose first argument is a name,
 * reads a variable of the caller's too: the resolver is asked for
 * "F(NAME)", or "F(NAME,i)" when a second argument follows, whose value is
 * handed to the getter as the variable's arg ("waiters(track, T)": the
 * waiters on the channel track's instance T). A compiled expression is
 * evaluated with a getter for its variables. */
#ifndef TS_EXPR_H
#define TS_EXPR_H
#include <stddef.h>

/* A variable: kind and index are the resolver's (0 <= kind < 256). */
typedef struct ts_expr_var {
  int kind;
  int index;
  double arg;     /* a variable read by a call ("F(NAME,i)"): its second argument's value; else 0 */
} ts_expr_var;

typedef struct ts_expr ts_expr;

/* Resolve name (with its leading '$' if it had one). Returns 1 and sets *var
 * for a variable, 2 and sets *constant for a constant, 0 when unknown (the
 * compile fails naming it). */
typedef int (*ts_expr_resolver)(void *ctx, const char *name, ts_expr_var *var, double *constant);
/* The value of a variable at evaluation time. */
typedef double (*ts_expr_getter)(void *ctx, ts_expr_var var);

/* How deeply parentheses, unary operators, function arguments and ?:
 * branches may nest: the parser is recursive, and its depth is bounded here,
 * not by the input. */
#define TS_EXPR_MAX_NEST 100

/* Compile text. Returns a new expression, or NULL with a one-line reason in
 * err (of size cap: "unknown name \"x\" at column 3", "expected ')' at
 * column 9", "nested deeper than 100 levels ... at column 201", or "out of
 * memory"). */
ts_expr *ts_expr_compile(const char *text, ts_expr_resolver resolve, void *ctx, char *err, size_t cap);
/* A constant expression (what a number in a JSON field is). NULL when memory runs out. */
ts_expr *ts_expr_constant(double v);
/* Free an expression; NULL is accepted. */
void ts_expr_free(ts_expr *e);
/* 1 with *v set when e has no variables (its value is known), else 0. */
int ts_expr_is_constant(const ts_expr *e, double *v);
/* 1 if e reads a variable of this kind. */
int ts_expr_uses(const ts_expr *e, int kind);
/* 1 if ok(ctx, v) holds for every variable v that e reads (0 at the first
 * that fails it). */
int ts_expr_reads_only(const ts_expr *e, int (*ok)(void *ctx, ts_expr_var v), void *ctx);
/* The longest start code[0..p) of e's code as it runs (ts__expr_run_from,
 * expr_run.h) that reads at least one variable, every variable it reads
 * passing ok(ctx, v), and after which the stack holds between 1 and maxk
 * values (*k): running code[0..p) and then code[p..) from the values it
 * left is running e. Returns p, or 0 when there is none (*k untouched). */
size_t ts__expr_stable_prefix(const ts_expr *e, int (*ok)(void *ctx, ts_expr_var v), void *ctx, int maxk, int *k);
/* 1 if the first p instructions of a's and b's code as they run are the
 * same (the same values from the same variables), else 0. */
int ts__expr_same_start(const ts_expr *a, const ts_expr *b, size_t p);
/* ts_expr_reads_only over the variables of the first p instructions of e's
 * code as it runs (a prefix of ts__expr_stable_prefix). */
int ts__expr_code_reads_only(const ts_expr *e, size_t p, int (*ok)(void *ctx, ts_expr_var v), void *ctx);
/* Evaluate e; get is called for each variable read (NULL when e is constant).
 * Division by zero gives an infinity or NaN, which callers range-check. */
double ts_expr_eval(const ts_expr *e, ts_expr_getter get, void *ctx);
/* Evaluate e as ts_expr_eval does, from its code as compiled: one
 * instruction per value and operator, no number fused into an operator.
 * The tests compare the two (same bits, or both NaN); for them. */
double ts__expr_eval_plain(const ts_expr *e, ts_expr_getter get, void *ctx);
/* The text e was compiled from. */
const char *ts_expr_text(const ts_expr *e);
/* text, or (when it has cap or more bytes) its start cut to fit buf with
 * "..." after it: an expression quoted in a message, short enough that the
 * reason after it is not cut off. cap >= 8. */
const char *ts_expr_excerpt(const char *text, char *buf, size_t cap);
#define TS_EXPR_QUOTE 120 /* a buffer for ts_expr_excerpt in messages */
/* e named in a message before its value ("count %sis %s"): its text quoted
 * with a space after it ("\"i - 3\" "; long: ts_expr_excerpt's start), into
 * buf of size cap (>= 11), or "" when it is a number (a JSON number's
 * constant), which its value says. */
const char *ts_expr_said(const ts_expr *e, char *buf, size_t cap);
#define TS_EXPR_SAID (TS_EXPR_QUOTE + 3) /* a buffer for ts_expr_said */
/* A value (an expression's, or any number a message quotes) into buf of
 * size cap: "%g", with more digits when %g would not read back as v (so
 * that 1000001 is not "1e+06", which looks inside [1, 1e+06]), then unit
 * ("-0.5 ms"), or "not a number" for a NaN (0/0), which printf spells
 * "-nan". Returns buf. */
const char *ts_expr_value_text(char *buf, size_t cap, double v, const char *unit);
#define TS_EXPR_NUM 48 /* a buffer for ts_expr_value_text */
/* 1 if s is one name to the expression language ([A-Za-z_][A-Za-z0-9_]*),
 * as "$s" must be to name a parameter. */
int ts_expr_is_name(const char *s);

#endif
