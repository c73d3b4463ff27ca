/* Writing traces: the JSON alone, or inside the trace viewer page. Each is
 * a file of the caller's batch (a temporary file renamed into place when
 * the caller commits it, with the batch's other files). In the
 * page, every "<" is written "\u003c" (the same JSON string: "<" is only
 * ever inside strings) so no text of the trace can end or disturb its
 * <script> element. */
#include <stdlib.h>
#include <string.h>

#include "io/atomic.h"
#include "viz/embedded.h"
#include "viz/trace.h"

#define PLACEHOLDER "/*TRACE_JSON*/"

/* Write before + json + after to path's temporary in batch a; json is
 * escaped for a <script> element when `script`. Returns 0 or -1 with e
 * filled. */
static int write_atomic(ts_atomic *a, const char *path, const char *before, size_t before_len, const char *json, int script,
                        const char *after, ts_err *e)
{
  FILE *f = ts_atomic_open_path(a, path, e);
  if (!f)
    return -1;
  fwrite(before, 1, before_len, f);
  for (const char *p = json; *p; p++) {
    if (script && *p == '<') {
      fputs("\\u003c", f);
      continue;
    }
    fputc(*p, f);
  }
  fputs(after, f);
  return 0;
}

static char *trace_text(const ts_timeline *tl, const ts_trace_info *info)
{
  cJSON *root = ts_trace_build(tl, info);
  char *text = root ? cJSON_PrintUnformatted(root) : NULL;
  cJSON_Delete(root);
  return text;
}

int ts_trace_write(ts_atomic *a, const ts_timeline *tl, const ts_trace_info *info, const char *path, ts_err *e)
{
  char *text = trace_text(tl, info);
  if (!text)
    return ts_err_set(e, path, NULL, "out of memory building the trace");
  int rc = write_atomic(a, path, "", 0, text, 0, "\n", e);
  cJSON_free(text);
  return rc;
}

int ts_trace_write_html(ts_atomic *a, const ts_timeline *tl, const ts_trace_info *info, const char *path, ts_err *e)
{
  const char *page = ts_embedded_find(ts_viz_pages, "trace_viewer");
  const char *hole = page ? strstr(page, PLACEHOLDER) : NULL;
  if (!hole)
    return ts_err_set(e, path, NULL, "internal error: the trace viewer page is missing from this build");
  char *text = trace_text(tl, info);
  if (!text)
    return ts_err_set(e, path, NULL, "out of memory building the trace");
  int rc = write_atomic(a, path, page, (size_t)(hole - page), text, 1, hole + strlen(PLACEHOLDER), e);
  cJSON_free(text);
  return rc;
}
