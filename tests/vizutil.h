/* Helpers shared by the viz suites (test_viz*.c). */
#ifndef TS_TEST_VIZUTIL_H
#define TS_TEST_VIZUTIL_H
#include <cjson/cJSON.h>

#include "cli/cli.h"
#include "viz/timeline.h"

#define RR "scenarios/rr-wave.json"
#define ZC "scenarios/zero-cache-wave.json"
#define LOCK "tests/data/viz-lock-scenario.json"

/* Load a scenario of the source tree with overrides and record (n, workers)
 * exactly as the commands do (replication 0 of the scenario's seed). */
void vu_record(const char *scenario, const char *const *sets, int nsets, int n, int workers, ts_loaded *L,
               ts_timeline *tl);
/* Free what vu_record filled. */
void vu_release(ts_loaded *L, ts_timeline *tl);
/* The number o[key] (fails the test when it is not one). */
double vu_num(const cJSON *o, const char *key);
/* The string o[key], else "". */
const char *vu_str(const cJSON *o, const char *key);
/* How many times needle occurs in hay (overlapping ones included). */
int vu_count(const char *hay, const char *needle);
/* A closed loop (walkthrough): clients that think (sleep) and compute
 * (cpu) in a repeat, `count` times ("forever": a 400 ms horizon stops them),
 * 4 on one worker. Runs `tssim CMD DIR/s.json`, checks it exits 0 and
 * returns its standard output (caller frees). */
char *vu_closed_loop(const char *count, const char *cmd);

#endif
