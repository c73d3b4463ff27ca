/* The reader an op's load function gets: typed fields of the step being
 * loaded, with errors that name the file and the JSON path. It hides JSON
 * (src/io/spec_json.c implements it with cJSON), so an op file needs no
 * parser types. Every getter returns 0, or -1 with the error recorded; a
 * field that is absent and not required leaves *out unchanged. */
#ifndef TS_SPEC_H
#define TS_SPEC_H
#include <stdint.h>

#include "model/model.h"

typedef struct ts_spec ts_spec;

/* What a reference names. */
typedef enum { TS_REF_LOCK, TS_REF_CHANNEL, TS_REF_SERVER, TS_REF_COUNTER, TS_REF_SPAN, TS_REF_POOL,
               TS_REF_VAR } ts_ref_kind;

/* A duration in ms: a number, "$param" or an expression ("$a + 0.001 * rows"),
 * with the optional "dist", "cv", "min_ms"/"max_ms" (uniform) keys shaping it
 * (only for the key named "ms"). out is ts_dist_prepare'd. */
int ts_spec_dist(ts_spec *sp, const char *key, int required, ts_dist *out);
/* A duration given as an object {"ms": D, "dist": ..., "cv": ..., "min_ms":
 * ..., "max_ms": ...} at key (a timeout): *given = 1 and out filled, or
 * *given = 0 when the key is absent. */
int ts_spec_dist_object(ts_spec *sp, const char *key, ts_dist *out, int *given);
/* A duration in ms that must be known at load time (a number or "$param"). */
int ts_spec_time(ts_spec *sp, const char *key, int required, ts_time *out);
/* An integer in [lo, hi] known at load time (a number or "$param"). */
int ts_spec_int(ts_spec *sp, const char *key, int required, long lo, long hi, int64_t *out);
/* A number in [lo, hi] known at load time (a number, "$param" or an
 * expression of $params); *out is left alone when the key is absent. */
int ts_spec_number(ts_spec *sp, const char *key, int required, double lo, double hi, double *out);
int ts_spec_bool(ts_spec *sp, const char *key, int required, int *out);
/* true or false (1, 0), or the string `word` (2); *out is left alone when the key is absent. */
int ts_spec_bool_or(ts_spec *sp, const char *key, const char *word, int *out);
/* A string; a "$param" naming a string parameter is replaced by its value. */
int ts_spec_string(ts_spec *sp, const char *key, int required, const char **out);
/* One of names (NULL-terminated): its index into *out. */
int ts_spec_enum(ts_spec *sp, const char *key, int required, const char *const *names, int *out);
/* An expression evaluated while running (a number, "$param" or text). */
int ts_spec_expr(ts_spec *sp, const char *key, int required, ts_expr **out);
/* The declaration of this kind that the string field names: its index
 * (TS_REF_VAR: one of the vars of the class being compiled). */
int ts_spec_ref(ts_spec *sp, const char *key, int required, ts_ref_kind kind, int *out);
/* The span named by the field (declared on first use): its index. */
int ts_spec_span(ts_spec *sp, const char *key, int required, int *out);
/* The site of mutex declaration lock named by the field (declared on first
 * use: a lower-case name that names metric columns): its index. */
int ts_spec_site(ts_spec *sp, const char *key, int lock, int *out);
/* Span `span` gets samples (some step ends it). */
void ts_spec_span_sampled(ts_spec *sp, int span);
/* Whether the step has the key. */
int ts_spec_has(ts_spec *sp, const char *key);
/* The model loaded so far (pools, locks, channels, servers, counters are in place). */
const ts_model *ts_spec_model(ts_spec *sp);
/* Record an error at the step's path (plus key, if not NULL). Returns -1. */
int ts_spec_fail(ts_spec *sp, const char *key, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
