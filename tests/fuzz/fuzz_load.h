/* The fuzz target's body, shared by the libFuzzer binary and the regression test. */
#ifndef TS_FUZZ_LOAD_H
#define TS_FUZZ_LOAD_H
#include <stddef.h>
#include <stdint.h>

/* Feed size bytes to ts_json_parse and, when they parse, to the model,
 * scenario and baseline loaders. Aborts when a refusal is not one line naming
 * the input. Returns which loaders accepted the input (bits 1 model, 2
 * scenario, 4 baseline; 0 none), or -1 when out of memory. */
int ts_fuzz_load_one(const uint8_t *data, size_t size);

#endif
