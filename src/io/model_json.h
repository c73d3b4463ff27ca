/* Models from JSON: the file format is documented in
 * docs/language.md. Loading applies --set overrides to the JSON tree first, then
 * checks every field, so a typo or a bad value is reported with its path. */
#ifndef TS_MODEL_JSON_H
#define TS_MODEL_JSON_H
#include <cjson/cJSON.h>

#include "io/err.h"
#include "model/model.h"

#define TS_MAX_MS 3.6e6          /* one hour, in ms: the largest cost or latency */
#define TS_MAX_ROWS 10000000L
#define TS_MAX_ACTORS 1000000L   /* n */
#define TS_MAX_COUNT 10000000L   /* a class's count (and all classes' together: world.c) */
#define TS_MAX_WORKERS 4096L

/* Convert a parsed model tree into m (caller memory; free with ts_model_finish).
 * file names the source in errors. Returns 0, or -1 with e filled. */
int ts_model_from_json(const cJSON *root, const char *file, ts_model *m, ts_err *e);
/* Load a model file, apply `nsets` overrides "PATH=VALUE", convert it. On
 * success *resolved (if not NULL) receives the overridden tree (caller frees
 * with cJSON_Delete). Returns 0 or -1 with e filled. */
int ts_model_load(const char *path, const char *const *sets, int nsets, ts_model *m, cJSON **resolved,
                  ts_err *e);
/* Apply one "PATH=VALUE" override to a model tree. Returns 0 or -1. */
int ts_model_apply_set(cJSON *root, const char *file, const char *set, ts_err *e);
/* Which override of sets[0..nsets) makes the model of tree root (before
 * them; file names it) fail to load, for a message that blames it: the
 * last i such that root with sets[0..i] does not load (an override or the
 * conversion fails) where root with sets[0..i) does (a later override may
 * undo an earlier failing one: `count=-1` then `count=n`). -1 when root
 * itself does not load, the whole list loads, or memory runs out. */
int ts_model_failing_set(const cJSON *root, const char *file, const char *const *sets, int nsets);
/* Replace what a conversion of root would read from other files by its
 * content, for trees converted again and again (a calibration's
 * evaluations): host.cpu_scale_by_n {"baseline": FILE, "metric": M} becomes
 * the {"n": [...], "scale": [...]} table it stands for, which converts to
 * the same model. Returns 0, or -1 with e filled (root then unchanged). */
int ts_model_inline_files(cJSON *root, const char *file, ts_err *e);

#endif
