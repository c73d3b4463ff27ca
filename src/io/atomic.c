#include "io/atomic.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int ts_mkdirs(const char *dir, ts_err *e)
{
  char buf[1024];
  if (snprintf(buf, sizeof buf, "%s", dir) >= (int)sizeof buf)
    return ts_err_set(e, dir, NULL, "path too long");
  for (char *p = buf + 1; ; p++) {
    if (*p == '/' || *p == '\0') {
      char c = *p;
      *p = '\0';
      if (mkdir(buf, 0777) != 0 && errno != EEXIST)
        return ts_err_set(e, buf, NULL, "cannot create folder: %s", strerror(errno));
      *p = c;
      if (c == '\0')
        break;
    }
  }
  return 0;
}

void ts_atomic_init(ts_atomic *a)
{
  memset(a, 0, sizeof *a);
}

static char *join(const char *dir, const char *name, const char *suffix)
{
  size_t len = strlen(dir) + strlen(name) + strlen(suffix) + 2;
  char *s = malloc(len);
  if (s)
    snprintf(s, len, "%s/%s%s", dir, name, suffix);
  return s;
}

FILE *ts_atomic_open(ts_atomic *a, const char *dir, const char *name, ts_err *e)
{
  if (a->n == TS_ATOMIC_MAX) {
    ts_err_set(e, dir, NULL, "too many output files");
    return NULL;
  }
  char suffix[64];
  snprintf(suffix, sizeof suffix, ".tmp.%ld", (long)getpid());
  char *fin = join(dir, name, ""), *tmp = join(dir, name, suffix);
  FILE *f = tmp ? fopen(tmp, "wb") : NULL;
  if (!f) {
    ts_err_set(e, tmp ? tmp : name, NULL, "cannot write: %s", strerror(errno));
    free(fin);
    free(tmp);
    return NULL;
  }
  a->final[a->n] = fin;
  a->tmp[a->n] = tmp;
  a->f[a->n] = f;
  a->n++;
  return f;
}

static void release(ts_atomic *a, int remove_tmp)
{
  for (int i = 0; i < a->n; i++) {
    if (a->f[i])
      fclose(a->f[i]);
    if (remove_tmp)
      remove(a->tmp[i]);
    free(a->final[i]);
    free(a->tmp[i]);
  }
  a->n = 0;
}

/* Path of the backup of target i while a batch is committed. */
static char *backup_name(const ts_atomic *a, int i)
{
  size_t len = strlen(a->final[i]) + 32;
  char *b = malloc(len);
  if (b)
    snprintf(b, len, "%s.old.%ld", a->final[i], (long)getpid());
  return b;
}

/* Undo a failed commit: remove the first `installed` new files, then rename
 * every backup made back over its target. */
static void roll_back(ts_atomic *a, char **backup, int installed)
{
  for (int i = 0; i < installed; i++)
    remove(a->final[i]);
  for (int i = 0; i < a->n; i++)
    if (backup[i])
      rename(backup[i], a->final[i]);
}

int ts_atomic_commit(ts_atomic *a, ts_err *e)
{
  int bad = -1;
  for (int i = 0; i < a->n; i++) {
    int err = ferror(a->f[i]);
    if (fclose(a->f[i]) != 0 || err)
      bad = bad < 0 ? i : bad;
    a->f[i] = NULL;
  }
  if (bad >= 0) {
    ts_err_set(e, a->final[bad], NULL, "write failed (disk full?)");
    release(a, 1);
    return -1;
  }
  /* Only regular files are replaced; check them all before touching any. */
  for (int i = 0; i < a->n; i++) {
    struct stat st;
    if (stat(a->final[i], &st) == 0 && !S_ISREG(st.st_mode)) {
      ts_err_set(e, a->final[i], NULL, "cannot replace: not a regular file");
      release(a, 1);
      return -1;
    }
  }
  /* Move the old files aside, then install the new ones; on any failure put
   * every old file back, so the batch replaces all targets or none. */
  char *backup[TS_ATOMIC_MAX] = {0};
  int rc = 0;
  for (int i = 0; i < a->n && rc == 0; i++) {
    if (access(a->final[i], F_OK) != 0)
      continue;
    backup[i] = backup_name(a, i);
    if (!backup[i] || rename(a->final[i], backup[i]) != 0) {
      rc = ts_err_set(e, a->final[i], NULL, "cannot replace: %s", strerror(errno));
      free(backup[i]);
      backup[i] = NULL;
      roll_back(a, backup, 0);
    }
  }
  for (int i = 0; i < a->n && rc == 0; i++)
    if (rename(a->tmp[i], a->final[i]) != 0) {
      rc = ts_err_set(e, a->final[i], NULL, "cannot replace: %s", strerror(errno));
      roll_back(a, backup, i);
    }
  for (int i = 0; i < a->n; i++) {
    if (rc == 0 && backup[i])
      remove(backup[i]);
    free(backup[i]);
  }
  release(a, rc != 0);
  return rc;
}

void ts_atomic_abort(ts_atomic *a)
{
  release(a, 1);
}
