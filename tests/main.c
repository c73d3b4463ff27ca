/* Runner shared by every suite: built once per suite with -DSUITE_FN=<name>_suite.
 *
 * The suite runs with TMPDIR set to a fresh folder of the runner's
 * ($TMPDIR/tssim-suite-XXXXXX, /tmp by default). Its tests must leave it
 * empty: anything left there is named and fails the run. The runner then
 * removes the folder, so a test that failed half-way (its process ended
 * before its own clean-up) leaves nothing behind either; so does a runner
 * stopped by SIGTERM (meson test's timeout), SIGINT or SIGHUP, or killed:
 * after any end of the runner but its normal one, a janitor process waits
 * for the suite's processes to go and removes the folder (start_janitor). */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

Suite *SUITE_FN(void);

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  (void)st;
  (void)flag;
  (void)ftw;
  return remove(path);
}

/* Name on stderr each entry of dir; how many there are (-1: unreadable). */
static int count_left(const char *dir)
{
  DIR *d = opendir(dir);
  if (!d)
    return -1;
  int n = 0;
  const struct dirent *ent;
  while ((ent = readdir(d)) != NULL) {
    if (strcmp(ent->d_name, ".") == 0 || strcmp(ent->d_name, "..") == 0)
      continue;
    fprintf(stderr, "the suite left %s/%s behind (a test must remove its temporary files)\n", dir, ent->d_name);
    n++;
  }
  closedir(d);
  return n;
}

static char suite_dir[4096];
static pid_t runner_pid;

/* SIGTERM, SIGINT, SIGHUP: the runner removes its folder (rm -rf in a child:
 * fork, exec and waitpid are async-signal-safe, nftw is not), then dies of
 * the signal. A test's forked process (CK_FORK) only dies of it. */
static void on_stop(int sig)
{
  if (getpid() == runner_pid) {
    pid_t pid = fork();
    if (pid == 0) {
      execl("/bin/rm", "rm", "-rf", suite_dir, (char *)NULL);
      _exit(127);
    }
    if (pid > 0)
      waitpid(pid, NULL, 0);
  }
  signal(sig, SIG_DFL);
  raise(sig);
}

/* The folders meson test's cancellations left (a timeout, a SIGTERM to
 * meson test: SIGTERM to the test's process group, SIGKILL half a second
 * later): a runner under valgrind was killed before its rm -rf ran; with
 * CK_FORK a test's process (in a process group of its own, which meson's
 * signals do not reach) went on writing in the folder the runner's rm -rf
 * was removing; and a tssim waiting for a results folder's lock (hard_faults)
 * made the removed folder again. The janitor, started before the folder is
 * made, a process of its own group, reads the pipe: the folder's path (with
 * its '\0', once made), then the runner's normal end ("E": it removed the
 * folder; the janitor exits), or the end of the file when every process
 * holding the write end is gone (the runner and its forked test processes;
 * not the programs they exec, the end is close-on-exec). Then it waits for
 * the runner's process group to go (what a test started in it), for at
 * most 30 s, and removes the folder. Its output goes to /dev/null. Returns
 * the write end, or -1 (no janitor). */
static int start_janitor(void)
{
  int fd[2];
  if (pipe(fd) != 0)
    return -1;
  pid_t group = getpgrp(), pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    close(fd[1]);
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3 && null >= 0; i++)
      dup2(null, i);
    char msg[4097];
    size_t len = 0;
    for (ssize_t r = 1; r != 0 && len < sizeof msg;) {
      r = read(fd[0], msg + len, sizeof msg - len);
      if (r < 0 && errno != EINTR)
        _exit(1);
      len += r > 0 ? (size_t)r : 0;
    }
    const char *end = memchr(msg, '\0', len);
    if (!end || end + 1 < msg + len)
      _exit(0); /* no folder yet, or the runner's normal end ("E" after it) */
    struct timespec tick = {0, 10000000};
    for (int i = 0; i < 3000 && kill(-group, 0) == 0; i++)
      nanosleep(&tick, NULL);
    execl("/bin/rm", "rm", "-rf", msg, (char *)NULL);
    _exit(127);
  }
  close(fd[0]);
  if (pid < 0) {
    close(fd[1]);
    return -1;
  }
  fcntl(fd[1], F_SETFD, FD_CLOEXEC);
  return fd[1];
}

int main(void)
{
  int janitor = start_janitor();
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  if (snprintf(dir, sizeof dir, "%s/tssim-suite-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof dir ||
      !mkdtemp(dir) || setenv("TMPDIR", dir, 1) != 0) {
    perror("tssim test runner: temporary folder");
    return EXIT_FAILURE;
  }
  snprintf(suite_dir, sizeof suite_dir, "%s", dir);
  runner_pid = getpid();
  if (janitor >= 0 && write(janitor, dir, strlen(dir) + 1) != (ssize_t)strlen(dir) + 1)
    perror("tssim test runner: janitor");
  struct sigaction sa = {.sa_handler = on_stop};
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  SRunner *sr = srunner_create(SUITE_FN());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  int left = count_left(dir);
  if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) != 0)
    perror(dir);
  if (janitor >= 0 && write(janitor, "E", 1) != 1)
    perror("tssim test runner: janitor");
  return failed == 0 && left == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
