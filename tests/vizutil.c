/* Helpers shared by the viz suites: see vizutil.h. */
#include "vizutil.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "engine/rng.h"
#include "testutil.h"

/* Load a scenario of the source tree with overrides and record (n, workers)
 * exactly as the commands do (replication 0 of the scenario's seed). */
void vu_record(const char *scenario, const char *const *sets, int nsets, int n, int workers, ts_loaded *L,
               ts_timeline *tl)
{
  char *path = tu_source_path(scenario);
  ck_assert_int_eq(ts_cli_load(path, sets, nsets, L), 0);
  free(path);
  int rc = ts_timeline_record(tl, &L->model, n, workers, ts_rng_derive_seed(L->sc.seed, n, workers, 0),
                              L->sc.horizon, 0);
  ck_assert_msg(rc == 0, "%s", ts_timeline_strerror(tl, rc));
}

void vu_release(ts_loaded *L, ts_timeline *tl)
{
  ts_timeline_finish(tl);
  ts_cli_unload(L);
}

double vu_num(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  ck_assert_msg(cJSON_IsNumber(v), "missing number %s", key);
  return v->valuedouble;
}

const char *vu_str(const cJSON *o, const char *key)
{
  const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
  return cJSON_IsString(v) ? v->valuestring : "";
}

int vu_count(const char *hay, const char *needle)
{
  int n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
    n++;
  return n;
}

char *vu_closed_loop(const char *count, const char *cmd)
{
  char dir[512], path[600], model[800], *out;
  tu_mkdtemp(dir, sizeof dir, "closed");
  snprintf(model, sizeof model,
           "{\"name\": \"closed\", \"classes\": [{\"name\": \"client\", \"count\": \"n\", \"program\": ["
           "{\"op\": \"repeat\", \"count\": %s, \"steps\": [{\"op\": \"sleep\", \"ms\": 50, \"dist\": \"exponential\"},"
           " {\"op\": \"cpu\", \"ms\": 10, \"dist\": \"exponential\"}]}]}]}",
           count);
  snprintf(path, sizeof path, "%s/m.json", dir);
  tu_write_file(path, model);
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, strstr(count, "forever")
                          ? "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [4], \"workers\": [1], \"horizon_ms\": 400}"
                          : "{\"name\": \"s\", \"model\": \"m.json\", \"n\": [4], \"workers\": [1]}");
  ck_assert_int_eq(tu_tssimf(&out, NULL, "%s '%s/s.json'", cmd, dir), 0);
  tu_rmtree(dir);
  return out;
}
