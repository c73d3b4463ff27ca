/* The fuzz targets' bodies, shared by the libFuzzer binaries and the regression test. */
#ifndef TS_FUZZ_LOAD_H
#define TS_FUZZ_LOAD_H
#include <stddef.h>
#include <stdint.h>

/* Feed size bytes to ts_json_parse and, when they parse, to the model,
 * scenario and baseline loaders. Aborts when a refusal is not one line naming
 * the input. Returns which loaders accepted the input (bits 1 model, 2
 * scenario, 4 baseline; 0 none), or -1 when out of memory. */
int ts_fuzz_load_one(const uint8_t *data, size_t size);
/* Take size bytes (up to a NUL) as an expression: compile and evaluate it,
 * load it in every expression field of a model, and as a raw --set value
 * (fuzz_expr.c). Aborts as ts_fuzz_load_one does. Returns 0, or -1 when out
 * of memory. */
int ts_fuzz_expr_one(const uint8_t *data, size_t size);

/* Abort unless e holds one line "FILE: ..." naming file. */
struct ts_err;
void ts_fuzz_check_message(const char *file, const struct ts_err *e);

#endif
