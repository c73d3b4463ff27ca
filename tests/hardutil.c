/* Helpers of the hard suites (hardutil.h). */
#include "hardutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

char tmp[PATH_MAX];

void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "hard");
}

void remove_tmp(void)
{
  tu_rmtree(tmp);
}

const char *at(const char *name)
{
  static char path[PATH_MAX + 64];
  snprintf(path, sizeof path, "%s/%s", tmp, name);
  return path;
}

int run_set(const char *out, const char *extra, char **err)
{
  size_t cap = strlen(extra) + 2 * PATH_MAX + 64;
  char *args = malloc(cap);
  ck_assert_ptr_nonnull(args);
  snprintf(args, cap, "run '%s/s.json' -q --no-plots -o '%s/%s' %s", tmp, tmp, out, extra);
  int rc = tu_tssim(args, NULL, err);
  free(args);
  return rc;
}

const char *past_replacing(const char *err)
{
  return strncmp(err, "tssim: replacing ", 17) == 0 && strchr(err, '\n') ? strchr(err, '\n') + 1 : err;
}

int drop_identical(char *err)
{
  char *hit = strstr(err, IDENTICAL_NOTE);
  if (!hit) /* after sensitivity, optimize and calibrate */
    hit = strstr(err, "tssim: note: every setting tried gave identical replications (");
  char *end = hit ? strchr(hit, '\n') : NULL;
  if (!end)
    return 0;
  memmove(hit, end + 1, strlen(end + 1) + 1);
  return 1;
}

int drop_fixed_placement(char *err)
{
  char *hit = strstr(err, ": dispatch hash places each actor by a fixed id ("), *end = hit ? strchr(hit, '\n') : NULL;
  if (!end)
    return 0;
  while (hit > err && hit[-1] != '\n') /* back to the start of its line */
    hit--;
  memmove(hit, end + 1, strlen(end + 1) + 1);
  return 1;
}
