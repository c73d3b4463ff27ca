/* A recorded timeline drawn as a text Gantt chart: a time axis, one row per
 * worker (which actor runs, loop overhead, idle), one row per actor (its
 * state), one more per actor holding a lock when the model declares locks,
 * and a legend. Each column covers `step` of simulated time, a 1-2-5 value
 * chosen so the chart fits the width; a cell shows what covered most of its
 * interval (ties: what came first), except that a worker cell is blank
 * (idle) only when the worker was idle for more than half of it: a column
 * shared by many actors shows the one that ran longest there ('*' stands for
 * every actor beyond 61, drawn or not). */
#ifndef TS_GANTT_H
#define TS_GANTT_H
#include <stdio.h>

#include "viz/timeline.h"

typedef struct ts_gantt_opts {
  int width;          /* total columns, >= TS_GANTT_MIN_WIDTH */
  int ascii;          /* plain ASCII instead of Unicode blocks */
  int max_actors;     /* actor rows drawn at most (the first ones) */
  const char *title;  /* first line's prefix, e.g. the scenario name; may be NULL */
  ts_time from, to;   /* the window drawn, [from, to) of simulated time; to <= 0 or past the run's end:
                       * to its end. A window narrower than the run draws the actors present in it
                       * (arrived before its end, not ended before its start) */
} ts_gantt_opts;

#define TS_GANTT_MIN_WIDTH 60

/* Draw tl on out, from o->from to o->to. Every line is at most o->width
 * columns. Returns 0, or -1 when memory runs out, the width is below
 * TS_GANTT_MIN_WIDTH or the window is empty (o->from at or after the run's
 * end or o->to). */
int ts_gantt_render(FILE *out, const ts_timeline *tl, const ts_gantt_opts *o);

#endif
