/* Helpers of the hard suites (hard_input, hard_runs, hard_faults): a
 * temporary folder per test case, tssim run into it, and the notes a test
 * of another note drops from stderr. */
#ifndef TS_TEST_HARDUTIL_H
#define TS_TEST_HARDUTIL_H
#include <limits.h>

/* The test case's folder (make_tmp, remove_tmp: its setup and teardown). */
extern char tmp[PATH_MAX];
void make_tmp(void);
void remove_tmp(void);
/* tmp/name, in a static buffer (one at a time). */
const char *at(const char *name);
/* Run tssim run tmp/s.json into tmp/OUT with the extra arguments; stderr
 * into *err. Returns the exit status. */
int run_set(const char *out, const char *extra, char **err);
/* err past its first line when that line says a previous run is replaced
 * (tssim run says so even with -q). */
const char *past_replacing(const char *err);

/* The note of a sweep whose every point gave identical replications (a
 * model without random draws), up to its count of points. */
#define IDENTICAL_NOTE "tssim: note: every point's replications gave identical values ("
#define IDENTICAL_REST " point(s) run with 2 or more replications; the first: "

/* Remove from err the identical-replications note (its line), and return
 * whether it was there: what a test of another note on a model without
 * random draws expects besides its own. */
int drop_identical(char *err);
/* Remove from err the note that hash dispatch of fixed ids places every
 * replication alike (its line), and return whether it was there. */
int drop_fixed_placement(char *err);

#endif
