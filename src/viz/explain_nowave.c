/* The parts of tssim explain that need no wave: what a class whose actors
 * never finished did over the whole run (a loop repeating forever, as a
 * game room doing a burst per tick), and the figures of the model's spans,
 * which measure such a model where waves cannot. */
#include "viz/explain.h"

#include <stdlib.h>
#include <string.h>

#include "model/state.h"
#include "run/sweep.h"

static double ms(double ns)
{
  return ns / 1e6;
}

void ts_explain_run_states(FILE *out, const ts_timeline *tl, int k)
{
  double t[TS_NSTATES] = {0}, total = 0;
  int n = 0;
  for (int a = 0; a < tl->nactors; a++) {
    if (tl->stats[a].klass != k || tl->stats[a].hidden || tl->state_at[a] == tl->state_at[a + 1])
      continue;
    n++;
    for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++) {
      const ts_tl_state *e = &tl->states[i];
      ts_time t1 = i + 1 < tl->state_at[a + 1] ? tl->states[i + 1].t : tl->end;
      if (e->state != TS_ACTOR_NEW && e->state != TS_ACTOR_DONE && t1 > e->t)
        t[e->state] += (double)(t1 - e->t);
    }
  }
  if (!n)
    return;
  for (int st = 0; st < TS_NSTATES; st++)
    total += t[st] /= n;
  fprintf(out, "  what they did from their arrival to the end of the run (%.3f ms; mean per actor):\n",
          ms((double)tl->end));
  int thread = tl->model->pools[tl->model->classes[k].pool].kind == TS_WORKER_THREAD;
  for (int st = 0; st < TS_NSTATES; st++) {
    const ts_state_info *si = ts_state_get(st);
    if (t[st] > 0)
      fprintf(out, "    %-42s %12.3f ms %6.1f%%\n", thread && si->thread_name ? si->thread_name : si->name, ms(t[st]),
              100 * t[st] / total);
  }
  fprintf(out, "    %-42s %12.3f ms\n", "= in the run", ms(total));
}

int ts_explain_spans(FILE *out, const ts_timeline *tl)
{
  const ts_model *m = tl->model;
  size_t sampled = 0;
  for (size_t s = 0; s < m->nspans; s++)
    sampled += m->spans[s].sampled != 0;
  if (sampled == 0 || !tl->span_v)
    return 0;
  if (tl->win_t0 <= 0 && tl->win_t1 >= tl->horizon)
    fprintf(out, "\nspans (the model's latency measures; this replication, every sample that ended in the run):\n");
  else if (tl->win_t1 >= tl->horizon)
    fprintf(out, "\nspans (the model's latency measures; this replication, every sample that ended in the measurement "
            "window, from %.3f ms (warmup_ms) to the end, as tssim run takes them):\n", ms((double)tl->win_t0));
  else
    fprintf(out, "\nspans (the model's latency measures; this replication, every sample that ended in the measurement "
            "window [%.3f, %.3f) ms (warmup_ms, window_ms), as tssim run takes them):\n", ms((double)tl->win_t0),
            ms((double)tl->win_t1));
  if (tl->win_missed) {
    fprintf(out, "  none: the run ended at %.3f ms, before the window began (tssim run reports these metrics as NaN)\n",
            ms((double)tl->end));
    return 0;
  }
  for (size_t s = 0; s < m->nspans; s++) {
    size_t len = tl->span_len[s];
    if (!m->spans[s].sampled) /* it only stamps notifies: another span measures from its stamp */
      continue;
    if (len == 0) {
      fprintf(out, "  span %s: no sample ended\n", m->spans[s].name);
      continue;
    }
    double *v = malloc(len * sizeof *v), sum = 0, max = 0;
    if (!v)
      return -1;
    for (size_t i = 0; i < len; i++) {
      v[i] = ms((double)tl->span_v[s][i]);
      sum += v[i];
      max = v[i] > max ? v[i] : max;
    }
    double p50 = ts_quantile(v, len, 0.5), p95 = ts_quantile(v, len, 0.95), p99 = ts_quantile(v, len, 0.99);
    fprintf(out, "  span %s: %zu samples, %.3f per s; mean %.3f ms, p50 %.3f, p95 %.3f, p99 %.3f, max %.3f\n",
            m->spans[s].name, len, tl->win_len > 0 ? (double)len / ((double)tl->win_len / 1e9) : 0.0, sum / (double)len, p50,
            p95, p99, max);
    free(v);
  }
  return 0;
}
