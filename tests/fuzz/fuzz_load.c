/* A libFuzzer target for the input loaders: the bytes go through
 * ts_json_parse (the checks every JSON file tssim reads gets), then, when
 * they parse, through the model, scenario and baseline loaders, each on the
 * same tree, and through the model loader again after applying the tree's
 * "set" members as --set overrides. Findings are crashes, sanitizer reports, leaks, hangs, and any
 * refusal that is not one line naming the file (checked here: abort()).
 *
 * Built by -Dfuzz=true (clang) as tests/fuzz/fuzz_load, run by scripts/fuzz;
 * also linked into tests/test_badinput.c, which replays every input kept in
 * tests/data/fuzz-regressions/ through ts_fuzz_load_one under the plain and
 * sanitizer builds. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/baseline_json.h"
#include "io/jsonfile.h"
#include "io/model_json.h"
#include "io/scenario_json.h"

#include "fuzz_load.h"

/* The name the input goes by: in models/, so that the relative paths of the
 * shipped models (baselines/...) and scenarios (../models/...) resolve when
 * the fuzzer runs from the source root, as scripts/fuzz does. */
#define FUZZ_FILE "models/fuzz-input.json"

void ts_fuzz_check_message(const char *file, const ts_err *e)
{
  size_t n = strlen(file);
  if (strncmp(e->msg, file, n) != 0 || e->msg[n] != ':' || strchr(e->msg, '\n')) {
    fprintf(stderr, "fuzz: not a one-line message naming the file: %s\n", e->msg);
    abort();
  }
}

/* A refusal must be "FUZZ_FILE: ..." on one line. */
static void check_message(const ts_err *e)
{
  ts_fuzz_check_message(FUZZ_FILE, e);
}

/* When the tree has a "set" object (as a scenario does), apply its members
 * as --set overrides "PATH=VALUE" to a copy of the tree (at most
 * MAX_SETS), then load the copy as a model: this reaches ts_json_set_path's
 * path parser and the loader on overridden trees. */
#define MAX_SETS 16

static void load_with_sets(const cJSON *root)
{
  const cJSON *set = cJSON_GetObjectItemCaseSensitive(root, "set"), *it;
  if (!cJSON_IsObject(set))
    return;
  cJSON *copy = cJSON_Duplicate(root, 1);
  if (!copy)
    return;
  ts_err e;
  int n = 0, bad = 0;
  cJSON_ArrayForEach(it, set)
  {
    if (n++ == MAX_SETS || bad)
      break;
    char *value = cJSON_PrintUnformatted(it);
    size_t len = strlen(it->string) + (value ? strlen(value) : 0) + 2;
    char *kv = value ? malloc(len) : NULL;
    if (kv) {
      snprintf(kv, len, "%s=%s", it->string, value);
      if ((bad = ts_model_apply_set(copy, FUZZ_FILE, kv, &e)) != 0)
        check_message(&e);
    }
    free(kv);
    free(value);
  }
  ts_model m;
  if (!bad) {
    if (ts_model_from_json(copy, FUZZ_FILE, &m, &e) == 0)
      ts_model_finish(&m);
    else
      check_message(&e);
  }
  cJSON_Delete(copy);
}

int ts_fuzz_load_one(const uint8_t *data, size_t size)
{
  char *text = malloc(size + 1);
  if (!text)
    return -1;
  if (size)
    memcpy(text, data, size);
  text[size] = '\0';
  ts_err e;
  cJSON *root;
  int accepted = 0;
  if (ts_json_parse(text, size, FUZZ_FILE, &root, &e) != 0) {
    check_message(&e);
  } else {
    ts_model m;
    ts_scenario s;
    ts_baseline b;
    if (ts_model_from_json(root, FUZZ_FILE, &m, &e) == 0) {
      ts_model_finish(&m);
      accepted |= 1;
    } else {
      check_message(&e);
    }
    if (ts_scenario_from_json(root, FUZZ_FILE, &s, &e) == 0) {
      ts_scenario_finish(&s);
      accepted |= 2;
    } else {
      check_message(&e);
    }
    if (ts_baseline_from_json(root, FUZZ_FILE, &b, &e) == 0) {
      ts_baseline_finish(&b);
      accepted |= 4;
    } else {
      check_message(&e);
    }
    load_with_sets(root);
    cJSON_Delete(root);
  }
  free(text);
  return accepted;
}

#ifdef TS_FUZZ_MAIN
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  ts_fuzz_load_one(data, size);
  return 0;
}
#endif
