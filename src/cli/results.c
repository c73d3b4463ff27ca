/* The output a command writes: checking a results folder can be made before
 * any time is spent simulating, locking it while a run writes into it and
 * cleaning what a killed run left there, noticing a previous run in it and
 * replacing its files whichever command wrote them, and checking that
 * standard output took everything. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "io/atomic.h"
#include "io/err.h"
#include "viz/plot.h"

/* The pid a temporary name ends with (NAME.tmp.PID, NAME.old.PID,
 * .NAME.log.PID: what io/atomic.c and viz/plot.c write), its kind ('t',
 * 'o', 'l') and the length of NAME's part before the suffix; 0 if name is
 * not one. */
static long temporary_pid(const char *name, char *kind, size_t *base)
{
  static const char *const tags[] = {".tmp.", ".old.", ".log."};
  for (int k = 0; k < 3; k++) {
    const char *t = strstr(name, tags[k]), *next;
    while (t && (next = strstr(t + 1, tags[k])))
      t = next; /* the last one */
    if (!t || (k == 2 && name[0] != '.'))
      continue;
    const char *digits = t + 5;
    if (!*digits || strspn(digits, "0123456789") != strlen(digits) || strlen(digits) > 9)
      continue;
    *kind = tags[k][1];
    *base = (size_t)(t - name);
    return atol(digits);
  }
  return 0;
}

/* The data files the results commands write into a results folder: run and
 * merge, run --shard, sensitivity, optimize (their plots: plots[]). */
static const char *const data_files[] = {"summary.json", "summary.csv", "samples.csv", "partial.json",
                                         "sensitivity.csv", "curve.csv", "tried.csv", "best.json", "pareto.csv"};
/* The plots of sensitivity and optimize (run's: ts_plot_mark_stale). */
static const char *const plots[] = {"sensitivity", "pareto"};

/* Whether name is tssim trace's default file name, trace-n<N>-w<W>.json
 * (each '#' of the pattern: one or more digits). */
static int default_trace(const char *name)
{
  for (const char *p = "trace-n#-w#.json"; *p; p++) {
    size_t digits = strspn(name, "0123456789");
    if (*p == '#' ? digits == 0 : *name != *p)
      return 0;
    name += *p == '#' ? digits : 1;
  }
  return *name == '\0';
}

/* Whether name is a file a results command writes into its folder: a data
 * file, a plot or a temporary (temporary_pid); or tssim trace's default
 * file there. */
static int results_file(const char *name)
{
  char kind;
  size_t base;
  if (default_trace(name))
    return 1;
  for (size_t i = 0; i < sizeof data_files / sizeof *data_files; i++)
    if (strcmp(name, data_files[i]) == 0)
      return 1;
  for (size_t i = 0; i < sizeof plots / sizeof *plots; i++)
    if (ts_plot_is_file(name, plots[i]))
      return 1;
  return ts_plot_is_file(name, NULL) || temporary_pid(name, &kind, &base) > 0;
}

/* Whether name is a probe check_parts makes and removes in a parent folder
 * (.tssim-probe.PID): another command's, or one a SIGKILL left; neither a
 * result nor a stranger's file. */
static int probe_name(const char *name)
{
  static const char prefix[] = ".tssim-probe.";
  size_t n = sizeof prefix - 1;
  return strncmp(name, prefix, n) == 0 && name[n] != '\0' && strspn(name + n, "0123456789") == strlen(name + n);
}

/* Whether folder dir holds entries but none a results command writes: then
 * the first of them goes into name (cap bytes). */
static int foreign_folder(const char *dir, char *name, size_t cap)
{
  DIR *d = opendir(dir);
  if (!d)
    return 0; /* (unreadable: the access check below says so) */
  int ours = 0, other = 0;
  for (struct dirent *de; !ours && (de = readdir(d));) {
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0 || probe_name(de->d_name))
      continue;
    if (results_file(de->d_name))
      ours = 1;
    else if (!other++)
      snprintf(name, cap, "%s", de->d_name);
  }
  closedir(d);
  return !ours && other;
}

/* Every part of folder path dir that exists is a folder, and when a part is
 * missing, the folder it goes in can take a new one (named "the NOUN in
 * PARENT"). opt names the path as the user gave it ("-o DIR"), hint follows
 * a mistake of theirs; a file at dir itself is "OPT: is a file" when whole
 * (dir is what opt names), else the part is named. Returns 0 with *exists
 * (whether dir is a folder), or the exit status after one line. */
static int check_parts(const char *dir, const char *opt, const char *hint, int whole, const char *noun, int *exists)
{
  char buf[1024];
  struct stat st;
  size_t len = strlen(dir);
  *exists = 0;
  if (len == 0 || len >= sizeof buf) {
    fprintf(stderr, "tssim: %s: cannot create the %s: %s\n", dir, noun, len ? "path too long" : "empty path");
    return TS_EXIT_IO;
  }
  memcpy(buf, dir, len + 1);
  for (char *p = buf + 1;; p++) {
    if (*p != '/' && *p != '\0')
      continue;
    char c = *p;
    *p = '\0';
    if (stat(buf, &st) == 0 && !S_ISDIR(st.st_mode)) {
      if (whole && (c == '\0' || strspn(p + 1, "/") == strlen(p + 1)))
        fprintf(stderr, "tssim: %s: is a file, expected a folder%s\n", opt, hint);
      else
        fprintf(stderr, "tssim: %s: %s is a file, expected a folder%s\n", opt, buf, hint);
      return TS_EXIT_USAGE;
    }
    if (stat(buf, &st) != 0 && lstat(buf, &st) == 0) { /* a symbolic link to nothing */
      fprintf(stderr, "tssim: %s: %s is a symbolic link to nothing, expected a folder%s\n", opt, buf, hint);
      return TS_EXIT_USAGE;
    }
    if (stat(buf, &st) != 0) { /* the first part missing: its parent must take a new folder */
      int err = errno, bad_name = err == ENAMETOOLONG || err == ELOOP;
      char *slash = strrchr(buf, '/');
      const char *parent = slash == buf ? "/" : slash ? (*slash = '\0', buf) : ".";
      if (!bad_name && access(parent, W_OK | X_OK) != 0) {
        fprintf(stderr, "tssim: %s: cannot create the %s in %s: %s\n", dir, noun, parent, strerror(errno));
        return TS_EXIT_IO;
      }
      /* a name no folder can have, or a folder that lets us write but holds no new folder (/proc): try one of
       * our own name there, and remove it (not the name asked for: another run may be making that one) */
      char probe[sizeof buf + 64];
      snprintf(probe, sizeof probe, "%s/.tssim-probe.%ld", parent, (long)getpid());
      if (!bad_name) { /* (signals held meanwhile: a Ctrl-C between the two would leave the probe) */
        sigset_t stop, was;
        sigemptyset(&stop);
        sigaddset(&stop, SIGINT);
        sigaddset(&stop, SIGTERM);
        sigaddset(&stop, SIGHUP);
        sigprocmask(SIG_BLOCK, &stop, &was);
        err = mkdir(probe, 0700) == 0 ? (rmdir(probe), 0) : errno;
        sigprocmask(SIG_SETMASK, &was, NULL);
        if (err == 0 || err == EEXIST)
          return 0;
      }
      int env = err == EACCES || err == EROFS || err == ENOSPC || err == EDQUOT || err == EIO || err == EMLINK ||
                err == ENOMEM;
      if (env) /* the machine's state, not the path */
        fprintf(stderr, "tssim: %s: cannot create the %s in %s: %s\n", dir, noun, parent, strerror(err));
      else
        fprintf(stderr, "tssim: %s: cannot create the %s in %s: %s (expected a path where a folder can be made)%s\n",
                opt, noun, parent, strerror(err), hint);
      return env ? TS_EXIT_IO : TS_EXIT_USAGE;
    }
    *p = c;
    if (c == '\0')
      break;
  }
  *exists = 1;
  return 0;
}

int ts_cli_outdir_check(const char *dir, int given)
{
  char opt[1100];
  struct stat st;
  /* a user's mistake is named by the option that made it (else the default folder, and the option to give) */
  snprintf(opt, sizeof opt, "%s%s", given ? "-o " : "", dir);
  const char *hint = given ? "" : " (give the results folder with -o DIR)";
  int exists, rc = check_parts(dir, opt, hint, 1, "results folder", &exists);
  if (rc || !exists)
    return rc;
  /* an existing folder: new, empty, or an earlier run's, never one whose files would be mixed with
   * (or, named like a result, replaced by) a run's */
  struct stat root;
  if (stat(dir, &st) == 0 && stat("/", &root) == 0 && st.st_dev == root.st_dev && st.st_ino == root.st_ino) {
    fprintf(stderr, "tssim: %s: is the root folder: expected a new or empty folder, or an earlier run's results "
            "folder%s\n", opt, hint);
    return TS_EXIT_USAGE;
  }
  char name[256];
  if (foreign_folder(dir, name, sizeof name)) {
    fprintf(stderr, "tssim: %s: holds files no tssim run wrote (e.g. %s): expected a new or empty folder, or an "
            "earlier run's results folder%s\n", opt, name, hint);
    return TS_EXIT_USAGE;
  }
  if (access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "tssim: %s: cannot write into the results folder: %s\n", dir, strerror(errno));
    return TS_EXIT_IO;
  }
  return 0;
}

int ts_cli_outfile_check(const char *path, const char *option, const char *what)
{
  char opt[1100], dir[1024];
  struct stat st;
  snprintf(opt, sizeof opt, "%s%s%s", option ? option : "", option ? " " : "", path);
  const char *hint = option ? "" : " (give the file with -o FILE)";
  const char *name = ts_atomic_split(path, dir, sizeof dir);
  if (!name) {
    fprintf(stderr, "tssim: %s: cannot write: path too long\n", path);
    return TS_EXIT_IO;
  }
  if (!*name) {
    fprintf(stderr, "tssim: %s: expected a file (%s), not a folder%s\n", opt, what, hint);
    return TS_EXIT_USAGE;
  }
  if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
    fprintf(stderr, "tssim: %s: is %s, expected a file (%s)%s\n", opt,
            S_ISDIR(st.st_mode) ? "a folder" : "not a regular file", what, hint);
    return TS_EXIT_USAGE;
  }
  int exists, rc = check_parts(dir, opt, hint, 0, "folder", &exists);
  if (rc == 0 && exists && access(dir, W_OK | X_OK) != 0) {
    fprintf(stderr, "tssim: %s: cannot write into %s: %s\n", path, dir, strerror(errno));
    return TS_EXIT_IO;
  }
  return rc;
}

/* Remove what runs that died left in dir (see ts_cli_outdir_lock). */
static void clean_leftovers(const char *dir, int quiet)
{
  DIR *d = opendir(dir);
  if (!d)
    return;
  char names[200] = "";
  int n = 0;
  for (struct dirent *de; (de = readdir(d));) {
    char kind;
    size_t base;
    long pid = temporary_pid(de->d_name, &kind, &base);
    if (pid <= 0 || pid == (long)getpid() || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
      continue; /* not a temporary, or its process lives (another program's, not a locked run's) */
    char path[2048], orig[2048];
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    snprintf(orig, sizeof orig, "%s/%.*s", dir, (int)base, de->d_name);
    struct stat st;
    if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode))
      continue;
    /* an old file a commit moved aside and never put back or removed: back, unless a newer one is there */
    int done = kind == 'o' && access(orig, F_OK) != 0 ? rename(path, orig) : remove(path);
    if (done != 0)
      continue;
    size_t len = strlen(names);
    if (n++ < 3)
      snprintf(names + len, sizeof names - len, "%s%.60s", n > 1 ? ", " : "", de->d_name);
  }
  closedir(d);
  if (n && !quiet)
    fprintf(stderr, "tssim: %s: removed %d temporary file(s) a run that did not finish left there (%s%s)\n", dir, n,
            names, n > 3 ? ", ..." : "");
}

int ts_cli_outdir_lock(const char *dir, ts_outdir *m, int quiet, int *fd)
{
  *fd = -1;
  for (int tries = 0;; tries++) {
    ts_err e;
    if (ts_cli_outdir_make(dir, m, &e)) {
      fprintf(stderr, "tssim: %s\n", e.msg);
      return TS_EXIT_IO;
    }
    int f = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (f < 0) {
      if (errno == ENOENT && tries < 100)
        continue; /* removed since it was made: again */
      fprintf(stderr, "tssim: %s: cannot open the results folder: %s\n", dir, strerror(errno));
      return TS_EXIT_IO;
    }
    if (flock(f, LOCK_EX | LOCK_NB) != 0) {
      if (errno != EWOULDBLOCK) { /* no locks on this file system */
        close(f);
        clean_leftovers(dir, quiet);
        return 0;
      }
      fprintf(stderr, "tssim: %s: another tssim run is writing into this folder; waiting for it to finish\n", dir);
      while (flock(f, LOCK_EX) != 0) {
        if (errno == EINTR && !ts_cli_interrupted())
          continue;
        close(f);
        if (errno != EINTR)
          return 0;
        fprintf(stderr, "tssim: interrupted while waiting for %s; nothing was run\n", dir);
        return ts_cli_interrupt_status();
      }
    }
    struct stat now, held;
    if (stat(dir, &now) == 0 && fstat(f, &held) == 0 && now.st_dev == held.st_dev && now.st_ino == held.st_ino) {
      *fd = f;
      clean_leftovers(dir, quiet);
      return 0;
    }
    close(f); /* the folder went (its run failed) or was replaced while we waited: make and lock it again */
  }
}

void ts_cli_outdir_unlock(int fd)
{
  if (fd >= 0)
    close(fd);
}


int ts_cli_outdir_previous(const char *dir, char *when, size_t cap)
{
  time_t newest = 0;
  int found = 0;
  for (size_t i = 0; i < sizeof data_files / sizeof *data_files; i++) {
    char path[1200];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, data_files[i]);
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

char *ts_cli_folder(char *dir)
{
  for (size_t len = strlen(dir); len > 1 && dir[len - 1] == '/'; len--)
    dir[len - 1] = '\0';
  return dir;
}

void ts_cli_outdir_say_replacing(const char *dir)
{
  char when[64];
  if (ts_cli_outdir_previous(dir, when, sizeof when))
    fprintf(stderr, "tssim: replacing %s%s (previous run: %s)\n", dir, dir[strlen(dir) - 1] == '/' ? "" : "/", when);
}

/* Whether batch a writes or removes a file named name (in any folder). */
static int in_batch(const ts_atomic *a, const char *name)
{
  for (int i = 0; i < a->n + a->ngone; i++) {
    const char *path = i < a->n ? a->final[i] : a->gone[i - a->n], *slash = strrchr(path, '/');
    if (strcmp(slash ? slash + 1 : path, name) == 0)
      return 1;
  }
  return 0;
}

int ts_cli_outdir_replace(ts_atomic *a, const char *dir, ts_err *e)
{
  if (ts_plot_mark_stale(a, dir, e))
    return -1;
  for (size_t i = 0; i < sizeof plots / sizeof *plots; i++)
    if (ts_plot_mark_stale_one(a, dir, plots[i], e))
      return -1;
  for (size_t i = 0; i < sizeof data_files / sizeof *data_files; i++)
    if (!in_batch(a, data_files[i]) && ts_atomic_remove(a, dir, data_files[i], e))
      return -1;
  return 0;
}

int ts_cli_stdout_status(int rc)
{
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "tssim: cannot write to standard output: %s\n", errno ? strerror(errno) : "write error");
    return rc == 0 ? TS_EXIT_IO : rc;
  }
  return rc;
}
