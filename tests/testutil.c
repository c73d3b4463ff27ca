#include "testutil.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/model_json.h"

const char *tu_source_root(void)
{
  const char *root = getenv("TSSIM_SOURCE_ROOT");
  ck_assert_msg(root != NULL, "TSSIM_SOURCE_ROOT must be set (run the tests with meson test)");
  return root;
}

char *tu_source_path(const char *rel)
{
  const char *root = tu_source_root();
  size_t cap = strlen(root) + 1 + strlen(rel) + 1;
  char *path = malloc(cap);
  ck_assert_ptr_nonnull(path);
  snprintf(path, cap, "%s/%s", root, rel);
  return path;
}

void tu_mkdtemp(char *dir, size_t cap, const char *tag)
{
  const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
  int n = snprintf(dir, cap, "%s/tssim-%s-XXXXXX", tmp, tag);
  ck_assert_msg(n > 0 && (size_t)n < cap, "temporary folder name too long: %s/tssim-%s-XXXXXX", tmp, tag);
  ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
}

void tu_rmtree(const char *dir)
{
  char cmd[PATH_MAX + 16];
  ck_assert_int_lt(snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir), (int)sizeof cmd);
  ck_assert_int_eq(system(cmd), 0);
}

char *tu_read_file(const char *path, size_t *len)
{
  FILE *f = fopen(path, "rb");
  ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
  size_t cap = 1 << 16, n = 0, got;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  while ((got = fread(text + n, 1, cap - n - 1, f)) > 0) {
    n += got;
    if (n + 1 == cap) {
      cap *= 2;
      text = realloc(text, cap);
      ck_assert_ptr_nonnull(text);
    }
  }
  ck_assert_msg(!ferror(f), "cannot read %s", path);
  fclose(f);
  text[n] = '\0';
  if (len)
    *len = n;
  return text;
}

void tu_write_file(const char *path, const char *text)
{
  FILE *f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot create %s: %s", path, strerror(errno));
  fputs(text, f);
  ck_assert_int_eq(fclose(f), 0);
}

const char *tu_tssim_wrapper(void)
{
  const char *w = getenv("TSSIM_TEST_WRAPPER");
  return w ? w : "";
}

int tu_tssim(const char *args, char **out, char **err)
{
  const char *bin = getenv("TSSIM_BINARY"), *root = tu_source_root();
  ck_assert_msg(bin != NULL, "TSSIM_BINARY must be set (run the tests with meson test)");
  char dir[PATH_MAX], out_path[PATH_MAX + 8], err_path[PATH_MAX + 8];
  tu_mkdtemp(dir, sizeof dir, "run");
  snprintf(out_path, sizeof out_path, "%s/out", dir);
  snprintf(err_path, sizeof err_path, "%s/err", dir);
  const char *wrap = tu_tssim_wrapper();
  size_t cap = strlen(wrap) + strlen(root) + strlen(bin) + strlen(args) + 2 * sizeof out_path + 64;
  char *cmd = malloc(cap);
  ck_assert_ptr_nonnull(cmd);
  if (err)
    snprintf(cmd, cap, "cd '%s' && %s '%s' %s >'%s' 2>'%s'", root, wrap, bin, args, out_path, err_path);
  else
    snprintf(cmd, cap, "cd '%s' && %s '%s' %s >'%s' 2>&1", root, wrap, bin, args, out_path);
  int status = system(cmd);
  ck_assert_msg(status != -1 && WIFEXITED(status), "did not exit: %s", cmd);
  free(cmd);
  if (out)
    *out = tu_read_file(out_path, NULL);
  if (err)
    *err = tu_read_file(err_path, NULL);
  remove(out_path);
  remove(err_path);
  ck_assert_msg(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
  return WEXITSTATUS(status);
}

int tu_tssimf(char **out, char **err, const char *fmt, ...)
{
  char args[16384];
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(args, sizeof args, fmt, ap);
  va_end(ap);
  ck_assert_msg(n >= 0 && n < (int)sizeof args, "tssim arguments too long: %s", fmt);
  char *o, *e;
  int rc = tu_tssim(args, &o, &e);
  if (out)
    *out = o;
  else
    free(o);
  if (err)
    *err = e;
  else
    free(e);
  return rc;
}

int tu_sh(char **out, const char *fmt, ...)
{
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  ck_assert_int_ge(n, 0);
  char dir[PATH_MAX], path[PATH_MAX + 8];
  tu_mkdtemp(dir, sizeof dir, "sh");
  snprintf(path, sizeof path, "%s/out", dir);
  size_t cap = (size_t)n + sizeof path + 32;
  char *cmd = malloc(cap);
  ck_assert_ptr_nonnull(cmd);
  int k = snprintf(cmd, cap, "{ ");
  vsnprintf(cmd + k, cap - (size_t)k, fmt, again);
  va_end(again);
  k += n;
  snprintf(cmd + k, cap - (size_t)k, "\n} >'%s' 2>&1", path);
  int status = system(cmd);
  ck_assert_msg(status != -1 && WIFEXITED(status), "did not exit: %s", cmd);
  free(cmd);
  if (out)
    *out = tu_read_file(path, NULL);
  remove(path);
  ck_assert_msg(rmdir(dir) == 0, "rmdir %s: %s", dir, strerror(errno));
  return WEXITSTATUS(status);
}

int tu_have(const char *name)
{
  return tu_sh(NULL, "command -v '%s' >/dev/null", name) == 0;
}

void tu_model(const char *json, ts_model *m)
{
  cJSON *root = cJSON_Parse(json);
  ck_assert_msg(root != NULL, "malformed model JSON: %s", json);
  ts_err e;
  int rc = ts_model_from_json(root, "test.json", m, &e);
  cJSON_Delete(root);
  ck_assert_msg(rc == 0, "%s\nmodel: %s", e.msg, json);
}

void tu_refuse(const char *json, const char *path, const char *what)
{
  cJSON *root = cJSON_Parse(json);
  ck_assert_msg(root != NULL, "malformed model JSON: %s", json);
  ts_model m;
  ts_err e;
  int rc = ts_model_from_json(root, "test.json", &m, &e);
  cJSON_Delete(root);
  ck_assert_msg(rc == -1, "accepted: %s", json);
  ck_assert_msg(strncmp(e.msg, "test.json: ", 11) == 0, "no file: %s", e.msg);
  ck_assert_msg(strstr(e.msg, path) != NULL, "no path %s: %s", path, e.msg);
  ck_assert_msg(strstr(e.msg, what) != NULL, "no \"%s\": %s", what, e.msg);
}

void tu_modelf(ts_model *m, const char *fmt, ...)
{
  va_list ap, again;
  va_start(ap, fmt);
  va_copy(again, ap);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  ck_assert_int_ge(n, 0);
  char *json = malloc((size_t)n + 1);
  ck_assert_ptr_nonnull(json);
  vsnprintf(json, (size_t)n + 1, fmt, again);
  va_end(again);
  tu_model(json, m);
  free(json);
}

ts_world_spec tu_world_spec(int n, int workers, uint64_t seed)
{
  return (ts_world_spec){.n = n, .workers = workers, .seed = seed, .horizon = TS_TIME_MAX, .win_t0 = 0,
                         .win_t1 = TS_TIME_MAX};
}

uint64_t tu_lcg(uint64_t *s)
{
  *s = *s * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
  return *s >> 11;
}

TCase *tu_tcase(Suite *s, const char *name, const TTest *const *tests, SFun setup, SFun teardown, double timeout)
{
  TCase *tc = tcase_create(name);
  if (setup || teardown)
    tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, timeout > 0 ? timeout : TU_TIMEOUT_DEFAULT);
  for (; *tests; tests++)
    tcase_add_test(tc, *tests);
  suite_add_tcase(s, tc);
  return tc;
}

void tu_table_read(tu_table *t, const char *path)
{
  memset(t, 0, sizeof *t);
  t->text = tu_read_file(path, NULL);
  size_t lines = 1, heads = 1;
  for (const char *p = t->text; *p; p++)
    lines += *p == '\n';
  for (const char *p = t->text; *p && *p != '\n'; p++)
    heads += *p == ',';
  t->head = calloc(heads, sizeof *t->head);
  t->cell = calloc(lines * heads + 1, sizeof *t->cell);
  ck_assert(t->head && t->cell);
  const char **cell = (const char **)t->cell;
  int row = -1;
  for (char *line = strtok(t->text, "\n"); line; line = strtok(NULL, "\n"), row++) {
    int col = 0;
    for (char *f = line, *comma; f; f = comma ? comma + 1 : NULL, col++) {
      comma = strchr(f, ',');
      if (comma)
        *comma = '\0';
      if (row < 0)
        t->head[col] = f;
      else if (col < t->ncols)
        cell[(size_t)row * (size_t)t->ncols + (size_t)col] = f;
    }
    if (row < 0)
      t->ncols = col;
  }
  t->nrows = row < 0 ? 0 : row;
  for (size_t i = 0; i < (size_t)t->nrows * (size_t)t->ncols; i++)
    if (!cell[i])
      cell[i] = "";
}

void tu_table_free(tu_table *t)
{
  free(t->text);
  free((void *)t->head);
  free((void *)t->cell);
  memset(t, 0, sizeof *t);
}

int tu_table_column(const tu_table *t, const char *name)
{
  for (int c = 0; c < t->ncols; c++)
    if (strcmp(t->head[c], name) == 0)
      return c;
  return -1;
}

const char *tu_table_cell(const tu_table *t, int row, const char *name)
{
  int c = tu_table_column(t, name);
  ck_assert_msg(c >= 0, "the table has no column %s", name);
  ck_assert_int_lt(row, t->nrows);
  return t->cell[(size_t)row * (size_t)t->ncols + (size_t)c];
}

double tu_table_num(const tu_table *t, int row, const char *name)
{
  return atof(tu_table_cell(t, row, name));
}

void tu_run_examples(const char *const *names)
{
  for (int i = 0; names[i]; i++) {
    char dir[256], args[600];
    tu_mkdtemp(dir, sizeof dir, "example");
    snprintf(args, sizeof args, "run scenarios/examples/%s.json -o %s -q --no-plots", names[i], dir);
    char *out;
    int rc = tu_tssim(args, &out, NULL);
    ck_assert_msg(rc == 0, "%s: exit %d: %s", names[i], rc, out);
    free(out);
    tu_rmtree(dir);
  }
}

void tu_same_at_jobs(const char *scenario)
{
  static const char *const files[] = {"summary.csv", "samples.csv", "summary.json"}; /* test_parallel's too */
  char a[256], b[256], pa[300], pb[300];
  tu_mkdtemp(a, sizeof a, "jobs1");
  tu_mkdtemp(b, sizeof b, "jobs2");
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "run %s --jobs 1 -q --no-plots -o '%s'", scenario, a), 0);
  ck_assert_int_eq(tu_tssimf(NULL, NULL, "run %s --jobs 2 -q --no-plots -o '%s'", scenario, b), 0);
  for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
    snprintf(pa, sizeof pa, "%s/%s", a, files[i]);
    snprintf(pb, sizeof pb, "%s/%s", b, files[i]);
    size_t la, lb;
    char *x = tu_read_file(pa, &la), *y = tu_read_file(pb, &lb); /* (tu_read_file fails the test when it cannot) */
    ck_assert_msg(la == lb && memcmp(x, y, la) == 0, "%s of %s differs between --jobs 1 and 2", files[i], scenario);
    free(x);
    free(y);
  }
  tu_rmtree(a);
  tu_rmtree(b);
}

int tu_run_files(const char *tag, const char *model, const char *scenario, char *dir, size_t cap, char **out,
                 char **err)
{
  char path[1100], args[2400];
  tu_mkdtemp(dir, cap, tag);
  snprintf(path, sizeof path, "%s/m.json", dir);
  tu_write_file(path, model);
  snprintf(path, sizeof path, "%s/s.json", dir);
  tu_write_file(path, scenario);
  snprintf(args, sizeof args, "run '%s' -o '%s/out' -q --no-plots", path, dir);
  return tu_tssim(args, out, err);
}

const char *tu_at(const char *dir, const char *rel)
{
  static char buf[8][PATH_MAX + 64];
  static int next;
  char *b = buf[next++ % 8];
  ck_assert_int_lt(snprintf(b, sizeof buf[0], "%s/%s", dir, rel), (int)sizeof buf[0]);
  return b;
}

const char *tu_write_at(const char *dir, const char *name, const char *text)
{
  const char *path = tu_at(dir, name);
  tu_write_file(path, text);
  return path;
}

int tu_exists(const char *path)
{
  struct stat st;
  return stat(path, &st) == 0;
}

int tu_leftovers(const char *dir)
{
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));)
    n += strstr(de->d_name, ".tmp.") != NULL || strstr(de->d_name, ".old.") != NULL ||
         strstr(de->d_name, ".log.") != NULL;
  closedir(d);
  return n;
}

int tu_plot_files(const char *dir)
{
  DIR *d = opendir(dir);
  ck_assert_ptr_nonnull(d);
  int n = 0;
  for (struct dirent *de; (de = readdir(d));) {
    size_t l = strlen(de->d_name);
    n += l > 4 && (strcmp(de->d_name + l - 4, ".png") == 0 || strcmp(de->d_name + l - 4, ".svg") == 0);
  }
  closedir(d);
  return n;
}
