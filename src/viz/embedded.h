/* Text files compiled into tssim by the embed build tool: the gnuplot
 * scripts of plots/ and the trace viewer page. */
#ifndef TS_EMBEDDED_H
#define TS_EMBEDDED_H
#include <stddef.h>

typedef struct ts_embedded {
  const char *name;   /* the file's basename without extension, e.g. "wave" */
  const char *text;
} ts_embedded;

/* plots/<name>.gp; ended by {NULL, NULL}. */
extern const ts_embedded ts_plot_scripts[];
/* src/viz/<name>.html; ended by {NULL, NULL}. */
extern const ts_embedded ts_viz_pages[];

/* The text called name in table, or NULL. */
const char *ts_embedded_find(const ts_embedded *table, const char *name);

#endif
