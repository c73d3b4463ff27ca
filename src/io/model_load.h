/* The model loader's state, shared by model_json.c (the file's structure,
 * declarations and the program compiler) and spec_json.c (the typed fields
 * an op's load function reads through model/spec.h). Private to src/io. */
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
  int max_depth;
  const char *loop_name[TS_MAX_LOOP_DEPTH];
  int class_expr;                     /* compiling a class-level expression: only $params, n, W, i, lets;
                                         TS_EXPR_COUNT: a class's count, only $params, n, W */
  const cJSON *classes_json;          /* the model's classes, for names used before their class is loaded */
  const ts_class *klass;              /* the class being loaded: its "let" names */
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

#endif
