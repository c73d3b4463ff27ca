/* One sweep point of a scenario, as trace, gantt and explain take it from
 * their command line. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/explore.h"
#include "engine/rng.h"

/* Parse the options into p->opt and cmd's own. Returns 0 when there is
 * exactly one SCENARIO.json left, else -1 with *status set. */
static int parse(const ts_cli_point_cmd *cmd, int argc, char **argv, ts_cli_point *p, int *status)
{
  int c;
  optind = 1;
  opterr = 0;
  while ((c = getopt_long(argc, argv, cmd->shortopts, cmd->longopts, NULL)) != -1) {
    if (ts_vizopt_take(&p->opt, c, optarg))
      continue;
    if (c == 'h') {
      cmd->usage(stdout);
      *status = 0;
      return -1;
    }
    int t = cmd->take ? cmd->take(cmd->ctx, c, optarg) : -1;
    if (t != 0) {
      *status = t < 0 ? ts_cli_bad_option(cmd->name, argv) : t;
      return -1;
    }
  }
  if (optind != argc - 1) {
    *status = ts_cli_usage_error("%s: expected exactly one SCENARIO.json (see tssim %s --help)", cmd->name, cmd->name);
    return -1;
  }
  return 0;
}

/* The user's --axis for axis key, or NULL. */
static const char *axis_arg(const ts_vizopt *o, const char *key)
{
  size_t l = strlen(key);
  for (int i = 0; i < o->naxes; i++)
    if (strncmp(o->axes[i], key, l) == 0 && o->axes[i][l] == '=')
      return o->axes[i];
  return NULL;
}

/* Draw one value of every axis of the scenario: the --axis KEY=LABEL given,
 * else the axis's first (summary.csv's first row); each applied as a
 * sensitivity --axis of one value. p->title gets the scenario's name and
 * the values drawn, "NAME (KEY=LABEL, ...)". Returns 0, or -1 with e set. */
static int pick_axes(ts_cli_point *p, ts_err *e)
{
  ts_scenario *sc = &p->L.sc;
  for (int i = 0; i < p->opt.naxes; i++) {
    const char *arg = p->opt.axes[i], *eq = strchr(arg, '=');
    if (!eq || !eq[1] || strchr(eq, ',')) { /* what this command takes: one value, not sensitivity's list */
      if (sc->naxes == 0)
        return ts_err_set(e, "--axis", NULL, "%s has no axes to draw a value of, got \"%s\"", sc->file, arg);
      return ts_err_set(e, "--axis", NULL, "expected KEY=LABEL, one value to draw (e.g. %s=%s), got \"%s\"",
                        sc->axes[0].key, sc->axes[0].labels[sc->axes[0].nvalues > 1], arg);
    }
    int a = 0;
    while (eq && a < sc->naxes && (strlen(sc->axes[a].key) != (size_t)(eq - arg) ||
                                   strncmp(sc->axes[a].key, arg, (size_t)(eq - arg)) != 0))
      a++;
    if (!eq || a == sc->naxes) /* ts_cli_axis_keep says what is wrong */
      return ts_cli_axis_keep(&p->L, arg, 1, e);
    if (ts_cli_axis_twice(p->opt.axes, i, e))
      return -1;
  }
  snprintf(p->title, sizeof p->title, "%s", sc->name);
  for (int k = 0; sc->naxes > 0; k++) {
    char one[512];
    const char *arg = axis_arg(&p->opt, sc->axes[0].key);
    if (arg)
      snprintf(one, sizeof one, "%s", arg);
    else
      snprintf(one, sizeof one, "%s=%s", sc->axes[0].key, sc->axes[0].labels[0]);
    size_t len = strlen(p->title);
    snprintf(p->title + len, sizeof p->title - len, "%s%s%s", k ? ", " : " (", one, sc->naxes == 1 ? ")" : "");
    if (ts_cli_axis_keep(&p->L, one, 1, e))
      return -1;
  }
  return 0;
}

int ts_cli_point_open(const ts_cli_point_cmd *cmd, int argc, char **argv, ts_cli_point *p, int *status)
{
  ts_err e;
  if (ts_vizopt_init(&p->opt, argc)) {
    *status = 1;
    return -1;
  }
  p->opt.max_events = cmd->max_events;
  if (parse(cmd, argc, argv, p, status)) {
    ts_vizopt_finish(&p->opt);
    return -1;
  }
  *status = ts_cli_load(argv[optind], p->opt.sets, p->opt.nsets, &p->L);
  if (*status) {
    ts_vizopt_finish(&p->opt);
    return -1;
  }
  *status = 2;
  if (pick_axes(p, &e) || ts_vizopt_resolve(&p->opt, &p->L.sc, &e)) {
    fprintf(stderr, "tssim: %s\n", e.msg);
    ts_cli_point_finish(p);
    return -1;
  }
  ts_cli_policy_notes(&p->L); /* of the point's model, its axis values applied */
  int own_n = p->L.sc.nn ? p->L.sc.ns[0] : 1; /* (a --n of the scenario's own first n changes nothing) */
  if (p->opt.n_arg && p->opt.n != own_n && !ts_model_reads_n(&p->L.model))
    ts_cli_note_n_unread(p->opt.n_arg, p->L.sc.model_path);
  return 0;
}

int ts_cli_point_record(const ts_cli_point *p, int n, ts_timeline *tl)
{
  const ts_vizopt *o = &p->opt;
  return ts_timeline_record_window(tl, &p->L.model, n, o->workers, ts_rng_derive_seed(o->seed, n, o->workers, 0),
                                   o->horizon, p->L.sc.warmup, p->L.sc.window, o->max_events);
}

int ts_cli_point_fail(const ts_cli_point *p, const ts_timeline *tl, int r, const char *hint)
{
  if (r == -6) {
    fprintf(stderr,
            "tssim: %s: n=%d, workers=%d records more than %zu events (run pieces, state changes, counters); "
            "draw a smaller --n or a shorter --horizon MS, or raise the limit with --max-events N (0: no limit)\n",
            p->L.sc.file, p->opt.n, p->opt.workers, p->opt.max_events);
    return 2;
  }
  fprintf(stderr, "tssim: %s: %s%s\n", r == -5 ? p->L.sc.model_path : p->L.sc.file, ts_timeline_strerror(tl, r),
          hint);
  return r == -4 || r == -5 ? 2 : 1;
}

int ts_cli_point_show(const ts_cli_point *p, int (*show)(void *ctx, const ts_cli_point *p, const ts_timeline *tl),
                      void *ctx, const char *stuck)
{
  ts_timeline tl = {0};
  int rc, r = ts_cli_point_record(p, p->opt.n, &tl);
  if (r != 0 && r != -2)
    rc = ts_cli_point_fail(p, &tl, r, "");
  else if ((rc = show(ctx, p, &tl)) == 0 && r == -2)
    rc = ts_cli_point_fail(p, &tl, r, stuck);
  ts_timeline_finish(&tl);
  return rc;
}

void ts_cli_point_finish(ts_cli_point *p)
{
  ts_cli_unload(&p->L);
  ts_vizopt_finish(&p->opt);
}
