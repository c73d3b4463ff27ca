/* SIGINT and SIGTERM during tssim run and tssim calibrate. The handler only
 * records which signal came (a sig_atomic_t: one of the two pieces of static
 * mutable state in tssim, since a handler has no context to write to; the
 * other, for the same reason, is io/jsonfile.c's flag for cJSON's failed
 * allocations); the sweep and
 * the calibration poll it between replications and evaluations, stop, and
 * the command removes its temporaries, says what was not finished and exits
 * 128 + the signal. The handler is reset when it runs, so a second signal
 * ends the process at once. */
#include <signal.h>
#include <string.h>

#include "cli/cli.h"

static volatile sig_atomic_t caught;

static void on_signal(int sig)
{
  caught = sig;
}

void ts_cli_interrupt_catch(void)
{
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sa.sa_flags = SA_RESETHAND;
  sigemptyset(&sa.sa_mask);
  caught = 0;
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGTERM, &sa, NULL);
}

int ts_cli_interrupted(void)
{
  return caught;
}

int ts_cli_should_stop(void *unused)
{
  (void)unused;
  return caught != 0;
}

int ts_cli_interrupt_status(void)
{
  return 128 + caught;
}
