#include "io/jsonfile.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/suggest.h"

int ts_json_load(const char *path, cJSON **out, ts_err *e)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return ts_err_set(e, path, NULL, "cannot open: %s", strerror(errno));
  char *buf = NULL;
  size_t len = 0, cap = 0;
  for (;;) {
    if (len + 4096 + 1 > cap) {
      cap = cap ? cap * 2 : 8192;
      char *nb = realloc(buf, cap);
      if (!nb) {
        free(buf);
        fclose(f);
        return ts_err_set(e, path, NULL, "out of memory reading the file");
      }
      buf = nb;
    }
    size_t got = fread(buf + len, 1, 4096, f);
    len += got;
    if (got < 4096)
      break;
    if ((long)len > TS_MAX_FILE_BYTES) {
      free(buf);
      fclose(f);
      return ts_err_set(e, path, NULL, "file larger than %ld bytes", TS_MAX_FILE_BYTES);
    }
  }
  int bad = ferror(f);
  fclose(f);
  if (bad) {
    free(buf);
    return ts_err_set(e, path, NULL, "read error");
  }
  buf[len] = '\0';
  const char *end = NULL;
  cJSON *root = cJSON_ParseWithLengthOpts(buf, len + 1, &end, 1);
  if (!root) {
    size_t off = end ? (size_t)(end - buf) : 0, line = 1, col = 1;
    for (size_t i = 0; i < off && i < len; i++) {
      if (buf[i] == '\n') {
        line++;
        col = 1;
      } else {
        col++;
      }
    }
    free(buf);
    return ts_err_set(e, path, NULL, "malformed JSON at line %zu, column %zu", line, col);
  }
  free(buf);
  *out = root;
  return 0;
}

size_t ts_jpush_key(ts_jctx *c, const char *key)
{
  size_t old = strlen(c->path);
  snprintf(c->path + old, sizeof c->path - old, "%s%s", old ? "." : "", key);
  return old;
}

size_t ts_jpush_index(ts_jctx *c, int i)
{
  size_t old = strlen(c->path);
  snprintf(c->path + old, sizeof c->path - old, "[%d]", i);
  return old;
}

void ts_jpop(ts_jctx *c, size_t len)
{
  c->path[len] = '\0';
}

int ts_jfail(ts_jctx *c, const char *key, ts_err *e, const char *fmt, ...)
{
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  size_t old = key ? ts_jpush_key(c, key) : strlen(c->path);
  ts_err_set(e, c->file, c->path[0] ? c->path : "(top level)", "%s", what);
  ts_jpop(c, old);
  return -1;
}

static const char *type_name(const cJSON *v)
{
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsBool(v)) return "a boolean";
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsObject(v)) return "an object";
  return "an invalid value";
}

/* Common head of the getters: 1 = present, 0 = absent and optional, -1 = error. */
static int lookup(ts_jctx *c, const cJSON *obj, const char *key, int required, const cJSON **v, ts_err *e)
{
  *v = cJSON_GetObjectItemCaseSensitive(obj, key);
  if (*v)
    return 1;
  return required ? ts_jfail(c, key, e, "missing (required)") : 0;
}

int ts_jget_object(ts_jctx *c, const cJSON *obj, const char *key, int required, const cJSON **out, ts_err *e)
{
  const cJSON *v;
  int r = lookup(c, obj, key, required, &v, e);
  if (r <= 0)
    return r;
  if (!cJSON_IsObject(v))
    return ts_jfail(c, key, e, "expected an object, got %s", type_name(v));
  *out = v;
  return 0;
}

int ts_jget_array(ts_jctx *c, const cJSON *obj, const char *key, int required, const cJSON **out, ts_err *e)
{
  const cJSON *v;
  int r = lookup(c, obj, key, required, &v, e);
  if (r <= 0)
    return r;
  if (!cJSON_IsArray(v))
    return ts_jfail(c, key, e, "expected an array, got %s", type_name(v));
  *out = v;
  return 0;
}

int ts_jget_string(ts_jctx *c, const cJSON *obj, const char *key, int required, const char **out, ts_err *e)
{
  const cJSON *v;
  int r = lookup(c, obj, key, required, &v, e);
  if (r <= 0)
    return r;
  if (!cJSON_IsString(v))
    return ts_jfail(c, key, e, "expected a string, got %s", type_name(v));
  *out = v->valuestring;
  return 0;
}

int ts_jget_bool(ts_jctx *c, const cJSON *obj, const char *key, int required, int *out, ts_err *e)
{
  const cJSON *v;
  int r = lookup(c, obj, key, required, &v, e);
  if (r <= 0)
    return r;
  if (!cJSON_IsBool(v))
    return ts_jfail(c, key, e, "expected true or false, got %s", type_name(v));
  *out = cJSON_IsTrue(v);
  return 0;
}

int ts_jget_number(ts_jctx *c, const cJSON *obj, const char *key, int required, double lo, double hi,
                   double *out, ts_err *e)
{
  const cJSON *v;
  int r = lookup(c, obj, key, required, &v, e);
  if (r <= 0)
    return r;
  if (!cJSON_IsNumber(v))
    return ts_jfail(c, key, e, "expected a number in [%g, %g], got %s", lo, hi, type_name(v));
  double d = v->valuedouble;
  if (!isfinite(d) || d < lo || d > hi)
    return ts_jfail(c, key, e, "expected a number in [%g, %g], got %g", lo, hi, d);
  *out = d;
  return 0;
}

int ts_jget_int(ts_jctx *c, const cJSON *obj, const char *key, int required, long lo, long hi, long *out,
                ts_err *e)
{
  const cJSON *v;
  int r = lookup(c, obj, key, required, &v, e);
  if (r <= 0)
    return r;
  double d = cJSON_IsNumber(v) ? v->valuedouble : NAN;
  if (!cJSON_IsNumber(v) || d != floor(d) || d < (double)lo || d > (double)hi)
    return ts_jfail(c, key, e, "expected an integer in [%ld, %ld], got %s", lo, hi,
                    cJSON_IsNumber(v) ? "a number outside it" : type_name(v));
  *out = (long)d;
  return 0;
}

int ts_jcheck_keys(ts_jctx *c, const cJSON *obj, const char *const *allowed, ts_err *e)
{
  const cJSON *it;
  cJSON_ArrayForEach(it, obj)
  {
    int ok = 0;
    for (size_t i = 0; allowed[i]; i++)
      if (strcmp(allowed[i], it->string) == 0)
        ok = 1;
    if (!ok) {
      char list[400] = "";
      for (size_t i = 0; allowed[i]; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", allowed[i]);
      }
      const char *near = ts_suggest(it->string, allowed);
      if (near)
        return ts_jfail(c, it->string, e, "unknown key; did you mean \"%s\"? (expected one of: %s)", near, list);
      return ts_jfail(c, it->string, e, "unknown key (expected one of: %s)", list);
    }
  }
  return 0;
}

/* Split the next segment of a dotted path: a key or an [index]. */
static int next_segment(const char **p, char *key, size_t keylen, long *index)
{
  const char *s = *p;
  if (*s == '.')
    s++;
  if (*s == '[') {
    char *end;
    *index = strtol(s + 1, &end, 10);
    if (end == s + 1 || *end != ']' || *index < 0)
      return -1;
    *p = end + 1;
    return 1;
  }
  size_t n = strcspn(s, ".[");
  if (n == 0 || n >= keylen)
    return -1;
  memcpy(key, s, n);
  key[n] = '\0';
  *p = s + n;
  return 0;
}

/* Follow path from root. Returns the node, NULL when the path does not exist
 * (or is malformed), or (cJSON *)-1 when all but a missing last key exist
 * (*parent then is its object). */
static cJSON *walk(cJSON *root, const char *path, cJSON **parent, char *lastkey, long *lastindex)
{
  cJSON *node = root;
  const char *p = path;
  *parent = NULL;
  while (*p) {
    char key[256];
    long index = -1;
    int kind = next_segment(&p, key, sizeof key, &index);
    if (kind < 0)
      return NULL;
    *parent = node;
    *lastindex = kind == 1 ? index : -1;
    if (kind == 0)
      snprintf(lastkey, 256, "%s", key);
    cJSON *child = NULL;
    if (kind == 1) {
      if (!cJSON_IsArray(node))
        return NULL;
      child = cJSON_GetArrayItem(node, (int)index);
    } else {
      if (!cJSON_IsObject(node))
        return NULL;
      child = cJSON_GetObjectItemCaseSensitive(node, key);
    }
    if (!child)
      return *p ? NULL : (cJSON *)-1; /* last segment missing: caller may add it */
    node = child;
  }
  return node;
}

cJSON *ts_json_get_path(cJSON *root, const char *path)
{
  cJSON *parent;
  char key[256];
  long index;
  cJSON *n = walk(root, path, &parent, key, &index);
  return n == (cJSON *)-1 ? NULL : n;
}

int ts_json_set_path(cJSON *root, const char *file, const char *path, const char *value, ts_err *e)
{
  cJSON *parent;
  char key[256] = "";
  long index = -1;
  if (!*path)
    return ts_err_set(e, file, "--set", "empty path");
  cJSON *node = walk(root, path, &parent, key, &index);
  if (!node || !parent)
    return ts_err_set(e, file, path, "--set: no such place in the model (check names and [indexes])");
  cJSON *v = cJSON_Parse(value);
  if (!v)
    v = cJSON_CreateString(value);
  if (!v)
    return ts_err_set(e, file, path, "--set: out of memory");
  if (node == (cJSON *)-1) {
    if (index >= 0) {
      cJSON_Delete(v);
      return ts_err_set(e, file, path, "--set: array index out of range");
    }
    if (parent == cJSON_GetObjectItemCaseSensitive(root, "params")) {
      cJSON_Delete(v);
      return ts_err_set(e, file, path, "--set: no such parameter in params (a typo?)");
    }
    cJSON_AddItemToObject(parent, key, v);
    return 0;
  }
  if (index >= 0)
    cJSON_ReplaceItemInArray(parent, (int)index, v);
  else
    cJSON_ReplaceItemInObjectCaseSensitive(parent, key, v);
  return 0;
}
