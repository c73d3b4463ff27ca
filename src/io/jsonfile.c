#include "io/jsonfile.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "io/jsonsyntax.h"
#include "io/paths.h"
#include "run/suggest.h"

/* ---- cJSON's memory ---- */

/* cJSON says NULL both for malformed text and when memory runs out. Its
 * allocations go through json_malloc, which notes a failure on the calling
 * thread, so that a parse that fails for memory says so (exit status 1)
 * instead of blaming the text. The flag is thread-local static state, the
 * only kind a cJSON hook can reach (it takes no context); the hooks are set
 * once, before the first parse. */
static _Thread_local int json_nomem;

static void *json_malloc(size_t n)
{
  void *p = malloc(n);
  if (!p)
    json_nomem = 1;
  return p;
}

static void json_hooks(void)
{
  cJSON_Hooks h = {.malloc_fn = json_malloc, .free_fn = free};
  cJSON_InitHooks(&h);
}

static pthread_once_t json_hooks_once = PTHREAD_ONCE_INIT;

/* ---- reading and parsing ---- */

/* Line and column (1-based, in bytes) of byte offset off of text. */
static void position(const char *text, size_t off, size_t *line, size_t *col)
{
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < off; i++) {
    if (text[i] == '\n') {
      ++*line;
      *col = 1;
    } else {
      ++*col;
    }
  }
}

/* The offset of the first byte of s that does not start a well-formed UTF-8
 * sequence (overlong forms, surrogates and code points past U+10FFFF are not),
 * or len when there is none. */
static size_t utf8_invalid_at(const unsigned char *s, size_t len)
{
  size_t i = 0;
  while (i < len) {
    unsigned c = s[i], cp, min;
    size_t n;
    if (c < 0x80) {
      i++;
      continue;
    }
    if (c >= 0xc2 && c <= 0xdf) {
      n = 1, cp = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
      n = 2, cp = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
      n = 3, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (len - i - 1 < n)
      return i;
    for (size_t k = 1; k <= n; k++) {
      if ((s[i + k] & 0xc0) != 0x80)
        return i;
      cp = cp << 6 | (s[i + k] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
      return i;
    i += n + 1;
  }
  return len;
}

/* Duplicate keys. A tree walk in document order, checking each object's
 * members once when it is reached: pairwise for small objects, by sorting
 * (key, then position) for larger ones, so an object of k members costs
 * O(k log k) and the walk O(n log n) at worst. The walk is recursive; its
 * depth is bounded by cJSON's nesting limit. */
#define DUP_PAIRWISE_MAX 8

typedef struct member {
  const char *key;
  size_t index;
  const cJSON *node;
} member;

typedef struct dup_walk {
  ts_jctx c;            /* the path of the object being checked */
  member *scratch;      /* reused for every large object */
  size_t cap;
  const cJSON *first;   /* the duplicate found: first and repeated member */
  const cJSON *again;
} dup_walk;

static int member_cmp(const void *pa, const void *pb)
{
  const member *a = pa, *b = pb;
  int d = strcmp(a->key, b->key);
  return d ? d : (a->index > b->index) - (a->index < b->index);
}

/* Whether obj has a key twice: 1 with w->first, w->again set (the repeat
 * earliest in the object), 0 if not, -1 when out of memory. */
static int dup_in_object(dup_walk *w, const cJSON *obj)
{
  size_t n = 0;
  const cJSON *a, *b;
  for (a = obj->child; a; a = a->next)
    n++;
  if (n <= DUP_PAIRWISE_MAX) {
    for (a = obj->child; a; a = a->next)
      for (b = obj->child; b != a; b = b->next)
        if (strcmp(a->string, b->string) == 0) {
          w->first = b;
          w->again = a;
          return 1;
        }
    return 0;
  }
  if (n > w->cap) {
    member *m = realloc(w->scratch, n * sizeof *m);
    if (!m)
      return -1;
    w->scratch = m;
    w->cap = n;
  }
  size_t i = 0;
  for (a = obj->child; a; a = a->next, i++)
    w->scratch[i] = (member){a->string, i, a};
  qsort(w->scratch, n, sizeof *w->scratch, member_cmp);
  size_t best = n; /* the index in scratch of the earliest repeat */
  for (i = 1; i < n; i++)
    if (strcmp(w->scratch[i].key, w->scratch[i - 1].key) == 0 &&
        (i < 2 || strcmp(w->scratch[i - 1].key, w->scratch[i - 2].key) != 0) && /* second of its key */
        (best == n || w->scratch[i].index < w->scratch[best].index))
      best = i;
  if (best == n)
    return 0;
  w->first = w->scratch[best - 1].node;
  w->again = w->scratch[best].node;
  return 1;
}

/* Walk node's subtree: 1 when a duplicate is found (w->c.path is then its
 * object's path), 0 if none, -1 when out of memory. */
static int dup_walk_node(dup_walk *w, const cJSON *node)
{
  int obj = cJSON_IsObject(node), r;
  if (obj && (r = dup_in_object(w, node)) != 0)
    return r;
  int i = 0;
  for (const cJSON *it = node->child; it; it = it->next, i++) {
    if (!cJSON_IsObject(it) && !cJSON_IsArray(it))
      continue;
    size_t old = obj ? ts_jpush_key(&w->c, it->string) : ts_jpush_index(&w->c, i);
    if ((r = dup_walk_node(w, it)) != 0)
      return r;
    ts_jpop(&w->c, old);
  }
  return 0;
}

/* The 1-based rank of object members first and again among all object
 * members in document order (the order their keys appear in the text). */
static int member_ranks(const cJSON *node, const dup_walk *w, size_t *count, size_t *rf, size_t *ra)
{
  int obj = cJSON_IsObject(node);
  for (const cJSON *it = node->child; it; it = it->next) {
    if (obj) {
      ++*count;
      if (it == w->first)
        *rf = *count;
      if (it == w->again) {
        *ra = *count;
        return 1;
      }
    }
    if ((cJSON_IsObject(it) || cJSON_IsArray(it)) && member_ranks(it, w, count, rf, ra))
      return 1;
  }
  return 0;
}

/* The offsets in text (valid JSON) of the keys of rank rf and ra (rf < ra). */
static void key_offsets(const char *text, size_t len, size_t rf, size_t ra, size_t *of, size_t *oa)
{
  size_t rank = 0;
  for (size_t i = 0; i < len; i++) {
    if (text[i] != '"')
      continue;
    size_t start = i;
    for (i++; i < len && text[i] != '"'; i++)
      if (text[i] == '\\')
        i++;
    size_t j = i + 1;
    while (j < len && (unsigned char)text[j] <= ' ') /* cJSON's whitespace */
      j++;
    if (j < len && text[j] == ':') {
      rank++;
      if (rank == rf)
        *of = start;
      if (rank == ra) {
        *oa = start;
        return;
      }
    }
  }
}

/* Refuse a key given twice in one object. Returns 0 or -1 with e filled. */
static int check_duplicates(const cJSON *root, const char *text, size_t len, const char *file, const char *at,
                            ts_err *e)
{
  dup_walk w = {.c = {.file = file}};
  snprintf(w.c.path, sizeof w.c.path, "%s", at);
  int r = dup_walk_node(&w, root);
  free(w.scratch);
  if (r < 0)
    return ts_err_set(e, file, NULL, "out of memory checking for duplicate keys");
  if (r == 0)
    return 0;
  size_t count = 0, rf = 0, ra = 0, of = 0, oa = 0, lf, cf, la, ca;
  member_ranks(root, &w, &count, &rf, &ra);
  key_offsets(text, len, rf, ra, &of, &oa);
  position(text, of, &lf, &cf);
  position(text, oa, &la, &ca);
  return ts_jfail(&w.c, w.again->string, e,
                  "duplicate key (first at line %zu, column %zu; again at line %zu, column %zu)", lf, cf, la, ca);
}

/* The offset of the first \u0000 escape of text (a NUL in a string: cJSON
 * would end the string there, silently), or len when there is none. Each
 * backslash escapes the character after it, so "\\u0000" is not one. */
static size_t nul_escape_at(const char *text, size_t len)
{
  for (size_t i = 0; i + 1 < len; i++) {
    if (text[i] != '\\')
      continue;
    if (text[i + 1] == 'u' && i + 6 <= len && memcmp(text + i + 2, "0000", 4) == 0)
      return i;
    i++; /* the escaped character */
  }
  return len;
}

int ts_json_parse(const char *text, size_t len, const char *file, cJSON **out, ts_err *e)
{
  size_t line, col;
  const char *nul = memchr(text, '\0', len);
  if (nul) {
    position(text, (size_t)(nul - text), &line, &col);
    return ts_err_set(e, file, NULL, "not a text file: a NUL byte at line %zu, column %zu (expected JSON)", line,
                      col);
  }
  size_t bad = utf8_invalid_at((const unsigned char *)text, len);
  if (bad < len) {
    position(text, bad, &line, &col);
    return ts_err_set(e, file, NULL, "not UTF-8 text: byte 0x%02x at line %zu, column %zu (expected JSON)",
                      (unsigned char)text[bad], line, col);
  }
  size_t esc = nul_escape_at(text, len);
  if (esc < len) {
    position(text, esc, &line, &col);
    return ts_err_set(e, file, NULL, "a \\u0000 escape at line %zu, column %zu: a string may not hold a NUL "
                      "character (it would end there)", line, col);
  }
  size_t blank = ts__json_bom(text, len);
  while (blank < len && (unsigned char)text[blank] <= ' ')
    blank++;
  if (blank == len) {
    position(text, len, &line, &col);
    return ts_err_set(e, file, NULL, "malformed JSON at line %zu, column %zu: the file is %s, expected a JSON value",
                      line, col, len ? "blank" : "empty");
  }
  const char *end = NULL;
  pthread_once(&json_hooks_once, json_hooks);
  json_nomem = 0;
  cJSON *root = cJSON_ParseWithLengthOpts(text, len + 1, &end, 1);
  if (!root && json_nomem)
    return ts_err_set(e, file, NULL, "out of memory parsing the JSON text (%zu bytes; the text was not at fault)",
                      len);
  if (!root) {
    size_t off = end && end >= text && end <= text + len ? (size_t)(end - text) : 0;
    position(text, off, &line, &col);
    if (off < len && (text[off] == '[' || text[off] == '{') && ts__json_depth_at(text, len, off) >= CJSON_NESTING_LIMIT)
      return ts_err_set(e, file, NULL, "arrays and objects nested deeper than %d levels at line %zu, column %zu",
                        CJSON_NESTING_LIMIT, line, col);
    char what[160];
    ts__json_explain(text, len, &off, what, sizeof what);
    position(text, off, &line, &col);
    return ts_err_set(e, file, NULL, "malformed JSON at line %zu, column %zu: %s", line, col, what);
  }
  if (check_duplicates(root, text, len, file, "", e)) {
    cJSON_Delete(root);
    return -1;
  }
  *out = root;
  return 0;
}

/* All of f in a new NUL-terminated buffer (caller frees), its length in
 * *len; hint is the expected size (0: unknown). NULL with *err = EFBIG past
 * TS_MAX_FILE_BYTES, ENOMEM, or the read's errno. */
static char *read_all(FILE *f, size_t hint, size_t *len, int *err)
{
  size_t cap = hint + 8192, n = 0; /* room to meet the end without growing */
  char *buf = malloc(cap);
  *err = ENOMEM;
  while (buf) {
    size_t got = fread(buf + n, 1, cap - n - 1, f);
    n += got;
    if (n > (size_t)TS_MAX_FILE_BYTES || ferror(f)) {
      *err = n > (size_t)TS_MAX_FILE_BYTES ? EFBIG : errno;
      break;
    }
    if (got == 0 || feof(f)) {
      buf[n] = '\0';
      *len = n;
      return buf;
    }
    if (n + 1 == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb)
        break;
      buf = nb;
    }
  }
  free(buf);
  return NULL;
}

int ts_json_load(const char *path, cJSON **out, ts_err *e)
{
  struct stat st;
  if (!*path) /* else the message opens ": cannot open" */
    return ts_err_set(e, "\"\"", NULL, "expected the name of a JSON file, got an empty path");
  if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
    return ts_err_set(e, path, NULL, "is a directory, expected a JSON file");
  FILE *f = fopen(path, "rb");
  if (!f) {
    int err = errno;
    char near[4200];
    if (err == ENOENT && ts_path_near_file(path, near, sizeof near))
      return ts_err_set(e, path, NULL, "cannot open: %s; did you mean \"%s\"?", strerror(err), near);
    return ts_err_set(e, path, NULL, "cannot open: %s", strerror(err));
  }
  size_t hint = 0, len;
  int err = 0;
  if (fstat(fileno(f), &st) == 0) {
    if (S_ISDIR(st.st_mode))
      err = EISDIR;
    else if (S_ISREG(st.st_mode) && st.st_size > TS_MAX_FILE_BYTES)
      err = EFBIG;
    else if (S_ISREG(st.st_mode))
      hint = (size_t)st.st_size;
  }
  char *buf = err ? NULL : read_all(f, hint, &len, &err);
  fclose(f);
  if (!buf) {
    if (err == EISDIR)
      return ts_err_set(e, path, NULL, "is a directory, expected a JSON file");
    if (err == EFBIG)
      return ts_err_set(e, path, NULL, "file larger than %ld bytes", TS_MAX_FILE_BYTES);
    if (err == ENOMEM)
      return ts_err_set(e, path, NULL, "out of memory reading the file");
    return ts_err_set(e, path, NULL, "read error: %s", strerror(err));
  }
  int rc = ts_json_parse(buf, len, path, out, e);
  free(buf);
  return rc;
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

const char *ts_json_type_name(const cJSON *v)
{
  if (cJSON_IsNumber(v)) return "a number";
  if (cJSON_IsString(v)) return "a string";
  if (cJSON_IsBool(v)) return "a boolean";
  if (cJSON_IsNull(v)) return "null";
  if (cJSON_IsArray(v)) return "an array";
  if (cJSON_IsObject(v)) return "an object";
  return "an invalid value";
}

int ts_jfail_got(ts_jctx *c, const char *key, const cJSON *v, ts_err *e, const char *fmt, ...)
{
  char what[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  return ts_jfail(c, key, e, "%s, got %s", what, ts_json_type_name(v));
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
    return ts_jfail_got(c, key, v, e, "expected an object");
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
    return ts_jfail_got(c, key, v, e, "expected an array");
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
    return ts_jfail_got(c, key, v, e, "expected a string");
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
    return ts_jfail_got(c, key, v, e, "expected true or false");
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
    return ts_jfail_got(c, key, v, e, "expected a number in [%g, %g]", lo, hi);
  double d = v->valuedouble;
  if (!isfinite(d) || d < lo || d > hi)
    return ts_jfail(c, key, e, "expected a number in [%g, %g], got %s", lo, hi, TS_JNUM(d));
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
  if (cJSON_IsNumber(v) && isfinite(d) && d != floor(d))
    return ts_jfail(c, key, e, "expected an integer in [%ld, %ld], got %s", lo, hi, TS_JNUM(d));
  if (!cJSON_IsNumber(v))
    return ts_jfail_got(c, key, v, e, "expected an integer in [%ld, %ld]", lo, hi);
  if (!isfinite(d))
    return ts_jfail(c, key, e, "expected an integer in [%ld, %ld], got a number outside it", lo, hi);
  if (d < (double)lo || d > (double)hi)
    return ts_jfail(c, key, e, "expected an integer in [%ld, %ld], got %.15g", lo, hi, d);
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

/* Split the next segment of a dotted path: a key or an [index]; -1 when
 * malformed (an index that is not a whole number, an empty or too long key,
 * a key right after ']' without its '.': classes[0]x). */
static int next_segment(const char **p, char *key, size_t keylen, long *index)
{
  const char *s = *p;
  if (*s == '.')
    s++;
  if (*s == '[') {
    char *end;
    *index = strtol(s + 1, &end, 10);
    if (end == s + 1 || *end != ']' || *index < 0 || (end[1] && end[1] != '.' && end[1] != '['))
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

/* The child a path segment names (kind 1: array item index, else the
 * object's key), NULL when node is not of that kind or has no such child. */
static cJSON *child_of(cJSON *node, int kind, const char *key, long index)
{
  if (kind == 1)
    return cJSON_IsArray(node) ? cJSON_GetArrayItem(node, (int)index) : NULL;
  return cJSON_IsObject(node) ? cJSON_GetObjectItemCaseSensitive(node, key) : NULL;
}

int ts_json_path_check(const char *file, const char *where, const char *path, ts_err *e)
{
  const char *p = path;
  while (*p) {
    char key[256];
    long index;
    if (next_segment(&p, key, sizeof key, &index) < 0)
      return ts_err_set(e, file, where, "%s: expected a path of keys joined by '.' and [indexes] of whole numbers, "
                        "as classes[0].count (a key follows ']' after a '.')", path);
  }
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
    if (kind == 1 ? !cJSON_IsArray(node) : !cJSON_IsObject(node))
      return NULL;
    cJSON *child = child_of(node, kind, key, index);
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

/* Walk path's segments but the last; where a key is missing from an object
 * and another key follows, add it as an empty object when `make` (a field
 * left at its default whose object was left out too). Returns 1 when every
 * segment but the last exists (or was made), else 0. */
static int parents(cJSON *root, const char *path, int make)
{
  cJSON *node = root;
  const char *p = path;
  while (*p) {
    char key[256];
    long index = -1;
    int kind = next_segment(&p, key, sizeof key, &index);
    if (kind < 0)
      return 0;
    if (!*p)
      return 1; /* the last segment: its parent exists */
    cJSON *child = child_of(node, kind, key, index);
    if (!child && kind == 0 && cJSON_IsObject(node) && *p == '.' && node != cJSON_GetObjectItemCaseSensitive(root, "params")) {
      if (!make)
        return 1; /* the rest would be made */
      child = cJSON_CreateObject();
      if (!child || !cJSON_AddItemToObject(node, key, child)) {
        cJSON_Delete(child);
        return 0;
      }
    }
    if (!child)
      return 0;
    node = child;
  }
  return 1;
}

int ts_json_path_settable(cJSON *root, const char *path)
{
  cJSON *parent;
  char key[256];
  long index = -1;
  cJSON *n = walk(root, path, &parent, key, &index);
  if (n && n != (cJSON *)-1)
    return parent != NULL;
  if (n == (cJSON *)-1)
    return index < 0 && parent != cJSON_GetObjectItemCaseSensitive(root, "params");
  return parents(root, path, 0);
}

int ts_json_set_path(cJSON *root, const char *file, const char *path, const char *value, ts_err *e)
{
  cJSON *parent;
  char key[256] = "";
  long index = -1;
  if (!*path)
    return ts_err_set(e, file, "--set", "empty path");
  if (ts_json_path_check(file, NULL, path, e))
    return -1;
  cJSON *node = walk(root, path, &parent, key, &index);
  if (!node && parents(root, path, 0) && parents(root, path, 1)) /* objects left out on the way: made */
    node = walk(root, path, &parent, key, &index);
  if (!node || !parent)
    return ts_err_set(e, file, path, "no such place in the model (check names and [indexes])");
  /* The value is JSON when all of it is ("2 * 3" is the string, not 2);
   * one that opens an object, array or string must close it. */
  const char *end = NULL;
  cJSON *v = cJSON_ParseWithOpts(value, &end, 1);
  size_t esc = nul_escape_at(value, strlen(value)); /* (only JSON has escapes: other values are taken as text) */
  if (v && value[esc]) {
    cJSON_Delete(v);
    return ts_err_set(e, file, path, "a \\u0000 escape at column %zu: a string may not hold a NUL character "
                      "(it would end there)", esc + 1);
  }
  if (v && check_duplicates(v, value, strlen(value), file, path, e)) {
    cJSON_Delete(v);
    return -1;
  }
  size_t lead = strspn(value, " \t\r\n");
  if (!v && strchr("{[\"", value[lead]) && value[lead]) {
    size_t col = end && end >= value ? (size_t)(end - value) + 1 : 1;
    return ts_err_set(e, file, path, "not valid JSON at column %zu (a value that opens with %c must be "
                      "JSON; other values that are not JSON are taken as strings)", col, value[lead]);
  }
  if (!v)
    v = cJSON_CreateString(value);
  if (!v)
    return ts_err_set(e, file, path, "out of memory");
  if (node == (cJSON *)-1) {
    if (index >= 0 && index == cJSON_GetArraySize(parent)) {
      cJSON_AddItemToArray(parent, v); /* one past the end: append */
      return 0;
    }
    if (index >= 0) {
      cJSON_Delete(v);
      return ts_err_set(e, file, path, "array index out of range (an index one past the end appends)");
    }
    if (parent == cJSON_GetObjectItemCaseSensitive(root, "params")) {
      cJSON_Delete(v);
      const char *near = ts_json_near_member(parent, key);
      if (near)
        return ts_err_set(e, file, path, "no such parameter in params; did you mean \"%s\"?", near);
      return ts_err_set(e, file, path, "no such parameter in params (a typo?)");
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

const char *ts_json_near_key(const cJSON *tree, const char *path, char *parent, size_t cap)
{
  const char *dot = strrchr(path, '.');
  parent[0] = '\0';
  if (!dot || strchr(dot, '[') || (size_t)(dot - path) >= cap)
    return NULL;
  snprintf(parent, cap, "%.*s", (int)(dot - path), path);
  return ts_json_near_member(ts_json_get_path((cJSON *)tree, parent), dot + 1);
}

const char *ts_json_near_member(const cJSON *obj, const char *name)
{
  if (!cJSON_IsObject(obj))
    return NULL;
  const char *names[257];
  size_t n = 0;
  for (const cJSON *c = obj->child; c && n < 256; c = c->next)
    names[n++] = c->string;
  names[n] = NULL;
  return ts_suggest(name, names);
}
