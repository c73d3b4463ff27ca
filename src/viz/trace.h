/* Chrome trace-event JSON of a recorded timeline, for Perfetto
 * (ui.perfetto.dev) and other Chrome trace viewers.
 *
 * Layout: one process per worker (pid = worker + 1). Its main thread (tid =
 * pid), "event loop (CPU)", has one complete ("X") event per run period of
 * an actor, named "actor A" (args: actor, run, slice when it did timed work),
 * with one nested event per step piece (named by the step label), and "loop
 * overhead" events. Thread nworkers + A + 1 is actor A's track: one event per
 * state (queued, running, callback wait, I/O, lock wait; a wait for a reply
 * split by the calls: TS_TL_CALL_QUEUED, args the server, apart from
 * TS_TL_CALL_LEGS, the service being the handler's own states), a "done" instant,
 * and an async slice ("b"/"e", category "lock") while it holds a lock. Flow
 * arrows ("s"/"f") go from an actor's I/O completion to the run of its
 * callback, and from a lock's releaser to the actor it hands the lock to.
 * Counters ("C") per worker: time-slice queue depth and priority operations
 * in flight. Metadata ("M") names processes and threads. Times are
 * microseconds (ns / 1000). */
#ifndef TS_TRACE_H
#define TS_TRACE_H
#include <cjson/cJSON.h>

#include "io/err.h"
#include "viz/timeline.h"

/* Descriptive fields stored under "otherData". */
typedef struct ts_trace_info {
  const char *scenario;
  const char *model_file;
} ts_trace_info;

/* The trace of tl as a new cJSON tree (caller frees with cJSON_Delete), or
 * NULL when memory runs out. info may be NULL. */
cJSON *ts_trace_build(const ts_timeline *tl, const ts_trace_info *info);
struct ts_atomic;
/* Write the trace of tl to path's temporary in batch a (its folder is
 * created), which the caller initialized (ts_atomic_init), may have given
 * to a signal handler (a second signal removes the temporary:
 * ts_cli_interrupt_files) and commits (ts_atomic_commit: the file appears
 * whole or not at all, with the batch's other files; on failure the caller
 * aborts it). Returns 0, or -1 with e filled. */
int ts_trace_write(struct ts_atomic *a, const ts_timeline *tl, const ts_trace_info *info, const char *path, ts_err *e);
/* The same trace inside a self-contained HTML page that draws it as an SVG
 * timeline in any browser, offline (the trace viewer compiled into tssim),
 * into batch a as ts_trace_write. Returns 0, or -1 with e filled. */
int ts_trace_write_html(struct ts_atomic *a, const ts_timeline *tl, const ts_trace_info *info, const char *path,
                        ts_err *e);

#endif
