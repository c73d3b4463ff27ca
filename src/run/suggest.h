/* "Did you mean ...?": the known name nearest to a misspelt one, by edit
 * distance, for error messages about unknown keys and names. */
#ifndef TS_SUGGEST_H
#define TS_SUGGEST_H
#include <stddef.h>

/* Strings longer than this are never near anything (the distance is not computed). */
#define TS_SUGGEST_MAX_LEN 64

/* The optimal-string-alignment distance between a and b (Damerau–Levenshtein
 * without editing a substring twice): the fewest insertions, deletions,
 * substitutions of one byte and transpositions of two adjacent bytes that turn
 * a into b. Case-sensitive, byte-wise. Returns it when it is at most max, and
 * max + 1 otherwise (also when a or b is longer than TS_SUGGEST_MAX_LEN), so a
 * caller that only cares about near strings pays O(len · len) at most and no
 * allocation. */
size_t ts_suggest_distance(const char *a, const char *b, size_t max);

/* The candidate nearest to word in the NULL-terminated list, or NULL when
 * none is near enough to be a typo of it. A candidate equal to word but for
 * letter case wins outright; otherwise the one at the smallest distance d
 * (the first in list order on ties), provided that d <= max(len, 3) / 3 where
 * len is word's length (one edit for words of up to 5 bytes, two up to 8, ...)
 * and d < the length of both strings (replacing a whole word is not a typo).
 * word itself is never suggested (d = 0 means it is known). */
const char *ts_suggest(const char *word, const char *const *candidates);

#endif
