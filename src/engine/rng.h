/* Random streams. One stream per replication, drawn from GSL's MT19937 and
 * seeded from (scenario seed, sweep point, replication), so every replication
 * is reproducible on its own. GSL types stay behind this header. */
#ifndef TS_RNG_H
#define TS_RNG_H
#include <stddef.h>
#include <stdint.h>

typedef struct ts_rng ts_rng;

/* Derive the seed of one replication from the scenario seed and its coordinates. */
unsigned long ts_rng_derive_seed(uint64_t seed, int n, int workers, int replication);
/* Derive the seed of one actor's stream from its replication's seed, its
 * class, its index within the class and k (0 for the actor itself, 1, 2, ...
 * for what it spawns; index -1 for the class's own arrival stream), so that
 * streams depend on nothing else: common random numbers across variants. */
uint64_t ts_rng_derive_stream(uint64_t rep_seed, int klass, int index, int k);
/* The first part of ts_rng_derive_stream: the key of (rep_seed, klass), the
 * same for every index and k, so a caller with many streams of one class
 * finds it once. */
uint64_t ts_rng_stream_key(uint64_t rep_seed, int klass);
/* The second part: the seed of stream (index, k) from its class's key;
 * ts_rng_stream_seed(ts_rng_stream_key(s, c), i, k) ==
 * ts_rng_derive_stream(s, c, i, k), bit for bit. */
uint64_t ts_rng_stream_seed(uint64_t key, int index, int k);
/* A small, fast stream (GSL's taus2) for one actor, or NULL when memory runs out. */
ts_rng *ts_rng_create_small(uint64_t seed);
/* Bytes a small stream takes (ts_rng_init_small's memory). */
size_t ts_rng_small_size(void);
/* The same stream as ts_rng_create_small(seed), in caller memory mem of
 * ts_rng_small_size() bytes (aligned for a pointer); nothing to free. The
 * state GSL's seeding gives, bit for bit, in half its instructions (about
 * 90 against 180): its six warm-up steps are table lookups (one stream per
 * actor: gsl_rng_set was 8% of an M/M/1 job's instructions). Thread-safe. */
ts_rng *ts_rng_init_small(void *mem, uint64_t seed);
/* A new stream seeded with seed, or NULL when memory runs out. */
ts_rng *ts_rng_create(unsigned long seed);
/* A new stream in the state r is in now (its draws from here on are r's),
 * or NULL when memory runs out. */
ts_rng *ts_rng_clone(const ts_rng *r);
/* Free a stream; NULL is accepted. */
void ts_rng_destroy(ts_rng *r);
/* Uniform in [0, 1). */
double ts_rng_uniform(ts_rng *r);
/* Uniform over the integers 0 to n - 1 (n >= 1). */
size_t ts_rng_index(ts_rng *r, size_t n);
/* Geometric on 1, 2, ... with success probability p in (0, 1] (mean 1 / p). */
unsigned ts_rng_geometric(ts_rng *r, double p);
/* Exponential with the given mean. */
double ts_rng_exponential(ts_rng *r, double mean);
/* Lognormal with the given mean and coefficient of variation (cv = sd/mean):
 * ts_rng_lognormal_at of ts_rng_lognormal_params' mu and sigma when cv > 0;
 * the mean itself (no draw) when cv <= 0. */
double ts_rng_lognormal(ts_rng *r, double mean, double cv);
/* The log-scale location and scale of the lognormal of this mean and cv > 0:
 * s2 = log1p(cv^2), mu = log(mean) - s2 / 2, sigma = sqrt(s2). */
void ts_rng_lognormal_params(double mean, double cv, double *mu, double *sigma);
/* A lognormal draw given its log-scale location and scale (work them out
 * once with ts_rng_lognormal_params: the same bits as ts_rng_lognormal). */
double ts_rng_lognormal_at(ts_rng *r, double mu, double sigma);
/* Gamma with the given mean and coefficient of variation. */
double ts_rng_gamma(ts_rng *r, double mean, double cv);

#endif
