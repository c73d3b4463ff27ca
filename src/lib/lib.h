/* The library's handles, inside (the public header keeps them opaque). */
#ifndef TS_LIB_H
#define TS_LIB_H
#include <stddef.h>
#include <stdint.h>

#include "lib/load.h"
#include "run/sweep.h"
#include "tssim/tssim.h"

struct tssim_scenario {
  char *path;                              /* the file, or NULL */
  char *scenario_json, *model_json, *baseline_json; /* the text, or NULL */
  char **sets;                             /* tssim_set's overrides, in order */
  int nsets;
  char *over[6];                           /* the sweep overrides as text: n, workers, replications,
                                              seed, ci target, ci max (NULL: the scenario's) */
  ts_loaded L;                             /* loaded with all of the above */
};

/* One actor row: samples.csv's numeric columns. */
#define TS_LIB_ACTOR_COLS 17

typedef struct ts_lib_actor {
  int combo;
  int klass;                               /* into tssim_result.classes */
  double v[TS_LIB_ACTOR_COLS];
} ts_lib_actor;

struct tssim_result {
  ts_sweep s;
  size_t naxes;
  char **labels;                           /* [ncombos * naxes] */
  double *recorded;                        /* [npoints * ncols], NAN where none */
  unsigned char *raw;                      /* the actor records as the sweep wrote them */
  size_t raw_len, raw_cap;
  int raw_failed;
  ts_lib_actor *actors;
  size_t nactors;
  char **classes;
  size_t nclasses;
};

/* Make spec's sweep keep every counted actor's row in r. */
void ts_lib_keep_actors(tssim_result *r, ts_sweep_spec *spec);
/* After r->s ran: copy what r needs of L (labels, recorded values) and
 * read the actor rows. Returns 0, or -1 when memory ran out. */
int ts_lib_result_finish(tssim_result *r, const ts_loaded *L);

#endif
