/* Hard inputs, end to end. The malformed-input corpus tests/data/bad/ (its
 * MANIFEST says what each file tests and which JSON path its message names)
 * goes through the built tssim: exit status 2, exactly one line on stderr,
 * naming the file and the path. The inputs the fuzzer once tripped on
 * (tests/data/fuzz-regressions/) are replayed through the fuzz target's body
 * and through tssim. And long inputs load (without timing them). */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/jsonfile.h"
#include "io/model_json.h"
#include "model/op.h"

#include "fuzz/fuzz_load.h"
#include "testutil.h"

#define CORPUS "tests/data/bad"
#define REGRESSIONS "tests/data/fuzz-regressions"
#define MIN_CORPUS 60

/* ---- the manifest ---- */

typedef struct entry {
  char file[256];
  char role[16];   /* model, scenario, baseline */
  char status[16]; /* refused, pending */
  char path[512];  /* the JSON path the message names, "" for none */
} entry;

/* The manifest's entries into *out (caller frees); returns their count. */
static size_t read_manifest(entry **out)
{
  char *path = tu_source_path(CORPUS "/MANIFEST");
  char *text = tu_read_file(path, NULL);
  size_t n = 0, cap = 256;
  entry *v = malloc(cap * sizeof *v);
  ck_assert_ptr_nonnull(v);
  for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
    if (line[0] == '#' || line[0] == '\0')
      continue;
    ck_assert_uint_lt(n, cap);
    entry *e = &v[n++];
    ck_assert_msg(sscanf(line, "%255s %15s %15s %511s", e->file, e->role, e->status, e->path) == 4,
                  "MANIFEST: expected FILE ROLE STATUS JSON-PATH WHAT: %s", line);
    ck_assert_msg(!strcmp(e->role, "model") || !strcmp(e->role, "scenario") || !strcmp(e->role, "baseline"),
                  "MANIFEST: %s: unknown role %s", e->file, e->role);
    ck_assert_msg(!strcmp(e->status, "refused") || !strcmp(e->status, "pending"), "MANIFEST: %s: unknown status %s",
                  e->file, e->status);
    if (!strcmp(e->path, "-"))
      e->path[0] = '\0';
    else if (!strcmp(e->path, "(top-level)"))
      strcpy(e->path, "(top level)");
  }
  free(text);
  free(path);
  *out = v;
  return n;
}

START_TEST(badinput_manifest_lists_every_file_of_the_corpus)
{
  entry *v;
  size_t n = read_manifest(&v);
  ck_assert_msg(n >= MIN_CORPUS, "the corpus has %zu entries, fewer than %d", n, MIN_CORPUS);
  char *dir = tu_source_path(CORPUS);
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  size_t files = 0;
  for (struct dirent *de; (de = readdir(d));) {
    if (de->d_name[0] == '.' || !strcmp(de->d_name, "MANIFEST"))
      continue;
    files++;
    size_t i = 0;
    while (i < n && strcmp(v[i].file, de->d_name))
      i++;
    ck_assert_msg(i < n, CORPUS "/%s is not in the MANIFEST", de->d_name);
  }
  closedir(d);
  for (size_t i = 0; i < n; i++)
    for (size_t j = 0; j < i; j++)
      ck_assert_msg(strcmp(v[i].file, v[j].file), "MANIFEST lists %s twice", v[i].file);
  ck_assert_uint_eq(files, n); /* every listed file exists */
  free(dir);
  free(v);
}
END_TEST

/* ---- running the corpus ---- */

static char tmp[PATH_MAX];

static void make_tmp(void)
{
  tu_mkdtemp(tmp, sizeof tmp, "badinput");
}

static void remove_tmp(void)
{
  tu_rmtree(tmp);
}

/* Write tmp/s.json: a scenario running model (absolute) with baseline (or NULL). */
static void write_wrapper(const char *model, const char *baseline)
{
  char path[PATH_MAX + 16], text[3 * PATH_MAX];
  snprintf(path, sizeof path, "%s/s.json", tmp);
  if (baseline)
    snprintf(text, sizeof text,
             "{\"name\": \"wrap\", \"model\": \"%s\", \"baseline\": \"%s\", \"n\": [1], \"workers\": [1]}\n", model,
             baseline);
  else
    snprintf(text, sizeof text, "{\"name\": \"wrap\", \"model\": \"%s\", \"n\": [1], \"workers\": [1]}\n", model);
  tu_write_file(path, text);
}

/* Run `tssim run SCENARIO` quietly into tmp/out: the exit status, stderr in *err. */
static int run(const char *scenario, char **err)
{
  char args[3 * PATH_MAX];
  snprintf(args, sizeof args, "run '%s' -q --no-plots -r 1 -o '%s/out'", scenario, tmp);
  return tu_tssim(args, NULL, err);
}

/* What is wrong with entry e's run (appended to report), or nothing. */
static void check_entry(const entry *e, char *report, size_t cap)
{
  char rel[PATH_MAX], named[PATH_MAX], scenario[PATH_MAX + 16], problem[PATH_MAX + 600] = "";
  snprintf(rel, sizeof rel, CORPUS "/%s", e->file);
  char *abs = tu_source_path(rel);
  char *model = tu_source_path("models/rr-wave.json");
  if (!strcmp(e->role, "scenario")) {
    snprintf(scenario, sizeof scenario, "%s", rel);
    snprintf(named, sizeof named, "%s", rel);
  } else {
    write_wrapper(!strcmp(e->role, "model") ? abs : model, !strcmp(e->role, "baseline") ? abs : NULL);
    snprintf(scenario, sizeof scenario, "%s/s.json", tmp);
    snprintf(named, sizeof named, "%s", abs);
  }
  char *err;
  int status = run(scenario, &err);
  const char *nl = strchr(err, '\n');
  char want_path[600];
  snprintf(want_path, sizeof want_path, ": %s: ", e->path);
  if (!strcmp(e->status, "pending")) {
    if (status == 2)
      snprintf(problem, sizeof problem, "pending, but now refused: mark it refused in the MANIFEST");
  } else if (status != 2) {
    snprintf(problem, sizeof problem, "exit status %d, expected 2", status);
  } else if (!nl || nl[1] != '\0') {
    snprintf(problem, sizeof problem, "expected exactly one line on stderr");
  } else if (!strstr(err, named)) {
    snprintf(problem, sizeof problem, "the line does not name %s", named);
  } else if (e->path[0] && !strstr(err, want_path)) {
    snprintf(problem, sizeof problem, "the line does not name the JSON path \"%s\"", e->path);
  }
  if (problem[0]) {
    size_t len = strlen(report);
    snprintf(report + len, cap - len, "%s (%s): %s; stderr: %.300s\n", e->file, e->role, problem, err);
  }
  free(err);
  free(abs);
  free(model);
}

START_TEST(badinput_corpus_is_refused_with_one_line_naming_file_and_path)
{
  entry *v;
  size_t n = read_manifest(&v);
  size_t cap = 64 * 1024;
  char *report = calloc(1, cap);
  ck_assert_ptr_nonnull(report);
  for (size_t i = 0; i < n; i++)
    check_entry(&v[i], report, cap);
  ck_assert_msg(report[0] == '\0', "bad inputs not refused as the MANIFEST says:\n%s", report);
  free(report);
  free(v);
}
END_TEST

/* ---- fuzz regressions ---- */

/* The regular files of folder rel under the source root (not README.md), as
 * paths relative to the source root, NULL-terminated (caller frees all). */
static char **list_files(const char *rel)
{
  char *dir = tu_source_path(rel);
  DIR *d = opendir(dir);
  ck_assert_msg(d != NULL, "cannot open %s", dir);
  size_t n = 0, cap = 16;
  char **v = malloc(cap * sizeof *v);
  ck_assert_ptr_nonnull(v);
  for (struct dirent *de; (de = readdir(d));) {
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
    if (de->d_name[0] == '.' || !strcmp(de->d_name, "README.md") || lstat(path, &st) || !S_ISREG(st.st_mode))
      continue;
    if (n + 2 > cap) {
      v = realloc(v, (cap *= 2) * sizeof *v);
      ck_assert_ptr_nonnull(v);
    }
    size_t len = strlen(rel) + strlen(de->d_name) + 2;
    v[n] = malloc(len);
    ck_assert_ptr_nonnull(v[n]);
    snprintf(v[n++], len, "%s/%s", rel, de->d_name);
  }
  closedir(d);
  free(dir);
  v[n] = NULL;
  return v;
}

static void free_list(char **v)
{
  for (char **p = v; *p; p++)
    free(*p);
  free(v);
}

/* Feed every regular file of folder rel to a fuzz target's body (which
 * aborts on a message that is not one line naming the input). */
static void replay_in_process(const char *rel, int (*one)(const uint8_t *data, size_t size))
{
  char **files = list_files(rel);
  for (char **f = files; *f; f++) {
    char *path = tu_source_path(*f);
    size_t len;
    char *data = tu_read_file(path, &len);
    ck_assert_int_ge(one((const uint8_t *)data, len), 0);
    free(data);
    free(path);
  }
  free_list(files);
}

START_TEST(badinput_fuzz_regressions_replay_through_the_fuzz_target)
{
  replay_in_process(REGRESSIONS, ts_fuzz_load_one);
  replay_in_process(CORPUS, ts_fuzz_load_one);
}
END_TEST

/* The expression target's findings (expr/: one expression a file) go
 * through its body: compiled, evaluated, loaded in every expression field. */
START_TEST(badinput_expression_regressions_replay_through_the_expression_target)
{
  replay_in_process(REGRESSIONS "/expr", ts_fuzz_expr_one);
}
END_TEST

START_TEST(badinput_fuzz_regressions_run_as_models_exit_cleanly)
{
  char **files = list_files(REGRESSIONS);
  char scenario[PATH_MAX + 16];
  snprintf(scenario, sizeof scenario, "%s/s.json", tmp);
  for (char **f = files; *f; f++) {
    char *abs = tu_source_path(*f), *err;
    write_wrapper(abs, NULL);
    int status = run(scenario, &err);
    const char *nl = strchr(err, '\n');
    ck_assert_msg(status == 0 || status == 1 || status == 2, "%s: exit status %d: %s", *f, status, err);
    ck_assert_msg(status != 2 || (nl && nl[1] == '\0'), "%s: expected one line on stderr: %s", *f, err);
    free(err);
    free(abs);
  }
  free_list(files);
}
END_TEST

/* ---- long inputs ---- */

#define LONG_PROGRAM 100000

START_TEST(badinput_long_program_loads)
{
  char path[PATH_MAX + 16];
  snprintf(path, sizeof path, "%s/long.json", tmp);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs("{\"locks\": [{\"name\": \"g\"}], \"classes\": [{\"count\": 1, \"program\": [{\"op\": \"lock\", \"lock\": \"g\"}",
        f);
  for (int i = 1; i < LONG_PROGRAM - 1; i++)
    fputs(i % 3 == 0 ? ", {\"op\": \"yield\"}" : i % 3 == 1 ? ", {\"op\": \"cpu\", \"ms\": 0.01, \"rows\": 2}"
                                                            : ", {\"op\": \"io\", \"ms\": 0.005}",
          f);
  fputs(", {\"op\": \"unlock\", \"lock\": \"g\"}]}]}\n", f);
  ck_assert_int_eq(fclose(f), 0);
  ts_model m;
  ts_err e;
  ck_assert_msg(ts_model_load(path, NULL, 0, &m, NULL, &e) == 0, "%s", e.msg);
  ck_assert_uint_eq(m.nclasses, 1);
  ck_assert_uint_eq(m.classes[0].nsteps, LONG_PROGRAM);
  ck_assert_ptr_eq(m.classes[0].steps[LONG_PROGRAM - 1].type, &ts_op_unlock);
  ck_assert_ptr_eq(m.classes[0].steps[3].type, &ts_op_yield);
  ts_model_finish(&m);
}
END_TEST

START_TEST(badinput_object_with_many_keys_and_one_duplicate_is_refused)
{
  enum { KEYS = 100000 };
  size_t cap = (size_t)KEYS * 24 + 64, len = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  len += (size_t)snprintf(text + len, cap - len, "{\"params\": {");
  for (int i = 0; i < KEYS; i++)
    len += (size_t)snprintf(text + len, cap - len, "\"p%d\": %d, ", i, i);
  size_t mark = len;
  len += (size_t)snprintf(text + len, cap - len, "\"p99999\": 0}}");
  ts_err e;
  cJSON *root;
  ck_assert_int_eq(ts_json_parse(text, len, "many.json", &root, &e), -1);
  ck_assert_msg(strstr(e.msg, "many.json: params.p99999: duplicate key (first at line 1, column ") == e.msg, "%s",
                e.msg);
  strcpy(text + mark - 2, "}}"); /* without the duplicate (and the comma before it) */
  ck_assert_msg(ts_json_parse(text, strlen(text), "many.json", &root, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "params")), KEYS);
  cJSON_Delete(root);
  free(text);
}
END_TEST

Suite *badinput_suite(void)
{
  Suite *s = suite_create("badinput");
  const TTest *const corpus[] = {badinput_manifest_lists_every_file_of_the_corpus,
                                        badinput_corpus_is_refused_with_one_line_naming_file_and_path, NULL};
  const TTest *const fuzz[] = {badinput_fuzz_regressions_replay_through_the_fuzz_target,
                               badinput_expression_regressions_replay_through_the_expression_target,
                               badinput_fuzz_regressions_run_as_models_exit_cleanly, NULL};
  const TTest *const longer[] = {badinput_long_program_loads,
                                        badinput_object_with_many_keys_and_one_duplicate_is_refused, NULL};
  tu_tcase(s, "corpus", corpus, make_tmp, remove_tmp, 300);
  tu_tcase(s, "fuzz-regressions", fuzz, make_tmp, remove_tmp, 300);
  tu_tcase(s, "long", longer, make_tmp, remove_tmp, 300);
  return s;
}
