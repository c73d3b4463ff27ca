#include "io/jsonsyntax.h"

#include <stdio.h>
#include <string.h>

/* The lexical state just before a byte: inside a string or not, the
 * innermost open bracket, and the last byte that is not blank or in a
 * string (a closing quote counts, as '"'). */
typedef struct lex {
  int in_string;
  size_t string_at;  /* the opening quote of the string being read or last read */
  int string_is_key; /* that string was opened where an object expects a key */
  char open;         /* '{', '[' or 0 at the top level */
  size_t depth;      /* open arrays and objects */
  char prev;         /* 0 at the start */
} lex;

static int blank(char ch)
{
  return (unsigned char)ch <= ' '; /* cJSON's whitespace */
}

/* (jsonsyntax.h; cJSON's skip_utf8_bom skips it only in a text of at least 4 bytes) */
size_t ts__json_bom(const char *text, size_t len)
{
  return len >= 4 && memcmp(text, "\xEF\xBB\xBF", 3) == 0 ? 3 : 0;
}

/* Whether the string whose opening quote is at text[open] has its closing
 * quote before len (cJSON refuses a string without one at its opening). */
static int string_closes(const char *text, size_t len, size_t open)
{
  for (size_t i = open + 1; i < len; i++) {
    if (text[i] == '\\')
      i++;
    else if (text[i] == '"')
      return 1;
  }
  return 0;
}

/* The state before byte upto. The kinds of the open brackets are kept up to
 * a depth of 1024 (cJSON refuses more than CJSON_NESTING_LIMIT, 1000, so
 * text it parsed that far is never deeper); past it the innermost kind is a
 * guess. */
static lex lex_at(const char *text, size_t len, size_t upto)
{
  lex s = {0};
  char stack[1024];
  size_t depth = 0;
  for (size_t i = ts__json_bom(text, len); i < upto; i++) {
    char ch = text[i];
    if (s.in_string) {
      if (ch == '\\')
        i++;
      else if (ch == '"')
        s.in_string = 0, s.prev = '"';
      continue;
    }
    if (blank(ch))
      continue;
    if (ch == '"') {
      s.in_string = 1;
      s.string_at = i;
      s.string_is_key = s.open == '{' && (s.prev == '{' || s.prev == ',');
    } else if (ch == '{' || ch == '[') {
      if (depth < sizeof stack)
        stack[depth] = ch;
      depth++;
      s.open = ch;
    } else if ((ch == '}' || ch == ']') && depth > 0) {
      depth--;
      s.open = depth == 0 ? 0 : depth <= sizeof stack ? stack[depth - 1] : s.open;
    }
    if (ch != '"')
      s.prev = ch;
  }
  s.depth = depth;
  return s;
}

size_t ts__json_depth_at(const char *text, size_t len, size_t off)
{
  return lex_at(text, len, off).depth;
}

/* "'tru'", "'}'" or "a non-ASCII character": the token at text[off]. */
static void token(const char *text, size_t len, size_t off, char *out, size_t cap)
{
  size_t n = strspn(text + off, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.+-");
  if (off + n > len)
    n = len - off;
  if ((unsigned char)text[off] >= 0x80)
    snprintf(out, cap, "a non-ASCII character");
  else if (text[off] == '\'')
    snprintf(out, cap, "a single quote (JSON strings take double quotes)");
  else
    snprintf(out, cap, "'%.*s'", n ? (int)(n > 20 ? 20 : n) : 1, text + off);
}

void ts__json_explain(const char *text, size_t len, size_t *off, char *what, size_t cap)
{
  size_t at = *off;
  lex s = lex_at(text, len, at);
  if (s.in_string) {
    if (at < len && text[at] == '\\' && string_closes(text, len, s.string_at)) {
      if (at + 1 < len && text[at + 1] == 'u')
        snprintf(what, cap, "bad \\u escape in a string (expected \\u and four hex digits; a surrogate in a pair)");
      else
        snprintf(what, cap, "bad escape in a string (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)");
    } else {
      *off = s.string_at;
      snprintf(what, cap, "unterminated string (no closing '\"' before the end of the text)");
    }
    return;
  }
  /* cJSON reports a key that does not start with '"' one byte past it. */
  if (at > ts__json_bom(text, len) && !blank(text[at - 1]) && text[at - 1] != '"') {
    lex b = lex_at(text, len, at - 1);
    /* (a '}' right after '{' closed an empty object: no key was refused there) */
    if (!b.in_string && b.open == '{' && (b.prev == ',' || (b.prev == '{' && text[at - 1] != '}'))) {
      s = b;
      *off = at = at - 1;
    }
  }
  char found[80];
  const char *expected;
  int end = at >= len;
  if (!end)
    token(text, len, at, found, sizeof found);
  int closer = !end && ((text[at] == '}' && s.open == '{') || (text[at] == ']' && s.open == '['));
  if (s.open == '{' && (s.prev == '{' || s.prev == ',')) {
    expected = s.prev == '{' ? "a key (a string in double quotes) or '}'" : "a key (a string in double quotes)";
  } else if (s.prev == ':' || s.prev == ',' || s.prev == '[' || s.prev == 0) {
    expected = "a value";
  } else if (s.prev == '"' && s.string_is_key) {
    expected = "':'";
  } else if (s.open == '{') {
    expected = "',' or '}'";
  } else if (s.open == '[') {
    expected = "',' or ']'";
  } else {
    if (end) /* not reached: cJSON accepts a whole value */
      snprintf(what, cap, "the text ends early");
    else
      snprintf(what, cap, "found %s after the end of the JSON value (expected nothing more)", found);
    return;
  }
  if (end)
    snprintf(what, cap, "the text ends where %s was expected", expected);
  else if (closer && s.prev == ',')
    snprintf(what, cap, "trailing comma before '%c'", text[at]);
  else
    snprintf(what, cap, "found %s where %s was expected", found, expected);
}
