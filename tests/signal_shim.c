/* LD_PRELOADed into a tssim by test_cli_signals.c: the first rename of a temporary
 * (NAME.tmp.PID, io/atomic.c's commit), while it is still there, raises
 * SIGINT twice, as `timeout -s INT` then Ctrl-C would: the command's
 * handler records the first and, at the second, removes the temporaries of
 * the batch the command gave it (ts_cli_interrupt_files) and dies by SIGINT.
 * A temporary left beside the output is a batch the command did not give
 * (cli_second_signal_removes_every_commands_temporaries).
 * With TSSIM_SIGNAL_SHIM_ONCE set, it raises SIGINT once: a signal that
 * comes while the results are committed, so after they are written (the
 * commit goes on; cli_signal_after_the_results_is_said_alike). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rename(const char *from, const char *to)
{
  static int raised;
  if (strstr(from, ".tmp.") && !raised) {
    raised = 1;
    raise(SIGINT);
    if (!getenv("TSSIM_SIGNAL_SHIM_ONCE"))
      raise(SIGINT);
  }
  int (*next)(const char *, const char *) = (int (*)(const char *, const char *))dlsym(RTLD_NEXT, "rename");
  return next ? next(from, to) : -1;
}
