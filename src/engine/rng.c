#include "engine/rng.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

struct ts_rng {
  gsl_rng *g;
};

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

ts_rng *ts_rng_create(unsigned long seed)
{
  ts_rng *r = malloc(sizeof *r);
  if (!r)
    return NULL;
  r->g = gsl_rng_alloc(gsl_rng_mt19937);
  if (!r->g) {
    free(r);
    return NULL;
  }
  gsl_rng_set(r->g, seed);
  return r;
}

void ts_rng_destroy(ts_rng *r)
{
  if (!r)
    return;
  gsl_rng_free(r->g);
  free(r);
}

double ts_rng_uniform(ts_rng *r)
{
  return gsl_rng_uniform(r->g);
}

double ts_rng_exponential(ts_rng *r, double mean)
{
  return gsl_ran_exponential(r->g, mean);
}

double ts_rng_lognormal(ts_rng *r, double mean, double cv)
{
  if (cv <= 0)
    return mean;
  double s2 = log1p(cv * cv);
  return gsl_ran_lognormal(r->g, log(mean) - s2 / 2, sqrt(s2));
}

double ts_rng_gamma(ts_rng *r, double mean, double cv)
{
  if (cv <= 0)
    return mean;
  double k = 1.0 / (cv * cv);
  return gsl_ran_gamma(r->g, k, mean / k);
}
