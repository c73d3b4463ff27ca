/* tssim calibrate: placeholder until implemented. */
#include <stdio.h>

#include "cli/cli.h"

int ts_cmd_calibrate(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  return ts_cli_usage_error("calibrate: not implemented yet");
}
