/* Subcommands: a const table of {name, summary, main}. A new subcommand is one
 * cmd_<name>.c file plus one line in main.c's table. Each returns the process
 * exit status: 0 ok, 1 runtime failure, 2 bad usage or bad input. */
#ifndef TS_CLI_H
#define TS_CLI_H

typedef struct ts_command {
  const char *name;
  const char *summary;
  int (*main)(int argc, char **argv);
} ts_command;

int ts_cmd_run(int argc, char **argv);
int ts_cmd_calibrate(int argc, char **argv);
int ts_cmd_trace(int argc, char **argv);
int ts_cmd_gantt(int argc, char **argv);
int ts_cmd_explain(int argc, char **argv);

/* Shared by the subcommands that load a scenario and its model. */
#include "io/baseline_json.h"
#include "io/scenario_json.h"
#include "model/model.h"
#include <cjson/cJSON.h>

typedef struct ts_loaded {
  ts_scenario sc;
  ts_model model;
  cJSON *resolved;     /* model tree after overrides */
  ts_baseline baseline;
  int has_baseline;
} ts_loaded;

/* Load scenario file `path`, then its model with the scenario's overrides
 * followed by `sets`, then its baseline. Prints the error and returns 2 on
 * bad input, 0 on success. */
int ts_cli_load(const char *path, const char *const *sets, int nsets, ts_loaded *out);
/* Free what ts_cli_load loaded. */
void ts_cli_unload(ts_loaded *l);
/* Print "tssim: message" to stderr and return 2. */
int ts_cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
