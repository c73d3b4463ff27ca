/* Files that appear whole or not at all: written under a temporary name in
 * the destination folder, renamed over the target only when every file of a
 * batch was written. A failed run never leaves a half-written result. A batch
 * can also name files to remove (stale outputs of an earlier run): they go in
 * the same commit, so the folder holds either the old set or the new one. */
#ifndef TS_ATOMIC_H
#define TS_ATOMIC_H
#include <stdio.h>

#include "io/err.h"

#define TS_ATOMIC_MAX 16
#define TS_ATOMIC_GONE_MAX 32 /* files a batch removes: a results folder's every kind (cli/results.c) */

typedef struct ts_atomic {
  char *final[TS_ATOMIC_MAX];
  char *tmp[TS_ATOMIC_MAX];
  FILE *f[TS_ATOMIC_MAX];
  int n;
  char *gone[TS_ATOMIC_GONE_MAX]; /* files the commit removes */
  int ngone;
} ts_atomic;

/* Create dir and its parents (like mkdir -p). Returns 0, or -1 with e filled
 * (naming the part of the path that could not be made a folder, e.g. "a file
 * of that name exists"). */
int ts_mkdirs(const char *dir, ts_err *e);
/* Begin a batch. */
void ts_atomic_init(ts_atomic *a);
/* Open dir/name for writing in the batch. Returns the stream or NULL with e
 * filled (naming dir/name, not the temporary). */
FILE *ts_atomic_open(ts_atomic *a, const char *dir, const char *name, ts_err *e);
/* The folder of file path into dir (cap bytes): "." when path has no
 * slash, "/" for a file in the root. Returns the file's name in path (""
 * when path ends in '/'), or NULL when the folder does not fit. */
const char *ts_atomic_split(const char *path, char *dir, size_t cap);
/* Open the file at path for writing in the batch, as ts_atomic_open of its
 * folder ("." without a slash) and its name, after making the folder and its
 * parents (ts_mkdirs). Returns the stream or NULL with e filled (a path
 * that ends in '/' names no file: "expected a file name, not a folder"). */
FILE *ts_atomic_open_path(ts_atomic *a, const char *path, ts_err *e);
/* Have the commit remove dir/name if it exists then (and put it back if the
 * commit fails). Returns 0 or -1 with e filled. */
int ts_atomic_remove(ts_atomic *a, const char *dir, const char *name, ts_err *e);
/* Close every stream; if all writes succeeded replace every target and
 * remove every file named by ts_atomic_remove (old files are moved aside
 * first and put back if any rename fails, so the batch happens entirely or
 * not at all), else remove the temporaries. A target that exists and is not
 * a regular file fails the batch. Returns 0 or -1 with e filled. */
int ts_atomic_commit(ts_atomic *a, ts_err *e);
/* Abandon the batch: close and remove the temporaries. */
void ts_atomic_abort(ts_atomic *a);
/* Remove the batch's temporaries and nothing else (no close, no free):
 * async-signal-safe (unlink only), for a signal handler that ends the
 * process at once. The batch's count of temporaries is raised only once a
 * temporary's path is stored and lowered before a path is freed, so a
 * handler that interrupts the batch's own calls reads only live paths. */
void ts_atomic_unlink_temporaries(const ts_atomic *a);

#endif
