/* realpath is an XSI function */
#define _XOPEN_SOURCE 700

#include "io/paths.h"

#include <cjson/cJSON.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io/scenario_json.h"
#include "run/suggest.h"

const char *const ts_model_path_fields[] = {
    "host.cpu_scale_by_n.baseline", /* io/host_json.c scale_from_baseline */
    NULL,
};

/* The folder of file, resolved with realpath (a new string), or NULL. */
static char *real_folder(const char *file)
{
  const char *slash = strrchr(file, '/');
  if (!slash)
    return realpath(".", NULL);
  if (slash == file)
    return realpath("/", NULL);
  char *dir = strndup(file, (size_t)(slash - file));
  char *real = dir ? realpath(dir, NULL) : NULL;
  free(dir);
  return real;
}

/* "dir/name" in a new string. */
static char *join(const char *dir, const char *name)
{
  size_t len = strlen(dir) + strlen(name) + 2;
  char *s = malloc(len);
  if (s)
    snprintf(s, len, "%s%s%s", dir, strcmp(dir, "/") == 0 ? "" : "/", name);
  return s;
}

/* Absolute file `target` as a file in absolute folder `from` names it: the
 * rest of target when it lies under from, else target itself. No "../"
 * part is ever written: the loader joins a relative path to the folder as
 * the model file was named (ts_path_relative_to), which a "../" through a
 * symlinked folder would leave at another place than realpath's. */
static char *from_folder(const char *from, const char *target)
{
  size_t l = strlen(from);
  if (strcmp(from, "/") != 0 && strncmp(target, from, l) == 0 && target[l] == '/')
    return strdup(target + l + 1);
  return strdup(target);
}

char *ts_path_rebase(const char *from_file, const char *rel, const char *to_file)
{
  if (rel[0] == '/')
    return strdup(rel);
  char *from = real_folder(from_file), *to = real_folder(to_file);
  if (from && to && strcmp(from, to) == 0) {
    free(from);
    free(to);
    return strdup(rel);
  }
  free(from);
  char *joined = ts_path_relative_to(from_file, rel), *target = NULL, *out = NULL;
  if (!joined) {
    free(to);
    return NULL;
  }
  /* target: the file's absolute path (its folder resolved, its name kept) */
  char *tdir = real_folder(joined);
  const char *slash = strrchr(joined, '/'), *name = slash ? slash + 1 : joined;
  if (tdir)
    target = join(tdir, name);
  else if (joined[0] == '/')
    target = strdup(joined);
  else {
    char cwd[PATH_MAX];
    target = getcwd(cwd, sizeof cwd) ? join(cwd, joined) : strdup(joined);
  }
  if (target)
    out = to && target[0] == '/' ? from_folder(to, target) : strdup(target);
  free(tdir);
  free(joined);
  free(target);
  free(to);
  return out;
}

int ts_model_rebase_paths(cJSON *model, const char *from_file, const char *to_file, ts_err *e)
{
  for (const char *const *f = ts_model_path_fields; *f; f++) {
    cJSON *node = model;
    char key[128];
    for (const char *p = *f; node && *p;) {
      size_t l = strcspn(p, ".");
      snprintf(key, sizeof key, "%.*s", (int)l, p);
      node = cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, key) : NULL;
      p += l + (p[l] == '.');
    }
    if (!cJSON_IsString(node))
      continue; /* absent, or not a path (the loader said so when it read it) */
    char *moved = ts_path_rebase(from_file, node->valuestring, to_file);
    if (!moved || !cJSON_SetValuestring(node, moved)) {
      free(moved);
      return ts_err_set(e, to_file, *f, "out of memory");
    }
    free(moved);
  }
  return 0;
}

/* qsort order of two strdup'ed names */
static int by_name(const void *a, const void *b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

const char *ts_path_near_file(const char *path, char *buf, size_t cap)
{
  const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
  char dir[PATH_MAX];
  int dlen = slash ? (int)(slash - path) : 0;
  if (snprintf(dir, sizeof dir, "%.*s", dlen, slash == path ? "/" : path) >= (int)sizeof dir)
    return NULL;
  DIR *d = opendir(slash ? (dlen ? dir : "/") : ".");
  if (!d)
    return NULL;
  /* names are compared without their extension, among the files of the
   * same one: ".json" would otherwise make "nope.json" near "bom.json" */
  const char *dot = strrchr(base, '.'), *ext = dot && dot != base ? dot : base + strlen(base);
  size_t stem = (size_t)(ext - base), extlen = strlen(ext);
  enum { MAX_NAMES = 4096 };
  char **names = calloc(MAX_NAMES + 1, sizeof *names);
  char word[NAME_MAX + 1];
  snprintf(word, sizeof word, "%.*s", (int)stem, base);
  int n = 0;
  for (struct dirent *de; names && n < MAX_NAMES && (de = readdir(d)) != NULL;) {
    const char *name = de->d_name, *their = strrchr(name, '.');
    if (!their || their == name)
      their = name + strlen(name);
    if (name[0] != '.' && strcmp(their, ext) == 0 && (names[n] = strndup(name, (size_t)(their - name))) != NULL)
      n++;
  }
  closedir(d);
  if (names) /* readdir's order is the file system's: ties go to the first by name, on any machine */
    qsort(names, (size_t)n, sizeof *names, by_name);
  const char *near = names ? ts_suggest(word, (const char *const *)names) : NULL;
  const char *out =
      near && snprintf(buf, cap, "%.*s%s%.*s", (int)(base - path), path, near, (int)extlen, ext) < (int)cap ? buf
                                                                                                             : NULL;
  for (int i = 0; i < n; i++)
    free(names[i]);
  free(names);
  return out;
}
