/* Runner shared by every suite: built once per suite with -DSUITE_FN=<name>_suite.
 *
 * The suite runs with TMPDIR set to a fresh folder of the runner's
 * ($TMPDIR/tssim-suite-XXXXXX, /tmp by default). Its tests must leave it
 * empty: anything left there is named and fails the run. The runner then
 * removes the folder, so a test that failed half-way (its process ended
 * before its own clean-up) leaves nothing behind either; so does a runner
 * stopped by SIGTERM (meson test's timeout), SIGINT or SIGHUP. */
#define _XOPEN_SOURCE 700
#include <check.h>
#include <dirent.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
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

int main(void)
{
  const char *tmp = getenv("TMPDIR");
  char dir[4096];
  if (snprintf(dir, sizeof dir, "%s/tssim-suite-XXXXXX", tmp && *tmp ? tmp : "/tmp") >= (int)sizeof dir ||
      !mkdtemp(dir) || setenv("TMPDIR", dir, 1) != 0) {
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
  return failed == 0 && left == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
