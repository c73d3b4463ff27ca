/* What malformed JSON text holds where cJSON stopped, in words. cJSON reports
 * only a position; this reads the text around it (a lexical scan of strings
 * and brackets, not a second parser) and says what is there and what was
 * expected there. */
#ifndef TS_JSONSYNTAX_H
#define TS_JSONSYNTAX_H
#include <stddef.h>

/* text[0, len) is UTF-8 without NUL bytes that cJSON refused, *off the
 * position cJSON reported (0 <= *off <= len). Writes into what (cap bytes)
 * one clause such as "found '}' where a value was expected", "trailing comma
 * before ']'", "unterminated string" or "the text ends where ',' or '}' was
 * expected"; sets *off to the offending byte when cJSON's position is one past
 * it (cJSON reports a key that is not a string one byte late) or to the
 * opening quote of an unterminated string. Linear in *off. */
void ts__json_explain(const char *text, size_t len, size_t *off, char *what, size_t cap);
/* 3 when text[0, len) starts with a UTF-8 byte order mark that cJSON skips,
 * else 0. */
size_t ts__json_bom(const char *text, size_t len);
/* The nesting depth (open arrays and objects, strings skipped) just before
 * byte off of text[0, len). Linear in off. */
size_t ts__json_depth_at(const char *text, size_t len, size_t off);

#endif
