/* The model loader's state and the functions its files share (ts__ml_ =
 * private to the loader, not part of the library's interface): model_json.c
 * (the file's top level), load_util.c (small helpers), program_json.c (the
 * program compiler), class_json.c (classes), decl_json.c (pools, locks,
 * channels, counters, servers), host_json.c (host and dispatch),
 * metric_json.c (model-defined metrics) and spec_json.c (the typed fields an
 * op's load function reads through model/spec.h). Private to src/io. Every
 * function that fails records its error (with the path at L's cursor) and
 * returns -1 (NULL for pointers); 0 is success. */
#ifndef TS_MODEL_LOAD_H
#define TS_MODEL_LOAD_H
#include <cjson/cJSON.h>
#include <stdint.h>

#include "io/err.h"
#include "io/jsonfile.h"
#include "model/model.h"
#include "model/spec.h"

#define TS_MAX_LOOP_DEPTH 32

enum { TS_EXPR_COUNT = 2 };

typedef struct loader {
  ts_jctx c;
  ts_err *e;
  ts_model *m;
  const cJSON *params;
  /* the program being compiled */
  ts_step *steps;
  size_t nsteps, cap;
  int depth;                          /* repeats open around the step */
  int in_handler;                     /* call handlers open around the step */
  int max_depth;
  const char *loop_name[TS_MAX_LOOP_DEPTH];
  size_t loop_step[TS_MAX_LOOP_DEPTH];  /* the repeat step of each loop open around the step */
  int class_expr;                     /* compiling a class-level expression: only $params, n, W, i, lets;
                                         TS_EXPR_COUNT: a class's count, only $params, n, W */
  const cJSON *classes_json;          /* the model's classes, for names used before their class is loaded */
  const ts_class *klass;              /* the class being loaded: its "let" names */
  uint64_t mutex_order[64];           /* bit t of [h]: some step takes mutex t while mutex h is held */
  char **order_where;                 /* [64 * 64]: the path of the first step that took t under h (NULL: none yet) */
} loader;

struct ts_spec {
  loader *L;
  const cJSON *st;                    /* the step object */
  int dyn;                            /* the step's fields may read run-time names (i, loops, counters) */
};

/* Compile the expression in JSON value v (a number, "$param" or text) for the
 * field at key. Returns 0 with *out set, or -1 with the error recorded. */
int ts_load_expr(loader *L, const cJSON *obj, const char *key, int required, ts_expr **out);
/* A "$name" string parameter's value, or NULL (then the error is recorded
 * unless the parameter is absent and not required). */
const char *ts_load_string_param(loader *L, const char *key, const char *ref);
/* Record that got, the name at key of obj, is none of names (NULL-terminated):
 * "expected WHAT; got "GOT"", then " from $P" when the field's JSON value is
 * "$P" (a string parameter gave it, so that an override of params.P is
 * blamed for it), then "; did you mean "NAME"?" with the name of names
 * nearest to got (ts_suggest), when one is near. Returns -1. */
int ts_load_bad_name(loader *L, const cJSON *obj, const char *key, const char *what, const char *got,
                     const char *const *names);

/* load_util.c */
/* A copy of s, or NULL with "out of memory" recorded. */
char *ts__ml_dup_or_fail(loader *L, const char *s);
/* 1 if s is an expression name ([A-Za-z_][A-Za-z0-9_]*, at most 60) and not a built-in, else 0. */
int ts__ml_is_identifier(const char *s);
/* 0 if name, which the cursor's key (may be NULL) declares `as` ("a let of
 * the class"), means nothing else to the class's expressions; else -1 after
 * naming the other meaning and its path: a let, one of the class's vars, an
 * enclosing repeat's name or a counter. */
int ts__ml_name_clash(loader *L, const char *key, const char *name, const char *as);
/* 0 if name (at obj[key]) is 1 to 100 letters, digits, '-', '_' or '.', else -1. */
int ts__ml_check_name(loader *L, const char *key, const char *name);
/* A ts_spec reading the fields of obj (not a step: no run-time names). */
ts_spec ts__ml_spec_of(loader *L, const cJSON *obj);
/* Optional obj[key], one of names (NULL-terminated): *out = its index; absent: unchanged. */
int ts__ml_enum_field(loader *L, const cJSON *obj, const char *key, const char *const *names, int *out);
/* Optional time in ms at obj[key] into *out; absent: unchanged. */
int ts__ml_time_field(loader *L, const cJSON *obj, const char *key, ts_time *out);
/* The class-level expression at obj[key] ($params, n, W, i, lets) into *out. */
int ts__ml_class_expr(loader *L, const cJSON *obj, const char *key, int required, ts_expr **out);
/* The required "count" of obj (a class's actors or a pool's workers: $params, n, W) into *out;
 * when it is known at load time, an integer in [lo, hi]. */
int ts__ml_count_expr(loader *L, const cJSON *obj, double lo, double hi, ts_expr **out);
/* A count e (loaded from obj[key]) known at load time must be an integer in
 * [lo, hi]: 0, or -1 after ts_jfail ("expected an integer in [0, 1e+15], got
 * -3"; an expression quoted, its value not). Not known at load: 0 (its op
 * checks it as it runs). */
int ts__ml_check_count(loader *L, const cJSON *obj, const char *key, const ts_expr *e, double lo, double hi);
/* Why expression e is not known at load time, for a message: "n, the
 * sweep's n" and the like, naming the first name it reads that only a run
 * knows ("a name known only while running" if none of the usual). */
const char *ts__ml_not_constant_why(const ts_expr *e);
/* The queue class names, in TS_CLASS_* order (NULL-terminated). */
/* The TS_CLASS_* of a queue class name (foreground, normal, background), or -1 (nothing recorded). */

/* program_json.c */
/* Compile obj["program"] (required, not empty) at the top level into L->steps
 * (L->nsteps, L->max_depth; the caller has reset them); *locks = the lock bits
 * still held at its end. */
int ts__ml_compile_program(loader *L, const cJSON *obj, uint64_t *locks);

/* class_json.c */
/* Load class jc into L->m->classes[index] (the caller has counted it in nclasses). */
int ts__ml_load_class(loader *L, const cJSON *jc, int index);

/* decl_json.c */
/* The main pool ("worker") and "pools" of root into L->m->pools. */
int ts__ml_load_pools(loader *L, const cJSON *root);
/* The "locks", "channels", "counters" and "servers" of root into L->m (after the pools). */
int ts__ml_load_locks(loader *L, const cJSON *root);

/* host_json.c */
/* The "host" and "dispatch" sections of root into m (first: later CPU costs follow m->cpu_scale). */
int ts__ml_load_host_dispatch(loader *L, ts_model *m, const cJSON *root);

/* metric_json.c */
/* The "metrics" object of root into m->metrics (after the classes: spans are known). */
int ts__ml_load_metrics(loader *L, ts_model *m, const cJSON *root);

#endif
