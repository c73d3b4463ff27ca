/* tssim explain: decompose one sweep point's wall clock and set it beside
 * the closed-form laws. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli/cli.h"
#include "viz/explain.h"
#include "viz/timeline.h"
#include "viz/vizopt.h"

static void usage(FILE *f)
{
  fprintf(f, "usage: tssim explain SCENARIO.json [options]\n"
        "\n"
        "Simulate one sweep point of the scenario (replication 0) and explain its wall clock:\n"
        "for each actor class, where the wave goes (own CPU, queue wait, I/O-callback wait\n"
        "on event loops or run-queue wait on threads, I/O, lock wait), what the worker ran\n"
        "while the actor waited, how long locks stayed held while their holder was\n"
        "descheduled, and what an actor did between its arrival and its wave_start. Then the\n"
        "closed forms: round robin with equal demands (exact when it applies), its\n"
        "processor-sharing limit (q -> 0), and the wave law per actor, by its worker's queue:\n"
        "c + sum over j of min(c_j, c) + overlappable latency where the queue serves in turn\n"
        "(processor sharing; m*c for equal demands), c + the CPU of the j ahead where each\n"
        "actor's CPU ran in one slice (first come, run to completion), 'closed form does not\n"
        "apply' and why otherwise (c: an actor's queued + loop CPU; j: the others on its\n"
        "worker whose waves overlap its own), with its terms from n=1 and at this n, and the\n"
        "exact reasons the simulation differs from it (I/O and sleep count as latency). Spans\n"
        "are measured in the scenario's window (warmup_ms, window_ms), as tssim run measures\n"
        "them. For open arrivals, the queues, their load rho and, where a law applies, the mean\n"
        "wait of queueing theory beside the simulated one: Pollaczek-Khinchine (M/G/1, also for\n"
        "several Poisson classes pooled on a queue or a server, and for a feedback loop's\n"
        "geometric number of passes), M^X/G/1 for Poisson batches, D/M/1 and D/D/1 for periodic\n"
        "arrivals, Erlang C (M/M/c), M/M/c/K for a capacity or queue limit, Erlang-A (M/M/c+M)\n"
        "for callers with an exponential patience, the Allen-Cunneen approximation (M/G/c),\n"
        "Cobham's and the preemptive-resume priority laws per queue class, M/G/1 processor\n"
        "sharing for round robin by time; for workers each with its own queue, M/G/1 per worker\n"
        "under dispatch hash and E_c/M/1 (Kingman's approximation beside other service) where\n"
        "each worker gets one arrival in c (dispatch round_robin, or a class arriving forever,\n"
        "placed in turn), with what one shared queue would give; for a mutex taken in a closed\n"
        "loop by threads, exact mean value analysis of the wait per acquire; else why none\n"
        "applies. Actors the horizon stopped before their wave ended are left out of the means;\n"
        "when none ended, the report stops after saying so.\n"
        "\n"
        "options:\n" TS_VIZOPT_HELP
        "  -h, --help              this help\n"
        "\n"
        "The point is refused when it records more than --max-events events (default %d).\n"
        "\n" TS_CLI_EXIT_HELP " (standard output).\n",
        TS_VIZOPT_VIEW_EVENTS);
}

int ts_cmd_explain(int argc, char **argv)
{
  static const struct option opts[] = {TS_VIZOPT_LONG, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
  const ts_cli_point_cmd cmd = {"explain", "h", opts, usage, NULL, NULL, TS_VIZOPT_VIEW_EVENTS};
  ts_cli_point p;
  int rc;
  if (ts_cli_point_open(&cmd, argc, argv, &p, &rc))
    return rc;
  int n = p.opt.n;
  ts_timeline tl = {0}, ref = {0};
  int r = ts_cli_point_record(&p, n, &tl);
  int r1 = n == 1 ? 0 : ts_cli_point_record(&p, 1, &ref);
  if (r != 0 || r1 != 0) {
    int bad = r != 0 ? r : r1;
    rc = ts_cli_point_fail(&p, r != 0 ? &tl : &ref, bad, bad == -2 ? " (see tssim gantt or tssim trace)" : "");
    goto done;
  }
  rc = 1;
  if (ts_explain_report(stdout, &tl, n == 1 ? NULL : &ref, p.title)) {
    fprintf(stderr, "tssim: out of memory explaining the run\n");
    goto done;
  }
  rc = 0;
done:
  ts_timeline_finish(&tl);
  ts_timeline_finish(&ref);
  ts_cli_point_finish(&p);
  return rc;
}
