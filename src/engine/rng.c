#include "engine/rng.h"

#include <math.h>
#include <pthread.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

/* A ts_rng is a gsl_rng: the type only keeps GSL out of the header. */
#define G(r) ((gsl_rng *)(void *)(r))

/* splitmix64 finaliser: spreads nearby seeds far apart. */
static uint64_t mix(uint64_t z)
{
  z += UINT64_C(0x9e3779b97f4a7c15);
  z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
  z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
  return z ^ (z >> 31);
}

unsigned long ts_rng_derive_seed(uint64_t seed, int n, int workers, int replication)
{
  uint64_t z = mix(seed);
  z = mix(z ^ (uint64_t)(uint32_t)n);
  z = mix(z ^ ((uint64_t)(uint32_t)workers << 32));
  z = mix(z ^ (uint64_t)(uint32_t)replication);
  return (unsigned long)(z & 0xffffffffu);
}

uint64_t ts_rng_stream_key(uint64_t rep_seed, int klass)
{
  uint64_t z = mix(rep_seed ^ UINT64_C(0x5bd1e9955bd1e995));
  return mix(z ^ (uint64_t)(uint32_t)klass);
}

uint64_t ts_rng_stream_seed(uint64_t key, int index, int k)
{
  uint64_t z = mix(key ^ ((uint64_t)(uint32_t)index << 32));
  return mix(z ^ (uint64_t)(uint32_t)k);
}

uint64_t ts_rng_derive_stream(uint64_t rep_seed, int klass, int index, int k)
{
  return ts_rng_stream_seed(ts_rng_stream_key(rep_seed, klass), index, k);
}

static ts_rng *create(const gsl_rng_type *t, unsigned long seed)
{
  gsl_rng *g = gsl_rng_alloc(t);
  if (g)
    gsl_rng_set(g, seed);
  return (ts_rng *)(void *)g;
}

ts_rng *ts_rng_create(unsigned long seed)
{
  return create(gsl_rng_mt19937, seed);
}

/* taus2 takes 32 bits of seed; 0 would mean GSL's default seed */
static unsigned long small_seed(uint64_t seed)
{
  unsigned long s = (unsigned long)((seed ^ (seed >> 32)) & 0xffffffffu);
  return s ? s : 1;
}

ts_rng *ts_rng_create_small(uint64_t seed)
{
  return create(gsl_rng_taus2, small_seed(seed));
}

/* A gsl_rng and its state side by side (gsl_rng_alloc makes the two apart). */
size_t ts_rng_small_size(void)
{
  size_t head = (sizeof(gsl_rng) + 15) & ~(size_t)15;
  return head + gsl_rng_taus2->size;
}

/* taus2's state as GSL keeps it (rng/taus.c, taus_state_t): its three
 * components, each 32 bits. */
typedef struct {
  unsigned long s[3];
} taus2_state;

/* warm[c][j][b]: component c of taus2's state after six steps from a state
 * whose component c is b << 8j and whose others are 0. Each component's
 * step (GSL's taus_get) is linear over GF(2) bit vectors and leaves the
 * other components alone, so six steps of a whole state are, for each
 * component, the XOR of the four bytes' entries. Filled by GSL's own step. */
static uint32_t warm[3][4][256];
static pthread_once_t warm_once = PTHREAD_ONCE_INIT;

static void fill_warm(void)
{
  taus2_state st;
  gsl_rng g = {gsl_rng_taus2, &st};
  for (int c = 0; c < 3; c++)
    for (int j = 0; j < 4; j++)
      for (unsigned b = 0; b < 256; b++) {
        st.s[0] = st.s[1] = st.s[2] = 0;
        st.s[c] = (unsigned long)b << (8 * j);
        for (int k = 0; k < 6; k++)
          gsl_rng_get(&g);
        warm[c][j][b] = (uint32_t)st.s[c];
      }
}

/* Six steps of component c from x, by the tables. */
static unsigned long warm_up(int c, uint32_t x)
{
  return warm[c][0][x & 0xff] ^ warm[c][1][(x >> 8) & 0xff] ^ warm[c][2][(x >> 16) & 0xff] ^ warm[c][3][x >> 24];
}

ts_rng *ts_rng_init_small(void *mem, uint64_t seed)
{
  pthread_once(&warm_once, fill_warm);
  gsl_rng *g = mem;
  g->type = gsl_rng_taus2;
  g->state = (char *)mem + ((sizeof(gsl_rng) + 15) & ~(size_t)15);
  /* taus2_set's seeding (GSL rng/taus.c): three LCG steps from the seed,
   * each component at least 2, 8 and 16, then six warm-up steps */
  uint32_t s1 = (uint32_t)(UINT32_C(69069) * (uint32_t)small_seed(seed));
  if (s1 < 2)
    s1 += 2;
  uint32_t s2 = (uint32_t)(UINT32_C(69069) * s1);
  if (s2 < 8)
    s2 += 8;
  uint32_t s3 = (uint32_t)(UINT32_C(69069) * s2);
  if (s3 < 16)
    s3 += 16;
  taus2_state *st = g->state;
  st->s[0] = warm_up(0, s1);
  st->s[1] = warm_up(1, s2);
  st->s[2] = warm_up(2, s3);
  return (ts_rng *)(void *)g;
}

ts_rng *ts_rng_clone(const ts_rng *r)
{
  return (ts_rng *)(void *)gsl_rng_clone((const gsl_rng *)(const void *)r);
}

void ts_rng_destroy(ts_rng *r)
{
  if (r)
    gsl_rng_free(G(r));
}

double ts_rng_uniform(ts_rng *r)
{
  return gsl_rng_uniform(G(r));
}

size_t ts_rng_index(ts_rng *r, size_t n)
{
  return n > 1 ? (size_t)gsl_rng_uniform_int(G(r), (unsigned long)n) : 0;
}

unsigned ts_rng_geometric(ts_rng *r, double p)
{
  return gsl_ran_geometric(G(r), p);
}

double ts_rng_exponential(ts_rng *r, double mean)
{
  return gsl_ran_exponential(G(r), mean);
}

void ts_rng_lognormal_params(double mean, double cv, double *mu, double *sigma)
{
  double s2 = log1p(cv * cv);
  *mu = log(mean) - s2 / 2;
  *sigma = sqrt(s2);
}

double ts_rng_lognormal_at(ts_rng *r, double mu, double sigma)
{
  return gsl_ran_lognormal(G(r), mu, sigma);
}

double ts_rng_lognormal(ts_rng *r, double mean, double cv)
{
  if (cv <= 0)
    return mean;
  double mu, sigma;
  ts_rng_lognormal_params(mean, cv, &mu, &sigma);
  return gsl_ran_lognormal(G(r), mu, sigma);
}

double ts_rng_gamma(ts_rng *r, double mean, double cv)
{
  if (cv <= 0)
    return mean;
  double k = 1.0 / (cv * cv);
  return gsl_ran_gamma(G(r), k, mean / k);
}
