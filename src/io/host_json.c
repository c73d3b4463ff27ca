/* The host and dispatch sections: cores, the CPU scale and its table by n
 * (given, or read from a recorded baseline), instructions per ms, the idle
 * states of its cores and their governor, and how
 * arriving tasks are dispatched to workers. */
#include <stdlib.h>
#include <string.h>

#include "io/baseline_json.h"
#include "io/model_load.h"
#include "io/scenario_json.h"
#include "model/dispatch.h"
#include "run/metrics.h"

static int scale_alloc(loader *L, ts_model *m, size_t k)
{
  m->scale_n = calloc(k, sizeof *m->scale_n);
  m->scale_v = calloc(k, sizeof *m->scale_v);
  if (!m->scale_n || !m->scale_v)
    return ts_jfail(&L->c, NULL, L->e, "out of memory");
  m->nscale = k;
  return 0;
}

/* The error for table[i], the cell x: what it is if a number, else its type. */
static int cell_fail(loader *L, const char *table, int i, const cJSON *x, const char *expected)
{
  size_t old = ts_jpush_key(&L->c, table);
  ts_jpush_index(&L->c, i);
  int r = cJSON_IsNumber(x) ? ts_jfail(&L->c, NULL, L->e, "%s, got %s", expected, TS_JNUM(x->valuedouble))
                            : ts_jfail_got(&L->c, NULL, x, L->e, "%s", expected);
  ts_jpop(&L->c, old);
  return r;
}

/* {"n": [...], "scale": [...]}: the table as given. */
static int scale_from_table(loader *L, ts_model *m, const cJSON *t)
{
  const cJSON *ns, *vs;
  if (ts_jget_array(&L->c, t, "n", 1, &ns, L->e) || ts_jget_array(&L->c, t, "scale", 1, &vs, L->e))
    return -1;
  int k = cJSON_GetArraySize(ns);
  if (k == 0 || k != cJSON_GetArraySize(vs))
    return ts_jfail(&L->c, "scale", L->e, "expected as many scales as n values (at least one)");
  if (scale_alloc(L, m, (size_t)k))
    return -1;
  const cJSON *x = ns->child, *v = vs->child;
  for (int i = 0; i < k; i++, x = x->next, v = v->next) {
    if (!cJSON_IsNumber(x) || x->valuedouble < 0 || (i > 0 && x->valuedouble <= m->scale_n[i - 1]))
      return cell_fail(L, "n", i, x, "expected increasing numbers >= 0");
    if (!cJSON_IsNumber(v) || v->valuedouble <= 0 || v->valuedouble > 1e3)
      return cell_fail(L, "scale", i, v, "expected numbers in (0, 1000]");
    m->scale_n[i] = x->valuedouble;
    m->scale_v[i] = v->valuedouble;
  }
  return 0;
}

/* {"baseline": FILE, "metric": NAME}: scale(x) = metric(x) / metric(smallest x),
 * read from a recorded baseline (workers = 1 points), so no number is copied by hand.
 * FILE is relative to the model file: listed in io/paths.c's ts_model_path_fields. */
static int scale_from_baseline(loader *L, ts_model *m, const cJSON *t)
{
  const char *file, *metric = "per_group_cpu_ms";
  if (ts_jget_string(&L->c, t, "baseline", 1, &file, L->e) || ts_jget_string(&L->c, t, "metric", 0, &metric, L->e))
    return -1;
  if (ts_metric_builtin(metric) < 0)
    return ts_jfail(&L->c, "metric", L->e, "unknown metric \"%s\"", metric);
  char *path = ts_path_relative_to(L->c.file, file);
  if (!path)
    return ts_jfail(&L->c, "baseline", L->e, "out of memory");
  ts_baseline b;
  ts_err be;
  int bad = ts_baseline_load(path, &b, &be);
  free(path);
  if (bad)
    return ts_jfail(&L->c, "baseline", L->e, "cannot read the baseline: %s", be.msg);
  size_t k = 0;
  for (size_t i = 0; i < b.nrec; i++)
    k += strcmp(b.rec[i].metric, metric) == 0 && b.rec[i].workers == 1 && !b.rec[i].axes;
  if (k == 0) {
    ts_baseline_finish(&b);
    return ts_jfail(&L->c, "metric", L->e, "the baseline records no %s at workers = 1", metric);
  }
  if (scale_alloc(L, m, k)) {
    ts_baseline_finish(&b);
    return -1;
  }
  size_t j = 0;
  for (size_t i = 0; i < b.nrec; i++)
    if (strcmp(b.rec[i].metric, metric) == 0 && b.rec[i].workers == 1 && !b.rec[i].axes) {
      size_t at = j++;
      while (at > 0 && m->scale_n[at - 1] > b.rec[i].n) { /* insertion by n */
        m->scale_n[at] = m->scale_n[at - 1];
        m->scale_v[at] = m->scale_v[at - 1];
        at--;
      }
      m->scale_n[at] = b.rec[i].n;
      m->scale_v[at] = b.rec[i].value;
    }
  ts_baseline_finish(&b);
  double first = m->scale_v[0];
  for (size_t i = 0; i < k; i++) {
    if (first <= 0 || (i > 0 && m->scale_n[i] == m->scale_n[i - 1]))
      return ts_jfail(&L->c, "baseline", L->e, "needs one positive %s per n", metric);
    m->scale_v[i] /= first;
    if (!(m->scale_v[i] > 0 && m->scale_v[i] <= 1e3)) /* what a table may hold */
      return ts_jfail(&L->c, "baseline", L->e, "%s at n = %g is %g times its value at n = %g: expected a CPU scale "
                      "in (0, 1000]", metric, m->scale_n[i], m->scale_v[i], m->scale_n[0]);
  }
  return 0;
}

static int load_cpu_scale_by_n(loader *L, ts_model *m, const cJSON *h)
{
  static const char *const keys[] = {"n", "scale", "baseline", "metric", "by", "note", NULL};
  static const char *const bys[] = {"worker", "n", NULL};
  const cJSON *t = NULL;
  if (cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "cpu_scale_by_n")))
    return 0; /* null: no table (e.g. --set host.cpu_scale_by_n=null) */
  if (ts_jget_object(&L->c, h, "cpu_scale_by_n", 0, &t, L->e))
    return -1;
  if (!t)
    return 0;
  size_t old = ts_jpush_key(&L->c, "cpu_scale_by_n");
  int by = 0, from_baseline = cJSON_GetObjectItemCaseSensitive(t, "baseline") != NULL;
  int bad = ts_jcheck_keys(&L->c, t, keys, L->e) || ts__ml_enum_field(L, t, "by", bys, &by);
  if (!bad && from_baseline && (cJSON_GetObjectItemCaseSensitive(t, "n") || cJSON_GetObjectItemCaseSensitive(t, "scale")))
    bad = ts_jfail(&L->c, "baseline", L->e, "expected either \"baseline\" (and \"metric\") or the table \"n\" and "
                   "\"scale\", not both");
  if (!bad && !from_baseline && cJSON_GetObjectItemCaseSensitive(t, "metric"))
    bad = ts_jfail(&L->c, "metric", L->e, "\"metric\" names what to read from a \"baseline\", and there is none");
  if (!bad)
    bad = from_baseline ? scale_from_baseline(L, m, t) : scale_from_table(L, m, t);
  m->scale_by_worker = by == 0;
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

/* host.idle_states (an array of {"name", "target_residency_ms",
 * "exit_latency_ms"}, residencies increasing) and host.idle_governor
 * ("actual" or "last"), which go together; null stands for absent. */
static int load_idle(loader *L, ts_model *m, const cJSON *h)
{
  static const char *const keys[] = {"name", "target_residency_ms", "exit_latency_ms", "note", NULL};
  static const char *const governors[] = {"actual", "last", NULL};
  const cJSON *states = NULL;
  int governor = -1;
  if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "idle_states")) &&
      ts_jget_array(&L->c, h, "idle_states", 0, &states, L->e))
    return -1;
  if (!cJSON_IsNull(cJSON_GetObjectItemCaseSensitive(h, "idle_governor")) &&
      ts__ml_enum_field(L, h, "idle_governor", governors, &governor))
    return -1;
  if (!states)
    return governor < 0 ? 0 : ts_jfail(&L->c, "idle_governor", L->e, "an idle governor needs \"idle_states\", and there are none");
  int k = cJSON_GetArraySize(states);
  if (k == 0)
    return ts_jfail(&L->c, "idle_states", L->e, "expected at least one idle state (or null: none)");
  if (governor < 0)
    return ts_jfail(&L->c, "idle_governor", L->e, "expected \"actual\" or \"last\" with \"idle_states\"");
  if (!(m->idle_states = calloc((size_t)k, sizeof *m->idle_states)))
    return ts_jfail(&L->c, "idle_states", L->e, "out of memory");
  m->nidle = (size_t)k; /* (all of them, so that a failed load frees the names read so far) */
  m->idle_governor = (ts_idle_governor)governor;
  size_t old = ts_jpush_key(&L->c, "idle_states");
  int bad = 0;
  TS_JARRAY_EACH(i, st, states) {
    ts_idle_state *is = &m->idle_states[i];
    const char *name = NULL;
    size_t o2 = ts_jpush_index(&L->c, i);
    ts_spec sp = ts__ml_spec_of(L, st);
    if (!cJSON_IsObject(st))
      bad = ts_jfail_got(&L->c, NULL, st, L->e, "expected an object {\"name\", \"target_residency_ms\", \"exit_latency_ms\"}");
    else
      bad = ts_jcheck_keys(&L->c, st, keys, L->e) || ts_jget_string(&L->c, st, "name", 1, &name, L->e) ||
            ts_spec_time(&sp, "target_residency_ms", 1, &is->residency) ||
            ts_spec_time(&sp, "exit_latency_ms", 1, &is->exit) || !(is->name = ts__ml_dup_or_fail(L, name));
    if (!bad && i > 0 && is->residency <= m->idle_states[i - 1].residency)
      bad = ts_jfail(&L->c, "target_residency_ms", L->e,
                     "expected the states by increasing target residency: more than the previous state's %g ms",
                     (double)m->idle_states[i - 1].residency / 1e6);
    ts_jpop(&L->c, o2);
    if (bad)
      break;
  }
  ts_jpop(&L->c, old);
  return bad ? -1 : 0;
}

int ts__ml_load_host_dispatch(loader *L, ts_model *m, const cJSON *root)
{
  static const char *const hkeys[] = {"cores",          "cpu_scale",     "cpu_scale_by_n", "instructions_per_ms",
                                      "idle_states",    "idle_governor", "note",           NULL};
  static const char *const dkeys[] = {"policy", "task_id", "group_prefix", "ids", "note", NULL};
  const cJSON *h = NULL, *d = NULL, *ip = NULL;
  int64_t cores = 0;
  const char *policy = "hash", *task = "task", *prefix = "cg", *ids = "fixed";
  m->cpu_scale = 1;
  if (ts_jget_object(&L->c, root, "host", 0, &h, L->e) || ts_jget_object(&L->c, root, "dispatch", 0, &d, L->e))
    return -1;
  if (h) {
    size_t old = ts_jpush_key(&L->c, "host");
    ts_spec sp = ts__ml_spec_of(L, h); /* numbers, $params or expressions of $params */
    int bad = ts_jcheck_keys(&L->c, h, hkeys, L->e) || ts_spec_int(&sp, "cores", 0, 0, 4096, &cores) ||
              ts_spec_number(&sp, "cpu_scale", 0, 1e-6, 1e3, &m->cpu_scale) ||
              load_cpu_scale_by_n(L, m, h) || load_idle(L, m, h) ||
              ts_jget_object(&L->c, h, "instructions_per_ms", 0, &ip, L->e);
    if (!bad && ip) {
      static const char *const ikeys[] = {"user", "kernel", "note", NULL};
      size_t o2 = ts_jpush_key(&L->c, "instructions_per_ms");
      ts_spec ips = ts__ml_spec_of(L, ip);
      bad = ts_jcheck_keys(&L->c, ip, ikeys, L->e) || ts_spec_number(&ips, "user", 1, 0, 1e12, &m->ipms_user) ||
            ts_spec_number(&ips, "kernel", 1, 0, 1e12, &m->ipms_kernel);
      ts_jpop(&L->c, o2);
    }
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  if (d) {
    size_t old = ts_jpush_key(&L->c, "dispatch");
    int bad = ts_jcheck_keys(&L->c, d, dkeys, L->e) || ts_jget_string(&L->c, d, "policy", 0, &policy, L->e) ||
              ts_jget_string(&L->c, d, "task_id", 0, &task, L->e) ||
              ts_jget_string(&L->c, d, "group_prefix", 0, &prefix, L->e) ||
              ts_jget_string(&L->c, d, "ids", 0, &ids, L->e);
    ts_jpop(&L->c, old);
    if (bad)
      return -1;
  }
  int kind = ts_dispatch_find(policy);
  if (kind < 0)
    return ts_jfail(&L->c, "dispatch.policy", L->e, "expected hash, round_robin or least_loaded; got \"%s\"",
                    policy);
  if (strcmp(ids, "fixed") && strcmp(ids, "per_replication"))
    return ts_jfail(&L->c, "dispatch.ids", L->e, "expected fixed or per_replication; got \"%s\"", ids);
  m->cores = (int)cores;
  m->dispatch = (ts_dispatch_kind)kind;
  m->ids_per_replication = strcmp(ids, "per_replication") == 0;
  if (strlen(task) > 200 || strlen(prefix) > 200)
    return ts_jfail(&L->c, strlen(task) > 200 ? "dispatch.task_id" : "dispatch.group_prefix", L->e,
                    "expected at most 200 characters");
  if (!(m->task_id = ts__ml_dup_or_fail(L, task)) || !(m->group_prefix = ts__ml_dup_or_fail(L, prefix)))
    return -1;
  return 0;
}
