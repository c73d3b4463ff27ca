#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "io/model_json.h"

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
  memset(out, 0, sizeof *out);
  if (ts_scenario_load(path, &out->sc, &e))
    return ts_cli_usage_error("%s", e.msg);
  int total = out->sc.nsets + nsets;
  const char **all = calloc((size_t)total + 1, sizeof *all);
  if (!all) {
    ts_scenario_finish(&out->sc);
    return ts_cli_usage_error("out of memory");
  }
  for (int i = 0; i < out->sc.nsets; i++)
    all[i] = out->sc.sets[i];
  for (int i = 0; i < nsets; i++)
    all[out->sc.nsets + i] = sets[i];
  int bad = ts_model_load(out->sc.model_path, all, total, &out->model, &out->resolved, &e);
  free(all);
  if (bad) {
    ts_scenario_finish(&out->sc);
    return ts_cli_usage_error("%s", e.msg);
  }
  if (out->sc.baseline_path) {
    if (ts_baseline_load(out->sc.baseline_path, &out->baseline, &e)) {
      ts_cli_unload(out);
      return ts_cli_usage_error("%s", e.msg);
    }
    out->has_baseline = 1;
  }
  return 0;
}

void ts_cli_unload(ts_loaded *l)
{
  ts_scenario_finish(&l->sc);
  ts_model_finish(&l->model);
  cJSON_Delete(l->resolved);
  ts_baseline_finish(&l->baseline);
  memset(l, 0, sizeof *l);
}
