/* Edit distance by dynamic programming over three rows (transpositions look
 * two rows back): row i holds the distances between a's first i bytes and
 * every prefix of b. Invariant that makes the early exit sound: a row's
 * smallest entry M(i) is at least min(M(i-1), M(i-2) + 1) and at most
 * M(i-1) + 1, so once M(i) > max every later row, and the distance, is too. */
#include "run/suggest.h"

#include <string.h>
#include <strings.h>

static size_t min3(size_t x, size_t y, size_t z)
{
  size_t m = x < y ? x : y;
  return m < z ? m : z;
}

size_t ts_suggest_distance(const char *a, const char *b, size_t max)
{
  size_t la = strlen(a), lb = strlen(b);
  if (la > TS_SUGGEST_MAX_LEN || lb > TS_SUGGEST_MAX_LEN || (la > lb ? la - lb : lb - la) > max)
    return max + 1;
  size_t rows[3][TS_SUGGEST_MAX_LEN + 1];
  size_t *before = rows[0], *prev = rows[1], *cur = rows[2];
  for (size_t j = 0; j <= lb; j++)
    prev[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t low;
    cur[0] = low = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cost = a[i - 1] != b[j - 1];
      size_t d = min3(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && before[j - 2] + 1 < d)
        d = before[j - 2] + 1;
      cur[j] = d;
      if (d < low)
        low = d;
    }
    if (low > max)
      return max + 1;
    size_t *t = before;
    before = prev;
    prev = cur;
    cur = t;
  }
  return prev[lb] <= max ? prev[lb] : max + 1;
}

const char *ts_suggest(const char *word, const char *const *candidates)
{
  size_t len = strlen(word);
  size_t limit = (len > 3 ? len : 3) / 3;
  const char *best = NULL;
  size_t best_d = limit + 1;
  for (size_t i = 0; candidates[i]; i++) {
    const char *c = candidates[i];
    if (strcmp(c, word) == 0)
      return NULL;
    if (strcasecmp(c, word) == 0)
      return c;
    size_t d = ts_suggest_distance(word, c, limit);
    if (d < best_d && d < len && d < strlen(c)) {
      best = c;
      best_d = d;
    }
  }
  return best;
}
