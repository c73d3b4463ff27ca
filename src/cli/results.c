/* The output a command writes: checking a results folder can be made before
 * any time is spent simulating, noticing a previous run in it, and checking
 * that standard output took everything. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"

int ts_cli_outdir_check(const char *dir)
{
  char buf[1024];
  struct stat st;
  size_t len = strlen(dir);
  if (len == 0 || len >= sizeof buf) {
    fprintf(stderr, "tssim: %s: cannot create the results folder: %s\n", dir,
            len ? "path too long" : "empty path");
    return TS_EXIT_IO;
  }
  memcpy(buf, dir, len + 1);
  /* every part of the path that exists must be a folder */
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
      if (c == '\0' || strspn(p + 1, "/") == strlen(p + 1))
        fprintf(stderr, "tssim: %s: cannot create the results folder: a file of that name exists\n", dir);
      else
        fprintf(stderr, "tssim: %s: cannot create the results folder: %s is a file, not a folder\n", dir, buf);
      return TS_EXIT_IO;
    }
    if (stat(buf, &st) != 0) { /* the first part missing: its parent must take a new folder */
      char *slash = strrchr(buf, '/');
      const char *parent = slash == buf ? "/" : slash ? (*slash = '\0', buf) : ".";
      if (access(parent, W_OK | X_OK) != 0) {
        fprintf(stderr, "tssim: %s: cannot create the results folder in %s: %s\n", dir, parent, strerror(errno));
        return TS_EXIT_IO;
      }
      return 0;
    }
    *p = c;
    if (c == '\0')
      break;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "tssim: %s: cannot write into the results folder: %s\n", dir, strerror(errno));
    return TS_EXIT_IO;
  }
  return 0;
}

int ts_cli_outdir_previous(const char *dir, char *when, size_t cap)
{
  static const char *const names[] = {"summary.json", "summary.csv", "samples.csv"};
  time_t newest = 0;
  int found = 0;
  for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
      newest = !found || st.st_mtime > newest ? st.st_mtime : newest;
      found = 1;
    }
  }
  if (!found)
    return 0;
  struct tm tm;
  if (!localtime_r(&newest, &tm) || strftime(when, cap, "%Y-%m-%d %H:%M:%S", &tm) == 0)
    snprintf(when, cap, "unknown time");
  return 1;
}

int ts_cli_stdout_status(int rc)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "tssim: cannot write to standard output: %s\n", errno ? strerror(errno) : "write error");
    return rc == 0 ? TS_EXIT_IO : rc;
  }
  return rc;
}
