#include "io/err.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int ts_err_set(ts_err *e, const char *file, const char *path, const char *fmt, ...)
{
  char what[768];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  e->nomem = strncmp(what, "out of memory", 13) == 0;
  if (path && *path)
    snprintf(e->msg, sizeof e->msg, "%s: %s: %s", file, path, what);
  else
    snprintf(e->msg, sizeof e->msg, "%s: %s", file, what);
  for (char *p = e->msg; *p; p++) /* one line, whatever the input held */
    if ((unsigned char)*p < 0x20 || *p == 0x7f)
      *p = '?';
  return -1;
}
