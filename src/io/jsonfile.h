/* Reading JSON files and typed fields out of cJSON trees, with errors that
 * name the file and the JSON path. Only src/io includes cJSON. */
#ifndef TS_JSONFILE_H
#define TS_JSONFILE_H
#include <cjson/cJSON.h>
#include <stddef.h>
#include <stdint.h>

#include "io/err.h"
#include "model/expr.h"

#define TS_MAX_FILE_BYTES (64L * 1024 * 1024)

/* A cursor: the file and the JSON path of the node being read. */
typedef struct ts_jctx {
  const char *file;
  char path[512];
} ts_jctx;

/* Parse the JSON text text[0, len), named file in errors, into *out (free
 * with cJSON_Delete); text[len] must be '\0'. Refused, each with one line
 * "FILE: ...": an empty or blank text, a NUL byte (a binary file), bytes that
 * are not UTF-8, malformed JSON (with its line and column, and what was found
 * and expected there: ts__json_explain), arrays and
 * objects nested deeper than CJSON_NESTING_LIMIT, and a key given twice in
 * one object ("FILE: JSON.PATH.KEY: duplicate key (first at line L, column C;
 * again at ...)"). Linear in len but for sorting the keys of objects with
 * many members. Returns 0, or -1 with e filled. */
int ts_json_parse(const char *text, size_t len, const char *file, cJSON **out, ts_err *e);
/* Read the file at path (at most TS_MAX_FILE_BYTES; not a folder) and parse
 * it with ts_json_parse. Returns 0, or -1 with e filled. */
int ts_json_load(const char *path, cJSON **out, ts_err *e);
/* Append ".key" or "[i]" to a cursor's path; returns the previous length for ts_jpop. */
size_t ts_jpush_key(ts_jctx *c, const char *key);
size_t ts_jpush_index(ts_jctx *c, int i);
/* Restore a cursor's path to a previous length. */
void ts_jpop(ts_jctx *c, size_t len);

/* Arrays, linearly. cJSON keeps an array as a linked list: cJSON_GetArrayItem(a, i)
 * walks i items from the head and cJSON_GetArraySize(a) walks them all, so a loop
 * `for (i = 0; i < cJSON_GetArraySize(a); i++) cJSON_GetArrayItem(a, i)` is
 * quadratic. TS_JARRAY_EACH visits the items in order in O(1) each, declaring the
 * int index i and the `const cJSON *` item for the loop's body (break and continue
 * work as in a for loop; a NULL or empty array: no iteration):
 *   TS_JARRAY_EACH(i, step, program) { ts_jpush_index(c, i); load(step); ... } */
static inline const cJSON *ts_jarray_first(const cJSON *a)
{
  return a ? a->child : NULL;
}
#define TS_JARRAY_EACH(i, item, a)                                \
  for (int i = 0, i##_once_ = 1; i##_once_; i##_once_ = 0)       \
    for (const cJSON *item = ts_jarray_first(a); item; item = item->next, i++)

/* A number a load error quotes, as text that reads back as v (1000001, not
 * %g's "1e+06", which looks inside [1, 1e+06]): ts_expr_value_text into a
 * buffer that lives until the end of the enclosing block. */
#define TS_JNUM(v) ts_expr_value_text((char[TS_EXPR_NUM]){0}, TS_EXPR_NUM, (v), "")

/* Typed getters on obj[key]. `required` = 0 leaves *out as is when absent.
 * Each returns 0, or -1 with e filled ("expected a number >= 0", ...). */
int ts_jget_object(ts_jctx *c, const cJSON *obj, const char *key, int required, const cJSON **out, ts_err *e);
int ts_jget_array(ts_jctx *c, const cJSON *obj, const char *key, int required, const cJSON **out, ts_err *e);
int ts_jget_string(ts_jctx *c, const cJSON *obj, const char *key, int required, const char **out, ts_err *e);
int ts_jget_bool(ts_jctx *c, const cJSON *obj, const char *key, int required, int *out, ts_err *e);
int ts_jget_number(ts_jctx *c, const cJSON *obj, const char *key, int required, double lo, double hi,
                   double *out, ts_err *e);
int ts_jget_int(ts_jctx *c, const cJSON *obj, const char *key, int required, long lo, long hi, long *out,
                ts_err *e);
/* Reject keys of obj not in the NULL-terminated list allowed (catches typos). */
int ts_jcheck_keys(ts_jctx *c, const cJSON *obj, const char *const *allowed, ts_err *e);
/* Error at the cursor's path (plus key, if not NULL). Returns -1. */
int ts_jfail(ts_jctx *c, const char *key, ts_err *e, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* The error for a value of the wrong JSON type, the one place type errors are
 * worded: "MESSAGE, got TYPE" at the cursor's path (plus key), TYPE being
 * ts_json_type_name(v). Every loader check of a value's type ("expected an
 * object", "expected a number in [0, 10]", ...) goes through it, so each says
 * what it found. Returns -1. */
int ts_jfail_got(ts_jctx *c, const char *key, const cJSON *v, ts_err *e, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* "a number", "a string", "a boolean", "null", "an array" or "an object". */
const char *ts_json_type_name(const cJSON *v);

/* Set the node at a dotted path (a.b[2].c) in root to a value parsed as JSON
 * (all of it: "2 * 3" is not JSON, so it is the string), or as a string if
 * it is not JSON; a value that opens with {, [ or " must be JSON. Everything but the last key must exist;
 * a missing last key is added (the loader then rejects keys it does not
 * know), except under the top-level "params", where it is an error; a last
 * index one past an array's end appends to it.
 * Returns 0 or -1 with e filled. */
int ts_json_set_path(cJSON *root, const char *file, const char *path, const char *value, ts_err *e);
/* Whether path is well formed: keys joined by '.' and [indexes] of whole
 * numbers, a key after ']' only after its '.' (classes[0].count, not
 * classes[0]count). 0, or -1 with e filled as "FILE: WHERE: PATH: expected
 * ..." (where may be NULL): the one message of every place that takes a
 * path (--set, a scenario's "set" and axes, --param, --field, --choice). */
int ts_json_path_check(const char *file, const char *where, const char *path, ts_err *e);
/* The node at a dotted path, or NULL. */
cJSON *ts_json_get_path(cJSON *root, const char *path);
/* Whether ts_json_set_path could set path in root: it exists, or its last
 * key is missing from an object that exists (not params, where a missing
 * key is a typo). */
int ts_json_path_settable(cJSON *root, const char *path);
/* The member of object obj whose name is nearest to name (ts_suggest over
 * its first 256 members), or NULL when none is near or obj is no object. */
const char *ts_json_near_member(const cJSON *obj, const char *name);
/* For a dotted path whose last key is missing: its parent's path into parent
 * (cap bytes; "" when it has none) and the key of that parent
 * object nearest to the missing one (ts_suggest), or NULL when none is near
 * or the last step is an array index. */
const char *ts_json_near_key(const cJSON *tree, const char *path, char *parent, size_t cap);

#endif
