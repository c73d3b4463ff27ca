#include "viz/embedded.h"

#include <string.h>

const char *ts_embedded_find(const ts_embedded *table, const char *name)
{
  for (const ts_embedded *e = table; e->name; e++)
    if (strcmp(e->name, name) == 0)
      return e->text;
  return NULL;
}
