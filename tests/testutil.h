/* Helpers shared by the suites: the source tree, temporary folders, whole
 * files, the built tssim binary, models from JSON text, world specs and a
 * fixed pseudo-random sequence.
 * Each fails the running test (a Check assertion) when it cannot do its
 * job, so callers need not check. */
#ifndef TS_TESTUTIL_H
#define TS_TESTUTIL_H
#include <check.h>
#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "model/world.h"

/* $TSSIM_SOURCE_ROOT, which meson test sets. */
const char *tu_source_root(void);
/* rel under the source root, in a new string (caller frees). */
char *tu_source_path(const char *rel);

/* Make a fresh folder $TMPDIR/tssim-<tag>-XXXXXX (TMPDIR defaults to /tmp;
 * under meson test it is the runner's own folder, which the suite must leave
 * empty: main.c) and write its path into dir, of size cap. */
void tu_mkdtemp(char *dir, size_t cap, const char *tag);
/* Remove folder dir and everything in it. */
void tu_rmtree(const char *dir);
/* dir/rel, in one of a few rotating buffers (valid until 8 more calls). */
const char *tu_at(const char *dir, const char *rel);
/* Write text to dir/name (replacing it) and return that path (tu_at's). */
const char *tu_write_at(const char *dir, const char *name, const char *text);
/* Whether path names something (a file, a folder, ...). */
int tu_exists(const char *path);
/* Names in folder dir that a batch leaves only while it runs: "*.tmp.*",
 * "*.old.*", ".*.log.*" (fails the test when dir cannot be read). */
int tu_leftovers(const char *dir);
/* Files named *.png or *.svg in folder dir. */
int tu_plot_files(const char *dir);

/* The bytes of file path, NUL-terminated (caller frees); their count into
 * *len when len is not NULL. */
char *tu_read_file(const char *path, size_t *len);
/* Write text to file path, replacing it. */
void tu_write_file(const char *path, const char *text);

/* Run `tssim ARGS` ($TSSIM_BINARY; ARGS as the shell splits them) from the
 * source root. What it writes to stdout goes into *out and what it writes to
 * stderr into *err, each NUL-terminated (caller frees); err NULL folds
 * stderr into *out, out NULL drops it. Returns the exit status; a tssim that
 * does not exit (a signal) fails the test. */
int tu_tssim(const char *args, char **out, char **err);
/* tu_tssim of the arguments printf makes of fmt and what follows; out and
 * err as there, except that either may be NULL: what went there is
 * dropped (stdout and stderr are never folded). */
int tu_tssimf(char **out, char **err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* $TSSIM_TEST_WRAPPER (the valgrind setup sets it: every tssim a test runs
 * goes under memcheck too, exiting 99 on an error or leak), or "". Words
 * split at spaces. */
const char *tu_tssim_wrapper(void);

/* Run the shell command printf makes of fmt and its arguments (/bin/sh -c);
 * what it writes to stdout and stderr goes into *out, NUL-terminated
 * (caller frees; out NULL drops it). Returns the exit status; a command that
 * does not exit (a signal) fails the test. */
int tu_sh(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Whether program name is on the PATH. */
int tu_have(const char *name);

/* Convert the model JSON text json (file "test.json" in messages) into m
 * (caller memory; free with ts_model_finish). Malformed JSON or a model the
 * loader refuses fails the test with the loader's message. */
void tu_model(const char *json, ts_model *m);
/* The loader must refuse model JSON text json (file "test.json") with one
 * message naming path and containing what; else the test fails. */
void tu_refuse(const char *json, const char *path, const char *what);
/* tu_model of the text printf makes of fmt and its arguments. */
void tu_modelf(ts_model *m, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* A CSV file (no quoted fields: tssim's summary.csv) cut into a header and
 * rows. */
typedef struct tu_table {
  char *text;          /* the file, cut into fields in place */
  const char **head;   /* [ncols] */
  const char **cell;   /* [nrows * ncols], row by row; "" where a row is short */
  int ncols, nrows;
} tu_table;

/* Read file path into t (free with tu_table_free). */
void tu_table_read(tu_table *t, const char *path);
void tu_table_free(tu_table *t);
/* The index of column name, or -1. */
int tu_table_column(const tu_table *t, const char *name);
/* Row row's field of column name (a missing column fails the test). */
const char *tu_table_cell(const tu_table *t, int row, const char *name);
/* The same as a number (atof). */
double tu_table_num(const tu_table *t, int row, const char *name);

/* Make a fresh folder (tu_mkdtemp with tag) into dir, write model as
 * dir/m.json and scenario (whose "model" names "m.json") as dir/s.json, and
 * run `tssim run dir/s.json -o dir/out -q --no-plots`; out and err as in
 * tu_tssim. Returns the exit status; the caller removes dir. */
int tu_run_files(const char *tag, const char *model, const char *scenario, char *dir, size_t cap, char **out,
                 char **err);

/* Run each scenarios/examples/<name>.json (names NULL-terminated) into a
 * temporary folder; each must exit 0. */
void tu_run_examples(const char *const *names);
/* Run scenario (a path from the source root) with --jobs 1 and with --jobs 2;
 * their summary.csv, samples.csv and summary.json must be byte-identical. */
void tu_same_at_jobs(const char *scenario);

/* The spec of a whole run of (n, workers) under stream seed: no horizon,
 * the window the whole run. */
ts_world_spec tu_world_spec(int n, int workers, uint64_t seed);

/* The next number of a fixed pseudo-random sequence (a 64-bit LCG, Knuth's
 * MMIX constants) whose state *s it advances: the new state's top 53 bits. */
uint64_t tu_lcg(uint64_t *s);

/* Add a TCase called name to s: the NULL-terminated tests, the checked
 * fixture setup/teardown (NULL: none) and a timeout in seconds (0:
 * TU_TIMEOUT_DEFAULT, not Check's 4 s: a test that runs tssim under ASan on a
 * loaded machine took longer than 4 s and was killed, leaving its folder).
 * Returns it. */
#define TU_TIMEOUT_DEFAULT 60
TCase *tu_tcase(Suite *s, const char *name, const TTest *const *tests, SFun setup, SFun teardown, double timeout);

#endif
