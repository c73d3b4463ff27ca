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

/* Add a part of a wait for a reply to data (double[TS_NSTATES + 1]). */
static void add_part(void *data, const ts_tl_callspan *c, ts_time t0, ts_time t1)
{
  ((double *)data)[c ? TS_NSTATES : TS_ACTOR_CALL_WAIT] += (double)(t1 - t0);
}

void ts_explain_state_times(const ts_timeline *tl, int a, ts_time t0, ts_time t1, double *t)
{
  size_t k = tl->call_span_at[a];
  for (size_t i = tl->state_at[a]; i < tl->state_at[a + 1]; i++) {
    const ts_tl_state *e = &tl->states[i];
    ts_time s0 = e->t > t0 ? e->t : t0, s1 = i + 1 < tl->state_at[a + 1] ? tl->states[i + 1].t : tl->end;
    s1 = s1 < t1 ? s1 : t1;
    if (s1 > s0 && e->state == TS_ACTOR_CALL_WAIT)
      ts_timeline_call_wait_parts(tl, a, &k, s0, s1, add_part, t);
    else if (s1 > s0)
      t[e->state] += (double)(s1 - s0);
  }
}

int ts_explain_state_at(int i)
{
  return i < TS_ACTOR_CALL_WAIT ? i : i == TS_ACTOR_CALL_WAIT ? TS_NSTATES : i - 1;
}

const char *ts_explain_state_label(const ts_timeline *tl, int st, int thread)
{
  if (st == TS_NSTATES)
    return TS_TL_CALL_QUEUED;
  if (st == TS_ACTOR_CALL_WAIT && tl->ncall_spans > 0)
    return "waiting for a reply: request or reply legs"; /* TS_TL_CALL_LEGS in a row's 42 columns */
  const ts_state_info *si = ts_state_get(st);
  return thread && si->thread_name ? si->thread_name : si->name;
}

void ts_explain_run_states(FILE *out, const ts_timeline *tl, int k)
{
  double t[TS_NSTATES + 1] = {0}, total = 0;
  int n = 0;
  for (int a = 0; a < tl->nactors; a++) {
    if (tl->stats[a].klass != k || tl->stats[a].hidden || tl->state_at[a] == tl->state_at[a + 1])
      continue;
    n++;
    ts_explain_state_times(tl, a, 0, TS_TIME_MAX, t);
  }
  if (!n)
    return;
  t[TS_ACTOR_NEW] = t[TS_ACTOR_DONE] = 0;
  for (int st = 0; st <= TS_NSTATES; st++)
    total += t[st] /= n;
  fprintf(out, "  what they did from their arrival to the end of the run (%.3f ms; mean per actor):\n",
          ms((double)tl->end));
  int thread = tl->model->pools[tl->model->classes[k].pool].kind == TS_WORKER_THREAD;
  for (int i = 0; i <= TS_NSTATES; i++) {
    int st = ts_explain_state_at(i);
    if (t[st] > 0)
      fprintf(out, "    %-42s %12.3f ms %6.1f%%\n", ts_explain_state_label(tl, st, thread), ms(t[st]),
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
