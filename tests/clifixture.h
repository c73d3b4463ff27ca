/* The fixture of the command-line suites (test_cli.c, test_cli_signals.c,
 * each its own executable): the scenarios they run, a fresh folder per test
 * (tmp, made and removed by the test case's fixture) and paths in it. */
#ifndef TS_TEST_CLIFIXTURE_H
#define TS_TEST_CLIFIXTURE_H
#include <limits.h>

#include "testutil.h"

#define RR "scenarios/rr-wave.json"
#define ZC "scenarios/zero-cache-wave.json"
#define RR30 RR " --set params.c_ms=30 --set 'classes[0].program[0].rows=30'"

static char tmp[PATH_MAX]; /* the test's folder */

static void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "cli");
}

static void remove_tmp(void)
{
  tu_rmtree(tmp);
}

/* tmp/rel (testutil's rotating buffers). */
static const char *at(const char *rel)
{
  return tu_at(tmp, rel);
}

/* `tssim` + the formatted arguments; stdout into *out, stderr into *err. */
#define run tu_tssimf

#endif
