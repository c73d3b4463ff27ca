/* LD_PRELOADed into a tssim by test_cli.c's
 * cli_second_signal_removes_every_commands_temporaries: the first rename of a
 * temporary (NAME.tmp.PID, io/atomic.c's commit), while it is still there,
 * raises SIGINT twice, as `timeout -s INT` then Ctrl-C would: the command's
 * handler records the first and, at the second, removes the temporaries of
 * the batch the command gave it (ts_cli_interrupt_files) and dies by SIGINT.
 * A temporary left beside the output is a batch the command did not give. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

int rename(const char *from, const char *to)
{
  if (strstr(from, ".tmp.")) {
    raise(SIGINT);
    raise(SIGINT);
  }
  int (*next)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  return next ? next(from, to) : -1;
}
