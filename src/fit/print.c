#include "fit/print.h"

#include <stdlib.h>
#include <string.h>

#define WIDTH 120

typedef struct buf {
  char *s;
  size_t len;
  size_t cap;
  int failed;
} buf;

static void put(buf *b, const char *s, size_t n)
{
  if (b->failed)
    return;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 1024;
    while (b->len + n + 1 > cap)
      cap *= 2;
    char *ns = realloc(b->s, cap);
    if (!ns) {
      b->failed = 1;
      return;
    }
    b->s = ns;
    b->cap = cap;
  }
  memcpy(b->s + b->len, s, n);
  b->len += n;
  b->s[b->len] = '\0';
}

static void puts_(buf *b, const char *s)
{
  put(b, s, strlen(s));
}

static void indent(buf *b, int depth)
{
  for (int i = 0; i < depth; i++)
    put(b, "  ", 2);
}

/* A scalar, or a key, as cJSON writes it. */
static void scalar(buf *b, const cJSON *v)
{
  char *t = cJSON_PrintUnformatted(v);
  if (!t) {
    b->failed = 1;
    return;
  }
  puts_(b, t);
  free(t);
}

static void key(buf *b, const char *k)
{
  cJSON *s = cJSON_CreateString(k);
  if (!s) {
    b->failed = 1;
    return;
  }
  scalar(b, s);
  cJSON_Delete(s);
  put(b, ": ", 2);
}

/* Print v on one line. */
static void inline_value(buf *b, const cJSON *v)
{
  if (!cJSON_IsArray(v) && !cJSON_IsObject(v)) {
    scalar(b, v);
    return;
  }
  int obj = cJSON_IsObject(v);
  put(b, obj ? "{" : "[", 1);
  for (const cJSON *c = v->child; c; c = c->next) {
    if (obj)
      key(b, c->string);
    inline_value(b, c);
    if (c->next)
      put(b, ", ", 2);
  }
  put(b, obj ? "}" : "]", 1);
}

/* Length of v on one line, or WIDTH + 1 when longer than WIDTH. */
static size_t inline_len(const cJSON *v)
{
  buf t = {0};
  inline_value(&t, v);
  size_t n = t.failed ? WIDTH + 1 : t.len;
  free(t.s);
  return n;
}

static void value(buf *b, const cJSON *v, int depth, size_t used)
{
  int container = cJSON_IsArray(v) || cJSON_IsObject(v);
  if (!container || !v->child || used + inline_len(v) <= WIDTH) {
    inline_value(b, v);
    return;
  }
  int obj = cJSON_IsObject(v);
  put(b, obj ? "{\n" : "[\n", 2);
  for (const cJSON *c = v->child; c; c = c->next) {
    size_t start = b->len;
    indent(b, depth + 1);
    if (obj)
      key(b, c->string);
    value(b, c, depth + 1, b->len - start + 1);
    puts_(b, c->next ? ",\n" : "\n");
  }
  indent(b, depth);
  put(b, obj ? "}" : "]", 1);
}

char *ts_fit_json_print(const cJSON *root)
{
  buf b = {0};
  value(&b, root, 0, 0);
  put(&b, "\n", 1);
  if (b.failed) {
    free(b.s);
    return NULL;
  }
  return b.s;
}
