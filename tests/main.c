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
 * made the removed folder again. The janitor, a process of its own group,
 * makes the folder itself from template dir (mkdtemp), so no folder exists
 * that it does not know of, and sends its path back (with its '\0'); then it
 * reads the runner's pipe: the runner's normal end ("E": it removed the
 * folder; the janitor exits), or the end of the file when every process
 * holding the write end is gone (the runner and its forked test processes;
 * not the programs they exec, the end is close-on-exec). Then it waits for
 * the runner's process group to go (what a test started in it), for at most
 * 30 s, and removes the folder. Its output goes to /dev/null. Returns the
 * write end with the folder's path in dir, or -1 (no janitor; dir as given). */
static int start_janitor(char *dir, size_t cap)
{
  int to[2], back[2];
  if (pipe(to) != 0)
    return -1;
  if (pipe(back) != 0) {
    close(to[0]);
    close(to[1]);
    return -1;
  }
  pid_t group = getpgrp(), pid = fork();
  if (pid == 0) {
    setpgid(0, 0);
    close(to[1]);
    close(back[0]);
    int null = open("/dev/null", O_RDWR);
    for (int i = 0; i < 3 && null >= 0; i++)
      dup2(null, i);
    signal(SIGPIPE, SIG_IGN); /* a runner gone before it read the path: EPIPE, not death */
    if (!mkdtemp(dir))
      _exit(1);
    size_t len = strlen(dir) + 1;
    if (write(back[1], dir, len) != (ssize_t)len) { /* the runner is gone: nobody will use it */
      rmdir(dir);
      _exit(1);
    }
    close(back[1]);
    char c = 0;
    ssize_t r;
    while ((r = read(to[0], &c, 1)) < 0 && errno == EINTR)
      ;
    if (r == 1 && c == 'E')
      _exit(0); /* the runner's normal end: it removed the folder */
    struct timespec tick = {0, 10000000};
    for (int i = 0; i < 3000 && kill(-group, 0) == 0; i++)
      nanosleep(&tick, NULL);
    execl("/bin/rm", "rm", "-rf", dir, (char *)NULL);
    _exit(127);
  }
  close(to[0]);
  close(back[1]);
  char got[4096];
  size_t len = 0;
  for (ssize_t r = 1; r != 0 && len < sizeof got;) {
    r = read(back[0], got + len, sizeof got - len);
    if (r < 0 && errno != EINTR)
      break;
    len += r > 0 ? (size_t)r : 0;
  }
  close(back[0]);
  if (pid < 0 || len == 0 || len > cap || got[len - 1] != '\0') { /* no janitor, or it could not make the folder */
    close(to[1]);
    return -1;
  }
  memcpy(dir, got, len);
  fcntl(to[1], F_SETFD, FD_CLOEXEC);
  return to[1];
}

int main(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  if (snprintf(dir, sizeof dir, "%s/tssim-suite-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof dir) {
    fprintf(stderr, "tssim test runner: temporary folder: TMPDIR too long\n");
    return EXIT_FAILURE;
  }
  int janitor = start_janitor(dir, sizeof dir);
  if ((janitor < 0 && !mkdtemp(dir)) || setenv("TMPDIR", dir, 1) != 0) {
    perror("tssim test runner: temporary folder");
    return EXIT_FAILURE;
  }
  snprintf(suite_dir, sizeof suite_dir, "%s", dir);
  runner_pid = getpid();
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
