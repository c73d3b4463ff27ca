/* Helpers shared by the suites: the source tree, temporary folders, whole
 * files and the built tssim binary. Each fails the running test (a Check
 * assertion) when it cannot do its job, so callers need not check. */
#ifndef TS_TESTUTIL_H
#define TS_TESTUTIL_H
#include <check.h>
#include <stddef.h>

/* $TSSIM_SOURCE_ROOT, which meson test sets. */
const char *tu_source_root(void);
/* rel under the source root, in a new string (caller frees). */
char *tu_source_path(const char *rel);

/* Make a fresh folder $TMPDIR/tssim-<tag>-XXXXXX (TMPDIR defaults to /tmp)
 * and write its path into dir, of size cap. */
void tu_mkdtemp(char *dir, size_t cap, const char *tag);
/* Remove folder dir and everything in it. */
void tu_rmtree(const char *dir);

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
/* $TSSIM_TEST_WRAPPER (the valgrind setup sets it: every tssim a test runs
 * goes under memcheck too, exiting 99 on an error or leak), or "". Words
 * split at spaces. */
const char *tu_tssim_wrapper(void);

/* Add a TCase called name to s: the NULL-terminated tests, the checked
 * fixture setup/teardown (NULL: none) and a timeout in seconds (0: Check's
 * default). Returns it. */
TCase *tu_tcase(Suite *s, const char *name, const TTest *const *tests, SFun setup, SFun teardown, double timeout);

#endif
