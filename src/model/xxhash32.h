/* xxHash32 (Yann Collet's XXH32), as zero-cache uses to dispatch client groups. */
#ifndef TS_XXHASH32_H
#define TS_XXHASH32_H
#include <stddef.h>
#include <stdint.h>

/* The 32-bit xxHash of len bytes at data with the given seed. */
uint32_t ts_xxh32(const void *data, size_t len, uint32_t seed);

#endif
