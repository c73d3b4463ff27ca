/* tssim explain: placeholder until implemented. */
#include <stdio.h>

#include "cli/cli.h"

int ts_cmd_explain(int argc, char **argv)
{
  (void)argc;
  (void)argv;
  return ts_cli_usage_error("explain: not implemented yet");
}
