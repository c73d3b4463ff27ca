/* File paths inside a model file: which fields hold one (relative to the
 * model file's folder), and how to keep them pointing at the same files when
 * the model is written elsewhere (tssim calibrate -o OTHER/x.json). */
#ifndef TS_PATHS_H
#define TS_PATHS_H
#include <stddef.h>

#include "io/err.h"

struct cJSON;

/* rel as read from a file at from_file, as a file at to_file must say it to
 * name the same file: rel itself when it is absolute or both files are in
 * the same folder; else, with both folders resolved with realpath, a path
 * relative to to_file's folder when the file lies under it, and otherwise
 * (or when to_file's folder cannot be resolved) an absolute one: never a
 * "../", which the loader's textual join would resolve elsewhere through a
 * symlinked folder. Returns a new string, or NULL when memory ran out. */
char *ts_path_rebase(const char *from_file, const char *rel, const char *to_file);
/* Rewrite every file path field of model (a model tree read from from_file,
 * see ts_model_path_fields) with ts_path_rebase so that it resolves from
 * to_file's folder. Returns 0, or -1 with e filled (out of memory). */
int ts_model_rebase_paths(struct cJSON *model, const char *from_file, const char *to_file, ts_err *e);
/* The JSON paths of a model's file path fields (NULL-terminated), e.g.
 * "host.cpu_scale_by_n.baseline": each loader that reads a field as a file
 * relative to the model file lists it here. */
extern const char *const ts_model_path_fields[];
/* For a file path that does not exist: the path of the file of its folder
 * whose name is nearest to its name (ts_suggest over the names without
 * their extension of the folder's first 4096 entries that have the same
 * extension), in the same folder as written, into buf (size cap); NULL
 * when none is near, the folder cannot be read or it does not fit. */
const char *ts_path_near_file(const char *path, char *buf, size_t cap);

#endif
