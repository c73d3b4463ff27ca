/* JSON text the way tssim's model files are written by hand: two-space
 * indentation, and a container on one line when it fits in 120 columns
 * (e.g. one step per line), so a calibrated model diffs cleanly against the
 * model it came from. */
#ifndef TS_FIT_PRINT_H
#define TS_FIT_PRINT_H
#include <cjson/cJSON.h>

/* The text of root, ending in a newline (caller frees), or NULL when memory runs out. */
char *ts_fit_json_print(const cJSON *root);

#endif
