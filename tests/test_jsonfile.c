/* The typed-getter layer every loader reads through (src/io/jsonfile.c) and
 * the name suggestions (src/io/suggest.c): what ts_json_parse refuses and the
 * one-line message it gives (duplicate keys with their path and positions,
 * NUL bytes, non-UTF-8 text, blank text, nesting), files that are folders or
 * too large, the linear array walk, and the edit distance. */
#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/jsonfile.h"
#include "run/suggest.h"

#include "testutil.h"

/* Parse text (NUL-terminated) as file "t.json"; the tree is freed. */
static int parse(const char *text, ts_err *e)
{
  cJSON *root = NULL;
  int rc = ts_json_parse(text, strlen(text), "t.json", &root, e);
  cJSON_Delete(root);
  return rc;
}

/* text is refused with exactly message want. */
static void expect_refused(const char *text, const char *want)
{
  ts_err e;
  ck_assert_msg(parse(text, &e) == -1, "accepted: %s", text);
  ck_assert_str_eq(e.msg, want);
}

/* ---- duplicate keys ---- */

START_TEST(jsonfile_duplicate_key_names_path_and_both_positions)
{
  expect_refused("{\"worker\": {\"threshold_ms\": 10,\n  \"threshold_ms\": 500}}",
                 "t.json: worker.threshold_ms: duplicate key (first at line 1, column 13; again at line 2, column 3)");
  expect_refused("{\"name\": \"a\", \"name\": \"b\"}",
                 "t.json: name: duplicate key (first at line 1, column 2; again at line 1, column 15)");
  expect_refused("{\"classes\": [{\"program\": [{}, {\"op\": \"cpu\", \"ms\": 1, \"op\": \"io\"}]}]}",
                 "t.json: classes[0].program[1].op: duplicate key (first at line 1, column 32; again at line 1, column "
                 "54)");
}
END_TEST

START_TEST(jsonfile_duplicate_key_in_large_object_uses_the_earliest_repeat)
{
  /* 200 keys k0..k199, then k150 and k20 again: the sorted check reports k150,
   * whose repeat comes first in the object */
  size_t cap = 200 * 16 + 64, len = 0;
  char *text = malloc(cap);
  ck_assert_ptr_nonnull(text);
  len += (size_t)snprintf(text + len, cap - len, "{\"params\": {");
  for (int i = 0; i < 200; i++)
    len += (size_t)snprintf(text + len, cap - len, "\"k%d\": %d, ", i, i);
  snprintf(text + len, cap - len, "\"k150\": 0, \"k20\": 0}}");
  ts_err e;
  ck_assert_int_eq(parse(text, &e), -1);
  ck_assert_msg(strncmp(e.msg, "t.json: params.k150: duplicate key (first at line 1, column ", 60) == 0, "%s", e.msg);
  free(text);
}
END_TEST

START_TEST(jsonfile_keys_differing_in_case_or_in_other_objects_are_not_duplicates)
{
  ts_err e;
  ck_assert_msg(parse("{\"a\": {\"x\": 1}, \"b\": {\"x\": 2}, \"c\": [{\"x\": 1}, {\"x\": 2}], \"X\": 1, \"x\": 2}", &e) == 0,
                "%s", e.msg);
}
END_TEST

START_TEST(jsonfile_duplicate_in_set_value_names_the_override_path)
{
  cJSON *root = cJSON_Parse("{\"params\": {}}");
  ts_err e;
  ck_assert_int_eq(ts_json_set_path(root, "m.json", "params", "{\"c\": 1, \"c\": 2}", &e), -1);
  ck_assert_str_eq(e.msg, "m.json: params.c: duplicate key (first at line 1, column 2; again at line 1, column 10)");
  cJSON_Delete(root);
}
END_TEST

/* ---- text that is not JSON ---- */

START_TEST(jsonfile_refuses_nul_bytes_non_utf8_and_blank_text)
{
  ts_err e;
  cJSON *root;
  static const char with_nul[] = "{\"a\": 1}\0{\"b\": 2}";
  ck_assert_int_eq(ts_json_parse(with_nul, sizeof with_nul - 1, "t.json", &root, &e), -1);
  ck_assert_str_eq(e.msg, "t.json: not a text file: a NUL byte at line 1, column 9 (expected JSON)");
  expect_refused("{\"name\": \"caf\xe9\"}", "t.json: not UTF-8 text: byte 0xe9 at line 1, column 14 (expected JSON)");
  expect_refused("{\"a\": \"\xc0\xaf\"}", "t.json: not UTF-8 text: byte 0xc0 at line 1, column 8 (expected JSON)");
  expect_refused("{\"a\": \"\xed\xa0\x80\"}", "t.json: not UTF-8 text: byte 0xed at line 1, column 8 (expected JSON)");
  expect_refused("{\"a\": \"\xf4\x90\x80\x80\"}", "t.json: not UTF-8 text: byte 0xf4 at line 1, column 8 (expected JSON)");
  expect_refused("{\"a\": \"\xe2\x82\"}", "t.json: not UTF-8 text: byte 0xe2 at line 1, column 8 (expected JSON)");
  expect_refused("", "t.json: malformed JSON at line 1, column 1: the file is empty, expected a JSON value");
  expect_refused(" \n\t", "t.json: malformed JSON at line 2, column 2: the file is blank, expected a JSON value");
  ck_assert_msg(parse("{\"name\": \"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"}", &e) == 0, "%s", e.msg);
  /* a NUL by escape: cJSON would cut the string there ("x\u0000y" read as "x") */
  expect_refused("{\"name\":\n  \"x\\u0000y\"}", "t.json: a \\u0000 escape at line 2, column 5: a string may not "
                 "hold a NUL character (it would end there)");
  ck_assert_msg(parse("{\"name\": \"x\\\\u0000y \\u0001\"}", &e) == 0, "%s", e.msg); /* an escaped backslash, then u0000 */
  cJSON *m = cJSON_CreateObject();
  cJSON_AddItemToObject(m, "name", cJSON_CreateString("a"));
  ck_assert_int_eq(ts_json_set_path(m, "m.json", "name", "\"x\\u0000y\"", &e), -1);
  ck_assert_str_eq(e.msg, "m.json: name: a \\u0000 escape at column 3: a string may not hold a NUL character (it "
                   "would end there)");
  ck_assert_int_eq(ts_json_set_path(m, "m.json", "name", "x\\u0000y", &e), 0); /* not JSON: the text as it is */
  ck_assert_str_eq(cJSON_GetObjectItem(m, "name")->valuestring, "x\\u0000y");
  cJSON_Delete(m);
}
END_TEST

/* n nested arrays: "[[...]]". */
static char *nested(size_t n)
{
  char *t = malloc(2 * n + 1);
  ck_assert_ptr_nonnull(t);
  memset(t, '[', n);
  memset(t + n, ']', n);
  t[2 * n] = '\0';
  return t;
}

START_TEST(jsonfile_nesting_limit_refuses_without_recursing_deeper)
{
  ts_err e;
  char *ok = nested(CJSON_NESTING_LIMIT), *deep = nested(CJSON_NESTING_LIMIT + 1), *huge = nested(100000);
  ck_assert_msg(parse(ok, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(parse(deep, &e), -1);
  ck_assert_str_eq(e.msg, "t.json: arrays and objects nested deeper than 1000 levels at line 1, column 1001");
  ck_assert_int_eq(parse(huge, &e), -1);
  ck_assert_str_eq(e.msg, "t.json: arrays and objects nested deeper than 1000 levels at line 1, column 1001");
  free(ok);
  free(deep);
  free(huge);
}
END_TEST

START_TEST(jsonfile_malformed_json_keeps_line_and_column)
{
  expect_refused("{\"a\": 1,\n \"b\": }", "t.json: malformed JSON at line 2, column 7: found '}' where a value was expected");
  expect_refused("{\"a\": 1} x",
                 "t.json: malformed JSON at line 1, column 10: found 'x' after the end of the JSON value (expected nothing more)");
}
END_TEST

/* What is at the position and what was expected there, from the text
 * (ts__json_explain); a key that is not a string is placed on its first byte,
 * not one past it as cJSON reports it, and an unterminated string on its
 * opening quote. */
START_TEST(jsonfile_malformed_json_says_what_was_found_and_expected)
{
  static const struct {
    const char *text, *want;
  } cases[] = {
    {"{\"name\": \"x\", \"actors\": [ }", "line 1, column 27: found '}' where a value was expected"},
    {"{\"a\": 1,}", "line 1, column 9: trailing comma before '}'"},
    {"[1, 2,\n]", "line 2, column 1: trailing comma before ']'"},
    {"{name: 1}", "line 1, column 2: found 'name' where a key (a string in double quotes) or '}' was expected"},
    {"{\"a\": 1, b: 2}", "line 1, column 10: found 'b' where a key (a string in double quotes) was expected"},
    {"{'a': 1}", "line 1, column 2: found a single quote (JSON strings take double quotes) where a key (a string in "
                 "double quotes) or '}' was expected"},
    {"{\"a\" 1}", "line 1, column 6: found '1' where ':' was expected"},
    {"{\"a\": tru}", "line 1, column 7: found 'tru' where a value was expected"},
    {"{\"a\": [1 2]}", "line 1, column 10: found '2' where ',' or ']' was expected"},
    {"{\"a\": 1 \"b\": 2}", "line 1, column 9: found '\"' where ',' or '}' was expected"},
    {"{\"a\": {\"b\": 1]}", "line 1, column 14: found ']' where ',' or '}' was expected"},
    {"{\"a\": \"abc}", "line 1, column 7: unterminated string (no closing '\"' before the end of the text)"},
    {"{\"a\": \"x\\qy\"}", "line 1, column 9: bad escape in a string (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)"},
    {"{\"a\": \"\\u12\"}", "line 1, column 8: bad \\u escape in a string (expected \\u and four hex digits; a surrogate in a pair)"},
    {"{\"a\": [1,", "line 1, column 10: the text ends where a value was expected"},
    {"{\"a\": 1", "line 1, column 8: the text ends where ',' or '}' was expected"},
    /* after a read-only review: an empty object is not a refused key; an
     * unterminated string that starts with an escape is unterminated; a BOM
     * is skipped as cJSON skips it; a closer that does not match is no
     * trailing comma */
    {"{\"k\":{}\"b\":1}", "line 1, column 8: found '\"' where ',' or '}' was expected"},
    {"{\"a\": \"\\nabc", "line 1, column 7: unterminated string (no closing '\"' before the end of the text)"},
    {"{\"a\": \"\\u0041", "line 1, column 7: unterminated string (no closing '\"' before the end of the text)"},
    {"\xEF\xBB\xBF tru", "line 1, column 5: found 'tru' where a value was expected"},
    {"\xEF\xBB\xBF  \n ", "line 2, column 2: the file is blank, expected a JSON value"},
    {"[1,}", "line 1, column 4: found '}' where a value was expected"},
  };
  char want[256];
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    snprintf(want, sizeof want, "t.json: malformed JSON at %s", cases[i].want);
    expect_refused(cases[i].text, want);
  }
  /* an error at the nesting limit that is not a deeper bracket is not "nested deeper" */
  char deep[1002];
  memset(deep, '[', 1000);
  memcpy(deep + 1000, "x", 2);
  expect_refused(deep, "t.json: malformed JSON at line 1, column 1001: found 'x' where a value was expected");
}
END_TEST

/* ---- files ---- */

static char dir[PATH_MAX];

static void make_dir(void)
{
  tu_mkdtemp(dir, sizeof dir, "jsonfile");
}

static void remove_dir(void)
{
  tu_rmtree(dir);
}

START_TEST(jsonfile_load_refuses_folders_and_files_over_the_limit)
{
  char path[PATH_MAX + 16], want[PATH_MAX + 128];
  ts_err e;
  cJSON *root;
  ck_assert_int_eq(ts_json_load(dir, &root, &e), -1);
  snprintf(want, sizeof want, "%s: is a directory, expected a JSON file", dir);
  ck_assert_str_eq(e.msg, want);

  snprintf(path, sizeof path, "%s/big.json", dir); /* sparse: no disk space, no read */
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(ftruncate(fd, TS_MAX_FILE_BYTES + 1), 0);
  close(fd);
  ck_assert_int_eq(ts_json_load(path, &root, &e), -1);
  snprintf(want, sizeof want, "%s: file larger than %ld bytes", path, TS_MAX_FILE_BYTES);
  ck_assert_str_eq(e.msg, want);

  snprintf(path, sizeof path, "%s/ok.json", dir);
  tu_write_file(path, "{\"a\": [1, 2, 3]}");
  ck_assert_msg(ts_json_load(path, &root, &e) == 0, "%s", e.msg);
  ck_assert_int_eq(cJSON_GetArraySize(cJSON_GetObjectItem(root, "a")), 3);
  cJSON_Delete(root);

  snprintf(path, sizeof path, "%s/loop.json", dir);
  ck_assert_int_eq(symlink("loop.json", path), 0);
  ck_assert_int_eq(ts_json_load(path, &root, &e), -1);
  snprintf(want, sizeof want, "%s: cannot open: ", path);
  ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0, "%s", e.msg);
}
END_TEST

/* ---- arrays ---- */

START_TEST(jsonfile_array_each_visits_items_in_order_with_their_index)
{
  cJSON *a = cJSON_Parse("[10, 11, 12, 13]");
  int sum = 0, seen = 0;
  TS_JARRAY_EACH(i, it, a)
  {
    ck_assert_int_eq((int)it->valuedouble, 10 + i);
    if (i == 1)
      continue;
    sum += i;
    if (i == 2)
      break;
  }
  ck_assert_int_eq(sum, 2);
  TS_JARRAY_EACH(i, it, NULL) {
    seen++;
  }
  cJSON *empty = cJSON_CreateArray();
  TS_JARRAY_EACH(i, it, empty) {
    seen++;
  }
  ck_assert_int_eq(seen, 0);
  cJSON_Delete(a);
  cJSON_Delete(empty);
}
END_TEST

/* ---- unknown keys and suggestions ---- */

START_TEST(jsonfile_distance_counts_edits_and_transpositions)
{
  ck_assert_uint_eq(ts_suggest_distance("threshold_ms", "threshold_ms", 3), 0);
  ck_assert_uint_eq(ts_suggest_distance("treshold_ms", "threshold_ms", 3), 1);  /* a deletion */
  ck_assert_uint_eq(ts_suggest_distance("thresold_ms", "threshold_ms", 3), 1);
  ck_assert_uint_eq(ts_suggest_distance("wroker", "worker", 3), 1);             /* a transposition */
  ck_assert_uint_eq(ts_suggest_distance("polcy", "policy", 3), 1);
  ck_assert_uint_eq(ts_suggest_distance("kitten", "sitting", 5), 3);
  ck_assert_uint_eq(ts_suggest_distance("", "abc", 5), 3);
  ck_assert_uint_eq(ts_suggest_distance("ca", "abc", 5), 3); /* OSA: not 2, no substring edited twice */
  ck_assert_uint_eq(ts_suggest_distance("kitten", "sitting", 2), 3);            /* past max: max + 1 */
  ck_assert_uint_eq(ts_suggest_distance("a", "abcdefgh", 2), 3);
  char longer[TS_SUGGEST_MAX_LEN + 2];
  memset(longer, 'a', sizeof longer - 1);
  longer[sizeof longer - 1] = '\0';
  ck_assert_uint_eq(ts_suggest_distance(longer, longer, 3), 4);
}
END_TEST

START_TEST(jsonfile_suggest_only_near_names)
{
  static const char *const keys[] = {"policy", "threshold_ms", "priority_divisor", "priority_min_ms", "n", "cv",
                                     NULL};
  ck_assert_str_eq(ts_suggest("treshold_ms", keys), "threshold_ms");
  ck_assert_str_eq(ts_suggest("Threshold_MS", keys), "threshold_ms"); /* case only */
  ck_assert_str_eq(ts_suggest("polcy", keys), "policy");
  ck_assert_str_eq(ts_suggest("priority_min", keys), "priority_min_ms");
  ck_assert_str_eq(ts_suggest("cvv", keys), "cv");
  ck_assert_ptr_null(ts_suggest("colour", keys));  /* nothing near */
  ck_assert_ptr_null(ts_suggest("m", keys));       /* replacing a whole word is no typo */
  ck_assert_ptr_null(ts_suggest("xy", keys));
  ck_assert_ptr_null(ts_suggest("policy", keys));  /* known: nothing to suggest */
  ck_assert_str_eq(ts_suggest("threshold", keys), "threshold_ms"); /* 3 edits on 9 bytes: the limit */
  ck_assert_ptr_null(ts_suggest("thresh", keys));                  /* 6 edits on 6 bytes: past it */
}
END_TEST

START_TEST(jsonfile_unknown_key_message_suggests_the_nearest)
{
  static const char *const keys[] = {"policy", "threshold_ms", "note", NULL};
  ts_jctx c = {.file = "m.json"};
  ts_err e;
  cJSON *o = cJSON_Parse("{\"policy\": 1, \"treshold_ms\": 2}");
  ts_jpush_key(&c, "worker");
  ck_assert_int_eq(ts_jcheck_keys(&c, o, keys, &e), -1);
  ck_assert_str_eq(e.msg, "m.json: worker.treshold_ms: unknown key; did you mean \"threshold_ms\"? (expected one of: "
                          "policy, threshold_ms, note)");
  ck_assert_str_eq(c.path, "worker");
  cJSON_Delete(o);
  o = cJSON_Parse("{\"colour\": 1}");
  ck_assert_int_eq(ts_jcheck_keys(&c, o, keys, &e), -1);
  ck_assert_str_eq(e.msg, "m.json: worker.colour: unknown key (expected one of: policy, threshold_ms, note)");
  cJSON_Delete(o);
}
END_TEST

START_TEST(jsonfile_int_getter_says_what_it_found)
{
  ts_jctx c = {.file = "m.json"};
  ts_err e;
  long v;
  cJSON *o = cJSON_Parse("{\"rows\": 2.5, \"big\": 1e12, \"s\": \"4\"}");
  ck_assert_int_eq(ts_jget_int(&c, o, "rows", 1, 1, 100, &v, &e), -1);
  ck_assert_str_eq(e.msg, "m.json: rows: expected an integer in [1, 100], got 2.5");
  ck_assert_int_eq(ts_jget_int(&c, o, "big", 1, 1, 100, &v, &e), -1);
  ck_assert_str_eq(e.msg, "m.json: big: expected an integer in [1, 100], got 1000000000000");
  ck_assert_int_eq(ts_jget_int(&c, o, "s", 1, 1, 100, &v, &e), -1);
  ck_assert_str_eq(e.msg, "m.json: s: expected an integer in [1, 100], got a string");
  cJSON_Delete(o);
}
END_TEST

Suite *jsonfile_suite(void)
{
  Suite *s = suite_create("jsonfile");
  const TTest *const dup[] = {jsonfile_duplicate_key_names_path_and_both_positions,
                                     jsonfile_duplicate_key_in_large_object_uses_the_earliest_repeat,
                                     jsonfile_keys_differing_in_case_or_in_other_objects_are_not_duplicates,
                                     jsonfile_duplicate_in_set_value_names_the_override_path, NULL};
  const TTest *const text[] = {jsonfile_refuses_nul_bytes_non_utf8_and_blank_text,
                                      jsonfile_nesting_limit_refuses_without_recursing_deeper,
                                      jsonfile_malformed_json_keeps_line_and_column,
                                      jsonfile_malformed_json_says_what_was_found_and_expected, NULL};
  const TTest *const files[] = {jsonfile_load_refuses_folders_and_files_over_the_limit, NULL};
  const TTest *const arrays[] = {jsonfile_array_each_visits_items_in_order_with_their_index, NULL};
  const TTest *const names[] = {jsonfile_distance_counts_edits_and_transpositions,
                                       jsonfile_suggest_only_near_names,
                                       jsonfile_unknown_key_message_suggests_the_nearest,
                                       jsonfile_int_getter_says_what_it_found, NULL};
  tu_tcase(s, "duplicates", dup, NULL, NULL, 0);
  tu_tcase(s, "text", text, NULL, NULL, 0);
  tu_tcase(s, "files", files, make_dir, remove_dir, 0);
  tu_tcase(s, "arrays", arrays, NULL, NULL, 0);
  tu_tcase(s, "names", names, NULL, NULL, 0);
  return s;
}
