/* tssim: the command-line entry point and its subcommand table. */
#include <stdio.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#include "cli/cli.h"
#include "run/suggest.h"

static const ts_command commands[] = {
  {"run", "sweep a scenario: table, summary.csv, samples.csv, summary.json, plots", ts_cmd_run},
  {"calibrate", "fit a model's free parameters to a recorded baseline (GSL)", ts_cmd_calibrate},
  {"trace", "write a Chrome/Perfetto trace of one sweep point", ts_cmd_trace},
  {"gantt", "draw one sweep point's timeline in the terminal", ts_cmd_gantt},
  {"explain", "decompose wall clock and compare with the closed-form law", ts_cmd_explain},
  {"merge", "combine the partial folders of a sharded run (tssim run --shard K/M)", ts_cmd_merge},
  {"sensitivity", "which cost moves a metric most: elasticities, ranked, and speedup curves", ts_cmd_sensitivity},
  {"optimize", "which setting to choose: minimise a metric over fields, under constraints", ts_cmd_optimize},
};

static void usage(FILE *f)
{
  fputs("tssim " TSSIM_VERSION " - discrete-event simulator of cooperative time-slice schedulers\n\n"
        "usage: tssim COMMAND [ARGS]   (tssim COMMAND --help, or tssim help COMMAND, for each)\n\ncommands:\n",
        f);
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    fprintf(f, "  %-12s %s\n", commands[i].name, commands[i].summary);
  fputs("  version      print the version\n\n"
        "environment:\n"
        "  TSSIM_PLOTS_DIR  a folder of gnuplot scripts (wave.gp, cpu.gp, ratio.gp, decomposition.gp,\n"
        "                   queue.gp, sensitivity.gp, pareto.gp) that replace the ones compiled into\n"
        "                   tssim; a script it does not hold is the compiled-in one; copies to start\n"
        "                   from are installed in " TSSIM_DATADIR "/plots\n\n"
        "documentation: the language reference, the outputs and metrics, examples and the design\n"
        "are docs/*.md in the sources, installed (with README.md) in " TSSIM_DOCDIR ".\n\n" TS_CLI_EXIT_HELP_INTERRUPT,
        f);
}

static const char version_help[] = "usage: tssim version\n\nPrint the version of tssim (as tssim --version does).";

/* The command named name in the table, or NULL. */
static const ts_command *command(const char *name)
{
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    if (!strcmp(name, commands[i].name))
      return &commands[i];
  return NULL;
}

/* Say that name is not a command (with the nearest one's name when one is
 * near), one line on stderr. Returns 2. */
static int unknown(const char *name)
{
  const char *names[sizeof commands / sizeof *commands + 3];
  size_t n = 0;
  for (size_t i = 0; i < sizeof commands / sizeof *commands; i++)
    names[n++] = commands[i].name;
  names[n++] = "version";
  names[n++] = "help";
  names[n] = NULL;
  const char *near = ts_suggest(name, names);
  if (near)
    fprintf(stderr, "tssim: unknown command \"%s\"; did you mean \"%s\"? (tssim --help lists the commands)\n",
            name, near);
  else
    fprintf(stderr, "tssim: unknown command \"%s\" (tssim --help lists the commands)\n", name);
  return TS_EXIT_USAGE;
}

/* tssim help [CMD]: the top-level help, or CMD's (as tssim CMD --help). */
static int help(int argc, char **argv)
{
  if (argc > 3) {
    fprintf(stderr, "tssim: help: unexpected argument \"%s\" (usage: tssim help [COMMAND])\n", argv[3]);
    return TS_EXIT_USAGE;
  }
  if (argc < 3 || !strcmp(argv[2], "help")) {
    usage(stdout);
    return ts_cli_stdout_status(0); /* `tssim help > /dev/full` fails */
  }
  if (!strcmp(argv[2], "version")) {
    puts(version_help);
    return ts_cli_stdout_status(0);
  }
  const ts_command *c = command(argv[2]);
  if (!c)
    return unknown(argv[2]);
  char *args[] = {argv[2], "--help", NULL};
  return ts_cli_stdout_status(c->main(2, args));
}

int main(int argc, char **argv)
{
  /* GSL failures are return codes, never abort(): set once, before any
   * thread runs (the handler is process-wide state) */
  gsl_set_error_handler_off();
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  if (!strcmp(argv[1], "help"))
    return help(argc, argv);
  if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
    usage(stdout);
    return ts_cli_stdout_status(0); /* `tssim --help > /dev/full` fails */
  }
  if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
    if (argc > 2 && (!strcmp(argv[2], "-h") || !strcmp(argv[2], "--help"))) {
      puts(version_help);
      return ts_cli_stdout_status(0);
    }
    if (argc > 2) {
      fprintf(stderr, "tssim: %s: unexpected argument \"%s\" (usage: tssim version)\n", argv[1], argv[2]);
      return TS_EXIT_USAGE;
    }
    puts("tssim " TSSIM_VERSION);
    return ts_cli_stdout_status(0);
  }
  const ts_command *c = command(argv[1]);
  if (c)
    return ts_cli_stdout_status(c->main(argc - 1, argv + 1));
  return unknown(argv[1]);
}
