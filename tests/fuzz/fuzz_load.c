/* A libFuzzer target for the input loaders: the bytes go through
 * ts_json_parse (the checks every JSON file tssim reads gets), then, when
 * they parse, through the model, scenario and baseline loaders, each on the
 * same tree. Findings are crashes, sanitizer reports, leaks, hangs, and any
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

#define FUZZ_FILE "fuzz-input.json"

/* A refusal must be "FUZZ_FILE: ..." on one line. */
static void check_message(const ts_err *e)
{
  size_t n = strlen(FUZZ_FILE);
  if (strncmp(e->msg, FUZZ_FILE, n) != 0 || e->msg[n] != ':' || strchr(e->msg, '\n')) {
    fprintf(stderr, "fuzz_load: not a one-line message naming the file: %s\n", e->msg);
    abort();
  }
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
