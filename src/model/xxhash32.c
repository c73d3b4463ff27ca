#include "model/xxhash32.h"

#include <string.h>

#define P1 UINT32_C(2654435761)
#define P2 UINT32_C(2246822519)
#define P3 UINT32_C(3266489917)
#define P4 UINT32_C(668265263)
#define P5 UINT32_C(374761393)

static uint32_t rotl(uint32_t x, int r)
{
  return (x << r) | (x >> (32 - r));
}

static uint32_t read32(const unsigned char *p)
{
  return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint32_t round32(uint32_t acc, uint32_t lane)
{
  return rotl(acc + lane * P2, 13) * P1;
}

uint32_t ts_xxh32(const void *data, size_t len, uint32_t seed)
{
  const unsigned char *p = data;
  const unsigned char *end = p + len;
  uint32_t h;
  if (len >= 16) {
    uint32_t v1 = seed + P1 + P2, v2 = seed + P2, v3 = seed, v4 = seed - P1;
    const unsigned char *limit = end - 16;
    do {
      v1 = round32(v1, read32(p));
      v2 = round32(v2, read32(p + 4));
      v3 = round32(v3, read32(p + 8));
      v4 = round32(v4, read32(p + 12));
      p += 16;
    } while (p <= limit);
    h = rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18);
  } else {
    h = seed + P5;
  }
  h += (uint32_t)len;
  while (p + 4 <= end) {
    h = rotl(h + read32(p) * P3, 17) * P4;
    p += 4;
  }
  while (p < end) {
    h = rotl(h + (*p) * P5, 11) * P1;
    p++;
  }
  h ^= h >> 15;
  h *= P2;
  h ^= h >> 13;
  h *= P3;
  h ^= h >> 16;
  return h;
}
