/* Open models in tssim explain: classes whose actors arrive over the run
 * (poisson arrivals, or "count": "forever") are not a closed
 * wave of m actors that start together and share their worker until the
 * last is done, so the round-robin closed form and the wave law do not
 * apply; the report says so and names the queues the arrivals wait in. */
#include "viz/explain.h"

#include <stdlib.h>
#include <string.h>

/* Class k's arrivals as text ("count forever, poisson 400/s") into buf,
 * when they come over the run: 1, else 0 (a fixed count arriving at once or
 * periodically, as zero-cache's staggered clients: a closed wave). */
static int open_class(const ts_class *k, char *buf, size_t cap)
{
  const ts_arrival *a = &k->arrival;
  if (a->kind == TS_ARRIVE_POISSON)
    snprintf(buf, cap, "%spoisson %g/s", k->forever ? "count forever, " : "", a->rate_per_s);
  else if (k->forever && a->kind == TS_ARRIVE_PERIODIC)
    snprintf(buf, cap, "count forever, periodic every %g ms", ts_time_to_ms(a->period));
  else if (k->forever)
    snprintf(buf, cap, "count forever");
  else
    return 0;
  return 1;
}

int ts_explain_open_class(const ts_model *m, int k, char *buf, size_t cap)
{
  return open_class(&m->classes[k], buf, cap);
}

int ts_explain_open(const ts_model *m, char *why, size_t cap)
{
  size_t used = 0;
  int open = 0;
  for (size_t c = 0; c < m->nclasses; c++) {
    char a[96];
    if (!open_class(&m->classes[c], a, sizeof a))
      continue;
    if (used < cap) {
      int n = snprintf(why + used, cap - used, "%sclass %s: %s", open ? "; " : "", m->classes[c].name, a);
      used += n > 0 ? (size_t)n : 0;
    }
    open = 1;
  }
  return open;
}

void ts_explain_open_queues(FILE *out, const ts_timeline *tl, const char *why)
{
  const ts_model *m = tl->model;
  fprintf(out,
          "\nwave law: does not apply: open arrivals\n  (%s).\n"
          "  The law counts m actors that start together and share their worker until the last is done; here the\n"
          "  actors arrive one by one and each waits behind the work present when it arrives (and, under a\n"
          "  priority policy, higher classes arriving later): a queue.\n"
          "  The queues they wait in:\n",
          why);
  int *calls = calloc(m->nservers ? m->nservers : 1, sizeof *calls);
  for (size_t i = 0; calls && i < tl->ncalls; i++)
    if (tl->calls[i].ev == 0 && tl->calls[i].server >= 0 && (size_t)tl->calls[i].server < m->nservers)
      calls[tl->calls[i].server]++;
  for (size_t s = 0; calls && s < m->nservers; s++) {
    const ts_server_decl *d = &m->servers[s];
    if (calls[s] == 0)
      continue;
    fprintf(out,
            "  - server %s (pool %s): calls wait in its %s queue for one of %d place%s in service;\n"
            "    \"" TS_TL_CALL_QUEUED "\" above is that wait (the handler's CPU is own CPU)\n",
            d->name, m->pools[d->pool].name, d->policy->name, d->concurrency, d->concurrency == 1 ? "" : "s");
  }
  free(calls);
  const ts_pool *p = &m->pools[0];
  if (p->kind == TS_WORKER_THREAD) {
    fprintf(out, "  - the main pool's threads: each one FIFO run queue of ready tasks\n");
    return;
  }
  fprintf(out, "  - the main pool's event loops (%d): arrivals and wakeups wait as I/O callbacks, run %s\n"
          "    (\"I/O-callback wait\" above)",
          tl->nmain, p->preempt ? "highest queue class first (preempt)" : "in arrival order");
  if (ts_model_some_step_yields(m))
    fprintf(out, "; actors that yield wait in the %s time-slice queue (\"queue wait\" above)\n", p->policy->name);
  else if (p->policy != &ts_sched_fifo)
    fprintf(out, ";\n    no step yields, so the %s time-slice queue stays empty and orders nothing\n", p->policy->name);
  else
    fprintf(out, "\n");
}
