#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"

int ts_cli_usage_error(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fputs("tssim: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
  return 2;
}

int ts_cli_bad_option(const char *cmd, char **argv)
{
  return ts_cli_usage_error("%s: unknown option, or an option without its value: %s (see tssim %s --help)", cmd,
                            argv[optind - 1], cmd);
}

int ts_cli_load(const char *path, const char *const *sets, int nsets, ts_loaded *out)
{
  ts_err e;
  ts_load_src src = {.path = path};
  if (ts_load(&src, sets, nsets, out, &e)) {
    ts_cli_usage_error("%s", e.msg);
    return e.nomem ? TS_EXIT_FAILED : TS_EXIT_USAGE; /* memory ran out: the input was not at fault */
  }
  char note[1024];
  if (ts_model_policy_note(&out->model, note, sizeof note))
    fprintf(stderr, "tssim: note: %s: %s\n", out->sc.model_path, note);
  return 0;
}

void ts_cli_unload(ts_loaded *l)
{
  ts_load_finish(l);
}
